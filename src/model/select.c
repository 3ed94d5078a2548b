/*
 * select.c — keep a range of steps of a trace (gpudiag_trace_select_steps, --steps)
 * and the trace's rank accessors.
 *
 * Why after the read and not during it: a Kineto trace is written thread by
 * thread and then device by device, so its events are in time order within a
 * thread or stream but not across them (the GPU activities of step 1 follow
 * the CPU ops of every step).  No position in the file bounds the events of a
 * step, so stopping early could drop events of the selection; the reader reads
 * everything and this file filters (docs/DEFINITIONS.md "Selecting steps").
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/trace.h"
#include "util/util.h"

int gpudiag_trace_rank(const gpudiag_trace *t)
{
    return t ? t->rank : -1;
}

int gpudiag_trace_world_size(const gpudiag_trace *t)
{
    return t ? t->world_size : -1;
}

/* 1 if v is in the sorted array s[0..n) */
static int has_i64(const int64_t *s, size_t n, int64_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && s[lo] == v;
}

/* Write the trace's step numbers into buf as "0-2, 5, 7-9" (ascending, runs
 * joined), cut with ", ..." when it does not fit. */
static void describe_steps(const gpudiag_trace *t, char *buf, size_t cap)
{
    buf[0] = '\0';
    size_t n = t->host_steps.len, k = 0;
    int64_t *nums = malloc((n ? n : 1) * sizeof *nums);
    if (!nums)
        return;
    for (size_t i = 0; i < n; i++) {
        const gd_host_step *h = gd_vec_at(&t->host_steps, i);
        if (h->number >= 0)
            nums[k++] = h->number;
    }
    qsort(nums, k, sizeof *nums, gd_cmp_i64);
    size_t len = 0;
    for (size_t i = 0; i < k;) {
        size_t j = i;
        while (j + 1 < k && (nums[j + 1] == nums[j] || nums[j + 1] == nums[j] + 1))
            j++;
        char item[64];
        if (nums[j] == nums[i])
            snprintf(item, sizeof item, "%s%" PRId64, i ? ", " : "", nums[i]);
        else
            snprintf(item, sizeof item, "%s%" PRId64 "-%" PRId64, i ? ", " : "", nums[i], nums[j]);
        if (len + strlen(item) + 6 >= cap) {
            snprintf(buf + len, cap - len, ", ...");
            break;
        }
        len += (size_t)snprintf(buf + len, cap - len, "%s", item);
        i = j + 1;
    }
    free(nums);
}

/* Keep the records of vector V (of TYPE, with ts_ns and dur_ns) that overlap [WS, WE]. */
#define KEEP_OVERLAPPING(V, TYPE, WS, WE)                                                                          \
    do {                                                                                                           \
        size_t w_ = 0;                                                                                             \
        for (size_t i_ = 0; i_ < (V)->len; i_++) {                                                                 \
            const TYPE *e_ = gd_vec_at((V), i_);                                                                   \
            if (e_->ts_ns > (WE) || e_->ts_ns + e_->dur_ns < (WS))                                                 \
                continue;                                                                                          \
            if (w_ != i_)                                                                                          \
                memcpy(gd_vec_at((V), w_), e_, sizeof *e_);                                                        \
            w_++;                                                                                                  \
        }                                                                                                          \
        (V)->len = w_;                                                                                             \
    } while (0)

typedef struct step_ref {
    int64_t s, e, number;
    int selected;
} step_ref;

static int cmp_step_ref(const void *a, const void *b)
{
    const step_ref *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return x->number < y->number ? -1 : x->number > y->number;
}

typedef struct corr_step {
    int64_t corr;
    size_t step;
} corr_step;

static int cmp_corr_step(const void *a, const void *b)
{
    const corr_step *x = a, *y = b;
    return x->corr < y->corr ? -1 : x->corr > y->corr;
}

/*
 * Where the step before the first selected one ends in the whole trace, by the
 * device-side adjustment of docs/DEFINITIONS.md "Steps" 3 (TBP StepParser) as
 * gd_build_steps() in analyze/steps.c applies it: host steps sorted by start; a
 * runtime call belongs to the step it lies entirely inside (the first step, in
 * order, that ends after it starts); the first step's start is pushed past
 * GPU ops launched from no step that end before its first GPU op; then each
 * step starts at max(previous end, host start) and ends at max(host end, its
 * last GPU op's end, its start).  Returns 1 with *floor set, 0 when the first
 * selected step is the trace's first or no step launched GPU work (the steps
 * are then their host ranges), -1 on allocation failure.
 */
