#!/bin/sh
# test_plan.sh — `gpudiag plan`: the bill of Llama 2 7B on an A100 80GB (hand:
# 16 B x 6,738,415,616 params + 32 layers x 194 x 4096^2 B of activations), the
# fit against 80 GiB, the trade-off table, LoRA's count, and usage errors.
. "$(dirname "$0")/common.sh"
check() {
    python3 - "$TMP/out" "$1" "$2" <<'PY' || nok "checks of $1 (above)"
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
j = json.load(open(sys.argv[1]))
valcheck.run(eval(sys.argv[3]), sys.argv[2], rel=1e-9)
PY
}
P=6738415616
expect_rc 0 "$GPUDIAG" plan --json --model llama2-7b --gpu A100-SXM4-80GB
check full-adam "[('states', j['memory_bytes']['weights'] + j['memory_bytes']['gradients'] + j['memory_bytes']['optimizer'], 16*$P),
  ('acts', j['memory_bytes']['activations'], 32*194*4096*4096), ('fits', j['fits'], False),
  ('capacity', j['gpu']['memory_bytes'], 80*2**30), ('binds', j['binds'], 'memory_capacity'), ('tradeoffs', j['tradeoffs'], [])]"
# does not fit: each saving not in use alone, then all but LoRA together (hand: activations
# 32 x 194 x 4096^2 B, 32 x 34 x 4096^2 with flash, 32 x 2 x 4096^2 + one layer's set with full
# recompute; offload moves the 12 B/param Adam states; LoRA r16 on q,v = 32 x 2 x 16 x 8192 adapters)
A=$((4096 * 4096))
L16=$((32 * 2 * 16 * 8192))
check options "[('uncertain', j['gpu']['uncertain'], False), ('name', j['gpu']['name'], 'NVIDIA A100-SXM4-80GB'),
  ('techniques', [o['technique'] for o in j['options']], ['FlashAttention (--flash)', 'full recompute (--recompute full)',
    'CPU offload (--offload optimizer)', 'LoRA rank 16 (q,v) (--lora-rank 16)', 'all of the above but LoRA']),
  ('flash saves', j['options'][0]['saves_bytes'], 32*160*$A), ('flash total', j['options'][0]['total_bytes'], 16*$P + 32*34*$A),
  ('recompute total', j['options'][1]['total_bytes'], 16*$P + 32*2*$A + 194*$A),
  ('offload saves', j['options'][2]['saves_bytes'], 12*$P), ('lora total', j['options'][3]['total_bytes'], 2*$P + 16*$L16 + 32*194*$A),
  ('all total', j['options'][4]['total_bytes'], 4*$P + 32*2*$A + 34*$A),
  ('fits', [o['fits'] for o in j['options']], [False, False, False, False, True])]"
expect_rc 0 "$GPUDIAG" plan --model llama2-7b --gpu A100-SXM4-80GB
grep -q "^IT DOES NOT FIT: each memory saving not in use" "$TMP/out" && grep -q "28.60 GB fits" "$TMP/out" &&
    grep -q "the table above shows what each saves and costs" "$TMP/out" ||
    { nok "the table the verdict names is missing"; cat "$TMP/out"; }
# --gpu H100 takes the UNCERTAIN 96 GB row: named and marked, in text and JSON, unless overridden
expect_rc 0 "$GPUDIAG" plan --json --model llama2-7b --gpu H100
check h100 "[('name', j['gpu']['name'], 'NVIDIA H100'), ('uncertain', j['gpu']['uncertain'], True),
  ('capacity', j['gpu']['memory_bytes'], 96*2**30)]"
expect_rc 0 "$GPUDIAG" plan --model llama2-7b --gpu H100
grep -q "^gpu          NVIDIA H100: 96 GB" "$TMP/out" && grep -q "UNCERTAIN row" "$TMP/out" ||
    nok "plan --gpu H100 does not name the uncertain row"
expect_rc 0 "$GPUDIAG" plan --model llama2-7b --gpu H100 --gpu-mem 96 --peak-tflops 900
grep -q "UNCERTAIN row" "$TMP/out" && nok "UNCERTAIN although both overridden"
expect_rc 0 "$GPUDIAG" plan --json --model llama2-7b --gpu A100-SXM4-80GB --gpus 8 --zero 3 --flash --recompute full
check zero3 "[('states', j['memory_bytes']['weights'] + j['memory_bytes']['gradients'] + j['memory_bytes']['optimizer'], 2*$P),
  ('acts', j['memory_bytes']['activations'], 32*2*4096*4096 + 34*4096*4096), ('fits', j['fits'], True),
  ('techniques', [t['technique'] for t in j['tradeoffs']], ['full recompute', 'FlashAttention', 'ZeRO stage 3 over 8 GPUs']),
  ('recompute share', j['time']['recompute_share'], 1/3), ('binds', j['binds'], 'compute'), ('options', j['options'], [])]"
expect_rc 0 "$GPUDIAG" plan --json --model llama2-7b --lora-rank 8 --gpu-mem 24
check lora "[('trainable', j['trainable_params'], 4194304), ('gpu', j['gpu']['memory_bytes'], 24e9)]"
expect_rc 0 "$GPUDIAG" plan --model llama2-7b --gpu A100-SXM4-80GB --offload optimizer --grad-accum 4
grep -q "saves memory" "$TMP/out" && grep -q "CPU offload (optimizer)" "$TMP/out" && grep -q "^VERDICT" "$TMP/out" ||
    nok "trade-off table or verdict missing"
# no GPU: the compute time is unknown and the text says what to give, never "nan"
expect_rc 0 "$GPUDIAG" plan --model llama2-7b --lora-rank 16 --qlora --gpu-mem 24
grep -q "give --gpu or --peak-tflops for the time" "$TMP/out" || nok "compute line without a GPU"
grep -qi "nan" "$TMP/out" && nok "nan in plan text without a GPU"
expect_rc 2 "$GPUDIAG" plan --offload disk --model llama2-7b
grep -q "offload wants none, optimizer or params, got 'disk'" "$TMP/err" || nok "--offload message"
expect_rc 2 "$GPUDIAG" plan --params 7e9
grep -q "layers, hidden size, heads and sequence" "$TMP/err" || nok "message for --params alone"
expect_rc 2 "$GPUDIAG" plan --model llama2-7b --zero 4
expect_rc 2 "$GPUDIAG" plan --model llama2-7b --optimizer lion
expect_rc 2 "$GPUDIAG" plan --model llama2-7b --lora-rank 8 --lora-targets q,x
expect_rc 2 "$GPUDIAG" plan --model llama2-7b --qlora
expect_rc 2 "$GPUDIAG" plan --model llama2-7b --micro-batch 0
expect_rc 0 "$GPUDIAG" plan --help
finish
