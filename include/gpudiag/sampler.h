/*
 * sampler.h — live GPU sampling (NVML, loaded at run time) for libgpudiag.
 *
 * A sampler opens one backend (NVML through dlopen, or the built-in `test`
 * backend), lists its GPUs once, and reads one sample per GPU on request.
 * The conventions of gpudiag.h hold: units are in the names, unknown numbers
 * are NaN (a field the GPU or driver does not support is NaN, never 0),
 * errors are data, and the library never prints or exits.
 *
 * Rates need two readings: GPM metrics (SM active, tensor active, DRAM
 * active, ...) are computed from the previous and the current GPM sample of
 * a GPU, so the first read of a GPU leaves them NaN and only primes the
 * baseline.  NVML's GPU-Util, memory-controller util, encoder/decoder util
 * and PCIe throughput are the driver's own windowed averages and are filled
 * from the first read.
 *
 * Definitions (see docs/DEFINITIONS.md, "Live samples"): each field is the
 * NVML quantity named in its comment, as nvidia-smi reports it.
 */
#ifndef GPUDIAG_SAMPLER_H
#define GPUDIAG_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "gpudiag/gpudiag.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Static identity of one GPU, filled once when the sampler opens. */
typedef struct gpudiag_gpu_info {
    unsigned index;     /**< the backend's index (NVML enumeration order) */
    char name[96];      /**< "NVIDIA H100 80GB HBM3"; "" when unknown */
    char uuid[96];      /**< "GPU-xxxxxxxx-..."; "" when unknown */
    char pci_bus_id[32]; /**< "00000000:17:00.0"; "" when unknown */
    int gpm_supported;  /**< 1 when nvmlGpmQueryDeviceSupport said yes (Hopper and newer) */
} gpudiag_gpu_info;

/** One process seen on a GPU (NVML compute and graphics process lists). */
typedef struct gpudiag_gpu_process {
    uint32_t pid;          /**< host-namespace pid, as NVML reports it */
    double used_bytes;     /**< GPU memory used by the process; NaN when unknown */
} gpudiag_gpu_process;

/** Bits of `clock_event_reasons` (NVML nvmlClocksEventReason*, same values). */
enum {
    GPUDIAG_CLK_GPU_IDLE = 0x1,
    GPUDIAG_CLK_APP_CLOCKS = 0x2,
    GPUDIAG_CLK_SW_POWER_CAP = 0x4,
    GPUDIAG_CLK_HW_SLOWDOWN = 0x8,
    GPUDIAG_CLK_SYNC_BOOST = 0x10,
    GPUDIAG_CLK_SW_THERMAL = 0x20,
    GPUDIAG_CLK_HW_THERMAL = 0x40,
    GPUDIAG_CLK_HW_POWER_BRAKE = 0x80,
    GPUDIAG_CLK_DISPLAY = 0x100
};

#define GPUDIAG_SAMPLE_MAX_PROCS 64

/**
 * One reading of one GPU.  Every double is NaN when the backend could not
 * give it (unsupported, no permission, failed); integers carry a `has_` flag.
 */
typedef struct gpudiag_gpu_sample {
    double t_s;                /**< wall-clock time of the reading, seconds since the Unix epoch */
    unsigned index;            /**< GPU index (as in gpudiag_gpu_info) */
    int lost;                  /**< 1 when the GPU fell off the bus (NVML GPU_IS_LOST); all else NaN */
    double gpu_util_pct;       /**< nvmlUtilization_t.gpu: % of the driver's window with >= 1 kernel running (nvidia-smi GPU-Util) */
    double mem_util_pct;       /**< nvmlUtilization_t.memory: % of the window the memory controller was busy */
    double mem_used_bytes;     /**< nvmlMemory_v2_t.used (excludes reserved), else v1 used */
    double mem_total_bytes;    /**< nvmlMemory_v2_t.total */
    double mem_reserved_bytes; /**< nvmlMemory_v2_t.reserved; NaN with the v1 call */
    double sm_clock_mhz;       /**< current SM clock */
    double sm_clock_max_mhz;   /**< maximum SM clock */
    double mem_clock_mhz;      /**< current memory clock */
    double mem_clock_max_mhz;  /**< maximum memory clock */
    double power_w;            /**< nvmlDeviceGetPowerUsage / 1000 (1 s average on Ampere+, instant before) */
    double power_limit_w;      /**< nvmlDeviceGetEnforcedPowerLimit / 1000 */
    double temp_c;             /**< GPU die temperature */
    double pcie_rx_bytes_per_s; /**< nvmlDeviceGetPcieThroughput RX (host to GPU), KB/s x 1024; a 20 ms spot value */
    double pcie_tx_bytes_per_s; /**< same, TX (GPU to host) */
    double pcie_gen;           /**< current PCIe link generation (drops at idle) */
    double pcie_gen_max;       /**< maximum link generation of the device and system */
    double pcie_width;         /**< current link width, lanes */
    double pcie_width_max;     /**< maximum link width, lanes */
    int has_clock_event_reasons;  /**< 1 when clock_event_reasons is valid */
    uint64_t clock_event_reasons; /**< GPUDIAG_CLK_* bits active now */
    /* GPM (Hopper and newer; from two GPM samples, so NaN on the first read): */
    double sm_active_pct;      /**< GPM SM_UTIL (id 2), ~ DCGM SM_ACTIVE x 100 */
    double sm_occupancy_pct;   /**< GPM SM_OCCUPANCY (id 3) */
    double tensor_active_pct;  /**< GPM ANY_TENSOR_UTIL (id 5), ~ DCGM PIPE_TENSOR_ACTIVE x 100 */
    double dram_active_pct;    /**< GPM DRAM_BW_UTIL (id 10), ~ DCGM DRAM_ACTIVE x 100 */
    double gpm_pcie_tx_bytes_per_s; /**< GPM PCIE_TX_PER_SEC (id 20), MiB/s x 2^20 */
    double gpm_pcie_rx_bytes_per_s; /**< GPM PCIE_RX_PER_SEC (id 21) */
    double nvlink_rx_bytes_per_s;   /**< GPM NVLINK_TOTAL_RX_PER_SEC (id 60) */
    double nvlink_tx_bytes_per_s;   /**< GPM NVLINK_TOTAL_TX_PER_SEC (id 61) */
    int has_processes;         /**< 1 when a process list could be read */
    size_t process_count;      /**< entries used in `processes` (at most GPUDIAG_SAMPLE_MAX_PROCS) */
    gpudiag_gpu_process processes[GPUDIAG_SAMPLE_MAX_PROCS];
    /* Video engines (appended; GPU-Util and SM active do not count them): */
    double enc_util_pct;       /**< nvmlDeviceGetEncoderUtilization: % (0..100) of the driver's sampling period the
                                    NVENC engine(s) were busy (nvidia-smi utilization.encoder, dmon enc, DCGM 206);
                                    NaN when the symbol is missing, NOT_SUPPORTED (no NVENC, MIG) or out of range */
    double dec_util_pct;       /**< nvmlDeviceGetDecoderUtilization: same for NVDEC, % 0..100 (utilization.decoder,
                                    dmon dec, DCGM 207); NaN when unknown */
} gpudiag_gpu_sample;

