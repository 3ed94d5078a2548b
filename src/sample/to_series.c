/*
 * to_series.c — live samples into the monitoring time-series model
 * (include/gpudiag/series.h), so that `gpudiag run`'s diagnosis and
 * `gpudiag analyze LOG` read the same numbers in the same units.
 */
#define _DEFAULT_SOURCE 1
#include <math.h>
#include <string.h>
#include <time.h>

#include "gpudiag/sampler.h"
#include "gpudiag/series.h"
#include "util/util.h"

/* Percent -> fraction; NaN stays NaN. */
static double frac(double pct)
{
    return pct / 100.0;
}

gpudiag_status gpudiag_series_append_sample(gpudiag_series *s, const gpudiag_gpu_info *info,
                                            const gpudiag_gpu_sample *smp, gpudiag_error *err)
{
    if (!s || !info || !smp)
        return gd_set_error(err, GPUDIAG_ERR_ARG, "", -1, "gpudiag_series_append_sample: NULL argument");
    long g = gpudiag_series_gpu(s, GPUDIAG_ENTITY_GPU, (int)info->index, -1, info->uuid, NULL);
    if (g < 0)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, "", -1, "out of memory");
    gpudiag_gpu_series *gs = &s->gpus[g];
    if (!gs->name[0])
        snprintf(gs->name, sizeof gs->name, "%s", info->name);
    if (!gs->bus_id[0])
        snprintf(gs->bus_id, sizeof gs->bus_id, "%s", info->pci_bus_id);
    double v[GPUDIAG_M_COUNT];
    for (int m = 0; m < GPUDIAG_M_COUNT; m++)
        v[m] = NAN;
    if (!smp->lost) {
        v[GPUDIAG_M_GPU_UTIL] = frac(smp->gpu_util_pct);
        v[GPUDIAG_M_MEM_UTIL] = frac(smp->mem_util_pct);
        v[GPUDIAG_M_MEM_USED_BYTES] = smp->mem_used_bytes;
        v[GPUDIAG_M_MEM_TOTAL_BYTES] = smp->mem_total_bytes;
        v[GPUDIAG_M_SM_CLOCK_MHZ] = smp->sm_clock_mhz;
        v[GPUDIAG_M_MEM_CLOCK_MHZ] = smp->mem_clock_mhz;
        v[GPUDIAG_M_POWER_W] = smp->power_w;
        v[GPUDIAG_M_POWER_LIMIT_W] = smp->power_limit_w;
        v[GPUDIAG_M_TEMP_C] = smp->temp_c;
        v[GPUDIAG_M_PCIE_RX_BPS] = smp->pcie_rx_bytes_per_s;
        v[GPUDIAG_M_PCIE_TX_BPS] = smp->pcie_tx_bytes_per_s;
        v[GPUDIAG_M_SM_ACTIVE] = frac(smp->sm_active_pct);
        v[GPUDIAG_M_SM_OCCUPANCY] = frac(smp->sm_occupancy_pct);
        v[GPUDIAG_M_TENSOR_ACTIVE] = frac(smp->tensor_active_pct);
        v[GPUDIAG_M_DRAM_ACTIVE] = frac(smp->dram_active_pct);
        v[GPUDIAG_M_NVLINK_RX_BPS] = smp->nvlink_rx_bytes_per_s;
        v[GPUDIAG_M_NVLINK_TX_BPS] = smp->nvlink_tx_bytes_per_s;
        if (smp->has_clock_event_reasons)
            v[GPUDIAG_M_CLOCK_REASONS] = (double)smp->clock_event_reasons;
        v[GPUDIAG_M_SM_CLOCK_MAX_MHZ] = smp->sm_clock_max_mhz;
        v[GPUDIAG_M_PCIE_GEN] = smp->pcie_gen;
        v[GPUDIAG_M_PCIE_GEN_MAX] = smp->pcie_gen_max;
        v[GPUDIAG_M_PCIE_WIDTH] = smp->pcie_width;
        v[GPUDIAG_M_PCIE_WIDTH_MAX] = smp->pcie_width_max;
        v[GPUDIAG_M_ENC_UTIL] = frac(smp->enc_util_pct);
        v[GPUDIAG_M_DEC_UTIL] = frac(smp->dec_util_pct);
    }
    /* the log readers' time base: local wall time read as if UTC, µs */
    time_t sec = (time_t)floor(smp->t_s);
    struct tm tm;
    localtime_r(&sec, &tm);
    double local = smp->t_s + (double)tm.tm_gmtoff;
    return gpudiag_series_append(s, (size_t)g, (int64_t)llround(local * 1e6), v);
}
