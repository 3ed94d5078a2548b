/*
 * kineto_event.c — committing one parsed Kineto event to the compact model
 * (model/trace.h): GPU ops, runtime calls, CPU ops, steps, flops records and
 * the counts of events not kept (docs/DEFINITIONS.md "Time and events").
 */
#include <math.h>
#include <string.h>

#include "ingest/kineto_int.h"
#include "model/collective.h"
#include "util/util.h"

/* ---- committing an event ---------------------------------------------- */

#define GD_NAME_LEN(s) {s, sizeof s - 1}
static const struct { const char *s; size_t len; } comm_op_names[] = {
    GD_NAME_LEN("nccl:broadcast"), GD_NAME_LEN("nccl:reduce"), GD_NAME_LEN("nccl:all_reduce"),
    GD_NAME_LEN("nccl:all_gather"), GD_NAME_LEN("nccl:reduce_scatter"),
    GD_NAME_LEN("gloo:broadcast"), GD_NAME_LEN("gloo:reduce"), GD_NAME_LEN("gloo:all_reduce"),
    GD_NAME_LEN("gloo:all_gather"), GD_NAME_LEN("gloo:reduce_scatter"),
};
#undef GD_NAME_LEN

/* 1 for an NCCL collective op's name, 2 for Gloo's, else 0 (lengths first:
 * this runs for every CPU op, twice). */
static int comm_op_kind(const char *n, size_t len)
{
    if (len < 11 || (n[0] != 'n' && n[0] != 'g'))
        return 0;
    for (size_t i = 0; i < sizeof comm_op_names / sizeof comm_op_names[0]; i++)
        if (comm_op_names[i].len == len && memcmp(n, comm_op_names[i].s, len) == 0)
            return i < 5 ? 1 : 2;
    return 0;
}

/* The C library's memset, called: a fixed-size memset is otherwise inlined
 * as `rep stos` (gd_kt_ev_clear). */
static void *(*volatile ev_memset)(void *, int, size_t) = memset;

void gd_kt_ev_clear(ev_scratch *e)
{
    ev_memset(e, 0, sizeof *e);
}

/* Count an 'X' event of a category no analysis reads (DEFINITIONS "Time and
 * events", devices not analysed).  -1 on OOM. */
static int note_other_cat(gpudiag_trace *t, const ev_scratch *e)
{
    int device = e->has_corr || e->has_device || e->has_stream;
    for (size_t i = 0; i < t->other_cats.len; i++) {
        gd_other_cat *c = gd_vec_at(&t->other_cats, i);
        if (strlen(c->name) == e->cat_len && memcmp(c->name, e->cat_name, e->cat_len) == 0) {
            c->events++;
            c->device |= device;
            return 0;
        }
    }
    if (t->other_cats.len >= GD_OTHER_CATS_MAX) {
        if (device)
            t->other_cat_events_dropped++;
        return 0;
    }
    gd_other_cat c;
    memset(&c, 0, sizeof c);
    memcpy(c.name, e->cat_name, e->cat_len);
    c.events = 1;
    c.device = device;
    return gd_vec_push(&t->other_cats, &c) ? 0 : -1;
}

/* ts_hi_at / ts_lo_at: a superset of the GD_TS_RESERVOIR latest (earliest)
 * starts.  Entries are appended; when 2 x GD_TS_RESERVOIR are held, a selection
 * moves the GD_TS_RESERVOIR best to the front and drops the rest, and the worst
 * kept becomes the bar a new start must pass: O(1) per event amortised. */
static int ts_better(const gd_ts_at *a, const gd_ts_at *b, int hi)
{
    return hi ? a->ts_ns > b->ts_ns : a->ts_ns < b->ts_ns;
}

/* Put the k best of a[0..n) first (any order), n > k. */
static void ts_select(gd_ts_at *a, size_t n, size_t k, int hi)
{
    size_t lo = 0, up = n; /* the k-th best lies in [lo, up) */
    while (up - lo > 1) {
        gd_ts_at piv = a[lo + (up - lo) / 2];
        size_t i = lo, j = up, m = lo;
        /* three-way partition: better | equal | worse */
        while (m < j) {
            if (ts_better(&a[m], &piv, hi)) {
                gd_ts_at x = a[i]; a[i] = a[m]; a[m] = x;
                i++, m++;
            } else if (ts_better(&piv, &a[m], hi)) {
                j--;
                gd_ts_at x = a[j]; a[j] = a[m]; a[m] = x;
            } else {
                m++;
            }
        }
        if (k < i)
            up = i;
        else if (k >= j)
            lo = j;
        else
            return; /* the k-th falls among the equal ones */
    }
}

