/*
 * series_stats.c — statistics and classification of a monitoring series
 * (docs/DEFINITIONS.md "Monitoring series"): per-metric statistics, the tuning guides'
 * health targets, the three indicators (memory, compute, bandwidth), repeating
 * dips by autocorrelation, traffic correlation, throttling and PCIe link state.
 * Findings and the verdict are made from these numbers by
 * src/diagnose/series_rules.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/series_stats.h"
#include "gpudiag/specs.h"
#include "model/series_internal.h"
#include "util/util.h"

void gd_metric_stats(const double *col, size_t count, int fraction, double *scratch, gpudiag_metric_stats *st)
{
    st->n = 0;
    st->mean = st->median = st->p5 = st->p10 = st->p90 = st->p95 = st->min = st->max = st->stddev = NAN;
    st->low_share = st->jitter = NAN;
    if (!col)
        return;
    size_t n = 0, low = 0, pairs = 0;
    double sum = 0, jsum = 0, prev = NAN;
    for (size_t i = 0; i < count; i++) {
        double x = col[i];
        if (isnan(x))
            continue;
        scratch[n++] = x;
        sum += x;
        low += x < GD_SERIES_LOW_UTIL;
        if (!isnan(prev)) {
            jsum += fabs(x - prev);
            pairs++;
        }
        prev = x;
    }
    if (!n)
        return;
    st->n = n;
    st->mean = sum / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (scratch[i] - st->mean) * (scratch[i] - st->mean);
    st->stddev = sqrt(ss / (double)n);
    /* selection, not a sort: the sort was a fifth of analysing a 1 M-line log */
    static const double qs[] = {0, 0.05, 0.10, 0.5, 0.90, 0.95, 1};
    double qv[7];
    gd_quantiles(scratch, n, qs, 7, qv);
    st->min = qv[0];
    st->p5 = qv[1];
    st->p10 = qv[2];
    st->median = qv[3];
    st->p90 = qv[4];
    st->p95 = qv[5];
    st->max = qv[6];
    if (fraction)
        st->low_share = (double)low / (double)n;
    if (pairs)
        st->jitter = jsum / (double)pairs;
}

/* The first local maximum of the autocorrelation after it fell below zero,
 * over at most GD_SERIES_ACF_SAMPLES samples and lags up to a third of them. */
static void dips(const double *x, size_t n, const gpudiag_metric_stats *st, double interval_us, double *period_us,
                 double *acf_at)
{
    *period_us = NAN;
    *acf_at = NAN;
    if (n < 12 || isnan(interval_us) || st->n < 12)
        return;
    /* dips exist: samples at least GD_SERIES_DIP_DEPTH below the median */
    size_t deep = 0;
    for (size_t i = 0; i < n; i++)
        deep += !isnan(x[i]) && x[i] < st->median - GD_SERIES_DIP_DEPTH;
    if ((double)deep < GD_SERIES_DIP_MIN_SHARE * (double)st->n || deep < 2)
        return;
    size_t m = n < GD_SERIES_ACF_SAMPLES ? n : GD_SERIES_ACF_SAMPLES;
    size_t maxlag = m / 3 < GD_SERIES_ACF_MAXLAG ? m / 3 : GD_SERIES_ACF_MAXLAG;
    double mu = 0;
    size_t k = 0;
    /* cppcheck-suppress knownConditionTrueFalse ; m = min(n, GD_SERIES_ACF_SAMPLES) >= 1 here; cppcheck takes n for 0 */
for (size_t i = 0; i < m; i++)
        if (!isnan(x[i])) {
            mu += x[i];
            k++;
        }
    if (!k)
        return;
    mu /= (double)k;
    double den = 0;
    /* cppcheck-suppress knownConditionTrueFalse ; as above: m >= 1 */
    for (size_t i = 0; i < m; i++) {
        double d = isnan(x[i]) ? 0 : x[i] - mu;
        den += d * d;
    }
    if (den <= 0)
        return;
    int went_negative = 0;
    double best = NAN;
    size_t best_lag = 0;
    for (size_t lag = 1; lag <= maxlag; lag++) {
        double num = 0;
        for (size_t i = 0; i + lag < m; i++) {
            double a = isnan(x[i]) ? 0 : x[i] - mu, b = isnan(x[i + lag]) ? 0 : x[i + lag] - mu;
            num += a * b;
        }
        double r = num / den;
        if (r < 0)
            went_negative = 1;
        if (went_negative && r > 0) {
            if (isnan(best) || r > best) {
                best = r;
                best_lag = lag;
            } else {
                break; /* past the first positive peak */
            }
        } else if (!isnan(best)) {
            break;
        }
    }
    if (!isnan(best) && best >= GD_SERIES_ACF_MIN && best_lag >= 2) {
        *period_us = (double)best_lag * interval_us;
        *acf_at = best;
    }
}

