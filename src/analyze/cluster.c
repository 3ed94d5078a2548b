/*
 * cluster.c — the ranks of one job side by side, and who makes the others wait.
 *
 * Collectives are matched by position: the j-th communication kernel of every
 * rank (each rank's sequence is the report's comm_kernel_us, in start order).
 * A blocking collective ends on all ranks at about the same time, so the
 * duration of a rank's kernel is the transfer plus the time it waited for the
 * last rank to arrive.  The shortest duration of collective j over the ranks
 * is the transfer (the TensorBoard plugin's "min duration across workers");
 * each rank's excess over it is its wait.  Durations need no clock alignment
 * between hosts, start times would.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudiag/gpudiag.h"
#include "analyze/analyze.h"
#include "diagnose/fbuild.h"
#include "util/util.h"

#define GD_STRAGGLER_SHARE_MIN 0.01

void gpudiag_cluster_free(gpudiag_cluster **cp)
{
    if (!cp || !*cp)
        return;
    gpudiag_cluster *c = *cp;
    for (size_t i = 0; i < c->rank_count; i++)
        free((char *)(uintptr_t)c->ranks[i].path);
    free(c->ranks);
    free((char *)(uintptr_t)c->verdict);
    for (size_t i = 0; i < c->finding_count; i++) {
        free((char *)(uintptr_t)c->findings[i].title);
        free((char *)(uintptr_t)c->findings[i].recommendation);
    }
    free(c->findings);
    free(c);
    *cp = NULL;
}

/* ---- the catalogue (diagnose/cluster_findings.def) --------------------- */

typedef enum {
#define GD_CFINDING(id, kind, bn, rule) GD_C_##id,
#include "diagnose/cluster_findings.def"
#undef GD_CFINDING
    GD_C_COUNT
} gd_cfinding_id;

typedef struct {
    const char *id;
    gd_finding_kind kind;
    gpudiag_bottleneck bottleneck;
} cl_row;

static const cl_row catalogue[GD_C_COUNT] = {
#define GD_CFINDING(id, kind, bn, rule) {#id, kind, GPUDIAG_BN_##bn},
#include "diagnose/cluster_findings.def"
#undef GD_CFINDING
};

/* Append the cluster finding `id` with its catalogue kind and bottleneck. */
static gpudiag_finding *cl_add(gd_fbuild *b, gd_cfinding_id id, gpudiag_severity sev, double est_gain)
{
    const cl_row *c = &catalogue[id];
    return gd_fb_add(b, c->id, sev, c->kind, c->bottleneck, est_gain);
}

/* The `straggler` finding (docs/FINDINGS.md): the cluster verdict as a
 * catalogue entry with evidence and est_gain = the others' wait share. */
static void add_straggler_finding(gd_fbuild *b, const gpudiag_cluster *c, size_t participants)
{
    double s = c->net_wait_us_per_step / c->straggler_wait_us_per_step * c->straggler_share; /* net share */
    gpudiag_finding *f =
        cl_add(b, GD_C_straggler, s >= 0.20 ? GPUDIAG_SEV_HIGH : s >= 0.10 ? GPUDIAG_SEV_MEDIUM : GPUDIAG_SEV_LOW, s);
    gd_fb_ev(f, "straggler_rank", (double)c->straggler);
    gd_fb_ev(f, "wait_us_per_step", c->straggler_wait_us_per_step);
    gd_fb_ev(f, "wait_share_of_step", c->straggler_share);
    gd_fb_ev(f, "collectives", (double)c->collectives);
    gd_fb_ev(f, "ranks", (double)participants);
    gd_fb_ev(f, "net_wait_us_per_step", c->net_wait_us_per_step);
    gd_fb_text(b, f,
         gd_format("Rank %d arrives last at the collectives: the other ranks wait %.1f%% of each step for it",
                   c->straggler, 100.0 * s),
         gd_format("Find what rank %d does differently before its collectives: its own report (data loading, "
                   "host work, sync stalls), uneven batch or sequence lengths across ranks (bucket by length, "
                   "pad or pack evenly), a slower or throttled GPU (`nvidia-smi -q -d PERFORMANCE`), a weaker "
                   "link (NCCL_DEBUG=INFO), or other jobs on that node.",
                   c->straggler));
}

static const char *const MIX_NAMES[] = {"world_size", "distributed_info", "rank_range", "gpu", "gpu_count"};
static const char *const MIX_WORDS[] = {"different world sizes", "distributedInfo in some traces only",
                                        "a rank beyond its world size", "different GPUs",
                                        "different numbers of GPUs"};

void gd_job_id_from_report(const gpudiag_report *r, gd_job_id *id)
{
    id->rank = r->input.rank;
    id->world_size = r->input.world_size;
    id->gpu = r->has_gpu && r->device_count ? r->devices[0].name : NULL;
    id->gpu_count = r->has_gpu ? (int)r->device_count : -1;
}

