#!/usr/bin/env bash
# gpu-check.sh — the real-GPU checks of issue #6, for a session that is lent a
# GPU machine (one H200 in this project; nothing else needed but the NVIDIA
# driver and PyTorch with CUDA).  Builds gpudiag, then for each workload of
# bench/workloads/workload.py (starved, healthy, sync, launch):
#   1. gpudiag run -i 200ms -o OUT/KIND.csv --json --html -- python3 workload.py ...
#      (NVML sampling of the real driver, step markers through GPUDIAG_MARKERS);
#   2. gpudiag analyze --json on the profiler trace the workload wrote;
# and checks that the trace verdict names the known cause (data_pipeline,
# compute, synchronization, host_launch) and that the run verdict is compute
# for the healthy workload and not compute for the three stalled ones (NVML
# alone cannot tell the three stalls apart).  Prints a table; exits 1 on a
# wrong verdict, 77 when there is no GPU or no PyTorch with CUDA.
# Usage: bench/gpu-check.sh [OUT]   (default bench/out/gpu-check; the gzipped
# traces there are the candidates for tests/data: real H200 traces with known causes)
set -u
cd "$(dirname "$0")/.."
OUT=${1:-bench/out/gpu-check}
mkdir -p "$OUT"
command -v nvidia-smi >/dev/null && nvidia-smi -L || { echo "gpu-check: no nvidia-smi: no GPU here"; exit 77; }
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
    { echo "gpu-check: PyTorch with CUDA is not importable"; exit 77; }
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && cmake --build build-gpu -j"$(nproc)" >/dev/null ||
    { echo "gpu-check: build failed"; exit 1; }
G=build-gpu/gpudiag
"$G" specs "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" | head -3
fails=0
printf '%-8s %-16s %-16s %-16s %s\n' workload want trace-verdict run-verdict run-seconds
for kind in starved healthy sync launch; do
    case $kind in
        starved) want=data_pipeline ;;
        healthy) want=compute ;;
        sync) want=synchronization ;;
        launch) want=host_launch ;;
    esac
    t0=$(date +%s)
    GPUDIAG_MARKERS="$OUT/$kind.steps" "$G" run -q -i 200ms -o "$OUT/$kind.csv" --json "$OUT/$kind.run.json" \
        --html "$OUT/$kind.run.html" -- python3 bench/workloads/workload.py --kind "$kind" --trace "$OUT/$kind.trace.json" \
        >"$OUT/$kind.stdout" 2>"$OUT/$kind.stderr"
    rc=$?
    t1=$(date +%s)
    gzip -f "$OUT/$kind.trace.json" 2>/dev/null
    "$G" analyze --json "$OUT/$kind.trace.json.gz" >"$OUT/$kind.analyze.json" 2>"$OUT/$kind.analyze.err"
    "$G" analyze --html "$OUT/$kind.analyze.html" "$OUT/$kind.trace.json.gz" >"$OUT/$kind.analyze.txt" 2>&1
    tv=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["bottleneck"])' "$OUT/$kind.analyze.json" 2>/dev/null || echo error)
    rv=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["bottleneck"])' "$OUT/$kind.run.json" 2>/dev/null || echo error)
    printf '%-8s %-16s %-16s %-16s %s (exit %d)\n' "$kind" "$want" "$tv" "$rv" $((t1 - t0)) "$rc"
    [ "$rc" -eq 0 ] || { echo "  FAIL: the workload exited $rc (see $OUT/$kind.stderr)"; fails=$((fails + 1)); }
    [ "$tv" = "$want" ] || { echo "  FAIL: trace verdict $tv, want $want"; fails=$((fails + 1)); }
    if [ "$kind" = healthy ]; then
        [ "$rv" = compute ] || { echo "  FAIL: run verdict $rv, want compute"; fails=$((fails + 1)); }
    else
        [ "$rv" != compute ] || { echo "  FAIL: run verdict compute for a stalled workload"; fails=$((fails + 1)); }
    fi
done
echo "gpu-check: $fails failed; outputs in $OUT"
[ "$fails" -eq 0 ]
