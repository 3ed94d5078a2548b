/*
 * steps.c — steps (TBP StepParser) and the step breakdown (TBP OverallParser).
 * A pass of gpudiag_analyze (analyze.c), over the context of analyze.h;
 * its definitions and peers: docs/DEFINITIONS.md.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/passes.h"
#include "model/trace.h"

typedef struct rt_ref {
    int64_t ts, end;
    uint32_t idx;
} rt_ref;

static int cmp_rt_ref(const void *a, const void *b)
{
    const rt_ref *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

typedef struct host_step_ref {
    int64_t s, e, number;
} host_step_ref;

static int cmp_host_step(const void *a, const void *b)
{
    const host_step_ref *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return x->number < y->number ? -1 : x->number > y->number;
}

/* Up to 5 range names (user annotations / NVTX ranges) of the trace, most
 * frequent first, ties in order of first appearance, joined by ", " and
 * UTF-8-cleaned: what --step-range could have named.  NULL on allocation
 * failure. */

static void widen(int64_t ts, int64_t dur, int64_t *mn, int64_t *mx)
{
    if (ts < *mn)
        *mn = ts;
    if (ts + dur > *mx)
        *mx = ts + dur;
}

/* Widen [*mn, *mx] to cover every GPU op, runtime call and CPU op of t. */
static void widen_span(const gpudiag_trace *t, int64_t *mn, int64_t *mx)
{
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        widen(op->ts_ns, op->dur_ns, mn, mx);
    }
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        widen(rt->ts_ns, gd_rt_dur(t, rt), mn, mx);
    }
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        widen(c->ts_ns, gd_cpu_dur(t, c), mn, mx);
    }
}

/* ---- steps (TBP StepParser) ---------------------------------------------- */

/* The host steps and what the merge with the runtime calls found for each,
 * shared by the steps of gd_build_steps.  Arrays of n (>= 1) entries unless
 * noted; owned here, freed by steps_free. */
typedef struct step_match {
    size_t n;              /* host steps (1 when the trace has none: TBP's step "0") */
    host_step_ref *hs;     /* host steps by start */
    uint32_t *matched;     /* device ops launched by runtimes inside each step */
    int64_t *dev_min;      /* first device-op start per step, INT64_MAX if none */
    int64_t *dev_max;      /* last device-op end per step, INT64_MIN if none */
    uint8_t *op_matched;   /* per GPU op (t->gpu_ops.len entries): launched inside a step */
    uint8_t *graph_unrec;  /* per step: a graph launch with no GPU op (DEFINITIONS "Graph replays") */
    size_t any_matched;    /* device ops matched over all steps */
    uint32_t *launches;    /* launch calls (NF_QLAUNCH) with a correlation id inside each step */
    uint32_t *joined;      /* of those, joined to at least one GPU op */
} step_match;

static void steps_free(step_match *m)
{
    free(m->hs);
    free(m->matched);
    free(m->dev_min);
    free(m->dev_max);
    free(m->op_matched);
    free(m->graph_unrec);
    free(m->launches);
    free(m->joined);
}

/* The host steps into m->hs: ProfilerStep#N ranges by start (r->steps_from_profiler),
 * else TBP's one step "0" over the host side (Operator/Python events), else over
 * every op and call.  1 when there is a step, 0 when the trace has nothing to
 * span, -1 on allocation failure. */
