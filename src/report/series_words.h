/*
 * series_words.h — phrases the text and HTML reports of a monitoring log share,
 * so that both say the same thing in the same words (docs/DEFINITIONS.md
 * "Monitoring series": samples are counted per GPU).
 */
#ifndef GD_REPORT_SERIES_WORDS_H
#define GD_REPORT_SERIES_WORDS_H

#include <stddef.h>

#include "gpudiag/gpudiag.h"
#include "gpudiag/series.h"

/*
 * The GPUs and samples of a log summary in words, pluralised, written to
 * buf (NUL-terminated, truncated to len − 1 bytes).  A sample is one reading
 * of one GPU, so the counts are per GPU:
 *   1 GPU:                         "1 GPU, 12 samples"
 *   every GPU the same count k:    "2 GPUs, 1 sample each"  /  "4 GPUs, 300 samples each"
 *   different counts:              "3 GPUs, 30 samples in all (8 to 12 per GPU)"
 *   no GPU:                        "0 GPUs"
 * s must not be NULL; buf may be NULL only when len is 0.
 */
void gd_series_samples_phrase(const gpudiag_series_summary *s, char *buf, size_t len);

/*
 * How the times of a log without stamps were made, written to buf (as above): "times assumed
 * 30 s apart (the tool's default) from the sample order" (the first GPU's interval), "times
 * assumed from the sample order" when no interval is known, "" when the log has its own times
 * or is a snapshot.  The text and HTML reports both say it (DEFINITIONS "Monitoring series").
 */
void gd_series_assumed_phrase(const gpudiag_series_summary *s, char *buf, size_t len);

/* The label of a monitoring-log finding's est_gain: a prior, not measured (FINDINGS
 * "Monitoring logs"); the text and HTML reports both print it beside the number. */
#define GD_SERIES_GAIN_LABEL "a prior, not measured from the log"

/* The unit of a report's est_gain and shares (DEFINITIONS "Start-up in the window"): "run" for a
 * monitoring log, "steady-state step" when start-up/compilation is left out of the step
 * (summary.steady_step_us below summary.avg_step_us), else "step".  The text and HTML reports both
 * print it. */
static inline int gd_startup_left_out(const gpudiag_report *r)
{
    return r->steady_step_us < r->avg_step_us;
}
static inline const char *gd_gain_unit(const gpudiag_report *r)
{
    return r->series ? "run" : gd_startup_left_out(r) ? "steady-state step" : "step";
}

/* gd_plural ("" when n is 1, else "s") is in util/util.h, shared with the rules. */

#endif
