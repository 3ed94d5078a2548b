/*
 * memory.c — the memory timeline per GPU from the `[memory]` events, and the
 * allocator's cudaMalloc/cudaFree calls inside the steps.
 * A pass of gpudiag_analyze (analyze.c), over the context of analyze.h; its
 * definitions and peer (the TensorBoard plugin's Memory view):
 * docs/DEFINITIONS.md "Memory timeline" and "Allocator churn".
 *
 * Per device the events are taken in time order (file order for equal times)
 * and turned into a level in force from each event to the next: the event's
 * `Total Allocated` when every event of the device carries it, else the
 * running sum of `Bytes`.  Peaks, per-step peaks and lows and the chart bins
 * are maxima and minima of that step function over intervals.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/kclass.h"
#include "analyze/passes.h"
#include "gpudiag/memory.h"
#include "gpudiag/specs.h"
#include "model/trace.h"

/* Share of the device memory taken as usable for the fit estimate: the CUDA
 * context, cuBLAS/cuDNN workspaces and the allocator's cached blocks live in
 * the rest (DEFINITIONS "Memory timeline", activation_fits). */
#define GD_MEM_USABLE_SHARE 0.9

typedef struct mev {
    int64_t ts_ns;
    int64_t alloc;        /* level after the event (bytes) */
    int64_t reserved;     /* -1 if unknown */
    int64_t bytes;        /* args "Bytes": > 0 an allocation, < 0 a free */
    int32_t device;
    uint32_t idx;         /* reading order, the tie-break */
} mev;

