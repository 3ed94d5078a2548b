#!/bin/sh
# gpudiag compare on synthetic traces whose statistics are derived by hand:
# the CI gate (U = 0, exact p = 2 / C(12, 6)), thresholds, no change,
# inconclusive, a directory of rank traces and a saved cluster report as a
# side, --runs with run-to-run spread, and usage errors.  Real traces:
# test_compare_real.sh.
. "$(dirname "$0")/common.sh"
: "${GD_SRC:=$HERE/../..}"
T=$GD_SHARED/data/traces

# ---- synthetic traces: one kernel per ProfilerStep, step durations as given ----
cat > "$TMP/gen.py" <<'PY'
import json, sys
def trace(durs):
    ev, t = [], 1000
    for i, d in enumerate(durs):
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (i + 1), "pid": 100, "tid": 100,
                   "ts": t, "dur": d, "args": {}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": t + 1,
                   "dur": 4, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "void gemm_kernel<float, 128>(Params)", "pid": 0, "tid": 7,
                   "ts": t + 10, "dur": d - 20, "args": {"device": 0, "stream": 7, "correlation": i + 1}})
        t += d
    return {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "numSms": 108}],
            "traceEvents": ev}
json.dump(trace([int(x) for x in sys.argv[2].split(",")]), open(sys.argv[1], "w"))
PY
python3 "$TMP/gen.py" "$TMP/base.json" 9900,9950,10000,10020,10030,10100      # mean 10000 µs
python3 "$TMP/gen.py" "$TMP/slow.json" 11900,11950,12000,12020,12030,12100    # +2000 each: mean 12000
python3 "$TMP/gen.py" "$TMP/near.json" 10100,10150,10200,10220,10230,10300    # +200 each: +2 %
python3 "$TMP/gen.py" "$TMP/noisyb.json" 6000,14000,8000,12000,9000,11000     # mean 10000
python3 "$TMP/gen.py" "$TMP/noisyn.json" 6600,15400,8800,13200,9900,12100     # x1.1: mean 11000, interleaved