unsigned gd_job_mix(const gd_job_id *ids, size_t n)
{
    unsigned mix = 0;
    size_t inferred = 0, with_info = 0;
    int world = -1, count = -1;
    const char *gpu = NULL;
    for (size_t i = 0; i < n; i++) {
        const gd_job_id *d = &ids[i];
        if (d->rank < 0)
            inferred++;
        else
            with_info++;
        if (d->world_size >= 0) {
            if (world >= 0 && d->world_size != world)
                mix |= GPUDIAG_MIX_WORLD_SIZE;
            world = d->world_size;
            if (d->rank >= d->world_size)
                mix |= GPUDIAG_MIX_RANK_RANGE;
        }
        if (d->gpu && d->gpu[0]) {
            if (gpu && strcmp(gpu, d->gpu) != 0)
                mix |= GPUDIAG_MIX_GPU;
            gpu = d->gpu;
        }
        if (d->gpu_count >= 0) {
            if (count >= 0 && d->gpu_count != count)
                mix |= GPUDIAG_MIX_GPU_COUNT;
            count = d->gpu_count;
        }
    }
    if (n >= 2 && inferred && with_info)
        mix |= GPUDIAG_MIX_DIST_INFO;
    return mix;
}

/* "different world sizes, different GPUs" for the set bits. */
void gd_mix_words(unsigned mix, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof MIX_WORDS / sizeof *MIX_WORDS; i++)
        if (mix & (1u << i)) {
            int k = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", MIX_WORDS[i]);
            if (k < 0 || (size_t)k >= cap - len)
                break;
            len += (size_t)k;
        }
}

const char *gpudiag_mix_name(unsigned bit)
{
    for (size_t i = 0; i < sizeof MIX_NAMES / sizeof *MIX_NAMES; i++)
        if (bit == 1u << i)
            return MIX_NAMES[i];
    return "unknown";
}

/* The `input_mixed_job` finding (docs/FINDINGS.md), appended. */
static void add_mixed_finding(gd_fbuild *b, const gpudiag_cluster *c, size_t inferred)
{
    gpudiag_finding *f = cl_add(b, GD_C_input_mixed_job, GPUDIAG_SEV_MEDIUM, NAN);
    gd_fb_ev(f, "traces", (double)c->rank_count);
    gd_fb_ev(f, "ranks_inferred", (double)inferred);
    gd_fb_ev(f, "reasons", (double)c->mixed_job);
    char why[200];
    gd_mix_words(c->mixed_job, why, sizeof why);
    gd_fb_text(b, f, gd_format("These %zu traces do not look like the ranks of one job (%s)", c->rank_count, why),
         gd_format("Put only the per-rank traces of one run in the directory (trace_handler writes one per rank, "
                   "with distributedInfo), or analyse unrelated traces one by one; the cross-rank numbers "
                   "(straggler, waits) compare unrelated runs here.%s",
                   inferred ? " Ranks marked * had no distributedInfo.rank: their number is their position in "
                              "the directory."
                            : ""));
}

/* One row per report in c->ranks (rank, path, steps, step time, communication
 * per step); ranks with communication kernels are participants.  *collectives
 * = the fewest communication kernels of a participant (SIZE_MAX when none),
 * c->collectives_mismatch when participants differ in that count.  0, or -1
 * on allocation failure. */
static int cluster_ranks(const gd_rank_input *in, size_t n, gpudiag_cluster *c, size_t *collectives,
                         size_t *participants)
{
    size_t m = SIZE_MAX, first = SIZE_MAX;
    *participants = 0;
    for (size_t i = 0; i < n; i++) {
        const gd_rank_input *r = &in[i];
        gpudiag_rank *k = &c->ranks[i];
        k->rank = r->rank >= 0 ? r->rank : (int)i;
        k->rank_inferred = r->rank < 0;
        k->path = gd_strdup(r->path ? r->path : "");
        if (!k->path)
            return -1;
        k->steps = r->steps;
        k->step_time_us = r->step_time_us;
        k->gpu_utilization = r->gpu_utilization;
        k->comm_share = r->comm_share;
        k->comm_kernels = r->comm_count;
        double sum = 0;
        for (size_t j = 0; j < r->comm_count; j++)
            sum += r->comm_us[j];
        k->comm_time_us_per_step = r->steps ? sum / (double)r->steps : NAN;
        /* the collectives' exposed wait (DEFINITIONS "Communication", two numbers); 0 without collectives */
        double exposed = 0;
        for (size_t j = 0; r->comm_exposed_us && j < r->comm_count; j++)
            exposed += r->comm_exposed_us[j];
        k->comm_exposed_us_per_step =
            r->steps && (r->comm_exposed_us || r->comm_count == 0) ? exposed / (double)r->steps : NAN;
        k->comm_wait_us_per_step = NAN;
        k->inherited_wait_us_per_step = NAN;
        k->bottleneck = r->bottleneck;
        /* ranks without collectives (CPU-only files, idle ranks) take no part */
        if (r->comm_count == 0)
            continue;
        (*participants)++;
        if (first == SIZE_MAX)
            first = i;
        if (r->comm_count < m)
            m = r->comm_count;
        if (r->comm_count != in[first].comm_count)
            c->collectives_mismatch = 1;
    }
    *collectives = m;
    return 0;
}

