/* Monitoring series model and the log readers, on the real logs in
 * ../shared/data/logs (values read off the raw lines / awk, see comments). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "gpudiag/series.h"
#include "ingest/formats.h"
#include "ingest/monlog.h"
#include "model/series_internal.h"
#include "test.h"
#include "util/util.h"

#define LOGS GD_SHARED_LOGS "/"

static gpudiag_series *read_log(const char *name, gpudiag_log_format f)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s", LOGS, name);
    gpudiag_series *s = NULL;
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    gpudiag_status st = gpudiag_series_read(path, f, &s, &err);
    if (st != GPUDIAG_OK) {
        fprintf(stderr, "%s: %s (offset %lld)\n", name, err.message, (long long)err.offset);
        abort();
    }
    return s;
}

static const gpudiag_gpu_series *gpu_by_index(const gpudiag_series *s, int index)
{
    for (size_t g = 0; g < s->gpu_count; g++)
        if (s->gpus[g].index == index && s->gpus[g].kind == GPUDIAG_ENTITY_GPU)
            return &s->gpus[g];
    fprintf(stderr, "no GPU %d\n", index);
    abort();
}

static void test_model(void)
{
    gpudiag_series *s = NULL;
    ASSERT_EQ_INT(gpudiag_series_new("nvml", &s), GPUDIAG_OK);
    long a = gpudiag_series_gpu(s, GPUDIAG_ENTITY_GPU, 0, -1, NULL, "h1");
    long b = gpudiag_series_gpu(s, GPUDIAG_ENTITY_GPU, 0, -1, NULL, "h2");
    long a2 = gpudiag_series_gpu(s, GPUDIAG_ENTITY_GPU, 0, -1, NULL, "h1");
    ASSERT_EQ_INT(a, 0);
    ASSERT_EQ_INT(b, 1);
    ASSERT_EQ_INT(a2, 0);
    double v[GPUDIAG_M_COUNT];
    for (int i = 0; i < 100; i++) {
        gd_values_clear(v);
        v[GPUDIAG_M_GPU_UTIL] = i / 100.0;
        if (i >= 70)
            v[GPUDIAG_M_POWER_W] = 300;
        ASSERT_EQ_INT(gpudiag_series_append(s, 0, i * 1000, v), GPUDIAG_OK);
    }
    const gpudiag_gpu_series *g = &s->gpus[0];
    ASSERT_EQ_INT(g->count, 100);
    ASSERT_TRUE(g->v[GPUDIAG_M_TEMP_C] == NULL);          /* never present: absent */
    ASSERT_NAN(g->v[GPUDIAG_M_POWER_W][69]);               /* present later: NaN before */
    ASSERT_NEAR(g->v[GPUDIAG_M_POWER_W][70], 300, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_GPU_UTIL][99], 0.99, 1e-15);
    ASSERT_EQ_INT(g->t_us[99], 99000);
    ASSERT_STR_EQ(gpudiag_metric_name(GPUDIAG_M_TENSOR_ACTIVE), "tensor_active");
    ASSERT_STR_EQ(gpudiag_metric_name(GPUDIAG_M_COUNT), "unknown");
    gpudiag_series_free(&s);
    ASSERT_TRUE(s == NULL);
    gpudiag_series_free(&s);
}

/* The one-block-per-GPU storage: columns that first appear mid-row and
 * mid-series keep every earlier value; a reserve keeps the data. */
