/*
 * series_rules.c — findings and verdict for a monitoring series
 * (docs/FINDINGS.md "Monitoring logs"), and gpudiag_series_analyze().
 *
 * Each rule looks at the per-GPU summaries and adds at most one finding,
 * naming the GPUs it concerns and carrying the numbers of the worst one.
 * The verdict follows the tuning guides: the three-indicator quadrant (memory
 * full/low × compute high/low, bandwidth as the tie-breaker) and the
 * four-pipeline table (data supply, operator scheduling, communication/sync,
 * memory transfer).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/passes.h"
#include "gpudiag/specs.h"
#include "analyze/series_stats.h"
#include "diagnose/fbuild.h"
#include "model/report.h"
#include "model/series_internal.h"
#include "util/util.h"

typedef gd_fbuild sbuild;

/* ---- the catalogue (series_findings.def) ------------------------------- */

typedef enum {
#define GD_SFINDING(id, kind, bn, rule) GD_S_##id,
#include "diagnose/series_findings.def"
#undef GD_SFINDING
    GD_S_COUNT
} gd_sfinding_id;

#define GPUDIAG_BN_BY_GPU GPUDIAG_BN_UNKNOWN /* placeholder: the rule gives the GPU's class */

static const struct {
    const char *id;
    gd_finding_kind kind;
    gpudiag_bottleneck bottleneck;
} catalogue[GD_S_COUNT] = {
#define GD_SFINDING(id, kind, bn, rule) {#id, kind, GPUDIAG_BN_##bn},
#include "diagnose/series_findings.def"
#undef GD_SFINDING
};

/* With the bottleneck the rule gives (rows BY_GPU) and an estimated gain: the
 * share of run time a fix could save (docs/DEFINITIONS.md "Estimated gain of
 * monitoring findings"), clamped to 0..1; NaN: no estimate. */
static gpudiag_finding *add_gain_bn(sbuild *b, gd_sfinding_id id, gpudiag_severity sev, gpudiag_bottleneck bn,
                                    double gain)
{
    if (!isnan(gain))
        gain = gain < 0 ? 0 : gain > 1 ? 1 : gain;
    return gd_fb_add(b, catalogue[id].id, sev, catalogue[id].kind, bn, gain);
}

/* With the catalogue's bottleneck and an estimated gain. */
static gpudiag_finding *add_gain(sbuild *b, gd_sfinding_id id, gpudiag_severity sev, double gain)
{
    return add_gain_bn(b, id, sev, catalogue[id].bottleneck, gain);
}

/* A finding without a gain estimate (input notes, memory near capacity, ...). */
static gpudiag_finding *add(sbuild *b, gd_sfinding_id id, gpudiag_severity sev)
{
    return add_gain(b, id, sev, NAN);
}

/* Time the GPU spends not computing, down to the tuning guides' median target: a
 * GPU busy a fraction u of the time does its work in u ÷ 0.70 of the time
 * once it reaches the target, saving 1 − u ÷ 0.70 (0 at or above it). */
static double gain_to_target(const gpudiag_metric_stats *c)
{
    if (!c || isnan(c->mean))
        return NAN;
    return c->mean >= GD_SERIES_HEALTH_MEDIAN ? 0 : 1 - c->mean / GD_SERIES_HEALTH_MEDIAN;
}

/* Time lost in dips: a share d of the samples runs at m_dip instead of the
 * median; lifting them to the median saves d × (1 − m_dip ÷ median). */
static double gain_dips(const gpudiag_gpu_summary *g, const gpudiag_metric_stats *c)
{
    if (!c || isnan(g->dip_share) || isnan(g->dip_mean) || !(c->median > 0))
        return NAN;
    return g->dip_share * (1 - g->dip_mean / c->median);
}

/* "GPU 0", "GPU 0 GI 3", "GPU-I 3"; with the Kubernetes pod holding it when the
 * log names one: "GPU 1 (pod default/triton-5f7d9c6b8d-abcde)" */
static void gpu_label(const gpudiag_gpu_summary *g, char *buf, size_t cap)
{
    int n = gd_series_entity_label(g, buf, cap);
    if (g->pod[0] && n > 0 && (size_t)n < cap) {
        if (g->pods > 1) /* time-sliced: several pods share the GPU */
            snprintf(buf + n, cap - (size_t)n, " (pod %s%s%s and %d more sharing it)", g->k8s_namespace,
                     g->k8s_namespace[0] ? "/" : "", g->pod, g->pods - 1);
        else
            snprintf(buf + n, cap - (size_t)n, " (pod %s%s%s)", g->k8s_namespace, g->k8s_namespace[0] ? "/" : "",
                     g->pod);
    }
}

/* List the GPUs for which pick() is true into buf; returns how many. */
typedef int (*pick_fn)(const gpudiag_gpu_summary *g);
static size_t list_gpus(const gpudiag_series_summary *s, pick_fn pick, char *buf, size_t cap, size_t *first)
{
    size_t k = 0, len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < s->gpu_count; i++) {
        if (!pick(&s->gpus[i]))
            continue;
        if (k == 0)
            *first = i;
        char one[400];
        gpu_label(&s->gpus[i], one, sizeof one);
        if (k < 8 && len + strlen(one) + 3 < cap)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? ", " : "", one);
        else if (k == 8 && len + 6 < cap)
            len += (size_t)snprintf(buf + len, cap - len, ", ...");
        k++;
    }
    return k;
}

static const gpudiag_metric_stats *cstats(const gpudiag_gpu_summary *g)
{
    return g->compute_metric < GPUDIAG_M_COUNT ? &g->stats[g->compute_metric] : NULL;
}

/* never NULL: the absent indicator reads as NaN */
static const gpudiag_metric_stats *cs(const gpudiag_gpu_summary *g)
{
    static const gpudiag_metric_stats none = {0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    const gpudiag_metric_stats *c = cstats(g);
    return c ? c : &none;
}

/* Its video engines busy and its SMs nearly idle (compute median below GD_SERIES_WORK_MIN): a video
 * (encode/decode) GPU, to which the training targets and classes do not apply; with more compute
 * (NVDEC feeding a training job: DALI) the classes apply as usual (DEFINITIONS "GPU states") */
static int video_gpu(const gpudiag_gpu_summary *g)
{
    return g->video_busy && !(cs(g)->median >= GD_SERIES_WORK_MIN);
}

/* "encoder median 88 %, decoder median 71 %": the encoder and decoder when the log has them, the
 * JPEG decoder and optical-flow engine when they worked (a dmon log of newer drivers has their
 * columns on every GPU) */
static void video_engines_phrase(const gpudiag_gpu_summary *g, char *buf, size_t len)
{
    static const struct {
        gpudiag_metric m;
        const char *name;
        int only_busy;
    } eng[] = {{GPUDIAG_M_ENC_UTIL, "encoder", 0},
               {GPUDIAG_M_DEC_UTIL, "decoder", 0},
               {GPUDIAG_M_JPG_UTIL, "JPEG decoder", 1},
               {GPUDIAG_M_OFA_UTIL, "optical flow", 1}};
    size_t wl = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < sizeof eng / sizeof eng[0] && wl < len; k++) {
        const gpudiag_metric_stats *e = &g->stats[eng[k].m];
        if (!e->n || (eng[k].only_busy && !(e->max > 0)))
            continue;
        int w = snprintf(buf + wl, len - wl, "%s%s median %.0f %%", wl ? ", " : "", eng[k].name, 100 * e->median);
        if (w < 0)
            break;
        wl += (size_t)w;
    }
}

static int pick_low_util(const gpudiag_gpu_summary *g)
{
    return g->in_use && !g->idle_holding_memory && !video_gpu(g) && cstats(g) && cstats(g)->n >= 2 &&
           (g->health_median_ok == 0 || g->health_p10_ok == 0 || g->health_low_ok == 0);
}
static int pick_sawtooth(const gpudiag_gpu_summary *g)
{
    return !isnan(g->dip_period_us) && !isnan(g->traffic_corr) && g->traffic_corr <= -GD_SERIES_TRAFFIC_CORR;
}
static int pick_dips(const gpudiag_gpu_summary *g) { return !isnan(g->dip_period_us) && !pick_sawtooth(g); }
/* The power a GPU's draw is measured against (DEFINITIONS "GPU-Util busy, SMs not"): its logged
 * power limit, else the GPU table's TDP for its name; NaN when neither is known (dmon logs neither). */
static double power_ref_w(const gpudiag_gpu_summary *g)
{
    const gpudiag_metric_stats *l = &g->stats[GPUDIAG_M_POWER_LIMIT_W];
    if (l->n && l->median > 0)
        return l->median;
    const gpudiag_gpu_spec *sp = g->name[0] ? gpudiag_gpu_find(g->name) : NULL;
    return sp && sp->tdp_w > 0 ? sp->tdp_w : NAN;
}

/* GPU-Util pegged, SMs (or, without SM active, the memory controller) quiet, for a minute or more,
 * on a GPU some process holds (memory used, where logged, >= 64 MiB): the shape of a hung collective
 * before the power is looked at (DEFINITIONS "GPU-Util busy, SMs not"). */
static int hang_shape(const gpudiag_gpu_summary *g)
{
    const gpudiag_metric_stats *u = &g->stats[GPUDIAG_M_GPU_UTIL], *a = &g->stats[GPUDIAG_M_SM_ACTIVE],
                               *m = &g->stats[GPUDIAG_M_MEM_UTIL], *used = &g->stats[GPUDIAG_M_MEM_USED_BYTES];
    /* each sample reports the period before it: n samples 1 s apart observe n seconds */
    double span = g->duration_us + (isnan(g->interval_us) ? 0 : g->interval_us);
    int quiet = a->n ? a->median <= GD_SERIES_HANG_SMACT_MAX : m->n && m->median <= GD_SERIES_HANG_MEMUTIL_MAX;
    int held = !(used->n && used->median < GD_SERIES_HANG_MEM_USED_MIN);
    return u->n && u->median >= GD_SERIES_HANG_UTIL_MIN && quiet && held && span >= GD_SERIES_HANG_MIN_US;
}

/* The pattern of a hung collective: hang_shape() and power near idle; power ÷ reference into *pshare
 * (NaN unknown).  Without SM active the power and a reference for it (power_ref_w) must be known:
 * GPU-Util and a quiet memory controller alone also fit a compute-only kernel, and a healthy GPU at
 * 87 % of its TDP was called hung when a missing limit counted as "near idle" (a new user's
 * dcgm-exporter scrape without DCGM_FI_DEV_POWER_MGMT_LIMIT). */
