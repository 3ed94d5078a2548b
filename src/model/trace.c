/*
 * trace.c — the model's life cycle (gd_trace_new, gpudiag_trace_free, shared
 * by every trace reader) and appending host records to it, with the side
 * table for the rare durations that do not fit their 32-bit field (see
 * trace.h).
 */
#include "model/trace.h"
#include "model/opflops.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int64_t gd_long_dur_find(const gd_vec *side, uint64_t idx)
{
    const gd_long_dur *a = side->data;
    size_t lo = 0, hi = side->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].idx < idx)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < side->len && a[lo].idx == idx ? a[lo].dur_ns : 0;
}

/* dur32 for dur_ns, adding a side-table entry for record idx when it is long. */
static int set_dur(gd_vec *side, uint64_t idx, int64_t dur_ns, uint32_t *dur32)
{
    if (dur_ns >= 0 && dur_ns < (int64_t)GD_DUR_LONG) {
        *dur32 = (uint32_t)dur_ns;
        return 0;
    }
    gd_long_dur ld = {idx, dur_ns};
    *dur32 = GD_DUR_LONG;
    return gd_vec_push(side, &ld) ? 0 : -1;
}

/* The thread of record idx of a vector whose threads are in the runs *runs; 0 if unknown. */
static int32_t run_tid(const gd_vec *runs, uint64_t idx)
{
    const gd_tid_run *a = runs->data;
    /* the last run starting at or before idx */
    size_t lo = 0, hi = runs->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].first <= idx)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? a[lo - 1].tid : 0;
}

/* Record that the next record of a vector of len records is on thread tid.  0, or -1. */
static int push_run(gd_vec *runs, size_t len, int32_t tid)
{
    size_t nr = runs->len;
    if (nr == 0 || ((const gd_tid_run *)runs->data)[nr - 1].tid != tid) {
        gd_tid_run run = {len, tid, 0};
        if (!gd_vec_push(runs, &run))
            return -1;
    }
    return 0;
}

int32_t gd_rt_tid(const gpudiag_trace *t, const gd_runtime *rt)
{
    return run_tid(&t->rt_tid_runs, (uint64_t)(rt - (const gd_runtime *)t->runtimes.data));
}

int32_t gd_cpu_tid(const gpudiag_trace *t, const gd_cpu_op *c)
{
    return run_tid(&t->cpu_tid_runs, (uint64_t)(c - (const gd_cpu_op *)t->cpu_ops.data));
}

int gd_trace_push_runtime(gpudiag_trace *t, gd_runtime *rt, int64_t dur_ns, int32_t tid)
{
    if (gd_vec_reserve(&t->runtimes, t->runtimes.len + 1) != 0 ||
        set_dur(&t->rt_long_durs, t->runtimes.len, dur_ns, &rt->dur32) != 0)
        return -1;
    if (push_run(&t->rt_tid_runs, t->runtimes.len, tid) != 0)
        return -1;
    return gd_vec_push(&t->runtimes, rt) ? 0 : -1;
}

int gd_trace_push_cpu_op(gpudiag_trace *t, gd_cpu_op *c, uint32_t name_id, int64_t dur_ns, int32_t tid)
{
    if (name_id > GD_CPU_NAME_MAX)
        return -1;
    c->name_id = name_id;
    if (gd_vec_reserve(&t->cpu_ops, t->cpu_ops.len + 1) != 0 ||
        set_dur(&t->cpu_long_durs, t->cpu_ops.len, dur_ns, &c->dur32) != 0 ||
        push_run(&t->cpu_tid_runs, t->cpu_ops.len, tid) != 0)
        return -1;
    return gd_vec_push(&t->cpu_ops, c) ? 0 : -1;
}

/* Keep the records of v (record size v->elem, int64 ts_ns first, uint32 dur32
 * at dur_off) that overlap [ws, we], in order; long durations and thread runs
 * (*runs, into *nr: empty, reserved for runs->len runs, then moved into *runs)
 * are renumbered to the new indices.  Cannot fail. */
