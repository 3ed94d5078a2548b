/*
 * rules_memory.c — the rules over the memory timeline (issue 21 items 2-3;
 * docs/DEFINITIONS.md "Memory timeline", "Memory headroom while the GPU
 * idles", "Allocator churn"): memory_headroom_idle and allocator_churn.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "diagnose/rules_internal.h"
#include "gpudiag/memory.h"

const gpudiag_memory_device *gd_memory_binding_device(const gpudiag_memory *m)
{
    const gpudiag_memory_device *best = NULL;
    for (size_t i = 0; i < m->device_count; i++) {
        const gpudiag_memory_device *d = &m->devices[i];
        if (!d->has_reserved || !(d->total_bytes > 0) || isnan(d->activation_fits))
            continue;
        if (!best || d->activation_fits < best->activation_fits)
            best = d;
    }
    return best;
}

/* The paradox of the tuning guides (000 §2-§3, 001 §4): memory saved, the GPU
 * idles on overheads a larger micro-batch would amortise. */
void gd_rule_memory_headroom(fbuilder *b)
{
    gpudiag_report *r = b->r;
    const gpudiag_memory *m = r->memory;
    if (!m || !r->step_count || !(r->avg_step_us > 0))
        return;
    const gpudiag_memory_device *d = gd_memory_binding_device(m);
    if (!d || d->peak_reserved_bytes > GD_HEADROOM_RESERVED_MAX * d->total_bytes ||
        !(d->activation_fits >= GD_HEADROOM_FITS_MIN))
        return;
    double fixed = gd_idle_cause_share(r, GPUDIAG_IDLE_HOST_LAUNCH) + gd_idle_cause_share(r, GPUDIAG_IDLE_OPTIMIZER) +
                   gd_idle_cause_share(r, GPUDIAG_IDLE_SYNC);
    if (!(fixed >= GD_HEADROOM_FIXED_IDLE_MIN))
        return;
    double mult = floor(d->activation_fits);
    if (mult > GD_HEADROOM_BATCH_MULT_MAX)
        mult = GD_HEADROOM_BATCH_MULT_MAX;
    double gain = fixed * (1.0 - 1.0 / mult);
    gpudiag_finding *f = rf_add(b, GD_F_memory_headroom_idle, sev_for_share(gain), gain);
    gd_fb_ev(f, "device", d->id);
    gd_fb_ev(f, "peak_reserved_bytes", d->peak_reserved_bytes);
    gd_fb_ev(f, "peak_allocated_bytes", d->peak_allocated_bytes);
    gd_fb_ev(f, "total_bytes", d->total_bytes);
    gd_fb_ev(f, "headroom_share", d->headroom_share);
    gd_fb_ev(f, "persistent_bytes", d->persistent_bytes);
    gd_fb_ev(f, "transient_bytes", d->transient_bytes);
    gd_fb_ev(f, "activation_fits", d->activation_fits);
    gd_fb_ev(f, "batch_multiple", mult);
    gd_fb_ev(f, "fixed_idle_share", fixed);
    if (gd_forward_only(r)) {
        /* inference (DEFINITIONS "Memory headroom while the GPU idles"): no optimizer, no accumulation */
        gd_fb_text(b, f,
                   gd_format("GPU %d never holds more than %.2f GiB of its %.2f GiB (%.0f%% headroom) while it idles "
                             "%.1f%% of each step on launches and syncs: a step's activations (%.2f GiB) would fit "
                             "%.1fx",
                             d->id, d->peak_reserved_bytes / 1073741824.0, d->total_bytes / 1073741824.0,
                             100.0 * d->headroom_share, 100.0 * fixed, d->transient_bytes / 1073741824.0,
                             d->activation_fits),
                   gd_format("This trace runs forward only (inference): spend the memory on more samples per "
                             "forward pass — a larger batch (up to %.0fx here), or more concurrent requests batched "
                             "together. Launches and syncs cost about the same per forward pass at any batch size, "
                             "so %.0fx the samples per pass cut the time per sample by ~%.0f%% (each pass takes "
                             "longer: mind the latency budget). Re-check the peak with profile_memory=True.",
                             mult, mult, 100.0 * gain));
        return;
    }
    gd_fb_text(b, f,
               gd_format("GPU %d never holds more than %.2f GiB of its %.2f GiB (%.0f%% headroom) while it idles "
                         "%.1f%% of each step on launches, the optimizer and syncs: a step's activations "
                         "(%.2f GiB) would fit %.1fx",
                         d->id, d->peak_reserved_bytes / 1073741824.0, d->total_bytes / 1073741824.0,
                         100.0 * d->headroom_share, 100.0 * fixed, d->transient_bytes / 1073741824.0,
                         d->activation_fits),
               gd_format("Spend the memory on larger steps: raise the micro-batch (up to %.0fx here) before adding "
                         "gradient accumulation, which keeps the small kernels; if activation checkpointing is on, "
                         "checkpoint fewer layers first. Launches, the optimizer step and syncs cost about the same "
                         "per step at any batch size, so %.0fx the samples per step cut the time per sample by "
                         "~%.0f%%. Scale the learning rate with the batch and re-check the peak with "
                         "profile_memory=True.",
                         mult, mult, 100.0 * gain));
}

