#!/bin/sh
# The memory timeline (docs/DEFINITIONS.md "Memory timeline", "Allocator churn") through the
# Kineto reader, both event readers.
#
# tests/data/ok_memory_headroom.json (tests/data/SOURCES.md): V100, totalGlobalMem 34084028416;
# ProfilerStep#1 [10000, 11000), #2 [11000, 12000) µs; GPU 0 `[memory]` events with Addr,
# Total Allocated (TA) and Total Reserved (TR), A = 1395818240 (half the ResNet-50 traces' rise):
#   9990  +1e9  TA 1e9      TR 2e9     (before the steps: carried into step 1)
#   10010 +A    TA 1e9 + A  TR 3e9;  10900 -A  TA 1e9  TR 3e9
#   11010 +A    TA 1e9 + A  TR 3e9;  11900 -A  TA 1e9  TR 3e9
# (5 GPU events) and one CPU event (Device Type 0).  By hand:
#   peak allocated 1e9 + A = 2395818240 (TBP's peak: the highest TA); peak reserved 3e9, first at
#   10010 where TA is 2395818240: unused 604181760; headroom 34084028416 - 3e9 = 31084028416,
#   share 0.9119822; per step: peak 2395818240, low 1e9, reserved 3e9; persistent 1e9,
#   transient A; allocated per step A (one +A event in each); fits (0.9 x 34084028416 - 1e9) / A = 29675625574.4 / 1395818240 = 21.26038.
#
# Findings (docs/FINDINGS.md), by hand:
#   ok_memory_headroom.json: memory_headroom_idle — peak reserved 3e9 <= 0.5 x total, fits 21.26 >= 2,
#     GPU idle 500 of 1000 us per step on host_launch (fixed idle share 0.5 >= 0.10); m = min(21, 4) = 4,
#     est_gain 0.5 x (1 - 1/4) = 0.375, high.
#   ok_allocator_churn.json: three 1000 us steps; after the first, cudaFree 200 us + cudaMalloc 100 us
#     (step 2, under an empty_cache frame) and cudaMalloc 100 us (step 3): 3 calls / 2 steps = 1.5 >= 1;
#     malloc 1.0 and free 0.5 per step; est_gain 400 / 2000 = 0.2, high; 1 empty_cache call.  The
#     cudaMalloc of step 1 (the cache filling) is not counted.
#   resnet50_v100_num_workers_4 edited here ("memory halved, PyTorch >= 1.10"): every GPU event's
#     Bytes halved (all are even), Total Allocated = 1e9 + the running sum of the halved Bytes,
#     Total Reserved = 4e9, Addr added.  Peak allocated 1e9 + 2791505408 / 2 = 2395752704, peak
#     reserved 4e9 (headroom 34084028416 - 4e9 = 30084028416); the GPU idles ~21 % of the step on
#     host_launch + optimizer + sync (the report's idle causes): memory_headroom_idle fires with
#     m = 4 and est_gain = that share x 0.75.  The unedited traces: silent (lower bounds only).
#
# Shared ResNet-50 traces (PyTorch 1.9: only Bytes): GPU 0, 8220 / 8280 events, lower-bound peak
# 2791636480 / 2791505408 bytes (the running sum of Bytes; tests/oracle/README.md section 9,
# checked there against the oracle too), has_totals false, reserved and headroom null,
# 4618 / 2700 CPU events; the text report says the curve starts at 0.
set -eu
GD_TMP_TAG=memory
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

