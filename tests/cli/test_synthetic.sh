#!/bin/sh
# test_synthetic.sh — `gpudiag analyze --json` on the hand-built traces in
# tests/data/ok_*.json, checked against numbers derived BY HAND from the
# definitions (tests/oracle/README.md = the TensorBoard plugin's, plus
# gpudiag's deliberate deviations (a)-(f), listed below).  The derivations are
# the comments in the Python block; every expected value is written as the
# arithmetic that produces it.
#
# Environment: GPUDIAG (the binary; default <repo>/build/gpudiag),
#              GD_TEST_DATA (tests/data; default the script's ../data).
# Tolerances: 1e-3 us for times, 1e-6 for ratios; ints, strings, null exact.
# Exit: 0 all passed, 1 any failure, 77 python3 missing (skip).
#
# gpudiag deviations from TBP used below:
#  (a) gpu_user_annotation events are not CPU Exec (nccl:* names are Communication);
#  (b) kernels whose name starts with "nccl" are Communication without a nccl:* op;
#  (c) cuda_driver calls (cuLaunchKernel) link and count as Runtime;
#  (d) cuda_profiler_range events are kernels;
#  (e) steps come only from host-side ProfilerStep#N (cpu_op / user_annotation);
#  (f) HTA temporal breakdown per device over [first GPU op start, last GPU op end]:
#      idle = span - |union(kernels, memcpy, memset; stream != -1)|,
#      compute = |union(non-comm, non-memory kernels)|, non_compute = union - compute;
#      comm_overlap = |compute ∩ comm kernels| / |comm kernels|.

GD_TMP_TAG=syn
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

TRACES="ok_two_steps ok_nccl_overlap ok_no_steps ok_cpu_only ok_old_format ok_ns_float"
for t in $TRACES; do
    "$GPUDIAG" analyze --json "$GD_TEST_DATA/$t.json" >"$TMP/$t.out" 2>"$TMP/$t.err"
    echo $? >"$TMP/$t.rc"
done

# shellcheck disable=SC2086 # TRACES is a word list
python3 - "$GD_TEST_DATA" "$TMP" $TRACES <<'PYEOF'
import json, math, os, sys
from fractions import Fraction as F

data_dir, tmp, traces = sys.argv[1], sys.argv[2], sys.argv[3:]

US, RATIO, EXACT = "us", "ratio", "exact"
def us(x): return (US, float(x))
def ratio(x): return (RATIO, None if x is None else float(x))
def exact(x): return (EXACT, x)
NULL = exact(None)

ROLES = ["kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_exec", "other"]
def roles(**kw):
    """breakdown_us map: unnamed roles are 0."""
    return {r: us(kw.get(r, 0)) for r in ROLES}

def step(number, start, end, device_ops, **br):
    return {"number": exact(number), "start_us": us(start), "end_us": us(end),
            "duration_us": us(end - start), "device_ops": exact(device_ops),
            "breakdown_us": roles(**br)}

EXPECT = {}