static void test_arena(void)
{
    gpudiag_series *s = NULL;
    ASSERT_EQ_INT(gpudiag_series_new("dmon", &s), GPUDIAG_OK);
    long g = gpudiag_series_gpu(s, GPUDIAG_ENTITY_GPU, 0, -1, NULL, NULL);
    double v[GPUDIAG_M_COUNT];
    gd_values_clear(v);
    v[GPUDIAG_M_POWER_W] = 100;
    ASSERT_EQ_INT(gpudiag_series_append(s, (size_t)g, 0, v), GPUDIAG_OK);
    /* row 1 brings two new metrics, one before and one after POWER_W in metric order */
    v[GPUDIAG_M_GPU_UTIL] = 0.5;
    v[GPUDIAG_M_POWER_W] = 101;
    v[GPUDIAG_M_TENSOR_ACTIVE] = 0.25;
    ASSERT_EQ_INT(gpudiag_series_append(s, (size_t)g, 1, v), GPUDIAG_OK);
    ASSERT_EQ_INT(gd_series_reserve(s, (size_t)g, 1000), 0);
    ASSERT_EQ_INT(s->gpus[0].cap, 1000);
    for (int i = 2; i < 1500; i++) { /* past the reserve: doubles */
        v[GPUDIAG_M_POWER_W] = 100 + i;
        ASSERT_EQ_INT(gpudiag_series_append(s, (size_t)g, i, v), GPUDIAG_OK);
    }
    const gpudiag_gpu_series *x = &s->gpus[0];
    ASSERT_EQ_INT(x->count, 1500);
    ASSERT_EQ_INT(x->cap, 2000);
    ASSERT_NEAR(x->v[GPUDIAG_M_POWER_W][0], 100, 0);
    ASSERT_NEAR(x->v[GPUDIAG_M_POWER_W][1], 101, 0);
    ASSERT_NEAR(x->v[GPUDIAG_M_POWER_W][1499], 1599, 0);
    ASSERT_NAN(x->v[GPUDIAG_M_GPU_UTIL][0]);
    ASSERT_NEAR(x->v[GPUDIAG_M_GPU_UTIL][1], 0.5, 0);
    ASSERT_NEAR(x->v[GPUDIAG_M_TENSOR_ACTIVE][1], 0.25, 0);
    ASSERT_NAN(x->v[GPUDIAG_M_TENSOR_ACTIVE][0]);
    ASSERT_EQ_INT(x->t_us[1499], 1499);
    ASSERT_TRUE(x->v[GPUDIAG_M_TEMP_C] == NULL);
    gpudiag_series_free(&s);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* gd_quantiles: hand cases, then against sort + numpy's interpolation */
static void test_quantiles(void)
{
    double v[] = {5, 1, 4, 2, 3}, out[4];
    const double q[] = {0.5, 0.1, 0.95, 1};
    gd_quantiles(v, 5, q, 4, out);
    ASSERT_NEAR(out[0], 3, 0);   /* numpy.percentile([5,1,4,2,3], 50) */
    ASSERT_NEAR(out[1], 1.4, 1e-15); /* pos 0.4: 1 + 0.4 × (2 − 1) */
    ASSERT_NEAR(out[2], 4.8, 1e-15); /* pos 3.8: 4 + 0.8 × (5 − 4) */
    ASSERT_NEAR(out[3], 5, 0);
    double one = 7;
    gd_quantiles(&one, 1, q, 4, out);
    ASSERT_NEAR(out[0], 7, 0);
    ASSERT_NEAR(out[2], 7, 0);
    /* many equal values (dmon's integer percents), sorted, reversed and random */
    enum { N = 5003 };
    static double a[N], b[N];
    const double qs[] = {0, 0.05, 0.10, 0.5, 0.90, 0.95, 1};
    unsigned seed = 12345;
    for (int kind = 0; kind < 4; kind++) {
        for (int i = 0; i < N; i++) {
            seed = seed * 1103515245u + 12345u;
            a[i] = kind == 0 ? (double)((seed >> 16) % 7) : kind == 1 ? i : kind == 2 ? N - i : (double)(seed >> 8) / 3.0;
            b[i] = a[i];
        }
        qsort(b, N, sizeof *b, cmp_d);
        double got[7];
        gd_quantiles(a, N, qs, 7, got);
        for (int k = 0; k < 7; k++) {
            double pos = qs[k] * (N - 1);
            size_t i = (size_t)pos;
            double want = i + 1 >= N ? b[N - 1] : b[i] + (pos - (double)i) * (b[i + 1] - b[i]);
            ASSERT_TRUE(got[k] == want);
        }
    }
}

static void test_values(void)
{
    int ok;
    ASSERT_NEAR(gd_parse_value("45 %", 4, &ok), 45, 0);
    ASSERT_EQ_INT(ok, 1);
    ASSERT_NEAR(gd_parse_value(" 106.56 W", 9, &ok), 106.56, 1e-12);
    ASSERT_NEAR(gd_parse_value("0.972", 5, &ok), 0.972, 0);
    ASSERT_NEAR(gd_parse_value("1.5e3", 5, &ok), 1500, 0);
    ASSERT_NEAR(gd_parse_value("10000 KB/s", 10, &ok), 10000, 0);
    ASSERT_NAN(gd_parse_value("-", 1, &ok));
    ASSERT_EQ_INT(ok, 1);
    ASSERT_NAN(gd_parse_value("[N/A]", 5, &ok));
    ASSERT_EQ_INT(ok, 1);
    ASSERT_NAN(gd_parse_value("[Not Supported]", 15, &ok));
    ASSERT_EQ_INT(ok, 1);
    ASSERT_NAN(gd_parse_value("N/A", 3, &ok));
    ASSERT_EQ_INT(ok, 1);
    ASSERT_NAN(gd_parse_value("", 0, &ok));
    ASSERT_EQ_INT(ok, 1);
    ASSERT_NAN(gd_parse_value("9223372036854775794", 19, &ok)); /* DCGM int64 NOT_SUPPORTED */
    ASSERT_EQ_INT(ok, 1);
    ASSERT_NAN(gd_parse_value("140737488355328.000000", 22, &ok)); /* DCGM double BLANK */
    ASSERT_EQ_INT(ok, 1);
    ASSERT_NAN(gd_parse_value("12x4", 4, &ok));
    ASSERT_EQ_INT(ok, 0);
    ASSERT_NAN(gd_parse_value("abc", 3, &ok));
    ASSERT_EQ_INT(ok, 0);
    ASSERT_TRUE(isinf(gd_parse_value("NaN", 3, &ok)) && ok == 1); /* spelled out: invalid, not missing */
    ASSERT_TRUE(isinf(gd_parse_value("-inf", 4, &ok)) && ok == 1);
    ASSERT_TRUE(isinf(gd_parse_value("1e999", 5, &ok)) && ok == 1);
    (void)gd_parse_value("abc", 3, &ok);
    ASSERT_EQ_INT(ok, 0);
    /* python3: calendar.timegm((2024,1,4,13,54,35))*10**6 */
    ASSERT_EQ_INT(gd_parse_yyyymmdd("20240104", 8) + gd_parse_hms("13:54:35", 8), 1704376475000000LL);
    /* calendar.timegm((2020,11,12,13,48,11))*10**6 + 412000 */
    ASSERT_EQ_INT(gd_parse_datetime("2020/11/12 13:48:11.412", 23), 1605188891412000LL);
    ASSERT_EQ_INT(gd_parse_hms("25:00:00", 8), -1);
}

static void test_dmon(void)
{
    /* 2 GPUs interleaved, old `temp` header, pwr '-': awk on the raw rows gives
     * GPU 0 sm mean 83.75 over 4 rows, GPU 1 fb 3741 MB in all 4 rows */
    gpudiag_series *s = read_log("nvsmi_dmon_pucvmet_2gpu_one_training_one_idle_geforce.log", GPUDIAG_LOG_AUTO);
    ASSERT_STR_EQ(s->format, "dmon");
    ASSERT_EQ_INT(s->gpu_count, 2);
    ASSERT_EQ_INT(s->time_source, GPUDIAG_TIME_ASSUMED);
    const gpudiag_gpu_series *g0 = gpu_by_index(s, 0), *g1 = gpu_by_index(s, 1);
    ASSERT_EQ_INT(g0->count, 4);
    double sum = 0;
    for (size_t i = 0; i < g0->count; i++)
        sum += g0->v[GPUDIAG_M_GPU_UTIL][i];
    ASSERT_NEAR(sum / 4, 0.8375, 1e-12);
    ASSERT_TRUE(g0->v[GPUDIAG_M_POWER_W] == NULL); /* every pwr is '-' */
    ASSERT_NEAR(g1->v[GPUDIAG_M_MEM_USED_BYTES][3], 3741.0 * 1048576, 0);
    ASSERT_NEAR(g0->v[GPUDIAG_M_TEMP_C][2], 51, 0);       /* row 5: "0 - 51 59 43 ..." */
    ASSERT_NEAR(g0->v[GPUDIAG_M_PCIE_RX_BPS][2], 2638e6, 0);
    ASSERT_NEAR(g0->v[GPUDIAG_M_SM_CLOCK_MHZ][3], 1771, 0); /* pclk of the last GPU 0 row */
    ASSERT_EQ_INT(g1->t_us[3], 3000000);
    gpudiag_series_free(&s);

    /* -o TD with trailing spaces and a blank line; columns in -s mutc order */
    s = read_log("nvsmi_dmon_mutc_TD_1gpu_bursty_pcie.log", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->time_source, GPUDIAG_TIME_ABSOLUTE);
    g0 = gpu_by_index(s, 0);
    ASSERT_EQ_INT(g0->count, 6);
    ASSERT_EQ_INT(g0->t_us[0], 1704376475000000LL);
    ASSERT_EQ_INT(g0->t_us[5] - g0->t_us[0], 5000000);
    sum = 0;
    for (size_t i = 0; i < 6; i++)
        sum += g0->v[GPUDIAG_M_PCIE_RX_BPS][i];
    ASSERT_NEAR(sum / 6, 49.333333333e6, 1e3); /* awk: mean of rxpci 49.3333 MB/s */
    ASSERT_NEAR(g0->v[GPUDIAG_M_PCIE_TX_BPS][1], 677e6, 0);
    ASSERT_NEAR(g0->v[GPUDIAG_M_GPU_UTIL][3], 0.13, 1e-15);
    ASSERT_NEAR(g0->v[GPUDIAG_M_MEM_USED_BYTES][3], 478.0 * 1048576, 0);
    ASSERT_NEAR(g0->v[GPUDIAG_M_MEM_CLOCK_MHZ][0], 6250, 0);
    ASSERT_EQ_INT(s->skipped_rows, 0);
    gpudiag_series_free(&s);

    /* -o DT -d 2, mtemp and ECC '-' */
    s = read_log("nvsmi_dmon_pucet_DT_d2_1gpu_idle.log", GPUDIAG_LOG_DMON);
    g0 = gpu_by_index(s, 0);
    ASSERT_EQ_INT(g0->count, 3);
    ASSERT_EQ_INT(g0->t_us[1], 1609614753000000LL); /* 2021-01-02 19:12:33 */
    ASSERT_TRUE(g0->v[GPUDIAG_M_MEM_TEMP_C] == NULL);
    ASSERT_NEAR(g0->v[GPUDIAG_M_SM_CLOCK_MHZ][0], 582, 0);
    ASSERT_NEAR(g0->v[GPUDIAG_M_POWER_W][2], 39, 0);
    gpudiag_series_free(&s);

    /* collapsed single spaces, jpg/ofa */
    s = read_log("nvsmi_dmon_default_1gpu_jpg_ofa_single_space.log", GPUDIAG_LOG_AUTO);
    g0 = gpu_by_index(s, 0);
    ASSERT_EQ_INT(g0->count, 3);
    ASSERT_NEAR(g0->v[GPUDIAG_M_MEM_UTIL][0], 0.11, 1e-15);
    ASSERT_NEAR(g0->v[GPUDIAG_M_MEM_CLOCK_MHZ][1], 7001, 0);
    gpudiag_series_free(&s);

    /* 8 GPUs, `-s m` only: two intervals */
    s = read_log("nvsmi_dmon_m_8gpu_idle_ccpm.log", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpu_count, 8);
    ASSERT_EQ_INT(gpu_by_index(s, 7)->count, 2);
    ASSERT_NEAR(gpu_by_index(s, 7)->v[GPUDIAG_M_MEM_USED_BYTES][1], 4.0 * 1048576, 0);
    ASSERT_TRUE(gpu_by_index(s, 7)->v[GPUDIAG_M_GPU_UTIL] == NULL);
    gpudiag_series_free(&s);

    /* a banner line before the header (DCGM's Go dmon sample) */
    s = read_log("dcgm_go_dmon_sample_nvsmi_format_idle.log", GPUDIAG_LOG_AUTO);
    ASSERT_STR_EQ(s->format, "dmon");
    ASSERT_EQ_INT(gpu_by_index(s, 0)->count, 2);
    ASSERT_NEAR(gpu_by_index(s, 0)->v[GPUDIAG_M_SM_CLOCK_MHZ][1], 936, 0);
    gpudiag_series_free(&s);

    const char *others[] = {"nvsmi_dmon_pucvmet_1gpu_light_gtemp_mtemp.log",
                            "nvsmi_dmon_pucvmet_4gpu_training_old_header.log",
                            "nvsmi_dmon_pucvmet_c1_gpu1_encoder_busy.log"};
    for (size_t i = 0; i < 3; i++) {
        s = read_log(others[i], GPUDIAG_LOG_AUTO);
        ASSERT_EQ_INT(s->skipped_rows, 0);
        gpudiag_series_free(&s);
    }
    s = read_log("nvsmi_dmon_pucvmet_c1_gpu1_encoder_busy.log", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpus[0].index, 1);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_ENC_UTIL][0], 0.40, 1e-15);
    gpudiag_series_free(&s);
    s = read_log("nvsmi_dmon_pucvmet_4gpu_training_old_header.log", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpu_count, 4);
    ASSERT_NEAR(gpu_by_index(s, 3)->v[GPUDIAG_M_POWER_W][0], 86, 0);
    ASSERT_NEAR(gpu_by_index(s, 1)->v[GPUDIAG_M_TEMP_C][0], 84, 0);
    gpudiag_series_free(&s);
}

