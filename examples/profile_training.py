"""A complete training loop under the PyTorch profiler with gpudiag's trace handler.

    python3 examples/profile_training.py          # needs torch and the gpudiag package

Trains a small MLP for 8 steps (on the GPU when there is one), profiles steps 2-4 once
(schedule wait=1, warmup=1, active=3, repeat=1) and, when the profiler hands over the trace,
gpudiag.torch.trace_handler writes it to ./log as tensorboard_trace_handler would,
prints gpudiag's verdict line and saves the report beside it (./log/*.gpudiag.json).
Each step is also written as a step marker for `gpudiag run -- python3 ...`.
"""
import torch
import gpudiag.torch

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
data = torch.utils.data.TensorDataset(torch.randn(512, 64), torch.randn(512, 8))
loader = torch.utils.data.DataLoader(data, batch_size=64, num_workers=0)
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 8)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
marker = gpudiag.torch.StepMarker()  # a no-op unless run under `gpudiag run`


def train_step(batch):
    x, y = (t.to(device, non_blocking=True) for t in batch)
    opt.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    opt.step()


with torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=1),
                            on_trace_ready=gpudiag.torch.trace_handler("./log")) as prof:
    for batch in loader:
        train_step(batch)
        prof.step()
        marker.step(tokens=batch[0].shape[0])
