/*
 * cmd_mfu.c — `gpudiag mfu`: model FLOPs per token (PaLM App. B), achieved
 * TFLOP/s per GPU, MFU and HFU, with published anchors for context.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/model_opts.h"
#include "gpudiag/mfu.h"
#include "gpudiag/specs.h"

enum {
    OPT_JSON = 300,
    OPT_TPS,
    OPT_TPS_GPU,
    OPT_STEP_TIME,
    OPT_TOKENS_STEP,
    OPT_GPUS,
    OPT_RECOMPUTE,
    OPT_CAUSAL,
};

/* FLOPs with a unit: "57.91 GFLOP". */
static const char *flop(double v, char *b, size_t n)
{
    if (v >= 1e12)
        snprintf(b, n, "%.3f TFLOP", v / 1e12);
    else if (v >= 1e9)
        snprintf(b, n, "%.2f GFLOP", v / 1e9);
    else
        snprintf(b, n, "%.2f MFLOP", v / 1e6);
    return b;
}

static void usage_mfu(FILE *fp)
{
    fprintf(fp,
            "Usage: gpudiag mfu MODEL THROUGHPUT [--gpu NAME | --peak-tflops X] [OPTIONS]\n"
            "\n"
            "Model FLOPs Utilization: the model's FLOPs per token (PaLM appendix B:\n"
            "6N + 12*L*H*Q*T) times the tokens per second each GPU processes, over the GPU's\n"
            "dense peak.  HFU adds the FLOPs of activation recomputation.\n"
            "\n"
            "MODEL (one of):\n"
            "%s"
            "\n"
            "THROUGHPUT (one of):\n"
            "      --tokens-per-sec X          tokens per second of the whole job (all GPUs)\n"
            "      --tokens-per-sec-per-gpu X  tokens per second per GPU (torchtitan's TPS)\n"
            "      --step-time S --tokens-per-step T   seconds per step, tokens per step (whole job)\n"
            "      --gpus N                    GPUs in the job (default 1)\n"
            "\n"
            "GPU:\n"
            "      --gpu NAME          a GPU of 'gpudiag specs' (e.g. 'H100 80GB HBM3', A100-SXM4-80GB)\n"
            "      --dtype DT          the matmul dtype whose peak is used (default bf16)\n"
            "      --peak-tflops X     dense peak per GPU in TFLOP/s (overrides --gpu)\n"
            "\n"
            "Counting:\n"
            "      --recompute MODE    none (default), selective (attention core again: +4*L*H*Q*T),\n"
            "                          full (the forward again: +2N + 4*L*H*Q*T, HFU = 4/3 MFU)\n"
            "      --causal-half       count half the TxT attention (causal mask; new Megatron)\n"
            "                          instead of the full square (PaLM, nanoGPT, torchtitan)\n"
            "      --json              machine-readable output (schema gpudiag.mfu/1)\n"
            "  -h, --help              show this help and exit\n"
            "\n"
            "Exit status: 0 printed; 2 usage error (missing or invalid input, unknown GPU).\n"
            "\n"
            "Examples:\n"
            "  gpudiag mfu --model llama3-8b --tokens-per-sec-per-gpu 5762 --gpu 'NVIDIA H100'\n"
            "  gpudiag mfu --params 7e9 --layers 32 --heads 32 --hidden 4096 --seq 4096 \\\n"
            "              --tokens-per-sec 24000 --gpus 8 --gpu A100-SXM4-80GB --recompute full\n",
            gd_model_opts_help);
}

/* What the command line asked for (NaN: not given). */
typedef struct mfu_settings {
    gd_model_opts mo;
    int json, causal;
    double tps, tps_gpu, step_time, tokens_step, gpus; /* tokens/s, tokens/s per GPU, s, tokens, GPUs */
    gpudiag_recompute rec;
} mfu_settings;

/* The command's own options; gd_model_opts_longopts adds the model and GPU ones. */
static const struct option mfu_base[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"tokens-per-sec", required_argument, NULL, OPT_TPS},
    {"tokens-per-sec-per-gpu", required_argument, NULL, OPT_TPS_GPU},
    {"step-time", required_argument, NULL, OPT_STEP_TIME},
    {"tokens-per-step", required_argument, NULL, OPT_TOKENS_STEP},
    {"gpus", required_argument, NULL, OPT_GPUS},
    {"recompute", required_argument, NULL, OPT_RECOMPUTE},
    {"causal-half", no_argument, NULL, OPT_CAUSAL},
    {"help", no_argument, NULL, 'h'},
};

