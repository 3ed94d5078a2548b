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
 * This file is the pipeline: the report's input block, the context
 * (correlation index, name classes), then the passes in order (steps.c,
 * devices.c, kernels.c, idle.c, transfers.c, comm.c, the summary here,
 * steady.c, mfu.c, roofline.c) and gd_diagnose.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/passes.h"
#include "analyze/mfu_trace.h"
#include "analyze/roofline.h"
#include "analyze/kclass.h"
#include "diagnose/rules.h"
#include "model/report.h"
#include "model/trace.h"

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
    gd_sort_doubles(v, n);
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
    uint32_t f = a->nflags[id];
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
    v |= (unsigned)gd_runtime_alloc_kind(nm, nl) << NF_ALLOC_SHIFT;
    a->nflags[id] = v;
    return v;
}

const gd_runtime *gd_runtime_of_op(const actx *a, size_t op_index)
{
    uint32_t v = a->rt_of_op[op_index];
    return v ? gd_vec_at(&a->t->runtimes, v - 1) : NULL;
}

size_t gd_corr_of_runtime(const actx *a, size_t rt_index)
{
    uint32_t v = a->corr_of_rt[rt_index];
    return v ? v - 1 : a->ncorr;
}

/* a->rt_of_op and a->corr_of_rt from the two indexes sorted by correlation:
 * each op's launch is the first runtime call with its correlation, and each
 * call's ops start at the first index entry with its correlation (a binary
 * search's answers, found here by one merge each instead of a search in
 * every pass). */
static void link_ops_to_runtimes(actx *a)
{
    size_t j = 0;
    for (size_t k = 0; k < a->ncorr; k++) {
        int64_t c = a->corr[k].correlation;
        while (j < a->nrt_index && a->rt_index[j].correlation < c)
            j++;
        if (j < a->nrt_index && a->rt_index[j].correlation == c)
            a->rt_of_op[a->corr[k].op] = a->rt_index[j].idx + 1;
    }
    size_t k = 0;
    for (j = 0; j < a->nrt_index; j++) {
        int64_t c = a->rt_index[j].correlation;
        while (k < a->ncorr && a->corr[k].correlation < c)
            k++;
        if (k < a->ncorr && a->corr[k].correlation == c)
            a->corr_of_rt[a->rt_index[j].idx] = (uint32_t)k + 1;
    }
}

_Static_assert(GPUDIAG_KCLASS_COUNT <= 16, "kernel class fits the 4 NF_CLASS bits");

/* Widen [*mn, *mx] to cover [ts, ts + dur). */
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

/* Runtime calls of two or more processes (DEFINITIONS "Time and events", correlation ids of
 * several processes): a correlation id on two or more calls cannot name the call that launched
 * its ops. Its calls leave a->rt_index, so they and its ops join nothing; counted into the report. */
static void drop_ambiguous_ids(actx *a)
{
    gpudiag_report *r = a->r;
    size_t w = 0, k = 0;
    for (size_t j = 0; j < a->nrt_index;) {
        int64_t c = a->rt_index[j].correlation;
        size_t e = j + 1;
        while (e < a->nrt_index && a->rt_index[e].correlation == c)
            e++;
        if (e - j == 1) {
            a->rt_index[w++] = a->rt_index[j];
        } else {
            r->corr_ambiguous_ids++;
            r->corr_ambiguous_calls += e - j;
            while (k < a->ncorr && a->corr[k].correlation < c)
                k++;
            for (; k < a->ncorr && a->corr[k].correlation == c; k++)
                r->corr_ambiguous_ops++;
        }
        j = e;
    }
    a->nrt_index = w;
}

