/*
 * saved.c — read a saved gpudiag JSON report (gpudiag.report/1, or
 * gpudiag.cluster/1 whose reports[] are the ranks of one job) back as one side
 * of a comparison, with yajl's tree API.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "analyze/compare_side.h"
#include "gpudiag/compare.h"
#include "gpudiag/summary.h"
#include "ingest/input.h"
#include "util/util.h"

#define SAVED_MAX_BYTES (1u << 30)

int gpudiag_side_sniff_json(const char *head, size_t len)
{
    size_t i = 0;
    if (len >= 3 && (unsigned char)head[0] == 0xEF && (unsigned char)head[1] == 0xBB && (unsigned char)head[2] == 0xBF)
        i = 3;
    while (i < len && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
        i++;
    if (i >= len || head[i] != '{')
        return 0;
    /* "schema" then optional blanks, ':' and blanks, then "gpudiag. */
    static const char key[] = "\"schema\"";
    for (; i + sizeof key - 1 <= len; i++) {
        if (memcmp(head + i, key, sizeof key - 1) != 0)
            continue;
        size_t j = i + sizeof key - 1;
        while (j < len && (head[j] == ' ' || head[j] == '\n' || head[j] == '\r' || head[j] == '\t' || head[j] == ':'))
            j++;
        return j + 9 <= len && memcmp(head + j, "\"gpudiag.", 9) == 0;
    }
    return 0;
}

static yajl_val get(yajl_val v, const char *a, const char *b, const char *c)
{
    const char *path[4] = {a, b, c, NULL};
    return v ? yajl_tree_get(v, path, yajl_t_any) : NULL;
}

static double num(yajl_val v)
{
    return YAJL_IS_NUMBER(v) ? YAJL_GET_DOUBLE(v) : NAN;
}

static int severity_of(const char *s)
{
    for (int i = GPUDIAG_SEV_INFO; s && i <= GPUDIAG_SEV_HIGH; i++)
        if (strcmp(s, gpudiag_severity_name((gpudiag_severity)i)) == 0)
            return i;
    return -1;
}

/* ---- validation: a saved report is input like any other (issue 19 class 18) ----
 * Every field compare reads is checked for its type and the range analyze can
 * write (docs/REPORT.md): a hand-edited or corrupted report is refused with
 * the field named (exit 3), never compared as if it were measured. */

typedef struct vctx {
    const char *path;     /* the file, for the message */
    const char *prefix;   /* "" or "reports[2]." for a cluster document */
    gpudiag_error *err;
} vctx;

static const char *type_name(yajl_val v)
{
    return YAJL_IS_STRING(v)   ? "a string"
           : YAJL_IS_NUMBER(v) ? "a number"
           : YAJL_IS_OBJECT(v) ? "an object"
           : YAJL_IS_ARRAY(v)  ? "an array"
           : YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v) ? "a boolean"
                                                 : "null";
}

static int vfail(const vctx *c, const char *field, const char *want, yajl_val v)
{
    char got[64];
    if (v && YAJL_IS_NUMBER(v))
        snprintf(got, sizeof got, "%.10g", YAJL_GET_DOUBLE(v));
    else
        snprintf(got, sizeof got, "%s", v ? type_name(v) : "nothing");
    gd_set_error(c->err, GPUDIAG_ERR_FORMAT, c->path, -1, "not a valid saved gpudiag report: %s%s wants %s, got %s",
                 c->prefix, field, want, got);
    return -1;
}

/* A number field: absent is allowed unless required; null when nullable;
 * else finite, in [lo, hi], whole when integer. */
static int vnum(const vctx *c, yajl_val v, const char *field, double lo, double hi, int integer, int nullable,
                int required)
{
    char want[96];
    snprintf(want, sizeof want, "%s in [%g, %g]%s", integer ? "a whole number" : "a number", lo, hi,
             nullable ? " or null" : "");
    if (!v)
        return required ? vfail(c, field, want, v) : 0;
    if (YAJL_IS_NULL(v))
        return nullable ? 0 : vfail(c, field, want, v);
    if (!YAJL_IS_NUMBER(v))
        return vfail(c, field, want, v);
    double x = YAJL_GET_DOUBLE(v);
    if (!isfinite(x) || x < lo || x > hi || (integer && x != floor(x)))
        return vfail(c, field, want, v);
    return 0;
}

