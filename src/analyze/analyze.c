/*
 * analyze.c — from the timeline model to the numbers of the report.
 *
 * Every number here follows a peer's definition (docs/DEFINITIONS.md):
 *  - steps, step breakdown, GPU utilization, Est. SM efficiency, Est. achieved
 *    occupancy, Tensor Core share: the PyTorch TensorBoard profiler plugin
 *    (TBP; event_parser.py, overall_parser.py, gpu_metrics_parser.py);
 *  - temporal breakdown (idle / compute / non-compute), communication overlap,
 *    kernel launch statistics: Holistic Trace Analysis (HTA).
 * Each pass is linear after one sort; nothing is quadratic in the events.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/mfu_trace.h"
#include "analyze/roofline.h"
#include "analyze/intervals.h"
#include "analyze/kclass.h"
#include "gpudiag/specs.h"
#include "diagnose/rules.h"
#include "model/collective.h"
#include "model/trace.h"
#include "util/util.h"

#define NS_PER_US 1000.0

static double ns_to_us(int64_t ns) { return (double)ns / NS_PER_US; }

/* ---- small helpers ------------------------------------------------------ */

void gd_stats_compute(const double *values, size_t n, gpudiag_stats_us *out)
{
    out->mean = out->median = out->p90 = out->min = out->max = out->stddev = NAN;
    if (n == 0)
        return;
    double *v = malloc(n * sizeof *v);
    if (!v)
        return;
    memcpy(v, values, n * sizeof *v);
    qsort(v, n, sizeof *v, gd_cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    double mean = sum / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    out->mean = mean;
    out->median = gd_quantile_sorted(v, n, 0.5);
    out->p90 = gd_quantile_sorted(v, n, 0.9);
    out->min = v[0];
    out->max = v[n - 1];
    out->stddev = sqrt(ss / (double)n);
    free(v);
}

/* ---- correlation index: runtime call -> device ops ---------------------- */

static int cmp_corr(const void *a, const void *b)
{
    const corr_entry *x = a, *y = b;
    if (x->correlation != y->correlation)
        return x->correlation < y->correlation ? -1 : 1;
    return x->op < y->op ? -1 : x->op > y->op;
}

size_t gd_corr_find(const corr_entry *c, size_t n, int64_t key)
{
    return gd_find_i64(c, n, sizeof *c, key);
}

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
static char *range_candidates(const gpudiag_trace *t)
{
    enum { KEEP = 5 };
    uint32_t *count = t->names.count ? calloc(t->names.count, sizeof *count) : NULL;
    size_t *first = t->names.count ? malloc(t->names.count * sizeof *first) : NULL;
    if (t->names.count && (!count || !first)) {
        free(count);
        free(first);
        return NULL;
    }
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        if (c->cat != GD_CPU_USER_ANNOT)
            continue;
        if (count[c->name_id] == 0)
            first[c->name_id] = i;
        if (count[c->name_id] < UINT32_MAX)
            count[c->name_id]++;
    }
    uint32_t best[KEEP];
    size_t nb = 0;
    for (uint32_t id = 0; id < t->names.count; id++) {
        if (!count[id])
            continue;
        size_t pos = nb;
        while (pos > 0 && (count[best[pos - 1]] < count[id] ||
                           (count[best[pos - 1]] == count[id] && first[best[pos - 1]] > first[id])))
            pos--;
        if (pos >= KEEP)
            continue;
        size_t end = nb < KEEP ? nb : KEEP - 1;
        for (size_t j = end; j > pos; j--)
            best[j] = best[j - 1];
        best[pos] = id;
        if (nb < KEEP)
            nb++;
    }
    char buf[512];
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < nb; i++) {
        const char *nm = gd_strtab_get(&t->names, best[i]);
        int k = snprintf(buf + len, sizeof buf - len, "%s'%.80s'", i ? ", " : "", nm);
        if (k < 0 || (size_t)k >= sizeof buf - len)
            break;
        len += (size_t)k;
    }
    free(count);
    free(first);
    return gd_utf8_clean(buf, strlen(buf));
}

static int cmp_event_count(const void *pa, const void *pb)
{
    const gpudiag_event_count *a = pa, *b = pb;
    if (a->events != b->events)
        return a->events > b->events ? -1 : 1;
    return strcmp(a->category, b->category);
}

/* The device-event categories no analysis reads (DEFINITIONS "Time and events",
 * devices not analysed), most events first, into in->unanalysed_device. */
static void unanalysed_devices(const gpudiag_trace *t, gpudiag_input_info *in)
{
    gpudiag_event_count all[GD_OTHER_CATS_MAX];
    memset(all, 0, sizeof all);
    size_t n = 0;
    in->unanalysed_device_events = t->other_cat_events_dropped;
    for (size_t i = 0; i < t->other_cats.len && n < GD_OTHER_CATS_MAX; i++) {
        const gd_other_cat *c = gd_vec_at(&t->other_cats, i);
        if (!c->device || strcmp(c->name, "cuda_sync") == 0)
            continue; /* cuda_sync: CUDA's own synchronisation records, not device work */
        snprintf(all[n].category, sizeof all[n].category, "%s", c->name);
        for (char *q = all[n].category; *q; q++)
            if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7f)
                *q = '?'; /* bytes as written, possibly cut inside a UTF-8 sequence: ASCII only */
        all[n].events = c->events;
        in->unanalysed_device_events += c->events;
        n++;
    }
    qsort(all, n, sizeof all[0], cmp_event_count);
    in->unanalysed_device_count = n < GPUDIAG_UNANALYSED_MAX ? n : GPUDIAG_UNANALYSED_MAX;
    memcpy(in->unanalysed_device, all, in->unanalysed_device_count * sizeof all[0]);
}

/* ---- analysis context --------------------------------------------------- */

unsigned gd_name_flags(actx *a, uint32_t id)
{
    uint16_t f = a->nflags[id];
    if (f & NF_DONE)
        return f;
    const char *nm = gd_strtab_get(&a->t->names, id);
    size_t nl = gd_strtab_len(&a->t->names, id);
    unsigned v = NF_DONE;
    if (gd_kernel_uses_tensor_cores(nm, nl))
        v |= NF_TC;
    if (gd_kernel_is_comm(nm, nl))
        v |= NF_COMM;
    if (gd_kernel_is_compute(nm, nl))
        v |= NF_COMPUTE;
    if (gd_runtime_is_sync(nm, nl))
        v |= NF_SYNC;
    if (gd_runtime_is_queue_launch(nm, nl))
        v |= NF_QLAUNCH;
    if (gd_copy_is_pageable(nm, nl))
        v |= NF_PAGEABLE;
    if (gd_kernel_is_fused_optimizer(nm, nl))
        v |= NF_FUSED_OPT;
    if (gd_runtime_is_graph_launch(nm, nl))
        v |= NF_GRAPH_LAUNCH;
    if (gd_runtime_is_stream_wait_event(nm, nl))
        v |= NF_WAIT_EVENT;
    v |= (unsigned)gd_copy_kind(nm, nl) << NF_COPY_SHIFT;
    v |= (unsigned)gd_kernel_class(nm, nl) << NF_CLASS_SHIFT;
    a->nflags[id] = (uint16_t)v;
    return v;
}

