/*
 * rules_steps.c — the step and idle-time rules: what the GPU waits for inside
 * the step (DataLoader, start-up, queued streams, host launch and CPU work,
 * the optimizer, sync calls), low utilization, and NVIDIA's own Nsight Systems
 * rules reported beside them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/rules_internal.h"

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

/* Device-idle time that is not steady state (causes startup and compilation,
 * less the compilation that recurs, DEFINITIONS "Start-up in the window"), summed over the devices ÷ their
 * number, in µs; *comp gets the compilation part. */
double gd_startup_us(const gpudiag_report *r, double *comp)
{
    size_t nd = r->timeline.device_count;
    double s = r->idle_cause_us[GPUDIAG_IDLE_STARTUP], c = r->idle_cause_us[GPUDIAG_IDLE_COMPILATION];
    c -= r->recompile_idle_us; /* recurring compilation is steady state (torch_recompilation) */
    if (c < 0)
        c = 0;
    if (comp)
        *comp = nd ? c / (double)nd : 0;
    return nd ? (s + c) / (double)nd : 0;
}

/* Its share of the analysed time (the unit of the breakdown shares), 0 when none. */
double gd_startup_share(const gpudiag_report *r)
{
    if (!r->has_gpu || !r->step_count || !(r->avg_step_us > 0))
        return 0;
    double sh = gd_startup_us(r, NULL) / ((double)r->step_count * r->avg_step_us);
    return sh > 0 ? (sh > 1 ? 1 : sh) : 0;
}

/* The steady-state part of the analysed time (DEFINITIONS "Start-up in the
 * window"): 1 − start-up share when that share is ≥ GD_STARTUP_SHARE_MIN, else
 * 1; 0 when the whole window is start-up.  The one place the threshold is
 * applied (gd_steady_share, gd_steady_step_us). */
static double steady_fraction(const gpudiag_report *r)
{
    double ssh = gd_startup_share(r);
    if (!(ssh >= GD_STARTUP_SHARE_MIN))
        return 1.0;
    return ssh < 1.0 ? 1.0 - ssh : 0.0;
}

/* A share of the analysed time as a share of the steady-state step (DEFINITIONS
 * "Start-up in the window", steady-state step): the one place the cause rules'
 * shares leave start-up out. */
double gd_steady_share(const gpudiag_report *r, double s)
{
    double k = steady_fraction(r);
    if (isnan(s) || k == 1.0)
        return s;
    if (!(k > 0))
        return NAN; /* the whole window is start-up: no steady-state time to share */
    double v = s / k;
    return v > 1.0 ? 1.0 : v;
}

int gd_mostly_startup(const gpudiag_report *r)
{
    if (!(gd_startup_share(r) >= GD_STARTUP_MOSTLY))
        return 0;
    /* whole steps without start-up are steady state to judge (a long first step before nine
     * clean ones: a new user's trace, DEFINITIONS "Start-up in the window") */
    size_t clean = 0;
    for (size_t i = 0; i < r->step_count; i++)
        clean += !(r->steps[i].startup_idle_us > 0);
    return clean < GD_STARTUP_CLEAN_STEPS;
}

double gd_steady_step_us(const gpudiag_report *r)
{
    if (!r->step_count || !(r->avg_step_us > 0))
        return NAN;
    return r->avg_step_us * steady_fraction(r);
}

double gd_per_device_share(const gpudiag_report *r, double us)
{
    size_t nd = r->timeline.device_count;
    if (!r->has_gpu || !nd || !r->step_count || !(r->avg_step_us > 0) || !(us > 0))
        return 0;
    double s = us / (double)nd / ((double)r->step_count * r->avg_step_us);
    return s > 1 ? 1 : s;
}

/* Device-idle time of a cause ÷ devices, as a share of the steady-state step
 * (gd_steady_share); 0 when none. */
double gd_idle_cause_share(const gpudiag_report *r, gpudiag_idle_cause c)
{
    double s = gd_per_device_share(r, r->idle_cause_us[c]);
    return s > 0 ? gd_steady_share(r, s) : 0;
}

/* Host time us (runtime + CPU Exec, summed over devices) inside some idle gaps ÷ devices, as a
 * share of the analysed time: the breakdown counts it as host time, but the GPU was not
 * waiting for the host. */
static double host_share_in_gaps(const gpudiag_report *r, double us)
{
    return gd_per_device_share(r, us);
}

/* ... inside gaps with work already queued (causes stream_wait and kernel_wait,
 * DEFINITIONS "Idle gaps and their causes", rule 0b) */
static double queued_share(const gpudiag_report *r)
{
    return host_share_in_gaps(r, r->queued_host_us);
}

/* Recurring compilation idle (DEFINITIONS "Idle gaps and their causes", rule 0,
 * recompilation) ÷ devices, as a share of the analysed time; 0 when none. */
static double recompile_share(const gpudiag_report *r)
{
    return r->recompile_steps ? gd_per_device_share(r, r->recompile_idle_us) : 0;
}

