#!/usr/bin/env python3
"""Compare gpudiag's JSON report with the independent TBP oracle's expected values.

Usage: compare.py GPUDIAG_BINARY TRACE EXPECTED.json [--abs-tol US] [--skip FIELD ...]

Checks, with the tolerances the two implementations can honour (gpudiag prints
times to the ns, ratios to 6 significant digits):
  steps        number, start_us, end_us, device_ops of every step
  breakdown    every role of every step, and the per-step average
  gpu          GPU utilization, Est. SM efficiency, Est. achieved occupancy per device
  step_time    mean / median / min / max
  kernels      the top-10 kernels: name, calls, total_us
  overruns     clipped GPU ops and the time removed (inputs[].overruns), when the
               expected values were made with tbp_oracle.py --clip-overruns
  memory       per GPU with [memory] events: the event count, and the peak
               allocated = TBP's Memory-view peak (Total Allocated); on a trace
               before PyTorch 1.10 (no totals: TBP shows no curve) the
               oracle's running sum of Bytes, gpudiag's lower bound
Fields named with --skip are not compared (a documented deviation from TBP;
see docs/DEFINITIONS.md).  Exit 0 when everything compared is equal.
"""
import json
import subprocess
import sys

ROLES = [("Kernel", "kernel"), ("Memcpy", "memcpy"), ("Memset", "memset"),
         ("Communication", "communication"), ("Runtime", "runtime"),
         ("DataLoader", "dataloader"), ("CPU Exec", "cpu_exec"), ("Other", "other")]

failures = []
ABS_TOL_US = 0.0015
RATIO_TOL = 1e-6


def close(a, b, abs_tol=None, rel_tol=2e-5):
    if abs_tol is None:
        abs_tol = ABS_TOL_US
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= max(abs_tol, rel_tol * max(abs(a), abs(b)))


def check(what, got, want, **kw):
    if not close(got, want, **kw):
        failures.append(f"{what}: gpudiag {got!r} != oracle {want!r}")


def check_memory(rep, exp):
    got = {"GPU%d" % d["device"]: d for d in (rep.get("memory") or {}).get("devices", [])}
    want = {k: v for k, v in (exp.get("memory") or {}).items() if k.startswith("GPU")}
    if set(got) != set(want):
        failures.append(f"memory devices: gpudiag {sorted(got)} != oracle {sorted(want)}")
        return
    for dev, w in want.items():
        g = got[dev]
        if g["events"] != w["events"]:
            failures.append(f"{dev} memory events {g['events']} != {w['events']}")
        if "tbp_peak_bytes" in w:
            if not g["has_totals"]:
                failures.append(f"{dev}: oracle has Total Allocated, gpudiag has_totals false")
            check(f"{dev} peak allocated", g["peak_allocated_bytes"], w["tbp_peak_bytes"], abs_tol=0, rel_tol=0)
        else:
            if g["has_totals"]:
                failures.append(f"{dev}: no Total Allocated in the trace, gpudiag has_totals true")
            check(f"{dev} peak allocated (Bytes lower bound)", g["peak_allocated_bytes"],
                  w["bytes_lower_bound_peak"], abs_tol=0, rel_tol=0)


def main():
    global ABS_TOL_US
    binary, trace, expected_path = sys.argv[1:4]
    rest = sys.argv[4:]
    global RATIO_TOL
    if rest[:1] == ["--abs-tol"]:
        ABS_TOL_US = float(rest[1])
        RATIO_TOL = 1e-4
        rest = rest[2:]
    skip = set(rest[1:]) if rest[:1] == ["--skip"] else set()
    exp = json.load(open(expected_path))
    out = subprocess.run([binary, "analyze", "--json", trace], capture_output=True, check=True)
    rep = json.loads(out.stdout)

    if "steps" not in skip:
        want = exp["steps"]
        got = rep["steps"]
        if len(got) != len(want):
            failures.append(f"step count: gpudiag {len(got)} != oracle {len(want)}")
        for g, w in zip(got, want):
            num = int(w["tbp_name"]) if w["tbp_name"].lstrip("-").isdigit() else None
            if exp.get("has_profiler_steps") and g["number"] != num:
                failures.append(f"step number {g['number']} != {num}")
            check(f"step {num} start_us", g["start_us"], w["start_us"])
            check(f"step {num} end_us", g["end_us"], w["end_us"])
            if g["device_ops"] != w["device_ops"]:
                failures.append(f"step {num} device_ops {g['device_ops']} != {w['device_ops']}")

    if "breakdown" not in skip:
        for i, (g, w) in enumerate(zip(rep["steps"], exp["breakdown"]["per_step"])):
            for tbp, ours in ROLES:
                check(f"step {i} {ours}", g["breakdown_us"][ours], w[tbp])
        avg = exp["breakdown"].get("average") or exp["breakdown"].get("avg")
        if avg:
            for tbp, ours in ROLES:
                check(f"avg {ours}", rep["breakdown"]["avg_us"][ours], avg[tbp])

    if "gpu" not in skip:
        devs = {str(d["id"]): d for d in rep["devices"]}
        for gid, w in exp["gpus"].items():
            d = devs.get(gid)
            if d is None:
                failures.append(f"device {gid} missing")
                continue
            check(f"gpu {gid} utilization", d["gpu_utilization"], w["gpu_utilization"], abs_tol=RATIO_TOL)
            check(f"gpu {gid} sm_efficiency", d["sm_efficiency"], w["est_sm_efficiency"], abs_tol=RATIO_TOL)
            occ = w["est_achieved_occupancy_pct"]
            check(f"gpu {gid} occupancy", d["achieved_occupancy"], None if occ is None else occ / 100.0,
                  abs_tol=RATIO_TOL)

    if "step_time" not in skip and exp["step_time"]["count"]:
        st = rep["summary"]["step_time_us"]
        for k in ("mean", "median", "min", "max"):
            check(f"step_time {k}", st[k], exp["step_time"][f"{k}_us"])

    if "kernels" not in skip:
        if not exp["kernels_top10"] and rep["kernels"]["top"]:
            failures.append("oracle has no kernels, gpudiag has %d" % len(rep["kernels"]["top"]))
        for i, (g, w) in enumerate(zip(rep["kernels"]["top"], exp["kernels_top10"] or [])):
            if g["name"] != w["name"]:
                failures.append(f"top kernel {i}: {g['name'][:60]!r} != {w['name'][:60]!r}")
                continue
            if g["calls"] != w["calls"]:
                failures.append(f"top kernel {i} calls {g['calls']} != {w['calls']}")
            check(f"top kernel {i} total_us", g["total_us"], w["total_us"])

    if "overruns" not in skip and "overruns" in exp:
        got = rep["inputs"][0]["overruns"]
        if got["ops"] != exp["overruns"]["ops"]:
            failures.append(f"overrun ops: gpudiag {got['ops']} != oracle {exp['overruns']['ops']}")
        check("overrun removed_us", got["removed_us"], exp["overruns"]["removed_us"])

    if "memory" not in skip:
        check_memory(rep, exp)

    if failures:
        print(f"{trace}: {len(failures)} difference(s) from the TBP oracle")
        for f in failures[:40]:
            print("  " + f)
        return 1
    print(f"{trace}: matches the TBP oracle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
