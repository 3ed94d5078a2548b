#!/usr/bin/env python3
"""Generate a realistic `nvidia-smi dmon -s pucvmet -o DT` log with known ground truth.

Four roles repeat over the GPUs (GPU k gets role k % 4), 1 s per interval:
  0 training with a DataLoader dip: sm ~90 %, falling to ~10 % for 2 s every --period s
  1 throttled: sm ~95 %, pviol 30-60 % (power violation), pclk below its usual value
  2 idle holding memory: sm 0 %, fb 20000 MB
  3 communication sawtooth: sm ~85 %, falling to ~15 % for 2 s every --comm-period s while
    rxpci/txpci jump to ~12000 MB/s (gradient all-reduce over PCIe)

--sm-shift D adds D percentage points to the sm of the busy roles (0, 1, 3) before clamping
to 0..100: a known shift for `gpudiag compare` tests.

Usage: gen_monlog.py [--lines N] [--gpus G] [--period P] [--comm-period C] [--seed S] [--sm-shift D] > log
--lines counts data rows (all GPUs together).  Deterministic for a given seed.
"""
import argparse
import random
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=12000)
    ap.add_argument("--gpus", type=int, default=4)
    ap.add_argument("--period", type=int, default=10)
    ap.add_argument("--comm-period", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sm-shift", type=int, default=0)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    out = sys.stdout
    w = out.write
    w("#Date       Time        gpu   pwr  temp    sm   mem   enc   dec  mclk  pclk pviol tviol    fb  bar1 sbecc dbecc   pci rxpci txpci\n")
    w("#YYYYMMDD   HH:MM:SS    Idx     W     C     %     %     %     %   MHz   MHz     %  bool    MB    MB  errs  errs  errs  MB/s  MB/s\n")
    t0 = 1704067200  # 2024-01-01 00:00:00 UTC
    intervals = a.lines // a.gpus
    buf = []
    for k in range(intervals):
        tm = time.gmtime(t0 + k)
        stamp = time.strftime("%Y%m%d   %H:%M:%S", tm)
        for g in range(a.gpus):
            role = g % 4
            noise = rnd.randint(-3, 3)
            rx, tx, pviol, pclk, fb = rnd.randint(20, 60), rnd.randint(5, 30), 0, 1410, 30000
            if role == 0:
                sm = 10 + noise if k % a.period in (0, 1) else 90 + noise
                rx = 900 if k % a.period in (0, 1) else rx  # batches arrive
            elif role == 1:
                sm = 95 + noise
                pviol = rnd.randint(30, 60)
                pclk = 1100 + rnd.randint(-20, 20)
            elif role == 2:
                sm, fb, rx, tx, pclk = 0, 20000, 0, 0, 210
            else:
                if k % a.comm_period in (0, 1):
                    sm = 15 + noise
                    rx, tx = 12000 + rnd.randint(-200, 200), 12000 + rnd.randint(-200, 200)
                else:
                    sm = 85 + noise
            if role != 2:
                sm += a.sm_shift
            sm = max(0, min(100, sm))
            mem = max(0, min(100, int(sm * 0.6)))
            pwr = 60 + int(3 * sm)
            temp = 40 + sm // 3
            buf.append(f" {stamp}    {g:3d} {pwr:5d} {temp:5d} {sm:5d} {mem:5d}     0     0  1593 {pclk:5d} {pviol:5d}     0 {fb:5d}     2     -     -     0 {rx:5d} {tx:5d}\n")
        if len(buf) > 4096:
            w("".join(buf))
            buf.clear()
    w("".join(buf))


if __name__ == "__main__":
    main()
