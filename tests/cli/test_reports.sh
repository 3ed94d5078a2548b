#!/bin/sh
# test_reports.sh — issue 19, report classes: GPU ops without a launch call
# (summary.gpu_ops_unlinked), inputs read once from pipes, output paths checked
# before the analysis, and compare's steady state.  Expected values derived by
# hand in the comments.
. "$(dirname "$0")/common.sh"
rc=0

# tests/data/ok_unlinked_ops.json (DEFINITIONS "Where we differ from HTA" a) — one step
#   [1000,2000], device 0, stream 7: kernel a [1020,1120] launched (corr 1), kernel b
#   [1200,1300] without a correlation id, kernel c [1400,1500] launched (corr 3), kernel d
#   [1600,1700] of corr 99 that no call carries, memcpy [1800,1850] launched (corr 5).
#   Unlinked: b and d = 2; linked kernels: a, c = 2. The unlinked ones stay busy time:
#   span 1020..1850 = 830, busy 4 x 100 + 50 = 450, idle 380 -> idle_share 380/830 = 0.457831;
#   utilization = kernel time 400 / step 1000 = 0.4 (b and d dropped would give 0.2).
PY_UL=$(cat <<'PYEOF'
import json, os, sys
s = json.load(open(sys.argv[1]))["summary"]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run([("unlinked", s["gpu_ops_unlinked"], 2), ("linked", s["linked_kernels"], 2),
              ("kernels", s["kernel_count"], 4), ("idle share", s["idle_share"], 380 / 830),
              ("utilization", s["gpu_utilization"], 0.4)], sys.argv[2], 1e-6)
PYEOF
)
check_both_readers "$GD_TEST_DATA/ok_unlinked_ops.json" "$PY_UL" || rc=1
"$GPUDIAG" analyze --no-color "$GD_TEST_DATA/ok_unlinked_ops.json" > "$TMP/ul.txt"
grep -q '^  2 GPU op(s) without a launch call' "$TMP/ul.txt" || { echo "FAIL text: unlinked GPU ops line"; rc=1; }
# every op linked: no line, and the count is 0
"$GPUDIAG" analyze --no-color "$GD_TEST_DATA/ok_launch_delay.json" > "$TMP/ld.txt"
grep -q 'without a launch call' "$TMP/ld.txt" && { echo "FAIL text: unlinked line on a fully linked trace"; rc=1; }

[ "$rc" -eq 0 ] && echo "reports: all passed"
exit "$rc"
