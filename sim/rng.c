/*
 * rng.c - PCG32 and the distributions drawn from it (see rng.h).
 *
 * The generator is the XSH-RR 64/32 member of the PCG family, written from
 * M. E. O'Neill, "PCG: A Family of Simple Fast Space-Efficient Statistically
 * Good Algorithms for Random Number Generation" (2014), section 6.3, and
 * checked against the published test vector of pcg32-demo (seed 42,
 * stream 54) in tests/test_rng.c.
 */
#include "sim/rng.h"

#include "sim/detmath.h"
#include "sim/ziggurat_exp.h"

#include <assert.h>
#include <math.h>

#define PCG_MULT 6364136223846793005ULL

uint32_t ks_rng_next(ks_rng *r)
{
    uint64_t old = r->state;
    r->state = old * PCG_MULT + r->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

void ks_rng_seed(ks_rng *r, uint64_t initstate, uint64_t initseq)
{
    r->state = 0u;
    r->inc = (initseq << 1u) | 1u;
    ks_rng_next(r);
    r->state += initstate;
    ks_rng_next(r);
}

uint32_t ks_rng_bounded(ks_rng *r, uint32_t n)
{
    assert(n > 0);
    /* Reject the low (2^32 mod n) values so every residue is equally
     * likely; (-n) % n computes 2^32 mod n in 32-bit arithmetic. */
    uint32_t threshold = (uint32_t)(-n) % n;
    for (;;) {
        uint32_t x = ks_rng_next(r);
        if (x >= threshold)
            return x % n;
    }
}

uint64_t ks_rng_fnv1a64(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* splitmix64 finaliser (Steele, Lea, Flood 2014): spreads a seed so that
 * nearby master seeds give unrelated start states. */
static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

void ks_rng_stream(ks_rng *r, uint64_t seed, const char *name)
{
    uint64_t id = ks_rng_fnv1a64(name);
    ks_rng_seed(r, splitmix64(seed ^ id), id);
}

uint64_t ks_rng_next64(ks_rng *r)
{
    uint64_t hi = ks_rng_next(r);
    uint64_t lo = ks_rng_next(r);
    return (hi << 32) | lo;
}

uint64_t ks_rng_bounded64(ks_rng *r, uint64_t n)
{
    assert(n > 0);
    if (n <= UINT32_MAX)
        return ks_rng_bounded(r, (uint32_t)n);
    uint64_t threshold = (-n) % n;
    for (;;) {
        uint64_t x = ks_rng_next64(r);
        if (x >= threshold)
            return x % n;
    }
}

double ks_rng_unit(ks_rng *r)
{
    /* 53 random bits scaled by 2^-53: exact, in [0, 1). */
    return (double)(ks_rng_next64(r) >> 11) * 0x1.0p-53;
}

double ks_rng_unit_open0(ks_rng *r)
{
    return ((double)(ks_rng_next64(r) >> 11) + 1.0) * 0x1.0p-53;
}

double ks_rng_uniform(ks_rng *r, double lo, double hi)
{
    double v = lo + (hi - lo) * ks_rng_unit(r);
    /* Rounding can land on hi itself; keep the interval half-open.
     * nextafter only moves bits, so it is exact everywhere. */
    return v < hi ? v : nextafter(hi, lo);
}

/* Standard exponential by the ziggurat method (Marsaglia & Tsang 2000):
 * 256 layers of equal area; about 99% of draws land inside a layer's
 * rectangle and cost one multiplication, no logarithm. The layer and the
 * position in it come from separate bits of one 64-bit draw. */
static double exp_std(ks_rng *r)
{
    for (;;) {
        uint64_t u = ks_rng_next64(r);
        uint32_t iz = (uint32_t)(u >> 56);
        uint32_t jz = (uint32_t)u;
        if (jz < ks_zig_ke[iz])
            return (double)jz * ks_zig_we[iz];
        if (iz == 0) /* the tail beyond R is R + Exp(1) */
            return KS_ZIG_EXP_R - ks_log(ks_rng_unit_open0(r));
        double x = (double)jz * ks_zig_we[iz];
        if (ks_zig_fe[iz] + ks_rng_unit(r) * (ks_zig_fe[iz - 1] - ks_zig_fe[iz]) < ks_exp(-x))
            return x;
    }
}

double ks_rng_exponential(ks_rng *r, double mean)
{
    return mean * exp_std(r);
}

double ks_rng_normal(ks_rng *r)
{
    for (;;) {
        double u = 2.0 * ks_rng_unit(r) - 1.0;
        double v = 2.0 * ks_rng_unit(r) - 1.0;
        double s = u * u + v * v;
        if (s > 0.0 && s < 1.0)
            return u * sqrt(-2.0 * ks_log(s) / s);
    }
}

double ks_rng_lognormal(ks_rng *r, double mu, double sigma)
{
    return ks_exp(mu + sigma * ks_rng_normal(r));
}
