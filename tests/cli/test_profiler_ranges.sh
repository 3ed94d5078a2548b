#!/bin/sh
# CUPTI range-profiler events are counters, not kernel timings (DEFINITIONS "Where we differ from
# TBP" d: Kineto's CuptiRangeProfiler splits the profiling span evenly over its ranges; on the
# shared a100_cupti_counters all 77 last exactly 121,431 us). A new user's trial found that trace
# diagnosed memory_bandwidth 19% from those made-up times.
# tests/data/ok_profiler_ranges.json, by hand: aten::mm [1000,1400], two cudaLaunchKernel calls
# (300 and 60 us), three cuda_profiler_range events [1000,1200] [1200,1400] [1400,1600] with
# counters, no kernel/memcpy/memset. Expected: profiler_ranges 3, no GPU op (kernel share 0), the
# verdict unknown resting on input_profiler_ranges (medium: no other GPU activity), and no
# cpu_only_trace nor any time-based cause (before: 3 "kernels", 100% busy, a compute verdict).
# The shared a100_cupti_counters (when ../shared is present): 77 ranges, the same verdict.
set -eu
GD_TMP_TAG=ranges
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
PY=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); f = {x["id"]: x for x in d["findings"]}
checks = [
    ("ranges", d["inputs"][0]["profiler_ranges"], 3),
    ("kernel share", d["breakdown"]["share"]["kernel"], 0),
    ("ids", sorted(f), ["input_profiler_ranges", "no_step_markers"] if "no_step_markers" in f else ["input_profiler_ranges"]),
    ("severity", f["input_profiler_ranges"]["severity"], "medium"),
    ("evidence", f["input_profiler_ranges"]["evidence"]["profiler_ranges"], 3),
    ("bottleneck", d["verdict"]["bottleneck"], "unknown"),
    ("finding", d["verdict"]["finding"], "input_profiler_ranges"),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF2
)
rc=0
check_both_readers "$GD_TEST_DATA/ok_profiler_ranges.json" "$PY" || rc=1
shared="$GD_SHARED/data/traces/a100_cupti_counters.json.gz"
if [ -f "$shared" ]; then
    "$GPUDIAG" analyze --json "$shared" > "$TMP/shared.json"
    if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ok = (d["inputs"][0]["profiler_ranges"] == 77 and d["verdict"]["bottleneck"] == "unknown"
      and d["verdict"]["finding"] == "input_profiler_ranges"
      and not any(x["id"] in ("memory_bound_kernels", "cpu_only_trace") for x in d["findings"]))
sys.exit(0 if ok else 1)' "$TMP/shared.json"; then echo "a100_cupti_counters: passed"; else echo "FAIL: a100_cupti_counters"; rc=1; fi
fi
exit $rc
