#!/bin/sh
# bench/opencl/run_gpu.sh — the OpenCL backend on an NVIDIA GPU, and on PoCL
# for comparison, from a `make dist` tarball.
#
# Usage:  OUT=/path/to/out [JSONC_ROOT=DIR] [OPENCL_ROOT=DIR] bench/opencl/run_gpu.sh [kforge-X.Y.Z.tar.gz]
#
#   OUT          where results go (default ./bench-opencl-out); at most 8 files:
#                build.log, backends-nvidia.txt, profile-nvidia.txt, test-opencl-nvidia.log,
#                backends-pocl.txt, profile-pocl.txt, summary.txt
#   JSONC_ROOT   a directory where the json-c .deb files (libjson-c5, libjson-c-dev) were
#                unpacked with `dpkg -x`; added to PKG_CONFIG_PATH, CPATH, LIBRARY_PATH and
#                LD_LIBRARY_PATH (json-c is missing on the GPU machine)
#   OPENCL_ROOT  the same for ocl-icd-libopencl1, ocl-icd-opencl-dev and opencl-c-headers,
#                if the machine lacks the ICD loader or CL/cl.h
#   NVIDIA_OPENCL_LIB  path of libnvidia-opencl.so.1 (default: searched)
#   PRESET       problem preset to profile (default kernelbench)
#   JOBS         make -j (default: number of CPUs)
#
# Without a tarball argument, one is made with `make dist` from the source tree this
# script lives in.  Exit status: 0 when the NVIDIA profile ran, 1 otherwise.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
srcroot=$(cd "$here/../.." && pwd)
OUT=${OUT:-$PWD/bench-opencl-out}
PRESET=${PRESET:-kernelbench}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kforge-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
summary="$OUT/summary.txt"
: >"$summary"
say() { echo "$*"; echo "$*" >>"$summary"; }

# --------------------------------------------------- unpacked .deb roots
add_root() {
    root=$1
    [ -d "$root" ] || { say "error: $root is not a directory"; exit 1; }
    root=$(cd "$root" && pwd)
    for lib in "$root/usr/lib/x86_64-linux-gnu" "$root/usr/lib64" "$root/usr/lib" "$root/lib/x86_64-linux-gnu"; do
        [ -d "$lib" ] || continue
        LIBRARY_PATH="$lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
        LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        [ -d "$lib/pkgconfig" ] && PKG_CONFIG_PATH="$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    done
    [ -d "$root/usr/share/pkgconfig" ] && PKG_CONFIG_PATH="$root/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    [ -d "$root/usr/include" ] && CPATH="$root/usr/include${CPATH:+:$CPATH}"
    export LIBRARY_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH CPATH
}
LIBRARY_PATH=${LIBRARY_PATH:-}; LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
PKG_CONFIG_PATH=${PKG_CONFIG_PATH:-}; CPATH=${CPATH:-}
if [ -n "${JSONC_ROOT:-}" ]; then
    add_root "$JSONC_ROOT"
    JSONC_ROOT=$(cd "$JSONC_ROOT" && pwd)
    # the .pc files of unpacked .debs say prefix=/usr: give configure the flags directly
    jlib=$(dirname "$(find "$JSONC_ROOT" -name 'libjson-c.so*' | head -n 1)")
    JSONC_CFLAGS="-I$JSONC_ROOT/usr/include/json-c -I$JSONC_ROOT/usr/include"
    JSONC_LIBS="-L$jlib -ljson-c"
    export JSONC_CFLAGS JSONC_LIBS
    say "json-c from $JSONC_ROOT ($jlib)"
fi
[ -n "${OPENCL_ROOT:-}" ] && add_root "$OPENCL_ROOT" && say "OpenCL loader/headers from $OPENCL_ROOT"

# --------------------------------------------------------------- tarball
tarball=${1:-}
if [ -z "$tarball" ]; then
    say "making a dist tarball from $srcroot"
    (cd "$srcroot" && { [ -x configure ] || autoreconf -fi; }) >>"$OUT/build.log" 2>&1
    mkdir -p "$work/dist"
    (cd "$work/dist" && "$srcroot/configure" -q --with-cuda=no && make dist) >>"$OUT/build.log" 2>&1 \
        || { say "error: make dist failed, see build.log"; exit 1; }
    for t in "$work"/dist/kforge-*.tar.gz; do tarball=$t; done
