/*
 * sniff.c — is an input a monitoring log, and which one (see formats.h)?
 * The first 64 KiB, decompressed when gzip, go to gpudiag_log_format_sniff()
 * unless they plainly start a trace: JSON, gzip inside gzip, an SQLite export.
 */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/formats.h"
#include "ingest/input.h"

#define SNIFF_HEAD 65536u

/* Read the first 64 KiB (decompressed) of an open input, close it, and say
 * what they start (formats.h, gd_sniff_kind). */
static gd_sniff_kind sniff_input(gd_input *inp, gpudiag_log_format *log, char *first)
{
    *log = GPUDIAG_LOG_AUTO;
    *first = 0;
    char *buf = malloc(SNIFF_HEAD);
    if (!buf) {
        gd_input_close(inp);
        return GD_SNIFF_OTHER; /* the trace reader then meets the same shortage */
    }
    size_t n = 0;
    while (n < SNIFF_HEAD) {
        size_t got = 0;
        if (gd_input_read(inp, (unsigned char *)buf + n, SNIFF_HEAD - n, &got) != GD_IN_OK || got == 0)
            break;
        n += got;
    }
    gd_input_close(inp);
    size_t i = 0;
    while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
        i++;
    gd_sniff_kind k = GD_SNIFF_OTHER;
    if (i < n && (buf[i] == '{' || buf[i] == '[')) {
        k = GD_SNIFF_JSON;
        *first = buf[i];
    } else if (n >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b) {
        k = GD_SNIFF_OTHER; /* gzip inside gzip: not a log */
    } else if (n >= 16 && memcmp(buf, "SQLite format 3", 16) == 0) {
        k = GD_SNIFF_SQLITE;
    } else {
        *log = gpudiag_log_format_sniff(buf, n);
        if (*log != GPUDIAG_LOG_AUTO)
            k = GD_SNIFF_LOG;
    }
    free(buf);
    return k;
}

gd_sniff_kind gd_sniff_head_kind(unsigned char *head, size_t n, gpudiag_log_format *log, char *first)
{
    *log = GPUDIAG_LOG_AUTO;
    *first = 0;
    if (n == 0)
        return GD_SNIFF_OTHER;
    FILE *fp = fmemopen(head, n, "rb"); /* "rb": never written */
    if (!fp)
        return GD_SNIFF_OTHER;
    gd_input in;
    if (gd_input_open_fp(&in, fp, 1) != 0)
        return GD_SNIFF_OTHER; /* the trace reader reports the error (closed fp) */
    return sniff_input(&in, log, first);
}

gd_sniff_kind gd_sniff_file_kind(const char *path, gpudiag_log_format *log, char *first)
{
    *log = GPUDIAG_LOG_AUTO;
    *first = 0;
    if (strcmp(path, "-") == 0)
        return GD_SNIFF_OTHER;
    gd_input in;
    if (gd_input_open(&in, path) != 0)
        return GD_SNIFF_OTHER; /* the reader reports the error */
    return sniff_input(&in, log, first);
}

gpudiag_log_format gd_sniff_log_head(unsigned char *head, size_t n)
{
    gpudiag_log_format f;
    char first;
    (void)gd_sniff_head_kind(head, n, &f, &first);
    return f;
}

gpudiag_log_format gd_sniff_log_file(const char *path)
{
    gpudiag_log_format f;
    char first;
    (void)gd_sniff_file_kind(path, &f, &first);
    return f;
}
