#!/usr/bin/env python3
"""Independent re-implementation of Holistic Trace Analysis (HTA) numbers.

Standard library only.  Reads one Kineto trace (.json or .json.gz) and prints JSON with, per GPU
device, HTA's temporal breakdown, the per-(device, stream) idle time breakdown, the
communication/computation overlap, and HTA's CUDA kernel launch statistics.

All events of the trace are used (HTA with include_last_profiler_step=True and no last-step
filtering).  Timestamps are kept exact: ``ts``/``dur`` are parsed as decimals and converted to
integer nanoseconds (HTA's ceil/floor "ns rounding" of float timestamps is NOT applied).
Every choice is documented in README.md next to this file.

Usage: hta_oracle.py TRACE [--pretty] [--hta-ns-rounding]
  --hta-ns-rounding  apply HTA's ceil(ts)/floor(end) whole-µs rounding to float-ts traces
                     (diagnostic only; the expected files are generated without it)
"""

import gzip
import json
import re
import sys
from decimal import Decimal, ROUND_HALF_EVEN

GPU_OP_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"}  # lower-cased
RUNTIME_CATS = {"cuda_runtime", "runtime", "cuda_driver"}               # lower-cased
KERNEL_WAIT_US = 30          # HTA consecutive_kernel_delay (compared against µs values)
RUNTIME_CUTOFF_US = 50       # HTA runtime_cutoff
LAUNCH_DELAY_CUTOFF_US = 100  # HTA launch_delay_cutoff

# HTA's COMPUTATION exclusion list (re.match: anchored at the start, case-sensitive).
_NOT_COMPUTE = re.compile(
    r"^nccl|^hip|^hccl|^.*Sync|^Stream Wait Event|cuda.*LaunchKernel|^runFunction"
    r"|.*Memcpy|.*Memset|.*dma"
    r"|^job_exe|^packet|^pe_exe|^cpum_exe_subgraph|^collective_subgraph_execution"
)


def is_communication(name):
    """COMMUNICATION per the brief: HTA's name rule widened to case-insensitive 'nccl' prefix and
    to ncclDevKernel (HTA issues #122/#208/#247)."""
    return (name.lower().startswith("nccl") or "ncclKernel" in name or "ncclDevKernel" in name)


def is_computation(name):
    if is_communication(name):
        return False
    return _NOT_COMPUTE.match(name) is None


