/*
 * memory.h — the memory timeline of a trace (gpudiag_report.memory): device
 * memory allocated and reserved by PyTorch's caching allocator over time, per
 * GPU, from the profiler's `[memory]` instant events (recorded with
 * `profile_memory=True`), its peak per step, the headroom against the device's
 * memory, and the allocator's own calls to cudaMalloc/cudaFree inside the
 * steps (docs/DEFINITIONS.md "Memory timeline" and "Allocator churn").
 *
 * Peer: the PyTorch TensorBoard profiler plugin's Memory view (torch_tb_profiler
 * run.py get_memory_curve, memory_parser.py MemorySnapshot.get_peak_memory):
 * the curve of `Total Allocated` / `Total Reserved` and its peak.
 *
 * Units: bytes (double, exact below 2^53), µs on the trace clock, shares 0..1.
 * Unknown is NaN.  Everything belongs to the report (gpudiag_report_free).
 */
#ifndef GPUDIAG_MEMORY_H
#define GPUDIAG_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One step of one device's memory timeline. */
typedef struct gpudiag_memory_step {
    int64_t number;               /**< N of ProfilerStep#N (gpudiag_report.steps[i].number) */
    double peak_allocated_bytes;  /**< the highest allocated level in force during the step (the level carried
                                       in at its start included) */
    double low_allocated_bytes;   /**< the lowest level in force during the step */
    double peak_reserved_bytes;   /**< the highest reserved level; NaN when the trace has no `Total Reserved` */
    double allocated_bytes;       /**< the sum of `Bytes` of the allocations (Bytes > 0) in [start, end) of the
                                       step: what the step asks the allocator for, freed-and-reused memory
                                       counted each time (≥ the rise peak − low); exact in both modes */
} gpudiag_memory_step;

/** One GPU's memory timeline. */
typedef struct gpudiag_memory_device {
    int id;                       /**< `Device Id` of the events (a CUDA/HIP device, `Device Type` 1) */
    uint64_t events;              /**< its `[memory]` events in the trace */
    int has_totals;               /**< 1: every event carries `Total Allocated` (PyTorch >= 1.10), the levels
                                       are absolute; 0: only `Bytes` (older PyTorch): the allocated level is
                                       the running sum of `Bytes` from 0 at the first event, so the memory
                                       held before profiling started is not seen and the peak is a lower
                                       bound */
    int has_reserved;             /**< 1: every event also carries `Total Reserved` */
    double peak_allocated_bytes;  /**< has_totals: the highest `Total Allocated` over the steps span (TBP's
                                       peak); else the rise of the running sum above its lowest point
                                       (a lower bound of the true peak) */
    double peak_reserved_bytes;   /**< the highest `Total Reserved` over the steps span; NaN unless has_reserved */
    double reserved_unused_bytes; /**< reserved − allocated at the moment of peak_reserved_bytes: what the
                                       allocator held in cached, unused blocks then; NaN unless has_reserved */
    double total_bytes;           /**< device memory: deviceProperties totalGlobalMem, else the GPU table's
                                       label × 10^9; NaN if unknown */
    const char *total_source;     /**< "deviceProperties", "gpu_table", or NULL; static */
    double headroom_bytes;        /**< total − peak reserved: memory the job never used; NaN if either is unknown */
    double headroom_share;        /**< headroom_bytes ÷ total_bytes, 0..1; NaN if unknown */
    double persistent_bytes;      /**< the lowest allocated level in any step (weights, gradients, optimizer
                                       state stay allocated); NaN unless has_totals */
    double transient_bytes;       /**< the largest rise within one step (step peak − step low): the
                                       activations and temporaries a step holds at once (not the sum of its
                                       allocations: memory freed and reused within the step counts once) */
    double activation_fits;       /**< (0.9 × total − persistent) ÷ transient: how many times the step's
                                       transient memory fits beside the persistent state (1 = as now);
                                       NaN unless has_totals, total known and transient > 0 */
    size_t step_count;            /**< = gpudiag_report.step_count */
    gpudiag_memory_step *steps;   /**< per step, in the report's step order */
    size_t bins;                  /**< = gpudiag_report.timeline.bins (the same bins as the GPU timeline), or 0 */
    double *allocated_max;        /**< per bin: the highest allocated level in force, bytes */
    double *reserved_max;         /**< per bin: the highest reserved level; NULL unless has_reserved */
} gpudiag_memory_device;

/** The allocator's device-memory calls inside the steps (DEFINITIONS "Allocator churn"), whether or not
 *  the trace has `[memory]` events. */
typedef struct gpudiag_alloc_calls {
    uint64_t steps;               /**< steps counted: every step after the first (the first fills the cache) */
    uint64_t malloc_calls;        /**< cudaMalloc, hipMalloc, cuMemAlloc(_v2) calls starting in those steps */
    uint64_t free_calls;          /**< cudaFree, hipFree, cuMemFree(_v2) calls starting in those steps */
    double time_us;               /**< their summed duration, µs */
    double step_time_us;          /**< the summed duration of those steps, µs */
    uint64_t empty_cache_calls;   /**< host ops whose name contains "empty_cache" in those steps (with fewer than
                                       two steps: in the window) */
    uint64_t window_malloc_calls; /**< the malloc calls starting in any step of the window, the first included
                                       (DEFINITIONS "Allocator churn", one window or one step) */
    uint64_t window_free_calls;   /**< the free calls starting in any step of the window */
    double window_time_us;        /**< their summed duration, µs */
} gpudiag_alloc_calls;

/** The memory section of a trace's report (NULL for a monitoring log). */
typedef struct gpudiag_memory {
    size_t device_count;
    gpudiag_memory_device *devices; /**< by id */
    uint64_t other_events;        /**< `[memory]` events of the CPU or another device type (not analysed) */
    gpudiag_alloc_calls alloc;    /**< the allocator's calls inside the steps */
} gpudiag_memory;

#ifdef __cplusplus
}
#endif
#endif /* GPUDIAG_MEMORY_H */
