/*
 * compare_side.h — the inside of a gpudiag_side (include/gpudiag/compare.h),
 * shared by the builders in compare.c and the saved-report reader.
 */
#ifndef GD_ANALYZE_COMPARE_SIDE_H
#define GD_ANALYZE_COMPARE_SIDE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpudiag/compare.h"
#include "gpudiag/gpudiag.h"

typedef struct gd_side_finding {
    char *id;
    char *title;
    int severity;          /* gpudiag_severity */
    double est_gain;       /* NaN = not estimated */
} gd_side_finding;

typedef struct gd_side_kernel {
    char *name;            /* full name; several entries may share one (ranks) */
    double calls;
    double total_us;
} gd_side_kernel;

struct gpudiag_side {
    char *label;
    size_t nsteps;
    double *step_us;       /* step durations, µs */
    int64_t *step_no;      /* ProfilerStep numbers; -1 for a whole-trace window */
    double *step_util;     /* per-step kernel-busy share; NaN where unknown */
    double gpu_utilization, sm_efficiency, achieved_occupancy, tensor_core_share;
    double idle_share, comm_share, mfu;
    double role_share[GPUDIAG_ROLE_COUNT];
    double idle_cause_share[GPUDIAG_IDLE_CAUSE_COUNT];
    size_t nfind;
    gd_side_finding *find;
    size_t nkern;
    gd_side_kernel *kern;
    int kernels_partial;   /* 1: only the top kernels are known (saved report) */
    size_t ranks;          /* ranks combined into this run (1 for one trace) */
    char gpu[64];          /* first GPU's name, "" when unknown */
    int world_size;        /* distributedInfo.world_size, -1 when unknown */
    int rank;              /* distributedInfo.rank, -1 when unknown */
    int gpu_count;         /* GPUs in the trace, -1 when unknown */
    size_t nexcluded;      /* steps left out of the steady state (gd_side_steady) */
    gpudiag_excluded_step excluded[GPUDIAG_EXCLUDED_LISTED];
    int steady_unsure;     /* 1: non-steady steps kept, as fewer than 2 would remain */
    int tables_steady;     /* 1: the table numbers cover only the kept steps (gpudiag_side_from_trace) */
};

/* The steady-state rule (DEFINITIONS "Steady state of a run"): leave out of
 * s's steps those whose start-up/compilation idle plus unexplained tail (the
 * tail only when above twice the run's median tail) is >= 10 % of the step,
 * unless fewer than 2 steps would remain.  startup[k], tail[k]: per step of
 * s (NaN = unknown, counted 0).  Compacts s's step arrays. */
void gd_side_steady(gpudiag_side *s, const double *startup, const double *tail);

/* An empty side with every number unknown (NaN); NULL on OOM. */
gpudiag_side *gd_side_new(const char *label);

/* Combine n rank sides into one job side (DEFINITIONS "Comparing runs");
 * takes ownership of nothing.  NULL on OOM. */
gpudiag_side *gd_side_combine_ranks(gpudiag_side *const *ranks, size_t n, const char *label);

/* Set nsteps and allocate step_us, step_no, step_util; 0 or -1 (OOM). */
int gd_side_alloc_steps(gpudiag_side *s, size_t n);

/* gpudiag_side_read_json() over bytes in memory: buf[0..len) followed by a
 * NUL at buf[len] (yajl's tree parser wants a C string).  path: the input's
 * name in err.  Same returns as gpudiag_side_read_json(). */
/* gpudiag_side_read_json() over an open stream (an input read once: a FIFO,
 * /dev/stdin, <(...)); path names it in messages.  fp is not closed. */
gpudiag_status gd_side_read_json_fp(FILE *fp, const char *path, gpudiag_side **out, gpudiag_error *err);
gpudiag_status gd_side_parse_json(const char *buf, size_t len, const char *path, gpudiag_side **out,
                                  gpudiag_error *err);

/* Two-sided Mann–Whitney U test of b[0..m) against t[0..n) (compare.c;
 * DEFINITIONS "compare"): U = #{(b, t): t < b} + ½ #{t = b}, exact without
 * ties for small sides, else the normal approximation with tie and
 * continuity corrections.  NaN outputs when a side is empty.  0, or -1 on OOM. */
int gd_mann_whitney(const double *b, size_t m, const double *t, size_t n, double *u_out, double *p_out,
                    int *exact_out);

#endif