static int hang_signature(const gpudiag_gpu_summary *g, double *pshare)
{
    const gpudiag_metric_stats *a = &g->stats[GPUDIAG_M_SM_ACTIVE], *p = &g->stats[GPUDIAG_M_POWER_W];
    double ref = power_ref_w(g);
    *pshare = p->n && !isnan(ref) ? p->median / ref : NAN;
    if (!hang_shape(g))
        return 0;
    if (!a->n && isnan(*pshare))
        return 0;
    return !(*pshare > GD_SERIES_HANG_POWER_MAX);
}

/* hang_shape() without SM active and without a power reference: a compute-only kernel and a hung
 * collective cannot be told apart; the verdict says so instead of choosing. */
static int hang_undecided(const gpudiag_gpu_summary *g)
{
    double pshare;
    return hang_shape(g) && !g->stats[GPUDIAG_M_SM_ACTIVE].n && !hang_signature(g, &pshare) && isnan(pshare);
}

static int pick_misleading(const gpudiag_gpu_summary *g)
{
    const gpudiag_metric_stats *u = &g->stats[GPUDIAG_M_GPU_UTIL], *a = &g->stats[GPUDIAG_M_SM_ACTIVE],
                               *t = &g->stats[GPUDIAG_M_TENSOR_ACTIVE];
    if (!u->n || u->median < GD_SERIES_UTIL_MISLEADING)
        return 0;
    double pshare;
    return (a->n && a->median < GD_SERIES_SMACT_EFFECTIVE && u->median - a->median >= GD_SERIES_UTIL_SMACT_GAP) ||
           (t->n && t->median < GD_SERIES_TENSOR_LOW) || hang_signature(g, &pshare);
}
/* some GPU of the log (not a MIG parent) shows the hung-collective pattern */
static int any_hang(const gpudiag_series_summary *s)
{
    double pshare;
    for (size_t i = 0; i < s->gpu_count; i++)
        if (pick_misleading(&s->gpus[i]) && hang_signature(&s->gpus[i], &pshare))
            return 1;
    return 0;
}
/* a GPU doing no work beside pegged ones: the rank a hung collective may wait for */
static int pick_idle_peer(const gpudiag_gpu_summary *g)
{
    const gpudiag_metric_stats *u = &g->stats[GPUDIAG_M_GPU_UTIL];
    return g->idle_holding_memory || (cstats(g) && cstats(g)->n && cstats(g)->max < GD_SERIES_WORK_MIN &&
                                      (!u->n || u->max < GD_SERIES_WORK_MIN));
}
static int pick_headroom(const gpudiag_gpu_summary *g)
{
    /* >= 2 samples, as low_gpu_utilization: one snapshot's level says nothing about a run's headroom */
    /* not a video GPU: raising a training micro-batch is no advice for a transcoder (DEFINITIONS "GPU states") */
    return g->in_use && !g->idle_holding_memory && !video_gpu(g) && g->samples >= 2 && !isnan(g->mem_used_share) &&
           g->mem_used_share < GD_SERIES_MEM_HEADROOM && g->compute_level && strcmp(g->compute_level, "low") == 0;
}
static int pick_near_cap(const gpudiag_gpu_summary *g)
{
    return !isnan(g->mem_used_share_max) && g->mem_used_share_max >= GD_SERIES_MEM_NEAR_CAP;
}
#define HW_BITS (GPUDIAG_REASON_HW_SLOWDOWN | GPUDIAG_REASON_HW_THERMAL | GPUDIAG_REASON_HW_POWER_BRAKE | GPUDIAG_REASON_SW_THERMAL)
/* The counters of one snapshot (no share can be formed): >= 1 s held down since the driver loaded
 * (DEFINITIONS "One -q snapshot") */
static int counters_since_load(const gpudiag_gpu_summary *g)
{
    return isnan(g->throttle_counter_share) && g->stats[GPUDIAG_M_THROTTLE_TIME_US].n &&
           g->stats[GPUDIAG_M_THROTTLE_TIME_US].max >= GD_SERIES_THROTTLE_COUNTER_MIN_US;
}
/* thermal or hardware slowdown: HW/thermal reason bits, a thermal violation, the slowdown temperature
 * reached, or thermal counter time in a snapshot */
static int hw_throttle(const gpudiag_gpu_summary *g)
{
    return (g->reasons_any & HW_BITS) != 0 ||
           (!isnan(g->stats[GPUDIAG_M_THERMAL_VIOLATION].max) && g->stats[GPUDIAG_M_THERMAL_VIOLATION].max > 0) ||
           (!isnan(g->temp_at_slowdown_share) && g->temp_at_slowdown_share > 0) ||
           (counters_since_load(g) && g->stats[GPUDIAG_M_THERMAL_THROTTLE_TIME_US].max > 0);
}
static int pick_throttle(const gpudiag_gpu_summary *g)
{
    int reasons = !isnan(g->throttle_share) &&
                  (g->throttle_share >= GD_SERIES_THROTTLE_SHARE || (g->samples == 1 && g->throttle_share > 0));
    int clocks = !isnan(g->clock_below_max_share) && g->clock_below_max_share >= 0.2;
    int counters = !isnan(g->throttle_counter_share) && g->throttle_counter_share >= GD_SERIES_THROTTLE_SHARE;
    return reasons || clocks || counters || counters_since_load(g);
}
static int pick_pcie(const gpudiag_gpu_summary *g) { return g->pcie_degraded == 1; }
static int pick_idle_mem(const gpudiag_gpu_summary *g) { return g->idle_holding_memory; }
static int pick_prof_unreported(const gpudiag_gpu_summary *g) { return g->profiling_unreported; }
/* a GPU a Kubernetes pod holds that did no work and held no memory all log, over >= 2 samples (one
 * snapshot of an inference server between requests says nothing) (DEFINITIONS "GPU states") */
static int pick_idle_allocated(const gpudiag_gpu_summary *g)
{
    return g->pod[0] && g->compute_metric < GPUDIAG_M_COUNT && !g->in_use && g->samples >= 2;
}
/* busy time only: the compute indicator is GPU-Util, or GR engine active without any SM-level
 * field (SM active, SM occupancy, tensor active) — DEFINITIONS "GPU-Util alone" */
static int busy_time_only(const gpudiag_gpu_summary *g)
{
    return g->compute_metric == GPUDIAG_M_GPU_UTIL ||
           (g->compute_metric == GPUDIAG_M_GR_ENGINE_ACTIVE && !g->stats[GPUDIAG_M_TENSOR_ACTIVE].n &&
            !g->stats[GPUDIAG_M_SM_OCCUPANCY].n);
}

/* In use, but idle most of the time: compute median below GD_SERIES_WORK_MIN with bursts above it
 * (DEFINITIONS "Classification", rule 1b) */
static int mostly_idle(const gpudiag_gpu_summary *g)
{
    const gpudiag_metric_stats *c = cstats(g), *u = &g->stats[GPUDIAG_M_GPU_UTIL];
    return c && g->in_use && !g->idle_holding_memory && !g->video_busy && g->samples >= 2 &&
           c->median < GD_SERIES_WORK_MIN &&
           (!u->n || u->median < GD_SERIES_WORK_MIN); /* GPU-Util busy is never idle */
}

/* host_launch read from busy time alone (GPU-Util, or GR engine active without an SM-level field),
 * not from gpu_util_misleading: an idle share whose cause the log cannot name (DEFINITIONS
 * "Classification", rule 7, busy time alone). After classify(). */
static int cause_unnamed(const gpudiag_gpu_summary *g)
{
    return g->bottleneck == GPUDIAG_BN_HOST_LAUNCH && busy_time_only(g) && !pick_misleading(g) && cstats(g);
}

/* The tuning guides' classification of one GPU (DEFINITIONS "Monitoring series"). */
static void classify(gpudiag_gpu_summary *g)
{
    g->bottleneck = GPUDIAG_BN_UNKNOWN;
    g->pipeline = NULL;
    const gpudiag_metric_stats *c = cstats(g);
    if (!c || !g->in_use || g->idle_holding_memory)
        return;
    if (pick_throttle(g) && ((g->reasons_any & HW_BITS) || g->clock_below_max_share >= 0.2 ||
                             (!isnan(g->temp_at_slowdown_share) && g->temp_at_slowdown_share > 0) ||
                             (!isnan(g->stats[GPUDIAG_M_THERMAL_VIOLATION].max) && g->stats[GPUDIAG_M_THERMAL_VIOLATION].max > 0) ||
                             g->stats[GPUDIAG_M_POWER_VIOLATION].median >= GD_SERIES_THROTTLE_SHARE)) {
        g->bottleneck = GPUDIAG_BN_THROTTLING;
        return;
    }
    if (g->samples < 2) /* one sample: a level at one moment, no time series to classify */
        return;
    if (video_gpu(g)) /* encoding/decoding: no training class applies */
        return;
    if (mostly_idle(g)) /* short bursts in an idle log: too little work to tell what it waits for */
        return;
    /* GPU-Util pegged with memory traffic and power near idle (no SM active logged): busy time, not load —
     * rule 7, never compute (DEFINITIONS "GPU-Util busy, SMs not — or a hung collective") */
    double pshare;
    if (busy_time_only(g) && hang_signature(g, &pshare)) {
        g->bottleneck = GPUDIAG_BN_HOST_LAUNCH;
        g->pipeline = "operator_scheduling";
        return;
    }
    /* compute high and healthy: p10 and low share pass too (dips are a pattern, below) */
    if (g->compute_level && strcmp(g->compute_level, "high") == 0 && g->health_p10_ok != 0 && g->health_low_ok != 0) {
        g->bottleneck = GPUDIAG_BN_COMPUTE;
        g->pipeline = "compute";
        return;
    }
    if (pick_sawtooth(g)) {
        g->bottleneck = GPUDIAG_BN_COMMUNICATION;
        g->pipeline = "communication_sync";
    } else if (pick_dips(g) || (g->compute_level && strcmp(g->compute_level, "high") == 0)) {
        /* compute high but dipping (p10 or low share missed), periodic or not: dips / data supply,
         * never bandwidth — busy SMs are not bandwidth-starved (DEFINITIONS "Classification", rule 3) */
        g->bottleneck = GPUDIAG_BN_DATA_PIPELINE;
        g->pipeline = "data_supply";
    } else if (g->bandwidth_level && strcmp(g->bandwidth_level, "high") == 0) {
        g->bottleneck = GPUDIAG_BN_MEMORY_BANDWIDTH;
        g->pipeline = "memory_transfer";
    } else if ((c->median >= GD_SERIES_LOW_UTIL && c->low_share < GD_SERIES_HEALTH_LOW_SHARE) || pick_misleading(g)) {
        /* GPU-Util busy but the SMs are not (gpu_util_misleading): kernels run all the time yet fill few
         * SMs — too small or launch-bound, not a GPU waiting for data (DEFINITIONS "Classification", rule 7) */
        g->bottleneck = GPUDIAG_BN_HOST_LAUNCH; /* steady but moderate: kernels too small, launch overhead */
        g->pipeline = "operator_scheduling";
    } else {
        g->bottleneck = GPUDIAG_BN_DATA_PIPELINE; /* low and low, no pattern: the GPU waits for work */
        g->pipeline = "data_supply";
    }
}

