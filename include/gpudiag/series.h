/*
 * series.h — per-GPU monitoring time series (public API of libgpudiag).
 *
 * One model for every source of "a number per GPU per moment": nvidia-smi
 * dmon logs, nvidia-smi --query-gpu CSV loops, dcgmi dmon, dcgm-exporter
 * Prometheus text, nvidia-smi -q snapshots, and the live NVML sampler.  The
 * readers (src/ingest/) fill it; the analysis (gpudiag_series_analyze) and the
 * renderers only read it.
 *
 * Layout: a series holds GPUs; each GPU holds `count` samples stored column by
 * column: `t_us[i]` is the time of sample i and `v[m][i]` the value of metric
 * m at that time.  A column that never had a value is NULL (the metric is
 * absent for that GPU: "missing is missing"); inside a present column a
 * sample without that value is NaN, never 0.  Units are fixed per metric (see
 * gpudiag_metric): fractions 0..1 for utilisations and profiling ratios
 * (percent values from nvidia-smi are divided by 100), bytes for memory,
 * bytes/s for throughput, MHz, W, °C.
 *
 * Contract for other clients (the NVML sampler, the HTML charts): the fields
 * and enum values below are stable; new metrics are added before
 * GPUDIAG_M_COUNT only at the end, new fields only at the end of a struct.
 *
 * Conventions of gpudiag.h hold (ownership, errors as data, NaN = unknown).
 */
