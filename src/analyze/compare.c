/*
 * compare.c — sides (one run's numbers) and the comparison of a baseline with
 * a change: per-step Mann–Whitney U test, bootstrap of the median difference,
 * run-to-run spread, the CI gate, findings diff and HTA-style kernel diff.
 * Every rule is written down in docs/DEFINITIONS.md "Comparing runs".
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/compare_side.h"
#include "gpudiag/compare.h"
#include "util/util.h"

#define BOOT_RESAMPLES 2000
#define EXACT_MAX 50
#define FINDING_GAIN_MOVE 0.05
#define RUN_BAR 0.05

/* ---- names ----------------------------------------------------------------- */

static const char *const metric_names[GPUDIAG_METRIC_COUNT] = {
    "step_time", "step_time_median", "step_time_p90", "throughput", "gpu_utilization"};

const char *gpudiag_compare_metric_name(gpudiag_compare_metric m)
{
    return (unsigned)m < GPUDIAG_METRIC_COUNT ? metric_names[m] : "unknown";
}

int gpudiag_compare_metric_parse(const char *name)
{
    for (int i = 0; name && i < GPUDIAG_METRIC_COUNT; i++)
        if (strcmp(name, metric_names[i]) == 0)
            return i;
    return -1;
}

const char *gpudiag_compare_verdict_name(gpudiag_compare_verdict v)
{
    switch (v) {
    case GPUDIAG_CMP_NO_CHANGE: return "no_change";
    case GPUDIAG_CMP_IMPROVED: return "improved";
    case GPUDIAG_CMP_REGRESSED: return "regressed";
    case GPUDIAG_CMP_INCONCLUSIVE: return "inconclusive";
    }
    return "unknown";
}

const char *gpudiag_finding_change_name(gpudiag_finding_change c)
{
    switch (c) {
    case GPUDIAG_FC_UNCHANGED: return "unchanged";
    case GPUDIAG_FC_APPEARED: return "appeared";
    case GPUDIAG_FC_DISAPPEARED: return "disappeared";
    case GPUDIAG_FC_CHANGED: return "changed";
    }
    return "unknown";
}

void gpudiag_compare_opts_default(gpudiag_compare_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->metric = GPUDIAG_METRIC_STEP_TIME;
    o->threshold = 0.05;
    o->alpha = 0.05;
    o->full_names = 0;
}

/* ---- sides ------------------------------------------------------------------- */

gpudiag_side *gd_side_new(const char *label)
{
    gpudiag_side *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->label = gd_strdup(label ? label : "");
    if (!s->label) {
        free(s);
        return NULL;
    }
    s->gpu_utilization = s->sm_efficiency = s->achieved_occupancy = s->tensor_core_share = NAN;
    s->idle_share = s->comm_share = s->mfu = NAN;
    s->world_size = s->rank = s->gpu_count = -1;
    for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++)
        s->role_share[i] = NAN;
    for (int i = 0; i < GPUDIAG_IDLE_CAUSE_COUNT; i++)
        s->idle_cause_share[i] = NAN;
    s->ranks = 1;
    return s;
}

int gd_side_alloc_steps(gpudiag_side *s, size_t n)
{
    s->step_us = calloc(n + 1, sizeof *s->step_us);
    s->step_no = calloc(n + 1, sizeof *s->step_no);
    s->step_util = calloc(n + 1, sizeof *s->step_util);
    if (!s->step_us || !s->step_no || !s->step_util)
        return -1;
    s->nsteps = n;
    return 0;
}

void gpudiag_side_free(gpudiag_side **sp)
{
    if (!sp || !*sp)
        return;
    gpudiag_side *s = *sp;
    free(s->label);
    free(s->step_us);
    free(s->step_no);
    free(s->step_util);
    for (size_t i = 0; i < s->nfind; i++) {
        free(s->find[i].id);
        free(s->find[i].title);
    }
    free(s->find);
    for (size_t i = 0; i < s->nkern; i++)
        free(s->kern[i].name);
    free(s->kern);
    free(s);
    *sp = NULL;
}

const char *gpudiag_side_label(const gpudiag_side *s)
{
    return s ? s->label : NULL;
}

void gd_side_steady(gpudiag_side *s, const double *startup, const double *tail)
{
    size_t n = s->nsteps;
    if (n == 0)
        return;
    double *t = malloc(n * sizeof *t);
    if (!t)
        return; /* out of memory: keep every step (the comparison is then as before this rule) */
    size_t nt = 0;
    for (size_t k = 0; k < n; k++)
        if (!isnan(tail[k]))
            t[nt++] = tail[k];
    qsort(t, nt, sizeof *t, gd_cmp_double);
    double med = nt == 0 ? 0 : nt % 2 ? t[nt / 2] : (t[nt / 2 - 1] + t[nt / 2]) / 2;
    free(t);
    unsigned char *out = calloc(n, 1);
    if (!out)
        return;
    size_t nout = 0;
    for (size_t k = 0; k < n; k++) {
        double a = isnan(startup[k]) ? 0 : startup[k];
        double b = !isnan(tail[k]) && tail[k] > 2 * med ? tail[k] : 0;
        if (s->step_us[k] > 0 && a + b >= 0.10 * s->step_us[k]) {
            out[k] = 1;
            nout++;
        }
    }
    if (nout && n - nout < 2) {
        s->steady_unsure = 1;
        nout = 0;
    }
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        if (nout && out[k]) {
            if (s->nexcluded < GPUDIAG_EXCLUDED_LISTED) {
                gpudiag_excluded_step *e = &s->excluded[s->nexcluded];
                e->number = s->step_no[k];
                e->duration_us = s->step_us[k];
                e->startup_idle_us = isnan(startup[k]) ? 0 : startup[k];
                e->unexplained_tail_us = !isnan(tail[k]) && tail[k] > 2 * med ? tail[k] : 0;
            }
            s->nexcluded++;
            continue;
        }
        s->step_us[m] = s->step_us[k];
        s->step_no[m] = s->step_no[k];
        s->step_util[m] = s->step_util[k];
        m++;
    }
    s->nsteps = m;
    free(out);
}

