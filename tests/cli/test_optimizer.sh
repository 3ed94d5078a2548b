#!/bin/sh
# Optimizer and launch statistics on tests/data/ok_optimizer.json, by hand
# (docs/DEFINITIONS.md "Kernels", FINDINGS.md optimizer_unfused):
#   one step [1000,2000]; Optimizer.step#SGD.step [1500,1900] = 400 us = 0.4 of the step
#   100 launches inside it ([1500+4i, 1502+4i]) of 2 us kernels at 1503+4i: 100 optimizer
#   kernels, 200 us of kernel time, none fused -> optimizer_unfused, est_gain 0.5 x 0.4 = 0.2 (high)
#   one more launch [1010,1070]: 60 us > 50 us -> 1 runtime outlier; its gemm starts at 1300,
#   230 us after the call ended > 100 us -> 1 launch-delay outlier; 101 linked kernels
#   kernel classes: the AddFunctor kernels are elementwise (200 us), the sgemm gemm (150 us)
set -eu
GD_TMP_TAG=opt
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

PY=$(cat <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1])); s = d["summary"]; o = s["optimizer"]
f = [x for x in d["findings"] if x["id"] == "optimizer_unfused"]
cls = {c["class"]: c["total_us"] for c in d["kernels"]["by_class"]}
checks = [
    ("optimizer time", o["time_us"], 400), ("optimizer share", o["share_of_step"], 0.4),
    ("optimizer kernels", o["kernels"], 100), ("optimizer kernel time", o["kernel_time_us"], 200),
    ("fused", o["fused_kernels"], 0), ("linked", s["linked_kernels"], 101),
    ("runtime outliers", s["runtime_outliers"], 1), ("launch delay outliers", s["launch_delay_outliers"], 1),
    ("elementwise us", cls.get("elementwise"), 200), ("gemm us", cls.get("gemm"), 150),
    ("finding", len(f), 1), ("est_gain", f[0]["est_gain"] if f else None, 0.2),
    ("severity", f[0]["severity"] if f else None, "high"),
    ("kernels per step", f[0]["evidence"]["optimizer_kernels_per_step"] if f else None, 100),
]
import os
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-06)
EOF2
)
check_both_readers "$GD_TEST_DATA/ok_optimizer.json" "$PY"
