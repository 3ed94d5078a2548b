#!/bin/sh
# cpu_only_trace says why no GPU activity is analysed (docs/FINDINGS.md cpu_only_trace), on traces
# built here by hand:
#   lost: two kernels (251 and 200 us) whose pid is the host's (1147039) and with no args.device:
#     no device index -> both left out; before: "no kernels ... make sure the model and data are on
#     the GPU" (a reviewer's PyTorch inductor test fixture). Now: "could be analysed", evidence
#     gpu_events_left_out 2.
#   mem: CPU ops and three CUDA [memory] events (Device Type 1, device 0), no GPU activity recorded
#     (a CPU-activity-only profile of a model on the GPU): "The GPU was used", evidence
#     cuda_memory_devices 1, no model-placement advice.
#   cpu: CPU ops only: the old wording, with the placement advice.
set -u
GD_TMP_TAG=cpuonly
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
python3 - "$TMP" <<'PY'
import json, sys
out = sys.argv[1]
props = [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "numSms": 132}]
cpu = [{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1147039, "tid": 1147039, "ts": 1000 + 300 * i,
        "dur": 250, "args": {"External id": i + 1}} for i in range(3)]
lost = cpu + [{"ph": "X", "cat": "kernel", "name": n, "pid": 1147039, "tid": 1147039, "ts": 1100, "dur": d,
               "args": {"External id": 1}} for n, d in (("void cutlass_addmm", 251), ("void convolution_kernel", 200))]
mem = cpu + [{"ph": "i", "s": "t", "name": "[memory]", "pid": 1147039, "tid": 1147039, "ts": 1010 + 300 * i,
              "args": {"Device Type": 1, "Device Id": 0, "Addr": 1000 + i, "Bytes": 1024,
                       "Total Allocated": 1024 * (i + 1), "Total Reserved": 2097152}} for i in range(3)]
for name, ev in (("lost", lost), ("mem", mem), ("cpu", cpu)):
    json.dump({"schemaVersion": 1, "deviceProperties": props, "traceEvents": ev}, open("%s/%s.json" % (out, name), "w"))
PY
CHECK='
import json, sys
d = json.load(sys.stdin); want = sys.argv[1]
f = [x for x in d["findings"] if x["id"] == "cpu_only_trace"]
ev = f[0]["evidence"] if f else {}
got = "%s %s %s" % (d["verdict"]["bottleneck"], *(None if ev.get(k) is None else int(ev[k]) for k in ("gpu_events_left_out", "cuda_memory_devices")))
print(got); sys.exit(0 if got == want else 1)'
for c in "lost:unknown 2 None" "mem:unknown None 1" "cpu:unknown None None"; do
    n=${c%%:*}
    got=$("$GPUDIAG" analyze --json "$TMP/$n.json" 2>/dev/null | python3 -c "$CHECK" "${c#*:}") && ok || nok "$n: $got (want ${c#*:})"
done
"$GPUDIAG" analyze "$TMP/lost.json" 2>/dev/null | tr '\n' ' ' | tr -s ' ' | grep -q "No GPU activity could be analysed" && ok || nok "lost: the verdict"
"$GPUDIAG" analyze "$TMP/mem.json" 2>/dev/null > "$TMP/mem.txt"
tr '\n' ' ' < "$TMP/mem.txt" | tr -s ' ' | grep -q "The GPU was used (CUDA memory events)" && ok || nok "mem: the verdict"
grep -q "model.to('cuda')" "$TMP/mem.txt" && nok "mem: placement advice" || ok
"$GPUDIAG" analyze "$TMP/cpu.json" 2>/dev/null | grep -q "model.to('cuda')" && ok || nok "cpu: the placement advice stays"
finish
