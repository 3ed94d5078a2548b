/*
 * gpudiag/summary.h — per-rank summaries and their merge (issue 22).
 *
 * A summary (schema gpudiag.summary/1, docs/REPORT.md "Summaries") holds what
 * the job view of `analyze DIR` needs from each rank: its rank and world size,
 * the inputs of the cross-rank analysis written exactly (step time, GPU
 * utilization, communication share, the durations of its collectives), and its
 * full report (which carries the per-step breakdown).  Summaries of the ranks
 * of one job merge into one summary (associative and order-independent: the
 * ranks are kept sorted by path, then rank, then their numbers), and the job view of
 * a summary is byte-identical to the one `analyze DIR` writes on the traces.
 *
 * Ownership: a gpudiag_summary owns everything in it; free it with
 * gpudiag_summary_free().  Functions return GPUDIAG_OK or an error status with
 * err filled (err may be NULL).
 */
#ifndef GPUDIAG_SUMMARY_H
#define GPUDIAG_SUMMARY_H

#include <stdio.h>

#include "gpudiag/gpudiag.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPUDIAG_SUMMARY_SCHEMA "gpudiag.summary/1"

typedef struct gpudiag_summary gpudiag_summary;

/** A new, empty summary of the job job_id (copied; NULL or "": unknown, which
 *  merges with summaries naming none, and while it has no rank with any).  GPUDIAG_ERR_NOMEM. */
gpudiag_status gpudiag_summary_new(const char *job_id, gpudiag_summary **out, gpudiag_error *err);

/** Append one rank: r's numbers and its full JSON report (every kernel).
 *  rank >= 0 with rank_source (a static string naming where it came from, e.g.
 *  "RANK") replaces the report's rank when the report has none
 *  (r->input.rank < 0); otherwise pass -1 and NULL.  r is not kept.
 *  GPUDIAG_ERR_NOMEM. */
gpudiag_status gpudiag_summary_add_report(gpudiag_summary *s, const gpudiag_report *r, int rank,
                                          const char *rank_source, gpudiag_error *err);

/** Read a summary file (plain or gzip; "-" = stdin).  GPUDIAG_ERR_IO (cannot
 *  read), GPUDIAG_ERR_FORMAT (not JSON, not a summary, a malformed one: the
 *  message names the byte offset), GPUDIAG_ERR_MISMATCH (written by another
 *  gpudiag version or schema version), GPUDIAG_ERR_NOMEM. */
gpudiag_status gpudiag_summary_read(const char *path, gpudiag_summary **out, gpudiag_error *err);

/** Move every rank of *from into into and free *from (set to NULL).  Refused
 *  with GPUDIAG_ERR_MISMATCH, both left as they were, when both name a job
 *  and the names differ, or when one names a job and the other (with ranks)
 *  none.  The job of the result is the one named. */
gpudiag_status gpudiag_summary_merge(gpudiag_summary *into, gpudiag_summary **from, gpudiag_error *err);

/** Number of ranks in s. */
size_t gpudiag_summary_rank_count(const gpudiag_summary *s);

/** The job the summary names, or NULL. */
const char *gpudiag_summary_job(const gpudiag_summary *s);

/** The cross-rank analysis (gpudiag_cluster_analyze's, on the same numbers)
 *  over the ranks in their sorted order (s is sorted in place).
 *  GPUDIAG_ERR_ARG with no rank; GPUDIAG_ERR_MISMATCH when one rank is there
 *  twice (the same rank number, world size and hash of its numbers, whatever
 *  the trace's path: a summary merged twice, a merged summary and one of its
 *  ranks, one trace under two paths or names); GPUDIAG_ERR_NOMEM. */
gpudiag_status gpudiag_summary_cluster(gpudiag_summary *s, gpudiag_cluster **out, gpudiag_error *err);

/** Write the summary (sorted in place first) as JSON; flags as
 *  gpudiag_report_write_json (GPUDIAG_JSON_PRETTY).  GPUDIAG_ERR_IO. */
gpudiag_status gpudiag_summary_write_json(gpudiag_summary *s, FILE *fp, int flags, gpudiag_error *err);

/** Write the job view {"schema":"gpudiag.cluster/1", ...} of c =
 *  gpudiag_summary_cluster(s) with s's reports: the bytes
 *  gpudiag_cluster_write_json writes for the same ranks and flags.
 *  GPUDIAG_ERR_IO, GPUDIAG_ERR_FORMAT (a stored report is not JSON). */
gpudiag_status gpudiag_summary_write_cluster_json(const gpudiag_summary *s, const gpudiag_cluster *c, FILE *fp,
                                                  int flags, gpudiag_error *err);

/** Free a summary and set *s to NULL.  NULL-safe. */
void gpudiag_summary_free(gpudiag_summary **s);

#ifdef __cplusplus
}
#endif

#endif