static int ts_keep(gd_vec *v, int64_t *bar, int hi, const gd_ts_at *r)
{
    if (v->len >= GD_TS_RESERVOIR && !(hi ? r->ts_ns > *bar : r->ts_ns < *bar))
        return 0; /* not among the best kept so far */
    if (v->len == 2 * GD_TS_RESERVOIR) {
        gd_ts_at *a = v->data;
        ts_select(a, v->len, GD_TS_RESERVOIR, hi);
        v->len = GD_TS_RESERVOIR;
        *bar = a[0].ts_ns;
        for (size_t i = 1; i < v->len; i++)
            if (hi ? a[i].ts_ns < *bar : a[i].ts_ns > *bar)
                *bar = a[i].ts_ns;
        if (!(hi ? r->ts_ns > *bar : r->ts_ns < *bar))
            return 0;
    }
    return gd_vec_push(v, r) ? 0 : -1;
}

/* The legacy autograd profiler's export (torch.autograd.profiler without
 * Kineto, e.g. Debian's PyTorch 1.13): no "cat"; pid "CPU functions" are CPU
 * ops, "CUDA functions" kernels on device `tid`, stream not recorded
 * (DEFINITIONS "Time and events"). */
static void map_legacy(gpudiag_trace *t, ev_scratch *e)
{
    t->legacy_events++;
    if (e->legacy_pid == LEGACY_CPU) {
        e->cat = CAT_OPERATOR;
    } else {
        e->cat = CAT_KERNEL;
        e->device = e->has_tid ? e->tid : 0;
        e->has_device = 1;
        e->stream = 0;
        e->has_stream = 1;
    }
}

/* A Kineto `overhead` event of the profiler's own: the CUPTI overhead kinds
 * that are the profiler's (Kineto's overheadKindString names "Activity Buffer
 * Request", "Buffer Flush", "Instrumentation", "Resource"); not "Driver
 * Compiler", "Runtime Triggered Module Loading", "Lazy Function Loading",
 * "Command Buffer Full" nor "Unknown", which the program pays for profiled or
 * not (DEFINITIONS "Idle gaps and their causes", rule 0c). */
