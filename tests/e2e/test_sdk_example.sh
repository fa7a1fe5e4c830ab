#!/bin/sh
# test_sdk_example.sh — a third party's view of the plugin SDK: install only
# kforge-plugin.h and kforge-plugin.pc into a temporary prefix, build
# plugin-sdk/example with its own Makefile using nothing but
# `pkg-config --cflags kforge-plugin`, `make install` it into the .pc's
# plugindir, and check that kforge lists it and can verify a candidate on it.
# Needs: $KF_SRCDIR, $KF_BUILDDIR, $KFORGE (set by `make check`), cc, make,
# pkg-config, nm, python3.

KF_SRCDIR=${KF_SRCDIR:-.}
KF_BUILDDIR=${KF_BUILDDIR:-.}
KFORGE=${KFORGE:-$KF_BUILDDIR/core/kforge}
# the example is built by its own make, not as part of ours: drop our flags
unset MAKEFLAGS MFLAGS MAKELEVEL
PY=${PYTHON3:-python3}
MAKE=${MAKE:-make}

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; shift; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/# /'; done; }
check() {     # check NAME TEXT NEEDLE...: every needle is a substring of TEXT
    name=$1; text=$2; shift 2
    for needle in "$@"; do
        case $text in
        *"$needle"*) ;;
        *) not_ok "$name" "missing: $needle" "in:" "$text"; return ;;
        esac
    done
    ok "$name"
}

echo "1..18"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kf-sdk.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
pcdir="$prefix/lib/pkgconfig"
mkdir -p "$prefix/include" "$pcdir" "$tmp/src"

# --- the SDK, installed by hand: the header and a .pc from the .pc.in
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$KF_BUILDDIR/config.h" 2>/dev/null)
cp "$KF_SRCDIR/plugin-sdk/kforge-plugin.h" "$prefix/include/" &&
sed -e "s|@prefix@|$prefix|" -e 's|@exec_prefix@|${prefix}|' -e 's|@libdir@|${exec_prefix}/lib|' \
    -e 's|@includedir@|${prefix}/include|' -e 's|@PACKAGE@|kforge|' -e "s|@PACKAGE_VERSION@|${version:-0}|" \
    "$KF_SRCDIR/plugin-sdk/kforge-plugin.pc.in" > "$pcdir/kforge-plugin.pc"
PKG_CONFIG_PATH="$pcdir"; export PKG_CONFIG_PATH
PKG_CONFIG_LIBDIR="$pcdir"; export PKG_CONFIG_LIBDIR     # never a system-wide kforge

# 1: the .pc says where things are, and its ABI is the header's
cflags=$(echo $(pkg-config --cflags kforge-plugin 2>&1))
plugindir=$(pkg-config --variable=plugindir kforge-plugin 2>&1)
pc_major=$(pkg-config --variable=abi_major kforge-plugin 2>&1)
pc_minor=$(pkg-config --variable=abi_minor kforge-plugin 2>&1)
h_major=$(sed -n 's/^#define KF_PLUGIN_ABI_MAJOR \([0-9]*\).*/\1/p' "$KF_SRCDIR/plugin-sdk/kforge-plugin.h")
h_minor=$(sed -n 's/^#define KF_PLUGIN_ABI_MINOR \([0-9]*\).*/\1/p' "$KF_SRCDIR/plugin-sdk/kforge-plugin.h")
if [ "$cflags" = "-I$prefix/include" ] && [ "$plugindir" = "$prefix/lib/kforge/plugins" ] &&
   [ -n "$h_major" ] && [ "$pc_major.$pc_minor" = "$h_major.$h_minor" ]; then
    ok "kforge-plugin.pc gives cflags, plugindir and the header's ABI $h_major.$h_minor"
else
    not_ok "kforge-plugin.pc gives cflags, plugindir and the header's ABI" \
        "cflags=$cflags plugindir=$plugindir pc abi=$pc_major.$pc_minor header abi=$h_major.$h_minor"
fi