static int cmp_mev(const void *pa, const void *pb)
{
    const mev *a = pa, *b = pb;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    if (a->ts_ns != b->ts_ns)
        return a->ts_ns < b->ts_ns ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The device's memory from deviceProperties, else the GPU table row of the report's device. */
static double device_total(const actx *a, int id, const char **source)
{
    const gpudiag_trace *t = a->t;
    for (size_t i = 0; i < t->devices.len; i++) {
        const gd_device_prop *p = gd_vec_at(&t->devices, i);
        if (p->id == id && p->total_mem_bytes > 0) {
            *source = "deviceProperties";
            return p->total_mem_bytes;
        }
    }
    const gpudiag_report *r = a->r;
    for (size_t i = 0; i < r->device_count; i++) {
        const gpudiag_gpu_spec *s = r->devices[i].spec_name ? gpudiag_gpu_find(r->devices[i].spec_name) : NULL;
        if (r->devices[i].id == id && s && s->mem_gb > 0) {
            *source = "gpu_table";
            return s->mem_gb * 1e9;
        }
    }
    *source = NULL;
    return NAN;
}

/* The level in force at time x: that of the last event at or before x, NaN
 * before the first (the caller starts a running sum at 0 itself). */
static size_t first_after(const mev *e, size_t n, int64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e[mid].ts_ns <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Highest and lowest level in force during [s, e) (the level carried in at s
 * counts: that of the last event at or before s, else `base`, the level before
 * the first event, NaN when unknown); the highest reserved level and its event.
 * 0 when no level is in force there. */
static int range_levels(const mev *ev, size_t n, double base, int64_t s, int64_t e, double *hi, double *lo,
                        double *rhi, size_t *rhi_at)
{
    size_t i = first_after(ev, n, s);
    *hi = i == 0 ? base : -INFINITY;
    *lo = i == 0 ? base : INFINITY;
    *rhi = -INFINITY;
    if (i == 0 && isnan(base) && (n == 0 || ev[0].ts_ns >= e))
        return 0;
    if (isnan(*hi)) {
        *hi = -INFINITY;
        *lo = INFINITY;
    }
    for (size_t k = i ? i - 1 : 0; k < n && (k + 1 == i || ev[k].ts_ns < e); k++) {
        double v = (double)ev[k].alloc;
        if (v > *hi)
            *hi = v;
        if (v < *lo)
            *lo = v;
        if (ev[k].reserved >= 0 && (double)ev[k].reserved > *rhi) {
            *rhi = (double)ev[k].reserved;
            *rhi_at = k;
        }
    }
    return 1;
}

/* The bytes the allocations (Bytes > 0) of the events in [s, e) ask for. */
static double range_allocated(const mev *ev, size_t n, int64_t s, int64_t e)
{
    double sum = 0;
    for (size_t k = s > INT64_MIN ? first_after(ev, n, s - 1) : 0; k < n && ev[k].ts_ns < e; k++)
        if (ev[k].bytes > 0)
            sum += (double)ev[k].bytes;
    return sum;
}

/* The per-step numbers of one device and its transient and persistent memory. */
static int device_steps(const actx *a, const mev *ev, size_t n, double base, gpudiag_memory_device *md)
{
    const gpudiag_report *r = a->r;
    md->transient_bytes = NAN;
    md->persistent_bytes = NAN;
    if (!r->step_count)
        return 0;
    if (!(md->steps = gd_arena_calloc(r->arena, r->step_count, sizeof *md->steps)))
        return -1;
    md->step_count = r->step_count;
    for (size_t i = 0; i < r->step_count; i++) {
        gpudiag_memory_step *ms = &md->steps[i];
        ms->number = r->steps[i].number;
        ms->allocated_bytes = range_allocated(ev, n, r->steps[i].start_ns, r->steps[i].end_ns);
        double hi, lo, rhi;
        size_t rat = 0;
        if (!range_levels(ev, n, base, r->steps[i].start_ns, r->steps[i].end_ns, &hi, &lo, &rhi, &rat)) {
            ms->peak_allocated_bytes = ms->low_allocated_bytes = ms->peak_reserved_bytes = NAN;
            continue;
        }
        ms->peak_allocated_bytes = hi;
        ms->low_allocated_bytes = lo;
        ms->peak_reserved_bytes = md->has_reserved && rhi >= 0 ? rhi : NAN;
        if (isnan(md->transient_bytes) || hi - lo > md->transient_bytes)
            md->transient_bytes = hi - lo;
        if (md->has_totals && (isnan(md->persistent_bytes) || lo < md->persistent_bytes))
            md->persistent_bytes = lo;
    }
    return 0;
}

/* The chart bins: the highest level in force in each bin of the GPU timeline. */
static int device_bins(const actx *a, const mev *ev, size_t n, double base, gpudiag_memory_device *md)
{
    const gpudiag_timeline *tl = &a->r->timeline;
    if (!tl->bins)
        return 0;
    md->allocated_max = gd_arena_calloc(a->r->arena, tl->bins, sizeof *md->allocated_max);
    md->reserved_max = md->has_reserved ? gd_arena_calloc(a->r->arena, tl->bins, sizeof *md->reserved_max) : NULL;
    if (!md->allocated_max || (md->has_reserved && !md->reserved_max))
        return -1;
    md->bins = tl->bins;
    for (size_t b = 0; b < tl->bins; b++) {
        md->allocated_max[b] = -INFINITY;
        if (md->reserved_max)
            md->reserved_max[b] = -INFINITY;
    }
    if (!isnan(base) && ev[0].ts_ns > tl->start_ns)
        gd_timeline_bin_max(md->allocated_max, tl, tl->start_ns, ev[0].ts_ns, base);
    for (size_t k = 0; k < n; k++) {
        int64_t e = k + 1 < n ? ev[k + 1].ts_ns : tl->end_ns;
        if (e < ev[k].ts_ns)
            e = ev[k].ts_ns;
        gd_timeline_bin_max(md->allocated_max, tl, ev[k].ts_ns, e, (double)ev[k].alloc);
        if (md->reserved_max)
            gd_timeline_bin_max(md->reserved_max, tl, ev[k].ts_ns, e, (double)ev[k].reserved);
    }
    for (size_t b = 0; b < tl->bins; b++) { /* no level in force: NaN */
        if (md->allocated_max[b] == -INFINITY)
            md->allocated_max[b] = NAN;
        if (md->reserved_max && md->reserved_max[b] == -INFINITY)
            md->reserved_max[b] = NAN;
    }
    return 0;
}

/* One device: ev[0..n) its events in time order, the levels filled in. */
static int build_device(const actx *a, mev *ev, size_t n, gpudiag_memory_device *md)
{
    md->id = ev[0].device;
    md->events = n;
    /* deltas: raise the running sum (0 before the first event) by its deepest fall below 0 (frees
     * of blocks allocated before the profiler started), so that no level is negative and the peak
     * is a lower bound */
    double base = NAN;
    if (!md->has_totals) {
        int64_t low = 0;
        for (size_t k = 0; k < n; k++)
            if (ev[k].alloc < low)
                low = ev[k].alloc;
        for (size_t k = 0; k < n; k++)
            ev[k].alloc -= low;
        base = -(double)low;
    }
    double hi, lo, rhi;
    size_t rat = 0;
    if (!range_levels(ev, n, base, a->span_s, a->span_e + 1, &hi, &lo, &rhi, &rat))
        hi = rhi = NAN;
    md->peak_allocated_bytes = hi;
    md->peak_reserved_bytes = md->has_reserved && rhi >= 0 ? rhi : NAN;
    md->reserved_unused_bytes =
        isnan(md->peak_reserved_bytes) ? NAN : (double)ev[rat].reserved - (double)ev[rat].alloc;
    md->total_bytes = device_total(a, md->id, &md->total_source);
    md->headroom_bytes = md->total_bytes - md->peak_reserved_bytes;
    md->headroom_share = md->headroom_bytes / md->total_bytes;
    if (device_steps(a, ev, n, base, md) != 0 || device_bins(a, ev, n, base, md) != 0)
        return -1;
    md->activation_fits = NAN;
    if (md->has_totals && md->transient_bytes > 0 && md->total_bytes > 0)
        md->activation_fits = (GD_MEM_USABLE_SHARE * md->total_bytes - md->persistent_bytes) / md->transient_bytes;
    return 0;
}

/* The events sorted by device and time, with the level after each. */
static mev *sorted_events(const gpudiag_trace *t)
{
    size_t n = t->mem_events.len;
    mev *ev = malloc(n * sizeof *ev);
    if (!ev)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const gd_mem_event *m = gd_vec_at(&t->mem_events, i);
        ev[i] = (mev){m->ts_ns, m->total_allocated, m->total_reserved, m->bytes, m->device, (uint32_t)i};
    }
    qsort(ev, n, sizeof *ev, cmp_mev);
    return ev;
}

/* ---- allocator calls ------------------------------------------------------- */

enum { NC_UNSEEN = 0, NC_NONE, NC_MALLOC, NC_FREE, NC_EMPTY_CACHE };

static uint8_t classify(const gd_strtab *names, uint32_t id)
{
    const char *s = gd_strtab_get(names, id);
    size_t len = gd_strtab_len(names, id);
    int k = gd_runtime_alloc_kind(s, len);
    if (k == GD_ALLOC_MALLOC)
        return NC_MALLOC;
    if (k == GD_ALLOC_FREE)
        return NC_FREE;
    for (size_t i = 0; i + 11 <= len; i++)
        if (memcmp(s + i, "empty_cache", 11) == 0)
            return NC_EMPTY_CACHE;
    return NC_NONE;
}

/* The index of the step whose [start, end) holds x, or SIZE_MAX when none does. */
static size_t step_index(const gpudiag_report *r, int64_t x)
{
    size_t lo = 0, hi = r->step_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->steps[mid].start_ns <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && x < r->steps[lo - 1].end_ns ? lo - 1 : SIZE_MAX;
}

/* The step after the first whose [start, end) holds x, or 0 (none / the first). */
static size_t later_step_of(const gpudiag_report *r, int64_t x)
{
    size_t i = step_index(r, x);
    return i != SIZE_MAX && i >= 1 ? i : 0;
}

/* 1 when x lies in some step of the window (the first included). */
static int in_window(const gpudiag_report *r, int64_t x)
{
    return step_index(r, x) != SIZE_MAX;
}

static int alloc_calls(const actx *a, gpudiag_alloc_calls *ac)
{
    const gpudiag_trace *t = a->t;
    const gpudiag_report *r = a->r;
    if (r->step_count < 1)
        return 0;
    uint8_t *nc = calloc(t->names.count ? t->names.count : 1, 1);
    if (!nc)
        return -1;
    ac->steps = r->step_count - 1;
    for (size_t i = 1; i < r->step_count; i++)
        ac->step_time_us += r->steps[i].duration_us;
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        if (nc[rt->name_id] == NC_UNSEEN)
            nc[rt->name_id] = classify(&t->names, rt->name_id);
        if ((nc[rt->name_id] != NC_MALLOC && nc[rt->name_id] != NC_FREE) || !in_window(r, rt->ts_ns))
            continue;
        double us = ns_to_us(gd_rt_dur(t, rt));
        if (nc[rt->name_id] == NC_MALLOC)
            ac->window_malloc_calls++;
        else
            ac->window_free_calls++;
        ac->window_time_us += us;
        if (!later_step_of(r, rt->ts_ns))
            continue;
        if (nc[rt->name_id] == NC_MALLOC)
            ac->malloc_calls++;
        else
            ac->free_calls++;
        ac->time_us += us;
    }
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        if (nc[c->name_id] == NC_UNSEEN)
            nc[c->name_id] = classify(&t->names, c->name_id);
        if (nc[c->name_id] == NC_EMPTY_CACHE && (r->step_count < 2 ? in_window(r, c->ts_ns) : later_step_of(r, c->ts_ns) != 0))
            ac->empty_cache_calls++; /* one window / one step: those of the window */
    }
    free(nc);
    return 0;
}

