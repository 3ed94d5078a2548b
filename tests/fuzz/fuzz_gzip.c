/*
 * fuzz_gzip.c — libFuzzer target for the input layer (src/ingest/input.c):
 * plain bytes, gzip (single and concatenated members), the other-compressor
 * and SQLite sniffing.  The bytes are read twice, with ISA-L's inflate and
 * with zlib (GPUDIAG_NO_ISAL), in reads of varying size, and the two must
 * agree: on whether the stream is whole and sound, and on every byte both
 * decompressed.  Plain input must come back
 * unchanged.  Output is capped (gzip expands up to 1032:1).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OUT_CAP (1u << 20)

typedef struct result {
    int open_rc;
    int unsupported;
    int is_gz;
    gd_input_status last;  /* GD_IN_EOF, _TRUNCATED, _CORRUPT, _IOERR, or _OK when capped */
    unsigned char *out;
    size_t len;
    char message[256];     /* why the last read failed */
} result;

/* static: a fresh megabyte per run costs more system time than the run */
static unsigned char outbuf[2][OUT_CAP];

static void read_all(const uint8_t *data, size_t size, int no_isal, result *res)
{
    memset(res, 0, sizeof *res);
    if (no_isal)
        setenv("GPUDIAG_NO_ISAL", "1", 1);
    else
        unsetenv("GPUDIAG_NO_ISAL");
    unsigned char *copy = malloc(size ? size : 1);
    res->out = outbuf[no_isal != 0];
    if (!copy)
        abort();
    if (size)
        memcpy(copy, data, size);
    FILE *fp = fmemopen(copy, size, "rb");
    if (!fp)
        abort();
    gd_input in;
    res->open_rc = gd_input_open_fp(&in, fp, 1);
    if (res->open_rc != 0) {
        if (!in.message[0])
            abort(); /* a failure always says why */
        res->unsupported = in.unsupported;
        free(copy);
        return;
    }
    res->is_gz = in.is_gz;
    static const size_t sizes[] = {1, 7, 4096, 65536, 3, 300000};
    unsigned k = 0;
    for (;;) {
        size_t cap = sizes[k++ % (sizeof sizes / sizeof sizes[0])];
        if (cap > OUT_CAP - res->len)
            cap = OUT_CAP - res->len;
        if (cap == 0) {
            res->last = GD_IN_OK; /* capped: stop here */
            break;
        }
        size_t got = 12345;
        gd_input_status st = gd_input_read(&in, res->out + res->len, cap, &got);
        if (got > cap)
            abort();
        res->len += got;
        if (st == GD_IN_OK) {
            if (got == 0)
                abort(); /* OK promises bytes */
            continue;
        }
        if (st == GD_IN_EOF && got != 0)
            abort(); /* EOF promises none */
        if (st != GD_IN_EOF && !in.message[0])
            abort(); /* an error says why */
        res->last = st;
        memcpy(res->message, in.message, sizeof res->message);
        break;
    }
    if (in.out_bytes != res->len)
        abort(); /* the count the reader reports offsets from */
    gd_input_close(&in);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    result a, b;
    read_all(data, size, 0, &a);
    read_all(data, size, 1, &b);
    if (a.open_rc != b.open_rc || a.unsupported != b.unsupported || a.is_gz != b.is_gz)
        abort();
    if (a.open_rc == 0) {
        if (!a.is_gz) {
            /* plain input comes back as it is */
            if (a.last != GD_IN_EOF || a.len != size || (size && memcmp(a.out, data, size) != 0))
                abort();
        }
        /* A stream both damaged and cut short may be called either: the two
         * libraries check a deflate block at different points.  What must
         * agree: whether the stream is whole and sound, and the bytes both
         * produced. */
        /* ISA-L accepts a dynamic block whose literal/length or distance
         * code is incomplete (RFC 1951 does not forbid it; zlib refuses all
         * but a single one-bit code): ISA-L then reads the stream whole, its
         * CRC-32 and length checked, where zlib stops at the block with
         * "invalid literal/lengths set" or "invalid distances set".  Allowed,
         * and the bytes zlib gave before must be ISA-L's (checked below);
         * regress/fuzz_gzip/incomplete_*.gz, docs/FUZZING.md. */
        int incomplete_code = a.last == GD_IN_EOF && b.last == GD_IN_CORRUPT &&
                              (strstr(b.message, "invalid literal/lengths set") ||
                               strstr(b.message, "invalid distances set"));
        if ((a.last == GD_IN_EOF) != (b.last == GD_IN_EOF) && !incomplete_code) {
            fprintf(stderr, "fuzz_gzip: ISA-L says %d after %zu bytes, zlib %d after %zu\n", (int)a.last, a.len,
                    (int)b.last, b.len);
            abort();
        }
        if (a.last == GD_IN_EOF && b.last == GD_IN_EOF && a.len != b.len) {
            fprintf(stderr, "fuzz_gzip: ISA-L inflates %zu bytes, zlib %zu\n", a.len, b.len);
            abort();
        }
        /* Invalid deflate data that zlib refuses at once ("invalid distance
         * too far back", "invalid distance code", ...) ISA-L may decode on
         * (copying from its window, taking distance codes 30-31), so the
         * bytes differ from there on.  Allowed only when ISA-L does not call
         * the stream sound either (its CRC-32 or length check, or the cut,
         * refuses it): both readers reject the input; regress/fuzz_gzip/
         * distance_*.gz. */
        int too_far = a.last != GD_IN_EOF && b.last == GD_IN_CORRUPT;
        size_t common = a.len < b.len ? a.len : b.len;
        if (!too_far && memcmp(a.out, b.out, common) != 0) {
            fprintf(stderr, "fuzz_gzip: ISA-L and zlib inflate to different bytes\n");
            abort();
        }
    }
    return 0;
}
