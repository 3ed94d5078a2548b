/*
 * kineto_sax.c — the Kineto reader's SAX state machine (kineto_int.h).
 *
 * A context stack indexed by nesting depth routes each value that yajl (or
 * the simdjson shim, replaying the same callbacks) reports to the field of
 * the event being built; at the end of each event object the event is
 * committed (kineto_event.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ingest/kineto_int.h"
#include "model/collective.h"
#include "util/util.h"


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
            if (KEYIS("Bytes")) return K_MEM_BYTES;
            if (KEYIS("dtype")) return K_DTYPE;
            return K_NONE;
        case 6:
            if (KEYIS("device")) return K_DEVICE;
            if (KEYIS("stream")) return K_STREAM;
            return K_NONE;
        case 9:
            if (KEYIS("Device Id")) return K_MEM_DEV_ID;
            return K_NONE;
        case 10:
            if (KEYIS("Input Dims")) return K_INPUT_DIMS;
            if (KEYIS("Input type")) return K_INPUT_TYPE;
            if (KEYIS("Group size")) return K_GROUP_SIZE;
            return K_NONE;
        case 11:
            if (KEYIS("correlation")) return K_CORRELATION;
            if (KEYIS("External id") || KEYIS("external id")) return K_EXTERNAL_ID;
            if (KEYIS("Device Type")) return K_MEM_DEV_TYPE;
            return K_NONE;
        case 13:
            if (KEYIS("blocks per SM")) return K_BPS;
            if (KEYIS("In msg nelems")) return K_IN_NELEMS;
            return K_NONE;
        case 14:
            if (KEYIS("Total Reserved")) return K_MEM_TOTAL_RES;
            if (KEYIS("Out msg nelems")) return K_OUT_NELEMS;
            return K_NONE;
        case 15:
            if (KEYIS("Collective name") || KEYIS("collective_name")) return K_COLL_NAME;
            if (KEYIS("Total Allocated")) return K_MEM_TOTAL_ALLOC;
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
    if (gd_ieq(s, len, "overhead"))
        return CAT_OVERHEAD; /* CUPTI overhead records; the profiler's own are kept (DEFINITIONS) */
    if (gd_ieq(s, len, "cuda_profiler_range"))
        return CAT_PROFILER_RANGE; /* CUPTI range-profiler counters: times not measured (DEFINITIONS) */
    return CAT_OTHER;
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

/* ---- yajl callbacks ---------------------------------------------------- */

/* The byte offset where the token yajl has just read began, tok bytes long (0: a string, found
 * by looking back for its opening quote), or the start of yajl's current chunk when the token
 * began before it; -1 when unknown (not the serial reader's yajl). */
static int64_t token_start(const parser *p, size_t tok)
{
    if (!p->h || !p->buf_beg || !p->buf_data || !p->buf_base)
        return -1;
    size_t c = yajl_get_bytes_consumed(p->h), beg = *p->buf_beg;
    if (c > *p->buf_end - beg)
        return -1;
    if (tok == 0 && c >= 2) { /* a string: back from its closing quote to an unescaped '"' */
        const unsigned char *d = p->buf_data + beg;
        for (size_t i = c - 1; i-- > 0;) {
            size_t bs = 0;
            while (bs < i && d[i - 1 - bs] == '\\')
                bs++;
            if (d[i] == '"' && bs % 2 == 0)
                return (int64_t)(*p->buf_base + beg + i);
        }
        tok = c + 1;
    }
    return (int64_t)(*p->buf_base + beg + (tok <= c ? c - tok : 0));
}

/* An element of the event array that is not an object (what: "a number", ...; tok as
 * token_start): not an event, counted as a malformed one (DEFINITIONS "Time and events"). */
