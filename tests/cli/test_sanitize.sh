#!/bin/sh
# Sanitising the timeline (docs/DEFINITIONS.md "Sanitising the timeline"; issue 19
# classes 4 and 5), on inputs built by hand, expected values derived by hand.
#
# 1. tests/data/warn_overrun_rocm.json (ROCm, AMD-AGI/TraceLens#669: a kernel's `dur`
#    runs far past the next kernel on its stream).  One device, stream 0:
#      step 1 [1000,1100]: G 1020 dur 300 (recorded end 1320), E 1060 dur 20
#      step 2 [1100,1200]: G 1120 dur 30,  E 1160 dur 20
#      step 3 [1200,1300]: G 1220 dur 55 (end 1275), E 1270 dur 20
#    Overruns: G@1020 ends 1320 > next start 1060 -> clipped to 40, 260 us removed;
#    G@1220 ends 1275 > 1270 -> clipped to 50, 5 us removed: ops 2, removed_us 265.
#    Kernels then: 40+20+30+20+50+20 = 180 us; steps 1..3 each 100 us (device ends
#    1080, 1180, 1290 all inside their host steps); utilization 180 / 300 = 0.6.
#    Without clipping step 1 would end at 1320 and steps 2 and 3 would be 0 us
#    ([1320,1320] each, TBP's rule).  removed 265 >= 1% of (180 + 265) -> medium.
# 2. tests/data/ok_step_device_tail.json: a long kernel genuinely runs past a whole step
#    on another stream (no overrun: each stream's ops are serial):
#      step 1 [1000,1100] launches K1 1020..1350 (stream 7)
#      step 2 [1100,1200] launches K2 1120..1150 (stream 8)
#      step 3 [1200,1400] launches K3 1360..1380 (stream 8)
#    TBP: step 1 ends 1350, step 2 = [1350,1350] (0 us), step 3 [1350,1400].
#    gpudiag: step 2 would be 0 us, so step 1 is cut at step 2's host start:
#    steps [1000,1100] [1100,1200] [1200,1400] = 100, 100, 200 us; steps_shortened 1.
# 3. Time outliers (rule 2), hand-edited copies of tests/data/ok_two_steps.json (whose
#    events other than the edited ones span 980..1230 us):
#    - warn_time_outlier_late.json: the reduce kernel at 1150 moved to 1000000001150
#      (10^12 us later).  The rest ends at 1230 (the GEMM 1140+90), so the gap is
#      1000000001150 - 1230 = 999999999920 us > 10 x 250 us and > 1 s: 1 outlier, its
#      `ts` value at byte 6435 of the file.  main gave step 2 10^12 us, utilization
#      1.8e-10 and verdict unknown.
#    - warn_time_clock_jump.json: the pre-step launch (980) and its kernel (990..1010)
#      one hour early (-3599999020, -3599999010): 2 outliers, the first `ts` at byte 604,
#      gap = 1000 (ProfilerStep#1, the rest's first start) - (-3599999010 + 20) =
#      3599999990 us.  main gave idle_share 1.
#    Each report must equal the report of ok_two_steps.json with the moved lines deleted
#    (steps, breakdown, summary, idle, verdict).  A kernel moved only 0.9 s later (gap
#    < 1 s, though > 10 x the span) is kept: no outlier.
set -eu
GD_TMP_TAG=sanitize
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
rc=0

PY=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
inp = d["inputs"][0]
f = {x["id"]: x for x in d["findings"]}
o = f.get("input_ops_overrun", {})
checks = [
    ("overruns.ops", inp["overruns"]["ops"], 2),
    ("overruns.removed_us", inp["overruns"]["removed_us"], 265),
    ("kernel_time_us", d["summary"]["kernel_time_us"], 180),
    ("steps", [s["duration_us"] for s in d["steps"]], [100, 100, 100]),
    ("step ends", [s["end_us"] for s in d["steps"]], [1100, 1200, 1300]),
    ("no 0 us step", min(s["duration_us"] for s in d["steps"]) > 0, True),
    ("gpu_utilization", d["summary"]["gpu_utilization"], 0.6),
    ("steps_shortened", d["breakdown"]["steps_shortened"], 0),
    ("finding", "input_ops_overrun" in f, True),
    ("severity", o.get("severity"), "medium"),
    ("ev clipped_ops", o.get("evidence", {}).get("clipped_ops"), 2),
    ("ev removed_us", o.get("evidence", {}).get("removed_us"), 265),
    ("kind", o.get("kind"), "input"),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-06)