# ---------------------------------------------------------------------------
# ok_two_steps.json — integer us, one A100 (device 0), streams 7, 8, 9.
#   host steps (user_annotation): PS#1 [1000,1100], PS#2 [1100,1200]
#   gpu_user_annotation "ProfilerStep#1" [1036,1120] -> not a step (e);
#   gpu_user_annotation "Optimizer.step#SGD.step" [1018,1026] -> no role (a).
#   runtimes (corr -> op):  R99 [980,985]->X   R2 [1028,1034]->M1  R1 [1040,1046]->A
#                           R3 [1060,1065]->B  R7 [1108,1112]->S   R4 [1125,1135]->C
#                           R5 [1140,1150]->D  R6 [1150,1158]->M2
#   device ops: X kernel s7 [990,1010] bps .25 occ 10     M1 memcpy s7 [1036,1044]
#               A kernel s7 [1050,1090] bps .5 occ 40     B kernel s8 [1070,1120] bps .75 occ 60
#               S memset s8 [1126,1130]                   C kernel s7 [1140,1230] bps 2 occ 25
#               D kernel s8 [1150,1170] bps 1 occ 50      M2 memcpy s9 [1160,1175]
#   cpu: DataLoader [1005,1020], [1105,1115]; aten::add [1025,1065]; aten::mul [1120,1160]
# Step matching (runtimes by ts): R99 starts before PS#1 -> unmatched; PS#1 gets
#   R2,R1,R3 (M1,A,B: 3 ops, device span [1036,1120]); R7 starts at 1108 >= 1100 ->
#   next step; PS#2 gets R7,R4,R5,R6 (S,C,D,M2: 4 ops, span [1126,1230]).
# First-step bound: unmatched X ends 1010 < F0 = 1036 -> L = max(1000,1010) = 1010.
#   step 1: start max(1010,1000)=1010, end max(1100,1120)=1120 -> 110
#   step 2: start max(1120,1100)=1120, end max(1200,1230)=1230 -> 110
#   tail: 3*0.8 = 2.4 > 4? no -> both kept.  Steps span [1010,1230] = 220.
# Role unions: Kernel [990,1010] [1050,1120] [1140,1230]; Memcpy [1036,1044] [1160,1175];
#   Memset [1126,1130]; Runtime [980,985] [1028,1034] [1040,1046] [1060,1065]
#   [1108,1112] [1125,1135] [1140,1158]; DataLoader [1005,1020] [1105,1115];
#   CPU Exec [1025,1065] [1120,1160].
# Priority partition over slots [1010,1230]:
#   Kernel   : [1050,1120]=70 (s1), [1140,1230]=90 (s2); slots [1010,1050] [1120,1140]
#   Memcpy   : [1036,1044]=8 (s1); slots [1010,1036] [1044,1050] [1120,1140]
#   Memset   : [1126,1130]=4 (s2); slots [1010,1036] [1044,1050] [1120,1126] [1130,1140]
#   Runtime  : [1028,1034]=6 + [1044,1046]=2 -> s1 8; [1125,1126]=1 + [1130,1135]=5 -> s2 6
#   DataLoad.: [1010,1020]=10 (s1)
#   CPU Exec : [1025,1028]=3 + [1034,1036]=2 + [1046,1050]=4 -> s1 9;
#              [1120,1125]=5 + [1135,1140]=5 -> s2 10
#   Other    : [1020,1025]=5 (s1) (TBP would call it CPU Exec via the gpu annotation; (a))
#   check: 70+8+8+10+9+5 = 110, 90+4+6+10 = 110.
# GPU utilization: kernels ∩ [1010,1230] = 70+90 = 160 -> 160/220.
# SM efficiency segments (capped at 1): [1050,1070] .5 | [1070,1090] 1.25->1 |
#   [1090,1120] .75 | [1140,1230] >=1 -> 1  (X [990,1010] has no length inside);
#   0.5*20 + 1*20 + 0.75*30 + 1*90 = 142.5 -> 142.5/220.
# Occupancy (each kernel clipped to [1010,1230]; X clips to 0 and drops):
#   (40*40 + 60*50 + 25*90 + 50*20) / (40+50+90+20) = 7850/200 = 39.25 % -> 0.3925.
# Tensor cores: "ampere_s16816gemm..." matches "16816": (40+90) / (20+40+50+90+20) = 130/220.
# HTA: span [990,1230] = 240; union of all ops = [990,1010] [1036,1044] [1050,1120]
#   [1126,1130] [1140,1230] = 20+8+70+4+90 = 192 -> idle 48; compute (kernels) =
#   20+70+90 = 180; non_compute = 192-180 = 12.  No comm kernels -> comm_overlap null.
EXPECT["ok_two_steps"] = {
    "steps": [step(1, 1010, 1120, 3, kernel=70, memcpy=8, runtime=8, dataloader=10, cpu_exec=9, other=5),
              step(2, 1120, 1230, 4, kernel=90, memset=4, runtime=6, cpu_exec=10)],
    "breakdown.avg_step_us": us(110),
    "breakdown.avg_us": roles(kernel=F(70 + 90, 2), memcpy=F(8, 2), memset=F(4, 2), runtime=F(8 + 6, 2),
                              dataloader=F(10, 2), cpu_exec=F(9 + 10, 2), other=F(5, 2)),
    "breakdown.steps_trimmed": exact(0),
    "breakdown.steps_from_profiler": exact(True),
    "devices.len": exact(1),
    "devices[0].id": exact(0),
    "devices[0].num_sms": exact(108),
    "devices[0].kernel_count": exact(5),
    "devices[0].kernel_time_us": us(20 + 40 + 50 + 90 + 20),
    "devices[0].gpu_utilization": ratio(F(160, 220)),
    "devices[0].sm_efficiency": ratio(F(1425, 10) / 220),
    "devices[0].achieved_occupancy": ratio(F(7850, 200) / 100),
    "devices[0].tensor_core_share": ratio(F(130, 220)),
    "devices[0].temporal.span_us": us(240),
    "devices[0].temporal.idle_us": us(48),
    "devices[0].temporal.compute_us": us(180),
    "devices[0].temporal.non_compute_us": us(12),
    "devices[0].comm_overlap": ratio(None),
    "summary.steps": exact(2),
    "summary.step_time_us.mean": us(110), "summary.step_time_us.median": us(110),
    "summary.step_time_us.min": us(110), "summary.step_time_us.max": us(110),
    "summary.gpu_utilization": ratio(F(160, 220)),
    "summary.sm_efficiency": ratio(F(1425, 10) / 220),
    "summary.achieved_occupancy": ratio(F(7850, 200) / 100),
    "summary.tensor_core_share": ratio(F(130, 220)),
    "summary.kernel_count": exact(5),
    "summary.kernel_time_us": us(220),
    "summary.idle_share": ratio(F(48, 240)),
    "summary.compute_share": ratio(F(180, 240)),
    "summary.non_compute_share": ratio(F(12, 240)),
    "summary.comm_share": ratio(0),
    "summary.comm_overlap": ratio(None),
    "kernels.count": exact(5),
    "kernels.total_us": us(220),
    "kernels.top[0].name": exact("ampere_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn"),
    "kernels.top[0].calls": exact(2),
    "kernels.top[0].total_us": us(130), "kernels.top[0].mean_us": us(65),
    "kernels.top[0].min_us": us(40), "kernels.top[0].max_us": us(90),
    "kernels.top[0].tensor_core": exact(True),
    "kernels.top[1].calls": exact(1), "kernels.top[1].total_us": us(50),
    "inputs[0].rank": exact(0), "inputs[0].world_size": exact(1),
}

