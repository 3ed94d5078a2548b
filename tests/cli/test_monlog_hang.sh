#!/bin/sh
# test_monlog_hang.sh — a hung NCCL collective in logs without SM active (nvidia-smi, dmon), and a
# measured 0 % memory-controller busy read as a value (DEFINITIONS "GPU-Util busy, SMs not — or a
# hung collective", "A metric that reads 0 throughout"). Expected values derived by hand below.
GD_TMP_TAG=monloghang
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
DATA="$GD_TEST_DATA/monlog"
js() { "$GPUDIAG" analyze --json "$1" > "$2" 2> "$TMP/err" || nok "$1: exit $? $(cat "$TMP/err")"; }

# smi_csv_nccl_hang.csv: 7 samples 10 s apart (23:17:00 .. 23:18:00): duration 60 s, interval 10 s,
# observed span 70 s >= 60. GPUs 0, 1, 3: GPU-Util 100 % (median 1.00 >= 0.95), utilization.memory 0 %
# (median 0 <= 0.02: a measured 0, so bandwidth "low", not unreported), power 70.5 of 400 W
# (0.17625 <= 0.30) -> possible_hang 1, class host_launch (never compute), title "GPU-Util 100 % but
# memory controller 0 %, power 70 W (18 % of its limit)". GPU 2: 0 %, 2987 MiB held -> idle holding
# memory, named in the verdict as the rank that may be missing.
js "$DATA/smi_csv_nccl_hang.csv" "$TMP/smi.json"
if python3 - "$TMP/smi.json" <<'PY'; then ok; else nok "nvidia-smi: hung collective"; fi
import json, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]; gs = d["series"]["gpus"]
ids = [f["id"] for f in d["findings"]]
assert v["bottleneck"] == "host_launch", v
s = v["summary"]
assert "hung NCCL/RCCL collective" in s and "cannot tell" in s and "GPU 2 did no work: possibly the rank" in s, s
assert not s.startswith("GPU-Util is high"), s
for i in (0, 1, 3):
    g = gs[i]
    assert g["bottleneck"] == "host_launch" and g["bandwidth_unreported"] is False, g
    assert g["indicators"]["bandwidth"] == "low" and g["bandwidth_metric"] == "mem_util", g["indicators"]
assert gs[2]["idle_holding_memory"] is True
f = [x for x in d["findings"] if x["id"] == "gpu_util_misleading"][0]
e = f["evidence"]
assert f["title"] == "GPU 0, GPU 1, GPU 3: GPU-Util 100 % but memory controller 0 %, power 70 W (18 % of its limit): busy is not full load", f["title"]
assert e["possible_hang"] == 1 and abs(e["power_limit_share"] - 0.17625) < 1e-9 and e["mem_util_median"] == 0, e
assert "no memory traffic" in f["recommendation"] and "py-spy dump" in f["recommendation"], f["recommendation"]
h = [x for x in d["findings"] if x["id"] == "idle_gpu_holding_memory"][0]
assert "may be the rank they wait for" in h["recommendation"], h["recommendation"]
PY

# the same log with 1 % memory-controller busy -> median 0.01 <= 0.02: still the pattern; with 3 %
# (0.03 > 0.02) or with power 250 W (0.625 > 0.30): a busy GPU, compute, no hang.
sed 's/, 100 %, 0 %,/, 100 %, 3 %,/' "$DATA/smi_csv_nccl_hang.csv" > "$TMP/mem3.csv"
sed 's/70.5 W/250.0 W/' "$DATA/smi_csv_nccl_hang.csv" > "$TMP/pw250.csv"
sed 's/, 100 %, 0 %,/, 100 %, 1 %,/' "$DATA/smi_csv_nccl_hang.csv" > "$TMP/mem1.csv"
for c in mem3 pw250 mem1; do js "$TMP/$c.csv" "$TMP/$c.json"; done
if python3 - "$TMP/mem3.json" "$TMP/pw250.json" "$TMP/mem1.json" <<'PY'; then ok; else nok "nvidia-smi: hang thresholds"; fi
import json, sys
for p in sys.argv[1:3]:
    d = json.load(open(p))
    assert d["verdict"]["bottleneck"] == "compute" and "hung" not in d["verdict"]["summary"], (p, d["verdict"])
    assert "gpu_util_misleading" not in [f["id"] for f in d["findings"]], p
d = json.load(open(sys.argv[3]))
assert d["verdict"]["bottleneck"] == "host_launch" and "hung NCCL/RCCL" in d["verdict"]["summary"], d["verdict"]
PY

# no power column: GPU-Util and a quiet memory controller alone fit a compute-only kernel -> no hang
# claimed, gpu_util_misleading silent; the verdict says the log cannot tell the two apart
cut -d, -f1-7 "$DATA/smi_csv_nccl_hang.csv" > "$TMP/nopower.csv"
js "$TMP/nopower.csv" "$TMP/nopower.json"
if python3 - "$TMP/nopower.json" <<'PY'; then ok; else nok "nvidia-smi: no power, no hang"; fi
import json, sys
d = json.load(open(sys.argv[1]))
v = d["verdict"]
assert v["bottleneck"] == "compute" and "cannot tell apart without the power draw" in v["summary"], v
assert "gpu_util_misleading" not in [f["id"] for f in d["findings"]], d["findings"]
PY