const gd_runtime *gd_runtime_for(const actx *a, int64_t correlation)
{
    size_t k = gd_find_i64(a->rt_index, a->nrt_index, sizeof *a->rt_index, correlation);
    return k < a->nrt_index ? gd_vec_at(&a->t->runtimes, a->rt_index[k].idx) : NULL;
}

_Static_assert(GPUDIAG_KCLASS_COUNT <= 16, "kernel class fits the 4 NF_CLASS bits");

/* Widen [*mn, *mx] to cover [ts, ts + dur). */
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

static int build_steps(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    size_t nh = t->host_steps.len;
    host_step_ref *hs = NULL;
    size_t n = nh ? nh : 1;
    hs = calloc(n, sizeof *hs);
    uint32_t *matched = calloc(n, sizeof *matched);
    int64_t *dev_min = malloc(n * sizeof *dev_min);
    int64_t *dev_max = malloc(n * sizeof *dev_max);
    if (!hs || !matched || !dev_min || !dev_max)
        goto oom;
    if (nh) {
        for (size_t i = 0; i < nh; i++) {
            const gd_host_step *h = gd_vec_at(&t->host_steps, i);
            hs[i].s = h->ts_ns;
            hs[i].e = h->ts_ns + h->dur_ns;
            hs[i].number = h->number;
        }
        qsort(hs, nh, sizeof *hs, cmp_host_step);
        r->steps_from_profiler = 1;
    } else {
        /* TBP: one step "0" spanning the host side (Operator/Python events). */
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
        if (mn > mx) {
            free(hs);
            free(matched);
            free(dev_min);
            free(dev_max);
            a->nsteps = 0;
            return 0;
        }
        hs[0].s = mn;
        hs[0].e = mx;
        hs[0].number = -1;
    }

    /* Runtime calls sorted by start, each with its device ops. */
    size_t nrt = t->runtimes.len;
    rt_ref *rts = malloc((nrt ? nrt : 1) * sizeof *rts);
    if (!rts)
        goto oom;
    for (size_t i = 0; i < nrt; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        rts[i].ts = rt->ts_ns;
        rts[i].end = rt->ts_ns + gd_rt_dur(t, rt);
        rts[i].idx = (uint32_t)i;
    }
    if (gd_radix_sort_i64(rts, nrt, sizeof *rts, offsetof(rt_ref, ts)) != 0) /* stable: ties keep idx order */
        qsort(rts, nrt, sizeof *rts, cmp_rt_ref);
    uint8_t *op_matched = calloc(t->gpu_ops.len ? t->gpu_ops.len : 1, 1);
    uint8_t *graph_unrec = calloc(n, 1); /* per step: a graph launch with no GPU op (DEFINITIONS "Graph replays") */
    if (!op_matched || !graph_unrec) {
        free(op_matched);
        free(graph_unrec);
        free(rts);
        goto oom;
    }
    for (size_t i = 0; i < n; i++) {
        dev_min[i] = INT64_MAX;
        dev_max[i] = INT64_MIN;
    }
    /* Two-way merge of runtimes into host steps (TBP _find_device_steps): a
     * runtime counts for a step only if it lies entirely inside it. */
    size_t is = 0, ir = 0;
    size_t any_matched = 0;
    while (is < n && ir < nrt) {
        if (rts[ir].ts < hs[is].s) {
            ir++;
        } else if (rts[ir].end <= hs[is].e) {
            const gd_runtime *rt = gd_vec_at(&t->runtimes, rts[ir].idx);
            uint32_t before = matched[is];
            if (rt->correlation >= 0) {
                for (size_t k = gd_corr_find(a->corr, a->ncorr, rt->correlation);
                     k < a->ncorr && a->corr[k].correlation == rt->correlation; k++) {
                    const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, a->corr[k].op);
                    if (op->ts_ns < dev_min[is])
                        dev_min[is] = op->ts_ns;
                    if (op->ts_ns + op->dur_ns > dev_max[is])
                        dev_max[is] = op->ts_ns + op->dur_ns;
                    op_matched[a->corr[k].op] = 1;
                    matched[is]++;
                    any_matched++;
                }
            }
            if (matched[is] == before && (gd_name_flags(a, rt->name_id) & NF_GRAPH_LAUNCH))
                graph_unrec[is] = 1;
            ir++;
        } else if (rts[ir].ts < hs[is].e) {
            ir++;
        } else {
            is++;
        }
    }
    free(rts);

    a->steps = malloc(n * sizeof *a->steps);
    r->steps = calloc(n, sizeof *r->steps);
    if (!a->steps || !r->steps) {
        free(op_matched);
        free(graph_unrec);
        goto oom;
    }
    for (size_t i = 0; i < n; i++) {
        a->steps[i].s = hs[i].s;
        a->steps[i].e = hs[i].e;
    }
    size_t keep = n;
    if (any_matched) {
        /* TBP _update_steps_duration: move steps to the device side. */
        int64_t prev_end = hs[0].s;
        if (t->has_steps_floor) {
            /* --steps: the first selected step follows the step before it, as in the
             * whole trace (select.c computed where that one ended) */
            if (t->steps_floor_ns > prev_end)
                prev_end = t->steps_floor_ns;
        } else if (dev_min[0] != INT64_MAX) {
            for (size_t i = 0; i < t->gpu_ops.len; i++) {
                if (op_matched[i])
                    continue;
                const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
                int64_t end = op->ts_ns + op->dur_ns;
                if (end < dev_min[0] && end > prev_end)
                    prev_end = end;
            }
        }
        for (size_t i = 0; i < n; i++) {
            int64_t s = prev_end > hs[i].s ? prev_end : hs[i].s;
            int64_t e = hs[i].e;
            if (dev_min[i] != INT64_MAX && dev_max[i] > e)
                e = dev_max[i];
            if (e <= s && i > 0 && hs[i].e > hs[i].s && hs[i].s > a->steps[i - 1].s) {
                /* the step before ran (device side) past this whole step: TBP would
                 * make this one 0 us; cut that one at this step's host start instead
                 * (DEFINITIONS "Steps" 3, breakdown.steps_shortened) */
                a->steps[i - 1].e = hs[i].s;
                s = hs[i].s;
                r->steps_shortened++;
            }
            if (e < s)
                e = s;
            a->steps[i].s = s;
            a->steps[i].e = e;
            prev_end = e;
        }
        /* Tail trimming: drop trailing steps without device ops, and the last
         * one if it launched < 80% of the previous step's device ops.  A step
         * holding a graph launch with no recorded GPU op is never dropped: its
         * device work is unknown, not small (DEFINITIONS "Graph replays"). */
        if (n > 1) {
            size_t last = n;
            while (last > 0 && matched[last - 1] == 0 && !graph_unrec[last - 1])
                last--;
            if (last > 0) {
                keep = last;
                if (last >= 2 && !graph_unrec[last - 1] && (double)matched[last - 2] * 0.8 > (double)matched[last - 1])
                    keep = last - 1;
            }
        }
    }
    free(op_matched);
    free(graph_unrec);
    r->steps_trimmed = (int)(n - keep);
    a->nsteps = keep;
    r->step_count = keep;
    for (size_t i = 0; i < keep; i++) {
        gpudiag_step *st = &r->steps[i];
        st->number = hs[i].number;
        st->start_ns = a->steps[i].s;
        st->end_ns = a->steps[i].e;
        st->start_us = ns_to_us(a->steps[i].s);
        st->end_us = ns_to_us(a->steps[i].e);
        st->duration_us = ns_to_us(a->steps[i].e - a->steps[i].s);
        st->device_ops = matched[i];
        st->gpu_lead_in_us = NAN;
    }
    if (keep) {
        a->span_s = a->steps[0].s;
        a->span_e = a->steps[keep - 1].e;
    }
    free(hs);
    free(matched);
    free(dev_min);
    free(dev_max);
    return 0;