# ---------------------------------------------------------------------------
# ok_nccl_overlap.json — one step PS#5 [2000,2300]; compute on stream 7, NCCL on 20.
#   R11 [2015,2025]->K1 "ampere_sgemm_64x64_nn" s7 [2030,2130] bps 1.5 occ 30
#   R12 [2055,2065]->N1 "ncclDevKernel_AllReduce..." s20 [2100,2200] bps .25 occ 5
#        (External id 50 = the cpu_op nccl:all_reduce [2050,2080])
#   R13 [2140,2150]->K2 elementwise s7 [2160,2190] bps .5 occ 50
#   R14 [2200,2210]->N2 "ncclKernel_AllGather..." s20 [2220,2280] bps .25 occ 5
#        (no External id: Communication only by its name, (b))
#   cpu: aten::mm [2010,2040], aten::relu [2135,2155], nccl:all_to_all [2210,2215]
#        (not one of the 10 comm names -> CPU Exec); gpu_user_annotation
#        nccl:all_reduce [2285,2295] -> Communication ((a) exception).
# Step: 4 device ops, device span [2030,2280]; start 2000, end max(2300,2280) = 2300.
# Roles: Kernel [2030,2130] [2160,2190]; Comm [2050,2080] [2100,2200] [2220,2280] [2285,2295];
#   Runtime [2015,2025] [2055,2065] [2140,2150] [2200,2210]; CPU [2010,2040] [2135,2155] [2210,2215].
#   Kernel 100+30 = 130; slots [2000,2030] [2130,2160] [2190,2300]
#   Comm [2130,2160]=30 + [2190,2200]=10 + [2220,2280]=60 + [2285,2295]=10 = 110
#   Runtime [2015,2025]=10 + [2200,2210]=10 = 20
#   CPU [2010,2015]=5 + [2025,2030]=5 + [2210,2215]=5 = 15
#   Other [2000,2010]=10 + [2215,2220]=5 + [2280,2285]=5 + [2295,2300]=5 = 25   (sum 300)
# Utilization: all kernels (incl. NCCL) union [2030,2200] [2220,2280] = 230 -> 230/300.
# SM eff: [2030,2100] 1.5->1 =70; [2100,2130] 1.75->1 =30; [2130,2160] .25 =7.5;
#   [2160,2190] .75 =22.5; [2190,2200] .25 =2.5; [2220,2280] .25 =15 -> 147.5/300.
# Occupancy: (30*100 + 5*100 + 50*30 + 5*60) / (100+100+30+60) = 5300/290 %.
# HTA: span [2030,2280] = 250; union 230 -> idle 20; compute K1 ∪ K2 = 130;
#   non_compute 100; comm kernels N1 ∪ N2 = 160; compute ∩ comm = [2100,2130] 30 +
#   [2160,2190] 30 = 60 -> comm_overlap 60/160.
EXPECT["ok_nccl_overlap"] = {
    "steps": [step(5, 2000, 2300, 4, kernel=130, communication=110, runtime=20, cpu_exec=15, other=25)],
    "breakdown.avg_step_us": us(300),
    "breakdown.avg_us": roles(kernel=130, communication=110, runtime=20, cpu_exec=15, other=25),
    "breakdown.steps_trimmed": exact(0),
    "devices.len": exact(1),
    "devices[0].kernel_count": exact(4),
    "devices[0].kernel_time_us": us(100 + 100 + 30 + 60),
    "devices[0].gpu_utilization": ratio(F(230, 300)),
    "devices[0].sm_efficiency": ratio(F(1475, 10) / 300),
    "devices[0].achieved_occupancy": ratio(F(5300, 290) / 100),
    "devices[0].tensor_core_share": ratio(0),
    "devices[0].temporal.span_us": us(250),
    "devices[0].temporal.idle_us": us(20),
    "devices[0].temporal.compute_us": us(130),
    "devices[0].temporal.non_compute_us": us(100),
    "devices[0].comm_time_us": us(160),
    "devices[0].comm_overlap": ratio(F(60, 160)),
    "summary.steps": exact(1),
    "summary.gpu_utilization": ratio(F(230, 300)),
    "summary.idle_share": ratio(F(20, 250)),
    "summary.compute_share": ratio(F(130, 250)),
    "summary.non_compute_share": ratio(F(100, 250)),
    "summary.comm_share": ratio(F(110, 300)),
    "summary.comm_overlap": ratio(F(60, 160)),
    "kernels.count": exact(4),
    "kernels.total_us": us(290),
    "inputs[0].rank": exact(1), "inputs[0].world_size": exact(2),
}

