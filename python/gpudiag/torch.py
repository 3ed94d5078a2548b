"""PyTorch helpers: a profiler trace handler that diagnoses each trace it writes, and step
markers for `gpudiag run`.

    import torch, gpudiag.torch
    with torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=3),
                                on_trace_ready=gpudiag.torch.trace_handler("./log")) as prof:
        for batch in loader: train_step(batch); prof.step()

torch itself is imported only when a handler runs, so this module imports without it.
"""
import json
import os
import socket
import sys
import time

from . import analyze, verdict_line, GpudiagError

__all__ = ["trace_handler", "StepMarker", "report_path"]


def report_path(trace_path):
    """Where trace_handler saves the report of a trace: beside it, `<name>.gpudiag.json`
    (`w.123.pt.trace.json.gz` -> `w.123.gpudiag.json`)."""
    base = str(trace_path)
    for ext in (".gz", ".json", ".pt.trace"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    return base + ".gpudiag.json"


def trace_handler(dir_name, worker_name=None, use_gzip=False, *, verbose=True, save_report=True,
                  stream=None, raise_errors=False, **analyze_opts):
    """A drop-in for torch.profiler.tensorboard_trace_handler(dir_name, worker_name, use_gzip):
    the trace is written where and as that handler writes it (`dir_name/<worker>.<ms>.pt.trace.json`,
    `.gz` with use_gzip; worker defaults to `<host>_<pid>`), then gpudiag analyses it:

    verbose:      print the verdict line (`gpudiag: <trace>: <bottleneck>: <summary>`) on stream
                  (default sys.stdout);
    save_report:  save the JSON report beside the trace (report_path());
    raise_errors: raise GpudiagError when the trace cannot be analysed; by default the message
                  goes to sys.stderr and training goes on;
    analyze_opts: passed to gpudiag.analyze() (e.g. model="llama3-8b", tokens_per_step=16384).

    The handler returns the report (a dict), or None when the analysis failed; the last one
    is also in handler.last_report and the trace's path in handler.last_trace.
    """
    state = {"worker": worker_name}

    def handler(prof):
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception:
                raise RuntimeError("Can't create directory: " + dir_name)
        if not state["worker"]:
            state["worker"] = "%s_%s" % (socket.gethostname(), os.getpid())
        name = "%s.%d.pt.trace.json" % (state["worker"], int(time.time() * 1000))
        if use_gzip:
            name += ".gz"
        path = os.path.join(dir_name, name)
        prof.export_chrome_trace(path)
        handler.last_trace = path
        handler.last_report = None
        try:
            report = analyze(path, **analyze_opts)
        except GpudiagError as e:
            if raise_errors:
                raise
            print("gpudiag: %s: not analysed: %s" % (path, e), file=sys.stderr)
            return None
        if save_report:
            out = report_path(path)
            tmp = out + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(report, f, indent=2)
                f.write("\n")
            os.replace(tmp, out)
        if verbose:
            print("gpudiag: %s: %s" % (path, verdict_line(report)), file=stream or sys.stdout, flush=True)
        handler.last_report = report
        return report

    handler.last_trace = None
    handler.last_report = None
    return handler


class StepMarker:
    """Writes the step markers `gpudiag run` reads (docs/DEFINITIONS.md "Step markers"): one line
    `step N [tokens T] time UNIX_SECONDS` per finished step, appended to the file named by
    $GPUDIAG_MARKERS (which `gpudiag run` sets) or by path.  Without either it does nothing, so
    the same script runs with or without gpudiag.

        marker = gpudiag.torch.StepMarker()
        for batch in loader:
            train_step(batch)
            marker.step(tokens=batch["input_ids"].numel())

    step(n=None, tokens=None): n defaults to one more than the last step written (the first is 0);
    the time is taken when step() is called.  Lines are flushed at once (`gpudiag run` follows
    the file while training runs).  Also a context manager (closes the file)."""

    def __init__(self, path=None, start=0):
        self.path = path if path is not None else os.environ.get("GPUDIAG_MARKERS") or None
        self.next = start
        self._f = open(self.path, "a", buffering=1, encoding="ascii") if self.path else None

    @property
    def enabled(self):
        return self._f is not None

    def step(self, n=None, tokens=None):
        if n is None:
            n = self.next
        n = int(n)
        self.next = n + 1
        if self._f is None:
            return
        line = "step %d" % n
        if tokens is not None:
            t = float(tokens)
            line += " tokens %s" % (int(t) if t.is_integer() else repr(t))
        line += " time %.6f\n" % time.time()
        self._f.write(line)
        self._f.flush()

    __call__ = step

    def close(self):
        if self._f is not None:
            self._f.close()
            self._f = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