static double corr(const double *a, const double *b, size_t n)
{
    double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(a[i]) || isnan(b[i]))
            continue;
        sa += a[i];
        sb += b[i];
        saa += a[i] * a[i];
        sbb += b[i] * b[i];
        sab += a[i] * b[i];
        k++;
    }
    if (k < 4)
        return NAN;
    double kn = (double)k;
    double va = saa - sa * sa / kn, vb = sbb - sb * sb / kn;
    if (va <= 1e-12 || vb <= 1e-12)
        return NAN;
    return (sab - sa * sb / kn) / sqrt(va * vb);
}

#define THROTTLE_BITS                                                                                              \
    (GPUDIAG_REASON_SW_POWER_CAP | GPUDIAG_REASON_HW_SLOWDOWN | GPUDIAG_REASON_SW_THERMAL |                       \
     GPUDIAG_REASON_HW_THERMAL | GPUDIAG_REASON_HW_POWER_BRAKE)

/* Put the n samples of x into npts equal-time buckets (with n <= npts, one
 * bucket per sample, in order) and write each bucket's mean of v (or of
 * v ÷ den where den is given and > 0; NaN samples skipped) to mean[] and its
 * lowest value to mn[] (may be NULL), NaN for empty buckets; t_out (may be
 * NULL) gets each bucket's time after the first sample.  v NULL: all NaN.
 * Returns the buckets used, min(n, npts). */
static size_t bucketize(const gpudiag_gpu_series *x, size_t n, const double *v, const double *den, int npts,
                        double *t_out, double *mean, double *mn)
{
    size_t used = n < (size_t)npts ? n : (size_t)npts;
    int64_t t0 = n ? x->t_us[0] : 0, span = n ? x->t_us[n - 1] - t0 : 0;
    for (int b = 0; b < npts; b++) {
        mean[b] = NAN;
        if (mn)
            mn[b] = NAN;
        if (t_out)
            t_out[b] = b < (int)used ? (n <= (size_t)npts ? (double)(x->t_us[b] - t0)
                                                            : (double)span * b / (double)(npts - 1))
                                     : NAN;
    }
    if (!v || !n)
        return used;
    double *sum = calloc((size_t)npts, sizeof *sum);
    size_t *cnt = calloc((size_t)npts, sizeof *cnt);
    if (!sum || !cnt) {
        free(sum);
        free(cnt);
        return used; /* charts are a nicety: NaN buckets, not a failed analysis */
    }
    for (size_t i = 0; i < n; i++) {
        int b;
        if (n <= (size_t)npts) {
            b = (int)i;
        } else if (span > 0) {
            /* clamped as a double: samples out of time order fall outside [t0, t0 + span]
             * ((int) of 1.7e10 is undefined: found by tests/fuzz/fuzz_monlog) */
            double pos = (double)(x->t_us[i] - t0) / (double)span * (npts - 1) + 0.5;
            b = pos < 0 ? 0 : pos >= npts ? npts - 1 : (int)pos;
        } else {
            b = (int)(i * (size_t)npts / n);
        }
        if (b < 0)
            b = 0;
        if (b >= npts)
            b = npts - 1;
        double val = v[i];
        if (den) {
            if (isnan(den[i]) || !(den[i] > 0))
                continue;
            val /= den[i];
        }
        if (isnan(val))
            continue;
        sum[b] += val;
        cnt[b]++;
        if (mn && (isnan(mn[b]) || val < mn[b]))
            mn[b] = val;
    }
    for (int b = 0; b < npts; b++)
        if (cnt[b])
            mean[b] = sum[b] / (double)cnt[b];
    free(sum);
    free(cnt);
    return used;
}

static int has_values(const double *col, size_t n)
{
    for (size_t i = 0; col && i < n; i++)
        if (!isnan(col[i]))
            return 1;
    return 0;
}

