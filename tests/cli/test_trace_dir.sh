#!/bin/sh
# test_trace_dir.sh — the one directory lister of `analyze DIR` and `compare
# DIR DIR` (gd_list_trace_dir, src/cli/cmd_util.c): a directory with no trace
# file (empty, or only dot files and other names) is refused with exit 3 and
# the same message from both commands; dot files and other names are left out
# when trace files are there.  Entries that are not regular files (a FIFO,
# a directory named like a trace) are skipped with a note naming them, so a
# FIFO in the directory no longer hangs `analyze DIR`, `--ranks` or `compare`
# (new-user trial of issue 19); a FIFO named on the command line is still
# read once.
. "$(dirname "$0")/common.sh"
mkdir "$TMP/empty" "$TMP/other" "$TMP/two"
: > "$TMP/other/notes.txt"
cp "$GD_TEST_DATA/ok_two_steps.json" "$TMP/other/.hidden.json"
cp "$GD_TEST_DATA/ok_two_steps.json" "$TMP/two/b.json"
cp "$GD_TEST_DATA/ok_two_steps.json" "$TMP/two/a.json"
cp "$GD_TEST_DATA/ok_two_steps.json" "$TMP/two/.c.json"
: > "$TMP/two/notes.txt"
for d in empty other; do
    want="gpudiag: error: $TMP/$d: no .json, .json.gz or .sqlite trace files in this directory"
    expect_rc 3 "$GPUDIAG" analyze "$TMP/$d"
    [ "$(cat "$TMP/err")" = "$want" ] && ok || nok "analyze $d: stderr '$(cat "$TMP/err")'"
    expect_rc 3 "$GPUDIAG" compare "$TMP/$d" "$TMP/two"
    [ "$(cat "$TMP/err")" = "$want" ] && ok || nok "compare $d: stderr '$(cat "$TMP/err")'"
done
# two traces (a.json, b.json); .c.json and notes.txt are not read
expect_rc 0 "$GPUDIAG" analyze --json "$TMP/two"
python3 - "$TMP/out" "$TMP/two" <<'PY' && ok || nok "analyze two: the inputs"
import json, sys
d = json.load(open(sys.argv[1]))
paths = []
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if isinstance(v, str) and v.startswith(sys.argv[2] + "/"):
                paths.append(v)
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(d)
names = sorted(set(p.rsplit("/", 1)[1] for p in paths))
if names != ["a.json", "b.json"]:
    print("FAIL: files read", names); sys.exit(1)
PY
expect_rc 0 "$GPUDIAG" compare "$TMP/two" "$TMP/two"
# a FIFO and a directory among the traces: skipped, named, no hang (timeout
# exits 124 if the reader blocks on the FIFO)
mkdir "$TMP/fifo" "$TMP/fifo/d.json" "$TMP/onlyfifo"
cp "$GD_TEST_DATA/ok_two_steps.json" "$TMP/fifo/a.json"
mkfifo "$TMP/fifo/c.json" "$TMP/onlyfifo/p.json"
for args in "analyze -q" "analyze -q --ranks 0" "compare $TMP/two"; do
    # shellcheck disable=SC2086
    expect_rc 0 timeout 20 "$GPUDIAG" $args "$TMP/fifo"
    grep -qx "gpudiag: note: $TMP/fifo/c.json: skipped: a FIFO, not a regular file" "$TMP/err" && ok ||
        nok "$args fifo: no note for the FIFO: '$(cat "$TMP/err")'"
    grep -qx "gpudiag: note: $TMP/fifo/d.json: skipped: a directory, not a regular file" "$TMP/err" && ok ||
        nok "$args fifo: no note for the directory: '$(cat "$TMP/err")'"
done
expect_rc 3 timeout 20 "$GPUDIAG" analyze "$TMP/onlyfifo"
grep -q "no .json, .json.gz or .sqlite trace files in this directory" "$TMP/err" && ok || nok "onlyfifo: '$(cat "$TMP/err")'"
# a FIFO given by name is read once
mkfifo "$TMP/direct.json"
timeout 20 sh -c "cat \"$GD_TEST_DATA/ok_two_steps.json\" > \"$TMP/direct.json\"" &
expect_rc 0 timeout 20 "$GPUDIAG" analyze -q "$TMP/direct.json"
wait
finish
