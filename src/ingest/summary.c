/*
 * summary.c — read a per-rank summary (gpudiag.summary/1, docs/REPORT.md
 * "Summaries") with yajl's event parser, streaming: a summary of thousands of
 * ranks is never a tree in memory; each rank's report is kept as compact JSON
 * text, re-generated from the events.
 */
#define _POSIX_C_SOURCE 200809L /* fseeko */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>

#include "ingest/input.h"
#include "model/summary.h"
#include "util/util.h"

/* a stored report is written back inside a summary or a job view (yajl's
 * generator stops at 128 levels); gpudiag's own reports nest 6 deep */
#define SUMMARY_MAX_DEPTH 64

/* where the parser is: the key of each level that matters */
typedef enum where {
    AT_NONE,
    AT_SCHEMA,
    AT_VERSION,
    AT_JOB_ID,
    AT_RANK_FIELD, /* a scalar of ranks[i] (key in rd->key) */
    AT_COUNT,      /* ranks[i].collectives.count */
    AT_DURATIONS,  /* ranks[i].collectives.duration_us[] */
    AT_STARTS,     /* ranks[i].collectives.start_us[] */
    AT_KINDS,      /* ranks[i].collectives.kind[] */
    AT_BYTES,      /* ranks[i].collectives.bytes[] */
    AT_EXPOSED,    /* ranks[i].collectives.exposed_us[] */
} where;

typedef struct rd {
    gpudiag_summary *s;
    int depth;
    char top[16]; /* depth 1's key */
    char key[24]; /* current key at the level being read */
    where at;
    int ignore_to; /* > 0: skipping a value until depth returns here */
    int seen_schema, wrong_schema, wrong_version, bad, oom;
    char found[64];       /* the schema or version found, for the message */
    gd_summary_rank *cur; /* ranks[i] being read */
    size_t comm_cap;
    yajl_gen cap;  /* capturing ranks[i].report */
    int cap_depth; /* depth at which the report's map opened */
    int keep_text; /* 1: keep each report's text (an input that cannot be read again); 0: its span */
    char *text;
    size_t text_len, text_cap;
    int span_depth;     /* > 0: inside a report read as a span (not kept), opened at this depth */
    yajl_handle h;      /* the parser, for the byte offsets of a report */
    uint64_t fed;       /* bytes given to the parser before the current chunk */
    uint64_t cap_start; /* offset of the report's '{' */
    const char *path;
    char why[160];
} rd;

static void text_cb(void *ctx, const char *s, size_t len)
{
    rd *r = ctx;
    if (r->oom)
        return;
    if (r->text_len + len + 1 > r->text_cap) {
        size_t cap = r->text_cap ? r->text_cap * 2 : 4096;
        while (cap < r->text_len + len + 1)
            cap *= 2;
        char *t = realloc(r->text, cap);
        if (!t) {
            r->oom = 1;
            return;
        }
        r->text = t;
        r->text_cap = cap;
    }
    memcpy(r->text + r->text_len, s, len);
    r->text_len += len;
}

static int fail(rd *r, const char *why)
{
    if (!r->bad)
        snprintf(r->why, sizeof r->why, "%s", why);
    r->bad = 1;
    return 0;
}

static int copy_key(char *dst, size_t cap, const unsigned char *s, size_t len)
{
    if (len >= cap) {
        dst[0] = '\0';
        return 0;
    }
    memcpy(dst, s, len);
    dst[len] = '\0';
    return 1;
}

/* "123.456" (µs with up to 3 decimals, as the writer prints ns) as exact ns;
 * anything else through strtod, rounded to the ns. */