oom:
    free(hs);
    free(matched);
    free(dev_min);
    free(dev_max);
    return -1;
}

/* ---- breakdown (TBP OverallParser) --------------------------------------- */

static int build_breakdown(actx *a)
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

/* ---- per-device GPU metrics (TBP GPUMetricsParser + HTA) ----------------- */

typedef struct endpoint {
    int64_t t;
    float v;          /* Kineto's blocks per SM, as stored in the model */
    int32_t is_end;
} endpoint;
_Static_assert(sizeof(endpoint) == 16, "endpoint is 16 bytes");

static int cmp_endpoint(const void *pa, const void *pb)
{
    const endpoint *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->is_end - b->is_end; /* START before END at equal time */
}

/* Stable sort of endpoints by time (qsort only if the scratch cannot be had). */
static void sort_endpoints(endpoint *ep, size_t n)
{
    if (gd_radix_sort_i64(ep, n, sizeof *ep, offsetof(endpoint, t)) != 0)
        qsort(ep, n, sizeof *ep, cmp_endpoint);
}

/* TBP merge_ranges_with_value + intersection with the steps span + weighted
 * average over the span.  ep[0, n) are the kernels' STARTs and ep[n, 2n) their
 * ENDs, each in op order.  Each half is sorted by time on its own (scratch for
 * n endpoints, not 2n) and the sweep merges the two, STARTs first at equal
 * times: the order of a stable sort of the whole array, as TBP's sort key.
 * Returns NaN when no positive range falls inside. */
static double sm_efficiency(endpoint *ep, size_t n, int64_t span_s, int64_t span_e)
{
    if (n == 0 || span_e <= span_s)
        return NAN;
    endpoint *st = ep, *en = ep + n;
    sort_endpoints(st, n);
    sort_endpoints(en, n);
    size_t i = 1, j = 0; /* st[0] is first: a kernel never ends before it starts */
    double last_value = (double)st[0].v;
    int64_t last_t = st[0].t;
    double weighted = 0;
    int any = 0;
    while (i < n || j < n) {
        const endpoint *p = (i < n && (j >= n || st[i].t <= en[j].t)) ? &st[i++] : &en[j++];
        if (p->t > last_t && last_value > 0.0) {
            double eff = last_value < 1.0 ? last_value : 1.0;
            int64_t s = last_t > span_s ? last_t : span_s;
            int64_t e = p->t < span_e ? p->t : span_e;
            if (s < e) {
                weighted += eff * (double)(e - s);
                any = 1;
            }
        }
        last_t = p->t;
        if (p->is_end)
            last_value -= (double)p->v;
        else
            last_value += (double)p->v;
    }
    if (!any)
        return NAN;
    return weighted / (double)(span_e - span_s);
}

/* NVIDIA devices without deviceProperties: the compute capability their kernel
 * names say (DEFINITIONS "GPU metrics", architecture inferred from kernel
 * names), the highest tag per device.  0, or -1 on OOM. */
static int infer_arch(const gpudiag_trace *t, gpudiag_report *r)
{
    if (t->is_amd)
        return 0;
    int need = 0;
    for (size_t i = 0; i < r->device_count; i++)
        need |= r->devices[i].compute_major < 0;
    if (!need || t->names.count == 0)
        return 0;
    /* per name id: -2 not looked at yet, -1 no tag, else major*10+minor */
    int16_t *cc = malloc(t->names.count * sizeof *cc);
    if (!cc)
        return -1;
    for (uint32_t i = 0; i < t->names.count; i++)
        cc[i] = -2;
    for (size_t di = 0; di < r->device_count; di++) {
        gpudiag_device *d = &r->devices[di];
        if (d->compute_major >= 0)
            continue;
        int best = -1;
        uint64_t tagged = 0;
        for (size_t i = 0; i < t->gpu_ops.len; i++) {
            const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
            if (op->device != d->id || op->kind != GD_GPU_KERNEL || op->name_id >= t->names.count)
                continue;
            if (cc[op->name_id] == -2) {
                int mj = -1, mn = -1;
                cc[op->name_id] = gpudiag_arch_family(gd_strtab_get(&t->names, op->name_id),
                                                      gd_strtab_len(&t->names, op->name_id), &mj, &mn)
                                      ? (int16_t)(mj * 10 + mn)
                                      : -1;
            }
            if (cc[op->name_id] >= 0) {
                tagged++;
                if (cc[op->name_id] > best)
                    best = cc[op->name_id];
            }
        }
        if (best >= 0) {
            d->compute_major = best / 10;
            d->compute_minor = best % 10;
            d->arch_inferred = 1;
            d->arch_tagged_kernels = tagged;
        }
    }
    free(cc);
    return 0;
}

