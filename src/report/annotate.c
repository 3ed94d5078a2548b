/*
 * annotate.c — the input trace plus gpudiag's annotations (include/gpudiag/annotate.h).
 *
 * The input is streamed through yajl's parser straight into yajl's generator
 * (numbers are passed as their raw text, strings re-escaped by the generator),
 * so the copy is exact in value whatever the trace size; the annotation events
 * are generated into the same stream just before the events array closes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "gpudiag/annotate.h"
#include "gpudiag/gpudiag.h"
#include "ingest/input.h"
#include "ingest/kineto.h"
#include "model/steps.h"
#include "report/finding_kind.h"
#include "util/outfile.h"
#include "util/util.h"

#define MAX_DEPTH 512

typedef struct ann {
    yajl_gen g;             /* the output */
    yajl_gen eg;            /* one event of the events array, flushed into g when complete */
    yajl_gen cur;           /* where the copy goes now: g, or eg inside an event */
    int in_event;
    FILE *fp;               /* plain output, or NULL */
    gzFile gz;              /* gzip output, or NULL */
    int io_error;
    int io_errno;           /* errno of the first failed write, 0 when unknown */
    const gpudiag_report *r;
    char stack[MAX_DEPTH];  /* 'm' map, 'a' array */
    int depth;
    int after_key;          /* a key was generated and its value not yet */
    int key_is_events;      /* the last key at depth 1 was "traceEvents" */
    int events_depth;       /* depth of the traceEvents array, 0 until seen */
    int injected;
    int too_deep;
    int muted;              /* a fresh parser is being fed its synthetic prefix: copy nothing */
    /* --steps: only events overlapping the selection's window W are copied (annotate.h) */
    int slice;              /* 1 when the report's steps were selected */
    double ws_us, we_us;    /* W, µs of the trace clock */
    int ev_key;             /* the current key of the event being copied: 1 ts, 2 dur, 3 ph, 0 other */
    double ev_ts, ev_dur;   /* its ts and dur, NaN when absent */
    int ev_meta;            /* its ph is "M" (metadata: always kept) */
    char ev_name[96];       /* its name when shorter than this, else "" (step markers are short) */
    int ev_junk;            /* it is an array, not an event object: left out, as analyze counts it malformed */
    uint64_t sliced_out;    /* events left out of the slice */
} ann;

static void print_cb(void *ctx, const char *s, size_t len)
{
    ann *a = ctx;
    if (a->gz) {
        if (len && gzwrite(a->gz, s, (unsigned)len) != (int)len) {
            if (!a->io_error)
                a->io_errno = errno;
            a->io_error = 1;
        }
    } else if (fwrite(s, 1, len, a->fp) != len) {
        if (!a->io_error)
            a->io_errno = errno;
        a->io_error = 1;
    }
}

/* ---- the annotation events ------------------------------------------------- */

static void gstr(ann *a, const char *s)
{
    if (!s)
        yajl_gen_null(a->g);
    else
        yajl_gen_string(a->g, (const unsigned char *)s, strlen(s));
}

static void gkey(ann *a, const char *k) { gstr(a, k); }

static void gint(ann *a, const char *k, long long v)
{
    gkey(a, k);
    yajl_gen_integer(a->g, v);
}

static void gnum(ann *a, const char *k, double v)
{
    gkey(a, k);
    if (!isfinite(v)) {
        yajl_gen_null(a->g);
        return;
    }
    char b[64];
    snprintf(b, sizeof b, "%.6g", v);
    yajl_gen_number(a->g, b, strlen(b));
}

/* A trace-clock time in µs from exact ns, 3 decimals. */
static void gts(ann *a, const char *k, int64_t ns)
{
    char b[GD_NS_AS_US_LEN];
    gd_format_ns_as_us(ns, b);
    gkey(a, k);
    yajl_gen_number(a->g, b, strlen(b));
}

static void meta(ann *a, const char *what, int tid, const char *name, int sort_index)
{
    yajl_gen_map_open(a->g);
    gkey(a, "ph");
    gstr(a, "M");
    gkey(a, "name");
    gstr(a, what);
    gint(a, "pid", GPUDIAG_ANNOTATE_PID);
    gint(a, "tid", tid);
    gkey(a, "args");
    yajl_gen_map_open(a->g);
    if (name) {
        gkey(a, "name");
        gstr(a, name);
    } else {
        gint(a, "sort_index", sort_index);
    }
    yajl_gen_map_close(a->g);
    yajl_gen_map_close(a->g);
}

