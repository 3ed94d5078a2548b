#!/bin/sh
# A directory of rank traces: side by side, and the straggler.
# 1. Four ranks made by bench/gen_ranks.py from tests/data/ok_nccl_overlap.json
#    (one step [2000,2300], two NCCL kernels) with rank 2 as the straggler and
#    a 40 us delay.  By hand: ranks 0, 1, 3 wait 40 us in the all-reduce (2100 -> 2060)
#    and 20 us in the all-gather (2220 -> 2200, where the all-reduce ends on stream 20:
#    a stream runs in order) = 60 us per step = 60/300 = 20 % of the step; rank 2 waits 0.
# 2. The same from the real a100_nccl_2rank_rank0 trace (when ../shared is
#    there), straggler rank 1, 500 us: the others wait, per NCCL kernel inside the
#    steps, min(500 us, gap to the previous op on its stream) (one kernel of the 21 has
#    a 234.8125 us gap), / steps, and the straggler is rank 1.
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
assert abs(s["wait_us_per_step"] - 60) < 1e-9, s
assert abs(s["wait_share_of_step"] - 60 / 300) < 1e-5, s
waits = {r["rank"]: r["comm_wait_us_per_step"] for r in d["ranks"]}
assert waits == {0: 60, 1: 60, 2: 0, 3: 60}, waits
assert [r["inputs"][0]["rank"] for r in d["reports"]] == [0, 1, 2, 3]
assert s["mixed_job"] == [] and not any(r["rank_inferred"] for r in d["ranks"]), s
# the straggler finding: est_gain = the others' wait share 60 / 300 = 0.20 -> high
f = d["findings"]
assert [x["id"] for x in f] == ["straggler"], f
assert f[0]["severity"] == "high" and abs(f[0]["est_gain"] - 60 / 300) < 1e-5, f[0]
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
assert s["straggler"] == 2 and abs(s["wait_us_per_step"] - 60) < 1e-9, s
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

# --ranks LIST: only the listed ranks are read and compared.  $TMP/rsel: the four
# ranks of $TMP/even's generator (0..3, rank 2 the straggler by 40 us), plus
#  - rank9.json: a valid header with rank 9, then garbage where the events should be:
#    a header-only read never reaches it, so leaving it out raises no error;
#  - late5.json: rank 5 with distributedInfo after traceEvents: the header read falls
#    back to parsing the whole file, and finds rank 5.
python3 "$GEN" "$GD_TEST_DATA/ok_nccl_overlap.json" "$TMP/rsel" --ranks 4 --straggler 2 --delay-us 40 >/dev/null
printf '{"schemaVersion": 1, "distributedInfo": {"rank": 9, "world_size": 10}, "traceEvents": [ this is not JSON\n' > "$TMP/rsel/rank9.json"
python3 - "$TMP/rsel/rank001.json" "$TMP/rsel/late5.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
info = d.pop("distributedInfo"); info["rank"] = 5
d["distributedInfo"] = info  # now after traceEvents (dicts keep insertion order)
s = json.dumps(d)
assert s.index('"traceEvents"') < s.index('"distributedInfo"')
open(sys.argv[2], "w").write(s)
PY
for jobs in 1 3; do
  if "$GPUDIAG" analyze --json --jobs "$jobs" --ranks 0,2-3 "$TMP/rsel" > "$TMP/rsel.json" 2> "$TMP/rsel.err" && python3 - "$TMP/rsel.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); s = d["stragglers"]
assert [r["rank"] for r in d["ranks"]] == [0, 2, 3], d["ranks"]
assert [r["inputs"][0]["rank"] for r in d["reports"]] == [0, 2, 3]
# ranks 0 and 3 wait 40 + 20 us in the 2 collectives for rank 2, as with all four
assert s["straggler"] == 2 and abs(s["wait_us_per_step"] - 60) < 1e-9, s
# 3 distinct ranks of a world of 4 (gen_ranks writes world_size = --ranks): rank 1 absent
assert s["world_size"] == 4 and s["missing_ranks"] == 1, s
assert "Note: only 3 of the job's 4 ranks are here; the 1 absent rank is not compared" in s["verdict"], s
PY
  then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: --ranks 0,2-3 --jobs $jobs"; cat "$TMP/rsel.err"; fi
