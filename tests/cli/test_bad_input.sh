#!/bin/sh
# test_bad_input.sh — `gpudiag analyze` on broken, hostile and wrong input, and
# command-line usage errors.  Asserts the exact exit status of each case,
#   0  analysable, with a warning (input_* finding) where the input was damaged;
#   2  usage error;
#   3  unreadable or malformed input (the message names the file, and the byte
#      offset for parse errors);
# that no run crashed (exit < 128), what stderr names, and for the analysable
# cases that the events before / around the damage were kept.
#
# Environment: GPUDIAG (default <repo>/build/gpudiag), GD_TEST_DATA (default the
# script's ../data), GD_SHARED (default the script's ../../../shared; the real
# trace data/traces/resnet50_v100_num_workers_0.pt.trace.json.gz is used for the
# cut-file cases, which are skipped when it is absent).
# The whole run is repeated with GPUDIAG_NO_SIMDJSON=1 GPUDIAG_NO_ISAL=1 (zlib, and the yajl-only event
# reader) unless that variable is already set; both readers must agree.
# Exit: 0 all passed, 1 any failure, 77 python3 missing (skip).

GD_TMP_TAG=bad
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

PASS=0
FAIL=0
CASE=""
MODE=""
[ -n "${GPUDIAG_NO_SIMDJSON+x}" ] && MODE="GPUDIAG_NO_SIMDJSON=1 GPUDIAG_NO_ISAL=1: "

ok() { PASS=$((PASS + 1)); }
nok() {
    FAIL=$((FAIL + 1))
    echo "FAIL [$MODE$CASE] $*"
}
show() {
    printf '       exit=%s stderr: %s\n' "$RC" "$(head -c 400 "$TMP/err" | tr '\n' ' ')"
    printf '       stdout: %s\n' "$(head -c 200 "$TMP/out" | tr '\n' ' ')"
}

# run ARGS... : run gpudiag, keep exit status, stdout, stderr.
run() {
    jflush
    "$GPUDIAG" "$@" >"$TMP/out" 2>"$TMP/err"
    RC=$?
}
# run_in FILE ARGS... : the same with FILE on standard input.
run_in() {
    jflush
    _in=$1
    shift
    "$GPUDIAG" "$@" <"$_in" >"$TMP/out" 2>"$TMP/err"
    RC=$?
}

expect_rc() {
    if [ "$RC" -eq "$1" ]; then ok; else nok "exit status: expected $1, got $RC"; show; fi
    if [ "$RC" -lt 128 ]; then ok; else nok "crashed (exit $RC)"; fi
}
# err_has TEXT... : stderr contains every TEXT (fixed strings), as one assertion.
err_has() {
    _miss=""
    for _s in "$@"; do
        grep -F -q -- "$_s" "$TMP/err" || _miss="$_miss '$_s'"
    done
    if [ -z "$_miss" ]; then ok; else nok "stderr lacks$_miss"; show; fi
}
# warns_on_stderr TEXT... : an analysable-but-damaged input (exit 0) also gets a
# warning line on stderr naming the file and the byte offset, so that a user of
# --json (whose stdout goes to a program) sees that the numbers come from a
# damaged file.  The report's input_* findings carry the same facts; if the
# project decides stderr stays silent on exit 0, drop this one function's body.
warns_on_stderr() {
    err_has "$@"
}
out_empty() {
    if [ ! -s "$TMP/out" ]; then ok; else nok "stdout not empty on failure"; show; fi
}
# jeq ACTUAL EXPECTED : Python expressions over the report r (stdout JSON); equal.
# The checks of one run are collected and evaluated by one python3 process
# (jflush, called by the next run and at the end): a process per check made
# this script the slowest of the suite.
jeq() {
    printf '%s\n%s\n%s\n' "$MODE$CASE" "$1" "$2" >>"$TMP/pending"
}
jflush() {
    [ -s "$TMP/pending" ] || return 0
    python3 "$TMP/q.py" "$TMP/out" "$TMP/pending" >"$TMP/q.msg" 2>&1
    _p=$(sed -n 's/^passed //p' "$TMP/q.msg")
    _f=$(sed -n 's/^failed //p' "$TMP/q.msg")
    PASS=$((PASS + ${_p:-0}))
    FAIL=$((FAIL + ${_f:-1}))
    grep -v '^passed \|^failed ' "$TMP/q.msg"
    [ "${_f:-1}" -eq 0 ] || show
    : >"$TMP/pending"
}

cat >"$TMP/q.py" <<'PYEOF'
import json, sys
path, pending = sys.argv[1], sys.argv[2]
lines = open(pending).read().split("\n")
checks = [lines[i:i + 3] for i in range(0, len(lines) - 2, 3)]
try:
    r = json.load(open(path))
except Exception as e:
    for case, actual_expr, expected_expr in checks:
        print("FAIL [%s] report: %s == %s" % (case, actual_expr, expected_expr))
        print("       stdout is not a JSON report: %s" % e)
    print("passed 0")
    print("failed %d" % len(checks))
    sys.exit(0)
