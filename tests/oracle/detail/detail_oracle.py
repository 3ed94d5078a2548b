#!/usr/bin/env python3
"""Independent re-computation of gpudiag's issue-#3 detail numbers for one Kineto trace.

Written from docs/DEFINITIONS.md ("Copies", "Idle gaps" sync calls, "GEMM fill" with its SMs left
to communication, launch
outliers), not from the C code.  Standard library only.  The steps span comes from the TBP
oracle's expected output (tests/oracle/expected/<trace>.json), itself independent of gpudiag.

usage: detail_oracle.py TRACE.json[.gz] TBP_EXPECTED.json > out.json
"""
import gzip
import json
import re
import sys

SYNC_EXACT = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cuCtxSynchronize",
    "cuStreamSynchronize", "cuEventSynchronize", "hipDeviceSynchronize", "hipStreamSynchronize",
    "hipEventSynchronize",
}
# GEMM by name, written for these traces' libraries: cuBLAS (volta_/ampere_ sgemm, splitK reduce,
# cublasLt epilogue), CUTLASS tensorop gemm, rocBLAS Tensile Cijk_; convolutions that use GEMM
# tiles (implicit/explicit_convolve_sgemm, cudnn, xmma fprop/dgrad/wgrad) are not GEMM.
GEMM = re.compile(r"gemm|gemv|cublas|cutlass|xmma|nvjet|matmul|^Cijk_", re.I)
NOT_GEMM = re.compile(r"conv|cudnn|wgrad|dgrad|fprop|winograd|fbgemm_gpu::permute|embedding|norm|"
                      r"nccl|flash|fmha|attention|multi_tensor_apply", re.I)


# Communication kernels by name (DEFINITIONS "Step-time breakdown": NCCL/RCCL, the all-reduces outside
# NCCL, DeepEP's expert-parallel namespaces), for "SMs left to communication" in GEMM fill.
COMM = re.compile(r"^(nccl|rccl)|ncclkernel|nccldevkernel|multimem_all_reduce|one_shot_all_reduce|"
                  r"two_shot_all_reduce|cross_device_reduce|deep_ep::(legacy::)?(intranode::|internode)|"
                  r"deep_ep::elastic::|dpsk::ep::(intranode::|internode)", re.I)


def leaves_sms_to_comm(k, comm):
    """A GEMM with fewer blocks than SMs whose free SMs run communication: comm kernels on its device
    cover >= half its span (their union) and its blocks per SM + the largest of theirs >= 1."""
    s, e = k["ts"], k["ts"] + k["dur"]
    ov = sorted((max(s, cs), min(e, ce), cb) for cs, ce, cb, cd in comm if cd == k["dev"] and cs < e and ce > s)
    if not ov or k["dur"] <= 0:
        return False
    covered, cur = 0.0, None
    for a, b, _ in ov:
        if cur is None or a > cur[1]:
            if cur:
                covered += cur[1] - cur[0]
            cur = [a, b]
        else:
            cur[1] = max(cur[1], b)
    covered += cur[1] - cur[0]
    return 2 * covered >= k["dur"] and k["bps"] + max(b for _, _, b in ov) >= 1 - 1e-4


def strip_version(name):
    m = re.match(r"^(.*)_v\d+$", name)
    return m.group(1) if m else name


def is_sync(name):
    n = strip_version(name)
    if n in SYNC_EXACT:
        return True
    if re.match(r"^(cudaMemcpy|hipMemcpy|cuMemcpy)", n) and not re.search(r"async|withstream", n, re.I):
        return True
    return False


def direction(name):
    low = name.lower()
    for k in ("htod", "dtoh", "dtod"):
        if k in low:
            return {"htod": "h2d", "dtoh": "d2h", "dtod": "d2d"}[k]
    return "other"


def main(argv):
    path, tbp = argv[1], argv[2]
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as fp:
        doc = json.load(fp)
    exp = json.load(open(tbp))
    steps = exp["steps"]
    span_s, span_e = steps[0]["start_us"], steps[-1]["end_us"]
    # host-side counts (sync calls) use the host steps span: the first step's host start to the
    # latest host end (DEFINITIONS "Steps" 4), not the device-adjusted span
    hspan_s, hspan_e = steps[0]["host_start_us"], max(s["host_end_us"] for s in steps)
    nsteps = len(steps)
    evs = [e for e in doc["traceEvents"] if e.get("ph") == "X" and isinstance(e.get("dur"), (int, float))
           and e["dur"] >= 0]
    out = {"steps": nsteps, "transfers": {}, "pageable": {"count": 0, "bytes": 0, "time_us": 0.0},
           "sync_calls": 0, "sync_time_us": 0.0,
           "gemm_fill": {"calls": 0, "time_us": 0.0, "blocks_known_us": 0.0, "underfilled_us": 0.0,
                         "sm_idle_us": 0.0, "comm_filled_us": 0.0}}
    comm = [(e["ts"], e["ts"] + e["dur"], (e.get("args") or {}).get("blocks per SM") or 0,
             (e.get("args") or {}).get("device")) for e in evs
            if str(e.get("cat", "")).lower() == "kernel" and COMM.search(e.get("name", ""))]
    for k in ("h2d", "d2h", "d2d", "other"):
        out["transfers"][k] = {"count": 0, "bytes": 0, "time_us": 0.0}
    for e in evs:
        cat = str(e.get("cat", "")).lower()
        ts, dur, name, args = e["ts"], e["dur"], e.get("name", ""), e.get("args") or {}
        inside = span_s <= ts < span_e
        if cat in ("gpu_memcpy", "memcpy") and inside:
            t = out["transfers"][direction(name)]
            b = args.get("bytes", 0) if isinstance(args.get("bytes", 0), (int, float)) else 0
            t["count"] += 1
            t["bytes"] += max(b, 0)
            t["time_us"] += dur
            if "Pageable" in name:
                out["pageable"]["count"] += 1
                out["pageable"]["bytes"] += max(b, 0)
                out["pageable"]["time_us"] += dur
        elif cat in ("cuda_runtime", "runtime", "cuda_driver") and is_sync(name):
            if ts < hspan_e and ts + dur > hspan_s:
                out["sync_calls"] += 1
                out["sync_time_us"] += dur
        elif cat == "kernel" and inside and GEMM.search(name) and not NOT_GEMM.search(name):
            g = out["gemm_fill"]
            g["calls"] += 1
            g["time_us"] += dur
            bps = args.get("blocks per SM")
            if isinstance(bps, (int, float)):
                g["blocks_known_us"] += dur
                if 0 <= bps < 1 and leaves_sms_to_comm({"ts": ts, "dur": dur, "bps": bps,
                                                        "dev": args.get("device")}, comm):
                    g["comm_filled_us"] += dur
                elif 0 <= bps < 1:
                    g["underfilled_us"] += dur
                    g["sm_idle_us"] += dur * (1 - bps)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
