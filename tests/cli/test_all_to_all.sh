#!/bin/sh
# All-to-all share and expert load imbalance across ranks (docs/DEFINITIONS.md
# "All-to-all and expert load imbalance"; issue 21 item 8).  Values derived by hand:
# tests/data/ranks_a2a/rank{0,1}.json — two ranks, two steps of 1000 us each; per step
# a GEMM (rank 0: 400 us, rank 1: 200 us), then an all-to-all on a SendRecv kernel
# (args "Collective name" all_to_allv; rank 0: 100 us, rank 1: 300 us: it waits for
# rank 0), then an all-reduce of 50 us on both.
#   all_to_all_us_per_step: rank 0 100, rank 1 300; all_to_all_share 0.1, 0.3
#   matched all-to-alls: 2 (one per step); wait = duration − the shortest (100):
#   rank 0 0, rank 1 200 per step; mean wait 100 us per step, / mean step 1000 = 0.1
#   work = step − wait: 1000, 800; max/mean = 1000 / 900 = 1.11111; loaded rank 0
#   -> moe_all_to_all_imbalance, est_gain 0.1 (severity medium: 0.10 <= share < 0.20).
# The same with rank 1 a copy of rank 0 (balanced): waits 0, max/mean 1, no finding.
# analyze DIR and merge of the ranks' summaries: byte-identical.
# Silent on the shared rank sets: the a100_8rank pair (all-to-alls, but not one job:
# imbalance not measured) and a100_nccl_2rank_rank0 as 3 ranks (no all-to-all).
set -u
GD_TMP_TAG=a2a
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
D="$GD_TEST_DATA/ranks_a2a"
cd "$TMP" || exit 1

expect_rc 0 "$GPUDIAG" analyze --json "$D"
cp "$TMP/out" a2a.json
python3 - a2a.json <<'PY' && ok || nok "ranks_a2a: hand-derived numbers"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["ranks"]
close = lambda a, b: a is not None and abs(a - b) <= 1e-4 * max(1, abs(b))
assert [x["all_to_all_us_per_step"] for x in r] == [100, 300], r
assert [x["all_to_all_share"] for x in r] == [0.1, 0.3], r
assert [x["all_to_all_wait_us_per_step"] for x in r] == [0, 200], r
a = d["all_to_all"]
assert a["collectives"] == 2 and a["loaded_rank"] == 0, a
assert close(a["wait_us_per_step"], 100) and close(a["wait_share_of_step"], 0.1), a
assert close(a["imbalance_max_over_mean"], 1000 / 900), a
f = {x["id"]: x for x in d["findings"]}["moe_all_to_all_imbalance"]
assert close(f["est_gain"], 0.1) and f["severity"] == "medium", f
assert close(f["evidence"]["all_to_all_share"], 0.2), f
PY
if python3 -c "import jsonschema" 2>/dev/null; then
    python3 "$HERE/schemacheck.py" "$HERE/../../docs/report.schema.json" a2a.json && ok || nok "ranks_a2a: schema"
fi
expect_rc 0 "$GPUDIAG" analyze "$D"
tr '\n' ' ' < "$TMP/out" | grep -q "ALL-TO-ALL  20.0% of the step .* 2 matched by position: the ranks wait 100.0 us per step (10.0% of the step) for the busiest, rank 0; work max/mean 1.11" && ok ||
    nok "ranks_a2a: text line"

