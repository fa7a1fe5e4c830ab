#!/bin/bash
# bench/cpu/share_harness.c: a cpu-simd kernel timed in turns with the
# harness's streaming reference (a copy, or reads where the outputs are
# small), the JSON it prints (the buffers' layout, kforge's or --packed,
# their pages, the shared memfd or --pages thp, and --gap-us), a kernel that
# wrote NaN (exit 1), bad
# arguments (exit 2); bench/cpu/harness_share.py over a suite directory
# with one problem's best kernel (and kforge profile of it, --profile),
# a problem the suite did not run skipped, saying so.  The driver needs a
# Python with numpy (bench/anchors/anchors_common.py): the test venv's, as
# test_anchor_scripts.sh; skipped, saying so, without (failed under
# KF_TEST_STRICT=1).
set -u
. "$KF_SRCDIR/tests/e2e/tap.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "1..5"
venv_py=${KF_TEST_DEPS:-$HOME/.cache/kforge/test-deps}/torch-venv/bin/python
[ -x "$venv_py" ] || venv_py=${PYTHON3:-python3}
py=${KFORGE_PYTHON:-$venv_py}
cc=${CC:-cc}
inc="$KF_SRCDIR/plugins/cpu-simd"

cat > "$tmp/relu.c" <<'EOF'
#include "kforge-cpu.h"
void kf_kernel(const kf_cpu_args *a)
{
    int64_t n = 1;
    for (int d = 0; d < a->n_dims; d++) n *= a->dims[d];
    const float *x = a->in[0];
    float *y = a->out[0];
    #pragma omp parallel for num_threads(a->n_threads)
    for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
EOF
cat > "$tmp/rowsum.c" <<'EOF'
#include "kforge-cpu.h"
void kf_kernel(const kf_cpu_args *a)   /* y[r] = sum of row r of x (dims R, C) */
{
    for (int64_t r = 0; r < a->dims[0]; r++) {
        float s = 0.0f;
        for (int64_t c = 0; c < a->dims[1]; c++) s += a->in[0][r * a->dims[1] + c];
        a->out[0][r] = s;
    }
}
EOF
cat > "$tmp/nan.c" <<'EOF'
#include <math.h>
#include "kforge-cpu.h"
void kf_kernel(const kf_cpu_args *a) { a->out[0][0] = NAN; }
EOF
flags="-std=gnu11 -O2 -fopenmp -fPIC -shared -I $inc"
built=1
$cc -O2 -fopenmp -I "$inc" "$KF_SRCDIR/bench/cpu/share_harness.c" -o "$tmp/share_harness" -ldl -lpthread > "$tmp/b.log" 2>&1 || built=0
for k in relu rowsum nan; do $cc $flags "$tmp/$k.c" -o "$tmp/$k.so" -lm >> "$tmp/b.log" 2>&1 || built=0; done
[ $built = 1 ] && ok "share_harness.c and three test kernels build" || no "share_harness.c and three test kernels build" "$(cat "$tmp/b.log")"

jcheck() {   # FILE PYTHON-EXPR over j (the last JSON line)
    python3 -c 'import json, sys
j = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$1" "$2" 2>/dev/null
}
"$tmp/share_harness" --dims 64,1000 --in 64000 --out 64000 --threads 2 --reps 5 "$tmp/relu.so" > "$tmp/o1" 2>&1; rc=$?
[ $rc -eq 0 ] && jcheck "$tmp/o1" 'j["ref"] == "copy_nt" and j["min_bytes"] == 512000 and j["reps"] == 5 and
    j["layout"] == "kforge" and j["pages"] == "shared" and j["gap_us"] == 0 and
    j["kernel_ms"]["median"] > 0 and j["ref_ms"]["min"] > 0 and
    abs(j["share"] - j["ref_ms"]["median"] / j["kernel_ms"]["median"]) < 0.01 * j["share"]' \
    && ok "share_harness: a copy-like kernel against the streaming copy, medians and the share in JSON" \
    || no "share_harness: a copy-like kernel against the streaming copy" "exit $rc" "$(cat "$tmp/o1")"

"$tmp/share_harness" --dims 1000,64 --in 64000 --out 1000 --threads 2 --reps 5 --packed --gap-us 100 --pages thp \
    "$tmp/rowsum.so" > "$tmp/o2" 2>&1; rc=$?
[ $rc -eq 0 ] && jcheck "$tmp/o2" 'j["ref"] == "read" and j["min_bytes"] == 260000 and j["share"] > 0 and
    j["layout"] == "packed" and j["pages"] == "thp" and j["gap_us"] == 100' \
    && ok "share_harness: a kernel whose outputs are small is held to the read stream; --packed, --pages thp, --gap-us" \
    || no "share_harness: a kernel whose outputs are small is held to the read stream" "exit $rc" "$(cat "$tmp/o2")"

"$tmp/share_harness" --dims 64,1000 --in 64000 --out 64000 --reps 5 "$tmp/nan.so" > "$tmp/o3" 2>&1; rc=$?
"$tmp/share_harness" --dims 64,1000 --out 64000 "$tmp/relu.so" > "$tmp/o4" 2>&1; rc4=$?
"$tmp/share_harness" --dims 64,1000 --in 64000 --out 64000 --nope 1 "$tmp/relu.so" > "$tmp/o5" 2>&1; rc5=$?
"$tmp/share_harness" --dims 64,1000 --in 64000 --out 64000 --pages huge "$tmp/relu.so" > "$tmp/o5p" 2>&1; rc5p=$?
[ $rc -eq 1 ] && grep -q "wrote NaN" "$tmp/o3" && [ $rc4 -eq 2 ] && grep -q -- "--in" "$tmp/o4" && [ $rc5 -eq 2 ] \
    && [ $rc5p -eq 2 ] && grep -q -- "--pages shared, anon or thp" "$tmp/o5p" \
    && ok "share_harness: a kernel that wrote NaN exits 1 saying so; a missing --in, an unknown option or --pages exits 2" \
    || no "share_harness: NaN and bad arguments" "exit $rc / $rc4 / $rc5 / $rc5p" "$(cat "$tmp/o3" "$tmp/o4" "$tmp/o5" "$tmp/o5p")"

name="harness_share.py: the suite's kernel and the reference in 2 rounds, kforge profile beside them, --packed passed on; a problem without a run skipped"
if ! "$py" -c "import numpy" > /dev/null 2>&1; then
    if [ "${KF_TEST_STRICT:-0}" = 1 ]; then no "$name" "$py cannot import numpy"
    else n=$((n+1)); echo "ok $n - $name # SKIP $py cannot import numpy"; fi
else
    cand="$tmp/suite/runs/19_ReLU/steps/0001-0/candidate"
    mkdir -p "$cand"
    cp "$tmp/relu.c" "$cand/kernel.c"
    echo '{"backend": "cpu-simd", "sources": ["kernel.c"], "entry": "kf_kernel"}' > "$cand/candidate.json"
    echo '{"best": {"dir": "steps/0001-0/candidate"}}' > "$tmp/suite/runs/19_ReLU/result.json"
    KFORGE="$KFORGE" "$py" "$KF_SRCDIR/bench/cpu/harness_share.py" "$tmp/hs.json" "$tmp/suite" \
        "$KF_SRCDIR/problems/level1/19_ReLU.json" "$KF_SRCDIR/problems/level1/23_Softmax.json" \
        --preset small --threads 2 --rounds 2 --reps 20 --profile --packed --harness "$tmp/share_harness" > "$tmp/o6" 2>&1; rc=$?
    [ $rc -eq 0 ] && grep -q "^23_Softmax.json *skipped" "$tmp/o6" && grep -q "^harness share: 1 problems" "$tmp/o6" &&
        python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
e = r["problems"]["19_ReLU"]
sys.exit(not (list(r["problems"]) == ["19_ReLU"] and len(e["rounds"]) == 2 and r["threads"] == 2 and
              r["layout"] == "packed" and all(x["layout"] == "packed" for x in e["rounds"]) and
              all(x["share"] > 0 and x["ref"] == "copy_nt" and x["kforge_ms"] > 0 for x in e["rounds"]) and
              e["share_min"] <= e["share_median"] <= e["share_max"] and e["kforge_over_harness"] > 0))' "$tmp/hs.json" \
        && ok "$name" || no "$name" "exit $rc" "$(cat "$tmp/o6"; head -c 800 "$tmp/hs.json" 2>&1)"
fi
tap_exit
