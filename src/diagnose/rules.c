/*
 * rules.c — the rule catalogue.  Each rule reads numbers from the report and
 * may add one finding with a stable id (docs/FINDINGS.md), the evidence that
 * triggered it, a recommendation naming concrete knobs (the tuning guides' list), and
 * est_gain: the fraction of step time the fix could recover.  Rules never
 * look at events; the verdict is derived from the ranked findings.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/fbuild.h"
#include "diagnose/rules.h"
#include "gpudiag/roofline.h"
#include "gpudiag/specs.h"
#include "model/trace.h"
#include "util/util.h"

typedef gd_fbuild fbuilder;

/* ---- the catalogue (findings.def) -------------------------------------- */

typedef enum {
#define GD_FINDING(id, kind, bn, rule, fix, fix_fn) GD_F_##id,
#include "diagnose/findings.def"
#undef GD_FINDING
    GD_F_COUNT
} gd_finding_id;

typedef enum { CAUSE, SYMPTOM, NOTE } gd_finding_kind;

typedef struct {
    const char *id;
    gd_finding_kind kind;
    gpudiag_bottleneck bottleneck;
    const char *short_fix;                           /* NULL: "see findings" */
    const char *(*fix_fn)(const gpudiag_finding *f); /* NULL, or a fix for this f (NULL: short_fix) */
} gd_finding_row;

static const char *fix_host_launch(const gpudiag_finding *f);
static const char *fix_communication(const gpudiag_finding *f);
static const char *fix_memcpy(const gpudiag_finding *f);

static const gd_finding_row catalogue[GD_F_COUNT] = {
#define GD_FINDING(id, kind, bn, rule, fix, fix_fn) {#id, kind, GPUDIAG_BN_##bn, fix, fix_fn},
#include "diagnose/findings.def"
#undef GD_FINDING
};

/* The catalogue row of a finding's id; NULL for an id not in it. */
static const gd_finding_row *catalogue_row(const char *id)
{
    for (size_t i = 0; i < GD_F_COUNT; i++)
        if (strcmp(catalogue[i].id, id) == 0)
            return &catalogue[i];
    return NULL;
}

/* Append the finding `id` with its catalogue kind and bottleneck. */
static gpudiag_finding *rf_add(fbuilder *b, gd_finding_id id, gpudiag_severity sev, double est_gain)
{
    const gd_finding_row *c = &catalogue[id];
    return gd_fb_add(b, c->id, sev, c->kind == CAUSE, c->bottleneck, est_gain);
}

static gpudiag_severity sev_for_share(double s)
{
    return s >= 0.20 ? GPUDIAG_SEV_HIGH : s >= 0.10 ? GPUDIAG_SEV_MEDIUM : GPUDIAG_SEV_LOW;
}

static double role_share(const gpudiag_report *r, gpudiag_role role)
{
    if (!r->step_count || !(r->avg_step_us > 0))
        return NAN;
    return r->avg_role_us[role] / r->avg_step_us;
}

/* The Kernel role's share of the step that the recorded kernels account for: the
 * Kernel role also holds whole-graph rows of an Nsight export made without node
 * tracing (DEFINITIONS "Nsight Systems exports", graph rows), whose kernels are
 * unknown, so rules that scale a kernel-class share by it take the recorded
 * kernels' part of that time only. */
static double known_kernel_share(const gpudiag_report *r)
{
    double k = role_share(r, GPUDIAG_ROLE_KERNEL);
    double g = r->input.nsys.present ? r->input.nsys.graph_exec_time_us : 0;
    if (isnan(k) || !(g > 0))
        return k;
    double kt = r->kernel_time_us > 0 ? r->kernel_time_us : 0;
    return k * kt / (kt + g);
}

/* Highest compute capability among the devices as major * 10 + minor, -1 if unknown. */
static int max_compute_cc(const gpudiag_report *r)
{
    int cc = -1;
    for (size_t i = 0; i < r->device_count; i++) {
        const gpudiag_device *d = &r->devices[i];
        if (d->compute_major >= 0 && d->compute_major * 10 + (d->compute_minor < 0 ? 0 : d->compute_minor) > cc)
            cc = d->compute_major * 10 + (d->compute_minor < 0 ? 0 : d->compute_minor);
    }
    return cc;
}

/* The Tensor Core dtypes of the newest device (gpudiag_tensor_core_dtypes), 0 when unknown or AMD. */
static unsigned tc_dtypes(const gpudiag_report *r)
{
    int cc = max_compute_cc(r);
    return cc < 0 || r->is_amd ? 0 : gpudiag_tensor_core_dtypes(cc / 10, cc % 10);
}

/* Highest compute capability major among the devices, -1 if unknown. */
static int max_compute_major(const gpudiag_report *r)
{
    int major = -1;
    for (size_t i = 0; i < r->device_count; i++)
        if (r->devices[i].compute_major > major)
            major = r->devices[i].compute_major;
    return major;
}

static double min_device_util(const gpudiag_report *r, int *dev)
{
    double m = NAN;
    for (size_t i = 0; i < r->device_count; i++) {
        double u = r->devices[i].gpu_utilization;
        if (!isnan(u) && (isnan(m) || u < m)) {
            m = u;
            *dev = r->devices[i].id;
        }
    }
    return m;
}

/* ---- input notes ------------------------------------------------------- */

static void rule_input(fbuilder *b, const gpudiag_trace *t)
{
    gpudiag_report *r = b->r;
    if (r->input.truncated) {
        gpudiag_finding *f = rf_add(b, GD_F_input_truncated, GPUDIAG_SEV_MEDIUM, NAN);
        gd_fb_ev(f, "truncated_at_bytes", (double)r->input.truncated_at);
        gd_fb_ev(f, "events_read", (double)r->input.events);
        gd_fb_text(b, f,
             gd_format("Trace is cut off at byte %lld (%s); analysed the %llu complete events before it",
                       (long long)r->input.truncated_at, t->truncation_reason[0] ? t->truncation_reason : "unexpected end",
                       (unsigned long long)r->input.events),
             gd_format("The profiler did not finish writing this file (Kineto closes the JSON only in "
                       "finalizeTrace, so a killed or crashed process leaves it open). The last step may be "
                       "incomplete and was trimmed if it launched under 80%% of the previous step's GPU work. "
                       "Stop the profiler cleanly (prof.stop() / leaving the `with` block) before the process "
                       "exits, and check free disk space."));
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
    if (r->input.skipped_malformed) {
        gpudiag_finding *f = rf_add(b, GD_F_input_malformed, GPUDIAG_SEV_LOW, NAN);
        gd_fb_ev(f, "skipped_events", (double)r->input.skipped_malformed);
        gd_fb_ev(f, "first_error_at_bytes", (double)t->first_error_at);
        gd_fb_text(b, f,
             gd_format("%llu malformed event(s) skipped; the first at byte %lld: %s",
                       (unsigned long long)r->input.skipped_malformed, (long long)t->first_error_at, t->first_error),
             gd_format("The JSON is invalid around those events (old Kineto versions wrote unescaped quotes "
                       "and backslashes from with_stack/file names, or bare N/A). Each broken event was "
                       "skipped and reading resumed at the next one; numbers are computed without them. "
                       "Upgrade PyTorch, or re-export with with_stack=False."));
    }
    if (r->input.skipped_no_dur || r->input.skipped_zero_ts || r->input.skipped_bad_value) {
        gpudiag_finding *f = rf_add(b, GD_F_input_incomplete_events, GPUDIAG_SEV_INFO, NAN);
        gd_fb_ev(f, "events_without_duration", (double)r->input.skipped_no_dur);
        gd_fb_ev(f, "gpu_events_with_zero_ts", (double)r->input.skipped_zero_ts);
        gd_fb_ev(f, "gpu_events_with_bad_device", (double)r->input.skipped_bad_value);
        gd_fb_text(b, f,
             gd_format("%llu event(s) without a valid duration, %llu GPU event(s) without a timestamp and %llu "
                       "with an impossible device index were left out",
                       (unsigned long long)r->input.skipped_no_dur, (unsigned long long)r->input.skipped_zero_ts,
                       (unsigned long long)r->input.skipped_bad_value),
             gd_format("`dur` -1 marks CPU ops still running when collection stopped; `ts` 0 marks GPU "
                       "activity CUPTI could not timestamp. Both are normal in small numbers; many of them "
                       "mean the profiling window cut through the work or the CUPTI buffer overflowed "
                       "(raise the activity buffer size or profile fewer steps)."));
    }
    if (r->input.nsys.present && r->input.nsys.graph_execs) {
        /* DEFINITIONS "Nsight Systems exports", graph rows (GindaChen/nsys-ai#236) */
        const gpudiag_nsys_info *n = &r->input.nsys;
        gpudiag_finding *f = rf_add(b, GD_F_input_graph_no_node_trace, GPUDIAG_SEV_MEDIUM, NAN);
        gd_fb_ev(f, "graph_execs", (double)n->graph_execs);
        gd_fb_ev(f, "graph_exec_time_us", n->graph_exec_time_us);
        gd_fb_text(b, f,
             gd_format("%llu CUDA graph execution(s) (%.1f us of GPU time) were recorded whole, without their "
                       "kernels: the kernel numbers leave them out",
                       (unsigned long long)n->graph_execs, n->graph_exec_time_us),
             gd_format("This export was made without --cuda-graph-trace=node, so Nsight Systems recorded each graph "
                       "launch as one block of GPU time. It counts here as busy GPU time (utilization, idle gaps, "
                       "the step breakdown), but the kernel table, Tensor Core share, kernel classes and launch "
                       "statistics cover only the kernels launched outside graphs. For kernel detail, profile "
                       "again with nsys profile --cuda-graph-trace=node."));
    }
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
        char where[64] = "", durs[160] = "";
        if (in->time_outliers && in->time_outlier_first_at >= 0)
            snprintf(where, sizeof where, "; the first at byte %lld", (long long)in->time_outlier_first_at);
        if (in->duration_outliers)
            snprintf(durs, sizeof durs, "%s%llu GPU op(s) whose duration reached %.3g s past everything else were "
                     "cut at the rest's last end",
                     in->time_outliers ? "; " : "", (unsigned long long)in->duration_outliers,
                     in->duration_outlier_removed_us / 1e6);
        char outl[160] = "";
        if (in->time_outliers)
            snprintf(outl, sizeof outl, "%llu event(s) lie %.3g s away from the rest of the timeline and were left out",
                     (unsigned long long)in->time_outliers, in->time_outlier_gap_us / 1e6);
        gd_fb_text(b, f,
             gd_format("%s%s%s", outl, where, durs),
             gd_format("Those times lie more than 10 times the span of all other events (and at least 1 s) away "
                       "from them: a stray timestamp, a clock jump or a corrupt duration (ROCm late completion "
                       "timestamps), not work of this capture. Every number here is computed without that time, so "
                       "that one bad event does not stretch the steps, the idle time or the utilization. If the "
                       "events are real, the capture holds two separate runs: profile them separately."));
    }
    if (r->input.overrun_ops) {
        /* DEFINITIONS "Sanitising the timeline" rule 1 */
        double kt = r->kernel_time_us > 0 ? r->kernel_time_us : 0;
        int big = r->input.overrun_removed_us >= 0.01 * (kt + r->input.overrun_removed_us);
        gpudiag_finding *f = rf_add(b, GD_F_input_ops_overrun, big ? GPUDIAG_SEV_MEDIUM : GPUDIAG_SEV_LOW, NAN);
        gd_fb_ev(f, "clipped_ops", (double)r->input.overrun_ops);
        gd_fb_ev(f, "removed_us", r->input.overrun_removed_us);
        gd_fb_text(b, f,
             gd_format("%llu GPU op(s) ran past the start of the next op on their stream; each was clipped there "
                       "(%.1f us removed)",
                       (unsigned long long)r->input.overrun_ops, r->input.overrun_removed_us),
             gd_format("Work on one stream runs in order, so an op cannot end after the next one on its stream "
                       "starts: those recorded ends are wrong (ROCm/rocprof writes late completion timestamps "
                       "after a long stall; CUPTI rounding gives a few us). They were cut at the next op's start, "
                       "as Perfetto and chrome://tracing draw them, and every number here uses the clipped "
                       "durations. If the removed time is large, the per-kernel times of that capture are not "
                       "reliable: record it again. (Kernels using programmatic dependent launch may truly "
                       "overlap their successor; for them the clipped time is a lower bound.)"));
    }
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
             gd_format("%llu device event(s) of a kind gpudiag does not analyse (%s): %s",
                       (unsigned long long)in->unanalysed_device_events, cats,
                       r->has_gpu ? "the GPU numbers cover only the CUDA/ROCm kernels, copies and memsets"
                                  : "the device side of this trace is not diagnosed; its busy and idle time are "
                                    "unknown, not zero"),
             gd_format("gpudiag reads NVIDIA and AMD GPU activity (kernels, copies, memsets). These events come "
                       "from another accelerator's profiler backend (MTIA writes `mtia_ccp_events`) and were left "
                       "out. The host-side numbers (steps, CPU ops, runtime calls) still hold; for the device "
                       "side use the accelerator vendor's analysis tools."));
    }
    if (r->input.profiler_ranges > 0) {
        /* DEFINITIONS "Time and events", CUPTI range-profiler events: counters, not timings */
        gpudiag_finding *f =
            rf_add(b, GD_F_input_profiler_ranges, r->has_gpu ? GPUDIAG_SEV_LOW : GPUDIAG_SEV_MEDIUM, NAN);
        gd_fb_ev(f, "profiler_ranges", (double)r->input.profiler_ranges);
        gd_fb_ev(f, "gpu_ops", (double)t->gpu_ops.len);
        gd_fb_text(b, f,
             gd_format("%llu CUPTI range-profiler event%s (cuda_profiler_range, one per kernel) carry counters, "
                       "not timings: Kineto spreads them evenly over the profiling span, so they are not read as "
                       "kernels%s",
                       (unsigned long long)r->input.profiler_ranges, r->input.profiler_ranges == 1 ? "" : "s",
                       r->has_gpu ? "" : "; with no other GPU activity recorded, the GPU's busy and idle time are "
                                         "unknown, not zero"),
             gd_format("This trace was recorded with the profiler's CUPTI range-profiler mode (experimental_config "
                       "profiler_metrics), which reads counters per kernel (serialising the kernels) and records no "
                       "kernel times. Profile again without profiler_metrics (CUDA activities on) to see where the GPU waits; "
                       "read the counters with Nsight Compute (gpudiag analyze --ncu) for the roofline."));
    }
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
    if (!r->has_gpu && r->input.unanalysed_device_events > 0) {
        /* input_unanalysed_device_events above says it: not a CPU-only trace */
    } else if (!r->has_gpu && r->input.profiler_ranges > 0) {
        /* input_profiler_ranges above says it: the GPU ran, its times were not recorded */
    } else if (!r->has_gpu && r->graph_launches_unrecorded > 0 && !r->input.truncated) {
        /* input_graph_replays_unrecorded (rule_graph_replays) says it: the GPU work ran in graphs */
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
                 gd_format("No GPU activity recognised: %llu complete event(s) carry no category (\"cat\"), so "
                           "device work may be among them (another profiler's or another accelerator's events)",
                           (unsigned long long)t->uncategorised_events),
                 gd_format("gpudiag tells kernels, copies and CPU ops apart by the PyTorch profiler's event "
                           "categories (kernel, gpu_memcpy, cpu_op, cuda_runtime, ...). Record the run with "
                           "torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) and "
                           "export_chrome_trace, or with Nsight Systems (nsys export --type sqlite)."));
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
             gd_format("Mark each training iteration with an NVTX range (torch.cuda.nvtx.range_push(\"step\") / "
                       "range_pop(), or nvtx.annotate) and profile with `nsys profile -t cuda,nvtx`; gpudiag "
                       "recognises ProfilerStep#N and ranges named iteration, train_step, training_step, "
                       "train_batch or step, and any other name given with --step-range NAME."));
    } else if (!r->steps_from_profiler) {
        gpudiag_finding *f = rf_add(b, GD_F_no_step_markers, GPUDIAG_SEV_INFO, NAN);
        gd_fb_ev(f, "host_steps", 0);
        gd_fb_text(b, f, gd_format("No ProfilerStep#N markers: the whole trace is analysed as one step"),
             gd_format("Use torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, "
                       "active=3)) and call prof.step() once per training iteration, so per-step "
                       "numbers and the step-time spread can be computed."));
    }
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
        /* DEFINITIONS "Steps" 5: the steps cover under half of their span */
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
    if (r->input.nsys.present && r->input.nsys.schema_gap_count) {
        gpudiag_finding *f = rf_add(b, GD_F_input_schema_gaps, GPUDIAG_SEV_INFO, NAN);
        gd_fb_ev(f, "missing_tables_or_columns", (double)r->input.nsys.schema_gap_count);
        gd_fb_text(b, f,
             gd_format("The Nsight Systems export lacks %u table(s)/column(s) gpudiag reads: %s",
                       r->input.nsys.schema_gap_count, r->input.nsys.schema_gaps ? r->input.nsys.schema_gaps : ""),
             gd_format("nsys creates a table only when the capture recorded that kind of event, and older "
                       "releases export fewer columns; the numbers that need what is missing are left out or "
                       "marked n/a. Trace CUDA and NVTX (`nsys profile -t cuda,nvtx`) and export with a recent "
                       "nsys (`nsys export --type sqlite`) to get them all."));
    }
}