static int build_devices(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    /* devices: those with GPU ops, plus described ones */
    int64_t *ids = malloc((t->gpu_ops.len + t->devices.len + 1) * sizeof *ids);
    if (!ids)
        return -1;
    size_t nid = 0;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (nid == 0 || ids[nid - 1] != op->device)
            ids[nid++] = op->device;
    }
    qsort(ids, nid, sizeof *ids, gd_cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < nid; i++)
        if (u == 0 || ids[u - 1] != ids[i])
            ids[u++] = ids[i];
    nid = u;
    r->devices = calloc(nid ? nid : 1, sizeof *r->devices);
    if (!r->devices) {
        free(ids);
        return -1;
    }
    r->device_count = nid;
    for (size_t i = 0; i < nid; i++) {
        gpudiag_device *d = &r->devices[i];
        d->id = (int)ids[i];
        d->compute_major = d->compute_minor = -1;
        d->total_memory_bytes = NAN;
        d->gpu_utilization = d->sm_efficiency = d->achieved_occupancy = d->tensor_core_share = NAN;
        d->span_us = d->idle_us = d->compute_us = d->non_compute_us = NAN;
        d->comm_time_us = d->comm_overlap = NAN;
        for (size_t k = 0; k < t->devices.len; k++) {
            const gd_device_prop *dp = gd_vec_at(&t->devices, k);
            if (dp->id == d->id) {
                snprintf(d->name, sizeof d->name, "%s", dp->name);
                d->num_sms = dp->num_sms;
                d->compute_major = dp->compute_major;
                d->compute_minor = dp->compute_minor;
                d->warp_size = dp->warp_size;
                d->total_memory_bytes = dp->total_mem_bytes;
            }
        }
    }
    free(ids);
    if (infer_arch(t, r) != 0)
        return -1;

    int rc = -1;
    gd_vec kiv, all_iv, comp_iv, comm_iv, eps;
    gd_vec_init(&kiv, sizeof(gd_iv));
    gd_vec_init(&all_iv, sizeof(gd_iv));
    gd_vec_init(&comp_iv, sizeof(gd_iv));
    gd_vec_init(&comm_iv, sizeof(gd_iv));
    gd_vec_init(&eps, sizeof(endpoint));
    for (size_t di = 0; di < nid; di++) {
        gpudiag_device *d = &r->devices[di];
        kiv.len = all_iv.len = comp_iv.len = comm_iv.len = eps.len = 0;
        /* SM efficiency endpoints: every START (op order), then every END */
        size_t nbps = 0, kb = 0;
        for (size_t i = 0; i < t->gpu_ops.len; i++) {
            const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
            if (op->device == d->id && op->kind == GD_GPU_KERNEL && (op->flags & GD_GF_HAS_BPS) &&
                op->blocks_per_sm > 0.0f)
                nbps++;
        }
        if (gd_vec_reserve(&eps, 2 * nbps) != 0)
            goto out;
        endpoint *ep = eps.data;
        double occ_w = 0, occ_t = 0, tc_t = 0, ktime = 0;
        uint64_t kcount = 0, gcount = 0; /* gcount: whole-graph rows (GD_GPU_GRAPH), busy time only */
        /* Two passes over the ops, so that the busy-kernel set and the SM
         * efficiency endpoints (with their sort's scratch) are freed before
         * the temporal breakdown's three sets are built: on a 28 GB trace
         * this was the analysis' peak, all five at once.  Pass 1: kernels. */
        for (size_t i = 0; i < t->gpu_ops.len; i++) {
            const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
            if (op->device != d->id || (op->kind != GD_GPU_KERNEL && op->kind != GD_GPU_GRAPH))
                continue;
            int64_t s = op->ts_ns, e = op->ts_ns + op->dur_ns;
            if (op->kind == GD_GPU_GRAPH) {
                /* a whole graph's execution: its kernels ran then (DEFINITIONS "Nsight Systems
                 * exports", graph rows), so it is kernel busy time, but no kernel of its own */
                gcount++;
                if (gd_iv_push(&kiv, s, e))
                    goto out;
                continue;
            }
            unsigned nf = gd_name_flags(a, op->name_id);
            kcount++;
            ktime += (double)op->dur_ns;
            if (gd_iv_push(&kiv, s, s + op->dur_ns))
                goto out;
            if (nf & NF_TC)
                tc_t += (double)op->dur_ns;
            if ((op->flags & GD_GF_HAS_BPS) && op->blocks_per_sm > 0.0f) {
                endpoint e1 = {s, op->blocks_per_sm, 0}, e2 = {e, op->blocks_per_sm, 1};
                ep[kb] = e1;
                ep[nbps + kb++] = e2;
            }
            if ((op->flags & GD_GF_HAS_OCC) && op->occupancy_pct >= 0.0f && a->nsteps) {
                int64_t cs = s > a->span_s ? s : a->span_s;
                int64_t ce = e < a->span_e ? e : a->span_e;
                if (cs < ce) {
                    occ_w += (double)op->occupancy_pct * (double)(ce - cs);
                    occ_t += (double)(ce - cs);
                }
            }
        }
        d->kernel_count = kcount;
        d->kernel_time_us = ktime / NS_PER_US;
        if (ktime > 0)
            d->tensor_core_share = tc_t / ktime;
        kiv.len = gd_iv_merge(kiv.data, kiv.len);
        if (a->nsteps && a->span_e > a->span_s && (kcount || gcount)) {
            gd_iv span = {a->span_s, a->span_e};
            int64_t busy = gd_iv_intersect_len(kiv.data, kiv.len, &span, 1);
            d->gpu_utilization = (double)busy / (double)(a->span_e - a->span_s);
            eps.len = 2 * nbps;
            d->sm_efficiency = sm_efficiency(eps.data, nbps, a->span_s, a->span_e);
            if (occ_t > 0)
                d->achieved_occupancy = occ_w / occ_t / 100.0;
        }
        gd_vec_free(&kiv);
        gd_vec_free(&eps);
        /* pass 2: every op on a stream (busy device), compute and communication kernels */
        for (size_t i = 0; i < t->gpu_ops.len; i++) {
            const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
            if (op->device != d->id || op->stream == -1)
                continue;
            int64_t s = op->ts_ns;
            if (gd_iv_push(&all_iv, s, s + op->dur_ns))
                goto out;
            if (op->kind != GD_GPU_KERNEL)
                continue;
            unsigned nf = gd_name_flags(a, op->name_id);
            if (nf & NF_COMM) {
                if (gd_iv_push(&comm_iv, s, s + op->dur_ns))
                    goto out;
            } else if (nf & NF_COMPUTE) {
                if (gd_iv_push(&comp_iv, s, s + op->dur_ns))
                    goto out;
            }
        }
        /* HTA temporal breakdown over [first GPU event, last GPU event] */
        all_iv.len = gd_iv_merge(all_iv.data, all_iv.len);
        if (all_iv.len) {
            const gd_iv *av = all_iv.data;
            int64_t span = av[all_iv.len - 1].e - av[0].s;
            int64_t busy = gd_iv_sum(av, all_iv.len);
            comp_iv.len = gd_iv_merge(comp_iv.data, comp_iv.len);
            int64_t comp = gd_iv_sum(comp_iv.data, comp_iv.len);
            d->span_us = ns_to_us(span);
            d->idle_us = ns_to_us(span - busy);
            d->compute_us = ns_to_us(comp);
            d->non_compute_us = ns_to_us(busy - comp);
        }
        comm_iv.len = gd_iv_merge(comm_iv.data, comm_iv.len);
        if (comm_iv.len) {
            int64_t comm = gd_iv_sum(comm_iv.data, comm_iv.len);
            int64_t ov = gd_iv_intersect_len(comm_iv.data, comm_iv.len, comp_iv.data, comp_iv.len);
            d->comm_time_us = ns_to_us(comm);
            d->comm_overlap = comm > 0 ? (double)ov / (double)comm : NAN;
        }
    }
    rc = 0;
