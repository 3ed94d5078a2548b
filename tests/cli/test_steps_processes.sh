#!/bin/sh
# Step markers of several processes in one file (DEFINITIONS "Steps" 1): markers with the same
# number that overlap in time are one step, from the earliest start to the latest end, and a
# merged step starts where the one before ends.
#
# By hand, from tests/data/ok_three_steps.json (ProfilerStep#1..#3 at 1000, 1100, 1200, 100 us
# each, pid 100) and a copy of all its events on pid 1100 (GPU ops on device 1), SHIFT us later:
#   SHIFT 7: #1 [1000,1100] + [1007,1107] -> [1000,1107]; #2 [1100,1200] + [1107,1207] ->
#     [1100,1207], starting where #1 ends -> [1107,1207]; #3 likewise [1207,1307].  3 steps of
#     107, 100, 100 us; 3 markers folded.  (Before: 6 steps of 100 us, overlapping in pairs.)
#   SHIFT 0: the copies coincide: 3 steps [1000,1100] [1100,1200] [1200,1300], 3 folded.
#   The file alone: its 3 steps as before (1000-1100, 1100-1230, 1230-1300 with its GPU ops), 0
#     folded.
set -u
GD_TMP_TAG=stepsproc
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
GEN='
import copy, json, sys
d = json.load(open(sys.argv[1])); shift = float(sys.argv[3]); ev = d["traceEvents"]; ev2 = []
for e in ev:
    f = copy.deepcopy(e); f["ts"] = e["ts"] + shift
    if f.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
        f["pid"] = 1; f.setdefault("args", {})["device"] = 1
    else:
        f["pid"] = f["pid"] + 1000
    ev2.append(f)
d["traceEvents"] = ev + ev2
json.dump(d, open(sys.argv[2], "w"))'
STEPS='
import json, sys
d = json.load(sys.stdin)
print(" ".join("%d:%g-%g" % (s["number"], s["start_us"], s["end_us"]) for s in d["steps"]),
      d["breakdown"]["steps_markers_merged"])'
for shift in 7 0; do
    python3 -c "$GEN" "$GD_TEST_DATA/ok_three_steps.json" "$TMP/m$shift.json" "$shift"
    expect_rc 0 "$GPUDIAG" analyze --json "$TMP/m$shift.json"
    cp "$TMP/out" "$TMP/m$shift.out"
    got=$(python3 -c "$STEPS" < "$TMP/m$shift.out")
    case $shift in
    7) want="1:1000-1107 2:1107-1207 3:1207-1307 3" ;;
    *) want="1:1000-1100 2:1100-1200 3:1200-1300 3" ;;
    esac
    [ "$got" = "$want" ] && ok || nok "two processes' markers, shift $shift: $got (want $want)"
done
"$GPUDIAG" analyze "$TMP/m7.json" > "$TMP/m7.txt" 2>&1
grep -q "3 step markers folded into the overlapping one of the same number (several processes or" "$TMP/m7.txt" && ok ||
    nok "the text STEPS line says the markers were folded"
# two threads of one process mark each step (a new user: 9 steps of 990 and 10 us): the markers
# again on tid 2, 10 us later -> host steps [1000,1110] [1110,1210] [1210,1310] (each from where the
# one before ends); rule 3 then ends step 2 at its kernel's end (1130 + 100 = 1230) and starts step 3
# there: 1:1000-1110 2:1110-1230 3:1230-1310, 3 folded
python3 -c '
import copy, json, sys
d = json.load(open(sys.argv[1]))
d["traceEvents"] += [dict(e, tid=2, ts=e["ts"] + 10) for e in d["traceEvents"] if e["name"].startswith("ProfilerStep#")]
json.dump(d, open(sys.argv[2], "w"))' "$GD_TEST_DATA/ok_three_steps.json" "$TMP/threads.json"
got=$("$GPUDIAG" analyze --json "$TMP/threads.json" | python3 -c "$STEPS")
[ "$got" = "1:1000-1110 2:1110-1230 3:1230-1310 3" ] && ok || nok "two threads' markers: $got"
# markers that cannot be told apart (input_steps_overlap): a second ProfilerStep#1 touching step 1
# at 1100-1200 (not folded: it only touches) overlaps #2 (1100-1200) by 100 us > 10 us and repeats
# number 1 -> overlapping 1, repeated 1; #2 moved onto #1's span (1000-1100) -> overlapping 1,
# repeated 0; the 7 us offset above is within the 10 us tolerance -> neither, no finding
OVL='
import json, sys
d = json.load(sys.stdin); b = d["breakdown"]
print(b["steps_markers_overlapping"], b["steps_numbers_repeated"], "input_steps_overlap" in [f["id"] for f in d["findings"]])'
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["traceEvents"].append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 100, "tid": 2, "ts": 1100, "dur": 100})
json.dump(d, open(sys.argv[2], "w"))
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"]:
    if e["name"] == "ProfilerStep#2":
        e["ts"] = 1000
json.dump(d, open(sys.argv[3], "w"))' "$GD_TEST_DATA/ok_three_steps.json" "$TMP/touch.json" "$TMP/eqstart.json"
for c in "touch:1 1 True" "eqstart:1 0 True" "m7:0 0 False"; do
    name=${c%%:*}
    got=$("$GPUDIAG" analyze --json "$TMP/$name.json" | python3 -c "$OVL")
    [ "$got" = "${c#*:}" ] && ok || nok "$name: overlapping, repeated, finding = $got (want ${c#*:})"
done
got=$("$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_three_steps.json" | python3 -c "$STEPS")
[ "$got" = "1:1000-1100 2:1100-1230 3:1230-1300 0" ] && ok || nok "one process: unchanged ($got)"
"$GPUDIAG" analyze "$GD_TEST_DATA/ok_three_steps.json" | grep -q "folded" && nok "one process: a fold line" || ok
finish
