#!/bin/bash
# The GEMM anchor next to the op-by-op baseline (core/run/anchor.h): present,
# positive and labelled in result.json, `kforge run --json`, the journal and
# the suite's three reports; absent (with the reason) for a problem without
# a matmul; not measured with --no-baseline; kept, not measured again, on
# resume.  No timing assertions: only that the fields exist and agree.
set -u
here="$KF_SRCDIR/tests/e2e"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$here/tap.sh"
echo "1..10"
export XDG_CACHE_HOME="$tmp/cache"

"$KFORGE" run "$here/anchor/linear_leaky.json" --backend cpu-simd --max-iterations 1 --out "$tmp/run" \
    >"$tmp/out1" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "run on a GEMM problem exits 0" || no "run on a GEMM problem exits 0" "exit $rc" "$(tail -n 20 "$tmp/out1")"

# the anchor needs OpenBLAS; without it the record says why
if grep -q 'OpenBLAS was not found' "$tmp/run/result.json" 2>/dev/null; then
    for i in 2 3 4 5 6 7 8 9 10; do echo "ok $i # SKIP kforge was configured without OpenBLAS"; done
    exit 0
fi

got=$("$PYTHON3" - "$tmp/run" <<'PY' 2>&1
import json, sys, os
d = sys.argv[1]
r = json.load(open(os.path.join(d, "result.json")))
b = r["baseline"]; a = b["gemm_anchor"]
ok = []
ok.append(a["available"] is True)
ok.append("standalone library timing" in a["label"] and "not a kernel" in a["label"])
ok.append(a["how"].startswith("cblas_sgemm alone") and "M=37 N=45 K=64" in a["how"] and "B transposed" in a["how"])
ok.append((a["M"], a["N"], a["K"], a["batch"], a["trans_b"]) == (37, 45, 64, 1, True))
ok.append(a["median_s"] > 0 and a["min_s"] > 0 and a["min_s"] <= a["median_s"])
ok.append(a["threads"] >= 1 and a["runs"] >= 20)
# the anchor was timed beside the baseline's first time (start_median_s once the final re-timing
# timed the baseline again)
bs = b.get("start_median_s", b["median_s"])
ok.append(b["median_s"] > 0 and abs(a["baseline_over_anchor"] - bs / a["median_s"]) < 1e-9)
ok.append(("warning" in a) == (bs / a["median_s"] > 1.5))
ev = json.load(open(os.path.join(d, "baseline/anchor/eval.json")))
ok.append(ev["verdict"] == "pass" and ev["profiled"] if "profiled" in ev else ev["verdict"] == "pass")
ok.append(os.path.isfile(os.path.join(d, "baseline/anchor/problem.json")))
ok.append("cblas_sgemm" in open(os.path.join(d, "baseline/anchor/candidate/anchor.c")).read())
print(" ".join("1" if x else "0" for x in ok))
PY
)
[ "$got" = "1 1 1 1 1 1 1 1 1 1 1" ] && ok "result.json baseline.gemm_anchor: labelled, positive, M N K, verified" \
    || no "result.json baseline.gemm_anchor: labelled, positive, M N K, verified" "got: $got" "$(cat "$tmp/run/result.json")"
grep -q '^gemm anchor: cblas_sgemm alone (OpenBLAS' "$tmp/out1" && grep -q 'GEMM anchor [0-9.]* [um]s: baseline = ' "$tmp/out1" \
    && ok "the progress and the final lines name the anchor" || no "the progress and the final lines name the anchor" "$(cat "$tmp/out1")"
[ "$(grep -c '"ev":"anchor"' "$tmp/run/journal.jsonl")" -eq 1 ] \
    && ok "one anchor event in the journal" || no "one anchor event in the journal" "$(cat "$tmp/run/journal.jsonl")"

# resume: the anchor is replayed, not measured again
"$KFORGE" run --resume "$tmp/run" --max-iterations 2 >"$tmp/out2" 2>&1
rc=$?
a2=$("$PYTHON3" -c 'import json,sys; print(json.load(open(sys.argv[1]))["baseline"]["gemm_anchor"]["median_s"] > 0)' "$tmp/run/result.json" 2>&1)
[ $rc -eq 0 ] && [ "$(grep -c '"ev":"anchor"' "$tmp/run/journal.jsonl")" -eq 1 ] && [ "$a2" = True ] \
    && ok "a resumed run keeps its anchor without measuring it again" \
    || no "a resumed run keeps its anchor without measuring it again" "exit $rc, $a2" "$(tail -n 5 "$tmp/out2")"

