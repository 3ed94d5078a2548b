#!/bin/sh
# JSON escapes in keys and in string values (sj_shim.cpp reads a string
# without a backslash as its raw bytes and unescapes only the others): both
# event readers must read tests/data/ok_escaped_strings.json alike.  By hand:
# six kernels in two steps; "void k<\"x\">(float\u002a)" and its plain
# spelling are one kernel (2 calls x 300 us), "path\\to\\kern\u00e9l" and
# "path\\to\\kernél" one (2 x 200 us; the first of them has every key escaped:
# "c\u0061t", "n\u0061me", "\u0074s", "d\u0075r", "correl\u0061tion", so it is
# read only if keys are unescaped), plain_kernel 2 x 100 us: count 6, distinct
# 3, total 1200 us, top names unescaped.  (The --jobs N paths over the same
# file, in small windows, are test_parallel_ingest.sh's.)
. "$(dirname "$0")/common.sh"
PY='
import json, sys
r = json.load(open(sys.argv[1]))
k = r["kernels"]
want = [("void k<\"x\">(float*)", 2, 600), ("path\\to\\kern\u00e9l", 2, 400), ("plain_kernel", 2, 200)]
got = [(t["name"], t["calls"], t["total_us"]) for t in k["top"]]
ok = (k["count"], k["distinct"], k["total_us"]) == (6, 3, 1200) and got == want
if not ok:
    print("FAIL [%s]: kernels %s %s %s top %s" % (sys.argv[2], k["count"], k["distinct"], k["total_us"], got))
sys.exit(0 if ok else 1)
'
check_both_readers "$GD_TEST_DATA/ok_escaped_strings.json" "$PY"
