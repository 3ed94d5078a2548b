/*
 * kclass.c — name patterns for kernel classes and Tensor Core use.
 *
 * Tensor Core patterns: the PyTorch TensorBoard plugin's list (from NVIDIA
 * PyProf: h884, s884, h1688, s1688, hmma, i8816, 16816, ..., xmma_gemm,
 * c1688), extended with names that newer libraries use: Ampere/Hopper
 * cuBLAS/cuDNN "sm80_xmma"/"sm90_xmma", Hopper "gmma"/"wgmma", CUTLASS
 * "tensorop", cuBLASLt "s16816"/"bf16...gemm" variants, FlashAttention
 * kernels (which only exist as Tensor Core code) and AMD "mfma".
 */
#include "analyze/kclass.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"


/* Names are matched case-insensitively: lower-case once, then strstr (fast in
 * glibc) for each pattern, instead of a case-folding scan per pattern. */
typedef struct lname {
    char buf[512];
    char *s;
} lname;

static const char *lower(lname *l, const char *name, size_t len)
{
    l->s = len < sizeof l->buf ? l->buf : malloc(len + 1);
    if (!l->s)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        l->s[i] = c == 0 ? ' ' : (char)tolower(c);
    }
    l->s[len] = '\0';
    return l->s;
}

static void lower_free(lname *l)
{
    if (l->s && l->s != l->buf)
        free(l->s);
}

static int has(const char *lc, const char *pat)
{
    return lc && strstr(lc, pat) != NULL;
}

static const char *const tc_patterns[] = {
    /* TBP / PyProf list */
    "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "dgrad_1x1_stride_2x2",
    "first_layer_wgrad_kernel", "conv1x1", "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm",
    "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm", "xmma_gemm", "xmma_sparse_gemm", "c1688",
    /* newer architectures and libraries */
    "sm80_xmma", "sm86_xmma", "sm89_xmma", "sm90_xmma", "sm100_xmma", "gmma", "tensorop", "1688gemm",
    "16832", "s161616", "h161616", "bf16_s1688", "flash_fwd", "flash_bwd", "flash::", "fmha", "mfma",
    "nvjet", "cutlass_80_tensorop", "cutlass3x_sm90", "sm90_gemm",
};

int gd_kernel_uses_tensor_cores(const char *name, size_t len)
{
    lname l;
    const char *lc = lower(&l, name, len);
    int r = 0;
    for (size_t i = 0; i < sizeof tc_patterns / sizeof tc_patterns[0] && !r; i++)
        r = has(lc, tc_patterns[i]);
    lower_free(&l);
    return r;
}

int gd_kernel_is_comm(const char *name, size_t len)
{
    return gd_starts_with(name, len, "nccl") || gd_starts_with(name, len, "rccl") ||
           gd_icontains(name, len, "nccldevkernel") || gd_icontains(name, len, "ncclkernel");
}

static int is_memory_name(const char *name, size_t len)
{
    return gd_starts_with(name, len, "Memcpy") || gd_starts_with(name, len, "Memset") ||
           gd_starts_with(name, len, "hipMemcpy") || gd_starts_with(name, len, "hipMemset") ||
           gd_starts_with(name, len, "dma");
}

int gd_kernel_is_compute(const char *name, size_t len)
{
    /* HTA's exclusion list (hta/common/types.py), applied to names */
    if (gd_kernel_is_comm(name, len) || gd_starts_with(name, len, "hccl") || is_memory_name(name, len))
        return 0;
    if (gd_icontains(name, len, "memcpy") || gd_icontains(name, len, "memset"))
        return 0;
    if (gd_starts_with(name, len, "Stream Wait Event") || gd_ends_with(name, len, "Sync"))
        return 0;
    return 1;
}

