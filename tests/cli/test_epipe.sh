#!/bin/sh
# test_epipe.sh — a reader that closes the pipe early (`gpudiag analyze T |
# head -1`) is not an error worth a line: every report-writing command exits 5
# (the documented status of a failed write to standard output) and prints
# nothing on stderr; any other write error (a full disk: /dev/full) still
# prints one "cannot write the report to standard output: REASON" line and
# exits 5.  The pipe's reader is closed before gpudiag starts, so the first
# write fails whatever the output's size (no race with a pipe buffer).
set -u
GD_TMP_TAG=epipe
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
OK2="$GD_TEST_DATA/ok_two_steps.json"
GZ="$GD_SRC/examples/resnet50_v100_num_workers_0.pt.trace.json.gz"
[ -f "$GZ" ] || GZ="$OK2"
DMON="$TMP/a.dmon"
printf '# gpu    sm   mem   enc   dec  mclk  pclk\n# Idx     %%     %%     %%     %%   MHz   MHz\n    0    50    20     0     0  1215  1410\n    0    60    25     0     0  1215  1410\n    0    40    20     0     0  1215  1410\n' >"$DMON"

closed_pipe() { # ARGS...: run gpudiag with stdout a pipe whose reader is gone; prints "RC STDERR_BYTES"
    python3 -c 'import os, subprocess, sys
r, w = os.pipe(); os.close(r)
p = subprocess.run(sys.argv[2:], stdout=w, stderr=open(sys.argv[1], "wb"))
print(p.returncode)' "$TMP/err" "$GPUDIAG" "$@"
}
check_quiet() { # ARGS...
    rc=$(closed_pipe "$@")
    if [ "$rc" = 5 ] && [ ! -s "$TMP/err" ]; then ok; else bad "$* into a closed pipe: exit $rc, stderr: $(head -c 300 "$TMP/err")"; fi
}
check_full() { # ARGS...
    [ -c /dev/full ] || return 0 # a machine whose /dev/full is not the full device: nothing to check
    "$GPUDIAG" "$@" >/dev/full 2>"$TMP/err"
    rc=$?
    if [ "$rc" -eq 5 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
        [ "$(cat "$TMP/err")" = "gpudiag: error: cannot write the report to standard output: No space left on device" ]; then
        ok
    else
        bad "$* > /dev/full: exit $rc, stderr: $(head -c 300 "$TMP/err")"
    fi
}
for args in "analyze $GZ" "analyze --json $GZ" "analyze --quiet $OK2" "analyze --verbose $OK2" "analyze $DMON" \
    "analyze --json $OK2 $OK2" "analyze --html - $OK2" "analyze --trace-out - $OK2" "compare $OK2 $OK2" "compare --json $OK2 $OK2" \
    "compare $DMON $DMON" "specs" "specs --json" "specs H100 NVL" "mfu --model llama3-8b --tokens-per-sec-per-gpu 5762 --gpu H100" \
    "mfu --json --model llama3-8b --tokens-per-sec-per-gpu 5762 --gpu H100" "plan --model llama2-7b --gpu A100-SXM4-80GB" \
    "plan --json --model llama2-7b --gpu A100-SXM4-80GB"; do
    # shellcheck disable=SC2086 # word splitting wanted: no blanks in these paths
    check_quiet $args
    # shellcheck disable=SC2086
    check_full $args
done
# the real shell pipeline of the report: a large --json report to head -c 1
{ "$GPUDIAG" analyze --json "$GZ" 2>"$TMP/err2"; echo $? >"$TMP/rc"; } | head -c 1 >/dev/null
rc=$(cat "$TMP/rc")
if { [ "$rc" -eq 5 ] || [ "$rc" -eq 0 ]; } && [ ! -s "$TMP/err2" ]; then ok; else bad "analyze --json | head -c 1: exit $rc, stderr: $(cat "$TMP/err2")"; fi
# --html - / --trace-out - own standard output: only that document goes there;
# another report asked for on standard output is a usage error
"$GPUDIAG" analyze --html - "$OK2" >"$TMP/h.out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 0 ] && [ "$(head -c 15 "$TMP/h.out")" = "<!DOCTYPE html>" ] && [ "$(grep -c '<!DOCTYPE' "$TMP/h.out")" -eq 1 ] &&
    ! grep -q '^gpudiag \|VERDICT' "$TMP/h.out"; then ok; else bad "--html -: exit $rc, $(head -c 80 "$TMP/h.out")"; fi
"$GPUDIAG" analyze --trace-out - "$OK2" >"$TMP/t.out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 0 ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/t.out"; then ok; else bad "--trace-out -: exit $rc, not one JSON document"; fi
for args in "--json --html -" "--quiet --html -" "--json --trace-out -" "--html - --trace-out -"; do
    # shellcheck disable=SC2086
    "$GPUDIAG" analyze $args "$OK2" >"$TMP/u.out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" -eq 2 ] && [ ! -s "$TMP/u.out" ] && grep -q "both write to standard output" "$TMP/err"; then ok
    else bad "analyze $args: exit $rc, stderr: $(cat "$TMP/err")"; fi
done
finish