# A: a clear 20 % regression -> exit 1; U = 0 (every new step is slower), no
# ties, so the exact p = 2 / C(12, 6) = 2 / 924.
expect_rc 1 "$GPUDIAG" compare "$TMP/base.json" "$TMP/slow.json"
expect_rc 1 "$GPUDIAG" compare --json "$TMP/base.json" "$TMP/slow.json"
cp "$TMP/out" "$TMP/a.json"
python3 - "$TMP/a.json" <<'PY' && ok || bad "synthetic regression: values"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpudiag.compare/1"
m = d["metrics"]
assert m["step_time_us.mean"]["base"] == 10000 and m["step_time_us.mean"]["new"] == 12000, m["step_time_us.mean"]
assert abs(m["step_time_us.mean"]["change"] - 0.2) < 1e-9
assert m["step_time_us.median"]["base"] == 10010 and m["step_time_us.median"]["new"] == 12010
assert abs(m["throughput_steps_per_s"]["base"] - 100) < 1e-6 and abs(m["throughput_steps_per_s"]["new"] - 1e6 / 12000) < 1e-3
c = d["confidence"]
assert c["u"] == 0 and c["exact"] is True, c
assert abs(c["p"] - 2 / 924) < 1e-6, c["p"]
assert c["median_diff"] == 2000, c
lo, hi = c["median_diff_ci95"]
assert 1900 <= lo <= 2000 <= hi <= 2100, (lo, hi)   # every resample difference lies in [1900, 2100] here
g = d["gate"]
assert g["metric"] == "step_time" and g["verdict"] == "regressed" and g["outside_noise"] is True and g["exit_code"] == 1, g
assert d["base"]["steps"] == 6 and d["new"]["steps"] == 6
k = d["kernels"]
assert k["names"] == "short" and k["added"] == 0 and k["removed"] == 0 and len(k["diff"]) == 1
row = k["diff"][0]
assert row["name"] == "gemm_kernel", row["name"]             # HTA shorten_name: no 'void', template, arguments
assert row["base_calls"] == 6 and row["new_calls"] == 6
assert row["base_us"] == 60000 - 6 * 20 and row["new_us"] == 72000 - 6 * 20, row
assert row["delta_us_per_step"] == 2000, row
PY
# the same regression judged as throughput (-16.7 %), and below a 25 % threshold
expect_rc 1 "$GPUDIAG" compare --metric throughput "$TMP/base.json" "$TMP/slow.json"
expect_rc 0 "$GPUDIAG" compare --threshold 25% "$TMP/base.json" "$TMP/slow.json"
grep -q -- '-> no_change, exit 0' "$TMP/out" && ok || bad "threshold 25%: no_change line"
expect_rc 0 "$GPUDIAG" compare --threshold 0.25 --json "$TMP/base.json" "$TMP/slow.json"
python3 -c 'import json,sys; g=json.load(open(sys.argv[1]))["gate"]; assert g["verdict"]=="no_change" and g["threshold"]==0.25, g' "$TMP/out" && ok || bad "threshold 0.25"
# improvement the other way round: exit 0, improved
expect_rc 0 "$GPUDIAG" compare --json "$TMP/slow.json" "$TMP/base.json"
python3 -c 'import json,sys; g=json.load(open(sys.argv[1]))["gate"]; assert g["verdict"]=="improved" and abs(g["change"]+1/6)<1e-6, g' "$TMP/out" && ok || bad "improved"
expect_rc 0 "$GPUDIAG" compare "$TMP/base.json" "$TMP/base.json"
grep -q '^COMPARE  no change' "$TMP/out" && ok || bad "identical: text verdict"
# B: +2 %: below the threshold -> no change
expect_rc 0 "$GPUDIAG" compare --json "$TMP/base.json" "$TMP/near.json"
python3 -c 'import json,sys; g=json.load(open(sys.argv[1]))["gate"]; assert g["verdict"]=="no_change" and abs(g["change"]-0.02)<1e-9, g' "$TMP/out" && ok || bad "+2% no change"
# C: +10 % but the steps interleave -> inconclusive, exit 0.  U by hand: new
# 6600 < base {14000, 8000, 12000, 9000, 11000} (5), 15400 < none (0), 8800 <
# {14000, 12000, 9000, 11000} (4), 13200 < {14000} (1), 9900 < {14000, 12000,
# 11000} (3), 12100 < {14000} (1): U = 14.
expect_rc 0 "$GPUDIAG" compare --json "$TMP/noisyb.json" "$TMP/noisyn.json"
python3 - "$TMP/out" <<'PY' && ok || bad "noisy: inconclusive"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["confidence"]["u"] == 14, d["confidence"]
assert d["confidence"]["p"] > 0.05
assert d["gate"]["verdict"] == "inconclusive" and d["gate"]["outside_noise"] is False, d["gate"]
assert abs(d["gate"]["change"] - 0.1) < 1e-9
PY

# ---- a directory of rank traces as a side ------------------------------------------
# rank 0 = base (mean 10000), rank 1 = near (each step +200): the job's step k is the
# slower rank's, so the job's steps are near's (mean 10200); kernels are summed (12 calls).
mkdir -p "$TMP/job"
cp "$TMP/base.json" "$TMP/job/rank0.json"
cp "$TMP/near.json" "$TMP/job/rank1.json"
expect_rc 1 "$GPUDIAG" compare --json "$TMP/job" "$TMP/slow.json"
python3 - "$TMP/out" <<'PY' && ok || bad "directory side"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["metrics"]["step_time_us.mean"]["base"] == 10200, d["metrics"]["step_time_us.mean"]
assert abs(d["gate"]["change"] - (12000 / 10200 - 1)) < 1e-6, d["gate"]
k = d["kernels"]["diff"][0]
assert k["base_calls"] == 12 and k["new_calls"] == 6, k
PY
# the directory saved as a cluster report reads back as the same side
expect_rc 0 "$GPUDIAG" analyze --save "$TMP/job.json" "$TMP/job"
expect_rc 0 "$GPUDIAG" compare --json "$TMP/job.json" "$TMP/job"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); g=d["gate"]; assert g["verdict"]=="no_change" and g["change"]==0 and d["base"]["steps"]==6, d' "$TMP/out" && ok || bad "saved cluster vs directory"

