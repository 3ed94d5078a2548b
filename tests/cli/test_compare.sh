#!/bin/sh
# gpudiag compare: the CI gate on synthetic step times whose statistics are
# derived by hand (U = 0, exact p = 2 / C(12, 6)), the kernel-level diff of
# the two shared HTA trace_diff traces against counts taken straight from the
# trace files by an independent python script (HTA's shorten_name rewritten
# here), the U statistic and exact p-value on real traces by brute-force
# enumeration, the ResNet-50 num_workers 0 -> 4 improvement, identical inputs
# as "no change", saved reports (analyze --save) as a side, and usage errors.
. "$(dirname "$0")/common.sh"
: "${GD_SRC:=$HERE/../..}"
T=$GD_SHARED/data/traces
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_rc WANT CMD...: run CMD, compare its exit status
expect_rc() {
    want=$1
    shift
    "$@" > "$TMP/out" 2> "$TMP/err"
    got=$?
    if [ "$got" -eq "$want" ]; then ok; else bad "exit $got, wanted $want: $* ($(head -c 300 "$TMP/err"))"; fi
}

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

# ---- independent checks on real traces ----------------------------------------
cat > "$TMP/oracle.py" <<'PY'
# Kernel counts and summed durations per name, read straight from the trace
# files, and the Mann-Whitney U / exact p by enumerating every split.
import gzip, itertools, json, math, sys

def shorten(name):            # HTA hta/utils/utils.py shorten_name, rewritten
    s = name.replace("->", "")
    st = []
    for ch in s:
        if ch in ">)":
            opener = "<" if ch == ">" else "("
            while st and st[-1] != opener:
                st.pop()
            if st:
                st.pop()
        else:
            st.append(ch)
    w = "".join(st).split(" ")[-1]
    return w if w else name

def kernels(path, short):
    op = gzip.open if path.endswith(".gz") else open
    out = {}
    for e in json.load(op(path, "rt"))["traceEvents"]:
        if e.get("ph") == "X" and e.get("cat", "").lower() == "kernel":
            k = shorten(e["name"]) if short else e["name"]
            c = out.setdefault(k, [0, 0.0])
            c[0] += 1
            c[1] += float(e["dur"])
    return out

def mwu(b, t):
    u = sum((x < y) + 0.5 * (x == y) for y in b for x in t)
    pool = b + t
    m = len(b)
    dist = []
    for idx in itertools.combinations(range(len(pool)), m):
        bs = [pool[i] for i in idx]
        ts = [pool[i] for i in range(len(pool)) if i not in idx]
        dist.append(sum((x < y) + 0.5 * (x == y) for y in bs for x in ts))
    le = sum(1 for v in dist if v <= u) / len(dist)
    ge = sum(1 for v in dist if v >= u) / len(dist)
    return u, min(1.0, 2 * min(le, ge))

if __name__ == "__main__":
    cmp_json, base, new, short, base_rep, new_rep = sys.argv[1:7]
    d = json.load(open(cmp_json))
    kb, kn = kernels(base, short == "short"), kernels(new, short == "short")
    diff = {r["name"]: r for r in d["kernels"]["diff"]}
    names = set(kb) | set(kn)
    assert set(diff) == names, (len(diff), len(names), sorted(names ^ set(diff))[:5])
    for n in names:
        r = diff[n]
        bc, bu = kb.get(n, [0, 0.0])
        nc, nu = kn.get(n, [0, 0.0])
        assert r["base_calls"] == bc and r["new_calls"] == nc, (n, r, bc, nc)
        assert abs(r["base_us"] - bu) < 1e-3 * max(1, bc) and abs(r["new_us"] - nu) < 1e-3 * max(1, nc), (n, r, bu, nu)
        assert r["change"] == ("added" if bc == 0 else "removed" if nc == 0 else "both"), (n, r)
    assert d["kernels"]["added"] == len(set(kn) - set(kb)), d["kernels"]["added"]
    assert d["kernels"]["removed"] == len(set(kb) - set(kn)), d["kernels"]["removed"]
    # movers: sorted by |delta per step|, descending
    mv = [abs(r["delta_us_per_step"]) for r in d["kernels"]["diff"]]
    assert all(mv[i] >= mv[i + 1] - 1e-6 for i in range(len(mv) - 1))
    # step statistics from the per-step durations the analyses report
    sb = [s["duration_us"] for s in json.load(open(base_rep))["steps"]]
    sn = [s["duration_us"] for s in json.load(open(new_rep))["steps"]]
    u, p = mwu(sb, sn)
    c = d["confidence"]
    assert c["u"] == u and abs(c["p"] - p) <= 1e-5 * p, (c, u, p)
    mb, mn = sum(sb) / len(sb), sum(sn) / len(sn)
    assert abs(d["metrics"]["step_time_us.mean"]["change"] - (mn - mb) / mb) < 1e-5, d["metrics"]["step_time_us.mean"]
    print("kernel names %d (%s), U %g, p %.6g" % (len(names), short, u, p))
PY

