#!/bin/sh
# test_comm_exposed.sh — the two exposed-communication numbers (DEFINITIONS "Communication", exposed
# communication: two numbers), each named where printed; expected values derived by hand below.
GD_TMP_TAG=commexp
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

# ok_comm_exposed_host.json, one step 1000..2000 µs, device 0:
#   gemm 1030..1100, relu 1420..1450 (the cover: other GPU ops);
#   host nccl:all_reduce (user_annotation) 1100..1300; its AllReduce kernel 1200..1500.
# Breakdown's Communication role = (1100..1300 ∪ 1200..1500) − cover = 400 − 30 = 370 µs (share 0.37);
# the kernel alone: 1200..1500 − 1420..1450 = 270 µs = exposed_us[0] = comm_kernel_exposed_us_per_step.
# The 100 µs between is the host's nccl:all_reduce call before its kernel starts, no GPU op running.
"$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_comm_exposed_host.json" > "$TMP/h.json" 2>/dev/null
"$GPUDIAG" analyze "$GD_TEST_DATA/ok_comm_exposed_host.json" > "$TMP/h.txt" 2>/dev/null
"$GPUDIAG" analyze --summary "$TMP/h.sum.json" "$GD_TEST_DATA/ok_comm_exposed_host.json" > /dev/null 2>&1
if python3 - "$TMP/h.json" "$TMP/h.sum.json" <<'PY'; then ok; else nok "hand-made: role 370 us, kernels 270 us"; fi
import json, sys
d = json.load(open(sys.argv[1])); s = d["summary"]
assert abs(d["breakdown"]["avg_us"]["communication"] - 370) < 1e-9, d["breakdown"]["avg_us"]
assert abs(s["comm_share"] - 0.37) < 1e-12, s["comm_share"]
assert abs(s["comm_kernel_exposed_us_per_step"] - 270) < 1e-9, s
f = [x for x in d["findings"] if x["id"] == "communication_bound"][0]["evidence"]
assert abs(f["comm_us_per_step"] - 370) < 1e-9, f
c = json.load(open(sys.argv[2]))["ranks"][0]["collectives"]
assert c["exposed_us"] == [270], c
PY
if grep -q "exposed (no other GPU op running) 37.0% of the step, 370 us per step with host communication calls" "$TMP/h.txt" &&
   grep -q "(the breakdown's communication row), 270 us in the collective kernels alone" "$TMP/h.txt"; then ok
else nok "hand-made: both numbers named in the text report"; fi

# a100_nccl_2rank_rank0 (shared), 3 steps, one GPU, 21 collective kernels all inside the steps, none
# overlapping another or crossing a step's end: a python pass over the trace (intervals in ns,
# Decimal) gives per step: kernels minus the other GPU ops = 13063.556 µs (= the summary's
# exposed_us summed ÷ 3); with the nccl:all_reduce / nccl:broadcast annotations (user_annotation
# and gpu_user_annotation) joined = 13410.315 µs. The 346.758 µs between are those host calls'
# time with no GPU op running (336.677 µs of it the CPU-side ranges alone).
T="$GD_SHARED/data/traces/a100_nccl_2rank_rank0.json.gz"
if [ -f "$T" ]; then
    "$GPUDIAG" analyze --json "$T" > "$TMP/a.json" 2>/dev/null
    "$GPUDIAG" analyze --summary "$TMP/a.sum.json" "$T" > /dev/null 2>&1
    if python3 - "$TMP/a.json" "$TMP/a.sum.json" <<'PY'; then ok; else nok "a100_nccl_2rank: 13410.3 / 13063.6 us"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert abs(d["breakdown"]["avg_us"]["communication"] - 13410.315) < 0.001, d["breakdown"]["avg_us"]
assert abs(d["summary"]["comm_kernel_exposed_us_per_step"] - 13063.556) < 0.001, d["summary"]
c = json.load(open(sys.argv[2]))["ranks"][0]["collectives"]
assert c["count"] == 21 and abs(sum(c["exposed_us"]) / 3 - 13063.556) < 0.001, c["count"]
PY
fi

finish
