/*
 * kineto.h — the PyTorch profiler (Kineto) JSON reader.
 */
#ifndef GD_INGEST_KINETO_H
#define GD_INGEST_KINETO_H

#include <stdio.h>

#include "gpudiag/gpudiag.h"

/* See gpudiag_trace_read() in gpudiag.h for the contract.  opts (may be NULL):
 * header_only and progress are honoured here; step_range and select_steps are
 * applied by the caller (ingest/read.c). */
gpudiag_status gd_kineto_read(const char *path, const gpudiag_read_opts *opts, gpudiag_trace **out,
                              gpudiag_error *err);

/* The same over an open stream, e.g. a memory buffer from fmemopen() (the
 * fuzz targets use this).  name: used in messages and the report only.  fp is
 * read to its end or the first error and is not closed. */
gpudiag_status gd_kineto_read_fp(FILE *fp, const char *name, gpudiag_trace **out, gpudiag_error *err);
/* gd_kineto_read_fp() honouring opts as gd_kineto_read() does (may be NULL). */
gpudiag_status gd_kineto_read_fp_opts(FILE *fp, const char *name, const gpudiag_read_opts *opts,
                                      gpudiag_trace **out, gpudiag_error *err);

/* gpudiag_trace_read_opts() over a stream read once (ingest/once.h: a FIFO,
 * /dev/stdin, <(zcat ...)): the Kineto reader, then step_range and
 * select_steps.  name: the input's path, for messages and the report.  fp is
 * not closed.  An SQLite export cannot be read from a stream (the caller
 * checks the head first). */
gpudiag_status gd_trace_read_stream(FILE *fp, const char *name, const gpudiag_read_opts *opts,
                                    gpudiag_trace **out, gpudiag_error *err);

/* The Kineto reader's re-synchronisation rule after a broken event, for the
 * annotated-trace writer (report/annotate.c), so both skip the same events:
 * the next '{' at a line start or after ',' or '[' (blanks between) followed
 * by blanks and a '"'.  d[*pos..end); *prev carries the last byte other than
 * space, tab and CR across calls (start with 0).  1 with *pos at the '{'; 0
 * with *pos == end when none; -1 with *pos at a '{' whose next byte is not
 * there yet (only when !eof). */
int gd_kineto_find_event_start(const unsigned char *d, size_t *pos, size_t end, int eof, unsigned char *prev);

#endif
