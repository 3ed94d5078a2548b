/*
 * gpudiag.h — public API of libgpudiag.
 *
 * libgpudiag reads what people who train neural networks on GPUs already have
 * (PyTorch profiler / Kineto traces today; monitoring logs and live NVML later),
 * builds a compact timeline model, computes the field's standard numbers
 * (step breakdown, GPU utilization, SM efficiency, achieved occupancy, idle
 * time, Tensor Core share) and turns them into ranked findings with concrete
 * fixes.  The command-line tool `gpudiag` is one client of this library.
 *
 * Conventions (read once, they hold for every function below):
 *
 *  - Units are in the names: `_us` microseconds, `_ns` nanoseconds, `_bytes`
 *    bytes.  A `share`, `utilization`, `efficiency` or `occupancy` is a
 *    fraction 0..1 unless the name says `_pct`.
 *  - Unknown numbers are NaN in the structs below and `null` in JSON; they are
 *    never 0.  Test with isnan().
 *  - Ownership: every object returned through an out-pointer (`**out`) belongs
 *    to the caller and is freed with the matching `_free` function, which takes
 *    the address of the caller's pointer and sets it to NULL.  Strings and
 *    arrays inside a report live exactly as long as the report: the report
 *    owns them in one arena (yyjson's document model) and gpudiag_report_free
 *    frees them all.  Nothing is shared between
 *    objects: a report does not refer to the trace it came from, so the trace
 *    may be freed first.
 *  - Errors are data: functions return a gpudiag_status and, when `err` is not
 *    NULL, fill it with the code, a message, and the input path and byte offset
 *    where the problem was found.  The library never prints, never exits and
 *    never aborts on bad input; it writes to a FILE * or a path only when
 *    the caller passes one (a path of "-" is standard output).
 *  - Out of memory is an error return (GPUDIAG_ERR_NOMEM) everywhere but in
 *    two places that cannot report it: the JSON reader and report writer run
 *    on yajl, which does not check its own allocations, and the fast trace
 *    reader on simdjson, which allocates with a throwing `new` in a build
 *    without exceptions.  There the library writes "gpudiag: error: out of
 *    memory (WHERE)" to stderr and ends the process with _Exit(5) rather
 *    than crash or return corrupt data (a host program's own new_handler,
 *    when it set one first, is kept).
 *  - Structs evolve by appending: a field of a public struct is never
 *    removed, renamed, reordered or retyped; new fields go at the end.  A
 *    caller that builds an options struct must start from the matching
 *    `_default` function or zero it, so that fields it does not know keep
 *    their defaults.
 *  - Thread safety: distinct objects may be used from distinct threads; one
 *    object must not be used from two threads at once.
 */
#ifndef GPUDIAG_GPUDIAG_H
#define GPUDIAG_GPUDIAG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUDIAG_VERSION "0.1.0"
#define GPUDIAG_REPORT_SCHEMA "gpudiag.report/1"
#define GPUDIAG_CLUSTER_SCHEMA "gpudiag.cluster/1"

/* ---------------------------------------------------------------------- */
/* Status and errors                                                       */
/* ---------------------------------------------------------------------- */

/** Status codes returned by every library call. */
typedef enum gpudiag_status {
    GPUDIAG_OK = 0,          /**< success (possibly with warnings in the report) */
    GPUDIAG_ERR_IO = 1,      /**< the input could not be opened or read */
    GPUDIAG_ERR_FORMAT = 2,  /**< the input is not a trace we can read at all */
    GPUDIAG_ERR_NOMEM = 3,   /**< an allocation failed */
    GPUDIAG_ERR_ARG = 4,     /**< a caller passed an invalid argument */
    GPUDIAG_ERR_INTERNAL = 5, /**< a bug in gpudiag; please report it */
    GPUDIAG_ERR_NODEV = 6,    /**< no GPU, driver or NVML library for a live mode */
    GPUDIAG_ERR_NOMATCH = 7,  /**< a selection (steps, ranks) matched nothing in the input */
    GPUDIAG_ERR_MISMATCH = 8  /**< summaries of another gpudiag version or another job (gpudiag/summary.h) */
} gpudiag_status;

/** Where and why a call failed.  `offset` is a byte offset into the
 *  (decompressed) input, or -1 when it does not apply. */
typedef struct gpudiag_error {
    gpudiag_status code;
    int64_t offset;
    char path[512];
    char message[512];
} gpudiag_error;

/** Static, human-readable text for a status code; never NULL. */
const char *gpudiag_strerror(gpudiag_status code);

/** Static identifier for a status code ("ok", "io", "format", ...); never NULL. */
const char *gpudiag_errname(gpudiag_status code);

/* ---------------------------------------------------------------------- */
/* Traces                                                                  */
/* ---------------------------------------------------------------------- */

/** A parsed trace: the compact timeline model (opaque). */
typedef struct gpudiag_trace gpudiag_trace;

/**
 * Read a PyTorch profiler (Kineto) trace, `.json` or `.json.gz` (gzip is
 * detected from the content, not the name), as one streaming pass: the
 * decompressed text is never held in memory as a whole.
 *
 * path: file name; "-" reads standard input.
 * out:  receives the trace on success (and on partial success, see below);
 *       free with gpudiag_trace_free().  Set to NULL on failure.
 * err:  optional; filled on failure with the path and byte offset.
 *
 * Dirty input (a file cut off mid-array, events with `dur` -1 or missing,
 * GPU events with `ts` 0, malformed events that can be skipped) is read as far
 * as it is valid; what was skipped is recorded in the trace and reported as an
 * `input_*` finding by gpudiag_analyze().
 *
 * Returns GPUDIAG_OK; GPUDIAG_ERR_IO when the file cannot be read;
 * GPUDIAG_ERR_FORMAT when nothing usable was found (not JSON, not a trace,
 * a trace cut before its first event); GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_trace_read(const char *path, gpudiag_trace **out, gpudiag_error *err);

/** Options for gpudiag_trace_read_opts(); zero-initialise, then set what you need. */
typedef struct gpudiag_read_opts {
    /** NULL or "": steps as the format defines them (Kineto: ProfilerStep#N; Nsight:
     *  ProfilerStep#N NVTX ranges, else the iteration ranges of docs/DEFINITIONS.md
     *  "Steps of an Nsight Systems export", else the whole capture).  Otherwise the
     *  name of the range (NVTX range, or Kineto user_annotation) that marks one step:
     *  a range is a step when its text is NAME, or NAME followed by an optional
     *  separator ('#', ' ', '_', '-', ':') and a step number.  When no range matches,
     *  the whole capture is one window and the report carries the finding
     *  `input_step_range_missing`.  Copied; need not outlive the call. */
    const char *step_range;

    /** 1: keep only the steps numbered steps_first..steps_last, as
     *  gpudiag_trace_select_steps() does, after the steps are chosen (so it applies
     *  to the steps step_range or the Nsight defaults built).  0: all steps. */
    int select_steps;
    int64_t steps_first;          /**< first step number kept (INT64_MIN: from the first) */
    int64_t steps_last;           /**< last step number kept, inclusive (INT64_MAX: to the last) */

    /** 1: read only the trace's header, for gpudiag_trace_rank() and
     *  gpudiag_trace_world_size() (choosing ranks before reading them).  A Kineto
     *  trace is read up to the end of its `distributedInfo` object when that comes
     *  before `traceEvents` (as PyTorch writes it: a few KB whatever the file size);
     *  when it comes after, or is absent, the whole file is parsed but no event is
     *  kept.  An Nsight export is not opened beyond its magic (it has no rank: -1).
     *  The trace returned holds no events: gpudiag_analyze() refuses it with
     *  GPUDIAG_ERR_ARG.  select_steps and step_range are ignored. */
    int header_only;

    /** Optional: called from the reading thread after each block read (about
     *  every 512 KiB of Kineto text, and once at the end), with done_bytes = bytes
     *  taken from the file so far (compressed bytes for .gz) and total_bytes = the
     *  file's size (0 when unknown: standard input, a pipe).  Not called for an
     *  Nsight export or a header-only read.  Must not call back into the reader;
     *  should be cheap (it sits on the read path). */
    void (*progress)(void *ctx, uint64_t done_bytes, uint64_t total_bytes);
    void *progress_ctx;           /**< passed to progress unchanged */

    /** Threads that parse a Kineto trace's events array (issue 24): 0 or 1, the
     *  calling thread alone; N > 1, N worker threads parse windows of about 1 MiB
     *  cut at events that start a line while the calling thread reads (and
     *  inflates a .json.gz) and commits the windows in file order.  The trace is
     *  identical to a one-thread read, error offsets included.  Memory grows by
     *  about 7 MiB per thread (2 windows in flight with their parsed events, a
     *  simdjson parser); so a regular file gets at most one thread per 64 MiB of
     *  JSON (a .gz: 10 x its size on disk), and a small trace is read on the
     *  calling thread.  Ignored without simdjson, for header_only and for an
     *  Nsight export.  With N > 1 a plain .json regular file is memory-mapped
     *  (GPUDIAG_NO_MMAP=1 in the environment: read(2) instead): a file that
     *  shrinks while it is read, or an I/O error on its pages, then raises
     *  SIGBUS in the calling process, as with any mapped file; the gpudiag
     *  command turns that into exit 3.  Appended in 0.1 (fields are only ever
     *  appended). */
    int threads;
} gpudiag_read_opts;

/**
 * gpudiag_trace_read() with options.  The format is chosen by content: a file
 * that starts with the SQLite magic "SQLite format 3\0" is read as an Nsight
 * Systems export (`nsys export --type sqlite`) through libsqlite3; anything else
 * as a Kineto trace (gzip detected by its magic).  An Nsight export must be a
 * file (standard input is refused with GPUDIAG_ERR_FORMAT).
 *
 * Nsight exports: tables and columns differ between nsys versions; what is
 * missing is skipped and listed in the report (finding `input_schema_gaps`).
 * Times are integer ns on the export's clock (session-relative), kept exact.
 * A corrupt or truncated database returns GPUDIAG_ERR_FORMAT with SQLite's
 * message (and, for a file shorter than its header declares, the byte offset
 * where it ends).
 *
 * opts: may be NULL (same as gpudiag_trace_read()).  Other arguments and
 * returns as for gpudiag_trace_read().
 */
