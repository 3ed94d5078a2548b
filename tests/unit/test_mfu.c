/*
 * test_mfu.c — parameter counts, FLOPs per token and MFU against published
 * numbers reproduced from their own inputs:
 *  - parameter counts of the presets = the totals Hugging Face reports for
 *    each checkpoint (num_parameters());
 *  - torchtitan Llama 3.1 8B on 8 H100: 5,762 / 6,667 tokens/s per GPU ->
 *    33.7 % / 39.0 % MFU (benchmarks/llama3_h100_202412_torchtitan.md);
 *  - PaLM 540B: 238.3K tokens/s on 6144 TPU v4 at 275 TFLOP/s -> 46.2 % MFU
 *    (45.7 % without the attention term) (PaLM Sec. 4 / App. B);
 *  - nanoGPT estimate_mfu: N = 123.69M for GPT-2 124M with the padded vocab
 *    50304, and its flops_per_iter / dt / 312e12 arithmetic.
 */
#include <math.h>

#include "gpudiag/mfu.h"
#include "test.h"

static double params_total(const char *preset)
{
    gpudiag_param_count pc;
    const gpudiag_model_config *m = gpudiag_model_preset_find(preset);
    ASSERT_TRUE(m != NULL);
    ASSERT_EQ_INT(gpudiag_model_params(m, &pc, NULL), GPUDIAG_OK);
    return pc.total;
}

static void test_presets(void)
{
    ASSERT_EQ_INT(gpudiag_model_preset_count(), 9);
    ASSERT_NEAR(params_total("llama2-7b"), 6738415616.0, 0);
    ASSERT_NEAR(params_total("llama2-13b"), 13015864320.0, 0);
    ASSERT_NEAR(params_total("llama2-70b"), 68976648192.0, 0);
    ASSERT_NEAR(params_total("llama3-8b"), 8030261248.0, 0);
    ASSERT_NEAR(params_total("Llama-3.1-8B"), 8030261248.0, 0);
    ASSERT_NEAR(params_total("llama3-70b"), 70553706496.0, 0);
    ASSERT_NEAR(params_total("gpt2"), 124439808.0, 0);
    ASSERT_NEAR(params_total("gpt2-medium"), 354823168.0, 0);
    ASSERT_NEAR(params_total("gpt2-large"), 774030080.0, 0);
    ASSERT_NEAR(params_total("gpt2-xl"), 1557611200.0, 0);
    ASSERT_NEAR(params_total("gpt2-1.5b"), 1557611200.0, 0);
    ASSERT_TRUE(gpudiag_model_preset_find("llama4") == NULL);
}

static void test_torchtitan(void)
{
    gpudiag_param_count pc;
    gpudiag_model_params(gpudiag_model_preset_find("llama3-8b"), &pc, NULL);
    /* 525,336,576 = 128,256 x 4,096 input embedding, left out (untied) */
    ASSERT_NEAR(pc.embedding, 525336576.0, 0);
    ASSERT_NEAR(pc.matmul, 7504924672.0, 0);
    gpudiag_flops_in in = {pc.matmul, 32, 32, 128, 8192, 0, GPUDIAG_RECOMPUTE_NONE};
    gpudiag_flops f;
    ASSERT_EQ_INT(gpudiag_flops_per_token(&in, &f, NULL), GPUDIAG_OK);
    ASSERT_NEAR(f.params_term, 6.0 * 7504924672.0, 0);
    ASSERT_NEAR(f.attention_term, 12.0 * 32 * 32 * 128 * 8192, 0);
    ASSERT_NEAR(f.model, 57.91e9, 0.01e9);
    gpudiag_mfu r;
    ASSERT_EQ_INT(gpudiag_mfu_compute(&f, 5762, 989.4, &r, NULL), GPUDIAG_OK);
    ASSERT_NEAR(r.mfu, 0.337, 0.0005);
    ASSERT_NEAR(r.model_tflops_per_gpu, 333.7, 0.1);
    ASSERT_NEAR(r.hfu, r.mfu, 0);
    gpudiag_mfu_compute(&f, 6667, 989.4, &r, NULL);
    ASSERT_NEAR(r.mfu, 0.390, 0.0005);
}

static void test_palm(void)
{
    gpudiag_flops_in in = {540.35e9, 118, 48, 256, 2048, 0, GPUDIAG_RECOMPUTE_NONE};
    gpudiag_flops f;
    gpudiag_mfu r;
    gpudiag_flops_per_token(&in, &f, NULL);
    ASSERT_EQ_INT(gpudiag_mfu_compute(&f, 238.3e3 / 6144, 275, &r, NULL), GPUDIAG_OK);
    ASSERT_NEAR(r.mfu, 0.462, 0.0005);
    in.layers = 0; /* without the attention term */
    gpudiag_flops_per_token(&in, &f, NULL);
    gpudiag_mfu_compute(&f, 238.3e3 / 6144, 275, &r, NULL);
    ASSERT_NEAR(r.mfu, 0.457, 0.0005);
    /* PaLM's HFU 57.8 % is 1.251 x its MFU: PaLM rematerialised part of the
     * forward pass (its exact policy is not published).  Full recompute gives
     * 4/3 x = 61.6 %, no recompute 46.2 %: 57.8 lies between, as it must. */
    in.layers = 118;
    in.recompute = GPUDIAG_RECOMPUTE_FULL;
    gpudiag_flops_per_token(&in, &f, NULL);
    gpudiag_mfu_compute(&f, 238.3e3 / 6144, 275, &r, NULL);
    ASSERT_NEAR(r.hfu, 0.616, 0.0005);
    ASSERT_TRUE(r.hfu > 0.578 && r.mfu < 0.578);
}

