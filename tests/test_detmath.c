/*
 * test_detmath.c - tests sim/detmath.c: ks_log and ks_exp against libm
 * within 2 ulp over wide argument grids (subnormals included), their exact
 * values, ks_exp saturation, and ks_round_i64 (half away from zero,
 * saturating, NaN to 0).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/detmath.h"

/* Distance to glibc (itself within 1 ulp of the true value). ks_exp and
 * ks_log away from 1 stay within 2 ulp of glibc. */
#define MAX_ULP 2u
/* ks_log for x in [sqrt(1/2)/2, 2 sqrt(2)), where the reduced exponent is
 * -1, 0 or 1 and the series dominates the result. An earlier version that
 * rounded the leading term reached 5 ulp here; keeping f = m - 1 exact (as
 * fdlibm does) brought it within 2, and this bound keeps it there. */
#define LOG_NEAR1_MAX_ULP 2u
#define LOG_NEAR1_LO 0.35355339059327376220
#define LOG_NEAR1_HI 2.82842712474619009760

/* Maps a finite double to an integer that orders like the double and
 * steps by one per representable value (so -0.0 and +0.0 coincide). */
static int64_t ordered(double x)
{
    int64_t i;
    memcpy(&i, &x, sizeof i);
    return i < 0 ? INT64_MIN - i : i;
}

/* Number of representable doubles between a and b; UINT64_MAX if either
 * is not finite and they differ. */
static uint64_t ulp_distance(double a, double b)
{
    if (a == b)
        return 0;
    if (!isfinite(a) || !isfinite(b))
        return UINT64_MAX;
    int64_t ia = ordered(a), ib = ordered(b);
    return ia > ib ? (uint64_t)ia - (uint64_t)ib : (uint64_t)ib - (uint64_t)ia;
}

static void test_ulp_distance_helper(void **state)
{
    (void)state;
    assert_int_equal(ulp_distance(1.0, 1.0), 0);
    assert_int_equal(ulp_distance(1.0, nextafter(1.0, 2.0)), 1);
    assert_int_equal(ulp_distance(1.0, nextafter(nextafter(1.0, 0.0), 0.0)), 2);
    assert_int_equal(ulp_distance(-0.0, 0.0), 0);
    assert_int_equal(ulp_distance(-DBL_TRUE_MIN, DBL_TRUE_MIN), 2);
    assert_int_equal(ulp_distance(1.0, HUGE_VAL), UINT64_MAX);
}

static unsigned check_log(double x, uint64_t *worst)
{
    uint64_t d = ulp_distance(ks_log(x), log(x));
    uint64_t tol = x >= LOG_NEAR1_LO && x < LOG_NEAR1_HI ? LOG_NEAR1_MAX_ULP : MAX_ULP;
    if (d > *worst)
        *worst = d;
    if (d > tol) {
        print_error("ks_log(%a) = %a, log = %a (%llu ulp)\n", x, ks_log(x), log(x),
                    (unsigned long long)d);
        return 1;
    }
    return 0;
}

static void test_log_matches_libm(void **state)
{
    (void)state;
    unsigned bad = 0;
    uint64_t worst = 0;
    /* log-spaced grid 1e-300 .. 1e300 */
    enum { GRID = 200000 };
    for (int i = 0; i <= GRID; i++)
        bad += check_log(pow(10.0, -300.0 + 600.0 * i / GRID), &worst);
    /* linear grid around 1, where log is small and cancellation bites */
    for (int i = 1; i <= 100000; i++)
        bad += check_log(0.25 + 1.75 * i / 100000.0, &worst);
    for (int k = 1; k <= 200; k++) {
        bad += check_log(1.0 + k * DBL_EPSILON, &worst);
        bad += check_log(1.0 - k * DBL_EPSILON / 2.0, &worst);
    }
    /* either side of the sqrt(1/2) reduction boundary */
    double b = 0.70710678118654752440;
    for (int k = 0; k < 50; k++) {
        bad += check_log(b, &worst);
        b = nextafter(b, 0.0);
    }
    b = 0.70710678118654752440;
    for (int k = 0; k < 50; k++) {
        b = nextafter(b, 1.0);
        bad += check_log(b, &worst);
    }
    /* powers of two, their neighbours, extremes and subnormals */
    for (int e = -1074; e <= 1023; e++) {
        double p = ldexp(1.0, e);
        bad += check_log(p, &worst);
        if (p > DBL_TRUE_MIN)
            bad += check_log(nextafter(p, 0.0), &worst);
        bad += check_log(nextafter(p, HUGE_VAL), &worst);
        bad += check_log(p * 1.5, &worst);
    }
    bad += check_log(DBL_MAX, &worst);
    bad += check_log(DBL_MIN, &worst);
    bad += check_log(DBL_TRUE_MIN, &worst);
    bad += check_log(1e-310, &worst);
    assert_int_equal(bad, 0);
    assert_true(worst <= LOG_NEAR1_MAX_ULP);
}