/* The profiling activity fields that a stuck DCGM profiling module reports as 0.000. */
static const gpudiag_metric prof_fields[] = {GPUDIAG_M_SM_ACTIVE, GPUDIAG_M_GR_ENGINE_ACTIVE, GPUDIAG_M_TENSOR_ACTIVE,
                                             GPUDIAG_M_SM_OCCUPANCY};

/* 1 when every profiling activity field x has reads exactly 0 in every sample while GPU-Util's
 * median over the whole log is >= 0.50 (DEFINITIONS "Profiling fields that read 0 throughout");
 * scratch holds x->count doubles. */
static int profiling_unreported(const gpudiag_gpu_series *x, double *scratch)
{
    int any = 0;
    for (size_t k = 0; k < sizeof prof_fields / sizeof prof_fields[0]; k++) {
        const double *c = x->v[prof_fields[k]];
        if (!c)
            continue;
        for (size_t i = 0; i < x->count; i++) {
            if (isnan(c[i]))
                continue;
            if (c[i] != 0)
                return 0;
            any = 1;
        }
    }
    const double *u = x->v[GPUDIAG_M_GPU_UTIL];
    if (!any || !u)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < x->count; i++)
        if (!isnan(u[i]))
            scratch[n++] = u[i];
    if (!n)
        return 0;
    static const double half = 0.5;
    double med;
    gd_quantiles(scratch, n, &half, 1, &med);
    return med >= GD_SERIES_PROF_UNREPORTED_UTIL;
}

/* The samples the statistics read, a view into `full` (*view): profiling
 * fields that read exactly 0 throughout while GPU-Util's median is >= 0.50
 * are not reported (dcgm-exporter#662), not idle, and read as missing
 * (DEFINITIONS "Profiling fields that read 0 throughout"); the leading and
 * trailing runs of idle samples (compute indicator below GD_SERIES_IDLE_MAX) of
 * a GPU that works in between are left out when at least 2 samples remain and
 * the runs are at most half the samples (DEFINITIONS "Monitoring series",
 * Warm-up and tear-down).  Sets o->profiling_unreported, warmup_samples,
 * teardown_samples and excluded_us. */
static void stats_view(const gpudiag_gpu_series *full, gpudiag_gpu_summary *o, gpudiag_gpu_series *view,
                       double *scratch)
{
    *view = *full;
    /* GPU-Util is not measured on a MIG instance (NVML: not supported; dcgm-exporter writes 0 there,
     * dcgm-exporter#216): not reported, not idle (DEFINITIONS "Monitoring series", MIG) */
    if (full->kind != GPUDIAG_ENTITY_GPU)
        view->v[GPUDIAG_M_GPU_UTIL] = NULL;
    o->profiling_unreported = profiling_unreported(full, scratch);
    if (o->profiling_unreported)
        for (size_t k = 0; k < sizeof prof_fields / sizeof prof_fields[0]; k++)
            view->v[prof_fields[k]] = NULL;
    const double *cc = has_values(view->v[GPUDIAG_M_SM_ACTIVE], full->count)  ? view->v[GPUDIAG_M_SM_ACTIVE]
                       : has_values(view->v[GPUDIAG_M_GPU_UTIL], full->count) ? view->v[GPUDIAG_M_GPU_UTIL]
                                                                              : view->v[GPUDIAG_M_GR_ENGINE_ACTIVE];
    size_t a = full->count, z = 0, present = 0;
    for (size_t i = 0; cc && i < full->count; i++) {
        if (isnan(cc[i]))
            continue;
        present++;
        if (cc[i] >= GD_SERIES_IDLE_MAX) {
            if (a == full->count)
                a = i;
            z = i + 1;
        }
    }
    /* missing is not idle: only the present idle samples before a and from z on make the runs */
    size_t w = 0, td = 0, w0 = a, tdz = z;
    for (size_t i = 0; a < z && i < a; i++)
        if (!isnan(cc[i])) {
            if (!w++)
                w0 = i;
        }
    for (size_t i = z; a < z && i < full->count; i++)
        if (!isnan(cc[i])) {
            td++;
            tdz = i + 1;
        }
    if (a < z && z - a >= 2 && w + td > 0 && 2 * (w + td) <= present) {
        o->warmup_samples = w;
        o->teardown_samples = td;
        o->excluded_us = (double)(full->t_us[a] - full->t_us[w ? w0 : a]) +
                         (double)(full->t_us[td ? tdz - 1 : z - 1] - full->t_us[z - 1]);
        view->count = z - a;
        view->t_us = full->t_us + a;
        for (int m = 0; m < GPUDIAG_M_COUNT; m++)
            if (view->v[m])
                view->v[m] = full->v[m] + a;
    }
}

