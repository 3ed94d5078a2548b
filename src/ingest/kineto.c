/*
 * kineto.c — streaming reader for PyTorch profiler (Kineto) Chrome-trace JSON:
 * the window / resync driver and the public entry points.
 *
 * Design: one pass, SAX.  Decompressed bytes from input.c are fed in 1 MiB
 * windows to yajl's event parser (head and tail) and to simdjson (the events
 * array, windows cut at line breaks); a small state machine (kineto_sax.c: a
 * context stack indexed by nesting depth) routes each value to the field of
 * the event being built, and at the end of each event object the event is
 * committed to the compact model (kineto_event.c, model/trace.h) or dropped.
 * Nothing but the current event is held as text, so memory follows the model,
 * not the input.  Numbers are parsed raw (kineto_num.c), and integers beyond
 * int64 (Kineto's uint64 `Comms Id`) do not stop the parse.
 *
 * Dirty input (trace-analysis-peers.md §3.9): a file cut anywhere (Kineto
 * leaves `]}` off when the process dies) keeps every complete event and sets
 * `truncated`; a broken event (unescaped quote, bare N/A, control character)
 * is skipped by re-synchronising at the next line that starts with `{` — the
 * start of the next event in Kineto's layout — and counted.  Strings are not
 * UTF-8 validated (names are bytes to us).
 */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, posix_fadvise */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>

#include "ingest/input.h"
#include "ingest/kineto.h"
#include "ingest/kineto_int.h"
#ifdef GPUDIAG_HAVE_SIMDJSON
#define GD_SJ_PADDING_BYTES GD_SJ_PADDING
#else
#define GD_SJ_PADDING_BYTES 64
#endif
#include "model/trace.h"
#include "util/util.h"

static void describe_yajl_error(yajl_handle h, const unsigned char *buf, size_t len, char *out, size_t cap)
{
    unsigned char *m = yajl_get_error(h, 0, buf, len);
    const char *msg = m ? (const char *)m : "parse error";
    /* yajl prefixes "parse error: " and may end with a newline */
    if (strncmp(msg, "parse error: ", 13) == 0)
        msg += 13;
    snprintf(out, cap, "%s", msg);
    size_t n = strlen(out);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = '\0';
    if (m)
        yajl_free_error(h, m);
}

/* ---- the driver: yajl for the head and tail, simdjson for the events ---- */

/* The fuzz build (GPUDIAG_FUZZ) makes both small, so that a 64 KB input
 * crosses many window and refill boundaries. */
#ifndef GD_READ_CHUNK
#define GD_READ_CHUNK (512u * 1024u)
#endif
#ifndef GD_BUF_CAP
#define GD_BUF_CAP (2u << 20)
#endif
/* Bytes per window when the events are parsed on several threads. */
#define GD_PAR_WINDOW (1u << 20)
#define GD_STREAM_THREADS 4 /* parse threads at most for input of unknown size (a pipe) */

typedef struct reader {
    parser p;
    gd_input in;
    const char *path;
    gpudiag_error *err;
    gpudiag_status st;
    unsigned char *alloc;   /* 1 byte of slack + cap + padding */
    size_t cap;             /* GD_BUF_CAP; more when the events are parsed in parallel */
    unsigned char *data;    /* alloc + 1 */
    size_t beg, end;        /* unread bytes are data[beg..end) */
    uint64_t base;          /* absolute offset of data[0] */
    int eof;
    int resync;
    unsigned char rs_state;  /* find_event_start()'s last byte while resyncing */
    int64_t first_error_at;
    char first_error[256];
    int ended;              /* stop reading: broken metadata after the events */
    int bom_checked;
    /* The first element of a top-level array, from the first bytes read (sniff_bare):
     * 0 not looked at yet or not a top-level array, else '{' '[' '"' '0' (a number)
     * 'l' (true/false/null) ']' (empty) '?' (undecided); bare_at its byte. */
    int bare_kind;
    int64_t bare_at;
    void (*progress)(void *ctx, uint64_t done_bytes, uint64_t total_bytes);
    void *progress_ctx;
    uint64_t total_bytes;   /* the file's size for progress, 0 if unknown */
#ifdef GPUDIAG_HAVE_SIMDJSON
    gd_sj *sj;
    int threads;            /* gpudiag_read_opts.threads: > 1 parses the events in parallel */
    size_t window;          /* bytes per parallel window (about) */
    gd_kt_par *par;         /* the parallel parsers, once the events array opened */
    /* A plain regular file in the parallel phase: mapped read-only here to
     * cut windows, which the workers read themselves (pread(): the copy out of
     * the page cache runs on the parse threads, not here). */
    const unsigned char *map; /* the whole file, NULL: windows are copied from data */
    int map_handle;         /* gd_map_register's handle of map (-1: not registered) */
    size_t map_len;
    size_t map_dropped;     /* bytes at the front of map already unmapped (whole pages) */
#endif
} reader;

static gpudiag_status reader_fail(reader *r, gpudiag_status code, int64_t at, const char *fmt, ...)
    GD_ATTR_PRINTF(4, 5);
static gpudiag_status reader_fail(reader *r, gpudiag_status code, int64_t at, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->st = gd_set_error(r->err, code, r->path, at, "%s", msg);
    return r->st;
}

/* What the document's first element is when it is a top-level array
 * (DEFINITIONS "Time and events": a trace is an array of event objects), from
 * the bytes at the start of the input, so that both event readers see the
 * same: sets r->bare_kind (see reader) and r->bare_at.  Looked at while the
 * buffer still holds the input's start; undecided ('?') after that. */