out:
    gd_vec_free(&kiv);
    gd_vec_free(&all_iv);
    gd_vec_free(&comp_iv);
    gd_vec_free(&comm_iv);
    gd_vec_free(&eps);
    return rc;
}

/* ---- kernels by name ----------------------------------------------------- */

typedef struct kagg {
    uint64_t calls;
    int64_t total, min, max;
} kagg;

static int cmp_kstat(const void *pa, const void *pb)
{
    const gpudiag_kernel_stat *a = pa, *b = pb;
    if (a->total_us != b->total_us)
        return a->total_us > b->total_us ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int build_kernels(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    uint32_t nn = t->names.count;
    kagg *agg = calloc(nn ? nn : 1, sizeof *agg);
    if (!agg)
        return -1;
    int64_t *durs = malloc((t->gpu_ops.len + 1) * sizeof *durs);
    if (!durs) {
        free(agg);
        return -1;
    }
    size_t nd = 0;
    int64_t total = 0;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->kind != GD_GPU_KERNEL)
            continue;
        kagg *k = &agg[op->name_id];
        if (k->calls == 0 || op->dur_ns < k->min)
            k->min = op->dur_ns;
        if (k->calls == 0 || op->dur_ns > k->max)
            k->max = op->dur_ns;
        k->calls++;
        k->total += op->dur_ns;
        total += op->dur_ns;
        durs[nd++] = op->dur_ns;
    }
    r->kernel_count = nd;
    r->kernel_time_us = ns_to_us(total);
    if (nd) {
        if (gd_radix_sort_i64(durs, nd, sizeof *durs, 0) != 0)
            qsort(durs, nd, sizeof *durs, gd_cmp_i64);
        /* median: mean of the two middle values for an even count */
        r->median_kernel_us = nd % 2 ? ns_to_us(durs[nd / 2]) : (ns_to_us(durs[nd / 2 - 1]) + ns_to_us(durs[nd / 2])) / 2;
    }
    free(durs);
    size_t nk = 0;
    for (uint32_t i = 0; i < nn; i++)
        if (agg[i].calls)
            nk++;
    r->kernel_stats = calloc(nk ? nk : 1, sizeof *r->kernel_stats);
    if (!r->kernel_stats) {
        free(agg);
        return -1;
    }
    size_t j = 0;
    double matmul_us = 0, matmul_tc_us = 0;
    for (uint32_t i = 0; i < nn; i++) {
        if (!agg[i].calls)
            continue;
        gpudiag_kernel_stat *ks = &r->kernel_stats[j];
        const char *nm = gd_strtab_get(&t->names, i);
        size_t nl = gd_strtab_len(&t->names, i);
        ks->name = gd_utf8_clean(nm, nl);
        if (!ks->name) {
            r->kernel_stat_count = j;
            free(agg);
            return -1;
        }
        ks->cls = gd_kernel_class(nm, nl);
        ks->tensor_core = gd_kernel_uses_tensor_cores(nm, nl);
        ks->calls = agg[i].calls;
        ks->total_us = ns_to_us(agg[i].total);
        ks->mean_us = ks->total_us / (double)agg[i].calls;
        ks->min_us = ns_to_us(agg[i].min);
        ks->max_us = ns_to_us(agg[i].max);
        ks->share = total > 0 ? (double)agg[i].total / (double)total : NAN;
        r->class_time_us[ks->cls] += ks->total_us;
        if (ks->cls == GPUDIAG_KCLASS_GEMM || ks->cls == GPUDIAG_KCLASS_CONV || ks->cls == GPUDIAG_KCLASS_ATTENTION) {
            matmul_us += ks->total_us;
            if (ks->tensor_core)
                matmul_tc_us += ks->total_us;
        }
        j++;
    }
    r->matmul_tensor_core_share = matmul_us > 0 ? matmul_tc_us / matmul_us : NAN;
    r->kernel_stat_count = j;
    qsort(r->kernel_stats, j, sizeof *r->kernel_stats, cmp_kstat);
    free(agg);
    return 0;
}

/* ---- HTA kernel launch statistics ----------------------------------------- */

typedef struct dev_op_key {
    int64_t ts;
    int64_t dev;
    uint32_t idx;
    uint32_t pad;
} dev_op_key;

/* Per GPU op: 1 when its device ran no op during the GD_IDLE_BEFORE_NS before
 * it started (no op of the device started earlier and ended later than
 * start − GD_IDLE_BEFORE_NS; ops starting at the same instant do not count).
 * DEFINITIONS "Kernels", HTA outliers.  NULL on OOM. */
