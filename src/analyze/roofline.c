/*
 * roofline.c — per-kernel FLOPs, intensity, achieved TFLOP/s and roofline
 * class (include/gpudiag/roofline.h; docs/DEFINITIONS.md "Roofline of the
 * kernels").
 *
 * FLOPs come from the framework op that launched a kernel (joined by External
 * id; the op's FLOPs go to the longest kernel it launched), or from an Nsight
 * Compute CSV joined by kernel name.  Aggregated per kernel name over the
 * whole trace.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/kclass.h"
#include "analyze/roofline.h"
#include "gpudiag/roofline.h"
#include "gpudiag/specs.h"
#include "model/opflops.h"
#include "model/trace.h"
#include "util/util.h"

typedef struct ragg {
    uint64_t calls;
    int64_t time_ns;
    double time_us;       /* standalone ncu entries: ncu's time */
    double flops, bytes;
    int bytes_unknown;
    int elt;              /* gd_elt of the first counted op; -1 for ncu */
    int dt;               /* gpudiag_dtype for ncu entries, -1 otherwise */
    const char *source;
    int standalone;       /* an ncu kernel not in the trace: its time is ncu's */
    const char *name;     /* borrowed (trace name table or ncu) */
    size_t name_len;
} ragg;

/* by thread, then start, the outer (longer) op first */
static int cmp_opf_span(const void *pa, const void *pb)
{
    const gd_op_flops *a = pa, *b = pb;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->ts_ns != b->ts_ns)
        return a->ts_ns < b->ts_ns ? -1 : 1;
    return (a->dur_ns < b->dur_ns) - (a->dur_ns > b->dur_ns);
}

/* An index keyed by an id (an op's External id, a runtime call's correlation
 * id): sorted by key, then position, so that gd_find_i64() finds the first
 * record of a key, the same one every run. */
typedef struct keyidx {
    int64_t key; /* first: gd_find_i64 reads the key at offset 0 */
    size_t idx;
} keyidx;

