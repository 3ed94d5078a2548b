/*
 * mfu.c — parameter counts, FLOPs per token (PaLM App. B), MFU / HFU, the
 * model presets and the published anchors (include/gpudiag/mfu.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/mfu_trace.h"
#include "gpudiag/mfu.h"
#include "gpudiag/specs.h"
#include "model/specs_internal.h"
#include "util/arena.h"
#include "util/util.h"

/* Hugging Face config.json of each model (num_hidden_layers, hidden_size,
 * num_attention_heads, num_key_value_heads, intermediate_size, vocab_size,
 * max_position_embeddings; GPT-2: n_layer, n_embd, n_head, n_positions). */
static const gpudiag_model_config presets[] = {
    {"llama2-7b", "meta-llama/Llama-2-7b-hf config.json", 32, 4096, 32, 32, 0, 11008, 32000, 4096, 1, 0, 0, 0, 0, 0},
    {"llama2-13b", "meta-llama/Llama-2-13b-hf config.json", 40, 5120, 40, 40, 0, 13824, 32000, 4096, 1, 0, 0, 0, 0,
     0},
    {"llama2-70b", "meta-llama/Llama-2-70b-hf config.json", 80, 8192, 64, 8, 0, 28672, 32000, 4096, 1, 0, 0, 0, 0, 0},
    {"llama3-8b", "meta-llama/Meta-Llama-3-8B config.json (Llama 3.1 8B: same shapes)", 32, 4096, 32, 8, 0, 14336,
     128256, 8192, 1, 0, 0, 0, 0, 0},
    {"llama3-70b", "meta-llama/Meta-Llama-3-70B config.json (Llama 3.1 70B: same shapes)", 80, 8192, 64, 8, 0, 28672,
     128256, 8192, 1, 0, 0, 0, 0, 0},
    {"gpt2", "openai-community/gpt2 config.json (124M)", 12, 768, 12, 12, 0, 3072, 50257, 1024, 0, 1, 1, 1, 0, 0},
    {"gpt2-medium", "openai-community/gpt2-medium config.json (355M)", 24, 1024, 16, 16, 0, 4096, 50257, 1024, 0, 1, 1,
     1, 0, 0},
    {"gpt2-large", "openai-community/gpt2-large config.json (774M)", 36, 1280, 20, 20, 0, 5120, 50257, 1024, 0, 1, 1, 1,
     0, 0},
    {"gpt2-xl", "openai-community/gpt2-xl config.json (1.5B)", 48, 1600, 25, 25, 0, 6400, 50257, 1024, 0, 1, 1, 1, 0,
     0},
};

size_t gpudiag_model_preset_count(void)
{
    return sizeof presets / sizeof presets[0];
}

const gpudiag_model_config *gpudiag_model_preset_at(size_t i)
{
    return i < gpudiag_model_preset_count() ? &presets[i] : NULL;
}

/* Lowercase, without '-', '_', ' ' and '.1' (Llama 3.1 has Llama 3's shapes). */
static void squash(const char *s, char *out, size_t cap)
{
    size_t k = 0;
    for (; *s && k + 1 < cap; s++) {
        if (*s == '-' || *s == '_' || *s == ' ')
            continue;
        if (s[0] == '.' && s[1] == '1') {
            s++;
            continue;
        }
        out[k++] = (char)tolower((unsigned char)*s);
    }
    out[k] = '\0';
}

const gpudiag_model_config *gpudiag_model_preset_find(const char *name)
{
    if (!name)
        return NULL;
    char q[64], p[64];
    squash(name, q, sizeof q);
    static const char *const alias[][2] = {{"gpt2small", "gpt2"},     {"gpt2124m", "gpt2"},
                                           {"gpt2355m", "gpt2-medium"}, {"gpt2774m", "gpt2-large"},
                                           {"gpt21.5b", "gpt2-xl"},     {"llama27b", "llama2-7b"}};
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (strcmp(q, alias[i][0]) == 0)
            squash(alias[i][1], q, sizeof q);
    for (size_t i = 0; i < gpudiag_model_preset_count(); i++) {
        squash(presets[i].name, p, sizeof p);
        if (strcmp(q, p) == 0)
            return &presets[i];
    }
    return NULL;
}

