/*
 * rules_input.c — the notes about the input (input_* findings, cpu_only_trace,
 * no_step_markers, single_step; docs/FINDINGS.md "Input"): what the trace
 * lacks or holds that the numbers cannot be trusted without saying so.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/rules_internal.h"
#include "gpudiag/memory.h"
#include "gpudiag/specs.h"

/* Device-idle time that may hold unrecorded graph replays ÷ devices ÷ the steps
 * span (the unit of the idle shares); 0 when none. */
double gd_graph_hidden_share(const gpudiag_report *r)
{
    size_t nd = r->timeline.device_count;
    if (!nd || !r->step_count || !(r->idle_step_us > 0) || !(r->graph_hidden_idle_us > 0))
        return 0;
    return r->graph_hidden_idle_us / (double)nd / ((double)r->step_count * r->idle_step_us);
}

/* The unrecorded replays could fill most of the idle time (FINDINGS "Verdict"). */
int gd_graph_hides_idle(const gpudiag_report *r)
{
    return r->graph_launches_unrecorded > 0 &&
           (!r->has_gpu || (r->idle_gap_us > 0 && 2.0 * r->graph_hidden_idle_us >= r->idle_gap_us));
}

/* The steps span is mostly stream capture (DEFINITIONS "Graph replays", capture). */
int gd_capture_dominates(const gpudiag_report *r)
{
    double span = (double)r->step_count * r->idle_step_us;
    return r->graph_captures > 0 && span > 0 && 2.0 * r->graph_capture_us >= span;
}

/* Kernel launch calls with GPU ops in the trace but too few kernels joined to them: 2 when the
 * trace has no kernel at all or, of at least GD_KERNELS_MISSING_MIN_CALLS calls, fewer than
 * GD_KERNELS_JOINED_HIGH have one; 1 when fewer than GD_KERNELS_JOINED_MIN have one (every kernel
 * joined to no call counted as a possible match); else 0 (DEFINITIONS "Time and events", kernel
 * launch calls without kernels). */
int gd_kernels_missing(const gpudiag_report *r)
{
    if (!r->has_gpu || !r->kernel_launch_calls)
        return 0;
    if (!r->kernel_count)
        return 2;
    if (r->kernel_launch_calls < GD_KERNELS_MISSING_MIN_CALLS)
        return 0;
    double seen = (double)(r->kernel_launches_joined + r->kernels_unlinked);
    double n = (double)r->kernel_launch_calls;
    return seen < GD_KERNELS_JOINED_HIGH * n ? 2 : seen < GD_KERNELS_JOINED_MIN * n ? 1 : 0;
}

/* Kernels start before their own launch call (DEFINITIONS "Kernels", kernels before their
 * launch): at least GD_CLOCK_SKEW_MIN_KERNELS of them and GD_CLOCK_SKEW_MIN_SHARE of the linked
 * kernels (by more than 50 µs), or as many and GD_CLOCK_SKEW_MOST of them by any amount (a
 * systematic offset under 50 µs), so the GPU and host clocks of the trace disagree.  1 or 0. */
static int skew_far(const gpudiag_report *r)
{
    return r->linked_kernels && r->kernels_before_launch >= GD_CLOCK_SKEW_MIN_KERNELS &&
           (double)r->kernels_before_launch >= GD_CLOCK_SKEW_MIN_SHARE * (double)r->linked_kernels;
}

int gd_clock_skewed(const gpudiag_report *r)
{
    return skew_far(r) || (r->linked_kernels && r->kernels_before_launch_start >= GD_CLOCK_SKEW_MIN_KERNELS &&
                           (double)r->kernels_before_launch_start >= GD_CLOCK_SKEW_MOST * (double)r->linked_kernels);
}

uint64_t gd_clock_skew_kernels(const gpudiag_report *r, double *at_least_us)
{
    int far = skew_far(r);
    *at_least_us = far ? r->launch_skew_max_us : r->launch_skew_start_max_us;
    return far ? r->kernels_before_launch : r->kernels_before_launch_start;
}

/* The words for the first step cut while its GPU events were written (DEFINITIONS "Time and
 * events"), malloc'd; NULL on allocation failure. */
char *gd_steps_cut_words(const gpudiag_report *r)
{
    char num[32] = "";
    if (r->steps_cut_number >= 0)
        snprintf(num, sizeof num, " %lld", (long long)r->steps_cut_number);
    if (r->steps_cut_why == 1) {
        char ms[32];
        gd_format_us(ms, sizeof ms, r->steps_cut_missing_us, "us");
        return gd_format("step%s holds %llu GPU op%s, and the recorded launch calls end %s before the step does: the "
                         "trace was cut while its GPU events were written",
                         num, (unsigned long long)r->steps_cut_ops, r->steps_cut_ops == 1 ? "" : "s", ms);
    }
    return gd_format("step%s holds %llu of %llu launched GPU ops: the trace was cut while its GPU events were written",
                     num, (unsigned long long)r->steps_cut_joined, (unsigned long long)r->steps_cut_launches);
}

/* The file itself is damaged: cut off, data after the JSON document or after the
 * last gzip member, malformed events skipped, events without duration or
 * timestamp left out. */
