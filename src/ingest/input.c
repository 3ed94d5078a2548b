/*
 * input.c — plain/gzip byte stream (see input.h).
 */
#define _POSIX_C_SOURCE 200809L /* fileno, fseeko */
#include "ingest/input.h"

#include <errno.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#ifdef GPUDIAG_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#ifndef GD_IN_CHUNK /* the fuzz build makes it small: more refill boundaries */
#define GD_IN_CHUNK (256u * 1024u)
#endif

int gd_input_open(gd_input *in, const char *path)
{
    if (strcmp(path, "-") == 0)
        return gd_input_open_fp(in, stdin, 0);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        int e = errno;
        memset(in, 0, sizeof *in);
        snprintf(in->message, sizeof in->message, "%s", strerror(e));
        in->oom = e == ENOMEM;
        return -1;
    }
    return gd_input_open_fp(in, fp, 1);
}

int gd_input_open_fp(gd_input *in, FILE *fp, int owns_fp)
{
    memset(in, 0, sizeof *in);
    in->fp = fp;
    in->owns_fp = owns_fp;
    in->fp_start = (int64_t)ftello(fp);
    in->inbuf_cap = GD_IN_CHUNK;
    in->inbuf = malloc(in->inbuf_cap);
    if (!in->inbuf) {
        snprintf(in->message, sizeof in->message, "out of memory");
        gd_input_close(in);
        in->oom = 1;
        return -1;
    }
    /* Peek at the first bytes to detect gzip. */
    size_t n = fread(in->inbuf, 1, in->inbuf_cap, in->fp);
    if (n < in->inbuf_cap) {
        if (ferror(in->fp)) {
            snprintf(in->message, sizeof in->message, "%s", strerror(errno));
            gd_input_close(in);
            return -1;
        }
        in->file_eof = 1;
    }
    in->file_bytes = n;
    in->zs.next_in = in->inbuf;
    in->zs.avail_in = (uInt)n;
    /* other compressors: say so instead of reporting a JSON lexical error */
    static const struct { const char *magic; size_t len; const char *name, *cmd; } other[] = {
        {"\x28\xb5\x2f\xfd", 4, "zstd", "zstd -d"},
        {"BZh", 3, "bzip2", "bunzip2"},
        {"\xfd" "7zXZ", 5, "xz", "xz -d"},
        {"PK\x03\x04", 4, "zip", "unzip"},
    };
    if (n >= 16 && memcmp(in->inbuf, "SQLite format 3", 16) == 0) {
        snprintf(in->message, sizeof in->message, "%s", GD_STDIN_SQLITE_MESSAGE);
        gd_input_close(in);
        in->unsupported = 1;
        return -1;
    }
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        if (n >= other[i].len && memcmp(in->inbuf, other[i].magic, other[i].len) == 0) {
            snprintf(in->message, sizeof in->message,
                     "the file is %s-compressed; gpudiag reads .json and .json.gz (decompress it with %s, "
                     "or pipe it: %s -c FILE | gpudiag analyze -)",
                     other[i].name, other[i].cmd, other[i].cmd);
            gd_input_close(in);
            in->unsupported = 1;
            return -1;
        }
    }
    if (n >= 2 && in->inbuf[0] == 0x1f && in->inbuf[1] == 0x8b) {
        in->is_gz = 1;
#ifdef GPUDIAG_HAVE_ISAL
        const char *noisal = getenv("GPUDIAG_NO_ISAL");
        if (!(noisal && noisal[0])) {
            struct inflate_state *st = calloc(1, sizeof *st); /* zeroed: isal_inflate_init leaves
                fields it does not use at first (hist_bits, ...) as they were, and ASan's malloc fill
                (0xbe) then made a corrupt stream read as a clean end: fuzz_gzip, CI 2026-12-03 */
            if (!st) {
                snprintf(in->message, sizeof in->message, "out of memory");
                gd_input_close(in);
                in->oom = 1;
                return -1;
            }
            isal_inflate_init(st);
            st->crc_flag = ISAL_GZIP;
            in->isal = st;
            in->member_start = 1;
            return 0;
        }
#endif
        int zr = inflateInit2(&in->zs, 15 + 16);
        if (zr != Z_OK) {
            snprintf(in->message, sizeof in->message, "%s",
                     zr == Z_MEM_ERROR ? "out of memory" : "zlib initialisation failed");
            gd_input_close(in);
            in->oom = zr == Z_MEM_ERROR;
            return -1;
        }
        in->z_inited = 1;
    }
    return 0;
}

