/*
 * fbuild.h — appending findings to a report, for every rule catalogue
 * (rules.c for traces, series_rules.c for monitoring series).
 */
#ifndef GD_DIAGNOSE_FBUILD_H
#define GD_DIAGNOSE_FBUILD_H

#include "gpudiag/gpudiag.h"

typedef struct gd_fbuild {
    gpudiag_report *r;   /* findings are appended to r->findings */
    size_t cap;          /* allocated findings */
    int oom;             /* set when an allocation failed; the caller reports it */
} gd_fbuild;

/* Append a zeroed finding with these fields; NULL (and b->oom) on OOM. */
gpudiag_finding *gd_fb_add(gd_fbuild *b, const char *id, gpudiag_severity sev, int is_cause,
                           gpudiag_bottleneck bn, double est_gain);
/* Add one evidence number (ignored when f is NULL or the evidence is full). */
void gd_fb_ev(gpudiag_finding *f, const char *key, double v);
/* Give f its title and recommendation (both malloc'd, owned by the report
 * from here on); a NULL among them frees the others and sets b->oom. */
void gd_fb_text(gd_fbuild *b, gpudiag_finding *f, char *title, char *rec);

#endif