static int64_t parse_us_as_ns(const char *s)
{
    const char *p = s;
    int neg = *p == '-';
    p += neg;
    int64_t v = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9' && v < INT64_MAX / 10000) { /* room for the 3 decimals */
        v = v * 10 + (*p++ - '0');
        digits++;
    }
    int frac = 0;
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9' && frac < 3) {
            v = v * 10 + (*p++ - '0');
            frac++;
        }
    }
    if (*p || !digits) {
        double d = strtod(s, NULL) * 1000.0;
        return isfinite(d) && fabs(d) < 9e18 ? (int64_t)llround(d) : INT64_MIN;
    }
    for (; frac < 3; frac++)
        v *= 10;
    return neg ? -v : v;
}

/* A number as the writer would write it back: beyond a double (1e999, or
 * 0.1e308333) it is unknown, NaN, since the writer writes null for it (fuzz_summary
 * found an infinite comm_share that came back null and sorted its rank elsewhere). */
static double finite_or_nan(const char *buf)
{
    double v = strtod(buf, NULL);
    return isfinite(v) ? v : NAN;
}

/* Append v to the array *a of *n entries (capacity *cap).  0, or -1 when out of memory. */
static int push_double(double **a, size_t *n, size_t *cap, double v)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        double *d = realloc(*a, c * sizeof *d);
        if (!d)
            return -1;
        *a = d;
        *cap = c;
    }
    (*a)[(*n)++] = v;
    return 0;
}

