#!/bin/bash
# Max, min, mean and sum over a middle dim read whole rows
# (core/agent/builtin/emit/builtin_cpu.c, emit_middle_rows_open):
# tests/vocab/middle_reductions.json (3 x 300 x 2100: two column blocks a
# batch, the second short) through `kforge run --agent builtin:{}` on
# cpu-simd with 1, 2 and 16 threads (KFORGE_THREADS).  At 16 the team
# outnumbers the 6 blocks and each block's rows are cut into parts that a
# second loop combines: a kernel that drops a part's sum or keeps one part's
# max fails there (checked by hand against such a kernel).
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..3"
export XDG_CACHE_HOME="$tmp/cache"
for t in 1 2 16; do
    name="middle-dim max, min, mean, sum at $t threads: whole rows, verified"
    out="$tmp/t$t"
    KFORGE_THREADS=$t "$KFORGE" run "$KF_SRCDIR/tests/vocab/middle_reductions.json" --backend cpu-simd --preset small \
        --no-baseline --max-iterations 1 --agent 'builtin:{}' --out "$out" >"$out.log" 2>&1
    rc=$?
    k="$out/steps/0001-0/candidate/kernel.c"
    verdict=$("$PYTHON3" -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$out/steps/0001-0/verdict.json" 2>&1)
    rows=$(grep -c 'over a middle dim: outer 3 x len 300 x inner 2100, whole rows in order' "$k" 2>/dev/null)
    if [ $rc -eq 0 ] && [ "$verdict" = pass ] && [ "$rows" = 4 ] && grep -q 'if (P_ > 4) P_ = 4;' "$k"; then ok "$name"
    else no "$name" "exit $rc, verdict $verdict, whole-row groups: ${rows:-0} of 4" "$(tail -n 8 "$out.log")"; fi
done
tap_exit
