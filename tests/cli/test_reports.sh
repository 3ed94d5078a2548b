#!/bin/sh
# test_reports.sh — issue 19, report classes: GPU ops without a launch call
# (summary.gpu_ops_unlinked), inputs read once from pipes, output paths checked
# before the analysis, and compare's steady state.  Expected values derived by
# hand in the comments.
. "$(dirname "$0")/common.sh"
rc=0

# tests/data/ok_unlinked_ops.json (DEFINITIONS "Where we differ from HTA" a) — one step
#   [1000,2000], device 0, stream 7: kernel a [1020,1120] launched (corr 1), kernel b
#   [1200,1300] without a correlation id, kernel c [1400,1500] launched (corr 3), kernel d
#   [1600,1700] of corr 99 that no call carries, memcpy [1800,1850] launched (corr 5).
#   Unlinked: b and d = 2; linked kernels: a, c = 2. The unlinked ones stay busy time:
#   span 1020..1850 = 830, busy 4 x 100 + 50 = 450, idle 380 -> idle_share 380/830 = 0.457831;
#   utilization = kernel time 400 / step 1000 = 0.4 (b and d dropped would give 0.2).
PY_UL=$(cat <<'PYEOF'
import json, os, sys
s = json.load(open(sys.argv[1]))["summary"]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run([("unlinked", s["gpu_ops_unlinked"], 2), ("linked", s["linked_kernels"], 2),
              ("kernels", s["kernel_count"], 4), ("idle share", s["idle_share"], 380 / 830),
              ("utilization", s["gpu_utilization"], 0.4)], sys.argv[2], 1e-6)
PYEOF
)
check_both_readers "$GD_TEST_DATA/ok_unlinked_ops.json" "$PY_UL" || rc=1
"$GPUDIAG" analyze --no-color "$GD_TEST_DATA/ok_unlinked_ops.json" > "$TMP/ul.txt"
grep -q '^  2 GPU ops without a launch call' "$TMP/ul.txt" || { echo "FAIL text: unlinked GPU ops line"; rc=1; }
# every op linked: no line, and the count is 0
"$GPUDIAG" analyze --no-color "$GD_TEST_DATA/ok_launch_delay.json" > "$TMP/ld.txt"
grep -q 'without a launch call' "$TMP/ld.txt" && { echo "FAIL text: unlinked line on a fully linked trace"; rc=1; }

# Inputs read once (class 17): a FIFO, /dev/stdin on a pipe.  Each was opened again for every
# sniff (log format, SQLite, saved report) and hung.  The report must equal the file's, byte for
# byte, but for the input's path (and bytes, unknown on a pipe); a writer that nobody reads is
# stopped by its own timeout.
same_report() { # NAME FILE_JSON PIPE_JSON
    python3 - "$2" "$3" "$1" <<'PYEOF' || rc=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    for i in d.get("inputs", []):
        i.pop("path", None); i.pop("bytes", None)
if a != b:
    print("FAIL %s: the report from the pipe differs from the file's" % sys.argv[3]); sys.exit(1)
PYEOF
}
feed() { # FIFO CMD...: write CMD's output into FIFO in the background, for at most 30 s
    f=$1; shift
    ( timeout 30 "$@" > "$f" 2>/dev/null ) &
}
mkfifo "$TMP/fifo" || { echo "FAIL: mkfifo"; exit 1; }
"$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_unlinked_ops.json" > "$TMP/file.json"
feed "$TMP/fifo" gzip -c "$GD_TEST_DATA/ok_unlinked_ops.json"
timeout 30 "$GPUDIAG" analyze --json "$TMP/fifo" > "$TMP/pipe.json"; r=$?
wait
if [ "$r" -ne 0 ]; then echo "FAIL: gzip trace from a FIFO exited $r (124: hung)"; rc=1
else same_report "fifo gzip trace" "$TMP/file.json" "$TMP/pipe.json"; fi
cat "$GD_TEST_DATA/ok_unlinked_ops.json" | timeout 30 "$GPUDIAG" analyze --json /dev/stdin > "$TMP/pipe.json"; r=$?
if [ "$r" -ne 0 ]; then echo "FAIL: trace piped to /dev/stdin exited $r"; rc=1
else same_report "/dev/stdin trace" "$TMP/file.json" "$TMP/pipe.json"; fi
# a monitoring log, gzip, from a FIFO: its format is told from the head read once
LOG="$GD_TEST_DATA/monlog/dmon_gains.log"
"$GPUDIAG" analyze --json "$LOG" > "$TMP/file.json"
feed "$TMP/fifo" gzip -c "$LOG"
timeout 30 "$GPUDIAG" analyze --json "$TMP/fifo" > "$TMP/pipe.json"; r=$?
wait
if [ "$r" -ne 0 ]; then echo "FAIL: gzip dmon log from a FIFO exited $r"; rc=1
else same_report "fifo gzip log" "$TMP/file.json" "$TMP/pipe.json"; fi
# --steps on a piped trace
"$GPUDIAG" analyze --json --steps 2:3 "$GD_TEST_DATA/ok_three_steps.json" > "$TMP/file.json"
cat "$GD_TEST_DATA/ok_three_steps.json" | timeout 30 "$GPUDIAG" analyze --json --steps 2:3 /dev/stdin > "$TMP/pipe.json"
same_report "/dev/stdin --steps" "$TMP/file.json" "$TMP/pipe.json"
# an SQLite export cannot be read from a pipe: exit 3 naming it, not a hang
printf 'SQLite format 3\000rest of a database' > "$TMP/fake.sqlite"
feed "$TMP/fifo" cat "$TMP/fake.sqlite"
timeout 30 "$GPUDIAG" analyze "$TMP/fifo" > /dev/null 2> "$TMP/err"; r=$?
wait
[ "$r" -eq 3 ] && grep -q "fifo: byte 0: an SQLite database (an Nsight Systems export) from a pipe" "$TMP/err" ||
    { echo "FAIL: SQLite from a FIFO exited $r: $(cat "$TMP/err")"; rc=1; }
