#!/bin/sh
# test_nsys.sh — Nsight Systems SQLite exports (`nsys export --type sqlite`).
#
#  1. The shared real export (CloverLeaf on an A100): counts and totals computed
#     here with the sqlite3 command-line tool — kernels, total kernel time,
#     memcpy count/bytes by copy kind, pageable copies, sync API calls, NVIDIA's
#     cuda_memcpy_sync and gpu_time_util rules re-derived in SQL — against
#     gpudiag's --json.
#  2. Two small exports built here from SQL: a newer column set (StringIds
#     names, textId NVTX, ProfilerStep#N ranges, memory kinds, memsets, a CUDA
#     graph kernel, profiler overhead) and an older one (shortName only, inline
#     NVTX text, no enum/GPU/session tables), with values derived by hand in
#     the comments.
#  3. Damaged files: truncated, bad header, corrupt pages, a non-nsys SQLite
#     database, an export on standard input — exit 3 with a clear message.
# Exit: 0 all passed, 1 any failure, 77 sqlite3 or python3 missing (skip).

GD_TMP_TAG=nsys
# shellcheck source=tests/cli/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"
if ! command -v sqlite3 >/dev/null 2>&1; then
    echo "skip: sqlite3 (the command-line tool) not found"
    exit 77
fi

q() { sqlite3 -batch -noheader "$1" "$2"; }