# ---------------------------------------------------------------------------
# ok_no_steps.json — no ProfilerStep: one window [min ts, max ts+dur] over the
#   Operator/Python events only: aten::linear [3000,3050], aten::softmax [3060,3082]
#   -> host window [3000,3082].  The user_annotation "forward" [2950,3005] and the
#   python_function [2800,3300] do not widen it.
#   R21 cudaLaunchKernel [3010,3020] -> K1 s7 [3030,3080] bps .8 occ 20
#   D22 cuLaunchKernel (cuda_driver, (c)) [3065,3075] -> K2 s7 [3085,3120] bps .4 occ 40
# Both launches lie in the window -> 2 device ops, device span [3030,3120];
#   start 3000, end max(3082,3120) = 3120 -> 120.  Step number: none (null).
# Roles: Kernel [3030,3080] [3085,3120] = 85; slots [3000,3030] [3080,3085]
#   Runtime [3010,3020] = 10; D22 [3065,3075] lies inside K1 [3030,3080]: 0
#   CPU Exec: linear [3000,3010]+[3020,3030] = 20, softmax [3080,3082] = 2,
#     "forward" annotation [2950,3005] adds nothing new -> 22
#   Other [3082,3085] = 3 (python_function has no role)           (85+10+22+3 = 120)
# Utilization 85/120; SM eff (0.8*50 + 0.4*35)/120 = 54/120;
# occupancy (20*50 + 40*35)/85 = 2400/85 %.
# HTA: span [3030,3120] = 90, union 85 -> idle 5; compute 85; non_compute 0.
EXPECT["ok_no_steps"] = {
    "steps": [step(None, 3000, 3120, 2, kernel=85, runtime=10, cpu_exec=22, other=3)],
    "breakdown.avg_step_us": us(120),
    "breakdown.avg_us": roles(kernel=85, runtime=10, cpu_exec=22, other=3),
    "breakdown.steps_from_profiler": exact(False),
    "breakdown.steps_trimmed": exact(0),
    "devices.len": exact(1),
    "devices[0].gpu_utilization": ratio(F(85, 120)),
    "devices[0].sm_efficiency": ratio(F(54, 120)),
    "devices[0].achieved_occupancy": ratio(F(2400, 85) / 100),
    "devices[0].temporal.span_us": us(90),
    "devices[0].temporal.idle_us": us(5),
    "devices[0].temporal.compute_us": us(85),
    "devices[0].temporal.non_compute_us": us(0),
    "devices[0].comm_overlap": ratio(None),
    "summary.steps": exact(1),
    "summary.step_time_us.mean": us(120),
    "kernels.count": exact(2),
    "kernels.total_us": us(85),
    "inputs[0].rank": NULL, "inputs[0].world_size": NULL,
}

