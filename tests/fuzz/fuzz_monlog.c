/*
 * fuzz_monlog.c — libFuzzer target for the monitoring-log readers
 * (src/ingest/monlog.c and the log rows of src/ingest/formats.c): the first
 * input byte picks the format (modulo 1 + the number of log rows: 0 is
 * auto-detect, k the log format with id k), the rest is the file,
 * served from memory (gzip included) through gd_series_read_fp(), after the
 * content sniffer gd_sniff_log_head() has looked at it.  A series
 * read is then analysed and written as JSON, text and HTML, as
 * `gpudiag analyze LOG` does.
 *
 * Checks beyond the sanitizers:
 *  - a failure returns no series, a message naming the input, a status bytes
 *    can cause, an offset within the bytes given (plain input);
 *  - a success holds at least one sample; every value of a present column is
 *    finite or NaN (missing), never ±inf; a time column exists for every
 *    sample; rows, skipped rows and lines are consistent (skipped rows iff a
 *    first skipped line within the lines read; lines <= newlines + 1);
 *    strings are NUL-terminated inside their arrays; a forced format is
 *    the series' format;
 *  - the analysis succeeds; per GPU and metric min <= p5 <= p10 <= median <=
 *    p90 <= p95 <= max and min <= mean <= max (up to rounding); shares in
 *    [0, 1]; n never exceeds the GPU's samples;
 *  - the JSON report is valid JSON; the text and HTML writers succeed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "gpudiag/gpudiag.h"
#include "gpudiag/series.h"
#include "ingest/formats.h"
#include "ingest/monlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const WHO = "fuzz_monlog";



static void check_terminated(const char *what, const char *s, size_t cap)
{
    if (!memchr(s, '\0', cap))
        FAIL("%s is not NUL-terminated inside its %zu bytes", what, cap);
}

static void check_series(const gpudiag_series *s, gpudiag_log_format format, const uint8_t *data, size_t size,
                         int plain)
{
    if (format != GPUDIAG_LOG_AUTO && strcmp(s->format, gpudiag_log_format_name(format)) != 0)
        FAIL("asked for %s, got a %s series", gpudiag_log_format_name(format), s->format);
    check_terminated("format", s->format, sizeof s->format);
    size_t samples = 0;
    for (size_t g = 0; g < s->gpu_count; g++) {
        const gpudiag_gpu_series *gs = &s->gpus[g];
        samples += gs->count;
        if (gs->count > gs->cap)
            FAIL("gpu %zu: %zu samples in %zu slots", g, gs->count, gs->cap);
        if (gs->count && !gs->t_us)
            FAIL("gpu %zu: samples without times", g);
        check_terminated("name", gs->name, sizeof gs->name);
        check_terminated("uuid", gs->uuid, sizeof gs->uuid);
        check_terminated("bus_id", gs->bus_id, sizeof gs->bus_id);
        check_terminated("hostname", gs->hostname, sizeof gs->hostname);
        check_terminated("mig_profile", gs->mig_profile, sizeof gs->mig_profile);
        for (int m = 0; m < GPUDIAG_M_COUNT; m++) {
            if (!gs->v[m])
                continue;
            for (size_t i = 0; i < gs->count; i++)
                if (isinf(gs->v[m][i]))
                    FAIL("gpu %zu metric %s sample %zu is %g (finite or NaN wanted)", g,
                         gpudiag_metric_name((gpudiag_metric)m), i, gs->v[m][i]);
        }
    }
    if (samples == 0)
        FAIL("a series read without error holds no sample");
    if ((s->skipped_rows > 0) != (s->first_skipped_line > 0))
        FAIL("%llu skipped rows but first skipped line %lld", (unsigned long long)s->skipped_rows,
             (long long)s->first_skipped_line);
    if (s->first_skipped_line > 0 && (uint64_t)s->first_skipped_line > s->lines)
        FAIL("first skipped line %lld beyond the %llu lines read", (long long)s->first_skipped_line,
             (unsigned long long)s->lines);
    if (s->skipped_rows > s->lines)
        FAIL("%llu skipped rows in %llu lines", (unsigned long long)s->skipped_rows, (unsigned long long)s->lines);
    if (plain) {
        uint64_t nl = 0;
        for (size_t i = 0; i < size; i++)
            nl += data[i] == '\n';
        if (s->lines > nl + 1)
            FAIL("%llu lines read from %llu newlines", (unsigned long long)s->lines, (unsigned long long)nl);
    }
}

/* a <= b allowing for rounding; NaN on either side passes */
static int le(double a, double b)
{
    return !(a > b + 1e-9 * (fabs(a) + fabs(b)) + 1e-300);
}

