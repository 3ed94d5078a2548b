/*
 * roofline.h (internal) — build the report's roofline section (roofline.c).
 */
#ifndef GD_ANALYZE_ROOFLINE_H
#define GD_ANALYZE_ROOFLINE_H

#include <stdint.h>

#include "gpudiag/gpudiag.h"
#include "model/opflops.h"

struct actx;

/* The trace's counted ops (t->op_flops) joined to the kernels they launched
 * (gd_join_op_kernels), made once per analysis and read by the roofline and
 * the LoRA pass.  ops: the no ops sorted by thread, then start (outer first),
 * with .inner set; best[j]: the index into t->gpu_ops of op j's longest
 * kernel, -1 when none.  Owned; gd_op_join_free frees it. */
typedef struct gd_op_join {
    gd_op_flops *ops;
    int64_t *best;
    size_t no;
} gd_op_join;

/* Join each counted op of a->t->op_flops to the longest kernel it launched
 * into *j (docs/DEFINITIONS.md "Roofline of the kernels"): the innermost
 * counted op on the launch call's thread whose span holds the call (the
 * first call with the kernel's correlation id, gd_runtime_of_op), else the
 * first op with the kernel's External id.  After the correlation index.
 * Returns 0 (*j empty when there are no counted ops), or -1 when out of
 * memory (*j empty). */
int gd_join_op_kernels(const struct actx *a, gd_op_join *j);
/* Free what *j holds and empty it; an empty *j is fine. */
void gd_op_join_free(gd_op_join *j);

/* Fill r->roofline from the joined op FLOPs (join, from gd_join_op_kernels)
 * and opts->ncu; leaves it NULL when no kernel's FLOPs are known.  Needs the
 * devices' GPU identification (gd_build_mfu) and r->kernel_time_us.  Returns
 * 0, or -1 when out of memory. */
int gd_build_roofline(const gpudiag_trace *t, const gd_op_join *join, gpudiag_report *r,
                      const gpudiag_analyze_opts *opts);

#endif
