#!/bin/bash
# tests/e2e/test_cli_exit_codes.sh — the one table from error kinds to exit
# codes (core/util/error.c, kf_exit_code), seen from the CLI: every setup
# error exits 2 with a message that says what to fix, a failing candidate
# exits 1.  Each case checks the exit code and the message.
set -u
. "$KF_SRCDIR/tests/e2e/tap.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
P="$KF_SRCDIR/tests/e2e/llm/scale_relu.json"
echo "1..8"
expect() {   # NAME CODE PATTERN COMMAND...
    local name=$1 code=$2 pat=$3; shift 3
    "$@" >"$tmp/out" 2>&1; local rc=$?
    if [ $rc -eq "$code" ] && grep -q -- "$pat" "$tmp/out"; then ok "$name: exit $code"
    else no "$name: exit $code" "exit $rc, expected $code; wanted /$pat/" "$(tail -n 3 "$tmp/out")"; fi
}
run() { "$KFORGE" run "$P" --backend cpu-simd --max-iterations 1 --no-baseline --out "$tmp/r$RANDOM" "$@"; }
expect "unknown agent provider" 2 "unknown provider 'bogus'" run --agent bogus:model
expect "missing API key" 2 "OPENAI_API_KEY is not set" env -u OPENAI_API_KEY -u OPENAI_BASE_URL "$KFORGE" run "$P" \
    --backend cpu-simd --max-iterations 1 --no-baseline --out "$tmp/k" --agent openai:m
expect "missing cassette" 2 "cannot read the cassette" run --agent "replay:$tmp/none.jsonl"
# a template that does not render (a build tree always finds its own, so a broken one
# stands for the setup's mistake): said before any request, exit 2
mkdir -p "$tmp/bad/roles"; printf '{{nope}}\n' >"$tmp/bad/roles/system.md"
expect "broken prompt template" 2 "roles/system.md: unknown variable {{nope}}" env OPENAI_API_KEY=x \
    OPENAI_BASE_URL=http://127.0.0.1:9/v1 "$KFORGE" run "$P" --backend cpu-simd \
    --max-iterations 1 --no-baseline --out "$tmp/p" --agent openai:m --prompts "$tmp/bad"
touch "$tmp/afile"
expect "--out under a file" 2 "Not a directory" "$KFORGE" run "$P" --backend cpu-simd --max-iterations 1 --out "$tmp/afile/run"
expect "missing problem file" 2 "cannot open" "$KFORGE" run "$tmp/none.json" --backend cpu-simd
expect "unknown backend" 2 "no backend 'nosuch'" "$KFORGE" verify --backend nosuch --problem "$P" \
    "$KF_SRCDIR/tests/adversarial/cpu-simd/correct.c"
cat >"$tmp/wrong.c" <<'C'
#include "kforge-cpu.h"
void kf_kernel(const kf_cpu_args *a) { (void)a; }
C
expect "a failing candidate" 1 "verdict" "$KFORGE" verify --backend cpu-simd --problem "$P" "$tmp/wrong.c"
tap_exit
