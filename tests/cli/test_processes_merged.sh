#!/bin/sh
# Correlation ids of several processes (DEFINITIONS "Time and events"; finding
# input_processes_merged). CUPTI numbers correlation ids per process and a Kineto GPU op's pid is
# its device, so a file holding two processes' calls cannot say which call launched a kernel with
# a repeated id: those ids join nothing, instead of the first process's call.
#
# GEN writes (steps s = 1..5, B = 10000 + 5000 (s-1) us, on process A only: ProfilerStep#s
# [B, B+5000], aten::fill_ [B, B+4500]); launch i = 0..19 of step s, c = 20 (s-1) + i + 1:
#   process A (pid 1): cudaLaunchKernel at L = B + 3500 + 50 i, 20 us, correlation c; its 4 us
#     kernel (pid 0, device 0) at L + 25.
#   process B (pid 2, or pid 1 in "onepid"): the same calls 3000 us earlier (L - 3000), correlation
#     c again; its kernel (pid 1, device 1) at L - 3000 + 25.
# Expected, merged (two pids): host processes 2; ids 1..100 each on 2 calls -> ambiguous_ids 100,
#   ambiguous_calls 200, gpu_ops_unjoined 200 (every kernel holds one of them); linked_kernels 0,
#   gpu_ops_unlinked 200, kernels_before_launch 0, no input_gpu_clock_skew, no
#   input_kernels_missing (200 calls, 0 joined + 200 unlinked = 200 >= 90 %).
#   The old binary joined both kernels of id c to A's call (seen first): B's kernel at
#   L - 2975 is 2975 us before it -> 100 of 200 linked kernels "before their launch", a false
#   input_gpu_clock_skew (50 % >= 10 %).
# onepid (B's calls on pid 1: one process): no input_processes_merged; the first-call join stays
#   (linked_kernels 200, kernels_before_launch 100).
# unique (two pids, B's ids 101..200): no ambiguous id, no finding; each kernel joins its own
#   call, 25 us after it: linked_kernels 200, kernels_before_launch 0.
set -eu
GD_TMP_TAG=procmerge
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
GEN=$(cat <<'EOF2'
import json, sys
KN = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >"
def trace(bpid, boff):
    dev = [{"id": d, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8, "computeMinor": 0, "numSms": 108,
            "maxThreadsPerMultiprocessor": 2048, "warpSize": 32, "totalGlobalMem": 85899345920} for d in (0, 1)]
    ev = []
    for s in range(1, 6):
        b = 10000 + 5000 * (s - 1)
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": 1, "tid": 1,
                   "ts": b, "dur": 5000})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::fill_", "pid": 1, "tid": 1, "ts": b, "dur": 4500})
    for proc, pid, dev_, shift, coff in (("A", 1, 0, 0, 0), ("B", bpid, 1, -3000, boff)):
        for s in range(1, 6):
            b = 10000 + 5000 * (s - 1)
            for i in range(20):
                c = 20 * (s - 1) + i + 1 + coff
                l = b + 3500 + 50 * i + shift
                ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid,
                           "tid": 10 + dev_, "ts": l, "dur": 20, "args": {"correlation": c}})
                ev.append({"ph": "X", "cat": "kernel", "name": KN, "pid": dev_, "tid": 7, "ts": l + 25, "dur": 4,
                           "args": {"device": dev_, "stream": 7, "correlation": c}})
    return {"schemaVersion": 1, "deviceProperties": dev, "traceEvents": ev}
out = sys.argv[1]
for name, bpid, boff in (("merged", 2, 0), ("onepid", 1, 0), ("unique", 2, 100)):
    json.dump(trace(bpid, boff), open("%s/%s.json" % (out, name), "w"), indent=1)
EOF2
)
# CHECK: argv report, label, want "procs,ids,calls,ops,linked,unlinked,early" (procs "none": no finding)
CHECK=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); label = sys.argv[2]; w = sys.argv[3].split(",")
f = {x["id"]: x for x in d["findings"]}
s = d["summary"]
linked, unlinked, early = (float(x) for x in w[4:7])
checks = [("linked_kernels", s["linked_kernels"], linked),
          ("gpu_ops_unlinked", s["gpu_ops_unlinked"], unlinked),
          ("kernels_before_launch", s["kernels_before_launch"], early),
          ("input_kernels_missing", "input_kernels_missing" in f, False)]
if w[0] == "none":
    checks.append(("no input_processes_merged", "input_processes_merged" in f, False))
else:
    g = f.get("input_processes_merged", {"severity": None, "kind": None, "evidence": {}})
    ev = g["evidence"]
    checks += [("severity", g["severity"], "medium"), ("kind", g["kind"], "input"),
               ("host_processes", ev.get("host_processes"), float(w[0])),
               ("ambiguous_ids", ev.get("ambiguous_ids"), float(w[1])),
               ("ambiguous_calls", ev.get("ambiguous_calls"), float(w[2])),
               ("gpu_ops_unjoined", ev.get("gpu_ops_unjoined"), float(w[3])),
               ("no false clock skew", "input_gpu_clock_skew" in f, False)]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, label, 1e-09)
EOF2
)
python3 -c "$GEN" "$TMP"
for _c in merged:2,100,200,200,0,200,0 onepid:none,0,0,0,200,0,100 unique:none,0,0,0,200,0,0; do
    _n=${_c%%:*}
    for _mode in default yajl; do
        _nosj=""
        [ "$_mode" = yajl ] && _nosj=1
        if GPUDIAG_NO_SIMDJSON="$_nosj" "$GPUDIAG" analyze --json "$TMP/$_n.json" > "$TMP/$_n.out.json" 2> "$TMP/err"; then
            python3 -c "$CHECK" "$TMP/$_n.out.json" "$_n-$_mode" "${_c#*:}" && ok || nok "$_n-$_mode"
        else
            nok "$_n-$_mode: gpudiag exited $?: $(head -3 "$TMP/err")"
        fi
    done
done
finish