#ifndef GPUDIAG_SERIES_H
#define GPUDIAG_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "gpudiag.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Metrics of a GPU sample.  Values never change; new ones go at the end. */
typedef enum gpudiag_metric {
    GPUDIAG_M_GPU_UTIL = 0,      /**< fraction 0..1 of the sample period with >= 1 kernel running
                                      (NVML utilization.gpu, dmon `sm`, DCGM 203 GPUTL) */
    GPUDIAG_M_MEM_UTIL,          /**< fraction 0..1 of the period device memory was read/written
                                      (memory-controller busy: utilization.memory, dmon `mem`, DCGM 204) */
    GPUDIAG_M_MEM_USED_BYTES,    /**< device memory used, bytes (dmon `fb`, memory.used, DCGM 252) */
    GPUDIAG_M_MEM_TOTAL_BYTES,   /**< device memory total, bytes (memory.total, DCGM 250, or used+free) */
    GPUDIAG_M_SM_CLOCK_MHZ,      /**< SM/graphics clock, MHz (dmon `pclk`, clocks.sm/gr, DCGM 100) */
    GPUDIAG_M_MEM_CLOCK_MHZ,     /**< memory clock, MHz (dmon `mclk`, clocks.mem, DCGM 101) */
    GPUDIAG_M_POWER_W,           /**< board power draw, W (dmon `pwr`, power.draw, DCGM 155) */
    GPUDIAG_M_POWER_LIMIT_W,     /**< enforced/management power limit, W (power.limit, DCGM 160/164) */
    GPUDIAG_M_TEMP_C,            /**< GPU die temperature, °C (dmon `gtemp`/old `temp`, DCGM 150) */
    GPUDIAG_M_PCIE_RX_BPS,       /**< PCIe host→GPU, bytes/s (dmon `rxpci` MB/s × 1e6, DCGM 1010, or 201 KB/s × 1e3) */
    GPUDIAG_M_PCIE_TX_BPS,       /**< PCIe GPU→host, bytes/s (dmon `txpci`, DCGM 1009 / 200) */
    GPUDIAG_M_SM_ACTIVE,         /**< DCGM 1002 SMACT, fraction 0..1 */
    GPUDIAG_M_SM_OCCUPANCY,      /**< DCGM 1003 SMOCC, fraction 0..1 */
    GPUDIAG_M_TENSOR_ACTIVE,     /**< DCGM 1004 TENSO, fraction 0..1 */
    GPUDIAG_M_DRAM_ACTIVE,       /**< DCGM 1005 DRAMA, fraction 0..1 (~0.8 is the practical max) */
    GPUDIAG_M_NVLINK_RX_BPS,     /**< DCGM 1012 NVLRX, bytes/s all links */
    GPUDIAG_M_NVLINK_TX_BPS,     /**< DCGM 1011 NVLTX, bytes/s all links */
    GPUDIAG_M_CLOCK_REASONS,     /**< clock event ("throttle") reason bitmask as an exact integer in a
                                      double (GPUDIAG_REASON_*; NVML nvmlClocksEventReason*, DCGM 112) */
    GPUDIAG_M_GR_ENGINE_ACTIVE,  /**< DCGM 1001 GRACT, fraction 0..1 */
    GPUDIAG_M_MEM_TEMP_C,        /**< memory (HBM) temperature, °C (dmon `mtemp`, DCGM 140) */
    GPUDIAG_M_POWER_VIOLATION,   /**< dmon `pviol`: fraction 0..1 of the interval held down by power */
    GPUDIAG_M_THERMAL_VIOLATION, /**< dmon `tviol`: 1 when a thermal violation was flagged, else 0 */
    GPUDIAG_M_SM_CLOCK_MAX_MHZ,  /**< maximum SM clock, MHz (clocks.max.sm, -q "Max Clocks / SM") */
    GPUDIAG_M_PCIE_GEN,          /**< current PCIe link generation (pcie.link.gen.current, DCGM 237) */
    GPUDIAG_M_PCIE_GEN_MAX,      /**< max link generation for this device and host (pcie.link.gen.max, DCGM 235) */
    GPUDIAG_M_PCIE_WIDTH,        /**< current PCIe link width, lanes (DCGM 238) */
    GPUDIAG_M_PCIE_WIDTH_MAX,    /**< max PCIe link width, lanes (DCGM 236) */
    GPUDIAG_M_ENC_UTIL,          /**< NVENC busy fraction 0..1 (dmon `enc`, DCGM 206; live: NVML EncoderUtilization) */
    GPUDIAG_M_DEC_UTIL,          /**< NVDEC busy fraction 0..1 (dmon `dec`, DCGM 207; live: NVML DecoderUtilization) */
    GPUDIAG_M_THROTTLE_TIME_US,  /**< cumulative µs with clocks held down since the driver loaded: the sum of
                                      nvidia-smi -q "Clocks Event Reasons Counters" SW Power Capping, SW Thermal
                                      Slowdown, HW Thermal Slowdown and HW Power Braking (R580+; Sync Boost left
                                      out like its reason bit; monitoring-peers.md §3.5) */
    GPUDIAG_M_THERMAL_THROTTLE_TIME_US, /**< the thermal part of GPUDIAG_M_THROTTLE_TIME_US: SW Thermal Slowdown +
                                      HW Thermal Slowdown + HW Power Braking counters, cumulative µs (nvidia-smi -q
                                      R580+) */
    GPUDIAG_M_TEMP_SLOWDOWN_C,   /**< the temperature at which the driver slows the clocks, °C (nvidia-smi -q
                                      "GPU Slowdown Temp") */
    GPUDIAG_M_JPG_UTIL,          /**< NVJPG (JPEG decoder) busy fraction 0..1 (dmon `jpg`) */
    GPUDIAG_M_OFA_UTIL,          /**< OFA (optical-flow accelerator) busy fraction 0..1 (dmon `ofa`) */
    GPUDIAG_M_COUNT
} gpudiag_metric;

/** Clock event reason bits (NVML nvmlClocksEventReason*, same values as the
 *  older nvmlClocksThrottleReason*; monitoring-peers.md §3.5). */
