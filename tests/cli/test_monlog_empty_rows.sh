#!/bin/sh
# test_monlog_empty_rows.sh — a monitoring-log row in which every metric is missing holds no sample
# (DEFINITIONS "Monitoring series", Reading: "A row that holds no value"), in every reader: dcgmi,
# nvidia-smi dmon, --query-gpu CSV, nvidia-smi -q, Prometheus, amd-smi. Logs generated below, values
# derived by hand.
GD_TMP_TAG=monlogempty
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

python3 - "$TMP" <<'PY' || { echo "FAIL: generating the logs"; exit 1; }
import os, sys
tmp = sys.argv[1]
def w(name, text): open(os.path.join(tmp, name), "w").write(text)
# Every log: GPU 0 rows empty, empty, 90 %, 50 %; GPU 1 rows empty, empty (in -q and Prometheus GPU 1 is
# empty in all 4 snapshots/scrapes: 6 empty rows; interleaved as the tool
# prints them). Right: one GPU (GPU 1 has no sample), 2 samples, compute mean 70 %, 4 empty rows.
# dcgmi (NVIDIA/DCGM#244: profiling fields N/A while DCGM warms up), with an ignored column (FP32A)
w("dcgmi.log", "#Entity   SMACT   TENSO   FP32A\nID\n"
  "GPU 0     N/A     N/A     N/A\nGPU 1     N/A     N/A     N/A\n"
  "GPU 0     N/A     N/A     N/A\nGPU 1     N/A     N/A     N/A\n"
  "GPU 0     0.900   0.100   N/A\nGPU 0     0.500   0.100   N/A\n")
w("dmon.log", "# gpu    sm   mem\n# Idx     %     %\n"
  "    0     -     -\n    1     -     -\n    0     -     -\n    1     -     -\n"
  "    0    90    10\n    0    50    10\n")
w("smi.csv", "timestamp, index, utilization.gpu [%], memory.used [MiB]\n"
  "2026/01/05 10:00:00.000, 0, [N/A], [N/A]\n2026/01/05 10:00:00.000, 1, [N/A], [N/A]\n"
  "2026/01/05 10:00:01.000, 0, [N/A], [N/A]\n2026/01/05 10:00:01.000, 1, [N/A], [N/A]\n"
  "2026/01/05 10:00:02.000, 0, 90 %, 1000 MiB\n2026/01/05 10:00:03.000, 0, 50 %, 1000 MiB\n")
def qsnap(sec, u0):
    blk = lambda bus, u: ("GPU 00000000:%s:00.0\n    Product Name                          : NVIDIA A100-SXM4-40GB\n"
                          "    Utilization\n        Gpu                               : %s\n"
                          "        Memory                            : %s\n") % (bus, u, u)
    return ("\n==============NVSMI LOG==============\n\nTimestamp                                 : "
            "Wed Dec  2 12:00:%02d 2026\nDriver Version                            : 535.129.03\n\n"
            "Attached GPUs                             : 2\n" % sec) + blk("3B", u0) + blk("3C", "N/A")
w("smi_q.txt", qsnap(0, "N/A") + qsnap(1, "N/A") + qsnap(2, "90 %") + qsnap(3, "50 %"))
# Prometheus: DCGM's int64 blank sentinel (9223372036854775794) is missing
blank = "9223372036854775794"
def scrape(u0):
    return ('DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-aaaa"} %s\nDCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-bbbb"} %s\n'
            % (u0, blank))
w("dcgm.prom", "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
  + scrape(blank) + scrape(blank) + scrape("90") + scrape("50"))
w("amdsmi.txt", "GPU  POWER  GFX_UTIL\n  0    N/A       N/A\n  1    N/A       N/A\n  0    N/A       N/A\n"
  "  1    N/A       N/A\n  0  182 W      90 %\n  0  182 W      50 %\n")
# A number in an ignored column (FP32A 0.046) is a reading: that row is a sample (of no metric gpudiag
# maps), GPU 1 is listed with 1 sample, 1 empty row (GPU 0's).
w("dcgmi_ignored.log", "#Entity   SMACT   FP32A\nID\nGPU 0     N/A     N/A\nGPU 1     N/A     0.046\n"
  "GPU 0     0.900   N/A\nGPU 0     0.500   N/A\n")
