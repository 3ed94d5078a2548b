#!/bin/sh
# test_format_flag.sh — an explicit --format is honoured, never overruled by
# the content (newcomer finding: `--format kineto run.sqlite` was read as an
# Nsight export, the flag silently ignored).  A file that plainly is not in
# the format given is malformed input: exit 3, "FILE: byte 0: --format F, but
# ...", nothing on stdout; the contradictions visible from the command line
# alone are usage errors (exit 2).  Auto and matching formats still work.
set -u
GD_TMP_TAG=format
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
cd "$TMP" || exit 1
T="$GD_TEST_DATA/ok_two_steps.json"
cp "$T" trace.json
# a small SQLite database: what matters here is its header, not its tables
python3 -c 'import sqlite3; c = sqlite3.connect("db.sqlite"); c.execute("CREATE TABLE t (a)"); c.commit()'
head -c 16 db.sqlite | grep -q "SQLite format 3" || bad "python3 made no SQLite file"
mkdir ranks && cp "$T" ranks/r0.json && cp db.sqlite ranks/r1.sqlite
check() { # RC WANT_STDERR ARGS...: exit RC, stderr exactly "gpudiag: error: WANT_STDERR" (first line), no stdout
    want_rc=$1 want=$2
    shift 2
    "$GPUDIAG" "$@" >out.txt 2>err.txt </dev/null
    rc=$?
    if [ "$rc" -eq "$want_rc" ] && [ "$(head -n 1 err.txt)" = "gpudiag: error: $want" ] && [ ! -s out.txt ]; then
        ok
    else
        bad "$*: exit $rc (want $want_rc), stderr: $(head -c 300 err.txt), stdout $(wc -c <out.txt) bytes"
    fi
}
check 3 "db.sqlite: byte 0: --format kineto, but this is an SQLite database (an Nsight Systems export), not a Kineto JSON trace; drop --format or give --format nsys" \
    analyze --format kineto db.sqlite
check 3 "db.sqlite: byte 0: --format dmon, but this is an SQLite database (an Nsight Systems export), not a monitoring log; drop --format or give --format nsys" \
    analyze --format dmon db.sqlite
check 3 "trace.json: byte 0: --format nsys, but this is not an Nsight Systems export (no SQLite header \"SQLite format 3\"); drop --format to read it by its content" \
    analyze --format nsys trace.json
check 3 "trace.json: byte 0: --format nsys, but this is not an Nsight Systems export (no SQLite header \"SQLite format 3\"); drop --format to read it by its content" \
    analyze --json --format=nsys trace.json
check 2 "--format nsys reads an SQLite file, which needs a path: standard input cannot be one (give the .sqlite file's path)" \
    analyze --format nsys -
check 2 "ranks: --format smi-csv names a monitoring log; a directory is read as the rank traces of one job (its .json, .json.gz and .sqlite files)" \
    analyze --format smi-csv ranks
# a directory: each file is checked; the matching one is still analysed, the worst exit wins
"$GPUDIAG" analyze -q --format kineto ranks >out.txt 2>err.txt
rc=$?
if [ "$rc" -eq 3 ] && grep -q "^gpudiag: error: ranks/r1.sqlite: byte 0: --format kineto, but this is an SQLite database" err.txt &&
    grep -q "r0.json" out.txt; then ok; else bad "--format kineto DIR: exit $rc, stderr: $(cat err.txt), stdout: $(cat out.txt)"; fi
# the format that matches, and auto, read as before
"$GPUDIAG" analyze --json --format kineto trace.json >k.json 2>err.txt && "$GPUDIAG" analyze --json trace.json >a.json 2>>err.txt &&
    cmp -s k.json a.json && ok || bad "--format kineto on a trace differs from auto: $(cat err.txt)"
"$GPUDIAG" analyze -q --format kineto - <trace.json >/dev/null 2>err.txt && ok || bad "--format kineto - : $(cat err.txt)"
# a JSON trace (plain or gzip, a file or a pipe) given a log format: said as such, not as the
# log reader's "CSV without its header line" (new-user trial)
gzip -c trace.json > trace.json.gz
check 3 "trace.json: byte 0: --format smi-csv, but this looks like a JSON trace (it starts with '{'), not nvidia-smi --query-gpu CSV with its header; drop --format to read it by its content" \
    analyze --format smi-csv trace.json
check 3 "trace.json.gz: byte 0: --format dmon, but this looks like a JSON trace (it starts with '{'), not nvidia-smi dmon; drop --format to read it by its content" \
    analyze --format dmon trace.json.gz
"$GPUDIAG" analyze --format dcgmi - <trace.json >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 3 ] && [ ! -s out.txt ] &&
    [ "$(cat err.txt)" = "gpudiag: error: -: byte 0: --format dcgmi, but this looks like a JSON trace (it starts with '{'), not dcgmi dmon; drop --format to read it by its content" ] &&
    ok || bad "--format dcgmi - <trace.json: exit $rc, stderr: $(cat err.txt)"
printf '[{"name": "x"}]\n' > list.json
check 3 "list.json: byte 0: --format prom, but this looks like a JSON trace (it starts with '['), not dcgm-exporter Prometheus text; drop --format to read it by its content" \
    analyze --format prom list.json
# one log given another log's format: the reader's complaint, then what the content looks like
cp "$GD_TEST_DATA/monlog/dmon_gains.log" dmon.log
check 3 "dmon.log: byte 0: line 1: nvidia-smi CSV without its header line (--format=csv,noheader): the field names are needed; log with --format=csv (this looks like nvidia-smi dmon: drop --format or give --format dmon)" \
    analyze --format smi-csv dmon.log
finish
