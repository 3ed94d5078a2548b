/*
 * cmd_specs.c — `gpudiag specs [NAME]`: the built-in GPU table, or one GPU
 * with its ridge point per dtype (docs/DEFINITIONS.md "GPU table").
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "gpudiag/specs.h"

enum { OPT_JSON = 200, OPT_PEAK, OPT_BW, OPT_DTYPE };

static void usage_specs(FILE *fp)
{
    fprintf(fp,
            "Usage: gpudiag specs [OPTIONS] [NAME...]\n"
            "\n"
            "Print the built-in GPU table (dense peaks, memory, links, power), or one GPU with\n"
            "its ridge point per dtype (peak FLOP/s / memory bandwidth: kernels with fewer\n"
            "FLOPs per byte are memory-bound).  NAME is matched as NVML or a trace reports it\n"
            "(\"NVIDIA H100 80GB HBM3\"), or by whole words (\"H100 NVL\", \"L4\"); an ambiguous\n"
            "name lists the candidates.  Rows marked '?' have uncertain values (see their source).\n"
            "\n"
            "Options:\n"
            "      --json              machine-readable output\n"
            "      --dtype DT          the dtype --peak-tflops applies to (default bf16):\n"
            "                          fp64, fp32, tf32, fp16, bf16, fp8, int8\n"
            "      --peak-tflops X     override the peak of --dtype (dense TFLOP/s)\n"
            "      --mem-bw X          override the memory bandwidth (GB/s)\n"
            "  -h, --help              show this help and exit\n"
            "\n"
            "Exit status: 0 printed; 2 usage error or unknown/ambiguous NAME.\n"
            "\n"
            "Examples:\n"
            "  gpudiag specs\n"
            "  gpudiag specs H100 NVL\n"
            "  gpudiag specs --json 'NVIDIA A100-SXM4-80GB'\n");
}

static void fmt(char *b, size_t n, double v, int decimals)
{
    if (isnan(v))
        snprintf(b, n, "-");
    else
        snprintf(b, n, "%.*f", decimals, v);
}

static void print_table(void)
{
    printf("%-32s %5s %6s %4s %7s %7s %7s %7s %7s %6s %4s %6s %5s\n", "GPU", "GB", "GB/s", "SMs", "FP32", "TF32",
           "BF16", "FP16", "FP8", "RIDGE", "PCIe", "NVLink", "TDP");
    int any_uncertain = 0;
    for (size_t i = 0; i < gpudiag_gpu_count(); i++) {
        const gpudiag_gpu_spec *g = gpudiag_gpu_at(i);
        char name[40], c[8][16];
        snprintf(name, sizeof name, "%s%s", g->uncertain ? "? " : "", g->name);
        fmt(c[0], 16, g->mem_gb, 0);
        fmt(c[1], 16, g->mem_bw_gbs, 0);
        fmt(c[2], 16, g->peak_tflops[GPUDIAG_DTYPE_FP32], 1);
        fmt(c[3], 16, g->peak_tflops[GPUDIAG_DTYPE_TF32], 1);
        fmt(c[4], 16, g->peak_tflops[GPUDIAG_DTYPE_BF16], 1);
        fmt(c[5], 16, g->peak_tflops[GPUDIAG_DTYPE_FP16], 1);
        fmt(c[6], 16, g->peak_tflops[GPUDIAG_DTYPE_FP8], 1);
        /* ridge of the 16-bit tensor rate: BF16, else FP16 (Volta, Turing) */
        double ridge = gpudiag_gpu_ridge(g, GPUDIAG_DTYPE_BF16, NAN, NAN);
        if (isnan(ridge))
            ridge = gpudiag_gpu_ridge(g, GPUDIAG_DTYPE_FP16, NAN, NAN);
        fmt(c[7], 16, ridge, 0);
        char pcie[24], nvl[16], tdp[16];
        if (g->pcie_gen > 0)
            snprintf(pcie, sizeof pcie, "Gen%d", g->pcie_gen);
        else
            snprintf(pcie, sizeof pcie, "-");
        fmt(nvl, sizeof nvl, g->nvlink_bw_gbs_total, 0);
        fmt(tdp, sizeof tdp, g->tdp_w, 0);
        printf("%-32s %5s %6s %4d %7s %7s %7s %7s %7s %6s %4s %6s %5s\n", name, c[0], c[1], g->sm_count, c[2], c[3],
               c[4], c[5], c[6], c[7], pcie, nvl, tdp);
        any_uncertain |= g->uncertain;
    }
    printf("\nTFLOP/s dense (no sparsity); BF16/FP16/FP8 are tensor rates with FP32 accumulate; FP32 is the\n"
           "CUDA-core rate.  RIDGE = BF16 (else FP16) peak / memory bandwidth, FLOP per byte.  NVLink = GPU-GPU\n"
           "total of both directions (AMD: Infinity Fabric).  '-' = none or not published.\n");
    if (any_uncertain)
        printf("? = uncertain values: run 'gpudiag specs NAME' for the source, and override with\n"
               "    --peak-tflops / --mem-bw where you know better.\n");
}

