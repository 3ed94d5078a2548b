/*
 * series.c — the per-GPU monitoring time series (include/gpudiag/series.h):
 * columnar storage, lazily created metric columns, identity lookup.
 */
#define _DEFAULT_SOURCE 1 /* madvise, MADV_HUGEPAGE */
#include "gpudiag/series.h"
#include "ingest/formats.h"
#include "model/series_internal.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

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
    [GPUDIAG_M_THROTTLE_TIME_US] = {"throttle_time_us", "us"},
    [GPUDIAG_M_THERMAL_THROTTLE_TIME_US] = {"thermal_throttle_time_us", "us"},
    [GPUDIAG_M_TEMP_SLOWDOWN_C] = {"temp_slowdown_c", "C"},
    [GPUDIAG_M_JPG_UTIL] = {"jpg_util", "fraction"},
    [GPUDIAG_M_OFA_UTIL] = {"ofa_util", "fraction"},
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

int gd_metric_is_fraction(gpudiag_metric m)
{
    return strcmp(gpudiag_metric_unit(m), "fraction") == 0;
}

const char *gpudiag_log_format_name(gpudiag_log_format f)
{
    if (f == GPUDIAG_LOG_AUTO)
        return "auto";
    const gd_input_format *row = gd_format_of_log(f);
    return row ? row->name : "unknown";
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
    s->first_invalid_line = -1;
    s->first_empty_line = -1;
    s->first_header_change_line = -1;
    *out = s;
    return GPUDIAG_OK;
}

