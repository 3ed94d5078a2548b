#!/usr/bin/env python3
"""gen_trace.py - build a big synthetic Kineto trace by replicating a real one.

The events of a real PyTorch-profiler (Kineto) trace are copied *textually*
N times (formatting, key order and whitespace stay exactly Kineto's), and
only numbers are rewritten, per replica r = 0..N-1:

  * every "ts" gets + r * SHIFT microseconds, SHIFT = ceil(span) + 10 ms where
    span = last event end - first ts of the replicated events; integer and
    fractional timestamps (e.g. 3-decimal ns-resolution floats) are rewritten
    exactly, keeping the number of decimals;
  * "id" (flow s/f), "correlation", "External id" and "external id" get
    + r * K, K a power of ten larger than the largest such id (ids <= 0 are
    left alone: they mean "none");
  * "ProfilerStep#N" gets + r * STEPS, STEPS = max N - min N + 1, so the
    steps of different replicas stay distinct (and consecutive).

Kept once (not replicated): everything before and after the traceEvents
array (schemaVersion, deviceProperties, distributedInfo, traceName, ...),
metadata events (ph "M"), global instants (ph "i", s "g") and the
cat "Trace" span.  The span's "dur" is stretched to cover all replicas and
"Record Window End" is moved to the end of the last replica.

The input (plain or gzip, detected by magic bytes) is held in memory once
(its uncompressed size, e.g. 35 MB); the output is streamed one replica at a
time, so a multi-GB trace never sits in memory.  Standard library only.

Examples:
  gen_trace.py IN.json.gz OUT.json --replicas 3
  gen_trace.py IN.json.gz OUT.json --target-bytes 1.1e9
  gen_trace.py IN.json.gz OUT.json.gz --target-bytes 4.4e9 --gzip
  gen_trace.py IN.json.gz - --replicas 2 | pigz -6 > OUT.json.gz
"""
import argparse
import gzip
import json
import math
import re
import sys
import time

GAP_US = 10_000  # 10 ms between replicas

# Numbers we rewrite.  The negative look-aheads stop a partial match of an
# exponent number (they are left alone).
FIELD_RE = re.compile(
    r'"ts"\s*:\s*(-?\d+(?:\.\d+)?)(?![\d.eE])'
    r'|"(?:id|correlation|External id|external id)"\s*:\s*(\d+)(?![\d.eE])'
    r'|"ProfilerStep#(\d+)"'
)
KIND_TS, KIND_ID, KIND_STEP = 0, 1, 2

WS_COMMA_RE = re.compile(r'\s*(,?)\s*')
DUR_RE = re.compile(r'("dur"\s*:\s*)(\d+(?:\.\d+)?)(?![\d.eE])')
TS_RE = re.compile(r'("ts"\s*:\s*)(-?\d+(?:\.\d+)?)(?![\d.eE])')


def log(msg):
    print(f"gen_trace: {msg}", file=sys.stderr, flush=True)


def read_text(path):
    with open(path, 'rb') as f:
        magic = f.read(2)
    opener = gzip.open if magic == b'\x1f\x8b' else open
    with opener(path, 'rb') as f:
        return f.read().decode('utf-8')


def add_us(numtext, delta):
    """Add an integer number of µs to a decimal literal, exactly, keeping its decimals."""
    if '.' not in numtext:
        return str(int(numtext) + delta)
    ip, fp = numtext.split('.')
    d = len(fp)
    v = int(ip + fp) + delta * 10 ** d
    return fmt_scaled(v, d)


def fmt_scaled(v, d):
    sign = '-' if v < 0 else ''
    s = str(-v if v < 0 else v).rjust(d + 1, '0')
    return f"{sign}{s[:-d]}.{s[-d:]}"


def split_events(text):
    """Return (events_start, events_end, [(start, end, obj), ...], seps).

    events_start: index of the first event's '{' (or of ']' if empty),
    events_end: index of the closing ']' of traceEvents."""
    k = text.find('"traceEvents"')
    if k < 0:
        raise SystemExit("gen_trace: no \"traceEvents\" in the input")
    lb = text.find('[', k)
    dec = json.JSONDecoder()
    pos = lb + 1
    m = WS_COMMA_RE.match(text, pos)
    pos = m.end()
    first = pos
    events, seps = [], []
    while text[pos] != ']':
        obj, end = dec.raw_decode(text, pos)
        events.append((pos, end, obj))
        m = WS_COMMA_RE.match(text, end)
        if text[m.end()] != ']':
            seps.append(text[end:m.end()])
        pos = m.end()
    # the closing ']' stays with the trailer, and so does the whitespace before it
    last_end = events[-1][1] if events else first
    return first, last_end, events, seps


def is_once(obj):
    if not isinstance(obj, dict):
        return False
    ph = obj.get('ph')
    if ph == 'M':
        return True
    if ph == 'i' and obj.get('s') == 'g':
        return True
    cat = obj.get('cat')
    if ph == 'X' and isinstance(cat, str) and cat.lower() == 'trace':
        return True
    return False


def build_template(body):
    """Split body into literal pieces and rewritable numeric fields."""
    lits, fields = [], []
    prev = 0
    max_id = 0
    steps = []
    for m in FIELD_RE.finditer(body):
        if m.group(1) is not None:
            g, kind = 1, KIND_TS
            t = m.group(1)
            if '.' in t:
                ip, fp = t.split('.')
                val, d = int(ip + fp), len(fp)
            else:
                val, d = int(t), 0
        elif m.group(2) is not None:
            g, kind = 2, KIND_ID
            val, d = int(m.group(2)), 0
            if val <= 0:
                continue  # "none"; keep it as it is
            max_id = max(max_id, val)
        else:
            g, kind = 3, KIND_STEP
            val, d = int(m.group(3)), 0
            steps.append(val)
        lits.append(body[prev:m.start(g)])
        fields.append((kind, val, d))
        prev = m.end(g)
    lits.append(body[prev:])
    return lits, fields, max_id, steps