#define GPUDIAG_REASON_GPU_IDLE            0x1ull
#define GPUDIAG_REASON_APP_CLOCKS          0x2ull
#define GPUDIAG_REASON_SW_POWER_CAP        0x4ull
#define GPUDIAG_REASON_HW_SLOWDOWN         0x8ull
#define GPUDIAG_REASON_SYNC_BOOST          0x10ull
#define GPUDIAG_REASON_SW_THERMAL          0x20ull
#define GPUDIAG_REASON_HW_THERMAL          0x40ull
#define GPUDIAG_REASON_HW_POWER_BRAKE      0x80ull
#define GPUDIAG_REASON_DISPLAY_CLOCK       0x100ull

/** Stable snake_case name of a metric ("gpu_util", "mem_used_bytes", ...);
 *  "unknown" for an out-of-range value.  Used as JSON keys. */
const char *gpudiag_metric_name(gpudiag_metric m);

/** Unit of a metric as shown to people ("fraction", "bytes", "bytes/s",
 *  "MHz", "W", "C", "bitmask", "count", "lanes"); never NULL. */
const char *gpudiag_metric_unit(gpudiag_metric m);

/** What a row of the source describes. */
typedef enum gpudiag_entity_kind {
    GPUDIAG_ENTITY_GPU = 0,      /**< a whole physical GPU */
    GPUDIAG_ENTITY_GPU_I,        /**< a MIG GPU instance (dcgmi `GPU-I n`, exporter GPU_I_ID) */
    GPUDIAG_ENTITY_GPU_CI        /**< a MIG compute instance (dcgmi `GPU-CI n`) */
} gpudiag_entity_kind;

/** How the sample times were obtained. */
typedef enum gpudiag_time_source {
    GPUDIAG_TIME_ABSOLUTE = 0,   /**< wall-clock stamps in the input (local time read as if UTC),
                                      µs since 1970-01-01 */
    GPUDIAG_TIME_ASSUMED,        /**< no stamps in the input: sample k of a GPU is at k × interval_us
                                      (dmon without -o T, dcgmi dmon, Prometheus scrapes) */
    GPUDIAG_TIME_SNAPSHOT        /**< a single moment (nvidia-smi -q); t_us is 0 or the stamp */
} gpudiag_time_source;

/** One GPU (or MIG instance) and its samples. */
typedef struct gpudiag_gpu_series {
    int index;                   /**< GPU index as the source numbers it; -1 unknown */
    gpudiag_entity_kind kind;
    int instance;                /**< MIG instance id for GPU_I/GPU_CI rows, else -1 */
    char name[96];               /**< product name, "" unknown */
    char uuid[96];               /**< "GPU-…" / "MIG-…", "" unknown */
    char bus_id[32];             /**< PCI bus id, "" unknown */
    char hostname[128];          /**< host (Prometheus Hostname/hostname label), "" unknown */
    char mig_profile[32];        /**< e.g. "1g.10gb", "" when not MIG */
    char pod[256];               /**< Kubernetes pod holding the GPU (dcgm-exporter `pod`/`pod_name` label, the
                                      last non-empty value in the log), "" unknown or unassigned */
    char k8s_namespace[64];      /**< that pod's namespace (`namespace`/`pod_namespace`), "" unknown */
    char container[64];          /**< the container in that pod (`container`/`container_name`), "" unknown */
    int pod_changes;             /**< times the non-empty pod label changed during the log (the GPU moved to
                                      another pod); 0 none */
    size_t count;                /**< samples */
    int64_t *t_us;               /**< [count] sample times, µs (see gpudiag_series.time_source) */
    double *v[GPUDIAG_M_COUNT];  /**< [count] per metric; NULL = metric absent; NaN = missing sample */
    size_t cap;                  /**< allocated samples (internal) */
    void *arena;                 /**< (internal) the one allocation that holds t_us and every present
                                      column, each `cap` long; freed by gpudiag_series_free */
    int pods;                    /**< most Kubernetes pods sharing the GPU in one scrape (time-slicing: dcgm-exporter
                                      repeats each metric once per pod, dcgm-exporter#587); 0 unknown, 1 one pod */
} gpudiag_gpu_series;

