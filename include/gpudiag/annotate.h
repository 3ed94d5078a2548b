/*
 * annotate.h — the input trace with gpudiag's diagnosis on its timeline, for
 * Perfetto UI (ui.perfetto.dev) and chrome://tracing.
 */
#ifndef GPUDIAG_ANNOTATE_H
#define GPUDIAG_ANNOTATE_H

#include "gpudiag/gpudiag.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The process id of gpudiag's tracks in an annotated trace (chosen to collide with no real pid). */
#define GPUDIAG_ANNOTATE_PID 2147480000

/**
 * Copy the Chrome-trace JSON at in_path to out_path, every value as it was
 * (numbers keep their original text), and append to its `traceEvents` array
 * (or to the bare top-level array of old traces):
 *
 *  - metadata ("ph":"M"): a process "gpudiag" (pid GPUDIAG_ANNOTATE_PID,
 *    sorted first) with a thread "findings" (tid 0) and one thread
 *    "idle gaps, GPU d" (tid d + 1) per device of the timeline;
 *  - one span ("ph":"X", "cat":"gpudiag") per device-idle gap of the report
 *    (report->gaps: all of them unless gpudiag_analyze_opts.max_gaps limited them), named by its cause ("sync", "dataloader",
 *    ...), args {device, step, cause};
 *  - one instant event ("ph":"i", "s":"p") per finding, at the start of the
 *    longest step (the worst one), named by the finding id, args {title,
 *    severity, kind, recommendation, est_gain, and the evidence numbers};
 *    none when the report has no step;
 *  - counters ("ph":"C"), one sample per timeline bin at the bin start:
 *    "GPU d utilization" {busy_pct: 100 · busy_us / bin_us} per device and
 *    "queue length, GPU d stream s" {max_queued} per stream with counted
 *    launches (docs/DEFINITIONS.md "Timeline").
 *
 * Times are the trace's own clock in µs (the report's *_ns ÷ 1000, three
 * decimals).  out_path ending in ".gz" is written gzip-compressed; "-" writes
 * plain JSON to standard output.  The input is read again (plain or gzip,
 * detected from the content), so in_path must be a file, not "-".
 *
 * The input must be valid JSON up to where it ends: a trace cut short (the
 * profiler was killed) is closed properly after its last complete value; a
 * trace with a broken event in the middle is refused (GPUDIAG_ERR_FORMAT with
 * the byte offset), because copying it would mean guessing.  On any error the
 * partial output is removed: the output is written to a temporary file beside
 * out_path and renamed over it only when complete, so a failed write leaves
 * an existing out_path as it was.
 *
 * Returns GPUDIAG_OK; GPUDIAG_ERR_ARG (NULL argument, in_path "-");
 * GPUDIAG_ERR_IO (cannot read the input or write the output);
 * GPUDIAG_ERR_FORMAT; GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_trace_write_annotated(const char *in_path, const gpudiag_report *report,
                                             const char *out_path, gpudiag_error *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUDIAG_ANNOTATE_H */