# ---- 1. the shared real export -------------------------------------------
X="$GD_SHARED/data/nsys/cloverleaf_cuda_a100.sqlite"
if [ -f "$X" ]; then
    if "$GPUDIAG" analyze --json "$X" > "$TMP/real.json" 2> "$TMP/real.err"; then ok; else bad "real export: exit $?: $(cat "$TMP/real.err")"; fi
    K=$(q "$X" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    KT=$(q "$X" "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    H2D=$(q "$X" "SELECT count(*) || ' ' || total(bytes) || ' ' || total(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = (SELECT id FROM ENUM_CUDA_MEMCPY_OPER WHERE name = 'CUDA_MEMCPY_KIND_HTOD')")
    D2H=$(q "$X" "SELECT count(*) || ' ' || total(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = (SELECT id FROM ENUM_CUDA_MEMCPY_OPER WHERE name = 'CUDA_MEMCPY_KIND_DTOH')")
    PAGE=$(q "$X" "SELECT count(*) || ' ' || total(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE 0 IN (srcKind, dstKind)")
    # every runtime call whose name, without its _vNNNN suffix, is a device/stream sync
    APISYNC=$(q "$X" "SELECT count(*) || ' ' || total(r.end - r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId WHERE s.value GLOB 'cudaDeviceSynchronize*' OR s.value GLOB 'cudaStreamSynchronize*'")
    # host sync calls as gpudiag counts them: the sync APIs plus synchronous cudaMemcpy
    HSYNC=$(q "$X" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId WHERE s.value GLOB 'cudaDeviceSynchronize*' OR s.value GLOB 'cudaStreamSynchronize*' OR (s.value GLOB 'cudaMemcpy*' AND s.value NOT GLOB '*Async*')")
    # cuda_memcpy_sync: cudaMemcpy (not async) copies, less H2D copies of <= 64000 bytes
    MSYNC=$(q "$X" "SELECT count(*) || ' ' || total(m.bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY m JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = m.correlationId JOIN StringIds s ON s.id = r.nameId WHERE s.value GLOB 'cudaMemcpy_v*' AND NOT (m.copyKind = 1 AND m.bytes <= 64000)")
    # gpu_time_util: the range of GPU ops cut in 30 chunks of ceil(len/30) ns; the lowest chunk's busy share
    UMIN=$(q "$X" "WITH ops AS (SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY),
        rg AS (SELECT min(start) AS s, max(end) AS e FROM ops),
        sz AS (SELECT s, e, (e - s + 29) / 30 AS c FROM rg),
        k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 29),
        ch AS (SELECT i, s + i * c AS cs, min(s + (i + 1) * c, e) AS ce FROM k, sz WHERE s + i * c < e)
        SELECT printf('%.6f', min(u)) FROM (SELECT ch.i, total(max(0, min(o.end, ce) - max(o.start, cs))) * 1.0 / (ce - cs) AS u
        FROM ch LEFT JOIN ops o ON o.start < ce AND o.end > cs GROUP BY ch.i)")
    NCHUNK=$(q "$X" "WITH ops AS (SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY) SELECT CASE WHEN (max(end) - min(start)) % 30 = 0 THEN 30 ELSE 30 END FROM ops")
    GPU=$(q "$X" "SELECT name || '|' || smCount || '|' || totalMemory FROM TARGET_INFO_GPU WHERE id = (SELECT deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1)")
    START=$(q "$X" "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME")
    SYNCEV=$(q "$X" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")
    python3 - "$TMP/real.json" "$K" "$KT" "$H2D" "$D2H" "$PAGE" "$APISYNC" "$HSYNC" "$MSYNC" "$UMIN" "$NCHUNK" "$GPU" "$START" "$SYNCEV" <<'PY' && ok || bad "real export values"
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
a = sys.argv
d = json.load(open(a[1]))
inp, s, t, n = d["inputs"][0], d["summary"], d["transfers"], d["nsight_rules"]
h2d, d2h, page, apis, msync = (a[i].split() for i in (4, 5, 6, 7, 9))
gpu = a[12].split("|")
dev = d["devices"][0]
ids = [f["id"] for f in d["findings"]]
valcheck.run([
    ("format", inp["format"], "nsys"),
    ("nsys.kernels", inp["nsys"]["kernels"], int(a[2])),
    ("summary.kernel_count", s["kernel_count"], int(a[2])),
    ("summary.kernel_time_us", s["kernel_time_us"], int(a[3]) / 1000),
    ("summary.linked_kernels", s["linked_kernels"], int(a[2])),
    ("h2d.count", t["h2d"]["count"], int(h2d[0])),
    ("h2d.bytes", t["h2d"]["bytes"], float(h2d[1])),
    ("h2d.time_us", t["h2d"]["time_us"], float(h2d[2]) / 1000),
    ("d2h.count", t["d2h"]["count"], int(d2h[0])),
    ("d2h.bytes", t["d2h"]["bytes"], float(d2h[1])),
    ("pageable.count", t["pageable"]["count"], int(page[0])),
    ("pageable.bytes", t["pageable"]["bytes"], float(page[1])),
    ("cuda_api_sync.count", n["cuda_api_sync"]["count"], int(apis[0])),
    ("cuda_api_sync.host_time_us", n["cuda_api_sync"]["host_time_us"], float(apis[1]) / 1000),
    ("idle.sync_calls", d["idle"]["sync_calls"], int(a[8])),
    ("cuda_memcpy_sync.count", n["cuda_memcpy_sync"]["count"], int(msync[0])),
    ("cuda_memcpy_sync.bytes", n["cuda_memcpy_sync"]["bytes"], float(msync[1])),
    ("gpu_time_util.min_utilization", n["gpu_time_util"]["min_utilization"], float(a[10])),
    ("gpu_time_util.chunks", n["gpu_time_util"]["chunks"], int(a[11])),
    ("gpu_time_util.low_chunks", n["gpu_time_util"]["low_chunks"], 0 if float(a[10]) >= 0.5 else -1),
    ("gpu_gaps.count", n["gpu_gaps"]["count"], 0),   # the whole run is 0.6 s: no 500 ms gap
    ("device.name", dev["name"], gpu[0]),
    ("device.num_sms", dev["num_sms"], int(gpu[1])),
    ("device.total_memory_bytes", dev["total_memory_bytes"], int(gpu[2])),
    ("devices", len(d["devices"]), 1),             # TARGET_INFO_GPU lists 4; the capture used 1
    ("session_start_utc_ns", inp["nsys"]["session_start_utc_ns"], int(a[13])),
    ("sync_events", inp["nsys"]["sync_events"], int(a[14])),
    ("steps", s["steps"], 1),
    # exact counts, derived by hand from the export (docs/DEFINITIONS.md "Copies"): its 279 copies
    # are all synchronous cudaMemcpy touching pageable memory, 254 H2D + 25 D2H of 2048 B;
    # NVIDIA's cuda_memcpy_sync leaves out the 10 H2D copies of <= 64000 B (152 B in all)
    ("pageable.count = 254 H2D + 25 D2H", t["pageable"]["count"], 279),
    ("pageable.bytes", t["pageable"]["bytes"], 225065752 + 25 * 2048),
    ("cuda_memcpy_sync.count = 279 - 10 small H2D", n["cuda_memcpy_sync"]["count"], 269),
    ("cuda_memcpy_sync.bytes", n["cuda_memcpy_sync"]["bytes"], 225065752 - 152 + 25 * 2048),
    ("cuda_memcpy_async.count: no async copy", n["cuda_memcpy_async"]["count"], 0),
    ("nsight_cuda_api_sync fires", "nsight_cuda_api_sync" in ids, True),
    ("nsight_cuda_memcpy_sync fires", "nsight_cuda_memcpy_sync" in ids, True),
    ("input_schema_gaps (no NVTX_EVENTS)", "input_schema_gaps" in ids and any("NVTX_EVENTS" in g for g in inp["nsys"]["schema_gaps"]), True),
], "real export", rel=1e-6)
PY
    # steady-state step (DEFINITIONS "Start-up in the window"): the window runs from the first CUDA
    # call to the last, its start-up is the lead-in before the first GPU op (>= 100 ms, no step
    # markers); sync_stall's share divides the GPU idle after sync calls by the time left, by hand
    # 45.2 ms / (618.35 - 268.94) ms = 12.9 %, medium (it read 7.3 %, low, of the whole window);
    # less the 7.01 ms gap after the last sync that the host spends in cudaFree (idle rule 1: long
    # non-sync calls after the sync returned): 38.2 ms / 349.4 ms = 10.9 % (a new user's sqlite3
    # check: 38.3 / 349); less the 19 gaps (8.79 ms) after a short sync (idle rule 1, "A short
    # sync": the sync blocked < half the gap and the host then worked >= half of it before the next
    # launch; the largest, 2.56 ms, opens with a 575 us cudaDeviceSynchronize that returns 2 us in,
    # then cudaMalloc calls and untraced host code until a cudaMemcpy 2.52 ms in, by the export's
    # runtime rows): 29.4 ms / 349.4 ms = 8.4 %, low
    WIN=$(q "$X" "SELECT max(end) - min(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME")
    LEAD=$(q "$X" "SELECT (SELECT min(start) FROM (SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT start FROM CUPTI_ACTIVITY_KIND_MEMCPY)) - min(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME")
    python3 - "$TMP/real.json" "$WIN" "$LEAD" <<'PY' && ok || bad "real export: steady-state step"
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
d = json.load(open(sys.argv[1]))
win, lead = int(sys.argv[2]) / 1000, int(sys.argv[3]) / 1000
f = {x["id"]: x for x in d["findings"]}
sync = d["idle"]["by_cause_us"]["sync"]
valcheck.run([
    ("step = window", d["summary"]["step_time_us"]["mean"], win),
    ("startup = lead-in", d["idle"]["by_cause_us"]["startup"], lead),
    ("summary.steady_step_us = window - lead-in", d["summary"]["steady_step_us"], win - lead),
    ("sync_stall.est_gain = sync idle / (window - lead-in)", f["sync_stall"]["est_gain"], sync / (win - lead)),
    ("sync_stall.est_gain, by hand (45.2 - 7.01 - 8.79) / 349.4", round(f["sync_stall"]["est_gain"], 3), 0.084),
    ("sync_stall.severity", f["sync_stall"]["severity"], "low"),
    ("verdict", d["verdict"]["finding"], "sync_stall"),
], "real export: steady-state step", rel=1e-6)
PY
    "$GPUDIAG" analyze "$X" > "$TMP/real.txt" 2>&1
    grep -q "NSIGHT RULES" "$TMP/real.txt" && grep -q "cuda_api_sync      FIRES" "$TMP/real.txt" && ok || bad "text report lacks the NSIGHT RULES section"

    # damaged copies of the real export
    SIZE=$(wc -c < "$X")
    head -c 1000000 "$X" > "$TMP/cut.sqlite"
    if "$GPUDIAG" analyze "$TMP/cut.sqlite" > /dev/null 2> "$TMP/err"; then rc=0; else rc=$?; fi
    if [ "$rc" -eq 3 ] && grep -q "truncated" "$TMP/err" && grep -q "byte 1000000" "$TMP/err" && grep -q "$TMP/cut.sqlite" "$TMP/err"; then ok; else bad "truncated export: rc $rc $(cat "$TMP/err")"; fi
    python3 - "$X" "$TMP/corrupt.sqlite" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[4096:len(b) - 4096] = b"\xff" * (len(b) - 8192)   # every page but the first and last
open(sys.argv[2], "wb").write(b)
PY
    if "$GPUDIAG" analyze "$TMP/corrupt.sqlite" > /dev/null 2> "$TMP/err"; then rc=0; else rc=$?; fi
    if [ "$rc" -eq 3 ] && grep -q "not a readable Nsight Systems export" "$TMP/err"; then ok; else bad "corrupt export: rc $rc $(cat "$TMP/err")"; fi
    if "$GPUDIAG" analyze - < "$X" > /dev/null 2> "$TMP/err"; then rc=0; else rc=$?; fi
    if [ "$rc" -eq 3 ] && grep -q "standard input" "$TMP/err"; then ok; else bad "export on stdin: rc $rc $(cat "$TMP/err")"; fi
    [ "$SIZE" -gt 1000000 ] && ok || bad "real export smaller than expected"
else
    echo "note: $X absent, real-export checks skipped"
fi

printf 'SQLite format 3\000xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' > "$TMP/badhdr.sqlite"
if "$GPUDIAG" analyze "$TMP/badhdr.sqlite" > /dev/null 2> "$TMP/err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 3 ] && grep -q "page size" "$TMP/err" && grep -q "byte 16" "$TMP/err"; then ok; else bad "bad header: rc $rc $(cat "$TMP/err")"; fi
sqlite3 "$TMP/other.sqlite" "CREATE TABLE notes(a); INSERT INTO notes VALUES (1);"
if "$GPUDIAG" analyze "$TMP/other.sqlite" > /dev/null 2> "$TMP/err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 3 ] && grep -q "without Nsight Systems tables" "$TMP/err"; then ok; else bad "non-nsys SQLite: rc $rc $(cat "$TMP/err")"; fi
# an Nsight export that recorded nothing: nsys leaves the empty CUDA/NVTX tables out but keeps its
# META_DATA_EXPORT (a reviewer's ZhangXin8069/qcu report2.sqlite, `nsys profile mpirun ...`): named
# as an export that recorded nothing, with the fix, not "not an nsys export" (the old message)
sqlite3 "$TMP/empty_nsys.sqlite" "CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT); INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_NAME', 'NVIDIA Nsight Systems'); CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
if "$GPUDIAG" analyze "$TMP/empty_nsys.sqlite" > /dev/null 2> "$TMP/err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 3 ] && grep -q "an Nsight Systems export that recorded no CUDA kernels" "$TMP/err" &&
   grep -q "nsys profile -t cuda,nvtx" "$TMP/err"; then ok; else bad "empty nsys export: rc $rc $(cat "$TMP/err")"; fi
# a hostile database: the kernel table is a view that recurses for ever.  Before the
# work budget (src/ingest/nsys.c, GD_NSYS_VM_*) gpudiag never ended; now exit 3, named.
sqlite3 "$TMP/loop.sqlite" "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS start, x + 1 AS end, 0 AS deviceId, 0 AS streamId, x AS correlationId, 0 AS globalPid, 'k' AS shortName FROM c;"
if timeout 120 "$GPUDIAG" analyze "$TMP/loop.sqlite" > /dev/null 2> "$TMP/err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 3 ] && grep -q "loop.sqlite: not a readable Nsight Systems export: reading CUPTI_ACTIVITY_KIND_KERNEL asks SQLite for more work" "$TMP/err"; then ok; else bad "recursive view: rc $rc $(cat "$TMP/err")"; fi

# ---- 2a. a newer column set, built from SQL ------------------------------
# pid 100, tid 100 (globalPid = 1<<48 | 100<<24); device 0 (132 SMs), stream 7.
# Steps ProfilerStep#1..3 at 1, 11, 21 ms (10 ms each).  Times in ns.
N="$TMP/new.sqlite"
sqlite3 "$N" <<'SQL'
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'cudaMemcpyAsync_v3020'),(3,'cudaMemcpy_v3020'),
 (4,'cudaMemset_v3020'),(5,'cudaStreamSynchronize_v3020'),(6,'ampere_sgemm_128x64_tn'),(7,'ProfilerStep#1'),
 (8,'ProfilerStep#2'),(9,'ProfilerStep#3'),(11,'CUDA profiling overhead'),(12,'cudaMemsetAsync_v3020'),
 (13,'cudaGraphLaunch_v10000'),(14,'void at::native::vectorized_elementwise_kernel<4>'),(15,'CUPTI: Buffer flush'),
 (16,'sgemm');
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (0,'CUDA_MEMCPY_KIND_UNKNOWN','Unknown'),(1,'CUDA_MEMCPY_KIND_HTOD','Host-to-Device'),
 (2,'CUDA_MEMCPY_KIND_DTOH','Device-to-Host'),(8,'CUDA_MEMCPY_KIND_DTOD','Device-to-Device');
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEM_KIND VALUES (0,'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE','Pageable'),(1,'CUDA_MEMOPR_MEMORY_KIND_PINNED','Pinned'),
 (2,'CUDA_MEMOPR_MEMORY_KIND_DEVICE','Device'),(4,'CUDA_MEMOPR_MEMORY_KIND_MANAGED','Managed');
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION','2025.1.1.65');
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000123456789,'2023-11-14T22:13:20','');
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER, name TEXT, totalMemory INTEGER, smCount INTEGER,
 computeMajor INTEGER, computeMinor INTEGER, threadsPerWarp INTEGER, maxWarpsPerSm INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (0,0,'NVIDIA H100 80GB HBM3',85520809984,132,9,0,32,64),(0,1,'NVIDIA H100 80GB HBM3',85520809984,132,9,0,32,64);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
 globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
 demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, gridX INTEGER NOT NULL,
 gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
 graphNodeId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
 copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, dstDeviceId INTEGER, graphNodeId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL,
 bytes INTEGER NOT NULL, memKind INTEGER, graphNodeId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, syncType INTEGER NOT NULL,
 eventId INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
 category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER,
 jsonText TEXT);
CREATE TABLE PROFILER_OVERHEAD (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER, nameId INTEGER NOT NULL,
 returnValue INTEGER NOT NULL);
CREATE TABLE CUDA_GRAPH_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL, graphId INTEGER, originalGraphId INTEGER,
 globalTid INTEGER, correlationId INTEGER);
CREATE TEMP VIEW ids AS SELECT (1 << 48) | (100 << 24) AS pid, ((1 << 48) | (100 << 24)) + 100 AS tid;
-- step 1: a GEMM (66 blocks = 0.5 per SM) and a pageable async H2D copy
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1100000, 1110000, 1, tid, 1, 1, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1200000, 6200000, 0, 1, NULL, 7, 1, pid, 6, 16, NULL, 66, 1, 1, 128, 1, 1, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1120000, 1130000, 1, tid, 2, 2, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT 6300000, 6400000, 0, 1, 7, 2, pid, 1000000, 1, 0, 2, NULL, 0, NULL FROM ids;
-- step 2: a GEMM; cudaMemcpy: 1000 B pinned H2D (exempt), 100000 B pageable H2D, 8 MB same-device D2D (exempt), 4096 B D2H
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 11100000, 11110000, 1, tid, 3, 1, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 11200000, 16200000, 0, 1, NULL, 7, 3, pid, 6, 16, NULL, 66, 1, 1, 128, 1, 1, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 11120000, 11130000, 1, tid, 4, 3, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT 16300000, 16310000, 0, 1, 7, 4, pid, 1000, 1, 1, 2, NULL, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 11140000, 11150000, 1, tid, 5, 3, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT 16400000, 16450000, 0, 1, 7, 5, pid, 100000, 1, 0, 2, NULL, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 11160000, 11170000, 1, tid, 6, 3, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT 16500000, 16600000, 0, 1, 7, 6, pid, 8000000, 8, 2, 2, 0, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 11180000, 11190000, 1, tid, 7, 3, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT 16700000, 16710000, 0, 1, 7, 7, pid, 4096, 2, 2, 1, 0, NULL, NULL FROM ids;
-- step 3: an elementwise kernel (264 blocks), cudaMemset on pinned memory, cudaMemsetAsync on device memory,
-- a graph launch of one kernel, a 2.42 ms stream synchronize
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 21100000, 21110000, 1, tid, 8, 1, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 21200000, 22200000, 0, 1, NULL, 7, 8, pid, 14, 14, NULL, 264, 1, 1, 128, 1, 1, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 21120000, 21130000, 1, tid, 9, 4, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET SELECT 22300000, 22310000, 0, 1, 7, 9, pid, 0, 2048, 1, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 21140000, 21150000, 1, tid, 10, 12, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET SELECT 22400000, 22420000, 0, 1, 7, 10, pid, 0, 4096, 2, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 21160000, 21170000, 1, tid, 11, 13, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 22500000, 23500000, 0, 1, NULL, 7, 11, pid, 14, 14, NULL, 264, 1, 1, 128, 1, 1, 5 FROM ids;
INSERT INTO CUDA_GRAPH_EVENTS SELECT 21160000, 21170000, 1, 1, tid, 11 FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 21180000, 23600000, 1, tid, 12, 5, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SELECT 21180000, 23600000, 0, 1, 7, 12, pid, 3, 0 FROM ids;
-- much later: one more kernel at 1.4 s; a CUDA profiling overhead at 300 ms (counts as GPU work for the
-- Nsight rules) and a CUPTI buffer flush at 800 ms (does not)
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1399000000, 1399010000, 1, tid, 13, 1, 0, NULL FROM ids;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1400000000, 1401000000, 0, 1, NULL, 7, 13, pid, 14, 14, NULL, 264, 1, 1, 128, 1, 1, NULL FROM ids;
INSERT INTO PROFILER_OVERHEAD SELECT 300000000, 300100000, tid, 11, 0 FROM ids;
INSERT INTO PROFILER_OVERHEAD SELECT 800000000, 800100000, tid, 15, 0 FROM ids;
-- NVTX: three ProfilerStep#N push/pop ranges (textId), one enclosing range with inline text, one never closed
INSERT INTO NVTX_EVENTS SELECT 1000000, 11000000, 59, NULL, NULL, NULL, NULL, tid, NULL, 7, 0, NULL FROM ids;
INSERT INTO NVTX_EVENTS SELECT 11000000, 21000000, 59, NULL, NULL, NULL, NULL, tid, NULL, 8, 0, NULL FROM ids;
INSERT INTO NVTX_EVENTS SELECT 21000000, 31000000, 59, NULL, NULL, NULL, NULL, tid, NULL, 9, 0, NULL FROM ids;
INSERT INTO NVTX_EVENTS SELECT 500000, 40000000, 60, 1, NULL, NULL, 'train loop', tid, tid, NULL, 0, NULL FROM ids;
INSERT INTO NVTX_EVENTS SELECT 41000000, NULL, 59, NULL, NULL, NULL, 'never closed', tid, NULL, NULL, 0, NULL FROM ids;
SQL
if "$GPUDIAG" analyze --json "$N" > "$TMP/new.json" 2> "$TMP/err"; then ok; else bad "new export: exit $?: $(cat "$TMP/err")"; fi
python3 - "$TMP/new.json" <<'PY' && ok || bad "new export values"
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
d = json.load(open(sys.argv[1]))
inp, s, t, n = d["inputs"][0], d["summary"], d["transfers"], d["nsight_rules"]
ids = [f["id"] for f in d["findings"]]
ns = inp["nsys"]
valcheck.run([
    ("version", ns["version"], "2025.1.1.65"),
    ("session_start_utc_ns", ns["session_start_utc_ns"], 1700000000123456789),
    ("schema_gaps", ns["schema_gaps"], []),
    ("input_schema_gaps absent", "input_schema_gaps" in ids, False),
    ("steps", s["steps"], 3),
    ("step numbers", [st["number"] for st in d["steps"]], [1, 2, 3]),
    ("steps_source", ns["steps_source"], "NVTX ranges ProfilerStep#N"),
    ("nvtx_ranges", ns["nvtx_ranges"], 4),               # the unterminated one is skipped ...
    ("skipped.no_duration", inp["skipped"]["no_duration"], 1),  # ... and counted here
    ("kernels", s["kernel_count"], 5),
    ("kernel_time_us", s["kernel_time_us"], 5000 + 5000 + 1000 + 1000 + 1000),
    ("linked_kernels", s["linked_kernels"], 5),
    ("graph_kernels", ns["graph_kernels"], 1),
    ("graph_events", ns["graph_events"], 1),
    ("sync_events", ns["sync_events"], 1),
    ("memsets", ns["memsets"], 2),
    ("devices", [(x["id"], x["name"], x["num_sms"], x["compute_capability"]) for x in d["devices"]],
     [(0, "NVIDIA H100 80GB HBM3", 132, "9.0")]),
    # copies in the steps: H2D 1000000 + 1000 + 100000 B, D2H 4096 B, D2D 8000000 B; pageable: the 1 MB and 100 kB ones
    ("h2d", (t["h2d"]["count"], t["h2d"]["bytes"]), (3, 1101000)),
    ("d2h", (t["d2h"]["count"], t["d2h"]["bytes"]), (1, 4096)),
    ("d2d", (t["d2d"]["count"], t["d2d"]["bytes"]), (1, 8000000)),
    ("pageable", (t["pageable"]["count"], t["pageable"]["bytes"]), (2, 1100000)),
    # host sync calls: four cudaMemcpy and one cudaStreamSynchronize (2420 us) -> 4*10 + 2420 us
    ("sync_calls", d["idle"]["sync_calls"], 5),
    ("sync_time_us", d["idle"]["sync_time_us"], 2460),
    # GEMM fill: both GEMMs have 66 blocks on 132 SMs -> all 10 ms underfilled, half the SMs idle
    ("gemm_fill", (d["kernels"]["gemm_fill"]["time_us"], d["kernels"]["gemm_fill"]["underfilled_share"], d["kernels"]["gemm_fill"]["sm_idle_us"]), (10000, 1.0, 5000)),
    # Nsight rules
    ("cuda_memcpy_sync", (n["cuda_memcpy_sync"]["count"], n["cuda_memcpy_sync"]["bytes"], n["cuda_memcpy_sync"]["gpu_time_us"]), (2, 104096, 60)),
    ("cuda_memcpy_async", (n["cuda_memcpy_async"]["count"], n["cuda_memcpy_async"]["bytes"], n["cuda_memcpy_async"]["gpu_time_us"]), (1, 1000000, 100)),
    ("cuda_memset_sync", (n["cuda_memset_sync"]["count"], n["cuda_memset_sync"]["bytes"], n["cuda_memset_sync"]["gpu_time_us"]), (1, 2048, 10)),
    ("cuda_api_sync", (n["cuda_api_sync"]["count"], n["cuda_api_sync"]["host_time_us"]), (1, 2420)),
    # ops 1.2 .. 23.5 ms, the overhead 300.0-300.1 ms, the last kernel 1400-1401 ms: gaps 276.5 ms and
    # 1099.9 ms; only the second exceeds 500 ms (without the overhead it would be one 1376.5 ms gap)
    ("gpu_gaps", (n["gpu_gaps"]["count"], n["gpu_gaps"]["total_us"], n["gpu_gaps"]["max_us"]), (1, 1099900, 1099900)),
    # range 1.2 .. 1401 ms = 1399.8 ms in 30 chunks of 46.66 ms: the first is 12.31/46.66 = 26.4 % busy, the
    # rest hold at most 1 ms: all 30 below 50 %, one region; the emptiest chunks are 0 % busy
    ("gpu_time_util", (n["gpu_time_util"]["chunks"], n["gpu_time_util"]["low_chunks"], n["gpu_time_util"]["low_regions"],
                       n["gpu_time_util"]["low_time_us"], n["gpu_time_util"]["min_utilization"]), (30, 30, 1, 1399800, 0)),
    ("nsight findings", sorted(i for i in ids if i.startswith("nsight_")),
     ["nsight_cuda_api_sync", "nsight_cuda_memcpy_async", "nsight_cuda_memcpy_sync", "nsight_cuda_memset_sync",
      "nsight_gpu_gaps", "nsight_gpu_time_util"]),
    ("no_step_markers absent", "no_step_markers" in ids, False),
], "new export")
PY
# --step-range picks the same steps by name; a wrong name falls back to one window and says so
"$GPUDIAG" analyze --json --step-range ProfilerStep "$N" > "$TMP/new_sr.json" 2>/dev/null
"$GPUDIAG" analyze --json --step-range forward "$N" > "$TMP/new_miss.json" 2>/dev/null
python3 - "$TMP/new_sr.json" "$TMP/new_miss.json" <<'PY' && ok || bad "new export --step-range"
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
ids_b = [f["id"] for f in b["findings"]]
valcheck.run([
    ("ProfilerStep: steps", a["summary"]["steps"], 3),
    ("ProfilerStep: step_range", a["inputs"][0]["step_range"], "ProfilerStep"),
    ("ProfilerStep: missing", a["inputs"][0]["step_range_missing"], False),
    ("forward: steps", b["summary"]["steps"], 1),
    ("forward: missing", b["inputs"][0]["step_range_missing"], True),
    ("forward: finding", "input_step_range_missing" in ids_b, True),
    # the NVTX ranges that do exist (each once; 'never closed' has no end and is no range):
    # ties keep trace order; the message names the NVTX range, not ProfilerStep markers
    ("forward: candidates", sorted(b["inputs"][0]["step_range_candidates"].split(", ")),
     ["'ProfilerStep#1'", "'ProfilerStep#2'", "'ProfilerStep#3'", "'train loop'"]),
    ("forward: no no_step_markers", "no_step_markers" in ids_b, False),
    ("forward: title", [f["title"] for f in b["findings"] if f["id"] == "input_step_range_missing"][0].startswith(
        "No NVTX range named 'forward' (--step-range) in the trace: the whole capture is analysed as one "
        "window; ranges that exist: '"), True),
    ("ProfilerStep: no candidates", a["inputs"][0]["step_range_candidates"], None),
], "new export --step-range")
PY
# --steps 2 on the steps the nsys reader built (NVTX ProfilerStep#1..3): step 2 alone,
# host [11, 21] ms; its work (GEMM 11.2-16.2 ms, copies up to 16.71 ms) ends inside it,
# so [11, 21] ms = 10000 us, and only step 2's GEMM and copies remain: 1 kernel; H2D
# 1000 + 100000 B, D2H 4096 B, D2D 8000000 B.  Step 9 is not there: exit 6, steps 1-3.
"$GPUDIAG" analyze --json --steps 2 "$N" > "$TMP/new_s2.json" 2>/dev/null
python3 - "$TMP/new_s2.json" <<'PY' && ok || bad "new export --steps 2"
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
d = json.load(open(sys.argv[1]))
t = d["transfers"]
valcheck.run([
    ("steps", [(s["number"], s["start_us"], s["duration_us"]) for s in d["steps"]], [(2, 11000, 10000)]),
    ("kernels", d["summary"]["kernel_count"], 1),
    ("h2d", (t["h2d"]["count"], t["h2d"]["bytes"]), (2, 101000)),
    ("d2h", (t["d2h"]["count"], t["d2h"]["bytes"]), (1, 4096)),
    ("d2d", (t["d2d"]["count"], t["d2d"]["bytes"]), (1, 8000000)),
    ("steps_selected", d["inputs"][0]["steps_selected"], {"first": 2, "last": 2, "steps_in_trace": 3}),
], "new export --steps 2")
PY
if "$GPUDIAG" analyze --steps 9 "$N" > /dev/null 2> "$TMP/err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 6 ] && grep -q "no such step; the trace has steps 1-3" "$TMP/err"; then ok; else bad "new export --steps 9: rc $rc $(cat "$TMP/err")"; fi

# ---- 2b. an older column set ----------------------------------------------
# No enum, GPU, session or metadata tables; kernels named by shortName only, no
# globalPid or grid; memcpy without memory kinds; NVTX text inline (no textId).
O="$TMP/old.sqlite"
sqlite3 "$O" <<'SQL'
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'cudaMemcpy_v3020'),(3,'relu_kernel');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
 globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, shortName INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
 category INTEGER, color INTEGER, text TEXT, globalTid INTEGER);
