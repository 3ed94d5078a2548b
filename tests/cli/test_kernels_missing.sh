#!/bin/sh
# Kernel launch calls without kernels (DEFINITIONS "Time and events", kernel launch calls without
# kernels; finding input_kernels_missing). The shared CloverLeaf export with its
# CUPTI_ACTIVITY_KIND_KERNEL table dropped (1,312 cudaLaunchKernel calls, 279 memcpys kept) read
# "synchronization (sync_stall), could save ~97%": the idle time was the kernels' time.
#
# tests/data/ok_kernels_missing.json, by hand: steps [1000,2000] [2000,3000] (us); in each step
# six cudaLaunchKernel calls at B+10, B+30, ..., B+110 (correlations 1-6, 9-14), a cudaMemcpyAsync
# (7, 15) with its 50 us gpu_memcpy at B+230, a cudaStreamSynchronize [B+225, B+600] (8, 16); no
# kernel.
# Expected: kernel_launch_calls 12 (the memcpy and the sync are not kernel launches),
# launches_with_kernel 0, kernels 0, kernels_unlinked 0, gpu_ops 2; severity high; the verdict
# unknown resting on input_kernels_missing (the old binary said sync_stall, ~84%).
# Partial (the kernels go in step 2: a last step with less GPU work than the one before would be
# trimmed, DEFINITIONS "Steps"); L 12: high below 0.50 x 12 = 6, medium below 0.90 x 12 = 10.8:
# one kernel for correlation 9 (step 2's first launch) -> J 1 < 6 -> high, gpu_ops 3, verdict
# unknown on it, the causes low "computed with only 1 of 12 ..." (the old binary: medium, with the
# cause leading); kernels for 9-14 -> J 6: 6 >= 6 and 6 < 10.8 -> medium, the verdict keeps its
# cause and says "6 of 12" with low confidence (old binary: nothing, 6 >= 1.2); for 1-6 and 9-12
# -> J 10 < 10.8 -> medium; for 1-6 and 9-13 -> J 11 >= 10.8 -> no finding; one kernel without a
# correlation id -> J 0, U 1 < 6 -> high, kernels_unlinked 1.
# No kernel at all: the causes are kept but low, titled "(computed without the kernels, which were
# not recorded)" (the old binary ranked sync_stall first, high).
# Launches inside a stream capture run nothing and do not count (ok_graph_capture.json, below).
# Nsight: a small export built here with the same shape (12 cudaLaunchKernel_v7000, two cudaMemcpy
# with their memcpys, a cudaDeviceSynchronize, no NVTX: the whole capture) without the kernel
# table, then with an empty one: kernel_launch_calls 12, high, verdict unknown on it.
set -eu
GD_TMP_TAG=nokern
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
# CHECK: python3 checking a report (argv: report, label, want) against the expected case
CHECK=$(cat <<'EOF2'
import json, os, sys
d = json.load(open(sys.argv[1])); label = sys.argv[2]; want = sys.argv[3]
f = {x["id"]: x for x in d["findings"]}
g = f.get("input_kernels_missing", {"severity": None, "evidence": {}})
ev = g["evidence"]
v = d["verdict"]
if want == "none":
    checks = [("no input_kernels_missing", "input_kernels_missing" in f, False),
              ("no low-confidence sentence", "low confidence" in v["summary"], False)]
else:
    L, J, K, U, G, sev = (float(x) for x in want.split(","))
    checks = [
        ("kernel_launch_calls", ev.get("kernel_launch_calls"), L),
        ("launches_with_kernel", ev.get("launches_with_kernel"), J),
        ("kernels", ev.get("kernels"), K),
        ("kernels_unlinked", ev.get("kernels_unlinked"), U),
        ("gpu_ops", ev.get("gpu_ops"), G),
        ("severity", g["severity"], "high" if sev else "medium"),
    ]
    if sev:  # no kernel at all: cannot judge
        checks += [("bottleneck", v["bottleneck"], "unknown"),
                   ("verdict finding", v["finding"], "input_kernels_missing"),
                   ("says the launch count", "%d kernel launch calls" % L in v["summary"], True),
                   # FINDINGS "Ranking": the note the verdict rests on ranks first, above the demoted
                   # causes (the old binary ranked them first: sync_stall est. gain 84%, low), so
                   # verdict.why has nothing to explain
                   ("ranked first", d["findings"][0]["id"], "input_kernels_missing"),
                   ("why", v["why"], None)]
        # the causes computed from the idle time are kept, demoted to low, their title saying why
        causes = [x for x in d["findings"] if x["kind"] == "cause" and x.get("est_gain") is not None]
        tail = ("(computed without the kernels, which were not recorded)" if K == 0 else
                "(computed with only %d of %d kernel launch calls' kernels recorded)" % (J, L))
        checks += [("some cause kept", len(causes) > 0, True),
                   ("causes demoted to low", sorted({x["severity"] for x in causes}), ["low"]),
                   ("causes' titles say why", all(x["title"].endswith(tail) for x in causes), True),
                   ("kernels_recorded_share", causes[0]["evidence"].get("kernels_recorded_share"),
                    float("%.6g" % ((J + U) / L)))]  # the report's 6 significant digits
    else:  # some kernels: the cause stays, with low confidence
        checks += [("verdict finding is a cause", v["finding"] not in (None, "input_kernels_missing"), True),
                   ("low confidence", "only %d of %d kernel launch calls have a kernel recorded" % (J, L)
                    in v["summary"] and "low confidence" in v["summary"], True)]
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
valcheck.run(checks, label, 1e-09)
EOF2
)
K="$GD_TEST_DATA/ok_kernels_missing.json"
# the text report: input_kernels_missing is finding 1 and the header says why it leads
"$GPUDIAG" analyze --no-color "$K" > "$TMP/k.txt"
if grep -q "^FINDINGS  the verdict's input finding first, then ranked by expected gain" "$TMP/k.txt" &&
   grep -q '^ 1\. \[high\] input_kernels_missing$' "$TMP/k.txt"; then ok; else nok "text: $(grep -A1 '^FINDINGS' "$TMP/k.txt")"; fi
