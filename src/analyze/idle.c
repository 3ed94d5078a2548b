/*
 * idle.c — who makes the GPU wait.
 *
 * Two views of GPU idle time:
 *  1. HTA's idle-time breakdown per stream (get_idle_time_breakdown): each gap
 *     between consecutive ops on a stream is host_wait (the next op's launch
 *     call started after the stream went idle), kernel_wait (< 30 µs) or other.
 *  2. gpudiag's attribution of every device-idle gap inside the steps (no op on
 *     any stream of the device) to the host activity that explains it: a sync
 *     call that was waiting when the GPU drained, else the host activity that
 *     overlaps the gap most (DataLoader, collective calls, optimizer, other ops
 *     and launch calls), else "other".  The largest gaps are kept with the host
 *     op that was running, so they can be found in a trace viewer.
 * Both are linear after one sort per set.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/intervals.h"
#include "model/trace.h"
#include "util/util.h"

#define GD_TOP_GAPS 10
#define GD_KERNEL_WAIT_NS 30000      /* HTA consecutive_kernel_delay: 30 µs in practice */
#define GD_SYNC_SLACK_NS 5000        /* a sync returns a few µs after the GPU drains */
#define GD_MAX_LAUNCH_QUEUE 1024     /* HTA: CUDA_MAX_LAUNCH_QUEUE_PER_STREAM */

enum { HOST_SYNC = 0, HOST_DATALOADER, HOST_COMM, HOST_OPTIMIZER, HOST_OTHER, HOST_SETS };

/* |[s,e) ∩ set| for a merged set; *hint is a moving start index (gaps come in order). */
static int64_t overlap(const gd_vec *set, size_t *hint, int64_t s, int64_t e)
{
    const gd_iv *a = set->data;
    size_t i = *hint;
    while (i < set->len && a[i].e <= s)
        i++;
    *hint = i;
    int64_t sum = 0;
    for (; i < set->len && a[i].s < e; i++) {
        int64_t lo = a[i].s > s ? a[i].s : s;
        int64_t hi = a[i].e < e ? a[i].e : e;
        if (lo < hi)
            sum += hi - lo;
    }
    return sum;
}

typedef struct op_key {
    int64_t ts;
    int64_t lane;     /* device << 32 | stream */
    uint32_t idx;
    uint32_t pad;
} op_key;

typedef struct q_event {
    int64_t key;            /* 2 x time + (0 launch, 1 op start): launches first at equal times */
    int64_t delta;
} q_event;

/* HTA idle-time breakdown per stream. */
static int stream_breakdown(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    size_t n = t->gpu_ops.len;
    if (n == 0)
        return 0;
    op_key *k = malloc(n * sizeof *k);
    q_event *qe = malloc(2 * n * sizeof *qe);
    if (!k || !qe)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        k[i].ts = op->ts_ns;
        /* device (>= -1) in the high half, stream in the low half; sorted as
         * signed: devices in order, streams in unsigned order within one */
        k[i].lane = (int64_t)(((uint64_t)(uint32_t)(op->device + 1) << 32) | (uint64_t)(uint32_t)op->stream);
        k[i].idx = (uint32_t)i;
        k[i].pad = 0;
    }
    /* by lane, then by start: two stable passes */
    if (gd_radix_sort_i64(k, n, sizeof *k, offsetof(op_key, ts)) != 0 ||
        gd_radix_sort_i64(k, n, sizeof *k, offsetof(op_key, lane)) != 0)
        goto oom;
    size_t lanes = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || k[i].lane != k[i - 1].lane)
            lanes++;
    r->stream_idle = calloc(lanes, sizeof *r->stream_idle);
    if (!r->stream_idle)
        goto oom;
    for (size_t i0 = 0; i0 < n;) {
        size_t i1 = i0;
        while (i1 < n && k[i1].lane == k[i0].lane)
            i1++;
        gpudiag_stream_idle *si = &r->stream_idle[r->stream_idle_count++];
        const gd_gpu_op *first = gd_vec_at(&t->gpu_ops, k[i0].idx);
        si->device = first->device;
        si->stream = first->stream;
        si->ops = i1 - i0;
        si->queue_mean = NAN;
        int64_t prev_end = first->ts_ns + first->dur_ns;
        size_t nq = 0;
        for (size_t i = i0; i < i1; i++) {
            const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, k[i].idx);
            const gd_runtime *rt = (op->flags & GD_GF_HAS_CORR) ? gd_runtime_for(a, op->correlation) : NULL;
            /* HTA idle breakdown: the gap before each op but the first */
            int64_t gap = op->ts_ns - prev_end;
            if (i > i0 && gap > 0) {
                if (rt && rt->ts_ns > prev_end)
                    si->host_wait_us += (double)gap / 1000.0;
                else if (gap < GD_KERNEL_WAIT_NS)
                    si->kernel_wait_us += (double)gap / 1000.0;
                else
                    si->other_us += (double)gap / 1000.0;
            }
            /* HTA takes the previous op's end; an op that ends earlier than one
             * before it (overlap on a stream) must not reopen a gap */
            if (op->ts_ns + op->dur_ns > prev_end)
                prev_end = op->ts_ns + op->dur_ns;
            /* HTA queue length: +1 at a counted launch call, -1 when its op starts */
            if (rt && (gd_name_flags(a, rt->name_id) & NF_QLAUNCH)) {
                qe[nq].key = 2 * rt->ts_ns; /* launches before op starts at equal times */
                qe[nq++].delta = 1;
                qe[nq].key = 2 * op->ts_ns + 1;
                qe[nq++].delta = -1;
            }
        }
        if (nq) {
            if (gd_radix_sort_i64(qe, nq, sizeof *qe, offsetof(q_event, key)) != 0)
                goto oom;
            /* summarised over the series' values, as pandas describe() does */
            int64_t q = 0, sum = 0;
            for (size_t e = 0; e < nq; e++) {
                q += qe[e].delta;
                sum += q;
                if (q > si->queue_max)
                    si->queue_max = q;
                if (q >= GD_MAX_LAUNCH_QUEUE && e + 1 < nq)
                    si->full_queue_us += (double)(qe[e + 1].key / 2 - qe[e].key / 2) / 1000.0;
            }
            si->queue_mean = (double)sum / (double)nq;
        }
        i0 = i1;
    }
    free(qe);
    free(k);
    return 0;
