#!/bin/sh
# Start-up DataLoader time (docs/DEFINITIONS.md "Start-up in the window"): the DataLoader role
# time inside start-up idle is left out of dataloader_stall's numerator, as start-up is left out
# of its denominator (the steady-state step).  A trace recorded from the process start: the first
# enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__ waits for the worker spawn.
# Input built here (Kineto JSON, us, one thread), by hand:
#   ProfilerStep#0 [1000, 251000): __next__ [1000, 191000) (spawn + first batch, 190 ms);
#     cudaLaunchKernel (191000, 10) -> kernel [191020, 251000).
#   ProfilerStep#1..3, s = 251000 + 100000 (k - 1), 100 ms each: __next__ [s, s + 40000);
#     cudaLaunchKernel (s + 40000, 10) -> kernel [s + 40020, s + 100000).
#   Steps 550 ms, 4 steps.  DataLoader role 190000 + 3 x 40000 = 310000 (77500 per step),
#   share 310000 / 550000 = 0.563636 (breakdown, TBP: unchanged).
#   Gaps: [1000, 191020) 190020, the lead-in, >= 100 ms and >= half the 250 ms step: startup;
#   [s, s + 40020) 40020 x 3, the host in __next__: dataloader 120060.
#   Start-up share 190020 / 550000 = 0.345491.
#   Before: dataloader_stall 0.563636 / (1 - 0.345491) = 0.861158 (the start-up call in the
#   numerator, the steady step as the denominator).
#   Now: the role inside start-up gaps is [1000, 191000) = 190000 (47500 per step):
#   (310000 - 190000) / (550000 - 190020) = 120000 / 359980 = 0.333352.
# Case "plain" (an ordinary first call: step #0 like the others, 4 x 100 ms): no start-up,
#   share 160000 / 400000 = 0.40 before and after, no dataloader_startup_us_per_step.
# Real traces (the rule must not move them): the shared resnet50_v100 traces start at
#   ProfilerStep#5 (5 iterations ran before), first __next__ 4.331 ms (num_workers=4) and
#   68.694 ms (num_workers=0), no start-up gap.  Derived with python3 over the JSON: per
#   ProfilerStep#N host range, the __next__ time not covered by a kernel, memcpy, memset or
#   runtime call, summed over the 6 steps / their 838152 us and 1048976 us:
#   num_workers_4 0.0085 (0.0042 from the second step on), num_workers_0 0.3390 (0.3286).
#   gpudiag's breakdown uses device-side step bounds, so 0.01 tolerance; startup 0 in both.
set -eu
GD_TMP_TAG=dlstart
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
make_case() { # NAME spawn|plain
    python3 - "$TMP/$1.json" "$2" <<'EOF2'
import json, sys
NX = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"
K = "volta_sgemm_128x64_nn"
ev = []
c = [0]
def step(n, s, dl, dur):
    c[0] += 1
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % n, "pid": 1, "tid": 1, "ts": s, "dur": dur})
    ev.append({"ph": "X", "cat": "cpu_op", "name": NX, "pid": 1, "tid": 1, "ts": s, "dur": dl})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": s + dl, "dur": 10,
               "args": {"correlation": c[0]}})
    ev.append({"ph": "X", "cat": "kernel", "name": K, "pid": 0, "tid": 7, "ts": s + dl + 20, "dur": dur - dl - 20,
               "args": {"device": 0, "stream": 7, "correlation": c[0]}})
if sys.argv[2] == "spawn":
    step(0, 1000, 190000, 250000)
    s = 251000
else:
    step(0, 1000, 40000, 100000)
    s = 101000
for n in (1, 2, 3):
    step(n, s, 40000, 100000)
    s += 100000
d = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Tesla V100-SXM2-32GB", "computeMajor": 7,
     "computeMinor": 0, "numSms": 80}], "traceEvents": ev}
json.dump(d, open(sys.argv[1], "w"), indent=1)
EOF2
}
PY=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1]))
c = d["idle"]["by_cause_us"]
f = [x for x in d["findings"] if x["id"] == "dataloader_stall"]
e = f[0]["evidence"] if f else {}
share = d["breakdown"]["share"]["dataloader"]
if os.environ["CASE"] == "spawn":
    checks = [("breakdown dataloader share (TBP)", share, 310000 / 550000),
              ("startup idle", c["startup"], 190020), ("dataloader idle", c["dataloader"], 120060),
              ("dataloader_stall share", e.get("dataloader_share"), 120000 / 359980),
              ("dataloader_us_per_step (role)", e.get("dataloader_us_per_step"), 77500),
              ("dataloader_startup_us_per_step", e.get("dataloader_startup_us_per_step"), 47500)]
else:
    checks = [("breakdown dataloader share (TBP)", share, 0.40), ("startup idle", c["startup"], 0),
              ("dataloader_stall share", e.get("dataloader_share"), 0.40),
              ("dataloader_startup_us_per_step", e.get("dataloader_startup_us_per_step"), None)]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, os.environ["CASE"] + " " + sys.argv[2], 1e-6)
EOF2
)
rc=0
for k in spawn plain; do
    make_case "$k" "$k"
    echo "case $k"
    CASE=$k check_both_readers "$TMP/$k.json" "$PY" || rc=1
done
# the shared traces: the first DataLoader call is an ordinary one, nothing moves
for w in 4:0.0085 0:0.3390; do
    f="$GD_SHARED/data/traces/resnet50_v100_num_workers_${w%%:*}.pt.trace.json.gz"
    [ -f "$f" ] || { echo "skip: $f not found"; continue; }
    "$GPUDIAG" analyze --json "$f" > "$TMP/real.json" || { echo "FAIL: exit $? on $f"; rc=1; continue; }
    python3 - "$TMP/real.json" "${w%%:*}" "${w#*:}" <<'EOF2' || rc=1
import json, sys
d = json.load(open(sys.argv[1]))
share = d["breakdown"]["share"]["dataloader"]
f = [x for x in d["findings"] if x["id"] == "dataloader_stall"]
bad = []
if abs(share - float(sys.argv[3])) > 0.01:
    bad.append("breakdown dataloader share %.4f, derived %s" % (share, sys.argv[3]))
if d["idle"]["by_cause_us"]["startup"] != 0:
    bad.append("startup idle %s, expected 0" % d["idle"]["by_cause_us"]["startup"])
if sys.argv[2] == "4" and f:
    bad.append("dataloader_stall fires (%.4f) with 4 workers" % f[0]["evidence"]["dataloader_share"])
if sys.argv[2] == "0":
    if not f:
        bad.append("no dataloader_stall with 0 workers")
    elif abs(f[0]["evidence"]["dataloader_share"] - share) > 1e-9 or "dataloader_startup_us_per_step" in f[0]["evidence"]:
        bad.append("dataloader_stall %s moved from the breakdown share %.4f" % (f[0]["evidence"], share))
print(("FAIL num_workers_%s: " % sys.argv[2] + "; ".join(bad)) if bad else "ok num_workers_%s (%.4f)" % (sys.argv[2], share))
sys.exit(1 if bad else 0)
EOF2
done
exit $rc
