/*
 * detmath.c - deterministic log/exp (see detmath.h).
 *
 * Both reduce the argument exactly (frexp/ldexp only move the exponent) and
 * evaluate a fixed series in a fixed order, so the result depends on
 * IEEE-754 rounding alone. sqrt, used by the normal draw, is correctly
 * rounded by IEEE-754 itself.
 */
#include "sim/detmath.h"

#include <math.h>

/* ln 2 split so that k * LN2_HI is exact for |k| < 2^11. */
static const double LN2_HI = 6.93147180369123816490e-01;
static const double LN2_LO = 1.90821492927058770002e-10;
static const double SQRT_HALF = 0.70710678118654752440;

double ks_log(double x)
{
    int e;
    double m = frexp(x, &e); /* x = m * 2^e, m in [0.5, 1) */
    if (m < SQRT_HALF) {
        m *= 2.0;
        e -= 1;
    }
    /* log(m) = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), |s| < 0.172. */
    double s = (m - 1.0) / (m + 1.0);
    double s2 = s * s;
    double sum = 1.0 / 23.0;
    for (int k = 21; k >= 1; k -= 2)
        sum = 1.0 / (double)k + s2 * sum;
    double logm = 2.0 * s * sum;
    double de = (double)e;
    return de * LN2_HI + (logm + de * LN2_LO);
}

double ks_exp(double x)
{
    if (x > 709.78)
        return HUGE_VAL;
    if (x < -745.2)
        return 0.0;
    /* x = k ln2 + r with |r| <= ln2 / 2; e^x = 2^k e^r. */
    double kd = x / (LN2_HI + LN2_LO);
    kd = kd < 0 ? kd - 0.5 : kd + 0.5;
    int k = (int)kd;
    double r = (x - (double)k * LN2_HI) - (double)k * LN2_LO;
    /* Horner form of the Taylor series to degree 17: error < 1e-19. */
    double p = 1.0;
    for (int i = 17; i >= 1; i--)
        p = 1.0 + r * p / (double)i;
    return ldexp(p, k);
}

int64_t ks_round_i64(double x)
{
    if (x != x)
        return 0;
    if (x >= 9223372036854775807.0)
        return INT64_MAX;
    if (x <= -9223372036854775808.0)
        return INT64_MIN;
    double t = x < 0 ? -floor(-x + 0.5) : floor(x + 0.5);
    return (int64_t)t;
}
