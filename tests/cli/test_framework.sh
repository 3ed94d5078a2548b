#!/bin/sh
# test_framework.sh — the framework a trace shows (docs/DEFINITIONS.md "Framework") and the fixes'
# words that follow it (a new user's trial: the CloverLeaf HPC export was given PyTorch advice).
# Expected by the definition, by hand:
#  - tests/data/ok_transfers.json: a Kineto trace with a ProfilerStep#3 marker -> "pytorch"; its
#    pageable_memcpy advice names pin_memory=True.
#  - the same events without the marker (python filter below): nothing names PyTorch (kernel
#    ampere_sgemm_128x64_nn, cudaLaunchKernel/cudaMemcpyAsync, Memcpy rows) -> "none"; no finding's
#    advice and not the verdict name torch, DataLoader, non_blocking, pin_memory= or .item(), and
#    pageable_memcpy's advice names cudaMallocHost.
#  - the same with one cpu_op "aten::copy_" added -> "pytorch" again.
#  - ok_comm_kinds.json without host ops, annotations and marker (NCCL kernels only) -> "none";
#    communication_bound's advice names ncclGroupStart, not DDP/FSDP/no_sync/ZeRO, and the verdict's
#    fix is its GD_FIX_NEUTRAL row.
#  - the shared CloverLeaf export (kernels clover::*, CUDA calls, no NVTX) -> "none"; the verdict's
#    fix is findings.def's GD_FIX_NEUTRAL row for sync_stall.
set -u
GD_TMP_TAG=framework
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
cd "$TMP" || exit 1

python3 - "$GD_TEST_DATA/ok_transfers.json" "$GD_TEST_DATA/ok_queued_work.json" "$GD_TEST_DATA/ok_comm_kinds.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["traceEvents"] = [e for e in d["traceEvents"] if not e["name"].startswith("ProfilerStep#")]
json.dump(d, open("nofw.json", "w"))
d["traceEvents"].append({"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1,
                         "ts": d["traceEvents"][0]["ts"], "dur": 1})
json.dump(d, open("aten.json", "w"))
# ok_queued_work without its host ops and annotations (cpu_op, python_function, user_annotation):
# CUDA calls and kernels only -> "none"; stream_wait and sync_stall fire with neutral words
d = json.load(open(sys.argv[2]))
d["traceEvents"] = [e for e in d["traceEvents"] if e.get("cat") not in ("cpu_op", "python_function", "user_annotation")]
json.dump(d, open("queued_nofw.json", "w"))
# ok_comm_kinds (NCCL kernels, communication_bound) without host ops, annotations and its marker
d = json.load(open(sys.argv[3]))
d["traceEvents"] = [e for e in d["traceEvents"] if e.get("cat") not in ("cpu_op", "python_function", "user_annotation")
                    and not e.get("name", "").startswith("ProfilerStep#")]
json.dump(d, open("comm_nofw.json", "w"))
# nofw.json with its GEMM renamed to an Inductor max-autotune template kernel -> "pytorch"
d = json.load(open("nofw.json"))
for e in d["traceEvents"]:
    if e.get("cat") == "kernel":
        e["name"] = "triton_tem_fused_addmm_0"
        break
json.dump(d, open("inductor_tem.json", "w"))
PY

check() { # FILE FRAMEWORK NEUTRAL(1/0)
    out="$TMP/$(basename "$1").out"
    "$GPUDIAG" analyze --json "$1" > "$out" 2>/dev/null
    python3 - "$out" "$2" "$3" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
fw, neutral = sys.argv[2], sys.argv[3] == "1"
assert d["inputs"][0]["framework"] == fw, d["inputs"][0].get("framework")
words = re.compile(r"torch|DataLoader|non_blocking|pin_memory=|\.item\(\)")
texts = [f["recommendation"] for f in d["findings"]] + [d["verdict"]["summary"]]
hits = [t for t in texts if words.search(t)]
if neutral:
    assert not hits, hits
else:
    assert hits, "no PyTorch advice in a PyTorch trace"
pm = [f["recommendation"] for f in d["findings"] if f["id"] == "pageable_memcpy"]
if pm:
    assert ("cudaMallocHost" in pm[0]) == neutral and ("pin_memory=True" in pm[0]) == (not neutral), pm
PY
}
check "$GD_TEST_DATA/ok_transfers.json" pytorch 0 && ok || nok "ok_transfers: pytorch, PyTorch advice"
check nofw.json none 1 && ok || nok "no marker, no framework: neutral advice"
check aten.json pytorch 0 && ok || nok "an aten:: op: pytorch"
check queued_nofw.json none 1 && ok || nok "queued work without host ops: neutral advice"
python3 -c '
import json, sys
ids = [f["id"] for f in json.load(open(sys.argv[1]))["findings"]]
assert "stream_wait" in ids and "sync_stall" in ids, ids
' "$TMP/queued_nofw.json.out" && ok || nok "queued work without host ops: stream_wait and sync_stall"

check inductor_tem.json pytorch 0 && ok || nok "an Inductor template kernel (triton_tem_): pytorch"
check comm_nofw.json none 1 && ok || nok "NCCL kernels without host ops: neutral advice"
python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["findings"] if f["id"] == "communication_bound"]
assert f and "ncclGroupStart" in f[0]["recommendation"], f
assert not re.search(r"DDP|FSDP|no_sync|ZeRO", f[0]["recommendation"] + d["verdict"]["summary"]), f
assert "(overlap communication with computation" in d["verdict"]["summary"], d["verdict"]
' "$TMP/comm_nofw.json.out" && ok || nok "NCCL kernels without host ops: communication_bound in NCCL words, the neutral verdict fix"

CL="$GD_SHARED/data/nsys/cloverleaf_cuda_a100.sqlite"
if [ -f "$CL" ]; then
    check "$CL" none 1 && ok || nok "CloverLeaf: no framework, neutral advice"
    python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))["verdict"]
assert v["finding"] == "sync_stall" and "(no device/stream synchronize inside the loop: wait on events)" in v["summary"], v
' "$TMP/cloverleaf_cuda_a100.sqlite.out" && ok || nok "CloverLeaf: the neutral verdict fix"
else
    echo "skip: shared CloverLeaf export not found"
fi
finish