/* A scalar value arrived (number text, string, or neither for null/bool). */
static int scalar(rd *r, const char *num, const unsigned char *str, size_t len)
{
    if (r->ignore_to)
        return 1;
    char buf[64] = "";
    int fits = (num || str) && copy_key(buf, sizeof buf, (const unsigned char *)(num ? num : (const char *)str), len);
    where at = r->at;
    int in_array = at == AT_DURATIONS || at == AT_STARTS || at == AT_KINDS || at == AT_BYTES || at == AT_EXPOSED;
    if (!in_array)
        r->at = AT_NONE; /* a key's value is read once */
    if ((in_array || at == AT_RANK_FIELD || at == AT_COUNT) && !r->cur)
        at = AT_NONE;
    switch (at) {
    case AT_STARTS:
    case AT_KINDS: {
        gd_summary_rank *k = r->cur;
        size_t n = at == AT_STARTS ? k->nstart : k->nkind;
        if (n == k->comm_cap2) {
            size_t cap = k->comm_cap2 ? k->comm_cap2 * 2 : 64;
            int64_t *st = realloc(k->comm_start_ns, cap * sizeof *st);
            if (st)
                k->comm_start_ns = st;
            unsigned char *kd = st ? realloc(k->comm_kind, cap) : NULL;
            if (kd)
                k->comm_kind = kd;
            if (!st || !kd)
                return r->oom = 1, 0;
            k->comm_cap2 = cap;
        }
        if (at == AT_STARTS) {
            k->comm_start_ns[k->nstart++] = num && fits ? parse_us_as_ns(buf) : INT64_MIN;
        } else {
            int kind = 0; /* other */
            for (int c = 0; str && fits && c < GPUDIAG_COMM_KIND_COUNT; c++)
                if (strcmp(buf, gpudiag_comm_kind_name((gpudiag_comm_kind)c)) == 0)
                    kind = c;
            k->comm_kind[k->nkind++] = (unsigned char)kind;
        }
        break;
    }
    case AT_BYTES:
    case AT_EXPOSED: {
        gd_summary_rank *k = r->cur;
        double v = num && fits ? finite_or_nan(buf) : NAN;
        if ((at == AT_BYTES ? push_double(&k->comm_bytes, &k->nbytes, &k->bytes_cap, v)
                            : push_double(&k->comm_exposed_us, &k->nexposed, &k->exposed_cap, v)) != 0)
            return r->oom = 1, 0;
        break;
    }
    case AT_SCHEMA:
        r->seen_schema = 1;
        if (!str || !fits || strcmp(buf, GPUDIAG_SUMMARY_SCHEMA) != 0) {
            snprintf(r->found, sizeof r->found, "%s", str && fits ? buf : "?");
            r->wrong_schema = 1;
            return 0;
        }
        break;
    case AT_VERSION:
        if (!str || !fits || strcmp(buf, GPUDIAG_VERSION) != 0) {
            snprintf(r->found, sizeof r->found, "%s", str && fits ? buf : "?");
            r->wrong_version = 1;
            return 0;
        }
        break;
    case AT_JOB_ID:
        /* the last id given wins (a document may name its job twice: fuzz_summary found the first
         * one leaked) */
        free(r->s->job);
        r->s->job = NULL;
        if (str && len && !(r->s->job = gd_utf8_clean((const char *)str, len)))
            r->oom = 1;
        break;
    case AT_COUNT: break; /* the array's length is the count */
    case AT_DURATIONS: {
        gd_rank_input *in = &r->cur->in;
        if (in->comm_count == r->comm_cap) {
            r->comm_cap = r->comm_cap ? r->comm_cap * 2 : 64;
            double *d = realloc((double *)(uintptr_t)in->comm_us, r->comm_cap * sizeof *d);
            if (!d)
                return r->oom = 1, 0;
            in->comm_us = d;
        }
        ((double *)(uintptr_t)in->comm_us)[in->comm_count++] = num && fits ? finite_or_nan(buf) : NAN;
        break;
    }
    case AT_RANK_FIELD: {
        gd_rank_input *in = &r->cur->in;
        const char *k = r->key;
        double v = num && fits ? finite_or_nan(buf) : NAN;
        if (strcmp(k, "rank") == 0)
            in->rank = num && v >= 0 && v < 1e9 ? (int)v : -1;
        else if (strcmp(k, "world_size") == 0)
            in->world_size = num && v >= 0 && v < 1e9 ? (int)v : -1;
        else if (strcmp(k, "steps") == 0)
            in->steps = num && v >= 0 && v < 1e15 ? (size_t)v : 0;
        else if (strcmp(k, "step_time_us") == 0)
            in->step_time_us = v;
        else if (strcmp(k, "first_step_start_us") == 0)
            in->first_step_start_us = v;
        else if (strcmp(k, "gpu_utilization") == 0)
            in->gpu_utilization = v;
        else if (strcmp(k, "comm_share") == 0)
            in->comm_share = v;
        else if (strcmp(k, "steps_window") == 0) {
            free(r->cur->steps_window);
            if ((r->cur->steps_window = str ? gd_utf8_clean((const char *)str, len) : NULL) == NULL && str)
                return r->oom = 1, 0;
        } else if (strcmp(k, "rank_source") == 0)
            r->cur->rank_source = str && fits ? gd_summary_rank_source(buf) : NULL;
        else if (strcmp(k, "bottleneck") == 0 && str && fits) {
            static const gpudiag_bottleneck all[] = {
#define GPUDIAG_BN_ROW(e, name) GPUDIAG_BN_##e,
#include "gpudiag/bottlenecks.def"
#undef GPUDIAG_BN_ROW
            };
            for (size_t b = 0; b < sizeof all / sizeof *all; b++)
                if (strcmp(buf, gpudiag_bottleneck_name(all[b])) == 0)
                    in->bottleneck = all[b];
        } else if (strcmp(k, "path") == 0 || strcmp(k, "gpu") == 0) {
            char *v2 = str ? gd_utf8_clean((const char *)str, len) : NULL;
            if (str && !v2)
                return r->oom = 1, 0;
            const char **dst = k[1] == 'a' ? &in->path : &in->gpu;
            free((char *)(uintptr_t)*dst);
            *dst = v2;
        }
        break;
    }
    case AT_NONE: break;
    }
    return 1;
}

static int cb_null(void *ctx)
{
    rd *r = ctx;
    return r->cap ? yajl_gen_null(r->cap) == yajl_gen_status_ok : scalar(r, NULL, NULL, 0);
}