/* A GPU's identity, sample count, duration (the whole log), median interval
 * and per-metric statistics over the view x, and the metrics that stand for
 * compute and bandwidth: DRAM active exactly 0 in every sample while the GPU
 * computes is not reported by the driver (DCGM DRAMA 0.000 throughout), so
 * memory-controller busy stands in when logged, else bandwidth is unknown
 * rather than "low" (o->bandwidth_unreported); a memory-controller busy of 0
 * is a measured value. */
static void gpu_stats(const gpudiag_gpu_series *full, const gpudiag_gpu_series *x, gpudiag_gpu_summary *o,
                      double *scratch)
{
    o->index = x->index;
    o->kind = x->kind;
    o->instance = x->instance;
    memcpy(o->name, x->name, sizeof o->name);
    memcpy(o->uuid, x->uuid, sizeof o->uuid);
    memcpy(o->bus_id, x->bus_id, sizeof o->bus_id);
    memcpy(o->hostname, x->hostname, sizeof o->hostname);
    memcpy(o->mig_profile, x->mig_profile, sizeof o->mig_profile);
    memcpy(o->pod, x->pod, sizeof o->pod);
    memcpy(o->k8s_namespace, x->k8s_namespace, sizeof o->k8s_namespace);
    memcpy(o->container, x->container, sizeof o->container);
    o->pod_changes = x->pod_changes;
    o->pods = x->pods;
    o->samples = full->count;
    size_t n = x->count;
    o->duration_us = full->count ? (double)(full->t_us[full->count - 1] - full->t_us[0]) : NAN;
    o->interval_us = NAN;
    if (n >= 2) {
        for (size_t i = 1; i < n; i++)
            scratch[i - 1] = (double)(x->t_us[i] - x->t_us[i - 1]);
        static const double half = 0.5;
        gd_quantiles(scratch, n - 1, &half, 1, &o->interval_us);
    }
    for (int m = 0; m < GPUDIAG_M_COUNT; m++)
        gd_metric_stats(x->v[m], n, gd_metric_is_fraction((gpudiag_metric)m), scratch, &o->stats[m]);
    const gpudiag_metric_stats *st = o->stats;
    o->compute_metric = st[GPUDIAG_M_SM_ACTIVE].n         ? GPUDIAG_M_SM_ACTIVE
                        : st[GPUDIAG_M_GPU_UTIL].n        ? GPUDIAG_M_GPU_UTIL
                        : st[GPUDIAG_M_GR_ENGINE_ACTIVE].n ? GPUDIAG_M_GR_ENGINE_ACTIVE
                                                          : GPUDIAG_M_COUNT;
    o->bandwidth_metric = st[GPUDIAG_M_DRAM_ACTIVE].n ? GPUDIAG_M_DRAM_ACTIVE
                          : st[GPUDIAG_M_MEM_UTIL].n  ? GPUDIAG_M_MEM_UTIL
                                                      : GPUDIAG_M_COUNT;
    if (o->compute_metric < GPUDIAG_M_COUNT && st[o->compute_metric].max >= GD_SERIES_WORK_MIN) {
        /* only DCGM's DRAM active: memory-controller busy (nvidia-smi, dmon, amd-smi) reports a 0 it
         * measured, a value like any other (DEFINITIONS "A metric that reads 0 throughout") */
        if (o->bandwidth_metric == GPUDIAG_M_DRAM_ACTIVE && st[GPUDIAG_M_DRAM_ACTIVE].max == 0) {
            o->bandwidth_unreported = 1;
            o->bandwidth_metric = st[GPUDIAG_M_MEM_UTIL].n ? GPUDIAG_M_MEM_UTIL : GPUDIAG_M_COUNT;
        }
    }
}

/* Memory used ÷ total per sample: its median (o->mem_used_share) and maximum;
 * with no total in the log (dmon fb) the GPU table's memory label of the
 * named GPU, as GiB (DEFINITIONS "Monitoring series", memory;
 * o->mem_total_from_spec). */
