/*
 * devices.c — per-device GPU metrics (TBP GPUMetricsParser + HTA).
 * A pass of gpudiag_analyze (analyze.c), over the context of analyze.h;
 * its definitions and peers: docs/DEFINITIONS.md.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/passes.h"
#include "gpudiag/specs.h"
#include "model/trace.h"

/* ---- per-device GPU metrics (TBP GPUMetricsParser + HTA) ----------------- */

typedef struct endpoint {
    int64_t t;
    float v;          /* Kineto's blocks per SM, as stored in the model */
    int32_t is_end;
} endpoint;
_Static_assert(sizeof(endpoint) == 16, "endpoint is 16 bytes");

static int cmp_endpoint(const void *pa, const void *pb)
{
    const endpoint *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->is_end - b->is_end; /* START before END at equal time */
}

/* Stable sort of endpoints by time (qsort only if the scratch cannot be had). */
static void sort_endpoints(endpoint *ep, size_t n)
{
    if (gd_radix_sort_i64(ep, n, sizeof *ep, offsetof(endpoint, t)) != 0)
        qsort(ep, n, sizeof *ep, cmp_endpoint);
}

/* TBP merge_ranges_with_value + intersection with the steps span + weighted
 * average over the span.  ep[0, n) are the kernels' STARTs and ep[n, 2n) their
 * ENDs, each in op order.  Each half is sorted by time on its own (scratch for
 * n endpoints, not 2n) and the sweep merges the two, STARTs first at equal
 * times: the order of a stable sort of the whole array, as TBP's sort key.
 * Returns NaN when no positive range falls inside. */
static double sm_efficiency(endpoint *ep, size_t n, int64_t span_s, int64_t span_e)
{
    if (n == 0 || span_e <= span_s)
        return NAN;
    endpoint *st = ep, *en = ep + n;
    sort_endpoints(st, n);
    sort_endpoints(en, n);
    size_t i = 1, j = 0; /* st[0] is first: a kernel never ends before it starts */
    double last_value = st[0].v < 1.0f ? (double)st[0].v : 1.0;
    int64_t last_t = st[0].t;
    double weighted = 0;
    int any = 0;
    while (i < n || j < n) {
        const endpoint *p = (i < n && (j >= n || st[i].t <= en[j].t)) ? &st[i++] : &en[j++];
        if (p->t > last_t && last_value > 0.0) {
            double eff = last_value < 1.0 ? last_value : 1.0;
            int64_t s = last_t > span_s ? last_t : span_s;
            int64_t e = p->t < span_e ? p->t : span_e;
            if (s < e) {
                weighted += eff * (double)(e - s);
                any = 1;
            }
        }
        last_t = p->t;
        /* min(v, 1): the same capped sum (values >= 0), and no value swamps or poisons the
         * running sum (DEFINITIONS "GPU metrics", Impossible values) */
        double v = p->v < 1.0f ? (double)p->v : 1.0;
        if (p->is_end)
            last_value -= v;
        else
            last_value += v;
    }
    if (!any)
        return NAN;
    return weighted / (double)(span_e - span_s);
}

/* NVIDIA devices without deviceProperties: the compute capability their kernel
 * names say (DEFINITIONS "GPU metrics", architecture inferred from kernel
 * names), the highest tag per device.  0, or -1 on OOM. */
static int infer_arch(const gpudiag_trace *t, gpudiag_report *r)
{
    if (t->is_amd)
        return 0;
    int need = 0;
    for (size_t i = 0; i < r->device_count; i++)
        need |= r->devices[i].compute_major < 0;
    if (!need || t->names.count == 0)
        return 0;
    /* per name id: -2 not looked at yet, -1 no tag, else major*10+minor */
    int16_t *cc = malloc(t->names.count * sizeof *cc);
    if (!cc)
        return -1;
    for (uint32_t i = 0; i < t->names.count; i++)
        cc[i] = -2;
    for (size_t di = 0; di < r->device_count; di++) {
        gpudiag_device *d = &r->devices[di];
        if (d->compute_major >= 0)
            continue;
        int best = -1;
        uint64_t tagged = 0;
        for (size_t i = 0; i < t->gpu_ops.len; i++) {
            const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
            if (op->device != d->id || op->kind != GD_GPU_KERNEL || op->name_id >= t->names.count)
                continue;
            if (cc[op->name_id] == -2) {
                int mj = -1, mn = -1;
                cc[op->name_id] = gpudiag_arch_family(gd_strtab_get(&t->names, op->name_id),
                                                      gd_strtab_len(&t->names, op->name_id), &mj, &mn)
                                      ? (int16_t)(mj * 10 + mn)
                                      : -1;
            }
            if (cc[op->name_id] >= 0) {
                tagged++;
                if (cc[op->name_id] > best)
                    best = cc[op->name_id];
            }
        }
        if (best >= 0) {
            d->compute_major = best / 10;
            d->compute_minor = best % 10;
            d->arch_inferred = 1;
            d->arch_tagged_kernels = tagged;
        }
    }
    free(cc);
    return 0;
}

