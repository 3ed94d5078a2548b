#!/bin/sh
# One-off gaps (DEFINITIONS "Start-up in the window", one-off gaps): in a window of one step a
# cause finding whose idle cause has one gap holding >= 50 % of its time drops one severity and
# says the estimate rests on that gap (a first call cannot be told from a per-step cost). A new
# user found cuda_event_sync ([high] host_launch_bound 75 % from one 2.81 ms gap in aten::empty
# at the start of its only 3.15 ms step) and TraceLens' SGLang decode ([high] stream_wait 98 %
# from one 463 ms gap) too confident.
# tests/data/ok_one_off_gap.json, by hand: one step [1000,10000]; aten::empty [1000,9000] with no
# GPU op; ten aten::add ops [9000+100i, 9100+100i], each launching a 20 us kernel at 9040+100i.
# Gaps, all host_launch (the host is in an op): the lead-in [1000,9040] 8040 us (< 100 ms: not
# start-up), nine of 80 us between kernels, the tail [9960,10000] 40 us: 8800 us. Longest share
# 8040 / 8800 = 0.913636 >= 0.5: host_overhead (host share (9000 - 200) / 9000 = 0.977778,
# high by its share) becomes medium with evidence one_off_gap_us 8040, one_off_gap_share
# 0.913636, and its title names the gap and aten::empty.
# The same step twice (ProfilerStep#2 shifted by 9000 us): two steps, the rule does not apply:
# high, no one_off evidence.
set -eu
GD_TMP_TAG=oneoff
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
PY=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); f = {x["id"]: x for x in d["findings"]}
h = f.get("host_overhead", {"severity": None, "evidence": {}, "title": ""})
checks = [
    ("host_launch idle", d["idle"]["by_cause_us"]["host_launch"], 8800),
    ("severity", h["severity"], "medium"),
    ("gap", h["evidence"].get("one_off_gap_us"), 8040),
    ("share", h["evidence"].get("one_off_gap_share"), 0.913636),
    ("host share", h["evidence"].get("host_share"), 0.977778),
    ("title", "the estimate rests on one gap of 8.04 ms (91% of this idle time, host in aten::empty)" in h["title"], True),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF2
)
rc=0
check_both_readers "$GD_TEST_DATA/ok_one_off_gap.json" "$PY" || rc=1
python3 - "$GD_TEST_DATA/ok_one_off_gap.json" "$TMP/two.json" <<'EOF2'
import json, sys, copy
d = json.load(open(sys.argv[1])); more = []
for e in d["traceEvents"]:
    e2 = copy.deepcopy(e); e2["ts"] += 9000
    if e2["name"] == "ProfilerStep#1": e2["name"] = "ProfilerStep#2"
    if "correlation" in e2.get("args", {}): e2["args"]["correlation"] += 100
    more.append(e2)
d["traceEvents"] += more
json.dump(d, open(sys.argv[2], "w"))
EOF2
"$GPUDIAG" analyze --json "$TMP/two.json" > "$TMP/two.out.json"
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); f = {x["id"]: x for x in d["findings"]}
h = f.get("host_overhead")
sys.exit(0 if h and h["severity"] == "high" and "one_off_gap_us" not in h["evidence"] and len(d["steps"]) == 2 else 1)
' "$TMP/two.out.json"; then echo "two steps: passed"; else echo "FAIL: two steps"; rc=1; fi
exit $rc
