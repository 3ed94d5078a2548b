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
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/intervals.h"
#include "analyze/kclass.h"
#include "diagnose/rules.h"
#include "model/collective.h"
#include "model/trace.h"
#include "util/arena.h"
#include "util/util.h"

#define GD_TOP_GAPS 10
#define GD_KERNEL_WAIT_NS 30000      /* HTA consecutive_kernel_delay: 30 µs in practice */
#define GD_QUEUED_LATE_NS 100000     /* queued inside a gap, then waited >= 100 µs: far beyond a launch's latency */
#define GD_SYNC_SLACK_NS 5000        /* a sync returns a few µs after the GPU drains */
#define GD_LONG_CALL_US 100          /* a non-sync runtime call this long can hold a gap after a sync (rule 1) */
#define GD_LAUNCH_PACED_GAP_NS 100000 /* a host_launch gap longer is host work of its own (host_launch_bound) */
#define GD_MAX_LAUNCH_QUEUE 1024     /* HTA: CUDA_MAX_LAUNCH_QUEUE_PER_STREAM */

enum { HOST_SYNC = 0, HOST_DATALOADER, HOST_COMM, HOST_OPTIMIZER, HOST_OTHER, HOST_COMPILE, HOST_WARMUP, HOST_COALESCE,
       HOST_FIRST_CALL, HOST_MPI, HOST_ROLE, HOST_LONG_CALL, HOST_PROFILER, HOST_ALLOC, HOST_SETS }; /* HOST_ROLE: runtime calls and CPU Exec ops (TBP's host roles); HOST_ALLOC: the allocator's calls (r->alloc_idle_us) */

/* Host activity whose name shows torch.compile at work (DEFINITIONS "Idle gaps
 * and their causes", rule 0).  Not "TorchDynamo Cache Lookup" (the guard check
 * before every call) nor "Torch-Compiled Region" / "CompiledFunction" (running
 * compiled code). */
static int is_compile_name(const char *nm, size_t nl)
{
    static const char suffix[] = " (dynamo_timed)"; /* torch._dynamo.utils.dynamo_timed's record_function */
    if (nl >= sizeof suffix - 1 && memcmp(nm + nl - (sizeof suffix - 1), suffix, sizeof suffix - 1) == 0)
        return 1;
    static const char *const subs[] = {"torch/_dynamo/convert_frame.py", "torch._dynamo.convert_frame",
                                       "compile_fx", "torch/_inductor/codecache.py", "async_compile",
                                       "triton/compiler/", "triton.compile"};
    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++)
        if (gd_icontains(nm, nl, subs[i]))
            return 1;
    return 0;
}

/* Host activity running torch.compile'd code (not compiling it): the model is compiled already. */
static int is_compiled_code_name(const char *nm, size_t nl)
{
    return gd_icontains(nm, nl, "torch-compiled region") || gd_icontains(nm, nl, "compiledfunction") ||
           gd_icontains(nm, nl, "compiledfxgraph"); /* gd_icontains wants a lower-case needle */
}

/* Host activity named as warm-up ("warmup", "warm_up", "warm-up", any case). */
static int is_warmup_name(const char *nm, size_t nl)
{
    return gd_icontains(nm, nl, "warmup") || gd_icontains(nm, nl, "warm_up") || gd_icontains(nm, nl, "warm-up");
}

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

/* ---- timeline bins ---------------------------------------------------------
 * Bin i of n covers [ws + span·i/n, ws + span·(i+1)/n) in integer ns, so the
 * bins tile the window exactly. */
static int64_t bin_edge(int64_t ws, int64_t span, size_t nb, size_t i)
{
    if (span <= INT64_MAX / (int64_t)nb)
        return ws + span * (int64_t)i / (int64_t)nb;
    return ws + (int64_t)((double)span / (double)nb * (double)i); /* absurd spans: approximate, still monotonic */
}

static size_t bin_of(int64_t ws, int64_t span, size_t nb, int64_t t)
{
    size_t i = span <= INT64_MAX / (int64_t)nb ? (size_t)((t - ws) * (int64_t)nb / span)
                                               : (size_t)((double)(t - ws) / (double)span * (double)nb);
    if (i >= nb)
        i = nb - 1;
    while (i + 1 < nb && bin_edge(ws, span, nb, i + 1) <= t)
        i++;
    while (i > 0 && bin_edge(ws, span, nb, i) > t)
        i--;
    return i;
}

/* Add the part of [s,e) inside the window to the bins it covers, in µs. */
static void bin_add(double *bins, const gpudiag_timeline *tl, int64_t s, int64_t e)
{
    int64_t ws = tl->start_ns, we = tl->end_ns, span = we - ws;
    if (s < ws)
        s = ws;
    if (e > we)
        e = we;
    if (e <= s)
        return;
    for (size_t i = bin_of(ws, span, tl->bins, s); i < tl->bins && s < e; i++) {
        int64_t be = bin_edge(ws, span, tl->bins, i + 1);
        int64_t hi = e < be ? e : be;
        if (hi > s)
            bins[i] += ns_to_us(hi - s);
        s = hi;
    }
}

/* Raise the bins that [s,e] touches (an instant when s == e) to at least v. */
static void bin_max(double *bins, const gpudiag_timeline *tl, int64_t s, int64_t e, double v)
{
    int64_t ws = tl->start_ns, we = tl->end_ns, span = we - ws;
    if (e < ws || s >= we)
        return;
    if (s < ws)
        s = ws;
    int64_t last = e > s ? e - 1 : s;
    if (last >= we)
        last = we - 1;
    size_t i1 = bin_of(ws, span, tl->bins, last);
    for (size_t i = bin_of(ws, span, tl->bins, s); i <= i1; i++)
        if (bins[i] < v)
            bins[i] = v;
}

void gd_timeline_bin_max(double *bins, const gpudiag_timeline *tl, int64_t s, int64_t e, double v)
{
    bin_max(bins, tl, s, e, v);
}

