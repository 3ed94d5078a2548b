#!/bin/sh
# gpudiag analyze on every shared real trace and on the bundled example: exit
# 0, JSON that parses with the required contract fields, and the issue's
# acceptance checks (ResNet-50 num_workers 0 vs 4).
set -eu
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
SRC=${GD_SRC:-$(cd "$HERE/../.." && pwd)}
SHARED=$GD_SHARED
T=$SHARED/data/traces
tmp=$TMP

contract='
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpudiag.report/1"
for k in ("tool","inputs","devices","summary","steps","breakdown","idle","kernels","series","findings","verdict"):
    assert k in d, k
s = d["summary"]
for k in ("steps","step_time_us","gpu_utilization","sm_efficiency","achieved_occupancy","tensor_core_share",
          "kernel_count","idle_share","compute_share","non_compute_share","comm_share","comm_overlap","mfu","hfu"):
    assert k in s, k
for k in ("mean","median","p90","min","max"):
    assert k in s["step_time_us"], k
assert d["verdict"]["bottleneck"] in ("data_pipeline","host_launch","synchronization","communication",
    "memory_transfer","memory_bandwidth","compute","throttling","unknown")
for f in d["findings"]:
    for k in ("id","severity","title","evidence","recommendation","est_gain"):
        assert k in f, k
    assert f["severity"] in ("high","medium","low","info")
'
files="$SRC/examples/resnet50_v100_num_workers_0.pt.trace.json.gz"
[ -d "$T" ] && files="$files $(ls "$T"/*.json.gz)"
for f in $files; do
  b=$(basename "$f")
  if "$GPUDIAG" analyze --json "$f" > "$tmp/$b.json" 2>"$tmp/err"; then
    if python3 -c "$contract" "$tmp/$b.json"; then ok; else bad "$b: JSON contract"; fi
  else
    bad "$b: exit $? $(cat "$tmp/err")"
  fi
  if "$GPUDIAG" analyze --no-color "$f" > "$tmp/$b.txt" 2>"$tmp/err" && grep -q '^VERDICT' "$tmp/$b.txt"; then ok; else bad "$b: text report"; fi
done

# num_workers=0: data_pipeline, dataloader_stall ranked first
python3 - "$tmp/resnet50_v100_num_workers_0.pt.trace.json.gz.json" <<'PY' && ok || bad "num_workers_0 verdict"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"]["bottleneck"] == "data_pipeline", d["verdict"]
assert d["findings"][0]["id"] == "dataloader_stall", d["findings"][0]["id"]
PY
if [ -d "$T" ]; then
python3 - "$tmp/resnet50_v100_num_workers_4.pt.trace.json.gz.json" <<'PY' && ok || bad "num_workers_4 has no dataloader_stall"
import json, sys
d = json.load(open(sys.argv[1]))
assert all(f["id"] != "dataloader_stall" for f in d["findings"]), [f["id"] for f in d["findings"]]
PY
# CPU-only trace: a short report, exit 0, cpu_only_trace finding
python3 - "$tmp/cpu_only_rank34.pt.trace.json.gz.json" <<'PY' && ok || bad "cpu-only report"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["gpu_utilization"] is None
assert any(f["id"] == "cpu_only_trace" for f in d["findings"])
PY
fi

# the example cut in half with head -c: analysed, input_truncated, exit 0
zcat "$SRC/examples/resnet50_v100_num_workers_0.pt.trace.json.gz" > "$tmp/full.json"
size=$(wc -c < "$tmp/full.json")
head -c $((size / 2)) "$tmp/full.json" > "$tmp/half.json"
if "$GPUDIAG" analyze --json "$tmp/half.json" > "$tmp/half.out" 2>"$tmp/err"; then
  python3 - "$tmp/half.out" "$size" <<'PY' && ok || bad "half trace report"
