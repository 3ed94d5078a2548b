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

/* Sniff the first 64 KiB (decompressed) of an open input, then close it. */
static gpudiag_log_format sniff_input(gd_input *inp)
{
    char *buf = malloc(SNIFF_HEAD);
    if (!buf) {
        gd_input_close(inp);
        return GPUDIAG_LOG_AUTO; /* the trace reader then meets the same shortage */
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
    gpudiag_log_format f;
    if (i < n && (buf[i] == '{' || buf[i] == '['))
        f = GPUDIAG_LOG_AUTO;
    else if (n >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b)
        f = GPUDIAG_LOG_AUTO; /* gzip inside gzip: not a log */
    else if (n >= 16 && memcmp(buf, "SQLite format 3", 16) == 0)
        f = GPUDIAG_LOG_AUTO;
    else
        f = gpudiag_log_format_sniff(buf, n);
    free(buf);
    return f;
}

gpudiag_log_format gd_sniff_log_head(unsigned char *head, size_t n)
{
    if (n == 0)
        return GPUDIAG_LOG_AUTO;
    FILE *fp = fmemopen(head, n, "rb"); /* "rb": never written */
    if (!fp)
        return GPUDIAG_LOG_AUTO;
    gd_input in;
    if (gd_input_open_fp(&in, fp, 1) != 0)
        return GPUDIAG_LOG_AUTO; /* the trace reader reports the error (closed fp) */
    return sniff_input(&in);
}

gpudiag_log_format gd_sniff_log_file(const char *path)
{
    if (strcmp(path, "-") == 0)
        return GPUDIAG_LOG_AUTO;
    gd_input in;
    if (gd_input_open(&in, path) != 0)
        return GPUDIAG_LOG_AUTO; /* the trace reader reports the error */
    return sniff_input(&in);
}