/* ... inside gaps of cause profiler: the profiler's own overhead held the host
 * (rule 0c); input_profiler_overhead reports it */
static double profiler_host_share(const gpudiag_report *r)
{
    return host_share_in_gaps(r, r->profiler_host_us);
}

/* ... inside gaps of cause sync: mostly the blocking sync call itself; the host
 * waited for the GPU (sync_stall's), it was not late to launch (rule 1) */
static double sync_host_share(const gpudiag_report *r)
{
    return host_share_in_gaps(r, r->sync_host_us);
}

void gd_rule_dataloader(fbuilder *b)
{
    gpudiag_report *r = b->r;
    /* the DataLoader time inside start-up (the worker spawn of a trace recorded from the process
     * start) is left out of the numerator as start-up is of the steady-state step (DEFINITIONS
     * "Start-up in the window", start-up DataLoader time) */
    double dl_us = r->avg_role_us[GPUDIAG_ROLE_DATALOADER], dl_su = r->dataloader_startup_us;
    double s = role_share(r, GPUDIAG_ROLE_DATALOADER);
    if (!isnan(s) && dl_su > 0 && r->avg_step_us > 0) {
        s -= dl_su / r->avg_step_us;
        if (s < 0)
            s = 0;
        dl_us = dl_us > dl_su ? dl_us - dl_su : 0;
    }
    s = gd_steady_share(r, s);
    if (isnan(s) || !(s > GD_DATALOADER_SHARE_MIN))
        return;
    gpudiag_finding *f = rf_add(b, GD_F_dataloader_stall, sev_for_share(s), s);
    gd_fb_ev(f, "dataloader_share", s);
    gd_fb_ev(f, "dataloader_us_per_step", r->avg_role_us[GPUDIAG_ROLE_DATALOADER]);
    if (dl_su > 0)
        gd_fb_ev(f, "dataloader_startup_us_per_step", dl_su);
    gd_fb_ev(f, "step_time_us", r->avg_step_us);
    gd_fb_ev(f, "gpu_utilization", r->gpu_utilization);
    char dl[32], st[32];
    gd_format_us(dl, sizeof dl, dl_us, "us");
    gd_format_us(st, sizeof st, r->has_gpu ? gd_steady_step_us(r) : r->avg_step_us, "us");
    gd_fb_text(b, f,
         r->has_gpu
             ? gd_format("The GPU waits for the DataLoader: %.1f%% of each step (%s of %s)", 100.0 * s, dl, st)
             /* a CPU-only trace: nothing waits on a GPU (DEFINITIONS "Time and events") */
             : gd_format("The DataLoader takes %.1f%% of each step (%s of %s; no GPU activity recorded, "
                         "so this is host time in the step, not GPU waiting)",
                         100.0 * s, dl, st),
         gd_format("Load batches in parallel with compute: DataLoader(num_workers=N) with N at 50-75%% of "
                   "the physical cores per GPU process, prefetch_factor=4-6, pin_memory=True with "
                   ".to(device, non_blocking=True), persistent_workers=True. Move decoding, augmentation "
                   "and tokenisation out of the loop (pre-tokenise, cache decoded samples, GPU "
                   "augmentation such as DALI), and group samples by length to cut padding."));
}

void gd_rule_startup(fbuilder *b)
{
    gpudiag_report *r = b->r;
    double share = gd_startup_share(r);
    if (!(share >= GD_STARTUP_SHARE_MIN))
        return;
    const gpudiag_step *s0 = &r->steps[0];
    double comp = 0, all = gd_startup_us(r, &comp);
    gpudiag_finding *f = rf_add(b, GD_F_startup_in_window, GPUDIAG_SEV_LOW, NAN);
    gd_fb_ev(f, "lead_in_us", s0->gpu_lead_in_us);
    gd_fb_ev(f, "first_step_us", s0->duration_us);
    gd_fb_ev(f, "startup_us", all - comp);
    gd_fb_ev(f, "compilation_us", comp);
    gd_fb_ev(f, "share_of_steps", share);
    char what[128], d1[32], d2[32];
    gd_format_us(d1, sizeof d1, all - comp, "us");
    gd_format_us(d2, sizeof d2, comp, "us");
    if (comp > 0 && all - comp > 0)
        snprintf(what, sizeof what, "%s of start-up/warm-up and %s of torch.compile compilation", d1, d2);
    else if (comp > 0)
        snprintf(what, sizeof what, "%s of torch.compile compilation", d2);
    else
        snprintf(what, sizeof what, "%s of start-up/warm-up", d1);
    gd_fb_text(b, f,
         gd_format("The GPU sits idle for %s in the %s (before the first GPU op, after the last, in "
                   "compilation / warm-up, or behind a one-off first call such as lazy module loading at a "
                   "kernel's first launch): %s initialisation, model loading, compilation or autotuning, "
                   "not steady-state training",
                   what, r->steps_from_profiler ? "steps" : "window", r->is_amd ? "HIP (ROCm)" : "CUDA"),
         rf_pytorch(b)
             ? gd_format("Record steady-state steps: torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, "
                         "warmup=2, active=3)) with prof.step() each iteration keeps start-up and compilation out of "
                         "the trace. This time (%.1f%% of the analysed time) is left out of the findings' "
                         "estimates (shares of the steady-state time) and the verdict.",
                         100.0 * share)
             : gd_format("Record steady-state iterations: start the capture after initialisation (nsys profile "
                         "--capture-range=cudaProfilerApi with cudaProfilerStart/Stop around a few iterations, or "
                         "--delay) and mark each iteration with an NVTX range (nvtxRangePush/Pop). This time "
                         "(%.1f%% of the analysed time) is left out of the findings' estimates (shares of the "
                         "steady-state time) and the verdict.",
                         100.0 * share));
}

