#!/bin/sh
# tests/fuzz/run.sh [TARGET...] — builds the libFuzzer targets with clang
# (ASan + UBSan) in a build directory of their own and runs each for
# FUZZ_SECONDS (default 600), two at a time.  New inputs are merged,
# minimized, into tests/fuzz/corpus/TARGET/; a crash is saved under
# tests/fuzz/crashes/TARGET/ and the script exits 1.  Targets: problem,
# answer, worker_proto, expr, spirv (the levelzero plugin's SPIR-V reader), ncu_csv.  FUZZ_BUILD (default /tmp/kforge-fuzz-build)
# holds the clang build; FUZZ_JOBS (default 2) targets run at once.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
fz=$src/tests/fuzz
build=${FUZZ_BUILD:-/tmp/kforge-fuzz-build}
secs=${FUZZ_SECONDS:-600}
targets=${*:-problem answer worker_proto expr spirv ncu_csv}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
if [ ! -f "$build/core/libkforge.la" ]; then
    # a clean copy of the committed sources (the checkout may be configured
    # in place, which rules out a VPATH build of it)
    rm -rf "$build" && mkdir -p "$build" && cd "$build" || exit 2
    git -C "$src" archive --format=tar HEAD | tar -x || { echo "run.sh: git archive failed"; exit 2; }
    autoreconf -fi >/dev/null 2>&1 && ./configure -q CC=clang CFLAGS="-g -O1 -fsanitize=fuzzer-no-link $san" \
        --disable-shared --with-cuda=no >/dev/null || { echo "run.sh: configure failed (see $build/config.log)"; exit 2; }
    make -j2 core/libkforge.la >/dev/null || { echo "run.sh: building libkforge failed"; exit 2; }
fi
cd "$build" || exit 2
libs="core/.libs/libkforge.a $(pkg-config --libs json-c libcurl) -lltdl -lseccomp -lm -lpthread"
[ -f core/.libs/libkforge.a ] || libs="$(find core -name '*.a' -path '*/.libs/*' | tr '\n' ' ') $(pkg-config --libs json-c libcurl) -lltdl -lseccomp -lm -lpthread"
for t in $targets; do
    clang -g -O1 -fsanitize=fuzzer $san -include config.h -I"$src/core" -I"$src/plugin-sdk" -I. $(pkg-config --cflags json-c) \
        -D_GNU_SOURCE "$fz/fuzz_$t.c" $libs $(grep -q '^#define HAVE_OPENBLAS' config.h && echo -lopenblas) -o "fuzz_$t" \
        || { echo "run.sh: building fuzz_$t failed"; exit 2; }
done
status=0
run_one() {
    t=$1
    mkdir -p "$fz/corpus/$t" "$fz/crashes/$t" "$build/new/$t"
    dict=""; [ -f "$fz/$t.dict" ] && dict="-dict=$fz/$t.dict"
    ./fuzz_$t -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $dict \
        -artifact_prefix="$fz/crashes/$t/" "$build/new/$t" "$fz/corpus/$t" >"$build/$t.log" 2>&1
    rc=$?
    # merge the new inputs, minimized, back into the checked-in corpus
    mkdir -p "$build/min/$t" && rm -f "$build/min/$t"/*
    ./fuzz_$t -merge=1 "$build/min/$t" "$fz/corpus/$t" "$build/new/$t" >>"$build/$t.log" 2>&1
    rm -f "$fz/corpus/$t"/* && cp "$build/min/$t"/* "$fz/corpus/$t"/
    echo "$t: exit $rc, $(grep -E 'stat::number_of_executed_units' "$build/$t.log" | awk '{print $2}') executions," \
         "corpus $(ls "$fz/corpus/$t" | wc -l) files, crashes $(ls "$fz/crashes/$t" | wc -l)"
    return $rc
}
jobs=${FUZZ_JOBS:-2}; n=0
for t in $targets; do
    run_one "$t" > "$build/$t.summary" 2>&1 &
    n=$((n + 1))
    if [ $n -ge "$jobs" ]; then wait; n=0; fi
done
wait
for t in $targets; do cat "$build/$t.summary"; grep -q "exit 0," "$build/$t.summary" || status=1; done
exit $status
