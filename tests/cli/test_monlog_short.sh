#!/bin/sh
# test_monlog_short.sh — very short monitoring logs (DEFINITIONS "Health targets", "An idle log's
# verdict"): one sample has no health judgment over time, and an idle log's verdict gives the numbers
# it rests on. Expected values are derived by hand from the inputs, written out below.
GD_TMP_TAG=monlogshort
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
LOGS="$GD_SHARED/data/logs"
js() { "$GPUDIAG" analyze --json "$1" > "$2" 2> "$TMP/err" || nok "$1: exit $? $(cat "$TMP/err")"; }
tx() { "$GPUDIAG" analyze --no-color "$1" > "$2" 2> "$TMP/err" || nok "$1: exit $? $(cat "$TMP/err")"; }

HDR='# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk
# Idx      W      C      C      %      %      %      %    MHz    MHz'
row() { printf '    %s    100     50      -    %3s      1      0      0    810   1151\n' "$1" "$2"; }

# 1. One sample per GPU: health flags unknown (JSON null), no "(!)" and no legend, no finding from them.
# a) one dmon row, sm 10 %: median = p10 = 10 % and 1 of 1 sample under 30 %; over time that would miss
#    all three targets, from one moment it says nothing.
{ echo "$HDR"; row 0 10; } > "$TMP/one10.log"
# b) the 2-GPU CSV snapshot (shared): GTX 1080 Ti utilization.gpu 36 %, GTX 1060 0 %, one row each.
# c) the A100 -q snapshot (shared): one GPU, GPU-Util 0 %.
set -- "$TMP/one10.log"
[ -f "$LOGS/nvsmi_query_csv_2gpu_power_clocks_snapshot.csv" ] && set -- "$@" "$LOGS/nvsmi_query_csv_2gpu_power_clocks_snapshot.csv"
[ -f "$LOGS/nvsmi_a_A100_SXM4_535_first_gpu_idle.txt" ] && set -- "$@" "$LOGS/nvsmi_a_A100_SXM4_535_first_gpu_idle.txt"
n=0
for f in "$@"; do
    n=$((n + 1))
    js "$f" "$TMP/s$n.json"
    tx "$f" "$TMP/s$n.txt"
    if python3 - "$TMP/s$n.json" "$TMP/s$n.txt" <<'PY'; then ok; else nok "one sample: health unknown ($f)"; fi
import json, sys
d = json.load(open(sys.argv[1])); txt = open(sys.argv[2]).read()
gpus = d["series"]["gpus"]
assert gpus and all(g["samples"] == 1 for g in gpus), [g["samples"] for g in gpus]
for g in gpus:
    assert g["health"] == {"median_ok": None, "p10_ok": None, "low_share_ok": None}, g["health"]
assert "(!)" not in txt, txt
assert d["verdict"]["bottleneck"] == "unknown" and "one sample: no time series" in d["verdict"]["summary"], d["verdict"]
ids = [x["id"] for x in d["findings"]]
assert "low_gpu_utilization" not in ids, ids
PY
done
# the snapshot CSV's numbers are still shown (by hand: 36 % and 0 %)
if [ -f "$LOGS/nvsmi_query_csv_2gpu_power_clocks_snapshot.csv" ]; then
    grep -q "gpu_util       mean 36.0%  median 36.0%  p10 36.0%  p90 36.0%  <30%: 0.0%  jitter n/a" "$TMP/s2.txt" &&
        grep -q "gpu_util       mean 0.0%  median 0.0%  p10 0.0%  p90 0.0%  <30%: 100.0%  jitter n/a" "$TMP/s2.txt" &&
        ok || nok "snapshot CSV rows: $(grep gpu_util "$TMP/s2.txt")"
fi