/* Away from 1 the documented 2 ulp holds: checked with its own grid so a
 * regression there is not hidden by the looser bound near 1. */
static void test_log_far_from_1_within_2_ulp(void **state)
{
    (void)state;
    uint64_t worst = 0;
    unsigned bad = 0;
    for (int i = 0; i <= 100000; i++) {
        double f = 1.0 + i / 100000.0;
        for (int e = -1074; e <= 1023; e += 7) {
            double x = ldexp(f, e);
            if (x > 0.0 && isfinite(x) && (x < LOG_NEAR1_LO || x >= LOG_NEAR1_HI))
                bad += check_log(x, &worst);
        }
        if (bad)
            break;
    }
    assert_int_equal(bad, 0);
    assert_true(worst <= MAX_ULP);
}

static unsigned check_exp(double x, uint64_t *worst)
{
    uint64_t d = ulp_distance(ks_exp(x), exp(x));
    if (d > *worst)
        *worst = d;
    if (d > MAX_ULP) {
        print_error("ks_exp(%a) = %a, exp = %a (%llu ulp)\n", x, ks_exp(x), exp(x),
                    (unsigned long long)d);
        return 1;
    }
    return 0;
}

static void test_exp_matches_libm(void **state)
{
    (void)state;
    unsigned bad = 0;
    uint64_t worst = 0;
    /* -700 .. 700 in steps of 0.001, offset off the round numbers too */
    for (int i = -700000; i <= 700000; i++) {
        bad += check_exp(i / 1000.0, &worst);
        bad += check_exp(i / 1000.0 + 0.000123456789, &worst);
    }
    /* tiny arguments, either sign */
    for (int e = -1074; e <= -1; e++) {
        bad += check_exp(ldexp(1.0, e), &worst);
        bad += check_exp(-ldexp(1.0, e), &worst);
    }
    /* around the half-ln2 reduction boundaries */
    for (int k = -20; k <= 20; k++) {
        double m = (k + 0.5) * 0.69314718055994530942;
        double x = m;
        for (int j = 0; j < 20; j++) {
            bad += check_exp(x, &worst);
            x = nextafter(x, HUGE_VAL);
        }
        x = m;
        for (int j = 0; j < 20; j++) {
            x = nextafter(x, -HUGE_VAL);
            bad += check_exp(x, &worst);
        }
    }
    /* near the top (finite) and into the subnormal results */
    for (int i = 0; i <= 7700; i++)
        bad += check_exp(700.0 + i / 1000.0, &worst);
    for (int i = 0; i <= 45100; i++)
        bad += check_exp(-700.0 - i / 1000.0, &worst);
    assert_int_equal(bad, 0);
    assert_true(worst <= MAX_ULP);
}

static void test_exact_values(void **state)
{
    (void)state;
    double l1 = ks_log(1.0);
    assert_true(l1 == 0.0);
    assert_false(signbit(l1));
    double e0 = ks_exp(0.0);
    assert_true(e0 == 1.0);
    assert_true(ks_exp(-0.0) == 1.0);
    /* e^x for |x| below half an ulp of 1 is 1 */
    assert_true(ks_exp(1e-20) == 1.0);
    assert_true(ks_exp(-1e-20) == 1.0);
    /* well-known constants, within 1 ulp of the correctly rounded value */
    assert_true(ulp_distance(ks_log(2.0), 0.69314718055994530942) <= 1u);
    assert_true(ulp_distance(ks_log(10.0), 2.30258509299404568402) <= 1u);
    assert_true(ulp_distance(ks_exp(1.0), 2.71828182845904523536) <= 1u);
    assert_true(ulp_distance(ks_exp(-1.0), 0.36787944117144232160) <= 1u);
    /* log of a power of two is e * ln 2 */
    for (int e = -1074; e <= 1023; e++) {
        double want = e * 0.69314718055994530942;
        assert_true(ulp_distance(ks_log(ldexp(1.0, e)), want) <= MAX_ULP);
    }
    /* log is monotone non-decreasing across the reduction boundary */
    double x = 0.7071067811865, prev = ks_log(x);
    for (int i = 0; i < 2000; i++) {
        x = nextafter(x, 1.0);
        double cur = ks_log(x);
        assert_true(cur >= prev);
        prev = cur;
    }
}

