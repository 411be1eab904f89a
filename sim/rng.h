/*
 * rng.h - PCG32 (XSH-RR 64/32) random numbers and the draws built on it.
 *
 * Owns: the generator state and every distribution ksim draws from. The
 * three core functions match the PCG reference implementation (pcg_basic.c)
 * bit for bit: ks_rng_seed = pcg32_srandom_r, ks_rng_next = pcg32_random_r,
 * ks_rng_bounded = pcg32_boundedrand_r.
 *
 * Determinism: every simulated component owns one ks_rng, seeded by
 * ks_rng_stream() from the master seed and the component's name, so adding
 * or changing one component never shifts another's draws. Floating-point
 * draws use only IEEE-754 basic operations and sim/detmath.h (no libm), so
 * they give the same bits on every conforming machine and build type.
 */
#ifndef KS_RNG_H
#define KS_RNG_H

#include <stdint.h>

typedef struct ks_rng {
    uint64_t state;
    uint64_t inc; /* always odd: selects the stream */
} ks_rng;

/* Seed with a start state and a stream selector (= pcg32_srandom_r). */
void ks_rng_seed(ks_rng *r, uint64_t initstate, uint64_t initseq);
/* Next uniformly distributed 32-bit value (= pcg32_random_r). */
uint32_t ks_rng_next(ks_rng *r);
/* Unbiased value in [0, n), PCG's rejection method (= pcg32_boundedrand_r).
 * n must be > 0. */
uint32_t ks_rng_bounded(ks_rng *r, uint32_t n);

/* 64-bit FNV-1a of a NUL-terminated string: the stream id of a name. */
uint64_t ks_rng_fnv1a64(const char *s);
/* The stream of the component called `name` under master seed `seed`:
 * initseq = FNV-1a(name), initstate = splitmix64(seed ^ FNV-1a(name)). */
void ks_rng_stream(ks_rng *r, uint64_t seed, const char *name);

/* Uniform 64-bit value (two 32-bit draws, high word first). */
uint64_t ks_rng_next64(ks_rng *r);
/* Unbiased value in [0, n) for 64-bit n > 0 (rejection method). */
uint64_t ks_rng_bounded64(ks_rng *r, uint64_t n);
/* Uniform double in [0, 1) with 53 random bits. */
double ks_rng_unit(ks_rng *r);
/* Uniform double in (0, 1]: never 0, safe to take a logarithm of. */
double ks_rng_unit_open0(ks_rng *r);
/* Uniform double in [lo, hi). */
double ks_rng_uniform(ks_rng *r, double lo, double hi);
/* Exponential with the given mean (ziggurat method). */
double ks_rng_exponential(ks_rng *r, double mean);
/* Standard normal (Marsaglia's polar method; no cached second value, so
 * every call consumes a whole number of draws and stays replayable). */
double ks_rng_normal(ks_rng *r);
/* Lognormal: exp(mu + sigma * N(0,1)). */
double ks_rng_lognormal(ks_rng *r, double mu, double sigma);

#endif
