#!/bin/sh
# test_mfu.sh — `gpudiag mfu` reproduces published MFUs from their own inputs
# (torchtitan Llama 3.1 8B on H100: 33.7 % eager, 39.0 % compiled; PaLM 540B:
# 46.2 %), the step-time form, recompute, and its usage errors (exit 2).
. "$(dirname "$0")/common.sh"
check() { # LABEL PYEXPR-LIST over j (the JSON)
    python3 - "$TMP/out" "$1" "$2" <<'PY' || nok "checks of $1 (above)"
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
j = json.load(open(sys.argv[1]))
valcheck.run(eval(sys.argv[3]), sys.argv[2], rel=1e-3)
PY
}
# torchtitan: 8 GPUs at 5,762 TPS per GPU; the H100 row's BF16 peak 989.4
expect_rc 0 "$GPUDIAG" mfu --json --model llama3.1-8b --tokens-per-sec 46096 --gpus 8 --gpu 'NVIDIA H100'
check torchtitan-eager '[("params_matmul", j["model"]["params_matmul"], 7504924672),
  ("flops", j["flops_per_token"]["model"], 6*7504924672 + 12*32*32*128*8192),
  ("tps/gpu", j["throughput"]["tokens_per_sec_per_gpu"], 5762),
  ("mfu", round(j["mfu"], 3), 0.337), ("hfu", j["hfu"], j["mfu"]), ("uncertain gpu", j["gpu"]["uncertain"], True)]'
expect_rc 0 "$GPUDIAG" mfu --json --model llama3-8b --tokens-per-sec-per-gpu 6667 --peak-tflops 989.4
check torchtitan-compile '[("mfu", round(j["mfu"], 3), 0.390), ("peak", j["gpu"]["peak_tflops"], 989.4)]'
# PaLM 540B: N = 540.35B, L 118, H 48, Q 256, T 2048; 238.3K tokens/s on 6144 chips of 275 TFLOP/s
expect_rc 0 "$GPUDIAG" mfu --json --params 540.35B --layers 118 --heads 48 --head-dim 256 --seq 2048 \
    --tokens-per-sec 238.3k --gpus 6144 --peak-tflops 275 --recompute full
check palm '[("mfu", round(j["mfu"], 3), 0.462), ("hfu full", j["hfu"], j["mfu"] * 4 / 3),
  ("attention", j["flops_per_token"]["attention_term"], 12*118*48*256*2048)]'
# step time + tokens per step = tokens/s; causal halves the attention term
expect_rc 0 "$GPUDIAG" mfu --json --model gpt2 --step-time 0.5 --tokens-per-step 61440 --gpu A100-SXM4-80GB --causal-half
check gpt2-step '[("tps", j["throughput"]["tokens_per_sec"], 122880),
  ("attention", j["flops_per_token"]["attention_term"], 6*12*12*64*1024),
  ("mfu", j["mfu"], (6*(124439808 - 1024*768) + 6*12*12*64*1024) * 122880 / 312e12)]'
expect_rc 0 "$GPUDIAG" mfu --model llama3-8b --tokens-per-sec 5762 --gpu 'NVIDIA H100'
grep -q "^MFU 33.7%   HFU 33.7%" "$TMP/out" || nok "text MFU line"
# usage errors
expect_rc 2 "$GPUDIAG" mfu --model llama3-8b --gpu H200
expect_rc 2 "$GPUDIAG" mfu --model llama3-8b --tokens-per-sec 1 --tokens-per-sec-per-gpu 1 --gpu H200
expect_rc 2 "$GPUDIAG" mfu --model llama3-8b --tokens-per-sec 1000
expect_rc 2 "$GPUDIAG" mfu --model llama3-8b --tokens-per-sec 1000 --gpu A100
grep -q "ambiguous" "$TMP/err" || nok "--gpu A100 not called ambiguous"
expect_rc 2 "$GPUDIAG" mfu --model nosuch --tokens-per-sec 1000 --gpu H200
expect_rc 2 "$GPUDIAG" mfu --tokens-per-sec 1000 --gpu H200
expect_rc 2 "$GPUDIAG" mfu --model gpt2 --tokens-per-sec 1000 --gpu H200 --recompute some
expect_rc 2 "$GPUDIAG" mfu --model gpt2 --tokens-per-sec -5 --gpu H200
expect_rc 2 "$GPUDIAG" mfu --model gpt2 --tokens-per-sec 1000 --gpu 'Tesla T4' --dtype bf16
expect_rc 2 "$GPUDIAG" mfu --model gpt2 --step-time 1 --gpu H200
expect_rc 0 "$GPUDIAG" mfu --help
finish
