/*
 * rules_kernel.c — the kernel and roofline rules: what the kernels themselves
 * do (memory-bound classes, unfused attention, small GEMMs, Tensor Core use)
 * and low MFU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/rules_internal.h"
#include "gpudiag/roofline.h"
#include "gpudiag/specs.h"

/* The Kernel role's share of the step that the recorded kernels account for: the
 * Kernel role also holds whole-graph rows of an Nsight export made without node
 * tracing (DEFINITIONS "Nsight Systems exports", graph rows), whose kernels are
 * unknown, so rules that scale a kernel-class share by it take the recorded
 * kernels' part of that time only.  A share of the steady-state step
 * (gd_steady_share). */
static double known_kernel_share(const gpudiag_report *r)
{
    double k = gd_steady_share(r, role_share(r, GPUDIAG_ROLE_KERNEL));
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
unsigned gd_tc_dtypes(const gpudiag_report *r)
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

void gd_rule_memory_bound(fbuilder *b)
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
    gd_fb_ev(f, "elementwise_share", r->class_share[GPUDIAG_KCLASS_ELEMENTWISE]);
    gd_fb_ev(f, "norm_share", r->class_share[GPUDIAG_KCLASS_NORM]);
    gd_fb_ev(f, "reduction_share", r->class_share[GPUDIAG_KCLASS_REDUCTION]);
    gd_fb_ev(f, "kernel_share_of_step", kshare);
    gd_fb_text(b, f,
         gd_format("Elementwise, normalisation and reduction kernels take %.1f%% of GPU time: the GPU mostly "
                   "moves memory rather than computes",
                   100.0 * mem),
         rf_pytorch(b)
             ? gd_format("Fuse them: torch.compile(model) generates fused Triton kernels for chains of pointwise "
                         "ops and norms; use fused implementations (apex/Transformer Engine LayerNorm and RMSNorm, "
                         "fused bias+activation, fused optimizers), channels_last for convolutional nets, and bf16 "
                         "to halve the bytes moved.")
             : gd_format("Fuse them: merge consecutive kernels that read and write the same arrays into one (one "
                         "pass over memory instead of several), keep intermediate values in registers or shared "
                         "memory, and use narrower types (fp16/bf16) where the precision allows to halve the bytes "
                         "moved."));
}

void gd_rule_attention(fbuilder *b)
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

/* GEMMs too small to fill the GPU: fewer thread blocks than SMs. */
void gd_rule_small_gemms(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (!r->step_count || !(r->avg_step_us > 0) || !(r->kernel_time_us > 0) || !(r->gemm_blocks_known_us > 0))
        return;
    double gemm_share = r->class_share[GPUDIAG_KCLASS_GEMM];
    double under = r->gemm_underfilled_share;
    if (gemm_share < GD_GEMM_SHARE_MIN || under < GD_GEMM_UNDERFILLED_MIN)
        return;
    double gain = gd_steady_share(r, r->gemm_sm_idle_us / ((double)r->step_count * r->avg_step_us));
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

void gd_rule_tensor_cores(fbuilder *b)
{
    gpudiag_report *r = b->r;
    if (isnan(r->tensor_core_share) || r->tensor_core_share > GD_TC_SHARE_MAX || !(r->kernel_time_us > 0))
        return;
    int major = max_compute_major(r);
    unsigned tcd = gd_tc_dtypes(r); /* include/gpudiag/specs.h: none below Volta, none known on AMD here */
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
         !rf_pytorch(b)
             ? gd_format("Use Tensor Core math: run the GEMMs and convolutions in %s (cuBLAS cublasGemmEx / "
                         "cublasLt with a half-precision or TF32 compute type, CUBLAS_TENSOR_OP_MATH; cuDNN "
                         "CUDNN_TENSOR_OP_MATH), keeping fp32 accumulation, and keep matrix dimensions multiples "
                         "of 8.",
                         (tcd & (1u << GPUDIAG_DTYPE_BF16)) ? "bf16/fp16, or at least TF32 for fp32 data," : "fp16")
         : (tcd & (1u << GPUDIAG_DTYPE_BF16))
             ? gd_format("Use mixed precision: torch.autocast(device_type='cuda', dtype=torch.bfloat16). At "
                         "least allow TF32 for fp32 matmuls and convolutions: "
                         "torch.backends.cuda.matmul.allow_tf32 = True (or "
                         "torch.set_float32_matmul_precision('high')) and torch.backends.cudnn.allow_tf32 = "
                         "True. Keep GEMM dimensions multiples of 8.")
             : gd_format("Use mixed precision: torch.autocast(device_type='cuda', dtype=torch.float16) with "
                         "torch.cuda.amp.GradScaler (this GPU has fp16 Tensor Cores but no bf16/TF32). Keep "
                         "GEMM dimensions and channel counts multiples of 8."));
}

/* MFU below what tuned training reaches: the symptom, with the gap split by
 * the causes found (their est_gain are shares of the step). */
void gd_rule_low_mfu(fbuilder *b)
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