# ---------------------------------------------------------------------------
# ok_cpu_only.json — no runtimes, no device ops: host steps unchanged, no trimming.
#   PS#0 (cpu_op) [5000,5100], PS#1 (user_annotation) [5100,5180], PS#2 [5200,5250]
#   DataLoader: enumerate(DataLoader)#..._MultiProcessingDataLoaderIter.__next__ [5000,5030],
#               enumerate(DataPipe)#ShufflerIterDataPipe [5100,5110]
#   Communication: user_annotation gloo:all_reduce [5070,5095]
#   CPU Exec: aten::conv2d [5030,5080], aten::relu [5110,5150],
#             Optimizer.step#SGD.step (host user_annotation) [5150,5170], aten::add [5210,5220]
#   python_function [5150,5180]: no role.
# Slots = [5000,5180] [5200,5250].
#   Comm [5070,5095] = 25 (s0); DataLoader 30 (s0), 10 (s1)
#   CPU: conv2d minus comm = [5030,5070] 40 (s0); relu 40 + opt 20 = 60 (s1); add 10 (s2)
#   Other: s0 [5095,5100] 5; s1 [5170,5180] 10; s2 50-10 = 40
# Averages over 3 steps; no devices; GPU metrics null.
EXPECT["ok_cpu_only"] = {
    "steps": [step(0, 5000, 5100, 0, communication=25, dataloader=30, cpu_exec=40, other=5),
              step(1, 5100, 5180, 0, dataloader=10, cpu_exec=60, other=10),
              step(2, 5200, 5250, 0, cpu_exec=10, other=40)],
    "breakdown.avg_step_us": us(F(100 + 80 + 50, 3)),
    "breakdown.avg_us": roles(communication=F(25, 3), dataloader=F(30 + 10, 3),
                              cpu_exec=F(40 + 60 + 10, 3), other=F(5 + 10 + 40, 3)),
    "breakdown.steps_trimmed": exact(0),
    "devices.len": exact(0),
    "summary.steps": exact(3),
    "summary.step_time_us.mean": us(F(230, 3)),
    "summary.step_time_us.median": us(80),
    "summary.step_time_us.min": us(50),
    "summary.step_time_us.max": us(100),
    "summary.gpu_utilization": ratio(None),
    "summary.sm_efficiency": ratio(None),
    "summary.achieved_occupancy": ratio(None),
    "summary.kernel_count": exact(0),
    "kernels.count": exact(0),
    "findings.has": exact("cpu_only_trace"),
    "inputs[0].rank": exact(3), "inputs[0].world_size": exact(4),
}