static int build_corr_index(actx *a)
{
    const gpudiag_trace *t = a->t;
    size_t n = t->gpu_ops.len;
    a->corr = malloc((n + 1) * sizeof *a->corr);
    a->op_is_comm = calloc(n + 1, 1);
    a->nflags = calloc((size_t)t->names.count + 1, sizeof *a->nflags);
    a->rt_index = malloc((t->runtimes.len + 1) * sizeof *a->rt_index);
    a->rt_of_op = calloc(n + 1, sizeof *a->rt_of_op);
    a->corr_of_rt = calloc(t->runtimes.len + 1, sizeof *a->corr_of_rt);
    if (!a->corr || !a->op_is_comm || !a->nflags || !a->rt_index || !a->rt_of_op || !a->corr_of_rt)
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
    a->r->host_processes = t->rt_pid_count;
    if (t->rt_pid_count >= 2)
        drop_ambiguous_ids(a);
    link_ops_to_runtimes(a);
    return 0;
}

static void report_init(gpudiag_report *r)
{
    /* gd_report_new set the numbers shared with a monitoring log's report */
    r->idle_step_us = NAN;
    r->first_step_host_start_us = NAN;
}

/* The report's input block (r->input, r->nsight, r->is_amd, r->has_gpu): what
 * was read and what the reader skipped, copied from the trace with its strings
 * made valid UTF-8.  0, or -1 when a string cannot be allocated. */
static int report_input(const gpudiag_trace *t, gpudiag_report *r)
{
    gpudiag_input_info *in = &r->input;
    in->path = gd_arena_take(r->arena, gd_utf8_clean(t->path, strlen(t->path)));
    in->format = t->nsys.present ? "nsys" : "kineto";
    in->bytes = t->bytes;
    in->events = t->events;
    in->truncated = t->truncated;
    in->truncated_at = t->truncated_at;
    in->trailing_at = t->trailing_at;
    in->gz_trailing_at = t->gz_trailing_at;
    in->gz_trailing_bytes = t->gz_trailing_bytes;
    in->skipped_malformed = t->skipped_malformed;
    in->skipped_no_dur = t->skipped_no_dur;
    in->skipped_zero_ts = t->skipped_zero_ts;
    in->skipped_bad_value = t->skipped_bad_value;
    in->kernels_bad_value = t->kernels_bad_value;
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
    in->framework = gd_trace_framework(t);
    in->legacy_launches = t->legacy_launch_arrows;
    in->profiler_ranges = t->profiler_ranges;
    unanalysed_devices(t, in);
    int strings_ok = 1;
    if (t->nsys.present) {
        gpudiag_nsys_info *ni = &in->nsys;
        ni->present = 1;
        ni->version = gd_arena_take(r->arena, gd_utf8_clean(t->nsys.version, strlen(t->nsys.version)));
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
        ni->schema_gaps = gd_arena_take(r->arena, gd_utf8_clean(t->nsys.schema_gaps, strlen(t->nsys.schema_gaps)));
        ni->schema_gap_count = t->nsys.schema_gap_count;
        ni->steps_source = gd_arena_take(r->arena, gd_utf8_clean(t->nsys.steps_source, strlen(t->nsys.steps_source)));
        strings_ok = ni->version && ni->schema_gaps && ni->steps_source;
        r->nsight = t->nsys.rules;
    } else {
        r->nsight.gap_max_us = NAN;
        r->nsight.util_min = NAN;
    }
    if (t->step_range[0]) {
        in->step_range = gd_arena_take(r->arena, gd_utf8_clean(t->step_range, strlen(t->step_range)));
        strings_ok = strings_ok && in->step_range;
        in->step_range_missing = t->step_range_missing;
        if (t->step_range_missing) {
            in->step_range_candidates = gd_arena_take(r->arena, range_candidates(t));
            strings_ok = strings_ok && in->step_range_candidates;
        }
    }
    in->steps_selected = t->steps_selected;
    in->steps_first = t->steps_first;
    in->steps_last = t->steps_last;
    in->steps_before_selection = t->steps_before_selection;
    in->steps_window_start_ns = t->steps_window_start_ns;
    in->steps_window_end_ns = t->steps_window_end_ns;
    return in->path && strings_ok ? 0 : -1;
}