static void junk_element(parser *p, const char *what, size_t tok)
{
    if (p->junk++ == 0) {
        p->junk_at = token_start(p, tok);
        snprintf(p->junk_what, sizeof p->junk_what, "an element of the event array that is not an event object: %s",
                 what);
    }
}

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
    } else if (parent == CTX_EVENTS && !is_map) {
        junk_element(p, "an array", 1);
    } else if (parent == CTX_EVENTS && is_map) {
        child = CTX_EVENT;
        gd_kt_ev_clear(&p->ev);
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
#ifdef GPUDIAG_HAVE_SIMDJSON
        if ((p->rec ? gd_kt_record_event(p) : gd_kt_commit_event(p, &p->ev, p->name, &p->shapes)) != 0) {
#else
        if (gd_kt_commit_event(p, &p->ev, p->name, &p->shapes) != 0) {
#endif
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
    parser *p = ctx;
    if (cur_ctx(p) == CTX_EVENTS)
        junk_element(p, "null", 4);
    p->key = K_NONE;
    return 1;
}

static int cb_boolean(void *ctx, int b)
{
    parser *p = ctx;
    if (cur_ctx(p) == CTX_EVENTS)
        junk_element(p, b ? "true" : "false", b ? 4 : 5);
    p->key = K_NONE;
    return 1;
}

/* An argument of a `[memory]` event: integers (sizes may be negative: a free);
 * a value that is not one marks the event broken (mem_bad). */
static void mem_arg(ev_scratch *e, int key, const char *s, size_t len)
{
    int64_t v;
    if (gd_kt_parse_int64(s, len, &v) != 0) {
        e->mem_bad = 1;
        return;
    }
    switch (key) {
    case K_MEM_BYTES:
        e->mem_bytes = v;
        break;
    case K_MEM_DEV_ID:
        e->mem_dev_id = v;
        e->has_mem_dev_id = 1;
        break;
    case K_MEM_DEV_TYPE:
        e->mem_dev_type = v;
        e->has_mem_dev_type = 1;
        break;
    case K_MEM_TOTAL_ALLOC:
        e->mem_total_alloc = v >= 0 && v < INT64_MAX ? v + 1 : 0;
        e->mem_bad |= !(v >= 0 && v < INT64_MAX);
        break;
    default: /* K_MEM_TOTAL_RES */
        e->mem_total_res = v >= 0 && v < INT64_MAX ? v + 1 : 0;
        e->mem_bad |= !(v >= 0 && v < INT64_MAX);
        break;
    }
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
    if (key == K_NONE && cur_ctx(p) == CTX_EVENTS) {
        junk_element(p, "a number", len);
        return 1;
    }
    if (key == K_NONE && p->dim_in >= 0 && cur_ctx(p) == CTX_DIM) {
        int i = p->dim_in, r = p->shapes.rank[i]++;
        if (r < GD_OPF_MAX_RANK && gd_kt_parse_int64(s, len, &v) == 0)
            p->shapes.dim[i][r] = v;
        else if (r < GD_OPF_MAX_RANK)
            p->shapes.dim[i][r] = -1; /* not an integer: the shape is not used */
        return 1;
    }
    switch (key) {
    case K_TS:
        if (gd_kt_parse_us_to_ns(s, len, &e->ts_ns, &had_frac) == 0) {
            e->has_ts = 1;
            e->ts_at1 = value_at1(p, s);
            if (had_frac)
                *p->ts_float_at = 1;
        } else {
            e->ts_bad = 1;
        }
        break;
    case K_DUR:
        if (gd_kt_parse_us_to_ns(s, len, &e->dur_ns, &had_frac) == 0)
            e->has_dur = 1;
        else
            e->dur_bad = 1;
        break;
    case K_PID:
        if (gd_kt_parse_int64(s, len, &v) == 0) {
            e->pid = v;
            e->has_pid = 1;
        }
        break;
    case K_TID:
        if (gd_kt_parse_int64(s, len, &v) == 0) {
            e->tid = v < 0 ? -v : v;
            e->has_tid = 1;
        }
        break;
    case K_CORRELATION:
        if (gd_kt_parse_int64(s, len, &v) == 0) {
            e->correlation = v;
            e->has_corr = 1;
        }
        break;
    case K_EXTERNAL_ID:
        if (gd_kt_parse_int64(s, len, &v) == 0) {
            e->external_id = v;
            e->has_ext = 1;
        }
        break;
    case K_IN_NELEMS:
    case K_OUT_NELEMS:
        if (gd_kt_parse_int64(s, len, &v) == 0 && v >= 0 && v < INT64_MAX)
            *(key == K_IN_NELEMS ? &e->in_nelems1 : &e->out_nelems1) = v + 1;
        break;
    case K_GROUP_SIZE:
        if (gd_kt_parse_int64(s, len, &v) == 0 && v > 0 && v <= INT32_MAX)
            e->group_size = (int)v;
        break;
    case K_DEVICE:
        if (gd_kt_parse_int64(s, len, &v) == 0 && v >= INT32_MIN && v <= INT32_MAX) {
            e->device = v;
            e->has_device = 1;
        }
        break;
    case K_STREAM:
        if (gd_kt_parse_int64(s, len, &v) == 0 && v >= INT32_MIN && v <= INT32_MAX) {
            e->stream = v;
            e->has_stream = 1;
        }
        break;
    case K_BYTES:
        if (gd_kt_parse_int64(s, len, &v) == 0 && v >= 0) {
            e->bytes = v;
            e->has_bytes = 1;
        }
        break;
    case K_MEM_BYTES:
    case K_MEM_DEV_ID:
    case K_MEM_DEV_TYPE:
    case K_MEM_TOTAL_ALLOC:
    case K_MEM_TOTAL_RES:
        mem_arg(e, key, s, len);
        break;
    case K_BPS: { /* 0..2^63 (no grid has more blocks); -1 is Kineto's "SM count unknown" */
        int ok = gd_kt_parse_double(s, len, &d) == 0;
        if (ok && d >= 0 && d <= 0x1p63) {
            e->bps = d;
            e->has_bps = 1;
        } else if (!(ok && d == -1.0)) {
            e->kval_bad = 1;
        }
        break;
    }
    case K_OCC: /* a percentage */
        if (gd_kt_parse_double(s, len, &d) == 0 && d >= 0 && d <= 100) {
            e->occ = d;
            e->has_occ = 1;
        } else {
            e->kval_bad = 1;
        }
        break;
    case K_FLOPS:
        if (gd_kt_parse_double(s, len, &d) == 0 && d > 0 && isfinite(d)) {
            e->flops = d;
            e->has_flops = 1;
        }
        break;
    case K_BASE_TIME:
        if (gd_kt_parse_int64(s, len, &v) == 0)
            p->t->base_time_ns = v;
        break;
    case K_DP_ID:
        if (gd_kt_parse_int64(s, len, &v) == 0 && v >= 0 && v < 1 << 20) {
            p->dp.id = (int)v;
            p->dp_has_id = 1;
        }
        break;
    case K_DP_MEM:
        if (gd_kt_parse_double(s, len, &d) == 0)
            p->dp.total_mem_bytes = d;
        break;
    case K_DP_MAJOR:
        if (gd_kt_parse_int64(s, len, &v) == 0 && v >= 0 && v < 1000)
            p->dp.compute_major = (int)v;
        break;
    case K_DP_MINOR:
        if (gd_kt_parse_int64(s, len, &v) == 0 && v >= 0 && v < 1000)
            p->dp.compute_minor = (int)v;
        break;
    case K_DP_SMS:
        if (gd_kt_parse_int64(s, len, &v) == 0 && v > 0 && v < 1 << 20)
            p->dp.num_sms = (int)v;
        break;
    case K_DP_WARP:
        if (gd_kt_parse_int64(s, len, &v) == 0 && v > 0 && v < 1024)
            p->dp.warp_size = (int)v;
        break;
    case K_DP_MAXTHR:
        if (gd_kt_parse_int64(s, len, &v) == 0 && v > 0 && v < 1 << 20)
            p->dp.max_threads_per_sm = (int)v;
        break;
    case K_RANK:
        if (gd_kt_parse_int64(s, len, &v) == 0 && v >= 0 && v <= INT32_MAX)
            p->t->rank = (int)v;
        break;
    case K_WORLD:
        if (gd_kt_parse_int64(s, len, &v) == 0 && v >= 0 && v <= INT32_MAX)
            p->t->world_size = (int)v;
        break;
    default:
        break;
    }
    return 1;
}

/* A name's bytes s[0..len) into dst, at most cap bytes, NUL-terminated (dst has cap + 1): an
 * embedded NUL ("\u0000" in the JSON) becomes U+FFFD, the replacement character (3 bytes; one
 * that does not fit ends the copy), so a name is not cut at it (DEFINITIONS "Time and events").
 * Returns the bytes written. */
static size_t copy_name(char *dst, size_t cap, const char *s, size_t len)
{
    if (!memchr(s, 0, len)) {
        size_t n = len < cap ? len : cap;
        memcpy(dst, s, n);
        dst[n] = '\0';
        return n;
    }
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i]) {
            if (n + 1 > cap)
                break;
            dst[n++] = s[i];
        } else {
            if (n + 3 > cap)
                break;
            memcpy(dst + n, "\xEF\xBF\xBD", 3);
            n += 3;
        }
    }
    dst[n] = '\0';
    return n;
}

