#!/bin/sh
# GPU and host clocks that disagree (DEFINITIONS "Kernels", kernels before their launch; finding
# input_gpu_clock_skew). A kernel cannot start before the launch call that queues it; when the
# trace's GPU times are shifted against the host's (CUPTI's one-time offset drifting over a long
# capture, pytorch/kineto#1082) the old binary clipped every launch delay to 0 and said nothing.
#
# tests/data/warn_gpu_clock_skew.json, written by GEN below (the test checks the file is what GEN
# writes): steps s = 1..5, B = 10000 + 5000 (s-1) us, ProfilerStep#s [B, B+5000], aten::fill_
# [B, B+4500]; in each, launch i = 0..19: cudaLaunchKernel at L = B + 3500 + 50 i, 20 us,
# correlation 20 (s-1) + i + 1, and its 4 us kernel at L - 3000 (3 ms before the call starts).
# Expected: linked kernels 100; each offset L - (L - 3000) = 3000 us > 50 -> kernels_before_launch
# 100, share 100 / 100 = 1.0, median of 100 x 3000 = 3000 us, max 3000 us; 100 >= 10 and
# 1.0 >= 0.10 -> finding (medium). The host is in aten::fill_/launch calls during the idle time, so
# the verdict is host_launch (host_launch_bound) and ends with the low-confidence sentence.
# Variants (same trace, kernel shift changed):
#   drift: step s's kernels 1000 s us early -> 20 each of 1000..5000: 100 early, sorted values
#     50 and 51 are 3000 -> median 3000, max 5000, share 1.0.
#   offset 51 us -> 51 > 50: 100 early, median = max = 51.
#   offset 50 us -> not > 50, and offset 30 us: none by the 50 us rule, but all 100 kernels start
#     > 1 us before their call, 100 >= 10 and 100 / 100 >= 0.50: a systematic offset (a new user's
#     trial: a 30 us shift flipped the verdict to "idle with no visible cause" with no word of the
#     skew) -> finding, kernels_before_launch 0, kernels_before_launch_start 100, "by up to 30.0 us
#     (a systematic offset)", "at least 30.0 us" (50.0 us); the previous binary: none.
#   five: step 1's first 5 kernels 3000 us early, the rest 25 us after their call -> 5 < 10: none
#     (summary.kernels_before_launch still 5).
#   ten: step 1's first 10 -> 10 >= 10 and 10/100 = 0.10 >= 0.10: finding, median 3000, max 3000.
#   normal (all 25 us after their call): none, kernels_before_launch 0, no caution in the verdict.
# Skew size and drift (DEFINITIONS "Kernels", skew size and drift): the title says "at least" the
# largest offset; first/last = the largest offset over the first / last ceil(100 / 10) = 10 kernels
# by GPU start; it drifts when they differ by > 50 us and > 25 % of the larger.
#   base: first = last = 3000, no drift ("at least 3.00 ms").
#   drift: first = step 1's kernels 0..9, 1000; last = step 5's kernels 10..19, 5000; 4000 > 50 and
#     > 1250: drifts from 1.00 ms to 5.00 ms.
#   linear: kernel k = 20 (s-1) + i (0..99, also its order in time: L - shift grows by 50 - 40 =
#     10 us within a step, by 4050 - 40 across) is 1000 + 40 k us early (1 ms growing to 4.96 ms):
#     100 early, share 1.0, median = (2960 + 3000) / 2 = 2980 (k = 49, 50), max 4960 (k = 99);
#     first = 1000 + 40 x 9 = 1360, last = 4960; 3600 > 50 and > 0.25 x 4960 = 1240: drifts, and
#     the title says "at least 4.96 ms" where the old binary said "~2.98 ms" (the median).
#   ten: first = 3000 (step 1's first 10), last = -25 (all after their call): drifts.
#   off51: first = last = 51, no drift.
# The caution rides on every verdict that compares host times with GPU times (DEFINITIONS "Kernels",
# kernels before their launch), not only host_launch. Same steps and launches, 3000 us early, but the
# host op changes:
#   dl: enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ over [B, B+4500] instead of
#     aten::fill_. Breakdown: kernel 20 x 4 = 80, runtime 20 x 20 = 400 (both inside [B, B+4500]),
#     DataLoader 4500 - 80 - 400 = 4020 us of 5000 -> dataloader_stall 0.804, verdict data_pipeline,
#     with the caution; dl_normal (kernels 25 us after their call): the same 0.804, no caution.
#   sync: no fill_, a cudaDeviceSynchronize [B+1400, B+3490] per step. The kernels run at
#     [B+500+50i, B+504+50i]; a gap goes to sync when the call started before it and runs at its
#     start: the 46 us gap after kernel 18 (B+1404..B+1450) and the gap after kernel 19, B+1454 to
#     the next step's first kernel at B+5500 (4046 us; step 5: to the window end 35000, 3546 us):
#     4 x (46 + 4046) + (46 + 3546) = 19960 us / 5 steps / 5000 us = 0.7984 -> sync_stall 0.7984,
#     verdict synchronization, with the caution. sync_normal (kernels 25 us after their call, i.e.
#     at B+3525+50i, while the sync has returned) reads host_launch instead: the verdict moved
#     with the clocks, which is why it needs the caution; there it has none (no skew). Its finding
#     is host_overhead: the host_launch gaps of ~3.5 ms are host work of its own, not launch pacing
#     (FINDINGS host_launch_bound, since the 10th session).
# Nsight: one clock, the same rule: an export whose kernels start 3 ms before their
# cudaLaunchKernel_v7000 (12 launches) fires, with the Nsight advice; 1 us after does not.
set -eu
GD_TMP_TAG=skew
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
GEN=$(cat <<'EOF2'
import json, sys
def trace(shift, host="fill"):
    dev = [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8, "computeMinor": 0, "numSms": 108,
            "maxThreadsPerMultiprocessor": 2048, "warpSize": 32, "totalGlobalMem": 85899345920}]
    ev = []
    for s in range(1, 6):
        b = 10000 + 5000 * (s - 1)
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": 1, "tid": 1,
                   "ts": b, "dur": 5000})
        if host == "fill":
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::fill_", "pid": 1, "tid": 1, "ts": b, "dur": 4500})
        elif host == "dl":
            ev.append({"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                       "pid": 1, "tid": 1, "ts": b, "dur": 4500})
        else:  # "sync": the host waits in a synchronize from B + 1400 to B + 3490
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1,
                       "ts": b + 1400, "dur": 2090, "args": {"correlation": 1000 + s}})
        for i in range(20):
            c = 20 * (s - 1) + i + 1
            l = b + 3500 + 50 * i
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": l,
                       "dur": 20, "args": {"correlation": c}})
            ev.append({"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, "
                       "at::native::FillFunctor<float>, at::detail::Array<char*, 1> >", "pid": 0, "tid": 7,
                       "ts": l - shift(s, i), "dur": 4, "args": {"device": 0, "stream": 7, "correlation": c}})
    return {"schemaVersion": 1, "deviceProperties": dev, "traceEvents": ev}