/* ---- the pipeline ------------------------------------------------------- */

/* Adapters for the passes that do not take the context. */
static int pass_transfers(actx *a)
{
    gd_build_transfers(a);
    return 0;
}

static int pass_summary(actx *a)
{
    build_summary(a);
    return 0;
}

static int pass_steady(actx *a)
{
    gd_build_steady(a->r);
    return 0;
}

static int pass_mfu(actx *a)
{
    gd_build_mfu(a->r, a->opts);
    return 0;
}

void gd_build_shares(gpudiag_report *r)
{
    gd_build_class_shares(r);
    gd_build_comm_kind_shares(r);
    gd_build_transfer_rates(r);
    gd_build_gemm_fill_share(r);
}

static int pass_shares(actx *a)
{
    gd_build_shares(a->r);
    return 0;
}

static int pass_roofline(actx *a) { return gd_build_roofline(a->t, &a->opk, a->r, a->opts); }

static int pass_op_join(actx *a) { return gd_join_op_kernels(a, &a->opk); }

void gd_name_flags_all(actx *a)
{
    for (uint32_t id = 0; id < a->t->names.count; id++)
        gd_name_flags(a, id);
}

static int pass_diagnose(actx *a) { return gd_diagnose(a->t, a->r); }

/* The passes in the order they run: each reads what the rows above it filled
 * (passes.h and analyze.h say which), and returns 0, or -1 on allocation
 * failure.  A new pass is one row here and its file.
 *
 * side: consecutive rows with the same nonzero side read nothing the others
 * of their run write, so with opts.threads > 1 they run side by side on up
 * to that many threads, each taking the next row in order (issue 24;
 * docs/PERFORMANCE.md): they write different
 * report fields (and different members of the same r->steps[] entries), take
 * their memory from the report's arena (which is safe across threads) or
 * their own, and read actx only after the rows above filled it.  Every
 * name's class flags are computed before the first such run (gd_name_flags
 * fills its cache on first use).  A row whose inputs are written in its run
 * gets side 0 or another run after it. */
static const struct {
    /* cppcheck-suppress unusedStructMember ; names the row for its reader and a debugger */
    const char *name;
    int (*fn)(actx *a);
    int side;
} passes[] = {
    {"correlation index", build_corr_index, 0},
    {"steps", gd_build_steps, 0},
    {"idle: setup", gd_idle_begin, 0},
    /* side 1: after steps and the idle setup; the longest first, as threads take them in order */
    {"idle: host ops", gd_idle_host_ops, 1},
    {"idle: host calls", gd_idle_host_calls, 1},
    {"step breakdown", gd_build_breakdown, 1},
    {"idle: stream breakdown", gd_idle_streams, 1},
    {"devices", gd_build_devices, 1},
    {"op kernels", pass_op_join, 1},
    {"idle: device ops", gd_idle_device_ops, 1},
    {"kernels", gd_build_kernels, 1},
    {"mfu", pass_mfu, 0}, /* after the breakdown (r->avg_step_us) and devices */
    /* side 2: the gaps read r->devices[].id; the roofline the op join, r->mfu_dtype, the devices'
     * GPUs and r->kernel_time_us; lora the op join and the GEMM class time; memory the devices'
     * GPUs, the steps and the timeline's frame (idle setup), not its bins; launch statistics and
     * accumulation only the trace and the steps */
    {"idle: gaps", gd_idle_gaps, 2},
    {"memory", gd_build_memory, 2},
    {"launch statistics", gd_build_launch_stats, 2},
    {"accumulation", gd_build_accumulation, 2},
    {"roofline", pass_roofline, 2},
    {"lora", gd_build_lora, 2},
    {"transfers", pass_transfers, 0},
    {"communication kinds", gd_build_comm_kinds, 0},
    {"communication sequence", gd_build_comm_sequence, 0},
    {"summary", pass_summary, 0},
    {"steady state", pass_steady, 0},
    {"recompute", gd_build_recompute, 0},
    {"shares and rates", pass_shares, 0},
    {"offload", gd_build_offload, 0},
    {"diagnosis", pass_diagnose, 0},
};

