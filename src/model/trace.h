/*
 * trace.h — the compact timeline model every reader fills and every analysis
 * reads.  One record per event, times as int64 nanoseconds on the trace's own
 * clock (Kineto's µs `ts` × 1000, exact for both epoch-µs integers and
 * 3-decimal relative floats), names interned to uint32 ids.  Sizes: a GPU op
 * is 56 bytes, a runtime call 24, a CPU op 16 — tens of bytes per event, so the
 * model stays far below the JSON it came from (Kineto spends 300–600 bytes of
 * text on an event).  Only what some analysis reads is kept (docs/MEMORY.md):
 * host durations are 32-bit, the rare one of 2^32−1 ns (4.29 s) or more lives
 * in a side table (gd_rt_dur / gd_cpu_dur read either).
 */
#ifndef GD_MODEL_TRACE_H
#define GD_MODEL_TRACE_H

#include <stdint.h>

#include "gpudiag/gpudiag.h"
#include "util/util.h"

/* GD_GPU_GRAPH: one whole CUDA graph execution (Nsight Systems' graph-level
 * trace, CUPTI_ACTIVITY_KIND_GRAPH_TRACE): GPU busy time whose kernels were not
 * recorded one by one (DEFINITIONS "Nsight Systems exports", graph rows). */
enum gd_gpu_kind { GD_GPU_KERNEL = 0, GD_GPU_MEMCPY = 1, GD_GPU_MEMSET = 2, GD_GPU_GRAPH = 3 };

enum gd_gpu_flags {
    GD_GF_HAS_BPS = 1u << 0,  /* blocks per SM present */
    GD_GF_HAS_OCC = 1u << 1,  /* est. achieved occupancy % present */
    GD_GF_HAS_EXT = 1u << 2,  /* External id present */
    GD_GF_HAS_CORR = 1u << 3  /* correlation present */
};

/* A kernel, memcpy or memset on a device stream. */
typedef struct gd_gpu_op {
    int64_t ts_ns, dur_ns;
    int64_t correlation;
    union {                    /* by kind: only kernels are linked by External id */
        int64_t external_id;   /* kernel: External id (with GD_GF_HAS_EXT) */
        int64_t bytes;         /* memcpy/memset: size, -1 if absent */
    };
    float blocks_per_sm;       /* Kineto: grid blocks / SM count */
    float occupancy_pct;       /* Kineto: est. achieved occupancy % (0..100) */
    uint32_t name_id;
    int32_t device;
    int32_t stream;
    uint8_t kind;              /* enum gd_gpu_kind */
    uint8_t flags;             /* enum gd_gpu_flags */
    uint8_t coll;              /* kernel: 1 + gpudiag_comm_kind its args name ("Collective name"), 0 if none */
    uint8_t pad;
} gd_gpu_op;

/* A CUDA/HIP runtime or driver API call on a CPU thread. */
typedef struct gd_runtime {
    int64_t ts_ns;
    int64_t correlation;   /* -1 if absent */
    uint32_t dur32;        /* duration in ns; GD_DUR_LONG: in t->rt_long_durs (use gd_rt_dur) */
    uint32_t name_id;
} gd_runtime;

/* dur32 of a record whose duration (>= GD_DUR_LONG ns, 4.29 s) is in a side table. */
#define GD_DUR_LONG UINT32_MAX

enum gd_cpu_cat {
    GD_CPU_OPERATOR = 0,   /* cpu_op / Operator */
    GD_CPU_USER_ANNOT,     /* user_annotation */
    GD_CPU_GPU_ANNOT,      /* gpu_user_annotation (device-side copy of an annotation) */
    GD_CPU_PYTHON,         /* python */
    GD_CPU_PYFUNC          /* python_function */
};

enum gd_cpu_role {
    GD_CR_NONE = 0,        /* not counted by the TBP breakdown (python_function) */
    GD_CR_CPU_EXEC,
    GD_CR_DATALOADER,
    GD_CR_COMM             /* nccl:* / gloo:* op */
};