#define MAX_US 1e15 /* 31 years in µs: beyond it a duration is corrupt */

static int validate(const vctx *c, yajl_val d)
{
    char f[128];
    yajl_val steps = get(d, "steps", NULL, NULL);
    for (size_t i = 0; i < steps->u.array.len; i++) {
        yajl_val st = steps->u.array.values[i];
        snprintf(f, sizeof f, "steps[%zu]", i);
        if (!YAJL_IS_OBJECT(st))
            return vfail(c, f, "an object", st);
        snprintf(f, sizeof f, "steps[%zu].duration_us", i);
        if (vnum(c, get(st, "duration_us", NULL, NULL), f, 0, MAX_US, 0, 0, 1))
            return -1;
        snprintf(f, sizeof f, "steps[%zu].number", i);
        if (vnum(c, get(st, "number", NULL, NULL), f, 0, 9007199254740992.0, 1, 1, 0))
            return -1;
        snprintf(f, sizeof f, "steps[%zu].breakdown_us.kernel", i);
        if (vnum(c, get(st, "breakdown_us", "kernel", NULL), f, 0, MAX_US, 0, 1, 0))
            return -1;
        snprintf(f, sizeof f, "steps[%zu].startup_idle_us", i);
        if (vnum(c, get(st, "startup_idle_us", NULL, NULL), f, 0, MAX_US, 0, 1, 0))
            return -1;
        snprintf(f, sizeof f, "steps[%zu].unexplained_tail_us", i);
        if (vnum(c, get(st, "unexplained_tail_us", NULL, NULL), f, 0, MAX_US, 0, 1, 0))
            return -1;
    }
    static const char *const shares[] = {"gpu_utilization", "sm_efficiency", "achieved_occupancy",
                                         "tensor_core_share", "idle_share", "comm_share"};
    for (size_t i = 0; i < sizeof shares / sizeof shares[0]; i++) {
        snprintf(f, sizeof f, "summary.%s", shares[i]);
        if (vnum(c, get(d, "summary", shares[i], NULL), f, 0, 1, 0, 1, 0))
            return -1;
    }
    if (vnum(c, get(d, "summary", "mfu", NULL), "summary.mfu", 0, 1e6, 0, 1, 0))
        return -1;
    for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++) {
        const char *nm = gpudiag_role_name((gpudiag_role)i);
        snprintf(f, sizeof f, "breakdown.share.%s", nm);
        if (vnum(c, get(d, "breakdown", "share", nm), f, 0, 1, 0, 1, 0))
            return -1;
    }
    for (int i = 0; i < GPUDIAG_IDLE_CAUSE_COUNT; i++) {
        const char *nm = gpudiag_idle_cause_name((gpudiag_idle_cause)i);
        snprintf(f, sizeof f, "idle.by_cause_share_of_step.%s", nm);
        if (vnum(c, get(d, "idle", "by_cause_share_of_step", nm), f, 0, 1, 0, 1, 0))
            return -1;
    }
    yajl_val fs = get(d, "findings", NULL, NULL);
    if (fs && !YAJL_IS_ARRAY(fs))
        return vfail(c, "findings", "an array", fs);
    for (size_t i = 0; fs && i < fs->u.array.len; i++) {
        yajl_val x = fs->u.array.values[i];
        snprintf(f, sizeof f, "findings[%zu]", i);
        if (!YAJL_IS_OBJECT(x))
            return vfail(c, f, "an object", x);
        yajl_val id = get(x, "id", NULL, NULL), sev = get(x, "severity", NULL, NULL);
        snprintf(f, sizeof f, "findings[%zu].id", i);
        if (!YAJL_IS_STRING(id) || !YAJL_GET_STRING(id)[0])
            return vfail(c, f, "a finding id (a non-empty string)", id);
        snprintf(f, sizeof f, "findings[%zu].severity", i);
        if (!YAJL_IS_STRING(sev) || severity_of(YAJL_GET_STRING(sev)) < 0)
            return vfail(c, f, "one of info, low, medium, high", sev);
        snprintf(f, sizeof f, "findings[%zu].est_gain", i);
        if (vnum(c, get(x, "est_gain", NULL, NULL), f, 0, 1, 0, 1, 0))
            return -1;
    }
    yajl_val top = get(d, "kernels", "top", NULL);
    if (top && !YAJL_IS_ARRAY(top))
        return vfail(c, "kernels.top", "an array", top);
    for (size_t i = 0; top && i < top->u.array.len; i++) {
        yajl_val x = top->u.array.values[i];
        snprintf(f, sizeof f, "kernels.top[%zu]", i);
        if (!YAJL_IS_OBJECT(x))
            return vfail(c, f, "an object", x);
        yajl_val name = get(x, "name", NULL, NULL);
        snprintf(f, sizeof f, "kernels.top[%zu].name", i);
        if (!YAJL_IS_STRING(name))
            return vfail(c, f, "a string", name);
        snprintf(f, sizeof f, "kernels.top[%zu].calls", i);
        if (vnum(c, get(x, "calls", NULL, NULL), f, 0, 9007199254740992.0, 1, 0, 1))
            return -1;
        snprintf(f, sizeof f, "kernels.top[%zu].total_us", i);
        if (vnum(c, get(x, "total_us", NULL, NULL), f, 0, MAX_US, 0, 0, 1))
            return -1;
    }
    return vnum(c, get(d, "kernels", "distinct", NULL), "kernels.distinct", 0, 9007199254740992.0, 1, 1, 0);
}

