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
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "ingest/input.h"
#include "ingest/kineto.h"
#include "model/trace.h"
#include "util/util.h"

#define GD_WINDOW (1u << 20)
#define GD_MAX_DEPTH 4096
#define GD_NAME_CAP 8192

enum ctx {
    CTX_ROOT = 0,     /* the top-level object */
    CTX_EVENTS,       /* the traceEvents array */
    CTX_EVENT,        /* one event object */
    CTX_ARGS,         /* event.args */
    CTX_DEVPROPS,     /* deviceProperties array */
    CTX_DEVPROP,      /* one deviceProperties object */
    CTX_DISTINFO,     /* distributedInfo object */
    CTX_IGNORE
};

enum key {
    K_NONE = 0,
    /* root */
    K_TRACE_EVENTS, K_DEVICE_PROPS, K_DIST_INFO, K_BASE_TIME,
    /* event */
    K_PH, K_CAT, K_NAME, K_PID, K_TID, K_TS, K_DUR, K_ARGS,
    /* args */
    K_CORRELATION, K_EXTERNAL_ID, K_DEVICE, K_STREAM, K_BPS, K_OCC,
    /* device props */
    K_DP_ID, K_DP_NAME, K_DP_MEM, K_DP_MAJOR, K_DP_MINOR, K_DP_SMS, K_DP_WARP, K_DP_MAXTHR,
    /* distributed info */
    K_RANK, K_WORLD
};

enum cat {
    CAT_UNKNOWN = 0, CAT_OPERATOR, CAT_USER_ANNOT, CAT_GPU_ANNOT, CAT_PYTHON, CAT_PYFUNC,
    CAT_RUNTIME, CAT_DRIVER, CAT_KERNEL, CAT_MEMCPY, CAT_MEMSET, CAT_TRACE, CAT_OTHER
};