ids = [f.get("id") for f in r.get("findings", [])]
inp = r["inputs"][0] if r.get("inputs") else {}
env = {"r": r, "ids": ids, "inp": inp}
passed = failed = 0
for case, actual_expr, expected_expr in checks:
    try:
        a = eval(actual_expr, env)
    except Exception as e:
        a = "<%s: %s>" % (type(e).__name__, e)
    e = eval(expected_expr, env)
    if a == e:
        passed += 1
        continue
    failed += 1
    print("FAIL [%s] report: %s == %s" % (case, actual_expr, expected_expr))
    print("       expected %r" % (e,))
    print("       got      %r" % (a,))
print("passed %d" % passed)
print("failed %d" % failed)
PYEOF

# Numbers of the clean ok_two_steps.json (tests/cli/test_synthetic.sh derives them).
STEPS_TWO='[(s["start_us"], s["end_us"], s["device_ops"]) for s in r["steps"]]'
STEPS_TWO_WANT='[(1010, 1120, 3), (1120, 1230, 4)]'
OK2="$GD_TEST_DATA/ok_two_steps.json"

# ---------------------------------------------------------------------------
# Not a trace at all
CASE="empty file"
: >"$TMP/empty.json"
run analyze --json "$TMP/empty.json"
expect_rc 3; err_has "$TMP/empty.json" "byte 0"; out_empty

CASE="not JSON"
printf 'hello world\n' >"$TMP/text.json"
run analyze --json "$TMP/text.json"
# the offending byte is the 'h' at offset 0
expect_rc 3; err_has "$TMP/text.json" "byte 0"; out_empty

CASE="JSON object without traceEvents"
printf '{"a":1}\n' >"$TMP/obj.json"
run analyze --json "$TMP/obj.json"
expect_rc 3; err_has "$TMP/obj.json"; out_empty

CASE="a Markdown file (README.md)"
# Its first line "# gpudiag" is no log header and its prose line "gpudiag 0.1.0  examples/..."
# no Prometheus sample: not a trace, exit 3, and no hint that it is a monitoring log.
printf '# gpudiag\n\n```\ngpudiag 0.1.0  examples/x.json.gz  (kineto, 35.0 MB)\n```\n' >"$TMP/README.md"
run analyze "$TMP/README.md"
expect_rc 3; err_has "$TMP/README.md: byte 0: not a trace"; out_empty
if grep -q "monitoring log\|prom log" "$TMP/err"; then nok "README.md: $(cat "$TMP/err")"; else ok; fi

CASE="a Git LFS pointer (cloned without git lfs)"
# Three "key value" lines; "size 48627712" looks like a Prometheus sample of a metric named "size",
# which no GPU log has: the old binary read it as a prom log of 1 sample on "GPU -1" and exited 0.
# Not a trace, exit 3, and the error names the pointer and `git lfs pull`.
printf 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 48627712\n' >"$TMP/lfs.sqlite"
run analyze "$TMP/lfs.sqlite"
expect_rc 3; err_has "$TMP/lfs.sqlite: byte 0: not a trace" "Git LFS pointer" "git lfs pull"; out_empty

# Near misses a new user tried (10th session): they read "not JSON, nor a log format gpudiag
# knows"; now the hint names what they are.
CASE="a gzip-compressed SQLite database"
{ printf 'SQLite format 3\000'; head -c 4080 /dev/zero; } | gzip -c >"$TMP/x.sqlite.gz"
run analyze "$TMP/x.sqlite.gz"
expect_rc 3; err_has "$TMP/x.sqlite.gz: byte 0: not a trace" "a gzip-compressed SQLite database" "gunzip"; out_empty
CASE="a .gz whose first magic byte is damaged"
printf '{"traceEvents": []}' | gzip -c | python3 -c 'import sys; d = bytearray(sys.stdin.buffer.read()); d[0] = 0x1e; sys.stdout.buffer.write(d)' >"$TMP/badmagic.json.gz"
run analyze "$TMP/badmagic.json.gz"
expect_rc 3; err_has "$TMP/badmagic.json.gz: byte 0: not a trace" "one of its magic bytes 1f 8b changed"; out_empty

CASE="two 'word number' lines are no Prometheus log"
# "size 5" parses as name value, but "size" is no metric a GPU log carries (DEFINITIONS "Reading").
printf 'hello world\nsize 5\n' >"$TMP/two.txt"
run analyze "$TMP/two.txt"
# and the error says what gpudiag reads (a new user: "lexical error: invalid char in json text" alone)
expect_rc 3; err_has "$TMP/two.txt: byte 0: not a trace" "not JSON, nor a log format gpudiag knows"; out_empty

CASE="JSON array of numbers"
# Chrome's array form holds event objects; [1,2] holds none: not a trace, naming its first
# element's byte: '[' is byte 0, '1' byte 1.  (It was "the trace holds no events" from yajl and
# "ends before its first complete event" from simdjson.)
printf '[1,2]\n' >"$TMP/arr.json"
run analyze --json "$TMP/arr.json"
expect_rc 3; err_has "$TMP/arr.json: byte 1: not a trace: a JSON array of numbers" "prof.export_chrome_trace"; out_empty

CASE="JSON array of strings"
printf '["a", "b"]\n' >"$TMP/arrs.json"
run analyze --json "$TMP/arrs.json"
expect_rc 3; err_has "$TMP/arrs.json: byte 1: not a trace: a JSON array of strings"; out_empty