static int host_steps(const gpudiag_trace *t, gpudiag_report *r, step_match *m)
{
    size_t nh = t->host_steps.len;
    m->n = nh ? nh : 1;
    m->hs = calloc(m->n, sizeof *m->hs);
    m->matched = calloc(m->n, sizeof *m->matched);
    m->dev_min = malloc(m->n * sizeof *m->dev_min);
    m->dev_max = malloc(m->n * sizeof *m->dev_max);
    if (!m->hs || !m->matched || !m->dev_min || !m->dev_max)
        return -1;
    if (nh) {
        for (size_t i = 0; i < nh; i++) {
            const gd_host_step *h = gd_vec_at(&t->host_steps, i);
            m->hs[i].s = h->ts_ns;
            m->hs[i].e = h->ts_ns + h->dur_ns;
            m->hs[i].number = h->number;
        }
        qsort(m->hs, nh, sizeof *m->hs, cmp_host_step);
        /* markers of several processes (DEFINITIONS "Steps" 1): one with the number of an
         * earlier one it overlaps is the same step; they stay sorted by start, since a merged
         * step keeps the earlier start.  Looking back over 64 steps covers 64 processes. */
        size_t w = 0;
        for (size_t i = 0; i < nh; i++) {
            host_step_ref *cur = &m->hs[i];
            size_t k = w, lim = w > 64 ? w - 64 : 0;
            while (cur->number >= 0 && k > lim &&
                   !(m->hs[k - 1].number == cur->number && cur->s < m->hs[k - 1].e))
                k--;
            if (cur->number >= 0 && k > lim) {
                if (cur->e > m->hs[k - 1].e)
                    m->hs[k - 1].e = cur->e;
                r->steps_markers_merged++;
                continue;
            }
            m->hs[w++] = *cur;
        }
        m->n = w;
        /* markers that cannot be told apart (DEFINITIONS "Steps" 1): overlapping the one before of
         * another number beyond the tolerance, or a number seen again */
        for (size_t i = 1; i < w; i++) {
            int64_t li = m->hs[i].e - m->hs[i].s, lp = m->hs[i - 1].e - m->hs[i - 1].s;
            int64_t tol = (li < lp ? li : lp) / 100;
            if (tol < 10 * 1000)
                tol = 10 * 1000; /* 10 µs, in ns */
            if (m->hs[i].number != m->hs[i - 1].number && m->hs[i - 1].e - m->hs[i].s > tol)
                r->steps_markers_overlapping++;
        }
        /* repeated numbers: the numbered markers less the distinct numbers (sorted, not a pairwise
         * scan: a trace may hold thousands of steps) */
        int64_t *num = malloc(w * sizeof *num);
        if (!num)
            return -1;
        size_t nn = 0;
        for (size_t i = 0; i < w; i++)
            if (m->hs[i].number >= 0)
                num[nn++] = m->hs[i].number;
        qsort(num, nn, sizeof *num, gd_cmp_i64);
        for (size_t i = 1; i < nn; i++)
            r->steps_numbers_repeated += num[i] == num[i - 1];
        free(num);
        /* merged steps of processes that run apart overlap their neighbours: each starts
         * where the one before ends, as rule 3 does with GPU ops (which a merged file may
         * not link: input_processes_merged) */
        for (size_t i = 1; r->steps_markers_merged && i < w; i++)
            if (m->hs[i].s < m->hs[i - 1].e) {
                m->hs[i].s = m->hs[i - 1].e;
                if (m->hs[i].e < m->hs[i].s)
                    m->hs[i].e = m->hs[i].s;
            }
        r->steps_from_profiler = 1;
        return 1;
    }
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        if (c->cat != GD_CPU_OPERATOR && c->cat != GD_CPU_PYTHON)
            continue;
        if (c->ts_ns < mn)
            mn = c->ts_ns;
        if (c->ts_ns + gd_cpu_dur(t, c) > mx)
            mx = c->ts_ns + gd_cpu_dur(t, c);
    }
    if (mn > mx) {
        /* no host ops at all: the whole span of device work and calls */
        widen_span(t, &mn, &mx);
    }
    if (mn > mx)
        return 0;
    m->hs[0].s = mn;
    m->hs[0].e = mx;
    m->hs[0].number = -1;
    return 1;
}