out = sys.argv[1]
cases = {
    "base": lambda s, i: 3000,
    "drift": lambda s, i: 1000 * s,
    "off51": lambda s, i: 51,
    "off50": lambda s, i: 50,
    "off30": lambda s, i: 30,
    "five": lambda s, i: 3000 if s == 1 and i < 5 else -25,
    "ten": lambda s, i: 3000 if s == 1 and i < 10 else -25,
    "normal": lambda s, i: -25,
    "linear": lambda s, i: 1000 + 40 * (20 * (s - 1) + i),
}
for name, f in cases.items():
    json.dump(trace(f), open("%s/%s.json" % (out, name), "w"), indent=1)
for host in ("dl", "sync"):
    for name, f in (("", cases["base"]), ("_normal", cases["normal"])):
        json.dump(trace(f, host), open("%s/%s%s.json" % (out, host, name), "w"), indent=1)
EOF2
)
# CHECK: argv report, label, want ("none,N" or "N,share,median,max[,first,last]": with first and last,
# the drift is checked too: said when they differ by > 50 us and > 25 %)
CHECK=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); label = sys.argv[2]; want = sys.argv[3].split(",")
f = {x["id"]: x for x in d["findings"]}
v = d["verdict"]["summary"]
if want[0] == "sys":
    g = f.get("input_gpu_clock_skew", {"severity": None, "evidence": {}, "title": ""})
    mx = "%.1f us" % float(want[2])
    checks = [("severity", g["severity"], "medium"),
              ("kernels_before_launch (> 50 us)", g["evidence"].get("kernels_before_launch"), 0.0),
              ("kernels_before_launch_start", g["evidence"].get("kernels_before_launch_start"), float(want[1])),
              ("title: systematic", "by up to %s (a systematic offset)" % mx in g["title"], True),
              ("title: at least", "disagree by at least %s" % mx in g["title"], True)]
