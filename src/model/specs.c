/*
 * specs.c — the GPU table: data/gpu_specs.csv is embedded at build time
 * (cmake/embed.cmake writes its bytes into gpu_specs_csv.c) and parsed here
 * once, on first use, into a static array.  Columns are found by their header
 * names, so the CSV may gain columns without breaking this reader.
 */
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "gpudiag/specs.h"
#include "model/specs_internal.h"

#define MAX_ROWS 256
#define MAX_TOKENS 16

static gpudiag_gpu_spec g_rows[MAX_ROWS];
static size_t g_count;
static int g_errors;
static char *g_text; /* the CSV copy the rows' strings point into; lives for the process */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static const char *const dtype_names[GPUDIAG_DTYPE_COUNT] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"};
static const char *const dtype_columns[GPUDIAG_DTYPE_COUNT] = {
    "fp64_tflops",          "fp32_tflops",          "tf32_tensor_tflops_dense", "fp16_tensor_tflops_dense",
    "bf16_tensor_tflops_dense", "fp8_tensor_tflops_dense", "int8_tensor_tops_dense"};

const char *gpudiag_dtype_name(gpudiag_dtype dt)
{
    return (unsigned)dt < GPUDIAG_DTYPE_COUNT ? dtype_names[dt] : "?";
}

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