/* Read after the first `have` bytes of the input buffer (bytes the caller kept there) up to its
 * capacity; the buffer then holds have + n unread bytes.  1 if bytes were read, 0 at the end of
 * the file, -1 on a read error (message set). */
static int refill_after(gd_input *in, size_t have)
{
    if (in->file_eof)
        return 0;
    size_t n = fread(in->inbuf + have, 1, in->inbuf_cap - have, in->fp);
    if (n < in->inbuf_cap - have) {
        if (ferror(in->fp)) {
            snprintf(in->message, sizeof in->message, "read error: %s", strerror(errno));
            return -1;
        }
        in->file_eof = 1;
    }
    in->file_bytes += n;
    in->zs.next_in = in->inbuf;
    in->zs.avail_in = (uInt)(have + n);
    return (int)(n > 0);
}

static int refill(gd_input *in) { return refill_after(in, 0); }

/* After a gzip member's trailer, at next_in: 1 when another member starts there (its magic 1f 8b,
 * read across a chunk boundary if need be), else 0 at the end of the stream, with the bytes left
 * in the file counted as its tail (tail_at, tail_bytes, tail_nonzero; DEFINITIONS "Time and
 * events", bytes after the last gzip member), read through and never inflated; -1 on a read
 * error (message set).  Both back-ends call it, so they find the same end. */
static int gz_next_member(gd_input *in)
{
    while (in->zs.avail_in < 2 && !in->file_eof) {
        size_t have = in->zs.avail_in;
        if (have)
            memmove(in->inbuf, in->zs.next_in, have); /* a lone 1f at the end of a chunk */
        if (refill_after(in, have) < 0)
            return -1;
    }
    if (in->zs.avail_in >= 2 && in->zs.next_in[0] == 0x1f && in->zs.next_in[1] == 0x8b)
        return 1;
    if (in->zs.avail_in == 0)
        return 0; /* the end of the file (also on each call after the tail was counted) */
    in->tail_at = in->file_bytes - in->zs.avail_in;
    uint64_t n = 0;
    int nonzero = 0;
    for (;;) {
        for (size_t i = 0; i < in->zs.avail_in && !nonzero; i++)
            nonzero = in->zs.next_in[i] != 0;
        n += in->zs.avail_in;
        in->zs.avail_in = 0;
        int r = refill(in);
        if (r < 0)
            return -1;
        if (r == 0)
            break;
    }
    in->tail_bytes = n;
    in->tail_nonzero = nonzero;
    return 0;
}

#ifdef GPUDIAG_HAVE_ISAL
/* ISA-L's inflate (AVX-512 / AVX2 assembly) returns with the upper halves of
 * the vector registers in use (no VZEROUPPER); until they are cleared, each
 * SSE instruction of the C code after it pays a transition penalty on Intel
 * cores (Intel 64 and IA-32 Architectures Optimization Reference Manual,
 * "Mixing AVX code with SSE code").  The reading thread of a parallel read
 * commits every event with such code right after inflating: its replay took
 * 1.8 s of CPU on a 5.5 GB .json.gz against 0.8 s on the same .json, and the
 * run 1.2 s more CPU in all (docs/PERFORMANCE.md step 11).  Cleared after each
 * inflate call, on a CPU with AVX (elsewhere the instruction does not exist,
 * and ISA-L used no such registers). */
static void isal_clear_upper(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("avx")) /* a load of libgcc's CPU model, set at start-up */
        __asm__ volatile("vzeroupper" ::: "memory");
#endif
}

static const char *isal_error(int rc)
{
    switch (rc) {
    case ISAL_INCORRECT_CHECKSUM: return "gzip data error: incorrect data check (CRC or length)";
    case ISAL_INVALID_WRAPPER: return "gzip data error: invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD: return "gzip data error: unsupported compression method";
    case ISAL_INVALID_BLOCK: return "gzip data error: invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "gzip data error: invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "gzip data error: invalid distance too far back";
    default: return "gzip data error: corrupt stream";
    }
}

/* Length of the gzip member header (RFC 1952 2.3.1: 10 bytes, then FEXTRA, FNAME, FCOMMENT,
 * FHCRC) at b[0..n), or 0 when it does not end within those bytes. */
