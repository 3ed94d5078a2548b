/*
 * summary.h — the inside of a gpudiag_summary (gpudiag/summary.h), shared by
 * its model (model/summary.c), its reader (ingest/summary.c) and its writers
 * (report/json.c).
 */
#ifndef GD_MODEL_SUMMARY_H
#define GD_MODEL_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "gpudiag/summary.h"
#include "analyze/analyze.h"

/* One rank: the cross-rank inputs (in.path, in.gpu and in.comm_us owned here;
 * the strings, like the job id, stored as valid UTF-8, invalid bytes as U+FFFD
 * (gd_utf8_clean), i.e. as the writer writes them: the sort keys on them, so a
 * summary read back sorts as it was written; fuzz_summary found a GPU name
 * with an overlong sequence that did not)
 * and the rank's report: as compact JSON text (report[report_len], owned), or,
 * read from a file, as the span [off, off + span) of that file's decompressed
 * bytes (src, owned; report NULL), read again when it is written, so that
 * merging thousands of ranks keeps one report in memory at a time. */
typedef struct gd_summary_rank {
    gd_rank_input in;
    const char *rank_source; /* "trace", "RANK", ...: static; NULL when the rank is unknown */
    char *report;
    size_t report_len;
    char *src;
    uint64_t off, span;
    uint64_t hash; /* gd_summary_rank_hash: the sort's last key */
    char *steps_window; /* --steps as "A:B" (a bound empty when open), owned; NULL: every step */
    /* the collectives' starts (trace clock, ns) and gpudiag_comm_kind, in.comm_count of each
     * (owned); NULL when unknown (a summary that lists durations only) */
    int64_t *comm_start_ns;
    unsigned char *comm_kind;
    size_t comm_cap2; /* reader: capacity of the two arrays */
    size_t nstart, nkind; /* reader: entries read */
    /* the collectives' bytes and exposed wait (µs), NaN where unknown, nbytes / nexposed
     * of each (owned; an array whose count is not in.comm_count is unknown as a whole:
     * a summary written before they were) */
    double *comm_bytes, *comm_exposed_us;
    size_t nbytes, nexposed;
    size_t bytes_cap, exposed_cap; /* reader: capacities */
} gd_summary_rank;

/* FNV-1a (64 bit) over bytes, continuing from h (GD_SUMMARY_HASH_INIT to start). */
#define GD_SUMMARY_HASH_INIT 14695981039346656037ULL
static inline uint64_t gd_summary_hash(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

/* k->hash from its numbers (rank source, world size, GPU, steps, the exact
 * step time, utilization, share, bottleneck and collective durations): what
 * orders two ranks of the same path and rank, the same however k was made. */
void gd_summary_rank_hash(gd_summary_rank *k);

/* The report text of rank k: k->report (*owned 0), or its span read again from
 * k->src into a new buffer (*owned 1: the caller frees it).  GPUDIAG_ERR_IO
 * when the file cannot be read again, GPUDIAG_ERR_NOMEM. */
gpudiag_status gd_summary_rank_text(const gd_summary_rank *k, char **text, size_t *len, int *owned,
                                    gpudiag_error *err);

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
