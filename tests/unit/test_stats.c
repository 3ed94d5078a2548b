/* Step-time statistics and kernel classification. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/analyze.h"
#include "analyze/kclass.h"
#include "test.h"
#include "util/util.h"

static int tc(const char *n) { return gd_kernel_uses_tensor_cores(n, strlen(n)); }
static gpudiag_kernel_class cls(const char *n) { return gd_kernel_class(n, strlen(n)); }

static int cmp_key_pos(const void *pa, const void *pb)
{
    const int64_t *a = pa, *b = pb;
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* The oracle for gd_find_i64: the first record whose key equals key, by a scan. */
static size_t find_scan(const int64_t *rec, size_t n, int64_t key)
{
    for (size_t i = 0; i < n; i++)
        if (rec[2 * i] == key)
            return i;
    return n;
}

static uint64_t lcg_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}

/* gd_find_i64 (interpolated and bisecting steps): records of 16 bytes, the
 * key first.  By hand: keys -5 3 3 3 7 10 11 12 1000 INT64_MAX at 0..9. */
static void test_find_i64(void)
{
    int64_t r[20] = {-5, 0, 3, 1, 3, 2, 3, 3, 7, 4, 10, 5, 11, 6, 12, 7, 1000, 8, INT64_MAX, 9};
    const size_t n = 10, sz = 2 * sizeof(int64_t);
    ASSERT_EQ_INT((int)gd_find_i64(r, n, sz, 3), 1); /* the first of three */
    ASSERT_EQ_INT((int)gd_find_i64(r, n, sz, -5), 0);
    ASSERT_EQ_INT((int)gd_find_i64(r, n, sz, 12), 7);
    ASSERT_EQ_INT((int)gd_find_i64(r, n, sz, 1000), 8);
    ASSERT_EQ_INT((int)gd_find_i64(r, n, sz, INT64_MAX), 9);
    ASSERT_EQ_INT((int)gd_find_i64(r, n, sz, 4), 10);        /* absent, between */
    ASSERT_EQ_INT((int)gd_find_i64(r, n, sz, 999), 10);
    ASSERT_EQ_INT((int)gd_find_i64(r, n, sz, INT64_MIN), 10); /* below all */
    ASSERT_EQ_INT((int)gd_find_i64(r, n, sz, -6), 10);
    ASSERT_EQ_INT((int)gd_find_i64(r, 0, sz, 3), 0);         /* empty */
    ASSERT_EQ_INT((int)gd_find_i64(r + 2, 1, sz, 3), 0);     /* one record */
    ASSERT_EQ_INT((int)gd_find_i64(r + 2, 1, sz, 2), 1);
    /* keys 2i for i < 5000: 2i is at i, an odd key is absent */
    enum { M = 5000 };
    int64_t *d = malloc(2 * M * sizeof *d);
    ASSERT_TRUE(d != NULL);
    for (size_t i = 0; i < M; i++) {
        d[2 * i] = 2 * (int64_t)i;
        d[2 * i + 1] = (int64_t)i;
    }
    ASSERT_EQ_INT((int)gd_find_i64(d, M, sz, 2 * 1234), 1234);
    ASSERT_EQ_INT((int)gd_find_i64(d, M, sz, 2 * 4999), 4999);
    ASSERT_EQ_INT((int)gd_find_i64(d, M, sz, 2 * 1234 + 1), M);
    ASSERT_EQ_INT((int)gd_find_i64(d, M, sz, 2 * M), M);
    /* skewed, clustered and repeated keys, huge ones whose differences round
     * alike in double: every lookup (present, absent, at the ends) as a scan finds */
    uint64_t seed = 24;
    for (int round = 0; round < 40; round++) {
        size_t m = 1 + (size_t)(lcg_next(&seed) % M);
        int64_t k = round % 4 == 3 ? INT64_MAX - 4 * (int64_t)M : (int64_t)(lcg_next(&seed) % 1000) - 500;
        for (size_t i = 0; i < m; i++) {
            uint64_t x = lcg_next(&seed);
            int64_t step = round % 4 == 0 ? (int64_t)(x % 2)                         /* runs of repeats */
                           : round % 4 == 1 ? (x % 64 == 0 ? (int64_t)(x % 1000000) : 1) /* jumps */
                           : round % 4 == 2 ? (int64_t)(x % 3) * (int64_t)(x % 3)      /* uneven */
                                            : (int64_t)(x % 3);                       /* near INT64_MAX */
            k += step;
            d[2 * i] = k;
            d[2 * i + 1] = (int64_t)i;
        }
        for (int q = 0; q < 300; q++) {
            int64_t key = q < 100 ? d[2 * (lcg_next(&seed) % m)]
                          : q < 200 ? d[2 * (lcg_next(&seed) % m)] + 1
                          : d[0] + (int64_t)(lcg_next(&seed) % (uint64_t)(d[2 * (m - 1)] - d[0] + 3)) - 1;
            ASSERT_EQ_INT((int)gd_find_i64(d, m, sz, key), (int)find_scan(d, m, key));
        }
    }
    free(d);
}