/* A framework op, annotation or Python function. */
typedef struct gd_cpu_op {
    int64_t ts_ns;
    uint32_t dur32;            /* duration in ns; GD_DUR_LONG: in t->cpu_long_durs (use gd_cpu_dur) */
    uint32_t name_id : 27;     /* GD_CPU_NAME_MAX + 1 distinct names at most */
    uint32_t cat : 3;          /* enum gd_cpu_cat */
    uint32_t role : 2;         /* enum gd_cpu_role */
} gd_cpu_op;

#define GD_CPU_NAME_MAX ((1u << 27) - 1)

/* A host call that names a collective (model/collective.h): a `nccl:*`, `gloo:*`,
 * `c10d::*` op, `record_param_comms` with a "Collective name", an NCCL NVTX range, an
 * MPI call.  Only these few are kept with their thread, for joining kernels to them. */
typedef struct gd_comm_call {
    int64_t ts_ns, end_ns;
    int64_t external_id;       /* -1 if absent */
    int32_t tid;
    uint8_t kind;              /* gpudiag_comm_kind */
    uint8_t is_mpi;            /* an MPI call (MPI_*) */
    uint8_t dtype_size;        /* args "dtype" as bytes per element (gd_coll_dtype_size), 0 unknown */
    uint8_t pad;
    int32_t group_size;        /* args "Group size", 0 unknown */
    int64_t in_nelems, out_nelems; /* args "In msg nelems" / "Out msg nelems", -1 unknown */
} gd_comm_call;

/* The thread of runtime calls [first, the next run's first): a runtime call's
 * tid is kept run-length encoded, as calls come in long runs per thread. */
typedef struct gd_tid_run {
    uint64_t first;
    int32_t tid;
    int32_t pad;
} gd_tid_run;

/* A duration too long for dur32, by record index (sorted by idx). */
typedef struct gd_long_dur {
    uint64_t idx;
    int64_t dur_ns;
} gd_long_dur;

_Static_assert(sizeof(gd_gpu_op) == 56, "gd_gpu_op is 56 bytes");
_Static_assert(sizeof(gd_runtime) == 24, "gd_runtime is 24 bytes");
_Static_assert(sizeof(gd_cpu_op) == 16, "gd_cpu_op is 16 bytes");

/* A `[memory]` instant event of a CUDA/HIP device (`Device Type` 1), PyTorch's
 * caching allocator allocating (bytes > 0) or freeing (bytes < 0) a block;
 * the totals are the allocator's levels after it (PyTorch >= 1.10), -1 when
 * the event does not carry them.  DEFINITIONS "Memory timeline". */
typedef struct gd_mem_event {
    int64_t ts_ns;
    int64_t bytes;             /* args "Bytes" */
    int64_t total_allocated;   /* args "Total Allocated", -1 if absent */
    int64_t total_reserved;    /* args "Total Reserved", -1 if absent */
    int32_t device;            /* args "Device Id" */
    int32_t pad;
} gd_mem_event;

/* A category of complete ('X') events that no analysis reads (ingest/kineto_event.c),
 * with its event count.  device: 1 when some of its events carry
 * args.correlation, args.device or args.stream, the marks of device activity
 * in Kineto (docs/DEFINITIONS.md "Time and events", devices not analysed). */
#define GD_OTHER_CAT_NAME 48
#define GD_OTHER_CATS_MAX 16
typedef struct gd_other_cat {
    char name[GD_OTHER_CAT_NAME]; /* as written (cut at 47 bytes) */
    uint64_t events;
    int device;
} gd_other_cat;

/* ProfilerStep#N as recorded on the host. */
typedef struct gd_host_step {
    int64_t ts_ns, dur_ns;
    int64_t number;
} gd_host_step;