/* ---- NVIDIA Nsight Systems expert-system rules ------------------------- */

/* Each rule of `nsys analyze` that fires on the export becomes one finding
 * nsight_<rule name>, with NVIDIA's definition and default threshold
 * (docs/DEFINITIONS.md "Nsight Systems rules").  They are NVIDIA's opinion,
 * reported beside gpudiag's own causes: never causes themselves (no est_gain). */
static void rule_nsight(fbuilder *b)
{
    gpudiag_report *r = b->r;
    const gpudiag_nsight_rules *R = &r->nsight;
    if (!R->available)
        return;
    if (R->gaps) {
        gpudiag_finding *f = rf_add(b, GD_F_nsight_gpu_gaps, GPUDIAG_SEV_MEDIUM, NAN);
        gd_fb_ev(f, "gaps", (double)R->gaps);
        gd_fb_ev(f, "gap_time_us", R->gap_time_us);
        gd_fb_ev(f, "gap_max_us", R->gap_max_us);
        gd_fb_ev(f, "threshold_us", R->gap_threshold_us);
        gd_fb_text(b, f,
             gd_format("Nsight rule gpu_gaps (GPU Gaps): %llu gap(s) longer than %.0f ms with the GPU idle, %.1f ms in "
                       "all, the longest %.1f ms",
                       (unsigned long long)R->gaps, R->gap_threshold_us / 1000.0, R->gap_time_us / 1000.0,
                       R->gap_max_us / 1000.0),
             gd_format("NVIDIA's advice: use CPU sampling data, OS runtime blocked-state backtraces and NVTX "
                       "annotations to learn why the CPU did not feed the GPU (data loading, checkpointing, "
                       "host-side work between iterations); IDLE GAPS above says what the host was doing."));
    }
    if (R->util_low_chunks) {
        gpudiag_finding *f = rf_add(b, GD_F_nsight_gpu_time_util, GPUDIAG_SEV_LOW, NAN);
        gd_fb_ev(f, "low_chunks", (double)R->util_low_chunks);
        gd_fb_ev(f, "chunks", (double)R->util_chunks_total);
        gd_fb_ev(f, "low_regions", (double)R->util_low_regions);
        gd_fb_ev(f, "low_time_us", R->util_low_time_us);
        gd_fb_ev(f, "min_utilization", R->util_min);
        gd_fb_ev(f, "threshold", R->util_threshold);
        gd_fb_text(b, f,
             gd_format("Nsight rule gpu_time_util (GPU Time Utilization): %llu of %llu time chunks have the GPU busy "
                       "less than %.0f%% of the time (%llu region(s), %.1f ms; the lowest %.1f%%)",
                       (unsigned long long)R->util_low_chunks, (unsigned long long)R->util_chunks_total,
                       100.0 * R->util_threshold, (unsigned long long)R->util_low_regions, R->util_low_time_us / 1000.0,
                       100.0 * R->util_min),
             gd_format("NVIDIA's advice: as for GPU gaps, find what the CPU does in those regions (CPU sampling, "
                       "OS runtime backtraces, NVTX). This is time utilization, not resource use: a region "
                       "full of tiny kernels counts as busy."));
    }
    if (R->memcpy_sync) {
        gpudiag_finding *f = rf_add(b, GD_F_nsight_cuda_memcpy_sync, GPUDIAG_SEV_LOW, NAN);
        gd_fb_ev(f, "copies", (double)R->memcpy_sync);
        gd_fb_ev(f, "bytes", R->memcpy_sync_bytes);
        gd_fb_ev(f, "copy_time_us", R->memcpy_sync_us);
        gd_fb_text(b, f,
             gd_format("Nsight rule cuda_memcpy_sync (CUDA Synchronous Memcpy): %llu synchronous copies "
                       "(%.3g MB, %.1f ms on the GPU) block the host",
                       (unsigned long long)R->memcpy_sync, R->memcpy_sync_bytes / 1e6, R->memcpy_sync_us / 1000.0),
             gd_format("NVIDIA's advice: use cudaMemcpy*Async with pinned host memory so the host does not wait "
                       "(in PyTorch: tensor.to(device, non_blocking=True) from pinned memory)."));
    }
    if (R->memset_sync) {
        gpudiag_finding *f = rf_add(b, GD_F_nsight_cuda_memset_sync, GPUDIAG_SEV_LOW, NAN);
        gd_fb_ev(f, "memsets", (double)R->memset_sync);
        gd_fb_ev(f, "bytes", R->memset_sync_bytes);
        gd_fb_ev(f, "memset_time_us", R->memset_sync_us);
        gd_fb_text(b, f,
             gd_format("Nsight rule cuda_memset_sync (CUDA Synchronous Memset): %llu synchronous memsets on pinned "
                       "or managed memory (%.1f ms on the GPU)",
                       (unsigned long long)R->memset_sync, R->memset_sync_us / 1000.0),
             gd_format("NVIDIA's advice: avoid the implied synchronisation: use cudaMemsetAsync, or "
                       "synchronise with events."));
    }
    if (R->memcpy_async_pageable) {
        gpudiag_finding *f = rf_add(b, GD_F_nsight_cuda_memcpy_async, GPUDIAG_SEV_LOW, NAN);
        gd_fb_ev(f, "copies", (double)R->memcpy_async_pageable);
        gd_fb_ev(f, "bytes", R->memcpy_async_pageable_bytes);
        gd_fb_ev(f, "copy_time_us", R->memcpy_async_pageable_us);
        gd_fb_text(b, f,
             gd_format("Nsight rule cuda_memcpy_async (CUDA Async Memcpy with Pageable Memory): %llu asynchronous "
                       "copies touch pageable memory and so run synchronously (%.3g MB, %.1f ms)",
                       (unsigned long long)R->memcpy_async_pageable, R->memcpy_async_pageable_bytes / 1e6,
                       R->memcpy_async_pageable_us / 1000.0),
             gd_format("NVIDIA's advice: use pinned host memory for asynchronous copies (PyTorch: "
                       "DataLoader(pin_memory=True), tensor.pin_memory())."));
    }
    if (R->api_sync) {
        gpudiag_finding *f = rf_add(b, GD_F_nsight_cuda_api_sync, GPUDIAG_SEV_LOW, NAN);
        gd_fb_ev(f, "calls", (double)R->api_sync);
        gd_fb_ev(f, "call_time_us", R->api_sync_us);
        gd_fb_text(b, f,
             gd_format("Nsight rule cuda_api_sync (CUDA Synchronization APIs): %llu cudaDeviceSynchronize / "
                       "cudaStreamSynchronize calls, %.1f ms of host time in them",
                       (unsigned long long)R->api_sync, R->api_sync_us / 1000.0),
             gd_format("NVIDIA's advice: avoid excessive synchronisation; wait on events instead "
                       "(cudaStreamWaitEvent, cudaEventSynchronize) so only the dependent work waits."));
    }
}

/* ---- causes ------------------------------------------------------------ */