gpudiag_status gpudiag_side_from_report(const gpudiag_report *r, gpudiag_side **out, gpudiag_error *err)
{
    if (!r || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "gpudiag_side_from_report: NULL report or out");
    *out = NULL;
    gpudiag_side *s = gd_side_new(r->input.path);
    if (!s || gd_side_alloc_steps(s, r->step_count) != 0)
        goto oom;
    for (size_t i = 0; i < r->step_count; i++) {
        const gpudiag_step *st = &r->steps[i];
        s->step_us[i] = st->duration_us;
        s->step_no[i] = st->number;
        s->step_util[i] = r->has_gpu && st->duration_us > 0 ? st->role_us[GPUDIAG_ROLE_KERNEL] / st->duration_us : NAN;
    }
    {
        double *a = malloc((r->step_count + 1) * sizeof *a), *b = malloc((r->step_count + 1) * sizeof *b);
        if (!a || !b) {
            free(a);
            free(b);
            goto oom;
        }
        for (size_t i = 0; i < r->step_count; i++) {
            a[i] = r->steps[i].startup_idle_us;
            b[i] = r->steps[i].unexplained_tail_us;
        }
        gd_side_steady(s, a, b);
        free(a);
        free(b);
    }
    gd_job_id id;
    gd_job_id_from_report(r, &id);
    s->world_size = id.world_size;
    s->rank = id.rank;
    s->gpu_count = id.gpu_count;
    if (id.gpu)
        snprintf(s->gpu, sizeof s->gpu, "%s", id.gpu);
    s->gpu_utilization = r->gpu_utilization;
    s->sm_efficiency = r->sm_efficiency;
    s->achieved_occupancy = r->achieved_occupancy;
    s->tensor_core_share = r->tensor_core_share;
    s->idle_share = r->idle_share;
    s->comm_share = r->comm_share;
    s->mfu = r->mfu;
    for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++)
        s->role_share[i] = r->avg_step_us > 0 ? r->avg_role_us[i] / r->avg_step_us : NAN;
    for (int c = 0; c < GPUDIAG_IDLE_CAUSE_COUNT; c++)
        s->idle_cause_share[c] = r->has_gpu && r->step_count && r->idle_step_us > 0
                                     ? r->idle_cause_us[c] / (double)r->step_count /
                                           (r->timeline.device_count ? (double)r->timeline.device_count : 1.0) /
                                           r->idle_step_us
                                     : NAN;
    s->find = calloc(r->finding_count + 1, sizeof *s->find);
    if (!s->find)
        goto oom;
    for (size_t i = 0; i < r->finding_count; i++) {
        const gpudiag_finding *f = &r->findings[i];
        gd_side_finding *g = &s->find[s->nfind++];
        g->id = gd_strdup(f->id);
        g->title = gd_strdup(f->title ? f->title : "");
        g->severity = (int)f->severity;
        g->est_gain = f->est_gain;
        if (!g->id || !g->title)
            goto oom;
    }
    s->kern = calloc(r->kernel_stat_count + 1, sizeof *s->kern);
    if (!s->kern)
        goto oom;
    for (size_t i = 0; i < r->kernel_stat_count; i++) {
        gd_side_kernel *k = &s->kern[s->nkern++];
        k->name = gd_strdup(r->kernel_stats[i].name);
        k->calls = (double)r->kernel_stats[i].calls;
        k->total_us = r->kernel_stats[i].total_us;
        if (!k->name)
            goto oom;
    }
    *out = s;
    return GPUDIAG_OK;
oom:
    gpudiag_side_free(&s);
    return gd_set_error(err, GPUDIAG_ERR_NOMEM, r->input.path, -1, "out of memory");
}

/* Mean of the known (non-NaN) values; NaN if none. */
static double nan_mean(const double *v, size_t n, size_t stride)
{
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double x = v[i * stride];
        if (!isnan(x)) {
            sum += x;
            k++;
        }
    }
    return k ? sum / (double)k : NAN;
}

/* Index of the step of rank side `s` that matches step `k` of the first rank, or -1. */
static long match_step(const gpudiag_side *first, size_t k, const gpudiag_side *s)
{
    int64_t no = first->step_no[k];
    if (no < 0)
        return k < s->nsteps ? (long)k : -1;
    for (size_t i = 0; i < s->nsteps; i++)
        if (s->step_no[i] == no)
            return (long)i;
    return -1;
}

gpudiag_side *gd_side_combine_ranks(gpudiag_side *const *ranks, size_t n, const char *label)
{
    if (n == 0)
        return NULL;
    gpudiag_side *s = gd_side_new(label);
    if (!s)
        return NULL;
    s->ranks = n;
    const gpudiag_side *first = ranks[0];
    memcpy(s->gpu, first->gpu, sizeof s->gpu);
    s->world_size = first->world_size;
    if (gd_side_alloc_steps(s, first->nsteps) != 0)
        goto oom;
    size_t m = 0;
    for (size_t k = 0; k < first->nsteps; k++) {
        double worst = first->step_us[k], util = 0;
        size_t nutil = 0;
        int all = 1;
        for (size_t r = 0; r < n && all; r++) {
            long i = match_step(first, k, ranks[r]);
            if (i < 0) {
                all = 0;
                break;
            }
            if (ranks[r]->step_us[i] > worst)
                worst = ranks[r]->step_us[i];
            if (!isnan(ranks[r]->step_util[i])) {
                util += ranks[r]->step_util[i];
                nutil++;
            }
        }
        if (!all)
            continue;
        s->step_us[m] = worst;
        s->step_no[m] = first->step_no[k];
        s->step_util[m] = nutil ? util / (double)nutil : NAN;
        m++;
    }
    s->nsteps = m;
    s->tables_steady = 1; /* the job's tables cover its kept steps when every rank's do */
    for (size_t r = 0; r < n; r++) {
        s->tables_steady &= ranks[r]->tables_steady;
        s->steady_unsure |= ranks[r]->steady_unsure;
        if (ranks[r]->nexcluded > s->nexcluded) {
            s->nexcluded = ranks[r]->nexcluded;
            memcpy(s->excluded, ranks[r]->excluded, sizeof s->excluded);
        }
    }
    double *v = malloc((n + 1) * sizeof *v);
    if (!v)
        goto oom;
#define MEAN_OF(field)                                                                                                 \
    do {                                                                                                               \
        for (size_t r = 0; r < n; r++)                                                                                 \
            v[r] = ranks[r]->field;                                                                                    \
        s->field = nan_mean(v, n, 1);                                                                                  \
    } while (0)
    MEAN_OF(gpu_utilization);
    MEAN_OF(sm_efficiency);
    MEAN_OF(achieved_occupancy);
    MEAN_OF(tensor_core_share);
    MEAN_OF(idle_share);
    MEAN_OF(comm_share);
    MEAN_OF(mfu);
    for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++)
        MEAN_OF(role_share[i]);
    for (int i = 0; i < GPUDIAG_IDLE_CAUSE_COUNT; i++)
        MEAN_OF(idle_cause_share[i]);