CASE="memory timeline export (array of arrays)"
# PyTorch's export_memory_timeline to a .json file writes json.dump([times, sizes]): a list of
# lists.  First element '[' at byte 1; the message names the memory timeline, not a cut trace.
printf '[[0, 1000, 2000], [[0, 4096], [0, 8192], [4096, 8192]]]\n' >"$TMP/memtl.json"
run analyze "$TMP/memtl.json"
expect_rc 3; err_has "$TMP/memtl.json: byte 1: not a trace: a JSON array of arrays" "export_memory_timeline" \
    "tensorboard_trace_handler"; out_empty
if grep -q "ends before\|cut off\|holds no events" "$TMP/err"; then nok "memory timeline: $(cat "$TMP/err")"; else ok; fi

CASE="raw memory timeline export, indented"
# export_memory_timeline_raw: [time, action, [device type, index], bytes] lists; json.dump with
# indent=2: '[' byte 0, '\n' byte 1, two blanks (2, 3), the first element's '[' at byte 4.
printf '[\n  [\n    1700000000000,\n    2,\n    [\n      1,\n      0\n    ],\n    4096\n  ]\n]\n' >"$TMP/memraw.json"
run analyze "$TMP/memraw.json"
expect_rc 3; err_has "$TMP/memraw.json: byte 4: not a trace: a JSON array of arrays" "export_memory_timeline_raw"; out_empty

CASE="memory timeline export, cut short"
# cut inside its first list: still not a trace (not "the trace ends before its first event")
printf '[[0, 1000' >"$TMP/memcut.json"
run analyze "$TMP/memcut.json"
expect_rc 3; err_has "$TMP/memcut.json: byte 1: not a trace: a JSON array of arrays"; out_empty

CASE="bare event array with a broken event"
# The array form with its second event broken: that event skipped, named at the 'b' of `bad`
# (the first line is 53 bytes, its newline byte 53, '{"ph":"X", ' bytes 54..64: byte 65), the
# other two kept, and the trace is not called cut off (it was, by both readers).
printf '[{"ph":"X","name":"a","ts":1,"dur":2,"cat":"cpu_op"},\n{"ph":"X", bad},\n{"ph":"X","name":"b","ts":5,"dur":1,"cat":"cpu_op"}]\n' >"$TMP/barebroken.json"
run analyze --json "$TMP/barebroken.json"
expect_rc 0; err_has "1 malformed event skipped; the first at byte 65"
if grep -q "cut off" "$TMP/err"; then nok "bare array called cut off: $(cat "$TMP/err")"; else ok; fi
jeq 'inp["events"]' 2
jeq 'inp["truncated"]' False

CASE="junk elements among the events"
# DEFINITIONS "Time and events": an element of the event array that is not an object is counted
# as a malformed event, and the events around it are kept.  By hand: line 1 '{"traceEvents":['
# is bytes 0..15, its newline 16; event a (52 bytes) 17..68, newline 69; line 3 starts at byte
# 70 with the first junk element, the number 5.  Junk: 5, "x", null, [1], true (line 3),
# [{"ph":"X"}] and -2.5e3 (line 4): 7 elements (the object inside [..] is not an event); events
# a, b, c kept: 3.  The same with --jobs 2 and 64-byte parse windows (several windows).  Before
# this rule the 7 were dropped without a count (skipped.malformed 0, no warning).
printf '{"traceEvents":[\n{"ph":"X","name":"a","ts":1,"dur":2,"cat":"cpu_op"},\n5, "x", null, [1], true, {"ph":"X","name":"b","ts":5,"dur":1,"cat":"cpu_op"},\n[{"ph":"X"}], -2.5e3,\n{"ph":"X","name":"c","ts":9,"dur":1,"cat":"cpu_op"}]}\n' >"$TMP/junk.json"
export GPUDIAG_PARSE_WINDOW=64
for jobs in 1 2; do
    run analyze --json --jobs $jobs "$TMP/junk.json"
    expect_rc 0
    err_has "7 malformed events skipped; the first at byte 70: an element of the event array that is not an event object: a number"
    jeq 'inp["events"]' 3
    jeq 'inp["skipped"]["malformed"]' 7
    jeq '[f["evidence"]["first_error_at_bytes"] for f in r["findings"] if f["id"] == "input_malformed"]' '[70]'
done
unset GPUDIAG_PARSE_WINDOW

