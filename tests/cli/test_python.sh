#!/bin/sh
# test_python.sh — the Python package (python/gpudiag) against this build.
#  1. gpudiag.analyze through libgpudiag.so.0 (ctypes) and through the command give the same
#     dict: the example trace (6 steps, dataloader_stall), steps "6:7" (steps 6 and 7 of 5..10),
#     a dmon log; the same errors: a cut trace is "format" at byte 17 (the 17 bytes
#     '{"traceEvents": [' end before any event), a missing file "io" without offset, steps
#     40:50 "nomatch" (exit status 6), steps on a log "arg"; no library -> the command; neither
#     -> "not_installed".
#  2. StepMarker's lines ("step N [tokens T] time S", N from 0) and the Lightning callback (with
#     a stand-in `lightning` module: Lightning is not in Debian); `gpudiag run` (fake NVML)
#     reads StepMarker's 4 markers as "steps 0..3".
#  3. `pip install --no-index --no-build-isolation` of a copy of python/ into a virtualenv
#     (--system-site-packages over a python with setuptools and wheel, as README says).
#  4. With a python that has torch (that virtualenv, GD_TORCH_PYTHON, python3, /usr/bin/python3;
#     Debian's python3-torch): a small training loop under torch.profiler with trace_handler, plain and
#     gzip: the trace is written as tensorboard_trace_handler names it, the report saved beside
#     it equals gpudiag's report of that trace, its steps are the file's complete ProfilerStep#N
#     (3 or more), the printed line is "gpudiag: TRACE: BOTTLENECK: SUMMARY"; README's example
#     and examples/profile_training.py run unchanged.  Skipped without.
# Environment: GPUDIAG, GD_BUILD, GD_SRC, FAKE_NVML_FULL (ctest sets them).  Exit 0/1/77.
set -u
GD_TMP_TAG=python
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
: "${GD_SRC:=$HERE/../..}"
: "${GD_BUILD:=$(dirname "$GPUDIAG")}"
LIB=$GD_BUILD/libgpudiag.so.0
[ -e "$LIB" ] || { echo "skip: no $LIB (-DGPUDIAG_SHARED=OFF?)"; exit 77; }
export PYTHONPATH="$GD_SRC/python" GPUDIAG_CLI="$GPUDIAG" GPUDIAG_LIBRARY="$LIB"
# a sanitizer build (scripts/check.sh): python loads an ASan library only with the runtime
# preloaded; python itself leaks by design, so no leak report
if readelf -d "$LIB" 2>/dev/null | grep -q libasan; then
    LD_PRELOAD=$(cc -print-file-name=libasan.so)
    # last: ASan takes the last of repeated options, and scripts/check.sh sets detect_leaks=1
    export LD_PRELOAD ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
EX=$GD_SRC/examples/resnet50_v100_num_workers_0.pt.trace.json.gz
LOG=$GD_TEST_DATA/monlog/dmon_gains.log

CASE="analyze"
if python3 - "$EX" "$LOG" "$TMP" "$LIB" <<'PY'; then ok; else nok "analyze checks"; fi
import os, sys
import gpudiag
ex, log, tmp, lib = sys.argv[1:]
bad = []
def check(cond, what):
    if not cond:
        bad.append(what)
a = gpudiag.analyze(ex, backend="lib")
b = gpudiag.analyze(ex, backend="cli")
check(a == b, "library and command reports differ on the example")
check(gpudiag._native.load().path == lib, "library loaded from %s" % gpudiag._native.load().path)
check(a["summary"]["steps"] == 6 and a["verdict"]["finding"] == "dataloader_stall", "example: %r %r" % (a["summary"]["steps"], a["verdict"]))
check(gpudiag.verdict_line(a).startswith("data_pipeline: The GPU waits for the DataLoader"), gpudiag.verdict_line(a))
for steps in ("6:7", (6, 7)):
    s1 = gpudiag.analyze(ex, steps=steps, backend="lib")
    s2 = gpudiag.analyze(ex, steps=steps, backend="cli")
    check(s1 == s2, "steps %r: backends differ" % (steps,))
    check([s["number"] for s in s1["steps"]] == [6, 7], "steps %r: %r" % (steps, [s["number"] for s in s1["steps"]]))
check([s["number"] for s in gpudiag.analyze(ex, steps=(None, 6))["steps"]] == [5, 6], "steps (None, 6)")
l1, l2 = gpudiag.analyze(log, backend="lib"), gpudiag.analyze(log, backend="cli")
check(l1 == l2 and l1["series"] is not None, "dmon log: backends differ or no series")
cut = os.path.join(tmp, "cut.json")
open(cut, "w").write('{"traceEvents": [')
def err(path, **kw):
    try:
        gpudiag.analyze(path, **kw)
    except gpudiag.GpudiagError as e:
        return (e.code, e.file, e.offset, e.exit_status)
    return None
