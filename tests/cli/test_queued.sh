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
#   said host_launch). stream_wait: 160/1000 = 0.16 >= 0.05, medium by its share, but one step
#   whose longest stream_wait gap holds 100 / 160 = 0.625 >= 0.5 of it (DEFINITIONS "Start-up in
#   the window", one-off gaps): one severity lower, low; sync_stall
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
    ("sw gain", sw.get("est_gain"), 0.16), ("sw severity", sw.get("severity"), "low"),
    ("sw one-off", (sw.get("evidence", {}).get("one_off_gap_us"), sw.get("evidence", {}).get("one_off_gap_share")),
     (100, 0.625)),
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
# explains it -> stream_wait share 0.2 (high, one step and that one gap is all of it: one
# severity lower, medium) with est_gain null; the host time inside it
# (aten::foo [600,800], 200 us = 0.2) and inside the sync gap [100,300] (the sync call's 10 us
# and the "## forward ##" annotation's 190, which the breakdown counts as CPU Exec: 0.2; the
# host waited for the GPU there, DEFINITIONS rule 1) leave host_overhead 0.43 - 0.2 - 0.2 =
# 0.03 < 0.15: no host finding; sync_stall (0.2) leads.
PY2=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); f = {x["id"]: x for x in d["findings"]}
sw = f.get("stream_wait", {})
checks = [
    ("sw gain", sw.get("est_gain", 1), None), ("sw severity", sw.get("severity"), "medium"),
    ("sw one-off", sw.get("evidence", {}).get("one_off_gap_share"), 1.0),
    ("sw share", sw.get("evidence", {}).get("stream_wait_share"), 0.2),
    ("no host finding", "host_overhead" in f or "host_launch_bound" in f, False),
    ("sync gain", f["sync_stall"]["est_gain"], 0.2),
    ("finding", d["verdict"]["finding"], "sync_stall"),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_idle_causes.json" "$PY2" || rc=1

# tests/data/ok_launch_delay.json: step [1000,2600]; k1 [1020,1520] k2 [1525,2025] (stream 7),
# k5 [2030,2100] (stream 8), k3 [2300,2400], k4 [2410,2500], launched at 1000, 1020, 1060,
# 1040, 2390 (10 us calls). [1520,1525] and [2025,2030]: the next op was launched long before,
# < 30 us -> kernel_wait; [2400,2410]: k4's call ended at 2400 -> kernel_wait (20 in all);
# [2100,2300]: k3 queued since 1050, 200 us, no graph, and k5 (the op before) was launched
# after k3, so no event wait can be placed between them -> stream_wait 200, unexplained
# (est_gain null). Idle with no visible cause = other 100 + 200 = 300/1600 = 0.1875 < 0.20 and
# utilization 1260/1600 = 0.7875 -> compute, whose sentence names the 12.5% queued wait.
PY3=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); c = d["idle"]["by_cause_us"]; v = d["verdict"]
sw = {x["id"]: x for x in d["findings"]}.get("stream_wait", {})
checks = [
    ("kernel_wait", c["kernel_wait"], 20), ("stream_wait", c["stream_wait"], 200),
    ("utilization", d["summary"]["gpu_utilization"], 0.7875), ("sw gain", sw.get("est_gain", 1), None),
    ("bottleneck", v["bottleneck"], "compute"),
    ("summary", "for 12% of the step it sits idle with work already queued (stream_wait)" in v["summary"], True),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_launch_delay.json" "$PY3" || rc=1
exit $rc