/* A run of rows side by side: threads take the next row in table order. */
typedef struct side_run {
    actx *a;
    size_t to;
    atomic_size_t next;   /* the next row to take */
    atomic_int failed;
} side_run;

static void *side_worker(void *arg)
{
    side_run *sr = arg;
    for (size_t i; (i = atomic_fetch_add(&sr->next, 1)) < sr->to;)
        if (passes[i].fn(sr->a) != 0)
            atomic_store(&sr->failed, 1);
    return NULL;
}

/* Run passes[from, to) side by side on up to opts.threads threads (this one
 * among them; fewer when a thread cannot start).  0, or -1 when any failed. */
static int run_side_by_side(actx *a, size_t from, size_t to)
{
    side_run sr = {.a = a, .to = to};
    atomic_init(&sr.next, from);
    atomic_init(&sr.failed, 0);
    size_t want = to - from;
    if ((size_t)a->opts->threads < want)
        want = (size_t)a->opts->threads;
    pthread_t th[sizeof passes / sizeof passes[0]];
    size_t started = 0;
    while (started + 1 < want && pthread_create(&th[started], NULL, side_worker, &sr) == 0)
        started++;
    side_worker(&sr);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    return atomic_load(&sr.failed) ? -1 : 0;
}

/* Every row of passes[] in order; runs of one side together when threads > 1. */
static int run_passes(actx *a)
{
    int par = a->opts && a->opts->threads > 1, flags_done = 0;
    const size_t n = sizeof passes / sizeof passes[0];
    for (size_t i = 0; i < n;) {
        size_t k = i + 1;
        if (par && passes[i].side)
            while (k < n && passes[k].side == passes[i].side)
                k++;
        if (k - i > 1 && !flags_done) {
            gd_name_flags_all(a);
            flags_done = 1;
        }
        if ((k - i > 1 ? run_side_by_side(a, i, k) : passes[i].fn(a)) != 0)
            return -1;
        i = k;
    }
    return 0;
}

static void actx_free(actx *a)
{
    free(a->corr);
    free(a->op_is_comm);
    gd_vec_free(&a->comm_win);
    gd_vec_free(&a->dl_win);
    free(a->steps);
    free(a->nflags);
    free(a->rt_index);
    free(a->rt_of_op);
    free(a->corr_of_rt);
    gd_idle_free(a);
    gd_op_join_free(&a->opk);
}

gpudiag_status gpudiag_analyze(const gpudiag_trace *t, const gpudiag_analyze_opts *opts, gpudiag_report **out,
                               gpudiag_error *err)
{
    if (!t || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "gpudiag_analyze: NULL trace or out");
    *out = NULL;
    if (t->header_only)
        return gd_set_error(err, GPUDIAG_ERR_ARG, t->path, -1, "gpudiag_analyze: a header-only read holds no events");
    gpudiag_report *r = gd_report_new();
    if (!r)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, t->path, -1, "out of memory");
    report_init(r);
    actx a;
    memset(&a, 0, sizeof a);
    a.t = t;
    a.r = r;
    a.opts = opts;
    a.max_gaps = opts ? opts->max_gaps : 0;
    gd_vec_init(&a.comm_win, sizeof(gd_iv));
    gd_vec_init(&a.dl_win, sizeof(gd_iv));

    int failed = report_input(t, r) != 0 || run_passes(&a) != 0;
    actx_free(&a);
    if (failed) {
        gpudiag_report_free(&r);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, t->path, -1, "out of memory");
    }
    *out = r;
    return GPUDIAG_OK;
}
