/*
 * json.c — the machine report (schema gpudiag.report/1, docs/REPORT.md),
 * written through yajl's generator: strings are escaped by the library and
 * numbers are numbers.  NaN (unknown) becomes null, never 0.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>

#include "gpudiag/gpudiag.h"
#include "gpudiag/memory.h"
#include "gpudiag/roofline.h"
#include "gpudiag/series.h"
#include "gpudiag/summary.h"
#include "model/summary.h"
#include "report/finding_kind.h"
#include "util/util.h"

#define JSON_TOP_KERNELS 50
#define JSON_GAPS GPUDIAG_JSON_GAPS

typedef struct jw {
    yajl_gen g;
    FILE *fp;
    int io_error;
    int oom;          /* an allocation failed: the document is incomplete */
    size_t top_kernels; /* kernels.top entries: JSON_TOP_KERNELS, or all with GPUDIAG_JSON_ALL_KERNELS */
} jw;

static void print_cb(void *ctx, const char *s, size_t len)
{
    jw *w = ctx;
    if (fwrite(s, 1, len, w->fp) != len)
        w->io_error = 1;
}

static void key(jw *w, const char *k)
{
    yajl_gen_string(w->g, (const unsigned char *)k, strlen(k));
}

/* Every string goes out as valid UTF-8: bytes from a trace (a device name,
 * a path) may be anything; invalid sequences become U+FFFD (found by
 * tests/fuzz/fuzz_kineto: a device name with Latin-1 bytes). */
static void str(jw *w, const char *s)
{
    if (!s) {
        yajl_gen_null(w->g);
        return;
    }
    size_t n = strlen(s);
    if (gd_utf8_valid(s, n)) {
        yajl_gen_string(w->g, (const unsigned char *)s, n);
        return;
    }
    char *clean = gd_utf8_clean(s, n);
    if (clean)
        yajl_gen_string(w->g, (const unsigned char *)clean, strlen(clean));
    else
        yajl_gen_string(w->g, (const unsigned char *)"\xef\xbf\xbd", 3);
    free(clean);
}

static void raw_number(jw *w, const char *buf)
{
    yajl_gen_number(w->g, buf, strlen(buf));
}

/* Trim trailing zeros of a fixed-point rendering ("12.500" -> "12.5", "3.000" -> "3"). */
static void trim(char *b)
{
    char *dot = strchr(b, '.');
    if (!dot)
        return;
    char *e = b + strlen(b) - 1;
    while (e > dot && *e == '0')
        *e-- = '\0';
    if (e == dot)
        *e = '\0';
}

/* A time in µs: exact to the ns the trace can express. */
static void num_us(jw *w, double v)
{
    if (!isfinite(v)) {
        yajl_gen_null(w->g);
        return;
    }
    char b[64];
    snprintf(b, sizeof b, "%.3f", v);
    trim(b);
    if (strcmp(b, "-0") == 0)
        snprintf(b, sizeof b, "0");
    raw_number(w, b);
}

/* A ratio or other real: 6 significant digits. */
static void num(jw *w, double v)
{
    if (!isfinite(v)) {
        yajl_gen_null(w->g);
        return;
    }
    char b[64];
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(b, sizeof b, "%.0f", v); /* counts and byte sizes exactly */
    else
        snprintf(b, sizeof b, "%.6g", v);
    raw_number(w, b);
}

/* An exact trace-clock time from int64 ns, printed as µs with 3 decimals
 * (a double cannot hold 19-digit epoch timestamps to the ns). */
static void num_ns_as_us(jw *w, int64_t ns)
{
    char b[GD_NS_AS_US_LEN];
    gd_format_ns_as_us(ns, b);
    trim(b);
    raw_number(w, b);
}

static void integer(jw *w, long long v)
{
    yajl_gen_integer(w->g, v);
}

static void kv_us(jw *w, const char *k, double v) { key(w, k); num_us(w, v); }
static void kv_num(jw *w, const char *k, double v) { key(w, k); num(w, v); }
static void kv_int(jw *w, const char *k, long long v) { key(w, k); integer(w, v); }
static void kv_str(jw *w, const char *k, const char *v) { key(w, k); str(w, v); }
static void kv_bool(jw *w, const char *k, int v) { key(w, k); yajl_gen_bool(w->g, v); }

/* An integer that may be unknown: null unless `known`. */
static void kv_int_opt(jw *w, const char *k, long long v, int known)
{
    key(w, k);
    if (known)
        integer(w, v);
    else
        yajl_gen_null(w->g);
}

static void stats(jw *w, const char *k, const gpudiag_stats_us *s)
{
    key(w, k);
    yajl_gen_map_open(w->g);
    kv_us(w, "mean", s->mean);
    kv_us(w, "median", s->median);
    kv_us(w, "p90", s->p90);
    kv_us(w, "min", s->min);
    kv_us(w, "max", s->max);
    kv_us(w, "stddev", s->stddev);
    yajl_gen_map_close(w->g);
}

static void write_inputs(jw *w, const gpudiag_report *r)
{
    const gpudiag_input_info *in = &r->input;
    key(w, "inputs");
    yajl_gen_array_open(w->g);
    yajl_gen_map_open(w->g);
    kv_str(w, "path", in->path);
    kv_str(w, "format", in->format);
    if (in->framework)
        kv_str(w, "framework", in->framework);
    kv_int(w, "bytes", (long long)in->bytes);
    kv_int(w, "events", (long long)in->events);
    kv_bool(w, "truncated", in->truncated);
    kv_int_opt(w, "truncated_at_bytes", (long long)in->truncated_at, in->truncated);
    kv_int_opt(w, "trailing_at_bytes", (long long)in->trailing_at, in->trailing_at > 0);
    key(w, "skipped");
    yajl_gen_map_open(w->g);
    kv_int(w, "malformed", (long long)in->skipped_malformed);
    kv_int(w, "no_duration", (long long)in->skipped_no_dur);
    kv_int(w, "zero_ts", (long long)in->skipped_zero_ts);
    kv_int(w, "bad_value", (long long)in->skipped_bad_value);
    yajl_gen_map_close(w->g);
    key(w, "overruns");
    yajl_gen_map_open(w->g);
    kv_int(w, "ops", (long long)in->overrun_ops);
    kv_us(w, "removed_us", in->overrun_removed_us);
    yajl_gen_map_close(w->g);
    key(w, "time_outliers");
    yajl_gen_map_open(w->g);
    kv_int(w, "events", (long long)in->time_outliers);
    kv_int_opt(w, "first_at_bytes", (long long)in->time_outlier_first_at,
               in->time_outliers > 0 && in->time_outlier_first_at >= 0);
    kv_us(w, "gap_us", in->time_outlier_gap_us);
    kv_int(w, "durations_cut", (long long)in->duration_outliers);
    kv_us(w, "durations_removed_us", in->duration_outlier_removed_us);
    yajl_gen_map_close(w->g);
    kv_int_opt(w, "rank", in->rank, in->rank >= 0);
    kv_int_opt(w, "world_size", in->world_size, in->world_size >= 0);
    kv_bool(w, "amd", r->is_amd);
    key(w, "step_range");
    if (in->step_range)
        str(w, in->step_range);
    else
        yajl_gen_null(w->g);
    kv_bool(w, "step_range_missing", in->step_range_missing);
    key(w, "step_range_candidates");
    if (in->step_range_candidates)
        str(w, in->step_range_candidates);
    else
        yajl_gen_null(w->g);
    key(w, "steps_selected");
    if (in->steps_selected) {
        yajl_gen_map_open(w->g);
        kv_int_opt(w, "first", (long long)in->steps_first, in->steps_first != INT64_MIN);
        kv_int_opt(w, "last", (long long)in->steps_last, in->steps_last != INT64_MAX);
        kv_int(w, "steps_in_trace", (long long)in->steps_before_selection);
        yajl_gen_map_close(w->g);
    } else {
        yajl_gen_null(w->g);
    }
    kv_bool(w, "legacy_profiler", in->legacy_profiler);
    kv_int(w, "profiler_ranges", (long long)in->profiler_ranges);
    key(w, "unanalysed_device_events");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < in->unanalysed_device_count; i++) {
        yajl_gen_map_open(w->g);
        kv_str(w, "category", in->unanalysed_device[i].category);
        kv_int(w, "events", (long long)in->unanalysed_device[i].events);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    key(w, "nsys");
    if (in->nsys.present) {
        const gpudiag_nsys_info *n = &in->nsys;
        yajl_gen_map_open(w->g);
        kv_str(w, "version", n->version ? n->version : "");
        kv_int_opt(w, "session_start_utc_ns", (long long)n->session_start_utc_ns, n->session_start_utc_ns >= 0);
        kv_int(w, "kernels", (long long)n->kernels);
        kv_int(w, "memcpys", (long long)n->memcpys);
        kv_int(w, "memsets", (long long)n->memsets);
        kv_int(w, "runtime_calls", (long long)n->runtime_calls);
        kv_int(w, "nvtx_ranges", (long long)n->nvtx_ranges);
        kv_int(w, "sync_events", (long long)n->sync_events);
        kv_int(w, "graph_kernels", (long long)n->graph_kernels);
        kv_int(w, "graph_events", (long long)n->graph_events);
        kv_int(w, "graph_execs", (long long)n->graph_execs);
        kv_us(w, "graph_exec_time_us", n->graph_exec_time_us);
        kv_int(w, "runtime_duplicates", (long long)n->runtime_duplicates);
        kv_int(w, "mpi_calls", (long long)n->mpi_calls);
        kv_str(w, "steps_source", n->steps_source ? n->steps_source : "");
        key(w, "schema_gaps");
        yajl_gen_array_open(w->g);
        const char *g = n->schema_gaps ? n->schema_gaps : "";
        while (*g) {
            const char *e = strstr(g, "; ");
            size_t len = e ? (size_t)(e - g) : strlen(g);
            yajl_gen_string(w->g, (const unsigned char *)g, len);
            g += len;
            if (e)
                g += 2;
        }
        yajl_gen_array_close(w->g);
        yajl_gen_map_close(w->g);
    } else {
        yajl_gen_null(w->g);
    }
    yajl_gen_map_close(w->g);
    yajl_gen_array_close(w->g);
}

