/*
 * cmd_plan.c — `gpudiag plan`: the memory bill of a training setup per GPU,
 * and what each memory saving costs in compute or bandwidth.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/model_opts.h"
#include "gpudiag/plan.h"

enum {
    OPT_JSON = 500,
    OPT_MICRO,
    OPT_ACCUM,
    OPT_GPUS,
    OPT_ZERO,
    OPT_OPTIM,
    OPT_RECOMPUTE,
    OPT_FLASH,
    OPT_LORA,
    OPT_LORA_T,
    OPT_QLORA,
    OPT_OFFLOAD,
    OPT_INFER,
    OPT_GPU_MEM,
    OPT_EFF,
};

static void usage_plan(FILE *fp)
{
    fprintf(fp,
            "Usage: gpudiag plan MODEL [SETUP] [--gpu NAME] [OPTIONS]\n"
            "\n"
            "The memory bill of a training setup per GPU before running it (weights,\n"
            "gradients, optimizer states, activations; KV cache for inference), whether it\n"
            "fits, and the time side of each memory saving: what it saves, what it costs in\n"
            "compute and in bandwidth, and which resource binds. When it does not fit, a table\n"
            "adds each saving not in use alone (and those but LoRA together) with the total then.\n"
            "The GPU row taken is named, and marked UNCERTAIN when its source is.\n"
            "\n"
            "MODEL (a config or preset is needed for activations):\n"
            "%s"
            "\n"
            "SETUP:\n"
            "      --micro-batch B     sequences per micro-batch per GPU (default 1)\n"
            "      --grad-accum G      micro-batches per optimizer step (default 1)\n"
            "      --gpus N            data-parallel GPUs (default 1)\n"
            "      --zero S            ZeRO stage 0-3 over --gpus (FSDP FULL_SHARD = 3, SHARD_GRAD_OP = 2)\n"
            "      --optimizer O       adam (mixed precision, 16 B/param; default), adam-bf16 (12),\n"
            "                          adam-8bit (10), sgd (momentum + fp32 master, 12), adam-fp32 (16)\n"
            "      --recompute MODE    none (default), selective (attention core), full (layer inputs only)\n"
            "      --flash             FlashAttention / SDPA: no s x s scores stored\n"
            "      --lora-rank R       LoRA adapters of rank R (frozen base weights)\n"
            "      --lora-targets T    comma list of q,k,v,o,gate,up,down or all (default q,v)\n"
            "      --qlora             4-bit NF4 base weights (with --lora-rank)\n"
            "      --offload WHAT      none (default), optimizer (ZeRO-Offload), params (also weights)\n"
            "      --inference         weights + KV cache for --micro-batch sequences of --seq tokens\n"
            "\n"
            "GPU:\n"
            "      --gpu NAME          capacity, peak, PCIe rate and ridge from 'gpudiag specs'\n"
            "      --gpu-mem GB        capacity override (GB = 1e9 bytes)\n"
            "      --dtype DT, --peak-tflops X   the matmul peak (default: the GPU's bf16)\n"
            "      --efficiency F      fraction of peak a step reaches, for the time estimate (default 0.4)\n"
            "      --json              machine-readable output (schema gpudiag.plan/1)\n"
            "  -h, --help              show this help and exit\n"
            "\n"
            "Exit status: 0 printed (fits or not); 2 usage error.\n"
            "\n"
            "Examples:\n"
            "  gpudiag plan --model llama2-7b --gpu A100-SXM4-80GB --flash\n"
            "  gpudiag plan --model llama3-8b --gpus 8 --zero 3 --recompute full --micro-batch 2 --gpu 'H100 80GB HBM3'\n",
            gd_model_opts_help);
}

static int take_int(const char *name, const char *arg, double lo, double hi, int *out)
{
    double v;
    if (gd_opt_number(name, arg, 0, lo, hi, &v) < 0)
        return -1;
    if (v != floor(v)) {
        fprintf(stderr, "gpudiag: error: %s wants a whole number, got '%s'\n", name, arg);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static const char *gb(double bytes, char *b, size_t n)
{
    if (isnan(bytes))
        snprintf(b, n, "-");
    else if (bytes >= 1e9 || bytes == 0)
        snprintf(b, n, "%.2f GB", bytes / 1e9);
    else
        snprintf(b, n, "%.1f MB", bytes / 1e6);
    return b;
}

static const char *secs(double s, char *b, size_t n)
{
    if (isnan(s))
        snprintf(b, n, "? s");
    else
        gd_format_us(b, n, s * 1e6, "us");
    return b;
}

typedef struct trade {
    char what[64];
    double saves;       /* bytes per GPU */
    char compute[160];
    char bandwidth[160];
    double total;       /* options: the total with it (bytes per GPU) */
    int fits;           /* options: 1 fits with it, 0 not, -1 capacity unknown */
} trade;

