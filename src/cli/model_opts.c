/*
 * model_opts.c — see model_opts.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/model_opts.h"

enum {
    MO_MODEL = 400, MO_PARAMS, MO_ACTIVE, MO_LAYERS, MO_HIDDEN, MO_HEADS, MO_KV_HEADS, MO_HEAD_DIM, MO_FFN, MO_VOCAB,
    MO_SEQ, MO_MLP, MO_TIED, MO_EXPERTS, MO_TOPK, MO_GPU, MO_DTYPE, MO_PEAK, MO_BW, MO_END
};

const char gd_model_opts_help[] =
    "      --model NAME        a preset: llama2-7b, llama2-13b, llama2-70b, llama3-8b (= 3.1),\n"
    "                          llama3-70b, gpt2, gpt2-medium, gpt2-large, gpt2-xl (HF configs)\n"
    "      --params N          N, the matmul parameters (all but the input embeddings; 7e9, 7B)\n"
    "      --layers L --hidden D --heads H [--kv-heads K] [--head-dim Q] --ffn F --vocab V\n"
    "                          a config (counts N); each also overrides a preset's value\n"
    "      --seq T             sequence length (a preset's context by default)\n"
    "      --mlp gated|plain   3-matrix SwiGLU MLP (Llama, default) or 2-matrix (GPT-2)\n"
    "      --tied              the output head shares the token embedding\n"
    "      --experts E --top-k K   MoE: E routed expert MLPs per layer, K per token\n"
    "      --active-params N   MoE: parameters used per token (overrides the count)\n";

void gd_model_opts_init(gd_model_opts *o)
{
    memset(o, 0, sizeof *o);
    o->params = o->active_params = o->peak_tflops = o->mem_bw = NAN;
    o->layers = o->hidden = o->heads = o->kv_heads = o->head_dim = o->ffn = o->vocab = o->seq = -1;
    o->experts = o->top_k = o->mlp_gated = o->tied = -1;
    o->dtype = GPUDIAG_DTYPE_BF16;
}

size_t gd_model_opts_table(struct option *out, size_t max)
{
    static const struct option t[] = {
        {"model", required_argument, NULL, MO_MODEL},       {"params", required_argument, NULL, MO_PARAMS},
        {"active-params", required_argument, NULL, MO_ACTIVE}, {"layers", required_argument, NULL, MO_LAYERS},
        {"hidden", required_argument, NULL, MO_HIDDEN},     {"heads", required_argument, NULL, MO_HEADS},
        {"kv-heads", required_argument, NULL, MO_KV_HEADS}, {"head-dim", required_argument, NULL, MO_HEAD_DIM},
        {"ffn", required_argument, NULL, MO_FFN},           {"vocab", required_argument, NULL, MO_VOCAB},
        {"seq", required_argument, NULL, MO_SEQ},           {"mlp", required_argument, NULL, MO_MLP},
        {"tied", no_argument, NULL, MO_TIED},               {"experts", required_argument, NULL, MO_EXPERTS},
        {"top-k", required_argument, NULL, MO_TOPK},        {"gpu", required_argument, NULL, MO_GPU},
        {"dtype", required_argument, NULL, MO_DTYPE},       {"peak-tflops", required_argument, NULL, MO_PEAK},
        {"mem-bw", required_argument, NULL, MO_BW},
    };
    size_t n = sizeof t / sizeof t[0];
    if (n > max)
        n = max;
    memcpy(out, t, n * sizeof t[0]);
    return n;
}

static int int_opt(const char *name, const char *arg, int *out)
{
    double v;
    if (gd_opt_number(name, arg, 0, 1, 1e8, &v) < 0)
        return -1;
    if (v != floor(v)) {
        fprintf(stderr, "gpudiag: error: %s wants a whole number, got '%s'\n", name, arg);
        return -1;
    }
    *out = (int)v;
    return 1;
}

void gd_model_opts_longopts(struct option *out, size_t cap, const struct option *base, size_t nbase)
{
    if (nbase + 1 > cap)
        abort();
    size_t n = gd_model_opts_table(out, cap - 1 - nbase);
    memcpy(out + n, base, nbase * sizeof *base);
    memset(&out[n + nbase], 0, sizeof *out);
}

int gd_model_opts_take(gd_model_opts *o, int c, const char *arg)
{
    switch (c) {
    case MO_MODEL:
        if (!gpudiag_model_preset_find(arg)) {
            fprintf(stderr, "gpudiag: error: --model: no preset '%s'; presets:", arg);
            for (size_t i = 0; i < gpudiag_model_preset_count(); i++)
                fprintf(stderr, " %s", gpudiag_model_preset_at(i)->name);
            fprintf(stderr, "\n");
            return -1;
        }
        o->preset = arg;
        return 1;
    case MO_PARAMS: return gd_opt_number("--params", arg, 1, 1, 1e16, &o->params) < 0 ? -1 : 1;
    case MO_ACTIVE: return gd_opt_number("--active-params", arg, 1, 1, 1e16, &o->active_params) < 0 ? -1 : 1;
    case MO_LAYERS: return int_opt("--layers", arg, &o->layers);
    case MO_HIDDEN: return int_opt("--hidden", arg, &o->hidden);
    case MO_HEADS: return int_opt("--heads", arg, &o->heads);
    case MO_KV_HEADS: return int_opt("--kv-heads", arg, &o->kv_heads);
    case MO_HEAD_DIM: return int_opt("--head-dim", arg, &o->head_dim);
    case MO_FFN: return int_opt("--ffn", arg, &o->ffn);
    case MO_VOCAB: return int_opt("--vocab", arg, &o->vocab);
    case MO_SEQ: return int_opt("--seq", arg, &o->seq);
    case MO_EXPERTS: return int_opt("--experts", arg, &o->experts);
    case MO_TOPK: return int_opt("--top-k", arg, &o->top_k);
    case MO_TIED: o->tied = 1; return 1;
    case MO_MLP:
        if (strcmp(arg, "gated") == 0 || strcmp(arg, "swiglu") == 0)
            o->mlp_gated = 1;
        else if (strcmp(arg, "plain") == 0 || strcmp(arg, "gelu") == 0)
            o->mlp_gated = 0;
        else {
            fprintf(stderr, "gpudiag: error: --mlp wants gated or plain, got '%s'\n", arg);
            return -1;
        }
        return 1;
    case MO_GPU:
        o->gpu = gpudiag_gpu_find(arg);
        if (!o->gpu) {
            const gpudiag_gpu_spec *cand[64];
            size_t n = gpudiag_gpu_candidates(arg, cand, 64);
            if (n == 0)
                fprintf(stderr, "gpudiag: error: --gpu: no GPU named '%s' (run 'gpudiag specs' for the list)\n", arg);
            else {
                fprintf(stderr, "gpudiag: error: --gpu: '%s' is ambiguous; it could be:", arg);
                for (size_t i = 0; i < n && i < 64; i++)
                    fprintf(stderr, "%s '%s'", i ? "," : "", cand[i]->name);
                fprintf(stderr, "\n");
            }
            return -1;
        }
        return 1;
    case MO_DTYPE:
        if (gpudiag_dtype_parse(arg, &o->dtype) < 0) {
            fprintf(stderr, "gpudiag: error: --dtype wants fp64, fp32, tf32, fp16, bf16, fp8 or int8, got '%s'\n", arg);
            return -1;
        }
        o->dtype_given = 1;
        return 1;
    case MO_PEAK: return gd_opt_number("--peak-tflops", arg, 0, 1e-3, 1e6, &o->peak_tflops) < 0 ? -1 : 1;
    case MO_BW: return gd_opt_number("--mem-bw", arg, 0, 1e-3, 1e6, &o->mem_bw) < 0 ? -1 : 1;
    default: return 0;
    }
}

int gd_model_opts_any(const gd_model_opts *o)
{
    return o->preset || !isnan(o->params) || o->layers > 0 || o->hidden > 0;
}

int gd_model_opts_resolve(const gd_model_opts *o, gd_model *m)
{
    memset(m, 0, sizeof *m);
    m->n_matmul = m->n_active = m->n_total = NAN;
    m->name = "custom";
    gpudiag_model_config c;
    memset(&c, 0, sizeof c);
    c.gated_mlp = 1;
    const gpudiag_model_config *p = o->preset ? gpudiag_model_preset_find(o->preset) : NULL;
    if (p) {
        c = *p;
        m->name = p->name;
        m->source = p->source;
    }
#define OV(f) if (o->f > 0) c.f = o->f
    OV(layers); OV(hidden); OV(heads); OV(kv_heads); OV(head_dim); OV(ffn); OV(vocab); OV(seq); OV(experts); OV(top_k);
#undef OV
    if (o->mlp_gated >= 0)
        c.gated_mlp = o->mlp_gated;
    if (o->tied > 0)
        c.tied_embeddings = 1;
    if (c.experts > 1 && c.top_k <= 0) {
        fprintf(stderr, "gpudiag: error: --experts needs --top-k (experts used per token)\n");
        return -1;
    }
    if (p && (o->layers > 0 || o->hidden > 0 || o->heads > 0 || o->ffn > 0 || o->vocab > 0 || o->experts > 0))
        m->name = "custom (preset with overrides)";
    m->has_config = c.layers > 0 && c.hidden > 0 && c.heads > 0 && c.ffn > 0 && c.vocab > 0;
    if (m->has_config) {
        gpudiag_error err;
        if (gpudiag_model_params(&c, &m->count, &err) != GPUDIAG_OK) {
            fprintf(stderr, "gpudiag: error: %s\n", err.message);
            return -1;
        }
        m->n_matmul = m->count.matmul;
        m->n_active = m->count.active_matmul;
        m->n_total = m->count.total;
    } else {
        m->count.total = m->count.embedding = m->count.matmul = m->count.active_matmul = NAN;
    }
    if (!isnan(o->params)) {
        m->params_given = 1;
        m->n_matmul = m->n_active = o->params;
        if (!m->has_config)
            m->n_total = o->params;
    }
    if (!isnan(o->active_params))
        m->n_active = o->active_params;
    if (isnan(m->n_matmul)) {
        fprintf(stderr, "gpudiag: error: give a model: --model PRESET, --params N, or a config (--layers --hidden "
                        "--heads --ffn --vocab)\n");
        return -1;
    }
    if (m->n_active > m->n_matmul) {
        fprintf(stderr, "gpudiag: error: --active-params is larger than the model's parameters\n");
        return -1;
    }
    m->cfg = c;
    m->layers = c.layers > 0 ? c.layers : 0;
    m->heads = c.heads > 0 ? c.heads : 0;
    m->hidden = c.hidden > 0 ? c.hidden : 0;
    m->kv_heads = c.kv_heads > 0 ? c.kv_heads : m->heads;
    m->head_dim = c.head_dim > 0 ? c.head_dim : (c.hidden > 0 && c.heads > 0 ? c.hidden / c.heads : 0);
    m->seq = c.seq > 0 ? c.seq : 0;
    return 0;
}

void gd_model_print(FILE *fp, const gd_model *m)
{
    fprintf(fp, "model        %s", m->name);
    if (m->source)
        fprintf(fp, " (%s)", m->source);
    fprintf(fp, "\n");
    if (m->has_config) {
        const gpudiag_model_config *c = &m->cfg;
        fprintf(fp, "             L %d, hidden %d, heads %d (kv %d, dim %d), ffn %d (%s), vocab %d, seq %d", c->layers,
                c->hidden, c->heads, m->kv_heads, m->head_dim, c->ffn, c->gated_mlp ? "gated" : "plain", c->vocab,
                c->seq);
        if (c->experts > 1)
            fprintf(fp, ", %d experts, top-%d", c->experts, c->top_k);
        fprintf(fp, "\n             %.0f parameters; N = %.0f matmul (embeddings left out: %.0f)\n", m->count.total,
                m->count.matmul, m->count.embedding);
        if (c->experts > 1)
            fprintf(fp, "             active per token: %.0f\n", m->count.active_matmul);
    }
    if (m->params_given)
        fprintf(fp, "             N = %.6g (--params)\n", m->n_matmul);
    if (m->n_active != m->n_matmul && !(m->has_config && m->cfg.experts > 1 && m->n_active == m->count.active_matmul))
        fprintf(fp, "             active per token: %.6g (--active-params)\n", m->n_active);
}

void gd_model_json(gd_json *w, const gd_model *m)
{
    gd_json_obj(w);
    gd_json_kv_str(w, "name", m->name);
    gd_json_kv_str(w, "source", m->source);
    if (m->has_config) {
        const gpudiag_model_config *c = &m->cfg;
        gd_json_key(w, "config");
        gd_json_obj(w);
        gd_json_kv_int(w, "layers", c->layers);
        gd_json_kv_int(w, "hidden", c->hidden);
        gd_json_kv_int(w, "heads", c->heads);
        gd_json_kv_int(w, "kv_heads", m->kv_heads);
        gd_json_kv_int(w, "head_dim", m->head_dim);
        gd_json_kv_int(w, "ffn", c->ffn);
        gd_json_kv_int(w, "vocab", c->vocab);
        gd_json_kv_int(w, "seq", c->seq);
        gd_json_key(w, "gated_mlp");
        gd_json_bool(w, c->gated_mlp);
        gd_json_key(w, "tied_embeddings");
        gd_json_bool(w, c->tied_embeddings);
        gd_json_kv_int(w, "experts", c->experts);
        gd_json_kv_int(w, "top_k", c->top_k);
        gd_json_end_obj(w);
    } else {
        gd_json_key(w, "config");
        yajl_gen_null(w->g);
    }
    gd_json_kv_num(w, "params_total", m->has_config ? m->count.total : NAN);
    gd_json_kv_num(w, "params_embedding", m->has_config ? m->count.embedding : NAN);
    gd_json_kv_num(w, "params_matmul", m->n_matmul);
    gd_json_kv_num(w, "params_active", m->n_active);
    gd_json_end_obj(w);
}

/* ---- analyze ---------------------------------------------------------------- */