static void input_damage(fbuilder *b, const gpudiag_trace *t)
{
    gpudiag_report *r = b->r;
    if (r->input.truncated) {
        gpudiag_finding *f = rf_add(b, GD_F_input_truncated, GPUDIAG_SEV_MEDIUM, NAN);
        gd_fb_ev(f, "truncated_at_bytes", (double)r->input.truncated_at);
        gd_fb_ev(f, "events_read", (double)r->input.events);
        char *cut = NULL;
        if (r->steps_cut_gpu) {
            /* DEFINITIONS "Time and events", steps cut while their GPU events were written */
            gd_fb_ev(f, "steps_cut_gpu", (double)r->steps_cut_gpu);
            char *w = gd_steps_cut_words(r);
            cut = w ? gd_format("; %s: %d step%s not analysed", w, r->steps_cut_gpu, r->steps_cut_gpu == 1 ? "" : "s")
                    : NULL;
            free(w);
            if (!cut)
                b->oom = 1;
        }
        gd_fb_text(b, f,
             gd_format("Trace is cut off at byte %lld (%s); analysed the %llu complete events before it%s",
                       (long long)r->input.truncated_at, t->truncation_reason[0] ? t->truncation_reason : "unexpected end",
                       (unsigned long long)r->input.events, cut ? cut : ""),
             gd_format("The profiler did not finish writing this file (Kineto closes the JSON only in "
                       "finalizeTrace, so a killed or crashed process leaves it open). The last step may be "
                       "incomplete and was trimmed if it launched under 80%% of the previous step's GPU work, or if the "
                       "file was cut while its launch calls and GPU ops were written. "
                       "Stop the profiler cleanly (prof.stop() / leaving the `with` block) before the process "
                       "exits, and check free disk space."));
        free(cut);
    }
    if (r->input.trailing_at > 0) {
        gpudiag_finding *f = rf_add(b, GD_F_input_trailing_data, GPUDIAG_SEV_MEDIUM, NAN);
        gd_fb_ev(f, "trailing_at_bytes", (double)r->input.trailing_at);
        gd_fb_text(b, f,
             gd_format("Data follows the trace's JSON document from byte %lld; only the document before it was "
                       "analysed",
                       (long long)r->input.trailing_at),
             gd_format("The file holds more than one JSON document (traces concatenated, or something appended "
                       "after the trace). Split it and analyse each trace on its own (a directory of them for "
                       "several ranks)."));
    }
    if (r->input.gz_trailing_bytes) {
        /* DEFINITIONS "Time and events", bytes after the last gzip member */
        gpudiag_finding *f = rf_add(b, GD_F_input_gzip_trailing_data, GPUDIAG_SEV_LOW, NAN);
        gd_fb_gzip_trailing(b, f, "trace");
    }
    if (r->input.skipped_malformed) {
        gpudiag_finding *f = rf_add(b, GD_F_input_malformed, GPUDIAG_SEV_LOW, NAN);
        gd_fb_ev(f, "skipped_events", (double)r->input.skipped_malformed);
        gd_fb_ev(f, "first_error_at_bytes", (double)t->first_error_at);
        gd_fb_text(b, f,
             gd_format("%llu malformed event%s skipped; the first at byte %lld: %s",
                       (unsigned long long)r->input.skipped_malformed, gd_plural(r->input.skipped_malformed),
                       (long long)t->first_error_at, t->first_error),
             gd_format("The JSON is invalid around those events (old Kineto versions wrote unescaped quotes "
                       "and backslashes from with_stack/file names, or bare N/A). Each broken event was "
                       "skipped and reading resumed at the next one; numbers are computed without them. "
                       "Upgrade PyTorch, or re-export with with_stack=False."));
    }
    if (r->input.skipped_no_dur || r->input.skipped_zero_ts || r->input.skipped_bad_value) {
        gpudiag_finding *f = rf_add(b, GD_F_input_incomplete_events, GPUDIAG_SEV_INFO, NAN);
        gd_fb_ev(f, "events_without_duration", (double)r->input.skipped_no_dur);
        gd_fb_ev(f, "gpu_events_with_zero_ts", (double)r->input.skipped_zero_ts);
        gd_fb_ev(f, "gpu_events_with_bad_device", (double)gd_gpu_events_bad_device(r));
        uint64_t kb = r->input.kernels_bad_value, dev_bad = gd_gpu_events_bad_device(r);
        if (kb)
            gd_fb_ev(f, "kernels_with_bad_value", (double)kb);
        gd_fb_text(b, f,
             kb ? gd_format("%llu event%s without a valid duration, %llu GPU event%s without a timestamp and %llu "
                            "with an impossible device index were left out; %llu kernel%s kept, an "
                            "impossible blocks per SM or occupancy left out",
                            (unsigned long long)r->input.skipped_no_dur, gd_plural(r->input.skipped_no_dur),
                            (unsigned long long)r->input.skipped_zero_ts, gd_plural(r->input.skipped_zero_ts),
                            (unsigned long long)dev_bad, (unsigned long long)kb, gd_plural(kb))
                : gd_format("%llu event%s without a valid duration, %llu GPU event%s without a timestamp and %llu "
                            "with an impossible device index were left out",
                            (unsigned long long)r->input.skipped_no_dur, gd_plural(r->input.skipped_no_dur),
                            (unsigned long long)r->input.skipped_zero_ts, gd_plural(r->input.skipped_zero_ts),
                            (unsigned long long)dev_bad),
             gd_format("`dur` -1 marks CPU ops still running when collection stopped; `ts` 0 marks GPU "
                       "activity CUPTI could not timestamp. Both are normal in small numbers; many of them "
                       "mean the profiling window cut through the work or the CUPTI buffer overflowed "
                       "(raise the activity buffer size or profile fewer steps)."));
    }
}

/* An Nsight Systems export made without node tracing: whole-graph rows. */
static void input_nsys_graphs(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (r->input.nsys.present && r->input.nsys.graph_execs) {
        /* DEFINITIONS "Nsight Systems exports", graph rows (GindaChen/nsys-ai#236) */
        const gpudiag_nsys_info *n = &r->input.nsys;
        gpudiag_finding *f = rf_add(b, GD_F_input_graph_no_node_trace, GPUDIAG_SEV_MEDIUM, NAN);
        gd_fb_ev(f, "graph_execs", (double)n->graph_execs);
        gd_fb_ev(f, "graph_exec_time_us", n->graph_exec_time_us);
        gd_fb_text(b, f,
             gd_format("%llu CUDA graph execution%s (%.1f us of GPU time) %s recorded whole, without %s "
                       "kernels: the kernel numbers leave %s out",
                       (unsigned long long)n->graph_execs, gd_plural(n->graph_execs), n->graph_exec_time_us,
                       n->graph_execs == 1 ? "was" : "were", n->graph_execs == 1 ? "its" : "their",
                       n->graph_execs == 1 ? "it" : "them"),
             gd_format("This export was made without --cuda-graph-trace=node, so Nsight Systems recorded each graph "
                       "launch as one block of GPU time. It counts here as busy GPU time (utilization, idle gaps, "
                       "the step breakdown), but the kernel table, Tensor Core share, kernel classes and launch "
                       "statistics cover only the kernels launched outside graphs. For kernel detail, profile "
                       "again with nsys profile --cuda-graph-trace=node."));
    }
}

/* Events far from the rest of the timeline, or durations reaching past it. */
static void input_time_outliers(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (r->input.time_outliers || r->input.duration_outliers) {
        /* DEFINITIONS "Sanitising the timeline" rules 2 and 2b */
        const gpudiag_input_info *in = &r->input;
        gpudiag_finding *f = rf_add(b, GD_F_input_time_outliers, GPUDIAG_SEV_MEDIUM, NAN);
        gd_fb_ev(f, "events", (double)in->time_outliers);
        if (in->time_outliers && in->time_outlier_first_at >= 0)
            gd_fb_ev(f, "first_at_bytes", (double)in->time_outlier_first_at);
        if (in->time_outliers)
            gd_fb_ev(f, "gap_s", in->time_outlier_gap_us / 1e6);
        if (in->duration_outliers) {
            gd_fb_ev(f, "durations_cut", (double)in->duration_outliers);
            gd_fb_ev(f, "durations_removed_s", in->duration_outlier_removed_us / 1e6);
        }
        char where[64] = "", durs[160] = "", cut[32], gap[32];
        /* at least 1 s by definition: whole seconds read better than "1000000.00 s" */
        gd_format_sig3(cut, sizeof cut, in->duration_outlier_removed_us / 1e6);
        gd_format_sig3(gap, sizeof gap, in->time_outlier_gap_us / 1e6);
        if (in->time_outliers && in->time_outlier_first_at >= 0)
            snprintf(where, sizeof where, "; the first at byte %lld", (long long)in->time_outlier_first_at);
        if (in->duration_outliers)
            snprintf(durs, sizeof durs, "%s%llu GPU op%s whose duration reached %s s past everything else %s "
                     "cut at the rest's last end",
                     in->time_outliers ? "; " : "", (unsigned long long)in->duration_outliers,
                     gd_plural(in->duration_outliers), cut, in->duration_outliers == 1 ? "was" : "were");
        char outl[160] = "";
        if (in->time_outliers)
            snprintf(outl, sizeof outl, "%llu event%s %s %s s away from the rest of the timeline and %s left out",
                     (unsigned long long)in->time_outliers, gd_plural(in->time_outliers),
                     in->time_outliers == 1 ? "lies" : "lie", gap, in->time_outliers == 1 ? "was" : "were");
        gd_fb_text(b, f,
             gd_format("%s%s%s", outl, where, durs),
             gd_format("Those times lie more than 10 times the span of all other events (and at least 1 s) away "
                       "from them: a stray timestamp, a clock jump or a corrupt duration (ROCm late completion "
                       "timestamps), not work of this capture. Every number here is computed without that time, so "
                       "that one bad event does not stretch the steps, the idle time or the utilization. If the "
                       "events are real, the capture holds two separate runs: profile them separately."));
    }
}