/* Sizes of the verdict's notes (cluster_job). */
enum { CL_WHY_LEN = 200, CL_MIXNOTE_LEN = 260, CL_MISSNOTE_LEN = 200 };

/* Whether the reports are one job (DEFINITIONS "Ranks and stragglers"):
 * c->duplicate_ranks, c->mixed_job, and for a job that states its world size
 * c->world_size and c->missing_ranks; *inferred = ranks without
 * distributedInfo.rank.  The verdict's notes go to why[CL_WHY_LEN] (the mix
 * in words), mixnote[CL_MIXNOTE_LEN] and missnote[CL_MISSNOTE_LEN] ("" when
 * there is nothing to say).
 * 0, or -1 on allocation failure. */
static int cluster_job(const gd_rank_input *in, size_t n, gpudiag_cluster *c, size_t *inferred,
                       char *why, char *mixnote, char *missnote)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = i + 1; k < n; k++)
            if (c->ranks[i].rank == c->ranks[k].rank)
                c->duplicate_ranks = 1;
    *inferred = 0;
    int world = -1;
    gd_job_id *ids = calloc(n, sizeof *ids);
    if (!ids)
        return -1;
    for (size_t i = 0; i < n; i++) {
        ids[i].rank = in[i].rank;
        ids[i].world_size = in[i].world_size;
        ids[i].gpu = in[i].gpu;
        ids[i].gpu_count = -1; /* ranks each list their own GPUs: not compared here */
        *inferred += ids[i].rank < 0;
        if (ids[i].world_size >= 0)
            world = ids[i].world_size;
    }
    c->mixed_job = gd_job_mix(ids, n);
    free(ids);
    if (c->mixed_job) {
        gd_mix_words(c->mixed_job, why, CL_WHY_LEN);
        snprintf(mixnote, CL_MIXNOTE_LEN, " Caution: these traces may not be one job (%s).", why);
    }
    /* ranks absent from a job that states its world size */
    if (!(c->mixed_job & GPUDIAG_MIX_WORLD_SIZE) && world > 0) {
        c->world_size = world;
        size_t distinct = 0;
        for (size_t i = 0; i < n; i++) {
            size_t k = 0;
            while (k < i && c->ranks[k].rank != c->ranks[i].rank)
                k++;
            distinct += k == i;
        }
        c->missing_ranks = distinct < (size_t)world ? world - (int)distinct : 0;
        if (c->missing_ranks > 0)
            snprintf(missnote, CL_MISSNOTE_LEN,
                     " Note: only %zu of the job's %d ranks %s here; the %d absent rank%s not compared (a straggler "
                     "among them would not show).",
                     distinct, world, distinct == 1 ? "is" : "are", c->missing_ranks,
                     c->missing_ranks == 1 ? " is" : "s are");
    }
    return 0;
}

/* What cluster_waits measured for the verdict. */
typedef struct cl_waits {
    size_t least;        /* the participant that waits least: the straggler candidate */
    double others;       /* the other participants' mean wait, µs per step */
    double net_share;    /* c->net_wait_us_per_step / their mean step time, NaN without one */
    int beyond_noise;    /* the net wait exceeds its noise */
} cl_waits;

/* 1 when every participant states the kind of each of its first m collectives
 * and they agree position by position (the j-th is one kind on every rank). */
static int kinds_agree(const gd_rank_input *in, size_t n, size_t m)
{
    const unsigned char *ref = NULL;
    for (size_t i = 0; i < n; i++) {
        if (in[i].comm_count == 0)
            continue;
        if (!in[i].comm_kind)
            return 0;
        if (!ref)
            ref = in[i].comm_kind;
        else if (memcmp(ref, in[i].comm_kind, m) != 0)
            return 0;
    }
    return ref != NULL;
}

/* Variance of sum_j x_j over the m matched collectives, x_j = the others' mean
 * duration minus the candidate's (cluster_waits), compared like with like:
 * sum over the collective kinds k of m_k var_k(x) (a stratified estimate: a
 * steady difference between an all-reduce's x and an all-to-all's is not
 * noise).  One stratum — m sd(x)^2, the rule before kinds — when the kinds are
 * unknown or disagree between ranks, or a kind has a single collective. */