gpudiag_status gpudiag_trace_read_opts(const char *path, const gpudiag_read_opts *opts, gpudiag_trace **out,
                                       gpudiag_error *err);

/** Free a trace and set *trace to NULL.  NULL and *trace == NULL are no-ops. */
void gpudiag_trace_free(gpudiag_trace **trace);

/**
 * Keep only the steps numbered first..last (inclusive) of a trace, and the
 * events that can bear on them, so that every analysis of gpudiag_analyze()
 * (breakdown, idle gaps, kernels, MFU, ranks) sees only those steps.
 *
 * Step numbers are those of the report's per-step list: N of ProfilerStep#N
 * (Kineto), or of the ranges chosen by gpudiag_read_opts.step_range / the
 * Nsight defaults (numbered in start order when the ranges carry no number).
 *
 * What is kept (docs/DEFINITIONS.md "Selecting steps"): with W = [start of the
 * first selected host step, end of the last], extended at its end to the end
 * of every GPU op launched by a runtime call inside W (a step's device-side end),
 * every GPU op, runtime call and CPU op overlapping W; every other event and
 * every unselected step is dropped.  Where the step before the first selected
 * one ends in the whole trace is kept too, so that the first selected step
 * starts where it does in the report of the whole trace; every selected step's
 * start, end and breakdown then equal its row there, except that TBP's tail
 * trimming applies to the selection's last step (DEFINITIONS.md).
 *
 * trace: read with gpudiag_trace_read*(); modified in place (never reallocated).
 * first: INT64_MIN for "from the first step"; last: INT64_MAX for "to the last".
 * err:   optional.
 *
 * Returns GPUDIAG_OK; GPUDIAG_ERR_ARG when trace is NULL or first > last;
 * GPUDIAG_ERR_NOMATCH (trace unchanged) when no step is numbered first..last,
 * with a message that names the steps the trace has (or says it has none);
 * GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_trace_select_steps(gpudiag_trace *trace, int64_t first, int64_t last, gpudiag_error *err);

/** distributedInfo.rank of a trace (also of a header-only read), or -1 when
 *  absent (an Nsight export, a single-process trace).  trace may be NULL (-1). */
int gpudiag_trace_rank(const gpudiag_trace *trace);

/** distributedInfo.world_size, or -1 when absent.  trace may be NULL (-1). */
int gpudiag_trace_world_size(const gpudiag_trace *trace);

/* ---------------------------------------------------------------------- */
/* Reports                                                                 */
/* ---------------------------------------------------------------------- */

/** Step-time breakdown categories, in the priority order of the PyTorch
 *  TensorBoard profiler plugin (each instant of a step goes to the first
 *  category active at that instant). */
typedef enum gpudiag_role {
    /* the values, their names and comments: gpudiag/roles.def (first = 0, append only) */
#define GPUDIAG_ROLE_ROW(e, name, abbr) GPUDIAG_ROLE_##e,
#include "gpudiag/roles.def"
#undef GPUDIAG_ROLE_ROW
    GPUDIAG_ROLE_COUNT
} gpudiag_role;

/** Snake-case name of a role ("kernel", "memcpy", ..., "cpu_exec", "other"). */
const char *gpudiag_role_name(gpudiag_role role);

/** Kernel classes (by kernel name; see docs/DEFINITIONS.md). */
typedef enum gpudiag_kernel_class {
    /* the values, their names and comments: gpudiag/kernel_classes.def (first = 0, append only) */
#define GPUDIAG_KCLASS_ROW(e, name) GPUDIAG_KCLASS_##e,
#include "gpudiag/kernel_classes.def"
#undef GPUDIAG_KCLASS_ROW
    GPUDIAG_KCLASS_COUNT
} gpudiag_kernel_class;

/** Snake-case name of a kernel class ("gemm", "conv", ...). */
const char *gpudiag_kernel_class_name(gpudiag_kernel_class cls);

/** The bottleneck named by the verdict (DESIGN.md). */
typedef enum gpudiag_bottleneck {
    /* the values and their names: gpudiag/bottlenecks.def (first = 0, append only) */
#define GPUDIAG_BN_ROW(e, name) GPUDIAG_BN_##e,
#include "gpudiag/bottlenecks.def"
#undef GPUDIAG_BN_ROW
} gpudiag_bottleneck;

/** Snake-case name of a bottleneck ("data_pipeline", ...). */
const char *gpudiag_bottleneck_name(gpudiag_bottleneck bn);

typedef enum gpudiag_severity {
    /* the values and their names: gpudiag/severities.def (first = 0, append only) */
#define GPUDIAG_SEV_ROW(e, name) GPUDIAG_SEV_##e,
#include "gpudiag/severities.def"
#undef GPUDIAG_SEV_ROW
} gpudiag_severity;

/** "info", "low", "medium", "high". */
const char *gpudiag_severity_name(gpudiag_severity sev);

/** mean / median / p90 / min / max / stddev of a set of durations in µs.
 *  p90 is linearly interpolated between closest ranks; stddev is the
 *  population standard deviation.  All NaN when the set is empty. */
typedef struct gpudiag_stats_us {
    double mean, median, p90, min, max, stddev;
} gpudiag_stats_us;

/** One training step (ProfilerStep#N), after the device-side adjustment. */
typedef struct gpudiag_step {
    int64_t number;          /**< N of ProfilerStep#N; -1 for the synthetic whole-trace step */
    double start_us;         /**< trace clock (the trace's own `ts` units) */
    double end_us;
    double duration_us;
    uint32_t device_ops;     /**< kernels/memcpys/memsets launched from inside the host step */
    double role_us[GPUDIAG_ROLE_COUNT]; /**< exact partition of duration_us */
    int64_t start_ns, end_ns;     /**< the same bounds, exact (trace clock × 1000) */
    double gpu_lead_in_us;        /**< step start → first kernel/memcpy/memset starting in the step;
                                       NaN if none starts in it (DEFINITIONS "Start-up in the window") */
    double startup_idle_us;       /**< device-idle time of causes startup/compilation in gaps starting in the
                                       step, ÷ devices; NaN without GPU ops (DEFINITIONS "Steady state of a run") */
    double unexplained_tail_us;   /**< the step's trailing device-idle time of cause `other` (no host activity),
                                       from the gap's start to the step end, ÷ devices; NaN without GPU ops */
    int recompiling;              /**< 1: its compilation idle is recurring compilation, steady state, not start-up
                                       (DEFINITIONS "Idle gaps and their causes", rule 0, recompilation); not in the JSON */
} gpudiag_step;

/** Per-GPU numbers. */
typedef struct gpudiag_device {
    int id;                       /**< device index as in the trace */
    char name[96];                /**< from deviceProperties; "" if unknown */
    int num_sms;                  /**< 0 if unknown */
    int compute_major, compute_minor; /**< -1 if unknown */
    int warp_size;                /**< 0 if unknown (64 on AMD) */
    double total_memory_bytes;    /**< NaN if unknown */
    uint64_t kernel_count;
    double kernel_time_us;        /**< sum of kernel durations (not a union) */
    double gpu_utilization;       /**< kernel-busy union / steps span (TBP) */
    double sm_efficiency;         /**< Est. SM Efficiency (TBP) */
    double achieved_occupancy;    /**< Est. Achieved Occupancy, 0..1 (TBP) */
    double tensor_core_share;     /**< Tensor Core kernel time / kernel time */
    /* HTA temporal breakdown over [first GPU event, last GPU event] */
    double span_us, idle_us, compute_us, non_compute_us;
    /* HTA communication/computation overlap; NaN without comm kernels */
    double comm_time_us, comm_overlap;
    /* the GPU table row identified for this device (include/gpudiag/specs.h, gpudiag_gpu_identify) */
    const char *spec_name;        /**< static; NULL when not identified */
    const char *spec_match;       /**< "exact", "name", "hardware" or "option" (--gpu); static; NULL if none */
    int spec_uncertain;           /**< 1 when the row's values are marked uncertain */
    double peak_tflops;           /**< dense peak of the analysis dtype (opts->dtype), TFLOP/s; NaN if unknown */
    double mem_bw_gbs;            /**< memory bandwidth, GB/s; NaN if unknown */
    double pcie_gbs_per_dir;      /**< host link rate per direction, GB/s (theoretical x16); NaN if unknown */
    double ridge;                 /**< peak / bandwidth, FLOP per byte; NaN if unknown */
    int arch_inferred;            /**< 1: no deviceProperties, so compute_major/minor are the highest NVIDIA
                                       architecture this device's kernel names carry (gpudiag_arch_family in
                                       specs.h): a lower bound (docs/DEFINITIONS.md "GPU metrics") */
    uint64_t arch_tagged_kernels; /**< with arch_inferred: kernels whose name carries an architecture tag */
    double idle_share;            /**< idle_us / span_us (fraction 0..1, HTA temporal breakdown); NaN when
                                       span_us is not > 0 (appended) */
    /* which part the GPU table row is (docs/DEFINITIONS.md "GPU table", matching by hardware; appended) */
    const char *spec_part;        /**< the part the row describes, for people: the row's name, or for a per-GCD
                                       row "AMD Instinct MI250, one GCD" (rocminfo names the GCDs of MI250 and
                                       MI250X alike); owned by the report; NULL when no row */
    const char **spec_also_fits;  /**< with spec_match "hardware": the names (static) of the other rows of the
                                       vendor with the same SM/CU count and memory, which the trace cannot tell
                                       from the one taken; owned by the report; NULL when none */
    size_t spec_also_fits_count;  /**< entries of spec_also_fits (0: the hardware singles the row out) */
    int spec_peaks_differ;        /**< 1 when one of those rows has another peak (analysis dtype) or memory
                                       bandwidth: the assumed peak is then a guess; 0 otherwise */
} gpudiag_device;