/* GPU ops clipped at the start of the next op on their stream. */
static void input_overrun(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (r->input.overrun_ops) {
        /* DEFINITIONS "Sanitising the timeline" rule 1 */
        double kt = r->kernel_time_us > 0 ? r->kernel_time_us : 0;
        int big = r->input.overrun_removed_us >= 0.01 * (kt + r->input.overrun_removed_us);
        gpudiag_finding *f = rf_add(b, GD_F_input_ops_overrun, big ? GPUDIAG_SEV_MEDIUM : GPUDIAG_SEV_LOW, NAN);
        gd_fb_ev(f, "clipped_ops", (double)r->input.overrun_ops);
        gd_fb_ev(f, "removed_us", r->input.overrun_removed_us);
        gd_fb_text(b, f,
             gd_format("%llu GPU op%s ran past the start of the next op on %s stream; %s clipped there "
                       "(%.1f us removed)",
                       (unsigned long long)r->input.overrun_ops, gd_plural(r->input.overrun_ops),
                       r->input.overrun_ops == 1 ? "its" : "their", r->input.overrun_ops == 1 ? "it was" : "each was",
                       r->input.overrun_removed_us),
             gd_format("Work on one stream runs in order, so an op cannot end after the next one on its stream "
                       "starts: those recorded ends are wrong (ROCm/rocprof writes late completion timestamps "
                       "after a long stall; CUPTI rounding gives a few us). They were cut at the next op's start, "
                       "as Perfetto and chrome://tracing draw them, and every number here uses the clipped "
                       "durations. If the removed time is large, the per-kernel times of that capture are not "
                       "reliable: record it again. (Kernels using programmatic dependent launch may truly "
                       "overlap their successor; for them the clipped time is a lower bound.)"));
    }
}

/* Device events of another accelerator, left out. */
static void input_unanalysed(fbuilder *b, const gpudiag_trace *t)
{
    gpudiag_report *r = b->r;
    if (r->input.unanalysed_device_events > 0) {
        /* DEFINITIONS "Time and events", devices not analysed: say what was left out, never "no GPU" */
        const gpudiag_input_info *in = &r->input;
        char cats[400] = "";
        size_t off = 0;
        for (size_t i = 0; i < in->unanalysed_device_count && off < sizeof cats; i++) {
            int n = snprintf(cats + off, sizeof cats - off, "%s%s %llu", i ? ", " : "", in->unanalysed_device[i].category,
                             (unsigned long long)in->unanalysed_device[i].events);
            if (n < 0)
                break;
            off += (size_t)n;
        }
        gpudiag_finding *f =
            rf_add(b, GD_F_input_unanalysed_device_events, r->has_gpu ? GPUDIAG_SEV_LOW : GPUDIAG_SEV_MEDIUM, NAN);
        gd_fb_ev(f, "device_events_not_analysed", (double)in->unanalysed_device_events);
        gd_fb_ev(f, "categories", (double)in->unanalysed_device_count);
        gd_fb_ev(f, "gpu_ops", (double)t->gpu_ops.len);
        gd_fb_text(b, f,
             gd_format("%llu device event%s of a kind gpudiag does not analyse (%s): %s",
                       (unsigned long long)in->unanalysed_device_events, gd_plural(in->unanalysed_device_events), cats,
                       r->has_gpu ? "the GPU numbers cover only the CUDA/ROCm kernels, copies and memsets"
                                  : "the device side of this trace is not diagnosed; its busy and idle time are "
                                    "unknown, not zero"),
             gd_format("gpudiag reads NVIDIA and AMD GPU activity (kernels, copies, memsets). These events come "
                       "from another accelerator's profiler backend (MTIA writes `mtia_ccp_events`) and were left "
                       "out. The host-side numbers (steps, CPU ops, runtime calls) still hold; for the device "
                       "side use the accelerator vendor's analysis tools."));
    }
}

/* CUPTI range-profiler events: counters, not timings. */
static void input_profiler_ranges(fbuilder *b, const gpudiag_trace *t)
{
    gpudiag_report *r = b->r;
    if (r->input.profiler_ranges > 0) {
        /* DEFINITIONS "Time and events", CUPTI range-profiler events: counters, not timings */
        gpudiag_finding *f =
            rf_add(b, GD_F_input_profiler_ranges, r->has_gpu ? GPUDIAG_SEV_LOW : GPUDIAG_SEV_MEDIUM, NAN);
        gd_fb_ev(f, "profiler_ranges", (double)r->input.profiler_ranges);
        gd_fb_ev(f, "gpu_ops", (double)t->gpu_ops.len);
        gd_fb_text(b, f,
             gd_format("%llu CUPTI range-profiler event%s (cuda_profiler_range, one per kernel) carr%s counters, "
                       "not timings: Kineto spreads them evenly over the profiling span, so they are not read as "
                       "kernels%s",
                       (unsigned long long)r->input.profiler_ranges, r->input.profiler_ranges == 1 ? "" : "s",
                       r->input.profiler_ranges == 1 ? "ies" : "y",
                       r->has_gpu ? "" : "; with no other GPU activity recorded, the GPU's busy and idle time are "
                                         "unknown, not zero"),
             gd_format("This trace was recorded with the profiler's CUPTI range-profiler mode (experimental_config "
                       "profiler_metrics), which reads counters per kernel (serialising the kernels) and records no "
                       "kernel times. Profile again without profiler_metrics (CUDA activities on) to see where the GPU waits; "
                       "read the counters with Nsight Compute (gpudiag analyze --ncu) for the roofline."));
    }
}

/* The GPU architecture inferred from kernel names (said once). */
static void input_gpu_inferred(fbuilder *b)
{
    gpudiag_report *r = b->r;
    for (size_t i = 0; i < r->device_count; i++) {
        /* DEFINITIONS "GPU metrics", architecture inferred from kernel names: say so, once */
        const gpudiag_device *d = &r->devices[i];
        if (!d->arch_inferred)
            continue;
        size_t ninf = 0;
        for (size_t k = 0; k < r->device_count; k++)
            ninf += r->devices[k].arch_inferred != 0;
        const char *fam = gpudiag_arch_name(d->compute_major, d->compute_minor);
        gpudiag_finding *f = rf_add(b, GD_F_input_gpu_inferred, GPUDIAG_SEV_INFO, NAN);
        gd_fb_ev(f, "device", (double)d->id);
        gd_fb_ev(f, "compute_capability", (double)d->compute_major + (double)d->compute_minor / 10.0);
        gd_fb_ev(f, "tagged_kernels", (double)d->arch_tagged_kernels);
        gd_fb_ev(f, "kernels", (double)d->kernel_count);
        gd_fb_ev(f, "devices_inferred", (double)ninf);
        gd_fb_text(b, f,
             gd_format("The trace does not describe its GPU%s (no deviceProperties): GPU %d taken as NVIDIA %s "
                       "(compute capability %d.%d) or later, from the architecture tags in the names of %llu of its "
                       "%llu kernels%s",
                       r->device_count == 1 ? "" : "s", d->id, fam ? fam : "?", d->compute_major, d->compute_minor,
                       (unsigned long long)d->arch_tagged_kernels, (unsigned long long)d->kernel_count,
                       ninf > 1 ? " (the other devices likewise)" : ""),
             gd_format("PyTorch before 1.10 wrote no deviceProperties. The Tensor Core findings use the inferred "
                       "architecture (a lower bound: libraries run older-named kernels on newer GPUs), but the GPU "
                       "model, SM count and memory are unknown, so there is no GPU table row, peak or ridge point. "
                       "Pass --gpu NAME to name the GPU, or profile with PyTorch 1.10 or later."));
        break;
    }
}

/* Dense python_function events: the Python tracer (with_stack) inflates host
 * time (DEFINITIONS "Time and events", Python tracer on).  Medium when a host
 * finding may follow (gd_rule_host_overhead adds its caveat). */
