/*
 * test_chart.c - tools/chart.c: scale groups (runs more than 10 times
 * apart in panels of their own, zeros with the smallest, absent runs in
 * none), the integer tick steps of count axes, and the percentile ladder
 * (exact fractions, ten points a decade, x = 1/(1 - q)).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tools/chart.h"

static void groups_by_scale(void **state)
{
    (void)state;
    size_t g[6];
    /* 25000, 24000 and 8000 within 10x of the largest; 1400 not */
    const double a[] = {25000, 24000, 8000, 1400};
    assert_int_equal(ks_chart_scale_groups(a, 4, 10, g), 2);
    assert_int_equal(g[0], 0);
    assert_int_equal(g[1], 0);
    assert_int_equal(g[2], 0);
    assert_int_equal(g[3], 1);
    /* the order of the runs does not matter; exactly 10x apart share;
     * each group is measured from its own largest run */
    const double b[] = {10, 1000, 100, 1, 0.5};
    assert_int_equal(ks_chart_scale_groups(b, 5, 10, g), 3);
    assert_int_equal(g[1], 0);
    assert_int_equal(g[2], 0);
    assert_int_equal(g[0], 1);
    assert_int_equal(g[3], 1);
    assert_int_equal(g[4], 2);
    /* a run of zeros joins the smallest group; an absent one none */
    const double c[] = {0, 500, -1, 20};
    assert_int_equal(ks_chart_scale_groups(c, 4, 10, g), 2);
    assert_int_equal(g[0], 1);
    assert_int_equal(g[1], 0);
    assert_int_equal(g[2], KS_CHART_NO_GROUP);
    assert_int_equal(g[3], 1);
    /* only zeros: one group; nothing at all: none */
    const double z[] = {0, 0};
    assert_int_equal(ks_chart_scale_groups(z, 2, 10, g), 1);
    assert_int_equal(g[1], 0);
    const double none[] = {-1};
    assert_int_equal(ks_chart_scale_groups(none, 1, 10, g), 0);
    assert_int_equal(g[0], KS_CHART_NO_GROUP);
}

static void count_steps(void **state)
{
    (void)state;
    assert_int_equal(ks_chart_count_step(0), 1);
    assert_int_equal(ks_chart_count_step(1), 1);
    assert_int_equal(ks_chart_count_step(9), 1);
    assert_int_equal(ks_chart_count_step(10), 2);
    assert_int_equal(ks_chart_count_step(15), 2);
    assert_int_equal(ks_chart_count_step(20), 5);
    assert_int_equal(ks_chart_count_step(49), 5);
    assert_int_equal(ks_chart_count_step(50), 10);
    assert_int_equal(ks_chart_count_step(60000), 10000);
    for (int64_t m = 0; m < 100000; m += 37)
        assert_true(m / ks_chart_count_step(m) < 10);
}

static void percentile_ladder(void **state)
{
    (void)state;
    uint64_t num, den;
    assert_int_equal(ks_chart_ladder(0, &num, &den), 100); /* x = 1: the minimum */
    assert_int_equal(num, 0);
    assert_int_equal(ks_chart_ladder(3, &num, &den), 200); /* p50 */
    assert_true(num * 2 == den);
    assert_int_equal(ks_chart_ladder(10, &num, &den), 1000); /* p90 */
    assert_true(num * 10 == den * 9);
    assert_int_equal(ks_chart_ladder(20, &num, &den), 10000); /* p99, reduced */
    assert_int_equal(num, 99);
    assert_int_equal(den, 100);
    assert_int_equal(ks_chart_ladder(30, &num, &den), 100000); /* p99.9 */
    assert_int_equal(num, 999);
    assert_int_equal(den, 1000);
    /* rising, each q below 1, den never past 100 x */
    uint64_t prev = 0, x100;
    size_t k;
    for (k = 0; (x100 = ks_chart_ladder(k, &num, &den)) != 0; k++) {
        assert_true(x100 > prev);
        assert_true(num < den);
        assert_true(den <= x100);
        assert_true((x100 - 100) * den == num * x100); /* q = 1 - 1/x exactly */
        prev = x100;
    }
    assert_int_equal(k, 160);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(groups_by_scale),
        cmocka_unit_test(count_steps),
        cmocka_unit_test(percentile_ladder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