CASE="a colon after a value, then an extra brace"
# {"ph":"X","cat":"cpu_op","name":"P": 2}}, : simdjson's On-Demand ended the object silently at the
# stray ': 2' (its error lost) and the extra '}' closed it, so the simdjson path (one thread and
# --jobs 2, fuzz_kineto found the two disagreeing) committed an event without a duration where yajl
# rejects it (sj_shim.cpp: every value must be followed by ',' or its closing bracket).  By hand:
# line 1 '{"traceEvents":[' bytes 0..15, newline 16; event a 17..68, newline 69; line 3 starts at
# byte 70, '"name":"P"' ends at 104, the ':' is byte 105.  Events a, c, d kept (3), 1 malformed,
# 0 without duration (the old binary: 4 events, 0 malformed, 1 without duration).
printf '{"traceEvents":[\n{"ph":"X","cat":"cpu_op","name":"a","ts":1,"dur":2},\n{"ph":"X","cat":"cpu_op","name":"P": 2}},\n{"ph":"X","cat":"cpu_op","name":"c","ts":9,"dur":1},\n{"ph":"X","cat":"cpu_op","name":"d","ts":12,"dur":1}]}\n' >"$TMP/colon.json"
export GPUDIAG_PARSE_WINDOW=64
for jobs in 1 2; do
    run analyze --json --jobs $jobs "$TMP/colon.json"
    expect_rc 0
    err_has "1 malformed event skipped; the first at byte 105"
    jeq 'inp["events"]' 3
    jeq 'inp["skipped"]["malformed"]' 1
    jeq 'inp["skipped"]["no_duration"]' 0
done
unset GPUDIAG_PARSE_WINDOW

CASE="NUL inside names"
# DEFINITIONS "Time and events": "\u0000" in a name becomes U+FFFD, it does not cut the name.  By
# hand: the one kernel "gemm\u0000_tail" is kernels.top[0] "gemm\ufffd_tail" (was "gemm"); the
# device "NVIDIA A100\u0000-SXM4-80GB" is "NVIDIA A100\ufffd-SXM4-80GB" (was "NVIDIA A100").
cat >"$TMP/nulname.json" <<'EOT'
{"deviceProperties":[{"id":0,"name":"NVIDIA A100\u0000-SXM4-80GB","computeMajor":8,"computeMinor":0,"numSms":108}],
"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":1000,"dur":1000},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1010,"dur":10,"args":{"correlation":1}},
{"ph":"X","cat":"kernel","name":"gemm\u0000_tail","pid":0,"tid":7,"ts":1100,"dur":500,"args":{"device":0,"stream":7,"correlation":1}}
]}
EOT
run analyze --json "$TMP/nulname.json"
expect_rc 0
jeq '[k["name"] for k in r["kernels"]["top"]]' '["gemm\ufffd_tail"]'
jeq '[x["name"] for x in r["devices"]]' '["NVIDIA A100\ufffd-SXM4-80GB"]'

CASE="only NUL bytes"
python3 -c 'import sys; open(sys.argv[1], "wb").write(b"\0" * 4096)' "$TMP/nul_only.json"
run analyze --json "$TMP/nul_only.json"
expect_rc 3; err_has "$TMP/nul_only.json" "byte 0"; out_empty

CASE="missing file"
run analyze --json "$TMP/does_not_exist.json"
expect_rc 3; err_has "$TMP/does_not_exist.json"; out_empty

CASE="directory"
# A directory is input that cannot be read as a trace (like a missing file): 3.
mkdir "$TMP/adir"
run analyze --json "$TMP/adir"
expect_rc 3; err_has "$TMP/adir"; out_empty

CASE="empty stdin"
run_in /dev/null analyze --json -
expect_rc 3; out_empty

CASE="trace on stdin"
run_in "$OK2" analyze --json -
expect_rc 0; jeq "$STEPS_TWO" "$STEPS_TWO_WANT"

CASE="good file + missing file"
run analyze --json "$OK2" "$TMP/does_not_exist.json"
expect_rc 3; err_has "$TMP/does_not_exist.json"
if python3 -c 'import json,sys; d=[json.loads(l) for l in open(sys.argv[1]) if l.strip()]; sys.exit(0 if len(d)==1 and len(d[0]["steps"])==2 else 1)' "$TMP/out"; then ok; else
    nok "the good file's report (one JSON line) is missing"; show; fi

# ---------------------------------------------------------------------------
# Damaged events inside a good trace: analysable with a warning
CASE="unescaped quote in an event name"
BQ="$GD_TEST_DATA/bad_unescaped_quote.json"
# the parser fails at the '/' right after the stray quote in: "aten::copy_ from "/home...
BQ_AT=$(python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); print(d.index(b"from \"/home") + 6)' "$BQ")
run analyze --json "$BQ"
expect_rc 0
jeq 'inp["skipped"]["malformed"]' 1
jeq 'inp["events"]' 31                      # the 31 events of ok_two_steps, all kept
jeq '"input_malformed" in ids' True
jeq '[f["evidence"].get("first_error_at_bytes") for f in r["findings"] if f["id"] == "input_malformed"]' "[$BQ_AT]"
jeq "$STEPS_TWO" "$STEPS_TWO_WANT"
jeq '[s["breakdown_us"]["cpu_exec"] for s in r["steps"]] + [s["breakdown_us"]["other"] for s in r["steps"]]' '[9, 10, 5, 0]'
warns_on_stderr "$BQ" "byte $BQ_AT"

CASE="dur -1 events"
run analyze --json "$GD_TEST_DATA/warn_dur_minus1.json"
expect_rc 0
jeq 'inp["skipped"]["no_duration"]' 2      # ProfilerStep#3 and aten::copy_ with dur -1
jeq '"input_incomplete_events" in ids' True
jeq 'len(r["steps"])' 2                     # the running ProfilerStep#3 is no step
jeq "$STEPS_TWO" "$STEPS_TWO_WANT"
jeq '[s["breakdown_us"]["cpu_exec"] for s in r["steps"]]' '[9, 10]'

