/*
 * memplan.c — memory bill and time cost of a training setup
 * (include/gpudiag/plan.h; docs/DEFINITIONS.md "Training plan").
 */
#include <math.h>
#include <string.h>

#include "gpudiag/plan.h"
#include "util/util.h"

/* bytes per trained parameter: weights, gradients, optimizer states (ZeRO Sec. 3.1 and variants) */
static const struct {
    const char *name;
    double w, g, s;
} opt_bytes[GPUDIAG_OPT_COUNT] = {
    {"adam", 2, 2, 12}, {"adam-bf16", 2, 2, 8}, {"adam-8bit", 2, 2, 6}, {"sgd", 2, 2, 8}, {"adam-fp32", 4, 4, 8},
};

const char *gpudiag_optimizer_name(gpudiag_optimizer o)
{
    return (unsigned)o < GPUDIAG_OPT_COUNT ? opt_bytes[o].name : "?";
}

int gpudiag_optimizer_parse(const char *name, gpudiag_optimizer *out)
{
    for (int i = 0; name && i < GPUDIAG_OPT_COUNT; i++)
        if (strcmp(name, opt_bytes[i].name) == 0) {
            *out = (gpudiag_optimizer)i;
            return 0;
        }
    return -1;
}

const char *gpudiag_offload_name(gpudiag_offload o)
{
    switch (o) {
    case GPUDIAG_OFFLOAD_NONE: return "none";
    case GPUDIAG_OFFLOAD_OPTIMIZER: return "optimizer";
    case GPUDIAG_OFFLOAD_PARAMS: return "params";
    }
    return "?";
}

double gpudiag_lora_params(const gpudiag_model_config *m, int rank, const char *targets)
{
    if (!m || rank <= 0 || !targets || m->hidden <= 0 || m->heads <= 0 || m->layers <= 0)
        return NAN;
    double h = m->hidden;
    double q = m->head_dim > 0 ? m->head_dim : (double)(m->hidden / m->heads);
    double kv = (m->kv_heads > 0 ? m->kv_heads : m->heads) * q;
    double f = m->ffn;
    double per_layer = 0;
    const char *p = targets;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        double in = 0, out = 0;
        if (n == 1 && p[0] == 'q')
            in = h, out = m->heads * q;
        else if (n == 1 && p[0] == 'k')
            in = h, out = kv;
        else if (n == 1 && p[0] == 'v')
            in = h, out = kv;
        else if (n == 1 && p[0] == 'o')
            in = m->heads * q, out = h;
        else if (n == 4 && strncmp(p, "gate", 4) == 0 && m->gated_mlp)
            in = h, out = f;
        else if (n == 2 && strncmp(p, "up", 2) == 0)
            in = h, out = f;
        else if (n == 4 && strncmp(p, "down", 4) == 0)
            in = f, out = h;
        else if (n == 3 && strncmp(p, "all", 3) == 0) {
            per_layer += 2 * (h + m->heads * q) + 2 * (h + kv) + (m->gated_mlp ? 3 : 2) * (h + f);
            p += n;
            if (*p == ',')
                p++;
            continue;
        } else
            return NAN;
        per_layer += in + out;
        p += n;
        if (*p == ',')
            p++;
    }
    return (double)rank * per_layer * m->layers;
}

