/*
 * series.c — the per-GPU monitoring time series (include/gpudiag/series.h):
 * columnar storage, lazily created metric columns, identity lookup.
 */
#include "gpudiag/series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *unit;
} metric_info[GPUDIAG_M_COUNT] = {
    [GPUDIAG_M_GPU_UTIL] = {"gpu_util", "fraction"},
    [GPUDIAG_M_MEM_UTIL] = {"mem_util", "fraction"},
    [GPUDIAG_M_MEM_USED_BYTES] = {"mem_used_bytes", "bytes"},
    [GPUDIAG_M_MEM_TOTAL_BYTES] = {"mem_total_bytes", "bytes"},
    [GPUDIAG_M_SM_CLOCK_MHZ] = {"sm_clock_mhz", "MHz"},
    [GPUDIAG_M_MEM_CLOCK_MHZ] = {"mem_clock_mhz", "MHz"},
    [GPUDIAG_M_POWER_W] = {"power_w", "W"},
    [GPUDIAG_M_POWER_LIMIT_W] = {"power_limit_w", "W"},
    [GPUDIAG_M_TEMP_C] = {"temp_c", "C"},
    [GPUDIAG_M_PCIE_RX_BPS] = {"pcie_rx_bytes_per_s", "bytes/s"},
    [GPUDIAG_M_PCIE_TX_BPS] = {"pcie_tx_bytes_per_s", "bytes/s"},
    [GPUDIAG_M_SM_ACTIVE] = {"sm_active", "fraction"},
    [GPUDIAG_M_SM_OCCUPANCY] = {"sm_occupancy", "fraction"},
    [GPUDIAG_M_TENSOR_ACTIVE] = {"tensor_active", "fraction"},
    [GPUDIAG_M_DRAM_ACTIVE] = {"dram_active", "fraction"},
    [GPUDIAG_M_NVLINK_RX_BPS] = {"nvlink_rx_bytes_per_s", "bytes/s"},
    [GPUDIAG_M_NVLINK_TX_BPS] = {"nvlink_tx_bytes_per_s", "bytes/s"},
    [GPUDIAG_M_CLOCK_REASONS] = {"clock_event_reasons", "bitmask"},
    [GPUDIAG_M_GR_ENGINE_ACTIVE] = {"gr_engine_active", "fraction"},
    [GPUDIAG_M_MEM_TEMP_C] = {"mem_temp_c", "C"},
    [GPUDIAG_M_POWER_VIOLATION] = {"power_violation", "fraction"},
    [GPUDIAG_M_THERMAL_VIOLATION] = {"thermal_violation", "flag"},
    [GPUDIAG_M_SM_CLOCK_MAX_MHZ] = {"sm_clock_max_mhz", "MHz"},
    [GPUDIAG_M_PCIE_GEN] = {"pcie_gen", "generation"},
    [GPUDIAG_M_PCIE_GEN_MAX] = {"pcie_gen_max", "generation"},
    [GPUDIAG_M_PCIE_WIDTH] = {"pcie_width", "lanes"},
    [GPUDIAG_M_PCIE_WIDTH_MAX] = {"pcie_width_max", "lanes"},
    [GPUDIAG_M_ENC_UTIL] = {"enc_util", "fraction"},
    [GPUDIAG_M_DEC_UTIL] = {"dec_util", "fraction"},
};

const char *gpudiag_metric_name(gpudiag_metric m)
{
    if ((unsigned)m >= GPUDIAG_M_COUNT || !metric_info[m].name)
        return "unknown";
    return metric_info[m].name;
}

const char *gpudiag_metric_unit(gpudiag_metric m)
{
    if ((unsigned)m >= GPUDIAG_M_COUNT || !metric_info[m].unit)
        return "unknown";
    return metric_info[m].unit;
}

const char *gpudiag_log_format_name(gpudiag_log_format f)
{
    switch (f) {
    case GPUDIAG_LOG_AUTO: return "auto";
    case GPUDIAG_LOG_DMON: return "dmon";
    case GPUDIAG_LOG_SMI_CSV: return "smi-csv";
    case GPUDIAG_LOG_DCGMI: return "dcgmi";
    case GPUDIAG_LOG_PROM: return "prom";
    case GPUDIAG_LOG_SMI_Q: return "smi-q";
    }
    return "unknown";
}