/* One option of the "does not fit" table: setup v (this setup with one
 * saving added) against the current plan p. */
static void option_of(trade *t, const char *what, const gpudiag_plan_in *v, const gpudiag_plan *p)
{
    gpudiag_plan q;
    memset(&q, 0, sizeof q);
    gpudiag_plan_compute(v, &q, NULL);
    snprintf(t->what, sizeof t->what, "%s", what);
    t->saves = p->total - q.total;
    t->total = q.total;
    t->fits = q.fits;
    t->compute[0] = t->bandwidth[0] = '\0';
}

/* What the command line asked for: the model and GPU options, the setup
 * (defaults: one GPU, micro-batch 1, 16-bit weights, efficiency 0.4, GPU
 * numbers NaN until --gpu or an override gives them). */
typedef struct plan_settings {
    gd_model_opts mo;
    gpudiag_plan_in in;
    double gpu_mem_gb;   /* --gpu-mem in GB; NaN unless given */
    const char *targets; /* --lora-targets (borrowed from argv) */
    int json, qlora;
} plan_settings;

/* The command's own options; gd_model_opts_longopts adds the model and GPU ones. */
static const struct option plan_base[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"micro-batch", required_argument, NULL, OPT_MICRO},
    {"grad-accum", required_argument, NULL, OPT_ACCUM},
    {"gpus", required_argument, NULL, OPT_GPUS},
    {"zero", required_argument, NULL, OPT_ZERO},
    {"optimizer", required_argument, NULL, OPT_OPTIM},
    {"recompute", required_argument, NULL, OPT_RECOMPUTE},
    {"flash", no_argument, NULL, OPT_FLASH},
    {"lora-rank", required_argument, NULL, OPT_LORA},
    {"lora-targets", required_argument, NULL, OPT_LORA_T},
    {"qlora", no_argument, NULL, OPT_QLORA},
    {"offload", required_argument, NULL, OPT_OFFLOAD},
    {"inference", no_argument, NULL, OPT_INFER},
    {"gpu-mem", required_argument, NULL, OPT_GPU_MEM},
    {"efficiency", required_argument, NULL, OPT_EFF},
    {"help", no_argument, NULL, 'h'},
};

/* Parse argv into *s (defaults first).  GD_PARSE_GO to go on, else the exit
 * status (--help: GD_EXIT_OK; a usage error, said on stderr: GD_EXIT_USAGE). */