/* One counter sample ("ph":"C") at the start of timeline bin b. */
static void counter(ann *a, const gpudiag_timeline *tl, const char *name, size_t b, const char *arg, double v)
{
    int64_t t = tl->start_ns + (int64_t)((double)(tl->end_ns - tl->start_ns) * (double)b / (double)tl->bins);
    yajl_gen_map_open(a->g);
    gkey(a, "ph");
    gstr(a, "C");
    gkey(a, "cat");
    gstr(a, "gpudiag");
    gkey(a, "name");
    gstr(a, name);
    gint(a, "pid", GPUDIAG_ANNOTATE_PID);
    gts(a, "ts", t);
    gkey(a, "args");
    yajl_gen_map_open(a->g);
    gnum(a, arg, v);
    yajl_gen_map_close(a->g);
    yajl_gen_map_close(a->g);
}

static void write_annotations(ann *a)
{
    const gpudiag_report *r = a->r;
    const gpudiag_timeline *tl = &r->timeline;
    char name[96];
    a->injected = 1;

    meta(a, "process_name", 0, "gpudiag", 0);
    meta(a, "process_sort_index", 0, NULL, -1);
    meta(a, "thread_name", 0, "findings", 0);
    for (size_t d = 0; d < r->device_count; d++) {
        snprintf(name, sizeof name, "idle gaps, GPU %d", r->devices[d].id);
        meta(a, "thread_name", (int)d + 1, name, 0);
    }

    /* idle gaps as spans, one track per device */
    for (size_t i = 0; r->gaps && i < r->gaps_kept; i++) {
        const gpudiag_gap *g = &r->gaps[i];
        size_t d = 0;
        while (d < r->device_count && r->devices[d].id != g->device)
            d++;
        yajl_gen_map_open(a->g);
        gkey(a, "ph");
        gstr(a, "X");
        gkey(a, "cat");
        gstr(a, "gpudiag");
        gkey(a, "name");
        gstr(a, gpudiag_idle_cause_name(g->cause));
        gint(a, "pid", GPUDIAG_ANNOTATE_PID);
        gint(a, "tid", (long long)d + 1);
        gts(a, "ts", g->start_ns);
        gts(a, "dur", (int64_t)llround(g->duration_us * NS_PER_US));
        gkey(a, "args");
        yajl_gen_map_open(a->g);
        gint(a, "device", g->device);
        gkey(a, "step");
        if (g->step >= 0)
            yajl_gen_integer(a->g, g->step);
        else
            yajl_gen_null(a->g);
        gkey(a, "cause");
        gstr(a, gpudiag_idle_cause_name(g->cause));
        yajl_gen_map_close(a->g);
        yajl_gen_map_close(a->g);
    }

    /* findings at the start of the longest step */
    size_t worst = 0;
    for (size_t i = 1; i < r->step_count; i++)
        if (r->steps[i].duration_us > r->steps[worst].duration_us)
            worst = i;
    for (size_t i = 0; r->step_count && i < r->finding_count; i++) {
        const gpudiag_finding *f = &r->findings[i];
        yajl_gen_map_open(a->g);
        gkey(a, "ph");
        gstr(a, "i");
        gkey(a, "s");
        gstr(a, "p");
        gkey(a, "cat");
        gstr(a, "gpudiag");
        gkey(a, "name");
        gstr(a, f->id);
        gint(a, "pid", GPUDIAG_ANNOTATE_PID);
        gint(a, "tid", 0);
        gts(a, "ts", r->steps[worst].start_ns);
        gkey(a, "args");
        yajl_gen_map_open(a->g);
        gkey(a, "title");
        gstr(a, f->title);
        gkey(a, "severity");
        gstr(a, gpudiag_severity_name(f->severity));
        gkey(a, "kind");
        gstr(a, gd_finding_kind_word(f));
        gkey(a, "recommendation");
        gstr(a, f->recommendation);
        gnum(a, "est_gain", f->est_gain);
        if (r->steps[worst].number >= 0)
            gint(a, "worst_step", r->steps[worst].number);
        for (size_t k = 0; k < f->evidence_count; k++)
            gnum(a, f->evidence[k].key, f->evidence[k].value);
        yajl_gen_map_close(a->g);
        yajl_gen_map_close(a->g);
    }

    /* counters, one sample per bin */
    for (size_t d = 0; d < tl->device_count; d++) {
        snprintf(name, sizeof name, "GPU %d utilization", tl->devices[d].device);
        for (size_t b = 0; b < tl->bins; b++)
            counter(a, tl, name, b, "busy_pct", tl->bin_us > 0 ? 100.0 * tl->devices[d].busy_us[b] / tl->bin_us : NAN);
    }
    for (size_t l = 0; l < tl->lane_count; l++) {
        const gpudiag_timeline_lane *ln = &tl->lanes[l];
        if (!ln->queue_max)
            continue;
        snprintf(name, sizeof name, "queue length, GPU %d stream %d", ln->device, ln->stream);
        for (size_t b = 0; b < tl->bins; b++)
            counter(a, tl, name, b, "max_queued", ln->queue_max[b]);
    }
}

