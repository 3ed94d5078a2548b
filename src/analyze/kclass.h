/*
 * kclass.h — kernel classification by name (docs/DEFINITIONS.md §Kernels).
 */
#ifndef GD_ANALYZE_KCLASS_H
#define GD_ANALYZE_KCLASS_H

#include <stddef.h>

#include "gpudiag/gpudiag.h"

/* Class of a kernel from its (demangled) name. */
gpudiag_kernel_class gd_kernel_class(const char *name, size_t len);

/* 1 if the name marks a kernel that runs on Tensor Cores (TBP's PyProf list
 * plus Ampere/Hopper/Blackwell and AMD MFMA patterns). */
int gd_kernel_uses_tensor_cores(const char *name, size_t len);

/* 1 for HTA's COMMUNICATION class: names starting with nccl/rccl (any case of
 * "nccl" at the start) or containing "ncclKernel"/"ncclDevKernel". */
int gd_kernel_is_comm(const char *name, size_t len);

/* 1 for HTA's COMPUTATION class: a kernel that is not communication, memory
 * or synchronisation by name. */
int gd_kernel_is_compute(const char *name, size_t len);

/* A runtime/driver call that blocks the host until the GPU catches up: the
 * Synchronize calls and the synchronous (not *Async) memcpys; a version suffix
 * such as _v2 is ignored. */
int gd_runtime_is_sync(const char *name, size_t len);
/* The caching allocator's device-memory calls (DEFINITIONS "Allocator churn"): GD_ALLOC_MALLOC
 * for cudaMalloc, hipMalloc, cuMemAlloc, cuMemAlloc_v2; GD_ALLOC_FREE for cudaFree, hipFree,
 * cuMemFree, cuMemFree_v2; else 0 (the *Async and host-memory calls are not counted). */
enum { GD_ALLOC_NONE = 0, GD_ALLOC_MALLOC = 1, GD_ALLOC_FREE = 2 };
int gd_runtime_alloc_kind(const char *name, size_t len);

/* A launch call HTA's queue-length counter counts (trace_counters.py); not
 * cudaGraphLaunch. */
int gd_runtime_is_queue_launch(const char *name, size_t len);

/* A kernel launch call among those (cudaLaunchKernel, cudaLaunchKernelExC,
 * cuLaunchKernel, cuLaunchKernelEx, hipLaunchKernel, hipExtModuleLaunchKernel):
 * not a copy or memset, not a graph launch (DEFINITIONS "Time and events",
 * kernel launch calls without kernels). */
int gd_runtime_is_kernel_launch(const char *name, size_t len);

/* A CUDA/HIP graph launch call (cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch;
 * a version or _ptsz/_spt suffix is ignored): the GPU ops of one replay carry its
 * correlation id. */
int gd_runtime_is_graph_launch(const char *name, size_t len);

/* A call that makes a stream wait on an event recorded elsewhere
 * (cudaStreamWaitEvent, cuStreamWaitEvent, hipStreamWaitEvent; suffixes ignored). */
int gd_runtime_is_stream_wait_event(const char *name, size_t len);

/* Stream capture calls (DEFINITIONS "Graph replays", capture): 1 for
 * cudaStreamBeginCapture, cudaStreamBeginCaptureToGraph, cuStreamBeginCapture,
 * cuStreamBeginCaptureToGraph, hipStreamBeginCapture, hipStreamBeginCaptureToGraph; 2 for
 * cudaStreamEndCapture, cuStreamEndCapture, hipStreamEndCapture (suffixes ignored), else 0. */
int gd_runtime_capture_kind(const char *name, size_t len);

/* Direction of a memcpy from Kineto's name ("Memcpy HtoD (Pinned -> Device)"). */
gpudiag_copy_kind gd_copy_kind(const char *name, size_t len);

/* 1 if a memcpy name has pageable host memory on either side. */
int gd_copy_is_pageable(const char *name, size_t len);

/* 1 for a multi-tensor / fused optimizer kernel (multi_tensor_apply, *fused*). */
int gd_kernel_is_fused_optimizer(const char *name, size_t len);

#endif
