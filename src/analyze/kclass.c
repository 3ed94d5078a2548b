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

#include <string.h>

#include "util/util.h"

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
    for (size_t i = 0; i < sizeof tc_patterns / sizeof tc_patterns[0]; i++)
        if (gd_icontains(name, len, tc_patterns[i]))
            return 1;
    return 0;
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

gpudiag_kernel_class gd_kernel_class(const char *name, size_t len)
{
    if (gd_kernel_is_comm(name, len))
        return GPUDIAG_KCLASS_COMMUNICATION;
    if (is_memory_name(name, len))
        return GPUDIAG_KCLASS_MEMORY;
    if (gd_icontains(name, len, "flash") || gd_icontains(name, len, "fmha") || gd_icontains(name, len, "attention") ||
        gd_icontains(name, len, "sdpa"))
        return GPUDIAG_KCLASS_ATTENTION;
    if (gd_icontains(name, len, "norm") || gd_icontains(name, len, "welford") || gd_icontains(name, len, "bn_fw") ||
        gd_icontains(name, len, "bn_bw"))
        return GPUDIAG_KCLASS_NORM;
    if (gd_icontains(name, len, "conv") || gd_icontains(name, len, "scudnn") || gd_icontains(name, len, "hcudnn") ||
        gd_icontains(name, len, "wgrad") || gd_icontains(name, len, "dgrad") || gd_icontains(name, len, "fprop") ||
        gd_icontains(name, len, "implicit_gemm") || gd_icontains(name, len, "winograd") ||
        gd_icontains(name, len, "precomputed_convolve") || gd_icontains(name, len, "cudnn::"))
        return GPUDIAG_KCLASS_CONV;
    if (gd_icontains(name, len, "gemm") || gd_icontains(name, len, "gemv") || gd_icontains(name, len, "cublas") ||
        gd_icontains(name, len, "cutlass") || gd_icontains(name, len, "xmma") || gd_icontains(name, len, "nvjet") ||
        gd_icontains(name, len, "matmul") || gd_icontains(name, len, "_mm_") || gd_icontains(name, len, "tensorop") ||
        gd_icontains(name, len, "dot_kernel") || gd_icontains(name, len, "ampere_") || gd_icontains(name, len, "volta_") ||
        gd_icontains(name, len, "turing_") || gd_icontains(name, len, "hopper_") || gd_icontains(name, len, "sm90_"))
        return GPUDIAG_KCLASS_GEMM;
    if (gd_icontains(name, len, "reduce") || gd_icontains(name, len, "softmax") || gd_icontains(name, len, "argmax") ||
        gd_icontains(name, len, "sum_kernel") || gd_icontains(name, len, "scan") || gd_icontains(name, len, "topk") ||
        gd_icontains(name, len, "cross_entropy") || gd_icontains(name, len, "nll_loss"))
        return GPUDIAG_KCLASS_REDUCTION;
    if (gd_icontains(name, len, "elementwise") || gd_icontains(name, len, "vectorized") ||
        gd_icontains(name, len, "unrolled") || gd_icontains(name, len, "pointwise") ||
        gd_icontains(name, len, "triton_poi") || gd_icontains(name, len, "fill") || gd_icontains(name, len, "copy") ||
        gd_icontains(name, len, "cat_array") || gd_icontains(name, len, "index") || gd_icontains(name, len, "gather") ||
        gd_icontains(name, len, "scatter") || gd_icontains(name, len, "relu") || gd_icontains(name, len, "gelu") ||
        gd_icontains(name, len, "silu") || gd_icontains(name, len, "dropout") || gd_icontains(name, len, "adam") ||
        gd_icontains(name, len, "sgd") || gd_icontains(name, len, "multi_tensor_apply") ||
        gd_icontains(name, len, "pool"))
        return GPUDIAG_KCLASS_ELEMENTWISE;
    if (gd_icontains(name, len, "triton_red") || gd_icontains(name, len, "triton_per"))
        return GPUDIAG_KCLASS_REDUCTION;
    return GPUDIAG_KCLASS_OTHER;
}