/* deviceProperties entry. */
typedef struct gd_device_prop {
    int id;
    char name[96];
    int num_sms;
    int compute_major, compute_minor;
    int warp_size;
    int max_threads_per_sm;
    double total_mem_bytes;
} gd_device_prop;

/* What an Nsight Systems SQLite export added to the model (ingest/nsys.c);
 * all zero for a Kineto trace. */
typedef struct gd_nsys_info {
    int present;                  /* 1: read from an nsys export */
    char version[64];             /* META_DATA_EXPORT EXPORT_PRODUCT_VERSION, "" if absent */
    int64_t session_start_utc_ns; /* TARGET_INFO_SESSION_START_TIME.utcEpochNs, -1 if absent */
    uint64_t kernels, memcpys, memsets, runtime_calls, nvtx_ranges;
    uint64_t runtime_duplicates;  /* runtime rows left out: a correlation id read before (one call, two names) */
    uint64_t mpi_calls;           /* MPI calls read (MPI_* NVTX ranges and the MPI_*_EVENTS tables) */
    uint64_t sync_events;         /* CUPTI_ACTIVITY_KIND_SYNCHRONIZATION rows */
    uint64_t graph_kernels;       /* kernels with a graphNodeId (launched from a CUDA graph) */
    uint64_t graph_events;        /* rows of CUDA_GRAPH_EVENTS / CUDA_GRAPH_NODE_EVENTS */
    uint64_t graph_execs;         /* CUPTI_ACTIVITY_KIND_GRAPH_TRACE rows read as GD_GPU_GRAPH ops */
    int64_t graph_exec_ns;        /* their summed duration */
    uint64_t overhead_ranges;     /* PROFILER_OVERHEAD rows counted as GPU ops by the Nsight rules */
    unsigned schema_gap_count;    /* tables/columns missing that would have been read */
    char schema_gaps[1024];       /* "; "-separated, e.g. "NVTX_EVENTS (no NVTX ranges)" */
    char steps_source[160];       /* where the steps came from, for the report */
    gpudiag_nsight_rules rules;   /* NVIDIA's expert-system rules over the whole capture */
} gd_nsys_info;

/* An event start and the decompressed byte offset of its `ts` value (-1 if unknown). */
typedef struct gd_ts_at {
    int64_t ts_ns;
    int64_t at;
} gd_ts_at;

/* How many of the latest and of the earliest event starts a reader keeps with
 * their byte offsets (ts_hi_at / ts_lo_at): the time-outlier rule never
 * leaves out more events than this on one side (model/sanitize.c). */
#define GD_TS_RESERVOIR 1024

/* Host processes of the runtime calls kept (DEFINITIONS "Time and events", correlation ids of
 * several processes): two are enough to decide, a few more to report. */
#define GD_RT_PIDS_MAX 8

