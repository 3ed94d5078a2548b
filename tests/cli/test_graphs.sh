#!/bin/sh
# test_graphs.sh — graph replays without recorded kernels (issue 19 class 3, Kineto side;
# DEFINITIONS "Graph replays"), values derived by hand.
# 1. tests/data/ok_graph_unrecorded.json: three 1 ms ProfilerSteps of an LLM decode loop, each
#    an `execute_model` annotation, one cudaGraphLaunch and a cudaStreamSynchronize, and no GPU
#    op at all (the shape of AMD-AGI/Hyperloom#1047 / TraceLens decode traces) -> graph_launches
#    3, without GPU ops 3, graph_gpu_ops 0, utilization a lower bound (of nothing: null);
#    finding input_graph_replays_unrecorded (high), never cpu_only_trace; verdict unknown on it.
# 2. tests/data/ok_graph_mixed.json (offsets from ts 1000): steps [0,1000] [1000,2000]
#    [2000,3000]; step 1: k0 [0,100], graph launch 10 -> g1 [100,400] g2 [410,700], k1
#    [700,1000]; step 2: graph launch 12 at 1010 with no GPU op, k2 [1910,2000] launched at
#    1900; step 3 as step 1 (k3 [2000,2100], graph 14 -> g3 [2100,2400] g4 [2410,2700], k4
#    [2700,3000]). graph_launches 3, without 1, graph_gpu_ops 4. Busy 2070 of 3000 us ->
#    utilization 0.69, a lower bound. Gaps: [400,410] and [2400,2410] inside one replay
#    (kernel_wait 20), [1000,1910] 910 host_launch; the unrecorded launch at 1010 starts before
#    that gap ends and after the previous gap -> graph_unrecorded_idle_us 910, share
#    910/3000 = 0.303333; 910 >= half of the 930 us idle -> verdict unknown on
#    input_graph_replays_unrecorded (high). Without the rule the verdict was compute ("busy 69%").
#    The same trace cut after step 2 (its last step then holds the unrecorded launch and one
#    kernel against step 1's four): TBP's tail rule would drop step 2 as a profiler cut-off
#    (< 80 % of the previous step's device ops); a step with an unrecorded graph launch is kept
#    -> 2 steps, steps_trimmed 0, graph_unrecorded_idle_us 910 of 920 idle -> unknown.
#    And with g1 and g2 stripped of their correlation id (recorded, but not joined to launch
#    10): launches 10 and 12 have no GPU op (2 of 3), 2 GPU ops are unlinked, and the finding
#    says the kernels may be among those unlinked ops rather than claiming they were not recorded.
# 3. tests/data/ok_launch_bound.json (test_host_findings.sh: host_launch_bound 0.868) with its
#    last launch call renamed cudaGraphLaunch (its kernel still joins by correlation): one graph
#    launch, recorded (graph_gpu_ops 1, not a lower bound); the same host_launch_bound 0.868,
#    but its advice and the verdict no longer say "CUDA Graphs": the step already replays them.
# 4. tests/data/ok_graph_capture.json (DEFINITIONS "Graph replays", capture): one 1000 us step
#    [1000,2000]; k_before [1010,1020]; cudaStreamBeginCapture at 1100, 20 launch calls captured
#    (no kernel), cudaStreamEndCapture [1900,1910]; k_after [1980,1990]. Capture window
#    [1100,1910] = 810 us -> graph_captures 1, graph_capture_us 810, capture_share 0.81 >= 0.5 ->
#    input_graph_capture (high), verdict unknown on it. Gap [1020,1980] 960 us, covered 810 by
#    the capture -> startup 960 (was host_launch); [1000,1010] host_launch 10 (a launch call at
#    1002), [1990,2000] other 10. Before: host_launch_bound advising CUDA Graphs.
# 5. ok_launch_bound.json with a 1 us capture window on another thread at the step start
#    (begin [10000,10000], end [10000,10001]; the host is already in aten::fill_ then and the
#    window covers no half of a gap): graph_captures 1, share 0.001 < 0.5 -> no
#    input_graph_capture; host_launch_bound keeps 0.868, but neither it nor the verdict
#    advises CUDA Graphs (the trace captures them).
set -eu
GD_TMP_TAG=graphs
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

