/*
 * roofline.h — per-kernel FLOPs, arithmetic intensity, achieved TFLOP/s and
 * the roofline class of the top kernels (docs/DEFINITIONS.md "Roofline of the
 * kernels"), and the Nsight Compute CSV reader behind `--ncu FILE`.
 *
 * Definitions: the roofline model of Williams, Waterman and Patterson,
 * "Roofline: an insightful visual performance model for multicore
 * architectures", CACM 52(4), 2009: attainable FLOP/s = min(peak FLOP/s,
 * arithmetic intensity × memory bandwidth); a kernel whose intensity
 * (FLOP per DRAM byte) is below the ridge point peak ÷ bandwidth is
 * memory-bound, above it compute-bound.  Nsight Compute draws the same chart
 * in its "GPU Speed Of Light Roofline Chart" section, counting FLOPs as
 * add + mul + 2 × fma instructions per precision and bytes as dram__bytes.
 *
 * Units: FLOPs and bytes are counts (double), times µs, TFLOP/s = 1e12 FLOP/s,
 * intensity FLOP/byte, shares 0..1.  Unknown is NaN.  Strings belong to the
 * object that holds them (report or ncu table).
 */
#ifndef GPUDIAG_ROOFLINE_H
#define GPUDIAG_ROOFLINE_H

#include <stddef.h>
#include <stdint.h>

#include "gpudiag/gpudiag.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most kernels kept in gpudiag_roofline.kernels (the longest first). */
#define GPUDIAG_ROOFLINE_TOP 10

/** One kernel name on the roofline. */
typedef struct gpudiag_roofline_kernel {
    const char *name;         /**< kernel name (control bytes cleaned); owned by the report */
    const char *source;       /**< "shapes" (GEMM Input Dims), "flops_arg" (profiler `flops`), "ncu"; static */
    const char *dtype;        /**< dtype of the roof it is compared with ("bf16", "fp32", ...); static; NULL if unknown */
    uint64_t calls;           /**< launches counted (with known FLOPs; ncu: launches in the trace, or ncu rows) */
    double time_us;           /**< their summed duration (trace; ncu's gpu__time_duration when standalone) */
    double flops;             /**< summed FLOPs */
    double bytes;             /**< summed bytes (GEMM minimum traffic, or dram__bytes); NaN if unknown */
    double intensity;         /**< flops / bytes, FLOP per byte; NaN if bytes unknown */
    double achieved_tflops;   /**< flops / time */
    double peak_tflops;       /**< dense peak of `dtype` on the GPU; NaN if unknown */
    double peak_share;        /**< achieved / peak, 0..1 */
    double ridge;             /**< peak ÷ memory bandwidth, FLOP per byte; NaN if unknown */
    double attainable_tflops; /**< min(peak, intensity × bandwidth): the roof above this kernel */
    const char *bound;        /**< "compute" (intensity >= ridge), "memory", or NULL when unknown; static */
    int matrix_peak;          /**< 1: an FP32 kernel on AMD Matrix Cores (MFMA), held to the GPU's FP32 matrix
                                   peak (gpudiag_gpu_spec.fp32_matrix_tflops), not the FP32 vector one */
} gpudiag_roofline_kernel;

/** The roofline section of a report (gpudiag_report.roofline). */
typedef struct gpudiag_roofline {
    const char *gpu;          /**< GPU table row of the roofs, static; NULL if unidentified */
    double mem_bw_gbs;        /**< DRAM bandwidth of the roofs (GB/s); NaN if unknown */
    const char *ncu_path;     /**< --ncu FILE, or NULL; owned by the report */
    uint64_t ncu_rows;        /**< rows read from it */
    uint64_t ncu_matched;     /**< of those, rows whose kernel name is in the trace */
    size_t kernel_names;      /**< kernel names with known FLOPs (all, not only the top) */
    uint64_t calls;           /**< launches with known FLOPs */
    double time_us;           /**< their summed duration */
    double flops;             /**< their summed FLOPs */
    double kernel_time_share; /**< time_us ÷ all kernel time of the trace; NaN without kernels */
    size_t kernel_count;      /**< entries in kernels (<= GPUDIAG_ROOFLINE_TOP) */
    gpudiag_roofline_kernel *kernels; /**< the longest first; owned by the report */
} gpudiag_roofline;

/** One profiled launch of an Nsight Compute CSV (`ncu --csv --page raw`). */
typedef struct gpudiag_ncu_kernel {
    char *name;               /**< "Kernel Name"; owned by the table */
    int64_t id;               /**< "ID", -1 if absent */
    double flops_fp64, flops_fp32, flops_fp16; /**< dadd + dmul + 2·dfma, fadd + fmul + 2·ffma, hadd + hmul + 2·hfma */
    double bytes;             /**< dram__bytes.sum (or dram__bytes_read.sum + dram__bytes_write.sum); NaN if absent */
    double time_us;           /**< gpu__time_duration.sum; NaN if absent */
} gpudiag_ncu_kernel;

/** A whole Nsight Compute CSV. */
typedef struct gpudiag_ncu {
    char *path;               /**< owned */
    size_t count;
    gpudiag_ncu_kernel *kernels; /**< file order */
} gpudiag_ncu;

/**
 * Read an Nsight Compute CSV written by `ncu --csv --page raw` (one row per
 * profiled launch; an optional units row right after the header, whose
 * byte/second prefixes — "Kbyte", "Mbyte", "usecond", "msecond" — scale the
 * values by powers of 1000; thousands separators in quoted numbers are
 * accepted).  Needs the column "Kernel Name" and at least one of the FLOP
 * instruction metrics (sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum)
 * or dram__bytes.sum.
 *
 * Returns GPUDIAG_OK; GPUDIAG_ERR_IO when the file cannot be read;
 * GPUDIAG_ERR_FORMAT with err->message naming the line (and err->offset its
 * byte offset) for a file that is not such a CSV (no header, a missing column,
 * a row with the wrong number of fields, a value that is not a number >= 0);
 * GPUDIAG_ERR_NOMEM.  Free *out with gpudiag_ncu_free().
 */
gpudiag_status gpudiag_ncu_read(const char *path, gpudiag_ncu **out, gpudiag_error *err);

/** Free a table and set *ncu to NULL.  NULL-safe. */
void gpudiag_ncu_free(gpudiag_ncu **ncu);

#ifdef __cplusplus
}
#endif
#endif /* GPUDIAG_ROOFLINE_H */
