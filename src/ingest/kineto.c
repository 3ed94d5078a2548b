/*
 * kineto.c — streaming reader for PyTorch profiler (Kineto) Chrome-trace JSON.
 *
 * Design: one pass, SAX.  Decompressed bytes from input.c are fed in 1 MiB
 * windows to yajl's event parser; a small state machine (a context stack
 * indexed by nesting depth) routes each value to the field of the event being
 * built, and at the end of each event object the event is committed to the
 * compact model (model/trace.h) or dropped.  Nothing but the current event is
 * held as text, so memory follows the model, not the input.
 *
 * Numbers are taken raw (yajl's number callback), so `ts`/`dur` become exact
 * int64 nanoseconds whether written as epoch-µs integers, 3-decimal floats, or
 * 19-digit transitional values that a double cannot hold, and integers beyond
 * int64 (Kineto's uint64 `Comms Id`) do not stop the parse.
 *
 * Dirty input (trace-analysis-peers.md §3.9): a file cut anywhere (Kineto
 * leaves `]}` off when the process dies) keeps every complete event and sets
 * `truncated`; a broken event (unescaped quote, bare N/A, control character)
 * is skipped by re-synchronising at the next line that starts with `{` — the
 * start of the next event in Kineto's layout — and counted.  Strings are not
 * UTF-8 validated (names are bytes to us).
 */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yajl/yajl_parse.h>

#include "ingest/input.h"
#include "ingest/kineto.h"
#ifdef GPUDIAG_HAVE_SIMDJSON
#include "ingest/sj_shim.h"
#define GD_SJ_PADDING_BYTES GD_SJ_PADDING
#else
#define GD_SJ_PADDING_BYTES 64
#endif
#include "model/collective.h"
#include "model/opflops.h"
#include "model/trace.h"
#include "util/util.h"

#define GD_MAX_DEPTH 4096
#define GD_NAME_CAP 8192
#define GD_MAX_DEVICE_ID 65535

enum ctx {
    CTX_ROOT = 0,     /* the top-level object */
    CTX_EVENTS,       /* the traceEvents array */
    CTX_EVENT,        /* one event object */
    CTX_ARGS,         /* event.args */
    CTX_DEVPROPS,     /* deviceProperties array */
    CTX_DEVPROP,      /* one deviceProperties object */
    CTX_DISTINFO,     /* distributedInfo object */
    CTX_DIMS,         /* event.args["Input Dims"]: one array per input */
    CTX_DIM,          /* one input's dims */
    CTX_TYPES,        /* event.args["Input type"] */
    CTX_IGNORE
};

enum key {
    K_NONE = 0,
    /* root */
    K_TRACE_EVENTS, K_DEVICE_PROPS, K_DIST_INFO, K_BASE_TIME,
    /* event */
    K_PH, K_CAT, K_NAME, K_PID, K_TID, K_TS, K_DUR, K_ARGS,
    /* args */
    K_CORRELATION, K_EXTERNAL_ID, K_DEVICE, K_STREAM, K_BPS, K_OCC, K_BYTES,
    K_INPUT_DIMS, K_INPUT_TYPE, K_FLOPS, K_COLL_NAME,
    /* device props */
    K_DP_ID, K_DP_NAME, K_DP_MEM, K_DP_MAJOR, K_DP_MINOR, K_DP_SMS, K_DP_WARP, K_DP_MAXTHR,
    /* distributed info */
    K_RANK, K_WORLD
};

enum cat {
    CAT_UNKNOWN = 0, CAT_OPERATOR, CAT_USER_ANNOT, CAT_GPU_ANNOT, CAT_PYTHON, CAT_PYFUNC,
    CAT_RUNTIME, CAT_DRIVER, CAT_KERNEL, CAT_MEMCPY, CAT_MEMSET, CAT_TRACE, CAT_OTHER, CAT_PROFILER_RANGE
};

enum legacy_pid { LEGACY_NONE = 0, LEGACY_CPU, LEGACY_CUDA };

typedef struct ev_scratch {
    char ph;
    int cat;
    int has_cat;          /* a "cat" key was given */
    int legacy_pid;       /* enum legacy_pid: pid "CPU functions" / "CUDA functions" */
    size_t cat_len;       /* cat_name: the category as written, for CAT_OTHER */
    char cat_name[GD_OTHER_CAT_NAME];
    size_t name_len;
    int has_ts, has_dur, ts_bad, dur_bad;
    int64_t ts_ns, dur_ns;
    int64_t ts_at1;       /* 1 + byte offset of the `ts` value, 0 if unknown */
    int has_pid, has_tid;
    int64_t pid, tid;
    int has_corr, has_ext, has_device, has_stream, has_bps, has_occ, has_bytes;
    int64_t correlation, external_id, device, stream, bytes;
    double bps, occ;
    int has_flops;
    double flops;         /* args.flops (with_flops=True) */
    int coll;             /* 1 + gpudiag_comm_kind named by args "Collective name", 0 if none */
} ev_scratch;

typedef struct parser {
    gpudiag_trace *t;
    yajl_handle h;
    uint8_t ctx[GD_MAX_DEPTH];
    int depth;            /* number of open containers */
    int overflow_depth;   /* containers open beyond GD_MAX_DEPTH */
    int key;              /* pending key for the next value */
    int in_events;        /* inside the traceEvents array */
    int events_closed;
    int saw_events;
    int oom;
    ev_scratch ev;
    gd_op_shapes shapes;  /* args "Input Dims" / "Input type" of the current event */
    int dim_in;           /* index of the input whose dims are being read, -1 if none */
    char *name;           /* scratch for the event name */
    gd_device_prop dp;
    int dp_has_id;
    int fast_allowed;     /* hand the events array to simdjson when it opens */
    int events_depth;     /* depth inside traceEvents: 2, or 1 for a bare array */
    int want_fast;        /* set when yajl was stopped at the '[' of traceEvents */
    int header_only;      /* gpudiag_read_opts.header_only: keep no event */
    int header_done;      /* set when yajl was stopped at the end of distributedInfo */
    int doc_closed;       /* set when yajl was stopped at the end of the top-level value */
    const unsigned char *buf_data; /* the reader's buffer, to turn a value's pointer into a byte offset */
    const size_t *buf_end;
    const uint64_t *buf_base;
    int64_t ts_hi_bar, ts_lo_bar; /* ts_keep(): the worst start kept in ts_hi_at / ts_lo_at */
} parser;

/* ---- number parsing ---------------------------------------------------- */

/* Parse a JSON number given in µs into exact int64 ns.  Handles a fraction of
 * any length (digits past ns are truncated) and falls back to strtod for an
 * exponent.  Returns 0, or -1 if it does not fit. */