static double net_noise_var(const gd_rank_input *in, size_t n, size_t least, size_t participants, size_t m)
{
    double sx[GPUDIAG_COMM_KIND_COUNT] = {0}, sxx[GPUDIAG_COMM_KIND_COUNT] = {0};
    size_t cnt[GPUDIAG_COMM_KIND_COUNT] = {0};
    int by_kind = kinds_agree(in, n, m);
    for (int pass = 0; pass < 2; pass++) {
        memset(sx, 0, sizeof sx);
        memset(sxx, 0, sizeof sxx);
        memset(cnt, 0, sizeof cnt);
        for (size_t j = 0; j < m; j++) {
            double x = 0;
            for (size_t i = 0; i < n; i++)
                if (i != least && in[i].comm_count)
                    x += in[i].comm_us[j] - in[least].comm_us[j];
            x /= (double)(participants - 1);
            unsigned k = by_kind && in[least].comm_kind[j] < GPUDIAG_COMM_KIND_COUNT ? in[least].comm_kind[j] : 0;
            sx[k] += x;
            sxx[k] += x * x;
            cnt[k]++;
        }
        int single = 0;
        for (int k = 0; k < GPUDIAG_COMM_KIND_COUNT; k++)
            single |= cnt[k] == 1;
        if (!by_kind || !single)
            break;
        by_kind = 0; /* a kind with one collective has no spread of its own: one stratum */
    }
    double v = 0;
    for (int k = 0; k < GPUDIAG_COMM_KIND_COUNT; k++)
        if (cnt[k] >= 2) {
            double var = (sxx[k] - sx[k] * sx[k] / (double)cnt[k]) / (double)(cnt[k] - 1);
            v += (double)cnt[k] * (var > 0 ? var : 0);
        }
    return v;
}

/* The waits of >= 2 participants over c->collectives collectives matched by
 * position (file comment): each rank's c->ranks[].comm_wait_us_per_step, the
 * candidate (the rank that waits least), the others' wait
 * (c->straggler_wait_us_per_step, c->straggler_share) and the net wait on the
 * candidate with its noise (c->net_wait_us_per_step,
 * c->net_wait_noise_us_per_step). */
static cl_waits cluster_waits(const gd_rank_input *in, size_t n, gpudiag_cluster *c,
                              size_t participants)
{
    size_t least = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (in[i].comm_count == 0)
            continue;
        c->ranks[i].comm_wait_us_per_step = 0;
    }
    for (size_t j = 0; j < c->collectives; j++) {
        double mn = INFINITY;
        for (size_t i = 0; i < n; i++)
            if (in[i].comm_count && in[i].comm_us[j] < mn)
                mn = in[i].comm_us[j];
        for (size_t i = 0; i < n; i++)
            if (in[i].comm_count)
                c->ranks[i].comm_wait_us_per_step += in[i].comm_us[j] - mn;
    }
    for (size_t i = 0; i < n; i++) {
        gpudiag_rank *k = &c->ranks[i];
        if (in[i].comm_count == 0)
            continue;
        k->comm_wait_us_per_step = k->steps ? k->comm_wait_us_per_step / (double)k->steps : NAN;
        if (least == SIZE_MAX || k->comm_wait_us_per_step < c->ranks[least].comm_wait_us_per_step)
            least = i;
    }
    double others = 0, step = 0, steps = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == least || in[i].comm_count == 0)
            continue;
        others += c->ranks[i].comm_wait_us_per_step;
        step += c->ranks[i].step_time_us;
        steps += (double)c->ranks[i].steps;
    }
    others /= (double)(participants - 1);
    step /= (double)(participants - 1);
    steps /= (double)(participants - 1);
    c->straggler_wait_us_per_step = others;
    c->straggler_share = step > 0 ? others / step : NAN;
    /* Net wait (DEFINITIONS "Ranks and stragglers"): ranks that take turns arriving last wait on each
     * other, and the least-waiting rank is then no straggler.  Per collective j, x_j = the others' mean
     * duration minus the candidate's (= their mean wait minus its wait: the minimum cancels); the net
     * wait per step is the others' wait minus the candidate's own, and its noise 2 standard errors of
     * sum_j x_j per step, the spread of x measured among collectives of one kind (net_noise_var). */
    c->net_wait_us_per_step = others - c->ranks[least].comm_wait_us_per_step;
    if (c->collectives >= 2 && steps > 0)
        c->net_wait_noise_us_per_step = 2.0 * sqrt(net_noise_var(in, n, least, participants, c->collectives)) / steps;
    cl_waits w = {least, others, step > 0 ? c->net_wait_us_per_step / step : NAN, 0};
    w.beyond_noise = !isnan(c->net_wait_noise_us_per_step) && !isnan(w.net_share) &&
                     c->net_wait_us_per_step > c->net_wait_noise_us_per_step;
    return w;
}

/* The verdict over the waits, naming c->straggler when the net wait on the
 * candidate is >= GD_STRAGGLER_SHARE_MIN of the step and beyond its noise
 * (DEFINITIONS "Ranks and stragglers").  A new string, or NULL (OOM). */
