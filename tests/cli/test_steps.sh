#!/bin/sh
# test_steps.sh — analyze --steps A:B (gpudiag_trace_select_steps).
# 1. tests/data/ok_three_steps.json: one thread, one stream, three steps whose
#    numbers were derived by hand (TBP step rules, docs/DEFINITIONS.md "Steps"):
#      step 1: host [1000,1100], kernel 1030-1070 launched 1010-1020, aten::mm 1005-1035
#              -> [1000,1100] = 100 us: kernel 40, runtime 10, cpu_exec 15 (1005-1010,
#              1020-1030), other 35 (1000-1005, 1070-1100)
#      step 2: host [1100,1200], kernel 1130-1230 launched 1110-1120 (ends after the host
#              step), aten::mm 1105-1135 -> [1100,1230] = 130 us: kernel 100, runtime 10,
#              cpu_exec 15, other 5
#      step 3: host [1200,1300], starts where step 2's kernel ends (1230); kernel 1240-1260,
#              memcpy 1265-1275, aten::mm 1205-1235 -> [1230,1300] = 70 us: kernel 20,
#              memcpy 10, cpu_exec 5 (1230-1235), other 35
#    Each selection must give those numbers; --steps 3 also keeps step 2's kernel (it
#    overlaps step 3's window: 2 kernels), --steps 2 keeps one kernel.
#    ok_three_steps_overlap.json moves step 2's kernel to another stream, past the start
#    of step 3's first kernel (the case TBP's first-step rule alone gets wrong).
# 2. The real resnet50_v100_num_workers_0 trace (6 steps, 5..10): every single-step
#    selection gives exactly that step's row of the full report (start, duration,
#    breakdown), with both event readers; so does every step of a100_8rank_rank3_test,
#    whose steps overlap on other streams.
# 3. Malformed specs exit 2; a step the trace lacks exits 6 naming the steps it has;
#    --steps on a monitoring log exits 2.
set -eu
GD_TMP_TAG=steps
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
S="$GD_TEST_DATA/ok_three_steps.json"

for reader in default yajl; do
  nosj=""; [ "$reader" = yajl ] && nosj=1
  for spec in 1 2 3 1:2 2: :1 2:3 0:99; do
    if GPUDIAG_NO_SIMDJSON="$nosj" "$GPUDIAG" analyze --json --steps "$spec" "$S" > "$TMP/s.json" &&
       python3 - "$TMP/s.json" "$spec" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); spec = sys.argv[2]
# by hand (header of this file): number -> (start, duration, non-zero breakdown)
want = {1: (1000, 100, {"kernel": 40, "runtime": 10, "cpu_exec": 15, "other": 35}),
        2: (1100, 130, {"kernel": 100, "runtime": 10, "cpu_exec": 15, "other": 5}),
        3: (1230, 70, {"kernel": 20, "memcpy": 10, "cpu_exec": 5, "other": 35})}
sel = {"1": [1], "2": [2], "3": [3], "1:2": [1, 2], "2:": [2, 3], ":1": [1], "2:3": [2, 3], "0:99": [1, 2, 3]}[spec]
got = [(s["number"], s["start_us"], s["duration_us"], {k: v for k, v in s["breakdown_us"].items() if v}) for s in d["steps"]]
assert got == [(n,) + want[n] for n in sel], (spec, got)
assert d["summary"]["steps"] == len(sel), d["summary"]
ss = d["inputs"][0]["steps_selected"]
first, _, last = spec.partition(":") if ":" in spec else (spec, ":", spec)
assert ss == {"first": int(first) if first else None, "last": int(last) if last else None, "steps_in_trace": 3}, ss
kernels = {"1": 1, "2": 1, "3": 2, "1:2": 2, "2:": 2, ":1": 1, "2:3": 2, "0:99": 3}[spec]
assert d["devices"][0]["kernel_count"] == kernels, (spec, d["devices"][0]["kernel_count"])
PY
    then ok; else bad "synthetic --steps $spec ($reader)"; fi
  done
done
# without --steps: all three steps and steps_selected null
if "$GPUDIAG" analyze --json "$S" > "$TMP/all.json" && python3 - "$TMP/all.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [(s["number"], s["duration_us"]) for s in d["steps"]] == [(1, 100), (2, 130), (3, 70)], d["steps"]
assert d["inputs"][0]["steps_selected"] is None
PY
then ok; else bad "synthetic without --steps"; fi

# ok_three_steps_overlap.json: the same, but step 2's kernel runs on stream 8 for 120 us
# (1130-1250), past step 3's first kernel (1240, stream 7).  Whole trace: step 2 ends at 1250,
# so step 3 starts there: [1250,1300] = 50 us: kernel 10 (1250-1260), memcpy 10, other 30.
# TBP's first-step rule alone would ignore the 1250 end (it is after step 3's first GPU op) and
# start a lone step 3 at 1200; the selection carries the previous step's end instead.
O="$GD_TEST_DATA/ok_three_steps_overlap.json"
for spec in 3 2:3 1:3; do
  if "$GPUDIAG" analyze --json --steps "$spec" "$O" > "$TMP/o.json" && python3 - "$TMP/o.json" "$spec" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); spec = sys.argv[2]
