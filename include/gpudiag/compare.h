/*
 * compare.h — did a change help, and did anything regress?
 *
 * `gpudiag compare BASE NEW` in library form.  A *side* is the set of numbers
 * one run contributes (built from an analysed trace, from the reports of the
 * ranks of one job, or read back from a saved JSON report); a comparison puts
 * one or more runs of the baseline against one or more runs of the change and
 * says, with the noise accounted for, whether the change helped.
 *
 * Every definition (U test, bootstrap, spread, gate, findings and kernel diff)
 * is in docs/DEFINITIONS.md "Comparing runs"; the JSON schema
 * (gpudiag.compare/1) in docs/REPORT.md.  Conventions of gpudiag.h hold:
 * µs in `_us` names, fractions 0..1, NaN for unknown, caller owns `**out`.
 */
#ifndef GPUDIAG_COMPARE_H
#define GPUDIAG_COMPARE_H

#include "gpudiag/gpudiag.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPUDIAG_COMPARE_SCHEMA "gpudiag.compare/1"

/* ---------------------------------------------------------------------- */
/* Sides                                                                   */
/* ---------------------------------------------------------------------- */

/** One run's numbers as a comparison needs them (opaque; owns its memory). */
typedef struct gpudiag_side gpudiag_side;

/**
 * Build a side from one analysed trace.
 *
 * r:   a report from gpudiag_analyze(); copied, so it may be freed afterwards.
 * out: receives the side; free with gpudiag_side_free().
 * Returns GPUDIAG_OK, GPUDIAG_ERR_ARG (NULL r/out) or GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_side_from_report(const gpudiag_report *r, gpudiag_side **out, gpudiag_error *err);

/**
 * Build a side from a trace, its tables over the steps its comparison uses.
 *
 * Analyses t with opts (NULL: defaults) and builds the side as
 * gpudiag_side_from_report() does.  When the steady-state rule leaves steps
 * out (docs/DEFINITIONS.md "Steady state of a run") and the steps kept run
 * from step lo to step hi with none left out between them, the trace is cut
 * to lo..hi (gpudiag_trace_select_steps(), so t is modified) and analysed
 * again: the side's tables — GPU numbers, breakdown, idle by cause, findings,
 * kernels and their per-step deltas — then cover the kept steps only, as its
 * step times do.  Otherwise (left-out steps between kept ones, or the cut
 * fails) the tables cover every step and the comparison says so
 * (gpudiag_compare_runs.tables_all_steps).
 *
 * t:   a trace from gpudiag_trace_read(); still owned by the caller (free it
 *      with gpudiag_trace_free()), possibly cut to the kept steps.
 * out: receives the side; free with gpudiag_side_free().
 * Returns GPUDIAG_OK, gpudiag_analyze()'s errors, GPUDIAG_ERR_ARG (NULL t/out)
 * or GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_side_from_trace(gpudiag_trace *t, const gpudiag_analyze_opts *opts, gpudiag_side **out,
                                       gpudiag_error *err);

/**
 * Build one side from the reports of the n ranks of one job (a directory of
 * rank traces): step k lasts as long as the slowest rank's step k (steps matched
 * by ProfilerStep number; only steps every rank has), kernels are summed over
 * the ranks, utilisation-type numbers are the mean over the ranks, a finding is
 * present when any rank has it (highest severity, largest est_gain).
 *
 * reports: n >= 1 reports, copied.  label: the side's name (the directory), copied.
 * Returns GPUDIAG_OK, GPUDIAG_ERR_ARG or GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_side_from_ranks(const gpudiag_report *const *reports, size_t n, const char *label,
                                       gpudiag_side **out, gpudiag_error *err);

/**
 * Read a saved report back as a side: a `gpudiag.report/1` document (written
 * by `analyze --json` or `analyze --save`) or a `gpudiag.cluster/1` document
 * (its `reports[]` are combined as by gpudiag_side_from_ranks()).  Parsed with
 * yajl's tree API; the whole file is read into memory (reports are small).
 * Kernels: only the saved `kernels.top[]` (up to 50 names) are known, so the
 * side's kernel list is marked partial when `kernels.distinct` is larger.
 *
 * path: file name ("-" is not accepted).
 * Returns GPUDIAG_OK; GPUDIAG_ERR_IO when unreadable; GPUDIAG_ERR_FORMAT when
 * not JSON (err->offset: the byte yajl stopped at, when it says) or not one of
 * those schemas; GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_side_read_json(const char *path, gpudiag_side **out, gpudiag_error *err);

/** 1 if the bytes at the start of a file look like a saved gpudiag JSON report
 *  (`{` then, within the first 256 bytes, `"schema":"gpudiag.`); 0 otherwise. */
