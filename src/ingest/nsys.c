/*
 * nsys.c — reader for Nsight Systems SQLite exports (`nsys export --type sqlite`).
 *
 * Fills the same model as the Kineto reader (model/trace.h), so every analysis
 * runs unchanged:
 *   - CUPTI_ACTIVITY_KIND_KERNEL / _MEMCPY / _MEMSET  -> gpu_ops (integer ns kept
 *     exact; memcpy/memset names are written the way Kineto writes them,
 *     "Memcpy HtoD (Pageable -> Device)", from ENUM_CUDA_MEMCPY_OPER and
 *     ENUM_CUDA_MEM_KIND, so copy direction and pageable memory are recognised
 *     by the same name rules);
 *   - CUPTI_ACTIVITY_KIND_RUNTIME -> runtimes (the `_v<N>` suffix of API names
 *     stripped; TID = globalTid & 0xFFFFFF);
 *   - NVTX_EVENTS push/pop and start/end ranges -> user annotations (text from
 *     StringIds[textId], else the inline text); steps are picked from them by
 *     model/steps.c;
 *   - TARGET_INFO_GPU -> device properties; blocks per SM = grid blocks / smCount.
 * NVIDIA's expert-system rules are computed here over the whole capture
 * (docs/DEFINITIONS.md "Nsight Systems rules").
 *
 * Tables are created lazily and columns differ between nsys versions
 * (trace-analysis-peers.md §4.3): every table is looked up in sqlite_master and
 * every optional column in pragma_table_info; what is missing is skipped and
 * listed in trace->nsys.schema_gaps.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "ingest/kineto.h"
#include "ingest/nsys.h"
#include "model/collective.h"
#include "model/trace.h"
#include "util/util.h"

#define T_KERNEL "CUPTI_ACTIVITY_KIND_KERNEL"
#define T_MEMCPY "CUPTI_ACTIVITY_KIND_MEMCPY"
#define T_MEMSET "CUPTI_ACTIVITY_KIND_MEMSET"
#define T_GRAPH "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"
#define T_RUNTIME "CUPTI_ACTIVITY_KIND_RUNTIME"
#define T_SYNC "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
#define T_NVTX "NVTX_EVENTS"
#define T_GPU "TARGET_INFO_GPU"

#define NSIGHT_GAP_NS 500000000LL   /* gpu_gaps default gap=500 ms */
#define NSIGHT_UTIL_CHUNKS 30       /* gpu_time_util default chunks=30 */
#define NSIGHT_UTIL_THRESHOLD 50.0  /* gpu_time_util default threshold=50 % */
#define NSIGHT_H2D_EXEMPT_BYTES 64000 /* cuda_memcpy_sync: small H2D copies are not reported */
#define MAX_ENUM 64

/* The work a database may ask of SQLite (virtual-machine instructions): a
 * base plus a share per byte of the file.  The real 2 MB CloverLeaf export
 * needs about 170 000 in all (0.08 per byte; measured by bisecting the
 * budget, docs/FUZZING.md), so 2e7 + 100 per byte leaves a factor of a
 * hundred or more; a hostile database (a view named like an Nsight table that
 * recurses for ever, a generated column or a join that explodes) is stopped
 * after about a second instead of hanging the run.  The fuzz build sets
 * smaller values (CMakeLists.txt). */
#ifndef GD_NSYS_VM_BASE
#define GD_NSYS_VM_BASE 20000000LL
#endif
#ifndef GD_NSYS_VM_PER_BYTE
#define GD_NSYS_VM_PER_BYTE 100LL
#endif
#define GD_NSYS_VM_TICK 1000 /* instructions between two calls of the progress handler */

/* A GPU op as NVIDIA's gpu_gaps / gpu_time_util rules see it. */
typedef struct rule_op {
    int64_t start, end;
    int64_t pid;
    int64_t device;
} rule_op;

typedef struct gpu_info {
    int64_t id;
    int sms;
    gd_device_prop prop;
} gpu_info;

typedef struct nsr {
    sqlite3 *db;
    gpudiag_trace *t;
    const char *path;
    gpudiag_error *err;
    gpudiag_status st;
    int failed;
    int has_strings;              /* StringIds exists */
    char copy_dir[MAX_ENUM][16];  /* copyKind -> "HtoD" */
    char mem_kind[MAX_ENUM][32];  /* srcKind/dstKind/memKind -> "Pageable" */
    int kind_pageable, kind_pinned, kind_managed, copy_htod;
    gd_vec rops;                  /* rule_op */
    gd_vec gpus;                  /* gpu_info */
    int64_t vm_ticks_left;        /* progress-handler calls before the work budget is spent */
    int over_budget;              /* 1: a query was interrupted by the budget */
    int64_t *corr_seen;           /* open-addressing set of the runtime rows' correlation ids (> 0) */
    size_t corr_cap, corr_n;      /* slots (a power of two, 0 before the first), ids held */
} nsr;

/* ---- errors and schema --------------------------------------------------- */

static void fail(nsr *r, gpudiag_status code, int64_t at, const char *fmt, ...) GD_ATTR_PRINTF(4, 5);
static void fail(nsr *r, gpudiag_status code, int64_t at, const char *fmt, ...)
{
    if (r->failed)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->st = gd_set_error(r->err, code, r->path, at, "%s", msg);
    r->failed = 1;
}

static void fail_sql(nsr *r, const char *what)
{
    int ec = sqlite3_errcode(r->db);
    if (r->over_budget)
        fail(r, GPUDIAG_ERR_FORMAT, -1,
             "not a readable Nsight Systems export: reading %s asks SQLite for more work than a database of this "
             "size can need (a view or generated column that does not end?)",
             what);
    else if (ec == SQLITE_NOMEM)
        fail(r, GPUDIAG_ERR_NOMEM, -1, "out of memory (SQLite) reading %s", what);
    else
        fail(r, GPUDIAG_ERR_FORMAT, -1, "not a readable Nsight Systems export: SQLite error reading %s: %s", what,
             sqlite3_errmsg(r->db));
}

static void schema_gap(nsr *r, const char *fmt, ...) GD_ATTR_PRINTF(2, 3);
static void schema_gap(nsr *r, const char *fmt, ...)
{
    gd_nsys_info *n = &r->t->nsys;
    size_t len = strlen(n->schema_gaps);
    if (len + 4 >= sizeof n->schema_gaps) {
        n->schema_gap_count++;
        return;
    }
    if (len) {
        snprintf(n->schema_gaps + len, sizeof n->schema_gaps - len, "; ");
        len += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->schema_gaps + len, sizeof n->schema_gaps - len, fmt, ap);
    va_end(ap);
    n->schema_gap_count++;
}

static sqlite3_stmt *prep(nsr *r, const char *sql, const char *what)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK) {
        fail_sql(r, what);
        sqlite3_finalize(s);
        return NULL;
    }
    return s;
}

