#!/bin/sh
# test_faults.sh — gpudiag when the machine fails under it:
#   allocation: every malloc/calloc/realloc from the N-th on returns NULL
#     (tests/fault/faultinject.c, LD_PRELOAD), for every N up to the count a
#     clean run makes, with both event readers: each run either succeeds with
#     the very report of a clean run, or exits 5 with one
#     "gpudiag: error: ... out of memory" / "Cannot allocate memory" line;
#   reading: fread fails from the N-th call on: exit 3, "gpudiag: error:
#     FILE: byte K: read error: Input/output error", nothing on stdout;
#   writing: /dev/full (ENOSPC), a file-size limit (`ulimit -f`, EFBIG):
#     exit 5 and one line "gpudiag: error: cannot write the report to
#     standard output: REASON"; a closed pipe (EPIPE: `gpudiag ... | head
#     -c 1`): exit 5 and nothing on stderr.
# Never a crash (exit >= 128).
# Environment: GPUDIAG, GD_TEST_DATA (see tests/cli/common.sh), GD_FAULT_SHIM
# (the built faultinject.so).  Exit: 0 passed, 1 failed, 77 skipped (no shim,
# or a sanitizer build: ASan owns malloc).
GD_TMP_TAG=fault
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")/../cli" && pwd)/common.sh"
if [ -z "${GD_FAULT_SHIM:-}" ] || [ ! -f "$GD_FAULT_SHIM" ]; then
    echo "skip: GD_FAULT_SHIM not built"
    exit 77
fi
OK2="$GD_TEST_DATA/ok_two_steps.json"
GZ="$GD_SRC/examples/resnet50_v100_num_workers_0.pt.trace.json.gz"

# "parallel": the simdjson reader with the events parsed on 2 threads in
# 256-byte windows (issue 24): allocations fail in the parse threads too
for reader in simdjson yajl parallel; do
    nosj=""
    [ "$reader" = yajl ] && nosj=1
    pw=""
    jobs=""
    [ "$reader" = parallel ] && pw=256 && jobs="--jobs 2"
    for f in "$OK2" "$GZ"; do
        GPUDIAG_NO_SIMDJSON=$nosj GPUDIAG_NO_ISAL=$nosj GPUDIAG_PARSE_WINDOW=$pw "$GPUDIAG" analyze $jobs --json "$f" >"$TMP/clean.json" 2>/dev/null
        GPUDIAG_NO_SIMDJSON=$nosj GPUDIAG_NO_ISAL=$nosj GPUDIAG_PARSE_WINDOW=$pw GD_FAULT_COUNT="$TMP/count" LD_PRELOAD="$GD_FAULT_SHIM" \
            "$GPUDIAG" analyze $jobs --json "$f" >/dev/null 2>&1
        mallocs=$(sed -n 's/^malloc //p' "$TMP/count")
        reads=$(sed -n 's/^read //p' "$TMP/count")
        # every N for the small file; about 30 spread over the large one
        step=1
        [ "$f" = "$GZ" ] && step=$((mallocs / 30 + 1))
        n=0
        while [ "$n" -le "$mallocs" ]; do
            CASE="$reader, $(basename "$f"), malloc fails from call $((n + 1)) of $mallocs"
            GPUDIAG_NO_SIMDJSON=$nosj GPUDIAG_NO_ISAL=$nosj GPUDIAG_PARSE_WINDOW=$pw GD_FAULT_MALLOC=$n LD_PRELOAD="$GD_FAULT_SHIM" \
                "$GPUDIAG" analyze $jobs --json "$f" >"$TMP/out" 2>"$TMP/err"
            rc=$?
            first=$(head -n 1 "$TMP/err")
            if [ "$rc" -eq 0 ] && cmp -s "$TMP/out" "$TMP/clean.json"; then
                ok
            elif [ "$rc" -eq 5 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && { case "$first" in
                "gpudiag: error: "*"out of memory"* | "gpudiag: error: "*"Cannot allocate memory"*) true ;;
                *) false ;; esac; }; then
                ok
            else
                nok "exit $rc, stderr: $(head -c 300 "$TMP/err")"
            fi
            n=$((n + step))
        done
        n=0
        while [ "$n" -lt "$reads" ]; do
            CASE="$reader, $(basename "$f"), fread fails from call $((n + 1)) of $reads"
            GPUDIAG_NO_SIMDJSON=$nosj GPUDIAG_NO_ISAL=$nosj GPUDIAG_PARSE_WINDOW=$pw GD_FAULT_READ=$n LD_PRELOAD="$GD_FAULT_SHIM" \
                "$GPUDIAG" analyze $jobs --json "$f" >"$TMP/out" 2>"$TMP/err"
            rc=$?
            first=$(head -n 1 "$TMP/err")
            case "$first" in
            "gpudiag: error: $f: byte "*": read error: Input/output error" | \
                "gpudiag: error: $f: cannot open: Input/output error")
                [ "$rc" -eq 3 ] && [ ! -s "$TMP/out" ] && ok || nok "exit $rc, stdout $(wc -c <"$TMP/out") bytes"
                ;;
            *) nok "exit $rc, stderr: $first" ;;
            esac
            n=$((n + 1))
        done
    done
done