int gpudiag_side_sniff_json(const char *head, size_t len);

/** The side's label (the input path or directory); owned by the side. */
const char *gpudiag_side_label(const gpudiag_side *s);

/** Free a side and set *s to NULL.  NULL-safe. */
void gpudiag_side_free(gpudiag_side **s);

/* ---------------------------------------------------------------------- */
/* Comparison                                                              */
/* ---------------------------------------------------------------------- */

/** The metric the gate judges (`--metric`). */
typedef enum gpudiag_compare_metric {
    GPUDIAG_METRIC_STEP_TIME = 0,     /**< mean step time (default); worse = higher */
    GPUDIAG_METRIC_STEP_TIME_MEDIAN,  /**< median step time; worse = higher */
    GPUDIAG_METRIC_STEP_TIME_P90,     /**< p90 step time; worse = higher */
    GPUDIAG_METRIC_THROUGHPUT,        /**< steps per second; worse = lower */
    GPUDIAG_METRIC_GPU_UTILIZATION,   /**< GPU utilisation; worse = lower */
    GPUDIAG_METRIC_COUNT
} gpudiag_compare_metric;

/** "step_time", "step_time_median", "step_time_p90", "throughput", "gpu_utilization". */
const char *gpudiag_compare_metric_name(gpudiag_compare_metric m);

/** Parse a metric name; returns the metric or -1. */
int gpudiag_compare_metric_parse(const char *name);

/** Options; zero-initialise, then call gpudiag_compare_opts_default() or set fields. */
typedef struct gpudiag_compare_opts {
    gpudiag_compare_metric metric;
    double threshold;     /**< relative change that counts, 0 < t < 10; default 0.05 */
    double alpha;         /**< U-test significance level, 0 < a < 1; default 0.05 */
    int full_names;       /**< 1: kernel diff by full name; 0: HTA short names (default) */
} gpudiag_compare_opts;

/** Fill defaults: step_time, threshold 0.05, alpha 0.05, short names. */
void gpudiag_compare_opts_default(gpudiag_compare_opts *o);

/** One compared number.  `better` says which direction helps. */
typedef struct gpudiag_compare_row {
    const char *key;      /**< JSON path-like name, static ("step_time_us.mean", "breakdown.share.dataloader") */
    double base, test;    /**< NaN when unknown on that side */
    double delta;         /**< test − base (NaN if either unknown) */
    double change;        /**< delta ÷ base (NaN when base is 0 or unknown) */
    int better;           /**< +1 higher is better, −1 lower is better, 0 neither (a share) */
} gpudiag_compare_row;

/** Verdict on the gate metric. */
typedef enum gpudiag_compare_verdict {
    GPUDIAG_CMP_NO_CHANGE = 0,   /**< |change| <= threshold */
    GPUDIAG_CMP_IMPROVED,        /**< better by more than the threshold, outside the noise */
    GPUDIAG_CMP_REGRESSED,       /**< worse by more than the threshold, outside the noise (exit 1) */
    GPUDIAG_CMP_INCONCLUSIVE     /**< beyond the threshold but within the noise, or noise unknown */
} gpudiag_compare_verdict;

/** "no_change", "improved", "regressed", "inconclusive". */
const char *gpudiag_compare_verdict_name(gpudiag_compare_verdict v);

/** A step left out of a side's steady state (DEFINITIONS "Steady state of a run"). */
typedef struct gpudiag_excluded_step {
    int64_t number;               /**< ProfilerStep number; -1 for a whole-trace window */
    double duration_us;
    double startup_idle_us;       /**< start-up and compilation idle in it */
    double unexplained_tail_us;   /**< its unexplained tail, counted (0 when not an outlier of the run) */
} gpudiag_excluded_step;

#define GPUDIAG_EXCLUDED_LISTED 8 /**< excluded steps listed per side; more are counted */

/** Per-side summary of the runs. */
typedef struct gpudiag_compare_runs {
    size_t runs;
    size_t steps;                 /**< pooled steps */
    double run_spread;            /**< (max − min) ÷ mean of the per-run mean step times; NaN with 1 run */
    int within_bar;               /**< 1 if run_spread <= 0.05; 0 if above; -1 unknown (1 run) */
    double metric_spread;         /**< the same spread of the gate metric's per-run values; NaN with 1 run */
    int kernels_partial;          /**< 1 if a run's kernel list is incomplete (saved report) */
    size_t steps_excluded;        /**< steps left out of the steady state, all runs (not in `steps`) */
    size_t excluded_listed;       /**< entries in excluded (at most GPUDIAG_EXCLUDED_LISTED) */
    gpudiag_excluded_step excluded[GPUDIAG_EXCLUDED_LISTED];
    int steady_unsure;            /**< 1 when a run's steps were all kept because leaving out the non-steady
                                       ones would leave fewer than 2 */
    int tables_all_steps;         /**< 1 when a run left steps out of the steady state but its tables (GPU,
                                       breakdown, idle, findings, kernels) still cover them: a saved report,
                                       or left-out steps between kept ones */
} gpudiag_compare_runs;

