#!/bin/sh
# test_devices.sh — devices gpudiag does not analyse, GPUs without deviceProperties and
# old/CPU-only traces (issue 19, classes 7-9; docs/DEFINITIONS.md "Time and events").
# Expected values derived by hand from the inputs:
#
# tests/data/ok_mtia_unanalysed.json (hand-made after the shape of HTA's MTIA test trace):
#   ProfilerStep#1 [1000,2000] and #2 [2000,3000] (user_annotation); per step one cpu_op
#   [+100,+400] enclosing one mtia_runtime call [+200,+300].
#   mtia_ccp_events: 2 ops with correlation+stream, 2 dma_request (no correlation: the category
#   is a device category because its other events carry correlation) -> 4 events.
#   "overhead" [1800,1820] has no args: not device activity. "cuda_sync" carries correlation but
#   is CUDA's own sync record: not counted.  -> unanalysed_device_events = [{mtia_ccp_events, 4}].
#   No GPU op: finding input_unanalysed_device_events (medium, device_events_not_analysed 4),
#   never cpu_only_trace; verdict names the accelerator, "(2 host steps)".
#   Breakdown per step: runtime 100, cpu_exec 300 - 100 = 200, other 700 (of 1000).
#
# tests/data/ok_two_steps.json + one "hpu_op" event with args.correlation (made here): a GPU
#   trace with some other device's events: the same report as without it, plus the finding
#   input_unanalysed_device_events at low severity with device_events_not_analysed 1.
#
# tests/data/ok_torch113_legacy.pt.trace.json.gz (recorded with Debian's python3-torch 1.13,
#   CPU only, legacy export: a bare array of 390 "X" events without "cat", pid "CPU functions"):
#   ProfilerStep#1 ts 176 dur 547, #2 ts 737 dur 367, #3 ts 1115 dur 420 (read off the file)
#   -> 3 steps numbered 1..3, mean (547+367+420)/3 = 444.667, median 420, min 367, max 547;
#   inputs[].legacy_profiler true; no GPU: cpu_only_trace titled "legacy autograd profiler";
#   cpu_exec of each step = union of the other ops inside it (computed below independently).
#
# tests/data/ok_no_devprops.json = tests/data/ok_old_format.json (PyTorch 1.8/1.9 layout) without
#   deviceProperties, its last volta_sgemm_128x64_nn renamed ampere_sgemm_128x64_nn. Kernel tags:
#   volta_scudnn (7.0), volta_sgemm (7.0), ampere_sgemm (8.0): 3 of 3 kernels tagged, the highest 8.0
#   -> devices[0].compute_capability "8.0", arch_inferred true, name null; input_gpu_inferred
#   (compute_capability 8.0, tagged_kernels 3, kernels 3). Every kernel keeps its class (both
#   sgemm are GEMMs), so no_tensor_cores fires with the same est. gain as on ok_old_format.json's
#   described V100 (the rule only needs Tensor Cores to exist), evidence compute_capability_major 8,
#   and the bf16/TF32 advice of an Ampere; steps, breakdown and idle are those of ok_old_format.
#   The same with the tags removed from the names (made here: sgemm_128x64_nn, scudnn_...): nothing
#   to infer -> compute_capability null, no input_gpu_inferred and no no_tensor_cores (unknown GPU).
#   With --gpu H100 the table row's capability (9.0) replaces the inferred one: "9.0",
#   arch_inferred false, no input_gpu_inferred, no_tensor_cores still there.
#
# A Chrome trace from another tool with no "cat" at all (shape of a kernel profiler's documented
#   gpu_trace.json: [{"name": "volta_sgemm_128x64_nn", "ph": "X", "pid": 1, "tid": 7, ...}] x2):
#   no recognised GPU op but 2 uncategorised events -> exit 0, cpu_only_trace with evidence
#   uncategorised_events 2, a verdict that GPU work may be among them, no model.to('cuda') advice.
#
# tests/data/ok_cpu_only.json (no GPU op; DataLoader 30 + 10 us over steps of 100, 80, 50 us,
#   test_synthetic.sh derives them): dataloader_stall share 40/230 = 0.173913, and its title says
#   it is host time in the step ("The DataLoader takes 17.4%"), never "The GPU waits".
#
# tests/data/ok_legacy_cuda.json (hand-made in the layout of the legacy export with CUDA kernels,
#   PyTorch <= 1.7 use_cuda=True): CPU functions aten::mm [100,160], aten::add [250,300]; CUDA
#   functions (device = tid 0) volta_sgemm [170,270], an elementwise kernel [280,290]; s/f
#   cpu_to_cuda arrows. No steps: the window is the CPU ops' span [100,300] = 200 us.
#   kernel 100 + 10 = 110 -> utilization 0.55; cpu_exec = (60 + 50) - 30 under kernels = 80;
#   other = [160,170] = 10. Device 0 has no properties: volta_ tags 1 of 2 kernels -> 7.0 inferred.
#   legacy_profiler true; GPU ops exist, so no cpu_only_trace.
#   The same without its "CUDA functions" events (made here; what PyTorch 1.13's legacy profiler
#   writes for CUDA work: launch arrows, no kernels): no GPU op, 2 cpu_to_cuda launch arrows ->
#   cpu_only_trace with legacy_kernel_launches 2, its title "marks 2 kernel launch(es)".
#
# An nvtop -s snapshot (a JSON array of objects with no "ph"; shape from Syllo/nvtop#431):
#   not a trace, exit 3, the message names the file, byte 0 and the missing "ph".
set -u
GD_TMP_TAG=devices
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
export GD_TEST_DATA

