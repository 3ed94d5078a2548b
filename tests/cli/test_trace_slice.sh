#!/bin/sh
# --trace-out with --steps / --ranks writes only the selected window (issue 22):
# tests/data/ok_three_steps.json, --steps 2:2.  By hand (DEFINITIONS "Selecting
# steps"): W = [1100, 1200] (ProfilerStep#2), its end extended to 1230, the end of
# the kernel its cudaLaunchKernel (1110) launched (1130 + 100).  Events overlapping
# W by more than an edge: ProfilerStep#2, aten::mm 1105, cudaLaunchKernel 1110,
# aten::mm 1205, cudaLaunchKernel 1210, the kernel 1130-1230 = 6 of the 14; left
# out: ProfilerStep#1 (ends at 1100: only touches W), ProfilerStep#3 (1200-1300
# overlaps W, but it marks a step not selected: kept, the slice analysed again had
# 2 steps), the ops of step 1, cudaMemcpyAsync 1250, the kernel at 1240 and the
# copy at 1265.  The slice analysed again: 1 step.  --steps 2:3: W = [1100, 1300]
# (step 3 ends at 1300, its copy at 1275), both markers kept; 3:3 (W = [1200, 1300]):
# ProfilerStep#2 (1100-1200) only touches W, and #3 is kept.
# Without --steps all 14 are copied.  --ranks: a file whose rank is not chosen
# writes nothing (exit 6); a chosen one is written.
set -u
GD_TMP_TAG=slice
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
count() { # FILE: "name@ts" of the trace's own X events (not gpudiag's), sorted
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted("%s@%s" % (e["name"], e["ts"]) for e in d["traceEvents"]
                      if e.get("ph") == "X" and e.get("cat") != "gpudiag")))' "$1"
}
expect_rc 0 "$GPUDIAG" analyze --steps 2:2 --trace-out "$TMP/s.json" "$GD_TEST_DATA/ok_three_steps.json"
want="ProfilerStep#2@1100 ampere_sgemm_128x64_nn@1130 aten::mm@1105 aten::mm@1205 cudaLaunchKernel@1110 cudaLaunchKernel@1210"
got=$(count "$TMP/s.json")
[ "$got" = "$want" ] && ok || nok "--steps 2:2 slice: $got"
"$GPUDIAG" analyze --json "$TMP/s.json" 2>/dev/null | python3 -c '
import json, sys; d = json.load(sys.stdin); sys.exit(0 if len(d["steps"]) == 1 and d["steps"][0]["number"] == 2 else 1)' &&
    ok || nok "the --steps 2:2 slice analysed again is one step"
for sel in 2:3 3:3; do
    expect_rc 0 "$GPUDIAG" analyze --steps "$sel" --trace-out "$TMP/s$sel.json" "$GD_TEST_DATA/ok_three_steps.json"
    got=$(count "$TMP/s$sel.json" | tr ' ' '\n' | grep ProfilerStep | tr '\n' ' ')
    case $sel in 2:3) want="ProfilerStep#2@1100 ProfilerStep#3@1200 " ;; *) want="ProfilerStep#3@1200 " ;; esac
    [ "$got" = "$want" ] && ok || nok "--steps $sel slice's step markers: $got"
done
grep -q '"gpudiag"' "$TMP/s.json" && ok || nok "the slice carries gpudiag's annotations"
expect_rc 0 "$GPUDIAG" analyze --trace-out "$TMP/all.json" "$GD_TEST_DATA/ok_three_steps.json"
n=$(python3 -c 'import json, sys; print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X" and e.get("cat") != "gpudiag"))' "$TMP/all.json")
[ "$n" -eq 14 ] && ok || nok "without --steps every event is copied ($n)"
expect_rc 6 "$GPUDIAG" analyze --ranks 0 --trace-out "$TMP/r0.json" "$GD_TEST_DATA/ok_nccl_overlap.json"
[ ! -e "$TMP/r0.json" ] && ok || nok "--ranks not matching still wrote a trace"
expect_rc 0 "$GPUDIAG" analyze --ranks 1 --trace-out "$TMP/r1.json" "$GD_TEST_DATA/ok_nccl_overlap.json"
[ -s "$TMP/r1.json" ] && ok || nok "--ranks 1 wrote no trace"
finish
