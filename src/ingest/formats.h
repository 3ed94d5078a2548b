/*
 * formats.h — the registration table of input formats (internal).
 *
 * Every format gpudiag reads is one const row of gd_formats[] (formats.c):
 * its --format name, its kind, its id, the words that name it in messages, and
 * for a monitoring log its sniffer and reader.  The CLI's --format list, its
 * help line, its error messages and its routing, the library's "not a
 * monitoring log" message, gpudiag_log_format_name(), the content detection
 * of gpudiag_log_format_sniff() and the fuzz target's format choice all walk
 * this table (model: the sampler's backend table, src/sample/backend.h;
 * SQLite's sqlite3_module).  Adding a log format: its reader file defines its
 * row object, formats.c lists it, series.h gives its gpudiag_log_format value
 * (CONTRIBUTING.md, "Add a monitoring-log reader").
 */
#ifndef GD_INGEST_FORMATS_H
#define GD_INGEST_FORMATS_H

#include <stddef.h>

#include "gpudiag/series.h"
#include "ingest/monlog.h"

typedef enum gd_format_kind {
    GD_FMT_AUTO = 0, /* detect from the content */
    GD_FMT_TRACE,    /* a trace: gpudiag_trace_read() (Kineto JSON, or an SQLite Nsight export) */
    GD_FMT_LOG       /* a monitoring log: the row's read over gd_lines */
} gd_format_kind;

/* Where a sniffer first recognised its format in a head of bytes: the
 * 0-based index of the non-blank line times 4, plus the tier of the clue (0
 * certain, 1 a keyword, 2 a header of names, 3 a guess from several lines):
 * the smallest position wins, so an earlier line beats a later one and, on
 * one line, a stronger clue beats a weaker one.  -1: not recognised. */
#define GD_SNIFF_AT(line, tier) ((long)(line)*4 + (tier))

typedef struct gd_input_format {
    const char *name; /* --format spelling; also gpudiag_series.format */
    gd_format_kind kind;
    int id;           /* GD_FMT_LOG: its gpudiag_log_format value; traces: 0 */
    const char *what; /* the words for it in messages, e.g. "nvidia-smi dmon" */
    /* GD_FMT_LOG: position (GD_SNIFF_AT) of the first line of buf[0..len) that
     * says this format, or -1.  buf need not be NUL-terminated. */
    long (*sniff)(const char *buf, size_t len);
    /* GD_FMT_LOG: read the whole file into s (a new, empty series named after
     * the row); GPUDIAG_OK or an error filled in err. */
    gpudiag_status (*read)(gd_lines *l, gpudiag_series *s, gpudiag_error *err);
} gd_input_format;

/* The rows, in --format order: "auto", the traces, then the monitoring logs
 * in gpudiag_log_format order (their ids are 1, 2, ... without gaps). */
extern const gd_input_format *const gd_formats[];
extern const size_t gd_format_count;
/* Row indexes the CLI names (rows 0..2 of gd_formats[]). */
#define GD_FORMAT_AUTO 0
#define GD_FORMAT_KINETO 1
#define GD_FORMAT_NSYS 2

/* The number of monitoring-log rows (the largest gpudiag_log_format value). */
size_t gd_log_format_count(void);
/* The row of a --format name, or NULL. */
const gd_input_format *gd_format_by_name(const char *name);
/* The row of a log format id, or NULL (GPUDIAG_LOG_AUTO, unknown values). */
const gd_input_format *gd_format_of_log(gpudiag_log_format f);
/* "a, b, c or d": the names of every row (all = 1) or of the log rows
 * (all = 0), joined into buf (NUL-terminated, truncated to cap); returns buf. */
const char *gd_format_list(char *buf, size_t cap, int all, const char *sep, const char *last);
/* The log rows' `what`, ", "-joined, into buf as gd_format_list(). */
const char *gd_format_whats(char *buf, size_t cap);

/* Which monitoring-log format the file at path holds, by content (its first
 * 64 KiB, decompressed when it is gzip); GPUDIAG_LOG_AUTO when it is not a
 * log: a Kineto trace or saved report (JSON), an Nsight SQLite export, a file
 * that cannot be opened (the trace reader then reports why), "-".  Used by
 * `analyze` to route an input, by `compare` to tell a log side and by
 * gpudiag_analyze_path().  Reentrant (src/ingest/sniff.c). */
gpudiag_log_format gd_sniff_log_file(const char *path);
/* The same over the raw head of an input read once (ingest/once.h; gzip
 * decoded as far as the head goes). */
gpudiag_log_format gd_sniff_log_head(unsigned char *head, size_t n);

/* What the head of an input (64 KiB, decompressed when gzip) starts: JSON (a
 * trace or a saved report: '{' or '[' after blanks, that byte in *first), an
 * SQLite database, a monitoring log (its format in *log), or anything else
 * (also an input that cannot be opened, "-" for the file form).  For an
 * explicit --format that plainly does not match (cmd_analyze.c). */
typedef enum gd_sniff_kind { GD_SNIFF_OTHER = 0, GD_SNIFF_JSON, GD_SNIFF_SQLITE, GD_SNIFF_LOG } gd_sniff_kind;
gd_sniff_kind gd_sniff_file_kind(const char *path, gpudiag_log_format *log, char *first);
gd_sniff_kind gd_sniff_head_kind(unsigned char *head, size_t n, gpudiag_log_format *log, char *first);
/* Sniffer helper: the next non-blank line of a head (at most 80 of them),
 * without its indent and "\r": 1 with *t, *tn, *indent and *index (0-based
 * among non-blank lines) set, 0 at the end.  Start with it zeroed. */
typedef struct gd_sniff_iter {
    const char *buf;
    size_t len, pos;
    int lines;
} gd_sniff_iter;
int gd_sniff_next(gd_sniff_iter *it, const char **t, size_t *tn, size_t *indent, int *index);

#endif