FAIL=0
fail() { echo "FAIL $*"; FAIL=$((FAIL + 1)); }

# --- class 7: MTIA ---------------------------------------------------------------
check_both_readers "$GD_TEST_DATA/ok_mtia_unanalysed.json" '
import json, sys
d = json.load(open(sys.argv[1])); m = sys.argv[2]; bad = []
inp = d["inputs"][0]
if inp["unanalysed_device_events"] != [{"category": "mtia_ccp_events", "events": 4}]:
    bad.append("unanalysed %r" % inp["unanalysed_device_events"])
if inp["legacy_profiler"] is not False: bad.append("legacy_profiler")
ids = [f["id"] for f in d["findings"]]
if "cpu_only_trace" in ids: bad.append("cpu_only_trace present")
f = [f for f in d["findings"] if f["id"] == "input_unanalysed_device_events"]
if len(f) != 1: bad.append("finding missing: %r" % ids)
else:
    f = f[0]
    if f["severity"] != "medium": bad.append("severity %s" % f["severity"])
    if f["evidence"]["device_events_not_analysed"] != 4: bad.append("evidence %r" % f["evidence"])
v = d["verdict"]["summary"]
if "accelerator gpudiag does not analyse" not in v or "(2 host steps)" not in v or "model.to" in v:
    bad.append("verdict %r" % v)
if d["summary"]["steps"] != 2: bad.append("steps %r" % d["summary"]["steps"])
b = d["breakdown"]["avg_us"] if "avg_us" in d["breakdown"] else d["breakdown"]
for k, want in (("runtime", 100), ("cpu_exec", 200), ("other", 700)):
    got = b.get(k) if isinstance(b, dict) else None
    if got is None or abs(got - want) > 1e-6: bad.append("breakdown %s %r != %r" % (k, got, want))
for x in bad: print("FAIL [mtia %s] %s" % (m, x))
sys.exit(1 if bad else 0)
' || FAIL=$((FAIL + 1))

# --- class 7: other device events beside real GPU work ---------------------------------
python3 - "$GD_TEST_DATA/ok_two_steps.json" "$TMP/hpu.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
t0 = min(e["ts"] for e in ev if "ts" in e)
ev.append({"ph": "X", "cat": "hpu_op", "name": "matmul_fwd", "pid": 77, "tid": 1, "ts": t0 + 1, "dur": 5,
           "args": {"correlation": 999999}})
