#!/bin/sh
# test_ncu.sh — `gpudiag analyze --ncu FILE` (docs/DEFINITIONS.md "Roofline of
# the kernels", "Nsight Compute CSV") with the hand-made sample
# tests/data/ncu/roofline_h100.csv (see tests/data/ncu/SOURCES.md) over
# tests/data/ok_roofline_mm.json (H100 SXM: fp32 67, fp16 989.4 TFLOP/s, 3350 GB/s,
# ridges 20 and 295.343 FLOP/B).  Units row: Mbyte = 1e6 bytes, usecond, inst.
#  row 0  ampere_sgemm_32x32_sliced1x4_tn (in the trace: 1 launch, 10 µs):
#         ffma 8,388,608 -> FLOPs 2·8388608 = 16,777,216 (fp32); bytes 4.50 Mbyte = 4,500,000;
#         I = 16777216/4500000 = 3.728270 < 20 -> memory; time from the trace (10 µs):
#         1.6777216 TFLOP/s, ÷ 67 = 0.0250406; replaces the shapes' estimate (source ncu).
#  rows 1-2 at::native::vectorized_elementwise_kernel = the function base of the trace's
#         "void at::native::vectorized_elementwise_kernel<4, ...>(...)" (1 launch, 5 µs):
#         2 rows for 1 launch -> the mean row: fadd 8,192 -> 8,192 FLOPs; 0.098304 Mbyte =
#         98,304 bytes; I = 1/12 = 0.0833333; 8192/5e-6 = 0.0016384 TFLOP/s.
#  row 3  layer_norm_fp16_kernel (not in the trace: on its own, ncu's 9.80 µs):
#         hadd 2,097,152 + hmul 1,048,576 + 2·hfma 2·2,097,152 = 7,340,032 FLOPs (fp16);
#         12.583 Mbyte = 12,583,000 bytes; I = 0.583329; 7340032/9.8e-6 = 0.748983 TFLOP/s,
#         ÷ 989.4 = 0.000757007; memory.
# Totals: rows 4, matched 3; names 6 (4 from the trace's shapes/flops + 2 ncu), calls
# 2+1+1+1+1+1 = 7, time 400+100+50+10+5+9.8 = 574.8 µs; the trace-joined 565 µs are all
# of the trace's kernel time (share 1).  Then the error paths: exit 3 with file, byte and line.
. "$(dirname "$0")/common.sh"
fails=0
D="$GD_TEST_DATA/ok_roofline_mm.json"
N="$GD_TEST_DATA/ncu"
"$GPUDIAG" analyze --json --ncu "$N/roofline_h100.csv" "$D" > "$TMP/r.json" || { echo "FAIL: exit $?"; fails=$((fails + 1)); }
python3 - "$TMP/r.json" <<'PY' || fails=$((fails + 1))
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
r = json.load(open(sys.argv[1]))["roofline"]
k = {x["name"]: x for x in r["kernels"]}
S = k["ampere_sgemm_32x32_sliced1x4_tn"]
E = [x for x in r["kernels"] if "vectorized_elementwise_kernel<4" in x["name"]][0]
L = k["layer_norm_fp16_kernel"]
valcheck.run([
  ("rows", r["ncu_rows"], 4), ("matched", r["ncu_matched"], 3), ("names", r["kernel_names"], 6),
  ("calls", r["calls"], 7), ("time", r["time_us"], 574.8), ("share", r["kernel_time_share"], 1),
  ("S src", S["source"], "ncu"), ("S flops", S["flops"], 16777216), ("S bytes", S["bytes"], 4500000),
  ("S I", S["intensity"], 3.728270), ("S time", S["time_us"], 10), ("S tflops", S["achieved_tflops"], 1.6777216),
  ("S share", S["peak_share"], 0.0250406), ("S dtype", S["dtype"], "fp32"), ("S bound", S["bound"], "memory"),
  ("E calls", E["calls"], 1), ("E flops", E["flops"], 8192), ("E bytes", E["bytes"], 98304),
  ("E I", E["intensity"], 1 / 12), ("E tflops", E["achieved_tflops"], 0.0016384), ("E bound", E["bound"], "memory"),
  ("L calls", L["calls"], 1), ("L time", L["time_us"], 9.8), ("L flops", L["flops"], 7340032),
  ("L bytes", L["bytes"], 12583000), ("L I", L["intensity"], 0.583329), ("L tflops", L["achieved_tflops"], 0.748983),
  ("L dtype", L["dtype"], "fp16"), ("L share", L["peak_share"], 0.000757007), ("L ridge", L["ridge"], 295.343),
], "ncu", rel=1e-5)
PY
# the text names the CSV's match count
"$GPUDIAG" analyze --no-color --ncu "$N/roofline_h100.csv" "$D" > "$TMP/text.txt"
grep -qF "3 of 4 Nsight Compute rows matched" "$TMP/text.txt" ||
    { echo "FAIL: text match count"; fails=$((fails + 1)); }
# errors: exit 3, the file, the byte offset of the line and the line
expect_err() { # FILE LINE TEXT
    "$GPUDIAG" analyze --ncu "$N/$1" "$D" > /dev/null 2> "$TMP/err"; rc=$?
    off=$(head -n $(($2 - 1)) "$N/$1" | wc -c | tr -d ' ')
    if [ "$rc" -ne 3 ] || ! grep -qF "$N/$1: byte $off: line $2: $3" "$TMP/err"; then
        echo "FAIL: $1: rc $rc, want 3 and 'byte $off: line $2: $3'"; cat "$TMP/err"; fails=$((fails + 1))
    fi
}
expect_err bad_fields.csv 3 "18 fields, but the header (line 1) has 22"
expect_err bad_number.csv 4 'column "gpu__time_duration.sum": "3.2O" is not a number'
expect_err bad_noname.csv 1 'no "Kernel Name" column'
expect_err bad_nometric.csv 1 "no FLOP metric"
# DRAM bytes but no FLOP metric (newcomer finding: its rows counted as kernels with known FLOPs, 0 each)
expect_err bad_dram_only.csv 1 "no FLOP metric"
"$GPUDIAG" analyze --ncu "$TMP/missing.csv" "$D" > /dev/null 2>&1; rc=$?
[ "$rc" -eq 3 ] || { echo "FAIL: missing CSV exit $rc, want 3"; fails=$((fails + 1)); }
"$GPUDIAG" analyze --ncu "" "$D" > /dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: empty --ncu exit $rc, want 2"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "test_ncu: ok" || { echo "test_ncu: $fails failed"; exit 1; }
