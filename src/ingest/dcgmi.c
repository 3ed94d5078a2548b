/*
 * dcgmi.c — `dcgmi dmon -e <field ids>` output (monitoring-peers.md §2.1-2.3).
 *
 * Header `# Entity TAG TAG ...` (also `#Entity`, `# EntityId`), optional
 * `ID`/`Id` units line, repeated every 14 iterations; rows `GPU 0 v v ...`,
 * `GPU-I 1 ...`, `GPU-CI 2 ...` (other entities — switches, CPUs, links — are
 * counted as skipped rows).  `N/A` and DCGM blank sentinels are missing.
 * The header names fields by short tag or by numeric field id (see
 * dcgm_fields[] below); fields the model has no place for are ignored
 * columns, named in the series' ignored_columns note, never an error.
 * Profiling ratios stay fractions; GPUTL/MCUTL percents become fractions;
 * PCITX/PCIRX/NVLTX/NVLRX are bytes/s.  dcgmi prints no timestamps: sample k
 * of an entity is at k seconds (the default -d 1000; GPUDIAG_TIME_ASSUMED).
 */
#include <math.h>
#include <string.h>

#include "ingest/formats.h"
#include "ingest/monlog.h"
#include "util/util.h"

#define DCGMI_MAX_COLS 64

enum { X_NONE = 0, X_FB_FREE = 1, X_TEXT = 2, X_NAME = 3 };

typedef struct dcgmi_col {
    int metric;   /* gpudiag_metric; -1 ignore */
    double scale; /* multiply the printed value */
    int fallback; /* 1: only fills the metric when no primary column gave it */
    int extra;    /* X_FB_FREE: free framebuffer (total = used + free) */
} dcgmi_col;

/* DCGM field ids and their dmon short tags (monitoring-peers.md §2.1-2.2;
 * ids from dcgm_fields.h).  dcgmi prints the tag in its header; a field
 * without one, or an older/newer dcgmi, prints the numeric id, so both are
 * accepted.  Ids with no meaning in the model (FP64A 1006, energy 156,
 * violation counters 240-245, XID 230, ...) are ignored columns. */
