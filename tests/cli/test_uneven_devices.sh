#!/bin/sh
# The "no evidence of why" verdict of a trace whose GPUs differ by >= 0.5 in utilization names both
# (docs/FINDINGS.md "verdict.finding"). A new user's trial: one process, GPU 0 busy with GEMMs, GPU 1
# given one 5 us kernel per step read "The GPU is idle 57% of the step" (the average of the two).
# By hand: 5 steps of 1000 us; each step, 9 launches 100 us apart of a 95 us Tensor Core GEMM on GPU 0
# (855 us: 85.5 %) and one 5 us kernel on GPU 1 (0.5 %): difference 0.85 -> "GPU 0 runs kernels 85.5%
# of the step, GPU 1 0.5%".  Near miss: GPU 1 gets 4 of the 95 us GEMMs per step (380 us: 38.0 %;
# difference 0.475 < 0.5): no such sentence.
set -u
GD_TMP_TAG=uneven
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
GEN='
import json, sys
n1 = int(sys.argv[2])
ev, c = [], 1
def launch(ts, dev, kts, dur, name):
    global c
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": ts,
               "dur": 5, "args": {"correlation": c}})
    ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": dev, "tid": 7 + dev, "ts": kts, "dur": dur,
               "args": {"device": dev, "stream": 7 + dev, "correlation": c}})
    c += 1
for s in range(5):
    t0 = 1000 + 1000 * s
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (s + 1), "pid": 100, "tid": 100,
               "ts": t0, "dur": 1000})
    for j in range(9):
        launch(t0 + 5 + 100 * j, 0, t0 + 10 + 100 * j, 95, "sm80_xmma_gemm_f16f16_f16f32")
    if n1 == 0:
        launch(t0 + 950, 1, t0 + 960, 5, "volta_sgemm_128x64_nn")
    for j in range(n1):
        launch(t0 + 7 + 100 * j, 1, t0 + 12 + 100 * j, 95, "sm80_xmma_gemm_f16f16_f16f32")
props = [{"id": i, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85899345920, "computeMajor": 8,
          "computeMinor": 0, "numSms": 108} for i in range(2)]
json.dump({"schemaVersion": 1, "deviceProperties": props, "traceEvents": ev}, open(sys.argv[1], "w"))'
python3 -c "$GEN" "$TMP/uneven.json" 0
python3 -c "$GEN" "$TMP/near.json" 4
"$GPUDIAG" analyze "$TMP/uneven.json" > "$TMP/u.txt" 2>&1
tr '\n' ' ' < "$TMP/u.txt" | tr -s ' ' | grep -q "GPU 0 runs kernels 85.5% of the step, GPU 1 0.5%: the work is not spread over the GPUs" &&
    ok || nok "uneven GPUs: $(sed -n 5,9p "$TMP/u.txt")"
grep -q "The GPU is idle" "$TMP/u.txt" && nok "uneven GPUs: the averaged sentence is still there" || ok
"$GPUDIAG" analyze "$TMP/near.json" > "$TMP/n.txt" 2>&1
grep -q "not spread over the GPUs" "$TMP/n.txt" && nok "near miss (38 % against 85.5 %) called uneven" || ok
finish
