/*
 * compare_series.c — two monitoring logs compared metric by metric
 * (include/gpudiag/compare.h gpudiag_series_compare; docs/DEFINITIONS.md
 * "compare: monitoring logs").
 *
 * Samples of a monitoring log are a time series: one second apart they are
 * strongly autocorrelated, so a rank test over the raw samples counts the
 * same information many times and calls noise a change.  The verdict's test
 * runs over block means instead (the batch-means method): each GPU's samples
 * are cut into consecutive blocks long enough for the autocorrelation to die
 * out (twice the first lag where it falls below 0.1, or the period of a
 * repeating pattern when there is one, whichever is longer), each block is
 * averaged, and the block means of all GPUs of a side enter a Mann–Whitney U
 * test.  The raw-sample test is reported for reference only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/compare_side.h"
#include "gpudiag/compare.h"
#include "gpudiag/series.h"
#include "util/util.h"

static const gpudiag_metric cmp_metrics[GPUDIAG_SERIES_COMPARE_METRICS] = {
    GPUDIAG_M_GPU_UTIL, GPUDIAG_M_SM_ACTIVE, GPUDIAG_M_TENSOR_ACTIVE, GPUDIAG_M_MEM_USED_BYTES, GPUDIAG_M_POWER_W};

#define ACF_SAMPLES 4096
#define ACF_MAXLAG 256
#define ACF_DECORRELATED 0.1
#define ACF_PERIODIC 0.3

/* Block length wanted by one GPU's column (NaN samples left out). */
static size_t block_len_of(const double *col, size_t count, double *scratch)
{
    size_t n = 0;
    for (size_t i = 0; i < count && n < ACF_SAMPLES; i++)
        if (!isnan(col[i]))
            scratch[n++] = col[i];
    if (n < 8)
        return 1;
    double mu = 0;
    for (size_t i = 0; i < n; i++)
        mu += scratch[i];
    mu /= (double)n;
    double den = 0;
    for (size_t i = 0; i < n; i++)
        den += (scratch[i] - mu) * (scratch[i] - mu);
    if (den <= 0)
        return 1; /* constant: every sample says the same */
    size_t maxlag = n / 4 < ACF_MAXLAG ? n / 4 : ACF_MAXLAG;
    size_t decor = 0, period = 0;
    double peak = 0;
    for (size_t lag = 1; lag <= maxlag; lag++) {
        double num = 0;
        for (size_t i = 0; i + lag < n; i++)
            num += (scratch[i] - mu) * (scratch[i + lag] - mu);
        double r = num / den;
        if (!decor) {
            if (r < ACF_DECORRELATED)
                decor = lag;
        } else if (r >= ACF_PERIODIC && r > peak) {
            period = lag; /* the pattern comes back: a block should hold a whole period */
            peak = r;     /* (the lag of the highest return) */
        } else if (period && r < peak) {
            break;
        }
    }
    if (!decor)
        decor = maxlag;
    size_t b = 2 * decor;
    return period > b ? period : b;
}

typedef struct pool {
    double *samples, *blocks;
    size_t n, nb;
} pool;

/* Samples and block means of one side's metric, pooled over its GPUs. */
static int pool_side(const gpudiag_series *s, gpudiag_metric m, size_t blen, pool *p)
{
    size_t total = 0;
    for (size_t g = 0; g < s->gpu_count; g++)
        if (s->gpus[g].v[m])
            total += s->gpus[g].count;
    p->samples = malloc((total ? total : 1) * sizeof *p->samples);
    p->blocks = malloc((total ? total : 1) * sizeof *p->blocks);
    p->n = p->nb = 0;
    if (!p->samples || !p->blocks)
        return -1;
    for (size_t g = 0; g < s->gpu_count; g++) {
        const double *c = s->gpus[g].v[m];
        if (!c)
            continue;
        double sum = 0;
        size_t k = 0;
        for (size_t i = 0; i < s->gpus[g].count; i++) {
            if (isnan(c[i]))
                continue;
            p->samples[p->n++] = c[i];
            sum += c[i];
            if (++k == blen) {
                p->blocks[p->nb++] = sum / (double)k;
                sum = 0;
                k = 0;
            }
        }
        if (k * 2 >= blen && k) /* a last block at least half full counts */
            p->blocks[p->nb++] = sum / (double)k;
    }
    return 0;
}

