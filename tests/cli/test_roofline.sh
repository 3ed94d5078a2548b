#!/bin/sh
# test_roofline.sh — the `roofline` section (docs/DEFINITIONS.md "Roofline of
# the kernels") against numbers derived by hand, with both event readers.
#
# tests/data/ok_roofline_mm.json: one H100 SXM ("NVIDIA H100 80GB HBM3":
# bf16 989.4, fp32 67 TFLOP/s, 3350 GB/s; ridges 989.4e12/3.35e12 = 295.343 and
# 67/3.35 = 20 FLOP/B), two steps:
#  K1 aten::mm bf16 [4096,4096]x[4096,4096], 200 µs in each step:
#     FLOPs 2·4096³ = 137,438,953,472 per call (x2 = 274,877,906,944);
#     bytes 3·4096²·2 = 100,663,296 per call (x2 = 201,326,592);
#     I = 4096/3 = 1365.33 >= 295.343 -> compute; 2·4096³/200e-6 = 687.195 TFLOP/s,
#     ÷ 989.4 = 0.694557; attainable = min(989.4, 1365.33·3.35) = 989.4.
#  K2 aten::addmm bf16 bias [4096], [64,4096]x[4096,4096], 50 µs:
#     FLOPs 2·64·4096·4096 = 2,147,483,648; bytes (64·4096 + 4096² + 64·4096)·2 = 34,603,008;
#     I = 62.0606 < 295.343 -> memory; 42.9497 TFLOP/s = 0.0434098 of peak;
#     attainable 62.0606·3.35 = 207.903.
#  K3 aten::linear [8,1024] fp32 holding aten::addmm [1024],[8,1024],[1024,1024], 10 µs:
#     counted once: FLOPs 2·8·1024·1024 = 16,777,216; bytes (8·1024 + 1024² + 8·1024)·4
#     = 4,259,840; I = 3.93846 < 20 -> memory; 1.67772 TFLOP/s = 0.0250406 of 67.
#  K4 aten::conv2d with flops=1e9, 100 µs, fp32: 10 TFLOP/s = 0.149254 of 67; no bytes,
#     no intensity, no bound (convolutions are not counted from shapes).
#  K5 an elementwise add (no FLOPs): not on the roofline.
# Totals: 4 names, 5 launches, 560 µs of the 565 µs of kernel time (0.99115).
. "$(dirname "$0")/common.sh"
fails=0
D="$GD_TEST_DATA/ok_roofline_mm.json"
check_both_readers "$D" '
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
r = json.load(open(sys.argv[1]))["roofline"]
k = {x["name"][:30]: x for x in r["kernels"]}
K1 = [x for x in r["kernels"] if "128x128x64" in x["name"]][0]
K2 = [x for x in r["kernels"] if "64x64x64" in x["name"]][0]
K3 = k["ampere_sgemm_32x32_sliced1x4_t"]
K4 = k["implicit_convolve_sgemm"]
valcheck.run([
  ("gpu", r["gpu"], "NVIDIA H100 80GB HBM3"), ("bw", r["mem_bw_gbs"], 3350),
  ("names", r["kernel_names"], 4), ("calls", r["calls"], 5), ("time", r["time_us"], 560),
  ("flops", r["flops"], 274877906944 + 2147483648 + 16777216 + 1e9), ("share", r["kernel_time_share"], 560 / 565),
  ("order", [x["time_us"] for x in r["kernels"]], [400, 100, 50, 10]),
  ("K1 calls", K1["calls"], 2), ("K1 flops", K1["flops"], 274877906944), ("K1 bytes", K1["bytes"], 201326592),
  ("K1 I", K1["intensity"], 4096 / 3), ("K1 tflops", K1["achieved_tflops"], 687.194767),
  ("K1 share", K1["peak_share"], 687.194767 / 989.4), ("K1 ridge", K1["ridge"], 989.4 / 3.35),
  ("K1 att", K1["attainable_tflops"], 989.4), ("K1 bound", K1["bound"], "compute"), ("K1 dt", K1["dtype"], "bf16"),
  ("K1 src", K1["source"], "shapes"),
  ("K2 flops", K2["flops"], 2147483648), ("K2 bytes", K2["bytes"], 34603008), ("K2 I", K2["intensity"], 62.060606),
  ("K2 tflops", K2["achieved_tflops"], 42.949673), ("K2 bound", K2["bound"], "memory"),
  ("K2 att", K2["attainable_tflops"], 62.060606 * 3.35),
  ("K3 calls", K3["calls"], 1), ("K3 flops", K3["flops"], 16777216), ("K3 bytes", K3["bytes"], 4259840),
  ("K3 dt", K3["dtype"], "fp32"), ("K3 share", K3["peak_share"], 1.6777216 / 67), ("K3 bound", K3["bound"], "memory"),
  ("K3 ridge", K3["ridge"], 20),
  ("K4 src", K4["source"], "flops_arg"), ("K4 tflops", K4["achieved_tflops"], 10), ("K4 share", K4["peak_share"], 10 / 67),
  ("K4 bytes", K4["bytes"], None), ("K4 bound", K4["bound"], None),
], sys.argv[2], rel=1e-5)
' || fails=$((fails + 1))