static void input_python_tracer(fbuilder *b, const gpudiag_trace *t)
{
    gpudiag_report *r = b->r;
    if (!r->step_count || !r->steps)
        return;
    int64_t s = (int64_t)(r->steps[0].start_us * 1000.0), e = (int64_t)(r->steps[r->step_count - 1].end_us * 1000.0);
    if (e <= s)
        return;
    uint64_t n = 0;
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        n += c->cat == GD_CPU_PYFUNC && c->ts_ns >= s && c->ts_ns < e;
    }
    double ms = (double)(e - s) / 1e6, per_ms = (double)n / ms;
    if (!(per_ms >= GD_PYTRACER_DENSE_PER_MS))
        return;
    gpudiag_finding *f = rf_add(b, GD_F_input_python_tracer, GPUDIAG_SEV_LOW, NAN);
    gd_fb_ev(f, "python_function_events", (double)n);
    gd_fb_ev(f, "events_per_ms", per_ms);
    gd_fb_ev(f, "window_ms", ms);
    gd_fb_text(b, f,
         gd_format("The Python tracer was on (with_stack=True): %llu python_function events in %.1f ms of %s, "
                   "%.0f per ms, so host time is inflated by the profiler itself",
                   (unsigned long long)n, ms, r->steps_from_profiler ? "steps" : "the window", per_ms),
         gd_format("Recording every Python call runs on the host thread being measured (PyTorch documents that "
                   "stack tracing adds overhead), so CPU Exec and launch times, and the host findings built on "
                   "them, read higher than without the profiler. Profile again with with_stack=False (and no "
                   "Python tracer in experimental_config) before acting on host findings."));
}

/* Device-idle gaps of cause profiler: the profiler's own overhead (Kineto
 * `overhead` events, CUPTI activity buffer requests) held the host
 * (DEFINITIONS "Idle gaps and their causes", rule 0c). */
static void input_profiler_overhead(fbuilder *b)
{
    gpudiag_report *r = b->r;
    double us = r->idle_cause_us[GPUDIAG_IDLE_PROFILER];
    size_t nd = r->timeline.device_count;
    if (!r->has_gpu || !(us > 0) || !nd || !r->step_count || !(r->avg_step_us > 0))
        return;
    double share = us / (double)nd / ((double)r->step_count * r->avg_step_us);
    if (share > 1)
        share = 1;
    gpudiag_finding *f = rf_add(b, GD_F_input_profiler_overhead, share >= 0.05 ? GPUDIAG_SEV_LOW : GPUDIAG_SEV_INFO, NAN);
    gd_fb_ev(f, "profiler_idle_us", us);
    gd_fb_ev(f, "profiler_idle_share", share);
    gd_fb_ev(f, "profiler_host_us", r->profiler_host_us);
    char ms[32];
    gd_format_us(ms, sizeof ms, us / (double)nd, "us");
    gd_fb_text(b, f,
         gd_format("The profiler's own overhead (Kineto `overhead` events: CUPTI activity buffer requests and "
                   "flushes) covers most of %s of device-idle time%s (%.1f%% of the step): idle cause profiler, "
                   "not counted against the host",
                   ms, nd > 1 ? " per device" : "", 100.0 * share),
         gd_format("CUPTI allocates and flushes its activity buffers on the profiled thread; the GPU idles while "
                   "it does, with or without slow host code. This time is not the program's: it is left out of "
                   "host_overhead / host_launch_bound. Profile more steps (a torch.profiler schedule with "
                   "wait and warmup) so the profiler's one-off buffer requests weigh less in the window."));
}

/* Launch calls but no GPU op: the profiler lost the device records (DEFINITIONS
 * "Time and events", launch calls without GPU records; kineto#996, pytorch#192021). */
static void input_gpu_records_dropped(fbuilder *b, const gpudiag_trace *t)
{
    gpudiag_report *r = b->r;
    gpudiag_finding *f = rf_add(b, GD_F_input_gpu_records_dropped, GPUDIAG_SEV_HIGH, NAN);
    double rt_us = r->step_count ? r->avg_role_us[GPUDIAG_ROLE_RUNTIME] : NAN;
    gd_fb_ev(f, "launch_calls", (double)r->gpu_launch_calls);
    gd_fb_ev(f, "runtime_us_per_step", rt_us);
    gd_fb_ev(f, "cpu_ops", (double)t->cpu_ops.len);
    char per_step[96] = "";
    if (rt_us > 0)
        snprintf(per_step, sizeof per_step, " (%.1f ms of runtime calls per step)", rt_us / 1000.0);
    gd_fb_text(b, f,
         gd_format("No GPU records, yet %llu kernel/copy/memset launch call%s%s: the GPU ran work the profiler did "
                   "not record, so whether it is busy or waiting cannot be told",
                   (unsigned long long)r->gpu_launch_calls, r->gpu_launch_calls == 1 ? "" : "s", per_step),
         gd_format("The device activity was lost, not absent: CUDA activities not enabled, the CUPTI activity "
                   "buffer overflowed, or a known Kineto bug dropped the records (pytorch/kineto#996). Profile "
                   "again with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], a shorter window "
                   "(schedule(wait=1, warmup=1, active=2)), and a newer PyTorch if the kernels are still missing."));
}

/* GPU ops but the kernels of the launch calls missing (DEFINITIONS "Time and events", kernel
 * launch calls without kernels): high with no kernel at all (the verdict is unknown on it),
 * medium with far fewer kernels than launch calls. */
static void input_kernels_missing(fbuilder *b, const gpudiag_trace *t)
{
    gpudiag_report *r = b->r;
    int k = gd_kernels_missing(r);
    if (!k)
        return;
    gpudiag_finding *f = rf_add(b, GD_F_input_kernels_missing, k == 2 ? GPUDIAG_SEV_HIGH : GPUDIAG_SEV_MEDIUM, NAN);
    uint64_t n = r->kernel_launch_calls, j = r->kernel_launches_joined;
    gd_fb_ev(f, "kernel_launch_calls", (double)n);
    gd_fb_ev(f, "launches_with_kernel", (double)j);
    gd_fb_ev(f, "kernels", (double)r->kernel_count);
    gd_fb_ev(f, "kernels_unlinked", (double)r->kernels_unlinked);
    gd_fb_ev(f, "gpu_ops", (double)t->gpu_ops.len);
    const char *where = r->steps_from_profiler ? "in the steps" : "in the capture";
    char *title;
    if (!r->kernel_count)
        title = gd_format("%llu kernel launch call%s %s but no kernel recorded (only copies/memsets): the kernel "
                          "records are missing, so GPU time, idle time and the causes built on them describe the "
                          "copies alone and cannot be judged",
                          (unsigned long long)n, n == 1 ? "" : "s", where);
    else
        title = gd_format("Only %llu of %llu kernel launch calls %s have a kernel recorded (%llu kernel%s joined to "
                          "no call): %s",
                          (unsigned long long)j, (unsigned long long)n, where, (unsigned long long)r->kernels_unlinked,
                          r->kernels_unlinked == 1 ? "" : "s",
                          k == 2 ? "most kernel records are missing, so idle time is mostly the missing kernels' "
                                   "time and the causes built on it cannot be judged"
                                 : "the kernel records are incomplete, so GPU time is under-counted and idle time "
                                   "over-counted");
    const char *how =
        r->input.truncated
            ? "The trace is cut off: the missing kernels may be in the part that was not written. Get the complete "
              "file (let the profiler finish writing) before judging the GPU side."
        : r->input.nsys.present
            ? "The profiler lost the kernel records, or they were left out of the export: capture CUDA with "
              "`nsys profile --trace=cuda` (add nvtx for steps), export every table (`nsys export --type sqlite`, "
              "no table filter) and keep CUPTI_ACTIVITY_KIND_KERNEL; if it is still short, profile a shorter "
              "range (--capture-range=cudaProfilerApi, --duration) so CUPTI's activity buffers do not overflow."
            : "The profiler lost the kernel records: record the device activity with "
              "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile a shorter window "
              "(schedule(wait=1, warmup=1, active=2)) or give CUPTI a larger activity buffer "
              "(ACTIVITIES_MAX_GPU_BUFFER_SIZE_MB in a KINETO_CONFIG file), and use a newer PyTorch if the "
              "kernels are still missing.";
    gd_fb_text(b, f, title, gd_format("%s", how));
}

