#!/bin/sh
# Expert-parallel communication (DeepEP), FP8 GEMMs on Tensor Cores and GEMMs that leave SMs to
# communication (docs/DEFINITIONS.md "Step-time breakdown" DeepEP kernels, "Tensor Core share"
# FP8 GEMMs, "GEMM fill" SMs left to communication).  A trace generated here, H800-like
# (numSms 132, compute capability 9.0), one step [1000,2000] us, values derived by hand:
#   stream 27: get_dispatch_layout 1020-1030 (16 blocks; local, not communication),
#              DeepEP dispatch 1090-1290 (20 blocks), notify_dispatch 1400-1600 (9 blocks),
#              combine 1800-1850 (20 blocks), clean_low_latency_buffer 1950-1960 (1 block)
#   stream 7:  per_token_cast_to_fp8 1050-1090 (4096 blocks, class other), FP8 grouped GEMMs
#              G1 1100-1300, G2 1400-1600, G3 1700-1900, 112 blocks each (112/132 per SM)
# Communication: the four DeepEP kernels (200 + 200 + 50 + 10 = 460 us), kind all_to_all.
#   Kernel role = 10 + 40 + 200 + 200 + 200 = 650 us; communication not under a kernel:
#   1090-1100 and 1950-1960 = 20 us -> comm_share 0.02 (before: 0, no communication).
# Tensor Cores: the three FP8 GEMMs, 600 of 1110 us of kernel time -> 0.540541; GEMM-class
#   time on Tensor Cores 600/600 = 1 (before: 0 and 0).
# GEMM fill: G1 runs beside dispatch for 1100-1290 = 190 >= 100 us and 112 + 20 = 132 blocks ->
#   SMs left to communication (comm_filled_us 200); G2 beside notify_dispatch all 200 us but
#   112 + 9 = 121 < 132 -> underfilled; G3 beside combine 50 < 100 us -> underfilled.
#   underfilled_us 400, share 400/600 = 0.666667, sm_idle_us = 400 x 20/132 = 60.6061;
#   small_gemms (GEMM 600/1110 >= 0.2, 0.667 >= 0.5): est_gain 60.6061/1000 = 0.0606061
#   (before: underfilled 600, sm_idle 90.9091, gain 0.0909091).
# Case B: notify_dispatch at 20 blocks -> G2 too leaves its SMs to communication:
#   comm_filled_us 400, underfilled_us 200, share 0.333333 < 0.5 -> no small_gemms.
set -u
GD_TMP_TAG=epcomm
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
cd "$TMP" || exit 1

gen() { # gen OUT NOTIFY_BLOCKS
    python3 - "$1" "$2" <<'PY'
import json, sys
out, notify_blocks = sys.argv[1], int(sys.argv[2])
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000}]
def k(name, stream, ts, dur, grid):
    blocks = grid[0] * grid[1] * grid[2]
    ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur,
               "args": {"device": 0, "stream": stream, "grid": grid, "block": [128, 1, 1],
                        "blocks per SM": blocks / 132.0}})
k("void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int, int)", 27, 1020, 10, [16, 1, 1])
k("void dpsk::ep::internode::dispatch<false, 8, false, 8>(int4*, float*, long*, float*, dpsk::ep::internode::SourceMeta*)", 27, 1090, 200, [20, 1, 1])
k("void dpsk::ep::internode::notify_dispatch<false, 8>(int const*, long*, int, int const*)", 27, 1400, 200, [notify_blocks, 1, 1])
k("void deep_ep::internode::combine<__nv_bfloat16, 8>(int4*, float*, bool const*, int4 const*)", 27, 1800, 50, [20, 1, 1])
k("void deep_ep::internode_ll::clean_low_latency_buffer<32>(int*, int, int*, int)", 27, 1950, 10, [1, 1, 1])
k("void cuda::per_token_cast_to_fp8_with_channels<__nv_bfloat16, 128, false, 128, false>(__nv_bfloat16 const*, int, unsigned char*, float*, int, int, int, int, bool, float, __nv_fp8_interpretation_t)", 7, 1050, 40, [4096, 1, 1])
k("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>(dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel::Params)", 7, 1100, 200, [2, 56, 1])
k("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel>(dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel::Params)", 7, 1400, 200, [1, 112, 1])
k("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_dptp128c_acc::GemmKernel>(dpsk::grouped_gemm::cuda::fp8_dptp128c_acc::GemmKernel::Params)", 7, 1700, 200, [2, 56, 1])
props = [{"id": 0, "name": "NVIDIA H800", "computeMajor": 9, "computeMinor": 0, "numSms": 132,
          "totalGlobalMem": 84943110144}]
json.dump({"schemaVersion": 1, "deviceProperties": props,
           "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 64},
           "traceEvents": ev, "traceName": "ep_comm.json"}, open(out, "w"), indent=0)
PY
}

gen a.json 9 || nok "generate a.json"
gen b.json 20 || nok "generate b.json"

CHECK_A=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]; k = d["kernels"]; g = k["gemm_fill"]
f = {x["id"]: x for x in d["findings"]}
kinds = s["comm_kernel_us_by_kind"]
cls = {c["class"]: c["total_us"] for c in k["by_class"]}
top = {t["name"][:40]: t for t in k["top"]}
checks = [
    ("comm_share", s["comm_share"], 0.02),
    ("comm kernel time all_to_all", kinds.get("all_to_all"), 460),
    ("comm kinds", sorted(x for x, v in kinds.items() if v), ["all_to_all"]),
    ("breakdown kernel", d["breakdown"]["share"]["kernel"], 0.65),
    ("communication class", cls.get("communication"), 460),
    ("tensor_core_share", s["tensor_core_share"], 0.540541),
    ("matmul_tensor_core_share", k["matmul_tensor_core_share"], 1),
    ("cast not TC", [t["tensor_core"] for n, t in top.items() if "per_token_cast" in n], [False]),
    ("gemm time", g["time_us"], 600), ("blocks known", g["blocks_known_us"], 600),
    ("comm_filled_us", g.get("comm_filled_us"), 200),
    ("underfilled_us", g["underfilled_us"], 400),
    ("underfilled_share", g["underfilled_share"], 0.666667),
    ("sm_idle_us", g["sm_idle_us"], 60.6061),
    ("small_gemms gain", f["small_gemms"]["est_gain"] if "small_gemms" in f else None, 0.0606061),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF2
)
CHECK_B=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1]))
g = d["kernels"]["gemm_fill"]
ids = [x["id"] for x in d["findings"]]
checks = [
    ("comm_filled_us", g.get("comm_filled_us"), 400),
    ("underfilled_us", g["underfilled_us"], 200),
    ("underfilled_share", g["underfilled_share"], 0.333333),
    ("sm_idle_us", g["sm_idle_us"], 30.3030),
    ("no small_gemms", "small_gemms" in ids, False),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF2
)
check_both_readers a.json "$CHECK_A" && ok || nok "case A: DeepEP communication, FP8 Tensor Cores, GEMM fill"
check_both_readers b.json "$CHECK_B" && ok || nok "case B: every concurrent GEMM fills the SMs with communication"

# the text report says so
expect_rc 0 "$GPUDIAG" analyze a.json
grep -q "GEMM fill: 66.7% of GEMM time in kernels with fewer thread blocks than SMs" "$TMP/out" && ok ||
    nok "text: GEMM fill line"
grep -q "Tensor Core kernels 54.1% of GPU time" "$TMP/out" && ok || nok "text: Tensor Core share"
finish