void gpudiag_series_free(gpudiag_series **sp)
{
    if (!sp || !*sp)
        return;
    gpudiag_series *s = *sp;
    for (size_t g = 0; g < s->gpu_count; g++)
        free(s->gpus[g].arena);
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

/* Storage: one block per GPU holds t_us and every present column, each `cap`
 * samples long (a 1 M-line log keeps ~15 MiB per GPU).  One block rather than
 * a malloc per column so that a long series is one large allocation that
 * Linux can back with transparent huge pages: first touching the ~120 MiB of
 * a 1 M-line dmon log page by page cost ~30 000 page faults, a third of the
 * time to analyse it (docs/PERFORMANCE.md).  Growing doubles `cap` and copies
 * (amortised one copy per sample); a new column re-lays the block at the
 * same `cap`, which happens at most once per metric. */
static void advise_huge(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes < ((size_t)4 << 20))
        return;
    uintptr_t b = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
    if (e > b)
        (void)madvise((void *)b, e - b, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

_Static_assert(GPUDIAG_M_COUNT <= 64, "metric bit sets are uint64_t");

/* Re-lay GPU x into a block of `cap` samples with the columns now present
 * plus those in the bit set `add`; new columns are filled with NaN. */
static int relayout(gpudiag_gpu_series *x, size_t cap, uint64_t add)
{
    size_t ncols = 1;
    for (int m = 0; m < GPUDIAG_M_COUNT; m++)
        ncols += x->v[m] != NULL || ((add >> m) & 1);
    if (cap > SIZE_MAX / sizeof(double) / ncols)
        return -1;
    size_t bytes = ncols * cap * sizeof(double);
    unsigned char *blk = malloc(bytes);
    if (!blk)
        return -1;
    advise_huge(blk, bytes);
    size_t n = x->count;
    int64_t *t = (int64_t *)(void *)blk;
    if (n)
        memcpy(t, x->t_us, n * sizeof *t);
    size_t k = 1;
    double *cols[GPUDIAG_M_COUNT];
    for (int m = 0; m < GPUDIAG_M_COUNT; m++) {
        cols[m] = NULL;
        if (!x->v[m] && !((add >> m) & 1))
            continue;
        double *c = (double *)(void *)(blk + k++ * cap * sizeof(double));
        if (x->v[m]) {
            if (n)
                memcpy(c, x->v[m], n * sizeof *c);
        } else {
            for (size_t i = 0; i < n; i++)
                c[i] = NAN;
        }
        cols[m] = c;
    }
    free(x->arena);
    x->arena = blk;
    x->t_us = t;
    for (int m = 0; m < GPUDIAG_M_COUNT; m++)
        x->v[m] = cols[m];
    x->cap = cap;
    return 0;
}

int gd_series_reserve(gpudiag_series *s, size_t gpu, size_t cap)
{
    if (!s || gpu >= s->gpu_count || cap <= s->gpus[gpu].cap)
        return 0;
    return relayout(&s->gpus[gpu], cap, 0);
}

gpudiag_status gpudiag_series_append(gpudiag_series *s, size_t gpu, int64_t t_us,
                                     const double values[GPUDIAG_M_COUNT])
{
    if (!s || gpu >= s->gpu_count || !values)
        return GPUDIAG_ERR_ARG;
    gpudiag_gpu_series *x = &s->gpus[gpu];
    uint64_t add = 0; /* metrics seen for the first time */
    for (int m = 0; m < GPUDIAG_M_COUNT; m++)
        if (!x->v[m] && isfinite(values[m]))
            add |= (uint64_t)1 << m;
    if ((x->count == x->cap || add) && relayout(x, x->count == x->cap ? (x->cap ? x->cap * 2 : 64) : x->cap, add) != 0)
        return GPUDIAG_ERR_NOMEM;
    size_t i = x->count;
    x->t_us[i] = t_us;
    for (int m = 0; m < GPUDIAG_M_COUNT; m++)
        if (x->v[m])
            x->v[m][i] = isfinite(values[m]) ? values[m] : NAN; /* ±inf (an overflowed unit conversion) is unknown */
    x->count++;
    return GPUDIAG_OK;
}

/* The parent of instance g: the physical GPU of the same host and index, or (an instance that names
 * no GPU) the log's only physical GPU; NULL when the log holds no such entity. */
static const gpudiag_gpu_summary *parent_in_log(const gpudiag_series_summary *s, const gpudiag_gpu_summary *g,
                                                size_t nphys)
{
    for (size_t j = 0; j < s->gpu_count; j++) {
        const gpudiag_gpu_summary *p = &s->gpus[j];
        if (p->kind != GPUDIAG_ENTITY_GPU)
            continue;
        if (g->index < 0 ? nphys == 1 : p->index == g->index && strcmp(p->hostname, g->hostname) == 0)
            return p;
    }
    return NULL;
}

/* Instance o has the same parent as instance g (whose parent is p, NULL when not in the log). */
static int same_parent(const gpudiag_series_summary *s, const gpudiag_gpu_summary *o, const gpudiag_gpu_summary *g,
                       const gpudiag_gpu_summary *p, size_t nphys)
{
    return o->kind != GPUDIAG_ENTITY_GPU && parent_in_log(s, o, nphys) == p &&
           (p || (o->index == g->index && strcmp(o->hostname, g->hostname) == 0));
}

int gd_series_entity_label(const gpudiag_gpu_summary *g, char *buf, size_t len)
{
    int gi = g->kind == GPUDIAG_ENTITY_GPU_I;
    if (g->kind == GPUDIAG_ENTITY_GPU && g->index >= 0)
        return snprintf(buf, len, "GPU %d", g->index);
    if (g->kind == GPUDIAG_ENTITY_GPU) {
        /* a sample without a GPU number (a Prometheus sample with no `gpu` label) printed "GPU -1";
         * several such GPUs are told apart by their UUID when the log gives one (cleaned: it is
         * printed to terminals) */
        int n = g->uuid[0] ? snprintf(buf, len, "GPU (no index) %.12s", g->uuid) : snprintf(buf, len, "GPU (no index)");
        if (len)
            gd_term_clean(buf);
        return n;
    }
    if (g->index >= 0) /* the GPU it is carved from: two GPUs' GI 3 are told apart */
        return snprintf(buf, len, "GPU %d %s %d", g->index, gi ? "GI" : "CI", g->instance);
    return snprintf(buf, len, "%s %d", gi ? "GPU-I" : "GPU-CI", g->instance); /* dcgmi: no parent named */
}

void gd_series_gpus_phrase(const gpudiag_series_summary *s, char *buf, size_t len)
{
    if (!len)
        return;
    size_t nphys = 0, ninst = 0, unnamed = 0;
    for (size_t i = 0; i < s->gpu_count; i++) {
        nphys += s->gpus[i].kind == GPUDIAG_ENTITY_GPU;
        ninst += s->gpus[i].kind != GPUDIAG_ENTITY_GPU;
    }
    /* physical GPUs: the whole GPUs in the log, and each other (host, index) its instances name;
     * the GPUs that hold instances: `single` with one, `multi` with several (`minst` of them) */
    size_t phys = nphys, single = 0, multi = 0, minst = 0;
    for (size_t i = 0; i < s->gpu_count; i++) {
        const gpudiag_gpu_summary *g = &s->gpus[i];
        if (g->kind == GPUDIAG_ENTITY_GPU)
            continue;
        const gpudiag_gpu_summary *p = parent_in_log(s, g, nphys);
        if (!p && g->index < 0) {
            unnamed++;
            continue;
        }
        int seen = 0; /* the first instance of its parent counts it and its siblings */
        for (size_t j = 0; j < i && !seen; j++)
            seen = same_parent(s, &s->gpus[j], g, p, nphys);
        if (seen)
            continue;
        size_t n = 1;
        for (size_t j = i + 1; j < s->gpu_count; j++)
            n += same_parent(s, &s->gpus[j], g, p, nphys);
        phys += !p;
        if (n == 1) {
            single++;
        } else {
            multi++;
            minst += n;
        }
    }
    if (!ninst) {
        snprintf(buf, len, "%zu GPU%s", s->gpu_count, s->gpu_count == 1 ? "" : "s");
    } else if (unnamed && !phys) {
        snprintf(buf, len, "%zu MIG instance%s (%s not named)", ninst, ninst == 1 ? "" : "s",
                 ninst == 1 ? "its GPU" : "their GPUs");
    } else if (unnamed) {
        snprintf(buf, len, "%zu GPU%s and %zu MIG instance%s", phys, phys == 1 ? "" : "s", ninst,
                 ninst == 1 ? "" : "s");
    } else if (single == phys) { /* one instance on each: nothing is seen split */
        snprintf(buf, len, "%zu GPU%s with a MIG instance%s", phys, phys == 1 ? "" : "s", phys == 1 ? "" : " each");
    } else if (multi == phys) {
        snprintf(buf, len, "%zu GPU%s split into %zu MIG instances", phys, phys == 1 ? "" : "s", minst);
    } else {
        /* "2 GPUs, one split into 4 MIG instances, one with a MIG instance" */
        char num[32];
        int k = snprintf(buf, len, "%zu GPUs", phys);
        if (multi && k >= 0 && (size_t)k < len) {
            snprintf(num, sizeof num, "%zu", multi);
            k += snprintf(buf + k, len - (size_t)k, ", %s split into %zu MIG instances", multi == 1 ? "one" : num,
                          minst);
        }
        if (single && k >= 0 && (size_t)k < len) {
            snprintf(num, sizeof num, "%zu", single);
            snprintf(buf + k, len - (size_t)k, ", %s with a MIG instance%s", single == 1 ? "one" : num,
                     single == 1 ? "" : " each");
        }
    }
}
