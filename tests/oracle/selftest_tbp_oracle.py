#!/usr/bin/env python3
"""Self-test of tbp_oracle.py against the expectations of the TensorBoard plugin's own
unit tests (pytorch/kineto tb_plugin/test/test_profiler.py, last version).  The event
lists below are small synthetic traces rebuilt from those tests' scenarios; the expected
numbers are the values the plugin's tests assert.

Run:  python3 tests/oracle/selftest_tbp_oracle.py      (exit status 0 = all pass)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tbp_oracle as O  # noqa: E402

ROLES = ["Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU Exec", "Other", "Total"]
FAILS = []


def X(cat, name, ts, dur, tid="123", pid=13721, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}


def op(name, ts, dur, ext, tid="123", cat="Operator"):
    return X(cat, name, ts, dur, tid=tid, **{"External id": ext})


def rt(name, ts, dur, corr, ext, tid="123", cat="Runtime"):
    return X(cat, name, ts, dur, tid=tid, correlation=corr, **{"external id": ext})


def dev(cat, name, ts, dur, corr, ext, device=0, **extra):
    a = {"correlation": corr, "external id": ext, "device": device}
    a.update(extra)
    return {"ph": "X", "cat": cat, "name": name, "pid": device, "tid": "stream 7", "ts": ts, "dur": dur, "args": a}


def run(events):
    return O.analyse_doc({"schemaVersion": 1, "traceEvents": events}, "synthetic")


def costs(res, i):
    row = res["breakdown"]["per_step"][i]
    return [row[r] for r in ROLES]


def check(name, got, want, tol=1e-9):
    ok = (got is None and want is None) or (got is not None and want is not None and abs(got - want) <= tol)
    if not ok:
        FAILS.append("%s: got %r want %r" % (name, got, want))


def check_costs(name, res, i, want):
    got = costs(res, i)
    for r, g, w in zip(ROLES, got, want):
        if w is not None:
            check("%s step%d %s" % (name, i, r), g, w)


K = "void cunn_ClassNLLCriterion_updateGradInput_kernel<float>"


def t_all_categories():
    ev = [op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 100, 180, 2),
          op("aten::to", 200, 60, 3),
          op("aten::nll_loss_backward", 340, 70, 4, tid="456"),
          op("ProfilerStep#1", 50, 400, 1),
          dev("Memcpy", "Memcpy HtoD (Pageable -> Device)", 405, 10, 334, 4),
          rt("cudaMemcpyAsync", 360, 20, 334, 4, tid="456"),
          dev("Memset", "Memset (Device)", 420, 5, 40344, 4),
          rt("cudaMemsetAsync", 390, 10, 40344, 4, tid="456"),
          dev("Kernel", K, 430, 15, 40348, 4),
          rt("cudaLaunchKernel", 405, 5, 40348, 4, tid="456")]
    r = run(ev)
    check_costs("all_categories", r, 0, [15, 10, 5, 0, 30, 180, 35, 125, None])


def t_runtime_called_by_profilerstep():
    ev = [op("ProfilerStep#1", 100, 300, 2, tid="456"),
          rt("cudaLaunchKernel", 130, 20, 335, 2, tid="456"),
          dev("Kernel", "void gemmSN_TN_kernel_64addr", 220, 8, 335, 2)]
    r = run(ev)
    check_costs("runtime_by_step", r, 0, [8, None, None, None, 20, None, 0, 300 - 8 - 20, None])


def t_no_profilerstep():
    ev = [op("aten::to", 100, 60, 3),
          op("aten::nll_loss_backward", 300, 70, 4, tid="456"),
          dev("Kernel", K, 320, 100, 40348, 4),
          rt("cudaLaunchKernel", 310, 20, 40348, 4, tid="456")]
    r = run(ev)
    check("no_step count", len(r["steps"]), 1)
    check_costs("no_step", r, 0, [100, 0, 0, None, 10, 0, 70, 140, 320])


def two_steps(kernel_before=False, memcpy_dur=40):
    ev = [op("ProfilerStep#1", 100, 200, 1),
          op("aten::to", 200, 60, 2),
          op("ProfilerStep#2", 350, 150, 3),
          op("aten::mm", 360, 50, 4),
          dev("Memcpy", "Memcpy HtoD (Pageable -> Device)", 280, memcpy_dur, 334, 2),
          rt("cudaMemcpyAsync", 250, 5, 334, 2),
          dev("Kernel", K, 410, 200, 40348, 4),
          rt("cudaLaunchKernel", 400, 5, 40348, 4)]
    if kernel_before:
        ev.append(dev("Kernel", K, 150, 90, 123, 0))
    return ev


def t_steps_no_overlap():
    r = run(two_steps())
    check_costs("no_overlap", r, 0, [0, 40, 0, None, 5, 0, 55, 120, 220])
    check_costs("no_overlap", r, 1, [200, 0, 0, None, 5, 0, 45, 10, 260])
    check("no_overlap avg total", r["breakdown"]["average"]["Total"], 240)


def t_steps_with_overlap():
    r = run(two_steps(kernel_before=True, memcpy_dur=100))
    check_costs("overlap", r, 0, [0, 100, 0, None, 5, 0, 260 - 240 - 5, 280 - 260, 380 - 240])
    check_costs("overlap", r, 1, [200, 0, 0, None, 5, 0, 380 - 360 + 5, 0, 610 - 380])


def t_last_steps_no_kernel():
    ev = [op("ProfilerStep#1", 100, 200, 1),
          op("aten::to", 120, 10, 2),
          op("ProfilerStep#2", 300, 100, 3),
          op("ProfilerStep#3", 400, 50, 4),
          dev("Kernel", K, 90, 20, 123, 0),
          rt("cudaMemcpyAsync", 125, 5, 334, 2),
          dev("Kernel", K, 150, 180, 334, 2)]
    r = run(ev)
    check("last_no_kernel steps", len(r["steps"]), 1)
    check("last_no_kernel total", costs(r, 0)[-1], 330 - 110)


def t_pure_cpu():
    ev = [op("ProfilerStep#1", 100, 200, 1), op("aten::to", 120, 10, 2),
          op("ProfilerStep#2", 300, 100, 3), op("aten::mm", 350, 40, 4)]
    r = run(ev)
    check_costs("pure_cpu", r, 0, [0, 0, 0, 0, 0, 0, 10, 190, 200])
    check_costs("pure_cpu", r, 1, [0, 0, 0, 0, 0, 0, 40, 60, 100])


def t_gpu_utilization():
    def k(name, ts, dur, corr, ext, b, o):
        e = dev("Kernel", name, ts, dur, corr, ext, device=1, **{"blocks per SM": b, "est. achieved occupancy %": o})
        return e
    ev = [op("aten::mat_mul", 100, 100, 2, tid="456"), op("aten::mm", 120, 70, 4, tid="456"),
          k(K, 130, 10, 334, 4, 0.5, 0.6), rt("cudaLaunchKernel", 120, 0, 334, 4, tid="456"),
          k("void gemmSN_TN_kernel_64addr", 135, 15, 335, 2, 0.6, 0.1),
          k("void gemmSN_TN_kernel_64addr", 150, 0, 335, 2, 0.3, 0.2),
          rt("cudaLaunchKernel", 120, 0, 335, 2, tid="456"),
          k(K, 145, 25, 336, 4, 0.3, 1.0), rt("cudaLaunchKernel", 125, 3, 336, 4, tid="456"),
          k(K, 200, 20, 337, 2, 10.5, 0.3), rt("cudaLaunchKernel", 195, 1, 337, 2, tid="456")]
    r = run(ev)
    g = r["gpus"]["1"]
    check("gpu_util", g["gpu_utilization"], (40 + 20) / 120)
    check("sm_eff", g["est_sm_efficiency"],
          (0.5 * 5 + 1.0 * 5 + 0.6 * 5 + 0.9 * 5 + 0.3 * 20 + 1.0 * 20) / 120)
    check("occupancy", g["est_achieved_occupancy_pct"], (0.6 * 10 + 0.1 * 15 + 1.0 * 25 + 0.3 * 20) / 70)


def t_gpu_util_kernel_out_of_step():
    def k(ts, dur, corr, ext, b, o):
        return dev("Kernel", K, ts, dur, corr, ext, device=1, **{"blocks per SM": b, "est. achieved occupancy %": o})
    ev = [op("aten::mat_mul", 10, 10, 1, tid="456"), op("aten::mm", 120, 70, 3, tid="456"),
          op("aten::mm", 220, 20, 4, tid="456"), op("ProfilerStep#2", 100, 100, 2, tid="456"),
          k(60, 20, 334, 1, 0.5, 0.6), rt("cudaLaunchKernel", 15, 5, 334, 1, tid="456"),
          k(240, 25, 337, 4, 10.5, 0.3), rt("cudaLaunchKernel", 230, 10, 337, 4, tid="456")]
    r = run(ev)
    g = r["gpus"]["1"]
    check("oos util", g["gpu_utilization"], 0.0)
    check("oos sm", g["est_sm_efficiency"], None)
    check("oos occ", g["est_achieved_occupancy_pct"], None)


def t_tensor_core():
    ev = [op("aten::conv2d", 200, 100, 3), op("op_no_tc", 205, 10, 4), op("aten::cudnn_convolution", 215, 10, 5),
          dev("Kernel", "kernel_no_tc", 210, 10, 1000, 4), rt("cudaLaunchKernel", 205, 5, 1000, 4),
          dev("Kernel", "volta_fp16_s884cudnn_fp16_128x128_ldg8_splitK_relu_f2f_exp_small_nhwc_tn_v1", 220, 15, 1001, 5),
          rt("cudaLaunchKernel", 215, 5, 1001, 5)]
    r = run(ev)
    check("tc per-gpu", r["tensor_cores"]["per_gpu_op_kernel_ratio"]["0"], 15 / 25)
    check("tc eligible", r["tensor_cores"]["tc_eligible_ops_kernel_ratio"], 15 / 25)
    check("tc kernel view", r["tensor_cores"]["kernel_view_tc_used_ratio"], 15 / 25)


def nccl_worker(w):
    b_dur, b_kts, b_kdur, add_ts, add_kts, ar_kts, ar_kdur = \
        ((75, 16, 16, 100, 130, 162, 1556) if w == 0 else (20, 8, 31, 25, 30, 562, 1058))
    return [X("cpu_op", "nccl:broadcast", 0, b_dur, tid="23803", **{"External id": 146}),
            dev("Kernel", "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclWorkElem)", b_kts, b_kdur, 28506, 146),
            X("cpu_op", "aten::add_", add_ts, 20, tid="23803", **{"External id": 24504}),
            dev("Kernel", "void at::native::vectorized_elementwise_kernel", add_kts, 161, 99765, 24504),
            X("cpu_op", "nccl:all_reduce", 160, 75, tid="25166", **{"External id": 2513}),
            dev("Kernel", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", ar_kts, ar_kdur, 33218, 2513)]


def t_distributed_nccl():
    check_costs("nccl w0", run(nccl_worker(0)), 0, [105, 0, 0, 75, 0, 0, 20, 35, 235])
    check("nccl w1 comm", costs(run(nccl_worker(1)), 0)[3], 74)


def t_distributed_gloo_gpu():
    w0 = [X("cpu_op", "gloo:broadcast", 16, 38, tid="23803", **{"External id": 165}),
          X("cpu_op", "gloo:broadcast", 25, 36, tid="23805", **{"External id": 166}),
          X("cpu_op", "gloo:broadcast", 66, 18, tid="23803", **{"External id": 167}),
          X("cpu_op", "aten::add_", 0, 20, tid="23800", **{"External id": 24504}),
          dev("Kernel", "void at::native::vectorized_elementwise_kernel", 30, 101, 99765, 24504),
          X("cpu_op", "gloo:all_reduce", 110, 18, tid="23805", **{"External id": 2513}),
          X("cpu_op", "gloo:all_reduce", 120, 36, tid="23803", **{"External id": 2516})]
    w1 = [X("cpu_op", "gloo:broadcast", 20, 28, tid="23803", **{"External id": 256}),
          X("cpu_op", "gloo:broadcast", 28, 30, tid="23805", **{"External id": 257}),
          X("cpu_op", "gloo:broadcast", 77, 6, tid="23803", **{"External id": 258}),
          X("cpu_op", "aten::add_", 0, 30, tid="23800", **{"External id": 24504}),
          dev("Kernel", "void at::native::vectorized_elementwise_kernel", 70, 70, 99765, 24504),
          X("cpu_op", "gloo:all_reduce", 88, 38, tid="23805", **{"External id": 2513}),
          X("cpu_op", "gloo:all_reduce", 130, 16, tid="23803", **{"External id": 2516})]
    check_costs("gloo w0", run(w0), 0, [101, 0, 0, 39, 0, 0, 16, 0, 156])
    check_costs("gloo w1", run(w1), 0, [70, 0, 0, 44, 0, 0, 20, 12, 146])


def t_resnet50_nw0_matches_tbp():
    """TBP's own front-end mock (tb_plugin/fe/src/api/mock.ts) holds the plugin's real
    Overview output for resnet50_num_workers_0, the same trace as ours."""
    p = "/work/shared/data/traces/resnet50_v100_num_workers_0.pt.trace.json.gz"
    if not os.path.exists(p):
        return
    r = O.analyse(p)
    want = {  # step: Kernel, Memcpy, Memset, Runtime, DataLoader, CPU Exec, Other, Total
        "5": [98598, 1941, 90, 2796, 69317, 14091, 1115, 187948],
        "6": [98570, 1947, 89, 2762, 57669, 12968, 1148, 175153],
        "7": [98596, 1931, 91, 2877, 61257, 13768, 1213, 179733],
        "8": [98623, 1938, 89, 2841, 56453, 13420, 1200, 174564],
        "9": [98504, 1937, 87, 2788, 62690, 15025, 1141, 182172],
        "10": [98641, 1798, 88, 3381, 48185, 12773, 1117, 165983]}
    cols = ["Kernel", "Memcpy", "Memset", "Runtime", "DataLoader", "CPU Exec", "Other", "Total"]
    check("nw0 steps", len(r["breakdown"]["per_step"]), 6)
    for row in r["breakdown"]["per_step"]:
        for c, w in zip(cols, want[row["tbp_name"]]):
            check("nw0 step %s %s" % (row["tbp_name"], c), row[c], w)
    avg = r["breakdown"]["display_average_rounded_us"]
    for c, w in zip(cols[:-1], [98589, 1915, 89, 2908, 59262, 13674, 1156]):
        check("nw0 avg %s" % c, avg[c], w)
    check("nw0 avg step", r["breakdown"]["display_average_step_time_us"], 177592)
    disp = r["gpus"]["0"]["display"]
    check("nw0 util", disp["GPU Utilization %"], 55.51)
    check("nw0 sm", disp["Est. SM Efficiency %"], 54.68)
    check("nw0 occ", disp["Est. Achieved Occupancy %"], 49.13)
    check("nw0 tc", disp["Kernel Time using Tensor Cores %"], 0.0)
    check("nw0 dl pct", round(r["recommendation_triggers"]["dataloader_ratio"] * 100, 1), 33.4)
    check("nw0 tc eligible", round(r["tensor_cores"]["tc_eligible_ops_kernel_ratio"] * 100), 68)


def t_partition_sums():
    """Every step's roles sum to its duration on the real traces (exact partition)."""
    d = "/work/shared/data/traces"
    if not os.path.isdir(d):
        return
    for f in sorted(os.listdir(d)):
        if not f.endswith(".json.gz"):
            continue
        r = O.analyse(os.path.join(d, f))
        for i, row in enumerate(r["breakdown"]["per_step"]):
            s = sum(row[x] for x in ROLES[:-1])
            check("%s step%d partition" % (f, i), s, row["Total"], tol=1e-6 * max(1, abs(row["Total"])))


