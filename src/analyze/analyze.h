/*
 * analyze.h — internal entry points shared by the analyses.
 */
#ifndef GD_ANALYZE_ANALYZE_H
#define GD_ANALYZE_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "gpudiag/gpudiag.h"
#include "gpudiag/series.h"
#include "analyze/intervals.h"
#include "util/util.h" /* gd_vec */
#include "analyze/roofline.h" /* gd_op_join */

struct gpudiag_trace;

/* A GPU op's correlation id, for joining runtime calls to the ops they launched. */
typedef struct corr_entry {
    int64_t correlation;
    uint32_t op;       /* index into gpu_ops */
} corr_entry;

/* A runtime/driver call's correlation id and index, sorted by correlation. */
typedef struct rt_corr_entry {
    int64_t correlation;
    uint32_t idx;      /* index into runtimes */
    uint32_t pad;
} rt_corr_entry;

/* State shared by the analyses of one report. */
typedef struct actx {
    const struct gpudiag_trace *t;
    gpudiag_report *r;
    corr_entry *corr;         /* gpu ops with a correlation, sorted */
    size_t ncorr;
    uint8_t *op_is_comm;      /* per gpu op: communication kernel (TBP ∪ HTA rule) */
    gd_iv *steps;             /* final steps as intervals */
    size_t nsteps;
    int64_t span_s, span_e;   /* first step start .. last step end */
    int64_t hspan_s, hspan_e; /* host steps span: the kept steps' host ranges, first start .. latest
                               * end, before the device-side adjustment (DEFINITIONS "Steps" 4):
                               * host-side counts (CPU ops per step) use it, GPU-side ones span_s..e */
    uint32_t *nflags;         /* per name id: NF_* bits, classified once (gd_name_flags) */
    rt_corr_entry *rt_index;  /* runtime calls with a correlation, sorted */
    size_t nrt_index;
    uint32_t *rt_of_op;       /* per gpu op: 1 + index into runtimes of the call that launched it (the
                               * first call with its correlation), 0: none; gd_runtime_of_op */
    uint32_t *corr_of_rt;     /* per runtime call: 1 + the first index into corr with its correlation,
                               * 0: none; gd_corr_of_runtime */
    gd_vec comm_win;          /* gd_iv: the instants the breakdown gives the Communication role, merged */
    gd_vec dl_win;            /* gd_iv: the instants the breakdown gives the DataLoader role, merged */
    struct idle_ctx *idle;    /* the idle rows' working state, gd_idle_begin to gd_idle_gaps (idle.c) */
    gd_op_join opk;           /* the counted ops joined to their kernels (gd_join_op_kernels): roofline, lora */
    size_t max_gaps;          /* gpudiag_analyze_opts.max_gaps: 0 = keep every idle gap */
    const gpudiag_analyze_opts *opts; /* the caller's options, or NULL (defaults) */
} actx;

/* Name classes, computed once per distinct name (kclass.c has the rules). */
enum gd_name_flag {
    NF_TC = 1u << 0,          /* Tensor Core kernel */
    NF_COMM = 1u << 1,        /* communication kernel (HTA) */
    NF_COMPUTE = 1u << 2,     /* HTA COMPUTATION kernel */
    NF_SYNC = 1u << 3,        /* host sync call */
    NF_QLAUNCH = 1u << 4,     /* launch call counted by HTA's queue length */
    NF_PAGEABLE = 1u << 5,    /* memcpy touching pageable memory */
    NF_FUSED_OPT = 1u << 6,   /* multi-tensor / fused optimizer kernel */
    NF_GRAPH_LAUNCH = 1u << 7, /* CUDA/HIP graph launch call */
    NF_WAIT_EVENT = 1u << 14, /* cudaStreamWaitEvent and kin */
    NF_COPY_SHIFT = 8,        /* bits 8-9: gpudiag_copy_kind of a memcpy name */
    NF_CLASS_SHIFT = 10,      /* bits 10-13: gpudiag_kernel_class of a kernel name */
    NF_DONE = 1u << 15,
    NF_ALLOC_SHIFT = 16       /* bits 16-17: gd_runtime_alloc_kind of a runtime call name */
};

/* The NF_* bits of a name id, classified on first use (a->nflags caches them:
 * not safe from two threads until gd_name_flags_all ran). */
unsigned gd_name_flags(actx *a, uint32_t id);
/* Classify every name of the trace now, so that threads may call
 * gd_name_flags side by side afterwards (it then only reads). */
void gd_name_flags_all(actx *a);

/* The copy direction encoded in a name's flags. */
static inline gpudiag_copy_kind gd_flags_copy_kind(unsigned f)
{
    return (gpudiag_copy_kind)((f >> NF_COPY_SHIFT) & 3u);
}

/* The kernel class encoded in a name's flags. */
static inline gpudiag_kernel_class gd_flags_class(unsigned f)
{
    return (gpudiag_kernel_class)((f >> NF_CLASS_SHIFT) & 15u);
}

/* The allocator kind (GD_ALLOC_*, gd_runtime_alloc_kind) encoded in a name's flags. */
static inline int gd_flags_alloc_kind(unsigned f)
{
    return (int)((f >> NF_ALLOC_SHIFT) & 3u);
}

/* Raise the bins of tl (the GPU timeline's bins, tl->bins > 0) that [s, e]
 * touches (an instant when s == e) to at least v; bins is tl->bins long
 * (idle.c, which fills the timeline with it). */
void gd_timeline_bin_max(double *bins, const gpudiag_timeline *tl, int64_t s, int64_t e, double v);

