#!/usr/bin/env python3
"""perf_breakdown.py - where `gpudiag analyze` spends its time, from a perf profile.

  perf record -e cpu-clock -F 2000 --call-graph dwarf,16384 -o P.data gpudiag analyze --json T
  perf script -i P.data -F period,ip,sym,dso | perf_breakdown.py [--top N]

Each sample is put in a *stage* by its call chain (gd_kineto_read = ingest,
gpudiag_analyze = analysis, gpudiag_report_write_* = report, anything else =
other: start-up, freeing), and in a *bucket* by its leaf frame:

  yajl lexer / yajl parser   libyajl (stripped: functions are recovered from
                             objdump call targets; yajl_do_parse is where
                             yajl_parse jumps, yajl_lex_lex the function
                             yajl_do_parse calls most)
  zlib                       libz (inflate, inflate_fast, crc32)
  simdjson                   libsimdjson, and simdjson code inlined into the
                             gd_sj_* shim (when the build has it)
  gpudiag:<function>         our code
  libc:<function>, kernel    the C library, the kernel (read(), page faults)

Prints the stage split, the bucket split inside each stage, and the top
functions by self time.  Standard library only (needs objdump for yajl names).
"""
import argparse
import bisect
import collections
import re
import subprocess
import sys

FRAME_RE = re.compile(r'^\s*([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$')


def yajl_map(path):
    """Return (starts, names) for the functions of a stripped libyajl."""
    try:
        dis = subprocess.run(['objdump', '-d', '--no-show-raw-insn', path],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return [], []
    names = {}
    for m in re.finditer(r'^([0-9a-f]+) <([^@>+]+)(?:@@[^>]*)?>:', dis, re.M):
        names[int(m.group(1), 16)] = m.group(2)
    calls = collections.Counter()
    callers = collections.defaultdict(collections.Counter)
    cur = None
    jmp_from_parse = None
    for line in dis.splitlines():
        m = re.match(r'^([0-9a-f]+) <([^>]*)>:', line)
        if m:
            cur = m.group(2)
            continue
        m = re.match(r'^\s*([0-9a-f]+):\s+(call|jmp)\s+([0-9a-f]+) <', line)
        if m:
            tgt = int(m.group(3), 16)
            if tgt < 0x2200:  # PLT
                continue
            if m.group(2) == 'call':
                calls[tgt] += 1
                callers[tgt][int(m.group(1), 16)] += 1
            elif cur and cur.startswith('yajl_parse@') and jmp_from_parse is None:
                jmp_from_parse = tgt
    for t in calls:
        names.setdefault(t, f'yajl_internal_{t:x}')
    if jmp_from_parse is not None:
        names[jmp_from_parse] = 'yajl_do_parse'
    starts = sorted(names)
    if jmp_from_parse is not None:
        # the function yajl_do_parse calls most is the lexer
        end = next((s for s in starts if s > jmp_from_parse), 1 << 62)
        best = collections.Counter()
        for tgt, c in callers.items():
            best[tgt] = sum(n for a, n in c.items() if jmp_from_parse <= a < end)
        if best:
            lex = best.most_common(1)[0][0]
            names[lex] = 'yajl_lex_lex'
    return starts, [names[s] for s in starts]


def shim_symbols(lib):
    """Names of the functions defined in the simdjson shim's object (sj_shim.cpp.o) of libgpudiag.a."""
    try:
        out = subprocess.run(['nm', '-C', '--defined-only', lib], capture_output=True, text=True).stdout
    except OSError:
        return set()
    names, member = set(), ''
    for line in out.splitlines():
        if line.endswith(':'):
            member = line[:-1]
            continue
        parts = line.split(' ', 2)
        if 'sj_shim' in member and len(parts) == 3 and parts[1] in 'tTwW':
            names.add(parts[2].split('(')[0])
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--top', type=int, default=15)
    ap.add_argument('--lib', default='', help='libgpudiag.a, to tell the simdjson shim functions apart')
    ap.add_argument('--yajl', default='/usr/lib/x86_64-linux-gnu/libyajl.so.2')
    a = ap.parse_args()
    ystarts, ynames = yajl_map(a.yajl)
    shim = shim_symbols(a.lib) if a.lib else set()

    def yname(addr):
        i = bisect.bisect_right(ystarts, addr) - 1
        return ynames[i] if i >= 0 else 'yajl?'

    stage_t = collections.Counter()
    bucket_t = collections.defaultdict(collections.Counter)
    func_t = collections.Counter()
    total = 0

    def flush(frames, period):
        nonlocal total
        if not frames:
            return
        stage = 'other'
        for _, sym, _ in reversed(frames):
            if sym.startswith('gd_kineto_read') or sym.startswith('gpudiag_trace_read'):
                stage = 'ingest'
            elif sym.startswith('gpudiag_analyze'):
                stage = 'analyze'
            elif sym.startswith('gpudiag_report_write'):
                stage = 'report'
        addr, sym, dso = frames[0]
        if dso == 'inlined':  # an inlined frame: the object is the next real frame's
            dso = next((d for _, _, d in frames if d != 'inlined'), dso)
        base = dso.rsplit('/', 1)[-1]
        if 'libyajl' in base:
            fn = yname(addr)
            bucket = 'yajl lexer' if fn == 'yajl_lex_lex' else 'yajl parser/other'
            fn = 'libyajl:' + fn
        elif 'simdjson' in base:
            bucket, fn = 'simdjson', 'libsimdjson:' + sym
        elif 'simdjson' in sym or sym.startswith('gd_sj') or sym.split('(')[0] in shim:
            bucket, fn = 'simdjson (shim, inlined)', sym
        elif base.startswith('libz'):
            bucket, fn = 'zlib inflate', 'libz:' + (sym if sym != '[unknown]' else 'internal (inflate_fast)')
        elif 'kernel' in base:
            bucket, fn = 'kernel', '[kernel]'
        elif base.startswith('libc') or base.startswith('ld-linux'):
            bucket, fn = 'libc', 'libc:' + sym
        else:
            bucket, fn = 'gpudiag code', sym
        stage_t[stage] += period
        bucket_t[stage][bucket] += period
        func_t[(fn, stage)] += period
        total += period

    frames, period = [], 0
    for line in sys.stdin:
        if not line.strip():
            flush(frames, period)
            frames = []
            continue
        m = FRAME_RE.match(line)
        if m and line[0] in ' \t' and frames is not None and period:
            # a frame line (period lines have no '(')
            sym = m.group(2)
            frames.append((int(m.group(1), 16), sym, m.group(3)))
            continue
        s = line.split()
        if s and s[0].isdigit():
            flush(frames, period)
            frames, period = [], int(s[0])
    flush(frames, period)
    if not total:
        sys.exit('perf_breakdown: no samples')

    pct = lambda v: 100.0 * v / total
    print(f'samples weight total: {total}')
    print('\nstage split (by call chain):')
    for st, v in stage_t.most_common():
        print(f'  {st:<8} {pct(v):5.1f}%')
        for b, w in bucket_t[st].most_common():
            print(f'      {b:<20} {pct(w):5.1f}%')
    print(f'\ntop {a.top} functions by self time (stage):')
    for (fn, st), v in func_t.most_common(a.top):
        print(f'  {pct(v):5.1f}%  {fn}  ({st})')


if __name__ == '__main__':
    main()
