/*
 * sampler.c — the public sampler API over the backend table.
 *
 * The backends are listed in gd_sample_backends[] (explicit, NULL-terminated);
 * "auto" means NVML, the only real backend today.  The sampler clears every
 * sample to "unknown" before a backend fills it, so a backend that forgets a
 * field leaves NaN, never a stale or zero value.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpudiag/sampler.h"
#include "sample/backend.h"
#include "util/util.h"

static const gd_sample_backend *const gd_sample_backends[] = {
    &gd_nvml_backend,
    &gd_test_backend,
    NULL,
};

struct gpudiag_sampler {
    const gd_sample_backend *be;
    void *state;
};

void gd_sample_clear(gpudiag_gpu_sample *s)
{
    memset(s, 0, sizeof *s);
    double *nans[] = {
        &s->t_s, &s->gpu_util_pct, &s->mem_util_pct, &s->mem_used_bytes, &s->mem_total_bytes,
        &s->mem_reserved_bytes, &s->sm_clock_mhz, &s->sm_clock_max_mhz, &s->mem_clock_mhz,
        &s->mem_clock_max_mhz, &s->power_w, &s->power_limit_w, &s->temp_c, &s->pcie_rx_bytes_per_s,
        &s->pcie_tx_bytes_per_s, &s->pcie_gen, &s->pcie_gen_max, &s->pcie_width, &s->pcie_width_max,
        &s->sm_active_pct, &s->sm_occupancy_pct, &s->tensor_active_pct, &s->dram_active_pct,
        &s->gpm_pcie_tx_bytes_per_s, &s->gpm_pcie_rx_bytes_per_s, &s->nvlink_rx_bytes_per_s,
        &s->nvlink_tx_bytes_per_s, &s->enc_util_pct, &s->dec_util_pct,
    };
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++)
        *nans[i] = NAN;
}

gpudiag_status gpudiag_sampler_open(const char *backend, gpudiag_sampler **out, gpudiag_error *err)
{
    if (!out)
        return gd_set_error(err, GPUDIAG_ERR_ARG, "", -1, "gpudiag_sampler_open: NULL out");
    *out = NULL;
    if (!backend || strcmp(backend, "auto") == 0)
        backend = "nvml";
    const gd_sample_backend *be = NULL;
    for (size_t i = 0; gd_sample_backends[i]; i++)
        if (strcmp(gd_sample_backends[i]->name, backend) == 0)
            be = gd_sample_backends[i];
    if (!be)
        return gd_set_error(err, GPUDIAG_ERR_ARG, "", -1, "unknown sampling backend '%s' (nvml, test)", backend);
    gpudiag_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, "", -1, "out of memory");
    gpudiag_status st = be->open(&s->state, err);
    if (st != GPUDIAG_OK) {
        free(s);
        return st;
    }
    s->be = be;
    *out = s;
    return GPUDIAG_OK;
}

const char *gpudiag_sampler_backend(const gpudiag_sampler *s)
{
    return s && s->be ? s->be->name : "none";
}

const char *gpudiag_sampler_driver_version(const gpudiag_sampler *s)
{
    const char *v = s && s->be ? s->be->driver_version(s->state) : NULL;
    return v ? v : "";
}

size_t gpudiag_sampler_gpu_count(const gpudiag_sampler *s)
{
    return s && s->be ? s->be->gpu_count(s->state) : 0;
}

const gpudiag_gpu_info *gpudiag_sampler_gpu(const gpudiag_sampler *s, size_t i)
{
    if (!s || i >= gpudiag_sampler_gpu_count(s))
        return NULL;
    return s->be->gpu(s->state, i);
}

gpudiag_status gpudiag_sampler_read(gpudiag_sampler *s, size_t i, gpudiag_gpu_sample *out, gpudiag_error *err)
{
    if (!s || !out || i >= gpudiag_sampler_gpu_count(s))
        return gd_set_error(err, GPUDIAG_ERR_ARG, "", -1, "gpudiag_sampler_read: no GPU %zu", i);
    gd_sample_clear(out);
    s->be->read(s->state, i, out);
    return GPUDIAG_OK;
}

void gpudiag_sampler_free(gpudiag_sampler **s)
{
    if (!s || !*s)
        return;
    if ((*s)->be)
        (*s)->be->close((*s)->state);
    free(*s);
    *s = NULL;
}