oom:
    free(qe);
    free(k);
    return -1;
}

static void keep_top(gpudiag_gap *top, size_t *count, const gpudiag_gap *g)
{
    size_t n = *count;
    if (n == GD_TOP_GAPS && g->duration_us <= top[n - 1].duration_us)
        return;
    size_t pos = n < GD_TOP_GAPS ? n : n - 1;
    while (pos > 0 && top[pos - 1].duration_us < g->duration_us) {
        top[pos] = top[pos - 1];
        pos--;
    }
    top[pos] = *g;
    if (n < GD_TOP_GAPS)
        *count = n + 1;
}

/* Innermost host op (latest start) running at time `at`, excluding GPU-side annotations. */
static const char *op_at(const gpudiag_trace *t, int64_t at)
{
    const gd_cpu_op *best = NULL;
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        if (c->cat == GD_CPU_GPU_ANNOT || c->ts_ns > at || c->ts_ns + c->dur_ns <= at)
            continue;
        if (!best || c->ts_ns > best->ts_ns || (c->ts_ns == best->ts_ns && c->dur_ns < best->dur_ns))
            best = c;
    }
    return best ? gd_strtab_get(&t->names, best->name_id) : NULL;
}

static int64_t step_at(const actx *a, int64_t at)
{
    for (size_t i = 0; i < a->nsteps; i++)
        if (a->steps[i].s <= at && at < a->steps[i].e)
            return a->r->steps[i].number;
    return -1;
}

