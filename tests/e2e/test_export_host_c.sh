#!/bin/sh
# tests/e2e/test_export_host_c.sh — `kforge export` of host-entry C, whose
# files the cpu-simd plugin writes (export_files, plugin ABI 1.4), compared
# byte for byte with goldens (tests/e2e/export-golden/host-c/, written by
# kforge before that code moved out of core/cli): a hand-written candidate
# with two sources and two scratch buffers (tests/candidates/cpu-simd/
# two_gemm_sigmoid_lse, problem 45 at small) in a run directory; --to c's
# NAME.h, NAME.c, example.c, Makefile, kforge-cpu.h (the plugin's header) and
# the sources; --to torch's spec.json and caller (_host_c.py); a run of a
# backend with no plugin here (acme-cpu) exported by the plugin that
# declares 'c' and exports, naming the run's backend in NAME.h; with no such
# plugin, exit 2 saying so.  The exported example builds and runs.
# Regenerate the goldens (after a deliberate change) with KF_GOLDEN_WRITE=1
# (the Makefile's golden is Makefile.golden: .gitignore ignores Makefile).
. "$KF_SRCDIR/tests/e2e/tap.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "1..6"
G="$KF_SRCDIR/tests/e2e/export-golden/host-c"
C="$KF_SRCDIR/tests/candidates/cpu-simd/two_gemm_sigmoid_lse"
ID=kf_45_gemm_sigmoid_logsumexp

mkrun() {   # mkrun DIR BACKEND
    mkdir -p "$1/steps/0001-0"
    cp "$KF_SRCDIR/problems/level2/45_Gemm_Sigmoid_LogSumExp.json" "$1/problem.json"
    cp -r "$C" "$1/steps/0001-0/candidate"
    printf '{"problem":"45_Gemm_Sigmoid_LogSumExp","preset":"small","backend":"%s","backend_language":"c","backend_caps":["host-entry","host-memory"],"best":{"dir":"steps/0001-0/candidate","verified":true}}\n' \
        "$2" > "$1/result.json"
}
same() {    # same FILE GOLDEN: byte-identical (or written, with KF_GOLDEN_WRITE=1)
    if [ -n "$KF_GOLDEN_WRITE" ]; then cp "$1" "$2"; return 0; fi
    cmp -s "$1" "$2" || { diff -u "$2" "$1" | head -20 | sed 's/^/# /'; return 1; }
}
mkrun "$T/run" cpu-simd
mkrun "$T/acme" acme-cpu

# 1: --to c: the files, byte for byte
if "$KFORGE" export "$T/run" --to c --out "$T/c" >"$T/out" 2>&1 &&
   same "$T/c/$ID.h" "$G/$ID.h" && same "$T/c/$ID.c" "$G/$ID.c" && same "$T/c/example.c" "$G/example.c" &&
   same "$T/c/Makefile" "$G/Makefile.golden" && cmp -s "$T/c/kforge-cpu.h" "$KF_SRCDIR/plugins/cpu-simd/kforge-cpu.h" &&
   cmp -s "$T/c/kernel.c" "$C/kernel.c" && cmp -s "$T/c/kf_gemm.h" "$C/kf_gemm.h" &&
   [ "$(ls "$T/c" | tr '\n' ' ')" = "Makefile example.c kernel.c kf_45_gemm_sigmoid_logsumexp.c kf_45_gemm_sigmoid_logsumexp.h kf_gemm.h kforge-cpu.h " ]; then
    ok "export --to c of host-entry C: NAME.h, NAME.c, example.c, Makefile equal the goldens; kforge-cpu.h and the sources copied"
else no "export --to c of host-entry C equals the goldens" "$(cat "$T/out")" "$(ls "$T/c" 2>&1)"; fi
# 2: what it says, and the example builds and runs
if grep -q "^wrote $T/c (host-c kernel; from the cpu-simd plugin: kforge-cpu.h, $ID.h, $ID.c, example.c, Makefile)$" "$T/out" &&
   make -s -C "$T/c" example >"$T/mk" 2>&1 && "$T/c/example" >"$T/ex" 2>&1 &&
   grep -q '^y: [0-9]* elements, sum [-0-9.e+]*$' "$T/ex"; then
    ok "export --to c: the summary line; the example builds and runs ($(cat "$T/ex"))"