static double col_mean(const gpudiag_gpu_series *g, gpudiag_metric m)
{
    double sum = 0;
    for (size_t i = 0; i < g->count; i++)
        sum += g->v[m][i];
    return sum / (double)g->count;
}

static void test_smi_csv(void)
{
    /* units in values; awk: mean utilization.gpu 91.1176 % over 17 rows */
    gpudiag_series *s = read_log("nvsmi_query_csv_l5_v100_training_steady.csv", GPUDIAG_LOG_AUTO);
    ASSERT_STR_EQ(s->format, "smi-csv");
    ASSERT_EQ_INT(s->gpu_count, 1);
    const gpudiag_gpu_series *g = gpu_by_index(s, 0);
    ASSERT_EQ_INT(g->count, 17);
    ASSERT_NEAR(col_mean(g, GPUDIAG_M_GPU_UTIL), 1549.0 / 17 / 100, 1e-12);
    ASSERT_EQ_INT(g->t_us[0], 1605188891412000LL);
    ASSERT_NEAR(g->v[GPUDIAG_M_MEM_TOTAL_BYTES][0], 32480.0 * 1048576, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_MEM_USED_BYTES][16], 30994.0 * 1048576, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_MEM_UTIL][5], 0.33, 1e-15);
    gpudiag_series_free(&s);

    /* no index column, timestamps: one GPU; awk mean 45.625 % */
    s = read_log("nvsmi_query_csv_l1_inference_job_gaps.csv", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpu_count, 1);
    ASSERT_NEAR(col_mean(&s->gpus[0], GPUDIAG_M_GPU_UTIL), 0.45625, 1e-12);
    ASSERT_TRUE(s->gpus[0].v[GPUDIAG_M_MEM_USED_BYTES] == NULL);
    gpudiag_series_free(&s);

    /* -lms: pstate ignored, ~4 ms stamps; row 5 at 14:44:17.095 */
    s = read_log("nvsmi_query_csv_lms_pstate_idle_p8.csv", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpu_count, 1);
    ASSERT_EQ_INT(s->gpus[0].count, 5);
    ASSERT_EQ_INT(s->gpus[0].t_us[4], 1705416257095000LL);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_TEMP_C][2], 23, 0);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_MEM_USED_BYTES][1], 7.0 * 1048576, 0);
    gpudiag_series_free(&s);

    /* snapshot of two GPUs without index or timestamp: told apart by name;
     * clocks.gr came back as clocks.current.graphics = SM clock */
    s = read_log("nvsmi_query_csv_2gpu_power_clocks_snapshot.csv", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpu_count, 2);
    ASSERT_STR_EQ(s->gpus[0].name, "GeForce GTX 1080 Ti");
    ASSERT_STR_EQ(s->gpus[1].name, "GeForce GTX 1060 6GB");
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_POWER_W][0], 106.56, 1e-12);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_SM_CLOCK_MHZ][0], 1936, 0);
    ASSERT_NEAR(s->gpus[1].v[GPUDIAG_M_MEM_CLOCK_MHZ][0], 405, 0);
    ASSERT_NEAR(s->gpus[1].v[GPUDIAG_M_GPU_UTIL][0], 0, 0);
    gpudiag_series_free(&s);
}