# ---- several runs per side (--runs) ------------------------------------------------
# run with mean M: steps M-50, M-21, M, M+21, M+50 (mean exactly M)
run() { python3 "$TMP/gen.py" "$TMP/$1.json" "$(($2 - 50)),$(($2 - 21)),$2,$(($2 + 21)),$(($2 + 50))"; }
run a1 10000; run a2 10100; run a3 9900
run b1 12000; run b2 12100; run b3 11900
# steady runs: spread (10100 - 9900) / 10000 = 2 % and (12100 - 11900) / 12000 = 1.67 %,
# both within the 5 % bar; +20 % is beyond both spreads -> regressed, exit 1
expect_rc 1 "$GPUDIAG" compare --json --runs "$TMP/a1.json" "$TMP/a2.json" "$TMP/a3.json" -- "$TMP/b1.json" "$TMP/b2.json" "$TMP/b3.json"
python3 - "$TMP/out" <<'PY' && ok || bad "--runs steady: spread and regression"
import json, sys
d = json.load(open(sys.argv[1]))
b, n = d["base"], d["new"]
assert len(b["runs"]) == 3 and len(n["runs"]) == 3 and b["steps"] == 15 and n["steps"] == 15, (b, n)
assert abs(b["run_spread"] - 0.02) < 1e-6 and abs(n["run_spread"] - 200 / 12000) < 1e-6, (b, n)
assert b["within_5pct_bar"] is True and n["within_5pct_bar"] is True
assert abs(d["gate"]["change"] - 0.2) < 1e-9 and d["gate"]["verdict"] == "regressed", d["gate"]
assert d["confidence"]["u"] == 0
# kernel diff: the mean over runs (5 calls per run)
k = d["kernels"]["diff"][0]
assert k["base_calls"] == 5 and k["new_calls"] == 5, k
assert abs(k["base_us"] - (50000 - 100) ) < 1e-6 and abs(k["new_us"] - (60000 - 100)) < 1e-6, k
PY
run c1 10000; run c2 11000; run c3 9000
run d1 11000; run d2 12100; run d3 9900
# noisy runs: spread (11000 - 9000) / 10000 = 20 % on each side, above the 5 % bar;
# a +10 % change is inside that spread -> not outside the noise, exit 0
expect_rc 0 "$GPUDIAG" compare --json --runs "$TMP/c1.json" "$TMP/c2.json" "$TMP/c3.json" -- "$TMP/d1.json" "$TMP/d2.json" "$TMP/d3.json"
python3 - "$TMP/out" <<'PY' && ok || bad "--runs noisy: above the bar, inconclusive"
import json, sys
d = json.load(open(sys.argv[1]))
assert abs(d["base"]["run_spread"] - 0.2) < 1e-9 and abs(d["new"]["run_spread"] - 0.2) < 1e-9, (d["base"], d["new"])
assert d["base"]["within_5pct_bar"] is False and d["new"]["within_5pct_bar"] is False
assert abs(d["gate"]["change"] - 0.1) < 1e-9
assert d["gate"]["outside_noise"] is False and d["gate"]["verdict"] == "inconclusive", d["gate"]
PY
expect_rc 0 "$GPUDIAG" compare --runs "$TMP/c1.json" "$TMP/c2.json" "$TMP/c3.json" -- "$TMP/d1.json" "$TMP/d2.json" "$TMP/d3.json"
grep -q 'ABOVE the 5% bar' "$TMP/out" && ok || bad "--runs noisy: text says above the bar"

