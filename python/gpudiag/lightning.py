"""A PyTorch Lightning callback that writes gpudiag's step markers (gpudiag.torch.StepMarker)
after every training batch, so `gpudiag run -- python train.py` sees Lightning's steps:

    trainer = lightning.Trainer(callbacks=[gpudiag.lightning.GpudiagCallback()])

Importing this module needs Lightning (`lightning` or `pytorch_lightning`); it raises ImportError
without it.  For a diagnosis of a profiler trace, profile the loop with torch.profiler and
`on_trace_ready=gpudiag.torch.trace_handler(dir)`.
"""
try:
    from lightning.pytorch import Callback
except ImportError:
    try:
        from pytorch_lightning import Callback
    except ImportError:
        raise ImportError("gpudiag.lightning needs PyTorch Lightning (pip install lightning); "
                          "gpudiag.torch works without it") from None

from .torch import StepMarker

__all__ = ["GpudiagCallback"]


class GpudiagCallback(Callback):
    """Writes `step N [tokens T] time T` to $GPUDIAG_MARKERS (or path) after each training batch;
    N counts the training batches from 0 (not trainer.global_step, which stays put while
    gradients accumulate).  tokens_per_batch: a number, or a function of the batch returning
    one (e.g. lambda b: b["input_ids"].numel()), or None."""

    def __init__(self, path=None, tokens_per_batch=None):
        super().__init__()
        self.marker = StepMarker(path)
        self.tokens_per_batch = tokens_per_batch

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, *args):
        tokens = self.tokens_per_batch
        if callable(tokens):
            tokens = tokens(batch)
        self.marker.step(tokens=tokens)

    def on_train_end(self, trainer, pl_module):
        self.marker.close()