static void sniff_bare(reader *r)
{
    if (r->base != 0) {
        r->bare_kind = '?';
        return;
    }
    const unsigned char *d = r->data;
    size_t n = r->end, i = 0;
    if (n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf)
        i = 3;
    while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
        i++;
    if (i < n && d[i] != '[') {
        r->bare_kind = '?'; /* an object, or not JSON: the other messages say which */
        return;
    }
    if (i < n)
        i++;
    while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
        i++;
    if (i >= n) {
        if (r->eof || n >= GD_READ_CHUNK)
            r->bare_kind = '?';
        return; /* else: look again after the next read */
    }
    unsigned char c = d[i];
    r->bare_at = (int64_t)i;
    r->bare_kind = c == '{' || c == '[' || c == '"' || c == ']' ? c
                   : c == '-' || (c >= '0' && c <= '9')         ? '0'
                   : c == 't' || c == 'f' || c == 'n'            ? 'l'
                                                                  : '?';
}

/* Move unread bytes to the front and read more; sets eof at the end of input. */
static int fill(reader *r)
{
#ifdef GPUDIAG_HAVE_SIMDJSON
    /* parallel: windows in flight keep bytes from beg; move them only when the room runs out */
    int move = r->beg > 0 && (!r->par || r->end + GD_READ_CHUNK > r->cap);
#else
    int move = r->beg > 0;
#endif
    if (move) {
#ifdef GPUDIAG_HAVE_SIMDJSON
        if (r->par)
            gd_kt_par_wait_copied(r->par); /* windows in flight may still be in the bytes moved over */
#endif
        memmove(r->data, r->data + r->beg, r->end - r->beg);
        r->base += r->beg;
        r->end -= r->beg;
        r->beg = 0;
    }
    while (!r->eof && r->end < r->cap) {
        size_t want = r->cap - r->end;
        if (want > GD_READ_CHUNK)
            want = GD_READ_CHUNK;
        size_t got = 0;
        gd_input_status ist = gd_input_read(&r->in, r->data + r->end, want, &got);
        r->end += got;
        if (r->base == 0 && !r->bom_checked && r->end >= 3) {
            r->bom_checked = 1;
            if (r->data[0] == 0xef && r->data[1] == 0xbb && r->data[2] == 0xbf)
                r->beg = 3; /* a UTF-8 byte-order mark some editors write */
        }
        if (ist == GD_IN_IOERR) {
            reader_fail(r, GPUDIAG_ERR_IO, (int64_t)(r->base + r->end), "%s", r->in.message);
            return -1;
        }
        if (ist == GD_IN_CORRUPT) {
            /* A failed integrity check means any byte may be wrong: refuse rather
             * than diagnose from garbage.  (A stream that is merely cut short is
             * analysed as far as it goes, like a cut JSON file.) */
            reader_fail(r, GPUDIAG_ERR_FORMAT, (int64_t)(r->base + r->end),
                        "%s (detected at compressed byte %llu); the .gz file is corrupt", r->in.message,
                        (unsigned long long)r->in.fail_at);
            return -1;
        }
        if (ist == GD_IN_EOF || ist == GD_IN_TRUNCATED) {
            r->eof = 1;
            if (ist != GD_IN_EOF) {
                r->p.t->truncated = 1;
                r->p.t->truncated_at = (int64_t)(r->base + r->end);
                snprintf(r->p.t->truncation_reason, sizeof r->p.t->truncation_reason, "%s", r->in.message);
            }
        }
        if (got > 0)
            break; /* one chunk at a time keeps the window in cache */
    }
    if (r->bare_kind == 0)
        sniff_bare(r);
    if (r->progress)
        r->progress(r->progress_ctx, r->in.file_bytes, r->total_bytes);
    return 0;
}

static int new_yajl(reader *r, int in_events, int events_closed)
{
    if (r->p.h)
        yajl_free(r->p.h);
    r->p.h = gd_kt_new_handle(&r->p);
    if (!r->p.h) {
        reader_fail(r, GPUDIAG_ERR_NOMEM, -1, "%s", "out of memory");
        return -1;
    }
    if (!in_events)
        return 0;
    /* a synthetic prefix puts the fresh parser inside (or just after) traceEvents */
    static const unsigned char open_prefix[] = "{\"traceEvents\":[";
    static const unsigned char closed_prefix[] = "{\"traceEvents\":[]";
    /* the document is a bare array of events: the same depth, else the fresh
     * parser would wait for a '}' that never comes and call the trace cut off */
    int bare = r->p.events_depth == 1;
    r->p.depth = 0;
    r->p.overflow_depth = 0;
    r->p.key = K_NONE;
    r->p.in_events = 0;
    int fa = r->p.fast_allowed;
    r->p.fast_allowed = 0;
    yajl_status ys = bare            ? yajl_parse(r->p.h, (const unsigned char *)"[", 1)
                     : events_closed ? yajl_parse(r->p.h, closed_prefix, sizeof closed_prefix - 1)
                                     : yajl_parse(r->p.h, open_prefix, sizeof open_prefix - 1);
    r->p.fast_allowed = fa;
    if (ys != yajl_status_ok) {
        reader_fail(r, GPUDIAG_ERR_INTERNAL, -1, "%s", "cannot resume the JSON parser");
        return -1;
    }
    return 0;
}