# 2: without the .pc the example's Makefile says what to do
cp "$KF_SRCDIR/plugin-sdk/example/kf-example.c" "$KF_SRCDIR/plugin-sdk/example/Makefile" "$tmp/src/"
out=$(PKG_CONFIG_PATH="$tmp/none" PKG_CONFIG_LIBDIR="$tmp/none" $MAKE -C "$tmp/src" 2>&1); rc=$?
if [ $rc -ne 0 ]; then check "without kforge-plugin.pc the build stops and says how to fix it" "$out" \
    "kforge-plugin.pc not found" "PKG_CONFIG_PATH"
else not_ok "without kforge-plugin.pc the build stops and says how to fix it" "make succeeded:" "$out"; fi
rm -f "$tmp/src/kf-example.so"

# 3-5: build and install with the SDK alone
out=$($MAKE -C "$tmp/src" CFLAGS="-O2 -Werror" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -f "$tmp/src/kf-example.so" ]; then
    case $out in *"-I$prefix/include"*) ok "the example builds with pkg-config --cflags kforge-plugin, warning-free" ;;
    *) not_ok "the example builds with pkg-config --cflags kforge-plugin, warning-free" "the SDK cflags were not used:" "$out" ;; esac
else
    not_ok "the example builds with pkg-config --cflags kforge-plugin, warning-free" "rc=$rc" "$out"
fi
syms=$(nm -D --defined-only "$tmp/src/kf-example.so" 2>&1 | awk '$2 ~ /^[TDRBVW]$/ {print $3}')
if [ "$syms" = "kforge_backend_example" ]; then ok "it exports exactly kforge_backend_example"
else not_ok "it exports exactly kforge_backend_example" "exported: $syms"; fi
out=$($MAKE -C "$tmp/src" install 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -x "$plugindir/kf-example.so" ]; then ok "make install puts kf-example.so into the .pc's plugindir"
else not_ok "make install puts kf-example.so into the .pc's plugindir" "rc=$rc" "$out"; fi

# 6-8: kforge finds it
out=$(KFORGE_PLUGIN_PATH="$plugindir" "$KFORGE" backends 2>&1); rc=$?
if [ $rc -eq 0 ]; then ok "kforge backends exits 0 with the example installed"
else not_ok "kforge backends exits 0 with the example installed" "rc=$rc" "$out"; fi
check "it lists the example backend and its device" "$out" \
    "example 1.0.0" "plugin ABI 1.6, language c, caps: host-entry host-memory" \
    "file: $plugindir/kf-example.so" "device 0: host-cpu-scalar (cpu)" "GFLOP/s (estimated)"
