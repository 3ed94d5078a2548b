/*
 * test_plan.c — the memory bill against the worked figures of the sources,
 * each recomputed by hand here:
 *  - 7B in BF16 = 14 GB of weights; Adam states 2x (fp32) to 4x (bf16) the weights;
 *  - ZeRO paper Fig. 1: 7.5B on 64 GPUs, model states 120 / 31.4 / 16.6 / 1.9 GB;
 *  - Korthikanti et al.: s=4096, b=1, h=4096, a=32, 32 layers: 194·sbh per layer
 *    (104 GB), 34·sbh with FlashAttention (18.3 GB), 2·sbh with full recompute;
 *  - KV cache of Llama 3 8B: 128 KiB per token, 1 GiB per 8K sequence;
 *  - ZeRO-Offload of 7B on one GPU: 14 GB each way per step, 0.44 s at 31.5 GB/s;
 *  - LoRA r=8 on q,v of Llama 2 7B: 4,194,304 trainable parameters (PEFT's count).
 */
#include <math.h>

#include "gpudiag/plan.h"
#include "test.h"

static gpudiag_plan_in base(double psi)
{
    gpudiag_plan_in in = {0};
    in.params_total = in.params_matmul = psi;
    in.layers = 32;
    in.hidden = 4096;
    in.heads = 32;
    in.seq = 4096;
    in.micro_batch = in.grad_accum = in.gpus = 1;
    in.base_bits = 16;
    in.gpu_mem_bytes = in.peak_tflops = in.pcie_gbs_per_dir = in.ridge = NAN;
    in.efficiency = 0.5;
    return in;
}

static double states(const gpudiag_plan *p)
{
    return p->weights + p->gradients + p->optimizer;
}

