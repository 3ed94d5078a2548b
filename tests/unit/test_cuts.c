/*
 * test_cuts.c — tests/data/ok_two_steps.json cut at every byte, read from
 * memory by both event readers (simdjson and GPUDIAG_NO_SIMDJSON), and its
 * gzip form cut at every byte and with every byte of the deflate data and
 * trailer flipped (ISA-L and zlib).  Expected, derived here from the text and
 * not from gpudiag:
 *   - a cut before the end of the first event: GPUDIAG_ERR_FORMAT, the byte
 *     offset within the bytes given;
 *   - any other cut: GPUDIAG_OK with exactly the events whose closing brace
 *     lies before the cut (one event per line in this file), truncated iff a
 *     non-blank byte was cut off, and then truncated_at == the cut;
 *   - gzip cut short: never more events than the whole, never fewer than a
 *     shorter cut; the whole file: 31 events, not truncated;
 *   - a flipped byte after the gzip header: never taken as sound: refused
 *     (GPUDIAG_ERR_FORMAT: the CRC-32 and length trailer catch it, or the
 *     deflate data is invalid), or read as cut short (truncated, warned) when
 *     the flip makes the decoder wait for another block; at least 90 % are
 *     refusals.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ingest/kineto.h"
#include "model/trace.h"
#include "test.h"

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    unsigned char *buf = malloc(1 << 20);
    *len = buf ? fread(buf, 1, 1 << 20, fp) : 0;
    fclose(fp);
    return buf;
}

/* Read buf[0..n) as a trace; returns the status, fills events, trunc and at. */
static gpudiag_status read_mem(const unsigned char *buf, size_t n, uint64_t *events, int *trunc, int64_t *at,
                               gpudiag_error *err)
{
    unsigned char *copy = malloc(n ? n : 1);
    ASSERT_TRUE(copy != NULL);
    if (n)
        memcpy(copy, buf, n);
    FILE *fp = fmemopen(copy, n, "rb");
    ASSERT_TRUE(fp != NULL);
    gpudiag_trace *t = NULL;
    memset(err, 0, sizeof *err);
    gpudiag_status st = gd_kineto_read_fp(fp, "cut.json", &t, err);
    fclose(fp);
    free(copy);
    if (st == GPUDIAG_OK) {
        *events = t->events;
        *trunc = t->truncated;
        *at = t->truncated_at;
    } else {
        ASSERT_TRUE(t == NULL);
    }
    gpudiag_trace_free(&t);
    return st;
}

static void use_reader(int yajl)
{
    if (yajl) {
        setenv("GPUDIAG_NO_SIMDJSON", "1", 1);
        setenv("GPUDIAG_NO_ISAL", "1", 1);
    } else {
        unsetenv("GPUDIAG_NO_SIMDJSON");
        unsetenv("GPUDIAG_NO_ISAL");
    }
}