/* torch_recompilation: torch.compile compiles in most steps while the GPU idles
 * (DEFINITIONS "Idle gaps and their causes", rule 0, recompilation; FINDINGS). */
void gd_rule_recompilation(fbuilder *b)
{
    gpudiag_report *r = b->r;
    size_t nd = r->timeline.device_count;
    double share = gd_steady_share(r, recompile_share(r));
    if (!r->recompile_steps || !nd || isnan(share) || !(share >= GD_RECOMPILE_SHARE_MIN))
        return;
    double per_step = r->recompile_idle_us / (double)nd / (double)r->recompile_steps;
    gpudiag_finding *f = rf_add(b, GD_F_torch_recompilation, sev_for_share(share), share);
    gd_fb_ev(f, "steps_with_compilation", (double)r->recompile_steps);
    gd_fb_ev(f, "compile_us_per_step", per_step);
    gd_fb_ev(f, "share", share);
    char d1[32];
    gd_format_us(d1, sizeof d1, per_step, "us");
    gd_fb_text(b, f,
         gd_format("The job recompiles in %zu of %zu steps: the GPU waits %s per step while torch.compile "
                   "compiles, %.1f%% of the steady-state step (recompilation is steady state, not start-up)",
                   r->recompile_steps, r->step_count, d1, 100.0 * share),
         rf_pytorch(b)
             ? gd_format("Find what fails the guards: run with TORCH_LOGS=recompiles (or \"recompiles,graph_breaks\"). "
                         "For dimensions that vary (batch, sequence length) use torch._dynamo.mark_dynamic(tensor, dim) or "
                         "torch.compile(dynamic=True); pad or bucket sequence lengths to a few sizes; keep Python "
                         "scalars that change each step (a step counter, a learning rate, a float hyper-parameter) out "
                         "of the compiled region or pass them as tensors. Raise "
                         "torch._dynamo.config.cache_size_limit only after fixing the cause: a higher limit keeps "
                         "recompiling.")
             : gd_format("Find what changes each iteration and forces the JIT to compile again (input shapes, "
                         "compile-time constants) and keep it fixed: pad or bucket shapes, pass changing values "
                         "as runtime arguments."));
}

void gd_rule_stream_wait(fbuilder *b)
{
    gpudiag_report *r = b->r;
    double s = gd_idle_cause_share(r, GPUDIAG_IDLE_STREAM_WAIT);
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
                   "another stream (cudaStreamWaitEvent%s) serialises work that could overlap: record the event "
                   "right after the work it guards, and move independent work to the waiting stream. Inside a "
                   "CUDA graph, look for host nodes, event-wait nodes and copies from pageable memory. A wait for "
                   "another process or an uninstrumented library does not show in the trace.",
                   rf_pytorch(b) ? ", torch.cuda.Stream.wait_stream / wait_event, record_stream" : ""));
}

/* The title and recommendation a rule picks, kept until the rule adds to them (gd_fb_text then). */
static void host_text(char **title, char **rec, char *t, char *r)
{
    *title = t;
    *rec = r;
}

/* The Python tracer inflates host time (DEFINITIONS "Time and events", Python
 * tracer on): when input_python_tracer is in the report, the host finding f
 * says its share is an upper bound and the note becomes medium. */
static void python_tracer_caveat(fbuilder *b, gpudiag_finding *f)
{
    gpudiag_report *r = b->r;
    gpudiag_finding *py = NULL;
    for (size_t i = 0; i < r->finding_count && !py; i++)
        if (strcmp(r->findings[i].id, gd_catalogue[GD_F_input_python_tracer].id) == 0)
            py = &r->findings[i];
    if (!py || !f)
        return;
    py->severity = GPUDIAG_SEV_MEDIUM;
    gd_fb_append(b, f,
                 gd_format("(The Python tracer was on, input_python_tracer: host time is inflated by the profiler, "
                           "so this share is an upper bound; profile with with_stack=False to size it.)"));
}

