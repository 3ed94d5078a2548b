/* The memory timeline (src/analyze/memory.c, DEFINITIONS "Memory timeline"
 * and "Allocator churn") on a model written here event by event.
 *
 * Two steps, ProfilerStep#1 [1000, 2000) µs and #2 [2000, 3000) µs, no GPU op
 * (so the steps keep their host intervals and the span is [1000, 3000] µs).
 *
 * Device 0, PyTorch >= 1.10 events (Total Allocated / Total Reserved, in GB =
 * 1e9 bytes), deviceProperties totalGlobalMem 16 GB:
 *   ts  500  alloc 4 reserved  6   (before the steps: carried into step 1)
 *   ts 1100        6           8
 *   ts 1500        7           8
 *   ts 1900        4           8
 *   ts 2100        9          10
 *   ts 2500        4          10
 *   ts 3500        0          10   (after the span: not in any peak)
 * By hand: peak allocated 9 (ts 2100), peak reserved 10 (first at ts 2100,
 * where allocated is 9: 1 unused); headroom 16 - 10 = 6 (share 0.375).
 * Step 1: carried 4, then 6, 7, 4 -> peak 7, low 4, reserved peak 8.
 * Step 2: carried 4, then 9, 4 -> peak 9, low 4, reserved peak 10.
 * Persistent 4, transient max(7-4, 9-4) = 5, fits (0.9*16 - 4) / 5 = 2.08.
 *
 * Device 1, PyTorch < 1.10 events (Bytes only, GB): -1 at 1200 (a block
 * allocated before profiling freed), +3 at 1300, -2 at 1400, +1 at 2200.
 * Running sum from 0: -1, 2, 0, 1; its deepest fall is -1, so the levels are
 * raised by 1: 0, 3, 1, 2, and 1 before the first event.  Peak 3 (a lower
 * bound); no reserved, no total (no deviceProperties, no GPU table row):
 * headroom unknown.  Step 1: 1 carried, 0, 3, 1 -> peak 3, low 0.  Step 2:
 * carried 1, then 2 -> peak 2, low 1.  Transient max(3, 1) = 3; persistent and
 * fits unknown (levels are relative).
 *
 * One CPU `[memory]` event is only counted (other_events 1).
 *
 * Allocator calls in the steps after the first (step 2 only): cudaMalloc at
 * 2300 (50 µs) and cudaFree at 2400 (30 µs) count; the cudaFree at 1200 is in
 * the first step and does not.  An op "torch.cuda.empty_cache" at 2350: one
 * empty_cache call.  -> steps 1, malloc 1, free 1, time 80 µs, step time
 * 1000 µs.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gpudiag/gpudiag.h"
#include "gpudiag/memory.h"
#include "model/trace.h"
#include "test.h"

#define GB 1e9
#define US 1000

static void mem(gpudiag_trace *t, int dev, int64_t ts_us, double bytes, double ta, double tr)
{
    gd_mem_event m = {ts_us * US, (int64_t)bytes, ta < 0 ? -1 : (int64_t)ta, tr < 0 ? -1 : (int64_t)tr, dev, 0};
    ASSERT_TRUE(gd_vec_push(&t->mem_events, &m) != NULL);
}

static void step(gpudiag_trace *t, int64_t n, int64_t ts_us, int64_t dur_us)
{
    gd_host_step h = {ts_us * US, dur_us * US, n};
    ASSERT_TRUE(gd_vec_push(&t->host_steps, &h) != NULL);
    gd_cpu_op c;
    memset(&c, 0, sizeof c);
    c.ts_ns = ts_us * US;
    char name[32];
    snprintf(name, sizeof name, "ProfilerStep#%lld", (long long)n);
    ASSERT_EQ_INT(gd_trace_push_cpu_op(t, &c, gd_strtab_intern(&t->names, name, strlen(name)), dur_us * US, 0), 0);
}

static void runtime(gpudiag_trace *t, const char *name, int64_t ts_us, int64_t dur_us)
{
    gd_runtime rt;
    memset(&rt, 0, sizeof rt);
    rt.ts_ns = ts_us * US;
    rt.correlation = -1;
    rt.name_id = gd_strtab_intern(&t->names, name, strlen(name));
    ASSERT_EQ_INT(gd_trace_push_runtime(t, &rt, dur_us * US, 1), 0);
}

static gpudiag_trace *build(void)
{
    gpudiag_trace *t = gd_trace_new("memory-test");
    ASSERT_TRUE(t != NULL);
    gd_device_prop p;
    memset(&p, 0, sizeof p);
    p.id = 0;
    snprintf(p.name, sizeof p.name, "Test GPU");
    p.total_mem_bytes = 16 * GB;
    p.compute_major = p.compute_minor = -1;
    ASSERT_TRUE(gd_vec_push(&t->devices, &p) != NULL);
    step(t, 1, 1000, 1000);
    step(t, 2, 2000, 1000);
    mem(t, 0, 500, 4 * GB, 4 * GB, 6 * GB);
    mem(t, 1, 1200, -1 * GB, -1, -1);
    mem(t, 0, 1100, 2 * GB, 6 * GB, 8 * GB);
    mem(t, 1, 1300, 3 * GB, -1, -1);
    mem(t, 0, 1500, 1 * GB, 7 * GB, 8 * GB);
    mem(t, 1, 1400, -2 * GB, -1, -1);
    mem(t, 0, 1900, -3 * GB, 4 * GB, 8 * GB);
    mem(t, 0, 2100, 5 * GB, 9 * GB, 10 * GB);
    mem(t, 1, 2200, 1 * GB, -1, -1);
    mem(t, 0, 2500, -5 * GB, 4 * GB, 10 * GB);
    mem(t, 0, 3500, -4 * GB, 0, 10 * GB);
    t->mem_events_other = 1;
    runtime(t, "cudaFree", 1200, 10);
    runtime(t, "cudaMalloc", 2300, 50);
    gd_cpu_op c;
    memset(&c, 0, sizeof c);
    c.ts_ns = 2350 * US;
    ASSERT_EQ_INT(gd_trace_push_cpu_op(t, &c, gd_strtab_intern(&t->names, "torch.cuda.empty_cache", 22), 5 * US, 0), 0);
    runtime(t, "cudaFree", 2400, 30);
    runtime(t, "cudaMallocAsync", 2450, 30); /* the async backend's: not counted */
    return t;
}