#undef MEAN_OF
    free(v);
    size_t nk = 0, nf = 0;
    for (size_t r = 0; r < n; r++) {
        nk += ranks[r]->nkern;
        nf += ranks[r]->nfind;
        if (ranks[r]->kernels_partial)
            s->kernels_partial = 1;
    }
    s->kern = calloc(nk + 1, sizeof *s->kern);
    s->find = calloc(nf + 1, sizeof *s->find);
    if (!s->kern || !s->find)
        goto oom;
    for (size_t r = 0; r < n; r++) {
        for (size_t i = 0; i < ranks[r]->nkern; i++) {
            gd_side_kernel *k = &s->kern[s->nkern];
            *k = ranks[r]->kern[i];
            k->name = gd_strdup(ranks[r]->kern[i].name);
            if (!k->name)
                goto oom;
            s->nkern++;
        }
        for (size_t i = 0; i < ranks[r]->nfind; i++) {
            const gd_side_finding *f = &ranks[r]->find[i];
            gd_side_finding *g = NULL;
            for (size_t j = 0; j < s->nfind; j++)
                if (strcmp(s->find[j].id, f->id) == 0)
                    g = &s->find[j];
            if (g) {
                if (f->severity > g->severity)
                    g->severity = f->severity;
                if (!isnan(f->est_gain) && (isnan(g->est_gain) || f->est_gain > g->est_gain))
                    g->est_gain = f->est_gain;
                continue;
            }
            g = &s->find[s->nfind];
            g->id = gd_strdup(f->id);
            g->title = gd_strdup(f->title);
            g->severity = f->severity;
            g->est_gain = f->est_gain;
            if (!g->id || !g->title) {
                free(g->id);
                free(g->title);
                goto oom;
            }
            s->nfind++;
        }
    }
    return s;
oom:
    gpudiag_side_free(&s);
    return NULL;
}

