/*
 * live.c — shared pieces of `gpudiag run` and `gpudiag watch`.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/live.h"
#include "util/exit_codes.h"
#include "util/util.h"

int gd_live_parse_interval(const char *s, double *out_s)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (!end || end == s || !(v > 0))
        return -1;
    if (strcmp(end, "ms") == 0)
        v /= 1000.0;
    else if (strcmp(end, "s") == 0 || *end == '\0')
        ;
    else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        v *= 60.0;
    else
        return -1;
    if (v < 0.01 || v > 3600.0)
        return -1;
    *out_s = v;
    return 0;
}

int gd_live_time_option(const char *name, const char *arg, double *out_s)
{
    if (gd_live_parse_interval(arg, out_s) == 0)
        return 0;
    fprintf(stderr, "gpudiag: error: --%s wants a time from 10ms to 1h such as 500ms, 2s or 5m, got '%s'\n", name, arg);
    return -1;
}

int gd_live_select(const gpudiag_sampler *s, const char *list, int *sel, char *why, size_t why_len)
{
    size_t n = gpudiag_sampler_gpu_count(s);
    for (size_t i = 0; i < n; i++)
        sel[i] = 0;
    char *copy = strdup(list);
    if (!copy) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    int chosen = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        if (!*tok)
            continue;
        int found = 0;
        char *end = NULL;
        long idx = strtol(tok, &end, 10);
        for (size_t i = 0; i < n; i++) {
            const gpudiag_gpu_info *g = gpudiag_sampler_gpu(s, i);
            int match = (end && *end == '\0' && idx >= 0 && (unsigned long)idx == g->index) ||
                        (strncmp(tok, "GPU-", 4) == 0 && g->uuid[0] && strncmp(g->uuid, tok, strlen(tok)) == 0);
            if (match) {
                if (!sel[i])
                    chosen++;
                sel[i] = 1;
                found = 1;
            }
        }
        if (!found) {
            snprintf(why, why_len, "no GPU '%s' (the sampler lists %zu GPU%s, indices 0..%zu)", tok, n,
                     n == 1 ? "" : "s", n ? n - 1 : 0);
            free(copy);
            return -1;
        }
    }
    free(copy);
    return chosen;
}

gpudiag_sampler *gd_live_open(const char *backend, int *code)
{
    if (!backend) {
        backend = getenv("GPUDIAG_BACKEND");
        if (backend && !backend[0])
            backend = NULL;
    }
    gpudiag_sampler *s = NULL;
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_status st = gpudiag_sampler_open(backend, &s, &err);
    if (st != GPUDIAG_OK) {
        fprintf(stderr, "gpudiag: error: %s\n", err.message);
        *code = st == GPUDIAG_ERR_NODEV ? GD_EXIT_NO_DEVICE : st == GPUDIAG_ERR_ARG ? GD_EXIT_USAGE : GD_EXIT_INTERNAL;
        return NULL;
    }
    *code = GD_EXIT_OK;
    return s;
}

void gd_live_csv_header(FILE *fp)
{
    fputs("timestamp, index, uuid, name, utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
          "memory.total [MiB], memory.reserved [MiB], clocks.current.sm [MHz], clocks.max.sm [MHz], "
          "clocks.current.memory [MHz], clocks.max.memory [MHz], power.draw [W], enforced.power.limit [W], "
          "temperature.gpu, pcie.link.gen.current, pcie.link.gen.max, pcie.link.width.current, "
          "pcie.link.width.max, clocks_event_reasons.active, pcie.rx [MiB/s], pcie.tx [MiB/s], "
          "gpm.sm_active [%], gpm.sm_occupancy [%], gpm.tensor_active [%], gpm.dram_active [%], "
          "gpm.nvlink.rx [MiB/s], gpm.nvlink.tx [MiB/s], utilization.encoder [%], utilization.decoder [%]\n",
          fp);
}

/* ", " then v with `decimals` digits after the point (as "%.*f" rounds,
 * half away from zero), or "[N/A]".  Hand-made: printf's floating-point path
 * was over half of the sampling loop's CPU time (bench/sample_overhead.py). */
