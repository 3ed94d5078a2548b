#!/bin/sh
# test_memsave.sh — what memory savings cost, measured from a trace (issue 21;
# docs/DEFINITIONS.md "Memory savings and what they cost").
#
# Recompute, on tests/data/ok_recompute.json (by hand): two 1000 us steps.
#   step 1: reentrant checkpointing. evaluate_function: CheckpointFunctionBackward [1400,1900] and
#     CheckpointFunctionBackward [1401,1899] end at the first backward node inside them,
#     AddmmBackward0 at 1500 -> windows [1400,1500), [1401,1500) (rule b, 2 windows).
#     aten::linear [1410,1440] inside a backward node (rule c, 1 window); its launch at 1415 ->
#     the 200 us GEMM [1450,1650] is recompute; the AddmmBackward0 GEMM (launch 1510, 300 us) is not;
#     the forward GEMM (launch 1020, 200 us) is not.
#   step 2: non-reentrant. recompute_fn [2410,2470] (rule a, 1 window), aten::linear [2420,2460]
#     inside MmBackward0 [2400,2950] (rule c, 1 window): launch 2425 -> 100 us kernel;
#     aten::layer_norm [2910,2940] inside MmBackward0 (rule c, 1 window): launch 2915 -> 40 us
#     kernel; aten::mm's 300 us GEMM (launch 2500) is backward, the forward GEMM (200 us) is not.
#   windows 2+1+1+1+1 = 6, recompute kernels 3, recompute 200+100+40 = 340 us, kernels in the
#   steps 700 + 640 = 1340 us: share of kernel time 340/1340 = 0.253731, per step 170 us,
#   share of step 170/1000 = 0.17 >= 0.10 -> recompute_cost, medium, est_gain 0.17.
#   HFU with a model: MFU x 1340 / (1340 - 340) = 1.34 x MFU; summary.hfu stays MFU (no --recompute).
. "$(dirname "$0")/common.sh"
IN="$GD_TEST_DATA/ok_recompute.json"

PY=$(cat <<'EOF2'
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
d = json.load(open(sys.argv[1])); rc = d["memory_savings"]["recompute"]
f = [x for x in d["findings"] if x["id"] == "recompute_cost"]
checks = [
    ("detected", rc["detected"], True), ("windows", rc["windows"], 6), ("kernels", rc["kernels"], 3),
    ("recompute_us", rc["recompute_us"], 340), ("kernel_us", rc["kernel_us"], 1340),
    ("per step", rc["recompute_us_per_step"], 170), ("share of kernel time", rc["share_of_kernel_time"], 340 / 1340),
    ("share of step", rc["share_of_step"], 0.17), ("hfu without a model", rc["hfu"], None),
    ("finding", len(f), 1), ("est_gain", f[0]["est_gain"] if f else None, 0.17),
    ("severity", f[0]["severity"] if f else None, "medium"),
    ("evidence per step", f[0]["evidence"]["recompute_us_per_step"] if f else None, 170),
]
valcheck.run(checks, sys.argv[2], 1e-05)
EOF2
)
check_both_readers "$IN" "$PY" && ok || nok "recompute on ok_recompute.json"

expect_rc 0 "$GPUDIAG" analyze --json --model llama3-8b --tokens-per-step 100 "$IN"
cp "$TMP/out" "$TMP/mfu.json"
python3 - "$TMP/mfu.json" <<'PY' || nok "recompute hfu = 1.34 x mfu"
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
d = json.load(open(sys.argv[1])); s = d["summary"]; rc = d["memory_savings"]["recompute"]
valcheck.run([("hfu / mfu", rc["hfu"] / s["mfu"], 1.34), ("summary.hfu", s["hfu"], s["mfu"])], "mfu", 1e-05)
PY

# the text report says it; a trace without checkpointing says nothing
"$GPUDIAG" analyze "$IN" > "$TMP/out.txt"
grep -q 'RECOMPUTE  activation checkpointing: 170 us of kernels per step re-run the forward, 25.4% of kernel time, 17.0% of the step' "$TMP/out.txt" \
    && ok "recompute text line" || nok "recompute text line"
