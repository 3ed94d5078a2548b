#!/bin/sh
# Steps cut while their GPU events were written (DEFINITIONS "Time and events"; a new user's
# trial). Kineto writes the runtime calls with the GPU ops, after every CPU op, so a file cut in
# that part keeps whole ProfilerStep ranges whose launches and GPU ops stop part-way. The shared
# resnet50_v100_num_workers_4 trace cut at byte 20,000,000 read `host_launch` 62 % from step 5
# alone (639 of its 1,543 GPU ops; the full trace: 22.4 %). Expected values, from the file by a
# python reader of its events and their byte ends:
# - cut at 20,000,000: step 5's launch calls in the file: 639, each with its GPU op; the last
#   runtime call ends 53.566 ms before step 5's host end -> no step left, steps_cut_gpu 1, verdict
#   unknown on input_truncated naming "step 5 holds 639 GPU ops" and "53.6 ms".
# - cut at 19,397,625: 164 launch calls of step 5 in the file, 94.8 ms before its end -> the same.
# - cut at 22,000,000: step 5 complete (1,543 launches, 1,543 GPU ops), step 6 with 702 of them
#   (trimmed by the last-step rule, < 80 % of step 5): step 5 kept, steps_cut_gpu 0.
# - the complete trace: 6 steps, steps_cut_gpu 0.
# The 80 % rule, by hand (tests built here): one step [1000,2000] us with 5 cudaLaunchKernel
# calls, kernels for 2 of them, and a cudaStreamSynchronize at [2100,2150] (the runtime calls go
# past the step), the file cut before it closes: 2 < 0.8 x 5 -> dropped, "step 1 holds 2 of 5
# launched GPU ops". The same file closed (a complete trace whose kernels were dropped) keeps its
# step: this rule is for cut files only.
set -eu
GD_TMP_TAG=cutgpu
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
rc=0
chk() { # chk NAME REPORT PYEXPR EXPECTED
    got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$2" "$3") || got="(error)"
    if [ "$got" = "$4" ]; then echo "ok: $1"; else echo "FAIL: $1: $3 = $got, wanted $4"; rc=1; fi
}
B='d["breakdown"]["steps_cut_gpu"]'
# ---- the 80 % rule on a hand-made file
cat > "$TMP/ratio.json" <<'J'
{"schemaVersion": 1,
"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1050, "dur": 800},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1100, "dur": 10, "args": {"correlation": 1}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1200, "dur": 10, "args": {"correlation": 2}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1300, "dur": 10, "args": {"correlation": 3}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1400, "dur": 10, "args": {"correlation": 4}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1500, "dur": 10, "args": {"correlation": 5}},
{"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 1120, "dur": 50, "args": {"device": 0, "stream": 7, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 1220, "dur": 50, "args": {"device": 0, "stream": 7, "correlation": 2}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 2100, "dur": 50, "args": {"correlation": 6}}
J
sed '$s/}$/}]}/' "$TMP/ratio.json" > "$TMP/ratio_full.json"
"$GPUDIAG" analyze --json "$TMP/ratio.json" > "$TMP/r1.json" 2>/dev/null || true
chk "80% rule: truncated" "$TMP/r1.json" 'd["inputs"][0]["truncated"]' True
chk "80% rule: step dropped" "$TMP/r1.json" 'len(d["steps"])' 0
chk "80% rule: counted" "$TMP/r1.json" "$B" 1
chk "80% rule: verdict" "$TMP/r1.json" '(d["verdict"]["bottleneck"], d["verdict"]["finding"])' "('unknown', 'input_truncated')"
chk "80% rule: words" "$TMP/r1.json" '"step 1 holds 2 of 5 launched GPU ops" in d["verdict"]["summary"]' True
"$GPUDIAG" analyze --json "$TMP/ratio_full.json" > "$TMP/r2.json" 2>/dev/null || true
chk "complete file: not truncated" "$TMP/r2.json" 'd["inputs"][0]["truncated"]' False
chk "complete file: step kept" "$TMP/r2.json" '(len(d["steps"]), '"$B"')' "(1, 0)"
# ---- the shared trace, cut
T=$GD_SHARED/data/traces/resnet50_v100_num_workers_4.pt.trace.json.gz
if [ ! -f "$T" ]; then echo "skip: $T not found"; exit $rc; fi
zcat "$T" > "$TMP/full.json"
for n in 20000000 19397625 22000000; do
    head -c $n "$TMP/full.json" > "$TMP/c.json"
    "$GPUDIAG" analyze --json "$TMP/c.json" > "$TMP/c$n.json" 2>/dev/null || true
done
"$GPUDIAG" analyze --json "$TMP/full.json" > "$TMP/full.out.json" 2>/dev/null || true
R="$TMP/c20000000.json"
chk "20M: no step left" "$R" '(len(d["steps"]), '"$B"')' "(0, 1)"
chk "20M: verdict" "$R" '(d["verdict"]["bottleneck"], d["verdict"]["finding"])' "('unknown', 'input_truncated')"
chk "20M: words" "$R" '"step 5 holds 639 GPU ops" in d["verdict"]["summary"] and "53.6 ms before" in d["verdict"]["summary"]' True
chk "20M: finding evidence" "$R" '[f["evidence"].get("steps_cut_gpu") for f in d["findings"] if f["id"] == "input_truncated"]' "[1]"
R="$TMP/c19397625.json"
chk "19.4M: verdict" "$R" '(d["verdict"]["bottleneck"], "step 5 holds 164 GPU ops" in d["verdict"]["summary"], "94.8 ms" in d["verdict"]["summary"])' "('unknown', True, True)"
R="$TMP/c22000000.json"
chk "22M: step 5 kept" "$R" '([s["number"] for s in d["steps"]], [s["device_ops"] for s in d["steps"]], '"$B"', d["breakdown"]["steps_trimmed"])' "([5], [1543], 0, 5)"
chk "full: untouched" "$TMP/full.out.json" '(len(d["steps"]), '"$B"')' "(6, 0)"
exit $rc