CASE="one event line overwritten with NUL bytes"
NL_AT=$(python3 - "$OK2" "$TMP/nul_line.json" <<'PYEOF'
import sys
src = open(sys.argv[1], "rb").read().split(b"\n")
i = [k for k, l in enumerate(src) if b"PyTorch Profiler (0)" in l][0]
at = sum(len(l) + 1 for l in src[:i])  # offset of the first NUL
src[i] = b"\0" * len(src[i])            # the Trace span event: no effect on any number
open(sys.argv[2], "wb").write(b"\n".join(src))
print(at)
PYEOF
)
run analyze --json "$TMP/nul_line.json"
expect_rc 0
jeq 'inp["skipped"]["malformed"]' 1
jeq 'inp["events"]' 30
jeq '"input_malformed" in ids' True
jeq "$STEPS_TWO" "$STEPS_TWO_WANT"
jeq '[f["evidence"].get("first_error_at_bytes") for f in r["findings"] if f["id"] == "input_malformed"]' "[$NL_AT]"
warns_on_stderr "$TMP/nul_line.json" "byte $NL_AT"

CASE="trace cut after an event, then NUL padding"
NT_AT=$(python3 - "$OK2" "$TMP/nul_tail.json" <<'PYEOF'
import sys
src = open(sys.argv[1], "rb").read()
k = src.index(b"\n", src.index(b'"cat": "gpu_memset"')) + 1   # end of the memset event line
open(sys.argv[2], "wb").write(src[:k] + b"\0" * 4096)
print(k)
PYEOF
)
run analyze --json "$TMP/nul_tail.json"
expect_rc 0
jeq 'inp["events"]' 21                      # the 21 events before the memset line's end
jeq '"input_truncated" in ids or "input_malformed" in ids' True
# 21 events: PS#1 has 3 ops, PS#2 only the memset (1 < 0.8*3): PS#2 is trimmed
jeq "$STEPS_TWO" '[(1010, 1120, 3)]'
warns_on_stderr "$TMP/nul_tail.json" "byte $NT_AT"

# ---------------------------------------------------------------------------
# A real trace cut short (plain and gzip)
REAL="$GD_SHARED/data/traces/resnet50_v100_num_workers_0.pt.trace.json.gz"
if [ -f "$REAL" ]; then
    # the yajl-only rerun below reuses the parent's decompressed copy and index
    RD="${GD_BAD_REAL_DIR:-$TMP}"
    [ -s "$RD/real_index.json" ] || python3 - "$REAL" "$RD" <<'PYEOF'
import gzip, json, sys, zlib
real, tmp = sys.argv[1], sys.argv[2]
raw = open(real, "rb").read()
text = gzip.decompress(raw)
open(tmp + "/real.json", "wb").write(text)
s = text.decode("latin-1")                       # 1 char = 1 byte: offsets are byte offsets
lb = s.index("[", s.index('"traceEvents"'))
dec = json.JSONDecoder()
ends, i = [], lb + 1
while True:                                      # end offset of every complete event
    while s[i] in " \t\r\n,":
        i += 1
    if s[i] == "]":
        break
    _, i = dec.raw_decode(s, i)
    ends.append(i)
json.dump({"size": len(text), "lb": lb, "ends": ends,
           "kernel": s.index('"cat": "Kernel"')}, open(tmp + "/real_index.json", "w"))