static void rule_dataloader(fbuilder *b)
{
    gpudiag_report *r = b->r;
    double s = role_share(r, GPUDIAG_ROLE_DATALOADER);
    if (isnan(s) || !(s > GD_DATALOADER_SHARE_MIN))
        return;
    gpudiag_finding *f = rf_add(b, GD_F_dataloader_stall, sev_for_share(s), s);
    gd_fb_ev(f, "dataloader_share", s);
    gd_fb_ev(f, "dataloader_us_per_step", r->avg_role_us[GPUDIAG_ROLE_DATALOADER]);
    gd_fb_ev(f, "step_time_us", r->avg_step_us);
    gd_fb_ev(f, "gpu_utilization", r->gpu_utilization);
    gd_fb_text(b, f,
         r->has_gpu
             ? gd_format("The GPU waits for the DataLoader: %.1f%% of each step (%.3g ms of %.3g ms)", 100.0 * s,
                         r->avg_role_us[GPUDIAG_ROLE_DATALOADER] / 1000.0, r->avg_step_us / 1000.0)
             /* a CPU-only trace: nothing waits on a GPU (DEFINITIONS "Time and events") */
             : gd_format("The DataLoader takes %.1f%% of each step (%.3g ms of %.3g ms; no GPU activity recorded, "
                         "so this is host time in the step, not GPU waiting)",
                         100.0 * s, r->avg_role_us[GPUDIAG_ROLE_DATALOADER] / 1000.0, r->avg_step_us / 1000.0),
         gd_format("Load batches in parallel with compute: DataLoader(num_workers=N) with N at 50-75%% of "
                   "the physical cores per GPU process, prefetch_factor=4-6, pin_memory=True with "
                   ".to(device, non_blocking=True), persistent_workers=True. Move decoding, augmentation "
                   "and tokenisation out of the loop (pre-tokenise, cache decoded samples, GPU "
                   "augmentation such as DALI), and group samples by length to cut padding."));
}

/* Device-idle time that is not steady state (causes startup and compilation,
 * DEFINITIONS "Start-up in the window"), summed over the devices ÷ their
 * number, in µs; *comp gets the compilation part. */
static double startup_us(const gpudiag_report *r, double *comp)
{
    size_t nd = r->timeline.device_count;
    double s = r->idle_cause_us[GPUDIAG_IDLE_STARTUP], c = r->idle_cause_us[GPUDIAG_IDLE_COMPILATION];
    if (comp)
        *comp = nd ? c / (double)nd : 0;
    return nd ? (s + c) / (double)nd : 0;
}

/* Its share of the analysed time (the unit of the breakdown shares), 0 when none. */
static double startup_share(const gpudiag_report *r)
{
    if (!r->has_gpu || !r->step_count || !(r->avg_step_us > 0))
        return 0;
    double sh = startup_us(r, NULL) / ((double)r->step_count * r->avg_step_us);
    return sh > 0 ? (sh > 1 ? 1 : sh) : 0;
}

/* Device-idle time that may hold unrecorded graph replays ÷ devices ÷ the steps
 * span (the unit of the idle shares); 0 when none. */
static double graph_hidden_share(const gpudiag_report *r)
{
    size_t nd = r->timeline.device_count;
    if (!nd || !r->step_count || !(r->idle_step_us > 0) || !(r->graph_hidden_idle_us > 0))
        return 0;
    return r->graph_hidden_idle_us / (double)nd / ((double)r->step_count * r->idle_step_us);
}

/* The unrecorded replays could fill most of the idle time (FINDINGS "Verdict"). */
static int graph_hides_idle(const gpudiag_report *r)
{
    return r->graph_launches_unrecorded > 0 &&
           (!r->has_gpu || (r->idle_gap_us > 0 && 2.0 * r->graph_hidden_idle_us >= r->idle_gap_us));
}

/* Graph launches with no GPU op joined (DEFINITIONS "Graph replays"; Hyperloom#1047, TraceLens). */
static void rule_graph_replays(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!r->graph_launches_unrecorded || (!r->has_gpu && r->input.truncated))
        return;
    const char *api = r->is_amd ? "hipGraphLaunch" : "cudaGraphLaunch";
    gpudiag_finding *f = rf_add(b, GD_F_input_graph_replays_unrecorded,
                                !r->has_gpu || graph_hides_idle(r) ? GPUDIAG_SEV_HIGH : GPUDIAG_SEV_MEDIUM, NAN);
    gd_fb_ev(f, "graph_launches", (double)r->graph_launches);
    gd_fb_ev(f, "graph_launches_without_gpu_ops", (double)r->graph_launches_unrecorded);
    gd_fb_ev(f, "graph_gpu_ops", (double)r->graph_gpu_ops);
    if (r->has_gpu) {
        gd_fb_ev(f, "unrecorded_idle_share", graph_hidden_share(r));
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
                       "are among the %llu GPU ops with no launch call; GPU utilization (%.1f%%) may be a lower "
                       "bound, and %.1f%% of the step that reads as idle may hold them",
                       (unsigned long long)r->graph_launches_unrecorded, (unsigned long long)r->graph_launches, api,
                       (unsigned long long)r->gpu_ops_unlinked, 100.0 * r->gpu_utilization,
                       100.0 * graph_hidden_share(r)),
             gd_format("%s", rec));
    else
        gd_fb_text(b, f,
             gd_format("%llu of %llu graph launches (%s) have no GPU op in the trace: their kernels were not recorded, "
                       "so GPU utilization (%.1f%%) is a lower bound, and %.1f%% of the step that reads as idle may "
                       "hold them",
                       (unsigned long long)r->graph_launches_unrecorded, (unsigned long long)r->graph_launches, api,
                       100.0 * r->gpu_utilization, 100.0 * graph_hidden_share(r)),
             gd_format("%s", rec));
}

/* The steps span is mostly stream capture (DEFINITIONS "Graph replays", capture). */
static int capture_dominates(const gpudiag_report *r)
{
    double span = (double)r->step_count * r->idle_step_us;
    return r->graph_captures > 0 && span > 0 && 2.0 * r->graph_capture_us >= span;
}

static void rule_graph_capture(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!capture_dominates(r))
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

static void rule_startup(fbuilder *b)
{
    gpudiag_report *r = b->r;
    double share = startup_share(r);
    if (!(share >= GD_STARTUP_SHARE_MIN))
        return;
    const gpudiag_step *s0 = &r->steps[0];
    double comp = 0, all = startup_us(r, &comp);
    gpudiag_finding *f = rf_add(b, GD_F_startup_in_window, GPUDIAG_SEV_LOW, NAN);
    gd_fb_ev(f, "lead_in_us", s0->gpu_lead_in_us);
    gd_fb_ev(f, "first_step_us", s0->duration_us);
    gd_fb_ev(f, "startup_us", all - comp);
    gd_fb_ev(f, "compilation_us", comp);
    gd_fb_ev(f, "share_of_steps", share);
    char what[96];
    if (comp > 0 && all - comp > 0)
        snprintf(what, sizeof what, "%.2f s of start-up/warm-up and %.2f s of torch.compile compilation", (all - comp) / 1e6,
                 comp / 1e6);
    else if (comp > 0)
        snprintf(what, sizeof what, "%.2f s of torch.compile compilation", comp / 1e6);
    else
        snprintf(what, sizeof what, "%.2f s of start-up/warm-up", all / 1e6);
    gd_fb_text(b, f,
         gd_format("The GPU sits idle for %s in the %s (before the first GPU op, after the last, in "
                   "compilation / warm-up, or behind a one-off first call such as lazy module loading at a "
                   "kernel's first launch): %s initialisation, model loading, compilation or autotuning, "
                   "not steady-state training",
                   what, r->steps_from_profiler ? "steps" : "window", r->is_amd ? "HIP (ROCm)" : "CUDA"),
         gd_format("Record steady-state steps: torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, "
                   "warmup=2, active=3)) with prof.step() each iteration keeps start-up and compilation out of "
                   "the trace. This time (%.1f%% of the analysed time) is left out of the host-overhead "
                   "estimate and the verdict.",
                   100.0 * share));
}

/* Device-idle time in the host side of coalesced collectives (DEFINITIONS
 * "Idle gaps and their causes", rule 2), ÷ devices, as a share of the analysed
 * time; 0 when none. */
static double collective_host_share(const gpudiag_report *r)
{
    size_t nd = r->timeline.device_count;
    if (!r->has_gpu || !nd || !r->step_count || !(r->avg_step_us > 0) || !(r->collective_host_us > 0))
        return 0;
    return r->collective_host_us / (double)nd / ((double)r->step_count * r->avg_step_us);
}

static void rule_collective_host(fbuilder *b)
{
    gpudiag_report *r = b->r;
    double s = collective_host_share(r);
    if (!(s >= GD_COMM_SHARE_LOW))
        return;
    gpudiag_finding *f = rf_add(b, GD_F_collective_host_work, sev_for_share(s), s);
    gd_fb_ev(f, "collective_host_share", s);
    gd_fb_ev(f, "collective_host_us_per_step",
             r->collective_host_us / (double)r->timeline.device_count / (double)r->step_count);
    gd_fb_text(b, f,
         gd_format("The GPU waits %.1f%% of each step while the host flattens and unflattens tensors for a "
                   "coalesced collective (aten::flatten_dense_tensors / unflatten_dense_tensors around "
                   "nccl:broadcast)",
                   100.0 * s),
         gd_format("This is DDP's buffer broadcast before every forward (or ZeRO/apex bucket copies): pass "
                   "broadcast_buffers=False to DistributedDataParallel when the buffers need no syncing every "
                   "step (BatchNorm running statistics: use SyncBatchNorm, or sync them every N steps), keep "
                   "buffers few and large, or register them as non-persistent state outside the module."));
}

/* Device-idle time of a cause ÷ devices, as a share of the analysed time (the
 * unit of collective_host_share); 0 when none. */
static double idle_cause_share(const gpudiag_report *r, gpudiag_idle_cause c)
{
    size_t nd = r->timeline.device_count;
    if (!r->has_gpu || !nd || !r->step_count || !(r->avg_step_us > 0) || !(r->idle_cause_us[c] > 0))
        return 0;
    double s = r->idle_cause_us[c] / (double)nd / ((double)r->step_count * r->avg_step_us);
    return s > 1 ? 1 : s;
}

/* Host time us (runtime + CPU Exec, summed over devices) inside some idle gaps ÷ devices, as a
 * share of the analysed time: the breakdown counts it as host time, but the GPU was not
 * waiting for the host. */
static double host_share_in_gaps(const gpudiag_report *r, double us)
{
    size_t nd = r->timeline.device_count;
    if (!r->has_gpu || !nd || !r->step_count || !(r->avg_step_us > 0) || !(us > 0))
        return 0;
    double s = us / (double)nd / ((double)r->step_count * r->avg_step_us);
    return s > 1 ? 1 : s;
}

/* ... inside gaps with work already queued (causes stream_wait and kernel_wait,
 * DEFINITIONS "Idle gaps and their causes", rule 0b) */
static double queued_share(const gpudiag_report *r)
{
    return host_share_in_gaps(r, r->queued_host_us);
}

/* ... inside gaps of cause sync: mostly the blocking sync call itself; the host
 * waited for the GPU (sync_stall's), it was not late to launch (rule 1) */
static double sync_host_share(const gpudiag_report *r)
{
    return host_share_in_gaps(r, r->sync_host_us);
}

static void rule_stream_wait(fbuilder *b)
{
    gpudiag_report *r = b->r;
    double s = idle_cause_share(r, GPUDIAG_IDLE_STREAM_WAIT);
    if (!(s >= GD_STREAM_WAIT_SHARE_MIN))
        return;
    double nd = (double)r->timeline.device_count, per = nd * (double)r->step_count;
    double graph = r->stream_wait_graph_us, event = r->stream_wait_event_us;
    double all = r->idle_cause_us[GPUDIAG_IDLE_STREAM_WAIT];
    /* the estimate covers the waits the trace explains (a graph launch, an event
     * wait); the rest waited for nothing the trace shows: no estimate, and the
     * verdict counts it as idle with no visible cause */
    double explained = (graph + event) / all * s;
    gpudiag_finding *f = rf_add(b, GD_F_stream_wait, sev_for_share(s), explained > 0 ? explained : NAN);
    gd_fb_ev(f, "stream_wait_share", s);
    gd_fb_ev(f, "stream_wait_us_per_step", all / per);
    gd_fb_ev(f, "graph_us_per_step", graph / per);
    gd_fb_ev(f, "event_us_per_step", event / per);
    const char *what = 2 * graph >= all   ? "mostly behind CUDA/HIP graph launches (a dependency inside the graph)"
                       : 2 * event >= all ? (r->is_amd ? "mostly after hipStreamWaitEvent calls (a wait on another stream's event)"
                                                       : "mostly after cudaStreamWaitEvent calls (a wait on another stream's event)")
                                          : "on events, other streams or work outside the trace";
    gd_fb_text(b, f,
         gd_format("The GPU sits idle %.1f%% of each step with work already queued: its streams wait, %s, not "
                   "on the CPU",
                   100.0 * s, what),
         gd_format("The next op had been launched before the GPU went idle, so faster launching will not help. "
                   "Look at the gaps of cause stream_wait under IDLE GAPS: a stream waiting on an event from "
                   "another stream (cudaStreamWaitEvent, torch.cuda.Stream.wait_stream / wait_event, "
                   "record_stream) serialises work that could overlap: record the event right after the work it "
                   "guards, and move independent work to the waiting stream. Inside a CUDA graph, look for host "
                   "nodes, event-wait nodes and copies from pageable memory. A wait for another process or an "
                   "uninstrumented library does not show in the trace."));
}

