/*
 * sanitize.c — repairs of the model after reading (see sanitize.h and
 * docs/DEFINITIONS.md "Sanitising the timeline").
 */
#include "model/sanitize.h"
#include "model/opflops.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* a + b and a - b, saturated at the int64 range (times from hostile input may be
 * anywhere in it) */
static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* A GPU op by (device, stream, start, index): ds is device << 32 | stream with
 * its sign bit flipped, so that signed order of ds is (device, stream) order. */
typedef struct op_key {
    int64_t ts;
    int64_t ds;
    uint32_t idx;
    uint32_t pad;
} op_key;

static int64_t ds_key(int32_t device, int32_t stream)
{
    return (int64_t)(((uint64_t)(uint32_t)device << 32) | ((uint32_t)stream ^ 0x80000000u));
}

static int32_t ds_stream(int64_t ds)
{
    return (int32_t)((uint32_t)(uint64_t)ds ^ 0x80000000u);
}

static int cmp_op_key(const void *pa, const void *pb)
{
    const op_key *a = pa, *b = pb;
    if (a->ds != b->ds)
        return a->ds < b->ds ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

int gd_clip_overruns(gpudiag_trace *t)
{
    size_t n = t->gpu_ops.len;
    if (n < 2)
        return 0;
    if (n > UINT32_MAX)
        return 0; /* the model never holds that many (analyze indexes ops by uint32) */
    op_key *k = malloc(n * sizeof *k);
    if (!k)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        k[i].ts = op->ts_ns;
        k[i].ds = ds_key(op->device, op->stream);
        k[i].idx = (uint32_t)i;
        k[i].pad = 0;
    }
    /* two stable radix sorts, by start then by (device, stream), give the
     * comparator's order (ties keep index order); qsort if scratch is short */
    if (gd_radix_sort_i64(k, n, sizeof *k, offsetof(op_key, ts)) != 0 ||
        gd_radix_sort_i64(k, n, sizeof *k, offsetof(op_key, ds)) != 0)
        qsort(k, n, sizeof *k, cmp_op_key);
    for (size_t i = 0; i + 1 < n; i++) {
        const op_key *a = &k[i];
        if (ds_stream(a->ds) < 0)
            continue; /* no stream recorded: nothing says the ops were serial */
        /* the next op on this stream that starts strictly later (ops that start
         * together are not ordered: neither is clipped at the other) */
        size_t j = i + 1;
        while (j < n && k[j].ds == a->ds && k[j].ts == a->ts)
            j++;
        if (j >= n || k[j].ds != a->ds)
            continue;
        gd_gpu_op *op = gd_vec_at(&t->gpu_ops, a->idx);
        int64_t room = sat_sub(k[j].ts, op->ts_ns); /* > 0: the next op starts later */
        if (op->dur_ns > room) {
            t->overrun_ops++;
            t->overrun_removed_ns = sat_add(t->overrun_removed_ns, op->dur_ns - room);
            op->dur_ns = room;
        }
    }
    free(k);
    return 0;
}

/* ---- time outliers (DEFINITIONS "Sanitising the timeline" 2) ---------- */

#define GD_OUTLIER_FACTOR 10          /* the gap must exceed 10 x the span of the rest */
#define GD_OUTLIER_MIN_GAP_NS 1000000000LL /* and 1 s */

typedef struct span_ev {
    int64_t s, e;   /* start, end */
} span_ev;

/* "sorts first" for the top-k heaps: latest start (hi) / earliest start (lo). */
static int cmp_span_hi(const void *pa, const void *pb)
{
    const span_ev *a = pa, *b = pb;
    if (a->s != b->s)
        return a->s > b->s ? -1 : 1;
    return a->e > b->e ? -1 : a->e < b->e;
}

static int cmp_span_lo(const void *pa, const void *pb)
{
    const span_ev *a = pa, *b = pb;
    if (a->s != b->s)
        return a->s < b->s ? -1 : 1;
    return a->e > b->e ? -1 : a->e < b->e;
}

