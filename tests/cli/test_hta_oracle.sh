#!/bin/sh
# gpudiag vs the independent HTA oracle (tests/oracle/hta/hta_oracle.py, expected
# values committed in tests/oracle/hta/expected/) on every shared real trace:
# temporal breakdown, per-stream idle breakdown, comm/compute overlap and launch
# statistics, within 0.1 percentage point of the span and exact counts.
# a100_cupti_counters is left out: gpudiag reads its cuda_profiler_range events
# as kernels (docs/DEFINITIONS.md deviation d), HTA has no GPU events there.
set -eu
GD_TMP_TAG=hta
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
T=$GD_SHARED/data/traces
if [ ! -d "$T" ]; then echo "skipped: $T not found"; exit 77; fi
E=$HERE/../oracle/hta/expected
pass=0; fail=0
for f in "$T"/*.json.gz; do
  n=$(basename "$f" .json.gz)
  [ "$n" = a100_cupti_counters ] && continue
  if python3 "$HERE/../oracle/hta/compare_hta.py" "$GPUDIAG" "$f" "$E/$n.json"; then
    pass=$((pass+1)); else fail=$((fail+1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
