/*
 * series_words.c — shared phrases of the monitoring-log reports (series_words.h).
 */
#include "report/series_words.h"

#include "model/series_internal.h"

#include <stdio.h>
#include <string.h>

const char *gd_plural(unsigned long long n)
{
    return n == 1 ? "" : "s";
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
