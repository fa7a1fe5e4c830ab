#!/bin/bash
# device call: OpenBLAS's kernel set on this host, the suite beside PyTorch (record),
# then problem 9's fp32 and AMX points against the FMA peak of the same rounds
set -u
TAG=${TAG:-h6}; R=/tmp/rec-$TAG
export KFORGE_PYTHON=python3
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; grep -E '^cpu ' /proc/stat | head -1
  echo "== OpenBLAS here"; ldconfig -p | grep -i openblas | head -5
  for ct in "" Prescott SkylakeX; do
    env -u OPENBLAS_CORETYPE ${ct:+OPENBLAS_CORETYPE=$ct} python3 -c "
import ctypes
for n in ('libopenblas.so.0','libopenblasp.so.0','libopenblas.so'):
    try: l=ctypes.CDLL(n); break
    except OSError: l=None
if l is None: print('no libopenblas')
else:
    l.openblas_get_corename.restype=ctypes.c_char_p; l.openblas_get_config.restype=ctypes.c_char_p
    print('OPENBLAS_CORETYPE=${ct:-unset}:', l.openblas_get_corename().decode(), '|', l.openblas_get_config().decode())"
  done
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    echo "== $(date +%T) suite"
    timeout 380 bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --out '"$R"' \
        --suite-dir /tmp/suite-'"$TAG"' problems/level2/*.json -- --max-iterations 4 --max-time 40 > /tmp/suite.log 2>&1
    tail -5 /tmp/suite.log; cat '"$R"'/record.md 2>/dev/null | tail -8
    echo "== $(date +%T) micro"; uptime
    make -C "$KF_BUILD" -s tests/golden/emit_golden > /dev/null 2>&1
    F9='"'"'{"backend":"cpu-simd","baseline":0,"fusion":2,"precision":0,"mc":516,"nc":512,"kc":512,"mr":12,"nr":32,"pack":1,"threads":0,"loop_order":1,"unroll":1}'"'"'
    P9='"'"'{"backend":"cpu-simd","baseline":0,"fusion":2,"precision":5,"mc":128,"nc":512,"kc":4096,"mr":32,"nr":32,"pack":1,"threads":0,"loop_order":1,"unroll":1}'"'"'
    for t in 16 8 1; do KF_BUILDDIR=$KF_BUILD timeout 60 bash bench/cpu_gemm/micro.sh problems/level2/09_Matmul_Subtract_Multiply_ReLU.json cpu $t 9 fp32="$F9" amx="$P9" 2>&1 | tail -4; done
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$TAG.txt
cp /tmp/suite.log $OUT/suite-$TAG.log 2>/dev/null
tar czf $OUT/rec-$TAG.tgz -C /tmp rec-$TAG suite-$TAG/report.json 2>/dev/null
ls -la $OUT