PY=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); m = d["memory"]; g = m["devices"][0] if m["devices"] else {}
st = g.get("steps", [{}, {}])
A = 1395818240
checks = [
    ("devices", len(m["devices"]), 1), ("device", g.get("device"), 0), ("events", g.get("events"), 5),
    ("other events", m["other_events"], 1), ("has_totals", g.get("has_totals"), True),
    ("has_reserved", g.get("has_reserved"), True),
    ("peak allocated", g.get("peak_allocated_bytes"), 1000000000 + A),
    ("peak reserved", g.get("peak_reserved_bytes"), 3000000000),
    ("reserved unused", g.get("reserved_unused_bytes"), 604181760),
    ("total", g.get("total_bytes"), 34084028416), ("total source", g.get("total_source"), "deviceProperties"),
    ("headroom", g.get("headroom_bytes"), 31084028416), ("headroom share", g.get("headroom_share"), 0.9119822),
    ("persistent", g.get("persistent_bytes"), 1000000000), ("transient", g.get("transient_bytes"), A),
    ("fits", g.get("activation_fits"), 21.26038),
    ("steps", [s.get("step") for s in st], [1, 2]),
    ("step peaks", [s.get("peak_allocated_bytes") for s in st], [1000000000 + A] * 2),
    ("step lows", [s.get("low_allocated_bytes") for s in st], [1000000000] * 2),
    ("step reserved", [s.get("peak_reserved_bytes") for s in st], [3000000000] * 2),
    ("step allocated", [s.get("allocated_bytes") for s in st], [A] * 2),  # one +A per step
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-6)
EOF
)
rc=0
check_both_readers "$GD_TEST_DATA/ok_memory_headroom.json" "$PY" || rc=1
"$GPUDIAG" analyze --no-color "$GD_TEST_DATA/ok_memory_headroom.json" > "$TMP/h.txt"
grep -q '^MEMORY   GPU 0: peak allocated 2.23 GiB, reserved 2.79 GiB of 31.74 GiB (headroom 91.2%)$' "$TMP/h.txt" \
    && ok || nok "memory line: $(grep -A1 MEMORY "$TMP/h.txt" || true)"
grep -q '^         activations: a step rises 1.30 GiB above its low, beside 953.7 MiB held across steps: would fit 21.3x$' "$TMP/h.txt" \
    && ok || nok "activations line"

PYF=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); f = {x["id"]: x for x in d["findings"]}
h = f.get("memory_headroom_idle", {}); e = h.get("evidence", {})
checks = [("fires", "memory_headroom_idle" in f, True), ("gain", h.get("est_gain"), 0.375),
          ("severity", h.get("severity"), "high"), ("multiple", e.get("batch_multiple"), 4),
          ("fixed idle", e.get("fixed_idle_share"), 0.5), ("fits", e.get("activation_fits"), 21.26038),
          ("reserved", e.get("peak_reserved_bytes"), 3000000000), ("no churn", "allocator_churn" in f, False)]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-5)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_memory_headroom.json" "$PYF" || rc=1
# the advice follows the kind of run (DEFINITIONS "Memory headroom while the GPU idles"):
#   ok_memory_headroom.json runs forward only (no backward node, no Optimizer.step#: inference):
#   a larger batch or more concurrent requests, no gradient accumulation, no learning rate;
#   a copy with a backward node [s+950,s+970) and Optimizer.step#SGD.step [s+975,s+995) in each step
#   (both under the step's last kernel [s+950,s+1000), so no gap changes: est_gain stays 0.375) is
#   training: raise the micro-batch before gradient accumulation, scale the learning rate.
python3 - "$GD_TEST_DATA/ok_memory_headroom.json" "$TMP/train.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in [e["ts"] for e in d["traceEvents"] if e["name"].startswith("ProfilerStep#")]:
    d["traceEvents"] += [
        {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MmBackward0", "pid": 1, "tid": 1,
         "ts": s + 950, "dur": 20},
        {"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#SGD.step", "pid": 1, "tid": 1, "ts": s + 975,
         "dur": 20}]
json.dump(d, open(sys.argv[2], "w"))
PY
for kind in infer train; do
    f="$GD_TEST_DATA/ok_memory_headroom.json"; [ "$kind" = train ] && f="$TMP/train.json"
    "$GPUDIAG" analyze --json "$f" > "$TMP/$kind.out"