# --ranks reads each header first, --trace-out copies the input again: refused, exit 2, nothing read
for opt in "--ranks 0" "--trace-out $TMP/out.json"; do
    # shellcheck disable=SC2086
    timeout 30 "$GPUDIAG" analyze $opt "$TMP/fifo" > /dev/null 2> "$TMP/err" < /dev/null; r=$?
    [ "$r" -eq 2 ] && grep -q "can be read only once" "$TMP/err" ||
        { echo "FAIL: $opt with a FIFO exited $r: $(cat "$TMP/err")"; rc=1; }
done
# compare: a saved report and a trace, each from a FIFO
"$GPUDIAG" analyze --save "$TMP/saved.json" "$GD_TEST_DATA/ok_three_steps.json" > /dev/null
mkfifo "$TMP/fifo2"
feed "$TMP/fifo" cat "$TMP/saved.json"
feed "$TMP/fifo2" gzip -c "$GD_TEST_DATA/ok_three_steps.json"
timeout 30 "$GPUDIAG" compare --json "$TMP/fifo" "$TMP/fifo2" > "$TMP/cmp.json"; r=$?
wait
[ "$r" -eq 0 ] && python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
s = c["metrics"]["step_time_us.mean"]
# ok_three_steps: steps of 100, 130, 70 us; step 3 ends in a 25 us gap of cause other (its
# unexplained tail, 36% of it, above twice the median tail 0): left out, mean (100 + 130) / 2
assert s["base"] == 115 and s["new"] == 115, s
assert c["base"]["steps_excluded"] == 1 and c["new"]["excluded_steps"] == [
    {"step": 3, "duration_us": 70, "startup_idle_us": 0, "unexplained_tail_us": 25}], c["new"]
' "$TMP/cmp.json" 2>/dev/null || { echo "FAIL: compare of two FIFOs exited $r"; rc=1; }

# --trace-out with broken events (class 18): the copy leaves out exactly the events analyze
# skipped.  bad_unescaped_quote.json holds 32 events, one broken (the unescaped quote in
# 'aten::copy_ from "/home/user/train.py"(42)', Ev Idx 99); a hand-edited copy also breaks the
# 'aten::add' event with a bare N/A duration: 32 - 2 = 30 copied.
sed 's/"name": "aten::add", "pid": 100, "tid": 100, "ts": 1025, "dur": 40/"name": "aten::add", "pid": 100, "tid": 100, "ts": 1025, "dur": N\/A/' \
    "$GD_TEST_DATA/bad_unescaped_quote.json" > "$TMP/two_broken.json"