/* Find the start of the next event in d[*pos..end): a '{' at a line start or
 * after ',' or '[' (blanks between), followed by blanks and a '"' — Kineto's
 * one event per line and minified traces alike.  *prev carries the last byte
 * seen other than space, tab and CR across calls (a newline counts).  Returns
 * 1 with *pos at the '{', 0 with *pos == end when there is none, or -1 with
 * *pos at a candidate '{' whose next byte is not there yet (and !eof). */
static int find_event_start(const unsigned char *d, size_t *pos, size_t end, int eof, unsigned char *prev)
{
    for (size_t i = *pos; i < end; i++) {
        unsigned char c = d[i];
        if (c == '{' && (*prev == ',' || *prev == '[' || *prev == '\n')) {
            size_t k = i + 1;
            while (k < end && (d[k] == ' ' || d[k] == '\t' || d[k] == '\r' || d[k] == '\n'))
                k++;
            if (k >= end && !eof) {
                *pos = i;
                return -1;
            }
            if (k < end && d[k] == '"') {
                *pos = i;
                return 1;
            }
        }
        if (c != ' ' && c != '\t' && c != '\r')
            *prev = c;
    }
    *pos = end;
    return 0;
}

int gd_kineto_find_event_start(const unsigned char *d, size_t *pos, size_t end, int eof, unsigned char *prev)
{
    return find_event_start(d, pos, end, eof, prev);
}

/* When the input is not JSON at all, a hint for the formats people most often
 * pass here by mistake: monitoring logs, which have their own reader
 * (gpudiag_series_read; the CLI routes them there by content). */
static const char *not_a_trace_hint(const reader *r)
{
    if (r->base != 0 || r->end == 0)
        return "";
    const unsigned char *d = r->data;
    size_t n = r->end, i = 0;
    while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
        i++;
    if (i < n && (d[i] == '{' || d[i] == '['))
        return "";
    if (n >= 16 && memcmp(d, "SQLite format 3", 16) == 0) /* inside gzip: a plain one never gets here */
        return " (a gzip-compressed SQLite database, an Nsight Systems export?: decompress it first, e.g. "
               "`gunzip FILE.sqlite.gz`, and give the .sqlite file: SQLite needs a file it can seek in)";
    /* one byte of gzip's magic 1f 8b, then deflate's method 8 and a flags byte with no reserved bits */
    if (n >= 10 && ((d[0] == 0x1f) != (d[1] == 0x8b)) && d[2] == 8 && (d[3] & 0xe0) == 0)
        return " (the first bytes are gzip's header with one of its magic bytes 1f 8b changed: a damaged .gz?)";
    static const char lfs[] = "version https://git-lfs.github.com/spec/";
    if (n - i >= sizeof lfs - 1 && memcmp(d + i, lfs, sizeof lfs - 1) == 0)
        return " (this is a Git LFS pointer, not the file it stands for: the repository was cloned without "
               "Git LFS; fetch the file with `git lfs pull`)";
    /* the header lines of dmon ("# gpu"), dcgmi dmon ("#Entity") and Prometheus
     * text ("# HELP", "# TYPE"); not any '#' (a Markdown file starts so) */
    static const char *const heads[] = {"# gpu ", "#Entity", "# Entity", "# HELP ", "# TYPE "};
    int log_head = 0;
    for (size_t h = 0; h < sizeof heads / sizeof *heads; h++)
        log_head |= n - i >= strlen(heads[h]) && memcmp(d + i, heads[h], strlen(heads[h])) == 0;
    if (log_head)
        return " (this looks like a monitoring log, e.g. nvidia-smi dmon, dcgmi dmon or Prometheus text, not a "
               "trace: `gpudiag analyze FILE` reads it as one; from standard input say which with "
               "`--format dmon|dcgmi|prom`)";
    /* cppcheck-suppress knownConditionTrueFalse ; false positive: i < n says nothing of n - i */
    if (n - i >= 10 && (memcmp(d + i, "timestamp,", 10) == 0 || memcmp(d + i, "index,", 6) == 0 ||
                        memcmp(d + i, "name,", 5) == 0))
        return " (this looks like nvidia-smi --query-gpu CSV, not a trace: `gpudiag analyze FILE` reads it as "
               "one; from standard input add `--format smi-csv`)";
    if (n >= 2 && ((d[0] == 0xff && d[1] == 0xfe) || (d[0] == 0xfe && d[1] == 0xff)))
        return " (UTF-16 text, which gpudiag does not read: convert it to UTF-8, e.g. `iconv -f UTF-16 -t UTF-8`)";
    if (i < n)
        return " (not JSON, nor a log format gpudiag knows: it reads PyTorch profiler traces (JSON), Nsight Systems "
               "SQLite exports, and the logs of nvidia-smi dmon / --query-gpu / -q, dcgmi dmon, dcgm-exporter and "
               "amd-smi monitor; see `gpudiag analyze --help`)";
    return "";
}

/* Feed data[beg..end) to yajl.  Returns 0 when all was consumed, 1 when yajl
 * stopped at the '[' of traceEvents (simdjson's turn), -1 on a fatal error. */