/* Calls f(ctx, start, end) for every timed record of the model. */
static void each_event(const gpudiag_trace *t, void (*f)(void *, int64_t, int64_t), void *ctx)
{
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        f(ctx, op->ts_ns, sat_add(op->ts_ns, op->dur_ns));
    }
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        f(ctx, rt->ts_ns, sat_add(rt->ts_ns, gd_rt_dur(t, rt)));
    }
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        f(ctx, c->ts_ns, sat_add(c->ts_ns, gd_cpu_dur(t, c)));
    }
    for (size_t i = 0; i < t->host_steps.len; i++) {
        const gd_host_step *h = gd_vec_at(&t->host_steps, i);
        f(ctx, h->ts_ns, sat_add(h->ts_ns, h->dur_ns));
    }
}

typedef struct scan {
    uint64_t count;
    int64_t min_s, max_s, max_e;
    /* second pass */
    int hi;
    double bar;            /* hi: candidates start at or after it; lo: at or before it */
    span_ev *cand;
    size_t ncand, max_cand;
    int overflow;          /* more candidates than max_cand */
    int64_t rest_ext;      /* hi: max end of the others; lo: min start of the others */
} scan;

static void scan_stats(void *ctx, int64_t s, int64_t e)
{
    scan *c = ctx;
    c->count++;
    if (s < c->min_s)
        c->min_s = s;
    if (s > c->max_s)
        c->max_s = s;
    if (e > c->max_e)
        c->max_e = e;
}

static void scan_cand(void *ctx, int64_t s, int64_t e)
{
    scan *c = ctx;
    if (c->hi ? (double)s >= c->bar : (double)s <= c->bar) {
        if (c->ncand < c->max_cand) {
            c->cand[c->ncand].s = s;
            c->cand[c->ncand].e = e;
            c->ncand++;
        } else {
            c->overflow = 1;
        }
    } else if (c->hi ? e > c->rest_ext : s < c->rest_ext) {
        c->rest_ext = c->hi ? e : s;
    }
}

/* a - b as a double, for the gap and span comparisons (no overflow). */
static double dsub(int64_t a, int64_t b) { return (double)a - (double)b; }

static int gap_ok(double gap, double span)
{
    return gap > GD_OUTLIER_FACTOR * span && gap >= (double)GD_OUTLIER_MIN_GAP_NS;
}

/* One side (DEFINITIONS "Sanitising the timeline" 2): the largest j of outliers
 * (the j latest / earliest starts) that satisfies the rule; *cut = the first
 * outlier's start (hi) or the rest's first start (lo); 0 if none.  Only events
 * beyond 1/11 of the whole span from the far end can be outliers (a gap > 10 x
 * the rest's span leaves the rest in the other 1/11), so at most
 * GD_TS_RESERVOIR of them are looked at closely; more: none are outliers.
 * stats: scan_stats over every event of t as it is now. */
static size_t find_side(const gpudiag_trace *t, int hi, int64_t *cut, int64_t *gap_out, span_ev *cand,
                        const scan *stats)
{
    scan c = *stats;
    if (c.count < 3)
        return 0;
    c.hi = hi;
    c.bar = hi ? (double)c.min_s + dsub(c.max_s, c.min_s) / (GD_OUTLIER_FACTOR + 1)
               : (double)c.max_e - dsub(c.max_e, c.min_s) / (GD_OUTLIER_FACTOR + 1);
    c.cand = cand;
    c.max_cand = GD_TS_RESERVOIR;
    c.rest_ext = hi ? INT64_MIN : INT64_MAX;
    each_event(t, scan_cand, &c);
    size_t m = c.ncand;
    if (c.overflow || m == 0 || m * 2 >= c.count)
        return 0;
    qsort(cand, m, sizeof *cand, hi ? cmp_span_hi : cmp_span_lo);
    size_t best = 0;
    int64_t best_gap = 0;
    if (hi) {
        /* j outliers cand[0..j); the rest: cand[j..m) and the others */
        int64_t ext = c.rest_ext;
        for (size_t j = m; j >= 1; j--) {
            if (j < m && cand[j].e > ext)
                ext = cand[j].e;
            if (j < m && cand[j - 1].s == cand[j].s)
                continue;
            double gap = dsub(cand[j - 1].s, ext);
            if (ext != INT64_MIN && gap_ok(gap, dsub(ext, c.min_s))) {
                best = j;
                best_gap = sat_sub(cand[j - 1].s, ext);
                break; /* the largest j */
            }
        }
        if (best)
            *cut = cand[best - 1].s;
    } else {
        int64_t oext = INT64_MIN; /* max end of the outliers cand[0..j) */
        for (size_t j = 1; j <= m; j++) {
            if (cand[j - 1].e > oext)
                oext = cand[j - 1].e;
            if (j < m && cand[j - 1].s == cand[j].s)
                continue;
            int64_t rest_s = j < m ? cand[j].s : c.rest_ext;
            if (rest_s == INT64_MAX)
                continue;
            if (gap_ok(dsub(rest_s, oext), dsub(c.max_e, rest_s))) {
                best = j;
                best_gap = sat_sub(rest_s, oext);
                *cut = rest_s;
            }
        }
    }
    if (best)
        *gap_out = best_gap;
    return best;
}