void gd_rule_host_overhead(fbuilder *b)
{
    gpudiag_report *r = b->r;
    /* start-up and the host side of collectives are reported on their own; idle
     * with work queued is not the host's (a host verdict needs an empty queue) */
    double startup = gd_startup_share(r) + gd_collective_host_share(r) + queued_share(r) + sync_host_share(r) +
                     recompile_share(r) + profiler_host_share(r) /* torch_recompilation owns recurring compilation */
                     + gd_alloc_host_share(r); /* allocator_churn owns the idle its calls hold */
    /* both shares leave start-up out of the time they divide by too (DEFINITIONS steady-state step) */
    double host = gd_steady_share(r, role_share(r, GPUDIAG_ROLE_RUNTIME) + role_share(r, GPUDIAG_ROLE_CPU_EXEC) - startup);
    if (isnan(host) || host < GD_HOST_SHARE_MIN || isnan(r->gpu_utilization) || r->gpu_utilization >= 0.8)
        return;
    int short_kernels = (!isnan(r->short_kernel_share) && r->short_kernel_share >= GD_SHORT_KERNEL_SHARE_MIN) ||
                        (!isnan(r->median_kernel_us) && r->median_kernel_us <= GD_SHORT_KERNEL_MEDIAN_US);
    int queue_runs_dry = !isnan(r->launch_delay_median_us) && r->launch_delay_median_us > 100.0;
    /* launching paces the GPU in short gaps; a gap over 100 µs is host work of its own (FINDINGS
     * host_launch_bound): launch-bound needs half the host_launch idle in short gaps */
    double hl_idle = r->idle_cause_us[GPUDIAG_IDLE_HOST_LAUNCH];
    double long_gap_share = hl_idle > 0 ? r->host_launch_long_gap_us / hl_idle : NAN;
    int long_host_gaps = !isnan(long_gap_share) && long_gap_share > 0.5;
    double idle = gd_steady_share(r, 1.0 - r->gpu_utilization - startup);
    double gain = host < idle ? host : idle;
    if (gain < 0)
        gain = 0;
    /* launch-bound (issue #3's host_launch_bound): many short kernels and no deep queue */
    int launch_paced = short_kernels && !long_host_gaps; /* the titles and advice of launch-bound */
    gd_finding_id id = launch_paced && !queue_runs_dry ? GD_F_host_launch_bound : GD_F_host_overhead;
    gpudiag_finding *f = rf_add(b, id, sev_for_share(gain), gain);
    gd_fb_ev(f, "host_share", host);
    gd_fb_ev(f, "runtime_share", role_share(r, GPUDIAG_ROLE_RUNTIME));
    gd_fb_ev(f, "cpu_exec_share", role_share(r, GPUDIAG_ROLE_CPU_EXEC));
    gd_fb_ev(f, "short_kernel_share", r->short_kernel_share);
    gd_fb_ev(f, "median_kernel_us", r->median_kernel_us);
    gd_fb_ev(f, "gpu_utilization", r->gpu_utilization);
    gd_fb_ev(f, "launch_delay_median_us", r->launch_delay_median_us);
    gd_fb_ev(f, "host_launch_long_gap_share", long_gap_share);
    if (gd_startup_share(r) > 0)
        gd_fb_ev(f, "startup_share_excluded", gd_startup_share(r));
    if (gd_collective_host_share(r) > 0)
        gd_fb_ev(f, "collective_host_share_excluded", gd_collective_host_share(r));
    if (queued_share(r) > 0)
        gd_fb_ev(f, "queued_share_excluded", queued_share(r));
    if (sync_host_share(r) > 0)
        gd_fb_ev(f, "sync_share_excluded", sync_host_share(r));
    if (recompile_share(r) > 0)
        gd_fb_ev(f, "recompile_share_excluded", recompile_share(r));
    if (profiler_host_share(r) > 0)
        gd_fb_ev(f, "profiler_share_excluded", profiler_host_share(r));
    if (gd_alloc_host_share(r) > 0)
        gd_fb_ev(f, "alloc_share_excluded", gd_alloc_host_share(r));
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
             rf_pytorch(b)
                 ? gd_format("The idle time sits in a few places, not between every pair of kernels: look at the "
                             "largest gaps under IDLE GAPS (often the first, warm-up step, the optimizer step, or a "
                             "host-side computation between phases). Move that host work off the critical path or "
                             "overlap it (a side CUDA stream, prefetching the next batch to the GPU), %suse "
                             "torch.compile to cut the Python between kernels.",
                             training ? "use fused/foreach optimizers (fused=True), and " : "and ")
                 : gd_format("The idle time sits in a few places, not between every pair of kernels: look at the "
                             "largest gaps under IDLE GAPS (often the first iteration or a host-side computation "
                             "between phases). Overlap host work with kernels using streams: queue the next "
                             "kernels before the host work (cudaMemcpyAsync / kernel launches on a second stream, "
                             "events instead of synchronize), or move that work to the GPU."));
    else if (launch_paced && r->graph_launches > 0)
        host_text(&title, &rec,
             gd_format("The GPU waits for kernel launches: the CPU is in launch calls or framework ops for "
                       "%.1f%% of the step while no kernel runs, and the median kernel lasts only %.1f us",
                       100.0 * host, r->median_kernel_us),
             gd_format("The step already replays %s graphs (%llu graph launch%s): the launches left are the "
                       "kernels outside them. Capture those regions too if their shapes are static, fuse elementwise "
                       "chains%s, %sand raise the batch size so each kernel does more work. Remove "
                       "per-step host work and logging from the hot loop.",
                       r->is_amd ? "HIP" : "CUDA", (unsigned long long)r->graph_launches,
                       r->graph_launches == 1 ? "" : "es", rf_pytorch(b) ? " (torch.compile)" : "", fused));
    else if (launch_paced && r->graph_captures > 0)
        host_text(&title, &rec,
             gd_format("The GPU waits for kernel launches: the CPU is in launch calls or framework ops for "
                       "%.1f%% of the step while no kernel runs, and the median kernel lasts only %.1f us",
                       100.0 * host, r->median_kernel_us),
             gd_format("The trace captures %s graphs (%llu stream capture%s): launches inside a capture are "
                       "recorded, not run, and are left out. For the launches outside them: fuse elementwise "
                       "chains%s and raise the batch size so each kernel does more work; profile "
                       "the steps that replay the graphs to judge steady state.",
                       r->is_amd ? "HIP" : "CUDA", (unsigned long long)r->graph_captures,
                       r->graph_captures == 1 ? "" : "s", rf_pytorch(b) ? " (torch.compile)" : ""));
    else if (launch_paced)
        host_text(&title, &rec,
             gd_format("The GPU waits for kernel launches: the CPU is in launch calls or framework ops for "
                       "%.1f%% of the step while no kernel runs, and the median kernel lasts only %.1f us",
                       100.0 * host, r->median_kernel_us),
             rf_pytorch(b)
                 ? gd_format("Launch fewer, larger kernels: torch.compile(model) (mode=\"reduce-overhead\" adds %s"
                             "), capture the static part of the step with torch.cuda.graphs, %sfuse elementwise "
                             "chains, and raise the batch size so each kernel does more work. Remove per-step Python "
                             "work and logging from the hot loop.",
                             r->is_amd ? "HIP graphs" : "CUDA Graphs", fused)
                 : gd_format("Launch fewer, larger kernels: batch small kernels (fuse consecutive kernels, give each "
                             "more work per launch), and capture the repeated sequence once in a %s graph "
                             "(%sStreamBeginCapture / %sGraphInstantiate) and replay it with %sGraphLaunch, one "
                             "launch per iteration instead of one per kernel. Keep host work out of the launch loop.",
                             r->is_amd ? "HIP" : "CUDA", r->is_amd ? "hip" : "cuda", r->is_amd ? "hip" : "cuda",
                             r->is_amd ? "hip" : "cuda"));
    else
        host_text(&title, &rec,
             gd_format("The GPU waits for the CPU: framework ops and launch calls run for %.1f%% of the step "
                       "while no kernel runs",
                       100.0 * host),
             rf_pytorch(b)
                 ? gd_format("Find the CPU work between kernels (profile with with_stack=True, or py-spy) and move "
                             "it off the critical path: avoid .item()/.cpu()/print of GPU tensors inside the step, "
                             "do metrics and logging every N steps, move CPU-side tensor work to the GPU, and use "
                             "torch.compile to cut Python overhead.%s",
                             training && r->input.world_size > 1 ? " With DDP, set gradient_as_bucket_view=True "
                                                                   "and static_graph=True when the graph is static."
                                                                 : "")
                 : gd_format("Find the host work between kernels (nsys profile --sample=cpu, or perf) and take it "
                             "off the critical path: overlap host work with kernels using streams (launch the next "
                             "kernels before the host work, cudaMemcpyAsync on a second stream, events instead of "
                             "synchronize), read results back every N iterations, and move host-side computation "
                             "to the GPU."));
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
    double idle_host = gd_idle_cause_share(r, GPUDIAG_IDLE_HOST_LAUNCH);
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
    python_tracer_caveat(b, f);
}

