#!/bin/sh
# Host-side findings, by hand (docs/FINDINGS.md, DEFINITIONS "Start-up in the window").
#
# tests/data/ok_launch_bound.json — A100, ProfilerStep#1 [10000,11000], #2 [11000,12000];
#   per step S: aten::fill_ [S, S+900]; 20 cudaLaunchKernel [S+50i, S+50i+20] (i = 0..19),
#   each launching a 4 us elementwise kernel at S+50i+25.
#   Kernel = 20 x 4 = 80 us per step -> share 0.08 = GPU utilization (160 / 2000).
#   Runtime = 20 x 20 = 400 -> 0.4.  CPU Exec = fill_ span 900 minus the 18 launches
#   (360) and 18 kernels (72) inside it = 468 -> 0.468; Other = 1000-80-400-468 = 52.
#   HTA short kernels: GPU 4 us < CPU 20 us for all 40 -> 1.0; median kernel 4 us;
#   launch delay = 25 - 20 = 5 us (the queue never runs dry).
#   host_launch_bound: host = 0.4 + 0.468 = 0.868 >= 0.15, util 0.08 < 0.8, short
#   kernels -> est_gain = min(0.868, 1 - 0.08) = 0.868 (high); host_overhead absent.
#   gpu_lead_in_us: 25 in both steps (no start-up finding).
#
# tests/data/ok_startup.json — no step markers: aten::to [0,400000] (CUDA initialisation),
#   aten::add [400000,401000] with 10 launches [400000+100i, +10] of 50 us kernels at +20.
#   Window = host ops [0, 401000]; first GPU op at 400020 -> lead-in 400020 us; without step
#   markers the gap before the first GPU op is start-up (>= 100 ms, GD_STARTUP_MIN_US); the one
#   after the last (kernel 9 ends at 400970: 30 us) is not (< 100 ms, as with step markers:
#   aten::add overlaps it -> host_launch) -> startup_in_window, 400020 us, share
#   400020 / 401000 = 0.997556.
#   Host = runtime 100 + CPU Exec (401000 - 500 - 100) = 400500 / 401000 = 0.998753; minus the
#   start-up share = 0.001197 of the window (without the exclusion it would claim ~99.9 %).
#   Steady-state step (DEFINITIONS "Start-up in the window"): 401000 - 400020 = 980 us, so
#   host = 480 / 980 = 0.489796 and idle = (980 - 500 kernel) / 980 = 0.489796 ->
#   host_overhead est_gain 0.489796 (kernels 50 us > launches 10 us: not launch-bound),
#   high by share; kernels 500 / 980 = 0.510204 of the step, all elementwise ->
#   memory_bound_kernels est_gain 0.5 * 0.510204 = 0.255102, high. Start-up >= half the window
#   (mostly start-up): each drops one severity (-> medium, medium), and the verdict is unknown on
#   startup_in_window, naming host_overhead as what leads the 980 us left.
#
# tests/data/ok_lead_in_steps.json and ok_lead_in_no_steps.json — the same events, with and
#   without a ProfilerStep#1 marker [0,1000] (DEFINITIONS "Idle gaps and their causes", rule 0:
#   a lead-in / lead-out is start-up only when >= 100 ms, markers or not). aten::mm [0,300] with
#   cudaLaunchKernel [280,290] -> kernel [295,305]; aten::add [800,1000] with cudaLaunchKernel
#   [900,910] -> kernel [915,925]. Window [0,1000] either way (the host ops' span = the step).
#   Gaps: [0,295] 295 (the lead-in, < 100 ms; aten::mm overlaps -> host_launch), [305,915] 610
#   (aten::add -> host_launch), [925,1000] 75 (lead-out; aten::add -> host_launch): 980 us, all
#   host_launch -> host_launch_idle_share = 980 / 1000 = 0.98; no start-up. One step, and the
#   longest host_launch gap holds 610 / 980 = 0.622449 >= 0.5 of it (DEFINITIONS "Start-up in
#   the window", one-off gaps): high by its share, one severity lower: medium.
#   Breakdown: kernel 20, runtime 20, CPU Exec = (300 - 10 - 5) + (200 - 10 - 10) = 465, other
#   495. host_share = (20 + 465) / 1000 = 0.485 >= 0.15; util 20 / 1000 = 0.02; est_gain =
#   min(0.485, 1 - 0.02) = 0.485 (high); median kernel 10 us <= 10 and launch delay 5 us, but
#   the host_launch gaps over 100 us hold 295 + 610 = 905 of its 980 us (0.923 > 0.5: host work
#   of its own, not launch pacing, FINDINGS host_launch_bound) -> host_overhead (it was
#   host_launch_bound until the 10th session). 0.98 - 0.485 >= 0.10 -> evidence
#   host_launch_idle_share 0.98.
#   (Until this rule, without the marker the 295 and 75 us edges were start-up: host share
#   0.485 - 0.37 = 0.115 < 0.15, no host finding; with it, a host finding: the verdict
#   followed the marker.)
set -eu
GD_TMP_TAG=host
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