gpudiag_status gpudiag_model_params(const gpudiag_model_config *m, gpudiag_param_count *out, gpudiag_error *err)
{
    if (!m || !out || m->layers <= 0 || m->hidden <= 0 || m->heads <= 0 || m->ffn <= 0 || m->vocab <= 0 ||
        m->kv_heads < 0 || m->head_dim < 0 || m->seq < 0 || m->experts < 0 || m->top_k < 0 ||
        (m->experts > 1 && (m->top_k < 1 || m->top_k > m->experts)))
        return gd_set_error(err, GPUDIAG_ERR_ARG, "", -1,
                            "a model needs positive layers, hidden, heads, ffn and vocab (and 1 <= top_k <= experts)");
    double h = m->hidden, L = m->layers;
    double q = m->head_dim > 0 ? m->head_dim : (double)(m->hidden / m->heads);
    double kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
    double attn = h * m->heads * q * 2 + h * kv * q * 2; /* Q, O; K, V */
    double mlp = (m->gated_mlp ? 3.0 : 2.0) * h * m->ffn;
    double norms = 2 * h;
    if (m->biases) {
        attn += m->heads * q + 2 * kv * q + h; /* Q, K, V and O biases */
        mlp += m->ffn + h;
        norms = 4 * h; /* LayerNorm weight + bias */
    }
    double experts = m->experts > 1 ? m->experts : 1;
    double router = m->experts > 1 ? h * m->experts : 0;
    double active = m->experts > 1 ? m->top_k : 1;
    double tok = (double)m->vocab * h;
    double pos = m->learned_positions ? (double)m->seq * h : 0;
    double final_norm = m->biases ? 2 * h : h;
    double head = m->tied_embeddings ? 0 : tok;
    out->total = L * (attn + experts * mlp + router + norms) + tok + pos + head + final_norm;
    out->embedding = pos + (m->tied_embeddings ? 0 : tok);
    out->matmul = out->total - out->embedding;
    out->active_matmul = out->matmul - L * (experts - active) * mlp;
    return GPUDIAG_OK;
}

const char *gpudiag_recompute_name(gpudiag_recompute r)
{
    switch (r) {
    case GPUDIAG_RECOMPUTE_NONE: return "none";
    case GPUDIAG_RECOMPUTE_SELECTIVE: return "selective";
    case GPUDIAG_RECOMPUTE_FULL: return "full";
    }
    return "?";
}

gpudiag_status gpudiag_flops_per_token(const gpudiag_flops_in *in, gpudiag_flops *out, gpudiag_error *err)
{
    if (!in || !out || !(in->n_params > 0) || !isfinite(in->n_params) || in->layers < 0 || in->heads < 0 ||
        in->head_dim < 0 || in->seq < 0)
        return gd_set_error(err, GPUDIAG_ERR_ARG, "", -1, "FLOPs need a positive parameter count and sizes >= 0");
    double lhqt = (double)in->layers * in->heads * in->head_dim * in->seq;
    double half = in->causal_half ? 0.5 : 1.0;
    out->params_term = 6.0 * in->n_params;
    out->attention_term = 12.0 * lhqt * half;
    out->model = out->params_term + out->attention_term;
    switch (in->recompute) {
    case GPUDIAG_RECOMPUTE_SELECTIVE: out->recompute = 4.0 * lhqt * half; break;
    case GPUDIAG_RECOMPUTE_FULL: out->recompute = 2.0 * in->n_params + 4.0 * lhqt * half; break;
    default: out->recompute = 0; break;
    }
    out->hardware = out->model + out->recompute;
    return GPUDIAG_OK;
}

gpudiag_status gpudiag_mfu_compute(const gpudiag_flops *flops, double tokens_per_sec_per_gpu, double peak_tflops,
                                   gpudiag_mfu *out, gpudiag_error *err)
{
    if (!flops || !out || !(tokens_per_sec_per_gpu > 0) || !(peak_tflops > 0))
        return gd_set_error(err, GPUDIAG_ERR_ARG, "", -1, "MFU needs a positive throughput and peak");
    out->tokens_per_sec_per_gpu = tokens_per_sec_per_gpu;
    out->model_tflops_per_gpu = flops->model * tokens_per_sec_per_gpu / 1e12;
    out->hardware_tflops_per_gpu = flops->hardware * tokens_per_sec_per_gpu / 1e12;
    out->mfu = out->model_tflops_per_gpu / peak_tflops;
    out->hfu = out->hardware_tflops_per_gpu / peak_tflops;
    return GPUDIAG_OK;
}

