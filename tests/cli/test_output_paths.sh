#!/bin/sh
# A new user's small findings (clean clone, README only):
# 1. `analyze --json ranks/` named its traces ranks//rank0.json: a directory's file paths are made
#    in one place (cmd_util.c join_path) with the directory's trailing slashes dropped, so
#    `DIR/`, `DIR//` and `DIR` give byte-identical reports (tests/data/ranks_coll: two ranks).
# 2. `compare --no-progress A B` was refused (exit 2) although README presents --no-progress as
#    the way to turn off the bar: compare draws one while reading a trace file, and accepts it;
#    the comparison is the same with and without it (exit 0 for the startup pair).
# 3. --save replaces an existing file of that name, as --html, --trace-out and --summary do
#    (README, man page, --help now say so); a --save onto the input is refused (exit 2).
set -eu
GD_TMP_TAG=outpaths
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
rc=0
ok() { echo "$1: passed"; }
bad() { echo "FAIL: $1"; rc=1; }
D="$GD_TEST_DATA/ranks_coll"
"$GPUDIAG" analyze --json "$D" > "$TMP/plain.json"
"$GPUDIAG" analyze --json "$D/" > "$TMP/slash.json"
"$GPUDIAG" analyze --json "$D//" > "$TMP/slash2.json"
if cmp -s "$TMP/plain.json" "$TMP/slash.json" && cmp -s "$TMP/plain.json" "$TMP/slash2.json" &&
   ! grep -q '//' "$TMP/slash.json" && grep -q 'ranks_coll/rank0.json' "$TMP/slash.json"; then
    ok "trailing slash"
else
    bad "trailing slash: reports differ or name a // path"
fi
B="$GD_TEST_DATA/ok_compare_startup_base.json"
N="$GD_TEST_DATA/ok_compare_startup_new.json"
set +e
"$GPUDIAG" compare --json "$B" "$N" > "$TMP/c1.json"; r1=$?
"$GPUDIAG" compare --no-progress --json "$B" "$N" > "$TMP/c2.json"; r2=$?
set -e
if [ "$r2" -eq "$r1" ] && [ "$r2" -ne 2 ] && cmp -s "$TMP/c1.json" "$TMP/c2.json"; then
    ok "compare --no-progress"
else
    bad "compare --no-progress: exit $r2 (without: $r1)"
fi
echo "not a report" > "$TMP/keep.json"
"$GPUDIAG" analyze --save "$TMP/keep.json" "$B" > /dev/null
if python3 -c 'import json, sys; json.load(open(sys.argv[1]))["verdict"]' "$TMP/keep.json"; then
    ok "--save replaces an existing file"
else
    bad "--save did not replace the existing file"
fi
cp "$B" "$TMP/in.json"
set +e
"$GPUDIAG" analyze --save "$TMP/in.json" "$TMP/in.json" > /dev/null 2>&1; r3=$?
set -e
if [ "$r3" -eq 2 ] && cmp -s "$B" "$TMP/in.json"; then ok "--save onto the input refused"; else bad "--save onto the input: exit $r3"; fi
exit $rc