int gpudiag_dtype_parse(const char *name, gpudiag_dtype *out)
{
    static const struct {
        const char *alias;
        gpudiag_dtype dt;
    } aliases[] = {{"float64", GPUDIAG_DTYPE_FP64}, {"double", GPUDIAG_DTYPE_FP64}, {"float32", GPUDIAG_DTYPE_FP32},
                   {"float", GPUDIAG_DTYPE_FP32},   {"float16", GPUDIAG_DTYPE_FP16}, {"half", GPUDIAG_DTYPE_FP16},
                   {"bfloat16", GPUDIAG_DTYPE_BF16}, {"float8", GPUDIAG_DTYPE_FP8}};
    if (!name)
        return -1;
    for (int i = 0; i < GPUDIAG_DTYPE_COUNT; i++)
        if (ieq(name, dtype_names[i])) {
            *out = (gpudiag_dtype)i;
            return 0;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (ieq(name, aliases[i].alias)) {
            *out = aliases[i].dt;
            return 0;
        }
    return -1;
}

/* ---- CSV ------------------------------------------------------------------ */

/* Split one CSV record starting at *pos (RFC 4180: quoted fields, "" escapes)
 * in place: fields[] point into text, NUL-terminated.  Returns the number of
 * fields, or -1 on a quote error; *pos moves past the record's line end. */
static int csv_record(char *text, size_t len, size_t *pos, char **fields, int max)
{
    size_t i = *pos;
    int n = 0;
    for (;;) {
        char *out = text + i;
        char *start = out;
        if (i < len && text[i] == '"') {
            i++;
            for (;;) {
                if (i >= len)
                    return -1; /* unterminated quote */
                if (text[i] == '"') {
                    if (i + 1 < len && text[i + 1] == '"') {
                        *out++ = '"';
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                *out++ = text[i++];
            }
            if (i < len && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
                return -1; /* text after a closing quote */
        } else {
            while (i < len && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
                out++, i++;
        }
        char sep = i < len ? text[i] : '\n';
        *out = '\0';
        if (n < max)
            fields[n] = start;
        n++;
        if (i < len)
            i++;
        if (sep != ',') {
            if (sep == '\r' && i < len && text[i] == '\n')
                i++;
            break;
        }
    }
    *pos = i;
    return n;
}

/* A number cell: "" -> NaN; anything but a plain decimal number is an error. */
static double cell_num(const char *s, int *bad)
{
    if (!s || !*s)
        return NAN;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v) || v < 0) {
        *bad = 1;
        return NAN;
    }
    return v;
}

int gd_specs_parse(char *text, size_t len, gpudiag_gpu_spec *rows, size_t max_rows, size_t *count, size_t *bad_line)
{
    enum { C_NAME, C_VENDOR, C_ARCH, C_CC, C_SMS, C_CLOCK, C_MEM, C_BW, C_PCIE_GEN, C_PCIE_BW, C_NVLINK, C_TDP,
           C_SOURCE, C_FIXED };
    static const char *const fixed[C_FIXED] = {
        "name_pattern", "vendor", "arch", "compute_capability", "sm_count", "boost_clock_mhz", "mem_gb",
        "mem_bw_gbs", "pcie_gen", "pcie_bw_gbs_per_dir", "nvlink_bw_gbs_total", "tdp_w", "source"};
    char *f[64];
    size_t pos = 0, line = 1;
    *count = 0;
    *bad_line = 0;
    int nh = csv_record(text, len, &pos, f, 64);
    if (nh <= 0 || nh > 64) {
        *bad_line = 1;
        return -1;
    }
    int col[C_FIXED], dcol[GPUDIAG_DTYPE_COUNT];
    for (int k = 0; k < C_FIXED; k++) {
        col[k] = -1;
        for (int j = 0; j < nh; j++)
            if (strcmp(f[j], fixed[k]) == 0)
                col[k] = j;
        if (col[k] < 0) {
            *bad_line = 1;
            return -1;
        }
    }
    int mcol = -1; /* fp32_matrix_tflops_dense: optional */
    for (int j = 0; j < nh; j++)
        if (strcmp(f[j], "fp32_matrix_tflops_dense") == 0)
            mcol = j;
    for (int k = 0; k < GPUDIAG_DTYPE_COUNT; k++) {
        dcol[k] = -1;
        for (int j = 0; j < nh; j++)
            if (strcmp(f[j], dtype_columns[k]) == 0)
                dcol[k] = j;
        if (dcol[k] < 0) {
            *bad_line = 1;
            return -1;
        }
    }
    while (pos < len) {
        line++;
        if (text[pos] == '\n' || text[pos] == '\r') { /* blank line */
            pos++;
            continue;
        }
        int n = csv_record(text, len, &pos, f, 64);
        if (n != nh || *count >= max_rows || !f[col[C_NAME]][0]) {
            *bad_line = line;
            return -1;
        }
        gpudiag_gpu_spec *r = &rows[(*count)++];
        memset(r, 0, sizeof *r);
        int bad = 0;
        r->name = f[col[C_NAME]];
        r->vendor = f[col[C_VENDOR]];
        r->arch = f[col[C_ARCH]];
        r->compute_capability = f[col[C_CC]];
        double sms = cell_num(f[col[C_SMS]], &bad);
        r->sm_count = isnan(sms) ? 0 : (int)sms;
        r->boost_clock_mhz = cell_num(f[col[C_CLOCK]], &bad);
        r->mem_gb = cell_num(f[col[C_MEM]], &bad);
        r->mem_bw_gbs = cell_num(f[col[C_BW]], &bad);
        double gen = cell_num(f[col[C_PCIE_GEN]], &bad);
        r->pcie_gen = isnan(gen) ? 0 : (int)gen;
        r->pcie_bw_gbs_per_dir = cell_num(f[col[C_PCIE_BW]], &bad);
        r->nvlink_bw_gbs_total = cell_num(f[col[C_NVLINK]], &bad);
        r->tdp_w = cell_num(f[col[C_TDP]], &bad);
        r->source = f[col[C_SOURCE]];
        for (int k = 0; k < GPUDIAG_DTYPE_COUNT; k++)
            r->peak_tflops[k] = cell_num(f[dcol[k]], &bad);
        r->fp32_matrix_tflops = mcol >= 0 ? cell_num(f[mcol], &bad) : NAN;
        r->uncertain = strstr(r->source, "UNCERTAIN") != NULL;
        if (bad) {
            *bad_line = line;
            return -1;
        }
    }
    return 0;
}

static void load(void)
{
    g_text = malloc(gd_gpu_specs_csv_len + 1);
    if (!g_text) {
        g_errors = 1;
        return;
    }
    memcpy(g_text, gd_gpu_specs_csv, gd_gpu_specs_csv_len);
    g_text[gd_gpu_specs_csv_len] = '\0';
    size_t bad_line = 0;
    if (gd_specs_parse(g_text, gd_gpu_specs_csv_len, g_rows, MAX_ROWS, &g_count, &bad_line) != 0) {
        g_errors = (int)bad_line;
        g_count = 0;
    }
}

static void ensure(void)
{
    pthread_once(&g_once, load);
}

int gd_specs_load_error(void)
{
    ensure();
    return g_errors;
}

size_t gpudiag_gpu_count(void)
{
    ensure();
    return g_count;
}

const gpudiag_gpu_spec *gpudiag_gpu_at(size_t i)
{
    ensure();
    return i < g_count ? &g_rows[i] : NULL;
}

/* ---- matching ------------------------------------------------------------- */

typedef struct toks {
    int n;
    char t[MAX_TOKENS][32];
} toks;

static int is_vendor_word(const char *w)
{
    static const char *const words[] = {"nvidia", "tesla", "geforce", "amd", "instinct"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(w, words[i]) == 0)
            return 1;
    return 0;
}

/* Lowercase tokens split at space, '-', '_', '/', vendor words dropped. */
static void tokenize(const char *s, toks *out)
{
    out->n = 0;
    while (*s) {
        while (*s && (isspace((unsigned char)*s) || *s == '-' || *s == '_' || *s == '/'))
            s++;
        if (!*s)
            break;
        char w[32];
        size_t k = 0;
        while (*s && !(isspace((unsigned char)*s) || *s == '-' || *s == '_' || *s == '/')) {
            if (k + 1 < sizeof w)
                w[k++] = (char)tolower((unsigned char)*s);
            s++;
        }
        w[k] = '\0';
        if (is_vendor_word(w) || out->n >= MAX_TOKENS)
            continue;
        memcpy(out->t[out->n++], w, k + 1);
    }
}

/* Equal ignoring case and runs of spaces (leading/trailing spaces ignored). */
static int name_eq(const char *a, const char *b)
{
    while (isspace((unsigned char)*a))
        a++;
    while (isspace((unsigned char)*b))
        b++;
    while (*a && *b) {
        if (isspace((unsigned char)*a) && isspace((unsigned char)*b)) {
            while (isspace((unsigned char)*a))
                a++;
            while (isspace((unsigned char)*b))
                b++;
            continue;
        }
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
        a++, b++;
    }
    while (isspace((unsigned char)*a))
        a++;
    while (isspace((unsigned char)*b))
        b++;
    return *a == *b;
}

/* Extra tokens of row over query, or -1 when some query token is missing. */
static int token_extra(const toks *q, const toks *row)
{
    if (q->n == 0)
        return -1;
    for (int i = 0; i < q->n; i++) {
        int found = 0;
        for (int j = 0; j < row->n && !found; j++)
            found = strcmp(q->t[i], row->t[j]) == 0;
        if (!found)
            return -1;
    }
    return row->n - q->n;
}

/* Rows whose tokens contain the query's, best (fewest extra tokens) first in
 * out[0..*n); returns the least extra count, or -1 when none. */
static int token_candidates(const char *name, size_t *out, size_t *n)
{
    toks q, rt;
    tokenize(name, &q);
    *n = 0;
    int best = -1;
    for (size_t i = 0; i < g_count; i++) {
        /* rows sharing a name are one name: consider the first only */
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = strcmp(g_rows[j].name, g_rows[i].name) == 0;
        if (dup)
            continue;
        tokenize(g_rows[i].name, &rt);
        int extra = token_extra(&q, &rt);
        if (extra < 0)
            continue;
        if (best < 0 || extra < best) {
            best = extra;
            *n = 0;
        }
        if (extra == best)
            out[(*n)++] = i;
    }
    return best;
}

const gpudiag_gpu_spec *gpudiag_gpu_find(const char *name)
{
    ensure();
    if (!name || !*name)
        return NULL;
    for (size_t i = 0; i < g_count; i++)
        if (name_eq(name, g_rows[i].name))
            return &g_rows[i];
    size_t cand[MAX_ROWS], n = 0;
    token_candidates(name, cand, &n);
    return n == 1 ? &g_rows[cand[0]] : NULL;
}

size_t gpudiag_gpu_candidates(const char *name, const gpudiag_gpu_spec **out, size_t max)
{
    ensure();
    if (!name || !*name)
        return 0;
    toks q, rt;
    tokenize(name, &q);
    size_t n = 0;
    for (size_t i = 0; i < g_count; i++) {
        tokenize(g_rows[i].name, &rt);
        if (token_extra(&q, &rt) >= 0) {
            if (n < max && out)
                out[n] = &g_rows[i];
            n++;
        }
    }
    return n;
}

const char *gpudiag_gpu_match_name(gpudiag_gpu_match m)
{
    switch (m) {
    case GPUDIAG_GPU_MATCH_NONE: return "none";
    case GPUDIAG_GPU_MATCH_EXACT: return "exact";
    case GPUDIAG_GPU_MATCH_NAME: return "name";
    case GPUDIAG_GPU_MATCH_HARDWARE: return "hardware";
    }
    return "none";
}

/* Does the row fit the reported SM count and memory?  Unknown values fit. */
static int hw_fits(const gpudiag_gpu_spec *r, int num_sms, double mem_bytes)
{
    if (num_sms > 0 && r->sm_count > 0 && r->sm_count != num_sms)
        return 0;
    if (mem_bytes > 0 && isfinite(mem_bytes) && isfinite(r->mem_gb)) {
        double gib = mem_bytes / (1024.0 * 1024.0 * 1024.0);
        if (fabs(gib - r->mem_gb) > 0.10 * r->mem_gb)
            return 0;
    }
    return 1;
}

/* Of the fitting rows in idx[0..n), the single one; ties between per-GCD
 * rows and others go to the per-GCD row (each MI250 GCD is one device). */
static const gpudiag_gpu_spec *pick(const size_t *idx, size_t n, int num_sms, double mem_bytes)
{
    const gpudiag_gpu_spec *hit = NULL, *gcd = NULL;
    size_t nhit = 0, ngcd = 0;
    for (size_t i = 0; i < n; i++) {
        const gpudiag_gpu_spec *r = &g_rows[idx[i]];
        if (!hw_fits(r, num_sms, mem_bytes))
            continue;
        hit = r;
        nhit++;
        if (strstr(r->arch, "one GCD")) {
            gcd = r;
            ngcd++;
        }
    }
    if (nhit == 1)
        return hit;
    if (ngcd == 1)
        return gcd;
    return NULL;
}

/* Of every row with the name's tokens, whatever its extras, the one the hardware singles out (pick);
 * NULL when none or several fit. */
static const gpudiag_gpu_spec *by_tokens_and_hw(const char *name, int num_sms, double mem_bytes)
{
    size_t idx[MAX_ROWS], n = 0;
    toks q, rt;
    tokenize(name, &q);
    for (size_t i = 0; i < g_count; i++) {
        tokenize(g_rows[i].name, &rt);
        if (token_extra(&q, &rt) >= 0)
            idx[n++] = i;
    }
    return pick(idx, n, num_sms, mem_bytes);
}

const gpudiag_gpu_spec *gpudiag_gpu_identify(const char *name, int num_sms, int warp_size, double total_mem_bytes,
                                             gpudiag_gpu_match *how)
{
    ensure();
    if (how)
        *how = GPUDIAG_GPU_MATCH_NONE;
    size_t idx[MAX_ROWS], n = 0;
    if (name && *name) {
        for (size_t i = 0; i < g_count; i++)
            if (name_eq(name, g_rows[i].name))
                idx[n++] = i;
        if (n == 1 && !hw_fits(&g_rows[idx[0]], num_sms, total_mem_bytes)) {
            /* the name and the hardware disagree ("AMD Instinct MI250X" with one GCD's 104 CUs and
             * 64 GiB, where the MI250X row is the 220-CU package): a row that the name's tokens and
             * the hardware single out wins, else the name's row (DEFINITIONS "GPU table") */
            const gpudiag_gpu_spec *r = by_tokens_and_hw(name, num_sms, total_mem_bytes);
            if (r) {
                if (how)
                    *how = GPUDIAG_GPU_MATCH_HARDWARE;
                return r;
            }
        }
        if (n == 1) {
            if (how)
                *how = GPUDIAG_GPU_MATCH_EXACT;
            return &g_rows[idx[0]];
        }
        if (n > 1) { /* one name, several rows: the hardware tells them apart */
            const gpudiag_gpu_spec *r = pick(idx, n, num_sms, NAN);
            if (r && how)
                *how = GPUDIAG_GPU_MATCH_EXACT;
            return r;
        }
        token_candidates(name, idx, &n);
        if (n == 1 && hw_fits(&g_rows[idx[0]], num_sms, total_mem_bytes)) {
            if (how)
                *how = GPUDIAG_GPU_MATCH_NAME;
            return &g_rows[idx[0]];
        }
        if (n >= 1) { /* every row with the name's tokens, whatever its extras: the hardware decides */
            const gpudiag_gpu_spec *r = by_tokens_and_hw(name, num_sms, total_mem_bytes);
            if (r) {
                if (how)
                    *how = GPUDIAG_GPU_MATCH_HARDWARE;
                return r;
            }
        }
    }
    int amd = warp_size == 64 || (name && (strncmp(name, "AMD", 3) == 0 || strstr(name, "Radeon")));
    if (amd && num_sms > 0) {
        n = 0;
        for (size_t i = 0; i < g_count; i++)
            if (strcmp(g_rows[i].vendor, "AMD") == 0)
                idx[n++] = i;
        const gpudiag_gpu_spec *r = pick(idx, n, num_sms, total_mem_bytes);
        if (r && how)
            *how = GPUDIAG_GPU_MATCH_HARDWARE;
        return r;
    }
    return NULL;
}

size_t gd_gpu_also_fits(const gpudiag_gpu_spec *chosen, int num_sms, double total_mem_bytes,
                        const gpudiag_gpu_spec **out, size_t max)
{
    ensure();
    size_t n = 0;
    if (!chosen || num_sms <= 0)
        return 0;
    for (size_t i = 0; i < g_count; i++) {
        const gpudiag_gpu_spec *r = &g_rows[i];
        if (r == chosen || strcmp(r->vendor, chosen->vendor) != 0 || r->sm_count != num_sms ||
            !hw_fits(r, num_sms, total_mem_bytes))
            continue;
        if (n < max && out)
            out[n] = r;
        n++;
    }
    return n;
}

char *gd_gpu_part_name(const gpudiag_gpu_spec *r, char *b, size_t n)
{
    const char *gcd = r && r->arch ? strstr(r->arch, "one GCD of ") : NULL;
    if (gcd)
        snprintf(b, n, "AMD Instinct %s, one GCD", gcd + strlen("one GCD of "));
    else
        snprintf(b, n, "%s", r && r->name ? r->name : "");
    return b;
}

double gpudiag_gpu_ridge(const gpudiag_gpu_spec *spec, gpudiag_dtype dt, double peak_tflops, double mem_bw_gbs)
{
    if ((unsigned)dt >= GPUDIAG_DTYPE_COUNT)
        return NAN;
    double peak = peak_tflops > 0 ? peak_tflops : spec ? spec->peak_tflops[dt] : NAN;
    double bw = mem_bw_gbs > 0 ? mem_bw_gbs : spec ? spec->mem_bw_gbs : NAN;
    if (!(peak > 0) || !(bw > 0))
        return NAN;
    return peak * 1e12 / (bw * 1e9);
}
