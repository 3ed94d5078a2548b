#!/bin/sh
# test_monlog_busy_alone.sh — GPU-Util alone names no cause for steady-but-moderate compute, and a
# mostly idle GPU gets no estimated gain (DEFINITIONS "Busy time alone: an idle share, not a cause",
# "A mostly idle GPU has no gain"). Inputs are built here; expected values derived by hand:
#
# steady.csv: index and utilization.gpu only (`nvidia-smi --query-gpu=index,utilization.gpu --format=csv`), 50 55 60 45 55 65
#   50 60 55 45 repeated 4 times (40 samples, none idle, so none trimmed). Sorted per 10: 45 45 50 50
#   55 55 55 60 60 65 -> median 55 %, p10 45 %, no sample under 30 % (low share 0 < 0.10), nothing
#   0.20 below the median (no dips) -> rule 7 (median >= 0.30, steady) -> host_launch, GPU-Util only,
#   so the verdict says no kernel runs about 100 - 55 = 45 % of the time and names no cause (no
#   "kernels too small or launch-bound"), and points at SM active / a trace.
#   low_gpu_utilization: median 0.55 < 0.70 -> fires, low (>= 0.50); mean 540/10 = 54 % -> gain
#   1 - 0.54 / 0.70 = 0.2286 (not mostly idle: stays).
# idle.csv: utilization.gpu 5 0 0 0 12 0 0 3 0 0 repeated 4 times, then 8 (41 samples; first and
#   last non-zero, so no warm-up or tear-down trimmed): 28 zeros -> median 0, max 12 % (>= 10 %: in
#   use) -> mostly idle (rule 1b), verdict unknown "mostly idle". Mean (4 x 20 + 8) / 41 = 88/41 =
#   2.146 % -> the old gain 1 - 0.02146/0.70 = 0.969; now est_gain null, severity high kept (median
#   < 0.30), title says "mostly idle" with median 0 % and bursts up to 12 %.
GD_TMP_TAG=busyalone
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
fail=0
ok() { :; }
nok() { echo "FAIL: $*"; fail=$((fail + 1)); }

python3 - "$TMP" <<'PY'
import sys
d = sys.argv[1]
with open(d + "/steady.csv", "w") as f:
    f.write("index, utilization.gpu [%]\n")
    for _ in range(4):
        for v in (50, 55, 60, 45, 55, 65, 50, 60, 55, 45):
            f.write("0, %d %%\n" % v)
with open(d + "/idle.csv", "w") as f:
    f.write("index, utilization.gpu [%]\n")
    for _ in range(4):
        for v in (5, 0, 0, 0, 12, 0, 0, 3, 0, 0):
            f.write("0, %d %%\n" % v)
    f.write("0, 8 %\n")
PY

"$GPUDIAG" analyze --json "$TMP/steady.csv" > "$TMP/steady.json" 2> "$TMP/err" || nok "steady: exit $? $(cat "$TMP/err")"
if python3 - "$TMP/steady.json" <<'PY'; then ok; else nok "steady GPU-Util only: idle share, no cause named"; fi
import json, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]; s = v["summary"]
assert v["bottleneck"] == "host_launch", v
assert "kernels too small" not in s and "launch-bound" not in s, s
assert "no kernel runs about 45 % of the time" in s, s
assert "median 55 %" in s and "cannot tell launch pacing from input-pipeline stalls" in s, s
assert "SM active" in s and "torch.profiler" in s, s
f = [x for x in d["findings"] if x["id"] == "low_gpu_utilization"][0]
assert f["severity"] == "low" and abs(f["est_gain"] - (1 - 0.54 / 0.70)) < 1e-3, f
PY
"$GPUDIAG" analyze "$TMP/steady.csv" > "$TMP/steady.txt" 2>&1 || nok "steady text: exit $?"
grep -q "launch-bound" "$TMP/steady.txt" && nok "steady text report names launch-bound: $(grep launch-bound "$TMP/steady.txt")"

