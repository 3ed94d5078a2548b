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

GD_SHOW_STDERR=1   # nok prints the head of $TMP/err (tests/cli/common.sh)
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
expect_rc 3 "$GPUDIAG" run -i 50ms -o "$TMP/r1.csv" --json "$TMP/r1.json" --html "$TMP/r1.html" -- sh -c 'sleep 1; exit 3'
# the HTML page: one chart (only GPU 0 is the command's), passes the checker, flat 12 % compute line
python3 "$GD_CLI_DIR/htmlcheck.py" --pages "$TMP/r1.html" && ok || nok "run --html page"
[ "$(grep -o '<svg class="chart"' "$TMP/r1.html" | wc -l)" -eq 1 ] && ok || nok "run --html: one chart"
grep -q 'nvml monitoring log, 1 GPU' "$TMP/r1.html" && ok || nok "run --html header"
[ -f "$TMP/r1.csv" ] && ok || nok "no log"
n0=$(nrows "$TMP/r1.csv" 0); n1=$(nrows "$TMP/r1.csv" 1)
[ "$n0" -ge 2 ] && [ "$n0" -eq "$n1" ] && ok || nok "log rows gpu0=$n0 gpu1=$n1"
# The scripted 12 % GPU: low_gpu_utilization with median = p10 = 0.12 and every sample
# under 0.30 (the seeds' targets); the 99 % GPU runs another process and is not diagnosed.
python3 - "$TMP/r1.json" <<'PY' && ok || nok "low-utilisation diagnosis"
import json, sys, os
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
r = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in r["findings"]}
low = f.get("low_gpu_utilization", {}).get("evidence", {})
g = r["series"]["gpus"]
valcheck.run([("gpus diagnosed", [x["index"] for x in g], [0]),
              ("finding", "low_gpu_utilization" in f, True),
              ("evidence gpu", low.get("gpu_index"), 0), ("median", low.get("median"), 0.12),
              ("p10", low.get("p10"), 0.12), ("low share", low.get("low_share"), 1.0),
              ("util mean", g[0]["metrics"]["gpu_util"]["mean"], 0.12),
              ("mem used median", g[0]["metrics"]["mem_used_bytes"]["median"], 10737418240),
              ("bottleneck", r["verdict"]["bottleneck"], "data_pipeline")], "low util")
PY
grep -q "VERDICT" "$TMP/err" && ok || nok "text report on stderr"

CASE="grandchild on the GPU"
expect_rc 0 "$GPUDIAG" run -i 50ms -o "$TMP/r1b.csv" --json "$TMP/r1b.json" -- sh -c '(sleep 0.6; true) & wait'
python3 -c 'import json,sys; g=[x["index"] for x in json.load(open(sys.argv[1]))["series"]["gpus"]]; sys.exit(g != [0])' "$TMP/r1b.json" && ok || nok "diagnosed GPUs are not [0]"
# --json FILE.gz is gzipped (as analyze --save, --trace-out): the gzip magic, and it gunzips to the report
expect_rc 0 "$GPUDIAG" run -i 50ms -o "$TMP/r1c.csv" --json "$TMP/r1c.json.gz" -- sleep 0.3
[ "$(head -c 2 "$TMP/r1c.json.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] &&
    gzip -dc "$TMP/r1c.json.gz" | python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)["schema"] != "gpudiag.report/1")' &&
    ok || nok "run --json r1c.json.gz is not a gzipped report"

CASE="run and analyze LOG agree"
cat > "$TMP/agree.txt" <<'S'
count 1
name 0 NVIDIA H100 80GB HBM3
gpm 0 1
set 0 util 95,90,15,97,92,20,96
set 0 memutil 40,35,5
set 0 mem_total 85899345920
set 0 mem_used 68719476736,69793218560
set 0 sm_clock 1980,1755
set 0 sm_clock_max 1980
set 0 mem_clock 2619
set 0 power 612.25,498.5
set 0 power_limit 700
set 0 temp 66
set 0 pcie_rx 2048,4096
set 0 pcie_tx 1024
set 0 pcie_gen 5
set 0 pcie_gen_max 5
set 0 pcie_width 16
set 0 pcie_width_max 16
set 0 reasons 0,4
set 0 sm_active 45,38,52
set 0 tensor 20,25
set 0 dram 30
procs 0 descendants 1073741824
S
expect_rc 0 env FAKE_NVML_SCRIPT="$TMP/agree.txt" "$GPUDIAG" run -i 120ms -o "$TMP/ag.csv" --json "$TMP/ag_run.json" -- sleep 2
"$GPUDIAG" analyze --json "$TMP/ag.csv" > "$TMP/ag_an.json" 2> "$TMP/err" && ok || nok "analyze LOG failed"
python3 - "$TMP/ag_run.json" "$TMP/ag_an.json" <<'PY' && ok || nok "run and analyze LOG disagree"
import json, sys, os
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ga, gb = a["series"]["gpus"][0], b["series"]["gpus"][0]
checks = [("metrics", sorted(ga["metrics"]), sorted(gb["metrics"])),
          ("findings", sorted(f["id"] for f in a["findings"]), sorted(f["id"] for f in b["findings"])),
          ("bottleneck", a["verdict"]["bottleneck"], b["verdict"]["bottleneck"])]
for m, st in ga["metrics"].items():
    for k in ("n", "mean", "median", "p10", "p90", "min", "max", "low_share"):
        if st.get(k) is not None:
            checks.append((f"{m}.{k}", st[k], gb["metrics"][m].get(k)))
assert "sm_active" in ga["metrics"] and "tensor_active" in ga["metrics"], sorted(ga["metrics"])
valcheck.run(checks, "agree", rel=1e-6)
PY