/** Kind of a communication kernel (docs/DEFINITIONS.md "Communication", collective kinds):
 *  from the kernel's args ("Collective name"), else from the host call that launched it
 *  (nccl:*, c10d::*, record_param_comms, NCCL NVTX ranges, MPI calls; joined by External id
 *  or by the launch call's thread and time), else from the NCCL/RCCL kernel name.  SendRecv
 *  and Generic kernels run any collective (NCCL 2.12-2.13 names every kernel SendRecv;
 *  all-to-all runs as grouped send/recv), so by name alone they are GPUDIAG_COMM_UNKNOWN. */
typedef enum gpudiag_comm_kind {
    /* the values, their names and comments: gpudiag/comm_kinds.def (first = 0, append only) */
#define GPUDIAG_COMM_KIND_ROW(e, name, share_key) GPUDIAG_COMM_##e,
#include "gpudiag/comm_kinds.def"
#undef GPUDIAG_COMM_KIND_ROW
    GPUDIAG_COMM_KIND_COUNT
} gpudiag_comm_kind;

/** Stable name of a communication kind ("all_reduce", "send_recv", ...); "unknown" if out of range. */
const char *gpudiag_comm_kind_name(gpudiag_comm_kind kind);

/** What a GPU-idle gap is attributed to (docs/DEFINITIONS.md "Idle gaps and their causes"). */
typedef enum gpudiag_idle_cause {
    /* the values, their names and comments: gpudiag/idle_causes.def (first = 0, append only) */
#define GPUDIAG_IDLE_CAUSE_ROW(e, name) GPUDIAG_IDLE_##e,
#include "gpudiag/idle_causes.def"
#undef GPUDIAG_IDLE_CAUSE_ROW
    GPUDIAG_IDLE_CAUSE_COUNT
} gpudiag_idle_cause;

/** Snake-case name of an idle cause ("sync", "dataloader", ...). */
const char *gpudiag_idle_cause_name(gpudiag_idle_cause cause);

/** One device-idle gap inside the steps (the largest are kept). */
typedef struct gpudiag_gap {
    double start_us;              /**< trace clock */
    double duration_us;
    int64_t start_ns;             /**< exact start (trace clock × 1000) */
    int device;
    int64_t step;                 /**< step number containing the gap start, -1 if none */
    gpudiag_idle_cause cause;
    const char *cpu_op;           /**< top gaps: the host op or runtime call that is innermost for the longest
                                       part of the gap (DEFINITIONS "Idle gaps and their causes"), else the
                                       step's ProfilerStep#N, or NULL; owned by the report */
} gpudiag_gap;

/** HTA's idle-time breakdown of one stream (get_idle_time_breakdown). */
typedef struct gpudiag_stream_idle {
    int device;
    int stream;
    uint64_t ops;                 /**< kernels, memcpys and memsets on the stream */
    double host_wait_us;          /**< the next op's launch call started after the stream went idle */
    double kernel_wait_us;        /**< other gaps shorter than 30 µs */
    double other_us;              /**< the remaining gaps */
    /* HTA queue length (get_queue_length_summary): +1 per launch call, -1 when its op starts */
    double queue_mean;            /**< mean of the queue-length series' values; NaN without counted launches */
    int64_t queue_max;
    double full_queue_us;         /**< time with >= 1024 ops queued (launches block) */
} gpudiag_stream_idle;

/** Number of equal time bins of the report's timeline (gpudiag_timeline). */
#define GPUDIAG_TIMELINE_BINS 500

/** One stream's row of the timeline (docs/DEFINITIONS.md "Timeline").
 *  Both arrays have `bins` entries and are owned by the report. */
typedef struct gpudiag_timeline_lane {
    int device;
    int stream;
    double *busy_us;              /**< per bin: time with an op of this stream running (union), µs, 0..bin_us */
    double *queue_max;            /**< per bin: the most ops queued on the stream at any instant of the
                                       bin (HTA queue length); NULL when no launch of it was counted */
} gpudiag_timeline_lane;

/** One device's row of the timeline: busy time and idle gaps by cause, per bin. */
typedef struct gpudiag_timeline_device {
    int device;
    double *busy_us;              /**< per bin: time with any op of the device running (union), µs */
    double *idle_us[GPUDIAG_IDLE_CAUSE_COUNT]; /**< per bin: device-idle gap time by cause, µs */
} gpudiag_timeline_device;

/**
 * The GPU activity of the steps span, downsampled into `bins` equal bins so
 * that a chart or counter track stays small for any trace length.  Bin i
 * covers [start + i·bin_us, start + (i+1)·bin_us).  For every bin
 * busy_us + Σ idle_us = bin_us on each device (the gaps are exactly the
 * device-idle time inside the steps).  bins == 0 when there is no GPU activity
 * or no step.
 */
typedef struct gpudiag_timeline {
    int64_t start_ns, end_ns;     /**< the steps span, trace clock × 1000 */
    double bin_us;                /**< (end − start) / bins, µs */
    size_t bins;                  /**< GPUDIAG_TIMELINE_BINS, or 0 */
    size_t lane_count;            /**< one per stream, in the order of gpudiag_report.stream_idle */
    gpudiag_timeline_lane *lanes;
    size_t device_count;          /**< one per device of gpudiag_report.devices, same order */
    gpudiag_timeline_device *devices;
} gpudiag_timeline;

/** Copies of one direction inside the steps span (from Kineto's memcpy names and `bytes`). */
typedef struct gpudiag_transfer {
    uint64_t count;
    double bytes;                 /**< total bytes (copies without `bytes` count as 0) */
    double time_us;               /**< summed copy durations */
} gpudiag_transfer;

/** The rates of one gpudiag_transfer, computed once by the analysis
 *  (DEFINITIONS "Copies", "Each device's GPU"). */
typedef struct gpudiag_transfer_rate {
    double gb_per_s;              /**< achieved: bytes / time_us / 1e3 (GB/s, 1 GB = 1e9 bytes); NaN when
                                       time_us is 0 */
    double link_gb_per_s;         /**< host copies (h2d, d2h, pageable): the report's pcie_link_gb_per_s;
                                       NaN for the others */
    double link_share;            /**< gb_per_s / link_gb_per_s (fraction, 0..1 for a real link); NaN when
                                       either is unknown */
} gpudiag_transfer_rate;

/** Copy directions. */
typedef enum gpudiag_copy_kind {
    /* the values, their names and comments: gpudiag/copy_kinds.def (first = 0, append only) */
#define GPUDIAG_COPY_KIND_ROW(e, name) GPUDIAG_COPY_##e,
#include "gpudiag/copy_kinds.def"
#undef GPUDIAG_COPY_KIND_ROW
    GPUDIAG_COPY_KIND_COUNT
} gpudiag_copy_kind;

/** "h2d", "d2h", "d2d", "other". */
const char *gpudiag_copy_kind_name(gpudiag_copy_kind kind);

/** Aggregate of one kernel name. */
typedef struct gpudiag_kernel_stat {
    const char *name;             /**< owned by the report */
    gpudiag_kernel_class cls;
    int tensor_core;              /**< 1 if the name marks a Tensor Core kernel */
    uint64_t calls;
    double total_us, mean_us, min_us, max_us;
    double share;                 /**< total_us / all kernel time */
} gpudiag_kernel_stat;

/** One number behind a finding. */
typedef struct gpudiag_evidence {
    const char *key;              /**< snake_case with unit suffix, static */
    double value;
} gpudiag_evidence;

/** The most evidence numbers a finding holds.  The largest rule sets 19 on its worst path
 *  (host_overhead / host_launch_bound: 15, then gradient accumulation 1, a one-off gap 2 and a
 *  mostly start-up window 1); communication_bound 16 (4, 3 with bytes known, one share per
 *  communication kind, 1).  Was 12 before 2026-12-03, which cut communication_bound's last kind
 *  shares; raising it grows gpudiag_finding (the ABI is not frozen: rebuild against the headers). */
#define GPUDIAG_MAX_EVIDENCE 32

/** A diagnosis: stable id, severity, numbers, fix, expected gain. */
typedef struct gpudiag_finding {
    const char *id;               /**< stable snake_case id (docs/FINDINGS.md) */
    gpudiag_severity severity;
    const char *title;            /**< owned by the report */
    const char *recommendation;   /**< owned by the report */
    double est_gain;              /**< fraction of step time the fix could save; NaN = not estimated */
    int is_cause;                 /**< 1 for a cause, 0 for a symptom or input note */
    gpudiag_bottleneck bottleneck;/**< the bottleneck this finding points to */
    size_t evidence_count;
    gpudiag_evidence evidence[GPUDIAG_MAX_EVIDENCE];
    const char *kind;             /**< "cause", "symptom" or "input" (docs/FINDINGS.md's kind column;
                                       the catalogue row's kind), a static string */
} gpudiag_finding;

/** NVIDIA Nsight Systems expert-system rules (`nsys analyze -r RULE`, NVIDIA's
 *  default options), reproduced over the whole capture of an Nsight Systems
 *  export; docs/DEFINITIONS.md "Nsight Systems rules" has each definition.
 *  All zero / NaN (and `available` 0) for a Kineto trace. */
