#!/bin/sh
# Nsight runtime rows and MPI (issue 19 class 6; docs/DEFINITIONS.md "Nsight Systems exports",
# "Idle gaps and their causes" MPI) and collective kinds in an Nsight export (class 2), on SQLite
# exports built here with the sqlite3 CLI.  Values derived by hand (times in ms):
#   one step, NVTX ProfilerStep#1 [1.0, 11.0]; kernel K1 [1.2, 3.2]; cudaDeviceSynchronize
#   [1.12, 3.21] returns as the GPU drains; kernel K2 [7.3, 9.3]; a D2H cudaMemcpy [9.25, 9.5]
#   (copy [9.3, 9.4]) recorded twice under correlation id 4 (cudaMemcpy_v3020 and cudaMemcpy);
#   a cudaStreamSynchronize [9.6, 9.7].  Device-idle gaps: [1.0, 1.2] 0.2 (host_launch: the
#   launch call), [3.2, 7.3] 4.1, [9.4, 11.0] 1.6.
#   base (no MPI): the two late gaps start while a sync call runs; [3.2, 7.3]: the device sync
#     blocked 2.09 >= 4.1 / 2 -> sync 4.1 ms = 0.41 of the step, sync_stall first; [9.4, 11.0]:
#     the cudaMemcpy blocked 0.25 < 1.6 / 2 and no op follows, so the host's time after its
#     return runs to the gap's end, 1.5 >= 0.8 (idle rule 1, "A short sync") -> host_launch 1.6
#     (host_launch 0.2 + 1.6 = 1.8)
#     (until that rule: sync 5.7 ms); 3 sync calls; runtime_calls 5 (6 rows, 1 duplicate); Nsight
#     cuda_memcpy_sync 1 copy of 4096 B (before: 2, the copy joined to both rows).
#   mpi_nvtx: + NVTX MPI_Allreduce [3.22, 7.2] and MPI_Recv [9.5, 11.0] (the stream sync inside
#     it is the MPI library's): MPI covers 3.98 >= 4.1 / 2 and 1.5 >= 1.6 / 2 -> communication
#     5.7 ms = 0.57, sync 0; 2 sync calls (2.09 + 0.25 = 2.34 ms); Communication role
#     3.98 + 1.5 = 5.48 -> communication_bound 0.548 first, MPI advice, mpi_calls 2.
#   mpi_tab: the same MPI calls as rows of MPI_COLLECTIVES_EVENTS / MPI_P2P_EVENTS: the same.
#   nccl: step [1.0, 3.0]; NVTX ncclAllReduce [1.1, 1.2] holds the launch [1.15, 1.16] of
#     ncclDevKernel_SendRecv [1.2, 2.2] -> all_reduce 1000 us; a second SendRecv kernel
#     [2.3, 2.5] launched at [1.3, 1.31] outside any NCCL range -> unknown 200 us.
set -eu
GD_TMP_TAG=nsyscomm
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
if ! command -v sqlite3 >/dev/null 2>&1; then
    echo "skip: sqlite3 (the command-line tool) not found"
    exit 77
fi
rc=0
cat > "$TMP/base.sql" <<'SQL'
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'cudaDeviceSynchronize_v3020'),(3,'cudaMemcpy_v3020'),
 (4,'cudaMemcpy'),(5,'cudaStreamSynchronize_v3020'),(6,'jacobi_kernel'),(7,'ProfilerStep#1'),(8,'MPI_Allreduce'),
 (9,'MPI_Recv');
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
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
 category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
CREATE TEMP VIEW ids AS SELECT (1 << 48) | (100 << 24) AS pid, ((1 << 48) | (100 << 24)) + 100 AS tid;
INSERT INTO NVTX_EVENTS SELECT 1000000, 11000000, 59, NULL, NULL, NULL, NULL, tid, NULL, 7, 0 FROM ids;
-- K1 [1.2, 3.2] ms; cudaDeviceSynchronize [1.12, 3.21] ms returns as the GPU drains
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1100000, 1110000, 1, tid, 1, 1, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1200000, 3200000, 0, 1, 7, 1, pid, 6, 6, 216, 1, 1, 256, 1, 1 FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1120000, 3210000, 1, tid, 2, 2, 0, NULL FROM ids;
-- K2 [7.3, 9.3] ms; a D2H cudaMemcpy [9.25, 9.5] ms (copy [9.3, 9.4]) recorded twice under one correlation id
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 7210000, 7220000, 1, tid, 3, 1, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 7300000, 9300000, 0, 1, 7, 3, pid, 6, 6, 216, 1, 1, 256, 1, 1 FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 9250000, 9500000, 1, tid, 4, 3, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 9250000, 9500000, 1, tid, 4, 4, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT 9300000, 9400000, 0, 1, 7, 4, pid, 4096, 2, 2, 1, 0, NULL FROM ids;
-- inside MPI_Recv: CUDA-aware MPI's own cudaStreamSynchronize [9.6, 9.7] ms
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 9600000, 9700000, 1, tid, 5, 5, 0, NULL FROM ids;
SQL
cp "$TMP/base.sql" "$TMP/mpi_nvtx.sql"
cat >> "$TMP/mpi_nvtx.sql" <<'SQL'
INSERT INTO NVTX_EVENTS SELECT 3220000, 7200000, 59, NULL, NULL, NULL, NULL, tid, NULL, 8, 0 FROM ids;
INSERT INTO NVTX_EVENTS SELECT 9500000, 11000000, 59, NULL, NULL, NULL, NULL, tid, NULL, 9, 0 FROM ids;
SQL
cp "$TMP/base.sql" "$TMP/mpi_tab.sql"
cat >> "$TMP/mpi_tab.sql" <<'SQL'
CREATE TABLE MPI_COLLECTIVES_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER, textId INTEGER,
 commHandle INTEGER, rootRank INTEGER, size INTEGER, recvSize INTEGER);
