#!/usr/bin/env bash
# bench/ceiling.sh — issue 24: what two threads can gain on this machine at
# all.  Runs the same single-threaded work once alone and then twice at the
# same time (two processes, nothing shared but the machine): the pair's
# throughput over the one's is the most any two-thread split of that work can
# reach here (no split, merge or serial part costs anything in it).
#
#   bench/ceiling.sh [GPUDIAG]   (default build/gpudiag)
#
# Work measured, each RUNS times (default 3), rounds interleaved:
#   gpudiag  `analyze --jobs 1 --json bench/out/1g.json` (the parse and analysis)
#   sha256   `sha256sum bench/out/1g.json` (pure CPU over the cached file: the
#            machine's ceiling for work that shares nothing)
# Prints per work: alone s, pair s (the later of the two to finish), and
# ceiling = 2 × alone / pair.  Needs a quiet machine (load average printed).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/build/gpudiag}
IN=$ROOT/bench/out/1g.json
RUNS=${RUNS:-3}
[ -f "$IN" ] || { echo "ceiling.sh: $IN missing: run bench/jobs.sh once first" >&2; exit 2; }
cat "$IN" > /dev/null
t() { /usr/bin/time -f %e -o "$1" "${@:2}" > /dev/null; }
run_work() { # name cmd...
    local name=$1; shift
    for r in $(seq 1 "$RUNS"); do
        load=$(cut -d' ' -f1 /proc/loadavg)
        t /tmp/ceil.a "$@"
        t /tmp/ceil.b "$@" & p1=$!
        t /tmp/ceil.c "$@" & p2=$!
        wait $p1 $p2
        printf '%s %s %s %s %s\n' "$name" "$(cat /tmp/ceil.a)" "$(cat /tmp/ceil.b)" "$(cat /tmp/ceil.c)" "$load"
    done
}
{
    run_work gpudiag "$BIN" analyze --jobs 1 --json "$IN"
    run_work sha256 sha256sum "$IN"
} | tee /tmp/ceil.runs
python3 - /tmp/ceil.runs <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
print("work\talone_s\tpair_s\tceiling\tloads")
for w in dict.fromkeys(r[0] for r in rows):
    rs = [r for r in rows if r[0] == w]
    alone = statistics.median(float(r[1]) for r in rs)
    pair = statistics.median(max(float(r[2]), float(r[3])) for r in rs)
    print(f"{w}\t{alone:.2f}\t{pair:.2f}\t{2 * alone / pair:.2f}×\t{','.join(r[4] for r in rs)}")
PY