static int64_t floor_half(int64_t k)
{
    return k >= 0 ? k / 2 : -((-k + 1) / 2);
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
    r->stream_idle = gd_arena_calloc(r->arena, lanes, sizeof *r->stream_idle);
    if (!r->stream_idle)
        goto oom;
    gpudiag_timeline *tl = &r->timeline;
    if (tl->bins) {
        tl->lanes = gd_arena_calloc(r->arena, lanes, sizeof *tl->lanes);
        if (!tl->lanes)
            goto oom;
    }
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
        gpudiag_timeline_lane *lane = NULL;
        if (tl->bins) {
            lane = &tl->lanes[tl->lane_count++];
            lane->device = first->device;
            lane->stream = first->stream;
            if (!(lane->busy_us = gd_arena_calloc(r->arena, tl->bins, sizeof *lane->busy_us)))
                goto oom;
            bin_add(lane->busy_us, tl, first->ts_ns, first->ts_ns + first->dur_ns);
        }
        int64_t prev_end = first->ts_ns + first->dur_ns;
        size_t nq = 0;
        for (size_t i = i0; i < i1; i++) {
            const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, k[i].idx);
            const gd_runtime *rt = gd_runtime_of_op(a, k[i].idx);
            /* HTA idle breakdown: the gap before each op but the first */
            int64_t gap = op->ts_ns - prev_end;
            if (i > i0 && gap > 0) {
                if (rt && rt->ts_ns > prev_end)
                    si->host_wait_us += ns_to_us(gap);
                else if (gap < GD_KERNEL_WAIT_NS)
                    si->kernel_wait_us += ns_to_us(gap);
                else
                    si->other_us += ns_to_us(gap);
            }
            /* HTA takes the previous op's end; an op that ends earlier than one
             * before it (overlap on a stream) must not reopen a gap */
            if (op->ts_ns + op->dur_ns > prev_end) {
                /* the stream's busy union grows by what this op adds */
                if (lane && i > i0)
                    bin_add(lane->busy_us, tl, op->ts_ns > prev_end ? op->ts_ns : prev_end, op->ts_ns + op->dur_ns);
                prev_end = op->ts_ns + op->dur_ns;
            }
            /* HTA queue length: +1 at a counted launch call, -1 when its op starts */
            if (rt && (gd_name_flags(a, rt->name_id) & NF_QLAUNCH)) {
                qe[nq].key = 2 * rt->ts_ns; /* launches before op starts at equal times */
                qe[nq++].delta = 1;
                /* an op recorded before its call (clocks that disagree, DEFINITIONS "Kernels",
                 * kernels before their launch) leaves the queue as it enters: never below 0 */
                qe[nq].key = 2 * (op->ts_ns > rt->ts_ns ? op->ts_ns : rt->ts_ns) + 1;
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
                    si->full_queue_us += ns_to_us(qe[e + 1].key / 2 - qe[e].key / 2);
            }
            si->queue_mean = (double)sum / (double)nq;
            if (lane) {
                /* the queue holds each value from its event to the next one */
                if (!(lane->queue_max = gd_arena_calloc(r->arena, tl->bins, sizeof *lane->queue_max)))
                    goto oom;
                q = 0;
                for (size_t e = 0; e < nq; e++) {
                    q += qe[e].delta;
                    if (q > 0) {
                        int64_t t0 = floor_half(qe[e].key);
                        int64_t t1 = e + 1 < nq ? floor_half(qe[e + 1].key) : t0;
                        bin_max(lane->queue_max, tl, t0, t1, (double)q);
                    }
                }
            }
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

/* The gaps kept in report->gaps when opts.max_gaps limits them: the longest,
 * ties the earlier first (the JSON writer's order), kept by gd_topk_push as
 * the gaps stream by.  pos is the gap's index among all gaps, which gives
 * back their order (device, then start) at the end. */
typedef struct kept_gap {
    gpudiag_gap g;
    uint64_t pos;
} kept_gap;

/* the longer first; as long: the earlier */
static int cmp_kept_len(const void *pa, const void *pb)
{
    const kept_gap *x = pa, *y = pb;
    if (x->g.duration_us != y->g.duration_us)
        return x->g.duration_us > y->g.duration_us ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int cmp_kept_pos(const void *pa, const void *pb)
{
    const kept_gap *x = pa, *y = pb;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
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

/* A host event overlapping a gap: a CPU op or a runtime/driver call. */
typedef struct gap_cand {
    int64_t ts, dur;      /* the event's own start and duration (innermost: later start, then shorter) */
    uint32_t name_id;
    uint32_t is_rt;       /* runtime calls run inside the op that made them */
    int64_t own;          /* time in the gap it was the innermost running host event */
} gap_cand;

typedef struct gap_edge {
    int64_t key;          /* 2 x time + (0 end, 1 start): ends first at equal times */
    int64_t cand;
} gap_edge;

/* cs[x] runs inside cs[y]: later start, then shorter, then a runtime call
 * before an op, then the later one in the trace (parents come first). */
static int inner_than(const gap_cand *cs, size_t x, size_t y)
{
    if (cs[x].ts != cs[y].ts)
        return cs[x].ts > cs[y].ts;
    if (cs[x].dur != cs[y].dur)
        return cs[x].dur < cs[y].dur;
    if (cs[x].is_rt != cs[y].is_rt)
        return cs[x].is_rt > cs[y].is_rt;
    return x > y;
}

/* The host events that overlap each of the gaps [s[g], e[g]) (g < ng), in
 * the trace's order (CPU ops, then runtime calls: inner_than's last tie), into
 * c[g] (gap_cand, empty on entry): one pass over the events for all the top
 * gaps.  0, or -1 on allocation failure. */
static int gap_cands(const gpudiag_trace *t, const int64_t *s, const int64_t *e, size_t ng, gd_vec *c)
{
    if (ng == 0)
        return 0;
    int64_t lo = s[0], hi = e[0]; /* an event outside [lo, hi) overlaps no gap */
    for (size_t g = 1; g < ng; g++) {
        lo = s[g] < lo ? s[g] : lo;
        hi = e[g] > hi ? e[g] : hi;
    }
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *op = gd_vec_at(&t->cpu_ops, i);
        if (op->ts_ns >= hi || op->cat == GD_CPU_GPU_ANNOT || op->cat == GD_CPU_PYFUNC)
            continue;
        int64_t d = gd_cpu_dur(t, op);
        if (d <= 0 || op->ts_ns + d <= lo)
            continue;
        for (size_t g = 0; g < ng; g++) {
            gap_cand gc = {op->ts_ns, d, op->name_id, 0, 0};
            if (op->ts_ns < e[g] && op->ts_ns + d > s[g] && !gd_vec_push(&c[g], &gc))
                return -1;
        }
    }
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        if (rt->ts_ns >= hi)
            continue;
        int64_t d = gd_rt_dur(t, rt);
        if (d <= 0 || rt->ts_ns + d <= lo)
            continue;
        for (size_t g = 0; g < ng; g++) {
            gap_cand gc = {rt->ts_ns, d, rt->name_id, 1, 0};
            if (rt->ts_ns < e[g] && rt->ts_ns + d > s[g] && !gd_vec_push(&c[g], &gc))
                return -1;
        }
    }
    return 0;
}

/* The host event that overlaps the gap [s,e) the most by its own time
 * (DEFINITIONS "Idle gaps and their causes", top_gaps), among its candidates
 * *cv (gap_cands): at each instant of the gap the innermost running CPU op or
 * runtime call (inner_than) owns it; the event owning the most time wins
 * (ties: the earlier start).  GPU-side annotations and python_function events
 * are not host activity.  Name or NULL (none overlaps); -1 in *oom on
 * allocation failure. */
static const char *gap_label(const gpudiag_trace *t, int64_t s, int64_t e, const gd_vec *cv, int *oom)
{
    gd_vec ed;
    gd_vec_init(&ed, sizeof(gap_edge));
    const char *name = NULL;
    const gd_vec c = *cv;
    gap_cand *cs = c.data;
    for (size_t i = 0; i < c.len; i++) {
        gap_edge a = {2 * (cs[i].ts > s ? cs[i].ts : s) + 1, (int64_t)i};
        gap_edge b = {2 * (cs[i].ts + cs[i].dur < e ? cs[i].ts + cs[i].dur : e), -(int64_t)i - 1};
        if (!gd_vec_push(&ed, &a) || !gd_vec_push(&ed, &b))
            goto oom;
    }
    if (ed.len && gd_radix_sort_i64(ed.data, ed.len, sizeof(gap_edge), offsetof(gap_edge, key)) != 0)
        goto oom;
    /* sweep: the running events in an unordered array (nesting depth x threads: short) */
    size_t *act = malloc((c.len ? c.len : 1) * sizeof *act), na = 0;
    size_t *pos = malloc((c.len ? c.len : 1) * sizeof *pos);
    if (!act || !pos) {
        free(act);
        free(pos);
        goto oom;
    }
    const gap_edge *es = ed.data;
    int64_t prev = s;
    for (size_t k = 0; k < ed.len; k++) {
        int64_t now = es[k].key >> 1;
        if (now > prev && na) {
            size_t in = act[0];
            for (size_t j = 1; j < na; j++)
                if (inner_than(cs, act[j], in))
                    in = act[j];
            cs[in].own += now - prev;
        }
        prev = now;
        if (es[k].cand >= 0) {
            pos[es[k].cand] = na;
            act[na++] = (size_t)es[k].cand;
        } else {
            size_t ci = (size_t)(-es[k].cand - 1), p = pos[ci];
            act[p] = act[--na];
            pos[act[p]] = p;
        }
    }
    free(act);
    free(pos);
    const gap_cand *best = NULL;
    for (size_t i = 0; i < c.len; i++)
        if (cs[i].own > 0 && (!best || cs[i].own > best->own || (cs[i].own == best->own && cs[i].ts < best->ts)))
            best = &cs[i];
    if (best)
        name = gd_strtab_get(&t->names, best->name_id);
    gd_vec_free(&ed);
    return name;
oom:
    *oom = 1;
    gd_vec_free(&ed);
    return NULL;
}

/* The step of the gap [s, e) (DEFINITIONS "A gap's step"): the step holding the most of it, the
 * later one on a tie; -1 when none overlaps it.  Steps are in start order; *hint (may be NULL) is
 * the first step that can overlap a gap starting at s or later, advanced here (gaps in time order). */
static int64_t step_of_gap(const actx *a, int64_t s, int64_t e, size_t *hint)
{
    size_t k = hint ? *hint : 0;
    while (k < a->nsteps && a->steps[k].e <= s)
        k++;
    if (hint)
        *hint = k;
    int64_t best = -1, most = -1;
    for (; k < a->nsteps && a->steps[k].s < (e > s ? e : s + 1); k++) {
        int64_t lo = a->steps[k].s > s ? a->steps[k].s : s, hi = a->steps[k].e < e ? a->steps[k].e : e;
        int64_t ov = hi - lo;
        if (a->steps[k].e <= s)
            continue; /* a shorter step inside an earlier one's span (steps sorted by start only) */
        if (ov >= most) {
            most = ov;
            best = a->r->steps[k].number;
        }
    }
    return best;
}

typedef struct rt_dur_key {
    uint32_t name_id;
    uint32_t idx;
    int64_t dur;
} rt_dur_key;

static int cmp_rt_dur(const void *x, const void *y)
{
    const rt_dur_key *p = x, *q = y;
    if (p->name_id != q->name_id)
        return p->name_id < q->name_id ? -1 : 1;
    return p->dur < q->dur ? -1 : p->dur > q->dur;
}

/* A stream capture call: its thread, start, end and kind (1 begin, 2 end). */
typedef struct {
    int32_t tid;
    int kind;
    int64_t s, e;
} cap_call;

static int cmp_cap_call(const void *x, const void *y)
{
    const cap_call *p = x, *q = y;
    if (p->tid != q->tid)
        return p->tid < q->tid ? -1 : 1;
    return p->s < q->s ? -1 : p->s > q->s;
}

/* Stream-capture spans, sorted by thread and start: from each begin capture call to the end of
 * the next end capture call on its thread (none: the end of time).  A kernel launch inside one is
 * recorded into a graph, not run (DEFINITIONS "Graph replays", capture).  0, or -1 on OOM. */
static int capture_spans(const actx *a, gd_vec *out)
{
    const gpudiag_trace *t = a->t;
    gd_vec calls;
    gd_vec_init(&calls, sizeof(cap_call));
    int rc = -1;
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        int k = gd_runtime_capture_kind(gd_strtab_get(&t->names, rt->name_id), gd_strtab_len(&t->names, rt->name_id));
        if (!k)
            continue;
        cap_call c = {gd_rt_tid(t, rt), k, rt->ts_ns, rt->ts_ns + gd_rt_dur(t, rt)};
        if (!gd_vec_push(&calls, &c))
            goto out;
    }
    if (calls.len > 1)
        qsort(calls.data, calls.len, sizeof(cap_call), cmp_cap_call);
    const cap_call *cc = calls.data;
    for (size_t i = 0; i < calls.len; i++) {
        if (cc[i].kind != 1)
            continue;
        size_t j = i + 1;
        while (j < calls.len && cc[j].tid == cc[i].tid && cc[j].kind != 2)
            j++;
        cap_call w = {cc[i].tid, 1, cc[i].s, j < calls.len && cc[j].tid == cc[i].tid ? cc[j].e : INT64_MAX};
        if (!gd_vec_push(out, &w))
            goto out;
    }
    rc = 0;
out:
    gd_vec_free(&calls);
    return rc;
}

/* Stream-capture windows (DEFINITIONS "Graph replays", capture): the capture
 * spans (capture_spans), a span with no end call ending at the steps span's
 * end.  The windows go to *out (unmerged, as warm-up host activity: rule 0);
 * r->graph_captures counts those overlapping the steps span and
 * r->graph_capture_us is their union's time inside it.  0, or -1 on OOM. */
