/*
 * series_stats.h — statistics of a monitoring series (series_stats.c) and the
 * thresholds of its classification (docs/DEFINITIONS.md "Monitoring series",
 * docs/FINDINGS.md give the source of each).
 */
#ifndef GD_ANALYZE_SERIES_STATS_H
#define GD_ANALYZE_SERIES_STATS_H

#include "gpudiag/series.h"
#include "util/arena.h"

#define GD_SERIES_LOW_UTIL 0.30          /* tuning guides: "利用率低于 30% 的时间占比" */
#define GD_SERIES_HEALTH_MEDIAN 0.70     /* tuning guides: median ≥ 70 % */
#define GD_SERIES_HEALTH_P10 0.40        /* tuning guides: P10 ≥ 40 % */
#define GD_SERIES_HEALTH_LOW_SHARE 0.10  /* tuning guides: low-utilisation share < 10 % */
#define GD_SERIES_HEALTH_MIN_N 2         /* fewer compute values (a snapshot): the targets over time are unknown */
#define GD_SERIES_MEM_FULL 0.80          /* tuning guides: keep ~20 % headroom; ≥ 80 % used is "full" */
#define GD_SERIES_MEM_NEAR_CAP 0.95      /* used ÷ total at which OOM is one batch away */
#define GD_SERIES_MEM_HEADROOM 0.50      /* below this, raise the micro-batch toward ~85 % (tuning guides) */
#define GD_SERIES_BW_HIGH 0.50           /* DRAM active / memory-controller busy counted as high */
#define GD_SERIES_HOLD_SHARE 0.10        /* a GPU holding ≥ 10 % of its memory ... */
#define GD_SERIES_HOLD_BYTES 1073741824.0 /* ... or ≥ 1 GiB when the total is unknown */
#define GD_SERIES_WORK_MIN 0.10          /* a GPU whose compute indicator reached 0.10 did work */
#define GD_SERIES_IDLE_MAX 0.05          /* p95 of the compute indicator below this: idle */
#define GD_SERIES_DIP_DEPTH 0.20         /* a dip: at least 0.20 below the median */
#define GD_SERIES_DIP_MIN_SHARE 0.02     /* ... in at least 2 % of samples */
#define GD_SERIES_ACF_MIN 0.30           /* autocorrelation at the period */
#define GD_SERIES_ACF_SAMPLES 8192       /* samples used for the autocorrelation (the first ones) */
#define GD_SERIES_ACF_MAXLAG 1024        /* longest period searched, in samples */
#define GD_SERIES_TRAFFIC_CORR 0.30      /* |corr(compute, traffic)| for a sawtooth */
#define GD_SERIES_LOADED 0.50            /* compute indicator at which a GPU is "under load" */
#define GD_SERIES_CLOCK_FRACTION 0.90    /* SM clock below 90 % of max under load */
#define GD_SERIES_THROTTLE_SHARE 0.10    /* samples with a throttle reason */
#define GD_SERIES_THROTTLE_COUNTER_MIN_US 1e6 /* a snapshot's reason counters: >= 1 s held down makes a finding */
#define GD_SERIES_UTIL_MISLEADING 0.80   /* GPU-Util at or above ... */
#define GD_SERIES_SMACT_EFFECTIVE 0.80   /* ... while SM active below (DCGM: ≥ 0.8 necessary) */
#define GD_SERIES_UTIL_SMACT_GAP 0.20    /* ... by at least this much */
#define GD_SERIES_TENSOR_LOW 0.30        /* tuning guides: tensor active < 30 % = compute wasted */
/* gpu_util_misleading's hung-collective hint (DEFINITIONS "GPU-Util busy, SMs not"): GPU-Util pegged,
 * SM active near 0 and power near idle for minutes — a collective kernel spinning on a peer that never
 * comes (NeMo#9291: 100 % util at ~100 W of 700 W; horovod#3611: 100 % at 47 W of 250 W) */
#define GD_SERIES_HANG_UTIL_MIN 0.95     /* GPU-Util median at or above */
#define GD_SERIES_HANG_SMACT_MAX 0.10    /* SM active median at or below */
#define GD_SERIES_HANG_POWER_MAX 0.30    /* power median ÷ power limit at or below (when both are logged) */
#define GD_SERIES_HANG_MIN_US 60e6       /* for at least a minute of log (observed span: last - first + interval) */
/* ... without SM active (nvidia-smi, dmon: GPU-Util, memory-controller busy, power only): a busy GEMM or
 * convolution reads and writes memory and draws well over half its limit; a collective kernel polling a
 * flag does neither (NVIDIA/nccl#1033, cupy#3557: GPUs pegged at 100 % "temperature low" while a peer
 * skipped the collective; nccl#968, pytorch#118369) */
#define GD_SERIES_HANG_MEMUTIL_MAX 0.02  /* memory-controller busy median at or below (0-2 %: "about 0") */
#define GD_SERIES_HANG_MEM_USED_MIN 67108864.0 /* bytes: below 64 MiB used no process holds the GPU
                                                (a CUDA context alone takes more), so nothing can hang on it */
#define GD_SERIES_PROF_UNREPORTED_UTIL 0.50 /* GPU-Util median at which all-zero profiling fields are "not reported" */
#define GD_SERIES_FEW_SAMPLES 30        /* fewer samples on a GPU: a short look, low confidence (verdict, low_gpu_utilization) */
#define GD_SERIES_TENSOR_HIGH 0.50       /* tensor active ≥ 50 % with compute high: Tensor-Core-bound */
#define GD_SERIES_RESIDENT 0.95         /* GR engine active median >= 95 %: a kernel resident nearly always (rule 7) */

/* Statistics of col[0..count) (NaN skipped); scratch holds count doubles. */
void gd_metric_stats(const double *col, size_t count, int fraction, double *scratch, gpudiag_metric_stats *st);

/* Fill out; its gpus array is allocated from arena (the report's, which owns
 * it).  0 or -1 on OOM. */
int gd_series_summarize(const gpudiag_series *s, gpudiag_series_summary *out, gd_arena *arena);

#endif
