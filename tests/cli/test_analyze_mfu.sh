#!/bin/sh
# test_analyze_mfu.sh — `gpudiag analyze` with a model: the GPU identified from
# deviceProperties (exact name; AMD by CU count), MFU = FLOPs per token x
# tokens per step / mean step time / peak (recomputed here from the report's
# own step time and the CSV's peak), HFU with full recompute, low_mfu, the
# PCIe link rate next to the achieved copy rate, and usage errors.
. "$(dirname "$0")/common.sh"
check() {
    python3 - "$TMP/out" "$1" "$2" <<'PY' || nok "checks of $1 (above)"
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
j = json.load(open(sys.argv[1]))
dev = j["devices"][0]; s = j["summary"]
ids = {f["id"]: f for f in j["findings"]}
valcheck.run(eval(sys.argv[3]), sys.argv[2], rel=1e-6)
PY
}
EX="$GD_SRC/examples/resnet50_v100_num_workers_0.pt.trace.json.gz"
F=$((6 * 7504924672 + 12 * 32 * 32 * 128 * 8192))   # llama3-8b FLOPs per token (PaLM App. B)
# Volta has no BF16: the FP16 peak of the V100-DGXS row (125, uncertain) is used
expect_rc 0 "$GPUDIAG" analyze --json --model llama3-8b --tokens-per-step 10 "$EX"
check v100 "[('spec', dev['spec']['name'], 'Tesla V100-DGXS-32GB'), ('match', dev['spec']['match'], 'exact'),
  ('uncertain', dev['spec']['uncertain'], True), ('peak', dev['spec']['peak_tflops'], 125),
  ('ridge', dev['spec']['ridge_flop_per_byte'], 125000 / 900), ('pcie', dev['spec']['pcie_gbs_per_dir'], 15.75),
  ('dtype', s['mfu_dtype'], 'fp16'),
  ('flops/step', s['model_flops_per_step'], $F * 10),
  ('tflops', s['achieved_tflops_per_gpu'], $F * 10 / (s['step_time_us']['mean'] * 1e-6) / 1e12),
  ('mfu', s['mfu'], $F * 10 / (s['step_time_us']['mean'] * 1e-6) / 125e12), ('hfu', s['hfu'], s['mfu']),
  ('low_mfu', ids['low_mfu']['severity'], 'high'), ('low_mfu kind', ids['low_mfu']['kind'], 'symptom')]"
expect_rc 0 "$GPUDIAG" analyze --json --model llama3-8b --tokens-per-step 100 --recompute full --peak-tflops 100 "$EX"
check v100-full "[('hfu', s['hfu'], s['mfu'] * 4 / 3), ('peak', s['mfu_peak_tflops'], 100),
  ('mfu', s['mfu'], $F * 100 / (s['step_time_us']['mean'] * 1e-6) / 100e12)]"
# without a model: the GPU is still identified, MFU stays null, no low_mfu
expect_rc 0 "$GPUDIAG" analyze --json "$EX"
check no-model "[('mfu', s['mfu'], None), ('hfu', s['hfu'], None), ('spec', dev['spec']['name'], 'Tesla V100-DGXS-32GB'),
  ('low_mfu', 'low_mfu' in ids, False)]"
SH="$GD_SHARED/data/traces"
if [ -f "$SH/mi250_rocm_minitoy_train.json.gz" ]; then
    expect_rc 0 "$GPUDIAG" analyze --json "$SH/mi250_rocm_minitoy_train.json.gz"
    check mi250 "[('spec', dev['spec']['name'], 'AMD Instinct MI250X/MI250'), ('match', dev['spec']['match'], 'hardware'),
      ('peak', dev['spec']['peak_tflops'], 181.05)]"
    expect_rc 0 "$GPUDIAG" analyze --json "$SH/a100_nccl_2rank_rank0.json.gz"
    check a100-link "[('spec', dev['spec']['name'], 'NVIDIA A100-PG509-200'), ('peak', dev['spec']['peak_tflops'], 312),
      ('h2d link', j['transfers']['h2d']['link_gb_per_s'], 31.5),
      ('h2d share', j['transfers']['h2d']['link_share'],
        None if j['transfers']['h2d']['achieved_gb_per_s'] is None else j['transfers']['h2d']['achieved_gb_per_s'] / 31.5),
      ('d2d link', j['transfers']['d2d']['link_gb_per_s'], None)]"
    expect_rc 0 "$GPUDIAG" analyze --json --gpu 'H100 80GB HBM3' "$SH/a100_nccl_2rank_rank0.json.gz"
    check gpu-option "[('spec', dev['spec']['name'], 'NVIDIA H100 80GB HBM3'), ('match', dev['spec']['match'], 'option')]"
else
    echo "skip: shared traces not found (mi250, a100 link checks)"
fi
expect_rc 0 "$GPUDIAG" analyze --model llama3-8b --tokens-per-step 100 "$EX"
grep -q "MFU [0-9.]*%   HFU" "$TMP/out" || nok "text MFU line"
grep -q "low_mfu" "$TMP/out" || nok "low_mfu not in the text"
grep -q "impossible" "$TMP/out" && nok "'impossible' note at a plausible MFU"
# 16384 tokens per 177.59 ms step of an 8.03 B-parameter model is > 4000 % of a V100: said so
expect_rc 0 "$GPUDIAG" analyze --model llama3-8b --tokens-per-step 16384 "$EX"
grep -q "MFU above 100% is impossible" "$TMP/out" || nok "no warning for MFU above 100%"
expect_rc 2 "$GPUDIAG" analyze --tokens-per-step 100 "$EX"
expect_rc 2 "$GPUDIAG" analyze --model llama3-8b "$EX"
expect_rc 2 "$GPUDIAG" analyze --model llama3-8b --tokens-per-step 100 --gpu A100 "$EX"
finish
