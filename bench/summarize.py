#!/usr/bin/env python3
"""summarize.py - turn bench/out/results.tsv (written by bench/run.sh) into a Markdown table.

Per input: median (min-max) wall seconds, MB/s of uncompressed JSON
(10^6 bytes / s), peak RSS in MiB and as % of the uncompressed size, and
whether the step count is the expected replicas x original steps.
Targets (issue): >= 300 MB/s end-to-end on one core; peak RSS <= 25 % of the
uncompressed size.  Standard library only.
"""
import argparse
import csv
import os
import statistics

TARGET_MBS = 300.0
TARGET_RSS_PCT = 25.0
LABELS = {
    'real': 'a100_8rank_rank3_control.json.gz (real)',
    '1g.json': 'synth_1g.json',
    '1g.gz': 'synth_1g.json.gz',
    '4g.gz': 'synth_4g.json.gz (> 2^32 B)',
}


def fmt(vals, f='{:.2f}'):
    if len(vals) == 1:
        return f.format(vals[0])
    return f"{f.format(statistics.median(vals))} ({f.format(min(vals))}–{f.format(max(vals))})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('tsv')
    ap.add_argument('--note4g', default='')
    ap.add_argument('--stages', default='')
    ap.add_argument('--gentime', default='')
    a = ap.parse_args()
    rows = list(csv.DictReader(open(a.tsv), delimiter='\t'))
    order = []
    by = {}
    for r in rows:
        key = (r.get('variant', 'default'), r['name'])
        if key not in by:
            order.append(key)
            by[key] = []
        by[key].append(r)
    order.sort(key=lambda k: (k[0] != 'default', k[0], list(LABELS).index(k[1]) if k[1] in LABELS else 99))

    print('| build | input | uncompressed bytes | events | runs | wall s | MB/s (wall) | MB/s per CPU-s '
          '| user s | sys s | peak RSS MiB | RSS % of JSON | steps (expected) | load avg |')
    print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    verdict = []
    for variant, name in order:
        rs = by[(variant, name)]
        ok = [r for r in rs if r['exit'] == '0' and int(r['bytes']) > 0]
        if not ok:
            print(f"| {variant} | {LABELS.get(name, name)} | failed (exit {rs[0]['exit']}) | | {len(rs)} | | | | | | | | | |")
            verdict.append(f'{variant} {name}: FAILED')
            continue
        b = int(ok[0]['bytes'])
        wall = [float(r['wall_s']) for r in ok]
        mbs = [b / 1e6 / w for w in wall]
        rss = [int(r['maxrss_kb']) / 1024 for r in ok]
        pct = [int(r['maxrss_kb']) * 1024 / b * 100 for r in ok]
        user = [float(r['user_s']) for r in ok]
        sys_ = [float(r['sys_s']) for r in ok]
        cpu = [b / 1e6 / max(u + y, 1e-3) for u, y in zip(user, sys_)]
        steps = sorted({r['steps'] for r in ok})
        exp = ok[0]['expected_steps']
        st = '/'.join(steps) + ('' if exp == '-' else f" ({exp}{' ✓' if steps == [exp] else ' ✗'})")
        print(f"| {variant} | {LABELS.get(name, name)} | {b:,} | {int(ok[0]['events']):,} | {len(ok)} | {fmt(wall)} "
              f"| {fmt(mbs, '{:.0f}')} | {fmt(cpu, '{:.0f}')} | {fmt(user)} | {fmt(sys_)} | {fmt(rss, '{:.0f}')} | {fmt(pct, '{:.1f}')} | {st} "
              f"| {'/'.join(r.get('load1', '?') for r in ok)} |")
        m, p = statistics.median(mbs), statistics.median(pct)
        c = statistics.median(cpu)
        verdict.append(f"{variant} {name}: {m:.0f} MB/s = {m / TARGET_MBS * 100:.0f}% of the {TARGET_MBS:.0f} MB/s target "
                       f"({'met' if m >= TARGET_MBS else 'NOT met'}; per CPU-second {c:.0f} MB/s); peak RSS {p:.1f}% of the JSON "
                       f"({'met' if p <= TARGET_RSS_PCT else 'NOT met'}, target <= {TARGET_RSS_PCT:.0f}%)")
    if not any(k[1] == '4g.gz' for k in by):
        print(f"| | {LABELS['4g.gz']} | {a.note4g or 'not run'} | | | | | | | | | | | |")
    print()
    if a.gentime:
        print(f'(synth_4g.json.gz generated in {a.gentime} s)\n')
    for v in verdict:
        print('- ' + v)
    if a.stages and os.path.exists(a.stages):
        print('\nPer-stage timing (bench/stages.c, one pass each):\n')
        print('```')
        print(open(a.stages).read().rstrip())
        print('```')


if __name__ == '__main__':
    main()
