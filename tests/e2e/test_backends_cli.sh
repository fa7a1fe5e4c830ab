#!/bin/sh
# test_backends_cli.sh — `kforge backends` against the fixture plugins of
# tests/plugins/fixtures: the listing, --json, and exit 2 with no plugin.
# Needs: $KFORGE, $KF_BUILDDIR (set by `make check`), python3.

KFORGE=${KFORGE:-./core/kforge}
KF_BUILDDIR=${KF_BUILDDIR:-.}
KF_SRCDIR=${KF_SRCDIR:-.}
PY=${PYTHON3:-python3}
FIX="$KF_BUILDDIR/tests/plugins/fixtures/.libs"

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
# check NAME TEXT NEEDLE...: every needle is a fixed substring of TEXT
check() {
    name=$1; text=$2; shift 2
    for needle in "$@"; do
        case $text in
        *"$needle"*) ;;
        *) not_ok "$name" "missing: $needle" "in:" "$(printf '%s\n' "$text" | sed 's/^/  /')"; return ;;
        esac
    done
    ok "$name"
}

echo "1..17"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kf-backends.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/plugins" "$tmp/empty"
for f in good abi name nosym small unavail; do
    if [ ! -f "$FIX/kf-fixture-$f.so" ]; then
        echo "Bail out! fixture $FIX/kf-fixture-$f.so missing: run 'make check' (it builds check_LTLIBRARIES)"
        exit 1
    fi
    ln -s "$FIX/kf-fixture-$f.so" "$tmp/plugins/"
done
printf 'not an ELF file, only text pretending to be a shared object for the test\n' > "$tmp/plugins/kf-garbage.so"
printf 'unrelated\n' > "$tmp/plugins/README"
P="$tmp/plugins"

# 1-6: the text listing
out=$(KFORGE_PLUGIN_PATH="$tmp/missing:$P" "$KFORGE" backends 2>&1); rc=$?
if [ $rc -eq 0 ]; then ok "backends exits 0 although files were skipped"; else not_ok "backends exits 0 although files were skipped" "rc=$rc" "$out"; fi
check "lists the good plugin with ABI, language, caps and file" "$out" \
    "fixture-good 1.2.3" "plugin ABI 1.6, language c, caps: host-entry" "file: $P/kf-fixture-good.so"
check "lists its device with peaks marked measured/estimated" "$out" \
    "device 0: fixture-device (cpu)" "peak 12.5 GFLOP/s (measured), 3.25 GB/s (estimated)" "a fake device for tests"
check "an unavailable backend says why" "$out" \
    "fixture-unavail 0.9" "caps: kernel-plan device-timer" \
    "not available here: no fixture driver on this machine; install libfixture"
check "every refused file is listed with its own reason" "$out" \
    "$P/kf-fixture-abi.so: built for plugin ABI 2, this kforge speaks ABI 1: rebuild it against kforge-plugin.h 1.x" \
    "$P/kf-fixture-name.so: declares name 'foo' but its file name says 'fixture-name'" \
    "$P/kf-fixture-nosym.so: missing symbol 'kforge_backend_fixture_nosym'" \
    "$P/kf-fixture-small.so: struct_size is" \
    "$P/kf-garbage.so: not loadable: " \
    "$tmp/missing: no such directory"
check "the search path is shown, missing entries marked" "$out" \
    "search path:" "$tmp/missing (KFORGE_PLUGIN_PATH, missing)" "$P (KFORGE_PLUGIN_PATH)"

