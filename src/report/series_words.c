/*
 * series_words.c — shared phrases of the monitoring-log reports (series_words.h).
 */
#include "report/series_words.h"

#include "model/series_internal.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void gd_series_assumed_phrase(const gpudiag_series_summary *s, char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    if (s->time_source != GPUDIAG_TIME_ASSUMED || s->snapshot)
        return;
    /* no time column: the interval the reader assumed (dmon -d 1, dcgmi -d 1000, the exporter's 30 s) */
    if (s->gpu_count && !isnan(s->gpus[0].interval_us))
        snprintf(buf, len, "times assumed %g s apart (the tool's default) from the sample order",
                 s->gpus[0].interval_us / 1e6);
    else
        snprintf(buf, len, "times assumed from the sample order");
}

void gd_series_samples_phrase(const gpudiag_series_summary *s, char *buf, size_t len)
{
    if (!len)
        return;
    size_t total = 0, lo = (size_t)-1, hi = 0;
    for (size_t i = 0; i < s->gpu_count; i++) {
        size_t n = s->gpus[i].samples;
        total += n;
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
    }
    size_t g = s->gpu_count;
    char who[128];
    gd_series_gpus_phrase(s, who, sizeof who); /* physical GPUs and MIG instances apart */
    const char *sep = strstr(who, "MIG") ? ";" : ","; /* "each" is per GPU or instance */
    if (g == 0)
        snprintf(buf, len, "0 GPUs");
    else if (g == 1)
        snprintf(buf, len, "%s%s %zu sample%s", who, sep, total, gd_plural(total));
    else if (lo == hi)
        snprintf(buf, len, "%s%s %zu sample%s each", who, sep, lo, gd_plural(lo));
    else
        snprintf(buf, len, "%s%s %zu sample%s in all (%zu to %zu per %s)", who, sep, total, gd_plural(total), lo, hi,
                 *sep == ';' ? "GPU or instance" : "GPU");
}
