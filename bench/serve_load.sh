#!/bin/sh
# Load test of `gpudiag serve`: scrapes/s and memory under concurrent scrapes.
# Usage: bench/serve_load.sh [BUILD_DIR] [GPUS] [SECONDS]
#   Starts `gpudiag serve --backend test` with GPUS synthetic GPUs (default 8)
#   sampling every 100 ms, runs wrk (Debian's wrk) against /metrics with 2
#   threads and 16 connections for SECONDS (default 10), then prints wrk's
#   summary, the exporter's peak resident memory (VmHWM) and its CPU time.
set -eu
BUILD=${1:-build}
GPUS=${2:-8}
SECS=${3:-10}
command -v wrk >/dev/null || { echo "wrk not installed (apt-get install wrk)"; exit 1; }
ERR=$(mktemp)
GPUDIAG_TEST_GPUS=$GPUS "$BUILD/gpudiag" serve --backend test --listen 127.0.0.1:0 --interval 100ms 2> "$ERR" &
PID=$!
trap 'kill $PID 2>/dev/null; rm -f "$ERR"' EXIT
for _ in $(seq 50); do
    PORT=$(sed -n 's#.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*#\1#p' "$ERR")
    [ -n "$PORT" ] && break
    sleep 0.1
done
[ -n "${PORT:-}" ] || { cat "$ERR"; exit 1; }
BYTES=$(python3 -c "import urllib.request; print(len(urllib.request.urlopen('http://127.0.0.1:$PORT/metrics').read()))")
echo "gpudiag serve: $GPUS GPUs, /metrics is $BYTES bytes"
wrk -t2 -c16 -d"${SECS}s" "http://127.0.0.1:$PORT/metrics"
echo "peak RSS: $(grep VmHWM /proc/$PID/status | awk '{print $2, $3}')"
echo "CPU time (user+sys ticks): $(awk '{print $14 + $15}' /proc/$PID/stat) at $(getconf CLK_TCK)/s"
kill -TERM $PID
wait $PID
