/*
 * input.h — a byte stream over a plain or gzip file (detected by the magic
 * bytes 1f 8b, not the name), decompressed as a stream so the whole text is
 * never in memory: with ISA-L's igzip when gpudiag is built with it (about 3x
 * zlib's speed, CRC included), else with zlib.  Concatenated gzip members are
 * read in sequence; a member cut short is reported as truncated, a bad block
 * or CRC as corrupt; bytes after the last member that do not start another
 * are counted (tail_*), not read as data.
 */
#ifndef GD_INGEST_INPUT_H
#define GD_INGEST_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <zlib.h>

typedef enum gd_input_status {
    GD_IN_OK = 0,
    GD_IN_EOF,        /* clean end of input */
    GD_IN_TRUNCATED,  /* gzip stream ended before its trailer */
    GD_IN_CORRUPT,    /* gzip data error (bad CRC, bad block) */
    GD_IN_IOERR       /* read error */
} gd_input_status;

typedef struct gd_input {
    FILE *fp;
    int owns_fp;
    int is_gz;
    int z_inited;
    int z_member_done;
    z_stream zs;
    unsigned char *inbuf;
    size_t inbuf_cap;
    int file_eof;
    uint64_t file_bytes;      /* compressed bytes read from the file */
    uint64_t out_bytes;       /* decompressed bytes produced */
    uint64_t fail_at;         /* GD_IN_CORRUPT: the compressed offset from the stream's start where
                                 decompression failed (the first byte inflate had not consumed, or
                                 after a bad header's FLG byte): the damage lies at or before it (a
                                 bad CRC or length: anywhere in the member that ends there) */
    char message[256];        /* why the last read failed */
    void *isal;               /* ISA-L inflate state when built with it (faster inflate + CRC) */
    int member_start;         /* ISA-L: a gzip member begins at next_in (its header not checked yet) */
    int unsupported;          /* open failed because the content is another compression format */
    int oom;                  /* open failed for want of memory (not an input error) */
    int64_t fp_start;         /* the stream's file offset when opened (ftello), -1: not seekable */
    /* gzip: the bytes after the last member that do not start another one (docs/DEFINITIONS.md
     * "Time and events", bytes after the last gzip member), read through and never inflated; set
     * once the stream has ended (GD_IN_EOF) */
    uint64_t tail_at;         /* their compressed offset from the stream's start (the members' length) */
    uint64_t tail_bytes;      /* how many (0: none) */
    int tail_nonzero;         /* 1 when any of them is not NUL (all-NUL padding is ignored silently) */
} gd_input;

/* Open `path` ("-" = stdin).  Returns 0, or -1 with errno-derived message. */
int gd_input_open(gd_input *in, const char *path);
/* The same over an open stream (a memory buffer via fmemopen(), a pipe).
 * With owns_fp, gd_input_close() closes fp, also when this call fails. */
int gd_input_open_fp(gd_input *in, FILE *fp, int owns_fp);
/* Read up to cap decompressed bytes into buf; *got receives the count.
 * Returns GD_IN_OK with *got > 0, GD_IN_EOF with *got == 0, or an error. */
gd_input_status gd_input_read(gd_input *in, unsigned char *buf, size_t cap, size_t *got);
/* Expected decompressed size of the whole input, bytes, for sizing buffers:
 * a regular file's size, scaled for gzip by the ratio seen so far; 0 when
 * unknown (a pipe, stdin, nothing decompressed yet).  Only a hint. */
uint64_t gd_input_size_estimate(const gd_input *in);
/* A plain (not gzip) stream that was at file offset 0 when opened (a path, or
 * a regular file on standard input): the next gd_input_read() returns the
 * input's bytes from offset off (the counters file_bytes / out_bytes become
 * off, the end of input is looked for again).  0, or -1 when the stream
 * cannot seek (a pipe, a gzip file, a stream opened elsewhere than at its
 * start) with the stream left as it was. */
int gd_input_seek(gd_input *in, uint64_t off);
void gd_input_close(gd_input *in);

/* An SQLite database on standard input: the reader's message (also when the CLI's read-once
 * path meets one on '-'). */
#define GD_STDIN_SQLITE_MESSAGE                                                                        \
    "an SQLite database (an Nsight Systems export?) on standard input: give the .sqlite file's path " \
    "instead of '-' (SQLite needs a file it can seek in)"

#endif