# --json carries it
"$KFORGE" run "$here/anchor/linear_leaky.json" --backend cpu-simd --max-iterations 1 --out "$tmp/runj" --json \
    >"$tmp/outj" 2>&1
js=$(tail -n 1 "$tmp/outj" | "$PYTHON3" -c 'import json,sys; d=json.load(sys.stdin); print(d["gemm_anchor_s"] > 0)' 2>&1)
[ "$js" = True ] && ok "kforge run --json: gemm_anchor_s > 0" || no "kforge run --json: gemm_anchor_s > 0" "$js" "$(tail -n 2 "$tmp/outj")"

# no matmul: no anchor, and the record says why
"$KFORGE" run "$here/llm/scale_relu.json" --backend cpu-simd --max-iterations 1 --out "$tmp/nogemm" >"$tmp/out3" 2>&1
why=$("$PYTHON3" -c '
import json, sys
a = json.load(open(sys.argv[1]))["baseline"]["gemm_anchor"]
print(a["available"], a["why"], "median_s" in a)' "$tmp/nogemm/result.json" 2>&1)
[ "$why" = "False the problem has no matmul or linear False" ] && ok "a problem without a matmul records why it has no anchor" \
    || no "a problem without a matmul records why it has no anchor" "$why"

# --no-baseline: neither
"$KFORGE" run "$here/anchor/linear_leaky.json" --backend cpu-simd --max-iterations 1 --out "$tmp/nob" --no-baseline \
    >"$tmp/out4" 2>&1
nb=$("$PYTHON3" -c 'import json,sys; print("gemm_anchor" in json.load(open(sys.argv[1]))["baseline"])' "$tmp/nob/result.json" 2>&1)
[ "$nb" = False ] && ! grep -q '"ev":"anchor"' "$tmp/nob/journal.jsonl" \
    && ok "--no-baseline measures no anchor" || no "--no-baseline measures no anchor" "$nb"

# the suite's reports carry it, labelled
mkdir -p "$tmp/probs"
cp "$here/anchor/linear_leaky.json" "$here/llm/scale_relu.json" "$tmp/probs/"
"$KFORGE" suite "$tmp/probs" --backend cpu-simd --max-iterations 1 --report "$tmp/rep" >"$tmp/out5" 2>&1
rc=$?
rj=$("$PYTHON3" -c '
import json, os, sys
r = json.load(open(sys.argv[1]))
p = {x["name"]: x for x in r["problems"]}
a, s = p["linear_leaky"], p["scale_relu"]
bl = json.load(open(os.path.join(a["run_dir"], "result.json")))["baseline"]
bs = bl.get("start_median_s", a["baseline_s"])   # the baseline time beside which the anchor was timed
print(a["gemm_anchor_s"] > 0, a["gemm_anchor_how"].startswith("cblas_sgemm alone"), a["gemm_anchor_threads"] >= 1,
      abs(a["baseline_over_gemm_anchor"] - bs / a["gemm_anchor_s"]) < 1e-9,
      s["gemm_anchor_s"] is None, r["summary"]["with_gemm_anchor"], "GEMM anchor" in r["summary"]["notes"])' \
    "$tmp/rep/report.json" 2>&1)
[ $rc -eq 0 ] && [ "$rj" = "True True True True True 1 True" ] && ok "report.json: gemm_anchor_s, how, threads, ratio, note" \
    || no "report.json: gemm_anchor_s, how, threads, ratio, note" "exit $rc, got: $rj" "$(tail -n 5 "$tmp/out5")"
grep -q '| GEMM anchor (library GEMM alone) | baseline / anchor |' "$tmp/rep/report.md" \
    && grep -q '^| linear_leaky | correct .* | [0-9.]* [um]s | \(\*\*\)\{0,1\}[0-9.]*x' "$tmp/rep/report.md" \
    && grep -q '<th>GEMM anchor (library GEMM alone)</th>' "$tmp/rep/report.html" \
    && grep -q 'not a kernel for the problem' "$tmp/rep/report.html" \
    && ok "report.md and report.html have the labelled anchor columns" \
    || no "report.md and report.html have the labelled anchor columns" "$(grep -A4 '^| problem' "$tmp/rep/report.md")"
tap_exit
