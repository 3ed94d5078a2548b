/*
 * roofline.h (internal) — build the report's roofline section (roofline.c).
 */
#ifndef GD_ANALYZE_ROOFLINE_H
#define GD_ANALYZE_ROOFLINE_H

#include "gpudiag/gpudiag.h"

/* Fill r->roofline from the trace's op FLOPs (model/opflops.h) and opts->ncu;
 * leaves it NULL when no kernel's FLOPs are known.  Needs the devices' GPU
 * identification (gd_build_mfu) and r->kernel_time_us.  Returns 0, or -1 when
 * out of memory. */
int gd_build_roofline(const gpudiag_trace *t, gpudiag_report *r, const gpudiag_analyze_opts *opts);

#endif