/** A whole monitoring input: all GPUs, one time base. */
typedef struct gpudiag_series {
    char format[16];             /**< "dmon", "smi-csv", "dcgmi", "prom", "smi-q", "nvml" */
    gpudiag_time_source time_source;
    int64_t interval_us;         /**< nominal sample interval, µs; 0 unknown (estimated by the analysis) */
    size_t gpu_count;
    gpudiag_gpu_series *gpus;    /**< in order of first appearance */
    size_t gpu_cap;              /**< (internal) */
    uint64_t lines;              /**< input lines read */
    uint64_t rows;               /**< data rows turned into samples */
    uint64_t skipped_rows;       /**< data rows that could not be used (reported in the analysis) */
    int64_t first_skipped_line;  /**< 1-based line of the first skipped row, -1 none */
    uint64_t invalid_values;     /**< values outside their metric's range, read as missing (NaN): a
                                      utilisation or ratio below 0 or above 100 % (1.0), a negative memory,
                                      power, clock, rate or link value, "nan"/"inf" spelled out
                                      (docs/DEFINITIONS.md "Invalid monitoring values") */
    int64_t first_invalid_line;  /**< 1-based line of the first invalid value, -1 none */
    uint64_t header_changes;     /**< header lines that redefined the columns mid-file (columns re-mapped
                                      from the new header; a repeat of the same header does not count) */
    int64_t first_header_change_line; /**< 1-based line of the first such header, -1 none */
    char ignored_columns[256];   /**< header columns the model has no place for, ", "-separated as the
                                      header spells them ("FP32A, 1006"); "" none; cut at 255 bytes */
    uint64_t header_hash;        /**< (internal) hash of the last column header, 0 none */
    uint64_t bytes;              /**< bytes of the log read (after gzip decompression); 0 for a series a
                                      sampler filled (nothing was read) */
    char skip_reason[192];       /**< what in the first skipped row was not understood, when the reader
                                      can say (amd-smi: a cell count unlike the header's, a cell that is
                                      not a number); "" otherwise */
    uint64_t gz_trailing_bytes;  /**< a gzip log: bytes after its last member that start no other member and
                                      are not all NUL (DEFINITIONS "Time and events"); 0 none */
    uint64_t gz_trailing_at;     /**< their offset in the compressed file (the members' length) */
    uint64_t empty_rows;         /**< data rows in which every metric the reader maps was missing (or invalid):
                                      no sample, left out (DEFINITIONS "A row that holds no value") */
    int64_t first_empty_line;    /**< 1-based line of the first such row, -1 none */
} gpudiag_series;

/** Allocate an empty series.  format: short name copied into ->format (may be NULL).
 *  Returns GPUDIAG_OK, GPUDIAG_ERR_ARG (out NULL) or GPUDIAG_ERR_NOMEM. */
gpudiag_status gpudiag_series_new(const char *format, gpudiag_series **out);

/** Free a series and set *s to NULL.  NULL-safe. */
void gpudiag_series_free(gpudiag_series **s);

/**
 * Find a GPU by identity, or add it.  Identity is (kind, index, instance,
 * hostname, uuid): a non-empty uuid matches alone when the stored one is
 * non-empty too; otherwise kind + index + instance + hostname must match.
 * uuid/hostname may be NULL.  Returns the GPU's position in s->gpus, or -1
 * when out of memory.  Pointers into s->gpus are invalidated by adding a GPU.
 */
long gpudiag_series_gpu(gpudiag_series *s, gpudiag_entity_kind kind, int index, int instance,
                        const char *uuid, const char *hostname);

/**
 * Append one sample to GPU `gpu` (a position from gpudiag_series_gpu).
 * values: GPUDIAG_M_COUNT numbers in each metric's unit; NaN = not in this
 * sample; ±inf (a value beyond double after a unit conversion) is stored as
 * NaN too, so a column holds finite numbers or NaN only.  A metric seen for
 * the first time gets a column filled with NaN for the earlier samples.  Returns GPUDIAG_OK, GPUDIAG_ERR_ARG or GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_series_append(gpudiag_series *s, size_t gpu, int64_t t_us,
                                     const double values[GPUDIAG_M_COUNT]);

/** Input formats for gpudiag_series_read (the CLI's `--format`): one value per
 *  monitoring-log row of the format table (src/ingest/formats.c), appended in
 *  the table's order, 1, 2, ... without gaps. */
