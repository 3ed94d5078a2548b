/*
 * prom.c — Prometheus / OpenMetrics exposition of the live samples.
 *
 * Two naming modes (gd_prom_state.dcgm_names): gpudiag's own names, the
 * default, so that it can run beside dcgm-exporter without doubling its
 * series (gpudiag_*: units in the names, ratios 0..1, gpudiag_build_info);
 * or dcgm-exporter's DCGM_FI_* names and units, for hosts without it.
 * Line format and labels follow dcgm-exporter (render_metrics.go) in both:
 *   NAME{gpu="<idx>",UUID="GPU-…",pci_bus_id="…",device="nvidia<idx>",modelName="…",Hostname="…"} VALUE
 * with `# HELP` and `# TYPE` once per family.  Integers print plain, ratios
 * with six decimals (%f), as the exporter does.
 */
#include "serve/prom.h"

#include <math.h>
#include <string.h>


typedef double (*gd_prom_get)(const gpudiag_gpu_sample *s);

static double g_gpu_util(const gpudiag_gpu_sample *s) { return s->gpu_util_pct; }
static double g_mem_util(const gpudiag_gpu_sample *s) { return s->mem_util_pct; }
static double g_enc_util(const gpudiag_gpu_sample *s) { return s->enc_util_pct; }
static double g_dec_util(const gpudiag_gpu_sample *s) { return s->dec_util_pct; }
static double g_fb_used(const gpudiag_gpu_sample *s) { return floor(s->mem_used_bytes / 1048576.0); }
static double g_fb_free(const gpudiag_gpu_sample *s)
{
    /* NVML v2: free = total - reserved - used; v1 has no reserved. */
    double reserved = isnan(s->mem_reserved_bytes) ? 0.0 : s->mem_reserved_bytes;
    double f = s->mem_total_bytes - reserved - s->mem_used_bytes;
    return isnan(f) ? f : floor((f < 0 ? 0 : f) / 1048576.0);
}
static double g_sm_clock(const gpudiag_gpu_sample *s) { return s->sm_clock_mhz; }
static double g_mem_clock(const gpudiag_gpu_sample *s) { return s->mem_clock_mhz; }
static double g_power(const gpudiag_gpu_sample *s) { return s->power_w; }
static double g_power_limit(const gpudiag_gpu_sample *s) { return s->power_limit_w; }
static double g_temp(const gpudiag_gpu_sample *s) { return s->temp_c; }
static double g_pcie_tx(const gpudiag_gpu_sample *s) { return floor(s->pcie_tx_bytes_per_s / 1024.0); }
static double g_pcie_rx(const gpudiag_gpu_sample *s) { return floor(s->pcie_rx_bytes_per_s / 1024.0); }
static double g_reasons(const gpudiag_gpu_sample *s)
{
    return s->has_clock_event_reasons ? (double)s->clock_event_reasons : NAN;
}
static double g_sm_active(const gpudiag_gpu_sample *s) { return s->sm_active_pct / 100.0; }
static double g_sm_occ(const gpudiag_gpu_sample *s) { return s->sm_occupancy_pct / 100.0; }
static double g_tensor(const gpudiag_gpu_sample *s) { return s->tensor_active_pct / 100.0; }
static double g_dram(const gpudiag_gpu_sample *s) { return s->dram_active_pct / 100.0; }
static double g_nvl_tx(const gpudiag_gpu_sample *s) { return floor(s->nvlink_tx_bytes_per_s); }
static double g_nvl_rx(const gpudiag_gpu_sample *s) { return floor(s->nvlink_rx_bytes_per_s); }

/* The same readings in gpudiag's names: base units (bytes, hertz, watts,
 * bytes per second), ratios 0..1. */
static double u_gpu_util(const gpudiag_gpu_sample *s) { return s->gpu_util_pct / 100.0; }
static double u_mem_util(const gpudiag_gpu_sample *s) { return s->mem_util_pct / 100.0; }
static double u_enc_util(const gpudiag_gpu_sample *s) { return s->enc_util_pct / 100.0; }
static double u_dec_util(const gpudiag_gpu_sample *s) { return s->dec_util_pct / 100.0; }
static double u_mem_used(const gpudiag_gpu_sample *s) { return s->mem_used_bytes; }
static double u_mem_free(const gpudiag_gpu_sample *s)
{
    double reserved = isnan(s->mem_reserved_bytes) ? 0.0 : s->mem_reserved_bytes;
    double f = s->mem_total_bytes - reserved - s->mem_used_bytes;
    return isnan(f) || f >= 0 ? f : 0.0;
}
static double u_sm_clock(const gpudiag_gpu_sample *s) { return s->sm_clock_mhz * 1e6; }
static double u_mem_clock(const gpudiag_gpu_sample *s) { return s->mem_clock_mhz * 1e6; }
static double u_pcie_tx(const gpudiag_gpu_sample *s) { return s->pcie_tx_bytes_per_s; }
static double u_pcie_rx(const gpudiag_gpu_sample *s) { return s->pcie_rx_bytes_per_s; }
static double u_nvl_tx(const gpudiag_gpu_sample *s) { return s->nvlink_tx_bytes_per_s; }
static double u_nvl_rx(const gpudiag_gpu_sample *s) { return s->nvlink_rx_bytes_per_s; }