typedef struct gpudiag_nsight_rules {
    int available;                /**< 1 when read from an nsys export */
    /* gpu_gaps: per (process, device), from the first to the last GPU op (kernels,
     * memcpys, memsets and CUDA profiling-overhead ranges), each op end joined to
     * the next op start in end/start order; gaps longer than the threshold */
    double gap_threshold_us;      /**< 500000 (NVIDIA's default gap=500 ms) */
    uint64_t gaps;                /**< gaps above the threshold */
    double gap_time_us;           /**< their summed length */
    double gap_max_us;            /**< the longest, NaN when none */
    /* gpu_time_util: each (process, device) range in `util_chunks` equal chunks
     * (length rounded up to a whole ns); utilization = summed op overlap / chunk
     * length (summed over streams: may exceed 1) */
    int util_chunks;              /**< 30 (NVIDIA's default chunks=30) */
    double util_threshold;        /**< 0.50 (NVIDIA's default threshold=50 %) */
    uint64_t util_chunks_total;   /**< chunks examined over all (process, device) */
    uint64_t util_low_chunks;     /**< chunks below the threshold */
    uint64_t util_low_regions;    /**< after merging consecutive low chunks (NVIDIA's rows) */
    double util_low_time_us;      /**< summed length of the low chunks */
    double util_min;              /**< lowest chunk utilization (fraction), NaN without chunks */
    /* cuda_memcpy_sync: memcpys launched by cudaMemcpy* calls without "async" in
     * the name, except host-to-device copies of <= 64000 bytes and copies with
     * srcDeviceId == dstDeviceId */
    uint64_t memcpy_sync;
    double memcpy_sync_bytes, memcpy_sync_us; /**< bytes and GPU duration of those copies */
    /* cuda_memset_sync: memsets launched by cudaMemset* calls without "async" in
     * the name on pinned (1) or managed (4) memory */
    uint64_t memset_sync;
    double memset_sync_bytes, memset_sync_us;
    /* cuda_memcpy_async: memcpys launched by cudaMemcpy*Async* with pageable (0)
     * memory as source or destination */
    uint64_t memcpy_async_pageable;
    double memcpy_async_pageable_bytes, memcpy_async_pageable_us;
    /* cuda_api_sync: cudaDeviceSynchronize* and cudaStreamSynchronize* calls */
    uint64_t api_sync;
    double api_sync_us;           /**< their summed host duration */
} gpudiag_nsight_rules;

/** What an Nsight Systems export held (input.nsys in JSON); zero for Kineto. */
typedef struct gpudiag_nsys_info {
    int present;                  /**< 1 when read from an nsys export */
    const char *version;          /**< nsys version that exported it, "" if unknown; owned by the report */
    int64_t session_start_utc_ns; /**< UTC epoch ns of the capture start, -1 if absent */
    uint64_t kernels, memcpys, memsets, runtime_calls, nvtx_ranges;
    uint64_t sync_events;         /**< CUPTI synchronization activity records */
    uint64_t graph_kernels;       /**< kernels launched from a CUDA graph */
    uint64_t graph_events;        /**< CUDA graph / graph-node records */
    uint64_t graph_execs;         /**< whole-graph rows (CUPTI_ACTIVITY_KIND_GRAPH_TRACE: an export made without
                                       --cuda-graph-trace=node) read as GPU busy time, joined to their
                                       cudaGraphLaunch by correlation id (finding `input_graph_no_node_trace`) */
    double graph_exec_time_us;    /**< their summed duration, µs */
    uint64_t runtime_duplicates;  /**< runtime rows left out: their correlation id was read before (one call) */
    uint64_t mpi_calls;           /**< MPI calls read (MPI_* NVTX ranges, MPI_*_EVENTS tables): communication */
    const char *schema_gaps;      /**< "; "-separated missing tables/columns, "" if none; owned */
    unsigned schema_gap_count;
    const char *steps_source;     /**< where the steps came from; owned by the report */
} gpudiag_nsys_info;

/** Most device-event categories listed in gpudiag_input_info.unanalysed_device[]. */
#define GPUDIAG_UNANALYSED_MAX 8

/** A category of trace events and how many of them there were. */
typedef struct gpudiag_event_count {
    char category[48];            /**< the trace's `cat`, as written (cut at 47 bytes) */
    uint64_t events;              /**< complete ('X') events of that category */
} gpudiag_event_count;

/** What was read and what had to be skipped. */
typedef struct gpudiag_input_info {
    const char *path;             /**< owned by the report */
    const char *format;           /**< "kineto" or "nsys" (Nsight Systems SQLite export) */
    uint64_t bytes;               /**< decompressed bytes parsed */
    uint64_t events;              /**< trace events seen */
    int truncated;                /**< 1 if the file ended before the JSON closed */
    int64_t truncated_at;         /**< byte offset of the cut, -1 if not truncated */
    uint64_t skipped_malformed;   /**< events skipped because the JSON was broken */
    uint64_t skipped_no_dur;      /**< "X" events with no or negative `dur` */
    uint64_t skipped_zero_ts;     /**< GPU events with ts 0 (no CUPTI timestamp) */
    uint64_t skipped_bad_value;   /**< GPU events with an impossible device index (< -1 or > 65535), [memory] events
                                       with an impossible value, and kernels_bad_value */
    int rank;                     /**< distributedInfo.rank, -1 if absent */
    int world_size;               /**< distributedInfo.world_size, -1 if absent */
    gpudiag_nsys_info nsys;       /**< Nsight Systems export details */
    const char *step_range;       /**< --step-range NAME given, or NULL; owned by the report */
    int step_range_missing;       /**< 1 if no range matched it */
    const char *step_range_candidates; /**< when step_range_missing: up to 5 range names the trace does have
                                       (NVTX ranges / user annotations, most frequent first, ties in order of
                                       first appearance), joined by ", "; "" if none; NULL otherwise. Owned by
                                       the report */
    int steps_selected;           /**< 1 when gpudiag_trace_select_steps() (--steps) chose the steps */
    int64_t steps_first, steps_last; /**< its bounds as given (INT64_MIN / INT64_MAX: open) */
    uint64_t steps_before_selection; /**< host steps the trace had before the selection */
    int64_t trailing_at;          /**< byte offset (decompressed) of the first non-blank byte after the JSON
                                       document (finding `input_trailing_data`; only the first document is
                                       analysed); <= 0 when nothing follows it */
    int legacy_profiler;          /**< 1: written by the legacy autograd profiler (torch.autograd.profiler without
                                       Kineto: events with no `cat`, pid "CPU functions"/"CUDA functions";
                                       docs/DEFINITIONS.md "Time and events") */
    uint64_t legacy_launches;     /**< its `cpu_to_cuda` launch arrows: kernels launched whose execution it did
                                       not record (0 when none) */
    uint64_t profiler_ranges;     /**< `cuda_profiler_range` events (Kineto's CUPTI range profiler, one per
                                       kernel): their counters are not analysed and their times are not kernel
                                       times (Kineto spreads the ranges evenly over the profiling span), so they
                                       are not GPU ops (finding `input_profiler_ranges`); 0 when none */
    uint64_t unanalysed_device_events; /**< complete events of device-activity categories no analysis reads
                                       (MTIA `mtia_ccp_events`, ...; DEFINITIONS "Time and events"), all
                                       categories together; 0 when none */
    size_t unanalysed_device_count; /**< entries used in unanalysed_device[] */
    gpudiag_event_count unanalysed_device[GPUDIAG_UNANALYSED_MAX]; /**< those categories, most events first
                                       (ties by name); at most GPUDIAG_UNANALYSED_MAX */
    uint64_t overrun_ops;         /**< GPU ops whose duration ran past the start of the next op on their
                                       stream, clipped there as Perfetto does (finding `input_ops_overrun`;
                                       DEFINITIONS "Sanitising the timeline") */
    double overrun_removed_us;    /**< µs clipped off those ops, summed */
    uint64_t time_outliers;       /**< events left out because their start lies far outside the bulk of the
                                       timeline: a gap of more than 10 x the rest's span and at least 1 s
                                       (finding `input_time_outliers`; DEFINITIONS "Sanitising the timeline") */
    int64_t time_outlier_first_at;/**< smallest decompressed byte offset of those events' `ts` values; -1 when
                                       unknown (an Nsight export) or none */
    double time_outlier_gap_us;   /**< µs between the outliers and the rest (the smaller side when both) */
    uint64_t duration_outliers;   /**< GPU ops whose end lay more than 10 x the span of everything else (and
                                       >= 1 s) after the last end of every other event, with no later op on
                                       their stream: their end was cut there (finding `input_time_outliers`) */
    double duration_outlier_removed_us; /**< µs cut off them, summed */
    int64_t steps_window_start_ns, steps_window_end_ns; /**< when steps_selected: the window W of the selection
                                       (docs/DEFINITIONS.md "Selecting steps"), trace clock × 1000; what
                                       --trace-out keeps of the trace (events overlapping it) */
    const char *framework;        /**< traces: "pytorch" when the events show PyTorch, "none" when they show no
                                       framework (docs/DEFINITIONS.md "Framework"); the findings' fixes follow it;
                                       static; NULL for a monitoring log */
    uint64_t gz_trailing_bytes;   /**< a gzip trace: bytes after its last member that start no other member and
                                       are not all NUL (finding `input_gzip_trailing_data`; never read); 0 none */
    uint64_t gz_trailing_at;      /**< their offset in the compressed file (the members' length) */
    uint64_t kernels_bad_value;   /**< of skipped_bad_value: kernels kept without an impossible blocks per SM or
                                       est. achieved occupancy % (docs/DEFINITIONS.md "GPU metrics") */
} gpudiag_input_info;

/** Activation checkpointing seen in a trace: the kernels that re-run the forward
 *  inside the backward (docs/DEFINITIONS.md "Memory savings and what they cost",
 *  Recompute; JSON `memory_savings.recompute`).  Times in µs over the kernels
 *  starting inside the steps span; NaN without steps. */