done
python3 - "$TMP/infer.out" "$TMP/train.out" <<'PY' && ok || nok "memory_headroom_idle advice: inference vs training"
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
inf, tr = ({x["id"]: x for x in json.load(open(p))["findings"]}.get("memory_headroom_idle", {}) for p in sys.argv[1:3])
ri, rt = inf.get("recommendation", ""), tr.get("recommendation", "")
valcheck.run([
    ("infer gain", inf.get("est_gain"), 0.375), ("train gain", tr.get("est_gain"), 0.375),
    ("infer: batch", "a larger batch (up to 4x here), or more concurrent requests" in ri, True),
    ("infer: per sample", "cut the time per sample by ~38%" in ri, True),
    ("infer: no accumulation", "accumulation" in ri, False), ("infer: no learning rate", "learning rate" in ri, False),
    ("infer title: no optimizer", "on launches and syncs:" in inf.get("title", ""), True),
    ("train: micro-batch", "raise the micro-batch (up to 4x here) before adding gradient accumulation" in rt, True),
    ("train: learning rate", "Scale the learning rate" in rt, True),
], "headroom advice", 1e-6)
PY
PYC=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); f = {x["id"]: x for x in d["findings"]}
c = f.get("allocator_churn", {}); e = c.get("evidence", {}); a = d["memory"]["allocator"]
checks = [("fires", "allocator_churn" in f, True), ("gain", c.get("est_gain"), 0.2),
          ("severity", c.get("severity"), "high"), ("malloc/step", e.get("malloc_calls_per_step"), 1.0),
          ("free/step", e.get("free_calls_per_step"), 0.5), ("empty_cache", e.get("empty_cache_calls"), 1),
          ("allocator", [a["steps"], a["malloc_calls"], a["free_calls"], a["time_us"], a["step_time_us"],
                         a["empty_cache_calls"]], [2, 2, 1, 400, 2000, 1]),
          ("no headroom", "memory_headroom_idle" in f, False)]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-6)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_allocator_churn.json" "$PYC" || rc=1

# the HTML timeline: a memory row under GPU 0's idle row, on the same bins (its area's title names
# the peak and the total), the reserved level as a line; the page passes the HTML checker
"$GPUDIAG" analyze -q --html "$TMP/h.html" "$GD_TEST_DATA/ok_memory_headroom.json" > /dev/null
grep -q '<path class="mem" d="M[^"]*"><title>GPU 0 allocated: peak 2.23 GiB of 31.74 GiB</title></path>' "$TMP/h.html" \
    && ok || nok "HTML memory area"
grep -q '<path class="memres" d="M[^"]*"><title>GPU 0 reserved: peak 2.79 GiB</title></path>' "$TMP/h.html" \
    && ok || nok "HTML reserved line"
python3 "$HERE/htmlcheck.py" "$TMP/h.html" > /dev/null && ok || nok "HTML checker"

T=${GD_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}/data/traces
if [ -d "$T" ]; then
    # per-step allocated_bytes: the [memory] Bytes > 0 of GPU 0 summed in Python over each report
    # step's [start_us, end_us) (nw0: 9.89 GiB every step against its 2.60 GiB rise; nw4's steps
    # reach to their GPU work, so one 19267584-byte block falls in step 6 rather than 7)
    A0="[10614918656] * 6"; A4="[10441475584, 10460743168, 10422208000, 10441475584, 10441475584, 10441475584]"
    for c in "0 8220 2791636480 4618 A0" "4 8280 2791505408 2700 A4"; do
        set -- $c
        f="$T/resnet50_v100_num_workers_$1.pt.trace.json.gz"
        eval "ALLOC=\$$5"
        PYR=$(cat <<EOF
import json, os, sys
d = json.load(open(sys.argv[1])); m = d["memory"]; g = m["devices"][0] if m["devices"] else {}
checks = [("devices", len(m["devices"]), 1), ("events", g.get("events"), $2),
          ("peak (lower bound)", g.get("peak_allocated_bytes"), $3), ("has_totals", g.get("has_totals"), False),
          ("reserved", g.get("peak_reserved_bytes"), None), ("headroom", g.get("headroom_bytes"), None),
          ("fits", g.get("activation_fits"), None), ("other events", m["other_events"], $4),
          ("no headroom finding", [x["id"] for x in d["findings"] if x["id"] == "memory_headroom_idle"], []),
          ("step allocated", [s.get("allocated_bytes") for s in g.get("steps", [])], $ALLOC)]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 0)