/* One reading, under the name it has in each naming mode. */
typedef struct gd_prom_family {
    const char *name;     /* dcgm-exporter's name (--metric-names dcgm) */
    const char *help;
    int ratio;            /* 1: print with %f; 0: print as an integer */
    gd_prom_get get;
    const char *gd_name;  /* gpudiag's name (the default): units in the name, ratios 0..1 */
    const char *gd_help;
    int gd_ratio;
    gd_prom_get gd_get;
} gd_prom_family;

/* Help texts as dcgm-exporter's default-counters.csv words them. */
static const gd_prom_family k_families[] = {
    {"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", 0, g_gpu_util,
     "gpudiag_gpu_utilization_ratio", "Share of the last sample period a kernel ran (NVML GPU-Util / 100).", 1, u_gpu_util},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).", 0, g_mem_util,
     "gpudiag_memory_controller_utilization_ratio", "Share of the last sample period device memory was read or written (NVML memory utilization / 100).", 1, u_mem_util},
    {"DCGM_FI_DEV_ENC_UTIL", "Encoder utilization (in %).", 0, g_enc_util,
     "gpudiag_encoder_utilization_ratio", "Share of the driver's sampling period the video encoder (NVENC) was busy (NVML encoder utilization / 100); GPU-Util does not count it.", 1, u_enc_util},
    {"DCGM_FI_DEV_DEC_UTIL", "Decoder utilization (in %).", 0, g_dec_util,
     "gpudiag_decoder_utilization_ratio", "Share of the driver's sampling period the video decoder (NVDEC) was busy (NVML decoder utilization / 100); GPU-Util does not count it.", 1, u_dec_util},
    {"DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", 0, g_fb_used,
     "gpudiag_memory_used_bytes", "Device memory used, bytes.", 0, u_mem_used},
    {"DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", 0, g_fb_free,
     "gpudiag_memory_free_bytes", "Device memory free (total - reserved - used), bytes.", 0, u_mem_free},
    {"DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", 0, g_sm_clock,
     "gpudiag_sm_clock_hertz", "SM clock frequency, hertz.", 0, u_sm_clock},
    {"DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).", 0, g_mem_clock,
     "gpudiag_memory_clock_hertz", "Memory clock frequency, hertz.", 0, u_mem_clock},
    {"DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", 1, g_power,
     "gpudiag_power_watts", "Power draw, watts.", 1, g_power},
    {"DCGM_FI_DEV_ENFORCED_POWER_LIMIT", "Enforced power limit (in W).", 1, g_power_limit,
     "gpudiag_power_limit_watts", "Enforced power limit, watts.", 1, g_power_limit},
    {"DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", 0, g_temp,
     "gpudiag_temperature_celsius", "GPU temperature, degrees Celsius.", 0, g_temp},
    {"DCGM_FI_DEV_PCIE_TX_THROUGHPUT", "PCIe TX throughput, GPU to host (in KB/s).", 0, g_pcie_tx,
     "gpudiag_pcie_tx_bytes_per_second", "PCIe throughput GPU to host, bytes per second.", 0, u_pcie_tx},
    {"DCGM_FI_DEV_PCIE_RX_THROUGHPUT", "PCIe RX throughput, host to GPU (in KB/s).", 0, g_pcie_rx,
     "gpudiag_pcie_rx_bytes_per_second", "PCIe throughput host to GPU, bytes per second.", 0, u_pcie_rx},
    {"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "Current clock event (throttle) reasons (NVML bitmask).", 0, g_reasons,
     "gpudiag_clock_event_reasons", "Current clock event (throttle) reasons (NVML bitmask).", 0, g_reasons},
    {"DCGM_FI_PROF_SM_ACTIVE", "The ratio of cycles an SM has at least 1 warp assigned.", 1, g_sm_active,
     "gpudiag_sm_active_ratio", "Ratio of cycles an SM has at least 1 warp assigned (NVML GPM).", 1, g_sm_active},
    {"DCGM_FI_PROF_SM_OCCUPANCY", "The ratio of number of warps resident on an SM.", 1, g_sm_occ,
     "gpudiag_sm_occupancy_ratio", "Ratio of warps resident on an SM to its maximum (NVML GPM).", 1, g_sm_occ},
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "Ratio of cycles the tensor (HMMA) pipe is active.", 1, g_tensor,
     "gpudiag_tensor_active_ratio", "Ratio of cycles a tensor pipe is active (NVML GPM).", 1, g_tensor},
    {"DCGM_FI_PROF_DRAM_ACTIVE", "Ratio of cycles the device memory interface is active sending or receiving data.", 1, g_dram,
     "gpudiag_dram_active_ratio", "Ratio of cycles the device memory interface is active (NVML GPM).", 1, g_dram},
    {"DCGM_FI_PROF_NVLINK_TX_BYTES", "The rate of data transmitted over NVLink, bytes/s.", 0, g_nvl_tx,
     "gpudiag_nvlink_tx_bytes_per_second", "NVLink transmit rate, all links, bytes per second.", 0, u_nvl_tx},
    {"DCGM_FI_PROF_NVLINK_RX_BYTES", "The rate of data received over NVLink, bytes/s.", 0, g_nvl_rx,
     "gpudiag_nvlink_rx_bytes_per_second", "NVLink receive rate, all links, bytes per second.", 0, u_nvl_rx},
};