static int cb_bool(void *ctx, int v)
{
    rd *r = ctx;
    return r->cap ? yajl_gen_bool(r->cap, v) == yajl_gen_status_ok : scalar(r, NULL, NULL, 0);
}

static int cb_number(void *ctx, const char *s, size_t len)
{
    rd *r = ctx;
    return r->cap ? yajl_gen_number(r->cap, s, len) == yajl_gen_status_ok : scalar(r, s, NULL, len);
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
    rd *r = ctx;
    return r->cap ? yajl_gen_string(r->cap, s, len) == yajl_gen_status_ok : scalar(r, NULL, s, len);
}

static int open_container(rd *r, int map)
{
    if (r->cap) {
        if (++r->depth > SUMMARY_MAX_DEPTH)
            return fail(r, "a report nested deeper than 64 levels");
        return (map ? yajl_gen_map_open(r->cap) : yajl_gen_array_open(r->cap)) == yajl_gen_status_ok;
    }
    int d = r->depth++;
    if (r->ignore_to)
        return 1;
    if (!(d == 4 && r->cur && !map &&
          (r->at == AT_DURATIONS || r->at == AT_STARTS || r->at == AT_KINDS || r->at == AT_BYTES || r->at == AT_EXPOSED)))
        r->at = AT_NONE;
    if (d == 0 && !map)
        return fail(r, "a summary is a JSON object");
    if (d == 1 && strcmp(r->top, "ranks") == 0)
        return map ? fail(r, "ranks is an array") : 1;
    if (d == 2 && strcmp(r->top, "ranks") == 0) {
        if (!map)
            return fail(r, "ranks[] holds objects");
        if (!(r->cur = gd_summary_push(r->s)))
            return r->oom = 1, 0;
        r->comm_cap = 0;
        return 1;
    }
    if (d == 3 && r->cur && strcmp(r->key, "report") == 0 && map && !r->keep_text) {
        /* only its place in the file: skipped here, read again when written */
        r->cap_start = r->fed + yajl_get_bytes_consumed(r->h) - 1;
        r->span_depth = d;
        r->ignore_to = d;
        return 1;
    }
    if (d == 3 && r->cur && strcmp(r->key, "report") == 0 && map) {
        static yajl_alloc_funcs afs = {gd_yajl_malloc, gd_yajl_realloc, gd_yajl_free, NULL};
        if (!(r->cap = yajl_gen_alloc(&afs)))
            return r->oom = 1, 0;
        yajl_gen_config(r->cap, yajl_gen_print_callback, text_cb, r);
        r->text_len = 0;
        r->cap_depth = d;
        return yajl_gen_map_open(r->cap) == yajl_gen_status_ok;
    }
    if (d == 3 && r->cur && strcmp(r->key, "collectives") == 0 && map)
        return 1;
    if (d == 4 && r->cur && !map) {
        static const struct {
            const char *key;
            where at;
        } arrays[] = {{"duration_us", AT_DURATIONS}, {"start_us", AT_STARTS}, {"kind", AT_KINDS},
                      {"bytes", AT_BYTES},           {"exposed_us", AT_EXPOSED}};
        for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
            if (strcmp(r->key, arrays[i].key) == 0) {
                r->at = arrays[i].at;
                return 1;
            }
    }
    if (d == 1 && (strcmp(r->top, "tool") == 0 || strcmp(r->top, "job") == 0) && map)
        return 1;
    r->ignore_to = d;
    return 1;
}