# ---- monitoring logs (issue #9): two generated dmon logs, one with sm 15 points lower -----
python3 "$GD_SRC/bench/gen_monlog.py" --lines 4000 > "$TMP/m_a.log"
python3 "$GD_SRC/bench/gen_monlog.py" --lines 4000 --seed 2 > "$TMP/m_b.log"
python3 "$GD_SRC/bench/gen_monlog.py" --lines 4000 --seed 2 --sm-shift -15 > "$TMP/m_c.log"
gzip -c "$TMP/m_c.log" > "$TMP/m_c.log.gz"
expect_rc 0 "$GPUDIAG" compare --json "$TMP/m_a.log" "$TMP/m_a.log"
cp "$TMP/out" "$TMP/m_same.json"
expect_rc 0 "$GPUDIAG" compare --json "$TMP/m_a.log" "$TMP/m_b.log"
cp "$TMP/out" "$TMP/m_seed.json"
expect_rc 1 "$GPUDIAG" compare --json "$TMP/m_a.log" "$TMP/m_c.log.gz"
cp "$TMP/out" "$TMP/m_shift.json"
expect_rc 1 "$GPUDIAG" compare "$TMP/m_a.log" "$TMP/m_c.log"
grep -q 'regressed' "$TMP/out" && grep -q 'block means' "$TMP/out" && ok || bad "log compare text"
python3 - "$TMP" <<'PY' && ok || bad "log compare values"
import json, os, sys
tmp = sys.argv[1]
def sm_power(path):  # independent read of the raw dmon rows: columns by the header
    hdr, sm, pw = None, [], []
    for line in open(path):
        if line.startswith("#"):
            if hdr is None:
                hdr = line[1:].split()
            continue
        f = dict(zip(hdr, line.split()))
        sm.append(int(f["sm"]) / 100); pw.append(int(f["pwr"]))
    return sum(sm) / len(sm), sum(pw) / len(pw)
def rows(n): return {r["metric"]: r for r in json.load(open(os.path.join(tmp, n)))["metrics"]}
a_sm, a_pw = sm_power(os.path.join(tmp, "m_a.log"))
c_sm, c_pw = sm_power(os.path.join(tmp, "m_c.log"))
same, seed, shift = rows("m_same.json"), rows("m_seed.json"), rows("m_shift.json")
assert json.load(open(os.path.join(tmp, "m_same.json")))["verdict"] == "no_change"
assert same["gpu_util"]["change"] == 0 and same["gpu_util"]["mwu_p"] == 1, same["gpu_util"]
assert seed["gpu_util"]["verdict"] == "no_change" and abs(seed["gpu_util"]["change"]) < 0.01, seed["gpu_util"]
g = shift["gpu_util"]
assert abs(g["base_mean"] - a_sm) < 1e-12 and abs(g["new_mean"] - c_sm) < 1e-12, (g, a_sm, c_sm)
assert abs(g["change"] - (c_sm - a_sm) / a_sm) < 1e-9 and g["verdict"] == "regressed" and g["mwu_p"] < 0.05, g
# 4 GPUs x 1000 samples, blocks of one dip period (10 s): 100 blocks per GPU
assert g["block_len"] == 10 and g["base_blocks"] == 400, g
assert g["mwu_p_samples"] < g["mwu_p"], g       # the raw-sample test overstates the evidence
p = shift["power_w"]
assert abs(p["new_mean"] - c_pw) < 1e-9 and p["verdict"] == "changed", p
assert shift["sm_active"]["base_n"] == 0 and shift["sm_active"]["verdict"] == "n/a"
assert shift["mem_used_bytes"]["verdict"] == "no_change"
PY
expect_rc 2 "$GPUDIAG" compare "$TMP/m_a.log" "$TMP/base.json"
grep -q 'm_a.log is a monitoring log' "$TMP/err" && ok || bad "log vs trace refused"
expect_rc 2 "$GPUDIAG" compare "$TMP/base.json" "$TMP/m_a.log"
expect_rc 2 "$GPUDIAG" compare --runs "$TMP/m_a.log" -- "$TMP/m_b.log"

