/*
 * window.h — the exporter's rolling window: the last `window_us` of samples
 * per GPU, the step markers' tokens, and the diagnosis computed from them.
 * Used only from the sampling thread (no locking inside).
 */
#ifndef GD_SERVE_WINDOW_H
#define GD_SERVE_WINDOW_H

#include <stdio.h>

#include "gpudiag/sampler.h"
#include "serve/serve.h"

typedef struct gd_window gd_window;

/* A window over the sampler's GPUs.  hostname: label value (copied).
 * Returns NULL when out of memory. */
gd_window *gd_window_new(gpudiag_sampler *s, const char *hostname, const gd_serve_opts *opts);
void gd_window_free(gd_window **w);

/* Read every GPU once (a failed or lost GPU is recorded, the others go on),
 * drop samples older than the window, read new step markers, and recompute
 * the diagnosis. */
void gd_window_sample(gd_window *w, gpudiag_sampler *s);

/* Exposition of the latest samples and the diagnosis (prom.h); last_scrape_s
 * is the previous render's duration (NaN none).  Returns 0 or -1. */
int gd_window_write_prom(const gd_window *w, FILE *fp, int openmetrics, double last_scrape_s);

/* The rolling diagnosis as JSON (gpudiag.report/1 with the series section).
 * Returns 0 or -1. */
int gd_window_write_report(const gd_window *w, FILE *fp);

/* 1 when the last round read at least one GPU; else 0 with the reason in msg. */
int gd_window_health(const gd_window *w, char *msg, size_t msglen);

#endif