static size_t gz_header_len(const unsigned char *b, size_t n)
{
    if (n < 10)
        return 0;
    unsigned flg = b[3];
    size_t pos = 10;
    if (flg & 0x04) { /* FEXTRA */
        if (n < pos + 2)
            return 0;
        pos += 2 + ((size_t)b[pos] | (size_t)b[pos + 1] << 8);
    }
    for (unsigned f = 0x08; f <= 0x10; f <<= 1) /* FNAME, then FCOMMENT: zero-terminated */
        if (flg & f) {
            const unsigned char *z = pos < n ? memchr(b + pos, 0, n - pos) : NULL;
            if (!z)
                return 0;
            pos = (size_t)(z - b) + 1;
        }
    if (flg & 0x02) /* FHCRC */
        pos += 2;
    return pos <= n ? pos : 0;
}

/* At a member's start, have its whole header in the input buffer (moving what is left to the
 * front, growing the buffer up to 16 MiB, reading more) before ISA-L sees it: ISA-L 2.30 given a
 * header split across calls (a long FNAME over a chunk boundary) reported a clean, empty end where
 * the stream was corrupt (fuzz_gzip with the fuzz build's 512-byte chunks, CI 2026-12-03).  0, or
 * -1 on a read error or out of memory (message set). */
static int isal_whole_header(gd_input *in)
{
    while (!in->file_eof && !gz_header_len(in->zs.next_in, in->zs.avail_in)) {
        size_t have = in->zs.avail_in;
        if (have == in->inbuf_cap) {
            if (in->inbuf_cap >= (16u << 20))
                return 0; /* a header this long: ISA-L gets it in parts */
            unsigned char *nb = malloc(in->inbuf_cap * 2);
            if (!nb) {
                snprintf(in->message, sizeof in->message, "out of memory");
                return -1;
            }
            memcpy(nb, in->zs.next_in, have);
            free(in->inbuf);
            in->inbuf = nb;
            in->inbuf_cap *= 2;
        } else {
            memmove(in->inbuf, in->zs.next_in, have);
        }
        if (refill_after(in, have) < 0)
            return -1;
    }
    return 0;
}

static gd_input_status read_isal(gd_input *in, unsigned char *buf, size_t cap, size_t *got)
{
    struct inflate_state *st = in->isal;
    size_t produced = 0;
    while (produced < cap) {
        if (in->member_start && isal_whole_header(in) != 0) {
            *got = produced;
            in->out_bytes += produced;
            return GD_IN_IOERR;
        }
        /* RFC 1952: a header with reserved FLG bits set must be refused (zlib
         * does; ISA-L waits for more bytes: found by tests/fuzz/fuzz_gzip) */
        if (in->member_start && in->zs.avail_in >= 4) {
            in->member_start = 0;
            if (in->zs.next_in[0] == 0x1f && in->zs.next_in[1] == 0x8b && (in->zs.next_in[3] & 0xe0)) {
                snprintf(in->message, sizeof in->message, "gzip data error: unknown header flags set");
                in->fail_at = in->file_bytes - in->zs.avail_in + 4; /* after FLG, where zlib stops */
                *got = produced;
                in->out_bytes += produced;
                return GD_IN_CORRUPT;
            }
        }
        if (st->block_state == ISAL_BLOCK_FINISH) {
            /* a member ended: another one may follow (concatenated .gz), or the tail */
            int m = gz_next_member(in);
            if (m < 0)
                return GD_IN_IOERR;
            if (m == 0) {
                in->z_member_done = 1;
                break;
            }
            isal_inflate_reset(st);
            st->crc_flag = ISAL_GZIP;
            in->member_start = 1;
            continue; /* the header check above before ISA-L reads it */
        }
        if (in->zs.avail_in == 0) {
            int r = refill(in);
            if (r < 0)
                return GD_IN_IOERR;
            if (r == 0) {
                if (produced > 0)
                    break;
                snprintf(in->message, sizeof in->message, "gzip stream cut short after %llu compressed bytes",
                         (unsigned long long)in->file_bytes);
                return GD_IN_TRUNCATED;
            }
        }
        st->next_in = in->zs.next_in;
        st->avail_in = in->zs.avail_in;
        st->next_out = buf + produced;
        size_t room = cap - produced;
        st->avail_out = (uint32_t)(room > UINT32_MAX ? UINT32_MAX : room);
        int rc = isal_inflate(st);
        isal_clear_upper();
        size_t out_now = (size_t)(st->next_out - (buf + produced));
        produced += out_now;
        in->zs.next_in = st->next_in;
        in->zs.avail_in = st->avail_in;
        if (rc < 0) {
            snprintf(in->message, sizeof in->message, "%s", isal_error(rc));
            in->fail_at = in->file_bytes - in->zs.avail_in;
            *got = produced;
            in->out_bytes += produced;
            return GD_IN_CORRUPT;
        }
    }
    *got = produced;
    in->out_bytes += produced;
    if (produced == 0)
        return GD_IN_EOF;
    return GD_IN_OK;
}
#endif

