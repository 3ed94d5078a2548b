/*
 * window.c — rolling window of live samples for `gpudiag serve`.
 */
#define _GNU_SOURCE
#include "serve/window.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "gpudiag/series.h"
#include "model/markers.h"
#include "serve/prom.h"

#define GD_WINDOW_MAX_SAMPLES 100000 /* per GPU, whatever --window / --interval say */

typedef struct gd_wgpu {
    gpudiag_gpu_info info;
    gpudiag_gpu_sample last;
    int have_last;
    int read_failed;              /* last read returned an error */
    size_t count;                 /* samples of this GPU in the window */
    double low_share;             /* NaN unknown */
    int bottleneck;               /* -1 unknown */
} gd_wgpu;

struct gd_window {
    char hostname[256];
    gd_serve_opts opts;
    size_t gpu_count;
    gd_wgpu *gpus;
    size_t cap;                   /* most samples kept per GPU */
    gpudiag_series *series;       /* the window's samples, in the monitoring-log model */
    gpudiag_report *report;       /* its analysis (gpudiag_series_analyze), NULL before the first */
    uint64_t rounds, errors;
    int have_markers;
    gd_markers markers;           /* step markers (model/markers.h), pruned to the window */
    double mfu;
};

static int64_t wall_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

gd_window *gd_window_new(gpudiag_sampler *s, const char *hostname, const gd_serve_opts *opts)
{
    gd_window *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    snprintf(w->hostname, sizeof w->hostname, "%s", hostname ? hostname : "");
    w->opts = *opts;
    w->gpu_count = gpudiag_sampler_gpu_count(s);
    int64_t n = opts->window_us / (opts->interval_us > 0 ? opts->interval_us : 1) + 1;
    w->cap = n > GD_WINDOW_MAX_SAMPLES ? GD_WINDOW_MAX_SAMPLES : (size_t)n;
    w->gpus = calloc(w->gpu_count ? w->gpu_count : 1, sizeof *w->gpus);
    if (!w->gpus) {
        free(w);
        return NULL;
    }
    for (size_t i = 0; i < w->gpu_count; i++) {
        const gpudiag_gpu_info *info = gpudiag_sampler_gpu(s, i);
        if (info)
            w->gpus[i].info = *info;
        w->gpus[i].low_share = NAN;
        w->gpus[i].bottleneck = -1;
    }
    if (gpudiag_series_new("nvml", &w->series) != GPUDIAG_OK) {
        gd_window_free(&w);
        return NULL;
    }
    w->series->interval_us = opts->interval_us;
    w->mfu = NAN;
    if (opts->markers && *opts->markers) {
        gd_markers_init(&w->markers, opts->markers);   /* from the file's end; it may appear later */
        w->have_markers = 1;
    }
    return w;
}

void gd_window_free(gd_window **wp)
{
    if (!wp || !*wp)
        return;
    gd_window *w = *wp;
    free(w->gpus);
    gpudiag_series_free(&w->series);
    gpudiag_report_free(&w->report);
    if (w->have_markers)
        gd_markers_free(&w->markers);
    free(w);
    *wp = NULL;
}

/* --- step markers ----------------------------------------------------------- */

/* Read new marker lines and forget markers older than the window. */
static void read_markers(gd_window *w, int64_t now_us)
{
    if (!w->have_markers)
        return;
    double now_s = (double)now_us / 1e6;
    gd_markers_poll(&w->markers, now_s);
    double oldest = now_s - (double)w->opts.window_us / 1e6;
    size_t keep = 0;
    for (size_t i = 0; i < w->markers.n; i++)
        if (w->markers.m[i].t_s >= oldest)
            w->markers.m[keep++] = w->markers.m[i];
    w->markers.n = keep;
}

/* MFU = tokens/s × model FLOPs per token / (GPUs × peak FLOP/s) (PaLM
 * appendix B).  tokens/s counts the tokens of every marker after the first
 * in the window over the time from the first to the last. */
static double window_mfu(const gd_window *w)
{
    const gd_markers *mk = &w->markers;
    if (!w->have_markers || mk->n < 2 || !isfinite(w->opts.model_flops_per_token) ||
        !isfinite(w->opts.peak_flops_per_gpu) || w->opts.peak_flops_per_gpu <= 0 || w->gpu_count == 0)
        return NAN;
    double tokens = 0;
    for (size_t k = 1; k < mk->n; k++) {
        if (isnan(mk->m[k].tokens))
            return NAN;
        tokens += mk->m[k].tokens;
    }
    double secs = mk->m[mk->n - 1].t_s - mk->m[0].t_s;
    if (!(secs > 0))
        return NAN;
    return tokens / secs * w->opts.model_flops_per_token / ((double)w->gpu_count * w->opts.peak_flops_per_gpu);
}

/* --- sampling -------------------------------------------------------------- */

/* Drop each GPU's samples older than the window (or beyond `cap`), keeping
 * the columns aligned. */
