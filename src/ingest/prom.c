/*
 * prom.c — dcgm-exporter Prometheus text exposition (monitoring-peers.md §2.4),
 * one scrape or many concatenated.
 *
 * Samples `NAME{labels} value [timestamp_ms]`; `# HELP`/`# TYPE` lines are not
 * needed (excerpts lack them).  Names: DCGM_FI_* classic and DCGM 4.6
 * `_UTIL_RATIO` spellings, and the 1.x compatibility names (dcgm_sm_clock ...).
 * Labels: gpu, UUID/uuid, pci_bus_id, modelName, GPU_I_PROFILE/GPU_I_ID (a MIG
 * instance is its own entity), Hostname/hostname, and the Kubernetes owner
 * pod/namespace/container (--kubernetes; pod_name/pod_namespace/container_name
 * with --use-old-namespace; empty strings on an unassigned GPU are unknown).
 * A metric seen again for the
 * same entity starts the next scrape.  Times: the sample timestamp when
 * present, else scrape k at k × 30 s (the exporter's default collect interval;
 * GPUDIAG_TIME_ASSUMED).  Values: DCGM blank sentinels are missing; NaN, ±Inf and impossible
 * numbers are invalid (counted, read as missing).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/formats.h"
#include "ingest/monlog.h"
#include "util/util.h"

enum { P_IGNORE = -1, P_FB_FREE = -2, P_FB_TOTAL = -3 };

static void map_name(const char *s, size_t n, int *metric, double *scale)
{
    static const struct {
        const char *name;
        int metric;
        double scale;
    } map[] = {
        {"DCGM_FI_DEV_SM_CLOCK", GPUDIAG_M_SM_CLOCK_MHZ, 1},
        {"DCGM_FI_DEV_MEM_CLOCK", GPUDIAG_M_MEM_CLOCK_MHZ, 1},
        {"DCGM_FI_DEV_GPU_TEMP", GPUDIAG_M_TEMP_C, 1},
        {"DCGM_FI_DEV_MEMORY_TEMP", GPUDIAG_M_MEM_TEMP_C, 1},
        {"DCGM_FI_DEV_POWER_USAGE", GPUDIAG_M_POWER_W, 1},
        {"DCGM_FI_DEV_POWER_MGMT_LIMIT", GPUDIAG_M_POWER_LIMIT_W, 1},
        {"DCGM_FI_DEV_ENFORCED_POWER_LIMIT", GPUDIAG_M_POWER_LIMIT_W, 1},
        {"DCGM_FI_DEV_GPU_UTIL", GPUDIAG_M_GPU_UTIL, 0.01},
        {"DCGM_FI_DEV_MEM_COPY_UTIL", GPUDIAG_M_MEM_UTIL, 0.01},
        {"DCGM_FI_DEV_ENC_UTIL", GPUDIAG_M_ENC_UTIL, 0.01},
        {"DCGM_FI_DEV_DEC_UTIL", GPUDIAG_M_DEC_UTIL, 0.01},
        {"DCGM_FI_DEV_FB_USED", GPUDIAG_M_MEM_USED_BYTES, 1048576.0},
        {"DCGM_FI_DEV_FB_FREE", P_FB_FREE, 1048576.0},
        {"DCGM_FI_DEV_FB_TOTAL", P_FB_TOTAL, 1048576.0},
        {"DCGM_FI_DEV_PCIE_TX_THROUGHPUT", GPUDIAG_M_PCIE_TX_BPS, 1000.0}, /* KB/s */
        {"DCGM_FI_DEV_PCIE_RX_THROUGHPUT", GPUDIAG_M_PCIE_RX_BPS, 1000.0},
        {"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", GPUDIAG_M_CLOCK_REASONS, 1},
        {"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", GPUDIAG_M_CLOCK_REASONS, 1},
        {"DCGM_FI_DEV_PCIE_LINK_GEN", GPUDIAG_M_PCIE_GEN, 1},
        {"DCGM_FI_DEV_PCIE_LINK_WIDTH", GPUDIAG_M_PCIE_WIDTH, 1},
        {"DCGM_FI_DEV_PCIE_MAX_LINK_GEN", GPUDIAG_M_PCIE_GEN_MAX, 1},
        {"DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH", GPUDIAG_M_PCIE_WIDTH_MAX, 1},
        {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", GPUDIAG_M_GR_ENGINE_ACTIVE, 1},
        {"DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO", GPUDIAG_M_GR_ENGINE_ACTIVE, 1},
        {"DCGM_FI_PROF_SM_ACTIVE", GPUDIAG_M_SM_ACTIVE, 1},
        {"DCGM_FI_PROF_SM_UTIL_RATIO", GPUDIAG_M_SM_ACTIVE, 1},
        {"DCGM_FI_PROF_SM_OCCUPANCY", GPUDIAG_M_SM_OCCUPANCY, 1},
        {"DCGM_FI_PROF_SM_OCCUPANCY_RATIO", GPUDIAG_M_SM_OCCUPANCY, 1},
        {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", GPUDIAG_M_TENSOR_ACTIVE, 1},
        {"DCGM_FI_PROF_PIPE_TENSOR_UTIL_RATIO", GPUDIAG_M_TENSOR_ACTIVE, 1},
        {"DCGM_FI_PROF_TENSOR_UTIL_RATIO", GPUDIAG_M_TENSOR_ACTIVE, 1},
        {"DCGM_FI_PROF_DRAM_ACTIVE", GPUDIAG_M_DRAM_ACTIVE, 1},
        {"DCGM_FI_PROF_DRAM_UTIL_RATIO", GPUDIAG_M_DRAM_ACTIVE, 1},
        {"DCGM_FI_PROF_PCIE_TX_BYTES", GPUDIAG_M_PCIE_TX_BPS, 1},
        {"DCGM_FI_PROF_PCIE_RX_BYTES", GPUDIAG_M_PCIE_RX_BPS, 1},
        {"DCGM_FI_PROF_NVLINK_TX_BYTES", GPUDIAG_M_NVLINK_TX_BPS, 1},
        {"DCGM_FI_PROF_NVLINK_RX_BYTES", GPUDIAG_M_NVLINK_RX_BPS, 1},
        /* dcgm-exporter 1.x-compatibility names */
        {"dcgm_sm_clock", GPUDIAG_M_SM_CLOCK_MHZ, 1},
        {"dcgm_memory_clock", GPUDIAG_M_MEM_CLOCK_MHZ, 1},
        {"dcgm_gpu_temp", GPUDIAG_M_TEMP_C, 1},
        {"dcgm_memory_temp", GPUDIAG_M_MEM_TEMP_C, 1},
        {"dcgm_power_usage", GPUDIAG_M_POWER_W, 1},
        {"dcgm_gpu_utilization", GPUDIAG_M_GPU_UTIL, 0.01},
        {"dcgm_mem_copy_utilization", GPUDIAG_M_MEM_UTIL, 0.01},
        {"dcgm_enc_utilization", GPUDIAG_M_ENC_UTIL, 0.01},
        {"dcgm_dec_utilization", GPUDIAG_M_DEC_UTIL, 0.01},
        {"dcgm_fb_used", GPUDIAG_M_MEM_USED_BYTES, 1048576.0},
        {"dcgm_fb_free", P_FB_FREE, 1048576.0},
        {"dcgm_pcie_tx_throughput", GPUDIAG_M_PCIE_TX_BPS, 1000.0},
        {"dcgm_pcie_rx_throughput", GPUDIAG_M_PCIE_RX_BPS, 1000.0},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        size_t ln = strlen(map[i].name);
        if (ln == n && memcmp(s, map[i].name, n) == 0) {
            *metric = map[i].metric;
            *scale = map[i].scale;
            return;
        }
    }
    *metric = P_IGNORE;
    *scale = 1;
}

