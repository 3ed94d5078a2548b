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

gd_exit gd_cmd_mfu(int argc, char **argv)
{
    static const struct option base[] = {
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
    struct option longopts[64];
    gd_model_opts_longopts(longopts, 64, base, sizeof base / sizeof base[0]);

    gd_model_opts mo;
    gd_model_opts_init(&mo);
    int json = 0, causal = 0;
    double tps = NAN, tps_gpu = NAN, step_time = NAN, tokens_step = NAN, gpus = 1;
    gpudiag_recompute rec = GPUDIAG_RECOMPUTE_NONE;
    optind = 1;
    opterr = 0;
    int c;
    gd_once once; /* single-valued options given twice are refused */
    gd_once_init(&once, longopts);
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (gd_once_check(&once, c, optarg) < 0)
            return GD_EXIT_USAGE;
        int r = gd_model_opts_take(&mo, c, optarg);
        if (r < 0)
            return GD_EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case OPT_JSON: json = 1; break;
        case OPT_TPS:
            if (gd_opt_number("--tokens-per-sec", optarg, 1, 1e-9, 1e15, &tps) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_TPS_GPU:
            if (gd_opt_number("--tokens-per-sec-per-gpu", optarg, 1, 1e-9, 1e15, &tps_gpu) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_STEP_TIME:
            if (gd_opt_number("--step-time", optarg, 0, 1e-9, 1e9, &step_time) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_TOKENS_STEP:
            if (gd_opt_number("--tokens-per-step", optarg, 1, 1, 1e15, &tokens_step) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_GPUS:
            if (gd_opt_number("--gpus", optarg, 1, 1, 1e7, &gpus) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_RECOMPUTE:
            if (gd_opt_recompute(optarg, &rec) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_CAUSAL: causal = 1; break;
        case 'h': usage_mfu(stdout); return GD_EXIT_OK;
        default:
            return gd_bad_option("mfu", c, argv, longopts);
        }
    }
    if (optind < argc) {
        return gd_usage_error("mfu", "mfu takes no arguments, got '%s'", argv[optind]);
    }
    gd_model m;
    if (gd_model_opts_resolve(&mo, &m) < 0)
        return GD_EXIT_USAGE;
    int nthr = !isnan(tps) + !isnan(tps_gpu) + (!isnan(step_time) || !isnan(tokens_step));
    if (nthr != 1 || isnan(step_time) != isnan(tokens_step)) {
        fprintf(stderr, "gpudiag: error: give one throughput: --tokens-per-sec, --tokens-per-sec-per-gpu, or "
                        "--step-time with --tokens-per-step (try 'gpudiag mfu --help')\n");
        return GD_EXIT_USAGE;
    }
    if (!isnan(step_time))
        tps = tokens_step / step_time;
    if (isnan(tps_gpu))
        tps_gpu = tps / gpus;
    double peak = mo.peak_tflops;
    if (!(peak > 0)) {
        if (!mo.gpu) {
            fprintf(stderr, "gpudiag: error: give --gpu NAME or --peak-tflops X (try 'gpudiag mfu --help')\n");
            return GD_EXIT_USAGE;
        }
        peak = mo.gpu->peak_tflops[mo.dtype];
        if (!(peak > 0)) {
            fprintf(stderr, "gpudiag: error: %s has no %s peak in the table; pick --dtype or give --peak-tflops\n",
                    mo.gpu->name, gpudiag_dtype_name(mo.dtype));
            return GD_EXIT_USAGE;
        }
    }
    gpudiag_flops_in fin = {m.n_active, m.layers, m.heads, m.head_dim, m.seq, causal, rec};
    gpudiag_flops fl;
    gpudiag_mfu res;
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    if (gpudiag_flops_per_token(&fin, &fl, &err) != GPUDIAG_OK ||
        gpudiag_mfu_compute(&fl, tps_gpu, peak, &res, &err) != GPUDIAG_OK) {
        fprintf(stderr, "gpudiag: error: %s\n", err.message);
        return GD_EXIT_USAGE;
    }
    int attn_known = m.layers > 0 && m.heads > 0 && m.head_dim > 0 && m.seq > 0;

    if (json) {
        gd_json w;
        if (gd_json_open(&w, stdout, 1) < 0)
            return GD_EXIT_INTERNAL;
        gd_json_obj(&w);
        gd_json_kv_str(&w, "schema", "gpudiag.mfu/1");
        gd_json_key(&w, "model");
        gd_model_json(&w, &m);
        gd_json_key(&w, "flops_per_token");
        gd_json_obj(&w);
        gd_json_kv_str(&w, "definition", "palm_appendix_b");
        gd_json_kv_num(&w, "params_term", fl.params_term);
        gd_json_kv_num(&w, "attention_term", attn_known ? fl.attention_term : NAN);
        gd_json_kv_str(&w, "attention_counting", causal ? "causal_half" : "full_square");
        gd_json_kv_num(&w, "model", fl.model);
        gd_json_kv_str(&w, "recompute", gpudiag_recompute_name(rec));
        gd_json_kv_num(&w, "recompute_extra", fl.recompute);
        gd_json_kv_num(&w, "hardware", fl.hardware);
        gd_json_end_obj(&w);
        gd_json_key(&w, "throughput");
        gd_json_obj(&w);
        gd_json_kv_num(&w, "gpus", gpus);
        gd_json_kv_num(&w, "tokens_per_sec", tps_gpu * gpus);
        gd_json_kv_num(&w, "tokens_per_sec_per_gpu", tps_gpu);
        gd_json_end_obj(&w);
        gd_json_key(&w, "gpu");
        gd_json_obj(&w);
        gd_json_kv_str(&w, "name", mo.gpu ? mo.gpu->name : NULL);
        gd_json_key(&w, "uncertain");
        gd_json_bool(&w, mo.gpu && mo.gpu->uncertain && !(mo.peak_tflops > 0));
        gd_json_kv_str(&w, "dtype", gpudiag_dtype_name(mo.dtype));
        gd_json_kv_num(&w, "peak_tflops", peak);
        gd_json_key(&w, "peak_overridden");
        gd_json_bool(&w, mo.peak_tflops > 0);
        gd_json_end_obj(&w);
        gd_json_kv_num(&w, "model_tflops_per_gpu", res.model_tflops_per_gpu);
        gd_json_kv_num(&w, "hardware_tflops_per_gpu", res.hardware_tflops_per_gpu);
        gd_json_kv_num(&w, "mfu", res.mfu);
        gd_json_kv_num(&w, "hfu", res.hfu);
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

    gd_model_print(stdout, &m);
    char b1[32], b2[32];
    printf("FLOPs/token  6N = %s", flop(fl.params_term, b1, sizeof b1));
    if (attn_known)
        printf(" + attention 12*L*H*Q*T%s = %s\n             (L %d, H %d, Q %d, T %d; %s)", causal ? "/2" : "",
               flop(fl.attention_term, b2, sizeof b2), m.layers, m.heads, m.head_dim, m.seq,
               causal ? "causal: half the TxT square" : "the full TxT square, as PaLM and torchtitan count it");
    else
        printf("\n             (attention term left out: give --layers, --heads, --hidden or --head-dim, and --seq)");
    printf("\n             = %s model FLOPs per token (PaLM appendix B)\n", flop(fl.model, b1, sizeof b1));
    if (rec != GPUDIAG_RECOMPUTE_NONE)
        printf("recompute    %s: +%s per token -> %s hardware FLOPs per token (%.3fx)\n",
               gpudiag_recompute_name(rec), flop(fl.recompute, b1, sizeof b1), flop(fl.hardware, b2, sizeof b2),
               fl.hardware / fl.model);
    printf("throughput   %.6g tokens/s per GPU (%.6g over %.0f GPU%s)\n", tps_gpu, tps_gpu * gpus, gpus,
           gpus == 1 ? "" : "s");
    if (mo.peak_tflops > 0)
        printf("peak         %.6g TFLOP/s per GPU (--peak-tflops)\n", peak);
    else
        printf("peak         %.6g TFLOP/s per GPU: %s, %s dense%s\n", peak, mo.gpu->name,
               gpudiag_dtype_name(mo.dtype),
               mo.gpu->uncertain ? " (UNCERTAIN row: check 'gpudiag specs' and override with --peak-tflops)" : "");
    printf("achieved     %.1f TFLOP/s per GPU of model FLOPs", res.model_tflops_per_gpu);
    if (rec != GPUDIAG_RECOMPUTE_NONE)
        printf(", %.1f of hardware FLOPs", res.hardware_tflops_per_gpu);
    printf("\n\nMFU %.1f%%   HFU %.1f%%\n\n", 100 * res.mfu, 100 * res.hfu);
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
    if (res.mfu > 1)
        printf("\nMFU above 100%% means the peak, the throughput or the model size is wrong.\n");
    return GD_EXIT_OK;
}