static int close_container(rd *r, int map)
{
    int d = --r->depth;
    if (r->cap) {
        if ((map ? yajl_gen_map_close(r->cap) : yajl_gen_array_close(r->cap)) != yajl_gen_status_ok)
            return 0;
        if (d == r->cap_depth) {
            yajl_gen_free(r->cap);
            r->cap = NULL;
            if (r->oom)
                return 0;
            gd_summary_rank *k = r->cur;
            free(k->report);
            k->report = r->text ? r->text : gd_strdup(""); /* handed over; the next report starts anew */
            k->report_len = r->text_len;
            r->text = NULL;
            r->text_len = r->text_cap = 0;
            if (!k->report)
                return r->oom = 1, 0;
            r->at = AT_NONE;
        }
        return 1;
    }
    if (r->ignore_to) {
        if (d == r->ignore_to)
            r->ignore_to = 0;
        if (d == r->span_depth) {
            gd_summary_rank *k = r->cur;
            r->span_depth = 0;
            free(k->src);
            k->off = r->cap_start;
            k->span = r->fed + yajl_get_bytes_consumed(r->h) - r->cap_start;
            if (!(k->src = gd_strdup(r->path)))
                return r->oom = 1, 0;
        }
        return 1;
    }
    if (d == 2 && r->cur) {
        if (!r->cur->report && !r->cur->src)
            return fail(r, "a rank without its report");
        if (!r->cur->in.path && !(r->cur->in.path = gd_strdup("")))
            return r->oom = 1, 0;
        gd_summary_rank_hash(r->cur);
        r->cur = NULL;
    }
    r->at = AT_NONE;
    return 1;
}

static int cb_start_map(void *ctx)
{
    return open_container(ctx, 1);
}
static int cb_end_map(void *ctx)
{
    return close_container(ctx, 1);
}
static int cb_start_array(void *ctx)
{
    return open_container(ctx, 0);
}
static int cb_end_array(void *ctx)
{
    return close_container(ctx, 0);
}

static int cb_key(void *ctx, const unsigned char *s, size_t len)
{
    rd *r = ctx;
    if (r->cap)
        return yajl_gen_string(r->cap, s, len) == yajl_gen_status_ok;
    if (r->ignore_to)
        return 1;
    r->at = AT_NONE;
    if (r->depth == 1) {
        copy_key(r->top, sizeof r->top, s, len);
        if (!r->seen_schema && strcmp(r->top, "schema") != 0) {
            r->wrong_schema = 1; /* a summary starts with its schema */
            snprintf(r->found, sizeof r->found, "no schema first");
            return 0;
        }
        if (strcmp(r->top, "schema") == 0)
            r->at = AT_SCHEMA;
        return 1;
    }
    copy_key(r->key, sizeof r->key, s, len);
    if (r->depth == 2 && strcmp(r->top, "tool") == 0 && strcmp(r->key, "version") == 0)
        r->at = AT_VERSION;
    else if (r->depth == 2 && strcmp(r->top, "job") == 0 && strcmp(r->key, "id") == 0)
        r->at = AT_JOB_ID;
    else if (r->depth == 3 && r->cur && strcmp(r->key, "collectives") != 0 && strcmp(r->key, "report") != 0)
        r->at = AT_RANK_FIELD;
    else if (r->depth == 4 && r->cur && strcmp(r->key, "count") == 0)
        r->at = AT_COUNT;
    else if (r->depth == 4 && r->cur && strcmp(r->key, "duration_us") == 0)
        r->at = AT_DURATIONS;
    return 1;
}

static const yajl_callbacks CALLBACKS = {cb_null,      cb_bool, NULL,       NULL,           cb_number,   cb_string,
                                         cb_start_map, cb_key,  cb_end_map, cb_start_array, cb_end_array};

/* After a failed parse: its status. */
static gpudiag_status verdict(const rd *r)
{
    if (r->oom)
        return GPUDIAG_ERR_NOMEM;
    if (r->wrong_version)
        return GPUDIAG_ERR_MISMATCH;
    if (r->wrong_schema)
        return strncmp(r->found, "gpudiag.summary/", 16) == 0 ? GPUDIAG_ERR_MISMATCH : GPUDIAG_ERR_FORMAT;
    return GPUDIAG_ERR_FORMAT;
}