/* Two-way merge of the runtime calls, sorted by start, into the host steps
 * (TBP _find_device_steps): a runtime counts for a step only if it lies
 * entirely inside it; its device ops (by correlation) widen the step's device
 * side.  Fills m->matched, dev_min/dev_max, op_matched, graph_unrec and
 * any_matched.  0, or -1 on allocation failure. */
static int match_runtimes(actx *a, step_match *m)
{
    const gpudiag_trace *t = a->t;
    size_t nrt = t->runtimes.len, n = m->n;
    rt_ref *rts = malloc((nrt ? nrt : 1) * sizeof *rts);
    if (!rts)
        return -1;
    for (size_t i = 0; i < nrt; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        rts[i].ts = rt->ts_ns;
        rts[i].end = rt->ts_ns + gd_rt_dur(t, rt);
        rts[i].idx = (uint32_t)i;
    }
    if (gd_radix_sort_i64(rts, nrt, sizeof *rts, offsetof(rt_ref, ts)) != 0) /* stable: ties keep idx order */
        qsort(rts, nrt, sizeof *rts, cmp_rt_ref);
    m->op_matched = calloc(t->gpu_ops.len ? t->gpu_ops.len : 1, 1);
    m->graph_unrec = calloc(n, 1);
    m->launches = calloc(n, sizeof *m->launches);
    m->joined = calloc(n, sizeof *m->joined);
    if (!m->op_matched || !m->graph_unrec || !m->launches || !m->joined) {
        free(rts);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        m->dev_min[i] = INT64_MAX;
        m->dev_max[i] = INT64_MIN;
    }
    const host_step_ref *hs = m->hs;
    size_t is = 0, ir = 0;
    while (is < n && ir < nrt) {
        if (rts[ir].ts < hs[is].s) {
            ir++;
        } else if (rts[ir].end <= hs[is].e) {
            const gd_runtime *rt = gd_vec_at(&t->runtimes, rts[ir].idx);
            uint32_t before = m->matched[is];
            if (rt->correlation >= 0) {
                for (size_t k = gd_corr_of_runtime(a, rts[ir].idx);
                     k < a->ncorr && a->corr[k].correlation == rt->correlation; k++) {
                    const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, a->corr[k].op);
                    if (op->ts_ns < m->dev_min[is])
                        m->dev_min[is] = op->ts_ns;
                    if (op->ts_ns + op->dur_ns > m->dev_max[is])
                        m->dev_max[is] = op->ts_ns + op->dur_ns;
                    m->op_matched[a->corr[k].op] = 1;
                    m->matched[is]++;
                    m->any_matched++;
                }
                if (gd_name_flags(a, rt->name_id) & NF_QLAUNCH) {
                    m->launches[is]++;
                    m->joined[is] += m->matched[is] != before;
                }
            }
            if (m->matched[is] == before && (gd_name_flags(a, rt->name_id) & NF_GRAPH_LAUNCH))
                m->graph_unrec[is] = 1;
            ir++;
        } else if (rts[ir].ts < hs[is].e) {
            ir++;
        } else {
            is++;
        }
    }
    free(rts);
    return 0;
}

/* TBP _update_steps_duration: move the steps a->steps[0..n) to the device
 * side.  The first starts after the last unmatched device op that ended before
 * its first device op (or, under --steps, after the step before the
 * selection); each ends at its last device op if that is later; a step the one
 * before ran past entirely is kept by cutting that one (DEFINITIONS "Steps" 3,
 * r->steps_shortened). */