"$GPUDIAG" analyze --json "$TMP/idle.csv" > "$TMP/idle.json" 2> "$TMP/err" || nok "idle: exit $? $(cat "$TMP/err")"
if python3 - "$TMP/idle.json" <<'PY'; then ok; else nok "mostly idle: no gain, title says mostly idle"; fi
import json, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]; s = v["summary"]
assert v["bottleneck"] == "unknown" and "mostly idle" in s, v
f = [x for x in d["findings"] if x["id"] == "low_gpu_utilization"][0]
assert f["est_gain"] is None, f
assert f["severity"] == "high", f
t = f["title"]
assert "mostly idle" in t and "median 0 %" in t and "bursts up to 12 %" in t and "no gain estimated" in t, t
assert abs(f["evidence"]["mean"] - 88 / 41 / 100) < 1e-4, f["evidence"]
PY
# --fail-on reads severity only: the high finding still fails the run
"$GPUDIAG" analyze --fail-on high "$TMP/idle.csv" > /dev/null 2>&1
[ $? -eq 1 ] || nok "mostly idle: --fail-on high should exit 1"
"$GPUDIAG" analyze "$TMP/idle.csv" > "$TMP/idle.txt" 2>&1
grep -q "est. gain 9" "$TMP/idle.txt" && nok "mostly idle text report promises a gain: $(grep 'est. gain' "$TMP/idle.txt")"

# idle_mem.csv: idle.csv's utilization with 4096 of 81920 MiB used (5 %, under 85 %: memory_headroom
#   fires, low). Unestimated findings rank by severity first (FINDINGS "Ranking"): the high
#   low_gpu_utilization before the low memory_headroom (cause-first ranking put the low one first).
python3 - "$TMP" <<'PY'
import sys
d = sys.argv[1]
with open(d + "/idle_mem.csv", "w") as f:
    f.write("index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n")
    for v in [5, 0, 0, 0, 12, 0, 0, 3, 0, 0] * 4 + [8]:
        f.write("0, %d %%, 4096 MiB, 81920 MiB\n" % v)
PY
"$GPUDIAG" analyze --json "$TMP/idle_mem.csv" > "$TMP/idle_mem.json" 2> "$TMP/err" || nok "idle_mem: exit $? $(cat "$TMP/err")"
if python3 - "$TMP/idle_mem.json" <<'PY'; then ok; else nok "mostly idle with memory: high low_gpu_utilization ranks first"; fi
import json, sys
d = json.load(open(sys.argv[1]))
ids = [x["id"] for x in d["findings"]]
assert ids[:2] == ["low_gpu_utilization", "memory_headroom"], ids
assert d["findings"][0]["est_gain"] is None and d["findings"][1]["severity"] == "low", d["findings"][:2]
PY

# steady_mem.csv: steady.csv's utilization with 8192 of 81920 MiB used (10 % < 85 %): memory_headroom
#   fires on the host_launch GPU from GPU-Util alone; its advice keeps "raise the micro-batch" but
#   says the gaps' cause is not named (evidence cause_unnamed 1, data_starved 0).
python3 - "$TMP" <<'PY'
import sys
d = sys.argv[1]
with open(d + "/steady_mem.csv", "w") as f:
    f.write("index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n")
    for v in [50, 55, 60, 45, 55, 65, 50, 60, 55, 45] * 4:
        f.write("0, %d %%, 8192 MiB, 81920 MiB\n" % v)
PY
"$GPUDIAG" analyze --json "$TMP/steady_mem.csv" > "$TMP/steady_mem.json" 2> "$TMP/err" || nok "steady_mem: exit $? $(cat "$TMP/err")"
if python3 - "$TMP/steady_mem.json" <<'PY'; then ok; else nok "steady with memory: memory_headroom hedged"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"]["bottleneck"] == "host_launch", d["verdict"]
f = [x for x in d["findings"] if x["id"] == "memory_headroom"][0]
assert f["evidence"]["cause_unnamed"] == 1 and f["evidence"]["data_starved"] == 0, f["evidence"]
r = f["recommendation"]
assert "not an input pipeline that is behind" in r and "raise the micro-batch" in r.lower(), r
PY

if [ "$fail" -eq 0 ]; then echo "all passed"; exit 0; fi
echo "$fail failed"; exit 1
