/*
 * dist.h - distributions of durations (link latency, service times).
 *
 * Owns: the named distributions a scenario can ask for and how a duration
 * is drawn from them, in integer nanoseconds. A constant distribution
 * draws nothing from its stream, so switching one link from constant to
 * random leaves every other stream untouched.
 */
#ifndef KS_DIST_H
#define KS_DIST_H

#include "sim/rng.h"

#include <stdbool.h>
#include <stdint.h>

#define KS_DISTS(X)                  \
    X(CONSTANT, "constant")          \
    X(UNIFORM, "uniform")            \
    X(EXPONENTIAL, "exponential")    \
    X(LOGNORMAL, "lognormal")

typedef enum ks_dist_kind {
#define X(e, name) KS_DIST_##e,
    KS_DISTS(X)
#undef X
    KS_DIST__COUNT
} ks_dist_kind;

/*
 * constant     a_ns
 * uniform      uniform integer in [a_ns, b_ns]
 * exponential  min_ns + Exp(mean a_ns)
 * lognormal    min_ns + a_ns * e^(sigma N(0,1))   (a_ns is the median)
 */
typedef struct ks_dist {
    ks_dist_kind kind;
    int64_t a_ns, b_ns, min_ns;
    double sigma;
} ks_dist;

const char *ks_dist_name(ks_dist_kind k);
bool ks_dist_parse(const char *name, ks_dist_kind *out);
static inline ks_dist ks_dist_constant(int64_t ns)
{
    ks_dist d = {KS_DIST_CONSTANT, ns, ns, 0, 0.0};
    return d;
}
/* Draws a duration (never negative). */
int64_t ks_dist_draw(const ks_dist *d, ks_rng *r);

#endif
