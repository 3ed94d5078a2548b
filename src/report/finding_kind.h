/*
 * finding_kind.h — the word for a finding's kind in the JSON, HTML and
 * annotated-trace reports (docs/REPORT.md findings[].kind), in one place.
 */
#ifndef GD_REPORT_FINDING_KIND_H
#define GD_REPORT_FINDING_KIND_H

#include <string.h>

#include "gpudiag/gpudiag.h"

/* "cause" (is_cause), "input" (an id input_*), else "symptom"; a static
 * string.  The word follows the id, not the catalogues' kind column: the
 * NOTE/input rows cpu_only_trace and no_step_markers, and single_step and
 * startup_in_window (input in docs/FINDINGS.md), read "symptom" here, as they
 * always have; changing that moves reports. */
static inline const char *gd_finding_kind_word(const gpudiag_finding *f)
{
    return f->is_cause ? "cause" : strncmp(f->id, "input_", 6) == 0 ? "input" : "symptom";
}

#endif