/* gd_sort_doubles against qsort with gd_cmp_double (its definition), bit for
 * bit: 6000 values of mixed sign, magnitude and repeats (the radix path), a
 * small array, and arrays holding a NaN or a -0.0 (the qsort path). */
static void test_sort_doubles(void)
{
    enum { N = 6000 };
    static double a[N], b[N];
    uint64_t x = 88172645463325252ull; /* xorshift64: the same values every run */
    for (int i = 0; i < N; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double m = (double)(x % 1000003) / 7.0;
        a[i] = (i % 5 == 0 ? -m : m) * (i % 3 == 0 ? 1e-6 : i % 3 == 1 ? 1.0 : 1e9);
        if (i % 17 == 0)
            a[i] = 0.0;
        if (i % 23 == 0)
            a[i] = 42.5; /* repeats */
    }
    a[100] = INFINITY;
    a[200] = -INFINITY;
    memcpy(b, a, sizeof a);
    gd_sort_doubles(a, N);
    qsort(b, N, sizeof *b, gd_cmp_double);
    ASSERT_TRUE(memcmp(a, b, sizeof a) == 0);
    ASSERT_TRUE(a[0] == -INFINITY && a[N - 1] == INFINITY);
    /* small: qsort itself */
    double s[5] = {3, -1, 2.5, 0, -7};
    gd_sort_doubles(s, 5);
    ASSERT_TRUE(s[0] == -7 && s[1] == -1 && s[2] == 0 && s[3] == 2.5 && s[4] == 3);
    /* a -0.0 among zeros keeps qsort's (stable) order: sort a copy both ways */
    for (int i = 0; i < N; i++)
        a[i] = (double)(N - i);
    a[10] = -0.0;
    a[11] = 0.0;
    memcpy(b, a, sizeof a);
    gd_sort_doubles(a, N);
    qsort(b, N, sizeof *b, gd_cmp_double);
    ASSERT_TRUE(memcmp(a, b, sizeof a) == 0);
    ASSERT_TRUE(signbit(a[0]) && a[1] == 0.0 && !signbit(a[1]) && a[2] == 1.0);
    /* a NaN: left to qsort, the values unchanged as a set (no key left behind) */
    for (int i = 0; i < N; i++)
        a[i] = (double)(i % 97);
    a[3000] = NAN;
    gd_sort_doubles(a, N);
    double sum = 0;
    int nans = 0;
    for (int i = 0; i < N; i++) {
        if (isnan(a[i]))
            nans++;
        else
            sum += a[i];
    }
    /* 0..96 repeated: sum over i of i % 97, less the 3000th value (3000 % 97 = 90) */
    double want = 0;
    for (int i = 0; i < N; i++)
        want += (double)(i % 97);
    ASSERT_EQ_INT(nans, 1);
    ASSERT_TRUE(sum == want - 90);
}

/* The map registry a SIGBUS handler reads (gd_map_find): an address inside a
 * registered range gives its file and offset, one outside or after the
 * unregister none. */