static int capture_windows(actx *a, gd_vec *out)
{
    gpudiag_report *r = a->r;
    gd_vec spans, win;
    gd_vec_init(&spans, sizeof(cap_call));
    gd_vec_init(&win, sizeof(gd_iv));
    int rc = -1;
    if (capture_spans(a, &spans) != 0)
        goto out;
    const cap_call *cc = spans.data;
    for (size_t i = 0; i < spans.len; i++) {
        int64_t e = cc[i].e == INT64_MAX ? a->span_e : cc[i].e;
        if (e <= cc[i].s)
            continue;
        if (gd_iv_push(out, cc[i].s, e))
            goto out;
        int64_t s = cc[i].s > a->span_s ? cc[i].s : a->span_s, ce = e < a->span_e ? e : a->span_e;
        if (ce > s) {
            r->graph_captures++;
            if (gd_iv_push(&win, s, ce))
                goto out;
        }
    }
    win.len = gd_iv_merge(win.data, win.len);
    for (size_t i = 0; i < win.len; i++) {
        const gd_iv *w = (const gd_iv *)win.data + i;
        r->graph_capture_us += ns_to_us(w->e - w->s);
    }
    rc = 0;
out:
    gd_vec_free(&spans);
    gd_vec_free(&win);
    return rc;
}

/* Whether the trace can hold the process's first calls of an API: no step
 * marker, or one numbered 0.  The profiler numbers the steps from 0 at its
 * creation, so a first marker ProfilerStep#N with N >= 1 says N iterations ran
 * before the trace began, their calls included (DEFINITIONS rule 0). */
static int from_process_start(const gpudiag_trace *t)
{
    int later = 0;
    for (size_t i = 0; i < t->host_steps.len; i++) {
        int64_t num = ((const gd_host_step *)gd_vec_at(&t->host_steps, i))->number;
        if (num == 0)
            return 1;
        later |= num > 0;
    }
    return !later;
}

/* One-off first calls (DEFINITIONS "Idle gaps and their causes", rule 0): a
 * runtime/driver call that is the first call of its API name (when the trace
 * starts with the process: from_process_start), or the first launch of its
 * kernel name, and lasts >= GD_FIRST_CALL_MIN_US and >=
 * GD_FIRST_CALL_MEDIAN_X x the median duration of its API's other calls, the longest left out (lazy module
 * loading, JIT, first-use initialisation).  Sync calls are left out: their
 * length is the GPU's queued work.  Their intervals go to *out (unmerged). */
static int first_calls(actx *a, gd_vec *out)
{
    const gpudiag_trace *t = a->t;
    size_t n = t->runtimes.len, nn = t->names.count;
    if (n == 0 || nn == 0)
        return 0;
    int rc = -1;
    rt_dur_key *k = malloc(n * sizeof *k);
    double *med = malloc(nn * sizeof *med);
    uint32_t *first_api = malloc(nn * sizeof *first_api);    /* runtime index + 1, 0 = none */
    uint32_t *first_kern = calloc(nn, sizeof *first_kern);   /* per kernel name: runtime index + 1 */
    uint8_t *cand = calloc(n, 1);
    if (!k || !med || !first_api || !first_kern || !cand)
        goto out;
    const gd_runtime *rts = t->runtimes.data;
    for (size_t i = 0; i < n; i++) {
        k[i].name_id = rts[i].name_id;
        k[i].idx = (uint32_t)i;
        k[i].dur = gd_rt_dur(t, &rts[i]);
    }
    qsort(k, n, sizeof *k, cmp_rt_dur);
    for (size_t i = 0; i < nn; i++)
        med[i] = NAN;
    for (size_t i0 = 0; i0 < n;) {
        size_t i1 = i0;
        while (i1 < n && k[i1].name_id == k[i0].name_id)
            i1++;
        /* the median of the API's calls without its longest one (the candidate's own length
         * must not set the bar: with 2 calls it would be half of it); NaN for a single call */
        size_t m = i1 - i0 - 1;
        if (m > 0)
            med[k[i0].name_id] = m % 2 ? (double)k[i0 + m / 2].dur
                                       : 0.5 * ((double)k[i0 + m / 2 - 1].dur + (double)k[i0 + m / 2].dur);
        i0 = i1;
    }
    memset(first_api, 0, nn * sizeof *first_api);
    for (size_t i = 0; i < n; i++) {
        uint32_t *f = &first_api[rts[i].name_id];
        if (!*f || rts[i].ts_ns < rts[*f - 1].ts_ns)
            *f = (uint32_t)i + 1;
    }
    if (from_process_start(t))
        for (size_t i = 0; i < nn; i++)
            if (first_api[i])
                cand[first_api[i] - 1] = 1;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->kind != GD_GPU_KERNEL || !(op->flags & GD_GF_HAS_CORR))
            continue;
        const gd_runtime *rt = gd_runtime_of_op(a, i);
        if (!rt)
            continue;
        uint32_t ri = (uint32_t)(rt - rts);
        uint32_t *f = &first_kern[op->name_id];
        if (!*f || rt->ts_ns < rts[*f - 1].ts_ns)
            *f = ri + 1;
    }
    for (size_t i = 0; i < nn; i++)
        if (first_kern[i])
            cand[first_kern[i] - 1] = 1;
    for (size_t i = 0; i < n; i++) {
        if (!cand[i] || (gd_name_flags(a, rts[i].name_id) & NF_SYNC))
            continue;
        int64_t d = gd_rt_dur(t, &rts[i]);
        if ((double)d >= GD_FIRST_CALL_MIN_US * NS_PER_US && (double)d >= GD_FIRST_CALL_MEDIAN_X * med[rts[i].name_id] &&
            gd_iv_push(out, rts[i].ts_ns, rts[i].ts_ns + d))
            goto out;
    }
    rc = 0;
out:
    free(k);
    free(med);
    free(first_api);
    free(first_kern);
    free(cand);
    return rc;
}

/* A GPU op of one device in start order, for the queued-work rule (DEFINITIONS
 * "Idle gaps and their causes", rule 0b): 16 B per op (docs/MEMORY.md); what
 * the rule reads about an op is looked up only at the gaps (op_info). */
typedef struct dev_op {
    int64_t ts;
    uint32_t idx;     /* index into gpu_ops */
    uint32_t pad;
} dev_op;

/* An op's launch: the call's start and end (INT64_MAX when no call joins it),
 * its correlation id and whether the call is a graph launch. */
typedef struct op_launch {
    int64_t launch, launch_end, corr;
    int64_t queued; /* when the op entered its stream's queue: the launch call's end, or its start for a
                       blocking copy that is not host-to-device (no host staging before the DMA) */
    int graph;
} op_launch;

static void op_info(actx *a, uint32_t idx, op_launch *o)
{
    const gd_gpu_op *op = gd_vec_at(&a->t->gpu_ops, idx);
    const gd_runtime *rt = gd_runtime_of_op(a, idx);
    o->launch = rt ? rt->ts_ns : INT64_MAX;
    o->launch_end = rt ? rt->ts_ns + gd_rt_dur(a->t, rt) : INT64_MAX;
    o->corr = rt ? op->correlation : 0;
    unsigned rf = rt ? gd_name_flags(a, rt->name_id) : 0;
    o->graph = (rf & NF_GRAPH_LAUNCH) != 0;
    o->queued = o->launch_end;
    if (rt && op->kind == GD_GPU_MEMCPY && (rf & NF_SYNC) &&
        gd_flags_copy_kind(gd_name_flags(a, op->name_id)) != GPUDIAG_COPY_H2D &&
        gd_flags_copy_kind(gd_name_flags(a, op->name_id)) != GPUDIAG_COPY_OTHER)
        o->queued = o->launch;
}

/* Any of the sorted times ts[0..n) in [lo, hi]. */
static int any_in(const int64_t *ts, size_t n, int64_t lo, int64_t hi)
{
    size_t l = 0, h = n;
    while (l < h) {
        size_t m = l + (h - l) / 2;
        if (ts[m] < lo)
            l = m + 1;
        else
            h = m;
    }
    return l < n && ts[l] <= hi;
}

/* A device-idle gap at the edge of the window that counts as start-up (or the
 * idle tail after the last GPU op): DEFINITIONS "Idle gaps and their causes",
 * rule 0.  `none_busy`: the device ran nothing in the window. */
static int startup_edge(const actx *a, const gd_iv *gap, int none_busy)
{
    int lead = gap->s == a->span_s, tail = gap->e == a->span_e;
    if (!(lead || tail) || none_busy)
        return 0;
    /* only a long lead-in / lead-out, with step markers or without: a short one is the
     * first step's own host work, whether or not a marker names the step */
    int64_t len = gap->e - gap->s;
    if (len < (int64_t)(GD_STARTUP_MIN_US * NS_PER_US))
        return 0;
    if (!a->r->steps_from_profiler)
        return 1; /* the window is the whole capture */
    /* step markers: and at least half the first / last step */
    const gd_iv *st = lead ? &a->steps[0] : &a->steps[a->nsteps - 1];
    return 2 * len >= st->e - st->s;
}

/* 1 when the call rt starts inside one of the capture spans sp (capture_spans). */
static int in_capture(const gpudiag_trace *t, const gd_vec *sp, const gd_runtime *rt)
{
    const cap_call *w = sp->data;
    int32_t tid = gd_rt_tid(t, rt);
    size_t l = 0, h = sp->len; /* first span after (tid, ts) */
    while (l < h) {
        size_t m = l + (h - l) / 2;
        if (w[m].tid < tid || (w[m].tid == tid && w[m].s <= rt->ts_ns))
            l = m + 1;
        else
            h = m;
    }
    return l > 0 && w[l - 1].tid == tid && rt->ts_ns < w[l - 1].e;
}

