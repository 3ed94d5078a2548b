/*
 * kineto_int.h — private to the Kineto reader (src/ingest/kineto*.c): the
 * parser state shared by its three parts.
 *
 *   kineto_num.c    number parsing: JSON numbers as exact int64 ns, integers, doubles
 *   kineto_sax.c    the SAX state machine: yajl / simdjson callbacks route each
 *                   value to the field of the event being built
 *   kineto_event.c  committing one parsed event to the model (model/trace.h)
 *   kineto.c        the window / resync driver and the public entry points
 *
 * Not installed, not used outside src/ingest/kineto*.c.
 */
#ifndef GD_INGEST_KINETO_INT_H
#define GD_INGEST_KINETO_INT_H

#include <stddef.h>
#include <stdint.h>

#include <yajl/yajl_parse.h>

#include "model/opflops.h"
#include "model/trace.h"

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
    K_IN_NELEMS, K_OUT_NELEMS, K_DTYPE, K_GROUP_SIZE, /* record_param_comms (collective.h) */
    K_MEM_BYTES, K_MEM_DEV_ID, K_MEM_DEV_TYPE, K_MEM_TOTAL_ALLOC, K_MEM_TOTAL_RES, /* `[memory]` events */
    /* device props */
    K_DP_ID, K_DP_NAME, K_DP_MEM, K_DP_MAJOR, K_DP_MINOR, K_DP_SMS, K_DP_WARP, K_DP_MAXTHR,
    /* distributed info */
    K_RANK, K_WORLD
};

enum cat {
    CAT_UNKNOWN = 0, CAT_OPERATOR, CAT_USER_ANNOT, CAT_GPU_ANNOT, CAT_PYTHON, CAT_PYFUNC,
    CAT_RUNTIME, CAT_DRIVER, CAT_KERNEL, CAT_MEMCPY, CAT_MEMSET, CAT_TRACE, CAT_OTHER, CAT_PROFILER_RANGE,
    CAT_OVERHEAD /* Kineto's `overhead` (CUPTI overhead records) */
};

enum legacy_pid { LEGACY_NONE = 0, LEGACY_CPU, LEGACY_CUDA };

typedef struct ev_scratch {
    /* the small fields first, together: the parallel reader records an event
     * as its nonzero 8-byte words (kineto_par.c), so fewer, denser words are
     * cheaper to record and to replay */
    char ph;
    uint8_t cat;          /* enum cat */
    uint8_t has_cat;      /* a "cat" key was given */
    uint8_t legacy_pid;   /* enum legacy_pid: pid "CPU functions" / "CUDA functions" */
    uint8_t cat_len;      /* cat_name: the category as written, for CAT_OTHER */
    uint8_t has_ts, has_dur, ts_bad, dur_bad;
    uint8_t has_pid, has_tid;
    uint8_t has_corr, has_ext, has_device, has_stream, has_bps, has_occ, has_bytes;
    uint8_t has_flops;
    uint8_t dtype_size;   /* args "dtype": its size in bytes, 0 when absent or unknown */
    uint8_t has_mem_dev_id, has_mem_dev_type, mem_bad;
    uint8_t has_name_hash; /* name_hash = gd_strtab_hash(name) was computed (by a parse thread) */
    uint8_t kval_bad;     /* an impossible blocks per SM or occupancy % (DEFINITIONS "GPU metrics") */
    int coll;             /* 1 + gpudiag_comm_kind named by args "Collective name", 0 if none */
    int group_size;       /* args "Group size", 0 when absent */
    uint32_t name_len;
    uint32_t name_hash;
    int64_t ts_ns, dur_ns;
    int64_t ts_at1;       /* 1 + byte offset of the `ts` value, 0 if unknown */
    int64_t pid, tid;
    int64_t correlation, external_id, device, stream, bytes;
    double bps, occ;
    double flops;         /* args.flops (with_flops=True) */
    /* args "In msg nelems", "Out msg nelems" (+1: 0 when absent or not a count >= 0) */
    int64_t in_nelems1, out_nelems1;
    /* `[memory]` events (DEFINITIONS "Memory timeline"): args "Bytes", "Device Id", "Device Type",
     * "Total Allocated", "Total Reserved" */
    int64_t mem_bytes, mem_dev_id, mem_dev_type;
    int64_t mem_total_alloc, mem_total_res; /* 0 if absent (the scratch is zeroed): stored +1 */
    char cat_name[GD_OTHER_CAT_NAME];
} ev_scratch;

/* Zero *e, as every event starts: through the C library's memset (vector
 * stores), not the `rep stos` a compiler inlines for a fixed size, which
 * costs several times more for ~250 bytes and runs once per event. */
void gd_kt_ev_clear(ev_scratch *e);

typedef struct gd_kt_evbuf gd_kt_evbuf;

typedef struct parser {
    gpudiag_trace *t;
    gd_kt_evbuf *rec;     /* NULL: commit each event to t; else record it here (kineto_par.c) */
    int *ts_float_at;     /* set to 1 when a `ts` has a fraction: &t->ts_is_float, or the record's */
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
    const size_t *buf_beg; /* the serial reader's r->beg: where yajl's current chunk starts in buf_data */
    /* Elements of the event array that are not objects (DEFINITIONS "Time and events"): counted
     * with the malformed events when the trace is complete, the first at junk_at (-1: none). */
    uint64_t junk;
    int64_t junk_at;
    char junk_what[96];
    int64_t ts_hi_bar, ts_lo_bar; /* ts_keep(): the worst start kept in ts_hi_at / ts_lo_at */
} parser;


