#!/bin/sh
# The first iteration of a window without step markers (DEFINITIONS "Steps" 5, finding
# input_first_iteration). A reviewer found kineto's tb_plugin sample
# resnet50_autograd_api_num_workers_0 (no ProfilerStep markers, 6 DataLoader calls): the first
# iteration (initialisation, cuDNN autotuning) was 4.49 s of the 5.30 s window, the others 161 ms,
# and the verdict named a bottleneck ("synchronization") from the first iteration's gaps.
# Inputs built here (no step markers; tid 1; device 0, stream 7; ts in us):
#   an init op aten::to [0,100000); DataLoader __next__ calls of 30000 us at the starts S below;
#   after each call a cudaLaunchKernel (S+30000, 10) -> a kernel [S+30020, S+90020); a closing
#   aten::item at [last kernel end + 10, +10).
#   main:  S = 100000, 1000000, 1100000, 1200000, 1300000, and aten::cudnn_convolution
#          [200000,900000) in the first iteration. Window [0, 1390040] = 1390040 us (the span of
#          the CPU ops, "Steps" 2). Iterations: first [0,1000000) = 1000000 (the init before the
#          first call belongs to it), then 100000, 100000, 100000 and the last [1300000,1390040).
#          Median of the complete later ones (2..4) = 100000; first share 1000000 / 1390040 =
#          0.719404 >= 0.5 and 1000000 >= 3 x 100000 -> finding (high), verdict unknown.
#   short: S = 100000, 300000, 400000, 500000, 600000, no long op: window 690040, first 300000,
#          share 0.4348 < 0.5 -> none.
#   ratio: S = 100000, 600000, 900000: window 990040; first 600000 (share 0.606), the one
#          complete later iteration 300000: 600000 < 3 x 300000 -> none.
#   two:   S = 100000, 1000000 and the long op: 2 calls < 3 -> none.
#   tail:  a loop without DataLoader calls, then a validation pass that makes them: kernels at
#          k x 100000 + 20 (k = 0..19, 60000 us each, launched at k x 100000), aten::to [0,10),
#          then __next__ calls of 5000 us at 2000000, 2010000, 2020000, 2030000, each followed by
#          a launch and a 4000 us kernel; aten::item at 2039040. First iteration [0,2010000), the
#          first call at 2000000 > half of it (1005000): the calls do not mark the loop -> none
#          (the rule's first version said "the first lasts 2.01 s, 99% of the window").
set -eu
GD_TMP_TAG=firstiter
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
make_case() { # NAME STARTS(comma-separated) LONG(0/1)
    python3 - "$TMP/$1.json" "$2" "$3" <<'EOF2'
import json, sys
starts = [int(x) for x in sys.argv[2].split(",")]
cpu = lambda n, ts, dur: {"ph": "X", "cat": "cpu_op", "name": n, "pid": 1, "tid": 1, "ts": ts, "dur": dur}
ev = [cpu("aten::to", 0, 100000)]
if sys.argv[3] == "1":
    ev.append(cpu("aten::cudnn_convolution", 200000, 700000))
for c, s in enumerate(starts, 1):
    ev.append(cpu("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", s, 30000))
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": s + 30000,
               "dur": 10, "args": {"correlation": c}})
    ev.append({"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_tn", "pid": 0, "tid": 7, "ts": s + 30020,
               "dur": 60000, "args": {"device": 0, "stream": 7, "correlation": c}})
ev.append(cpu("aten::item", starts[-1] + 90030, 10))
json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8,
           "computeMinor": 0, "numSms": 108}], "traceEvents": ev}, open(sys.argv[1], "w"), indent=1)
EOF2
}
CHECK=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); label = sys.argv[2]; want = sys.argv[3]
f = {x["id"]: x for x in d["findings"]}
checks = [("window", d["steps"][0]["duration_us"], {"main": 1390040, "short": 690040, "ratio": 990040,
                                                     "two": 1090040, "tail": 2039050}[label])]
if want == "yes":
    e = f.get("input_first_iteration", {}).get("evidence", {})
    checks += [("finding", "input_first_iteration" in f, True),
               ("severity", f.get("input_first_iteration", {}).get("severity"), "high"),
               ("iterations", e.get("iterations"), 5), ("first", e.get("first_iteration_us"), 1000000),
               ("share", e.get("first_iteration_share"), 0.719404), ("median", e.get("iteration_median_us"), 100000),
               ("second start", e.get("second_iteration_start_us"), 1000000),
               ("bottleneck", d["verdict"]["bottleneck"], "unknown"),
               ("verdict finding", d["verdict"]["finding"], "input_first_iteration"),
               ("no high cause", [x["id"] for x in d["findings"] if x["kind"] == "cause" and x["severity"] == "high"], [])]
else:
    checks += [("no finding", "input_first_iteration" in f, False)]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, label, 1e-06)
EOF2
)
make_case main 100000,1000000,1100000,1200000,1300000 1
make_case short 100000,300000,400000,500000,600000 0
make_case ratio 100000,600000,900000 0
make_case two 100000,1000000 1
python3 - "$TMP/tail.json" <<'EOF2'
import json, sys
cpu = lambda n, ts, dur: {"ph": "X", "cat": "cpu_op", "name": n, "pid": 1, "tid": 1, "ts": ts, "dur": dur}
rt = lambda ts, c: {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts,
                    "dur": 10, "args": {"correlation": c}}
kern = lambda ts, dur, c: {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_tn", "pid": 0, "tid": 7, "ts": ts,
                           "dur": dur, "args": {"device": 0, "stream": 7, "correlation": c}}
ev = [cpu("aten::to", 0, 10)]
for k in range(20):
    ev += [rt(k * 100000, k + 1), kern(k * 100000 + 20, 60000, k + 1)]
for j, s in enumerate((2000000, 2010000, 2020000, 2030000)):
    ev += [cpu("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", s, 5000), rt(s + 5000, 100 + j),
           kern(s + 5020, 4000, 100 + j)]
ev.append(cpu("aten::item", 2039040, 10))
json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8,
           "computeMinor": 0, "numSms": 108}], "traceEvents": ev}, open(sys.argv[1], "w"), indent=1)
EOF2
for _mode in default yajl; do
    _nosj=""
    [ "$_mode" = yajl ] && _nosj=1
    GPUDIAG_NO_SIMDJSON="$_nosj" run_case "$TMP/main.json" main yes
done
run_case "$TMP/short.json" short no
run_case "$TMP/ratio.json" ratio no
run_case "$TMP/two.json" two no
run_case "$TMP/tail.json" tail no
finish