typedef enum gpudiag_log_format {
    GPUDIAG_LOG_AUTO = 0,        /**< detect from the content */
    GPUDIAG_LOG_DMON,            /**< nvidia-smi dmon (whitespace or --format csv) */
    GPUDIAG_LOG_SMI_CSV,         /**< nvidia-smi --query-gpu=… --format=csv */
    GPUDIAG_LOG_DCGMI,           /**< dcgmi dmon -e … */
    GPUDIAG_LOG_PROM,            /**< dcgm-exporter Prometheus text, one or more scrapes */
    GPUDIAG_LOG_SMI_Q,           /**< nvidia-smi -q / -a text */
    GPUDIAG_LOG_AMDSMI           /**< AMD amd-smi monitor, text table or --csv */
} gpudiag_log_format;

/** The format's row name in the format table: "auto", "dmon", "smi-csv",
 *  "dcgmi", "prom", "smi-q", "amdsmi"; "unknown" for a value with no row.  Static
 *  storage, never NULL. */
const char *gpudiag_log_format_name(gpudiag_log_format f);

/**
 * Guess the monitoring format of a buffer holding the start of a file (up to
 * a few KiB; buf need not be NUL-terminated).  Every log row's sniffer looks
 * at the first 80 non-blank lines; the format recognised on the earliest line
 * wins, on one line the stronger clue (src/ingest/formats.h, GD_SNIFF_AT).
 * Returns GPUDIAG_LOG_AUTO when it looks like none of them.
 */
gpudiag_log_format gpudiag_log_format_sniff(const char *buf, size_t len);

/**
 * Read a monitoring log into a series.
 *
 * path:   file name; "-" reads standard input.
 * format: GPUDIAG_LOG_AUTO detects the format from the content (never the name).
 * out:    receives the series; free with gpudiag_series_free().  NULL on failure.
 * err:    optional; on failure holds the path and the byte offset of the line at fault.
 *
 * Columns are located by the header, never by position; `-`, `N/A`,
 * `[N/A]`, `[Not Supported]`, blank and DCGM blank sentinels are missing
 * values.  Rows that cannot be used are counted in skipped_rows.
 *
 * Returns GPUDIAG_OK; GPUDIAG_ERR_IO (cannot open/read); GPUDIAG_ERR_FORMAT
 * (not a monitoring log of the requested/detected format, or no sample at
 * all); GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_series_read(const char *path, gpudiag_log_format format, gpudiag_series **out,
                                   gpudiag_error *err);

/* ---------------------------------------------------------------------- */
/* Analysis of a series (docs/DEFINITIONS.md "Monitoring series")          */
/* ---------------------------------------------------------------------- */

/** Statistics of one metric of one GPU over its samples (each sample weighs
 *  the same).  Percentiles are linear between closest ranks (numpy's
 *  default); stddev is the population standard deviation; `low_share` is
 *  the share of samples below 0.30 (fraction metrics only, else NaN);
 *  `jitter` is the mean absolute difference of consecutive samples.  All NaN
 *  (n = 0) when the metric is absent. */
typedef struct gpudiag_metric_stats {
    size_t n;
    double mean, median, p5, p10, p90, p95, min, max, stddev;
    double low_share;
    double jitter;
} gpudiag_metric_stats;

#define GPUDIAG_SPARK_POINTS 48
#define GPUDIAG_CHART_POINTS 240

/** The three indicators of one GPU over time, for charts (HTML report):
 *  the samples put into at most GPUDIAG_CHART_POINTS equal-time buckets the
 *  same way as the sparklines (with no more samples than buckets, one bucket
 *  per sample, in order).  Times are µs after the GPU's first sample. */
