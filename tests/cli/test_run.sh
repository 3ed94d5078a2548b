#!/bin/sh
# test_run.sh — `gpudiag run -- CMD` on real child commands with the fake
# libnvidia-ml (tests/fake_nvml) loaded through the real dlopen path.
# Asserts: the child's exit status is returned (3 -> 3; killed by SIGTERM ->
# 143); 127 for a command that does not exist, 126 for one that cannot be
# executed (and no log left behind); SIGTERM sent to gpudiag is forwarded to
# the child; the child's stdout is untouched; the log is complete (whole
# rows) even when gpudiag is killed with SIGKILL; CUDA_VISIBLE_DEVICES and
# --gpus choose the GPUs; the diagnosis covers the GPU where NVML lists the
# child's process tree (a grandchild counts) and not a GPU busy with another
# process; no library -> exit 4 before the command runs; usage errors -> 2.
# Environment: GPUDIAG, FAKE_NVML_FULL.  Exit: 0 pass, 1 fail, 77 skip.

GD_TMP_TAG=run
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
if [ -z "${FAKE_NVML_FULL:-}" ] || [ ! -f "$FAKE_NVML_FULL" ]; then
    echo "skip: FAKE_NVML_FULL not set (run through ctest)"
    exit 77
fi

PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); }
nok() { FAIL=$((FAIL + 1)); echo "FAIL [$CASE] $*"; printf '   stderr: %s\n' "$(head -c 800 "$TMP/err")"; }
expect_rc() {
    want=$1; shift
    "$@" > "$TMP/out" 2> "$TMP/err"
    RC=$?
    if [ "$RC" -eq "$want" ]; then ok; else nok "exit $RC, wanted $want"; fi
}
expect_err() { if grep -q -- "$1" "$TMP/err"; then ok; else nok "stderr lacks '$1'"; fi; }
nrows() { python3 -c "import sys; r=[l.split(', ') for l in open(sys.argv[1])][1:]; print(len([x for x in r if x[1]==sys.argv[2]]))" "$1" "$2"; }

# GPU 0: the child's processes, 12 % busy; GPU 1: 99 % busy with pid 1 (not ours).
cat > "$TMP/two.txt" <<'S'
count 2
name 0 NVIDIA H100 80GB HBM3
set 0 util 12
set 0 mem_total 85899345920
set 0 mem_used 10737418240
procs 0 descendants 1073741824
name 1 NVIDIA H100 80GB HBM3
set 1 util 99
set 1 mem_total 85899345920
set 1 mem_used 75161927680
procs 1 pid 1 1048576
S
export GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/two.txt"

CASE="exit status 3"
expect_rc 3 "$GPUDIAG" run -i 50ms -o "$TMP/r1.csv" -- sh -c 'sleep 1; exit 3'
[ -f "$TMP/r1.csv" ] && ok || nok "no log"
n0=$(nrows "$TMP/r1.csv" 0); n1=$(nrows "$TMP/r1.csv" 1)
[ "$n0" -ge 2 ] && [ "$n0" -eq "$n1" ] && ok || nok "log rows gpu0=$n0 gpu1=$n1"
grep -q "GPU 0: GPU-Util 12%: idle most of the time" "$TMP/err" && ok || nok "low-utilisation verdict for GPU 0"
grep -q "GPU 1:" "$TMP/err" && nok "GPU 1 (another process) diagnosed" || ok

CASE="grandchild on the GPU"
expect_rc 0 "$GPUDIAG" run -i 50ms -o "$TMP/r1b.csv" -- sh -c '(sleep 0.4; true) & wait'
grep -q "GPU 0:" "$TMP/err" && ok || nok "GPU 0 not diagnosed"
grep -q "GPU 1:" "$TMP/err" && nok "GPU 1 diagnosed" || ok

CASE="stdout untouched"
expect_rc 0 "$GPUDIAG" run -q -i 50ms -o "$TMP/r2.csv" -- printf 'hello\n'
[ "$(cat "$TMP/out")" = "hello" ] && ok || nok "stdout: $(cat "$TMP/out")"

CASE="not found"
expect_rc 127 "$GPUDIAG" run -o "$TMP/nf.csv" -- "$TMP/no-such-command"
expect_err "no-such-command: command not found"
[ -e "$TMP/nf.csv" ] && nok "log left behind" || ok
expect_rc 127 "$GPUDIAG" run -o "$TMP/nf.csv" -- no-such-command-gpudiag-test

CASE="cannot execute"
printf 'not a program\n' > "$TMP/notexec"
chmod 644 "$TMP/notexec"
expect_rc 126 "$GPUDIAG" run -o "$TMP/ne.csv" -- "$TMP/notexec"
expect_err "cannot execute"

CASE="killed by a signal"
expect_rc 143 "$GPUDIAG" run -i 50ms -o "$TMP/k.csv" -- sh -c 'kill -TERM $$'