static void rule_low_gpu_utilization(sbuild *b, gpudiag_series_summary *s)
{
    char gpus[2048];
    size_t first = 0;
    if (!list_gpus(s, pick_low_util, gpus, sizeof gpus, &first))
        return;
    /* the numbers of the first named GPU that is not mostly idle: a mostly idle one shows no work a
     * fix could speed up (DEFINITIONS "A mostly idle GPU has no gain") */
    for (size_t i = first; i < s->gpu_count; i++)
        if (pick_low_util(&s->gpus[i]) && !mostly_idle(&s->gpus[i])) {
            first = i;
            break;
        }
    const gpudiag_gpu_summary *g = &s->gpus[first];
    const gpudiag_metric_stats *c = cs(g);
    int idle = mostly_idle(g); /* every GPU it names is mostly idle */
    gpudiag_severity sev = c->median < 0.3   ? GPUDIAG_SEV_HIGH
                           : c->median < 0.5 ? GPUDIAG_SEV_MEDIUM
                                             : GPUDIAG_SEV_LOW;
    /* a short look says less: one level lower, and the title says why */
    int few = g->samples < GD_SERIES_FEW_SAMPLES;
    if (few && sev > GPUDIAG_SEV_LOW)
        sev = (gpudiag_severity)(sev - 1);
    char fewtxt[80] = "";
    if (few)
        snprintf(fewtxt, sizeof fewtxt, "; %zu samples (fewer than %d): low confidence", g->samples,
                 GD_SERIES_FEW_SAMPLES);
    double gain = idle ? NAN /* no measured work to speed up: the verdict's "mostly idle" */
                  : isnan(gain_dips(g, c)) || gain_to_target(c) > gain_dips(g, c) ? gain_to_target(c)
                                                                                  : gain_dips(g, c);
    gpudiag_finding *f = add_gain_bn(b, GD_S_low_gpu_utilization, sev, g->bottleneck, gain);
    gd_fb_ev(f, "gpu_index", g->index);
    gd_fb_ev(f, "median", c->median);
    gd_fb_ev(f, "p10", c->p10);
    gd_fb_ev(f, "low_share", c->low_share);
    gd_fb_ev(f, "mean", c->mean);
    gd_fb_ev(f, "jitter", c->jitter);
    if (idle) {
        gd_fb_text(b, f,
             gd_format("%s mostly idle: %s median %.0f %%, bursts up to %.0f %%, %.0f %% of samples under 30 %% "
                       "(training health targets: median >= 70 %%, under 30 %% < 10 %%); no measured work to "
                       "speed up, no gain estimated%s",
                       gpus, gpudiag_metric_name(g->compute_metric), 100 * c->median, 100 * c->max,
                       100 * c->low_share, fewtxt),
             gd_format("An allocated GPU that idles most of the time is capacity lost to the cluster's other users. "
                       "The log shows too little work to estimate what a fix would give back: if a job should be "
                       "keeping it busy, profile a few steps (torch.profiler, Nsight Systems) and run `gpudiag "
                       "analyze` on the trace to see where it stalls; if not, release the GPU."));
        return;
    }
    gd_fb_text(b, f,
         gd_format("%s below common health targets for training: %s median %.0f %% (%s >= 70 %%), p10 %.0f %% "
                   "(%s >= 40 %%), %.0f %% of samples under 30 %% (%s < 10 %%)%s",
                   gpus, gpudiag_metric_name(g->compute_metric), 100 * c->median,
                   g->health_median_ok == 1 ? "meets" : "target", 100 * c->p10,
                   g->health_p10_ok == 1 ? "meets" : "target", 100 * c->low_share,
                   g->health_low_ok == 1 ? "meets" : "target", fewtxt),
         gd_format("The targets (median >= 70 %%, p10 >= 40 %%, under 30 %% less than 10 %% of the time) are a "
                   "rule of thumb from practitioners' guides to GPU utilisation in LLM training: a GPU that "
                   "meets them is kept busy. The estimated gain is a prior from that rule, not a measurement: it "
                   "assumes the work could keep the GPU busy 70 %% of the time (an inference server between "
                   "requests cannot). Act on the verdict's cause first where it names one; profile a few steps "
                   "(torch.profiler, Nsight Systems) and run `gpudiag analyze` on the trace to see where the GPU "
                   "waits."));
}

static void rule_communication_sawtooth(sbuild *b, gpudiag_series_summary *s)
{
    char gpus[2048];
    size_t first = 0;
    if (!list_gpus(s, pick_sawtooth, gpus, sizeof gpus, &first))
        return;
    const gpudiag_gpu_summary *g = &s->gpus[first];
    gpudiag_finding *f = add_gain(b, GD_S_communication_sawtooth, GPUDIAG_SEV_MEDIUM, gain_dips(g, cs(g)));
    gd_fb_ev(f, "gpu_index", g->index);
    gd_fb_ev(f, "period_us", g->dip_period_us);
    gd_fb_ev(f, "traffic_corr", g->traffic_corr);
    gd_fb_text(b, f,
         gd_format("%s: compute falls while interconnect traffic rises, every %.1f s (sawtooth)", gpus,
                   g->dip_period_us / 1e6),
         gd_format("Gradient synchronisation is not overlapped with compute: DDP bucket_cap_mb (e.g. 64), "
                   "gradient_as_bucket_view=True, fewer syncs with gradient accumulation (no_sync), ZeRO-3 "
                   "prefetch; check NCCL uses NVLink/InfiniBand, not PCIe/TCP."));
}

static void rule_utilization_dips(sbuild *b, gpudiag_series_summary *s)
{
    char gpus[2048];
    size_t first = 0;
    if (!list_gpus(s, pick_dips, gpus, sizeof gpus, &first))
        return;
    const gpudiag_gpu_summary *g = &s->gpus[first];
    gpudiag_finding *f = add_gain(b, GD_S_utilization_dips, GPUDIAG_SEV_MEDIUM, gain_dips(g, cs(g)));
    gd_fb_ev(f, "gpu_index", g->index);
    gd_fb_ev(f, "period_us", g->dip_period_us);
    gd_fb_ev(f, "acf", g->dip_acf);
    gd_fb_ev(f, "low_share", cs(g)->low_share);
    gd_fb_text(b, f,
         gd_format("%s: %s dips repeat every %.1f s (autocorrelation %.2f)", gpus,
                   gpudiag_metric_name(g->compute_metric), g->dip_period_us / 1e6, g->dip_acf),
         gd_format("A dip at a fixed period is a sync point or the input pipeline: if the period matches the "
                   "step time, look for .item()/.cpu() syncs and DataLoader stalls (num_workers, "
                   "prefetch_factor 4-6, pin_memory=True, persistent_workers=True); if it matches the logging "
                   "or checkpoint interval, make those asynchronous."));
}

static void rule_gpu_util_misleading(sbuild *b, gpudiag_series_summary *s)
{
    char gpus[2048];
    size_t first = 0;
    if (!list_gpus(s, pick_misleading, gpus, sizeof gpus, &first))
        return;
    const gpudiag_gpu_summary *g = &s->gpus[first];
    const gpudiag_metric_stats *a = &g->stats[GPUDIAG_M_SM_ACTIVE], *t = &g->stats[GPUDIAG_M_TENSOR_ACTIVE],
                               *p = &g->stats[GPUDIAG_M_POWER_W], *m = &g->stats[GPUDIAG_M_MEM_UTIL];
    gpudiag_finding *f = add(b, GD_S_gpu_util_misleading, GPUDIAG_SEV_MEDIUM);
    gd_fb_ev(f, "gpu_index", g->index);
    gd_fb_ev(f, "gpu_util_median", g->stats[GPUDIAG_M_GPU_UTIL].median);
    gd_fb_ev(f, "sm_active_median", g->stats[GPUDIAG_M_SM_ACTIVE].median);
    gd_fb_ev(f, "tensor_active_median", g->stats[GPUDIAG_M_TENSOR_ACTIVE].median);
    double pshare;
    int hang = hang_signature(g, &pshare);
    gd_fb_ev(f, "possible_hang", hang);
    if (!isnan(pshare))
        gd_fb_ev(f, "power_limit_share", pshare);
    int no_sm = !a->n && !t->n; /* nvidia-smi, dmon: flagged by the hang pattern alone */
    if (no_sm)
        gd_fb_ev(f, "mem_util_median", m->median);
    /* only the fields the log has: an absent one is not "nan %" */
    char sm[48] = "", tc[48] = "", pw[64] = "";
    if (a->n)
        snprintf(sm, sizeof sm, "SM active %.0f %%", 100 * a->median);
    else if (no_sm)
        snprintf(sm, sizeof sm, "memory controller %.0f %%", 100 * m->median);
    if (t->n)
        snprintf(tc, sizeof tc, "%stensor active %.0f %%", a->n ? ", " : "", 100 * t->median);
    if (hang && p->n)
        snprintf(pw, sizeof pw, isnan(pshare) ? ", power %.0f W" : ", power %.0f W (%.0f %% of its limit)",
                 p->median, 100 * pshare);
    char *rec = gd_format("GPU-Util counts time with any kernel running. Raise the work per kernel: larger batch or "
                          "more model instances/concurrent requests, dimensions multiple of 8, BF16/FP16 or INT8 "
                          "Tensor Core paths, fused kernels (torch.compile, FlashAttention).");
    if (hang) {
        char *more = gd_format(
             "GPU-Util pegged with %s%s for %.1f min is also what a hung collective looks like: "
             "an NCCL/RCCL kernel spins on the few SMs of its channels waiting for a peer that never arrives (a "
             "rank that crashed, diverged or skipped the collective), and stays so until a timeout. The log "
             "alone cannot tell the two apart: check whether the job still makes progress (step counter, loss "
             "log); if not, run py-spy dump --pid PID on every rank to see which call each waits in, rerun with "
             "NCCL_DEBUG=INFO, and let PyTorch's NCCL watchdog end a hang with a report instead of holding "
             "the GPUs (a shorter init_process_group timeout; TORCH_NCCL_DUMP_ON_TIMEOUT=1 with "
             "TORCH_NCCL_TRACE_BUFFER_SIZE > 0 dumps the flight recorder; TORCH_NCCL_DESYNC_DEBUG=1 names "
             "the rank out of step). %s",
             no_sm ? "no memory traffic" : "the SMs almost idle", p->n ? " and power near idle" : "",
             g->duration_us / 60e6, rec);
        free(rec);
        rec = more;
    }
    gd_fb_text(b, f, gd_format("%s: GPU-Util %.0f %% but %s%s%s: busy is not full load", gpus,
                               100 * g->stats[GPUDIAG_M_GPU_UTIL].median, sm, tc, pw),
               rec);
}