CASE="GPU lost during the run"
printf 'count 1\nset 0 util 50\nlost_after 0 2\nprocs 0 descendants 1\n' > "$TMP/lost.txt"
expect_rc 7 env FAKE_NVML_SCRIPT="$TMP/lost.txt" "$GPUDIAG" run -i 50ms -o "$TMP/lost.csv" -- sh -c 'sleep 0.6; exit 7'
python3 -c '
import sys
r=[l.split(", ") for l in open(sys.argv[1])][1:]
u=[x[4] for x in r]
assert u[:2]==["50","50"] and len(u)>=4 and all(x=="[N/A]" for x in u[2:]), u' "$TMP/lost.csv" && ok || nok "lost rows"

CASE="video GPU (NVENC/NVDEC)"
# A transcoding GPU (DEFINITIONS "GPU states", "Live samples"): GPU-Util cycles 2,1,3,2 (median 2 %
# for any run of >= 3 reads: the sorted values hold as many 1s as 3s around a run of 2s, give or
# take one), NVML's encoder 88 % and decoder 71 % on every read, 20 GiB held of 24 GiB (0.83 >=
# 0.10: holds memory), no GPM (compute = GPU-Util, p95 <= 0.03 < 0.05).  Without the video engines
# this is the idle-holding-memory GPU; with them the encoder reached 0.10, so video_busy, in use,
# not idle, and with compute median 0.02 < 0.10 a video GPU: no class (unknown), no
# low_gpu_utilization, no idle_gpu_holding_memory, and the verdict names the encoder median 0.88
# ("88 %") and decoder median 0.71 ("71 %").  The CSV log carries 88 and 71, so analyze LOG agrees.
cat > "$TMP/video.txt" <<'S'
count 1
name 0 NVIDIA L4
set 0 util 2,1,3,2
set 0 memutil 3
set 0 mem_total 25769803776
set 0 mem_used 21474836480
set 0 enc_util 88
set 0 dec_util 71
procs 0 descendants 1073741824
S
# The same GPU on a driver that reports no video engines (encoder NOT_SUPPORTED, decoder never
# answered): the diagnosis is the one from before NVML's encoder/decoder were read.
sed -e 's/^set 0 enc_util 88$/set 0 enc_util NOT_SUPPORTED/' -e '/^set 0 dec_util/d' "$TMP/video.txt" > "$TMP/novideo.txt"
expect_rc 0 env FAKE_NVML_SCRIPT="$TMP/video.txt" "$GPUDIAG" run -i 50ms -o "$TMP/vid.csv" --json "$TMP/vid.json" -- sleep 1
grep -q "video engines: encoder median 88.0%  decoder median 71.0%" "$TMP/err" && ok || nok "text report lacks the video engines line"
"$GPUDIAG" analyze --json "$TMP/vid.csv" > "$TMP/vid_an.json" 2> "$TMP/err" && ok || nok "analyze the video log"
python3 - "$TMP/vid.json" "$TMP/vid_an.json" "$TMP/vid.csv" <<'PY' && ok || nok "video GPU diagnosis"
import json, sys, os
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
c = []
for tag, path in (("run", sys.argv[1]), ("analyze LOG", sys.argv[2])):
    r = json.load(open(path))
    g = r["series"]["gpus"][0]
    ids = [f["id"] for f in r["findings"]]
    c += [(tag + " video_busy", g["video_busy"], True), (tag + " in_use", g["in_use"], True),
          (tag + " idle_holding_memory", g["idle_holding_memory"], False),
          (tag + " enc median", g["metrics"]["enc_util"]["median"], 0.88),
          (tag + " dec median", g["metrics"]["dec_util"]["median"], 0.71),
          (tag + " gpu_util median", g["metrics"]["gpu_util"]["median"], 0.02),
          (tag + " no idle finding", "idle_gpu_holding_memory" in ids, False),
          (tag + " no low util", "low_gpu_utilization" in ids, False),
          (tag + " bottleneck", r["verdict"]["bottleneck"], "unknown"),
          (tag + " verdict", "works on its video engines (encoder median 88 %, decoder median 71 %)"
           in r["verdict"]["summary"], True)]
rows = [l.rstrip("\n").split(", ") for l in open(sys.argv[3])]
col = {h: i for i, h in enumerate(rows[0])}
c += [("csv encoder", set(r[col["utilization.encoder [%]"]] for r in rows[1:]), {"88"}),
      ("csv decoder", set(r[col["utilization.decoder [%]"]] for r in rows[1:]), {"71"})]
valcheck.run(c, "video")
PY
expect_rc 0 env FAKE_NVML_SCRIPT="$TMP/novideo.txt" "$GPUDIAG" run -i 50ms -o "$TMP/novid.csv" --json "$TMP/novid.json" -- sleep 1
python3 - "$TMP/novid.json" "$TMP/novid.csv" <<'PY' && ok || nok "no video readings: diagnosis as before"
import json, sys, os
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
r = json.load(open(sys.argv[1]))
g = r["series"]["gpus"][0]
rows = [l.rstrip("\n").split(", ") for l in open(sys.argv[2])]
col = {h: i for i, h in enumerate(rows[0])}
valcheck.run([("video_busy", g["video_busy"], False), ("idle_holding_memory", g["idle_holding_memory"], True),
              ("no enc/dec metric (missing, not 0)", sorted(k for k in g["metrics"] if k in ("enc_util", "dec_util")), []),
              ("idle finding", "idle_gpu_holding_memory" in [f["id"] for f in r["findings"]], True),
              ("csv encoder", set(x[col["utilization.encoder [%]"]] for x in rows[1:]), {"[N/A]"}),
              ("csv decoder", set(x[col["utilization.decoder [%]"]] for x in rows[1:]), {"[N/A]"})], "no video")
PY

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

finish