EOF
)
check_both_readers "$GD_TEST_DATA/warn_overrun_rocm.json" "$PY" || rc=1

"$GPUDIAG" analyze --no-color "$GD_TEST_DATA/warn_overrun_rocm.json" > "$TMP/overrun.txt"
grep -q '2 GPU ops ran past the start of the next op on their stream; each was clipped there (265.0 us' \
  "$TMP/overrun.txt" || { echo "FAIL text: input_ops_overrun"; rc=1; }

PY2=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
checks = [
    ("steps", [(s["start_us"], s["end_us"]) for s in d["steps"]], [(1000, 1100), (1100, 1200), (1200, 1400)]),
    ("steps_shortened", d["breakdown"]["steps_shortened"], 1),
    ("overruns.ops", d["inputs"][0]["overruns"]["ops"], 0),
    ("no input_ops_overrun", "input_ops_overrun" in {x["id"] for x in d["findings"]}, False),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-06)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_step_device_tail.json" "$PY2" || rc=1

# the TBP oracle's --clip-overruns finds the same ops and time on the ROCm input
if [ -n "${GD_SRC:-}" ] || [ -f "$HERE/../oracle/tbp_oracle.py" ]; then
    python3 "$HERE/../oracle/tbp_oracle.py" "$GD_TEST_DATA/warn_overrun_rocm.json" --clip-overruns > "$TMP/oracle.json"
    python3 - "$TMP/oracle.json" <<'EOF' || { echo "FAIL: oracle overruns"; rc=1; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["overruns"] == {"ops": 2, "removed_us": 265}, d["overruns"]
assert d["kernel_total_us"] == 180, d["kernel_total_us"]
EOF
fi
for case in "warn_time_outlier_late.json 1000000001150 1 6435 999999999920" \
            "warn_time_clock_jump.json -35999990 2 604 3599999990"; do
    set -- $case
    f=$1; pat=$2; n=$3; at=$4; gap=$5
    grep -v -e "\"ts\": $pat" "$GD_TEST_DATA/$f" > "$TMP/removed.json"
    [ "$(($(wc -l < "$GD_TEST_DATA/$f") - $(wc -l < "$TMP/removed.json")))" -eq "$n" ] || { echo "FAIL: $f: $n lines to remove"; rc=1; }
    "$GPUDIAG" analyze --json "$TMP/removed.json" > "$TMP/removed.out.json"
    for mode in default yajl; do
        nosj=""; [ "$mode" = yajl ] && nosj=1
        GPUDIAG_NO_SIMDJSON="$nosj" "$GPUDIAG" analyze --json "$GD_TEST_DATA/$f" > "$TMP/outlier.json"
        python3 - "$TMP/outlier.json" "$TMP/removed.out.json" "$n" "$at" "$gap" "$f@$mode" <<'EOF' || rc=1
import json, os, sys
d = json.load(open(sys.argv[1])); ref = json.load(open(sys.argv[2]))
n, at, gap = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
o = d["inputs"][0]["time_outliers"]
f = {x["id"]: x for x in d["findings"]}
t = f.get("input_time_outliers", {})
checks = [
    ("time_outliers.events", o["events"], n),
    ("time_outliers.first_at_bytes", o["first_at_bytes"], at),
    ("time_outliers.gap_us", o["gap_us"], gap),
    ("finding", t.get("severity"), "medium"),
    ("ev events", t.get("evidence", {}).get("events"), n),
    ("ev first_at_bytes", t.get("evidence", {}).get("first_at_bytes"), at),
    ("title names the byte", ("byte %d" % at) in t.get("title", ""), True),
    ("steps as without them", d["steps"], ref["steps"]),
    ("breakdown as without them", d["breakdown"], ref["breakdown"]),
    ("summary as without them", d["summary"], ref["summary"]),
    ("idle as without them", d["idle"], ref["idle"]),
    ("verdict as without them", d["verdict"]["bottleneck"], ref["verdict"]["bottleneck"]),
    ("other findings as without them", sorted(set(f) - {"input_time_outliers"}), sorted(x["id"] for x in ref["findings"])),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[6], 1e-09)
EOF
    done
done
# the 1 s floor: the reduce kernel 0.9 s after the rest (gap 900000 + 1150 - 1230 us) stays
sed 's/"ts": 1000000001150,/"ts": 901150,/' "$GD_TEST_DATA/warn_time_outlier_late.json" > "$TMP/near.json"
"$GPUDIAG" analyze --json "$TMP/near.json" > "$TMP/near.out.json"
python3 - "$TMP/near.out.json" <<'EOF' || { echo "FAIL: 0.9 s gap is not an outlier"; rc=1; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["inputs"][0]["time_outliers"]["events"] == 0, d["inputs"][0]["time_outliers"]
assert d["summary"]["kernel_count"] == 5
assert "input_time_outliers" not in {x["id"] for x in d["findings"]}
EOF
# Many events (the reader keeps the latest/earliest starts by selection every 2048 events):
# 6000 kernels 10 us apart from ts 1000, one early outlier (an hour before them)
# written in the middle of the file and one late outlier (10^12 us on) near its end; the
# offsets of their ts values are found in the text here, the first of the two reported.
python3 - "$TMP/many.json" <<'EOF'
import json, sys
ev = []
for i in range(6000):
    ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1000 + 10 * i, "dur": 5,
               "args": {"device": 0, "stream": 7}})