/** Finding states across the two sides. */
typedef enum gpudiag_finding_change {
    GPUDIAG_FC_UNCHANGED = 0,
    GPUDIAG_FC_APPEARED,
    GPUDIAG_FC_DISAPPEARED,
    GPUDIAG_FC_CHANGED
} gpudiag_finding_change;

/** "unchanged", "appeared", "disappeared", "changed". */
const char *gpudiag_finding_change_name(gpudiag_finding_change c);

/** One finding id on both sides. */
typedef struct gpudiag_compare_finding {
    const char *id;               /**< owned by the comparison */
    const char *title;            /**< from the side that has it (new preferred); owned */
    gpudiag_finding_change change;
    int base_severity, test_severity; /**< gpudiag_severity, −1 when absent on that side */
    double base_est_gain, test_est_gain; /**< NaN when absent or not estimated */
} gpudiag_compare_finding;

/** Kernel states across the two sides. */
typedef enum gpudiag_kernel_change {
    GPUDIAG_KC_SAME = 0,          /**< present on both sides */
    GPUDIAG_KC_ADDED,             /**< only in new */
    GPUDIAG_KC_REMOVED            /**< only in base */
} gpudiag_kernel_change;

/** One kernel name (short or full) on both sides. */
typedef struct gpudiag_compare_kernel {
    const char *name;             /**< owned by the comparison */
    double base_calls, test_calls;/**< whole-trace calls (mean over runs; integers for one run) */
    double base_us, test_us;      /**< summed durations, µs */
    double delta_us;              /**< test_us − base_us */
    double delta_us_per_step;     /**< test_us ÷ test steps − base_us ÷ base steps */
    gpudiag_kernel_change change;
} gpudiag_compare_kernel;

/** A whole comparison.  Every pointer is owned by it. */
typedef struct gpudiag_comparison {
    size_t base_count, test_count;        /**< runs per side */
    const char **base_labels, **test_labels; /**< the runs' labels */
    gpudiag_compare_runs base_runs, test_runs;

    size_t row_count;                     /**< step time, throughput, utilisation, breakdown, idle causes, MFU */
    gpudiag_compare_row *rows;

    /* per-step statistics of the gate metric's samples (step durations, or
     * per-step utilisation for gpu_utilization) */
    double mwu_u;                         /**< U statistic as defined in DEFINITIONS */
    double mwu_p;                         /**< two-sided p-value; NaN with < 2 samples on a side */
    int mwu_exact;                        /**< 1 exact distribution, 0 normal approximation */
    double median_diff;                   /**< median(new) − median(base) of those samples */
    double median_diff_lo, median_diff_hi;/**< bootstrap 95 % interval */

    /* the gate */
    gpudiag_compare_metric metric;
    double threshold, alpha;
    double metric_base, metric_test, metric_change; /**< the gate metric and its relative change */
    int outside_noise;                    /**< 1 outside the noise, 0 within, -1 unknown */
    gpudiag_compare_verdict verdict;
    const char *summary;                  /**< one sentence, owned */

    size_t finding_count;                 /**< by change (appeared, disappeared, changed, unchanged), then id */
    gpudiag_compare_finding *findings;

    int full_names;
    size_t kernel_count;                  /**< sorted by |delta_us_per_step| desc (movers first) */
    gpudiag_compare_kernel *kernels;
    size_t kernels_added, kernels_removed;
    unsigned mixed_job;                   /**< GPUDIAG_MIX_WORLD_SIZE / _GPU / _GPU_COUNT bits where base and test
                                               differ in set-up (DEFINITIONS "compare"); 0 if alike or unknown */
} gpudiag_comparison;

/**
 * Compare runs of a baseline with runs of a change.
 *
 * base, test: nbase >= 1 and ntest >= 1 sides (not modified; may be freed after).
 * opts: NULL for defaults.
 * Returns GPUDIAG_OK, GPUDIAG_ERR_ARG (empty side list, bad option) or GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_compare(const gpudiag_side *const *base, size_t nbase, const gpudiag_side *const *test,
                               size_t ntest, const gpudiag_compare_opts *opts, gpudiag_comparison **out,
                               gpudiag_error *err);

/** Free a comparison and set *c to NULL.  NULL-safe. */
void gpudiag_comparison_free(gpudiag_comparison **c);

