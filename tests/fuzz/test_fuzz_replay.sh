#!/bin/sh
# tests/fuzz/test_fuzz_replay.sh — every fuzz target's checked-in corpus and
# every crash input found so far run through the target again (with the
# plain driver tests/fuzz/replay_main.c; under ASan/UBSan in CI).  A crash,
# a sanitizer report or a leak fails the target's case.
. "$KF_SRCDIR/tests/e2e/tap.sh"
targets="problem answer worker_proto expr ncu_csv"
# the levelzero plugin's SPIR-V reader, where the plugin is built
[ -x "$KF_BUILDDIR/tests/fuzz/replay_spirv" ] && targets="$targets spirv"
echo "1..$(echo $targets | wc -w)"
for t in $targets; do
    dirs="$KF_SRCDIR/tests/fuzz/corpus/$t"
    [ -d "$KF_SRCDIR/tests/fuzz/crashes/$t" ] && dirs="$dirs $KF_SRCDIR/tests/fuzz/crashes/$t"
    out=$("$KF_BUILDDIR/tests/fuzz/replay_$t" $dirs 2>&1); rc=$?
    cnt=$(echo "$out" | sed -n 's/^\([0-9]*\) inputs$/\1/p' | tail -1)
    if [ $rc -eq 0 ] && [ "${cnt:-0}" -gt 0 ]; then ok "fuzz target $t: $cnt corpus and crash inputs replay cleanly"
    else no "fuzz target $t: corpus and crash inputs replay cleanly" "exit $rc" "$(echo "$out" | tail -5)"; fi
done
tap_exit
