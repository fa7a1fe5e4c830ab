#!/bin/sh
# setup_intel_ocl.sh DEST -- install Intel's OpenCL CPU runtime (PyPI wheel
# intel-opencl-rt + its deps tbb, intel-cmplr-lib-rt) into DEST/lib and write
# DEST/icd/intel.icd.  Idempotent.  Needs: python3 -m pip (PyPI reachable), unzip.
# Afterwards:  export OCL_ICD_VENDORS=DEST/icd   (ocl-icd loader, libOpenCL.so.1)
# Optional env: IOCL_VERSION (default 2026.2.0), IOCL_WHEEL_DIR (dir with
# pre-downloaded wheels; missing ones are fetched from PyPI), PIP (default "python3 -m pip").
set -eu
DEST=${1:?usage: setup_intel_ocl.sh DEST}
VER=${IOCL_VERSION:-2026.2.0}
TBB_SPEC=${IOCL_TBB_SPEC:-tbb==2023.*}
CMPLR_SPEC=${IOCL_CMPLR_SPEC:-intel-cmplr-lib-rt==${VER%%.*}.*}
PIP=${PIP:-python3 -m pip}
mkdir -p "$DEST"; DEST=$(cd "$DEST" && pwd)
STAMP="$DEST/.installed-intel-opencl-rt-$VER"
emit_env() {
    echo "export OCL_ICD_VENDORS=$DEST/icd"
}
if [ -f "$STAMP" ] && [ -f "$DEST/icd/intel.icd" ] && [ -f "$DEST/lib/libintelocl.so" ]; then
    echo "setup_intel_ocl: already installed in $DEST" >&2
    emit_env; exit 0
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/iocl.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
WHL="$WORK/whl"; mkdir -p "$WHL"
if [ -n "${IOCL_WHEEL_DIR:-}" ]; then cp "$IOCL_WHEEL_DIR"/*.whl "$WHL"/ 2>/dev/null || true; fi
need=""
ls "$WHL"/intel_opencl_rt-"$VER"-*.whl >/dev/null 2>&1 || need="$need intel-opencl-rt==$VER"
ls "$WHL"/tbb-*.whl >/dev/null 2>&1 || need="$need $TBB_SPEC"
ls "$WHL"/intel_cmplr_lib_rt-*.whl >/dev/null 2>&1 || need="$need $CMPLR_SPEC"
if [ -n "$need" ]; then
    # wheels are py2.py3-none-manylinux_2_28_x86_64: platform-pinned, no deps resolution
    # shellcheck disable=SC2086
    $PIP download --quiet --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
        -d "$WHL" $need >&2
fi
rm -rf "$DEST/lib.new"; mkdir -p "$DEST/lib.new"
x() { # x WHEEL PATTERN...  : extract data/lib/<pattern> flat into lib.new
    w=$1; shift
    for p in "$@"; do unzip -q -o -j "$w" "*.data/data/lib/$p" -d "$DEST/lib.new"; done
}
# OpenCL runtime: everything except Intel's own ICD loader and the duplicated
# (non-symlinked in the wheel) unversioned copies of the two big libraries.
x "$(ls "$WHL"/intel_opencl_rt-"$VER"-*.whl)" 'libintelocl.so.*' 'libcommon_clang.so.*' \
    'libocl_svml_*.so' '*.rtl' '*.o' 'cl.cfg'
x "$(ls "$WHL"/tbb-*.whl | head -n1)" 'libtbb.so.12' 'libtbbmalloc.so.2'
x "$(ls "$WHL"/intel_cmplr_lib_rt-*.whl | head -n1)" 'libimf.so' 'libsvml.so' 'libirng.so' 'libintlc.so.5'
rm -f "$DEST/lib.new"/libintelocl.so-gdb.py
(cd "$DEST/lib.new" && ln -sf "$(ls libintelocl.so.2* | head -n1)" libintelocl.so \
    && ln -sf "$(ls libcommon_clang.so.2* | head -n1)" libcommon_clang.so)
rm -rf "$DEST/lib"; mv "$DEST/lib.new" "$DEST/lib"
if ldd "$DEST/lib/libintelocl.so" | grep -q 'not found'; then
    ldd "$DEST/lib/libintelocl.so" | grep 'not found' >&2; echo "setup_intel_ocl: missing deps" >&2; exit 1
fi
mkdir -p "$DEST/icd"
echo "$DEST/lib/libintelocl.so" > "$DEST/icd/intel.icd"
rm -f "$DEST"/.installed-intel-opencl-rt-*; touch "$STAMP"
echo "setup_intel_ocl: installed into $DEST ($(du -sh "$DEST" | cut -f1))" >&2
emit_env
