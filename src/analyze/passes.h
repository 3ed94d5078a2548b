/*
 * passes.h — the trace analysis passes that gpudiag_analyze (analyze.c) calls
 * in order, each in its own file, over the context of analyze.h (actx).  Each
 * fills its part of a->r; the numbers and their peers: docs/DEFINITIONS.md.
 */
#ifndef GD_ANALYZE_PASSES_H
#define GD_ANALYZE_PASSES_H

#include <stdint.h>

#include "analyze/analyze.h"
#include "util/arena.h" /* the report's arrays and strings: gd_arena_calloc(r->arena, ...) */
#include "util/util.h"  /* NS_PER_US, ns_to_us */

/* Steps (TBP StepParser; steps.c): r->steps, r->step_count, trimming and the
 * step intervals a->steps / a->span_s..span_e the later passes use.  After
 * the correlation index.  0, or -1 on allocation failure. */
int gd_build_steps(actx *a);

/* Step breakdown (TBP OverallParser; steps.c): each step's time by role and
 * r->avg_step_us, r->idle_step_us.  After gd_build_steps.  0, or -1 on
 * allocation failure. */
int gd_build_breakdown(actx *a);

/* Per-device GPU metrics (TBP GPUMetricsParser + HTA; devices.c):
 * r->devices[], r->device_count.  After gd_build_steps.  0, or -1 on
 * allocation failure. */
int gd_build_devices(actx *a);

/* Kernels by name (kernels.c): r->kernel_stats, kernel count and time, median
 * kernel.  0, or -1 on allocation failure. */
int gd_build_kernels(actx *a);

/* HTA kernel launch statistics (kernels.c): launch delay, short-kernel share,
 * optimizer time, matmul Tensor Core share.  0, or -1 on allocation failure. */
int gd_build_launch_stats(actx *a);

/* Host<->device copies and GEMM fill (transfers.c): r->transfers[] by
 * direction, r->pageable, r->gemm_*.  Allocates nothing. */
void gd_build_transfers(actx *a);

/* Communication kernels by kind (comm.c): r->comm_kind_us.  0, or -1 on
 * allocation failure. */
int gd_build_comm_kinds(actx *a);

/* Communication kernels in order, the input of the cross-rank analysis
 * (comm.c): r->comm_kernel_us, r->comm_kernel_count, their sum
 * r->comm_kernel_time_us.  0, or -1 on allocation
 * failure. */
int gd_build_comm_sequence(actx *a);

/* Recompute of activation checkpointing (memsave.c; DEFINITIONS "Memory
 * savings and what they cost"): r->recompute.  After gd_build_mfu (its hfu
 * needs r->mfu) and gd_build_steps.  0, or -1 on allocation failure. */
int gd_build_recompute(actx *a);

/* Memory timeline per GPU from the `[memory]` events and the allocator's
 * calls inside the steps (memory.c; include/gpudiag/memory.h): r->memory.
 * After gd_build_steps, gd_build_devices and gd_idle_gaps (the timeline's
 * bins).  0, or -1 on allocation failure (r->memory may be partly filled;
 * gpudiag_report_free frees it). */
int gd_build_memory(actx *a);

/* The shares and rates of the report's numbers that renderers and rules read
 * (issue 20, "renderers only render"), each computed once: gd_build_shares
 * calls the four below.  After every pass that fills the numbers they divide
 * (gd_build_mfu identifies the devices' PCIe rates).  They read only the
 * report, so gpudiag_series_analyze calls gd_build_shares too (all NaN for a
 * monitoring log).  A new share of existing numbers is one line there. */
void gd_build_shares(gpudiag_report *r);

/* Kernel class shares (kernels.c): r->class_share[c] = class_time_us[c] /
 * kernel_time_us, NaN when kernel_time_us is not > 0, and r->class_order,
 * the classes by time.  After gd_build_kernels. */
void gd_build_class_shares(gpudiag_report *r);

/* Communication kind shares (comm.c): r->comm_kind_share[k] = comm_kind_us[k]
 * / their sum, NaN when the sum is not > 0.  After gd_build_comm_kinds. */
void gd_build_comm_kind_shares(gpudiag_report *r);

/* Transfer rates (transfers.c; DEFINITIONS "Copies" and "Each device's GPU"):
 * r->pcie_link_gb_per_s from the first device with a PCIe rate, and each
 * transfer's achieved GB/s (bytes / time_us / 1e3), link rate (host copies:
 * h2d, d2h, pageable) and link share.  After gd_build_transfers and
 * gd_build_mfu, which identifies the devices' GPUs. */
void gd_build_transfer_rates(gpudiag_report *r);
/* LoRA adapter GEMMs (memsave.c; DEFINITIONS "LoRA adapters"): r->lora.
 * After gd_build_kernels (GEMM class time).  0, or -1 on allocation failure. */
int gd_build_lora(actx *a);

/* GEMM fill share (transfers.c; DEFINITIONS "GEMM fill"):
 * r->gemm_underfilled_share = gemm_underfilled_us / gemm_blocks_known_us, NaN
 * when gemm_blocks_known_us is not > 0.  After gd_build_transfers. */
void gd_build_gemm_fill_share(gpudiag_report *r);

/* Gradient accumulation (memsave.c; DEFINITIONS "Gradient accumulation"):
 * r->accumulation.  After gd_build_steps.  0, or -1 on allocation failure. */
int gd_build_accumulation(actx *a);

/* Offload traffic against the PCIe link (memsave.c; DEFINITIONS "Offload"):
 * r->offload.  After the breakdown, the transfers and the shares and rates
 * (pcie_link_gb_per_s).  0, or -1 on allocation failure. */
int gd_build_offload(actx *a);

#endif
