#!/bin/sh
# A directory of rank traces: side by side, and the straggler.
# 1. Four ranks made by bench/gen_ranks.py from tests/data/ok_nccl_overlap.json
#    (one step [2000,2300], two NCCL kernels) with rank 2 as the straggler and
#    a 40 us delay.  By hand: ranks 0, 1, 3 wait 40 us in each of the 2
#    collectives = 80 us per step = 80/300 = 26.67 % of the step; rank 2 waits 0.
# 2. The same from the real a100_nccl_2rank_rank0 trace (when ../shared is
#    there), straggler rank 1, 500 us: the others wait 500 us x (their NCCL
#    kernels inside the steps) / steps, and the straggler is rank 1.
set -eu
GD_TMP_TAG=ranks
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
GEN="$HERE/../../bench/gen_ranks.py"
pass=0; fail=0

python3 "$GEN" "$GD_TEST_DATA/ok_nccl_overlap.json" "$TMP/syn" --ranks 4 --straggler 2 --delay-us 40 >/dev/null
for jobs in 1 2; do
  if "$GPUDIAG" analyze --json --jobs "$jobs" "$TMP/syn" > "$TMP/syn.json" && python3 - "$TMP/syn.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); s = d["stragglers"]
assert d["schema"] == "gpudiag.cluster/1"
assert s["straggler"] == 2, s
assert s["collectives"] == 2 and s["collectives_mismatch"] is False, s
assert abs(s["wait_us_per_step"] - 80) < 1e-9, s
assert abs(s["wait_share_of_step"] - 80 / 300) < 1e-5, s
waits = {r["rank"]: r["comm_wait_us_per_step"] for r in d["ranks"]}
assert waits == {0: 80, 1: 80, 2: 0, 3: 80}, waits
assert [r["inputs"][0]["rank"] for r in d["reports"]] == [0, 1, 2, 3]
# the straggler finding: est_gain = the others' wait share 80 / 300 = 0.2667 -> high
f = d["findings"]
assert [x["id"] for x in f] == ["straggler"], f
assert f[0]["severity"] == "high" and abs(f[0]["est_gain"] - 80 / 300) < 1e-5, f[0]
assert f[0]["evidence"]["straggler_rank"] == 2 and f[0]["evidence"]["ranks"] == 4, f[0]
assert f[0]["bottleneck"] == "communication", f[0]
PY
  then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: synthetic ranks, --jobs $jobs"; fi
done
# a rank without collectives (a CPU-only trace) takes no part; the others still compare
mkdir "$TMP/syn2"
cp "$TMP"/syn/rank*.json "$TMP/syn2/"
cp "$GD_TEST_DATA/ok_cpu_only.json" "$TMP/syn2/rank100.json"
if "$GPUDIAG" analyze --json "$TMP/syn2" > "$TMP/syn2.json" && python3 - "$TMP/syn2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); s = d["stragglers"]
assert s["straggler"] == 2 and abs(s["wait_us_per_step"] - 80) < 1e-9, s
assert len(d["ranks"]) == 5 and d["ranks"][4]["comm_wait_us_per_step"] is None, d["ranks"][4]
PY
then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: rank without collectives"; fi
# a directory and a file with --json: one JSON document per line
if [ "$("$GPUDIAG" analyze --json "$TMP/syn" "$GD_TEST_DATA/ok_two_steps.json" 2>/dev/null | wc -l)" -eq 2 ]; then
  pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: JSON Lines with a directory and a file"; fi
# the text form names the straggler; one bad file in the directory is reported, the rest analysed
cp "$GD_TEST_DATA/ok_cpu_only.json" "$TMP/syn/zz_notes.txt"
printf 'not json' > "$TMP/syn/rank999.json"
if "$GPUDIAG" analyze --no-color "$TMP/syn" > "$TMP/syn.txt" 2> "$TMP/syn.err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 3 ] && grep -q "Rank 2 is the straggler" "$TMP/syn.txt" && grep -q "rank999.json: byte 0" "$TMP/syn.err"; then
  pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: text form / bad member (rc $rc)"; cat "$TMP/syn.err"; fi
# identical ranks: no straggler, no finding
python3 "$GEN" "$GD_TEST_DATA/ok_nccl_overlap.json" "$TMP/even" --ranks 3 --straggler 0 --delay-us 0 >/dev/null
if "$GPUDIAG" analyze --json "$TMP/even" > "$TMP/even.json" && python3 - "$TMP/even.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["stragglers"]["straggler"] is None and d["stragglers"]["wait_us_per_step"] == 0, d["stragglers"]
assert d["findings"] == [], d["findings"]
PY
then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: even ranks"; fi
# an empty directory is an input error
mkdir "$TMP/empty"
if "$GPUDIAG" analyze "$TMP/empty" 2>/dev/null; then rc=0; else rc=$?; fi
if [ "$rc" -eq 3 ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: empty directory rc $rc"; fi

REAL="$GD_SHARED/data/traces/a100_nccl_2rank_rank0.json.gz"
if [ -f "$REAL" ]; then
  python3 "$GEN" "$REAL" "$TMP/real" --ranks 3 --straggler 1 --delay-us 500 >/dev/null
  if "$GPUDIAG" analyze --json "$TMP/real" > "$TMP/real.json" && python3 - "$TMP/real.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); s = d["stragglers"]
assert s["straggler"] == 1, s
assert s["collectives_mismatch"] is False, s
for r in d["ranks"]:
    want = 0 if r["rank"] == 1 else 500 * s["collectives"] / r["steps"]
    assert abs(r["comm_wait_us_per_step"] - want) < 1e-3, (r, want)
PY
  then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: ranks from the real trace"; fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
