#!/usr/bin/env bash
# bench/jobs.sh — issue 24: wall time of `gpudiag analyze --json` on one big
# trace with --jobs 1..MAXJ (the scaling curve), for the .json and the .json.gz,
# with user/sys CPU, peak RSS and the load average at each run.
#
#   bench/jobs.sh [GPUDIAG...]  (default build/gpudiag; with several binaries each
#                               round runs them in turn, rows named BINARY/input)
#
# Input: bench/out/1g.json (bench/gen_trace.py SRC --target-bytes 1.1e9, made if
# missing) and bench/out/1g.json.gz (gzip -6); any NAMEg.json in INPUTS is made the
# same way with N × 1.1e9 bytes (5g.json: 5.5 GB) and its .gz likewise.  MB/s =
# 10^6 bytes of JSON (the uncompressed file's size, for a .gz too) per wall second.  Environment: RUNS (3 rounds: the median is kept), MAXJ (cores), SRC,
# JOBS (the list, default 1..MAXJ), INPUTS ("1g.json 1g.json.gz").
# Figures are only comparable on a quiet machine: each line carries the
# 1-minute load average read just before the run (the project asks for < 3).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/bench/out
BINS=("$@")
[ ${#BINS[@]} -gt 0 ] || BINS=("$ROOT/build/gpudiag")
RUNS=${RUNS:-3}
MAXJ=${MAXJ:-$(nproc)}
SRC=${SRC:-/work/shared/data/traces/resnet50_v100_num_workers_0.pt.trace.json.gz}
JOBS=${JOBS:-$(seq 1 "$MAXJ")}
INPUTS=${INPUTS:-1g.json 1g.json.gz}
mkdir -p "$OUT"
# each input is made when missing: NAMEg.json with N × 1.1e9 bytes, a .gz from its .json
for in in $INPUTS; do
    js=${in%.gz}
    n=${js%g.json}
    [ -f "$OUT/$js" ] || python3 "$ROOT/bench/gen_trace.py" "$SRC" "$OUT/$js" --target-bytes "$(awk -v n="$n" 'BEGIN { printf "%.0f", n * 1.1e9 }')"
    [ "$in" = "$js" ] || [ -f "$OUT/$in" ] || gzip -6 -c "$OUT/$js" > "$OUT/$in"
done
# Rounds: each round runs every input at every --jobs once, in turn, so that a
# slow spell of a shared machine falls on all of them alike (runs of one
# setting back to back would compare one minute's machine with another's).
log=$OUT/jobs.runs
: > "$log"
for r in $(seq 1 "$RUNS"); do
    for BIN in "${BINS[@]}"; do
        for in in $INPUTS; do
            tag=$in
            [ ${#BINS[@]} -gt 1 ] && tag=$(basename "$BIN")/$in
            for j in $JOBS; do
                load=$(cut -d' ' -f1 /proc/loadavg)
                /usr/bin/time -f '%e %U %S %M' -o "$OUT/jobs.time" "$BIN" analyze --jobs "$j" --json "$OUT/$in" > "$OUT/jobs.report.json"
                read -r wall user sys rss < "$OUT/jobs.time"
                printf '%s %s %s %s %s %s %s\n' "$tag" "$j" "$wall" "$user" "$sys" "$rss" "$load" >> "$log"
            done
        done
    done
done
# per input and --jobs: the median run by wall time, its MB/s, and the speed-up
# over --jobs 1 (the ratio of the two medians; with the slowest and fastest
# run's wall times beside it)
python3 - "$log" "$OUT" <<'PY'
import sys, statistics, os
rows = [l.split() for l in open(sys.argv[1])]
def json_bytes(tag):  # the uncompressed trace's size (a .gz's .json beside it)
    name = tag.split("/")[-1]
    name = name[:-3] if name.endswith(".gz") else name
    return float(os.stat(os.path.join(sys.argv[2], name)).st_size)
print("input\tjobs\twall_s\tmin-max_s\tMB_s\tspeedup\tuser_s\tsys_s\trss_MiB\tload1")
def walls(inp, j):
    return sorted((float(r[2]), r) for r in rows if r[0] == inp and r[1] == j)
for inp in dict.fromkeys(r[0] for r in rows):
    one = walls(inp, "1")
    base = statistics.median(w for w, _ in one) if one else float("nan")
    nbytes = json_bytes(inp)
    for j in dict.fromkeys(r[1] for r in rows if r[0] == inp):
        runs = walls(inp, j)
        med = statistics.median(w for w, _ in runs)
        mid = runs[(len(runs) - 1) // 2][1]
        sp = base / med
        print(f"{inp}\t{j}\t{med:.2f}\t{runs[0][0]:.2f}-{runs[-1][0]:.2f}\t{nbytes / 1e6 / med:.0f}\t{sp:.2f}\t"
              f"{float(mid[3]):.2f}\t{float(mid[4]):.2f}\t{int(mid[5]) / 1024:.0f}\t{mid[6]}")
PY