static const gpudiag_mfu_anchor anchors[] = {
    {"PaLM 540B", "6144 TPU v4", 0.462, 0.462, 0.578, "Chowdhery et al. 2022, arXiv:2204.02311, Sec. 4 / App. B"},
    {"Llama 3 405B", "8192-16384 H100 (BF16)", 0.38, 0.43, NAN,
     "Llama 3 Herd of Models, arXiv:2407.21783, Table 4 (43% at 8K GPUs, 41% at 16K, 38% with 131K context)"},
    {"MegaScale 175B", "12288 Ampere GPUs", 0.552, 0.552, NAN, "Jiang et al. NSDI'24, arXiv:2402.15627, Table 2"},
    {"Megatron-LM 530B (selective recompute)", "2240 A100", 0.542, 0.542, NAN,
     "Korthikanti et al. 2022, arXiv:2205.05198, abstract"},
    {"torchtitan Llama 3.1 8B", "8 H100 (96 GB HBM2e, 500 W), FSDP", 0.337, 0.390, NAN,
     "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md (eager / torch.compile)"},
};

size_t gpudiag_mfu_anchor_count(void)
{
    return sizeof anchors / sizeof anchors[0];
}

const gpudiag_mfu_anchor *gpudiag_mfu_anchor_at(size_t i)
{
    return i < gpudiag_mfu_anchor_count() ? &anchors[i] : NULL;
}

/* ---- MFU from a trace ------------------------------------------------------ */

/* Which part the row g is, and the other rows the hardware fits as well (DEFINITIONS "GPU table",
 * matching by hardware): d->spec_part, spec_also_fits, spec_peaks_differ. 0, or -1 on OOM. */
static int spec_part(gpudiag_report *r, gpudiag_device *d, const gpudiag_gpu_spec *g, gpudiag_gpu_match how,
                     gpudiag_dtype dt)
{
    char b[128];
    d->spec_part = gd_arena_take(r->arena, gd_format("%s", gd_gpu_part_name(g, b, sizeof b)));
    if (!d->spec_part)
        return -1;
    if (how != GPUDIAG_GPU_MATCH_HARDWARE)
        return 0;
    const gpudiag_gpu_spec *alt[8];
    size_t n = gd_gpu_also_fits(g, d->num_sms, d->total_memory_bytes, alt, 8);
    if (n > 8)
        n = 8;
    if (!n)
        return 0;
    d->spec_also_fits = gd_arena_calloc(r->arena, n, sizeof *d->spec_also_fits);
    if (!d->spec_also_fits)
        return -1;
    for (size_t i = 0; i < n; i++) {
        d->spec_also_fits[i] = alt[i]->name;
        /* peaks within 0.5 % are the same figure rounded differently (181 vs 181.05) */
        double p0 = g->peak_tflops[dt], p1 = alt[i]->peak_tflops[dt];
        if (!(fabs(p0 - p1) <= 0.005 * p0) || !(fabs(g->mem_bw_gbs - alt[i]->mem_bw_gbs) <= 0.005 * g->mem_bw_gbs))
            d->spec_peaks_differ = 1;
    }
    d->spec_also_fits_count = n;
    return 0;
}

