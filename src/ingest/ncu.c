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

/* The whole file at path into a malloc'd *data of *len bytes (+1 spare). */
static gpudiag_status read_whole(const char *path, char **data, size_t *lenp, gpudiag_error *err)
{
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
    *data = d;
    *lenp = len;
    return GPUDIAG_OK;
}

/* The columns gpudiag reads (-1: absent) and each column's unit scale. */
typedef struct ncu_cols {
    int name, id;
    int flop[3][3]; /* [d, f, h][add, mul, fma] */
    int bytes, rd, wr, time;
    double scale[512];
} ncu_cols;

/* The header: the first record that is not blank and not an ==PROF== line. */
static gpudiag_status read_header(const char *d, size_t len, size_t *pos, int *line, rec *h, char *scratch,
                                  const char *path, gpudiag_error *err)
{
    int rc;
    for (;;) {
        rc = next_record(d, len, pos, line, h, scratch);
        if (rc <= 0)
            break;
        if (!blank(h) && strncmp(h->f[0], "==", 2) != 0)
            break;
    }
    if (rc == -1)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
    if (rc == -2)
        return fail(err, GPUDIAG_ERR_FORMAT, path, h, "a quoted field is not closed");
    if (rc == 0)
        return fail(err, GPUDIAG_ERR_FORMAT, path, NULL, "empty: not an Nsight Compute CSV (ncu --csv --page raw)");
    return GPUDIAG_OK;
}

static gpudiag_status find_columns(const rec *h, ncu_cols *c, const char *path, gpudiag_error *err)
{
    c->name = col(h, "Kernel Name");
    c->id = col(h, "ID");
    if (c->name < 0)
        return fail(err, GPUDIAG_ERR_FORMAT, path, h,
                    "no \"Kernel Name\" column: not an Nsight Compute CSV (ncu --csv --page raw)");
    static const char prec[3] = {'d', 'f', 'h'};
    static const char *const ops[3] = {"add", "mul", "fma"};
    int any_flop = 0;
    for (int p = 0; p < 3; p++)
        for (int o = 0; o < 3; o++) {
            c->flop[p][o] = flop_col(h, prec[p], ops[o]);
            any_flop |= c->flop[p][o] >= 0;
        }
    c->bytes = col(h, "dram__bytes.sum");
    c->rd = col(h, "dram__bytes_read.sum");
    c->wr = col(h, "dram__bytes_write.sum");
    c->time = col(h, "gpu__time_duration.sum");
    if (!any_flop) /* DRAM bytes alone give no point on a roofline: 0 FLOPs would be a wrong one */
        return fail(err, GPUDIAG_ERR_FORMAT, path, h,
                    "no FLOP metric (the roofline needs FLOPs; DRAM bytes alone are not enough): collect sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum "
                    "and dram__bytes.sum (ncu --metrics ... --csv --page raw)");
    for (size_t i = 0; i < h->n && i < 512; i++)
        c->scale[i] = 1;
    if (h->n > 512)
        return fail(err, GPUDIAG_ERR_FORMAT, path, h, "more than 512 columns");
    return GPUDIAG_OK;
}

/* The units row: each used column's scale to gpudiag's units. */
static gpudiag_status units_row(ncu_cols *c, const rec *h, const rec *r, const char *path, gpudiag_error *err)
{
    for (size_t i = 0; i < r->n; i++) {
        double s = unit_scale(r->f[i]);
        int used = (int)i == c->bytes || (int)i == c->rd || (int)i == c->wr || (int)i == c->time;
        for (int p = 0; p < 3; p++)
            for (int o = 0; o < 3; o++)
                used |= (int)i == c->flop[p][o];
        if (s < 0 && used)
            return fail(err, GPUDIAG_ERR_FORMAT, path, r, "column \"%s\": unit \"%s\" not understood", h->f[i],
                        r->f[i]);
        c->scale[i] = s < 0 ? 1 : s;
    }
    if (c->time >= 0 && r->f[c->time][0] == '\0')
        c->scale[c->time] = 1e-3; /* no unit: ncu's base unit, ns */
    return GPUDIAG_OK;
}

