#!/bin/sh
# test_trace_out.sh — `gpudiag analyze --trace-out FILE[.gz]`.
#  1. Hand-derived on tests/data/ok_idle_causes.json (trace in test_idle.sh):
#     three gpudiag spans sync [1100,+200], dataloader [1400,+100],
#     stream_wait [1600,+200] (test_idle.sh) on tid 1 ("idle gaps, GPU 0"); each finding an
#     instant at ts 1000 (the only step's start); 500 utilisation samples, the
#     first 100 (bin 0 [1000,1002], k1 runs) and the one at 1100 0; 500 queue
#     samples for stream 7.
#  2. tracecheck.py (independent counts from the JSON report, original events
#     compared one by one) on test inputs and real shared traces, plain and
#     .gz output, and on a real trace cut in the middle of an event.
#  3. A trace with a broken event in the middle is copied without it, as
#     analyze skipped it (exit 0; the details in test_reports.sh); refusals:
#     standard input exits 2; an unwritable output exits 3.
set -u
GD_TMP_TAG=traceout
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
CHECK="$HERE/tracecheck.py"

# check INPUT OUTNAME: --trace-out and --json, then tracecheck
check() {
    if ! "$GPUDIAG" analyze -q --trace-out "$TMP/$2" "$1" >/dev/null 2>"$TMP/err"; then
        nok "$1: exit $?: $(head -c 300 "$TMP/err")"
        return
    fi
    ok
    "$GPUDIAG" analyze --json "$1" > "$TMP/r.json" 2>/dev/null
    if python3 "$CHECK" "$1" "$TMP/$2" "$TMP/r.json"; then ok; else nok "$1 -> $2"; fi
}

# 1. hand-derived
"$GPUDIAG" analyze -q --trace-out "$TMP/idle.json" "$GD_TEST_DATA/ok_idle_causes.json" >/dev/null || nok "idle: exit $?"
if python3 - "$TMP/idle.json" <<'PYEOF'
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("pid") == 2147480000]
bad = []
x = [(e["name"], e["ts"], e["dur"], e["tid"]) for e in ev if e["ph"] == "X"]
if x != [("sync", 1100, 200, 1), ("dataloader", 1400, 100, 1), ("stream_wait", 1600, 200, 1)]: bad.append("spans %r" % x)
if {e["ts"] for e in ev if e["ph"] == "i"} != {1000}: bad.append("instants not at 1000")
u = [e for e in ev if e["ph"] == "C" and e["name"] == "GPU 0 utilization"]
if len(u) != 500 or u[0]["ts"] != 1000 or u[0]["args"]["busy_pct"] != 100 or u[50]["ts"] != 1100 or u[50]["args"]["busy_pct"] != 0:
    bad.append("utilisation samples")