static void test_dcgmi(void)
{
    /* `# EntityId` header, GPUTL in %, SMACT ratio; awk: mean GPUTL 88, SMACT 0.589 */
    gpudiag_series *s = read_log("dcgmi_dmon_triton_t4_resnet_1inst.log", GPUDIAG_LOG_AUTO);
    ASSERT_STR_EQ(s->format, "dcgmi");
    const gpudiag_gpu_series *g = gpu_by_index(s, 2);
    ASSERT_EQ_INT(g->count, 3);
    ASSERT_NEAR(col_mean(g, GPUDIAG_M_GPU_UTIL), 0.88, 1e-12);
    ASSERT_NEAR(col_mean(g, GPUDIAG_M_SM_ACTIVE), 0.589, 1e-12);
    ASSERT_NEAR(g->v[GPUDIAG_M_PCIE_RX_BPS][0], 2258816847.0, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_TENSOR_ACTIVE][2], 0.231, 1e-15);
    ASSERT_NEAR(g->v[GPUDIAG_M_MEM_UTIL][1], 0.50, 1e-15);
    ASSERT_EQ_INT(g->t_us[2], 2000000);
    gpudiag_series_free(&s);

    /* MIG group: GPU 0 + GPU-I 0 + GPU-I 1; awk: GPU-I 1 GRACT mean 0.825222 over 9 */
    s = read_log("dcgmi_dmon_e1001_1004_mig_group_gpu_and_gi.log", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpu_count, 3);
    ASSERT_EQ_INT(s->gpus[2].kind, GPUDIAG_ENTITY_GPU_I);
    ASSERT_EQ_INT(s->gpus[2].instance, 1);
    ASSERT_EQ_INT(s->gpus[2].count, 9);
    ASSERT_NEAR(col_mean(&s->gpus[2], GPUDIAG_M_GR_ENGINE_ACTIVE), 7.427 / 9, 1e-12);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_TENSOR_ACTIVE][2], 0.816, 1e-15);
    gpudiag_series_free(&s);

    /* old `# Entity` / `Id` header with indentation */
    s = read_log("dcgmi_dmon_e1001_1005_mig_training_on_one_gi.log", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpu_count, 3);
    ASSERT_NEAR(s->gpus[2].v[GPUDIAG_M_DRAM_ACTIVE][0], 0.800, 1e-15);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_SM_OCCUPANCY][0], 0.364, 1e-15);
    gpudiag_series_free(&s);

    s = read_log("dcgmi_dmon_e1001_1004_1005_a100_tensor_ramp.log", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpus[0].count, 15);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_TENSOR_ACTIVE][3], 0.527, 1e-15);
    gpudiag_series_free(&s);
    s = read_log("dcgmi_dmon_triton_t4_bert.log", GPUDIAG_LOG_AUTO);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_SM_ACTIVE][2], 0.995, 1e-15);
    gpudiag_series_free(&s);
}