int main(void)
{
    gpudiag_plan p;
    gpudiag_plan_in in = base(7e9);
    ASSERT_EQ_INT(gpudiag_plan_compute(&in, &p, NULL), GPUDIAG_OK);
    ASSERT_NEAR(p.weights, 14e9, 0);
    ASSERT_NEAR(p.gradients, 14e9, 0);
    ASSERT_NEAR(p.optimizer, 84e9, 0); /* fp32 master + m + v */
    in.optimizer = GPUDIAG_OPT_ADAM_BF16;
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_NEAR(p.optimizer / p.weights, 4, 1e-12);
    in.optimizer = GPUDIAG_OPT_ADAM_FP32;
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_NEAR(p.optimizer / p.weights, 2, 1e-12);
    ASSERT_NEAR(states(&p), 16 * 7e9, 0);

    /* ZeRO Fig. 1 */
    in = base(7.5e9);
    in.gpus = 64;
    const double want[4] = {120e9, 31.40625e9, 16.640625e9, 1.875e9};
    for (int s = 0; s <= 3; s++) {
        in.zero_stage = s;
        gpudiag_plan_compute(&in, &p, NULL);
        ASSERT_NEAR(states(&p), want[s], 1);
    }

    /* activations (Korthikanti) */
    in = base(7e9);
    double sbh = 4096.0 * 4096.0;
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_NEAR(p.activation_per_layer, sbh * 194, 0);
    ASSERT_NEAR(p.activations, 32 * sbh * 194, 0);
    ASSERT_NEAR(p.activations / 1e9, 104.2, 0.05);
    in.flash_attention = 1;
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_NEAR(p.activations / 1e9, 18.25, 0.01);
    in.flash_attention = 0;
    in.recompute = GPUDIAG_RECOMPUTE_SELECTIVE;
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_NEAR(p.activation_per_layer, 34 * sbh, 0);
    ASSERT_NEAR(p.recompute_share, 4.0 * 32 * 32 * 128 * 4096 / (6 * 7e9 + 12.0 * 32 * 32 * 128 * 4096), 1e-12);
    in.recompute = GPUDIAG_RECOMPUTE_FULL;
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_NEAR(p.activation_per_layer, 2 * sbh, 0);
    ASSERT_NEAR(p.activations, 32 * 2 * sbh + 194 * sbh, 0); /* + the layer being rebuilt */
    ASSERT_NEAR(p.recompute_share, 1.0 / 3.0, 1e-12);
    in.micro_batch = 2; /* linear in b */
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_NEAR(p.activation_per_layer, 4 * sbh, 0);

    /* KV cache: Llama 3 8B, one 8K sequence in bf16 */
    in = base(8.03e9);
    in.kv_heads = 8;
    in.head_dim = 128;
    in.seq = 8192;
    in.inference = 1;
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_NEAR(p.kv_cache, 1073741824.0, 0);
    ASSERT_NEAR(p.kv_cache / 8192, 131072, 0);
    ASSERT_NEAR(p.total, 2 * 8.03e9 + 1073741824.0, 0);

    /* ZeRO-Offload, 7B, 1 GPU, PCIe Gen4 */
    in = base(7e9);
    in.offload = GPUDIAG_OFFLOAD_OPTIMIZER;
    in.pcie_gbs_per_dir = 31.5;
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_NEAR(p.pcie_h2d_bytes, 14e9, 0);
    ASSERT_NEAR(p.pcie_d2h_bytes, 14e9, 0);
    ASSERT_NEAR(p.pcie_s, 14.0 / 31.5, 1e-12);
    ASSERT_NEAR(p.optimizer, 0, 0);
    ASSERT_NEAR(p.host_bytes, 84e9, 0);
    /* with ZeRO-2 over 8 GPUs each moves 1/8 */
    in.gpus = 8;
    in.zero_stage = 2;
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_NEAR(p.pcie_h2d_bytes, 14e9 / 8, 1);

    /* which resource binds: compute 6N+attn FLOPs x 4096 tokens at 50% of 100 TFLOP/s */
    in = base(7e9);
    in.offload = GPUDIAG_OFFLOAD_OPTIMIZER;
    in.pcie_gbs_per_dir = 31.5;
    in.peak_tflops = 100;
    in.gpu_mem_bytes = 200e9;
    gpudiag_plan_compute(&in, &p, NULL);
    double flops = (6 * 7e9 + 12.0 * 32 * 32 * 128 * 4096) * 4096;
    ASSERT_NEAR(p.compute_s, flops / 50e12, 1e-9);
    ASSERT_STR_EQ(p.binds, "compute"); /* 3.8 s of compute > 0.44 s of PCIe */
    in.peak_tflops = 2000;
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_STR_EQ(p.binds, "pcie_bandwidth"); /* 0.19 s < 0.44 s */
    in.gpu_mem_bytes = 20e9;
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_EQ_INT(p.fits, 0);
    ASSERT_STR_EQ(p.binds, "memory_capacity");
    /* micro-batch GEMMs against the ridge */
    in.ridge = 153;
    in.seq = 128;
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_EQ_INT(p.gemm_memory_bound, 1);

    /* LoRA on Llama 2 7B */
    gpudiag_model_config llama = *gpudiag_model_preset_find("llama2-7b");
    ASSERT_NEAR(gpudiag_lora_params(&llama, 8, "q,v"), 4194304, 0);
    ASSERT_NEAR(gpudiag_lora_params(&llama, 8, "q,k,v,o,gate,up,down"), gpudiag_lora_params(&llama, 8, "all"), 0);
    ASSERT_NEAR(gpudiag_lora_params(&llama, 8, "all"), 8.0 * 32 * (4 * 8192 + 3 * (4096 + 11008)), 0);
    ASSERT_NAN(gpudiag_lora_params(&llama, 8, "q,x"));
    in = base(6738415616.0);
    in.lora_rank = 8;
    in.lora_params = 4194304;
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_NEAR(p.weights, 2 * 6738415616.0 + 2 * 4194304, 0);
    ASSERT_NEAR(p.gradients + p.optimizer, 14 * 4194304.0, 0);
    in.base_bits = 4;
    gpudiag_plan_compute(&in, &p, NULL);
    ASSERT_NEAR(p.weights, (0.5 + 0.127 / 8) * 6738415616.0 + 2 * 4194304, 1);

    in.micro_batch = 0;
    ASSERT_EQ_INT(gpudiag_plan_compute(&in, &p, NULL), GPUDIAG_ERR_ARG);
    in = base(7e9);
    in.layers = 0;
    ASSERT_EQ_INT(gpudiag_plan_compute(&in, &p, NULL), GPUDIAG_ERR_ARG);
    printf("test_plan: %d checks passed\n", gd_test_count);
    return 0;
}
