/*
 * summary.c — per-rank summaries: built from a report, merged, sorted, and
 * the cross-rank analysis over them (docs/DEFINITIONS.md "Summaries and
 * merge").  Reading is ingest/summary.c, writing report/json.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/summary.h"
#include "util/util.h"

static const char *const SOURCES[] = {"trace", "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "JOB_COMPLETION_INDEX"};

const char *gd_summary_rank_source(const char *s)
{
    for (size_t i = 0; s && i < sizeof SOURCES / sizeof *SOURCES; i++)
        if (strcmp(s, SOURCES[i]) == 0)
            return SOURCES[i];
    return NULL;
}

gpudiag_status gpudiag_summary_new(const char *job_id, gpudiag_summary **out, gpudiag_error *err)
{
    *out = calloc(1, sizeof **out);
    if (*out && job_id && job_id[0] && !((*out)->job = gd_utf8_clean(job_id, strlen(job_id))))
        gpudiag_summary_free(out);
    return *out ? GPUDIAG_OK : gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
}

gd_summary_rank *gd_summary_push(gpudiag_summary *s)
{
    if (s->count == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        gd_summary_rank *r = realloc(s->ranks, cap * sizeof *r);
        if (!r)
            return NULL;
        s->ranks = r;
        s->cap = cap;
    }
    gd_summary_rank *k = &s->ranks[s->count++];
    memset(k, 0, sizeof *k);
    k->in.rank = -1;
    k->in.world_size = -1;
    k->in.step_time_us = k->in.gpu_utilization = k->in.comm_share = k->in.first_step_start_us = NAN;
    k->in.bottleneck = GPUDIAG_BN_UNKNOWN;
    return k;
}

static void rank_free(gd_summary_rank *k)
{
    free((char *)(uintptr_t)k->in.path);
    free((char *)(uintptr_t)k->in.gpu);
    free((double *)(uintptr_t)k->in.comm_us);
    free(k->report);
    free(k->src);
    free(k->comm_start_ns);
    free(k->comm_kind);
    free(k->comm_bytes);
    free(k->comm_exposed_us);
    free(k->steps_window);
}

gpudiag_status gpudiag_summary_add_report(gpudiag_summary *s, const gpudiag_report *r, int rank,
                                          const char *rank_source, gpudiag_error *err)
{
    /* the report as compact JSON with every kernel, as --save keeps it */
    char *text = NULL;
    size_t len = 0;
    gpudiag_status st = gpudiag_report_json(r, GPUDIAG_JSON_ALL_KERNELS, &text, &len, err);
    gd_summary_rank *k = st == GPUDIAG_OK ? gd_summary_push(s) : NULL;
    if (!k) {
        free(text);
        return st != GPUDIAG_OK ? st : gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
    }
    k->report = text;
    k->report_len = len && text[len - 1] == '\n' ? len - 1 : len; /* as read back */
    gd_rank_input_from_report(r, &k->in);
    int window_oom = 0;
    if (r->input.steps_selected) {
        char a[24] = "", b[24] = "", w[50];
        if (r->input.steps_first != INT64_MIN)
            snprintf(a, sizeof a, "%lld", (long long)r->input.steps_first);
        if (r->input.steps_last != INT64_MAX)
            snprintf(b, sizeof b, "%lld", (long long)r->input.steps_last);
        snprintf(w, sizeof w, "%s:%s", a, b);
        window_oom = !(k->steps_window = gd_strdup(w));
    }
    k->rank_source = k->in.rank >= 0 ? "trace" : NULL;
    if (k->in.rank < 0 && rank >= 0) {
        k->in.rank = rank;
        k->rank_source = gd_summary_rank_source(rank_source);
    }
    const char *path = k->in.path ? k->in.path : "", *gpu = k->in.gpu;
    k->in.path = NULL;
    k->in.gpu = NULL;
    double *comm = k->in.comm_count ? malloc(k->in.comm_count * sizeof *comm) : NULL;
    if (comm)
        memcpy(comm, k->in.comm_us, k->in.comm_count * sizeof *comm);
    k->in.comm_us = comm;
    k->in.comm_kind = NULL; /* borrowed from r: gpudiag_summary_cluster points it at k->comm_kind */
    k->in.comm_exposed_us = NULL; /* likewise, at k->comm_exposed_us */
    k->in.comm_start_ns = NULL;   /* likewise, at k->comm_start_ns */
    if (k->in.comm_count && r->comm_kernel_start_ns && r->comm_kernel_kind) {
        k->comm_start_ns = malloc(k->in.comm_count * sizeof *k->comm_start_ns);
        k->comm_kind = malloc(k->in.comm_count);
        if (k->comm_start_ns && k->comm_kind) {
            memcpy(k->comm_start_ns, r->comm_kernel_start_ns, k->in.comm_count * sizeof *k->comm_start_ns);
            memcpy(k->comm_kind, r->comm_kernel_kind, k->in.comm_count);
            k->nstart = k->nkind = k->in.comm_count;
        } else {
            comm = NULL; /* out of memory: said below */
        }
    }
    if (comm && k->in.comm_count && r->comm_kernel_bytes && r->comm_kernel_exposed_us) {
        size_t sz = k->in.comm_count * sizeof(double);
        k->comm_bytes = malloc(sz);
        k->comm_exposed_us = malloc(sz);
        if (k->comm_bytes && k->comm_exposed_us) {
            memcpy(k->comm_bytes, r->comm_kernel_bytes, sz);
            memcpy(k->comm_exposed_us, r->comm_kernel_exposed_us, sz);
            k->nbytes = k->nexposed = k->in.comm_count;
        } else {
            comm = NULL; /* out of memory: said below */
        }
    }
    if (!(k->in.path = gd_utf8_clean(path, strlen(path))) || (gpu && !(k->in.gpu = gd_utf8_clean(gpu, strlen(gpu)))) || (k->in.comm_count && !comm) || window_oom) {
        rank_free(k);
        s->count--;
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
    }
    gd_summary_rank_hash(k);
    return GPUDIAG_OK;
}

