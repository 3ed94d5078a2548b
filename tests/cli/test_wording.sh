#!/bin/sh
# test_wording.sh — wording of the reports seen wrong on real inputs (docs/REPORT.md "Wording of the
# text report"; DEFINITIONS "Numbers in reports"), values by hand:
# 1. tests/data/ok_kernels_missing.json: a Tesla V100-SXM2-16GB (no BF16: FP16 is its training
#    dtype) with 0 kernels: the GPU table line reads "125.0 TFLOP/s fp16 peak" (the V100's dense
#    FP16 Tensor Core peak, 125 TFLOP/s) and summary.mfu_dtype is "fp16" (was "?" and null).
# 2. Counts per step: ok_idle_causes.json has 1 cudaStreamSynchronize in 1 step -> "(1 call per
#    step)" in sync_stall's title and "host sync calls: 1 per step" (was "1.0 calls"/"1.0 per
#    step"); ok_allocator_churn.json: 2 cudaMalloc and 1 cudaFree in the 2 steps after the first
#    (test_memory.sh) -> "1 cudaMalloc and 0.5 cudaFree calls per step" (was "1.0 cudaMalloc").
# 3. Agreement: one event without "cat" beside a CPU op -> "1 complete event carries no category"
#    (cpu_only_trace's title) and "1 event carries no category" (the verdict); ok_profiler_ranges.json
#    cut to its first cuda_profiler_range event -> "1 CUPTI range-profiler event (...) carries
#    counters" (all were "carry").
# 4. tests/data/monlog/dmon_jpg_ofa.log: two GPUs busy on their video engines -> "GPU 0 and other
#    GPUs work on their video engines", "while their SMs" (was "works on its").
# 5. No exponents: two 5 s steps that each begin with a 2.11 s DataLoader call, the GPU busy after
#    it -> 2.11 / 5 = 42.2 % and "(2.11 s of 5.00 s)" (was "(2.11e+03 ms of 5e+03 ms)");
#    tests/data/warn_duration_outlier.json cuts one op 1e6 s long -> "reached 1000000 s past"
#    (was "1e+06 s"); warn_time_clock_jump.json's two events 3600 s away -> "lie 3600 s away"
#    (was "3.6e+03 s").
# 6. Counts agree with their nouns and verbs, no "(s)": the 2-step trace of 5. launches 2 kernels ->
#    "LAUNCHES   1 kernel per step, 2 linked to their launch call" (was "1 kernels"); ok_transfers.json
#    has 2 pageable copies (lines 13 and 16) in its 1 step -> "(2 copies per step)" (was "2.0
#    copies"); warn_time_outlier_late.json has 1 event far away -> "1 event lies 1000000 s away ...
#    and was left out" (was "1 event(s) lie ... were left out"); ok_no_devprops.json loses 1
#    trailing step -> "1 trailing step dropped: it launched" (was "1 trailing step(s) dropped: they").
GD_TMP_TAG=wording
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
PASS=0
FAIL=0
D=$GD_TEST_DATA
# has FILE TEXT: FILE contains the fixed string TEXT
has() { if grep -qF -- "$2" "$1"; then ok; else nok "$(basename "$1") lacks: $2"; fi; }
hasnt() { if grep -qF -- "$2" "$1"; then nok "$(basename "$1") has: $2"; else ok; fi; }
# jeq FILE EXPR WANT: python expression over the report d equals WANT (a python literal)
jeq() {
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) == eval(sys.argv[3]) else 1)' "$@"
    then ok; else nok "$(basename "$1"): $2 != $3"; fi
}

CASE="peak without kernels"
"$GPUDIAG" analyze --no-color "$D/ok_kernels_missing.json" > "$TMP/k.txt" 2>/dev/null
"$GPUDIAG" analyze --json "$D/ok_kernels_missing.json" > "$TMP/k.json" 2>/dev/null
has "$TMP/k.txt" "Tesla V100-SXM2-16GB: 125.0 TFLOP/s fp16 peak, 900 GB/s"
hasnt "$TMP/k.txt" "? peak"
jeq "$TMP/k.json" 'd["summary"]["mfu_dtype"]' '"fp16"'

CASE="counts per step"
"$GPUDIAG" analyze --no-color "$D/ok_idle_causes.json" > "$TMP/i.txt" 2>/dev/null
"$GPUDIAG" analyze --json "$D/ok_idle_causes.json" > "$TMP/i.json" 2>/dev/null
jeq "$TMP/i.json" '[f["title"].split("sync call ")[1][:18] for f in d["findings"] if f["id"] == "sync_stall"]' '["(1 call per step);"]'
has "$TMP/i.txt" "host sync calls: 1 per step,"
"$GPUDIAG" analyze --json "$D/ok_allocator_churn.json" > "$TMP/a.json" 2>/dev/null
jeq "$TMP/a.json" '[f["title"].split(": ")[1][:44] for f in d["findings"] if f["id"] == "allocator_churn"]' \
    '["1 cudaMalloc and 0.5 cudaFree calls per step"]'

