/*
 * cmd_serve.c — `gpudiag serve`: options, then the exporter (src/serve/)
 * until a signal; the messages and the signal handling live here, the
 * library (src/serve/) neither prints nor touches signals.
 */
#define _POSIX_C_SOURCE 200809L /* sigtimedwait, pthread_sigmask */
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/cmd_serve.h"
#include "cli/live.h"
#include "gpudiag/specs.h"
#include "serve/serve.h"
#include "util/util.h"

static void usage_serve(FILE *fp)
{
    fprintf(fp,
            "Usage: gpudiag serve [OPTIONS]\n"
            "\n"
            "Prometheus exporter: samples the GPUs through NVML and serves\n"
            "  /metrics  gpudiag_* gauges: the GPUs' readings (units in the names, ratios 0..1)\n"
            "            and the rolling verdict, low-utilisation share, throttle reasons, MFU;\n"
            "            OpenMetrics when the scrape's Accept header asks for it\n"
            "  /report   the rolling diagnosis as JSON\n"
            "  /healthz  200 while sampling works, 503 otherwise\n"
            "\n"
            "Options:\n"
            "  -l, --listen ADDR      HOST:PORT, [IPV6]:PORT or :PORT (default 127.0.0.1:9401, off\n"
            "                         dcgm-exporter's 9400; port 0 picks a free port, printed on stderr)\n"
            "      --metric-names N   gpudiag (default: gpudiag_* names, beside dcgm-exporter) or\n"
            "                         dcgm (dcgm-exporter's DCGM_FI_* names and units for the\n"
            "                         readings, for hosts without it; the gpudiag_* verdict series stay)\n"
            "  -i, --interval T       time between samples: 500ms, 1s, 1m (default 1s)\n"
            "  -w, --window T         rolling window of the diagnosis (default 5m, at most 1h)\n"
            "      --markers FILE     step-marker file the training job appends 'step N tokens T'\n"
            "                         lines to (default $GPUDIAG_MARKERS); with --flops-per-token\n"
            "                         and --peak-tflops it gives gpudiag_mfu\n"
            "      --flops-per-token F  model FLOPs per token (PaLM appendix B: 6N + attention;\n"
            "                         'gpudiag mfu' prints it for a model)\n"
            "      --params N         model parameters: 6N FLOPs per token (attention term left out)\n"
            "      --peak-tflops P    dense peak TFLOP/s of one GPU (default: the built-in GPU table's\n"
            "                         peak for --dtype, from the name NVML reports)\n"
            "      --dtype T          training dtype for the peak: bf16 (default), fp16, fp8, tf32, ...\n"
            "      --hostname NAME    Hostname label (default $NODE_NAME, else the host name)\n"
            "      --max-connections N  concurrent HTTP connections (default 64)\n"
            "      --backend NAME     nvml (default) or test (synthetic GPUs)\n"
            "      --run-for T        stop after T (for tests; default: until SIGTERM/SIGINT)\n"
            "  -h, --help             this text\n"
            "\n"
            "Exit status: 0 stopped by SIGTERM/SIGINT; 2 usage error; 4 no GPU, driver or NVML\n"
            "library; 5 could not listen.  See docs/SERVE.md and deploy/.\n");
}

/* Run the exporter (src/serve/) until SIGTERM or SIGINT, or o->run_for_us:
 * the CLI's half of it, the messages on stderr and the signals.  SIGTERM
 * and SIGINT are blocked before the exporter starts its threads, so that
 * they reach this thread only (sigtimedwait below); SIGPIPE is ignored (a
 * scraper that goes away mid-response).  Returns gd_serve_start's status,
 * or GD_EXIT_OK after a clean shutdown. */
static gd_exit serve_until_stopped(const gd_serve_opts *o)
{
    sigset_t sigs, old;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, &old);
    signal(SIGPIPE, SIG_IGN);

    gd_server *srv = NULL;
    gd_serve_info info;
    gd_exit rc = gd_serve_start(o, &srv, &info);
    if (info.warning[0])
        fprintf(stderr, "gpudiag serve: %s\n", info.warning);
    if (rc != GD_EXIT_OK) {
        fprintf(stderr, "gpudiag serve: %s\n", info.error);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return rc;
    }
    fprintf(stderr, "gpudiag serve: listening on http://%s/metrics (%zu GPU%s, backend %s, every %.3g s)\n",
            info.address, info.gpu_count, info.gpu_count == 1 ? "" : "s", info.backend, info.interval_s);

    double deadline = o->run_for_us > 0 ? gd_mono_s() + (double)o->run_for_us / 1e6 : 0;
    for (;;) {
        struct timespec to = {1, 0};
        if (deadline > 0) {
            double left = deadline - gd_mono_s();
            if (left <= 0)
                break;
            if (left < 1) {
                to.tv_sec = 0;
                to.tv_nsec = (long)(left * 1e9);
            }
        }
        int sig = sigtimedwait(&sigs, NULL, &to);
        if (sig == SIGTERM || sig == SIGINT) {
            fprintf(stderr, "gpudiag serve: %s, shutting down\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
            break;
        }
    }
    gd_serve_stop(&srv);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return GD_EXIT_OK;
}

