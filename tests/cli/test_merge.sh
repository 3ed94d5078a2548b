#!/bin/sh
# Per-rank summaries (analyze --summary) and gpudiag merge (docs/DEFINITIONS.md
# "Summaries and merge").
# 1. Four ranks from tests/data/ok_nccl_overlap.json by bench/gen_ranks.py, rank 2
#    the straggler by 40 us.  By hand (the kernels: all-reduce 2100+100 and
#    all-gather 2220+60 on stream 20, one step [2000,2300]): rank 2's collectives
#    last 100 and 60 us; every other rank's all-reduce starts 40 us earlier (2060,
#    140 us) and its all-gather starts where the all-reduce ends on the stream
#    (2200, 80 us).  So the summary of rank 0 lists duration_us [140, 80], rank 2
#    [100, 60], steps 1; the job view names rank 2, the others waiting 60 us per
#    step; and it is byte-identical to analyze --json DIR.
# 2. Merge in any order, merges of merges, a directory of summaries: the same bytes.
# 3. Refused: another version, another job (exit 7); a report that is no summary (3).
# 4. Rank from the environment for a trace without distributedInfo.
# 5. The shared rank traces (a100_nccl_2rank_rank0 as 3 ranks by gen_ranks.py, and
#    the two a100_8rank files, which are not one job): byte-identical job views.
# 6. Bytes and exposed wait per collective (DEFINITIONS "Communication", collective bytes,
#    exposed wait): tests/data/ranks_coll (SOURCES.md), by hand, each rank one step
#    [1000,1400), a GEMM [1100,1200) and a DtoD copy [1355,1360) on stream 7:
#    all-reduce 1,048,576 Float = 4,194,304 B at [1150,1250), the GEMM over its first
#    half -> exposed 50 us; all-gather In 1024 / Out 2048 BFloat16 -> the output,
#    4096 B, [1300,1320) (rank 1: 1330) alone -> 20 (30); broadcast of 256 QUInt4x2
#    (a dtype outside the table) -> bytes null, [1350,1360) with the copy over its
#    last 5 -> 5.  Rank 0's kernels carry nccl:*'s External id (the counts from the
#    record_param_comms op holding the launch), rank 1's record_param_comms' own.
#    Merged and merged again they stay; merge --json = analyze --json DIR.
#    a100_nccl_2rank_rank0's first three collectives, from the trace by a few lines of
#    python (kernel start, record_param_comms by External id, other GPU ops of device 0):
#    broadcast 53120 Float = 212480 B, exposed 30.975 (= its duration); broadcast 53
#    Long = 424 B, 7.775; all-reduce 2049000 Float = 8196000 B, 3306.963 us of which
#    457.659 under other kernels -> 2849.304 (2849.303 from integer ns).
set -u
GD_TMP_TAG=merge
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
GEN="$HERE/../../bench/gen_ranks.py"

