#!/bin/bash
# device call 2: the five problems call.sh's 360 s did not reach (70 76 86 88
# 99), the same options; then all twenty paired with PyTorch (call.sh's 15
# best kernels from .carry/best-t1.tgz beside these 5); then B's packer with
# the pairs transposed in registers against the gathers (bench/cpu_gemm/micro.sh
# on problem 9's AMX bf16, AMX 3xbf16 and vdpbf16ps kernels, .carry/pk).
set -u
TAG=${TAG:-t2}; R=/tmp/rec-$TAG; S=/tmp/suite-$TAG
export KFORGE_PYTHON=python3
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    P5=$(for n in 70 76 86 88 99; do ls problems/level2/${n}_*.json; done)
    echo "== $(date +%T) suite"
    timeout 170 bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --out '"$R"' \
        --suite-dir '"$S"' $P5 -- --max-iterations 4 --max-time 40 > /tmp/suite.log 2>&1
    tail -8 /tmp/suite.log
    (cd '"$S"' && for r in runs/*/; do b=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"best\"][\"dir\"])" $r/result.json 2>/dev/null) || continue
        echo $r/result.json; echo $r/$b; done | tar czf $OUT/best-'"$TAG"'.tgz -T -)
    tar xzf .carry/best-t1.tgz -C '"$S"'
    echo "== $(date +%T) paired"; uptime
    KFORGE=$(command -v kforge) timeout 230 python3 bench/cpu/paired_anchors.py $OUT/paired-'"$TAG"'.json '"$S"' \
        problems/level2/*.json --threads 16 --rounds 3 --reps 30 | tail -3
    echo "== $(date +%T) packer"
    m() { th=$1; shift; a=""; for v in "$@"; do a="$a $v=@.carry/pk/$v.txt"; done
          echo "== $(date +%T) $th threads: $*"
          OPENBLAS_THREAD_TIMEOUT=4 OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 60 bash bench/cpu_gemm/micro.sh problems/level2/09_Matmul_Subtract_Multiply_ReLU.json cpu $th 30 $a 2>&1 | grep -v "^ \|warning\|~~~\|In function\|^/tmp"; }
    for r in 1 2; do m 16 amx-old amx-new amx3-old amx3-new; done
    m 16 bf-old bf-new amx-old amx-new
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$TAG.txt
cp /tmp/suite.log $OUT/suite-$TAG.log 2>/dev/null
tar czf $OUT/rec-$TAG.tgz -C /tmp rec-$TAG suite-$TAG/report.json 2>/dev/null
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt
ls -la $OUT