res=$(KFORGE_PLUGIN_PATH="$plugindir" "$KFORGE" backends --json 2>/dev/null | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
ex = [p for p in d["plugins"] if p["name"] == "example"]
assert len(ex) == 1, d["plugins"]
ex = ex[0]
assert ex["available"] and ex["caps"] == ["host-entry", "host-memory"], ex
assert ex["devices"][0]["peak_gflops"] > 0 and not ex["devices"][0]["peak_gflops_measured"], ex
assert not [s for s in d["skipped"] if "kf-example" in s["file"]], d["skipped"]
print("fine")' 2>&1)
if [ "$res" = fine ]; then ok "--json shows it available, nothing skipped"
else not_ok "--json shows it available, nothing skipped" "$res"; fi

# 9-11: its hooks, driven directly by a program built against the SDK only
cat > "$tmp/driver.c" <<'DRIVER'
/* Drives kf-example.so's hooks the way the core's worker does. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <kforge-plugin.h>

static const char *good =
    "#include \"kforge-cpu.h\"\n"
    "void kf_kernel(const kf_cpu_args *a) {\n"
    "    int64_t n = a->dims[0];\n"
    "    for (int64_t i = 0; i < n; i++) { float v = 2.0f * a->in[0][i] - 1.0f; a->out[0][i] = v > 0 ? v : 0; }\n"
    "}\n";

static int compile(const kf_backend *be, const char *dir, const char *text, kf_artifact **art, char **diag)
{
    kf_source src = {"kernel.c", text};
    kf_candidate_view cv = {"example", 1, &src, "", "kf_kernel", 0, NULL};
    const char *dn[] = {"N"}, *in[] = {"x"}, *on[] = {"y"};
    int64_t dv[] = {1000}, ie[] = {1000}, oe[] = {1000};
    kf_problem_view pv = {"t", 1, dn, dv, 1, in, ie, 1, on, oe, 0, NULL};
    kf_compile_request req = {&cv, &pv, 0, dir};
    *diag = NULL;
    return be->compile(&req, art, diag);
}

int main(int argc, char **argv)
{
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    const kf_backend *be = h ? dlsym(h, "kforge_backend_example") : NULL;
    if (!be) { printf("cannot load %s: %s\n", argv[1], dlerror()); return 1; }
    const char *what = argc > 3 ? argv[3] : "good";
    kf_artifact *art = NULL;
    char *diag = NULL;
    if (strcmp(what, "broken") == 0) {
        int st = compile(be, argv[2], "void kf_kernel(const kf_cpu_args *a) { this is not C; }\n", &art, &diag);
        printf("status %d art %s\n%s\n", st, art ? "set" : "null", diag ? diag : "(no diagnostics)");
        free(diag);
        return 0;
    }
    if (strcmp(what, "noentry") == 0) {
        int st = compile(be, argv[2], "void other(void) {}\n", &art, &diag);
        printf("status %d art %s\n%s\n", st, art ? "set" : "null", diag ? diag : "(no diagnostics)");
        free(diag);
        return 0;
    }
    int st = compile(be, argv[2], good, &art, &diag);
    if (st != KF_OK) { printf("compile failed %d: %s\n", st, diag ? diag : ""); return 1; }
    free(diag);
    float *x = malloc(1000 * sizeof *x), *y = malloc(1000 * sizeof *y);
    kf_buffer bi = {(unsigned char *)x, x, 4000, 0}, bo = {(unsigned char *)y, y, 4000, 0};
    kf_buffer_set set = {&bi, &bo, NULL};
    for (int i = 0; i < 1000; i++) { x[i] = (float)i / 1000.0f; y[i] = NAN; }
    char *err = NULL;
    if (be->verify(art, &set, &err) != KF_OK) { printf("verify failed: %s\n", err ? err : ""); return 1; }
    int bad = 0;
    for (int i = 0; i < 1000; i++) { float v = 2.0f * x[i] - 1.0f; if (y[i] != (v > 0 ? v : 0)) bad++; }
    double samples[25];
    kf_profile_result res;
    memset(&res, 0, sizeof res);
    res.samples_s = samples;
    kf_profile_request preq = {2, 25, 1, &set};
    st = be->profile(art, &preq, &res, &err);
    int positive = 0;
    for (int i = 0; i < res.n_samples; i++) positive += samples[i] > 0;
    printf("verify wrong %d; profile status %d samples %d positive %d device-clock %d report %s",
           bad, st, res.n_samples, positive, res.clock_is_device, res.report ? res.report : "(none)\n");
    free(res.report);
    be->release(art);
    be->release(NULL);
    free(x);
    free(y);
    return 0;
}
DRIVER
mkdir -p "$tmp/work"
if cc -std=gnu11 -O1 $(pkg-config --cflags kforge-plugin) -o "$tmp/driver" "$tmp/driver.c" -ldl -lm 2>"$tmp/driver.log"; then
    out=$("$tmp/driver" "$plugindir/kf-example.so" "$tmp/work" good 2>&1)
    check "compile + verify + profile hooks compute relu(2x-1) and time 25 runs" "$out" \
        "verify wrong 0; profile status 0 samples 25 positive 25 device-clock 0" "25 runs after 2 warm-up"
    out=$("$tmp/driver" "$plugindir/kf-example.so" "$tmp/work" broken 2>&1)
    check "a broken candidate is KF_ERR_COMPILE with the compiler's own diagnostics" "$out" \
        "status 2 art null" "kernel.c:1" "error"
    out=$("$tmp/driver" "$plugindir/kf-example.so" "$tmp/work" noentry 2>&1)
    check "a candidate without its entry says which function to define" "$out" \
        "status 2 art null" "defines no function 'kf_kernel'"
else
    for c in "compile + verify + profile hooks" "a broken candidate is KF_ERR_COMPILE" "a candidate without its entry"; do
        not_ok "$c" "the driver does not build against the SDK alone:" "$(cat "$tmp/driver.log")"
    done
fi

# 12-14: the whole path through kforge verify (core + worker + this plugin)
cat > "$tmp/relu.json" <<'PROBLEM'
{
  "name": "sdk_example_relu",
  "dims": ["N"],
  "presets": {"small": {"N": 1000}},
  "inputs": [{"name": "x", "shape": ["N"], "init": {"dist": "uniform", "low": 0.0, "high": 1.0}}],
  "graph": [
    {"out": "t", "op": "mul", "in": ["x", 2.0]},
    {"out": "u", "op": "sub", "in": ["t", 1.0]},
    {"out": "y", "op": "relu", "in": ["u"]}
  ],
  "outputs": ["y"]
}
PROBLEM
for c in good wrong; do
    mkdir -p "$tmp/$c"
    printf '{"backend": "example", "sources": ["kernel.c"], "entry": "kf_kernel"}\n' > "$tmp/$c/candidate.json"
done
cat > "$tmp/good/kernel.c" <<'C'
#include "kforge-cpu.h"
void kf_kernel(const kf_cpu_args *a)
{
    int64_t n = a->dims[0];
    for (int64_t i = 0; i < n; i++) {
        float v = 2.0f * a->in[0][i] - 1.0f;
        a->out[0][i] = v > 0.0f ? v : 0.0f;
    }
}
C
cat > "$tmp/wrong/kernel.c" <<'C'
#include "kforge-cpu.h"
void kf_kernel(const kf_cpu_args *a)      /* forgets the relu */
{
    for (int64_t i = 0; i < a->dims[0]; i++) a->out[0][i] = 2.0f * a->in[0][i] - 1.0f;
}
C
out=$(KFORGE_PLUGIN_PATH="$plugindir" "$KFORGE" verify --backend example --problem "$tmp/relu.json" "$tmp/good" 2>&1); rc=$?
case $out in
*"not built yet"*)
    msg="'kforge verify' is not built in this tree yet (core/cli/cmd_verify.c is still the placeholder): the example cannot be verified end to end"
    not_ok "kforge verify --backend example passes a correct candidate" "$msg" "$out"
    not_ok "kforge verify --backend example fails a wrong candidate with exit 1" "$msg"
    not_ok "kforge profile --backend example times it" "$msg" ;;