gpudiag_status gpudiag_summary_merge(gpudiag_summary *into, gpudiag_summary **from, gpudiag_error *err)
{
    gpudiag_summary *f = *from;
    if (into->job && f->job && strcmp(into->job, f->job) != 0)
        return gd_set_error(err, GPUDIAG_ERR_MISMATCH, NULL, -1, "summaries of two jobs: '%s' and '%s'", into->job,
                            f->job);
    if (!into->job != !f->job && into->count && f->count) /* one names a job, the other none */
        return gd_set_error(err, GPUDIAG_ERR_MISMATCH, NULL, -1,
                            "a summary of job '%s' and one naming no job: they may be two jobs; write the "
                            "other with the same GPUDIAG_JOB_ID (or merge it on its own)",
                            into->job ? into->job : f->job);
    if (into->count + f->count > into->cap) {
        size_t cap = into->count + f->count;
        gd_summary_rank *r = realloc(into->ranks, (cap ? cap : 1) * sizeof *r);
        if (!r)
            return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
        into->ranks = r;
        into->cap = cap;
    }
    if (f->count)
        memcpy(into->ranks + into->count, f->ranks, f->count * sizeof *f->ranks);
    into->count += f->count;
    f->count = 0;
    if (!into->job && f->job) {
        into->job = f->job;
        f->job = NULL;
    }
    gpudiag_summary_free(from);
    return GPUDIAG_OK;
}

size_t gpudiag_summary_rank_count(const gpudiag_summary *s)
{
    return s ? s->count : 0;
}

const char *gpudiag_summary_job(const gpudiag_summary *s)
{
    return s ? s->job : NULL;
}

/* path, then rank, then a hash of the rank's numbers: a total order on distinct ranks,
 * so any merge order gives the same sequence (the order of `analyze DIR`,
 * whose paths are DIR/NAME sorted by strcmp). */
static int cmp_rank(const void *a, const void *b)
{
    const gd_summary_rank *x = a, *y = b;
    int c = strcmp(x->in.path, y->in.path);
    if (c)
        return c;
    if (x->in.rank != y->in.rank)
        return x->in.rank < y->in.rank ? -1 : 1;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return 0; /* the same report, as far as 64 bits tell: either order writes the same bytes */
}

void gd_summary_rank_hash(gd_summary_rank *k)
{
    const gd_rank_input *in = &k->in;
    uint64_t h = GD_SUMMARY_HASH_INIT;
    const char *src = k->rank_source ? k->rank_source : "", *gpu = in->gpu ? in->gpu : "";
    h = gd_summary_hash(h, src, strlen(src) + 1);
    h = gd_summary_hash(h, gpu, strlen(gpu) + 1);
    long long ints[4] = {in->world_size, (long long)in->steps, (long long)in->bottleneck, (long long)in->comm_count};
    h = gd_summary_hash(h, (const char *)ints, sizeof ints);
    double nums[3] = {in->step_time_us, in->gpu_utilization, in->comm_share};
    for (size_t i = 0; i < 3; i++)
        if (isnan(nums[i]))
            nums[i] = -1; /* one NaN, whatever its bits */
    h = gd_summary_hash(h, (const char *)nums, sizeof nums);
    if (in->comm_count)
        h = gd_summary_hash(h, (const char *)in->comm_us, in->comm_count * sizeof *in->comm_us);
    k->hash = h;
}