/* The title and recommendation a rule picks, kept until the rule adds to them (gd_fb_text then). */
static void host_text(char **title, char **rec, char *t, char *r)
{
    *title = t;
    *rec = r;
}

static void rule_host_overhead(fbuilder *b)
{
    gpudiag_report *r = b->r;
    /* start-up and the host side of collectives are reported on their own; idle
     * with work queued is not the host's (a host verdict needs an empty queue) */
    double startup = startup_share(r) + collective_host_share(r) + queued_share(r) + sync_host_share(r);
    double host = role_share(r, GPUDIAG_ROLE_RUNTIME) + role_share(r, GPUDIAG_ROLE_CPU_EXEC) - startup;
    if (isnan(host) || host < GD_HOST_SHARE_MIN || isnan(r->gpu_utilization) || r->gpu_utilization >= 0.8)
        return;
    int short_kernels = (!isnan(r->short_kernel_share) && r->short_kernel_share >= GD_SHORT_KERNEL_SHARE_MIN) ||
                        (!isnan(r->median_kernel_us) && r->median_kernel_us <= GD_SHORT_KERNEL_MEDIAN_US);
    int queue_runs_dry = !isnan(r->launch_delay_median_us) && r->launch_delay_median_us > 100.0;
    double idle = 1.0 - r->gpu_utilization - startup;
    double gain = host < idle ? host : idle;
    if (gain < 0)
        gain = 0;
    /* launch-bound (issue #3's host_launch_bound): many short kernels and no deep queue */
    gd_finding_id id = short_kernels && !queue_runs_dry ? GD_F_host_launch_bound : GD_F_host_overhead;
    gpudiag_finding *f = rf_add(b, id, sev_for_share(gain), gain);
    gd_fb_ev(f, "host_share", host);
    gd_fb_ev(f, "runtime_share", role_share(r, GPUDIAG_ROLE_RUNTIME));
    gd_fb_ev(f, "cpu_exec_share", role_share(r, GPUDIAG_ROLE_CPU_EXEC));
    gd_fb_ev(f, "short_kernel_share", r->short_kernel_share);
    gd_fb_ev(f, "median_kernel_us", r->median_kernel_us);
    gd_fb_ev(f, "gpu_utilization", r->gpu_utilization);
    gd_fb_ev(f, "launch_delay_median_us", r->launch_delay_median_us);
    if (startup_share(r) > 0)
        gd_fb_ev(f, "startup_share_excluded", startup_share(r));
    if (collective_host_share(r) > 0)
        gd_fb_ev(f, "collective_host_share_excluded", collective_host_share(r));
    if (queued_share(r) > 0)
        gd_fb_ev(f, "queued_share_excluded", queued_share(r));
    if (sync_host_share(r) > 0)
        gd_fb_ev(f, "sync_share_excluded", sync_host_share(r));
    if (r->graph_launches > 0)
        gd_fb_ev(f, "graph_launches", (double)r->graph_launches); /* graphs already in use: no graph advice */
    if (r->graph_captures > 0)
        gd_fb_ev(f, "graph_captures", (double)r->graph_captures); /* graphs being captured: no graph advice */
    /* optimizer and DDP advice only where the trace shows training: an Optimizer.step was recorded
     * (inference and non-PyTorch traces have none; new-user trial of issue 19) */
    int training = (!isnan(r->optimizer_time_us) && r->optimizer_time_us > 0) || r->optimizer_kernels > 0;
    const char *fused = training ? "use fused/foreach optimizers (torch.optim.AdamW(..., fused=True)), " : "";
    if (r->compiled_calls > 0)
        gd_fb_ev(f, "compiled_calls", (double)r->compiled_calls); /* compiled already: advice says so */
    char *title = NULL, *rec = NULL;
    if (queue_runs_dry)
        host_text(&title, &rec,
             gd_format("The GPU runs out of queued work at points in the step: framework ops and launch calls "
                       "own %.1f%% of the step while no kernel runs, although the CPU is usually %.1f ms ahead "
                       "(median launch delay)",
                       100.0 * host, r->launch_delay_median_us / 1000.0),
             gd_format("The idle time sits in a few places, not between every pair of kernels: look at the "
                       "largest gaps under IDLE GAPS (often the first, warm-up step, the optimizer step, or a "
                       "host-side computation between phases). Move that host work off the critical path or "
                       "overlap it (a side CUDA stream, prefetching the next batch to the GPU), %suse "
                       "torch.compile to cut the Python between kernels.",
                       training ? "use fused/foreach optimizers (fused=True), and " : "and "));
    else if (short_kernels && r->graph_launches > 0)
        host_text(&title, &rec,
             gd_format("The GPU waits for kernel launches: the CPU is in launch calls or framework ops for "
                       "%.1f%% of the step while no kernel runs, and the median kernel lasts only %.1f us",
                       100.0 * host, r->median_kernel_us),
             gd_format("The step already replays %s graphs (%llu graph launch%s): the launches left are the "
                       "kernels outside them. Capture those regions too if their shapes are static, fuse elementwise "
                       "chains (torch.compile), %sand raise the batch size so each kernel does more work. Remove "
                       "per-step Python work and logging from the hot loop.",
                       r->is_amd ? "HIP" : "CUDA", (unsigned long long)r->graph_launches,
                       r->graph_launches == 1 ? "" : "es", fused));
    else if (short_kernels && r->graph_captures > 0)
        host_text(&title, &rec,
             gd_format("The GPU waits for kernel launches: the CPU is in launch calls or framework ops for "
                       "%.1f%% of the step while no kernel runs, and the median kernel lasts only %.1f us",
                       100.0 * host, r->median_kernel_us),
             gd_format("The trace captures %s graphs (%llu stream capture%s): launches inside a capture are "
                       "recorded, not run, and are left out. For the launches outside them: fuse elementwise "
                       "chains (torch.compile) and raise the batch size so each kernel does more work; profile "
                       "the steps that replay the graphs to judge steady state.",
                       r->is_amd ? "HIP" : "CUDA", (unsigned long long)r->graph_captures,
                       r->graph_captures == 1 ? "" : "s"));
    else if (short_kernels)
        host_text(&title, &rec,
             gd_format("The GPU waits for kernel launches: the CPU is in launch calls or framework ops for "
                       "%.1f%% of the step while no kernel runs, and the median kernel lasts only %.1f us",
                       100.0 * host, r->median_kernel_us),
             gd_format("Launch fewer, larger kernels: torch.compile(model) (mode=\"reduce-overhead\" adds %s"
                       "), capture the static part of the step with torch.cuda.graphs, %sfuse elementwise chains, "
                       "and raise the batch size so each kernel does more work. Remove per-step Python work and "
                       "logging from the hot loop.",
                       r->is_amd ? "HIP graphs" : "CUDA Graphs", fused));
    else
        host_text(&title, &rec,
             gd_format("The GPU waits for the CPU: framework ops and launch calls run for %.1f%% of the step "
                       "while no kernel runs",
                       100.0 * host),
             gd_format("Find the CPU work between kernels (profile with with_stack=True, or py-spy) and move it "
                       "off the critical path: avoid .item()/.cpu()/print of GPU tensors inside the step, do "
                       "metrics and logging every N steps, move CPU-side tensor work to the GPU, and use "
                       "torch.compile to cut Python overhead.%s",
                       training && r->input.world_size > 1 ? " With DDP, set gradient_as_bucket_view=True and "
                                                             "static_graph=True when the graph is static."
                                                           : ""));
    if (r->compiled_calls > 0 && rec) {
        /* the model runs torch.compile'd code already (second new-user trial: xDiT told to compile) */
        char *more = gd_format("%s The trace already runs torch.compile'd code (%llu calls of compiled "
                               "regions): the host time left is around or inside them, so look at graph breaks "
                               "(TORCH_LOGS=graph_breaks) and the Python wrapper of each compiled call, and try "
                               "mode=\"reduce-overhead\" (%s inside the compiled regions) or max-autotune.",
                               rec, (unsigned long long)r->compiled_calls, r->is_amd ? "HIP graphs" : "CUDA Graphs");
        free(rec);
        rec = more;
    }
    double idle_host = idle_cause_share(r, GPUDIAG_IDLE_HOST_LAUNCH);
    if (rec && !isnan(idle_host) && idle_host - host >= 0.10) {
        /* the idle-gap table counts a gap as host_launch when any host activity overlaps it; this estimate
         * counts TBP's host roles only (second new-user trial: 83% there against 55% here, unexplained) */
        gd_fb_ev(f, "host_launch_idle_share", idle_host);
        char *more = gd_format("%s (IDLE GAPS puts %.1f%% of the step under host_launch: it counts every gap with "
                               "any host activity, Python outside framework ops included, the breakdown's 'other' "
                               "%.1f%%; this estimate counts launch calls and framework ops only.)",
                               rec, 100.0 * idle_host, 100.0 * role_share(r, GPUDIAG_ROLE_OTHER));
        free(rec);
        rec = more;
    }
    gd_fb_text(b, f, title, rec);
}

/* Groups of collective kinds that pick the communication advice; all-gather and
 * reduce-scatter together are FSDP / ZeRO-3 sharding. */
enum { G_ALL_REDUCE, G_SHARDED, G_ALL_TO_ALL, G_P2P, G_BROADCAST, G_UNKNOWN, G_NONE };

/* The group with >= GD_COMM_KIND_DOMINANT of the communication kernel time
 * (the largest; ties: the first), G_NONE when none. */
static int comm_dominant(const double gs[G_NONE])
{
    int g = G_NONE;
    for (int k = 0; k < G_NONE; k++)
        if (gs[k] >= GD_COMM_KIND_DOMINANT && (g == G_NONE || gs[k] > gs[g]))
            g = k;
    return g;
}