done
# one rank chosen: no cross-rank matching claimed, 3 of 4 ranks absent
for jobs in 1; do
  "$GPUDIAG" analyze --no-color --ranks 1 "$TMP/rsel" > "$TMP/r1.txt" 2>/dev/null || true
  if grep -q '^RANKS  1 trace; no other rank to match collectives with$' "$TMP/r1.txt" &&
     grep -q '^  note: 3 of the job.s 4 ranks are not here and are not compared$' "$TMP/r1.txt" &&
     ! grep -q 'matched by position' "$TMP/r1.txt"; then
    pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: --ranks 1 text"; cat "$TMP/r1.txt"; fi
done
# the late distributedInfo is found by the fallback read
if "$GPUDIAG" analyze --json --ranks 5,9 "$TMP/rsel" > "$TMP/r5.json" 2> "$TMP/r5.err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 3 ] && python3 - "$TMP/r5.json" <<'PY' && grep -q "rank9.json: byte" "$TMP/r5.err"
import json, sys
d = json.load(open(sys.argv[1]))
assert [r["rank"] for r in d["ranks"]] == [5], d["ranks"]   # rank 9 chosen, then its events fail: exit 3
PY
then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: --ranks 5,9 (rc $rc)"; cat "$TMP/r5.err"; fi
# without --ranks the broken rank9.json is read, and reported
if "$GPUDIAG" analyze --json "$TMP/rsel" > /dev/null 2>&1; then rc=0; else rc=$?; fi
if [ "$rc" -eq 3 ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: rsel without --ranks rc $rc"; fi
# no such rank: exit 6, naming the ranks the directory has
if "$GPUDIAG" analyze --ranks 4,6-8 "$TMP/rsel" > "$TMP/out" 2> "$TMP/err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 6 ] && grep -q -- "--ranks 4,6-8 matched no trace; the directory has ranks 0-3, 5, 9" "$TMP/err" && [ ! -s "$TMP/out" ]; then
  pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: --ranks 4,6-8 rc $rc"; cat "$TMP/err"; fi
# several files: the chosen ones are analysed, one JSON line each; a file without a rank is left out, said on stderr
if "$GPUDIAG" analyze --json --ranks 1-2 "$TMP"/rsel/rank00*.json "$GD_TEST_DATA/ok_no_steps.json" > "$TMP/files.json" 2> "$TMP/files.err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 0 ] && python3 - "$TMP/files.json" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert [json.loads(l)["inputs"][0]["rank"] for l in lines] == [1, 2], lines
PY
then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: --ranks over files rc $rc"; cat "$TMP/files.err"; fi
if "$GPUDIAG" analyze --json --ranks 7 "$TMP"/rsel/rank00*.json > "$TMP/out" 2> "$TMP/err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 6 ] && grep -q "matched none of the 4 trace files; they have ranks 0-3" "$TMP/err"; then
  pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: --ranks 7 over files rc $rc"; cat "$TMP/err"; fi
# standard input cannot be read twice (header, then the whole): refused
if "$GPUDIAG" analyze --ranks 0 - < "$TMP/rsel/rank000.json" > /dev/null 2> "$TMP/err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 2 ] && grep -q "standard input can be read only once" "$TMP/err"; then
  pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: --ranks with stdin rc $rc"; cat "$TMP/err"; fi
# malformed lists: exit 2
for list in "" "," "0," ",1" "0,,1" "a" "3-1" "1-" "-1" "0 1" "2147483648"; do
  if "$GPUDIAG" analyze --ranks "$list" "$TMP/rsel" > /dev/null 2> "$TMP/err"; then rc=0; else rc=$?; fi
  if [ "$rc" -eq 2 ] && grep -q "ranks wants rank numbers" "$TMP/err"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: --ranks '$list' rc $rc"; fi
done

# Is it one job? (DEFINITIONS "Ranks and stragglers"). rank0/rank1 from gen_ranks (world 2);
# rank7.json = rank 1 re-labelled rank 7 of world 8 (world sizes differ); x_noinfo.json has no
# distributedInfo (some traces only) -> its rank is its position 3 (sorted: rank0, rank1,
# rank7, x_noinfo), marked inferred. Same GPU everywhere, ranks inside their world sizes.
# rank 0 is 40 us late (it would be named the straggler in one job): here none is named.
python3 "$GEN" "$GD_TEST_DATA/ok_nccl_overlap.json" "$TMP/mix" --ranks 2 --straggler 0 --delay-us 40 >/dev/null
python3 - "$TMP/mix" "$GD_TEST_DATA/ok_nccl_overlap.json" <<'PY'
import json, os, sys, glob
d = sys.argv[1]
r1 = sorted(glob.glob(os.path.join(d, "*.json")))[1]
doc = json.load(open(r1)); doc["distributedInfo"].update(rank=7, world_size=8)
json.dump(doc, open(os.path.join(d, "rank7.json"), "w"))
doc = json.load(open(sys.argv[2])); del doc["distributedInfo"]
json.dump(doc, open(os.path.join(d, "x_noinfo.json"), "w"))
PY
if "$GPUDIAG" analyze --json "$TMP/mix" > "$TMP/mix.json" && python3 - "$TMP/mix.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); s = d["stragglers"]
assert s["mixed_job"] == ["world_size", "distributed_info"], s["mixed_job"]
assert [(r["rank"], r["rank_inferred"]) for r in d["ranks"]] == [(0, False), (1, False), (7, False), (3, True)], d["ranks"]
f = {x["id"]: x for x in d["findings"]}
m = f["input_mixed_job"]
assert m["kind"] == "input" and m["severity"] == "medium" and m["est_gain"] is None, m
assert m["evidence"]["traces"] == 4 and m["evidence"]["ranks_inferred"] == 1, m
assert s["verdict"].startswith("No straggler named: these traces may not be one job (different world sizes, "
                               "distributedInfo in some traces only)"), s
assert s["straggler"] is None and "straggler" not in f, s
assert s["world_size"] is None and s["missing_ranks"] is None, s
PY
then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: mixed job (JSON)"; fi
"$GPUDIAG" analyze --no-color "$TMP/mix" > "$TMP/mix.txt" || true
if grep -q '^ *3\* ' "$TMP/mix.txt" && grep -q '^WARNING  These 4 traces do not look like the ranks of one job' "$TMP/mix.txt" &&
   grep -q 'no distributedInfo.rank in the trace' "$TMP/mix.txt" && ! grep -q '^ *0\* ' "$TMP/mix.txt"; then
  pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: mixed job (text)"; cat "$TMP/mix.txt"; fi
# a rank beyond its world size, alone
python3 "$GEN" "$GD_TEST_DATA/ok_nccl_overlap.json" "$TMP/range" --ranks 2 --straggler 0 --delay-us 0 >/dev/null
python3 - "$TMP/range" <<'PY'
import json, os, sys, glob
p = sorted(glob.glob(os.path.join(sys.argv[1], "*.json")))[1]
doc = json.load(open(p)); doc["distributedInfo"]["rank"] = 2
json.dump(doc, open(p, "w"))
PY
if "$GPUDIAG" analyze --json "$TMP/range" > "$TMP/range.json" &&
   python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["stragglers"]; assert s["mixed_job"] == ["rank_range"], s' "$TMP/range.json"; then
  pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: rank beyond its world size"; fi

REAL="$GD_SHARED/data/traces/a100_nccl_2rank_rank0.json.gz"
if [ -f "$REAL" ]; then
  python3 "$GEN" "$REAL" "$TMP/real" --ranks 3 --straggler 1 --delay-us 500 >/dev/null
  if "$GPUDIAG" analyze --json "$TMP/real" > "$TMP/real.json" && python3 - "$TMP/real.json" "$REAL" <<'PY'
import gzip, json, sys
d = json.load(open(sys.argv[1])); s = d["stragglers"]
assert s["straggler"] == 1, s
assert s["collectives_mismatch"] is False, s
# each NCCL kernel waits min(500, gap to the previous op on its stream), read from the trace
tr = json.load(gzip.open(sys.argv[2], "rt"))["traceEvents"]
lanes = {}
for e in tr:
    if e.get("ph") == "X" and str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy", "gpu_memset"):
        a = e.get("args") or {}
        lanes.setdefault((a.get("device", e.get("pid")), a.get("stream", e.get("tid"))), []).append(e)
wait = 0.0
n = 0
for v in lanes.values():
    v.sort(key=lambda e: e["ts"])
    prev = None
    for e in v:
        if e["name"].lower().startswith(("nccl", "rccl")):
            n += 1
            wait += 500 if prev is None else min(500, max(0, e["ts"] - prev))
        prev = e["ts"] + e["dur"] if prev is None else max(prev, e["ts"] + e["dur"])
assert n == s["collectives"], (n, s["collectives"])  # all of them lie inside the steps
for r in d["ranks"]:
    want = 0 if r["rank"] == 1 else wait / r["steps"]
    assert abs(r["comm_wait_us_per_step"] - want) < 1e-3, (r, want)
PY
  then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: ranks from the real trace"; fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