# merge of the summaries = analyze DIR
mkdir -p s && for f in "$D"/*.json; do
    "$GPUDIAG" analyze --summary "s/$(basename "$f").sum.json" "$f" > /dev/null || nok "summary $f"
done
"$GPUDIAG" merge --json s > m.json && cmp -s a2a.json m.json && ok || nok "ranks_a2a: merge differs from analyze DIR"

# balanced: rank 1 = rank 0
mkdir -p bal && cp "$D/rank0.json" bal/ && sed 's/"rank": 0/"rank": 1/' "$D/rank0.json" > bal/rank1.json
"$GPUDIAG" analyze --json bal > bal.json && python3 - bal.json <<'PY' && ok || nok "balanced: silent"
import json, sys
d = json.load(open(sys.argv[1]))
a = d["all_to_all"]
assert a["collectives"] == 2 and a["wait_us_per_step"] == 0 and a["imbalance_max_over_mean"] == 1, a
assert "moe_all_to_all_imbalance" not in [x["id"] for x in d["findings"]], d["findings"]
PY

if [ -d "$GD_SHARED/data/traces" ]; then
    T="$GD_SHARED/data/traces"
    python3 "$HERE/../../bench/gen_ranks.py" "$T/a100_nccl_2rank_rank0.json.gz" nccl --ranks 3 > /dev/null
    mkdir -p r8 && cp "$T/a100_8rank_rank3_control.json.gz" "$T/a100_8rank_rank3_test.json.gz" r8/
    for set in nccl r8; do
        "$GPUDIAG" analyze --json "$set" > "d_$set.json" && python3 - "d_$set.json" <<'PY' && ok ||
import json, sys
d = json.load(open(sys.argv[1]))
assert d["all_to_all"]["collectives"] == 0 and d["all_to_all"]["loaded_rank"] is None, d["all_to_all"]
assert "moe_all_to_all_imbalance" not in [x["id"] for x in d["findings"]], d["findings"]
PY
            nok "shared set $set: all-to-all silent"
    done
else
    echo "note: $GD_SHARED/data/traces absent: the shared rank sets are not checked"
fi
# Straggler rule, like with like (DEFINITIONS "Ranks and stragglers": the noise per collective kind).
# tests/data/ranks_kinds/rank{0..3}.json — four ranks, two steps of 1000 us; per step an all-reduce,
# a GEMM, an all-to-all. Rank 3 is loaded (GEMM 400 us) and arrives last at the all-to-all:
#   all-reduce: step 1 all 50 us; step 2 ranks 0-2 60, rank 3 50
#   all-to-all: step 1 ranks 0-2 300, rank 3 100; step 2 ranks 0-2 280, rank 3 100
# waits (duration - shortest): ranks 0-2: 0 + 200 + 10 + 180 = 390 -> 195 us per step; rank 3: 0
# candidate rank 3; net wait 195 - 0 = 195 us per step (19.5 % of 1000)
# x_j (others' mean - rank 3's), in order: 0, 200, 10, 180
#   per kind: all-reduce {0, 10} var 50, all-to-all {200, 180} var 200 -> 2*50 + 2*200 = 500;
#   noise 2 sqrt(500) / 2 steps = 22.361 us per step: rank 3 is the straggler, est_gain 0.195
#   (pooled over kinds, the rule before: sd(x) 107.2, noise 2 * 107.2 * 2 / 2 = 214.4 > 195,
#   "the ranks take turns arriving last": an all-to-all skew read as turns)
expect_rc 0 "$GPUDIAG" analyze --json "$GD_TEST_DATA/ranks_kinds"
python3 - "$TMP/out" <<'PY' && ok || nok "ranks_kinds: straggler per collective kind"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["stragglers"]
assert s["collectives"] == 4 and s["straggler"] == 3, s
assert [r["comm_wait_us_per_step"] for r in d["ranks"]] == [195, 195, 195, 0], d["ranks"]
assert s["net_wait_us_per_step"] == 195 and abs(s["net_wait_noise_us_per_step"] - 500 ** 0.5) < 1e-3, s
f = {x["id"]: x for x in d["findings"]}
assert abs(f["straggler"]["est_gain"] - 0.195) < 1e-6, f
PY
cp "$TMP/out" kinds.json
mkdir -p sk && for f in "$GD_TEST_DATA"/ranks_kinds/*.json; do
    "$GPUDIAG" analyze --summary "sk/$(basename "$f").sum.json" "$f" > /dev/null || nok "summary $f"
done
"$GPUDIAG" merge --json sk > mk.json && cmp -s kinds.json mk.json && ok || nok "ranks_kinds: merge differs from analyze DIR"

finish
