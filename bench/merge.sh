#!/usr/bin/env bash
# Merge benchmark (issue 22): N per-rank summaries of STEPS steps each, merged by
# `gpudiag merge --json` (and --summary), wall time and peak memory (max RSS).
# The summaries: one real summary of a STEPS-step trace (tests/data/ok_nccl_overlap.json,
# one step with two NCCL kernels, replicated STEPS times by bench/gen_trace.py, so
# 2 x STEPS collectives), copied N times with rank, path and one collective's duration
# changed per rank (rank 1 the straggler), as N nodes' analyze --summary would write them.
# Usage: bench/merge.sh [N=4096] [STEPS=1000] [BUILD=build]; prints one line per run.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-4096}
STEPS=${2:-1000}
BIN=${BUILD:-$ROOT/build}/gpudiag
DIR=$(mktemp -d); trap 'rm -rf "$DIR"' EXIT
python3 "$ROOT/bench/gen_trace.py" "$ROOT/tests/data/ok_nccl_overlap.json" "$DIR/trace.json" --replicas "$STEPS" > /dev/null 2>&1
"$BIN" analyze --summary "$DIR/base.json" "$DIR/trace.json" > /dev/null
python3 - "$DIR/base.json" "$DIR/s" "$N" <<'PY'
import json, os, sys
base, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = json.load(open(base)); r = d["ranks"][0]
r["rank"] = 987654321; r["world_size"] = n; r["path"] = "PATH_PLACEHOLDER"
r["report"]["inputs"][0]["path"] = "PATH_PLACEHOLDER"
r["collectives"]["duration_us"][0] = 1234567.5
text = json.dumps(d, separators=(",", ":"))
os.makedirs(out)
for k in range(n):
    p = "/scratch/job/rank%05d.json" % k
    t = text.replace("987654321", str(k)).replace("PATH_PLACEHOLDER", p)
    t = t.replace("1234567.5", "100" if k == 1 else "%d.5" % (140 + k % 7))
    open("%s/rank%05d.summary.json" % (out, k), "w").write(t)
PY
size=$(du -sb "$DIR/s" | cut -f1)
run() { # LABEL ARGS...: time one merge
    label=$1; shift
    /usr/bin/time -f "%e %U %S %M" -o "$DIR/time" "$BIN" merge "$@" > /dev/null
    read -r wall user sys rss < "$DIR/time"
    printf '%s summaries x %s steps (%s MB of summaries), merge %s: %s s wall, %s s user + %s s sys, max RSS %s MB\n' \
        "$N" "$STEPS" "$((size / 1000000))" "$label" "$wall" "$user" "$sys" "$((rss / 1024))"
}
run "(text: the side-by-side view and the straggler)" "$DIR/s"
run "--json (with every rank's full report, as analyze --json DIR)" --json "$DIR/s"
if [ "${MERGED:-1}" = 1 ]; then
    run "--summary (one merged summary of all)" -q --summary "$DIR/merged.json" "$DIR/s"
    run "of that merged summary (text)" "$DIR/merged.json"
fi
