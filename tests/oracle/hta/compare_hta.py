#!/usr/bin/env python3
"""Compare gpudiag's HTA-derived numbers with the HTA oracle's expected output.

Usage: compare_hta.py GPUDIAG TRACE EXPECTED
  GPUDIAG   path to the gpudiag binary (run as `GPUDIAG analyze --json TRACE`)
  TRACE     the Kineto trace
  EXPECTED  JSON written by hta_oracle.py for that trace

Tolerances: times are compared as percentages of the device's span (HTA kernel_time) and must
agree within 0.1 percentage point; comm_overlap and short_kernel_share (fractions) within 0.001;
the launch-delay median within 0.01 µs; counts exactly.  Prints every difference; exit status 1
if there is any, 0 if all agree.
"""

import json
import subprocess
import sys

PP = 0.1          # percentage points of span
FRAC = 0.001      # for fractions (0.1 percentage point)
MEDIAN_US = 0.01


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    gpudiag, trace, expected = argv[1:]
    with open(expected) as f:
        exp = json.load(f)
    p = subprocess.run([gpudiag, "analyze", "--json", trace], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    try:
        got = json.loads(p.stdout.decode("utf-8", errors="replace"))
    except ValueError:
        print("FAIL %s: gpudiag rc=%d, no JSON: %s" % (trace, p.returncode,
                                                       p.stderr.decode(errors="replace")[-500:]))
        return 1

    diffs = []

    def diff(what, g, e, note=""):
        diffs.append("%s: gpudiag=%r oracle=%r%s" % (what, g, e, (" (" + note + ")") if note else ""))

    spans = {}
    edev = {d["device"]: d for d in exp["devices"]}
    gdev = {d.get("id"): d for d in (got.get("devices") or []) if d.get("temporal")}
    for dev in sorted(set(edev) | set(gdev), key=lambda x: (x is None, x)):
        if dev not in edev:
            diff("device %s" % dev, "present", "absent")
            continue
        et = edev[dev]["temporal"]
        span = et["kernel_time_us"]
        spans[dev] = span
        if dev not in gdev:
            diff("device %s" % dev, "absent", "present")
            continue
        gt = gdev[dev]["temporal"]
        for gk, ek in (("span_us", "kernel_time_us"), ("idle_us", "idle_us"),
                       ("compute_us", "compute_us"), ("non_compute_us", "non_compute_us")):
            g, e = gt.get(gk), et[ek]
            if g is None:
                diff("device %s temporal.%s" % (dev, gk), g, e)
                continue
            d_pp = 100.0 * abs(g - e) / span if span else abs(g - e)
            if d_pp > PP:
                diff("device %s temporal.%s" % (dev, gk), g, e, "%.3f pp of span" % d_pp)
        g, e = gdev[dev].get("comm_overlap"), edev[dev]["comm_overlap"]
        if (g is None) != (e is None) or (g is not None and abs(g - e) > FRAC):
            diff("device %s comm_overlap" % dev, g, e)

    gstreams = {(s.get("device"), s.get("stream")): s for s in ((got.get("idle") or {}).get("streams") or [])}
    estreams = {(s["device"], s["stream"]): s for s in exp["idle_streams"]}
    for key in sorted(set(gstreams) | set(estreams), key=lambda k: (k[0] is None, k[0], k[1])):
        label = "idle stream dev %s stream %s" % key
        if key not in estreams:
            diff(label, "present", "absent")
            continue
        if key not in gstreams:
            diff(label, "absent", "present")
            continue
        gs, es = gstreams[key], estreams[key]
        span = spans.get(key[0]) or 0.0
        if "ops" in gs and gs["ops"] != es["ops"]:
            diff(label + " ops", gs["ops"], es["ops"])
        for k in ("host_wait_us", "kernel_wait_us", "other_us"):
            g, e = gs.get(k), es[k]
            if g is None:
                diff("%s %s" % (label, k), g, e)
                continue
            d_pp = 100.0 * abs(g - e) / span if span else abs(g - e)
            if d_pp > PP:
                diff("%s %s" % (label, k), g, e, "%.3f pp of span" % d_pp)

    s = got.get("summary") or {}
    el = exp["launch"]
    for k in ("linked_kernels", "runtime_outliers", "launch_delay_outliers"):
        if s.get(k) != el[k]:
            diff("summary." + k, s.get(k), el[k])
    g, e = s.get("short_kernel_share"), el["short_kernel_share"]
    if (g is None) != (e is None) or (g is not None and abs(g - e) > FRAC):
        diff("summary.short_kernel_share", g, e)
    elif g is not None and el["linked_kernels"] and round(g * el["linked_kernels"]) != el["short_kernels"]:
        diff("summary.short_kernel_share (as count)", round(g * el["linked_kernels"]), el["short_kernels"])
    g, e = s.get("launch_delay_median_us"), el["launch_delay_median_us"]
    if (g is None) != (e is None) or (g is not None and abs(g - e) > MEDIAN_US):
        diff("summary.launch_delay_median_us", g, e)

    name = exp.get("trace", trace)
    if diffs:
        print("DIFF %s (%d)" % (name, len(diffs)))
        for d in diffs:
            print("  " + d)
        return 1
    print("OK   %s" % name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
