#!/bin/sh
# Profiler overhead in a device-idle gap (DEFINITIONS "Idle gaps and their causes", rule 0c): a
# Kineto `overhead` event of the profiler's own ("Activity Buffer Request": CUPTI allocating its
# activity buffer on the profiled thread) that covers at least half of a gap makes the gap's cause
# `profiler`, not `host_launch`, and its host time is left out of host_overhead. A reviewer found a
# trace whose one 2.14 ms gap, 85 % covered by an "Activity Buffer Request", gave the verdict
# host_launch (host_overhead 95 %).
# Input: tests/data/ok_profiler_overhead.json (offsets from ts 1000, us):
#   k1 [0,100] launched at -20 (before the step: not the step's), ProfilerStep#1 [0,2600];
#   aten::mm [110,2195] holding cudaLaunchKernel [2180,2190] -> k2 [2200,2600];
#   "Activity Buffer Request" (cat overhead) [150,1950] = 1800 us.
#   The step's GPU window starts at k1's end: step [100,2600] = 2500 us, GPU busy 400 us (16 %).
#   One gap [100,2200] = 2100 us; half of it 1050; the overhead covers 1800 >= 1050 -> profiler.
#   Share 2100 / 2500 = 0.84; host time in the gap (aten::mm) 2085 us, left out of host_overhead.
# Variants: overhead 900 us (< 1050) -> host_launch, verdict host_launch (the rule before);
#   exactly 1050 us -> profiler; name "Driver Compiler" (JIT: the program's, profiled or not) 1800 us
#   -> host_launch.
set -eu
GD_TMP_TAG=profovh
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
make_case() { # NAME DUR EVENT_NAME
    python3 - "$GD_TEST_DATA/ok_profiler_overhead.json" "$TMP/$1.json" "$2" "$3" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"]:
    if e["cat"] == "overhead":
        e["dur"] = float(sys.argv[3]); e["name"] = sys.argv[4]
json.dump(d, open(sys.argv[2], "w"), indent=1)
EOF2
}
PY=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); c = d["idle"]["by_cause_us"]
want = os.environ["WANT"]
gaps = [(g["start_us"] - 1000, g["duration_us"], g["cause"]) for g in d["idle"]["gaps"]]
ids = [f["id"] for f in d["findings"]]
checks = [("gaps", gaps, [(100, 2100, want)]), ("profiler", c.get("profiler", 0), 2100 if want == "profiler" else 0),
          ("host_launch", c["host_launch"], 2100 if want == "host_launch" else 0),
          ("gpu_utilization", d["summary"]["gpu_utilization"], 0.16)]
if want == "profiler":
    f = [f for f in d["findings"] if f["id"] == "input_profiler_overhead"]
    ev = f[0]["evidence"] if f else {}
    checks += [("bottleneck", d["verdict"]["bottleneck"], "unknown"),
               ("verdict finding", d["verdict"]["finding"], "input_profiler_overhead"),
               ("host_overhead fires", "host_overhead" in ids or "host_launch_bound" in ids, False),
               ("profiler_idle_us", ev.get("profiler_idle_us"), 2100),
               ("profiler_idle_share", ev.get("profiler_idle_share"), 0.84),
               ("profiler_host_us", ev.get("profiler_host_us"), 2085)]
else:
    checks += [("bottleneck", d["verdict"]["bottleneck"], "host_launch"),
               ("no profiler finding", "input_profiler_overhead" in ids, False)]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, sys.argv[2], 1e-6)
EOF2
)
rc=0
cp "$GD_TEST_DATA/ok_profiler_overhead.json" "$TMP/base.json"
make_case short 900 "Activity Buffer Request"
make_case half 1050 "Activity Buffer Request"
make_case compiler 1800 "Driver Compiler"
for c in base:profiler short:host_launch half:profiler compiler:host_launch; do
    echo "case ${c%%:*}"
    WANT=${c#*:} check_both_readers "$TMP/${c%%:*}.json" "$PY" || rc=1
done
# the serial and the parallel reader commit the overhead events alike
for c in base short compiler; do
    "$GPUDIAG" analyze --json --jobs 1 "$TMP/$c.json" > "$TMP/j1.json"
    GPUDIAG_PARSE_WINDOW=200 "$GPUDIAG" analyze --json --jobs 2 "$TMP/$c.json" > "$TMP/j2.json"
    if cmp -s "$TMP/j1.json" "$TMP/j2.json"; then echo "jobs $c: same"; else echo "FAIL jobs $c: --jobs 2 differs"; rc=1; fi
done
exit $rc