typedef struct ev_scratch {
    char ph;
    int cat;
    size_t name_len;
    int has_ts, has_dur, ts_bad, dur_bad;
    int64_t ts_ns, dur_ns;
    int has_pid, has_tid;
    int64_t pid, tid;
    int has_corr, has_ext, has_device, has_stream, has_bps, has_occ;
    int64_t correlation, external_id, device, stream;
    double bps, occ;
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
    char *name;           /* scratch for the event name */
    gd_device_prop dp;
    int dp_has_id;
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
    if (digits == 0)
        return -1;
    if (i < len) {
        /* a float where an integer was expected: take the integer part */
        if (s[i] != '.' && s[i] != 'e' && s[i] != 'E')
            return -1;
    }
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
        case 6:
            if (KEYIS("device")) return K_DEVICE;
            if (KEYIS("stream")) return K_STREAM;
            return K_NONE;
        case 11:
            if (KEYIS("correlation")) return K_CORRELATION;
            if (KEYIS("External id") || KEYIS("external id")) return K_EXTERNAL_ID;
            return K_NONE;
        case 13:
            if (KEYIS("blocks per SM")) return K_BPS;
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
        return CAT_KERNEL; /* kernels carrying CUPTI counters (HTA reads them as kernels) */
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

static int commit_event(parser *p)
{
    gpudiag_trace *t = p->t;
    ev_scratch *e = &p->ev;
    t->events++;
    if (e->ph != 'X') {
        t->ignored_events++;
        return 0;
    }
    if (e->cat == CAT_UNKNOWN || e->cat == CAT_OTHER) {
        t->ignored_events++;
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
        op.device = (int32_t)(e->has_device ? e->device : (e->has_pid ? e->pid : 0));
        op.stream = (int32_t)(e->has_stream ? e->stream : (e->has_tid ? e->tid : -1));
        op.correlation = e->has_corr ? e->correlation : -1;
        op.external_id = e->has_ext ? e->external_id : -1;
        if (e->has_corr)
            op.flags |= GD_GF_HAS_CORR;
        if (e->has_ext)
            op.flags |= GD_GF_HAS_EXT;
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
        rt.dur_ns = e->dur_ns;
        rt.correlation = e->has_corr ? e->correlation : -1;
        rt.external_id = e->has_ext ? e->external_id : 0;
        rt.tid = (int32_t)(e->has_tid ? e->tid : 0);
        rt.name_id = gd_strtab_intern(&t->names, name, nlen);
        if (rt.name_id == UINT32_MAX)
            return -1;
        rt.is_driver = (uint8_t)(e->cat == CAT_DRIVER);
        if (!t->is_amd && nlen > 3 && memcmp(name, "hip", 3) == 0)
            t->is_amd = 1;
        if (!gd_vec_push(&t->runtimes, &rt))
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
        op.dur_ns = e->dur_ns;
        op.tid = (int32_t)(e->has_tid ? e->tid : 0);
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
        op.name_id = gd_strtab_intern(&t->names, name, nlen);
        if (op.name_id == UINT32_MAX || !gd_vec_push(&t->cpu_ops, &op))
            return -1;
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
    } else if (parent == CTX_EVENT && p->key == K_ARGS && is_map) {
        child = CTX_ARGS;
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
    if (c == CTX_EVENT) {
        if (commit_event(p) != 0) {
            p->oom = 1;
            return 0;
        }
    } else if (c == CTX_EVENTS) {
        p->in_events = 0;
        p->events_closed = 1;
    } else if (c == CTX_DEVPROP) {
        if (p->dp_has_id && !gd_vec_push(&p->t->devices, &p->dp)) {
            p->oom = 1;
            return 0;
        }
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
    switch (key) {
    case K_TS:
        if (parse_us_to_ns(s, len, &e->ts_ns, &had_frac) == 0) {
            e->has_ts = 1;
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
    switch (key) {
    case K_PH:
        e->ph = len == 1 ? s[0] : '?';
        break;
    case K_CAT:
        e->cat = cat_for(s, len);
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
    yajl_handle h = yajl_alloc(&callbacks, NULL, p);
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

static gpudiag_trace *trace_new(const char *path)
{
    gpudiag_trace *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->path = gd_strdup(path);
    gd_strtab_init(&t->names);
    gd_vec_init(&t->gpu_ops, sizeof(gd_gpu_op));
    gd_vec_init(&t->runtimes, sizeof(gd_runtime));
    gd_vec_init(&t->cpu_ops, sizeof(gd_cpu_op));
    gd_vec_init(&t->host_steps, sizeof(gd_host_step));
    gd_vec_init(&t->comm_ext_ids, sizeof(int64_t));
    gd_vec_init(&t->devices, sizeof(gd_device_prop));
    t->rank = -1;
    t->world_size = -1;
    t->truncated_at = -1;
    t->first_error_at = -1;
    if (!t->path) {
        free(t);
        return NULL;
    }
    return t;
}

void gpudiag_trace_free(gpudiag_trace **tp)
{
    if (!tp || !*tp)
        return;
    gpudiag_trace *t = *tp;
    free(t->path);
    gd_strtab_free(&t->names);
    gd_vec_free(&t->gpu_ops);
    gd_vec_free(&t->runtimes);
    gd_vec_free(&t->cpu_ops);
    gd_vec_free(&t->host_steps);
    gd_vec_free(&t->comm_ext_ids);
    gd_vec_free(&t->devices);
    free(t);
    *tp = NULL;
}

/* Feed the synthetic prefix that puts a fresh parser inside traceEvents. */
static int resume_in_events(parser *p)
{
    static const unsigned char prefix[] = "{\"traceEvents\":[";
    p->depth = 0;
    p->overflow_depth = 0;
    p->key = K_NONE;
    p->in_events = 0;
    return yajl_parse(p->h, prefix, sizeof prefix - 1) == yajl_status_ok ? 0 : -1;
}

gpudiag_status gd_kineto_read(const char *path, gpudiag_trace **out, gpudiag_error *err)
{
    if (!path || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, path, -1, "no path or out pointer");
    *out = NULL;
    gd_input in;
    if (gd_input_open(&in, path) != 0)
        return gd_set_error(err, GPUDIAG_ERR_IO, path, -1, "cannot open: %s", in.message);

    parser p;
    memset(&p, 0, sizeof p);
    p.t = trace_new(path);
    p.name = malloc(GD_NAME_CAP + 1);
    unsigned char *buf = malloc(GD_WINDOW);
    gpudiag_status st = GPUDIAG_OK;
    if (!p.t || !p.name || !buf) {
        st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
        goto done;
    }
    p.h = new_handle(&p);
    if (!p.h) {
        st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
        goto done;
    }

    uint64_t base = 0;          /* decompressed offset of buf[0] */
    int resync = 0;             /* skipping bytes until the next event start */
    int rs_state = 0;           /* 0: want '\n'; 1: after '\n', skipping blanks */
    int64_t first_error_at = -1;
    char first_error[256] = "";
    int ended = 0;              /* stop reading (fatal in-stream problem) */
    gd_input_status ist = GD_IN_OK;

    while (!ended) {
        size_t got = 0;
        ist = gd_input_read(&in, buf, GD_WINDOW, &got);
        if (ist == GD_IN_IOERR) {
            st = gd_set_error(err, GPUDIAG_ERR_IO, path, (int64_t)base, "%s", in.message);
            goto done;
        }
        size_t pos = 0;
        while (pos < got) {
            if (resync) {
                /* find "\n[ \t]*{" */
                while (pos < got) {
                    unsigned char c = buf[pos];
                    if (rs_state == 0) {
                        if (c == '\n')
                            rs_state = 1;
                    } else if (c == '{') {
                        break;
                    } else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
                        rs_state = 0;
                    }
                    pos++;
                }
                if (pos >= got)
                    break;
                resync = 0;
                rs_state = 0;
                yajl_free(p.h);
                p.h = new_handle(&p);
                if (!p.h || resume_in_events(&p) != 0) {
                    st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, -1, "out of memory");
                    goto done;
                }
            }
            yajl_status ys = yajl_parse(p.h, buf + pos, got - pos);
            if (ys == yajl_status_ok) {
                pos = got;
                break;
            }
            size_t consumed = yajl_get_bytes_consumed(p.h);
            int64_t at = (int64_t)(base + pos + consumed);
            if (p.oom) {
                st = gd_set_error(err, GPUDIAG_ERR_NOMEM, path, at, "out of memory");
                goto done;
            }
            if (ys == yajl_status_client_canceled) {
                st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, at, "JSON nested too deeply");
                goto done;
            }
            char msg[256];
            describe_yajl_error(p.h, buf + pos, got - pos, msg, sizeof msg);
            if (first_error_at < 0) {
                first_error_at = at;
                snprintf(first_error, sizeof first_error, "%s", msg);
            }
            if (p.in_events) {
                /* drop the broken event and resume at the next one */
                p.t->skipped_malformed++;
                resync = 1;
                rs_state = 0;
                pos += consumed;
                if (consumed == 0)
                    pos++;
                continue;
            }
            if (!p.saw_events) {
                st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, at, "not a trace: %s", msg);
                goto done;
            }
            /* broken metadata after the events: keep what we have */
            ended = 1;
            break;
        }
        base += got;
        if (ist == GD_IN_EOF || ist == GD_IN_TRUNCATED || ist == GD_IN_CORRUPT) {
            if (ist != GD_IN_EOF) {
                if (!p.saw_events) {
                    st = gd_set_error(err, ist == GD_IN_CORRUPT ? GPUDIAG_ERR_FORMAT : GPUDIAG_ERR_FORMAT, path,
                                      (int64_t)base, "%s", in.message);
                    goto done;
                }
                p.t->truncated = 1;
                p.t->truncated_at = (int64_t)base;
                snprintf(p.t->truncation_reason, sizeof p.t->truncation_reason, "%s", in.message);
            }
            break;
        }
    }
    p.t->bytes = base;

    if (!ended && !p.t->truncated) {
        if (resync) {
            /* the file ended while we were skipping a broken event */
            if (!p.saw_events) {
                st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, first_error_at, "not a trace: %s", first_error);
                goto done;
            }
            p.t->truncated = 1;
            p.t->truncated_at = (int64_t)base;
            snprintf(p.t->truncation_reason, sizeof p.t->truncation_reason, "file ends inside a broken event");
        } else {
            yajl_status ys = yajl_complete_parse(p.h);
            if (ys != yajl_status_ok || p.depth > 0) {
                if (!p.saw_events) {
                    char msg[256] = "unexpected end of input";
                    if (ys != yajl_status_ok)
                        describe_yajl_error(p.h, NULL, 0, msg, sizeof msg);
                    st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, (int64_t)base, "not a trace: %s", msg);
                    goto done;
                }
                if (!p.events_closed || p.depth > 0) {
                    p.t->truncated = 1;
                    p.t->truncated_at = (int64_t)base;
                    snprintf(p.t->truncation_reason, sizeof p.t->truncation_reason,
                             "the JSON ends before the trace closes (the profiler did not finish writing)");
                }
            }
        }
    }
    if (!p.saw_events) {
        st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, 0,
                          "not a trace: no \"traceEvents\" array (expected a PyTorch profiler / Chrome trace)");
        goto done;
    }
    if (p.t->events == 0 && (p.t->truncated || first_error_at >= 0)) {
        if (first_error_at >= 0)
            st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, first_error_at, "no readable event: %s", first_error);
        else
            st = gd_set_error(err, GPUDIAG_ERR_FORMAT, path, p.t->truncated_at,
                              "the trace ends before its first complete event (%s)", p.t->truncation_reason);
        goto done;
    }
    if (first_error_at >= 0) {
        p.t->first_error_at = first_error_at;
        snprintf(p.t->first_error, sizeof p.t->first_error, "%s", first_error);
    }
    *out = p.t;
    p.t = NULL;

done:
    if (p.h)
        yajl_free(p.h);
    free(p.name);
    free(buf);
    gd_input_close(&in);
    if (p.t)
        gpudiag_trace_free(&p.t);
    return st;
}

gpudiag_status gpudiag_trace_read(const char *path, gpudiag_trace **out, gpudiag_error *err)
{
    return gd_kineto_read(path, out, err);
}