static void test_map_registry(void)
{
    static char area[4096];
    const char *path = NULL;
    uint64_t off = 0;
    int h = gd_map_register("trace.json", area + 1000, 2000);
    ASSERT_TRUE(h >= 0);
    ASSERT_EQ_INT(gd_map_find(area + 1000 + 1234, &path, &off), 1);
    ASSERT_STR_EQ(path, "trace.json");
    ASSERT_TRUE(off == 1234);
    ASSERT_EQ_INT(gd_map_find(area + 999, &path, &off), 0);
    ASSERT_EQ_INT(gd_map_find(area + 3000, &path, &off), 0); /* one past the end */
    int h2 = gd_map_register("other.json", area, 500);
    ASSERT_TRUE(h2 >= 0 && h2 != h);
    ASSERT_EQ_INT(gd_map_find(area + 10, &path, &off), 1);
    ASSERT_STR_EQ(path, "other.json");
    gd_map_unregister(h);
    ASSERT_EQ_INT(gd_map_find(area + 1000 + 1234, &path, &off), 0);
    gd_map_unregister(h2);
    gd_map_unregister(-1); /* a failed registration's handle */
}

int main(void)
{
    test_sort_doubles();
    test_map_registry();
    test_find_i64();
    /* durations for people (gd_format_us): 3 significant figures under 1 s, by hand — 6630 us is
     * 6.63 ms (was "0.01 s" in startup_in_window), 66.3 ms, 618.35 ms -> 618 ms, 999.6 ms rounds
     * to 1.00 s, 999.6 us to 1.00 ms, 9.996 ms to 10.0 ms, 6.8 us -> 6.80 us, 538.5 -> 538 us
     * (half to even in binary), 0.5 us -> 0.500 us, 0 -> 0 us, 2.5 s -> 2.50 s */
    {
        char b[32];
        ASSERT_STR_EQ(gd_format_us(b, sizeof b, 6630, "us"), "6.63 ms");
        ASSERT_STR_EQ(gd_format_us(b, sizeof b, 66300, "us"), "66.3 ms");
        ASSERT_STR_EQ(gd_format_us(b, sizeof b, 618350, "us"), "618 ms");
        ASSERT_STR_EQ(gd_format_us(b, sizeof b, 999600, "us"), "1.00 s");
        ASSERT_STR_EQ(gd_format_us(b, sizeof b, 999.6, "us"), "1.00 ms");
        ASSERT_STR_EQ(gd_format_us(b, sizeof b, 9996, "us"), "10.0 ms");
        ASSERT_STR_EQ(gd_format_us(b, sizeof b, 6.8, "us"), "6.80 us");
        ASSERT_STR_EQ(gd_format_us(b, sizeof b, 538.5, "us"), "538 us");
        ASSERT_STR_EQ(gd_format_us(b, sizeof b, 0.5, "us"), "0.500 us");
        ASSERT_STR_EQ(gd_format_us(b, sizeof b, 0, "us"), "0 us");
        ASSERT_STR_EQ(gd_format_us(b, sizeof b, 2.5e6, "us"), "2.50 s");
        ASSERT_STR_EQ(gd_format_us(b, sizeof b, 150, "\xC2\xB5s"), "150 \xC2\xB5s");
        ASSERT_STR_EQ(gd_format_us(b, sizeof b, NAN, "us"), "n/a");
    }
    /* other numbers for people (gd_format_sig3), by hand: 2113.4 has 4 whole digits, all kept ->
     * "2113" (was "2.11e+03" with %.3g); 279 -> "279"; 99.96 rounds to 100 -> "100"; 12.34 -> 3
     * figures "12.3"; 1.5 -> "1.50" less its zero "1.5"; 0.25 -> "0.250" -> "0.25"; 0.000123 ->
     * "0.000123" (was "0.000123" too); 9.996 -> 3 figures would be "10.0" -> "10"; -1.5 -> "-1.5";
     * 0 -> "0"; 1e7 -> "10000000" (was "1e+07"); NaN -> "n/a" */
    {
        char b[32];
        ASSERT_STR_EQ(gd_format_sig3(b, sizeof b, 2113.4), "2113");
        ASSERT_STR_EQ(gd_format_sig3(b, sizeof b, 279), "279");
        ASSERT_STR_EQ(gd_format_sig3(b, sizeof b, 99.96), "100");
        ASSERT_STR_EQ(gd_format_sig3(b, sizeof b, 12.34), "12.3");
        ASSERT_STR_EQ(gd_format_sig3(b, sizeof b, 1.5), "1.5");
        ASSERT_STR_EQ(gd_format_sig3(b, sizeof b, 0.25), "0.25");
        ASSERT_STR_EQ(gd_format_sig3(b, sizeof b, 0.000123), "0.000123");
        ASSERT_STR_EQ(gd_format_sig3(b, sizeof b, 9.996), "10");
        ASSERT_STR_EQ(gd_format_sig3(b, sizeof b, -1.5), "-1.5");
        ASSERT_STR_EQ(gd_format_sig3(b, sizeof b, 0), "0");
        ASSERT_STR_EQ(gd_format_sig3(b, sizeof b, 1e7), "10000000");
        ASSERT_STR_EQ(gd_format_sig3(b, sizeof b, NAN), "n/a");
    }
    /* 10, 20, 30, 40: mean 25, median 25, p90 = 30 + 0.7*10 = 37 (linear,
     * position 0.9*3 = 2.7), population stddev sqrt(125) */
    double v[] = {40, 10, 30, 20};
    gpudiag_stats_us s;
    gd_stats_compute(v, 4, &s);
    ASSERT_NEAR(s.mean, 25.0, 1e-12);
    ASSERT_NEAR(s.median, 25.0, 1e-12);
    ASSERT_NEAR(s.p90, 37.0, 1e-12);
    ASSERT_NEAR(s.min, 10.0, 0);
    ASSERT_NEAR(s.max, 40.0, 0);
    ASSERT_NEAR(s.stddev, sqrt(125.0), 1e-12);
    ASSERT_NEAR(v[0], 40.0, 0); /* input untouched */
    gd_stats_compute(v, 0, &s);
    ASSERT_NAN(s.mean);
    ASSERT_NAN(s.p90);
    /* the shared quantile of a sorted array (util.h), by hand: positions q × 3 over
     * 10, 20, 30, 40 are 2.7 -> 30 + 0.7 × 10 = 37, 1.5 -> 25, 0 -> 10, 3 -> 40;
     * over 1, 2 the 0.25 quantile is 1.25; none of an empty array; one value is itself */
    const double sorted4[] = {10, 20, 30, 40}, two[] = {1, 2}, seven[] = {7};
    ASSERT_NEAR(gd_quantile_sorted(sorted4, 4, 0.9), 37.0, 1e-12);
    ASSERT_NEAR(gd_quantile_sorted(sorted4, 4, 0.5), 25.0, 0);
    ASSERT_NEAR(gd_quantile_sorted(sorted4, 4, 0.0), 10.0, 0);
    ASSERT_NEAR(gd_quantile_sorted(sorted4, 4, 1.0), 40.0, 0);
    ASSERT_NEAR(gd_quantile_sorted(two, 2, 0.25), 1.25, 0);
    ASSERT_NAN(gd_quantile_sorted(sorted4, 0, 0.5));
    ASSERT_NEAR(gd_quantile_sorted(seven, 1, 0.3), 7.0, 0);
    /* the same numbers, bit for bit, as gd_quantiles' selection over 1000 shuffled values */
    {
        enum { N = 1000 };
        double a[N], b[N];
        uint32_t x = 12345;
        for (int i = 0; i < N; i++) {
            x = x * 1103515245u + 12345u;
            a[i] = b[i] = (double)(x >> 8) / 3.0;
        }
        qsort(a, N, sizeof *a, gd_cmp_double);
        const double qs[] = {0.025, 0.1, 0.5, 0.9, 0.975};
        double out[5];
        gd_quantiles(b, N, qs, 5, out);
        for (int k = 0; k < 5; k++)
            ASSERT_TRUE(gd_quantile_sorted(a, N, qs[k]) == out[k]);
    }
    /* gd_cmp_i64 orders the extremes too (a subtraction would overflow) */
    {
        int64_t w[] = {3, INT64_MIN, INT64_MAX, -1, 0, 3};
        qsort(w, 6, sizeof *w, gd_cmp_i64);
        const int64_t want[] = {INT64_MIN, -1, 0, 3, 3, INT64_MAX};
        for (int k = 0; k < 6; k++)
            ASSERT_TRUE(w[k] == want[k]);
        ASSERT_EQ_INT(gd_cmp_i64(&w[3], &w[4]), 0);
        ASSERT_EQ_INT(gd_cmp_i64(&w[0], &w[5]), -1);
        ASSERT_EQ_INT(gd_cmp_i64(&w[5], &w[0]), 1);
    }
    /* exact ns as µs, by hand: floor division with a non-negative remainder */
    {
        const int64_t ns[] = {0, 1500, -1500, -500, -2000, 999, 1700000000123456789LL, INT64_MIN};
        const char *want[] = {"0.000", "1.500", "-1.500", "-0.500", "-2.000", "0.999",
                              "1700000000123456.789", "-9223372036854775.808"};
        for (int k = 0; k < 8; k++) {
            char b[GD_NS_AS_US_LEN];
            gd_format_ns_as_us(ns[k], b);
            ASSERT_STR_EQ(b, want[k]);
        }
    }
    /* the shared clocks: the wall clock is Unix time (within a second of time()),
     * the monotonic one never goes back */
    {
        double before = (double)time(NULL), w = gd_wall_s(), after = (double)time(NULL);
        ASSERT_TRUE(w >= before - 1 && w <= after + 1);
        double m0 = gd_mono_s(), m1 = gd_mono_s();
        ASSERT_TRUE(m0 > 0 && m1 >= m0);
    }
    double one[] = {7};
    gd_stats_compute(one, 1, &s);
    ASSERT_NEAR(s.p90, 7.0, 0);
    ASSERT_NEAR(s.stddev, 0.0, 0);

    /* Tensor Core patterns: TBP's list and newer names */
    ASSERT_TRUE(tc("volta_h884gemm_64x64_ldg8_nn"));
    ASSERT_TRUE(tc("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn"));
    ASSERT_TRUE(tc("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1"));
    ASSERT_TRUE(tc("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(Params)"));
    ASSERT_TRUE(!tc("volta_sgemm_64x64_nt"));
    ASSERT_TRUE(!tc("volta_scudnn_128x64_relu_medium_nn_v1"));
    ASSERT_TRUE(!tc("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >"));

    /* classes */
    ASSERT_EQ_INT(cls("volta_sgemm_64x64_nt"), GPUDIAG_KCLASS_GEMM);
    ASSERT_EQ_INT(cls("void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>"), GPUDIAG_KCLASS_CONV);
    ASSERT_EQ_INT(cls("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>"), GPUDIAG_KCLASS_NORM);
    ASSERT_EQ_INT(cls("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
                  GPUDIAG_KCLASS_COMMUNICATION);
    ASSERT_EQ_INT(cls("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4> >"), GPUDIAG_KCLASS_ATTENTION);
    ASSERT_EQ_INT(cls("Memcpy HtoD (Pageable -> Device)"), GPUDIAG_KCLASS_MEMORY);
    ASSERT_EQ_INT(cls("Cijk_Ailk_Bljk_SB_MT64x64x16_SN_1LDSB0_APM1_ABV0"), GPUDIAG_KCLASS_GEMM); /* rocBLAS/Tensile */
    ASSERT_TRUE(gd_kernel_is_comm("ncclKernel_AllReduce_RING_LL_Sum_float", 38));
    ASSERT_TRUE(!gd_kernel_is_compute("ncclKernel_AllReduce_RING_LL_Sum_float", 38));
    ASSERT_TRUE(gd_kernel_is_compute("volta_sgemm_64x64_nt", 20));
    /* radix sort: stable, signed order, already-sorted fast path */
    struct rec { int64_t k; int64_t tag; } recs[100];
    for (int i = 0; i < 100; i++) {
        recs[i].k = (int64_t)((i * 37) % 10) - 5; /* -5..4, each value 10 times */
        recs[i].tag = i;
    }
    ASSERT_EQ_INT(gd_radix_sort_i64(recs, 100, sizeof recs[0], 0), 0);
    for (int i = 1; i < 100; i++) {
        ASSERT_TRUE(recs[i - 1].k <= recs[i].k);
        if (recs[i - 1].k == recs[i].k)
            ASSERT_TRUE(recs[i - 1].tag < recs[i].tag); /* stable */
    }
    ASSERT_EQ_INT(recs[0].k, -5);
    /* many records, keys spanning ~2^41 around zero (several 11-bit digit
     * passes, one of them the same in every key), for each record size the
     * sort copies specially (8, 16, 24, 32) and one it does not (40): the
     * result equals a qsort by (key, input position) */
    {
        enum { NR = 5000 };
        static int64_t buf[NR * 5], ref[NR * 5];
        const size_t words[] = {1, 2, 3, 4, 5};
        for (size_t wi = 0; wi < 5; wi++) {
            size_t w = words[wi];
            uint64_t x = 0x9E3779B97F4A7C15ull;
            for (size_t i = 0; i < NR; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                int64_t k = (int64_t)(x % (1ull << 41)) - (int64_t)(1ull << 40);
                k &= ~(int64_t)0x3ff800; /* bits 11..21 zero in every key: a pass to skip */
                if (i % 7 == 0 && i)
                    k = buf[(i - 1) * w]; /* ties */
                buf[i * w] = k;
                for (size_t j = 1; j < w; j++)
                    buf[i * w + j] = (int64_t)(i * 10 + j);
            }
            for (size_t i = 0; i < NR; i++) { /* reference: (key, position) pairs */
                ref[2 * i] = buf[i * w];
                ref[2 * i + 1] = (int64_t)i;
            }
            qsort(ref, NR, 2 * sizeof(int64_t), cmp_key_pos);
            ASSERT_EQ_INT(gd_radix_sort_i64(buf, NR, w * sizeof(int64_t), 0), 0);
            for (size_t i = 0; i < NR; i++) {
                ASSERT_TRUE(buf[i * w] == ref[2 * i]);
                if (w > 1)
                    ASSERT_TRUE(buf[i * w + 1] == ref[2 * i + 1] * 10 + 1); /* the record moved whole */
                if (w > 4)
                    ASSERT_TRUE(buf[i * w + 4] == ref[2 * i + 1] * 10 + 4);
            }
        }
    }
    /* gd_topk_push: the 10 records that sort first out of 3000 with many
     * ties (key 0..49, then position) equal the first 10 of a full sort */
    {
        enum { NT = 3000, K = 10 };
        static int64_t all[NT * 2], heap[K * 2];
        size_t nh = 0;
        uint64_t x = 12345;
        for (size_t i = 0; i < NT; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            all[2 * i] = (int64_t)(x % 50);
            all[2 * i + 1] = (int64_t)i;
            gd_topk_push(heap, &nh, K, 2 * sizeof(int64_t), &all[2 * i], cmp_key_pos);
        }
        ASSERT_EQ_INT(nh, K);
        qsort(all, NT, 2 * sizeof(int64_t), cmp_key_pos);
        qsort(heap, K, 2 * sizeof(int64_t), cmp_key_pos);
        for (size_t i = 0; i < 2 * K; i++)
            ASSERT_TRUE(heap[i] == all[i]);
        nh = 0;
        gd_topk_push(heap, &nh, 0, 2 * sizeof(int64_t), &all[0], cmp_key_pos); /* max 0 keeps nothing */
        ASSERT_EQ_INT(nh, 0);
    }
    int64_t big[3] = {INT64_MAX, INT64_MIN, 0};
    ASSERT_EQ_INT(gd_radix_sort_i64(big, 3, sizeof big[0], 0), 0);
    ASSERT_EQ_INT(big[0], INT64_MIN);
    ASSERT_EQ_INT(big[2], INT64_MAX);

    /* UTF-8 cleaning and cutting */
    char *c = gd_utf8_clean("ok \xc3\xa9 \xff\xfe \xe2\x82", 11);
    ASSERT_STR_EQ(c, "ok \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd");
    free(c);
    c = gd_utf8_clean("\xc0\xaf", 2); /* overlong '/' */
    ASSERT_STR_EQ(c, "\xef\xbf\xbd\xef\xbf\xbd");
    free(c);
    ASSERT_EQ_INT(gd_utf8_prefix("ab\xe2\x82\xac", 4), 2); /* never ends inside the euro sign */
    ASSERT_EQ_INT(gd_utf8_prefix("ab\xe2\x82\xac", 5), 5);
    ASSERT_EQ_INT(gd_utf8_prefix("abc", 10), 3);
    TEST_DONE("test_stats");
}