void gd_rule_optimizer(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!r->step_count || !(r->avg_step_us > 0) || isnan(r->optimizer_time_us))
        return;
    double per_step_kernels = (double)r->optimizer_kernels / (double)r->step_count;
    double share = gd_steady_share(r, r->optimizer_time_us / (double)r->step_count / r->avg_step_us);
    double fused = r->optimizer_kernels ? (double)r->optimizer_fused_kernels / (double)r->optimizer_kernels : 0;
    if (per_step_kernels < GD_OPT_KERNELS_PER_STEP_MIN || !(share >= GD_OPT_SHARE_MIN) || fused >= 0.5)
        return;
    double gain = share * 0.5;
    gpudiag_finding *f = rf_add(b, GD_F_optimizer_unfused, sev_for_share(gain), gain);
    gd_fb_ev(f, "optimizer_share", share);
    gd_fb_ev(f, "optimizer_kernels_per_step", per_step_kernels);
    gd_fb_ev(f, "optimizer_kernel_time_us_per_step", r->optimizer_kernel_time_us / (double)r->step_count);
    gd_fb_ev(f, "fused_kernel_share", fused);
    char ks[32];
    gd_fb_text(b, f,
         gd_format("The optimizer step launches %s small kernel%s per step, one parameter at a time, and takes "
                   "%.1f%% of the step",
                   gd_format_per_step(ks, sizeof ks, per_step_kernels), per_step_kernels == 1 ? "" : "s",
                   100.0 * share),
         gd_format("Use a multi-tensor optimizer: torch.optim.SGD/Adam/AdamW(..., foreach=True) (the default "
                   "since PyTorch 2.0 on CUDA) or fused=True (Adam/AdamW/SGD), or apex's FusedAdam/FusedLAMB; "
                   "with DDP/FSDP keep gradients in few flat buckets. This replaces hundreds of launches with a "
                   "few multi_tensor_apply kernels."));
}