static void prune(gd_window *w)
{
    gpudiag_series *ser = w->series;
    for (size_t g = 0; g < ser->gpu_count; g++) {
        gpudiag_gpu_series *gs = &ser->gpus[g];
        if (gs->count == 0)
            continue;
        int64_t oldest = gs->t_us[gs->count - 1] - w->opts.window_us;
        size_t drop = 0;
        while (drop < gs->count && (gs->t_us[drop] < oldest || gs->count - drop > w->cap))
            drop++;
        if (drop == 0)
            continue;
        size_t keep = gs->count - drop;
        memmove(gs->t_us, gs->t_us + drop, keep * sizeof *gs->t_us);
        for (int m = 0; m < GPUDIAG_M_COUNT; m++)
            if (gs->v[m])
                memmove(gs->v[m], gs->v[m] + drop, keep * sizeof *gs->v[m]);
        gs->count = keep;
    }
}

/* The window's diagnosis: the monitoring-series analysis of `gpudiag analyze
 * LOG` and `gpudiag run`, so all three agree. */
static void diagnose(gd_window *w)
{
    gpudiag_report *r = NULL;
    if (gpudiag_series_analyze(w->series, "live (gpudiag serve)", &r, NULL) != GPUDIAG_OK || !r)
        return;   /* out of memory: keep the previous diagnosis */
    gpudiag_report_free(&w->report);
    w->report = r;
    for (size_t i = 0; i < w->gpu_count; i++) {
        gd_wgpu *g = &w->gpus[i];
        g->low_share = NAN;
        g->bottleneck = -1;
        g->count = 0;
        const gpudiag_series_summary *sum = r->series;
        for (size_t k = 0; sum && k < sum->gpu_count; k++) {
            const gpudiag_gpu_summary *gsum = &sum->gpus[k];
            int same = g->info.uuid[0] ? strcmp(gsum->uuid, g->info.uuid) == 0 : gsum->index == (int)g->info.index;
            if (!same)
                continue;
            g->count = gsum->samples;
            /* the compute indicator: SM active when the GPU has it, else GPU-Util */
            if (gsum->compute_metric < GPUDIAG_M_COUNT) {
                g->low_share = gsum->stats[gsum->compute_metric].low_share;
                g->bottleneck = (int)gsum->bottleneck;
            }
            break;
        }
    }
}

void gd_window_sample(gd_window *w, gpudiag_sampler *s)
{
    int64_t now = wall_us();
    for (size_t i = 0; i < w->gpu_count; i++) {
        gd_wgpu *g = &w->gpus[i];
        gpudiag_error err;
        memset(&err, 0, sizeof err);
        gpudiag_gpu_sample smp;
        if (gpudiag_sampler_read(s, i, &smp, &err) != GPUDIAG_OK) {
            g->read_failed = 1;
            w->errors++;
            continue;
        }
        g->read_failed = 0;
        g->last = smp;
        g->have_last = 1;
        if (!smp.lost && gpudiag_series_append_sample(w->series, &g->info, &smp, NULL) != GPUDIAG_OK)
            w->errors++;
    }
    prune(w);
    diagnose(w);
    read_markers(w, now);
    w->mfu = window_mfu(w);
    w->rounds++;
}

int gd_window_write_prom(const gd_window *w, FILE *fp, int openmetrics, double last_scrape_s)
{
    gd_prom_gpu *pg = calloc(w->gpu_count ? w->gpu_count : 1, sizeof *pg);
    if (!pg)
        return -1;
    for (size_t i = 0; i < w->gpu_count; i++) {
        const gd_wgpu *g = &w->gpus[i];
        pg[i].info = &g->info;
        pg[i].last = g->have_last ? &g->last : NULL;
        pg[i].low_utilization_share = g->low_share;
        pg[i].bottleneck = g->bottleneck;
        pg[i].mfu = w->mfu;
    }
    gd_prom_state st = {w->hostname, w->gpu_count, pg, w->rounds, w->errors, last_scrape_s, w->opts.dcgm_names};
    int rc = gd_prom_write(fp, &st, openmetrics);
    free(pg);
    return rc;
}

int gd_window_write_report(const gd_window *w, FILE *fp)
{
    if (!w->report) {
        fputs("{\"schema\":\"" GPUDIAG_REPORT_SCHEMA "\",\"series\":null}\n", fp);
        return ferror(fp) ? -1 : 0;
    }
    return gpudiag_report_write_json(w->report, fp, 0, NULL) == GPUDIAG_OK ? 0 : -1;
}

int gd_window_health(const gd_window *w, char *msg, size_t msglen)
{
    size_t ok = 0, lost = 0, failed = 0;
    for (size_t i = 0; i < w->gpu_count; i++) {
        const gd_wgpu *g = &w->gpus[i];
        if (g->read_failed)
            failed++;
        else if (g->have_last && g->last.lost)
            lost++;
        else if (g->have_last)
            ok++;
    }
    if (ok > 0) {
        snprintf(msg, msglen, "ok: %zu GPU%s answering, %zu lost, %zu failing", ok, ok == 1 ? "" : "s", lost, failed);
        return 1;
    }
    snprintf(msg, msglen, "no GPU answered the last sampling round (%zu lost, %zu failing, of %zu)", lost, failed,
             w->gpu_count);
    return 0;
}
