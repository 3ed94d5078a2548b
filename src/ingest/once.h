/*
 * once.h — inputs that can be read only once: a FIFO, /dev/stdin on a pipe,
 * the /dev/fd/N of a shell's <(zcat ...).  Opening such a path a second time
 * blocks until a new writer comes (never: the hang of issue 19 class 17), so
 * every sniff (gzip, SQLite, saved report, monitoring-log format) must read
 * from the same stream the reader then continues.  gd_once_in_open() reads the
 * head once and hands back a stream that replays it before the rest.
 */
#ifndef GD_INGEST_ONCE_H
#define GD_INGEST_ONCE_H

#include <stddef.h>
#include <stdio.h>

#include "gpudiag/gpudiag.h"

/* Bytes of the head kept for sniffing (raw, before any gzip decoding). */
#define GD_ONCE_HEAD (64u * 1024u)

/* 1 when path names something that can be read only once: it exists and is
 * a FIFO, a character device or a socket (after following links, so
 * /dev/stdin and /dev/fd/N count when they are pipes); 0 for "-" (the
 * callers treat standard input apart), a regular file, a directory, or a
 * path that does not exist (the reader reports that). */
int gd_path_read_once(const char *path);

/* An input read once.  head/n: its first n bytes (n < GD_ONCE_HEAD only at
 * the end of the input); fp: a stream that yields head, then the rest of the
 * input, read once. */
typedef struct gd_once_in {
    FILE *fp;
    unsigned char *head;
    size_t n;
} gd_once_in;

/* Open path ("-": standard input, closed with the stream), read its head and
 * set up the replaying stream.  GPUDIAG_OK, or
 * GPUDIAG_ERR_IO (cannot open, read error; err names path) or
 * GPUDIAG_ERR_NOMEM.  Close with gd_once_in_close(), also after a reader
 * failed. */
gpudiag_status gd_once_in_open(gd_once_in *o, const char *path, gpudiag_error *err);
void gd_once_in_close(gd_once_in *o);

/* 1 when the head is an SQLite database (an Nsight Systems export), which
 * SQLite can open only as a seekable file. */
int gd_once_in_is_sqlite(const gd_once_in *o);
#define GD_ONCE_SQLITE_MESSAGE                                                                                        \
    "an SQLite database (an Nsight Systems export) from a pipe: SQLite needs a file it can seek in; give the "        \
    ".sqlite file's path (or copy the stream to a file first)"

#endif