/* NVIDIA's expert-system rules (Nsight exports), null otherwise. */
static void write_nsight(jw *w, const gpudiag_report *r)
{
    const gpudiag_nsight_rules *R = &r->nsight;
    key(w, "nsight_rules");
    if (!R->available) {
        yajl_gen_null(w->g);
        return;
    }
    yajl_gen_map_open(w->g);
    kv_str(w, "source", "NVIDIA Nsight Systems expert-system rules (nsys analyze), default options, whole capture");
    key(w, "gpu_gaps");
    yajl_gen_map_open(w->g);
    kv_us(w, "threshold_us", R->gap_threshold_us);
    kv_int(w, "count", (long long)R->gaps);
    kv_us(w, "total_us", R->gap_time_us);
    kv_us(w, "max_us", R->gap_max_us);
    yajl_gen_map_close(w->g);
    key(w, "gpu_time_util");
    yajl_gen_map_open(w->g);
    kv_int(w, "chunks_per_device", R->util_chunks);
    kv_num(w, "threshold", R->util_threshold);
    kv_int(w, "chunks", (long long)R->util_chunks_total);
    kv_int(w, "low_chunks", (long long)R->util_low_chunks);
    kv_int(w, "low_regions", (long long)R->util_low_regions);
    kv_us(w, "low_time_us", R->util_low_time_us);
    kv_num(w, "min_utilization", R->util_min);
    yajl_gen_map_close(w->g);
    struct {
        const char *name;
        uint64_t count;
        double bytes, us;
    } rows[] = {
        {"cuda_memcpy_sync", R->memcpy_sync, R->memcpy_sync_bytes, R->memcpy_sync_us},
        {"cuda_memset_sync", R->memset_sync, R->memset_sync_bytes, R->memset_sync_us},
        {"cuda_memcpy_async", R->memcpy_async_pageable, R->memcpy_async_pageable_bytes, R->memcpy_async_pageable_us},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        key(w, rows[i].name);
        yajl_gen_map_open(w->g);
        kv_int(w, "count", (long long)rows[i].count);
        kv_num(w, "bytes", rows[i].bytes);
        kv_us(w, "gpu_time_us", rows[i].us);
        yajl_gen_map_close(w->g);
    }
    key(w, "cuda_api_sync");
    yajl_gen_map_open(w->g);
    kv_int(w, "count", (long long)R->api_sync);
    kv_us(w, "host_time_us", R->api_sync_us);
    yajl_gen_map_close(w->g);
    yajl_gen_map_close(w->g);
}

static void write_devices(jw *w, const gpudiag_report *r)
{
    key(w, "devices");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < r->device_count; i++) {
        const gpudiag_device *d = &r->devices[i];
        yajl_gen_map_open(w->g);
        kv_int(w, "id", d->id);
        key(w, "name");
        str(w, d->name[0] ? d->name : NULL);
        kv_int_opt(w, "num_sms", d->num_sms, d->num_sms > 0);
        key(w, "compute_capability");
        if (d->compute_major >= 0) {
            char cc[32];
            snprintf(cc, sizeof cc, "%d.%d", d->compute_major, d->compute_minor < 0 ? 0 : d->compute_minor);
            str(w, cc);
        } else {
            yajl_gen_null(w->g);
        }
        kv_bool(w, "arch_inferred", d->arch_inferred);
        kv_num(w, "total_memory_bytes", d->total_memory_bytes);
        kv_int(w, "kernel_count", (long long)d->kernel_count);
        kv_us(w, "kernel_time_us", d->kernel_time_us);
        kv_num(w, "gpu_utilization", d->gpu_utilization);
        kv_num(w, "sm_efficiency", d->sm_efficiency);
        kv_num(w, "achieved_occupancy", d->achieved_occupancy);
        kv_num(w, "tensor_core_share", d->tensor_core_share);
        key(w, "temporal");
        yajl_gen_map_open(w->g);
        kv_us(w, "span_us", d->span_us);
        kv_us(w, "idle_us", d->idle_us);
        kv_us(w, "compute_us", d->compute_us);
        kv_us(w, "non_compute_us", d->non_compute_us);
        yajl_gen_map_close(w->g);
        kv_us(w, "comm_time_us", d->comm_time_us);
        kv_num(w, "comm_overlap", d->comm_overlap);
        key(w, "spec"); /* the GPU table row (DEFINITIONS "GPU table"); null when not identified */
        if (d->spec_name || d->peak_tflops > 0) {
            yajl_gen_map_open(w->g);
            key(w, "name");
            str(w, d->spec_name);
            key(w, "match");
            str(w, d->spec_match);
            key(w, "uncertain");
            yajl_gen_bool(w->g, d->spec_uncertain);
            kv_num(w, "peak_tflops", d->peak_tflops);
            kv_num(w, "mem_bw_gbs", d->mem_bw_gbs);
            kv_num(w, "pcie_gbs_per_dir", d->pcie_gbs_per_dir);
            kv_num(w, "ridge_flop_per_byte", d->ridge);
            key(w, "part");
            str(w, d->spec_part);
            key(w, "also_fits");
            yajl_gen_array_open(w->g);
            for (size_t k = 0; k < d->spec_also_fits_count; k++)
                str(w, d->spec_also_fits[k]);
            yajl_gen_array_close(w->g);
            key(w, "peaks_differ");
            yajl_gen_bool(w->g, d->spec_peaks_differ);
            yajl_gen_map_close(w->g);
        } else {
            yajl_gen_null(w->g);
        }
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
}

