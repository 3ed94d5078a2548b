#!/bin/sh
# test_monlog_real19.sh — issue 19's monitoring-log classes 10-14 on logs rebuilt by hand from the
# public reports (tests/data/monlog/SOURCES.md); each expected value derived by hand in the comments.
GD_TMP_TAG=monlog19
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
DATA="$GD_TEST_DATA/monlog"
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
f = [x for x in d["findings"] if x["id"] == "gpu_util_misleading"][0]
# no tensor active in the log: the title names the fields present, never "nan %"; 0.895 < 0.95: no hang hint
assert f["title"] == "GPU 0: GPU-Util 90 % but SM active 2 %: busy is not full load", f["title"]
assert f["evidence"]["possible_hang"] == 0 and "power_limit_share" not in f["evidence"], f["evidence"]
assert "hung" not in d["verdict"]["summary"], d["verdict"]["summary"]
PY
# gpu_util_misleading's hang hint (DEFINITIONS "GPU-Util busy, SMs not — or a hung collective") —
# prom_util_pegged_sm_idle_low_power.prom: 11 scrapes at t0 + 30 s·i -> 300 s >= 60 s; GPU-Util 100 in
# all (median 1.00 >= 0.95); SM active 0.03 0.02 0.03 0.04 0.03 0.02 0.03 0.04 0.03 0.03 0.02 -> sorted
# 0.02 x3, 0.03 x6, 0.04 x2, median (6th) 0.03 <= 0.10; power 92 91 92 93 92 92 91 92 93 92 92 -> median
# 92 W of limit 400 -> 0.23 <= 0.30 -> possible_hang 1; no tensor active.
js prom_util_pegged_sm_idle_low_power.prom
if python3 - "$TMP/prom_util_pegged_sm_idle_low_power.prom.json" <<'PY'; then ok; else nok "gpu_util_misleading: hang hint"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["id"] == "gpu_util_misleading"][0]
e = f["evidence"]
assert f["title"] == "GPU 0: GPU-Util 100 % but SM active 3 %, power 92 W (23 % of its limit): busy is not full load", f["title"]
assert e["possible_hang"] == 1 and abs(e["power_limit_share"] - 0.23) < 1e-9, e
assert abs(e["sm_active_median"] - 0.03) < 1e-9 and e["gpu_util_median"] == 1 and e["tensor_active_median"] is None, e
assert "hung collective" in f["recommendation"] and "py-spy dump" in f["recommendation"] and "NCCL_DEBUG=INFO" in f["recommendation"], f
assert "5.0 min" in f["recommendation"], f["recommendation"]
v = d["verdict"]["summary"]
assert d["verdict"]["bottleneck"] == "host_launch" and "or a hung NCCL/RCCL collective" in v, v
PY

