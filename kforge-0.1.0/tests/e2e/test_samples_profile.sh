#!/bin/bash
# --samples K: the samples of a step are compiled and verified in parallel,
# then timed one at a time.  Checked from the wall-clock windows every eval
# event of the journal carries (eval_t0/eval_t1 of the evaluation that timed
# it, verify_t0/verify_t1 of its parallel verification): deterministic, no
# timing assertion.
set -u
here="$KF_SRCDIR/tests/e2e"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$here/tap.sh"
echo "1..4"
export XDG_CACHE_HOME="$tmp/cache"

"$KFORGE" run "$here/llm/scale_relu.json" --backend cpu-simd --samples 3 --max-iterations 2 --target 0 \
    --no-baseline --out "$tmp/run" >"$tmp/out1" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "run with --samples 3 exits 0" || no "run with --samples 3 exits 0" "exit $rc" "$(tail -n 20 "$tmp/out1")"

got=$("$PYTHON3" - "$tmp/run/journal.jsonl" <<'PY' 2>&1
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
steps = {}
for e in evs:
    if e.get("ev") == "eval": steps.setdefault(e["step"], []).append(e)
bad = []
n_multi = 0
for step, es in sorted(steps.items()):
    timed = [e for e in es if "profile_s" in e]
    if len(es) < 2: continue
    n_multi += 1
    if any(e.get("pass") != "profiled alone" for e in timed):
        bad.append("step %d: a timed sample not from the one-at-a-time pass: %s" % (step, [e.get("pass") for e in timed]))
    w = sorted((e["eval_t0"], e["eval_t1"]) for e in timed)
    for a, b in zip(w, w[1:]):
        if b[0] < a[1]: bad.append("step %d: timed windows overlap: %s %s" % (step, a, b))
    v1 = max(e["verify_t1"] for e in timed) if timed else 0
    if timed and min(x[0] for x in w) < v1:
        bad.append("step %d: a timing started before every parallel verification ended" % step)
    v = sorted((e["verify_t0"], e["verify_t1"]) for e in timed)
    # the verifications ran at once: each started before the others ended
    if len(v) > 1 and not all(b[0] < a[1] for a, b in zip(v, v[1:])):
        bad.append("step %d: the verifications did not run in parallel: %s" % (step, v))
print(n_multi, len(bad), "; ".join(bad))
PY
)
case "$got" in
[1-9]*" 0 ") ok "profiled windows of a step never overlap, and follow the parallel verification" ;;
*) no "profiled windows of a step never overlap, and follow the parallel verification" "got: $got" ;;
esac
n_timed=$(grep '"ev":"eval"' "$tmp/run/journal.jsonl" | grep -c '"pass":"profiled alone"')
[ "$n_timed" -ge 3 ] && ok "every passing sample was timed alone ($n_timed)" \
    || no "every passing sample was timed alone" "$n_timed" "$(grep '"ev":"eval"' "$tmp/run/journal.jsonl")"

"$KFORGE" run "$here/llm/scale_relu.json" --backend cpu-simd --max-iterations 1 --no-baseline --out "$tmp/one" \
    >"$tmp/out2" 2>&1
grep '"ev":"eval"' "$tmp/one/journal.jsonl" | grep -q '"pass":"single"' \
    && ok "one sample: compiled, verified and timed in one evaluation" \
    || no "one sample: compiled, verified and timed in one evaluation" "$(cat "$tmp/one/journal.jsonl")"
tap_exit
