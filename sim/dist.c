/*
 * dist.c - duration distributions (see dist.h).
 */
#include "sim/dist.h"

#include "sim/detmath.h"
#include "sim/sim.h"

#include <assert.h>
#include <string.h>

static const char *const names[] = {
#define X(e, name) name,
    KS_DISTS(X)
#undef X
};

const char *ks_dist_name(ks_dist_kind k)
{
    assert((unsigned)k < (unsigned)KS_DIST__COUNT);
    return names[k];
}

bool ks_dist_parse(const char *name, ks_dist_kind *out)
{
    for (unsigned i = 0; i < (unsigned)KS_DIST__COUNT; i++) {
        if (strcmp(name, names[i]) == 0) {
            *out = (ks_dist_kind)i;
            return true;
        }
    }
    return false;
}

static int64_t clamp_nonneg(int64_t v)
{
    return v < 0 ? 0 : v;
}

int64_t ks_dist_draw(const ks_dist *d, ks_rng *r)
{
    switch (d->kind) {
    case KS_DIST_CONSTANT:
        return clamp_nonneg(d->a_ns);
    case KS_DIST_UNIFORM:
        return clamp_nonneg(d->a_ns + (int64_t)ks_rng_bounded64(r, (uint64_t)(d->b_ns - d->a_ns) + 1u));
    case KS_DIST_EXPONENTIAL:
        return clamp_nonneg(
            ks_time_add(d->min_ns, ks_round_i64(ks_rng_exponential(r, (double)d->a_ns))));
    case KS_DIST_LOGNORMAL:
        return clamp_nonneg(ks_time_add(
            d->min_ns, ks_round_i64((double)d->a_ns * ks_exp(d->sigma * ks_rng_normal(r)))));
    case KS_DIST__COUNT:
        break;
    }
    assert(false && "bad distribution kind");
    return 0;
}
