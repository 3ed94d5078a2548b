#!/bin/sh
# One-off first calls of an API (DEFINITIONS "Idle gaps and their causes", rule 0) count as
# start-up only when the trace can hold the process's first calls: no step markers, or a first
# marker ProfilerStep#0. A first marker #N >= 1 says N iterations ran before (the profiler numbers
# steps from 0; a schedule's wait/warm-up steps are not recorded). A reviewer found kineto's
# tb_plugin resnet50_num_workers_4 traces (first steps #16 and #5): a 45.7 ms pageable copy of the
# 19 MB batch, the trace's first cudaMemcpyAsync, was "start-up ... CUDA initialisation" and left
# out of every estimate, while the same copy took 8.6-10.1 ms in steps 17-20.
# Input (built here; one step [1000,21000], tid 1), by hand:
#   cudaLaunchKernel (1000,10) -> A [1020,1120]; cudaMemcpyAsync (1130,5000) -> HtoD copy
#   [6140,6240], the first call of its API; cudaMemcpyAsync (6250,10) -> copy [6270,6370] and
#   (6380,10) -> copy [6400,6500]; cudaLaunchKernel (6510,10) -> A [6530,21000].
#   cudaMemcpyAsync median without the longest call: 10 us; 5000 >= 1 ms and >= 10 x 10 -> one-off.
#   Gaps: [1000,1020] 20, [1120,6140] 5020 (the 5000 us call covers >= 2510), [6240,6270],
#   [6370,6400], [6500,6530] 30 each.
#   #0 and no markers: startup 5020, host_launch 20 + 90 = 110.
#   #5: the trace starts after 5 iterations: startup 0, host_launch 5020 + 110 = 5130.
# Case "two" (#0, the cudaMemcpyAsync (6380,10) and its copy left out): the API has 2 calls; the
#   bar is 10 x the median of its calls without the longest (10 us), not of both (2505 us, which
#   the long call itself would set at half its length): still one-off. Gaps [1000,1020] 20,
#   [1120,6140] 5020 startup, [6240,6270] 30, [6370,6530] 160: host_launch 210.
set -eu
GD_TMP_TAG=firstcall
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
make_case() { # NAME STEP_NUMBER (or "none") [two]
    python3 - "$TMP/$1.json" "$2" "${3:-}" <<'EOF2'
import json, sys
rt = lambda n, ts, dur, c: {"ph": "X", "cat": "cuda_runtime", "name": n, "pid": 1, "tid": 1, "ts": ts, "dur": dur,
                            "args": {"correlation": c}}
gpu = lambda cat, n, ts, dur, c, **a: {"ph": "X", "cat": cat, "name": n, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
                                       "args": dict({"device": 0, "stream": 7, "correlation": c}, **a)}
k = "ampere_sgemm_128x64_tn"
cp = "Memcpy HtoD (Pageable -> Device)"
ev = [rt("cudaLaunchKernel", 1000, 10, 1), rt("cudaMemcpyAsync", 1130, 5000, 2), rt("cudaMemcpyAsync", 6250, 10, 3),
      rt("cudaMemcpyAsync", 6380, 10, 4), rt("cudaLaunchKernel", 6510, 10, 5),
      gpu("kernel", k, 1020, 100, 1), gpu("gpu_memcpy", cp, 6140, 100, 2, bytes=4096),
      gpu("gpu_memcpy", cp, 6270, 100, 3, bytes=4096), gpu("gpu_memcpy", cp, 6400, 100, 4, bytes=4096),
      gpu("kernel", k, 6530, 14470, 5)]
if sys.argv[3] == "two":
    ev = [e for e in ev if e["args"]["correlation"] != 4]
if sys.argv[2] != "none":
    ev.insert(0, {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#" + sys.argv[2], "pid": 1, "tid": 1,
                  "ts": 1000, "dur": 20000})
d = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8,
     "computeMinor": 0, "numSms": 108}], "traceEvents": ev}
json.dump(d, open(sys.argv[1], "w"), indent=1)
EOF2
}
PY=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); c = d["idle"]["by_cause_us"]
su, hl = (0, 5130) if os.environ["LATE"] == "1" else (5020, 210 if os.environ.get("TWO") else 110)
big = [g["cause"] for g in d["idle"]["gaps"] if g["duration_us"] == 5020]
checks = [("startup", c["startup"], su), ("host_launch", c["host_launch"], hl),
          ("the 5020 us gap", big, ["host_launch" if os.environ["LATE"] == "1" else "startup"])]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-09)
EOF2
)
rc=0
for c in 0:0 none:0 5:1; do
    make_case "s${c%%:*}" "${c%%:*}"
    echo "case ProfilerStep#${c%%:*}"
    LATE=${c#*:} check_both_readers "$TMP/s${c%%:*}.json" "$PY" || rc=1
done
make_case two 0 two
echo "case two calls"
LATE=0 TWO=1 check_both_readers "$TMP/two.json" "$PY" || rc=1
exit $rc