json.dump(d, open(sys.argv[2], "w"))
EOF
"$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_two_steps.json" >"$TMP/base.json" || fail "ok_two_steps exit $?"
"$GPUDIAG" analyze --json "$TMP/hpu.json" >"$TMP/hpu_report.json" || fail "hpu exit $?"
python3 - "$TMP/base.json" "$TMP/hpu_report.json" <<'EOF' || FAIL=$((FAIL + 1))
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2])); bad = []
if b["inputs"][0]["unanalysed_device_events"] != [{"category": "hpu_op", "events": 1}]:
    bad.append("unanalysed %r" % b["inputs"][0]["unanalysed_device_events"])
f = [f for f in b["findings"] if f["id"] == "input_unanalysed_device_events"]
if len(f) != 1 or f[0]["severity"] != "low" or f[0]["evidence"]["device_events_not_analysed"] != 1:
    bad.append("finding %r" % f)
if a["verdict"] != b["verdict"]: bad.append("verdict moved: %r -> %r" % (a["verdict"], b["verdict"]))
for k in ("summary", "steps", "breakdown", "idle", "devices"):
    if a[k] != b[k]: bad.append("%s moved" % k)
rest = [f for f in b["findings"] if f["id"] != "input_unanalysed_device_events"]
if rest != a["findings"]: bad.append("other findings moved")
for x in bad: print("FAIL [hpu beside GPU] " + x)
sys.exit(1 if bad else 0)
EOF

# --- class 7: an nvtop snapshot is not a trace -----------------------------------------
cat >"$TMP/nvtop.json" <<'EOF'
[
  {
   "device_name": "NVIDIA GeForce RTX 3090",
   "gpu_clock": "1695MHz",
   "mem_clock": "9751MHz",
   "temp": "63C",
   "fan_speed": "48%",
   "power_draw": "301W",
   "gpu_util": "97%",
   "mem_util": "41%"
  }
]
EOF
for nosj in "" 1; do
    GPUDIAG_NO_SIMDJSON=$nosj "$GPUDIAG" analyze "$TMP/nvtop.json" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ $rc -eq 3 ] || fail "nvtop snapshot [nosj=$nosj]: exit $rc, want 3"
    grep -q "$TMP/nvtop.json: byte 0: not a trace" "$TMP/err" || fail "nvtop message: $(cat "$TMP/err")"
    grep -q '"ph"' "$TMP/err" || fail "nvtop message does not name ph: $(cat "$TMP/err")"
    [ -s "$TMP/out" ] && fail "nvtop: output on stdout"
done

# --- class 8: no deviceProperties ------------------------------------------------------
"$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_old_format.json" >"$TMP/described.json" || fail "ok_old_format exit $?"
sed -e 's/volta_scudnn_128x64/scudnn_128x64/' -e 's/"volta_sgemm_128x64_nn"/"sgemm_128x64_nn"/' \
    -e 's/"ampere_sgemm_128x64_nn"/"sgemm_128x64_nn"/' "$GD_TEST_DATA/ok_no_devprops.json" >"$TMP/untagged.json"
for nosj in "" 1; do
    GPUDIAG_NO_SIMDJSON=$nosj "$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_no_devprops.json" >"$TMP/inferred.json" ||
        fail "ok_no_devprops exit $?"
    GPUDIAG_NO_SIMDJSON=$nosj "$GPUDIAG" analyze --json "$TMP/untagged.json" >"$TMP/untagged_r.json" ||
        fail "untagged exit $?"
    python3 - "$TMP/described.json" "$TMP/inferred.json" "$TMP/untagged_r.json" "nosj=$nosj" <<'EOF' || FAIL=$((FAIL + 1))
