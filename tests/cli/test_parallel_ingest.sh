#!/bin/sh
# Parallel ingest (issue 24): `analyze --jobs N` on one trace parses its events
# on N threads and must print byte for byte what --jobs 1 prints (report,
# messages, exit code) on every trace of tests/data, the hostile corpus and the
# shared traces.  GPUDIAG_PARSE_WINDOW makes the windows small (a few hundred
# bytes to a few KB) so that even the small test files are cut into many
# windows, at every kind of boundary; the shared traces are also run with the
# default 1 MiB windows (which, below 64 MiB of JSON, means one thread: the cap
# on threads per input size is then what is checked).
. "$(dirname "$0")/common.sh"
run() { # run OUT JOBS WINDOW FORMAT FILE
    GPUDIAG_PARSE_WINDOW=$3 "$GPUDIAG" analyze --jobs "$2" $4 "$5" >"$1.out" 2>"$1.err"
    echo "rc=$?" >>"$1.out"
}
same() { # same CASE FILE JOBS WINDOW FORMAT: --jobs JOBS equals --jobs 1
    run "$TMP/a" 1 "" "$5" "$2"
    run "$TMP/b" "$3" "$4" "$5" "$2"
    if cmp -s "$TMP/a.out" "$TMP/b.out" && cmp -s "$TMP/a.err" "$TMP/b.err"; then
        ok
    else
        nok "$1: --jobs $3 (window ${4:-default}) $5 differs from --jobs 1 on $2"
        diff "$TMP/a.out" "$TMP/b.out" | head -5
        diff "$TMP/a.err" "$TMP/b.err" | head -5
    fi
}
for f in "$GD_TEST_DATA"/*.json* "$GD_TEST_DATA"/hostile/*; do
    [ -f "$f" ] || continue
    same small "$f" 2 200 --json
    same small "$f" 3 1000 ""
done
for f in "$GD_SHARED"/data/traces/*.json*; do
    [ -f "$f" ] || continue
    same shared "$f" 2 "" --json
    same shared "$f" 4 65536 --json
done
# A plain file's windows are parsed where the file is mapped (each worker maps
# its own); a pipe, a .gz and GPUDIAG_NO_MMAP=1 copy them from the read
# buffer instead.  The copying path on the same plain files, and through a
# pipe, must print the same too.
for f in "$GD_TEST_DATA"/*.json "$GD_TEST_DATA"/hostile/*; do
    [ -f "$f" ] || continue
    GPUDIAG_NO_MMAP=1
    export GPUDIAG_NO_MMAP
    same copied "$f" 2 200 --json
    unset GPUDIAG_NO_MMAP
    cat "$f" | GPUDIAG_PARSE_WINDOW=300 "$GPUDIAG" analyze --jobs 2 --json - >"$TMP/c.out" 2>"$TMP/c.err"
    echo "rc=$?" >>"$TMP/c.out"
    "$GPUDIAG" analyze --jobs 1 --json - <"$f" >"$TMP/d.out" 2>"$TMP/d.err"
    echo "rc=$?" >>"$TMP/d.out"
    cmp -s "$TMP/c.out" "$TMP/d.out" && cmp -s "$TMP/c.err" "$TMP/d.err" && ok ||
        nok "a pipe: --jobs 2 (window 300) differs from --jobs 1 on $f"
done
# the windows were really cut: a trace of many windows reads the same events
# with --jobs 2 as with 1 (not only the same report: the event count is in it)
f="$GD_TEST_DATA/ok_two_steps.json"
GPUDIAG_PARSE_WINDOW=64 "$GPUDIAG" analyze --jobs 2 --json "$f" >"$TMP/w.json" 2>/dev/null
"$GPUDIAG" analyze --jobs 1 --json "$f" >"$TMP/s.json" 2>/dev/null
cmp -s "$TMP/w.json" "$TMP/s.json" && ok || nok "64-byte windows on $f"
finish