static void write_summary(jw *w, const gpudiag_report *r)
{
    key(w, "summary");
    yajl_gen_map_open(w->g);
    /* A monitoring log has no steps, kernels or launches: those counts are not
     * measured (null), not zero. */
    int counted = r->series == NULL;
    kv_int_opt(w, "steps", (long long)r->step_count, counted);
    stats(w, "step_time_us", &r->step_time);
    kv_us(w, "steady_step_us", r->steady_step_us);
    kv_num(w, "gpu_utilization", r->gpu_utilization);
    kv_num(w, "sm_efficiency", r->sm_efficiency);
    kv_num(w, "achieved_occupancy", r->achieved_occupancy);
    kv_num(w, "tensor_core_share", r->tensor_core_share);
    kv_int_opt(w, "kernel_count", (long long)r->kernel_count, counted);
    kv_num(w, "idle_share", r->idle_share);
    kv_num(w, "compute_share", r->compute_share);
    kv_num(w, "non_compute_share", r->non_compute_share);
    kv_num(w, "comm_share", r->comm_share);
    kv_num(w, "comm_overlap", r->comm_overlap);
    kv_us(w, "comm_kernel_exposed_us_per_step", r->comm_kernel_exposed_us_per_step);
    key(w, "comm_kernel_us_by_kind");
    yajl_gen_map_open(w->g);
    for (int c = 0; c < GPUDIAG_COMM_KIND_COUNT; c++)
        kv_us(w, gpudiag_comm_kind_name((gpudiag_comm_kind)c), r->has_gpu && r->step_count ? r->comm_kind_us[c] : NAN);
    yajl_gen_map_close(w->g);
    kv_num(w, "mfu", r->mfu);
    kv_num(w, "hfu", r->hfu);
    kv_num(w, "achieved_tflops_per_gpu", r->achieved_tflops);
    kv_num(w, "model_flops_per_step", r->model_flops_per_step);
    kv_num(w, "mfu_peak_tflops", r->mfu_peak_tflops);
    key(w, "mfu_dtype");
    str(w, r->mfu_dtype);
    kv_us(w, "kernel_time_us", r->kernel_time_us);
    kv_num(w, "short_kernel_share", r->short_kernel_share);
    kv_us(w, "median_kernel_us", r->median_kernel_us);
    kv_us(w, "launch_delay_median_us", r->launch_delay_median_us);
    kv_int_opt(w, "linked_kernels", (long long)r->linked_kernels, counted);
    kv_int_opt(w, "runtime_outliers", (long long)r->runtime_outliers, counted);
    kv_int_opt(w, "launch_delay_outliers", (long long)r->launch_delay_outliers, counted);
    kv_int_opt(w, "launch_delay_outliers_gpu_idle", (long long)r->launch_delay_outliers_gpu_idle, counted);
    kv_int_opt(w, "kernels_before_launch", (long long)r->kernels_before_launch, counted);
    kv_int_opt(w, "gpu_ops_unlinked", (long long)r->gpu_ops_unlinked, counted);
    kv_int_opt(w, "graph_launches", (long long)r->graph_launches, counted);
    kv_int_opt(w, "graph_launches_without_gpu_ops", (long long)r->graph_launches_unrecorded, counted);
    kv_int_opt(w, "graph_gpu_ops", (long long)r->graph_gpu_ops, counted);
    key(w, "gpu_utilization_lower_bound");
    if (counted)
        yajl_gen_bool(w->g, r->graph_launches_unrecorded > 0);
    else
        yajl_gen_null(w->g);
    key(w, "optimizer");
    yajl_gen_map_open(w->g);
    kv_us(w, "time_us", r->optimizer_time_us);
    kv_num(w, "share_of_step",
           r->step_count && r->avg_step_us > 0 ? r->optimizer_time_us / (double)r->step_count / r->avg_step_us : NAN);
    kv_int_opt(w, "kernels", (long long)r->optimizer_kernels, counted);
    kv_us(w, "kernel_time_us", r->optimizer_kernel_time_us);
    kv_int_opt(w, "fused_kernels", (long long)r->optimizer_fused_kernels, counted);
    yajl_gen_map_close(w->g);
    yajl_gen_map_close(w->g);
}

static void roles_us(jw *w, const char *k, const double *v)
{
    key(w, k);
    yajl_gen_map_open(w->g);
    for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++)
        kv_us(w, gpudiag_role_name((gpudiag_role)i), v[i]);
    yajl_gen_map_close(w->g);
}

static void write_steps(jw *w, const gpudiag_report *r)
{
    key(w, "steps");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < r->step_count; i++) {
        const gpudiag_step *s = &r->steps[i];
        yajl_gen_map_open(w->g);
        kv_int_opt(w, "number", (long long)s->number, s->number >= 0);
        key(w, "start_us");
        num_ns_as_us(w, s->start_ns);
        key(w, "end_us");
        num_ns_as_us(w, s->end_ns);
        kv_us(w, "duration_us", s->duration_us);
        kv_int(w, "device_ops", s->device_ops);
        kv_us(w, "gpu_lead_in_us", s->gpu_lead_in_us);
        kv_us(w, "startup_idle_us", s->startup_idle_us);
        kv_us(w, "unexplained_tail_us", s->unexplained_tail_us);
        roles_us(w, "breakdown_us", s->role_us);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);

    key(w, "breakdown");
    yajl_gen_map_open(w->g);
    kv_str(w, "definition", "pytorch_tb_plugin");
    kv_us(w, "avg_step_us", r->avg_step_us);
    roles_us(w, "avg_us", r->avg_role_us);
    key(w, "share");
    yajl_gen_map_open(w->g);
    for (int i = 0; i < GPUDIAG_ROLE_COUNT; i++)
        kv_num(w, gpudiag_role_name((gpudiag_role)i),
               r->avg_step_us > 0 ? r->avg_role_us[i] / r->avg_step_us : NAN);
    yajl_gen_map_close(w->g);
    kv_int(w, "steps_trimmed", r->steps_trimmed);
    kv_int(w, "steps_shortened", r->steps_shortened);
    kv_int(w, "steps_cut_gpu", r->steps_cut_gpu);
    kv_int(w, "steps_markers_merged", r->steps_markers_merged);
    kv_int(w, "steps_markers_overlapping", r->steps_markers_overlapping);
    kv_int(w, "steps_numbers_repeated", r->steps_numbers_repeated);
    kv_bool(w, "steps_from_profiler", r->steps_from_profiler);
    yajl_gen_map_close(w->g);
}

/* idle.gaps[]: every gap when there are at most JSON_GAPS, else the
 * JSON_GAPS longest (ties: earlier first), always listed by device, then start. */
static int cmp_gap_len(const void *a, const void *b)
{
    const gpudiag_gap *x = *(const gpudiag_gap *const *)a, *y = *(const gpudiag_gap *const *)b;
    if (x->duration_us != y->duration_us)
        return x->duration_us > y->duration_us ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int cmp_gap_pos(const void *a, const void *b)
{
    const gpudiag_gap *x = *(const gpudiag_gap *const *)a, *y = *(const gpudiag_gap *const *)b;
    return x < y ? -1 : x > y;
}

static void write_gaps(jw *w, const gpudiag_report *r)
{
    /* the kept gaps: every one, or (max_gaps) the longest, a superset of the
     * JSON_GAPS longest by the same order, so the list is the same either way */
    size_t n = r->gaps ? r->gaps_kept : 0;
    size_t listed = n < JSON_GAPS ? n : JSON_GAPS;
    const gpudiag_gap **p = n ? malloc(listed * sizeof *p) : NULL;
    if (n && !p) {
        listed = 0;
        w->oom = 1;
    }
    if (p && listed < n) {
        /* the `listed` longest by cmp_gap_len (a total order, so the set is
         * the one a full sort would give), without sorting every gap */
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            const gpudiag_gap *g = &r->gaps[i];
            gd_topk_push(p, &k, listed, sizeof *p, &g, cmp_gap_len);
        }
        qsort(p, listed, sizeof *p, cmp_gap_pos);
    } else {
        for (size_t i = 0; p && i < n; i++)
            p[i] = &r->gaps[i];
    }
    kv_int(w, "gaps_listed", (long long)listed);
    key(w, "gaps");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < listed; i++) {
        const gpudiag_gap *g = p[i];
        yajl_gen_map_open(w->g);
        key(w, "start_us");
        num_ns_as_us(w, g->start_ns);
        kv_us(w, "duration_us", g->duration_us);
        kv_int(w, "device", g->device);
        kv_int_opt(w, "step", (long long)g->step, g->step >= 0);
        kv_str(w, "cause", gpudiag_idle_cause_name(g->cause));
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    free(p);
}

static void write_idle(jw *w, const gpudiag_report *r)
{
    key(w, "idle");
    yajl_gen_map_open(w->g);
    kv_str(w, "definition", "hta_temporal_breakdown");
    kv_num(w, "idle_share", r->idle_share);
    kv_us(w, "gap_us", r->idle_gap_us);
    kv_int(w, "gap_count", (long long)r->idle_gap_count);
    key(w, "by_cause_us");
    yajl_gen_map_open(w->g);
    for (int c = 0; c < GPUDIAG_IDLE_CAUSE_COUNT; c++)
        kv_us(w, gpudiag_idle_cause_name((gpudiag_idle_cause)c), r->has_gpu && r->step_count ? r->idle_cause_us[c] : NAN);
    yajl_gen_map_close(w->g);
    key(w, "by_cause_share_of_step");
    yajl_gen_map_open(w->g);
    for (int c = 0; c < GPUDIAG_IDLE_CAUSE_COUNT; c++) {
        double per_step = r->step_count ? r->idle_cause_us[c] / (double)r->step_count / (r->timeline.device_count ? (double)r->timeline.device_count : 1.0) : NAN;
        kv_num(w, gpudiag_idle_cause_name((gpudiag_idle_cause)c),
               r->has_gpu && r->idle_step_us > 0 ? per_step / r->idle_step_us : NAN);
    }
    yajl_gen_map_close(w->g);
    kv_us(w, "step_window_us", r->has_gpu && r->step_count ? r->idle_step_us : NAN);
    kv_us(w, "collective_host_us", r->has_gpu && r->step_count ? r->collective_host_us : NAN);
    kv_us(w, "stream_wait_graph_us", r->has_gpu && r->step_count ? r->stream_wait_graph_us : NAN);
    kv_us(w, "stream_wait_event_us", r->has_gpu && r->step_count ? r->stream_wait_event_us : NAN);
    kv_us(w, "graph_unrecorded_idle_us", r->has_gpu && r->step_count ? r->graph_hidden_idle_us : NAN);
    kv_int(w, "sync_calls", (long long)r->sync_calls);
    kv_us(w, "sync_time_us", r->sync_time_us);
    key(w, "top_gaps");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < r->top_gap_count; i++) {
        const gpudiag_gap *g = &r->top_gaps[i];
        yajl_gen_map_open(w->g);
        key(w, "start_us");
        num_ns_as_us(w, g->start_ns);
        kv_us(w, "duration_us", g->duration_us);
        kv_int(w, "device", g->device);
        kv_int_opt(w, "step", (long long)g->step, g->step >= 0);
        kv_str(w, "cause", gpudiag_idle_cause_name(g->cause));
        kv_str(w, "cpu_op", g->cpu_op);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    write_gaps(w, r);
    key(w, "streams");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < r->stream_idle_count; i++) {
        const gpudiag_stream_idle *si = &r->stream_idle[i];
        yajl_gen_map_open(w->g);
        kv_int(w, "device", si->device);
        kv_int(w, "stream", si->stream);
        kv_int(w, "ops", (long long)si->ops);
        kv_us(w, "host_wait_us", si->host_wait_us);
        kv_us(w, "kernel_wait_us", si->kernel_wait_us);
        kv_us(w, "other_us", si->other_us);
        kv_num(w, "queue_mean", si->queue_mean);
        kv_int(w, "queue_max", (long long)si->queue_max);
        kv_us(w, "full_queue_us", si->full_queue_us);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    key(w, "devices");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < r->device_count; i++) {
        const gpudiag_device *d = &r->devices[i];
        yajl_gen_map_open(w->g);
        kv_int(w, "device", d->id);
        kv_us(w, "span_us", d->span_us);
        kv_us(w, "idle_us", d->idle_us);
        kv_num(w, "idle_share", d->idle_share);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    yajl_gen_map_close(w->g);
}