# gzip cases: cut in the middle, cut inside the header, one flipped byte in the
# deflate data, one flipped byte in the CRC-32 trailer
half = len(raw) // 2
open(tmp + "/cut_half.json.gz", "wb").write(raw[:half])
d = zlib.decompressobj(31)
got = len(d.decompress(raw[:half])) + len(d.flush())
open(tmp + "/cut_half.out_bytes", "w").write(str(got))
open(tmp + "/cut_header.json.gz", "wb").write(raw[:10])
m = bytearray(raw); m[len(raw) // 2] ^= 0xFF
open(tmp + "/flip_data.json.gz", "wb").write(bytes(m))
c = bytearray(raw); c[-6] ^= 0x01
open(tmp + "/flip_crc.json.gz", "wb").write(bytes(c))
PYEOF
    IDX="$RD/real_index.json"
    ix() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$IDX" "$1"; }
    # complete events among the first N bytes
    n_events() { python3 -c 'import bisect,json,sys; d=json.load(open(sys.argv[1])); print(bisect.bisect_right(d["ends"], int(sys.argv[2])))' "$IDX" "$1"; }
    SIZE=$(ix 'd["size"]')
    NALL=$(ix 'len(d["ends"])')

    CASE="real trace, complete"
    run analyze --json "$RD/real.json"
    expect_rc 0
    jeq 'inp["truncated"]' False
    jeq 'inp["events"]' "$NALL"
    jeq 'len(r["steps"])' 6
    jeq '[i for i in ids if i.startswith("input_")]' '[]'

    # cuts before the events: nothing to analyse
    for N in 1 2 100 1500 $(ix 'd["lb"] + 1') $(ix 'd["ends"][0] - 5'); do
        CASE="real trace cut at byte $N (before the first event ends)"
        head -c "$N" "$RD/real.json" >"$TMP/cut.json"
        run analyze --json "$TMP/cut.json"
        expect_rc 3; err_has "$TMP/cut.json" "byte $N"; out_empty
    done

    # cuts among the events: every complete event before the cut is kept
    for N in $(ix 'd["ends"][0]') $(ix 'd["ends"][0] + 1') 100000 $(ix 'd["kernel"] + 3') \
        $(ix 'd["kernel"] + 60') 1000000 17000000 $((SIZE - 3)) $((SIZE - 1)); do
        CASE="real trace cut at byte $N of $SIZE"
        head -c "$N" "$RD/real.json" >"$TMP/cut.json"
        run analyze --json "$TMP/cut.json"
        expect_rc 0
        jeq 'inp["truncated"]' True
        jeq 'inp["truncated_at_bytes"]' "$N"
        jeq 'inp["events"]' "$(n_events "$N")"
        jeq '"input_truncated" in ids' True
        warns_on_stderr "$TMP/cut.json" "byte $N"
    done
    # the reason reads as one parenthesis, not two nested ones (new-user report, issue 21)
    CASE="real trace cut at byte 1000000: the title's wording"
    head -c 1000000 "$RD/real.json" >"$TMP/cut.json"
    run analyze --json "$TMP/cut.json"
    expect_rc 0
    jeq '[f["title"] for f in r["findings"] if f["id"] == "input_truncated"]' \
        "[\"Trace is cut off at byte 1000000 (the JSON ends before the trace closes: the profiler did not finish writing); analysed the $(n_events 1000000) complete events before it\"]"

    CASE="gzip cut in the middle of the stream"
    OUTB=$(cat "$RD/cut_half.out_bytes")
    run analyze --json "$RD/cut_half.json.gz"
    expect_rc 0
    jeq 'inp["truncated"]' True
    jeq 'inp["truncated_at_bytes"]' "$OUTB"     # all the data zlib can inflate
    jeq 'inp["events"]' "$(n_events "$OUTB")"
    jeq '"input_truncated" in ids' True
    warns_on_stderr "$RD/cut_half.json.gz" "byte $OUTB"

    # Two members where the second one's magic 1f 8b straddles a read chunk (GD_IN_CHUNK,
    # 256 KiB, src/ingest/input.c): the first member is stored (deflate level 0) and exactly
    # 262143 bytes long, so 1f is the chunk's last byte.  Both back-ends once took the lone 1f
    # for trailing bytes and dropped the second member: the trace read as cut at byte 262100.
    CASE="gzip with two members, the second starting at the last byte of a read chunk"
    [ -s "$RD/split.json.gz" ] || python3 - "$RD/real.json" "$RD/split.json.gz" <<'PYEOF'
import gzip, sys, zlib
text = open(sys.argv[1], "rb").read()
c = zlib.compressobj(0, zlib.DEFLATED, 31)
m1 = c.compress(text[:262100]) + c.flush()       # 262100 bytes stored: 262143 with header, blocks, trailer
assert len(m1) == 262143, len(m1)
open(sys.argv[2], "wb").write(m1 + gzip.compress(text[262100:], 1, mtime=0))
PYEOF
    run analyze --json --no-progress "$RD/split.json.gz"
    expect_rc 0
    jeq 'inp["events"]' "$(ix 'len(d["ends"])')"
    jeq 'inp["bytes"]' "$(ix 'd["size"]')"
    jeq '[i for i in ids if i.startswith("input_")]' '[]'

    CASE="gzip cut inside its header"
    run analyze --json "$RD/cut_header.json.gz"
    expect_rc 3; err_has "$RD/cut_header.json.gz"; out_empty

    # A CRC mismatch means the inflated bytes are not the ones written: no
    # numbers from them (a flipped deflate byte can inflate to plausible garbage).
    CASE="gzip with a flipped byte in the data (bad CRC)"
    run analyze --json "$RD/flip_data.json.gz"
    expect_rc 3; err_has "$RD/flip_data.json.gz"; out_empty

    CASE="gzip with a flipped byte in the CRC trailer"
    run analyze --json "$RD/flip_crc.json.gz"
    expect_rc 3; err_has "$RD/flip_crc.json.gz"; out_empty

    # The compressed byte an inflate error names is where decompression failed, at or
    # after the damage (it named the end of the 256 KiB read chunk, or the file's size:
    # "compressed byte 262144" for a flip at byte 12; new-user trial, 10th session).
    # A flip in the first deflate block's header (byte 12; the gzip header is 10 bytes)
    # fails within its first code lengths: ISA-L stops at byte 21, zlib at 16.
    CASE="gzip with a flipped byte in its first deflate block: the byte named"
    python3 - "$RD/real.json" "$TMP/flip12.json.gz" <<'PYEOF'
import gzip, sys
g = bytearray(gzip.compress(open(sys.argv[1], "rb").read(), 6, mtime=0))
g[12] ^= 0x55
open(sys.argv[2], "wb").write(g)
PYEOF
    run analyze --json "$TMP/flip12.json.gz"
    expect_rc 3; out_empty
    _at=$(sed -n 's/.*(detected at compressed byte \([0-9]*\)); the .gz file is corrupt.*/\1/p' "$TMP/err")
    if [ -n "$_at" ] && [ "$_at" -ge 12 ] && [ "$_at" -le 64 ]; then ok; else nok "compressed byte '$_at' not within 12..64"; show; fi
else
    echo "skip: $REAL not found (cut-trace and gzip cases)"
fi

# ---------------------------------------------------------------------------
# Bytes after the last gzip member (DEFINITIONS "Time and events"; FINDINGS
# input_gzip_trailing_data): a real one-member trace with bytes appended.  Every
# file is t.json.gz in its own folder, analysed from there, so that every report
# names the same path and can be compared with the clean file's whole.  The
# offset is the clean file's size (stat), the count the growth (stat), except
# for the two-member case (member lengths from Python's gzip).  This half runs
# with ISA-L, the rerun below with zlib: both back-ends must give these numbers.
SYNC="$GD_SHARED/data/traces/cuda_event_sync.json.gz"
if [ -f "$SYNC" ]; then
    GZ="$TMP/gztail"
    for c in clean junk big nul nuljunk members; do mkdir -p "$GZ/$c"; done
    MEMBERS_AT=$(python3 - "$SYNC" "$GZ" <<'PYEOF'
import gzip, sys, zlib
src, d = sys.argv[1:3]
raw = open(src, "rb").read()
text = gzip.decompress(raw)
o = zlib.decompressobj(31)                      # the shared file is exactly one member, nothing after it
assert o.decompress(raw) == text and o.eof and o.unused_data == b""
def w(case, data):
    open("%s/%s/t.json.gz" % (d, case), "wb").write(data)
w("clean", raw)
w("junk", raw + b"JUNK\n")                      # 5 bytes
w("big", raw + b"x" * 700000)                   # > 2 input chunks (256 KiB): counted across refills
w("nul", raw + b"\0" * 4096)                    # padding: ignored silently
w("nuljunk", raw + b"\0" * 100 + b"\x1f")       # NULs, then a lone first magic byte: 101 bytes
half = len(text) // 2                           # two members (concatenated .gz), then 4 bytes
m = gzip.compress(text[:half], mtime=0) + gzip.compress(text[half:], mtime=0)
w("members", m + b"tail")
print(len(m))
PYEOF
)
    SZ=$(stat -c %s "$SYNC")                    # 2877: where the appended bytes start
    gz_run() { # gz_run CASE ARGS... : run gpudiag in $GZ/CASE on t.json.gz
        jflush
        _d=$1
        shift
        (cd "$GZ/$_d" && "$GPUDIAG" "$@" t.json.gz) >"$TMP/out" 2>"$TMP/err"
        RC=$?
    }
    gz_run clean analyze --json --no-progress
    cp "$TMP/out" "$GZ/clean.json"
    gz_run clean analyze --no-progress
    cp "$TMP/out" "$GZ/clean.txt"
    if [ ! -s "$TMP/err" ]; then ok; else nok "the clean trace warns"; show; fi
    # the text report without the finding's block, findings renumbered
    drop_block() {
        python3 - "$1" <<'PYEOF'
import re, sys
out, skip, n = [], False, 0
for l in open(sys.argv[1]).read().split("\n"):
    m = re.match(r" ?(\d+)\. \[", l)
    if m:
        skip = "input_gzip_trailing_data" in l
        if not skip:
            n += 1
            l = re.sub(r"^( ?)\d+\.", lambda g: "%s%d." % (g.group(1), n) if n < 10 else "%d." % n, l, count=1)
    elif l and not l.startswith("    "):
        skip = False
    if not skip:
        out.append(l)
sys.stdout.write("\n".join(out))
PYEOF
    }
    for c in junk big nuljunk members; do
        CASE="gzip trace with bytes after its last member ($c)"
        case $c in
        members) AT=$MEMBERS_AT ;;
        *) AT=$SZ ;;
        esac
        N=$(($(stat -c %s "$GZ/$c/t.json.gz") - AT))
        # the count agrees with its noun and verbs (REPORT.md "Wording of the text report")
        if [ "$N" -eq 1 ]; then
            TAIL="1 byte after the last gzip member of t.json.gz, from compressed byte $AT, is not gzip data and was not read; the trace before it was read whole"
        else
            TAIL="$N bytes after the last gzip member of t.json.gz, from compressed byte $AT, are not gzip data and were not read; the trace before them was read whole"
        fi
        gz_run "$c" analyze --json --no-progress
        expect_rc 0
        jeq 'ids.count("input_gzip_trailing_data")' 1
        jeq '[f["evidence"] for f in r["findings"] if f["id"] == "input_gzip_trailing_data"]' \
            "[{'trailing_bytes': $N, 'trailing_at_compressed_bytes': $AT}]"
        jeq '[f["title"] for f in r["findings"] if f["id"] == "input_gzip_trailing_data"]' \
            "['$TAIL']"
        jeq '[f["severity"] for f in r["findings"] if f["id"] == "input_gzip_trailing_data"]' '["low"]'
        jeq 'inp["trailing_at_bytes"]' None  # not input_trailing_data: the JSON document ends the stream
        # the rest of the report is the clean file's
        jeq 'dict(r, findings=[f for f in r["findings"] if f["id"] != "input_gzip_trailing_data"])' \
            "__import__('json').load(open('$GZ/clean.json'))"
        if [ "$(cat "$TMP/err")" = "gpudiag: warning: t.json.gz: compressed byte $AT: $TAIL" ]; then
            ok
        else
            nok "stderr is not the one warning line"; show
        fi
        gz_run "$c" analyze --no-progress
        expect_rc 0
        if drop_block "$TMP/out" | cmp -s - "$GZ/clean.txt"; then ok; else
            nok "text report differs from the clean one beyond the finding"; drop_block "$TMP/out" | diff "$GZ/clean.txt" - | head -20
        fi
    done
    [ "$MEMBERS_AT" -gt "$SZ" ] && ok || nok "two members ($MEMBERS_AT bytes) not longer than one ($SZ)"

    # NUL padding: no finding, nothing on stderr, both reports byte for byte the clean file's
    CASE="gzip trace with 4096 NUL bytes after its member"
    gz_run nul analyze --json --no-progress
    expect_rc 0
    if cmp -s "$TMP/out" "$GZ/clean.json" && [ ! -s "$TMP/err" ]; then ok; else
        nok "NUL padding changed the JSON report or warned"; show
    fi
    gz_run nul analyze --no-progress
    if cmp -s "$TMP/out" "$GZ/clean.txt" && [ ! -s "$TMP/err" ]; then ok; else
        nok "NUL padding changed the text report or warned"; show
    fi
