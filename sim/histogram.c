/*
 * histogram.c - log-linear histogram (see histogram.h).
 */
#include "sim/histogram.h"

#include "sim/compiler.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void ks_hist_init(ks_hist *h)
{
    memset(h, 0, sizeof *h);
}

void ks_hist_free(ks_hist *h)
{
    for (uint32_t o = 0; o < KS_HIST_OCTAVES; o++)
        free(h->octave[o]);
    ks_hist_init(h);
}

/* Zeroes buckets lo..hi, which lie in one octave (or the exact ones). */
static void zero_range(ks_hist *h, uint32_t lo, uint32_t hi)
{
    uint64_t *c = lo < KS_HIST_SUB ? &h->exact[lo] : h->octave[lo / KS_HIST_SUB - 1u];
    if (lo >= KS_HIST_SUB && c)
        c += lo % KS_HIST_SUB;
    if (c)
        memset(c, 0, (size_t)(hi - lo + 1u) * sizeof *c);
}

void ks_hist_reset(ks_hist *h)
{
    /* Every count lies between min's bucket and max's (histogram.h), so
     * only those are zeroed: a metrics window of latencies in ms clears a
     * few hundred buckets, not every octave an earlier window used. */
    if (h->count > 0) {
        uint32_t lo = ks_hist_bucket(h->min), hi = ks_hist_bucket(h->max);
        while (lo <= hi) {
            uint32_t end = lo | (KS_HIST_SUB - 1u); /* the last of lo's octave */
            end = end < hi ? end : hi;
            zero_range(h, lo, end);
            lo = end + 1u;
        }
    }
    h->count = 0;
    h->min = h->max = 0;
    h->sum_hi = h->sum_lo = 0;
    h->dropped = 0;
}

/* Octave o's buckets, allocated now; NULL without memory. */
static uint64_t *new_octave(ks_hist *h, uint32_t o)
{
    h->octave[o] = calloc(KS_HIST_SUB, sizeof *h->octave[o]);
    return h->octave[o];
}

/* The counter of bucket b, allocating its octave; NULL without memory. */
static uint64_t *slot(ks_hist *h, uint32_t b)
{
    if (b < KS_HIST_SUB)
        return &h->exact[b];
    uint32_t o = b / KS_HIST_SUB - 1u;
    if (!h->octave[o] && !new_octave(h, o))
        return NULL;
    return &h->octave[o][b % KS_HIST_SUB];
}

uint64_t ks_hist_count_at(const ks_hist *h, uint32_t b)
{
    assert(b < KS_HIST_BUCKETS);
    if (b < KS_HIST_SUB)
        return h->exact[b];
    const uint64_t *oct = h->octave[b / KS_HIST_SUB - 1u];
    return oct ? oct[b % KS_HIST_SUB] : 0;
}

/* v > 0 */
static unsigned floor_log2(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return 63u - (unsigned)__builtin_clzll(v);
#else
    unsigned n = 0;
    while (v >>= 1)
        n++;
    return n;
#endif
}

uint32_t ks_hist_bucket(int64_t v)
{
    uint64_t u = v < 0 ? 0 : (uint64_t)v;
    if (u < KS_HIST_SUB)
        return (uint32_t)u;
    unsigned e = floor_log2(u); /* >= SUB_BITS */
    unsigned shift = e - KS_HIST_SUB_BITS;
    uint32_t sub = (uint32_t)((u >> shift) & (KS_HIST_SUB - 1u));
    return (uint32_t)(shift + 1u) * KS_HIST_SUB + sub;
}

void ks_hist_bucket_range(uint32_t b, int64_t *lo, int64_t *hi)
{
    assert(b < KS_HIST_BUCKETS);
    if (b < KS_HIST_SUB) {
        *lo = *hi = (int64_t)b;
        return;
    }
    unsigned shift = b / KS_HIST_SUB - 1u;
    uint64_t sub = b % KS_HIST_SUB;
    uint64_t base = (uint64_t)(KS_HIST_SUB + sub) << shift;
    uint64_t top = base + ((UINT64_C(1) << shift) - 1u);
    *lo = base > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)base;
    *hi = top > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)top;
}