-- two iterations of 20 ms; each: a 100000 B H2D cudaMemcpy then a 4 ms kernel
INSERT INTO NVTX_EVENTS VALUES (2000000, 22000000, 59, NULL, NULL, NULL, 'iteration 7', 1),
                               (22000000, 42000000, 59, NULL, NULL, NULL, 'iteration 8', 1);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (2100000, 2600000, 1, 1, 1, 2, 0), (2700000, 2710000, 1, 1, 2, 1, 0),
 (22100000, 22600000, 1, 1, 3, 2, 0), (22700000, 22710000, 1, 1, 4, 1, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (2200000, 2500000, 0, 1, 7, 1, 100000, 1), (22200000, 22500000, 0, 1, 7, 3, 100000, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2800000, 6800000, 0, 1, 7, 2, 3), (22800000, 26800000, 0, 1, 7, 4, 3);
SQL
if "$GPUDIAG" analyze --json "$O" > "$TMP/old.json" 2> "$TMP/err"; then ok; else bad "old export: exit $?: $(cat "$TMP/err")"; fi
python3 - "$TMP/old.json" <<'PY' && ok || bad "old export values"
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
d = json.load(open(sys.argv[1]))
inp, s, t, n = d["inputs"][0], d["summary"], d["transfers"], d["nsight_rules"]
ns = inp["nsys"]
ids = [f["id"] for f in d["findings"]]
gaps = ns["schema_gaps"]
def gap(prefix):
    return any(g.startswith(prefix) for g in gaps)
valcheck.run([
    ("format", inp["format"], "nsys"),
    ("version unknown", ns["version"], ""),
    ("session start unknown", ns["session_start_utc_ns"], None),
    ("steps from 'iteration N'", (s["steps"], [st["number"] for st in d["steps"]]), (2, [7, 8])),
    ("kernels", (s["kernel_count"], s["kernel_time_us"]), (2, 8000)),
    ("kernel name from shortName", d["kernels"]["top"][0]["name"] if "top" in d["kernels"] else d["kernels"], "relu_kernel"),
    ("h2d", (t["h2d"]["count"], t["h2d"]["bytes"]), (2, 200000)),
    ("pageable unknown without memory kinds", t["pageable"]["count"], 0),
    ("device without TARGET_INFO_GPU", [(x["id"], x["num_sms"]) for x in d["devices"]], [(0, None)]),
    # cudaMemcpy H2D of 100000 B > 64000: both synchronous copies count
    ("cuda_memcpy_sync", n["cuda_memcpy_sync"]["count"], 2),
    ("gap: kernel demangledName", gap("CUPTI_ACTIVITY_KIND_KERNEL.demangledName"), True),
    ("gap: kernel globalPid", gap("CUPTI_ACTIVITY_KIND_KERNEL.globalPid"), True),
    ("gap: grid", gap("CUPTI_ACTIVITY_KIND_KERNEL.gridX"), True),
    ("gap: memcpy kinds", gap("CUPTI_ACTIVITY_KIND_MEMCPY.srcKind"), True),
    ("gap: NVTX textId", gap("NVTX_EVENTS.textId"), True),
    ("gap: GPU table", gap("TARGET_INFO_GPU"), True),
    ("gap: enums", gap("ENUM_CUDA_MEMCPY_OPER") and gap("ENUM_CUDA_MEM_KIND"), True),
    ("gap: session", gap("TARGET_INFO_SESSION_START_TIME"), True),
    ("input_schema_gaps", "input_schema_gaps" in ids, True),
], "old export")
PY
"$GPUDIAG" analyze --json --step-range "no such range" "$O" > "$TMP/old_miss.json" 2>/dev/null
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
ids = [f['id'] for f in d['findings']]
assert d['summary']['steps'] == 1 and 'input_step_range_missing' in ids, (d['summary']['steps'], ids)
assert d['steps'][0]['number'] is None
" "$TMP/old_miss.json" && ok || bad "old export: --step-range with an absent name"

# ---- 4. --step-range on a PyTorch (Kineto) trace ---------------------------
# two unnumbered user annotations "train_step" of 100 us, each launching a 50 us kernel: 2 steps,
# numbered 0 and 1 in start order; without the option the trace has no ProfilerStep: one window
cat > "$TMP/k.json" <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "train_step", "pid": 1, "tid": 1, "ts": 1000, "dur": 100},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1010, "dur": 5, "args": {"correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1020, "dur": 50, "args": {"correlation": 1, "device": 0, "stream": 7}},
{"ph": "X", "cat": "user_annotation", "name": "train_step", "pid": 1, "tid": 1, "ts": 1100, "dur": 100},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1110, "dur": 5, "args": {"correlation": 2}},
{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1120, "dur": 50, "args": {"correlation": 2, "device": 0, "stream": 7}}
]}
JSON
"$GPUDIAG" analyze --json --step-range train_step "$TMP/k.json" > "$TMP/k_sr.json" 2>/dev/null
"$GPUDIAG" analyze --json "$TMP/k.json" > "$TMP/k_no.json" 2>/dev/null
python3 - "$TMP/k_sr.json" "$TMP/k_no.json" <<'PY' && ok || bad "kineto --step-range"
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
valcheck.run([
    ("with: steps", [(s["number"], s["start_us"], s["duration_us"]) for s in a["steps"]], [(0, 1000, 100), (1, 1100, 100)]),
    ("with: format", a["inputs"][0]["format"], "kineto"),
    ("with: nsys", a["inputs"][0]["nsys"], None),
    ("without: steps", b["summary"]["steps"], 1),
    ("without: step_range", b["inputs"][0]["step_range"], None),
], "kineto --step-range")
PY

