/*
 * sanitize.h — repairs of what a reader put in the model that no analysis
 * should see as it was written (docs/DEFINITIONS.md "Sanitising the
 * timeline"): GPU ops whose duration overruns the next op on their stream are
 * clipped at its start, as Perfetto does; events far outside the bulk of the
 * timeline (a stray timestamp, a clock jump) are left out.  What was changed
 * is counted in the trace (overrun_*, time_outlier*) for the report.
 */
#ifndef GD_MODEL_SANITIZE_H
#define GD_MODEL_SANITIZE_H

#include "model/trace.h"

/* Time outliers first, then overruns (an outlier must not clip the op before
 * it), then GPU ops whose duration reaches far past everything else.  Runs once, after reading and before the steps are chosen.  0, or -1
 * on allocation failure (the trace may then be partly sanitised: free it). */
int gd_sanitize(struct gpudiag_trace *t);

/* Clip every GPU op whose end lies after the start of the next op on the same
 * (device, stream) (next = the first op starting strictly later; ops with
 * equal starts are not ordered and not clipped) to end at that start.  Adds
 * to t->overrun_ops and t->overrun_removed_ns.  0, or -1 on allocation failure
 * (nothing changed). */
int gd_clip_overruns(struct gpudiag_trace *t);

/* Leave out the events whose start lies far outside the bulk of the timeline
 * (DEFINITIONS "Sanitising the timeline", rule 2); sets t->time_outliers and
 * t->time_outlier_first_at.  0, or -1 on allocation failure. */
int gd_drop_time_outliers(struct gpudiag_trace *t);

/* Cut at the rest's last end every GPU op (Kineto) whose end lies more than 10 x
 * the span of everything else, and >= 1 s, after the last end of every other
 * event (rule 2b: a corrupt duration with no successor on its stream for rule 1
 * to clip it at); sets t->duration_outliers and t->duration_outlier_removed_ns.
 * 0, or -1 on allocation failure. */
int gd_cut_duration_outliers(struct gpudiag_trace *t);

#endif