void gd_rule_sync(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!r->step_count || !(r->avg_step_us > 0))
        return;
    /* ÷ devices (the idle time is summed over them) and of the steady-state step */
    double s = gd_idle_cause_share(r, GPUDIAG_IDLE_SYNC);
    if (!(s > GD_SYNC_SHARE_MIN))
        return;
    gpudiag_finding *f = rf_add(b, GD_F_sync_stall, sev_for_share(s), s);
    gd_fb_ev(f, "sync_idle_share", s);
    gd_fb_ev(f, "sync_calls_per_step", (double)r->sync_calls / (double)r->step_count);
    gd_fb_ev(f, "sync_time_us_per_step", r->sync_time_us / (double)r->step_count);
    gd_fb_ev(f, "step_time_us", r->avg_step_us);
    char cps[32];
    double calls = (double)r->sync_calls / (double)r->step_count;
    gd_format_per_step(cps, sizeof cps, calls);
    gd_fb_text(b, f,
         gd_format("Host synchronisation drains the GPU: %.1f%% of each step is GPU idle right after a sync call "
                   "(%s call%s per step)",
                   100.0 * s, cps, calls == 1.0 ? "" : "s"),
         rf_pytorch(b)
             ? gd_format("Every .item(), .cpu(), .numpy(), print(tensor), torch.cuda.synchronize() or synchronous "
                         "cudaMemcpy makes the CPU wait for the GPU, after which the GPU waits for the CPU to launch "
                         "again. Keep losses and metrics on the GPU and read them every N steps, copy to the host "
                         "with non_blocking=True into pinned memory, avoid data-dependent Python control flow on "
                         "GPU values, and remove debugging synchronize calls (set CUDA_LAUNCH_BLOCKING=0).")
             : gd_format("Every cudaDeviceSynchronize / cudaStreamSynchronize or synchronous cudaMemcpy makes the "
                         "host wait for the GPU, after which the GPU waits for the host to launch again. Synchronise "
                         "only where a result is needed (cudaEventRecord + cudaStreamWaitEvent or "
                         "cudaEventSynchronize on that event), read results back every N iterations with "
                         "cudaMemcpyAsync into pinned memory (cudaMallocHost), keep control decisions on the GPU, "
                         "and remove debugging synchronise calls (CUDA_LAUNCH_BLOCKING=0)."));
}

void gd_rule_low_util(fbuilder *b)
{
    gpudiag_report *r = b->r;
    int dev = -1;
    double u = min_device_util(r, &dev);
    if (isnan(u))
        return;
    /* steady state: the time outside start-up/compilation (FINDINGS `low_gpu_utilization`) */
    double ssh = gd_startup_share(r);
    int startup = ssh >= GD_STARTUP_SHARE_MIN;
    double uss = gd_steady_share(r, u);
    int mostly_startup = gd_mostly_startup(r);
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
             gd_format("Too little steady-state work was recorded to judge the utilization (kernels run %.1f%% of "
                       "the time outside start-up). Profile steady-state steps: %s.",
                       isnan(uss) ? 0.0 : 100.0 * uss,
                       rf_pytorch(b) ? "torch.profiler schedule(wait=1, warmup=1, active=3) with prof.step() each "
                                       "iteration"
                                     : "start the capture after initialisation (nsys --capture-range=cudaProfilerApi "
                                       "or --delay) and record several iterations"));
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

/* Each rule of `nsys analyze` that fires on the export becomes one finding
 * nsight_<rule name>, with NVIDIA's definition and default threshold
 * (docs/DEFINITIONS.md "Nsight Systems rules").  They are NVIDIA's opinion,
 * reported beside gpudiag's own causes: never causes themselves (no est_gain). */