typedef struct gpudiag_recompute_seen {
    int detected;                 /**< 1: recompute windows, or checkpointing called in the forward */
    uint64_t windows;             /**< recompute windows found (before merging), rules (a)+(b)+(c) */
    uint64_t kernels;             /**< kernels launched inside them */
    double recompute_us;          /**< their summed duration, µs */
    double kernel_us;             /**< all kernels starting inside the steps span, µs */
    double share_of_kernel_time;  /**< recompute_us ÷ kernel_us, 0..1; NaN when kernel_us is 0 */
    double share_of_step;         /**< recompute_us per step ÷ mean step time, 0..1; NaN without steps */
    double hfu;                   /**< MFU × kernel_us ÷ (kernel_us − recompute_us); NaN without MFU or recompute */
} gpudiag_recompute_seen;

/** LoRA adapter GEMMs seen in a trace's shapes (docs/DEFINITIONS.md "LoRA
 *  adapters"; JSON `memory_savings.lora`), over the whole trace. */
typedef struct gpudiag_lora_seen {
    uint64_t ops;                 /**< adapter-shaped GEMM ops joined to a kernel */
    int rank;                     /**< the smallest adapter rank r seen; 0 when none */
    double kernel_us;             /**< the longest kernel of each, summed, µs */
    double flops;                 /**< their FLOPs (2·M·N·K) */
    double share_of_gemm_time;    /**< kernel_us ÷ GEMM-class kernel time, 0..1; NaN without GEMMs */
    int shapes_recorded;          /**< 1: some op's FLOPs are known from its shapes or `flops` arg; 0: record
                                       with record_shapes=True to see adapters */
} gpudiag_lora_seen;

/** Gradient accumulation seen in a trace (docs/DEFINITIONS.md "Gradient
 *  accumulation"; JSON `memory_savings.accumulation`), inside the steps span. */
typedef struct gpudiag_accum_seen {
    uint64_t backward_passes;     /**< backward passes starting inside the steps span */
    uint64_t optimizer_steps;     /**< Optimizer.step#… host ops starting there */
    uint64_t kernels;             /**< kernels starting there */
    double kernel_us;             /**< their summed duration, µs; NaN without steps */
    double micro_steps;           /**< backward_passes ÷ optimizer_steps; NaN when either is 0 */
} gpudiag_accum_seen;

/** CPU offload traffic per step against the PCIe link (docs/DEFINITIONS.md
 *  "Offload"; JSON `memory_savings.offload`).  NaN without steps. */
typedef struct gpudiag_offload_seen {
    int detected;                 /**< 1: >= 64 MiB per step both ways (offload_transfer's condition) */
    const char *framework;        /**< "deepspeed", "fsdp" (static strings), NULL when not named */
    double h2d_bytes_per_step, d2h_bytes_per_step;
    double copy_us_per_step;      /**< H2D + D2H copy time per step, µs */
    double exposed_us_per_step;   /**< Memcpy role time per step (no kernel running), µs */
    double min_link_us_per_step;  /**< larger direction's bytes ÷ the PCIe rate per direction, µs; NaN unknown */
    double copy_over_link;        /**< copy_us_per_step ÷ min_link_us_per_step; NaN unknown */
} gpudiag_offload_seen;