/* allocator_churn by counting calls: >= 1 per step after the first (DEFINITIONS "Allocator churn"). */
static int churn_by_calls(const gpudiag_report *r)
{
    const gpudiag_memory *m = r->memory;
    if (!m || !m->alloc.steps || !(m->alloc.step_time_us > 0))
        return 0;
    double per_step = (double)(m->alloc.malloc_calls + m->alloc.free_calls) / (double)m->alloc.steps;
    return per_step >= GD_CHURN_CALLS_PER_STEP_MIN;
}

/* The device-idle time of the steady-state gaps (causes other than startup and compilation),
 * summed over devices: the idle time r->alloc_idle_us is a part of. */
static double steady_idle_us(const gpudiag_report *r)
{
    return r->idle_gap_us - r->idle_cause_us[GPUDIAG_IDLE_STARTUP] - r->idle_cause_us[GPUDIAG_IDLE_COMPILATION];
}

/* r->alloc_idle_us ÷ devices as a share of the analysed time (not yet of the steady-state step). */
static double alloc_idle_step_share(const gpudiag_report *r)
{
    return gd_per_device_share(r, r->alloc_idle_us);
}

/* allocator_churn from the idle time the calls hold, with fewer than two steps (DEFINITIONS
 * "Allocator churn", one window or one step): >= half the steady idle, >= 5 % of the steady-state
 * step, and free calls >= half the malloc calls, at least one (a cache only filling hardly frees). */
static int churn_by_idle(const gpudiag_report *r)
{
    const gpudiag_memory *m = r->memory;
    if (!m || m->alloc.steps || !m->alloc.window_free_calls || !(r->alloc_idle_us > 0) ||
        (double)m->alloc.window_free_calls < GD_CHURN_FREE_PER_MALLOC_MIN * (double)m->alloc.window_malloc_calls)
        return 0;
    double idle = steady_idle_us(r);
    if (!(idle > 0) || !(r->alloc_idle_us >= GD_CHURN_IDLE_SHARE_MIN * idle))
        return 0;
    double s = gd_steady_share(r, alloc_idle_step_share(r));
    return !isnan(s) && s >= GD_CHURN_IDLE_STEP_MIN;
}

double gd_alloc_host_share(const gpudiag_report *r)
{
    return churn_by_calls(r) || churn_by_idle(r) ? alloc_idle_step_share(r) : 0;
}

