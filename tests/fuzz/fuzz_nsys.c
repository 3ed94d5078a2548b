/*
 * fuzz_nsys.c — libFuzzer target for the Nsight Systems SQLite reader
 * (src/ingest/nsys.c) through gd_nsys_read() on a real file, then the
 * analysis and the JSON and text reports, as `gpudiag analyze X.sqlite` does.
 * The first input byte picks how the rest becomes a database:
 *   even: the bytes are the database file itself (pages, headers, b-trees:
 *         SQLite's own defences and gpudiag's header check);
 *   odd:  the bytes are SQL run in a fresh in-memory database (tables,
 *         columns, types, NULLs, views), then written out with
 *         sqlite3_serialize(): this reaches the reader's logic far faster
 *         than mutating pages.  The SQL runs with nothing attachable, no
 *         pragmas, bounded lengths and a work budget, so it can neither
 *         touch other files nor hang.
 * The file lives in a private directory made by LLVMFuzzerInitialize().
 * The reader's own work budget (GD_NSYS_VM_*, small in the fuzz build) is
 * what keeps a hostile view from hanging it.
 *
 * Checks beyond the sanitizers: a failure returns no trace, a message naming
 * the file, a status bytes can cause (FORMAT, IO, NOMEM) and an offset within
 * the file; a success analyses, its JSON report is valid JSON and its text
 * report is written.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fuzz_common.h"
#include "gpudiag/gpudiag.h"
#include "ingest/nsys.h"
#include "model/steps.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256], dbpath[300];
static const char *const WHO = "fuzz_nsys";


static void cleanup(void)
{
    unlink(dbpath);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gd_fuzz_devnull();
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/gd-fuzz-nsys-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        abort();
    snprintf(dbpath, sizeof dbpath, "%s/fuzz.sqlite", dir);
    atexit(cleanup);
    return 0;
}

/* What the SQL may do: define and fill tables, views and indexes, read. */
static int authorize(void *arg, int action, const char *a, const char *b, const char *c, const char *d)
{
    (void)arg;
    (void)a;
    (void)b;
    (void)c;
    (void)d;
    switch (action) {
    case SQLITE_CREATE_TABLE: case SQLITE_CREATE_INDEX: case SQLITE_CREATE_VIEW: case SQLITE_INSERT:
    case SQLITE_UPDATE: case SQLITE_DELETE: case SQLITE_SELECT: case SQLITE_READ: case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE: case SQLITE_TRANSACTION: case SQLITE_DROP_TABLE: case SQLITE_DROP_VIEW:
    case SQLITE_DROP_INDEX: case SQLITE_ALTER_TABLE: case SQLITE_CREATE_TEMP_TABLE: case SQLITE_CREATE_TEMP_VIEW:
    case SQLITE_CREATE_TEMP_INDEX:
        return SQLITE_OK;
    default:
        return SQLITE_DENY;
    }
}

static int build_steps;
static int build_progress(void *arg)
{
    (void)arg;
    return ++build_steps > 2000; /* 2 million instructions: building a seed takes a few thousand */
}

/* Run the SQL in memory and write the database to dbpath; 0, or -1 when the
 * SQL made nothing worth reading. */
static int build_db(const uint8_t *sql, size_t len)
{
    char *text = malloc(len + 1);
    if (!text)
        return -1;
    memcpy(text, sql, len);
    text[len] = '\0';
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        free(text);
        return -1;
    }
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    sqlite3_set_authorizer(db, authorize, NULL);
    build_steps = 0;
    sqlite3_progress_handler(db, 1000, build_progress, NULL);
    sqlite3_exec(db, text, NULL, NULL, NULL); /* errors part-way keep what was made */
    free(text);
    sqlite3_progress_handler(db, 0, NULL, NULL);
    sqlite3_int64 n = 0;
    unsigned char *bytes = sqlite3_serialize(db, "main", &n, 0);
    sqlite3_close(db);
    int rc = -1;
    if (bytes && n > 0 && n <= (4 << 20)) {
        FILE *fp = fopen(dbpath, "wb");
        if (!fp)
            abort();
        rc = fwrite(bytes, 1, (size_t)n, fp) == (size_t)n ? 0 : -1;
        if (fclose(fp) != 0)
            rc = -1;
    }
    sqlite3_free(bytes);
    return rc;
}

static void write_raw(const uint8_t *data, size_t size)
{
    FILE *fp = fopen(dbpath, "wb");
    if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int sql = data[0] & 1;
    data++;
    size--;
    long long file_size;
    if (sql) {
        if (build_db(data, size) != 0)
            return 0;
        FILE *fp = fopen(dbpath, "rb");
        if (!fp)
            abort();
        fseek(fp, 0, SEEK_END);
        file_size = ftell(fp);
        fclose(fp);
    } else {
        write_raw(data, size);
        file_size = (long long)size;
    }
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_trace *t = NULL;
    gpudiag_status st = gd_nsys_read(dbpath, &t, &err);
    if (st != GPUDIAG_OK) {
        gd_fuzz_check_failed_read(WHO, st, &err, t, "trace", dbpath, file_size);
        return 0;
    }
    if (!t)
        FAIL("success without a trace");
    if (gd_steps_select(t, NULL, 1) != 0) { /* as gpudiag_trace_read() does after the reader */
        gpudiag_trace_free(&t);
        return 0;
    }
    gpudiag_report *r = NULL;
    st = gpudiag_analyze(t, NULL, &r, &err);
    gpudiag_trace_free(&t);
    if (st != GPUDIAG_OK) {
        if (st != GPUDIAG_ERR_NOMEM)
            FAIL("analysis failed (%d): %s", (int)st, err.message);
        return 0;
    }
    gd_fuzz_write_report(WHO, r, 0);
    gpudiag_report_free(&r);
    return 0;
}