gd_exit gd_cmd_serve(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"interval", required_argument, NULL, 'i'},
        {"window", required_argument, NULL, 'w'},
        {"markers", required_argument, NULL, 'm'},
        {"flops-per-token", required_argument, NULL, 'f'},
        {"peak-tflops", required_argument, NULL, 'p'},
        {"params", required_argument, NULL, 'P'},
        {"dtype", required_argument, NULL, 'd'},
        {"hostname", required_argument, NULL, 'H'},
        {"max-connections", required_argument, NULL, 'c'},
        {"backend", required_argument, NULL, 'b'},
        {"run-for", required_argument, NULL, 'r'},
        {"metric-names", required_argument, NULL, 'N'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    gd_serve_opts o;
    memset(&o, 0, sizeof o);
    o.model_flops_per_token = NAN;
    o.peak_flops_per_gpu = NAN;
    o.markers = getenv("GPUDIAG_MARKERS");
    o.dtype = (int)GPUDIAG_DTYPE_BF16;
    double secs;
    int c;
    optind = 1;
    opterr = 0;
    gd_once once; /* single-valued options given twice are refused */
    gd_once_init(&once, longopts);
    while ((c = getopt_long(argc, argv, "+:l:i:w:h", longopts, NULL)) != -1) {
        if (gd_once_check(&once, c, optarg) < 0)
            return GD_EXIT_USAGE;
        switch (c) {
        case 'l':
            o.listen = optarg;
            break;
        case 'i':
        case 'w':
        case 'r':
            if (gd_live_time_option(c == 'i' ? "interval" : c == 'w' ? "window" : "run-for", optarg, &secs) != 0)
                return GD_EXIT_USAGE;
            if (c == 'i')
                o.interval_us = (int64_t)(secs * 1e6 + 0.5);
            else if (c == 'w')
                o.window_us = (int64_t)(secs * 1e6 + 0.5);
            else
                o.run_for_us = (int64_t)(secs * 1e6 + 0.5);
            break;
        case 'm':
            o.markers = optarg;
            break;
        case 'f':
            if (gd_opt_number("--flops-per-token", optarg, 1, 1, 1e18, &o.model_flops_per_token) != 0)
                return GD_EXIT_USAGE;
            break;
        case 'P': {
            double n;
            if (gd_opt_number("--params", optarg, 1, 1, 1e15, &n) != 0)
                return GD_EXIT_USAGE;
            o.model_flops_per_token = 6.0 * n;  /* PaLM appendix B without the attention term */
            break;
        }
        case 'p':
            if (gd_opt_number("--peak-tflops", optarg, 0, 1e-3, 1e6, &o.peak_flops_per_gpu) != 0)
                return GD_EXIT_USAGE;
            o.peak_flops_per_gpu *= 1e12;
            break;
        case 'd': {
            gpudiag_dtype dt;
            if (gpudiag_dtype_parse(optarg, &dt) != 0) {
                fprintf(stderr, "gpudiag: error: --dtype wants fp64, fp32, tf32, fp16, bf16, fp8 or int8, got '%s'\n", optarg);
                return GD_EXIT_USAGE;
            }
            o.dtype = (int)dt;
            break;
        }
        case 'H':
            o.hostname = optarg;
            break;
        case 'c': {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (end == optarg || *end || n < 1 || n > 4096) {
                fprintf(stderr, "gpudiag: error: --max-connections wants 1..4096, got '%s'\n", optarg);
                return GD_EXIT_USAGE;
            }
            o.max_connections = (unsigned)n;
            break;
        }
        case 'b':
            o.backend = optarg;
            break;
        case 'N': {
            int w = gd_opt_word("--metric-names", optarg, gd_metric_names_words, 2);
            if (w < 0)
                return GD_EXIT_USAGE;
            o.dcgm_names = w;
            break;
        }
        case 'h':
            usage_serve(stdout);
            return GD_EXIT_OK;
        default:
            return gd_bad_option("serve", c, argv, longopts);
        }
    }
    if (optind < argc) {
        return gd_usage_error("serve", "serve takes no arguments, got '%s'", argv[optind]);
    }
    return serve_until_stopped(&o);
}