static char *straggler_verdict(gpudiag_cluster *c, const cl_waits *w, const char *why, const char *missnote)
{
    const char *dup = c->duplicate_ranks ? " Caution: some rank number appears in more than one file." : "";
    if (c->mixed_job)
        return gd_format("No straggler named: these traces may not be one job (%s), so their collectives are not "
                         "the same collectives and the waits between them (%.1f us per step, %.1f%% of the step) "
                         "compare unrelated runs.%s",
                         why, w->others, 100.0 * (isnan(c->straggler_share) ? 0 : c->straggler_share), missnote);
    int net_big = !isnan(w->net_share) && w->net_share >= GD_STRAGGLER_SHARE_MIN;
    if (!isnan(c->straggler_share) && c->straggler_share >= GD_STRAGGLER_SHARE_MIN && !(net_big && w->beyond_noise)) {
        char noise[96];
        if (isnan(c->net_wait_noise_us_per_step))
            snprintf(noise, sizeof noise, "unknown with fewer than 2 collectives");
        else
            snprintf(noise, sizeof noise, "+/- %.1f us per step", c->net_wait_noise_us_per_step);
        return gd_format("No straggler: ranks wait on each other for %.1f us per step (%.1f%% of the step) in "
                         "collectives, but the net wait on the rank that waits least (rank %d: the others' wait "
                         "minus its own) is %.1f us per step, %s (noise %s): the ranks take turns "
                         "arriving last.%s%s",
                         w->others, 100.0 * c->straggler_share, c->ranks[w->least].rank, c->net_wait_us_per_step,
                         net_big ? "within the noise" : "under 1% of the step", noise, dup, missnote);
    }
    if (net_big) {
        c->straggler = c->ranks[w->least].rank;
        return gd_format("Rank %d is the straggler: the other ranks wait %.1f us per step (%.1f%% of the step) in "
                         "collectives for it to arrive. Look at what rank %d does differently before its "
                         "collectives (data loading, uneven batch or sequence lengths, a slower GPU or link, extra "
                         "host work).%s%s%s",
                         c->straggler, w->others, 100.0 * c->straggler_share, c->straggler,
                         c->collectives_mismatch ? " Caution: the ranks recorded different numbers of collectives, "
                                                   "which are matched by position."
                                                 : "",
                         dup, missnote);
    }
    return gd_format("No straggler: ranks wait on each other for %.1f us per step (%.1f%% of the step) in "
                     "collectives.%s%s",
                     w->others, 100.0 * (isnan(c->straggler_share) ? 0 : c->straggler_share), dup, missnote);
}

/* ---- all-to-all and expert load imbalance (DEFINITIONS "All-to-all and expert
 * load imbalance") ---------------------------------------------------------- */

#define GD_A2A_WAIT_SHARE_MIN 0.02

/* Each rank's all-to-all time and share per step (c->ranks[].all_to_all_*);
 * NaN where its collectives' kinds are unknown or it has no steps.  Returns
 * the number of ranks whose kinds are known and that ran >= 1 all-to-all. */
static size_t a2a_rank_times(const gd_rank_input *in, size_t n, gpudiag_cluster *c)
{
    size_t runs = 0;
    for (size_t i = 0; i < n; i++) {
        gpudiag_rank *k = &c->ranks[i];
        k->all_to_all_us_per_step = k->all_to_all_share = k->all_to_all_wait_us_per_step = NAN;
        if ((in[i].comm_count && !in[i].comm_kind) || in[i].steps == 0)
            continue;
        double sum = 0;
        size_t count = 0;
        for (size_t j = 0; j < in[i].comm_count; j++)
            if (in[i].comm_kind[j] == GPUDIAG_COMM_ALL_TO_ALL) {
                sum += in[i].comm_us[j];
                count++;
            }
        k->all_to_all_us_per_step = sum / (double)in[i].steps;
        k->all_to_all_share = in[i].step_time_us > 0 ? k->all_to_all_us_per_step / in[i].step_time_us : NAN;
        runs += count > 0;
    }
    return runs;
}

/* 1 when rank i takes part in the all-to-all matching: kinds known, an all-to-all run. */
static int a2a_part(const gd_rank_input *in, const gpudiag_rank *k)
{
    return in->comm_kind && in->comm_count && k->all_to_all_us_per_step > 0 && in->step_time_us > 0;
}

/* The all-to-alls of >= 2 participating ranks matched by position (the j-th
 * all-to-all of each), each rank's wait (duration − the shortest of that
 * all-to-all over the ranks), and the cluster's all_to_all_* numbers.
 * 0, or -1 when out of memory. */
