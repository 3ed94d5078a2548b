#!/bin/sh
# gpudiag vs the independent TBP oracle (tests/oracle/tbp_oracle.py, whose
# expected values are committed in tests/oracle/expected/) on every shared
# real trace.  Skips name documented deviations from the plugin
# (docs/DEFINITIONS.md "Where we differ from the plugin").
set -eu
GPUDIAG=${GPUDIAG:-$(dirname "$0")/../../build/gpudiag}
SRC=${GD_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED=${GD_SHARED:-$SRC/../shared}
T=$SHARED/data/traces
if [ ! -d "$T" ]; then echo "skipped: $T not found"; exit 77; fi
command -v python3 >/dev/null || { echo "skipped: python3 missing"; exit 77; }
C="python3 $SRC/tests/oracle/compare.py $GPUDIAG"
E=$SRC/tests/oracle/expected
pass=0; fail=0
run() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); fi; }
# exact agreement
for n in resnet50_v100_num_workers_0.pt.trace resnet50_v100_num_workers_4.pt.trace alexnet_small \
         cuda_event_sync cpu_only_rank34.pt.trace no_distributed_info mi250_rocm_minitoy_train; do
  run $C "$T/$n.json.gz" "$E/$n.json"
done
# name-based communication kernels (deviation b): the breakdown differs, steps/GPU metrics/kernels agree
for n in a100_8rank_rank3_control a100_8rank_rank3_test a100_nccl_2rank_rank0; do
  run $C "$T/$n.json.gz" "$E/$n.json" --skip breakdown
done
# the oracle, like the plugin, adds epoch-µs doubles (0.25 µs resolution at 1.7e15); gpudiag is exact
run $C "$T/v100_ns_resolution_rank0.pt.trace.json.gz" "$E/v100_ns_resolution_rank0.pt.trace.json" --abs-tol 12
# cuda_driver launches are linked (deviation c); cuda_profiler_range kernels are read (deviation d)
run $C "$T/triton_example.json.gz" "$E/triton_example.json" --skip steps breakdown step_time
run $C "$T/a100_cupti_counters.json.gz" "$E/a100_cupti_counters.json" --skip steps breakdown gpu kernels step_time
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
