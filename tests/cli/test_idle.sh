#!/bin/sh
# Idle gaps and their causes on tests/data/ok_idle_causes.json, values derived
# by hand (docs/DEFINITIONS.md "Idle gaps and their causes"):
#   (all times below are offsets from ts 1000: a GPU op at ts 0 would be read as
#   "no CUPTI timestamp")
#   one step [0,1000]; kernels k1 [0,100] k2 [300,400] k3 [500,600] k4 [800,1000]
#   gaps inside the step: [100,300] [400,500] [600,800] = 500 us in 3 gaps
#   [100,300]: cudaStreamSynchronize [5,110] started before 100 and was still
#              running at 100, and blocked 105 us >= half the gap (rule 1, "A short
#              sync": it waited while k1 ran, the host that far ahead) -> sync 200
#              (the fixture had [50,110], 60 us < 100: now host_launch, test_sync_short.sh)
#   [400,500]: DataLoader op [390,480] covers 80 >= 50% of it    -> dataloader 100
#   [600,800]: k4 was launched at [590,595], before the GPU went idle: it was queued, and
#              the gap is >= 30 us (rule 0b)                    -> stream_wait 200
#              (before rule 0b: host_launch, as aten::foo [600,800] runs; HTA too calls
#              it `other`, not host_wait)
#   HTA per stream 7: k2 launched at 250 > 100 (host_wait 200), k3 at 420 > 400
#   (host_wait 100), k4 at 590 < 600 and 200 >= 30 (other 200)
#   HTA queue length on stream 7: each launch precedes its kernel's start and the
#   previous kernel started before it, so the series is 1,0,1,0,1,0,1,0: mean 0.5, max 1
#   sync: 1 call, 105 us; top gaps by length, ties in time order:
#   [100,300] sync "## forward ##", [600,800] stream_wait "aten::foo",
#   [400,500] dataloader "enumerate(DataLoader)#..."
#   (no start-up: the step starts and ends with a kernel; no compilation names)
#
# tests/data/ok_compile.json (DEFINITIONS "Idle gaps and their causes", rule 0) — no step
#   markers, so the window is the host ops' span [1000,4000] = 3000 us, the whole capture:
#   aten::empty [1000,1100]; python_function torch/_dynamo/convert_frame.py(..): _compile
#   [1200,2000]; "compile_fx_inner (dynamo_timed)" [1300,1900]; "TorchDynamo Cache Lookup"
#   [2100,2300]; annotation "## warmup ##" [2400,2700]; aten::add [2800,4000]; 50 us kernels
#   at 1150, 2000, 2350, 2700, 3700, each launched 10 us before (5 us cudaLaunchKernel).
#   gaps: [1000,1150] 150 first gap at the window start, < 100 ms (GD_STARTUP_MIN_US, with
#                         step markers or without) and aten::empty overlaps it -> host_launch
#         [1200,2000] 800 _compile covers all of it        -> compilation
#         [2050,2350] 300 Cache Lookup covers 200, but it is not compilation -> host_launch
#         [2400,2700] 300 the warm-up annotation covers it -> startup
#         [2750,3700] 950 aten::add                        -> host_launch
#         [3750,4000] 250 after the last GPU op, < 100 ms, aten::add -> host_launch
#   startup 300, compilation 800, host_launch 1650, 6 gaps, 2750 us. (Until the lead-in /
#   lead-out of a window without step markers needed 100 ms as with markers, the 150 and 250 us
#   edges were start-up: 700 / 1250.)
#   Breakdown: kernel 250, runtime 25, CPU Exec = 100 + 600 + 200 + (300 - 5 launch) +
#   (1200 - 50 kernel - 5 launch) = 2340 -> shares 0.083333, 0.008333, 0.78.
#   host_overhead: host 0.788333 minus start-up share 1100/3000 = 0.421667; idle
#   1 - 0.083333 - 0.366667 = 0.55; both as shares of the steady-state step (÷ 1 - 0.366667):
#   0.665789 and 0.868421; est_gain = min = 0.665789 (without rule 0: 0.788333; before the
#   steady-state step, 0.421667 of the whole window).
#   Kernels 50 us > their 5 us launches: not launch-bound. Verdict host_launch, with the
#   note "1.10 ms of start-up/compilation (37% of the window) excluded".
#
# tests/data/ok_startup_steps.json — step markers: ProfilerStep#1 [1000,2000] (kernel
#   [1050,1950]), #2 [2000,202000] (kernel [2050,2950]). Gaps: [1000,1050] 50, the first
#   step's lead-in but < 100 ms -> host_launch (ProfilerStep#1 covers it); [1950,2050] 100
#   -> host_launch; [2950,202000] 199050 = last step's lead-out >= 100 ms and >= half of
#   that 200000 us step -> startup. share = 199050 / 201000 = 0.990299 >= half the idle
#   share 1 - 1800/201000 -> verdict unknown, "mostly start-up/compilation". The steady-state
#   step is (201000 - 199050) / 2 = 975 us with 900 us of elementwise kernels in it:
#   memory_bound_kernels 0.5 * 900 / 975 = 0.461538 (high by share, medium as mostly start-up),
#   named by the verdict as what leads the time left (before the steady-state step, 0.004478).
set -eu
GD_TMP_TAG=idle
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