static const struct dcgm_field {
    int id;
    const char *tag;    /* lower case (gd_ieq); NULL: none known */
    int metric;
    double scale;
    int fallback, extra;
} dcgm_fields[] = {
    {100, "smclk", GPUDIAG_M_SM_CLOCK_MHZ, 1, 0, X_NONE},
    {101, "mmclk", GPUDIAG_M_MEM_CLOCK_MHZ, 1, 0, X_NONE},
    {112, "dvcctr", GPUDIAG_M_CLOCK_REASONS, 1, 0, X_NONE},       /* NVML reason bitmask */
    {140, "mmtmp", GPUDIAG_M_MEM_TEMP_C, 1, 0, X_NONE},
    {150, "tmptr", GPUDIAG_M_TEMP_C, 1, 0, X_NONE},
    {155, "power", GPUDIAG_M_POWER_W, 1, 0, X_NONE},
    {157, NULL, GPUDIAG_M_POWER_W, 1, 1, X_NONE},                  /* instant power: when 155 is absent */
    {160, "pmlmt", GPUDIAG_M_POWER_LIMIT_W, 1, 1, X_NONE},         /* management limit */
    {164, NULL, GPUDIAG_M_POWER_LIMIT_W, 1, 0, X_NONE},            /* enforced limit */
    {200, NULL, GPUDIAG_M_PCIE_TX_BPS, 1e3, 1, X_NONE},            /* KB/s; 1009 is preferred */
    {201, NULL, GPUDIAG_M_PCIE_RX_BPS, 1e3, 1, X_NONE},
    {203, "gputl", GPUDIAG_M_GPU_UTIL, 0.01, 0, X_NONE},           /* % */
    {204, "mcutl", GPUDIAG_M_MEM_UTIL, 0.01, 0, X_NONE},           /* % */
    {206, NULL, GPUDIAG_M_ENC_UTIL, 0.01, 0, X_NONE},              /* % */
    {207, NULL, GPUDIAG_M_DEC_UTIL, 0.01, 0, X_NONE},              /* % */
    {235, NULL, GPUDIAG_M_PCIE_GEN_MAX, 1, 0, X_NONE},
    {236, NULL, GPUDIAG_M_PCIE_WIDTH_MAX, 1, 0, X_NONE},
    {237, NULL, GPUDIAG_M_PCIE_GEN, 1, 0, X_NONE},
    {238, NULL, GPUDIAG_M_PCIE_WIDTH, 1, 0, X_NONE},
    {250, "fbttl", GPUDIAG_M_MEM_TOTAL_BYTES, 1048576.0, 0, X_NONE}, /* MiB */
    {251, "fbfre", -1, 1048576.0, 0, X_FB_FREE},
    {252, "fbusd", GPUDIAG_M_MEM_USED_BYTES, 1048576.0, 0, X_NONE},
    {1001, "gract", GPUDIAG_M_GR_ENGINE_ACTIVE, 1, 0, X_NONE},
    {1002, "smact", GPUDIAG_M_SM_ACTIVE, 1, 0, X_NONE},
    {1003, "smocc", GPUDIAG_M_SM_OCCUPANCY, 1, 0, X_NONE},
    {1004, "tenso", GPUDIAG_M_TENSOR_ACTIVE, 1, 0, X_NONE},
    {1005, "drama", GPUDIAG_M_DRAM_ACTIVE, 1, 0, X_NONE},
    {1009, "pcitx", GPUDIAG_M_PCIE_TX_BPS, 1, 0, X_NONE},          /* bytes/s */
    {1010, "pcirx", GPUDIAG_M_PCIE_RX_BPS, 1, 0, X_NONE},
    {1011, "nvltx", GPUDIAG_M_NVLINK_TX_BPS, 1, 0, X_NONE},
    {1012, "nvlrx", GPUDIAG_M_NVLINK_RX_BPS, 1, 0, X_NONE},
    /* text fields: ignored columns whose value may hold spaces ("Tesla T4"); the device name is kept */
    {1, "drver", -1, 1, 0, X_TEXT},
    {2, "nvver", -1, 1, 0, X_TEXT},
    {3, "prnam", -1, 1, 0, X_TEXT},
    {50, "dvnam", -1, 1, 0, X_NAME},
    {51, "dvbrn", -1, 1, 0, X_TEXT},
    {53, "srnum", -1, 1, 0, X_TEXT},
    {54, "uuid#", -1, 1, 0, X_TEXT},
};

/* Map a header token: a tag (any case) or a numeric field id. */
static dcgmi_col map_tag(const char *s, size_t n)
{
    int id = -1;
    if (n >= 1 && n <= 5) {
        id = 0;
        for (size_t i = 0; i < n && id >= 0; i++)
            id = (s[i] >= '0' && s[i] <= '9') ? id * 10 + (s[i] - '0') : -1;
    }
    for (size_t i = 0; i < sizeof dcgm_fields / sizeof dcgm_fields[0]; i++) {
        const struct dcgm_field *f = &dcgm_fields[i];
        if ((id >= 0 && f->id == id) || (id < 0 && f->tag && gd_ieq(s, n, f->tag)))
            return (dcgmi_col){f->metric, f->scale, f->fallback, f->extra};
    }
    return (dcgmi_col){-1, 1, 0, X_NONE};
}