/* The runtime/driver call that launched gpu op op_index (an index into
 * t->gpu_ops): the first call, in the trace's order, with the op's
 * correlation id; NULL when the op has none or no call has it.  Looked up
 * once per op in build_corr_index (a merge of the two sorted indexes). */
const struct gd_runtime *gd_runtime_of_op(const actx *a, size_t op_index);

/* The first index into a->corr of the GPU ops with runtime call rt_index's
 * correlation id (an index into t->runtimes; the ops follow while the
 * correlation matches), or a->ncorr when none: a binary search's answer,
 * looked up once per call in build_corr_index. */
size_t gd_corr_of_runtime(const actx *a, size_t rt_index);

/* Idle time (idle.c): HTA's per-stream idle breakdown and gpudiag's
 * attribution of each device-idle gap inside the steps to a cause, as six
 * rows of the passes (issue 24: the middle four run side by side with
 * opts.threads > 1).  gd_idle_begin makes a->idle (the timeline's frame, the
 * gap arrays); gd_idle_streams is the per-stream breakdown (r->stream_idle);
 * gd_idle_host_calls the graph replays and the host activity of runtime
 * calls and MPI calls, gd_idle_host_ops that of CPU ops, each into sets of
 * its own, merged; gd_idle_device_ops sorts the GPU ops by device, then
 * start; gd_idle_gaps joins the sets, walks each device's gaps,
 * labels the top ones and frees a->idle.  The middle four only after
 * gd_idle_begin, and gd_idle_gaps after all four.  Each returns 0 or -1
 * (OOM); on failure gd_idle_free (actx's free) frees what is left. */
int gd_idle_begin(actx *a);
int gd_idle_streams(actx *a);
int gd_idle_host_calls(actx *a);
int gd_idle_host_ops(actx *a);
int gd_idle_device_ops(actx *a);
int gd_idle_gaps(actx *a);
void gd_idle_free(actx *a);

/* mean/median/p90/min/max/stddev (population) of n values; NaN when n == 0.
 * Quantiles interpolate linearly between closest ranks. */
void gd_stats_compute(const double *values, size_t n, gpudiag_stats_us *out);

/* What identifies a trace's job (DEFINITIONS "Ranks and stragglers"): rank and
 * world size from distributedInfo (-1 when absent), the first GPU's name (NULL
 * or "" when unknown, borrowed), the number of GPUs (-1 when unknown). */
typedef struct gd_job_id {
    int rank, world_size, gpu_count;
    const char *gpu;
} gd_job_id;

/* Fill id from a report (pointers borrow from r). */
void gd_job_id_from_report(const gpudiag_report *r, gd_job_id *id);

/* The GPUDIAG_MIX_* bits that say ids[0..n) are not one job (cluster.c; the one
 * rule behind stragglers.mixed_job and compare's mixed_job).  GPU_COUNT is set
 * when two known counts differ. */
unsigned gd_job_mix(const gd_job_id *ids, size_t n);

/* "different world sizes, different GPUs" for the set bits, into buf[cap]. */
void gd_mix_words(unsigned mix, char *buf, size_t cap);

/* What the cross-rank analysis reads of one rank (cluster.c): the report's
 * numbers, or the same numbers read back from a per-rank summary (summary.c),
 * so that `analyze DIR` and `merge` run the one analysis.  rank: the job's
 * rank, -1 when unknown (then the input's position); path and gpu borrowed
 * (gpu NULL or "" when unknown); comm_us: durations of the first device's
 * communication kernels inside the steps, µs, in start order (borrowed). */
typedef struct gd_rank_input {
    int rank, world_size;
    const char *path;
    const char *gpu;
    size_t steps;
    double step_time_us, gpu_utilization, comm_share; /* mean step time µs; fractions 0..1; NaN unknown */
    gpudiag_bottleneck bottleneck;
    size_t comm_count;
    const double *comm_us;
    /* gpudiag_comm_kind of each of comm_us (comm_count of them); NULL when unknown
     * (a summary that lists durations only): the all-to-all numbers are then NaN */
    const unsigned char *comm_kind;
    /* the exposed wait of each of comm_us (µs; DEFINITIONS "Communication", exposed wait); NULL when
     * unknown (a summary written before exposed_us): comm_exposed_us_per_step is then NaN */
    const double *comm_exposed_us;
    /* the start of each of comm_us, trace clock ns; NULL when unknown (a summary written before start_us) */
    const int64_t *comm_start_ns;
    /* the start of the rank's first step, trace clock µs; NaN when unknown (a summary written before it):
     * with comm_start_ns, the wait inherited from before the window (DEFINITIONS "Ranks and stragglers") */
    double first_step_start_us;
} gd_rank_input;

/* Fill in from a report (pointers borrow from r). */
void gd_rank_input_from_report(const gpudiag_report *r, gd_rank_input *in);

/* gpudiag_cluster_analyze over n rank inputs (the reports' numbers). */
gpudiag_status gd_cluster_analyze_inputs(const gd_rank_input *in, size_t n, gpudiag_cluster **out,
                                         gpudiag_error *err);

/* Per step: startup_idle_us and unexplained_tail_us from the report's idle
 * gaps (steady.c; DEFINITIONS "Steady state of a run").  After gd_idle_gaps. */
void gd_build_steady(gpudiag_report *r);

/* Read a monitoring log of format lf (not GPUDIAG_LOG_AUTO) with
 * gpudiag_series_read() and analyse it into *out (analyze_path.c; the one
 * place `analyze FILE` and gpudiag_analyze_path() do it). */
gpudiag_status gd_analyze_log_file(const char *path, gpudiag_log_format lf, gpudiag_report **out, gpudiag_error *err);

#endif