/* One kernel row into *k (all but the name). */
static gpudiag_status kernel_row(const ncu_cols *c, const rec *h, const rec *r, gpudiag_ncu_kernel *k,
                                 const char *path, gpudiag_error *err)
{
    memset(k, 0, sizeof *k);
    k->id = -1;
    double v;
    int bad = -1;
    if (c->id >= 0) {
        if (value(r->f[c->id], 1, &v) != 0 || v > 9007199254740992.0) /* an ID beyond 2^53 is no ID */
            bad = c->id;
        else if (!isnan(v))
            k->id = (int64_t)v;
    }
    double fl[3] = {0, 0, 0};
    for (int p = 0; p < 3 && bad < 0; p++)
        for (int o = 0; o < 3 && bad < 0; o++) {
            int f = c->flop[p][o];
            if (f < 0)
                continue;
            if (value(r->f[f], c->scale[f], &v) != 0)
                bad = f;
            else if (!isnan(v))
                fl[p] += (o == 2 ? 2.0 : 1.0) * v; /* an FMA is two FLOPs */
        }
    k->bytes = NAN;
    if (bad < 0 && c->bytes >= 0 && value(r->f[c->bytes], c->scale[c->bytes], &k->bytes) != 0)
        bad = c->bytes;
    if (bad < 0 && c->bytes < 0 && c->rd >= 0 && c->wr >= 0) {
        double a, b;
        if (value(r->f[c->rd], c->scale[c->rd], &a) != 0)
            bad = c->rd;
        else if (value(r->f[c->wr], c->scale[c->wr], &b) != 0)
            bad = c->wr;
        else
            k->bytes = a + b;
    }
    k->time_us = NAN;
    if (bad < 0 && c->time >= 0 && value(r->f[c->time], c->scale[c->time], &k->time_us) != 0)
        bad = c->time;
    if (bad >= 0)
        return fail(err, GPUDIAG_ERR_FORMAT, path, r, "column \"%s\": \"%.60s\" is not a number >= 0", h->f[bad],
                    r->f[bad]);
    k->flops_fp64 = fl[0];
    k->flops_fp32 = fl[1];
    k->flops_fp16 = fl[2];
    return GPUDIAG_OK;
}

/* The records after the header into n->kernels. */
static gpudiag_status read_rows(const char *d, size_t len, size_t pos, int line, const rec *h, ncu_cols *c,
                                char *scratch, gpudiag_ncu *n, const char *path, gpudiag_error *err)
{
    rec r = {0};
    gpudiag_status st = GPUDIAG_OK;
    size_t cap = 0;
    int first = 1;
    for (;;) {
        int rc = next_record(d, len, &pos, &line, &r, scratch);
        if (rc == 0)
            break;
        if (rc == -1) {
            st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
            break;
        }
        if (rc == -2) {
            st = fail(err, GPUDIAG_ERR_FORMAT, path, &r, "a quoted field is not closed");
            break;
        }
        if (blank(&r))
            continue;
        if (r.n != h->n) {
            st = fail(err, GPUDIAG_ERR_FORMAT, path, &r, "%zu fields, but the header (line %d) has %zu", r.n, h->line,
                      h->n);
            break;
        }
        if (first && r.f[c->name][0] == '\0' && (c->id < 0 || r.f[c->id][0] == '\0')) {
            /* the units row */
            first = 0;
            if ((st = units_row(c, h, &r, path, err)) != GPUDIAG_OK)
                break;
            continue;
        }
        if (first && c->time >= 0)
            c->scale[c->time] = 1e-3; /* no units row: base units (ns) */
        first = 0;
        if (n->count == cap) {
            size_t nc = cap ? cap * 2 : 64;
            gpudiag_ncu_kernel *nk = realloc(n->kernels, nc * sizeof *nk);
            if (!nk) {
                st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
                break;
            }
            n->kernels = nk;
            cap = nc;
        }
        gpudiag_ncu_kernel *k = &n->kernels[n->count];
        if ((st = kernel_row(c, h, &r, k, path, err)) != GPUDIAG_OK)
            break;
        k->name = gd_strdup(r.f[c->name]);
        if (!k->name) {
            st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
            break;
        }
        n->count++;
    }
    rec_clear(&r);
    free(r.f);
    return st;
}

gpudiag_status gpudiag_ncu_read(const char *path, gpudiag_ncu **out, gpudiag_error *err)
{
    if (!path || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, path, -1, "gpudiag_ncu_read: NULL path or out");
    *out = NULL;
    size_t len = 0;
    char *d = NULL;
    gpudiag_status st = read_whole(path, &d, &len, err);
    if (st != GPUDIAG_OK)
        return st;
    char *scratch = malloc(len + 1);
    gpudiag_ncu *n = calloc(1, sizeof *n);
    ncu_cols *c = malloc(sizeof *c);
    rec h = {0};
    if (!scratch || !n || !c || !(n->path = gd_strdup(path))) {
        st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
        goto done;
    }
    size_t pos = 0;
    int line = 1;
    if (len >= 3 && (unsigned char)d[0] == 0xEF && (unsigned char)d[1] == 0xBB && (unsigned char)d[2] == 0xBF)
        pos = 3; /* UTF-8 byte-order mark */
    if ((st = read_header(d, len, &pos, &line, &h, scratch, path, err)) != GPUDIAG_OK ||
        (st = find_columns(&h, c, path, err)) != GPUDIAG_OK ||
        (st = read_rows(d, len, pos, line, &h, c, scratch, n, path, err)) != GPUDIAG_OK)
        goto done;
    if (n->count == 0)
        st = fail(err, GPUDIAG_ERR_FORMAT, path, NULL, "no kernel rows after the header (line %d)", h.line);
done:
    rec_clear(&h);
    free(h.f);
    free(c);
    free(scratch);
    free(d);
    if (st != GPUDIAG_OK)
        gpudiag_ncu_free(&n);
    else
        *out = n;
    return st;
}
