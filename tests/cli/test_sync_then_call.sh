#!/bin/sh
# A sync call that returns a few us into a gap the host then spends in long runtime/driver calls
# (allocation, event creation, module loading) does not own the gap (DEFINITIONS "Idle gaps and
# their causes", rule 1, GD_LONG_CALL_US = 100). A reviewer found kineto's tb_plugin sample
# resnet50_autograd_api_num_workers_0: a 22 us cudaMemcpy returned 4 us into an 872 ms gap spent
# in a 720 ms cudaEventCreateWithFlags; the gap was "sync" and the verdict "synchronization".
# Inputs: tests/data/ok_sync_then_dataloader.json with its DataLoader op replaced by runtime calls
# (one step [0,1000] at offset ts 1000):
#   host: cudaLaunchKernel [-20,-10] -> k1 [0,100]; cudaMemcpy (sync) [50,103] -> copy [100,101];
#         CALLS (below); cudaLaunchKernel [785,795] -> k2 [800,1000]
#   gap [101,800] = 699 us; the sync runs at 101 and returns at 103 (2 us, < half of the gap);
#   half the gap = 349.5 us.
#   long:   cudaEventCreateWithFlags [110,780] 670 us >= 349.5  -> host_launch 699, sync 0
#   two:    cudaMalloc [110,310] + cudaFree [320,520], 200 + 200 = 400 >= 349.5 -> host_launch 699
#           (one step, the allocator's calls in progress for 400 of the 699 us idle: allocator_churn
#           leads, DEFINITIONS "Allocator churn", one window or one step; the verdict is not sync_stall)
#   short:  cudaEventCreateWithFlags [110,410] 300 < 349.5 -> not this exception; but the sync
#           blocked 53 us < 349.5 in all ("A short sync", rule 1) -> host_launch 699
#   small:  50 launches of 9 us each [110 + 13i, +9) 450 us, but each < 100 us -> not this
#           exception; a short sync -> host_launch 699
#           (their kernels are not in the trace: the launches are host calls only)
#   short_long / small_long: the same with a sync that blocked long (k1 [-400,100] launched at
#           [-420,-410], cudaMemcpy [-350,103], 453 us >= 349.5: the host was ahead of the GPU)
#           -> sync 699 (the calls under the bars explain no wait)
set -eu
GD_TMP_TAG=synccall
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
make_case() { # NAME CALLS_JSON [long: the sync blocks 453 us]
    python3 - "$GD_TEST_DATA/ok_sync_then_dataloader.json" "$TMP/$1.json" "$2" "${3:-}" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
ev = [e for e in d["traceEvents"] if not e["name"].startswith("enumerate(DataLoader)")]
if sys.argv[4] == "long":
    for e in ev:
        corr = e.get("args", {}).get("correlation")
        if corr == 1:
            e["ts"], e["dur"] = (600, 500) if e["cat"] == "kernel" else (580, 10)
        elif corr == 2 and e["cat"] == "cuda_runtime":
            e["ts"], e["dur"] = 650, 453
for name, s, dur in json.loads(sys.argv[3]):
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1, "ts": 1000 + s, "dur": dur})
d["traceEvents"] = ev
json.dump(d, open(sys.argv[2], "w"), indent=1)
EOF2
}
PY=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); c = d["idle"]["by_cause_us"]
want = os.environ["WANT"]
gaps = [(g["start_us"] - 1000, g["duration_us"], g["cause"]) for g in d["idle"]["gaps"]]
checks = [("gaps", gaps, [(101, 699, want)]), ("sync", c["sync"], 699 if want == "sync" else 0),
          ("host_launch", c["host_launch"], 699 if want == "host_launch" else 0)]
if want == "host_launch":
    checks.append(("verdict not sync_stall", d["verdict"]["finding"] != "sync_stall", True))
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF2
)
rc=0
make_case long '[["cudaEventCreateWithFlags", 110, 670]]'
make_case two '[["cudaMalloc", 110, 200], ["cudaFree", 320, 200]]'
make_case short '[["cudaEventCreateWithFlags", 110, 300]]'
SMALL=$(python3 -c 'import json; print(json.dumps([["cudaLaunchKernel", 110 + 13 * i, 9] for i in range(50)]))')
make_case small "$SMALL"
make_case short_long '[["cudaEventCreateWithFlags", 110, 300]]' long
make_case small_long "$SMALL" long
for c in long:host_launch two:host_launch short:host_launch small:host_launch short_long:sync small_long:sync; do
    echo "case ${c%%:*}"
    WANT=${c#*:} check_both_readers "$TMP/${c%%:*}.json" "$PY" || rc=1
done
exit $rc