static void test_prom(void)
{
    /* 8x A800, GPU 0 split into MIG instances 3, 5, 6 (grep GPU_I_ID): 7 GPUs + 3 GIs */
    gpudiag_series *s = read_log("dcgm_exporter_metrics_8xA800_mig_idle.prom", GPUDIAG_LOG_AUTO);
    ASSERT_STR_EQ(s->format, "prom");
    ASSERT_EQ_INT(s->gpu_count, 10);
    size_t mig = 0;
    for (size_t g = 0; g < s->gpu_count; g++) {
        ASSERT_EQ_INT(s->gpus[g].count, 1);
        ASSERT_STR_EQ(s->gpus[g].hostname, "gpu-node-01");
        if (s->gpus[g].kind == GPUDIAG_ENTITY_GPU_I) {
            mig++;
            ASSERT_STR_EQ(s->gpus[g].mig_profile, "2g.20gb");
            ASSERT_TRUE(s->gpus[g].v[GPUDIAG_M_GPU_UTIL] == NULL); /* no MIG rows for GPU_UTIL */
        }
    }
    ASSERT_EQ_INT(mig, 3);
    const gpudiag_gpu_series *g3 = gpu_by_index(s, 3);
    ASSERT_NEAR(g3->v[GPUDIAG_M_POWER_W][0], 56.99, 1e-12);
    ASSERT_NEAR(g3->v[GPUDIAG_M_SM_CLOCK_MHZ][0], 210, 0);
    ASSERT_STR_EQ(g3->name, "NVIDIA A800-SXM4-80GB");
    ASSERT_STR_EQ(g3->uuid, "GPU-5a5a0001-1003-2003-3003-abc000000003");
    gpudiag_series_free(&s);

    /* DCP metrics, pod labels; 2 GPUs */
    s = read_log("dcgm_exporter_metrics_2xT4_gke_pod_labels_prof.prom", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpu_count, 2);
    ASSERT_NEAR(s->gpus[1].v[GPUDIAG_M_SM_OCCUPANCY][0], 0, 0);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_TENSOR_ACTIVE][0], 0, 0);
    ASSERT_STR_EQ(s->gpus[0].hostname, "gke-node-a1");
    gpudiag_series_free(&s);

    /* excerpt without HELP/TYPE at the start; 4 GPUs, power limit 300 W */
    s = read_log("dcgm_exporter_metrics_4xV100_excerpt_no_pci_bus_id.prom", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpu_count, 4);
    ASSERT_NEAR(gpu_by_index(s, 2)->v[GPUDIAG_M_POWER_LIMIT_W][0], 300, 0);
    gpudiag_series_free(&s);

    /* lower-case hostname label, mixed GPUs: RTX 2000 Ada dec 46 %, enc 9 % */
    s = read_log("dcgm_exporter_metrics_lowercase_hostname_mixed_gpus_excerpt.prom", GPUDIAG_LOG_AUTO);
    const gpudiag_gpu_series *g1 = gpu_by_index(s, 1);
    ASSERT_NEAR(g1->v[GPUDIAG_M_DEC_UTIL][0], 0.46, 1e-15);
    ASSERT_NEAR(g1->v[GPUDIAG_M_ENC_UTIL][0], 0.09, 1e-15);
    ASSERT_STR_EQ(g1->hostname, "dcgm-exporter-abcde");
    ASSERT_STR_EQ(g1->bus_id, "00000000:B1:00.0");
    gpudiag_series_free(&s);

    /* 1.x compatibility names */
    s = read_log("dcgm_exporter_metrics_1x_compat_names_excerpt.prom", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpu_count, 1);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_POWER_W][0], 30.982, 1e-12);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_MEM_CLOCK_MHZ][0], 5000, 0);
    gpudiag_series_free(&s);

    s = read_log("dcgm_exporter_metrics_a30_mig_excerpt.prom", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpu_count, 5);
    gpudiag_series_free(&s);
    s = read_log("dcgm_exporter_metrics_l40s_pods_excerpt.prom", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpu_count, 3);
    gpudiag_series_free(&s);
}

static void test_smi_q(void)
{
    /* nvidia-smi -a of an idle A100: values read off the text */
    gpudiag_series *s = read_log("nvsmi_a_A100_SXM4_535_first_gpu_idle.txt", GPUDIAG_LOG_AUTO);
    ASSERT_STR_EQ(s->format, "smi-q");
    ASSERT_EQ_INT(s->time_source, GPUDIAG_TIME_SNAPSHOT);
    ASSERT_EQ_INT(s->gpu_count, 1);
    const gpudiag_gpu_series *g = &s->gpus[0];
    ASSERT_EQ_INT(g->count, 1);
    ASSERT_EQ_INT(g->t_us[0], 1704379273000000LL); /* Thu Jan  4 14:41:13 2024 */
    ASSERT_STR_EQ(g->name, "NVIDIA A100-SXM4-40GB");
    ASSERT_STR_EQ(g->uuid, "GPU-5a5a0009-1000-2000-3000-abc000000000");
    ASSERT_STR_EQ(g->bus_id, "00000000:2F:00.0");
    ASSERT_NEAR(g->v[GPUDIAG_M_PCIE_GEN][0], 4, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_PCIE_GEN_MAX][0], 4, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_PCIE_WIDTH][0], 16, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_MEM_TOTAL_BYTES][0], 40960.0 * 1048576, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_MEM_USED_BYTES][0], 4.0 * 1048576, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_CLOCK_REASONS][0], (double)GPUDIAG_REASON_GPU_IDLE, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_TEMP_C][0], 22, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_MEM_TEMP_C][0], 40, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_POWER_W][0], 52.12, 1e-12);
    ASSERT_NEAR(g->v[GPUDIAG_M_POWER_LIMIT_W][0], 400, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_SM_CLOCK_MHZ][0], 210, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_SM_CLOCK_MAX_MHZ][0], 1410, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_MEM_CLOCK_MHZ][0], 1215, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_GPU_UTIL][0], 0, 0);
    gpudiag_series_free(&s);

    s = read_log("nvsmi_q_clocks_event_reasons_sw_power_cap_active.txt", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->gpu_count, 1);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_CLOCK_REASONS][0], (double)GPUDIAG_REASON_SW_POWER_CAP, 0);
    gpudiag_series_free(&s);
    s = read_log("nvsmi_q_clocks_throttle_reasons_idle_old_naming.txt", GPUDIAG_LOG_AUTO);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_CLOCK_REASONS][0], (double)GPUDIAG_REASON_GPU_IDLE, 0);
    gpudiag_series_free(&s);
    /* excerpt starting inside PCI: width 16x/16x, Tx 1000 KB/s, Rx 10000 KB/s, FB 523/4046 MiB,
     * no reason active (two N/A) */
    s = read_log("nvsmi_q_p8_throttle_reasons_na_pcie_throughput_excerpt.txt", GPUDIAG_LOG_AUTO);
    g = &s->gpus[0];
    ASSERT_NEAR(g->v[GPUDIAG_M_PCIE_WIDTH_MAX][0], 16, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_PCIE_TX_BPS][0], 1e6, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_PCIE_RX_BPS][0], 1e7, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_MEM_USED_BYTES][0], 523.0 * 1048576, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_MEM_TOTAL_BYTES][0], 4046.0 * 1048576, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_CLOCK_REASONS][0], 0, 0);
    gpudiag_series_free(&s);
}

static gpudiag_series *read_text(const char *text, gpudiag_log_format f)
{
    char path[] = "/tmp/gd_series_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_TRUE(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs(text, fp);
    fclose(fp);
    gpudiag_series *s = NULL;
    gpudiag_error err;
    gpudiag_status st = gpudiag_series_read(path, f, &s, &err);
    remove(path);
    if (st != GPUDIAG_OK) {
        fprintf(stderr, "%s\n", err.message);
        abort();
    }
    return s;
}