#define GD_IDLE_BEFORE_NS 30000 /* HTA's kernel_wait bound: shorter gaps are kernel-to-kernel overhead */
static uint8_t *idle_before(const gpudiag_trace *t)
{
    size_t n = t->gpu_ops.len;
    uint8_t *idle = calloc(n ? n : 1, 1);
    dev_op_key *k = malloc((n ? n : 1) * sizeof *k);
    if (!idle || !k)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        k[i].ts = op->ts_ns;
        k[i].dev = op->device;
        k[i].idx = (uint32_t)i;
        k[i].pad = 0;
    }
    if (gd_radix_sort_i64(k, n, sizeof *k, offsetof(dev_op_key, ts)) != 0 ||
        gd_radix_sort_i64(k, n, sizeof *k, offsetof(dev_op_key, dev)) != 0)
        goto oom;
    for (size_t i0 = 0; i0 < n;) {
        size_t i1 = i0;
        while (i1 < n && k[i1].dev == k[i0].dev)
            i1++;
        int64_t end = INT64_MIN; /* latest end of the ops that started before the current instant */
        for (size_t i = i0; i < i1;) {
            size_t j = i;
            while (j < i1 && k[j].ts == k[i].ts)
                j++;
            int is_idle = end == INT64_MIN || k[i].ts - end >= GD_IDLE_BEFORE_NS;
            for (size_t m = i; m < j; m++) {
                const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, k[m].idx);
                idle[k[m].idx] = (uint8_t)is_idle;
                if (op->ts_ns + op->dur_ns > end)
                    end = op->ts_ns + op->dur_ns;
            }
            i = j;
        }
        i0 = i1;
    }
    free(k);
    return idle;
oom:
    free(k);
    free(idle);
    return NULL;
}

static int build_launch_stats(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    size_t nops = t->gpu_ops.len;
    double *delays = malloc((nops + 1) * sizeof *delays);
    uint8_t *gpu_idle = idle_before(t);
    if (!delays || !gpu_idle) {
        free(delays);
        free(gpu_idle);
        return -1;
    }
    /* Optimizer.step host intervals, merged, for the optimizer statistics */
    gd_vec optv;
    gd_vec_init(&optv, sizeof(gd_iv));
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        if (c->cat == GD_CPU_GPU_ANNOT)
            continue;
        const char *nm = gd_strtab_get(&t->names, c->name_id);
        if (gd_starts_with(nm, gd_strtab_len(&t->names, c->name_id), "Optimizer.step#") &&
            gd_iv_push(&optv, c->ts_ns, c->ts_ns + gd_cpu_dur(t, c)) != 0) {
            gd_vec_free(&optv);
            free(delays);
            free(gpu_idle);
            return -1;
        }
    }
    optv.len = gd_iv_merge(optv.data, optv.len);
    const gd_iv *opt = optv.data;
    if (a->nsteps) {
        gd_iv span = {a->span_s, a->span_e};
        r->optimizer_time_us = ns_to_us(gd_iv_intersect_len(opt, optv.len, &span, 1));
    }
    size_t nd = 0, nshort = 0;
    for (size_t i = 0; i < nops; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        const gd_runtime *rt = (op->flags & GD_GF_HAS_CORR) ? gd_runtime_for(a, op->correlation) : NULL;
        if (!rt)
            r->gpu_ops_unlinked++; /* no launch call: HTA's join drops it, gpudiag keeps it */
        if (op->kind != GD_GPU_KERNEL || !rt)
            continue;
        r->linked_kernels++;
        int64_t rdur = gd_rt_dur(t, rt);
        int64_t delay = op->ts_ns - (rt->ts_ns + rdur);
        if (delay < 0)
            delay = 0;
        delays[nd++] = ns_to_us(delay);
        /* HTA: short kernel = CPU launch <= 50 µs and GPU time < CPU launch time */
        if (rdur <= 50000 && op->dur_ns < rdur)
            nshort++;
        /* HTA outliers: launch call > 50 µs on the CPU; launch delay > 100 µs */
        if (rdur > 50000)
            r->runtime_outliers++;
        if (delay > 100000) {
            r->launch_delay_outliers++;
            if (gpu_idle[i])
                r->launch_delay_outliers_gpu_idle++;
        }
        if (gd_iv_contains(opt, optv.len, rt->ts_ns)) {
            r->optimizer_kernels++;
            r->optimizer_kernel_time_us += ns_to_us(op->dur_ns);
            if (gd_name_flags(a, op->name_id) & NF_FUSED_OPT)
                r->optimizer_fused_kernels++;
        }
    }
    if (nd) {
        r->short_kernel_share = (double)nshort / (double)nd;
        gpudiag_stats_us st;
        gd_stats_compute(delays, nd, &st);
        r->launch_delay_median_us = st.median;
    }
    gd_vec_free(&optv);
    free(delays);
    free(gpu_idle);
    return 0;
}

/* ---- host<->device copies -------------------------------------------------- */

/* Memcpys that start inside the steps span, by direction from Kineto's names
 * ("Memcpy HtoD (Pageable -> Device)"), and those touching pageable memory. */
static void build_transfers(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    if (!a->nsteps)
        return;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->ts_ns < a->span_s || op->ts_ns >= a->span_e)
            continue;
        unsigned nf = gd_name_flags(a, op->name_id);
        if (op->kind == GD_GPU_KERNEL && gd_flags_class(nf) == GPUDIAG_KCLASS_GEMM) {
            /* GEMM fill: Kineto's blocks per SM = grid blocks / SM count */
            double d = ns_to_us(op->dur_ns);
            r->gemm_calls++;
            r->gemm_time_us += d;
            if (op->flags & GD_GF_HAS_BPS) {
                r->gemm_blocks_known_us += d;
                if (op->blocks_per_sm >= 0 && op->blocks_per_sm < 1) {
                    r->gemm_underfilled_us += d;
                    r->gemm_sm_idle_us += d * (1.0 - op->blocks_per_sm);
                }
            }
            continue;
        }
        if (op->kind != GD_GPU_MEMCPY)
            continue;
        gpudiag_copy_kind k = gd_flags_copy_kind(nf);
        double bytes = op->bytes > 0 ? (double)op->bytes : 0.0;
        r->transfers[k].count++;
        r->transfers[k].bytes += bytes;
        r->transfers[k].time_us += ns_to_us(op->dur_ns);
        if (nf & NF_PAGEABLE) {
            r->pageable.count++;
            r->pageable.bytes += bytes;
            r->pageable.time_us += ns_to_us(op->dur_ns);
        }
    }
}

/* ---- communication kernels in order (input of the cross-rank analysis) ---- */

typedef struct ts_dur {
    int64_t ts, dur;
} ts_dur;