struct gpudiag_trace {
    char *path;
    gd_strtab names;
    gd_vec gpu_ops;        /* gd_gpu_op */
    gd_vec runtimes;       /* gd_runtime */
    gd_vec cpu_ops;        /* gd_cpu_op */
    gd_vec rt_long_durs;   /* gd_long_dur of runtimes with dur32 == GD_DUR_LONG */
    gd_vec cpu_long_durs;  /* gd_long_dur of cpu_ops with dur32 == GD_DUR_LONG */
    gd_vec rt_tid_runs;    /* gd_tid_run: the runtime calls' threads (gd_rt_tid) */
    gd_vec cpu_tid_runs;   /* gd_tid_run: the CPU ops' threads (gd_cpu_tid) */
    gd_vec host_steps;     /* gd_host_step */
    gd_vec comm_ext_ids;   /* int64_t External ids of the nccl:/gloo: collective ops */
    gd_vec comm_calls;     /* gd_comm_call: host calls naming a collective, in reading order */
    gd_vec op_flops;       /* gd_op_flops (model/opflops.h): ops whose FLOPs are known, in trace order */
    gd_vec devices;        /* gd_device_prop */
    gd_vec mem_events;     /* gd_mem_event: `[memory]` events of CUDA/HIP devices, in reading order */
    gd_vec prof_overheads; /* gd_host_step (number -1): Kineto `overhead` events of the profiler's own
                              (CUPTI activity buffer requests, flushes, ...), in reading order */
    uint64_t mem_events_other; /* `[memory]` events of the CPU or other device types (counted only) */
    int64_t trace_span_start_ns, trace_span_end_ns; /* "PyTorch Profiler (0)" span, or min/max */
    int has_trace_span;
    int64_t base_time_ns;  /* baseTimeNanoseconds, 0 if absent */
    int rank, world_size;
    int is_amd;            /* hip* runtime names seen */
    int has_nccl_ops, has_gloo_ops;
    int ts_is_float;       /* any ts written with a fraction */
    uint64_t bytes;        /* decompressed bytes parsed */
    uint64_t events;       /* objects in traceEvents */
    int truncated;
    int64_t truncated_at;
    int64_t trailing_at;      /* byte offset of non-blank data after the JSON document, -1 if none */
    uint64_t gz_trailing_at, gz_trailing_bytes; /* gzip: compressed offset and count of the bytes after the
                                 last member that are not another member nor all NUL; count 0 if none */
    uint64_t skipped_malformed, skipped_no_dur, skipped_zero_ts, skipped_bad_value;
    uint64_t kernels_bad_value; /* of skipped_bad_value: kernels kept without an impossible value */
    uint64_t ignored_events;  /* i, s, f, M, C and unknown categories */
    uint64_t driver_calls;    /* cuda_driver events (kept with the runtime calls) */
    int64_t rt_pids[GD_RT_PIDS_MAX]; /* the host pids of the runtime/driver calls, first seen first */
    unsigned rt_pid_count;           /* rt_pids set: distinct pids, up to GD_RT_PIDS_MAX */
    gd_vec other_cats;        /* gd_other_cat: X events of categories no analysis reads, first GD_OTHER_CATS_MAX */
    uint64_t other_cat_events_dropped; /* X events of device categories beyond those */
    uint64_t events_with_ph;  /* event objects with a "ph" field (none: not a trace) */
    uint64_t legacy_events;   /* legacy autograd-profiler events (no "cat"; pid "CPU/CUDA functions") */
    uint64_t profiler_ranges; /* cuda_profiler_range X events: CUPTI range-profiler counters, no timing */
    uint64_t legacy_launch_arrows; /* its "cpu_to_cuda" flow starts: kernel launches it did not record */
    uint64_t uncategorised_events; /* other complete events without "cat": not the PyTorch profiler's */
    char truncation_reason[256];
    int64_t first_error_at;   /* byte offset of the first skipped broken event, -1 if none */
    char first_error[256];
    gd_nsys_info nsys;
    int step_range_missing;       /* --step-range NAME matched no range */
    char step_range[128];         /* that NAME ("" when not given) */
    int header_only;              /* read with gpudiag_read_opts.header_only: no events */
    int steps_selected;           /* gpudiag_trace_select_steps() ran */
    int64_t steps_first, steps_last;
    uint64_t steps_before_selection;
    int has_steps_floor;          /* the first selected step starts no earlier than steps_floor_ns: */
    int64_t steps_floor_ns;       /* where the step before it ended in the whole trace (select.c) */
    int64_t steps_window_start_ns, steps_window_end_ns; /* the selection's window W (select.c) */
    /* model/sanitize.c (DEFINITIONS "Sanitising the timeline") */
    uint64_t overrun_ops;         /* GPU ops clipped at the next op's start on their stream */
    int64_t overrun_removed_ns;   /* the time clipped off them */
    gd_vec ts_hi_at, ts_lo_at;    /* gd_ts_at (reader, Kineto only): at least the GD_TS_RESERVOIR latest /
                                     earliest starts of the events kept in the model (at most twice as
                                     many), in no order */
    uint64_t time_outliers;       /* events left out for lying far outside the bulk of the timeline */
    int64_t time_outlier_first_at;/* smallest byte offset of their `ts`, -1 if unknown or none */
    int64_t time_outlier_gap_ns;  /* the smallest distance between an outlier and the bulk */
    uint64_t duration_outliers;   /* GPU ops whose end was cut at the rest's last end (sanitize.c rule 2b) */
    int64_t duration_outlier_removed_ns; /* the time cut off them */
    /* reader diagnostics, never in a report (a report does not depend on --jobs): the
     * windows of the events array parsed on parse threads and merged, and their bytes
     * (kineto.c par_run; tests/unit/test_kineto.c checks that the parallel path is taken) */
    uint64_t par_windows, par_bytes;
};