static void pool_free(pool *p)
{
    free(p->samples);
    free(p->blocks);
}

/* Whether GPU product name nm (non-empty) names a GPU of s. */
static int has_gpu_named(const gpudiag_series *s, const char *nm)
{
    for (size_t g = 0; g < s->gpu_count; g++)
        if (strcmp(s->gpus[g].name, nm) == 0)
            return 1;
    return 0;
}

/* Bits of gpudiag_series_comparison.setup_differs for the two sides. */
static int setup_differs(const gpudiag_series *a, const gpudiag_series *b)
{
    int d = a->gpu_count != b->gpu_count ? 1 : 0;
    const gpudiag_series *s[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        int other_known = 0; /* names are compared only when the other side names its GPUs */
        for (size_t h = 0; h < s[1 - k]->gpu_count; h++)
            other_known |= s[1 - k]->gpus[h].name[0] != '\0';
        for (size_t g = 0; other_known && g < s[k]->gpu_count; g++) {
            const char *nm = s[k]->gpus[g].name;
            if (nm[0] && !has_gpu_named(s[1 - k], nm))
                d |= 2;
        }
    }
    return d;
}

static size_t max_count(const gpudiag_series *s)
{
    size_t m = 0;
    for (size_t g = 0; g < s->gpu_count; g++)
        if (s->gpus[g].count > m)
            m = s->gpus[g].count;
    return m;
}