PY_LAUNCH=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
hl = f.get("host_launch_bound", {})
e = hl.get("evidence", {})
checks = [
    ("ids", sorted(f), ["host_launch_bound", "low_gpu_utilization"]),
    ("est_gain", hl.get("est_gain"), 0.868), ("severity", hl.get("severity"), "high"),
    ("host_share", e.get("host_share"), 0.868), ("short_kernel_share", e.get("short_kernel_share"), 1.0),
    ("median_kernel_us", e.get("median_kernel_us"), 4), ("launch_delay", e.get("launch_delay_median_us"), 5),
    ("gpu_utilization", d["summary"]["gpu_utilization"], 0.08),
    ("cpu_exec share", d["breakdown"]["share"]["cpu_exec"], 0.468),
    ("lead-in", [s["gpu_lead_in_us"] for s in d["steps"]], [25.0, 25.0]),
    ("bottleneck", d["verdict"]["bottleneck"], "host_launch"),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF2
)
PY_STARTUP=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
st = f.get("startup_in_window", {})
e = st.get("evidence", {})
checks = [
    ("ids", sorted(f), ["host_overhead", "low_gpu_utilization", "memory_bound_kernels", "no_step_markers",
                        "startup_in_window"]),
    ("steady_step_us", d["summary"]["steady_step_us"], 980),
    ("host_overhead gain", f.get("host_overhead", {}).get("est_gain"), 480 / 980),
    ("host_overhead severity", f.get("host_overhead", {}).get("severity"), "medium"),
    ("memory_bound gain", f.get("memory_bound_kernels", {}).get("est_gain"), 0.5 * 500 / 980),
    ("memory_bound severity", f.get("memory_bound_kernels", {}).get("severity"), "medium"),
    ("ev steady_step_us", f.get("host_overhead", {}).get("evidence", {}).get("steady_step_us"), 980),
    ("verdict finding", d["verdict"]["finding"], "startup_in_window"),
    ("bottleneck", d["verdict"]["bottleneck"], "unknown"),
    ("hint", "In the 980 us per step left, host_overhead leads" in d["verdict"]["summary"], True),
    ("lead_in_us", e.get("lead_in_us"), 400020), ("first_step_us", e.get("first_step_us"), 401000),
    ("share", e.get("share_of_steps"), 400020 / 401000), ("severity", st.get("severity"), "low"),
    ("startup_us", e.get("startup_us"), 400020), ("compilation_us", e.get("compilation_us"), 0),
    ("step lead-in", d["steps"][0]["gpu_lead_in_us"], 400020),
    ("cpu_exec share", d["breakdown"]["share"]["cpu_exec"], 400400 / 401000),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF2
)
PY_LEAD_IN=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
hl = f.get("host_overhead", {})
e = hl.get("evidence", {})
c = d["idle"]["by_cause_us"]
checks = [
    ("host_share", e.get("host_share"), 0.485), ("est_gain", hl.get("est_gain"), 0.485),
    ("severity", hl.get("severity"), "medium"),
    ("one-off gap", e.get("one_off_gap_us"), 610), ("one-off share", e.get("one_off_gap_share"), 610 / 980),
    ("host_launch_idle_share", e.get("host_launch_idle_share"), 0.98),
    ("startup excluded", e.get("startup_share_excluded"), None),
    ("host_launch us", c["host_launch"], 980), ("startup us", c["startup"], 0),
    ("gap causes", [g["cause"] for g in d["idle"]["gaps"]], ["host_launch"] * 3),
    ("gpu_utilization", d["summary"]["gpu_utilization"], 0.02),
    ("other share", d["breakdown"]["share"]["other"], 0.495),
    ("bottleneck", d["verdict"]["bottleneck"], "host_launch"),
    ("verdict finding", d["verdict"]["finding"], "host_overhead"),
    ("no host_launch_bound", "host_launch_bound" in f, False),
    ("long-gap share", e.get("host_launch_long_gap_share"), 905 / 980),
]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-05)
EOF2
)
rc=0
check_both_readers "$GD_TEST_DATA/ok_lead_in_steps.json" "$PY_LEAD_IN" || rc=1
check_both_readers "$GD_TEST_DATA/ok_lead_in_no_steps.json" "$PY_LEAD_IN" || rc=1
check_both_readers "$GD_TEST_DATA/ok_launch_bound.json" "$PY_LAUNCH" || rc=1
check_both_readers "$GD_TEST_DATA/ok_startup.json" "$PY_STARTUP" || rc=1
exit $rc
