/*
 * cmd_watch.c — `gpudiag watch`: a live view like `nvidia-smi dmon`, one line
 * per GPU per interval with GPU-Util, SM / tensor / DRAM active (GPM, Hopper
 * and newer), memory, clocks, power, temperature and PCIe, plus a rolling
 * verdict per GPU.  On a terminal the verdict lines stay at the bottom; when
 * stdout is not a terminal, plain lines: a verdict line is printed when it
 * changes and once at the end.  `--csv` writes the monitoring CSV that
 * `gpudiag run` logs, `--json` one JSON object per GPU per sample
 * (gpudiag.watch/1; both in docs/REPORT.md).
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

enum { W_OPT_CSV = 200, W_OPT_BACKEND, W_OPT_GPUS, W_OPT_COUNT, W_OPT_INTERVAL, W_OPT_JSON };

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
            "      --json            machine output: one JSON object per GPU per sample, one per line\n"
            "                        (schema gpudiag.watch/1: the sample in bytes, W, MHz, %%, with\n"
            "                        the rolling verdict)\n"
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

/* What the command line asked for. */
typedef struct watch_settings {
    double interval;     /* seconds between samples */
    long count;          /* intervals to run; 0: until SIGINT/SIGTERM */
    int csv, json;
    const char *gpus, *backend; /* NULL unless given (borrowed from argv) */
} watch_settings;