static gpudiag_status message(rd *r, gpudiag_status st, const char *path, int64_t at, const char *yerr,
                              gpudiag_error *err)
{
    if (st == GPUDIAG_ERR_NOMEM)
        return gd_set_error(err, st, path, -1, "out of memory");
    if (r->wrong_version)
        return gd_set_error(err, st, path, at,
                            "a summary written by gpudiag %s; this is gpudiag %s, which merges only its own "
                            "summaries (write them again with this version: gpudiag analyze --summary)",
                            r->found, GPUDIAG_VERSION);
    if (r->wrong_schema && st == GPUDIAG_ERR_MISMATCH)
        return gd_set_error(err, st, path, at, "schema %s; this gpudiag reads %s", r->found, GPUDIAG_SUMMARY_SCHEMA);
    if (r->wrong_schema)
        return gd_set_error(err, st, path, at,
                            "not a gpudiag summary (%s%s): write one per rank with gpudiag analyze --summary FILE "
                            "TRACE",
                            strncmp(r->found, "gpudiag.", 8) == 0 ? "schema " : "", r->found);
    if (r->bad)
        return gd_set_error(err, st, path, at, "not a gpudiag summary: %s", r->why);
    return gd_set_error(err, st, path, at, "not valid JSON: %s", yerr && yerr[0] ? yerr : "parse error");
}

/* Parse the whole stream; the byte offset of a failure in *at. */
static gpudiag_status parse(rd *r, gd_input *in, const char *path, gpudiag_error *err)
{
    static yajl_alloc_funcs afs = {gd_yajl_malloc, gd_yajl_realloc, gd_yajl_free, NULL};
    yajl_handle h = yajl_alloc(&CALLBACKS, &afs, r);
    r->h = h;
    r->path = path;
    unsigned char *buf = malloc(1 << 16);
    if (!h || !buf) {
        if (h)
            yajl_free(h);
        free(buf);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
    }
    uint64_t fed = 0;
    yajl_status ys = yajl_status_ok;
    gpudiag_status st = GPUDIAG_OK;
    int64_t at = -1;
    for (;;) {
        size_t got = 0;
        gd_input_status is = gd_input_read(in, buf, 1 << 16, &got);
        if (is == GD_IN_EOF)
            break;
        if (is != GD_IN_OK) {
            st = gd_set_error(err, is == GD_IN_IOERR ? GPUDIAG_ERR_IO : GPUDIAG_ERR_FORMAT, path, (int64_t)fed, "%s",
                              in->message[0] ? in->message : "read error");
            break;
        }
        if (memchr(buf, '\0', got)) {
            st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, (int64_t)fed, "a NUL byte inside a summary");
            break;
        }
        ys = yajl_parse(h, buf, got);
        if (ys != yajl_status_ok) {
            at = (int64_t)(fed + yajl_get_bytes_consumed(h));
            break;
        }
        fed += got;
        r->fed = fed;
    }
    if (st == GPUDIAG_OK && ys == yajl_status_ok) {
        ys = yajl_complete_parse(h);
        at = (int64_t)fed;
    }
    if (st == GPUDIAG_OK && ys != yajl_status_ok) {
        unsigned char *ye = yajl_get_error(h, 0, NULL, 0);
        char yerr[200];
        snprintf(yerr, sizeof yerr, "%s", ye ? (const char *)ye : "");
        char *nl = strchr(yerr, '\n');
        if (nl)
            *nl = '\0';
        if (ye)
            yajl_free_error(h, ye);
        st = message(r, verdict(r), path, at, yerr, err);
    } else if (st == GPUDIAG_OK && !r->seen_schema) {
        r->wrong_schema = 1;
        snprintf(r->found, sizeof r->found, "no schema");
        st = message(r, GPUDIAG_ERR_FORMAT, path, 0, NULL, err);
    }
    yajl_free(h);
    free(buf);
    if (r->cap)
        yajl_gen_free(r->cap);
    free(r->text);
    return st;
}