typedef struct gpudiag_gpu_chart {
    size_t points;                               /**< buckets used; 0 = no samples */
    double t_us[GPUDIAG_CHART_POINTS];           /**< bucket time (the sample's, or b × span / (points − 1)) */
    double compute[GPUDIAG_CHART_POINTS];        /**< mean compute indicator 0..1; NaN empty */
    double compute_min[GPUDIAG_CHART_POINTS];    /**< lowest compute sample in the bucket (dips) */
    double bandwidth[GPUDIAG_CHART_POINTS];      /**< mean bandwidth indicator 0..1; NaN empty/absent */
    double mem_share[GPUDIAG_CHART_POINTS];      /**< mean memory used ÷ total 0..1; NaN empty/unknown */
} gpudiag_gpu_chart;

/** What one GPU's series says. */
typedef struct gpudiag_gpu_summary {
    int index;                    /**< as in gpudiag_gpu_series */
    gpudiag_entity_kind kind;
    int instance;
    char name[96], uuid[96], bus_id[32], hostname[128], mig_profile[32];
    char pod[256], k8s_namespace[64], container[64]; /**< Kubernetes owner, as in gpudiag_gpu_series */
    int pod_changes;              /**< as in gpudiag_gpu_series */
    size_t samples;
    double duration_us;           /**< last − first sample time */
    double interval_us;           /**< median spacing of consecutive samples; NaN with < 2 samples */
    gpudiag_metric_stats stats[GPUDIAG_M_COUNT];
    gpudiag_metric compute_metric;/**< the compute indicator: sm_active, else gpu_util, else gr_engine_active;
                                       GPUDIAG_M_COUNT when none is present */
    gpudiag_metric bandwidth_metric; /**< dram_active, else mem_util; GPUDIAG_M_COUNT when none */
    double mem_used_share;        /**< median of used ÷ total memory; NaN unknown */
    double mem_used_share_max;    /**< max of used ÷ total */
    int health_median_ok, health_p10_ok, health_low_ok; /**< common health targets for training on the compute indicator:
                                       median ≥ 0.70, p10 ≥ 0.40, low share < 0.10; -1 unknown: no compute
                                       indicator, or fewer than 2 of its values (a snapshot) */
    int in_use;                   /**< 1 when the GPU did work or held memory (DEFINITIONS) */
    int idle_holding_memory;      /**< 1: holds memory, computes nothing (and its video engines idle) */
    int video_busy;               /**< 1: the encoder's or decoder's (NVENC/NVDEC: enc_util, dec_util) p95
                                       is at least GD_SERIES_WORK_MIN 0.10: video work the compute
                                       indicator does not count, so the GPU is in use, never idle
                                       (DEFINITIONS "GPU states") */
    const char *memory_level;     /**< "full" / "low" / NULL unknown (static string) */
    const char *compute_level;    /**< "high" / "low" / NULL unknown */
    const char *bandwidth_level;  /**< "high" / "low" / NULL unknown */
    double dip_period_us;         /**< period of repeating dips in the compute indicator; NaN none */
    double dip_acf;               /**< autocorrelation at that period; NaN none */
    double traffic_corr;          /**< correlation of compute with NVLink (else PCIe) traffic; NaN unknown */
    uint64_t reasons_any;         /**< OR of the clock-reason bits over samples */
    double throttle_share;        /**< samples with a power/thermal/HW reason (or pviol/tviol) ÷ samples with
                                       reason data; NaN without */
    double clock_below_max_share; /**< of loaded samples (compute ≥ 0.5), share with SM clock < 0.9 × max; NaN unknown */
    int pcie_degraded;            /**< 1: current gen or width < max while loaded; 0 no; -1 unknown */
    gpudiag_bottleneck bottleneck;/**< this GPU's class (UNKNOWN when idle or unknown) */
    const char *pipeline;         /**< tuning guides' pipeline: "data_supply", "operator_scheduling",
                                       "communication_sync", "memory_transfer", "compute", or NULL */
    double spark[GPUDIAG_SPARK_POINTS]; /**< compute indicator averaged into equal-time buckets; NaN empty */
    double spark_mem[GPUDIAG_SPARK_POINTS]; /**< memory used ÷ total, same buckets */
    gpudiag_gpu_chart chart;      /**< the indicators over time at chart resolution */
    double dip_share;             /**< share of compute samples at least 0.20 below the median; NaN unknown */
    double dip_mean;              /**< mean compute indicator of those samples; NaN none */
    double throttle_counter_share;/**< Δ throttle_time_us ÷ Δ time between the first and last snapshot with the
                                       counters (nvidia-smi -q loops): the share of that time spent throttled;
                                       NaN with fewer than two such snapshots */
    double throttle_clock_loss;   /**< 1 − mean SM clock of throttled loaded samples ÷ that of unthrottled
                                       loaded samples (else ÷ max SM clock); NaN unknown (DEFINITIONS
                                       "Estimated gain of monitoring findings") */
    size_t warmup_samples;        /**< leading idle samples left out of the statistics (warm-up); 0 none */
    size_t teardown_samples;      /**< trailing idle samples left out (tear-down); 0 none */
    double excluded_us;           /**< time those samples span, µs (first→first kept, last kept→last) */
    int bandwidth_unreported;     /**< 1: DRAM active (DCGM) reads exactly 0 in every sample while the GPU
                                       computes; taken as not reported (memory-controller busy stands in
                                       when logged, else bandwidth unknown). A memory-controller busy of 0
                                       is a measured value and never sets this */
    int mem_total_from_spec;      /**< 1: the log has no memory total; mem_used_share uses the GPU table's
                                       memory label (GiB) of the GPU's name */
    double temp_at_slowdown_share;/**< samples whose GPU temperature is at or above the slowdown temperature ÷
                                       samples with both; NaN unknown (DEFINITIONS "One -q snapshot") */
    int pods;                     /**< as in gpudiag_gpu_series */
    int profiling_unreported;     /**< 1: every profiling activity field (SM active, GR engine active, tensor
                                       active, SM occupancy) read exactly 0 in every sample while GPU-Util's
                                       median was >= 0.50 (dcgm-exporter#662): those fields are read as missing
                                       (stats n = 0) and GPU-Util is the compute indicator */
} gpudiag_gpu_summary;