gpudiag_status gpudiag_side_from_ranks(const gpudiag_report *const *reports, size_t n, const char *label,
                                       gpudiag_side **out, gpudiag_error *err)
{
    if (!reports || n == 0 || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "gpudiag_side_from_ranks: no reports");
    *out = NULL;
    gpudiag_side **rs = calloc(n, sizeof *rs);
    if (!rs)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, label, -1, "out of memory");
    gpudiag_status st = GPUDIAG_OK;
    for (size_t i = 0; i < n && st == GPUDIAG_OK; i++)
        st = gpudiag_side_from_report(reports[i], &rs[i], err);
    if (st == GPUDIAG_OK) {
        *out = gd_side_combine_ranks(rs, n, label);
        if (!*out)
            st = gd_set_error(err, GPUDIAG_ERR_NOMEM, label, -1, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        gpudiag_side_free(&rs[i]);
    free(rs);
    return st;
}

/* ---- statistics ---------------------------------------------------------------- */

/*
 * Two-sided Mann–Whitney U test (declared in compare_side.h): U = #{(b, t): t < b} + ½ #{t = b}.
 * Exact null distribution (Gaussian binomial coefficients) without ties and
 * with both sides <= EXACT_MAX; normal approximation with tie and continuity
 * corrections otherwise.  Returns 0, or -1 on OOM.
 */
int gd_mann_whitney(const double *b, size_t m, const double *t, size_t n, double *u_out, double *p_out,
                        int *exact_out)
{
    *u_out = *p_out = NAN;
    *exact_out = 0;
    if (m == 0 || n == 0)
        return 0;
    double u = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            u += t[j] < b[i] ? 1.0 : t[j] == b[i] ? 0.5 : 0.0;
    *u_out = u;
    if (m < 2 || n < 2)
        return 0;
    /* ties: sort the pooled sample and count runs of equal values */
    size_t N = m + n;
    double *all = malloc(N * sizeof *all);
    if (!all)
        return -1;
    memcpy(all, b, m * sizeof *b);
    memcpy(all + m, t, n * sizeof *t);
    qsort(all, N, sizeof *all, gd_cmp_double);
    double tie_sum = 0;
    int ties = 0;
    for (size_t i = 0; i < N;) {
        size_t j = i;
        while (j < N && all[j] == all[i])
            j++;
        double c = (double)(j - i);
        if (c > 1) {
            ties = 1;
            tie_sum += c * c * c - c;
        }
        i = j;
    }
    free(all);
    if (!ties && m <= EXACT_MAX && n <= EXACT_MAX) {
        /* coefficients of [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i) */
        size_t len = m * n + 1;
        double *c = calloc(len, sizeof *c);
        if (!c)
            return -1;
        c[0] = 1;
        for (size_t i = 1; i <= m; i++) {
            size_t a = n + i;
            for (size_t k = len; k-- > a;)
                c[k] -= c[k - a];
            for (size_t k = i; k < len; k++)
                c[k] += c[k - i];
        }
        double total = 0, le = 0, ge = 0;
        size_t ui = (size_t)u;
        for (size_t k = 0; k < len; k++) {
            total += c[k];
            if (k <= ui)
                le += c[k];
            if (k >= ui)
                ge += c[k];
        }
        free(c);
        double p = 2 * fmin(le, ge) / total;
        *p_out = p > 1 ? 1 : p;
        *exact_out = 1;
        return 0;
    }
    double mu = (double)m * (double)n / 2;
    double var = (double)m * (double)n / 12 * (((double)N + 1) - tie_sum / ((double)N * ((double)N - 1)));
    if (!(var > 0)) {
        *p_out = 1;
        return 0;
    }
    double z = (fabs(u - mu) - 0.5) / sqrt(var);
    if (z < 0)
        z = 0;
    double p = erfc(z / sqrt(2.0));
    *p_out = p > 1 ? 1 : p;
    return 0;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double resample_median(const double *v, size_t n, double *scratch, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = v[splitmix64(rng) % n];
    qsort(scratch, n, sizeof *scratch, gd_cmp_double);
    return gd_quantile_sorted(scratch, n, 0.5);
}

/* Bootstrap 95 % interval of median(t) − median(b).  Returns 0 or -1 (OOM). */
static int bootstrap_median_diff(const double *b, size_t m, const double *t, size_t n, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (m < 2 || n < 2)
        return 0;
    double *scratch = malloc((m > n ? m : n) * sizeof *scratch);
    double *d = malloc(BOOT_RESAMPLES * sizeof *d);
    if (!scratch || !d) {
        free(scratch);
        free(d);
        return -1;
    }
    uint64_t rng = 0x6770756469616701ULL; /* fixed seed: reproducible output */
    for (size_t i = 0; i < BOOT_RESAMPLES; i++) {
        double mb = resample_median(b, m, scratch, &rng);
        double mt = resample_median(t, n, scratch, &rng);
        d[i] = mt - mb;
    }
    qsort(d, BOOT_RESAMPLES, sizeof *d, gd_cmp_double);
    *lo = gd_quantile_sorted(d, BOOT_RESAMPLES, 0.025);
    *hi = gd_quantile_sorted(d, BOOT_RESAMPLES, 0.975);
    free(scratch);
    free(d);
    return 0;
}

static double median_of(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *c = malloc(n * sizeof *c);
    if (!c)
        return NAN;
    memcpy(c, v, n * sizeof *v);
    qsort(c, n, sizeof *c, gd_cmp_double);
    double r = gd_quantile_sorted(c, n, 0.5);
    free(c);
    return r;
}

/* ---- HTA short names ------------------------------------------------------------- */

/* HTA hta/utils/utils.py shorten_name (DEFINITIONS "Comparing runs"): drop
 * "->", delete <...> and (...) groups with a stack, keep the last word. */
static char *hta_short_name(const char *name)
{
    size_t len = strlen(name);
    char *st = malloc(len + 1);
    if (!st)
        return NULL;
    size_t top = 0;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (c == '-' && name[i + 1] == '>') {
            i++;
            continue;
        }
        if (c == '>' || c == ')') {
            char open = c == '>' ? '<' : '(';
            while (top > 0 && st[top - 1] != open)
                top--;
            if (top > 0)
                top--;
        } else {
            st[top++] = c;
        }
    }
    st[top] = '\0';
    char *sp = strrchr(st, ' ');
    const char *word = sp ? sp + 1 : st;
    char *r = gd_strdup(word[0] ? word : name);
    free(st);
    return r;
}

/* The kept steps of s run from step *lo to step *hi of r with none left out
 * between them: 1; else 0 (synthetic windows have no number to cut at). */
static int kept_range(const gpudiag_report *r, const gpudiag_side *s, int64_t *lo, int64_t *hi)
{
    if (s->nsteps == 0)
        return 0;
    *lo = s->step_no[0];
    *hi = s->step_no[s->nsteps - 1];
    if (*lo < 0 || *hi < *lo)
        return 0;
    size_t in = 0;
    for (size_t i = 0; i < r->step_count; i++)
        in += r->steps[i].number >= *lo && r->steps[i].number <= *hi;
    return in == s->nsteps;
}

/* Exchange two fields of n bytes (a pointer, a count). */
static void swap_field(void *a, void *b, size_t n)
{
    unsigned char tmp[sizeof(void *) + sizeof(size_t)]; /* room for either (n is one of the two) */
    memcpy(tmp, a, n);
    memcpy(a, b, n);
    memcpy(b, tmp, n);
}

/* s's table numbers taken from t (moved: t's findings and kernels end up in s). */
static void take_tables(gpudiag_side *s, gpudiag_side *t)
{
    s->gpu_utilization = t->gpu_utilization;
    s->sm_efficiency = t->sm_efficiency;
    s->achieved_occupancy = t->achieved_occupancy;
    s->tensor_core_share = t->tensor_core_share;
    s->idle_share = t->idle_share;
    s->comm_share = t->comm_share;
    s->mfu = t->mfu;
    memcpy(s->role_share, t->role_share, sizeof s->role_share);
    memcpy(s->idle_cause_share, t->idle_cause_share, sizeof s->idle_cause_share);
    /* the arrays change hands: t frees s's old ones */
    swap_field(&s->find, &t->find, sizeof s->find);
    swap_field(&s->nfind, &t->nfind, sizeof s->nfind);
    swap_field(&s->kern, &t->kern, sizeof s->kern);
    swap_field(&s->nkern, &t->nkern, sizeof s->nkern);
    s->kernels_partial = t->kernels_partial;
}

gpudiag_status gpudiag_side_from_trace(gpudiag_trace *t, const gpudiag_analyze_opts *opts, gpudiag_side **out,
                                       gpudiag_error *err)
{
    if (!t || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "gpudiag_side_from_trace: NULL trace or out");
    *out = NULL;
    gpudiag_report *r = NULL;
    gpudiag_status st = gpudiag_analyze(t, opts, &r, err);
    if (st == GPUDIAG_OK)
        st = gpudiag_side_from_report(r, out, err);
    int64_t lo = 0, hi = 0;
    int cut = st == GPUDIAG_OK && (*out)->nexcluded > 0 && kept_range(r, *out, &lo, &hi);
    gpudiag_report_free(&r);
    if (st != GPUDIAG_OK || !cut) {
        if (st == GPUDIAG_OK)
            (*out)->tables_steady = (*out)->nexcluded == 0;
        return st;
    }
    /* DEFINITIONS "Steady state of a run": the tables over the kept steps, as the step times */
    gpudiag_error e2;
    memset(&e2, 0, sizeof e2);
    gpudiag_side *kept = NULL;
    gpudiag_status s2 = gpudiag_trace_select_steps(t, lo, hi, &e2);
    if (s2 == GPUDIAG_OK)
        s2 = gpudiag_analyze(t, opts, &r, &e2);
    if (s2 == GPUDIAG_OK)
        s2 = gpudiag_side_from_report(r, &kept, &e2);
    gpudiag_report_free(&r);
    if (s2 == GPUDIAG_OK) {
        take_tables(*out, kept);
        (*out)->tables_steady = 1;
    }
    gpudiag_side_free(&kept);
    if (s2 == GPUDIAG_ERR_NOMEM) {
        gpudiag_side_free(out);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
    }
    return GPUDIAG_OK; /* another failure of the cut: the tables cover every step, and say so */
}

/* ---- the comparison ----------------------------------------------------------------- */

typedef struct group {
    const gpudiag_side *const *runs;
    size_t n;
    double *steps, *util;         /* pooled samples */
    size_t nsteps, nutil;
    size_t nsteps_all;    /* with the steps left out of the steady state: the kernel totals are whole-trace */
    gpudiag_stats_us st;
    /* cppcheck-suppress unusedStructMember ; kept for the --runs spread (compare's author) */
    double metric_runs_spread;
} group;

static double side_metric(const gpudiag_side *s, gpudiag_compare_metric m)
{
    gpudiag_stats_us st;
    gd_stats_compute(s->step_us, s->nsteps, &st);
    switch (m) {
    case GPUDIAG_METRIC_STEP_TIME: return st.mean;
    case GPUDIAG_METRIC_STEP_TIME_MEDIAN: return st.median;
    case GPUDIAG_METRIC_STEP_TIME_P90: return st.p90;
    case GPUDIAG_METRIC_THROUGHPUT: return st.mean > 0 ? 1e6 / st.mean : NAN;
    case GPUDIAG_METRIC_GPU_UTILIZATION: return s->gpu_utilization;
    case GPUDIAG_METRIC_COUNT: break;
    }
    return NAN;
}

/* (max − min) ÷ mean of the per-run values; NaN with < 2 known runs. */
static double spread(const double *v, size_t n)
{
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        lo = fmin(lo, v[i]);
        hi = fmax(hi, v[i]);
        sum += v[i];
        k++;
    }
    if (k < 2 || sum == 0)
        return NAN;
    return (hi - lo) / (sum / (double)k);
}

