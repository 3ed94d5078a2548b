#!/bin/sh
# Paths reach the terminal cleaned as the text report prints them (gd_term_clean): a control
# character, a C1 control or a bidirectional override is one '?'.  A new user's trial: a file named
# "esc<ESC>[31mred.json" in a directory printed its escape sequence raw with `analyze -q DIR`, and a
# name with a newline split the line.  JSON keeps the path as it is (escaped by JSON itself).
set -u
GD_TMP_TAG=termpaths
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
ESC=$(printf '\033')
mkdir -p "$TMP/d"
cp "$GD_TEST_DATA/ok_three_steps.json" "$TMP/d/esc${ESC}[31mred.json"
cp "$GD_TEST_DATA/ok_three_steps.json" "$TMP/d/new
line.json"
"$GPUDIAG" analyze -q "$TMP/d" > "$TMP/q.txt" 2>&1
if grep -q "$ESC" "$TMP/q.txt"; then nok "-q DIR printed an escape byte"; else ok; fi
grep -q "esc?\[31mred.json: " "$TMP/q.txt" && ok || nok "-q DIR: the cleaned name ($(head -c 300 "$TMP/q.txt"))"
grep -q "new?line.json: " "$TMP/q.txt" && ok || nok "-q DIR: a newline in a name is one '?'"
# an error message names the file cleaned too
printf 'not json' > "$TMP/bad${ESC}]0;x.json"
"$GPUDIAG" analyze "$TMP/bad${ESC}]0;x.json" > /dev/null 2> "$TMP/err.txt"
if grep -q "$ESC" "$TMP/err.txt"; then nok "the error message printed an escape byte"; else ok; fi
grep -q "bad?\]0;x.json" "$TMP/err.txt" && ok || nok "the error names the file cleaned: $(cat "$TMP/err.txt")"
# compare's base/new lines (traces and logs) and an output path's error (a second new user: raw)
"$GPUDIAG" compare "$TMP/d/esc${ESC}[31mred.json" "$GD_TEST_DATA/ok_three_steps.json" > "$TMP/c.txt" 2>&1
if grep -q "$ESC" "$TMP/c.txt"; then nok "compare printed an escape byte"; else ok; fi
grep -q "base: .*esc?\[31mred.json  (1 run" "$TMP/c.txt" && ok || nok "compare: the cleaned base ($(grep base: "$TMP/c.txt"))"
printf '# gpu    sm\n# Idx     %%\n    0    80\n    0    80\n' > "$TMP/log${ESC}[1m.log"
"$GPUDIAG" compare "$TMP/log${ESC}[1m.log" "$TMP/log${ESC}[1m.log" > "$TMP/cl.txt" 2>&1
if grep -q "$ESC" "$TMP/cl.txt"; then nok "compare of logs printed an escape byte"; else ok; fi
"$GPUDIAG" analyze --trace-out "/nonexistent-dir/o${ESC}[31m.json" "$GD_TEST_DATA/ok_three_steps.json" > /dev/null 2> "$TMP/o.txt"
if grep -q "$ESC" "$TMP/o.txt"; then nok "an output path's error printed an escape byte"; else ok; fi
grep -q "o?\[31m.json: cannot be written" "$TMP/o.txt" && ok || nok "output path error: $(cat "$TMP/o.txt")"
# JSON keeps the name (JSON escapes the control character itself)
"$GPUDIAG" analyze --json "$TMP/d/esc${ESC}[31mred.json" | python3 -c '
import json, sys; d = json.load(sys.stdin); sys.exit(0 if d["inputs"][0]["path"].endswith("esc\x1b[31mred.json") else 1)' &&
    ok || nok "JSON keeps the path"
finish