/* Parse argv into *s (defaults first).  GD_PARSE_GO to go on, else the exit
 * status (--help: GD_EXIT_OK; a usage error, said on stderr: GD_EXIT_USAGE). */
static int parse_mfu(int argc, char **argv, mfu_settings *s)
{
    struct option longopts[64];
    gd_model_opts_longopts(longopts, 64, mfu_base, sizeof mfu_base / sizeof mfu_base[0]);
    gd_model_opts_init(&s->mo);
    s->json = s->causal = 0;
    s->tps = s->tps_gpu = s->step_time = s->tokens_step = NAN;
    s->gpus = 1;
    s->rec = GPUDIAG_RECOMPUTE_NONE;
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
        case OPT_TPS:
            if (gd_opt_number("--tokens-per-sec", optarg, 1, 1e-9, 1e15, &s->tps) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_TPS_GPU:
            if (gd_opt_number("--tokens-per-sec-per-gpu", optarg, 1, 1e-9, 1e15, &s->tps_gpu) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_STEP_TIME:
            if (gd_opt_number("--step-time", optarg, 0, 1e-9, 1e9, &s->step_time) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_TOKENS_STEP:
            if (gd_opt_number("--tokens-per-step", optarg, 1, 1, 1e15, &s->tokens_step) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_GPUS:
            if (gd_opt_number("--gpus", optarg, 1, 1, 1e7, &s->gpus) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_RECOMPUTE:
            if (gd_opt_recompute(optarg, &s->rec) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_CAUSAL: s->causal = 1; break;
        case 'h': usage_mfu(stdout); return GD_EXIT_OK;
        default:
            return gd_bad_option("mfu", c, argv, longopts);
        }
    }
    if (optind < argc)
        return gd_usage_error("mfu", "mfu takes no arguments, got '%s'", argv[optind]);
    return GD_PARSE_GO;
}

/* The numbers: the model, the peak taken (TFLOP/s), FLOPs per token, MFU. */
typedef struct mfu_result {
    gd_model m;
    double peak;
    gpudiag_flops fl;
    gpudiag_mfu res;
    int attn_known; /* the model's shapes give the attention term */
} mfu_result;

/* Resolve the model, the throughput (s->tps, s->tps_gpu filled in) and
 * the peak, and compute *r.  GD_EXIT_OK, or GD_EXIT_USAGE after a message. */
static gd_exit compute_mfu(mfu_settings *s, mfu_result *r)
{
    if (gd_model_opts_resolve(&s->mo, &r->m) < 0)
        return GD_EXIT_USAGE;
    int nthr = !isnan(s->tps) + !isnan(s->tps_gpu) + (!isnan(s->step_time) || !isnan(s->tokens_step));
    if (nthr != 1 || isnan(s->step_time) != isnan(s->tokens_step)) {
        fprintf(stderr, "gpudiag: error: give one throughput: --tokens-per-sec, --tokens-per-sec-per-gpu, or "
                        "--step-time with --tokens-per-step (try 'gpudiag mfu --help')\n");
        return GD_EXIT_USAGE;
    }
    if (!isnan(s->step_time))
        s->tps = s->tokens_step / s->step_time;
    if (isnan(s->tps_gpu))
        s->tps_gpu = s->tps / s->gpus;
    r->peak = s->mo.peak_tflops;
    if (!(r->peak > 0)) {
        if (!s->mo.gpu) {
            fprintf(stderr, "gpudiag: error: give --gpu NAME or --peak-tflops X (try 'gpudiag mfu --help')\n");
            return GD_EXIT_USAGE;
        }
        r->peak = s->mo.gpu->peak_tflops[s->mo.dtype];
        if (!(r->peak > 0)) {
            fprintf(stderr, "gpudiag: error: %s has no %s peak in the table; pick --dtype or give --peak-tflops\n",
                    s->mo.gpu->name, gpudiag_dtype_name(s->mo.dtype));
            return GD_EXIT_USAGE;
        }
    }
    gpudiag_flops_in fin = {r->m.n_active, r->m.layers, r->m.heads, r->m.head_dim, r->m.seq, s->causal, s->rec};
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    if (gpudiag_flops_per_token(&fin, &r->fl, &err) != GPUDIAG_OK ||
        gpudiag_mfu_compute(&r->fl, s->tps_gpu, r->peak, &r->res, &err) != GPUDIAG_OK) {
        fprintf(stderr, "gpudiag: error: %s\n", err.message);
        return GD_EXIT_USAGE;
    }
    r->attn_known = r->m.layers > 0 && r->m.heads > 0 && r->m.head_dim > 0 && r->m.seq > 0;
    return GD_EXIT_OK;
}

/* The result as JSON (schema gpudiag.mfu/1) on standard output. */
static gd_exit write_mfu_json(const mfu_settings *s, const mfu_result *r)
{
    gd_json w;
    if (gd_json_open(&w, stdout, 1) < 0)
        return GD_EXIT_INTERNAL;
    gd_json_obj(&w);
    gd_json_kv_str(&w, "schema", "gpudiag.mfu/1");
    gd_json_key(&w, "model");
    gd_model_json(&w, &r->m);
    gd_json_key(&w, "flops_per_token");
    gd_json_obj(&w);
    gd_json_kv_str(&w, "definition", "palm_appendix_b");
    gd_json_kv_num(&w, "params_term", r->fl.params_term);
    gd_json_kv_num(&w, "attention_term", r->attn_known ? r->fl.attention_term : NAN);
    gd_json_kv_str(&w, "attention_counting", s->causal ? "causal_half" : "full_square");
    gd_json_kv_num(&w, "model", r->fl.model);
    gd_json_kv_str(&w, "recompute", gpudiag_recompute_name(s->rec));
    gd_json_kv_num(&w, "recompute_extra", r->fl.recompute);
    gd_json_kv_num(&w, "hardware", r->fl.hardware);
    gd_json_end_obj(&w);
    gd_json_key(&w, "throughput");
    gd_json_obj(&w);
    gd_json_kv_num(&w, "gpus", s->gpus);
    gd_json_kv_num(&w, "tokens_per_sec", s->tps_gpu * s->gpus);
    gd_json_kv_num(&w, "tokens_per_sec_per_gpu", s->tps_gpu);
    gd_json_end_obj(&w);
    gd_json_key(&w, "gpu");
    gd_json_obj(&w);
    gd_json_kv_str(&w, "name", s->mo.gpu ? s->mo.gpu->name : NULL);
    gd_json_key(&w, "uncertain");
    gd_json_bool(&w, s->mo.gpu && s->mo.gpu->uncertain && !(s->mo.peak_tflops > 0));
    gd_json_kv_str(&w, "dtype", gpudiag_dtype_name(s->mo.dtype));
    gd_json_kv_num(&w, "peak_tflops", r->peak);
    gd_json_key(&w, "peak_overridden");
    gd_json_bool(&w, s->mo.peak_tflops > 0);
    gd_json_end_obj(&w);
    gd_json_kv_num(&w, "model_tflops_per_gpu", r->res.model_tflops_per_gpu);
    gd_json_kv_num(&w, "hardware_tflops_per_gpu", r->res.hardware_tflops_per_gpu);
    gd_json_kv_num(&w, "mfu", r->res.mfu);
    gd_json_kv_num(&w, "hfu", r->res.hfu);
    gd_json_key(&w, "anchors");
    gd_json_arr(&w);
    for (size_t i = 0; i < gpudiag_mfu_anchor_count(); i++) {
        const gpudiag_mfu_anchor *a = gpudiag_mfu_anchor_at(i);
        gd_json_obj(&w);
        gd_json_kv_str(&w, "run", a->run);
        gd_json_kv_str(&w, "hardware", a->hardware);
        gd_json_kv_num(&w, "mfu_low", a->mfu_low);
        gd_json_kv_num(&w, "mfu_high", a->mfu_high);
        gd_json_kv_num(&w, "hfu", a->hfu);
        gd_json_kv_str(&w, "source", a->source);
        gd_json_end_obj(&w);
    }
    gd_json_end_arr(&w);
    gd_json_end_obj(&w);
    return gd_json_close(&w) < 0 ? GD_EXIT_INTERNAL : GD_EXIT_OK;
}

/* The result as text on standard output, with the published anchors. */
static void print_mfu(const mfu_settings *s, const mfu_result *r)
{
    gd_model_print(stdout, &r->m);
    char b1[32], b2[32];
    printf("FLOPs/token  6N = %s", flop(r->fl.params_term, b1, sizeof b1));
    if (r->attn_known)
        printf(" + attention 12*L*H*Q*T%s = %s\n             (L %d, H %d, Q %d, T %d; %s)", s->causal ? "/2" : "",
               flop(r->fl.attention_term, b2, sizeof b2), r->m.layers, r->m.heads, r->m.head_dim, r->m.seq,
               s->causal ? "causal: half the TxT square" : "the full TxT square, as PaLM and torchtitan count it");
    else
        printf("\n             (attention term left out: give --layers, --heads, --hidden or --head-dim, and --seq)");
    printf("\n             = %s model FLOPs per token (PaLM appendix B)\n", flop(r->fl.model, b1, sizeof b1));
    if (s->rec != GPUDIAG_RECOMPUTE_NONE)
        printf("recompute    %s: +%s per token -> %s hardware FLOPs per token (%.3fx)\n",
               gpudiag_recompute_name(s->rec), flop(r->fl.recompute, b1, sizeof b1), flop(r->fl.hardware, b2, sizeof b2),
               r->fl.hardware / r->fl.model);
    printf("throughput   %.6g tokens/s per GPU (%.6g over %.0f GPU%s)\n", s->tps_gpu, s->tps_gpu * s->gpus, s->gpus,
           s->gpus == 1 ? "" : "s");
    if (s->mo.peak_tflops > 0)
        printf("peak         %.6g TFLOP/s per GPU (--peak-tflops)\n", r->peak);
    else
        printf("peak         %.6g TFLOP/s per GPU: %s, %s dense%s\n", r->peak, s->mo.gpu->name,
               gpudiag_dtype_name(s->mo.dtype),
               s->mo.gpu->uncertain ? " (UNCERTAIN row: check 'gpudiag specs' and override with --peak-tflops)" : "");
    printf("achieved     %.1f TFLOP/s per GPU of model FLOPs", r->res.model_tflops_per_gpu);
    if (s->rec != GPUDIAG_RECOMPUTE_NONE)
        printf(", %.1f of hardware FLOPs", r->res.hardware_tflops_per_gpu);
    printf("\n\nMFU %.1f%%   HFU %.1f%%\n\n", 100 * r->res.mfu, 100 * r->res.hfu);
    printf("Published, for context (well-tuned dense LLM training on A100/H100 lands at 35-55%%):\n");
    for (size_t i = 0; i < gpudiag_mfu_anchor_count(); i++) {
        const gpudiag_mfu_anchor *a = gpudiag_mfu_anchor_at(i);
        char mfu[32];
        if (a->mfu_low == a->mfu_high)
            snprintf(mfu, sizeof mfu, "%.1f%%", 100 * a->mfu_low);
        else
            snprintf(mfu, sizeof mfu, "%.1f-%.1f%%", 100 * a->mfu_low, 100 * a->mfu_high);
        printf("  %-40s %-11s", a->run, mfu);
        if (!isnan(a->hfu))
            printf(" HFU %.1f%%", 100 * a->hfu);
        printf("  %s\n", a->hardware);
    }
    if (r->res.mfu > 1)
        printf("\nMFU above 100%% means the peak, the throughput or the model size is wrong.\n");
}

gd_exit gd_cmd_mfu(int argc, char **argv)
{
    mfu_settings s;
    int rc = parse_mfu(argc, argv, &s);
    if (rc != GD_PARSE_GO)
        return (gd_exit)rc;
    mfu_result r;
    gd_exit e = compute_mfu(&s, &r);
    if (e != GD_EXIT_OK)
        return e;
    if (s.json)
        return write_mfu_json(&s, &r);
    print_mfu(&s, &r);
    return GD_EXIT_OK;
}