/* The devices of the report: those with GPU ops (by id, ascending), with the
 * trace's deviceProperties where it describes them; every metric NaN until
 * measured.  Fills r->devices and r->device_count.  0, or -1 on allocation
 * failure. */
static int device_list(const gpudiag_trace *t, gpudiag_report *r)
{
    int64_t *ids = malloc((t->gpu_ops.len + t->devices.len + 1) * sizeof *ids);
    if (!ids)
        return -1;
    size_t nid = 0;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (nid == 0 || ids[nid - 1] != op->device)
            ids[nid++] = op->device;
    }
    qsort(ids, nid, sizeof *ids, gd_cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < nid; i++)
        if (u == 0 || ids[u - 1] != ids[i])
            ids[u++] = ids[i];
    nid = u;
    r->devices = gd_arena_calloc(r->arena, nid ? nid : 1, sizeof *r->devices);
    if (!r->devices) {
        free(ids);
        return -1;
    }
    r->device_count = nid;
    for (size_t i = 0; i < nid; i++) {
        gpudiag_device *d = &r->devices[i];
        d->id = (int)ids[i];
        d->compute_major = d->compute_minor = -1;
        d->total_memory_bytes = NAN;
        d->gpu_utilization = d->sm_efficiency = d->achieved_occupancy = d->tensor_core_share = NAN;
        d->span_us = d->idle_us = d->compute_us = d->non_compute_us = NAN;
        d->comm_time_us = d->comm_overlap = d->idle_share = NAN;
        for (size_t k = 0; k < t->devices.len; k++) {
            const gd_device_prop *dp = gd_vec_at(&t->devices, k);
            if (dp->id == d->id) {
                snprintf(d->name, sizeof d->name, "%s", dp->name);
                d->num_sms = dp->num_sms;
                d->compute_major = dp->compute_major;
                d->compute_minor = dp->compute_minor;
                d->warp_size = dp->warp_size;
                d->total_memory_bytes = dp->total_mem_bytes;
            }
        }
    }
    free(ids);
    return 0;
}

/* Pass 1 over one device's ops, its kernels (TBP GPUMetricsParser): kernel
 * count and time, Tensor Core share, and over the steps span GPU
 * utilization, Est. SM efficiency and Est. achieved occupancy.  kiv and eps
 * are scratch (sets of gd_iv, endpoint), freed on return so that the
 * breakdown of pass 2 does not hold them too: on a 28 GB trace all five sets
 * at once were the analysis' peak.  0, or -1 on allocation failure. */
static int device_kernel_metrics(actx *a, gpudiag_device *d, gd_vec *kiv, gd_vec *eps)
{
    const gpudiag_trace *t = a->t;
    kiv->len = eps->len = 0;
    /* SM efficiency endpoints: every START (op order), then every END */
    size_t nbps = 0, kb = 0;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->device == d->id && op->kind == GD_GPU_KERNEL && (op->flags & GD_GF_HAS_BPS) &&
            op->blocks_per_sm > 0.0f)
            nbps++;
    }
    if (gd_vec_reserve(eps, 2 * nbps) != 0)
        return -1;
    endpoint *ep = eps->data;
    double occ_w = 0, occ_t = 0, tc_t = 0, ktime = 0;
    uint64_t kcount = 0, gcount = 0; /* gcount: whole-graph rows (GD_GPU_GRAPH), busy time only */
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->device != d->id || (op->kind != GD_GPU_KERNEL && op->kind != GD_GPU_GRAPH))
            continue;
        int64_t s = op->ts_ns, e = op->ts_ns + op->dur_ns;
        if (op->kind == GD_GPU_GRAPH) {
            /* a whole graph's execution: its kernels ran then (DEFINITIONS "Nsight Systems
             * exports", graph rows), so it is kernel busy time, but no kernel of its own */
            gcount++;
            if (gd_iv_push(kiv, s, e))
                return -1;
            continue;
        }
        unsigned nf = gd_name_flags(a, op->name_id);
        kcount++;
        ktime += (double)op->dur_ns;
        if (gd_iv_push(kiv, s, s + op->dur_ns))
            return -1;
        if (nf & NF_TC)
            tc_t += (double)op->dur_ns;
        if ((op->flags & GD_GF_HAS_BPS) && op->blocks_per_sm > 0.0f) {
            endpoint e1 = {s, op->blocks_per_sm, 0}, e2 = {e, op->blocks_per_sm, 1};
            ep[kb] = e1;
            ep[nbps + kb++] = e2;
        }
        if ((op->flags & GD_GF_HAS_OCC) && op->occupancy_pct >= 0.0f && a->nsteps) {
            int64_t cs = s > a->span_s ? s : a->span_s;
            int64_t ce = e < a->span_e ? e : a->span_e;
            if (cs < ce) {
                occ_w += (double)op->occupancy_pct * (double)(ce - cs);
                occ_t += (double)(ce - cs);
            }
        }
    }
    d->kernel_count = kcount;
    d->kernel_time_us = ktime / NS_PER_US;
    if (ktime > 0)
        d->tensor_core_share = tc_t / ktime;
    kiv->len = gd_iv_merge(kiv->data, kiv->len);
    if (a->nsteps && a->span_e > a->span_s && (kcount || gcount)) {
        gd_iv span = {a->span_s, a->span_e};
        int64_t busy = gd_iv_intersect_len(kiv->data, kiv->len, &span, 1);
        d->gpu_utilization = (double)busy / (double)(a->span_e - a->span_s);
        eps->len = 2 * nbps;
        d->sm_efficiency = sm_efficiency(eps->data, nbps, a->span_s, a->span_e);
        if (occ_t > 0)
            d->achieved_occupancy = occ_w / occ_t / 100.0;
    }
    gd_vec_free(kiv);
    gd_vec_free(eps);
    return 0;
}