static void rule_communication(fbuilder *b)
{
    gpudiag_report *r = b->r;
    double s = r->comm_share;
    /* TBP's "> 10 % communication", or communication that compute barely hides */
    int poorly_overlapped = !isnan(r->comm_overlap) && r->comm_overlap < GD_COMM_OVERLAP_MIN && s > GD_COMM_SHARE_LOW;
    if (isnan(s) || !(s > GD_COMM_SHARE_MIN || poorly_overlapped))
        return;
    gpudiag_finding *f = rf_add(b, GD_F_communication_bound, sev_for_share(s), s);
    gd_fb_ev(f, "comm_share", s);
    gd_fb_ev(f, "comm_us_per_step", r->avg_role_us[GPUDIAG_ROLE_COMMUNICATION]);
    gd_fb_ev(f, "comm_overlap", r->comm_overlap);
    gd_fb_ev(f, "step_time_us", r->avg_step_us);
    /* the dominant kind of collective picks the advice (DEFINITIONS "Communication", collective kinds):
     * all-gather and reduce-scatter together are FSDP / ZeRO-3 sharding */
    double tot = 0;
    for (int k = 0; k < GPUDIAG_COMM_KIND_COUNT; k++)
        tot += r->comm_kind_us[k];
    int g = G_NONE;
    double gs[G_NONE] = {0};
    if (tot > 0) {
        static const char *const keys[GPUDIAG_COMM_KIND_COUNT] = {
#define GPUDIAG_COMM_KIND_ROW(e, name, share_key) share_key,
#include "gpudiag/comm_kinds.def"
#undef GPUDIAG_COMM_KIND_ROW
        };
        for (int k = 0; k < GPUDIAG_COMM_KIND_COUNT; k++)
            gd_fb_ev(f, keys[k], r->comm_kind_us[k] / tot);
        gs[G_ALL_REDUCE] = r->comm_kind_us[GPUDIAG_COMM_ALL_REDUCE] / tot;
        gs[G_SHARDED] = (r->comm_kind_us[GPUDIAG_COMM_ALL_GATHER] + r->comm_kind_us[GPUDIAG_COMM_REDUCE_SCATTER]) / tot;
        gs[G_ALL_TO_ALL] = r->comm_kind_us[GPUDIAG_COMM_ALL_TO_ALL] / tot;
        gs[G_P2P] = r->comm_kind_us[GPUDIAG_COMM_SEND_RECV] / tot;
        gs[G_BROADCAST] = r->comm_kind_us[GPUDIAG_COMM_BROADCAST] / tot;
        gs[G_UNKNOWN] = r->comm_kind_us[GPUDIAG_COMM_UNKNOWN] / tot;
        g = comm_dominant(gs);
    }
    static const char *const what[G_NONE] = {
        "all-reduce", "all-gather/reduce-scatter (sharded data parallel: FSDP, ZeRO-3)",
        "all-to-all (embedding sharding, mixture-of-experts)", "point-to-point send/recv (pipeline parallelism)",
        "broadcast", "a collective this trace cannot name (SendRecv/Generic kernels without their launching call)"};
    /* no collective kernels, MPI calls on the host: the GPU waits for MPI (an HPC code) */
    int mpi = !(tot > 0) && r->input.nsys.mpi_calls > 0;
    if (mpi)
        gd_fb_ev(f, "mpi_calls", (double)r->input.nsys.mpi_calls);
    char *title = mpi ? gd_format("Communication not hidden behind compute takes %.1f%% of each step: the GPU waits "
                                  "while the host is in MPI calls",
                                  100.0 * s)
                : g == G_NONE ? gd_format("Communication not hidden behind compute takes %.1f%% of each step", 100.0 * s)
                              : gd_format("Communication not hidden behind compute takes %.1f%% of each step; %s is "
                                          "%.0f%% of the communication kernel time",
                                          100.0 * s, what[g], 100.0 * gs[g]);
    char *advice;
    switch (mpi ? G_NONE + 1 : g) {
    case G_NONE + 1:
        advice = gd_format(
            "Overlap MPI with GPU work: post MPI_Irecv/MPI_Isend as soon as the data exists and compute what does "
            "not need it (the interior of the domain) while the messages travel, waiting (MPI_Wait) only right "
            "before the data is used; use CUDA-aware MPI (GPUDirect RDMA) so device buffers are sent without "
            "host staging copies; send fewer, larger messages; check the network and the GPU-NIC affinity.");
        break;
    case G_SHARDED:
        advice = gd_format(
            "Hide the all-gathers behind compute: FSDP(forward_prefetch=True, backward_prefetch="
            "BackwardPrefetch.BACKWARD_PRE) issues the next unit's all-gather early, and limit_all_gathers=True keeps "
            "that prefetch from stalling on memory; wrap larger units (fewer, larger all-gathers) or keep the last "
            "blocks unsharded (FSDP2 reshard_after_forward=False); with DeepSpeed ZeRO-3 raise "
            "allgather_bucket_size / reduce_bucket_size and set overlap_comm=True; shard within a node "
            "(HYBRID_SHARD) when the link between nodes is slow; check the interconnect with NCCL_DEBUG=INFO.");
        break;
    case G_P2P:
        advice = gd_format(
            "Shrink the pipeline bubble and hide the send/recv: raise the number of micro-batches per step (the "
            "bubble is about (stages - 1) / micro-batches of the step), use an interleaved 1F1B schedule (virtual "
            "stages: torch.distributed.pipelining ScheduleInterleaved1F1B, Megatron "
            "--num-layers-per-virtual-pipeline-stage), overlap p2p with compute (Megatron overlap_p2p_comm, "
            "batch_isend_irecv on a side stream), balance layers across stages, and check the link between "
            "stage ranks with NCCL_DEBUG=INFO.");
        break;
    case G_ALL_TO_ALL:
        advice = gd_format(
            "Overlap and shrink the all-to-all: pipeline it with compute (TorchRec TrainPipelineSparseDist "
            "distributes the next batch's features while this one trains; MoE: overlap token dispatch with expert "
            "compute), send fewer bytes (TorchRec quantised comms in fp16/bf16; a lower MoE capacity factor), "
            "balance the shards (TorchRec planner) so no rank sends much more than the others, and check the "
            "interconnect with NCCL_DEBUG=INFO.");
        break;
    case G_BROADCAST:
        advice = gd_format(
            "Broadcasts every step are usually DDP's buffer broadcast before each forward: pass "
            "broadcast_buffers=False when the buffers need no syncing (BatchNorm: SyncBatchNorm), and broadcast "
            "parameters once at start-up only; check the interconnect with NCCL_DEBUG=INFO.");
        break;
    case G_ALL_REDUCE:
        advice = gd_format(
            "Overlap and shrink the gradient all-reduce: tune DDP bucket_cap_mb, accumulate gradients over more "
            "micro-batches (model.no_sync()) so all-reduce runs less often, raise the per-GPU batch, compress "
            "gradients to bf16 with a DDP comm hook (or PowerSGD), and check the interconnect with NCCL_DEBUG=INFO "
            "(NVLink vs PCIe, IB vs TCP).");
        break;
    case G_UNKNOWN:
        advice = gd_format(
            "Overlap and shrink collectives: keep them behind compute (DDP buckets, FSDP/ZeRO prefetch), "
            "communicate less often (gradient accumulation with model.no_sync()) and check the interconnect with "
            "NCCL_DEBUG=INFO. Which collective runs cannot be told here: NCCL names its kernels SendRecv or "
            "Generic whatever they run; a PyTorch >= 2.1 profile records the collective's name with each kernel, "
            "and keeping the host ops (nccl:*, record_param_comms) in the trace names the rest.");
        break;
    default:
        advice = gd_format(
            "Overlap and shrink collectives: tune DDP bucket_cap_mb, accumulate gradients over more "
            "micro-batches (model.no_sync()) so all-reduce runs less often, raise the per-GPU batch, "
            "compress gradients to bf16 with a DDP comm hook, enable FSDP/ZeRO prefetch, and check the "
            "interconnect with NCCL_DEBUG=INFO (NVLink vs PCIe, IB vs TCP).");
        break;
    }
    /* one rank of several: a collective kernel runs until the last rank joins, so its time holds the wait
     * for the slowest rank (DEFINITIONS "Communication", what one rank's trace cannot tell) */
    if (!mpi && r->input.world_size > 1 && advice) {
        char *all = gd_format("%s This is one rank of %d: a collective kernel runs until every rank has joined, so "
                              "its time includes waiting for the slowest rank, and one rank's trace alone cannot tell "
                              "a slow link from a late rank: analyzing every rank's trace together (gpudiag analyze "
                              "DIR, its STRAGGLER line) shows whether a straggler holds the others.",
                              advice, r->input.world_size);
        if (all) {
            free(advice);
            advice = all;
        }
    }
    gd_fb_text(b, f, title, advice);
}

static void rule_memory_bound(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!(r->kernel_time_us > 0))
        return;
    double mem = (r->class_time_us[GPUDIAG_KCLASS_ELEMENTWISE] + r->class_time_us[GPUDIAG_KCLASS_NORM] +
                  r->class_time_us[GPUDIAG_KCLASS_REDUCTION]) /
                 r->kernel_time_us;
    double kshare = known_kernel_share(r);
    if (mem < GD_MEMBOUND_SHARE_MIN || isnan(kshare) || kshare < GD_GPU_BUSY_MIN)
        return;
    double gain = 0.5 * mem * kshare;
    gpudiag_finding *f = rf_add(b, GD_F_memory_bound_kernels, sev_for_share(gain), gain);
    gd_fb_ev(f, "memory_bound_kernel_share", mem);
    gd_fb_ev(f, "elementwise_share", r->class_time_us[GPUDIAG_KCLASS_ELEMENTWISE] / r->kernel_time_us);
    gd_fb_ev(f, "norm_share", r->class_time_us[GPUDIAG_KCLASS_NORM] / r->kernel_time_us);
    gd_fb_ev(f, "reduction_share", r->class_time_us[GPUDIAG_KCLASS_REDUCTION] / r->kernel_time_us);
    gd_fb_ev(f, "kernel_share_of_step", kshare);
    gd_fb_text(b, f,
         gd_format("Elementwise, normalisation and reduction kernels take %.1f%% of GPU time: the GPU mostly "
                   "moves memory rather than computes",
                   100.0 * mem),
         gd_format("Fuse them: torch.compile(model) generates fused Triton kernels for chains of pointwise "
                   "ops and norms; use fused implementations (apex/Transformer Engine LayerNorm and RMSNorm, "
                   "fused bias+activation, fused optimizers), channels_last for convolutional nets, and bf16 "
                   "to halve the bytes moved."));
}

static void rule_attention(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!(r->kernel_time_us > 0) || r->class_time_us[GPUDIAG_KCLASS_ATTENTION] > 0)
        return;
    double softmax = 0;
    int bmm = 0;
    for (size_t i = 0; i < r->kernel_stat_count; i++) {
        const gpudiag_kernel_stat *k = &r->kernel_stats[i];
        size_t n = strlen(k->name);
        if (gd_icontains(k->name, n, "softmax"))
            softmax += k->total_us;
        if (k->cls == GPUDIAG_KCLASS_GEMM &&
            (gd_icontains(k->name, n, "batched") || gd_icontains(k->name, n, "bmm") ||
             gd_icontains(k->name, n, "strided")))
            bmm = 1;
    }
    double share = softmax / r->kernel_time_us;
    if (!bmm || share < GD_SOFTMAX_SHARE_MIN)
        return;
    gpudiag_finding *f = rf_add(b, GD_F_attention_unfused, share >= 0.10 ? GPUDIAG_SEV_MEDIUM : GPUDIAG_SEV_LOW, NAN);
    gd_fb_ev(f, "softmax_kernel_share", share);
    gd_fb_text(b, f,
         gd_format("Attention runs as separate batched GEMMs and softmax kernels (softmax alone: %.1f%% of GPU "
                   "time), materialising the attention matrix",
                   100.0 * share),
         gd_format("Use a fused attention kernel: torch.nn.functional.scaled_dot_product_attention (FlashAttention "
                   "or memory-efficient backends), flash-attn, or xFormers; it never writes the seq x seq "
                   "matrix to memory, which saves both time and activation memory."));
}

static int has_finding(const gpudiag_report *r, const char *id)
{
    for (size_t i = 0; i < r->finding_count; i++)
        if (strcmp(r->findings[i].id, id) == 0)
            return 1;
    return 0;
}

static double pcie_link(const gpudiag_report *r);

/* Offload: large host<->device traffic in both directions every step
 * (ZeRO-Offload, FSDP CPU offload, activation offload, swapping). */
static void rule_offload(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!r->step_count || !(r->avg_step_us > 0))
        return;
    double n = (double)r->step_count;
    const gpudiag_transfer *h2d = &r->transfers[GPUDIAG_COPY_H2D], *d2h = &r->transfers[GPUDIAG_COPY_D2H];
    double h2d_step = h2d->bytes / n, d2h_step = d2h->bytes / n;
    double time_share = (h2d->time_us + d2h->time_us) / n / r->avg_step_us;
    if (h2d_step < GD_OFFLOAD_BYTES_MIN || d2h_step < GD_OFFLOAD_BYTES_MIN || time_share < GD_OFFLOAD_TIME_MIN)
        return;
    double exposed = role_share(r, GPUDIAG_ROLE_MEMCPY);
    gpudiag_finding *f = rf_add(b, GD_F_offload_transfer, sev_for_share(time_share), exposed);
    gd_fb_ev(f, "h2d_bytes_per_step", h2d_step);
    gd_fb_ev(f, "d2h_bytes_per_step", d2h_step);
    gd_fb_ev(f, "h2d_gb_per_s", h2d->time_us > 0 ? h2d->bytes / h2d->time_us / 1e3 : NAN);
    gd_fb_ev(f, "d2h_gb_per_s", d2h->time_us > 0 ? d2h->bytes / d2h->time_us / 1e3 : NAN);
    gd_fb_ev(f, "transfer_time_share", time_share);
    gd_fb_ev(f, "exposed_memcpy_share", exposed);
    gd_fb_ev(f, "pcie_link_gb_per_s", pcie_link(r)); /* per direction, of the identified GPU */
    gd_fb_text(b, f,
         gd_format("Every step moves %.0f MiB to the GPU and %.0f MiB back over PCIe (offload): the copies run for "
                   "%.1f%% of the step, %.1f%% with no kernel running",
                   h2d_step / 1048576.0, d2h_step / 1048576.0, 100.0 * time_share, 100.0 * exposed),
         gd_format("The step is paying for memory savings with bandwidth. If the model fits without offload "
                   "(see `gpudiag plan`), turn it off (ZeRO offload_optimizer/offload_param, FSDP "
                   "CPUOffload, activation offloading); otherwise overlap it: pinned buffers, non_blocking "
                   "copies on a side stream, prefetch the next layer's parameters, or prefer activation "
                   "checkpointing (costs ~1/3 more compute, no PCIe) and ZeRO sharding across GPUs (uses "
                   "NVLink) over CPU offload."));
}

