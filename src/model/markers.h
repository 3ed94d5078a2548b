/*
 * markers.h — optional step markers for `gpudiag run` and `gpudiag serve`.
 *
 * The training script appends one line per finished step to the file named
 * in $GPUDIAG_MARKERS:  `step N [tokens T] [time UNIX_SECONDS]`.  Without a
 * `time` field a step is stamped when gpudiag reads the line (once per
 * sampling interval, so the step times are then only as fine as the
 * interval).  Definitions: docs/DEFINITIONS.md "Step markers".
 */
#ifndef GD_MODEL_MARKERS_H
#define GD_MODEL_MARKERS_H

#include <stddef.h>
#include <stdio.h>

typedef struct gd_marker {
    long step;
    double tokens; /* NaN when the line has none */
    double t_s;    /* wall-clock seconds since the epoch */
    int stamped;   /* 1 when the line carried its own time */
} gd_marker;

typedef struct gd_markers {
    char path[512];
    long offset;   /* bytes consumed */
    gd_marker *m;
    size_t n, cap;
    size_t bad;    /* lines that were not markers */
} gd_markers;

/* Start following `path` from its current end (nothing before the run counts). */
void gd_markers_init(gd_markers *mk, const char *path);
/* Read complete new lines; `now_s` stamps lines without a time field. */
void gd_markers_poll(gd_markers *mk, double now_s);
void gd_markers_free(gd_markers *mk);

/* Print step statistics, tokens/s and per-step utilisation (from the
 * samples t[i], util_pct[i] of the diagnosed GPUs, i < ns) to fp. */
void gd_markers_report(const gd_markers *mk, const double *t, const double *util_pct, size_t ns, FILE *fp);

#endif