/* Counts u (>= 0) in a count, its extremes and its 128-bit sum: a
 * histogram's own, or a run's. */
static KS_INLINE void count_in(uint64_t *count, int64_t *min, int64_t *max,
                                    uint64_t *sum_hi, uint64_t *sum_lo, uint64_t u)
{
    int64_t v = (int64_t)u;
    if ((*count)++ == 0) {
        *min = *max = v;
    } else {
        *min = v < *min ? v : *min;
        *max = v > *max ? v : *max;
    }
    uint64_t lo = *sum_lo + u;
    *sum_hi += lo < u;
    *sum_lo = lo;
}

static KS_INLINE void count_value(ks_hist *h, uint64_t u)
{
    count_in(&h->count, &h->min, &h->max, &h->sum_hi, &h->sum_lo, u);
}

/* Counts u (>= SUB) in bucket `sub` of octave `shift`. */
static KS_INLINE void count_octave(ks_hist *h, uint32_t shift, uint32_t sub)
{
    uint64_t *oct = h->octave[shift];
    if (!oct && !(oct = new_octave(h, shift))) {
        h->dropped++;
        return;
    }
    oct[sub]++;
}

/* Counts u (>= 0) in its bucket of h. */
static KS_INLINE void count_bucket(ks_hist *h, uint64_t u)
{
    if (u < KS_HIST_SUB) {
        h->exact[u]++;
        return;
    }
    /* bucket (shift + 1) * SUB + sub lies in octave shift */
    uint32_t shift = floor_log2(u) - KS_HIST_SUB_BITS;
    count_octave(h, shift, (uint32_t)(u >> shift) & (KS_HIST_SUB - 1u));
}

/* Counts u (>= 0) in its bucket of a and of b (the bucket found once). */
static KS_INLINE void count_bucket2(ks_hist *a, ks_hist *b, uint64_t u)
{
    if (u < KS_HIST_SUB) {
        a->exact[u]++;
        b->exact[u]++;
        return;
    }
    uint32_t shift = floor_log2(u) - KS_HIST_SUB_BITS;
    uint32_t sub = (uint32_t)(u >> shift) & (KS_HIST_SUB - 1u);
    count_octave(a, shift, sub);
    count_octave(b, shift, sub);
}

void ks_hist_add(ks_hist *h, int64_t v)
{
    /* slot() and ks_hist_bucket() by hand: every record's latency and
     * every batch come through here */
    uint64_t u = v < 0 ? 0u : (uint64_t)v;
    count_value(h, u);
    count_bucket(h, u);
}

void ks_hist_add2(ks_hist *a, ks_hist *b, int64_t v)
{
    uint64_t u = v < 0 ? 0u : (uint64_t)v;
    count_value(a, u);
    count_value(b, u);
    count_bucket2(a, b, u);
}

static KS_INLINE void run_value(ks_hist_run *r, uint64_t u)
{
    count_in(&r->count, &r->min, &r->max, &r->sum_hi, &r->sum_lo, u);
}

void ks_hist_defer_flush(ks_hist_defer *d, ks_hist *hists)
{
    /* each histogram's count, extremes and sum once, as a run */
    ks_hist_run run[4] = {{0}};
    for (uint32_t i = 0; i < d->n; i++) {
        unsigned k = (unsigned)(d->v[i] & 3u);
        uint64_t u = d->v[i] >> 2;
        run_value(&run[k], u);
        count_bucket(&hists[k], u);
    }
    for (unsigned k = 0; k < 4; k++)
        ks_hist_run_end(&hists[k], &run[k]);
    d->n = 0;
}

void ks_hist_run_add(ks_hist *h, ks_hist_run *r, int64_t v)
{
    uint64_t u = v < 0 ? 0u : (uint64_t)v;
    run_value(r, u);
    count_bucket(h, u);
}

void ks_hist_run_add2(ks_hist *a, ks_hist *b, ks_hist_run *r, int64_t v)
{
    uint64_t u = v < 0 ? 0u : (uint64_t)v;
    run_value(r, u);
    count_bucket2(a, b, u);
}