else no "export --to c: summary, example" "$(cat "$T/out" "$T/mk" "$T/ex" 2>&1)"; fi
# 3: --to torch: spec.json and the caller
P="$T/t/$ID"
if "$KFORGE" export "$T/run" --to torch --out "$T/t" >"$T/out" 2>&1 &&
   same "$P/spec.json" "$G/spec.json" && cmp -s "$P/_host_c.py" "$KF_SRCDIR/plugins/cpu-simd/export/kf_torch_host_c.py" &&
   cmp -s "$P/kforge-cpu.h" "$KF_SRCDIR/plugins/cpu-simd/kforge-cpu.h" && cmp -s "$P/kernel.c" "$C/kernel.c" &&
   [ -f "$P/__init__.py" ] && [ -f "$P/_loadlib.py" ]; then
    ok "export --to torch of host-entry C: spec.json equals the golden; _host_c.py is the plugin's caller"
else no "export --to torch of host-entry C" "$(cat "$T/out")" "$(ls "$P" 2>&1)"; fi
# 4: a backend with no plugin here: the plugin that declares 'c' and exports writes it
if "$KFORGE" export "$T/acme" --to c --out "$T/a" >"$T/out" 2>&1 &&
   sed 's/backend cpu-simd,/backend acme-cpu,/' "$G/$ID.h" > "$T/acme.h" && cmp -s "$T/a/$ID.h" "$T/acme.h" &&
   cmp -s "$T/a/$ID.c" "$G/$ID.c"; then
    ok "a host-entry C run of backend acme-cpu (no plugin here): exported, NAME.h names acme-cpu"
else no "acme-cpu host-entry export" "$(cat "$T/out")" "$(diff "$T/acme.h" "$T/a/$ID.h" 2>&1 | head -5)"; fi
# 5: no plugin here exports C: exit 2, saying so, nothing written
E="$T/empty"; mkdir -p "$E"
KFORGE_PLUGIN_PATH="$E" KFORGE_PLUGIN_SYSTEM_PATH="$E" "$KFORGE" export "$T/run" --to c --out "$T/n" >/dev/null 2>"$T/err"; rc=$?
case "$rc:$(cat "$T/err")" in
    "2:kforge: export: $T/run: no plugin here writes the host code of this c host-entry kernel: backend 'cpu-simd' has no plugin here, and no other plugin declaring 'c' exports"*)
        if [ ! -e "$T/n/$ID.c" ]; then ok "no plugin exports C here: exit 2, naming what to install"
        else no "no plugin: nothing written" "$(ls "$T/n")"; fi ;;
    *) no "no plugin exports C here: exit 2" "rc=$rc" "$(cat "$T/err")" ;;
esac
# 6: the plugin refuses a kernel plan declared as host-entry C (it exports host entries only)
mkrun "$T/plan" cpu-simd
sed 's/"backend_caps":\["host-entry","host-memory"\]/"backend_caps":["kernel-plan"]/' "$T/plan/result.json" > "$T/r" && mv "$T/r" "$T/plan/result.json"
printf '{"backend":"cpu-simd","sources":["kernel.c","kf_gemm.h"],"launches":[{"kernel":"k","global":["B"],"args":["x","y","B"]}]}\n' \
    > "$T/plan/steps/0001-0/candidate/candidate.json"
"$KFORGE" export "$T/plan" --to c --out "$T/p" >/dev/null 2>"$T/err"; rc=$?
case "$rc:$(cat "$T/err")" in
    "2:kforge: export: $T/plan: backend 'cpu-simd' ("*"kf-cpu-simd.so): cpu-simd exports host-entry C (an entry function, no launch plan); this candidate has a launch plan"*)
        ok "a kernel plan recorded as language c: the cpu-simd plugin refuses it, exit 2" ;;
    *) no "a c kernel plan: exit 2 from the plugin" "rc=$rc" "$(cat "$T/err")" ;;
esac
tap_exit