/* Read from an opened input (closed here). */
static gpudiag_status read_input(gd_input *in, const char *path, int keep_text, gpudiag_summary **out,
                                 gpudiag_error *err)
{
    rd r;
    memset(&r, 0, sizeof r);
    r.keep_text = keep_text;
    gpudiag_status st = gpudiag_summary_new(NULL, &r.s, err);
    if (st == GPUDIAG_OK)
        st = parse(&r, in, path, err);
    gd_input_close(in);
    if (st == GPUDIAG_OK && r.s->count == 0)
        st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, -1, "a summary with no rank");
    if (st != GPUDIAG_OK) {
        gpudiag_summary_free(&r.s);
        return st;
    }
    *out = r.s;
    return GPUDIAG_OK;
}

gpudiag_status gpudiag_summary_read(const char *path, gpudiag_summary **out, gpudiag_error *err)
{
    if (!path || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "gpudiag_summary_read: NULL path or out");
    *out = NULL;
    gd_input in;
    if (gd_input_open(&in, path) != 0)
        return gd_set_error(err, in.oom ? GPUDIAG_ERR_NOMEM : GPUDIAG_ERR_IO, path, -1, "%s", in.message);
    /* a file is read again for each report when the job view is written (memory bounded by the
     * largest report); standard input and FIFOs cannot be: their reports are kept */
    struct stat sb;
    int again = strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
    return read_input(&in, path, !again, out, err);
}

gpudiag_status gd_summary_read_fp(FILE *fp, const char *path, gpudiag_summary **out, gpudiag_error *err)
{
    *out = NULL;
    gd_input in;
    if (gd_input_open_fp(&in, fp, 0) != 0)
        return gd_set_error(err, in.oom ? GPUDIAG_ERR_NOMEM : GPUDIAG_ERR_FORMAT, path, -1, "%s", in.message);
    return read_input(&in, path, 1, out, err);
}

/* The span [off, off+len) of the decompressed stream of `path` into buf. */
static int read_span(const char *path, uint64_t off, size_t len, char *buf)
{
    gd_input in;
    if (gd_input_open(&in, path) != 0)
        return -1;
    if (!in.is_gz && fseeko(in.fp, (off_t)off, SEEK_SET) == 0) {
        size_t got = fread(buf, 1, len, in.fp);
        gd_input_close(&in);
        return got == len ? 0 : -1;
    }
    unsigned char skip[1 << 16];
    uint64_t pos = 0;
    size_t have = 0;
    while (have < len) {
        size_t got = 0;
        if (gd_input_read(&in, skip, sizeof skip, &got) != GD_IN_OK)
            break;
        for (size_t i = 0; i < got && have < len; i++, pos++)
            if (pos >= off)
                buf[have++] = (char)skip[i];
    }
    gd_input_close(&in);
    return have == len ? 0 : -1;
}

gpudiag_status gd_summary_rank_text(const gd_summary_rank *k, char **text, size_t *len, int *owned,
                                    gpudiag_error *err)
{
    *owned = 0;
    if (k->report) {
        *text = k->report;
        *len = k->report_len;
        return GPUDIAG_OK;
    }
    if (!k->src || k->span > SIZE_MAX - 1)
        return gd_set_error(err, GPUDIAG_ERR_INTERNAL, NULL, -1, "a rank without its report");
    char *buf = malloc((size_t)k->span + 1);
    if (!buf)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, k->src, -1, "out of memory");
    if (read_span(k->src, k->off, (size_t)k->span, buf) != 0) {
        free(buf);
        return gd_set_error(err, GPUDIAG_ERR_IO, k->src, (int64_t)k->off,
                            "cannot read this rank's report again (did the file change while merging?)");
    }
    buf[k->span] = '\0';
    *text = buf;
    *len = (size_t)k->span;
    *owned = 1;
    return GPUDIAG_OK;
}