static int parse_us_to_ns(const char *s, size_t len, int64_t *out, int *had_frac)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && s[i] == '-') {
        neg = 1;
        i++;
    }
    uint64_t ip = 0;
    size_t digits = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        if (ip > (UINT64_MAX - 9) / 10)
            return -1;
        ip = ip * 10 + (uint64_t)(s[i] - '0');
        i++;
        digits++;
    }
    if (digits == 0)
        return -1;
    uint64_t frac = 0;
    int fdig = 0;
    if (i < len && s[i] == '.') {
        i++;
        *had_frac = 1;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (fdig < 3) {
                frac = frac * 10 + (uint64_t)(s[i] - '0');
                fdig++;
            }
            i++;
        }
        while (fdig < 3) {
            frac *= 10;
            fdig++;
        }
    } else {
        frac = 0;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        char buf[64];
        if (len >= sizeof buf)
            return -1;
        memcpy(buf, s, len);
        buf[len] = '\0';
        double v = strtod(buf, NULL) * 1000.0;
        if (!isfinite(v) || v > 9.2e18 || v < -9.2e18)
            return -1;
        *out = (int64_t)v;
        *had_frac = 1;
        return 0;
    }
    if (ip > (uint64_t)INT64_MAX / 1000 - 1)
        return -1;
    int64_t v = (int64_t)(ip * 1000 + frac);
    *out = neg ? -v : v;
    return 0;
}