static void print_one(const gpudiag_gpu_spec *g, gpudiag_dtype odt, double peak, double bw)
{
    double mem_bw = bw > 0 ? bw : g->mem_bw_gbs;
    printf("%s%s\n", g->name, g->uncertain ? "   (UNCERTAIN values: see source)" : "");
    printf("  vendor %s, %s, compute capability %s, %d %s", g->vendor, g->arch, g->compute_capability, g->sm_count,
           strcmp(g->vendor, "AMD") == 0 ? "CUs" : "SMs");
    if (!isnan(g->boost_clock_mhz))
        printf(", boost %.0f MHz", g->boost_clock_mhz);
    printf("\n");
    printf("  memory %.0f GB at %.0f GB/s%s\n", g->mem_gb, mem_bw, bw > 0 ? " (--mem-bw)" : "");
    if (g->pcie_gen > 0)
        printf("  PCIe Gen%d x16: %.2f GB/s per direction", g->pcie_gen, g->pcie_bw_gbs_per_dir);
    else
        printf("  no PCIe host link (NVLink-C2C to the CPU)");
    if (isnan(g->nvlink_bw_gbs_total))
        printf("; GPU-GPU link not published");
    else if (g->nvlink_bw_gbs_total > 0)
        printf("; %s %.0f GB/s (both directions)", strcmp(g->vendor, "AMD") == 0 ? "Infinity Fabric" : "NVLink",
               g->nvlink_bw_gbs_total);
    else
        printf("; no NVLink");
    if (!isnan(g->tdp_w))
        printf("; TDP %.0f W", g->tdp_w);
    printf("\n\n  %-6s %12s %14s\n", "dtype", "peak TFLOP/s", "ridge FLOP/B");
    for (int d = 0; d < GPUDIAG_DTYPE_COUNT; d++) {
        double p = (d == (int)odt && peak > 0) ? peak : g->peak_tflops[d];
        double ridge = gpudiag_gpu_ridge(g, (gpudiag_dtype)d, d == (int)odt ? peak : NAN, bw);
        if (isnan(p)) {
            printf("  %-6s %12s %14s\n", gpudiag_dtype_name((gpudiag_dtype)d), "-", "-");
            continue;
        }
        printf("  %-6s %12.1f %14.1f%s\n", gpudiag_dtype_name((gpudiag_dtype)d), p, ridge,
               d == (int)odt && peak > 0 ? "  (--peak-tflops)" : "");
    }
    if (g->fp32_matrix_tflops > 0) /* AMD: FP32 GEMMs on Matrix Cores (MFMA) */
        printf("\n  fp32 on Matrix Cores (MFMA): %.2f TFLOP/s, ridge %.1f FLOP/B (the roof of fp32 GEMM kernels)\n",
               g->fp32_matrix_tflops, g->fp32_matrix_tflops * 1e3 / (bw > 0 ? bw : g->mem_bw_gbs));
    printf("\n  fp64/fp32: vector (%s) rates; tf32..int8: dense %s rates, FP32 accumulate\n"
           "  (int8 in TOPS).  A kernel whose FLOPs per byte of memory traffic is below the ridge\n"
           "  is memory-bound on this GPU.\n\n  source: %s\n",
           strcmp(g->vendor, "AMD") == 0 ? "SIMD" : "CUDA-core", strcmp(g->vendor, "AMD") == 0 ? "Matrix Core" : "tensor",
           g->source);
}

