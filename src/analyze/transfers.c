/*
 * transfers.c — host<->device copies and their rates.
 * A pass of gpudiag_analyze (analyze.c), over the context of analyze.h;
 * its definitions and peers: docs/DEFINITIONS.md.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/passes.h"
#include "model/trace.h"

/* ---- GEMMs beside communication (DEFINITIONS "GEMM fill", SMs left to communication) ---- */

typedef struct comm_iv {
    int64_t s, e, maxe; /* maxe: the latest end of this and the earlier intervals of its device */
    int32_t device;
    float bps;          /* blocks per SM, 0 if unknown */
} comm_iv;

static int cmp_comm_iv(const void *x, const void *y)
{
    const comm_iv *a = x, *b = y;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    return a->s < b->s ? -1 : a->s > b->s;
}

/* The communication kernels of the trace (a->op_is_comm: the breakdown's and the comm share's),
 * sorted by device then start; NULL (n 0) when none. */
static comm_iv *comm_intervals(actx *a, size_t *n)
{
    const gpudiag_trace *t = a->t;
    size_t c = 0;
    *n = 0;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->kind == GD_GPU_KERNEL && a->op_is_comm[i])
            c++;
    }
    comm_iv *v = c ? malloc(c * sizeof *v) : NULL;
    if (!v)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->kind != GD_GPU_KERNEL || !a->op_is_comm[i])
            continue;
        v[k].s = op->ts_ns;
        v[k].e = op->ts_ns + op->dur_ns;
        v[k].device = op->device;
        v[k].bps = (op->flags & GD_GF_HAS_BPS) && op->blocks_per_sm > 0 ? op->blocks_per_sm : 0.0f;
        k++;
    }
    qsort(v, c, sizeof *v, cmp_comm_iv);
    for (size_t i = 0; i < c; i++)
        v[i].maxe = i > 0 && v[i - 1].device == v[i].device && v[i - 1].maxe > v[i].e ? v[i - 1].maxe : v[i].e;
    *n = c;
    return v;
}

/* Whether a GEMM with fewer blocks than SMs leaves the rest to communication: communication kernels on
 * its device overlap at least half its span (their union), and its blocks per SM plus the largest
 * blocks per SM among them reach 1.  ov: scratch intervals, emptied here. */
static int leaves_sms_to_comm(const gd_gpu_op *op, const comm_iv *v, size_t n, gd_vec *ov)
{
    int64_t os = op->ts_ns, oe = op->ts_ns + op->dur_ns;
    if (!n || op->dur_ns <= 0)
        return 0;
    /* first interval after (device, start < oe) */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].device < op->device || (v[mid].device == op->device && v[mid].s < oe))
            lo = mid + 1;
        else
            hi = mid;
    }
    ov->len = 0;
    float comm_bps = 0;
    for (size_t j = lo; j-- > 0 && v[j].device == op->device && v[j].maxe > os;) {
        if (v[j].e <= os)
            continue;
        if (gd_iv_push(ov, v[j].s > os ? v[j].s : os, v[j].e < oe ? v[j].e : oe) != 0)
            return 0;
        if (v[j].bps > comm_bps)
            comm_bps = v[j].bps;
    }
    if (!ov->len || (double)op->blocks_per_sm + (double)comm_bps < 1.0 - 1e-4)
        return 0;
    /* the overlaps' union (intervals.h) */
    size_t m = gd_iv_merge(ov->data, ov->len);
    return 2 * gd_iv_sum(ov->data, m) >= op->dur_ns;
}

/* ---- host<->device copies -------------------------------------------------- */

/* Memcpys that start inside the steps span, by direction from Kineto's names
 * ("Memcpy HtoD (Pageable -> Device)"), and those touching pageable memory. */
void gd_build_transfers(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    if (!a->nsteps)
        return;
    size_t ncomm = 0;
    comm_iv *comm = comm_intervals(a, &ncomm);
    gd_vec ov;
    gd_vec_init(&ov, sizeof(gd_iv));
    for (size_t i = 0; i < t->gpu_ops.len; i++) {
        const gd_gpu_op *op = gd_vec_at(&t->gpu_ops, i);
        if (op->ts_ns < a->span_s || op->ts_ns >= a->span_e)
            continue;
        unsigned nf = gd_name_flags(a, op->name_id);
        if (op->kind == GD_GPU_KERNEL && gd_flags_class(nf) == GPUDIAG_KCLASS_GEMM) {
            /* GEMM fill: Kineto's blocks per SM = grid blocks / SM count */
            double d = ns_to_us(op->dur_ns);
            r->gemm_calls++;
            r->gemm_time_us += d;
            if (op->flags & GD_GF_HAS_BPS) {
                r->gemm_blocks_known_us += d;
                if (op->blocks_per_sm >= 0 && op->blocks_per_sm < 1) {
                    if (leaves_sms_to_comm(op, comm, ncomm, &ov)) {
                        r->gemm_comm_filled_us += d;
                    } else {
                        r->gemm_underfilled_us += d;
                        r->gemm_sm_idle_us += d * (1.0 - op->blocks_per_sm);
                    }
                }
            }
            continue;
        }
        if (op->kind != GD_GPU_MEMCPY)
            continue;
        gpudiag_copy_kind k = gd_flags_copy_kind(nf);
        double bytes = op->bytes > 0 ? (double)op->bytes : 0.0;
        r->transfers[k].count++;
        r->transfers[k].bytes += bytes;
        r->transfers[k].time_us += ns_to_us(op->dur_ns);
        if (nf & NF_PAGEABLE) {
            r->pageable.count++;
            r->pageable.bytes += bytes;
            r->pageable.time_us += ns_to_us(op->dur_ns);
        }
    }
    gd_vec_free(&ov);
    free(comm);
}

/* ---- transfer rates -------------------------------------------------------- */

/* The rate of one transfer; link is the host link for host copies, NaN else. */
static gpudiag_transfer_rate transfer_rate(const gpudiag_transfer *tr, double link)
{
    gpudiag_transfer_rate q;
    q.gb_per_s = tr->time_us > 0 ? tr->bytes / tr->time_us / 1e3 : NAN;
    q.link_gb_per_s = link;
    q.link_share = link > 0 ? q.gb_per_s / link : NAN;
    return q;
}

void gd_build_gemm_fill_share(gpudiag_report *r)
{
    r->gemm_underfilled_share = r->gemm_blocks_known_us > 0 ? r->gemm_underfilled_us / r->gemm_blocks_known_us : NAN;
}

void gd_build_transfer_rates(gpudiag_report *r)
{
    r->pcie_link_gb_per_s = NAN;
    for (size_t i = 0; i < r->device_count; i++)
        if (r->devices[i].pcie_gbs_per_dir > 0) {
            r->pcie_link_gb_per_s = r->devices[i].pcie_gbs_per_dir;
            break;
        }
    /* host copies cross PCIe: they are compared with the identified GPU's link rate */
    for (int k = 0; k < GPUDIAG_COPY_KIND_COUNT; k++) {
        int host = k == GPUDIAG_COPY_H2D || k == GPUDIAG_COPY_D2H;
        r->transfer_rates[k] = transfer_rate(&r->transfers[k], host ? r->pcie_link_gb_per_s : NAN);
    }
    r->pageable_rate = transfer_rate(&r->pageable, r->pcie_link_gb_per_s);
}
