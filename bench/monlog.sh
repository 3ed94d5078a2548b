#!/usr/bin/env bash
# `gpudiag analyze LOG` on a 1 M-line `nvidia-smi dmon -s pucvmet -o DT` log
# (bench/gen_monlog.py --lines 1000000 --gpus 8, generated into bench/out/ if
# missing): RUNS timed runs under /usr/bin/time (wall, user, system, peak RSS;
# min and median printed), and with CALLGRIND=1 the instruction count of a
# 100 000-line cut under callgrind (a number the machine's load does not move).
# Usage: bench/monlog.sh [BUILD=build] ; RUNS=5 LINES=1000000 CALLGRIND=1
# Issue #4's target: under 1 s for 1 M lines.  Results: docs/PERFORMANCE.md.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/build}/gpudiag
RUNS=${RUNS:-5}
LINES=${LINES:-1000000}
OUT=$ROOT/bench/out
mkdir -p "$OUT"
LOG=$OUT/monlog_$LINES.log
[ -s "$LOG" ] || python3 "$ROOT/bench/gen_monlog.py" --lines "$LINES" --gpus 8 > "$LOG"
"$BIN" analyze --json "$LOG" > /dev/null   # warm the page cache
: > "$OUT/monlog.times"
for ((r = 0; r < RUNS; r++)); do
  /usr/bin/time -f '%e %U %S %M' -a -o "$OUT/monlog.times" "$BIN" analyze --json "$LOG" > /dev/null
done
python3 - "$OUT/monlog.times" "$LOG" <<'PY'
import statistics, sys, os
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
cols = list(zip(*rows))
name = ["wall s", "user s", "sys s", "peak RSS MiB"]
print(f"{os.path.basename(sys.argv[2])}: {sum(1 for _ in open(sys.argv[2]))} lines, {len(rows)} runs")
for i, n in enumerate(name):
    c = [x / 1024 if i == 3 else x for x in cols[i]]
    print(f"  {n:13s} min {min(c):.2f}  median {statistics.median(c):.2f}")
PY
if [ "${CALLGRIND:-0}" = 1 ]; then
  head -100002 "$LOG" > "$OUT/monlog_100k.log"
  valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.monlog.out" \
    "$BIN" analyze --json "$OUT/monlog_100k.log" 2>&1 > /dev/null | grep -o 'Collected : [0-9]*' |
    sed 's/Collected :/  callgrind, 100 000 lines: instructions/'
fi