static void us_array(jw *w, const char *k, const double *v, size_t n)
{
    key(w, k);
    if (!v) {
        yajl_gen_null(w->g);
        return;
    }
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < n; i++)
        num_us(w, v[i]);
    yajl_gen_array_close(w->g);
}

static void write_timeline(jw *w, const gpudiag_report *r)
{
    const gpudiag_timeline *tl = &r->timeline;
    key(w, "timeline");
    if (!tl->bins) {
        yajl_gen_null(w->g);
        return;
    }
    yajl_gen_map_open(w->g);
    key(w, "start_us");
    num_ns_as_us(w, tl->start_ns);
    key(w, "end_us");
    num_ns_as_us(w, tl->end_ns);
    kv_int(w, "bins", (long long)tl->bins);
    kv_us(w, "bin_us", tl->bin_us);
    key(w, "streams");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < tl->lane_count; i++) {
        const gpudiag_timeline_lane *l = &tl->lanes[i];
        yajl_gen_map_open(w->g);
        kv_int(w, "device", l->device);
        kv_int(w, "stream", l->stream);
        us_array(w, "busy_us", l->busy_us, tl->bins);
        key(w, "queue_max");
        if (!l->queue_max) {
            yajl_gen_null(w->g);
        } else {
            yajl_gen_array_open(w->g);
            for (size_t b = 0; b < tl->bins; b++)
                num(w, l->queue_max[b]);
            yajl_gen_array_close(w->g);
        }
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    key(w, "devices");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < tl->device_count; i++) {
        const gpudiag_timeline_device *d = &tl->devices[i];
        yajl_gen_map_open(w->g);
        kv_int(w, "device", d->device);
        us_array(w, "busy_us", d->busy_us, tl->bins);
        key(w, "idle_us");
        yajl_gen_map_open(w->g);
        for (int c = 0; c < GPUDIAG_IDLE_CAUSE_COUNT; c++)
            us_array(w, gpudiag_idle_cause_name((gpudiag_idle_cause)c), d->idle_us[c], tl->bins);
        yajl_gen_map_close(w->g);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    yajl_gen_map_close(w->g);
}

