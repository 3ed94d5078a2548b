#!/bin/sh
# test_cli_edges.sh — CLI edges a new user met (issue 23):
#  - `analyze --json -q` is a usage error (exit 2, nothing on stdout), as `merge --json -q`
#    always was: both flags choose what goes to standard output;
#  - `analyze -q - - < T`: standard input named twice is a usage error (exit 2) before any
#    byte is read: what follows the command in the same shell still reads all of T
#    (ok_two_steps.json, 7633 bytes: `wc -c`);
#  - --save, --summary, merge -o and merge --summary gzip when the name ends in .gz (as
#    --trace-out always did): the file starts 1f 8b and gunzips to the bytes the plain name
#    gets; compare reads the gzipped report (its output equals that of the plain one but for
#    the file name; also from a pipe) and merge the gzipped summary (the same job view as from the plain one).
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

gz_magic() { [ "$(head -c 2 "$1" | od -An -tx1 | tr -d ' ')" = 1f8b ]; }
"$GPUDIAG" analyze -q --no-progress --save a.json --summary s.json "$T" >/dev/null 2>err.txt || nok "--save a.json: $(cat err.txt)"
"$GPUDIAG" analyze -q --no-progress --save a.json.gz --summary s.json.gz "$T" >/dev/null 2>err.txt || nok "--save a.json.gz: $(cat err.txt)"
for f in a s; do
    gz_magic $f.json.gz && ok || nok "$f.json.gz is not gzip"
    gzip -dc $f.json.gz | cmp -s - $f.json && ok || nok "$f.json.gz does not gunzip to $f.json"
done
"$GPUDIAG" compare a.json.gz a.json >c_gz.txt 2>err.txt || nok "compare a.json.gz: $(cat err.txt)"
"$GPUDIAG" compare a.json a.json >c_plain.txt 2>&1
sed 's/a\.json\.gz/a.json/' c_gz.txt | cmp -s - c_plain.txt && ok || nok "compare of the gzipped report differs"
# the same from a pipe (read once, told apart by its decompressed head)
cat a.json.gz | "$GPUDIAG" compare /dev/stdin a.json >c_pipe.txt 2>err.txt || nok "compare gzip pipe: $(cat err.txt)"
sed 's|/dev/stdin|a.json|' c_pipe.txt | cmp -s - c_plain.txt && ok || nok "compare of the gzipped report from a pipe differs"
"$GPUDIAG" merge -o m.json.gz --summary ms.json.gz s.json.gz >/dev/null 2>err.txt || nok "merge s.json.gz: $(cat err.txt)"
"$GPUDIAG" merge -o m.json --summary ms.json s.json >/dev/null 2>&1
for f in m ms; do
    gz_magic $f.json.gz && gzip -dc $f.json.gz | cmp -s - $f.json && ok || nok "merge: $f.json.gz is not the gzip of $f.json"
done
finish
