/* Interval-set algebra, checked against hand-computed sets. */
#include <stdlib.h>

#include "analyze/intervals.h"
#include "test.h"
#include "util/util.h"

/* gd_iv_push compacts as it goes; merging what it kept must give exactly the
 * merge of every interval pushed, checked against coverage counted point by
 * point on a small integer domain. */
static void test_push_compaction(void)
{
    enum { N = 200000, DOMAIN = 400000 };
    gd_vec v;
    gd_vec_init(&v, sizeof(gd_iv));
    unsigned char *cov = calloc(DOMAIN + 64, 1);
    ASSERT_TRUE(cov != NULL);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        /* mostly in order with a jitter of up to 4000 back, lengths 0..15 */
        int64_t s = (int64_t)(i * 2) - (int64_t)(x % 4000);
        if (s < 0)
            s = 0;
        int64_t e = s + (int64_t)((x >> 20) % 16);
        ASSERT_EQ_INT(gd_iv_push(&v, s, e), 0);
        for (int64_t p = s; p < e; p++)
            cov[p] = 1;
    }
    ASSERT_TRUE(v.cap < N); /* it did not keep every interval */
    size_t n = gd_iv_merge(v.data, v.len);
    const gd_iv *m = v.data;
    /* the merged set covers exactly the covered points, as maximal runs */
    int64_t covered = 0;
    for (size_t p = 0; p < DOMAIN + 64; p++)
        covered += cov[p];
    ASSERT_EQ_INT(gd_iv_sum(m, n), covered);
    for (size_t i = 0; i < n; i++) {
        ASSERT_TRUE(m[i].s <= m[i].e);
        if (i)
            ASSERT_TRUE(m[i].s > m[i - 1].e); /* disjoint, not touching */
        for (int64_t p = m[i].s; p < m[i].e; p++)
            ASSERT_EQ_INT(cov[p], 1);
    }
    /* tail joins: contained, touching and overlapping intervals add nothing */
    gd_vec w;
    gd_vec_init(&w, sizeof(gd_iv));
    ASSERT_EQ_INT(gd_iv_push(&w, 10, 20), 0);
    ASSERT_EQ_INT(gd_iv_push(&w, 12, 15), 0);
    ASSERT_EQ_INT(gd_iv_push(&w, 20, 25), 0);
    ASSERT_EQ_INT(gd_iv_push(&w, 22, 30), 0);
    ASSERT_EQ_INT(w.len, 1);
    ASSERT_EQ_INT(((gd_iv *)w.data)[0].e, 30);
    ASSERT_EQ_INT(gd_iv_push(&w, 5, 8), 0); /* out of order: kept for the merge */
    ASSERT_EQ_INT(w.len, 2);
    gd_vec_free(&w);
    gd_vec_free(&v);
    free(cov);
}

/* The host-activity pattern: disjoint intervals over the whole domain, then a
 * second pass from the start again whose intervals overlap the first (the
 * merged run + unsorted tail that gd_iv_merge joins linearly).  Checked
 * against coverage counted point by point. */
static void test_push_two_passes(void)
{
    enum { DOMAIN = 300000 };
    gd_vec v;
    gd_vec_init(&v, sizeof(gd_iv));
    unsigned char *cov = calloc(DOMAIN + 64, 1);
    ASSERT_TRUE(cov != NULL);
    for (int64_t s = 0; s < DOMAIN; s += 10) { /* [s, s+4): 30,000 disjoint */
        ASSERT_EQ_INT(gd_iv_push(&v, s, s + 4), 0);
        for (int64_t p = s; p < s + 4; p++)
            cov[p] = 1;
    }
    uint64_t x = 2463534242ull;
    for (int64_t s = 3; s < DOMAIN; s += 7) { /* second pass, lengths 1..6, jittered */
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        int64_t b = s + (int64_t)(x % 5), e = b + 1 + (int64_t)((x >> 8) % 6);
        ASSERT_EQ_INT(gd_iv_push(&v, b, e), 0);
        for (int64_t p = b; p < e; p++)
            cov[p] = 1;
    }
    size_t n = gd_iv_merge(v.data, v.len);
    const gd_iv *m = v.data;
    int64_t covered = 0;
    for (size_t p = 0; p < DOMAIN + 64; p++)
        covered += cov[p];
    ASSERT_EQ_INT(gd_iv_sum(m, n), covered);
    size_t runs = 0;
    for (size_t p = 0; p < DOMAIN + 64; p++)
        runs += cov[p] && (p == 0 || !cov[p - 1]);
    ASSERT_EQ_INT(n, runs); /* maximal runs, as counted */
    for (size_t i = 0; i < n; i++) {
        if (i)
            ASSERT_TRUE(m[i].s > m[i - 1].e);
        for (int64_t p = m[i].s; p < m[i].e; p++)
            ASSERT_EQ_INT(cov[p], 1);
    }
    /* a merged run followed by a short unsorted tail, merged directly:
     * run [0,2) [4,6) ... [36,38); tail [1,5) [30,41) [50,51) [2,3) */
    gd_iv a[24];
    for (int i = 0; i < 10; i++)
        a[i] = (gd_iv){4 * i, 4 * i + 2};
    a[10] = (gd_iv){1, 5};
    a[11] = (gd_iv){30, 41};
    a[12] = (gd_iv){50, 51};
    a[13] = (gd_iv){2, 3};
    n = gd_iv_merge(a, 14);
    /* [0,6) [8,10) [12,14) ... [24,26) [28,41) [50,51) */
    ASSERT_EQ_INT(n, 8);
    ASSERT_EQ_INT(a[0].s, 0);
    ASSERT_EQ_INT(a[0].e, 6);
    ASSERT_EQ_INT(a[1].s, 8);
    ASSERT_EQ_INT(a[5].s, 24);
    ASSERT_EQ_INT(a[6].s, 28);
    ASSERT_EQ_INT(a[6].e, 41);
    ASSERT_EQ_INT(a[7].s, 50);
    gd_vec_free(&v);
    free(cov);
}