/* ---------------------------------------------------------------------- */
/* Monitoring logs as sides (issue #9)                                     */
/* ---------------------------------------------------------------------- */

/** Number of metrics a monitoring comparison looks at. */
#define GPUDIAG_SERIES_COMPARE_METRICS 5

/** One metric of two monitoring logs, samples pooled over each log's GPUs. */
typedef struct gpudiag_series_compare_row {
    int metric;                   /**< gpudiag_metric (series.h): gpu_util, sm_active, tensor_active,
                                       mem_used_bytes, power_w */
    size_t base_n, test_n;        /**< samples with a value (0: the log lacks the metric) */
    double base_mean, test_mean;  /**< in the metric's unit (fraction, bytes, W); NaN when n = 0 */
    double base_median, test_median;
    double change;                /**< (test_mean − base_mean) ÷ |base_mean|; NaN unknown or base 0 */
    size_t block_len;             /**< samples per block (batch means; DEFINITIONS "compare: monitoring logs") */
    size_t base_blocks, test_blocks; /**< block means entering the U test */
    double mwu_p;                 /**< two-sided p of the U test over block means; NaN with < 2 per side */
    double mwu_p_samples;         /**< the same test over the raw samples: too small when samples are
                                       autocorrelated (shown for reference, not used by the verdict) */
    int higher_is_better;         /**< +1 utilisation metrics; 0 memory and power (a change, neither way) */
    int outside_noise;            /**< 1 p < alpha, 0 not, -1 unknown */
    gpudiag_compare_verdict verdict; /**< NO_CHANGE within the threshold; beyond it, IMPROVED / REGRESSED
                                       when outside the noise and the metric has a direction, else
                                       INCONCLUSIVE (a memory or power change outside the noise is
                                       INCONCLUSIVE with `changed` = 1) */
    int changed;                  /**< 1: |change| > threshold and outside the noise (any metric) */
} gpudiag_series_compare_row;

/** Comparison of two monitoring series. */
typedef struct gpudiag_series_comparison {
    double threshold, alpha;
    size_t row_count;             /**< GPUDIAG_SERIES_COMPARE_METRICS */
    gpudiag_series_compare_row rows[GPUDIAG_SERIES_COMPARE_METRICS];
    int gate;                     /**< row index of the gate metric (gpu_util, else sm_active); -1 none */
    gpudiag_compare_verdict verdict; /**< the gate row's verdict; NO_CHANGE when no gate */
    int snapshot;                 /**< bit 1: base, bit 2: new holds at most one sample per GPU (a snapshot):
                                       no time series, so no U test and every metric inconclusive; 0: neither */
    int setup_differs;            /**< bit 1: the sides hold different GPU counts, bit 2: a GPU product name
                                       on one side is not on the other (names known on both): a change may be
                                       the hardware's, not the job's; 0: same set-up as far as the logs say */
} gpudiag_series_comparison;

struct gpudiag_series;
/**
 * Compare two monitoring series metric by metric (docs/DEFINITIONS.md
 * "compare: monitoring logs"): mean and median of the samples pooled over
 * GPUs, relative change of the mean, and a Mann–Whitney U test over block
 * means (consecutive samples of one GPU averaged in blocks long enough that
 * the autocorrelation has died out), since monitoring samples one second apart
 * are not independent.  opts: threshold and alpha are used (NULL: defaults).
 * out: filled by value, nothing to free.  Returns GPUDIAG_OK, GPUDIAG_ERR_ARG
 * (NULL series/out) or GPUDIAG_ERR_NOMEM.
 */
gpudiag_status gpudiag_series_compare(const struct gpudiag_series *base, const struct gpudiag_series *test,
                                      const gpudiag_compare_opts *opts, gpudiag_series_comparison *out,
                                      gpudiag_error *err);

/** Write the comparison as JSON (schema gpudiag.compare/1, docs/REPORT.md).
 *  Returns GPUDIAG_OK or GPUDIAG_ERR_IO on a write error. */
gpudiag_status gpudiag_comparison_write_json(const gpudiag_comparison *c, FILE *fp, int pretty, gpudiag_error *err);

/** Write the human comparison: verdict, step-time table with the confidence
 *  statement, utilisation and breakdown changes, findings diff, kernel movers
 *  (opts->verbose: every kernel row).  Returns GPUDIAG_OK or GPUDIAG_ERR_IO. */
gpudiag_status gpudiag_comparison_write_text(const gpudiag_comparison *c, FILE *fp, const gpudiag_text_opts *opts,
                                             gpudiag_error *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUDIAG_COMPARE_H */
