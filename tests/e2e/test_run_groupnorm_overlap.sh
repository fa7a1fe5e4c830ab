#!/bin/bash
# GroupNorm's next group read beside the streamed stores (knob stream 2;
# core/agent/builtin/emit/builtin_cpu.c, gn_carries): the fixture
# tests/golden/problems/stream_odd_groupnorm.json (7 rows of 8 groups of
# 4803 elements: a partial last block in every group) through `kforge run
# --agent builtin:{"stream":2}` on cpu-simd with 1, 3 and 16 threads
# (KFORGE_THREADS): rows split unevenly, a thread's sums carried across its
# rows, threads with no row at 16.  The overlapped loop is emitted and the
# kernel passes verification; the same kernel with the carried sums taken
# a block (64 floats) off, or never reset between groups, fails `kforge verify`.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..5"
export XDG_CACHE_HOME="$tmp/cache"
for t in 1 3 16; do
    name="GroupNorm stream 2 at $t threads: the next group's sums in the output loop, verified"
    out="$tmp/t$t"
    KFORGE_THREADS=$t "$KFORGE" run "$KF_SRCDIR/tests/golden/problems/stream_odd_groupnorm.json" --backend cpu-simd \
        --preset small --no-baseline --max-iterations 1 --agent 'builtin:{"stream":2}' --out "$out" >"$out.log" 2>&1
    rc=$?
    k="$out/steps/0001-0/candidate/kernel.c"
    verdict=$("$PYTHON3" -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$out/steps/0001-0/verdict.json" 2>&1)
    if [ $rc -eq 0 ] && [ "$verdict" = pass ] && grep -q 'if (gnn_) kf_moments_block(gnn_ + (c0_ - q0 \* 4803),' "$k"; then ok "$name"
    else no "$name" "exit $rc, verdict $verdict" "$(tail -n 8 "$out.log")"; fi
done
# the 3-thread kernel, its carried sums broken two ways (sed on the emitted text)
k="$tmp/t3/steps/0001-0/candidate"
for mut in 's/kf_moments_block(gnn_ + (c0_ - q0 \* 4803)/kf_moments_block(gnn_ + (c0_ + 64 - q0 * 4803)/' \
           's/gns_\[j_\] = gnq_\[j_\] = 0.0;/(void)j_;/'; do
    name="GroupNorm stream 2, carried sums broken ($mut): verification fails"
    m="$tmp/mut"; rm -rf "$m"; cp -r "$k" "$m"
    sed -i "$mut" "$m/kernel.c"
    if cmp -s "$k/kernel.c" "$m/kernel.c"; then no "$name" "the edit changed nothing"; continue; fi
    KFORGE_THREADS=3 "$KFORGE" verify --backend cpu-simd --problem "$KF_SRCDIR/tests/golden/problems/stream_odd_groupnorm.json" \
        --preset small "$m" >"$m.log" 2>&1
    rc=$?
    if [ $rc -eq 1 ]; then ok "$name"; else no "$name" "exit $rc (want 1)" "$(tail -n 8 "$m.log")"; fi
done
tap_exit
