/*
 * histogram.h - log-linear histogram of non-negative integers (latencies
 * in ns, sizes in bytes).
 *
 * Owns: fixed buckets, no allocation. Values below 2^KS_HIST_SUB_BITS are
 * counted exactly; above, each power of two is split into 2^KS_HIST_SUB_BITS
 * equal buckets, so a reported percentile is within 1/256 (0.4 %) of the
 * true value. Histograms with the same layout merge by adding counts, so
 * per-producer histograms combine into one exactly.
 */
#ifndef KS_HISTOGRAM_H
#define KS_HISTOGRAM_H

#include <stdbool.h>
#include <stdint.h>

#define KS_HIST_SUB_BITS 7u
#define KS_HIST_SUB (1u << KS_HIST_SUB_BITS)
/* Exact buckets [0, SUB) then (63 - SUB_BITS + 1) octaves of SUB buckets. */
#define KS_HIST_BUCKETS (KS_HIST_SUB * (64u - KS_HIST_SUB_BITS + 1u))

typedef struct ks_hist {
    uint64_t count;
    int64_t min, max;
    uint64_t sum_hi, sum_lo; /* 128-bit sum, for an exact mean */
    uint64_t buckets[KS_HIST_BUCKETS];
} ks_hist;

void ks_hist_init(ks_hist *h);
/* Records v (negative values are recorded as 0). */
void ks_hist_add(ks_hist *h, int64_t v);
/* Adds every count of src into dst. */
void ks_hist_merge(ks_hist *dst, const ks_hist *src);
/* The value at quantile num/den (e.g. 999/1000): the smallest bucket whose
 * cumulative count reaches ceil(count * num / den), reported as the
 * bucket's midpoint clamped to [min, max]. 0 when empty. */
int64_t ks_hist_quantile(const ks_hist *h, uint64_t num, uint64_t den);
/* Mean rounded down; 0 when empty. */
int64_t ks_hist_mean(const ks_hist *h);

/* Bucket index of a value and the range [lo, hi] a bucket covers. */
uint32_t ks_hist_bucket(int64_t v);
void ks_hist_bucket_range(uint32_t b, int64_t *lo, int64_t *hi);

#endif