/* GEMMs too small to fill the GPU: fewer thread blocks than SMs. */
static void rule_small_gemms(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!r->step_count || !(r->avg_step_us > 0) || !(r->kernel_time_us > 0) || !(r->gemm_blocks_known_us > 0))
        return;
    double gemm_share = r->class_time_us[GPUDIAG_KCLASS_GEMM] / r->kernel_time_us;
    double under = r->gemm_underfilled_us / r->gemm_blocks_known_us;
    if (gemm_share < GD_GEMM_SHARE_MIN || under < GD_GEMM_UNDERFILLED_MIN)
        return;
    double gain = r->gemm_sm_idle_us / ((double)r->step_count * r->avg_step_us);
    gpudiag_finding *f = rf_add(b, GD_F_small_gemms, sev_for_share(gain), gain);
    gd_fb_ev(f, "gemm_kernel_share", gemm_share);
    gd_fb_ev(f, "underfilled_gemm_share", under);
    gd_fb_ev(f, "gemm_sm_idle_us_per_step", r->gemm_sm_idle_us / (double)r->step_count);
    gd_fb_ev(f, "gemm_calls_per_step", (double)r->gemm_calls / (double)r->step_count);
    gd_fb_text(b, f,
         /* AMD's terms on a ROCm trace: workgroups and compute units */
         gd_format("%.0f%% of GEMM time runs in kernels with fewer %s than the GPU has %s: the "
                   "matrices are too small to fill the GPU (%.1f%% of the step with %s left idle)",
                   100.0 * under, r->is_amd ? "workgroups" : "thread blocks", r->is_amd ? "CUs" : "SMs",
                   100.0 * gain, r->is_amd ? "CUs" : "SMs"),
         gd_format("Give each GEMM more rows: raise the micro-batch (per-GPU batch or tokens per micro-batch) "
                   "and use fewer gradient-accumulation steps for the same global batch (keep accumulation at "
                   "8-16 steps or fewer), pack short sequences, and merge small matmuls (batched bmm, grouped "
                   "GEMM, fused QKV projections). Hidden sizes that are multiples of 64 (of 8 at least) tile "
                   "better."));
}

static void rule_memcpy(fbuilder *b)
{
    gpudiag_report *r = b->r;
    double s = role_share(r, GPUDIAG_ROLE_MEMCPY) + role_share(r, GPUDIAG_ROLE_MEMSET);
    /* offload_transfer is the more specific diagnosis of the same copy time */
    if (isnan(s) || !(s > GD_MEMCPY_SHARE_MIN) || has_finding(r, "offload_transfer"))
        return;
    gpudiag_finding *f = rf_add(b, GD_F_memcpy_heavy, sev_for_share(s), s);
    double copy_us = 0;
    for (int k = 0; k < GPUDIAG_COPY_KIND_COUNT; k++)
        copy_us += r->transfers[k].time_us;
    double d2d = copy_us > 0 ? r->transfers[GPUDIAG_COPY_D2D].time_us / copy_us : NAN;
    gd_fb_ev(f, "memcpy_share", role_share(r, GPUDIAG_ROLE_MEMCPY));
    gd_fb_ev(f, "memset_share", role_share(r, GPUDIAG_ROLE_MEMSET));
    gd_fb_ev(f, "h2d_copy_time_share", copy_us > 0 ? r->transfers[GPUDIAG_COPY_H2D].time_us / copy_us : NAN);
    gd_fb_ev(f, "d2h_copy_time_share", copy_us > 0 ? r->transfers[GPUDIAG_COPY_D2H].time_us / copy_us : NAN);
    gd_fb_ev(f, "d2d_copy_time_share", d2d);
    gd_fb_ev(f, "step_time_us", r->avg_step_us);
    gd_fb_ev(f, "pcie_link_gb_per_s", pcie_link(r));
    /* the fix depends on where the bytes go: device-to-device copies are the
     * framework's own (layout changes, concatenation), host copies are I/O */
    int device_copies = !isnan(d2d) && d2d > 0.5;
    gd_fb_text(b, f, gd_format("Memory copies and memsets not hidden behind kernels take %.1f%% of each step%s", 100.0 * s,
                         device_copies ? ", mostly device-to-device" : ""),
         device_copies
             ? gd_format("Most copy time is device-to-device: tensors are being copied or re-laid out on the GPU. "
                         "Look for .contiguous(), .clone(), .to(dtype) and torch.cat/stack in the step (the "
                         "largest gaps and top kernels say where), keep one memory layout (channels_last end to "
                         "end), use in-place or out= variants, preallocate buffers instead of concatenating, and "
                         "let torch.compile fuse the copies away.")
             : gd_format("Keep data on the GPU: pin host memory (pin_memory=True) and copy with non_blocking=True "
                         "so transfers overlap compute, avoid .cpu()/.item()/.numpy() inside the step, create "
                         "tensors directly on the device (torch.zeros(..., device='cuda')), and batch many small "
                         "copies into one."));
}

static void rule_pageable(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!r->step_count || !(r->avg_step_us > 0) || r->pageable.count == 0)
        return;
    double per_step = r->pageable.time_us / (double)r->step_count;
    double s = per_step / r->avg_step_us;
    if (s < GD_PAGEABLE_SHARE_MIN)
        return;
    double gain = s * 0.5;
    gpudiag_finding *f = rf_add(b, GD_F_pageable_memcpy, sev_for_share(gain), gain);
    gd_fb_ev(f, "pageable_copy_share", s);
    gd_fb_ev(f, "pageable_copies_per_step", (double)r->pageable.count / (double)r->step_count);
    gd_fb_ev(f, "pageable_bytes_per_step", r->pageable.bytes / (double)r->step_count);
    gd_fb_ev(f, "pageable_copy_us_per_step", per_step);
    gd_fb_text(b, f,
         gd_format("Copies from or to pageable host memory take %.1f%% of each step (%.1f copies per step); they are "
                   "staged through a bounce buffer and block the host",
                   100.0 * s, (double)r->pageable.count / (double)r->step_count),
         gd_format("Use pinned memory: DataLoader(pin_memory=True) and tensor.to(device, non_blocking=True) for "
                   "inputs; for results copied back, copy into a preallocated pinned tensor "
                   "(torch.empty(..., pin_memory=True).copy_(x, non_blocking=True)) and wait on a CUDA event only "
                   "when the value is needed. Pinned copies run at full PCIe speed and overlap compute."));
}

static void rule_optimizer(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!r->step_count || !(r->avg_step_us > 0) || isnan(r->optimizer_time_us))
        return;
    double per_step_kernels = (double)r->optimizer_kernels / (double)r->step_count;
    double share = r->optimizer_time_us / (double)r->step_count / r->avg_step_us;
    double fused = r->optimizer_kernels ? (double)r->optimizer_fused_kernels / (double)r->optimizer_kernels : 0;
    if (per_step_kernels < GD_OPT_KERNELS_PER_STEP_MIN || share < GD_OPT_SHARE_MIN || fused >= 0.5)
        return;
    double gain = share * 0.5;
    gpudiag_finding *f = rf_add(b, GD_F_optimizer_unfused, sev_for_share(gain), gain);
    gd_fb_ev(f, "optimizer_share", share);
    gd_fb_ev(f, "optimizer_kernels_per_step", per_step_kernels);
    gd_fb_ev(f, "optimizer_kernel_time_us_per_step", r->optimizer_kernel_time_us / (double)r->step_count);
    gd_fb_ev(f, "fused_kernel_share", fused);
    gd_fb_text(b, f,
         gd_format("The optimizer step launches %.0f small kernels per step, one parameter at a time, and takes "
                   "%.1f%% of the step",
                   per_step_kernels, 100.0 * share),
         gd_format("Use a multi-tensor optimizer: torch.optim.SGD/Adam/AdamW(..., foreach=True) (the default "
                   "since PyTorch 2.0 on CUDA) or fused=True (Adam/AdamW/SGD), or apex's FusedAdam/FusedLAMB; "
                   "with DDP/FSDP keep gradients in few flat buckets. This replaces hundreds of launches with a "
                   "few multi_tensor_apply kernels."));
}

static void rule_sync(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!r->step_count || !(r->avg_step_us > 0))
        return;
    double s = r->idle_cause_us[GPUDIAG_IDLE_SYNC] / (double)r->step_count / r->avg_step_us;
    if (!(s > GD_SYNC_SHARE_MIN))
        return;
    gpudiag_finding *f = rf_add(b, GD_F_sync_stall, sev_for_share(s), s);
    gd_fb_ev(f, "sync_idle_share", s);
    gd_fb_ev(f, "sync_calls_per_step", (double)r->sync_calls / (double)r->step_count);
    gd_fb_ev(f, "sync_time_us_per_step", r->sync_time_us / (double)r->step_count);
    gd_fb_ev(f, "step_time_us", r->avg_step_us);
    gd_fb_text(b, f,
         gd_format("Host synchronisation drains the GPU: %.1f%% of each step is GPU idle right after a sync call "
                   "(%.1f calls per step)",
                   100.0 * s, (double)r->sync_calls / (double)r->step_count),
         gd_format("Every .item(), .cpu(), .numpy(), print(tensor), torch.cuda.synchronize() or synchronous "
                   "cudaMemcpy makes the CPU wait for the GPU, after which the GPU waits for the CPU to launch "
                   "again. Keep losses and metrics on the GPU and read them every N steps, copy to the host "
                   "with non_blocking=True into pinned memory, avoid data-dependent Python control flow on "
                   "GPU values, and remove debugging synchronize calls (set CUDA_LAUNCH_BLOCKING=0)."));
}

static void rule_tensor_cores(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (isnan(r->tensor_core_share) || r->tensor_core_share > GD_TC_SHARE_MAX || !(r->kernel_time_us > 0))
        return;
    int major = max_compute_major(r);
    unsigned tcd = tc_dtypes(r); /* include/gpudiag/specs.h: none below Volta, none known on AMD here */
    if (!tcd)
        return;
    double elig = r->class_time_us[GPUDIAG_KCLASS_GEMM] + r->class_time_us[GPUDIAG_KCLASS_CONV] +
                  r->class_time_us[GPUDIAG_KCLASS_ATTENTION];
    double elig_share = elig / r->kernel_time_us;
    if (elig_share < GD_TC_ELIGIBLE_SHARE_MIN)
        return;
    double kshare = known_kernel_share(r);
    double gain = isnan(kshare) ? NAN : kshare * elig_share * (1.0 - 1.0 / GD_TC_SPEEDUP_ASSUMED);
    gpudiag_finding *f = rf_add(b, GD_F_no_tensor_cores, isnan(gain) ? GPUDIAG_SEV_MEDIUM : sev_for_share(gain), gain);
    gd_fb_ev(f, "tensor_core_share", r->tensor_core_share);
    gd_fb_ev(f, "eligible_kernel_share", elig_share);
    gd_fb_ev(f, "kernel_share_of_step", kshare);
    gd_fb_ev(f, "compute_capability_major", (double)major);
    gd_fb_text(b, f,
         gd_format("GEMM/convolution kernels (%.1f%% of GPU time) run without Tensor Cores", 100.0 * elig_share),
         (tcd & (1u << GPUDIAG_DTYPE_BF16))
             ? gd_format("Use mixed precision: torch.autocast(device_type='cuda', dtype=torch.bfloat16). At "
                         "least allow TF32 for fp32 matmuls and convolutions: "
                         "torch.backends.cuda.matmul.allow_tf32 = True (or "
                         "torch.set_float32_matmul_precision('high')) and torch.backends.cudnn.allow_tf32 = "
                         "True. Keep GEMM dimensions multiples of 8.")
             : gd_format("Use mixed precision: torch.autocast(device_type='cuda', dtype=torch.float16) with "
                         "torch.cuda.amp.GradScaler (this GPU has fp16 Tensor Cores but no bf16/TF32). Keep "
                         "GEMM dimensions and channel counts multiples of 8."));
}

/* ---- symptoms ---------------------------------------------------------- */

