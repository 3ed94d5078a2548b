/*
 * rules_memsave.c — the rules over what memory savings cost (issue 21;
 * docs/DEFINITIONS.md "Memory savings and what they cost"): recompute of
 * activation checkpointing, LoRA adapters, gradient accumulation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/rules_internal.h"
#include "gpudiag/memory.h"

/* Activation checkpointing whose recompute costs a large share of the step
 * (DEFINITIONS "Memory savings and what they cost", Recompute). */
void gd_rule_recompute(fbuilder *b)
{
    gpudiag_report *r = b->r;
    const gpudiag_recompute_seen *rc = &r->recompute;
    double share = gd_steady_share(r, rc->share_of_step); /* of the steady-state step */
    if (!r->step_count || !(share >= GD_RECOMPUTE_SHARE_MIN))
        return;
    /* memory headroom: silent when the trace's memory shows none (checkpointing is what makes it fit) */
    const gpudiag_memory_device *d = r->memory ? gd_memory_binding_device(r->memory) : NULL;
    if (d && !(d->activation_fits >= GD_HEADROOM_FITS_MIN))
        return;
    char headroom[200];
    if (d)
        snprintf(headroom, sizeof headroom,
                 "The memory allows it (a step's activations would fit %.1f times beside the persistent state, "
                 "MEMORY):",
                 d->activation_fits);
    else
        snprintf(headroom, sizeof headroom,
                 "If the memory allows it (record with profile_memory=True to see the headroom, or `gpudiag plan`),");
    gpudiag_finding *f = rf_add(b, GD_F_recompute_cost, sev_for_share(share), share);
    gd_fb_ev(f, "recompute_us_per_step", rc->recompute_us / (double)r->step_count);
    gd_fb_ev(f, "recompute_share_of_step", rc->share_of_step);
    gd_fb_ev(f, "recompute_share_of_kernel_time", rc->share_of_kernel_time);
    gd_fb_ev(f, "recompute_kernels", (double)rc->kernels);
    gd_fb_ev(f, "hfu", rc->hfu);
    gd_fb_ev(f, "mfu", r->mfu);
    gd_fb_ev(f, "activation_fits", d ? d->activation_fits : NAN);
    char us[32];
    gd_format_us(us, sizeof us, rc->recompute_us / (double)r->step_count, "us");
    gd_fb_text(b, f,
               gd_format("Activation checkpointing re-runs the forward in the backward: %s of kernels per step, "
                         "%.1f%% of the step (%.1f%% of kernel time)",
                         us, 100.0 * share,
                         100.0 * rc->share_of_kernel_time),
               gd_format("Checkpointing trades compute for memory. %s checkpoint fewer layers "
                         "(every 2nd block), use selective checkpointing (attention core only: Megatron "
                         "--recompute-granularity selective, torch.utils.checkpoint with a policy via "
                         "create_selective_checkpoint_contexts), or drop it and shrink the micro-batch only if "
                         "the GPU stays busy. The estimate is the whole recompute, an upper bound.",
                         headroom));
}

/* LoRA adapter GEMMs as short as their launches in a trace the host paces
 * (DEFINITIONS "LoRA adapters"). */
void gd_rule_lora(fbuilder *b)
{
    gpudiag_report *r = b->r;
    const gpudiag_lora_seen *lo = &r->lora;
    if (!lo->ops || !r->step_count)
        return;
    double mean = lo->kernel_us / (double)lo->ops;
    int host = has_finding(r, "host_launch_bound") || has_finding(r, "host_overhead");
    if (!(mean <= GD_SHORT_KERNEL_MEDIAN_US) || !host)
        return;
    double per_step = (double)lo->ops / (double)r->step_count;
    double tflops = lo->kernel_us > 0 ? lo->flops / lo->kernel_us / 1e6 : NAN;
    gpudiag_finding *f = rf_add(b, GD_F_lora_adapter_launches, GPUDIAG_SEV_MEDIUM, NAN);
    gd_fb_ev(f, "adapter_gemms_per_step", per_step);
    gd_fb_ev(f, "adapter_rank", (double)lo->rank);
    gd_fb_ev(f, "adapter_mean_kernel_us", mean);
    gd_fb_ev(f, "adapter_share_of_gemm_time", lo->share_of_gemm_time);
    gd_fb_ev(f, "adapter_achieved_tflops", tflops);
    char ps[32];
    gd_fb_text(b, f,
               gd_format("LoRA adapters (rank %d) launch %s tiny GEMM%s per step, %.1f us each at %.2f TFLOP/s, "
                         "%.1f%% of GEMM time, while the host paces the GPU",
                         lo->rank, gd_format_per_step(ps, sizeof ps, per_step), per_step == 1 ? "" : "s", mean, tflops, 100.0 * lo->share_of_gemm_time),
               gd_format("Each adapter adds two GEMMs too small to fill the GPU, so the launches cost more than the "
                         "math. For inference or evaluation merge the adapters into the base weights (peft "
                         "merge_and_unload()); for training fuse them: one GEMM for the A matrices of q/k/v "
                         "(concatenate the adapters that share an input), torch.compile or CUDA Graphs to cut "
                         "the launches, and a larger micro-batch so each GEMM does more work."));
}

/* Gradient accumulation as evidence on the findings it explains: small
 * micro-batches expose small kernels (DEFINITIONS "Gradient accumulation").
 * Runs after small_gemms and the host rules; adds no finding. */
void gd_rule_accumulation(fbuilder *b)
{
    gpudiag_report *r = b->r;
    double k = r->accumulation.micro_steps;
    if (!(k >= GD_ACCUM_MICRO_STEPS_MIN))
        return;
    static const char *const ids[] = {"small_gemms", "host_launch_bound", "host_overhead"};
    for (size_t i = 0; i < r->finding_count; i++) {
        gpudiag_finding *f = &r->findings[i];
        int hit = 0;
        for (size_t j = 0; j < sizeof ids / sizeof *ids; j++)
            hit |= strcmp(f->id, ids[j]) == 0;
        if (!hit)
            continue;
        gd_fb_ev(f, "micro_steps_per_optimizer_step", k);
        char ks[32];
        gd_format_sig3(ks, sizeof ks, k);
        gd_fb_append(b, f,
                     gd_format("The trace accumulates gradients over %s micro-steps per optimizer step, so each "
                               "kernel sees 1/%s of the batch: raise the micro-batch and lower the accumulation "
                               "by the same factor (the global batch stays) if memory allows.",
                               ks, ks));
    }
}