rc=0
PY1=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); s = d["summary"]; v = d["verdict"]
f = {x["id"]: x for x in d["findings"]}
g = f.get("input_graph_replays_unrecorded", {})
checks = [
    ("graph_launches", s["graph_launches"], 3), ("without", s["graph_launches_without_gpu_ops"], 3),
    ("graph_gpu_ops", s["graph_gpu_ops"], 0), ("lower bound", s["gpu_utilization_lower_bound"], True),
    ("ids", sorted(f), ["input_graph_replays_unrecorded"]), ("severity", g.get("severity"), "high"),
    ("bottleneck", v["bottleneck"], "unknown"), ("finding", v["finding"], "input_graph_replays_unrecorded"),
    ("summary", v["summary"].startswith("The trace holds 3 graph launches but no GPU op"), True),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_graph_unrecorded.json" "$PY1" || rc=1

PY2=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); s = d["summary"]; v = d["verdict"]; i = d["idle"]
f = {x["id"]: x for x in d["findings"]}
g = f.get("input_graph_replays_unrecorded", {})
checks = [
    ("graph_launches", s["graph_launches"], 3), ("without", s["graph_launches_without_gpu_ops"], 1),
    ("graph_gpu_ops", s["graph_gpu_ops"], 4), ("lower bound", s["gpu_utilization_lower_bound"], True),
    ("utilization", s["gpu_utilization"], 0.69),
    ("kernel_wait", i["by_cause_us"]["kernel_wait"], 20), ("host_launch", i["by_cause_us"]["host_launch"], 910),
    ("hidden", i["graph_unrecorded_idle_us"], 910),
    ("share", g.get("evidence", {}).get("unrecorded_idle_share"), 0.303333), ("severity", g.get("severity"), "high"),
    ("bottleneck", v["bottleneck"], "unknown"), ("finding", v["finding"], "input_graph_replays_unrecorded"),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_graph_mixed.json" "$PY2" || rc=1
"$GPUDIAG" analyze --no-color "$GD_TEST_DATA/ok_graph_mixed.json" > "$TMP/r.txt"
if grep -q 'utilization >= 69.0% (lower bound)' "$TMP/r.txt"; then echo "text: 1 passed, 0 failed"; else
    echo "FAIL: text does not state the utilization as a lower bound"; rc=1; fi
"$GPUDIAG" analyze --html "$TMP/r.html" "$GD_TEST_DATA/ok_graph_mixed.json" > /dev/null
if grep -q 'GPU utilization (lower bound)' "$TMP/r.html"; then echo "html: 1 passed, 0 failed"; else
    echo "FAIL: HTML does not label the utilization a lower bound"; rc=1; fi
python3 - "$GD_TEST_DATA/ok_graph_mixed.json" "$TMP/two_steps.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["traceEvents"] = [e for e in d["traceEvents"] if e["ts"] < 2950 and e.get("name") != "ProfilerStep#3"]
json.dump(d, open(sys.argv[2], "w"))
EOF
PY4=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]
checks = [
    ("steps", len(d["steps"]), 2), ("trimmed", d["breakdown"]["steps_trimmed"], 0),
    ("hidden", d["idle"]["graph_unrecorded_idle_us"], 910), ("gap_us", d["idle"]["gap_us"], 920),
    ("finding", v["finding"], "input_graph_replays_unrecorded"), ("bottleneck", v["bottleneck"], "unknown"),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-06)
EOF
)
check_both_readers "$TMP/two_steps.json" "$PY4" || rc=1
python3 - "$GD_TEST_DATA/ok_graph_mixed.json" "$TMP/unjoined.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"]:
    if e.get("name") in ("g1", "g2"):
        del e["args"]["correlation"]