void gd_build_mfu(gpudiag_report *r, const gpudiag_analyze_opts *opts)
{
    r->model_flops_per_step = r->achieved_tflops = r->mfu_peak_tflops = NAN;
    r->mfu_dtype = NULL;
    gpudiag_dtype want = GPUDIAG_DTYPE_BF16;
    int dtype_given = opts && opts->dtype && gpudiag_dtype_parse(opts->dtype, &want) == 0;
    const gpudiag_gpu_spec *forced = opts && opts->gpu ? gpudiag_gpu_find(opts->gpu) : NULL;
    double first_peak = NAN;
    gpudiag_dtype first_dt = want;
    double any_peak = NAN; /* the first identified device's, kernels or not: the dtype of its peak */
    gpudiag_dtype any_dt = want;
    for (size_t i = 0; i < r->device_count; i++) {
        gpudiag_device *d = &r->devices[i];
        gpudiag_gpu_match how = GPUDIAG_GPU_MATCH_NONE;
        const gpudiag_gpu_spec *g = forced;
        if (!g)
            g = gpudiag_gpu_identify(d->name, d->num_sms, d->warp_size, d->total_memory_bytes, &how);
        d->spec_name = g ? g->name : NULL;
        d->spec_part = NULL;
        d->spec_also_fits = NULL;
        d->spec_also_fits_count = 0;
        d->spec_peaks_differ = 0;
        d->spec_match = forced ? "option" : g ? gpudiag_gpu_match_name(how) : NULL;
        d->spec_uncertain = g ? g->uncertain : 0;
        int ccmaj = -1, ccmin = -1;
        if (forced && d->arch_inferred && strcmp(forced->vendor, "NVIDIA") == 0 && forced->compute_capability &&
            sscanf(forced->compute_capability, "%d.%d", &ccmaj, &ccmin) == 2) {
            /* --gpu names the GPU the kernel names could only bound (DEFINITIONS "GPU metrics") */
            d->compute_major = ccmaj;
            d->compute_minor = ccmin;
            d->arch_inferred = 0;
            d->arch_tagged_kernels = 0;
        }
        gpudiag_dtype dt = want;
        /* the default is BF16; GPUs without it (Volta, Turing) train in FP16 */
        if (g && !dtype_given && isnan(g->peak_tflops[GPUDIAG_DTYPE_BF16]))
            dt = GPUDIAG_DTYPE_FP16;
        double peak = opts && opts->peak_tflops > 0 ? opts->peak_tflops : g ? g->peak_tflops[dt] : NAN;
        double bw = opts && opts->mem_bw_gbs > 0 ? opts->mem_bw_gbs : g ? g->mem_bw_gbs : NAN;
        if (g && spec_part(r, d, g, how, dt) < 0)
            return; /* out of memory: the part is left unnamed */
        d->peak_tflops = peak;
        d->mem_bw_gbs = bw;
        d->pcie_gbs_per_dir = g ? g->pcie_bw_gbs_per_dir : NAN;
        if (g && g->nvlink_bw_gbs_total > 0 && isnan(r->nvlink_gb_per_s))
            r->nvlink_gb_per_s = g->nvlink_bw_gbs_total / 2; /* both directions summed in the table */
        d->ridge = peak > 0 && bw > 0 ? peak * 1e3 / bw : NAN;
        if (isnan(any_peak) && peak > 0) {
            any_peak = peak;
            any_dt = dt;
        }
        if (isnan(first_peak) && d->kernel_count > 0 && peak > 0) {
            first_peak = peak;
            first_dt = dt;
        }
    }
    if (isnan(first_peak) && opts && opts->peak_tflops > 0)
        first_peak = opts->peak_tflops;
    if (first_peak > 0)
        r->mfu_dtype = gpudiag_dtype_name(first_dt);
    else if (any_peak > 0)
        r->mfu_dtype = gpudiag_dtype_name(any_dt); /* REPORT summary.mfu_dtype: no kernels, still a peak */
    if (!opts || !(opts->model_flops_per_token > 0) || !(opts->tokens_per_step > 0) || !(r->avg_step_us > 0))
        return;
    r->model_flops_per_step = opts->model_flops_per_token * opts->tokens_per_step;
    r->achieved_tflops = r->model_flops_per_step / (r->avg_step_us * 1e-6) / 1e12;
    if (!(first_peak > 0))
        return;
    r->mfu_peak_tflops = first_peak;
    r->mfu = r->achieved_tflops / first_peak;
    double hw = opts->hardware_flops_per_token > 0 ? opts->hardware_flops_per_token : opts->model_flops_per_token;
    r->hfu = r->mfu * hw / opts->model_flops_per_token;
}
