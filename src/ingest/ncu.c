/*
 * ncu.c — reader for Nsight Compute CSV exports (`ncu --csv --page raw`), the
 * input of `gpudiag analyze --ncu FILE` (include/gpudiag/roofline.h;
 * docs/DEFINITIONS.md "Roofline of the kernels").
 *
 * The file is small (one row per profiled launch) and read whole.  RFC 4180
 * quoting ("" inside quotes, line breaks inside quotes); lines starting with
 * "==" before the header (==PROF== messages when ncu wrote to stdout) are
 * skipped.  Errors name the line and its byte offset.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudiag/roofline.h"
#include "util/util.h"

#define NCU_MAX_BYTES (256u << 20)

typedef struct rec {
    char **f;
    size_t n, cap;
    int line;        /* line where the record starts */
    size_t offset;   /* its byte offset */
} rec;

static void rec_clear(rec *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->f[i]);
    r->n = 0;
}

static int rec_push(rec *r, const char *s, size_t len)
{
    if (r->n == r->cap) {
        size_t nc = r->cap ? r->cap * 2 : 32;
        char **nf = realloc(r->f, nc * sizeof *nf);
        if (!nf)
            return -1;
        r->f = nf;
        r->cap = nc;
    }
    char *c = malloc(len + 1);
    if (!c)
        return -1;
    memcpy(c, s, len);
    c[len] = '\0';
    r->f[r->n++] = c;
    return 0;
}

/* Read the record at *pos into r.  Returns 1 (a record), 0 (end of input),
 * -1 (out of memory), -2 (a quote not closed). */
