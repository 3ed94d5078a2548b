#!/bin/sh
# Python tracer on (DEFINITIONS "Time and events", Python tracer on; PyTorch's profiler docs: stack
# tracing adds overhead). A new user's b200_eager_trace (TraceLens) has 15,230 python_function
# events in an 86 ms window and got [high] host_launch 86% with no caveat.
# From tests/data/ok_launch_bound.json (two steps [10000,12000]: 2 ms; host_launch_bound 0.868,
# high; test_host_findings.sh), python_function events [10000+60i, +50] added on the host thread:
#   30 events -> 30 / 2 ms = 15 per ms >= 10: input_python_tracer, medium (a host finding is
#   there), evidence 30 / 15 / 2; host_launch_bound keeps 0.868 (python_function is no breakdown
#   role) and its advice ends with the upper-bound caveat.
#   19 events -> 9.5 per ms < 10: no note, no caveat.
set -eu
GD_TMP_TAG=pytracer
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
mk() {
    python3 - "$GD_TEST_DATA/ok_launch_bound.json" "$1" "$2" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
tid = next(e["tid"] for e in d["traceEvents"] if e.get("cat") == "cpu_op")
pid = next(e["pid"] for e in d["traceEvents"] if e.get("cat") == "cpu_op")
for i in range(int(sys.argv[3])):
    d["traceEvents"].append({"ph": "X", "cat": "python_function", "name": "model.py(12): forward",
                             "pid": pid, "tid": tid, "ts": 10000 + 60 * i, "dur": 50})
json.dump(d, open(sys.argv[2], "w"))
EOF2
}
mk "$TMP/dense.json" 30
mk "$TMP/sparse.json" 19
PY=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); f = {x["id"]: x for x in d["findings"]}
n = f.get("input_python_tracer", {"severity": None, "evidence": {}})
h = f.get("host_launch_bound", {})
checks = [
    ("severity", n["severity"], "medium"),
    ("events", n["evidence"].get("python_function_events"), 30),
    ("per ms", n["evidence"].get("events_per_ms"), 15),
    ("window", n["evidence"].get("window_ms"), 2),
    ("host gain", h.get("est_gain"), 0.868),
    ("caveat", h.get("recommendation", "").endswith("so this share is an upper bound; profile with "
     "with_stack=False to size it.)"), True),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF2
)
rc=0
check_both_readers "$TMP/dense.json" "$PY" || rc=1
"$GPUDIAG" analyze --json "$TMP/sparse.json" > "$TMP/sparse.out.json"
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); f = {x["id"]: x for x in d["findings"]}
sys.exit(0 if "input_python_tracer" not in f and "upper bound" not in f["host_launch_bound"]["recommendation"] else 1)
' "$TMP/sparse.out.json"; then echo "9.5 per ms: passed"; else echo "FAIL: 9.5 per ms"; rc=1; fi
exit $rc