static int build_comm_sequence(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    if (!a->nsteps)
        return 0;
    int dev = INT32_MAX;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->kind == GD_GPU_KERNEL && a->op_is_comm[i] && op->device < dev)
            dev = op->device;
    }
    if (dev == INT32_MAX)
        return 0;
    gd_vec v;
    gd_vec_init(&v, sizeof(ts_dur));
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->kind != GD_GPU_KERNEL || !a->op_is_comm[i] || op->device != dev || op->ts_ns < a->span_s ||
            op->ts_ns >= a->span_e || op->dur_ns == 0)
            continue; /* a zero-length collective carries no timing (CUPTI artefact) */
        ts_dur x = {op->ts_ns, op->dur_ns};
        if (!gd_vec_push(&v, &x)) {
            gd_vec_free(&v);
            return -1;
        }
    }
    if (gd_radix_sort_i64(v.data, v.len, sizeof(ts_dur), offsetof(ts_dur, ts)) != 0 ||
        !(r->comm_kernel_us = malloc((v.len + 1) * sizeof *r->comm_kernel_us))) {
        gd_vec_free(&v);
        return -1;
    }
    for (size_t i = 0; i < v.len; i++)
        r->comm_kernel_us[i] = ns_to_us(((ts_dur *)v.data)[i].dur);
    r->comm_kernel_count = v.len;
    gd_vec_free(&v);
    return 0;
}

/* Communication kernel time by kind (DEFINITIONS "Communication", collective kinds;
 * the kind from model/collective.h: args, else the launching host call, else the name). */
static int build_comm_kinds(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    if (!a->nsteps)
        return 0;
    gd_coll_join j;
    if (gd_coll_join_init(&j, t) != 0)
        return -1;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->kind != GD_GPU_KERNEL || !a->op_is_comm[i] || op->ts_ns < a->span_s || op->ts_ns >= a->span_e)
            continue;
        const gd_runtime *rt = (op->flags & GD_GF_HAS_CORR) ? gd_runtime_for(a, op->correlation) : NULL;
        gpudiag_comm_kind k = gd_coll_kind(&j, op, rt, NULL);
        r->comm_kind_us[k] += ns_to_us(op->dur_ns);
    }
    gd_coll_join_free(&j);
    return 0;
}

/* ---- summary ------------------------------------------------------------ */

static void build_summary(actx *a)
{
    gpudiag_report *r = a->r;
    double util = 0, sm = 0, occ = 0, tc = 0, kt = 0;
    size_t nu = 0, ns = 0, no = 0;
    double span = 0, idle = 0, comp = 0, noncomp = 0, comm = 0, ov = 0;
    for (size_t i = 0; i < r->device_count; i++) {
        const gpudiag_device *d = &r->devices[i];
        if (!isnan(d->gpu_utilization)) {
            util += d->gpu_utilization;
            nu++;
        }
        if (!isnan(d->sm_efficiency)) {
            sm += d->sm_efficiency;
            ns++;
        }
        if (!isnan(d->achieved_occupancy)) {
            occ += d->achieved_occupancy;
            no++;
        }
        if (!isnan(d->tensor_core_share)) {
            tc += d->tensor_core_share * d->kernel_time_us;
            kt += d->kernel_time_us;
        }
        if (!isnan(d->span_us)) {
            span += d->span_us;
            idle += d->idle_us;
            comp += d->compute_us;
            noncomp += d->non_compute_us;
        }
        if (!isnan(d->comm_time_us)) {
            comm += d->comm_time_us;
            ov += d->comm_overlap * d->comm_time_us;
        }
    }
    r->gpu_utilization = nu ? util / (double)nu : NAN;
    r->sm_efficiency = ns ? sm / (double)ns : NAN;
    r->achieved_occupancy = no ? occ / (double)no : NAN;
    r->tensor_core_share = kt > 0 ? tc / kt : NAN;
    if (span > 0) {
        r->idle_share = idle / span;
        r->compute_share = comp / span;
        r->non_compute_share = noncomp / span;
    }
    r->comm_overlap = comm > 0 ? ov / comm : NAN;
    if (r->step_count && r->avg_step_us > 0)
        r->comm_share = r->avg_role_us[GPUDIAG_ROLE_COMMUNICATION] / r->avg_step_us;
    double *d = malloc((r->step_count + 1) * sizeof *d);
    if (d) {
        for (size_t i = 0; i < r->step_count; i++)
            d[i] = r->steps[i].duration_us;
        gd_stats_compute(d, r->step_count, &r->step_time);
        free(d);
    }
}

/* ---- entry point ---------------------------------------------------------- */

static int build_corr_index(actx *a)
{
    const gpudiag_trace *t = a->t;
    size_t n = t->gpu_ops.len;
    a->corr = malloc((n + 1) * sizeof *a->corr);
    a->op_is_comm = calloc(n + 1, 1);
    a->nflags = calloc((size_t)t->names.count + 1, sizeof *a->nflags);
    a->rt_index = malloc((t->runtimes.len + 1) * sizeof *a->rt_index);
    if (!a->corr || !a->op_is_comm || !a->nflags || !a->rt_index)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        if (rt->correlation < 0)
            continue;
        a->rt_index[m].correlation = rt->correlation;
        a->rt_index[m].idx = (uint32_t)i;
        a->rt_index[m].pad = 0;
        m++;
    }
    a->nrt_index = m;
    /* stable: a correlation used twice resolves to the call seen first */
    if (gd_radix_sort_i64(a->rt_index, m, sizeof *a->rt_index, offsetof(rt_corr_entry, correlation)) != 0)
        return -1;
    int64_t *ext = NULL;
    size_t next = t->comm_ext_ids.len;
    if (next) {
        ext = malloc(next * sizeof *ext);
        if (!ext)
            return -1;
        memcpy(ext, t->comm_ext_ids.data, next * sizeof *ext);
        qsort(ext, next, sizeof *ext, gd_cmp_i64);
    }
    /* TBP disables the comm-op link when both NCCL and Gloo ops appear */
    int use_ext = next && !(t->has_nccl_ops && t->has_gloo_ops);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->flags & GD_GF_HAS_CORR) {
            a->corr[k].correlation = op->correlation;
            a->corr[k].op = (uint32_t)i;
            k++;
        }
        if (op->kind != GD_GPU_KERNEL)
            continue;
        int comm = 0;
        if (use_ext && (op->flags & GD_GF_HAS_EXT) &&
            bsearch(&op->external_id, ext, next, sizeof *ext, gd_cmp_i64))
            comm = 1;
        if (!comm)
            comm = (gd_name_flags(a, op->name_id) & NF_COMM) != 0;
        a->op_is_comm[i] = (uint8_t)comm;
    }
    free(ext);
    a->ncorr = k;
    if (gd_radix_sort_i64(a->corr, k, sizeof *a->corr, offsetof(corr_entry, correlation)) != 0)
        qsort(a->corr, k, sizeof *a->corr, cmp_corr); /* stable radix keeps op order within a correlation */
    return 0;
}