# 2. Two samples are a series (the minimum is 2): dmon sm 10, 20 -> median 15 %, p10 10 + 0.1 x 10 = 11 %,
#    2 of 2 under 30 % -> all three targets missed (false, not null), the "(!)" marks and the legend shown,
#    and low_gpu_utilization fires (max 20 % >= 10 %: in use; 2 samples < 30: low confidence).
{ echo "$HDR"; row 0 10; row 0 20; } > "$TMP/two.log"
js "$TMP/two.log" "$TMP/two.json"
tx "$TMP/two.log" "$TMP/two.txt"
if python3 - "$TMP/two.json" "$TMP/two.txt" <<'PY'; then ok; else nok "two samples: health judged"; fi
import json, sys
d = json.load(open(sys.argv[1])); txt = open(sys.argv[2]).read()
g = d["series"]["gpus"][0]; m = g["metrics"]["gpu_util"]
assert abs(m["median"] - 0.15) < 1e-9 and abs(m["p10"] - 0.11) < 1e-9, m
assert g["health"] == {"median_ok": False, "p10_ok": False, "low_share_ok": False}, g["health"]
assert "median 15.0%(!)  p10 11.0%(!)" in txt and "<30%: 100.0%(!)" in txt and "(!) misses a health target" in txt, txt
ids = [x["id"] for x in d["findings"]]
assert "low_gpu_utilization" in ids, ids
PY

# 3. An idle log's verdict gives its numbers.
# a) shared nvsmi_dmon_pucvmet_1gpu_light_gtemp_mtemp.log: dmon sm 2, 0, 0, 1, 9 (5 rows; sorted 0 0 1 2 9)
#    -> median 1 %, max 9 %, 5 samples; no sample reaches 10 % and fb 791-821 MB < 1 GiB: not in use,
#    bottleneck unknown. It said "no GPU did measurable work in this log".
if [ -f "$LOGS/nvsmi_dmon_pucvmet_1gpu_light_gtemp_mtemp.log" ]; then
    js "$LOGS/nvsmi_dmon_pucvmet_1gpu_light_gtemp_mtemp.log" "$TMP/light.json"
    if python3 - "$TMP/light.json" "$LOGS/nvsmi_dmon_pucvmet_1gpu_light_gtemp_mtemp.log" <<'PY'; then ok; else nok "light dmon: nearly idle with its numbers"; fi
import json, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]
# the file's sm column, read independently of gpudiag
lines = [l.split() for l in open(sys.argv[2]) if l.strip()]
cols = lines[0][1:]
sm = [int(r[cols.index("sm")]) for r in lines if not r[0].startswith("#")]
assert sm == [2, 0, 0, 1, 9], sm
assert v["bottleneck"] == "unknown", v
assert v["summary"] == "The GPU is nearly idle: gpu_util median 1 %, at most 9 % over 5 samples", v["summary"]
assert "measurable work" not in v["summary"], v
PY
fi
# b) every sample 0 (dmon sm 0, 0, 0, 0): idle, said as such with the count.
{ echo "$HDR"; row 0 0; row 0 0; row 0 0; row 0 0; } > "$TMP/zero.log"
js "$TMP/zero.log" "$TMP/zero.json"
python3 -c "
import json, sys; v = json.load(open(sys.argv[1]))['verdict']
assert v['bottleneck'] == 'unknown' and v['summary'] == 'The GPU is idle: gpu_util 0 % in all 4 samples', v" "$TMP/zero.json" \
    && ok || nok "all-zero dmon: idle with its count"
# c) two GPUs, GPU 0 sm 0, 0, 0 and GPU 1 sm 0, 3, 5 (rows interleaved as dmon prints them): GPU 1 is the
#    busiest (max 5 %), median of 0, 3, 5 = 3 %.
{ echo "$HDR"; row 0 0; row 1 0; row 0 0; row 1 3; row 0 0; row 1 5; } > "$TMP/pair.log"
js "$TMP/pair.log" "$TMP/pair.json"
python3 -c "
import json, sys; v = json.load(open(sys.argv[1]))['verdict']
want = 'All GPUs are nearly idle: the busiest, GPU 1, has gpu_util median 3 %, at most 5 % over 3 samples'
assert v['bottleneck'] == 'unknown' and v['summary'] == want, v" "$TMP/pair.json" \
    && ok || nok "two nearly idle GPUs: the busiest named"
# d) two GPUs, sm 0 in every row of both: "All GPUs are idle", no GPU named.
{ echo "$HDR"; row 0 0; row 1 0; row 0 0; row 1 0; } > "$TMP/pair0.log"
js "$TMP/pair0.log" "$TMP/pair0.json"
python3 -c "
import json, sys; v = json.load(open(sys.argv[1]))['verdict']
assert v['bottleneck'] == 'unknown' and v['summary'] == 'All GPUs are idle: gpu_util 0 % in every sample', v" "$TMP/pair0.json" \
    && ok || nok "two idle GPUs: idle in every sample"

finish