enum { TM_TOKENS = 450, TM_RECOMPUTE, TM_CAUSAL };

const char gd_trace_mfu_help[] =
    "MFU (needs the model and the tokens per step; the GPU is identified from the trace):\n"
    "      --model NAME | --params N | --layers .. --hidden .. --heads .. --ffn .. --vocab ..\n"
    "                        as in 'gpudiag mfu --help'; --seq T for the attention term\n"
    "      --tokens-per-step T   tokens each GPU (rank) processes per step (batch x seq)\n"
    "      --recompute MODE  none, selective or full (for HFU)\n"
    "      --causal-half     count half the TxT attention\n"
    "      --gpu NAME        the GPU, when the trace's name is not in 'gpudiag specs'\n"
    "      --dtype DT        matmul dtype of the peak (default bf16; fp16 on GPUs without bf16)\n"
    "      --peak-tflops X   override the peak; --mem-bw X the bandwidth (GB/s)\n";

void gd_trace_mfu_init(gd_trace_mfu_opts *o)
{
    gd_model_opts_init(&o->mo);
    o->tokens_per_step = NAN;
    o->recompute = GPUDIAG_RECOMPUTE_NONE;
    o->causal_half = 0;
}

size_t gd_trace_mfu_table(struct option *out, size_t max)
{
    static const struct option t[] = {
        {"tokens-per-step", required_argument, NULL, TM_TOKENS},
        {"recompute", required_argument, NULL, TM_RECOMPUTE},
        {"causal-half", no_argument, NULL, TM_CAUSAL},
    };
    size_t n = sizeof t / sizeof t[0];
    if (n > max)
        return 0;
    memcpy(out, t, sizeof t);
    return n + gd_model_opts_table(out + n, max - n);
}