static void test_dmon_variants(void)
{
    /* dmon --format csv: comma-separated header and rows */
    gpudiag_series *s = read_text("# gpu, pwr, gtemp, sm, mem\n# Idx, W, C, %, %\n0, 50, 40, 30, 10\n1, 60, 41, -, 11\n",
                                  GPUDIAG_LOG_AUTO);
    ASSERT_STR_EQ(s->format, "dmon");
    ASSERT_EQ_INT(s->gpu_count, 2);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_GPU_UTIL][0], 0.30, 1e-15);
    ASSERT_NEAR(s->gpus[1].v[GPUDIAG_M_POWER_W][0], 60, 0);
    ASSERT_TRUE(s->gpus[1].v[GPUDIAG_M_GPU_UTIL] == NULL); /* only "-": absent */
    gpudiag_series_free(&s);
    /* -o T only, passing midnight: 23:59:59 then 00:00:01 is 2 s later */
    s = read_text("#Time        gpu    sm\n#HH:MM:SS    Idx     %\n 23:59:59      0    10\n 00:00:01      0    20\n",
                  GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->time_source, GPUDIAG_TIME_ABSOLUTE);
    ASSERT_EQ_INT(s->gpus[0].t_us[1] - s->gpus[0].t_us[0], 2000000);
    gpudiag_series_free(&s);
    /* CRLF line ends and a units row repeated mid-file */
    s = read_text("# gpu sm\r\n# Idx %\r\n0 5\r\n# gpu sm\r\n# Idx %\r\n0 7\r\n", GPUDIAG_LOG_DMON);
    ASSERT_EQ_INT(s->gpus[0].count, 2);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_GPU_UTIL][1], 0.07, 1e-15);
    ASSERT_EQ_INT(s->skipped_rows, 0);
    gpudiag_series_free(&s);
}

/* dcgmi headers with numeric field ids (and tags beyond the profiling ones);
 * unknown ids/tags are ignored columns, named once (issue #4). */
static void test_dcgmi_ids(void)
{
    /* same text as tests/data/monlog/dcgmi_numeric_ids.log */
    gpudiag_series *s = read_text("#Entity   203    252    250    1002   1006   155    9999   FP32A\nID\n"
                                  "GPU 0     50     1024   16384  0.500  0.100  200.5  7      0.2\n"
                                  "GPU 0     150    2048   16384  0.600  0.100  210.0  7      0.2\n"
                                  "GPU 0     -5     -1     16384  0.700  0.100  nan    7      0.2\n"
                                  "GPU 1     60     N/A    N/A    0.400  0.100  100    7      0.2\n",
                                  GPUDIAG_LOG_AUTO);
    ASSERT_STR_EQ(s->format, "dcgmi");
    const gpudiag_gpu_series *g0 = gpu_by_index(s, 0), *g1 = gpu_by_index(s, 1);
    ASSERT_EQ_INT(g0->count, 3);
    ASSERT_NEAR(g0->v[GPUDIAG_M_GPU_UTIL][0], 0.50, 1e-15);          /* 203: % */
    ASSERT_NAN(g0->v[GPUDIAG_M_GPU_UTIL][1]);                         /* 150 %: out of range */
    ASSERT_NAN(g0->v[GPUDIAG_M_GPU_UTIL][2]);                         /* -5 % */
    ASSERT_NEAR(g0->v[GPUDIAG_M_MEM_USED_BYTES][1], 2048.0 * 1048576, 0); /* 252: MiB */
    ASSERT_NAN(g0->v[GPUDIAG_M_MEM_USED_BYTES][2]);                   /* -1 MiB */
    ASSERT_NEAR(g0->v[GPUDIAG_M_MEM_TOTAL_BYTES][0], 16384.0 * 1048576, 0);
    ASSERT_NEAR(g0->v[GPUDIAG_M_SM_ACTIVE][2], 0.70, 1e-15);          /* 1002 */
    ASSERT_NEAR(g0->v[GPUDIAG_M_POWER_W][0], 200.5, 0);               /* 155 */
    ASSERT_NAN(g0->v[GPUDIAG_M_POWER_W][2]);                          /* "nan" spelled out */
    ASSERT_NEAR(g1->v[GPUDIAG_M_SM_ACTIVE][0], 0.40, 1e-15);
    ASSERT_EQ_INT(s->invalid_values, 4);
    ASSERT_EQ_INT(s->first_invalid_line, 4);
    ASSERT_EQ_INT(s->skipped_rows, 0);
    ASSERT_STR_EQ(s->ignored_columns, "1006, 9999, FP32A");
    gpudiag_series_free(&s);
    /* tags: TMPTR, POWER, FBUSD + FBFRE (total = used + free), 157 instant power only as a fallback */
    s = read_text("# Entity  TMPTR  POWER  157  FBUSD  FBFRE\n      Id\n    GPU 3   61   250.0  999  1000   3000\n"
                  "    GPU 3   62   N/A    240  1000   3000\n",
                  GPUDIAG_LOG_DCGMI);
    const gpudiag_gpu_series *g = gpu_by_index(s, 3);
    ASSERT_NEAR(g->v[GPUDIAG_M_TEMP_C][1], 62, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_POWER_W][0], 250, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_POWER_W][1], 240, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_MEM_TOTAL_BYTES][0], 4000.0 * 1048576, 0);
    ASSERT_STR_EQ(s->ignored_columns, "");
    gpudiag_series_free(&s);
}