# class 14 — physically impossible values, all in input_invalid_values (counted, read as missing):
# dmon_impossible.log (data from line 3): line 4 pwr 9999 W (> 2 x 1200 W, no limit column), line 5
# gtemp 180 C (> 150), line 6 pclk 7000 MHz (> 5 GHz), line 7 sm "nan", line 9 pwr "-inf" and mem
# "inf" (2), line 10 gpu id 99999999999 (no index: invalid, and the row cannot be placed: skipped) ->
# 7 invalid, first line 4; 1 skipped row at line 10. mclk 10501 MHz (GDDR6X reads so) is valid.
# GPU 0 keeps 8 rows: power n 6 (rows 3 5 6 7 8 11), temp n 7, sm_clock n 7, gpu_util n 7,
# mem_util n 7, mem_clock n 8 with max 10501, mean (7 x 1593 + 10501) / 8 = 2706.5.
js dmon_impossible.log
# csv_impossible.csv: line 3 650 W on a 300 W limit (> 600): invalid; line 4 590 W is under twice:
# kept; line 6 index 4294967296: invalid and skipped -> 2 invalid, first line 3; power n 3, mean
# (250 + 590 + 250) / 3.
js csv_impossible.csv
# prom_impossible.prom: line 2 GPU_TEMP NaN, line 3 POWER_USAGE +Inf, line 4 SM_CLOCK -Inf, line 5
# gpu="4294967296" (index unknown, sample kept under its UUID) -> 4 invalid, first line 2; GPU ...01
# gpu_util 0.50 and 0.60 (two scrapes: line 6 repeats GPU_UTIL), no temp/power/clock metric; GPU ...02
# index null, gpu_util 0.40.
js prom_impossible.prom
if python3 - "$TMP" <<'PY'; then ok; else nok "class 14: impossible values"; fi
import json, sys, os
L = lambda n: json.load(open(os.path.join(sys.argv[1], n + ".json")))
d = L("dmon_impossible.log"); s = d["series"]; m = s["gpus"][0]["metrics"]
assert (s["invalid_values"], s["first_invalid_line"], s["skipped_rows"], s["first_skipped_line"]) == (7, 4, 1, 10), s
assert [m[k]["n"] for k in ("power_w", "temp_c", "sm_clock_mhz", "gpu_util", "mem_util", "mem_clock_mhz")] == [6, 7, 7, 7, 7, 8], m
assert m["mem_clock_mhz"]["max"] == 10501 and abs(m["mem_clock_mhz"]["mean"] - 2706.5) < 1e-9, m["mem_clock_mhz"]
assert "input_invalid_values" in [f["id"] for f in d["findings"]]
d = L("csv_impossible.csv"); s = d["series"]; m = s["gpus"][0]["metrics"]
assert (s["invalid_values"], s["first_invalid_line"], s["skipped_rows"]) == (2, 3, 1), s
assert m["power_w"]["n"] == 3 and abs(m["power_w"]["mean"] - 1090 / 3) < 1e-3 and m["power_w"]["max"] == 590, m["power_w"]
d = L("prom_impossible.prom"); s = d["series"]; g = s["gpus"]
assert (s["invalid_values"], s["first_invalid_line"]) == (4, 2), s
assert len(g) == 2 and g[0]["index"] == 0 and g[1]["index"] is None, g
assert set(g[0]["metrics"]) == {"gpu_util"} and g[0]["metrics"]["gpu_util"]["n"] == 2 and abs(g[0]["metrics"]["gpu_util"]["mean"] - 0.55) < 1e-9, g[0]["metrics"]
assert abs(g[1]["metrics"]["gpu_util"]["mean"] - 0.40) < 1e-9
PY

# class 13 — one nvidia-smi -q snapshot (DEFINITIONS "One -q snapshot"):
# smi_q_snapshot_counters.txt: every reason Not Active; counters SW Power Capping 754000000 us = 754 s,
# SW Thermal Slowdown 12500 ms = 12.5 s, HW Thermal Slowdown 2.5 s, HW Power Braking 0, Sync Boost
# 9000000 us (left out) -> throttle_time_us 769e6 (>= 1 s), thermal part 15e6 > 0 -> throttling high,
# est_gain null (no share in one snapshot); verdict stays "one sample" (old counters set no class).
js smi_q_snapshot_counters.txt
# smi_q_snapshot_hot.txt: GPU Current Temp 92 C >= GPU Slowdown Temp 90 C, old "Clocks Throttle
# Reasons" all Not Active, no counters -> temp_at_slowdown_share 1, the sample throttled -> throttling
# high; rule 1 classifies the snapshot: verdict throttling. Gain: share 1 x clock loss (no unthrottled
# loaded sample: against Max Clocks SM 1410) 1 - 1215/1410 = 0.13830.
js smi_q_snapshot_hot.txt
if python3 - "$TMP" <<'PY'; then ok; else nok "class 13: -q snapshot throttling"; fi
import json, sys, os
L = lambda n: json.load(open(os.path.join(sys.argv[1], n + ".json")))
d = L("smi_q_snapshot_counters.txt"); g = d["series"]["gpus"][0]
assert g["metrics"]["throttle_time_us"]["max"] == 769e6 and g["metrics"]["thermal_throttle_time_us"]["max"] == 15e6, g["metrics"]
f = [x for x in d["findings"] if x["id"] == "throttling"]
assert f and f[0]["severity"] == "high" and f[0]["est_gain"] is None, f
assert f[0]["evidence"]["throttle_time_s"] == 769 and f[0]["evidence"]["thermal_throttle_time_s"] == 15, f[0]["evidence"]
assert "769.0 s since the driver loaded" in f[0]["title"], f[0]["title"]
assert d["verdict"]["bottleneck"] == "unknown", d["verdict"]
d = L("smi_q_snapshot_hot.txt"); g = d["series"]["gpus"][0]
assert g["temp_at_slowdown_share"] == 1 and g["metrics"]["temp_slowdown_c"]["max"] == 90, g
f = [x for x in d["findings"] if x["id"] == "throttling"]
assert f and f[0]["severity"] == "high" and abs(f[0]["est_gain"] - (1 - 1215 / 1410)) < 1e-3, f
assert d["verdict"]["bottleneck"] == "throttling", d["verdict"]
PY

