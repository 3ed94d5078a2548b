#!/bin/sh
# test_terminal.sh — input-derived strings never drive or reorder the terminal.
# A trace whose kernel, op and device names hold ESC sequences (an OSC title
# change, a CSI colour), a C1 control (U+0085, U+009B CSI) and the bidi
# controls U+202E (right-to-left override) and U+2066 (isolate) is analysed
# (text report, --verbose) and compared with itself (compare's kernel table);
# neither output may contain ESC, a C1 control or a bidi control, and each
# replaced sequence shows as '?': "evil" + ESC "]0;pwned" BEL "x" reads
# "evil?]0;pwned?x" (two replacements, one per control).
set -u
GD_TMP_TAG=terminal
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
fails=0
python3 - "$GD_TEST_DATA/ok_two_steps.json" "$TMP/evil.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
evil = "evil\x1b]0;pwned\x07x\u202eLRO\u2066iso\u0085nel\u009b31m"
for e in d["traceEvents"]:
    if e.get("cat") in ("kernel", "cpu_op"):
        e["name"] = evil + e["name"]
for p in d.get("deviceProperties", []):
    p["name"] = evil
json.dump(d, open(sys.argv[2], "w"), ensure_ascii=False)
PY
"$GPUDIAG" analyze --verbose "$TMP/evil.json" > "$TMP/out" 2>&1
"$GPUDIAG" compare "$TMP/evil.json" "$TMP/evil.json" >> "$TMP/out" 2>&1
python3 - "$TMP/out" <<'PY' || fails=$((fails + 1))
import sys
b = open(sys.argv[1], "rb").read()
s = b.decode("utf-8")
bad = [c for c in s if c == "\x1b" or c == "\x07" or "\x80" <= c <= "\x9f" or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"]
if bad:
    print("FAIL: control characters reached the output:", sorted(set(map(hex, map(ord, bad)))))
    sys.exit(1)
if "evil?]0;pwned?x?LRO?iso?nel?31m" not in s:
    print("FAIL: the cleaned name is not in the output")
    sys.exit(1)
PY
echo "terminal: $fails failed"
[ "$fails" -eq 0 ]