static gpudiag_kernel_class classify(const char *name, size_t len, const char *lc)
{
    if (gd_kernel_is_comm(name, len))
        return GPUDIAG_KCLASS_COMMUNICATION;
    if (is_memory_name(name, len))
        return GPUDIAG_KCLASS_MEMORY;
    if (has(lc, "flash") || has(lc, "fmha") || has(lc, "attention") ||
        has(lc, "sdpa"))
        return GPUDIAG_KCLASS_ATTENTION;
    if (has(lc, "multi_tensor_apply") || has(lc, "fused_adam") || has(lc, "fusedadam") || has(lc, "adam_kernel") ||
        has(lc, "fused_sgd") || has(lc, "_fused_adamw") || has(lc, "adamw") || has(lc, "fused_lamb"))
        return GPUDIAG_KCLASS_OPTIMIZER;
    if (has(lc, "norm") || has(lc, "welford") || has(lc, "bn_fw") ||
        has(lc, "bn_bw"))
        return GPUDIAG_KCLASS_NORM;
    if (has(lc, "conv") || has(lc, "scudnn") || has(lc, "hcudnn") ||
        has(lc, "wgrad") || has(lc, "dgrad") || has(lc, "fprop") ||
        has(lc, "implicit_gemm") || has(lc, "winograd") ||
        has(lc, "precomputed_convolve") || has(lc, "cudnn::"))
        return GPUDIAG_KCLASS_CONV;
    if (has(lc, "gemm") || gd_starts_with(name, len, "Cijk_") || has(lc, "gemv") || has(lc, "cublas") ||
        has(lc, "cutlass") || has(lc, "xmma") || has(lc, "nvjet") ||
        has(lc, "matmul") || has(lc, "_mm_") || has(lc, "tensorop") ||
        has(lc, "dot_kernel") || has(lc, "ampere_") || has(lc, "volta_") ||
        has(lc, "turing_") || has(lc, "hopper_") || has(lc, "sm90_"))
        return GPUDIAG_KCLASS_GEMM;
    if (has(lc, "reduce") || has(lc, "softmax") || has(lc, "argmax") ||
        has(lc, "sum_kernel") || has(lc, "scan") || has(lc, "topk") ||
        has(lc, "cross_entropy") || has(lc, "nll_loss"))
        return GPUDIAG_KCLASS_REDUCTION;
    if (has(lc, "elementwise") || has(lc, "vectorized") ||
        has(lc, "unrolled") || has(lc, "pointwise") ||
        has(lc, "triton_poi") || has(lc, "fill") || has(lc, "copy") ||
        has(lc, "cat_array") || has(lc, "index") || has(lc, "gather") ||
        has(lc, "scatter") || has(lc, "relu") || has(lc, "gelu") ||
        has(lc, "silu") || has(lc, "dropout") ||
        has(lc, "pool"))
        return GPUDIAG_KCLASS_ELEMENTWISE;
    if (has(lc, "triton_red") || has(lc, "triton_per"))
        return GPUDIAG_KCLASS_REDUCTION;
    return GPUDIAG_KCLASS_OTHER;
}

gpudiag_kernel_class gd_kernel_class(const char *name, size_t len)
{
    lname l;
    const char *lc = lower(&l, name, len);
    gpudiag_kernel_class c = classify(name, len, lc);
    lower_free(&l);
    return c;
}

/* Runtime/driver calls that block the host until the GPU catches up. */
int gd_runtime_is_sync(const char *n, size_t len)
{
    /* strip a version suffix such as _v2 or _v7000 */
    for (size_t i = len; i > 2; i--) {
        if (n[i - 1] < '0' || n[i - 1] > '9') {
            if (n[i - 1] == 'v' && i >= 2 && n[i - 2] == '_' && i < len)
                len = i - 2;
            break;
        }
    }
    static const char *const exact[] = {
        "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cuCtxSynchronize",
        "cuStreamSynchronize", "cuEventSynchronize", "hipDeviceSynchronize", "hipStreamSynchronize",
        "hipEventSynchronize",
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strlen(exact[i]) == len && memcmp(n, exact[i], len) == 0)
            return 1;
    /* synchronous copies: cudaMemcpy, cudaMemcpy2D, hipMemcpy, cuMemcpyDtoH (not *Async) */
    if ((gd_starts_with(n, len, "cudaMemcpy") || gd_starts_with(n, len, "hipMemcpy") ||
         gd_starts_with(n, len, "cuMemcpy")) &&
        !gd_icontains(n, len, "async") && !gd_icontains(n, len, "withstream"))
        return 1;
    return 0;
}

/* Launch calls HTA's queue-length counter counts (trace_counters.py); cudaGraphLaunch is not among them. */
int gd_runtime_is_queue_launch(const char *n, size_t len)
{
    static const char *const names[] = {
        "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx", "cudaMemcpyAsync",
        "cudaMemsetAsync", "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync",
        "hipMemcpyWithStream",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == len && memcmp(n, names[i], len) == 0)
            return 1;
    return 0;
}

gpudiag_copy_kind gd_copy_kind(const char *name, size_t len)
{
    if (gd_icontains(name, len, "htod"))
        return GPUDIAG_COPY_H2D;
    if (gd_icontains(name, len, "dtoh"))
        return GPUDIAG_COPY_D2H;
    if (gd_icontains(name, len, "dtod"))
        return GPUDIAG_COPY_D2D;
    return GPUDIAG_COPY_OTHER;
}

int gd_copy_is_pageable(const char *name, size_t len)
{
    return gd_icontains(name, len, "pageable");
}

int gd_kernel_is_fused_optimizer(const char *name, size_t len)
{
    return gd_icontains(name, len, "multi_tensor_apply") || gd_icontains(name, len, "fused");
}
