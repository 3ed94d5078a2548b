/*
 * prom.h — render GPU samples and gpudiag's rolling diagnosis in the
 * Prometheus text exposition format (0.0.4) or OpenMetrics 1.0, with
 * dcgm-exporter's metric names and labels (docs/SERVE.md holds the table).
 */
#ifndef GD_SERVE_PROM_H
#define GD_SERVE_PROM_H

#include <stdint.h>
#include <stdio.h>

#include "gpudiag/gpudiag.h"
#include "gpudiag/sampler.h"

/* What the exporter knows about one GPU at render time. */
typedef struct gd_prom_gpu {
    const gpudiag_gpu_info *info;     /* identity (index, name, UUID, bus id); not owned */
    const gpudiag_gpu_sample *last;   /* latest sample, NULL before the first; not owned */
    double low_utilization_share;     /* fraction 0..1 of the window's samples with the compute indicator < 0.30; NaN unknown */
    int bottleneck;                   /* gpudiag_bottleneck of the window's verdict; -1 unknown */
    double mfu;                       /* fraction 0..1; NaN unknown */
} gd_prom_gpu;

typedef struct gd_prom_state {
    const char *hostname;             /* Hostname label value; "" omits the label */
    size_t gpu_count;
    const gd_prom_gpu *gpus;
    uint64_t samples_total;           /* sampling rounds since start */
    uint64_t sample_errors_total;     /* per-GPU reads that failed */
    double last_scrape_s;             /* time the previous /metrics render took, s; NaN none yet */
    int dcgm_names;                   /* 1: dcgm-exporter's DCGM_FI_* names and units; 0: gpudiag_* (docs/SERVE.md) */
} gd_prom_state;

/* Write the exposition of `st` to fp.  openmetrics: 1 for OpenMetrics 1.0
 * (counter families without _total in TYPE lines, "# EOF" at the end),
 * 0 for the Prometheus text format 0.0.4.  Label values are escaped
 * (backslash, double quote, newline).  A field that is NaN (unsupported or
 * not yet sampled) is left out, never written as 0; a lost GPU only gets
 * gpudiag_gpu_up 0.  Returns 0, or -1 when writing failed. */
int gd_prom_write(FILE *fp, const gd_prom_state *st, int openmetrics);

#endif