/* Keep the records of v (int64 ts_ns first) whose start is in [lo, hi). */
static void keep_starts(gd_vec *v, int64_t lo, int64_t hi)
{
    size_t w = 0;
    for (size_t i = 0; i < v->len; i++) {
        char *rec = (char *)v->data + i * v->elem;
        int64_t ts;
        memcpy(&ts, rec, sizeof ts);
        if (ts < lo || ts >= hi)
            continue;
        if (w != i)
            memmove((char *)v->data + w * v->elem, rec, v->elem);
        w++;
    }
    v->len = w;
}

/* Drop every event starting outside [lo, hi) and count them. */
static int drop_outside(gpudiag_trace *t, int64_t lo, int64_t hi)
{
    uint64_t before = t->gpu_ops.len + t->runtimes.len + t->cpu_ops.len + t->host_steps.len + t->mem_events.len;
    _Static_assert(offsetof(gd_gpu_op, ts_ns) == 0 && offsetof(gd_host_step, ts_ns) == 0 &&
                       offsetof(gd_op_flops, ts_ns) == 0 && offsetof(gd_comm_call, ts_ns) == 0 &&
                       offsetof(gd_mem_event, ts_ns) == 0,
                   "ts_ns first");
    keep_starts(&t->mem_events, lo, hi);
    keep_starts(&t->gpu_ops, lo, hi);
    keep_starts(&t->host_steps, lo, hi);
    keep_starts(&t->op_flops, lo, hi);
    keep_starts(&t->comm_calls, lo, hi);
    /* host records: an outlier ends before the bulk starts (lo side) or starts after
     * it ends (hi side), so "overlaps [lo, hi - 1]" keeps exactly the bulk */
    if (gd_trace_keep_overlapping(t, lo, hi - 1) != 0)
        return -1;
    t->time_outliers +=
        before - (t->gpu_ops.len + t->runtimes.len + t->cpu_ops.len + t->host_steps.len + t->mem_events.len);
    return 0;
}

int gd_drop_time_outliers(gpudiag_trace *t)
{
    if (t->nsys.present)
        return 0; /* an Nsight capture spans the whole application: long quiet spells are real */
    span_ev *heap = malloc(GD_TS_RESERVOIR * sizeof *heap);
    if (!heap)
        return -1;
    int64_t lo = INT64_MIN, hi = INT64_MAX, gap = INT64_MAX;
    /* latest first, then earliest, then the latest again (an early outlier
     * stretched the rest's span the first time: only when the earliest were
     * dropped, else the third pass is the first again).  The counts and extremes
     * are scanned again only after a drop (one pass over every event each). */
    scan stats;
    int have_stats = 0;
    for (int pass = 0; pass < 3; pass++) {
        int side_hi = pass != 1;
        if (pass == 2 && (hi != INT64_MAX || lo == INT64_MIN))
            break;
        if (!have_stats) {
            memset(&stats, 0, sizeof stats);
            stats.min_s = INT64_MAX;
            stats.max_s = INT64_MIN;
            stats.max_e = INT64_MIN;
            each_event(t, scan_stats, &stats);
            have_stats = 1;
        }
        int64_t cut = 0, g = 0;
        if (find_side(t, side_hi, &cut, &g, heap, &stats) == 0)
            continue;
        have_stats = 0;
        if (g < gap)
            gap = g;
        if (side_hi)
            hi = cut;
        else
            lo = cut;
        if (drop_outside(t, side_hi ? INT64_MIN : cut, side_hi ? cut : INT64_MAX) != 0) {
            free(heap);
            return -1;
        }
    }
    free(heap);
    if (!t->time_outliers)
        return 0;
    t->time_outlier_gap_ns = gap;
    /* the first outlier in the file: the smallest known offset among the kept
     * latest / earliest starts that were left out */
    int64_t first = -1;
    const gd_ts_at *a = t->ts_hi_at.data;
    for (size_t i = 0; i < t->ts_hi_at.len; i++)
        if (a[i].ts_ns >= hi && a[i].at >= 0 && (first < 0 || a[i].at < first))
            first = a[i].at;
    a = t->ts_lo_at.data;
    for (size_t i = 0; i < t->ts_lo_at.len; i++)
        if (a[i].ts_ns < lo && a[i].at >= 0 && (first < 0 || a[i].at < first))
            first = a[i].at;
    t->time_outlier_first_at = first;
    return 0;
}