static void put(FILE *fp, double v, int decimals)
{
    static const double scale[] = {1, 10, 100, 1000};
    if (isnan(v)) {
        fputs(", [N/A]", fp);
        return;
    }
    if (!(fabs(v) < 1e12) || decimals < 0 || decimals > 3) {
        fprintf(fp, ", %.*f", decimals, v);
        return;
    }
    char buf[40];
    char *e = buf + sizeof buf, *p = e;
    unsigned long long x = (unsigned long long)llround(fabs(v) * scale[decimals]);
    for (int d = 0; d < decimals; d++) {
        *--p = (char)('0' + x % 10);
        x /= 10;
    }
    if (decimals)
        *--p = '.';
    do {
        *--p = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    if (v < 0 && strspn(p, "0.") != (size_t)(e - p))
        *--p = '-';
    *--p = ' ';
    *--p = ',';
    fwrite(p, 1, (size_t)(e - p), fp);
}

void gd_live_csv_row(FILE *fp, const gpudiag_gpu_info *info, const gpudiag_gpu_sample *s)
{
    /* nvidia-smi's timestamp: local time, YYYY/MM/DD HH:MM:SS.mmm */
    time_t sec = (time_t)s->t_s;
    int ms = (int)((s->t_s - (double)sec) * 1000.0);
    if (ms > 999)
        ms = 999;
    struct tm tm;
    localtime_r(&sec, &tm);
    char ts[40];
    strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
    char name[96];
    snprintf(name, sizeof name, "%s", info->name[0] ? info->name : "[N/A]");
    for (char *p = name; *p; p++)
        if (*p == ',')
            *p = ' ';
    fprintf(fp, "%s.%03d, %u, %s, %s", ts, ms, s->index, info->uuid[0] ? info->uuid : "[N/A]", name);
    const double mib = 1048576.0;
    put(fp, s->gpu_util_pct, 0);
    put(fp, s->mem_util_pct, 0);
    put(fp, s->mem_used_bytes / mib, 0);
    put(fp, s->mem_total_bytes / mib, 0);
    put(fp, s->mem_reserved_bytes / mib, 0);
    put(fp, s->sm_clock_mhz, 0);
    put(fp, s->sm_clock_max_mhz, 0);
    put(fp, s->mem_clock_mhz, 0);
    put(fp, s->mem_clock_max_mhz, 0);
    put(fp, s->power_w, 2);
    put(fp, s->power_limit_w, 2);
    put(fp, s->temp_c, 0);
    put(fp, s->pcie_gen, 0);
    put(fp, s->pcie_gen_max, 0);
    put(fp, s->pcie_width, 0);
    put(fp, s->pcie_width_max, 0);
    if (s->has_clock_event_reasons)
        fprintf(fp, ", 0x%016llx", (unsigned long long)s->clock_event_reasons);
    else
        fputs(", [N/A]", fp);
    put(fp, s->pcie_rx_bytes_per_s / mib, 3);
    put(fp, s->pcie_tx_bytes_per_s / mib, 3);
    put(fp, s->sm_active_pct, 1);
    put(fp, s->sm_occupancy_pct, 1);
    put(fp, s->tensor_active_pct, 1);
    put(fp, s->dram_active_pct, 1);
    put(fp, s->nvlink_rx_bytes_per_s / mib, 3);
    put(fp, s->nvlink_tx_bytes_per_s / mib, 3);
    put(fp, s->enc_util_pct, 0);
    put(fp, s->dec_util_pct, 0);
    fputc('\n', fp);
}

void gd_live_window_push(gd_live_window *w, const gpudiag_gpu_sample *s)
{
    w->s[w->next] = *s;
    w->next = (w->next + 1) % GD_LIVE_WINDOW;
    if (w->n < GD_LIVE_WINDOW)
        w->n++;
}

typedef struct acc {
    double sum;
    size_t n;
} acc;

static void add(acc *a, double v)
{
    if (!isnan(v)) {
        a->sum += v;
        a->n++;
    }
}

static double mean(const acc *a)
{
    return a->n ? a->sum / (double)a->n : NAN;
}

void gd_live_verdict(const gd_live_window *w, unsigned index, char *buf, size_t len)
{
    acc util = {0, 0}, sm = {0, 0}, tensor = {0, 0}, enc = {0, 0}, dec = {0, 0};
    double encv[GD_LIVE_WINDOW], decv[GD_LIVE_WINDOW]; /* their readings, for the p95 of gd_video_busy */
    uint64_t reasons = 0;
    size_t loaded = 0, degraded = 0, lost = 0;
    double gen = NAN, gen_max = NAN, width = NAN, width_max = NAN;
    for (size_t i = 0; i < w->n; i++) {
        const gpudiag_gpu_sample *s = &w->s[i];
        if (s->lost) {
            lost++;
            continue;
        }
        add(&util, s->gpu_util_pct);
        add(&sm, s->sm_active_pct);
        add(&tensor, s->tensor_active_pct);
        if (!isnan(s->enc_util_pct))
            encv[enc.n] = s->enc_util_pct / 100;
        if (!isnan(s->dec_util_pct))
            decv[dec.n] = s->dec_util_pct / 100;
        add(&enc, s->enc_util_pct);
        add(&dec, s->dec_util_pct);
        if (s->gpu_util_pct >= 50) {
            loaded++;
            if (s->has_clock_event_reasons)
                reasons |= s->clock_event_reasons;
            if ((s->pcie_gen < s->pcie_gen_max) || (s->pcie_width < s->pcie_width_max)) {
                degraded++;
                gen = s->pcie_gen;
                gen_max = s->pcie_gen_max;
                width = s->pcie_width;
                width_max = s->pcie_width_max;
            }
        }
    }
    int o = snprintf(buf, len, "GPU %u: ", index);
    if (o < 0 || (size_t)o >= len)
        return;
    char *p = buf + o;
    size_t left = len - (size_t)o;
    double u = mean(&util), a = mean(&sm), t = mean(&tensor);
    if (lost && util.n == 0) {
        snprintf(p, left, "lost (NVML: GPU is lost; it fell off the bus or needs a reset)");
        return;
    }
    /* NVENC/NVDEC busy over the window: the p95 rule of the logs, one helper (DEFINITIONS "GPU states") */
    static const double q95 = 0.95;
    double p95[2] = {NAN, NAN};
    if (enc.n)
        gd_quantiles(encv, enc.n, &q95, 1, &p95[0]);
    if (dec.n)
        gd_quantiles(decv, dec.n, &q95, 1, &p95[1]);
    int video_busy = gd_video_busy(p95, 2);
    int k;
    if (isnan(u))
        k = snprintf(p, left, "no utilization reading (not supported on this GPU or MIG mode)");
    else if (u < 30 && video_busy) { /* GPU-Util does not count the video engines: not idle */
        char e[16] = "-", d[16] = "-";
        if (enc.n)
            snprintf(e, sizeof e, "%.0f%%", mean(&enc));
        if (dec.n)
            snprintf(d, sizeof d, "%.0f%%", mean(&dec));
        k = snprintf(p, left,
                     "video encode/decode: encoder %s, decoder %s (GPU-Util %.0f%% does not count "
                     "NVENC/NVDEC)",
                     e, d, u);
    } else if (u < 30)
        k = snprintf(p, left, "GPU-Util %.0f%%: idle most of the time; it waits for input data, the host or "
                              "communication",
                     u);
    else if (u >= 80 && !isnan(a) && a < 50)
        k = snprintf(p, left, "GPU-Util %.0f%% but SM active %.0f%%: util is misleading (kernels keep few SMs busy)",
                     u, a);
    else if (u >= 80)
        k = isnan(a) ? snprintf(p, left, "busy: GPU-Util %.0f%%", u)
                     : snprintf(p, left, "busy: GPU-Util %.0f%%, SM active %.0f%%, tensor active %.0f%%", u, a, t);
    else
        k = snprintf(p, left, "GPU-Util %.0f%%: partly idle; gaps between kernels", u);
    if (k < 0 || (size_t)k >= left)
        return;
    p += k;
    left -= (size_t)k;
    uint64_t thr = reasons & (GPUDIAG_CLK_SW_POWER_CAP | GPUDIAG_CLK_HW_SLOWDOWN | GPUDIAG_CLK_SW_THERMAL |
                              GPUDIAG_CLK_HW_THERMAL | GPUDIAG_CLK_HW_POWER_BRAKE);
    if (thr) {
        k = snprintf(p, left, "; clocks held down:%s%s%s%s%s", (thr & GPUDIAG_CLK_SW_POWER_CAP) ? " power cap" : "",
                     (thr & GPUDIAG_CLK_HW_SLOWDOWN) ? " HW slowdown" : "",
                     (thr & GPUDIAG_CLK_SW_THERMAL) ? " SW thermal" : "",
                     (thr & GPUDIAG_CLK_HW_THERMAL) ? " HW thermal" : "",
                     (thr & GPUDIAG_CLK_HW_POWER_BRAKE) ? " power brake" : "");
        if (k < 0 || (size_t)k >= left)
            return;
        p += k;
        left -= (size_t)k;
    }
    if (loaded && degraded * 2 > loaded)
        snprintf(p, left, "; PCIe link gen %.0f x%.0f of gen %.0f x%.0f under load", gen, width, gen_max, width_max);
    else if (lost)
        snprintf(p, left, "; lost during the window");
}
