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

#include "analyze/analyze.h"
#include "analyze/kclass.h"
#include "analyze/roofline.h"
#include "gpudiag/roofline.h"
#include "gpudiag/specs.h"
#include "model/opflops.h"
#include "model/trace.h"
#include "util/arena.h"
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

/* The working set of gd_build_roofline: per name id an aggregate (then ncu's
 * standalone kernels after nn), and the ops joined to kernels (borrowed from
 * the analysis' one join).  Freed by rctx_free. */
typedef struct rctx {
    const gpudiag_trace *t;
    uint32_t nn;            /* trace names */
    ragg *agg;              /* nn + ncu rows + 1 entries */
    const gd_op_join *join;
    int64_t *trace_time;    /* per name: kernel time, ns */
    uint64_t *trace_calls;  /* per name: kernel launches */
    size_t nstand;          /* standalone ncu entries at agg[nn..] */
    uint64_t ncu_matched;   /* ncu rows that named a trace kernel */
} rctx;

static void rctx_free(rctx *c)
{
    free(c->agg);
    free(c->trace_time);
    free(c->trace_calls);
}

/* Allocate c's arrays.  0, or -1 on allocation failure. */
static int rctx_init(rctx *c, const gpudiag_trace *t, const gd_op_join *join, size_t nncu)
{
    c->t = t;
    c->join = join;
    c->nn = t->names.count;
    c->agg = calloc((size_t)c->nn + nncu + 1, sizeof *c->agg);
    c->trace_time = calloc((size_t)c->nn + 1, sizeof *c->trace_time);
    c->trace_calls = calloc((size_t)c->nn + 1, sizeof *c->trace_calls);
    if (!c->agg || !c->trace_time || !c->trace_calls)
        return -1;
    for (uint32_t i = 0; i < c->nn; i++) {
        c->agg[i].elt = GD_ELT_UNKNOWN;
        c->agg[i].dt = -1;
    }
    return 0;
}

/* The join's index of the innermost ops by External id. */
typedef struct jctx {
    const actx *a;
    gd_op_join *j;
    keyidx *byext;          /* External id -> index into j->ops (innermost ops only) */
    size_t nx;
} jctx;

/* The op (index into j->ops) that launched kernel k (index ki into gpu_ops):
 * the last op of the launch call's thread starting at or before the call and
 * still running at it, else the (first) op with the kernel's External id;
 * SIZE_MAX if none. */
static size_t op_of_kernel(const jctx *c, const gd_gpu_op *k, size_t ki)
{
    const gpudiag_trace *t = c->a->t;
    const gd_op_flops *ops = c->j->ops;
    size_t hit = SIZE_MAX;
    const gd_runtime *rt = gd_runtime_of_op(c->a, ki); /* the first call with the kernel's correlation */
    if (rt) {
        const int32_t rtid = gd_rt_tid(t, rt);
        size_t lo = 0, hi = c->j->no;
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
    if (hit == SIZE_MAX && (k->flags & GD_GF_HAS_EXT) && c->nx) {
        /* no launch call recorded: the (first) op with the kernel's External id */
        size_t x = gd_find_i64(c->byext, c->nx, sizeof *c->byext, k->external_id);
        if (x < c->nx)
            hit = c->byext[x].idx;
    }
    return hit;
}

void gd_op_join_free(gd_op_join *j)
{
    free(j->ops);
    free(j->best);
    memset(j, 0, sizeof *j);
}

int gd_join_op_kernels(const actx *a, gd_op_join *j)
{
    const gpudiag_trace *t = a->t;
    memset(j, 0, sizeof *j);
    size_t no = t->op_flops.len;
    if (no == 0)
        return 0;
    jctx c = {a, j, malloc(no * sizeof(keyidx)), 0};
    j->ops = malloc(no * sizeof *j->ops);
    j->best = malloc(no * sizeof *j->best);
    if (!c.byext || !j->ops || !j->best) {
        free(c.byext);
        gd_op_join_free(j);
        return -1;
    }
    j->no = no;
    gd_op_flops *ops = j->ops;
    memcpy(ops, t->op_flops.data, no * sizeof *ops);
    qsort(ops, no, sizeof *ops, cmp_opf_span);
    /* `inner` on each op that encloses another op of its thread: FLOPs count at the innermost ops */
    for (size_t i = 0; i < no; i++) {
        j->best[i] = -1;
        ops[i].inner = 0;
        int64_t end = ops[i].ts_ns + ops[i].dur_ns;
        for (size_t k = i + 1; k < no && k < i + 64 && ops[k].tid == ops[i].tid && ops[k].ts_ns < end; k++)
            if (ops[k].ts_ns + ops[k].dur_ns <= end) {
                ops[i].inner = 1;
                break;
            }
    }
    for (size_t i = 0; i < no; i++)
        if (ops[i].external_id >= 0 && !ops[i].inner)
            c.byext[c.nx++] = (keyidx){ops[i].external_id, i};
    qsort(c.byext, c.nx, sizeof *c.byext, cmp_keyidx);
    /* an op's FLOPs go to the longest kernel it launched */
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *k = gd_vec_at(&t->gpu_ops, i);
        if (k->kind != GD_GPU_KERNEL)
            continue;
        size_t hit = op_of_kernel(&c, k, i);
        if (hit != SIZE_MAX &&
            (j->best[hit] < 0 || k->dur_ns > ((const gd_gpu_op *)gd_vec_at(&t->gpu_ops, (size_t)j->best[hit]))->dur_ns))
            j->best[hit] = (int64_t)i;
    }
    free(c.byext);
    return 0;
}

