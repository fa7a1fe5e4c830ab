#!/bin/bash
# s23-amx device run (prepared, not made; see README.md): micro.sh (old/new AMX kernels, OpenBLAS) at 16 threads,
# one AMX run of problem 9, then the CPU anchors + suite of the brief.
C=$PWD/.carry-amx; R=$OUT/amx; mkdir -p $R
S=$KF_BUILD/bench/cpu_gemm; mkdir -p $S; cp $C/micro.sh $C/harness.c $S/
{ date -u; nproc; uptime; grep -m1 'model name' /proc/cpuinfo; grep -o 'amx[a-z_0-9]*' /proc/cpuinfo | sort -u | tr '\n' ' '; echo
  lscpu | grep -i -E 'cache|Thread|Core'; kforge backends | sed -n '/^cpu-simd/,/^$/p'; } > $R/machine.txt 2>&1
P9=$(ls problems/level2/09_*.json); P12=$(ls problems/level2/12_*.json)
echo "== $(date +%T) micro"
{ echo "# OMP_WAIT_POLICY=passive micro.sh 09 cpu 16 15"; uptime
  OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 30 bash $S/micro.sh $P9 cpu 16 15 old=@$C/k/09-old.txt barrier=@$C/k/09-barrier.txt queue=@$C/k/09-queue.txt fly=@$C/k/09-fly.txt
  echo "# OMP_WAIT_POLICY=passive micro.sh 12 cpu 16 15"; uptime
  OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 25 bash $S/micro.sh $P12 cpu 16 15 old=@$C/k/12-old.txt barrier=@$C/k/12-barrier.txt queue=@$C/k/12-queue.txt
  echo "# micro.sh 09 cpu 16 15 (default waits)"
  KF_BUILDDIR=$KF_BUILD timeout 25 bash $S/micro.sh $P9 cpu 16 15 old=@$C/k/09-old.txt queue=@$C/k/09-queue.txt
} > $R/micro.txt 2>&1
cat $R/micro.txt
echo "== $(date +%T) run 9 amx"
timeout 20 kforge run $P9 --backend cpu-simd --preset cpu --agent 'builtin:{"precision":5,"mr":32,"nr":32,"kc":4096,"mc":128,"nc":256}' \
    --max-iterations 1 --no-baseline --out $R/run9 > $R/run9.txt 2>&1; tail -n 8 $R/run9.txt
echo "== $(date +%T) anchors"
timeout 105 bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --out $R/cpu16 --suite-dir $R/suite \
    $P9 $P12 problems/level2/99_*.json problems/level2/30_*.json -- --max-iterations 3 --max-time 40 > $R/anchors-run.txt 2>&1
tail -n 12 $R/anchors-run.txt; cat $R/cpu16/record.md 2>/dev/null | head -30
for d in $R/suite/runs/*/; do echo "$d $(python3 -c 'import json,sys; b=json.load(open(sys.argv[1])).get("best") or {}; print(b.get("label"), b.get("median_s"))' $d/result.json 2>&1)"; done
echo "== $(date +%T) done"
cd $OUT && tar czf amx.tgz amx && rm -rf amx
