#!/bin/sh
# Launch-bound needs short gaps (FINDINGS host_launch_bound; held-out check 5): the GPU is paced by
# kernel launches when its host_launch idle sits in gaps of a launch's and an op's dispatch
# (<= 100 us, HTA's launch-delay outlier bound); a millisecond gap is host work of its own, which
# is host_overhead whatever the kernels' length.  A reviewer's Nsight export of Llama-3 weight
# streaming (1 ms NVTX host ranges between 5 us kernels) read "the GPU waits for kernel launches
# ... CUDA Graphs".
# Inputs (built below, Kineto JSON, us): 5 steps ProfilerStep#i [1000 i, 1000 i + 1000], B = 1000 i;
# every kernel 5 us, launched 9 us before it starts (launch delay 4 us after the call's end).
#   long:  aten::load_weights [B, B+900]; aten::add [B+900, +8] with cudaLaunchKernel [B+901, +5]
#          -> kernel [B+910, B+915].  Gaps in [1000, 6000]: [1000, 1910] 910 and four of
#          [B+915, B+1910] 995, host in load_weights -> host_launch 910 + 3980 = 4890, all > 100 us
#          (host_launch_long_gap_share 1); [5915, 6000] 85 with no host activity -> other.
#          Host share (runtime + CPU Exec) 0.908 = 4540 / 5000 (load_weights 900 + aten::add 8 per step,
#          the launch inside the add), GPU util 25 / 5000 = 0.005: host_overhead, gain 0.908 (it was
#          host_launch_bound with the same gain).
#   short: 20 x (aten::add [B+50k, +8], launch [B+50k+1, +5] -> kernel [B+50k+10, +5]); gaps 45 us
#          (99 of them) and [1000, 1010] 10 -> host_launch 4465, none > 100 us (share 0);
#          host_launch_bound stays.
set -eu
GD_TMP_TAG=launchgaps
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
cat > "$TMP/gen.py" <<'PY'
import json, sys
def trace(kind):
    ev, corr = [], 1
    for i in range(1, 6):
        B = 1000 * i
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i, "pid": 1, "tid": 1,
                   "ts": B, "dur": 1000, "args": {}})
        if kind == "long":
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::load_weights", "pid": 1, "tid": 1, "ts": B,
                       "dur": 900, "args": {}})
            starts = [B + 900]
        else:
            starts = [B + 50 * k for k in range(20)]
        for s in starts:
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": s, "dur": 8,
                       "args": {}})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": s + 1, "dur": 5, "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4>(int)",
                       "pid": 0, "tid": 7, "ts": s + 10, "dur": 5,
                       "args": {"device": 0, "stream": 7, "correlation": corr}})
            corr += 1
    return {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "numSms": 108}],
            "traceEvents": ev}
json.dump(trace(sys.argv[2]), open(sys.argv[1], "w"))
PY
for k in long short; do
    python3 "$TMP/gen.py" "$TMP/$k.json" "$k"
    "$GPUDIAG" analyze --json "$TMP/$k.json" > "$TMP/$k.out"
done
python3 - "$TMP/long.out" <<'PY' && ok || bad "long host gaps: host_overhead"
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
checks = [
    ("by_cause host_launch", d["idle"]["by_cause_us"]["host_launch"], 4890),
    ("by_cause other", d["idle"]["by_cause_us"]["other"], 85),
    ("verdict", d["verdict"]["finding"], "host_overhead"),
    ("no host_launch_bound", "host_launch_bound" in f, False),
    ("gain", round(f["host_overhead"]["est_gain"], 6), 0.908),
    ("long-gap share", f["host_overhead"]["evidence"]["host_launch_long_gap_share"], 1),
]
bad = [c for c in checks if c[1] != c[2]]
for c in bad:
    print("  %s: got %r, expected %r" % c)
sys.exit(1 if bad else 0)
PY
python3 - "$TMP/short.out" <<'PY' && ok || bad "short gaps: host_launch_bound"
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
checks = [
    ("by_cause host_launch", d["idle"]["by_cause_us"]["host_launch"], 4465),
    ("verdict", d["verdict"]["finding"], "host_launch_bound"),
    ("long-gap share", f["host_launch_bound"]["evidence"]["host_launch_long_gap_share"], 0),
]
bad = [c for c in checks if c[1] != c[2]]
for c in bad:
    print("  %s: got %r, expected %r" % c)
sys.exit(1 if bad else 0)
PY
# The same short-gap trace on ROCm (hipLaunchKernel, an MI250X): launch-bound, with HIP's words
sed -e 's/cudaLaunchKernel/hipLaunchKernel/; s/NVIDIA A100-SXM4-80GB/AMD Instinct MI250X/' "$TMP/gen.py" > "$TMP/genhip.py"
python3 "$TMP/genhip.py" "$TMP/shorthip.json" short
"$GPUDIAG" analyze --no-color "$TMP/shorthip.json" | sed 's/^ *> *//' | tr '\n' ' ' | tr -s ' ' > "$TMP/shorthip.flat"
if grep -q "host_launch_bound" "$TMP/shorthip.flat" && grep -q 'reduce-overhead" adds HIP graphs)' "$TMP/shorthip.flat" &&
    ! grep -q "CUDA Graphs" "$TMP/shorthip.flat"; then ok; else bad "ROCm launch-bound advice: $(head -c 400 "$TMP/shorthip.flat")"; fi
finish
