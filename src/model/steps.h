/*
 * steps.h — choosing the step ranges of a trace from its annotation ranges
 * (--step-range NAME, or the Nsight Systems defaults).
 */
#ifndef GD_MODEL_STEPS_H
#define GD_MODEL_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "gpudiag/gpudiag.h"

/* 1 if the range text s[0..len) names a step of `name`: the text is `name`, or
 * `name` followed by an optional separator ('#', ' ', '_', '-', ':') and
 * digits; *number receives those digits, or -1.  icase: compare the name part
 * ignoring ASCII case. */
int gd_step_name_match(const char *s, size_t len, const char *name, int icase, int64_t *number);

/* Pick the steps of a trace just read (docs/DEFINITIONS.md "Steps of an
 * Nsight Systems export" and "--step-range").
 *  name:  the user's --step-range, or NULL/"" for the format's default.
 *  nsys_defaults: 1 for an Nsight export (try ProfilerStep#N, then the known
 *         iteration range names, else the whole capture).
 * Matching user-annotation ranges (cpu_ops of category GD_CPU_USER_ANNOT)
 * become host steps and leave cpu_ops; ranges that enclose a step are given
 * no breakdown role.  A name that matches nothing sets t->step_range_missing
 * and leaves no host steps (the whole capture is one window).
 * Returns 0, or -1 on allocation failure (the trace is then unchanged or
 * partly changed but consistent). */
int gd_steps_select(gpudiag_trace *t, const char *name, int nsys_defaults);

#endif