/* The single-window form of allocator_churn (churn_by_idle holds). */
static void allocator_churn_window(fbuilder *b)
{
    gpudiag_report *r = b->r;
    const gpudiag_alloc_calls *ac = &r->memory->alloc;
    double gain = gd_steady_share(r, alloc_idle_step_share(r));
    double share = r->alloc_idle_us / steady_idle_us(r);
    double span = (double)r->step_count * r->avg_step_us;
    double unused = NAN;
    for (size_t i = 0; i < r->memory->device_count && isnan(unused); i++)
        unused = r->memory->devices[i].reserved_unused_bytes;
    gpudiag_finding *f = rf_add(b, GD_F_allocator_churn, sev_for_share(gain), gain);
    gd_fb_ev(f, "alloc_idle_share", share);
    gd_fb_ev(f, "alloc_idle_us_per_step",
             r->alloc_idle_us / (double)r->timeline.device_count / (double)r->step_count);
    gd_fb_ev(f, "malloc_calls", (double)ac->window_malloc_calls);
    gd_fb_ev(f, "free_calls", (double)ac->window_free_calls);
    gd_fb_ev(f, "alloc_call_time_share", span > 0 ? gd_steady_share(r, ac->window_time_us / span) : NAN);
    gd_fb_ev(f, "empty_cache_calls", (double)ac->empty_cache_calls);
    gd_fb_ev(f, "reserved_unused_bytes", unused);
    const char *mal = r->is_amd ? "hipMalloc" : "cudaMalloc", *fre = r->is_amd ? "hipFree" : "cudaFree";
    gd_fb_text(b, f,
               gd_format("The caching allocator holds the GPU idle: %s/%s calls (%llu and %llu) are in progress "
                         "for %.1f%% of the time the GPU waits, %.1f%% of the %s",
                         mal, fre, (unsigned long long)ac->window_malloc_calls,
                         (unsigned long long)ac->window_free_calls, 100.0 * share, 100.0 * gain,
                         r->steps_from_profiler ? "step" : "window"),
               gd_format("PyTorch's caching allocator serves tensors from its cache and calls %s only when it "
                         "gives memory back, so this many frees mean the cache is off or emptied all the time: "
                         "unset PYTORCH_NO_CUDA_MEMORY_CACHING (=1 turns the cache off%s), check "
                         "PYTORCH_CUDA_ALLOC_CONF, and remove torch.cuda.empty_cache() from the loop (%llu "
                         "call%s seen); near the memory limit the frees come from allocation retries "
                         "(torch.cuda.memory_stats()[\"num_alloc_retries\"]): lower the peak then. Each %s also "
                         "waits for the GPU to drain. With %s this window cannot tell "
                         "the first iteration's cache warm-up from churn: profile a later step with "
                         "torch.profiler.schedule and prof.step() to confirm.",
                         fre, r->is_amd ? "; ROCm reads the same variables" : "",
                         (unsigned long long)ac->empty_cache_calls, ac->empty_cache_calls == 1 ? "" : "s", fre,
                         r->steps_from_profiler ? "one step" : "no step markers"));
}

/* The caching allocator going to the driver inside the steps (DEFINITIONS "Allocator churn"). */
void gd_rule_allocator_churn(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (churn_by_idle(r)) {
        allocator_churn_window(b);
        return;
    }
    if (!churn_by_calls(r))
        return;
    const gpudiag_memory *m = r->memory;
    const gpudiag_alloc_calls *ac = &m->alloc;
    double steps = (double)ac->steps;
    double share = gd_steady_share(r, ac->time_us / ac->step_time_us);
    /* at most the steady-state idle share: a call while the GPU computes costs the device nothing
     * (FINDINGS allocator_churn; a GPU 98 % busy read "could save ~20 %") */
    double idle = isnan(r->gpu_utilization) ? NAN : gd_steady_share(r, 1.0 - r->gpu_utilization - gd_startup_share(r));
    double gain = !isnan(idle) && idle < share ? (idle > 0 ? idle : 0) : share;
    double unused = NAN;
    for (size_t i = 0; i < m->device_count && isnan(unused); i++)
        unused = m->devices[i].reserved_unused_bytes;
    gpudiag_finding *f = rf_add(b, GD_F_allocator_churn, sev_for_share(gain), gain);
    gd_fb_ev(f, "malloc_calls_per_step", (double)ac->malloc_calls / steps);
    gd_fb_ev(f, "free_calls_per_step", (double)ac->free_calls / steps);
    gd_fb_ev(f, "alloc_call_time_share", share);
    gd_fb_ev(f, "empty_cache_calls", (double)ac->empty_cache_calls);
    gd_fb_ev(f, "reserved_unused_bytes", unused);
    char mps[32], fps[32];
    const char *mal = r->is_amd ? "hipMalloc" : "cudaMalloc", *fre = r->is_amd ? "hipFree" : "cudaFree";
    char waits[64] = "";
    if (ac->free_calls > 0)
        snprintf(waits, sizeof waits, " (each %s also waits for the GPU)", fre);
    gd_fb_text(b, f,
               gd_format("The caching allocator goes to the driver inside the steps: %s %s and %s "
                         "%s calls per step after the first, %.1f%% of the step in them%s",
                         gd_format_per_step(mps, sizeof mps, (double)ac->malloc_calls / steps), mal,
                         gd_format_per_step(fps, sizeof fps, (double)ac->free_calls / steps), fre, 100.0 * share,
                         waits),
               gd_format("After the first step PyTorch's allocator should serve every tensor from its cache. Remove "
                         "torch.cuda.empty_cache() from the loop (%llu call%s seen), keep shapes steady (pad or "
                         "bucket variable sequence lengths), and set "
                         "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so segments grow in place instead of "
                         "being freed and allocated again (it also cuts fragmentation). Near the memory limit the "
                         "frees come from allocation retries: torch.cuda.memory_stats()[\"num_alloc_retries\"] "
                         "counts them; lower the peak then.",
                         (unsigned long long)ac->empty_cache_calls, ac->empty_cache_calls == 1 ? "" : "s"));
}