/* ---- the copy ------------------------------------------------------------------ */

static int value_done(ann *a)
{
    a->after_key = 0;
    return 1;
}

/* A scalar directly in the events array: not an event (analyze counts it as malformed, DEFINITIONS
 * "Time and events"), so the copy leaves it out. */
static int junk_scalar(const ann *a)
{
    return a->events_depth && a->depth == a->events_depth && !a->in_event && !a->injected;
}

static int cb_null(void *ctx)
{
    ann *a = ctx;
    if (a->muted)
        return 1;
    if (junk_scalar(a))
        return value_done(a);
    yajl_gen_null(a->cur);
    return value_done(a);
}

static int cb_bool(void *ctx, int v)
{
    ann *a = ctx;
    if (a->muted)
        return 1;
    if (junk_scalar(a))
        return value_done(a);
    yajl_gen_bool(a->cur, v);
    return value_done(a);
}

/* --steps: note the ts / dur / ph of the event being copied (its own keys). */
static void event_field(ann *a, const char *s, size_t len, int is_string)
{
    if (!a->slice || !a->in_event || a->depth != a->events_depth + 1 || !a->ev_key)
        return;
    if (a->ev_key == 4) {
        if (is_string && len < sizeof a->ev_name) {
            memcpy(a->ev_name, s, len);
            a->ev_name[len] = '\0';
        }
        return;
    }
    char b[64];
    if (len >= sizeof b)
        return;
    memcpy(b, s, len);
    b[len] = '\0';
    if (a->ev_key == 3)
        a->ev_meta = is_string && strcmp(b, "M") == 0;
    else /* a number, or a quoted one (some exporters) */
        *(a->ev_key == 1 ? &a->ev_ts : &a->ev_dur) = strtod(b, NULL);
}

static int cb_number(void *ctx, const char *s, size_t len)
{
    ann *a = ctx;
    if (a->muted)
        return 1;
    if (junk_scalar(a))
        return value_done(a);
    event_field(a, s, len, 0);
    yajl_gen_number(a->cur, s, len);
    return value_done(a);
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
    ann *a = ctx;
    if (a->muted)
        return 1;
    if (junk_scalar(a))
        return value_done(a);
    event_field(a, (const char *)s, len, 1);
    yajl_gen_string(a->cur, s, len);
    return value_done(a);
}

static int push(ann *a, char kind)
{
    if (a->depth >= MAX_DEPTH) {
        a->too_deep = 1;
        return 0;
    }
    a->stack[a->depth++] = kind;
    a->after_key = 0;
    return 1;
}

/* An element of the events array starts: copy it aside until it is complete
 * (an array among the events is copied aside too, and dropped at its end). */
static void event_begin(ann *a, int is_array)
{
    if (a->events_depth && a->depth == a->events_depth && !a->injected && !a->in_event) {
        a->ev_junk = is_array;
        yajl_gen_clear(a->eg);
        yajl_gen_reset(a->eg, NULL);
        a->cur = a->eg;
        a->in_event = 1;
        a->ev_ts = a->ev_dur = NAN;
        a->ev_meta = 0;
        a->ev_name[0] = '\0';
        a->ev_key = 0;
    }
}

/* A step marker of a step the selection left out (ProfilerStep#N, or the
 * --step-range name's, N outside --steps): its span overlaps W where the last
 * selected step's GPU work runs into the next step, and a slice keeping it
 * read as one step more when analysed again. */
static int unselected_step_marker(const ann *a)
{
    const gpudiag_input_info *in = &a->r->input;
    size_t len = strlen(a->ev_name);
    int64_t num = -1;
    if (!len || !((in->step_range && gd_step_name_match(a->ev_name, len, in->step_range, 1, &num)) ||
                  gd_step_name_match(a->ev_name, len, "ProfilerStep#", 0, &num)))
        return 0;
    return num >= 0 && (num < in->steps_first || num > in->steps_last);
}

