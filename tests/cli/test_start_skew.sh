#!/bin/sh
# The wait inherited from before the window (DEFINITIONS "Ranks and stragglers"), on
# tests/data/ranks_start_skew (two ranks on one clock, one step each, by hand):
#   rank 0: step 1000-1900; all-to-alls 1100-1700 (600 us) and 1800-1850 (50 us)
#   rank 1: step 1500-1900; all-to-alls 1600-1700 (100 us) and 1820-1850 (30 us)
# Ends coincide (1700, 1850): one clock.  Arrivals A 1100, 1600, work before W 100, 100: S* =
# 1600 - 100 = 1500; rank 0
# inherits min(600 - 100, 1500 - 1000) = 500 us, rank 1 nothing.  Waits: rank 0 20 us (the second
# all-to-all, 50 - 30), rank 1 0; all-to-all wait 10 us per step = 10 / 650 = 0.0154 of the mean
# step: no moe_all_to_all_imbalance (< 0.02); work 900 - 20 - 500 = 380 and 400: max/mean
# 400 / 390 = 1.0256; net wait 20, noise 2 * sd(0, 20) * sqrt(2) / 1 = 40: no straggler; start
# skew 500 us, inherited 250 us per step (mean of 500 and 0).
# Before the rule (and with rank 1's clock 10 ms off, shifted here: its ends 10 ms later, not
# one clock, nothing assessed): waits 520 and 0, all-to-all wait 260 us = 0.40 (high), noise 960.
set -u
GD_TMP_TAG=startskew
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
D="$GD_TEST_DATA/ranks_start_skew"
CHECK='
import json, sys
d = json.load(open(sys.argv[1])); want = sys.argv[2]
st, a = d["stragglers"], d["all_to_all"]
got = "%s %s %s %s %s %s %s %s" % (
    [round(r["comm_wait_us_per_step"], 3) for r in d["ranks"]], round(a["wait_us_per_step"], 3),
    round(a["wait_share_of_step"], 4), round(a["imbalance_max_over_mean"], 4),
    round(st["net_wait_noise_us_per_step"], 3), st["start_skew_us"], st["inherited_wait_us_per_step"],
    sorted(f["id"] for f in d["findings"]))
print(got)
sys.exit(0 if got == want else 1)'
expect_rc 0 "$GPUDIAG" analyze --json "$D"
cp "$TMP/out" "$TMP/one.json"
python3 -c "$CHECK" "$TMP/one.json" "[20, 0] 10 0.0154 1.0256 40 500 250 []" > "$TMP/got" && ok ||
    nok "one clock: $(cat "$TMP/got")"
"$GPUDIAG" analyze "$D" 2>/dev/null | tr '\n' ' ' | grep -q "up to 500 us apart .*250 us per step of the waits at its first collective" && ok ||
    nok "the STRAGGLER line says what was left out"
# rank 1 on another clock: every timestamp 10 ms later
mkdir -p "$TMP/two"
cp "$D/rank0.json" "$TMP/two/"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"]:
    e["ts"] += 10000
json.dump(d, open(sys.argv[2], "w"))' "$D/rank1.json" "$TMP/two/rank1.json"
expect_rc 0 "$GPUDIAG" analyze --json "$TMP/two"
cp "$TMP/out" "$TMP/two.json"
python3 -c "$CHECK" "$TMP/two.json" "[520, 0] 260 0.4 1.0256 960 None None ['moe_all_to_all_imbalance']" > "$TMP/got" && ok ||
    nok "two clocks: nothing assessed: $(cat "$TMP/got")"
# a summary carries the first step's start: merge gives the same numbers as analyze DIR
expect_rc 0 "$GPUDIAG" analyze --summary "$TMP/s0.json" "$D/rank0.json"
expect_rc 0 "$GPUDIAG" analyze --summary "$TMP/s1.json" "$D/rank1.json"
expect_rc 0 "$GPUDIAG" merge --json "$TMP/s0.json" "$TMP/s1.json"
cp "$TMP/out" "$TMP/merged.json"
python3 -c "$CHECK" "$TMP/merged.json" "[20, 0] 10 0.0154 1.0256 40 500 250 []" > "$TMP/got" && ok ||
    nok "merge of the summaries: $(cat "$TMP/got")"
# Three ranks, labels swapped (a new user's trial: the first rule took the start of the rank whose
# first collective was shortest, and two ranks tied there): A starts at 1000 (step to 2000),
# all-reduce 1100-1800 (700 us); B at 1300, a GEMM 1310-1700, all-reduce 1700-1800 (100 us); C at 1600,
# all-reduce 1700-1800 (100 us); then each an all-reduce 1900-1950.  By hand: A = 1100, 1700, 1700;
# W = 100, 400, 100; S* = 1700 - 400 = 1300; A inherits min(600, 300) = 300, B and C nothing.  Waits
# per step: A 600 - 300 = 300, B 0, C 0 (the second all-reduce: none); start skew 600, inherited
# 100 per step.  Ranks (A, B, C) = (0, 1, 2) and (2, 1, 0), files rank<N>.json (read in that order):
# the same numbers per trace (the first rule gave A 300, then 0 with C listed first).
GEN3='
import json, sys
out, labels = sys.argv[1], [int(x) for x in sys.argv[2].split(",")]
AR = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
spec = {"A": (1000, 1000, [], 1100, 700), "B": (1300, 700, [(1310, 390)], 1700, 100), "C": (1600, 400, [], 1700, 100)}
for (name, (s, d, gemms, c1, c1d)), rank in zip(sorted(spec.items()), labels):
    ev, c = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": s, "dur": d}], 1
    for kts, kd, kn, st in [(g[0], g[1], "gemm_kernel", 7) for g in gemms] + [(c1, c1d, AR, 20), (1900, 50, AR, 20)]:
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": kts - 8,
                   "dur": 5, "args": {"correlation": c}})
        args = {"device": 0, "stream": st, "correlation": c}
        if kn == AR:
            args["Collective name"] = "allreduce"
        ev.append({"ph": "X", "cat": "kernel", "name": kn, "pid": 0, "tid": st, "ts": kts, "dur": kd, "args": args})
        c += 1
    json.dump({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 3},
               "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8, "computeMinor": 0,
                                     "numSms": 108}], "traceEvents": ev}, open("%s/rank%d.json" % (out, rank), "w"))'
WAITS='
import json, sys
d = json.load(sys.stdin); st = d["stragglers"]; labels = sys.argv[1].split(",")
by = {r["path"].rsplit("/", 1)[1]: r["comm_wait_us_per_step"] for r in d["ranks"]}
print(*[by["rank%s.json" % l] for l in labels], st["start_skew_us"], st["inherited_wait_us_per_step"])'
for lab in 0,1,2 2,1,0; do
    mkdir -p "$TMP/t$lab"
    python3 -c "$GEN3" "$TMP/t$lab" "$lab"
    got=$("$GPUDIAG" analyze --json "$TMP/t$lab" 2>/dev/null | python3 -c "$WAITS" "$lab")
    [ "$got" = "300 0 0 600 100" ] && ok || nok "three ranks labelled $lab: $got (want 300 0 0 600 100)"
done
finish