*)
    if [ $rc -eq 0 ]; then ok "kforge verify --backend example passes a correct candidate"
    else not_ok "kforge verify --backend example passes a correct candidate" "rc=$rc" "$out"; fi
    out=$(KFORGE_PLUGIN_PATH="$plugindir" "$KFORGE" verify --backend example --problem "$tmp/relu.json" "$tmp/wrong" 2>&1); rc=$?
    if [ $rc -eq 1 ]; then check "kforge verify --backend example fails a wrong candidate with exit 1" "$out" "mismatch"
    else not_ok "kforge verify --backend example fails a wrong candidate with exit 1" "rc=$rc" "$out"; fi
    out=$(KFORGE_PLUGIN_PATH="$plugindir" "$KFORGE" profile --backend example --problem "$tmp/relu.json" "$tmp/good" 2>&1); rc=$?
    if [ $rc -eq 0 ]; then ok "kforge profile --backend example times it"
    else not_ok "kforge profile --backend example times it" "rc=$rc" "$out"; fi ;;
esac

# 15-17: the same example built against the frozen ABI 1.0 header
# (tests/plugins/abi-1.0): kforge loads it as a 1.0 plugin and runs it
# through the 1.0 layouts (core/backend/abi.c)
mkdir -p "$tmp/abi10"
if cc -std=gnu11 -O2 -fPIC -shared -I"$KF_SRCDIR/tests/plugins/abi-1.0" -o "$tmp/abi10/kf-example.so" \
      "$KF_SRCDIR/plugin-sdk/example/kf-example.c" 2>"$tmp/abi10.log"; then
    out=$(KFORGE_PLUGIN_PATH="$tmp/abi10" KFORGE_PLUGIN_SYSTEM_PATH= "$KFORGE" backends 2>&1)
    check "an ABI 1.0 build of the example is listed as ABI 1.0" "$out" "plugin ABI 1.0, language c" \
        "device 0: host-cpu-scalar (cpu)"
    out=$(KFORGE_PLUGIN_PATH="$tmp/abi10" KFORGE_PLUGIN_SYSTEM_PATH= "$KFORGE" verify --backend example \
          --problem "$tmp/relu.json" "$tmp/good" 2>&1); rc=$?
    if [ $rc -eq 0 ]; then ok "kforge verify passes a correct candidate through the ABI 1.0 plugin"
    else not_ok "kforge verify passes a correct candidate through the ABI 1.0 plugin" "rc=$rc" "$out"; fi
    out=$(KFORGE_PLUGIN_PATH="$tmp/abi10" KFORGE_PLUGIN_SYSTEM_PATH= "$KFORGE" verify --backend example \
          --problem "$tmp/relu.json" "$tmp/wrong" 2>&1); rc=$?
    if [ $rc -eq 1 ]; then check "and fails a wrong one with exit 1" "$out" "mismatch"
    else not_ok "and fails a wrong one with exit 1" "rc=$rc" "$out"; fi