/* 1 if a table or view of that name exists, 0 if not, -1 on error. */
static int table_exists(nsr *r, const char *name)
{
    sqlite3_stmt *s = prep(r, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?1", "sqlite_master");
    if (!s)
        return -1;
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    int res = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
    if (res < 0)
        fail_sql(r, "sqlite_master");
    sqlite3_finalize(s);
    return res;
}

static int has_col(nsr *r, const char *table, const char *col)
{
    sqlite3_stmt *s = prep(r, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", "pragma table_info");
    if (!s)
        return 0;
    sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, col, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        fail_sql(r, table);
    sqlite3_finalize(s);
    return rc == SQLITE_ROW;
}

/* "alias.col" in buf if the column exists, else "NULL"; a missing column is
 * listed as a schema gap with `why` (NULL: not worth mentioning). */
static const char *qcol(nsr *r, char *buf, size_t cap, const char *table, const char *alias, const char *col,
                        const char *why)
{
    if (has_col(r, table, col)) {
        snprintf(buf, cap, "%s%s%s", alias ? alias : "", alias ? "." : "", col);
    } else {
        snprintf(buf, cap, "NULL");
        if (why)
            schema_gap(r, "%s.%s (%s)", table, col, why);
    }
    return buf;
}

/* Run a query whose every row is handed to fn; returns 0 or -1 (error set). */
static int each_row(nsr *r, const char *sql, const char *what, int (*fn)(nsr *, sqlite3_stmt *))
{
    if (r->failed)
        return -1;
    sqlite3_stmt *s = prep(r, sql, what);
    if (!s)
        return -1;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (fn(r, s) != 0) {
            sqlite3_finalize(s);
            fail(r, GPUDIAG_ERR_NOMEM, -1, "out of memory reading %s", what);
            return -1;
        }
    }
    if (rc != SQLITE_DONE) {
        fail_sql(r, what);
        sqlite3_finalize(s);
        return -1;
    }
    sqlite3_finalize(s);
    return 0;
}

static int64_t col_i64(sqlite3_stmt *s, int i, int64_t dflt)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? dflt : sqlite3_column_int64(s, i);
}

/* The text of column i (NULL -> ""), length in *len. */
static const char *col_text(sqlite3_stmt *s, int i, size_t *len)
{
    const unsigned char *p = sqlite3_column_text(s, i);
    if (!p) {
        *len = 0;
        return "";
    }
    *len = (size_t)sqlite3_column_bytes(s, i);
    return (const char *)p;
}

/* ---- the file header: truncation before SQLite sees it ------------------- */

static int check_header(nsr *r)
{
    FILE *fp = fopen(r->path, "rb");
    if (!fp) {
        fail(r, GPUDIAG_ERR_IO, -1, "cannot open: %s", strerror(errno));
        return -1;
    }
    unsigned char h[100];
    size_t n = fread(h, 1, sizeof h, fp);
    fclose(fp);
    struct stat sb;
    int have_size = stat(r->path, &sb) == 0;
    if (n < sizeof h) {
        fail(r, GPUDIAG_ERR_FORMAT, (int64_t)n,
             "not a readable Nsight Systems export: the SQLite file ends at byte %zu, inside its 100-byte header", n);
        return -1;
    }
    uint32_t page = ((uint32_t)h[16] << 8) | h[17];
    if (page == 1)
        page = 65536;
    uint32_t pages = ((uint32_t)h[28] << 24) | ((uint32_t)h[29] << 16) | ((uint32_t)h[30] << 8) | h[31];
    int pages_valid = memcmp(h + 24, h + 92, 4) == 0 && pages > 0;
    if (page < 512 || (page & (page - 1)) != 0) {
        fail(r, GPUDIAG_ERR_FORMAT, 16, "not a readable Nsight Systems export: invalid SQLite page size %u at byte 16",
             page);
        return -1;
    }
    if (have_size && pages_valid) {
        uint64_t want = (uint64_t)page * pages;
        if ((uint64_t)sb.st_size < want) {
            fail(r, GPUDIAG_ERR_FORMAT, (int64_t)sb.st_size,
                 "not a readable Nsight Systems export: the SQLite file is truncated: its header declares %u pages "
                 "of %u bytes (%llu bytes) but the file ends at byte %lld",
                 pages, page, (unsigned long long)want, (long long)sb.st_size);
            return -1;
        }
    }
    return 0;
}

/* ---- enums --------------------------------------------------------------- */

static int row_copy_kind(nsr *r, sqlite3_stmt *s)
{
    int64_t id = col_i64(s, 0, -1);
    size_t len;
    const char *nm = col_text(s, 1, &len);
    if (id < 0 || id >= MAX_ENUM)
        return 0;
    /* CUDA_MEMCPY_KIND_HTOD -> HtoD; UVM_HTOD -> HtoD; UNKNOWN -> Unknown */
    const char *u = strrchr(nm, '_');
    u = u ? u + 1 : nm;
    size_t ul = strlen(u);
    if (ul == 4 && u[1] == 'T' && u[2] == 'O')
        snprintf(r->copy_dir[id], sizeof r->copy_dir[id], "%cto%c", u[0], u[3]);
    else
        snprintf(r->copy_dir[id], sizeof r->copy_dir[id], "Unknown");
    if (strcmp(nm, "CUDA_MEMCPY_KIND_HTOD") == 0)
        r->copy_htod = (int)id;
    return 0;
}