/* GPU and host clocks disagree: kernels start before their launch call (DEFINITIONS "Kernels",
 * kernels before their launch; pytorch/kineto#1082, pytorch/pytorch#192021). */
static void input_gpu_clock_skew(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!gd_clock_skewed(r))
        return;
    gpudiag_finding *f = rf_add(b, GD_F_input_gpu_clock_skew, GPUDIAG_SEV_MEDIUM, NAN);
    uint64_t n = r->kernels_before_launch;
    double share = (double)n / (double)r->linked_kernels;
    gd_fb_ev(f, "kernels_before_launch", (double)n);
    gd_fb_ev(f, "share", share);
    gd_fb_ev(f, "median_offset_us", r->launch_skew_median_us);
    gd_fb_ev(f, "max_offset_us", r->launch_skew_max_us);
    gd_fb_ev(f, "first_tenth_offset_us", r->launch_skew_first_us);
    gd_fb_ev(f, "last_tenth_offset_us", r->launch_skew_last_us);
    gd_fb_ev(f, "kernels_before_launch_start", (double)r->kernels_before_launch_start);
    char off[32], mx[32], a[32], z[32], drift[160] = "", what[200];
    double least;
    uint64_t nk = gd_clock_skew_kernels(r, &least);
    if (nk == n) {
        snprintf(what, sizeof what, "%llu of %llu kernels (%.0f%%) start before their own launch call (median %s, "
                 "up to %s early)", (unsigned long long)n, (unsigned long long)r->linked_kernels, 100.0 * share,
                 gd_format_us(off, sizeof off, r->launch_skew_median_us, "us"),
                 gd_format_us(mx, sizeof mx, r->launch_skew_max_us, "us"));
    } else { /* a systematic offset under 50 µs (DEFINITIONS "Kernels", kernels before their launch) */
        snprintf(what, sizeof what, "%llu of %llu kernels (%.0f%%) start before their own launch call, by up to %s "
                 "(a systematic offset)", (unsigned long long)nk, (unsigned long long)r->linked_kernels,
                 100.0 * (double)nk / (double)r->linked_kernels, gd_format_us(mx, sizeof mx, least, "us"));
    }
    gd_format_us(mx, sizeof mx, least, "us");
    /* a kernel cannot start before its call: the largest offset is a lower bound of the skew; the
     * tenths' offsets apart: it drifts (DEFINITIONS "Kernels", skew size and drift) */
    double d = fabs(r->launch_skew_last_us - r->launch_skew_first_us);
    if (d > GD_CLOCK_DRIFT_US &&
        d > GD_CLOCK_DRIFT_SHARE * fmax(fabs(r->launch_skew_first_us), fabs(r->launch_skew_last_us)))
        snprintf(drift, sizeof drift,
                 "; the skew drifts from %s (first tenth of the kernels) to %s (last tenth) over the trace",
                 r->launch_skew_first_us > 0 ? gd_format_us(a, sizeof a, r->launch_skew_first_us, "us")
                                             : "none visible",
                 r->launch_skew_last_us > 0 ? gd_format_us(z, sizeof z, r->launch_skew_last_us, "us")
                                            : "none visible");
    gd_fb_text(b, f,
         gd_format("%s: the GPU and host clocks of this trace disagree by at least %s, so launch delays "
                   "(clipped at 0: a lower bound) and the host/GPU attribution of idle time are unreliable%s",
                   what, mx, drift),
         r->input.nsys.present
             ? gd_format("A kernel cannot start before the call that launches it, and Nsight Systems records both on "
                         "one clock, so the export itself is suspect: profile again with a current nsys and export "
                         "it again (`nsys export --type sqlite`) before judging host/GPU timing.")
             : gd_format("A kernel cannot start before the call that launches it: the profiler converts GPU "
                         "timestamps to the host clock with an offset taken once, when profiling starts, and a long "
                         "capture drifts from it (pytorch/kineto#1082). Re-record a shorter window "
                         "(schedule(wait=1, warmup=1, active=2)) with a newer PyTorch/Kineto, or profile with Nsight "
                         "Systems (one clock), before acting on launch delays or host-side idle causes."));
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int gd_first_iteration(const gpudiag_report *r, const gpudiag_trace *t, gd_first_iter *fi)
{
    memset(fi, 0, sizeof *fi);
    if (!r->has_gpu || r->steps_from_profiler || r->input.nsys.present || r->step_count != 1)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < t->cpu_ops.len; i++)
        n += ((const gd_cpu_op *)gd_vec_at(&t->cpu_ops, i))->role == GD_CR_DATALOADER;
    if (n < GD_ITER_MIN_CALLS)
        return 0;
    int64_t *se = malloc(2 * n * sizeof *se); /* start, end pairs */
    if (!se)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < t->cpu_ops.len; i++) {
        const gd_cpu_op *c = gd_vec_at(&t->cpu_ops, i);
        if (c->role == GD_CR_DATALOADER) {
            se[2 * k] = c->ts_ns;
            se[2 * k + 1] = c->ts_ns + gd_cpu_dur(t, c);
            k++;
        }
    }
    qsort(se, n, 2 * sizeof *se, cmp_i64); /* by start (a pair sorts as its first word) */
    /* the calls' starts; a call that starts inside the previous one is not counted */
    size_t m = 0;
    int64_t prev_end = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        if (se[2 * i] < prev_end)
            continue;
        prev_end = se[2 * i + 1];
        se[m++] = se[2 * i];
    }
    int64_t ws = r->steps[0].start_ns, we = r->steps[0].end_ns;
    int rc = 0;
    /* the calls mark the loop only when it starts with them: the first call lies in the first half
     * of the first iteration (calls only after a loop that ran without them, a validation pass at
     * the end, mark nothing) */
    if (m >= GD_ITER_MIN_CALLS && se[1] > ws && we > ws && 2 * (se[0] - ws) <= se[1] - ws) {
        /* iterations 2 .. m-1, complete: from one call's start to the next one's */
        size_t nl = m - 2;
        for (size_t i = 0; i < nl; i++)
            se[m + i] = se[i + 2] - se[i + 1];
        qsort(se + m, nl, sizeof *se, cmp_i64);
        double med = nl % 2 ? (double)se[m + nl / 2] : 0.5 * ((double)se[m + nl / 2 - 1] + (double)se[m + nl / 2]);
        fi->iterations = m;
        fi->first_us = (double)(se[1] - ws) / 1000.0;
        fi->first_share = (double)(se[1] - ws) / (double)(we - ws);
        fi->median_us = med / 1000.0;
        fi->second_start_us = (double)se[1] / 1000.0;
        rc = fi->first_share >= GD_ITER_FIRST_SHARE && fi->first_us >= GD_ITER_FIRST_X * fi->median_us;
    }
    free(se);
    return rc;
}

/* The first iteration of a window without step markers (DEFINITIONS "Steps" 5). */
static void input_first_iteration(fbuilder *b, const gpudiag_trace *t)
{
    gd_first_iter fi;
    int k = gd_first_iteration(b->r, t, &fi);
    if (k < 0)
        b->oom = 1;
    if (k <= 0)
        return;
    gpudiag_finding *f = rf_add(b, GD_F_input_first_iteration, GPUDIAG_SEV_HIGH, NAN);
    gd_fb_ev(f, "iterations", (double)fi.iterations);
    gd_fb_ev(f, "first_iteration_us", fi.first_us);
    gd_fb_ev(f, "first_iteration_share", fi.first_share);
    gd_fb_ev(f, "iteration_median_us", fi.median_us);
    gd_fb_ev(f, "second_iteration_start_us", fi.second_start_us);
    char first[32], med[32];
    gd_format_us(first, sizeof first, fi.first_us, "us");
    gd_format_us(med, sizeof med, fi.median_us, "us");
    gd_fb_text(b, f,
         gd_format("No step markers, and the DataLoader's %zu calls mark %zu iterations: the first lasts %s (%.0f%% "
                   "of the window), the later ones a median of %s, so the window's numbers describe the first "
                   "iteration (initialisation, cuDNN autotuning, lazy loading), not the steady state",
                   fi.iterations, fi.iterations, first, 100.0 * fi.first_share, med),
         gd_format("Record steady-state steps: torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, "
                   "warmup=1, active=3)) with prof.step() once per iteration, or start the capture after the first "
                   "iteration (the second starts at ts %.3f in this trace).",
                   fi.second_start_us));
}

