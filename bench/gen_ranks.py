#!/usr/bin/env python3
"""Make N rank traces of one job from a single Kineto trace, with a known straggler.

Usage: gen_ranks.py TRACE(.json|.json.gz) OUTDIR --ranks N --straggler R --delay-us D

Every rank gets a copy of TRACE with distributedInfo.rank set.  On every rank
except R, each communication kernel (name starting with "nccl" or "rccl")
starts D µs earlier and lasts D µs longer, ending where it did: those ranks
reached the collective D µs before rank R and waited for it.  A kernel never
starts before the op before it on its stream ends (one stream runs in order;
gpudiag clips ops that overrun their successor): there it starts at that end,
and waits only the gap.  So rank R waits 0 and every other rank waits
min(D, gap to the previous op on the stream) per collective; gpudiag's
cross-rank analysis must name R as the straggler.

The whole trace is loaded with the json module: meant for traces of tens of MB.
"""
import argparse
import gzip
import json
import os


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace")
    ap.add_argument("outdir")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--straggler", type=int, default=1)
    ap.add_argument("--delay-us", type=float, default=1000.0)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    base = load(a.trace)
    shifted = 0
    for r in range(a.ranks):
        doc = json.loads(json.dumps(base))
        info = doc.setdefault("distributedInfo", {})
        info["rank"] = r
        info["world_size"] = a.ranks
        if r != a.straggler:
            # a rank that waits starts its collective earlier, but never before the op
            # before it on the same stream has ended (one stream runs in order): the
            # wait is min(delay, gap to that op's end)
            prev_end = {}
            ops = [e for e in doc["traceEvents"] if e.get("ph") == "X" and
                   str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy", "gpu_memset")]
            ops.sort(key=lambda e: e["ts"])
            for e in ops:
                args = e.get("args") or {}
                lane = (args.get("device", e.get("pid")), args.get("stream", e.get("tid")))
                end = e["ts"] + e["dur"]
                if str(e.get("cat", "")).lower() == "kernel" and \
                        str(e.get("name", "")).lower().startswith(("nccl", "rccl")):
                    ts = e["ts"] - a.delay_us
                    if lane in prev_end:
                        ts = min(e["ts"], max(ts, prev_end[lane]))
                    e["dur"] = e["dur"] + (e["ts"] - ts)
                    e["ts"] = ts
                    shifted += 1
                prev_end[lane] = max(prev_end.get(lane, end), end)
        with open(os.path.join(a.outdir, "rank%03d.json" % r), "w") as f:
            json.dump(doc, f)
    print(f"{a.ranks} ranks in {a.outdir}; straggler {a.straggler}; {shifted} kernels shifted by {a.delay_us} us")


if __name__ == "__main__":
    main()
