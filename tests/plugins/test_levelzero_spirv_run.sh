#!/bin/sh
# Runs test_levelzero_spirv_run with Intel's OpenCL CPU runtime
# (tests/deps/setup_intel_ocl.sh; $KF_TEST_DEPS, default
# ~/.cache/kforge/test-deps) as the only OpenCL platform.  Without it:
# skipped, or failed under KF_TEST_STRICT=1 (CI).
DEPS=${KF_TEST_DEPS:-$HOME/.cache/kforge/test-deps}
if [ ! -f "$DEPS/intel-ocl/icd/intel.icd" ] || [ ! -x "$KF_BUILDDIR/tests/plugins/test_levelzero_spirv_run" ]; then
    if [ "${KF_TEST_STRICT:-0}" = 1 ]; then echo "1..1"; echo "not ok 1 - intel-opencl-rt or the test missing ($DEPS/intel-ocl)"; exit 1; fi
    echo "1..0 # SKIP no Intel OpenCL runtime in $DEPS/intel-ocl (tests/deps/setup_intel_ocl.sh) or no levelzero plugin"
    exit 0
fi
OCL_ICD_VENDORS="$DEPS/intel-ocl/icd" KFORGE_SANDBOX_READ="$DEPS/intel-ocl" \
    exec "$KF_BUILDDIR/tests/plugins/test_levelzero_spirv_run"