/* Labels we use, copied out of {...}. */
typedef struct prom_labels {
    char gpu[16], uuid[96], bus[32], model[96], mig_profile[32], mig_id[16], host[128];
    char pod[256], ns[64], container[64];
} prom_labels;

static int parse_labels(const char *s, size_t n, prom_labels *lb)
{
    memset(lb, 0, sizeof *lb);
    size_t i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == ','))
            i++;
        if (i >= n)
            break;
        size_t kb = i;
        while (i < n && s[i] != '=')
            i++;
        if (i + 1 >= n || s[i + 1] != '"')
            return -1;
        size_t kn = i - kb;
        i += 2;
        size_t vb = i;
        while (i < n && s[i] != '"') {
            if (s[i] == '\\')
                i++;
            i++;
        }
        if (i >= n)
            return -1;
        size_t vn = i - vb;
        i++;
        const char *k = s + kb, *v = s + vb;
        char *dst = NULL;
        size_t cap = 0;
#define LB(lit, field)                                                                                             \
    else if (kn == sizeof(lit) - 1 && memcmp(k, lit, kn) == 0)                                                     \
    {                                                                                                              \
        dst = lb->field;                                                                                           \
        cap = sizeof lb->field;                                                                                    \
    }
        if (0) {
        }
        LB("gpu", gpu)
        LB("UUID", uuid)
        LB("uuid", uuid)
        LB("pci_bus_id", bus)
        LB("modelName", model)
        LB("GPU_I_PROFILE", mig_profile)
        LB("GPU_I_ID", mig_id)
        LB("Hostname", host)
        LB("hostname", host)
        LB("pod", pod)
        LB("pod_name", pod)
        LB("namespace", ns)
        LB("pod_namespace", ns)
        LB("container", container)
        LB("container_name", container)