/** The `series` section of a report made from a monitoring log. */
typedef struct gpudiag_series_summary {
    char format[16];
    gpudiag_time_source time_source;
    int snapshot;                 /**< 1 when no GPU has more than one sample */
    uint64_t rows, skipped_rows;
    int64_t first_skipped_line;
    size_t gpu_count;
    gpudiag_gpu_summary *gpus;    /**< owned by the report */
    uint64_t invalid_values;      /**< as in gpudiag_series */
    int64_t first_invalid_line;
    uint64_t header_changes;
    int64_t first_header_change_line;
    char ignored_columns[256];
    char skip_reason[192];        /**< as in gpudiag_series: said in input_skipped_rows' text */
    uint64_t empty_rows;          /**< as in gpudiag_series */
    int64_t first_empty_line;
} gpudiag_series_summary;

/**
 * Analyse a monitoring series: per-GPU statistics, the three indicators, the
 * the tuning guides' classification, findings and a verdict (docs/DEFINITIONS.md
 * "Monitoring series", docs/FINDINGS.md).
 *
 * s:    read with gpudiag_series_read() or filled by a sampler; not modified.
 * path: the input's name for the report (may be NULL).
 * out:  a report whose `series` points at the summary; trace sections are
 *       empty (counts 0, numbers NaN).  Free with gpudiag_report_free().
 * Returns GPUDIAG_OK, GPUDIAG_ERR_ARG or GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_series_analyze(const gpudiag_series *s, const char *path, gpudiag_report **out,
                                      gpudiag_error *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUDIAG_SERIES_H */