elif want[0] == "none":
    checks = [("no input_gpu_clock_skew", "input_gpu_clock_skew" in f, False),
              ("kernels_before_launch", d["summary"]["kernels_before_launch"], float(want[1])),
              ("no caution in the verdict", "input_gpu_clock_skew" in v, False)]
else:
    n, share, med, mx = (float(x) for x in want[:4])
    g = f.get("input_gpu_clock_skew", {"severity": None, "evidence": {}, "title": ""})
    ev = g["evidence"]
    checks = [("severity", g["severity"], "medium"),
              ("kind", g.get("kind"), "input"),
              ("kernels_before_launch", ev.get("kernels_before_launch"), n),
              ("share", ev.get("share"), share),
              ("median_offset_us", ev.get("median_offset_us"), med),
              ("max_offset_us", ev.get("max_offset_us"), mx),
              ("summary.kernels_before_launch", d["summary"]["kernels_before_launch"], n),
              ("title says the clocks disagree", "clocks of this trace disagree" in g["title"], True),
              ("title says launch delays are a lower bound", "lower bound" in g["title"], True),
              ("title says at least the largest offset", "disagree by at least " in g["title"], True)]
    if len(want) == 6:
        first, last = float(want[4]), float(want[5])
        drift = abs(last - first) > 50 and abs(last - first) > 0.25 * max(abs(first), abs(last))
        checks += [("first_tenth_offset_us", ev.get("first_tenth_offset_us"), first),
                   ("last_tenth_offset_us", ev.get("last_tenth_offset_us"), last),
                   ("drift said", "skew drifts from" in g["title"], drift)]
    if d["verdict"]["bottleneck"] == "host_launch":
        checks.append(("low-confidence verdict", "low confidence (input_gpu_clock_skew)" in v, True))
    # an op before its call leaves the queue as it enters (DEFINITIONS "Idle time", queue length):
    # the old binary's queue went to -10 here (20 ops leave before their 20 calls enter, each step)
    checks.append(("queue_mean >= 0", min(x["queue_mean"] for x in d["idle"]["streams"]) >= 0, True))
    if label == "base":
        checks.append(("verdict host_launch", d["verdict"]["bottleneck"], "host_launch"))
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, label, 1e-09)
EOF2
)
python3 -c "$GEN" "$TMP"
W="$GD_TEST_DATA/warn_gpu_clock_skew.json"
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$W" "$TMP/base.json" \
    && ok || nok "tests/data/warn_gpu_clock_skew.json is not what GEN writes"
for _mode in default yajl; do
    _nosj=""
    [ "$_mode" = yajl ] && _nosj=1
    GPUDIAG_NO_SIMDJSON="$_nosj" run_case "$W" base "100,1,3000,3000,3000,3000"
done
run_case "$TMP/drift.json" drift "100,1,3000,5000,1000,5000"
run_case "$TMP/linear.json" linear "100,1,2980,4960,1360,4960"
run_case "$TMP/off51.json" off51 "100,1,51,51,51,51"
run_case "$TMP/off50.json" off50 "sys,100,50"
run_case "$TMP/off30.json" off30 "sys,100,30"
run_case "$TMP/five.json" five "none,5"
run_case "$TMP/ten.json" ten "10,0.1,3000,3000,3000,-25"
# ten: the last tenth's kernels all start 25 us after their calls: no skew visible there, and the
# title says so (the old title: "to -25.0 us")
if python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["findings"]
g = [f["title"] for f in t if f["id"] == "input_gpu_clock_skew"][0]
sys.exit(not ("drifts from 3.00 ms (first tenth of the kernels) to none visible (last tenth)" in g and "-25" not in g))' "$TMP/ten.out.json"; then
    ok
