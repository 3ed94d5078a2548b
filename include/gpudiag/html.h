/*
 * html.h — the report as one self-contained HTML page with charts.
 *
 * The page is a single file: no network access, no scripts, no external fonts
 * or images (a Content-Security-Policy meta tag forbids them too).  Charts are
 * inline SVG drawn by gpudiag: the verdict and ranked findings at the top,
 * per-step stacked breakdown bars, a GPU timeline per stream (downsampled to
 * GPUDIAG_TIMELINE_BINS bins) with the idle gaps by cause, idle time by cause,
 * kernel time by class with the Tensor Core share, and the top kernels.
 * Every chart has an SVG <title>/<desc>, text labels and a data table, and the
 * idle causes are told apart by pattern as well as colour.  Light and dark
 * mode follow prefers-color-scheme; the page prints on white.
 *
 * Every string that comes from an input (file names, kernel and op names,
 * finding text) is HTML-escaped, so a hostile trace cannot inject markup.
 *
 * Used by `gpudiag analyze --html FILE`; any client that holds a report (for
 * example a live `run`) may call it the same way.
 */
#ifndef GPUDIAG_HTML_H
#define GPUDIAG_HTML_H

#include <stdio.h>

#include "gpudiag/gpudiag.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options for gpudiag_report_write_html(); zero-initialise, then set what you need. */
typedef struct gpudiag_html_opts {
    const char *title;   /**< page title; NULL: "gpudiag report: <input path>" (escaped either way) */
    size_t max_steps;    /**< most steps drawn in the breakdown chart (evenly chosen when there are
                              more; the data table lists them all); 0 means 120 */
} gpudiag_html_opts;

/**
 * Write the report as one HTML5 page (UTF-8) to fp.
 *
 * report: from gpudiag_analyze(); not modified.
 * fp:     an open stream; not closed.
 * opts:   may be NULL for defaults.
 * err:    optional.
 *
 * Returns GPUDIAG_OK, GPUDIAG_ERR_ARG (NULL report or stream) or
 * GPUDIAG_ERR_IO when the stream reports a write error.
 */
gpudiag_status gpudiag_report_write_html(const gpudiag_report *report, FILE *fp, const gpudiag_html_opts *opts,
                                         gpudiag_error *err);

/**
 * Write s to fp with the five HTML-special characters (& < > " ') replaced by
 * character references and C0 control characters other than tab and newline
 * dropped: safe both as element text and inside a quoted attribute.  NULL
 * writes nothing.  Returns 0, or -1 on a write error.
 */
int gpudiag_html_escape(FILE *fp, const char *s);

#ifdef __cplusplus
}
#endif
#endif /* GPUDIAG_HTML_H */