# The DCGM#244 pattern, made by hand: every GPU's first row N/A, then one valid row for GPUs 0 and 1
# and none for GPU 2. Right: 2 GPUs of 1 sample each, a snapshot, verdict unknown (rule 0), 3 empty rows
# (was: 5 samples, 1 to 2 per GPU, a time series of 1 s, verdict compute).
w("patchwork.log", "#Entity   GRACT   SMACT   TENSO\nID\n"
  "GPU 0     N/A     N/A     N/A\nGPU 1     N/A     N/A     N/A\nGPU 2     N/A     N/A     N/A\n"
  "GPU 0     0.888   N/A     0.178\nGPU 1     N/A     0.777   N/A\n")
PY

for f in dcgmi.log dcgmi_ignored.log dmon.log smi.csv smi_q.txt dcgm.prom amdsmi.txt patchwork.log; do
    "$GPUDIAG" analyze --json "$TMP/$f" > "$TMP/$f.json" 2> "$TMP/$f.err" || nok "$f: exit $? $(cat "$TMP/$f.err")"
done
"$GPUDIAG" analyze "$TMP/patchwork.log" > "$TMP/patchwork.txt" 2>&1 || nok "patchwork.log text: exit $?"

python3 - "$TMP" <<'PY' && ok || nok "empty rows hold no sample"
import json, os, sys
tmp = sys.argv[1]
bad = []
def load(n): return json.load(open(os.path.join(tmp, n + ".json")))
def check(name, got, want):
    if isinstance(want, float) and isinstance(got, (int, float)) and abs(got - want) < 1e-9:
        return
    if got != want:
        bad.append("%s: got %r, want %r" % (name, got, want))
for f, metric in [("dcgmi.log", "sm_active"), ("dmon.log", "gpu_util"), ("smi.csv", "gpu_util"),
                  ("smi_q.txt", "gpu_util"), ("dcgm.prom", "gpu_util"), ("amdsmi.txt", "gpu_util")]:
    d = load(f); s = d["series"]
    check(f + " gpus", [g["index"] for g in s["gpus"]], [0])
    if not s["gpus"]:
        continue
    g = s["gpus"][0]
    check(f + " samples", g["samples"], 2)
    check(f + " rows", s["rows"], 2)
    check(f + " empty_rows", s.get("empty_rows"), 6 if f in ("smi_q.txt", "dcgm.prom") else 4)
    check(f + " skipped_rows", s["skipped_rows"], 0)
    check(f + " compute mean", g["metrics"].get(metric, {}).get("mean"), 0.70)
    fe = [x for x in d["findings"] if x["id"] == "input_empty_rows"]
    check(f + " finding", len(fe), 1)
    if fe:
        check(f + " finding rows", fe[0]["evidence"].get("empty_rows"), 6 if f in ("smi_q.txt", "dcgm.prom") else 4)
d = load("dcgmi_ignored.log"); s = d["series"]
check("ignored gpus", [(g["index"], g["samples"]) for g in s["gpus"]], [(1, 1), (0, 2)])
check("ignored empty_rows", s.get("empty_rows"), 1)
d = load("patchwork.log"); s = d["series"]
check("patchwork gpus", [g["index"] for g in s["gpus"]], [0, 1])
check("patchwork samples", [g["samples"] for g in s["gpus"]], [1, 1])
check("patchwork snapshot", s["snapshot"], True)
check("patchwork empty_rows", s.get("empty_rows"), 3)
check("patchwork first_empty_line", s.get("first_empty_line"), 3)
check("patchwork verdict", d["verdict"]["bottleneck"], "unknown")
txt = open(os.path.join(tmp, "patchwork.txt")).read()
if "2 GPUs, 1 sample each, a snapshot" not in txt:
    bad.append("patchwork text header: " + txt.splitlines()[0])
if "3 rows hold no value" not in txt:
    bad.append("patchwork text: no line about the empty rows")
for b in bad:
    print("FAIL " + b)
sys.exit(1 if bad else 0)
PY
finish