static int previous_step_end(const gpudiag_trace *t, int64_t first, int64_t last, int64_t *floor)
{
    size_t n = t->host_steps.len, k0 = n;
    step_ref *hs = malloc((n ? n : 1) * sizeof *hs);
    int64_t *dmin = malloc((n ? n : 1) * sizeof *dmin), *dmax = malloc((n ? n : 1) * sizeof *dmax);
    corr_step *cs = malloc((t->runtimes.len ? t->runtimes.len : 1) * sizeof *cs);
    uint8_t *matched = calloc(t->gpu_ops.len ? t->gpu_ops.len : 1, 1);
    int rc = -1;
    if (!hs || !dmin || !dmax || !cs || !matched)
        goto out;
    for (size_t i = 0; i < n; i++) {
        const gd_host_step *h = gd_vec_at(&t->host_steps, i);
        hs[i].s = h->ts_ns;
        hs[i].e = h->ts_ns + h->dur_ns;
        hs[i].number = h->number;
        hs[i].selected = h->number >= 0 && h->number >= first && h->number <= last;
        dmin[i] = INT64_MAX;
        dmax[i] = INT64_MIN;
    }
    qsort(hs, n, sizeof *hs, cmp_step_ref);
    for (size_t i = 0; i < n && k0 == n; i++)
        if (hs[i].selected)
            k0 = i;
    rc = 0;
    if (k0 == 0 || k0 == n)
        goto out;
    /* runtime calls -> steps (ends of non-overlapping sorted steps are sorted) */
    size_t nc = 0;
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        if (rt->correlation < 0)
            continue;
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (hs[mid].e <= rt->ts_ns)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n && rt->ts_ns >= hs[lo].s && rt->ts_ns + gd_rt_dur(t, rt) <= hs[lo].e) {
            cs[nc].corr = rt->correlation;
            cs[nc].step = lo;
            nc++;
        }
    }
    qsort(cs, nc, sizeof *cs, cmp_corr_step);
    int any = 0;
    for (size_t i = 0; nc && i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (!(op->flags & GD_GF_HAS_CORR))
            continue;
        corr_step key = {op->correlation, 0};
        const corr_step *c = bsearch(&key, cs, nc, sizeof *cs, cmp_corr_step);
        if (!c)
            continue;
        while (c > cs && c[-1].corr == op->correlation)
            c--;
        for (; c < cs + nc && c->corr == op->correlation; c++) {
            if (op->ts_ns < dmin[c->step])
                dmin[c->step] = op->ts_ns;
            if (op->ts_ns + op->dur_ns > dmax[c->step])
                dmax[c->step] = op->ts_ns + op->dur_ns;
            matched[i] = 1;
            any = 1;
        }
    }
    if (!any)
        goto out;
    int64_t prev_end = hs[0].s;
    if (dmin[0] != INT64_MAX) {
        for (size_t i = 0; i < t->gpu_ops.len; i++) {
            const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
            int64_t end = op->ts_ns + op->dur_ns;
            if (!matched[i] && end < dmin[0] && end > prev_end)
                prev_end = end;
        }
    }
    for (size_t i = 0; i < k0; i++) {
        int64_t st = prev_end > hs[i].s ? prev_end : hs[i].s;
        int64_t e = hs[i].e;
        if (dmin[i] != INT64_MAX && dmax[i] > e)
            e = dmax[i];
        if (e < st)
            e = st;
        prev_end = e;
    }
    *floor = prev_end;
    rc = 1;
out:
    free(hs);
    free(dmin);
    free(dmax);
    free(cs);
    free(matched);
    return rc;
}

static void range_text(int64_t first, int64_t last, char *buf, size_t cap)
{
    if (first == last)
        snprintf(buf, cap, "%" PRId64, first);
    else if (first == INT64_MIN && last == INT64_MAX)
        snprintf(buf, cap, "(any)");
    else if (first == INT64_MIN)
        snprintf(buf, cap, ":%" PRId64, last);
    else if (last == INT64_MAX)
        snprintf(buf, cap, "%" PRId64 ":", first);
    else
        snprintf(buf, cap, "%" PRId64 ":%" PRId64, first, last);
}