static void json_row(gd_json *w, const gpudiag_gpu_spec *g, gpudiag_dtype odt, double peak, double bw)
{
    gd_json_obj(w);
    gd_json_kv_str(w, "name", g->name);
    gd_json_kv_str(w, "vendor", g->vendor);
    gd_json_kv_str(w, "arch", g->arch);
    gd_json_kv_str(w, "compute_capability", g->compute_capability);
    gd_json_kv_int(w, "sm_count", g->sm_count);
    gd_json_kv_num(w, "boost_clock_mhz", g->boost_clock_mhz);
    gd_json_kv_num(w, "mem_gb", g->mem_gb);
    gd_json_kv_num(w, "mem_bw_gbs", bw > 0 ? bw : g->mem_bw_gbs);
    gd_json_key(w, "peak_tflops");
    gd_json_obj(w);
    for (int d = 0; d < GPUDIAG_DTYPE_COUNT; d++)
        gd_json_kv_num(w, gpudiag_dtype_name((gpudiag_dtype)d),
                       d == (int)odt && peak > 0 ? peak : g->peak_tflops[d]);
    gd_json_end_obj(w);
    gd_json_key(w, "ridge_flop_per_byte");
    gd_json_obj(w);
    for (int d = 0; d < GPUDIAG_DTYPE_COUNT; d++)
        gd_json_kv_num(w, gpudiag_dtype_name((gpudiag_dtype)d),
                       gpudiag_gpu_ridge(g, (gpudiag_dtype)d, d == (int)odt ? peak : NAN, bw));
    gd_json_end_obj(w);
    if (g->pcie_gen > 0)
        gd_json_kv_int(w, "pcie_gen", g->pcie_gen);
    else
        gd_json_kv_num(w, "pcie_gen", NAN);
    gd_json_kv_num(w, "pcie_bw_gbs_per_dir", g->pcie_bw_gbs_per_dir);
    gd_json_kv_num(w, "nvlink_bw_gbs_total", g->nvlink_bw_gbs_total);
    gd_json_kv_num(w, "tdp_w", g->tdp_w);
    gd_json_kv_num(w, "fp32_matrix_tflops", g->fp32_matrix_tflops);
    gd_json_key(w, "uncertain");
    gd_json_bool(w, g->uncertain);
    gd_json_kv_str(w, "source", g->source);
    gd_json_end_obj(w);
}