# A real trace with record_shapes (HTA's A100 rank, fp32 linear/addmm/mm): the
# roofline exists, every top kernel is a GEMM with intensity, bound and a share
# of peak below 1, and Tensor Core (cutlass tensorop) kernels are held to the TF32 roof.
R="$GD_SHARED/data/traces/a100_8rank_rank3_control.json.gz"
if [ -f "$R" ]; then
    "$GPUDIAG" analyze --json "$R" > "$TMP/real.json" || fails=$((fails + 1))
    python3 - "$TMP/real.json" <<'PY' || fails=$((fails + 1))
import json, sys
r = json.load(open(sys.argv[1]))["roofline"]
bad = []
if not r or r["gpu"] != "NVIDIA A100-PG509-200" or len(r["kernels"]) != 10: bad.append("section")
for k in (r or {}).get("kernels", []):
    if not (k["intensity"] and 1 < k["intensity"] < 1e4 and 0 < k["peak_share"] < 1 and k["bound"] in ("compute", "memory")):
        bad.append(k["name"][:40])
    if "tensorop" in k["name"] and k["dtype"] != "tf32": bad.append("tf32 " + k["name"][:40])
    if "sgemm" in k["name"] and k["dtype"] != "fp32": bad.append("fp32 " + k["name"][:40])
    want = "compute" if k["intensity"] >= k["ridge"] else "memory"
    if k["bound"] != want: bad.append("bound " + k["name"][:40])
if bad: print("FAIL real trace:", bad); sys.exit(1)
print("ok real trace: %d names, %.1f%% of kernel time" % (r["kernel_names"], 100 * r["kernel_time_share"]))
PY
fi
# A GPU without a TF32 rate (MI250: AMD CDNA2 has none): fp32 rocBLAS/Tensile GEMMs on
# Matrix Cores (MFMA tiles _MI16x16x1_) are held to the FP32 *matrix* roof of an MI250 GCD
# (AMD data sheet: 90.5 TFLOPS per package / 2 GCDs = 45.25; 104 CUs x 256 FLOP x 1.7 GHz),
# not the 22.65 vector one.  By hand: aten::mm [128,5]x[5,128]: 2*128*128*5 = 163840 FLOPs,
# (640 + 640 + 16384) * 4 = 70656 bytes, 2.319 FLOP/B; ridge 45.25e3 / 1638.4 = 27.62;
# 163840 FLOPs / 17.6 us = 0.009309 TFLOP/s = 0.0206 % of 45.25.  With --peak-tflops the
# override applies and matrix_peak is false.
M="$GD_SHARED/data/traces/mi250_rocm_minitoy_train.json.gz"
if [ -f "$M" ]; then
    "$GPUDIAG" analyze --json "$M" | python3 -c '
import json, sys
k = json.load(sys.stdin)["roofline"]["kernels"][0]
ok = (k["dtype"] == "fp32" and k["matrix_peak"] is True and k["peak_tflops"] == 45.25
      and abs(k["intensity"] - 163840 / 70656) < 1e-4 and abs(k["ridge"] - 45.25e3 / 1638.4) < 1e-3
      and abs(k["achieved_tflops"] - 163840 / 17.6e-6 / 1e12) < 1e-6
      and abs(k["peak_share"] - 163840 / 17.6e-6 / 1e12 / 45.25) < 1e-7 and k["bound"] == "memory")
sys.exit(0 if ok else print(k) or 1)' || { echo "FAIL: MI250 fp32 matrix roof"; fails=$((fails + 1)); }
    "$GPUDIAG" analyze --json --peak-tflops 30 "$M" | python3 -c '