PY=$(cat <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); i = d["idle"]
checks = [
    ("gap_us", i["gap_us"], 500), ("gap_count", i["gap_count"], 3),
    ("sync", i["by_cause_us"]["sync"], 200), ("dataloader", i["by_cause_us"]["dataloader"], 100),
    ("host_launch", i["by_cause_us"]["host_launch"], 0), ("stream_wait", i["by_cause_us"]["stream_wait"], 200),
    ("kernel_wait", i["by_cause_us"]["kernel_wait"], 0), ("optimizer", i["by_cause_us"]["optimizer"], 0),
    ("communication", i["by_cause_us"]["communication"], 0), ("other", i["by_cause_us"]["other"], 0),
    ("startup", i["by_cause_us"]["startup"], 0), ("compilation", i["by_cause_us"]["compilation"], 0),
    ("sync share", i["by_cause_share_of_step"]["sync"], 0.2),
    ("sync_calls", i["sync_calls"], 1), ("sync_time_us", i["sync_time_us"], 105),
    ("stream host_wait", i["streams"][0]["host_wait_us"], 300),
    ("stream kernel_wait", i["streams"][0]["kernel_wait_us"], 0),
    ("stream other", i["streams"][0]["other_us"], 200), ("stream ops", i["streams"][0]["ops"], 4),
    ("queue mean", i["streams"][0]["queue_mean"], 0.5), ("queue max", i["streams"][0]["queue_max"], 1),
    ("full queue", i["streams"][0]["full_queue_us"], 0),
    ("top0 start", i["top_gaps"][0]["start_us"], 1100), ("top0 cause", i["top_gaps"][0]["cause"], "sync"),
    ("top0 op", i["top_gaps"][0]["cpu_op"], "## forward ##"), ("top0 step", i["top_gaps"][0]["step"], 1),
    ("top1 start", i["top_gaps"][1]["start_us"], 1600), ("top1 cause", i["top_gaps"][1]["cause"], "stream_wait"),
    ("top1 op", i["top_gaps"][1]["cpu_op"], "aten::foo"),
    ("top2 start", i["top_gaps"][2]["start_us"], 1400), ("top2 cause", i["top_gaps"][2]["cause"], "dataloader"),
    ("top2 op", i["top_gaps"][2]["cpu_op"], "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"),
]
import os
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF
)
rc=0
check_both_readers "$GD_TEST_DATA/ok_idle_causes.json" "$PY" || rc=1