def to_ns(v):
    """Exact µs value (int or Decimal, or numeric string) -> integer ns (half-even at the ns)."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v * 1000
    if isinstance(v, str):
        try:
            v = Decimal(v)
        except Exception:
            return None
    if isinstance(v, float):
        v = Decimal(repr(v))
    if isinstance(v, Decimal):
        if not v.is_finite():
            return None
        return int((v * 1000).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))
    return None


def as_int(v):
    """HTA normalize_gpu_stream_numbers: a value that is not an integer -> None (HTA's -1)."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() else None
    if isinstance(v, str):
        try:
            return int(v.strip())
        except ValueError:
            return None
    return None


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = json.loads(f.read().decode("utf-8", errors="replace"), parse_float=Decimal)
    if isinstance(data, dict):
        return data.get("traceEvents") or []
    if isinstance(data, list):
        return data
    return []


def merge(intervals):
    """Union of [start, end) integer intervals -> sorted disjoint list (touching ones merge)."""
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def length(merged):
    return sum(e - s for s, e in merged)


def intersect_len(a, b):
    i = j = 0
    tot = 0
    while i < len(a) and j < len(b):
        lo = max(a[i][0], b[j][0])
        hi = min(a[i][1], b[j][1])
        if hi > lo:
            tot += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tot


def us(ns):
    return ns / 1000.0


def median_ns(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return None
    if n % 2:
        return float(v[n // 2])
    return (v[n // 2 - 1] + v[n // 2]) / 2.0


def _ceil_us(ns):
    return -((-ns) // 1000) * 1000


def analyze(path, hta_ns_rounding=False):
    events = load(path)
    # HTA's round_down_time_stamps applies when the trace's ts are floats (ns-resolution traces)
    float_ts = any(isinstance(e.get("ts"), Decimal) for e in events if isinstance(e, dict))
    do_round = hta_ns_rounding and float_ts
    gpu_ops = []        # dicts: name, cat, dev, stream, ts, end, dur, corr, order
    runtime = {}        # correlation -> (ts, dur, name)
    dup_runtime = 0
    skipped = 0
    for idx, e in enumerate(events):
        if not isinstance(e, dict):
            continue
        cat = e.get("cat")
        if not isinstance(cat, str) or "dur" not in e:
            continue  # HTA drops rows without cat or dur
        lcat = cat.lower()
        if lcat == "trace":
            continue
        if lcat not in GPU_OP_CATS and lcat not in RUNTIME_CATS:
            continue
        ts = to_ns(e.get("ts"))
        dur = to_ns(e.get("dur"))
        if ts is None or dur is None or dur < 0:
            skipped += 1
            continue
        if do_round:  # optional: HTA's ceil(ts) / floor(ts + dur) to whole µs
            end = ((ts + dur) // 1000) * 1000
            ts = _ceil_us(ts)
            dur = end - ts
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        corr = as_int(args.get("correlation"))
        name = e.get("name") if isinstance(e.get("name"), str) else ""
        if lcat in GPU_OP_CATS:
            stream = as_int(args.get("stream"))
            if stream is None or stream == -1:
                continue  # HTA: a GPU event is one with stream != -1
            dev = as_int(args.get("device"))
            if dev is None:
                dev = as_int(e.get("pid"))
            gpu_ops.append({"name": name, "cat": lcat, "dev": dev, "stream": stream,
                            "ts": ts, "dur": dur, "end": ts + dur, "corr": corr, "order": idx})
        else:
            if corr is None:
                continue
            if corr in runtime:
                dup_runtime += 1  # keep the first one seen
                continue
            runtime[corr] = (ts, dur, name)

    by_dev = {}
    for op in gpu_ops:
        by_dev.setdefault(op["dev"], []).append(op)

    devices = []
    for dev in sorted(by_dev, key=lambda d: (d is None, d)):
        ops = by_dev[dev]
        allm = merge([(o["ts"], o["end"]) for o in ops])
        kernel_time = allm[-1][1] - allm[0][0]
        idle = kernel_time - length(allm)
        comp = merge([(o["ts"], o["end"]) for o in ops if is_computation(o["name"])])
        comm = merge([(o["ts"], o["end"]) for o in ops if is_communication(o["name"])])
        compute = length(comp)
        non_compute = kernel_time - compute - idle
        comm_len = length(comm)
        both = intersect_len(comp, comm)
        pct = (lambda x: 100.0 * x / kernel_time if kernel_time > 0 else None)
        devices.append({
            "device": dev,
            "gpu_ops": len(ops),
            "temporal": {
                "kernel_time_us": us(kernel_time),
                "idle_us": us(idle),
                "compute_us": us(compute),
                "non_compute_us": us(non_compute),
                "idle_pct": pct(idle),
                "compute_pct": pct(compute),
                "non_compute_pct": pct(non_compute),
            },
            "comm_us": us(comm_len),
            "comm_overlap": (both / comm_len) if comm_len > 0 else None,
            "comm_comp_overlap_us": us(both),
        })

    # ---- idle time breakdown per (device, stream) ----
    streams = []
    groups = {}
    for op in gpu_ops:
        groups.setdefault((op["dev"], op["stream"]), []).append(op)
    for key in sorted(groups, key=lambda k: (k[0] is None, k[0], k[1])):
        ops = sorted(groups[key], key=lambda o: (o["ts"], o["order"]))
        acc = {"host_wait": 0, "kernel_wait": 0, "other": 0}
        cnt = {"host_wait": 0, "kernel_wait": 0, "other": 0}
        neg_n = 0
        neg_sum = 0
        for prev, cur in zip(ops, ops[1:]):
            gap = cur["ts"] - prev["end"]  # HTA: previous op (in ts order) end, not a running max
            rt = runtime.get(cur["corr"]) if cur["corr"] is not None else None
            if rt is not None and rt[0] > prev["end"]:
                c = "host_wait"
            elif gap < KERNEL_WAIT_US * 1000:
                c = "kernel_wait"
            else:
                c = "other"
            acc[c] += gap
            cnt[c] += 1
            if gap < 0:
                neg_n += 1
                neg_sum += gap
        streams.append({
            "device": key[0], "stream": key[1], "ops": len(ops),
            "host_wait_us": us(acc["host_wait"]),
            "kernel_wait_us": us(acc["kernel_wait"]),
            "other_us": us(acc["other"]),
            "intervals": cnt,
            "negative_intervals": neg_n,
            "negative_interval_sum_us": us(neg_sum),
        })

    # ---- CUDA kernel launch statistics ----
    def launch_stats(pairs):
        short = rto = ldo = 0
        delays = []
        for (rts, rdur, _rname), op in pairs:
            delay = max(0, op["ts"] - (rts + rdur))
            delays.append(delay)
            if rdur <= RUNTIME_CUTOFF_US * 1000 and op["dur"] < rdur:
                short += 1
            if rdur > RUNTIME_CUTOFF_US * 1000:
                rto += 1
            if delay > LAUNCH_DELAY_CUTOFF_US * 1000:
                ldo += 1
        med = median_ns(delays)
        n = len(pairs)
        return {
            "linked_kernels": n,
            "short_kernels": short,
            "short_kernel_share": (short / n) if n else None,
            "runtime_outliers": rto,
            "launch_delay_outliers": ldo,
            "launch_delay_median_us": (med / 1000.0) if med is not None else None,
        }

    pairs = [(runtime[o["corr"]], o) for o in gpu_ops
             if o["cat"] == "kernel" and o["corr"] is not None and o["corr"] in runtime]
    strict_names = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync"}
    strict_pairs = [(runtime[o["corr"]], o) for o in gpu_ops
                    if o["corr"] is not None and o["corr"] in runtime
                    and runtime[o["corr"]][2] in strict_names]

    return {
        "trace": path.split("/")[-1],
        "oracle": "hta_oracle.py (HTA definitions, all events, %s)" % (
            "HTA ns rounding applied" if do_round else "exact ns, no ns rounding"),
        "devices": devices,
        "idle_streams": streams,
        "launch": launch_stats(pairs),
        "launch_hta_names": launch_stats(strict_pairs),
        "inputs": {"gpu_ops": len(gpu_ops), "runtime_calls": len(runtime),
                   "duplicate_runtime_correlations": dup_runtime, "skipped": skipped},
    }


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    res = analyze(argv[1], hta_ns_rounding="--hta-ns-rounding" in argv)
    print(json.dumps(res, indent=1 if "--pretty" in argv else None, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