# ---- usage and input errors ------------------------------------------------------
expect_rc 2 "$GPUDIAG" compare "$TMP/base.json"
expect_rc 2 "$GPUDIAG" compare --metric speed "$TMP/base.json" "$TMP/slow.json"
expect_rc 2 "$GPUDIAG" compare --threshold -1 "$TMP/base.json" "$TMP/slow.json"
expect_rc 2 "$GPUDIAG" compare --runs "$TMP/base.json" "$TMP/slow.json"
expect_rc 3 "$GPUDIAG" compare "$TMP/base.json" "$TMP/missing.json"
grep -q 'missing.json' "$TMP/err" && ok || bad "missing file named"
printf '{"schema": "gpudiag.report/1", "steps": [' > "$TMP/cut.json"
expect_rc 3 "$GPUDIAG" compare "$TMP/cut.json" "$TMP/base.json"
grep -q 'cut.json' "$TMP/err" && ok || bad "cut saved report named"
# and where it ends: 41 bytes written, so premature end at byte 41 (new-user trial of issue 19)
grep -q 'cut.json: byte 41: not valid JSON' "$TMP/err" && ok || bad "cut saved report: no byte offset: $(cat "$TMP/err")"
# a snapshot (one sample per GPU: tests/data/monlog/dmon_one_sample.log, sm 95) against a 4000-line
# log is no time series: no U test, gpu_util inconclusive whatever the means (DEFINITIONS
# "compare: monitoring logs"; before: improved/regressed from one row), exit 0, the text says why
expect_rc 0 "$GPUDIAG" compare --json "$GD_TEST_DATA/monlog/dmon_one_sample.log" "$TMP/m_c.log"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); r = {m["metric"]: m for m in d["metrics"]}
sys.exit(0 if d["snapshot"] == "base" and d["verdict"] == "inconclusive" and r["gpu_util"]["mwu_p"] is None
         and r["gpu_util"]["verdict"] == "inconclusive" and r["gpu_util"]["base_n"] == 1 else 1)' "$TMP/out" \
  && ok || bad "snapshot compare"
# set-up: the generated logs have the same GPUs (no note); the one-GPU snapshot against them does not
python3 -c '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
sys.exit(0 if a["setup_differs"] == {"gpu_count": False, "gpu_names": False}
         and b["setup_differs"]["gpu_count"] is True else 1)' "$TMP/m_seed.json" "$TMP/out" \
  && ok || bad "compare set-up"
expect_rc 0 "$GPUDIAG" compare "$GD_TEST_DATA/monlog/dmon_one_sample.log" "$TMP/m_c.log"
grep -q "The base log holds one sample per GPU (a snapshot)" "$TMP/out" && ok || bad "snapshot compare text"
# --runs: the same file twice on one side is refused (exit 2, both names): it is one run, and
# counting it twice would shrink the p-value as if two runs agreed
cp "$GD_TEST_DATA/ok_two_steps.json" "$TMP/run_a.json"
ln -sf "$TMP/run_a.json" "$TMP/run_a_link.json"
expect_rc 2 "$GPUDIAG" compare --runs "$TMP/run_a.json" "$TMP/run_a_link.json" -- "$GD_TEST_DATA/ok_two_steps.json"
grep -q "are the same file on the base side of --runs" "$TMP/err" && ok || bad "--runs duplicate named"
expect_rc 0 "$GPUDIAG" compare --help
grep -q -- '--threshold' "$TMP/out" && ok || bad "--help"

