/*
 * mfu_trace.h — the GPU of each device and MFU from a trace (mfu.c).
 */
#ifndef GD_ANALYZE_MFU_TRACE_H
#define GD_ANALYZE_MFU_TRACE_H

#include "gpudiag/gpudiag.h"

/* Identify each device's GPU in the table (or opts->gpu) and fill its spec
 * fields; then, when opts give FLOPs per token and tokens per step, fill
 * r->mfu, r->hfu, model_flops_per_step, achieved_tflops, mfu_peak_tflops and
 * mfu_dtype.  Needs r->avg_step_us.  Never fails. */
void gd_build_mfu(gpudiag_report *r, const gpudiag_analyze_opts *opts);

#endif