static int group_build(group *g, const gpudiag_side *const *runs, size_t n, gpudiag_compare_metric metric,
                       gpudiag_compare_runs *out)
{
    memset(g, 0, sizeof *g);
    g->runs = runs;
    g->n = n;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += runs[i]->nsteps;
    g->steps = calloc(total + 1, sizeof *g->steps);
    g->util = calloc(total + 1, sizeof *g->util);
    double *rv = malloc((n + 1) * sizeof *rv);
    double *mv = malloc((n + 1) * sizeof *mv);
    if (!g->steps || !g->util || !rv || !mv) {
        free(rv);
        free(mv);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const gpudiag_side *s = runs[i];
        for (size_t k = 0; k < s->nsteps; k++) {
            g->steps[g->nsteps++] = s->step_us[k];
            if (!isnan(s->step_util[k]))
                g->util[g->nutil++] = s->step_util[k];
        }
        rv[i] = side_metric(s, GPUDIAG_METRIC_STEP_TIME);
        mv[i] = side_metric(s, metric);
        if (s->kernels_partial)
            out->kernels_partial = 1;
        out->steady_unsure |= s->steady_unsure;
        /* the kernel totals cover the left-out steps unless the tables were cut to the kept ones */
        g->nsteps_all += s->nsteps + (s->tables_steady ? 0 : s->nexcluded);
        if (s->nexcluded && !s->tables_steady)
            out->tables_all_steps = 1;
        for (size_t e = 0; e < s->nexcluded; e++) {
            if (e < GPUDIAG_EXCLUDED_LISTED && out->excluded_listed < GPUDIAG_EXCLUDED_LISTED)
                out->excluded[out->excluded_listed++] = s->excluded[e];
            out->steps_excluded++;
        }
    }
    gd_stats_compute(g->steps, g->nsteps, &g->st);
    out->runs = n;
    out->steps = g->nsteps;
    out->run_spread = n >= 2 ? spread(rv, n) : NAN;
    out->within_bar = isnan(out->run_spread) ? -1 : out->run_spread <= RUN_BAR;
    out->metric_spread = n >= 2 ? spread(mv, n) : NAN;
    free(rv);
    free(mv);
    return 0;
}

static void group_free(group *g)
{
    free(g->steps);
    free(g->util);
}

/* Mean over a group's runs of a side number at byte offset `off`. */
static double group_mean(const group *g, size_t off)
{
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++) {
        /* cppcheck-suppress invalidPointerCast ; off is the offsetof() of a double member */
        double x = *(const double *)((const char *)g->runs[i] + off);
        if (!isnan(x)) {
            sum += x;
            k++;
        }
    }
    return k ? sum / (double)k : NAN;
}

static void add_row(gpudiag_comparison *c, const char *key, double b, double t, int better)
{
    gpudiag_compare_row *r = &c->rows[c->row_count++];
    r->key = key;
    r->base = b;
    r->test = t;
    r->delta = isnan(b) || isnan(t) ? NAN : t - b;
    r->change = isnan(r->delta) || b == 0 ? NAN : r->delta / b;
    r->better = better;
}

/* the JSON keys of the role and idle-cause shares, from the enums' lists */
static const char *const role_keys[GPUDIAG_ROLE_COUNT] = {
#define GPUDIAG_ROLE_ROW(e, name, abbr) "breakdown.share." name,
#include "gpudiag/roles.def"
#undef GPUDIAG_ROLE_ROW
};
static const char *const cause_keys[GPUDIAG_IDLE_CAUSE_COUNT] = {
#define GPUDIAG_IDLE_CAUSE_ROW(e, name) "idle.by_cause_share_of_step." name,
#include "gpudiag/idle_causes.def"
#undef GPUDIAG_IDLE_CAUSE_ROW
};

/* a finding id over a group's runs */
typedef struct fagg {
    const char *id, *title;
    size_t count, gains;
    int sev;
    double gain;
} fagg;

static int fagg_collect(const group *g, fagg **out, size_t *nout)
{
    size_t cap = 0;
    for (size_t i = 0; i < g->n; i++)
        cap += g->runs[i]->nfind;
    fagg *a = calloc(cap + 1, sizeof *a);
    if (!a)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++) {
        for (size_t k = 0; k < g->runs[i]->nfind; k++) {
            const gd_side_finding *f = &g->runs[i]->find[k];
            fagg *x = NULL;
            for (size_t j = 0; j < n; j++)
                if (strcmp(a[j].id, f->id) == 0)
                    x = &a[j];
            if (!x) {
                x = &a[n++];
                x->id = f->id;
                x->title = f->title;
                x->sev = -1;
            }
            x->count++;
            if (f->severity > x->sev)
                x->sev = f->severity;
            if (!isnan(f->est_gain)) {
                x->gain += f->est_gain;
                x->gains++;
            }
        }
    }
    /* present when in more than half of the runs */
    size_t m = 0;
    for (size_t j = 0; j < n; j++) {
        if (a[j].count * 2 > g->n) {
            a[m] = a[j];
            a[m].gain = a[m].gains ? a[m].gain / (double)a[m].gains : NAN;
            m++;
        }
    }
    *out = a;
    *nout = m;
    return 0;
}

static int finding_rank(gpudiag_finding_change c)
{
    return c == GPUDIAG_FC_APPEARED ? 0 : c == GPUDIAG_FC_DISAPPEARED ? 1 : c == GPUDIAG_FC_CHANGED ? 2 : 3;
}

static int cmp_cfinding(const void *a, const void *b)
{
    const gpudiag_compare_finding *x = a, *y = b;
    int d = finding_rank(x->change) - finding_rank(y->change);
    return d ? d : strcmp(x->id, y->id);
}