static int cb_string(void *ctx, const unsigned char *us, size_t len)
{
    parser *p = ctx;
    const char *s = (const char *)us;
    int key = p->key;
    p->key = K_NONE;
    ev_scratch *e = &p->ev;
    int64_t v;
    if (key == K_NONE && cur_ctx(p) == CTX_EVENTS) {
        junk_element(p, "a string", 0);
        return 1;
    }
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
        if (e->cat == CAT_OTHER || e->cat == CAT_OVERHEAD) {
            char c[GD_OTHER_CAT_NAME];
            e->cat_len = copy_name(c, GD_OTHER_CAT_NAME - 1, s, len);
            memcpy(e->cat_name, c, e->cat_len);
        }
        break;
    case K_NAME:
        e->name_len = copy_name(p->name, GD_NAME_CAP, s, len);
        break;
    case K_PID:
        if (gd_kt_digits_in_string(s, len, &v) == 0) {
            e->pid = v;
            e->has_pid = 1;
        } else if (gd_ieq(s, len, "cpu functions")) {
            e->legacy_pid = LEGACY_CPU;
        } else if (gd_ieq(s, len, "cuda functions")) {
            e->legacy_pid = LEGACY_CUDA;
        }
        break;
    case K_TID:
        if (gd_kt_digits_in_string(s, len, &v) == 0) {
            e->tid = v;
            e->has_tid = 1;
        }
        break;
    case K_TS:
    case K_DUR: {
        /* some writers quote numbers */
        int64_t ns;
        int had_frac = 0;
        if (gd_kt_parse_us_to_ns(s, len, &ns, &had_frac) == 0) {
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
        if (gd_kt_digits_in_string(s, len, &v) == 0 && v >= INT32_MIN && v <= INT32_MAX) {
            e->stream = v;
            e->has_stream = 1;
        }
        break;
    case K_COLL_NAME: {
        int k = gd_coll_kind_from_text(s, len);
        e->coll = k < 0 ? 0 : k + 1;
        break;
    }
    case K_DTYPE:
        e->dtype_size = gd_coll_dtype_size(s, len);
        break;
    case K_DP_NAME:
        copy_name(p->dp.name, sizeof p->dp.name - 1, s, len);
        break;
    default:
        break;
    }
    return 1;
}

static const yajl_callbacks callbacks = {
    cb_null, cb_boolean, NULL, NULL, cb_number, cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};

yajl_handle gd_kt_new_handle(parser *p)
{
    static yajl_alloc_funcs afs = {gd_yajl_malloc, gd_yajl_realloc, gd_yajl_free, NULL};
    yajl_handle h = yajl_alloc(&callbacks, &afs, p);
    if (!h)
        return NULL;
    yajl_config(h, yajl_dont_validate_strings, 1);
    yajl_config(h, yajl_allow_trailing_garbage, 1);
    return h;
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

static int sj_number(void *ctx, const char *s, size_t len)
{
    if (!gd_kt_json_number_ok(s, len))
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
const gd_sj_cb gd_kt_sj_callbacks = {sj_start_map, sj_end_map, sj_key,         sj_string,
                                     sj_number,    sj_reset,   sj_start_array, sj_end_array};
#endif