def t_memory_view():
    """TBP's Memory view peak: the highest Total Allocated per device over all its events,
    whether or not they carry Addr; the curve only counts events with Addr and both totals.
    Without totals (PyTorch < 1.10) no TBP peak; the Bytes running sum 0, -1, +2, +1 in
    time order (file order of the ties) has highest 2, lowest -1: lower bound 3."""
    def m(ts, dev, b, ta=None, tr=None, addr=None, dt=1):
        a = {"Device Type": dt, "Device Id": dev, "Bytes": b}
        if ta is not None:
            a["Total Allocated"] = ta
        if tr is not None:
            a["Total Reserved"] = tr
        if addr is not None:
            a["Addr"] = addr
        return {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": ts, "args": a}
    doc = {"traceEvents": [
        m(10, 0, 100, 100, 200, addr=1), m(20, 0, 50, 150, 200, addr=2), m(30, 0, -100, 50, 200),
        m(5, 1, -1), m(5, 1, 3), m(7, 1, -1), m(9, 1, 1),  # ties at 5 keep file order: -1 then +3
        m(1, -1, 8, dt=0)]}
    v = O.memory_view(doc)
    check("mem GPU0 peak", v["GPU0"]["tbp_peak_bytes"], 150)
    check("mem GPU0 curve points", v["GPU0"]["tbp_curve_points"], 2)
    check("mem GPU0 events", v["GPU0"]["events"], 3)
    check("mem GPU1 no tbp peak", "tbp_peak_bytes" in v["GPU1"], False)
    check("mem GPU1 lower bound", v["GPU1"]["bytes_lower_bound_peak"], 3)
    check("mem CPU events", v["CPU"]["events"], 1)
    check("mem none", O.memory_view({"traceEvents": []}), None)


TESTS = [t_all_categories, t_runtime_called_by_profilerstep, t_no_profilerstep, t_steps_no_overlap,
         t_steps_with_overlap, t_last_steps_no_kernel, t_pure_cpu, t_gpu_utilization,
         t_gpu_util_kernel_out_of_step, t_tensor_core, t_distributed_nccl, t_distributed_gloo_gpu,
         t_resnet50_nw0_matches_tbp, t_partition_sums, t_memory_view]

if __name__ == "__main__":
    for t in TESTS:
        t()
    if FAILS:
        print("FAIL (%d)" % len(FAILS))
        for f in FAILS:
            print("  " + f)
        sys.exit(1)
    print("OK: %d scenario groups pass" % len(TESTS))