"$GPUDIAG" analyze "$GD_TEST_DATA/ok_two_steps.json" > "$TMP/none.txt"
grep -q RECOMPUTE "$TMP/none.txt" && nok "RECOMPUTE on a trace without checkpointing" || ok "no RECOMPUTE line without checkpointing"
# LoRA, on tests/data/ok_lora.json (by hand): two 1000 us steps on an A100, each with
#   aten::linear x[512,4096] W[4096,4096] bf16 (base, 100 us kernel: not an adapter),
#   aten::linear x[512,4096] W[16,4096]  -> K 4096, N 16: width -> r (A), rank 16, 5 us kernel,
#   aten::linear x[512,16]   W[4096,16]  -> K 16, N 4096: r -> width (B), rank 16, 5 us kernel,
#   aten::mm [8,32] x [32,32] fp32 (2 us, sides 32/32 < 1024: not an adapter).
#   A and B pair at rank 16 -> ops 4, per step 2, kernel 20 us, mean 5 us,
#   GEMM time (100+5+5+2) x 2 = 224 us -> share 20/224 = 0.0892857,
#   FLOPs 4 x 2*512*16*4096 = 268,435,456 -> 268435456 / 20e-6 s = 13.4217728 TFLOP/s.
#   Kernels 2,2,5,5,5,5,100,100: median 5 <= 10 us, launch delay 5 us, but the host_launch gaps
#   over 100 us (160, 295, 295, 138, 160, 295, 295, 108 of 1776 us) hold 0.98 of it: host work of
#   its own -> host_overhead (host_launch_bound until the 10th session, FINDINGS), and
#   the adapters' mean 5 <= 10 us -> lora_adapter_launches (medium, est_gain null).
PY=$(cat <<'EOF2'
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
d = json.load(open(sys.argv[1])); lo = d["memory_savings"]["lora"]
ids = [x["id"] for x in d["findings"]]
f = [x for x in d["findings"] if x["id"] == "lora_adapter_launches"]
checks = [
    ("detected", lo["detected"], True), ("shapes", lo["shapes_recorded"], True), ("ops", lo["ops"], 4),
    ("per step", lo["per_step"], 2), ("rank", lo["rank"], 16), ("kernel_us", lo["kernel_us"], 20),
    ("mean", lo["mean_kernel_us"], 5), ("share of gemm", lo["share_of_gemm_time"], 20 / 224),
    ("flops", lo["flops"], 268435456), ("tflops", lo["achieved_tflops"], 13.4217728),
    ("host_overhead", "host_overhead" in ids, True), ("finding", len(f), 1),
    ("severity", f[0]["severity"] if f else None, "medium"), ("est_gain", f[0]["est_gain"] if f else 0, None),
    ("evidence per step", f[0]["evidence"]["adapter_gemms_per_step"] if f else None, 2),
]
valcheck.run(checks, sys.argv[2], 1e-05)
EOF2
)
check_both_readers "$GD_TEST_DATA/ok_lora.json" "$PY" && ok || nok "lora on ok_lora.json"
# 4 GEMMs over 2 steps: 2 per step, whole, so no decimal (DEFINITIONS "Numbers in reports"; was "2.0")
"$GPUDIAG" analyze "$GD_TEST_DATA/ok_lora.json" > "$TMP/lora.txt"
grep -q 'LORA  rank 16 adapters: 4 GEMMs (2 per step), 5.0 us each, 8.9% of GEMM time, 13.42 TFLOP/s' "$TMP/lora.txt" \
    && ok || nok "lora text line"
# without the B projections the A ones (width -> 16) have no partner: a classifier head, not LoRA
python3 - "$GD_TEST_DATA/ok_lora.json" "$TMP/no_b.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
drop = {e["args"]["External id"] for e in d["traceEvents"]
        if e.get("cat") == "cpu_op" and e["args"].get("Input Dims", [[0]])[0] == [512, 16]}