/* Out-of-range values, a header that changes mid-file, gzip (issue #4 item 6) */
static void test_input_checks(void)
{
    /* same text as tests/data/monlog/dmon_header_change_bad_values.log */
    const char *text = "# gpu    sm   mem    fb\n# Idx     %     %    MB\n    0    50    10  1000\n    0   120    10  1000\n"
                       "# gpu   pwr    sm\n# Idx     W     %\n    0   200    70\n    0   -10    80\n";
    gpudiag_series *s = read_text(text, GPUDIAG_LOG_AUTO);
    const gpudiag_gpu_series *g = &s->gpus[0];
    ASSERT_EQ_INT(g->count, 4);
    ASSERT_NAN(g->v[GPUDIAG_M_GPU_UTIL][1]);              /* 120 % */
    ASSERT_NEAR(g->v[GPUDIAG_M_GPU_UTIL][3], 0.80, 1e-15); /* re-mapped: sm is the 3rd column now */
    ASSERT_NEAR(g->v[GPUDIAG_M_POWER_W][2], 200, 0);
    ASSERT_NAN(g->v[GPUDIAG_M_POWER_W][3]);               /* -10 W */
    ASSERT_NAN(g->v[GPUDIAG_M_MEM_USED_BYTES][2]);        /* fb gone from the header */
    ASSERT_EQ_INT(s->invalid_values, 2);
    ASSERT_EQ_INT(s->first_invalid_line, 4);
    ASSERT_EQ_INT(s->header_changes, 1);
    ASSERT_EQ_INT(s->first_header_change_line, 5);
    gpudiag_series_free(&s);
    /* the same header repeated (dmon reprints it) is not a change */
    s = read_text("# gpu sm\n0 5\n#  gpu   sm\n0 7\n", GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(s->header_changes, 0);
    gpudiag_series_free(&s);
    /* gzip: sniffed and read like the plain file */
    char path[] = "/tmp/gd_series_gz_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_TRUE(fd >= 0);
    close(fd);
    gzFile z = gzopen(path, "wb");
    ASSERT_TRUE(z != NULL);
    gzputs(z, text);
    gzclose(z);
    gpudiag_error err;
    memset(&err, 0, sizeof err);
    s = NULL;
    ASSERT_EQ_INT(gpudiag_series_read(path, GPUDIAG_LOG_AUTO, &s, &err), GPUDIAG_OK);
    remove(path);
    ASSERT_STR_EQ(s->format, "dmon");
    ASSERT_EQ_INT(s->gpus[0].count, 4);
    ASSERT_EQ_INT(s->header_changes, 1);
    ASSERT_NEAR(s->gpus[0].v[GPUDIAG_M_GPU_UTIL][0], 0.50, 1e-15);
    gpudiag_series_free(&s);
}

static void test_live_csv(void)
{
    /* the header gpudiag run / watch --csv write (src/cli/live.c), one row written by hand:
     * GPM percents become fractions, MiB/s bytes/s, the reason mask is hex */
    gpudiag_series *s = read_text(
        "timestamp, index, uuid, name, utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
        "memory.total [MiB], memory.reserved [MiB], clocks.current.sm [MHz], clocks.max.sm [MHz], "
        "clocks.current.memory [MHz], clocks.max.memory [MHz], power.draw [W], enforced.power.limit [W], "
        "temperature.gpu, pcie.link.gen.current, pcie.link.gen.max, pcie.link.width.current, "
        "pcie.link.width.max, clocks_event_reasons.active, pcie.rx [MiB/s], pcie.tx [MiB/s], "
        "gpm.sm_active [%], gpm.sm_occupancy [%], gpm.tensor_active [%], gpm.dram_active [%], "
        "gpm.nvlink.rx [MiB/s], gpm.nvlink.tx [MiB/s]\n"
        "2026/12/02 01:00:00.250, 3, GPU-abc, NVIDIA H100, 97, 40, 60000, 81559, 500, 1755, 1980, 2619, 2619, "
        "650.5, 700.0, 71, 5, 5, 16, 16, 0x0000000000000004, 12.5, 3.0, 81.2, 40.0, 55.5, 30.0, [N/A], [N/A]\n",
        GPUDIAG_LOG_AUTO);
    ASSERT_STR_EQ(s->format, "smi-csv");
    const gpudiag_gpu_series *g = &s->gpus[0];
    ASSERT_EQ_INT(g->index, 3);
    ASSERT_STR_EQ(g->uuid, "GPU-abc");
    ASSERT_NEAR(g->v[GPUDIAG_M_SM_ACTIVE][0], 0.812, 1e-15);
    ASSERT_NEAR(g->v[GPUDIAG_M_TENSOR_ACTIVE][0], 0.555, 1e-15);
    ASSERT_NEAR(g->v[GPUDIAG_M_PCIE_RX_BPS][0], 12.5 * 1048576, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_CLOCK_REASONS][0], 4, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_SM_CLOCK_MAX_MHZ][0], 1980, 0);
    ASSERT_NEAR(g->v[GPUDIAG_M_POWER_LIMIT_W][0], 700, 0);
    ASSERT_TRUE(g->v[GPUDIAG_M_NVLINK_RX_BPS] == NULL);
    ASSERT_EQ_INT(g->t_us[0] % 1000000, 250000);
    gpudiag_series_free(&s);
}

/* The registration table (src/ingest/formats.h): the names and messages it
 * produces are the ones spelled out by hand before it existed, log ids run
 * 1..6 without gaps, and detection keeps the old precedence: the earliest
 * line wins; on one line prom > smi-q keyword and amd-smi header > CSV
 * header > smi-q guess from "Key : value" lines. */
