#!/bin/sh
# test_torch_live.sh — record a PyTorch profiler trace live (CPU only: a small MLP, 6 iterations,
# schedule wait=1 warmup=1 active=3) and check that gpudiag reads its ProfilerStep#N steps
# exactly as the file holds them: the same step numbers and durations (µs), the ops inside them,
# and a CPU-only diagnosis (cpu_only_trace, "N host steps").  Works for both export formats:
# Kineto's (pip/conda builds) and the legacy autograd profiler's (builds without Kineto, such as
# Debian's python3-torch 1.13; docs/DEFINITIONS.md "Time and events").
# The python with torch: $GD_TORCH_PYTHON, else python3, else /usr/bin/python3.
# Exit: 0 passed, 1 failed, 77 no python with torch (skip).
set -u
GD_TMP_TAG=torch
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

PY=""
for c in "${GD_TORCH_PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$c" ] || continue
    if "$c" -c "import torch, torch.profiler" >/dev/null 2>&1; then
        PY=$c
        break
    fi
done
if [ -z "$PY" ]; then
    echo "skip: no python with torch (set GD_TORCH_PYTHON)"
    exit 77
fi
echo "torch: $("$PY" -c 'import torch; print(torch.__version__, "kineto" if torch.profiler.kineto_available() else "legacy")' 2>/dev/null)"

"$PY" - "$TMP/live.json" <<'EOF' || { echo "FAIL: recording the trace failed"; exit 1; }
import sys, torch
from torch.profiler import profile, schedule, ProfilerActivity
torch.manual_seed(0)
torch.set_num_threads(1)
m = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
opt = torch.optim.SGD(m.parameters(), lr=0.01)
x, y = torch.randn(32, 64), torch.randn(32, 8)
with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=3),
             on_trace_ready=lambda p: p.export_chrome_trace(sys.argv[1])) as prof:
    for _ in range(6):
        opt.zero_grad()
        torch.nn.functional.mse_loss(m(x), y).backward()
        opt.step()
        prof.step()
EOF

rc=0
for nosj in "" 1; do
    GPUDIAG_NO_SIMDJSON=$nosj "$GPUDIAG" analyze --json "$TMP/live.json" >"$TMP/r.json" 2>"$TMP/err"
    st=$?
    if [ $st -ne 0 ]; then
        echo "FAIL [nosj=$nosj] gpudiag exit $st: $(head -c 300 "$TMP/err")"
        rc=1
        continue
    fi
    python3 - "$TMP/live.json" "$TMP/r.json" "nosj=$nosj" <<'EOF' || rc=1
import json, sys
src = json.load(open(sys.argv[1])); d = json.load(open(sys.argv[2])); tag = sys.argv[3]; bad = []
ev = src if isinstance(src, list) else src["traceEvents"]
# the steps as the file holds them: ProfilerStep#N complete events with a duration
want = sorted((e["ts"], int(e["name"].split("#")[1]), e["dur"]) for e in ev
              if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#") and e.get("dur", 0) > 0)
got = [(s["number"], s["duration_us"]) for s in d["steps"]]
if len(want) < 3: bad.append("the recording holds %d steps, expected 3 or more" % len(want))
if got != [(n, dur) for _, n, dur in want]: bad.append("steps %r != file %r" % (got, [(n, dur) for _, n, dur in want]))
if any(s["breakdown_us"]["cpu_exec"] <= 0 for s in d["steps"]): bad.append("a step without CPU ops")
ids = [f["id"] for f in d["findings"]]
if "cpu_only_trace" not in ids: bad.append("no cpu_only_trace: %r" % ids)
if "(%d host steps)" % len(want) not in d["verdict"]["summary"]: bad.append("verdict %r" % d["verdict"]["summary"])
legacy = isinstance(src, list) and all("cat" not in e for e in ev if e.get("ph") == "X")
if d["inputs"][0]["legacy_profiler"] != legacy: bad.append("legacy_profiler %r, file legacy %r" % (d["inputs"][0]["legacy_profiler"], legacy))
for x in bad: print("FAIL [%s] %s" % (tag, x))
sys.exit(1 if bad else 0)
EOF
done
[ $rc -eq 0 ] && echo "test_torch_live: all passed"
exit $rc
