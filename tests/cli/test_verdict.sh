#!/bin/sh
# test_verdict.sh — verdict.finding and verdict.why (docs/FINDINGS.md "Verdict"), values
# derived by hand.
# 1. tests/data/ok_three_steps.json (numbers of test_steps.sh): steps 100 + 130 + 70 =
#    300 us; three ampere_sgemm kernels 40 + 100 + 20 = 160 us, none on Tensor Cores on an
#    A100 -> no_tensor_cores est_gain = kernel share 160/300 x eligible 1.0 x 1/2 = 0.266667;
#    runtime + CPU Exec = (10 + 15) + (10 + 15) + 5 = 55 us -> host 0.183333 >= 0.15, GPU
#    utilization (160 + 10 copy)/300 = 0.566667 < 0.8, idle 0.433333, kernels 20-100 us
#    longer than their 10 us launches (not launch-bound); the 10 us gap before step 3's
#    kernel (launched [1210,1220], queued: kernel_wait) holds 5 us of aten::mm, host time
#    that is not the host's fault (DEFINITIONS rule 0b): host 0.183333 - 5/300 = 0.166667,
#    idle 0.433333 - 5/300 -> host_overhead est_gain 0.166667. Ranked: no_tensor_cores (0.27) first, host_overhead
#    second; the verdict skips compute causes -> verdict.finding host_overhead, and verdict.why
#    names no_tensor_cores with "est. gain 27%" and says the verdict rests on host_overhead.
# 2. tests/data/ok_idle_causes.json: sync_stall (0.2) is first and leads -> finding
#    sync_stall, why null (host_overhead: 0.43 less the host time inside the queued gap, 0.2,
#    and inside the sync gap, 0.2, is 0.03 < 0.15: none; see test_queued.sh).
# 3. tests/data/ok_cpu_only.json: no GPU op; the verdict rests on the note cpu_only_trace, which
#    therefore ranks first (FINDINGS "Ranking"), dataloader_stall (a cause) second -> why null
#    (it used to rank dataloader_stall first, why "no GPU activity to weigh it against").
# 6. Every golden JSON report (tests/golden/*.json) whose verdict rests on a finding of kind
#    input has that finding first.
# 4. tests/data/ok_idle_nocause.json: one finding, single_step (a note on the input); the verdict
#    ("no visible cause") rests on none -> finding null, why "single_step ... note on the input".
# 5. tests/data/ok_recompute.json: no_tensor_cores (0.32) and recompute_cost (170 us of recompute
#    kernels in a 1 ms step: 0.17), both compute causes, rank above host_overhead (0.15), on which the
#    verdict rests -> why names both, recompute_cost "ranked 2nd (est. gain 17%)" for the same reason.
# The text and HTML reports name the finding beside the bottleneck and print the why line.
set -eu
GD_TMP_TAG=verdict
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

