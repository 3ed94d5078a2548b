/*
 * memsave.c — what memory savings cost, measured from a trace (issue 21):
 * the recompute of activation checkpointing.  Definitions and peers:
 * docs/DEFINITIONS.md "Memory savings and what they cost".
 *
 * Recompute: host windows in which the forward runs again inside the
 * backward are found from op names alone (the model keeps no thread for host
 * ops, so nesting is by time); kernels whose launch call starts in a window
 * are recompute.  Each distinct name is classified once.
 *
 * LoRA: GEMM ops whose weight is adapter-shaped (the reader marks them,
 * model/opflops.h gd_adapter_rank), joined to their kernels as the roofline
 * joins them (gd_join_op_kernels).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/passes.h"
#include "analyze/roofline.h"
#include "diagnose/rules.h" /* GD_OFFLOAD_BYTES_MIN: one threshold for offload_transfer and offload.detected */
#include "model/trace.h"

enum {
    NM_EVAL = 1u << 0,      /* autograd::engine::evaluate_function: ... (a backward node) */
    NM_RECOMP_FN = 1u << 1, /* torch/utils/checkpoint.py(N): recompute_fn (rule a) */
    NM_CKPT_BWD = 1u << 2,  /* ... CheckpointFunctionBackward (rule b) */
    NM_FWD_ONLY = 1u << 3,  /* an op the backward never calls (rule c) */
    NM_CKPT_CALL = 1u << 4, /* checkpointing called in the forward */
    NM_OPT_STEP = 1u << 5,  /* Optimizer.step#... */
    NM_DEEPSPEED = 1u << 6, /* ZeRO-Offload's CPU optimizer */
    NM_FSDP = 1u << 7,      /* FullyShardedDataParallel */
    NM_DONE = 1u << 8
};

#define EVAL_PREFIX "autograd::engine::evaluate_function:"

/* Forward ops whose gradients are other ops (*_backward): seen inside a
 * backward node they are a re-run forward (DEFINITIONS, Recompute rule c). */
static const char *const fwd_only[] = {
    "aten::linear",     "aten::conv1d",     "aten::conv2d",     "aten::conv3d",    "aten::convolution",
    "aten::layer_norm", "aten::group_norm", "aten::batch_norm", "aten::embedding", "aten::scaled_dot_product_attention",
};

static unsigned classify(const char *nm, size_t len)
{
    unsigned v = NM_DONE;
    if (gd_starts_with(nm, len, EVAL_PREFIX))
        v |= NM_EVAL;
    if (gd_icontains(nm, len, "checkpoint") && gd_icontains(nm, len, "recompute_fn"))
        v |= NM_RECOMP_FN;
    if (gd_icontains(nm, len, "deepspeedcpuadam") || gd_icontains(nm, len, "cpu_adam") ||
        gd_icontains(nm, len, "ds_adam"))
        v |= NM_DEEPSPEED;
    if (gd_icontains(nm, len, "fullyshardeddataparallel"))
        v |= NM_FSDP;
    if (gd_starts_with(nm, len, "Optimizer.step#"))
        v |= NM_OPT_STEP;
    if (gd_ends_with(nm, len, "CheckpointFunctionBackward"))
        v |= NM_CKPT_BWD;
    if ((len == strlen("CheckpointFunction") && memcmp(nm, "CheckpointFunction", len) == 0) ||
        gd_icontains(nm, len, "torch/utils/checkpoint.py"))
        v |= NM_CKPT_CALL;
    for (size_t i = 0; i < sizeof fwd_only / sizeof *fwd_only; i++)
        if (len == strlen(fwd_only[i]) && memcmp(nm, fwd_only[i], len) == 0)
            v |= NM_FWD_ONLY;
    return v;
}

/* The index of the first of n records (sorted by the int64 at offset 0 of each
 * `size` bytes) whose key is > key, or n. */
