#!/bin/sh
# test_sigbus.sh — a mapped input that shrinks while it is read raises SIGBUS
# (--jobs > 1 maps a regular trace, docs/PERFORMANCE.md "Parallel ingest"); the
# report-only commands turn it into one line and exit 3 instead of a death by
# signal (src/cli/cli.c on_sigbus).  Deterministic: gpudiag waits on a FIFO that
# no one writes, and gets SIGBUS from kill, as a shrinking map would send it.
# (By hand, 2026-12-03: a 1.13 GB trace truncated to 200 MB 0.6 s into
# `analyze --jobs 2` died with "Bus error", status 135, before this.)
set -u
GD_TMP_TAG=sigbus
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
mkfifo "$TMP/t.json" || { echo "skip: mkfifo"; exit 77; }
for cmd in analyze compare; do
    if [ "$cmd" = compare ]; then set -- compare "$GD_TEST_DATA/ok_two_steps.json" "$TMP/t.json"; else set -- analyze "$TMP/t.json"; fi
    "$GPUDIAG" "$@" >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    # wait until it blocks opening the FIFO (Linux: wchan wait_for_partner; elsewhere 3 s)
    n=0
    while [ $n -lt 30 ] && ! grep -q partner /proc/$pid/wchan 2>/dev/null; do
        sleep 0.1
        n=$((n + 1))
    done
    kill -BUS $pid
    wait $pid
    rc=$?
    [ $rc -eq 3 ] && ok || nok "$cmd: SIGBUS gives exit $rc, not 3"
    grep -q '^gpudiag: error: an input file shrank or could not be read while it was being read (SIGBUS' "$TMP/err" &&
        ok || nok "$cmd: SIGBUS message: $(cat "$TMP/err")"
    [ ! -s "$TMP/out" ] && ok || nok "$cmd: a report was written"
done
finish