rc=0
check() { # FILE PYCODE
    if "$GPUDIAG" analyze --json "$1" > "$TMP/r.json"; then
        python3 -c "$2" "$TMP/r.json" "$(basename "$1")" || rc=1
    else
        echo "FAIL: $1: exit $?"; rc=1
    fi
}
HDR='import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
d = json.load(open(sys.argv[1])); v = d["verdict"]; f = {x["id"]: x for x in d["findings"]}
why = v.get("why") or ""
'
check "$GD_TEST_DATA/ok_three_steps.json" "$HDR"'
valcheck.run([
    ("ids", [x["id"] for x in d["findings"]][:2], ["no_tensor_cores", "host_overhead"]),
    ("tc gain", f["no_tensor_cores"]["est_gain"], 0.266667),
    ("host gain", f["host_overhead"]["est_gain"], 0.166667),
    ("bottleneck", v["bottleneck"], "host_launch"), ("finding", v["finding"], "host_overhead"),
    ("why names the first", why.startswith("no_tensor_cores ranks first (est. gain 27%)"), True),
    ("why names the leader", why.endswith("the verdict rests on host_overhead"), True),
], sys.argv[2], 1e-5)'
check "$GD_TEST_DATA/ok_recompute.json" "$HDR"'
valcheck.run([
    ("ids", [x["id"] for x in d["findings"]][:3], ["no_tensor_cores", "recompute_cost", "host_overhead"]),
    ("recompute gain", f["recompute_cost"]["est_gain"], 0.17), ("finding", v["finding"], "host_overhead"),
    ("why", why, "no_tensor_cores ranks first (est. gain 32%) but makes the kernels faster rather than removing a "
                 "stall, and a verdict names a stall before a kernel speed-up; recompute_cost, ranked 2nd (est. gain "
                 "17%), is passed over for the same reason; the verdict rests on host_overhead"),
], sys.argv[2], 1e-5)'
check "$GD_TEST_DATA/ok_idle_causes.json" "$HDR"'
valcheck.run([("first", d["findings"][0]["id"], "sync_stall"), ("finding", v["finding"], "sync_stall"),
              ("why", v["why"], None)], sys.argv[2])'
check "$GD_TEST_DATA/ok_cpu_only.json" "$HDR"'
valcheck.run([("first", d["findings"][0]["id"], "cpu_only_trace"), ("finding", v["finding"], "cpu_only_trace"),
              ("bottleneck", v["bottleneck"], "unknown"),
              # FINDINGS "Ranking": the input note the verdict rests on ranks first (dataloader_stall,
              # the cause that ranked first before, is second), so verdict.why is null
              ("second", d["findings"][1]["id"], "dataloader_stall"), ("why", v["why"], None)], sys.argv[2])'
check "$GD_TEST_DATA/ok_idle_nocause.json" "$HDR"'
valcheck.run([("ids", [x["id"] for x in d["findings"]], ["single_step"]), ("finding", v["finding"], None),
              ("why", why.startswith("single_step ranks first but is a note on the input, not a cause; the verdict rests on no finding"), True)],
             sys.argv[2])'
"$GPUDIAG" analyze --no-color "$GD_TEST_DATA/ok_three_steps.json" > "$TMP/r.txt"
if grep -q '^VERDICT  host_launch  (finding host_overhead)$' "$TMP/r.txt" &&
   grep -q '^         Why not the first finding: no_tensor_cores ranks first' "$TMP/r.txt"; then
    echo "text: 1 passed, 0 failed"
else
    echo "FAIL: text report lacks the finding or the why line"; sed -n 1,14p "$TMP/r.txt"; rc=1
fi
"$GPUDIAG" analyze --html "$TMP/r.html" "$GD_TEST_DATA/ok_three_steps.json" > /dev/null
if grep -q '(finding <code>host_overhead</code>)' "$TMP/r.html" &&
   grep -q '<p>Why not the first finding: no_tensor_cores ranks first' "$TMP/r.html"; then
    echo "html: 1 passed, 0 failed"
else
    echo "FAIL: HTML verdict lacks the finding or the why line"; rc=1
fi
# 6. the ranking rule over every golden report
if python3 - "$GD_TEST_DATA/../golden" <<'EOF6'
import glob, json, sys
bad, n = [], 0
for p in sorted(glob.glob(sys.argv[1] + "/*.json")):
    d = json.load(open(p))
    v, fs = d.get("verdict") or {}, d.get("findings") or []
    k = {f["id"]: f["kind"] for f in fs}
    if v.get("finding") and k.get(v["finding"]) == "input":
        n += 1
        if fs[0]["id"] != v["finding"] or v.get("why") is not None:
            bad.append(p)
print("golden input verdicts: %d, misranked: %s" % (n, bad or "none"))
sys.exit(1 if bad or n == 0 else 0)
EOF6
then :; else echo "FAIL: a verdict's input finding is not ranked first"; rc=1; fi
exit $rc