/* --steps: whether the event just copied belongs in the slice: metadata, an
 * event without a time, one with a duration that overlaps the selection's
 * window W by more than its edge (a neighbouring step that only touches W is
 * left out) unless it is an unselected step's marker, or one without a
 * duration inside W. */
static int event_in_slice(const ann *a)
{
    if (!a->slice || a->ev_meta || isnan(a->ev_ts))
        return 1;
    if (unselected_step_marker(a))
        return 0;
    double dur = isnan(a->ev_dur) || a->ev_dur < 0 ? 0 : a->ev_dur;
    if (dur == 0) /* an instant, a counter sample, a flow arrow: inside W */
        return a->ev_ts >= a->ws_us && a->ev_ts <= a->we_us;
    return a->ev_ts < a->we_us && a->ev_ts + dur > a->ws_us; /* overlaps W by more than its edge */
}

/* The element closed: hand its text to the output as one value (yajl_gen_number
 * writes the bytes as they are and places the separator). */
static void event_end(ann *a)
{
    if (a->in_event && a->depth == a->events_depth) {
        const unsigned char *buf = NULL;
        size_t len = 0;
        yajl_gen_get_buf(a->eg, &buf, &len);
        if (a->ev_junk)
            ; /* not an event: analyze counted it as malformed */
        else if (event_in_slice(a))
            yajl_gen_number(a->g, (const char *)buf, len);
        else
            a->sliced_out++;
        yajl_gen_clear(a->eg);
        a->cur = a->g;
        a->in_event = 0;
    }
}

static int cb_start_map(void *ctx)
{
    ann *a = ctx;
    if (a->muted)
        return 1;
    event_begin(a, 0);
    yajl_gen_map_open(a->cur);
    a->key_is_events = 0;
    return push(a, 'm');
}

static int cb_map_key(void *ctx, const unsigned char *s, size_t len)
{
    ann *a = ctx;
    if (a->muted)
        return 1;
    yajl_gen_string(a->cur, s, len);
    a->after_key = 1;
    if (a->in_event && a->depth == a->events_depth + 1)
        a->ev_key = len == 2 && memcmp(s, "ts", 2) == 0    ? 1
                    : len == 3 && memcmp(s, "dur", 3) == 0 ? 2
                    : len == 2 && memcmp(s, "ph", 2) == 0  ? 3
                    : len == 4 && memcmp(s, "name", 4) == 0 ? 4
                                                           : 0;
    a->key_is_events = a->depth == 1 && len == 11 && memcmp(s, "traceEvents", 11) == 0;
    return 1;
}

static int cb_end_map(void *ctx)
{
    ann *a = ctx;
    if (a->muted)
        return 1;
    yajl_gen_map_close(a->cur);
    a->depth--;
    event_end(a);
    return value_done(a);
}

static int cb_start_array(void *ctx)
{
    ann *a = ctx;
    if (a->muted)
        return 1;
    event_begin(a, 1);
    yajl_gen_array_open(a->cur);
    if (a->events_depth == 0 && ((a->depth == 1 && a->key_is_events) || a->depth == 0))
        a->events_depth = a->depth + 1;
    a->key_is_events = 0;
    return push(a, 'a');
}

static int cb_end_array(void *ctx)
{
    ann *a = ctx;
    if (a->muted)
        return 1;
    if (a->depth == a->events_depth && !a->injected)
        write_annotations(a);
    yajl_gen_array_close(a->cur);
    a->depth--;
    event_end(a);
    return value_done(a);
}

static const yajl_callbacks callbacks = {
    cb_null, cb_bool, NULL, NULL, cb_number, cb_string, cb_start_map, cb_map_key, cb_end_map, cb_start_array,
    cb_end_array,
};

/* A broken event (an unescaped quote, a bare N/A): drop what was copied of
 * it; the copy resumes at the next event, as the Kineto reader does. */
static void drop_event(ann *a)
{
    if (a->in_event) {
        yajl_gen_clear(a->eg);
        yajl_gen_reset(a->eg, NULL);
    }
    a->cur = a->g;
    a->in_event = 0;
    a->depth = a->events_depth;
    a->after_key = 0;
}

/* A fresh parser inside the events array: fed, muted, a prefix that opens the
 * containers the copy is in ('{"k":' per map, '[' per array). */
