/*
 * test_sampler.c — the sampler API on the built-in `test` backend (values
 * defined in docs/DEFINITIONS.md "Live samples") and the conversion of live
 * samples into the monitoring series model (percent -> fraction, bytes kept,
 * clock reasons as bits, lost GPU -> all missing).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "gpudiag/sampler.h"
#include "gpudiag/series.h"
#include "test.h"

int main(void)
{
    setenv("GPUDIAG_TEST_GPUS", "3", 1);
    gpudiag_sampler *s = NULL;
    gpudiag_error err;
    ASSERT_EQ_INT(gpudiag_sampler_open("nope", &s, &err), GPUDIAG_ERR_ARG);
    ASSERT_TRUE(s == NULL);
    ASSERT_EQ_INT(gpudiag_sampler_open("test", &s, &err), GPUDIAG_OK);
    ASSERT_STR_EQ(gpudiag_sampler_backend(s), "test");
    ASSERT_EQ_INT(gpudiag_sampler_gpu_count(s), 3);
    ASSERT_TRUE(gpudiag_sampler_gpu(s, 3) == NULL);
    ASSERT_STR_EQ(gpudiag_sampler_gpu(s, 2)->uuid, "GPU-00000000-0000-0000-0000-000000000002");

    gpudiag_gpu_sample smp;
    ASSERT_EQ_INT(gpudiag_sampler_read(s, 7, &smp, &err), GPUDIAG_ERR_ARG);
    /* read 0: GPM only primes the baseline */
    ASSERT_EQ_INT(gpudiag_sampler_read(s, 1, &smp, &err), GPUDIAG_OK);
    ASSERT_EQ_INT(smp.index, 1);
    ASSERT_NEAR(smp.gpu_util_pct, 90, 0);
    ASSERT_NEAR(smp.mem_util_pct, 45, 0);
    ASSERT_NEAR(smp.mem_used_bytes, 40.0 * 1073741824.0, 0);
    ASSERT_NEAR(smp.power_w, 400, 0);
    ASSERT_NAN(smp.sm_active_pct);
    ASSERT_NAN(smp.nvlink_rx_bytes_per_s); /* never given by the test backend */
    ASSERT_NAN(smp.enc_util_pct);          /* cleared to unknown, never 0 */
    ASSERT_NAN(smp.dec_util_pct);

    gpudiag_series *ser = NULL;
    ASSERT_EQ_INT(gpudiag_series_new("nvml", &ser), GPUDIAG_OK);
    ASSERT_EQ_INT(gpudiag_series_append_sample(ser, gpudiag_sampler_gpu(s, 1), &smp, &err), GPUDIAG_OK);
    /* reads 1..3: 90 % (SM active 45 %), 90 %, then 10 % (SM active 5 %) */
    for (int k = 1; k <= 3; k++) {
        ASSERT_EQ_INT(gpudiag_sampler_read(s, 1, &smp, &err), GPUDIAG_OK);
        smp.clock_event_reasons = k == 3 ? 0x44 : 0; /* SW power cap + HW thermal */
        if (k == 2) { /* NVENC 88 %, NVDEC 71 % -> fractions 0.88, 0.71 */
            smp.enc_util_pct = 88;
            smp.dec_util_pct = 71;
        }
        ASSERT_EQ_INT(gpudiag_series_append_sample(ser, gpudiag_sampler_gpu(s, 1), &smp, &err), GPUDIAG_OK);
    }
    ASSERT_NEAR(smp.gpu_util_pct, 10, 0);
    ASSERT_NEAR(smp.sm_active_pct, 5, 0);
    ASSERT_NEAR(smp.tensor_active_pct, 30, 0);
    /* a lost GPU: every metric missing */
    gpudiag_gpu_sample lost = smp;
    lost.lost = 1;
    ASSERT_EQ_INT(gpudiag_series_append_sample(ser, gpudiag_sampler_gpu(s, 1), &lost, &err), GPUDIAG_OK);

    ASSERT_EQ_INT(ser->gpu_count, 1);
    const gpudiag_gpu_series *g = &ser->gpus[0];
    ASSERT_EQ_INT(g->index, 1);
    ASSERT_STR_EQ(g->name, "gpudiag test GPU");
    ASSERT_EQ_INT(g->count, 5);
    ASSERT_NEAR(g->v[GPUDIAG_M_GPU_UTIL][0], 0.90, 1e-12);
    ASSERT_NEAR(g->v[GPUDIAG_M_GPU_UTIL][3], 0.10, 1e-12);
    ASSERT_NEAR(g->v[GPUDIAG_M_MEM_UTIL][3], 0.05, 1e-12);
    ASSERT_NAN(g->v[GPUDIAG_M_SM_ACTIVE][0]);
    ASSERT_NEAR(g->v[GPUDIAG_M_SM_ACTIVE][1], 0.45, 1e-12);
    ASSERT_NEAR(g->v[GPUDIAG_M_SM_ACTIVE][3], 0.05, 1e-12);
    ASSERT_NEAR(g->v[GPUDIAG_M_TENSOR_ACTIVE][2], 0.30, 1e-12);
    ASSERT_NEAR(g->v[GPUDIAG_M_DRAM_ACTIVE][2], 0.40, 1e-12);
    ASSERT_NEAR(g->v[GPUDIAG_M_MEM_USED_BYTES][2], 42949672960.0, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_PCIE_RX_BPS][2], 1048576.0, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_SM_CLOCK_MAX_MHZ][2], 1980, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_CLOCK_REASONS][3], 68.0, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_CLOCK_REASONS][2], 0.0, 0);
    ASSERT_TRUE(g->v[GPUDIAG_M_NVLINK_RX_BPS] == NULL); /* never had a value: absent */
    ASSERT_NAN(g->v[GPUDIAG_M_ENC_UTIL][1]);
    ASSERT_NEAR(g->v[GPUDIAG_M_ENC_UTIL][2], 0.88, 1e-12);
    ASSERT_NEAR(g->v[GPUDIAG_M_DEC_UTIL][2], 0.71, 1e-12);
    ASSERT_NAN(g->v[GPUDIAG_M_ENC_UTIL][3]);
    ASSERT_NAN(g->v[GPUDIAG_M_DEC_UTIL][4]);
    ASSERT_NAN(g->v[GPUDIAG_M_GPU_UTIL][4]);
    ASSERT_NAN(g->v[GPUDIAG_M_POWER_W][4]);
    ASSERT_TRUE(g->t_us[3] >= g->t_us[0]);

    gpudiag_series_free(&ser);
    gpudiag_sampler_free(&s);
    ASSERT_TRUE(s == NULL);
    gpudiag_sampler_free(&s); /* NULL-safe */
    TEST_DONE("sampler");
}
