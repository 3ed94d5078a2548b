/*
 * fuzz_common.h — the boilerplate and checks shared by the libFuzzer targets
 * (header only: each target is one translation unit plus this).  A target
 * defines `static const char *const WHO = "fuzz_NAME";` before using FAIL();
 * it may call the writers below on what it read.
 */
#ifndef GD_FUZZ_COMMON_H
#define GD_FUZZ_COMMON_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "gpudiag/gpudiag.h"
#include "gpudiag/html.h"

/* Print "WHO: MESSAGE" on stderr and abort(): a broken promise, for libFuzzer
 * to keep the input. */
__attribute__((noreturn, format(printf, 2, 3))) static inline void gd_fuzz_fail(const char *who, const char *fmt,
                                                                                 ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", who);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

#define FAIL(...) gd_fuzz_fail(WHO, __VA_ARGS__)

/* /dev/null for writing, opened on the first call (abort() if it cannot be):
 * the sink of the text and HTML writers, whose output is not checked. */
static inline FILE *gd_fuzz_devnull(void)
{
    static FILE *devnull;
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    if (!devnull)
        abort();
    return devnull;
}

/* abort() unless buf[0..len) is one valid JSON document (yajl: no nan, no
 * broken escapes, valid UTF-8). */
static inline void gd_fuzz_check_json(const char *who, const char *what, const char *buf, size_t len)
{
    yajl_handle h = yajl_alloc(NULL, NULL, NULL);
    if (!h)
        return;
    yajl_status ys = yajl_parse(h, (const unsigned char *)buf, len);
    if (ys == yajl_status_ok)
        ys = yajl_complete_parse(h);
    if (ys != yajl_status_ok) {
        unsigned char *m = yajl_get_error(h, 1, (const unsigned char *)buf, len);
        fprintf(stderr, "%s: the %s is not valid JSON: %s\n", who, what, m ? (const char *)m : "?");
        abort();
    }
    yajl_free(h);
}

/* abort() unless a failed read kept the reader's contract: a message, the
 * input's name, a status that bytes can cause, and an offset that is -1 or
 * within the `limit` bytes given (limit < 0: not checked). */
static inline void gd_fuzz_check_error(const char *who, gpudiag_status st, const gpudiag_error *err,
                                       const char *name, long long limit)
{
    if (!err->message[0] || strcmp(err->path, name) != 0) {
        fprintf(stderr, "%s: a failure without a message or the input's name (status %d)\n", who, (int)st);
        abort();
    }
    if (st != GPUDIAG_ERR_FORMAT && st != GPUDIAG_ERR_IO && st != GPUDIAG_ERR_NOMEM) {
        fprintf(stderr, "%s: status %d (%s) from bytes: %s\n", who, (int)st, gpudiag_strerror(st), err->message);
        abort();
    }
    if (err->offset < -1 || (limit >= 0 && err->offset > limit)) {
        fprintf(stderr, "%s: error offset %lld outside the %lld bytes given: %s\n", who, (long long)err->offset,
                limit, err->message);
        abort();
    }
}

/* A read that failed kept its contract: it returned nothing (`got` is what it
 * returned, NULL wanted) and its error passes gd_fuzz_check_error() (with
 * the same name and limit); `what` names the object in the message. */
static inline void gd_fuzz_check_failed_read(const char *who, gpudiag_status st, const gpudiag_error *err,
                                             const void *got, const char *what, const char *name, long long limit)
{
    if (got)
        gd_fuzz_fail(who, "a failure returned a %s", what);
    gd_fuzz_check_error(who, st, err, name, limit);
}

/* A writable stream into memory for a JSON writer (abort() if none can be
 * made); gd_fuzz_mem_json() closes it, checks the bytes are one valid JSON
 * document ("the WHAT is not valid JSON") and frees them. */
static inline FILE *gd_fuzz_mem(char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    FILE *mem = open_memstream(buf, len);
    if (!mem)
        abort();
    return mem;
}

static inline void gd_fuzz_mem_json(const char *who, const char *what, FILE *mem, char **buf, size_t *len)
{
    fclose(mem);
    gd_fuzz_check_json(who, what, *buf, *len);
    free(*buf);
    *buf = NULL;
}

/* What every run does with a report: its JSON (pretty, through
 * gpudiag_report_json) is valid JSON of the length it says, its
 * text (colour, verbose, 80 columns) and, when html, its HTML page are
 * written without error (to /dev/null). */
static inline void gd_fuzz_write_report(const char *who, const gpudiag_report *r, int html)
{
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    char *js = NULL;
    size_t jlen = 0;
    /* gpudiag_report_json: gpudiag_report_write_json into memory (the bindings' call) */
    if (gpudiag_report_json(r, 1, &js, &jlen, &err) != GPUDIAG_OK)
        gd_fuzz_fail(who, "JSON writer failed: %s", err.message);
    if (strlen(js) != jlen)
        gd_fuzz_fail(who, "gpudiag_report_json: length %zu, string of %zu bytes", jlen, strlen(js));
    gd_fuzz_check_json(who, "JSON report", js, jlen);
    gpudiag_json_free(&js);
    if (js)
        gd_fuzz_fail(who, "gpudiag_json_free left the pointer set");
    gpudiag_text_opts topts = {1, 1, 80};
    if (gpudiag_report_write_text(r, gd_fuzz_devnull(), &topts, &err) != GPUDIAG_OK)
        gd_fuzz_fail(who, "text writer failed: %s", err.message);
    if (html && gpudiag_report_write_html(r, gd_fuzz_devnull(), NULL, &err) != GPUDIAG_OK)
        gd_fuzz_fail(who, "HTML writer failed: %s", err.message);
}

/* abort() when a finite-or-NaN promise is broken: v must not be ±inf. */
static inline void gd_fuzz_check_not_inf(const char *who, const char *what, double v)
{
    if (isinf(v)) {
        fprintf(stderr, "%s: %s is infinite\n", who, what);
        abort();
    }
}

#endif