static void report_init(gpudiag_report *r)
{
    r->gpu_utilization = r->sm_efficiency = r->achieved_occupancy = r->tensor_core_share = NAN;
    r->idle_share = r->compute_share = r->non_compute_share = NAN;
    r->comm_share = r->comm_overlap = r->mfu = r->hfu = NAN;
    r->short_kernel_share = r->median_kernel_us = r->launch_delay_median_us = NAN;
    r->optimizer_time_us = r->matmul_tensor_core_share = NAN;
    r->avg_step_us = r->idle_step_us = NAN;
    for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++)
        r->avg_role_us[i] = NAN;
    r->step_time.mean = r->step_time.median = r->step_time.p90 = NAN;
    r->step_time.min = r->step_time.max = r->step_time.stddev = NAN;
}

gpudiag_status gpudiag_analyze(const gpudiag_trace *t, const gpudiag_analyze_opts *opts, gpudiag_report **out,
                               gpudiag_error *err)
{
    if (!t || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "gpudiag_analyze: NULL trace or out");
    *out = NULL;
    if (t->header_only)
        return gd_set_error(err, GPUDIAG_ERR_ARG, t->path, -1, "gpudiag_analyze: a header-only read holds no events");
    gpudiag_report *r = calloc(1, sizeof *r);
    if (!r)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, t->path, -1, "out of memory");
    report_init(r);
    actx a;
    memset(&a, 0, sizeof a);
    a.t = t;
    a.r = r;
    a.max_gaps = opts ? opts->max_gaps : 0;

    gpudiag_input_info *in = &r->input;
    in->path = gd_utf8_clean(t->path, strlen(t->path));
    in->format = t->nsys.present ? "nsys" : "kineto";
    in->bytes = t->bytes;
    in->events = t->events;
    in->truncated = t->truncated;
    in->truncated_at = t->truncated_at;
    in->trailing_at = t->trailing_at;
    in->skipped_malformed = t->skipped_malformed;
    in->skipped_no_dur = t->skipped_no_dur;
    in->skipped_zero_ts = t->skipped_zero_ts;
    in->skipped_bad_value = t->skipped_bad_value;
    in->overrun_ops = t->overrun_ops;
    in->overrun_removed_us = ns_to_us(t->overrun_removed_ns);
    in->time_outliers = t->time_outliers;
    in->time_outlier_first_at = t->time_outliers ? t->time_outlier_first_at : -1;
    in->time_outlier_gap_us = t->time_outliers ? ns_to_us(t->time_outlier_gap_ns) : 0;
    in->duration_outliers = t->duration_outliers;
    in->duration_outlier_removed_us = ns_to_us(t->duration_outlier_removed_ns);
    in->rank = t->rank;
    in->world_size = t->world_size;
    r->is_amd = t->is_amd;
    r->has_gpu = t->gpu_ops.len > 0;
    in->legacy_profiler = t->legacy_events > 0;
    in->legacy_launches = t->legacy_launch_arrows;
    in->profiler_ranges = t->profiler_ranges;
    unanalysed_devices(t, in);
    int strings_ok = 1;
    if (t->nsys.present) {
        gpudiag_nsys_info *ni = &in->nsys;
        ni->present = 1;
        ni->version = gd_utf8_clean(t->nsys.version, strlen(t->nsys.version));
        ni->session_start_utc_ns = t->nsys.session_start_utc_ns;
        ni->kernels = t->nsys.kernels;
        ni->memcpys = t->nsys.memcpys;
        ni->memsets = t->nsys.memsets;
        ni->runtime_calls = t->nsys.runtime_calls;
        ni->nvtx_ranges = t->nsys.nvtx_ranges;
        ni->runtime_duplicates = t->nsys.runtime_duplicates;
        ni->mpi_calls = t->nsys.mpi_calls;
        ni->sync_events = t->nsys.sync_events;
        ni->graph_kernels = t->nsys.graph_kernels;
        ni->graph_events = t->nsys.graph_events;
        ni->graph_execs = t->nsys.graph_execs;
        ni->graph_exec_time_us = ns_to_us(t->nsys.graph_exec_ns);
        ni->schema_gaps = gd_utf8_clean(t->nsys.schema_gaps, strlen(t->nsys.schema_gaps));
        ni->schema_gap_count = t->nsys.schema_gap_count;
        ni->steps_source = gd_utf8_clean(t->nsys.steps_source, strlen(t->nsys.steps_source));
        strings_ok = ni->version && ni->schema_gaps && ni->steps_source;
        r->nsight = t->nsys.rules;
    } else {
        r->nsight.gap_max_us = NAN;
        r->nsight.util_min = NAN;
    }
    if (t->step_range[0]) {
        in->step_range = gd_utf8_clean(t->step_range, strlen(t->step_range));
        strings_ok = strings_ok && in->step_range;
        in->step_range_missing = t->step_range_missing;
        if (t->step_range_missing) {
            in->step_range_candidates = range_candidates(t);
            strings_ok = strings_ok && in->step_range_candidates;
        }
    }
    in->steps_selected = t->steps_selected;
    in->steps_first = t->steps_first;
    in->steps_last = t->steps_last;
    in->steps_before_selection = t->steps_before_selection;

    if (!in->path || !strings_ok || build_corr_index(&a) || build_steps(&a) || build_breakdown(&a) || build_devices(&a) ||
        build_kernels(&a) || build_launch_stats(&a) || gd_build_idle(&a))
        goto oom;
    build_transfers(&a);
    if (build_comm_kinds(&a) != 0 || build_comm_sequence(&a) != 0)
        goto oom;
    build_summary(&a);
    gd_build_steady(r);
    gd_build_mfu(r, opts);
    if (gd_build_roofline(t, r, opts) != 0)
        goto oom;
    if (gd_diagnose(t, r) != 0)
        goto oom;
    free(a.corr);
    free(a.op_is_comm);
    free(a.steps);
    free(a.nflags);
    free(a.rt_index);
    *out = r;
    return GPUDIAG_OK;
oom:
    free(a.corr);
    free(a.op_is_comm);
    free(a.steps);
    free(a.nflags);
    free(a.rt_index);
    gpudiag_report_free(&r);
    return gd_set_error(err, GPUDIAG_ERR_NOMEM, t->path, -1, "out of memory");
}