/* Pass 2 over one device's ops (HTA temporal breakdown and communication
 * overlap): every op on a stream is busy time, over [first GPU event, last
 * GPU event]; compute and communication kernels as sets.  all_iv, comp_iv
 * and comm_iv are scratch sets of gd_iv, kept for the next device.  0, or -1
 * on allocation failure. */
static int device_breakdown(actx *a, gpudiag_device *d, gd_vec *all_iv, gd_vec *comp_iv, gd_vec *comm_iv)
{
    const gpudiag_trace *t = a->t;
    all_iv->len = comp_iv->len = comm_iv->len = 0;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->device != d->id || op->stream == -1)
            continue;
        int64_t s = op->ts_ns;
        if (gd_iv_push(all_iv, s, s + op->dur_ns))
            return -1;
        if (op->kind != GD_GPU_KERNEL)
            continue;
        unsigned nf = gd_name_flags(a, op->name_id);
        if (nf & NF_COMM) {
            if (gd_iv_push(comm_iv, s, s + op->dur_ns))
                return -1;
        } else if (nf & NF_COMPUTE) {
            if (gd_iv_push(comp_iv, s, s + op->dur_ns))
                return -1;
        }
    }
    all_iv->len = gd_iv_merge(all_iv->data, all_iv->len);
    if (all_iv->len) {
        const gd_iv *av = all_iv->data;
        int64_t span = av[all_iv->len - 1].e - av[0].s;
        int64_t busy = gd_iv_sum(av, all_iv->len);
        comp_iv->len = gd_iv_merge(comp_iv->data, comp_iv->len);
        int64_t comp = gd_iv_sum(comp_iv->data, comp_iv->len);
        d->span_us = ns_to_us(span);
        d->idle_us = ns_to_us(span - busy);
        d->compute_us = ns_to_us(comp);
        d->non_compute_us = ns_to_us(busy - comp);
        d->idle_share = d->span_us > 0 ? d->idle_us / d->span_us : NAN;
    }
    comm_iv->len = gd_iv_merge(comm_iv->data, comm_iv->len);
    if (comm_iv->len) {
        int64_t comm = gd_iv_sum(comm_iv->data, comm_iv->len);
        int64_t ov = gd_iv_intersect_len(comm_iv->data, comm_iv->len, comp_iv->data, comp_iv->len);
        d->comm_time_us = ns_to_us(comm);
        d->comm_overlap = comm > 0 ? (double)ov / (double)comm : NAN;
    }
    return 0;
}

int gd_build_devices(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    if (device_list(t, r) != 0 || infer_arch(t, r) != 0)
        return -1;
    int rc = 0;
    gd_vec kiv, all_iv, comp_iv, comm_iv, eps;
    gd_vec_init(&kiv, sizeof(gd_iv));
    gd_vec_init(&all_iv, sizeof(gd_iv));
    gd_vec_init(&comp_iv, sizeof(gd_iv));
    gd_vec_init(&comm_iv, sizeof(gd_iv));
    gd_vec_init(&eps, sizeof(endpoint));
    for (size_t di = 0; rc == 0 && di < r->device_count; di++) {
        gpudiag_device *d = &r->devices[di];
        if (device_kernel_metrics(a, d, &kiv, &eps) != 0 || device_breakdown(a, d, &all_iv, &comp_iv, &comm_iv) != 0)
            rc = -1;
    }
    gd_vec_free(&kiv);
    gd_vec_free(&all_iv);
    gd_vec_free(&comp_iv);
    gd_vec_free(&comm_iv);
    gd_vec_free(&eps);
    return rc;
}