static const struct option watch_longopts[] = {
    {"interval", required_argument, NULL, 'i'},
    {"count", required_argument, NULL, 'c'},
    {"gpus", required_argument, NULL, W_OPT_GPUS},
    {"csv", no_argument, NULL, W_OPT_CSV},
    {"json", no_argument, NULL, W_OPT_JSON},
    {"backend", required_argument, NULL, W_OPT_BACKEND},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Parse argv into *o.  GD_PARSE_GO to go on, else the exit status (--help:
 * GD_EXIT_OK; a usage error, said on stderr: GD_EXIT_USAGE). */
static int parse_watch(int argc, char **argv, watch_settings *o)
{
    memset(o, 0, sizeof *o);
    o->interval = 1.0;
    optind = 1;
    opterr = 0;
    int c;
    gd_once once; /* single-valued options given twice are refused */
    gd_once_init(&once, watch_longopts);
    while ((c = getopt_long(argc, argv, ":i:c:h", watch_longopts, NULL)) != -1) {
        if (gd_once_check(&once, c, optarg) < 0)
            return GD_EXIT_USAGE;
        switch (c) {
        case 'i':
            if (gd_live_time_option("interval", optarg, &o->interval) != 0)
                return GD_EXIT_USAGE;
            break;
        case 'c': {
            char *end = NULL;
            o->count = strtol(optarg, &end, 10);
            if (!end || *end || o->count < 1) {
                fprintf(stderr, "gpudiag: error: --count wants a positive number, got '%s'\n", optarg);
                return GD_EXIT_USAGE;
            }
            break;
        }
        case W_OPT_GPUS: o->gpus = optarg; break;
        case W_OPT_CSV: o->csv = 1; break;
        case W_OPT_JSON: o->json = 1; break;
        case W_OPT_BACKEND: o->backend = optarg; break;
        case 'h': usage_watch(stdout); return GD_EXIT_OK;
        default:
            return gd_bad_option("watch", c, argv, watch_longopts);
        }
    }
    if (optind < argc)
        return gd_usage_error("watch", "watch takes no arguments, got '%s'", argv[optind]);
    if (o->csv && o->json)
        return gd_usage_error("watch", "--csv and --json are two forms of the same output: give one");
    return GD_PARSE_GO;
}

/* The sampler and what is kept per GPU between ticks. */
typedef struct watch_state {
    gpudiag_sampler *s;
    size_t n;                /* GPUs the sampler sees */
    int *sel;                /* n: shown */
    gd_live_window *win;     /* n: the rolling window behind the verdict */
    char (*last)[256];       /* n: the verdict last printed (not a terminal) */
} watch_state;

/* One line of `watch --json` (docs/REPORT.md, gpudiag.watch/1): the sample
 * in the units of gpudiag_gpu_sample (no rounding), unknown values null, and
 * the rolling verdict after it. */
static void watch_json_row(const gpudiag_gpu_info *g, const gpudiag_gpu_sample *s, const char *verdict)
{
    gd_json w;
    if (gd_json_open(&w, stdout, 0) != 0)
        return;
    gd_json_obj(&w);
    gd_json_kv_str(&w, "schema", "gpudiag.watch/1");
    char t[40]; /* seconds since the epoch to the µs (gd_json_num keeps 9 digits) */
    snprintf(t, sizeof t, "%.6f", s->t_s);
    gd_json_key(&w, "t_s");
    yajl_gen_number(w.g, t, strlen(t));
    gd_json_kv_int(&w, "index", s->index);
    gd_json_kv_str(&w, "uuid", g->uuid[0] ? g->uuid : NULL);
    gd_json_kv_str(&w, "name", g->name[0] ? g->name : NULL);
    gd_json_key(&w, "lost");
    gd_json_bool(&w, s->lost);
    const struct {
        const char *k;
        double v;
    } f[] = {
        {"gpu_util_pct", s->gpu_util_pct},           {"mem_util_pct", s->mem_util_pct},
        {"mem_used_bytes", s->mem_used_bytes},       {"mem_total_bytes", s->mem_total_bytes},
        {"mem_reserved_bytes", s->mem_reserved_bytes}, {"sm_clock_mhz", s->sm_clock_mhz},
        {"sm_clock_max_mhz", s->sm_clock_max_mhz},   {"mem_clock_mhz", s->mem_clock_mhz},
        {"mem_clock_max_mhz", s->mem_clock_max_mhz}, {"power_w", s->power_w},
        {"power_limit_w", s->power_limit_w},         {"temp_c", s->temp_c},
        {"pcie_rx_bytes_per_s", s->pcie_rx_bytes_per_s}, {"pcie_tx_bytes_per_s", s->pcie_tx_bytes_per_s},
        {"pcie_gen", s->pcie_gen},                   {"pcie_gen_max", s->pcie_gen_max},
        {"pcie_width", s->pcie_width},               {"pcie_width_max", s->pcie_width_max},
        {"clock_event_reasons", s->has_clock_event_reasons ? (double)s->clock_event_reasons : NAN},
        {"sm_active_pct", s->sm_active_pct},         {"sm_occupancy_pct", s->sm_occupancy_pct},
        {"tensor_active_pct", s->tensor_active_pct}, {"dram_active_pct", s->dram_active_pct},
        {"nvlink_rx_bytes_per_s", s->nvlink_rx_bytes_per_s}, {"nvlink_tx_bytes_per_s", s->nvlink_tx_bytes_per_s},
        {"enc_util_pct", s->enc_util_pct},           {"dec_util_pct", s->dec_util_pct},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        gd_json_kv_num(&w, f[i].k, s->lost ? NAN : f[i].v);
    gd_json_kv_str(&w, "verdict", verdict);
    gd_json_end_obj(&w);
    gd_json_close(&w);
}

/* The header: the CSV's, or one line per GPU and the column titles; none for --json. */
static void watch_header(const watch_settings *o, const watch_state *st)
{
    if (o->json)
        return;
    if (o->csv) {
        gd_live_csv_header(stdout);
    } else {
        for (size_t i = 0; i < st->n; i++)
            if (st->sel[i]) {
                const gpudiag_gpu_info *g = gpudiag_sampler_gpu(st->s, i);
                printf("# GPU %u: %s %s%s\n", g->index, g->name, g->uuid,
                       g->gpm_supported ? "" : " (no GPM: SM/tensor/DRAM active not available)");
            }
        printf("#  gpu  util    sm tensor  dram   mem   fb_used  sclk  mclk   pwr  temp  rxpci  txpci\n"
               "#  idx     %%     %%      %%     %%     %%       MiB   MHz   MHz     W     C  MiB/s  MiB/s\n");
    }
    fflush(stdout);
}

/* Tick k: one row per GPU, then (not --csv) the verdicts: redrawn on a
 * terminal (*shown: the verdict lines on screen), else printed when they
 * change and at the last tick. */
static void watch_tick(const watch_settings *o, watch_state *st, long k, int tty, size_t *shown)
{
    if (tty && !o->csv && !o->json && *shown)
        printf("\033[%zuA\033[J", *shown);
    *shown = 0;
    for (size_t i = 0; i < st->n; i++) {
        if (!st->sel[i])
            continue;
        gpudiag_gpu_sample smp;
        gpudiag_sampler_read(st->s, i, &smp, NULL);
        gd_live_window_push(&st->win[i], &smp);
        if (o->json) {
            char v[256];
            gd_live_verdict(&st->win[i], gpudiag_sampler_gpu(st->s, i)->index, v, sizeof v);
            watch_json_row(gpudiag_sampler_gpu(st->s, i), &smp, v);
        } else if (o->csv) {
            gd_live_csv_row(stdout, gpudiag_sampler_gpu(st->s, i), &smp);
        } else {
            print_row(&smp);
        }
    }
    if (o->csv || o->json)
        return;
    int final = o->count > 0 && k + 1 == o->count;
    for (size_t i = 0; i < st->n; i++) {
        if (!st->sel[i])
            continue;
        char v[256];
        gd_live_verdict(&st->win[i], gpudiag_sampler_gpu(st->s, i)->index, v, sizeof v);
        if (tty) {
            printf("=> %s\n", v);
            (*shown)++;
        } else if (strcmp(v, st->last[i]) != 0 || final) {
            printf("# verdict: %s\n", v);
            snprintf(st->last[i], sizeof st->last[i], "%s", v);
        }
    }
}

/* Sleep until *next + interval (absolute, CLOCK_MONOTONIC), or until a stop
 * signal; a tick that fell behind starts the schedule again from now. */
static void watch_sleep(struct timespec *next, double interval)
{
    long ns = (long)(interval * 1e9);
    next->tv_sec += ns / 1000000000L;
    next->tv_nsec += ns % 1000000000L;
    if (next->tv_nsec >= 1000000000L) {
        next->tv_sec++;
        next->tv_nsec -= 1000000000L;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec > next->tv_sec || (now.tv_sec == next->tv_sec && now.tv_nsec > next->tv_nsec))
        *next = now; /* fell behind (a slow read, a stopped process): no burst of catch-up samples */
    while (!watch_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL) == EINTR)
        ;
}

/* Show the GPUs until --count ticks, SIGINT/SIGTERM, or a failed write. */
static void watch_loop(const watch_settings *o, watch_state *st)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    int tty = isatty(STDOUT_FILENO);
    watch_header(o, st);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    size_t shown = 0; /* verdict lines on screen (tty) */
    for (long k = 0; !watch_stop && (o->count == 0 || k < o->count); k++) {
        watch_tick(o, st, k, tty, &shown);
        if (fflush(stdout) != 0 || ferror(stdout))
            break;
        if (o->count > 0 && k + 1 == o->count)
            break;
        watch_sleep(&next, o->interval);
    }
}

