#!/bin/bash
# counters experiment 1: ncu metric names on sm_90, a real CSV of problem 9's best kernel,
export PATH=$PATH:/usr/local/cuda/bin
# and whether ncu works through kforge's sandboxed worker.
set -u
E=/tmp/e1; mkdir -p $E
snap() { cp $E/summary.txt $OUT/; tar czf $OUT/e1.tgz -C /tmp e1; }
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1)
echo "NCU=$NCU" | tee $E/summary.txt; $NCU --version >>$E/summary.txt 2>&1
$NCU --help >$E/ncu-help.txt 2>&1
M=sm__warps_active.avg.pct_of_peak_sustained_active,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,launch__registers_per_thread,launch__occupancy_limit_registers,sm__maximum_warps_per_active_cycle_pct
S="long_scoreboard barrier mio_throttle math_pipe_throttle short_scoreboard wait not_selected lg_throttle dispatch_stall no_instruction membar drain sleeping branch_resolving imc_miss tex_throttle misc selected"
for s in $S; do M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio; done
echo "$M" >$E/metrics.txt
timeout 25 $NCU --query-metrics --query-metrics-mode all --chip gh100 >$E/query-all.txt 2>&1
for m in ${M//,/ }; do grep -qE "^$m( |$)" $E/query-all.txt && echo "ok $m" || echo "MISSING $m"; done | tee -a $E/summary.txt
cat >/tmp/t.cu <<'CU'
#include <cstdio>
__global__ void saxpy(int n, float a, const float *x, float *y){int i=blockIdx.x*blockDim.x+threadIdx.x; if(i<n) y[i]=a*x[i]+y[i];}
int main(){int n=1<<24; float *x,*y; cudaMalloc(&x,n*4); cudaMalloc(&y,n*4); saxpy<<<n/256,256>>>(n,2.f,x,y); cudaDeviceSynchronize(); printf("done\n"); return 0;}
CU
nvcc -arch=sm_90 -o /tmp/t /tmp/t.cu >$E/nvcc.txt 2>&1
MOK=$(grep '^ok ' $E/summary.txt | cut -d' ' -f2 | paste -sd,)
echo "== tiny direct" >>$E/summary.txt
timeout 20 $NCU --csv --clock-control none --metrics $MOK /tmp/t >$E/tiny-details.csv 2>$E/tiny.err; echo "rc $?" >>$E/summary.txt
timeout 20 $NCU --csv --page raw --clock-control none --metrics $MOK /tmp/t >$E/tiny-raw.csv 2>>$E/tiny.err; echo "raw rc $?" >>$E/summary.txt
echo "== tiny in netns lo down" >>$E/summary.txt
timeout 20 unshare -n $NCU --csv --clock-control none --metrics $MOK /tmp/t >$E/tiny-netns.csv 2>&1; echo "rc $?" >>$E/summary.txt
echo "== tiny in netns lo up" >>$E/summary.txt
timeout 20 unshare -n sh -c "ip link set lo up 2>&1 || ifconfig lo up; $NCU --csv --clock-control none --metrics $MOK /tmp/t" >$E/tiny-netns-lo.csv 2>&1; echo "rc $?" >>$E/summary.txt
snap