d["traceEvents"] = [e for e in d["traceEvents"] if e.get("args", {}).get("External id") not in drop]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 0 "$GPUDIAG" analyze --json "$TMP/no_b.json"
python3 - "$TMP/out" <<'PY' || nok "unpaired adapter-shaped linear counted"
import json, sys
d = json.load(open(sys.argv[1])); lo = d["memory_savings"]["lora"]
ids = [x["id"] for x in d["findings"]]
sys.exit(0 if (lo["detected"], lo["ops"], "lora_adapter_launches" in ids) == (False, 0, False) else 1)
PY
# Gradient accumulation, on tests/data/ok_accum.json (by hand): two 1000 us steps, each 4 micro-steps
#   (aten::linear forward, then an AddmmBackward0 backward node [b+100,b+150], b = step + 200 i),
#   each launching a 4 us GEMM of 0.5 blocks per SM, then Optimizer.step#SGD.step with a 2 us kernel.
#   Backward spans 8, each pair split by the next micro-step's forward aten::linear -> 8 passes;
#   2 optimizer steps -> 4 micro-steps per optimizer step; kernels 2 x (8 + 1) = 18 -> 18/8 = 2.25 per
#   micro-step; mean (16 x 4 + 2 x 2) / 18 = 3.7778 us. host_overhead (its host_launch gaps of 106,
#   118 and 186 us over the 100 us bar hold 0.61 of the host_launch idle: host_launch_bound until the
#   10th session) and small_gemms carry micro_steps_per_optimizer_step 4 and the accumulation
#   sentence; no finding of its own.
PY=$(cat <<'EOF2'
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
d = json.load(open(sys.argv[1])); ac = d["memory_savings"]["accumulation"]
fs = {x["id"]: x for x in d["findings"]}
ev = lambda i: fs[i]["evidence"].get("micro_steps_per_optimizer_step") if i in fs else None
says = lambda i: i in fs and "accumulates gradients over 4 micro-steps" in fs[i]["recommendation"]
checks = [
    ("passes", ac["backward_passes"], 8), ("optimizer steps", ac["optimizer_steps"], 2),
    ("micro steps", ac["micro_steps_per_optimizer_step"], 4), ("kernels per micro", ac["kernels_per_micro_step"], 2.25),
    ("mean kernel", ac["mean_kernel_us"], 68 / 18),
    ("host_overhead evidence", ev("host_overhead"), 4), ("small_gemms evidence", ev("small_gemms"), 4),
    ("host_overhead sentence", says("host_overhead"), True), ("small_gemms sentence", says("small_gemms"), True),
    ("no_tensor_cores untouched", ev("no_tensor_cores"), None),
]
valcheck.run(checks, sys.argv[2], 1e-03)
EOF2
)
check_both_readers "$GD_TEST_DATA/ok_accum.json" "$PY" && ok || nok "accumulation on ok_accum.json"
# Host counts against the host steps (DEFINITIONS "Steps" 4), on tests/data/ok_accum_lag.json (by hand):
#   3 host steps [1000,1100) [1100,1200) [1200,1300); in each (s = its start) aten::linear at s+10, a
#   backward node [s+40,s+60), Optimizer.step#SGD.step [s+70,s+90), each launching a 10 us kernel that
#   runs 250 us after its launch (the GPU lags by 2.5 steps); cudaDeviceSynchronize [1092,1095) in step 1;
#   a launch at 900 before the steps, its kernel [1150,1160).
#   Device-side steps: step 1 starts after that kernel, 1160, ends at its last kernel 1075+250+10 = 1335;
#   then [1335,1435), [1435,1535): steps span [1160,1535), average step 375/3 = 125 us.
#   Host steps span [1000,1300): 3 backward passes (split by aten::linear), 3 optimizer steps, ratio 1;
#   kernels starting in the steps span 9 (not the one at 1150) -> 9/3 = 3 per micro-step, mean 10 us;
#   optimizer host time 3 x 20 = 60 us, share 60/3 / 125 = 0.16; its kernels 3, 30 us;
#   1 sync call of 3 us. (Counted in the device-side span: 1 pass, 2 optimizer steps, 40 us, 0 syncs.)
PY=$(cat <<'EOF2'
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
d = json.load(open(sys.argv[1])); ac = d["memory_savings"]["accumulation"]; op = d["summary"]["optimizer"]
checks = [
    ("steps", [[s["start_us"], s["end_us"]] for s in d["steps"]], [[1160, 1335], [1335, 1435], [1435, 1535]]),
    ("passes", ac["backward_passes"], 3), ("optimizer steps", ac["optimizer_steps"], 3),
    ("micro steps", ac["micro_steps_per_optimizer_step"], 1), ("kernels per micro", ac["kernels_per_micro_step"], 3),
    ("mean kernel", ac["mean_kernel_us"], 10),
    ("optimizer time", op["time_us"], 60), ("optimizer share", op["share_of_step"], 0.16),
    ("optimizer kernels", op["kernels"], 3), ("optimizer kernel time", op["kernel_time_us"], 30),
    ("sync calls", d["idle"]["sync_calls"], 1), ("sync time", d["idle"]["sync_time_us"], 3),
]
valcheck.run(checks, sys.argv[2], 1e-05)
EOF2
)
check_both_readers "$GD_TEST_DATA/ok_accum_lag.json" "$PY" && ok || nok "host counts on ok_accum_lag.json (GPU lags)"
# one optimizer step per backward pass (ok_recompute has no optimizer step: null)
expect_rc 0 "$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_recompute.json"
python3 - "$TMP/out" <<'PY' || nok "accumulation without an optimizer step"
import json, sys
ac = json.load(open(sys.argv[1]))["memory_savings"]["accumulation"]
sys.exit(0 if (ac["backward_passes"], ac["optimizer_steps"], ac["micro_steps_per_optimizer_step"]) == (2, 0, None) else 1)
PY
# Offload, on tests/data/ok_offload.json (its values derived in test_transfers.sh): 128 MiB each way per
#   100,000 us step, H2D 24000 + D2H 20000 us over two steps -> 22000 us per step, 12000 us exposed;
#   A100 PCIe 31.5 GB/s per direction -> 134217728 / 31.5e3 = 4260.880 us at the least, copies
#   22000 / 4260.880 = 5.16325 x that; no framework named. With a DeepSpeedCPUAdam host op added
#   (a copy edited in this test) the framework is deepspeed.
PY=$(cat <<'EOF2'
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
d = json.load(open(sys.argv[1])); of = d["memory_savings"]["offload"]
f = [x for x in d["findings"] if x["id"] == "offload_transfer"]
ev = f[0]["evidence"] if f else {}
checks = [
    ("detected", of["detected"], True), ("framework", of["framework"], None),
    ("h2d", of["h2d_bytes_per_step"], 134217728), ("d2h", of["d2h_bytes_per_step"], 134217728),
    ("copy", of["copy_us_per_step"], 22000), ("exposed", of["exposed_us_per_step"], 12000),
    ("link", of["link_gb_per_s"], 31.5), ("min link", of["min_link_us_per_step"], 134217728 / 31.5e3),
    ("over link", of["copy_over_link"], 22000 / (134217728 / 31.5e3)),
    ("evidence min link", ev.get("min_link_us_per_step"), 134217728 / 31.5e3),
    ("sentence", "need at least 4261 us per step (4.3% of the step)" in (f[0]["recommendation"] if f else ""), True),
]
valcheck.run(checks, sys.argv[2], 1e-05)
EOF2
)
check_both_readers "$GD_TEST_DATA/ok_offload.json" "$PY" && ok || nok "offload on ok_offload.json"
python3 - "$GD_TEST_DATA/ok_offload.json" "$TMP/ds.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = [e for e in d["traceEvents"] if e.get("name") == "ProfilerStep#1"][0]
d["traceEvents"].append({"ph": "X", "cat": "cpu_op", "name": "DeepSpeedCPUAdam.step", "pid": s["pid"], "tid": s["tid"],
                         "ts": s["ts"] + 90000, "dur": 100})
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 0 "$GPUDIAG" analyze --json "$TMP/ds.json"
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["memory_savings"]["offload"]["framework"] == "deepspeed" else 1)' \
    "$TMP/out" && ok || nok "offload framework deepspeed"