static int yajl_consume(reader *r)
{
    parser *p = &r->p;
    while (r->beg < r->end && !r->ended) {
        if (r->resync) {
            if (find_event_start(r->data, &r->beg, r->end, r->eof, &r->rs_state) <= 0)
                return 0; /* none in these bytes, or a '{' kept until its next byte arrives */
            r->resync = 0;
            r->rs_state = 0;
            if (new_yajl(r, 1, 0) != 0)
                return -1;
        }
        size_t n = r->end - r->beg;
        yajl_status ys = yajl_parse(p->h, r->data + r->beg, n);
        if (ys == yajl_status_ok) {
            r->beg = r->end;
            return 0;
        }
        size_t consumed = yajl_get_bytes_consumed(p->h);
        int64_t at = (int64_t)(r->base + r->beg + consumed);
        unsigned char last = consumed > 0 ? r->data[r->beg + consumed - 1] : 0;
        if (ys == yajl_status_error && consumed > 0 && (last == 0 || !strchr("\"{}[],: \t\r\n", last)))
            at--; /* yajl stopped just after an offending byte (not after a token): name that byte */
        if (p->doc_closed) {
            r->beg += consumed;
            r->ended = 1;
            return 0;
        }
        if (p->want_fast) {
            p->want_fast = 0;
            r->beg += consumed;
            return 1;
        }
        if (p->header_done) {
            r->beg += consumed;
            r->ended = 1;
            return 0;
        }
        if (p->oom) {
            reader_fail(r, GPUDIAG_ERR_NOMEM, at, "%s", "out of memory");
            return -1;
        }
        if (ys == yajl_status_client_canceled) {
            reader_fail(r, GPUDIAG_ERR_FORMAT, at, "%s", "JSON nested too deeply");
            return -1;
        }
        char msg[256];
        describe_yajl_error(p->h, r->data + r->beg, n, msg, sizeof msg);
        if (r->first_error_at < 0) {
            r->first_error_at = at;
            snprintf(r->first_error, sizeof r->first_error, "%s", msg);
        }
        if (p->in_events) {
            /* drop the broken event and resume at the next one */
            p->t->skipped_malformed++;
            r->resync = 1;
            r->rs_state = 0;
            r->beg += consumed ? consumed : 1;
            continue;
        }
        if (!p->saw_events) {
            reader_fail(r, GPUDIAG_ERR_FORMAT, at, "not a trace: %s%s", msg, not_a_trace_hint(r));
            return -1;
        }
        r->ended = 1; /* broken metadata after the events: keep what we have */
    }
    return 0;
}


#ifdef GPUDIAG_HAVE_SIMDJSON

/* 1 if another event starts in data[from..to), by the rule of find_event_start(). */
static int another_event_after(const unsigned char *d, size_t from, size_t to)
{
    unsigned char prev = 0;
    return find_event_start(d, &from, to, 1, &prev) == 1;
}

/* The last byte before d[at] other than space, tab and CR, looking back to
 * d[from] (find_event_start()'s *prev there); 0 when none. */
static unsigned char byte_before(const unsigned char *d, size_t from, size_t at)
{
    while (at > from) {
        unsigned char c = d[--at];
        if (c != ' ' && c != '\t' && c != '\r')
            return c;
    }
    return 0;
}

/* Where a window that starts at d[from] ends: the first event that starts a
 * line in d[pos..end) (pos > from; eof as find_event_start()).  1 with *cut
 * at its '{', else 0. */
static int line_event_cut(const unsigned char *d, size_t from, size_t pos, size_t end, int eof, size_t *cut)
{
    unsigned char prev = byte_before(d, from, pos);
    for (;;) {
        if (find_event_start(d, &pos, end, eof, &prev) != 1)
            return 0;
        if (prev == '\n') {
            *cut = pos;
            return 1;
        }
        prev = '{'; /* after ',' or '[': maybe inside an event; only line starts are cut */
        pos++;
    }
}

/* The parallel window that starts at input offset next (an event): up to
 * the first event that starts a line at or after next + r->window.  1 with
 * *len; 0 when none can be cut from what the buffer holds or can take now
 * (at the end of input, or with the buffer full); -1 on a read error.  From
 * the file's map (r->map) when there is one. */
static int next_window(reader *r, uint64_t next, size_t *len)
{
    if (r->map) {
        size_t from = (size_t)next, cut;
        if (from + r->window >= r->map_len ||
            !line_event_cut(r->map, from, from + r->window, r->map_len, 1, &cut))
            return 0;
        *len = cut - from;
        return 1;
    }
    for (;;) {
        size_t from = (size_t)(next - r->base);
        size_t pos = from + r->window, cut;
        if (pos < r->end && line_event_cut(r->data, from, pos, r->end, r->eof, &cut)) {
            *len = cut - from;
            return 1;
        }
        if (r->eof || (r->beg == 0 && r->end >= r->cap))
            return 0;
        if (fill(r) != 0)
            return -1;
    }
}

/* Map the plain regular file read-only for the parallel phase (r->map),
 * unless it is not one (gzip, a pipe, a stream not read from its start), is empty,
 * GPUDIAG_NO_MMAP is set, or the map fails: then windows are copied from
 * the read buffer as for a stream. */
