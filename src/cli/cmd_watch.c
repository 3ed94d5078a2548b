/*
 * cmd_watch.c — `gpudiag watch`: a live view like `nvidia-smi dmon`, one line
 * per GPU per interval with GPU-Util, SM / tensor / DRAM active (GPM, Hopper
 * and newer), memory, clocks, power, temperature and PCIe, plus a rolling
 * verdict per GPU.  On a terminal the verdict lines stay at the bottom; when
 * stdout is not a terminal, plain lines: a verdict line is printed when it
 * changes and once at the end.  `--csv` writes the monitoring CSV that
 * `gpudiag run` logs (docs/REPORT.md).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/cmd_live.h"
#include "cli/live.h"

enum { W_OPT_CSV = 200, W_OPT_BACKEND, W_OPT_GPUS, W_OPT_COUNT, W_OPT_INTERVAL };

static volatile sig_atomic_t watch_stop;

static void on_stop(int sig)
{
    (void)sig;
    watch_stop = 1;
}

static void usage_watch(FILE *fp)
{
    fprintf(fp,
            "Usage: gpudiag watch [OPTIONS]\n"
            "\n"
            "Live view of the GPUs, like 'nvidia-smi dmon': one line per GPU per interval with\n"
            "GPU-Util, SM active, tensor active and DRAM active (GPM metrics, Hopper and newer;\n"
            "'-' elsewhere), memory used, SM and memory clocks, power, temperature and PCIe\n"
            "throughput, plus a rolling verdict per GPU over the last 64 samples (e.g.\n"
            "\"GPU 0: GPU-Util 98%% but SM active 41%%: util is misleading\").\n"
            "\n"
            "Options:\n"
            "  -i, --interval T      time between samples: 500ms, 2s, 1m (default 1s)\n"
            "  -c, --count N         stop after N intervals (default: until Ctrl-C)\n"
            "      --gpus LIST       only these GPUs: NVML indices or UUID prefixes, comma-separated\n"
            "      --csv             machine output: the monitoring CSV that 'gpudiag run' logs\n"
            "                        (nvidia-smi --query-gpu names; 'gpudiag analyze' reads it)\n"
            "      --backend NAME    nvml (default) or test (synthetic GPUs; also $GPUDIAG_BACKEND)\n"
            "  -h, --help            show this help and exit\n"
            "\n"
            "NVML is loaded at run time: $GPUDIAG_NVML_LIB, else libnvidia-ml.so.1, else\n"
            "libnvidia-ml.so.\n"
            "\n"
            "Exit status: 0 ran; 2 usage error; 4 no GPU, driver or NVML library; 5 internal error.\n");
}

static void fmt_val(char *b, size_t n, double v, double scale, int width)
{
    if (isnan(v))
        snprintf(b, n, "%*s", width, "-");
    else
        snprintf(b, n, "%*.0f", width, v / scale);
}

static void print_row(const gpudiag_gpu_sample *s)
{
    char f[12][16];
    if (s->lost) {
        printf("%5u  GPU is lost\n", s->index);
        return;
    }
    fmt_val(f[0], 16, s->gpu_util_pct, 1, 5);
    fmt_val(f[1], 16, s->sm_active_pct, 1, 5);
    fmt_val(f[2], 16, s->tensor_active_pct, 1, 6);
    fmt_val(f[3], 16, s->dram_active_pct, 1, 5);
    fmt_val(f[4], 16, s->mem_util_pct, 1, 5);
    fmt_val(f[5], 16, s->mem_used_bytes, 1048576.0, 8);
    fmt_val(f[6], 16, s->sm_clock_mhz, 1, 5);
    fmt_val(f[7], 16, s->mem_clock_mhz, 1, 5);
    fmt_val(f[8], 16, s->power_w, 1, 5);
    fmt_val(f[9], 16, s->temp_c, 1, 5);
    fmt_val(f[10], 16, s->pcie_rx_bytes_per_s, 1048576.0, 6);
    fmt_val(f[11], 16, s->pcie_tx_bytes_per_s, 1048576.0, 6);
    printf("%5u %s %s %s %s %s %s %s %s %s %s %s %s\n", s->index, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7],
           f[8], f[9], f[10], f[11]);
}

gd_exit gd_cmd_watch(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"interval", required_argument, NULL, 'i'},
        {"count", required_argument, NULL, 'c'},
        {"gpus", required_argument, NULL, W_OPT_GPUS},
        {"csv", no_argument, NULL, W_OPT_CSV},
        {"backend", required_argument, NULL, W_OPT_BACKEND},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    double interval = 1.0;
    long count = 0;
    int csv = 0;
    const char *gpus = NULL, *backend = NULL;
    optind = 1;
    opterr = 0;
    int c;
    gd_once once; /* single-valued options given twice are refused */
    gd_once_init(&once, longopts);
    while ((c = getopt_long(argc, argv, ":i:c:h", longopts, NULL)) != -1) {
        if (gd_once_check(&once, c, optarg) < 0)
            return GD_EXIT_USAGE;
        switch (c) {
        case 'i':
            if (gd_live_time_option("interval", optarg, &interval) != 0)
                return GD_EXIT_USAGE;
            break;
        case 'c': {
            char *end = NULL;
            count = strtol(optarg, &end, 10);
            if (!end || *end || count < 1) {
                fprintf(stderr, "gpudiag: error: --count wants a positive number, got '%s'\n", optarg);
                return GD_EXIT_USAGE;
            }
            break;
        }
        case W_OPT_GPUS: gpus = optarg; break;
        case W_OPT_CSV: csv = 1; break;
        case W_OPT_BACKEND: backend = optarg; break;
        case 'h': usage_watch(stdout); return GD_EXIT_OK;
        default:
            return gd_bad_option("watch", c, argv, longopts);
        }
    }
    if (optind < argc) {
        return gd_usage_error("watch", "watch takes no arguments, got '%s'", argv[optind]);
    }
    int code = GD_EXIT_OK;
    gpudiag_sampler *s = gd_live_open(backend, &code);
    if (!s)
        return code;
    size_t n = gpudiag_sampler_gpu_count(s);
    int *sel = calloc(n, sizeof *sel);
    gd_live_window *win = calloc(n, sizeof *win);
    char (*last)[256] = calloc(n, sizeof *last);
    if (!sel || !win || !last) {
        fprintf(stderr, "gpudiag: error: out of memory\n");
        code = GD_EXIT_INTERNAL;
        goto done;
    }
    if (gpus) {
        char why[256];
        if (gd_live_select(s, gpus, sel, why, sizeof why) < 0) {
            fprintf(stderr, "gpudiag: error: --gpus: %s\n", why);
            code = GD_EXIT_USAGE;
            goto done;
        }
    } else {
        for (size_t i = 0; i < n; i++)
            sel[i] = 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    int tty = isatty(STDOUT_FILENO);
    size_t nsel = 0;
    for (size_t i = 0; i < n; i++)
        nsel += sel[i] != 0;
    if (csv) {
        gd_live_csv_header(stdout);
    } else {
        for (size_t i = 0; i < n; i++)
            if (sel[i]) {
                const gpudiag_gpu_info *g = gpudiag_sampler_gpu(s, i);
                printf("# GPU %u: %s %s%s\n", g->index, g->name, g->uuid,
                       g->gpm_supported ? "" : " (no GPM: SM/tensor/DRAM active not available)");
            }
        printf("#  gpu  util    sm tensor  dram   mem   fb_used  sclk  mclk   pwr  temp  rxpci  txpci\n"
               "#  idx     %%     %%      %%     %%     %%       MiB   MHz   MHz     W     C  MiB/s  MiB/s\n");
    }
    fflush(stdout);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    size_t shown = 0; /* verdict lines on screen (tty) */
    for (long k = 0; !watch_stop && (count == 0 || k < count); k++) {
        if (tty && !csv && shown)
            printf("\033[%zuA\033[J", shown);
        shown = 0;
        for (size_t i = 0; i < n; i++) {
            if (!sel[i])
                continue;
            gpudiag_gpu_sample smp;
            gpudiag_sampler_read(s, i, &smp, NULL);
            gd_live_window_push(&win[i], &smp);
            if (csv)
                gd_live_csv_row(stdout, gpudiag_sampler_gpu(s, i), &smp);
            else
                print_row(&smp);
        }
        if (!csv) {
            int final = count > 0 && k + 1 == count;
            for (size_t i = 0; i < n; i++) {
                if (!sel[i])
                    continue;
                char v[256];
                gd_live_verdict(&win[i], gpudiag_sampler_gpu(s, i)->index, v, sizeof v);
                if (tty) {
                    printf("=> %s\n", v);
                    shown++;
                } else if (strcmp(v, last[i]) != 0 || final) {
                    printf("# verdict: %s\n", v);
                    snprintf(last[i], sizeof last[i], "%s", v);
                }
            }
        }
        if (fflush(stdout) != 0 || ferror(stdout))
            break;
        if (count > 0 && k + 1 == count)
            break;
        long ns = (long)(interval * 1e9);
        next.tv_sec += ns / 1000000000L;
        next.tv_nsec += ns % 1000000000L;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_sec++;
            next.tv_nsec -= 1000000000L;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
            next = now; /* fell behind (a slow read, a stopped process): no burst of catch-up samples */
        while (!watch_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
            ;
    }
    (void)nsel;
done:
    free(sel);
    free(win);
    free(last);
    gpudiag_sampler_free(&s);
    return code;
}