static void mem_used_share(const gpudiag_gpu_series *x, gpudiag_gpu_summary *o, double *scratch, double *tmp)
{
    size_t n = x->count;
    o->mem_used_share = o->mem_used_share_max = NAN;
    const double *used = x->v[GPUDIAG_M_MEM_USED_BYTES], *total = x->v[GPUDIAG_M_MEM_TOTAL_BYTES];
    double spec_total = NAN;
    if (used && !total && x->name[0]) {
        const gpudiag_gpu_spec *sp = gpudiag_gpu_find(x->name);
        if (sp && sp->mem_gb > 0) {
            spec_total = sp->mem_gb * 1073741824.0;
            o->mem_total_from_spec = 1;
        }
    }
    if (used && (total || !isnan(spec_total))) {
        size_t k = 0;
        double mx = NAN;
        for (size_t i = 0; i < n; i++) {
            double tt = total ? total[i] : spec_total;
            tmp[i] = (!isnan(used[i]) && !isnan(tt) && tt > 0) ? used[i] / tt : NAN;
            if (!isnan(tmp[i])) {
                scratch[k++] = tmp[i];
                if (isnan(mx) || tmp[i] > mx)
                    mx = tmp[i];
            }
        }
        if (k) {
            static const double half = 0.5;
            gd_quantiles(scratch, k, &half, 1, &o->mem_used_share);
            o->mem_used_share_max = mx;
        }
    }
}

/* The three indicators (memory, compute, bandwidth levels), the health checks,
 * in use and idle holding memory.  GPU-Util busy is never idle, whatever the
 * compute indicator says (DEFINITIONS "Never idle while GPU-Util is busy").
 * Returns whether the GPU works (some compute or GPU-Util sample >=
 * GD_SERIES_WORK_MIN). */
static int gpu_levels(gpudiag_gpu_summary *o)
{
    const gpudiag_metric_stats *st = o->stats;
    const gpudiag_metric_stats *cs = o->compute_metric < GPUDIAG_M_COUNT ? &st[o->compute_metric] : NULL;
    const gpudiag_metric_stats *bs = o->bandwidth_metric < GPUDIAG_M_COUNT ? &st[o->bandwidth_metric] : NULL;
    o->memory_level = isnan(o->mem_used_share) ? NULL : o->mem_used_share >= GD_SERIES_MEM_FULL ? "full" : "low";
    o->compute_level = cs ? (cs->median >= GD_SERIES_HEALTH_MEDIAN ? "high" : "low") : NULL;
    o->bandwidth_level = bs ? (bs->median >= GD_SERIES_BW_HIGH ? "high" : "low") : NULL;
    /* targets over time: one value is a moment, not a series (DEFINITIONS "Health targets") */
    int series = cs && cs->n >= GD_SERIES_HEALTH_MIN_N;
    o->health_median_ok = series ? cs->median >= GD_SERIES_HEALTH_MEDIAN : -1;
    o->health_p10_ok = series ? cs->p10 >= GD_SERIES_HEALTH_P10 : -1;
    o->health_low_ok = series ? cs->low_share < GD_SERIES_HEALTH_LOW_SHARE : -1;
    double used_max = st[GPUDIAG_M_MEM_USED_BYTES].max;
    int holds = (!isnan(o->mem_used_share) && o->mem_used_share >= GD_SERIES_HOLD_SHARE) ||
                (!isnan(used_max) && st[GPUDIAG_M_MEM_USED_BYTES].median >= GD_SERIES_HOLD_BYTES);
    const gpudiag_metric_stats *us = &st[GPUDIAG_M_GPU_UTIL];
    int util_busy = us->n && us->p95 >= GD_SERIES_IDLE_MAX;
    int works = (cs && cs->max >= GD_SERIES_WORK_MIN) || (us->n && us->max >= GD_SERIES_WORK_MIN);
    /* NVENC/NVDEC/NVJPG/OFA work: the SMs may idle while the media engines transcode (DEFINITIONS
     * "GPU states"); p95, as idle is judged: one stray sample does not make a video GPU (a new user's
     * log: one 12 % encoder sample in 100 hid an idle GPU holding 20 GB) */
    static const gpudiag_metric engines[] = {GPUDIAG_M_ENC_UTIL, GPUDIAG_M_DEC_UTIL, GPUDIAG_M_JPG_UTIL,
                                             GPUDIAG_M_OFA_UTIL};
    double p95[4];
    for (size_t k = 0; k < 4; k++)
        p95[k] = st[engines[k]].n ? st[engines[k]].p95 : NAN;
    o->video_busy = gd_video_busy(p95, 4);
    o->in_use = works || holds || o->video_busy;
    o->idle_holding_memory = holds && cs && cs->p95 < GD_SERIES_IDLE_MAX && !util_busy && !o->video_busy;
    return works;
}