# a name that matches nothing: the annotations the trace has, most frequent first, ties in trace
# order, at most 5 — train_step x2, then fwd, bwd, opt, log, io once each in that order: io is dropped
python3 - "$TMP/k.json" "$TMP/k5.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for i, n in enumerate(["fwd", "bwd", "opt", "log", "io"]):
    d["traceEvents"].append({"ph": "X", "cat": "user_annotation", "name": n, "pid": 1, "tid": 1, "ts": 1200 + 10 * i, "dur": 5})
json.dump(d, open(sys.argv[2], "w"))
PY
"$GPUDIAG" analyze --json --step-range nosuch "$TMP/k5.json" > "$TMP/k_miss.json" 2>/dev/null
python3 - "$TMP/k_miss.json" <<'PY' && ok || bad "kineto --step-range with an absent name"
import json, os, sys
sys.path.insert(0, os.environ["GD_CLI_DIR"])
import valcheck
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
valcheck.run([
    ("candidates", d["inputs"][0]["step_range_candidates"], "'train_step', 'fwd', 'bwd', 'opt', 'log'"),
    ("title", f["input_step_range_missing"]["title"],
     "No user annotation named 'nosuch' (--step-range) in the trace: the whole capture is analysed as one "
     "window; annotations that exist: 'train_step', 'fwd', 'bwd', 'opt', 'log'"),
    ("no no_step_markers", "no_step_markers" in f, False),
], "kineto --step-range nosuch")
PY
"$GPUDIAG" analyze --no-color --step-range nosuch "$TMP/k5.json" 2>/dev/null | grep -q '^STEPS    1 window (no range matched --step-range)' &&
  ok || bad "kineto --step-range nosuch: STEPS line"