want = {1: (1000, 100, {"kernel": 40, "runtime": 10, "cpu_exec": 15, "other": 35}),
        2: (1100, 150, {"kernel": 120, "runtime": 10, "cpu_exec": 15, "other": 5}),
        3: (1250, 50, {"kernel": 10, "memcpy": 10, "other": 30})}
sel = {"3": [3], "2:3": [2, 3], "1:3": [1, 2, 3]}[spec]
got = [(s["number"], s["start_us"], s["duration_us"], {k: v for k, v in s["breakdown_us"].items() if v}) for s in d["steps"]]
assert got == [(n,) + want[n] for n in sel], (spec, got)
PY
  then ok; else bad "overlap --steps $spec"; fi
done

# the text report says what was selected
"$GPUDIAG" analyze --no-color --steps 2: "$S" > "$TMP/s.txt"
if grep -q "^STEPS    2 steps: mean 100 us" "$TMP/s.txt" &&
   grep -q "selected (--steps 2:): 2 of the trace's 3 steps; the others and their events are left out" "$TMP/s.txt"; then
  ok; else bad "text report of --steps 2:"; fi
if "$GPUDIAG" analyze --no-color "$S" | grep -q "selected (--steps"; then bad "text report mentions a selection without --steps"; else ok; fi
# malformed specs: exit 2 with the grammar in the message
for spec in "" ":" "3:1" "a" "1:b" "-1" "+2" "1-3" " 1" "1:2:3" "99999999999999999999"; do
  if "$GPUDIAG" analyze --steps "$spec" "$S" > /dev/null 2> "$TMP/err"; then rc=0; else rc=$?; fi
  if [ "$rc" -eq 2 ] && grep -q "steps wants A:B, A:, :B or N" "$TMP/err"; then ok; else bad "--steps '$spec': rc $rc $(cat "$TMP/err")"; fi
done
# no step in range: exit 6, naming the steps the trace has
if "$GPUDIAG" analyze --steps 7:9 "$S" > "$TMP/out" 2> "$TMP/err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 6 ] && grep -q "ok_three_steps.json: --steps 7:9: no such step; the trace has steps 1-3" "$TMP/err" && [ ! -s "$TMP/out" ]; then
  ok; else bad "no step in range: rc $rc $(cat "$TMP/err")"; fi
if "$GPUDIAG" analyze --steps 1 "$GD_TEST_DATA/ok_no_steps.json" > /dev/null 2> "$TMP/err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 6 ] && grep -q "the trace has no steps" "$TMP/err"; then ok; else bad "no steps at all: rc $rc $(cat "$TMP/err")"; fi
# a directory of ranks: --steps applies to each; a rank without the step is reported (exit 6),
# the others are still analysed
mkdir "$TMP/dir"
cp "$S" "$TMP/dir/a.json"
cp "$GD_TEST_DATA/ok_two_steps.json" "$TMP/dir/b.json"   # steps 1 and 2 only
if "$GPUDIAG" analyze -q --steps 3 "$TMP/dir" > "$TMP/out" 2> "$TMP/err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 6 ] && grep -q "b.json: --steps 3: no such step; the trace has steps 1-2" "$TMP/err" &&
   grep -q "dir/a.json: " "$TMP/out" && ! grep -q "dir/b.json: " "$TMP/out"; then ok; else bad "directory --steps 3: rc $rc $(cat "$TMP/err")"; fi
# a monitoring log has no steps to select
printf '#Date Time gpu pwr gtemp mtemp sm mem enc dec mclk pclk\n#YYYYMMDD HH:MM:SS Idx W C C %% %% %% %% MHz MHz\n 20240101 00:00:00 0 100 40 - 90 50 0 0 1215 1410\n' > "$TMP/dmon.log"
if "$GPUDIAG" analyze --steps 1 --format dmon "$TMP/dmon.log" > /dev/null 2> "$TMP/err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 2 ] && grep -q "monitoring log" "$TMP/err"; then ok; else bad "--steps on a log: rc $rc $(cat "$TMP/err")"; fi

# a100_8rank_rank3_test: work of one step overlaps the next on other streams (4 of its 6 steps
# start where the previous step's last kernel ends): every step alone equals its full-report row
MULTI="$GD_SHARED/data/traces/a100_8rank_rank3_test.json.gz"
if [ -f "$MULTI" ]; then
  "$GPUDIAG" analyze --json "$MULTI" > "$TMP/mfull.json"
  for n in $(python3 -c 'import json,sys; print(" ".join(str(s["number"]) for s in json.load(open(sys.argv[1]))["steps"]))' "$TMP/mfull.json"); do
    "$GPUDIAG" analyze --json --steps "$n" "$MULTI" > "$TMP/mone.json"
    if python3 - "$TMP/mfull.json" "$TMP/mone.json" "$n" <<'PY'