/* One gpudiag.report/1 object -> a side.  NULL with *bad set on a schema
 * problem (message in err), NULL without on OOM.  prefix: "" or the
 * "reports[i]." of a cluster document, for messages. */
static gpudiag_side *side_from_tree(yajl_val d, const char *label, const char *path, const char *prefix,
                                    gpudiag_error *err, int *bad)
{
    *bad = 0;
    const char *schema = YAJL_GET_STRING(get(d, "schema", NULL, NULL));
    yajl_val steps = get(d, "steps", NULL, NULL);
    if (!schema || strcmp(schema, GPUDIAG_REPORT_SCHEMA) != 0 || !YAJL_IS_ARRAY(steps)) {
        *bad = 1;
        gd_set_error(err, GPUDIAG_ERR_FORMAT, path, -1,
                     "not a saved gpudiag report: %swants schema \"%s\" with a steps array (got schema %s)", prefix,
                     GPUDIAG_REPORT_SCHEMA, schema ? schema : "none");
        return NULL;
    }
    vctx vc = {path, prefix, err};
    if (validate(&vc, d) != 0) {
        *bad = 1;
        return NULL;
    }
    gpudiag_side *s = gd_side_new(label);
    if (!s || gd_side_alloc_steps(s, steps->u.array.len) != 0)
        goto oom;
    size_t m = 0;
    double *su = malloc((steps->u.array.len + 1) * sizeof *su), *tl = malloc((steps->u.array.len + 1) * sizeof *tl);
    if (!su || !tl) {
        free(su);
        free(tl);
        goto oom;
    }
    for (size_t i = 0; i < steps->u.array.len; i++) {
        yajl_val st = steps->u.array.values[i];
        double dur = num(get(st, "duration_us", NULL, NULL));
        if (isnan(dur))
            continue;
        yajl_val no = get(st, "number", NULL, NULL);
        s->step_us[m] = dur;
        s->step_no[m] = YAJL_IS_INTEGER(no) ? YAJL_GET_INTEGER(no) : -1;
        double k = num(get(st, "breakdown_us", "kernel", NULL));
        s->step_util[m] = dur > 0 ? k / dur : NAN;
        su[m] = num(get(st, "startup_idle_us", NULL, NULL)); /* NaN in reports saved before the rule */
        tl[m] = num(get(st, "unexplained_tail_us", NULL, NULL));
        m++;
    }
    s->nsteps = m;
    gd_side_steady(s, su, tl);
    free(su);
    free(tl);
    s->gpu_utilization = num(get(d, "summary", "gpu_utilization", NULL));
    s->sm_efficiency = num(get(d, "summary", "sm_efficiency", NULL));
    s->achieved_occupancy = num(get(d, "summary", "achieved_occupancy", NULL));
    s->tensor_core_share = num(get(d, "summary", "tensor_core_share", NULL));
    s->idle_share = num(get(d, "summary", "idle_share", NULL));
    s->comm_share = num(get(d, "summary", "comm_share", NULL));
    s->mfu = num(get(d, "summary", "mfu", NULL));
    for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++)
        s->role_share[i] = num(get(d, "breakdown", "share", gpudiag_role_name((gpudiag_role)i)));
    for (int i = 0; i < GPUDIAG_IDLE_CAUSE_COUNT; i++)
        s->idle_cause_share[i] =
            num(get(d, "idle", "by_cause_share_of_step", gpudiag_idle_cause_name((gpudiag_idle_cause)i)));
    yajl_val f = get(d, "findings", NULL, NULL);
    size_t nf = YAJL_IS_ARRAY(f) ? f->u.array.len : 0;
    s->find = calloc(nf + 1, sizeof *s->find);
    if (!s->find)
        goto oom;
    for (size_t i = 0; i < nf; i++) {
        yajl_val x = f->u.array.values[i];
        const char *id = YAJL_GET_STRING(get(x, "id", NULL, NULL));
        if (!id)
            continue;
        const char *title = YAJL_GET_STRING(get(x, "title", NULL, NULL));
        gd_side_finding *g = &s->find[s->nfind];
        g->id = gd_strdup(id);
        g->title = gd_strdup(title ? title : "");
        g->severity = severity_of(YAJL_GET_STRING(get(x, "severity", NULL, NULL)));
        if (g->severity < 0)
            g->severity = GPUDIAG_SEV_INFO;
        g->est_gain = num(get(x, "est_gain", NULL, NULL));
        if (!g->id || !g->title) {
            free(g->id);
            free(g->title);
            goto oom;
        }
        s->nfind++;
    }
    yajl_val top = get(d, "kernels", "top", NULL);
    size_t nk = YAJL_IS_ARRAY(top) ? top->u.array.len : 0;
    s->kern = calloc(nk + 1, sizeof *s->kern);
    if (!s->kern)
        goto oom;
    for (size_t i = 0; i < nk; i++) {
        yajl_val x = top->u.array.values[i];
        const char *name = YAJL_GET_STRING(get(x, "name", NULL, NULL));
        double calls = num(get(x, "calls", NULL, NULL)), us = num(get(x, "total_us", NULL, NULL));
        if (!name || isnan(calls) || isnan(us))
            continue;
        gd_side_kernel *k = &s->kern[s->nkern];
        if (!(k->name = gd_strdup(name)))
            goto oom;
        k->calls = calls;
        k->total_us = us;
        s->nkern++;
    }
    double distinct = num(get(d, "kernels", "distinct", NULL));
    s->kernels_partial = isnan(distinct) || distinct > (double)s->nkern;
    return s;