static void device_side_steps(actx *a, const step_match *m)
{
    const gpudiag_trace *t = a->t;
    const host_step_ref *hs = m->hs;
    int64_t prev_end = hs[0].s;
    if (t->has_steps_floor) {
        /* --steps: the first selected step follows the step before it, as in the
         * whole trace (select.c computed where that one ended) */
        if (t->steps_floor_ns > prev_end)
            prev_end = t->steps_floor_ns;
    } else if (m->dev_min[0] != INT64_MAX) {
        for (size_t i = 0; i < t->gpu_ops.len; i++) {
            if (m->op_matched[i])
                continue;
            const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
            int64_t end = op->ts_ns + op->dur_ns;
            if (end < m->dev_min[0] && end > prev_end)
                prev_end = end;
        }
    }
    for (size_t i = 0; i < m->n; i++) {
        int64_t s = prev_end > hs[i].s ? prev_end : hs[i].s;
        int64_t e = hs[i].e;
        if (m->dev_min[i] != INT64_MAX && m->dev_max[i] > e)
            e = m->dev_max[i];
        if (e <= s && i > 0 && hs[i].e > hs[i].s && hs[i].s > a->steps[i - 1].s) {
            /* the step before ran (device side) past this whole step: TBP would
             * make this one 0 us; cut that one at this step's host start instead */
            a->steps[i - 1].e = hs[i].s;
            s = hs[i].s;
            a->r->steps_shortened++;
        }
        if (e < s)
            e = s;
        a->steps[i].s = s;
        a->steps[i].e = e;
        prev_end = e;
    }
}

/* TBP's tail trimming: the steps kept of m->n.  Trailing steps without device
 * ops go, and the last one if it launched < 80% of the previous step's device
 * ops.  A step holding a graph launch with no recorded GPU op is never dropped:
 * its device work is unknown, not small (DEFINITIONS "Graph replays"). */
static size_t steps_kept(const step_match *m)
{
    size_t n = m->n, keep = n;
    if (n > 1) {
        size_t last = n;
        while (last > 0 && m->matched[last - 1] == 0 && !m->graph_unrec[last - 1])
            last--;
        if (last > 0) {
            keep = last;
            if (last >= 2 && !m->graph_unrec[last - 1] && (double)m->matched[last - 2] * 0.8 > (double)m->matched[last - 1])
                keep = last - 1;
        }
    }
    return keep;
}

/* Steps of a cut-off trace cut while their GPU events were written (DEFINITIONS "Time and
 * events"): of the kept steps 0..keep, drop the last while the recorded runtime calls end
 * before its host end (the file holds no trace-span event: the cut fell among the activity
 * records) or under GD_STEP_CUT_JOINED_MIN of its launch calls are joined to a GPU op.  Fills
 * r->steps_cut_*; returns the steps kept. */
#define GD_STEP_CUT_JOINED_MIN 0.80
static size_t steps_cut_gpu(const gpudiag_trace *t, gpudiag_report *r, const step_match *m, size_t keep)
{
    if (!t->truncated)
        return keep;
    int64_t rt_end = INT64_MIN;
    if (!t->has_trace_span)
        for (size_t i = 0; i < t->runtimes.len; i++) {
            const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
            int64_t e = rt->ts_ns + gd_rt_dur(t, rt);
            if (e > rt_end)
                rt_end = e;
        }
    while (keep > 0 && !m->graph_unrec[keep - 1]) {
        size_t i = keep - 1;
        int why = 0;
        if (rt_end != INT64_MIN && m->hs[i].e > rt_end)
            why = 1;
        else if (m->launches[i] && (double)m->joined[i] < GD_STEP_CUT_JOINED_MIN * (double)m->launches[i])
            why = 2;
        if (!why)
            break;
        /* the first step cut: the earliest one, reported */
        r->steps_cut_why = why;
        r->steps_cut_number = m->hs[i].number;
        r->steps_cut_ops = m->matched[i];
        r->steps_cut_launches = m->launches[i];
        r->steps_cut_joined = m->joined[i];
        r->steps_cut_missing_us = why == 1 ? ns_to_us(m->hs[i].e - rt_end) : NAN;
        r->steps_cut_gpu++;
        keep--;
    }
    return keep;
}