import json, sys
d = json.load(open(sys.argv[1]))
inp = d["inputs"][0]
assert inp["truncated"] is True
assert inp["truncated_at_bytes"] == int(sys.argv[2]) // 2, inp
assert d["findings"] and any(f["id"] == "input_truncated" for f in d["findings"])
assert 1 <= d["summary"]["steps"] < 6, d["summary"]["steps"]  # the full trace has 6
PY
else
  bad "half trace: exit $?"
fi
# gzip of the half trace gives the same numbers as the plain one
gzip -c "$tmp/half.json" > "$tmp/half.json.gz"
"$GPUDIAG" analyze --json "$tmp/half.json.gz" > "$tmp/halfgz.out"
python3 - "$tmp/half.out" "$tmp/halfgz.out" <<'PY' && ok || bad "gz vs plain"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["summary"] == b["summary"] and a["steps"] == b["steps"]
PY
# stdin
if "$GPUDIAG" analyze -q - < "$SRC/examples/resnet50_v100_num_workers_0.pt.trace.json.gz" | grep -q '^data_pipeline:'; then ok; else bad "stdin"; fi
# --fail-on
"$GPUDIAG" analyze -q --fail-on high "$SRC/examples/resnet50_v100_num_workers_0.pt.trace.json.gz" >/dev/null && rc=0 || rc=$?
[ "$rc" -eq 1 ] && ok || bad "--fail-on high exit $rc"
# NO_COLOR and a pipe: no escape codes
NO_COLOR=1 "$GPUDIAG" analyze "$SRC/examples/resnet50_v100_num_workers_0.pt.trace.json.gz" > "$tmp/nc.txt"
if grep -q "$(printf '\033')" "$tmp/nc.txt"; then bad "escape codes with NO_COLOR"; else ok; fi
if [ -d "$T" ]; then
# a100_8rank_rank3_test: most copy time is device-to-device, so the copy advice is not "pin memory"
python3 - "$tmp/a100_8rank_rank3_test.json.gz.json" <<'PY' && ok || bad "device-to-device copy advice"
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["id"] == "memcpy_heavy"][0]
t = d["transfers"]
total = sum(t[k]["time_us"] for k in ("h2d", "d2h", "d2d", "other"))
assert abs(f["evidence"]["d2d_copy_time_share"] - t["d2d"]["time_us"] / total) < 1e-5, f["evidence"]
assert f["evidence"]["d2d_copy_time_share"] > 0.5 and "device-to-device" in f["recommendation"]
PY
# monitoring logs are routed to their readers by content (the trace reader's hint is for library users)
for pair in "logs/nvsmi_dmon_pucvmet_4gpu_training_old_header.log:dmon" "logs/nvsmi_query_csv_l5_v100_training_steady.csv:smi-csv"; do
  f=${pair%%:*}; want=${pair#*:}
  if "$GPUDIAG" analyze --json "$SHARED/data/$f" > "$tmp/out" 2> "$tmp/err"; then rc=0; else rc=$?; fi
  if [ "$rc" -eq 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['series']['format']==sys.argv[2]" "$tmp/out" "$want"; then ok; else bad "$f: rc $rc $(cat "$tmp/err")"; fi
done
# Nsight Systems exports are read (test_nsys.sh checks the values)
if "$GPUDIAG" analyze --json "$SHARED/data/nsys/cloverleaf_cuda_a100.sqlite" > "$tmp/nsys.json" 2> "$tmp/err" &&
   grep -q '"format": "nsys"' "$tmp/nsys.json"; then ok; else bad "nsys export not read: $(cat "$tmp/err")"; fi
fi
# --help / --version go to stdout and exit 0
"$GPUDIAG" --help | grep -q "^Usage: gpudiag" && ok || bad "--help"
"$GPUDIAG" analyze --help | grep -q "Exit status" && ok || bad "analyze --help"
"$GPUDIAG" --version | grep -q "^gpudiag [0-9]" && ok || bad "--version"
finish