static int row_mem_kind(nsr *r, sqlite3_stmt *s)
{
    int64_t id = col_i64(s, 0, -1);
    size_t nlen, llen;
    const char *nm = col_text(s, 1, &nlen);
    const char *label = col_text(s, 2, &llen);
    if (id < 0 || id >= MAX_ENUM)
        return 0;
    snprintf(r->mem_kind[id], sizeof r->mem_kind[id], "%s", llen ? label : nm);
    if (strcmp(nm, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE") == 0)
        r->kind_pageable = (int)id;
    else if (strcmp(nm, "CUDA_MEMOPR_MEMORY_KIND_PINNED") == 0)
        r->kind_pinned = (int)id;
    else if (strcmp(nm, "CUDA_MEMOPR_MEMORY_KIND_MANAGED") == 0)
        r->kind_managed = (int)id;
    return 0;
}

static void read_enums(nsr *r)
{
    /* The values NVIDIA's rules and the exporter use when the enum tables are absent. */
    static const char *const dirs[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD",
                                       "DtoA",    "DtoD", "HtoH", "PtoP", "HtoD", "DtoH", "DtoD"};
    static const char *const kinds[] = {"Pageable", "Pinned", "Device", "Array", "Managed", "Device Static",
                                        "Managed Static", "Unknown"};
    for (size_t i = 0; i < MAX_ENUM; i++) {
        snprintf(r->copy_dir[i], sizeof r->copy_dir[i], "%s", i < sizeof dirs / sizeof dirs[0] ? dirs[i] : "Unknown");
        snprintf(r->mem_kind[i], sizeof r->mem_kind[i], "%s", i < sizeof kinds / sizeof kinds[0] ? kinds[i] : "Unknown");
    }
    r->kind_pageable = 0;
    r->kind_pinned = 1;
    r->kind_managed = 4;
    r->copy_htod = 1;
    int e = table_exists(r, "ENUM_CUDA_MEMCPY_OPER");
    if (e == 1)
        each_row(r, "SELECT id, name FROM ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEMCPY_OPER", row_copy_kind);
    else if (e == 0)
        schema_gap(r, "ENUM_CUDA_MEMCPY_OPER (copy kinds taken as nsys numbers them today)");
    e = table_exists(r, "ENUM_CUDA_MEM_KIND");
    if (e == 1)
        each_row(r, "SELECT id, name, label FROM ENUM_CUDA_MEM_KIND", "ENUM_CUDA_MEM_KIND", row_mem_kind);
    else if (e == 0)
        schema_gap(r, "ENUM_CUDA_MEM_KIND (memory kinds taken as nsys numbers them today)");
}

static const char *dir_name(const nsr *r, int64_t k)
{
    return k >= 0 && k < MAX_ENUM ? r->copy_dir[k] : "Unknown";
}

static const char *kind_name(const nsr *r, int64_t k)
{
    return k >= 0 && k < MAX_ENUM ? r->mem_kind[k] : "Unknown";
}

/* ---- small tables -------------------------------------------------------- */

static int row_version(nsr *r, sqlite3_stmt *s)
{
    size_t len;
    const char *v = col_text(s, 0, &len);
    snprintf(r->t->nsys.version, sizeof r->t->nsys.version, "%s", v);
    return 0;
}

static int row_session(nsr *r, sqlite3_stmt *s)
{
    r->t->nsys.session_start_utc_ns = col_i64(s, 0, -1);
    return 0;
}

static int row_gpu(nsr *r, sqlite3_stmt *s)
{
    gpu_info g;
    memset(&g, 0, sizeof g);
    g.id = col_i64(s, 0, -1);
    size_t len;
    const char *nm = col_text(s, 1, &len);
    g.prop.id = (int)g.id;
    snprintf(g.prop.name, sizeof g.prop.name, "%s", nm);
    g.sms = (int)col_i64(s, 2, 0);
    g.prop.num_sms = g.sms;
    g.prop.total_mem_bytes = sqlite3_column_type(s, 3) == SQLITE_NULL ? 0.0 : (double)sqlite3_column_int64(s, 3);
    g.prop.compute_major = (int)col_i64(s, 4, -1);
    g.prop.compute_minor = (int)col_i64(s, 5, -1);
    g.prop.warp_size = (int)col_i64(s, 6, 0);
    int64_t warps = col_i64(s, 7, 0);
    g.prop.max_threads_per_sm = (int)(warps * g.prop.warp_size);
    return gd_vec_push(&r->gpus, &g) ? 0 : -1;
}

static void read_info(nsr *r)
{
    gd_nsys_info *n = &r->t->nsys;
    n->session_start_utc_ns = -1;
    if (table_exists(r, "META_DATA_EXPORT") == 1)
        each_row(r, "SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_PRODUCT_VERSION'", "META_DATA_EXPORT",
                 row_version);
    int e = table_exists(r, "TARGET_INFO_SESSION_START_TIME");
    if (e == 1 && has_col(r, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs"))
        each_row(r, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1", "TARGET_INFO_SESSION_START_TIME",
                 row_session);
    else if (e == 0)
        schema_gap(r, "TARGET_INFO_SESSION_START_TIME (no wall-clock start)");
    e = table_exists(r, T_GPU);
    if (e == 1) {
        char sql[512], c[7][48];
        snprintf(sql, sizeof sql, "SELECT id, %s, %s, %s, %s, %s, %s, %s FROM " T_GPU,
                 qcol(r, c[0], 48, T_GPU, NULL, "name", "no GPU name"),
                 qcol(r, c[1], 48, T_GPU, NULL, "smCount", "no SM count: no blocks per SM"),
                 qcol(r, c[2], 48, T_GPU, NULL, "totalMemory", "no memory size"),
                 qcol(r, c[3], 48, T_GPU, NULL, "computeMajor", "no compute capability"),
                 qcol(r, c[4], 48, T_GPU, NULL, "computeMinor", NULL),
                 qcol(r, c[5], 48, T_GPU, NULL, "threadsPerWarp", NULL),
                 qcol(r, c[6], 48, T_GPU, NULL, "maxWarpsPerSm", NULL));
        each_row(r, sql, T_GPU, row_gpu);
    } else if (e == 0) {
        schema_gap(r, T_GPU " (no GPU name, SM count or memory size)");
    }
}

static const gpu_info *gpu_for(const nsr *r, int64_t dev)
{
    for (size_t i = 0; i < r->gpus.len; i++) {
        const gpu_info *g = gd_vec_at(&r->gpus, i);
        if (g->id == dev)
            return g;
    }
    return NULL;
}

/* ---- GPU activity -------------------------------------------------------- */

static int push_rule_op(nsr *r, int64_t start, int64_t end, int64_t gpid, int64_t dev)
{
    if (start <= 0)
        return 0; /* NVIDIA's rules keep `start > 0` only */
    rule_op o = {start, end, (gpid >> 24) & 0xFFFFFF, dev};
    return gd_vec_push(&r->rops, &o) ? 0 : -1;
}

/* Times beyond ±2^62 ns (146 years from the clock's zero) are no real
 * capture's; refusing them keeps end − start and every later difference of two
 * times inside int64. */
#define GD_NSYS_TIME_LIMIT ((int64_t)1 << 62)
static int time_out_of_range(int64_t start, int64_t end)
{
    return start < -GD_NSYS_TIME_LIMIT || start > GD_NSYS_TIME_LIMIT || end < -GD_NSYS_TIME_LIMIT ||
           end > GD_NSYS_TIME_LIMIT;
}

/* Columns 0 and 1 of a row (start, end in ns) counted as one event into start and end;
 * 0 when the row is skipped and counted (end before start or NULL: an unterminated
 * range; a time beyond GD_NSYS_TIME_LIMIT: an impossible value). */
static int row_span(gpudiag_trace *t, sqlite3_stmt *s, int64_t *start, int64_t *end)
{
    t->events++;
    *start = col_i64(s, 0, 0);
    *end = col_i64(s, 1, -1);
    if (*end < *start) {
        t->skipped_no_dur++;
        return 0;
    }
    if (time_out_of_range(*start, *end)) {
        t->skipped_bad_value++;
        return 0;
    }
    return 1;
}

/* Common tail of the three GPU activity kinds: columns 0..5 are start, end,
 * deviceId, streamId, correlationId, globalPid. */
static int push_gpu_op(nsr *r, sqlite3_stmt *s, uint8_t kind, const char *name, size_t nlen, int64_t bytes,
                       int64_t grid_blocks)
{
    gpudiag_trace *t = r->t;
    int64_t start, end;
    if (!row_span(t, s, &start, &end))
        return 0;
    if (start == 0) {
        t->skipped_zero_ts++;
        return 0;
    }
    int64_t dev = col_i64(s, 2, 0);
    if (dev < -1 || dev > 65535) {
        t->skipped_bad_value++;
        return 0;
    }
    gd_gpu_op op;
    memset(&op, 0, sizeof op);
    op.ts_ns = start;
    op.dur_ns = end - start;
    op.kind = kind;
    op.device = (int32_t)dev;
    op.stream = (int32_t)col_i64(s, 3, -1);
    op.correlation = -1;
    if (sqlite3_column_type(s, 4) != SQLITE_NULL) {
        op.correlation = sqlite3_column_int64(s, 4);
        op.flags |= GD_GF_HAS_CORR;
    }
    if (kind == GD_GPU_KERNEL)
        op.external_id = -1;
    else
        op.bytes = bytes;
    if (grid_blocks > 0) {
        const gpu_info *g = gpu_for(r, dev);
        if (g && g->sms > 0) {
            op.blocks_per_sm = (float)((double)grid_blocks / g->sms);
            op.flags |= GD_GF_HAS_BPS;
        }
    }
    op.name_id = gd_strtab_intern(&t->names, name, nlen);
    if (op.name_id == UINT32_MAX || !gd_vec_push(&t->gpu_ops, &op))
        return -1;
    if (kind == GD_GPU_GRAPH) {
        /* NVIDIA's rules read the kernel, copy and memset tables only */
        t->nsys.graph_execs++;
        t->nsys.graph_exec_ns += end - start;
        return 0;
    }
    return push_rule_op(r, start, end, col_i64(s, 5, 0), dev);
}

/* A whole-graph row: columns 0..5 as push_gpu_op, 6 graphExecId. */
static int row_graph(nsr *r, sqlite3_stmt *s)
{
    char name[96];
    if (sqlite3_column_type(s, 6) != SQLITE_NULL)
        snprintf(name, sizeof name, "CUDA graph exec %lld (kernels not traced)", (long long)col_i64(s, 6, 0));
    else
        snprintf(name, sizeof name, "CUDA graph exec (kernels not traced)");
    return push_gpu_op(r, s, GD_GPU_GRAPH, name, strlen(name), -1, 0);
}

static int row_kernel(nsr *r, sqlite3_stmt *s)
{
    size_t nlen;
    const char *nm = col_text(s, 6, &nlen);
    if (!nlen) {
        nm = "(unnamed kernel)";
        nlen = strlen(nm);
    }
    int64_t blocks = col_i64(s, 7, 0);
    if (sqlite3_column_type(s, 8) != SQLITE_NULL)
        r->t->nsys.graph_kernels++;
    r->t->nsys.kernels++;
    return push_gpu_op(r, s, GD_GPU_KERNEL, nm, nlen, -1, blocks);
}

static int row_memcpy(nsr *r, sqlite3_stmt *s)
{
    char name[128];
    int64_t ck = col_i64(s, 7, 0);
    int64_t sk = col_i64(s, 8, -1), dk = col_i64(s, 9, -1);
    if (sk < 0 || dk < 0)
        snprintf(name, sizeof name, "Memcpy %s", dir_name(r, ck));
    else
        snprintf(name, sizeof name, "Memcpy %s (%s -> %s)", dir_name(r, ck), kind_name(r, sk), kind_name(r, dk));
    r->t->nsys.memcpys++;
    return push_gpu_op(r, s, GD_GPU_MEMCPY, name, strlen(name), col_i64(s, 6, -1), 0);
}

static int row_memset(nsr *r, sqlite3_stmt *s)
{
    char name[96];
    int64_t mk = col_i64(s, 7, -1);
    if (mk < 0)
        snprintf(name, sizeof name, "Memset");
    else
        snprintf(name, sizeof name, "Memset (%s)", kind_name(r, mk));
    r->t->nsys.memsets++;
    return push_gpu_op(r, s, GD_GPU_MEMSET, name, strlen(name), col_i64(s, 6, -1), 0);
}

/* The SQL for a name held as a StringIds id in column `col` of alias `a`. */
static void name_expr(const nsr *r, char *out, size_t cap, const char *a, const char *col)
{
    if (r->has_strings)
        snprintf(out, cap, "(SELECT value FROM StringIds WHERE id = %s.%s)", a, col);
    else
        snprintf(out, cap, "%s.%s", a, col);
}

static void read_gpu_ops(nsr *r)
{
    char sql[1536], nm[160];
    const char *common_missing = "kept as unknown";
    int e = table_exists(r, T_KERNEL);
    if (e == 1) {
        const char *ncol = has_col(r, T_KERNEL, "demangledName") ? "demangledName"
                           : has_col(r, T_KERNEL, "shortName")   ? "shortName"
                           : has_col(r, T_KERNEL, "mangledName") ? "mangledName"
                                                                 : NULL;
        if (ncol && strcmp(ncol, "demangledName") != 0)
            schema_gap(r, T_KERNEL ".demangledName (kernel names from %s)", ncol);
        if (ncol)
            name_expr(r, nm, sizeof nm, "k", ncol);
        else {
            schema_gap(r, T_KERNEL " kernel name columns (kernels unnamed)");
            snprintf(nm, sizeof nm, "NULL");
        }
        int grid = has_col(r, T_KERNEL, "gridX") && has_col(r, T_KERNEL, "gridY") && has_col(r, T_KERNEL, "gridZ");
        if (!grid)
            schema_gap(r, T_KERNEL ".gridX/Y/Z (no blocks per SM)");
        char c[4][48];
        snprintf(sql, sizeof sql, "SELECT k.start, k.end, %s, %s, %s, %s, %s, %s, %s FROM " T_KERNEL " AS k",
                 qcol(r, c[0], 48, T_KERNEL, "k", "deviceId", common_missing),
                 qcol(r, c[1], 48, T_KERNEL, "k", "streamId", common_missing),
                 qcol(r, c[2], 48, T_KERNEL, "k", "correlationId", "kernels not joined to their launch calls"),
                 qcol(r, c[3], 48, T_KERNEL, "k", "globalPid", "one process assumed"), nm,
                 grid ? "k.gridX * k.gridY * k.gridZ" : "NULL",
                 has_col(r, T_KERNEL, "graphNodeId") ? "k.graphNodeId" : "NULL");
        each_row(r, sql, T_KERNEL, row_kernel);
    } else if (e == 0) {
        schema_gap(r, T_KERNEL " (no kernels recorded)");
    }

    /* Exports made without --cuda-graph-trace=node: one row per graph launch on
     * the GPU (DEFINITIONS "Nsight Systems exports", graph rows).  A row whose
     * launch also has kernel rows (node tracing) is left out: its kernels are read. */
    if (table_exists(r, T_GRAPH) == 1 && has_col(r, T_GRAPH, "start") && has_col(r, T_GRAPH, "end")) {
        char c[5][48];
        int kcorr = table_exists(r, T_KERNEL) == 1 && has_col(r, T_KERNEL, "correlationId") &&
                    has_col(r, T_GRAPH, "correlationId");
        snprintf(sql, sizeof sql,
                 "SELECT g.start, g.end, %s, %s, %s, %s, %s FROM " T_GRAPH " AS g%s",
                 qcol(r, c[0], 48, T_GRAPH, "g", "deviceId", common_missing),
                 qcol(r, c[1], 48, T_GRAPH, "g", "streamId", common_missing),
                 qcol(r, c[2], 48, T_GRAPH, "g", "correlationId", "graph executions not joined to their launch calls"),
                 qcol(r, c[3], 48, T_GRAPH, "g", "globalPid", "one process assumed"),
                 has_col(r, T_GRAPH, "graphExecId") ? "g.graphExecId" : "NULL",
                 kcorr ? " WHERE NOT EXISTS (SELECT 1 FROM " T_KERNEL " AS k WHERE k.correlationId = g.correlationId)" : "");
        each_row(r, sql, T_GRAPH, row_graph);
    }

    const char *tables[2] = {T_MEMCPY, T_MEMSET};
    for (int ti = 0; ti < 2 && !r->failed; ti++) {
        const char *tb = tables[ti];
        e = table_exists(r, tb);
        if (e != 1) {
            if (e == 0 && ti == 0)
                schema_gap(r, T_MEMCPY " (no memory copies recorded)");
            continue; /* no memsets is common: the table is created only when there are some */
        }
        char cols[6][48];
        const char *want[6] = {"deviceId", "streamId", "correlationId", "globalPid", "bytes", ti == 0 ? "copyKind" : "memKind"};
        for (int c = 0; c < 6; c++) {
            if (has_col(r, tb, want[c]))
                snprintf(cols[c], sizeof cols[c], "m.%s", want[c]);
            else {
                snprintf(cols[c], sizeof cols[c], "NULL");
                schema_gap(r, "%s.%s", tb, want[c]);
            }
        }
        if (ti == 0) {
            int kinds = has_col(r, tb, "srcKind") && has_col(r, tb, "dstKind");
            if (!kinds)
                schema_gap(r, T_MEMCPY ".srcKind/dstKind (pageable copies not recognised)");
            snprintf(sql, sizeof sql, "SELECT m.start, m.end, %s, %s, %s, %s, %s, %s, %s FROM " T_MEMCPY " AS m",
                     cols[0], cols[1], cols[2], cols[3], cols[4], cols[5],
                     kinds ? "m.srcKind, m.dstKind" : "NULL, NULL");
            each_row(r, sql, tb, row_memcpy);
        } else {
            snprintf(sql, sizeof sql, "SELECT m.start, m.end, %s, %s, %s, %s, %s, %s FROM " T_MEMSET " AS m", cols[0],
                     cols[1], cols[2], cols[3], cols[4], cols[5]);
            each_row(r, sql, tb, row_memset);
        }
    }
}

/* ---- host side ----------------------------------------------------------- */

/* Add correlation id c (> 0) to the set of runtime rows read: 1 when it was new, 0 when a
 * row with the same id was read before, -1 when out of memory. */
static int corr_first(nsr *r, int64_t c)
{
    if (r->corr_n + 1 > r->corr_cap / 2) {
        size_t cap = r->corr_cap ? r->corr_cap * 2 : 1024;
        int64_t *tab = calloc(cap, sizeof *tab);
        if (!tab)
            return -1;
        for (size_t i = 0; i < r->corr_cap; i++) {
            if (r->corr_seen[i] <= 0)
                continue;
            size_t h = (size_t)((uint64_t)r->corr_seen[i] * 0x9E3779B97F4A7C15ull) & (cap - 1);
            while (tab[h] > 0)
                h = (h + 1) & (cap - 1);
            tab[h] = r->corr_seen[i];
        }
        free(r->corr_seen);
        r->corr_seen = tab;
        r->corr_cap = cap;
    }
    size_t h = (size_t)((uint64_t)c * 0x9E3779B97F4A7C15ull) & (r->corr_cap - 1);
    while (r->corr_seen[h] > 0) {
        if (r->corr_seen[h] == c)
            return 0;
        h = (h + 1) & (r->corr_cap - 1);
    }
    r->corr_seen[h] = c;
    r->corr_n++;
    return 1;
}

static int row_runtime(nsr *r, sqlite3_stmt *s)
{
    gpudiag_trace *t = r->t;
    int64_t start, end;
    if (!row_span(t, s, &start, &end))
        return 0;
    size_t nlen;
    const char *nm = col_text(s, 4, &nlen);
    /* cudaLaunchKernel_v7000 -> cudaLaunchKernel */
    size_t i = nlen;
    while (i > 0 && nm[i - 1] >= '0' && nm[i - 1] <= '9')
        i--;
    if (i < nlen && i >= 3 && nm[i - 1] == 'v' && nm[i - 2] == '_')
        nlen = i - 2;
    gd_runtime rt;
    memset(&rt, 0, sizeof rt);
    rt.ts_ns = start;
    rt.correlation = col_i64(s, 3, -1);
    if (rt.correlation > 0) {
        /* one call recorded under several names (cudaMemcpy and cudaMemcpy_v3020, one
         * correlation id): the row read first is the call (DEFINITIONS "Nsight Systems input") */
        int first = corr_first(r, rt.correlation);
        if (first < 0)
            return -1;
        if (!first) {
            t->nsys.runtime_duplicates++;
            return 0;
        }
    }
    int is_driver = nlen > 2 && nm[0] == 'c' && nm[1] == 'u' && !gd_starts_with(nm, nlen, "cuda");
    rt.name_id = gd_strtab_intern(&t->names, nlen ? nm : "(unnamed call)", nlen ? nlen : 14);
    if (rt.name_id == UINT32_MAX || gd_trace_push_runtime(t, &rt, end - start, (int32_t)(col_i64(s, 2, 0) & 0xFFFFFF)) != 0)
        return -1;
    if (is_driver)
        t->driver_calls++;
    t->nsys.runtime_calls++;
    return 0;
}

static int row_nvtx(nsr *r, sqlite3_stmt *s)
{
    gpudiag_trace *t = r->t;
    int64_t start, end;
    if (!row_span(t, s, &start, &end))
        return 0;
    size_t nlen;
    const char *nm = col_text(s, 2, &nlen);
    gd_cpu_op op;
    memset(&op, 0, sizeof op);
    op.ts_ns = start;
    op.cat = GD_CPU_USER_ANNOT;
    op.role = GD_CR_CPU_EXEC; /* as TBP counts user annotations; steps.c clears it on step and enclosing ranges */
    int mpi = gd_coll_is_mpi(nm, nlen);
    if (mpi)
        op.role = GD_CR_COMM; /* an MPI call is communication, not CPU work */
    uint32_t nid = gd_strtab_intern(&t->names, nlen ? nm : "(unnamed range)", nlen ? nlen : 15);
    if (nid == UINT32_MAX || gd_trace_push_cpu_op(t, &op, nid, end - start, 0) != 0 ||
        gd_trace_note_comm_call(t, nm, nlen, 0, start, end - start, -1, (int32_t)(col_i64(s, 3, 0) & 0xFFFFFF), NULL) != 0)
        return -1;
    t->nsys.nvtx_ranges++;
    if (mpi)
        t->nsys.mpi_calls++;
    return 0;
}

/* A row of an MPI table (nsys --trace=mpi): an MPI call on a host thread, kept as a host
 * range with the Communication role and as a communication call. */
static int row_mpi(nsr *r, sqlite3_stmt *s)
{
    gpudiag_trace *t = r->t;
    int64_t start, end;
    if (!row_span(t, s, &start, &end))
        return 0;
    size_t nlen;
    const char *nm = col_text(s, 2, &nlen);
    if (!nlen) {
        nm = "MPI call";
        nlen = 8;
    }
    gd_cpu_op op;
    memset(&op, 0, sizeof op);
    op.ts_ns = start;
    op.cat = GD_CPU_USER_ANNOT;
    op.role = GD_CR_COMM;
    uint32_t nid = gd_strtab_intern(&t->names, nm, nlen);
    if (nid == UINT32_MAX || gd_trace_push_cpu_op(t, &op, nid, end - start, 0) != 0)
        return -1;
    /* an unnamed row is still an MPI call: kind other */
    int k = gd_coll_kind_from_host(nm, nlen);
    /* named "MPI_" for the join: the table says it is an MPI call whatever its text */
    if (gd_trace_note_comm_call(t, "MPI_", 4, 1 + (k < 0 ? GPUDIAG_COMM_OTHER : k), start, end - start, -1,
                                (int32_t)(col_i64(s, 3, 0) & 0xFFFFFF), NULL) != 0)
        return -1;
    t->nsys.mpi_calls++;
    return 0;
}

static void read_mpi(nsr *r)
{
    static const char *const tables[] = {"MPI_P2P_EVENTS", "MPI_COLLECTIVES_EVENTS", "MPI_START_WAIT_EVENTS",
                                         "MPI_OTHER_EVENTS"};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0] && !r->failed; i++) {
        if (table_exists(r, tables[i]) != 1 || !has_col(r, tables[i], "start") || !has_col(r, tables[i], "end"))
            continue;
        char sql[512], nm[160];
        if (has_col(r, tables[i], "textId") && r->has_strings)
            name_expr(r, nm, sizeof nm, "m", "textId");
        else
            snprintf(nm, sizeof nm, "NULL");
        snprintf(sql, sizeof sql, "SELECT m.start, m.end, %s, %s FROM %s AS m", nm,
                 has_col(r, tables[i], "globalTid") ? "m.globalTid" : "NULL", tables[i]);
        each_row(r, sql, tables[i], row_mpi);
    }
}

static void read_host(nsr *r)
{
    char sql[1024], nm[160];
    int e = table_exists(r, T_RUNTIME);
    if (e == 1) {
        name_expr(r, nm, sizeof nm, "c", "nameId");
        int has_corr = has_col(r, T_RUNTIME, "correlationId");
        if (!has_corr)
            schema_gap(r, T_RUNTIME ".correlationId (launch calls not joined to kernels)");
        snprintf(sql, sizeof sql, "SELECT c.start, c.end, %s, %s, %s FROM " T_RUNTIME " AS c",
                 has_col(r, T_RUNTIME, "globalTid") ? "c.globalTid" : "NULL", has_corr ? "c.correlationId" : "NULL",
                 nm);
        each_row(r, sql, T_RUNTIME, row_runtime);
    } else if (e == 0) {
        schema_gap(r, T_RUNTIME " (no CUDA API calls: launch overhead and sync calls not measured)");
    }
    e = table_exists(r, T_NVTX);
    if (e == 1 && !r->failed) {
        int has_tid = has_col(r, T_NVTX, "textId");
        int has_text = has_col(r, T_NVTX, "text");
        char txt[256];
        if (has_tid && has_text && r->has_strings)
            snprintf(txt, sizeof txt, "coalesce((SELECT value FROM StringIds WHERE id = n.textId), n.text)");
        else if (has_text)
            snprintf(txt, sizeof txt, "n.text");
        else if (has_tid && r->has_strings)
            snprintf(txt, sizeof txt, "(SELECT value FROM StringIds WHERE id = n.textId)");
        else
            snprintf(txt, sizeof txt, "NULL");
        if (!has_tid)
            schema_gap(r, T_NVTX ".textId (range names from the inline text only)");
        /* 59 push/pop, 60 start/end, 70/71 their NVTXT forms */
        snprintf(sql, sizeof sql,
                 "SELECT n.start, n.end, %s, %s FROM " T_NVTX " AS n WHERE n.eventType IN (59, 60, 70, 71)", txt,
                 has_col(r, T_NVTX, "globalTid") ? "n.globalTid" : "NULL");
        each_row(r, sql, T_NVTX, row_nvtx);
    } else if (e == 0) {
        schema_gap(r, T_NVTX " (no NVTX ranges: steps cannot come from them)");
    }
    if (!r->failed)
        read_mpi(r);
}

/* ---- counts -------------------------------------------------------------- */

static uint64_t count_rows(nsr *r, const char *table, const char *where)
{
    if (table_exists(r, table) != 1)
        return 0;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s%s%s", table, where ? " WHERE " : "", where ? where : "");
    sqlite3_stmt *s = prep(r, sql, table);
    if (!s)
        return 0;
    uint64_t n = 0;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        n = (uint64_t)sqlite3_column_int64(s, 0);
    else
        fail_sql(r, table);
    sqlite3_finalize(s);
    return n;
}

/* ---- NVIDIA's expert-system rules ---------------------------------------- */

static int row_overhead(nsr *r, sqlite3_stmt *s)
{
    rule_op o = {col_i64(s, 0, 0), col_i64(s, 1, 0), (col_i64(s, 2, 0) >> 24) & 0xFFFFFF, -1};
    if (!gd_vec_push(&r->rops, &o))
        return -1;
    r->t->nsys.overhead_ranges++;
    return 0;
}

static int cmp_rule_group_start(const void *a, const void *b)
{
    const rule_op *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* gpu_gaps and gpu_time_util over one (pid, device) group, ops sorted by start. */
static int rules_group(const rule_op *ops, size_t n, gpudiag_nsight_rules *R)
{
    int64_t *ends = malloc(n * sizeof *ends);
    if (!ends)
        return -1;
    int64_t rs = ops[0].start, re = ops[0].end;
    for (size_t i = 0; i < n; i++) {
        ends[i] = ops[i].end;
        if (ops[i].end > re)
            re = ops[i].end;
    }
    qsort(ends, n, sizeof *ends, gd_cmp_i64);
    /* gpu_gaps: the j-th end (in end order) joined to the (j+1)-th start (in start order) */
    for (size_t j = 0; j + 1 < n; j++) {
        int64_t gap = ops[j + 1].start - ends[j];
        if (gap > NSIGHT_GAP_NS) {
            double us = ns_to_us(gap);
            R->gaps++;
            R->gap_time_us += us;
            if (isnan(R->gap_max_us) || us > R->gap_max_us)
                R->gap_max_us = us;
        }
    }
    free(ends);
    /* gpu_time_util: ceil((re - rs) / chunks) ns per chunk */
    double cs = ceil((double)(re - rs) / NSIGHT_UTIL_CHUNKS);
    int prev_low = 0;
    for (int k = 0; k < NSIGHT_UTIL_CHUNKS; k++) {
        double cstart = k * cs + (double)rs;
        double cend = fmin(cstart + cs, (double)re);
        if (!(cstart < cend))
            break;
        double busy = 0.0;
        for (size_t i = 0; i < n; i++) {
            if ((double)ops[i].start >= cend)
                break;
            if ((double)ops[i].end > cstart && (double)ops[i].start < cend)
                busy += fmin((double)ops[i].end, cend) - fmax((double)ops[i].start, cstart);
        }
        double pct = busy / (cend - cstart) * 100.0;
        R->util_chunks_total++;
        if (isnan(R->util_min) || pct / 100.0 < R->util_min)
            R->util_min = pct / 100.0;
        if (pct < NSIGHT_UTIL_THRESHOLD) {
            R->util_low_chunks++;
            R->util_low_time_us += (cend - cstart) / NS_PER_US;
            if (!prev_low)
                R->util_low_regions++;
            prev_low = 1;
        } else {
            prev_low = 0;
        }
    }
    return 0;
}

/* One aggregate row: count, total bytes, total duration (ns). */
static void agg(nsr *r, const char *sql, const char *what, uint64_t *count, double *bytes, double *us)
{
    if (r->failed)
        return;
    sqlite3_stmt *s = prep(r, sql, what);
    if (!s)
        return;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *count = (uint64_t)sqlite3_column_int64(s, 0);
        if (bytes)
            *bytes = sqlite3_column_double(s, 1);
        *us = sqlite3_column_double(s, 2) / NS_PER_US;
    } else {
        fail_sql(r, what);
    }
    sqlite3_finalize(s);
}

static void nsight_rules(nsr *r)
{
    gpudiag_nsight_rules *R = &r->t->nsys.rules;
    R->available = 1;
    R->gap_threshold_us = ns_to_us(NSIGHT_GAP_NS);
    R->gap_max_us = NAN;
    R->util_chunks = NSIGHT_UTIL_CHUNKS;
    R->util_threshold = NSIGHT_UTIL_THRESHOLD / 100.0;
    R->util_min = NAN;

    /* CUDA profiling overheads of the process inside each device's range count as GPU ops */
    size_t nops = r->rops.len;
    if (nops && r->has_strings && table_exists(r, "PROFILER_OVERHEAD") == 1 &&
        has_col(r, "PROFILER_OVERHEAD", "globalTid") && has_col(r, "PROFILER_OVERHEAD", "nameId")) {
        gd_vec ov;
        gd_vec_init(&ov, sizeof(rule_op));
        gd_vec keep = r->rops;
        gd_vec_init(&r->rops, sizeof(rule_op));
        each_row(r,
                 "SELECT p.start, p.end, p.globalTid FROM PROFILER_OVERHEAD AS p JOIN StringIds AS s ON s.id = p.nameId "
                 "WHERE s.value IN ('CUDA profiling data flush overhead', 'CUDA profiling stop overhead', "
                 "'CUDA profiling overhead')",
                 "PROFILER_OVERHEAD", row_overhead);
        ov = r->rops;
        r->rops = keep;
        /* range per (pid, device) of the GPU ops themselves */
        if (r->rops.len > 1)
            qsort(r->rops.data, r->rops.len, sizeof(rule_op), cmp_rule_group_start);
        size_t ng = r->rops.len;
        for (size_t i = 0; i < ng && !r->failed;) {
            const rule_op *g0 = gd_vec_at(&r->rops, i);
            int64_t pid = g0->pid, dev = g0->device, mn = g0->start, mx = g0->end;
            size_t j = i;
            for (; j < ng; j++) {
                const rule_op *o = gd_vec_at(&r->rops, j);
                if (o->pid != pid || o->device != dev)
                    break;
                if (o->end > mx)
                    mx = o->end;
            }
            for (size_t k = 0; k < ov.len; k++) {
                rule_op o = *(rule_op *)gd_vec_at(&ov, k);
                if (o.pid == pid && o.start > mn && o.end < mx) {
                    o.device = dev;
                    if (!gd_vec_push(&r->rops, &o)) {
                        fail(r, GPUDIAG_ERR_NOMEM, -1, "out of memory");
                        break;
                    }
                }
            }
            i = j;
        }
        gd_vec_free(&ov);
    }
    if (r->failed)
        return;
    if (r->rops.len > 1) /* qsort's array may not be NULL, even for 0 elements (UBSan; fuzz_nsys) */
        qsort(r->rops.data, r->rops.len, sizeof(rule_op), cmp_rule_group_start);
    for (size_t i = 0; i < r->rops.len;) {
        const rule_op *g0 = gd_vec_at(&r->rops, i);
        size_t j = i;
        while (j < r->rops.len) {
            const rule_op *o = gd_vec_at(&r->rops, j);
            if (o->pid != g0->pid || o->device != g0->device)
                break;
            j++;
        }
        if (rules_group(g0, j - i, R) != 0) {
            fail(r, GPUDIAG_ERR_NOMEM, -1, "out of memory");
            return;
        }
        i = j;
    }

    if (!r->has_strings || table_exists(r, T_RUNTIME) != 1 || !has_col(r, T_RUNTIME, "correlationId"))
        return;
    char sql[1024];
    /* The launch call of a GPU op: same correlation id, same process when both sides say which. */
    const char *same_proc = "";
    int rt_tid = has_col(r, T_RUNTIME, "globalTid");
    if (table_exists(r, T_MEMCPY) == 1 && has_col(r, T_MEMCPY, "correlationId")) {
        if (rt_tid && has_col(r, T_MEMCPY, "globalPid"))
            same_proc = " AND (c.globalTid >> 24) = (m.globalPid >> 24)";
        int kinds = has_col(r, T_MEMCPY, "srcKind") && has_col(r, T_MEMCPY, "dstKind");
        int devs = has_col(r, T_MEMCPY, "srcDeviceId") && has_col(r, T_MEMCPY, "dstDeviceId");
        /* cuda_memcpy_sync */
        snprintf(sql, sizeof sql,
                 "SELECT count(*), total(b), total(d) FROM (SELECT DISTINCT m.start, m.end, m.correlationId, "
                 "m.bytes AS b, m.end - m.start AS d FROM " T_MEMCPY " AS m JOIN " T_RUNTIME
                 " AS c ON c.correlationId = m.correlationId%s JOIN StringIds AS s ON s.id = c.nameId "
                 "WHERE s.value LIKE 'cudaMemcpy%%' AND s.value NOT LIKE '%%async%%' "
                 "AND NOT (m.copyKind = %d AND m.bytes <= %d)%s)",
                 same_proc, r->copy_htod, NSIGHT_H2D_EXEMPT_BYTES,
                 devs ? " AND NOT coalesce(m.srcDeviceId = m.dstDeviceId, 0)" : "");
        agg(r, sql, "cuda_memcpy_sync", &R->memcpy_sync, &R->memcpy_sync_bytes, &R->memcpy_sync_us);
        /* cuda_memcpy_async */
        if (kinds) {
            snprintf(sql, sizeof sql,
                     "SELECT count(*), total(b), total(d) FROM (SELECT DISTINCT m.start, m.end, m.correlationId, "
                     "m.bytes AS b, m.end - m.start AS d FROM " T_MEMCPY " AS m JOIN " T_RUNTIME
                     " AS c ON c.correlationId = m.correlationId%s JOIN StringIds AS s ON s.id = c.nameId "
                     "WHERE s.value LIKE 'cudaMemcpy%%Async%%' AND (m.srcKind = %d OR m.dstKind = %d))",
                     same_proc, r->kind_pageable, r->kind_pageable);
            agg(r, sql, "cuda_memcpy_async", &R->memcpy_async_pageable, &R->memcpy_async_pageable_bytes,
                &R->memcpy_async_pageable_us);
        }
    }
    if (table_exists(r, T_MEMSET) == 1 && has_col(r, T_MEMSET, "correlationId") && has_col(r, T_MEMSET, "memKind")) {
        same_proc = rt_tid && has_col(r, T_MEMSET, "globalPid") ? " AND (c.globalTid >> 24) = (m.globalPid >> 24)" : "";
        snprintf(sql, sizeof sql,
                 "SELECT count(*), total(b), total(d) FROM (SELECT DISTINCT m.start, m.end, m.correlationId, "
                 "m.bytes AS b, m.end - m.start AS d FROM " T_MEMSET " AS m JOIN " T_RUNTIME
                 " AS c ON c.correlationId = m.correlationId%s JOIN StringIds AS s ON s.id = c.nameId "
                 "WHERE s.value LIKE 'cudaMemset%%' AND s.value NOT LIKE '%%async%%' AND m.memKind IN (%d, %d))",
                 same_proc, r->kind_pinned, r->kind_managed);
        agg(r, sql, "cuda_memset_sync", &R->memset_sync, &R->memset_sync_bytes, &R->memset_sync_us);
    }
    /* cuda_api_sync; one call under two names (one correlation id) counts once, as everywhere.
     * The copies above are counted once each (DISTINCT) for the same reason. */
    if (has_col(r, T_RUNTIME, "correlationId") == 1)
        agg(r,
            "SELECT count(*), 0, total(d) FROM (SELECT max(c.end - c.start) AS d FROM " T_RUNTIME
            " AS c JOIN StringIds AS s ON s.id = c.nameId "
            "WHERE s.value LIKE 'cudaDeviceSynchronize%' OR s.value LIKE 'cudaStreamSynchronize%' "
            "GROUP BY CASE WHEN c.correlationId > 0 THEN 'c' || c.correlationId "
            "ELSE 'r' || c.start || ':' || c.end || ':' || c.nameId END)",
            "cuda_api_sync", &R->api_sync, NULL, &R->api_sync_us);
    else
        agg(r,
            "SELECT count(*), 0, total(c.end - c.start) FROM " T_RUNTIME " AS c JOIN StringIds AS s ON s.id = c.nameId "
            "WHERE s.value LIKE 'cudaDeviceSynchronize%' OR s.value LIKE 'cudaStreamSynchronize%'",
            "cuda_api_sync", &R->api_sync, NULL, &R->api_sync_us);
}

/* ---- the reader ---------------------------------------------------------- */

static int progress(void *arg)
{
    nsr *r = arg;
    if (--r->vm_ticks_left > 0)
        return 0;
    r->over_budget = 1;
    return 1; /* interrupt: the statement fails with SQLITE_INTERRUPT, reported by fail_sql() */
}

/* The database is input from a stranger (sqlite.org "Defense Against The Dark
 * Arts"): no functions with side effects from its schema, no writes to the
 * schema, nothing attached, bounded strings and expressions, bounded work. */
static void harden(nsr *r)
{
    sqlite3_db_config(r->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    sqlite3_db_config(r->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    sqlite3_limit(r->db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(r->db, SQLITE_LIMIT_LENGTH, 64 << 20);
    sqlite3_limit(r->db, SQLITE_LIMIT_EXPR_DEPTH, 200);
    sqlite3_limit(r->db, SQLITE_LIMIT_COMPOUND_SELECT, 16);
    struct stat sb;
    int64_t size = stat(r->path, &sb) == 0 ? (int64_t)sb.st_size : 0;
    r->vm_ticks_left = (GD_NSYS_VM_BASE + GD_NSYS_VM_PER_BYTE * size) / GD_NSYS_VM_TICK;
    sqlite3_progress_handler(r->db, GD_NSYS_VM_TICK, progress, r);
}

/* SQLite's structural check (PRAGMA quick_check: b-tree pages, cells, freelist
 * links; not the values, which SQLite keeps no checksum of) of each table the
 * reader reads, before it reads them: a damaged page otherwise reads as fewer or
 * other rows with no error (a new user's export with 20 bytes flipped lost a
 * kernel and still analysed with exit 0; DEFINITIONS "Nsight Systems
 * exports").  Per table (SQLite >= 3.33), so the cost is one more pass over
 * what the reader scans anyway; the check has its own work budget. */
static void check_tables(nsr *r)
{
    static const char *const tables[] = {T_KERNEL, T_MEMCPY, T_MEMSET, T_GRAPH, T_RUNTIME, T_SYNC, T_NVTX, T_GPU,
                                         "StringIds", "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND"};
    int per_table = sqlite3_libversion_number() >= 3033000;
    int64_t budget = r->vm_ticks_left;
    for (size_t i = 0; i < (per_table ? sizeof tables / sizeof tables[0] : 1) && !r->failed; i++) {
        char sql[128];
        if (per_table) {
            sqlite3_stmt *q = prep(r, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", "sqlite_master");
            if (!q)
                return;
            sqlite3_bind_text(q, 1, tables[i], -1, SQLITE_STATIC);
            int rc = sqlite3_step(q);
            sqlite3_finalize(q);
            if (rc == SQLITE_DONE)
                continue;
            if (rc != SQLITE_ROW) {
                fail_sql(r, "sqlite_master");
                return;
            }
            snprintf(sql, sizeof sql, "PRAGMA quick_check(\"%s\")", tables[i]);
        } else {
            snprintf(sql, sizeof sql, "PRAGMA quick_check");
        }
        const char *what = per_table ? tables[i] : "the database";
        sqlite3_stmt *s = prep(r, sql, what);
        if (!s)
            return;
        int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW) {
            const unsigned char *v = sqlite3_column_text(s, 0);
            if (v && strcmp((const char *)v, "ok") != 0) {
                char said[201]; /* its first 200 bytes on one line */
                snprintf(said, sizeof said, "%s", (const char *)v);
                for (char *c = said; *c; c++)
                    if (*c == '\n' || *c == '\r')
                        *c = ' ';
                fail(r, GPUDIAG_ERR_FORMAT, -1,
                     "the SQLite database is damaged (PRAGMA quick_check of %s: %s): export it again "
                     "(nsys export --type sqlite REPORT.nsys-rep)",
                     what, said);
            }
        } else if (rc != SQLITE_DONE) {
            fail_sql(r, what);
        }
        sqlite3_finalize(s);
        r->vm_ticks_left = budget; /* the reads that follow keep their whole budget */
    }
}

static void keep_used_devices(nsr *r)
{
    gpudiag_trace *t = r->t;
    for (size_t i = 0; i < r->gpus.len; i++) {
        const gpu_info *g = gd_vec_at(&r->gpus, i);
        int used = 0;
        for (size_t k = 0; k < t->gpu_ops.len && !used; k++)
            used = ((const gd_gpu_op *)gd_vec_at(&t->gpu_ops, k))->device == g->id;
        /* TARGET_INFO_GPU lists every GPU of the node; describe those the capture used */
        if ((used || t->gpu_ops.len == 0) && !gd_vec_push(&t->devices, &g->prop)) {
            fail(r, GPUDIAG_ERR_NOMEM, -1, "out of memory");
            return;
        }
    }
}

gpudiag_status gd_nsys_read(const char *path, gpudiag_trace **out, gpudiag_error *err)
{
    if (!path || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, path, -1, "no path or out pointer");
    *out = NULL;
    nsr r;
    memset(&r, 0, sizeof r);
    r.path = path;
    r.err = err;
    gd_vec_init(&r.rops, sizeof(rule_op));
    gd_vec_init(&r.gpus, sizeof(gpu_info));
    if (check_header(&r) != 0)
        goto done;
    r.t = gd_trace_new(path);
    if (!r.t) {
        fail(&r, GPUDIAG_ERR_NOMEM, -1, "out of memory");
        goto done;
    }
    r.t->nsys.present = 1;
    if (sqlite3_open_v2(path, &r.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fail(&r, GPUDIAG_ERR_IO, -1, "cannot open the SQLite database: %s",
             r.db ? sqlite3_errmsg(r.db) : "out of memory");
        goto done;
    }
    harden(&r);
    check_tables(&r);
    if (r.failed)
        goto done;
    int e = table_exists(&r, "StringIds");
    if (e < 0)
        goto done;
    r.has_strings = e;
    if (!e)
        schema_gap(&r, "StringIds (names read as stored)");
    read_enums(&r);
    read_info(&r);
    read_gpu_ops(&r);
    read_host(&r);
    if (r.failed)
        goto done;
    if (r.t->nsys.kernels == 0 && r.t->nsys.memcpys == 0 && r.t->nsys.memsets == 0 && r.t->nsys.runtime_calls == 0 &&
        r.t->nsys.nvtx_ranges == 0 && r.t->nsys.graph_execs == 0) {
        e = table_exists(&r, T_KERNEL) | table_exists(&r, T_RUNTIME) | table_exists(&r, T_NVTX);
        /* nsys leaves empty tables out: an export that recorded nothing still has its own
         * META_DATA_EXPORT / TARGET_INFO_GPU tables (DEFINITIONS "Nsight Systems exports") */
        int ours = !e && (table_exists(&r, "META_DATA_EXPORT") > 0 || table_exists(&r, "TARGET_INFO_GPU") > 0 ||
                          table_exists(&r, "TARGET_INFO_SESSION_START_TIME") > 0);
        if (!r.failed)
            fail(&r, GPUDIAG_ERR_FORMAT, -1, "%s",
                 e ? "the Nsight Systems export holds no CUDA kernels, copies, API calls or NVTX ranges"
                 : ours ? "an Nsight Systems export that recorded no CUDA kernels, copies, API calls or NVTX "
                          "ranges (nsys leaves their tables out): profile with `nsys profile -t cuda,nvtx`, and "
                          "wrap each process (`mpirun -n N nsys profile ... python train.py`, not `nsys profile "
                          "mpirun ...`, which may trace only the launcher)"
                        : "an SQLite database without Nsight Systems tables (no " T_KERNEL ", " T_RUNTIME " or " T_NVTX
                          "): not an `nsys export --type sqlite` file");
        goto done;
    }
    r.t->nsys.sync_events = count_rows(&r, T_SYNC, NULL);
    r.t->nsys.graph_events = count_rows(&r, "CUDA_GRAPH_EVENTS", NULL) + count_rows(&r, "CUDA_GRAPH_NODE_EVENTS", NULL);
    keep_used_devices(&r);
    nsight_rules(&r);
    if (r.failed)
        goto done;
    {
        struct stat sb;
        if (stat(path, &sb) == 0)
            r.t->bytes = (uint64_t)sb.st_size;
    }
    *out = r.t;
    r.t = NULL;

done:
    if (r.db)
        sqlite3_close(r.db);
    gd_vec_free(&r.rops);
    gd_vec_free(&r.gpus);
    free(r.corr_seen);
    if (r.t)
        gpudiag_trace_free(&r.t);
    return r.failed ? r.st : GPUDIAG_OK;
}
