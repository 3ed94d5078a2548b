/*
 * finding_kind.h — the word for a finding's kind in the JSON, HTML and
 * annotated-trace reports (docs/REPORT.md findings[].kind), in one place.
 */
#ifndef GD_REPORT_FINDING_KIND_H
#define GD_REPORT_FINDING_KIND_H

#include "gpudiag/gpudiag.h"

/* The finding's kind word, "cause", "symptom" or "input" (its catalogue
 * row's kind, as docs/FINDINGS.md's kind column); a static string.  A
 * finding built outside the catalogues (none today) reads "symptom". */
static inline const char *gd_finding_kind_word(const gpudiag_finding *f)
{
    return f->kind ? f->kind : f->is_cause ? "cause" : "symptom";
}

#endif