static int build_findings(gpudiag_comparison *c, const group *gb, const group *gt)
{
    fagg *fb = NULL, *ft = NULL;
    size_t nb = 0, nt = 0;
    if (fagg_collect(gb, &fb, &nb) || fagg_collect(gt, &ft, &nt)) {
        free(fb);
        free(ft);
        return -1;
    }
    c->findings = calloc(nb + nt + 1, sizeof *c->findings);
    if (!c->findings) {
        free(fb);
        free(ft);
        return -1;
    }
    int rc = 0;
    for (size_t pass = 0; pass < 2 && rc == 0; pass++) {
        const fagg *src = pass ? fb : ft;
        size_t ns = pass ? nb : nt;
        for (size_t i = 0; i < ns; i++) {
            const fagg *ob = NULL, *ot = NULL;
            if (pass == 0) {
                ot = &src[i];
                for (size_t j = 0; j < nb; j++)
                    if (strcmp(fb[j].id, ot->id) == 0)
                        ob = &fb[j];
            } else {
                ob = &src[i];
                int seen = 0;
                for (size_t j = 0; j < nt; j++)
                    if (strcmp(ft[j].id, ob->id) == 0)
                        seen = 1;
                if (seen)
                    continue;
            }
            gpudiag_compare_finding *f = &c->findings[c->finding_count];
            const fagg *any = ot ? ot : ob; /* pass 0 sets ot, pass 1 sets ob: never both NULL */
            /* cppcheck-suppress nullPointer ; see above */
            f->id = gd_strdup(any->id);
            /* cppcheck-suppress nullPointer ; see above */
            f->title = gd_strdup(any->title ? any->title : "");
            if (!f->id || !f->title) {
                free((char *)(uintptr_t)f->id);
                free((char *)(uintptr_t)f->title);
                rc = -1;
                break;
            }
            c->finding_count++;
            f->base_severity = ob ? ob->sev : -1;
            f->test_severity = ot ? ot->sev : -1;
            f->base_est_gain = ob ? ob->gain : NAN;
            f->test_est_gain = ot ? ot->gain : NAN;
            if (!ob)
                f->change = GPUDIAG_FC_APPEARED;
            else if (!ot)
                f->change = GPUDIAG_FC_DISAPPEARED;
            else if (ob->sev != ot->sev || (isnan(ob->gain) != isnan(ot->gain)) ||
                     (!isnan(ob->gain) && fabs(ot->gain - ob->gain) >= FINDING_GAIN_MOVE))
                f->change = GPUDIAG_FC_CHANGED;
            else
                f->change = GPUDIAG_FC_UNCHANGED;
        }
    }
    free(fb);
    free(ft);
    if (rc == 0)
        qsort(c->findings, c->finding_count, sizeof *c->findings, cmp_cfinding);
    return rc;
}

/* kernel diff: (key, side) entries sorted by key, then merged */
typedef struct kent {
    char *key;
    int side;     /* 0 base, 1 test */
    double calls, us;
} kent;

static int cmp_kent(const void *a, const void *b)
{
    return strcmp(((const kent *)a)->key, ((const kent *)b)->key);
}

static double per_step(double us, double steps)
{
    return steps > 0 ? us / steps : NAN;
}

static double mover_size(const gpudiag_compare_kernel *k)
{
    return isnan(k->delta_us_per_step) ? fabs(k->delta_us) : fabs(k->delta_us_per_step);
}