static void rule_memory_headroom(sbuild *b, gpudiag_series_summary *s)
{
    char gpus[2048];
    size_t first = 0;
    if (!list_gpus(s, pick_headroom, gpus, sizeof gpus, &first))
        return;
    const gpudiag_gpu_summary *g = &s->gpus[first];
    /* No gain (DEFINITIONS "Estimated gain of monitoring findings"): the idle time is
     * low_gpu_utilization's, and a log cannot tell how much of it a larger batch amortises. */
    gpudiag_finding *f = add_gain_bn(b, GD_S_memory_headroom, GPUDIAG_SEV_LOW, g->bottleneck, NAN);
    gd_fb_ev(f, "gpu_index", g->index);
    gd_fb_ev(f, "mem_used_share", g->mem_used_share);
    gd_fb_ev(f, "compute_median", cs(g)->median);
    /* the advice follows the class (DEFINITIONS "Estimated gain of monitoring findings"): a GPU starved
     * of input or held down by its clocks gains nothing from a larger micro-batch until that is fixed */
    int starved = 0, throttled = 0, idle = 0, unnamed = 0;
    for (size_t i = 0; i < s->gpu_count; i++)
        if (pick_headroom(&s->gpus[i])) {
            starved |= s->gpus[i].bottleneck == GPUDIAG_BN_DATA_PIPELINE;
            throttled |= s->gpus[i].bottleneck == GPUDIAG_BN_THROTTLING;
            idle |= mostly_idle(&s->gpus[i]);
            unnamed |= cause_unnamed(&s->gpus[i]);
        }
    gd_fb_ev(f, "data_starved", starved);
    gd_fb_ev(f, "cause_unnamed", unnamed);
    const char *rest = "the micro-batch until memory use is near 85 % and make up the global batch with fewer "
                       "gradient-accumulation steps; turn off activation checkpointing or CPU offload you no longer "
                       "need.";
    gd_fb_text(b, f,
         gd_format("%s: memory %.0f %% used while compute is low (median %.0f %%)", gpus, 100 * g->mem_used_share,
                   100 * cs(g)->median),
         starved ? gd_format("Fix the input pipeline first: this GPU waits for data (class data_pipeline: low "
                             "compute with idle gaps), and a larger micro-batch makes each step wait longer for "
                             "its input without raising the share of time the GPU works. Feed it first (more "
                             "loader workers, prefetching, pinned host memory, faster storage or decoding); once "
                             "compute is steady, use the free memory: raise %s", rest)
         : idle ? gd_format("Find out why the GPU idles first: it is idle most of the time (no class: too little "
                            "work to tell what it waits for), and a larger micro-batch does not help a GPU that "
                            "has nothing to run. Profile a few steps of the job that should be running on it; once "
                            "it is busy, use the free memory: raise %s", rest)
         : throttled ? gd_format("Fix the clocks first (see throttling): a larger micro-batch does not help a GPU "
                                 "held below its clocks. Then use the free memory: raise %s", rest)
         : unnamed ? gd_format("Raise %s A larger micro-batch amortises launch pacing and per-step overhead, but not "
                               "an input pipeline that is behind: busy time alone (GPU-Util, GR engine active) does "
                               "not say which keeps the GPU idle between bursts. If it does not rise, profile a few "
                               "steps (torch.profiler) to see what it waits for.", rest)
                     : gd_format("Raise %s", rest));
}

static void rule_memory_near_capacity(sbuild *b, gpudiag_series_summary *s)
{
    char gpus[2048];
    size_t first = 0;
    if (!list_gpus(s, pick_near_cap, gpus, sizeof gpus, &first))
        return;
    const gpudiag_gpu_summary *g = &s->gpus[first];
    gpudiag_finding *f = add(b, GD_S_memory_near_capacity, GPUDIAG_SEV_LOW);
    gd_fb_ev(f, "gpu_index", g->index);
    gd_fb_ev(f, "mem_used_share_max", g->mem_used_share_max);
    gd_fb_text(b, f, gd_format("%s: memory up to %.1f %% used", gpus, 100 * g->mem_used_share_max),
         gd_format("One longer sequence or fragmentation away from OOM; memory full says nothing about speed. "
                   "Keep ~15 %% headroom (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True), and judge speed "
                   "by compute, not memory."));
}