static yajl_handle restart(ann *a, yajl_handle old)
{
    if (old)
        yajl_free(old);
    yajl_handle h = yajl_alloc(&callbacks, NULL, a);
    if (!h)
        return NULL;
    yajl_config(h, yajl_dont_validate_strings, 1);
    yajl_config(h, yajl_allow_trailing_garbage, 1);
    a->muted = 1;
    int ok = 1;
    for (int i = 0; i < a->events_depth && ok; i++) {
        const char *pre = a->stack[i] == 'm' ? "{\"k\":" : "[";
        ok = yajl_parse(h, (const unsigned char *)pre, strlen(pre)) == yajl_status_ok;
    }
    a->muted = 0;
    if (!ok) {
        yajl_free(h);
        return NULL;
    }
    return h;
}

/* Close what a cut-off input left open (injecting at the events array). */
static void close_open(ann *a)
{
    if (a->in_event) { /* an event cut short is left out */
        a->depth = a->events_depth;
        a->cur = a->g;
        a->in_event = 0;
        a->after_key = 0;
    }
    if (a->after_key)
        yajl_gen_null(a->g);
    a->after_key = 0;
    while (a->depth > 0) {
        if (a->stack[a->depth - 1] == 'a')
            cb_end_array(a);
        else
            cb_end_map(a);
    }
}

enum { CHUNK = 1 << 16, CARRY_MAX = 4096 }; /* read size; bytes carried over while resyncing */

/* Copy the input through the parser *hp into a's generator; buf holds CHUNK +
 * CARRY_MAX bytes.  A broken event inside traceEvents is left out and the copy
 * resumes at the next one by the Kineto reader's rule (*hp restarted), so the
 * copy holds the events analyze read (issue 19 class 18; it used to refuse the
 * whole trace).  buf holds `have` bytes carried over: a '{' whose next byte
 * had not arrived.  base: the input offset of buf[0].  Returns GPUDIAG_OK, or
 * the error, set in err. */
static gpudiag_status copy_events(ann *a, yajl_handle *hp, gd_input *in, unsigned char *buf, const char *in_path,
                                  gpudiag_error *err)
{
    int eof = 0, resync = 0, ended = 0;
    unsigned char rs_prev = 0;
    size_t have = 0;
    uint64_t base = 0;
    while (!ended) {
        size_t got = 0;
        gd_input_status is = gd_input_read(in, buf + have, CHUNK, &got);
        if (is == GD_IN_EOF) {
            eof = 1;
        } else if (is == GD_IN_TRUNCATED) {
            eof = 1; /* a gzip member cut short: copy what came, close what is open */
        } else if (is != GD_IN_OK) {
            return gd_set_error(err, GPUDIAG_ERR_IO, in_path, (int64_t)in->out_bytes, "%s", in->message);
        }
        size_t n = have + got, off = 0;
        have = 0;
        while (off < n) {
            if (resync) {
                size_t pos = off;
                int f = gd_kineto_find_event_start(buf, &pos, n, eof, &rs_prev);
                if (f < 0 && n - pos <= CARRY_MAX) {
                    memmove(buf, buf + pos, n - pos);
                    have = n - pos;
                    break;
                }
                if (f <= 0)
                    break; /* no event starts in these bytes */
                /* cppcheck-suppress unreadVariable ; read at the loop head and after the loop */
                resync = 0;
                rs_prev = 0;
                *hp = restart(a, *hp);
                if (!*hp) {
                    return gd_set_error(err, GPUDIAG_ERR_NOMEM, in_path, -1, "out of memory");
                }
                off = pos;
            }
            if (yajl_parse(*hp, buf + off, n - off) == yajl_status_ok)
                break;
            size_t consumed = yajl_get_bytes_consumed(*hp);
            if (a->events_depth && a->depth >= a->events_depth && !a->injected && !a->too_deep) {
                drop_event(a); /* the same event analyze skipped ("malformed event(s) skipped") */
                resync = 1;
                rs_prev = 0;
                off += consumed ? consumed : 1;
                continue;
            }
            if (a->injected) {
                ended = 1; /* broken metadata after the events: keep what was copied, as analyze does */
                break;
            }
            int64_t at = (int64_t)(base + off + consumed);
            unsigned char *msg = yajl_get_error(*hp, 0, buf + off, n - off);
            gpudiag_status st =
                gd_set_error(err, GPUDIAG_ERR_FORMAT, in_path, at, "%s; the annotated trace copies only valid JSON",
                             a->too_deep ? "nesting deeper than 512 levels" : msg ? (const char *)msg : "invalid JSON");
            if (msg)
                yajl_free_error(*hp, msg);
            return st;
        }
        base += n - have;
        if (eof)
            break;
    }
    if (!resync && !ended)
        (void)yajl_complete_parse(*hp); /* the input may end inside a value: close_open closes what is open */
    return GPUDIAG_OK;
}

