#!/usr/bin/env python3
"""Four short PyTorch training workloads with a known bottleneck, for
bench/gpu-check.sh (issue #6: real-GPU checks of `gpudiag run` and
`gpudiag analyze`).  Each runs --steps training steps on cuda:0, profiles
steps 3..7 with torch.profiler into --trace (Chrome trace JSON), and, when
GPUDIAG_MARKERS is set, appends 'step N tokens T' per step for `gpudiag run`.

  starved  DataLoader(num_workers=0) whose samples cost ~2 ms of host time each
           (32 per batch): the GPU waits for data      -> data_pipeline
  healthy  bf16 MLP, 4 x Linear(8192, 8192), 16384 tokens per step, data on the
           GPU: large GEMMs back to back                  -> compute
  sync     a 4096^2 bf16 matmul then .item() 40 times per step: the host blocks
           and the GPU idles after every sync             -> synchronization
  launch   2000 elementwise ops on 1024-element tensors per step: the GPU
           finishes each kernel before the next launch    -> host_launch
"""
import argparse
import os
import time

import torch


def markers(step, tokens):
    path = os.environ.get("GPUDIAG_MARKERS")
    if path:
        with open(path, "a") as f:
            f.write("step %d tokens %d time %.6f\n" % (step, tokens, time.time()))


class SlowSamples(torch.utils.data.Dataset):
    def __len__(self):
        return 1 << 20

    def __getitem__(self, i):
        time.sleep(0.002)  # decoding / augmentation done in Python on the main process
        return torch.randn(3, 64, 64), i % 10


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", required=True, choices=["starved", "healthy", "sync", "launch"])
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--trace", required=True)
    a = ap.parse_args()
    dev = torch.device("cuda:0")
    torch.manual_seed(0)
    prof = torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA],
        schedule=torch.profiler.schedule(wait=1, warmup=2, active=5, repeat=1),
        on_trace_ready=lambda p: p.export_chrome_trace(a.trace),
        record_shapes=True)
    if a.kind == "starved":
        model = torch.nn.Sequential(torch.nn.Conv2d(3, 64, 3, padding=1), torch.nn.ReLU(),
                                    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                                    torch.nn.Linear(64, 10)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        it = iter(torch.utils.data.DataLoader(SlowSamples(), batch_size=32, num_workers=0))
        def step():
            x, y = next(it)
            loss = torch.nn.functional.cross_entropy(model(x.to(dev)), y.to(dev))
            opt.zero_grad()
            loss.backward()
            opt.step()
            return 32
    elif a.kind == "healthy":
        model = torch.nn.Sequential(*[torch.nn.Linear(8192, 8192, dtype=torch.bfloat16) for _ in range(4)]).to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        x = torch.randn(16384, 8192, device=dev, dtype=torch.bfloat16)
        def step():
            loss = model(x).float().pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            return 16384
    elif a.kind == "sync":
        w = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
        x = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
        def step():
            total = 0.0
            for _ in range(40):
                total += (x @ w).float().mean().item()  # host blocks until the GPU is done
            return 4096
    else:
        x = torch.randn(1024, device=dev)
        def step():
            y = x
            for _ in range(2000):
                y = y * 1.0001 + 0.0001
            return 1024
    with prof:
        for s in range(a.steps):
            with torch.profiler.record_function("train_step"):
                tokens = step()
            markers(s, tokens)
            prof.step()


if __name__ == "__main__":
    main()