/* The duration of side-table entry idx (binary search); 0 if absent (never,
 * for a record whose dur32 is GD_DUR_LONG). */
int64_t gd_long_dur_find(const gd_vec *side, uint64_t idx);

/* Duration in ns of a runtime call of t (rt points into t->runtimes). */
static inline int64_t gd_rt_dur(const struct gpudiag_trace *t, const gd_runtime *rt)
{
    if (rt->dur32 != GD_DUR_LONG)
        return rt->dur32;
    return gd_long_dur_find(&t->rt_long_durs, (uint64_t)(rt - (const gd_runtime *)t->runtimes.data));
}

/* Duration in ns of a CPU op of t (c points into t->cpu_ops). */
static inline int64_t gd_cpu_dur(const struct gpudiag_trace *t, const gd_cpu_op *c)
{
    if (c->dur32 != GD_DUR_LONG)
        return c->dur32;
    return gd_long_dur_find(&t->cpu_long_durs, (uint64_t)(c - (const gd_cpu_op *)t->cpu_ops.data));
}

/* Thread id of a runtime call of t (rt points into t->runtimes); 0 if unknown. */
int32_t gd_rt_tid(const struct gpudiag_trace *t, const gd_runtime *rt);

/* Append a runtime call with duration dur_ns (>= 0; rt->dur32 is set here)
 * made on thread tid.  0, or -1 on allocation failure. */
int gd_trace_push_runtime(struct gpudiag_trace *t, gd_runtime *rt, int64_t dur_ns, int32_t tid);

/* Keep only the runtime calls and CPU ops that overlap [ws, we] (start <= we
 * and end >= ws), in order; the long-duration tables and the runtime calls'
 * thread runs follow the new indices.  0, or -1 on allocation failure (before
 * anything is changed). */
int gd_trace_keep_overlapping(struct gpudiag_trace *t, int64_t ws, int64_t we);

/* Append a CPU op with duration dur_ns (>= 0; c->dur32 is set here) made on
 * thread tid (0: unknown).  0, or -1 on allocation failure or a name id above
 * GD_CPU_NAME_MAX. */
int gd_trace_push_cpu_op(struct gpudiag_trace *t, gd_cpu_op *c, uint32_t name_id, int64_t dur_ns, int32_t tid);

/* Thread id of a CPU op of t (c points into t->cpu_ops); 0 if unknown. */
int32_t gd_cpu_tid(const struct gpudiag_trace *t, const gd_cpu_op *c);

/* An empty trace for `path` (copied), with the model's "unknown" defaults;
 * NULL on OOM.  Free with gpudiag_trace_free(). */
struct gpudiag_trace *gd_trace_new(const char *path);

/* The framework the trace's events show (docs/DEFINITIONS.md "Framework"):
 * "pytorch" (aten ops, Python frames, PyTorch's kernels) or "none"; a static
 * string.  The one place that decides it; the report carries it
 * (gpudiag_input_info.framework) and the rules' fix texts choose by it. */
const char *gd_trace_framework(const struct gpudiag_trace *t);

#endif