static void map_input(reader *r)
{
    struct stat sb;
    const char *no = getenv("GPUDIAG_NO_MMAP");
    if ((no && no[0]) || r->in.is_gz || r->in.fp_start != 0 || fileno(r->in.fp) < 0 ||
        fstat(fileno(r->in.fp), &sb) != 0 ||
        !S_ISREG(sb.st_mode) || sb.st_size <= 0 || (uint64_t)sb.st_size > SIZE_MAX)
        return;
    void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fileno(r->in.fp), 0);
    if (m == MAP_FAILED)
        return;
    posix_madvise(m, (size_t)sb.st_size, POSIX_MADV_SEQUENTIAL);
    posix_fadvise(fileno(r->in.fp), 0, 0, POSIX_FADV_SEQUENTIAL); /* the workers' reads read ahead more */
    r->map = m;
    r->map_len = (size_t)sb.st_size;
    r->map_handle = gd_map_register(r->path, m, r->map_len); /* a SIGBUS names the file and byte */
}

/* Unmap the file's pages before input offset upto (all: SIZE_MAX), in steps
 * of at least 16 MiB unless all: the reading thread only looks at the bytes
 * after the windows it cut, so the mapped pages it touched stay few. */
static void map_drop(reader *r, size_t upto)
{
    if (!r->map)
        return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t to = upto >= r->map_len ? r->map_len : upto / page * page;
    if (to <= r->map_dropped || (upto != SIZE_MAX && to - r->map_dropped < (16u << 20)))
        return;
    munmap((void *)(uintptr_t)(r->map + r->map_dropped), to - r->map_dropped);
    r->map_dropped = to;
}

/* The parallel phase over the file's map handed the input back to the
 * serial reader at offset at, having started at start: read on from there
 * (the read buffer still holds start's bytes when nothing was taken).  0, or
 * -1 with the error set. */
static int map_resume(reader *r, uint64_t start, uint64_t at)
{
    if (at == start)
        return 0;
    if (gd_input_seek(&r->in, at) != 0) {
        reader_fail(r, GPUDIAG_ERR_IO, (int64_t)at, "%s", "cannot seek in the file");
        return -1;
    }
    r->base = at;
    r->beg = r->end = 0;
    r->eof = 0;
    return 0;
}

/* The serial reader takes over at the oldest window in flight: their bytes
 * go back in front of the unread ones (the buffer grows if need be).  0, or
 * -1 with the error set. */
static int par_restore(reader *r)
{
    gd_kt_par_wait_copied(r->par); /* the buffer is moved and may be reallocated */
    size_t held = gd_kt_par_bytes(r->par), tail = r->end - r->beg;
    if (held + tail > r->cap) {
        size_t cap = held + tail;
        unsigned char *na = realloc(r->alloc, 1 + cap + GD_SJ_PADDING_BYTES);
        if (!na) {
            gd_kt_par_drain(r->par);
            reader_fail(r, GPUDIAG_ERR_NOMEM, (int64_t)(r->base + r->beg), "%s", "out of memory");
            return -1;
        }
        r->alloc = na;
        r->data = na + 1;
        r->cap = cap;
        r->p.buf_data = r->data;
    }
    memmove(r->data + held, r->data + r->beg, tail);
    uint64_t first = gd_kt_par_take(r->par, r->data);
    if (held > 0)
        r->base = first;
    else
        r->base += r->beg;
    r->beg = 0;
    r->end = held + tail;
    return 0;
}

/* Parse the events array from r->beg on r->threads threads (kineto_par.c),
 * merging windows in order as long as they parse cleanly.  Returns 0 with
 * r->beg at the first byte the serial reader must take (a window that did
 * not parse cleanly, or bytes no window could be cut from), -1 on a fatal
 * error. */
static int par_run(reader *r)
{
    if (!r->par) {
        map_input(r);
        if (!(r->par = gd_kt_par_new(r->threads, &r->p, r->map ? fileno(r->in.fp) : -1))) {
            reader_fail(r, GPUDIAG_ERR_NOMEM, (int64_t)(r->base + r->beg), "%s", "out of memory");
            return -1;
        }
    }
    uint64_t start = r->base + r->beg, next = start; /* where the next window starts */
    for (;;) {
        while (!gd_kt_par_full(r->par)) {
            size_t len;
            int rc = next_window(r, next, &len);
            if (rc < 0) {
                gd_kt_par_drain(r->par);
                return -1;
            }
            if (rc == 0)
                break;
            if (gd_kt_par_submit(r->par, r->map ? NULL : r->data + (next - r->base), len, next) != 0) {
                gd_kt_par_drain(r->par);
                reader_fail(r, GPUDIAG_ERR_NOMEM, (int64_t)next, "%s", "out of memory");
                return -1;
            }
            next += len;
            if (!r->map)
                r->beg += len; /* the slot's now (its worker copies them before fill() moves the buffer) */
        }
        if (gd_kt_par_inflight(r->par) == 0)
            return r->map ? map_resume(r, start, next) : 0;
        uint64_t s, e;
        int m = gd_kt_par_merge_oldest(r->par, &r->p, &s, &e);
        if (m < 0) {
            gd_kt_par_drain(r->par);
            reader_fail(r, GPUDIAG_ERR_NOMEM, (int64_t)s, "%s", "out of memory");
            return -1;
        }
        if (m == 1) {
            r->p.t->par_windows++;
            r->p.t->par_bytes += e - s;
        }
        if (m == 0) {
            if (!r->map)
                return par_restore(r);
            gd_kt_par_drain(r->par);
            return map_resume(r, start, s);
        }
        if (r->map) {
            map_drop(r, (size_t)e);
            if (r->progress)
                r->progress(r->progress_ctx, e, r->total_bytes);
        }
    }
}

/* The events array through simdjson.  Returns 0 when the array closed (yajl
 * takes the tail), 1 to hand the rest to yajl (broken or unusual input),
 * -1 on a fatal error. */