gpudiag_status gpudiag_plan_compute(const gpudiag_plan_in *in, gpudiag_plan *o, gpudiag_error *err)
{
    if (!in || !o || !(in->params_total > 0) || in->micro_batch < 1 || in->grad_accum < 1 || in->gpus < 1 ||
        in->zero_stage < 0 || in->zero_stage > 3 || (unsigned)in->optimizer >= GPUDIAG_OPT_COUNT)
        return gd_set_error(err, GPUDIAG_ERR_ARG, "", -1,
                            "a plan needs a parameter count, micro-batch, accumulation and GPUs >= 1, ZeRO stage 0..3");
    int have_shape = in->layers > 0 && in->hidden > 0 && in->heads > 0 && in->seq > 0;
    if (!have_shape)
        return gd_set_error(err, GPUDIAG_ERR_ARG, "", -1,
                            "activations and the KV cache need the model's layers, hidden size, heads and sequence "
                            "length (a preset or --layers --hidden --heads --seq)");
    memset(o, 0, sizeof *o);
    double psi = in->params_total, nd = in->gpus;
    double w = opt_bytes[in->optimizer].w, g = opt_bytes[in->optimizer].g, s = opt_bytes[in->optimizer].s;
    double s_ = in->seq, b = in->micro_batch, h = in->hidden, a = in->heads, L = in->layers;
    double hd = in->head_dim > 0 ? in->head_dim : h / a;
    double kvh = in->kv_heads > 0 ? in->kv_heads : a;
    int lora = in->lora_rank > 0;
    double base_w = w;
    if (lora && in->base_bits == 4)
        base_w = 0.5 + 0.127 / 8; /* NF4 + double-quantised constants (QLoRA) */

    if (in->inference) {
        o->weights = base_w * psi;
        o->kv_cache = 2.0 * L * kvh * hd * s_ * b * w;
        o->trainable_params = 0;
    } else {
        double trained = lora ? in->lora_params : psi;
        if (lora && !(trained > 0))
            return gd_set_error(err, GPUDIAG_ERR_ARG, "", -1, "LoRA needs a positive adapter parameter count");
        o->trainable_params = trained;
        o->weights = (lora ? base_w * psi + w * trained : w * psi);
        o->gradients = g * trained;
        o->optimizer = s * trained;
        if (in->zero_stage >= 1)
            o->optimizer /= nd;
        if (in->zero_stage >= 2)
            o->gradients /= nd;
        if (in->zero_stage >= 3)
            o->weights /= nd;
        /* offload: what leaves the GPU, and what crosses PCIe per step (ZeRO-Offload) */
        double part = in->zero_stage >= 1 ? nd : 1;
        if (in->offload >= GPUDIAG_OFFLOAD_OPTIMIZER) {
            o->host_bytes += o->optimizer;
            o->optimizer = 0;
            o->pcie_d2h_bytes = g * trained / part; /* gradients down */
            o->pcie_h2d_bytes = w * trained / part; /* updated 16-bit weights up */
        }
        if (in->offload == GPUDIAG_OFFLOAD_PARAMS) {
            double wpart = in->zero_stage >= 3 ? nd : 1;
            o->host_bytes += o->weights - o->weights / L; /* one layer's weights stay resident */
            o->weights /= L;
            /* fetched for the forward and again for the backward; updates stay on the host */
            o->pcie_h2d_bytes = 2.0 * base_w * psi / wpart + (lora ? w * trained / part : 0);
        }
        /* activations per layer, one micro-batch (Korthikanti et al. 2022, no tensor parallelism) */
        double full = s_ * b * h * (34.0 + 5.0 * a * s_ / h);
        double no_scores = s_ * b * h * 34.0;
        double layer = (in->flash_attention || in->recompute == GPUDIAG_RECOMPUTE_SELECTIVE) ? no_scores : full;
        if (in->recompute == GPUDIAG_RECOMPUTE_FULL) {
            o->activation_per_layer = 2.0 * s_ * b * h;
            /* the layer input of every layer, plus one layer rebuilt during its backward */
            o->activations = L * o->activation_per_layer + layer;
        } else {
            o->activation_per_layer = layer;
            o->activations = L * layer;
        }
    }
    o->total = o->weights + o->gradients + o->optimizer + o->activations + o->kv_cache;
    o->fits = in->gpu_mem_bytes > 0 ? (o->total <= in->gpu_mem_bytes) : -1;

    /* time side, per optimizer step and GPU */
    o->micro_tokens = b * s_;
    o->tokens_per_step_per_gpu = in->inference ? NAN : b * s_ * in->grad_accum;
    o->recompute_share = NAN;
    o->compute_s = o->pcie_s = NAN;
    o->model_flops_per_step = o->hardware_flops_per_step = NAN;
    if (!in->inference && in->params_matmul > 0) {
        gpudiag_flops_in fi = {in->params_matmul, in->layers, in->heads, (int)hd, in->seq, 0, in->recompute};
        gpudiag_flops f;
        if (gpudiag_flops_per_token(&fi, &f, err) != GPUDIAG_OK)
            return GPUDIAG_ERR_ARG;
        double hw = f.hardware;
        if (lora) /* frozen weights: no weight-gradient matmuls (2N of the 4N backward) */
            hw -= 2.0 * in->params_matmul;
        o->model_flops_per_step = f.model * o->tokens_per_step_per_gpu;
        o->hardware_flops_per_step = hw * o->tokens_per_step_per_gpu;
        o->recompute_share = f.recompute / f.model;
        if (in->peak_tflops > 0 && in->efficiency > 0)
            o->compute_s = o->hardware_flops_per_step / (in->peak_tflops * 1e12 * in->efficiency);
    }
    if (in->pcie_gbs_per_dir > 0)
        o->pcie_s = fmax(o->pcie_h2d_bytes, o->pcie_d2h_bytes) / (in->pcie_gbs_per_dir * 1e9);
    o->gemm_memory_bound = in->ridge > 0 ? (o->micro_tokens < in->ridge) : -1;
    if (o->fits == 0)
        o->binds = "memory_capacity";
    else if (!isnan(o->pcie_s) && !isnan(o->compute_s) && o->pcie_s > o->compute_s)
        o->binds = "pcie_bandwidth";
    else if (!isnan(o->compute_s))
        o->binds = "compute";
    else
        o->binds = "unknown";
    return GPUDIAG_OK;
}