/* No GPU activity (cpu_only_trace, unless another note says why), else no step
 * markers (no_step_markers). */
static void input_no_gpu_or_steps(fbuilder *b, const gpudiag_trace *t)
{
    gpudiag_report *r = b->r;
    if (!r->has_gpu && r->input.unanalysed_device_events > 0) {
        /* input_unanalysed_device_events above says it: not a CPU-only trace */
    } else if (!r->has_gpu && r->input.profiler_ranges > 0) {
        /* input_profiler_ranges above says it: the GPU ran, its times were not recorded */
    } else if (!r->has_gpu && r->graph_launches_unrecorded > 0 && !r->input.truncated) {
        /* input_graph_replays_unrecorded (gd_rule_graph_replays) says it: the GPU work ran in graphs */
    } else if (!r->has_gpu && r->gpu_launch_calls > 0 && !r->input.truncated) {
        input_gpu_records_dropped(b, t);
    } else if (!r->has_gpu && r->input.legacy_profiler && !r->input.truncated) {
        /* DEFINITIONS "Time and events": the legacy autograd profiler records no GPU activity */
        gpudiag_finding *f = rf_add(b, GD_F_cpu_only_trace, GPUDIAG_SEV_INFO, NAN);
        gd_fb_ev(f, "cpu_ops", (double)t->cpu_ops.len);
        gd_fb_ev(f, "legacy_kernel_launches", (double)r->input.legacy_launches);
        gd_fb_text(b, f,
             r->input.legacy_launches
                 ? gd_format("The trace has no GPU activity: it was written by the legacy autograd profiler, which "
                             "marks %llu kernel launch(es) but records no kernels, copies or memsets",
                             (unsigned long long)r->input.legacy_launches)
                 : gd_format("The trace has no GPU activity: it was written by the legacy autograd profiler, which "
                             "records CPU ops only"),
             gd_format("This export (no event categories, pid \"CPU functions\") comes from torch.autograd.profiler "
                       "without Kineto: a PyTorch build without Kineto (Debian's python3-torch) or use_kineto=False. "
                       "Profile with a build that has Kineto (torch.profiler.kineto_available() is True, as in the "
                       "pip/conda packages): torch.profiler.profile(activities=[ProfilerActivity.CPU, "
                       "ProfilerActivity.CUDA]) with the model and data on the GPU."));
    } else if (!r->has_gpu) {
        gpudiag_finding *f = rf_add(b, GD_F_cpu_only_trace, GPUDIAG_SEV_INFO, NAN);
        gd_fb_ev(f, "cpu_ops", (double)t->cpu_ops.len);
        if (r->input.truncated) {
            /* Kineto writes the CPU ops first and the GPU activity after them
             * (DEFINITIONS "Cut-off traces"): a cut file may have lost it all */
            gd_fb_ev(f, "truncated_at_bytes", (double)r->input.truncated_at);
            gd_fb_text(b, f,
                 gd_format("No GPU activity (no kernels, copies or memsets) before the cut at byte %lld: the "
                           "trace is cut off, and its GPU events may be in the missing part",
                           (long long)r->input.truncated_at),
                 gd_format("Kineto writes the CPU ops first and the GPU activity after them, so a file cut short "
                           "loses the GPU events first. Get the complete trace (stop the profiler cleanly, "
                           "prof.stop() or leaving the `with` block, before the process exits; check free disk "
                           "space) and analyse it again. Only if the complete trace has no GPU events either: "
                           "profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] and put the "
                           "model and data on the GPU."));
        } else if (t->uncategorised_events > 0) {
            /* DEFINITIONS "Time and events": events without a category may be GPU work */
            gd_fb_ev(f, "uncategorised_events", (double)t->uncategorised_events);
            gd_fb_text(b, f,
                 gd_format("No GPU activity recognised: %llu complete event%s carr%s no category (\"cat\"), so "
                           "device work may be among them (another profiler's or another accelerator's events)",
                           (unsigned long long)t->uncategorised_events, t->uncategorised_events == 1 ? "" : "s",
                           t->uncategorised_events == 1 ? "ies" : "y"),
                 gd_format("gpudiag tells kernels, copies and CPU ops apart by the PyTorch profiler's event "
                           "categories (kernel, gpu_memcpy, cpu_op, cuda_runtime, ...). Record the run with "
                           "torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) and "
                           "export_chrome_trace, or with Nsight Systems (nsys export --type sqlite)."));
        } else if (gd_gpu_events_left_out(r) > 0) {
            /* GPU events were read but none could be placed (FINDINGS cpu_only_trace) */
            uint64_t lost = gd_gpu_events_left_out(r);
            gd_fb_ev(f, "gpu_events_left_out", (double)lost);
            gd_fb_text(b, f,
                 gd_format("No GPU activity could be analysed: the trace holds %llu GPU event%s, all left out "
                           "(an impossible device index or no timestamp: input_incomplete_events)",
                           (unsigned long long)lost, gd_plural(lost)),
                 gd_format("The kernels name no device gpudiag can read (Kineto writes args.device, or the device "
                           "index as the event's pid): a trace edited, merged or converted by another tool may have "
                           "lost it. Analyse the profiler's own export (export_chrome_trace), or put back the "
                           "device of each GPU event."));
        } else if (r->memory && r->memory->device_count > 0) {
            /* CUDA memory events: the model ran on the GPU, the profile did not record its activity */
            gd_fb_ev(f, "cuda_memory_devices", (double)r->memory->device_count);
            gd_fb_text(b, f,
                 gd_format("The GPU was used (CUDA memory events on %zu device%s) but the trace recorded no GPU "
                           "activity (no kernels, copies or memsets)",
                           r->memory->device_count, r->memory->device_count == 1 ? "" : "s"),
                 gd_format("The profiler recorded CPU activity only: profile with "
                           "torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) to "
                           "record the kernels, copies and memsets."));
        } else {
            gd_fb_text(b, f, gd_format("The trace has no GPU activity (no kernels, copies or memsets)"),
                 gd_format("Profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] and make "
                           "sure the model and data are on the GPU (model.to('cuda'))."));
        }
    } else if (r->input.step_range_missing && !r->steps_from_profiler) {
        /* input_step_range_missing below says it */
    } else if (!r->steps_from_profiler && r->input.nsys.present) {
        gpudiag_finding *f = rf_add(b, GD_F_no_step_markers, GPUDIAG_SEV_INFO, NAN);
        gd_fb_ev(f, "host_steps", 0);
        gd_fb_ev(f, "nvtx_ranges", (double)r->input.nsys.nvtx_ranges);
        gd_fb_text(b, f,
             gd_format("No step ranges in the Nsight Systems export: the whole capture is analysed as one window"),
             gd_format("Mark each %s iteration with an NVTX range (%s) and profile with `nsys profile -t cuda,nvtx`; "
                       "gpudiag "
                       "recognises ProfilerStep#N and ranges named iteration, train_step, training_step, "
                       "train_batch or step, and any other name given with --step-range NAME.",
                       rf_pytorch(b) ? "training" : "main-loop",
                       rf_pytorch(b) ? "torch.cuda.nvtx.range_push(\"step\") / range_pop(), or nvtx.annotate"
                                     : "nvtxRangePushA(\"step\") / nvtxRangePop() around the loop body"));
    } else if (!r->steps_from_profiler) {
        gpudiag_finding *f = rf_add(b, GD_F_no_step_markers, GPUDIAG_SEV_INFO, NAN);
        gd_fb_ev(f, "host_steps", 0);
        gd_fb_text(b, f, gd_format("No ProfilerStep#N markers: the whole trace is analysed as one step"),
             rf_pytorch(b) ? gd_format("Use torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, "
                                       "active=3)) and call prof.step() once per training iteration, so per-step "
                                       "numbers and the step-time spread can be computed.")
                           : gd_format("Mark each iteration with a range named step (an NVTX range, or a "
                                       "ProfilerStep#N annotation), so per-step numbers and the step-time spread can "
                                       "be computed."));
    }
}