for be in ("lib", "cli"):
    check(err(cut, backend=be) == ("format", cut, 17, 3), "%s cut: %r" % (be, err(cut, backend=be)))
    missing = os.path.join(tmp, "missing.json")
    check(err(missing, backend=be) == ("io", missing, None, 3), "%s missing: %r" % (be, err(missing, backend=be)))
    e = err(ex, steps="40:50", backend=be)
    check(e is not None and e[0] == "nomatch" and e[3] == 6, "%s steps 40:50: %r" % (be, e))
    e = err(log, steps="1:2", backend=be)
    check(e is not None and e[0] == "arg" and e[3] == 2, "%s steps on a log: %r" % (be, e))
# a directory of rank traces goes to the command: the cluster document
rk = os.path.join(tmp, "ranks"); os.mkdir(rk)
os.symlink(ex, os.path.join(rk, "rank0.pt.trace.json.gz"))
c = gpudiag.analyze(rk)
check(c["schema"] == "gpudiag.cluster/1" and len(c["reports"]) == 1, "directory: %r" % (c.get("schema"),))
e = err(ex, backend="lib", model="llama3-8b")
check(e is not None and e[0] == "arg", "lib with a command-only option: %r" % (e,))
for bad_steps in ("7:5", "x", True):
    e = err(ex, steps=bad_steps)
    check(e is not None and e[0] == "arg", "steps %r: %r" % (bad_steps, e))
for x in bad:
    print("FAIL:", x)
sys.exit(1 if bad else 0)
PY

