/*
 * read.c — gpudiag_trace_read(): choose the reader by content, then the steps.
 */
#include <stdio.h>
#include <string.h>

#include "ingest/kineto.h"
#include "ingest/nsys.h"
#include "ingest/once.h"
#include "model/sanitize.h"
#include "model/steps.h"
#include "model/trace.h"
#include "util/util.h"

/* 1 if the file starts with the SQLite magic, 0 otherwise (or unreadable:
 * the Kineto reader then reports why). */
static int is_sqlite(const char *path)
{
    if (strcmp(path, "-") == 0)
        return 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    char magic[16];
    size_t n = fread(magic, 1, sizeof magic, fp);
    fclose(fp);
    return n == sizeof magic && memcmp(magic, "SQLite format 3", 16) == 0;
}

gpudiag_status gpudiag_trace_read_opts(const char *path, const gpudiag_read_opts *opts, gpudiag_trace **out,
                                       gpudiag_error *err)
{
    if (!path || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, path, -1, "no path or out pointer");
    *out = NULL;
    if (gd_path_read_once(path)) {
        /* a FIFO, /dev/stdin, <(zcat ...): open once, sniff the head, read on from the same stream */
        gd_once_in o;
        gpudiag_status st = gd_once_in_open(&o, path, err);
        if (st != GPUDIAG_OK)
            return st;
        if (gd_once_in_is_sqlite(&o))
            st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, 0, "%s", GD_ONCE_SQLITE_MESSAGE);
        else
            st = gd_trace_read_stream(o.fp, path, opts, out, err);
        gd_once_in_close(&o);
        return st;
    }
    int nsys = is_sqlite(path);
    if (nsys && opts && opts->header_only) {
        /* an Nsight export has no distributedInfo: nothing to read for the header */
        *out = gd_trace_new(path);
        if (!*out)
            return gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
        (*out)->header_only = 1;
        return GPUDIAG_OK;
    }
    gpudiag_status st = nsys ? gd_nsys_read(path, out, err) : gd_kineto_read(path, opts, out, err);
    if (st != GPUDIAG_OK || (*out)->header_only)
        return st;
    if (gd_sanitize(*out) != 0) {
        gpudiag_trace_free(out);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
    }
    const char *name = opts ? opts->step_range : NULL;
    if ((nsys || (name && name[0])) && gd_steps_select(*out, name, nsys) != 0) {
        gpudiag_trace_free(out);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
    }
    if (opts && opts->select_steps) {
        st = gpudiag_trace_select_steps(*out, opts->steps_first, opts->steps_last, err);
        if (st != GPUDIAG_OK)
            gpudiag_trace_free(out);
    }
    return st;
}

gpudiag_status gd_trace_read_stream(FILE *fp, const char *name, const gpudiag_read_opts *opts,
                                    gpudiag_trace **out, gpudiag_error *err)
{
    if (!fp || !name || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, name, -1, "no stream, name or out pointer");
    gpudiag_status st = gd_kineto_read_fp_opts(fp, name, opts, out, err);
    if (st != GPUDIAG_OK || (*out)->header_only)
        return st;
    if (gd_sanitize(*out) != 0) {
        gpudiag_trace_free(out);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, name, -1, "out of memory");
    }
    const char *rname = opts ? opts->step_range : NULL;
    if (rname && rname[0] && gd_steps_select(*out, rname, 0) != 0) {
        gpudiag_trace_free(out);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, name, -1, "out of memory");
    }
    if (opts && opts->select_steps) {
        st = gpudiag_trace_select_steps(*out, opts->steps_first, opts->steps_last, err);
        if (st != GPUDIAG_OK)
            gpudiag_trace_free(out);
    }
    return st;
}

gpudiag_status gpudiag_trace_read(const char *path, gpudiag_trace **out, gpudiag_error *err)
{
    return gpudiag_trace_read_opts(path, NULL, out, err);
}
