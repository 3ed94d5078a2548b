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
rc=$?
# tests/data/ok_comm_sendrecv.json (DEFINITIONS "Communication", collective kinds) — one step
#   [1000,2000]: GEMM [1010,1300]; ncclDevKernel_SendRecv [1310,1710] launched inside the
#   nccl:send annotation (not an all-to-all call -> send_recv 400); ncclDevKernel_AllReduce
#   [1720,1820] (all_reduce 100); GEMM [1830,2000]. Exposed communication 500 / 1000 = 0.5,
#   overlap 0 -> communication_bound, gain 0.5; send_recv share 400 / 500 = 0.8 >= 0.5 -> the
#   pipeline-parallel advice and short fix (before: DDP all-reduce advice).
PY_SR=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
c = f.get("communication_bound", {})
k = d["summary"]["comm_kernel_us_by_kind"]
checks = [
    ("send_recv us", k["send_recv"], 400), ("all_reduce us", k["all_reduce"], 100),
    ("all_to_all us", k["all_to_all"], 0), ("all_gather us", k["all_gather"], 0),
    ("comm share", d["summary"]["comm_share"], 0.5), ("gain", c.get("est_gain"), 0.5),
    ("send_recv share", c.get("evidence", {}).get("send_recv_share"), 0.8),
    ("all_reduce share", c.get("evidence", {}).get("all_reduce_share"), 0.2),
    ("title", c.get("title"), "Communication not hidden behind compute takes 50.0% of each step; point-to-point "
     "send/recv (pipeline parallelism) is 80% of the communication kernel time"),
    ("advice", c.get("recommendation", "").startswith("Shrink the pipeline bubble"), True),
    ("advice micro-batches", "number of micro-batches" in c.get("recommendation", ""), True),
    ("no DDP advice", "bucket_cap_mb" in c.get("recommendation", ""), False),
    ("bottleneck", d["verdict"]["bottleneck"], "communication"),
    ("verdict fix", "(more micro-batches, an interleaved pipeline schedule, overlap send/recv with compute)"
     in d["verdict"]["summary"], True),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF2
)
check_both_readers "$GD_TEST_DATA/ok_comm_sendrecv.json" "$PY_SR" || rc=1
# a100_8rank_rank3_control (shared): its 42 ncclKernel_SendRecv kernels are launched inside
#   nccl:all_to_all (130655 us, all of them linked) and 18 AllReduce kernels take 32880 us
#   (summed from the trace with a separate script): all-to-all 130655 / 163535 = 0.798942
#   -> the all-to-all advice (TorchRec pipelining), not pipeline parallelism nor DDP buckets.
A8=/work/shared/data/traces/a100_8rank_rank3_control.json.gz
if [ -f "$A8" ]; then
  if "$GPUDIAG" analyze --json "$A8" > "$TMP/a8.json" && python3 - "$TMP/a8.json" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
k = d["summary"]["comm_kernel_us_by_kind"]
assert k["all_to_all"] == 130655 and k["all_reduce"] == 32880 and k["send_recv"] == 0, k
c = {x["id"]: x for x in d["findings"]}["communication_bound"]
assert abs(c["evidence"]["all_to_all_share"] - 130655 / 163535) < 1e-5, c
assert c["recommendation"].startswith("Overlap and shrink the all-to-all"), c
EOF2
  then :; else echo "FAIL: a100_8rank all-to-all advice"; rc=1; fi
fi
exit $rc