else
    for c in "an ABI 1.0 build of the example is listed as ABI 1.0" \
             "kforge verify passes a correct candidate through the ABI 1.0 plugin" "and fails a wrong one with exit 1"; do
        not_ok "$c" "the example does not build against the 1.0 header:" "$(cat "$tmp/abi10.log")"
    done
fi

# 18: the SDK's error helpers (kf_strf, kf_hook_fail), as a third party gets
# them: the installed header alone, strict C99, run under its own checks
cat > "$tmp/errs.c" <<'C'
#include <kforge-plugin.h>
#include <stdio.h>
static kf_status hook(char **error, int n)
{
    if (n < 0) return kf_hook_fail(error, KF_ERR_INVALID, "mine: n is %d; give n >= 0", n);
    return KF_OK;
}
int main(void)
{
    char *e = kf_strf("stale %s", "text");
    kf_status st = hook(&e, -3);               /* replaces (and frees) the stale text */
    char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    char *b = kf_strf("%s|%d%%", big, 7);
    printf("status %d msg [%s] null-out %d ok %d big %zu tail %s\n", (int)st, e ? e : "(null)",
           (int)kf_hook_fail(NULL, KF_ERR_RUNTIME, "dropped"), (int)hook(&e, 1), b ? strlen(b) : 0,
           b ? b + 4999 : "(null)");
    free(e);
    free(b);
    return 0;
}
C
if cc -std=c99 -pedantic -Wall -Wextra -Wformat=2 -Werror $(pkg-config --cflags kforge-plugin) -o "$tmp/errs" \
      "$tmp/errs.c" 2>"$tmp/errs.log"; then
    out=$("$tmp/errs" 2>&1)
    check "kf_strf and kf_hook_fail from the installed header alone (C99): message, status, NULL out, long text" \
        "$out" "status 5 msg [mine: n is -3; give n >= 0] null-out 4 ok 0 big 5002 tail |7%"
else
    not_ok "kf_strf and kf_hook_fail from the installed header alone (C99)" "it does not build:" "$(cat "$tmp/errs.log")"
fi

exit $failed
