#!/usr/bin/env bash
# Peak memory and time of `gpudiag analyze --json` on big traces made from a real one
# (docs/PERFORMANCE.md, "Memory of the model (issue #7)").  Everything goes under
# $OUT (default /tmp/gd-bench), never into the repository; CLEAN=1 deletes the big files.
# Usage: bench/mem.sh [BUILD=build]     SIZES="1.1e9 2.2e9 5.0e9" PIPE=20e9 RANKS=8 GZ=28.4e9
# GZ: also a gzip -1 file of that many bytes of JSON (28.4e9 gives ~1.5 GB of .gz
# at this trace's 19:1 ratio), made once from the generator through a pipe.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BUILD:-$ROOT/build}/gpudiag
OUT=${OUT:-/tmp/gd-bench}
SRC=${SRC:-$ROOT/../shared/data/traces/resnet50_v100_num_workers_0.pt.trace.json.gz}
SIZES=${SIZES:-"1.1e9 2.2e9 5.0e9"}
GZ=${GZ:-}
PIPE=${PIPE-20e9}   # PIPE= (empty) skips the streamed run
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
# a big .gz (never stored uncompressed)
if [ -n "$GZ" ]; then
  g=$OUT/synth_$GZ.json.gz
  [ -s "$g" ] || nice python3 "$ROOT/bench/gen_trace.py" "$SRC" - --target-bytes "$GZ" | gzip -1 > "$g"
  cat "$g" > /dev/null
  run "gzip $GZ ($(stat -c %s "$g") B)" nice "$BIN" analyze --json "$g" > "$OUT/report_gz.json"
fi
# the 2nd size also as $RANKS ranks (hard links: one copy on disk and in the page cache)
last=$(echo $SIZES | awk '{print (NF > 1 ? $2 : $1)}')
mkdir -p "$OUT/ranks"
for ((i = 0; i < RANKS; i++)); do ln -f "$OUT/synth_$last.json" "$OUT/ranks/rank$i.json"; done
run "$RANKS ranks x $last, --jobs 2" nice "$BIN" analyze --json --jobs 2 "$OUT/ranks" > "$OUT/report_ranks.json"
# the biggest one streamed from the generator: no disk, wall time is the generator's
if [ -n "$PIPE" ]; then
  nice python3 "$ROOT/bench/gen_trace.py" "$SRC" - --target-bytes "$PIPE" |
    run "pipe $PIPE" nice "$BIN" analyze --json - > "$OUT/report_pipe.json"
fi
[ -z "${CLEAN:-}" ] || rm -rf "$OUT"/synth_*.json "$OUT/ranks"