/* Ops joined to the kernels they launched: per name the trace's kernel time
 * and launches, and each op's FLOPs and bytes summed on the name of the
 * longest kernel it launched (c->agg). */
static void join_kernels(rctx *c)
{
    const gpudiag_trace *t = c->t;
    const gd_op_join *jn = c->join;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *k = gd_vec_at(&t->gpu_ops, i);
        if (k->kind != GD_GPU_KERNEL)
            continue;
        c->trace_time[k->name_id] += k->dur_ns;
        c->trace_calls[k->name_id]++;
    }
    for (size_t j = 0; j < jn->no; j++) {
        if (jn->best[j] < 0)
            continue;
        const gd_gpu_op *k = gd_vec_at(&t->gpu_ops, (size_t)jn->best[j]);
        ragg *g = &c->agg[k->name_id];
        if (g->calls == 0) {
            g->elt = jn->ops[j].elt;
            g->source = jn->ops[j].source == GD_OPF_FLOPS_ARG ? "flops_arg" : "shapes";
        }
        g->calls++;
        g->time_ns += k->dur_ns;
        g->flops += jn->ops[j].flops;
        if (isnan(jn->ops[j].bytes))
            g->bytes_unknown = 1;
        else
            g->bytes += jn->ops[j].bytes;
    }
}

/* Nsight Compute rows by kernel name: a row naming a trace kernel replaces
 * the shapes' estimate with measured numbers; others become standalone
 * entries after c->nn (c->nstand, their time ncu's). */
