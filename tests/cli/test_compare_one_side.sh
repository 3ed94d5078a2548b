#!/bin/sh
# test_compare_one_side.sh — compare of two monitoring logs where only one side logs a metric
# (DEFINITIONS "compare: monitoring logs"): that side shows its own mean and median, the other
# side, the change and p are n/a. Base nvsmi_query_csv_l5_v100_training_steady.csv: memory.used is
# 30994 MiB in each of its 17 rows (by hand: mean = median = 30994 MiB = 32 499 564 544 bytes);
# new nvsmi_query_csv_l1_inference_job_gaps.csv has no memory.used. The old binary printed n/a twice.
GD_TMP_TAG=cmpone
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
L="$GD_SHARED/data/logs"
B="$L/nvsmi_query_csv_l5_v100_training_steady.csv" N="$L/nvsmi_query_csv_l1_inference_job_gaps.csv"
[ -f "$B" ] && [ -f "$N" ] || exit 77
"$GPUDIAG" compare --json "$B" "$N" > "$TMP/c.json" 2> "$TMP/err"
"$GPUDIAG" compare "$B" "$N" > "$TMP/c.txt" 2> "$TMP/err"
if python3 - "$TMP/c.json" <<'PY'; then ok; else nok "one-sided metric: each side's own value"; fi
import json, sys
r = [x for x in json.load(open(sys.argv[1]))["metrics"] if x["metric"] == "mem_used_bytes"][0]
assert r["base_n"] == 17 and r["new_n"] == 0, r
assert abs(r["base_mean"] - 30994 * 2**20) < 1e3 and abs(r["base_median"] - 30994 * 2**20) < 1e3, r
assert r["new_mean"] is None and r["change"] is None and r["mwu_p"] is None and r["verdict"] == "n/a", r
PY
grep -Eq '^mem_used_bytes +30994\.0 MiB +n/a +n/a' "$TMP/c.txt" && ok || nok "text: $(grep mem_used "$TMP/c.txt")"
# no utilisation metric on both sides (SM active from dcgmi, GPU util from dmon): nothing compared,
# so inconclusive, exit 0, gate null (a new user's trial: no_change, which a CI gate reads as a pass)
{ printf '#Entity   SMACT   TENSO\nID\n'; i=0; while [ $i -lt 20 ]; do printf 'GPU 0     0.900   0.300\n'; i=$((i + 1)); done; } > "$TMP/dc.log"
{ printf '# gpu    sm    fb\n# Idx     %%    MB\n'; i=0; while [ $i -lt 20 ]; do printf '    0    80  1000\n'; i=$((i + 1)); done; } > "$TMP/dm.log"
"$GPUDIAG" compare --json "$TMP/dc.log" "$TMP/dm.log" > "$TMP/g.json" 2> "$TMP/err"
rc=$?
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["gate_metric"] is None and d["verdict"] == "inconclusive" else 1)' "$TMP/g.json" && [ "$rc" = 0 ] && ok ||
    nok "no shared utilisation metric: $(grep -o '"verdict": "[a-z_]*"' "$TMP/g.json" | tail -1) rc $rc"
finish