/** A live sampler over one backend (opaque). */
typedef struct gpudiag_sampler gpudiag_sampler;

/**
 * Open a sampler.
 *
 * backend: NULL or "auto" (NVML), "nvml", or "test" (a built-in synthetic
 *          backend for tests and benchmarks: GPUDIAG_TEST_GPUS GPUs, default
 *          2, with deterministic values; see docs/DEFINITIONS.md).
 * out:     receives the sampler; free with gpudiag_sampler_free().
 * err:     optional; on failure the message names what was looked for
 *          (the library file names tried and dlerror's text, or the NVML
 *          call that failed and nvmlErrorString's text).
 *
 * The NVML backend loads $GPUDIAG_NVML_LIB when set (a path, for tests),
 * else libnvidia-ml.so.1, else libnvidia-ml.so.
 *
 * Returns GPUDIAG_OK; GPUDIAG_ERR_NODEV when no library, no driver or no GPU
 * was found; GPUDIAG_ERR_ARG for an unknown backend name; GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_sampler_open(const char *backend, gpudiag_sampler **out, gpudiag_error *err);

/** Name of the backend in use ("nvml" or "test"); never NULL. */
const char *gpudiag_sampler_backend(const gpudiag_sampler *s);

/** Driver version text ("550.54.15"), or "" when unknown; lives as long as s. */
const char *gpudiag_sampler_driver_version(const gpudiag_sampler *s);

/** Number of GPUs the backend lists (>= 1 after a successful open). */
size_t gpudiag_sampler_gpu_count(const gpudiag_sampler *s);

/** Identity of GPU i (0 <= i < count); lives as long as s.  NULL when i is out of range. */
const gpudiag_gpu_info *gpudiag_sampler_gpu(const gpudiag_sampler *s, size_t i);

/**
 * Read one sample of GPU i into *out (every field overwritten).  A field the
 * backend cannot give is NaN; a GPU that is lost gives `lost = 1` and
 * GPUDIAG_OK (the caller decides whether to go on).
 * Returns GPUDIAG_OK or GPUDIAG_ERR_ARG (i out of range, NULL pointers).
 */
gpudiag_status gpudiag_sampler_read(gpudiag_sampler *s, size_t i, gpudiag_gpu_sample *out, gpudiag_error *err);

/** Shut the backend down, free the sampler and set *s to NULL.  NULL is a no-op. */
void gpudiag_sampler_free(gpudiag_sampler **s);

struct gpudiag_series;

/**
 * Append one live sample to a monitoring series (include/gpudiag/series.h),
 * the model the log readers fill, in its units: percentages become fractions
 * 0..1, memory stays bytes, PCIe/NVLink bytes/s, clock reasons the NVML bits.
 * The GPU is found or added by (index, uuid); its name and bus id are copied.
 * The time is the readers' base for logs with stamps: local wall time read
 * as if it were UTC, in µs.  A lost GPU's sample is appended with every
 * metric missing.
 *
 * Returns GPUDIAG_OK, GPUDIAG_ERR_ARG (NULL argument) or GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_series_append_sample(struct gpudiag_series *s, const gpudiag_gpu_info *info,
                                            const gpudiag_gpu_sample *smp, gpudiag_error *err);

#ifdef __cplusplus
}
#endif

#endif