int gd_build_idle(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    if (stream_breakdown(a) != 0)
        return -1;
    if (!a->nsteps || t->gpu_ops.len == 0 || a->span_e <= a->span_s)
        return 0;

    int rc = -1;
    gd_vec host[HOST_SETS], busy, idle;
    for (int h = 0; h < HOST_SETS; h++)
        gd_vec_init(&host[h], sizeof(gd_iv));
    gd_vec_init(&busy, sizeof(gd_iv));
    gd_vec_init(&idle, sizeof(gd_iv));
    gpudiag_gap *top = calloc(GD_TOP_GAPS, sizeof *top);
    size_t ntop = 0;
    if (!top)
        goto out;

    /* host activity sets */
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        int64_t e = rt->ts_ns + rt->dur_ns;
        if (gd_name_flags(a, rt->name_id) & NF_SYNC) {
            if (gd_iv_push(&host[HOST_SYNC], rt->ts_ns, e))
                goto out;
            if (rt->ts_ns < a->span_e && e > a->span_s) {
                r->sync_calls++;
                r->sync_time_us += (double)rt->dur_ns / 1000.0;
            }
        }
        if (gd_iv_push(&host[HOST_OTHER], rt->ts_ns, e))
            goto out;
    }
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        if (c->cat == GD_CPU_GPU_ANNOT || c->cat == GD_CPU_PYFUNC)
            continue;
        const char *nm = gd_strtab_get(&t->names, c->name_id);
        size_t nl = gd_strtab_len(&t->names, c->name_id);
        int h = HOST_OTHER;
        if (c->role == GD_CR_DATALOADER)
            h = HOST_DATALOADER;
        else if (c->role == GD_CR_COMM || gd_starts_with(nm, nl, "c10d::") || gd_starts_with(nm, nl, "nccl:") ||
                 gd_starts_with(nm, nl, "gloo:") || gd_starts_with(nm, nl, "record_param_comms"))
            h = HOST_COMM;
        else if (gd_starts_with(nm, nl, "Optimizer.step#") || gd_starts_with(nm, nl, "Optimizer.zero_grad#"))
            h = HOST_OPTIMIZER;
        if (gd_iv_push(&host[h], c->ts_ns, c->ts_ns + c->dur_ns))
            goto out;
    }
    for (int h = 0; h < HOST_SETS; h++)
        host[h].len = gd_iv_merge(host[h].data, host[h].len);

    for (size_t di = 0; di < r->device_count; di++) {
        int dev = r->devices[di].id;
        busy.len = 0;
        for (size_t i = 0; i < t->gpu_ops.len; i++) {
            const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
            if (op->device == dev && gd_iv_push(&busy, op->ts_ns, op->ts_ns + op->dur_ns))
                goto out;
        }
        busy.len = gd_iv_merge(busy.data, busy.len);
        if (gd_vec_reserve(&idle, busy.len + 2) != 0)
            goto out;
        gd_iv span = {a->span_s, a->span_e};
        idle.len = gd_iv_subtract(&span, 1, busy.data, busy.len, idle.data);
        size_t hint[HOST_SETS] = {0};
        for (size_t g = 0; g < idle.len; g++) {
            const gd_iv *gap = (const gd_iv *)idle.data + g;
            int64_t len = gap->e - gap->s;
            gpudiag_idle_cause cause = GPUDIAG_IDLE_OTHER;
            /* a sync call in progress when the GPU went idle */
            const gd_iv *sy = host[HOST_SYNC].data;
            size_t j = hint[HOST_SYNC];
            while (j < host[HOST_SYNC].len && sy[j].e + GD_SYNC_SLACK_NS < gap->s)
                j++;
            hint[HOST_SYNC] = j;
            if (j < host[HOST_SYNC].len && sy[j].s <= gap->s && sy[j].e + GD_SYNC_SLACK_NS >= gap->s) {
                cause = GPUDIAG_IDLE_SYNC;
            } else {
                /* a specific activity covering at least half of the gap names it
                 * (enclosing annotations such as "## forward ##" would otherwise
                 * cover every gap); else any host activity means the host was
                 * busy elsewhere, i.e. late to launch */
                static const int order[] = {HOST_DATALOADER, HOST_COMM, HOST_OPTIMIZER};
                static const gpudiag_idle_cause as[] = {GPUDIAG_IDLE_DATALOADER, GPUDIAG_IDLE_COMMUNICATION,
                                                        GPUDIAG_IDLE_OPTIMIZER};
                int64_t best = 0;
                for (size_t o = 0; o < 3; o++) {
                    int64_t ov = overlap(&host[order[o]], &hint[order[o]], gap->s, gap->e);
                    if (ov > best && 2 * ov >= len) {
                        best = ov;
                        cause = as[o];
                    }
                }
                if (best == 0 && overlap(&host[HOST_OTHER], &hint[HOST_OTHER], gap->s, gap->e) > 0)
                    cause = GPUDIAG_IDLE_HOST_LAUNCH;
            }
            r->idle_cause_us[cause] += (double)len / 1000.0;
            r->idle_gap_us += (double)len / 1000.0;
            r->idle_gap_count++;
            gpudiag_gap gg = {(double)gap->s / 1000.0, (double)len / 1000.0, gap->s, dev, -1, cause, NULL};
            keep_top(top, &ntop, &gg);
        }
    }
    for (size_t i = 0; i < ntop; i++) {
        int64_t at = top[i].start_ns;
        top[i].step = step_at(a, at);
        const char *nm = op_at(t, at);
        char stepname[64];
        if (!nm && top[i].step >= 0) {
            snprintf(stepname, sizeof stepname, "ProfilerStep#%lld", (long long)top[i].step);
            nm = stepname;
        }
        if (nm && !(top[i].cpu_op = gd_utf8_clean(nm, strlen(nm)))) {
            r->top_gaps = top;
            r->top_gap_count = i;
            top = NULL;
            goto out;
        }
    }
    r->top_gaps = top;
    r->top_gap_count = ntop;
    top = NULL;
    rc = 0;
out:
    for (int h = 0; h < HOST_SETS; h++)
        gd_vec_free(&host[h]);
    gd_vec_free(&busy);
    gd_vec_free(&idle);
    free(top);
    return rc;
}
