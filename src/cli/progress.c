/*
 * progress.c — the progress bar on standard error (progress.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/progress.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

struct gd_progress_slot {
    gd_progress *p;
    _Atomic uint64_t done;
};

struct gd_progress {
    size_t n;
    uint64_t total;
    double start, after, last_draw;
    int drawn;
    pthread_mutex_t lock;
    gd_progress_slot *slots;
};

double gd_progress_after(void)
{
    const char *e = getenv("GPUDIAG_PROGRESS_AFTER");
    if (e && *e) {
        char *end = NULL;
        double v = strtod(e, &end);
        if (end && !*end && v >= 0 && v <= 3600)
            return v;
    }
    return 1.0;
}

gd_progress *gd_progress_new(int enabled, size_t nfiles, uint64_t total_bytes)
{
    if (!enabled || nfiles == 0 || !isatty(STDERR_FILENO))
        return NULL;
    gd_progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->slots = calloc(nfiles, sizeof *p->slots);
    if (!p->slots) {
        free(p);
        return NULL;
    }
    for (size_t i = 0; i < nfiles; i++) {
        p->slots[i].p = p;
        atomic_init(&p->slots[i].done, 0);
    }
    p->n = nfiles;
    p->total = total_bytes;
    p->start = gd_mono_s();
    p->after = gd_progress_after();
    pthread_mutex_init(&p->lock, NULL);
    return p;
}

gd_progress_slot *gd_progress_slot_at(gd_progress *p, size_t i)
{
    return p && i < p->n ? &p->slots[i] : NULL;
}

/* "1.23 GB" style, decimal units. */
static void human_bytes(double b, char *buf, size_t cap)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (b >= 1000 && u < 4) {
        b /= 1000;
        u++;
    }
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

/* Draw the line; the caller holds the lock. */
static void draw(gd_progress *p, double t)
{
    uint64_t done = 0;
    for (size_t i = 0; i < p->n; i++)
        done += atomic_load(&p->slots[i].done);
    double el = t - p->start;
    double rate = el > 0 ? (double)done / el : 0;
    char d[32], tot[32], r[32], line[512];
    human_bytes((double)done, d, sizeof d);
    human_bytes(rate, r, sizeof r);
    if (p->total > 0) {
        double frac = (double)done / (double)p->total;
        if (frac > 1)
            frac = 1;
        char bar[31];
        int fill = (int)(frac * 30);
        for (int i = 0; i < 30; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[30] = '\0';
        human_bytes((double)p->total, tot, sizeof tot);
        char eta[32] = "--:--";
        if (rate > 0 && done < p->total) {
            long s = (long)((double)(p->total - done) / rate + 0.5);
            snprintf(eta, sizeof eta, "%ld:%02ld", s / 60, s % 60);
        } else if (done >= p->total) {
            snprintf(eta, sizeof eta, "0:00");
        }
        snprintf(line, sizeof line, "reading [%s] %3.0f%% %s / %s  %s/s  ETA %s", bar, frac * 100, d, tot, r, eta);
    } else {
        snprintf(line, sizeof line, "reading %s  %s/s", d, r);
    }
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    p->drawn = 1;
    p->last_draw = t;
}

void gd_progress_cb(void *ctx, uint64_t done_bytes, uint64_t total_bytes)
{
    (void)total_bytes; /* the bar's total is fixed up front (the sum over files) */
    gd_progress_slot *s = ctx;
    if (!s)
        return;
    gd_progress *p = s->p;
    atomic_store(&s->done, done_bytes);
    double t = gd_mono_s();
    if (t - p->start < p->after)
        return;
    if (pthread_mutex_trylock(&p->lock) != 0)
        return; /* another thread is drawing */
    if (!p->drawn || t - p->last_draw >= 0.1)
        draw(p, t);
    pthread_mutex_unlock(&p->lock);
}

void gd_progress_end(gd_progress *p)
{
    if (!p)
        return;
    if (p->drawn) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    pthread_mutex_destroy(&p->lock);
    free(p->slots);
    free(p);
}