static int cluster_all_to_all(const gd_rank_input *in, size_t n, gpudiag_cluster *c)
{
    size_t m = SIZE_MAX, parts = 0;
    for (size_t i = 0; i < n; i++) {
        if (!a2a_part(&in[i], &c->ranks[i]))
            continue;
        size_t count = 0;
        for (size_t j = 0; j < in[i].comm_count; j++)
            count += in[i].comm_kind[j] == GPUDIAG_COMM_ALL_TO_ALL;
        m = count < m ? count : m;
        parts++;
    }
    if (parts < 2)
        return 0;
    size_t *cur = calloc(n, sizeof *cur);
    double *d = calloc(n, sizeof *d), *wait = calloc(n, sizeof *wait);
    if (!cur || !d || !wait) {
        free(cur);
        free(d);
        free(wait);
        return -1;
    }
    for (size_t j = 0; j < m; j++) {
        double mn = INFINITY;
        for (size_t i = 0; i < n; i++) {
            if (!a2a_part(&in[i], &c->ranks[i]))
                continue;
            while (in[i].comm_kind[cur[i]] != GPUDIAG_COMM_ALL_TO_ALL)
                cur[i]++;
            d[i] = in[i].comm_us[cur[i]++];
            mn = d[i] < mn ? d[i] : mn;
        }
        for (size_t i = 0; i < n; i++)
            if (a2a_part(&in[i], &c->ranks[i]))
                wait[i] += d[i] - mn;
    }
    double wsum = 0, step = 0, work = 0, wmax = -INFINITY, least = INFINITY;
    for (size_t i = 0; i < n; i++) {
        gpudiag_rank *k = &c->ranks[i];
        if (!a2a_part(&in[i], k))
            continue;
        k->all_to_all_wait_us_per_step = wait[i] / (double)in[i].steps;
        wsum += k->all_to_all_wait_us_per_step;
        step += in[i].step_time_us;
        /* work: the step less the waits, the head start inherited from before the window included */
        double w = in[i].step_time_us - k->all_to_all_wait_us_per_step -
                   (isnan(k->inherited_wait_us_per_step) ? 0 : k->inherited_wait_us_per_step);
        work += w;
        wmax = w > wmax ? w : wmax;
        if (k->all_to_all_wait_us_per_step < least) {
            least = k->all_to_all_wait_us_per_step;
            c->all_to_all_loaded_rank = k->rank;
        }
    }
    free(cur);
    free(d);
    free(wait);
    c->all_to_all_collectives = m;
    c->all_to_all_wait_us_per_step = wsum / (double)parts;
    c->all_to_all_wait_share = c->all_to_all_wait_us_per_step / (step / (double)parts);
    c->all_to_all_imbalance = work > 0 ? wmax / (work / (double)parts) : NAN;
    return 0;
}

/* The `moe_all_to_all_imbalance` finding (docs/FINDINGS.md): the ranks wait
 * >= GD_A2A_WAIT_SHARE_MIN of their step in all-to-all for the most loaded one. */
static void add_a2a_finding(gd_fbuild *b, const gpudiag_cluster *c)
{
    double s = c->all_to_all_wait_share;
    if (c->mixed_job || c->all_to_all_collectives == 0 || !(s >= GD_A2A_WAIT_SHARE_MIN))
        return;
    double share = 0;
    size_t parts = 0;
    for (size_t i = 0; i < c->rank_count; i++)
        if (!isnan(c->ranks[i].all_to_all_wait_us_per_step)) {
            share += c->ranks[i].all_to_all_share;
            parts++;
        }
    gpudiag_finding *f = cl_add(b, GD_C_moe_all_to_all_imbalance,
                                s >= 0.20 ? GPUDIAG_SEV_HIGH : s >= 0.10 ? GPUDIAG_SEV_MEDIUM : GPUDIAG_SEV_LOW, s);
    gd_fb_ev(f, "all_to_all_collectives", (double)c->all_to_all_collectives);
    gd_fb_ev(f, "ranks", (double)parts);
    gd_fb_ev(f, "all_to_all_share", share / (double)parts);
    gd_fb_ev(f, "wait_us_per_step", c->all_to_all_wait_us_per_step);
    gd_fb_ev(f, "wait_share_of_step", s);
    gd_fb_ev(f, "imbalance_max_over_mean", c->all_to_all_imbalance);
    gd_fb_ev(f, "loaded_rank", (double)c->all_to_all_loaded_rank);
    gd_fb_text(b, f,
         gd_format("Uneven work before the all-to-alls: the ranks wait %.1f%% of each step in all-to-all for the "
                   "busiest (rank %d; work max/mean %.2f, from time)",
                   100.0 * s, c->all_to_all_loaded_rank, c->all_to_all_imbalance),
         gd_format("In a mixture-of-experts model this is expert load imbalance: the router sends more tokens to "
                   "the experts on rank %d. Raise the load-balancing loss (Megatron --moe-aux-loss-coeff, the "
                   "l_aux of DeepSpeed MoE), cap each expert (--moe-expert-capacity-factor, DeepSpeed "
                   "capacity_factor), or use aux-loss-free balancing (--moe-router-enable-expert-bias). The token "
                   "counts per rank are not read from this trace: the skew is measured from the all-to-all waits, "
                   "which also grow with any other uneven work (data loading, a slower GPU); log the tokens per "
                   "expert (Megatron --moe-per-layer-logging) to confirm. With sharded embedding tables (DLRM, "
                   "TorchRec) it is uneven lookups: rebalance the sharding plan (table sizes and pooling factors per "
                   "rank).",
                   c->all_to_all_loaded_rank));
}

/* Largest gap between the ends of a rank's collectives and the reference's that still reads as
 * one clock (DEFINITIONS "Ranks and stragglers", wait inherited from before the window): ranks
 * leave a blocking collective together, within 1-7 us on one host. */
#define GD_CLOCK_SHARED_US 100.0