static void test_format_table(void)
{
    char buf[512];
    ASSERT_STR_EQ(gd_format_list(buf, sizeof buf, 1, ", ", " or "),
                  "auto, kineto, nsys, dmon, smi-csv, dcgmi, prom, smi-q or amdsmi");
    ASSERT_STR_EQ(gd_format_list(buf, sizeof buf, 0, ", ", ", "), "dmon, smi-csv, dcgmi, prom, smi-q, amdsmi");
    ASSERT_STR_EQ(gd_format_whats(buf, sizeof buf), "nvidia-smi dmon, nvidia-smi --query-gpu CSV with its header, "
                                                    "dcgmi dmon, dcgm-exporter Prometheus text, nvidia-smi -q, "
                                                    "amd-smi monitor");
    ASSERT_STR_EQ(gd_format_list(buf, 12, 1, ", ", " or "), "auto, kinet");
    ASSERT_EQ_INT((int)gd_log_format_count(), 6);
    const char *names[] = {"auto", "dmon", "smi-csv", "dcgmi", "prom", "smi-q", "amdsmi"};
    for (int id = 1; id <= 6; id++) {
        const gd_input_format *f = gd_format_of_log((gpudiag_log_format)id);
        ASSERT_TRUE(f != NULL);
        ASSERT_EQ_INT(f->id, id);
        ASSERT_STR_EQ(f->name, names[id]);
        ASSERT_STR_EQ(gpudiag_log_format_name((gpudiag_log_format)id), names[id]);
        ASSERT_TRUE(gd_format_by_name(names[id]) == f);
    }
    /* every log row, in table order, has the next id: 1, 2, ... (CONTRIBUTING: a new row's
     * GPUDIAG_LOG_ value is appended), and a name of its own */
    int next = 1;
    for (size_t i = 0; i < gd_format_count; i++) {
        const gd_input_format *f = gd_formats[i];
        ASSERT_TRUE(gd_format_by_name(f->name) == f);
        if (f->kind != GD_FMT_LOG)
            continue;
        ASSERT_EQ_INT(f->id, next);
        ASSERT_TRUE(f->sniff != NULL && f->read != NULL && f->what != NULL);
        next++;
    }
    ASSERT_EQ_INT(next - 1, (int)gd_log_format_count());
    ASSERT_STR_EQ(gpudiag_log_format_name(GPUDIAG_LOG_AUTO), "auto");
    ASSERT_STR_EQ(gpudiag_log_format_name((gpudiag_log_format)7), "unknown");
    ASSERT_TRUE(gd_format_of_log(GPUDIAG_LOG_AUTO) == NULL);
    ASSERT_TRUE(gd_format_by_name("csv") == NULL);
    ASSERT_EQ_INT(gd_formats[GD_FORMAT_KINETO]->kind, GD_FMT_TRACE);
    ASSERT_STR_EQ(gd_formats[GD_FORMAT_NSYS]->name, "nsys");
    ASSERT_EQ_INT(gd_formats[GD_FORMAT_AUTO]->kind, GD_FMT_AUTO);
#define SNIFF(text) gpudiag_log_format_sniff(text, strlen(text))
    /* third "Key : value" line is also a CSV header line: the CSV clue wins */
    ASSERT_EQ_INT(SNIFF("    Driver Version : 1\n    Bus Id : 0\n    Timestamp : Thu, memory.used\n"),
                  GPUDIAG_LOG_SMI_CSV);
    /* the smi-q keyword beats a CSV header on the same line */
    ASSERT_EQ_INT(SNIFF("NVSMI LOG, memory.used\n"), GPUDIAG_LOG_SMI_Q);
    /* three indented "Key : value" lines before the CSV header: smi-q */
    ASSERT_EQ_INT(SNIFF("    Driver Version : 1\n    Bus Id : 0\n    Fan Speed : 30 %\n"
                        "timestamp, utilization.gpu [%]\n"),
                  GPUDIAG_LOG_SMI_Q);
    ASSERT_EQ_INT(SNIFF("\n  \n# Entity x\n# HELP y\n"), GPUDIAG_LOG_DCGMI);
    ASSERT_EQ_INT(SNIFF("# HELP y\n# Entity x\n"), GPUDIAG_LOG_PROM);
    ASSERT_EQ_INT(SNIFF("a, memory.used\nfoo 1\n"), GPUDIAG_LOG_SMI_CSV);
    /* a sample of a metric the reader maps beats a CSV clue on its line; a metric it does not map is
     * no evidence of a GPU log (DEFINITIONS "Reading": a Git LFS pointer's "size 48627712") */
    ASSERT_EQ_INT(SNIFF("DCGM_FI_DEV_GPU_UTIL{a=\"memory.,\"} 1\n"), GPUDIAG_LOG_PROM);
    ASSERT_EQ_INT(SNIFF("foo{a=\"memory.,\"} 1\n"), GPUDIAG_LOG_SMI_CSV);
    ASSERT_EQ_INT(SNIFF("#  gpu   sm\r\n"), GPUDIAG_LOG_DMON);
    /* "Serial Number : 1" is not a Prometheus sample (its value token must be a whole number, then at
     * most a timestamp): three "Key : value" lines are smi-q (this read as prom before 2026-12-03) */
    ASSERT_EQ_INT(SNIFF("    Serial Number : 1\n    Bus Id : 0\n    Fan Speed : 30 %\n"), GPUDIAG_LOG_SMI_Q);
    /* prose with a name, a blank and a number is not a sample: README's first output line */
    ASSERT_EQ_INT(SNIFF("gpudiag 0.1.0  examples/resnet50.json.gz  (kineto, 35.0 MB)\n"), GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(SNIFF("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 37 1700000000000\n"), GPUDIAG_LOG_PROM);
    ASSERT_EQ_INT(SNIFF("DCGM_FI_DEV_SM_CLOCK NaN\n"), GPUDIAG_LOG_PROM);
    ASSERT_EQ_INT(SNIFF("up NaN\n"), GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(SNIFF("version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 48627712\n"), GPUDIAG_LOG_AUTO);
    ASSERT_EQ_INT(SNIFF("hello\nworld\n"), GPUDIAG_LOG_AUTO);
    /* amd-smi monitor: its text header after the version banner, its CSV header (a keyword clue:
     * "timestamp,gpu,..." is amd-smi's, not a --query-gpu CSV); ROCm's rocm-smi table is not it */
    ASSERT_EQ_INT(SNIFF("AMDSMI Tool: 24.6.2 | ROCm version: 6.2.2\nGPU  POWER  GPU_TEMP  GFX_UTIL\n"),
                  GPUDIAG_LOG_AMDSMI);
    ASSERT_EQ_INT(SNIFF("timestamp,gpu,power_usage,gfx\n1,0,500,90\n"), GPUDIAG_LOG_AMDSMI);
    ASSERT_EQ_INT(SNIFF("GPU  Temp   AvgPwr  SCLK    MCLK     Fan  Perf  PwrCap  VRAM%  GPU%\n"), GPUDIAG_LOG_AUTO);
#undef SNIFF
}

int main(void)
{
    /* most checks read the shared logs (../shared/data/logs): without them
     * the test is skipped, as README says, rather than failed */
    if (access(GD_SHARED_LOGS, R_OK) != 0) {
        printf("skip: %s not found\n", GD_SHARED_LOGS);
        return 77;
    }
    test_format_table();
    test_model();
    test_arena();
    test_quantiles();
    test_values();
    test_dmon();
    test_smi_csv();
    test_dcgmi();
    test_prom();
    test_smi_q();
    test_dmon_variants();
    test_live_csv();
    test_dcgmi_ids();
    test_input_checks();
    printf("test_series: %d checks passed\n", gd_test_count);
    return 0;
}