/* A GPU op and its end, for the duration rule. */
typedef struct op_end {
    int64_t e;
    size_t idx;
} op_end;

static int cmp_op_end_desc(const void *pa, const void *pb)
{
    const op_end *a = pa, *b = pb;
    if (a->e != b->e)
        return a->e > b->e ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

typedef struct dscan {
    int64_t min_s, max_e;
    double bar;
    int64_t other_max_e;   /* max end of every event that is not a candidate GPU op */
} dscan;

static void dscan_stats(void *ctx, int64_t s, int64_t e)
{
    dscan *c = ctx;
    if (s < c->min_s)
        c->min_s = s;
    if (e > c->max_e)
        c->max_e = e;
}

static void dscan_host(void *ctx, int64_t s, int64_t e)
{
    (void)s;
    dscan *c = ctx;
    if (e > c->other_max_e)
        c->other_max_e = e;
}

int gd_cut_duration_outliers(gpudiag_trace *t)
{
    if (t->nsys.present || t->gpu_ops.len == 0)
        return 0;
    dscan c = {INT64_MAX, INT64_MIN, 0, INT64_MIN};
    each_event(t, dscan_stats, &c);
    if (c.min_s >= c.max_e)
        return 0;
    c.bar = (double)c.min_s + dsub(c.max_e, c.min_s) / (GD_OUTLIER_FACTOR + 1);
    op_end *cand = malloc(GD_TS_RESERVOIR * sizeof *cand);
    if (!cand)
        return -1;
    size_t m = 0;
    int overflow = 0;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        int64_t e = sat_add(op->ts_ns, op->dur_ns);
        if ((double)e >= c.bar) {
            if (m < GD_TS_RESERVOIR) {
                cand[m].e = e;
                cand[m++].idx = i;
            } else {
                overflow = 1;
            }
        } else if (e > c.other_max_e) {
            c.other_max_e = e;
        }
    }
    /* every host record belongs to the rest */
    gpudiag_trace host = *t;
    gd_vec_init(&host.gpu_ops, sizeof(gd_gpu_op));
    each_event(&host, dscan_host, &c);
    size_t best = 0;
    int64_t ext_best = 0;
    if (!overflow && m > 0) {
        qsort(cand, m, sizeof *cand, cmp_op_end_desc);
        int64_t ext = c.other_max_e;
        for (size_t j = m; j >= 1; j--) {
            if (j < m && cand[j].e > ext)
                ext = cand[j].e;
            if (j < m && cand[j - 1].e == cand[j].e)
                continue;
            if (ext != INT64_MIN && gap_ok(dsub(cand[j - 1].e, ext), dsub(ext, c.min_s))) {
                best = j;
                ext_best = ext;
                break; /* the largest j */
            }
        }
    }
    for (size_t k = 0; k < best; k++) {
        gd_gpu_op *op = gd_vec_at(&t->gpu_ops, cand[k].idx);
        if (op->ts_ns > ext_best)
            continue; /* starts after the rest: not a duration to cut */
        t->duration_outliers++;
        t->duration_outlier_removed_ns = sat_add(t->duration_outlier_removed_ns, sat_sub(cand[k].e, ext_best));
        op->dur_ns = ext_best - op->ts_ns;
    }
    free(cand);
    return 0;
}

int gd_sanitize(gpudiag_trace *t)
{
    if (gd_drop_time_outliers(t) != 0 || gd_clip_overruns(t) != 0)
        return -1;
    return gd_cut_duration_outliers(t);
}