static void keep_host(gd_vec *v, size_t dur_off, gd_vec *side, gd_vec *runs, gd_vec *nr, int64_t ws, int64_t we)
{
    gd_long_dur *ld = side->data;
    size_t rj = 0, lj = 0, w = 0;
    const gd_tid_run *orun = runs->data;
    size_t ri = 0;
    for (size_t i = 0; i < v->len; i++) {
        char *rec = (char *)v->data + i * v->elem;
        int64_t ts;
        uint32_t d32;
        memcpy(&ts, rec, sizeof ts);
        /* dur32 sits right after ts (runtime: after the correlation) */
        memcpy(&d32, rec + dur_off, sizeof d32);
        int64_t dur = d32;
        if (d32 == GD_DUR_LONG && rj < side->len && ld[rj].idx == i)
            dur = ld[rj++].dur_ns;
        while (ri + 1 < runs->len && orun[ri + 1].first <= i)
                ri++;
        if (ts > we || ts + dur < ws)
            continue;
        if (d32 == GD_DUR_LONG) {
            ld[lj].idx = w;
            ld[lj++].dur_ns = dur;
        }
        if (runs->len) {
            int32_t tid = orun[ri].first <= i ? orun[ri].tid : 0;
            if (nr->len == 0 || ((const gd_tid_run *)nr->data)[nr->len - 1].tid != tid) {
                gd_tid_run run = {w, tid, 0};
                ((gd_tid_run *)nr->data)[nr->len++] = run; /* reserved by the caller */
            }
        }
        if (w != i)
            memmove((char *)v->data + w * v->elem, rec, v->elem);
        w++;
    }
    v->len = w;
    side->len = lj;
    gd_vec_free(runs);
    *runs = *nr;
}

int gd_trace_keep_overlapping(gpudiag_trace *t, int64_t ws, int64_t we)
{
    _Static_assert(offsetof(gd_runtime, dur32) == 16 && offsetof(gd_cpu_op, dur32) == 8, "dur32 offsets");
    /* the kept records form at most as many runs as there were: reserve them
     * first, so that nothing fails once records start to move */
    gd_vec nr_rt, nr_cpu;
    gd_vec_init(&nr_rt, sizeof(gd_tid_run));
    gd_vec_init(&nr_cpu, sizeof(gd_tid_run));
    if ((t->rt_tid_runs.len && gd_vec_reserve(&nr_rt, t->rt_tid_runs.len) != 0) ||
        (t->cpu_tid_runs.len && gd_vec_reserve(&nr_cpu, t->cpu_tid_runs.len) != 0)) {
        gd_vec_free(&nr_rt);
        gd_vec_free(&nr_cpu);
        return -1;
    }
    keep_host(&t->runtimes, offsetof(gd_runtime, dur32), &t->rt_long_durs, &t->rt_tid_runs, &nr_rt, ws, we);
    keep_host(&t->cpu_ops, offsetof(gd_cpu_op, dur32), &t->cpu_long_durs, &t->cpu_tid_runs, &nr_cpu, ws, we);
    return 0;
}