CASE="SIGTERM forwarded"
"$GPUDIAG" run -q -i 50ms -o "$TMP/f.csv" -- sleep 30 > "$TMP/out" 2> "$TMP/err" &
gp=$!
sleep 1
kill -TERM "$gp"
start=$(date +%s)
wait "$gp"
RC=$?
[ "$RC" -eq 143 ] && ok || nok "exit $RC, wanted 143 (sleep killed by the forwarded SIGTERM)"
[ $(( $(date +%s) - start )) -lt 10 ] && ok || nok "took too long: signal not forwarded"

CASE="gpudiag killed: log complete"
"$GPUDIAG" run -q -i 20ms -o "$TMP/kill9.csv" -- sh -c 'echo $$ > '"$TMP"'/child.pid; sleep 30' > /dev/null 2>&1 &
gp=$!
sleep 2
kill -KILL "$gp"
wait "$gp" 2>/dev/null
kill -TERM "$(cat "$TMP/child.pid")" 2>/dev/null
python3 - "$TMP/kill9.csv" <<'PY' && ok || nok "log after SIGKILL"
import sys
data = open(sys.argv[1]).read()
assert data.endswith("\n"), "last row cut"
rows = [l.split(", ") for l in data.splitlines()]
assert all(len(r) == len(rows[0]) for r in rows), "ragged rows"
assert len(rows) >= 1 + 2 * 2, len(rows)
PY

CASE="CUDA_VISIBLE_DEVICES"
expect_rc 0 env CUDA_VISIBLE_DEVICES=1 "$GPUDIAG" run -i 50ms -o "$TMP/cvd.csv" -- sleep 0.2
[ "$(nrows "$TMP/cvd.csv" 0)" -eq 0 ] && [ "$(nrows "$TMP/cvd.csv" 1)" -ge 1 ] && ok || nok "CVD=1 rows"
expect_rc 0 env CUDA_VISIBLE_DEVICES=GPU-fake0000-0000-0000-0000-000000000000 "$GPUDIAG" run -i 50ms -o "$TMP/cvd2.csv" -- sleep 0.2
[ "$(nrows "$TMP/cvd2.csv" 1)" -eq 0 ] && [ "$(nrows "$TMP/cvd2.csv" 0)" -ge 1 ] && ok || nok "CVD=uuid rows"
expect_rc 0 "$GPUDIAG" run --gpus 1 -i 50ms -o "$TMP/g1.csv" -- sleep 0.2
[ "$(nrows "$TMP/g1.csv" 0)" -eq 0 ] && ok || nok "--gpus 1 rows"
grep -q "no process of the command was seen" "$TMP/err" && ok || nok "fallback note"

CASE="step markers"
# Steps end at 1000.0, 1000.5, 1001.5, 1002.0 s: step times 500, 1000, 500 ms ->
# mean 666.7, median 500.0, p90 900.0 (numpy linear: 500 + 0.8 x 500), min 500, max 1000;
# tokens of steps 2..4 = 300 over 2.0 s = 150 tokens/s.  One line is not a marker.
expect_rc 0 "$GPUDIAG" run -i 50ms -o "$TMP/mk.csv" -- sh -c '
  printf "step 1 tokens 100 time 1000.0\nstep 2 tokens 100 time 1000.5\nnot a marker\n" >> "$GPUDIAG_MARKERS"
  printf "step 3 tokens 100 time 1001.5\nstep 4 tokens 100 time 1002.0\n" >> "$GPUDIAG_MARKERS"'
expect_err "steps: 4 markers (steps 1..4), 3 step times: mean 666.7 ms, median 500.0 ms, p90 900.0 ms, min 500.0 ms, max 1000.0 ms"
expect_err "steps: 150 tokens/s (tokens of steps 2..4 over 2.00 s)"
expect_err "1 line of $TMP/mk.csv.steps were not"
[ -f "$TMP/mk.csv.steps" ] && ok || nok "marker file removed"
expect_rc 0 "$GPUDIAG" run -i 50ms -o "$TMP/nomk.csv" -- true
[ -e "$TMP/nomk.csv.steps" ] && nok "empty marker file left behind" || ok
grep -q "steps:" "$TMP/err" && nok "steps reported without markers" || ok

CASE="usage"
expect_rc 2 "$GPUDIAG" run
expect_rc 2 "$GPUDIAG" run --interval 5x -- true
expect_rc 2 "$GPUDIAG" run --gpus 9 -- true
expect_rc 0 "$GPUDIAG" run --help
grep -q "Usage: gpudiag run" "$TMP/out" && ok || nok "help"

CASE="no library"
expect_rc 4 env GPUDIAG_NVML_LIB="$TMP/none.so" "$GPUDIAG" run -o "$TMP/nl.csv" -- touch "$TMP/ran"
[ -e "$TMP/ran" ] && nok "command ran without a GPU" || ok
expect_err "none.so"

CASE="log cannot be created"
expect_rc 125 "$GPUDIAG" run -o "$TMP/no/such/dir/x.csv" -- true
expect_err "cannot create the sample log"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