else
    nok "ten: the drift's end is not 'none visible'"
fi
if python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["findings"]
g = [f["title"] for f in t if f["id"] == "input_gpu_clock_skew"][0]
sys.exit(not ("at least 4.96 ms" in g and "skew drifts from 1.36 ms" in g and "to 4.96 ms" in g))' "$TMP/linear.out.json"; then
    ok
else
    nok "linear: the title does not say at least 4.96 ms, drifting from 1.36 ms to 4.96 ms"
fi
run_case "$TMP/normal.json" normal "none,0"
# the text report says it under LAUNCHES
if "$GPUDIAG" analyze "$W" > "$TMP/base.txt" 2>&1 &&
   grep -q "100 kernels start > 50 us before their own launch call (median 3.00 ms early)" "$TMP/base.txt"; then
    ok
else
    nok "text report: no kernels-before-launch line"
fi

CAUTION=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); label = sys.argv[2]; bn, fid, share, caution = sys.argv[3].split(",")
f = {x["id"]: x for x in d["findings"]}
v = d["verdict"]
checks = [("bottleneck", v["bottleneck"], bn),
          ("verdict finding", v.get("finding"), fid),
          ("caution", "low confidence (input_gpu_clock_skew)" in v["summary"], caution == "yes")]
if share == "-":  # not derived here: only the verdict and the absent caution are checked
    pass
elif fid in f:
    checks.append(("est_gain", f[fid]["est_gain"], float(share)))
else:
    checks.append((fid + " present", False, True))
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, label, 1e-09)
EOF2
)
for _c in dl:data_pipeline,dataloader_stall,0.804,yes dl_normal:data_pipeline,dataloader_stall,0.804,no \
          sync:synchronization,sync_stall,0.7984,yes sync_normal:host_launch,host_overhead,-,no; do
    _n=${_c%%:*}
    if "$GPUDIAG" analyze --json "$TMP/$_n.json" > "$TMP/$_n.out.json" 2> "$TMP/err"; then
        python3 -c "$CAUTION" "$TMP/$_n.out.json" "$_n" "${_c#*:}" && ok || nok "$_n"
    else
        nok "$_n: gpudiag exited $?: $(head -3 "$TMP/err")"
    fi
done

# ---- Nsight Systems: one clock, the same rule --------------------------------
if command -v sqlite3 >/dev/null 2>&1; then
    for _case in early:3000000 late:-1000; do
        N="$TMP/${_case%%:*}.sqlite"
        sqlite3 "$N" <<SQL
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'elementwise_kernel');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
 globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, shortName INTEGER NOT NULL);
-- 12 launches at 5.00, 5.02, ..., 5.22 ms (10 us each), correlations 1-12; their 5 us kernels
-- ${_case#*:} ns before the call starts
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 11)
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 5000000 + 20000 * i, 5010000 + 20000 * i, 1, 1, i + 1, 1, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 11)
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 5000000 + 20000 * i - (${_case#*:}), 5005000 + 20000 * i - (${_case#*:}),
 0, 1, 7, i + 1, 2 FROM k;
SQL
    done
    # 12 kernels, each 3000 us before its call: 12 >= 10, share 1.0, median = max = 3000
    run_case "$TMP/early.sqlite" nsys-early "12,1,3000,3000"
    run_case "$TMP/late.sqlite" nsys-late "none,0"
    if "$GPUDIAG" analyze --json "$TMP/early.sqlite" | grep -q "Nsight Systems records both on one clock"; then
        ok
    else
        nok "nsys-early: advice is not the Nsight one"
    fi
else
    echo "skip: sqlite3 not found (Nsight cases)"
fi
finish