/* Clock event reasons as label values (NVML names, snake case). */
static const struct { uint64_t bit; const char *name; } k_reasons[] = {
    {GPUDIAG_CLK_GPU_IDLE, "gpu_idle"},
    {GPUDIAG_CLK_APP_CLOCKS, "applications_clocks_setting"},
    {GPUDIAG_CLK_SW_POWER_CAP, "sw_power_cap"},
    {GPUDIAG_CLK_HW_SLOWDOWN, "hw_slowdown"},
    {GPUDIAG_CLK_SYNC_BOOST, "sync_boost"},
    {GPUDIAG_CLK_SW_THERMAL, "sw_thermal_slowdown"},
    {GPUDIAG_CLK_HW_THERMAL, "hw_thermal_slowdown"},
    {GPUDIAG_CLK_HW_POWER_BRAKE, "hw_power_brake_slowdown"},
    {GPUDIAG_CLK_DISPLAY, "display_clock_setting"},
};

#define GD_BN_LAST GPUDIAG_BN_THROTTLING

static void put_escaped(FILE *fp, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", fp);
        else if (*s == '"')
            fputs("\\\"", fp);
        else if (*s == '\n')
            fputs("\\n", fp);
        else
            fputc(*s, fp);
    }
}

/* The dcgm-exporter label set of one GPU, without the closing brace. */
static void put_labels(FILE *fp, const gd_prom_state *st, const gd_prom_gpu *g)
{
    fprintf(fp, "{gpu=\"%u\",UUID=\"", g->info->index);
    put_escaped(fp, g->info->uuid);
    fputs("\",pci_bus_id=\"", fp);
    put_escaped(fp, g->info->pci_bus_id);
    fprintf(fp, "\",device=\"nvidia%u\",modelName=\"", g->info->index);
    put_escaped(fp, g->info->name);
    fputc('"', fp);
    if (st->hostname && st->hostname[0]) {
        fputs(",Hostname=\"", fp);
        put_escaped(fp, st->hostname);
        fputc('"', fp);
    }
}

static void put_value(FILE *fp, double v, int ratio)
{
    if (ratio)
        fprintf(fp, " %f\n", v);
    else
        fprintf(fp, " %.0f\n", v);
}