#undef LB
        if (dst)
            snprintf(dst, cap, "%.*s", (int)vn, v);
    }
    return 0;
}

#define PROM_MAX_PODS 64
typedef struct prom_pending {
    double v[GPUDIAG_M_COUNT];
    double fb_free, fb_total;
    int any;
    int other; /* a family the reader ignores, or an invalid value (NaN, Inf), gave a number: a reading */
    int64_t t_ms; /* sample timestamp, -1 none */
    uint64_t pod_hash[PROM_MAX_PODS]; /* namespace/pod of the pods seen for this GPU in this scrape; [0] the
                                         pod whose values are kept */
    int npods;
    uint32_t slot_block[GPUDIAG_M_COUNT + 2]; /* the metric-family block (see gd_read_prom) that set each slot */
    unsigned char given[GPUDIAG_M_COUNT + 2]; /* 1: the slot had a line in this scrape, a missing value (DCGM's
                                                 blank sentinel) included: a line for it again starts the next scrape */
} prom_pending;

/* An empty pending sample: a new entity's, or one just flushed (slot_block is left as it was, as
 * before this function gathered the two resets). */
static void pending_clear(prom_pending *p)
{
    gd_values_clear(p->v);
    p->fb_free = p->fb_total = NAN;
    p->any = 0;
    p->other = 0;
    p->t_ms = -1;
    p->npods = 0;
    memset(p->given, 0, sizeof p->given);
}

/* The index of a metric slot of a pending sample (slot_block); -1 for an ignored family. */
static int metric_bit(int metric)
{
    return metric >= 0 ? metric : metric == P_FB_FREE ? GPUDIAG_M_COUNT : metric == P_FB_TOTAL ? GPUDIAG_M_COUNT + 1 : -1;
}

