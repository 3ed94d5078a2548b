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
    int32_t group_size;
    double bytes;
    int64_t exposed; /* ns */
} ts_dur;

/* The GPU work of device dev that hides communication in the step breakdown (the
 * Kernel, Memcpy and Memset roles, which rank above Communication: DEFINITIONS
 * "Communication", exposed wait), as a merged set in *out.  0, or -1 on OOM. */
static int cover_of_device(actx *a, int32_t dev, gd_vec *out)
{
    const gpudiag_trace *t = a->t;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->device != dev || (op->kind == GD_GPU_KERNEL && a->op_is_comm[i]))
            continue;
        if (gd_iv_push(out, op->ts_ns, op->ts_ns + op->dur_ns))
            return -1;
    }
    out->len = gd_iv_merge(out->data, out->len);
    return 0;
}

/* NCCL-tests' algbw and busbw of the sequence (DEFINITIONS "Communication", bandwidth):
 * bytes over duration summed over the collectives where they are known. */
static void comm_bandwidth(gpudiag_report *r)
{
    double bytes = 0, us = 0, bus = 0, bus_us = 0;
    for (size_t i = 0; i < r->comm_kernel_count; i++) {
        double b = r->comm_kernel_bytes[i], f = gd_coll_bus_factor(r->comm_kernel_kind[i], r->comm_kernel_group_size[i]);
        if (isnan(b) || !(r->comm_kernel_us[i] > 0))
            continue;
        bytes += b;
        us += r->comm_kernel_us[i];
        if (!isnan(f)) {
            bus += b * f;
            bus_us += r->comm_kernel_us[i];
        }
    }
    /* bytes per µs ÷ 1e3 = GB/s */
    r->comm_alg_gb_per_s = us > 0 ? bytes / us / 1e3 : NAN;
    r->comm_bus_gb_per_s = bus_us > 0 ? bus / bus_us / 1e3 : NAN;
}

/* The report's per-collective arrays (comm_kernel_*) from the sorted v, and their exposed
 * wait per step over nsteps steps. */
static int fill_sequence(gpudiag_report *r, const gd_vec *v, size_t nsteps)
{
    size_t n = v->len + 1;
    double exposed = 0;
    if (!(r->comm_kernel_us = gd_arena_alloc(r->arena, n * sizeof *r->comm_kernel_us)) ||
        !(r->comm_kernel_start_ns = gd_arena_alloc(r->arena, n * sizeof *r->comm_kernel_start_ns)) ||
        !(r->comm_kernel_kind = gd_arena_alloc(r->arena, n)) ||
        !(r->comm_kernel_bytes = gd_arena_alloc(r->arena, n * sizeof *r->comm_kernel_bytes)) ||
        !(r->comm_kernel_exposed_us = gd_arena_alloc(r->arena, n * sizeof *r->comm_kernel_exposed_us)) ||
        !(r->comm_kernel_group_size = gd_arena_alloc(r->arena, n * sizeof *r->comm_kernel_group_size)))
        return -1;
    for (size_t i = 0; i < v->len; i++) {
        const ts_dur *x = &((const ts_dur *)v->data)[i];
        r->comm_kernel_us[i] = ns_to_us(x->dur);
        r->comm_kernel_start_ns[i] = x->ts;
        r->comm_kernel_kind[i] = (unsigned char)x->kind;
        r->comm_kernel_bytes[i] = x->bytes;
        r->comm_kernel_exposed_us[i] = ns_to_us(x->exposed);
        r->comm_kernel_group_size[i] = x->group_size;
        r->comm_kernel_time_us += r->comm_kernel_us[i];
        exposed += r->comm_kernel_exposed_us[i];
    }
    r->comm_kernel_exposed_us_per_step = exposed / (double)nsteps;
    r->comm_kernel_count = v->len;
    comm_bandwidth(r);
    return 0;
}

int gd_build_comm_sequence(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    if (!a->nsteps)
        return 0;
    r->comm_kernel_exposed_us_per_step = 0; /* until a collective is found */
    int dev = INT32_MAX;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->kind == GD_GPU_KERNEL && a->op_is_comm[i] && op->device < dev)
            dev = op->device;
    }
    if (dev == INT32_MAX)
        return 0;
    gd_vec v, cover;
    gd_vec_init(&v, sizeof(ts_dur));
    gd_vec_init(&cover, sizeof(gd_iv));
    gd_coll_join j;
    int rc = -1;
    if (cover_of_device(a, (int32_t)dev, &cover) != 0 || gd_coll_join_init(&j, t) != 0) {
        gd_vec_free(&cover);
        return -1;
    }
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->kind != GD_GPU_KERNEL || !a->op_is_comm[i] || op->device != dev || op->ts_ns < a->span_s ||
            op->ts_ns >= a->span_e || op->dur_ns == 0)
            continue; /* a zero-length collective carries no timing (CUPTI artefact) */
        const gd_runtime *rt = gd_runtime_of_op(a, i);
        gd_coll_params p;
        gd_coll_params_of(&j, op, rt, &p);
        ts_dur x = {op->ts_ns, op->dur_ns, (int)gd_coll_kind(&j, op, rt, NULL), p.group_size, 0, 0};
        x.bytes = gd_coll_bytes(x.kind, &p);
        x.exposed = op->dur_ns - gd_iv_cover_len(cover.data, cover.len, op->ts_ns, op->ts_ns + op->dur_ns);
        if (!gd_vec_push(&v, &x))
            goto out;
    }
    if (gd_radix_sort_i64(v.data, v.len, sizeof(ts_dur), offsetof(ts_dur, ts)) == 0)
        rc = fill_sequence(r, &v, a->nsteps);
out:
    gd_coll_join_free(&j);
    gd_vec_free(&v);
    gd_vec_free(&cover);
    return rc;
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