static void put_head(FILE *fp, const char *name, const char *help, const char *type)
{
    fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static int usable(const gd_prom_gpu *g) { return g->last && !g->last->lost; }

int gd_prom_write(FILE *fp, const gd_prom_state *st, int openmetrics)
{
    put_head(fp, "gpudiag_build_info", "gpudiag's version; always 1.", "gauge");
    fprintf(fp, "gpudiag_build_info{version=\"%s\"} 1\n", GPUDIAG_VERSION);
    for (size_t f = 0; f < sizeof k_families / sizeof k_families[0]; f++) {
        const gd_prom_family *fam = &k_families[f];
        const char *name = st->dcgm_names ? fam->name : fam->gd_name;
        int headed = 0;
        for (size_t i = 0; i < st->gpu_count; i++) {
            const gd_prom_gpu *g = &st->gpus[i];
            if (!usable(g))
                continue;
            double v = st->dcgm_names ? fam->get(g->last) : fam->gd_get(g->last);
            if (!isfinite(v))
                continue;
            if (!headed) {
                put_head(fp, name, st->dcgm_names ? fam->help : fam->gd_help, "gauge");
                headed = 1;
            }
            fputs(name, fp);
            put_labels(fp, st, g);
            fputc('}', fp);
            put_value(fp, v, st->dcgm_names ? fam->ratio : fam->gd_ratio);
        }
    }

    put_head(fp, "gpudiag_gpu_up", "1 while the GPU answers NVML, 0 after it stopped (fell off the bus).", "gauge");
    for (size_t i = 0; i < st->gpu_count; i++) {
        const gd_prom_gpu *g = &st->gpus[i];
        fputs("gpudiag_gpu_up", fp);
        put_labels(fp, st, g);
        fprintf(fp, "} %d\n", g->last && g->last->lost ? 0 : 1);
    }

    int headed = 0;
    for (size_t i = 0; i < st->gpu_count; i++) {
        const gd_prom_gpu *g = &st->gpus[i];
        if (!usable(g) || !isfinite(g->low_utilization_share))
            continue;
        if (!headed++)
            put_head(fp, "gpudiag_low_utilization_share",
                     "Share of the rolling window's samples with the compute indicator (SM active, else GPU-Util) below 0.30.", "gauge");
        fputs("gpudiag_low_utilization_share", fp);
        put_labels(fp, st, g);
        fputc('}', fp);
        put_value(fp, g->low_utilization_share, 1);
    }

    headed = 0;
    for (size_t i = 0; i < st->gpu_count; i++) {
        const gd_prom_gpu *g = &st->gpus[i];
        if (!usable(g) || g->bottleneck < 0)
            continue;
        if (!headed++)
            put_head(fp, "gpudiag_bottleneck",
                     "gpudiag's verdict over the rolling window: 1 for the current bottleneck, 0 for the others.", "gauge");
        for (int bn = GPUDIAG_BN_UNKNOWN; bn <= GD_BN_LAST; bn++) {
            fputs("gpudiag_bottleneck", fp);
            put_labels(fp, st, g);
            fputs(",bottleneck=\"", fp);
            fputs(gpudiag_bottleneck_name((gpudiag_bottleneck)bn), fp);
            fprintf(fp, "\"} %d\n", bn == g->bottleneck ? 1 : 0);
        }
    }

    headed = 0;
    for (size_t i = 0; i < st->gpu_count; i++) {
        const gd_prom_gpu *g = &st->gpus[i];
        if (!usable(g) || !g->last->has_clock_event_reasons)
            continue;
        if (!headed++)
            put_head(fp, "gpudiag_clock_event_active",
                     "1 while the clock event (throttle) reason is active, from NVML's reason bits.", "gauge");
        for (size_t r = 0; r < sizeof k_reasons / sizeof k_reasons[0]; r++) {
            fputs("gpudiag_clock_event_active", fp);
            put_labels(fp, st, g);
            fprintf(fp, ",reason=\"%s\"} %d\n", k_reasons[r].name,
                    (g->last->clock_event_reasons & k_reasons[r].bit) ? 1 : 0);
        }
    }

    headed = 0;
    for (size_t i = 0; i < st->gpu_count; i++) {
        const gd_prom_gpu *g = &st->gpus[i];
        if (!usable(g) || !isfinite(g->mfu))
            continue;
        if (!headed++)
            put_head(fp, "gpudiag_mfu", "Model FLOPs utilisation over the window, from the step markers' tokens (PaLM appendix B).",
                     "gauge");
        fputs("gpudiag_mfu", fp);
        put_labels(fp, st, g);
        fputc('}', fp);
        put_value(fp, g->mfu, 1);
    }

    if (openmetrics) {
        put_head(fp, "gpudiag_samples", "Sampling rounds since gpudiag serve started.", "counter");
        fprintf(fp, "gpudiag_samples_total %llu\n", (unsigned long long)st->samples_total);
        put_head(fp, "gpudiag_sample_errors", "Per-GPU reads that failed since start.", "counter");
        fprintf(fp, "gpudiag_sample_errors_total %llu\n", (unsigned long long)st->sample_errors_total);
    } else {
        put_head(fp, "gpudiag_samples_total", "Sampling rounds since gpudiag serve started.", "counter");
        fprintf(fp, "gpudiag_samples_total %llu\n", (unsigned long long)st->samples_total);
        put_head(fp, "gpudiag_sample_errors_total", "Per-GPU reads that failed since start.", "counter");
        fprintf(fp, "gpudiag_sample_errors_total %llu\n", (unsigned long long)st->sample_errors_total);
    }
    if (isfinite(st->last_scrape_s)) {
        put_head(fp, "gpudiag_scrape_duration_seconds", "Time the previous /metrics render took.", "gauge");
        fprintf(fp, "gpudiag_scrape_duration_seconds %f\n", st->last_scrape_s);
    }
    if (openmetrics)
        fputs("# EOF\n", fp);
    return ferror(fp) ? -1 : 0;
}