# class 12 — prom_timesliced_mig_pods.prom, 3 scrapes (assumed 30 s apart):
# * GPU 0 (T4) listed once per pod for gpu-workload-1/2/3 in each scrape (dcgm-exporter#587): one GPU,
#   3 samples (not 9), pods 3, pod_changes 0, pod gpu-workload-1 (the first); GPU-Util 71 80 75 % ->
#   mean 0.7533, median 0.75 (high) -> compute from GPU-Util.
# * GPU 1 GI 8 (pod ml/trainer-0): GR engine active 0.90 0.92 0.91 alone (no GPU-Util on MIG,
#   dcgm-exporter#512) -> median 0.91 compute, with the busy-time caveat: the verdict is compute
#   "2 of 3 GPUs and MIG instances (2 GPUs, 1 MIG instance in use)" — GPU 0 whole and GPU 1 through
#   GI 8, as the header counts "2 GPUs" (was "1 GPU" before 2026-12-03, night: rows of whole GPUs
#   only) — and says GPU-Util / GR engine active is busy time, not SM use.
# * GPU 1 GI 7 (pod ml/notebook-7c9d): GR 0.000 in all 3, 10 MiB of 10 + 4854 = 4864 MiB used (0.2 %,
#   under 10 % and 1 GiB: not holding) -> not in use, held by a pod -> idle_gpu_allocated naming the pod.
js prom_timesliced_mig_pods.prom
if python3 - "$TMP/prom_timesliced_mig_pods.prom.json" <<'PY'; then ok; else nok "class 12: time-sliced pods, GR alone, allocated idle"; fi
import json, sys
d = json.load(open(sys.argv[1])); gs = d["series"]["gpus"]; ids = [f["id"] for f in d["findings"]]
assert len(gs) == 3, [(g["index"], g["instance"]) for g in gs]
g0 = gs[0]
assert (g0["samples"], g0["pods"], g0["pod_changes"], g0["pod"]) == (3, 3, 0, "gpu-workload-1"), g0
assert abs(g0["metrics"]["gpu_util"]["mean"] - 226 / 300) < 1e-3 and g0["compute_metric"] == "gpu_util", g0["metrics"]
g7 = [g for g in gs if g["instance"] == 7][0]; g8 = [g for g in gs if g["instance"] == 8][0]
assert g8["compute_metric"] == "gr_engine_active" and g8["bottleneck"] == "compute" and g8["pods"] == 1, g8
assert g7["in_use"] is False and g7["pod"] == "notebook-7c9d", g7
v = d["verdict"]
assert v["bottleneck"] == "compute" and "2 of 3 GPUs and MIG instances (2 GPUs, 1 MIG instance in use)" in v["summary"], v
assert "GR engine active is high: busy time" in v["summary"] and "does not say the SMs are busy" in v["summary"], v
assert "idle_gpu_allocated" in ids and "idle_gpu_holding_memory" not in ids, ids
f = [x for x in d["findings"] if x["id"] == "idle_gpu_allocated"][0]
assert "pod ml/notebook-7c9d" in f["title"] and f["evidence"]["gpu_index"] == 1 and f["est_gain"] is None, f
PY

# tried as a new user on a shape from another source (NVIDIA/DCGM#8: dcgmi prints N/W for fields it
# could not watch): dcgmi_not_watched.log, SMACT 0.512 0.498 0.505 and SMOCC 0.201 0.199 0.200 with
# TENSO/FP64A/FP32A/FP16A/DRAMA all N/W -> 3 samples (it was exit 3, "every data row was malformed"),
# no row skipped, SM active mean 1.515/3 = 0.505, tensor and DRAM absent (n 0).
js dcgmi_not_watched.log
if python3 - "$TMP/dcgmi_not_watched.log.json" <<'PY'; then ok; else nok "dcgmi N/W is missing"; fi
import json, sys
d = json.load(open(sys.argv[1])); s = d["series"]; m = s["gpus"][0]["metrics"]
assert s["skipped_rows"] == 0 and s["gpus"][0]["samples"] == 3, s
assert abs(m["sm_active"]["mean"] - 0.505) < 1e-9 and "tensor_active" not in m and "dram_active" not in m, m
PY