/* What the step markers do not cover: one step, sparse steps, a --step-range
 * that matched nothing. */
static void input_steps(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (r->has_gpu && r->steps_from_profiler && r->step_count == 1) {
        /* DEFINITIONS "Start-up in the window": one step holds warm-up and steady state alike */
        gpudiag_finding *f = rf_add(b, GD_F_single_step, GPUDIAG_SEV_INFO, NAN);
        gd_fb_ev(f, "steps", 1);
        gd_fb_text(b, f,
             gd_format("Only one step was analysed: warm-up cannot be told apart from steady state, so one-off "
                       "costs (first launches, memory allocation, autotuning) may be counted as if they "
                       "happened every step"),
             gd_format("Profile at least 3 steps after warm-up: torch.profiler.profile(schedule=torch.profiler."
                       "schedule(wait=1, warmup=1, active=3)) and call prof.step() once per training iteration "
                       "(Nsight Systems: one NVTX range per iteration, 3 or more after the first)."));
    }
    if (r->steps_from_profiler && r->step_count >= 2 && r->avg_step_us > 0 && r->idle_step_us > 0 &&
        r->avg_step_us < GD_STEPS_SPARSE_COVERAGE * r->idle_step_us) {
        /* DEFINITIONS "Steps" 6: the steps cover under half of their span */
        gpudiag_finding *f = rf_add(b, GD_F_input_steps_sparse, GPUDIAG_SEV_MEDIUM, NAN);
        double cov = r->avg_step_us / r->idle_step_us;
        gd_fb_ev(f, "step_coverage", cov);
        gd_fb_ev(f, "avg_step_us", r->avg_step_us);
        gd_fb_ev(f, "step_window_us", r->idle_step_us);
        gd_fb_text(b, f,
             gd_format("The steps cover only %.1f%% of the time from the first step to the last (average step "
                       "%.3f ms, one every %.3f ms): most of the iteration lies outside the step markers, so the "
                       "per-step numbers describe only the marked part",
                       100.0 * cov, r->avg_step_us / 1000.0, r->idle_step_us / 1000.0),
             gd_format("Mark whole iterations: profile with torch.profiler.profile(schedule=torch.profiler."
                       "schedule(wait=1, warmup=1, active=3)) and call prof.step() once at the end of each "
                       "training iteration, rather than wrapping only part of it in a ProfilerStep range "
                       "(Nsight Systems: one NVTX range around the whole iteration, or --step-range NAME)."));
    }
    if (r->steps_markers_overlapping || r->steps_numbers_repeated) {
        /* DEFINITIONS "Steps" 1: markers that cannot be told apart */
        gpudiag_finding *f = rf_add(b, GD_F_input_steps_overlap, GPUDIAG_SEV_MEDIUM, NAN);
        gd_fb_ev(f, "steps_markers_overlapping", (double)r->steps_markers_overlapping);
        gd_fb_ev(f, "steps_numbers_repeated", (double)r->steps_numbers_repeated);
        gd_fb_text(b, f,
             gd_format("The step markers do not mark one process's iterations: %d overlap%s a step of another "
                       "number and %d step number%s repeat%s, so the step boundaries, the per-step numbers and the "
                       "step time may be wrong",
                       r->steps_markers_overlapping, r->steps_markers_overlapping == 1 ? "s" : "",
                       r->steps_numbers_repeated, r->steps_numbers_repeated == 1 ? "" : "s",
                       r->steps_numbers_repeated == 1 ? "s" : ""),
             gd_format("Analyse one process's trace per file (gpudiag analyze DIR compares ranks), and call "
                       "prof.step() from one thread once per iteration; a file that merges traces of processes "
                       "whose steps are offset cannot be cut into common steps."));
    }
    if (r->input.step_range_missing) {
        gpudiag_finding *f = rf_add(b, GD_F_input_step_range_missing, GPUDIAG_SEV_MEDIUM, NAN);
        gd_fb_ev(f, "annotation_ranges", (double)r->input.nsys.nvtx_ranges);
        const char *cand = r->input.step_range_candidates ? r->input.step_range_candidates : "";
        gd_fb_text(b, f,
             gd_format("No %s named '%s' (--step-range) in the trace: %s; %s%s",
                       r->input.nsys.present ? "NVTX range" : "user annotation",
                       r->input.step_range ? r->input.step_range : "",
                       r->steps_from_profiler ? "its own ProfilerStep#N steps are analysed instead"
                                              : "the whole capture is analysed as one window",
                       cand[0] ? (r->input.nsys.present ? "ranges that exist: " : "annotations that exist: ")
                               : (r->input.nsys.present ? "the export has no NVTX ranges" : "the trace has no user annotations"),
                       cand),
             gd_format("Check the range name: it must be the NVTX range (Nsight export) or user annotation "
                       "(PyTorch profiler trace) text, optionally followed by '#', ' ', '_', '-' or ':' and the step "
                       "number (e.g. --step-range ProfilerStep matches ProfilerStep#12). `nsys stats -r nvtx_sum` "
                       "lists the ranges of an export."));
    }
}

/* Runtime calls of several processes sharing correlation ids (DEFINITIONS "Time and events",
 * correlation ids of several processes): those ids were joined to nothing. */
static void input_processes_merged(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!r->corr_ambiguous_ids)
        return;
    gpudiag_finding *f = rf_add(b, GD_F_input_processes_merged, GPUDIAG_SEV_MEDIUM, NAN);
    gd_fb_ev(f, "host_processes", (double)r->host_processes);
    gd_fb_ev(f, "ambiguous_ids", (double)r->corr_ambiguous_ids);
    gd_fb_ev(f, "ambiguous_calls", (double)r->corr_ambiguous_calls);
    gd_fb_ev(f, "gpu_ops_unjoined", (double)r->corr_ambiguous_ops);
    gd_fb_text(b, f,
         gd_format("Runtime calls of %s%u host processes share %llu correlation id%s (%llu calls): the trace "
                   "merges several processes, and correlation ids are per process, so the %llu GPU op%s with "
                   "those ids %s joined to no launch call (left out of launch delays and the causes that follow "
                   "a launch call; still counted as GPU time)",
                   r->host_processes >= GD_RT_PIDS_MAX ? "at least " : "", r->host_processes,
                   (unsigned long long)r->corr_ambiguous_ids, r->corr_ambiguous_ids == 1 ? "" : "s",
                   (unsigned long long)r->corr_ambiguous_calls, (unsigned long long)r->corr_ambiguous_ops,
                   r->corr_ambiguous_ops == 1 ? "" : "s", r->corr_ambiguous_ops == 1 ? "was" : "were"),
         gd_format("A profiler trace holds one process: its GPU ops name their device, not the process that "
                   "launched them, so a kernel with an id two processes used cannot be matched to its call. "
                   "Analyse each process's trace as its own file (one file per rank: `gpudiag analyze DIR` "
                   "gives the per-rank and cross-rank report) instead of a concatenated one."));
}