static void test_exp_saturation(void **state)
{
    (void)state;
    static const double big[] = {709.79, 710.0, 750.0, 1000.0, 1e6, 1e300, DBL_MAX};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        assert_true(ks_exp(big[i]) == HUGE_VAL);
    static const double small[] = {-745.3, -746.0, -800.0, -1e6, -1e300, -DBL_MAX};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        assert_true(ks_exp(small[i]) == 0.0);
        assert_false(signbit(ks_exp(small[i])));
    }
    assert_true(ks_exp(HUGE_VAL) == HUGE_VAL);
    assert_true(ks_exp(-HUGE_VAL) == 0.0);
    assert_true(ks_exp(-745.3) == 0.0);
    /* the last values before saturation are finite and correct */
    assert_true(isfinite(ks_exp(709.0)));
    assert_true(ulp_distance(ks_exp(709.0), exp(709.0)) <= MAX_ULP);
    assert_true(isfinite(ks_exp(709.78)));
    assert_true(isfinite(ks_exp(709.782)));  /* just below ln(DBL_MAX) */
    assert_true(ulp_distance(ks_exp(709.782), exp(709.782)) <= MAX_ULP);
    assert_true(isnan(ks_exp(NAN)));
    /* e^-745 rounds to the smallest subnormal, not to zero */
    assert_true(ks_exp(-745.0) == DBL_TRUE_MIN);
    assert_true(ks_exp(-740.0) > 0.0);
}

static void test_round_half_away_from_zero(void **state)
{
    (void)state;
    static const struct {
        double x;
        int64_t want;
    } cases[] = {
        {0.0, 0},   {-0.0, 0},  {0.4, 0},   {-0.4, 0},  {0.5, 1},
        {-0.5, -1}, {1.5, 2},   {-1.5, -2}, {2.5, 3},   {-2.5, -3},
        {2.4999, 2}, {-2.4999, -2}, {2.5001, 3}, {3.5, 4}, {-3.5, -4},
        {1.0, 1},   {-1.0, -1}, {0.9999, 1}, {1e-300, 0}, {-1e-300, 0},
        {123456789.0, 123456789}, {-123456789.5, -123456790},
        {1e15 + 0.5, 1000000000000001}, {-1e15 - 0.5, -1000000000000001},
        {4503599627370496.0, INT64_C(4503599627370496)},   /* 2^52 */
        {9007199254740992.0, INT64_C(9007199254740992)},   /* 2^53 */
        {9223372036854774784.0, INT64_C(9223372036854774784)}, /* 2^63 - 1024 */
        {-9223372036854774784.0, -INT64_C(9223372036854774784)},
        /* floor(x + 0.5) gets these wrong: the addition itself rounds */
        {0.49999999999999994, 0}, {-0.49999999999999994, 0},
        {4503599627370497.0, INT64_C(4503599627370497)},   /* 2^52 + 1 */
        {-4503599627370497.0, -INT64_C(4503599627370497)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t got = ks_round_i64(cases[i].x);
        if (got != cases[i].want)
            print_error("ks_round_i64(%a) = %lld, want %lld\n", cases[i].x,
                        (long long)got, (long long)cases[i].want);
        assert_int_equal(got, cases[i].want);
    }
    /* every k + 0.5 rounds to k + 1 and -(k + 0.5) to -(k + 1) */
    for (int64_t k = 0; k < 100000; k++) {
        double h = (double)k + 0.5;
        assert_int_equal(ks_round_i64(h), k + 1);
        assert_int_equal(ks_round_i64(-h), -(k + 1));
        assert_int_equal(ks_round_i64((double)k + 0.25), k);
        assert_int_equal(ks_round_i64((double)k + 0.75), k + 1);
    }
}

static void test_round_saturates(void **state)
{
    (void)state;
    assert_int_equal(ks_round_i64(NAN), 0);
    assert_int_equal(ks_round_i64(-NAN), 0);
    assert_int_equal(ks_round_i64(HUGE_VAL), INT64_MAX);
    assert_int_equal(ks_round_i64(-HUGE_VAL), INT64_MIN);
    assert_int_equal(ks_round_i64(9223372036854775808.0), INT64_MAX); /* 2^63 */
    assert_int_equal(ks_round_i64(-9223372036854775808.0), INT64_MIN);
    assert_int_equal(ks_round_i64(1e19), INT64_MAX);
    assert_int_equal(ks_round_i64(-1e19), INT64_MIN);
    assert_int_equal(ks_round_i64(1e300), INT64_MAX);
    assert_int_equal(ks_round_i64(-1e300), INT64_MIN);
    assert_int_equal(ks_round_i64(DBL_MAX), INT64_MAX);
    assert_int_equal(ks_round_i64(-DBL_MAX), INT64_MIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ulp_distance_helper),
        cmocka_unit_test(test_log_matches_libm),
        cmocka_unit_test(test_log_far_from_1_within_2_ulp),
        cmocka_unit_test(test_exp_matches_libm),
        cmocka_unit_test(test_exact_values),
        cmocka_unit_test(test_exp_saturation),
        cmocka_unit_test(test_round_half_away_from_zero),
        cmocka_unit_test(test_round_saturates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
