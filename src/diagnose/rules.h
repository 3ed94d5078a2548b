/*
 * rules.h — the rule catalogue: numbers in, findings and verdict out.
 */
#ifndef GD_DIAGNOSE_RULES_H
#define GD_DIAGNOSE_RULES_H

#include "gpudiag/gpudiag.h"

/* Thresholds (docs/FINDINGS.md gives the source of each). */
#define GD_DATALOADER_SHARE_MIN 0.05     /* TBP: avg DataLoader / avg step > 5% */
#define GD_LOW_UTIL_MAX 0.50             /* TBP: GPU utilization < 50% */
#define GD_VERDICT_GAIN_MIN 0.05         /* a cause leads the verdict with est_gain >= this (FINDINGS Verdict) */
#define GD_UNEXPLAINED_IDLE_MAX 0.20     /* verdict `compute` needs idle of cause other < this share (FINDINGS Verdict) */
#define GD_ITER_MIN_CALLS 3              /* input_first_iteration: DataLoader calls that mark iterations (DEFINITIONS Steps 5) */
#define GD_ITER_FIRST_SHARE 0.50         /* ... the first iteration's share of the window at least */
#define GD_ITER_FIRST_X 3.0              /* ... and at least this x the median complete later iteration */
#define GD_STEPS_SPARSE_COVERAGE 0.50    /* input_steps_sparse: steps cover < this share of their span (DEFINITIONS Steps 6) */
#define GD_LOW_MFU_MAX 0.30              /* tuned dense LLM training: 35-55% MFU (mfu-and-memory.md §3) */
#define GD_LOW_MFU_HIGH 0.15
#define GD_HOST_SHARE_MIN 0.15           /* Runtime + CPU Exec of the step */
#define GD_SHORT_KERNEL_SHARE_MIN 0.50   /* HTA short kernels among launches */
#define GD_SHORT_KERNEL_MEDIAN_US 10.0   /* median kernel duration */
#define GD_STARTUP_MIN_US 100000.0       /* with step markers: first step's lead-in (last step's lead-out) that counts as start-up */
#define GD_ONE_OFF_GAP_SHARE 0.5       /* one gap with this share of its cause's idle time, one step: a one-off (DEFINITIONS "Start-up in the window") */
#define GD_KERNELS_MISSING_MIN_CALLS 10 /* kernel launch calls before too few kernels mean lost records (DEFINITIONS "Time and events", kernel launch calls without kernels) */
#define GD_KERNELS_JOINED_MIN 0.90      /* ... fewer than this share of them with a kernel joined: the kernel records are incomplete (medium) */
#define GD_KERNELS_JOINED_HIGH 0.50     /* ... fewer than this share: most kernels missing, the verdict cannot be judged (high) */
#define GD_CLOCK_SKEW_MIN_KERNELS 10    /* kernels starting > 50 us before their launch call: GPU and host clocks disagree (DEFINITIONS "Kernels", kernels before their launch) */
#define GD_CLOCK_SKEW_MOST 0.50        /* ... or kernels starting > 1 us before their call: this share of the linked (a systematic offset) */
#define GD_CLOCK_SKEW_MIN_SHARE 0.10    /* ... and at least this share of the linked kernels (input_gpu_clock_skew) */
#define GD_CLOCK_DRIFT_US 50.0          /* the largest offsets of the first and last tenth of the linked kernels differ by more than this ... */
#define GD_CLOCK_DRIFT_SHARE 0.25       /* ... and by more than this share of the larger: the skew drifts (DEFINITIONS "Kernels", skew size and drift) */
#define GD_PYTRACER_DENSE_PER_MS 10.0  /* python_function events per ms of the steps span: the Python tracer inflates host time (DEFINITIONS "Time and events") */
#define GD_COMM_KIND_DOMINANT 0.5      /* below this share the largest kind of collective is called one of a mix */
#define GD_COMM_KIND_NEAR_TIE 0.01     /* the two largest kinds' shares within this (1 percentage point): about equal */
#define GD_FIRST_CALL_MIN_US 1000.0     /* a first call (first of its API, or first launch of its kernel) this long ... */
#define GD_FIRST_CALL_MEDIAN_X 10.0     /* ... and this many times its API's median is one-off start-up */
#define GD_STARTUP_SHARE_MIN 0.01        /* start-up + compilation share reported (startup_in_window) */
#define GD_STARTUP_MOSTLY 0.5            /* ... at which the verdict will not name a cause (steady-state step) */
#define GD_STARTUP_CLEAN_STEPS 2         /* ... unless this many steps hold no start-up */
#define GD_RECOMPILE_MIN_STEPS 3         /* compilation (or a warm-up name) in this many steps and >= half of them recurs: steady state (DEFINITIONS "Idle gaps and their causes", rule 0) */
#define GD_RECOMPILE_FIRST_X 2.0         /* the first step's compilation idle above this x the other steps' median: the initial compile, start-up */
#define GD_RECOMPILE_SHARE_MIN 0.05      /* recurring compilation idle, of the steady-state step (torch_recompilation) */
#define GD_COMM_SHARE_MIN 0.10           /* TBP: avg Communication / avg step > 10% */
#define GD_COMM_SHARE_LOW 0.05           /* ... or > 5% with overlap below: */
#define GD_COMM_OVERLAP_MIN 0.50         /* HTA overlap / communication time */
#define GD_MEMBOUND_SHARE_MIN 0.40       /* elementwise + norm + reduction, of kernel time */
#define GD_GPU_BUSY_MIN 0.50             /* Kernel share of the step: the GPU is the bottleneck */
#define GD_SOFTMAX_SHARE_MIN 0.02        /* softmax kernels, of kernel time */
#define GD_MEMCPY_SHARE_MIN 0.10         /* Memcpy + Memset of the step */
#define GD_OPT_KERNELS_PER_STEP_MIN 100.0 /* kernels launched inside Optimizer.step per step */
#define GD_OPT_SHARE_MIN 0.03            /* Optimizer.step host time, of the step */
#define GD_PAGEABLE_SHARE_MIN 0.01       /* pageable copies' time, of the step */
#define GD_STREAM_WAIT_SHARE_MIN 0.05    /* idle with work queued, of the step (stream_wait) */
#define GD_SYNC_SHARE_MIN 0.05           /* GPU idle after host sync calls, of the step */
#define GD_TC_ELIGIBLE_SHARE_MIN 0.10    /* GEMM+conv share of kernel time */
#define GD_TC_SHARE_MAX 0.01             /* Tensor Core share treated as "none" */
#define GD_TC_SPEEDUP_ASSUMED 2.0        /* conservative speed-up of eligible kernels */
#define GD_OFFLOAD_BYTES_MIN 67108864.0  /* 64 MiB per step in BOTH directions (H2D and D2H): offload */
#define GD_OFFLOAD_TIME_MIN 0.05         /* H2D + D2H copy time, of the step */
#define GD_GEMM_SHARE_MIN 0.20           /* GEMM kernels, of kernel time */
#define GD_GEMM_UNDERFILLED_MIN 0.50     /* GEMM time with fewer blocks than SMs, of GEMM time */
#define GD_ACCUM_MICRO_STEPS_MIN 2.0     /* micro-steps per optimizer step that count as accumulation */
#define GD_RECOMPUTE_SHARE_MIN 0.10      /* recompute kernel time per step, of the step (recompute_cost) */
/* memory_headroom_idle (DEFINITIONS "Memory headroom while the GPU idles") */
#define GD_HEADROOM_RESERVED_MAX 0.5     /* peak reserved, of the device total: "well below" */
#define GD_HEADROOM_FITS_MIN 2.0         /* a step's activations fit at least twice */
#define GD_HEADROOM_FIXED_IDLE_MIN 0.10  /* idle on host_launch + optimizer + sync, of the step */
#define GD_HEADROOM_BATCH_MULT_MAX 4.0   /* the largest micro-batch multiple the estimate assumes */
#define GD_CHURN_CALLS_PER_STEP_MIN 1.0  /* cudaMalloc + cudaFree per step after the first (allocator_churn) */
#define GD_CHURN_IDLE_SHARE_MIN 0.5      /* one window / one step: allocator calls in progress, of the steady idle */
#define GD_CHURN_IDLE_STEP_MIN 0.05      /* ... and that idle time ÷ devices, of the steady-state step */
#define GD_CHURN_FREE_PER_MALLOC_MIN 0.5 /* ... and free calls per malloc call in the window (warm-up: ~0) */

struct gpudiag_trace;

/* Fill r->findings (ranked), r->bottleneck and r->verdict from the numbers
 * already in r.  Returns 0, or -1 on allocation failure. */
int gd_diagnose(const struct gpudiag_trace *t, gpudiag_report *r);

#endif
