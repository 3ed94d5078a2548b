#!/usr/bin/env bash
# bench/profile.sh — where the time of `gpudiag analyze --json` goes, on a ~100 MB trace.
#
#   bench/profile.sh            (after bench/run.sh has built build-bench[-yajl])
#
# Makes bench/out/synth_100m.json.gz (SRC x 3, ~105 MB of JSON) if missing, then
# for each variant: `perf record -e cpu-clock --call-graph dwarf` and
# bench/perf_breakdown.py (stage split by call chain, bucket split by leaf:
# yajl lexer / yajl parser / zlib / simdjson / our code / libc / kernel, and the
# top functions).  perf stat is printed too, though this KVM guest has no
# hardware counters (cycles/instructions "not supported"), so only task-clock.
# If perf cannot record, or with CALLGRIND=1, valgrind --tool=callgrind runs
# instead / as well, and callgrind_annotate lists the top functions by
# instructions (stable on a shared VM, unlike time).
#
# Environment: VARIANTS (the build dirs that exist), SRC, FREQ (2000 Hz), CALLGRIND.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/bench/out
BUILD=$ROOT/build-bench
SRC=${SRC:-/work/shared/data/traces/resnet50_v100_num_workers_0.pt.trace.json.gz}
FREQ=${FREQ:-2000}
CALLGRIND=${CALLGRIND:-0}
PY=${PYTHON:-python3}
T=$OUT/synth_100m.json.gz
mkdir -p "$OUT"

bdir() { [[ $1 == default ]] && echo "$BUILD" || echo "$BUILD-$1"; }
if [[ -z ${VARIANTS:-} ]]; then
    VARIANTS=default
    [[ -x $BUILD-yajl/gpudiag ]] && VARIANTS="default yajl"
fi
if [[ ! -s $T ]]; then
    "$PY" "$ROOT/bench/gen_trace.py" "$SRC" "$T.tmp" --replicas 3 --gzip && mv "$T.tmp" "$T"
fi
cat "$T" > /dev/null

perf_ok=1
perf record -q -e cpu-clock -o /dev/null true >/dev/null 2>&1 || perf_ok=0

for v in $VARIANTS; do
    bin=$(bdir "$v")/gpudiag
    echo "=================== $v ($bin) on $(basename "$T")"
    if [[ $perf_ok == 1 ]]; then
        perf stat -e task-clock,cycles,instructions "$bin" analyze --json "$T" 2>&1 >/dev/null |
            grep -E 'task-clock|cycles|instructions|elapsed' || true
        perf record -q -e cpu-clock -F "$FREQ" --call-graph dwarf,16384 -o "$OUT/perf.$v.data" \
            "$bin" analyze --json "$T" > /dev/null 2>&1
        perf script -i "$OUT/perf.$v.data" -F period,ip,sym,dso 2>/dev/null |
            "$PY" "$ROOT/bench/perf_breakdown.py" --top 15 --lib "$(bdir "$v")/libgpudiag.a" | tee "$OUT/profile.$v.txt"
        rm -f "$OUT/perf.$v.data"
    fi
    if [[ $perf_ok == 0 || $CALLGRIND == 1 ]]; then
        echo "--- callgrind (instructions)"
        valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.$v.out" \
            "$bin" analyze --json "$T" > /dev/null 2> "$OUT/callgrind.$v.log"
        callgrind_annotate "$OUT/callgrind.$v.out" 2>/dev/null |
            sed -n '/^Ir  *file:function/,$p' | awk 'NR <= 25' | tee "$OUT/callgrind.$v.txt"
    fi
done