int gd_build_steps(actx *a)
{
    gpudiag_report *r = a->r;
    step_match m;
    memset(&m, 0, sizeof m);
    r->steps_cut_number = -1;
    int has = host_steps(a->t, r, &m);
    if (has <= 0) {
        steps_free(&m);
        a->nsteps = 0;
        return has;
    }
    size_t n = m.n;
    if (match_runtimes(a, &m) != 0)
        goto oom;
    a->steps = malloc(n * sizeof *a->steps);
    r->steps = gd_arena_calloc(r->arena, n, sizeof *r->steps);
    if (!a->steps || !r->steps)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        a->steps[i].s = m.hs[i].s;
        a->steps[i].e = m.hs[i].e;
    }
    size_t keep = n;
    if (m.any_matched) {
        device_side_steps(a, &m);
        keep = steps_kept(&m);
        keep = steps_cut_gpu(a->t, r, &m, keep);
    }
    r->steps_trimmed = (int)(n - keep);
    a->nsteps = keep;
    r->step_count = keep;
    for (size_t i = 0; i < keep; i++) {
        gpudiag_step *st = &r->steps[i];
        st->number = m.hs[i].number;
        st->start_ns = a->steps[i].s;
        st->end_ns = a->steps[i].e;
        st->start_us = ns_to_us(a->steps[i].s);
        st->end_us = ns_to_us(a->steps[i].e);
        st->duration_us = ns_to_us(a->steps[i].e - a->steps[i].s);
        st->device_ops = m.matched[i];
        st->gpu_lead_in_us = NAN;
    }
    if (keep) {
        a->span_s = a->steps[0].s;
        a->span_e = a->steps[keep - 1].e;
        a->hspan_s = m.hs[0].s;
        a->hspan_e = m.hs[0].e;
        if (r->steps_from_profiler)
            r->first_step_host_start_us = ns_to_us(m.hs[0].s);
        for (size_t i = 1; i < keep; i++)
            if (m.hs[i].e > a->hspan_e)
                a->hspan_e = m.hs[i].e;
    }
    steps_free(&m);
    return 0;
oom:
    steps_free(&m);
    return -1;
}

/* ---- breakdown (TBP OverallParser) --------------------------------------- */