gpudiag_status gpudiag_series_compare(const gpudiag_series *base, const gpudiag_series *test,
                                      const gpudiag_compare_opts *opts, gpudiag_series_comparison *out,
                                      gpudiag_error *err)
{
    if (!base || !test || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, "", -1, "gpudiag_series_compare: NULL argument");
    gpudiag_compare_opts o;
    gpudiag_compare_opts_default(&o);
    if (opts)
        o = *opts;
    memset(out, 0, sizeof *out);
    out->threshold = o.threshold;
    out->alpha = o.alpha;
    out->row_count = GPUDIAG_SERIES_COMPARE_METRICS;
    out->gate = -1;
    out->verdict = GPUDIAG_CMP_NO_CHANGE;
    /* a snapshot (one sample per GPU) is no time series: pooling its GPUs would make a sample
     * of different GPUs, not of time (DEFINITIONS "compare: monitoring logs") */
    out->snapshot = (max_count(base) < 2 ? 1 : 0) | (max_count(test) < 2 ? 2 : 0);
    out->setup_differs = setup_differs(base, test);
    size_t mc = max_count(base) > max_count(test) ? max_count(base) : max_count(test);
    double *scratch = malloc((mc < ACF_SAMPLES ? mc : ACF_SAMPLES) * sizeof *scratch + sizeof *scratch);
    if (!scratch)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, "", -1, "out of memory");
    for (int r = 0; r < GPUDIAG_SERIES_COMPARE_METRICS; r++) {
        gpudiag_metric m = cmp_metrics[r];
        gpudiag_series_compare_row *row = &out->rows[r];
        row->metric = (int)m;
        row->higher_is_better = m == GPUDIAG_M_GPU_UTIL || m == GPUDIAG_M_SM_ACTIVE || m == GPUDIAG_M_TENSOR_ACTIVE;
        row->base_mean = row->test_mean = row->base_median = row->test_median = row->change = NAN;
        row->mwu_p = row->mwu_p_samples = NAN;
        row->outside_noise = -1;
        row->verdict = GPUDIAG_CMP_INCONCLUSIVE;
        /* one block length for both sides: the longest any GPU of either needs, but at
         * most a tenth of the shorter side's longest GPU so that blocks remain */
        size_t blen = 1, shortest = 0;
        const gpudiag_series *sides[2] = {base, test};
        for (int k = 0; k < 2; k++) {
            size_t longest = 0;
            for (size_t g = 0; g < sides[k]->gpu_count; g++) {
                const gpudiag_gpu_series *x = &sides[k]->gpus[g];
                if (!x->v[m])
                    continue;
                size_t b = block_len_of(x->v[m], x->count, scratch);
                if (b > blen)
                    blen = b;
                if (x->count > longest)
                    longest = x->count;
            }
            if (k == 0 || longest < shortest)
                shortest = longest;
        }
        if (blen > shortest / 10)
            blen = shortest / 10 ? shortest / 10 : 1;
        row->block_len = blen;
        pool pb, pt;
        int bad = pool_side(base, m, blen, &pb) | pool_side(test, m, blen, &pt);
        if (bad) {
            pool_free(&pb);
            pool_free(&pt);
            free(scratch);
            return gd_set_error(err, GPUDIAG_ERR_NOMEM, "", -1, "out of memory");
        }
        row->base_n = pb.n;
        row->test_n = pt.n;
        row->base_blocks = pb.nb;
        row->test_blocks = pt.nb;
        if (pb.n && pt.n) {
            double sb = 0, st = 0;
            for (size_t i = 0; i < pb.n; i++)
                sb += pb.samples[i];
            for (size_t i = 0; i < pt.n; i++)
                st += pt.samples[i];
            row->base_mean = sb / (double)pb.n;
            row->test_mean = st / (double)pt.n;
            if (row->base_mean != 0)
                row->change = (row->test_mean - row->base_mean) / fabs(row->base_mean);
            double u, p;
            int exact;
            if (pb.nb >= 2 && pt.nb >= 2 && gd_mann_whitney(pb.blocks, pb.nb, pt.blocks, pt.nb, &u, &p, &exact) == 0)
                row->mwu_p = p;
            if (pb.n >= 2 && pt.n >= 2 && gd_mann_whitney(pb.samples, pb.n, pt.samples, pt.n, &u, &p, &exact) == 0)
                row->mwu_p_samples = p;
            static const double half = 0.5;
            gd_quantiles(pb.samples, pb.n, &half, 1, &row->base_median); /* reorders: after the tests */
            gd_quantiles(pt.samples, pt.n, &half, 1, &row->test_median);
            row->outside_noise = isnan(row->mwu_p) ? -1 : row->mwu_p < o.alpha;
            double ch = isnan(row->change) ? (row->test_mean == row->base_mean ? 0 : INFINITY) : row->change;
            if (fabs(ch) <= o.threshold)
                row->verdict = GPUDIAG_CMP_NO_CHANGE;
            else if (row->outside_noise == 1)
                row->verdict = row->higher_is_better ? (ch > 0 ? GPUDIAG_CMP_IMPROVED : GPUDIAG_CMP_REGRESSED)
                                                     : GPUDIAG_CMP_INCONCLUSIVE;
            else
                row->verdict = GPUDIAG_CMP_INCONCLUSIVE;
            row->changed = fabs(ch) > o.threshold && row->outside_noise == 1;
            if (out->snapshot) {
                row->mwu_p = row->mwu_p_samples = NAN;
                row->outside_noise = -1;
                row->verdict = GPUDIAG_CMP_INCONCLUSIVE;
                row->changed = 0;
            }
        } else { /* one side only: its own mean and median; change, p and verdict unknown */
            pool *one[2] = {&pb, &pt};
            double *mean[2] = {&row->base_mean, &row->test_mean}, *med[2] = {&row->base_median, &row->test_median};
            for (int k = 0; k < 2; k++) {
                if (!one[k]->n)
                    continue;
                double sum = 0;
                for (size_t i = 0; i < one[k]->n; i++)
                    sum += one[k]->samples[i];
                *mean[k] = sum / (double)one[k]->n;
                static const double half = 0.5;
                gd_quantiles(one[k]->samples, one[k]->n, &half, 1, med[k]);
            }
        }
        pool_free(&pb);
        pool_free(&pt);
        if (out->gate < 0 && row->base_n && row->test_n && row->higher_is_better && m != GPUDIAG_M_TENSOR_ACTIVE)
            out->gate = r;
    }
    free(scratch);
    /* no utilisation metric on both sides: nothing was compared, so no "no_change" (DEFINITIONS
     * "compare: monitoring logs"; a new user's dcgmi SMACT log against a dmon sm log exited 0 as
     * no_change, which a CI gate reads as a pass) */
    out->verdict = out->gate >= 0 ? out->rows[out->gate].verdict : GPUDIAG_CMP_INCONCLUSIVE;
    return GPUDIAG_OK;
}