for _mode in default yajl; do
    _nosj=""
    [ "$_mode" = yajl ] && _nosj=1
    GPUDIAG_NO_SIMDJSON="$_nosj" run_case "$K" "kineto-$_mode" "12,0,0,0,2,1"
done
# partial cases: kernels added to a copy (python, so the hand-written file stays the full case)
python3 - "$K" "$TMP" <<'EOF3'
import json, sys
src, tmp = sys.argv[1], sys.argv[2]
def kern(corr):
    a = {"device": 0, "stream": 7, "grid": [1, 1, 1], "block": [128, 1, 1]}
    if corr is not None:
        a["correlation"] = corr
    return {"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7,
            "ts": 2150 + 10 * ((corr or 9) - 9), "dur": 5, "args": a}
for name, corrs in (("one", [9]), ("six", list(range(9, 15))), ("ten", [1, 2, 3, 4, 5, 6, 9, 10, 11, 12]),
                    ("eleven", [1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13]), ("unlinked", [None])):
    d = json.load(open(src))
    d["traceEvents"] += [kern(c) for c in corrs]
    json.dump(d, open("%s/%s.json" % (tmp, name), "w"))
EOF3
run_case "$TMP/one.json" partial-one "12,1,1,0,3,1"
run_case "$TMP/six.json" partial-six "12,6,6,0,8,0"
run_case "$TMP/ten.json" partial-ten "12,10,10,0,12,0"
run_case "$TMP/eleven.json" none "none"
run_case "$TMP/unlinked.json" partial-unlinked "12,0,1,1,3,1"
# ok_graph_capture.json: 22 cudaLaunchKernel, 20 of them between cudaStreamBeginCapture and
# cudaStreamEndCapture (recorded into the graph, no kernel), 2 with their kernels -> L 2, J 2: none
run_case "$GD_TEST_DATA/ok_graph_capture.json" capture "none"
# The same capture begun and ended by the other capture calls (DEFINITIONS "Graph replays",
# capture; new-user G2/G3: the driver API's cuStreamBeginCapture_v2 .. cuStreamEndCapture, and
# cudaStreamBeginCaptureToGraph .. cudaStreamEndCapture): still L 2, J 2 -> none (main did not
# know them: L 22, J 2 < 0.10 x 22 = 2.2 -> medium).
for _pair in cuStreamBeginCapture_v2:cuStreamEndCapture cudaStreamBeginCaptureToGraph:cudaStreamEndCapture \
             cuStreamBeginCaptureToGraph:cuStreamEndCapture hipStreamBeginCaptureToGraph:hipStreamEndCapture; do
    sed -e "s/\"cudaStreamBeginCapture\"/\"${_pair%%:*}\"/" -e "s/\"cudaStreamEndCapture\"/\"${_pair#*:}\"/" \
        "$GD_TEST_DATA/ok_graph_capture.json" > "$TMP/capture.json"
    grep -q "\"${_pair%%:*}\"" "$TMP/capture.json" || nok "capture-${_pair%%:*}: rename failed"
    run_case "$TMP/capture.json" "capture-${_pair%%:*}" "none"
done

# ---- Nsight Systems: the same shape, no kernel table / an empty one ----------
if command -v sqlite3 >/dev/null 2>&1; then
    N="$TMP/nokern.sqlite"
    sqlite3 "$N" <<'SQL'
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'cudaMemcpy_v3020'),(3,'cudaDeviceSynchronize_v3020');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
 globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL);
-- 12 kernel launches at 1.00, 1.02, ..., 1.22 ms (10 us each), correlations 1-12
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 11)
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1000000 + 20000 * i, 1010000 + 20000 * i, 1, 1, i + 1, 1, 0 FROM k;
-- two synchronous 1 MiB H2D copies and a device sync between them
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1300000, 1400000, 1, 1, 13, 2, 0), (1400000, 2000000, 1, 1, 14, 3, 0),
 (2100000, 2200000, 1, 1, 15, 2, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1320000, 1370000, 0, 1, 7, 13, 1048576, 1),
 (2120000, 2170000, 0, 1, 7, 15, 1048576, 1);
SQL
    run_case "$N" nsys-no-table "12,0,0,0,2,1"
    sqlite3 "$N" "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
 deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,
 shortName INTEGER NOT NULL);"
    run_case "$N" nsys-empty-table "12,0,0,0,2,1"
else
    echo "skip: sqlite3 not found (Nsight cases)"
fi
finish
