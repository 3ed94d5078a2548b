#!/bin/sh
# Steps that do not tile their span (docs/DEFINITIONS.md "Steps" 6 and "Idle gaps and their
# causes": the idle shares divide by the step window = steps span ÷ steps), on
# tests/data/ok_steps_sparse.json, values derived by hand:
#   ProfilerStep#1 [1000,1100], #2 [2000,2100], #3 [3000,3100] (cpu_op, no runtime calls);
#   kernels on device 0 stream 7: [1000,1100] [1300,1700] [2500,2800] [3000,3100].
#   steps span [1000,3100] = 2100 us, 3 steps: step window 700 us; average step 100 us;
#   step coverage 100 / 700 = 0.142857 < 0.5 -> input_steps_sparse (medium).
#   gaps: [1100,1300] 200, [1700,2500] 800, [2800,3000] 200 = 1200 us in 3 gaps, no host
#   activity in any of them -> other 1200; per step 400 -> share 400 / 700 = 0.571429
#   (the average step as unit gave 400 / 100 = 4.0, i.e. 400 %).
#   GPU utilization 900 / 2100 = 0.428571 < 0.5 -> low_gpu_utilization; HTA idle share
#   1200 / 2100 = 0.571429. Text: "(57.1% of step time)" and "other 57.1%".
set -eu
GD_TMP_TAG=steps_sparse
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

PY=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); i = d["idle"]
f = {x["id"]: x for x in d["findings"]}
sp = f.get("input_steps_sparse", {})
e = sp.get("evidence", {})
checks = [
    ("gap_us", i["gap_us"], 1200), ("gap_count", i["gap_count"], 3),
    ("other us", i["by_cause_us"]["other"], 1200),
    ("other share", i["by_cause_share_of_step"]["other"], 0.571429),
    ("host_launch share", i["by_cause_share_of_step"]["host_launch"], 0),
    ("step_window_us", i["step_window_us"], 700),
    ("idle_share", i["idle_share"], 0.571429),
    ("avg_step_us", d["breakdown"]["avg_step_us"], 100),
    ("gpu_utilization", d["summary"]["gpu_utilization"], 0.428571),
    ("ids", sorted(f), ["input_steps_sparse", "low_gpu_utilization"]),
    ("sparse severity", sp.get("severity"), "medium"),
    ("ev step_coverage", e.get("step_coverage"), 0.142857),
    ("ev avg_step_us", e.get("avg_step_us"), 100),
    ("ev step_window_us", e.get("step_window_us"), 700),
    ("advice", "prof.step()" in sp.get("recommendation", ""), True),
    ("no share > 1", max(i["by_cause_share_of_step"].values()) <= 1, True),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF
)
rc=0
check_both_readers "$GD_TEST_DATA/ok_steps_sparse.json" "$PY" || rc=1

"$GPUDIAG" analyze --no-color "$GD_TEST_DATA/ok_steps_sparse.json" > "$TMP/sparse.txt"
grep -q 'in 3 gaps (57.1% of step time); by cause:$' "$TMP/sparse.txt" || { echo "FAIL text: idle gaps share"; rc=1; }
grep -q '^  other 57.1%$' "$TMP/sparse.txt" || { echo "FAIL text: other share"; rc=1; }
grep -q 'The steps cover only 14.3% of the time' "$TMP/sparse.txt" || { echo "FAIL text: input_steps_sparse"; rc=1; }

# a trace whose steps tile their span keeps the average step as the unit (ok_idle_causes:
# one step [1000,2000] = the span) and no input_steps_sparse
"$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_idle_causes.json" > "$TMP/tiled.json"
python3 - "$TMP/tiled.json" <<'EOF' || { echo "FAIL: tiled steps"; rc=1; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["idle"]["step_window_us"] == d["breakdown"]["avg_step_us"] == 1000, d["idle"]["step_window_us"]
assert "input_steps_sparse" not in {x["id"] for x in d["findings"]}
EOF
# two devices with the same four kernels (device 1 a copy of device 0): gaps 2400 us over the
#   two devices, share per device 2400 / 3 / 2 / 700 = 0.571429 (summed over devices: 1.142857)
python3 - "$GD_TEST_DATA/ok_steps_sparse.json" "$TMP/two_dev.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["traceEvents"] += [dict(e, pid=2, args=dict(e["args"], device=1))
                     for e in d["traceEvents"] if e["cat"] == "kernel"]
json.dump(d, open(sys.argv[2], "w"))
EOF
"$GPUDIAG" analyze --json "$TMP/two_dev.json" > "$TMP/two_dev.out.json"
python3 - "$TMP/two_dev.out.json" <<'EOF' || { echo "FAIL: two devices"; rc=1; }
import json, sys
i = json.load(open(sys.argv[1]))["idle"]
assert i["by_cause_us"]["other"] == 2400, i["by_cause_us"]
assert abs(i["by_cause_share_of_step"]["other"] - 0.571429) < 1e-5, i["by_cause_share_of_step"]
EOF
"$GPUDIAG" analyze --no-color "$TMP/two_dev.json" | grep -q 'in 6 gaps (57.1% of step time); by cause:$' ||
  { echo "FAIL text: two devices"; rc=1; }
exit $rc