# A new run cut off before its GPU events (Kineto writes CPU events first): its steps are CPU
# ranges with no GPU work.  The same step durations as base.json (9900..10100 µs), the file cut
# at the byte where the first GPU-side event starts.  Without the rule this read "no change
# beyond the threshold" (the step times match), exit 0 and nothing on stderr (new-user trial):
# now inconclusive, naming the run, and analyze's warning with the byte.
python3 - "$TMP/cutnew.json" <<'PY'
import json, sys
durs = [9900, 9950, 10000, 10020, 10030, 10100]
cpu, gpu, t = [], [], 1000
for i, d in enumerate(durs):
    cpu.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (i + 1), "pid": 100, "tid": 100,
                "ts": t, "dur": d, "args": {}})
    cpu.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 100, "ts": t + 1, "dur": 8,
                "args": {}})
    gpu.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": t + 1,
                "dur": 4, "args": {"correlation": i + 1}})
    gpu.append({"ph": "X", "cat": "kernel", "name": "void gemm_kernel<float, 128>(Params)", "pid": 0, "tid": 7,
                "ts": t + 10, "dur": d - 20, "args": {"device": 0, "stream": 7, "correlation": i + 1}})
    t += d
head = '{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "numSms": 108}],\n"traceEvents": [\n'
text = head + ",\n".join(json.dumps(e) for e in cpu + gpu) + "\n]}\n"
cut = text.index('"cat": "cuda_runtime"')
cut = text.rindex("{", 0, cut)  # the first GPU-side event's '{'
open(sys.argv[1], "w").write(text[:cut])
open(sys.argv[1] + ".full", "w").write(text)  # the whole file, cut elsewhere below
print(cut, file=open(sys.argv[1] + ".at", "w"))
PY
AT=$(cat "$TMP/cutnew.json.at")
expect_rc 0 "$GPUDIAG" compare --threshold 3% "$TMP/base.json" "$TMP/cutnew.json"
grep -q "^COMPARE  inconclusive: the new run .*cutnew.json is cut off before any GPU activity" "$TMP/out" &&
    ok || bad "cut new run: headline $(head -c 300 "$TMP/out")"
grep -q "^gpudiag: warning: $TMP/cutnew.json: byte $AT: Trace is cut off at byte $AT" "$TMP/err" &&
    ok || bad "cut new run: stderr $(head -c 300 "$TMP/err")"
expect_rc 0 "$GPUDIAG" compare --json --threshold 3% "$TMP/base.json" "$TMP/cutnew.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['gate']['verdict'] == 'inconclusive' else 1)" "$TMP/out" &&
    ok || bad "cut new run: JSON verdict"

# A new run cut after some of its GPU events (a second new user: a cut run that kept 1 of 6 steps
# read "no change" with nothing said of the cut): the same generator, cut at the '{' of the 4th
# GPU-side runtime event, so steps 4-6 were cut while their GPU events were written (dropped,
# breakdown.steps_cut_gpu), and step 3 too: its host range ends after the last runtime call in
# the file, so the file cannot show it complete (DEFINITIONS "Cut-off traces"); steps 1-2
# compare. The summary keeps its verdict and ends with a caution naming the run and its 2 steps.
python3 - "$TMP/cutnew.json.full" "$TMP/cutmid.json" <<'PY'
import sys
text = open(sys.argv[1]).read()
at = -1
for _ in range(4):
    at = text.index('"cat": "cuda_runtime"', at + 1)
open(sys.argv[2], "w").write(text[:text.rindex("{", 0, at)])
PY
expect_rc 0 "$GPUDIAG" compare --threshold 3% "$TMP/base.json" "$TMP/cutmid.json"
grep -q "Caution: the new run .*cutmid.json is cut off (input_truncated): only its 2 steps before the cut are compared" "$TMP/out" &&
    ok || bad "cut after some GPU work: $(head -c 400 "$TMP/out")"

finish
