/*
 * summary.h — the inside of a gpudiag_summary (gpudiag/summary.h), shared by
 * its model (model/summary.c), its reader (ingest/summary.c) and its writers
 * (report/json.c).
 */
#ifndef GD_MODEL_SUMMARY_H
#define GD_MODEL_SUMMARY_H

#include <stdio.h>

#include "gpudiag/summary.h"
#include "analyze/analyze.h"

/* One rank: the cross-rank inputs (in.path, in.gpu and in.comm_us owned here)
 * and the rank's report as compact JSON text (report[report_len], owned). */
typedef struct gd_summary_rank {
    gd_rank_input in;
    const char *rank_source; /* "trace", "RANK", ...: static; NULL when the rank is unknown */
    char *report;
    size_t report_len;
} gd_summary_rank;

struct gpudiag_summary {
    char *job; /* NULL: not named */
    size_t count, cap;
    gd_summary_rank *ranks;
};

/* The static spelling of a rank source read back ("trace", "RANK",
 * "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "JOB_COMPLETION_INDEX"), NULL for
 * any other string. */
const char *gd_summary_rank_source(const char *s);

/* Append an empty rank (zeroed, NaN numbers, rank -1); NULL when out of memory. */
gd_summary_rank *gd_summary_push(gpudiag_summary *s);

/* Sort the ranks by path, then rank, then report text. */
void gd_summary_sort(gpudiag_summary *s);

/* gpudiag_summary_read over an open stream (not closed), named path in
 * messages: for the fuzz target (tests/fuzz/fuzz_summary.c). */
gpudiag_status gd_summary_read_fp(FILE *fp, const char *path, gpudiag_summary **out, gpudiag_error *err);

#endif