static void write_kernels(jw *w, const gpudiag_report *r)
{
    key(w, "kernels");
    yajl_gen_map_open(w->g);
    kv_int(w, "count", (long long)r->kernel_count);
    kv_int(w, "distinct", (long long)r->kernel_stat_count);
    kv_us(w, "total_us", r->kernel_time_us);
    kv_num(w, "tensor_core_share", r->tensor_core_share);
    kv_num(w, "matmul_tensor_core_share", r->matmul_tensor_core_share);
    key(w, "by_class");
    yajl_gen_array_open(w->g);
    for (int c = 0; c < GPUDIAG_KCLASS_COUNT; c++) {
        if (r->class_time_us[c] <= 0)
            continue;
        yajl_gen_map_open(w->g);
        kv_str(w, "class", gpudiag_kernel_class_name((gpudiag_kernel_class)c));
        kv_us(w, "total_us", r->class_time_us[c]);
        kv_num(w, "share", r->class_share[c]);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    key(w, "gemm_fill");
    yajl_gen_map_open(w->g);
    kv_int(w, "calls", (long long)r->gemm_calls);
    kv_us(w, "time_us", r->gemm_time_us);
    kv_us(w, "blocks_known_us", r->gemm_blocks_known_us);
    kv_us(w, "underfilled_us", r->gemm_underfilled_us);
    kv_num(w, "underfilled_share", r->gemm_underfilled_share);
    kv_us(w, "sm_idle_us", r->gemm_sm_idle_us);
    kv_us(w, "comm_filled_us", r->gemm_comm_filled_us);
    yajl_gen_map_close(w->g);
    key(w, "top");
    yajl_gen_array_open(w->g);
    size_t n = r->kernel_stat_count < w->top_kernels ? r->kernel_stat_count : w->top_kernels;
    /* cppcheck-suppress knownConditionTrueFalse ; false positive: kernel_stat_count is not known to be 0 */
    for (size_t i = 0; i < n; i++) {
        const gpudiag_kernel_stat *k = &r->kernel_stats[i];
        yajl_gen_map_open(w->g);
        kv_str(w, "name", k->name);
        kv_str(w, "class", gpudiag_kernel_class_name(k->cls));
        kv_bool(w, "tensor_core", k->tensor_core);
        kv_int(w, "calls", (long long)k->calls);
        kv_us(w, "total_us", k->total_us);
        kv_us(w, "mean_us", k->mean_us);
        kv_us(w, "min_us", k->min_us);
        kv_us(w, "max_us", k->max_us);
        kv_num(w, "share", k->share);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    yajl_gen_map_close(w->g);
}

static void write_findings(jw *w, const gpudiag_finding *findings, size_t count)
{
    key(w, "findings");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < count; i++) {
        const gpudiag_finding *f = &findings[i];
        yajl_gen_map_open(w->g);
        kv_str(w, "id", f->id);
        kv_str(w, "severity", gpudiag_severity_name(f->severity));
        kv_str(w, "kind", gd_finding_kind_word(f));
        kv_str(w, "title", f->title);
        key(w, "evidence");
        yajl_gen_map_open(w->g);
        for (size_t k = 0; k < f->evidence_count; k++) {
            const char *ek = f->evidence[k].key;
            size_t kl = strlen(ek);
            if (kl > 3 && strcmp(ek + kl - 3, "_us") == 0)
                kv_us(w, ek, f->evidence[k].value);
            else
                kv_num(w, ek, f->evidence[k].value);
        }
        yajl_gen_map_close(w->g);
        kv_str(w, "recommendation", f->recommendation);
        kv_num(w, "est_gain", f->est_gain);
        kv_str(w, "bottleneck", gpudiag_bottleneck_name(f->bottleneck));
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
}

static const char *time_source_name(gpudiag_time_source t)
{
    return t == GPUDIAG_TIME_ABSOLUTE ? "absolute" : t == GPUDIAG_TIME_ASSUMED ? "assumed" : "snapshot";
}

static const char *entity_name(gpudiag_entity_kind k)
{
    return k == GPUDIAG_ENTITY_GPU ? "gpu" : k == GPUDIAG_ENTITY_GPU_I ? "gpu_instance" : "compute_instance";
}

static void kv_str_opt(jw *w, const char *k, const char *v)
{
    key(w, k);
    if (v && v[0])
        str(w, v);
    else
        yajl_gen_null(w->g);
}

static void kv_tri(jw *w, const char *k, int v)
{
    key(w, k);
    if (v < 0)
        yajl_gen_null(w->g);
    else
        yajl_gen_bool(w->g, v);
}

static void write_spark(jw *w, const char *k, const double *v)
{
    key(w, k);
    yajl_gen_array_open(w->g);
    for (int i = 0; i < GPUDIAG_SPARK_POINTS; i++)
        num(w, v[i]);
    yajl_gen_array_close(w->g);
}

/* The `roofline` section (docs/REPORT.md, DEFINITIONS "Roofline of the kernels"):
 * null when no kernel's FLOPs are known. */
static void write_roofline(jw *w, const gpudiag_report *r)
{
    key(w, "roofline");
    const gpudiag_roofline *rl = r->roofline;
    if (!rl) {
        yajl_gen_null(w->g);
        return;
    }
    yajl_gen_map_open(w->g);
    kv_str(w, "gpu", rl->gpu);
    kv_num(w, "mem_bw_gbs", rl->mem_bw_gbs);
    kv_str(w, "ncu_path", rl->ncu_path);
    kv_int(w, "ncu_rows", (long long)rl->ncu_rows);
    kv_int(w, "ncu_matched", (long long)rl->ncu_matched);
    kv_int(w, "kernel_names", (long long)rl->kernel_names);
    kv_int(w, "calls", (long long)rl->calls);
    kv_us(w, "time_us", rl->time_us);
    kv_num(w, "flops", rl->flops);
    kv_num(w, "kernel_time_share", rl->kernel_time_share);
    key(w, "kernels");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < rl->kernel_count; i++) {
        const gpudiag_roofline_kernel *k = &rl->kernels[i];
        yajl_gen_map_open(w->g);
        kv_str(w, "name", k->name);
        kv_str(w, "source", k->source);
        kv_str(w, "dtype", k->dtype);
        kv_bool(w, "matrix_peak", k->matrix_peak);
        kv_int(w, "calls", (long long)k->calls);
        kv_us(w, "time_us", k->time_us);
        kv_num(w, "flops", k->flops);
        kv_num(w, "bytes", k->bytes);
        kv_num(w, "intensity", k->intensity);
        kv_num(w, "achieved_tflops", k->achieved_tflops);
        kv_num(w, "peak_tflops", k->peak_tflops);
        kv_num(w, "peak_share", k->peak_share);
        kv_num(w, "ridge", k->ridge);
        kv_num(w, "attainable_tflops", k->attainable_tflops);
        kv_str(w, "bound", k->bound);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    yajl_gen_map_close(w->g);
}

/* The `memory` section (docs/REPORT.md, DEFINITIONS "Memory timeline"): null
 * for a monitoring log. */
static void write_memory(jw *w, const gpudiag_report *r)
{
    key(w, "memory");
    const gpudiag_memory *m = r->memory;
    if (!m) {
        yajl_gen_null(w->g);
        return;
    }
    yajl_gen_map_open(w->g);
    key(w, "devices");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < m->device_count; i++) {
        const gpudiag_memory_device *d = &m->devices[i];
        yajl_gen_map_open(w->g);
        kv_int(w, "device", d->id);
        kv_int(w, "events", (long long)d->events);
        kv_bool(w, "has_totals", d->has_totals);
        kv_bool(w, "has_reserved", d->has_reserved);
        kv_num(w, "peak_allocated_bytes", d->peak_allocated_bytes);
        kv_num(w, "peak_reserved_bytes", d->peak_reserved_bytes);
        kv_num(w, "reserved_unused_bytes", d->reserved_unused_bytes);
        kv_num(w, "total_bytes", d->total_bytes);
        kv_str(w, "total_source", d->total_source);
        kv_num(w, "headroom_bytes", d->headroom_bytes);
        kv_num(w, "headroom_share", d->headroom_share);
        kv_num(w, "persistent_bytes", d->persistent_bytes);
        kv_num(w, "transient_bytes", d->transient_bytes);
        kv_num(w, "activation_fits", d->activation_fits);
        key(w, "steps");
        yajl_gen_array_open(w->g);
        for (size_t k = 0; k < d->step_count; k++) {
            const gpudiag_memory_step *st = &d->steps[k];
            yajl_gen_map_open(w->g);
            kv_int(w, "step", (long long)st->number);
            kv_num(w, "peak_allocated_bytes", st->peak_allocated_bytes);
            kv_num(w, "low_allocated_bytes", st->low_allocated_bytes);
            kv_num(w, "peak_reserved_bytes", st->peak_reserved_bytes);
            kv_num(w, "allocated_bytes", st->allocated_bytes);
            yajl_gen_map_close(w->g);
        }
        yajl_gen_array_close(w->g);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    kv_int(w, "other_events", (long long)m->other_events);
    const gpudiag_alloc_calls *ac = &m->alloc;
    key(w, "allocator");
    yajl_gen_map_open(w->g);
    kv_int(w, "steps", (long long)ac->steps);
    kv_int(w, "malloc_calls", (long long)ac->malloc_calls);
    kv_int(w, "free_calls", (long long)ac->free_calls);
    kv_us(w, "time_us", ac->time_us);
    kv_us(w, "step_time_us", ac->step_time_us);
    kv_int(w, "empty_cache_calls", (long long)ac->empty_cache_calls);
    kv_int(w, "window_malloc_calls", (long long)ac->window_malloc_calls);
    kv_int(w, "window_free_calls", (long long)ac->window_free_calls);
    kv_us(w, "window_time_us", ac->window_time_us);
    kv_us(w, "idle_us", r->alloc_idle_us);
    yajl_gen_map_close(w->g);
    yajl_gen_map_close(w->g);
}

/* The `series` section (docs/REPORT.md): null for a trace. */
static void write_series(jw *w, const gpudiag_report *r)
{
    key(w, "series");
    const gpudiag_series_summary *s = r->series;
    if (!s) {
        yajl_gen_null(w->g);
        return;
    }
    yajl_gen_map_open(w->g);
    kv_str(w, "format", s->format);
    kv_str(w, "time_source", time_source_name(s->time_source));
    kv_bool(w, "snapshot", s->snapshot);
    kv_int(w, "rows", (long long)s->rows);
    kv_int(w, "skipped_rows", (long long)s->skipped_rows);
    kv_int_opt(w, "first_skipped_line", s->first_skipped_line, s->first_skipped_line > 0);
    kv_int(w, "invalid_values", (long long)s->invalid_values);
    kv_int_opt(w, "first_invalid_line", s->first_invalid_line, s->first_invalid_line > 0);
    kv_int(w, "empty_rows", (long long)s->empty_rows);
    kv_int_opt(w, "first_empty_line", s->first_empty_line, s->first_empty_line > 0);
    kv_int(w, "header_changes", (long long)s->header_changes);
    kv_int_opt(w, "first_header_change_line", s->first_header_change_line, s->first_header_change_line > 0);
    kv_str(w, "ignored_columns", s->ignored_columns[0] ? s->ignored_columns : NULL);
    key(w, "gpus");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < s->gpu_count; i++) {
        const gpudiag_gpu_summary *g = &s->gpus[i];
        yajl_gen_map_open(w->g);
        kv_int_opt(w, "index", g->index, g->index >= 0);
        kv_str(w, "entity", entity_name(g->kind));
        kv_int_opt(w, "instance", g->instance, g->instance >= 0);
        kv_str_opt(w, "name", g->name);
        kv_str_opt(w, "uuid", g->uuid);
        kv_str_opt(w, "bus_id", g->bus_id);
        kv_str_opt(w, "hostname", g->hostname);
        kv_str_opt(w, "mig_profile", g->mig_profile);
        kv_str_opt(w, "pod", g->pod);
        kv_str_opt(w, "namespace", g->k8s_namespace);
        kv_str_opt(w, "container", g->container);
        kv_int(w, "pod_changes", g->pod_changes);
        kv_int(w, "pods", g->pods);
        kv_int(w, "samples", (long long)g->samples);
        kv_us(w, "duration_us", g->duration_us);
        kv_us(w, "interval_us", g->interval_us);
        key(w, "metrics");
        yajl_gen_map_open(w->g);
        for (int m = 0; m < GPUDIAG_M_COUNT; m++) {
            const gpudiag_metric_stats *st = &g->stats[m];
            if (!st->n)
                continue;
            key(w, gpudiag_metric_name((gpudiag_metric)m));
            yajl_gen_map_open(w->g);
            kv_int(w, "n", (long long)st->n);
            kv_num(w, "mean", st->mean);
            kv_num(w, "median", st->median);
            kv_num(w, "p5", st->p5);
            kv_num(w, "p10", st->p10);
            kv_num(w, "p90", st->p90);
            kv_num(w, "p95", st->p95);
            kv_num(w, "min", st->min);
            kv_num(w, "max", st->max);
            kv_num(w, "stddev", st->stddev);
            kv_num(w, "low_share", st->low_share);
            kv_num(w, "jitter", st->jitter);
            yajl_gen_map_close(w->g);
        }
        yajl_gen_map_close(w->g);
        kv_str_opt(w, "compute_metric",
                   g->compute_metric < GPUDIAG_M_COUNT ? gpudiag_metric_name(g->compute_metric) : NULL);
        kv_str_opt(w, "bandwidth_metric",
                   g->bandwidth_metric < GPUDIAG_M_COUNT ? gpudiag_metric_name(g->bandwidth_metric) : NULL);
        key(w, "health");
        yajl_gen_map_open(w->g);
        kv_tri(w, "median_ok", g->health_median_ok);
        kv_tri(w, "p10_ok", g->health_p10_ok);
        kv_tri(w, "low_share_ok", g->health_low_ok);
        yajl_gen_map_close(w->g);
        key(w, "indicators");
        yajl_gen_map_open(w->g);
        kv_str_opt(w, "memory", g->memory_level);
        kv_str_opt(w, "compute", g->compute_level);
        kv_str_opt(w, "bandwidth", g->bandwidth_level);
        kv_num(w, "mem_used_share", g->mem_used_share);
        kv_num(w, "mem_used_share_max", g->mem_used_share_max);
        yajl_gen_map_close(w->g);
        kv_bool(w, "in_use", g->in_use);
        kv_bool(w, "idle_holding_memory", g->idle_holding_memory);
        kv_bool(w, "video_busy", g->video_busy);
        kv_int(w, "warmup_samples", (long long)g->warmup_samples);
        kv_int(w, "teardown_samples", (long long)g->teardown_samples);
        kv_us(w, "excluded_us", (g->warmup_samples + g->teardown_samples) ? g->excluded_us : 0);
        kv_bool(w, "bandwidth_unreported", g->bandwidth_unreported);
        kv_bool(w, "mem_total_from_spec", g->mem_total_from_spec);
        kv_bool(w, "profiling_unreported", g->profiling_unreported);
        kv_num(w, "temp_at_slowdown_share", g->temp_at_slowdown_share);
        kv_us(w, "dip_period_us", g->dip_period_us);
        kv_num(w, "dip_acf", g->dip_acf);
        kv_num(w, "traffic_corr", g->traffic_corr);
        kv_int_opt(w, "clock_event_reasons", (long long)g->reasons_any,
                   g->stats[GPUDIAG_M_CLOCK_REASONS].n > 0);
        kv_num(w, "throttle_share", g->throttle_share);
        kv_num(w, "throttle_counter_share", g->throttle_counter_share);
        kv_num(w, "clock_below_max_share", g->clock_below_max_share);
        kv_tri(w, "pcie_degraded", g->pcie_degraded);
        kv_str(w, "bottleneck", gpudiag_bottleneck_name(g->bottleneck));
        kv_str_opt(w, "pipeline", g->pipeline);
        write_spark(w, "spark_compute", g->spark);
        write_spark(w, "spark_mem_used_share", g->spark_mem);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    yajl_gen_map_close(w->g);
}

/* memory_savings: what memory savings cost in the trace (DEFINITIONS "Memory
 * savings and what they cost"); null for a monitoring log. */
static void write_memory_savings(jw *w, const gpudiag_report *r)
{
    key(w, "memory_savings");
    if (r->series) {
        yajl_gen_null(w->g);
        return;
    }
    const gpudiag_recompute_seen *rc = &r->recompute;
    yajl_gen_map_open(w->g);
    key(w, "recompute");
    yajl_gen_map_open(w->g);
    kv_bool(w, "detected", rc->detected);
    kv_int(w, "windows", (long long)rc->windows);
    kv_int(w, "kernels", (long long)rc->kernels);
    kv_us(w, "recompute_us", rc->recompute_us);
    kv_us(w, "kernel_us", rc->kernel_us);
    kv_us(w, "recompute_us_per_step", r->step_count ? rc->recompute_us / (double)r->step_count : NAN);
    kv_num(w, "share_of_kernel_time", rc->share_of_kernel_time);
    kv_num(w, "share_of_step", rc->share_of_step);
    kv_num(w, "hfu", rc->hfu);
    yajl_gen_map_close(w->g);
    const gpudiag_lora_seen *lo = &r->lora;
    key(w, "lora");
    yajl_gen_map_open(w->g);
    kv_bool(w, "detected", lo->ops > 0);
    kv_bool(w, "shapes_recorded", lo->shapes_recorded);
    kv_int(w, "ops", (long long)lo->ops);
    kv_num(w, "per_step", r->step_count ? (double)lo->ops / (double)r->step_count : NAN);
    kv_int_opt(w, "rank", lo->rank, lo->rank > 0);
    kv_us(w, "kernel_us", lo->ops ? lo->kernel_us : NAN);
    kv_us(w, "mean_kernel_us", lo->ops ? lo->kernel_us / (double)lo->ops : NAN);
    kv_num(w, "share_of_gemm_time", lo->ops ? lo->share_of_gemm_time : NAN);
    kv_num(w, "flops", lo->ops ? lo->flops : NAN);
    kv_num(w, "achieved_tflops", lo->kernel_us > 0 ? lo->flops / lo->kernel_us / 1e6 : NAN);
    yajl_gen_map_close(w->g);
    const gpudiag_accum_seen *ac = &r->accumulation;
    key(w, "accumulation");
    yajl_gen_map_open(w->g);
    kv_int(w, "backward_passes", (long long)ac->backward_passes);
    kv_int(w, "optimizer_steps", (long long)ac->optimizer_steps);
    kv_num(w, "micro_steps_per_optimizer_step", ac->micro_steps);
    kv_num(w, "kernels_per_micro_step",
           ac->backward_passes ? (double)ac->kernels / (double)ac->backward_passes : NAN);
    kv_us(w, "mean_kernel_us", ac->kernels ? ac->kernel_us / (double)ac->kernels : NAN);
    yajl_gen_map_close(w->g);
    const gpudiag_offload_seen *of = &r->offload;
    key(w, "offload");
    yajl_gen_map_open(w->g);
    kv_bool(w, "detected", of->detected);
    kv_str(w, "framework", of->framework);
    kv_num(w, "h2d_bytes_per_step", of->h2d_bytes_per_step);
    kv_num(w, "d2h_bytes_per_step", of->d2h_bytes_per_step);
    kv_us(w, "copy_us_per_step", of->copy_us_per_step);
    kv_us(w, "exposed_us_per_step", of->exposed_us_per_step);
    kv_num(w, "link_gb_per_s", r->pcie_link_gb_per_s);
    kv_us(w, "min_link_us_per_step", of->min_link_us_per_step);
    kv_num(w, "copy_over_link", of->copy_over_link);
    yajl_gen_map_close(w->g);
    yajl_gen_map_close(w->g);
}

static void write_report(jw *w, const gpudiag_report *r)
{
    yajl_gen_map_open(w->g);
    kv_str(w, "schema", GPUDIAG_REPORT_SCHEMA);
    key(w, "tool");
    yajl_gen_map_open(w->g);
    kv_str(w, "name", "gpudiag");
    kv_str(w, "version", GPUDIAG_VERSION);
    yajl_gen_map_close(w->g);
    write_inputs(w, r);
    write_devices(w, r);
    write_summary(w, r);
    write_steps(w, r);
    write_idle(w, r);
    write_timeline(w, r);
    write_kernels(w, r);
    key(w, "transfers");
    yajl_gen_map_open(w->g);
    for (int k = 0; k <= GPUDIAG_COPY_KIND_COUNT; k++) {
        const gpudiag_transfer *tr = k < GPUDIAG_COPY_KIND_COUNT ? &r->transfers[k] : &r->pageable;
        const gpudiag_transfer_rate *q = k < GPUDIAG_COPY_KIND_COUNT ? &r->transfer_rates[k] : &r->pageable_rate;
        key(w, k < GPUDIAG_COPY_KIND_COUNT ? gpudiag_copy_kind_name((gpudiag_copy_kind)k) : "pageable");
        yajl_gen_map_open(w->g);
        kv_int(w, "count", (long long)tr->count);
        kv_num(w, "bytes", tr->bytes);
        kv_us(w, "time_us", tr->time_us);
        kv_num(w, "bytes_per_step", r->step_count ? tr->bytes / (double)r->step_count : NAN);
        kv_num(w, "achieved_gb_per_s", q->gb_per_s);
        kv_num(w, "link_gb_per_s", q->link_gb_per_s);
        kv_num(w, "link_share", q->link_share);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_map_close(w->g);
    write_nsight(w, r);
    write_series(w, r);
    write_roofline(w, r);
    write_memory_savings(w, r);
    write_memory(w, r);
    write_findings(w, r->findings, r->finding_count);
    key(w, "verdict");
    yajl_gen_map_open(w->g);
    kv_str(w, "bottleneck", gpudiag_bottleneck_name(r->bottleneck));
    kv_str(w, "summary", r->verdict);
    kv_str(w, "finding", r->verdict_finding);
    kv_str(w, "why", r->verdict_why);
    yajl_gen_map_close(w->g);
    yajl_gen_map_close(w->g);
}

static gpudiag_status open_writer(jw *w, FILE *fp, int pretty, gpudiag_error *err)
{
    w->fp = fp;
    w->io_error = 0;
    w->oom = 0;
    w->top_kernels = (pretty & GPUDIAG_JSON_ALL_KERNELS) ? SIZE_MAX : JSON_TOP_KERNELS;
    static yajl_alloc_funcs afs = {gd_yajl_malloc, gd_yajl_realloc, gd_yajl_free, NULL};
    w->g = yajl_gen_alloc(&afs);
    if (!w->g)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
    yajl_gen_config(w->g, yajl_gen_beautify, (pretty & GPUDIAG_JSON_PRETTY) ? 1 : 0);
    yajl_gen_config(w->g, yajl_gen_indent_string, "  ");
    yajl_gen_config(w->g, yajl_gen_print_callback, print_cb, w);
    return GPUDIAG_OK;
}

static gpudiag_status close_writer(jw *w, gpudiag_error *err)
{
    yajl_gen_free(w->g);
    if (fputc('\n', w->fp) == EOF)
        w->io_error = 1;
    if (w->oom)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory");
    if (w->io_error || ferror(w->fp))
        return gd_set_error(err, GPUDIAG_ERR_IO, NULL, -1, "write error");
    return GPUDIAG_OK;
}

gpudiag_status gpudiag_report_write_json(const gpudiag_report *r, FILE *fp, int pretty, gpudiag_error *err)
{
    if (!r || !fp)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "NULL report or stream");
    jw w;
    gpudiag_status st = open_writer(&w, fp, pretty, err);
    if (st != GPUDIAG_OK)
        return st;
    write_report(&w, r);
    return close_writer(&w, err);
}

gpudiag_status gpudiag_report_json(const gpudiag_report *r, int pretty, char **out, size_t *len,
                                   gpudiag_error *err)
{
    if (out)
        *out = NULL;
    if (len)
        *len = 0;
    if (!r || !out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "NULL report or out");
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    if (!fp)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory for the JSON report");
    gpudiag_status st = gpudiag_report_write_json(r, fp, pretty, err);
    if (fclose(fp) != 0 && st == GPUDIAG_OK)
        st = gd_set_error(err, GPUDIAG_ERR_NOMEM, NULL, -1, "out of memory for the JSON report");
    if (st != GPUDIAG_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    if (len)
        *len = n;
    return GPUDIAG_OK;
}

void gpudiag_json_free(char **json)
{
    if (json) {
        free(*json);
        *json = NULL;
    }
}

/* ---- a report kept as JSON text (summaries), written again ---------------- */

/* Forwards the parser's events of one stored report into w's generator, so that
 * it comes out exactly as write_report wrote it (numbers as their text, the
 * indentation of w).  kernels.top keeps its first w->top_kernels entries: a
 * summary stores every kernel, --json lists 50. */
typedef struct fwd {
    jw *w;
    int depth;            /* open containers of the report */
    int key_kernels;      /* depth 1's current key is "kernels" */
    int key_top;          /* depth 2's current key is "top" */
    int top_depth;        /* depth inside kernels.top, 0 outside */
    size_t top_seen;      /* its entries begun */
    int skip_to;          /* > 0: drop events until depth returns to skip_to */
} fwd;

/* 1 when the value starting now is to be dropped (and, for a container,
 * everything in it: skip_to is set by the caller). */
static int fwd_drop(fwd *f)
{
    if (f->skip_to)
        return 1;
    if (f->top_depth && f->depth == f->top_depth && ++f->top_seen > f->w->top_kernels)
        return 1;
    return 0;
}

static int fwd_null(void *ctx)
{
    fwd *f = ctx;
    return fwd_drop(f) || yajl_gen_null(f->w->g) == yajl_gen_status_ok;
}

static int fwd_bool(void *ctx, int v)
{
    fwd *f = ctx;
    return fwd_drop(f) || yajl_gen_bool(f->w->g, v) == yajl_gen_status_ok;
}

static int fwd_number(void *ctx, const char *s, size_t len)
{
    fwd *f = ctx;
    return fwd_drop(f) || yajl_gen_number(f->w->g, s, len) == yajl_gen_status_ok;
}

static int fwd_string(void *ctx, const unsigned char *s, size_t len)
{
    fwd *f = ctx;
    return fwd_drop(f) || yajl_gen_string(f->w->g, s, len) == yajl_gen_status_ok;
}

static int fwd_open(fwd *f, int map)
{
    yajl_gen_status gs = yajl_gen_status_ok;
    if (fwd_drop(f)) {
        if (!f->skip_to)
            f->skip_to = f->depth;
    } else if (map) {
        gs = yajl_gen_map_open(f->w->g);
    } else {
        gs = yajl_gen_array_open(f->w->g);
        if (f->depth == 2 && f->key_kernels && f->key_top) {
            f->top_depth = 3;
            f->top_seen = 0;
        }
    }
    f->depth++;
    return gs == yajl_gen_status_ok;
}

static int fwd_close(fwd *f, int map)
{
    f->depth--;
    if (f->skip_to) {
        if (f->depth == f->skip_to)
            f->skip_to = 0;
        return 1;
    }
    if (f->top_depth && f->depth == f->top_depth - 1)
        f->top_depth = 0;
    return (map ? yajl_gen_map_close(f->w->g) : yajl_gen_array_close(f->w->g)) == yajl_gen_status_ok;
}

static int fwd_start_map(void *ctx) { return fwd_open(ctx, 1); }
static int fwd_end_map(void *ctx) { return fwd_close(ctx, 1); }
static int fwd_start_array(void *ctx) { return fwd_open(ctx, 0); }
static int fwd_end_array(void *ctx) { return fwd_close(ctx, 0); }

static int fwd_key(void *ctx, const unsigned char *s, size_t len)
{
    fwd *f = ctx;
    if (f->skip_to)
        return 1;
    if (f->depth == 1)
        f->key_kernels = len == 7 && memcmp(s, "kernels", 7) == 0;
    if (f->depth == 2)
        f->key_top = len == 3 && memcmp(s, "top", 3) == 0;
    return yajl_gen_string(f->w->g, s, len) == yajl_gen_status_ok;
}

static const yajl_callbacks FWD_CALLBACKS = {fwd_null,   fwd_bool,        NULL,          NULL,
                                             fwd_number, fwd_string,      fwd_start_map, fwd_key,
                                             fwd_end_map, fwd_start_array, fwd_end_array};

/* Write the stored report text[len] into w; -1 when it is not JSON. */
static int write_stored_report(jw *w, const char *text, size_t len)
{
    fwd f = {w, 0, 0, 0, 0, 0, 0};
    static yajl_alloc_funcs afs = {gd_yajl_malloc, gd_yajl_realloc, gd_yajl_free, NULL};
    yajl_handle h = yajl_alloc(&FWD_CALLBACKS, &afs, &f);
    if (!h)
        return -1;
    int ok = yajl_parse(h, (const unsigned char *)text, len) == yajl_status_ok && yajl_complete_parse(h) == yajl_status_ok;
    yajl_free(h);
    return ok && f.depth == 0 ? 0 : -1;
}

/* Write rank k's stored report (its text, or its span read again) into w. */
static gpudiag_status write_rank_report(jw *w, const gd_summary_rank *k, gpudiag_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int owned = 0;
    gpudiag_status st = gd_summary_rank_text(k, &text, &len, &owned, err);
    if (st == GPUDIAG_OK && write_stored_report(w, text, len) != 0)
        st = gd_set_error(err, GPUDIAG_ERR_FORMAT, k->src ? k->src : k->in.path, k->src ? (int64_t)k->off : -1,
                          "the stored report of this rank is not JSON");
    if (owned)
        free(text);
    return st;
}

/* A double exactly (17 significant digits read back to the same double); NaN
 * and infinities as null: the summary's numbers that the cross-rank analysis
 * reads again. */
static void num_exact(jw *w, double v)
{
    char b[40];
    snprintf(b, sizeof b, "%.17g", v);
    if (isfinite(v))
        raw_number(w, b);
    else
        yajl_gen_null(w->g);
}

static gpudiag_status write_summary_rank(jw *w, const gd_summary_rank *k, gpudiag_error *err)
{
    const gd_rank_input *in = &k->in;
    yajl_gen_map_open(w->g);
    kv_int_opt(w, "rank", in->rank, in->rank >= 0);
    kv_str(w, "rank_source", k->rank_source);
    kv_int_opt(w, "world_size", in->world_size, in->world_size >= 0);
    kv_str(w, "path", in->path);
    kv_str(w, "gpu", in->gpu && in->gpu[0] ? in->gpu : NULL);
    kv_int(w, "steps", (long long)in->steps);
    kv_str(w, "steps_window", k->steps_window);
    key(w, "step_time_us");
    num_exact(w, in->step_time_us);
    key(w, "first_step_start_us");
    num_exact(w, in->first_step_start_us);
    key(w, "gpu_utilization");
    num_exact(w, in->gpu_utilization);
    key(w, "comm_share");
    num_exact(w, in->comm_share);
    kv_str(w, "bottleneck", gpudiag_bottleneck_name(in->bottleneck));
    key(w, "collectives");
    yajl_gen_map_open(w->g);
    kv_int(w, "count", (long long)in->comm_count);
    key(w, "duration_us");
    yajl_gen_array_open(w->g);
    for (size_t j = 0; j < in->comm_count; j++)
        num_exact(w, in->comm_us[j]);
    yajl_gen_array_close(w->g);
    int both = k->comm_start_ns && k->comm_kind && k->nstart == in->comm_count && k->nkind == in->comm_count;
    key(w, "start_us");
    yajl_gen_array_open(w->g);
    for (size_t j = 0; both && j < in->comm_count; j++)
        num_ns_as_us(w, k->comm_start_ns[j]);
    yajl_gen_array_close(w->g);
    key(w, "kind");
    yajl_gen_array_open(w->g);
    for (size_t j = 0; both && j < in->comm_count; j++)
        str(w, gpudiag_comm_kind_name((gpudiag_comm_kind)k->comm_kind[j]));
    yajl_gen_array_close(w->g);
    /* bytes and exposed wait: both or neither (empty: a summary written before they were) */
    int more = k->comm_bytes && k->comm_exposed_us && k->nbytes == in->comm_count && k->nexposed == in->comm_count;
    key(w, "bytes");
    yajl_gen_array_open(w->g);
    for (size_t j = 0; more && j < in->comm_count; j++)
        num_exact(w, k->comm_bytes[j]);
    yajl_gen_array_close(w->g);
    key(w, "exposed_us");
    yajl_gen_array_open(w->g);
    for (size_t j = 0; more && j < in->comm_count; j++)
        num_exact(w, k->comm_exposed_us[j]);
    yajl_gen_array_close(w->g);
    yajl_gen_map_close(w->g);
    key(w, "report");
    gpudiag_status st = write_rank_report(w, k, err);
    yajl_gen_map_close(w->g);
    return st;
}

gpudiag_status gpudiag_summary_write_json(gpudiag_summary *s, FILE *fp, int flags, gpudiag_error *err)
{
    if (!s || !fp)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "NULL summary or stream");
    gd_summary_sort(s);
    jw w;
    gpudiag_status st = open_writer(&w, fp, flags | GPUDIAG_JSON_ALL_KERNELS, err);
    if (st != GPUDIAG_OK)
        return st;
    yajl_gen_map_open(w.g);
    kv_str(&w, "schema", GPUDIAG_SUMMARY_SCHEMA);
    key(&w, "tool");
    yajl_gen_map_open(w.g);
    kv_str(&w, "name", "gpudiag");
    kv_str(&w, "version", GPUDIAG_VERSION);
    yajl_gen_map_close(w.g);
    key(&w, "job");
    yajl_gen_map_open(w.g);
    kv_str(&w, "id", s->job);
    yajl_gen_map_close(w.g);
    key(&w, "ranks");
    yajl_gen_array_open(w.g);
    for (size_t i = 0; st == GPUDIAG_OK && i < s->count; i++)
        st = write_summary_rank(&w, &s->ranks[i], err);
    yajl_gen_array_close(w.g);
    yajl_gen_map_close(w.g);
    gpudiag_status cst = close_writer(&w, err);
    return st != GPUDIAG_OK ? st : cst;
}

/* The job view; reports[i] (a report) or else stored[i] (a summary's rank)
 * gives rank i's full report. */
static gpudiag_status write_cluster(jw *w, const gpudiag_cluster *c, const gpudiag_report *const *reports,
                                    const gd_summary_rank *stored, gpudiag_error *err)
{
    yajl_gen_map_open(w->g);
    kv_str(w, "schema", GPUDIAG_CLUSTER_SCHEMA);
    key(w, "tool");
    yajl_gen_map_open(w->g);
    kv_str(w, "name", "gpudiag");
    kv_str(w, "version", GPUDIAG_VERSION);
    yajl_gen_map_close(w->g);
    key(w, "ranks");
    yajl_gen_array_open(w->g);
    for (size_t i = 0; i < c->rank_count; i++) {
        const gpudiag_rank *k = &c->ranks[i];
        yajl_gen_map_open(w->g);
        kv_int(w, "rank", k->rank);
        kv_bool(w, "rank_inferred", k->rank_inferred);
        kv_str(w, "path", k->path);
        kv_int(w, "steps", (long long)k->steps);
        kv_us(w, "step_time_us", k->step_time_us);
        kv_num(w, "gpu_utilization", k->gpu_utilization);
        kv_num(w, "comm_share", k->comm_share);
        kv_int(w, "comm_kernels", (long long)k->comm_kernels);
        kv_us(w, "comm_time_us_per_step", k->comm_time_us_per_step);
        kv_us(w, "comm_wait_us_per_step", k->comm_wait_us_per_step);
        kv_str(w, "bottleneck", gpudiag_bottleneck_name(k->bottleneck));
        kv_us(w, "all_to_all_us_per_step", k->all_to_all_us_per_step);
        kv_num(w, "all_to_all_share", k->all_to_all_share);
        kv_us(w, "all_to_all_wait_us_per_step", k->all_to_all_wait_us_per_step);
        kv_us(w, "comm_exposed_us_per_step", k->comm_exposed_us_per_step);
        kv_us(w, "inherited_wait_us_per_step", k->inherited_wait_us_per_step);
        yajl_gen_map_close(w->g);
    }
    yajl_gen_array_close(w->g);
    key(w, "stragglers");
    yajl_gen_map_open(w->g);
    kv_int(w, "collectives", (long long)c->collectives);
    kv_bool(w, "collectives_mismatch", c->collectives_mismatch);
    kv_bool(w, "duplicate_ranks", c->duplicate_ranks);
    key(w, "mixed_job");
    yajl_gen_array_open(w->g);
    for (unsigned b = 1; b <= GPUDIAG_MIX_GPU; b <<= 1)
        if (c->mixed_job & b)
            str(w, gpudiag_mix_name(b));
    yajl_gen_array_close(w->g);
    kv_int_opt(w, "straggler", c->straggler, c->straggler >= 0);
    kv_int_opt(w, "world_size", c->world_size, c->world_size >= 0);
    kv_int_opt(w, "missing_ranks", c->missing_ranks, c->missing_ranks >= 0);
    kv_us(w, "wait_us_per_step", c->straggler_wait_us_per_step);
    kv_num(w, "wait_share_of_step", c->straggler_share);
    kv_us(w, "net_wait_us_per_step", c->net_wait_us_per_step);
    kv_us(w, "net_wait_noise_us_per_step", c->net_wait_noise_us_per_step);
    kv_us(w, "start_skew_us", c->start_skew_us);
    kv_us(w, "inherited_wait_us_per_step", c->inherited_wait_us_per_step);
    kv_str(w, "verdict", c->verdict);
    yajl_gen_map_close(w->g);
    key(w, "all_to_all");
    yajl_gen_map_open(w->g);
    kv_int(w, "collectives", (long long)c->all_to_all_collectives);
    kv_us(w, "wait_us_per_step", c->all_to_all_wait_us_per_step);
    kv_num(w, "wait_share_of_step", c->all_to_all_wait_share);
    kv_num(w, "imbalance_max_over_mean", c->all_to_all_imbalance);
    kv_int_opt(w, "loaded_rank", c->all_to_all_loaded_rank, c->all_to_all_loaded_rank >= 0);
    yajl_gen_map_close(w->g);
    write_findings(w, c->findings, c->finding_count);
    key(w, "reports");
    yajl_gen_array_open(w->g);
    gpudiag_status st = GPUDIAG_OK;
    for (size_t i = 0; i < c->rank_count && st == GPUDIAG_OK; i++) {
        if (reports)
            write_report(w, reports[i]);
        else if (stored)
            st = write_rank_report(w, &stored[i], err);
    }
    yajl_gen_array_close(w->g);
    yajl_gen_map_close(w->g);
    return st;
}

gpudiag_status gpudiag_cluster_write_json(const gpudiag_cluster *c, const gpudiag_report *const *reports,
                                          FILE *fp, int pretty, gpudiag_error *err)
{
    if (!c || !fp)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "NULL cluster or stream");
    jw w;
    gpudiag_status st = open_writer(&w, fp, pretty, err);
    if (st != GPUDIAG_OK)
        return st;
    write_cluster(&w, c, reports, NULL, err);
    return close_writer(&w, err);
}

gpudiag_status gpudiag_summary_write_cluster_json(const gpudiag_summary *s, const gpudiag_cluster *c, FILE *fp,
                                                  int flags, gpudiag_error *err)
{
    if (!s || !c || !fp || c->rank_count != s->count)
        return gd_set_error(err, GPUDIAG_ERR_ARG, NULL, -1, "NULL or unmatched summary, cluster or stream");
    jw w;
    gpudiag_status st = open_writer(&w, fp, flags, err);
    if (st != GPUDIAG_OK)
        return st;
    st = write_cluster(&w, c, NULL, s->ranks, err);
    gpudiag_status cst = close_writer(&w, err);
    return st != GPUDIAG_OK ? st : cst;
}
