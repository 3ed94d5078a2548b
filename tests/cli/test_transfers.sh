#!/bin/sh
# Host<->device copies on tests/data/ok_transfers.json, derived by hand
# (docs/DEFINITIONS.md "Copies"): one step [1000,2000] (1000 us)
#   h2d: 2 copies, 1,000,000 + 4,000,000 = 5,000,000 bytes in 100 + 50 = 150 us
#        -> 5e6 / 150 us = 33.333 GB/s
#   d2h: 1 copy, 8 bytes, 20 us;  d2d: 1 copy, 3,000,000 bytes, 30 us -> 100 GB/s
#   pageable: the HtoD (Pageable -> Device) and DtoH (Device -> Pageable) copies:
#        2 copies, 1,000,008 bytes, 120 us = 12% of the step
#   finding pageable_memcpy: est_gain = 0.5 x 0.12 = 0.06, severity low (< 0.10)
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
check_both_readers "$GD_TEST_DATA/ok_transfers.json" "$PY"