static void check_share(const char *what, double v)
{
    if (!isnan(v) && !(v >= 0.0 && v <= 1.0))
        FAIL("%s = %g outside [0, 1]", what, v);
}

static void check_summary(const gpudiag_report *r, const gpudiag_series *s)
{
    const gpudiag_series_summary *sum = r->series;
    if (!sum)
        FAIL("a series report without its series section");
    if (sum->gpu_count != s->gpu_count)
        FAIL("%zu GPUs read, %zu summarised", s->gpu_count, sum->gpu_count);
    for (size_t g = 0; g < sum->gpu_count; g++) {
        const gpudiag_gpu_summary *gs = &sum->gpus[g];
        if (gs->samples != s->gpus[g].count)
            FAIL("gpu %zu: %zu samples read, %zu summarised", g, s->gpus[g].count, gs->samples);
        for (int m = 0; m < GPUDIAG_M_COUNT; m++) {
            const gpudiag_metric_stats *st = &gs->stats[m];
            const char *mn = gpudiag_metric_name((gpudiag_metric)m);
            if (st->n > gs->samples)
                FAIL("gpu %zu %s: n %zu > %zu samples", g, mn, st->n, gs->samples);
            if (st->n == 0)
                continue;
            double q[] = {st->min, st->p5, st->p10, st->median, st->p90, st->p95, st->max};
            for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
                gd_fuzz_check_not_inf(WHO, mn, q[i]);
                if (isnan(q[i]))
                    FAIL("gpu %zu %s: a NaN order statistic over %zu values", g, mn, st->n);
                if (i && !le(q[i - 1], q[i]))
                    FAIL("gpu %zu %s: order statistics out of order (%g > %g at %zu)", g, mn, q[i - 1], q[i], i);
            }
            /* the mean of finite values may overflow to inf only when they are huge */
            if (isfinite(st->mean) && (!le(st->min, st->mean) || !le(st->mean, st->max)))
                FAIL("gpu %zu %s: mean %g outside [%g, %g]", g, mn, st->mean, st->min, st->max);
            check_share("low_share", st->low_share);
        }
        check_share("throttle_share", gs->throttle_share);
        check_share("clock_below_max_share", gs->clock_below_max_share);
        for (int i = 0; i < GPUDIAG_SPARK_POINTS; i++)
            gd_fuzz_check_not_inf(WHO, "spark", gs->spark[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    gpudiag_log_format format = (gpudiag_log_format)(data[0] % (gd_log_format_count() + 1));
    data++;
    size--;
    int plain = !(size >= 2 && data[0] == 0x1f && data[1] == 0x8b);
    unsigned char *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    if (size)
        memcpy(copy, data, size);
    /* the content sniffer `analyze` and gpudiag_analyze_path() route by (src/ingest/sniff.c) */
    gpudiag_log_format sniffed = gd_sniff_log_head(copy, size);
    if ((size_t)sniffed > gd_log_format_count())
        FAIL("gd_sniff_log_head returned %d, not a log format id", (int)sniffed);
    FILE *fp = fmemopen(copy, size, "rb");
    if (!fp) {
        free(copy);
        return 0;
    }
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_series *s = NULL;
    gpudiag_status st = gd_series_read_fp(fp, "fuzz.log", format, &s, &err);
    fclose(fp);
    free(copy);
    if (st != GPUDIAG_OK) {
        gd_fuzz_check_failed_read(WHO, st, &err, s, "series", "fuzz.log", plain ? (long long)size : -1);
        return 0;
    }
    if (!s)
        FAIL("success without a series");
    check_series(s, format, data, size, plain);

    gpudiag_report *r = NULL;
    st = gpudiag_series_analyze(s, "fuzz.log", &r, &err);
    if (st != GPUDIAG_OK) {
        if (st != GPUDIAG_ERR_NOMEM)
            FAIL("analysis failed: %s", err.message);
        gpudiag_series_free(&s);
        return 0;
    }
    check_summary(r, s);
    gpudiag_series_free(&s);

    gd_fuzz_write_report(WHO, r, 1);
    gpudiag_report_free(&r);
    return 0;
}
