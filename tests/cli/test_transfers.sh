#!/bin/sh
# Host<->device copies on tests/data/ok_transfers.json, derived by hand
# (docs/DEFINITIONS.md "Copies"): one step [1000,2000] (1000 us)
#   h2d: 2 copies, 1,000,000 + 4,000,000 = 5,000,000 bytes in 100 + 50 = 150 us
#        -> 5e6 / 150 us = 33.333 GB/s
#   d2h: 1 copy, 8 bytes, 20 us;  d2d: 1 copy, 3,000,000 bytes, 30 us -> 100 GB/s
#   pageable: the HtoD (Pageable -> Device) and DtoH (Device -> Pageable) copies:
#        2 copies, 1,000,008 bytes, 120 us = 12% of the step
#   finding pageable_memcpy: est_gain = 0.5 x 0.12 = 0.06, severity low (< 0.10)
#
# tests/data/ok_offload.json — A100 (108 SMs), ProfilerStep#1/#2 of 100,000 us each; per step S:
#   HtoD (Pinned) 128 MiB [S, S+12000] with no kernel running; ampere_sgemm kernel
#   [S+12000, S+72000] with blocks per SM 0.5; DtoH (Pinned) 128 MiB [S+62000, S+72000], hidden
#   behind the kernel.
#   offload_transfer: 134217728 bytes/step each way >= 64 MiB; copy time (12000 + 10000) / 100000
#     = 0.22 >= 0.05 -> high; est_gain = exposed Memcpy share 12000 / 100000 = 0.12;
#     h2d 2 x 134217728 B / 24000 us = 11.18481 GB/s, d2h 2 x 134217728 / 20000 = 13.42177 GB/s.
#     memcpy_heavy (0.12 > 0.10) is not reported next to it (same copy time).
#   small_gemms: GEMM share of kernel time 1.0 >= 0.2; all GEMM time has blocks per SM 0.5 < 1
#     -> underfilled share 1.0; SM idle = 60000 x (1 - 0.5) = 30000 us per step -> est_gain
#     30000 / 100000 = 0.3 (high).  no_tensor_cores: 0.6 x 1.0 x 0.5 = 0.3.
#   Verdict: memory_transfer (compute-efficiency findings never take the verdict).
set -eu
GD_TMP_TAG=xfer
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

PY=$(cat <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); t = d["transfers"]
f = [x for x in d["findings"] if x["id"] == "pageable_memcpy"]
checks = [
    ("h2d count", t["h2d"]["count"], 2), ("h2d bytes", t["h2d"]["bytes"], 5000000),
    ("h2d time", t["h2d"]["time_us"], 150), ("h2d GB/s", t["h2d"]["achieved_gb_per_s"], 33.3333),
    ("d2h count", t["d2h"]["count"], 1), ("d2h bytes", t["d2h"]["bytes"], 8), ("d2h time", t["d2h"]["time_us"], 20),
    ("d2d bytes", t["d2d"]["bytes"], 3000000), ("d2d GB/s", t["d2d"]["achieved_gb_per_s"], 100),
    ("other count", t["other"]["count"], 0),
    ("pageable count", t["pageable"]["count"], 2), ("pageable bytes", t["pageable"]["bytes"], 1000008),
    ("pageable time", t["pageable"]["time_us"], 120), ("bytes per step", t["h2d"]["bytes_per_step"], 5000000),
    ("finding", len(f), 1),
    ("est_gain", f[0]["est_gain"] if f else None, 0.06), ("severity", f[0]["severity"] if f else None, "low"),
    ("share evidence", f[0]["evidence"]["pageable_copy_share"] if f else None, 0.12),
]
import os
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 0.001)
EOF
)
PY_OFFLOAD=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
o = f.get("offload_transfer", {}); oe = o.get("evidence", {})
g = f.get("small_gemms", {}); ge = g.get("evidence", {})
fill = d["kernels"]["gemm_fill"]
checks = [
    ("ids", sorted(f), ["no_tensor_cores", "offload_transfer", "small_gemms"]),
    ("offload gain", o.get("est_gain"), 0.12), ("offload severity", o.get("severity"), "high"),
    ("h2d per step", oe.get("h2d_bytes_per_step"), 134217728), ("d2h per step", oe.get("d2h_bytes_per_step"), 134217728),
    ("h2d GB/s", oe.get("h2d_gb_per_s"), 11.184811), ("d2h GB/s", oe.get("d2h_gb_per_s"), 13.421773),
    ("time share", oe.get("transfer_time_share"), 0.22),
    ("small gain", g.get("est_gain"), 0.3), ("small severity", g.get("severity"), "high"),
    ("underfilled share", ge.get("underfilled_gemm_share"), 1.0),
    ("sm idle per step", ge.get("gemm_sm_idle_us_per_step"), 30000),
    ("fill", [fill["calls"], fill["time_us"], fill["underfilled_us"], fill["sm_idle_us"]], [2, 120000.0, 120000.0, 60000.0]),
    ("bottleneck", d["verdict"]["bottleneck"], "memory_transfer"),
    ("matmul TC share", d["kernels"]["matmul_tensor_core_share"], 0.0),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-5)
EOF
)
rc=0
check_both_readers "$GD_TEST_DATA/ok_transfers.json" "$PY" || rc=1
check_both_readers "$GD_TEST_DATA/ok_offload.json" "$PY_OFFLOAD" || rc=1
# the text report's detail lines: 128 MiB per step each way at 11.2 / 13.4 GB/s, GEMM fill 100 %
# with 30 ms of SM time idle per step, no communication (with the reason)
"$GPUDIAG" analyze --no-color "$GD_TEST_DATA/ok_offload.json" > "$TMP/offload.txt"
for want in "TRANSFERS  per step: h2d 128.0 MiB at 11.2 GB/s; d2h 128.0 MiB at 13.4 GB/s" \
            "GEMM fill: 100.0% of GEMM time in kernels with fewer thread blocks than SMs (30.0 ms of SM time idle per step)" \
            "COMMUNICATION  not available (no communication kernels in the steps" \
            "GEMM/conv/attention time on Tensor Cores: 0.0%"; do
    if grep -qF "$want" "$TMP/offload.txt"; then echo "ok: $want"; else echo "FAIL: text lacks: $want"; rc=1; fi
done
exit $rc