/* Repeating dips of the compute indicator and their correlation with
 * traffic (o->dip_period_us, dip_acf, traffic_corr), for a working GPU with
 * more than one sample; then the time in dips, samples GD_SERIES_DIP_DEPTH
 * below the median, and their mean (o->dip_share, dip_mean). */
static void gpu_dips(const gpudiag_gpu_series *x, gpudiag_gpu_summary *o, int works, int snapshot, double *tmp)
{
    size_t n = x->count;
    const gpudiag_metric_stats *cs = o->compute_metric < GPUDIAG_M_COUNT ? &o->stats[o->compute_metric] : NULL;
    o->dip_period_us = o->dip_acf = o->traffic_corr = NAN;
    if (cs && works && !snapshot) {
        dips(x->v[o->compute_metric], n, cs, o->interval_us, &o->dip_period_us, &o->dip_acf);
        /* collectives send and receive alike; input batches flow host→GPU only: NVLink rx+tx,
         * else the bidirectional part of PCIe, min(rx, tx) */
        const double *a = x->v[GPUDIAG_M_NVLINK_RX_BPS], *b = x->v[GPUDIAG_M_NVLINK_TX_BPS];
        int nvl = a || b;
        if (!nvl) {
            a = x->v[GPUDIAG_M_PCIE_RX_BPS];
            b = x->v[GPUDIAG_M_PCIE_TX_BPS];
        }
        if (nvl || (a && b)) {
            for (size_t i = 0; i < n; i++) {
                double va = a ? a[i] : 0, vb = b ? b[i] : 0;
                tmp[i] = nvl ? va + vb : (va < vb ? va : vb);
            }
            o->traffic_corr = corr(x->v[o->compute_metric], tmp, n);
        }
    }
    o->dip_share = o->dip_mean = NAN;
    if (cs && cs->n) {
        const double *c = x->v[o->compute_metric];
        size_t deep = 0;
        double dsum = 0;
        for (size_t i = 0; i < n; i++)
            if (!isnan(c[i]) && c[i] < cs->median - GD_SERIES_DIP_DEPTH) {
                deep++;
                dsum += c[i];
            }
        o->dip_share = (double)deep / (double)cs->n;
        if (deep)
            o->dip_mean = dsum / (double)deep;
    }
}

/* Throttling from the cumulative throttle-time counter, between its first
 * and last reading (o->throttle_counter_share; not with assumed times). */
static void throttle_counter(const gpudiag_gpu_series *x, gpudiag_gpu_summary *o, gpudiag_time_source ts)
{
    size_t n = x->count;
    o->throttle_counter_share = NAN;
    const double *tc = x->v[GPUDIAG_M_THROTTLE_TIME_US];
    if (!tc || ts == GPUDIAG_TIME_ASSUMED)
        return;
    size_t a = n, z = n;
    for (size_t i = 0; i < n; i++)
        if (!isnan(tc[i])) {
            if (a == n)
                a = i;
            z = i;
        }
    if (a < z && x->t_us[z] > x->t_us[a] && tc[z] >= tc[a]) {
        double sh = (tc[z] - tc[a]) / (double)(x->t_us[z] - x->t_us[a]);
        o->throttle_counter_share = sh > 1 ? 1 : sh;
    }
}

/* Throttling per sample: a throttle reason bit, a power or thermal violation,
 * or a temperature at or above the slowdown temperature (DEFINITIONS "One -q
 * snapshot") makes a sample throttled.  o->temp_at_slowdown_share,
 * reasons_any, throttle_share (of the samples that say), and
 * throttle_clock_loss (the SM clock of loaded throttled samples against the
 * unthrottled ones, else the maximum clock). */