static void add_ncu_rows(rctx *c, const gpudiag_ncu *ncu)
{
    const gpudiag_trace *t = c->t;
    for (size_t q = 0; q < ncu->count; q++) {
        const gpudiag_ncu_kernel *row = &ncu->kernels[q];
        size_t rl = strlen(row->name);
        double f = row->flops_fp64 + row->flops_fp32 + row->flops_fp16;
        int dt = row->flops_fp64 >= row->flops_fp32 && row->flops_fp64 >= row->flops_fp16 && row->flops_fp64 > 0
                     ? GPUDIAG_DTYPE_FP64
                 : row->flops_fp16 > row->flops_fp32 ? GPUDIAG_DTYPE_FP16
                                                      : GPUDIAG_DTYPE_FP32;
        uint32_t hit = UINT32_MAX;
        for (uint32_t i = 0; i < c->nn && hit == UINT32_MAX; i++)
            if (c->trace_calls[i] &&
                ncu_names(row->name, rl, gd_strtab_get(&t->names, i), gd_strtab_len(&t->names, i)))
                hit = i;
        ragg *g = NULL;
        if (hit != UINT32_MAX) {
            c->ncu_matched++;
            g = &c->agg[hit];
            if (!g->source || strcmp(g->source, "ncu") != 0) {
                /* measured numbers replace the shapes' estimate */
                memset(g, 0, sizeof *g);
                g->source = "ncu";
            }
        } else {
            for (size_t s = 0; s < c->nstand && !g; s++) {
                ragg *e = &c->agg[c->nn + s];
                if (e->name_len == rl && memcmp(e->name, row->name, rl) == 0)
                    g = e;
            }
            if (!g) {
                g = &c->agg[c->nn + c->nstand++];
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
}

/* The entries with FLOPs, compacted in place at the start of c->agg, by time
 * (longest first, no time last): trace names with their names and µs (ncu
 * ones scaled to the trace's launches), then the standalone ncu kernels.
 * Returns how many. */
static size_t finish_entries(rctx *c)
{
    const gpudiag_trace *t = c->t;
    size_t ne = 0;
    ragg *agg = c->agg, *out = c->agg; /* compact in place: entry e <= index */
    for (uint32_t i = 0; i < c->nn; i++) {
        ragg g = agg[i];
        if (!g.source || g.calls == 0)
            continue;
        g.name = gd_strtab_get(&t->names, i);
        g.name_len = gd_strtab_len(&t->names, i);
        if (strcmp(g.source, "ncu") == 0) {
            /* mean of the profiled launches × the trace's launches (the exact
             * sum when the counts match, launch for launch in order) */
            double n = (double)c->trace_calls[i], k = (double)g.calls;
            g.flops = g.flops / k * n;
            g.bytes = g.bytes / k * n;
            g.calls = c->trace_calls[i];
            g.time_ns = c->trace_time[i];
        }
        g.time_us = ns_to_us(g.time_ns);
        out[ne++] = g;
    }
    for (size_t s = 0; s < c->nstand; s++) {
        ragg g = agg[c->nn + s];
        if (g.time_ns < 0)
            g.time_us = NAN;
        out[ne++] = g;
    }
    /* NaN times sort last */
    for (size_t e = 0; e < ne; e++)
        if (isnan(out[e].time_us))
            out[e].time_us = -1;
    if (ne)
        qsort(out, ne, sizeof *out, cmp_ragg_time);
    return ne;
}

/* One kernel's row of the roofline (DEFINITIONS "Roofline of the kernels"):
 * its dtype and roof, FLOPs, bytes, intensity, achieved and attainable
 * TFLOP/s and bound; the name is left to the caller. */
static void roofline_kernel(gpudiag_roofline_kernel *k, const ragg *g, const gpudiag_gpu_spec *spec, double bw,
                            gpudiag_dtype analysis, const gpudiag_analyze_opts *opts)
{
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

/* r->roofline from the ne (>= 1) entries out[], sorted: the roofs, totals
 * and the GPUDIAG_ROOFLINE_TOP longest kernels.  0, or -1 on allocation
 * failure (r->roofline, once set, is freed with the report). */
static int fill_roofline(gpudiag_report *r, const gpudiag_analyze_opts *opts, const ragg *out, size_t ne,
                         uint64_t ncu_matched)
{
    const gpudiag_ncu *ncu = opts ? opts->ncu : NULL;
    gpudiag_roofline *rl = gd_arena_calloc(r->arena, 1, sizeof *rl);
    if (!rl)
        return -1;
    r->roofline = rl;
    const gpudiag_gpu_spec *spec = roof_spec(r, opts);
    double bw = opts && opts->mem_bw_gbs > 0 ? opts->mem_bw_gbs : spec ? spec->mem_bw_gbs : NAN;
    gpudiag_dtype analysis = GPUDIAG_DTYPE_BF16;
    if (r->mfu_dtype)
        gpudiag_dtype_parse(r->mfu_dtype, &analysis);
    rl->gpu = spec ? spec->name : NULL;
    rl->mem_bw_gbs = bw > 0 ? bw : NAN;
    if (ncu) {
        rl->ncu_path = gd_arena_take(r->arena, gd_utf8_clean(ncu->path, strlen(ncu->path)));
        if (!rl->ncu_path)
            return -1;
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
    rl->kernels = gd_arena_calloc(r->arena, top, sizeof *rl->kernels); /* top >= 1 */
    if (!rl->kernels)
        return -1;
    /* cppcheck-suppress knownConditionTrueFalse ; false positive: the caller passes ne >= 1, so top >= 1 */
    for (size_t e = 0; e < top; e++) {
        gpudiag_roofline_kernel *k = &rl->kernels[e];
        k->name = gd_arena_take(r->arena, gd_utf8_clean(out[e].name, out[e].name_len));
        if (!k->name)
            return -1;
        rl->kernel_count = e + 1;
        roofline_kernel(k, &out[e], spec, bw, analysis, opts);
    }
    return 0;
}

int gd_build_roofline(const gpudiag_trace *t, const gd_op_join *join, gpudiag_report *r,
                      const gpudiag_analyze_opts *opts)
{
    const gpudiag_ncu *ncu = opts ? opts->ncu : NULL;
    if (t->op_flops.len == 0 && (!ncu || ncu->count == 0))
        return 0;
    rctx c;
    memset(&c, 0, sizeof c);
    int rc = -1;
    if (rctx_init(&c, t, join, ncu ? ncu->count : 0) != 0)
        goto out;
    join_kernels(&c);
    if (ncu)
        add_ncu_rows(&c, ncu);
    size_t ne = finish_entries(&c);
    rc = ne ? fill_roofline(r, opts, c.agg, ne, c.ncu_matched) : 0;
out:
    rctx_free(&c);
    return rc;
}
