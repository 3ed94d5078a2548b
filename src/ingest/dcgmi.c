/*
 * dcgmi.c — `dcgmi dmon -e <field ids>` output (monitoring-peers.md §2.1-2.3).
 *
 * Header `# Entity TAG TAG ...` (also `#Entity`, `# EntityId`), optional
 * `ID`/`Id` units line, repeated every 14 iterations; rows `GPU 0 v v ...`,
 * `GPU-I 1 ...`, `GPU-CI 2 ...` (other entities — switches, CPUs, links — are
 * counted as skipped rows).  `N/A` and DCGM blank sentinels are missing.
 * Profiling ratios stay fractions; GPUTL/MCUTL percents become fractions;
 * PCITX/PCIRX/NVLTX/NVLRX are bytes/s.  dcgmi prints no timestamps: sample k
 * of an entity is at k seconds (the default -d 1000; GPUDIAG_TIME_ASSUMED).
 */
#include <math.h>
#include <string.h>

#include "ingest/monlog.h"
#include "util/util.h"

#define DCGMI_MAX_COLS 64

typedef struct dcgmi_col {
    int metric; /* -1 ignore */
    double scale;
} dcgmi_col;

static dcgmi_col map_tag(const char *s, size_t n)
{
    static const struct {
        const char *tag;
        int metric;
        double scale;
    } map[] = {
        {"GRACT", GPUDIAG_M_GR_ENGINE_ACTIVE, 1},   /* 1001 */
        {"SMACT", GPUDIAG_M_SM_ACTIVE, 1},          /* 1002 */
        {"SMOCC", GPUDIAG_M_SM_OCCUPANCY, 1},       /* 1003 */
        {"TENSO", GPUDIAG_M_TENSOR_ACTIVE, 1},      /* 1004 */
        {"DRAMA", GPUDIAG_M_DRAM_ACTIVE, 1},        /* 1005 */
        {"PCITX", GPUDIAG_M_PCIE_TX_BPS, 1},        /* 1009 bytes/s */
        {"PCIRX", GPUDIAG_M_PCIE_RX_BPS, 1},        /* 1010 */
        {"NVLTX", GPUDIAG_M_NVLINK_TX_BPS, 1},      /* 1011 */
        {"NVLRX", GPUDIAG_M_NVLINK_RX_BPS, 1},      /* 1012 */
        {"GPUTL", GPUDIAG_M_GPU_UTIL, 0.01},        /* 203 % */
        {"MCUTL", GPUDIAG_M_MEM_UTIL, 0.01},        /* 204 % */
        {"SMCLK", GPUDIAG_M_SM_CLOCK_MHZ, 1},       /* 100 */
        {"MMCLK", GPUDIAG_M_MEM_CLOCK_MHZ, 1},      /* 101 */
        {"DVCCTR", GPUDIAG_M_CLOCK_REASONS, 1},     /* 112 bitmask */
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (gd_ieq(s, n, map[i].tag) || (n == strlen(map[i].tag) && memcmp(s, map[i].tag, n) == 0))
            return (dcgmi_col){map[i].metric, map[i].scale};
    return (dcgmi_col){-1, 1};
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
            for (size_t i = 0; i < nt; i++)
                cols[i] = map_tag(tok[k + 1 + i].s, tok[k + 1 + i].n);
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
        int ok;
        double id = c > 1 ? gd_parse_value(tok[1].s, tok[1].n, &ok) : NAN;
        if (c != ncols + 2 || isnan(id) || id < 0 || id > 65535) {
            gd_series_skip(s, l->line_no);
            continue;
        }
        gd_values_clear(v);
        int bad = 0;
        for (size_t i = 0; i < ncols && !bad; i++) {
            if (cols[i].metric < 0)
                continue;
            double x = gd_parse_value(tok[2 + i].s, tok[2 + i].n, &ok);
            bad = !ok;
            v[cols[i].metric] = x * cols[i].scale;
        }
        if (bad) {
            gd_series_skip(s, l->line_no);
            continue;
        }
        int index = kind == GPUDIAG_ENTITY_GPU ? (int)id : -1;
        int instance = kind == GPUDIAG_ENTITY_GPU ? -1 : (int)id;
        long g = gpudiag_series_gpu(s, kind, index, instance, NULL, NULL);
        if (g < 0)
            return gd_set_error(err, GPUDIAG_ERR_NOMEM, l->path, -1, "out of memory");
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
