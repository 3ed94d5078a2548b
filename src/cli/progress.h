/*
 * progress.h — the progress bar of `gpudiag analyze` on standard error:
 * bytes read / total (compressed bytes for .gz), rate and ETA, summed over
 * the files of one run (the ranks of a directory read in parallel).
 *
 * Shown only when standard error is a terminal, --no-progress is not given,
 * and the reading has lasted GPUDIAG_PROGRESS_AFTER seconds (default 1; 0
 * shows it at once, for tests).  Redrawn at most 10 times a second, from
 * whichever reading thread gets there first; cleared (the line blanked) by
 * gd_progress_end().  Never written to standard output.
 */
#ifndef GD_CLI_PROGRESS_H
#define GD_CLI_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct gd_progress gd_progress;

/* One file's share of a bar: pass as gpudiag_read_opts.progress_ctx with
 * gd_progress_cb as .progress. */
typedef struct gd_progress_slot gd_progress_slot;

/* A bar for nfiles files whose sizes add up to total_bytes (0: unknown), or
 * NULL when no bar is to be shown (enabled == 0, stderr not a terminal, or out
 * of memory): every function below accepts NULL and does nothing. */
gd_progress *gd_progress_new(int enabled, size_t nfiles, uint64_t total_bytes);

/* The slot of file i (0 <= i < nfiles), or NULL when p is NULL. */
gd_progress_slot *gd_progress_slot_at(gd_progress *p, size_t i);

/* gpudiag_read_opts.progress: ctx is a gd_progress_slot (or NULL). */
void gd_progress_cb(void *ctx, uint64_t done_bytes, uint64_t total_bytes);

/* Blank the bar's line if it was drawn, and free p. */
void gd_progress_end(gd_progress *p);

/* The delay before the bar shows, in seconds: GPUDIAG_PROGRESS_AFTER if it is
 * a number from 0 to 3600, else 1. */
double gd_progress_after(void);

#endif
