/*
 * comm.c — communication kernels: their kinds and their order (input of the
 * cross-rank analysis).
 * A pass of gpudiag_analyze (analyze.c), over the context of analyze.h;
 * its definitions and peers: docs/DEFINITIONS.md.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/passes.h"
#include "model/collective.h"

/* ---- communication kernels in order (input of the cross-rank analysis) ---- */

typedef struct ts_dur {
    int64_t ts, dur;
    int kind;
} ts_dur;

int gd_build_comm_sequence(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    if (!a->nsteps)
        return 0;
    int dev = INT32_MAX;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->kind == GD_GPU_KERNEL && a->op_is_comm[i] && op->device < dev)
            dev = op->device;
    }
    if (dev == INT32_MAX)
        return 0;
    gd_vec v;
    gd_vec_init(&v, sizeof(ts_dur));
    gd_coll_join j;
    if (gd_coll_join_init(&j, t) != 0)
        return -1;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->kind != GD_GPU_KERNEL || !a->op_is_comm[i] || op->device != dev || op->ts_ns < a->span_s ||
            op->ts_ns >= a->span_e || op->dur_ns == 0)
            continue; /* a zero-length collective carries no timing (CUPTI artefact) */
        const gd_runtime *rt = gd_runtime_of_op(a, i);
        ts_dur x = {op->ts_ns, op->dur_ns, (int)gd_coll_kind(&j, op, rt, NULL)};
        if (!gd_vec_push(&v, &x)) {
            gd_vec_free(&v);
            gd_coll_join_free(&j);
            return -1;
        }
    }
    gd_coll_join_free(&j);
    if (gd_radix_sort_i64(v.data, v.len, sizeof(ts_dur), offsetof(ts_dur, ts)) != 0 ||
        !(r->comm_kernel_us = gd_arena_alloc(r->arena, (v.len + 1) * sizeof *r->comm_kernel_us)) ||
        !(r->comm_kernel_start_ns = gd_arena_alloc(r->arena, (v.len + 1) * sizeof *r->comm_kernel_start_ns)) ||
        !(r->comm_kernel_kind = gd_arena_alloc(r->arena, v.len + 1))) {
        gd_vec_free(&v);
        return -1;
    }
    for (size_t i = 0; i < v.len; i++) {
        const ts_dur *x = &((ts_dur *)v.data)[i];
        r->comm_kernel_us[i] = ns_to_us(x->dur);
        r->comm_kernel_start_ns[i] = x->ts;
        r->comm_kernel_kind[i] = (unsigned char)x->kind;
        r->comm_kernel_time_us += r->comm_kernel_us[i];
    }
    r->comm_kernel_count = v.len;
    gd_vec_free(&v);
    return 0;
}

/* Communication kernel time by kind (DEFINITIONS "Communication", collective kinds;
 * the kind from model/collective.h: args, else the launching host call, else the name). */
int gd_build_comm_kinds(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    if (!a->nsteps)
        return 0;
    gd_coll_join j;
    if (gd_coll_join_init(&j, t) != 0)
        return -1;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->kind != GD_GPU_KERNEL || !a->op_is_comm[i] || op->ts_ns < a->span_s || op->ts_ns >= a->span_e)
            continue;
        const gd_runtime *rt = gd_runtime_of_op(a, i);
        gpudiag_comm_kind k = gd_coll_kind(&j, op, rt, NULL);
        r->comm_kind_us[k] += ns_to_us(op->dur_ns);
    }
    gd_coll_join_free(&j);
    return 0;
}

/* ---- communication kind shares --------------------------------------------- */

void gd_build_comm_kind_shares(gpudiag_report *r)
{
    double tot = 0;
    for (int k = 0; k < GPUDIAG_COMM_KIND_COUNT; k++)
        tot += r->comm_kind_us[k];
    for (int k = 0; k < GPUDIAG_COMM_KIND_COUNT; k++)
        r->comm_kind_share[k] = tot > 0 ? r->comm_kind_us[k] / tot : NAN;
}