# An export with no GPU op (CUDA runtime calls only, an empty kernel table): gpu_gaps and
# gpu_time_util have nothing to judge -> "n/a" under NSIGHT RULES, never "ok: 0 of 0 chunks"
# (DEFINITIONS "No GPU ops"); cuda_api_sync still judges the one cudaDeviceSynchronize (10 us).
sqlite3 "$TMP/nogpu.sqlite" <<'SQL'
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1,'cudaGetDeviceCount_v2000'),(3,'cudaDeviceSynchronize_v3020');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
 globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, shortName INTEGER NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000000, 1050000, 0, 1, 1, 1, 0), (2000000, 2010000, 0, 1, 2, 3, 0);
SQL
"$GPUDIAG" analyze --no-color "$TMP/nogpu.sqlite" > "$TMP/nogpu.txt" 2>/dev/null
if grep -q '^  gpu_time_util      n/a  : no GPU activity in the capture' "$TMP/nogpu.txt" &&
   grep -q '^  gpu_gaps           n/a  : no GPU activity in the capture' "$TMP/nogpu.txt" &&
   grep -q '^  cuda_api_sync      FIRES: 1 device/stream synchronize calls, 10.0 us' "$TMP/nogpu.txt" &&
   ! grep -q '0 of 0 chunks' "$TMP/nogpu.txt"; then ok; else bad "no GPU ops: NSIGHT RULES n/a: $(grep -A3 'NSIGHT RULES' "$TMP/nogpu.txt")"; fi