int main(void)
{
    size_t size = 0;
    unsigned char *text = slurp(GD_TEST_DATA "/ok_two_steps.json", &size);
    ASSERT_TRUE(text != NULL && size > 1000);

    /* the end offset of every event: the lines between "traceEvents": [ and ] */
    size_t ends[64], nends = 0;
    const char *te = strstr((const char *)text, "\"traceEvents\": [\n");
    ASSERT_TRUE(te != NULL);
    size_t i = (size_t)(te - (const char *)text) + strlen("\"traceEvents\": [\n");
    for (;;) {
        size_t eol = i;
        while (eol < size && text[eol] != '\n')
            eol++;
        size_t k = i;
        while (k < eol && text[k] == ' ')
            k++;
        if (text[k] != '{')
            break; /* the closing "]," line */
        size_t last = eol;
        while (text[last - 1] != '}')
            last--;
        ASSERT_TRUE(nends < 64);
        ends[nends++] = last; /* the cut at `last` keeps this event whole */
        i = eol + 1;
    }
    ASSERT_EQ_INT(nends, 31);
    size_t content_end = size; /* past the last non-blank byte */
    while (content_end > 0 && (text[content_end - 1] == '\n' || text[content_end - 1] == ' '))
        content_end--;

    for (int yajl = 0; yajl <= 1; yajl++) {
        use_reader(yajl);
        for (size_t n = 0; n <= size; n++) {
            uint64_t events = 0;
            int trunc = 0;
            int64_t at = 0;
            gpudiag_error err;
            gpudiag_status st = read_mem(text, n, &events, &trunc, &at, &err);
            size_t whole = 0;
            while (whole < nends && ends[whole] <= n)
                whole++;
            if (n < ends[0]) {
                if (st != GPUDIAG_ERR_FORMAT)
                    fprintf(stderr, "cut at %zu (reader %s): status %d\n", n, yajl ? "yajl" : "simdjson", (int)st);
                ASSERT_EQ_INT(st, GPUDIAG_ERR_FORMAT);
                ASSERT_TRUE(err.offset >= 0 && err.offset <= (int64_t)n);
                continue;
            }
            if (st != GPUDIAG_OK || events != whole)
                fprintf(stderr, "cut at %zu (reader %s): status %d, %llu events, want %zu: %s\n", n,
                        yajl ? "yajl" : "simdjson", (int)st, (unsigned long long)events, whole, err.message);
            ASSERT_EQ_INT(st, GPUDIAG_OK);
            ASSERT_EQ_INT(events, whole);
            ASSERT_EQ_INT(trunc, n < content_end);
            if (trunc)
                ASSERT_EQ_INT(at, n);
        }
    }

    /* the gzip form */
    uLongf zcap = compressBound(size) + 64;
    unsigned char *gz = malloc(zcap);
    ASSERT_TRUE(gz != NULL);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    ASSERT_EQ_INT(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    zs.next_in = text;
    zs.avail_in = (uInt)size;
    zs.next_out = gz;
    zs.avail_out = (uInt)zcap;
    ASSERT_EQ_INT(deflate(&zs, Z_FINISH), Z_STREAM_END);
    size_t gzlen = zs.total_out;
    deflateEnd(&zs);
    for (int yajl = 0; yajl <= 1; yajl++) {
        use_reader(yajl);
        uint64_t prev = 0;
        for (size_t n = 0; n <= gzlen; n++) {
            uint64_t events = 0;
            int trunc = 0;
            int64_t at = 0;
            gpudiag_error err;
            gpudiag_status st = read_mem(gz, n, &events, &trunc, &at, &err);
            if (n == gzlen) {
                ASSERT_EQ_INT(st, GPUDIAG_OK);
                ASSERT_EQ_INT(events, nends);
                ASSERT_EQ_INT(trunc, 0);
            } else if (st == GPUDIAG_OK) {
                ASSERT_TRUE(events >= prev && events <= nends);
                ASSERT_EQ_INT(trunc, 1);
                prev = events;
            } else {
                ASSERT_EQ_INT(st, GPUDIAG_ERR_FORMAT);
                ASSERT_EQ_INT(prev, 0); /* refused only while no event is whole yet */
            }
        }
        size_t flips_refused = 0;
        for (size_t k = 10; k < gzlen; k++) {
            uint64_t events = 0;
            int trunc = 0;
            int64_t at = 0;
            gpudiag_error err;
            gz[k] ^= 0x01;
            gpudiag_status st = read_mem(gz, gzlen, &events, &trunc, &at, &err);
            gz[k] ^= 0x01;
            /* never taken as sound: refused, or (a flip that makes the
             * decoder wait for more blocks) read as cut short, with a warning */
            if (st != GPUDIAG_ERR_FORMAT && !(st == GPUDIAG_OK && trunc))
                fprintf(stderr, "gzip byte %zu of %zu flipped (%s): status %d, truncated %d\n", k, gzlen,
                        yajl ? "zlib" : "ISA-L", (int)st, trunc);
            ASSERT_TRUE(st == GPUDIAG_ERR_FORMAT || (st == GPUDIAG_OK && trunc));
            flips_refused += st == GPUDIAG_ERR_FORMAT;
        }
        ASSERT_TRUE(flips_refused >= (gzlen - 10) * 9 / 10); /* nearly all are plain refusals */
    }
    free(gz);
    free(text);
    TEST_DONE("test_cuts");
}
