/*
 * detmath.c - deterministic log/exp (see detmath.h).
 *
 * Both reduce the argument exactly (frexp/ldexp only move the exponent) and
 * evaluate a fixed series in a fixed order, so the result depends on
 * IEEE-754 rounding alone. sqrt, used by the normal draw, is correctly
 * rounded by IEEE-754 itself.
 */
#include "sim/detmath.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Determinism needs every double operation rounded to double: no x87
 * excess precision (32-bit x86 without SSE2). */
_Static_assert(FLT_EVAL_METHOD == 0, "ksim needs FLT_EVAL_METHOD == 0 (use SSE2 on x86)");

/* ln 2 split so that k * LN2_HI is exact for |k| < 2^11. */
static const double LN2_HI = 6.93147180369123816490e-01;
static const double LN2_LO = 1.90821492927058770002e-10;
static const double SQRT_TWO = 1.41421356237309504880;

/* x = m * 2^e with m in [sqrt(1/2), sqrt(2)), by taking the exponent
 * bits apart (exact; no libm call). x must be finite and > 0. */
static double split_exponent(double x, int *e)
{
    uint64_t bits;
    int adjust = 0;
    if (x < 0x1.0p-1022) { /* subnormal: scale into the normal range */
        x *= 0x1.0p54;
        adjust = -54;
    }
    memcpy(&bits, &x, sizeof bits);
    int ex = (int)((bits >> 52) & 0x7ffu) - 1023;
    bits = (bits & ~(UINT64_C(0x7ff) << 52)) | (UINT64_C(1023) << 52); /* m in [1, 2) */
    double m;
    memcpy(&m, &bits, sizeof m);
    if (m >= SQRT_TWO) {
        m *= 0.5;
        ex += 1;
    }
    *e = ex + adjust;
    return m;
}

double ks_log(double x)
{
    int e;
    double m = split_exponent(x, &e);
    /* With f = m - 1 (exact) and s = f / (2 + f):
     *   log(1 + f) = 2 atanh(s) = f - (hfsq - s (hfsq + R)),
     *   hfsq = f^2 / 2,  R = z (2/3 + 2z/5 + ... + 2z^10/23),  z = s^2,
     * the arrangement of fdlibm's e_log.c, which keeps the leading term f
     * exact. |s| < 0.172, so the series' tail is below 2^-60. R's
     * polynomial is evaluated by Estrin's scheme: a fixed order of
     * operations, so fixed bits, with a short dependency chain. */
    static const double c[11] = {2.0 / 3,  2.0 / 5,  2.0 / 7,  2.0 / 9,  2.0 / 11, 2.0 / 13,
                                 2.0 / 15, 2.0 / 17, 2.0 / 19, 2.0 / 21, 2.0 / 23};
    double f = m - 1.0;
    double s = f / (2.0 + f);
    double z = s * s;
    double z2 = z * z, z4 = z2 * z2, z8 = z4 * z4;
    double p01 = c[0] + c[1] * z, p23 = c[2] + c[3] * z, p45 = c[4] + c[5] * z;
    double p67 = c[6] + c[7] * z, p89 = c[8] + c[9] * z;
    double q0 = p01 + p23 * z2, q1 = p45 + p67 * z2, q2 = p89 + c[10] * z2;
    double R = z * ((q0 + q1 * z4) + q2 * z8);
    double hfsq = 0.5 * f * f;
    double de = (double)e;
    return de * LN2_HI - ((hfsq - (s * (hfsq + R) + de * LN2_LO)) - f);
}

double ks_exp(double x)
{
    if (x != x)
        return x; /* NaN */
    if (x > 709.782712893384) /* ln(DBL_MAX) */
        return HUGE_VAL;
    if (x < -745.1332191019412) /* below half the smallest subnormal */
        return 0.0;
    /* x = k ln2 + r with |r| <= ln2 / 2; e^x = 2^k e^r. */
    double kd = x / (LN2_HI + LN2_LO);
    kd = kd < 0 ? kd - 0.5 : kd + 0.5;
    int k = (int)kd;
    double r = (x - (double)k * LN2_HI) - (double)k * LN2_LO;
    /* Horner form of the Taylor series to degree 17: error < 1e-19.
     * p = 1 + r/1 (1 + r/2 (1 + r/3 (...))). */
    static const double inv[18] = {0,        1.0 / 1,  1.0 / 2,  1.0 / 3,  1.0 / 4,  1.0 / 5,
                                   1.0 / 6,  1.0 / 7,  1.0 / 8,  1.0 / 9,  1.0 / 10, 1.0 / 11,
                                   1.0 / 12, 1.0 / 13, 1.0 / 14, 1.0 / 15, 1.0 / 16, 1.0 / 17};
    double p = 1.0;
    for (int i = 17; i >= 1; i--)
        p = 1.0 + r * p * inv[i];
    return ldexp(p, k);
}

int64_t ks_round_i64_wide(double x)
{
    if (x > -0x1.0p52 && x < 0x1.0p52)
        return ks_round_i64(x);
    if (x != x)
        return 0;
    if (x >= 9223372036854775807.0)
        return INT64_MAX;
    if (x <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)x; /* already an integer */
}
