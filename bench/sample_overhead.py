#!/usr/bin/env python3
"""Sampling overhead of gpudiag's live modes: gpudiag's own CPU time.

Runs `gpudiag watch --csv` on 8 GPUs of the fake libnvidia-ml
(tests/fake_nvml, every field and GPM scripted) at 10 samples/s for
--seconds (default 60) and at 100 samples/s for a tenth of that, and reports
user+system CPU seconds of the process (getrusage of the child, which
includes the fake library's own work) as a share of one core.
Target (issue #6): <= 0.5 % of one core at 10 samples/s; 100 samples/s possible.

Usage: bench/sample_overhead.py [--build build] [--seconds 60]
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

SCRIPT = ["count 8"] + [
    line
    for i in range(8)
    for line in (
        f"name {i} NVIDIA H100 80GB HBM3", f"gpm {i} 1", f"set {i} util 97,40,88", f"set {i} memutil 30",
        f"set {i} mem_total 85899345920", f"set {i} mem_used 42949672960", f"set {i} mem_reserved 536870912",
        f"set {i} sm_clock 1980", f"set {i} sm_clock_max 1980", f"set {i} mem_clock 2619",
        f"set {i} mem_clock_max 2619", f"set {i} power 512.5", f"set {i} power_limit 700", f"set {i} temp 61",
        f"set {i} pcie_rx 2048", f"set {i} pcie_tx 1024", f"set {i} pcie_gen 5", f"set {i} pcie_gen_max 5",
        f"set {i} pcie_width 16", f"set {i} pcie_width_max 16", f"set {i} reasons 0",
        f"set {i} sm_active 41", f"set {i} tensor 12", f"set {i} dram 20", f"set {i} sm_occupancy 15",
        f"procs {i} pid {1000 + i} 1073741824",
    )
]


def measure(gpudiag, lib, script, interval_ms, count):
    env = dict(os.environ, GPUDIAG_NVML_LIB=lib, FAKE_NVML_SCRIPT=script)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    with open(os.devnull, "w") as null:
        subprocess.run([gpudiag, "watch", "--csv", "--interval", f"{interval_ms}ms", "--count", str(count)],
                       env=env, stdout=null, check=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    ap.add_argument("--seconds", type=float, default=60)
    a = ap.parse_args()
    gpudiag = os.path.join(a.build, "gpudiag")
    lib = os.path.join(a.build, "tests", "libfake_nvml_full.so")
    if not (os.path.exists(gpudiag) and os.path.exists(lib)):
        sys.exit(f"build first: {gpudiag} and {lib} are needed")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(SCRIPT) + "\n")
        script = f.name
    try:
        print("| rate | GPUs | samples | wall s | CPU s | CPU share of one core | per GPU sample |")
        print("|---|---|---|---|---|---|---|")
        for rate, secs in ((10, a.seconds), (100, a.seconds / 10)):
            count = int(rate * secs)
            wall, cpu = measure(gpudiag, lib, script, 1000 // rate, count)
            print(f"| {rate}/s | 8 | {count} | {wall:.1f} | {cpu:.3f} | {100 * cpu / wall:.3f} % "
                  f"| {1e6 * cpu / (count * 8):.1f} µs |")
    finally:
        os.unlink(script)


if __name__ == "__main__":
    main()
