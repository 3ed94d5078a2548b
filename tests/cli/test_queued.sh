#!/bin/sh
# test_queued.sh — queued work is not the CPU's fault (issue 19 class 1; DEFINITIONS "Idle
# gaps and their causes", rule 0b). tests/data/ok_queued_work.json, values derived by hand
# (times are offsets from ts 1000): one step [0,1000] on device 0.
#   host: cudaLaunchKernel [-10,-5] -> k0; cudaGraphLaunch [10,40] (corr 10) -> g1 g2 g3;
#         cudaStreamSynchronize [45,305]; cudaLaunchKernel [340,350] -> k4;
#         cudaStreamWaitEvent [370,375]; cudaLaunchKernel [380,390] -> k5 (stream 8);
#         cudaLaunchKernel [392,398] -> k6 (stream 8); aten::foo [395,700];
#         cudaGraphLaunch [650,660] (corr 14) -> g4; aten::bar [800,870];
#         cudaLaunchKernel [850,860] -> k7
#   GPU:  k0 [0,50] g1 [50,100] g2 [110,200] g3 [250,300] k4 [360,400] k5 [500,600]
#         k6 [610,700] g4 [760,800] k7 [880,1000]
#   gaps: [100,110]  10 g1 -> g2, one replay of graph launch 10        -> kernel_wait
#         [200,250]  50 g2 -> g3, one replay (>= 30 us, still inside it) -> kernel_wait
#                       (before this rule: sync, the sync call was running — HTA#290)
#         [300,360]  60 k4's launch ended at 350 > 300: not queued; the sync [45,305]
#                       was running at 300                             -> sync
#         [400,500] 100 k5's launch ended at 390 <= 400: queued, >= 30 us, not a graph;
#                       cudaStreamWaitEvent at 370 lies between k4's launch (340) and
#                       k5's (380)                                     -> stream_wait, event
#         [600,610]  10 k6 launched [392,398]: queued, < 30 us        -> kernel_wait
#         [700,760]  60 g4's graph launch ended at 660 <= 700, k6 is not of that replay
#                                                                      -> stream_wait, graph
#         [800,880]  80 k7 launched at 850 > 800: empty queue; aten::bar runs -> host_launch
#   by cause: kernel_wait 70, sync 60, stream_wait 160 (graph 60, event 100), host_launch 80;
#   7 gaps, 370 us. Breakdown: kernel 630, runtime 10+50+5+10+10 = 85, cpu_exec
#   100+10+60 = 170 -> host share 0.255; the host time inside the queued gaps (runtime or
#   CPU Exec: 10 + 50 + 100 + 10 + 0 = 170 us, 0.17) is not the host's fault:
#   0.255 - 0.17 = 0.085 < 0.15 -> no host_overhead (it was 0.255 before: the verdict
#   said host_launch). stream_wait: 160/1000 = 0.16 >= 0.05, medium; sync_stall
#   60/1000 = 0.06. Verdict synchronization on stream_wait, "mostly after
#   cudaStreamWaitEvent calls" (event 100 >= half of 160).
set -eu
GD_TMP_TAG=queued
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

PY=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); i = d["idle"]; c = i["by_cause_us"]
f = {x["id"]: x for x in d["findings"]}
sw = f.get("stream_wait", {})
checks = [
    ("gap_us", i["gap_us"], 370), ("gap_count", i["gap_count"], 7),
    ("gap causes", [(g["start_us"] - 1000, g["duration_us"], g["cause"]) for g in i["gaps"]],
     [(100, 10, "kernel_wait"), (200, 50, "kernel_wait"), (300, 60, "sync"), (400, 100, "stream_wait"),
      (600, 10, "kernel_wait"), (700, 60, "stream_wait"), (800, 80, "host_launch")]),
    ("kernel_wait", c["kernel_wait"], 70), ("stream_wait", c["stream_wait"], 160), ("sync", c["sync"], 60),
    ("host_launch", c["host_launch"], 80), ("other", c["other"], 0),
    ("graph", i["stream_wait_graph_us"], 60), ("event", i["stream_wait_event_us"], 100),
    ("stream_wait share", i["by_cause_share_of_step"]["stream_wait"], 0.16),
    ("runtime", d["breakdown"]["share"]["runtime"], 0.085), ("cpu_exec", d["breakdown"]["share"]["cpu_exec"], 0.17),
    ("ids", sorted(f), ["single_step", "stream_wait", "sync_stall"]),
    ("sw gain", sw.get("est_gain"), 0.16), ("sw severity", sw.get("severity"), "medium"),
    ("sw graph", sw.get("evidence", {}).get("graph_us_per_step"), 60),
    ("sw event", sw.get("evidence", {}).get("event_us_per_step"), 100),
    ("sync gain", f["sync_stall"]["est_gain"], 0.06),
    ("bottleneck", d["verdict"]["bottleneck"], "synchronization"), ("finding", d["verdict"]["finding"], "stream_wait"),
    ("event words", "mostly after cudaStreamWaitEvent calls" in d["verdict"]["summary"], True),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF
)
rc=0
check_both_readers "$GD_TEST_DATA/ok_queued_work.json" "$PY" || rc=1

# tests/data/ok_idle_causes.json (test_idle.sh): the gap [600,800] before k4, launched at
# [590,595], is stream_wait 200 with no graph launch and no cudaStreamWaitEvent call: nothing
# explains it -> stream_wait share 0.2 (high) with est_gain null; the host time inside it
# (aten::foo [600,800], 200 us = 0.2) leaves host_overhead: 0.43 - 0.2 = 0.23, which leads.
PY2=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); f = {x["id"]: x for x in d["findings"]}
sw = f.get("stream_wait", {})
checks = [
    ("sw gain", sw.get("est_gain", 1), None), ("sw severity", sw.get("severity"), "high"),
    ("sw share", sw.get("evidence", {}).get("stream_wait_share"), 0.2),
    ("host gain", f["host_overhead"]["est_gain"], 0.23),
    ("excluded", f["host_overhead"]["evidence"].get("queued_share_excluded"), 0.2),
    ("finding", d["verdict"]["finding"], "host_overhead"),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_idle_causes.json" "$PY2" || rc=1
exit $rc
