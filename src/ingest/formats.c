/*
 * formats.c — the registration table of input formats (see formats.h).
 * A new monitoring-log format: one extern line and one row here, its reader
 * file defining the row object, its value in series.h.
 */
#include "ingest/formats.h"

#include <string.h>

static const gd_input_format format_auto = {"auto", GD_FMT_AUTO, 0, "detected from the content", NULL, NULL};
/* Traces go to gpudiag_trace_read(), which tells a Kineto JSON trace (plain or
 * gzip) from an SQLite Nsight Systems export by its first bytes. */
static const gd_input_format format_kineto = {"kineto", GD_FMT_TRACE, 0, "a Kineto JSON trace", NULL, NULL};
static const gd_input_format format_nsys = {"nsys", GD_FMT_TRACE, 0, "an Nsight Systems export", NULL, NULL};

/* The monitoring-log rows, defined next to their readers. */
extern const gd_input_format gd_format_dmon;    /* dmon.c */
extern const gd_input_format gd_format_smi_csv; /* smi_csv.c */
extern const gd_input_format gd_format_dcgmi;   /* dcgmi.c */
extern const gd_input_format gd_format_prom;    /* prom.c */
extern const gd_input_format gd_format_smi_q;   /* smi_q.c */
extern const gd_input_format gd_format_amdsmi;  /* amdsmi.c */

const gd_input_format *const gd_formats[] = {
    &format_auto,       /* row GD_FORMAT_AUTO */
    &format_kineto,     /* row GD_FORMAT_KINETO */
    &format_nsys,       /* row GD_FORMAT_NSYS */
    &gd_format_dmon,    /* GPUDIAG_LOG_DMON = 1 */
    &gd_format_smi_csv, /* 2 */
    &gd_format_dcgmi,   /* 3 */
    &gd_format_prom,    /* 4 */
    &gd_format_smi_q,   /* 5 */
    &gd_format_amdsmi,  /* 6 */
};
const size_t gd_format_count = sizeof gd_formats / sizeof gd_formats[0];

size_t gd_log_format_count(void)
{
    size_t n = 0;
    for (size_t i = 0; i < gd_format_count; i++)
        n += gd_formats[i]->kind == GD_FMT_LOG;
    return n;
}

const gd_input_format *gd_format_by_name(const char *name)
{
    for (size_t i = 0; name && i < gd_format_count; i++)
        if (strcmp(gd_formats[i]->name, name) == 0)
            return gd_formats[i];
    return NULL;
}

const gd_input_format *gd_format_of_log(gpudiag_log_format f)
{
    for (size_t i = 0; i < gd_format_count; i++)
        if (gd_formats[i]->kind == GD_FMT_LOG && gd_formats[i]->id == (int)f)
            return gd_formats[i];
    return NULL;
}

static void append(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (*len + n >= cap)
        n = cap - 1 - *len;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = 0;
}

const char *gd_format_list(char *buf, size_t cap, int all, const char *sep, const char *last)
{
    size_t len = 0, n = 0, k = 0;
    if (!cap)
        return buf;
    buf[0] = 0;
    for (size_t i = 0; i < gd_format_count; i++)
        n += all || gd_formats[i]->kind == GD_FMT_LOG;
    for (size_t i = 0; i < gd_format_count; i++) {
        if (!all && gd_formats[i]->kind != GD_FMT_LOG)
            continue;
        if (k)
            append(buf, cap, &len, k + 1 == n ? last : sep);
        append(buf, cap, &len, gd_formats[i]->name);
        k++;
    }
    return buf;
}

const char *gd_format_whats(char *buf, size_t cap)
{
    size_t len = 0, k = 0;
    if (!cap)
        return buf;
    buf[0] = 0;
    for (size_t i = 0; i < gd_format_count; i++) {
        if (gd_formats[i]->kind != GD_FMT_LOG)
            continue;
        if (k++)
            append(buf, cap, &len, ", ");
        append(buf, cap, &len, gd_formats[i]->what);
    }
    return buf;
}

int gd_sniff_next(gd_sniff_iter *it, const char **t, size_t *tn, size_t *indent, int *index)
{
    while (it->pos < it->len && it->lines < 80) {
        const char *s = it->buf + it->pos;
        const char *nl = memchr(s, '\n', it->len - it->pos);
        size_t n = nl ? (size_t)(nl - s) : it->len - it->pos;
        it->pos += n + 1;
        /* cppcheck-suppress knownConditionTrueFalse ; n is 0 for an empty line (nl == s) */
        if (n && s[n - 1] == '\r')
            n--;
        size_t b = 0;
        while (b < n && (s[b] == ' ' || s[b] == '\t'))
            b++;
        if (b == n)
            continue;
        *index = it->lines++;
        *t = s + b;
        *tn = n - b;
        *indent = b;
        return 1;
    }
    return 0;
}
