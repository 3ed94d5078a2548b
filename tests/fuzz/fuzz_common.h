/*
 * fuzz_common.h — small checks shared by the libFuzzer targets (header only:
 * each target is one translation unit plus this).
 */
#ifndef GD_FUZZ_COMMON_H
#define GD_FUZZ_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "gpudiag/gpudiag.h"

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

/* abort() when a finite-or-NaN promise is broken: v must not be ±inf. */
static inline void gd_fuzz_check_not_inf(const char *who, const char *what, double v)
{
    if (isinf(v)) {
        fprintf(stderr, "%s: %s is infinite\n", who, what);
        abort();
    }
}

#endif