import json, sys
a, b, u = (json.load(open(x)) for x in sys.argv[1:4]); tag = sys.argv[4]; bad = []
d = b["devices"][0]
if (d["compute_capability"], d["arch_inferred"], d["name"]) != ("8.0", True, None): bad.append("device %r" % d)
if a["devices"][0]["arch_inferred"] is not False: bad.append("described device marked inferred")
f = {x["id"]: x for x in b["findings"]}
g = f.get("input_gpu_inferred")
want = {"device": 0, "compute_capability": 8.0, "tagged_kernels": 3, "kernels": 3, "devices_inferred": 1}
if not g or any(abs(g["evidence"].get(k, -1) - v) > 1e-9 for k, v in want.items()): bad.append("input_gpu_inferred %r" % g)
elif "Ampere (compute capability 8.0) or later" not in g["title"]: bad.append("title %r" % g["title"])
tc_a = [x for x in a["findings"] if x["id"] == "no_tensor_cores"][0]
tc_b = f.get("no_tensor_cores")
if not tc_b: bad.append("no_tensor_cores missing")
else:
    if abs(tc_b["est_gain"] - tc_a["est_gain"]) > 1e-9: bad.append("gain %r != %r" % (tc_b["est_gain"], tc_a["est_gain"]))
    if tc_b["evidence"]["compute_capability_major"] != 8: bad.append("major %r" % tc_b["evidence"])
    if "bfloat16" not in tc_b["recommendation"]: bad.append("advice %r" % tc_b["recommendation"])
for k in ("steps", "breakdown", "idle"):
    if a[k] != b[k]: bad.append("%s differs from the described trace" % k)
du = u["devices"][0]
if (du["compute_capability"], du["arch_inferred"]) != (None, False): bad.append("untagged device %r" % du)
ids = [x["id"] for x in u["findings"]]
if "input_gpu_inferred" in ids or "no_tensor_cores" in ids: bad.append("untagged findings %r" % ids)
for x in bad: print("FAIL [no deviceProperties %s] %s" % (tag, x))
sys.exit(1 if bad else 0)
EOF
done

# --- class 7: a Chrome trace without categories ---------------------------------------
cat >"$TMP/nocat.json" <<'EOF'
[
  {"name": "volta_sgemm_128x64_nn", "ph": "X", "ts": 123456.789, "dur": 45.123, "pid": 1, "tid": 7, "args": {"correlationId": 42}},
  {"name": "volta_sgemm_128x64_nn", "ph": "X", "ts": 123556.789, "dur": 45.123, "pid": 1, "tid": 7, "args": {"correlationId": 43}}
]
EOF
check_both_readers "$TMP/nocat.json" '
import json, sys
d = json.load(open(sys.argv[1])); bad = []
f = [f for f in d["findings"] if f["id"] == "cpu_only_trace"]
if len(f) != 1 or f[0]["evidence"].get("uncategorised_events") != 2 or "model.to" in f[0]["recommendation"]:
    bad.append("cpu_only_trace %r" % f)
v = d["verdict"]["summary"]
if "may be among them" not in v or "2 events carry no category" not in v: bad.append("verdict %r" % v)
if d["inputs"][0]["legacy_profiler"]: bad.append("read as legacy")
for x in bad: print("FAIL [no cat %s] %s" % (sys.argv[2], x))
sys.exit(1 if bad else 0)
' || FAIL=$((FAIL + 1))

# --- class 9: a CPU-only trace's DataLoader share is not GPU waiting ---------------------
"$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_cpu_only.json" >"$TMP/cpu.json" || fail "ok_cpu_only exit $?"
python3 - "$TMP/cpu.json" <<'EOF' || FAIL=$((FAIL + 1))
import json, sys
d = json.load(open(sys.argv[1])); bad = []
f = [f for f in d["findings"] if f["id"] == "dataloader_stall"]
if len(f) != 1 or abs(f[0]["est_gain"] - 40 / 230) > 1e-6: bad.append("dataloader_stall %r" % f)
elif "GPU waits" in f[0]["title"] or not f[0]["title"].startswith("The DataLoader takes 17.4% of each step"):
    bad.append("title %r" % f[0]["title"])
for x in bad: print("FAIL [cpu-only dataloader] " + x)
sys.exit(1 if bad else 0)
EOF