void gd_rule_nsight(fbuilder *b)
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
        char all[32], lng[32];
        gd_fb_text(b, f,
             gd_format("Nsight rule gpu_gaps (GPU Gaps): %llu gap%s longer than %.0f ms with the GPU idle, %s in "
                       "all, the longest %s",
                       (unsigned long long)R->gaps, gd_plural(R->gaps), R->gap_threshold_us / 1000.0,
                       gd_format_us(all, sizeof all, R->gap_time_us, "us"),
                       gd_format_us(lng, sizeof lng, R->gap_max_us, "us")),
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
        char low[32];
        gd_fb_text(b, f,
             gd_format("Nsight rule gpu_time_util (GPU Time Utilization): %llu of %llu time chunks have the GPU busy "
                       "less than %.0f%% of the time (%llu region%s, %s; the lowest %.1f%%)",
                       (unsigned long long)R->util_low_chunks, (unsigned long long)R->util_chunks_total,
                       100.0 * R->util_threshold, (unsigned long long)R->util_low_regions,
                       gd_plural(R->util_low_regions), gd_format_us(low, sizeof low, R->util_low_time_us, "us"),
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
        char mb[32], tm[32];
        gd_fb_text(b, f,
             gd_format("Nsight rule cuda_memcpy_sync (CUDA Synchronous Memcpy): %llu synchronous cop%s "
                       "(%s MB, %s on the GPU) block%s the host",
                       (unsigned long long)R->memcpy_sync, R->memcpy_sync == 1 ? "y" : "ies",
                       gd_format_sig3(mb, sizeof mb, R->memcpy_sync_bytes / 1e6),
                       gd_format_us(tm, sizeof tm, R->memcpy_sync_us, "us"), R->memcpy_sync == 1 ? "s" : ""),
             gd_format("NVIDIA's advice: use cudaMemcpy*Async with pinned host memory so the host does not wait%s.",
                       rf_pytorch(b) ? " (in PyTorch: tensor.to(device, non_blocking=True) from pinned memory)"
                                     : " (cudaMallocHost / cudaHostRegister)"));
    }
    if (R->memset_sync) {
        gpudiag_finding *f = rf_add(b, GD_F_nsight_cuda_memset_sync, GPUDIAG_SEV_LOW, NAN);
        gd_fb_ev(f, "memsets", (double)R->memset_sync);
        gd_fb_ev(f, "bytes", R->memset_sync_bytes);
        gd_fb_ev(f, "memset_time_us", R->memset_sync_us);
        char tm[32];
        gd_fb_text(b, f,
             gd_format("Nsight rule cuda_memset_sync (CUDA Synchronous Memset): %llu synchronous memset%s on pinned "
                       "or managed memory (%s on the GPU)",
                       (unsigned long long)R->memset_sync, gd_plural(R->memset_sync),
                       gd_format_us(tm, sizeof tm, R->memset_sync_us, "us")),
             gd_format("NVIDIA's advice: avoid the implied synchronisation: use cudaMemsetAsync, or "
                       "synchronise with events."));
    }
    if (R->memcpy_async_pageable) {
        gpudiag_finding *f = rf_add(b, GD_F_nsight_cuda_memcpy_async, GPUDIAG_SEV_LOW, NAN);
        gd_fb_ev(f, "copies", (double)R->memcpy_async_pageable);
        gd_fb_ev(f, "bytes", R->memcpy_async_pageable_bytes);
        gd_fb_ev(f, "copy_time_us", R->memcpy_async_pageable_us);
        char mb[32], tm[32];
        int one = R->memcpy_async_pageable == 1;
        gd_fb_text(b, f,
             gd_format("Nsight rule cuda_memcpy_async (CUDA Async Memcpy with Pageable Memory): %llu asynchronous "
                       "cop%s touch%s pageable memory and so run%s synchronously (%s MB, %s)",
                       (unsigned long long)R->memcpy_async_pageable, one ? "y" : "ies", one ? "es" : "",
                       one ? "s" : "", gd_format_sig3(mb, sizeof mb, R->memcpy_async_pageable_bytes / 1e6),
                       gd_format_us(tm, sizeof tm, R->memcpy_async_pageable_us, "us")),
             gd_format("NVIDIA's advice: use pinned host memory for asynchronous copies (%s).",
                       rf_pytorch(b) ? "PyTorch: DataLoader(pin_memory=True), tensor.pin_memory()"
                                     : "cudaMallocHost, or cudaHostRegister on an existing buffer"));
    }
    if (R->api_sync) {
        gpudiag_finding *f = rf_add(b, GD_F_nsight_cuda_api_sync, GPUDIAG_SEV_LOW, NAN);
        gd_fb_ev(f, "calls", (double)R->api_sync);
        gd_fb_ev(f, "call_time_us", R->api_sync_us);
        char tm[32];
        gd_fb_text(b, f,
             gd_format("Nsight rule cuda_api_sync (CUDA Synchronization APIs): %llu cudaDeviceSynchronize / "
                       "cudaStreamSynchronize call%s, %s of host time in %s",
                       (unsigned long long)R->api_sync, gd_plural(R->api_sync),
                       gd_format_us(tm, sizeof tm, R->api_sync_us, "us"), R->api_sync == 1 ? "it" : "them"),
             gd_format("NVIDIA's advice: avoid excessive synchronisation; wait on events instead "
                       "(cudaStreamWaitEvent, cudaEventSynchronize) so only the dependent work waits."));
    }
}

/* The longest gap of `cause` among r->gaps (summed over devices as
 * idle_cause_us), its host op from top_gaps when listed there (else NULL). */
static const gpudiag_gap *longest_gap_of(const gpudiag_report *r, gpudiag_idle_cause cause, const char **op)
{
    const gpudiag_gap *best = NULL;
    for (size_t i = 0; i < r->gaps_kept; i++)
        if (r->gaps[i].cause == cause && (!best || r->gaps[i].duration_us > best->duration_us))
            best = &r->gaps[i];
    *op = NULL;
    for (size_t i = 0; best && i < r->top_gap_count; i++)
        if (r->top_gaps[i].start_ns == best->start_ns && r->top_gaps[i].device == best->device)
            *op = r->top_gaps[i].cpu_op;
    return best;
}

/* One-off gaps (DEFINITIONS "Start-up in the window"): in a window of one
 * step, a cause finding whose idle cause has one gap holding most of its time
 * drops one severity and says its estimate rests on that gap.  Runs after the
 * rules that add those findings. */
void gd_rule_one_off_gaps(fbuilder *b)
{
    static const struct {
        gd_finding_id id;
        gpudiag_idle_cause cause;
    } rest_on[] = {
        {GD_F_host_launch_bound, GPUDIAG_IDLE_HOST_LAUNCH}, {GD_F_host_overhead, GPUDIAG_IDLE_HOST_LAUNCH},
        {GD_F_stream_wait, GPUDIAG_IDLE_STREAM_WAIT},       {GD_F_sync_stall, GPUDIAG_IDLE_SYNC},
        {GD_F_dataloader_stall, GPUDIAG_IDLE_DATALOADER},
    };
    gpudiag_report *r = b->r;
    if (!gd_one_step_window(r))
        return;
    for (size_t i = 0; i < r->finding_count; i++) {
        gpudiag_finding *f = &r->findings[i];
        size_t k = 0;
        while (k < sizeof rest_on / sizeof *rest_on && strcmp(f->id, gd_catalogue[rest_on[k].id].id) != 0)
            k++;
        if (k == sizeof rest_on / sizeof *rest_on)
            continue;
        double total = r->idle_cause_us[rest_on[k].cause];
        const char *op;
        const gpudiag_gap *g = longest_gap_of(r, rest_on[k].cause, &op);
        if (!g || !(total > 0) || !(g->duration_us >= GD_ONE_OFF_GAP_SHARE * total))
            continue;
        double share = g->duration_us / total;
        if (f->severity > GPUDIAG_SEV_LOW)
            f->severity = (gpudiag_severity)(f->severity - 1);
        gd_fb_ev(f, "one_off_gap_us", g->duration_us);
        gd_fb_ev(f, "one_off_gap_share", share);
        char len[32];
        gd_format_us(len, sizeof len, g->duration_us, "us");
        gd_fb_text(b, f,
                   gd_format("%s; the estimate rests on one gap of %s (%.0f%% of this idle time%s%s) in a window "
                             "of one step, so a one-off (a first call) cannot be told from a per-step cost",
                             f->title, len, 100.0 * share, op ? ", host in " : "", op ? op : ""),
                   gd_format("%s", f->recommendation));
    }
}

/* Mostly start-up (DEFINITIONS "Start-up in the window", steady-state step):
 * when start-up is at least GD_STARTUP_MOSTLY of the analysed time, each cause
 * finding with an estimate is a share of the little time left, so it drops one
 * severity and its title names that time.  Runs after the rules that add them. */
void gd_rule_mostly_startup(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!gd_mostly_startup(r))
        return;
    char rest[32];
    gd_format_us(rest, sizeof rest, r->steady_step_us, "us");
    for (size_t i = 0; i < r->finding_count; i++) {
        gpudiag_finding *f = &r->findings[i];
        if (!f->is_cause || isnan(f->est_gain))
            continue;
        if (f->severity > GPUDIAG_SEV_LOW)
            f->severity = (gpudiag_severity)(f->severity - 1);
        gd_fb_ev(f, "steady_step_us", r->steady_step_us);
        gd_fb_text(b, f,
                   gd_format("%s (a share of the %s per step left outside start-up, %.1f%% of the %s)", f->title,
                             rest, 100.0 * (1.0 - gd_startup_share(r)), r->steps_from_profiler ? "steps" : "window"),
                   gd_format("%s", f->recommendation));
    }
}

/* The first iteration dominates a window without step markers (DEFINITIONS "Steps" 5;
 * input_first_iteration, added by gd_rule_input): each cause finding with an estimate mostly
 * describes that iteration, so it drops one severity (unless mostly start-up did already) and
 * its title says so.  Runs after the rules that add them. */
void gd_rule_first_iteration(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!gd_fb_find(r, "input_first_iteration"))
        return;
    int dropped = gd_mostly_startup(r);
    for (size_t i = 0; i < r->finding_count; i++) {
        gpudiag_finding *f = &r->findings[i];
        if (!f->is_cause || isnan(f->est_gain))
            continue;
        if (!dropped && f->severity > GPUDIAG_SEV_LOW)
            f->severity = (gpudiag_severity)(f->severity - 1);
        gd_fb_text(b, f, gd_format("%s (mostly the first iteration's: input_first_iteration)", f->title),
                   gd_format("%s", f->recommendation));
    }
}
