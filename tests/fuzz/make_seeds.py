#!/usr/bin/env python3
"""make_seeds.py KIND OUTDIR SRC_DIR SHARED_DIR — write the seed inputs of one
kind of fuzz target into OUTDIR (created).  Kinds:
  kineto  tests/data/*.json and tests/data/hostile/* as they are; from each
          real trace in SHARED_DIR/data/traces a small valid trace (its
          metadata, then events of every category up to ~48 KB, one per line)
          and its raw first 32 KB (a cut trace, Kineto's own formatting); one
          gzip seed.
  gzip    gzip of a few tests/data files (one with two members), the first
          16 KB of two real .gz files (cut streams), one plain file.
  cli     option values: in range, out of range, signs, blanks, overflow.
Seeds stay small so that a short run spends its time mutating, not loading."""
import glob, gzip, json, os, sys

kind, out, src, shared = sys.argv[1:5]
os.makedirs(out, exist_ok=True)
data = os.path.join(src, "tests", "data")
traces = sorted(glob.glob(os.path.join(shared, "data", "traces", "*.json.gz")))
n = 0


def put(name, blob):
    global n
    n += 1
    with open(os.path.join(out, "%03d_%s" % (n, name)), "wb") as f:
        f.write(blob)


def small_trace(raw):
    doc = json.loads(raw)
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    per_cat, picked, size = {}, [], 0
    for ev in events:                       # events of every category, in file order
        cat = ev.get("cat", "") if isinstance(ev, dict) else ""
        if per_cat.get(cat, 0) >= 40:
            continue
        line = json.dumps(ev, separators=(",", ":"))
        if size + len(line) > 48000:
            break
        per_cat[cat] = per_cat.get(cat, 0) + 1
        picked.append(line)
        size += len(line) + 2
    head = {k: v for k, v in doc.items() if k != "traceEvents"} if isinstance(doc, dict) else {}
    text = json.dumps(head)[:-1] + (", " if head else "") + '"traceEvents": [\n' + ",\n".join(picked) + "\n]}\n"
    return text.encode()


if kind == "kineto":
    for p in sorted(glob.glob(os.path.join(data, "*.json")) + glob.glob(os.path.join(data, "hostile", "*"))):
        if os.path.isfile(p) and os.path.getsize(p) <= 65536:
            put(os.path.basename(p), open(p, "rb").read())
    for p in traces:
        raw = gzip.decompress(open(p, "rb").read())
        base = os.path.basename(p)[:-3]
        put("small_" + base, small_trace(raw))
        put("head_" + base, raw[:32768])
    put("two_steps.json.gz", gzip.compress(open(os.path.join(data, "ok_two_steps.json"), "rb").read(), 9))
elif kind == "gzip":
    for name in ("ok_two_steps.json", "ok_kernel_mix.json"):
        blob = open(os.path.join(data, name), "rb").read()
        put(name + ".gz", gzip.compress(blob, 6))
        put(name, blob)
    a = open(os.path.join(data, "ok_transfers.json"), "rb").read()
    put("two_members.gz", gzip.compress(a[:900], 1) + gzip.compress(a[900:], 9))
    put("empty.gz", gzip.compress(b""))
    for p in traces[:2]:
        put("cut_" + os.path.basename(p), open(p, "rb").read()[:16384])
elif kind == "cli":
    for v in (b"\x00100", b"\x0040", b"\x001000", b"\x001001", b"\x01+8", b"\x01-1", b"\x02 5",
              b"\x029223372036854775807", b"\x039223372036854775808", b"\x03-9223372036854775808",
              b"\x040x10", b"\x04", b"\x00medium", b"\x00high", b"\x0012abc",
              b"\x00500ms", b"\x002s", b"\x000.5", b"\x001m", b"\x001min", b"\x017B", b"\x0170k", b"\x011.5T",
              b"\x02inf", b"\x03nan", b"\x031e308", b"\x020x1p4"):
        put("opt", v)
else:
    sys.exit("unknown kind " + kind)
print("%d seeds in %s" % (n, out))