EOF
)
        check_both_readers "$f" "$PYR" || rc=1
        "$GPUDIAG" analyze --no-color "$f" > "$TMP/r.txt"
        grep -q '^MEMORY   GPU 0: peak allocated >= 2.60 GiB of 31.74 GiB$' "$TMP/r.txt" && ok || nok "resnet nw$1 memory line"
        grep -q 'only allocation deltas (PyTorch < 1.10): counted from 0 at the first event, a lower bound' \
            "$TMP/r.txt" && ok || nok "resnet nw$1 lower-bound note"
    done
    # the hand-edited copy: memory halved, totals added (see the header)
    python3 - "$T/resnet50_v100_num_workers_4.pt.trace.json.gz" "$TMP/nw4_halved.json" <<'EOF'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
mem = sorted((e for e in d["traceEvents"] if e.get("name") == "[memory]" and e["args"].get("Device Type") == 1),
             key=lambda e: e["ts"])
run = 0
for i, e in enumerate(mem):
    assert e["args"]["Bytes"] % 2 == 0
    e["args"]["Bytes"] //= 2
    run += e["args"]["Bytes"]
    e["args"].update({"Total Allocated": 1000000000 + run, "Total Reserved": 4000000000, "Addr": i + 1})
json.dump(d, open(sys.argv[2], "w"))
EOF
    PYH=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); f = {x["id"]: x for x in d["findings"]}
g = d["memory"]["devices"][0]; h = f.get("memory_headroom_idle", {}); e = h.get("evidence", {})
ic = d["idle"]["by_cause_us"]
# a share of the steady-state step: the mean step less its start-up (one device; DEFINITIONS
# "Start-up in the window"; nw4's first step holds 45 ms of it)
steady = d["summary"]["step_time_us"]["mean"] - (ic["startup"] + ic["compilation"]) / len(d["steps"])
fixed = (ic["host_launch"] + ic["optimizer"] + ic["sync"]) / len(d["steps"]) / steady
checks = [("has_totals", g["has_totals"], True), ("peak", g["peak_allocated_bytes"], 2395752704),
          ("reserved", g["peak_reserved_bytes"], 4000000000), ("headroom", g["headroom_bytes"], 30084028416),
          ("fires", "memory_headroom_idle" in f, True), ("multiple", e.get("batch_multiple"), 4),
          ("fixed idle", e.get("fixed_idle_share"), fixed), ("gain", h.get("est_gain"), 0.75 * fixed),
          ("fits >= 2", (e.get("activation_fits") or 0) >= 2, True)]
print("  nw4 halved: fixed idle share %.4f, fits %.2f, gain %.4f" % (fixed, e.get("activation_fits") or 0,
      h.get("est_gain") or 0))
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-5)
EOF
)
    check_both_readers "$TMP/nw4_halved.json" "$PYH" || rc=1
    # TBP's Memory-view peak (the oracle, tests/oracle/tbp_oracle.py memory_view) on the edited copy
    # and on ok_memory_headroom.json (both PyTorch >= 1.10 shaped) equals gpudiag's peak allocated
    for f in "$TMP/nw4_halved.json" "$GD_TEST_DATA/ok_memory_headroom.json"; do
        "$GPUDIAG" analyze --json "$f" > "$TMP/o.json"
        python3 - "$f" "$TMP/o.json" "$HERE/../oracle" <<'EOF' && ok || nok "TBP peak on $f"
import json, sys
sys.path.insert(0, sys.argv[3])
import tbp_oracle
doc = json.load(open(sys.argv[1]))
v = tbp_oracle.memory_view(doc)["GPU0"]
g = json.load(open(sys.argv[2]))["memory"]["devices"][0]
assert v["tbp_curve_points"] == g["events"], (v, g["events"])
assert v["tbp_peak_bytes"] == g["peak_allocated_bytes"], (v, g["peak_allocated_bytes"])
EOF
    done
else
    echo "shared traces not found: resnet checks skipped"
fi
[ "$rc" -eq 0 ] && ok || nok "JSON checks"
finish
