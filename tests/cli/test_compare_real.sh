#!/bin/sh
# gpudiag compare on real traces: the kernel-level diff of the two shared HTA
# trace_diff traces (a100_8rank_rank3_control/test) against counts taken
# straight from the trace files by an independent python script (HTA's
# shorten_name rewritten here), the U statistic and exact p-value by
# brute-force enumeration of every split of the steps, identical inputs as
# "no change", the ResNet-50 num_workers 0 -> 4 improvement, and saved
# reports (analyze --save) read back as a side.
. "$(dirname "$0")/common.sh"
: "${GD_SRC:=$HERE/../..}"
T=$GD_SHARED/data/traces

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

def kernels(path):
    if path.startswith("saved:"):
        # a report saved with --save (every kernel): for a side whose tables cover only its
        # steady steps, `analyze --steps FIRST:LAST --save` of those steps
        return {k["name"]: [k["calls"], float(k["total_us"])] for k in json.load(open(path[6:]))["kernels"]["top"]}
    # durations clipped at the next op's start on their (device, stream), as gpudiag does
    # (docs/DEFINITIONS.md "Sanitising the timeline" 1)
    op = gzip.open if path.endswith(".gz") else open
    lanes = {}
    for i, e in enumerate(json.load(op(path, "rt"))["traceEvents"]):
        if e.get("ph") == "X" and e.get("cat", "").lower() in ("kernel", "gpu_memcpy", "gpu_memset"):
            a = e.get("args", {})
            lanes.setdefault((a.get("device", e.get("pid")), a.get("stream", e.get("tid"))), []).append(
                [float(e["ts"]), float(e["dur"]), i, e["cat"].lower() == "kernel", e["name"]])
    out = {}
    for lane in lanes.values():
        lane.sort(key=lambda x: (x[0], x[2]))
        later = [None] * len(lane)          # the first start strictly after each op's
        for j in range(len(lane) - 2, -1, -1):
            later[j] = lane[j + 1][0] if lane[j + 1][0] > lane[j][0] else later[j + 1]
        for j, (ts, dur, _, is_k, name) in enumerate(lane):
            nxt = later[j]
            if nxt is not None and ts + dur > nxt:
                dur = nxt - ts
            if is_k:
                c = out.setdefault(name, [0, 0.0])
                c[0] += 1
                c[1] += dur
    return out

def shortened(full):
    out = {}
    for name, (n, us) in full.items():
        c = out.setdefault(shorten(name), [0, 0.0])
        c[0] += n
        c[1] += us
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