/* ---- kineto_num.c ------------------------------------------------------ */

/* A JSON number s[0..len) given in µs as exact int64 ns: a fraction of any
 * length (digits past ns are truncated), an exponent through strtod.  Sets
 * *had_frac to 1 when a fraction or exponent was written (else leaves it).
 * 0, or -1 when it is not a number or does not fit. */
int gd_kt_parse_us_to_ns(const char *s, size_t len, int64_t *out, int *had_frac);
/* s[0..len) as an int64 integer (optional '-', digits only: a fraction or an
 * exponent is refused).  0, or -1. */
int gd_kt_parse_int64(const char *s, size_t len, int64_t *out);
/* s[0..len) (under 64 bytes) through strtod; 0, or -1 when not a finite number. */
int gd_kt_parse_double(const char *s, size_t len, double *out);
/* The first run of digits in a string such as "stream 7", "25738" or "0x0"
 * (hexadecimal after 0x).  0, or -1 when there is none or it does not fit. */
int gd_kt_digits_in_string(const char *s, size_t len, int64_t *out);
/* 1 if s[0..len) is a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
int gd_kt_json_number_ok(const char *s, size_t len);

/* ---- kineto_event.c ---------------------------------------------------- */

/* Commit event e (its name: name[0..e->name_len), NUL after; its args'
 * shapes) to p->t at the end of an event object: a GPU op, runtime call, CPU
 * op, step or flops record, or a count of why it was not kept
 * (docs/DEFINITIONS.md "Time and events").  The serial reader passes p->ev,
 * p->name and p->shapes; the parallel one a parse thread's record, in place
 * (e may be changed: a legacy event is mapped).  0, or -1 when out of memory. */
int gd_kt_commit_event(parser *p, ev_scratch *e, const char *name, const gd_op_shapes *shapes);

/* ---- kineto_sax.c ------------------------------------------------------ */

/* A yajl handle whose callbacks drive the state machine over p (strings not
 * UTF-8 validated, trailing garbage allowed: the driver looks at it).  NULL
 * when out of memory; free with yajl_free(). */
yajl_handle gd_kt_new_handle(parser *p);
#ifdef GPUDIAG_HAVE_SIMDJSON
#include "ingest/sj_shim.h"
/* The same state machine as simdjson shim callbacks (ingest/sj_shim.h). */
extern const gd_sj_cb gd_kt_sj_callbacks;

/* ---- kineto_par.c: parallel parsing of the events array ----------------- */

/* Record p->ev (with p->name and p->shapes) in p->rec instead of committing
 * it.  0, or -1 when out of memory. */
int gd_kt_record_event(parser *p);

typedef struct gd_kt_par gd_kt_par;
/* threads (>= 1) worker threads, each with its own simdjson parser and a
 * parser whose context stack is copied from proto's (the driver's parser,
 * stopped at the '[' of the events array; it must outlive the pool).  fd: a
 * plain regular file whose byte ranges gd_kt_par_submit() may name instead
 * of bytes (the workers pread them; the input's offsets are the file's), or
 * -1.  NULL when out of memory or a thread cannot start. */
gd_kt_par *gd_kt_par_new(int threads, const parser *proto, int fd);
/* Stop and join the threads; free everything.  NULL: no-op. */
void gd_kt_par_free(gd_kt_par *par);
/* 1 when every window slot (2 x threads) is in flight. */
int gd_kt_par_full(const gd_kt_par *par);
/* Windows submitted and not merged. */
size_t gd_kt_par_inflight(const gd_kt_par *par);
/* Queue a copy of bytes[0..len), the input's bytes from offset abs_start, for
 * parsing; it must start at an event.  The worker that takes the window
 * copies the bytes: they must stay in place until gd_kt_par_wait_copied().  bytes NULL: the worker reads the
 * file's bytes [abs_start, abs_start + len) into its slot (a pool made with a
 * file).  Only when
 * !gd_kt_par_full().  0, or -1 when out of memory (or a range without a
 * file). */
int gd_kt_par_submit(gd_kt_par *par, const unsigned char *bytes, size_t len, uint64_t abs_start);
/* Wait until every window in flight that was submitted as bytes has been
 * copied into its slot: the caller may then move or free the bytes it
 * submitted. */
void gd_kt_par_wait_copied(gd_kt_par *par);
/* Wait for the oldest window.  Parsed cleanly (every byte, complete events):
 * commit its events through p in order (gd_kt_commit_event), free its slot,
 * return 1.  Otherwise leave it and return 0.  Either way *abs_start /
 * *abs_end are its first and one-past-last input offsets.  -1 when out of
 * memory. */
int gd_kt_par_merge_oldest(gd_kt_par *par, parser *p, uint64_t *abs_start, uint64_t *abs_end);
/* Bytes of the windows in flight. */
size_t gd_kt_par_bytes(const gd_kt_par *par);
/* Wait for every window in flight, copy their bytes to dst (room for
 * gd_kt_par_bytes()) oldest first, drop them; returns the input offset of the
 * first byte (0 when none was in flight).  Only for windows submitted as
 * bytes (a file's ranges are read again from the file). */
uint64_t gd_kt_par_take(gd_kt_par *par, unsigned char *dst);
/* Wait for every window in flight and drop them. */
void gd_kt_par_drain(gd_kt_par *par);
#endif

#endif
