#!/bin/bash
# tests/e2e/test_ref_cache.sh — the reference cache (core/eval/ref_cache.h),
# forced on with KFORGE_REF_CACHE=1 for a small problem: references computed
# once per input set and read back after, entries and the pool's secret
# owner-only, a damaged entry recomputed, a wrong candidate still failing
# against cached references, the size cap, and KFORGE_REF_CACHE=0.
set -u
. "$KF_SRCDIR/tests/e2e/tap.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
P="$KF_SRCDIR/tests/adversarial/problems/scale_bias.json"
A="$KF_SRCDIR/tests/adversarial/cpu-simd"
echo "1..8"
export XDG_CACHE_HOME="$tmp/cache"
ref="$tmp/cache/kforge/ref"
prof() {   # CANDIDATE -> "verdict cached computed"
    KFORGE_REF_CACHE=${RC:-1} "$KFORGE" profile --json --backend cpu-simd --problem "$P" "$1" 2>/dev/null |
        "$PYTHON3" -c 'import json,sys; d=json.load(sys.stdin); r=d["reference_sets"]; print(d["verdict"], r["cached"], r["computed"])'
}
entries() { find "$ref" -maxdepth 1 -type f -name '????????????????????????????????????????????????????????????????' 2>/dev/null | wc -l; }

r1=$(prof "$A/correct.c")
if [ "$r1" = "pass 0 16" ] && [ "$(entries)" -eq 16 ]; then ok "first profile computes 16 reference sets (5 trials, 11 checked runs) and stores them"
else no "first profile" "got '$r1', $(entries) entries"; fi
modes=$(stat -c '%a' "$ref" "$ref/secret" $(find "$ref" -type f | head -3) | sort -u | tr '\n' ' ')
if [ "$modes" = "600 700 " ]; then ok "the cache directory is 0700, its secret and entries 0600"
else no "modes" "got $modes"; fi
r2=$(prof "$A/correct.c"); set -- $r2
if [ "$1" = pass ] && [ "$2" -ge 5 ] && [ $(( $2 + $3 )) -eq 16 ] && [ "$3" -le 11 ]; then
    ok "a second profile reads the trials and the pool's known sets back ($r2)"
else no "second profile" "got '$r2'"; fi
computed=$3
for i in 1 2 3 4 5 6; do set -- $(prof "$A/correct.c"); computed=$((computed + $3)); done
if [ "$(entries)" -le 21 ]; then ok "eight profiles never hold more than 5 trial sets + a pool of 16 ($(entries) entries)"
else no "pool bound" "$(entries) entries"; fi
r=$(prof "$A/wrong_values.c")
if [ "${r%% *}" = mismatch ]; then ok "a wrong candidate still fails against cached references ($r)"
else no "wrong candidate with a warm cache" "got '$r'"; fi
for f in $(find "$ref" -maxdepth 1 -type f ! -name secret); do head -c 100 "$f" > "$f.x" && mv "$f.x" "$f"; done
set -- $(prof "$A/correct.c")
if [ "$1" = pass ] && [ "$2" -eq 0 ] && [ "$3" -eq 16 ]; then ok "truncated entries are ignored and recomputed"
else no "damaged entries" "got '$*'"; fi
export XDG_CACHE_HOME="$tmp/off"
r=$(RC=0 prof "$A/correct.c")
if [ "$r" = "pass 0 16" ] && [ ! -d "$tmp/off/kforge/ref" ]; then ok "KFORGE_REF_CACHE=0 computes everything and writes nothing"
else no "cache off" "got '$r'" "$(ls -R "$tmp/off" 2>/dev/null | head -5)"; fi
export XDG_CACHE_HOME="$tmp/capped"
ref="$tmp/capped/kforge/ref"
r=$(KFORGE_REF_CACHE_MAX=1 prof "$A/correct.c")
if [ "${r%% *}" = pass ] && [ "$(entries)" -eq 0 ]; then ok "KFORGE_REF_CACHE_MAX evicts down to the cap"
else no "cap" "got '$r', $(entries) entries"; fi
tap_exit
