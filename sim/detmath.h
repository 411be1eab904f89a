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
 * (NaN gives 0). */
int64_t ks_round_i64(double x);

#endif