# --steps (gpudiag_trace_select_steps allocates while filtering): every N over a
# selection that needs the previous step's end (steps 2..3 of ok_three_steps.json)
THREE="$GD_TEST_DATA/ok_three_steps.json"
"$GPUDIAG" analyze --json --steps 2:3 "$THREE" >"$TMP/clean.json" 2>/dev/null
GD_FAULT_COUNT="$TMP/count" LD_PRELOAD="$GD_FAULT_SHIM" "$GPUDIAG" analyze --json --steps 2:3 "$THREE" >/dev/null 2>&1
mallocs=$(sed -n 's/^malloc //p' "$TMP/count")
n=0
while [ "$n" -le "$mallocs" ]; do
    CASE="--steps 2:3, malloc fails from call $((n + 1)) of $mallocs"
    GD_FAULT_MALLOC=$n LD_PRELOAD="$GD_FAULT_SHIM" "$GPUDIAG" analyze --json --steps 2:3 "$THREE" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    first=$(head -n 1 "$TMP/err")
    if [ "$rc" -eq 0 ] && cmp -s "$TMP/out" "$TMP/clean.json"; then
        ok
    elif [ "$rc" -eq 5 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && { case "$first" in
        "gpudiag: error: "*"out of memory"* | "gpudiag: error: "*"Cannot allocate memory"*) true ;;
        *) false ;; esac; }; then
        ok
    else
        nok "exit $rc, stderr: $(head -c 300 "$TMP/err")"
    fi
    n=$((n + 1))
done

# --ncu and the roofline (gpudiag_ncu_read, gd_build_roofline, the op FLOPs the
# reader keeps): every N over tests/data/ok_roofline_mm.json with the CSV sample
RL="$GD_TEST_DATA/ok_roofline_mm.json"
NCU="$GD_TEST_DATA/ncu/roofline_h100.csv"
"$GPUDIAG" analyze --json --ncu "$NCU" "$RL" >"$TMP/clean.json" 2>/dev/null
GD_FAULT_COUNT="$TMP/count" LD_PRELOAD="$GD_FAULT_SHIM" "$GPUDIAG" analyze --json --ncu "$NCU" "$RL" >/dev/null 2>&1
mallocs=$(sed -n 's/^malloc //p' "$TMP/count")
n=0
while [ "$n" -le "$mallocs" ]; do
    CASE="--ncu, malloc fails from call $((n + 1)) of $mallocs"
    GD_FAULT_MALLOC=$n LD_PRELOAD="$GD_FAULT_SHIM" "$GPUDIAG" analyze --json --ncu "$NCU" "$RL" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    first=$(head -n 1 "$TMP/err")
    if [ "$rc" -eq 0 ] && cmp -s "$TMP/out" "$TMP/clean.json"; then
        ok
    elif [ "$rc" -eq 5 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && { case "$first" in
        "gpudiag: error: "*"out of memory"* | "gpudiag: error: "*"Cannot allocate memory"*) true ;;
        *) false ;; esac; }; then
        ok
    else
        nok "exit $rc, stderr: $(head -c 300 "$TMP/err")"
    fi
    n=$((n + 1))
done

# write errors
want_write() { # REASON
    case "$CASE" in *"/dev/full"*) [ -c /dev/full ] || { echo "skip [$CASE]: /dev/full is not the full device here"; return 0; } ;; esac
    first=$(head -n 1 "$TMP/err")
    if [ "$rc" -eq 5 ] && [ "$first" = "gpudiag: error: cannot write the report to standard output: $1" ] &&
        [ "$(wc -l <"$TMP/err")" -eq 1 ]; then ok; else nok "exit $rc, stderr: $(head -c 300 "$TMP/err")"; fi
}
want_silent() { # a closed pipe: exit 5, nothing said (tests/cli/test_epipe.sh)
    if [ "$rc" -eq 5 ] && [ ! -s "$TMP/err" ]; then ok; else nok "exit $rc, stderr: $(head -c 300 "$TMP/err")"; fi
}
for mode in --json --verbose --quiet; do
    CASE="analyze $mode > /dev/full"
    "$GPUDIAG" analyze "$mode" "$OK2" >/dev/full 2>"$TMP/err"
    rc=$?
    want_write "No space left on device"
done
CASE="analyze --json DIR > /dev/full (the cluster report)"
mkdir "$TMP/ranks" && cp "$OK2" "$TMP/ranks/a.json" && cp "$OK2" "$TMP/ranks/b.json"
"$GPUDIAG" analyze --json "$TMP/ranks" >/dev/full 2>"$TMP/err"
rc=$?
want_write "No space left on device"
CASE="analyze --json 40 files | head -c 1 (closed pipe)"
set --
for i in $(seq 40); do set -- "$@" "$OK2"; done
{ "$GPUDIAG" analyze --json "$@" 2>"$TMP/err"; echo $? >"$TMP/rc"; } | head -c 1 >/dev/null
rc=$(cat "$TMP/rc")
want_silent
CASE="specs into a closed pipe (the same for every report-only command)"
# a pipe whose reader is already gone: the first write fails, whatever the output's size
rc=$(python3 -c 'import os, subprocess, sys
r, w = os.pipe(); os.close(r)
p = subprocess.run([sys.argv[1], "specs"], stdout=w, stderr=open(sys.argv[2], "w"))
print(p.returncode)' "$GPUDIAG" "$TMP/err")
want_silent
CASE="compare > /dev/full"
"$GPUDIAG" compare "$OK2" "$OK2" >/dev/full 2>"$TMP/err"
rc=$?
want_write "No space left on device"
CASE="analyze --json > file with ulimit -f 1 (1 KiB)"
(ulimit -f 1 && "$GPUDIAG" analyze --json "$OK2" >"$TMP/lim.json" 2>"$TMP/err"; echo $? >"$TMP/rc")
rc=$(cat "$TMP/rc")
want_write "File too large"

finish