void ks_hist_run_end(ks_hist *h, const ks_hist_run *r)
{
    if (r->count == 0)
        return;
    if (h->count == 0 || r->min < h->min)
        h->min = r->min;
    if (h->count == 0 || r->max > h->max)
        h->max = r->max;
    h->count += r->count;
    uint64_t lo = h->sum_lo + r->sum_lo;
    h->sum_hi += r->sum_hi + (lo < h->sum_lo);
    h->sum_lo = lo;
}

void ks_hist_merge(ks_hist *dst, const ks_hist *src)
{
    if (src->count == 0)
        return;
    ks_hist_run all = {src->count, src->sum_hi, src->sum_lo, src->min, src->max};
    ks_hist_run_end(dst, &all);
    dst->dropped += src->dropped;
    for (uint32_t i = 0; i < KS_HIST_SUB; i++)
        dst->exact[i] += src->exact[i];
    for (uint32_t o = 0; o < KS_HIST_OCTAVES; o++) {
        if (!src->octave[o])
            continue;
        for (uint32_t i = 0; i < KS_HIST_SUB; i++) {
            if (!src->octave[o][i])
                continue;
            uint64_t *c = slot(dst, (o + 1u) * KS_HIST_SUB + i);
            if (c)
                *c += src->octave[o][i];
            else
                dst->dropped += src->octave[o][i];
        }
    }
}

int64_t ks_hist_quantile(const ks_hist *h, uint64_t num, uint64_t den)
{
    assert(den > 0 && num <= den);
    if (h->count == 0)
        return 0;
    /* rank = ceil(count * num / den) without overflow for counts < 2^44. */
    uint64_t rank = (h->count / den) * num + ((h->count % den) * num + den - 1u) / den;
    if (rank == 0)
        rank = 1;
    uint64_t seen = 0;
    /* Every value is >= min, so no bucket below min's holds a count: the
     * scan starts there (a window of latencies in ms skips the exact
     * buckets and the octaves below, which the metrics' per-window
     * quantiles, on long runs, spent most of their time walking). */
    for (uint32_t b = ks_hist_bucket(h->min); b < KS_HIST_BUCKETS; b++) {
        if (b >= KS_HIST_SUB && !h->octave[b / KS_HIST_SUB - 1u]) {
            b |= KS_HIST_SUB - 1u; /* the rest of an octave never used */
            continue;
        }
        seen += ks_hist_count_at(h, b);
        if (seen >= rank) {
            int64_t lo, hi;
            ks_hist_bucket_range(b, &lo, &hi);
            int64_t mid = lo + (hi - lo) / 2;
            if (mid < h->min)
                mid = h->min;
            if (mid > h->max)
                mid = h->max;
            return mid;
        }
    }
    return h->max;
}

/* The integer part of sum / count, and the remainder: a 128-by-64-bit
 * long division, one bit at a time, exact, and only run when a summary
 * is written. */
static int64_t mean_parts(const ks_hist *h, uint64_t *rem_out)
{
    uint64_t q_hi = 0, q_lo = 0, rem = 0;
    for (int i = 127; i >= 0; i--) {
        uint64_t bit = i >= 64 ? (h->sum_hi >> (i - 64)) & 1u : (h->sum_lo >> i) & 1u;
        bool carry = rem >> 63;
        rem = (rem << 1) | bit;
        if (carry || rem >= h->count) {
            rem -= h->count;
            if (i >= 64)
                q_hi |= UINT64_C(1) << (i - 64);
            else
                q_lo |= UINT64_C(1) << i;
        }
    }
    *rem_out = rem;
    if (q_hi != 0 || q_lo > (uint64_t)INT64_MAX) {
        *rem_out = 0;
        return INT64_MAX;
    }
    return (int64_t)q_lo;
}

int64_t ks_hist_mean(const ks_hist *h)
{
    uint64_t rem;
    return h->count == 0 ? 0 : mean_parts(h, &rem);
}

double ks_hist_mean_real(const ks_hist *h)
{
    if (h->count == 0)
        return 0.0;
    uint64_t rem;
    int64_t q = mean_parts(h, &rem);
    /* IEEE division and addition round the same on every machine */
    return (double)q + (double)rem / (double)h->count;
}
