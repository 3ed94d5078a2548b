/*
 * mfu.h — model FLOPs and MFU / HFU (docs/DEFINITIONS.md "MFU / HFU").
 *
 * Definitions: PaLM (Chowdhery et al. 2022, arXiv:2204.02311, Sec. 4 and
 * App. B).  Model FLOPs per token = 6N + 12·L·H·Q·T, where N is the number of
 * parameters used in matmuls (every parameter except the input token and
 * position embeddings; a tied output head counts), L layers, H attention
 * heads, Q head dimension, T sequence length.  6N = 2N forward + 4N backward;
 * 12·L·H·Q·T is QKᵀ and attention×V over the full T×T square (halved with
 * `causal_half`, the convention of Megatron-LM since 2025).
 * MFU = model FLOPs per token × tokens/s per GPU ÷ peak FLOP/s per GPU.
 * HFU counts the FLOPs the hardware runs, recomputation included.
 *
 * Units: FLOPs per token as a count (double), TFLOP/s = 1e12 FLOP/s, tokens/s,
 * fractions 0..1.  Unknown is NaN.  Static data (presets, anchors) lives for
 * the process and is never freed.
 */
#ifndef GPUDIAG_MFU_H
#define GPUDIAG_MFU_H

#include <stddef.h>

#include "gpudiag/gpudiag.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A decoder-only transformer, as its published config describes it. */
typedef struct gpudiag_model_config {
    const char *name;       /**< preset name ("llama3-8b"), or NULL for a user config */
    const char *source;     /**< where the numbers come from (presets), or NULL */
    int layers;             /**< L (num_hidden_layers / n_layer) */
    int hidden;             /**< d_model (hidden_size / n_embd) */
    int heads;              /**< H, attention heads */
    int kv_heads;           /**< key/value heads (GQA); = heads for multi-head attention */
    int head_dim;           /**< Q; 0 means hidden / heads */
    int ffn;                /**< MLP inner size (intermediate_size; 4·hidden for GPT-2) */
    int vocab;              /**< vocabulary size */
    int seq;                /**< T, training sequence length (context) */
    int gated_mlp;          /**< 1: SwiGLU/GeGLU MLP with 3 matrices (Llama); 0: 2 matrices (GPT-2) */
    int tied_embeddings;    /**< 1: the output head is the token embedding (GPT-2) */
    int learned_positions;  /**< 1: a seq × hidden position embedding (GPT-2's wpe) */
    int biases;             /**< 1: Linear and LayerNorm biases (GPT-2); 0: none, RMSNorm (Llama) */
    int experts;            /**< MoE: routed experts per layer (each an MLP); 0 or 1 = dense */
    int top_k;              /**< MoE: routed experts per token */
} gpudiag_model_config;

/** Parameter counts of a config (exact integers held in doubles). */
typedef struct gpudiag_param_count {
    double total;           /**< every parameter (all experts) */
    double embedding;       /**< token (+ position) embedding tables, not used as matmuls
                                 (a tied token embedding is the output head, so it is not here) */
    double matmul;          /**< total − embedding: N of 6N for a dense model */
    double active_matmul;   /**< MoE: matmul with only top_k of the experts' MLPs and the
                                 router; = matmul for a dense model */
} gpudiag_param_count;

/** Presets: Llama 2 7B/13B/70B, Llama 3 8B/70B, GPT-2 124M/355M/774M/1.5B
 *  (Hugging Face config.json of each).  Count and index access. */
size_t gpudiag_model_preset_count(void);
const gpudiag_model_config *gpudiag_model_preset_at(size_t i);
/** A preset by name, case-insensitive ("llama3-8b", "gpt2-xl"; "llama-3-8b" and
 *  "llama3.1-8b" are accepted too).  NULL if unknown. */
const gpudiag_model_config *gpudiag_model_preset_find(const char *name);

