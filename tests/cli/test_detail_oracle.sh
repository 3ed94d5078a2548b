#!/bin/sh
# Issue #3's detail numbers on four shared real traces against an independent script
# (tests/oracle/detail/detail_oracle.py, written from docs/DEFINITIONS.md; its outputs are
# stored in tests/oracle/detail/expected/): transfers by direction and pageable copies
# (count, bytes, time), host sync calls and their time, GEMM fill (calls, time, blocks known,
# underfilled, SM idle, left to communication).  Tolerance 1e-5 relative (the JSON prints µs to the ns).  Skips (77) without the shared traces.
set -eu
GD_TMP_TAG=detail
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
EXP="$HERE/../oracle/detail/expected"
T="$GD_SHARED/data/traces"
[ -d "$T" ] || { echo "skip: shared traces not found at $T"; exit 77; }
rc=0
for t in resnet50_v100_num_workers_0.pt.trace a100_8rank_rank3_control v100_ns_resolution_rank0.pt.trace \
         a100_nccl_2rank_rank0; do
    "$GPUDIAG" analyze --json "$T/$t.json.gz" > "$TMP/$t.json"
    python3 - "$TMP/$t.json" "$EXP/$t.json" "$t" <<'PY' || rc=1
import json, os, sys
g = json.load(open(sys.argv[1])); o = json.load(open(sys.argv[2]))
checks = [("steps", g["summary"]["steps"], o["steps"])]
for k in ("h2d", "d2h", "d2d", "other"):
    for f in ("count", "bytes", "time_us"):
        checks.append((k + "." + f, g["transfers"][k][f], o["transfers"][k][f]))
for f in ("count", "bytes", "time_us"):
    checks.append(("pageable." + f, g["transfers"]["pageable"][f], o["pageable"][f]))
checks += [("sync_calls", g["idle"]["sync_calls"], o["sync_calls"]),
           ("sync_time_us", g["idle"]["sync_time_us"], o["sync_time_us"])]
for f in ("calls", "time_us", "blocks_known_us", "underfilled_us", "sm_idle_us", "comm_filled_us"):
    checks.append(("gemm_fill." + f, g["kernels"]["gemm_fill"][f], o["gemm_fill"][f]))
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[3], 1e-5)
PY
done
exit $rc