# tried as a new user on the shared logs: the desktop GPU of nvsmi_dmon_mutc_TD_1gpu_bursty_pcie.log
# (sm 6 0 3 13 0 3; the trailing 0 and 3 are tear-down) keeps 6 0 3 13: median 4.5 %, max 13 % ->
# "mostly idle" (classification rule 1b), no longer a confident data_pipeline verdict.
B="$GD_SHARED/data/logs/nvsmi_dmon_mutc_TD_1gpu_bursty_pcie.log"
if [ -f "$B" ]; then
    "$GPUDIAG" analyze --json "$B" > "$TMP/bursty.json" 2>/dev/null || nok "bursty: exit $?"
    if python3 - "$TMP/bursty.json" <<'PY'; then ok; else nok "mostly idle"; fi
import json, sys
d = json.load(open(sys.argv[1])); g = d["series"]["gpus"][0]
assert abs(g["metrics"]["gpu_util"]["median"] - 0.045) < 1e-9 and abs(g["metrics"]["gpu_util"]["max"] - 0.13) < 1e-9, g["metrics"]
assert g["bottleneck"] == "unknown" and d["verdict"]["bottleneck"] == "unknown", d["verdict"]
assert d["verdict"]["summary"].startswith("One GPU is mostly idle (gpu_util median 4 %, bursts up to 13 %)"), d["verdict"]
PY
fi

# a dcgmi text field with spaces (field 50 DVNAM prints "Tesla T4"): dcgmi_device_name.log, 3 rows ->
# name "Tesla T4", SM active 0.512 0.498 0.505 (mean 0.505), tensor 0.101 0.099 0.100; it was exit 3
# ("every data row was malformed": 5 words for 4 columns).
js dcgmi_device_name.log
if python3 - "$TMP/dcgmi_device_name.log.json" <<'PY'; then ok; else nok "dcgmi device name with spaces"; fi
import json, sys
d = json.load(open(sys.argv[1])); s = d["series"]; g = s["gpus"][0]
assert s["skipped_rows"] == 0 and g["samples"] == 3 and g["name"] == "Tesla T4", (s["skipped_rows"], g["name"])
assert abs(g["metrics"]["sm_active"]["mean"] - 0.505) < 1e-9 and abs(g["metrics"]["tensor_active"]["mean"] - 0.1) < 1e-9
PY

# throttling without a HW cause (new-user trial, --query-gpu with clocks_event_reasons.active in hex):
# csv_sw_cap_clocks.csv, SM clock 1755 1740 1980 of max 1980 under load (GPU-Util 98-99 %): 2 of 3 below
# 0.9 x 1980 = 1782 -> class throttling; reasons 0x4 (SW power cap) in 2 of 3 -> throttle_share 2/3,
# loss 1 - 1747.5/1980 = 0.117424 -> est_gain 0.078283, severity low; the verdict points at the power
# limit, not "fix the hardware first".
js csv_sw_cap_clocks.csv
if python3 - "$TMP/csv_sw_cap_clocks.csv.json" <<'PY'; then ok; else nok "soft throttling verdict"; fi
import json, sys
d = json.load(open(sys.argv[1])); g = d["series"]["gpus"][0]; v = d["verdict"]
assert abs(g["throttle_share"] - 2 / 3) < 1e-3 and abs(g["clock_below_max_share"] - 2 / 3) < 1e-3, g
f = [x for x in d["findings"] if x["id"] == "throttling"][0]
assert f["severity"] == "low" and abs(f["est_gain"] - 2 / 3 * (1 - 1747.5 / 1980)) < 1e-5, f
assert v["bottleneck"] == "throttling" and "check power.draw against power.limit" in v["summary"], v
assert "fix the hardware" not in v["summary"], v
PY

finish
