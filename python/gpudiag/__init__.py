"""gpudiag from Python: what is your GPU waiting for?

    import gpudiag
    report = gpudiag.analyze("trace.pt.trace.json.gz")     # the JSON report (docs/REPORT.md) as a dict
    print(report["verdict"]["bottleneck"], report["verdict"]["summary"])

The analysis is gpudiag's own: libgpudiag.so.0 through ctypes where it can be loaded, else the
`gpudiag` command (`gpudiag analyze --json`); both give the same report.  PyTorch helpers are in
gpudiag.torch, a Lightning callback in gpudiag.lightning.
"""
from ._errors import GpudiagError
from . import _native, _cli

__all__ = ["analyze", "verdict_line", "GpudiagError", "__version__"]
__version__ = "0.1.0"

# Options the library call takes (gpudiag_read_opts); any other goes to the command.
_LIB_OPTS = {"steps", "step_range"}


def analyze(path, backend="auto", **opts):
    """Analyse one trace or monitoring log (or, through the command, a directory of rank traces)
    and return gpudiag's JSON report as a dict (schema gpudiag.report/1, docs/REPORT.md; for a
    directory the ranks side by side, schema gpudiag.cluster/1, with each rank's report in
    "reports").

    path:    a PyTorch profiler trace (.json / .json.gz), an Nsight Systems .sqlite export, a
             monitoring log (nvidia-smi dmon, --query-gpu CSV, -q, dcgmi dmon, dcgm-exporter
             text, amd-smi monitor; the list `gpudiag analyze --help` prints from the format
             table) -- the format is told from the content -- or a directory (command only).
    opts:    `gpudiag analyze` options, underscores for dashes: steps="20:29" (also 25, "20:",
             ":29" or a (first, last) tuple with None for an open end), step_range="train_step",
             model="llama3-8b", tokens_per_step=16384, format="dmon", ... A value True is a flag
             (verbose=True -> --verbose); None or False leaves the option out.  steps and
             step_range are done in the library; any other option runs the command.
    backend: "auto" (the library when it loads and the options allow it, else the command),
             "lib" or "cli" to insist on one.

    Raises GpudiagError (.code "io", "format", "arg", "nomatch", "nomem", "internal",
    "not_installed"; .file, .offset: the byte where the input is wrong, or None) when
    the input cannot be analysed.
    """
    path = str(path)
    if backend not in ("auto", "lib", "cli"):
        raise ValueError("backend must be 'auto', 'lib' or 'cli', not %r" % (backend,))
    opts = {k: v for k, v in opts.items() if v is not None and v is not False}
    lib_ok = set(opts) <= _LIB_OPTS and path != "-" and not _is_dir(path)
    if backend == "lib" or (backend == "auto" and lib_ok):
        lib = _native.load()
        if lib is not None and lib_ok:
            return lib.analyze(path, steps=_steps_range(opts.get("steps")), step_range=opts.get("step_range"))
        if backend == "lib":
            why = ("libgpudiag.so.0 could not be loaded (set GPUDIAG_LIBRARY)" if lib is None else
                   "the library takes a file and only the options steps and step_range")
            raise GpudiagError("not_installed" if lib is None else "arg", why, file=path)
    return _cli.analyze(path, _cli_args(opts))


def verdict_line(report):
    """The one-line verdict of a report, as `gpudiag analyze -q` prints it: "bottleneck: summary"."""
    v = report.get("verdict") or {}
    return "%s: %s" % (v.get("bottleneck", "unknown"), v.get("summary", ""))


def _is_dir(path):
    import os
    return os.path.isdir(path)


def _steps_range(steps):
    """steps (None, int, "A:B", "A", (a, b)) -> None or (first, last) with None for an open end."""
    if steps is None:
        return None
    if isinstance(steps, bool):
        raise GpudiagError("arg", "steps wants a step number, 'A:B' or a (first, last) tuple, not %r" % (steps,))
    if isinstance(steps, int):
        return (steps, steps)
    if isinstance(steps, (tuple, list)) and len(steps) == 2:
        a, b = steps
    elif isinstance(steps, str):
        text = steps.strip()
        if ":" in text:
            a, b = text.split(":", 1)
            a, b = (a.strip() or None), (b.strip() or None)
        else:
            a = b = text
    else:
        raise GpudiagError("arg", "steps wants a step number, 'A:B' or a (first, last) tuple, not %r" % (steps,))
    try:
        a = None if a is None else int(a)
        b = None if b is None else int(b)
    except (TypeError, ValueError):
        raise GpudiagError("arg", "steps wants whole step numbers, got %r" % (steps,)) from None
    if a is not None and b is not None and a > b:
        raise GpudiagError("arg", "steps %r: the first step is after the last" % (steps,))
    return (a, b)


def _cli_args(opts):
    args = []
    for key, value in opts.items():
        name = "--" + key.replace("_", "-")
        if key == "steps":
            r = _steps_range(value)
            value = "%s:%s" % ("" if r[0] is None else r[0], "" if r[1] is None else r[1])
        if value is True:
            args.append(name)
        elif isinstance(value, (list, tuple)) and key != "steps":
            args += [name, ",".join(str(v) for v in value)]
        else:
            args += [name, str(value)]
    return args