oom:
    gpudiag_side_free(&s);
    gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
    return NULL;
}

gpudiag_status gpudiag_side_read_json(const char *path, gpudiag_side **out, gpudiag_error *err)
{
    if (!path || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "gpudiag_side_read_json: NULL path or out");
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return gd_set_error(err, GPUDIAG_ERR_IO, path, -1, "cannot open: %s", strerror(errno));
    gpudiag_status st = gd_side_read_json_fp(fp, path, out, err);
    fclose(fp);
    return st;
}

gpudiag_status gd_side_read_json_fp(FILE *fp, const char *path, gpudiag_side **out, gpudiag_error *err)
{
    *out = NULL;
    gd_input in; /* plain or gzip (--save FILE.json.gz), told by the content */
    if (gd_input_open_fp(&in, fp, 0) != 0)
        return gd_set_error(err, in.oom ? GPUDIAG_ERR_NOMEM : GPUDIAG_ERR_IO, path, -1, "%s", in.message);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    gd_input_status rs = GD_IN_OK;
    while (buf) {
        if (len + 1 >= cap) {
            if (cap >= SAVED_MAX_BYTES) {
                free(buf);
                gd_input_close(&in);
                return gd_set_error(err, GPUDIAG_ERR_FORMAT, path, (int64_t)len,
                                    "a saved report larger than 1 GiB is not a gpudiag report");
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = 0;
        /* cppcheck-suppress nullPointerArithmeticRedundantCheck ; the loop runs only while buf is set */
        rs = gd_input_read(&in, (unsigned char *)buf + len, cap - 1 - len, &got);
        len += got;
        if (rs != GD_IN_OK)
            break;
    }
    if (!buf) {
        gd_input_close(&in);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
    }
    if (rs != GD_IN_EOF) {
        free(buf);
        gpudiag_status st = gd_set_error(err, rs == GD_IN_IOERR ? GPUDIAG_ERR_IO : GPUDIAG_ERR_FORMAT, path,
                                         (int64_t)len, "%s", in.message[0] ? in.message : "read error");
        gd_input_close(&in);
        return st;
    }
    gd_input_close(&in);
    buf[len] = '\0';
    gpudiag_status st = gd_side_parse_json(buf, len, path, out, err);
    free(buf);
    return st;
}

/* The byte offset where buf stops being valid JSON (the tree API does not
 * say): a callback-free parse of the same bytes; len when it ends early (a
 * report cut short, e.g. by a full disk); -1 when unknown. */
static int64_t json_error_offset(const char *buf, size_t len)
{
    yajl_handle h = yajl_alloc(NULL, NULL, NULL);
    if (!h)
        return -1;
    yajl_config(h, yajl_allow_comments, 1); /* as yajl_tree_parse */
    int64_t at = -1;
    if (yajl_parse(h, (const unsigned char *)buf, len) != yajl_status_ok)
        at = (int64_t)yajl_get_bytes_consumed(h);
    else if (yajl_complete_parse(h) != yajl_status_ok)
        at = (int64_t)len;
    yajl_free(h);
    return at;
}

gpudiag_status gd_side_parse_json(const char *buf, size_t len, const char *path, gpudiag_side **out,
                                  gpudiag_error *err)
{
    *out = NULL;
    if (memchr(buf, '\0', len))
        return gd_set_error(err, GPUDIAG_ERR_FORMAT, path, (int64_t)strlen(buf), "a NUL byte inside a saved JSON report");
    char ebuf[512];
    ebuf[0] = '\0';
    yajl_val d = yajl_tree_parse(buf, ebuf, sizeof ebuf);
    if (!d) {
        /* yajl's message names the byte ("... at byte N" is not part of the tree API's text) */
        char *nl = strchr(ebuf, '\n');
        if (nl)
            *nl = '\0';
        int nomem = ebuf[0] && strstr(ebuf, "memory");
        return gd_set_error(err, nomem ? GPUDIAG_ERR_NOMEM : GPUDIAG_ERR_FORMAT, path,
                            nomem ? -1 : json_error_offset(buf, len), "not valid JSON: %s",
                            ebuf[0] ? ebuf : "parse error");
    }
    gpudiag_status st = GPUDIAG_OK;
    const char *schema = YAJL_GET_STRING(get(d, "schema", NULL, NULL));
    int bad = 0;
    int summary = schema && strcmp(schema, GPUDIAG_SUMMARY_SCHEMA) == 0;
    if (summary || (schema && strcmp(schema, GPUDIAG_CLUSTER_SCHEMA) == 0)) {
        /* a cluster's reports[], or a per-rank summary's ranks[].report (gpudiag/summary.h) */
        yajl_val reps = get(d, summary ? "ranks" : "reports", NULL, NULL);
        size_t n = YAJL_IS_ARRAY(reps) ? reps->u.array.len : 0;
        if (n == 0) {
            st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, -1,
                              summary ? "a summary without ranks[]" : "a saved cluster report without reports[]");
        } else {
            gpudiag_side **rs = calloc(n, sizeof *rs);
            if (!rs)
                st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
            for (size_t i = 0; rs && i < n && st == GPUDIAG_OK; i++) {
                char prefix[48];
                snprintf(prefix, sizeof prefix, summary ? "ranks[%zu].report." : "reports[%zu].", i);
                yajl_val one = reps->u.array.values[i];
                if (summary)
                    one = get(one, "report", NULL, NULL); /* not inside YAJL_IS_OBJECT: it reads its argument twice */
                if (summary && !YAJL_IS_OBJECT(one)) {
                    st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, -1, "ranks[%zu] of a summary without its report",
                                      i);
                    break;
                }
                rs[i] = side_from_tree(one, path, path, prefix, err, &bad);
                if (!rs[i])
                    st = bad ? GPUDIAG_ERR_FORMAT : GPUDIAG_ERR_NOMEM;
            }
            if (st == GPUDIAG_OK) {
                *out = gd_side_combine_ranks(rs, n, path);
                if (!*out)
                    st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
            }
            for (size_t i = 0; rs && i < n; i++)
                gpudiag_side_free(&rs[i]);
            free(rs);
        }
    } else {
        *out = side_from_tree(d, path, path, "", err, &bad);
        if (!*out)
            st = bad ? GPUDIAG_ERR_FORMAT : GPUDIAG_ERR_NOMEM;
    }
    yajl_tree_free(d);
    return st;
}