int main(void)
{
    /* merge: sorts, joins overlapping and touching, drops contained */
    gd_iv a[] = {{10, 20}, {0, 5}, {5, 8}, {12, 15}, {30, 40}, {18, 25}};
    size_t n = gd_iv_merge(a, 6);
    ASSERT_EQ_INT(n, 3);
    ASSERT_EQ_INT(a[0].s, 0);
    ASSERT_EQ_INT(a[0].e, 8);
    ASSERT_EQ_INT(a[1].s, 10);
    ASSERT_EQ_INT(a[1].e, 25);
    ASSERT_EQ_INT(a[2].s, 30);
    ASSERT_EQ_INT(gd_iv_sum(a, n), 8 + 15 + 10);
    ASSERT_EQ_INT(gd_iv_merge(a, 0), 0);

    /* intersect and subtract: [0,8) [10,25) [30,40) vs [5,12) [20,35) */
    gd_iv b[] = {{5, 12}, {20, 35}};
    gd_iv out[8];
    size_t k = gd_iv_intersect(a, 3, b, 2, out);
    ASSERT_EQ_INT(k, 4);
    ASSERT_EQ_INT(out[0].s, 5);
    ASSERT_EQ_INT(out[0].e, 8);
    ASSERT_EQ_INT(out[1].s, 10);
    ASSERT_EQ_INT(out[1].e, 12);
    ASSERT_EQ_INT(out[2].s, 20);
    ASSERT_EQ_INT(out[2].e, 25);
    ASSERT_EQ_INT(out[3].s, 30);
    ASSERT_EQ_INT(out[3].e, 35);
    ASSERT_EQ_INT(gd_iv_intersect_len(a, 3, b, 2), 3 + 2 + 5 + 5);

    k = gd_iv_subtract(a, 3, b, 2, out);
    /* [0,5) [12,20) [35,40) */
    ASSERT_EQ_INT(k, 3);
    ASSERT_EQ_INT(out[0].s, 0);
    ASSERT_EQ_INT(out[0].e, 5);
    ASSERT_EQ_INT(out[1].s, 12);
    ASSERT_EQ_INT(out[1].e, 20);
    ASSERT_EQ_INT(out[2].s, 35);
    ASSERT_EQ_INT(out[2].e, 40);

    /* subtracting everything leaves nothing; subtracting nothing leaves all */
    gd_iv all[] = {{-100, 100}};
    ASSERT_EQ_INT(gd_iv_subtract(a, 3, all, 1, out), 0);
    ASSERT_EQ_INT(gd_iv_subtract(a, 3, all, 0, out), 3);

    /* per-window sums: windows [0,10) [10,31) [31,50) */
    gd_iv w[] = {{0, 10}, {10, 31}, {31, 50}};
    int64_t sums[3] = {0, 0, 0};
    gd_iv_sum_per_window(a, 3, w, 3, sums);
    ASSERT_EQ_INT(sums[0], 8);
    ASSERT_EQ_INT(sums[1], 15 + 1);
    ASSERT_EQ_INT(sums[2], 9);
    test_push_compaction();
    test_push_two_passes();
    TEST_DONE("test_intervals");
}