int gd_build_breakdown(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    if (a->nsteps == 0)
        return 0;
    gd_vec role[GPUDIAG_ROLE_COUNT];
    for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++)
        gd_vec_init(&role[i], sizeof(gd_iv));
    int rc = -1;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        int rl = op->kind == GD_GPU_MEMCPY ? GPUDIAG_ROLE_MEMCPY
                 : op->kind == GD_GPU_MEMSET ? GPUDIAG_ROLE_MEMSET
                 : a->op_is_comm[i] ? GPUDIAG_ROLE_COMMUNICATION : GPUDIAG_ROLE_KERNEL;
        if (gd_iv_push(&role[rl], op->ts_ns, op->ts_ns + op->dur_ns))
            goto out;
        /* the step this op starts in (steps are sorted and disjoint) */
        size_t lo = 0, hi = a->nsteps;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (a->steps[mid].e <= op->ts_ns)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < a->nsteps && op->ts_ns >= a->steps[lo].s) {
            double lead = ns_to_us(op->ts_ns - a->steps[lo].s);
            if (isnan(r->steps[lo].gpu_lead_in_us) || lead < r->steps[lo].gpu_lead_in_us)
                r->steps[lo].gpu_lead_in_us = lead;
        }
    }
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        if (gd_iv_push(&role[GPUDIAG_ROLE_RUNTIME], rt->ts_ns, rt->ts_ns + gd_rt_dur(t, rt)))
            goto out;
    }
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        int rl = c->role == GD_CR_DATALOADER ? GPUDIAG_ROLE_DATALOADER
                 : c->role == GD_CR_COMM ? GPUDIAG_ROLE_COMMUNICATION
                 : c->role == GD_CR_CPU_EXEC ? GPUDIAG_ROLE_CPU_EXEC : -1;
        if (rl >= 0 && gd_iv_push(&role[rl], c->ts_ns, c->ts_ns + gd_cpu_dur(t, c)))
            goto out;
    }
    {
        /* TBP's priority partition of each step: a moment goes to the first
         * role (in enum order) active then, else to Other.  One sweep over the
         * merged role sets per step; nothing is materialised per event. */
        int64_t *sums = calloc(a->nsteps * GPUDIAG_ROLE_COUNT, sizeof *sums);
        if (!sums)
            goto out;
        const gd_iv *iv[GPUDIAG_ROLE_OTHER];
        size_t niv[GPUDIAG_ROLE_OTHER], hint[GPUDIAG_ROLE_OTHER];
        for (int i = 0; i < GPUDIAG_ROLE_OTHER; i++) {
            role[i].len = gd_iv_merge(role[i].data, role[i].len);
            iv[i] = role[i].data;
            niv[i] = role[i].len;
            hint[i] = 0;
        }
        for (size_t st = 0; st < a->nsteps; st++) {
            int64_t ws = a->steps[st].s, we = a->steps[st].e;
            int64_t *sum = sums + st * GPUDIAG_ROLE_COUNT;
            size_t p[GPUDIAG_ROLE_OTHER];
            for (int i = 0; i < GPUDIAG_ROLE_OTHER; i++) {
                /* steps are sorted by start: what ends by this one's start is done */
                while (hint[i] < niv[i] && iv[i][hint[i]].e <= ws)
                    hint[i]++;
                p[i] = hint[i];
            }
            for (int64_t t0 = ws; t0 < we;) {
                int64_t next = we;
                int win = GPUDIAG_ROLE_OTHER;
                for (int i = 0; i < GPUDIAG_ROLE_OTHER; i++) {
                    while (p[i] < niv[i] && iv[i][p[i]].e <= t0)
                        p[i]++;
                    if (p[i] == niv[i])
                        continue;
                    const gd_iv *x = &iv[i][p[i]];
                    if (x->s <= t0) {
                        if (win == GPUDIAG_ROLE_OTHER)
                            win = i;
                        if (x->e < next)
                            next = x->e;
                    } else if (x->s < next) {
                        next = x->s;
                    }
                }
                sum[win] += next - t0;
                /* kept for the start-up communication and DataLoader time (idle.c, role_startup) */
                if (next > t0 &&
                    ((win == GPUDIAG_ROLE_COMMUNICATION && gd_iv_push(&a->comm_win, t0, next)) ||
                     (win == GPUDIAG_ROLE_DATALOADER && gd_iv_push(&a->dl_win, t0, next)))) {
                    free(sums);
                    goto out;
                }
                t0 = next;
            }
        }
        for (int rl = 0; rl <= GPUDIAG_ROLE_OTHER; rl++) {
            double total = 0;
            for (size_t st = 0; st < a->nsteps; st++) {
                int64_t v = sums[st * GPUDIAG_ROLE_COUNT + rl];
                r->steps[st].role_us[rl] = ns_to_us(v);
                total += (double)v;
            }
            r->avg_role_us[rl] = total / NS_PER_US / (double)a->nsteps;
        }
        a->comm_win.len = gd_iv_merge(a->comm_win.data, a->comm_win.len);
        a->dl_win.len = gd_iv_merge(a->dl_win.data, a->dl_win.len);
        double tot = 0;
        for (size_t st = 0; st < a->nsteps; st++)
            tot += (double)(a->steps[st].e - a->steps[st].s);
        r->avg_step_us = tot / NS_PER_US / (double)a->nsteps;
        /* idle shares: the gaps are taken over the steps span (DEFINITIONS "Idle gaps and their causes") */
        r->idle_step_us = a->span_e > a->span_s ? (double)(a->span_e - a->span_s) / NS_PER_US / (double)a->nsteps
                                                : r->avg_step_us;
        free(sums);
    }
    rc = 0;
out:
    for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++)
        gd_vec_free(&role[i]);
    return rc;
}
