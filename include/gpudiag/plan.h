/*
 * plan.h — the memory bill and the time cost of a training setup, before
 * running it (docs/DEFINITIONS.md "Training plan").
 *
 * Sources: ZeRO (Rajbhandari et al. 2019, arXiv:1910.02054) for model states
 * (mixed-precision Adam 16 bytes/parameter) and their partitioning; Korthikanti
 * et al. 2022 (arXiv:2205.05198) for activations per layer s·b·h·(34 + 5·a·s/h);
 * ZeRO-Offload (Ren et al. 2021, arXiv:2101.06840) for PCIe bytes per step;
 * LoRA (Hu et al. 2021) for adapters; PaLM App. B for FLOPs.
 *
 * Units: bytes (double, exact for any real size), seconds, fractions 0..1.
 * Unknown is NaN.
 */
#ifndef GPUDIAG_PLAN_H
#define GPUDIAG_PLAN_H

#include "gpudiag/gpudiag.h"
#include "gpudiag/mfu.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Optimizers and their bytes per trained parameter (weights + gradients + states). */
typedef enum gpudiag_optimizer {
    GPUDIAG_OPT_ADAM = 0,      /**< mixed precision: bf16 weights 2 + bf16 grads 2 + fp32 master, m, v 12 = 16 */
    GPUDIAG_OPT_ADAM_BF16,     /**< pure bf16, no master copy: 2 + 2 + fp32 m, v 8 = 12 */
    GPUDIAG_OPT_ADAM_8BIT,     /**< 8-bit states with fp32 master: 2 + 2 + 4 + 1 + 1 = 10 */
    GPUDIAG_OPT_SGD,           /**< momentum + fp32 master: 2 + 2 + 8 = 12 */
    GPUDIAG_OPT_ADAM_FP32,     /**< fp32 training: 4 + 4 + 8 = 16 */
    GPUDIAG_OPT_COUNT
} gpudiag_optimizer;

/** "adam", "adam-bf16", "adam-8bit", "sgd", "adam-fp32". */
const char *gpudiag_optimizer_name(gpudiag_optimizer o);
/** Parse an optimizer name; 0 or -1. */
int gpudiag_optimizer_parse(const char *name, gpudiag_optimizer *out);

/** What is kept in host memory instead of the GPU. */
typedef enum gpudiag_offload {
    GPUDIAG_OFFLOAD_NONE = 0,
    GPUDIAG_OFFLOAD_OPTIMIZER, /**< ZeRO-Offload: fp32 master + states on the CPU, Adam runs there */
    GPUDIAG_OFFLOAD_PARAMS     /**< ZeRO-Infinity style: the 16-bit parameters too */
} gpudiag_offload;

/** "none", "optimizer", "params". */
const char *gpudiag_offload_name(gpudiag_offload o);

/** A training (or inference) setup. */
typedef struct gpudiag_plan_in {
    /* the model: counts and shapes (layers..seq from a config; 0 = unknown) */
    double params_total;      /**< Ψ, every parameter (all experts) */
    double params_matmul;     /**< N of 6N, active per token */
    int layers, hidden, heads, kv_heads, head_dim, seq;
    /* the setup */
    int micro_batch;          /**< sequences per micro-batch per GPU (b) */
    int grad_accum;           /**< micro-batches per optimizer step (>= 1) */
    int gpus;                 /**< data-parallel GPUs (N_d) */
    int zero_stage;           /**< 0..3 (FSDP FULL_SHARD = 3, SHARD_GRAD_OP = 2) */
    gpudiag_optimizer optimizer;
    gpudiag_recompute recompute;
    int flash_attention;      /**< 1: the s×s scores are never stored (drops the 5as/h term) */
    int lora_rank;            /**< 0: full training; else LoRA adapters of this rank */
    double lora_params;       /**< adapter parameters (from gpudiag_lora_params); used when lora_rank > 0 */
    int base_bits;            /**< frozen base weights with LoRA: 16 (default) or 4 (QLoRA NF4, ~0.5 B/param + 0.127 bit) */
    gpudiag_offload offload;
    int inference;            /**< 1: weights + KV cache only (micro_batch sequences of seq tokens) */
    /* the GPU: NaN for unknown */
    double gpu_mem_bytes;     /**< capacity to compare with */
    double peak_tflops;       /**< dense peak of the matmul dtype */
    double pcie_gbs_per_dir;  /**< host link, GB/s per direction */
    double ridge;             /**< FLOP per byte, for the micro-batch GEMM check */
    double efficiency;        /**< assumed fraction of peak the step reaches (MFU-like), e.g. 0.5 */
} gpudiag_plan_in;

/** The bill and the time side. */
typedef struct gpudiag_plan {
    /* memory per GPU, bytes */
    double weights, gradients, optimizer, activations, kv_cache, total;
    double activation_per_layer;  /**< bytes of one layer's activations for one micro-batch */
    double host_bytes;            /**< what offload keeps in CPU memory per GPU */
    double trainable_params;      /**< Ψ, or the LoRA adapter count */
    int fits;                     /**< 1 fits, 0 does not, -1 capacity unknown */
    /* time per optimizer step, per GPU */
    double tokens_per_step_per_gpu;
    double model_flops_per_step;  /**< model FLOPs per GPU per step (6N + attention) */
    double hardware_flops_per_step; /**< with recomputation */
    double recompute_share;       /**< extra FLOPs / model FLOPs (1/3 for full) */
    double compute_s;             /**< hardware FLOPs / (peak × efficiency) */
    double pcie_h2d_bytes, pcie_d2h_bytes; /**< offload traffic per step per GPU */
    double pcie_s;                /**< max(h2d, d2h) / per-direction rate (full duplex) */
    double micro_tokens;          /**< tokens per micro-batch GEMM row dimension (b·s) */
    int gemm_memory_bound;        /**< 1 when micro_tokens < ridge (linear layers' AI ≈ b·s), -1 unknown */
    const char *binds;            /**< "memory_capacity", "pcie_bandwidth", "compute", or "unknown"; static */
} gpudiag_plan;

/** LoRA adapter parameters: r × (in + out) for each targeted matrix, per
 *  layer.  targets: comma-separated from q,k,v,o,gate,up,down (Llama names;
 *  "all" = all seven).  Needs hidden, heads, kv_heads, head_dim, ffn, layers
 *  of the config.  Returns NaN on an unknown target. */
double gpudiag_lora_params(const gpudiag_model_config *m, int rank, const char *targets);

/**
 * Compute the plan.  GPUDIAG_ERR_ARG when the parameter count is not
 * positive, micro_batch/grad_accum/gpus < 1, zero_stage outside 0..3, or
 * activations are asked for without layers, hidden, heads and seq.
 */
gpudiag_status gpudiag_plan_compute(const gpudiag_plan_in *in, gpudiag_plan *out, gpudiag_error *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUDIAG_PLAN_H */