void gd_summary_sort(gpudiag_summary *s)
{
    if (s->count > 1)
        qsort(s->ranks, s->count, sizeof *s->ranks, cmp_rank);
}

/* A rank's identity (DEFINITIONS "Merging summaries"): its rank number, world
 * size and the hash of its numbers, whatever path its trace was given by. */
static int cmp_identity(const void *a, const void *b)
{
    const gd_summary_rank *x = *(const gd_summary_rank *const *)a, *y = *(const gd_summary_rank *const *)b;
    if (x->in.rank != y->in.rank)
        return x->in.rank < y->in.rank ? -1 : 1;
    if (x->in.world_size != y->in.world_size)
        return x->in.world_size < y->in.world_size ? -1 : 1;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return strcmp(x->in.path, y->in.path); /* the first of the same rank in path order: the message is stable */
}

/* Two entries of s that are one rank by identity: *a, *b (a's path sorts
 * first), or both NULL.  0, or -1 when out of memory. */
static int find_twice(const gpudiag_summary *s, const gd_summary_rank **a, const gd_summary_rank **b)
{
    *a = *b = NULL;
    const gd_summary_rank **p = malloc(s->count * sizeof *p);
    if (!p)
        return -1;
    for (size_t i = 0; i < s->count; i++)
        p[i] = &s->ranks[i];
    qsort(p, s->count, sizeof *p, cmp_identity);
    for (size_t i = 1; i < s->count && !*a; i++)
        if (p[i - 1]->in.rank == p[i]->in.rank && p[i - 1]->in.world_size == p[i]->in.world_size &&
            p[i - 1]->hash == p[i]->hash) {
            *a = p[i - 1];
            *b = p[i];
        }
    free(p);
    return 0;
}

gpudiag_status gpudiag_summary_cluster(gpudiag_summary *s, gpudiag_cluster **out, gpudiag_error *err)
{
    if (!s || s->count == 0)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "a summary with no rank");
    gd_summary_sort(s);
    for (size_t i = 1; i < s->count; i++) { /* one window of steps for all: ranks are compared step for step */
        const char *a = s->ranks[0].steps_window, *b = s->ranks[i].steps_window;
        if (!a != !b || (a && strcmp(a, b) != 0))
            return gd_set_error(err, GPUDIAG_ERR_MISMATCH, NULL, -1,
                                "summaries of two windows of steps: %s%s for trace %s, %s%s for trace %s: the job "
                                "view compares ranks over the same steps; write them with the same --steps",
                                a ? "--steps " : "every step", a ? a : "", s->ranks[0].in.path, b ? "--steps " : "every step",
                                b ? b : "", s->ranks[i].in.path);
    }
    const gd_summary_rank *a = NULL, *b = NULL;
    if (find_twice(s, &a, &b) != 0)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
    if (a) {
        char rk[32] = "unknown";
        if (a->in.rank >= 0)
            snprintf(rk, sizeof rk, "%d", a->in.rank);
        if (strcmp(a->in.path, b->in.path) == 0)
            return gd_set_error(err, GPUDIAG_ERR_MISMATCH, NULL, -1,
                                "rank %s of trace %s is given twice (the same summary twice, or a merged summary "
                                "and one of its ranks): each rank counts once, give it once",
                                rk, a->in.path);
        return gd_set_error(err, GPUDIAG_ERR_MISMATCH, NULL, -1,
                            "rank %s of trace %s is given twice, also as trace %s (the same rank, world size and "
                            "numbers: one trace under two paths or names, or re-analysed): each rank counts once, "
                            "give it once",
                            rk, a->in.path, b->in.path);
    }
    gd_rank_input *in = calloc(s->count, sizeof *in);
    if (!in)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
    for (size_t i = 0; i < s->count; i++) {
        const gd_summary_rank *k = &s->ranks[i];
        in[i] = k->in;
        in[i].comm_kind = k->comm_kind && k->nkind == k->in.comm_count ? k->comm_kind : NULL;
        in[i].comm_exposed_us = k->comm_exposed_us && k->nexposed == k->in.comm_count ? k->comm_exposed_us : NULL;
        in[i].comm_start_ns = k->comm_start_ns && k->nstart == k->in.comm_count ? k->comm_start_ns : NULL;
    }
    gpudiag_status st = gd_cluster_analyze_inputs(in, s->count, out, err);
    free(in);
    return st;
}

void gpudiag_summary_free(gpudiag_summary **sp)
{
    if (!sp || !*sp)
        return;
    gpudiag_summary *s = *sp;
    for (size_t i = 0; i < s->count; i++)
        rank_free(&s->ranks[i]);
    free(s->ranks);
    free(s->job);
    free(s);
    *sp = NULL;
}
