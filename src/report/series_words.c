/*
 * series_words.c — shared phrases of the monitoring-log reports (series_words.h).
 */
#include "report/series_words.h"

#include <stdio.h>

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
    if (g == 0)
        snprintf(buf, len, "0 GPUs");
    else if (g == 1)
        snprintf(buf, len, "1 GPU, %zu sample%s", total, gd_plural(total));
    else if (lo == hi)
        snprintf(buf, len, "%zu GPUs, %zu sample%s each", g, lo, gd_plural(lo));
    else
        snprintf(buf, len, "%zu GPUs, %zu sample%s in all (%zu to %zu per GPU)", g, total, gd_plural(total), lo, hi);
}