/* The wait inherited from before the window (DEFINITIONS "Ranks and stragglers"): when every
 * participant's matched collectives end within GD_CLOCK_SHARED_US of the first participant's
 * (median over them) and its start times are known, rank r's first collective counts as its
 * duration minus min(its wait there, max(0, S* − S_r)), S the first step's start and S* the last
 * arrival at the first collective (its latest kernel start) less the longest work before it
 * (arrival − own start): continuous in the inputs and the same under any labelling of the ranks.
 * first[0..n) receives each rank's first duration so adjusted; fills c->start_skew_us and
 * c->inherited_wait_us_per_step.  1 when assessed, 0 when not, -1 when out of memory. */
static int inherited_waits(const gd_rank_input *in, size_t n, gpudiag_cluster *c, double *first)
{
    size_t ref = SIZE_MAX, shortest = SIZE_MAX, m = c->collectives;
    if (m == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!in[i].comm_count)
            continue;
        if (!in[i].comm_start_ns || isnan(in[i].first_step_start_us) || in[i].steps == 0)
            return 0;
        if (ref == SIZE_MAX)
            ref = i;
        if (shortest == SIZE_MAX || in[i].comm_us[0] < in[shortest].comm_us[0])
            shortest = i;
    }
    if (ref == SIZE_MAX)
        return 0;
    double *dev = malloc(m * sizeof *dev);
    if (!dev)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!in[i].comm_count || i == ref)
            continue;
        for (size_t j = 0; j < m; j++)
            dev[j] = fabs(((double)in[i].comm_start_ns[j] / 1e3 + in[i].comm_us[j]) -
                          ((double)in[ref].comm_start_ns[j] / 1e3 + in[ref].comm_us[j]));
        gd_sort_doubles(dev, m);
        double med = m % 2 ? dev[m / 2] : (dev[m / 2 - 1] + dev[m / 2]) / 2;
        if (!(med <= GD_CLOCK_SHARED_US)) {
            free(dev);
            return 0;
        }
    }
    free(dev);
    /* S* = the last arrival at the first collective less the longest work before it (arrival − the
     * rank's own start): the latest start from which the busiest rank still arrives last */
    double a_last = -INFINITY, w_max = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (!in[i].comm_count)
            continue;
        double a = (double)in[i].comm_start_ns[0] / 1e3;
        a_last = a > a_last ? a : a_last;
        w_max = a - in[i].first_step_start_us > w_max ? a - in[i].first_step_start_us : w_max;
    }
    double s_star = a_last - w_max;
    double smin = INFINITY, smax = -INFINITY, inh = 0;
    size_t parts = 0;
    for (size_t i = 0; i < n; i++) {
        first[i] = in[i].comm_count ? in[i].comm_us[0] : NAN;
        if (!in[i].comm_count)
            continue;
        double s = in[i].first_step_start_us;
        smin = s < smin ? s : smin;
        smax = s > smax ? s : smax;
        double wait = in[i].comm_us[0] - in[shortest].comm_us[0], head = s_star - s;
        double h = head < wait ? head : wait;
        if (h > 0)
            first[i] = in[i].comm_us[0] - h;
        c->ranks[i].inherited_wait_us_per_step = (h > 0 ? h : 0) / (double)in[i].steps;
        inh += c->ranks[i].inherited_wait_us_per_step;
        parts++;
    }
    c->start_skew_us = smax - smin;
    c->inherited_wait_us_per_step = inh / (double)parts;
    return 1;
}

/* Free the adjusted first-collective arrays of adj (those not borrowed from in) and adj. */
static void free_adjusted(const gd_rank_input *in, gd_rank_input *adj, size_t n)
{
    for (size_t i = 0; adj && i < n; i++)
        if (adj[i].comm_us != in[i].comm_us)
            free((double *)(uintptr_t)adj[i].comm_us);
    free(adj);
}

static gpudiag_status cluster_oom(gpudiag_cluster **c, gpudiag_error *err)
{
    gpudiag_cluster_free(c);
    return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
}

void gd_rank_input_from_report(const gpudiag_report *r, gd_rank_input *in)
{
    in->rank = r->input.rank;
    in->world_size = r->input.world_size;
    in->path = r->input.path;
    in->gpu = r->has_gpu && r->device_count ? r->devices[0].name : NULL;
    in->steps = r->step_count;
    in->step_time_us = r->step_time.mean;
    in->gpu_utilization = r->gpu_utilization;
    in->comm_share = r->comm_share;
    in->bottleneck = r->bottleneck;
    in->comm_count = r->comm_kernel_count;
    in->comm_us = r->comm_kernel_us;
    in->comm_kind = r->comm_kernel_kind;
    in->comm_exposed_us = r->comm_kernel_exposed_us;
    in->comm_start_ns = r->comm_kernel_start_ns;
    in->first_step_start_us = r->step_count ? r->first_step_host_start_us : NAN;
}

