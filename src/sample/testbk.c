/*
 * testbk.c — the `test` sampling backend: synthetic GPUs that build and run
 * anywhere (no library, no driver), for tests and the sampling benchmark.
 *
 * $GPUDIAG_TEST_GPUS GPUs (default 2, at most 64).  Read k (0-based, per GPU)
 * of GPU i gives: GPU-Util 90 % for k % 4 != 3 and 10 % for k % 4 == 3;
 * memory-controller util half of that; 40 GiB used of 80 GiB; SM clock
 * 1980 MHz of 1980; memory clock 2619 of 2619; power 400 W of 700; 60 C;
 * PCIe gen 5 of 5, x16 of x16, 1 MiB/s each way; no clock event reasons;
 * from the second read on, SM active = GPU-Util / 2, tensor active 30 %,
 * DRAM active 40 %, SM occupancy 25 %.  No processes.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sample/backend.h"
#include "util/util.h"

typedef struct gd_testbk {
    size_t n;
    gpudiag_gpu_info *info;
    unsigned long *reads;
} gd_testbk;

static void testbk_close(void *state)
{
    gd_testbk *t = state;
    if (!t)
        return;
    free(t->info);
    free(t->reads);
    free(t);
}

static gpudiag_status testbk_open(void **state, gpudiag_error *err)
{
    *state = NULL;
    long n = 2;
    const char *e = getenv("GPUDIAG_TEST_GPUS");
    if (e && e[0])
        n = strtol(e, NULL, 10);
    if (n < 1)
        return gd_set_error(err, GPUDIAG_ERR_NODEV, "", -1, "test backend: GPUDIAG_TEST_GPUS=%s lists no GPU",
                            e ? e : "");
    if (n > 64)
        n = 64;
    gd_testbk *t = calloc(1, sizeof *t);
    if (t) {
        t->info = calloc((size_t)n, sizeof *t->info);
        t->reads = calloc((size_t)n, sizeof *t->reads);
    }
    if (!t || !t->info || !t->reads) {
        testbk_close(t);
        return gd_set_error(err, GPUDIAG_ERR_NOMEM, "", -1, "out of memory");
    }
    t->n = (size_t)n;
    for (size_t i = 0; i < t->n; i++) {
        t->info[i].index = (unsigned)i;
        snprintf(t->info[i].name, sizeof t->info[i].name, "gpudiag test GPU");
        snprintf(t->info[i].uuid, sizeof t->info[i].uuid, "GPU-00000000-0000-0000-0000-%012zu", i);
        snprintf(t->info[i].pci_bus_id, sizeof t->info[i].pci_bus_id, "00000000:%02zx:00.0", i + 1);
        t->info[i].gpm_supported = 1;
    }
    *state = t;
    return GPUDIAG_OK;
}

static size_t testbk_count(const void *state)
{
    return ((const gd_testbk *)state)->n;
}

static const gpudiag_gpu_info *testbk_gpu(const void *state, size_t i)
{
    return &((const gd_testbk *)state)->info[i];
}

static const char *testbk_driver(const void *state)
{
    (void)state;
    return "test";
}

static void testbk_read(void *state, size_t i, gpudiag_gpu_sample *out)
{
    gd_testbk *t = state;
    unsigned long k = t->reads[i]++;
    out->t_s = gd_wall_s();
    out->index = t->info[i].index;
    out->gpu_util_pct = k % 4 == 3 ? 10 : 90;
    out->mem_util_pct = out->gpu_util_pct / 2;
    out->mem_total_bytes = 80.0 * 1073741824.0;
    out->mem_used_bytes = 40.0 * 1073741824.0;
    out->mem_reserved_bytes = 0;
    out->sm_clock_mhz = out->sm_clock_max_mhz = 1980;
    out->mem_clock_mhz = out->mem_clock_max_mhz = 2619;
    out->power_w = 400;
    out->power_limit_w = 700;
    out->temp_c = 60;
    out->pcie_gen = out->pcie_gen_max = 5;
    out->pcie_width = out->pcie_width_max = 16;
    out->pcie_rx_bytes_per_s = out->pcie_tx_bytes_per_s = 1048576;
    out->has_clock_event_reasons = 1;
    out->clock_event_reasons = 0;
    out->has_processes = 1;
    if (k > 0) {
        out->sm_active_pct = out->gpu_util_pct / 2;
        out->tensor_active_pct = 30;
        out->dram_active_pct = 40;
        out->sm_occupancy_pct = 25;
    }
}

const gd_sample_backend gd_test_backend = {
    "test", testbk_open, testbk_count, testbk_gpu, testbk_driver, testbk_read, testbk_close,
};
