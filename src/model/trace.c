/*
 * trace.c — appending host records to the model, with the side table for the
 * rare durations that do not fit their 32-bit field (see trace.h).
 */
#include "model/trace.h"

#include <stdint.h>

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

int32_t gd_rt_tid(const gpudiag_trace *t, const gd_runtime *rt)
{
    uint64_t idx = (uint64_t)(rt - (const gd_runtime *)t->runtimes.data);
    const gd_tid_run *a = t->rt_tid_runs.data;
    /* the last run starting at or before idx */
    size_t lo = 0, hi = t->rt_tid_runs.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].first <= idx)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? a[lo - 1].tid : 0;
}

int gd_trace_push_runtime(gpudiag_trace *t, gd_runtime *rt, int64_t dur_ns, int32_t tid)
{
    if (gd_vec_reserve(&t->runtimes, t->runtimes.len + 1) != 0 ||
        set_dur(&t->rt_long_durs, t->runtimes.len, dur_ns, &rt->dur32) != 0)
        return -1;
    size_t nr = t->rt_tid_runs.len;
    if (nr == 0 || ((const gd_tid_run *)t->rt_tid_runs.data)[nr - 1].tid != tid) {
        gd_tid_run run = {t->runtimes.len, tid, 0};
        if (!gd_vec_push(&t->rt_tid_runs, &run))
            return -1;
    }
    return gd_vec_push(&t->runtimes, rt) ? 0 : -1;
}

int gd_trace_push_cpu_op(gpudiag_trace *t, gd_cpu_op *c, uint32_t name_id, int64_t dur_ns)
{
    if (name_id > GD_CPU_NAME_MAX)
        return -1;
    c->name_id = name_id;
    if (gd_vec_reserve(&t->cpu_ops, t->cpu_ops.len + 1) != 0 ||
        set_dur(&t->cpu_long_durs, t->cpu_ops.len, dur_ns, &c->dur32) != 0)
        return -1;
    return gd_vec_push(&t->cpu_ops, c) ? 0 : -1;
}
