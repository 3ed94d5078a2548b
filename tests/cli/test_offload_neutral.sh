#!/bin/sh
# offload_transfer on a trace with no framework (docs/DEFINITIONS.md "Offload traffic"): the
# program's own host-device copies, framework-neutral title and advice.  An Nsight export built
# here with the sqlite3 CLI, no NVTX (framework none, no step markers: one window from the first
# CUDA call to the last).  Values derived by hand (times in ms):
#   cudaMemcpy H2D [1.0, 11.0] (copy [1.5, 10.5], 128 MiB); cudaLaunchKernel [11.0, 11.01],
#   kernel [11.5, 12.5]; cudaMemcpy D2H [12.6, 22.0] (copy [13.0, 21.0], 128 MiB).
#   Window [1.0, 22.0] = 21 ms; 128 MiB >= 64 MiB each way; copy time 9 + 8 = 17 ms = 0.810 of
#   the window (>= 0.05) -> offload_transfer; exposed copy time (no kernel) 17 ms = 0.810.
#   Title: "Every step moves 128 MiB to the GPU and 128 MiB back: the program's own host-device
#   copies run for 81.0% of the step, 81.0% with no kernel running"; advice neutral (resident,
#   cudaMallocHost, streams), no ZeRO/FSDP/CPUOffload.
set -eu
GD_TMP_TAG=offneutral
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
if ! command -v sqlite3 >/dev/null 2>&1; then
    echo "skip: sqlite3 (the command-line tool) not found"
    exit 77
fi
rc=0
cat > "$TMP/t.sql" <<'SQL'
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'saxpy'),(3,'cudaMemcpy_v3020');
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (1,'CUDA_MEMCPY_KIND_HTOD','Host-to-Device'),(2,'CUDA_MEMCPY_KIND_DTOH','Device-to-Host');
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEM_KIND VALUES (0,'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE','Pageable'),(1,'CUDA_MEMOPR_MEMORY_KIND_PINNED','Pinned'),
 (2,'CUDA_MEMOPR_MEMORY_KIND_DEVICE','Device');
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER, name TEXT, totalMemory INTEGER, smCount INTEGER,
 computeMajor INTEGER, computeMinor INTEGER, threadsPerWarp INTEGER, maxWarpsPerSm INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (0,0,'NVIDIA A100-SXM4-80GB',85520809984,108,8,0,32,64);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
 globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
 demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
 gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
 copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, dstDeviceId INTEGER);
CREATE TEMP VIEW ids AS SELECT (1 << 48) | (100 << 24) AS pid, ((1 << 48) | (100 << 24)) + 100 AS tid;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1000000, 11000000, 1, tid, 1, 3, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT 1500000, 10500000, 0, 1, 7, 1, pid, 134217728, 1, 0, 2, NULL, 0 FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 11000000, 11010000, 1, tid, 2, 1, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 11500000, 12500000, 0, 1, 7, 2, pid, 2, 2, 216, 1, 1, 256, 1, 1 FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 12600000, 22000000, 1, tid, 3, 3, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT 13000000, 21000000, 0, 1, 7, 3, pid, 134217728, 2, 2, 0, 0, NULL FROM ids;
SQL
sqlite3 "$TMP/t.sqlite" < "$TMP/t.sql"
if ! "$GPUDIAG" analyze --json "$TMP/t.sqlite" > "$TMP/t.json" 2> "$TMP/t.err"; then
    echo "FAIL: exit $?: $(cat "$TMP/t.err")"; rc=1
fi
python3 - "$TMP/t.json" offload_neutral <<'PY' || rc=1
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["id"] == "offload_transfer"]
f = f[0] if f else {"evidence": {}, "title": "", "recommendation": ""}
rec = f["recommendation"]
valcheck.run([
    ("framework", d["inputs"][0]["framework"], "none"),
    ("h2d bytes", f["evidence"].get("h2d_bytes_per_step"), 134217728),
    ("d2h bytes", f["evidence"].get("d2h_bytes_per_step"), 134217728),
    ("time share", f["evidence"].get("transfer_time_share"), 17 / 21),
    ("title", f["title"], "Every step moves 128 MiB to the GPU and 128 MiB back: the program's own host-device copies "
     "run for 81.0% of the step, 81.0% with no kernel running"),
    ("advice resident", "resident on the GPU" in rec, True),
    ("advice pinned", "cudaMallocHost" in rec, True),
    ("no ZeRO", "ZeRO" in rec, False), ("no CPUOffload", "CPUOffload" in rec, False),
], sys.argv[2], 1e-4)
PY
exit $rc
