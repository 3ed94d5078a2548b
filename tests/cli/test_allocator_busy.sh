#!/bin/sh
# allocator_churn's estimate is at most the idle time (FINDINGS allocator_churn, gain column): a
# call while the GPU computes costs the device nothing.  A new user's trace: 6 steps
# ProfilerStep#i [10000 i, 10000 i + 10000] (i = 1..6), in each two 4.9 ms GEMM kernels
# [B+10, B+4910] and [B+4910, B+9810] (B = 10000 i; launched at B and B+4900, 5 us calls) and one
# cudaMalloc [B+100, B+2100] (2000 us) under the first kernel; no cudaFree.
# By hand: steps after the first 5 x 10000 us, malloc calls 1 per step -> churn by calls;
# alloc_call_time_share = 2000 / 10000 = 0.2; GPU utilization 9800 / 10000 = 0.98, no start-up,
# so the idle share is 0.02 and the estimate min(0.2, 0.02) = 0.02 (it read 0.2, "could save ~20%",
# and led the verdict); the verdict is the GEMMs' (no allocator verdict). The title says no
# "cudaFree also waits" (no frees). A ROCm copy (hipMalloc, an MI250X) names hipMalloc.
set -eu
GD_TMP_TAG=allocbusy
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
cat > "$TMP/gen.py" <<'PY'
import json, sys
out, mal, launch, gpu = sys.argv[1:5]
ev, corr = [], 1
for i in range(1, 7):
    B = 10000 * i
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i, "pid": 1, "tid": 1, "ts": B,
               "dur": 10000, "args": {}})
    for k, (ls, ks) in enumerate(((B, B + 10), (B + 4900, B + 4910))):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": launch, "pid": 1, "tid": 1, "ts": ls, "dur": 5,
                   "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)",
                   "pid": 0, "tid": 7, "ts": ks, "dur": 4900, "args": {"device": 0, "stream": 7, "correlation": corr}})
        corr += 1
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": mal, "pid": 1, "tid": 1, "ts": B + 100, "dur": 2000,
               "args": {"correlation": corr}})
    corr += 1
json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": gpu, "numSms": 108}], "traceEvents": ev},
          open(out, "w"))
PY
python3 "$TMP/gen.py" "$TMP/busy.json" cudaMalloc cudaLaunchKernel "NVIDIA A100-SXM4-80GB"
python3 "$TMP/gen.py" "$TMP/busy_hip.json" hipMalloc hipLaunchKernel "AMD Instinct MI250X"
for k in busy busy_hip; do
    "$GPUDIAG" analyze --json "$TMP/$k.json" > "$TMP/$k.out"
    python3 - "$TMP/$k.out" "$k" <<'PY' && ok || bad "$k: allocator_churn capped at the idle share"
import json, sys
d = json.load(open(sys.argv[1])); f = {x["id"]: x for x in d["findings"]}
a = f.get("allocator_churn", {})
mal = "hipMalloc" if sys.argv[2] == "busy_hip" else "cudaMalloc"
checks = [
    ("gpu_utilization", round(d["summary"]["gpu_utilization"], 6), 0.98),
    ("est_gain", round(a.get("est_gain") or -1, 6), 0.02),
    ("alloc_call_time_share", round(a.get("evidence", {}).get("alloc_call_time_share", -1), 6), 0.2),
    ("verdict not allocator", d["verdict"]["finding"] != "allocator_churn", True),
    ("title names " + mal, ("1 %s and 0 " % mal) in a.get("title", ""), True),
    ("no cudaFree wait", "also waits" in a.get("title", ""), False),
]
bad = [c for c in checks if c[1] != c[2]]
for c in bad:
    print("  %s: got %r, expected %r" % c)
sys.exit(1 if bad else 0)
PY
done
finish