"$GPUDIAG" analyze --gpu H100 --json "$GD_TEST_DATA/ok_no_devprops.json" >"$TMP/forced.json" || fail "--gpu H100 exit $?"
python3 - "$TMP/forced.json" <<'EOF' || FAIL=$((FAIL + 1))
import json, sys
d = json.load(open(sys.argv[1])); bad = []
dv = d["devices"][0]
if (dv["compute_capability"], dv["arch_inferred"]) != ("9.0", False): bad.append("device %r" % dv)
ids = [f["id"] for f in d["findings"]]
if "input_gpu_inferred" in ids or "no_tensor_cores" not in ids: bad.append("findings %r" % ids)
for x in bad: print("FAIL [--gpu H100] " + x)
sys.exit(1 if bad else 0)
EOF

# --- class 9: the legacy export with CUDA kernels -------------------------------------
check_both_readers "$GD_TEST_DATA/ok_legacy_cuda.json" '
import json, sys
d = json.load(open(sys.argv[1])); bad = []
if d["inputs"][0]["legacy_profiler"] is not True: bad.append("legacy_profiler")
dv = d["devices"]
if len(dv) != 1 or (dv[0]["id"], dv[0]["compute_capability"], dv[0]["arch_inferred"], dv[0]["kernel_count"]) != (0, "7.0", True, 2):
    bad.append("devices %r" % dv)
elif abs(dv[0]["kernel_time_us"] - 110) > 1e-9: bad.append("kernel time %r" % dv[0]["kernel_time_us"])
if abs(d["summary"]["gpu_utilization"] - 0.55) > 1e-9: bad.append("util %r" % d["summary"]["gpu_utilization"])
b = d["breakdown"]["avg_us"]
for k, want in (("kernel", 110), ("cpu_exec", 80), ("other", 10)):
    if abs(b[k] - want) > 1e-9: bad.append("breakdown %s %r" % (k, b[k]))
ids = [f["id"] for f in d["findings"]]
if "cpu_only_trace" in ids or "input_gpu_inferred" not in ids: bad.append("findings %r" % ids)
g = [f for f in d["findings"] if f["id"] == "input_gpu_inferred"]
if g and (g[0]["evidence"]["tagged_kernels"], g[0]["evidence"]["kernels"]) != (1, 2): bad.append("evidence %r" % g[0]["evidence"])
for x in bad: print("FAIL [legacy cuda %s] %s" % (sys.argv[2], x))
sys.exit(1 if bad else 0)
' || FAIL=$((FAIL + 1))

python3 - "$GD_TEST_DATA/ok_legacy_cuda.json" "$TMP/legacy_arrows.json" <<'EOF'
import json, sys
ev = [e for e in json.load(open(sys.argv[1])) if e["pid"] != "CUDA functions"]
json.dump(ev, open(sys.argv[2], "w"))
EOF
"$GPUDIAG" analyze --json "$TMP/legacy_arrows.json" >"$TMP/arrows.json" || fail "legacy arrows exit $?"
python3 - "$TMP/arrows.json" <<'EOF' || FAIL=$((FAIL + 1))
import json, sys
d = json.load(open(sys.argv[1])); bad = []
f = [f for f in d["findings"] if f["id"] == "cpu_only_trace"]
if len(f) != 1 or f[0]["evidence"].get("legacy_kernel_launches") != 2 or "marks 2 kernel launch(es)" not in f[0]["title"]:
    bad.append("cpu_only_trace %r" % f)
if d["devices"]: bad.append("devices %r" % d["devices"])
for x in bad: print("FAIL [legacy arrows] " + x)
sys.exit(1 if bad else 0)
EOF