# recompute_cost and the memory headroom (DEFINITIONS Recompute, "Memory timeline"): ok_recompute.json with
#   [memory] events added here (Total Allocated / Total Reserved, A100 total 85031714816 B): allocated
#   P before the steps, P + 5e9 inside each step, back to P after it; reserved P + 6e9.
#   persistent P, transient 5e9 -> fits = (0.9 x 85031714816 - P) / 5e9:
#   P = 70e9: (76528543334.4 - 70e9) / 5e9 = 1.3057 < 2 -> no headroom: recompute_cost silent;
#   P = 10e9: 13.3057 >= 2 -> fires, evidence activation_fits 13.3057, advice "The memory allows it".
for P in 70000000000 10000000000; do
python3 - "$GD_TEST_DATA/ok_recompute.json" "$TMP/mem$P.json" "$P" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); P = int(sys.argv[3])
def m(ts, ta):
    return {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": ts,
            "args": {"Device Type": 1, "Device Id": 0, "Bytes": 0, "Addr": 1, "Total Allocated": ta, "Total Reserved": P + 6000000000}}
d["traceEvents"] += [m(990, P), m(1450, P + 5000000000), m(1950, P), m(2450, P + 5000000000), m(2950, P)]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 0 "$GPUDIAG" analyze --json "$TMP/mem$P.json"
cp "$TMP/out" "$TMP/mem$P.out"
done
python3 - "$TMP/mem70000000000.out" "$TMP/mem10000000000.out" <<'PY' || nok "recompute_cost against the memory headroom"
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"]); import valcheck
tight, roomy = (json.load(open(p)) for p in sys.argv[1:3])
f = lambda d: [x for x in d["findings"] if x["id"] == "recompute_cost"]
fr = f(roomy)
valcheck.run([
    ("tight fits", tight["memory"]["devices"][0]["activation_fits"], (0.9 * 85031714816 - 70e9) / 5e9),
    ("tight: silent", len(f(tight)), 0), ("tight: numbers kept", tight["memory_savings"]["recompute"]["share_of_step"], 0.17),
    ("roomy: fires", len(fr), 1),
    ("roomy fits", fr[0]["evidence"]["activation_fits"] if fr else None, (0.9 * 85031714816 - 10e9) / 5e9),
    ("roomy advice", "The memory allows it (a step's activations would fit 13.3 times" in (fr[0]["recommendation"] if fr else ""), True),
], "headroom", 1e-04)
PY
finish