static void throttle_samples(const gpudiag_gpu_series *x, gpudiag_gpu_summary *o)
{
    size_t n = x->count;
    const gpudiag_metric_stats *st = o->stats;
    int has_cs = o->compute_metric < GPUDIAG_M_COUNT;
    o->throttle_share = o->throttle_clock_loss = NAN;
    const double *rs = x->v[GPUDIAG_M_CLOCK_REASONS], *pv = x->v[GPUDIAG_M_POWER_VIOLATION],
                 *tv = x->v[GPUDIAG_M_THERMAL_VIOLATION];
    const double *tc_now = x->v[GPUDIAG_M_TEMP_C], *tc_slow = x->v[GPUDIAG_M_TEMP_SLOWDOWN_C];
    o->temp_at_slowdown_share = NAN;
    if (tc_now && tc_slow) {
        size_t both = 0, hot = 0;
        for (size_t i = 0; i < n; i++)
            if (!isnan(tc_now[i]) && !isnan(tc_slow[i])) {
                both++;
                hot += tc_now[i] >= tc_slow[i];
            }
        if (both)
            o->temp_at_slowdown_share = (double)hot / (double)both;
        else
            tc_now = tc_slow = NULL;
    } else {
        tc_now = tc_slow = NULL;
    }
    if (!(rs || pv || tv || tc_now))
        return;
    size_t known = 0, thr = 0, nthr_clk = 0, nfree_clk = 0;
    double thr_clk = 0, free_clk = 0;
    const double *clk = x->v[GPUDIAG_M_SM_CLOCK_MHZ], *load = has_cs ? x->v[o->compute_metric] : NULL;
    for (size_t i = 0; i < n; i++) {
        int k = 0, t = 0;
        if (rs && !isnan(rs[i])) {
            uint64_t bits = (uint64_t)rs[i];
            o->reasons_any |= bits;
            k = 1;
            t |= (bits & THROTTLE_BITS) != 0;
        }
        if (pv && !isnan(pv[i])) {
            k = 1;
            t |= pv[i] > 0;
        }
        if (tv && !isnan(tv[i])) {
            k = 1;
            t |= tv[i] > 0;
        }
        if (tc_now && !isnan(tc_now[i]) && !isnan(tc_slow[i])) {
            k = 1;
            t |= tc_now[i] >= tc_slow[i];
        }
        known += k;
        thr += t;
        if (k && clk && !isnan(clk[i]) && load && !isnan(load[i]) && load[i] >= GD_SERIES_LOADED) {
            if (t) {
                thr_clk += clk[i];
                nthr_clk++;
            } else {
                free_clk += clk[i];
                nfree_clk++;
            }
        }
    }
    if (known)
        o->throttle_share = (double)thr / (double)known;
    double ref = nfree_clk ? free_clk / (double)nfree_clk : st[GPUDIAG_M_SM_CLOCK_MAX_MHZ].max;
    if (nthr_clk && !isnan(ref) && ref > 0) {
        double loss = 1 - thr_clk / (double)nthr_clk / ref;
        o->throttle_clock_loss = loss < 0 ? 0 : loss > 1 ? 1 : loss;
    }
}

/* While loaded: the share of samples with the SM clock below
 * GD_SERIES_CLOCK_FRACTION of its maximum (o->clock_below_max_share), and
 * whether the PCIe link ran below its maximum generation or width
 * (o->pcie_degraded: 1, 0, or -1 unknown). */
static void loaded_clock_and_link(const gpudiag_gpu_series *x, gpudiag_gpu_summary *o)
{
    size_t n = x->count;
    const double *c = o->compute_metric < GPUDIAG_M_COUNT ? x->v[o->compute_metric] : NULL;
    o->clock_below_max_share = NAN;
    const double *clk = x->v[GPUDIAG_M_SM_CLOCK_MHZ], *cmax = x->v[GPUDIAG_M_SM_CLOCK_MAX_MHZ];
    if (clk && cmax && c) {
        size_t loaded = 0, below = 0;
        for (size_t i = 0; i < n; i++) {
            if (isnan(c[i]) || c[i] < GD_SERIES_LOADED || isnan(clk[i]) || isnan(cmax[i]))
                continue;
            loaded++;
            below += clk[i] < GD_SERIES_CLOCK_FRACTION * cmax[i];
        }
        if (loaded)
            o->clock_below_max_share = (double)below / (double)loaded;
    }
    o->pcie_degraded = -1;
    const double *gen = x->v[GPUDIAG_M_PCIE_GEN], *genmax = x->v[GPUDIAG_M_PCIE_GEN_MAX],
                 *w = x->v[GPUDIAG_M_PCIE_WIDTH], *wmax = x->v[GPUDIAG_M_PCIE_WIDTH_MAX];
    if ((gen && genmax) || (w && wmax)) {
        for (size_t i = 0; i < n; i++) {
            int loaded = c && !isnan(c[i]) && c[i] >= GD_SERIES_LOADED;
            if (!loaded)
                continue;
            int deg = (gen && genmax && !isnan(gen[i]) && !isnan(genmax[i]) && gen[i] < genmax[i]) ||
                      (w && wmax && !isnan(w[i]) && !isnan(wmax[i]) && w[i] < wmax[i]);
            if (deg)
                o->pcie_degraded = 1;
            else if (o->pcie_degraded < 0)
                o->pcie_degraded = 0;
        }
    }
}