CASE="fallbacks"
OUT=$(GPUDIAG_LIBRARY=$TMP/none.so python3 -c "
import gpudiag, sys
r = gpudiag.analyze(sys.argv[1]); print(gpudiag._native.load() is None, r['verdict']['finding'])" "$EX" 2>&1)
[ "$OUT" = "True dataloader_stall" ] && ok || nok "no library -> the command: '$OUT'"
OUT=$(GPUDIAG_LIBRARY=$TMP/none.so GPUDIAG_CLI=$TMP/none python3 -c "
import gpudiag, sys
try:
    gpudiag.analyze(sys.argv[1])
except gpudiag.GpudiagError as e:
    print(e.code, e.exit_status)" "$EX" 2>&1)
[ "$OUT" = "not_installed 127" ] && ok || nok "neither: '$OUT'"

CASE="markers"
if python3 - "$TMP" <<'PY'; then ok; else nok "StepMarker / Lightning checks"; fi
import os, re, sys, types
tmp = sys.argv[1]
bad = []
os.environ.pop("GPUDIAG_MARKERS", None)
import gpudiag.torch
m = gpudiag.torch.StepMarker()
m.step(); m.step()
if m.enabled or m.next != 2:
    bad.append("without GPUDIAG_MARKERS: enabled %r next %r" % (m.enabled, m.next))
p = os.path.join(tmp, "m.steps")
with gpudiag.torch.StepMarker(p) as m:
    m.step(tokens=128); m.step(); m.step(n=7, tokens=1.5); m(tokens=2048.0)
lines = open(p).read().splitlines()
want = [r"step 0 tokens 128 time \d+\.\d{6}", r"step 1 time \d+\.\d{6}", r"step 7 tokens 1\.5 time \d+\.\d{6}",
        r"step 8 tokens 2048 time \d+\.\d{6}"]
if len(lines) != 4 or not all(re.fullmatch(w, l) for w, l in zip(want, lines)):
    bad.append("marker lines %r" % lines)
# Lightning is not in Debian: a stand-in module with the Callback base class
pl = types.ModuleType("lightning"); plp = types.ModuleType("lightning.pytorch")
class Callback:
    pass
plp.Callback = Callback; pl.pytorch = plp
sys.modules["lightning"] = pl; sys.modules["lightning.pytorch"] = plp
import gpudiag.lightning
p2 = os.path.join(tmp, "l.steps")
cb = gpudiag.lightning.GpudiagCallback(p2, tokens_per_batch=lambda b: len(b))
if not isinstance(cb, Callback):
    bad.append("GpudiagCallback is not a lightning Callback")
for i in range(3):
    cb.on_train_batch_end(None, None, None, [0] * (10 + i), i)
cb.on_train_end(None, None)
got = [" ".join(l.split()[:4]) for l in open(p2).read().splitlines()]
if got != ["step 0 tokens 10", "step 1 tokens 11", "step 2 tokens 12"]:
    bad.append("lightning markers %r" % got)
for x in bad:
    print("FAIL:", x)
sys.exit(1 if bad else 0)
PY
if [ -n "${FAKE_NVML_FULL:-}" ] && [ -f "$FAKE_NVML_FULL" ]; then
    printf 'count 1\nname 0 NVIDIA H100 80GB HBM3\nset 0 util 50\nprocs 0 descendants 1073741824\n' > "$TMP/one.txt"
    expect_rc 0 env GPUDIAG_NVML_LIB="$FAKE_NVML_FULL" FAKE_NVML_SCRIPT="$TMP/one.txt" "$GPUDIAG" run -i 50ms -o "$TMP/mk.csv" -- \
        python3 -c "
import time, gpudiag.torch
m = gpudiag.torch.StepMarker()
for i in range(4):
    time.sleep(0.05); m.step(tokens=100)"
    grep -q "steps: 4 markers (steps 0..3)" "$TMP/err" && ok || nok "gpudiag run did not read 4 markers: $(grep steps: "$TMP/err")"
else
    echo "note: FAKE_NVML_FULL not set: gpudiag run with StepMarker not tried"
fi

CASE="pip"
# A virtualenv over a python that has setuptools and wheel (Debian: python3-setuptools,
# python3-wheel), with its site packages (Debian's python3-torch) visible: what README says.
VPY=""
BASE=""
for c in "${GD_TORCH_PYTHON:-}" /usr/bin/python3 python3; do
    [ -n "$c" ] || continue
    if "$c" -c "import setuptools, wheel, venv, ensurepip" >/dev/null 2>&1; then BASE=$c; break; fi
done
cp -r "$GD_SRC/python" "$TMP/pysrc" && rm -rf "$TMP/pysrc/build" "$TMP/pysrc"/*.egg-info
if [ -n "$BASE" ] && "$BASE" -m venv --system-site-packages "$TMP/venv" >"$TMP/venv.log" 2>&1; then
    if (cd "$TMP" && env -u PYTHONPATH "$TMP/venv/bin/python" -m pip install -q --no-index --no-build-isolation "$TMP/pysrc") >"$TMP/pip.log" 2>&1; then
        ok
        OUT=$(cd "$TMP" && env -u PYTHONPATH "$TMP/venv/bin/python" -c "
import gpudiag, gpudiag.torch, sys
print(gpudiag.__file__.startswith(sys.prefix), gpudiag.analyze(sys.argv[1])['verdict']['finding'])" "$EX" 2>&1)
        [ "$OUT" = "True dataloader_stall" ] && ok || nok "installed package: '$OUT'"
        VPY=$TMP/venv/bin/python
    else
        nok "pip install failed: $(tail -3 "$TMP/pip.log")"
    fi
else
    echo "note: no python with setuptools, wheel and venv: pip install not tried"
fi

CASE="torch"
# the installed package (the virtualenv above) when its python has torch, else the source tree
PY=""
for c in "$VPY" "${GD_TORCH_PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$c" ] || continue
    if env -u PYTHONPATH "$c" -c "import torch, torch.profiler" >/dev/null 2>&1; then PY=$c; break; fi
done
RUNPY="$PY"
[ -n "$PY" ] && [ "$PY" = "$VPY" ] && RUNPY="env -u PYTHONPATH $PY"
if [ -z "$PY" ]; then
    echo "note: no python with torch (GD_TORCH_PYTHON): the profiler part is skipped"
    [ "$FAIL" -eq 0 ] && [ "$PASS" -gt 0 ] && { echo "$PASS passed, 0 failed (torch part skipped)"; exit 0; }
    finish
    exit $?
fi
echo "torch: $("$PY" -c 'import torch; print(torch.__version__)'), package from $($RUNPY -c 'import gpudiag; print(gpudiag.__file__)')"
if (cd "$TMP" && $RUNPY - "$TMP/log" >"$TMP/torch.out" 2>"$TMP/torch.err") <<'PY'; then ok; else nok "the training loop failed: $(tail -5 "$TMP/torch.err")"; fi
import sys, torch
import gpudiag.torch
from torch.profiler import profile, schedule, ProfilerActivity
torch.manual_seed(0)
torch.set_num_threads(1)
m = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
opt = torch.optim.SGD(m.parameters(), lr=0.01)
x, y = torch.randn(32, 64), torch.randn(32, 8)
for gz in (False, True):
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=3),
                 on_trace_ready=gpudiag.torch.trace_handler(sys.argv[1], worker_name="w", use_gzip=gz)) as prof:
        for _ in range(6):
            opt.zero_grad()
            torch.nn.functional.mse_loss(m(x), y).backward()
            opt.step()
            prof.step()
PY
# README's PyTorch example, unchanged: the first python block under "From Python and PyTorch",
# run after a prelude that defines what it leaves to the user (loader, train_step).
python3 - "$GD_SRC/README.md" "$TMP/readme_example.py" <<'PY' || nok "no PyTorch example in README"
import re, sys
text = open(sys.argv[1]).read()
sec = text[text.index("## From Python and PyTorch"):]
block = re.search(r"```python\n(.*?)```", sec, re.S).group(1)
prelude = """import torch
torch.manual_seed(0)
_m = torch.nn.Linear(16, 4)
_opt = torch.optim.SGD(_m.parameters(), lr=0.1)
loader = [(torch.randn(8, 16), torch.randn(8, 4)) for _ in range(6)]
def train_step(batch):
    _opt.zero_grad()
    torch.nn.functional.mse_loss(_m(batch[0]), batch[1]).backward()
    _opt.step()
"""
open(sys.argv[2], "w").write(prelude + block)
PY
mkdir -p "$TMP/readme"
if (cd "$TMP/readme" && $RUNPY "$TMP/readme_example.py" >"$TMP/readme.out" 2>"$TMP/readme.err"); then ok; else nok "README's example failed: $(tail -3 "$TMP/readme.err")"; fi
grep -q "^gpudiag: \./log/.*\.pt\.trace\.json: " "$TMP/readme.out" && ok || nok "README's example printed '$(head -c 300 "$TMP/readme.out")'"
ls "$TMP/readme/log/"*.gpudiag.json >/dev/null 2>&1 && ok || nok "README's example saved no report"

# examples/profile_training.py, unchanged: one trace (repeat=1) of 3 profiled steps (wait 1,
# warmup 1, active 3), its report beside it, the verdict line printed
mkdir -p "$TMP/ex"
if (cd "$TMP/ex" && $RUNPY "$GD_SRC/examples/profile_training.py" >"$TMP/ex.out" 2>"$TMP/ex.err"); then ok; else nok "examples/profile_training.py failed: $(tail -3 "$TMP/ex.err")"; fi
python3 - "$TMP/ex/log" "$TMP/ex.out" <<'PY' && ok || nok "examples/profile_training.py's output"
import json, os, re, sys
d, out = sys.argv[1:]
files = sorted(os.listdir(d))
traces = [f for f in files if f.endswith(".pt.trace.json")]
reports = [f for f in files if f.endswith(".gpudiag.json")]
assert len(traces) == 1 and len(reports) == 1, files
r = json.load(open(os.path.join(d, reports[0])))
assert r["summary"]["steps"] == 3, r["summary"]["steps"]
line = open(out).read().strip()
assert line == "gpudiag: ./log/%s: %s: %s" % (traces[0], r["verdict"]["bottleneck"], r["verdict"]["summary"]), line
PY

if python3 - "$TMP/log" "$TMP/torch.out" "$GPUDIAG" <<'PY'; then ok; else nok "the handler's output"; fi
import gzip, json, os, re, subprocess, sys
d, out, cli = sys.argv[1:]
bad = []
files = sorted(os.listdir(d))
traces = [f for f in files if re.fullmatch(r"w\.\d+\.pt\.trace\.json(\.gz)?", f)]
if len(traces) != 2 or sum(f.endswith(".gz") for f in traces) != 1:
    bad.append("traces written: %r" % files)
lines = open(out).read().splitlines()
for t in traces:
    path = os.path.join(d, t)
    rep = os.path.join(d, re.sub(r"\.pt\.trace\.json(\.gz)?$", ".gpudiag.json", t))
    if not os.path.exists(rep):
        bad.append("no report beside %s" % t); continue
    r = json.load(open(rep))
    cliout = subprocess.run([cli, "analyze", "--json", path], stdout=subprocess.PIPE, check=True).stdout
    if r != json.loads(cliout):
        bad.append("%s: the saved report is not gpudiag's report of the trace" % t)
    raw = (gzip.open if t.endswith(".gz") else open)(path, "rt").read()
    src = json.loads(raw)
    ev = src if isinstance(src, list) else src["traceEvents"]
    want = sorted((e["ts"], int(e["name"].split("#")[1])) for e in ev if e.get("ph") == "X"
                  and e.get("name", "").startswith("ProfilerStep#") and e.get("dur", 0) > 0)
    got = [s["number"] for s in r["steps"]]
    if len(want) < 3 or got != [n for _, n in want]:
        bad.append("%s: steps %r, the file's complete ProfilerStep#N %r" % (t, got, [n for _, n in want]))
    line = "gpudiag: %s: %s: %s" % (path, r["verdict"]["bottleneck"], r["verdict"]["summary"])
    if line not in lines:
        bad.append("printed %r, wanted %r" % (lines, line))
for x in bad:
    print("FAIL:", x)
sys.exit(1 if bad else 0)
PY
finish