static int cmp_keyidx(const void *pa, const void *pb)
{
    const keyidx *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

static int cmp_ragg_time(const void *pa, const void *pb)
{
    const ragg *a = pa, *b = pb;
    if (a->time_us != b->time_us)
        return a->time_us > b->time_us ? -1 : 1;
    size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int c = memcmp(a->name, b->name, n);
    return c ? c : (a->name_len > b->name_len) - (a->name_len < b->name_len);
}

/* The table row of the roofs: --gpu, else the first device identified. */
static const gpudiag_gpu_spec *roof_spec(const gpudiag_report *r, const gpudiag_analyze_opts *opts)
{
    if (opts && opts->gpu)
        return gpudiag_gpu_find(opts->gpu);
    for (size_t i = 0; i < r->device_count; i++) {
        const char *nm = r->devices[i].spec_name;
        if (!nm)
            continue;
        for (size_t j = 0; j < gpudiag_gpu_count(); j++)
            if (gpudiag_gpu_at(j)->name == nm)
                return gpudiag_gpu_at(j);
    }
    return NULL;
}

static int contains(const char *s, size_t len, const char *lit)
{
    size_t l = strlen(lit);
    for (size_t i = 0; i + l <= len; i++)
        if (memcmp(s + i, lit, l) == 0)
            return 1;
    return 0;
}

/* The dtype whose roof a kernel is compared with. */
static int kernel_dtype(const ragg *g, gpudiag_dtype analysis)
{
    if (g->dt >= 0)
        return g->dt;
    switch (g->elt) {
    case GD_ELT_F64: return GPUDIAG_DTYPE_FP64;
    case GD_ELT_F32: /* FP32 inputs run on CUDA cores unless the kernel is a TF32 Tensor Core one */
        return contains(g->name, g->name_len, "tf32") || gd_kernel_uses_tensor_cores(g->name, g->name_len)
                   ? GPUDIAG_DTYPE_TF32
                   : GPUDIAG_DTYPE_FP32;
    case GD_ELT_F16: return GPUDIAG_DTYPE_FP16;
    case GD_ELT_BF16: return GPUDIAG_DTYPE_BF16;
    case GD_ELT_F8: return GPUDIAG_DTYPE_FP8;
    case GD_ELT_I8: return GPUDIAG_DTYPE_INT8;
    default: return (int)analysis;
    }
}

/* Does the ncu name `n` name the trace kernel `k`?  Equal, or `n` is the
 * function base of `k` (k continues with '(' or '<' after n). */
static int ncu_names(const char *n, size_t nl, const char *k, size_t kl)
{
    if (nl == kl)
        return memcmp(n, k, nl) == 0;
    if (nl < kl && memcmp(n, k, nl) == 0)
        return k[nl] == '(' || k[nl] == '<';
    /* "void name<...>(...)" in the trace, "name" in ncu */
    if (kl > 5 && memcmp(k, "void ", 5) == 0)
        return ncu_names(n, nl, k + 5, kl - 5);
    return 0;
}

int gd_build_roofline(const gpudiag_trace *t, gpudiag_report *r, const gpudiag_analyze_opts *opts)
{
    const gpudiag_ncu *ncu = opts ? opts->ncu : NULL;
    if (t->op_flops.len == 0 && (!ncu || ncu->count == 0))
        return 0;
    uint32_t nn = t->names.count;
    size_t nncu = ncu ? ncu->count : 0;
    ragg *agg = calloc((size_t)nn + nncu + 1, sizeof *agg);
    gd_op_flops *ops = malloc((t->op_flops.len + 1) * sizeof *ops);
    int64_t *best = malloc((t->op_flops.len + 1) * sizeof *best);
    int64_t *trace_time = calloc((size_t)nn + 1, sizeof *trace_time);
    uint64_t *trace_calls = calloc((size_t)nn + 1, sizeof *trace_calls);
    keyidx *byext = malloc((t->op_flops.len + 1) * sizeof *byext); /* External id -> index into ops */
    keyidx *rts = malloc((t->runtimes.len + 1) * sizeof *rts);     /* correlation -> index into runtimes */
    if (!agg || !ops || !best || !trace_time || !trace_calls || !byext || !rts)
        goto oom;
    for (uint32_t i = 0; i < nn; i++) {
        agg[i].elt = GD_ELT_UNKNOWN;
        agg[i].dt = -1;
    }
    /* ---- ops joined to the kernels they launched ---- */
    size_t no = t->op_flops.len;
    if (no)
        memcpy(ops, t->op_flops.data, no * sizeof *ops);
    qsort(ops, no, sizeof *ops, cmp_opf_span);
    for (size_t j = 0; j < no; j++) {
        best[j] = -1;
        ops[j].inner = 0;
        int64_t end = ops[j].ts_ns + ops[j].dur_ns;
        for (size_t k = j + 1; k < no && k < j + 64 && ops[k].tid == ops[j].tid && ops[k].ts_ns < end; k++)
            if (ops[k].ts_ns + ops[k].dur_ns <= end) {
                ops[j].inner = 1;
                break;
            }
    }
    size_t nx = 0;
    for (size_t j = 0; j < no; j++)
        if (ops[j].external_id >= 0 && !ops[j].inner)
            byext[nx++] = (keyidx){ops[j].external_id, j};
    qsort(byext, nx, sizeof *byext, cmp_keyidx);
    size_t nrt = 0;
    for (size_t i = 0; i < t->runtimes.len; i++) {
        const gd_runtime *rt = gd_vec_at(&t->runtimes, i);
        if (rt->correlation >= 0) {
            rts[nrt++] = (keyidx){rt->correlation, i};
        }
    }
    qsort(rts, nrt, sizeof *rts, cmp_keyidx);
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *k = gd_vec_at(&t->gpu_ops, i);
        if (k->kind != GD_GPU_KERNEL)
            continue;
        trace_time[k->name_id] += k->dur_ns;
        trace_calls[k->name_id]++;
        if (no == 0)
            continue;
        size_t hit = SIZE_MAX;
        if (k->flags & GD_GF_HAS_CORR) {
            size_t rc = gd_find_i64(rts, nrt, sizeof *rts, k->correlation);
            if (rc < nrt) {
                const gd_runtime *rt = gd_vec_at(&t->runtimes, rts[rc].idx);
                const int32_t rtid = gd_rt_tid(t, rt);
                /* the last op of the launch's thread starting at or before the launch */
                size_t lo = 0, hi = no;
                while (lo < hi) {
                    size_t mid = lo + (hi - lo) / 2;
                    if (ops[mid].tid < rtid || (ops[mid].tid == rtid && ops[mid].ts_ns <= rt->ts_ns))
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                for (size_t n = 0; lo > 0 && n < 8; n++, lo--) {
                    const gd_op_flops *o = &ops[lo - 1];
                    if (o->tid != rtid)
                        break;
                    if (!o->inner && rt->ts_ns < o->ts_ns + o->dur_ns) {
                        hit = lo - 1;
                        break;
                    }
                }
            }
        }
        if (hit == SIZE_MAX && (k->flags & GD_GF_HAS_EXT) && nx) {
            /* no launch call recorded: the (first) op with the kernel's External id */
            size_t x = gd_find_i64(byext, nx, sizeof *byext, k->external_id);
            if (x < nx)
                hit = byext[x].idx;
        }
        if (hit == SIZE_MAX)
            continue;
        /* an op's FLOPs go to the longest kernel it launched */
        if (best[hit] < 0 || k->dur_ns > ((const gd_gpu_op *)gd_vec_at(&t->gpu_ops, (size_t)best[hit]))->dur_ns)
            best[hit] = (int64_t)i;
    }
    for (size_t j = 0; j < no; j++) {
        if (best[j] < 0)
            continue;
        const gd_gpu_op *k = gd_vec_at(&t->gpu_ops, (size_t)best[j]);
        ragg *g = &agg[k->name_id];
        if (g->calls == 0) {
            g->elt = ops[j].elt;
            g->source = ops[j].source == GD_OPF_FLOPS_ARG ? "flops_arg" : "shapes";
        }
        g->calls++;
        g->time_ns += k->dur_ns;
        g->flops += ops[j].flops;
        if (isnan(ops[j].bytes))
            g->bytes_unknown = 1;
        else
            g->bytes += ops[j].bytes;
    }
    /* ---- Nsight Compute rows, by kernel name ---- */
    uint64_t ncu_matched = 0;
    size_t nstand = 0;
    for (size_t q = 0; q < nncu; q++) {
        const gpudiag_ncu_kernel *row = &ncu->kernels[q];
        size_t rl = strlen(row->name);
        double f = row->flops_fp64 + row->flops_fp32 + row->flops_fp16;
        int dt = row->flops_fp64 >= row->flops_fp32 && row->flops_fp64 >= row->flops_fp16 && row->flops_fp64 > 0
                     ? GPUDIAG_DTYPE_FP64
                 : row->flops_fp16 > row->flops_fp32 ? GPUDIAG_DTYPE_FP16
                                                      : GPUDIAG_DTYPE_FP32;
        uint32_t hit = UINT32_MAX;
        for (uint32_t i = 0; i < nn && hit == UINT32_MAX; i++)
            if (trace_calls[i] && ncu_names(row->name, rl, gd_strtab_get(&t->names, i), gd_strtab_len(&t->names, i)))
                hit = i;
        ragg *g = NULL;
        if (hit != UINT32_MAX) {
            ncu_matched++;
            g = &agg[hit];
            if (!g->source || strcmp(g->source, "ncu") != 0) {
                /* measured numbers replace the shapes' estimate */
                memset(g, 0, sizeof *g);
                g->source = "ncu";
            }
        } else {
            for (size_t s = 0; s < nstand && !g; s++) {
                ragg *c = &agg[nn + s];
                if (c->name_len == rl && memcmp(c->name, row->name, rl) == 0)
                    g = c;
            }
            if (!g) {
                g = &agg[nn + nstand++];
                g->source = "ncu";
                g->standalone = 1;
                g->name = row->name;
                g->name_len = rl;
            }
        }
        g->elt = -1;
        if (g->calls == 0 || f > g->flops) /* the precision of the heaviest row */
            g->dt = dt;
        g->calls++; /* ncu rows for now */
        g->flops += f;
        if (isnan(row->bytes))
            g->bytes_unknown = 1;
        else
            g->bytes += row->bytes;
        g->time_us += isnan(row->time_us) ? 0 : row->time_us;
        if (isnan(row->time_us))
            g->time_ns = -1; /* marks a row without a duration */
    }
    /* ---- finish: trace names ---- */
    size_t ne = 0;
    ragg *out = agg; /* compact in place: entry e <= index */
    for (uint32_t i = 0; i < nn; i++) {
        ragg g = agg[i];
        if (!g.source || g.calls == 0)
            continue;
        g.name = gd_strtab_get(&t->names, i);
        g.name_len = gd_strtab_len(&t->names, i);
        if (strcmp(g.source, "ncu") == 0) {
            /* mean of the profiled launches × the trace's launches (the exact
             * sum when the counts match, launch for launch in order) */
            double n = (double)trace_calls[i], c = (double)g.calls;
            g.flops = g.flops / c * n;
            g.bytes = g.bytes / c * n;
            g.calls = trace_calls[i];
            g.time_ns = trace_time[i];
        }
        g.time_us = ns_to_us(g.time_ns);
        out[ne++] = g;
    }
    for (size_t s = 0; s < nstand; s++) {
        ragg g = agg[nn + s];
        if (g.time_ns < 0)
            g.time_us = NAN;
        out[ne++] = g;
    }
    if (ne == 0)
        goto done;
    /* NaN times sort last */
    for (size_t e = 0; e < ne; e++)
        if (isnan(out[e].time_us))
            out[e].time_us = -1;
    qsort(out, ne, sizeof *out, cmp_ragg_time);
    gpudiag_roofline *rl = calloc(1, sizeof *rl);
    if (!rl)
        goto oom;
    r->roofline = rl;
    const gpudiag_gpu_spec *spec = roof_spec(r, opts);
    double bw = opts && opts->mem_bw_gbs > 0 ? opts->mem_bw_gbs : spec ? spec->mem_bw_gbs : NAN;
    gpudiag_dtype analysis = GPUDIAG_DTYPE_BF16;
    if (r->mfu_dtype)
        gpudiag_dtype_parse(r->mfu_dtype, &analysis);
    rl->gpu = spec ? spec->name : NULL;
    rl->mem_bw_gbs = bw > 0 ? bw : NAN;
    if (ncu) {
        rl->ncu_path = gd_utf8_clean(ncu->path, strlen(ncu->path));
        if (!rl->ncu_path)
            goto oom;
        rl->ncu_rows = ncu->count;
        rl->ncu_matched = ncu_matched;
    }
    rl->kernel_names = ne;
    double trace_us = 0;
    for (size_t e = 0; e < ne; e++) {
        rl->calls += out[e].calls;
        if (out[e].time_us > 0) {
            rl->time_us += out[e].time_us;
            if (!out[e].standalone)
                trace_us += out[e].time_us;
        }
        rl->flops += out[e].flops;
    }
    rl->kernel_time_share = r->kernel_time_us > 0 ? fmin(1.0, trace_us / r->kernel_time_us) : NAN;
    size_t top = ne < GPUDIAG_ROOFLINE_TOP ? ne : GPUDIAG_ROOFLINE_TOP;
    rl->kernels = calloc(top, sizeof *rl->kernels); /* top >= 1: ne == 0 returned above */
    if (!rl->kernels)
        goto oom;
    for (size_t e = 0; e < top; e++) {
        const ragg *g = &out[e];
        gpudiag_roofline_kernel *k = &rl->kernels[e];
        k->name = gd_utf8_clean(g->name, g->name_len);
        if (!k->name)
            goto oom;
        rl->kernel_count = e + 1;
        k->source = g->source;
        int dt = kernel_dtype(g, analysis);
        /* FP32 inputs on AMD Matrix Cores (an MFMA kernel name, not a TF32/XF32
         * one) on a GPU with an FP32 matrix rate: that peak, not the vector
         * one (MI250 GCD: 45.25 vs 22.65 TFLOP/s, AMD data sheet) */
        int matrix = g->dt < 0 && g->elt == GD_ELT_F32 && spec && spec->fp32_matrix_tflops > 0 &&
                     gd_kernel_uses_tensor_cores(g->name, g->name_len) && !contains(g->name, g->name_len, "tf32") &&
                     !contains(g->name, g->name_len, "xf32") && !contains(g->name, g->name_len, "XF32");
        if (matrix)
            dt = GPUDIAG_DTYPE_FP32;
        /* FP32 inputs on a GPU without a TF32 rate (AMD CDNA, NVIDIA before
         * Ampere): the FP32 roof is the one that applies */
        if (dt == GPUDIAG_DTYPE_TF32 && g->dt < 0 && spec && !(spec->peak_tflops[GPUDIAG_DTYPE_TF32] > 0))
            dt = GPUDIAG_DTYPE_FP32;
        k->matrix_peak = matrix && !(opts && opts->peak_tflops > 0);
        k->dtype = gpudiag_dtype_name((gpudiag_dtype)dt);
        k->calls = g->calls;
        k->time_us = g->time_us >= 0 ? g->time_us : NAN;
        k->flops = g->flops;
        k->bytes = g->bytes_unknown || !(g->bytes > 0) ? NAN : g->bytes;
        k->intensity = k->bytes > 0 ? k->flops / k->bytes : NAN;
        k->achieved_tflops = k->time_us > 0 ? k->flops / (k->time_us * 1e-6) / 1e12 : NAN;
        double peak = opts && opts->peak_tflops > 0 ? opts->peak_tflops
                      : matrix                        ? spec->fp32_matrix_tflops
                      : spec                          ? spec->peak_tflops[dt]
                                                      : NAN;
        k->peak_tflops = peak > 0 ? peak : NAN;
        k->peak_share = k->peak_tflops > 0 ? k->achieved_tflops / k->peak_tflops : NAN;
        k->ridge = k->peak_tflops > 0 && bw > 0 ? k->peak_tflops * 1e3 / bw : NAN;
        k->attainable_tflops = NAN;
        k->bound = NULL;
        if (!isnan(k->intensity) && !isnan(k->ridge)) {
            k->attainable_tflops = fmin(k->peak_tflops, k->intensity * bw / 1e3);
            k->bound = k->intensity >= k->ridge ? "compute" : "memory";
        }
    }
done:
    free(agg);
    free(ops);
    free(best);
    free(trace_time);
    free(trace_calls);
    free(byext);
    free(rts);
    return 0;
oom:
    free(agg);
    free(ops);
    free(best);
    free(trace_time);
    free(trace_calls);
    free(byext);
    free(rts);
    return -1;
}
