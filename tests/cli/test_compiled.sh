#!/bin/sh
# A trace that already runs torch.compile'd code is not just told "use torch.compile": the host
# finding says the model is compiled and points at graph breaks and reduce-overhead (second
# new-user trial: TraceLens' xDiT SD3.5 trace, 8 "## Call CompiledFxGraph" calls).
# Input: tests/data/ok_launch_bound.json (host_launch_bound) with one user annotation
# "Torch-Compiled Region: 0/0" added by the test -> evidence compiled_calls 1 and the sentence;
# the file as it is -> neither.
set -eu
GD_TMP_TAG=compiled
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
python3 - "$GD_TEST_DATA/ok_launch_bound.json" "$TMP/compiled.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
t0 = min(e["ts"] for e in ev if "ts" in e)
ev.append({"ph": "X", "cat": "user_annotation", "name": "Torch-Compiled Region: 0/0", "pid": 1, "tid": 1, "ts": t0, "dur": 1})
json.dump(d, open(sys.argv[2], "w"))
PY
for f in "$GD_TEST_DATA/ok_launch_bound.json" "$TMP/compiled.json"; do
    "$GPUDIAG" analyze --json "$f" > "$TMP/r.json" || true
    python3 - "$TMP/r.json" "$f" <<'PY' && ok || bad "compiled advice: $f"
import json, sys
d = json.load(open(sys.argv[1])); f = {x["id"]: x for x in d["findings"]}
h = f.get("host_launch_bound") or f.get("host_overhead")
compiled = sys.argv[2].endswith("compiled.json")
said = "already runs torch.compile'd code" in h["recommendation"]
sys.exit(0 if h and said == compiled and h["evidence"].get("compiled_calls") == (1 if compiled else None) else 1)
PY
done
finish
