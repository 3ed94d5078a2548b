#!/bin/sh
# Kernel-mix findings on tests/data/ok_kernel_mix.json, by hand
# (docs/FINDINGS.md): one step [1000,2000]; kernels back to back on one stream:
#   GELU elementwise 300 us, layer_norm 200 us, strided-batched GEMM 300 us, softmax 100 us
#   kernel time 900 us, Kernel share of the step 0.9
#   memory_bound_kernels: (300 + 200 + 100) / 900 = 0.6667 >= 0.4 and 0.9 >= 0.5;
#     est_gain = 0.5 x 0.6667 x 0.9 = 0.3 (high)
#   attention_unfused: softmax 100/900 = 0.1111 >= 0.02 with a batched GEMM and no
#     attention kernel; severity medium (>= 0.10), est_gain null
#   no_tensor_cores: GEMM share 300/900 = 0.3333 on a compute-capability-8 GPU with no
#     Tensor Core kernel; est_gain = 0.9 x 0.3333 x 0.5 = 0.15
#   classes: elementwise 300, norm 200, gemm 300, reduction 100
#   kernel durations 300, 200, 300, 100: median (200 + 300) / 2 = 250 us; 4 distinct names;
#   the top kernel by total time is the GELU one (ties with the GEMM at 300 us are ordered
#   by name, "void at::" < "void gemmSN"), share 300 / 900; breakdown share of kernel 0.9
set -eu
GD_TMP_TAG=kmix
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

PY=$(cat <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
cls = {c["class"]: c["total_us"] for c in d["kernels"]["by_class"]}
g = lambda i, k: f[i][k] if i in f else None
checks = [
    ("classes", cls, {"elementwise": 300, "norm": 200, "gemm": 300, "reduction": 100}),
    ("membound gain", g("memory_bound_kernels", "est_gain"), 0.3),
    ("membound severity", g("memory_bound_kernels", "severity"), "high"),
    ("membound share", f["memory_bound_kernels"]["evidence"]["memory_bound_kernel_share"] if "memory_bound_kernels" in f else None, 0.666667),
    ("attention severity", g("attention_unfused", "severity"), "medium"),
    ("attention gain", g("attention_unfused", "est_gain"), None),
    ("attention share", f["attention_unfused"]["evidence"]["softmax_kernel_share"] if "attention_unfused" in f else None, 0.111111),
    ("tc gain", g("no_tensor_cores", "est_gain"), 0.15),
    ("first finding", d["findings"][0]["id"], "memory_bound_kernels"),
    ("median kernel", d["summary"]["median_kernel_us"], 250), ("distinct", d["kernels"]["distinct"], 4),
    ("kernel count", d["summary"]["kernel_count"], 4),
    ("top kernel", d["kernels"]["top"][0]["name"][:40], "void at::native::vectorized_elementwise_"),
    ("top share", d["kernels"]["top"][0]["share"], 0.333333),
    ("kernel share of step", d["breakdown"]["share"]["kernel"], 0.9),
]
import os
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF2
)
check_both_readers "$GD_TEST_DATA/ok_kernel_mix.json" "$PY"
