#!/usr/bin/env bash
# Peak memory and time of `gpudiag analyze --json` on big traces made from a real one
# (docs/PERFORMANCE.md, "Memory of the model (issue #7)").  Everything goes under
# $OUT (default /tmp/gd-bench), never into the repository; CLEAN=1 deletes the big files.
# Usage: bench/mem.sh [BUILD=build]     SIZES="1.1e9 2.2e9" PIPE=20e9 RANKS=8
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BUILD:-$ROOT/build}/gpudiag
OUT=${OUT:-/tmp/gd-bench}
SRC=${SRC:-$ROOT/../shared/data/traces/resnet50_v100_num_workers_0.pt.trace.json.gz}
SIZES=${SIZES:-"1.1e9 2.2e9"}
PIPE=${PIPE:-20e9}
RANKS=${RANKS:-8}
mkdir -p "$OUT"
run() { # label, then the command; prints wall, user, sys, peak RSS
  local label=$1; shift
  /usr/bin/time -f "$label: %e s wall, %U s user, %S s sys, %M KB peak RSS" "$@"
}
for s in $SIZES; do
  f=$OUT/synth_$s.json
  [ -s "$f" ] || nice python3 "$ROOT/bench/gen_trace.py" "$SRC" "$f" --target-bytes "$s"
  cat "$f" > /dev/null
  run "file $s" nice "$BIN" analyze --json "$f" > "$OUT/report_$s.json"
done
# the largest size also as $RANKS ranks (hard links: one copy on disk and in the page cache)
last=$(echo $SIZES | awk '{print $NF}')
mkdir -p "$OUT/ranks"
for ((i = 0; i < RANKS; i++)); do ln -f "$OUT/synth_$last.json" "$OUT/ranks/rank$i.json"; done
run "$RANKS ranks x $last, --jobs 2" nice "$BIN" analyze --json --jobs 2 "$OUT/ranks" > "$OUT/report_ranks.json"
# the biggest one streamed from the generator: no disk, wall time is the generator's
if [ -n "$PIPE" ]; then
  nice python3 "$ROOT/bench/gen_trace.py" "$SRC" - --target-bytes "$PIPE" |
    run "pipe $PIPE" nice "$BIN" analyze --json - > "$OUT/report_pipe.json"
fi
[ -z "${CLEAN:-}" ] || rm -rf "$OUT"/synth_*.json "$OUT/ranks"
