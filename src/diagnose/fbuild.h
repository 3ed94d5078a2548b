/*
 * fbuild.h — appending findings to a report or a cluster, for every rule
 * catalogue (findings.def for traces, series_findings.def for monitoring
 * series, cluster_findings.def for the ranks of one job).
 */
#ifndef GD_DIAGNOSE_FBUILD_H
#define GD_DIAGNOSE_FBUILD_H

#include "gpudiag/gpudiag.h"
#include "util/arena.h"

/* A catalogue row's kind: a cause (ranked first, is_cause 1), a symptom, or a
 * note about the input (ranked last; the word "input" in the reports). */
typedef enum { CAUSE, SYMPTOM, NOTE } gd_finding_kind;

typedef struct gd_fbuild {
    gpudiag_report *r;          /* the report the rules read; NULL for a cluster */
    gpudiag_finding **findings; /* the array findings are appended to (r->findings, a cluster's) */
    size_t *count;              /* its length (r->finding_count, ...) */
    size_t cap;                 /* allocated findings */
    int oom;                    /* set when an allocation failed; the caller reports it */
    gd_arena *arena;            /* owns the array and the texts (a report's); NULL: malloc'd (a cluster's) */
} gd_fbuild;

/* A builder appending to the report r's findings (r->findings empty), in its arena. */
#define GD_FBUILD_REPORT(r) {(r), &(r)->findings, &(r)->finding_count, 0, 0, (r)->arena}

/* Append a zeroed finding with these fields to *b->findings (is_cause and
 * the kind word from `kind`); NULL (and b->oom) on OOM.  id: a static string
 * (a catalogue row's). */
gpudiag_finding *gd_fb_add(gd_fbuild *b, const char *id, gpudiag_severity sev, gd_finding_kind kind,
                           gpudiag_bottleneck bn, double est_gain);
/* Add one evidence number (ignored when f is NULL; asserts, and is dropped in a release build, when
 * the evidence is full: GPUDIAG_MAX_EVIDENCE is sized for the worst rule). */
void gd_fb_ev(gpudiag_finding *f, const char *key, double v);
/* The first finding of r with this id, or NULL. */
const gpudiag_finding *gd_fb_find(const gpudiag_report *r, const char *id);
/* Give f its title and recommendation (both malloc'd, given to the builder:
 * copied into b->arena and freed, or kept as they are without an arena); a
 * NULL among them frees the others and sets b->oom. */
void gd_fb_text(gd_fbuild *b, gpudiag_finding *f, char *title, char *rec);

/* input_gzip_trailing_data's evidence and text from b->r->input (a trace's
 * or a monitoring log's: `what` is "trace" or "log"; DEFINITIONS "Time and
 * events", bytes after the last gzip member). */
void gd_fb_gzip_trailing(gd_fbuild *b, gpudiag_finding *f, const char *what);

/* Append " " and `more` (malloc'd, taken over) to f's recommendation; on a
 * NULL `more` or OOM the recommendation stays and b->oom is set. */
void gd_fb_append(gd_fbuild *b, gpudiag_finding *f, char *more);

#endif