# --- class 9: PyTorch 1.13 legacy export -----------------------------------------------
check_both_readers "$GD_TEST_DATA/ok_torch113_legacy.pt.trace.json.gz" '
import json, sys, gzip, os
d = json.load(open(sys.argv[1])); m = sys.argv[2]; bad = []
src = json.load(gzip.open(os.environ["GD_TEST_DATA"] + "/ok_torch113_legacy.pt.trace.json.gz"))
st = [(s["number"], s["duration_us"]) for s in d["steps"]]
if st != [(1, 547), (2, 367), (3, 420)]: bad.append("steps %r" % st)
s = d["summary"]["step_time_us"]
for k, want in (("mean", 444.667), ("median", 420), ("min", 367), ("max", 547)):
    if abs(s[k] - want) > 1e-3: bad.append("step %s %r" % (k, s[k]))
if d["inputs"][0]["legacy_profiler"] is not True: bad.append("legacy_profiler")
f = [f for f in d["findings"] if f["id"] == "cpu_only_trace"]
if len(f) != 1 or "legacy autograd profiler" not in f[0]["title"]: bad.append("cpu_only_trace %r" % f)
if "(3 host steps)" not in d["verdict"]["summary"]: bad.append("verdict %r" % d["verdict"]["summary"])
# cpu_exec per step: union of the non-step ops clipped to the step (independent of gpudiag)
for step in d["steps"]:
    a, b = step["start_us"], step["end_us"]
    iv = sorted((max(a, e["ts"]), min(b, e["ts"] + e["dur"])) for e in src
                if not e["name"].startswith("ProfilerStep#") and e["ts"] < b and e["ts"] + e["dur"] > a)
    tot, cur = 0, None
    for x, y in iv:
        if y <= x: continue
        if cur is None or x > cur[1]:
            if cur: tot += cur[1] - cur[0]
            cur = [x, y]
        else: cur[1] = max(cur[1], y)
    if cur: tot += cur[1] - cur[0]
    if abs(step["breakdown_us"]["cpu_exec"] - tot) > 1e-6:
        bad.append("step %s cpu_exec %r != %r" % (step["number"], step["breakdown_us"]["cpu_exec"], tot))
for x in bad: print("FAIL [legacy %s] %s" % (m, x))
sys.exit(1 if bad else 0)
' || FAIL=$((FAIL + 1))

# which part (DEFINITIONS "GPU table"): warn_overrun_rocm.json names "AMD Instinct MI250X" but has
# 104 CUs and 68702699520 B = 63.98 GiB: not the MI250X row (the 220-CU, 128 GB package: 383 TFLOP/s
# bf16), but one GCD of an MI250 (104 CUs, 64 GB: 181.05, 1638.4 GB/s); the MI210 (104 CUs, 64 GB,
# 181 / 1638.4) fits too, its peaks within 0.5 % -> not peaks_differ.
"$GPUDIAG" analyze --json "$GD_TEST_DATA/warn_overrun_rocm.json" > "$TMP/rocm.json" 2>/dev/null
python3 -c '
import json, sys
sp = json.load(open(sys.argv[1]))["devices"][0]["spec"]
want = {"name": "AMD Instinct MI250X/MI250", "match": "hardware", "peak_tflops": 181.05, "mem_bw_gbs": 1638.4,
        "part": "AMD Instinct MI250, one GCD", "also_fits": ["AMD Instinct MI210"], "peaks_differ": False}
bad = ["%s %r != %r" % (k, sp.get(k), v) for k, v in want.items() if sp.get(k) != v]
for x in bad: print("FAIL [rocm part] " + x)
sys.exit(1 if bad else 0)' "$TMP/rocm.json" || FAIL=$((FAIL + 1))
"$GPUDIAG" analyze --no-color "$GD_TEST_DATA/warn_overrun_rocm.json" 2>/dev/null |
    grep -q "taken as AMD Instinct MI250, one GCD: 181.1 TFLOP/s bf16 peak, 1638 GB/s.*(matched by CU count and memory; AMD Instinct MI210 has them too, with the same peaks)" ||
    { echo "FAIL [rocm part] text line"; FAIL=$((FAIL + 1)); }

if [ "$FAIL" -ne 0 ]; then
    echo "test_devices: $FAIL failed"
    exit 1
fi
echo "test_devices: all passed"