static int next_record(const char *d, size_t len, size_t *pos, int *line, rec *r, char *scratch)
{
    rec_clear(r);
    size_t p = *pos;
    if (p >= len)
        return 0;
    r->line = *line;
    r->offset = p;
    for (;;) {
        size_t k = 0;
        if (p < len && d[p] == '"') {
            p++;
            for (;;) {
                if (p >= len)
                    return -2;
                if (d[p] == '"') {
                    if (p + 1 < len && d[p + 1] == '"') {
                        scratch[k++] = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                if (d[p] == '\n')
                    (*line)++;
                scratch[k++] = d[p++];
            }
            /* anything up to the separator after the closing quote is kept */
            while (p < len && d[p] != ',' && d[p] != '\n' && d[p] != '\r')
                scratch[k++] = d[p++];
        } else {
            while (p < len && d[p] != ',' && d[p] != '\n' && d[p] != '\r')
                scratch[k++] = d[p++];
        }
        if (rec_push(r, scratch, k) != 0)
            return -1;
        if (p < len && d[p] == ',') {
            p++;
            continue;
        }
        if (p < len && d[p] == '\r')
            p++;
        if (p < len && d[p] == '\n')
            p++;
        (*line)++;
        break;
    }
    *pos = p;
    return 1;
}

static int blank(const rec *r)
{
    return r->n == 1 && r->f[0][0] == '\0';
}

static int col(const rec *h, const char *name)
{
    for (size_t i = 0; i < h->n; i++)
        if (strcmp(h->f[i], name) == 0)
            return (int)i;
    return -1;
}

/* The FLOP instruction metric of precision p ('d', 'f', 'h') and op ("add",
 * "mul", "fma"), by Nsight Compute's name (sm__ first, else smsp__). */
static int flop_col(const rec *h, char p, const char *op)
{
    char b[96];
    snprintf(b, sizeof b, "sm__sass_thread_inst_executed_op_%c%s_pred_on.sum", p, op);
    int c = col(h, b);
    if (c >= 0)
        return c;
    snprintf(b, sizeof b, "smsp__sass_thread_inst_executed_op_%c%s_pred_on.sum", p, op);
    return col(h, b);
}

/* Scale of a units-row entry: SI prefix (K, M, G, T: powers of 1000) on
 * "byte", "inst" or anything else; times to µs.  -1 when not understood. */
static double unit_scale(const char *u)
{
    if (!u[0])
        return 1;
    if (strcmp(u, "nsecond") == 0)
        return 1e-3;
    if (strcmp(u, "usecond") == 0)
        return 1;
    if (strcmp(u, "msecond") == 0)
        return 1e3;
    if (strcmp(u, "second") == 0)
        return 1e6;
    double m = 1;
    switch (u[0]) {
    case 'K': m = 1e3; u++; break;
    case 'M': m = 1e6; u++; break;
    case 'G': m = 1e9; u++; break;
    case 'T': m = 1e12; u++; break;
    default: break;
    }
    if (strcmp(u, "byte") == 0 || strcmp(u, "inst") == 0 || strcmp(u, "cycle") == 0)
        return m;
    return -1;
}

static gpudiag_status fail(gpudiag_error *err, gpudiag_status code, const char *path, const rec *r, const char *fmt,
                           ...) GD_ATTR_PRINTF(5, 6);
static gpudiag_status fail(gpudiag_error *err, gpudiag_status code, const char *path, const rec *r, const char *fmt,
                           ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r)
        return gd_set_error(err, code, path, (int64_t)r->offset, "line %d: %s", r->line, msg);
    return gd_set_error(err, code, path, -1, "%s", msg);
}

/* A value: thousands separators and spaces dropped; "", "n/a" -> NaN.
 * Returns 0, or -1 when it is not a number. */
static int value(const char *s, double scale, double *out)
{
    char b[128];
    size_t k = 0;
    for (; *s && k + 1 < sizeof b; s++)
        if (*s != ',' && *s != ' ')
            b[k++] = *s;
    b[k] = '\0';
    if (!b[0] || strcmp(b, "n/a") == 0 || strcmp(b, "N/A") == 0) {
        *out = NAN;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(b, &end);
    if (*end || errno == ERANGE || !isfinite(v) || v < 0)
        return -1;
    *out = v * scale;
    return 0;
}

void gpudiag_ncu_free(gpudiag_ncu **np)
{
    if (!np || !*np)
        return;
    gpudiag_ncu *n = *np;
    for (size_t i = 0; i < n->count; i++)
        free(n->kernels[i].name);
    free(n->kernels);
    free(n->path);
    free(n);
    *np = NULL;
}

gpudiag_status gpudiag_ncu_read(const char *path, gpudiag_ncu **out, gpudiag_error *err)
{
    if (!path || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, path, -1, "gpudiag_ncu_read: NULL path or out");
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp) /* fopen allocates: ENOMEM is ours to report as such (exit 5, not 3) */
        return errno == ENOMEM ? gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory")
                               : gd_set_error(err, GPUDIAG_ERR_IO, path, -1, "cannot open: %s", strerror(errno));
    size_t len = 0, dcap = 0;
    char *d = NULL;
    int rerr = 0, toobig = 0;
    for (;;) {
        if (len == dcap) {
            size_t nc = dcap ? dcap * 2 : 65536;
            char *nd = realloc(d, nc + 1);
            if (!nd) {
                free(d);
                fclose(fp);
                return gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
            }
            d = nd;
            dcap = nc;
        }
        size_t got = fread(d + len, 1, dcap - len, fp);
        len += got;
        if (len > NCU_MAX_BYTES) {
            toobig = 1;
            break;
        }
        if (got == 0) {
            rerr = ferror(fp);
            break;
        }
    }
    fclose(fp);
    if (rerr || toobig) {
        free(d);
        return rerr ? gd_set_error(err, GPUDIAG_ERR_IO, path, -1, "read error")
                    : gd_set_error(err, GPUDIAG_ERR_FORMAT, path, -1, "larger than 256 MiB: not an Nsight Compute CSV");
    }
    char *scratch = malloc(len + 1);
    gpudiag_ncu *n = calloc(1, sizeof *n);
    rec h = {0}, r = {0};
    gpudiag_status st = GPUDIAG_OK;
    size_t cap = 0;
    if (!scratch || !n || !(n->path = gd_strdup(path))) {
        st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
        goto done;
    }
    size_t pos = 0;
    int line = 1, rc;
    if (len >= 3 && (unsigned char)d[0] == 0xEF && (unsigned char)d[1] == 0xBB && (unsigned char)d[2] == 0xBF)
        pos = 3; /* UTF-8 byte-order mark */
    /* the header: the first record that is not blank and not an ==PROF== line */
    for (;;) {
        rc = next_record(d, len, &pos, &line, &h, scratch);
        if (rc <= 0)
            break;
        if (!blank(&h) && strncmp(h.f[0], "==", 2) != 0)
            break;
    }
    if (rc == -1) {
        st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
        goto done;
    }
    if (rc == -2) {
        st = fail(err, GPUDIAG_ERR_FORMAT, path, &h, "a quoted field is not closed");
        goto done;
    }
    if (rc == 0) {
        st = fail(err, GPUDIAG_ERR_FORMAT, path, NULL, "empty: not an Nsight Compute CSV (ncu --csv --page raw)");
        goto done;
    }
    int c_name = col(&h, "Kernel Name"), c_id = col(&h, "ID");
    if (c_name < 0) {
        st = fail(err, GPUDIAG_ERR_FORMAT, path, &h,
                  "no \"Kernel Name\" column: not an Nsight Compute CSV (ncu --csv --page raw)");
        goto done;
    }
    static const char prec[3] = {'d', 'f', 'h'};
    static const char *const ops[3] = {"add", "mul", "fma"};
    int c_flop[3][3], any_flop = 0;
    for (int p = 0; p < 3; p++)
        for (int o = 0; o < 3; o++) {
            c_flop[p][o] = flop_col(&h, prec[p], ops[o]);
            any_flop |= c_flop[p][o] >= 0;
        }
    int c_bytes = col(&h, "dram__bytes.sum");
    int c_rd = col(&h, "dram__bytes_read.sum"), c_wr = col(&h, "dram__bytes_write.sum");
    int c_time = col(&h, "gpu__time_duration.sum");
    if (!any_flop) { /* DRAM bytes alone give no point on a roofline: 0 FLOPs would be a wrong one */
        st = fail(err, GPUDIAG_ERR_FORMAT, path, &h,
                  "no FLOP metric (the roofline needs FLOPs; DRAM bytes alone are not enough): collect sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum "
                  "and dram__bytes.sum (ncu --metrics ... --csv --page raw)");
        goto done;
    }
    double scale[512];
    for (size_t i = 0; i < h.n && i < 512; i++)
        scale[i] = 1;
    if (h.n > 512) {
        st = fail(err, GPUDIAG_ERR_FORMAT, path, &h, "more than 512 columns");
        goto done;
    }
    int first = 1;
    for (;;) {
        rc = next_record(d, len, &pos, &line, &r, scratch);
        if (rc == 0)
            break;
        if (rc == -1) {
            st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
            goto done;
        }
        if (rc == -2) {
            st = fail(err, GPUDIAG_ERR_FORMAT, path, &r, "a quoted field is not closed");
            goto done;
        }
        if (blank(&r))
            continue;
        if (r.n != h.n) {
            st = fail(err, GPUDIAG_ERR_FORMAT, path, &r, "%zu fields, but the header (line %d) has %zu", r.n, h.line,
                      h.n);
            goto done;
        }
        if (first && r.f[c_name][0] == '\0' && (c_id < 0 || r.f[c_id][0] == '\0')) {
            /* the units row */
            first = 0;
            for (size_t i = 0; i < r.n; i++) {
                double s = unit_scale(r.f[i]);
                int used = (int)i == c_bytes || (int)i == c_rd || (int)i == c_wr || (int)i == c_time;
                for (int p = 0; p < 3; p++)
                    for (int o = 0; o < 3; o++)
                        used |= (int)i == c_flop[p][o];
                if (s < 0 && used) {
                    st = fail(err, GPUDIAG_ERR_FORMAT, path, &r, "column \"%s\": unit \"%s\" not understood", h.f[i],
                              r.f[i]);
                    goto done;
                }
                scale[i] = s < 0 ? 1 : s;
            }
            if (c_time >= 0 && r.f[c_time][0] == '\0')
                scale[c_time] = 1e-3; /* no unit: ncu's base unit, ns */
            continue;
        }
        if (first && c_time >= 0)
            scale[c_time] = 1e-3; /* no units row: base units (ns) */
        first = 0;
        if (n->count == cap) {
            size_t nc = cap ? cap * 2 : 64;
            gpudiag_ncu_kernel *nk = realloc(n->kernels, nc * sizeof *nk);
            if (!nk) {
                st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
                goto done;
            }
            n->kernels = nk;
            cap = nc;
        }
        gpudiag_ncu_kernel *k = &n->kernels[n->count];
        memset(k, 0, sizeof *k);
        k->id = -1;
        double v;
        int bad = -1;
        if (c_id >= 0) {
            if (value(r.f[c_id], 1, &v) != 0 || v > 9007199254740992.0) /* an ID beyond 2^53 is no ID */
                bad = c_id;
            else if (!isnan(v))
                k->id = (int64_t)v;
        }
        double fl[3] = {0, 0, 0};
        for (int p = 0; p < 3 && bad < 0; p++)
            for (int o = 0; o < 3 && bad < 0; o++) {
                int c = c_flop[p][o];
                if (c < 0)
                    continue;
                if (value(r.f[c], scale[c], &v) != 0)
                    bad = c;
                else if (!isnan(v))
                    fl[p] += (o == 2 ? 2.0 : 1.0) * v; /* an FMA is two FLOPs */
            }
        k->bytes = NAN;
        if (bad < 0 && c_bytes >= 0 && value(r.f[c_bytes], scale[c_bytes], &k->bytes) != 0)
            bad = c_bytes;
        if (bad < 0 && c_bytes < 0 && c_rd >= 0 && c_wr >= 0) {
            double a, b;
            if (value(r.f[c_rd], scale[c_rd], &a) != 0)
                bad = c_rd;
            else if (value(r.f[c_wr], scale[c_wr], &b) != 0)
                bad = c_wr;
            else
                k->bytes = a + b;
        }
        k->time_us = NAN;
        if (bad < 0 && c_time >= 0 && value(r.f[c_time], scale[c_time], &k->time_us) != 0)
            bad = c_time;
        if (bad >= 0) {
            st = fail(err, GPUDIAG_ERR_FORMAT, path, &r, "column \"%s\": \"%.60s\" is not a number >= 0", h.f[bad],
                      r.f[bad]);
            goto done;
        }
        k->flops_fp64 = fl[0];
        k->flops_fp32 = fl[1];
        k->flops_fp16 = fl[2];
        k->name = gd_strdup(r.f[c_name]);
        if (!k->name) {
            st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
            goto done;
        }
        n->count++;
    }
    if (n->count == 0)
        st = fail(err, GPUDIAG_ERR_FORMAT, path, NULL, "no kernel rows after the header (line %d)", h.line);
done:
    rec_clear(&h);
    rec_clear(&r);
    free(h.f);
    free(r.f);
    free(scratch);
    free(d);
    if (st != GPUDIAG_OK)
        gpudiag_ncu_free(&n);
    else
        *out = n;
    return st;
}
