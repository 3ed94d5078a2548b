/*
 * roofline.h (internal) — build the report's roofline section (roofline.c).
 */
#ifndef GD_ANALYZE_ROOFLINE_H
#define GD_ANALYZE_ROOFLINE_H

#include <stdint.h>

#include "gpudiag/gpudiag.h"
#include "model/opflops.h"

/* Fill r->roofline from the trace's op FLOPs (model/opflops.h) and opts->ncu;
 * leaves it NULL when no kernel's FLOPs are known.  Needs the devices' GPU
 * identification (gd_build_mfu) and r->kernel_time_us.  Returns 0, or -1 when
 * out of memory. */
int gd_build_roofline(const gpudiag_trace *t, gpudiag_report *r, const gpudiag_analyze_opts *opts);

/* Join each counted op of t->op_flops to the longest kernel it launched
 * (docs/DEFINITIONS.md "Roofline of the kernels"): the innermost counted op
 * on the launch call's thread whose span holds the call, else the first op
 * with the kernel's External id.  ops and best hold t->op_flops.len entries:
 * ops receives the ops sorted by thread, then start (outer first), with
 * .inner set; best[j] the index into t->gpu_ops of op j's longest kernel, -1
 * when none.  Returns 0, or -1 when out of memory. */
int gd_join_op_kernels(const gpudiag_trace *t, gd_op_flops *ops, int64_t *best);

#endif