static void test_timeline(void)
{
    gpudiag_trace *t = build();
    gpudiag_report *r = NULL;
    gpudiag_error err;
    ASSERT_EQ_INT(gpudiag_analyze(t, NULL, &r, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(r->step_count, 2);
    const gpudiag_memory *m = r->memory;
    ASSERT_TRUE(m != NULL);
    ASSERT_EQ_INT(m->device_count, 2);
    ASSERT_EQ_INT(m->other_events, 1);

    const gpudiag_memory_device *d = &m->devices[0];
    ASSERT_EQ_INT(d->id, 0);
    ASSERT_EQ_INT(d->events, 7);
    ASSERT_EQ_INT(d->has_totals, 1);
    ASSERT_EQ_INT(d->has_reserved, 1);
    ASSERT_NEAR(d->peak_allocated_bytes, 9 * GB, 0);
    ASSERT_NEAR(d->peak_reserved_bytes, 10 * GB, 0);
    ASSERT_NEAR(d->reserved_unused_bytes, 1 * GB, 0);
    ASSERT_NEAR(d->total_bytes, 16 * GB, 0);
    ASSERT_TRUE(strcmp(d->total_source, "deviceProperties") == 0);
    ASSERT_NEAR(d->headroom_bytes, 6 * GB, 0);
    ASSERT_NEAR(d->headroom_share, 0.375, 1e-12);
    ASSERT_EQ_INT(d->step_count, 2);
    ASSERT_EQ_INT(d->steps[0].number, 1);
    ASSERT_NEAR(d->steps[0].peak_allocated_bytes, 7 * GB, 0);
    ASSERT_NEAR(d->steps[0].low_allocated_bytes, 4 * GB, 0);
    ASSERT_NEAR(d->steps[0].peak_reserved_bytes, 8 * GB, 0);
    ASSERT_NEAR(d->steps[1].peak_allocated_bytes, 9 * GB, 0);
    ASSERT_NEAR(d->steps[1].low_allocated_bytes, 4 * GB, 0);
    ASSERT_NEAR(d->steps[1].peak_reserved_bytes, 10 * GB, 0);
    ASSERT_NEAR(d->persistent_bytes, 4 * GB, 0);
    ASSERT_NEAR(d->transient_bytes, 5 * GB, 0);
    ASSERT_NEAR(d->activation_fits, 2.08, 1e-12);

    d = &m->devices[1];
    ASSERT_EQ_INT(d->id, 1);
    ASSERT_EQ_INT(d->events, 4);
    ASSERT_EQ_INT(d->has_totals, 0);
    ASSERT_EQ_INT(d->has_reserved, 0);
    ASSERT_NEAR(d->peak_allocated_bytes, 3 * GB, 0);
    ASSERT_TRUE(isnan(d->peak_reserved_bytes));
    ASSERT_TRUE(isnan(d->reserved_unused_bytes));
    ASSERT_TRUE(isnan(d->total_bytes));
    ASSERT_TRUE(d->total_source == NULL);
    ASSERT_TRUE(isnan(d->headroom_bytes));
    ASSERT_NEAR(d->steps[0].peak_allocated_bytes, 3 * GB, 0);
    ASSERT_NEAR(d->steps[0].low_allocated_bytes, 0, 0);
    ASSERT_TRUE(isnan(d->steps[0].peak_reserved_bytes));
    ASSERT_NEAR(d->steps[1].peak_allocated_bytes, 2 * GB, 0);
    ASSERT_NEAR(d->steps[1].low_allocated_bytes, 1 * GB, 0);
    ASSERT_NEAR(d->transient_bytes, 3 * GB, 0);
    ASSERT_TRUE(isnan(d->persistent_bytes));
    ASSERT_TRUE(isnan(d->activation_fits));

    const gpudiag_alloc_calls *ac = &m->alloc;
    ASSERT_EQ_INT(ac->steps, 1);
    ASSERT_EQ_INT(ac->malloc_calls, 1);
    ASSERT_EQ_INT(ac->free_calls, 1);
    ASSERT_NEAR(ac->time_us, 80, 1e-9);
    ASSERT_NEAR(ac->step_time_us, 1000, 1e-9);
    ASSERT_EQ_INT(ac->empty_cache_calls, 1);
    gpudiag_report_free(&r);
    gpudiag_trace_free(&t);
}

/* No [memory] event: an empty section, not NULL (a trace's report always has it). */
static void test_none(void)
{
    gpudiag_trace *t = gd_trace_new("none");
    ASSERT_TRUE(t != NULL);
    step(t, 1, 1000, 1000);
    gpudiag_report *r = NULL;
    ASSERT_EQ_INT(gpudiag_analyze(t, NULL, &r, NULL), GPUDIAG_OK);
    ASSERT_TRUE(r->memory != NULL);
    ASSERT_EQ_INT(r->memory->device_count, 0);
    ASSERT_EQ_INT(r->memory->alloc.steps, 0); /* one step: nothing after the first */
    gpudiag_report_free(&r);
    gpudiag_trace_free(&t);
}

int main(void)
{
    test_timeline();
    test_none();
    printf("test_memory: %d checks passed\n", gd_test_count);
    return 0;
}