CREATE TABLE MPI_P2P_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER, textId INTEGER,
 commHandle INTEGER, tag INTEGER, remoteRank INTEGER, size INTEGER);
INSERT INTO MPI_COLLECTIVES_EVENTS SELECT 3220000, 7200000, tid, 8, 1, NULL, 8, 8 FROM ids;
INSERT INTO MPI_P2P_EVENTS SELECT 9500000, 11000000, tid, 9, 1, 0, 1, 4096 FROM ids;
SQL
cat > "$TMP/nccl.sql" <<'SQL'
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)'),
 (3,'ProfilerStep#1'),(4,'ncclAllReduce');
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
INSERT INTO NVTX_EVENTS SELECT 1000000, 3000000, 59, NULL, NULL, NULL, NULL, tid, NULL, 3, 0 FROM ids;
INSERT INTO NVTX_EVENTS SELECT 1100000, 1200000, 59, NULL, NULL, NULL, NULL, tid, NULL, 4, 1 FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1150000, 1160000, 1, tid, 1, 1, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1200000, 2200000, 0, 1, 20, 1, pid, 2, 2, 2, 1, 1, 512, 1, 1 FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1300000, 1310000, 1, tid, 2, 1, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 2300000, 2500000, 0, 1, 20, 2, pid, 2, 2, 2, 1, 1, 512, 1, 1 FROM ids;
SQL
for v in base mpi_nvtx mpi_tab nccl; do
    sqlite3 "$TMP/$v.sqlite" < "$TMP/$v.sql"
    if ! "$GPUDIAG" analyze --json "$TMP/$v.sqlite" > "$TMP/$v.json" 2> "$TMP/$v.err"; then
        echo "FAIL: $v: exit $?: $(cat "$TMP/$v.err")"; rc=1
    fi
done

python3 - "$TMP/base.json" base <<'PY' || rc=1
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
d = json.load(open(sys.argv[1]))
n, i = d["inputs"][0]["nsys"], d["idle"]
valcheck.run([
    ("runtime_calls", n["runtime_calls"], 5), ("runtime_duplicates", n["runtime_duplicates"], 1),
    ("mpi_calls", n["mpi_calls"], 0),
    ("sync idle", i["by_cause_us"]["sync"], 4100), ("communication idle", i["by_cause_us"]["communication"], 0),
    ("host_launch idle", i["by_cause_us"]["host_launch"], 1800),
    ("sync calls", i["sync_calls"], 3),
    ("first finding", d["findings"][0]["id"], "sync_stall"),
    ("memcpy_sync count", d["nsight_rules"]["cuda_memcpy_sync"]["count"], 1),
    ("memcpy_sync bytes", d["nsight_rules"]["cuda_memcpy_sync"]["bytes"], 4096),
    ("api_sync count", d["nsight_rules"]["cuda_api_sync"]["count"], 2),
], sys.argv[2], 1e-6)
PY

PY_MPI=$(cat <<'EOF2'
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
d = json.load(open(sys.argv[1]))
n, i = d["inputs"][0]["nsys"], d["idle"]
f = d["findings"][0]
valcheck.run([
    ("runtime_calls", n["runtime_calls"], 5), ("runtime_duplicates", n["runtime_duplicates"], 1),
    ("mpi_calls", n["mpi_calls"], 2),
    ("communication idle", i["by_cause_us"]["communication"], 5700), ("sync idle", i["by_cause_us"]["sync"], 0),
    ("host_launch idle", i["by_cause_us"]["host_launch"], 200),
    ("sync calls", i["sync_calls"], 2), ("sync time", i["sync_time_us"], 2340),
    ("first finding", f["id"], "communication_bound"), ("comm share", d["summary"]["comm_share"], 0.548),
    ("mpi evidence", f["evidence"].get("mpi_calls"), 2),
    ("MPI title", f["title"], "Communication not hidden behind compute takes 54.8% of each step: the GPU waits "
     "while the host is in MPI calls"),
    ("MPI advice", f["recommendation"].startswith("Overlap MPI with GPU work"), True),
    ("no DDP advice", "bucket_cap_mb" in f["recommendation"], False),
    ("no sync_stall", "sync_stall" in [x["id"] for x in d["findings"]], False),
    ("no .item() in the verdict", ".item()" in d["verdict"]["summary"], False),
], sys.argv[2], 1e-6)
EOF2
)
python3 -c "$PY_MPI" "$TMP/mpi_nvtx.json" mpi_nvtx || rc=1
python3 -c "$PY_MPI" "$TMP/mpi_tab.json" mpi_tab || rc=1

python3 - "$TMP/nccl.json" nccl <<'PY' || rc=1
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
k = json.load(open(sys.argv[1]))["summary"]["comm_kernel_us_by_kind"]
valcheck.run([("all_reduce", k["all_reduce"], 1000), ("unknown", k["unknown"], 200), ("send_recv", k["send_recv"], 0)],
             sys.argv[2], 1e-6)
PY
exit $rc