gpudiag_status gd_read_dcgmi(gd_lines *l, gpudiag_series *s, gpudiag_error *err)
{
    dcgmi_col cols[DCGMI_MAX_COLS];
    size_t ncols = 0;
    int have_header = 0;
    gd_tok tok[DCGMI_MAX_COLS + 4];
    double v[GPUDIAG_M_COUNT];
    const char *line;
    size_t n;
    int r;
    s->time_source = GPUDIAG_TIME_ASSUMED;
    s->interval_us = 1000000;
    while ((r = gd_lines_next(l, &line, &n, err)) == 1) {
        s->lines++;
        size_t c = gd_split_ws(line, n, tok, DCGMI_MAX_COLS + 4);
        if (c == 0)
            continue;
        if (tok[0].s[0] == '#') {
            /* find the token holding "Entity"; the tags follow it */
            size_t k = 0;
            while (k < c && !gd_icontains(tok[k].s, tok[k].n, "entity"))
                k++;
            if (k == c)
                continue;
            size_t nt = c - k - 1;
            if (nt > DCGMI_MAX_COLS)
                return gd_set_error(err, GPUDIAG_ERR_FORMAT, l->path, l->line_off,
                                    "line %llu: more than %d fields in the dcgmi header",
                                    (unsigned long long)l->line_no, DCGMI_MAX_COLS);
            ncols = nt;
            for (size_t i = 0; i < nt; i++) {
                cols[i] = map_tag(tok[k + 1 + i].s, tok[k + 1 + i].n);
                if (cols[i].metric < 0 && (cols[i].extra == X_NONE || cols[i].extra == X_TEXT))
                    gd_series_note_ignored(s, tok[k + 1 + i].s, tok[k + 1 + i].n);
            }
            gd_series_note_header(s, line, n, l->line_no, have_header);
            have_header = 1;
            continue;
        }
        if (gd_ieq(tok[0].s, tok[0].n, "id") && c <= ncols + 1)
            continue; /* units line */
        if (gd_starts_with(line, n, "dmon was stopped") || gd_icontains(line, n, "dmon was stopped"))
            continue;
        if (!have_header) {
            gd_series_skip(s, l->line_no);
            continue;
        }
        gpudiag_entity_kind kind;
        if (gd_ieq(tok[0].s, tok[0].n, "gpu"))
            kind = GPUDIAG_ENTITY_GPU;
        else if (gd_ieq(tok[0].s, tok[0].n, "gpu-i"))
            kind = GPUDIAG_ENTITY_GPU_I;
        else if (gd_ieq(tok[0].s, tok[0].n, "gpu-ci"))
            kind = GPUDIAG_ENTITY_GPU_CI;
        else {
            gd_series_skip(s, l->line_no);
            continue;
        }
        /* one text column (device name, ...) whose value has spaces: its words are one value
         * (NVIDIA/DCGM field 50 prints "Tesla T4"); with two or more, the row cannot be split */
        size_t text_col = ncols, ntext = 0;
        for (size_t i = 0; i < ncols; i++)
            if (cols[i].extra == X_TEXT || cols[i].extra == X_NAME) {
                text_col = i;
                ntext++;
            }
        char name[96] = "";
        if (ntext == 1 && c > ncols + 2) {
            size_t extra = c - (ncols + 2), a = 2 + text_col;
            tok[a].n = (size_t)(tok[a + extra].s + tok[a + extra].n - tok[a].s);
            for (size_t i = a + 1; i + extra < c; i++)
                tok[i] = tok[i + extra];
            c -= extra;
        }
        if (ntext == 1 && c == ncols + 2 && cols[text_col].extra == X_NAME)
            snprintf(name, sizeof name, "%.*s", (int)tok[2 + text_col].n, tok[2 + text_col].s);
        int ok;
        int id = gd_gpu_index(c > 1 ? gd_parse_value(tok[1].s, tok[1].n, &ok) : NAN);
        if (c != ncols + 2 || id < 0) {
            /* a number that is no entity id (beyond int, negative, fractional, inf): invalid too */
            if (c == ncols + 2 && id == GD_GPU_ID_INVALID)
                gd_series_invalid(s, l->line_no);
            gd_series_skip(s, l->line_no);
            continue;
        }
        gd_values_clear(v);
        int bad = 0, other = 0;
        double fb_free = NAN, fallback[GPUDIAG_M_COUNT];
        gd_values_clear(fallback);
        for (size_t i = 0; i < ncols && !bad; i++) {
            if (cols[i].metric < 0 && cols[i].extra == X_NONE && !other) /* an ignored field (FP32A ...) */
                other = gd_cell_number(tok[2 + i].s, tok[2 + i].n);
            if (cols[i].metric < 0 && cols[i].extra != X_FB_FREE)
                continue;
            double x = gd_parse_value(tok[2 + i].s, tok[2 + i].n, &ok);
            bad = !ok;
            x *= cols[i].scale;
            if (cols[i].extra == X_FB_FREE)
                fb_free = x;
            else if (cols[i].fallback)
                fallback[cols[i].metric] = x;
            else
                v[cols[i].metric] = x;
        }
        if (bad) {
            gd_series_skip(s, l->line_no);
            continue;
        }
        for (int m = 0; m < GPUDIAG_M_COUNT; m++)
            if (isnan(v[m]))
                v[m] = fallback[m];
        if (isnan(v[GPUDIAG_M_MEM_TOTAL_BYTES]) && !isnan(fb_free) && !isnan(v[GPUDIAG_M_MEM_USED_BYTES]))
            v[GPUDIAG_M_MEM_TOTAL_BYTES] = v[GPUDIAG_M_MEM_USED_BYTES] + fb_free;
        if (gd_series_empty_row(s, v, other || !isnan(fb_free), l->line_no))
            continue; /* every field N/A (NVIDIA/DCGM#244): no sample */
        gd_values_validate(s, v, l->line_no);
        int index = kind == GPUDIAG_ENTITY_GPU ? id : -1;
        int instance = kind == GPUDIAG_ENTITY_GPU ? -1 : id;
        long g = gpudiag_series_gpu(s, kind, index, instance, NULL, NULL);
        if (g < 0)
            return gd_set_error(err, GPUDIAG_ERR_NOMEM, l->path, -1, "out of memory");
        if (name[0] && !s->gpus[g].name[0] && !gd_ieq(name, strlen(name), "n/a") && !gd_ieq(name, strlen(name), "n/w"))
            snprintf(s->gpus[g].name, sizeof s->gpus[g].name, "%s", name);
        int64_t t = (int64_t)s->gpus[g].count * s->interval_us;
        if (gpudiag_series_append(s, (size_t)g, t, v) != GPUDIAG_OK)
            return gd_set_error(err, GPUDIAG_ERR_NOMEM, l->path, -1, "out of memory");
        s->rows++;
        gd_lines_size_hint(l, s);
    }
    if (r < 0)
        return err ? err->code : GPUDIAG_ERR_IO;
    if (!have_header)
        return gd_set_error(err, GPUDIAG_ERR_FORMAT, l->path, 0, "no dcgmi dmon header line (\"# Entity ...\")");
    return GPUDIAG_OK;
}

/* A comment line "# Entity ..." (dcgmi dmon's header). */
static long sniff_dcgmi(const char *buf, size_t len)
{
    gd_sniff_iter it = {buf, len, 0, 0};
    const char *t;
    size_t tn, indent;
    int line;
    while (gd_sniff_next(&it, &t, &tn, &indent, &line)) {
        if (t[0] != '#')
            continue;
        size_t k = 1;
        while (k < tn && t[k] == ' ')
            k++;
        if (gd_starts_with(t + k, tn - k, "Entity"))
            return GD_SNIFF_AT(line, 0);
    }
    return -1;
}

const gd_input_format gd_format_dcgmi = {
    .name = "dcgmi",
    .kind = GD_FMT_LOG,
    .id = GPUDIAG_LOG_DCGMI,
    .what = "dcgmi dmon",
    .sniff = sniff_dcgmi,
    .read = gd_read_dcgmi,
};