/** The whole diagnosis.  Every pointer is owned by the report. */
typedef struct gpudiag_report {
    gpudiag_input_info input;
    int has_gpu;                  /**< 0 for a CPU-only trace */
    int is_amd;                   /**< ROCm trace (hip* runtime) */
    int steps_from_profiler;      /**< 1 if steps came from ProfilerStep#N */
    int steps_trimmed;            /**< tail steps dropped (TBP rule) */
    int steps_shortened;          /**< steps cut at the next step's host start because their device-side end
                                       lay past the whole next step, which TBP's rule would make 0 µs
                                       (DEFINITIONS "Steps" 3) */
    int steps_cut_gpu;            /**< steps of a cut-off trace dropped because the file was cut while
                                       their GPU events were written (DEFINITIONS "Time and events") */
    int steps_cut_why;            /**< for the first of them: 1 the recorded runtime calls end before its
                                       host end, 2 under 80 % of its launch calls joined to a GPU op */
    int64_t steps_cut_number;     /**< the first of them: its ProfilerStep number (-1 none) */
    uint64_t steps_cut_ops;       /**< its GPU ops in the file */
    uint64_t steps_cut_launches;  /**< its launch calls with a correlation id in the file */
    uint64_t steps_cut_joined;    /**< of those, joined to a GPU op */
    double steps_cut_missing_us;  /**< its host end − the end of the last runtime call in the file (why 1) */

    size_t step_count;
    gpudiag_step *steps;
    gpudiag_stats_us step_time;
    double avg_role_us[GPUDIAG_ROLE_COUNT]; /**< sum over steps / steps */
    double avg_step_us;
    double steady_step_us;        /**< the mean step less its start-up/compilation, µs, when that is ≥ 1 % of the
                                       analysed time (else avg_step_us): the unit of every cause finding's share and
                                       est_gain; NaN without steps (DEFINITIONS "Start-up in the window",
                                       steady-state step; set by the diagnosis) */

    size_t device_count;
    gpudiag_device *devices;

    /* headline numbers (summary.* in JSON); NaN when not computable */
    double gpu_utilization;       /**< mean over devices with kernels */
    double sm_efficiency;
    double achieved_occupancy;
    double tensor_core_share;
    double idle_share, compute_share, non_compute_share;
    double comm_share;            /**< Communication role / step time */
    double comm_startup_us;       /**< per step: Communication role time in start-up idle or set-up calls
                                   *   (DEFINITIONS "Communication", start-up communication) */
    double dataloader_startup_us; /**< per step: DataLoader role time in start-up idle
                                   *   (DEFINITIONS "Start-up in the window", start-up DataLoader time) */
    double comm_overlap;
    double mfu, hfu;              /**< need model size: NaN from a trace alone (opts give it) */
    double model_flops_per_step;  /**< per GPU: opts' FLOPs per token × tokens per step; NaN without a model */
    double achieved_tflops;       /**< per GPU: model_flops_per_step / mean step time, TFLOP/s */
    double mfu_peak_tflops;       /**< the peak MFU divides by (opts override, else the first identified GPU) */
    const char *mfu_dtype;        /**< dtype of that peak and of devices[].peak_tflops ("bf16", ...); static; NULL if no peak */
    uint64_t kernel_count;
    double kernel_time_us;
    double short_kernel_share;    /**< HTA: launches whose GPU time < CPU launch time */
    double median_kernel_us;
    double launch_delay_median_us;/**< HTA launch delay, median over launches */
    uint64_t linked_kernels;      /**< kernels joined to their launch call by correlation */
    uint64_t runtime_outliers;    /**< HTA: launch calls longer than 50 µs on the CPU */
    uint64_t launch_delay_outliers; /**< HTA: launch delay above 100 µs */
    uint64_t launch_delay_outliers_gpu_idle; /**< those whose kernel started after its device sat idle
                                                  >= 30 µs (DEFINITIONS "Kernels", HTA outliers) */
    uint64_t graph_launches;      /**< CUDA/HIP graph launch calls (cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch)
                                       of the whole trace (DEFINITIONS "Graph replays") */
    uint64_t graph_launches_unrecorded; /**< of those, the calls no GPU op is joined to by correlation id: the
                                       profiler did not record the replay's kernels */
    uint64_t graph_gpu_ops;       /**< GPU ops joined to a graph launch call (the recorded nodes of replays) */
    uint64_t graph_captures;      /**< stream-capture windows (cuda/hipStreamBeginCapture .. EndCapture on one
                                       thread) overlapping the steps span (DEFINITIONS "Graph replays", capture) */
    double graph_capture_us;      /**< time of the union of those windows inside the steps span, µs */
    double graph_hidden_idle_us;  /**< device-idle gaps inside the steps that may hold an unrecorded replay:
                                       each device's first gap ending after such a launch started, summed, µs */
    uint64_t gpu_ops_unlinked;    /**< GPU ops (kernels, memcpys, memsets) of the whole trace with no runtime or
                                       driver call of the same correlation id: kept in every busy and idle number,
                                       dropped by HTA's correlation join (DEFINITIONS "Where we differ from HTA") */
    double optimizer_time_us;     /**< Optimizer.step host time inside the steps span; NaN without steps */
    uint64_t optimizer_kernels;   /**< kernels launched from inside Optimizer.step */
    double optimizer_kernel_time_us;
    uint64_t optimizer_fused_kernels; /**< of those, multi_tensor_apply / fused kernels */

    size_t kernel_stat_count;     /**< all kernel names, sorted by total_us desc */
    gpudiag_kernel_stat *kernel_stats;
    double class_time_us[GPUDIAG_KCLASS_COUNT];
    double matmul_tensor_core_share; /**< Tensor Core kernel time ÷ GEMM + conv + attention kernel time; NaN without those */

    /* idle gaps inside the steps, summed over devices (idle.c) */
    double idle_gap_us;           /**< total device-idle time inside the steps span */
    double idle_step_us;          /**< the per-step unit of the idle shares, µs: steps span ÷ steps (the window
                                       the gaps are taken from, per step); equals avg_step_us when the steps
                                       tile their span, larger when they leave time between them; NaN without
                                       steps (DEFINITIONS "Idle gaps and their causes") */
    double idle_cause_us[GPUDIAG_IDLE_CAUSE_COUNT]; /**< idle_gap_us split by cause */
    double stream_wait_graph_us;  /**< of idle_cause_us[STREAM_WAIT]: gaps whose next op came from a graph launch */
    double stream_wait_event_us;  /**< of idle_cause_us[STREAM_WAIT], not graph: a cudaStreamWaitEvent-type call
                                       started between the launches of the ops before and after the gap */
    double queued_host_us;        /**< of the stream_wait and kernel_wait gaps: the time a runtime call or CPU Exec
                                       op ran (what the breakdown counts as host time, not the host's fault) */
    uint64_t compiled_calls;      /**< host ops running torch.compile'd code ("Torch-Compiled Region",
                                       "CompiledFunction", "## Call CompiledFxGraph ..."): the model is already
                                       compiled, so the host advice does not stop at "use torch.compile"; 0 none */
    double profiler_host_us;      /**< of the profiler gaps (the profiler's own overhead covers half or more): the
                                       time a runtime call or CPU Exec op ran; the host was held by the profiler */
    double sync_host_us;          /**< of the sync gaps: the time a runtime call or CPU Exec op ran — mostly the
                                       blocking sync call itself, which the breakdown counts as runtime: the host
                                       waited for the GPU, it was not late to launch (sync_stall owns it) */
    double alloc_idle_us;         /**< device-idle time, summed over devices, of the gaps of causes other than
                                       startup and compilation during which an allocator call (cudaMalloc/cudaFree
                                       and kin, gd_runtime_alloc_kind) is in progress (DEFINITIONS "Allocator
                                       churn", one window or one step); memory.allocator.idle_us in JSON */
    double host_launch_long_gap_us; /**< of idle_cause_us[HOST_LAUNCH]: the time in gaps longer than 100 µs (HTA's
                                       launch-delay outlier bound), summed over devices: host work of its own,
                                       not launch pacing (docs/FINDINGS.md host_launch_bound) */
    double collective_host_us;    /**< of idle_cause_us[COMMUNICATION]: gaps won by the host side of coalesced
                                       collectives (flatten/unflatten_dense_tensors), summed over devices */
    uint64_t idle_gap_count;
    size_t top_gap_count;         /**< the largest gaps, longest first */
    gpudiag_gap *top_gaps;
    size_t stream_idle_count;     /**< HTA per-stream breakdown, by device then stream */
    gpudiag_stream_idle *stream_idle;
    gpudiag_gap *gaps;            /**< every one of the idle_gap_count gaps (or the gaps_kept longest when
                                       gpudiag_analyze_opts.max_gaps limits them), by device then start;
                                       cpu_op is NULL here (top_gaps names it) */
    size_t gaps_kept;             /**< entries in gaps: idle_gap_count unless max_gaps limited them */
    gpudiag_timeline timeline;    /**< GPU activity and idle causes over the steps, downsampled */
    gpudiag_transfer transfers[GPUDIAG_COPY_KIND_COUNT]; /**< memcpys inside the steps span, by direction */
    gpudiag_transfer pageable;    /**< those with pageable host memory on one side (Nsight cuda_memcpy_async) */
    /* GEMM fill: GEMM-class kernels starting inside the steps span (DEFINITIONS "GEMM fill") */
    uint64_t gemm_calls;
    double gemm_time_us;          /**< their summed durations */
    double gemm_blocks_known_us;  /**< of that, kernels with Kineto's "blocks per SM" */
    double gemm_underfilled_us;   /**< of that, kernels with fewer blocks than SMs (blocks per SM < 1) */
    double gemm_sm_idle_us;       /**< sum of duration × (1 − blocks per SM) over the underfilled ones */
    double gemm_comm_filled_us;   /**< blocks known, fewer blocks than SMs, but the rest of the SMs run concurrent
                                       communication for >= half the kernel (DEFINITIONS "GEMM fill"); not underfilled */
    uint64_t sync_calls;          /**< host sync calls inside the steps (cudaStreamSynchronize, ...) */
    double sync_time_us;          /**< their total duration */

    /* communication kernels of all devices starting inside the steps span: summed
     * duration by kind, µs (DEFINITIONS "Communication", collective kinds) */
    double comm_kind_us[GPUDIAG_COMM_KIND_COUNT];

    /* communication kernels of the first device that has them, inside the steps
     * span, in start order: the input of the cross-rank analysis */
    size_t comm_kernel_count;
    double *comm_kernel_us;       /**< durations, owned by the report */

    size_t finding_count;         /**< ranked: causes by est_gain, then the rest */
    gpudiag_finding *findings;

    gpudiag_nsight_rules nsight;  /**< NVIDIA's rules (Nsight exports only; `available` 0 otherwise) */

    gpudiag_bottleneck bottleneck;
    const char *verdict;          /**< one actionable line, owned by the report */
    /** The id of the finding the verdict rests on (a static string, equal to one
     *  findings[i].id), NULL when it rests on none (docs/FINDINGS.md "Verdict"). */
    const char *verdict_finding;
    /** Why the verdict does not rest on the first-ranked finding findings[0]
     *  (one sentence, owned by the report); NULL when it does, or there are no
     *  findings.  Traces only: NULL for a monitoring log. */
    const char *verdict_why;

    /** Monitoring-log input (gpudiag_series_analyze, include/gpudiag/series.h):
     *  the `series` section; NULL for a trace.  Owned by the report. */
    struct gpudiag_series_summary *series;

    /** Per-kernel FLOPs, intensity and roofline class (include/gpudiag/roofline.h,
     *  docs/DEFINITIONS.md "Roofline of the kernels"); NULL when no kernel's FLOPs
     *  are known (no `Input Dims` / `flops` args and no --ncu).  Owned by the report. */
    struct gpudiag_roofline *roofline;

    /** Memory savings and what they cost (issue 21): recompute of activation
     *  checkpointing.  Traces only; zero/NaN for a monitoring log. */
    gpudiag_recompute_seen recompute;

    /** The memory timeline per GPU from the trace's `[memory]` events and the allocator's
     *  cudaMalloc/cudaFree calls inside the steps (include/gpudiag/memory.h, docs/DEFINITIONS.md
     *  "Memory timeline"); NULL for a monitoring log.  Owned by the report. */
    struct gpudiag_memory *memory;

    /* Fields below are appended (a report's layout only grows at its end).
     * Shares and rates computed once by the analysis, which the renderers and
     * rules read instead of computing them again (issue 20). */
    /** PCIe rate per direction of the first device whose GPU was identified
     *  (devices[].pcie_gbs_per_dir > 0), GB/s, theoretical; NaN when none. */
    double pcie_link_gb_per_s;
    gpudiag_transfer_rate transfer_rates[GPUDIAG_COPY_KIND_COUNT]; /**< of transfers[k] */
    gpudiag_transfer_rate pageable_rate; /**< of pageable */
    /** class_time_us[c] / kernel_time_us (fraction 0..1); NaN when kernel_time_us
     *  is not > 0 (a monitoring log, or no kernels). */
    double class_share[GPUDIAG_KCLASS_COUNT];
    /** comm_kind_us[k] / the sum of comm_kind_us (fraction 0..1, DEFINITIONS
     *  "Communication", collective kinds); NaN when that sum is not > 0. */
    double comm_kind_share[GPUDIAG_COMM_KIND_COUNT];
    /** gemm_underfilled_us / gemm_blocks_known_us (fraction 0..1, DEFINITIONS
     *  "GEMM fill"); NaN when gemm_blocks_known_us is not > 0. */
    double gemm_underfilled_share;
    /** Private: the arena that owns this report, its strings and its arrays
     *  (src/util/arena.h); gpudiag_report_free frees it, and with it
     *  everything, in one call.  A field appended here and allocated from it
     *  needs no free line. */
    struct gd_arena *arena;
    /** The kernel classes by class_time_us, longest first, ties in class order
     *  (all GPUDIAG_KCLASS_COUNT of them; those with no time last). */
    gpudiag_kernel_class class_order[GPUDIAG_KCLASS_COUNT];
    /** Sum of comm_kernel_us[0..comm_kernel_count), µs, in start order; 0 when none. */
    double comm_kernel_time_us;
    gpudiag_lora_seen lora;       /**< LoRA adapter GEMMs (issue 21) */
    gpudiag_accum_seen accumulation; /**< gradient accumulation (issue 21) */
    gpudiag_offload_seen offload; /**< CPU offload traffic (issue 21) */
    /* the collectives of comm_kernel_us (same order and count), for per-rank summaries (issue 22) */
    int64_t *comm_kernel_start_ns; /**< start, trace clock × 1000 (ns); owned by the report */
    unsigned char *comm_kernel_kind; /**< gpudiag_comm_kind of each (DEFINITIONS "Communication"); owned */
    /** bytes each moved, as NCCL-tests counts a collective's size, from its record_param_comms
     *  args (DEFINITIONS "Communication", collective bytes); NaN when unknown; owned */
    double *comm_kernel_bytes;
    /** µs of each during which no other GPU work ran on its device: its share of the
     *  Communication role (DEFINITIONS "Communication", exposed wait); owned */
    double *comm_kernel_exposed_us;
    /** its process group's size ("Group size"), 0 when unknown; owned */
    int32_t *comm_kernel_group_size;
    /** Kernel, copy and memset launch calls of the whole trace (cudaLaunchKernel, cuLaunchKernel,
     *  cudaMemcpyAsync, cudaMemsetAsync and their HIP kin; not graph launches): with no GPU op they
     *  mean the profiler lost the device records (DEFINITIONS "Time and events", launch calls
     *  without GPU records; finding input_gpu_records_dropped).  0 for a monitoring log. */
    uint64_t gpu_launch_calls;
    /** algorithm bandwidth of those collectives, NCCL-tests' algbw: their bytes summed ÷ their
     *  durations summed, over those with known bytes, GB/s (10^9 B/s); a lower bound of the
     *  link's rate, since a duration holds the wait for the other ranks (DEFINITIONS
     *  "Communication", bandwidth); NaN when no collective has known bytes */
    double comm_alg_gb_per_s;
    /** NCCL-tests' bus bandwidth of the same: each one's bytes × 2(n−1)/n (all-reduce),
     *  (n−1)/n (all-gather, reduce-scatter, all-to-all), 1 (broadcast, send/recv), n its group
     *  size, summed ÷ their durations summed, over those whose bytes and factor are known,
     *  GB/s; NaN when none */
    double comm_bus_gb_per_s;
    /** the GPU-to-GPU link's rate per direction of the first device the GPU table names
     *  (its nvlink_bw_gbs_total ÷ 2: NVLink, Infinity Fabric), GB/s; NaN when unknown */
    double nvlink_gb_per_s;
    /** the collectives' exposed wait per step: comm_kernel_exposed_us summed ÷ steps, µs (the
     *  collective kernels of the first device with any, starting inside the steps span, while no
     *  other GPU op runs on that device).  Not avg_role_us[GPUDIAG_ROLE_COMMUNICATION], the step
     *  breakdown's Communication role, which also counts the host's nccl:/gloo: calls while no GPU
     *  op runs, all devices, clipped to the steps (DEFINITIONS "Communication", exposed
     *  communication: two numbers).  0 with steps and no collective; NaN without steps. */
    double comm_kernel_exposed_us_per_step;
    /** Recurring torch.compile compilation (DEFINITIONS "Idle gaps and their causes", rule 0,
     *  recompilation): the steps whose device-idle gaps of cause compilation are steady state
     *  (0: compilation does not recur, all of it is start-up), their compilation idle summed over
     *  the devices, µs (a part of idle_cause_us[GPUDIAG_IDLE_COMPILATION] that is not start-up),
     *  and the start of the first of those steps, ns (which steps: steps[].recompiling; an initial
     *  compile after it stays start-up).  Not in the JSON: torch_recompilation's evidence. */
    size_t recompile_steps;
    double recompile_idle_us;
    int64_t recompile_from_ns;
    /** Kernel launch calls inside the steps (the whole trace without step markers):
     *  cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel, cuLaunchKernelEx, hipLaunchKernel,
     *  hipExtModuleLaunchKernel; not graph launches, nor launches inside a stream capture on their
     *  thread, which run nothing (DEFINITIONS "Time and events", kernel launch
     *  calls without kernels; finding input_kernels_missing).  0 for a monitoring log. */
    uint64_t kernel_launch_calls;
    /** of those, the calls joined by correlation id to at least one kernel */
    uint64_t kernel_launches_joined;
    /** kernels of the whole trace joined to no runtime/driver call (no correlation id, or one no
     *  recorded call has): possibly the missing kernels of kernel_launch_calls */
    uint64_t kernels_unlinked;
    /** Kernels joined to their launch call whose GPU start lies more than 50 µs before the call's
     *  host start (GD_CLOCK_SKEW_NS): GPU and host clocks disagree (DEFINITIONS "Kernels", kernels
     *  before their launch; finding input_gpu_clock_skew).  0 for a monitoring log. */
    uint64_t kernels_before_launch;
    /** median and largest offset (call start − kernel start) over those kernels, µs; NaN when none */
    double launch_skew_median_us;
    double launch_skew_max_us;
    /** the largest offset (call start − kernel start) over the first / last ceil(n/10) of the n
     *  linked kernels by GPU start, µs: a lower bound of the clock skew at the trace's start / end
     *  (DEFINITIONS "Kernels", skew size and drift); negative when they all start after their
     *  calls; NaN when no kernel is linked */
    double launch_skew_first_us;
    double launch_skew_last_us;
    /** Correlation ids of several processes (DEFINITIONS "Time and events"; finding
     *  input_processes_merged): host pids of the runtime/driver calls (counted up to 8; 0 when
     *  the reader names none), and, when there are two or more, the correlation ids carried by
     *  two or more calls (ambiguous: joined to nothing), those calls, and the GPU ops with those
     *  ids (counted in gpu_ops_unlinked). 0 when none. */
    uint32_t host_processes;
    uint64_t corr_ambiguous_ids;
    uint64_t corr_ambiguous_calls;
    uint64_t corr_ambiguous_ops;
    /** Kernels joined to their launch call that start more than 1 µs (GD_CLOCK_SKEW_START_NS)
     *  before the call's host start, and the largest such offset, µs (NaN when none): a
     *  systematic offset under 50 µs shows here only (DEFINITIONS "Kernels", kernels before their
     *  launch). 0 for a monitoring log. */
    uint64_t kernels_before_launch_start;
    double launch_skew_start_max_us;
    /** appended: step markers folded into an overlapping one of the same number (a file holding
     *  several processes' traces; DEFINITIONS "Steps" 1) */
    int steps_markers_merged;
    /** appended: the host start of the first kept step (its ProfilerStep range), trace clock µs;
     *  NaN without steps from markers.  The cross-rank wait inherited from before the window
     *  compares it between ranks (DEFINITIONS "Ranks and stragglers") */
    double first_step_host_start_us;
    /** appended: step markers overlapping the one before them of another number by more than
     *  max(10 µs, 1 % of the shorter), and step numbers repeated (after the folding): the step
     *  boundaries are unreliable (DEFINITIONS "Steps" 1, finding input_steps_overlap) */
    int steps_markers_overlapping;
    int steps_numbers_repeated;
} gpudiag_report;