/* 1 when the runtime call rt_index is joined by correlation id to at least one kernel. */
static int joined_to_kernel(const actx *a, size_t rt_index)
{
    size_t k = gd_corr_of_runtime(a, rt_index);
    if (k >= a->ncorr)
        return 0;
    for (int64_t c = a->corr[k].correlation; k < a->ncorr && a->corr[k].correlation == c; k++)
        if (((const gd_gpu_op *)gd_vec_at(&a->t->gpu_ops, a->corr[k].op))->kind == GD_GPU_KERNEL)
            return 1;
    return 0;
}

/* Graph launch calls and the GPU ops joined to them (DEFINITIONS "Graph
 * replays"); the start times of the launches with no GPU op, sorted, into
 * *unrec (int64_t ns).  Also the launch calls the device-record notes count
 * (DEFINITIONS "Time and events": launch calls without GPU records, kernel
 * launch calls without kernels). */
static int graph_replays(actx *a, gd_vec *unrec)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        const gd_runtime *rt = gd_runtime_of_op(a, i);
        if (rt && (gd_name_flags(a, rt->name_id) & NF_GRAPH_LAUNCH))
            r->graph_gpu_ops++;
        r->kernels_unlinked += !rt && op->kind == GD_GPU_KERNEL;
    }
    /* per name id: 0 not classified yet, 1 not a kernel launch, 2 a kernel launch (the NF_* bits are
     * all taken; a private cache keeps this row free of shared writes) */
    uint8_t *kl = calloc((size_t)t->names.count + 1, 1);
    gd_vec caps; /* cap_call: launches inside a stream capture run nothing */
    gd_vec_init(&caps, sizeof(cap_call));
    if (!kl || capture_spans(a, &caps) != 0) {
        free(kl);
        gd_vec_free(&caps);
        return -1;
    }
    /* launch calls count inside the steps only: a CPU-only training loop with a few launches before its
     * first step (a warm-up, a .to('cuda') probe) is not a trace whose GPU records were lost (a new
     * user's 5 CPU-only steps after 3 stray launches were called "GPU records dropped") */
    int64_t lo = r->step_count ? r->steps[0].start_ns : INT64_MIN;
    int64_t hi = r->step_count ? r->steps[r->step_count - 1].end_ns : INT64_MAX;
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        unsigned nf = gd_name_flags(a, rt->name_id);
        /* DEFINITIONS launch calls without GPU records */
        int in_steps = rt->ts_ns >= lo && rt->ts_ns <= hi;
        r->gpu_launch_calls += (nf & NF_QLAUNCH) != 0 && in_steps;
        if ((nf & NF_QLAUNCH) && in_steps) {
            /* DEFINITIONS kernel launch calls without kernels */
            if (!kl[rt->name_id])
                kl[rt->name_id] = gd_runtime_is_kernel_launch(gd_strtab_get(&t->names, rt->name_id),
                                                              gd_strtab_len(&t->names, rt->name_id))
                                      ? 2
                                      : 1;
            if (kl[rt->name_id] == 2 && !(caps.len && in_capture(t, &caps, rt))) {
                r->kernel_launch_calls++;
                r->kernel_launches_joined += joined_to_kernel(a, i);
            }
        }
        if (!(nf & NF_GRAPH_LAUNCH))
            continue;
        r->graph_launches++;
        if (gd_corr_of_runtime(a, i) < a->ncorr)
            continue;
        r->graph_launches_unrecorded++;
        if (!gd_vec_push(unrec, &rt->ts_ns)) {
            free(kl);
            gd_vec_free(&caps);
            return -1;
        }
    }
    free(kl);
    gd_vec_free(&caps);
    if (unrec->len)
        qsort(unrec->data, unrec->len, sizeof(int64_t), gd_cmp_i64);
    return 0;
}

/* The working state of gd_build_idle's gap attribution: the host activity
 * sets, scratch sets reused per device, the gaps kept and the top gaps.
 * Freed by idle_ctx_free. */
typedef struct idle_ctx {
    actx *a;
    gd_vec host[HOST_SETS];  /* gd_iv: host activity by kind (HOST_*), merged */
    gd_vec ops[HOST_SETS];   /* gd_iv: the CPU ops' part of host[], until gd_idle_gaps joins it */
    int have_span;           /* steps, GPU ops and a span: the gaps are attributed */
    gd_vec busy, idle;       /* gd_iv: one device's busy time and its gaps in the steps span */
    dev_op *dops;            /* every GPU op by device, then start (sort_device_ops) */
    uint32_t *dev_id;        /* the devices of the GPU ops (as uint32_t), ndev of them */
    size_t *dev_start;       /* device d's ops: dops[dev_start[d], dev_start[d + 1]) */
    size_t ndev;
    const dev_op *dop;       /* the device being walked: its ops by start */
    size_t ndop;
    gd_vec waits;            /* int64_t: starts of cudaStreamWaitEvent-like calls, sorted */
    gd_vec unrec;            /* int64_t: launches of graph replays with no GPU op (graph_replays) */
    gd_vec all;              /* gpudiag_gap: every gap, when max_gaps does not limit them */
    kept_gap *kept;          /* the max_gaps longest gaps, when it does */
    size_t nkept;
    gpudiag_gap *top;        /* the GD_TOP_GAPS longest */
    size_t ntop;
    uint8_t *nclass;         /* per name id: 1 checked, 2 compilation, 4 warm-up, 8 compiled code */
    int64_t *comp_step;      /* per step: device-idle ns of cause compilation starting in it, all devices */
    gd_coll_join mpi;        /* which thread is in an MPI call when (has_mpi) */
    int has_mpi;
    gd_vec su, comp;         /* gd_iv: the gaps of cause startup / compilation, every device (comm_startup) */
} idle_ctx;

/* Every GPU op as a dev_op (pad: its device), sorted by device, then start
 * (ties in trace order), into ic->dops: each device's ops are one slice,
 * found by dev_slice.  One stable radix sort by start and one counting pass
 * by device.  0, or -1 on allocation failure. */
static int sort_device_ops(idle_ctx *ic)
{
    const gpudiag_trace *t = ic->a->t;
    size_t n = t->gpu_ops.len;
    dev_op *by_ts = malloc((n + 1) * sizeof *by_ts);
    ic->dops = malloc((n + 1) * sizeof *ic->dops);
    if (!by_ts || !ic->dops) {
        free(by_ts);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        by_ts[i] = (dev_op){op->ts_ns, (uint32_t)i, (uint32_t)op->device};
    }
    if (n && gd_radix_sort_i64(by_ts, n, sizeof(dev_op), offsetof(dev_op, ts)) != 0) {
        free(by_ts);
        return -1;
    }
    /* the distinct devices (a handful; GPU ops name one device each) and where each slice starts */
    int rc = 0;
    size_t nd = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        size_t d = 0;
        while (d < nd && ic->dev_id[d] != by_ts[i].pad)
            d++;
        if (d == nd) {
            uint32_t *ids = realloc(ic->dev_id, (nd + 1) * sizeof *ids);
            size_t *cnt = realloc(ic->dev_start, (nd + 2) * sizeof *cnt);
            if (ids)
                ic->dev_id = ids;
            if (cnt)
                ic->dev_start = cnt;
            if (!ids || !cnt) {
                rc = -1;
                break;
            }
            ic->dev_id[nd] = by_ts[i].pad;
            ic->dev_start[nd] = 0;
            nd++;
        }
        ic->dev_start[d]++;
    }
    ic->ndev = nd;
    if (rc == 0) {
        size_t at = 0; /* counts to starts */
        for (size_t d = 0; d < nd; d++) {
            size_t c = ic->dev_start[d];
            ic->dev_start[d] = at;
            at += c;
        }
        size_t *next = malloc((nd + 1) * sizeof *next);
        if (!next) {
            rc = -1;
        } else {
            memcpy(next, ic->dev_start, nd * sizeof *next);
            size_t d = 0;
            for (size_t i = 0; i < n; i++) {
                if (ic->dev_id[d] != by_ts[i].pad) /* runs of one device are common: try the last one first */
                    for (d = 0; ic->dev_id[d] != by_ts[i].pad; d++)
                        ;
                ic->dops[next[d]++] = by_ts[i];
            }
            if (nd)
                ic->dev_start[nd] = n;
            free(next);
        }
    }
    free(by_ts);
    return rc;
}

/* Device dev's ops in ic->dops, by start: *n of them from the returned
 * index (0 ops when the device ran none). */
static size_t dev_slice(const idle_ctx *ic, int dev, size_t *n)
{
    for (size_t d = 0; d < ic->ndev; d++)
        if (ic->dev_id[d] == (uint32_t)dev) {
            *n = ic->dev_start[d + 1] - ic->dev_start[d];
            return ic->dev_start[d];
        }
    *n = 0;
    return 0;
}

static void idle_ctx_free(idle_ctx *ic)
{
    gd_coll_join_free(&ic->mpi);
    gd_vec_free(&ic->all);
    free(ic->dops);
    free(ic->dev_id);
    free(ic->dev_start);
    gd_vec_free(&ic->waits);
    gd_vec_free(&ic->unrec);
    for (int h = 0; h < HOST_SETS; h++) {
        gd_vec_free(&ic->host[h]);
        gd_vec_free(&ic->ops[h]);
    }
    gd_vec_free(&ic->busy);
    gd_vec_free(&ic->idle);
    gd_vec_free(&ic->su);
    gd_vec_free(&ic->comp);
    free(ic->kept);
    free(ic->nclass);
    free(ic->comp_step);
}

/* The allocator's calls (gd_runtime_alloc_kind: cudaMalloc/cudaFree and kin, from the name
 * flags) into set, for r->alloc_idle_us (DEFINITIONS "Allocator churn", one window or one
 * step).  0, or -1 on allocation failure. */
static int alloc_calls_set(actx *a, gd_vec *set)
{
    const gpudiag_trace *t = a->t;
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        int64_t e = rt->ts_ns + gd_rt_dur(t, rt);
        if (gd_flags_alloc_kind(gd_name_flags(a, rt->name_id)) != GD_ALLOC_NONE && e > rt->ts_ns &&
            gd_iv_push(set, rt->ts_ns, e))
            return -1;
    }
    return 0;
}