gd_input_status gd_input_read(gd_input *in, unsigned char *buf, size_t cap, size_t *got)
{
    *got = 0;
#ifdef GPUDIAG_HAVE_ISAL
    if (in->isal)
        return read_isal(in, buf, cap, got);
#endif
    if (!in->is_gz) {
        /* Serve what is left of the peeked chunk first. */
        if (in->zs.avail_in > 0) {
            size_t n = in->zs.avail_in < cap ? in->zs.avail_in : cap;
            memcpy(buf, in->zs.next_in, n);
            in->zs.next_in += n;
            in->zs.avail_in -= (uInt)n;
            *got = n;
            in->out_bytes += n;
            return GD_IN_OK;
        }
        if (in->file_eof)
            return GD_IN_EOF;
        size_t n = fread(buf, 1, cap, in->fp);
        if (n < cap) {
            if (ferror(in->fp)) {
                snprintf(in->message, sizeof in->message, "read error: %s", strerror(errno));
                return GD_IN_IOERR;
            }
            in->file_eof = 1;
        }
        in->file_bytes += n;
        in->out_bytes += n;
        *got = n;
        return n ? GD_IN_OK : GD_IN_EOF;
    }
    in->zs.next_out = buf;
    in->zs.avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
    while (in->zs.avail_out > 0) {
        if (in->z_member_done) {
            /* Another gzip member follows (concatenated .gz), or the tail. */
            int m = gz_next_member(in);
            if (m < 0)
                return GD_IN_IOERR;
            if (m == 0)
                break;
            inflateReset(&in->zs);
            in->z_member_done = 0;
        }
        if (in->zs.avail_in == 0) {
            int r = refill(in);
            if (r < 0)
                return GD_IN_IOERR;
            if (r == 0) {
                if (*got == 0 && (size_t)(in->zs.avail_out) == cap) {
                    snprintf(in->message, sizeof in->message,
                             "gzip stream cut short after %llu compressed bytes",
                             (unsigned long long)in->file_bytes);
                    return GD_IN_TRUNCATED;
                }
                break;
            }
        }
        int zr = inflate(&in->zs, Z_NO_FLUSH);
        if (zr == Z_STREAM_END) {
            in->z_member_done = 1;
        } else if (zr == Z_BUF_ERROR) {
            if (in->zs.avail_in == 0)
                continue;
            break;
        } else if (zr != Z_OK) {
            snprintf(in->message, sizeof in->message, "gzip data error: %s",
                     in->zs.msg ? in->zs.msg : "corrupt stream");
            in->fail_at = in->file_bytes - in->zs.avail_in;
            *got = cap - in->zs.avail_out;
            in->out_bytes += *got;
            return GD_IN_CORRUPT;
        }
        *got = cap - in->zs.avail_out;
        if (in->z_member_done && in->zs.avail_in == 0 && in->file_eof)
            break;
    }
    *got = cap - in->zs.avail_out;
    in->out_bytes += *got;
    if (*got == 0)
        return in->z_member_done ? GD_IN_EOF : GD_IN_TRUNCATED;
    return GD_IN_OK;
}

uint64_t gd_input_size_estimate(const gd_input *in)
{
    struct stat st;
    if (!in->fp || fstat(fileno(in->fp), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
        return 0;
    if (!in->is_gz)
        return (uint64_t)st.st_size;
    if (in->file_bytes == 0 || in->out_bytes == 0)
        return 0;
    return (uint64_t)((double)st.st_size * ((double)in->out_bytes / (double)in->file_bytes));
}

int gd_input_seek(gd_input *in, uint64_t off)
{
    if (in->is_gz || in->fp_start != 0 || !in->fp || off > (uint64_t)INT64_MAX)
        return -1;
    if (fseeko(in->fp, (off_t)off, SEEK_SET) != 0)
        return -1;
    in->zs.avail_in = 0; /* the peeked chunk, if any was left, is behind or skipped */
    in->file_eof = 0;
    in->file_bytes = off;
    in->out_bytes = off;
    return 0;
}

void gd_input_close(gd_input *in)
{
    free(in->isal);
    in->isal = NULL;
    if (in->z_inited)
        inflateEnd(&in->zs);
    if (in->owns_fp && in->fp)
        fclose(in->fp);
    free(in->inbuf);
    in->inbuf = NULL;
    in->fp = NULL;
    in->z_inited = 0;
}