gpudiag_status gpudiag_series_new(const char *format, gpudiag_series **out)
{
    if (!out)
        return GPUDIAG_ERR_ARG;
    gpudiag_series *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s)
        return GPUDIAG_ERR_NOMEM;
    if (format)
        snprintf(s->format, sizeof s->format, "%s", format);
    s->first_skipped_line = -1;
    *out = s;
    return GPUDIAG_OK;
}

void gpudiag_series_free(gpudiag_series **sp)
{
    if (!sp || !*sp)
        return;
    gpudiag_series *s = *sp;
    for (size_t g = 0; g < s->gpu_count; g++) {
        free(s->gpus[g].t_us);
        for (int m = 0; m < GPUDIAG_M_COUNT; m++)
            free(s->gpus[g].v[m]);
    }
    free(s->gpus);
    free(s);
    *sp = NULL;
}

long gpudiag_series_gpu(gpudiag_series *s, gpudiag_entity_kind kind, int index, int instance, const char *uuid,
                        const char *hostname)
{
    if (!s)
        return -1;
    const char *host = hostname ? hostname : "";
    const char *id = uuid ? uuid : "";
    for (size_t g = s->gpu_count; g-- > 0;) {
        const gpudiag_gpu_series *x = &s->gpus[g];
        if (id[0] && x->uuid[0]) {
            /* MIG instances of one GPU share the parent's UUID in exporter labels */
            if (strcmp(id, x->uuid) == 0 && x->kind == kind && x->instance == instance)
                return (long)g;
            continue;
        }
        if (x->kind == kind && x->index == index && x->instance == instance && strcmp(x->hostname, host) == 0)
            return (long)g;
    }
    if (s->gpu_count == s->gpu_cap) {
        size_t cap = s->gpu_cap ? s->gpu_cap * 2 : 8;
        gpudiag_gpu_series *n = realloc(s->gpus, cap * sizeof *n);
        if (!n)
            return -1;
        s->gpus = n;
        s->gpu_cap = cap;
    }
    gpudiag_gpu_series *x = &s->gpus[s->gpu_count];
    memset(x, 0, sizeof *x);
    x->index = index;
    x->kind = kind;
    x->instance = instance;
    snprintf(x->uuid, sizeof x->uuid, "%s", id);
    snprintf(x->hostname, sizeof x->hostname, "%s", host);
    return (long)s->gpu_count++;
}

gpudiag_status gpudiag_series_append(gpudiag_series *s, size_t gpu, int64_t t_us,
                                     const double values[GPUDIAG_M_COUNT])
{
    if (!s || gpu >= s->gpu_count || !values)
        return GPUDIAG_ERR_ARG;
    gpudiag_gpu_series *x = &s->gpus[gpu];
    if (x->count == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 64;
        int64_t *t = realloc(x->t_us, cap * sizeof *t);
        if (!t)
            return GPUDIAG_ERR_NOMEM;
        x->t_us = t;
        for (int m = 0; m < GPUDIAG_M_COUNT; m++) {
            if (!x->v[m])
                continue;
            double *c = realloc(x->v[m], cap * sizeof *c);
            if (!c)
                return GPUDIAG_ERR_NOMEM;
            x->v[m] = c;
        }
        x->cap = cap;
    }
    size_t i = x->count;
    x->t_us[i] = t_us;
    for (int m = 0; m < GPUDIAG_M_COUNT; m++) {
        double v = values[m];
        if (x->v[m]) {
            x->v[m][i] = v;
        } else if (!isnan(v)) {
            double *c = malloc(x->cap * sizeof *c);
            if (!c)
                return GPUDIAG_ERR_NOMEM;
            for (size_t k = 0; k < i; k++)
                c[k] = NAN;
            c[i] = v;
            x->v[m] = c;
        }
    }
    x->count++;
    return GPUDIAG_OK;
}