# refused_damaged NAME PATTERN: analyze $TMP/NAME.sqlite exits 3 with nothing on stdout and a
# message matching PATTERN (grep -E) after "NAME.sqlite: the SQLite database is damaged (".
refused_damaged() {
    "$GPUDIAG" analyze "$TMP/$1.sqlite" > "$TMP/$1.out" 2> "$TMP/$1.err"
    _rc=$?
    if [ "$_rc" -eq 3 ] && [ ! -s "$TMP/$1.out" ] &&
       grep -Eq "$1.sqlite: the SQLite database is damaged \($2" "$TMP/$1.err"; then
        ok
    else
        bad "$1: exit $_rc, $(head -c 300 "$TMP/$1.err")"
    fi
}

# A damaged page in a table the reader reads (new-user trial, 10th session: 20 flipped bytes
# lost a kernel and analysed with exit 0): the kernel table's root page (sqlite_master's
# rootpage, page size from the header) gets its first two cell pointers set to 0xffff, past
# the page's end.  SQLite's quick_check of that table names the page; exit 3, nothing on stdout.
# Then damage the reads themselves do not notice: 20 random bytes (Python's Mersenne Twister,
# seed 6) land in the runtime table's pages; the old reader analysed that file with exit 0 (its
# verdict unchanged, some API calls silently lost), the table's quick_check fails.
if [ -f "$X" ]; then
    python3 - "$X" "$TMP/damaged.sqlite" "$TMP/flipped.sqlite" <<'PYEOF'
import random, sqlite3, sys
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
root = c.execute("SELECT rootpage FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'").fetchone()[0]
ps = c.execute("PRAGMA page_size").fetchone()[0]
d = bytearray(open(sys.argv[1], "rb").read())
off = (root - 1) * ps
hdr = 12 if d[off] in (2, 5) else 8  # interior pages have a 12-byte header
d[off + hdr:off + hdr + 4] = b"\xff\xff\xff\xff"
open(sys.argv[2], "wb").write(d)
d = bytearray(open(sys.argv[1], "rb").read())
random.seed(6)
for _ in range(20):
    d[random.randrange(100, len(d))] = random.randrange(256)
open(sys.argv[3], "wb").write(d)
PYEOF
    refused_damaged damaged "PRAGMA quick_check of CUPTI_ACTIVITY_KIND_KERNEL: .*Offset 65535 out of range"
    refused_damaged flipped "PRAGMA quick_check of CUPTI_ACTIVITY_KIND_RUNTIME: "
fi

finish