static int cmp_ckernel(const void *a, const void *b)
{
    const gpudiag_compare_kernel *x = a, *y = b;
    double dx = mover_size(x), dy = mover_size(y);
    if (dx != dy)
        return dx < dy ? 1 : -1;
    if (fabs(x->delta_us) != fabs(y->delta_us))
        return fabs(x->delta_us) < fabs(y->delta_us) ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int build_kernels(gpudiag_comparison *c, const group *gb, const group *gt, int full)
{
    size_t n = 0;
    for (size_t i = 0; i < gb->n; i++)
        n += gb->runs[i]->nkern;
    for (size_t i = 0; i < gt->n; i++)
        n += gt->runs[i]->nkern;
    kent *e = calloc(n + 1, sizeof *e);
    if (!e)
        return -1;
    size_t m = 0;
    int rc = 0;
    for (int side = 0; side < 2 && rc == 0; side++) {
        const group *g = side ? gt : gb;
        for (size_t i = 0; i < g->n && rc == 0; i++) {
            for (size_t k = 0; k < g->runs[i]->nkern; k++) {
                const gd_side_kernel *sk = &g->runs[i]->kern[k];
                e[m].key = full ? gd_strdup(sk->name) : hta_short_name(sk->name);
                if (!e[m].key) {
                    rc = -1;
                    break;
                }
                e[m].side = side;
                e[m].calls = sk->calls / (double)g->n;
                e[m].us = sk->total_us / (double)g->n;
                m++;
            }
        }
    }
    if (rc == 0)
        qsort(e, m, sizeof *e, cmp_kent);
    c->kernels = rc == 0 ? calloc(m + 1, sizeof *c->kernels) : NULL;
    if (!c->kernels)
        rc = -1;
    /* kernel totals cover the steps the tables cover (the kept ones, or the whole trace) */
    double sb = (double)gb->nsteps_all / (double)gb->n, stt = (double)gt->nsteps_all / (double)gt->n;
    for (size_t i = 0; rc == 0 && i < m;) {
        size_t j = i;
        gpudiag_compare_kernel *k = &c->kernels[c->kernel_count];
        while (j < m && strcmp(e[j].key, e[i].key) == 0) {
            if (e[j].side == 0) {
                k->base_calls += e[j].calls;
                k->base_us += e[j].us;
            } else {
                k->test_calls += e[j].calls;
                k->test_us += e[j].us;
            }
            j++;
        }
        k->name = e[i].key;
        e[i].key = NULL; /* moved */
        k->delta_us = k->test_us - k->base_us;
        k->delta_us_per_step = per_step(k->test_us, stt) - per_step(k->base_us, sb);
        k->change = k->base_calls == 0 ? GPUDIAG_KC_ADDED : k->test_calls == 0 ? GPUDIAG_KC_REMOVED : GPUDIAG_KC_SAME;
        if (k->change == GPUDIAG_KC_ADDED)
            c->kernels_added++;
        if (k->change == GPUDIAG_KC_REMOVED)
            c->kernels_removed++;
        c->kernel_count++;
        i = j;
    }
    for (size_t i = 0; i < m; i++)
        free(e[i].key);
    free(e);
    if (rc == 0)
        qsort(c->kernels, c->kernel_count, sizeof *c->kernels, cmp_ckernel);
    return rc;
}

static const char *metric_label(gpudiag_compare_metric m)
{
    switch (m) {
    case GPUDIAG_METRIC_STEP_TIME: return "mean step time";
    case GPUDIAG_METRIC_STEP_TIME_MEDIAN: return "median step time";
    case GPUDIAG_METRIC_STEP_TIME_P90: return "p90 step time";
    case GPUDIAG_METRIC_THROUGHPUT: return "throughput";
    case GPUDIAG_METRIC_GPU_UTILIZATION: return "GPU utilization";
    case GPUDIAG_METRIC_COUNT: break;
    }
    return "metric";
}

static void fmt_metric(char *b, size_t n, gpudiag_compare_metric m, double v)
{
    if (isnan(v))
        snprintf(b, n, "n/a");
    else if (m == GPUDIAG_METRIC_THROUGHPUT)
    {
        char s[32];
        snprintf(b, n, "%s steps/s", gd_format_sig3(s, sizeof s, v));
    }
    else if (m == GPUDIAG_METRIC_GPU_UTILIZATION)
        snprintf(b, n, "%.1f%%", v * 100);
    else
        snprintf(b, n, "%.2f ms", v / 1000);
}

static char *make_summary(const gpudiag_comparison *c, const group *gb, const group *gt)
{
    char vb[48], vt[48], ch[32], noise[160];
    fmt_metric(vb, sizeof vb, c->metric, c->metric_base);
    fmt_metric(vt, sizeof vt, c->metric, c->metric_test);
    if (isnan(c->metric_change))
        snprintf(ch, sizeof ch, "change unknown");
    else
        snprintf(ch, sizeof ch, "%+.1f%%", c->metric_change * 100);
    size_t nb = c->metric == GPUDIAG_METRIC_GPU_UTILIZATION ? gb->nutil : gb->nsteps;
    size_t nt = c->metric == GPUDIAG_METRIC_GPU_UTILIZATION ? gt->nutil : gt->nsteps;
    if (c->outside_noise < 0)
        snprintf(noise, sizeof noise, "noise unknown (%zu vs %zu steps; the U test needs 2 per side)", nb, nt);
    else if (c->outside_noise && !isnan(c->mwu_p))
        snprintf(noise, sizeof noise, "outside the noise (Mann-Whitney p = %.2g, %zu vs %zu steps)", c->mwu_p, nb,
                 nt);
    else if (!isnan(c->mwu_p) && c->mwu_p < c->alpha)
        snprintf(noise, sizeof noise, "within the run-to-run spread (Mann-Whitney p = %.2g, %zu vs %zu steps)",
                 c->mwu_p, nb, nt);
    else
        snprintf(noise, sizeof noise, "within the noise (Mann-Whitney p = %.2g, %zu vs %zu steps)", c->mwu_p, nb, nt);
    const char *what = c->verdict == GPUDIAG_CMP_IMPROVED    ? "improved"
                       : c->verdict == GPUDIAG_CMP_REGRESSED ? "regressed"
                       : c->verdict == GPUDIAG_CMP_NO_CHANGE ? "no change beyond the threshold"
                                                             : "inconclusive";
    char caution[320] = "";
    if (c->mixed_job) {
        char why[200];
        gd_mix_words(c->mixed_job, why, sizeof why);
        snprintf(caution, sizeof caution, " Caution: base and test differ in set-up (%s); the change is not the code's alone.",
                 why);
    }
    return gd_format("%s: %s %s -> %s (%s, threshold %.3g%%); %s.%s", what, metric_label(c->metric), vb, vt, ch,
                     c->threshold * 100, noise, caution);
}

static int side_has_finding(const gpudiag_side *s, const char *id)
{
    for (size_t i = 0; i < s->nfind; i++)
        if (strcmp(s->find[i].id, id) == 0)
            return 1;
    return 0;
}

static int cut_is_base(const gpudiag_side *s, const gpudiag_side *const *base, size_t nbase)
{
    for (size_t i = 0; i < nbase; i++)
        if (base[i] == s)
            return 1;
    return 0;
}

gpudiag_status gpudiag_compare(const gpudiag_side *const *base, size_t nbase, const gpudiag_side *const *test,
                               size_t ntest, const gpudiag_compare_opts *opts, gpudiag_comparison **out,
                               gpudiag_error *err)
{
    if (!out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "gpudiag_compare: NULL out");
    *out = NULL;
    if (!base || !test || nbase == 0 || ntest == 0)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "gpudiag_compare: each side needs at least one run");
    gpudiag_compare_opts o;
    if (opts)
        o = *opts;
    else
        gpudiag_compare_opts_default(&o);
    if ((unsigned)o.metric >= GPUDIAG_METRIC_COUNT || !(o.threshold > 0 && o.threshold < 10) ||
        !(o.alpha > 0 && o.alpha < 1))
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1,
                            "gpudiag_compare: metric, threshold (0..10) or alpha (0..1) out of range");
    gpudiag_comparison *c = calloc(1, sizeof *c);
    group gb, gt;
    memset(&gb, 0, sizeof gb);
    memset(&gt, 0, sizeof gt);
    if (!c)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
    c->metric = o.metric;
    c->threshold = o.threshold;
    /* one set-up on both sides? (DEFINITIONS "compare": the job rule of "Ranks and stragglers") */
    gd_job_id *ids = calloc(nbase + ntest, sizeof *ids);
    if (!ids) {
        free(c);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
    }
    for (size_t i = 0; i < nbase + ntest; i++) {
        const gpudiag_side *s = i < nbase ? base[i] : test[i - nbase];
        ids[i].rank = -1; /* ranks differ freely between runs */
        ids[i].world_size = s->world_size;
        ids[i].gpu = s->gpu;
        ids[i].gpu_count = s->gpu_count;
    }
    c->mixed_job = gd_job_mix(ids, nbase + ntest) & (GPUDIAG_MIX_WORLD_SIZE | GPUDIAG_MIX_GPU | GPUDIAG_MIX_GPU_COUNT);
    free(ids);
    c->alpha = o.alpha;
    c->full_names = o.full_names;
    c->base_count = nbase;
    c->test_count = ntest;
    c->base_labels = calloc(nbase, sizeof *c->base_labels);
    c->test_labels = calloc(ntest, sizeof *c->test_labels);
    if (!c->base_labels || !c->test_labels)
        goto oom;
    for (size_t i = 0; i < nbase; i++)
        if (!(c->base_labels[i] = gd_strdup(base[i]->label)))
            goto oom;
    for (size_t i = 0; i < ntest; i++)
        if (!(c->test_labels[i] = gd_strdup(test[i]->label)))
            goto oom;
    if (group_build(&gb, base, nbase, o.metric, &c->base_runs) || group_build(&gt, test, ntest, o.metric, &c->test_runs))
        goto oom;

    /* rows */
    c->rows = calloc(16 + GPUDIAG_ROLE_COUNT + GPUDIAG_IDLE_CAUSE_COUNT, sizeof *c->rows);
    if (!c->rows)
        goto oom;
    add_row(c, "step_time_us.mean", gb.st.mean, gt.st.mean, -1);
    add_row(c, "step_time_us.median", gb.st.median, gt.st.median, -1);
    add_row(c, "step_time_us.p90", gb.st.p90, gt.st.p90, -1);
    add_row(c, "throughput_steps_per_s", gb.st.mean > 0 ? 1e6 / gb.st.mean : NAN,
            gt.st.mean > 0 ? 1e6 / gt.st.mean : NAN, +1);
