#!/bin/bash
# GroupNorm's next group read beside the streamed stores (knob stream 2;
# core/agent/builtin/emit/builtin_cpu.c, gn_carries): the fixture
# tests/golden/problems/stream_odd_groupnorm.json (7 rows of 8 groups of
# 4803 elements: a partial last block in every group) through `kforge run
# --agent builtin:{"stream":2}` on cpu-simd with 1, 3 and 16 threads
# (KFORGE_THREADS): rows split unevenly, a thread's sum carried across its
# rows, threads with no row at 16.  The overlapped loop is emitted and the
# kernel passes verification; a kernel whose carried sums are taken 64
# floats off (by hand, at 2 threads) fails it.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..3"
export XDG_CACHE_HOME="$tmp/cache"
for t in 1 3 16; do
    name="GroupNorm stream 2 at $t threads: the next group summed in the output loop, verified"
    out="$tmp/t$t"
    KFORGE_THREADS=$t "$KFORGE" run "$KF_SRCDIR/tests/golden/problems/stream_odd_groupnorm.json" --backend cpu-simd \
        --preset small --no-baseline --max-iterations 1 --agent 'builtin:{"stream":2}' --out "$out" >"$out.log" 2>&1
    rc=$?
    k="$out/steps/0001-0/candidate/kernel.c"
    verdict=$("$PYTHON3" -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$out/steps/0001-0/verdict.json" 2>&1)
    if [ $rc -eq 0 ] && [ "$verdict" = pass ] && grep -q 'if (gnn_) kf_sum_block(gnn_ + (c0_ - q0 \* 4803),' "$k"; then ok "$name"
    else no "$name" "exit $rc, verdict $verdict" "$(tail -n 8 "$out.log")"; fi
done
tap_exit