gpudiag_status gpudiag_trace_write_annotated(const char *in_path, const gpudiag_report *r, const char *out_path,
                                             gpudiag_error *err)
{
    if (!in_path || !r || !out_path)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "NULL argument");
    if (strcmp(in_path, "-") == 0)
        return gd_set_error(err, GPUDIAG_ERR_ARG, in_path, -1,
                            "the annotated trace copies the input, which must be a file (not standard input)");
    gd_input in;
    if (gd_input_open(&in, in_path) != 0)
        return gd_set_error(err, GPUDIAG_ERR_IO, in_path, -1, "%s", in.message[0] ? in.message : strerror(errno));

    ann a;
    memset(&a, 0, sizeof a);
    a.r = r;
    if (r->input.steps_selected && r->input.steps_window_end_ns >= r->input.steps_window_start_ns) {
        a.slice = 1;
        a.ws_us = (double)r->input.steps_window_start_ns / 1000.0;
        a.we_us = (double)r->input.steps_window_end_ns / 1000.0;
    }
    int gz = gd_outfile_gz_name(out_path);
    /* a temporary beside out_path, renamed over it only when complete
     * (util/outfile.h): a failed write keeps the old file */
    gd_outfile of;
    if (gd_outfile_open(&of, out_path) != 0) {
        int e = errno;
        gd_input_close(&in);
        return gd_set_error(err, GPUDIAG_ERR_IO, out_path, -1, "cannot create: %s", strerror(e));
    }
    if (gz) {
        a.gz = gzopen(gd_outfile_write_path(&of), "wb6");
        if (!a.gz) {
            int e = errno;
            gd_outfile_abort(&of);
            gd_input_close(&in);
            return gd_set_error(err, GPUDIAG_ERR_IO, out_path, -1, "cannot create: %s", strerror(e));
        }
    } else {
        a.fp = of.fp;
    }
    gpudiag_status st = GPUDIAG_OK;
    unsigned char *buf = malloc(CHUNK + CARRY_MAX);
    a.g = yajl_gen_alloc(NULL);
    a.eg = yajl_gen_alloc(NULL);
    a.cur = a.g;
    yajl_handle h = a.g && a.eg ? yajl_alloc(&callbacks, NULL, &a) : NULL;
    if (!buf || !h) {
        st = gd_set_error(err, GPUDIAG_ERR_NOMEM, in_path, -1, "out of memory");
        goto done;
    }
    yajl_gen_config(a.g, yajl_gen_print_callback, print_cb, &a);
    yajl_config(h, yajl_dont_validate_strings, 1);
    yajl_config(h, yajl_allow_trailing_garbage, 1);

    st = copy_events(&a, &h, &in, buf, in_path, err);
    if (st != GPUDIAG_OK)
        goto done;
    close_open(&a);
    if (!a.injected) {
        st = gd_set_error(err, GPUDIAG_ERR_FORMAT, in_path, -1, "no traceEvents array to annotate");
        goto done;
    }
    if (a.io_error)
        st = gd_set_error(err, GPUDIAG_ERR_IO, out_path, -1, "write error: %s", strerror(a.io_errno ? a.io_errno : EIO));
done:
    if (h)
        yajl_free(h);
    if (a.g) {
        if (st == GPUDIAG_OK)
            print_cb(&a, "\n", 1);
        yajl_gen_free(a.g);
    }
    if (a.eg)
        yajl_gen_free(a.eg);
    free(buf);
    gd_input_close(&in);
    int close_bad = 0, e = 0;
    if (a.gz && gzclose(a.gz) != Z_OK) {
        close_bad = 1;
        e = errno;
    }
    /* commit renames the temporary into place, or removes it and keeps the old file */
    if (gd_outfile_commit(&of, st != GPUDIAG_OK || close_bad || a.io_error) != 0 && st == GPUDIAG_OK) {
        if (!e)
            e = errno;
        st = gd_set_error(err, GPUDIAG_ERR_IO, out_path, -1, "write error: %s", strerror(e ? e : EIO));
    }
    return st;
}
