/* Interval-set algebra, checked against hand-computed sets. */
#include "analyze/intervals.h"
#include "test.h"

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
    TEST_DONE("test_intervals");
}