static void rule_low_util(fbuilder *b)
{
    gpudiag_report *r = b->r;
    int dev = -1;
    double u = min_device_util(r, &dev);
    if (isnan(u))
        return;
    /* steady state: the time outside start-up/compilation (FINDINGS `low_gpu_utilization`) */
    double ssh = startup_share(r);
    int startup = ssh >= GD_STARTUP_SHARE_MIN;
    double uss = !startup ? u : ssh < 1.0 ? fmin(1.0, u / (1.0 - ssh)) : NAN;
    int mostly_startup = startup && ssh >= 0.5;
    if (!mostly_startup && !(uss < GD_LOW_UTIL_MAX))
        return;
    gpudiag_severity sev = mostly_startup ? GPUDIAG_SEV_LOW : uss < 0.3 ? GPUDIAG_SEV_HIGH : GPUDIAG_SEV_MEDIUM;
    gpudiag_finding *f = rf_add(b, GD_F_low_gpu_utilization, sev, NAN);
    gd_fb_ev(f, "gpu_utilization", u);
    if (startup) {
        gd_fb_ev(f, "steady_state_utilization", uss);
        gd_fb_ev(f, "startup_share", ssh);
    }
    gd_fb_ev(f, "device", (double)dev);
    gd_fb_ev(f, "sm_efficiency", r->sm_efficiency);
    gd_fb_ev(f, "step_time_us", r->avg_step_us);
    int causes = 0;
    for (size_t i = 0; i + 1 < r->finding_count; i++) /* the rules before this one */
        causes |= r->findings[i].is_cause;
    if (mostly_startup) {
        gd_fb_text(b, f,
             gd_format("GPU %d runs kernels only %.2f%% of the time, but %.1f%% of it is start-up/compilation", dev,
                       100.0 * u, 100.0 * ssh),
             gd_format("Too little steady-state work was recorded to judge the utilization (%.1f%% outside "
                       "start-up). Profile steady-state steps: torch.profiler schedule(wait=1, warmup=1, active=3) "
                       "with prof.step() each iteration.",
                       isnan(uss) ? 0.0 : 100.0 * uss));
        return;
    }
    gd_fb_text(b, f,
         startup ? gd_format("GPU %d runs kernels only %.1f%% of the steady-state time (%.1f%% with start-up)", dev,
                             100.0 * uss, 100.0 * u)
                 : gd_format("GPU %d runs kernels only %.1f%% of the step time", dev, 100.0 * u),
         causes ? gd_format("This is the symptom; the causes ranked above say what the GPU waits for. If none "
                            "applies, the work per kernel is too small: raise the batch size (TensorBoard "
                            "profiler plugin's advice) or sequence length.")
                : gd_format("This is the symptom, and the trace shows no cause for it: look at the largest gaps "
                            "under IDLE GAPS (start-up, compilation or host work before the first kernel often "
                            "sits there). If the GPU is idle throughout, the work per kernel is too small: raise "
                            "the batch size (TensorBoard profiler plugin's advice) or sequence length."));
}

/* The host link rate of the first identified device, NaN if none. */
static double pcie_link(const gpudiag_report *r)
{
    for (size_t i = 0; i < r->device_count; i++)
        if (r->devices[i].pcie_gbs_per_dir > 0)
            return r->devices[i].pcie_gbs_per_dir;
    return NAN;
}

/* MFU below what tuned training reaches: the symptom, with the gap split by
 * the causes found (their est_gain are shares of the step). */
static void rule_low_mfu(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (isnan(r->mfu) || !(r->mfu < GD_LOW_MFU_MAX))
        return;
    gpudiag_finding *f = rf_add(b, GD_F_low_mfu, r->mfu < GD_LOW_MFU_HIGH ? GPUDIAG_SEV_HIGH : GPUDIAG_SEV_MEDIUM, NAN);
    gd_fb_ev(f, "mfu", r->mfu);
    gd_fb_ev(f, "hfu", r->hfu);
    gd_fb_ev(f, "achieved_tflops", r->achieved_tflops);
    gd_fb_ev(f, "peak_tflops", r->mfu_peak_tflops);
    gd_fb_ev(f, "gpu_utilization", r->gpu_utilization);
    gd_fb_ev(f, "step_time_us", r->avg_step_us);
    /* the causes found, by their share of the step */
    char causes[512] = "";
    size_t len = 0;
    double explained = 0;
    for (size_t i = 0; i + 1 < r->finding_count; i++) {
        const gpudiag_finding *c = &r->findings[i];
        if (!c->is_cause || isnan(c->est_gain) || c->est_gain < 0.01 || len + 64 >= sizeof causes)
            continue;
        len += (size_t)snprintf(causes + len, sizeof causes - len, "%s%s %.0f%%", len ? ", " : "", c->id,
                                100.0 * c->est_gain);
        explained += c->est_gain;
    }
    double idle = isnan(r->gpu_utilization) ? NAN : 1.0 - r->gpu_utilization;
    /* the roofline's memory-bound kernels, by time (docs/DEFINITIONS.md "Roofline of the kernels") */
    char mem[640] = "";
    size_t ml = 0;
    int nmem = 0;
    for (size_t i = 0; r->roofline && i < r->roofline->kernel_count && nmem < 3; i++) {
        const gpudiag_roofline_kernel *k = &r->roofline->kernels[i];
        if (!k->bound || strcmp(k->bound, "memory") != 0)
            continue;
        char nm[64];
        size_t n = gd_utf8_prefix(k->name, 60);
        snprintf(nm, sizeof nm, "%.*s%s", (int)n, k->name, k->name[n] ? "..." : "");
        ml += (size_t)snprintf(mem + ml, sizeof mem - ml, "%s%s (%.0f%% of kernel time, %.1f FLOP/B < ridge %.0f)",
                               nmem ? "; " : " Memory-bound on the roofline: ", nm,
                               r->kernel_time_us > 0 ? 100.0 * k->time_us / r->kernel_time_us : 0.0, k->intensity,
                               k->ridge);
        if (ml >= sizeof mem)
            ml = sizeof mem - 1;
        nmem++;
    }
    if (nmem)
        snprintf(mem + ml, sizeof mem - ml, " — fuse them or raise their FLOPs per byte (bigger GEMMs).");
    gd_fb_text(b, f,
         gd_format("MFU %.1f%%: %.1f of %.1f TFLOP/s per GPU do model work (tuned training reaches 35-55%%)",
                   100.0 * r->mfu, r->achieved_tflops, r->mfu_peak_tflops),
         len ? gd_format("The gap: the GPU idles %.0f%% of the step; the causes above account for up to %.0f%% of "
                         "it (%s). What remains is time in kernels running below peak: Tensor Core use, "
                         "memory-bound kernels, GEMM shapes (see KERNELS) — or a peak that does not match the "
                         "dtype (check --dtype / --peak-tflops).%s",
                         100.0 * idle, 100.0 * (explained > 1 ? 1 : explained), causes, mem)
             : gd_format("The GPU idles %.0f%% of the step with no stall cause found, so the gap is mostly in the "
                         "kernels: Tensor Core use (AMP bf16), fusion of memory-bound kernels (torch.compile), "
                         "bigger GEMMs (micro-batch), FlashAttention — or a peak that does not match the dtype "
                         "(check --dtype / --peak-tflops).%s",
                         100.0 * idle, mem));
}

/* ---- ranking and verdict ----------------------------------------------- */

static int finding_rank(const gpudiag_finding *f)
{
    /* causes with an estimate first, then causes without, then symptoms, then notes */
    if (f->is_cause)
        return isnan(f->est_gain) ? 1 : 0;
    const gd_finding_row *c = catalogue_row(f->id);
    return c && c->kind == NOTE ? 3 : 2;
}

static int cmp_finding(const void *pa, const void *pb)
{
    const gpudiag_finding *a = pa, *b = pb;
    int ra = finding_rank(a), rb = finding_rank(b);
    if (ra != rb)
        return ra - rb;
    if (ra == 0 && a->est_gain != b->est_gain)
        return a->est_gain > b->est_gain ? -1 : 1;
    if (a->severity != b->severity)
        return (int)b->severity - (int)a->severity;
    return strcmp(a->id, b->id);
}

/* The value of an evidence key, NaN if absent. */
static double evidence(const gpudiag_finding *f, const char *key)
{
    for (size_t i = 0; i < f->evidence_count; i++)
        if (strcmp(f->evidence[i].key, key) == 0)
            return f->evidence[i].value;
    return NAN;
}

static const char *fix_memcpy(const gpudiag_finding *f)
{
    return evidence(f, "d2d_copy_time_share") > 0.5 ? "avoid device-side copies: .contiguous(), torch.cat, .clone()"
                                                    : NULL;
}

static const char *fix_host_launch(const gpudiag_finding *f)
{
    return evidence(f, "graph_launches") > 0 || evidence(f, "graph_captures") > 0 ? "launch fewer, larger kernels outside the graphs: fusion, bigger batch"
                                             : NULL;
}

static const char *fix_communication(const gpudiag_finding *f)
{
    if (evidence(f, "mpi_calls") > 0)
        return "overlap MPI with GPU work: Isend/Irecv early, wait late, CUDA-aware MPI";
    /* the dominant kind, as rule_communication chose it (NaN evidence: none) */
    double gs[G_NONE] = {evidence(f, "all_reduce_share"),
                         evidence(f, "all_gather_share") + evidence(f, "reduce_scatter_share"),
                         evidence(f, "all_to_all_share"), evidence(f, "send_recv_share"),
                         evidence(f, "broadcast_share"), evidence(f, "unknown_comm_share")};
    switch (comm_dominant(gs)) {
    case G_SHARDED:
        return "prefetch FSDP all-gathers, limit_all_gathers, larger wrap units";
    case G_P2P:
        return "more micro-batches, an interleaved pipeline schedule, overlap send/recv with compute";
    case G_ALL_TO_ALL:
        return "overlap the all-to-all with compute, send fewer bytes, balance the shards";
    case G_BROADCAST:
        return "broadcast_buffers=False, broadcast parameters once";
    case G_UNKNOWN:
        return "overlap collectives with compute, communicate less often";
    default:
        return NULL; /* all-reduce: the catalogue's short_fix */
    }
}

/* The verdict's one-line fix for f: the catalogue's fix_fn, else its short_fix. */
static const char *short_fix(const gpudiag_finding *f)
{
    const gd_finding_row *c = catalogue_row(f->id);
    const char *fix = c && c->fix_fn ? c->fix_fn(f) : NULL;
    if (!fix && c)
        fix = c->short_fix;
    return fix ? fix : "see findings";
}

/* stream_wait time with no graph launch or stream-wait-event call to explain it, µs. */
static double stream_wait_unexplained_us(const gpudiag_report *r)
{
    double u = r->idle_cause_us[GPUDIAG_IDLE_STREAM_WAIT] - r->stream_wait_graph_us - r->stream_wait_event_us;
    return u > 0 ? u : 0;
}

/* Device-idle time with no visible cause — cause `other`, and `stream_wait` that
 * no graph launch or event wait explains — ÷ devices ÷ the steps span, 0 when
 * unknown (FINDINGS "Verdict"). */
static double other_idle_share(const gpudiag_report *r)
{
    size_t nd = r->timeline.device_count;
    if (!nd || !r->step_count || !(r->idle_step_us > 0))
        return 0;
    return (r->idle_cause_us[GPUDIAG_IDLE_OTHER] + stream_wait_unexplained_us(r)) / (double)nd /
           ((double)r->step_count * r->idle_step_us);
}

/* "24%" or "no estimate" for a finding's est_gain, into buf[cap]. */
static const char *gain_words(const gpudiag_finding *f, char *buf, size_t cap)
{
    if (isnan(f->est_gain))
        snprintf(buf, cap, "no estimate");
    else
        snprintf(buf, cap, "est. gain %.0f%%", 100.0 * f->est_gain);
    return buf;
}

/* verdict.finding and verdict.why (FINDINGS "Verdict"): the finding the verdict
 * rests on (`on`, NULL: none, or an id the rules did not add), and when that is
 * not the first-ranked finding, one sentence saying why the first does not lead. */
static void verdict_finding(fbuilder *b, const char *on)
{
    gpudiag_report *r = b->r;
    r->verdict_finding = NULL;
    r->verdict_why = NULL;
    for (size_t i = 0; on && i < r->finding_count; i++)
        if (strcmp(r->findings[i].id, on) == 0)
            r->verdict_finding = r->findings[i].id;
    if (!r->finding_count || (r->verdict_finding && strcmp(r->findings[0].id, r->verdict_finding) == 0))
        return;
    const gpudiag_finding *l = &r->findings[0];
    char g[32], rest[160];
    if (r->verdict_finding)
        snprintf(rest, sizeof rest, "the verdict rests on %s", r->verdict_finding);
    else
        snprintf(rest, sizeof rest, "the verdict rests on no finding (none explains what it reports)");
    char *why;
    if (l->is_cause && r->verdict_finding && strcmp(r->verdict_finding, "input_graph_replays_unrecorded") == 0)
        why = gd_format("%s ranks first (%s), but unrecorded graph replays may fill the idle time it is computed "
                        "from; %s",
                        l->id, gain_words(l, g, sizeof g), rest);
    else if (l->is_cause && l->bottleneck == GPUDIAG_BN_COMPUTE)
        why = gd_format("%s ranks first (%s) but makes the kernels faster rather than removing a stall, and a "
                        "verdict names a stall before a kernel speed-up; %s",
                        l->id, gain_words(l, g, sizeof g), rest);
    else if (l->is_cause && !r->has_gpu)
        why = gd_format("%s ranks first but the trace has no GPU activity to weigh it against; %s", l->id, rest);
    else if (l->is_cause && isnan(l->est_gain))
        why = gd_format("%s ranks first but has no gain estimate; %s", l->id, rest);
    else if (l->is_cause)
        why = gd_format("%s ranks first (%s) but is below the %.0f%% a cause needs to lead the verdict; %s", l->id,
                        gain_words(l, g, sizeof g), 100.0 * GD_VERDICT_GAIN_MIN, rest);
    else if (l->is_cause && l->est_gain >= GD_VERDICT_GAIN_MIN)
        why = gd_format("%s ranks first (%s); %s", l->id, gain_words(l, g, sizeof g), rest); /* not reached */
    else if (finding_rank(l) == 3)
        why = gd_format("%s ranks first but is a note on the input, not a cause; %s", l->id, rest);
    else
        why = gd_format("%s ranks first but is a symptom, not a cause; %s", l->id, rest);
    if (!why)
        b->oom = 1;
    r->verdict_why = why;
}

