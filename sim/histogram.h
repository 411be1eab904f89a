/*
 * histogram.h - log-linear histogram of non-negative integers (latencies
 * in ns, sizes in bytes).
 *
 * Owns: its buckets. Values below 2^KS_HIST_SUB_BITS are counted exactly;
 * above, each power of two (an octave) is split into 2^KS_HIST_SUB_BITS
 * equal buckets, so a reported percentile is within 1/256 (0.4 %) of the
 * true value. An octave's buckets are allocated when a value first lands
 * in it, so a histogram costs about 1 KiB per octave in use (latencies
 * from 1 us to 1 s span 10), not the 59 KiB of every possible bucket.
 * Histograms merge by adding counts, so per-producer histograms combine
 * into one exactly. ks_hist_free releases the octaves.
 */
#ifndef KS_HISTOGRAM_H
#define KS_HISTOGRAM_H

#include <stdbool.h>
#include <stdint.h>

#define KS_HIST_SUB_BITS 7u
#define KS_HIST_SUB (1u << KS_HIST_SUB_BITS)
/* Exact buckets [0, SUB) then (63 - SUB_BITS + 1) octaves of SUB buckets. */
#define KS_HIST_BUCKETS (KS_HIST_SUB * (64u - KS_HIST_SUB_BITS + 1u))

#define KS_HIST_OCTAVES (KS_HIST_BUCKETS / KS_HIST_SUB - 1u)

typedef struct ks_hist {
    uint64_t count;
    int64_t min, max;
    uint64_t sum_hi, sum_lo; /* 128-bit sum, for an exact mean */
    uint64_t dropped;        /* values not counted in a bucket (no memory) */
    uint64_t exact[KS_HIST_SUB];
    uint64_t *octave[KS_HIST_OCTAVES];
} ks_hist;

/* Initialises an empty histogram (on memory that holds no octaves). */
void ks_hist_init(ks_hist *h);
/* Releases the octaves; the histogram is then empty. */
void ks_hist_free(ks_hist *h);
/* Empties the histogram, keeping its octaves for reuse. Like
 * ks_hist_quantile, it counts on every bucket's count lying between
 * min's bucket and max's, which holds once every run has ended. */
void ks_hist_reset(ks_hist *h);
/* Records v (negative values are recorded as 0). */
void ks_hist_add(ks_hist *h, int64_t v);
/* Records v in both a and b (which must differ): ks_hist_add twice, with
 * the bucket found once. */
void ks_hist_add2(ks_hist *a, ks_hist *b, int64_t v);
/* A run of values added as their buckets one by one and their count,
 * extremes and sum once: ks_hist_run_add per value, then ks_hist_run_end.
 * The result equals ks_hist_add of each value (count, min, max and the
 * 128-bit sum commute). */
typedef struct ks_hist_run {
    uint64_t count, sum_hi, sum_lo;
    int64_t min, max;
} ks_hist_run;

/* Counts v's bucket in h, and v in the run. */
void ks_hist_run_add(ks_hist *h, ks_hist_run *r, int64_t v);
/* The same for two histograms (which must differ) sharing one run. */
void ks_hist_run_add2(ks_hist *a, ks_hist *b, ks_hist_run *r, int64_t v);
/* Adds the run's count, extremes and sum to h; a run's values count in
 * h's quantiles and resets only once it has ended. */
void ks_hist_run_end(ks_hist *h, const ks_hist_run *r);
/* Values for up to four histograms of one owner (an array of them),
 * counted later. With many owners, an owner's histograms have left the
 * cache (and the TLB) by its next value, and counting a value touches
 * three of their lines; kept here, in one place near the owner's other
 * state, values are counted KS_HIST_DEFER at a time. Counting commutes,
 * so once flushed the histograms hold exactly what ks_hist_add of each
 * value would have made of them: whoever reads them flushes first. */
#define KS_HIST_DEFER 63u
typedef struct ks_hist_defer {
    uint32_t n;
    bool on;                   /* false: values are counted at once */
    uint64_t v[KS_HIST_DEFER]; /* a value (>= 0, < 2^62) << 2 | its histogram */
} ks_hist_defer;

/* Counts every value kept into hists[its index]; d is then empty. */
void ks_hist_defer_flush(ks_hist_defer *d, ks_hist *hists);
/* Keeps v for hists[which] (which < 4), flushing when d is full; counts
 * it at once when d is off, or for a value of 2^62 or more. */
static inline void ks_hist_defer_add(ks_hist_defer *d, ks_hist *hists, unsigned which, int64_t v)
{
    uint64_t u = v < 0 ? 0u : (uint64_t)v;
    if (!d->on || (u >> 62)) {
        ks_hist_add(&hists[which], v);
        return;
    }
    if (d->n == KS_HIST_DEFER)
        ks_hist_defer_flush(d, hists);
    d->v[d->n++] = u << 2 | (which & 3u);
}

/* Adds every count of src into dst. */
void ks_hist_merge(ks_hist *dst, const ks_hist *src);
/* The count in bucket b. */
uint64_t ks_hist_count_at(const ks_hist *h, uint32_t b);
/* The value at quantile num/den (e.g. 999/1000): the smallest bucket whose
 * cumulative count reaches ceil(count * num / den), reported as the
 * bucket's midpoint clamped to [min, max]. 0 when empty. */
int64_t ks_hist_quantile(const ks_hist *h, uint64_t num, uint64_t den);
/* Mean rounded down; 0 when empty. */
int64_t ks_hist_mean(const ks_hist *h);
/* Mean as a real (integer part exact, the fraction rounded to a double);
 * 0 when empty. For output only, never for ordering events. */
double ks_hist_mean_real(const ks_hist *h);

/* Bucket index of a value and the range [lo, hi] a bucket covers. */
uint32_t ks_hist_bucket(int64_t v);
void ks_hist_bucket_range(uint32_t b, int64_t *lo, int64_t *hi);

#endif
