#!/bin/sh
# test_bad_kernel_values.sh — a kernel's impossible `blocks per SM` or `est. achieved occupancy %`
# (DEFINITIONS "GPU metrics", Impossible values): the kernel is kept, the value left out of Est. SM
# efficiency / Est. achieved occupancy and the kernel counted once in inputs[].skipped.bad_value;
# Kineto's "not known" markers (-1, the string "inf") are left out without a count. Both readers.
GD_TMP_TAG=badkval
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
command -v python3 >/dev/null 2>&1 || exit 77

# One step, ProfilerStep#1 [1000, 2000) us: the steps span is 1000 us. Kernels (ts, dur, bps, occ):
#   K1 1100 100  0.5     50      good
#   K2 1300 100  1e39    50      bps bad (a float's infinity: the old sweep turned NaN)
#   K3 1500 100  0.25    -1e9    occ bad (was dropped without a count)
#   K4 1700 100  2.0     30      good (efficiency capped at 1)
#   K5 1850 100  -1      20      Kineto's "SM count unknown": left out, not counted
#   K6 1955  30  1e400   150     both bad (beyond a double; beyond 100 %): counted once
#   K7 1990   5  "inf"   -       Kineto's "SM count 0": left out, not counted
# Est. SM efficiency = (0.5*100 + 0.25*100 + 1*100) / 1000 = 0.175 (old binary: 0.15: K2 counted
#   as 1, then inf - inf = NaN and K3, K4 counted 0)
# Est. achieved occupancy = (50*100 + 50*100 + 30*100 + 20*100) / 400 / 100 = 0.375
#   (old binary: K6's 150 counted: (15000 + 150*30) / 430 / 100 = 0.4535)
# skipped.bad_value = 3 (K2, K3, K6; old binary: 0); kernel time 535 us: every kernel kept.
cat > "$TMP/gen.py" <<'PY'
import sys
ks = [(1100, 100, "0.5", "50"), (1300, 100, "1e39", "50"), (1500, 100, "0.25", "-1e9"),
      (1700, 100, "2.0", "30"), (1850, 100, "-1", "20"), (1955, 30, "1e400", "150"),
      (1990, 5, '"inf"', None)]
ev = ['{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000}']
for i, (ts, dur, bps, occ) in enumerate(ks, 1):
    ev.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, '
              '"ts": %d, "dur": 5, "args": {"correlation": %d}}' % (ts - 20, i))
    args = '"correlation": %d, "device": 0, "stream": 7, "grid": [54, 1, 1], "block": [256, 1, 1], "blocks per SM": %s' % (i, bps)
    if occ is not None:
        args += ', "est. achieved occupancy %%": %s' % occ
    ev.append('{"ph": "X", "cat": "kernel", "name": "k%d", "pid": 0, "tid": 7, "ts": %d, "dur": %d, "args": {%s}}'
              % (i, ts, dur, args))
print('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", '
      '"totalGlobalMem": 85899345920, "computeMajor": 8, "computeMinor": 0, "numSms": 108}], '
      '"traceEvents": [\n' + ",\n".join(ev) + "\n]}")
PY
python3 "$TMP/gen.py" > "$TMP/t.json" || { nok "generator"; finish; }
if check_both_readers "$TMP/t.json" '
import json, sys
d = json.load(open(sys.argv[1]))
dev = d["devices"][0]
assert abs(dev["sm_efficiency"] - 0.175) < 1e-9, dev["sm_efficiency"]
assert abs(dev["achieved_occupancy"] - 0.375) < 1e-9, dev["achieved_occupancy"]
assert d["inputs"][0]["skipped"]["bad_value"] == 3, d["inputs"][0]["skipped"]
f = [x for x in d["findings"] if x["id"] == "input_incomplete_events"]
assert f and "3 kernels" in f[0]["title"], [x["title"] for x in f]
assert dev["kernel_count"] == 7 and abs(dev["kernel_time_us"] - 535) < 1e-6, (dev["kernel_count"], dev["kernel_time_us"])
'; then ok; else nok "impossible blocks per SM / occupancy"; fi
finish