# 7-8: JSON
json=$(KFORGE_PLUGIN_PATH="$P" "$KFORGE" backends --json 2>/dev/null); rc=$?
if [ $rc -eq 0 ]; then ok "backends --json exits 0"; else not_ok "backends --json exits 0" "rc=$rc"; fi
res=$(printf '%s' "$json" | "$PY" -c '
import json, sys
P = sys.argv[1]
d = json.load(sys.stdin)
assert set(d) == {"plugins", "skipped", "search_path", "sandbox"}, sorted(d)
assert "seccomp" in d["sandbox"]["layers"] or d["sandbox"]["why"], d["sandbox"]
mine = {p["name"]: p for p in d["plugins"] if p["file"].startswith(P + "/")}
assert sorted(mine) == ["fixture-good", "fixture-unavail"], sorted(mine)
g = mine["fixture-good"]
assert (g["version"], g["abi_major"], g["abi_minor"], g["language"]) == ("1.2.3", 1, 6, "c"), g
assert g["caps"] == ["host-entry"] and g["available"] is True, g
assert g["file"] == P + "/kf-fixture-good.so", g["file"]
dev, = g["devices"]
assert (dev["index"], dev["name"], dev["kind"]) == (0, "fixture-device", "cpu"), dev
assert abs(dev["peak_gflops"] - 12.5) < 1e-9 and dev["peak_gflops_measured"] is True, dev
assert abs(dev["peak_gbps"] - 3.25) < 1e-9 and dev["peak_gbps_measured"] is False, dev
u = mine["fixture-unavail"]
assert u["available"] is False and u["devices"] == [] and "install libfixture" in u["why"], u
sk = {s["file"].rsplit("/", 1)[1]: s["reason"] for s in d["skipped"]}
want = {"kf-fixture-abi.so": "built for plugin ABI 2", "kf-fixture-name.so": "declares name",
        "kf-fixture-nosym.so": "missing symbol", "kf-fixture-small.so": "struct_size",
        "kf-garbage.so": "not loadable"}
for f, r in want.items():
    assert f in sk and r in sk[f], (f, sk.get(f))
assert "README" not in sk
assert d["search_path"][0] == P, d["search_path"]
print("fine")
' "$P" 2>&1)
if [ "$res" = fine ]; then ok "--json is one object {plugins, skipped, search_path, sandbox} with the same facts"
else not_ok "--json is one object {plugins, skipped, search_path, sandbox} with the same facts" "$res" "$json"; fi

# 9-10: no plugin at all (KFORGE_PLUGIN_SYSTEM_PATH empty: plugins installed
# into the configured prefix, if any, are not looked at)
out=$(KFORGE_PLUGIN_PATH="$tmp/empty" KFORGE_PLUGIN_SYSTEM_PATH= "$KFORGE" backends 2>&1); rc=$?
if [ $rc -eq 2 ]; then ok "no plugin at all exits 2"; else not_ok "no plugin at all exits 2" "rc=$rc" "$out"; fi
check "and says where to point KFORGE_PLUGIN_PATH" "$out" "no backend plugin found in $tmp/empty" "KFORGE_PLUGIN_PATH"

# 11-12: usage
out=$("$KFORGE" backends --help 2>&1); rc=$?
if [ $rc -eq 0 ]; then check "--help exits 0 and documents --json" "$out" "usage: kforge backends [--json]" "KFORGE_PLUGIN_PATH"
else not_ok "--help exits 0 and documents --json" "rc=$rc" "$out"; fi
out=$("$KFORGE" backends --bogus 2>&1); rc=$?
if [ $rc -eq 2 ]; then ok "an unknown option exits 2"; else not_ok "an unknown option exits 2" "rc=$rc" "$out"; fi

# 13-14: an ABI 1.1 plugin's measured peaks are cached per plugin version and
# device (cpu-simd lists cheaply and measures once); a planted cache entry
# is what the next listing reports, so the measurement is not repeated
cpu="$KF_BUILDDIR/plugins/cpu-simd/.libs"
mkdir -p "$tmp/cache"
out=$(XDG_CACHE_HOME="$tmp/cache" KFORGE_PLUGIN_PATH="$cpu" KFORGE_PLUGIN_SYSTEM_PATH= "$KFORGE" backends 2>&1)
f=$(ls "$tmp/cache/kforge/peaks/"cpu-simd-* 2>/dev/null | head -n1)
if [ -n "$f" ] && grep -q '^peak_flops [0-9]' "$f" && grep -q '^peak_bw_measured 1' "$f" &&
   grep -q '^peak_flops_bf16 [0-9]' "$f" && grep -q '^peak_flops_amx_bf16 [0-9]' "$f" && grep -q '^peak_flops_i16 [0-9]' "$f" &&
   [ "$(stat -c %a "$f")" = 600 ]; then ok "the measured peaks are cached, owner-only, per plugin version and device"
else not_ok "the measured peaks are cached, owner-only, per plugin version and device" "file: ${f:-none}" "$out"; fi
if [ -n "$f" ]; then
    printf 'peak_flops 1.25e+12\npeak_bytes_per_s 4.5e+10\npeak_flops_measured 1\npeak_bw_measured 1\ncache_bytes_per_s 9e+11\npeak_flops_bf16 2.5e+12\npeak_flops_amx_bf16 2e+13\npeak_flops_i16 3e+12\n' > "$f"
    out=$(XDG_CACHE_HOME="$tmp/cache" KFORGE_PLUGIN_PATH="$cpu" KFORGE_PLUGIN_SYSTEM_PATH= "$KFORGE" backends 2>&1)
    check "the next listing takes the peaks from the cache" "$out" "peak 1250 GFLOP/s (measured), 45.0 GB/s (measured), bf16 2500 GFLOP/s (measured), AMX bf16 20000 GFLOP/s (measured), int16 pairs 3000 GFLOP/s (measured)"
else
    not_ok "the next listing takes the peaks from the cache" "no cache file"
fi

# 15-17: peaks are upper bounds: a re-measurement (backends --measure, and
# every run) raises cached peaks a busy machine measured low, and never
# lowers them
peaks() { sed -n "s/^$1 //p" "$f"; }
if [ -n "$f" ]; then
    printf 'peak_flops 1e+09\npeak_bytes_per_s 1e+06\npeak_flops_measured 1\npeak_bw_measured 1\ncache_bytes_per_s 1e+09\npeak_flops_bf16 0\npeak_flops_amx_bf16 0\npeak_flops_i16 0\n' > "$f"
    out=$(XDG_CACHE_HOME="$tmp/cache" KFORGE_PLUGIN_PATH="$cpu" KFORGE_PLUGIN_SYSTEM_PATH= "$KFORGE" backends --measure 2>&1)
    if $PY -c 'import sys; v = [float(x) for x in sys.argv[1:]]; sys.exit(0 if v[0] > 1e9 and v[1] > 1e6 and v[2] > 1e9 else 1)' \
           "$(peaks peak_flops)" "$(peaks peak_bytes_per_s)" "$(peaks cache_bytes_per_s)"; then
        check "backends --measure raises cached peaks measured low, in the cache too" "$out" "peaks: measured again, 1 device raised"
    else not_ok "backends --measure raises cached peaks measured low, in the cache too" "$(cat "$f")" "$out"; fi
    printf 'peak_flops 1e+15\npeak_bytes_per_s 1e+13\npeak_flops_measured 1\npeak_bw_measured 1\ncache_bytes_per_s 1e+15\npeak_flops_bf16 1e+15\npeak_flops_amx_bf16 1e+16\npeak_flops_i16 1e+16\n' > "$f"
    out=$(XDG_CACHE_HOME="$tmp/cache" KFORGE_PLUGIN_PATH="$cpu" KFORGE_PLUGIN_SYSTEM_PATH= "$KFORGE" backends --measure 2>&1)
    if [ "$(peaks peak_flops)" = 1e+15 ] && [ "$(peaks peak_bytes_per_s)" = 1e+13 ] && [ "$(peaks peak_flops_amx_bf16)" = 1e+16 ]; then
        check "a lower re-measurement never lowers the peaks" "$out" "peak 1000000 GFLOP/s (measured), 10000 GB/s (measured)" "0 devices raised"
    else not_ok "a lower re-measurement never lowers the peaks" "$(cat "$f")" "$out"; fi
    printf 'peak_flops 1e+09\npeak_bytes_per_s 1e+06\npeak_flops_measured 1\npeak_bw_measured 1\ncache_bytes_per_s 1e+09\npeak_flops_bf16 0\npeak_flops_amx_bf16 0\npeak_flops_i16 0\n' > "$f"
    XDG_CACHE_HOME="$tmp/cache" KFORGE_PLUGIN_PATH="$cpu" KFORGE_PLUGIN_SYSTEM_PATH= "$KFORGE" run \
        "$KF_SRCDIR/problems/level1/19_ReLU.json" --backend cpu-simd --agent builtin --preset small --no-baseline \
        --max-iterations 1 --out "$tmp/run" >"$tmp/run.out" 2>&1
    rf=$($PY -c 'import json,sys; e = json.load(open(sys.argv[1])); print(e["roofline"]["peak_bytes_per_s"])' \
             "$tmp/run/steps/0001-0/eval.json" 2>&1)
    if $PY -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 1e6 and float(sys.argv[2]) > 1e6 else 1)' \
           "$(peaks peak_bytes_per_s)" "$rf" 2>/dev/null; then ok "kforge run measures the peaks again: its roofline and the cache are raised"
    else not_ok "kforge run measures the peaks again: its roofline and the cache are raised" "eval: $rf" "$(cat "$f")" "$(tail -n 5 "$tmp/run.out")"; fi
else
    for t in 15 16 17; do not_ok "peak re-measurement $t" "no cache file"; done
fi

exit $failed