gd_exit gd_cmd_watch(int argc, char **argv)
{
    watch_settings o;
    int rc = parse_watch(argc, argv, &o);
    if (rc != GD_PARSE_GO)
        return (gd_exit)rc;
    int code = GD_EXIT_OK;
    watch_state st;
    memset(&st, 0, sizeof st);
    st.s = gd_live_open(o.backend, &code);
    if (!st.s)
        return code;
    st.n = gpudiag_sampler_gpu_count(st.s);
    st.sel = calloc(st.n, sizeof *st.sel);
    st.win = calloc(st.n, sizeof *st.win);
    st.last = calloc(st.n, sizeof *st.last);
    char why[256];
    if (!st.sel || !st.win || !st.last) {
        fprintf(stderr, "gpudiag: error: out of memory\n");
        code = GD_EXIT_INTERNAL;
    } else if (o.gpus && gd_live_select(st.s, o.gpus, st.sel, why, sizeof why) < 0) {
        fprintf(stderr, "gpudiag: error: --gpus: %s\n", why);
        code = GD_EXIT_USAGE;
    } else {
        for (size_t i = 0; i < st.n && !o.gpus; i++)
            st.sel[i] = 1;
        watch_loop(&o, &st);
    }
    free(st.sel);
    free(st.win);
    free(st.last);
    gpudiag_sampler_free(&st.s);
    return code;
}