# dmon_nccl_hang.log: no time column, 60 samples of 4 GPUs -> times assumed 1 s apart: span 60 s.
# sm 100 %, mem 0 %, pwr 71 W, but dmon logs neither a power limit nor a GPU name (no TDP from the
# GPU table): 71 W cannot be compared with anything, so no hang is claimed and the verdict says it
# cannot tell (a second new user's healthy dmon log at 250-300 W was called hung when a missing
# limit counted as "near idle"). 59 samples: the same pattern too short, no sentence.
js "$DATA/dmon_nccl_hang.log" "$TMP/dmon.json"
head -n $((2 + 59 * 4)) "$DATA/dmon_nccl_hang.log" > "$TMP/dmon59.log"
js "$TMP/dmon59.log" "$TMP/dmon59.json"
if python3 - "$TMP/dmon.json" "$TMP/dmon59.json" <<'PY'; then ok; else nok "dmon: cannot tell a hang without a power reference"; fi
import json, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]
assert v["bottleneck"] == "compute" and "cannot tell apart without the power draw and a limit" in v["summary"], v
assert "gpu_util_misleading" not in [f["id"] for f in d["findings"]], d["findings"]
d = json.load(open(sys.argv[2]))
assert d["verdict"]["bottleneck"] == "compute" and "hung" not in d["verdict"]["summary"], d["verdict"]
PY

# no power.limit column: the GPU table's TDP for the logged name is the reference (A100-SXM4-40GB,
# 400 W): 70.5 W -> 0.17625, the pattern; 347 W -> 0.8675, a busy GPU (a new user's dcgm-exporter
# scrape at 300-380 W was called hung). memory.used 0 MiB (< 64 MiB: no process holds the GPU,
# nothing can hang on it) -> no hang.
cut -d, -f1-8 "$DATA/smi_csv_nccl_hang.csv" > "$TMP/nolimit.csv"
sed 's/70.5 W/347.0 W/' "$TMP/nolimit.csv" > "$TMP/nolimit347.csv"
sed 's/2987 MiB/0 MiB/' "$DATA/smi_csv_nccl_hang.csv" > "$TMP/noproc.csv"
for c in nolimit nolimit347 noproc; do js "$TMP/$c.csv" "$TMP/$c.json"; done
if python3 - "$TMP/nolimit.json" "$TMP/nolimit347.json" "$TMP/noproc.json" <<'PY'; then ok; else nok "nvidia-smi: TDP as the power reference, a GPU no process holds"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["id"] == "gpu_util_misleading"][0]
assert f["evidence"]["possible_hang"] == 1 and abs(f["evidence"]["power_limit_share"] - 0.17625) < 1e-9, f["evidence"]
for p in sys.argv[2:]:
    d = json.load(open(p))
    assert "hung" not in d["verdict"]["summary"], (p, d["verdict"])
    assert all(x["evidence"].get("possible_hang", 0) == 0 for x in d["findings"] if x["id"] == "gpu_util_misleading"), p
PY

# log input handling (DEFINITIONS "Invalid monitoring values", the byte-order mark): in a copy of
# nvsmi_query_csv_l5_v100_training_steady.csv, line 3's utilization.gpu 99 % made 99999999999999999999999 %
# (1e23 %, far from DCGM's 2^63 sentinel) warns exactly as -5 % does: "line 3: 1 out-of-range value";
# 17 samples either way (the row is kept). A UTF-8 BOM before the header: the same report as the file.
V100="$GD_SHARED/data/logs/nvsmi_query_csv_l5_v100_training_steady.csv"
if [ -f "$V100" ]; then
    sed '3s/, 99 %, 90 %/, 99999999999999999999999 %, 90 %/' "$V100" > "$TMP/big.csv"
    sed '3s/, 99 %, 90 %/, -5 %, 90 %/' "$V100" > "$TMP/neg.csv"
    printf '\357\273\277' | cat - "$V100" > "$TMP/bom.csv"
    cp "$V100" "$TMP/plain.csv"
    for c in big neg; do
        "$GPUDIAG" analyze --json "$TMP/$c.csv" > "$TMP/$c.json" 2> "$TMP/$c.err" || nok "$c: exit $?"
        if grep -q "$c.csv: line 3: 1 out-of-range value" "$TMP/$c.err"; then ok; else nok "$c: no warning: $(cat "$TMP/$c.err")"; fi
    done
    if python3 - "$TMP/big.json" "$TMP/neg.json" <<'PY'; then ok; else nok "big and negative: same counts"; fi
import json, sys
a, b = (json.load(open(p))["series"] for p in sys.argv[1:])
assert a["invalid_values"] == b["invalid_values"] == 1 and a["first_invalid_line"] == b["first_invalid_line"] == 3, (a["invalid_values"], b["invalid_values"])
assert a["gpus"][0]["samples"] == b["gpus"][0]["samples"] == 17
PY
    js "$TMP/bom.csv" "$TMP/bom.json"
    js "$TMP/plain.csv" "$TMP/plain.json"
    if python3 - "$TMP/bom.json" "$TMP/plain.json" <<'PY'; then ok; else nok "BOM: same report"; fi
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    d["inputs"][0].pop("path"); d["inputs"][0].pop("bytes")
assert a == b
PY
fi

# standard input with no --format is sniffed as a file is (was "not a trace: lexical error"): the
# dmon form read from a pipe gives the same verdict as the file
cat "$DATA/dmon_nccl_hang.log" | "$GPUDIAG" analyze --json - > "$TMP/stdin.json" 2> "$TMP/stdin.err" || nok "stdin dmon: exit $? $(cat "$TMP/stdin.err")"
if python3 - "$TMP/stdin.json" "$TMP/dmon.json" <<'PY'; then ok; else nok "stdin dmon: same verdict as the file"; fi
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["verdict"] == b["verdict"] and a["inputs"][0]["path"] == "-", (a["verdict"], a["inputs"][0])
PY

finish