def steady(steps):
    # DEFINITIONS "Steady state of a run", rewritten: leave out a step whose start-up/compilation
    # idle plus its unexplained tail (only above twice the run's median tail) is >= 10 % of it,
    # unless fewer than 2 steps would remain
    tails = sorted(s["unexplained_tail_us"] or 0 for s in steps)
    n = len(tails)
    med = 0 if n == 0 else tails[n // 2] if n % 2 else (tails[n // 2 - 1] + tails[n // 2]) / 2
    def out(s):
        t = s["unexplained_tail_us"] or 0
        return s["duration_us"] > 0 and (s["startup_idle_us"] or 0) + (t if t > 2 * med else 0) >= 0.1 * s["duration_us"]
    kept = [s["duration_us"] for s in steps if not out(s)]
    return kept if len(kept) >= 2 else [s["duration_us"] for s in steps]

if __name__ == "__main__":
    base, new, base_rep, new_rep = sys.argv[1:5]
    sb = steady(json.load(open(base_rep))["steps"])
    sn = steady(json.load(open(new_rep))["steps"])
    u, p = mwu(sb, sn)
    mb, mn = sum(sb) / len(sb), sum(sn) / len(sn)
    kfull = (kernels(base), kernels(new))      # each trace is read once
    for arg in sys.argv[5:]:                   # CMP_JSON:short or CMP_JSON:full
        cmp_json, mode = arg.rsplit(":", 1)
        d = json.load(open(cmp_json))
        kb, kn = (shortened(k) for k in kfull) if mode == "short" else kfull
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
        # per step: the kernel totals cover the steps the tables cover (every step when
        # tables_all_steps, else the steps compared)
        ns = [d[k]["steps"] + (d[k]["steps_excluded"] if d[k]["tables_all_steps"] else 0) for k in ("base", "new")]
        for n in names:
            r = diff[n]
            bu, nu = kb.get(n, [0, 0.0])[1], kn.get(n, [0, 0.0])[1]
            assert abs(r["delta_us_per_step"] - (nu / ns[1] - bu / ns[0])) < 2e-3, (n, r, ns)
        assert d["kernels"]["added"] == len(set(kn) - set(kb)), d["kernels"]["added"]
        assert d["kernels"]["removed"] == len(set(kb) - set(kn)), d["kernels"]["removed"]
        # movers: sorted by |delta per step|, descending
        mv = [abs(r["delta_us_per_step"]) for r in d["kernels"]["diff"]]
        assert all(mv[i] >= mv[i + 1] - 1e-6 for i in range(len(mv) - 1))
        # step statistics from the per-step durations the analyses report
        c = d["confidence"]
        assert c["u"] == u and abs(c["p"] - p) <= 1e-5 * p, (c, u, p)
        assert abs(d["metrics"]["step_time_us.mean"]["change"] - (mn - mb) / mb) < 1e-5, d["metrics"]["step_time_us.mean"]
        print("kernel names %d (%s), U %g, p %.6g" % (len(names), mode, u, p))
PY

if [ -f "$T/a100_8rank_rank3_control.json.gz" ]; then
    A=$T/a100_8rank_rank3_control.json.gz
    B=$T/a100_8rank_rank3_test.json.gz
    "$GPUDIAG" analyze --json "$A" > "$TMP/ra.json" && "$GPUDIAG" analyze --json "$B" > "$TMP/rb.json" || bad "analyze A100"
    # the test run's steps are all slower than the control's: U = 0, regression, exit 1
    expect_rc 1 "$GPUDIAG" compare --json "$A" "$B"
    cp "$TMP/out" "$TMP/cmp_short.json"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["gate"]["verdict"]=="regressed" and d["confidence"]["u"]==0, d["gate"]' "$TMP/out" && ok || bad "A100 regressed"
    # not one set-up (DEFINITIONS "Comparing runs", Same set-up?): by the files' own headers the
    # control is rank 3 of world 8 on 'NVIDIA A100-PG509-200', the test rank 1 of world 2 on
    # 'Tesla V100-SXM2-16GB' -> mixed_job [world_size, gpu], a caution, a WARNING line
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["mixed_job"]==["world_size","gpu"], d["mixed_job"]; assert "Caution: base and test differ in set-up (different world sizes, different GPUs)" in d["summary"], d["summary"]' "$TMP/out" && ok || bad "A100/V100 mixed set-up (JSON)"
    "$GPUDIAG" compare "$A" "$B" > "$TMP/mixed.txt" 2>/dev/null
    grep -q '^WARNING  base and test are not the same set-up: different GPU models, different world sizes;' "$TMP/mixed.txt" && ok || bad "A100/V100 mixed set-up (text)"
    expect_rc 1 "$GPUDIAG" compare --json --full-names "$A" "$B"
    cp "$TMP/out" "$TMP/cmp_full.json"
    python3 "$TMP/oracle.py" "$A" "$B" "$TMP/ra.json" "$TMP/rb.json" "$TMP/cmp_short.json:short" "$TMP/cmp_full.json:full" && ok || bad "A100 kernel diff (short and full names)"
    # identical inputs: no change, exit 0, p = 1, nothing added, removed or moved
    expect_rc 0 "$GPUDIAG" compare --json "$A" "$A"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["mixed_job"]==[] and "Caution" not in d["summary"], d' "$TMP/out" && ok || bad "identical: same set-up"
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
else
    echo "skip: shared A100 traces not found"
fi

R0=$GD_SRC/examples/resnet50_v100_num_workers_0.pt.trace.json.gz
R4=$T/resnet50_v100_num_workers_4.pt.trace.json.gz
if [ -f "$R4" ]; then
    "$GPUDIAG" analyze --json --save "$TMP/saved0.json" "$R0" > "$TMP/r0.json" && "$GPUDIAG" analyze --json "$R4" > "$TMP/r4.json" || bad "analyze resnet"
    # --save writes what --json prints, except that kernels.top lists every distinct kernel
    # (not the top 50), so that compare diffs them all
    python3 - "$TMP/saved0.json" "$TMP/r0.json" <<'PY' && ok || bad "analyze --save writes what --json prints, with all kernels"
import json, sys
s, j = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
st, jt = s["kernels"].pop("top"), j["kernels"].pop("top")
assert s == j
assert len(st) == s["kernels"]["distinct"] > 50 and len(jt) == 50 and st[:50] == jt, (len(st), len(jt))
PY
    expect_rc 0 "$GPUDIAG" compare --json "$R0" "$R4"
    cp "$TMP/out" "$TMP/cmp_resnet.json"
    # num_workers_4 starts at ProfilerStep#5: its 45 ms first cudaMemcpyAsync is not a first call
    # of the process (DEFINITIONS rule 0), so no step holds start-up and all six are kept; the
    # tables cover steps #5..#10 (DEFINITIONS "Steady state of a run"), the kernels as
    # `analyze --steps 5:10` selects them ("Selecting steps")
    "$GPUDIAG" analyze --steps 5:10 --save "$TMP/r4_steady.json" "$R4" > /dev/null || bad "analyze --steps 5:10"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["new"]["tables_all_steps"] is False and d["new"]["steps_excluded"] == 0, d["new"]' "$TMP/out" && ok || bad "ResNet: new side's tables over the kept steps"
    python3 "$TMP/oracle.py" "$R0" "saved:$TMP/r4_steady.json" "$TMP/r0.json" "$TMP/r4.json" "$TMP/cmp_resnet.json:short" && ok || bad "ResNet kernel diff"
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
    expect_rc 0 "$GPUDIAG" compare --json "$TMP/saved0.json" "$R4"
    python3 - "$TMP/out" "$TMP/r0.json" "$TMP/cmp_resnet.json" <<'PY' && ok || bad "saved report as base"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["base"]["kernels_partial"] is False, d["base"]
# the kernel diff from the saved report is the one from the trace itself
t = json.load(open(sys.argv[3]))
assert d["kernels"] == t["kernels"], "kernel diff differs between saved report and trace"
assert d["gate"]["verdict"] == "improved"
# step #5 of num_workers_4 (182 ms, its 45 ms copy no longer start-up) is kept: 6 vs 6 steps, U = 31
# (one pair where the new step is longer); exact two-sided p = P(U <= 5 or U >= 31) = 38 / C(12, 6)
# = 38 / 924 = 0.041126 (enumerated over the 924 rank splits)
assert abs(d["confidence"]["p"] - 38 / 924) < 1e-6 and d["confidence"]["u"] == 31, d["confidence"]
assert d["new"]["steps_excluded"] == 0, d["new"]
f = {x["id"]: x["change"] for x in d["findings"]}
assert f.get("dataloader_stall") == "disappeared", f
assert abs(d["metrics"]["breakdown.share.dataloader"]["base"] - 0.333696) < 1e-5
PY
    expect_rc 0 "$GPUDIAG" compare --json "$TMP/saved0.json" "$TMP/saved0.json"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["gate"]["verdict"]=="no_change" and d["kernels"]["partial"] is False, d["gate"]' "$TMP/out" && ok || bad "saved vs saved"
else
    echo "skip: shared ResNet-50 num_workers_4 trace not found"
fi

finish