# summarise every trace of DIR into SUMDIR/NAME.sum.json, each file alone; 0 when all worked
summarise() {
    mkdir -p "$2"
    for f in "$1"/*.json "$1"/*.json.gz; do
        [ -e "$f" ] || continue
        "$GPUDIAG" analyze --summary "$2/$(basename "$f").sum.json" "$f" > /dev/null || return 1
    done
}

cd "$TMP" || exit 1
python3 "$GEN" "$GD_TEST_DATA/ok_nccl_overlap.json" syn --ranks 4 --straggler 2 --delay-us 40 >/dev/null
summarise syn sum && ok || nok "summaries of the synthetic ranks"
python3 - sum/rank000.json.sum.json sum/rank002.json.sum.json <<'PY' && ok || nok "summary contents"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["schema"] == "gpudiag.summary/1" and a["job"]["id"] is None, a["job"]
r = a["ranks"][0]
assert len(a["ranks"]) == 1 and r["rank"] == 0 and r["rank_source"] == "trace" and r["world_size"] == 4, r
assert r["path"] == "syn/rank000.json" and r["steps"] == 1, r
# starts by hand: the all-reduce moved 40 us earlier (2100 -> 2060), the all-gather to 2200
# exposed by hand: the all-reduce [2060,2200) under the GEMM [2030,2130) for 70 us and the clamp
# [2160,2190) for 30 -> 40; the all-gather alone -> 80; no record_param_comms: bytes unknown
assert r["collectives"] == {"count": 2, "duration_us": [140, 80], "start_us": [2060, 2200],
                            "kind": ["all_reduce", "all_gather"], "bytes": [None, None],
                            "exposed_us": [40, 80]}, r["collectives"]
# rank 2: the all-reduce [2100,2200): 30 + 30 under compute -> 40; the all-gather 60
assert b["ranks"][0]["collectives"]["exposed_us"] == [40, 60], b["ranks"][0]["collectives"]
assert b["ranks"][0]["collectives"]["duration_us"] == [100, 60], b["ranks"][0]["collectives"]
assert b["ranks"][0]["collectives"]["start_us"] == [2100, 2220], b["ranks"][0]["collectives"]
assert r["report"]["schema"] == "gpudiag.report/1" and len(r["report"]["steps"]) == 1
PY
"$GPUDIAG" analyze --json syn > dir.json
"$GPUDIAG" analyze --save dirsave.json syn > /dev/null
expect_rc 0 "$GPUDIAG" merge --json sum/rank002.json.sum.json sum/rank000.json.sum.json sum/rank003.json.sum.json \
    sum/rank001.json.sum.json
cmp -s "$TMP/out" dir.json && ok || nok "merge --json (any order) differs from analyze --json DIR"
python3 - "$TMP/out" <<'PY' && ok || nok "job view from the summaries"
import json, sys
d = json.load(open(sys.argv[1])); s = d["stragglers"]
assert s["straggler"] == 2 and abs(s["wait_us_per_step"] - 60) < 1e-9, s
assert {r["rank"]: r["comm_wait_us_per_step"] for r in d["ranks"]} == {0: 60, 1: 60, 2: 0, 3: 60}
# the table's two collective columns (DEFINITIONS "Communication", exposed communication: two
# numbers), by hand from the exposed waits above, one step: coll 140 + 80 = 220 (rank 2: 100 + 60
# = 160), exposed 40 + 80 = 120 (rank 2: 40 + 60 = 100)
assert {r["rank"]: r["comm_time_us_per_step"] for r in d["ranks"]} == {0: 220, 1: 220, 2: 160, 3: 220}
assert {r["rank"]: r["comm_exposed_us_per_step"] for r in d["ranks"]} == {0: 120, 1: 120, 2: 100, 3: 120}
PY
"$GPUDIAG" merge sum > merge.txt
grep -q "rank    step ms    util    comm coll us/step exposed us/step wait us/step" merge.txt &&
    grep -q "^      2       0.30   76.7%   36.7%        160.0           100.0          0.0  communication" merge.txt &&
    grep -q "coll: collective" merge.txt && ok || nok "merge's table: coll and exposed us/step, named"
"$GPUDIAG" merge -o mo.json sum > /dev/null && cmp -s mo.json dirsave.json && ok ||
    nok "merge -o differs from analyze --save DIR"
# associative: (0+3) + (2+1) = all = a directory's summary
"$GPUDIAG" merge --summary a.json sum/rank000.json.sum.json sum/rank003.json.sum.json > /dev/null &&
"$GPUDIAG" merge --summary b.json sum/rank002.json.sum.json sum/rank001.json.sum.json > /dev/null &&
"$GPUDIAG" merge --summary ab.json b.json a.json > /dev/null &&
"$GPUDIAG" merge --summary all.json sum > /dev/null &&
"$GPUDIAG" analyze --summary dirsum.json syn > /dev/null && ok || nok "merge --summary runs"
cmp -s ab.json all.json && ok || nok "merge of merges differs from the merge of all"
cmp -s dirsum.json all.json && ok || nok "analyze --summary DIR differs from the merge of the ranks"
"$GPUDIAG" merge --json a.json b.json | cmp -s - dir.json && ok || nok "merge --json of merged summaries"
# gzip summaries (reports read again from the decompressed stream) and one on standard input
mkdir gz && for f in sum/*.json; do gzip -c "$f" > "gz/$(basename "$f").gz"; done
"$GPUDIAG" merge --json gz | cmp -s - dir.json && ok || nok "merge --json of gzip summaries"
gzip -c a.json > a.json.gz
"$GPUDIAG" merge --json - a.json.gz < b.json | cmp -s - dir.json && ok || nok "merge --json of stdin and a gzip merged summary"
# compare reads a summary as a side: the same comparison as with the saved job view
"$GPUDIAG" compare --json dirsave.json all.json | sed 's|all\.json|dirsave.json|g' > cmp1.json
"$GPUDIAG" compare --json dirsave.json dirsave.json > cmp2.json
cmp -s cmp1.json cmp2.json && ok || nok "compare with a summary as a side differs"
# the text form names the straggler
"$GPUDIAG" merge sum 2>/dev/null | grep -q "Rank 2 is the straggler" && ok || nok "merge text"
[ "$("$GPUDIAG" merge -q sum)" = "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stragglers"]["verdict"])' dir.json)" ] &&
    ok || nok "merge -q prints the verdict"

# refused: another version (exit 7, naming file and byte), another job (7), a report (3)
sed 's/"version":"[^"]*"/"version":"0.0.0-other"/' sum/rank000.json.sum.json > old.json
expect_rc 7 "$GPUDIAG" merge old.json sum/rank001.json.sum.json
grep -q "old.json: byte [0-9]*: a summary written by gpudiag 0.0.0-other" "$TMP/err" && ok || nok "version message"
GPUDIAG_JOB_ID=job-a "$GPUDIAG" analyze --summary ja.json syn/rank000.json > /dev/null
SLURM_JOB_ID=77 "$GPUDIAG" analyze --summary jb.json syn/rank001.json > /dev/null
SLURM_ARRAY_JOB_ID=76 SLURM_JOB_ID=78 "$GPUDIAG" analyze --summary jc.json syn/rank002.json > /dev/null
python3 -c 'import json,sys; print(*(json.load(open(p))["job"]["id"] for p in sys.argv[1:]))' ja.json jb.json jc.json |
    grep -qx "job-a slurm:77 slurm:76" && ok || nok "job ids from the environment"
expect_rc 7 "$GPUDIAG" merge ja.json jb.json
grep -q "summaries of two jobs: 'job-a' and 'slurm:77'" "$TMP/err" && ok || nok "job message"
# a summary naming a job with one naming none: refused (it may be another job), either order
expect_rc 7 "$GPUDIAG" merge ja.json sum/rank001.json.sum.json
grep -q "rank001.json.sum.json: a summary of job 'job-a' and one naming no job" "$TMP/err" && ok || nok "job and none: message"
expect_rc 7 "$GPUDIAG" merge sum/rank001.json.sum.json ja.json
GPUDIAG_JOB_ID=job-a "$GPUDIAG" analyze --summary ja1.json syn/rank001.json > /dev/null
expect_rc 0 "$GPUDIAG" merge ja.json ja1.json   # the same job
expect_rc 3 "$GPUDIAG" merge dir.json
grep -q "dir.json: byte [0-9]*: not a gpudiag summary (schema gpudiag.cluster/1)" "$TMP/err" && ok || nok "report message"
# one rank given twice (issue 22): the same directory twice, or a merged summary and one of its
# ranks, would count rank 2's duplicate as another rank waiting 0 us and lower the straggler's wait
# from 60 to (3*60 + 0)/4 = 45 us per step; refused, exit 7, naming the rank and its trace
expect_rc 7 "$GPUDIAG" merge sum sum
grep -q "rank 0 of trace syn/rank000.json is given twice" "$TMP/err" && ok || nok "same directory twice: message"
expect_rc 7 "$GPUDIAG" merge --summary dup.json all.json sum/rank002.json.sum.json
grep -q "rank 2 of trace syn/rank002.json is given twice" "$TMP/err" && [ ! -e dup.json ] && ok ||
    nok "merged summary and one of its ranks: message, no summary written"
expect_rc 7 "$GPUDIAG" merge sum/rank001.json.sum.json sum/rank001.json.sum.json
# ... by identity, not by the path as written (a new user's trial): rank 1 summarised as
# ./syn/rank001.json and as $TMP/syn/rank001.json, or a copy of the trace under a new name, is the
# same rank 1 of world size 4 with the same numbers: refused, exit 7, naming both paths
"$GPUDIAG" analyze --summary dot1.json ./syn/rank001.json > /dev/null
"$GPUDIAG" analyze --summary abs1.json "$TMP/syn/rank001.json" > /dev/null
expect_rc 7 "$GPUDIAG" merge dot1.json abs1.json
grep -q "rank 1 of trace ./syn/rank001.json is given twice, also as trace $TMP/syn/rank001.json" "$TMP/err" && ok ||
    nok "one trace under two paths: message"
cp syn/rank001.json rerun_rank001.json
"$GPUDIAG" analyze --summary rerun1.json rerun_rank001.json > /dev/null
expect_rc 7 "$GPUDIAG" merge sum rerun1.json
grep -q "rank 1 of trace rerun_rank001.json is given twice, also as trace syn/rank001.json" "$TMP/err" && ok ||
    nok "the same trace under a new name: message"
# windows of steps (issue 22): the synthetic ranks have one step, numbered 5.  Summaries of one
# --steps window merge to analyze --steps DIR's bytes; two windows (or a window and every step)
# are refused, exit 7, naming both (windows as given: 0:5 and 5: select the same step, still refused)
mkdir w55 && for i in 0 1 2 3; do "$GPUDIAG" analyze -q --steps 5:5 --summary "w55/r$i.json" "syn/rank00$i.json" > /dev/null; done
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["ranks"][0]["steps_window"] == "5:5"' w55/r0.json &&
    python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["ranks"][0]["steps_window"] is None' sum/rank000.json.sum.json &&
    ok || nok "steps_window in the summary"
"$GPUDIAG" analyze --steps 5:5 --json syn > dir55.json
"$GPUDIAG" merge --json w55 | cmp -s - dir55.json && ok || nok "merge of one --steps window differs from analyze --steps DIR"
expect_rc 7 "$GPUDIAG" merge w55/r0.json sum/rank001.json.sum.json
grep -q "summaries of two windows of steps: --steps 5:5 for trace syn/rank000.json, every step for trace syn/rank001.json" \
    "$TMP/err" && ok || nok "window and every step: message"
"$GPUDIAG" analyze -q --steps 5: --summary w5.json syn/rank002.json > /dev/null
expect_rc 7 "$GPUDIAG" merge w55/r0.json w55/r1.json w5.json
printf '{"schema":"gpudiag.summary/1","ranks":[{"rank":' > cut.json
expect_rc 3 "$GPUDIAG" merge cut.json
expect_rc 2 "$GPUDIAG" merge
# wording (issue 22): an empty directory has no summary files (not "trace files"); -o inside an
# input directory would be read as one of its inputs; a .sqlite in a directory is no summary
mkdir empty
expect_rc 3 "$GPUDIAG" merge empty
grep -q "empty: no .json or .json.gz summary files in this directory (merge reads the summaries" "$TMP/err" &&
    ! grep -q "trace files" "$TMP/err" && ok || nok "merge EMPTYDIR message"
expect_rc 2 "$GPUDIAG" merge -o sum/x.json sum
grep -q "would be written into the input directory sum (and read as one of its inputs next time)" "$TMP/err" &&
    ok || nok "merge -o DIR/x.json DIR message"
mkdir sq && cp sum/rank000.json.sum.json sq/ && : > sq/t.sqlite
expect_rc 0 "$GPUDIAG" merge -q sq
# a monitoring log has no ranks to merge: no summary (exit 2), its report still printed
expect_rc 2 "$GPUDIAG" analyze -q --summary log.sum.json "$GD_TEST_DATA/monlog/csv_hw_slowdown_headroom.csv"
[ ! -e log.sum.json ] && [ -s "$TMP/out" ] && ok || nok "--summary of a monitoring log"
expect_rc 2 "$GPUDIAG" merge --json -q sum

# the rank from the environment, for a trace without distributedInfo
python3 - "$GD_TEST_DATA/ok_nccl_overlap.json" norank.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d.pop("distributedInfo"); json.dump(d, open(sys.argv[2], "w"))
PY
RANK=5 "$GPUDIAG" analyze --summary e1.json norank.json > /dev/null
env -u RANK SLURM_PROCID=3 "$GPUDIAG" analyze --summary e2.json norank.json > /dev/null
env -u RANK SLURM_PROCID=0 SLURM_ARRAY_TASK_ID=4 "$GPUDIAG" analyze --summary e3.json norank.json > /dev/null
env -u RANK JOB_COMPLETION_INDEX=6 "$GPUDIAG" analyze --summary e4.json norank.json > /dev/null
RANK=9 "$GPUDIAG" analyze --summary e5.json syn/rank001.json > /dev/null   # the trace's own rank wins
# RANK not a number (issue 22): a warning naming the variable, value and trace; the next variable
# still counts; nothing said when the trace has its own rank
RANK=abc "$GPUDIAG" analyze --summary e6.json norank.json > /dev/null 2> e6.err
grep -q "warning: RANK='abc' is not a rank number (0 to 2^30): ignored as the rank of norank.json" e6.err &&
    ok || nok "RANK=abc: warning"
RANK=-1 SLURM_PROCID=2 "$GPUDIAG" analyze --summary e7.json norank.json > /dev/null 2> e7.err
grep -q "warning: RANK='-1' is not a rank number" e7.err && ok || nok "RANK=-1: warning"
RANK=abc "$GPUDIAG" analyze --summary e8.json syn/rank001.json > /dev/null 2> e8.err
[ ! -s e8.err ] && ok || nok "RANK=abc with the trace's own rank: '$(cat e8.err)'"
python3 - e1.json e2.json e3.json e4.json e5.json e6.json e7.json <<'PY' && ok || nok "rank from the environment"
import json, sys
got = [(r["rank"], r["rank_source"]) for r in (json.load(open(p))["ranks"][0] for p in sys.argv[1:])]
assert got == [(5, "RANK"), (3, "SLURM_PROCID"), (None, None), (6, "JOB_COMPLETION_INDEX"), (1, "trace"),
               (None, None), (2, "SLURM_PROCID")], got
PY

# bytes and exposed wait per collective (6. above)
summarise "$GD_TEST_DATA/ranks_coll" scoll && "$GPUDIAG" merge --summary coll_all.json scoll > /dev/null &&
    "$GPUDIAG" merge --summary coll_again.json coll_all.json > /dev/null && ok || nok "ranks_coll summaries"
python3 - coll_all.json coll_again.json <<'PY' && ok || nok "ranks_coll bytes and exposed wait"
import json, sys
for p in sys.argv[1:]:
    c = {r["rank"]: r["collectives"] for r in json.load(open(p))["ranks"]}
    assert c[0]["kind"] == ["all_reduce", "all_gather", "broadcast"], c[0]
    assert c[0]["bytes"] == [4194304, 4096, None] and c[1]["bytes"] == [4194304, 4096, None], c
    assert c[0]["exposed_us"] == [50, 20, 5] and c[1]["exposed_us"] == [50, 30, 5], c
PY
"$GPUDIAG" analyze --json "$GD_TEST_DATA/ranks_coll" > coll_dir.json
"$GPUDIAG" merge --json coll_all.json | cmp -s - coll_dir.json && ok || nok "ranks_coll: merge --json differs from analyze --json DIR"
# communication_bound's rates for rank 0 (DEFINITIONS "Communication", bandwidth), by hand: the
# all-reduce 4194304 B and the all-gather 4096 B in 100 + 20 us: algbw 4198400 / 120 us = 34.9867
# GB/s (the all-reduce alone: 41.94); busbw (4194304 x 2(2-1)/2 + 4096 x (2-1)/2) / 120 us =
# 34.9696; the broadcast (bytes unknown) out of both; A100 NVLink 600 GB/s both ways -> 300
"$GPUDIAG" analyze --json "$GD_TEST_DATA/ranks_coll/rank0.json" > coll_r0.json
python3 - coll_r0.json <<'PY' && ok || nok "ranks_coll rank 0: algbw, busbw, link"
import json, sys
f = [f for f in json.load(open(sys.argv[1]))["findings"] if f["id"] == "communication_bound"][0]["evidence"]
assert abs(f["collective_algbw_gb_per_s"] - 34.9867) < 1e-4 and abs(f["collective_busbw_gb_per_s"] - 34.9696) < 1e-4, f
assert f["gpu_link_gb_per_s"] == 300, f
PY
# a summary written before bytes and exposed_us: read, merged, written back without them
python3 - coll_all.json coll_old.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["ranks"]:
    del r["collectives"]["bytes"], r["collectives"]["exposed_us"]
json.dump(d, open(sys.argv[2], "w"))
PY
"$GPUDIAG" merge --summary coll_old2.json coll_old.json > /dev/null &&
    python3 -c 'import json,sys; assert all(r["collectives"]["bytes"] == [] and r["collectives"]["exposed_us"] == [] for r in json.load(open(sys.argv[1]))["ranks"])' coll_old2.json &&
    ok || nok "an older summary: bytes and exposed_us empty"
# exposed per step in the table: rank 0 50 + 20 + 5 = 75 us, rank 1 50 + 30 + 5 = 85 (one step);
# from the older summary unknown (null, n/a), never 0
"$GPUDIAG" merge --json coll_all.json > coll_m.json && "$GPUDIAG" merge --json coll_old.json > coll_mo.json &&
    python3 - coll_m.json coll_mo.json <<'PY' && ok || nok "ranks_coll: exposed us/step 75 / 85; older summary null"
import json, sys
a, b = ({r["rank"]: r["comm_exposed_us_per_step"] for r in json.load(open(p))["ranks"]} for p in sys.argv[1:3])
assert a == {0: 75, 1: 85}, a
assert b == {0: None, 1: None}, b
PY
"$GPUDIAG" merge coll_old.json | grep -q "^      1       0.40   47.5%   36.2%        140.0             n/a" && ok ||
    nok "older summary: exposed us/step n/a in the table"

# the shared rank traces: byte-identical job views
if [ -d "$GD_SHARED/data/traces" ]; then
    "$GPUDIAG" analyze --summary a100.sum.json "$GD_SHARED/data/traces/a100_nccl_2rank_rank0.json.gz" > /dev/null
    python3 - a100.sum.json <<'PY' && ok || nok "a100_nccl_2rank_rank0: first three collectives"
import json, sys
c = json.load(open(sys.argv[1]))["ranks"][0]["collectives"]
assert c["kind"][:3] == ["broadcast", "broadcast", "all_reduce"], c["kind"][:3]
assert c["bytes"][:3] == [212480, 424, 8196000], c["bytes"][:3]
assert [abs(x - y) < 0.0015 for x, y in zip(c["exposed_us"][:3], [30.975, 7.775, 2849.304])] == [True] * 3, c["exposed_us"][:3]
PY
    T="$GD_SHARED/data/traces"
    python3 "$GEN" "$T/a100_nccl_2rank_rank0.json.gz" nccl --ranks 3 --straggler 1 --delay-us 500 > /dev/null
    mkdir -p r8 && cp "$T/a100_8rank_rank3_control.json.gz" "$T/a100_8rank_rank3_test.json.gz" r8/
    for set in nccl r8; do
        summarise "$set" "s_$set" && "$GPUDIAG" analyze --json "$set" > "d_$set.json" &&
            "$GPUDIAG" merge --json "s_$set" > "m_$set.json" && cmp -s "d_$set.json" "m_$set.json" && ok ||
            nok "shared set $set: merge --json differs from analyze --json DIR"
    done
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["stragglers"]["straggler"] == 1' m_nccl.json &&
        ok || nok "shared nccl set: straggler 1"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["stragglers"]["mixed_job"], d["stragglers"]' \
        m_r8.json && ok || nok "a100_8rank pair: not one job"
else
    echo "note: $GD_SHARED/data/traces absent: the shared rank sets are not checked"
fi
finish