static size_t first_after(const void *base, size_t n, size_t size, int64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t k;
        memcpy(&k, (const char *)base + mid * size, sizeof k);
        if (k <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* 1 if [s, e] lies inside one interval of the merged set a[0..n). */
static int iv_holds(const gd_iv *a, size_t n, int64_t s, int64_t e)
{
    size_t k = first_after(a, n, sizeof *a, s);
    return k > 0 && a[k - 1].e >= e;
}

/* The first of the sorted starts v[0..n) that is > s, or INT64_MAX. */
static int64_t next_start(const int64_t *v, size_t n, int64_t s)
{
    size_t k = first_after(v, n, sizeof *v, s);
    return k < n ? v[k] : INT64_MAX;
}

/* Backward nodes: their starts (sorted) and their merged spans. */
static int eval_spans(const gpudiag_trace *t, const uint16_t *cls, gd_vec *starts, gd_vec *spans)
{
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        if (c->cat == GD_CPU_GPU_ANNOT || !(cls[c->name_id] & NM_EVAL))
            continue;
        if (!gd_vec_push(starts, &c->ts_ns) || gd_iv_push(spans, c->ts_ns, c->ts_ns + gd_cpu_dur(t, c)) != 0)
            return -1;
    }
    if (starts->len)
        qsort(starts->data, starts->len, sizeof(int64_t), gd_cmp_i64);
    spans->len = gd_iv_merge(spans->data, spans->len);
    return 0;
}

/* The recompute windows (rules a, b, c), merged, into win; r->recompute.windows and .detected. */
static int find_windows(const gpudiag_trace *t, const uint16_t *cls, gpudiag_recompute_seen *rc, gd_vec *win)
{
    gd_vec starts, spans;
    gd_vec_init(&starts, sizeof(int64_t));
    gd_vec_init(&spans, sizeof(gd_iv));
    int rc_ = eval_spans(t, cls, &starts, &spans);
    for (size_t i = 0; rc_ == 0 && i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        unsigned f = c->cat == GD_CPU_GPU_ANNOT ? 0 : cls[c->name_id];
        if (!(f & (NM_RECOMP_FN | NM_CKPT_BWD | NM_FWD_ONLY | NM_CKPT_CALL)))
            continue;
        int64_t s = c->ts_ns, e = s + gd_cpu_dur(t, c);
        if (f & NM_CKPT_CALL)
            rc->detected = 1;
        if (f & NM_CKPT_BWD) {
            int64_t inner = next_start(starts.data, starts.len, s);
            e = inner < e ? inner : e;
        } else if (!(f & NM_RECOMP_FN) && !((f & NM_FWD_ONLY) && iv_holds(spans.data, spans.len, s, e))) {
            continue;
        }
        rc->windows++;
        rc->detected = 1;
        if (gd_iv_push(win, s, e) != 0)
            rc_ = -1;
    }
    win->len = gd_iv_merge(win->data, win->len);
    gd_vec_free(&starts);
    gd_vec_free(&spans);
    return rc_;
}

/* The NM_* class of every name a host op uses (calloc'd, per name id); NULL on OOM. */
static uint16_t *classify_names(const gpudiag_trace *t)
{
    uint16_t *cls = calloc(t->names.count ? t->names.count : 1, sizeof *cls);
    if (!cls)
        return NULL;
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        if (!cls[c->name_id])
            cls[c->name_id] =
                (uint16_t)classify(gd_strtab_get(&t->names, c->name_id), gd_strtab_len(&t->names, c->name_id));
    }
    return cls;
}