/* Host activity from MPI calls and runtime/driver calls (DEFINITIONS "Idle
 * gaps and their causes"): MPI calls, sync calls outside them (counted in
 * r->sync_calls, sync_time_us inside the steps), every call as host
 * activity, the stream-wait calls' starts, first calls and stream-capture
 * windows.  0, or -1 on allocation failure. */
static int host_call_sets(idle_ctx *ic)
{
    actx *a = ic->a;
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    gd_vec *host = ic->host;
    for (size_t i = 0; i < t->comm_calls.len; i++) {
        const gd_comm_call *c = gd_vec_at(&t->comm_calls, i);
        if (c->is_mpi) {
            ic->has_mpi = 1;
            if (gd_iv_push(&host[HOST_MPI], c->ts_ns, c->end_ns))
                return -1;
        }
    }
    if (ic->has_mpi && gd_coll_join_init(&ic->mpi, t) != 0)
        return -1;
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        int64_t e = rt->ts_ns + gd_rt_dur(t, rt);
        /* a sync inside an MPI call is the MPI library's (CUDA-aware MPI), not the program's */
        if ((gd_name_flags(a, rt->name_id) & NF_SYNC) &&
            !(ic->has_mpi && gd_coll_in_mpi(&ic->mpi, gd_rt_tid(t, rt), rt->ts_ns))) {
            if (gd_iv_push(&host[HOST_SYNC], rt->ts_ns, e))
                return -1;
            if (rt->ts_ns < a->hspan_e && e > a->hspan_s) { /* host calls: the host steps ("Steps" 4) */
                r->sync_calls++;
                r->sync_time_us += ns_to_us(gd_rt_dur(t, rt));
            }
        }
        if (gd_iv_push(&host[HOST_OTHER], rt->ts_ns, e) || gd_iv_push(&host[HOST_ROLE], rt->ts_ns, e))
            return -1;
        if (!(gd_name_flags(a, rt->name_id) & NF_SYNC) && e - rt->ts_ns >= GD_LONG_CALL_US * 1000 &&
            gd_iv_push(&host[HOST_LONG_CALL], rt->ts_ns, e))
            return -1;
        if ((gd_name_flags(a, rt->name_id) & NF_WAIT_EVENT) && !gd_vec_push(&ic->waits, &rt->ts_ns))
            return -1;
    }
    if (ic->waits.len)
        qsort(ic->waits.data, ic->waits.len, sizeof(int64_t), gd_cmp_i64);
    for (size_t i = 0; i < t->prof_overheads.len; i++) { /* the profiler's own overhead (rule 0c) */
        const gd_host_step *o = gd_vec_at(&t->prof_overheads, i);
        if (o->dur_ns > 0 && gd_iv_push(&host[HOST_PROFILER], o->ts_ns, o->ts_ns + o->dur_ns))
            return -1;
    }
    if (first_calls(a, &host[HOST_FIRST_CALL]) != 0 || capture_windows(a, &host[HOST_WARMUP]) != 0 ||
        alloc_calls_set(a, &host[HOST_ALLOC]) != 0)
        return -1;
    return 0;
}

/* Step k (from 0) of n lies in the window's last quarter: 4 (k + 1) > 3 n (DEFINITIONS
 * "Idle gaps and their causes", rule 0: recompilation and warm-up names recur only there). */
static int in_last_quarter(size_t k, size_t n)
{
    return 4 * (k + 1) > 3 * n;
}

/* A CPU op whose name says warm-up (is_warmup_name), until warmup_sets tests its name. */
typedef struct warm_op {
    uint32_t name_id, pad;
    int64_t s, e;
} warm_op;

static int cmp_warm_op(const void *x, const void *y)
{
    const warm_op *p = x, *q = y;
    if (p->name_id != q->name_id)
        return p->name_id < q->name_id ? -1 : 1;
    return p->s < q->s ? -1 : p->s > q->s;
}

/* The warm-up-named CPU ops *w into *out (host[HOST_WARMUP]), but only those of a name
 * that does not recur (DEFINITIONS "Idle gaps and their causes", rule 0): the ops of one
 * name that overlap >= GD_RECOMPILE_MIN_STEPS of the steps and >= half of them, one in
 * the last quarter (in_last_quarter), name a schedule or the whole loop ("training_loop (after lr warmup)", "step_warmup_sched"), not
 * warm-up iterations.  *w is reordered.  0, or -1 on allocation failure. */
static int warmup_sets(const actx *a, gd_vec *w, gd_vec *out)
{
    size_t n = w->len, ns = a->nsteps;
    if (n == 0)
        return 0;
    warm_op *ws = w->data;
    qsort(ws, n, sizeof *ws, cmp_warm_op);
    uint32_t *stamp = ns ? calloc(ns, sizeof *stamp) : NULL; /* per step: the last name group (+ 1) seen */
    if (ns && !stamp)
        return -1;
    uint32_t group = 0;
    for (size_t i0 = 0; i0 < n;) {
        size_t i1 = i0;
        while (i1 < n && ws[i1].name_id == ws[i0].name_id)
            i1++;
        group++;
        size_t touched = 0, late = 0;
        for (size_t i = i0; i < i1; i++) {
            /* the first step ending after the op starts (steps are sorted and disjoint) */
            size_t lo = 0, hi = ns;
            while (lo < hi) {
                size_t m = lo + (hi - lo) / 2;
                if (a->steps[m].e <= ws[i].s)
                    lo = m + 1;
                else
                    hi = m;
            }
            for (size_t k = lo; k < ns && a->steps[k].s < ws[i].e; k++)
                if (stamp[k] != group && ws[i].e > a->steps[k].s && ws[i].s < a->steps[k].e) {
                    stamp[k] = group;
                    touched++;
                    late |= in_last_quarter(k, ns);
                }
        }
        int recurs = touched >= GD_RECOMPILE_MIN_STEPS && 2 * touched >= ns && late;
        for (size_t i = i0; i < i1 && !recurs; i++)
            if (gd_iv_push(out, ws[i].s, ws[i].e)) {
                free(stamp);
                return -1;
            }
        i0 = i1;
    }
    free(stamp);
    return 0;
}

static int cmp_i32(const void *x, const void *y)
{
    int32_t p = *(const int32_t *)x, q = *(const int32_t *)y;
    return (p > q) - (p < q);
}

/* The distinct known threads (tid != 0) that make a kernel launch call, sorted,
 * into *out (int32_t).  0, or -1 on allocation failure. */
static int launch_threads(const gpudiag_trace *t, gd_vec *out)
{
    uint32_t last_name = UINT32_MAX;
    int last_is = 0;
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        if (rt->name_id != last_name) {
            last_name = rt->name_id;
            last_is = gd_runtime_is_kernel_launch(gd_strtab_get(&t->names, rt->name_id),
                                                  gd_strtab_len(&t->names, rt->name_id));
        }
        if (!last_is)
            continue;
        int32_t tid = gd_rt_tid(t, rt);
        if (tid == 0 || (out->len && ((const int32_t *)out->data)[out->len - 1] == tid))
            continue;
        if (!gd_vec_push(out, &tid))
            return -1;
    }
    if (out->len > 1) {
        int32_t *v = out->data;
        qsort(v, out->len, sizeof *v, cmp_i32);
        size_t w = 1;
        for (size_t i = 1; i < out->len; i++)
            if (v[i] != v[w - 1])
                v[w++] = v[i];
        out->len = w;
    }
    return 0;
}

/* Host activity from CPU ops into host[HOST_SETS] (ic->host, or a second
 * thread's own sets): compilation, warm-up and compiled-code names
 * (classified once per name; r->compiled_calls), TBP's host roles, and the
 * specific activities that can name a gap (data loading, communication,
 * optimizer, coalescing) or else count as other host work.  0, or -1 on
 * allocation failure. */
static int host_op_sets(idle_ctx *ic, gd_vec *host)
{
    const gpudiag_trace *t = ic->a->t;
    gpudiag_report *r = ic->a->r;
    if (t->names.count && !(ic->nclass = calloc(t->names.count, 1)))
        return -1;
    gd_vec warm, lt;
    gd_vec_init(&warm, sizeof(warm_op));
    /* compile spans count only on a thread that launches kernels (or an unknown one):
     * a background compile worker does not hold the GPU (DEFINITIONS rule 0) */
    gd_vec_init(&lt, sizeof(int32_t));
    if (launch_threads(t, &lt) != 0)
        goto oom;
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        if (c->cat == GD_CPU_GPU_ANNOT)
            continue;
        const char *nm = gd_strtab_get(&t->names, c->name_id);
        size_t nl = gd_strtab_len(&t->names, c->name_id);
        uint8_t *nc = &ic->nclass[c->name_id];
        if (!*nc)
            *nc = (uint8_t)(1 | (is_compile_name(nm, nl) ? 2 : 0) | (is_warmup_name(nm, nl) ? 4 : 0) |
                            (is_compiled_code_name(nm, nl) ? 8 : 0));
        if (*nc & 8)
            r->compiled_calls++;
        int64_t e = c->ts_ns + gd_cpu_dur(t, c);
        if (*nc & 2) {
            int32_t tid = lt.len ? gd_cpu_tid(t, c) : 0;
            if ((tid == 0 || bsearch(&tid, lt.data, lt.len, sizeof tid, cmp_i32)) &&
                gd_iv_push(&host[HOST_COMPILE], c->ts_ns, e))
                goto oom;
        }
        if (*nc & 4) {
            warm_op w = {c->name_id, 0, c->ts_ns, e};
            if (!gd_vec_push(&warm, &w))
                goto oom;
        }
        if (c->role == GD_CR_CPU_EXEC && gd_iv_push(&host[HOST_ROLE], c->ts_ns, e))
            goto oom;
        if (c->cat == GD_CPU_PYFUNC)
            continue;
        int h = HOST_OTHER;
        if (c->role == GD_CR_DATALOADER)
            h = HOST_DATALOADER;
        else if (c->role == GD_CR_COMM || gd_starts_with(nm, nl, "c10d::") || gd_starts_with(nm, nl, "nccl:") ||
                 gd_starts_with(nm, nl, "gloo:") || gd_starts_with(nm, nl, "record_param_comms"))
            h = HOST_COMM;
        else if (gd_starts_with(nm, nl, "Optimizer.step#") || gd_starts_with(nm, nl, "Optimizer.zero_grad#"))
            h = HOST_OPTIMIZER;
        else if ((nl == 27 && memcmp(nm, "aten::flatten_dense_tensors", 27) == 0) ||
                 (nl == 29 && memcmp(nm, "aten::unflatten_dense_tensors", 29) == 0))
            h = HOST_COALESCE; /* the host side of a coalesced collective; also host activity (rule 3) */
        if (gd_iv_push(&host[h], c->ts_ns, e) || (h == HOST_COALESCE && gd_iv_push(&host[HOST_OTHER], c->ts_ns, e)))
            goto oom;
    }
    if (warmup_sets(ic->a, &warm, &host[HOST_WARMUP]) != 0)
        goto oom;
    gd_vec_free(&warm);
    gd_vec_free(&lt);
    return 0;
