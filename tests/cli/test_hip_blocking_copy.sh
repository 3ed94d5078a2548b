#!/bin/sh
# hipMemcpyWithStream is a host-synchronous copy (HIP API reference: "akin to hipMemcpyAsync +
# hipStreamSynchronize"; PyTorch on ROCm issues it for .item()/.cpu()), and a blocking copy that
# is not host-to-device enters its stream's queue when the call starts (no host staging before
# the DMA). DEFINITIONS "Idle gaps and their causes", rules 0b and 1. Found on TraceLens' sglang
# Qwen3-8B decode trace (MI300): a 463 ms gap under one hipMemcpyWithStream, issued after a
# hipStreamWaitEvent, was called host_launch 98% with "torch.compile" advice.
# Values by hand (offsets from ts 1000, one step [0,1000], MI300X, stream 7):
# 1. tests/data/ok_hip_blocking_copy.json — a short blocking copy, then host work:
#    host: hipLaunchKernel [10,20] -> k1 [30,200]; hipMemcpyWithStream [100,210] -> DtoH
#          [200,205]; aten op [215,800]; hipLaunchKernel [805,815] -> k2 [820,1000]
#    gaps: [0,30] 30: k1 queued at 20 > 0, then 10 us (< 100) -> not queued; host -> host_launch
#          [205,820] 615: k2 queued at 815; the blocking copy [100,210] (a sync call: 1 in
#          sync_calls) runs at 205, but it blocked 110 us < 615/2 and the host then spent 585 us
#          in the aten op (rule 1, "A short sync") -> host_launch
#          (until that rule: sync, and sync_stall 0.615 led; before hipMemcpyWithStream was a
#          sync call: host_launch too)
#    Host (runtime + CPU Exec while no kernel runs): 10 + (5 of the copy call + 585 aten + 10
#    launch) = 0.61 -> host_overhead 0.61 leads (host_launch); no sync_stall.
# 2. tests/data/ok_hip_copy_waits.json — the decode trace's shape:
#    host: hipLaunchKernel [10,20] -> k1 [30,200]; hipStreamWaitEvent [90,95];
#          hipMemcpyWithStream [100,900] -> DtoH [890,895]; hipLaunchKernel [905,915] -> k2
#          [920,1000]
#    gaps: [0,30] 30 -> host_launch; [200,890] 690: the DtoH copy was queued at 100 <= 200 ->
#          stream_wait, and the hipStreamWaitEvent (90) lies between k1's launch (10) and the
#          copy's (100) -> event 690; [895,920] 25: k2 queued at 915 > 895, the copy call runs
#          at 895 -> sync 25.   stream_wait est_gain 0.69 leads (synchronization).
set -eu
GD_TMP_TAG=hipcopy
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
PY1=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); i = d["idle"]; c = i["by_cause_us"]
f = {x["id"]: x for x in d["findings"]}
checks = [
    ("gaps", [(g["start_us"] - 1000, g["duration_us"], g["cause"]) for g in i["gaps"]],
     [(0, 30, "host_launch"), (205, 615, "host_launch")]),
    ("sync", c["sync"], 0), ("host_launch", c["host_launch"], 645), ("sync calls", i["sync_calls"], 1),
    ("host gain", f["host_overhead"]["est_gain"], 0.61), ("no sync_stall", "sync_stall" in f, False),
    ("bottleneck", d["verdict"]["bottleneck"], "host_launch"), ("finding", d["verdict"]["finding"], "host_overhead"),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF2
)
PY2=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); i = d["idle"]; c = i["by_cause_us"]
f = {x["id"]: x for x in d["findings"]}
checks = [
    ("gaps", [(g["start_us"] - 1000, g["duration_us"], g["cause"]) for g in i["gaps"]],
     [(0, 30, "host_launch"), (200, 690, "stream_wait"), (895, 25, "sync")]),
    ("event", i["stream_wait_event_us"], 690), ("graph", i["stream_wait_graph_us"], 0),
    ("sw gain", f["stream_wait"]["est_gain"], 0.69),
    ("no host finding", "host_launch_bound" in f or "host_overhead" in f, False),
    ("bottleneck", d["verdict"]["bottleneck"], "synchronization"), ("finding", d["verdict"]["finding"], "stream_wait"),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF2
)
rc=0
check_both_readers "$GD_TEST_DATA/ok_hip_blocking_copy.json" "$PY1" || rc=1
check_both_readers "$GD_TEST_DATA/ok_hip_copy_waits.json" "$PY2" || rc=1
exit $rc