gd_exit gd_cmd_specs(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, OPT_JSON},          {"peak-tflops", required_argument, NULL, OPT_PEAK},
        {"mem-bw", required_argument, NULL, OPT_BW},    {"dtype", required_argument, NULL, OPT_DTYPE},
        {"help", no_argument, NULL, 'h'},               {NULL, 0, NULL, 0},
    };
    int json = 0;
    double peak = NAN, bw = NAN;
    gpudiag_dtype dt = GPUDIAG_DTYPE_BF16;
    optind = 1;
    opterr = 0;
    int c;
    gd_once once; /* single-valued options given twice are refused */
    gd_once_init(&once, longopts);
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (gd_once_check(&once, c, optarg) < 0)
            return GD_EXIT_USAGE;
        switch (c) {
        case OPT_JSON: json = 1; break;
        case OPT_PEAK:
            if (gd_opt_number("--peak-tflops", optarg, 0, 1e-3, 1e6, &peak) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_BW:
            if (gd_opt_number("--mem-bw", optarg, 0, 1e-3, 1e6, &bw) < 0)
                return GD_EXIT_USAGE;
            break;
        case OPT_DTYPE:
            if (gpudiag_dtype_parse(optarg, &dt) < 0) {
                fprintf(stderr, "gpudiag: error: --dtype wants fp64, fp32, tf32, fp16, bf16, fp8 or int8, got '%s'\n",
                        optarg);
                return GD_EXIT_USAGE;
            }
            break;
        case 'h': usage_specs(stdout); return GD_EXIT_OK;
        default:
            return gd_bad_option("specs", c, argv, longopts);
        }
    }
    if (gpudiag_gpu_count() == 0) {
        fprintf(stderr, "gpudiag: error: the built-in GPU table did not load (a bug: please report it)\n");
        return GD_EXIT_INTERNAL;
    }
    /* the rest of the arguments is one name: "specs H100 NVL" = "specs 'H100 NVL'" */
    char name[256] = "";
    for (int i = optind; i < argc; i++) {
        size_t l = strlen(name);
        snprintf(name + l, sizeof name - l, "%s%s", l ? " " : "", argv[i]);
    }
    if (!name[0]) {
        if ((peak > 0 || bw > 0)) {
            fprintf(stderr, "gpudiag: error: --peak-tflops and --mem-bw apply to one GPU: give its NAME\n");
            return GD_EXIT_USAGE;
        }
        if (!json) {
            print_table();
            return GD_EXIT_OK;
        }
        gd_json w;
        if (gd_json_open(&w, stdout, 1) < 0)
            return GD_EXIT_INTERNAL;
        gd_json_obj(&w);
        gd_json_kv_str(&w, "schema", "gpudiag.specs/1");
        gd_json_key(&w, "gpus");
        gd_json_arr(&w);
        for (size_t i = 0; i < gpudiag_gpu_count(); i++)
            json_row(&w, gpudiag_gpu_at(i), dt, NAN, NAN);
        gd_json_end_arr(&w);
        gd_json_end_obj(&w);
        return gd_json_close(&w) < 0 ? GD_EXIT_INTERNAL : GD_EXIT_OK;
    }
    const gpudiag_gpu_spec *g = gpudiag_gpu_find(name);
    if (!g) {
        const gpudiag_gpu_spec *cand[64];
        size_t n = gpudiag_gpu_candidates(name, cand, 64);
        if (n == 0) {
            fprintf(stderr, "gpudiag: error: no GPU named '%s' in the table (run 'gpudiag specs' for the list)\n",
                    name);
        } else {
            fprintf(stderr, "gpudiag: error: '%s' is ambiguous; it could be:", name);
            for (size_t i = 0; i < n && i < 64; i++)
                fprintf(stderr, "%s '%s'", i ? "," : "", cand[i]->name);
            fprintf(stderr, "\n");
        }
        return GD_EXIT_USAGE;
    }
    /* rows sharing the name (the MI250X/MI250 GCDs): show each */
    size_t same = 0;
    for (size_t i = 0; i < gpudiag_gpu_count(); i++)
        same += strcmp(gpudiag_gpu_at(i)->name, g->name) == 0;
    if (same > 1 && !json)
        fprintf(stderr, "gpudiag: note: '%s' names %zu rows; each is shown (they differ in SM/CU count)\n", g->name,
                same);
    if (json) {
        gd_json w;
        if (gd_json_open(&w, stdout, 1) < 0)
            return GD_EXIT_INTERNAL;
        gd_json_obj(&w);
        gd_json_kv_str(&w, "schema", "gpudiag.specs/1");
        gd_json_key(&w, "gpus");
        gd_json_arr(&w);
        for (size_t i = 0; i < gpudiag_gpu_count(); i++)
            if (strcmp(gpudiag_gpu_at(i)->name, g->name) == 0)
                json_row(&w, gpudiag_gpu_at(i), dt, peak, bw);
        gd_json_end_arr(&w);
        gd_json_end_obj(&w);
        return gd_json_close(&w) < 0 ? GD_EXIT_INTERNAL : GD_EXIT_OK;
    }
    int first = 1;
    for (size_t i = 0; i < gpudiag_gpu_count(); i++)
        if (strcmp(gpudiag_gpu_at(i)->name, g->name) == 0) {
            if (!first)
                printf("\n");
            print_one(gpudiag_gpu_at(i), dt, peak, bw);
            first = 0;
        }
    return GD_EXIT_OK;
}