oom:
    gd_vec_free(&warm);
    gd_vec_free(&lt);
    return -1;
}

/* Where one device's walk over its gaps stands: a hint per host set for
 * overlap(), the cursor into its ops, the latest-ending op before the gap,
 * the end of the previous gap and the step of the last gap. */
typedef struct gap_cursor {
    size_t hint[HOST_SETS];
    size_t dp, prev;
    int64_t prev_end;
    int64_t prev_gap_e;  /* unrecorded replays launched since the last gap run in this one */
    size_t step_hint;
} gap_cursor;

/* The ops around a gap (rule 0b, queued work): *pv the launch of the op
 * ending it (the latest-ending op before it), *nx the earliest-queued of the
 * ops starting at its end; each NULL when there is none. */
static void gap_neighbours(idle_ctx *ic, gap_cursor *cur, const gd_iv *gap, op_launch *nxi, op_launch *pvi,
                           const op_launch **nx, const op_launch **pv)
{
    actx *a = ic->a;
    const dev_op *dop = ic->dop;
    size_t nd = ic->ndop;
    while (cur->dp < nd && dop[cur->dp].ts < gap->e) {
        const gd_gpu_op *op = gd_vec_at(&a->t->gpu_ops, dop[cur->dp].idx);
        if (cur->prev == SIZE_MAX || op->ts_ns + op->dur_ns > cur->prev_end) {
            cur->prev = cur->dp;
            cur->prev_end = op->ts_ns + op->dur_ns;
        }
        cur->dp++;
    }
    op_launch qi;
    int has_next = 0;
    for (size_t q = cur->dp; q < nd && dop[q].ts == gap->e; q++) {
        op_info(a, dop[q].idx, &qi);
        if (!has_next || qi.queued < nxi->queued)
            *nxi = qi;
        has_next = 1;
    }
    if (cur->prev != SIZE_MAX)
        op_info(a, dop[cur->prev].idx, pvi);
    *nx = has_next ? nxi : NULL;
    *pv = cur->prev != SIZE_MAX ? pvi : NULL;
}

/* The cause of a gap the host side explains (rules 1-3, after the GPU-side
 * ones): a sync call in progress when the GPU went idle (the host at
 * sy[j]), unless it returned within the first half and a specific activity
 * or long non-sync runtime calls then hold most of the gap, or it blocked for
 * less than half the gap in all and the host then worked for at least half of
 * it before the next op's (nx) launch call (a short sync); else the specific activity covering at least
 * half of it (*coalesce when that is coalescing); else other host work
 * (late to launch); else other.  Adds r->sync_host_us for a sync. */
static gpudiag_idle_cause host_cause(idle_ctx *ic, gap_cursor *cur, const gd_iv *gap, size_t j, const op_launch *nx,
                                     int *coalesce)
{
    gd_vec *host = ic->host;
    const gd_iv *sy = host[HOST_SYNC].data;
    int64_t len = gap->e - gap->s;
    int in_sync = j < host[HOST_SYNC].len && sy[j].s <= gap->s && sy[j].e + GD_SYNC_SLACK_NS >= gap->s;
    int64_t sync_part = in_sync ? (sy[j].e < gap->e ? sy[j].e : gap->e) - gap->s : 0;
    /* a specific activity covering at least half of the gap names it (enclosing
     * annotations such as "## forward ##" would otherwise cover every gap) */
    static const int order[] = {HOST_DATALOADER, HOST_COMM, HOST_OPTIMIZER, HOST_COALESCE};
    static const gpudiag_idle_cause as[] = {GPUDIAG_IDLE_DATALOADER, GPUDIAG_IDLE_COMMUNICATION,
                                            GPUDIAG_IDLE_OPTIMIZER, GPUDIAG_IDLE_COMMUNICATION};
    int64_t best = 0;
    gpudiag_idle_cause spec = GPUDIAG_IDLE_OTHER;
    int spec_coalesce = 0;
    for (size_t o = 0; o < 4; o++) {
        int64_t ov = overlap(&host[order[o]], &cur->hint[order[o]], gap->s, gap->e);
        if (ov > best && 2 * ov >= len) {
            best = ov;
            spec = as[o];
            spec_coalesce = order[o] == HOST_COALESCE;
        }
    }
    /* ... or the host sat in long runtime/driver calls after it returned (rule 1) */
    int in_calls = in_sync && best == 0 && 2 * sync_part < len &&
                   2 * overlap(&host[HOST_LONG_CALL], &cur->hint[HOST_LONG_CALL], gap->s, gap->e) >= len;
    /* ... or it blocked for less than half the gap, call to return (the host was that little ahead
     * of the GPU), and the host then spent at least half of the gap on its own work before the
     * next op's launch call (the gap's end when that call is not known): rule 1, "A short sync" */
    int short_sync = 0;
    if (in_sync && 2 * (sy[j].e - sy[j].s) < len) {
        int64_t l = nx && nx->launch < gap->e ? nx->launch : gap->e, r = sy[j].e > gap->s ? sy[j].e : gap->s;
        short_sync = 2 * (l - r) >= len;
    }
    if (in_sync && !(best > 0 && 2 * sync_part < len) && !in_calls && !short_sync) {
        ic->a->r->sync_host_us += ns_to_us(overlap(&host[HOST_ROLE], &cur->hint[HOST_ROLE], gap->s, gap->e));
        return GPUDIAG_IDLE_SYNC;
    }
    if (best > 0) {
        *coalesce = spec_coalesce;
        return spec;
    }
    if (overlap(&host[HOST_OTHER], &cur->hint[HOST_OTHER], gap->s, gap->e) > 0)
        return GPUDIAG_IDLE_HOST_LAUNCH; /* the host was busy elsewhere, i.e. late to launch */
    return GPUDIAG_IDLE_OTHER;
}

/* The cause of one device-idle gap (DEFINITIONS "Idle gaps and their
 * causes"): not steady state first (compilation, then start-up / warm-up /
 * first calls), then queued work (kernel or stream wait; r->queued_host_us,
 * stream_wait_graph_us, stream_wait_event_us), the host in MPI, then the host
 * side (host_cause).  *coalesce: the gap is a coalesced collective's host
 * side. */
static gpudiag_idle_cause gap_cause(idle_ctx *ic, gap_cursor *cur, const gd_iv *gap, int *coalesce)
{
    gpudiag_report *r = ic->a->r;
    gd_vec *host = ic->host;
    int64_t len = gap->e - gap->s;
    *coalesce = 0;
    /* a sync call in progress when the GPU went idle */
    const gd_iv *sy = host[HOST_SYNC].data;
    size_t j = cur->hint[HOST_SYNC];
    while (j < host[HOST_SYNC].len && sy[j].e + GD_SYNC_SLACK_NS < gap->s)
        j++;
    cur->hint[HOST_SYNC] = j;
    /* not steady state first: compilation, then start-up / warm-up */
    int64_t comp = overlap(&host[HOST_COMPILE], &cur->hint[HOST_COMPILE], gap->s, gap->e);
    int64_t warm = overlap(&host[HOST_WARMUP], &cur->hint[HOST_WARMUP], gap->s, gap->e);
    int64_t first = overlap(&host[HOST_FIRST_CALL], &cur->hint[HOST_FIRST_CALL], gap->s, gap->e);
    op_launch nxi = {0, 0, 0, 0, 0}, pvi = {0, 0, 0, 0, 0};
    const op_launch *nx, *pv;
    gap_neighbours(ic, cur, gap, &nxi, &pvi, &nx, &pv);
    /* inside one graph replay, or the launch call had returned when the GPU went idle */
    int one_replay = nx && nx->graph && pv && pv->graph && pv->corr == nx->corr;
    int queued = nx && (one_replay || nx->queued <= gap->s);
    /* queued late in the gap: the next op entered the queue inside the gap and then waited at
     * least half the gap and >= 100 us more (a launch's own latency is far shorter): the stream
     * waited, the host was not late (the host part before it is too short to lead) */
    int queued_late = nx && !queued && nx->queued > gap->s && nx->queued < gap->e &&
                      gap->e - nx->queued >= GD_QUEUED_LATE_NS && 2 * (gap->e - nx->queued) >= len;
    if (comp > 0 && 2 * comp >= len)
        return GPUDIAG_IDLE_COMPILATION;
    if (startup_edge(ic->a, gap, ic->busy.len == 0) || (warm > 0 && 2 * warm >= len) ||
        (first > 0 && 2 * first >= len))
        return GPUDIAG_IDLE_STARTUP;
    if (queued || queued_late) {
        r->queued_host_us += ns_to_us(overlap(&host[HOST_ROLE], &cur->hint[HOST_ROLE], gap->s, gap->e));
        if (!queued_late && (len < GD_KERNEL_WAIT_NS || one_replay))
            return GPUDIAG_IDLE_KERNEL_WAIT;
        if (nx->graph)
            r->stream_wait_graph_us += ns_to_us(len);
        else if (pv && pv->launch != INT64_MAX && pv->launch <= nx->launch &&
                 any_in(ic->waits.data, ic->waits.len, pv->launch, nx->launch))
            r->stream_wait_event_us += ns_to_us(len);
        return GPUDIAG_IDLE_STREAM_WAIT;
    }
    /* rule 0c: the profiler's own overhead (CUPTI buffer requests) covers at least half of the gap */
    int64_t prof = overlap(&host[HOST_PROFILER], &cur->hint[HOST_PROFILER], gap->s, gap->e);
    if (prof > 0 && 2 * prof >= len) {
        r->profiler_host_us += ns_to_us(overlap(&host[HOST_ROLE], &cur->hint[HOST_ROLE], gap->s, gap->e));
        return GPUDIAG_IDLE_PROFILER;
    }
    if (ic->has_mpi && 2 * overlap(&host[HOST_MPI], &cur->hint[HOST_MPI], gap->s, gap->e) >= len)
        return GPUDIAG_IDLE_COMMUNICATION; /* the host was in MPI, even after a sync */
    return host_cause(ic, cur, gap, j, nx, coalesce);
}

