#!/usr/bin/env python3
"""tracecheck.py INPUT ANNOTATED REPORT.json — check gpudiag's --trace-out
output against the input trace and the JSON report of the same input, with
counts derived here independently of the writer:
  - ANNOTATED is valid JSON (gzip when its name ends in .gz, checked by magic);
  - its top-level keys and values equal INPUT's except traceEvents;
  - its events without the gpudiag pid equal INPUT's events, in order (the
    input's complete events when INPUT was cut short);
  - gpudiag events: one "X" span per idle gap (report idle.gap_count, their
    summed duration = idle.gap_us), one "i" instant per finding at the start
    of the longest step (none without steps), and timeline.bins counter
    samples per device plus per stream with queue_max, metadata naming the
    process "gpudiag".
Exit 1 with the failures printed."""
import gzip
import json
import sys

PID = 2147480000


def load(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    if path.endswith(".gz") != (magic == b"\x1f\x8b"):
        raise SystemExit("FAIL %s: gzip expected exactly when the name ends in .gz" % path)
    op = gzip.open if magic == b"\x1f\x8b" else open
    with op(path, "rt", encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def input_events(text):
    """The input's events; for a cut-off file, the complete ones (raw_decode one by one)."""
    try:
        d = json.loads(text)
        return d, d["traceEvents"] if isinstance(d, dict) else d
    except json.JSONDecodeError:
        pass
    i = text.index("[", text.index('"traceEvents"'))
    dec = json.JSONDecoder()
    evs = []
    i += 1
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        try:
            ev, i = dec.raw_decode(text, i)
        except json.JSONDecodeError:
            break
        evs.append(ev)
    return None, evs


def main():
    inp, out, rep = sys.argv[1:4]
    bad = []
    d_in, ev_in = input_events(load(inp))
    d_out = json.loads(load(out))
    r = json.load(open(rep))
    ev_out = d_out["traceEvents"] if isinstance(d_out, dict) else d_out
    if isinstance(d_in, dict):
        for k in d_in:
            if k != "traceEvents" and d_in[k] != d_out.get(k):
                bad.append("top-level key %s changed" % k)
    orig = [e for e in ev_out if not (isinstance(e, dict) and e.get("pid") == PID)]
    if orig != ev_in:
        bad.append("original events differ: %d in, %d out" % (len(ev_in), len(orig)))
    ann = [e for e in ev_out if isinstance(e, dict) and e.get("pid") == PID]
    by = {}
    for e in ann:
        by.setdefault(e["ph"], []).append(e)
    gaps = by.get("X", [])
    if len(gaps) != r["idle"]["gap_count"]:
        bad.append("gap spans: %d, report gap_count %d" % (len(gaps), r["idle"]["gap_count"]))
    if abs(sum(g["dur"] for g in gaps) - (r["idle"]["gap_us"] or 0)) > 0.001 * (len(gaps) + 1):
        bad.append("gap durations sum %.3f != gap_us %s" % (sum(g["dur"] for g in gaps), r["idle"]["gap_us"]))
    causes = {"sync", "dataloader", "communication", "optimizer", "host_launch", "other", "startup", "compilation", "stream_wait", "kernel_wait"}
    if any(g["name"] not in causes or g["args"]["cause"] != g["name"] for g in gaps):
        bad.append("a gap span not named by its cause")
    inst = by.get("i", [])
    steps = r["steps"]
    want_i = len(r["findings"]) if steps else 0
    if len(inst) != want_i:
        bad.append("finding instants: %d, want %d" % (len(inst), want_i))
    if steps:
        worst = max(steps, key=lambda s: s["duration_us"])
        if any(abs(e["ts"] - worst["start_us"]) > 0.0005 for e in inst):
            bad.append("finding not at the longest step's start %s" % worst["start_us"])
        if [e["name"] for e in inst] != [f["id"] for f in r["findings"]]:
            bad.append("finding ids differ")
    tl = r["timeline"]
    want_c = 0
    if tl:
        want_c = tl["bins"] * (len(tl["devices"]) + sum(1 for s in tl["streams"] if s["queue_max"] is not None))
    if len(by.get("C", [])) != want_c:
        bad.append("counter samples: %d, want %d" % (len(by.get("C", [])), want_c))
    names = [e["args"].get("name") for e in by.get("M", []) if e["name"] == "process_name"]
    if names != ["gpudiag"]:
        bad.append("process_name metadata: %r" % names)
    for b in bad:
        print("FAIL %s: %s" % (inp, b))
    sys.exit(1 if bad else 0)


main()