gpudiag_trace *gd_trace_new(const char *path)
{
    gpudiag_trace *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->path = gd_strdup(path);
    gd_strtab_init(&t->names);
    gd_vec_init(&t->gpu_ops, sizeof(gd_gpu_op));
    gd_vec_init(&t->runtimes, sizeof(gd_runtime));
    gd_vec_init(&t->cpu_ops, sizeof(gd_cpu_op));
    gd_vec_init(&t->rt_long_durs, sizeof(gd_long_dur));
    gd_vec_init(&t->cpu_long_durs, sizeof(gd_long_dur));
    gd_vec_init(&t->rt_tid_runs, sizeof(gd_tid_run));
    gd_vec_init(&t->cpu_tid_runs, sizeof(gd_tid_run));
    gd_vec_init(&t->host_steps, sizeof(gd_host_step));
    gd_vec_init(&t->prof_overheads, sizeof(gd_host_step));
    gd_vec_init(&t->comm_ext_ids, sizeof(int64_t));
    gd_vec_init(&t->comm_calls, sizeof(gd_comm_call));
    gd_vec_init(&t->op_flops, sizeof(gd_op_flops));
    gd_vec_init(&t->devices, sizeof(gd_device_prop));
    gd_vec_init(&t->mem_events, sizeof(gd_mem_event));
    gd_vec_init(&t->other_cats, sizeof(gd_other_cat));
    gd_vec_init(&t->ts_hi_at, sizeof(gd_ts_at));
    gd_vec_init(&t->ts_lo_at, sizeof(gd_ts_at));
    t->time_outlier_first_at = -1;
    t->rank = -1;
    t->world_size = -1;
    t->truncated_at = -1;
    t->trailing_at = -1;
    t->first_error_at = -1;
    if (!t->path) {
        free(t);
        return NULL;
    }
    return t;
}

void gpudiag_trace_free(gpudiag_trace **tp)
{
    if (!tp || !*tp)
        return;
    gpudiag_trace *t = *tp;
    free(t->path);
    gd_strtab_free(&t->names);
    gd_vec_free(&t->gpu_ops);
    gd_vec_free(&t->other_cats);
    gd_vec_free(&t->ts_hi_at);
    gd_vec_free(&t->ts_lo_at);
    gd_vec_free(&t->runtimes);
    gd_vec_free(&t->cpu_ops);
    gd_vec_free(&t->rt_long_durs);
    gd_vec_free(&t->cpu_long_durs);
    gd_vec_free(&t->rt_tid_runs);
    gd_vec_free(&t->cpu_tid_runs);
    gd_vec_free(&t->host_steps);
    gd_vec_free(&t->prof_overheads);
    gd_vec_free(&t->comm_ext_ids);
    gd_vec_free(&t->comm_calls);
    gd_vec_free(&t->op_flops);
    gd_vec_free(&t->devices);
    gd_vec_free(&t->mem_events);
    free(t);
    *tp = NULL;
}

/* A name PyTorch gives its host ops, ranges or kernels (DEFINITIONS "Framework"). */
static int pytorch_name(const char *s, size_t n)
{
    static const char *const prefix[] = {"aten::", "autograd::", "ProfilerStep#", "Optimizer.", "c10d::", "nccl:",
                                         "torch", "enumerate(DataLoader)", "triton_poi_", "triton_red_", "triton_per_",
                                         "triton_tem_", "triton_for_"};
    static const char *const inside[] = {"torch/", "at::native::", "at::cuda::", "c10::", "pytorch_flash::",
                                         "PyTorchMemEff"};
    for (size_t i = 0; i < sizeof prefix / sizeof *prefix; i++)
        if (gd_starts_with(s, n, prefix[i]))
            return 1;
    for (size_t i = 0; i < sizeof inside / sizeof *inside; i++)
        if (strstr(s, inside[i]))
            return 1;
    return 0;
}

const char *gd_trace_framework(const gpudiag_trace *t)
{
    /* a Kineto trace's steps are its ProfilerStep#N markers unless --step-range named others */
    if (!t->nsys.present && t->host_steps.len > 0 && !t->step_range[0])
        return "pytorch";
    const gd_cpu_op *ops = t->cpu_ops.data;
    for (size_t i = 0; i < t->cpu_ops.len; i++)
        if (ops[i].cat == GD_CPU_PYTHON || ops[i].cat == GD_CPU_PYFUNC)
            return "pytorch";
    for (uint32_t id = 0; id < t->names.count; id++)
        if (pytorch_name(gd_strtab_get(&t->names, id), t->names.lens[id]))
            return "pytorch";
    return "none";
}