static void verdict(fbuilder *b, const gpudiag_trace *t)
{
    gpudiag_report *r = b->r;
    r->bottleneck = GPUDIAG_BN_UNKNOWN;
    const gpudiag_finding *top = NULL;
    for (size_t i = 0; i < r->finding_count; i++) {
        const gpudiag_finding *f = &r->findings[i];
        if (f->is_cause && f->bottleneck != GPUDIAG_BN_COMPUTE && !isnan(f->est_gain) &&
            f->est_gain >= GD_VERDICT_GAIN_MIN) {
            top = f;
            break;
        }
    }
    char *v = NULL;
    /* start-up / compilation left out of the estimates (DEFINITIONS "Start-up in the window") */
    char note[200] = "";
    double ssh = startup_share(r);
    double sus = startup_us(r, NULL);
    char sdur[32];
    snprintf(sdur, sizeof sdur, sus >= 1e6 ? "%.2f s" : "%.1f ms", sus >= 1e6 ? sus / 1e6 : sus / 1000.0);
    if (ssh >= GD_STARTUP_SHARE_MIN)
        snprintf(note, sizeof note, " %s of start-up/compilation (%.0f%% of the %s) excluded from the estimates.", sdur,
                 100.0 * ssh, r->steps_from_profiler ? "steps" : "window");
    const char *on = NULL; /* the id of the finding the verdict rests on */
    if (!r->has_gpu && r->input.truncated) {
        on = "cpu_only_trace";
        v = gd_format("The trace is cut off at byte %lld before any GPU activity was recorded: nothing to diagnose "
                      "on the GPU side; profile again and let the profiler finish writing.",
                      (long long)r->input.truncated_at);
    } else if (!r->has_gpu && r->graph_launches_unrecorded > 0) {
        on = "input_graph_replays_unrecorded";
        v = gd_format("The trace holds %llu graph launch%s but no GPU op: the kernels the graphs ran were not "
                      "recorded, so whether the GPU is busy or waiting cannot be told from it (%zu host step%s); "
                      "record graph kernels and profile again.",
                      (unsigned long long)r->graph_launches_unrecorded, r->graph_launches_unrecorded == 1 ? "" : "es",
                      r->step_count, r->step_count == 1 ? "" : "s");
    } else if (!r->has_gpu && r->input.profiler_ranges > 0) {
        on = "input_profiler_ranges";
        v = gd_format("The trace was recorded with the CUPTI range profiler: %llu kernel counter range%s but no "
                      "kernel times, so whether the GPU is busy or waiting cannot be told from it (%zu host step%s); "
                      "profile again without profiler_metrics.",
                      (unsigned long long)r->input.profiler_ranges, r->input.profiler_ranges == 1 ? "" : "s",
                      r->step_count, r->step_count == 1 ? "" : "s");
    } else if (!r->has_gpu && r->input.unanalysed_device_events > 0) {
        on = "input_unanalysed_device_events";
        v = gd_format("The device work in this trace is on an accelerator gpudiag does not analyse (%llu %s "
                      "event%s left out): no device-side diagnosis (%zu host step%s).",
                      (unsigned long long)r->input.unanalysed_device_events,
                      r->input.unanalysed_device_count == 1 ? r->input.unanalysed_device[0].category : "device",
                      r->input.unanalysed_device_events == 1 ? "" : "s", r->step_count, r->step_count == 1 ? "" : "s");
    } else if (!r->has_gpu) {
        on = "cpu_only_trace";
        if (!r->input.legacy_profiler && t->uncategorised_events > 0)
            v = gd_format("No GPU activity recognised, but %llu event%s carry no category: device work may be "
                          "among them, so nothing can be said about the GPU (%zu host step%s).",
                          (unsigned long long)t->uncategorised_events, t->uncategorised_events == 1 ? "" : "s", r->step_count,
                          r->step_count == 1 ? "" : "s");
        else
            v = gd_format("No GPU activity in this trace%s: nothing to diagnose on the GPU side (%zu host step%s).",
                          r->input.legacy_profiler
                              ? " (written by the legacy autograd profiler, which records CPU ops only)"
                              : "",
                          r->step_count, r->step_count == 1 ? "" : "s");
    } else if (capture_dominates(r)) {
        on = "input_graph_capture";
        v = gd_format("%.0f%% of the analysed time is stream capture (%llu capture%s): the trace records building "
                      "%s graphs, not running them, so no steady-state bottleneck can be told; profile the steps "
                      "that replay the graphs.",
                      100.0 * r->graph_capture_us / ((double)r->step_count * r->idle_step_us),
                      (unsigned long long)r->graph_captures, r->graph_captures == 1 ? "" : "s",
                      r->is_amd ? "HIP" : "CUDA");
    } else if (graph_hides_idle(r)) {
        on = "input_graph_replays_unrecorded";
        v = gd_format("%llu of %llu graph launches have no GPU op in the trace, and the idle gaps that follow them "
                      "are %.0f%% of the step, most of the idle time: the GPU may have run the unrecorded replays "
                      "there, so utilization (%.0f%%) is a lower bound and no stall can be named from this trace; "
                      "record graph kernels and profile again.",
                      (unsigned long long)r->graph_launches_unrecorded, (unsigned long long)r->graph_launches,
                      100.0 * graph_hidden_share(r), 100.0 * r->gpu_utilization);
    } else if (top) {
        on = top->id;
        r->bottleneck = top->bottleneck;
        v = gd_format("%s; could save ~%.0f%% of step time (%s)%s%s", top->title, 100.0 * top->est_gain,
                      short_fix(top),
                      r->steps_from_profiler ? "."
                                             : r->input.step_range_missing
                                                   ? ". The --step-range name matched nothing: the window is the "
                                                     "whole capture, so treat the estimate with care."
                                                   : ". No step markers: the window is the whole capture, so treat "
                                                     "the estimate with care.",
                      note);
    } else if (!isnan(r->gpu_utilization) && r->gpu_utilization >= GD_LOW_UTIL_MAX &&
               other_idle_share(r) >= GD_UNEXPLAINED_IDLE_MAX) {
        v = gd_format("The GPU is idle %.0f%% of the step, and %.0f%% of the step is idle time with no visible cause "
                      "in the trace (no host activity, sync, DataLoader, communication or copy during it%s). Look at "
                      "the largest gaps under IDLE GAPS; work the profiler did not record (another process, an "
                      "uninstrumented library) may sit there.%s",
                      100.0 * (1.0 - r->gpu_utilization), 100.0 * other_idle_share(r),
                      stream_wait_unexplained_us(r) > 0 ? "; or work already queued that waited for nothing the trace "
                                                          "shows"
                                                        : "",
                      note);
    } else if (!isnan(r->gpu_utilization) && r->gpu_utilization >= GD_LOW_UTIL_MAX) {
        r->bottleneck = GPUDIAG_BN_COMPUTE;
        const gpudiag_finding *tc = NULL;
        for (size_t i = 0; i < r->finding_count; i++)
            if (strcmp(r->findings[i].id, "no_tensor_cores") == 0)
                tc = &r->findings[i];
        unsigned tcd = tc_dtypes(r);
        if (tc)
            on = tc->id;
        else if (r->finding_count && r->findings[0].is_cause && r->findings[0].bottleneck == GPUDIAG_BN_COMPUTE)
            on = r->findings[0].id; /* "speed-ups now come from the kernels": the first says how */
        if (tc)
            v = gd_format("The GPU is busy %.0f%% of the step, but its matrix work avoids Tensor Cores "
                          "(%s).",
                          100.0 * r->gpu_utilization,
                          (tcd & (1u << GPUDIAG_DTYPE_BF16)) ? "enable AMP with bf16, or TF32"
                                                             : "enable AMP with fp16 and GradScaler");
        else if (idle_cause_share(r, GPUDIAG_IDLE_STREAM_WAIT) >= GD_STREAM_WAIT_SHARE_MIN)
            /* stream_wait with no estimate: queued work waited for nothing the trace shows */
            v = gd_format("The GPU is busy %.0f%% of the step; no stall the trace explains, though for %.0f%% of "
                          "the step it sits idle with work already queued (stream_wait). Speed-ups now come from "
                          "the kernels themselves (precision, fusion, larger batches) and from finding what those "
                          "queued ops wait for.",
                          100.0 * r->gpu_utilization, 100.0 * idle_cause_share(r, GPUDIAG_IDLE_STREAM_WAIT));
        else
            v = gd_format("The GPU is busy %.0f%% of the step; no stall found in the trace. Speed-ups "
                          "now come from the kernels themselves (precision, fusion, larger batches).",
                          100.0 * r->gpu_utilization);
    } else if (!isnan(r->gpu_utilization) && ssh >= 0.5 * (1.0 - r->gpu_utilization)) {
        on = "startup_in_window";
        v = gd_format("The GPU is idle %.0f%% of the %s, mostly start-up/compilation: %s before the first GPU "
                      "op, after the last, or while compiling or warming up. Too little steady-state work was "
                      "recorded to judge; profile steady-state steps (torch.profiler schedule with wait and "
                      "warmup).%s",
                      100.0 * (1.0 - r->gpu_utilization), r->steps_from_profiler ? "step" : "window", sdur,
                      r->step_count <= 1 ? " With one step, host work that every call repeats before its first "
                                           "kernel (input decoding, preprocessing, tokenisation) cannot be told "
                                           "from start-up: if the job does it per call, it is a data-pipeline "
                                           "stall, not start-up."
                                         : "");
    } else if (!isnan(r->gpu_utilization)) {
        v = gd_format("The GPU is idle %.0f%% of the step, but the trace holds no evidence of why "
                      "(no DataLoader, launch, communication or copy pattern stands out).%s",
                      100.0 * (1.0 - r->gpu_utilization), note);
    } else {
        v = gd_format("Not enough GPU activity inside the steps to judge.");
    }
    if (!v)
        b->oom = 1;
    r->verdict = v;
    verdict_finding(b, on);
}

/* The rules over the report's numbers, in the order they run (it matters: a
 * rule may read an earlier rule's finding, has_finding).  GPU: only when the
 * trace has device activity; ANY: always. */
enum { ANY, GPU };
static const struct {
    void (*fn)(fbuilder *b);
    int when;
} passes[] = {
    {rule_startup, GPU},         {rule_dataloader, ANY},   {rule_host_overhead, GPU}, {rule_communication, GPU},
    {rule_collective_host, GPU}, {rule_stream_wait, GPU},  {rule_offload, GPU},       {rule_memcpy, GPU},
    {rule_small_gemms, GPU},     {rule_memory_bound, GPU}, {rule_attention, GPU},     {rule_sync, GPU},
    {rule_pageable, GPU},        {rule_optimizer, GPU},    {rule_tensor_cores, GPU},  {rule_low_util, GPU},
    {rule_low_mfu, GPU},         {rule_nsight, GPU},       {rule_graph_replays, ANY},
    {rule_graph_capture, GPU},
};

int gd_diagnose(const gpudiag_trace *t, gpudiag_report *r)
{
    fbuilder b = {r, 0, 0};
    rule_input(&b, t); /* the notes about the input, first: it also reads the trace */
    for (size_t i = 0; i < sizeof passes / sizeof *passes; i++)
        if (passes[i].when == ANY || r->has_gpu)
            passes[i].fn(&b);
    if (r->finding_count > 1)
        qsort(r->findings, r->finding_count, sizeof *r->findings, cmp_finding);
    verdict(&b, t);
    return b.oom ? -1 : 0;
}