/* Count one gap of device dev with its cause: the report's idle totals, the
 * top gaps, every gap (or the max_gaps longest) with its step, and the
 * device's timeline.  0, or -1 on allocation failure. */
static int record_gap(idle_ctx *ic, gap_cursor *cur, gpudiag_timeline_device *td, int dev, const gd_iv *gap,
                      gpudiag_idle_cause cause, int coalesce)
{
    actx *a = ic->a;
    gpudiag_report *r = a->r;
    int64_t len = gap->e - gap->s;
    r->idle_cause_us[cause] += ns_to_us(len);
    if (cause == GPUDIAG_IDLE_HOST_LAUNCH && len > GD_LAUNCH_PACED_GAP_NS)
        r->host_launch_long_gap_us += ns_to_us(len);
    if (cause != GPUDIAG_IDLE_STARTUP && cause != GPUDIAG_IDLE_COMPILATION) /* DEFINITIONS "Allocator churn" */
        r->alloc_idle_us += ns_to_us(overlap(&ic->host[HOST_ALLOC], &cur->hint[HOST_ALLOC], gap->s, gap->e));
    if ((cause == GPUDIAG_IDLE_STARTUP && gd_iv_push(&ic->su, gap->s, gap->e)) ||
        (cause == GPUDIAG_IDLE_COMPILATION && gd_iv_push(&ic->comp, gap->s, gap->e)))
        return -1;
    if (ic->unrec.len && any_in(ic->unrec.data, ic->unrec.len, cur->prev_gap_e, gap->e - 1))
        r->graph_hidden_idle_us += ns_to_us(len);
    cur->prev_gap_e = gap->e;
    if (coalesce)
        r->collective_host_us += ns_to_us(len);
    r->idle_gap_us += ns_to_us(len);
    r->idle_gap_count++;
    gpudiag_gap gg = {ns_to_us(gap->s), ns_to_us(len), gap->s, dev, -1, cause, NULL};
    keep_top(ic->top, &ic->ntop, &gg);
    /* every gap, with its step (gaps come in time order on a device) */
    gg.step = step_of_gap(a, gap->s, gap->e, &cur->step_hint);
    /* recompilation counts by the step the gap starts in (DEFINITIONS rule 0, recompilation);
     * step_of_gap left the hint at the first step ending after the gap's start */
    if (cause == GPUDIAG_IDLE_COMPILATION && ic->comp_step && cur->step_hint < a->nsteps &&
        a->steps[cur->step_hint].s <= gap->s)
        ic->comp_step[cur->step_hint] += len;
    if (ic->kept) {
        kept_gap k = {gg, r->idle_gap_count - 1};
        gd_topk_push(ic->kept, &ic->nkept, a->max_gaps, sizeof *ic->kept, &k, cmp_kept_len);
    } else if (!gd_vec_push(&ic->all, &gg)) {
        return -1;
    }
    bin_add(td->idle_us[cause], &r->timeline, gap->s, gap->e);
    return 0;
}

/* One device: its busy time in the timeline, then each gap in the steps span
 * in time order with its cause (gap_cause, record_gap).  0, or -1 on
 * allocation failure. */
static int idle_device(idle_ctx *ic, int dev)
{
    actx *a = ic->a;
    const gpudiag_trace *t = a->t;
    gpudiag_timeline *tl = &a->r->timeline;
    size_t from = dev_slice(ic, dev, &ic->ndop);
    ic->dop = ic->dops + from;
    ic->busy.len = 0;
    for (size_t i = 0; i < ic->ndop; i++) { /* by start: each push joins the tail or follows it */
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, ic->dop[i].idx);
        if (gd_iv_push(&ic->busy, op->ts_ns, op->ts_ns + op->dur_ns))
            return -1;
    }
    ic->busy.len = gd_iv_merge(ic->busy.data, ic->busy.len);
    gpudiag_timeline_device *td = &tl->devices[tl->device_count++];
    td->device = dev;
    if (!(td->busy_us = gd_arena_calloc(a->r->arena, tl->bins, sizeof *td->busy_us)))
        return -1;
    for (int c = 0; c < GPUDIAG_IDLE_CAUSE_COUNT; c++)
        if (!(td->idle_us[c] = gd_arena_calloc(a->r->arena, tl->bins, sizeof *td->idle_us[c])))
            return -1;
    const gd_iv *bv = ic->busy.data;
    for (size_t b = 0; b < ic->busy.len; b++)
        bin_add(td->busy_us, tl, bv[b].s, bv[b].e);
    if (gd_vec_reserve(&ic->idle, ic->busy.len + 2) != 0)
        return -1;
    gd_iv span = {a->span_s, a->span_e};
    ic->idle.len = gd_iv_subtract(&span, 1, ic->busy.data, ic->busy.len, ic->idle.data);
    gap_cursor cur;
    memset(&cur, 0, sizeof cur);
    cur.prev = SIZE_MAX;
    cur.prev_end = INT64_MIN;
    cur.prev_gap_e = INT64_MIN;
    for (size_t g = 0; g < ic->idle.len; g++) {
        const gd_iv *gap = (const gd_iv *)ic->idle.data + g;
        int coalesce;
        gpudiag_idle_cause cause = gap_cause(ic, &cur, gap, &coalesce);
        if (record_gap(ic, &cur, td, dev, gap, cause, coalesce) != 0)
            return -1;
    }
    return 0;
}

/* Recurring compilation (DEFINITIONS "Idle gaps and their causes", rule 0,
 * recompilation) from the compilation idle of each step (ic->comp_step): a
 * step holding more than GD_RECOMPILE_FIRST_X x the median of all the steps
 * holding compilation is an initial compile (start-up); the others recur when
 * they number >= GD_RECOMPILE_MIN_STEPS and >= half the steps and one lies in
 * the last quarter: r->recompile_steps, recompile_idle_us, recompile_from_ns
 * and steps[].recompiling.  0, or -1 on allocation failure. */
static int recompilation(idle_ctx *ic)
{
    actx *a = ic->a;
    gpudiag_report *r = a->r;
    size_t n = a->nsteps;
    if (!ic->comp_step || n == 0)
        return 0;
    double *v = malloc(n * sizeof *v);
    if (!v)
        return -1;
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (ic->comp_step[k] > 0)
            v[m++] = (double)ic->comp_step[k];
    if (m == 0) {
        free(v);
        return 0;
    }
    static const double half = 0.5;
    double med;
    gd_quantiles(v, m, &half, 1, &med);
    free(v);
    double cap = GD_RECOMPILE_FIRST_X * med; /* above: an initial compile, start-up */
    size_t count = 0, first = n;
    int late = 0;
    int64_t sum = 0;
    for (size_t k = 0; k < n; k++)
        if (ic->comp_step[k] > 0 && !((double)ic->comp_step[k] > cap)) {
            count++;
            sum += ic->comp_step[k];
            late |= in_last_quarter(k, n);
            if (first == n)
                first = k;
        }
    if (count >= GD_RECOMPILE_MIN_STEPS && 2 * count >= n && late) {
        r->recompile_steps = count;
        r->recompile_idle_us = ns_to_us(sum);
        r->recompile_from_ns = a->steps[first].s;
        if (r->steps && r->step_count == n)
            for (size_t k = 0; k < n; k++)
                r->steps[k].recompiling = ic->comp_step[k] > 0 && !((double)ic->comp_step[k] > cap);
    }
    return 0;
}

/* A set-up call (DEFINITIONS "Communication", start-up communication): once per job, never
 * steady-state communication. */
static int is_setup_call(const char *nm, size_t nl)
{
    static const char *const exact[] = {"MPI_Init", "MPI_Init_thread", "MPI_Finalize", "ncclCommDestroy",
                                        "ncclCommFinalize"};
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (nl == strlen(exact[i]) && memcmp(nm, exact[i], nl) == 0)
            return 1;
    if (gd_starts_with(nm, nl, "ncclCommInit"))
        return 1;
    static const char *const sub[] = {"init_process_group", "destroy_process_group"};
    for (size_t i = 0; i < sizeof sub / sizeof *sub; i++) {
        size_t k = strlen(sub[i]);
        for (size_t p = 0; p + k <= nl; p++)
            if (memcmp(nm + p, sub[i], k) == 0)
                return 1;
    }
    return 0;
}

