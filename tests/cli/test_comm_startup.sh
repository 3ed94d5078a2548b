#!/bin/sh
# Start-up communication (docs/DEFINITIONS.md "Communication", start-up communication): the
# Communication role time inside start-up idle and inside set-up calls (MPI_Init, MPI_Finalize,
# ...) is left out of communication_bound's share.  An Nsight export built here with the sqlite3
# CLI; values derived by hand (times in ms):
#   one step, NVTX ProfilerStep#1 [1000, 1400] (400 ms); NVTX MPI_Init [1010, 1200];
#   kernel K1 [1250, 1260] (launch [1249, 1249.01]); NVTX MPI_Allreduce [1270, 1330];
#   kernel K2 [1340, 1350] (launch [1335, 1335.01]); NVTX MPI_Finalize [1360, 1390].
#   Communication role: 190 + 60 + 30 = 280 ms -> summary.comm_share 0.70 (TBP, unchanged).
#   Device-idle gaps: [1000, 1250] 250 ms, the lead-in, >= 100 ms and >= half the step: startup;
#   [1260, 1340] 80 ms, MPI 60 >= 40: communication; [1350, 1400] 50 ms, a lead-out < 100 ms (not
#   start-up), MPI 30 >= 25: communication.  Start-up 250 ms = 0.625 of the window; steady
#   fraction 0.375.
#   Before: communication_bound share 0.70 / 0.375 = 1.87 -> capped at 1.0.
#   Now: MPI_Init's 190 ms lie in start-up, MPI_Finalize's 30 ms are a set-up call: left out
#   220 ms -> (280 - 220) / 400 = 0.15 of the window -> 0.15 / 0.375 = 0.40 of the steady step;
#   comm_startup_us_per_step 220000.
set -eu
GD_TMP_TAG=commstartup
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
if ! command -v sqlite3 >/dev/null 2>&1; then
    echo "skip: sqlite3 (the command-line tool) not found"
    exit 77
fi
rc=0
cat > "$TMP/t.sql" <<'SQL'
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'saxpy'),(3,'ProfilerStep#1'),(4,'MPI_Init'),
 (5,'MPI_Allreduce'),(6,'MPI_Finalize');
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER, name TEXT, totalMemory INTEGER, smCount INTEGER,
 computeMajor INTEGER, computeMinor INTEGER, threadsPerWarp INTEGER, maxWarpsPerSm INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (0,0,'NVIDIA A100-SXM4-80GB',85520809984,108,8,0,32,64);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
 globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
 demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
 gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
 category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
CREATE TEMP VIEW ids AS SELECT (1 << 48) | (100 << 24) AS pid, ((1 << 48) | (100 << 24)) + 100 AS tid;
INSERT INTO NVTX_EVENTS SELECT 1000000000, 1400000000, 59, NULL, NULL, NULL, NULL, tid, NULL, 3, 0 FROM ids;
INSERT INTO NVTX_EVENTS SELECT 1010000000, 1200000000, 59, NULL, NULL, NULL, NULL, tid, NULL, 4, 0 FROM ids;
INSERT INTO NVTX_EVENTS SELECT 1270000000, 1330000000, 59, NULL, NULL, NULL, NULL, tid, NULL, 5, 0 FROM ids;
INSERT INTO NVTX_EVENTS SELECT 1360000000, 1390000000, 59, NULL, NULL, NULL, NULL, tid, NULL, 6, 0 FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1249000000, 1249010000, 1, tid, 1, 1, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1250000000, 1260000000, 0, 1, 7, 1, pid, 2, 2, 216, 1, 1, 256, 1, 1 FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1335000000, 1335010000, 1, tid, 2, 1, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1340000000, 1350000000, 0, 1, 7, 2, pid, 2, 2, 216, 1, 1, 256, 1, 1 FROM ids;
SQL
sqlite3 "$TMP/t.sqlite" < "$TMP/t.sql"
if ! "$GPUDIAG" analyze --json "$TMP/t.sqlite" > "$TMP/t.json" 2> "$TMP/t.err"; then
    echo "FAIL: exit $?: $(cat "$TMP/t.err")"; rc=1
fi
python3 - "$TMP/t.json" comm_startup <<'PY' || rc=1
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
d = json.load(open(sys.argv[1]))
i = d["idle"]
f = [x for x in d["findings"] if x["id"] == "communication_bound"]
f = f[0] if f else {"evidence": {}}
valcheck.run([
    ("comm_share (TBP)", d["summary"]["comm_share"], 0.70),
    ("startup idle", i["by_cause_us"]["startup"], 250000),
    ("communication idle", i["by_cause_us"]["communication"], 130000),
    ("finding share", f["evidence"].get("comm_share"), 0.40),
    ("left out", f["evidence"].get("comm_startup_us_per_step"), 220000),
], sys.argv[2], 1e-6)
PY
exit $rc