# ---------------------------------------------------------------------------
# ok_old_format.json — PyTorch 1.8/1.9 layout: cats Operator/Runtime/Kernel/Memcpy/Memset,
#   GPU tid "stream 7", lowercase "external id", epoch-integer ts.  Offsets below are
#   from B = 1623142623400000.
#   PS#10 [0,100], PS#11 [100,200], PS#12 [200,260] (Operator)
#   step 10: R101 [10,20]->k1 s7 [30,90] bps .5 occ 30; R102 [40,50]->memcpy s7 [92,98];
#            R103 [62,66]->memset s7 [99,100]; cudaStreamSynchronize [70,94] (no op)
#   step 11: R105 [110,120]->k2 s7 [125,210] bps 1.2 occ 45; R106 [130,135]->memcpy s8 [140,150];
#            R107 [150,155]->memset s8 [160,165]
#   step 12: R108 [220,230]->k3 s7 [235,250] bps .9 occ 60
#   Operator: conv2d [5,95], DataLoader __next__ [100,104], relu [105,195], add [215,235]
# Matching: 3, 3, 1 device ops.  L = 0.  s10 [0, max(100,100)] = [0,100];
#   s11 [max(100,100), max(200,210)] = [100,210]; s12 [210, 260].
# Tail: last step with ops is s12; 3*0.8 = 2.4 > 1 -> s12 dropped (steps_trimmed 1).
# Slots [0,210]:
#   Kernel [30,90]=60 (s10), [125,210]=85 (s11); slots [0,30] [90,125]
#   Memcpy [92,98]=6 (s10); Memset [99,100]=1 (s10)
#   Runtime [10,20]=10 + sync∩[90,92]=2 -> s10 12; [110,120]=10 -> s11 10
#   DataLoader [100,104]=4 (s11)
#   CPU conv [5,10]+[20,30] = 15 (s10); relu [105,110]+[120,125] = 10 (s11)
#   Other s10 [0,5]+[98,99] = 6; s11 [104,105] = 1        (100 and 110 check)
# Span [0,210]: util (60+85)/210; SM (0.5*60 + 1*85)/210 = 115/210 (k3 outside);
#   occupancy (30*60 + 45*85)/(60+85) = 5625/145 %.
# HTA: span [30,250] = 220; union [30,90] [92,98] [99,100] [125,210] [235,250] = 167;
#   idle 53; compute 60+85+15 = 160; non_compute 7.
B = 1623142623400000
EXPECT["ok_old_format"] = {
    "steps": [step(10, B + 0, B + 100, 3, kernel=60, memcpy=6, memset=1, runtime=12, cpu_exec=15, other=6),
              step(11, B + 100, B + 210, 3, kernel=85, runtime=10, dataloader=4, cpu_exec=10, other=1)],
    "breakdown.avg_step_us": us(105),
    "breakdown.avg_us": roles(kernel=F(145, 2), memcpy=3, memset=F(1, 2), runtime=11,
                              dataloader=2, cpu_exec=F(25, 2), other=F(7, 2)),
    "breakdown.steps_trimmed": exact(1),
    "devices.len": exact(1),
    "devices[0].num_sms": exact(80),
    "devices[0].compute_capability": exact("7.0"),
    "devices[0].kernel_count": exact(3),
    "devices[0].gpu_utilization": ratio(F(145, 210)),
    "devices[0].sm_efficiency": ratio(F(115, 210)),
    "devices[0].achieved_occupancy": ratio(F(5625, 145) / 100),
    "devices[0].temporal.span_us": us(220),
    "devices[0].temporal.idle_us": us(53),
    "devices[0].temporal.compute_us": us(160),
    "devices[0].temporal.non_compute_us": us(7),
    "summary.steps": exact(2),
    "summary.step_time_us.mean": us(105),
    "summary.step_time_us.min": us(100),
    "summary.step_time_us.max": us(110),
    "kernels.count": exact(3),
    "kernels.total_us": us(60 + 85 + 15),
    "kernels.top[0].name": exact("volta_sgemm_128x64_nn"),
    "kernels.top[0].calls": exact(2),
    "kernels.top[0].total_us": us(100),
}