int gd_trace_mfu_take(gd_trace_mfu_opts *o, int c, const char *arg)
{
    switch (c) {
    case TM_TOKENS: return gd_opt_number("--tokens-per-step", arg, 1, 1, 1e15, &o->tokens_per_step) < 0 ? -1 : 1;
    case TM_CAUSAL: o->causal_half = 1; return 1;
    case TM_RECOMPUTE:
        return gd_opt_recompute(arg, &o->recompute) < 0 ? -1 : 1;
    default: return gd_model_opts_take(&o->mo, c, arg);
    }
}

int gd_trace_mfu_resolve(const gd_trace_mfu_opts *o, gpudiag_analyze_opts *out)
{
    memset(out, 0, sizeof *out);
    const gd_model_opts *mo = &o->mo;
    out->gpu = mo->gpu ? mo->gpu->name : NULL;
    out->dtype = mo->dtype_given ? gpudiag_dtype_name(mo->dtype) : NULL;
    out->peak_tflops = mo->peak_tflops > 0 ? mo->peak_tflops : 0;
    out->mem_bw_gbs = mo->mem_bw > 0 ? mo->mem_bw : 0;
    int model = gd_model_opts_any(mo);
    if (!model && isnan(o->tokens_per_step))
        return 0;
    if (!model || isnan(o->tokens_per_step)) {
        fprintf(stderr, "gpudiag: error: MFU from a trace needs both the model (--model, --params or a config) "
                        "and --tokens-per-step\n");
        return -1;
    }
    gd_model m;
    if (gd_model_opts_resolve(mo, &m) < 0)
        return -1;
    gpudiag_flops_in fin = {m.n_active, m.layers, m.heads, m.head_dim, m.seq, o->causal_half, o->recompute};
    gpudiag_flops f;
    gpudiag_error err;
    if (gpudiag_flops_per_token(&fin, &f, &err) != GPUDIAG_OK) {
        fprintf(stderr, "gpudiag: error: %s\n", err.message);
        return -1;
    }
    out->model_flops_per_token = f.model;
    out->hardware_flops_per_token = f.hardware;
    out->tokens_per_step = o->tokens_per_step;
    return 0;
}