else
    echo "skip: $SYNC not found (bytes after the last gzip member)"
fi

# ---------------------------------------------------------------------------
# Usage errors
CASE="no arguments"
run
expect_rc 2; err_has "Usage: gpudiag"

CASE="unknown command"
run frobnicate x.json
expect_rc 2; err_has "frobnicate"

CASE="unknown long option"
run analyze --bogus "$OK2"
expect_rc 2; err_has "--bogus"

CASE="unknown short option"
run analyze -x "$OK2"
expect_rc 2; err_has "-x"

CASE="analyze without a path"
run analyze --json
expect_rc 2; err_has "analyze"

CASE="bad --fail-on value"
run analyze --fail-on sometimes "$OK2"
expect_rc 2; err_has "sometimes"

CASE="bad --width value"
run analyze --width 5 "$OK2"
expect_rc 2; err_has "--width"

# A cut trace without GPU events: Kineto writes the GPU activity after the CPU ops, so the
# advice must be to get the whole file (DEFINITIONS "Time and events", cut-off traces).
# ok_cpu_only.json cut at byte 1200 (inside line 10, which starts at byte 1064): the 5
# events of lines 5-9 are complete.
CASE="CPU-only trace cut at byte 1200"
head -c 1200 "$GD_TEST_DATA/ok_cpu_only.json" >"$TMP/cut_cpu.json"
run analyze --json "$TMP/cut_cpu.json"
expect_rc 0
jeq 'inp["truncated_at_bytes"]' 1200
jeq 'inp["events"]' 5
jeq '[f["evidence"]["truncated_at_bytes"] for f in r["findings"] if f["id"] == "cpu_only_trace"]' '[1200]'
jeq '[f["title"] for f in r["findings"] if f["id"] == "cpu_only_trace"]' \
    '["No GPU activity (no kernels, copies or memsets) before the cut at byte 1200: the trace is cut off, and its GPU events may be in the missing part"]'
