#!/bin/bash
# tests/llm/test_cassette_replay.sh — replays the exchanges tests/llm/real_model.sh recorded
# against a real model server (llama.cpp's, Gemma 3 270M) in a new run, with no server:
# the same verdicts, exit status and token counts as the recorded run (FILE.expect: exit
# status, verdicts, tokens in and out, then the steps and --max-tokens it ran with), so prompts stay deterministic across runs and
# machines and the real server's answers keep parsing.  The flags are real_model.sh's.
set -u
. "$KF_SRCDIR/tests/e2e/tap.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cassettes=$(ls "$KF_SRCDIR"/tests/llm/cassettes/*.jsonl 2>/dev/null)
echo "1..$((3 * $(echo "$cassettes" | grep -c .)))"
for c in $cassettes; do
    name=$(basename "$c" .jsonl)
    { read -r want_rc; read -r want_v; read -r want_tok; read -r steps maxtok; } <"$c.expect"
    XDG_CACHE_HOME="$tmp/cache-$name" "$KFORGE" run "$KF_SRCDIR/tests/e2e/llm/scale_relu.json" --backend cpu-simd \
        --agent "replay:$c" --out "$tmp/$name" --no-baseline --target 0 --max-iterations "$steps" --max-time 3000 \
        --context-tokens 8192 --max-tokens "$maxtok" --temperature 0.2 >"$tmp/$name.out" 2>&1
    rc=$?
    [ "$rc" = "$want_rc" ] && ok "$name: replayed with no server, exit $rc as recorded" \
        || no "$name: replays with exit $want_rc" "exit $rc" "$(tail -n 4 "$tmp/$name.out")"
    v=$("$PYTHON3" -c 'import json,sys; print(" ".join(e["verdict"] for e in map(json.loads, open(sys.argv[1])) if e["ev"] == "eval"))' \
        "$tmp/$name/journal.jsonl" 2>&1)
    [ "$v" = "$want_v" ] && ok "$name: the recorded verdicts ($v)" || no "$name: the recorded verdicts" "got '$v', want '$want_v'"
    tok=$("$PYTHON3" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["tokens_in"], r["tokens_out"])' "$tmp/$name/result.json" 2>&1)
    [ "$tok" = "$want_tok" ] && ok "$name: the server's token counts ($tok)" || no "$name: the token counts" "got '$tok', want '$want_tok'"
done
tap_exit