import json, sys
full = json.load(open(sys.argv[1])); one = json.load(open(sys.argv[2])); n = int(sys.argv[3])
row = [s for s in full["steps"] if s["number"] == n][0]
assert len(one["steps"]) == 1 and one["steps"][0] == row, (one["steps"], row)
PY
    then ok; else bad "a100_8rank_rank3_test --steps $n"; fi
  done
fi

REAL="$GD_SHARED/data/traces/resnet50_v100_num_workers_0.pt.trace.json.gz"
if [ -f "$REAL" ]; then
  "$GPUDIAG" analyze --json "$REAL" > "$TMP/full.json"
  for reader in default yajl; do
    nosj=""; [ "$reader" = yajl ] && nosj=1
    for n in 5 6 7 8 9 10; do
      GPUDIAG_NO_SIMDJSON="$nosj" "$GPUDIAG" analyze --json --steps "$n" "$REAL" > "$TMP/one.json"
      if python3 - "$TMP/full.json" "$TMP/one.json" "$n" <<'PY'
import json, sys
full = json.load(open(sys.argv[1])); one = json.load(open(sys.argv[2])); n = int(sys.argv[3])
assert [s["number"] for s in full["steps"]] == [5, 6, 7, 8, 9, 10]
row = [s for s in full["steps"] if s["number"] == n][0]
assert len(one["steps"]) == 1 and one["steps"][0] == row, (one["steps"], row)
assert one["summary"]["steps"] == 1 and one["inputs"][0]["steps_selected"]["steps_in_trace"] == 6
PY
      then ok; else bad "resnet50 --steps $n ($reader)"; fi
    done
  done
  # a range: steps 6..8 are the full report's rows 6, 7, 8
  "$GPUDIAG" analyze --json --steps 6:8 "$REAL" > "$TMP/range.json"
  if python3 - "$TMP/full.json" "$TMP/range.json" <<'PY'
import json, sys
full = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
assert r["steps"] == [s for s in full["steps"] if 6 <= s["number"] <= 8], r["steps"]
PY
  then ok; else bad "resnet50 --steps 6:8"; fi
  if "$GPUDIAG" analyze --steps 11: "$REAL" > /dev/null 2> "$TMP/err"; then rc=0; else rc=$?; fi
  if [ "$rc" -eq 6 ] && grep -q "the trace has steps 5-10" "$TMP/err"; then ok; else bad "resnet50 --steps 11:: rc $rc"; fi
fi
# The num_workers_4 trace's step 5 opens with a 44.99 ms gap behind the step's first
# cudaMemcpyAsync (2 such calls per step, the others ~20 us). The trace starts at ProfilerStep#5:
# five iterations ran before it, so that is no first call of the process (DEFINITIONS rule 0) and
# the gap is host_launch, in the selection (--steps 5) as in the whole trace. (Its bar with two
# calls, 10 x the median of the other calls, is tested by test_first_call_step.sh.)
# --step-range with a name the trace does not hold keeps its 6 ProfilerStep#N steps (a typo
# must not drop them) and says so (input_step_range_missing); before: one whole-capture window
if [ -f "$REAL" ]; then
  "$GPUDIAG" analyze --json --step-range nosuchrange "$REAL" > "$TMP/sr.json"
  if python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); f = {x["id"]: x for x in d["findings"]}
t = f.get("input_step_range_missing", {}).get("title", "")
sys.exit(0 if len(d["steps"]) == 6 and d["inputs"][0]["step_range_missing"] is True
         and "its own ProfilerStep#N steps are analysed instead" in t and "no_step_markers" not in f else 1)' "$TMP/sr.json"
  then ok; else bad "--step-range nosuchrange keeps the ProfilerStep steps"; fi
fi
REAL4="$GD_SHARED/data/traces/resnet50_v100_num_workers_4.pt.trace.json.gz"
if [ -f "$REAL4" ]; then
  "$GPUDIAG" analyze --json --steps 5 "$REAL4" > "$TMP/s5.json" && "$GPUDIAG" analyze --json "$REAL4" > "$TMP/all.json"
  if python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
g = lambda d: [x for x in d["idle"]["gaps"] if x["duration_us"] > 44000]
ga, gb = g(a), g(b)
sys.exit(0 if len(ga) == 1 and ga[0]["cause"] == "host_launch" and gb and gb[0]["cause"] == "host_launch"
         and ga[0]["start_us"] == gb[0]["start_us"] else 1)' "$TMP/s5.json" "$TMP/all.json"
  then ok; else bad "num_workers_4 --steps 5: the 45 ms copy gap is host_launch, as in the whole trace"; fi
fi
finish