/* Sparklines and chart: equal-time buckets over the whole log (warm-up
 * included) of compute, bandwidth and memory used ÷ total. */
static void gpu_charts(const gpudiag_gpu_series *x, gpudiag_gpu_summary *o)
{
    size_t n = x->count;
    const double *used = x->v[GPUDIAG_M_MEM_USED_BYTES], *total = x->v[GPUDIAG_M_MEM_TOTAL_BYTES];
    const double *cv = o->compute_metric < GPUDIAG_M_COUNT ? x->v[o->compute_metric] : NULL;
    const double *bv = o->bandwidth_metric < GPUDIAG_M_COUNT ? x->v[o->bandwidth_metric] : NULL;
    const double *tot = used && total ? total : NULL;
    double dummy[GPUDIAG_SPARK_POINTS];
    bucketize(x, n, cv, NULL, GPUDIAG_SPARK_POINTS, NULL, o->spark, dummy);
    bucketize(x, n, tot ? used : NULL, tot, GPUDIAG_SPARK_POINTS, NULL, o->spark_mem, dummy);
    gpudiag_gpu_chart *ch = &o->chart;
    ch->points = bucketize(x, n, cv, NULL, GPUDIAG_CHART_POINTS, ch->t_us, ch->compute, ch->compute_min);
    bucketize(x, n, bv, NULL, GPUDIAG_CHART_POINTS, NULL, ch->bandwidth, NULL);
    bucketize(x, n, tot ? used : NULL, tot, GPUDIAG_CHART_POINTS, NULL, ch->mem_share, NULL);
}

int gd_series_summarize(const gpudiag_series *s, gpudiag_series_summary *out, gd_arena *arena)
{
    memset(out, 0, sizeof *out);
    snprintf(out->format, sizeof out->format, "%s", s->format);
    out->time_source = s->time_source;
    out->rows = s->rows;
    out->skipped_rows = s->skipped_rows;
    out->first_skipped_line = s->first_skipped_line;
    snprintf(out->skip_reason, sizeof out->skip_reason, "%s", s->skip_reason);
    out->invalid_values = s->invalid_values;
    out->first_invalid_line = s->first_invalid_line;
    out->empty_rows = s->empty_rows;
    out->first_empty_line = s->first_empty_line;
    out->header_changes = s->header_changes;
    out->first_header_change_line = s->first_header_change_line;
    memcpy(out->ignored_columns, s->ignored_columns, sizeof out->ignored_columns);
    out->gpu_count = s->gpu_count;
    out->snapshot = 1;
    size_t maxn = 1;
    for (size_t g = 0; g < s->gpu_count; g++) {
        if (s->gpus[g].count > 1)
            out->snapshot = 0;
        if (s->gpus[g].count > maxn)
            maxn = s->gpus[g].count;
    }
    out->gpus = gd_arena_calloc(arena, s->gpu_count ? s->gpu_count : 1, sizeof *out->gpus);
    double *scratch = malloc(maxn * sizeof *scratch);
    double *tmp = malloc(maxn * sizeof *tmp);
    if (!out->gpus || !scratch || !tmp) {
        free(scratch);
        free(tmp);
        return -1;
    }
    for (size_t g = 0; g < s->gpu_count; g++) {
        const gpudiag_gpu_series *full = &s->gpus[g];
        gpudiag_gpu_summary *o = &out->gpus[g];
        gpudiag_gpu_series view;
        stats_view(full, o, &view, scratch);
        gpu_stats(full, &view, o, scratch);
        mem_used_share(&view, o, scratch, tmp);
        int works = gpu_levels(o);
        gpu_dips(&view, o, works, out->snapshot, tmp);
        throttle_counter(&view, o, out->time_source);
        throttle_samples(&view, o);
        loaded_clock_and_link(&view, o);
        gpu_charts(full, o);
    }
    free(scratch);
    free(tmp);
    return 0;
}