static void test_nanogpt(void)
{
    /* nanoGPT GPTConfig for GPT-2 124M: vocab padded to 50304, tied wte, wpe, biases */
    gpudiag_model_config c = {NULL, NULL, 12, 768, 12, 12, 0, 3072, 50304, 1024, 0, 1, 1, 1, 0, 0};
    gpudiag_param_count pc;
    ASSERT_EQ_INT(gpudiag_model_params(&c, &pc, NULL), GPUDIAG_OK);
    ASSERT_NEAR(pc.total, 124475904.0, 0);
    ASSERT_NEAR(pc.matmul, 123689472.0, 0); /* nanoGPT prints "number of parameters: 123.69M" */
    gpudiag_flops_in in = {pc.matmul, 12, 12, 64, 1024, 0, GPUDIAG_RECOMPUTE_NONE};
    gpudiag_flops f;
    gpudiag_flops_per_token(&in, &f, NULL);
    ASSERT_NEAR(f.model, 6.0 * 123689472 + 12.0 * 12 * 12 * 64 * 1024, 0);
    /* estimate_mfu(fwdbwd_per_iter = 12 x 5, dt = 0.5 s) with its 312e12 A100 peak */
    double dt = 0.5, flops_per_iter = f.model * 1024 * 12 * 5;
    gpudiag_mfu r;
    gpudiag_mfu_compute(&f, 12.0 * 5 * 1024 / dt, 312, &r, NULL);
    ASSERT_NEAR(r.mfu, flops_per_iter / dt / 312e12, 1e-12);
}

static void test_recompute_moe(void)
{
    gpudiag_flops_in in = {1e9, 10, 8, 64, 1000, 0, GPUDIAG_RECOMPUTE_FULL};
    gpudiag_flops f;
    gpudiag_flops_per_token(&in, &f, NULL);
    ASSERT_NEAR(f.hardware / f.model, 4.0 / 3.0, 1e-12);
    in.recompute = GPUDIAG_RECOMPUTE_SELECTIVE;
    gpudiag_flops_per_token(&in, &f, NULL);
    ASSERT_NEAR(f.recompute, 4.0 * 10 * 8 * 64 * 1000, 0);
    in.causal_half = 1;
    gpudiag_flops_per_token(&in, &f, NULL);
    ASSERT_NEAR(f.attention_term, 6.0 * 10 * 8 * 64 * 1000, 0);
    ASSERT_NEAR(f.recompute, 2.0 * 10 * 8 * 64 * 1000, 0);
    in.n_params = 0;
    ASSERT_EQ_INT(gpudiag_flops_per_token(&in, &f, NULL), GPUDIAG_ERR_ARG);

    /* MoE by hand: L 2, h 8, 2 heads (dim 4), gated ffn 16, vocab 10, 4 experts, top-1.
     * attention 4*8*8 = 256, one expert MLP 3*8*16 = 384, router 8*4 = 32, norms 16 per layer;
     * total = 2*(256 + 4*384 + 32 + 16) + 80 (embedding) + 80 (head) + 8 (final norm) = 3848 */
    gpudiag_model_config c = {NULL, NULL, 2, 8, 2, 2, 0, 16, 10, 32, 1, 0, 0, 0, 4, 1};
    gpudiag_param_count pc;
    ASSERT_EQ_INT(gpudiag_model_params(&c, &pc, NULL), GPUDIAG_OK);
    ASSERT_NEAR(pc.total, 3848, 0);
    ASSERT_NEAR(pc.embedding, 80, 0);
    ASSERT_NEAR(pc.matmul, 3768, 0);
    ASSERT_NEAR(pc.active_matmul, 3768 - 2 * 3 * 384, 0);
    c.top_k = 5; /* more than the experts */
    ASSERT_EQ_INT(gpudiag_model_params(&c, &pc, NULL), GPUDIAG_ERR_ARG);
    gpudiag_mfu r;
    ASSERT_EQ_INT(gpudiag_mfu_compute(&f, 0, 100, &r, NULL), GPUDIAG_ERR_ARG);
}

int main(void)
{
    test_presets();
    test_torchtitan();
    test_palm();
    test_nanogpt();
    test_recompute_moe();
    printf("test_mfu: %d checks passed\n", gd_test_count);
    return 0;
}
