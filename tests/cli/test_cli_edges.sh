#!/bin/sh
# test_cli_edges.sh — CLI edges a new user met (issue 23):
#  - `analyze --json -q` is a usage error (exit 2, nothing on stdout), as `merge --json -q`
#    always was: both flags choose what goes to standard output;
#  - `analyze -q - - < T`: standard input named twice is a usage error (exit 2) before any
#    byte is read: what follows the command in the same shell still reads all of T
#    (ok_two_steps.json, 7633 bytes: `wc -c`).
set -u
GD_TMP_TAG=edges
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
cd "$TMP" || exit 1
T="$GD_TEST_DATA/ok_two_steps.json"

expect_rc 2 "$GPUDIAG" analyze --json -q "$T"
[ ! -s "$TMP/out" ] && grep -q -- "--json and --quiet" "$TMP/err" && ok || nok "analyze --json -q: '$(cat "$TMP/out" "$TMP/err")'"
expect_rc 2 "$GPUDIAG" analyze -q --json "$T"

left=$( { "$GPUDIAG" analyze -q - - 2>err.txt >out.txt; echo "rc=$?"; wc -c | tr -d ' '; } < "$T" | tr '\n' ' ')
[ "$left" = "rc=2 7633 " ] && ok || nok "analyze -q - - < T: '$left' (want 'rc=2 7633 ': usage error, stdin untouched)"
grep -q "standard input ('-') can be read once" err.txt && [ ! -s out.txt ] && ok || nok "analyze - -: '$(cat err.txt)'"
# one '-' still reads the trace
"$GPUDIAG" analyze -q - < "$T" >out.txt 2>err.txt && grep -q "^memory_bandwidth: " out.txt && ok ||
    nok "analyze -q - < T: '$(cat out.txt err.txt)'"
finish