#define ROW(key, field, better)                                                                                        \
    add_row(c, key, group_mean(&gb, offsetof(gpudiag_side, field)), group_mean(&gt, offsetof(gpudiag_side, field)),    \
            better)
    ROW("gpu_utilization", gpu_utilization, +1);
    ROW("sm_efficiency", sm_efficiency, +1);
    ROW("achieved_occupancy", achieved_occupancy, +1);
    ROW("tensor_core_share", tensor_core_share, +1);
    ROW("idle_share", idle_share, -1);
    ROW("comm_share", comm_share, -1);
    ROW("mfu", mfu, +1);
    for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++)
        ROW(role_keys[i], role_share[i], 0);
    for (int i = 0; i < GPUDIAG_IDLE_CAUSE_COUNT; i++)
        ROW(cause_keys[i], idle_cause_share[i], -1);
#undef ROW

    /* the gate metric and its noise */
    int util = o.metric == GPUDIAG_METRIC_GPU_UTILIZATION;
    const double *sb = util ? gb.util : gb.steps, *stt = util ? gt.util : gt.steps;
    size_t nb = util ? gb.nutil : gb.nsteps, nt = util ? gt.nutil : gt.nsteps;
    switch (o.metric) {
    case GPUDIAG_METRIC_STEP_TIME: c->metric_base = gb.st.mean; c->metric_test = gt.st.mean; break;
    case GPUDIAG_METRIC_STEP_TIME_MEDIAN: c->metric_base = gb.st.median; c->metric_test = gt.st.median; break;
    case GPUDIAG_METRIC_STEP_TIME_P90: c->metric_base = gb.st.p90; c->metric_test = gt.st.p90; break;
    case GPUDIAG_METRIC_THROUGHPUT: c->metric_base = c->rows[3].base; c->metric_test = c->rows[3].test; break;
    case GPUDIAG_METRIC_GPU_UTILIZATION: c->metric_base = c->rows[4].base; c->metric_test = c->rows[4].test; break;
    case GPUDIAG_METRIC_COUNT: break;
    }
    c->metric_change = isnan(c->metric_base) || isnan(c->metric_test) || c->metric_base == 0
                           ? NAN
                           : (c->metric_test - c->metric_base) / c->metric_base;
    if (gd_mann_whitney(sb, nb, stt, nt, &c->mwu_u, &c->mwu_p, &c->mwu_exact) != 0)
        goto oom;
    c->median_diff = median_of(stt, nt) - median_of(sb, nb);
    if (bootstrap_median_diff(sb, nb, stt, nt, &c->median_diff_lo, &c->median_diff_hi) != 0)
        goto oom;
    if (isnan(c->mwu_p))
        c->outside_noise = -1;
    else
        c->outside_noise = c->mwu_p < o.alpha;
    if (c->outside_noise == 1 && nbase >= 2 && ntest >= 2) {
        double sp = fmax(isnan(c->base_runs.metric_spread) ? 0 : c->base_runs.metric_spread,
                         isnan(c->test_runs.metric_spread) ? 0 : c->test_runs.metric_spread);
        if (!(fabs(c->metric_change) > sp))
            c->outside_noise = 0;
    }
    int higher_worse = o.metric <= GPUDIAG_METRIC_STEP_TIME_P90;
    if (isnan(c->metric_change))
        c->verdict = GPUDIAG_CMP_INCONCLUSIVE;
    else if (fabs(c->metric_change) <= o.threshold)
        c->verdict = GPUDIAG_CMP_NO_CHANGE;
    else if (c->outside_noise != 1)
        c->verdict = GPUDIAG_CMP_INCONCLUSIVE;
    else
        c->verdict = (c->metric_change > 0) == higher_worse ? GPUDIAG_CMP_REGRESSED : GPUDIAG_CMP_IMPROVED;
    /* a run cut off before its GPU work has CPU ranges for steps: not comparable
     * (DEFINITIONS "Comparing runs", a run cut off before its GPU work) */
    const gpudiag_side *cut = NULL;
    for (size_t i = 0; i < nbase + ntest && !cut; i++) {
        const gpudiag_side *s = i < nbase ? base[i] : test[i - nbase];
        if (side_has_finding(s, "input_truncated") && side_has_finding(s, "cpu_only_trace"))
            cut = s;
    }
    if (cut)
        c->verdict = GPUDIAG_CMP_INCONCLUSIVE;
    if (!(c->summary = make_summary(c, &gb, &gt)))
        goto oom;
    const gpudiag_side *partial = NULL; /* cut off, GPU work kept: its steps end at the cut */
    for (size_t i = 0; i < nbase + ntest && !cut && !partial; i++) {
        const gpudiag_side *s = i < nbase ? base[i] : test[i - nbase];
        if (side_has_finding(s, "input_truncated"))
            partial = s;
    }
    if (partial) {
        char *plain = (char *)(uintptr_t)c->summary;
        c->summary = gd_format("%s Caution: the %s run %s is cut off (input_truncated): only its %zu step%s before "
                               "the cut %s compared; compare complete runs.",
                               plain, cut_is_base(partial, base, nbase) ? "base" : "new", partial->label,
                               partial->nsteps, partial->nsteps == 1 ? "" : "s", partial->nsteps == 1 ? "is" : "are");
        free(plain);
        if (!c->summary)
            goto oom;
    }
    if (cut) {
        char *plain = (char *)(uintptr_t)c->summary;
        const char *rest = strstr(plain, ": ");
        c->summary = gd_format("inconclusive: the %s run %s is cut off before any GPU activity was recorded (its "
                               "steps hold no GPU work; input_truncated, cpu_only_trace): profile it again and let "
                               "the profiler finish writing; %s",
                               cut_is_base(cut, base, nbase) ? "base" : "new", cut->label, rest ? rest + 2 : plain);
        free(plain);
        if (!c->summary)
            goto oom;
    }
    if (build_findings(c, &gb, &gt) || build_kernels(c, &gb, &gt, o.full_names))
        goto oom;
    group_free(&gb);
    group_free(&gt);
    *out = c;
    return GPUDIAG_OK;
oom:
    group_free(&gb);
    group_free(&gt);
    gpudiag_comparison_free(&c);
    return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
}

void gpudiag_comparison_free(gpudiag_comparison **cp)
{
    if (!cp || !*cp)
        return;
    gpudiag_comparison *c = *cp;
    for (size_t i = 0; c->base_labels && i < c->base_count; i++)
        free((char *)(uintptr_t)c->base_labels[i]);
    for (size_t i = 0; c->test_labels && i < c->test_count; i++)
        free((char *)(uintptr_t)c->test_labels[i]);
    free(c->base_labels);
    free(c->test_labels);
    free(c->rows);
    free((char *)(uintptr_t)c->summary);
    for (size_t i = 0; i < c->finding_count; i++) {
        free((char *)(uintptr_t)c->findings[i].id);
        free((char *)(uintptr_t)c->findings[i].title);
    }
    free(c->findings);
    for (size_t i = 0; i < c->kernel_count; i++)
        free((char *)(uintptr_t)c->kernels[i].name);
    free(c->kernels);
    free(c);
    *cp = NULL;
}