fi
[ -f "$tarball" ] || { say "error: no tarball '$tarball'"; exit 1; }
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")

# ----------------------------------------------------------------- build
say "building $(basename "$tarball")"
tar -C "$work" -xzf "$tarball"
for d in "$work"/kforge-*/; do src=${d%/}; done
mkdir -p "$work/build"
(cd "$work/build" && "$src/configure" --prefix="$work/inst" --enable-opencl --with-cuda=no \
    && make -j"$JOBS" && make install) >>"$OUT/build.log" 2>&1 \
    || { say "error: build failed (tail of build.log follows)"; tail -n 30 "$OUT/build.log"; exit 1; }
grep -E '^ +opencl +:' "$OUT/build.log" | tail -n 1 >>"$summary" || true
kforge="$work/inst/bin/kforge"
KFORGE_PLUGIN_PATH="$work/inst/lib/kforge/plugins"
export KFORGE_PLUGIN_PATH
export XDG_CACHE_HOME="$work/cache"
problem="$src/problems/level2/09_Matmul_Subtract_Multiply_ReLU.json"
cand="$src/tests/candidates/opencl/gemm_sub_mul_relu"

# ------------------------------------------------------------ ICD files
find_lib() {
    name=$1
    p=$( (ldconfig -p 2>/dev/null || true) | awk -v n="$name" '$1 == n { print $NF; exit }')
    [ -n "$p" ] && { echo "$p"; return; }
    for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/nvidia/lib64 /usr/local/nvidia/lib \
             /usr/lib/x86_64-linux-gnu/nvidia/current; do
        [ -e "$d/$name" ] && { echo "$d/$name"; return; }
    done
}

# run_vendor LABEL LIBPATH: backends + profile with only that ICD visible
run_vendor() {
    label=$1 lib=$2
    icd="$work/icd-$label"
    mkdir -p "$icd"
    echo "$lib" >"$icd/$label.icd"
    OCL_ICD_VENDORS="$icd"
    export OCL_ICD_VENDORS
    say "== $label: OCL_ICD_VENDORS=$icd -> $lib"
    "$kforge" backends >"$OUT/backends-$label.txt" 2>&1 || true
    rc=0
    timeout 1800 "$kforge" profile --backend opencl --problem "$problem" --preset "$PRESET" --timeout 60 "$cand" \
        >"$OUT/profile-$label.txt" 2>&1 || rc=$?
    say "$label: kforge profile exit $rc (see profile-$label.txt)"
    grep -iE 'median|verdict|pass|fail' "$OUT/profile-$label.txt" | head -n 8 >>"$summary" || true
    return $rc
}

status=1
nv=${NVIDIA_OPENCL_LIB:-$(find_lib libnvidia-opencl.so.1)}
if [ -n "$nv" ]; then
    nvidia-smi -L >>"$summary" 2>&1 || true
    run_vendor nvidia "$nv" && status=0
    # the plugin's own tests, on the GPU
    if (cd "$work/build" && make check TESTS=tests/plugins/test_opencl) >"$OUT/test-opencl-nvidia.log" 2>&1; then
        say "nvidia: tests/plugins/test_opencl passed"
    else
        say "nvidia: tests/plugins/test_opencl FAILED (see test-opencl-nvidia.log)"
    fi
    cat "$work/build/tests/plugins/test_opencl.log" >>"$OUT/test-opencl-nvidia.log" 2>/dev/null || true
else
    say "nvidia: libnvidia-opencl.so.1 not found (set NVIDIA_OPENCL_LIB)"
fi

pocl=$(find_lib libpocl.so.2)
if [ -n "$pocl" ]; then
    run_vendor pocl "$pocl" || true
else
    say "pocl: libpocl.so.2 not found on this machine (install pocl-opencl-icd); skipped"
fi
say "results in $OUT"
exit $status