static void rule_throttling(sbuild *b, gpudiag_series_summary *s)
{
    char gpus[2048];
    size_t first = 0;
    if (!list_gpus(s, pick_throttle, gpus, sizeof gpus, &first))
        return;
    const gpudiag_gpu_summary *g = &s->gpus[first];
    int hw = hw_throttle(g);
    int pv = g->stats[GPUDIAG_M_POWER_VIOLATION].median >= GD_SERIES_THROTTLE_SHARE;
    /* time lost to lower clocks: the throttled share × the clock lost in it (compute-bound work
     * scales with the clock, so this is an upper bound); unknown without SM clocks */
    gpudiag_severity sev = hw ? GPUDIAG_SEV_HIGH : pv ? GPUDIAG_SEV_MEDIUM : GPUDIAG_SEV_LOW;
    gpudiag_finding *f = add_gain(b, GD_S_throttling, sev,
                 /* the counters measure time continuously; reason bits are point samples */
                 (isnan(g->throttle_counter_share) ? g->throttle_share : g->throttle_counter_share) *
                     g->throttle_clock_loss);
    gd_fb_ev(f, "throttle_clock_loss", g->throttle_clock_loss);
    gd_fb_ev(f, "throttle_counter_share", g->throttle_counter_share);
    gd_fb_ev(f, "gpu_index", g->index);
    gd_fb_ev(f, "throttle_share", g->throttle_share);
    gd_fb_ev(f, "reason_bits", (double)g->reasons_any);
    gd_fb_ev(f, "clock_below_max_share", g->clock_below_max_share);
    gd_fb_ev(f, "power_violation_max", g->stats[GPUDIAG_M_POWER_VIOLATION].max);
    if (counters_since_load(g)) {
        gd_fb_ev(f, "throttle_time_s", g->stats[GPUDIAG_M_THROTTLE_TIME_US].max / 1e6);
        gd_fb_ev(f, "thermal_throttle_time_s", g->stats[GPUDIAG_M_THERMAL_THROTTLE_TIME_US].n
                                                   ? g->stats[GPUDIAG_M_THERMAL_THROTTLE_TIME_US].max / 1e6
                                                   : 0);
    }
    if (!isnan(g->temp_at_slowdown_share)) {
        gd_fb_ev(f, "temp_at_slowdown_share", g->temp_at_slowdown_share);
        gd_fb_ev(f, "temp_c_max", g->stats[GPUDIAG_M_TEMP_C].max);
        gd_fb_ev(f, "temp_slowdown_c", g->stats[GPUDIAG_M_TEMP_SLOWDOWN_C].min);
    }
    char why[320] = "";
    size_t wl = 0;
    static const struct {
        uint64_t bit;
        const char *name;
    } names[] = {{GPUDIAG_REASON_SW_POWER_CAP, "SW power cap"}, {GPUDIAG_REASON_HW_SLOWDOWN, "HW slowdown"},
                 {GPUDIAG_REASON_HW_THERMAL, "HW thermal slowdown"}, {GPUDIAG_REASON_SW_THERMAL, "SW thermal slowdown"},
                 {GPUDIAG_REASON_HW_POWER_BRAKE, "HW power brake"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (g->reasons_any & names[i].bit)
            wl += (size_t)snprintf(why + wl, sizeof why - wl, "%s%s", wl ? ", " : "", names[i].name);
    if (!wl && !isnan(g->stats[GPUDIAG_M_POWER_VIOLATION].max) && g->stats[GPUDIAG_M_POWER_VIOLATION].max > 0)
        wl += (size_t)snprintf(why, sizeof why, "power violation up to %.0f %%",
                               100 * g->stats[GPUDIAG_M_POWER_VIOLATION].max);
    if (!wl && !isnan(g->stats[GPUDIAG_M_THERMAL_VIOLATION].max) && g->stats[GPUDIAG_M_THERMAL_VIOLATION].max > 0)
        wl += (size_t)snprintf(why, sizeof why, "thermal violation");
    if (!isnan(g->temp_at_slowdown_share) && g->temp_at_slowdown_share > 0 && wl + 80 < sizeof why)
        wl += (size_t)snprintf(why + wl, sizeof why - wl, "%sGPU at %.0f C, slowdown temperature %.0f C", wl ? ", " : "",
                               g->stats[GPUDIAG_M_TEMP_C].max, g->stats[GPUDIAG_M_TEMP_SLOWDOWN_C].min);
    if (counters_since_load(g) && wl + 100 < sizeof why)
        wl += (size_t)snprintf(why + wl, sizeof why - wl,
                               "%sreason counters: %.1f s since the driver loaded, %.1f s of it thermal or HW",
                               wl ? "; " : "", g->stats[GPUDIAG_M_THROTTLE_TIME_US].max / 1e6,
                               g->stats[GPUDIAG_M_THERMAL_THROTTLE_TIME_US].n
                                   ? g->stats[GPUDIAG_M_THERMAL_THROTTLE_TIME_US].max / 1e6
                                   : 0.0);
    if (!wl && !isnan(g->throttle_counter_share) && g->throttle_counter_share > 0)
        wl += (size_t)snprintf(why, sizeof why, "clock event reason counters: %.0f %% of the time between snapshots",
                               100 * g->throttle_counter_share);
    if (!wl)
        snprintf(why, sizeof why, "SM clock below 90 %% of max under load");
    gd_fb_text(b, f,
         isnan(g->throttle_share) || g->throttle_share == 0
             ? gd_format("%s: clocks held down (%s)", gpus, why)
             : gd_format("%s: clocks held down (%s) in %.0f %% of samples", gpus, why, 100 * g->throttle_share),
         hw ? gd_format("Hardware or thermal slowdown: fix cooling, airflow, power delivery or the board before "
                        "tuning the model (check nvidia-smi -q -d PERFORMANCE,TEMPERATURE; dcgmi diag).")
         : pv ? gd_format("The power limit holds the clocks down for much of the time: check power.limit against "
                          "power.max_limit (nvidia-smi -pl), the PSU and cooling; expect the clock, not the "
                          "model, to set the speed until then.")
            : gd_format("SW power cap while the GPU is busy is normal on air-cooled boards; it matters if power "
                        "is far below the limit or utilisation is low. Check power.limit (nvidia-smi -pl) and "
                        "consider locking clocks (nvidia-smi -lgc) for steadier throughput."));
}

static void rule_pcie_link_degraded(sbuild *b, gpudiag_series_summary *s)
{
    char gpus[2048];
    size_t first = 0;
    if (!list_gpus(s, pick_pcie, gpus, sizeof gpus, &first))
        return;
    const gpudiag_gpu_summary *g = &s->gpus[first];
    gpudiag_finding *f = add(b, GD_S_pcie_link_degraded, GPUDIAG_SEV_MEDIUM);
    gd_fb_ev(f, "gpu_index", g->index);
    gd_fb_ev(f, "pcie_gen", g->stats[GPUDIAG_M_PCIE_GEN].min);
    gd_fb_ev(f, "pcie_gen_max", g->stats[GPUDIAG_M_PCIE_GEN_MAX].max);
    gd_fb_ev(f, "pcie_width", g->stats[GPUDIAG_M_PCIE_WIDTH].min);
    gd_fb_ev(f, "pcie_width_max", g->stats[GPUDIAG_M_PCIE_WIDTH_MAX].max);
    gd_fb_text(b, f, gd_format("%s: PCIe link below its maximum generation or width under load", gpus),
         gd_format("Reseat the card or riser, check the slot (x16, BIOS link speed), and nvidia-smi -q -d PCI "
                   "for replays; host-device copies run at the degraded rate."));
}

static void rule_input_skipped_rows(sbuild *b, gpudiag_series_summary *s)
{
    if (!(s->first_skipped_line > 0))
        return;
    gpudiag_finding *f = add(b, GD_S_input_skipped_rows, GPUDIAG_SEV_INFO);
    gd_fb_ev(f, "skipped_rows", (double)s->skipped_rows);
    gd_fb_ev(f, "first_line", (double)s->first_skipped_line);
    gd_fb_text(b, f,
         gd_format("%llu data row%s could not be read (first at line %lld%s%s) and %s left out",
                   (unsigned long long)s->skipped_rows, gd_plural(s->skipped_rows), (long long)s->first_skipped_line,
                   s->skip_reason[0] ? ": " : "", s->skip_reason, s->skipped_rows == 1 ? "was" : "were"),
         gd_format("Rows whose column count differs from the header, or whose values are not numbers; check "
                   "the log was not cut or two logs interleaved."));
}

/* Bytes after the last gzip member of a .log.gz: the trace's note (DEFINITIONS "Time and events") */
static void rule_input_gzip_trailing_data(sbuild *b, gpudiag_series_summary *s)
{
    (void)s;
    if (!b->r || !b->r->input.gz_trailing_bytes)
        return;
    gpudiag_finding *f = add(b, GD_S_input_gzip_trailing_data, GPUDIAG_SEV_LOW);
    gd_fb_gzip_trailing(b, f, "log");
}

/* Rows in which every metric was missing: no sample (DEFINITIONS "A row that holds no value") */
static void rule_input_empty_rows(sbuild *b, gpudiag_series_summary *s)
{
    if (!(s->empty_rows > 0))
        return;
    gpudiag_finding *f = add(b, GD_S_input_empty_rows, GPUDIAG_SEV_INFO);
    gd_fb_ev(f, "empty_rows", (double)s->empty_rows);
    gd_fb_ev(f, "first_line", (double)s->first_empty_line);
    gd_fb_text(b, f,
         gd_format("%llu data row%s held no value (every field missing, first at line %lld) and %s not counted as "
                   "%s",
                   (unsigned long long)s->empty_rows, gd_plural(s->empty_rows), (long long)s->first_empty_line,
                   s->empty_rows == 1 ? "was" : "were", s->empty_rows == 1 ? "a sample" : "samples"),
         gd_format("The monitor printed a row without a reading (dcgmi dmon prints N/A while profiling fields warm "
                   "up, NVIDIA/DCGM#244); a GPU with only such rows is not listed. If every row of a GPU is N/A, "
                   "check the fields are supported and watched (dcgmi dmon -e ..., dcgmi profile --list)."));
}

static void rule_input_invalid_values(sbuild *b, gpudiag_series_summary *s)
{
    if (!(s->invalid_values > 0))
        return;
    gpudiag_finding *f = add(b, GD_S_input_invalid_values, GPUDIAG_SEV_INFO);
    gd_fb_ev(f, "invalid_values", (double)s->invalid_values);
    gd_fb_ev(f, "first_line", (double)s->first_invalid_line);
    gd_fb_text(b, f,
         gd_format("%llu value%s outside %s metric's range %s read as missing (first at line %lld)",
                   (unsigned long long)s->invalid_values, gd_plural(s->invalid_values),
                   s->invalid_values == 1 ? "its" : "their", s->invalid_values == 1 ? "was" : "were",
                   (long long)s->first_invalid_line),
         gd_format("A utilisation below 0 or above 100 %%, a negative memory, power or clock, what no GPU "
                   "reads (a temperature above 150 C, an SM clock above 5 GHz, power above twice the board "
                   "limit), NaN/inf, or a GPU id that is no index: a broken sensor, a driver hiccup, or a log "
                   "edited or merged by hand. The rest of each row was kept (a row whose GPU id is invalid "
                   "cannot be placed and was left out); the statistics leave these values out."));
}

static void rule_input_profiling_unreported(sbuild *b, gpudiag_series_summary *s)
{
    char gpus[2048];
    size_t first = 0;
    if (!list_gpus(s, pick_prof_unreported, gpus, sizeof gpus, &first))
        return;
    const gpudiag_gpu_summary *g = &s->gpus[first];
    gpudiag_finding *f = add(b, GD_S_input_profiling_unreported, GPUDIAG_SEV_MEDIUM);
    gd_fb_ev(f, "gpu_index", g->index);
    gd_fb_ev(f, "gpu_util_median", g->stats[GPUDIAG_M_GPU_UTIL].median);
    gd_fb_text(b, f,
         gd_format("%s: SM/GR engine/tensor active read 0 in every sample while GPU-Util's median is %.0f %%: "
                   "profiling metrics not reported, read as missing (GPU-Util used instead)",
                   gpus, 100 * g->stats[GPUDIAG_M_GPU_UTIL].median),
         gd_format("DCGM's profiling module stopped sampling (a known dcgm-exporter fault after long uptimes, "
                   "or another profiler holding the counters, e.g. Nsight or a second DCGM). Check with "
                   "`dcgmi dmon -e 1001,1002 -c 5` on the node; running it re-arms the fields; restart the "
                   "exporter if it does not. Until then GPU-Util only says a kernel was running."));
}

static void rule_input_header_changed(sbuild *b, gpudiag_series_summary *s)
{
    if (!(s->header_changes > 0))
        return;
    gpudiag_finding *f = add(b, GD_S_input_header_changed, GPUDIAG_SEV_INFO);
    gd_fb_ev(f, "header_changes", (double)s->header_changes);
    gd_fb_ev(f, "first_line", (double)s->first_header_change_line);
    gd_fb_text(b, f,
         gd_format("the column header changed %llu time%s mid-file (first at line %lld); later rows were read "
                   "with the new columns",
                   (unsigned long long)s->header_changes, gd_plural(s->header_changes), (long long)s->first_header_change_line),
         gd_format("Two logging runs with different fields were appended to one file. Metrics that only one "
                   "part has are missing in the other; split the file if the two runs are different jobs."));
}

static void rule_input_columns_ignored(sbuild *b, gpudiag_series_summary *s)
{
    if (!s->ignored_columns[0])
        return;
    gpudiag_finding *f = add(b, GD_S_input_columns_ignored, GPUDIAG_SEV_INFO);
    gd_fb_text(b, f, gd_format("columns not used by the diagnosis: %s", s->ignored_columns),
         gd_format("Fields gpudiag has no metric for (or does not know) were read past, not rejected. The "
                   "DCGM fields it uses are listed in docs/DEFINITIONS.md \"Monitoring series\"."));
}

static void rule_idle_gpu_allocated(sbuild *b, gpudiag_series_summary *s)
{
    char gpus[2048];
    size_t first = 0;
    if (!list_gpus(s, pick_idle_allocated, gpus, sizeof gpus, &first))
        return;
    const gpudiag_gpu_summary *g = &s->gpus[first];
    gpudiag_finding *f = add(b, GD_S_idle_gpu_allocated, GPUDIAG_SEV_MEDIUM);
    gd_fb_ev(f, "gpu_index", g->index);
    gd_fb_ev(f, "compute_max", cs(g)->max);
    gd_fb_ev(f, "pods", (double)g->pods);
    gd_fb_text(b, f,
         gd_format("%s: allocated but idle: held by a pod, no work in the whole log (%s at most %.0f %%)", gpus,
                   gpudiag_metric_name(g->compute_metric), 100 * cs(g)->max),
         gd_format("Kubernetes pod %s%s%s holds this GPU (or MIG instance) and never used it while the log ran: "
                   "check what it runs (kubectl describe pod%s%s %s); an idle notebook or a finished job still "
                   "holding its nvidia.com/gpu (or MIG) request keeps the device from other work: scale it down "
                   "or give the request back.",
                   g->k8s_namespace, g->k8s_namespace[0] ? "/" : "", g->pod, g->k8s_namespace[0] ? " -n " : "",
                   g->k8s_namespace, g->pod));
}

static void rule_idle_gpu_holding_memory(sbuild *b, gpudiag_series_summary *s)
{
    char gpus[2048];
    size_t first = 0;
    size_t nidle = list_gpus(s, pick_idle_mem, gpus, sizeof gpus, &first);
    if (!nidle)
        return;
    const gpudiag_gpu_summary *g = &s->gpus[first];
    /* k of the log's N GPUs reserved but idle: putting them to work (linear scaling) would cut
     * the run time by up to k ÷ N */
    /* freeing or using an idle GPU does not shorten anyone's step: no step-time gain; its cost
     * is the GPUs wasted (DEFINITIONS "Estimated gain of monitoring findings") */
    size_t nphys = 0;
    for (size_t i = 0; i < s->gpu_count; i++)
        nphys += s->gpus[i].kind == GPUDIAG_ENTITY_GPU;
    gpudiag_finding *f = add(b, GD_S_idle_gpu_holding_memory, GPUDIAG_SEV_MEDIUM);
    gd_fb_ev(f, "gpus_wasted", (double)nidle);
    gd_fb_ev(f, "gpu_count", (double)nphys);
    gd_fb_ev(f, "gpu_index", g->index);
    gd_fb_ev(f, "mem_used_bytes", g->stats[GPUDIAG_M_MEM_USED_BYTES].median);
    gd_fb_ev(f, "mem_used_share", g->mem_used_share);
    gd_fb_ev(f, "compute_p95", cs(g)->p95);
    gd_fb_text(b, f, gd_format("%s: memory held (%.0f MiB) but no work: %zu of %zu GPU%s wasted", gpus,
                         g->stats[GPUDIAG_M_MEM_USED_BYTES].median / 1048576.0, nidle, nphys,
                         nphys == 1 ? "" : "s"),
         g->pod[0]
             ? gd_format("Kubernetes pod %s%s%s holds the GPU and does not use it: check what it runs (kubectl "
                         "describe pod%s%s %s), then give the GPU back (scale it down, or lower its "
                         "nvidia.com/gpu request); in a training job, a rank started with more GPUs than it "
                         "uses (--num_gpus / CUDA_VISIBLE_DEVICES / world size) or a context created on the wrong "
                         "device (torch.cuda.set_device before any CUDA call) does the same.",
                         g->k8s_namespace, g->k8s_namespace[0] ? "/" : "", g->pod, g->k8s_namespace[0] ? " -n " : "",
                         g->k8s_namespace, g->pod)
             : gd_format("%sA process reserved the GPU and does not use it: a job started with more GPUs than it "
                   "uses (check --num_gpus / CUDA_VISIBLE_DEVICES / world size), a context created on the wrong "
                   "device (torch.cuda.set_device before any CUDA call), or a stale process (nvidia-smi "
                   "--query-compute-apps=pid,used_memory --format=csv).",
                   any_hang(s) ? "Other GPUs of this log show the hung-collective pattern (gpu_util_misleading): this "
                                 "one may be the rank they wait for, one that crashed, exited or never reached the "
                                 "collective; check its process first (is it alive, what does py-spy dump show). "
                               : ""));
}

/* The rules in the catalogue's order (series_findings.def's rule column). */
static void (*const series_rules[GD_S_COUNT])(sbuild *b, gpudiag_series_summary *s) = {
#define GD_SFINDING(id, kind, bn, rule) rule,
#include "diagnose/series_findings.def"
#undef GD_SFINDING
};

static void rules(sbuild *b, gpudiag_series_summary *s)
{
    for (size_t i = 0; i < GD_S_COUNT; i++)
        series_rules[i](b, s);
}

static const char *bn_sentence(gpudiag_bottleneck bn)
{
    switch (bn) {
    /* a log names no framework and cannot tell training from inference (DEFINITIONS "Classification") */
    case GPUDIAG_BN_DATA_PIPELINE: return "the GPU waits between bursts of work: host-side input, scheduling or requests (if this is a training job's input pipeline: DataLoader workers, prefetch, pinned memory, host syncs)";
    case GPUDIAG_BN_HOST_LAUNCH: return "steady but moderate compute: kernels too small or launch-bound (more work per launch: a larger batch or more concurrent requests, fused kernels, captured graphs, e.g. CUDA Graphs, torch.compile, TensorRT)";
    case GPUDIAG_BN_COMMUNICATION: return "compute stalls on communication (overlap gradient sync with backward)";
    case GPUDIAG_BN_MEMORY_BANDWIDTH: return "memory traffic is high while compute is low: bandwidth-bound kernels (fuse them, FlashAttention)";
    case GPUDIAG_BN_MEMORY_TRANSFER: return "host-device transfers limit the GPU";
    case GPUDIAG_BN_COMPUTE: return "compute is high: the GPU is the bottleneck, make the work cheaper (Tensor Cores, mixed precision)";
    case GPUDIAG_BN_THROTTLING: return "clocks are held down by power or temperature: fix the hardware first";
    default: return "no conclusion";
    }
}

/* A MIG parent: a GPU whose instances are in the log (same index, or the only GPU when the
 * instances name none); it takes no part in the verdict's shares. */
static int mig_parent(const gpudiag_series_summary *s, const gpudiag_gpu_summary *g)
{
    if (g->kind != GPUDIAG_ENTITY_GPU)
        return 0;
    size_t nphys = 0, unnamed = 0, same = 0;
    for (size_t j = 0; j < s->gpu_count; j++) {
        const gpudiag_gpu_summary *o = &s->gpus[j];
        if (o->kind == GPUDIAG_ENTITY_GPU)
            nphys++;
        else if (o->index < 0)
            unnamed++;
        else
            same += o->index == g->index;
    }
    return same || (unnamed && nphys == 1);
}

/* A percentage as the log gives it: whole for whole-percent values (dmon, nvidia-smi), one decimal
 * for fractions (DCGM's 0.004 -> "0.4") */
static void pct_as_logged(char *buf, size_t cap, double v)
{
    double p = 100 * v;
    snprintf(buf, cap, fabs(p - round(p)) < 1e-6 ? "%.0f" : "%.1f", p);
}

/* The verdict of a log where no GPU has a class and none is mostly idle, a video GPU or a snapshot
 * (DEFINITIONS "An idle log's verdict"): the numbers it rests on — the compute indicator of the GPU
 * with the highest value, its median, maximum and count — never "no work" when a sample shows some. */
static const char *idle_verdict(const gpudiag_series_summary *s, size_t idle_mem)
{
    const gpudiag_gpu_summary *top = NULL;
    size_t ngpu = 0, voters = 0;
    int same_metric = 1;
    double top_max = NAN;
    gpudiag_metric first_metric = GPUDIAG_M_COUNT;
    for (size_t i = 0; i < s->gpu_count; i++) {
        const gpudiag_gpu_summary *g = &s->gpus[i];
        if (mig_parent(s, g))
            continue;
        voters++;
        const gpudiag_metric_stats *c = cstats(g);
        if (!c || !c->n || isnan(c->max))
            continue;
        if (!ngpu++)
            first_metric = g->compute_metric;
        else if (g->compute_metric != first_metric)
            same_metric = 0;
        if (!top || c->max > top_max) {
            top = g;
            top_max = c->max;
        }
    }
    const char *mem = idle_mem ? " (some hold memory: see idle_gpu_holding_memory)" : "";
    int one = s->gpu_count == 1;
    if (!top) /* not reached: a log without compute values has its own verdict */
        return gd_format("%s: no GPU in this log did work to classify%s", one ? "The GPU is idle" : "All GPUs are idle",
                         mem);
    const gpudiag_metric_stats *c = cstats(top);
    const char *metric = same_metric ? gpudiag_metric_name(top->compute_metric) : "compute indicator";
    if (c->max == 0) {
        if (one)
            return gd_format("The GPU is idle: %s 0 %% in all %zu sample%s%s", metric, c->n, c->n == 1 ? "" : "s", mem);
        char of[64] = "";
        if (ngpu < voters)
            snprintf(of, sizeof of, " of the %zu GPUs with a value", ngpu);
        return gd_format("All GPUs are idle: %s 0 %% in every sample%s%s", metric, of, mem);
    }
    char med[32], mx[32], who[480] = "";
    pct_as_logged(med, sizeof med, c->median);
    pct_as_logged(mx, sizeof mx, c->max);
    if (!one) {
        char lbl[400];
        gpu_label(top, lbl, sizeof lbl);
        snprintf(who, sizeof who, " the busiest, %s, has", lbl);
    }
    return gd_format("%s nearly idle:%s %s median %s %%, at most %s %% over %zu sample%s%s",
                     one ? "The GPU is" : "All GPUs are", who, gpudiag_metric_name(top->compute_metric), med, mx, c->n,
                     c->n == 1 ? "" : "s", mem);
}

/* The physical GPUs in use, counted as the header counts GPUs (gd_series_gpus_phrase;
 * DEFINITIONS "Monitoring series", the verdict's P): a GPU row in use or with an instance in use
 * (same host and index, or the log's only GPU for an instance that names none), and each other
 * (host, index) an instance in use names.  After classify(). */
static size_t gpus_in_use(const gpudiag_series_summary *s)
{
    size_t n = 0, nphys = 0;
    for (size_t i = 0; i < s->gpu_count; i++)
        nphys += s->gpus[i].kind == GPUDIAG_ENTITY_GPU;
    for (size_t i = 0; i < s->gpu_count; i++) {
        const gpudiag_gpu_summary *g = &s->gpus[i];
        if (g->kind == GPUDIAG_ENTITY_GPU) {
            int used = g->in_use;
            for (size_t j = 0; j < s->gpu_count && !used; j++) {
                const gpudiag_gpu_summary *o = &s->gpus[j];
                used = o->kind != GPUDIAG_ENTITY_GPU && o->in_use &&
                       (o->index < 0 ? nphys == 1 : o->index == g->index && strcmp(o->hostname, g->hostname) == 0);
            }
            n += used;
            continue;
        }
        if (!g->in_use || g->index < 0)
            continue; /* idle, or its GPU not named (counted above when it is the log's only one) */
        int seen = 0; /* its GPU has a row, or an earlier instance in use counted it */
        for (size_t j = 0; j < s->gpu_count && !seen; j++) {
            const gpudiag_gpu_summary *o = &s->gpus[j];
            seen = o->index == g->index && strcmp(o->hostname, g->hostname) == 0 &&
                   (o->kind == GPUDIAG_ENTITY_GPU || (j < i && o->in_use));
        }
        n += !seen;
    }
    return n;
}

static void verdict(sbuild *b, gpudiag_series_summary *s)
{
    gpudiag_report *r = b->r;
    size_t votes[GPUDIAG_BN_THROTTLING + 1] = {0}, used = 0, idle_mem = 0;
    /* physical GPUs and MIG instances apart; a MIG parent (a GPU whose instances are in the log:
     * same index, or the only GPU when the instances name none) takes no part in the shares */
    size_t ninst = 0, inst_used = 0, voters = 0, no_compute = 0, n_mostly_idle = 0, first_mostly_idle = 0;
    size_t n_video = 0, first_video = 0;
    for (size_t i = 0; i < s->gpu_count; i++) {
        gpudiag_gpu_summary *g = &s->gpus[i];
        classify(g);
        if (g->kind != GPUDIAG_ENTITY_GPU) {
            ninst++;
            inst_used += g->in_use;
        }
        if (mig_parent(s, g))
            continue;
        if (mostly_idle(g) && !n_mostly_idle++)
            first_mostly_idle = i;
        if (video_gpu(g) && g->samples >= 2 && !n_video++)
            first_video = i;
        voters++;
        no_compute += g->compute_metric >= GPUDIAG_M_COUNT;
        if (g->bottleneck != GPUDIAG_BN_UNKNOWN) {
            votes[g->bottleneck]++;
            used++;
        }
        idle_mem += g->idle_holding_memory;
    }
    (void)used;
    gpudiag_bottleneck best = GPUDIAG_BN_UNKNOWN;
    for (int bn = 1; bn <= GPUDIAG_BN_THROTTLING; bn++)
        if (votes[bn] > votes[best])
            best = (gpudiag_bottleneck)bn;
    r->bottleneck = best;
    if (s->snapshot && best == GPUDIAG_BN_UNKNOWN) {
        char who[128];
        gd_series_gpus_phrase(s, who, sizeof who); /* physical GPUs and MIG instances apart */
        r->verdict = gd_format("A snapshot of %s: one sample: no time series to classify%s", who,
                               r->finding_count ? "; see the findings" : "");
    } else if (best == GPUDIAG_BN_UNKNOWN && n_video) {
        const gpudiag_gpu_summary *g = &s->gpus[first_video];
        char lbl[320], what[160] = "";
        gpu_label(g, lbl, sizeof lbl);
        video_engines_phrase(g, what, sizeof what);
        char sm[96] = "";
        if (g->compute_metric < GPUDIAG_M_COUNT)
            snprintf(sm, sizeof sm, " while %s SMs are little used (%s median %.0f %%)", n_video > 1 ? "their" : "its",
                     gpudiag_metric_name(g->compute_metric), 100 * g->stats[g->compute_metric].median);
        r->verdict = gd_format("%s%s on %s video engines (%s)%s: a video encode/decode workload, which "
                               "GPU-Util and SM activity do not measure, so the training utilisation targets do not "
                               "apply; if it should also run a training or inference job's kernels, profile that "
                               "job (torch.profiler, Nsight Systems)%s",
                               lbl, n_video > 1 ? " and other GPUs work" : " works", n_video > 1 ? "their" : "its", what, sm,
                               idle_mem ? "; some GPUs hold memory without work: see idle_gpu_holding_memory" : "");
    } else if (best == GPUDIAG_BN_UNKNOWN && voters && no_compute == voters) {
        /* nothing to say idle with: every value of every compute indicator was
         * missing or out of range (see the input findings) */
        r->verdict = gd_format("No compute data: no GPU in this log has a usable GPU-Util, SM active or GR engine "
                               "active value, and memory alone cannot tell an idle GPU from a busy one%s",
                               r->finding_count ? "; see the findings" : "");
    } else if (best == GPUDIAG_BN_UNKNOWN && n_mostly_idle) {
        const gpudiag_gpu_summary *g = &s->gpus[first_mostly_idle];
        const gpudiag_metric_stats *c = cstats(g);
        r->verdict = gd_format("%s mostly idle (%s median %.0f %%, bursts up to %.0f %%): too little work to tell what "
                               "it waits for; if a job should be keeping %s busy, profile it (torch.profiler) to see "
                               "where it stalls%s",
                               n_mostly_idle == 1 ? "One GPU is" : "GPUs are", gpudiag_metric_name(g->compute_metric),
                               100 * c->median, 100 * c->max, n_mostly_idle == 1 ? "it" : "them",
                               idle_mem ? " (some hold memory: see idle_gpu_holding_memory)" : "");
    } else if (best == GPUDIAG_BN_UNKNOWN) {
        r->verdict = idle_verdict(s, idle_mem);
    } else {
        char others[256] = "";
        size_t ol = 0;
        for (int bn = 1; bn <= GPUDIAG_BN_THROTTLING; bn++)
            if (bn != (int)best && votes[bn] && ol + 40 < sizeof others)
                ol += (size_t)snprintf(others + ol, sizeof others - ol, "%s%s on %zu", ol ? ", " : "; other GPUs: ",
                                       gpudiag_bottleneck_name((gpudiag_bottleneck)bn), votes[bn]);
        /* tensor activity of the first GPU with the verdict's class (DEFINITIONS "Monitoring series") */
        char tensor[160] = "";
        int tensor_bound = 0; /* compute high on Tensor Cores: advising Tensor Cores would be wrong */
        for (size_t i = 0; i < s->gpu_count; i++) {
            const gpudiag_gpu_summary *g = &s->gpus[i];
            const gpudiag_metric_stats *t = &g->stats[GPUDIAG_M_TENSOR_ACTIVE];
            if (g->bottleneck != best || !t->n || isnan(t->median) || mig_parent(s, g))
                continue;
            snprintf(tensor, sizeof tensor, "; tensor active %.0f %%%s", 100 * t->median,
                     best != GPUDIAG_BN_COMPUTE               ? ""
                     : t->median >= GD_SERIES_TENSOR_HIGH     ? ": compute-bound on Tensor Cores"
                     : t->median < GD_SERIES_TENSOR_LOW       ? ": little of it on Tensor Cores (mixed precision, TF32)"
                                                              : "");
            tensor_bound = best == GPUDIAG_BN_COMPUTE && t->median >= GD_SERIES_TENSOR_HIGH;
            break;
        }
        /* GPU-Util alone (dmon sm, utilization.gpu) says a kernel was running, not that the SMs
         * are busy: a compute verdict from it says so and asks for profiling metrics */
        /* ... and so does GR engine active without an SM-level field (MIG instances, where GPU-Util is
         * not reported: dcgm-exporter#512): busy time too */
        int util_only = best == GPUDIAG_BN_COMPUTE, n_util = 0, n_gr = 0;
        for (size_t i = 0; i < s->gpu_count; i++) {
            const gpudiag_gpu_summary *g = &s->gpus[i];
            if (g->bottleneck != best || mig_parent(s, g))
                continue;
            if (!busy_time_only(g))
                util_only = 0;
            n_util += g->compute_metric == GPUDIAG_M_GPU_UTIL;
            n_gr += g->compute_metric == GPUDIAG_M_GR_ENGINE_ACTIVE;
        }
        /* host_launch on GPUs whose GR engine was active nearly all the time beside SM active: kernels
         * resident throughout, so too small, not launch-bound (DEFINITIONS "Classification", rule 7,
         * kernels resident) */
        int resident = best == GPUDIAG_BN_HOST_LAUNCH;
        double gr_med = NAN;
        for (size_t i = 0; i < s->gpu_count && resident; i++) {
            const gpudiag_gpu_summary *g = &s->gpus[i];
            if (g->bottleneck != best || mig_parent(s, g))
                continue;
            const gpudiag_metric_stats *gr = &g->stats[GPUDIAG_M_GR_ENGINE_ACTIVE];
            if (g->compute_metric == GPUDIAG_M_GR_ENGINE_ACTIVE || !gr->n || !(gr->median >= GD_SERIES_RESIDENT))
                resident = 0;
            else if (isnan(gr_med) || gr->median < gr_med)
                gr_med = gr->median;
        }
        char resident_txt[400] = "";
        if (resident)
            snprintf(resident_txt, sizeof resident_txt,
                     "kernels are resident nearly all the time (GR engine active median %.0f %%) yet keep only part "
                     "of the SMs busy: kernels too small for the GPU (too few blocks per kernel or low occupancy), "
                     "not launch gaps (more work per kernel: a larger batch or more concurrent requests, fused "
                     "kernels; check grid sizes and achieved occupancy with Nsight Compute)",
                     100 * gr_med);
        /* host_launch from busy time alone (GPU-Util, or GR engine active without an SM-level field),
         * steady but moderate: an idle share, not a cause — launch pacing and input stalls look alike
         * (DEFINITIONS "Classification", rule 7, busy time alone) */
        int busy_alone = best == GPUDIAG_BN_HOST_LAUNCH && !resident;
        double med_lo = NAN, med_hi = NAN;
        for (size_t i = 0; i < s->gpu_count && busy_alone; i++) {
            const gpudiag_gpu_summary *g = &s->gpus[i];
            if (g->bottleneck != best || mig_parent(s, g))
                continue;
            if (!cause_unnamed(g))
                busy_alone = 0;
            else {
                double m = cs(g)->median;
                if (isnan(med_lo) || m < med_lo)
                    med_lo = m;
                if (isnan(med_hi) || m > med_hi)
                    med_hi = m;
            }
        }
        char busy_txt[640] = "";
        if (busy_alone && !isnan(med_lo)) {
            const char *what = !n_gr ? "GPU-Util" : !n_util ? "GR engine active" : "busy time (GPU-Util, GR engine active)";
            char med[48], idle_pct[48];
            if (round(100 * med_lo) == round(100 * med_hi)) {
                snprintf(med, sizeof med, "median %.0f %%", 100 * med_lo);
                snprintf(idle_pct, sizeof idle_pct, "%.0f %%", 100 - round(100 * med_lo));
            } else {
                snprintf(med, sizeof med, "medians %.0f–%.0f %%", 100 * med_lo, 100 * med_hi);
                snprintf(idle_pct, sizeof idle_pct, "%.0f–%.0f %%", 100 - round(100 * med_hi),
                         100 - round(100 * med_lo));
            }
            snprintf(busy_txt, sizeof busy_txt,
                     "steady but moderate %s (%s): no kernel runs about %s of the time, between bursts of work; "
                     "%s alone cannot tell launch pacing from input-pipeline stalls, host syncs or waits for "
                     "requests, so this log names no cause: log SM active (dcgmi dmon -e 1002,1004) or profile a "
                     "few steps (torch.profiler) to see what the GPU waits for",
                     what, med, idle_pct, what);
        }
        /* throttling with no HW or thermal cause on any of its GPUs (power capping, or clocks below
         * max with no reason recorded): the power limit, not broken hardware */
        int soft_throttle = best == GPUDIAG_BN_THROTTLING;
        for (size_t i = 0; i < s->gpu_count; i++)
            if (s->gpus[i].bottleneck == best && !mig_parent(s, &s->gpus[i]) && hw_throttle(&s->gpus[i]))
                soft_throttle = 0;
        const char *sentence =
            soft_throttle ? "clocks run below their maximum under load with no HW or thermal slowdown recorded "
                            "(the power cap, or no reason data): check power.draw against power.limit and "
                            "power.max_limit before tuning the model"
            : tensor_bound ? "compute is high and the Tensor Cores are busy: the GPU is compute-saturated on the "
                             "right units; what is left is less work (an algorithmic change, a smaller or more "
                             "efficient model) or more GPUs"
            : resident   ? resident_txt
            : busy_txt[0] ? busy_txt
            : !util_only ? bn_sentence(best)
            : !n_gr    ? "GPU-Util is high: a kernel was running most of the time, which does not say the SMs "
                         "are busy; collect DCGM profiling metrics (SM active, tensor active: dcgmi dmon -e "
                         "1002,1004) or a trace (torch.profiler) to tell compute-bound from launch-bound"
            : !n_util  ? "GR engine active is high: the engine was busy most of the time (busy time, as GPU-Util), "
                         "which does not say the SMs are busy; collect SM active and tensor active (DCGM 1002, "
                         "1004: they are reported per MIG instance too) or a trace (torch.profiler) to tell "
                         "compute-bound from launch-bound"
                       : "GPU-Util / GR engine active is high: busy time (a kernel was running), which does not say "
                         "the SMs are busy; collect SM active and tensor active (DCGM 1002, 1004) or a trace "
                         "(torch.profiler) to tell compute-bound from launch-bound";
        char who[160];
        size_t phys_used = gpus_in_use(s);
        if (ninst)
            snprintf(who, sizeof who, "%zu of %zu %s (%zu GPU%s, %zu MIG instance%s in use)", votes[best], voters,
                     voters == ninst ? "MIG instances" : "GPUs and MIG instances", phys_used,
                     phys_used == 1 ? "" : "s", inst_used, inst_used == 1 ? "" : "s");
        else
            snprintf(who, sizeof who, "%zu of %zu GPU%s", votes[best], voters, voters == 1 ? "" : "s");
        char idle[80] = "";
        if (idle_mem)
            snprintf(idle, sizeof idle, "; %zu idle, holding memory", idle_mem);
        /* the hung-collective pattern is named beside the class, not instead of it: a log cannot tell */
        const char *hang = "";
        int hang_seen = 0;
        for (size_t i = 0; i < s->gpu_count; i++) {
            double pshare;
            const gpudiag_gpu_summary *g = &s->gpus[i];
            if (g->bottleneck == best && !mig_parent(s, g) && !hang_seen && hang_undecided(g))
                hang = "; GPU-Util pegged with a quiet memory controller also fits a hung NCCL/RCCL collective, "
                       "which this log cannot tell apart without the power draw and a limit to compare it with "
                       "(log power.draw and power.limit): check whether the job still makes progress";
            if (g->bottleneck == best && !mig_parent(s, g) && pick_misleading(g) && hang_signature(g, &pshare)) {
                hang_seen = 1;
                /* neither reading is the verdict's: SMs at a few % are not "moderate compute" (a second new
                 * user's dcgmi log at SM active 1.5 % read "steady but moderate compute") */
                hang = "";
                sentence = g->stats[GPUDIAG_M_SM_ACTIVE].n
                               ? "GPU-Util pegged while SM activity and power stay near idle for a minute or more: "
                                 "kernels too small to load the GPU, or a hung NCCL/RCCL collective waiting for a "
                                 "peer (see gpu_util_misleading); a log cannot tell which: check whether the job "
                                 "still makes progress"
                               : "GPU-Util pegged while memory traffic and power stay near idle for a minute or "
                                 "more: kernels too small to load the GPU, or a hung NCCL/RCCL collective waiting "
                                 "for a peer (see gpu_util_misleading); a log cannot tell which: check whether the "
                                 "job still makes progress";
                break;
            }
        }
        /* a hang waits for a peer: an idle GPU beside the pegged ones may be the rank that is missing */
        char peers[512] = "";
        size_t first_peer = 0;
        if (hang_seen) {
            size_t np = list_gpus(s, pick_idle_peer, peers + 2, sizeof peers - 2, &first_peer);
            if (np) {
                memcpy(peers, "; ", 2);
                snprintf(peers + strlen(peers), sizeof peers - strlen(peers),
                         " did no work: possibly the rank that crashed, exited or never reached the collective");
            }
        }
        /* a short look: fewer than GD_SERIES_FEW_SAMPLES samples on a GPU of the verdict's class */
        size_t fewest = 0;
        for (size_t i = 0; i < s->gpu_count; i++)
            if (s->gpus[i].bottleneck == best && !mig_parent(s, &s->gpus[i]) &&
                (!fewest || s->gpus[i].samples < fewest))
                fewest = s->gpus[i].samples;
        char few[96] = "";
        if (!s->snapshot && fewest && fewest < GD_SERIES_FEW_SAMPLES)
            snprintf(few, sizeof few, "; only %zu samples (fewer than %d): a short look, low confidence", fewest,
                     GD_SERIES_FEW_SAMPLES);
        r->verdict = gd_format("%s%s — %s%s%s%s%s%s%s", s->snapshot ? "Snapshot: " : "", sentence, who, tensor,
                               others, idle, hang, peers, few);
    }
    r->verdict = gd_arena_take(r->arena, (char *)(uintptr_t)r->verdict); /* the report owns it */
    if (!r->verdict)
        b->oom = 1;
    /* attach each finding to the verdict when it names no bottleneck of its own */
    for (size_t i = 0; i < r->finding_count; i++)
        if (r->findings[i].bottleneck == GPUDIAG_BN_UNKNOWN && !strcmp(r->findings[i].id, "low_gpu_utilization"))
            r->findings[i].bottleneck = best;
}

static int frank(const gpudiag_finding *f)
{
    return (f->severity >= GPUDIAG_SEV_MEDIUM ? 0 : 2) + (f->is_cause ? 0 : 1);
}
static int cmp_f(const void *a, const void *b)
{
    const gpudiag_finding *x = a, *y = b;
    /* by estimated gain like trace findings (largest first, unestimated after), then cause/severity */
    int xg = !isnan(x->est_gain), yg = !isnan(y->est_gain);
    if (xg != yg)
        return yg - xg;
    if (xg && x->est_gain != y->est_gain)
        return x->est_gain < y->est_gain ? 1 : -1;
    if (frank(x) != frank(y))
        return frank(x) - frank(y);
    return (int)y->severity - (int)x->severity;
}

gpudiag_status gpudiag_series_analyze(const gpudiag_series *s, const char *path, gpudiag_report **out,
                                      gpudiag_error *err)
{
    if (!s || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, path ? path : "", -1, "series and out must not be NULL");
    *out = NULL;
    gpudiag_report *r = gd_report_new();
    if (!r)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, path ? path : "", -1, "out of memory");
    r->input.path = gd_arena_strdup(r->arena, path ? path : "");
    r->input.format = "monitoring";
    r->input.bytes = s->bytes;  /* the log read, as a trace's JSON bytes */
    r->input.events = s->rows;  /* data rows turned into samples (series.rows) */
    r->input.truncated_at = -1;
    r->input.gz_trailing_bytes = s->gz_trailing_bytes; /* the note and the stderr line, as a trace's */
    r->input.gz_trailing_at = s->gz_trailing_at;
    r->input.rank = r->input.world_size = -1;
    /* gd_report_new set the numbers shared with a trace's report; a log has no kernels */
    r->optimizer_kernel_time_us = r->kernel_time_us = NAN;
    /* no model FLOPs in a log: unknown (null), never 0 */
    r->model_flops_per_step = r->achieved_tflops = r->mfu_peak_tflops = NAN;
    /* the report's shares and rates: NaN, with no kernels, collectives or copies */
    gd_build_shares(r);
    r->series = gd_arena_calloc(r->arena, 1, sizeof *r->series);
    if (!r->input.path || !r->series || gd_series_summarize(s, r->series, r->arena) != 0) {
        gpudiag_report_free(&r);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, path ? path : "", -1, "out of memory");
    }
    r->has_gpu = r->series->gpu_count > 0;
    snprintf(r->series->format, sizeof r->series->format, "%s", s->format);
    /* headline: mean GPU utilization over GPUs that have it */
    double su = 0;
    size_t nu = 0;
    for (size_t i = 0; i < r->series->gpu_count; i++)
        if (r->series->gpus[i].stats[GPUDIAG_M_GPU_UTIL].n) {
            su += r->series->gpus[i].stats[GPUDIAG_M_GPU_UTIL].mean;
            nu++;
        }
    if (nu)
        r->gpu_utilization = su / (double)nu;
    sbuild b = GD_FBUILD_REPORT(r);
    for (size_t i = 0; i < r->series->gpu_count; i++)
        classify(&r->series->gpus[i]);
    rules(&b, r->series);
    verdict(&b, r->series);
    if (b.oom) {
        gpudiag_report_free(&r);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, path ? path : "", -1, "out of memory");
    }
    if (r->finding_count > 1)
        qsort(r->findings, r->finding_count, sizeof *r->findings, cmp_f);
    *out = r;
    return GPUDIAG_OK;
}