/**
 * Count the parameters of a config: per layer the attention projections
 * (Q and O hidden×heads·Q, K and V hidden×kv_heads·Q), the MLP (2 or 3
 * matrices of hidden×ffn, × experts for MoE, plus a hidden×experts router),
 * two norms (RMSNorm weight, or LayerNorm weight+bias), GPT-2's biases; then
 * the embeddings, the output head (unless tied) and the final norm.
 * Returns GPUDIAG_ERR_ARG for a config with non-positive sizes.
 */
gpudiag_status gpudiag_model_params(const gpudiag_model_config *m, gpudiag_param_count *out, gpudiag_error *err);

/** Activation recomputation (checkpointing) during the backward pass. */
typedef enum gpudiag_recompute {
    GPUDIAG_RECOMPUTE_NONE = 0,
    GPUDIAG_RECOMPUTE_SELECTIVE, /**< the attention core (QKᵀ, softmax, ×V) runs forward again:
                                      + 4·L·H·Q·T per token (halved with causal_half) */
    GPUDIAG_RECOMPUTE_FULL       /**< the whole forward runs again: + 2N + 4·L·H·Q·T per token,
                                      so hardware FLOPs = 4/3 × model FLOPs */
} gpudiag_recompute;

/** "none", "selective", "full". */
const char *gpudiag_recompute_name(gpudiag_recompute r);

/** The inputs of the FLOP count. */
typedef struct gpudiag_flops_in {
    double n_params;        /**< N: matmul parameters active per token */
    int layers, heads, head_dim, seq; /**< L, H, Q, T; all 0 to leave out the attention term */
    int causal_half;        /**< 1: count half the T×T attention (causal mask) */
    gpudiag_recompute recompute;
} gpudiag_flops_in;

/** FLOPs per token (training: forward + backward). */
typedef struct gpudiag_flops {
    double params_term;     /**< 6N */
    double attention_term;  /**< 12·L·H·Q·T (6·L·H·Q·T with causal_half) */
    double model;           /**< params_term + attention_term: the MFU numerator */
    double recompute;       /**< extra FLOPs of recomputation */
    double hardware;        /**< model + recompute: the HFU numerator */
} gpudiag_flops;

/** Compute FLOPs per token.  GPUDIAG_ERR_ARG when N ≤ 0 or a size is negative. */
gpudiag_status gpudiag_flops_per_token(const gpudiag_flops_in *in, gpudiag_flops *out, gpudiag_error *err);

/** MFU and HFU of a measured throughput. */
typedef struct gpudiag_mfu {
    double tokens_per_sec_per_gpu;
    double model_tflops_per_gpu;    /**< achieved model TFLOP/s per GPU */
    double hardware_tflops_per_gpu;
    double mfu;                     /**< 0..1 (can exceed 1 with a wrong peak) */
    double hfu;
} gpudiag_mfu;

/**
 * MFU = flops->model × tokens_per_sec_per_gpu ÷ (peak_tflops × 1e12); HFU the
 * same with flops->hardware.  GPUDIAG_ERR_ARG when the throughput or the
 * peak is not positive.
 */
gpudiag_status gpudiag_mfu_compute(const gpudiag_flops *flops, double tokens_per_sec_per_gpu, double peak_tflops,
                                   gpudiag_mfu *out, gpudiag_error *err);

/** A published MFU, for context. */
typedef struct gpudiag_mfu_anchor {
    const char *run;        /**< "PaLM 540B" */
    const char *hardware;   /**< "6144 TPU v4" */
    double mfu_low, mfu_high; /**< equal for a single figure; 0..1 */
    double hfu;             /**< NaN when not published */
    const char *source;
} gpudiag_mfu_anchor;

size_t gpudiag_mfu_anchor_count(void);
const gpudiag_mfu_anchor *gpudiag_mfu_anchor_at(size_t i);

#ifdef __cplusplus
}
#endif
#endif /* GPUDIAG_MFU_H */