/* FNV-1a of "namespace/pod" (never 0) */
static uint64_t pod_key(const prom_labels *lb)
{
    uint64_t h = 14695981039346656037ull;
    for (const char *p = lb->ns; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    h = (h ^ '/') * 1099511628211ull;
    for (const char *p = lb->pod; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h ? h : 1;
}

static int pod_seen(const prom_pending *p, uint64_t k)
{
    for (int i = 0; i < p->npods && i < PROM_MAX_PODS; i++)
        if (p->pod_hash[i] == k)
            return 1;
    return 0;
}

/* The pod lb (key pk) now holds GPU gs: count a change of pod and keep its labels; it is the
 * first pod of the scrape being collected in pp. */
static void hold_pod(gpudiag_gpu_series *gs, prom_pending *pp, const prom_labels *lb, uint64_t pk)
{
    if (gs->pod[0] && (strcmp(gs->pod, lb->pod) != 0 || strcmp(gs->k8s_namespace, lb->ns) != 0))
        gs->pod_changes++;
    snprintf(gs->pod, sizeof gs->pod, "%s", lb->pod);
    snprintf(gs->k8s_namespace, sizeof gs->k8s_namespace, "%s", lb->ns);
    snprintf(gs->container, sizeof gs->container, "%s", lb->container);
    pp->pod_hash[0] = pk;
    pp->npods = 1;
}

static gpudiag_status flush(gpudiag_series *s, prom_pending *pend, size_t npend, int64_t scrape, gd_lines *l,
                            gpudiag_error *err)
{
    for (size_t g = 0; g < npend; g++) {
        prom_pending *p = &pend[g];
        if (!p->any)
            continue;
        if (isnan(p->v[GPUDIAG_M_MEM_TOTAL_BYTES])) {
            if (!isnan(p->fb_total))
                p->v[GPUDIAG_M_MEM_TOTAL_BYTES] = p->fb_total;
            else if (!isnan(p->fb_free) && !isnan(p->v[GPUDIAG_M_MEM_USED_BYTES]))
                p->v[GPUDIAG_M_MEM_TOTAL_BYTES] = p->fb_free + p->v[GPUDIAG_M_MEM_USED_BYTES];
        }
        int64_t t = p->t_ms >= 0 ? p->t_ms * 1000 : scrape * s->interval_us;
        int empty = gd_series_empty_row(s, p->v, p->other || !isnan(p->fb_free) || !isnan(p->fb_total), l->line_no);
        gd_values_validate(s, p->v, l->line_no);
        if (!empty) { /* every value a blank sentinel: no sample */
            if (gpudiag_series_append(s, g, t, p->v) != GPUDIAG_OK)
                return gd_set_error(err, GPUDIAG_ERR_NOMEM, l->path, -1, "out of memory");
            s->rows++;
        }
        pending_clear(p);
    }
    return GPUDIAG_OK;
}

/* The reader's state across lines: a pending sample per entity, the scrape
 * count, and the metric-family block (lines of one family are listed together). */
typedef struct prom_state {
    prom_pending *pend;
    size_t npend, cap;
    int64_t scrape;
    uint32_t block;
    uint64_t last_name;
    int have_ts;
} prom_state;

/* One sample line after its name: labels, value and optional timestamp. */
typedef struct prom_sample {
    prom_labels lb;
    double x;
    int64_t ts_ms; /* -1 none */
} prom_sample;

/* Parse p[i..pn) (labels, value, timestamp) into *sm; -1 when the line is not a sample. */
static int parse_sample(const char *p, size_t pn, size_t i, prom_sample *sm)
{
    memset(&sm->lb, 0, sizeof sm->lb);
    if (i < pn && p[i] == '{') {
        const char *close = memchr(p + i, '}', pn - i);
        if (!close || parse_labels(p + i + 1, (size_t)(close - p - i - 1), &sm->lb) != 0)
            return -1;
        i = (size_t)(close - p) + 1;
    }
    gd_tok tok[3];
    size_t c = gd_split_ws(p + i, pn - i, tok, 3);
    if (c < 1 || c > 2)
        return -1;
    int ok;
    sm->x = gd_parse_value(tok[0].s, tok[0].n, &ok);
    if (!ok)
        return -1;
    sm->ts_ms = -1;
    if (c == 2) {
        double tv = gd_parse_value(tok[1].s, tok[1].n, &ok);
        if (ok && isfinite(tv) && tv > 0 && tv < 9e15)
            sm->ts_ms = (int64_t)tv;
    }
    return 0;
}

/* The entity (GPU or MIG instance) the labels name, with its name, bus id and
 * MIG profile noted; -1 when out of memory. */
static long sample_entity(gpudiag_series *s, gd_lines *l, const prom_labels *lb)
{
    int ok;
    double gi = gd_parse_value(lb->gpu, strlen(lb->gpu), &ok);
    /* (int) of NaN or of a number beyond int is undefined: such an index is unknown, and a number
     * that is no index (beyond int, negative, fractional, inf) is an invalid value */
    int index = gd_gpu_index(ok ? gi : NAN);
    if (index == GD_GPU_ID_INVALID) {
        gd_series_invalid(s, l->line_no);
        index = -1;
    }
    int mig = lb->mig_id[0] != 0;
    double mi = mig ? gd_parse_value(lb->mig_id, strlen(lb->mig_id), &ok) : NAN;
    int instance = mig ? gd_gpu_index(ok ? mi : NAN) : -1;
    if (instance == GD_GPU_ID_INVALID) {
        gd_series_invalid(s, l->line_no);
        instance = -1;
    }
    long g = gpudiag_series_gpu(s, mig ? GPUDIAG_ENTITY_GPU_I : GPUDIAG_ENTITY_GPU, index, instance,
                                lb->uuid[0] ? lb->uuid : NULL, lb->host);
    if (g < 0)
        return -1;
    gpudiag_gpu_series *gs = &s->gpus[g];
    if (!gs->name[0] && lb->model[0])
        snprintf(gs->name, sizeof gs->name, "%s", lb->model);
    if (!gs->bus_id[0] && lb->bus[0])
        snprintf(gs->bus_id, sizeof gs->bus_id, "%s", lb->bus);
    if (!gs->mig_profile[0] && lb->mig_profile[0])
        snprintf(gs->mig_profile, sizeof gs->mig_profile, "%s", lb->mig_profile);
    return g;
}

/* A pending sample for every entity up to g; -1 when out of memory. */
static int pending_upto(prom_state *ps, size_t g)
{
    while (g >= ps->npend) {
        if (ps->npend == ps->cap) {
            size_t nc = ps->cap ? ps->cap * 2 : 16;
            prom_pending *np = realloc(ps->pend, nc * sizeof *np);
            if (!np)
                return -1;
            ps->pend = np;
            ps->cap = nc;
        }
        prom_pending *pp = &ps->pend[ps->npend];
        pending_clear(pp);
        ps->npend++;
    }
    return 0;
}

/* Sample sm of metric (scaled by scale) for entity g into its pending sample;
 * a metric seen again starts the next scrape (flush). */
static gpudiag_status apply_sample(prom_state *ps, gpudiag_series *s, gd_lines *l, gpudiag_error *err, long g,
                                   int metric, double scale, const prom_sample *sm)
{
    prom_pending *pp = &ps->pend[g];
    const prom_labels *lb = &sm->lb;
    int64_t ts = sm->ts_ms;
    uint64_t pk = lb->pod[0] ? pod_key(lb) : 0;
    int bit = metric_bit(metric);
    if (pk && pp->npods && pk != pp->pod_hash[0] && bit >= 0 && pp->slot_block[bit] == ps->block) {
        /* time-slicing (dcgm-exporter#587): in the metric's block (the exposition format lists a
         * family's lines together) the same GPU once more under another pod: one GPU shared by
         * several pods, not a new sample or a pod change; the device value is the same for each
         * pod, so the first pod's is kept (DEFINITIONS "Time-sliced GPUs") */
        if (!pod_seen(pp, pk) && pp->npods < PROM_MAX_PODS) {
            pp->pod_hash[pp->npods++] = pk;
            if (pp->npods > s->gpus[g].pods)
                s->gpus[g].pods = pp->npods;
        }
        pp->any = 1;
        return GPUDIAG_OK;
    }
    if (pk && !pp->npods) { /* the pod holding the GPU: the first of a scrape; the last when it changes */
        gpudiag_gpu_series *gs = &s->gpus[g];
        hold_pod(gs, pp, lb, pk);
        if (gs->pods < 1)
            gs->pods = 1;
    }
    if (metric == P_IGNORE) { /* the GPU exists even if only unused families name it */
        pp->any = 1;
        if (!isnan(sm->x))
            pp->other = 1;
        return GPUDIAG_OK;
    }
    double *slot = metric == P_FB_FREE ? &pp->fb_free : metric == P_FB_TOTAL ? &pp->fb_total : &pp->v[metric];
    int seen = !isnan(*slot) || (bit >= 0 && pp->given[bit]) || (ts >= 0 && pp->t_ms >= 0 && ts != pp->t_ms);
    if (seen) { /* the next scrape started */
        gpudiag_status st = flush(s, ps->pend, ps->npend, ps->scrape, l, err);
        if (st != GPUDIAG_OK)
            return st;
        ps->scrape++;
    }
    if (pk && !pod_seen(pp, pk)) /* after a flush: this pod is the first of the new scrape */
        hold_pod(&s->gpus[g], pp, lb, pk);
    if (bit >= 0) {
        pp->slot_block[bit] = ps->block;
        pp->given[bit] = 1;
    }
    double x = sm->x * scale;
    /* NaN/±Inf are legal in the exposition format, but no GPU gauge reads them: invalid, as an
     * impossible number is (DEFINITIONS "Invalid monitoring values"); counted at this line */
    if (!gd_value_valid(metric < 0 ? GPUDIAG_M_MEM_USED_BYTES : metric, x)) {
        gd_series_invalid(s, l->line_no);
        x = NAN;
        pp->other = 1;
    }
    *slot = x;
    pp->any = 1;
    if (ts >= 0) {
        pp->t_ms = ts;
        ps->have_ts = 1;
    }
    return GPUDIAG_OK;
}

gpudiag_status gd_read_prom(gd_lines *l, gpudiag_series *s, gpudiag_error *err)
{
    prom_state ps;
    memset(&ps, 0, sizeof ps);
    ps.block = 1;
    gpudiag_status st = GPUDIAG_OK;
    const char *line;
    size_t n;
    int r;
    s->time_source = GPUDIAG_TIME_ASSUMED;
    s->interval_us = 30000000;
    while ((r = gd_lines_next(l, &line, &n, err)) == 1) {
        s->lines++;
        size_t b = 0;
        while (b < n && (line[b] == ' ' || line[b] == '\t'))
            b++;
        if (b == n || line[b] == '#')
            continue;
        const char *p = line + b;
        size_t pn = n - b, i = 0;
        while (i < pn && p[i] != '{' && p[i] != ' ')
            i++;
        int metric;
        double scale;
        map_name(p, i, &metric, &scale);
        {
            uint64_t h = 14695981039346656037ull;
            for (size_t c = 0; c < i; c++)
                h = (h ^ (unsigned char)p[c]) * 1099511628211ull;
            if (h != ps.last_name) {
                ps.block++;
                ps.last_name = h;
            }
        }
        prom_sample sm;
        if (parse_sample(p, pn, i, &sm) != 0) {
            gd_series_skip(s, l->line_no);
            continue;
        }
        long g = sample_entity(s, l, &sm.lb);
        if (g < 0 || pending_upto(&ps, (size_t)g) != 0) {
            st = gd_set_error(err, GPUDIAG_ERR_NOMEM, l->path, -1, "out of memory");
            break;
        }
        if ((st = apply_sample(&ps, s, l, err, g, metric, scale, &sm)) != GPUDIAG_OK)
            break;
    }
    if (st == GPUDIAG_OK) {
        if (r < 0)
            st = err ? err->code : GPUDIAG_ERR_IO;
        else
            st = flush(s, ps.pend, ps.npend, ps.scrape, l, err);
        if (ps.have_ts)
            s->time_source = GPUDIAG_TIME_ABSOLUTE;
    }
    free(ps.pend);
    return st;
}

/* "name{labels} value [timestamp]" with a metric the reader maps: the
 * reader's own rule (parse_sample), so that prose such as README's "gpudiag
 * 0.1.0  examples/..." is not a sample, nor any other "word number" line (a
 * Git LFS pointer's "size 48627712"; DEFINITIONS "Reading") */
static int line_is_prom_sample(const char *s, size_t n)
{
    size_t i = 0;
    if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == ':'))
        return 0;
    while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == ':'))
        i++;
    if (i < n && s[i] != '{' && s[i] != ' ')
        return 0;
    int metric;
    double scale;
    map_name(s, i, &metric, &scale);
    if (metric == P_IGNORE)
        return 0;
    prom_sample sm;
    return parse_sample(s, n, i, &sm) == 0;
}

/* "# HELP " / "# TYPE " or a sample line. */
static long sniff_prom(const char *buf, size_t len)
{
    gd_sniff_iter it = {buf, len, 0, 0};
    const char *t;
    size_t tn, indent;
    int line;
    while (gd_sniff_next(&it, &t, &tn, &indent, &line)) {
        if (t[0] == '#' ? gd_starts_with(t, tn, "# HELP ") || gd_starts_with(t, tn, "# TYPE ")
                        : line_is_prom_sample(t, tn))
            return GD_SNIFF_AT(line, 0);
    }
    return -1;
}

const gd_input_format gd_format_prom = {
    .name = "prom",
    .kind = GD_FMT_LOG,
    .id = GPUDIAG_LOG_PROM,
    .what = "dcgm-exporter Prometheus text",
    .sniff = sniff_prom,
    .read = gd_read_prom,
};
