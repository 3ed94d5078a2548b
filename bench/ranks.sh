#!/usr/bin/env bash
# Parallel scaling of `gpudiag analyze DIR`: N copies of a real rank trace,
# analysed with --jobs 1 and --jobs $(nproc), RUNS times each (median wall).
# Usage: bench/ranks.sh [N=8] [TRACE] [BUILD=build]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-8}
TRACE=${2:-$ROOT/../shared/data/traces/a100_8rank_rank3_control.json.gz}
BIN=${BUILD:-$ROOT/build}/gpudiag
RUNS=${RUNS:-3}
DIR=$(mktemp -d); trap 'rm -rf "$DIR"' EXIT
for ((i = 0; i < N; i++)); do cp "$TRACE" "$DIR/rank$i.json.gz"; done
for jobs in 1 "$(nproc)"; do
  ts=()
  for ((r = 0; r < RUNS; r++)); do
    s=$EPOCHREALTIME; "$BIN" analyze --json --jobs "$jobs" "$DIR" > /dev/null; e=$EPOCHREALTIME
    ts+=("$(echo "$e - $s" | bc)")
  done
  printf '%s ranks, --jobs %s: %s s (runs: %s)\n' "$N" "$jobs" \
    "$(printf '%s\n' "${ts[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")" "${ts[*]}"
done