int gd_build_memory(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_memory *mem = gd_arena_calloc(a->r->arena, 1, sizeof *mem);
    if (!mem)
        return -1;
    a->r->memory = mem;
    mem->other_events = t->mem_events_other;
    if (alloc_calls(a, &mem->alloc) != 0)
        return -1;
    size_t n = t->mem_events.len;
    if (!n)
        return 0;
    mev *ev = sorted_events(t);
    if (!ev)
        return -1;
    size_t ndev = 0;
    for (size_t i = 0; i < n; i++)
        ndev += i == 0 || ev[i].device != ev[i - 1].device;
    if (!(mem->devices = gd_arena_calloc(a->r->arena, ndev, sizeof *mem->devices))) {
        free(ev);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0, j; rc == 0 && i < n; i = j) {
        gpudiag_memory_device *md = &mem->devices[mem->device_count++];
        md->has_totals = md->has_reserved = 1;
        for (j = i; j < n && ev[j].device == ev[i].device; j++) {
            const gd_mem_event *m = gd_vec_at(&t->mem_events, ev[j].idx);
            md->has_totals &= m->total_allocated >= 0;
            md->has_reserved &= m->total_reserved >= 0;
        }
        md->has_reserved &= md->has_totals;
        int64_t sum = 0;
        for (size_t k = i; k < j; k++) {
            const gd_mem_event *m = gd_vec_at(&t->mem_events, ev[k].idx);
            if (__builtin_add_overflow(sum, m->bytes, &sum))
                sum = m->bytes > 0 ? INT64_MAX : INT64_MIN; /* hostile sizes: saturate */
            if (!md->has_totals)
                ev[k].alloc = sum; /* deltas: the running sum of Bytes from 0 */
            if (!md->has_reserved)
                ev[k].reserved = -1;
        }
        rc = build_device(a, ev + i, j - i, md);
    }
    free(ev);
    return rc;
}