for case in "bad_unescaped_quote.json:31:$GD_TEST_DATA/bad_unescaped_quote.json" "two_broken:30:$TMP/two_broken.json"; do
    name=${case%%:*}; rest=${case#*:}; want=${rest%%:*}; in=${rest#*:}
    for ext in json json.gz; do
        "$GPUDIAG" analyze --json --trace-out "$TMP/ann.$ext" "$in" > "$TMP/rep.json" 2> "$TMP/err"; r=$?
        python3 - "$TMP/ann.$ext" "$TMP/rep.json" "$want" "$name.$ext" "$r" <<'PYEOF' || rc=1
import gzip, json, sys
path, rep, want, name, r = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
if r != 0:
    print("FAIL %s: --trace-out exited %d" % (name, r)); sys.exit(1)
d = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
orig = [e for e in d["traceEvents"] if e.get("pid") != 2147480000]
ours = [e for e in d["traceEvents"] if e.get("pid") == 2147480000]
analyzed = json.load(open(rep))["inputs"][0]["events"]
names = [e.get("name", "") for e in orig]
ok = len(orig) == want == analyzed and ours and not any(n.startswith("aten::copy_ from") for n in names)
if want == 30:
    ok = ok and "aten::add" not in names
if not ok:
    print("FAIL %s: %d events copied, %d analysed, want %d" % (name, len(orig), analyzed, want)); sys.exit(1)
PYEOF
    done
done
# output paths are checked before anything is read (the analysis of a big trace takes minutes):
# exit 3 naming the option and the file, and the input is not even opened (a FIFO nobody writes
# would block the open)
touch "$TMP/plainfile"
for o in "--save $TMP/no/dir/r.json" "--html $TMP/plainfile/r.html" "--trace-out $TMP" "--save $TMP/"; do
    # shellcheck disable=SC2086
    timeout 10 "$GPUDIAG" analyze $o "$TMP/fifo" > /dev/null 2> "$TMP/err"; r=$?
    [ "$r" -eq 3 ] && grep -q "^gpudiag: error: ${o%% *} .*: cannot be written" "$TMP/err" ||
        { echo "FAIL: '$o' exited $r: $(cat "$TMP/err")"; rc=1; }
done
# a directory access() calls writable that takes no new file (/proc, for root, where the
# trial's --html /proc/nope.html printed the whole report first): refused before the analysis,
# nothing on standard output, and an existing output file is left as it was
if [ -d /proc/self ]; then
    for o in "--html /proc/nope.html" "--save /proc/nope.json" "--trace-out /proc/nope.json"; do
        # shellcheck disable=SC2086
        timeout 10 "$GPUDIAG" analyze $o "$TMP/fifo" > "$TMP/out" 2> "$TMP/err"; r=$?
        [ "$r" -eq 3 ] && [ ! -s "$TMP/out" ] &&
            grep -q "^gpudiag: error: ${o%% *} ${o#* }: cannot be written" "$TMP/err" ||
            { echo "FAIL: '$o' exited $r, $(wc -c < "$TMP/out") bytes out: $(cat "$TMP/err")"; rc=1; }
    done
fi
echo "old page" > "$TMP/keep.html"
"$GPUDIAG" analyze --html "$TMP/keep.html" "$GD_TEST_DATA/ok_three_steps.json" > /dev/null 2>&1
grep -q "<html" "$TMP/keep.html" && [ -z "$(find "$TMP" -maxdepth 1 -name '.keep.html.*')" ] ||
    { echo "FAIL: --html onto an existing file: not replaced, or a probe temporary left"; rc=1; }

# an existing SQLite database (an Nsight export) is never replaced by an output (a new user's
# --trace-out replaced a shared export, as root, in a read-only directory): exit 3, unchanged
printf 'SQLite format 3\000' > "$TMP/export.sqlite"
head -c 4080 /dev/zero >> "$TMP/export.sqlite"
sum_before=$(cksum < "$TMP/export.sqlite")
for o in --trace-out --html --save; do
    "$GPUDIAG" analyze $o "$TMP/export.sqlite" "$GD_TEST_DATA/ok_three_steps.json" > /dev/null 2> "$TMP/err"; r=$?
    [ "$r" -eq 3 ] && [ "$(cksum < "$TMP/export.sqlite")" = "$sum_before" ] &&
        grep -q "^gpudiag: error: $o .*export.sqlite: cannot be written: it is an SQLite database" "$TMP/err" ||
        { echo "FAIL: $o onto an SQLite database exited $r: $(cat "$TMP/err")"; rc=1; }
done

# a saved report with a value out of range is malformed input for compare (exit 3, naming the field)
"$GPUDIAG" analyze --save "$TMP/good.json" "$GD_TEST_DATA/ok_three_steps.json" > /dev/null
sed 's/"gpu_utilization": 0.533333/"gpu_utilization": 5.33333/' "$TMP/good.json" > "$TMP/bad_range.json"
"$GPUDIAG" compare "$TMP/good.json" "$TMP/bad_range.json" > /dev/null 2> "$TMP/err"; r=$?
[ "$r" -eq 3 ] && grep -q "bad_range.json: not a valid saved gpudiag report: summary.gpu_utilization wants a number in \[0, 1\] or null, got 5.33333" "$TMP/err" ||
    { echo "FAIL: out-of-range saved report exited $r: $(cat "$TMP/err")"; rc=1; }

# ranks taking turns (class 16; DEFINITIONS "Ranks and stragglers"): tests/data/ranks_turns, two
#   ranks, two steps of 1000 us, all-reduce durations 100,20,100,20 (rank 0) and 20,100,20,100
#   (rank 1): each waits 160 us = 80 us/step (8% gross, a straggler before); net 80 - 80 = 0;
#   x = 80,-80,80,-80, sd = sqrt(4*6400/3) = 92.376, noise = 2*92.376*sqrt(4)/2 = 184.752.
#   ranks_noisy (rank 1's long ones 90): rank 1 waits 70/step, net 10 us/step (1.0%), x = 80,-70,
#   80,-70, sd = sqrt((2*77.5^2 + 2*72.5^2)/3) = 86.603, noise 173.205: within it. No straggler.
for case in "ranks_turns:80:0:184.752:0" "ranks_noisy:80:10:173.205:1"; do
    set -- $(echo "$case" | tr ':' ' ')
    "$GPUDIAG" analyze --json "$GD_TEST_DATA/$1" > "$TMP/cl.json" 2> "$TMP/err"
    python3 - "$TMP/cl.json" "$@" <<'PYEOF' || rc=1
import json, sys
d = json.load(open(sys.argv[1])); s = d["stragglers"]
name, gross, net, noise, least = sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
ok = (s["straggler"] is None and abs(s["wait_us_per_step"] - gross) < 1e-6 and abs(s["net_wait_us_per_step"] - net) < 1e-6
      and abs(s["net_wait_noise_us_per_step"] - noise) < 1e-3 and not d["findings"]
      and "take turns arriving last" in s["verdict"] and ("rank %d:" % least) in s["verdict"])
if not ok:
    print("FAIL %s: %s findings %s" % (name, s, d["findings"])); sys.exit(1)
PYEOF
done

# compare's steady state (class 16; DEFINITIONS "Steady state of a run"), in text: which step, why
"$GPUDIAG" compare "$GD_TEST_DATA/ok_three_steps.json" "$GD_TEST_DATA/ok_three_steps.json" > "$TMP/cmp.txt"
grep -q "steady state: 1 step left out: #3 0.07 ms (unexplained tail 0.03 ms)" "$TMP/cmp.txt" ||
    { echo "FAIL: compare text does not name the step left out"; cat "$TMP/cmp.txt"; rc=1; }
# ok_startup_steps: steps of 1000 and 200000 us, the second holding 199050 us of start-up idle
# (>= 10%): leaving it out would leave 1 step, so both are kept and the text says so
"$GPUDIAG" compare --json "$GD_TEST_DATA/ok_startup_steps.json" "$GD_TEST_DATA/ok_startup_steps.json" > "$TMP/cmp.json"
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
assert c["base"]["steady_unsure"] is True and c["base"]["steps_excluded"] == 0 and c["base"]["steps"] == 2, c["base"]
' "$TMP/cmp.json" || { echo "FAIL: steady state with too few steps"; rc=1; }
"$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_startup_steps.json" | python3 -c '
import json, sys
s = json.load(sys.stdin)["steps"]
assert [(x["startup_idle_us"], x["unexplained_tail_us"]) for x in s] == [(0, 0), (199050, 0)], s
' || { echo "FAIL: steps[].startup_idle_us on ok_startup_steps"; rc=1; }

# compare's tables cover the steps it compares (DEFINITIONS "Steady state of a run"):
# ok_compare_startup_{base,new}: step #1 (10000 us, 4050 us of start-up idle >= 10 %) is left out
# on both sides, steps #2..#4 (1000 us each) are compared. By hand over #2..#4: the elementwise
# kernel runs 900 us of each 1000 us step in base, 450 in new -> gpu_utilization and kernel share
# 0.9 / 0.45; startup idle 0 on both; the kernel diff holds that kernel alone (3 calls a side,
# 2700 / 1350 us, -450 us per step), not #1's autotune_probe_kernel. (With #1 in the tables:
# 0.654 / 0.550, startup 0.312, 4 calls, -337.5 us per step.)
"$GPUDIAG" compare --json "$GD_TEST_DATA/ok_compare_startup_base.json" "$GD_TEST_DATA/ok_compare_startup_new.json" > "$TMP/cmp_su.json"
python3 - "$TMP/cmp_su.json" <<'PYEOF' || { echo "FAIL: compare tables over the compared steps"; rc=1; }
import json, sys
d = json.load(open(sys.argv[1]))
m = d["metrics"]
for side in ("base", "new"):
    assert d[side]["steps"] == 3 and d[side]["steps_excluded"] == 1 and d[side]["tables_all_steps"] is False, d[side]
def near(a, b): return abs(a - b) < 1e-6
assert near(m["gpu_utilization"]["base"], 0.9) and near(m["gpu_utilization"]["new"], 0.45), m["gpu_utilization"]
assert near(m["breakdown.share.kernel"]["base"], 0.9) and near(m["breakdown.share.kernel"]["new"], 0.45)
assert m["idle.by_cause_share_of_step.startup"]["base"] == 0 and m["idle.by_cause_share_of_step.startup"]["new"] == 0
k = d["kernels"]["diff"]
assert len(k) == 1 and k[0]["base_calls"] == 3 and k[0]["new_calls"] == 3, k
assert near(k[0]["base_us"], 2700) and near(k[0]["new_us"], 1350) and near(k[0]["delta_us_per_step"], -450), k
assert "startup_in_window" not in [f["id"] for f in d["findings"]], d["findings"]
PYEOF
"$GPUDIAG" compare "$GD_TEST_DATA/ok_compare_startup_base.json" "$GD_TEST_DATA/ok_compare_startup_new.json" > "$TMP/cmp_su.txt"
grep -q "the tables below cover the same 3 steps" "$TMP/cmp_su.txt" ||
    { echo "FAIL: compare text does not say the tables cover the compared steps"; rc=1; }
# the same as two-rank directories (each rank a copy): every rank's tables over its kept steps, the
# job's kernels summed over the ranks: 2 x 2700 = 5400 and 2 x 1350 = 2700 us, 6 calls a side,
# -2700 us / 3 steps = -900 us per step; utilisation the ranks' mean, 0.9 / 0.45
mkdir -p "$TMP/db" "$TMP/dn"
for k in 0 1; do
    cp "$GD_TEST_DATA/ok_compare_startup_base.json" "$TMP/db/rank$k.json"
    cp "$GD_TEST_DATA/ok_compare_startup_new.json" "$TMP/dn/rank$k.json"
done
"$GPUDIAG" compare --json "$TMP/db" "$TMP/dn" > "$TMP/cmp_sud.json"
python3 - "$TMP/cmp_sud.json" <<'PYEOF' || { echo "FAIL: compare tables over the compared steps, directories"; rc=1; }
import json, sys
d = json.load(open(sys.argv[1]))
m = d["metrics"]
assert d["base"]["tables_all_steps"] is False and d["base"]["steps_excluded"] == 1, d["base"]
assert abs(m["gpu_utilization"]["base"] - 0.9) < 1e-6 and abs(m["gpu_utilization"]["new"] - 0.45) < 1e-6, m["gpu_utilization"]
assert m["idle.by_cause_share_of_step.startup"]["base"] == 0, m["idle.by_cause_share_of_step.startup"]
k = d["kernels"]["diff"]
assert len(k) == 1 and (k[0]["base_calls"], k[0]["new_calls"], k[0]["base_us"], k[0]["new_us"]) == (6, 6, 5400, 2700), k
assert abs(k[0]["delta_us_per_step"] + 900) < 1e-6, k
PYEOF

[ "$rc" -eq 0 ] && echo "reports: all passed"
exit "$rc"
