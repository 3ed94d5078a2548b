#!/usr/bin/env bash
# bench/jobs.sh — issue 24: wall time of `gpudiag analyze --json` on one big
# trace with --jobs 1..MAXJ (the scaling curve), for the .json and the .json.gz,
# with user/sys CPU, peak RSS and the load average at each run.
#
#   bench/jobs.sh [GPUDIAG]     (default build/gpudiag)
#
# Input: bench/out/1g.json (bench/gen_trace.py SRC --target-bytes 1.1e9, made if
# missing) and bench/out/1g.json.gz (gzip -6).  MB/s = 10^6 bytes of JSON per
# wall second.  Environment: RUNS (3: the median is kept), MAXJ (cores), SRC,
# JOBS (the list, default 1..MAXJ), INPUTS ("1g.json 1g.json.gz").
# Figures are only comparable on a quiet machine: each line carries the
# 1-minute load average read just before the run (the project asks for < 3).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/bench/out
BIN=${1:-$ROOT/build/gpudiag}
RUNS=${RUNS:-3}
MAXJ=${MAXJ:-$(nproc)}
SRC=${SRC:-/work/shared/data/traces/resnet50_v100_num_workers_0.pt.trace.json.gz}
JOBS=${JOBS:-$(seq 1 "$MAXJ")}
INPUTS=${INPUTS:-1g.json 1g.json.gz}
mkdir -p "$OUT"
[ -f "$OUT/1g.json" ] || python3 "$ROOT/bench/gen_trace.py" "$SRC" "$OUT/1g.json" --target-bytes 1.1e9
[ -f "$OUT/1g.json.gz" ] || gzip -6 -c "$OUT/1g.json" > "$OUT/1g.json.gz"
bytes=$(stat -L -c %s "$OUT/1g.json")
printf 'input\tjobs\twall_s\tMB_s\tuser_s\tsys_s\trss_MiB\tload1\n'
for in in $INPUTS; do
    for j in $JOBS; do
        rows=""
        for r in $(seq 1 "$RUNS"); do
            load=$(cut -d' ' -f1 /proc/loadavg)
            /usr/bin/time -f '%e %U %S %M' -o "$OUT/jobs.time" "$BIN" analyze --jobs "$j" --json "$OUT/$in" > "$OUT/jobs.report.json"
            read -r wall user sys rss < "$OUT/jobs.time"
            rows="$rows$wall $user $sys $rss $load"$'\n'
        done
        # the median run by wall time
        med=$(printf '%s' "$rows" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
        read -r wall user sys rss load <<< "$med"
        awk -v inp="$in" -v j="$j" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" -v l="$load" -v b="$bytes" \
            'BEGIN { printf "%s\t%d\t%.2f\t%.0f\t%.2f\t%.2f\t%.0f\t%s\n", inp, j, w, b / 1e6 / w, u, s, m / 1024, l }'
    done
done
