/*
 * monlog.h — shared pieces of the monitoring-log readers (dmon.c, smi_csv.c,
 * dcgmi.c, prom.c, smi_q.c): a line iterator over a plain or gzip file, a fast
 * number parser that knows the missing-value spellings, and civil-time
 * conversion.  Each reader turns lines into gpudiag_series samples.
 */
#ifndef GD_INGEST_MONLOG_H
#define GD_INGEST_MONLOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpudiag/series.h"
#include "ingest/input.h"

/* Lines of a file, '\n' or "\r\n" terminated (the terminator is not part of
 * the line); the last line may lack one. */
typedef struct gd_lines {
    gd_input in;
    char *buf;
    size_t cap, len, pos;
    int eof;
    const char *path;
    uint64_t line_no;        /* 1-based number of the current line */
    int64_t line_off;        /* byte offset of the current line */
    int64_t next_off;
    gd_input_status status;  /* set when the stream failed */
    int64_t cut_line;        /* a gzip stream cut short: the 1-based line it cut (what came before
                                is read, that line is lost); 0 when not cut */
    int64_t cut_at;          /* the decompressed byte offset of that line, -1 when not cut */
} gd_lines;

/* Open; 0 or -1 (err filled with GPUDIAG_ERR_IO). */
int gd_lines_open(gd_lines *l, const char *path, gpudiag_error *err);
/* The same over an open stream (fmemopen() in the fuzz target); fp is not
 * closed by gd_lines_close().  name: the input's name in messages. */
int gd_lines_open_fp(gd_lines *l, FILE *fp, const char *name, gpudiag_error *err);
/* Next line: 1 with *s and *n set, 0 at the end, -1 on a read error (err filled)
 * or out of memory.  A gzip stream cut short ends the lines where it is cut
 * (0, cut_line and cut_at set): its partial last line is not handed out, as
 * the row it held cannot be trusted (a number cut in its digits). */
int gd_lines_next(gd_lines *l, const char **s, size_t *n, gpudiag_error *err);
void gd_lines_close(gd_lines *l);

/* A token of a line: [s, s+n). */
typedef struct gd_tok {
    const char *s;
    size_t n;
} gd_tok;

/* Split on runs of blanks (space, tab); returns the token count (at most max). */
size_t gd_split_ws(const char *s, size_t n, gd_tok *tok, size_t max);
/* Split on commas, trimming blanks around each field; returns the count (at most max). */
size_t gd_split_comma(const char *s, size_t n, gd_tok *tok, size_t max);

/* Parse a number that may carry a unit suffix ("45 %", "1234 MiB", "106.56 W").
 * Missing spellings ("", "-", "N/A", "N/W" and "N/S" (dcgmi: not watched, not supported), "[N/A]",
 * "[Not Supported]", "Not Supported",
 * "[Unknown Error]", DCGM blank sentinels >= 1.4e14) give NaN with *ok = 1.
 * "nan", "inf", "-inf" spelled out, and numbers beyond a double's range,
 * give +INFINITY with *ok = 1: a value that is not valid, which
 * gd_values_validate() counts and drops.
 * Anything else that is not a number gives NaN with *ok = 0. */
double gd_parse_value(const char *s, size_t n, int *ok);

/* Days since 1970-01-01 of a proleptic Gregorian date. */
int64_t gd_days_from_civil(int64_t y, unsigned m, unsigned d);

/* "YYYYMMDD" -> µs since epoch at midnight; -1 if malformed. */
int64_t gd_parse_yyyymmdd(const char *s, size_t n);
/* "HH:MM:SS[.frac]" -> µs since midnight; -1 if malformed. */
int64_t gd_parse_hms(const char *s, size_t n);
/* "YYYY/MM/DD HH:MM:SS[.mmm]" (also '-' separators) -> µs since epoch; -1 if malformed. */
int64_t gd_parse_datetime(const char *s, size_t n);

/* A sample row being assembled: all metrics NaN. */
void gd_values_clear(double v[GPUDIAG_M_COUNT]);

/* Once a reader has turned the first rows of a long file into samples: size
 * every GPU's storage for the whole file, estimated from the bytes read so
 * far per row and the input's size (a hint; errors are ignored).  Call per
 * row; it acts once, at GD_LINES_HINT_ROWS rows. */
#define GD_LINES_HINT_ROWS 2048
void gd_lines_size_hint(gd_lines *l, gpudiag_series *s);

/* Values outside their metric's range become NaN, counted in
 * s->invalid_values (first line kept): fractions outside [0, 1] (a
 * utilisation above 100 %), negative bytes, bytes/s, W, MHz, link
 * generation/width, infinities (gd_parse_value gives +inf for "nan"/"inf"
 * spelled out).  Temperatures may be negative; the reason bitmask must be a
 * non-negative integer.  Source of the ranges: the units in series.h. */