gpudiag_status gpudiag_trace_select_steps(gpudiag_trace *t, int64_t first, int64_t last, gpudiag_error *err)
{
    if (!t)
        return gd_set_error(err, GPUDIAG_ERR_ARG, "", -1, "no trace");
    char want[64];
    range_text(first, last, want, sizeof want);
    if (first > last)
        return gd_set_error(err, GPUDIAG_ERR_ARG, t->path, -1, "--steps %s: the first step is after the last", want);
    if (t->header_only)
        return gd_set_error(err, GPUDIAG_ERR_ARG, t->path, -1, "a header-only read holds no steps to select");

    /* the window of the selected host steps */
    size_t nh = t->host_steps.len, nsel = 0;
    int64_t ws = INT64_MAX, we = INT64_MIN;
    for (size_t i = 0; i < nh; i++) {
        const gd_host_step *h = gd_vec_at(&t->host_steps, i);
        if (h->number < first || h->number > last || h->number < 0)
            continue;
        nsel++;
        if (h->ts_ns < ws)
            ws = h->ts_ns;
        if (h->ts_ns + h->dur_ns > we)
            we = h->ts_ns + h->dur_ns;
    }
    if (nsel == 0) {
        char have[256];
        describe_steps(t, have, sizeof have);
        if (have[0])
            return gd_set_error(err, GPUDIAG_ERR_NOMATCH, t->path, -1, "--steps %s: no such step; the trace has steps %s",
                                want, have);
        if (nh)
            return gd_set_error(err, GPUDIAG_ERR_NOMATCH, t->path, -1,
                                "--steps %s: the trace's %zu step marker%s no step number", want, nh,
                                nh == 1 ? " carries" : "s carry");
        return gd_set_error(err, GPUDIAG_ERR_NOMATCH, t->path, -1,
                            "--steps %s: the trace has no steps (no ProfilerStep#N%s); see --step-range", want,
                            t->step_range[0] ? " and no range matching --step-range" : " or step ranges");
    }

    /* extend the window's end to the device-side end of the work launched inside it */
    size_t ncorr = 0;
    int64_t *corr = malloc((t->runtimes.len ? t->runtimes.len : 1) * sizeof *corr);
    if (!corr)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, t->path, -1, "out of memory");
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        if (rt->correlation >= 0 && rt->ts_ns >= ws && rt->ts_ns + gd_rt_dur(t, rt) <= we)
            corr[ncorr++] = rt->correlation;
    }
    qsort(corr, ncorr, sizeof *corr, gd_cmp_i64);
    int64_t we_ext = we;
    for (size_t i = 0; ncorr && i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->ts_ns + op->dur_ns > we_ext && (op->flags & GD_GF_HAS_CORR) && has_i64(corr, ncorr, op->correlation))
            we_ext = op->ts_ns + op->dur_ns;
    }
    free(corr);

    int64_t floor = INT64_MIN;
    int has_floor = previous_step_end(t, first, last, &floor);
    if (has_floor < 0)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, t->path, -1, "out of memory");

    t->steps_before_selection = nh;
    t->has_steps_floor = has_floor;
    t->steps_floor_ns = floor;
    size_t w = 0;
    for (size_t i = 0; i < nh; i++) {
        const gd_host_step *h = gd_vec_at(&t->host_steps, i);
        if (h->number < first || h->number > last || h->number < 0)
            continue;
        if (w != i)
            memcpy(gd_vec_at(&t->host_steps, w), h, sizeof *h);
        w++;
    }
    t->host_steps.len = w;
    KEEP_OVERLAPPING(&t->gpu_ops, gd_gpu_op, ws, we_ext);
    if (gd_trace_keep_overlapping(t, ws, we_ext) != 0) /* runtimes and CPU ops, with their side tables */
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, t->path, -1, "out of memory");
    t->steps_selected = 1;
    t->steps_window_start_ns = ws;
    t->steps_window_end_ns = we_ext;
    t->steps_first = first;
    t->steps_last = last;
    return GPUDIAG_OK;
}