static int sj_consume(reader *r)
{
    for (;;) {
        if (r->threads > 1 && par_run(r) != 0)
            return -1;
        if (!r->eof && r->end - r->beg < GD_READ_CHUNK) {
            if (fill(r) != 0)
                return -1;
        }
        if (r->beg >= r->end)
            return 1; /* input ended inside the events: yajl reports the truncation */
        size_t cut = r->end;
        if (!r->eof) {
            while (cut > r->beg && r->data[cut - 1] != '\n')
                cut--;
            if (cut == r->beg) {
                if (r->end - r->beg >= GD_BUF_CAP / 2)
                    return 1; /* no line break in megabytes: compact JSON, let yajl stream it */
                if (fill(r) != 0)
                    return -1;
                continue;
            }
        }
        size_t consumed = 0;
        int res = gd_sj_events(r->sj, r->data + r->beg, cut - r->beg, &gd_kt_sj_callbacks, &r->p, &consumed);
        if (res == GD_SJ_CANCEL) {
            reader_fail(r, GPUDIAG_ERR_NOMEM, (int64_t)(r->base + r->beg), "%s", "out of memory");
            return -1;
        }
        r->beg += consumed;
        if (res == GD_SJ_END) {
            r->p.depth = r->p.events_depth - 1; /* back in the root object (or done: a bare array) */
            r->p.in_events = 0;
            r->p.events_closed = 1;
            return r->p.depth == 0 ? 2 : 0;
        }
        if (r->beg < cut) {
            /* an event could not be parsed: the last one of the window is
             * probably cut by the window; anything else is broken JSON */
            if (r->eof || another_event_after(r->data, r->beg + 1, cut))
                return 1;
            if (r->end - r->beg >= GD_BUF_CAP / 2)
                return 1; /* one event larger than the window */
        }
        if (r->eof && r->beg >= r->end)
            return 1;
        if (fill(r) != 0)
            return -1;
    }
}
#endif

static gpudiag_status read_trace(const char *path, FILE *fp, const gpudiag_read_opts *opts, gpudiag_trace **out,
                                 gpudiag_error *err);

gpudiag_status gd_kineto_read(const char *path, const gpudiag_read_opts *opts, gpudiag_trace **out,
                              gpudiag_error *err)
{
    return read_trace(path, NULL, opts, out, err);
}

gpudiag_status gd_kineto_read_fp(FILE *fp, const char *name, gpudiag_trace **out, gpudiag_error *err)
{
    if (!fp)
        return gd_set_error(err, GPUDIAG_ERR_ARG, name, -1, "no stream");
    return read_trace(name, fp, NULL, out, err);
}

gpudiag_status gd_kineto_read_fp_opts(FILE *fp, const char *name, const gpudiag_read_opts *opts,
                                      gpudiag_trace **out, gpudiag_error *err)
{
    if (!fp)
        return gd_set_error(err, GPUDIAG_ERR_ARG, name, -1, "no stream");
    return read_trace(name, fp, opts, out, err);
}

/* The trace, the buffers and the parsers for r->in, opened; opts as
 * read_trace().  0, or -1 with the error set. */