/* Tables or columns missing from an Nsight Systems export. */
static void input_schema_gaps(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (r->input.nsys.present && r->input.nsys.schema_gap_count) {
        gpudiag_finding *f = rf_add(b, GD_F_input_schema_gaps, GPUDIAG_SEV_INFO, NAN);
        gd_fb_ev(f, "missing_tables_or_columns", (double)r->input.nsys.schema_gap_count);
        gd_fb_text(b, f,
             gd_format("The Nsight Systems export lacks %u table%s or column%s gpudiag reads: %s",
                       r->input.nsys.schema_gap_count, gd_plural(r->input.nsys.schema_gap_count),
                       gd_plural(r->input.nsys.schema_gap_count), r->input.nsys.schema_gaps ? r->input.nsys.schema_gaps : ""),
             gd_format("nsys creates a table only when the capture recorded that kind of event, and older "
                       "releases export fewer columns; the numbers that need what is missing are left out or "
                       "marked n/a. Trace CUDA and NVTX (`nsys profile -t cuda,nvtx`) and export with a recent "
                       "nsys (`nsys export --type sqlite`) to get them all."));
    }
}

/* The notes about the input, in this order (the order of the findings before
 * ranking). */
void gd_rule_input(fbuilder *b, const gpudiag_trace *t)
{
    input_damage(b, t);
    input_nsys_graphs(b);
    input_time_outliers(b);
    input_overrun(b);
    input_unanalysed(b, t);
    input_profiler_ranges(b, t);
    input_gpu_inferred(b);
    input_python_tracer(b, t);
    input_profiler_overhead(b);
    input_kernels_missing(b, t);
    input_processes_merged(b);
    input_gpu_clock_skew(b);
    input_no_gpu_or_steps(b, t);
    input_first_iteration(b, t);
    input_steps(b);
    input_schema_gaps(b);
}

/* Graph launches with no GPU op joined (DEFINITIONS "Graph replays"; Hyperloom#1047, TraceLens). */
void gd_rule_graph_replays(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!r->graph_launches_unrecorded || (!r->has_gpu && r->input.truncated))
        return;
    const char *api = r->is_amd ? "hipGraphLaunch" : "cudaGraphLaunch";
    gpudiag_finding *f = rf_add(b, GD_F_input_graph_replays_unrecorded,
                                !r->has_gpu || gd_graph_hides_idle(r) ? GPUDIAG_SEV_HIGH : GPUDIAG_SEV_MEDIUM, NAN);
    gd_fb_ev(f, "graph_launches", (double)r->graph_launches);
    gd_fb_ev(f, "graph_launches_without_gpu_ops", (double)r->graph_launches_unrecorded);
    gd_fb_ev(f, "graph_gpu_ops", (double)r->graph_gpu_ops);
    if (r->has_gpu) {
        gd_fb_ev(f, "unrecorded_idle_share", gd_graph_hidden_share(r));
        gd_fb_ev(f, "gpu_utilization_lower_bound", r->gpu_utilization);
    }
    const char *rec =
        "The GPU work runs inside CUDA/HIP graphs (decode loops of vLLM/SGLang, torch.compile "
        "mode=\"reduce-overhead\", manual torch.cuda.graphs capture), and the profiler recorded the launch "
        "calls but not the kernels the graphs ran (ROCm's tracer and some CUPTI setups do not trace graph "
        "nodes). Record them to see the GPU side: a current PyTorch/Kineto (CUPTI records graph kernels, "
        "joined to the launch by correlation id), Nsight Systems with --cuda-graph-trace=node, or a few steps "
        "run eagerly (vLLM enforce_eager=True) for the kernel mix. This trace already uses graphs: launch "
        "overhead is not the first suspect.";
    if (!r->has_gpu)
        gd_fb_text(b, f,
             gd_format("%llu graph launch%s (%s) and no GPU op in the trace: the kernels the graphs ran were not "
                       "recorded, so GPU time, idle time and the bottleneck cannot be told from it",
                       (unsigned long long)r->graph_launches_unrecorded, r->graph_launches_unrecorded == 1 ? "" : "es",
                       api),
             gd_format("%s", rec));
    else if (r->gpu_ops_unlinked)
        /* GPU ops without a launch call may be the replays' kernels, recorded without its correlation id */
        gd_fb_text(b, f,
             gd_format("%llu of %llu graph launches (%s) have no GPU op joined: their kernels were not recorded, or "
                       "are among the %llu GPU op%s with no launch call; GPU utilization (%.1f%%) may be a lower "
                       "bound, and %.1f%% of the step that reads as idle may hold them",
                       (unsigned long long)r->graph_launches_unrecorded, (unsigned long long)r->graph_launches, api,
                       (unsigned long long)r->gpu_ops_unlinked, gd_plural(r->gpu_ops_unlinked), 100.0 * r->gpu_utilization,
                       100.0 * gd_graph_hidden_share(r)),
             gd_format("%s", rec));
    else
        gd_fb_text(b, f,
             gd_format("%llu of %llu graph launches (%s) have no GPU op in the trace: their kernels were not recorded, "
                       "so GPU utilization (%.1f%%) is a lower bound, and %.1f%% of the step that reads as idle may "
                       "hold them",
                       (unsigned long long)r->graph_launches_unrecorded, (unsigned long long)r->graph_launches, api,
                       100.0 * r->gpu_utilization, 100.0 * gd_graph_hidden_share(r)),
             gd_format("%s", rec));
}

void gd_rule_graph_capture(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!gd_capture_dominates(r))
        return;
    double span = (double)r->step_count * r->idle_step_us;
    gpudiag_finding *f = rf_add(b, GD_F_input_graph_capture, GPUDIAG_SEV_HIGH, NAN);
    gd_fb_ev(f, "graph_captures", (double)r->graph_captures);
    gd_fb_ev(f, "graph_capture_us", r->graph_capture_us);
    gd_fb_ev(f, "capture_share", r->graph_capture_us / span);
    gd_fb_text(b, f,
         gd_format("%.1f%% of the analysed time is %s graph capture (%llu stream capture%s, %.1f ms): the "
                   "launches there are recorded into graphs, not run, so this trace shows the graphs being "
                   "built, not the steady state",
                   100.0 * r->graph_capture_us / span, r->is_amd ? "HIP" : "CUDA",
                   (unsigned long long)r->graph_captures, r->graph_captures == 1 ? "" : "s",
                   r->graph_capture_us / 1000.0),
         gd_format("Profile the steps that replay the captured graphs (after the server's warm-up / capture "
                   "phase) to see what the GPU waits for; the capture itself is a one-off cost."));
}

/* Most kernel records missing (DEFINITIONS "Time and events", kernel launch calls without
 * kernels): each cause finding with an estimate was computed from idle time that is mostly the
 * missing kernels' time, so it is kept but demoted to low, its title saying so, as start-up
 * demotes them (gd_rule_mostly_startup).  Runs after the rules that add them. */
void gd_rule_kernels_missing(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (gd_kernels_missing(r) != 2)
        return;
    double n = (double)r->kernel_launch_calls;
    double share = (double)(r->kernel_launches_joined + r->kernels_unlinked) / n;
    for (size_t i = 0; i < r->finding_count; i++) {
        gpudiag_finding *f = &r->findings[i];
        if (!f->is_cause || isnan(f->est_gain))
            continue;
        f->severity = GPUDIAG_SEV_LOW;
        gd_fb_ev(f, "kernels_recorded_share", share > 1.0 ? 1.0 : share);
        gd_fb_text(b, f,
                   r->kernel_count
                       ? gd_format("%s (computed with only %llu of %llu kernel launch calls' kernels recorded)",
                                   f->title, (unsigned long long)r->kernel_launches_joined,
                                   (unsigned long long)r->kernel_launch_calls)
                       : gd_format("%s (computed without the kernels, which were not recorded)", f->title),
                   gd_format("%s", f->recommendation));
    }
}