CASE="one event carries"
cat > "$TMP/uncat.json" <<'EOT'
{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":100,"dur":50},
{"ph":"X","name":"volta_sgemm_128x64_nn","pid":1,"tid":7,"ts":110,"dur":20}
]}
EOT
"$GPUDIAG" analyze --json "$TMP/uncat.json" > "$TMP/u.json" 2>/dev/null
jeq "$TMP/u.json" '[f["title"][:64] for f in d["findings"] if f["id"] == "cpu_only_trace"]' \
    '["No GPU activity recognised: 1 complete event carries no category"]'
jeq "$TMP/u.json" 'd["verdict"]["summary"][:70]' '"No GPU activity recognised, but 1 event carries no category: device wo"'
python3 - "$D/ok_profiler_ranges.json" "$TMP/pr.json" <<'EOT'
import json, sys
d = json.load(open(sys.argv[1]))
seen = []
def keep(e):
    if e.get("cat") != "cuda_profiler_range":
        return True
    seen.append(e)
    return len(seen) == 1
d["traceEvents"] = [e for e in d["traceEvents"] if keep(e)]
json.dump(d, open(sys.argv[2], "w"))
EOT
"$GPUDIAG" analyze --json "$TMP/pr.json" > "$TMP/p.json" 2>/dev/null
jeq "$TMP/p.json" '[f["title"][:90] for f in d["findings"] if f["id"] == "input_profiler_ranges"]' \
    '["1 CUPTI range-profiler event (cuda_profiler_range, one per kernel) carries counters, not t"]'

CASE="video verdict of several GPUs"
"$GPUDIAG" analyze --json "$D/monlog/dmon_jpg_ofa.log" > "$TMP/v.json" 2>/dev/null
jeq "$TMP/v.json" 'd["verdict"]["summary"][:53]' '"GPU 0 and other GPUs work on their video engines (enc"'
jeq "$TMP/v.json" '"while their SMs are little used" in d["verdict"]["summary"]' 'True'
CASE="no exponents"
cat > "$TMP/dl.json" <<'EOT'
{"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB","computeMajor":8,"computeMinor":0,"numSms":108}],
"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":1000000,"dur":5000000},
{"ph":"X","cat":"cpu_op","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":1,"tid":1,"ts":1000000,"dur":2110000},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":3110000,"dur":10,"args":{"correlation":1}},
{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":3110000,"dur":2890000,"args":{"device":0,"stream":7,"correlation":1}},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":6000000,"dur":5000000},
{"ph":"X","cat":"cpu_op","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":1,"tid":1,"ts":6000000,"dur":2110000},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":8110000,"dur":10,"args":{"correlation":2}},
{"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":8110000,"dur":2890000,"args":{"device":0,"stream":7,"correlation":2}}
]}
EOT
"$GPUDIAG" analyze --json "$TMP/dl.json" > "$TMP/dl.out.json" 2>/dev/null
jeq "$TMP/dl.out.json" '[f["title"] for f in d["findings"] if f["id"] == "dataloader_stall"]' \
    '["The GPU waits for the DataLoader: 42.2% of each step (2.11 s of 5.00 s)"]'
"$GPUDIAG" analyze --no-color "$D/warn_duration_outlier.json" > "$TMP/do.txt" 2>/dev/null
has "$TMP/do.txt" "whose duration reached 1000000 s past"
"$GPUDIAG" analyze --no-color "$D/warn_time_clock_jump.json" > "$TMP/cj.txt" 2>/dev/null
has "$TMP/cj.txt" "lie 3600 s away"
for f in "$TMP/dl.out.json" "$TMP/do.txt" "$TMP/cj.txt"; do
    if grep -qE '[0-9]e[+-][0-9]' "$f"; then nok "$(basename "$f") has an exponent"; else ok; fi
done
CASE="counts agree"
"$GPUDIAG" analyze --no-color "$TMP/dl.json" > "$TMP/dl.txt" 2>/dev/null
has "$TMP/dl.txt" "LAUNCHES   1 kernel per step, 2 linked to their launch call"
"$GPUDIAG" analyze --json "$D/ok_transfers.json" > "$TMP/t.json" 2>/dev/null
jeq "$TMP/t.json" '[f["title"].split("(")[1][:20] for f in d["findings"] if f["id"] == "pageable_memcpy"]' '["2 copies per step); "]'
"$GPUDIAG" analyze --no-color "$D/warn_time_outlier_late.json" > "$TMP/ol.txt" 2>/dev/null
has "$TMP/ol.txt" "1 event lies 1000000 s away from the rest of the timeline and was left out"
"$GPUDIAG" analyze --no-color "$D/ok_no_devprops.json" > "$TMP/nd.txt" 2>/dev/null
has "$TMP/nd.txt" "1 trailing step dropped: it launched less GPU work"
for f in "$TMP/dl.txt" "$TMP/t.json" "$TMP/ol.txt" "$TMP/nd.txt"; do hasnt "$f" "(s)"; done
finish