static int reader_setup(reader *r, const gpudiag_read_opts *opts)
{
    parser *p = &r->p;
    p->t = gd_trace_new(r->path);
    p->name = malloc(GD_NAME_CAP + 1);
    r->cap = GD_BUF_CAP;
#ifdef GPUDIAG_HAVE_SIMDJSON
    r->threads = opts && !opts->header_only && opts->threads > 1 ? opts->threads : 1;
    if (r->threads > 1) {
        const char *w = getenv("GPUDIAG_PARSE_WINDOW"); /* tests: small windows on small files */
        long wv = w ? strtol(w, NULL, 10) : 0;
        r->window = wv >= 64 && wv <= (1L << 26) ? (size_t)wv : GD_PAR_WINDOW;
        /* at most one thread per 64 windows of JSON (a .gz's size on disk counted x 10, a
         * typical ratio for traces): each thread costs ~7 windows of memory, so a small trace
         * stays serial and the extra memory stays under ~11 % of the input.  A stream (size
         * unknown: `zcat t.gz | gpudiag analyze -`) takes at most GD_STREAM_THREADS (~28 MiB
         * more), not every core's; the tests' small windows take the threads asked for. */
        struct stat sb;
        if (!(w && w[0])) {
            uint64_t most = GD_STREAM_THREADS;
            if (fstat(fileno(r->in.fp), &sb) == 0 && S_ISREG(sb.st_mode))
                most = 1 + (uint64_t)sb.st_size * (r->in.is_gz ? 10u : 1u) / (64 * (uint64_t)r->window);
            if ((uint64_t)r->threads > most)
                r->threads = (int)most;
        }
    }
    if (r->threads > 1) {
        size_t need = (2 * (size_t)r->threads + 2) * r->window + GD_READ_CHUNK;
        if (need > r->cap)
            r->cap = need;
    }
#endif
    r->alloc = malloc(1 + r->cap + GD_SJ_PADDING_BYTES);
    if (!p->t || !p->name || !r->alloc) {
        reader_fail(r, GPUDIAG_ERR_NOMEM, -1, "%s", "out of memory");
        return -1;
    }
    r->data = r->alloc + 1;
    p->buf_data = r->data;
    p->buf_end = &r->end;
    p->buf_base = &r->base;
    p->buf_beg = &r->beg;
    p->junk_at = -1;
    p->ts_hi_bar = INT64_MIN; /* no bar until the first selection */
    p->ts_lo_bar = INT64_MAX;
    p->ts_float_at = &p->t->ts_is_float;
    p->header_only = opts && opts->header_only;
    if (opts && opts->progress && !p->header_only) {
        struct stat sb;
        r->progress = opts->progress;
        r->progress_ctx = opts->progress_ctx;
        if (fstat(fileno(r->in.fp), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0)
            r->total_bytes = (uint64_t)sb.st_size;
    }
#ifdef GPUDIAG_HAVE_SIMDJSON
    const char *nosj = getenv("GPUDIAG_NO_SIMDJSON");
    r->sj = nosj && nosj[0] ? NULL : gd_sj_new();
    p->fast_allowed = r->sj != NULL;
#endif
    return new_yajl(r, 0, 0);
}

/* Parse until the document or the input ends: yajl for the head and tail,
 * simdjson over the events.  *bare_array_done: simdjson closed a bare array
 * of events (the document is complete).  0, or -1 with the error set. */
static int parse_document(reader *r, int *bare_array_done)
{
    parser *p = &r->p;
    int mode = 0; /* 0: yajl, 1: simdjson over the events */
    for (;;) {
        if (mode == 0) {
            int rc = yajl_consume(r);
            if (rc < 0)
                return -1;
            if (rc == 1) {
                mode = 1;
                continue;
            }
            if (r->ended || r->eof)
                break;
            if (fill(r) != 0)
                return -1;
            continue;
        }
#ifdef GPUDIAG_HAVE_SIMDJSON
        int rc = sj_consume(r);
        if (rc < 0)
            return -1;
        if (rc == 2) {
            r->ended = 1; /* the document was a bare array of events: nothing follows */
            *bare_array_done = 1;
            break;
        }
        /* yajl takes over: after the array (tail) or inside it (fallback) */
        p->fast_allowed = 0;
        if (new_yajl(r, 1, rc == 0) != 0)
            return -1;
        if (rc == 0)
            p->in_events = 0;
        mode = 0;
#else
        (void)p;
        (void)bare_array_done;
        mode = 0;
#endif
    }
    return 0;
}

/* The document ended before the input: read the rest through unparsed,
 * so that a gzip member's CRC and length are still checked (a flipped
 * bit near the end can leave the JSON whole but the stream corrupt:
 * found by tests/unit/test_cuts.c).  Not after a header-only stop: the
 * point is not to read the rest.  0, or -1 with the error set. */
static int read_rest(reader *r, int bare_array_done)
{
    parser *p = &r->p;
    for (;;) {
        if (p->doc_closed || bare_array_done) {
            /* trailing data: the first non-blank byte after the document (DEFINITIONS "Input") */
            for (size_t i = r->beg; i < r->end && p->t->trailing_at < 0; i++) {
                unsigned char ch = r->data[i];
                if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n')
                    p->t->trailing_at = (int64_t)(r->base + i);
            }
        }
        if (r->eof || p->header_done)
            break;
        r->beg = r->end;
        if (fill(r) != 0)
            return -1;
    }
    return 0;
}

/* The input ended where the document had not: a truncated trace, or not a
 * trace when no events array was seen.  0, or -1 with the error set. */
static int check_end(reader *r)
{
    parser *p = &r->p;
    if (r->ended || p->t->truncated)
        return 0;
    uint64_t total = r->base + r->end;
    if (r->resync) {
        if (!p->saw_events) {
            reader_fail(r, GPUDIAG_ERR_FORMAT, r->first_error_at, "not a trace: %s", r->first_error);
            return -1;
        }
        p->t->truncated = 1;
        p->t->truncated_at = (int64_t)total;
        snprintf(p->t->truncation_reason, sizeof p->t->truncation_reason, "file ends inside a broken event");
    } else {
        yajl_status ys = yajl_complete_parse(p->h);
        if (ys != yajl_status_ok || p->depth > 0) {
            if (!p->saw_events) {
                char msg[256] = "unexpected end of input";
                if (ys != yajl_status_ok)
                    describe_yajl_error(p->h, NULL, 0, msg, sizeof msg);
                reader_fail(r, GPUDIAG_ERR_FORMAT, (int64_t)total, "not a trace: %s", msg);
                return -1;
            }
            if (!p->events_closed || p->depth > 0) {
                p->t->truncated = 1;
                p->t->truncated_at = (int64_t)total;
                snprintf(p->t->truncation_reason, sizeof p->t->truncation_reason,
                         "the JSON ends before the trace closes: the profiler did not finish writing");
            }
        }
    }
    return 0;
}

/* A trace must hold an events array with at least one readable event, and
 * its events have phases.  0, or -1 with the error set. */
static int check_events(reader *r)
{
    parser *p = &r->p;
    if (!p->saw_events) {
        if (p->t->truncated)
            reader_fail(r, GPUDIAG_ERR_FORMAT, p->t->truncated_at, "not a trace: %s", p->t->truncation_reason);
        else
            reader_fail(r, GPUDIAG_ERR_FORMAT, 0, "%s",
                        "not a trace: no \"traceEvents\" array (expected a PyTorch profiler / Chrome trace)");
        return -1;
    }
    if (p->t->events == 0 && strchr("[\"0l", r->bare_kind ? r->bare_kind : '?')) {
        /* DEFINITIONS "Time and events": a trace is an array of event objects */
        int k = r->bare_kind;
        reader_fail(r, GPUDIAG_ERR_FORMAT, r->bare_at,
                    "not a trace: a JSON array of %s, not of event objects%s; give the trace written by "
                    "`prof.export_chrome_trace` or `tensorboard_trace_handler`",
                    k == '[' ? "arrays" : k == '"' ? "strings" : k == '0' ? "numbers" : "true/false/null values",
                    k == '[' ? " (this looks like PyTorch's memory timeline: `export_memory_timeline` to a .json "
                               "file, or `export_memory_timeline_raw`)"
                             : "");
        return -1;
    }
    if (p->t->events == 0 && !p->t->truncated && r->first_error_at < 0) {
        reader_fail(r, GPUDIAG_ERR_FORMAT, 0, "%s", "the trace holds no events (\"traceEvents\" has no event objects)");
        return -1;
    }
    if (p->t->events == 0 && (p->t->truncated || r->first_error_at >= 0)) {
        if (r->first_error_at >= 0)
            reader_fail(r, GPUDIAG_ERR_FORMAT, r->first_error_at, "no readable event: %s", r->first_error);
        else
            reader_fail(r, GPUDIAG_ERR_FORMAT, p->t->truncated_at, "the trace ends before its first complete event (%s)",
                        p->t->truncation_reason);
        return -1;
    }
    if (p->t->events > 0 && p->t->events_with_ph == 0) {
        /* DEFINITIONS "Time and events": every trace event has a phase */
        reader_fail(r, GPUDIAG_ERR_FORMAT, 0,
                    "not a trace: %s %llu object%s in the event array %s a \"ph\" (event phase) field, "
                    "which every Chrome/Kineto trace event has (a GPU status snapshot such as `nvtop -s` output "
                    "is not a profiler trace)",
                    p->t->events == 1 ? "the" : "none of the", (unsigned long long)p->t->events,
                    gd_plural(p->t->events), p->t->events == 1 ? "lacks" : "has");
        return -1;
    }
    return 0;
}

/* The whole read over an opened r->in: the trace in *out, or the error set. */
static void read_opened(reader *r, const gpudiag_read_opts *opts, gpudiag_trace **out)
{
    parser *p = &r->p;
    int bare_array_done = 0;
    if (reader_setup(r, opts) != 0 || parse_document(r, &bare_array_done) != 0 || read_rest(r, bare_array_done) != 0)
        return;
    p->t->bytes = r->base + r->end;
    if (r->in.tail_bytes && r->in.tail_nonzero) { /* DEFINITIONS "Time and events", after the last gzip member */
        p->t->gz_trailing_at = r->in.tail_at;
        p->t->gz_trailing_bytes = r->in.tail_bytes;
    }
    if (p->header_done) {
        p->t->header_only = 1;
        *out = p->t;
        p->t = NULL;
        return;
    }
    if (check_end(r) != 0 || check_events(r) != 0)
        return;
    if (p->junk) { /* DEFINITIONS "Time and events": counted with the malformed events, in file order */
        p->t->skipped_malformed += p->junk;
        if (r->first_error_at < 0 || (p->junk_at >= 0 && p->junk_at < r->first_error_at)) {
            r->first_error_at = p->junk_at >= 0 ? p->junk_at : 0;
            snprintf(r->first_error, sizeof r->first_error, "%s", p->junk_what);
        }
    }
    if (r->first_error_at >= 0) {
        p->t->first_error_at = r->first_error_at;
        snprintf(p->t->first_error, sizeof p->t->first_error, "%s", r->first_error);
    }
    p->t->header_only = p->header_only;
    if (r->progress)
        r->progress(r->progress_ctx, r->in.file_bytes, r->total_bytes);
    *out = p->t;
    p->t = NULL;
}

/* fp: read from this stream (not closed) instead of opening path.  opts: only
 * header_only and progress are used here (may be NULL). */
static gpudiag_status read_trace(const char *path, FILE *fp, const gpudiag_read_opts *opts, gpudiag_trace **out,
                                 gpudiag_error *err)
{
    if (!path || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, path, -1, "no path or out pointer");
    *out = NULL;
    reader *r = calloc(1, sizeof *r);
    if (!r)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
    r->path = path;
    r->err = err;
    r->first_error_at = -1;
    parser *p = &r->p;
    if ((fp ? gd_input_open_fp(&r->in, fp, 0) : gd_input_open(&r->in, path)) != 0) {
        gpudiag_status st = r->in.unsupported ? gd_set_error(err, GPUDIAG_ERR_FORMAT, path, 0, "%s", r->in.message)
                            : r->in.oom       ? gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "%s", r->in.message)
                                              : gd_set_error(err, GPUDIAG_ERR_IO, path, -1, "cannot open: %s", r->in.message);
        free(r);
        return st;
    }
    read_opened(r, opts, out);
    gpudiag_status st = r->st;
    if (p->h)
        yajl_free(p->h);
#ifdef GPUDIAG_HAVE_SIMDJSON
    gd_kt_par_free(r->par);
    if (r->map)
        gd_map_unregister(r->map_handle);
    map_drop(r, SIZE_MAX);
    gd_sj_free(r->sj);
#endif
    free(p->name);
    free(r->alloc);
    gd_input_close(&r->in);
    if (p->t)
        gpudiag_trace_free(&p->t);
    free(r);
    return st;
}