static int profiler_overhead_name(const char *n, size_t len)
{
    static const char *const own[] = {"Activity Buffer Request", "Buffer Flush", "Instrumentation", "Resource"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (strlen(own[i]) == len && memcmp(n, own[i], len) == 0)
            return 1;
    return 0;
}

/* Whether an event is kept as a record: 1 yes; 0 no, counted by why; -1 on OOM. */
static int event_kept(gpudiag_trace *t, const ev_scratch *e, const char *name)
{
    if (e->ph == 's' && e->cat == CAT_OTHER && e->cat_len == 11 && memcmp(e->cat_name, "cpu_to_cuda", 11) == 0)
        t->legacy_launch_arrows++; /* the legacy export's arrow to a kernel it did not write */
    if (e->ph != 'X') {
        t->ignored_events++;
        return 0;
    }
    if (e->cat == CAT_OTHER || (e->cat == CAT_OVERHEAD && !profiler_overhead_name(name, e->name_len))) {
        t->ignored_events++;
        return note_other_cat(t, e) != 0 ? -1 : 0;
    }
    if (e->cat == CAT_PROFILER_RANGE) {
        /* Kineto's CUPTI range profiler spreads its ranges evenly over the profiling span
         * (one per kernel): counters, not timings, so not GPU ops (DEFINITIONS "Time and events") */
        t->ignored_events++;
        t->profiler_ranges++;
        return 0;
    }
    if (e->cat == CAT_UNKNOWN) {
        t->ignored_events++;
        t->uncategorised_events++; /* DEFINITIONS "Time and events": may be GPU work we cannot tell */
        return 0;
    }
    if (!e->has_ts || e->ts_bad) {
        t->skipped_no_dur++;
        return 0;
    }
    if (!e->has_dur || e->dur_bad || e->dur_ns < 0) {
        t->skipped_no_dur++;
        return 0;
    }
    return 1;
}

/* The id of the event's name in t->names (its hash computed ahead when a
 * parse thread did it). */
static uint32_t intern_name(gpudiag_trace *t, const ev_scratch *e, const char *name, size_t nlen)
{
    return e->has_name_hash ? gd_strtab_intern_hashed(&t->names, name, nlen, e->name_hash)
                            : gd_strtab_intern(&t->names, name, nlen);
}

/* A kernel, memcpy or memset. */
static int commit_gpu_op(gpudiag_trace *t, const ev_scratch *e, const char *name, size_t nlen)
{
    if (e->ts_ns == 0) {
        t->skipped_zero_ts++;
        return 0;
    }
    gd_gpu_op op;
    memset(&op, 0, sizeof op);
    op.ts_ns = e->ts_ns;
    op.dur_ns = e->dur_ns;
    op.kind = (uint8_t)(e->cat == CAT_KERNEL ? GD_GPU_KERNEL : e->cat == CAT_MEMCPY ? GD_GPU_MEMCPY : GD_GPU_MEMSET);
    {
        int64_t dev = e->has_device ? e->device : (e->has_pid ? e->pid : 0);
        if (dev < -1 || dev > GD_MAX_DEVICE_ID) {
            t->skipped_bad_value++; /* not a device index a GPU can have */
            return 0;
        }
        op.device = (int32_t)dev;
    }
    op.stream = (int32_t)(e->has_stream ? e->stream : (e->has_tid ? e->tid : -1));
    op.correlation = e->has_corr ? e->correlation : -1;
    if (e->cat == CAT_KERNEL) {
        op.external_id = e->has_ext ? e->external_id : -1;
        if (e->has_ext)
            op.flags |= GD_GF_HAS_EXT;
        op.coll = (uint8_t)e->coll;
    } else {
        op.bytes = e->has_bytes ? e->bytes : -1;
    }
    if (e->has_corr)
        op.flags |= GD_GF_HAS_CORR;
    if (e->has_bps) {
        op.blocks_per_sm = (float)e->bps;
        op.flags |= GD_GF_HAS_BPS;
    }
    if (e->has_occ) {
        op.occupancy_pct = (float)e->occ;
        op.flags |= GD_GF_HAS_OCC;
    }
    if (e->kval_bad && e->cat == CAT_KERNEL) { /* kept, without the impossible value (DEFINITIONS "GPU metrics") */
        t->skipped_bad_value++;
        t->kernels_bad_value++;
    }
    op.name_id = intern_name(t, e, name, nlen);
    if (op.name_id == UINT32_MAX || !gd_vec_push(&t->gpu_ops, &op))
        return -1;
    return 0;
}

/* A CUDA runtime or driver call. */
static int commit_runtime(gpudiag_trace *t, const ev_scratch *e, const char *name, size_t nlen)
{
    gd_runtime rt;
    memset(&rt, 0, sizeof rt);
    rt.ts_ns = e->ts_ns;
    rt.correlation = e->has_corr ? e->correlation : -1;
    rt.name_id = intern_name(t, e, name, nlen);
    if (rt.name_id == UINT32_MAX)
        return -1;
    if (!t->is_amd && nlen > 3 && memcmp(name, "hip", 3) == 0)
        t->is_amd = 1;
    if (gd_trace_push_runtime(t, &rt, e->dur_ns, (int32_t)(e->has_tid ? e->tid : 0)) != 0)
        return -1;
    if (e->has_pid) { /* correlation ids are per process (DEFINITIONS "Time and events") */
        unsigned k = 0;
        while (k < t->rt_pid_count && t->rt_pids[k] != e->pid)
            k++;
        if (k == t->rt_pid_count && k < GD_RT_PIDS_MAX)
            t->rt_pids[t->rt_pid_count++] = e->pid;
    }
    if (e->cat == CAT_DRIVER)
        t->driver_calls++;
    return 0;
}

/* A "ProfilerStep#N" marker. */
static int commit_host_step(gpudiag_trace *t, const ev_scratch *e, const char *name, size_t nlen)
{
    if (e->dur_ns == 0) {
        /* a zero-length step marker holds no work: not a step (TBP would count
         * it as a 0 us step and halve the mean) */
        t->ignored_events++;
        return 0;
    }
    gd_host_step st;
    st.ts_ns = e->ts_ns;
    st.dur_ns = e->dur_ns;
    st.number = -1;
    int64_t num;
    if (gd_kt_parse_int64(name + 13, nlen - 13, &num) == 0)
        st.number = num;
    return gd_vec_push(&t->host_steps, &st) ? 0 : -1;
}

/* Role of a CPU op as the TensorBoard plugin assigns it
 * (event_parser.py:_parse_step); gpu_user_annotation maps to user_annotation
 * there: an enum gd_cpu_role.  Notes NCCL / Gloo ops on t.  -1 on OOM. */
static int cpu_op_role(gpudiag_trace *t, const ev_scratch *e, const char *name, size_t nlen)
{
    int r;
    if (e->cat == CAT_PYFUNC) {
        r = GD_CR_NONE;
    } else if (e->cat == CAT_GPU_ANNOT && !comm_op_kind(name, nlen)) {
        /* Deviation from TBP (docs/DEFINITIONS.md): a gpu_user_annotation is
         * the device-side copy of a host annotation, not CPU work, so it is
         * not CPU Exec. */
        r = GD_CR_NONE;
    } else if (e->cat != CAT_PYTHON &&
               ((gd_starts_with(name, nlen, "enumerate(DataLoader)#") && gd_ends_with(name, nlen, ".__next__")) ||
                gd_starts_with(name, nlen, "enumerate(DataPipe)#"))) {
        r = GD_CR_DATALOADER;
    } else {
        int ck = comm_op_kind(name, nlen);
        if (ck) {
            r = GD_CR_COMM;
            if (ck == 1)
                t->has_nccl_ops = 1;
            else
                t->has_gloo_ops = 1;
            if (e->has_ext && !gd_vec_push(&t->comm_ext_ids, &e->external_id))
                return -1;
        } else {
            r = GD_CR_CPU_EXEC;
        }
    }
    return r;
}

/* FLOPs of an operator for the roofline (docs/DEFINITIONS.md "Roofline of the kernels"). */
static int note_op_flops(gpudiag_trace *t, const ev_scratch *e, const char *name, size_t nlen,
                         const gd_op_shapes *shapes)
{
    gd_op_flops of;
    memset(&of, 0, sizeof of);
    gd_gemm_shape g;
    int counted = gd_op_gemm_from_shapes(name, nlen, shapes, &g);
    int elt = counted ? g.elt : GD_ELT_UNKNOWN;
    if (counted) {
        of.flops = g.flops;
        of.bytes = g.bytes;
        int rank = g.weight ? gd_adapter_rank(g.k, g.n) : 0;
        of.adapter_rank = (uint8_t)rank;
        of.adapter_up = (uint8_t)(rank && g.k == rank);
    }
    if (e->has_flops) {
        if (!counted) {
            of.bytes = NAN;
            elt = shapes->n_types > 0 ? shapes->type[0] : GD_ELT_UNKNOWN;
        }
        of.flops = e->flops; /* the profiler's own count wins */
        of.source = GD_OPF_FLOPS_ARG;
    } else {
        of.source = GD_OPF_SHAPES;
    }
    if (counted || e->has_flops) {
        of.external_id = e->has_ext ? e->external_id : -1;
        of.ts_ns = e->ts_ns;
        of.dur_ns = e->dur_ns;
        of.tid = (int32_t)(e->has_tid ? e->tid : 0);
        of.elt = (uint8_t)elt;
        if (!gd_vec_push(&t->op_flops, &of))
            return -1;
    }
    return 0;
}

/* An operator, annotation or Python event: a step marker or a CPU op. */
static int commit_host(gpudiag_trace *t, const ev_scratch *e, const char *name, size_t nlen,
                       const gd_op_shapes *shapes)
{
    if ((e->cat == CAT_OPERATOR || e->cat == CAT_USER_ANNOT) && gd_starts_with(name, nlen, "ProfilerStep#"))
        return commit_host_step(t, e, name, nlen);
    gd_cpu_op op;
    memset(&op, 0, sizeof op);
    op.ts_ns = e->ts_ns;
    op.cat = (uint8_t)(e->cat == CAT_OPERATOR ? GD_CPU_OPERATOR
                       : e->cat == CAT_USER_ANNOT ? GD_CPU_USER_ANNOT
                       : e->cat == CAT_GPU_ANNOT ? GD_CPU_GPU_ANNOT
                       : e->cat == CAT_PYTHON ? GD_CPU_PYTHON : GD_CPU_PYFUNC);
    int role = cpu_op_role(t, e, name, nlen);
    if (role < 0)
        return -1;
    op.role = (uint32_t)role;
    uint32_t nid = intern_name(t, e, name, nlen);
    if (nid == UINT32_MAX || gd_trace_push_cpu_op(t, &op, nid, e->dur_ns, (int32_t)(e->has_tid ? e->tid : 0)) != 0)
        return -1;
    gd_coll_params cp = {e->in_nelems1 - 1, e->out_nelems1 - 1, e->dtype_size, e->group_size};
    if (e->cat != CAT_GPU_ANNOT && e->cat != CAT_PYFUNC &&
        gd_trace_note_comm_call(t, name, nlen, e->coll, e->ts_ns, e->dur_ns, e->has_ext ? e->external_id : -1,
                                (int32_t)(e->has_tid ? e->tid : 0), &cp) != 0)
        return -1;
    if (e->cat == CAT_OPERATOR && (e->has_flops || shapes->n_in > 0))
        return note_op_flops(t, e, name, nlen, shapes);
    return 0;
}

/* A `[memory]` instant event: a CUDA/HIP device's (`Device Type` 1) is kept,
 * any other device type's only counted (DEFINITIONS "Memory timeline"). */
static int commit_memory(gpudiag_trace *t, const ev_scratch *e)
{
    if (!e->has_ts || e->ts_bad || e->mem_bad) {
        t->skipped_bad_value++;
        return 0;
    }
    if (!e->has_mem_dev_type || e->mem_dev_type != 1 || !e->has_mem_dev_id || e->mem_dev_id < 0 ||
        e->mem_dev_id > GD_MAX_DEVICE_ID) {
        t->mem_events_other++;
        return 0;
    }
    gd_mem_event m = {e->ts_ns, e->mem_bytes, e->mem_total_alloc - 1, e->mem_total_res - 1, (int32_t)e->mem_dev_id, 0};
    return gd_vec_push(&t->mem_events, &m) ? 0 : -1;
}

static int commit_event_inner(parser *p, ev_scratch *e, const char *name, const gd_op_shapes *shapes)
{
    gpudiag_trace *t = p->t;
    t->events++;
    if (e->ph)
        t->events_with_ph++;
    if (p->header_only)
        return 0; /* distributedInfo comes after the events: parse on, keep nothing */
    if (e->ph == 'i' && e->name_len == 8 && memcmp(name, "[memory]", 8) == 0)
        return commit_memory(t, e);
    if (!e->has_cat && e->legacy_pid && e->ph == 'X')
        map_legacy(t, e);
    int kept = event_kept(t, e, name);
    if (kept <= 0)
        return kept;
    size_t nlen = e->name_len;
    switch (e->cat) {
    case CAT_KERNEL:
    case CAT_MEMCPY:
    case CAT_MEMSET:
        return commit_gpu_op(t, e, name, nlen);
    case CAT_RUNTIME:
    case CAT_DRIVER:
        return commit_runtime(t, e, name, nlen);
    case CAT_OVERHEAD: { /* the profiler's own overhead (event_kept): idle rule 0c */
        gd_host_step o = {e->ts_ns, e->dur_ns, -1};
        return gd_vec_push(&t->prof_overheads, &o) ? 0 : -1;
    }
    case CAT_TRACE:
        if (nlen == 20 && memcmp(name, "PyTorch Profiler (0)", 20) == 0) {
            t->trace_span_start_ns = e->ts_ns;
            t->trace_span_end_ns = e->ts_ns + e->dur_ns;
            t->has_trace_span = 1;
        }
        return 0;
    case CAT_OPERATOR:
    case CAT_USER_ANNOT:
    case CAT_GPU_ANNOT:
    case CAT_PYTHON:
    case CAT_PYFUNC:
        return commit_host(t, e, name, nlen, shapes);
    default:
        t->ignored_events++;
        return 0;
    }
}

/* Commit the event; when it became a record of the model, keep its start with
 * the offset of its `ts` among the latest / earliest (docs/DEFINITIONS.md
 * "Sanitising the timeline" 2 names the first outlier by it). */
int gd_kt_commit_event(parser *p, ev_scratch *e, const char *name, const gd_op_shapes *shapes)
{
    gpudiag_trace *t = p->t;
    size_t before = t->gpu_ops.len + t->runtimes.len + t->cpu_ops.len + t->host_steps.len;
    if (commit_event_inner(p, e, name, shapes) != 0)
        return -1;
    /* cppcheck-suppress knownConditionTrueFalse ; false positive: commit_event_inner pushes through p->t */
    if (t->gpu_ops.len + t->runtimes.len + t->cpu_ops.len + t->host_steps.len == before)
        return 0;
    gd_ts_at r = {e->ts_ns, e->ts_at1 - 1};
    if (ts_keep(&t->ts_hi_at, &p->ts_hi_bar, 1, &r) != 0 || ts_keep(&t->ts_lo_at, &p->ts_lo_bar, 0, &r) != 0)
        return -1;
    return 0;
}