jeq '[f["recommendation"].startswith("Kineto writes the CPU ops first and the GPU activity after them") for f in r["findings"] if f["id"] == "cpu_only_trace"]' '[True]'
CASE="CPU-only trace, complete"
run analyze --json "$GD_TEST_DATA/ok_cpu_only.json"
expect_rc 0
jeq '[f["recommendation"].startswith("Profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]") for f in r["findings"] if f["id"] == "cpu_only_trace"]' '[True]'
jeq '[sorted(f["evidence"]) for f in r["findings"] if f["id"] == "cpu_only_trace"]' '[["cpu_ops"]]'

CASE="--help"
run analyze --help
expect_rc 0
if grep -q "Usage: gpudiag analyze" "$TMP/out"; then ok; else nok "help text not on stdout"; show; fi

jflush

# ---------------------------------------------------------------------------
# The same cases through the other event reader
if [ -z "${GPUDIAG_NO_SIMDJSON+x}" ]; then
    GPUDIAG_NO_SIMDJSON=1 GPUDIAG_NO_ISAL=1 GPUDIAG="$GPUDIAG" GD_TEST_DATA="$GD_TEST_DATA" GD_SHARED="$GD_SHARED" \
        GD_BAD_REAL_DIR="$TMP" \
        sh "$HERE/test_bad_input.sh" >"$TMP/again.out" 2>&1
    sed '$d' "$TMP/again.out"
    _last=$(tail -n 1 "$TMP/again.out")
    case "$_last" in
    *" passed, "*" failed")
        # shellcheck disable=SC2086 # split "P passed, F failed" into words
        set -- $_last
        PASS=$((PASS + $1))
        FAIL=$((FAIL + $3))
        ;;
    *)
        nok "the GPUDIAG_NO_SIMDJSON=1 run did not finish: $_last"
        ;;
    esac
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