/** Options for gpudiag_analyze(); zero-initialise, then set what you need. */
typedef struct gpudiag_analyze_opts {
    int reserved;                 /**< must be 0 */
    /* MFU from a trace (docs/DEFINITIONS.md "MFU / HFU"): all optional, 0/NULL = unknown */
    double model_flops_per_token; /**< gpudiag_flops.model (include/gpudiag/mfu.h); 0 = no MFU */
    double hardware_flops_per_token; /**< gpudiag_flops.hardware (recompute); 0 = the model FLOPs */
    double tokens_per_step;       /**< tokens each GPU (rank) processes per step */
    const char *gpu;              /**< a GPU table name overriding what the trace reports; NULL = identify */
    const char *dtype;            /**< dtype of the matmul peak; NULL = bf16, or fp16 where the GPU has no BF16 */
    double peak_tflops;           /**< override the peak (TFLOP/s per GPU); 0 = from the table */
    double mem_bw_gbs;            /**< override the memory bandwidth (GB/s); 0 = from the table */
    /** An Nsight Compute CSV read with gpudiag_ncu_read() (include/gpudiag/roofline.h):
     *  its FLOPs and DRAM bytes feed the roofline; NULL = none.  Not modified; may be
     *  freed after the call. */
    const struct gpudiag_ncu *ncu;
    /** Idle gaps kept in report->gaps: 0 = every one (the default); N > 0 = only the N
     *  longest (ties: the earlier first), still ordered by device then start, and
     *  report->gaps_kept says how many.  The totals (idle_gap_count, idle_gap_us,
     *  idle_cause_us, the timeline) always count every gap.  A caller that does not walk
     *  every gap (the JSON report lists at most GPUDIAG_JSON_GAPS) saves 56 bytes per gap,
     *  about 400 MB on a 28 GB trace of 7 M gaps (docs/MEMORY.md). */
    size_t max_gaps;
    /** Threads the analysis may use where its work splits (issue 24): 0 or 1 = the
     *  calling thread only; more = launch statistics run beside the idle-time pass,
     *  which runs its per-stream breakdown and CPU-op host sets beside the runtime
     *  calls' sets (two extra threads at most today).  The report is the same
     *  whatever the value. */
    int threads;
} gpudiag_analyze_opts;

/** The JSON report's idle.gaps[] lists at most this many gaps, the longest. */
#define GPUDIAG_JSON_GAPS 1000

/**
 * Run every analysis and rule over a trace.
 *
 * trace: read with gpudiag_trace_read(); not modified.
 * opts:  may be NULL for defaults.
 * out:   receives the report; free with gpudiag_report_free().
 * err:   optional.
 *
 * Definitions follow the PyTorch TensorBoard profiler plugin (steps,
 * breakdown, GPU utilization, SM efficiency, occupancy) and Holistic Trace
 * Analysis (temporal breakdown, overlap, launch statistics); see
 * docs/DEFINITIONS.md for each number.
 *
 * Returns GPUDIAG_OK, GPUDIAG_ERR_ARG (NULL trace/out) or GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_analyze(const gpudiag_trace *trace, const gpudiag_analyze_opts *opts,
                               gpudiag_report **out, gpudiag_error *err);

/** Free a report, with every string and array in it (one arena), and set
 *  *report to NULL.  NULL-safe. */
void gpudiag_report_free(gpudiag_report **report);

/**
 * Read and analyse one file as `gpudiag analyze FILE` does without --format:
 * the format is told from the content.  A monitoring log (nvidia-smi dmon,
 * --query-gpu CSV, -q, dcgmi dmon, dcgm-exporter text; include/gpudiag/series.h)
 * goes through gpudiag_series_read() and gpudiag_series_analyze(); anything
 * else through gpudiag_trace_read_opts() and gpudiag_analyze().  The one call
 * a binding needs (python/gpudiag uses it through ctypes).
 *
 * path:  a file ("-" is standard input, read as a trace).
 * ropts: may be NULL; a monitoring log with ropts->select_steps set is refused
 *        (GPUDIAG_ERR_ARG), as `analyze --steps` refuses it; its other fields
 *        do not apply to a log.
 * aopts: may be NULL; does not apply to a monitoring log.
 * out:   receives the report (free with gpudiag_report_free()); NULL on failure.
 * err:   optional; on failure the code, message, path and byte offset (or line,
 *        for a log, as the readers say) of the problem.
 *
 * Returns what the reader and analysis called return (GPUDIAG_ERR_IO,
 * GPUDIAG_ERR_FORMAT, GPUDIAG_ERR_NOMATCH, GPUDIAG_ERR_NOMEM, ...), or
 * GPUDIAG_ERR_ARG for NULL path or out.
 */
gpudiag_status gpudiag_analyze_path(const char *path, const gpudiag_read_opts *ropts,
                                    const gpudiag_analyze_opts *aopts, gpudiag_report **out, gpudiag_error *err);

/** Flags for the JSON writers' `pretty` argument (1 keeps meaning "indented"). */
#define GPUDIAG_JSON_PRETTY 1       /**< indented output */
#define GPUDIAG_JSON_ALL_KERNELS 2  /**< kernels.top lists every distinct kernel, not the top 50
                                         (what `analyze --save` writes, so `compare` can diff them all) */