ev.insert(3000, {"ph": "X", "cat": "kernel", "name": "early", "pid": 0, "tid": 8, "ts": -3599999000, "dur": 5,
                 "args": {"device": 0, "stream": 8}})
ev.insert(5990, {"ph": "X", "cat": "kernel", "name": "late", "pid": 0, "tid": 8, "ts": 1000000000000, "dur": 5,
                 "args": {"device": 0, "stream": 8}})
text = '{"traceEvents": [\n' + ",\n".join(json.dumps(e) for e in ev) + "\n]}\n"
open(sys.argv[1], "w").write(text)
EOF
for mode in default yajl; do
    nosj=""; [ "$mode" = yajl ] && nosj=1
    GPUDIAG_NO_SIMDJSON="$nosj" "$GPUDIAG" analyze --json "$TMP/many.json" > "$TMP/many.out.json"
    python3 - "$TMP/many.out.json" "$TMP/many.json" <<'EOF' || { echo "FAIL: many events [$mode]"; rc=1; }
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
early = text.index('"ts": -3599999000') + 6
o = d["inputs"][0]["time_outliers"]
assert o["events"] == 2, o
assert o["first_at_bytes"] == early, (o, early)
assert d["summary"]["kernel_count"] == 6000, d["summary"]["kernel_count"]
EOF
done
# Rule 2b, tests/data/warn_duration_outlier.json: ok_two_steps.json with the D2H copy (1160, the
# only op on stream 9: no successor to clip it at) lasting 10^12 us.  The others' last end is
# 1230 (the GEMM 1140+90), span 980..1230: its end is cut there, dur 70 us, removed
# 1160 + 10^12 - 1230 = 999999999930 us; steps as in ok_two_steps ([1010,1120] [1120,1230]);
# main made step 2 10^12 us long.
"$GPUDIAG" analyze --json "$GD_TEST_DATA/warn_duration_outlier.json" > "$TMP/dur.json"
"$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_two_steps.json" > "$TMP/two.json"
python3 - "$TMP/dur.json" "$TMP/two.json" <<'EOF' || rc=1
import json, os, sys
d = json.load(open(sys.argv[1])); ref = json.load(open(sys.argv[2]))
o = d["inputs"][0]["time_outliers"]
f = {x["id"]: x for x in d["findings"]}.get("input_time_outliers", {})
checks = [
    ("durations_cut", o["durations_cut"], 1),
    ("durations_removed_us", o["durations_removed_us"], 999999999930),
    ("events left out", o["events"], 0),
    ("steps as ok_two_steps", [(x["start_us"], x["end_us"]) for x in d["steps"]], [(x["start_us"], x["end_us"]) for x in ref["steps"]]),
    ("step ends", [x["end_us"] for x in d["steps"]], [1120, 1230]),
    ("finding", f.get("severity"), "medium"),
    ("ev durations_cut", f.get("evidence", {}).get("durations_cut"), 1),
    ("no overrun", d["inputs"][0]["overruns"]["ops"], 0),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, "duration outlier", 1e-09)
EOF
[ "$rc" -eq 0 ] && echo "test_sanitize: all passed"
exit $rc