def render(lits, fields, deltas):
    """One replica's text.  deltas[kind] is the shift in the field's units (µs, id, step)."""
    out = [None] * (2 * len(fields) + 1)
    i = 0
    for lit, (kind, val, d) in zip(lits, fields):
        out[i] = lit
        delta = deltas[kind]
        if d == 0:
            out[i + 1] = str(val + delta)
        else:
            out[i + 1] = fmt_scaled(val + delta * 10 ** d, d)
        i += 2
    out[i] = lits[-1]
    return ''.join(out)


class Sink:
    def __init__(self, path, use_gzip, level):
        self.bytes = 0
        if path == '-':
            raw = sys.stdout.buffer
            self.close_raw = False
        else:
            raw = open(path, 'wb')
            self.close_raw = True
        self.raw = raw
        self.f = gzip.GzipFile(fileobj=raw, mode='wb', compresslevel=level, mtime=0) if use_gzip else raw

    def write(self, s):
        b = s.encode('utf-8')
        self.bytes += len(b)
        self.f.write(b)

    def close(self):
        if self.f is not self.raw:
            self.f.close()
        if self.close_raw:
            self.raw.close()
        else:
            self.raw.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('input', help='real Kineto trace (.json or .json.gz)')
    ap.add_argument('output', help="output path ('-' = stdout)")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument('--replicas', type=int, help='number of copies N (>= 1)')
    g.add_argument('--target-bytes', type=float,
                   help='replicate until the uncompressed output is at least this big (e.g. 1.1e9)')
    ap.add_argument('--gzip', action='store_true', help='gzip the output (zlib, level --level)')
    ap.add_argument('--level', type=int, default=6, help='gzip level (default 6, as gzip(1))')
    a = ap.parse_args()

    t0 = time.time()
    text = read_text(a.input)
    first, last_end, events, seps = split_events(text)
    if not events:
        raise SystemExit("gen_trace: traceEvents is empty")
    header = text[:first]
    trailer = text[last_end:]
    sep = max(set(seps), key=seps.count) if seps else ',\n  '

    rep, once = [], []
    t_min, t_max = None, None
    for s, e, obj in events:
        if is_once(obj):
            once.append((s, e, obj))
            continue
        rep.append(text[s:e])
        if isinstance(obj, dict):
            ts = obj.get('ts')
            if isinstance(ts, (int, float)) and not isinstance(ts, bool) and ts > 0:
                dur = obj.get('dur')
                end = ts + (dur if isinstance(dur, (int, float)) and not isinstance(dur, bool) and dur > 0 else 0)
                t_min = ts if t_min is None or ts < t_min else t_min
                t_max = end if t_max is None or end > t_max else t_max
    if not rep:
        raise SystemExit("gen_trace: nothing to replicate (only metadata events)")
    span = (t_max - t_min) if t_min is not None else 0
    shift = int(math.ceil(span)) + 1 + GAP_US

    body = sep.join(rep)
    lits, fields, max_id, steps = build_template(body)
    id_k = 10 ** len(str(max_id)) if max_id > 0 else 1
    nsteps = (max(steps) - min(steps) + 1) if steps else 0
    del body
    log(f"input {len(text):,} chars, {len(events):,} events ({len(rep):,} replicated, {len(once)} kept once), "
        f"{len(fields):,} numeric fields; span {span:.3f} us, shift {shift} us/replica, id step {id_k}, "
        f"step numbers {min(steps) if steps else '-'}..{max(steps) if steps else '-'} (+{nsteps}/replica); "
        f"prepared in {time.time() - t0:.1f} s")

    # The text of the once-kept events, given the final replica count n.
    def tail_text(n):
        extra = (n - 1) * shift
        parts = []
        for s, e, obj in once:
            t = text[s:e]
            if isinstance(obj, dict) and obj.get('ph') == 'X':
                t = DUR_RE.sub(lambda m: m.group(1) + add_us(m.group(2), extra), t, count=1)
            elif isinstance(obj, dict) and obj.get('name') == 'Record Window End':
                t = TS_RE.sub(lambda m: m.group(1) + add_us(m.group(2), extra), t, count=1)
            parts.append(sep + t)
        return ''.join(parts) + trailer

    tail_estimate = len(tail_text(1).encode('utf-8')) + 64
    sink = Sink(a.output, a.gzip, a.level)
    try:
        sink.write(header)
        r = 0
        while True:
            if a.replicas is not None:
                if r >= a.replicas:
                    break
            elif r > 0 and sink.bytes + tail_estimate >= a.target_bytes:
                break
            if r > 0:
                sink.write(sep)
            sink.write(render(lits, fields, (r * shift, r * id_k, r * nsteps)))
            r += 1
            if r % 10 == 0:
                el = time.time() - t0
                log(f"{r} replicas, {sink.bytes / 1e6:,.0f} MB, {sink.bytes / 1e6 / el:.0f} MB/s")
        sink.write(tail_text(r))
    finally:
        sink.close()
    el = time.time() - t0
    log(f"wrote {r} replicas: {sink.bytes:,} bytes uncompressed"
        f"{' (gzip)' if a.gzip else ''}, {r * len(rep):,} + {len(once)} events, "
        f"{len(steps) * r} ProfilerStep events, in {el:.1f} s")


if __name__ == '__main__':
    main()