void gd_values_validate(gpudiag_series *s, double v[GPUDIAG_M_COUNT], uint64_t line_no);

/* Physical bounds (DEFINITIONS "Invalid monitoring values"): no GPU die or HBM survives 150 °C
 * (slowdown/shutdown thresholds are near 85-105 °C); no SM/graphics clock reaches 5 GHz (the
 * fastest boost near 3 GHz); memory clocks as nvidia-smi prints them reach ~14 GHz on GDDR7 (GDDR6X
 * boards read 10501 MHz), so their bound is 20 GHz; the largest board limit in the GPU table is
 * GB200's 1200 W. */
#define GD_MON_TEMP_MAX_C 150.0
#define GD_MON_CLOCK_MAX_MHZ 5000.0
#define GD_MON_MEM_CLOCK_MAX_MHZ 20000.0
#define GD_MON_BOARD_POWER_MAX_W 1200.0
/* device memory of one GPU: the largest boards hold ~288 GB; 1 PiB is no GPU's */
#define GD_MON_MEM_BYTES_MAX 1125899906842624.0

/* 1 when x (in metric m's unit) is possible: NaN (missing) is; ±inf, a fraction outside 0..1, a
 * negative amount, a temperature below absolute zero or above GD_MON_TEMP_MAX_C, an SM clock above
 * GD_MON_CLOCK_MAX_MHZ (memory clock GD_MON_MEM_CLOCK_MAX_MHZ), a power above twice GD_MON_BOARD_POWER_MAX_W,
 * device memory above GD_MON_MEM_BYTES_MAX, or a fractional reason mask
 * are not.  m is a gpudiag_metric. */
int gd_value_valid(int m, double x);

/* A GPU id that is a number but no index (negative, fractional, beyond 65535 or int, inf). */
#define GD_GPU_ID_INVALID (-2)

/* The GPU (or MIG instance, or dcgmi entity) index a log gives as the
 * number x: x when it is a whole number 0..65535; GD_GPU_ID_INVALID for any
 * other number (negative, fractional, above 65535, ±inf: an invalid value,
 * DEFINITIONS "Invalid monitoring values"); -1 for NaN (missing).  The one
 * place that rule lives for every reader. */
int gd_gpu_index(double x);

/* Count one invalid value (or GPU id) at line_no in s->invalid_values / first_invalid_line. */
void gd_series_invalid(gpudiag_series *s, uint64_t line_no);

/* A column header (line[0..n)) was read at line_no; had_header: one was
 * read before.  Counts a header that differs from the previous one in
 * s->header_changes. */
void gd_series_note_header(gpudiag_series *s, const char *line, size_t n, uint64_t line_no, int had_header);

/* Remember a header column the reader ignores (once; ", "-separated). */
void gd_series_note_ignored(gpudiag_series *s, const char *name, size_t n);

/* A row whose values v (read, before gd_values_validate: an invalid value is a reading) are all
 * missing, and that had no number in a column the reader ignores (other = 0), holds no sample
 * (DEFINITIONS "A row that holds no value"): returns 1 and counts it in s->empty_rows /
 * first_empty_line, else 0. */
int gd_series_empty_row(gpudiag_series *s, const double v[GPUDIAG_M_COUNT], int other, uint64_t line_no);
/* 1 when the cell [s, s+n) is a number (an impossible one included), 0 when it is a missing spelling or text. */
int gd_cell_number(const char *s, size_t n);

/* Record a row that could not be used. */
void gd_series_skip(gpudiag_series *s, uint64_t line_no);
/* The same, and when it is the first skipped row, what in it was not
 * understood (printf format; kept in s->skip_reason, cut at its size). */
void gd_series_skip_why(gpudiag_series *s, uint64_t line_no, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Readers (one per format).  Each reads the whole file into s. */
gpudiag_status gd_read_dmon(gd_lines *l, gpudiag_series *s, gpudiag_error *err);
gpudiag_status gd_read_smi_csv(gd_lines *l, gpudiag_series *s, gpudiag_error *err);
gpudiag_status gd_read_dcgmi(gd_lines *l, gpudiag_series *s, gpudiag_error *err);
gpudiag_status gd_read_prom(gd_lines *l, gpudiag_series *s, gpudiag_error *err);
gpudiag_status gd_read_smi_q(gd_lines *l, gpudiag_series *s, gpudiag_error *err);

/* gpudiag_series_read() over an open stream (plain or gzip bytes); name is the
 * input's name in err.  fp is not closed.  Same returns as gpudiag_series_read(). */
gpudiag_status gd_series_read_fp(FILE *fp, const char *name, gpudiag_log_format format, gpudiag_series **out,
                                 gpudiag_error *err);

#endif
