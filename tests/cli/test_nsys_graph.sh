#!/bin/sh
# Nsight Systems exports made without --cuda-graph-trace=node (issue 19 class 3, Nsight side;
# GindaChen/nsys-ai#236): each graph launch is one CUPTI_ACTIVITY_KIND_GRAPH_TRACE row, no
# kernels.  docs/DEFINITIONS.md "Nsight Systems exports", graph rows.  The export is built here
# with the sqlite3 CLI (the schema of nsys 2024-2025 exports, the columns gpudiag reads);
# values derived by hand:
#   steps (NVTX ProfilerStep#1, #2): [1.0, 11.0] ms and [11.0, 21.0] ms, stream 7, device 0;
#   each step: cudaLaunchKernel -> a 2 ms kernel (1.2-3.2 / 11.2-13.2 ms), then cudaGraphLaunch
#   -> one graph row of 6 ms (3.5-9.5 / 13.5-19.5 ms, graphExecId 4).
#   graph_execs 2, graph_exec_time_us 12000; kernels 2, kernel_time_us 4000 (the graph rows are
#   no kernels of their own); GPU busy 2+6+2+6 = 16 of 20 ms: utilization 0.8 (main: 4/20 = 0.2);
#   breakdown kernel 8000 us per step of 10000; both launches joined: graph_launches 2, none
#   without GPU ops, utilization not a lower bound; finding input_graph_no_node_trace.
#   Node-traced variant: the second launch also has its two kernels (graphNodeId set, same
#   correlation id): its graph row is not read (the kernels are): graph_execs 1, 6000 us.
set -eu
GD_TMP_TAG=nsys_graph
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
if ! command -v sqlite3 >/dev/null 2>&1; then
    echo "skip: sqlite3 (the command-line tool) not found"
    exit 77
fi
rc=0
G="$TMP/graph.sqlite"
sqlite3 "$G" <<'SQL'
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'cudaGraphLaunch_v10000'),(3,'ampere_sgemm_128x64_tn'),
 (7,'ProfilerStep#1'),(8,'ProfilerStep#2'),(9,'void at::native::vectorized_elementwise_kernel<4>');
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION','2024.5.1.113');
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER, name TEXT, totalMemory INTEGER, smCount INTEGER,
 computeMajor INTEGER, computeMinor INTEGER, threadsPerWarp INTEGER, maxWarpsPerSm INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (0,0,'NVIDIA A100-SXM4-80GB',85899345920,108,8,0,32,64);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
 globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
 demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, gridX INTEGER NOT NULL,
 gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
 graphNodeId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
 graphId INTEGER NOT NULL, graphExecId INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
 category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER,
 jsonText TEXT);
CREATE TEMP VIEW ids AS SELECT (1 << 48) | (100 << 24) AS pid, ((1 << 48) | (100 << 24)) + 100 AS tid;
INSERT INTO NVTX_EVENTS SELECT 1000000, 11000000, 59, NULL, NULL, NULL, NULL, tid, NULL, 7, 0, NULL FROM ids;
INSERT INTO NVTX_EVENTS SELECT 11000000, 21000000, 59, NULL, NULL, NULL, NULL, tid, NULL, 8, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1100000, 1110000, 1, tid, 1, 1, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1200000, 3200000, 0, 1, NULL, 7, 1, pid, 3, 3, NULL, 216, 1, 1, 128, 1, 1, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 3300000, 3320000, 1, tid, 2, 2, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE SELECT 3500000, 9500000, 0, 1, NULL, 7, 2, pid, 3, 4 FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 11100000, 11110000, 1, tid, 3, 1, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 11200000, 13200000, 0, 1, NULL, 7, 3, pid, 3, 3, NULL, 216, 1, 1, 128, 1, 1, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 13300000, 13320000, 1, tid, 4, 2, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE SELECT 13500000, 19500000, 0, 1, NULL, 7, 4, pid, 3, 4 FROM ids;
SQL
"$GPUDIAG" analyze --json "$G" > "$TMP/graph.json"
python3 - "$TMP/graph.json" <<'EOF' || rc=1
import json, os, sys
d = json.load(open(sys.argv[1]))
n = d["inputs"][0]["nsys"]
s = d["summary"]
f = {x["id"]: x for x in d["findings"]}
g = f.get("input_graph_no_node_trace", {})
checks = [
    ("nsys.graph_execs", n["graph_execs"], 2),
    ("nsys.graph_exec_time_us", n["graph_exec_time_us"], 12000),
    ("nsys.kernels", n["kernels"], 2),
    ("kernel_count", s["kernel_count"], 2),
    ("kernel_time_us", s["kernel_time_us"], 4000),
    ("gpu_utilization", s["gpu_utilization"], 0.8),
    ("steps", [(x["start_us"], x["end_us"]) for x in d["steps"]], [(1000, 11000), (11000, 21000)]),
    ("kernel role per step", [x["breakdown_us"]["kernel"] for x in d["steps"]], [8000, 8000]),
    ("graph_launches", s.get("graph_launches"), 2),
    ("graph_launches_without_gpu_ops", s.get("graph_launches_without_gpu_ops"), 0),
    ("not a lower bound", s.get("gpu_utilization_lower_bound"), False),
    ("gpu_ops_unlinked", s.get("gpu_ops_unlinked"), 0),
    ("finding", g.get("severity"), "medium"),
    ("ev graph_execs", g.get("evidence", {}).get("graph_execs"), 2),
    ("ev graph_exec_time_us", g.get("evidence", {}).get("graph_exec_time_us"), 12000),
    ("advice", "--cuda-graph-trace=node" in g.get("recommendation", ""), True),
    ("kernel table without graphs", all("CUDA graph" not in k["name"] for k in d["kernels"]["top"]), True),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, "graph rows", 1e-06)
EOF
"$GPUDIAG" analyze --no-color "$G" > "$TMP/graph.txt"
grep -q '2 CUDA graph executions (12000.0 us of GPU time) were recorded whole, without their' "$TMP/graph.txt" ||
  { echo "FAIL text: input_graph_no_node_trace"; rc=1; }

# node tracing for the second launch: its kernels are read, its graph row is not
cp "$G" "$TMP/node.sqlite"
sqlite3 "$TMP/node.sqlite" <<'SQL'
CREATE TEMP VIEW ids AS SELECT (1 << 48) | (100 << 24) AS pid;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 13500000, 16500000, 0, 1, NULL, 7, 4, pid, 9, 9, NULL, 216, 1, 1, 128, 1, 1, 11 FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 16500000, 19500000, 0, 1, NULL, 7, 4, pid, 9, 9, NULL, 216, 1, 1, 128, 1, 1, 12 FROM ids;
SQL
"$GPUDIAG" analyze --json "$TMP/node.sqlite" > "$TMP/node.json"
python3 - "$TMP/node.json" <<'EOF' || rc=1
import json, os, sys
d = json.load(open(sys.argv[1]))
n = d["inputs"][0]["nsys"]
checks = [
    ("nsys.graph_execs", n["graph_execs"], 1),
    ("nsys.graph_exec_time_us", n["graph_exec_time_us"], 6000),
    ("kernel_count", d["summary"]["kernel_count"], 4),
    ("kernel_time_us", d["summary"]["kernel_time_us"], 10000),
    ("gpu_utilization", d["summary"]["gpu_utilization"], 0.8),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, "node-traced second launch", 1e-06)
EOF
[ "$rc" -eq 0 ] && echo "test_nsys_graph: all passed"
exit $rc