/* r->comm_startup_us (DEFINITIONS "Communication", start-up communication): the breakdown's
 * Communication role instants (a->comm_win) inside start-up idle — the gaps of cause startup
 * and of non-recurring compilation, any device — or inside a set-up call, ÷ steps; and
 * r->dataloader_startup_us (DEFINITIONS "Start-up in the window", start-up DataLoader time):
 * the DataLoader role instants (a->dl_win) inside start-up idle, ÷ steps.  After
 * recompilation().  0, or -1 on allocation failure. */
static int role_startup(idle_ctx *ic)
{
    actx *a = ic->a;
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    if ((!a->comm_win.len && !a->dl_win.len) || !a->nsteps)
        return 0;
    gd_vec x;
    gd_vec_init(&x, sizeof(gd_iv));
    int rc = -1;
    for (size_t i = 0; i < ic->su.len; i++) {
        const gd_iv *g = (const gd_iv *)ic->su.data + i;
        if (gd_iv_push(&x, g->s, g->e))
            goto out;
    }
    for (size_t i = 0; i < ic->comp.len; i++) {
        const gd_iv *g = (const gd_iv *)ic->comp.data + i;
        /* recurring compilation is steady state (rule 0, recompilation) */
        if (r->recompile_steps && g->s >= r->recompile_from_ns)
            continue;
        if (gd_iv_push(&x, g->s, g->e))
            goto out;
    }
    /* start-up idle alone: the DataLoader's share of it (set-up calls are communication's) */
    size_t nsu = gd_iv_merge(x.data, x.len);
    x.len = nsu;
    r->dataloader_startup_us =
        (double)gd_iv_intersect_len(a->dl_win.data, a->dl_win.len, x.data, nsu) / NS_PER_US / (double)a->nsteps;
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        if (c->cat == GD_CPU_GPU_ANNOT)
            continue;
        if (is_setup_call(gd_strtab_get(&t->names, c->name_id), gd_strtab_len(&t->names, c->name_id)) &&
            gd_iv_push(&x, c->ts_ns, c->ts_ns + gd_cpu_dur(t, c)))
            goto out;
    }
    x.len = gd_iv_merge(x.data, x.len);
    r->comm_startup_us = (double)gd_iv_intersect_len(a->comm_win.data, a->comm_win.len, x.data, x.len) / NS_PER_US /
                         (double)a->nsteps;
    rc = 0;
out:
    gd_vec_free(&x);
    return rc;
}

/* The top gaps into r->top_gaps, each with its step and the CPU op (or step)
 * it fell in.  0, or -1 on allocation failure (the gaps labelled so far are
 * the report's then). */
static int label_top_gaps(idle_ctx *ic)
{
    actx *a = ic->a;
    gpudiag_report *r = a->r;
    gpudiag_gap *top = ic->top;
    int64_t gs[GD_TOP_GAPS], ge[GD_TOP_GAPS];
    gd_vec cands[GD_TOP_GAPS];
    for (size_t i = 0; i < ic->ntop; i++) {
        gs[i] = top[i].start_ns;
        ge[i] = gs[i] + (int64_t)llround(top[i].duration_us * NS_PER_US);
        gd_vec_init(&cands[i], sizeof(gap_cand));
    }
    int bad = gap_cands(a->t, gs, ge, ic->ntop, cands) != 0;
    for (size_t i = 0; i < ic->ntop; i++) {
        int64_t at = top[i].start_ns;
        top[i].step = step_of_gap(a, at, ge[i], NULL);
        int oom = bad;
        const char *nm = oom ? NULL : gap_label(a->t, at, ge[i], &cands[i], &oom);
        char stepname[64];
        if (!oom && !nm && top[i].step >= 0) {
            snprintf(stepname, sizeof stepname, "ProfilerStep#%lld", (long long)top[i].step);
            nm = stepname;
        }
        if (oom || (nm && !(top[i].cpu_op = gd_arena_take(r->arena, gd_utf8_clean(nm, strlen(nm)))))) {
            r->top_gaps = top;
            r->top_gap_count = i;
            ic->top = NULL;
            for (size_t k = 0; k < ic->ntop; k++)
                gd_vec_free(&cands[k]);
            return -1;
        }
    }
    for (size_t k = 0; k < ic->ntop; k++)
        gd_vec_free(&cands[k]);
    r->top_gaps = top;
    r->top_gap_count = ic->ntop;
    ic->top = NULL;
    return 0;
}

/* Every gap (or the max_gaps longest, back in device and time order) into
 * r->gaps.  0, or -1 on allocation failure. */
static int keep_gaps(idle_ctx *ic)
{
    gpudiag_report *r = ic->a->r;
    if (ic->kept) {
        qsort(ic->kept, ic->nkept, sizeof *ic->kept, cmp_kept_pos);
        if (gd_vec_reserve(&ic->all, ic->nkept) != 0)
            return -1;
        for (size_t i = 0; i < ic->nkept; i++)
            ((gpudiag_gap *)ic->all.data)[i] = ic->kept[i].g;
        ic->all.len = ic->nkept;
    }
    r->gaps = gd_arena_adopt(r->arena, ic->all.data); /* frees all.data on OOM */
    r->gaps_kept = r->gaps ? ic->all.len : 0;
    int lost = ic->all.data && !r->gaps;
    ic->all.data = NULL;
    ic->all.len = ic->all.cap = 0;
    return lost ? -1 : 0;
}

/* Merge each of sets[HOST_SETS] (a side's own sets, merged on its thread:
 * gd_idle_gaps then joins two merged runs linearly). */
static void merge_sets(gd_vec *sets)
{
    for (int h = 0; h < HOST_SETS; h++)
        sets[h].len = gd_iv_merge(sets[h].data, sets[h].len);
}

void gd_idle_free(actx *a)
{
    if (!a->idle)
        return;
    idle_ctx_free(a->idle);
    free(a->idle);
    a->idle = NULL;
}

int gd_idle_begin(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    idle_ctx *ic = calloc(1, sizeof *ic);
    if (!ic)
        return -1;
    a->idle = ic;
    ic->a = a;
    for (int h = 0; h < HOST_SETS; h++) {
        gd_vec_init(&ic->host[h], sizeof(gd_iv));
        gd_vec_init(&ic->ops[h], sizeof(gd_iv));
    }
    gd_vec_init(&ic->busy, sizeof(gd_iv));
    gd_vec_init(&ic->idle, sizeof(gd_iv));
    gd_vec_init(&ic->all, sizeof(gpudiag_gap));
    gd_vec_init(&ic->waits, sizeof(int64_t));
    gd_vec_init(&ic->unrec, sizeof(int64_t));
    gd_vec_init(&ic->su, sizeof(gd_iv));
    gd_vec_init(&ic->comp, sizeof(gd_iv));
    ic->have_span = a->nsteps && t->gpu_ops.len > 0 && a->span_e > a->span_s;
    if (!ic->have_span)
        return 0;
    gpudiag_timeline *tl = &r->timeline;
    tl->start_ns = a->span_s;
    tl->end_ns = a->span_e;
    tl->bins = GPUDIAG_TIMELINE_BINS;
    tl->bin_us = ns_to_us(a->span_e - a->span_s) / (double)tl->bins;
    ic->top = gd_arena_calloc(r->arena, GD_TOP_GAPS, sizeof *ic->top); /* r->top_gaps */
    if (!(ic->comp_step = calloc(a->nsteps, sizeof *ic->comp_step)))
        return -1;
    ic->kept = a->max_gaps ? malloc(a->max_gaps * sizeof *ic->kept) : NULL;
    return ic->top && (!a->max_gaps || ic->kept) ? 0 : -1;
}

int gd_idle_streams(actx *a) { return stream_breakdown(a); }

int gd_idle_device_ops(actx *a)
{
    idle_ctx *ic = a->idle;
    return ic->have_span ? sort_device_ops(ic) : 0;
}

int gd_idle_host_calls(actx *a)
{
    idle_ctx *ic = a->idle;
    if (graph_replays(a, &ic->unrec) != 0)
        return -1;
    if (!ic->have_span)
        return 0;
    if (host_call_sets(ic) != 0)
        return -1;
    merge_sets(ic->host);
    return 0;
}

int gd_idle_host_ops(actx *a)
{
    idle_ctx *ic = a->idle;
    if (!ic->have_span)
        return 0;
    if (host_op_sets(ic, ic->ops) != 0)
        return -1;
    merge_sets(ic->ops);
    return 0;
}

/* The CPU ops' sets joined to the calls' ones: two merged runs, so
 * gd_iv_merge joins them linearly (merge(merge(A) ∪ merge(B)) = merge(A ∪
 * B): the sets are the same whichever thread built which).  0, or -1 on
 * allocation failure. */
static int join_sets(idle_ctx *ic)
{
    for (int h = 0; h < HOST_SETS; h++) {
        gd_vec *dst = &ic->host[h];
        const gd_vec *src = &ic->ops[h];
        if (!src->len)
            continue;
        if (gd_vec_reserve(dst, dst->len + src->len) != 0)
            return -1;
        memcpy((char *)dst->data + dst->len * dst->elem, src->data, src->len * src->elem);
        dst->len = gd_iv_merge(dst->data, dst->len + src->len);
    }
    return 0;
}

int gd_idle_gaps(actx *a)
{
    idle_ctx *ic = a->idle;
    gpudiag_report *r = a->r;
    int rc = -1;
    if (!ic->have_span) {
        rc = 0;
        goto out;
    }
    r->timeline.devices = gd_arena_calloc(r->arena, r->device_count + 1, sizeof *r->timeline.devices);
    if (!r->timeline.devices || join_sets(ic) != 0)
        goto out;
    for (size_t di = 0; di < r->device_count; di++)
        if (idle_device(ic, r->devices[di].id) != 0)
            goto out;
    if (recompilation(ic) != 0 || role_startup(ic) != 0 || label_top_gaps(ic) != 0 || keep_gaps(ic) != 0)
        goto out;
    rc = 0;
out:
    gd_idle_free(a);
    return rc;
}