if [ -f "$T/a100_8rank_rank3_control.json.gz" ]; then
    A=$T/a100_8rank_rank3_control.json.gz
    B=$T/a100_8rank_rank3_test.json.gz
    "$GPUDIAG" analyze --json "$A" > "$TMP/ra.json" && "$GPUDIAG" analyze --json "$B" > "$TMP/rb.json" || bad "analyze A100"
    # the test run's steps are all slower than the control's: U = 0, regression, exit 1
    expect_rc 1 "$GPUDIAG" compare --json "$A" "$B"
    python3 "$TMP/oracle.py" "$TMP/out" "$A" "$B" short "$TMP/ra.json" "$TMP/rb.json" && ok || bad "A100 kernel diff (short names)"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["gate"]["verdict"]=="regressed" and d["confidence"]["u"]==0, d["gate"]' "$TMP/out" && ok || bad "A100 regressed"
    expect_rc 1 "$GPUDIAG" compare --json --full-names "$A" "$B"
    python3 "$TMP/oracle.py" "$TMP/out" "$A" "$B" full "$TMP/ra.json" "$TMP/rb.json" && ok || bad "A100 kernel diff (full names)"
    # identical inputs: no change, exit 0, p = 1, nothing added, removed or moved
    expect_rc 0 "$GPUDIAG" compare --json "$A" "$A"
    python3 - "$TMP/out" <<'PY' && ok || bad "identical: no change"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["gate"]["verdict"] == "no_change" and d["gate"]["change"] == 0, d["gate"]
assert d["confidence"]["p"] == 1 and d["confidence"]["median_diff"] == 0
assert d["kernels"]["added"] == 0 and d["kernels"]["removed"] == 0
assert all(r["delta_us"] == 0 for r in d["kernels"]["diff"])
assert all(f["change"] == "unchanged" for f in d["findings"]) and d["findings"]
assert all(v["delta"] in (0, None) for v in d["metrics"].values()), d["metrics"]
PY
    expect_rc 0 "$GPUDIAG" compare "$A" "$A"
    grep -q '^COMPARE  no change' "$TMP/out" && ok || bad "identical: text verdict"
else
    echo "skip: shared A100 traces not found"
fi

R0=$GD_SRC/examples/resnet50_v100_num_workers_0.pt.trace.json.gz
R4=$T/resnet50_v100_num_workers_4.pt.trace.json.gz
if [ -f "$R4" ]; then
    "$GPUDIAG" analyze --json "$R0" > "$TMP/r0.json" && "$GPUDIAG" analyze --json "$R4" > "$TMP/r4.json" || bad "analyze resnet"
    expect_rc 0 "$GPUDIAG" compare --json "$R0" "$R4"
    python3 "$TMP/oracle.py" "$TMP/out" "$R0" "$R4" short "$TMP/r0.json" "$TMP/r4.json" && ok || bad "ResNet kernel diff"
    python3 - "$TMP/out" <<'PY' && ok || bad "ResNet: DataLoader share falls, step time improves"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["metrics"]
dl = m["breakdown.share.dataloader"]
assert dl["base"] > 0.3 and dl["new"] < 0.05 and dl["delta"] < -0.25, dl
assert m["idle.by_cause_share_of_step.dataloader"]["delta"] < -0.25, m["idle.by_cause_share_of_step.dataloader"]
assert m["step_time_us.mean"]["change"] < -0.15 and m["throughput_steps_per_s"]["change"] > 0.15
assert m["gpu_utilization"]["delta"] > 0.1, m["gpu_utilization"]
assert d["gate"]["verdict"] == "improved" and d["gate"]["outside_noise"] is True, d["gate"]
f = {x["id"]: x["change"] for x in d["findings"]}
assert f.get("dataloader_stall") == "disappeared", f
PY
    # saved reports as either side give the same step statistics and findings diff
    expect_rc 0 "$GPUDIAG" analyze --save "$TMP/saved0.json" "$R0"
    [ -s "$TMP/saved0.json" ] && grep -q '^VERDICT' "$TMP/out" && ok || bad "analyze --save writes the report and still prints text"
    expect_rc 0 "$GPUDIAG" compare --json "$TMP/saved0.json" "$R4"
    python3 - "$TMP/out" "$TMP/r0.json" <<'PY' && ok || bad "saved report as base"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["base"]["kernels_partial"] is True or json.load(open(sys.argv[2]))["kernels"]["distinct"] <= 50
assert d["gate"]["verdict"] == "improved"
assert abs(d["confidence"]["p"] - 0.0411255411) < 1e-6, d["confidence"]
f = {x["id"]: x["change"] for x in d["findings"]}
assert f.get("dataloader_stall") == "disappeared", f
assert abs(d["metrics"]["breakdown.share.dataloader"]["base"] - 0.333696) < 1e-5
PY
    expect_rc 0 "$GPUDIAG" compare --json "$TMP/saved0.json" "$TMP/saved0.json"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["gate"]["verdict"]=="no_change" and d["kernels"]["partial"] is True, d["gate"]' "$TMP/out" && ok || bad "saved vs saved"
else
    echo "skip: shared ResNet-50 num_workers_4 trace not found"
fi

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
expect_rc 0 "$GPUDIAG" compare --help
grep -q -- '--threshold' "$TMP/out" && ok || bad "--help"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
