/*
 * window.c — rolling window of live samples for `gpudiag serve`.
 */
#define _GNU_SOURCE
#include "serve/window.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "model/markers.h"
#include "serve/prom.h"

#define GD_LOW_UTIL_THRESHOLD 0.30   /* the seeds' low-utilisation bar (docs/DEFINITIONS.md) */
#define GD_WINDOW_MAX_SAMPLES 100000 /* per GPU, whatever --window / --interval say */

typedef struct gd_ring_sample {
    int64_t t_us;
    double gpu_util;      /* fraction 0..1, NaN unknown */
} gd_ring_sample;

typedef struct gd_wgpu {
    gpudiag_gpu_info info;
    gpudiag_gpu_sample last;
    int have_last;
    int read_failed;              /* last read returned an error */
    gd_ring_sample *ring;
    size_t head, count;           /* ring of `cap` samples */
    double low_share;             /* NaN unknown */
    int bottleneck;               /* -1 unknown */
} gd_wgpu;

struct gd_window {
    char hostname[256];
    gd_serve_opts opts;
    size_t gpu_count;
    gd_wgpu *gpus;
    size_t cap;
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
        w->gpus[i].ring = calloc(w->cap, sizeof *w->gpus[i].ring);
        w->gpus[i].low_share = NAN;
        w->gpus[i].bottleneck = -1;
        if (!w->gpus[i].ring) {
            gd_window_free(&w);
            return NULL;
        }
    }
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
    for (size_t i = 0; i < w->gpu_count; i++)
        free(w->gpus[i].ring);
    free(w->gpus);
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

static void window_stats(gd_window *w, gd_wgpu *g, int64_t now)
{
    while (g->count && g->ring[g->head].t_us < now - w->opts.window_us) {
        g->head = (g->head + 1) % w->cap;
        g->count--;
    }
    size_t valid = 0, low = 0;
    for (size_t k = 0; k < g->count; k++) {
        double u = g->ring[(g->head + k) % w->cap].gpu_util;
        if (isnan(u))
            continue;
        valid++;
        low += u < GD_LOW_UTIL_THRESHOLD;
    }
    g->low_share = valid ? (double)low / (double)valid : NAN;
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
        if (!smp.lost) {
            size_t at = (g->head + g->count) % w->cap;
            if (g->count == w->cap)
                g->head = (g->head + 1) % w->cap;
            else
                g->count++;
            g->ring[at].t_us = now;
            g->ring[at].gpu_util = smp.gpu_util_pct / 100.0;
        }
        window_stats(w, g, now);
    }
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
    gd_prom_state st = {w->hostname, w->gpu_count, pg, w->rounds, w->errors, last_scrape_s};
    int rc = gd_prom_write(fp, &st, openmetrics);
    free(pg);
    return rc;
}

static void json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c < 0x20)
            fprintf(fp, "\\u%04x", c);
        else
            fputc(c, fp);
    }
    fputc('"', fp);
}

static void json_num(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, "%.6g", v);
    else
        fputs("null", fp);
}

int gd_window_write_report(const gd_window *w, FILE *fp)
{
    fprintf(fp, "{\"schema\":\"gpudiag.serve/1\",\"hostname\":");
    json_str(fp, w->hostname);
    fprintf(fp, ",\"window_us\":%lld,\"interval_us\":%lld,\"rounds\":%llu,\"mfu\":", (long long)w->opts.window_us,
            (long long)w->opts.interval_us, (unsigned long long)w->rounds);
    json_num(fp, w->mfu);
    fputs(",\"gpus\":[", fp);
    for (size_t i = 0; i < w->gpu_count; i++) {
        const gd_wgpu *g = &w->gpus[i];
        fprintf(fp, "%s{\"index\":%u,\"name\":", i ? "," : "", g->info.index);
        json_str(fp, g->info.name);
        fputs(",\"uuid\":", fp);
        json_str(fp, g->info.uuid);
        fprintf(fp, ",\"up\":%s,\"samples\":%zu,\"low_utilization_share\":",
                g->have_last && g->last.lost ? "false" : "true", g->count);
        json_num(fp, g->low_share);
        fputs(",\"bottleneck\":", fp);
        if (g->bottleneck >= 0)
            json_str(fp, gpudiag_bottleneck_name((gpudiag_bottleneck)g->bottleneck));
        else
            fputs("null", fp);
        fputs(",\"gpu_util\":", fp);
        json_num(fp, g->have_last && !g->last.lost ? g->last.gpu_util_pct / 100.0 : NAN);
        fputs("}", fp);
    }
    fputs("]}\n", fp);
    return ferror(fp) ? -1 : 0;
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