import json, sys
k = json.load(sys.stdin)["roofline"]["kernels"][0]
sys.exit(0 if k["peak_tflops"] == 30 and k["matrix_peak"] is False else 1)' || { echo "FAIL: MI250 --peak-tflops"; fails=$((fails + 1)); }
    "$GPUDIAG" analyze --no-color "$M" > "$TMP/mi250.txt" 2>&1
    grep -qF "fp32 kernels on Matrix Cores (MFMA) are held to the FP32 matrix peak, 45.25 TFLOP/s" "$TMP/mi250.txt" &&
        grep -qF "roof: fp32 matrix (MFMA) peak" "$TMP/mi250.txt" || { echo "FAIL: MI250 text roof"; fails=$((fails + 1)); }
fi
# The text roofline: the table row of K1 and K2 with the numbers above, and the
# plot's roof line for bf16 on the H100 (peak 989.4, ridge 295.3).
"$GPUDIAG" analyze --no-color --width 120 "$D" > "$TMP/text.txt" || fails=$((fails + 1))
for want in \
    "   1     0.400      2   274.9G   687.19  69.5%  1365.3   295.3 compute bf16  sm90_xmma_gemm_bf16bf16_bf16f32_f3" \
    "   3     0.050      1     2.1G    42.95   4.3%    62.1   295.3 memory  bf16  sm90_xmma_gemm_bf16bf16_bf16f32_f3" \
    "   2     0.100      1     1.0G    10.00  14.9%     n/a    20.0 n/a     fp32  implicit_convolve_sgemm" \
    "roof: bf16 peak 989.4 TFLOP/s, 3350 GB/s, ridge 295.3 FLOP/B"; do
    grep -qF -- "$want" "$TMP/text.txt" || { echo "FAIL: text lacks '$want'"; fails=$((fails + 1)); }
done
# HTML: the roofline chart and table pass the page checker, and a hostile
# kernel name on the chart (a <title> of a point) and in the table stays text.
sed 's/ampere_sgemm_32x32_sliced1x4_tn/<\/title><script>alert(1)<\/script>/' "$D" > "$TMP/hostile_rl.json"
"$GPUDIAG" analyze -q --html "$TMP/rl.html" "$TMP/hostile_rl.json" > /dev/null || fails=$((fails + 1))
python3 "$HERE/htmlcheck.py" "$TMP/rl.html" '</title><script>alert(1)</script>' || { echo "FAIL: roofline html"; fails=$((fails + 1)); }
grep -q 'Roofline of the top kernels</title>' "$TMP/rl.html" || { echo "FAIL: no roofline chart"; fails=$((fails + 1)); }
grep -q '<path class="roof" d="M70.0 276.6 L514.7 91.3 L790.0 91.3"/>' "$TMP/rl.html" ||
    { echo "FAIL: bf16 roof (ridge 295.3 at x=514.7, peak 989.4 at y=91.3)"; fails=$((fails + 1)); }
# low_mfu names the memory-bound kernels of the roofline, longest first: K2 50/565 µs
# of kernel time = 9%, I 62.1 < ridge 295; K3 10/565 = 2%, 3.9 < 20 (MFU with gpt2 and 10
# tokens per step is far below 30%).
"$GPUDIAG" analyze --json --model gpt2 --tokens-per-step 10 "$D" > "$TMP/mfu.json" || fails=$((fails + 1))
python3 - "$TMP/mfu.json" <<'PY' || fails=$((fails + 1))
import json, sys
f = {x["id"]: x for x in json.load(open(sys.argv[1]))["findings"]}["low_mfu"]["recommendation"]
want = ("Memory-bound on the roofline: sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize64x64x64_cu... "
        "(9% of kernel time, 62.1 FLOP/B < ridge 295); ampere_sgemm_32x32_sliced1x4_tn "
        "(2% of kernel time, 3.9 FLOP/B < ridge 20)")
if want not in f: print("FAIL low_mfu:", f); sys.exit(1)
PY
# No shapes, no flops args: no roofline
"$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_two_steps.json" | python3 -c '
import json, sys; r = json.load(sys.stdin)["roofline"]
sys.exit(0 if r is None else 1)' || { echo "FAIL: roofline without FLOPs"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "test_roofline: ok" || { echo "test_roofline: $fails failed"; exit 1; }