int gd_build_recompute(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_recompute_seen *rc = &a->r->recompute;
    memset(rc, 0, sizeof *rc);
    rc->recompute_us = rc->kernel_us = rc->share_of_kernel_time = rc->share_of_step = rc->hfu = NAN;
    uint16_t *cls = classify_names(t);
    if (!cls)
        return -1;
    gd_vec win;
    gd_vec_init(&win, sizeof(gd_iv));
    int ret = find_windows(t, cls, rc, &win);
    free(cls);
    if (ret != 0 || !a->nsteps) {
        gd_vec_free(&win);
        return ret;
    }
    int64_t all = 0, re = 0;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->kind != GD_GPU_KERNEL || op->ts_ns < a->span_s || op->ts_ns >= a->span_e)
            continue;
        all += op->dur_ns;
        const gd_runtime *rt = win.len ? gd_runtime_of_op(a, i) : NULL;
        if (rt && gd_iv_contains(win.data, win.len, rt->ts_ns)) {
            re += op->dur_ns;
            rc->kernels++;
        }
    }
    gd_vec_free(&win);
    gpudiag_report *r = a->r;
    rc->recompute_us = ns_to_us(re);
    rc->kernel_us = ns_to_us(all);
    rc->share_of_kernel_time = all > 0 ? (double)re / (double)all : NAN;
    rc->share_of_step = r->avg_step_us > 0 ? rc->recompute_us / (double)r->step_count / r->avg_step_us : NAN;
    if (re > 0 && all > re && !isnan(r->mfu))
        rc->hfu = r->mfu * (double)all / (double)(all - re);
    return 0;
}

int gd_build_lora(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_lora_seen *lo = &a->r->lora;
    memset(lo, 0, sizeof *lo);
    lo->share_of_gemm_time = NAN;
    size_t no = a->opk.no;
    if (no == 0)
        return 0;
    lo->shapes_recorded = 1;
    const gd_op_flops *ops = a->opk.ops;
    const int64_t *best = a->opk.best;
    /* ranks seen both ways, width -> r and r -> width: an A and B pair */
    uint64_t down = 0, up = 0;
    for (size_t j = 0; j < no; j++)
        if (ops[j].adapter_rank)
            *(ops[j].adapter_up ? &up : &down) |= 1ull << (ops[j].adapter_rank - 1);
    int64_t ns = 0;
    for (size_t j = 0; j < no; j++) {
        if (best[j] < 0 || !ops[j].adapter_rank || !((down & up) >> (ops[j].adapter_rank - 1) & 1))
            continue;
        const gd_gpu_op *k = gd_vec_at(&t->gpu_ops, (size_t)best[j]);
        lo->ops++;
        ns += k->dur_ns;
        lo->flops += ops[j].flops;
        if (!lo->rank || ops[j].adapter_rank < lo->rank)
            lo->rank = ops[j].adapter_rank;
    }
    lo->kernel_us = ns_to_us(ns);
    double gemm = a->r->class_time_us[GPUDIAG_KCLASS_GEMM];
    lo->share_of_gemm_time = gemm > 0 ? fmin(1.0, lo->kernel_us / gemm) : NAN;
    return 0;
}

/* Backward passes starting inside the host steps span (DEFINITIONS "Gradient
 * accumulation"): merged backward-node spans, split where a forward-only op
 * starts between two of them outside every backward node.  UINT64_MAX on OOM. */
static uint64_t backward_passes(const actx *a, const uint16_t *cls, const gd_vec *spans)
{
    const gpudiag_trace *t = a->t;
    gd_vec fwd;
    gd_vec_init(&fwd, sizeof(int64_t));
    uint64_t n = UINT64_MAX;
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        if (c->cat == GD_CPU_GPU_ANNOT || !(cls[c->name_id] & NM_FWD_ONLY) ||
            iv_holds(spans->data, spans->len, c->ts_ns, c->ts_ns + gd_cpu_dur(t, c)))
            continue;
        if (!gd_vec_push(&fwd, &c->ts_ns))
            goto out;
    }
    if (fwd.len)
        qsort(fwd.data, fwd.len, sizeof(int64_t), gd_cmp_i64);
    n = 0;
    const gd_iv *sp = spans->data;
    for (size_t k = 0; k < spans->len; k++) {
        int first = k == 0 || next_start(fwd.data, fwd.len, sp[k - 1].e) < sp[k].s;
        if (first && sp[k].s >= a->hspan_s && sp[k].s < a->hspan_e)
            n++;
    }