gpudiag_status gpudiag_cluster_analyze(const gpudiag_report *const *reports, size_t n, gpudiag_cluster **out,
                                       gpudiag_error *err)
{
    if (!reports || !out || n == 0)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "gpudiag_cluster_analyze: no reports");
    gd_rank_input *in = calloc(n, sizeof *in);
    if (!in)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
    for (size_t i = 0; i < n; i++)
        gd_rank_input_from_report(reports[i], &in[i]);
    gpudiag_status st = gd_cluster_analyze_inputs(in, n, out, err);
    free(in);
    return st;
}

gpudiag_status gd_cluster_analyze_inputs(const gd_rank_input *in, size_t n, gpudiag_cluster **out,
                                         gpudiag_error *err)
{
    const gd_rank_input *orig = in;
    if (!in || !out || n == 0)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "gpudiag_cluster_analyze: no ranks");
    *out = NULL;
    gpudiag_cluster *c = calloc(1, sizeof *c);
    if (!c || !(c->ranks = calloc(n, sizeof *c->ranks))) {
        free(c);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
    }
    c->rank_count = n;
    c->straggler = -1;
    c->straggler_wait_us_per_step = NAN;
    c->straggler_share = NAN;
    c->net_wait_us_per_step = NAN;
    c->net_wait_noise_us_per_step = NAN;
    c->world_size = -1;
    c->missing_ranks = -1;
    c->all_to_all_wait_us_per_step = c->all_to_all_wait_share = c->all_to_all_imbalance = NAN;
    c->all_to_all_loaded_rank = -1;
    c->start_skew_us = c->inherited_wait_us_per_step = NAN;
    size_t m, participants, inferred;
    char why[CL_WHY_LEN] = "", mixnote[CL_MIXNOTE_LEN] = "", missnote[CL_MISSNOTE_LEN] = "";
    if (cluster_ranks(in, n, c, &m, &participants) != 0 ||
        cluster_job(in, n, c, &inferred, why, mixnote, missnote) != 0)
        return cluster_oom(&c, err);
    c->collectives = m == SIZE_MAX ? 0 : m;
    /* the first collectives less the wait inherited from before the window (one job on one clock) */
    gd_rank_input *adj = calloc(n, sizeof *adj);
    double *first = calloc(n, sizeof *first);
    if (!adj || !first) {
        free(adj);
        free(first);
        return cluster_oom(&c, err);
    }
    memcpy(adj, in, n * sizeof *adj);
    int inherited = participants >= 2 && !c->mixed_job ? inherited_waits(in, n, c, first) : 0;
    if (inherited < 0) {
        free(adj);
        free(first);
        return cluster_oom(&c, err);
    }
    if (inherited)
        for (size_t i = 0; i < n; i++)
            if (in[i].comm_count && first[i] != in[i].comm_us[0]) {
                double *d = malloc(in[i].comm_count * sizeof *d);
                if (!d) {
                    free_adjusted(in, adj, n);
                    free(first);
                    return cluster_oom(&c, err);
                }
                memcpy(d, in[i].comm_us, in[i].comm_count * sizeof *d);
                d[0] = first[i];
                adj[i].comm_us = d;
            }
    free(first);
    in = adj;
    /* traces that may not be one job have no matched all-to-alls (their waits would compare unrelated runs) */
    if (a2a_rank_times(in, n, c) >= 2 && !c->mixed_job && cluster_all_to_all(in, n, c) != 0) {
        free_adjusted(orig, adj, n);
        return cluster_oom(&c, err);
    }
    char *v;
    if (participants >= 2 && c->collectives > 0) {
        cl_waits w = cluster_waits(in, n, c, participants);
        v = straggler_verdict(c, &w, why, missnote);
        if (v && c->inherited_wait_us_per_step > 0) {
            char skew[32], inh[32];
            gd_format_us(skew, sizeof skew, c->start_skew_us, "us");
            gd_format_us(inh, sizeof inh, c->inherited_wait_us_per_step, "us");
            char *more = gd_format("%s The ranks began the window's first step up to %s apart (one clock: their "
                                   "collectives end together), and %s per step of the waits at its first collective "
                                   "is that head start, left out above: what held the later ranks back before the "
                                   "window is not in the traces (profile more steps).",
                                   v, skew, inh);
            free(v);
            v = more;
        }
    } else if (n >= 2) {
        v = gd_format("Fewer than two ranks have communication kernels inside their steps: nothing to compare "
                      "across ranks.%s%s",
                      mixnote, missnote);
    } else {
        v = gd_format("One rank: nothing to compare.%s", missnote);
    }
    free_adjusted(orig, adj, n);
    if (!v)
        return cluster_oom(&c, err);
    c->verdict = v;
    gd_fbuild b = {NULL, &c->findings, &c->finding_count, 0, 0, NULL};
    if (c->straggler >= 0)
        add_straggler_finding(&b, c, participants);
    add_a2a_finding(&b, c);
    if (c->mixed_job)
        add_mixed_finding(&b, c, inferred);
    if (b.oom)
        return cluster_oom(&c, err);
    *out = c;
    return GPUDIAG_OK;
}
