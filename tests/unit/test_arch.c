/*
 * test_arch.c — the architecture a kernel name names, the family of a compute
 * capability, and the Tensor Core number formats (include/gpudiag/specs.h;
 * docs/DEFINITIONS.md "GPU metrics", architecture inferred from kernel names).
 * Names are real cuBLAS/cuDNN/CUTLASS/NCCL/Triton/PyTorch kernel names as they
 * appear in profiler traces; the expected family of each was written by hand
 * from the rule (whole-word tag, highest wins, known capabilities only).
 */
#include <string.h>

#include "gpudiag/specs.h"
#include "test.h"

/* The family of name and its capability as major*10+minor; -1 when no tag. */
static int cc_of(const char *name, const char **family)
{
    int major = -1, minor = -1;
    const char *f = gpudiag_arch_family(name, strlen(name), &major, &minor);
    if (family)
        *family = f ? f : "(none)";
    if (!f) {
        ASSERT_EQ_INT(major, -1); /* untouched */
        return -1;
    }
    return major * 10 + minor;
}

static void test_names(void)
{
    static const struct {
        const char *name;
        int cc;
        const char *family;
    } rows[] = {
        {"volta_sgemm_128x64_nn", 70, "Volta"},
        {"volta_h884gemm_64x64_ldg8_nn", 70, "Volta"},
        {"turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_nn", 75, "Turing"},
        {"ampere_sgemm_32x128_tn", 80, "Ampere"},
        {"ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn", 80, "Ampere"},
        {"sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize96x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel", 80,
         "Ampere"},
        {"sm86_xmma_fprop_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize64x32x64_stage5", 86, "Ampere"},
        {"sm89_xmma_gemm_f16f16_f16f32_f32_tn_n", 89, "Ada"},
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
         "kernel__5x_cublas",
         90, "Hopper"},
        {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8>(Params)", 80,
         "Ampere"},
        {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>(Params)", 80, "Ampere"},
        {"cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x256x64_1x2x1_0_tnn_align8_warpspecialized_"
         "cooperative_epi_tma",
         90, "Hopper"},
        {"sm90a_xmma_gemm", 90, "Hopper"},
        {"kernel_sm_80_tile", 80, "Ampere"},
        {"sm100_xmma_gemm_bf16bf16", 100, "Blackwell"},
        {"flash_fwd_kernel_hopper", 90, "Hopper"},
        {"maxwell_scudnn_128x64_relu_small_nn", 50, "Maxwell"},
        /* two tags: the highest wins (an older-named kernel beside a newer one) */
        {"volta_sgemm_sm80_variant", 80, "Ampere"},
        /* no tag: untagged library kernels, Triton, NCCL, elementwise */
        {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>", -1, "(none)"},
        {"triton_poi_fused_add_0", -1, "(none)"},
        {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", -1, "(none)"},
        {"nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_NTN", -1, "(none)"},
        /* not a whole word / not a capability: no tag */
        {"multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>>", -1, "(none)"},
        {"adagrad_update", -1, "(none)"},
        {"voltage_check", -1, "(none)"},
        {"sm81_fake", -1, "(none)"},
        {"sm8_partial", -1, "(none)"},
        {"smem_reduce_80", -1, "(none)"},
        {"cutlass_tensorop_h1688gemm", -1, "(none)"},
        {"ada_kernel", -1, "(none)"},
        {"", -1, "(none)"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *fam = NULL;
        int cc = cc_of(rows[i].name, &fam);
        if (cc != rows[i].cc || strcmp(fam, rows[i].family) != 0)
            fprintf(stderr, "row %zu: %s\n", i, rows[i].name);
        ASSERT_EQ_INT(cc, rows[i].cc);
        ASSERT_STR_EQ(fam, rows[i].family);
    }
    /* len bounds the name: "ampere" cut to "amp" is no tag; NULL outputs allowed */
    ASSERT_TRUE(gpudiag_arch_family("ampere_sgemm", 3, NULL, NULL) == NULL);
    ASSERT_STR_EQ(gpudiag_arch_family("ampere_sgemm", 6, NULL, NULL), "Ampere");
    ASSERT_TRUE(gpudiag_arch_family(NULL, 0, NULL, NULL) == NULL);
}

static void test_family_and_dtypes(void)
{
    ASSERT_STR_EQ(gpudiag_arch_name(7, 0), "Volta");
    ASSERT_STR_EQ(gpudiag_arch_name(7, 5), "Turing");
    ASSERT_STR_EQ(gpudiag_arch_name(8, 6), "Ampere");
    ASSERT_STR_EQ(gpudiag_arch_name(8, 9), "Ada");
    ASSERT_STR_EQ(gpudiag_arch_name(9, 0), "Hopper");
    ASSERT_STR_EQ(gpudiag_arch_name(12, 0), "Blackwell");
    ASSERT_TRUE(gpudiag_arch_name(-1, -1) == NULL);
    ASSERT_TRUE(gpudiag_arch_name(3, 5) == NULL);

    const unsigned fp16 = 1u << GPUDIAG_DTYPE_FP16, bf16 = 1u << GPUDIAG_DTYPE_BF16, tf32 = 1u << GPUDIAG_DTYPE_TF32;
    const unsigned int8 = 1u << GPUDIAG_DTYPE_INT8, fp8 = 1u << GPUDIAG_DTYPE_FP8;
    ASSERT_EQ_INT(gpudiag_tensor_core_dtypes(-1, -1), 0);
    ASSERT_EQ_INT(gpudiag_tensor_core_dtypes(6, 1), 0);                /* Pascal: none */
    ASSERT_EQ_INT(gpudiag_tensor_core_dtypes(7, 0), fp16);             /* V100 */
    ASSERT_EQ_INT(gpudiag_tensor_core_dtypes(7, 5), fp16 | int8);      /* T4 */
    ASSERT_EQ_INT(gpudiag_tensor_core_dtypes(8, 0), tf32 | fp16 | bf16 | int8);
    ASSERT_EQ_INT(gpudiag_tensor_core_dtypes(8, 6), tf32 | fp16 | bf16 | int8);
    ASSERT_EQ_INT(gpudiag_tensor_core_dtypes(8, 9), tf32 | fp16 | bf16 | int8 | fp8); /* L4, L40S */
    ASSERT_EQ_INT(gpudiag_tensor_core_dtypes(9, 0), tf32 | fp16 | bf16 | int8 | fp8); /* H100 */
    ASSERT_EQ_INT(gpudiag_tensor_core_dtypes(10, 0), tf32 | fp16 | bf16 | int8 | fp8);
    ASSERT_EQ_INT(gpudiag_tensor_core_dtypes(7, 0) & (1u << GPUDIAG_DTYPE_FP64), 0);
}

int main(void)
{
    test_names();
    test_family_and_dtypes();
    printf("test_arch: %d checks passed\n", gd_test_count);
    return 0;
}
