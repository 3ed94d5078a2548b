/*
 * analyze.h — internal entry points shared by the analyses.
 */
#ifndef GD_ANALYZE_ANALYZE_H
#define GD_ANALYZE_ANALYZE_H

#include <stddef.h>

#include "gpudiag/gpudiag.h"

/* mean/median/p90/min/max/stddev (population) of n values; NaN when n == 0.
 * Quantiles interpolate linearly between closest ranks. */
void gd_stats_compute(const double *values, size_t n, gpudiag_stats_us *out);

#endif
