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

/* ---- host<->device copies -------------------------------------------------- */

/* Memcpys that start inside the steps span, by direction from Kineto's names
 * ("Memcpy HtoD (Pageable -> Device)"), and those touching pageable memory. */
void gd_build_transfers(actx *a)
{
    const gpudiag_trace *t = a->t;
    gpudiag_report *r = a->r;
    if (!a->nsteps)
        return;
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
                    r->gemm_underfilled_us += d;
                    r->gemm_sm_idle_us += d * (1.0 - op->blocks_per_sm);
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
