/*
 * kernels.c — kernels by name and HTA kernel launch statistics.
 * A pass of gpudiag_analyze (analyze.c), over the context of analyze.h;
 * its definitions and peers: docs/DEFINITIONS.md.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/passes.h"
#include "analyze/kclass.h"
#include "model/trace.h"

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

int gd_build_kernels(actx *a)
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
    r->kernel_stats = gd_arena_calloc(r->arena, nk ? nk : 1, sizeof *r->kernel_stats);
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
        ks->name = gd_arena_take(r->arena, gd_utf8_clean(nm, nl));
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

/* A kernel that starts more than this before its launch call starts: the GPU and host clocks
 * disagree (DEFINITIONS "Kernels", kernels before their launch; finding input_gpu_clock_skew).
 * Larger than the µs inversions of tightly clustered launches (pytorch/kineto#1380). */
#define GD_CLOCK_SKEW_NS 50000
#define GD_CLOCK_SKEW_START_NS 1000 /* any start before the call's, beyond timestamp rounding */

/* A linked kernel's GPU start and its offset (call start − kernel start), ns; sorted by start. */
typedef struct {
    int64_t ts;
    int64_t off;
} skew_rec;

/* The largest offset over the first and the last ceil(n/10) of the n records by GPU start (ties:
 * trace order), into r (DEFINITIONS "Kernels", skew size and drift); NaN when n is 0. */
static void skew_tenths(skew_rec *k, size_t n, gpudiag_report *r)
{
    if (!n)
        return;
    if (gd_radix_sort_i64(k, n, sizeof *k, offsetof(skew_rec, ts)) != 0)
        qsort(k, n, sizeof *k, gd_cmp_i64); /* ts is the first member; scratch short: ties unordered */
    size_t t = (n + 9) / 10;
    int64_t first = k[0].off, last = k[n - 1].off;
    for (size_t i = 1; i < t; i++) {
        if (k[i].off > first)
            first = k[i].off;
        if (k[n - 1 - i].off > last)
            last = k[n - 1 - i].off;
    }
    r->launch_skew_first_us = ns_to_us(first);
    r->launch_skew_last_us = ns_to_us(last);
}

int gd_build_launch_stats(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    size_t nops = t->gpu_ops.len;
    double *delays = malloc(2 * (nops + 1) * sizeof *delays);
    double *early = delays ? delays + nops + 1 : NULL; /* offsets of the kernels before their launch, µs */
    uint8_t *gpu_idle = idle_before(t);
    skew_rec *sk = malloc((nops + 1) * sizeof *sk); /* every linked kernel, for skew_tenths */
    if (!delays || !gpu_idle || !sk) {
        free(delays);
        free(gpu_idle);
        free(sk);
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
            free(sk);
            return -1;
        }
    }
    optv.len = gd_iv_merge(optv.data, optv.len);
    const gd_iv *opt = optv.data;
    if (a->nsteps) {
        gd_iv span = {a->hspan_s, a->hspan_e}; /* host time: the host steps (DEFINITIONS "Steps" 4) */
        r->optimizer_time_us = ns_to_us(gd_iv_intersect_len(opt, optv.len, &span, 1));
    }
    size_t nd = 0, nshort = 0, nearly = 0, nsk = 0;
    for (size_t i = 0; i < nops; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        const gd_runtime *rt = gd_runtime_of_op(a, i);
        if (!rt)
            r->gpu_ops_unlinked++; /* no launch call: HTA's join drops it, gpudiag keeps it */
        if (op->kind != GD_GPU_KERNEL || !rt)
            continue;
        sk[nsk].ts = op->ts_ns;
        sk[nsk++].off = rt->ts_ns - op->ts_ns;
        r->linked_kernels++;
        int64_t rdur = gd_rt_dur(t, rt);
        if (rt->ts_ns - op->ts_ns > GD_CLOCK_SKEW_NS) /* physically impossible: the clocks disagree */
            early[nearly++] = ns_to_us(rt->ts_ns - op->ts_ns);
        if (rt->ts_ns - op->ts_ns > GD_CLOCK_SKEW_START_NS) {
            double o = ns_to_us(rt->ts_ns - op->ts_ns);
            if (!r->kernels_before_launch_start++ || o > r->launch_skew_start_max_us)
                r->launch_skew_start_max_us = o;
        }
        int64_t delay = op->ts_ns - (rt->ts_ns + rdur);
        if (delay < 0)
            delay = 0; /* HTA's clip; a lower bound where the clocks disagree (input_gpu_clock_skew) */
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
    r->kernels_before_launch = nearly;
    if (!r->kernels_before_launch_start)
        r->launch_skew_start_max_us = NAN;
    if (nearly) {
        gpudiag_stats_us st;
        gd_stats_compute(early, nearly, &st);
        r->launch_skew_median_us = st.median;
        r->launch_skew_max_us = st.max;
    }
    skew_tenths(sk, nsk, r);
    gd_vec_free(&optv);
    free(delays);
    free(gpu_idle);
    free(sk);
    return 0;
}

/* ---- kernel class shares --------------------------------------------------- */

void gd_build_class_shares(gpudiag_report *r)
{
    for (int c = 0; c < GPUDIAG_KCLASS_COUNT; c++)
        r->class_share[c] = r->kernel_time_us > 0 ? r->class_time_us[c] / r->kernel_time_us : NAN;
    /* by time, longest first: a stable insertion sort keeps ties in class order */
    gpudiag_kernel_class *order = r->class_order;
    for (int i = 0; i < GPUDIAG_KCLASS_COUNT; i++)
        order[i] = (gpudiag_kernel_class)i;
    for (int i = 1; i < GPUDIAG_KCLASS_COUNT; i++)
        for (int j = i; j > 0 && r->class_time_us[order[j]] > r->class_time_us[order[j - 1]]; j--) {
            gpudiag_kernel_class t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}
