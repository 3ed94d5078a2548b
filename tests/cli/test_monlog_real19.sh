#!/bin/sh
# test_monlog_real19.sh — issue 19's monitoring-log classes 10-14 on logs rebuilt by hand from the
# public reports (tests/data/monlog/SOURCES.md); each expected value derived by hand in the comments.
GD_TMP_TAG=monlog19
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
DATA="$GD_TEST_DATA/monlog"
PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); }
nok() { FAIL=$((FAIL + 1)); echo "FAIL $*"; }
js() { "$GPUDIAG" analyze --json "$DATA/$1" > "$TMP/$1.json" 2> "$TMP/$1.err" || nok "$1: exit $? $(cat "$TMP/$1.err")"; }

# class 10 — dmon_high_dips_bw.log: sm 95 except 20 at samples 5, 8, 14, 18 of 20 (dips 3-6 apart),
# mem 60 % throughout. median 0.95 (high), low share 4/20 = 0.20 (target < 0.10 missed), p10 = 0.20;
# bandwidth (mem_util) median 0.60 >= 0.50 "high". Compute high with dips -> data_pipeline, never
# memory_bandwidth ("compute is low" would be false).
js dmon_high_dips_bw.log
if python3 - "$TMP/dmon_high_dips_bw.log.json" <<'PY'; then ok; else nok "class 10: high compute with dips"; fi
import json, sys
d = json.load(open(sys.argv[1])); g = d["series"]["gpus"][0]
assert g["indicators"]["compute"] == "high" and g["indicators"]["bandwidth"] == "high", g["indicators"]
assert abs(g["metrics"]["gpu_util"]["median"] - 0.95) < 1e-9 and abs(g["metrics"]["gpu_util"]["low_share"] - 0.20) < 1e-9
assert g["bottleneck"] == "data_pipeline" and d["verdict"]["bottleneck"] == "data_pipeline", (g["bottleneck"], d["verdict"])
assert "compute is low" not in d["verdict"]["summary"], d["verdict"]["summary"]
PY

# class 11 — prom_profiling_unreported.prom (dcgm-exporter#662): 4 scrapes, GPU-Util 99 98 100 99 %
# (median 0.99 >= 0.50), GR engine active and SM active 0.000 in all four -> not reported: read as
# missing, compute = gpu_util (median 0.99, high) -> compute with the GPU-Util caveat;
# input_profiling_unreported (gpu_util_median 0.99); not idle, not gpu_util_misleading.
js prom_profiling_unreported.prom
if python3 - "$TMP/prom_profiling_unreported.prom.json" <<'PY'; then ok; else nok "class 11: profiling unreported"; fi
import json, sys
d = json.load(open(sys.argv[1])); g = d["series"]["gpus"][0]; ids = [f["id"] for f in d["findings"]]
assert g["profiling_unreported"] is True, g
assert "sm_active" not in g["metrics"] and "gr_engine_active" not in g["metrics"], g["metrics"].keys()
assert g["compute_metric"] == "gpu_util" and abs(g["metrics"]["gpu_util"]["median"] - 0.99) < 1e-9
assert g["idle_holding_memory"] is False and g["in_use"] is True
assert d["verdict"]["bottleneck"] == "compute" and "GPU-Util is high: a kernel was running" in d["verdict"]["summary"], d["verdict"]
assert "input_profiling_unreported" in ids and "gpu_util_misleading" not in ids and "idle_gpu_holding_memory" not in ids, ids
f = [x for x in d["findings"] if x["id"] == "input_profiling_unreported"][0]
assert abs(f["evidence"]["gpu_util_median"] - 0.99) < 1e-6 and f["evidence"]["gpu_index"] == 0, f
PY
# class 11 — prom_util_busy_smact_low.prom: GPU-Util 90 91 90 89 % (median 0.895 >= 0.80), SM active
# 0.01 0.02 0.01 0.02 (reported: not all 0; median 0.015) with 20000 MiB of 40960 held. Flagged
# gpu_util_misleading, so never idle: GPU-Util p95 0.9085 >= 0.05 -> not idle_holding_memory; its class
# is host_launch (kernels run all the time but fill few SMs), not "the GPU waits for work"/"idle".
js prom_util_busy_smact_low.prom
if python3 - "$TMP/prom_util_busy_smact_low.prom.json" <<'PY'; then ok; else nok "class 11: misleading never idle"; fi
import json, sys
d = json.load(open(sys.argv[1])); g = d["series"]["gpus"][0]; ids = [f["id"] for f in d["findings"]]
assert g["profiling_unreported"] is False and abs(g["metrics"]["sm_active"]["median"] - 0.015) < 1e-9, g
assert "gpu_util_misleading" in ids and "idle_gpu_holding_memory" not in ids, ids
assert g["idle_holding_memory"] is False and g["in_use"] is True
assert g["bottleneck"] == "host_launch" and d["verdict"]["bottleneck"] == "host_launch", (g["bottleneck"], d["verdict"])
assert "idle" not in d["verdict"]["summary"], d["verdict"]["summary"]
PY

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