q = [e for e in ev if e["ph"] == "C" and e["name"] == "queue length, GPU 0 stream 7"]
if len(q) != 500 or q[125]["args"]["max_queued"] != 1 or q[150]["args"]["max_queued"] != 0: bad.append("queue samples")
t = [e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"]
if t != ["findings", "idle gaps, GPU 0"]: bad.append("thread names %r" % t)
for b in bad: print("FAIL hand-derived:", b)
sys.exit(1 if bad else 0)
PYEOF
then ok; else nok "hand-derived annotations"; fi

# 1b. elements of the event array that are not objects (5, "x", null, [1], true, [{..}], -2.5e3:
#     analyze counts 7 malformed and reads events a, b, c; test_bad_input.sh) are left out of the
#     copy: its traceEvents are a, b, c and gpudiag's own annotation objects, nothing else (the
#     copy used to carry the seven through).
printf '{"traceEvents":[\n{"ph":"X","name":"a","ts":1,"dur":2,"cat":"cpu_op"},\n5, "x", null, [1], true, {"ph":"X","name":"b","ts":5,"dur":1,"cat":"cpu_op"},\n[{"ph":"X"}], -2.5e3,\n{"ph":"X","name":"c","ts":9,"dur":1,"cat":"cpu_op"}]}\n' >"$TMP/junk.json"
"$GPUDIAG" analyze -q --trace-out "$TMP/junk_out.json" "$TMP/junk.json" >/dev/null 2>&1 || nok "junk: exit $?"
if python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
own = [e.get("name") for e in ev if isinstance(e, dict) and e.get("pid") != 2147480000]
sys.exit(0 if all(isinstance(e, dict) for e in ev) and own == ["a", "b", "c"] else 1)' "$TMP/junk_out.json"
then ok; else nok "junk elements copied into --trace-out"; fi

# 2. inputs we have, plain and gzip output
for f in "$GD_TEST_DATA/ok_idle_causes.json" "$GD_TEST_DATA/ok_hostile_names.json" "$GD_TEST_DATA/ok_old_format.json" \
         "$GD_TEST_DATA/ok_nccl_overlap.json" "$GD_TEST_DATA/ok_cpu_only.json" "$GD_TEST_DATA/warn_dur_minus1.json"; do
    check "$f" out.json
done
for f in resnet50_v100_num_workers_0.pt.trace.json.gz a100_nccl_2rank_rank0.json.gz mi250_rocm_minitoy_train.json.gz \
         cpu_only_rank34.pt.trace.json.gz; do
    [ -f "$GD_SHARED/data/traces/$f" ] || { echo "skip $f (shared data absent)"; continue; }
    check "$GD_SHARED/data/traces/$f" out.json.gz
done
if [ -f "$GD_SHARED/data/traces/alexnet_small.json.gz" ]; then
    gzip -dc "$GD_SHARED/data/traces/alexnet_small.json.gz" | head -c 60000 > "$TMP/cut.json"
    check "$TMP/cut.json" cut_out.json
fi

# 3. refusals
"$GPUDIAG" analyze -q --trace-out "$TMP/bad.json" "$GD_TEST_DATA/bad_unescaped_quote.json" >/dev/null 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 0 ] && grep -q "bad_unescaped_quote.json: byte 2011: 1 malformed event skipped" "$TMP/err" &&
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/bad.json"; then ok
else nok "broken event: exit $rc, $(cat "$TMP/err")"; fi
"$GPUDIAG" analyze -q --trace-out "$TMP/x.json" - < "$GD_TEST_DATA/ok_idle_causes.json" >/dev/null 2>&1
rc=$?; if [ "$rc" -eq 2 ]; then ok; else nok "stdin: exit $rc, want 2"; fi
"$GPUDIAG" analyze -q --trace-out "$TMP/no/dir/x.json" "$GD_TEST_DATA/ok_idle_causes.json" >/dev/null 2>&1
rc=$?; if [ "$rc" -eq 3 ]; then ok; else nok "unwritable: exit $rc, want 3"; fi
# inputs that are not Kineto traces are refused before any analysis (exit 2, nothing on stdout)
for f in "$GD_SHARED/data/nsys/cloverleaf_cuda_a100.sqlite:Nsight Systems export" \
         "$GD_SHARED/data/logs/nvsmi_dmon_pucvmet_4gpu_training_old_header.log:monitoring log"; do
    p=${f%%:*}; want=${f#*:}
    [ -f "$p" ] || continue
    "$GPUDIAG" analyze --trace-out "$TMP/n.json" "$p" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" -eq 2 ] && [ ! -s "$TMP/out" ] && grep -q "this is an* $want" "$TMP/err" && [ ! -e "$TMP/n.json" ]; then ok
    else nok "$p: exit $rc, $(cat "$TMP/err")"; fi
done

# A failed write removes a partial output file, never a device the user named:
# --trace-out onto a full-device node (our own copy of /dev/full, made in $TMP;
# only root can make one) fails with ENOSPC, exit 3, and the node is still there.
# gpudiag once deleted /dev/full itself this way when run as root.
if mknod "$TMP/full" c 1 7 2>/dev/null; then
    "$GPUDIAG" analyze -q --trace-out "$TMP/full" "$GD_TEST_DATA/ok_idle_causes.json" >/dev/null 2>"$TMP/err"
    rc=$?
    if [ "$rc" -eq 3 ] && [ -c "$TMP/full" ] && grep -q "write error" "$TMP/err"; then ok
    else nok "device output: exit $rc, still a device: $([ -c "$TMP/full" ] && echo yes || echo no), $(cat "$TMP/err")"; fi
    rm -f "$TMP/full"
fi

finish