PY_COMPILE=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); i = d["idle"]; c = i["by_cause_us"]
f = {x["id"]: x for x in d["findings"]}
ho = f.get("host_overhead", {})
st = f.get("startup_in_window", {}).get("evidence", {})
checks = [
    ("startup", c["startup"], 300), ("compilation", c["compilation"], 800),
    ("host_launch", c["host_launch"], 1650), ("sync", c["sync"], 0), ("other", c["other"], 0),
    ("gap_us", i["gap_us"], 2750), ("gap_count", i["gap_count"], 6),
    ("gap causes", [g["cause"] for g in i["gaps"]],
     ["host_launch", "compilation", "host_launch", "startup", "host_launch", "host_launch"]),
    ("cpu_exec", d["breakdown"]["share"]["cpu_exec"], 0.78),
    ("runtime", d["breakdown"]["share"]["runtime"], 25 / 3000),
    ("ids", sorted(f), ["host_overhead", "low_gpu_utilization", "no_step_markers", "startup_in_window"]),
    ("host gain", ho.get("est_gain"), 0.421667 / (1 - 1100 / 3000)),
    ("steady_step_us", d["summary"]["steady_step_us"], 3000 - 1100),
    ("excluded", ho.get("evidence", {}).get("startup_share_excluded"), 1100 / 3000),
    ("ev startup_us", st.get("startup_us"), 300), ("ev compilation_us", st.get("compilation_us"), 800),
    ("ev share", st.get("share_of_steps"), 1100 / 3000),
    ("bottleneck", d["verdict"]["bottleneck"], "host_launch"),
    ("note", "1.10 ms of start-up/compilation (37% of the window) excluded" in d["verdict"]["summary"], True),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF
)
PY_STEPS=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); i = d["idle"]; c = i["by_cause_us"]
f = {x["id"]: x for x in d["findings"]}
checks = [
    ("startup", c["startup"], 199050), ("host_launch", c["host_launch"], 150),
    ("gap causes", [g["cause"] for g in i["gaps"]], ["host_launch", "host_launch", "startup"]),
    ("share", f.get("startup_in_window", {}).get("evidence", {}).get("share_of_steps"), 199050 / 201000),
    ("bottleneck", d["verdict"]["bottleneck"], "unknown"),
    ("verdict", "99% of the steps is start-up/compilation (199 ms): too little steady-state work" in
     d["verdict"]["summary"], True),
    ("steady_step_us", d["summary"]["steady_step_us"], (201000 - 199050) / 2),
    ("memory_bound gain", f.get("memory_bound_kernels", {}).get("est_gain"), 0.5 * 900 / 975),
    ("memory_bound severity", f.get("memory_bound_kernels", {}).get("severity"), "medium"),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_compile.json" "$PY_COMPILE" || rc=1
check_both_readers "$GD_TEST_DATA/ok_startup_steps.json" "$PY_STEPS" || rc=1
# the text report names what was left out
"$GPUDIAG" analyze --no-color "$GD_TEST_DATA/ok_compile.json" > "$TMP/compile.txt"
grep -q 'host_launch 55.0%   compilation 26.7%   startup 10.0%' "$TMP/compile.txt" || { echo "FAIL text: causes line"; rc=1; }
grep -q '1.10 ms of start-up/compilation (not steady state) excluded' "$TMP/compile.txt" || { echo "FAIL text: exclusion note"; rc=1; }
# tests/data/ok_collective_host.json (DEFINITIONS "Idle gaps and their causes", rule 2) — one
#   step [1000,2000]: launch [1000,1005] -> kernel [1010,1100]; aten::flatten_dense_tensors
#   [1100,1300]; c10d::broadcast_ [1295,1320] with the nccl:broadcast annotation [1300,1310];
#   aten::unflatten_dense_tensors [1320,1700]; launch [1700,1705] -> kernel [1710,2000].
#   gaps: [1000,1010] 10 (ProfilerStep#1 only) -> host_launch; [1100,1710] 610: the coalescing
#   ops cover 200 + 380 = 580 >= 305, the collective calls 25 -> communication, all of it
#   collective_host_us. Breakdown: kernel 380, communication 10 (the nccl: op), runtime 10,
#   CPU Exec = [1100,1700] - 10 = 590, other 10. collective_host_work gain 610/1000 = 0.61;
#   host_overhead: host 0.01 + 0.59 - 0.61 < 0.15 -> absent (before rule 2 it claimed
#   min(0.60, 1 - 0.38) = 0.60). Verdict communication.
#   Top gap labels (own time in the gap): [1100,1710]: flatten [1100,1295] 195, c10d::broadcast_
#   [1295,1300] + [1310,1320] 15, nccl:broadcast 10, unflatten [1320,1700] 380, launch
#   [1700,1705] 5 -> aten::unflatten_dense_tensors (the op at the gap start, the old label, was
#   flatten); [1000,1010]: launch [1000,1005] 5, nothing else (the step is not a host op) ->
#   cudaLaunchKernel.
PY_COLL=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); i = d["idle"]; c = i["by_cause_us"]
f = {x["id"]: x for x in d["findings"]}
checks = [
    ("communication", c["communication"], 610), ("host_launch", c["host_launch"], 10),
    ("collective_host_us", i["collective_host_us"], 610),
    ("cpu_exec", d["breakdown"]["share"]["cpu_exec"], 0.59),
    ("kernel", d["breakdown"]["share"]["kernel"], 0.38),
    ("ids", sorted(f), ["collective_host_work", "low_gpu_utilization", "single_step"]),
    ("gain", f.get("collective_host_work", {}).get("est_gain"), 0.61),
    ("gap labels", [(g["start_us"], g["cpu_op"]) for g in i["top_gaps"]],
     [(1100, "aten::unflatten_dense_tensors"), (1000, "cudaLaunchKernel")]),
    ("bottleneck", d["verdict"]["bottleneck"], "communication"),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_collective_host.json" "$PY_COLL" || rc=1
# tests/data/ok_idle_nocause.json (FINDINGS "Verdict") — one step [1000,2000], one kernel
#   [1250,1750] and no other event: utilization 500/1000 = 0.50, gaps [1000,1250] and
#   [1750,2000] have no host activity -> cause other, 500 us = 0.50 of the step >= 0.20 ->
#   verdict unknown (before: compute, "no stall found"); utilization not < 0.50 -> no
#   low_gpu_utilization.
PY_NOCAUSE=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
checks = [
    ("util", d["summary"]["gpu_utilization"], 0.5), ("other", d["idle"]["by_cause_us"]["other"], 500),
    ("bottleneck", d["verdict"]["bottleneck"], "unknown"),
    ("no visible cause", "50% of the step is idle time with no visible cause in the trace" in d["verdict"]["summary"], True),
    ("ids", sorted(f), ["single_step"]),  # one step
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_idle_nocause.json" "$PY_NOCAUSE" || rc=1
# tests/data/ok_first_launch.json (DEFINITIONS "Idle gaps and their causes", rule 0, one-off
#   first calls) — one step [1000,21000]; cudaLaunchKernel calls (start, dur) -> kernel:
#   (1000,10) -> A [1020,1120]; (1130,10) -> B [1150,1250]; (1260,5000) -> C [6270,6370], the
#   first launch of C; (6380,10) -> C [6400,6500]; (6510,10) -> A [6530,21000]. Median launch
#   10 us; the 5000 us call is >= 1 ms and >= 10 x 10 us -> one-off. Gaps: [1000,1020] 20
#   (ProfilerStep#1 only) host_launch; [1120,1150] 30 host_launch; [1250,6270] 5020, the
#   one-off call covers 5000 >= 2510 -> startup; [6370,6400] 30 and [6500,6530] 30 host_launch.
#   startup 5020, host_launch 110. Utilization (4 x 100 + 14470) / 20000 = 0.7435; runtime
#   share 5040 / 20000 = 0.252; start-up share 5020 / 20000 = 0.251. host_overhead: host
#   0.252 - 0.251 = 0.001 < 0.15 -> absent (before the rule: min(0.252, 1 - 0.7435) = 0.252,
#   verdict host_launch); kernel A is a Tensor Core GEMM -> verdict compute. One step ->
#   single_step (info), steps 1.
PY_FIRST=$(cat <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1])); i = d["idle"]; c = i["by_cause_us"]
f = {x["id"]: x for x in d["findings"]}
checks = [
    ("startup", c["startup"], 5020), ("host_launch", c["host_launch"], 110),
    ("gap causes", [[g["start_us"], g["duration_us"], g["cause"]] for g in i["gaps"]],
     [[1000, 20, "host_launch"], [1120, 30, "host_launch"], [1250, 5020, "startup"],
      [6370, 30, "host_launch"], [6500, 30, "host_launch"]]),
    ("util", d["summary"]["gpu_utilization"], 0.7435), ("runtime", d["breakdown"]["share"]["runtime"], 0.252),
    ("ids", sorted(f), ["single_step", "startup_in_window"]),
    ("share", f.get("startup_in_window", {}).get("evidence", {}).get("share_of_steps"), 0.251),
    ("single_step steps", f.get("single_step", {}).get("evidence", {}).get("steps"), 1),
    ("single_step sev", f.get("single_step", {}).get("severity"), "info"),
    ("advice", "schedule(wait=1, warmup=1, active=3)" in f.get("single_step", {}).get("recommendation", ""), True),
    ("bottleneck", d["verdict"]["bottleneck"], "compute"),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_first_launch.json" "$PY_FIRST" || rc=1
# mi250_rocm_minitoy_train (shared, 1 step of 9288.291 us): the hipLaunchKernel at
#   4203669605382.766 lasts 6543.109 us, the first launch of CUDAFunctor_add (its second
#   launch takes 4.659 us; hipLaunchKernel median of 12 calls 6.257 us) -> the 6633.474 us gap
#   around it is startup, share 6633.474 / 9288.291 = 0.714176 (before: host_launch, and a
#   93 % host_launch_bound gain of the whole step; the host finding is host_overhead since the
#   10th session, below).
# tests/data/ok_startup_then_steady.json (a new user's): ProfilerStep#1 holds 200 ms of cudaFree
#   before its 10 kernels (lead-in 200020 us >= 100 ms and >= half the 210210 us step -> startup),
#   steps 2-10 are 10210 us each (10 kernels of 1000 us, 20 us apart) with no start-up. Mean step
#   (210210 + 9 * 10210) / 10 = 30210 us, start-up 200020 / 10 = 20002 us per step = 0.662 of it
#   (>= half) but 9 steps hold none (>= 2): not mostly start-up, judged on the steady-state step
#   30210 - 20002 = 10208 us, where the kernels run 0.330967 / (1 - 20002 / 30210) = 0.9795 of the
#   time -> compute (fp32 GEMMs on an A100: no_tensor_cores), "busy 98% of the step"; before it read
#   "idle 67% of the step, mostly start-up ... too little steady-state work".
if "$GPUDIAG" analyze --json "$GD_TEST_DATA/ok_startup_then_steady.json" > "$TMP/sts.json" && python3 - "$TMP/sts.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); s = d["summary"]; v = d["verdict"]
assert abs(s["step_time_us"]["mean"] - 30210) < 1e-6 and abs(s["steady_step_us"] - 10208) < 1e-6, s
assert [x["startup_idle_us"] for x in d["steps"]] == [200020] + [0] * 9, d["steps"]
assert v["bottleneck"] == "compute" and v["finding"] == "no_tensor_cores", v
assert v["summary"].startswith("The GPU is busy 98% of the step"), v["summary"]
assert abs(s["gpu_utilization"] / (1 - 20002 / 30210) - 0.9795) < 1e-3, s["gpu_utilization"]
assert "low_gpu_utilization" not in [f["id"] for f in d["findings"]], d["findings"]
EOF
then :; else echo "FAIL: start-up then nine clean steps"; rc=1; fi
MI=/work/shared/data/traces/mi250_rocm_minitoy_train.json.gz
if [ -f "$MI" ]; then
  if "$GPUDIAG" analyze --json "$MI" > "$TMP/mi.json" && python3 - "$TMP/mi.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["idle"]["by_cause_us"]
f = {x["id"]: x for x in d["findings"]}
assert abs(c["startup"] - 6633.474) < 1e-3, c
assert abs(f["startup_in_window"]["evidence"]["share_of_steps"] - 6633.474 / 9288.291) < 1e-5, f["startup_in_window"]
# host share of the step less start-up 0.211804 (0.171701, what it read before the steady-state
# step, + 0.040103 that rule 1's "A short sync" gives back: the two gaps of 295 and 185 us after a
# hipMemcpyWithStream that blocked 60 / 36 us, the host then in aten::linear / aten::mse_loss for
# the rest, were sync and their host time left out), as a share of the 2654.817 us left:
# 0.211804 / (1 - 0.714176) = 0.741029 (0.600723 before); mostly start-up, so the verdict names it
# as a hint only and it drops from high to medium.  host_overhead, not host_launch_bound: of the
# 2135.2 us of host_launch gaps, those over 100 us (266.8, 295.0, 151.5, 185.4, 133.4, 313.4, 100.5,
# 186.9, 156.2) hold 1789.1 us = 0.837914, host work of its own (FINDINGS host_launch_bound)
assert abs(f["host_overhead"]["est_gain"] - 0.211804 / (1 - 6633.474 / 9288.291)) < 1e-5, f["host_overhead"]
assert f["host_overhead"]["severity"] == "medium", f["host_overhead"]
assert abs(f["host_overhead"]["evidence"]["host_launch_long_gap_share"] - 0.837914) < 1e-5, f["host_overhead"]
assert "host_launch_bound" not in f, sorted(f)
assert d["verdict"]["finding"] == "startup_in_window" and d["verdict"]["bottleneck"] == "unknown", d["verdict"]
assert "single_step" in f, sorted(f)
EOF
  then :; else echo "FAIL: mi250 first launch"; rc=1; fi
fi
# tests/data/ok_launch_delay.json (DEFINITIONS "Kernels", HTA outliers) — one step [1000,2600],
#   device 0; 10 us cudaLaunchKernel calls (start) -> kernel on stream [start,end]:
#   1000 -> s7 [1020,1520] delay 10;  1020 -> s7 [1525,2025] delay 495, device busy until 1520
#   (5 us before: busy);  1040 -> s7 [2300,2400] delay 1250, the device's ops before it ended at
#   2100 (200 us >= 30: idle);  2390 -> s7 [2410,2500] delay 10;  1060 -> s8 [2030,2100] delay
#   960, 5 us after 2025 (busy). Outliers (> 100 us): 3 (HTA's count); on an idle GPU: 1.
#   Delays 10, 10, 495, 960, 1250 -> median 495.
PY_LD=$(cat <<'EOF'
import json, os, sys
s = json.load(open(sys.argv[1]))["summary"]
checks = [
    ("linked", s["linked_kernels"], 5), ("runtime outliers", s["runtime_outliers"], 0),
    ("delay outliers", s["launch_delay_outliers"], 3), ("on idle GPU", s["launch_delay_outliers_gpu_idle"], 1),
    ("median delay", s["launch_delay_median_us"], 495),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF
)
check_both_readers "$GD_TEST_DATA/ok_launch_delay.json" "$PY_LD" || rc=1
"$GPUDIAG" analyze --no-color "$GD_TEST_DATA/ok_launch_delay.json" > "$TMP/ld.txt"
grep -q '3 launch delays > 100 us, 1 of them on an idle GPU$' "$TMP/ld.txt" || { echo "FAIL text: launch delay outliers"; rc=1; }
# alexnet_small (shared): start-up is 43183155 of 43348556 us (0.996184, >= 0.5) -> low
#   severity whatever the utilization (0.000245222); steady state 0.000245222 / (1 - 0.996184)
#   = 0.0643. --fail-on high exits 0 (before: [high], exit 1).
ALEX=/work/shared/data/traces/alexnet_small.json.gz
if [ -f "$ALEX" ]; then
  if "$GPUDIAG" analyze --json --fail-on high "$ALEX" > "$TMP/alex.json" && python3 - "$TMP/alex.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}["low_gpu_utilization"]
e = f["evidence"]
assert f["severity"] == "low", f
assert abs(e["startup_share"] - 43183155 / 43348556) < 1e-5, e
assert abs(e["steady_state_utilization"] - 0.000245222 / (1 - 43183155 / 43348556)) < 1e-3, e
EOF
  then :; else echo "FAIL: alexnet_small low_gpu_utilization"; rc=1; fi
fi
# A gap's step (DEFINITIONS "A gap's step"): the step holding the most of it, the later on a
# tie. ok_gap_step_boundary.json: steps 1..3 at [1000,2000), [2000,3000), [3000,4000) us; one
# kernel per step ending at 990 us into it, steps 2 and 3 starting theirs 500 us in. Gaps:
# [1990,2500): 10 us in step 1, 500 in step 2 -> step 2 (was 1); [2990,3500): 10 in 2, 500 in 3
# -> step 3 (was 2); [3990,4000): in step 3 only -> 3. top_gaps carry the same steps.
if python3 - "$GPUDIAG" "$GD_TEST_DATA/ok_gap_step_boundary.json" <<'EOF'
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[1], "analyze", "--json", sys.argv[2]], capture_output=True, text=True).stdout)
gaps = [(g["start_us"], g["duration_us"], g["step"]) for g in d["idle"]["gaps"]]
assert gaps == [(1990, 510, 2), (2990, 510, 3), (3990, 10, 3)], gaps
top = sorted((g["start_us"], g["step"]) for g in d["idle"]["top_gaps"])
assert top == [(1990, 2), (2990, 3), (3990, 3)], top
EOF
then :; else echo "FAIL: gap step at a step boundary"; rc=1; fi
exit $rc