static int parse_plan(int argc, char **argv, plan_settings *s)
{
    struct option longopts[64];
    gd_model_opts_longopts(longopts, 64, plan_base, sizeof plan_base / sizeof plan_base[0]);
    gd_model_opts_init(&s->mo);
    gpudiag_plan_in *in = &s->in;
    memset(in, 0, sizeof *in);
    in->micro_batch = in->grad_accum = in->gpus = 1;
    in->base_bits = 16;
    in->efficiency = 0.4;
    in->gpu_mem_bytes = in->peak_tflops = in->pcie_gbs_per_dir = in->ridge = NAN;
    s->gpu_mem_gb = NAN;
    s->targets = "q,v";
    s->json = s->qlora = 0;
    optind = 1;
    opterr = 0;
    int c;
    gd_once once; /* single-valued options given twice are refused */
    gd_once_init(&once, longopts);
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (gd_once_check(&once, c, optarg) < 0)
            return GD_EXIT_USAGE;
        int r = gd_model_opts_take(&s->mo, c, optarg);
        if (r < 0)
            return GD_EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case OPT_JSON: s->json = 1; break;
        case OPT_MICRO:
            if (take_int("--micro-batch", optarg, 1, 1e6, &in->micro_batch) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_ACCUM:
            if (take_int("--grad-accum", optarg, 1, 1e6, &in->grad_accum) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_GPUS:
            if (take_int("--gpus", optarg, 1, 1e7, &in->gpus) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_ZERO:
            if (take_int("--zero", optarg, 0, 3, &in->zero_stage) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_OPTIM:
            if (gpudiag_optimizer_parse(optarg, &in->optimizer) < 0) {
                fprintf(stderr, "gpudiag: error: --optimizer wants adam, adam-bf16, adam-8bit, sgd or adam-fp32, "
                                "got '%s'\n", optarg);
                return GD_EXIT_USAGE;
            }
            break;
        case OPT_RECOMPUTE:
            if (gd_opt_recompute(optarg, &in->recompute) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_FLASH: in->flash_attention = 1; break;
        case OPT_LORA:
            if (take_int("--lora-rank", optarg, 1, 65536, &in->lora_rank) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_LORA_T: s->targets = optarg; break;
        case OPT_QLORA: s->qlora = 1; break;
        case OPT_OFFLOAD:
            {
                /* in the order of gpudiag_offload */
                static const char *const offload_words[] = {"none", "optimizer", "params"};
                int w = gd_opt_word("--offload", optarg, offload_words, 3);
                if (w < 0)
                    return GD_EXIT_USAGE;
                in->offload = (gpudiag_offload)w;
            }
            break;
        case OPT_INFER: in->inference = 1; break;
        case OPT_GPU_MEM:
            if (gd_opt_number("--gpu-mem", optarg, 0, 0.001, 1e6, &s->gpu_mem_gb) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_EFF:
            if (gd_opt_number("--efficiency", optarg, 0, 0.001, 1, &in->efficiency) < 0)
                return GD_EXIT_USAGE;
            break;
        case 'h': usage_plan(stdout); return GD_EXIT_OK;
        default:
            return gd_bad_option("plan", c, argv, longopts);
        }
    }
    if (optind < argc)
        return gd_usage_error("plan", "plan takes no arguments, got '%s'", argv[optind]);
    if (s->qlora && in->lora_rank == 0) {
        fprintf(stderr, "gpudiag: error: --qlora needs --lora-rank R\n");
        return GD_EXIT_USAGE;
    }
    return GD_PARSE_GO;
}

/* The model (*m) and the plan (*p) of the settings: fills the rest of s->in
 * from the model and the GPU row; GD_EXIT_OK, or GD_EXIT_USAGE after a
 * message (no model, LoRA without shapes, bad targets, a setup the plan
 * refuses). */
static gd_exit resolve_plan(plan_settings *s, gd_model *m, gpudiag_plan *p)
{
    gpudiag_plan_in *in = &s->in;
    in->base_bits = s->qlora ? 4 : 16;
    if (gd_model_opts_resolve(&s->mo, m) < 0)
        return GD_EXIT_USAGE;
    in->params_total = isnan(m->n_total) ? m->n_matmul : m->n_total;
    in->params_matmul = m->n_active;
    in->layers = m->layers;
    in->hidden = m->hidden;
    in->heads = m->heads;
    in->kv_heads = m->kv_heads;
    in->head_dim = m->head_dim;
    in->seq = m->seq;
    if (in->lora_rank > 0) {
        if (!m->has_config) {
            fprintf(stderr, "gpudiag: error: --lora-rank needs the model's shapes (a preset or a config)\n");
            return GD_EXIT_USAGE;
        }
        in->lora_params = gpudiag_lora_params(&m->cfg, in->lora_rank, s->targets);
        if (isnan(in->lora_params)) {
            fprintf(stderr, "gpudiag: error: --lora-targets wants a comma list of q,k,v,o,gate,up,down or all, got "
                            "'%s'\n", s->targets);
            return GD_EXIT_USAGE;
        }
    }
    const gpudiag_gpu_spec *gpu = s->mo.gpu;
    if (gpu) {
        in->gpu_mem_bytes = gpu->mem_gb * 1073741824.0; /* the "80 GB" label is 80 GiB of HBM */
        in->peak_tflops = gpu->peak_tflops[s->mo.dtype];
        in->pcie_gbs_per_dir = gpu->pcie_bw_gbs_per_dir;
        in->ridge = gpudiag_gpu_ridge(gpu, s->mo.dtype, s->mo.peak_tflops, s->mo.mem_bw);
    }
    if (!isnan(s->gpu_mem_gb))
        in->gpu_mem_bytes = s->gpu_mem_gb * 1e9;
    if (s->mo.peak_tflops > 0)
        in->peak_tflops = s->mo.peak_tflops;
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    if (gpudiag_plan_compute(in, p, &err) != GPUDIAG_OK) {
        fprintf(stderr, "gpudiag: error: %s\n", err.message);
        return GD_EXIT_USAGE;
    }

    return GD_EXIT_OK;
}

/* The trade-offs: each memory saving in use, against the same setup without
 * it; fills tr[0..] (room for 8) and returns how many. */
static int plan_tradeoffs(const plan_settings *s, const gpudiag_plan *p, trade *tr)
{
    const gpudiag_plan_in *in = &s->in;
    int nt = 0;
    char b1[32], b2[32], b3[32];
    gpudiag_plan q;
    if (!in->inference && in->recompute != GPUDIAG_RECOMPUTE_NONE) {
        gpudiag_plan_in v = *in;
        v.recompute = GPUDIAG_RECOMPUTE_NONE;
        gpudiag_plan_compute(&v, &q, NULL);
        trade *t = &tr[nt++];
        snprintf(t->what, sizeof t->what, "%s recompute", gpudiag_recompute_name(in->recompute));
        t->saves = q.total - p->total;
        snprintf(t->compute, sizeof t->compute, "+%.1f%% FLOPs per step (+%s)%s", 100 * p->recompute_share,
                 secs(p->compute_s - q.compute_s, b1, sizeof b1),
                 in->recompute == GPUDIAG_RECOMPUTE_FULL ? ": HFU = 4/3 MFU" : "");
        snprintf(t->bandwidth, sizeof t->bandwidth, "none");
    }
    if (!in->inference && in->flash_attention) {
        gpudiag_plan_in v = *in;
        v.flash_attention = 0;
        gpudiag_plan_compute(&v, &q, NULL);
        trade *t = &tr[nt++];
        snprintf(t->what, sizeof t->what, "FlashAttention");
        t->saves = q.total - p->total;
        snprintf(t->compute, sizeof t->compute, "none (backward recomputes scores in SRAM; usually faster)");
        snprintf(t->bandwidth, sizeof t->bandwidth, "less HBM traffic (no s x s tensors)");
    }
    if (!in->inference && in->zero_stage > 0) {
        gpudiag_plan_in v = *in;
        v.zero_stage = 0;
        gpudiag_plan_compute(&v, &q, NULL);
        trade *t = &tr[nt++];
        snprintf(t->what, sizeof t->what, "ZeRO stage %d over %d GPUs", in->zero_stage, in->gpus);
        t->saves = q.total - p->total;
        snprintf(t->compute, sizeof t->compute, "none");
        double w = in->params_total * 2;
        if (in->zero_stage == 3)
            snprintf(t->bandwidth, sizeof t->bandwidth,
                     "1.5x plain data parallel: %s per GPU per step over the GPU links (weights gathered again "
                     "in the backward)", gb(1.5 * w * 2 * (in->gpus - 1) / in->gpus, b1, sizeof b1));
        else
            snprintf(t->bandwidth, sizeof t->bandwidth, "same volume as data parallel (reduce-scatter + all-gather)");
    }
    if (!in->inference && in->offload != GPUDIAG_OFFLOAD_NONE) {
        gpudiag_plan_in v = *in;
        v.offload = GPUDIAG_OFFLOAD_NONE;
        gpudiag_plan_compute(&v, &q, NULL);
        trade *t = &tr[nt++];
        snprintf(t->what, sizeof t->what, "CPU offload (%s)", gpudiag_offload_name(in->offload));
        t->saves = q.total - p->total;
        snprintf(t->compute, sizeof t->compute, "the optimizer step runs on the CPU (host memory traffic)");
        snprintf(t->bandwidth, sizeof t->bandwidth, "PCIe %s up + %s down per step = %s at %.1f GB/s per direction",
                 gb(p->pcie_h2d_bytes, b1, sizeof b1), gb(p->pcie_d2h_bytes, b2, sizeof b2),
                 secs(p->pcie_s, b3, sizeof b3), in->pcie_gbs_per_dir);
    }
    if (!in->inference && in->lora_rank > 0) {
        gpudiag_plan_in v = *in;
        v.lora_rank = 0;
        v.base_bits = 16;
        gpudiag_plan_compute(&v, &q, NULL);
        trade *t = &tr[nt++];
        snprintf(t->what, sizeof t->what, "%s rank %d (%s)", s->qlora ? "QLoRA" : "LoRA", in->lora_rank, s->targets);
        t->saves = q.total - p->total;
        snprintf(t->compute, sizeof t->compute, "fewer: no weight gradients for the frozen base (-%s)%s",
                 secs(q.compute_s - p->compute_s, b1, sizeof b1), s->qlora ? "; 4-bit weights are dequantised per matmul" : "");
        snprintf(t->bandwidth, sizeof t->bandwidth, "none");
    }
    if (!in->inference && in->grad_accum > 1) {
        gpudiag_plan_in v = *in;
        v.micro_batch = in->micro_batch * in->grad_accum;
        v.grad_accum = 1;
        gpudiag_plan_compute(&v, &q, NULL);
        trade *t = &tr[nt++];
        snprintf(t->what, sizeof t->what, "gradient accumulation x%d", in->grad_accum);
        t->saves = q.total - p->total;
        if (p->gemm_memory_bound == 1)
            snprintf(t->compute, sizeof t->compute,
                     "GEMMs of %.0f tokens: arithmetic intensity ~%.0f < ridge %.0f FLOP/B, memory-bound",
                     p->micro_tokens, p->micro_tokens, in->ridge);
        else
            snprintf(t->compute, sizeof t->compute, "GEMMs of %.0f tokens instead of %.0f (smaller, less efficient)",
                     p->micro_tokens, q.micro_tokens);
        snprintf(t->bandwidth, sizeof t->bandwidth, "none");
    }

    return nt;
}

/* It does not fit: each memory saving not in use, added alone to this
 * setup, then those that keep full training together; fills op[0..] (room
 * for 8) and returns how many (0 when it fits or the fit is unknown). */
static int plan_options(const plan_settings *s, const gd_model *m, const gpudiag_plan *p, trade *op)
{
    const gpudiag_plan_in *in = &s->in;
    /* LoRA trains other parameters: a different run, so it stays out of the
     * combination */
    int no = 0;
    char b1[32], b2[32], b3[32];
    gpudiag_plan q;
    if (!in->inference && p->fits == 0) {
        gpudiag_plan_in all = *in;
        int nall = 0;
        if (!in->flash_attention) {
            gpudiag_plan_in v = *in;
            v.flash_attention = 1;
            all.flash_attention = 1;
            nall++;
            trade *t = &op[no++];
            option_of(t, "FlashAttention (--flash)", &v, p);
            snprintf(t->compute, sizeof t->compute, "none (backward recomputes scores in SRAM; usually faster)");
            snprintf(t->bandwidth, sizeof t->bandwidth, "less HBM traffic (no s x s tensors)");
        }
        if (in->recompute != GPUDIAG_RECOMPUTE_FULL) {
            gpudiag_plan_in v = *in;
            v.recompute = GPUDIAG_RECOMPUTE_FULL;
            all.recompute = GPUDIAG_RECOMPUTE_FULL;
            nall++;
            memset(&q, 0, sizeof q);
            gpudiag_plan_compute(&v, &q, NULL);
            trade *t = &op[no++];
            option_of(t, "full recompute (--recompute full)", &v, p);
            snprintf(t->compute, sizeof t->compute, "+%.1f%% FLOPs per step (+%s): HFU = 4/3 MFU",
                     100 * (q.recompute_share - p->recompute_share), secs(q.compute_s - p->compute_s, b1, sizeof b1));
            snprintf(t->bandwidth, sizeof t->bandwidth, "none");
        }
        if (in->gpus > 1 && in->zero_stage < 3) {
            gpudiag_plan_in v = *in;
            v.zero_stage = 3;
            all.zero_stage = 3;
            nall++;
            trade *t = &op[no++];
            char what[64];
            snprintf(what, sizeof what, "ZeRO stage 3 over %d GPUs (--zero 3)", in->gpus);
            option_of(t, what, &v, p);
            snprintf(t->compute, sizeof t->compute, "none");
            snprintf(t->bandwidth, sizeof t->bandwidth,
                     "1.5x plain data parallel: %s per GPU per step over the GPU links",
                     gb(1.5 * in->params_total * 2 * 2 * (in->gpus - 1) / in->gpus, b1, sizeof b1));
        }
        if (in->offload == GPUDIAG_OFFLOAD_NONE) {
            gpudiag_plan_in v = *in;
            v.offload = GPUDIAG_OFFLOAD_OPTIMIZER;
            all.offload = GPUDIAG_OFFLOAD_OPTIMIZER;
            nall++;
            memset(&q, 0, sizeof q);
            gpudiag_plan_compute(&v, &q, NULL);
            trade *t = &op[no++];
            option_of(t, "CPU offload (--offload optimizer)", &v, p);
            snprintf(t->compute, sizeof t->compute, "the optimizer step runs on the CPU (host memory traffic)");
            if (isfinite(in->pcie_gbs_per_dir) && in->pcie_gbs_per_dir > 0)
                snprintf(t->bandwidth, sizeof t->bandwidth, "PCIe %s up + %s down per step = %s at %.1f GB/s per direction",
                         gb(q.pcie_h2d_bytes, b1, sizeof b1), gb(q.pcie_d2h_bytes, b2, sizeof b2),
                         secs(q.pcie_s, b3, sizeof b3), in->pcie_gbs_per_dir);
            else
                snprintf(t->bandwidth, sizeof t->bandwidth, "PCIe %s up + %s down per step",
                         gb(q.pcie_h2d_bytes, b1, sizeof b1), gb(q.pcie_d2h_bytes, b2, sizeof b2));
        }
        if (in->lora_rank == 0 && m->has_config) {
            gpudiag_plan_in v = *in;
            v.lora_rank = 16;
            v.lora_params = gpudiag_lora_params(&m->cfg, 16, "q,v");
            v.base_bits = 16;
            trade *t = &op[no++];
            option_of(t, "LoRA rank 16 (q,v) (--lora-rank 16)", &v, p);
            snprintf(t->compute, sizeof t->compute,
                     "trains the adapters only: a fine-tune, not full training (QLoRA: 4-bit base, --qlora)");
            snprintf(t->bandwidth, sizeof t->bandwidth, "none");
        }
        if (nall > 1) {
            trade *t = &op[no++];
            option_of(t, "all of the above but LoRA", &all, p);
            snprintf(t->compute, sizeof t->compute, "the costs above, added");
            snprintf(t->bandwidth, sizeof t->bandwidth, "the costs above, added");
        }
    }

    return no;
}

/* The plan as JSON (schema gpudiag.plan/1) on standard output. */
static gd_exit write_plan_json(const plan_settings *s, const gd_model *m, const gpudiag_plan *p, const trade *tr,
                               int nt, const trade *op, int no)
{
    const gpudiag_plan_in *in = &s->in;
    const gpudiag_gpu_spec *gpu = s->mo.gpu;
    gd_json w;
    if (gd_json_open(&w, stdout, 1) < 0)
        return GD_EXIT_INTERNAL;
    gd_json_obj(&w);
    gd_json_kv_str(&w, "schema", "gpudiag.plan/1");
    gd_json_key(&w, "model");
    gd_model_json(&w, m);
    gd_json_key(&w, "setup");
    gd_json_obj(&w);
    gd_json_kv_int(&w, "micro_batch", in->micro_batch);
    gd_json_kv_int(&w, "grad_accum", in->grad_accum);
    gd_json_kv_int(&w, "gpus", in->gpus);
    gd_json_kv_int(&w, "zero_stage", in->zero_stage);
    gd_json_kv_str(&w, "optimizer", gpudiag_optimizer_name(in->optimizer));
    gd_json_kv_str(&w, "recompute", gpudiag_recompute_name(in->recompute));
    gd_json_key(&w, "flash_attention");
    gd_json_bool(&w, in->flash_attention);
    gd_json_kv_int(&w, "lora_rank", in->lora_rank);
    gd_json_kv_str(&w, "lora_targets", in->lora_rank ? s->targets : NULL);
    gd_json_kv_int(&w, "base_bits", in->base_bits);
    gd_json_kv_str(&w, "offload", gpudiag_offload_name(in->offload));
    gd_json_key(&w, "inference");
    gd_json_bool(&w, in->inference);
    gd_json_kv_num(&w, "efficiency", in->efficiency);
    gd_json_end_obj(&w);
    gd_json_key(&w, "gpu");
    gd_json_obj(&w);
    gd_json_kv_str(&w, "name", gpu ? gpu->name : NULL);
    gd_json_key(&w, "uncertain");
    gd_json_bool(&w, gpu && gpu->uncertain);
    gd_json_kv_num(&w, "memory_bytes", in->gpu_mem_bytes);
    gd_json_kv_num(&w, "peak_tflops", in->peak_tflops);
    gd_json_kv_num(&w, "pcie_gbs_per_dir", in->pcie_gbs_per_dir);
    gd_json_kv_num(&w, "ridge_flop_per_byte", in->ridge);
    gd_json_end_obj(&w);
    gd_json_key(&w, "memory_bytes");
    gd_json_obj(&w);
    gd_json_kv_num(&w, "weights", p->weights);
    gd_json_kv_num(&w, "gradients", p->gradients);
    gd_json_kv_num(&w, "optimizer", p->optimizer);
    gd_json_kv_num(&w, "activations", p->activations);
    gd_json_kv_num(&w, "activation_per_layer", p->activation_per_layer);
    gd_json_kv_num(&w, "kv_cache", p->kv_cache);
    gd_json_kv_num(&w, "total", p->total);
    gd_json_kv_num(&w, "host", p->host_bytes);
    gd_json_end_obj(&w);
    gd_json_kv_num(&w, "trainable_params", p->trainable_params);
    gd_json_key(&w, "fits");
    if (p->fits < 0)
        yajl_gen_null(w.g);
    else
        gd_json_bool(&w, p->fits);
    gd_json_key(&w, "time");
    gd_json_obj(&w);
    gd_json_kv_num(&w, "tokens_per_step_per_gpu", p->tokens_per_step_per_gpu);
    gd_json_kv_num(&w, "model_flops_per_step", p->model_flops_per_step);
    gd_json_kv_num(&w, "hardware_flops_per_step", p->hardware_flops_per_step);
    gd_json_kv_num(&w, "recompute_share", p->recompute_share);
    gd_json_kv_num(&w, "compute_s", p->compute_s);
    gd_json_kv_num(&w, "pcie_h2d_bytes", p->pcie_h2d_bytes);
    gd_json_kv_num(&w, "pcie_d2h_bytes", p->pcie_d2h_bytes);
    gd_json_kv_num(&w, "pcie_s", p->pcie_s);
    gd_json_kv_num(&w, "micro_batch_tokens", p->micro_tokens);
    gd_json_key(&w, "gemm_memory_bound");
    if (p->gemm_memory_bound < 0)
        yajl_gen_null(w.g);
    else
        gd_json_bool(&w, p->gemm_memory_bound);
    gd_json_end_obj(&w);
    gd_json_key(&w, "tradeoffs");
    gd_json_arr(&w);
    for (int i = 0; i < nt; i++) {
        gd_json_obj(&w);
        gd_json_kv_str(&w, "technique", tr[i].what);
        gd_json_kv_num(&w, "saves_bytes", tr[i].saves);
        gd_json_kv_str(&w, "costs_compute", tr[i].compute);
        gd_json_kv_str(&w, "costs_bandwidth", tr[i].bandwidth);
        gd_json_end_obj(&w);
    }
    gd_json_end_arr(&w);
    gd_json_key(&w, "options");
    gd_json_arr(&w);
    for (int i = 0; i < no; i++) {
        gd_json_obj(&w);
        gd_json_kv_str(&w, "technique", op[i].what);
        gd_json_kv_num(&w, "saves_bytes", op[i].saves);
        gd_json_kv_num(&w, "total_bytes", op[i].total);
        gd_json_key(&w, "fits");
        if (op[i].fits < 0)
            yajl_gen_null(w.g);
        else
            gd_json_bool(&w, op[i].fits);
        gd_json_kv_str(&w, "costs_compute", op[i].compute);
        gd_json_kv_str(&w, "costs_bandwidth", op[i].bandwidth);
        gd_json_end_obj(&w);
    }
    gd_json_end_arr(&w);
    gd_json_kv_str(&w, "binds", p->binds);
    gd_json_end_obj(&w);
    return gd_json_close(&w) < 0 ? GD_EXIT_INTERNAL : GD_EXIT_OK;
}

/* The plan as text on standard output. */
static void print_plan(const plan_settings *s, const gd_model *m, const gpudiag_plan *p, const trade *tr, int nt,
                       const trade *op, int no)
{
    const gpudiag_plan_in *in = &s->in;
    const gpudiag_gpu_spec *gpu = s->mo.gpu;
    char b1[32], b2[32], b3[32];
    gd_model_print(stdout, m);
    printf("setup        %s%d GPU%s, micro-batch %d x %d tokens, accumulation %d, ZeRO %d, %s, recompute %s%s%s\n",
           in->inference ? "inference, " : "", in->gpus, in->gpus == 1 ? "" : "s", in->micro_batch, in->seq,
           in->grad_accum, in->zero_stage, gpudiag_optimizer_name(in->optimizer), gpudiag_recompute_name(in->recompute),
           in->flash_attention ? ", FlashAttention" : "",
           in->offload ? (in->offload == GPUDIAG_OFFLOAD_PARAMS ? ", offload params" : ", offload optimizer") : "");
    if (gpu) {
        /* name the row taken: a short --gpu such as H100 matches one row of several */
        printf("gpu          %s: %.0f GB, %.6g TFLOP/s %s dense, PCIe %.1f GB/s per direction%s\n", gpu->name,
               gpu->mem_gb, gpu->peak_tflops[s->mo.dtype], gpudiag_dtype_name(s->mo.dtype), gpu->pcie_bw_gbs_per_dir,
               gpu->uncertain && isnan(s->gpu_mem_gb) && !(s->mo.peak_tflops > 0)
                   ? "\n             (UNCERTAIN row: check 'gpudiag specs' and override with --gpu-mem and --peak-tflops)"
                   : "");
        if (!isnan(s->gpu_mem_gb) || s->mo.peak_tflops > 0)
            printf("             overridden:%s%s\n", !isnan(s->gpu_mem_gb) ? " --gpu-mem" : "",
                   s->mo.peak_tflops > 0 ? " --peak-tflops" : "");
    }
    printf("\nMEMORY per GPU\n");
    printf("  weights        %12s%s\n", gb(p->weights, b1, sizeof b1),
           in->lora_rank ? (s->qlora ? "  (4-bit base + adapters)" : "  (16-bit base + adapters)") : "");
    if (!in->inference) {
        printf("  gradients      %12s\n", gb(p->gradients, b1, sizeof b1));
        printf("  optimizer      %12s%s\n", gb(p->optimizer, b1, sizeof b1), in->offload ? "  (on the CPU)" : "");
        printf("  activations    %12s  (%s per layer per micro-batch; Korthikanti et al. GPT block)\n",
               gb(p->activations, b1, sizeof b1), gb(p->activation_per_layer, b2, sizeof b2));
    } else
        printf("  KV cache       %12s  (%d sequences x %d tokens)\n", gb(p->kv_cache, b1, sizeof b1), in->micro_batch,
               in->seq);
    printf("  total          %12s", gb(p->total, b1, sizeof b1));
    if (p->fits >= 0)
        printf("  %s %s%s\n", p->fits ? "fits in" : "DOES NOT FIT in", gb(in->gpu_mem_bytes, b2, sizeof b2),
               gpu ? " (the GPU's GB label read as GiB)" : "");
    else
        printf("  (give --gpu or --gpu-mem to check the fit)\n");
    if (p->host_bytes > 0)
        printf("  host memory    %12s  offloaded\n", gb(p->host_bytes, b1, sizeof b1));
    printf("  plus the CUDA context, temporary buffers and fragmentation (often 1-4 GB).\n");
    if (!in->inference) {
        printf("\nTIME per optimizer step per GPU (%.0f tokens)\n", p->tokens_per_step_per_gpu);
        if (isfinite(in->peak_tflops) && in->peak_tflops > 0)
            printf("  compute        %12s  (%.3g hardware FLOPs at %.0f%% of %.0f TFLOP/s)\n",
                   secs(p->compute_s, b1, sizeof b1), p->hardware_flops_per_step, 100 * in->efficiency, in->peak_tflops);
        else
            printf("  compute        %12s  (%.3g hardware FLOPs; give --gpu or --peak-tflops for the time)\n",
                   secs(p->compute_s, b1, sizeof b1), p->hardware_flops_per_step);
        if (in->offload)
            printf("  PCIe           %12s  (%s up, %s down; the link is full duplex)\n", secs(p->pcie_s, b1, sizeof b1),
                   gb(p->pcie_h2d_bytes, b2, sizeof b2), gb(p->pcie_d2h_bytes, b3, sizeof b3));
        if (nt > 0) {
            printf("\n  %-30s %-12s %s\n", "technique", "saves memory", "costs compute / costs bandwidth");
            for (int i = 0; i < nt; i++)
                printf("  %-30s %-12s %s\n  %-30s %-12s %s\n", tr[i].what, gb(tr[i].saves, b1, sizeof b1),
                       tr[i].compute, "", "", tr[i].bandwidth);
        }
        if (no > 0) {
            printf("\nIT DOES NOT FIT: each memory saving not in use, added alone to this setup\n");
            printf("  %-36s %-12s %-24s %s\n", "technique", "saves memory", "total then", "costs compute / costs bandwidth");
            for (int i = 0; i < no; i++) {
                char tot[64];
                snprintf(tot, sizeof tot, "%s %s", gb(op[i].total, b2, sizeof b2),
                         op[i].fits == 1 ? "fits" : op[i].fits == 0 ? "does not fit" : "");
                printf("  %-36s %-12s %-24s %s\n  %-36s %-12s %-24s %s\n", op[i].what, gb(op[i].saves, b1, sizeof b1),
                       tot, op[i].compute, "", "", "", op[i].bandwidth);
            }
        }
    }
    printf("\nVERDICT  ");
    if (strcmp(p->binds, "memory_capacity") == 0)
        printf("memory capacity binds: %s needed, %s available. Save memory with ZeRO/FSDP sharding, "
               "recompute, FlashAttention, LoRA or offload%s.\n",
               gb(p->total, b1, sizeof b1), gb(in->gpu_mem_bytes, b2, sizeof b2),
               no > 0 ? " (the table above shows what each saves and costs)" : "");
    else if (strcmp(p->binds, "pcie_bandwidth") == 0)
        printf("PCIe bandwidth binds: offload moves data for %s per step against %s of compute; unless the copies "
               "overlap compute the step is paced by the link.\n",
               secs(p->pcie_s, b1, sizeof b1), secs(p->compute_s, b2, sizeof b2));
    else if (strcmp(p->binds, "compute") == 0)
        printf("compute binds: it fits%s, and no transfer outlasts the %s of compute per step.\n",
               p->fits == 1 ? "" : " (capacity unchecked)", secs(p->compute_s, b1, sizeof b1));
    else
        printf("give --gpu (or --peak-tflops) to estimate the time side.\n");
}

gd_exit gd_cmd_plan(int argc, char **argv)
{
    plan_settings s;
    int rc = parse_plan(argc, argv, &s);
    if (rc != GD_PARSE_GO)
        return (gd_exit)rc;
    gd_model m;
    gpudiag_plan p;
    gd_exit e = resolve_plan(&s, &m, &p);
    if (e != GD_EXIT_OK)
        return e;
    trade tr[8], op[8];
    int nt = plan_tradeoffs(&s, &p, tr);
    int no = plan_options(&s, &m, &p, op);
    if (s.json)
        return write_plan_json(&s, &m, &p, tr, nt, op, no);
    print_plan(&s, &m, &p, tr, nt, op, no);
    return GD_EXIT_OK;
}
