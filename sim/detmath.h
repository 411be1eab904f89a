/*
 * detmath.h - deterministic logarithm, exponential and float-to-integer
 * conversion.
 *
 * Owns: the few transcendental functions the simulation needs. They are
 * written with IEEE-754 basic operations only (+ - * /, sqrt, exact
 * scaling by powers of two), because libm's log/exp may differ in the last
 * bit between C libraries and versions, and one bit is enough to move an
 * event by a nanosecond and change a trace. Accuracy: within 2 ulp of
 * glibc's results over the whole range (tests/test_detmath.c).
 */
#ifndef KS_DETMATH_H
#define KS_DETMATH_H

#include <stdint.h>

/* Natural logarithm; x must be finite and > 0. */
double ks_log(double x);
/* e^x; HUGE_VAL above ln(DBL_MAX), 0 below -745.13; NaN stays NaN. */
double ks_exp(double x);
/* Round half away from zero to int64, saturating at the int64 range
 * (NaN gives 0). Inline: every Poisson gap of a workload comes through
 * here; values beyond 2^52 (or NaN) take the out-of-line path. */
int64_t ks_round_i64_wide(double x);
static inline int64_t ks_round_i64(double x)
{
    /* Without a branch on the half: a branch on a random fraction is
     * mispredicted half the time. Truncation and x - t are exact here,
     * so the half-way test is too. NaN fails both range tests. */
    if (x > -0x1.0p52 && x < 0x1.0p52) {
        int64_t t = (int64_t)x;
        double frac = x - (double)t;
        return t + (int64_t)(frac >= 0.5) - (int64_t)(frac <= -0.5);
    }
    return ks_round_i64_wide(x);
}

#endif