/**
 * Write the report as JSON (schema gpudiag.report/1, docs/REPORT.md) through
 * a JSON generator.  pretty: GPUDIAG_JSON_* flags OR-ed (0 = compact, top 50
 * kernels).  Returns GPUDIAG_OK, GPUDIAG_ERR_IO when the stream reports a
 * write error, GPUDIAG_ERR_NOMEM when the generator ran out of memory.
 */
gpudiag_status gpudiag_report_write_json(const gpudiag_report *report, FILE *fp, int pretty,
                                         gpudiag_error *err);

/**
 * The JSON report of gpudiag_report_write_json() in memory: the same bytes.
 *
 * pretty: GPUDIAG_JSON_* flags, as for gpudiag_report_write_json().
 * out:    receives a NUL-terminated string owned by the caller, freed with
 *         gpudiag_json_free(); NULL on failure.
 * len:    optional; receives its length in bytes (without the NUL).
 * Returns GPUDIAG_OK, GPUDIAG_ERR_ARG (NULL report or out) or GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_report_json(const gpudiag_report *report, int pretty, char **out, size_t *len,
                                   gpudiag_error *err);

/** Free a string from gpudiag_report_json() and set *json to NULL.  NULL-safe. */
void gpudiag_json_free(char **json);

/** Options for the terminal report. */
typedef struct gpudiag_text_opts {
    int color;    /**< 1: ANSI colours (the CLI sets this only on a tty without NO_COLOR) */
    int verbose;  /**< 1: every step, finding detail and 30 kernels instead of 10 */
    int width;    /**< terminal columns; 0 means 100 */
} gpudiag_text_opts;

/** Write the human report: verdict, breakdown, ranked findings, details.
 *  Returns GPUDIAG_OK or GPUDIAG_ERR_IO on a write error. */
gpudiag_status gpudiag_report_write_text(const gpudiag_report *report, FILE *fp,
                                         const gpudiag_text_opts *opts, gpudiag_error *err);

/* ---------------------------------------------------------------------- */
/* Several ranks of one job                                                */
/* ---------------------------------------------------------------------- */

/** One rank's headline numbers, side by side with the others. */
typedef struct gpudiag_rank {
    int rank;                     /**< distributedInfo.rank, else the input's position */
    int rank_inferred;            /**< 1 when the trace has no distributedInfo.rank (rank = position) */
    const char *path;             /**< owned by the cluster */
    size_t steps;
    double step_time_us;          /**< mean step time */
    double gpu_utilization;
    double comm_share;            /**< exposed communication / step */
    size_t comm_kernels;
    double comm_time_us_per_step; /**< summed communication kernel time per step */
    double comm_wait_us_per_step; /**< time this rank's collectives waited for the last rank to arrive */
    gpudiag_bottleneck bottleneck;
    /* appended: all-to-all (MoE token dispatch/combine; DEFINITIONS "All-to-all and expert load imbalance") */
    double all_to_all_us_per_step;      /**< summed all-to-all kernel time per step, µs; NaN when kinds unknown */
    double all_to_all_share;            /**< that / step_time_us (fraction 0..1); NaN when unknown */
    double all_to_all_wait_us_per_step; /**< of that, the wait for the last rank (as comm_wait over the all-to-alls
                                             matched by position); NaN when < 2 ranks run all-to-alls */
    /** appended: the collectives' exposed wait per step, µs (the report's
     *  comm_kernel_exposed_us_per_step; a summary's collectives.exposed_us summed ÷ steps;
     *  DEFINITIONS "Communication", exposed communication: two numbers); 0 without collectives,
     *  NaN when unknown (a summary written before exposed_us) */
    double comm_exposed_us_per_step;
    /** appended: the wait at the window's first collective that the rank's earlier start of the window
     *  accounts for, per step, µs: left out of comm_wait and all_to_all_wait (DEFINITIONS "Ranks and
     *  stragglers", wait inherited from before the window); NaN when not assessed */
    double inherited_wait_us_per_step;
} gpudiag_rank;

/** Reasons a directory's traces may not be one job (gpudiag_cluster.mixed_job;
 *  DEFINITIONS "Ranks and stragglers"). */
enum {
    GPUDIAG_MIX_WORLD_SIZE = 1u << 0,  /**< distributedInfo.world_size differs between traces */
    GPUDIAG_MIX_DIST_INFO = 1u << 1,   /**< some traces have distributedInfo, others not */
    GPUDIAG_MIX_RANK_RANGE = 1u << 2,  /**< a rank is >= its trace's world size */
    GPUDIAG_MIX_GPU = 1u << 3,         /**< the first GPU's name differs between traces */
    GPUDIAG_MIX_GPU_COUNT = 1u << 4    /**< the number of GPUs differs (compare's sides only; DEFINITIONS
                                            "Comparing runs", Same set-up?) */
};

/** Snake-case name of one GPUDIAG_MIX_* bit ("world_size", "distributed_info",
 *  "rank_range", "gpu", "gpu_count"; "unknown" for anything else): the strings of
 *  stragglers.mixed_job in the JSON report.  Static storage, never NULL. */
const char *gpudiag_mix_name(unsigned bit);

/** Cross-rank analysis (docs/DEFINITIONS.md "Ranks and stragglers"). */
typedef struct gpudiag_cluster {
    size_t rank_count;
    gpudiag_rank *ranks;          /**< in input order */
    size_t collectives;           /**< collectives matched by position across ranks */
    int collectives_mismatch;     /**< 1 if ranks recorded different numbers of them */
    int duplicate_ranks;          /**< 1 if a rank number appears in more than one input */
    unsigned mixed_job;           /**< why the inputs may not be one job: GPUDIAG_MIX_* bits, 0 if they look like one */
    int straggler;                /**< rank number of the straggler, -1 if none stands out */
    double straggler_wait_us_per_step; /**< mean, over the other ranks, of their wait per step */
    double straggler_share;       /**< that / mean step time of the others */
    double net_wait_us_per_step;  /**< the others' mean wait minus the candidate's own wait (the rank that waits
                                       least): what the others wait on it beyond what it waits on them; NaN when
                                       no collective is matched (DEFINITIONS "Ranks and stragglers") */
    double net_wait_noise_us_per_step; /**< 2 standard errors of that sum over the collectives, per step; NaN with
                                       fewer than 2 collectives (the noise is unknown: no straggler named) */
    const char *verdict;          /**< one line, owned by the cluster */
    size_t finding_count;         /**< cross-rank findings (`straggler`), owned by the cluster */
    gpudiag_finding *findings;
    int world_size;               /**< distributedInfo.world_size the traces state; -1 if none does or they differ */
    int missing_ranks;            /**< world_size − distinct ranks present (> 0: some ranks absent); -1 if unknown */
    /* appended: all-to-all and expert load imbalance across ranks (DEFINITIONS "All-to-all and expert load
     * imbalance"); 0 / NaN / -1 when fewer than two ranks ran all-to-all kernels of known kind */
    size_t all_to_all_collectives;      /**< all-to-alls matched by position (the j-th all-to-all of every rank) */
    double all_to_all_wait_us_per_step; /**< mean over those ranks of their all-to-all wait per step, µs */
    double all_to_all_wait_share;       /**< that / their mean step time (fraction 0..1): what balance would save */
    double all_to_all_imbalance;        /**< max / mean over those ranks of (step time − all-to-all wait): the
                                             time analogue of max/mean tokens per rank (≥ 1; 1 = balanced) */
    int all_to_all_loaded_rank;         /**< rank number with the least all-to-all wait (the most work), -1 if none */
    /* appended: the wait inherited from before the window (DEFINITIONS "Ranks and stragglers"); NaN when not
     * assessed (the ranks' collectives do not end together on one clock, start times unknown, not one job) */
    double start_skew_us;               /**< spread of the ranks' first-step starts, µs (one clock) */
    double inherited_wait_us_per_step;  /**< mean over the ranks of the wait at the window's first collective that
                                             their earlier start accounts for, per step, µs: left out of every wait */
} gpudiag_cluster;

/**
 * Compare the reports of the ranks of one job.  Collectives are matched by
 * position (the j-th communication kernel of every rank); all ranks leave a
 * blocking collective together, so a rank's kernel lasts longer by the time it
 * waited for the last one to arrive: wait = duration − the shortest duration
 * of that collective over the ranks (TensorBoard plugin's "min duration across
 * workers" idea; clock-independent, unlike start times).  The straggler is the
 * rank that waits least while the others wait ≥ 1 % of the step on it; none
 * is named when the traces may not be one job (mixed_job != 0).
 *
 * reports: n ≥ 1 reports (not modified; may be freed after this call).
 * Returns GPUDIAG_OK, GPUDIAG_ERR_ARG or GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_cluster_analyze(const gpudiag_report *const *reports, size_t n, gpudiag_cluster **out,
                                       gpudiag_error *err);

/** Free a cluster and set *cluster to NULL.  NULL-safe. */
void gpudiag_cluster_free(gpudiag_cluster **cluster);

/** Write {"schema":"gpudiag.cluster/1", "ranks":[...], "stragglers":{...}, "reports":[full reports]}.
 *  pretty: GPUDIAG_JSON_* flags, applied to every report inside.  Errors as
 *  gpudiag_report_write_json. */
gpudiag_status gpudiag_cluster_write_json(const gpudiag_cluster *c, const gpudiag_report *const *reports,
                                          FILE *fp, int pretty, gpudiag_error *err);

/** Write the side-by-side rank table and the straggler verdict. */
gpudiag_status gpudiag_cluster_write_text(const gpudiag_cluster *c, FILE *fp, const gpudiag_text_opts *opts,
                                          gpudiag_error *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUDIAG_GPUDIAG_H */