json.dump(d, open(sys.argv[2], "w"))
EOF
PY5=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); s = d["summary"]
g = {x["id"]: x for x in d["findings"]}.get("input_graph_replays_unrecorded", {})
checks = [
    ("without", s["graph_launches_without_gpu_ops"], 2), ("unlinked", s["gpu_ops_unlinked"], 2),
    ("graph_gpu_ops", s["graph_gpu_ops"], 2),
    ("title", "are among the 2 GPU ops with no launch call" in g.get("title", ""), True),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-06)
EOF
)
check_both_readers "$TMP/unjoined.json" "$PY5" || rc=1
python3 - "$GD_TEST_DATA/ok_launch_bound.json" "$TMP/lb_graph.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
last = [e for e in d["traceEvents"] if e.get("name") == "cudaLaunchKernel"][-1]
last["name"] = "cudaGraphLaunch"
json.dump(d, open(sys.argv[2], "w"))
EOF
PY3=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); s = d["summary"]; v = d["verdict"]
f = {x["id"]: x for x in d["findings"]}
h = f.get("host_launch_bound", {})
checks = [
    ("graph_launches", s["graph_launches"], 1), ("without", s["graph_launches_without_gpu_ops"], 0),
    ("graph_gpu_ops", s["graph_gpu_ops"], 1), ("lower bound", s["gpu_utilization_lower_bound"], False),
    ("gain", h.get("est_gain"), 0.868), ("finding", v["finding"], "host_launch_bound"),
    ("no graph advice", "torch.cuda.graphs" in h.get("recommendation", "") or "CUDA Graphs" in v["summary"], False),
    ("says graphs used", "already replays CUDA graphs (1 graph launch)" in h.get("recommendation", ""), True),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-06)
EOF
)
check_both_readers "$TMP/lb_graph.json" "$PY3" || rc=1
PY5=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]; c = d["idle"]["by_cause_us"]
f = {x["id"]: x for x in d["findings"]}
g = f.get("input_graph_capture", {}); e = g.get("evidence", {})
checks = [
    ("captures", e.get("graph_captures"), 1), ("capture_us", e.get("graph_capture_us"), 810),
    ("share", e.get("capture_share"), 0.81), ("severity", g.get("severity"), "high"),
    ("startup", c["startup"], 960), ("host_launch", c["host_launch"], 10), ("other", c["other"], 10),
    ("no launch bound", "host_launch_bound" in f, False),
    ("bottleneck", v["bottleneck"], "unknown"), ("finding", v["finding"], "input_graph_capture"),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-06)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_graph_capture.json" "$PY5" || rc=1
if "$GPUDIAG" analyze --no-color "$GD_TEST_DATA/ok_graph_capture.json" | grep -q 'CUDA Graphs'; then
    echo "FAIL: a capture trace is told to use CUDA Graphs"; rc=1; else echo "capture advice: 1 passed, 0 failed"; fi
python3 - "$GD_TEST_DATA/ok_launch_bound.json" "$TMP/lb_capture.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["traceEvents"] += [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamBeginCapture", "pid": 1, "tid": 99, "ts": 10000, "dur": 0,
     "args": {"correlation": 9001}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamEndCapture", "pid": 1, "tid": 99, "ts": 10000, "dur": 1,
     "args": {"correlation": 9002}}]
json.dump(d, open(sys.argv[2], "w"))
EOF
PY6=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]
f = {x["id"]: x for x in d["findings"]}
h = f.get("host_launch_bound", {})
checks = [
    ("captures", h.get("evidence", {}).get("graph_captures"), 1), ("no capture finding", "input_graph_capture" in f, False),
    ("gain", h.get("est_gain"), 0.868), ("finding", v["finding"], "host_launch_bound"),
    ("no graph advice", "torch.cuda.graphs" in h.get("recommendation", "") or "CUDA Graphs" in v["summary"], False),
    ("says capture", "The trace captures CUDA graphs (1 stream capture)" in h.get("recommendation", ""), True),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-06)
EOF
)
check_both_readers "$TMP/lb_capture.json" "$PY6" || rc=1
exit $rc