out:
    gd_vec_free(&fwd);
    return n;
}

int gd_build_accumulation(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_accum_seen *ac = &a->r->accumulation;
    memset(ac, 0, sizeof *ac);
    ac->kernel_us = ac->micro_steps = NAN;
    if (!a->nsteps)
        return 0;
    uint16_t *cls = classify_names(t);
    gd_vec starts, spans;
    gd_vec_init(&starts, sizeof(int64_t));
    gd_vec_init(&spans, sizeof(gd_iv));
    int ret = !cls || eval_spans(t, cls, &starts, &spans) != 0 ? -1 : 0;
    if (ret == 0) {
        uint64_t n = backward_passes(a, cls, &spans);
        ret = n == UINT64_MAX ? -1 : 0;
        ac->backward_passes = n == UINT64_MAX ? 0 : n;
    }
    for (size_t i = 0; ret == 0 && i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        if (c->cat != GD_CPU_GPU_ANNOT && (cls[c->name_id] & NM_OPT_STEP) && c->ts_ns >= a->hspan_s &&
            c->ts_ns < a->hspan_e) /* host ops: the host steps (DEFINITIONS "Steps" 4) */
            ac->optimizer_steps++;
    }
    free(cls);
    gd_vec_free(&starts);
    gd_vec_free(&spans);
    int64_t ns = 0;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->kind == GD_GPU_KERNEL && op->ts_ns >= a->span_s && op->ts_ns < a->span_e) {
            ac->kernels++;
            ns += op->dur_ns;
        }
    }
    ac->kernel_us = ns_to_us(ns);
    ac->micro_steps =
        ac->backward_passes && ac->optimizer_steps ? (double)ac->backward_passes / (double)ac->optimizer_steps : NAN;
    return ret;
}

int gd_build_offload(actx *a)
{
    gpudiag_report *r = a->r;
    gpudiag_offload_seen *of = &r->offload;
    memset(of, 0, sizeof *of);
    of->h2d_bytes_per_step = of->d2h_bytes_per_step = of->copy_us_per_step = of->exposed_us_per_step = NAN;
    of->min_link_us_per_step = of->copy_over_link = NAN;
    if (!r->step_count)
        return 0;
    double n = (double)r->step_count;
    const gpudiag_transfer *h2d = &r->transfers[GPUDIAG_COPY_H2D], *d2h = &r->transfers[GPUDIAG_COPY_D2H];
    of->h2d_bytes_per_step = h2d->bytes / n;
    of->d2h_bytes_per_step = d2h->bytes / n;
    of->copy_us_per_step = (h2d->time_us + d2h->time_us) / n;
    of->exposed_us_per_step = r->avg_role_us[GPUDIAG_ROLE_MEMCPY];
    of->detected = of->h2d_bytes_per_step >= GD_OFFLOAD_BYTES_MIN && of->d2h_bytes_per_step >= GD_OFFLOAD_BYTES_MIN;
    double big = fmax(of->h2d_bytes_per_step, of->d2h_bytes_per_step);
    if (r->pcie_link_gb_per_s > 0 && big > 0) {
        of->min_link_us_per_step = big / (r->pcie_link_gb_per_s * 1e3);
        of->copy_over_link = of->copy_us_per_step / of->min_link_us_per_step;
    }
    uint16_t *cls = classify_names(a->t);
    if (!cls)
        return -1;
    unsigned seen = 0;
    for (size_t i = 0; i < a->t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&a->t->cpu_ops, i);
        seen |= cls[c->name_id];
    }
    free(cls);
    of->framework = (seen & NM_DEEPSPEED) ? "deepspeed" : (seen & NM_FSDP) ? "fsdp" : NULL;
    return 0;
}