# ---------------------------------------------------------------------------
# ok_ns_float.json — 3-decimal float us at T = 4458676522000 (offsets below are from T;
#   doubles at this magnitude step by 2^-10 us, so only exact ns arithmetic is safe).
#   PS#1 [651.093, 651.093+106.723 = 757.816], PS#2 [757.816, 808.316]
#   R1 [660.101,665.303] -> K1 s7 [670.010,720.333] bps .333 occ 33.3
#   R2 ts 756.747 dur 1.069 -> ends at 757.816 = PS#1's end EXACTLY (in IEEE double
#      756.747+1.069 rounds one ulp above 651.093+106.723: a double reader would see the
#      runtime straddle the step end and lose K2).  R2 -> K2 s7 [762.500,767.750] bps .5 occ 50
#   R3 [768.001,773.002] -> K3 s7 [777.125,807.250] bps 1 occ 25
#   R4 [773.500,775.500] -> K4 s8 [778.000,778.001] (1 ns) bps 2 occ 100
#   cpu: aten::mm [659.999,666.000], aten::add [767.900,776.000]
# Steps: s1 ops K1,K2 (span [670.010,767.750]) -> [651.093, 767.750] = 116.657
#        s2 ops K3,K4 -> [max(767.750,757.816), max(808.316,807.250)] = [767.750,808.316] = 40.566
# Roles, s1: Kernel 50.323 + 5.250 = 55.573; Runtime 5.202 + 1.069 = 6.271;
#   CPU [659.999,660.101] .102 + [665.303,666.000] .697 = .799; Other 116.657-55.573-6.271-.799 = 54.014
#   (= [651.093,659.999] 8.906 + [666.000,670.010] 4.010 + [720.333,756.747] 36.414 + [757.816,762.500] 4.684)
# s2: Kernel 30.125; Runtime 5.001 + 2.000 = 7.001; CPU [767.900,768.001] .101 +
#   [773.002,773.500] .498 + [775.500,776.000] .500 = 1.099; Other .150 + 1.125 + 1.066 = 2.341
# Span 808.316-651.093 = 157.223: util 85.698/157.223;
#   SM (0.333*50.323 + 0.5*5.250 + 1*30.125)/157.223 = 49.507559/157.223;
#   occupancy (33.3*50.323 + 50*5.250 + 25*30.125 + 100*0.001)/85.699 %.
# HTA: span [670.010,807.250] = 137.240; union 85.698 -> idle 51.542; compute 85.698.
T = 4458676522000
D = lambda s: F(s)          # exact decimal
EXPECT["ok_ns_float"] = {
    "steps": [step(1, T + D("651.093"), T + D("767.750"), 2,
                   kernel=D("55.573"), runtime=D("6.271"), cpu_exec=D("0.799"), other=D("54.014")),
              step(2, T + D("767.750"), T + D("808.316"), 2,
                   kernel=D("30.125"), runtime=D("7.001"), cpu_exec=D("1.099"), other=D("2.341"))],
    "steps[0].duration_us": us(D("116.657")),
    "steps[1].duration_us": us(D("40.566")),
    "breakdown.avg_step_us": us((D("116.657") + D("40.566")) / 2),
    "breakdown.avg_us": roles(kernel=(D("55.573") + D("30.125")) / 2, runtime=(D("6.271") + D("7.001")) / 2,
                              cpu_exec=(D("0.799") + D("1.099")) / 2, other=(D("54.014") + D("2.341")) / 2),
    "devices[0].gpu_utilization": ratio(D("85.698") / D("157.223")),
    "devices[0].sm_efficiency": ratio((D("0.333") * D("50.323") + D("0.5") * D("5.250") + D("30.125"))
                                      / D("157.223")),
    "devices[0].achieved_occupancy": ratio((D("33.3") * D("50.323") + 50 * D("5.250") + 25 * D("30.125")
                                            + 100 * D("0.001")) / D("85.699") / 100),
    "devices[0].temporal.span_us": us(D("137.240")),
    "devices[0].temporal.idle_us": us(D("51.542")),
    "devices[0].temporal.compute_us": us(D("85.698")),
    "devices[0].temporal.non_compute_us": us(0),
    "summary.step_time_us.min": us(D("40.566")),
    "summary.step_time_us.max": us(D("116.657")),
    "kernels.count": exact(4),
    "kernels.total_us": us(D("85.699")),
    "kernels.top[0].name": exact("ampere_sgemm_128x32_tn"),
    "kernels.top[0].total_us": us(D("80.448")),
    "kernels.top[0].mean_us": us(D("40.224")),
    "kernels.top[0].min_us": us(D("30.125")),
    "kernels.top[0].max_us": us(D("50.323")),
    "kernels.top[2].total_us": us(D("0.001")),
}

