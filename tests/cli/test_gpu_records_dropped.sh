#!/bin/sh
# Launch calls without any GPU record (DEFINITIONS "Time and events", launch calls without GPU
# records; pytorch/kineto#996, pytorch/pytorch#192021): the profiler lost the device activity, so
# the report must not call the run CPU-only nor advise model.to('cuda'). A new user's copy of the
# shared v100_ns_resolution trace with its kernels, copies and memsets removed (4,350
# cudaLaunchKernel calls) got cpu_only_trace and "make sure the model and data are on the GPU".
# tests/data/ok_gpu_records_dropped.json, by hand: steps [1000,2000] [2000,3000]; step 1
# cudaLaunchKernel [1100,1150]; step 2 cudaLaunchKernel [2100,2140], cudaMemcpyAsync [2200,2230],
# cudaStreamSynchronize [2300,2400] (a runtime call, not a launch); no kernel/memcpy/memset.
# Expected: launch_calls 3 (the sync is not one), runtime per step (50 + 40 + 30 + 100) / 2 =
# 110 us, severity high, the verdict unknown resting on input_gpu_records_dropped, no
# cpu_only_trace and no "model.to" in the report. The same file cut after the second launch call
# (truncated: the GPU events may be in the missing part) keeps cpu_only_trace. Launch calls count
# inside the steps only: the three moved before the first step leave a CPU-only trace.
set -eu
GD_TMP_TAG=dropped
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
PY=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); f = {x["id"]: x for x in d["findings"]}
g = f.get("input_gpu_records_dropped", {"severity": None, "evidence": {}})
checks = [
    ("ids", sorted(f), ["input_gpu_records_dropped"]),
    ("severity", g["severity"], "high"),
    ("launch_calls", g["evidence"].get("launch_calls"), 3),
    ("runtime per step", g["evidence"].get("runtime_us_per_step"), 110),
    ("bottleneck", d["verdict"]["bottleneck"], "unknown"),
    ("finding", d["verdict"]["finding"], "input_gpu_records_dropped"),
    ("no model.to advice", "model.to" in json.dumps(d), False),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF2
)
rc=0
check_both_readers "$GD_TEST_DATA/ok_gpu_records_dropped.json" "$PY" || rc=1
# cut inside the cudaMemcpyAsync event: truncated, so cpu_only_trace (the GPU part may be missing)
sed '/cudaMemcpyAsync/q' "$GD_TEST_DATA/ok_gpu_records_dropped.json" > "$TMP/cut.json"
"$GPUDIAG" analyze --json "$TMP/cut.json" > "$TMP/cut.out.json" || true
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); ids = [x["id"] for x in d["findings"]]
sys.exit(0 if "cpu_only_trace" in ids and "input_gpu_records_dropped" not in ids
         and d["inputs"][0]["truncated"] else 1)' "$TMP/cut.out.json"; then
    echo "cut trace: passed"
else
    echo "FAIL: cut trace"; rc=1
fi
# the three launch calls moved before the first step (ts 100, 150, 200: a warm-up before a CPU-only
# loop; a second new user's 5 CPU-only steps after 3 stray launches were called "dropped"): launch
# calls count inside the steps only -> 0, so cpu_only_trace and no input_gpu_records_dropped
python3 - "$GD_TEST_DATA/ok_gpu_records_dropped.json" "$TMP/before.json" <<'EOF3'
import json, sys
d = json.load(open(sys.argv[1]))
ts = iter([100, 150, 200])
for e in d["traceEvents"]:
    if e.get("name") in ("cudaLaunchKernel", "cudaMemcpyAsync"):
        e["ts"] = next(ts)
json.dump(d, open(sys.argv[2], "w"))
EOF3
"$GPUDIAG" analyze --json "$TMP/before.json" > "$TMP/before.out.json" || true
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); ids = [x["id"] for x in d["findings"]]
sys.exit(0 if "cpu_only_trace" in ids and "input_gpu_records_dropped" not in ids else 1)' "$TMP/before.out.json"; then
    echo "launches before the first step: passed"
else
    echo "FAIL: launches before the first step"; rc=1
fi
exit $rc
