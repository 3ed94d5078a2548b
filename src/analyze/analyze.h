/*
 * analyze.h — internal entry points shared by the analyses.
 */
#ifndef GD_ANALYZE_ANALYZE_H
#define GD_ANALYZE_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "gpudiag/gpudiag.h"
#include "analyze/intervals.h"

struct gpudiag_trace;

/* A GPU op's correlation id, for joining runtime calls to the ops they launched. */
typedef struct corr_entry {
    int64_t correlation;
    uint32_t op;       /* index into gpu_ops */
} corr_entry;

/* First entry with this correlation in a sorted index, or n. */
size_t gd_corr_find(const corr_entry *c, size_t n, int64_t key);

/* State shared by the analyses of one report. */
typedef struct actx {
    const struct gpudiag_trace *t;
    gpudiag_report *r;
    corr_entry *corr;         /* gpu ops with a correlation, sorted */
    size_t ncorr;
    uint8_t *op_is_comm;      /* per gpu op: communication kernel (TBP ∪ HTA rule) */
    gd_iv *steps;             /* final steps as intervals */
    size_t nsteps;
    int64_t span_s, span_e;   /* first step start .. last step end */
    uint8_t *nflags;          /* per name id: NF_* bits, classified once */
} actx;

/* Idle time: HTA's per-stream idle breakdown and gpudiag's attribution of each
 * device-idle gap inside the steps to a cause (idle.c). Returns 0 or -1 (OOM). */
int gd_build_idle(actx *a);

/* mean/median/p90/min/max/stddev (population) of n values; NaN when n == 0.
 * Quantiles interpolate linearly between closest ranks. */
void gd_stats_compute(const double *values, size_t n, gpudiag_stats_us *out);

#endif