# ---------------------------------------------------------------------------
passed = failed = 0

def get(report, path):
    cur = report
    for part in path.replace("]", "").replace("[", ".").split("."):
        if isinstance(cur, list):
            cur = cur[int(part)]
        else:
            cur = cur[part]
    return cur

def check(trace, path, spec, actual):
    global passed, failed
    kind, want = spec
    if want is None:
        good = actual is None
    elif kind == EXACT:
        good = actual == want and isinstance(actual, bool) == isinstance(want, bool)
    else:
        tol = 1e-3 if kind == US else 1e-6
        good = (isinstance(actual, (int, float)) and not isinstance(actual, bool)
                and abs(actual - want) <= tol)
    if good:
        passed += 1
    else:
        failed += 1
        print("FAIL %s: %s: expected %r, got %r" % (trace, path, want, actual))

def flatten(prefix, v, out):
    if isinstance(v, dict):
        for k, x in v.items():
            flatten(prefix + "." + k if prefix else k, x, out)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            flatten("%s[%d]" % (prefix, i), x, out)
    else:
        out[prefix] = v

for t in traces:
    exp = EXPECT[t]
    rc = int(open(os.path.join(tmp, t + ".rc")).read())
    err = open(os.path.join(tmp, t + ".err"), errors="replace").read()
    if rc != 0 or rc >= 128:
        failed += 1
        print("FAIL %s: exit status: expected 0, got %d; stderr: %s" % (t, rc, err.strip()[:500]))
        continue
    passed += 1
    try:
        rep = json.load(open(os.path.join(tmp, t + ".out")))
    except Exception as e:
        failed += 1
        print("FAIL %s: stdout is not JSON: %s" % (t, e))
        continue
    passed += 1
    # events: every object of traceEvents, as Python's json module counts them
    src = json.load(open(os.path.join(data_dir, t + ".json")))
    flat = {}
    steps = exp.get("steps")
    if steps is not None:
        check(t, "steps.len", exact(len(steps)), len(rep.get("steps", [])))
        flatten("steps", steps, flat)
    for k, v in exp.items():
        if k != "steps":
            flatten(k, v, flat) if isinstance(v, dict) else flat.__setitem__(k, v)
    flat["inputs[0].events"] = exact(len(src["traceEvents"]))
    flat["inputs[0].truncated"] = exact(False)
    flat["inputs[0].skipped.malformed"] = exact(0)
    flat["inputs[0].skipped.no_duration"] = exact(0)
    flat["inputs[0].skipped.zero_ts"] = exact(0)
    for path, spec in flat.items():
        if path == "devices.len":
            check(t, path, spec, len(rep.get("devices", [])))
            continue
        if path == "findings.has":
            ids = [f.get("id") for f in rep.get("findings", [])]
            check(t, "findings[].id contains " + spec[1], exact(True), spec[1] in ids)
            continue
        try:
            actual = get(rep, path)
        except (KeyError, IndexError, TypeError, ValueError):
            failed += 1
            print("FAIL %s: %s: missing in the report" % (t, path))
            continue
        check(t, path, spec, actual)
    # every step's roles add up to its duration (TBP partition is exact)
    for i, s in enumerate(rep.get("steps", [])):
        tot = sum(s["breakdown_us"][r] for r in ROLES)
        check(t, "steps[%d] sum(breakdown_us)" % i, us(s["duration_us"]), tot)
    # a clean trace raises no input_* finding
    ids = [f.get("id") for f in rep.get("findings", [])]
    bad_ids = [i for i in ids if i and i.startswith("input_")]
    check(t, "no input_* findings", exact([]), bad_ids)

with open(os.path.join(tmp, "counts"), "w") as fh:
    fh.write("%d %d\n" % (passed, failed))
PYEOF
pyrc=$?
if [ -s "$TMP/counts" ]; then
    read -r P FL <"$TMP/counts"
else
    P=0
    FL=1
    echo "FAIL: the checker did not finish (python exit $pyrc)"
fi
echo "$P passed, $FL failed"
[ "$FL" -eq 0 ]