static int parse_int64(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && s[i] == '-') {
        neg = 1;
        i++;
    }
    uint64_t v = 0;
    size_t digits = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        if (v > ((uint64_t)INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
        i++;
        digits++;
    }
    if (digits == 0 || i < len)
        return -1; /* a fraction or exponent where an integer is expected: not taken */
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

static int parse_double(const char *s, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* First run of digits in a string such as "stream 7", "25738" or "0x0" (→ 0). */
static int digits_in_string(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    while (i < len && !(s[i] >= '0' && s[i] <= '9'))
        i++;
    if (i == len)
        return -1;
    if (s[i] == '0' && i + 1 < len && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        char buf[32];
        size_t n = len - i;
        if (n >= sizeof buf)
            n = sizeof buf - 1;
        memcpy(buf, s + i, n);
        buf[n] = '\0';
        *out = (int64_t)strtoll(buf, NULL, 16);
        return 0;
    }
    size_t j = i;
    while (j < len && s[j] >= '0' && s[j] <= '9')
        j++;
    return parse_int64(s + i, j - i, out);
}

/* ---- keys and categories ---------------------------------------------- */

#define KEYIS(lit) (len == sizeof(lit) - 1 && memcmp(k, lit, sizeof(lit) - 1) == 0)

static int key_for(int ctx, const char *k, size_t len)
{
    switch (ctx) {
    case CTX_ROOT:
        if (KEYIS("traceEvents")) return K_TRACE_EVENTS;
        if (KEYIS("deviceProperties")) return K_DEVICE_PROPS;
        if (KEYIS("distributedInfo")) return K_DIST_INFO;
        if (KEYIS("baseTimeNanoseconds")) return K_BASE_TIME;
        return K_NONE;
    case CTX_EVENT:
        switch (len) {
        case 2:
            if (KEYIS("ph")) return K_PH;
            if (KEYIS("ts")) return K_TS;
            return K_NONE;
        case 3:
            if (KEYIS("cat")) return K_CAT;
            if (KEYIS("pid")) return K_PID;
            if (KEYIS("tid")) return K_TID;
            if (KEYIS("dur")) return K_DUR;
            return K_NONE;
        case 4:
            if (KEYIS("name")) return K_NAME;
            if (KEYIS("args")) return K_ARGS;
            return K_NONE;
        default:
            return K_NONE;
        }
    case CTX_ARGS:
        switch (len) {
        case 5:
            if (KEYIS("bytes")) return K_BYTES;
            if (KEYIS("flops")) return K_FLOPS;
            return K_NONE;
        case 6:
            if (KEYIS("device")) return K_DEVICE;
            if (KEYIS("stream")) return K_STREAM;
            return K_NONE;
        case 10:
            if (KEYIS("Input Dims")) return K_INPUT_DIMS;
            if (KEYIS("Input type")) return K_INPUT_TYPE;
            return K_NONE;
        case 11:
            if (KEYIS("correlation")) return K_CORRELATION;
            if (KEYIS("External id") || KEYIS("external id")) return K_EXTERNAL_ID;
            return K_NONE;
        case 13:
            if (KEYIS("blocks per SM")) return K_BPS;
            return K_NONE;
        case 15:
            if (KEYIS("Collective name") || KEYIS("collective_name")) return K_COLL_NAME;
            return K_NONE;
        case 25:
            if (KEYIS("est. achieved occupancy %")) return K_OCC;
            return K_NONE;
        default:
            return K_NONE;
        }
    case CTX_DEVPROP:
        if (KEYIS("id")) return K_DP_ID;
        if (KEYIS("name")) return K_DP_NAME;
        if (KEYIS("totalGlobalMem")) return K_DP_MEM;
        if (KEYIS("computeMajor")) return K_DP_MAJOR;
        if (KEYIS("computeMinor")) return K_DP_MINOR;
        if (KEYIS("numSms")) return K_DP_SMS;
        if (KEYIS("warpSize")) return K_DP_WARP;
        if (KEYIS("maxThreadsPerMultiprocessor") || KEYIS("maxThreadsPerMultiProcessor")) return K_DP_MAXTHR;
        return K_NONE;
    case CTX_DISTINFO:
        if (KEYIS("rank")) return K_RANK;
        if (KEYIS("world_size")) return K_WORLD;
        return K_NONE;
    default:
        return K_NONE;
    }
}

static int cat_for(const char *s, size_t len)
{
    /* exact spellings of current PyTorch first: no case folding needed */
    switch (len) {
    case 6:
        if (memcmp(s, "cpu_op", 6) == 0) return CAT_OPERATOR;
        if (memcmp(s, "kernel", 6) == 0) return CAT_KERNEL;
        break;
    case 12:
        if (memcmp(s, "cuda_runtime", 12) == 0) return CAT_RUNTIME;
        break;
    case 15:
        if (memcmp(s, "python_function", 15) == 0) return CAT_PYFUNC;
        if (memcmp(s, "user_annotation", 15) == 0) return CAT_USER_ANNOT;
        break;
    default:
        break;
    }
    switch (len) {
    case 5:
        if (gd_ieq(s, len, "trace")) return CAT_TRACE;
        break;
    case 6:
        if (gd_ieq(s, len, "cpu_op")) return CAT_OPERATOR;
        if (gd_ieq(s, len, "kernel")) return CAT_KERNEL;
        if (gd_ieq(s, len, "memcpy")) return CAT_MEMCPY;
        if (gd_ieq(s, len, "memset")) return CAT_MEMSET;
        if (gd_ieq(s, len, "python")) return CAT_PYTHON;
        break;
    case 7:
        if (gd_ieq(s, len, "runtime")) return CAT_RUNTIME;
        break;
    case 8:
        if (gd_ieq(s, len, "operator")) return CAT_OPERATOR;
        break;
    case 10:
        if (gd_ieq(s, len, "gpu_memcpy")) return CAT_MEMCPY;
        if (gd_ieq(s, len, "gpu_memset")) return CAT_MEMSET;
        break;
    case 11:
        if (gd_ieq(s, len, "cuda_driver")) return CAT_DRIVER;
        break;
    case 12:
        if (gd_ieq(s, len, "cuda_runtime")) return CAT_RUNTIME;
        if (gd_ieq(s, len, "mtia_runtime")) return CAT_RUNTIME;
        if (gd_ieq(s, len, "glow_runtime")) return CAT_RUNTIME;
        break;
    default:
        break;
    }
    if (gd_ieq(s, len, "xpu_runtime") || gd_ieq(s, len, "privateuse1_runtime"))
        return CAT_RUNTIME;
    if (gd_ieq(s, len, "user_annotation"))
        return CAT_USER_ANNOT;
    if (gd_ieq(s, len, "gpu_user_annotation"))
        return CAT_GPU_ANNOT;
    if (gd_ieq(s, len, "python_function"))
        return CAT_PYFUNC;
    if (gd_ieq(s, len, "cuda_profiler_range"))
        return CAT_PROFILER_RANGE; /* CUPTI range-profiler counters: times not measured (DEFINITIONS) */
    return CAT_OTHER;
}

/* ---- committing an event ---------------------------------------------- */

static const char *const comm_op_names[] = {
    "nccl:broadcast", "nccl:reduce", "nccl:all_reduce", "nccl:all_gather", "nccl:reduce_scatter",
    "gloo:broadcast", "gloo:reduce", "gloo:all_reduce", "gloo:all_gather", "gloo:reduce_scatter",
};

static int comm_op_kind(const char *n, size_t len)
{
    for (size_t i = 0; i < sizeof comm_op_names / sizeof comm_op_names[0]; i++) {
        size_t l = strlen(comm_op_names[i]);
        if (l == len && memcmp(n, comm_op_names[i], l) == 0)
            return i < 5 ? 1 : 2;
    }
    return 0;
}

/* Count an 'X' event of a category no analysis reads (DEFINITIONS "Time and
 * events", devices not analysed).  -1 on OOM. */
static int note_other_cat(gpudiag_trace *t, const ev_scratch *e)
{
    int device = e->has_corr || e->has_device || e->has_stream;
    for (size_t i = 0; i < t->other_cats.len; i++) {
        gd_other_cat *c = gd_vec_at(&t->other_cats, i);
        if (strlen(c->name) == e->cat_len && memcmp(c->name, e->cat_name, e->cat_len) == 0) {
            c->events++;
            c->device |= device;
            return 0;
        }
    }
    if (t->other_cats.len >= GD_OTHER_CATS_MAX) {
        if (device)
            t->other_cat_events_dropped++;
        return 0;
    }
    gd_other_cat c;
    memset(&c, 0, sizeof c);
    memcpy(c.name, e->cat_name, e->cat_len);
    c.events = 1;
    c.device = device;
    return gd_vec_push(&t->other_cats, &c) ? 0 : -1;
}

/* ts_hi_at / ts_lo_at: a superset of the GD_TS_RESERVOIR latest (earliest)
 * starts.  Entries are appended; when 2 x GD_TS_RESERVOIR are held, a selection
 * moves the GD_TS_RESERVOIR best to the front and drops the rest, and the worst
 * kept becomes the bar a new start must pass: O(1) per event amortised. */
static int ts_better(const gd_ts_at *a, const gd_ts_at *b, int hi)
{
    return hi ? a->ts_ns > b->ts_ns : a->ts_ns < b->ts_ns;
}

/* Put the k best of a[0..n) first (any order), n > k. */
static void ts_select(gd_ts_at *a, size_t n, size_t k, int hi)
{
    size_t lo = 0, up = n; /* the k-th best lies in [lo, up) */
    while (up - lo > 1) {
        gd_ts_at piv = a[lo + (up - lo) / 2];
        size_t i = lo, j = up, m = lo;
        /* three-way partition: better | equal | worse */
        while (m < j) {
            if (ts_better(&a[m], &piv, hi)) {
                gd_ts_at x = a[i]; a[i] = a[m]; a[m] = x;
                i++, m++;
            } else if (ts_better(&piv, &a[m], hi)) {
                j--;
                gd_ts_at x = a[j]; a[j] = a[m]; a[m] = x;
            } else {
                m++;
            }
        }
        if (k < i)
            up = i;
        else if (k >= j)
            lo = j;
        else
            return; /* the k-th falls among the equal ones */
    }
}

static int ts_keep(gd_vec *v, int64_t *bar, int hi, const gd_ts_at *r)
{
    if (v->len >= GD_TS_RESERVOIR && !(hi ? r->ts_ns > *bar : r->ts_ns < *bar))
        return 0; /* not among the best kept so far */
    if (v->len == 2 * GD_TS_RESERVOIR) {
        gd_ts_at *a = v->data;
        ts_select(a, v->len, GD_TS_RESERVOIR, hi);
        v->len = GD_TS_RESERVOIR;
        *bar = a[0].ts_ns;
        for (size_t i = 1; i < v->len; i++)
            if (hi ? a[i].ts_ns < *bar : a[i].ts_ns > *bar)
                *bar = a[i].ts_ns;
        if (!(hi ? r->ts_ns > *bar : r->ts_ns < *bar))
            return 0;
    }
    return gd_vec_push(v, r) ? 0 : -1;
}

/* 1 + the byte offset of s when it points into the reader's buffer (simdjson
 * parses in place; yajl passes a pointer into the buffer unless the token
 * spanned two reads), else 0. */
static int64_t value_at1(const parser *p, const void *s)
{
    const unsigned char *u = s;
    if (!p->buf_data || u < p->buf_data || u >= p->buf_data + *p->buf_end)
        return 0;
    return (int64_t)(*p->buf_base + (uint64_t)(u - p->buf_data)) + 1;
}

static int commit_event_inner(parser *p);

/* Commit the event; when it became a record of the model, keep its start with
 * the offset of its `ts` among the latest / earliest (docs/DEFINITIONS.md
 * "Sanitising the timeline" 2 names the first outlier by it). */
static int commit_event(parser *p)
{
    gpudiag_trace *t = p->t;
    size_t before = t->gpu_ops.len + t->runtimes.len + t->cpu_ops.len + t->host_steps.len;
    if (commit_event_inner(p) != 0)
        return -1;
    /* cppcheck-suppress knownConditionTrueFalse ; false positive: commit_event_inner pushes through p->t */
    if (t->gpu_ops.len + t->runtimes.len + t->cpu_ops.len + t->host_steps.len == before)
        return 0;
    gd_ts_at r = {p->ev.ts_ns, p->ev.ts_at1 - 1};
    if (ts_keep(&t->ts_hi_at, &p->ts_hi_bar, 1, &r) != 0 || ts_keep(&t->ts_lo_at, &p->ts_lo_bar, 0, &r) != 0)
        return -1;
    return 0;
}

static int commit_event_inner(parser *p)
{
    gpudiag_trace *t = p->t;
    ev_scratch *e = &p->ev;
    t->events++;
    if (e->ph)
        t->events_with_ph++;
    if (p->header_only)
        return 0; /* distributedInfo comes after the events: parse on, keep nothing */
    if (!e->has_cat && e->legacy_pid && e->ph == 'X') {
        /* the legacy autograd profiler's export (torch.autograd.profiler without
         * Kineto, e.g. Debian's PyTorch 1.13): no "cat"; pid "CPU functions" are
         * CPU ops, "CUDA functions" kernels on device `tid`, stream not recorded
         * (DEFINITIONS "Time and events") */
        t->legacy_events++;
        if (e->legacy_pid == LEGACY_CPU) {
            e->cat = CAT_OPERATOR;
        } else {
            e->cat = CAT_KERNEL;
            e->device = e->has_tid ? e->tid : 0;
            e->has_device = 1;
            e->stream = 0;
            e->has_stream = 1;
        }
    }
    if (e->ph == 's' && e->cat == CAT_OTHER && e->cat_len == 11 && memcmp(e->cat_name, "cpu_to_cuda", 11) == 0)
        t->legacy_launch_arrows++; /* the legacy export's arrow to a kernel it did not write */
    if (e->ph != 'X') {
        t->ignored_events++;
        return 0;
    }
    if (e->cat == CAT_OTHER) {
        t->ignored_events++;
        return note_other_cat(t, e);
    }
    if (e->cat == CAT_PROFILER_RANGE) {
        /* Kineto's CUPTI range profiler spreads its ranges evenly over the profiling span
         * (one per kernel): counters, not timings, so not GPU ops (DEFINITIONS "Time and events") */
        t->ignored_events++;
        t->profiler_ranges++;
        return 0;
    }
    if (e->cat == CAT_UNKNOWN) {
        t->ignored_events++;
        t->uncategorised_events++; /* DEFINITIONS "Time and events": may be GPU work we cannot tell */
        return 0;
    }
    if (!e->has_ts || e->ts_bad) {
        t->skipped_no_dur++;
        return 0;
    }
    if (!e->has_dur || e->dur_bad || e->dur_ns < 0) {
        t->skipped_no_dur++;
        return 0;
    }
    const char *name = p->name;
    size_t nlen = e->name_len;
    switch (e->cat) {
    case CAT_KERNEL:
    case CAT_MEMCPY:
    case CAT_MEMSET: {
        if (e->ts_ns == 0) {
            t->skipped_zero_ts++;
            return 0;
        }
        gd_gpu_op op;
        memset(&op, 0, sizeof op);
        op.ts_ns = e->ts_ns;
        op.dur_ns = e->dur_ns;
        op.kind = (uint8_t)(e->cat == CAT_KERNEL ? GD_GPU_KERNEL : e->cat == CAT_MEMCPY ? GD_GPU_MEMCPY : GD_GPU_MEMSET);
        {
            int64_t dev = e->has_device ? e->device : (e->has_pid ? e->pid : 0);
            if (dev < -1 || dev > GD_MAX_DEVICE_ID) {
                t->skipped_bad_value++; /* not a device index a GPU can have */
                return 0;
            }
            op.device = (int32_t)dev;
        }
        op.stream = (int32_t)(e->has_stream ? e->stream : (e->has_tid ? e->tid : -1));
        op.correlation = e->has_corr ? e->correlation : -1;
        if (e->cat == CAT_KERNEL) {
            op.external_id = e->has_ext ? e->external_id : -1;
            if (e->has_ext)
                op.flags |= GD_GF_HAS_EXT;
            op.coll = (uint8_t)e->coll;
        } else {
            op.bytes = e->has_bytes ? e->bytes : -1;
        }
        if (e->has_corr)
            op.flags |= GD_GF_HAS_CORR;
        if (e->has_bps) {
            op.blocks_per_sm = (float)e->bps;
            op.flags |= GD_GF_HAS_BPS;
        }
        if (e->has_occ) {
            op.occupancy_pct = (float)e->occ;
            op.flags |= GD_GF_HAS_OCC;
        }
        op.name_id = gd_strtab_intern(&t->names, name, nlen);
        if (op.name_id == UINT32_MAX || !gd_vec_push(&t->gpu_ops, &op))
            return -1;
        return 0;
    }
    case CAT_RUNTIME:
    case CAT_DRIVER: {
        gd_runtime rt;
        memset(&rt, 0, sizeof rt);
        rt.ts_ns = e->ts_ns;
        rt.correlation = e->has_corr ? e->correlation : -1;
        rt.name_id = gd_strtab_intern(&t->names, name, nlen);
        if (rt.name_id == UINT32_MAX)
            return -1;
        if (!t->is_amd && nlen > 3 && memcmp(name, "hip", 3) == 0)
            t->is_amd = 1;
        if (gd_trace_push_runtime(t, &rt, e->dur_ns, (int32_t)(e->has_tid ? e->tid : 0)) != 0)
            return -1;
        if (e->cat == CAT_DRIVER)
            t->driver_calls++;
        return 0;
    }
    case CAT_TRACE:
        if (nlen == 20 && memcmp(name, "PyTorch Profiler (0)", 20) == 0) {
            t->trace_span_start_ns = e->ts_ns;
            t->trace_span_end_ns = e->ts_ns + e->dur_ns;
            t->has_trace_span = 1;
        }
        return 0;
    case CAT_OPERATOR:
    case CAT_USER_ANNOT:
    case CAT_GPU_ANNOT:
    case CAT_PYTHON:
    case CAT_PYFUNC: {
        if ((e->cat == CAT_OPERATOR || e->cat == CAT_USER_ANNOT) && gd_starts_with(name, nlen, "ProfilerStep#")) {
            if (e->dur_ns == 0) {
                /* a zero-length step marker holds no work: not a step (TBP would count
                 * it as a 0 us step and halve the mean) */
                t->ignored_events++;
                return 0;
            }
            gd_host_step st;
            st.ts_ns = e->ts_ns;
            st.dur_ns = e->dur_ns;
            st.number = -1;
            int64_t num;
            if (parse_int64(name + 13, nlen - 13, &num) == 0)
                st.number = num;
            return gd_vec_push(&t->host_steps, &st) ? 0 : -1;
        }
        gd_cpu_op op;
        memset(&op, 0, sizeof op);
        op.ts_ns = e->ts_ns;
        op.cat = (uint8_t)(e->cat == CAT_OPERATOR ? GD_CPU_OPERATOR
                           : e->cat == CAT_USER_ANNOT ? GD_CPU_USER_ANNOT
                           : e->cat == CAT_GPU_ANNOT ? GD_CPU_GPU_ANNOT
                           : e->cat == CAT_PYTHON ? GD_CPU_PYTHON : GD_CPU_PYFUNC);
        /* Role as the TensorBoard plugin assigns it (event_parser.py:_parse_step);
         * gpu_user_annotation maps to user_annotation there. */
        if (e->cat == CAT_PYFUNC) {
            op.role = GD_CR_NONE;
        } else if (e->cat == CAT_GPU_ANNOT && !comm_op_kind(name, nlen)) {
            /* Deviation from TBP (docs/DEFINITIONS.md): a gpu_user_annotation is
             * the device-side copy of a host annotation, not CPU work, so it is
             * not CPU Exec. */
            op.role = GD_CR_NONE;
        } else if (e->cat != CAT_PYTHON &&
                   ((gd_starts_with(name, nlen, "enumerate(DataLoader)#") && gd_ends_with(name, nlen, ".__next__")) ||
                    gd_starts_with(name, nlen, "enumerate(DataPipe)#"))) {
            op.role = GD_CR_DATALOADER;
        } else {
            int ck = comm_op_kind(name, nlen);
            if (ck) {
                op.role = GD_CR_COMM;
                if (ck == 1)
                    t->has_nccl_ops = 1;
                else
                    t->has_gloo_ops = 1;
                if (e->has_ext && !gd_vec_push(&t->comm_ext_ids, &e->external_id))
                    return -1;
            } else {
                op.role = GD_CR_CPU_EXEC;
            }
        }
        uint32_t nid = gd_strtab_intern(&t->names, name, nlen);
        if (nid == UINT32_MAX || gd_trace_push_cpu_op(t, &op, nid, e->dur_ns) != 0)
            return -1;
        if (e->cat != CAT_GPU_ANNOT && e->cat != CAT_PYFUNC &&
            gd_trace_note_comm_call(t, name, nlen, e->coll, e->ts_ns, e->dur_ns, e->has_ext ? e->external_id : -1,
                                    (int32_t)(e->has_tid ? e->tid : 0)) != 0)
            return -1;
        if (e->cat == CAT_OPERATOR && (e->has_flops || p->shapes.n_in > 0)) {
            /* FLOPs of the op for the roofline (docs/DEFINITIONS.md "Roofline of the kernels") */
            gd_op_flops of;
            memset(&of, 0, sizeof of);
            int elt = GD_ELT_UNKNOWN;
            int counted = gd_op_flops_from_shapes(name, nlen, &p->shapes, &of.flops, &of.bytes, &elt);
            if (e->has_flops) {
                if (!counted) {
                    of.bytes = NAN;
                    elt = p->shapes.n_types > 0 ? p->shapes.type[0] : GD_ELT_UNKNOWN;
                }
                of.flops = e->flops; /* the profiler's own count wins */
                of.source = GD_OPF_FLOPS_ARG;
            } else {
                of.source = GD_OPF_SHAPES;
            }
            if (counted || e->has_flops) {
                of.external_id = e->has_ext ? e->external_id : -1;
                of.ts_ns = e->ts_ns;
                of.dur_ns = e->dur_ns;
                of.tid = (int32_t)(e->has_tid ? e->tid : 0);
                of.elt = (uint8_t)elt;
                if (!gd_vec_push(&t->op_flops, &of))
                    return -1;
            }
        }
        return 0;
    }
    default:
        t->ignored_events++;
        return 0;
    }
}

/* ---- yajl callbacks ---------------------------------------------------- */

static int cur_ctx(const parser *p)
{
    if (p->overflow_depth > 0 || p->depth == 0)
        return p->depth == 0 ? -1 : CTX_IGNORE;
    return p->ctx[p->depth - 1];
}

static int open_container(parser *p, int is_map)
{
    int parent = cur_ctx(p);
    int child = CTX_IGNORE;
    if (parent == -1) {
        /* the document itself: an object, or a bare array of events */
        child = is_map ? CTX_ROOT : CTX_EVENTS;
    } else if (parent == CTX_ROOT) {
        if (p->key == K_TRACE_EVENTS && !is_map)
            child = CTX_EVENTS;
        else if (p->key == K_DEVICE_PROPS && !is_map)
            child = CTX_DEVPROPS;
        else if (p->key == K_DIST_INFO && is_map)
            child = CTX_DISTINFO;
    } else if (parent == CTX_EVENTS && is_map) {
        child = CTX_EVENT;
        memset(&p->ev, 0, sizeof p->ev);
        p->ev.cat = CAT_UNKNOWN;
        p->shapes.n_in = p->shapes.n_types = 0;
        p->dim_in = -1;
    } else if (parent == CTX_EVENT && p->key == K_ARGS && is_map) {
        child = CTX_ARGS;
    } else if (parent == CTX_ARGS && !is_map && (p->key == K_INPUT_DIMS || p->key == K_INPUT_TYPE)) {
        child = p->key == K_INPUT_DIMS ? CTX_DIMS : CTX_TYPES;
        if (child == CTX_DIMS)
            p->shapes.n_in = 0;
        else
            p->shapes.n_types = 0;
    } else if (parent == CTX_DIMS && !is_map) {
        child = CTX_DIM;
        int i = p->shapes.n_in++;
        p->dim_in = i < GD_OPF_MAX_IN ? i : -1;
        if (p->dim_in >= 0)
            p->shapes.rank[i] = 0;
    } else if (parent == CTX_DEVPROPS && is_map) {
        child = CTX_DEVPROP;
        memset(&p->dp, 0, sizeof p->dp);
        p->dp.compute_major = p->dp.compute_minor = -1;
        p->dp.total_mem_bytes = NAN;
        p->dp_has_id = 0;
    }
    p->key = K_NONE;
    if (child == CTX_EVENTS) {
        p->in_events = 1;
        p->saw_events = 1;
        p->events_depth = p->depth + 1;
        if (p->fast_allowed) {
            /* stop yajl right after the '[': simdjson takes the events */
            p->ctx[p->depth++] = (uint8_t)child;
            p->want_fast = 1;
            return 0;
        }
    }
    if (p->depth >= GD_MAX_DEPTH) {
        p->overflow_depth++;
        if (p->overflow_depth > 1000000)
            return 0;
        return 1;
    }
    p->ctx[p->depth++] = (uint8_t)child;
    return 1;
}

static int close_container(parser *p)
{
    if (p->overflow_depth > 0) {
        p->overflow_depth--;
        return 1;
    }
    if (p->depth == 0)
        return 1;
    int c = p->ctx[--p->depth];
    p->key = K_NONE;
    if (c == CTX_DIM)
        p->dim_in = -1;
    if (c == CTX_EVENT) {
        if (commit_event(p) != 0) {
            p->oom = 1;
            return 0;
        }
    } else if (c == CTX_EVENTS) {
        p->in_events = 0;
        p->events_closed = 1;
    } else if (c == CTX_DISTINFO && p->header_only) {
        p->header_done = 1; /* the rank is known: stop yajl here */
        return 0;
    } else if (c == CTX_DEVPROP) {
        if (p->dp_has_id && !gd_vec_push(&p->t->devices, &p->dp)) {
            p->oom = 1;
            return 0;
        }
    }
    if (p->depth == 0) {
        p->doc_closed = 1; /* the top-level value is complete: stop yajl, look at what follows */
        return 0;
    }
    return 1;
}

static int cb_start_map(void *ctx) { return open_container(ctx, 1); }
static int cb_end_map(void *ctx) { return close_container(ctx); }
static int cb_start_array(void *ctx) { return open_container(ctx, 0); }
static int cb_end_array(void *ctx) { return close_container(ctx); }

static int cb_map_key(void *ctx, const unsigned char *k, size_t len)
{
    parser *p = ctx;
    int c = cur_ctx(p);
    p->key = (c == CTX_IGNORE || c < 0) ? K_NONE : key_for(c, (const char *)k, len);
    return 1;
}

static int cb_null(void *ctx)
{
    ((parser *)ctx)->key = K_NONE;
    return 1;
}

static int cb_boolean(void *ctx, int b)
{
    (void)b;
    ((parser *)ctx)->key = K_NONE;
    return 1;
}

static int cb_number(void *ctx, const char *s, size_t len)
{
    parser *p = ctx;
    int key = p->key;
    p->key = K_NONE;
    ev_scratch *e = &p->ev;
    int64_t v;
    double d;
    int had_frac = 0;
    if (key == K_NONE && p->dim_in >= 0 && cur_ctx(p) == CTX_DIM) {
        int i = p->dim_in, r = p->shapes.rank[i]++;
        if (r < GD_OPF_MAX_RANK && parse_int64(s, len, &v) == 0)
            p->shapes.dim[i][r] = v;
        else if (r < GD_OPF_MAX_RANK)
            p->shapes.dim[i][r] = -1; /* not an integer: the shape is not used */
        return 1;
    }
    switch (key) {
    case K_TS:
        if (parse_us_to_ns(s, len, &e->ts_ns, &had_frac) == 0) {
            e->has_ts = 1;
            e->ts_at1 = value_at1(p, s);
            if (had_frac)
                p->t->ts_is_float = 1;
        } else {
            e->ts_bad = 1;
        }
        break;
    case K_DUR:
        if (parse_us_to_ns(s, len, &e->dur_ns, &had_frac) == 0)
            e->has_dur = 1;
        else
            e->dur_bad = 1;
        break;
    case K_PID:
        if (parse_int64(s, len, &v) == 0) {
            e->pid = v;
            e->has_pid = 1;
        }
        break;
    case K_TID:
        if (parse_int64(s, len, &v) == 0) {
            e->tid = v < 0 ? -v : v;
            e->has_tid = 1;
        }
        break;
    case K_CORRELATION:
        if (parse_int64(s, len, &v) == 0) {
            e->correlation = v;
            e->has_corr = 1;
        }
        break;
    case K_EXTERNAL_ID:
        if (parse_int64(s, len, &v) == 0) {
            e->external_id = v;
            e->has_ext = 1;
        }
        break;
    case K_DEVICE:
        if (parse_int64(s, len, &v) == 0 && v >= INT32_MIN && v <= INT32_MAX) {
            e->device = v;
            e->has_device = 1;
        }
        break;
    case K_STREAM:
        if (parse_int64(s, len, &v) == 0 && v >= INT32_MIN && v <= INT32_MAX) {
            e->stream = v;
            e->has_stream = 1;
        }
        break;
    case K_BYTES:
        if (parse_int64(s, len, &v) == 0 && v >= 0) {
            e->bytes = v;
            e->has_bytes = 1;
        }
        break;
    case K_BPS:
        if (parse_double(s, len, &d) == 0) {
            e->bps = d;
            e->has_bps = 1;
        }
        break;
    case K_OCC:
        if (parse_double(s, len, &d) == 0) {
            e->occ = d;
            e->has_occ = 1;
        }
        break;
    case K_FLOPS:
        if (parse_double(s, len, &d) == 0 && d > 0 && isfinite(d)) {
            e->flops = d;
            e->has_flops = 1;
        }
        break;
    case K_BASE_TIME:
        if (parse_int64(s, len, &v) == 0)
            p->t->base_time_ns = v;
        break;
    case K_DP_ID:
        if (parse_int64(s, len, &v) == 0 && v >= 0 && v < 1 << 20) {
            p->dp.id = (int)v;
            p->dp_has_id = 1;
        }
        break;
    case K_DP_MEM:
        if (parse_double(s, len, &d) == 0)
            p->dp.total_mem_bytes = d;
        break;
    case K_DP_MAJOR:
        if (parse_int64(s, len, &v) == 0 && v >= 0 && v < 1000)
            p->dp.compute_major = (int)v;
        break;
    case K_DP_MINOR:
        if (parse_int64(s, len, &v) == 0 && v >= 0 && v < 1000)
            p->dp.compute_minor = (int)v;
        break;
    case K_DP_SMS:
        if (parse_int64(s, len, &v) == 0 && v > 0 && v < 1 << 20)
            p->dp.num_sms = (int)v;
        break;
    case K_DP_WARP:
        if (parse_int64(s, len, &v) == 0 && v > 0 && v < 1024)
            p->dp.warp_size = (int)v;
        break;
    case K_DP_MAXTHR:
        if (parse_int64(s, len, &v) == 0 && v > 0 && v < 1 << 20)
            p->dp.max_threads_per_sm = (int)v;
        break;
    case K_RANK:
        if (parse_int64(s, len, &v) == 0 && v >= 0 && v <= INT32_MAX)
            p->t->rank = (int)v;
        break;
    case K_WORLD:
        if (parse_int64(s, len, &v) == 0 && v >= 0 && v <= INT32_MAX)
            p->t->world_size = (int)v;
        break;
    default:
        break;
    }
    return 1;
}

static int cb_string(void *ctx, const unsigned char *us, size_t len)
{
    parser *p = ctx;
    const char *s = (const char *)us;
    int key = p->key;
    p->key = K_NONE;
    ev_scratch *e = &p->ev;
    int64_t v;
    if (key == K_NONE && cur_ctx(p) == CTX_TYPES) {
        int i = p->shapes.n_types++;
        if (i < GD_OPF_MAX_IN)
            p->shapes.type[i] = (uint8_t)gd_elt_from_name(s, len);
        return 1;
    }
    switch (key) {
    case K_PH:
        e->ph = len == 1 ? s[0] : '?';
        break;
    case K_CAT:
        e->cat = cat_for(s, len);
        e->has_cat = 1;
        if (e->cat == CAT_OTHER) {
            e->cat_len = len < GD_OTHER_CAT_NAME - 1 ? len : GD_OTHER_CAT_NAME - 1;
            memcpy(e->cat_name, s, e->cat_len);
        }
        break;
    case K_NAME: {
        size_t n = len < GD_NAME_CAP ? len : GD_NAME_CAP;
        memcpy(p->name, s, n);
        p->name[n] = '\0';
        e->name_len = n;
        break;
    }
    case K_PID:
        if (digits_in_string(s, len, &v) == 0) {
            e->pid = v;
            e->has_pid = 1;
        } else if (gd_ieq(s, len, "cpu functions")) {
            e->legacy_pid = LEGACY_CPU;
        } else if (gd_ieq(s, len, "cuda functions")) {
            e->legacy_pid = LEGACY_CUDA;
        }
        break;
    case K_TID:
        if (digits_in_string(s, len, &v) == 0) {
            e->tid = v;
            e->has_tid = 1;
        }
        break;
    case K_TS:
    case K_DUR: {
        /* some writers quote numbers */
        int64_t ns;
        int had_frac = 0;
        if (parse_us_to_ns(s, len, &ns, &had_frac) == 0) {
            if (key == K_TS) {
                e->ts_ns = ns;
                e->has_ts = 1;
                e->ts_at1 = value_at1(p, s);
            } else {
                e->dur_ns = ns;
                e->has_dur = 1;
            }
        }
        break;
    }
    case K_STREAM:
        if (digits_in_string(s, len, &v) == 0 && v >= INT32_MIN && v <= INT32_MAX) {
            e->stream = v;
            e->has_stream = 1;
        }
        break;
    case K_COLL_NAME: {
        int k = gd_coll_kind_from_text(s, len);
        e->coll = k < 0 ? 0 : k + 1;
        break;
    }
    case K_DP_NAME: {
        size_t n = len < sizeof p->dp.name - 1 ? len : sizeof p->dp.name - 1;
        memcpy(p->dp.name, s, n);
        p->dp.name[n] = '\0';
        break;
    }
    default:
        break;
    }
    return 1;
}

static const yajl_callbacks callbacks = {
    cb_null, cb_boolean, NULL, NULL, cb_number, cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};

/* ---- driver ------------------------------------------------------------ */

static yajl_handle new_handle(parser *p)
{
    static yajl_alloc_funcs afs = {gd_yajl_malloc, gd_yajl_realloc, gd_yajl_free, NULL};
    yajl_handle h = yajl_alloc(&callbacks, &afs, p);
    if (!h)
        return NULL;
    yajl_config(h, yajl_dont_validate_strings, 1);
    yajl_config(h, yajl_allow_trailing_garbage, 1);
    return h;
}

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

typedef struct reader {
    parser p;
    gd_input in;
    const char *path;
    gpudiag_error *err;
    gpudiag_status st;
    unsigned char *alloc;   /* 1 byte of slack + GD_BUF_CAP + padding */
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
    void (*progress)(void *ctx, uint64_t done_bytes, uint64_t total_bytes);
    void *progress_ctx;
    uint64_t total_bytes;   /* the file's size for progress, 0 if unknown */
#ifdef GPUDIAG_HAVE_SIMDJSON
    gd_sj *sj;
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

/* Move unread bytes to the front and read more; sets eof at the end of input. */
static int fill(reader *r)
{
    if (r->beg > 0) {
        memmove(r->data, r->data + r->beg, r->end - r->beg);
        r->base += r->beg;
        r->end -= r->beg;
        r->beg = 0;
    }
    while (!r->eof && r->end < GD_BUF_CAP) {
        size_t want = GD_BUF_CAP - r->end;
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
                        "%s (compressed byte %llu); the .gz file is corrupt", r->in.message,
                        (unsigned long long)r->in.file_bytes);
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
    if (r->progress)
        r->progress(r->progress_ctx, r->in.file_bytes, r->total_bytes);
    return 0;
}

static int new_yajl(reader *r, int in_events, int events_closed)
{
    if (r->p.h)
        yajl_free(r->p.h);
    r->p.h = new_handle(&r->p);
    if (!r->p.h) {
        reader_fail(r, GPUDIAG_ERR_NOMEM, -1, "%s", "out of memory");
        return -1;
    }
    if (!in_events)
        return 0;
    /* a synthetic prefix puts the fresh parser inside (or just after) traceEvents */
    static const unsigned char open_prefix[] = "{\"traceEvents\":[";
    static const unsigned char closed_prefix[] = "{\"traceEvents\":[]";
    r->p.depth = 0;
    r->p.overflow_depth = 0;
    r->p.key = K_NONE;
    r->p.in_events = 0;
    int fa = r->p.fast_allowed;
    r->p.fast_allowed = 0;
    yajl_status ys = events_closed ? yajl_parse(r->p.h, closed_prefix, sizeof closed_prefix - 1)
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
    if (i < n && d[i] == '#')
        return " (this looks like a monitoring log, e.g. nvidia-smi dmon, dcgmi dmon or Prometheus text, not a "
               "trace: `gpudiag analyze FILE` reads it as one; from standard input say which with "
               "`--format dmon|dcgmi|prom`)";
    /* cppcheck-suppress knownConditionTrueFalse ; false positive: i < n says nothing of n - i */
    if (n - i >= 10 && (memcmp(d + i, "timestamp,", 10) == 0 || memcmp(d + i, "index,", 6) == 0 ||
                        memcmp(d + i, "name,", 5) == 0))
        return " (this looks like nvidia-smi --query-gpu CSV, not a trace: `gpudiag analyze FILE` reads it as "
               "one; from standard input add `--format smi-csv`)";
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
static int sj_start_map(void *ctx) { return open_container(ctx, 1); }
static int sj_end_map(void *ctx) { return close_container(ctx); }
static int sj_key(void *ctx, const char *k, size_t len)
{
    parser *p = ctx;
    cb_map_key(ctx, (const unsigned char *)k, len);
    return p->key != K_NONE;
}
static int sj_string(void *ctx, const char *s, size_t len) { return cb_string(ctx, (const unsigned char *)s, len); }
/* Index of the first non-digit at or after i. */
static size_t skip_digits(const char *s, size_t i, size_t len)
{
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++;
    return i;
}

/* 1 if s[0..len) is a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int json_number_ok(const char *s, size_t len)
{
    size_t i = 0;
    if (i < len && s[i] == '-')
        i++;
    if (i >= len)
        return 0;
    if (s[i] == '0')
        i++;
    else if (s[i] >= '1' && s[i] <= '9')
        i = skip_digits(s, i, len);
    else
        return 0;
    if (i < len && s[i] == '.') {
        size_t d = i + 1;
        i = skip_digits(s, d, len);
        if (i == d)
            return 0;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t d = i;
        i = skip_digits(s, d, len);
        if (i == d)
            return 0;
    }
    return i == len;
}

static int sj_number(void *ctx, const char *s, size_t len)
{
    if (!json_number_ok(s, len))
        return -1;
    return cb_number(ctx, s, len);
}
static void sj_reset(void *ctx)
{
    parser *p = ctx;
    p->depth = p->events_depth; /* back in traceEvents */
    p->dim_in = -1;
    p->overflow_depth = 0;
    p->key = K_NONE;
}
static int sj_start_array(void *ctx) { return open_container(ctx, 0); }
static int sj_end_array(void *ctx) { return close_container(ctx); }
static const gd_sj_cb sj_callbacks = {sj_start_map, sj_end_map, sj_key,         sj_string,
                                      sj_number,    sj_reset,   sj_start_array, sj_end_array};

/* 1 if another event starts in data[from..to), by the rule of find_event_start(). */
static int another_event_after(const unsigned char *d, size_t from, size_t to)
{
    unsigned char prev = 0;
    return find_event_start(d, &from, to, 1, &prev) == 1;
}

/* The events array through simdjson.  Returns 0 when the array closed (yajl
 * takes the tail), 1 to hand the rest to yajl (broken or unusual input),
 * -1 on a fatal error. */
static int sj_consume(reader *r)
{
    for (;;) {
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
        int res = gd_sj_events(r->sj, r->data + r->beg, cut - r->beg, &sj_callbacks, &r->p, &consumed);
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
    p->t = gd_trace_new(path);
    p->name = malloc(GD_NAME_CAP + 1);
    r->alloc = malloc(1 + GD_BUF_CAP + GD_SJ_PADDING_BYTES);
    if (!p->t || !p->name || !r->alloc) {
        reader_fail(r, GPUDIAG_ERR_NOMEM, -1, "%s", "out of memory");
        goto done;
    }
    r->data = r->alloc + 1;
    p->buf_data = r->data;
    p->buf_end = &r->end;
    p->buf_base = &r->base;
    p->ts_hi_bar = INT64_MIN; /* no bar until the first selection */
    p->ts_lo_bar = INT64_MAX;
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
    if (new_yajl(r, 0, 0) != 0)
        goto done;

    int mode = 0; /* 0: yajl, 1: simdjson over the events */
    int mode_bare_array_done = 0; /* simdjson closed a bare array of events: the document is complete */
    for (;;) {
        if (mode == 0) {
            int rc = yajl_consume(r);
            if (rc < 0)
                goto done;
            if (rc == 1) {
                mode = 1;
                continue;
            }
            if (r->ended || r->eof)
                break;
            if (fill(r) != 0)
                goto done;
            continue;
        }
#ifdef GPUDIAG_HAVE_SIMDJSON
        int rc = sj_consume(r);
        if (rc < 0)
            goto done;
        if (rc == 2) {
            r->ended = 1; /* the document was a bare array of events: nothing follows */
            mode_bare_array_done = 1;
            break;
        }
        /* yajl takes over: after the array (tail) or inside it (fallback) */
        p->fast_allowed = 0;
        if (new_yajl(r, 1, rc == 0) != 0)
            goto done;
        if (rc == 0)
            p->in_events = 0;
        mode = 0;
#else
        mode = 0;
#endif
    }
    /* The document ended before the input: read the rest through unparsed,
     * so that a gzip member's CRC and length are still checked (a flipped
     * bit near the end can leave the JSON whole but the stream corrupt:
     * found by tests/unit/test_cuts.c).  Not after a header-only stop: the
     * point is not to read the rest. */
    for (;;) {
        if (p->doc_closed || mode_bare_array_done) {
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
            goto done;
    }
    p->t->bytes = r->base + r->end;
    if (p->header_done) {
        p->t->header_only = 1;
        *out = p->t;
        p->t = NULL;
        goto done;
    }

    if (!r->ended && !p->t->truncated) {
        uint64_t total = r->base + r->end;
        if (r->resync) {
            if (!p->saw_events) {
                reader_fail(r, GPUDIAG_ERR_FORMAT, r->first_error_at, "not a trace: %s", r->first_error);
                goto done;
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
                    goto done;
                }
                if (!p->events_closed || p->depth > 0) {
                    p->t->truncated = 1;
                    p->t->truncated_at = (int64_t)total;
                    snprintf(p->t->truncation_reason, sizeof p->t->truncation_reason,
                             "the JSON ends before the trace closes (the profiler did not finish writing)");
                }
            }
        }
    }
    if (!p->saw_events) {
        if (p->t->truncated)
            reader_fail(r, GPUDIAG_ERR_FORMAT, p->t->truncated_at, "not a trace: %s", p->t->truncation_reason);
        else
            reader_fail(r, GPUDIAG_ERR_FORMAT, 0, "%s",
                        "not a trace: no \"traceEvents\" array (expected a PyTorch profiler / Chrome trace)");
        goto done;
    }
    if (p->t->events == 0 && !p->t->truncated && r->first_error_at < 0) {
        reader_fail(r, GPUDIAG_ERR_FORMAT, 0, "%s", "the trace holds no events (\"traceEvents\" has no event objects)");
        goto done;
    }
    if (p->t->events == 0 && (p->t->truncated || r->first_error_at >= 0)) {
        if (r->first_error_at >= 0)
            reader_fail(r, GPUDIAG_ERR_FORMAT, r->first_error_at, "no readable event: %s", r->first_error);
        else
            reader_fail(r, GPUDIAG_ERR_FORMAT, p->t->truncated_at, "the trace ends before its first complete event (%s)",
                        p->t->truncation_reason);
        goto done;
    }
    if (p->t->events > 0 && p->t->events_with_ph == 0) {
        /* DEFINITIONS "Time and events": every trace event has a phase */
        reader_fail(r, GPUDIAG_ERR_FORMAT, 0,
                    "not a trace: none of the %llu objects in the event array has a \"ph\" (event phase) field, "
                    "which every Chrome/Kineto trace event has (a GPU status snapshot such as `nvtop -s` output "
                    "is not a profiler trace)",
                    (unsigned long long)p->t->events);
        goto done;
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

done:;
    gpudiag_status st = r->st;
    if (p->h)
        yajl_free(p->h);
#ifdef GPUDIAG_HAVE_SIMDJSON
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

