/*
 * test_histogram.c - tests sim/histogram.c: exact buckets below 128,
 * contiguous covering bucket ranges, bucket lookup, quantile accuracy
 * (within 1/256), exact min/max/count/mean, merging, runs, values kept
 * for later (ks_hist_defer), the empty histogram and negative values.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sim/histogram.h"

/* ks_hist is ~60 KB: keep them out of the cmocka stack frames. */
static ks_hist h1, h2, h_all;

/* Deterministic 64-bit generator for test data (splitmix64), kept local so
 * these tests do not depend on sim/rng.c. */
static uint64_t mix_state;

static uint64_t mix_next(void)
{
    uint64_t x = (mix_state += 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* A value spread log-uniformly over [0, 2^bits). */
static int64_t spread_value(unsigned max_bits)
{
    unsigned bits = (unsigned)(mix_next() % (max_bits + 1u));
    if (bits == 0)
        return 0;
    uint64_t v = mix_next() >> (64u - bits);
    return (int64_t)v;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t abs_diff(int64_t a, int64_t b)
{
    return a > b ? a - b : b - a;
}

static void test_exact_below_128(void **state)
{
    (void)state;
    ks_hist_free(&h1);
    for (int64_t v = 0; v < 128; v++) {
        assert_int_equal(ks_hist_bucket(v), (uint32_t)v);
        int64_t lo, hi;
        ks_hist_bucket_range((uint32_t)v, &lo, &hi);
        assert_int_equal(lo, v);
        assert_int_equal(hi, v);
        for (int64_t k = 0; k <= v; k++)
            ks_hist_add(&h1, v); /* v recorded v+1 times */
    }
    for (uint32_t b = 0; b < 128u; b++)
        assert_int_equal(ks_hist_count_at(&h1, b), b + 1u);
    for (uint32_t b = 128u; b < KS_HIST_BUCKETS; b++)
        assert_int_equal(ks_hist_count_at(&h1, b), 0);

    /* one of each value: every quantile k/128 is exactly k-1 */
    ks_hist_free(&h1);
    for (int64_t v = 0; v < 128; v++)
        ks_hist_add(&h1, v);
    for (uint64_t k = 1; k <= 128u; k++)
        assert_int_equal(ks_hist_quantile(&h1, k, 128u), (int64_t)k - 1);
    assert_int_equal(ks_hist_quantile(&h1, 0u, 1u), 0);
    /* rank = ceil(128 k / 1000): the value at rank r is r - 1 */
    for (uint64_t k = 1; k <= 1000u; k++) {
        int64_t rank = (int64_t)((128u * k + 999u) / 1000u);
        assert_int_equal(ks_hist_quantile(&h1, k, 1000u), rank - 1);
    }
    /* ten values: the 1/3 quantile is the 4th (ceil(10/3)), not the 3rd */
    ks_hist_free(&h1);
    for (int64_t v = 1; v <= 10; v++)
        ks_hist_add(&h1, v);
    assert_int_equal(ks_hist_quantile(&h1, 1u, 3u), 4);
    assert_int_equal(ks_hist_quantile(&h1, 2u, 3u), 7);
    assert_int_equal(ks_hist_quantile(&h1, 1u, 2u), 5);
}

static void test_bucket_ranges_contiguous(void **state)
{
    (void)state;
    int64_t lo, hi, prev_hi;
    ks_hist_bucket_range(0, &lo, &prev_hi);
    assert_int_equal(lo, 0);
    uint32_t b = 1;
    for (; b < KS_HIST_BUCKETS && prev_hi < INT64_MAX; b++) {
        ks_hist_bucket_range(b, &lo, &hi);
        assert_true(lo <= hi);
        assert_int_equal(lo, prev_hi + 1);
        /* log-linear: width at most lo/128 above the exact range */
        if (lo >= 128)
            assert_true((uint64_t)(hi - lo) + 1u <= (uint64_t)lo / 128u);
        /* both ends of a bucket map back to it */
        assert_int_equal(ks_hist_bucket(lo), b);
        assert_int_equal(ks_hist_bucket(hi), b);
        prev_hi = hi;
    }
    /* the ranges reach INT64_MAX, at the bucket that holds INT64_MAX */
    assert_int_equal(prev_hi, INT64_MAX);
    assert_int_equal(b - 1u, ks_hist_bucket(INT64_MAX));
    /* the buckets after that cannot be reached and saturate */
    for (; b < KS_HIST_BUCKETS; b++) {
        ks_hist_bucket_range(b, &lo, &hi);
        assert_int_equal(lo, INT64_MAX);
        assert_int_equal(hi, INT64_MAX);
    }
}

static void check_in_range(int64_t v)
{
    uint32_t b = ks_hist_bucket(v);
    assert_true(b < KS_HIST_BUCKETS);
    int64_t lo, hi;
    ks_hist_bucket_range(b, &lo, &hi);
    if (!(lo <= v && v <= hi))
        print_error("value %lld in bucket %u [%lld, %lld]\n", (long long)v,
                    (unsigned)b, (long long)lo, (long long)hi);
    assert_true(lo <= v && v <= hi);
    /* and ks_hist_add counts it in that bucket */
    ks_hist h;
    ks_hist_init(&h);
    ks_hist_add(&h, v);
    assert_int_equal(ks_hist_count_at(&h, b), 1);
    assert_int_equal(h.min, v);
    assert_int_equal(h.max, v);
    ks_hist_free(&h);
}

static void test_bucket_contains_value(void **state)
{
    (void)state;
    for (unsigned e = 0; e < 63u; e++) {
        int64_t p = INT64_C(1) << e;
        check_in_range(p);
        check_in_range(p - 1);
        check_in_range(p + 1);
        check_in_range(p + p / 2);
        check_in_range(p + (p - 1)); /* 2^(e+1) - 1 */
    }
    check_in_range(INT64_MAX);
    check_in_range(INT64_MAX - 1);
    check_in_range(0);
    mix_state = 1;
    for (int i = 0; i < 200000; i++)
        check_in_range(spread_value(63u));
    /* bucket index is monotone in the value and skips no bucket */
    uint32_t prev_b = 0;
    for (int64_t v = 0; v < 70000; v++) {
        uint32_t b = ks_hist_bucket(v);
        assert_true(b >= prev_b);
        assert_true(b <= prev_b + 1u);
        prev_b = b;
    }
}

static void test_quantiles_1_to_100000(void **state)
{
    (void)state;
    ks_hist_free(&h1);
    for (int64_t v = 1; v <= 100000; v++)
        ks_hist_add(&h1, v);
    assert_int_equal(h1.count, 100000);
    assert_int_equal(h1.min, 1);
    assert_int_equal(h1.max, 100000);
    /* sum = 5000050000: mean 50000.5 rounded down */
    assert_int_equal(ks_hist_mean(&h1), 50000);

    static const struct {
        uint64_t num, den;
        int64_t exact;
    } q[] = {{50, 100, 50000}, {90, 100, 90000}, {99, 100, 99000},
             {999, 1000, 99900}, {1, 2, 50000}, {1, 100, 1000}};
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        int64_t got = ks_hist_quantile(&h1, q[i].num, q[i].den);
        /* within 0.5 % */
        assert_true(abs_diff(got, q[i].exact) * 200 <= q[i].exact);
    }
    /* the ends clamp to the exact min and max */
    assert_int_equal(ks_hist_quantile(&h1, 0u, 100u), 1);
    assert_int_equal(ks_hist_quantile(&h1, 100u, 100u), 100000);
    /* quantiles are monotone in the fraction */
    int64_t prev = 0;
    for (uint64_t k = 0; k <= 1000u; k++) {
        int64_t got = ks_hist_quantile(&h1, k, 1000u);
        assert_true(got >= prev);
        prev = got;
    }
}

/* For any data, a quantile is within 1/256 of the exact order statistic
 * ceil(n * num / den). */
static void test_quantiles_wide_range(void **state)
{
    (void)state;
    enum { N = 20011 }; /* prime, so ranks round */
    static int64_t v[N];
    mix_state = 7;
    ks_hist_free(&h1);
    for (int i = 0; i < N; i++) {
        v[i] = spread_value(40u);
        ks_hist_add(&h1, v[i]);
    }
    qsort(v, N, sizeof v[0], cmp_i64);
    assert_int_equal(h1.min, v[0]);
    assert_int_equal(h1.max, v[N - 1]);
    for (uint64_t num = 1; num <= 1000u; num++) {
        uint64_t rank = ((uint64_t)N * num + 999u) / 1000u;
        int64_t exact = v[rank - 1u];
        int64_t got = ks_hist_quantile(&h1, num, 1000u);
        if (abs_diff(got, exact) * 256 > exact)
            print_error("q %llu/1000: got %lld exact %lld\n", (unsigned long long)num,
                        (long long)got, (long long)exact);
        assert_true(abs_diff(got, exact) * 256 <= exact);
    }
}

static void test_min_max_count(void **state)
{
    (void)state;
    ks_hist_free(&h1);
    static const int64_t vals[] = {500, 7, 123456789, 42, 7, INT64_MAX, 3};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        ks_hist_add(&h1, vals[i]);
    assert_int_equal(h1.count, 7);
    assert_int_equal(h1.min, 3);
    assert_int_equal(h1.max, INT64_MAX);
    assert_int_equal(ks_hist_quantile(&h1, 0u, 1u), 3);
    /* the top quantile is the midpoint of the max's bucket, clamped to max:
     * within 1/256 of it, never above */
    int64_t top = ks_hist_quantile(&h1, 1u, 1u);
    assert_true(top <= INT64_MAX && INT64_MAX - top <= INT64_MAX / 256);
    /* values below 256 sit in one-value buckets: the top quantile is exact */
    ks_hist_free(&h1);
    ks_hist_add(&h1, 3);
    ks_hist_add(&h1, 200);
    assert_int_equal(ks_hist_quantile(&h1, 1u, 1u), 200);

    /* a single value is every quantile, exactly (clamped to min = max) */
    ks_hist_free(&h1);
    ks_hist_add(&h1, 1000003);
    for (uint64_t k = 0; k <= 10u; k++)
        assert_int_equal(ks_hist_quantile(&h1, k, 10u), 1000003);
    assert_int_equal(ks_hist_mean(&h1), 1000003);
}

static void assert_hist_equal(const ks_hist *a, const ks_hist *b)
{
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->min, b->min);
    assert_int_equal(a->max, b->max);
    assert_int_equal(a->sum_hi, b->sum_hi);
    assert_int_equal(a->sum_lo, b->sum_lo);
    for (uint32_t i = 0; i < KS_HIST_BUCKETS; i++)
        assert_int_equal(ks_hist_count_at(a, i), ks_hist_count_at(b, i));
    for (uint64_t k = 0; k <= 1000u; k++)
        assert_int_equal(ks_hist_quantile(a, k, 1000u), ks_hist_quantile(b, k, 1000u));
    assert_int_equal(ks_hist_quantile(a, 999999u, 1000000u),
                     ks_hist_quantile(b, 999999u, 1000000u));
    assert_int_equal(ks_hist_mean(a), ks_hist_mean(b));
}

static void test_merge_equals_adding_all(void **state)
{
    (void)state;
    ks_hist_free(&h1);
    ks_hist_free(&h2);
    ks_hist_free(&h_all);
    mix_state = 99;
    /* h2 gets the smallest and largest values, h1 the rest */
    for (int i = 0; i < 50000; i++) {
        int64_t v = spread_value(50u) + 1;
        ks_hist_add(i % 3 ? &h1 : &h2, v);
        ks_hist_add(&h_all, v);
    }
    ks_hist_add(&h2, 0);
    ks_hist_add(&h_all, 0);
    ks_hist_add(&h2, INT64_C(1) << 55);
    ks_hist_add(&h_all, INT64_C(1) << 55);
    ks_hist_merge(&h1, &h2);
    assert_hist_equal(&h1, &h_all);
    assert_int_equal(h1.min, 0);
    assert_int_equal(h1.max, INT64_C(1) << 55);

    /* merging into an empty histogram copies, min and max included;
     * merging an empty one is a no-op */
    ks_hist_free(&h1);
    ks_hist_free(&h2);
    ks_hist_add(&h2, 5000);
    ks_hist_add(&h2, 7000);
    ks_hist_merge(&h1, &h2);
    assert_hist_equal(&h1, &h2);
    assert_int_equal(h1.min, 5000);
    assert_int_equal(h1.max, 7000);
    ks_hist_free(&h1);
    ks_hist_merge(&h1, &h_all);
    assert_hist_equal(&h1, &h_all);
    ks_hist_free(&h2);
    ks_hist_merge(&h1, &h2);
    assert_hist_equal(&h1, &h_all);

    /* merge carries out of the low 64 bits of the sum */
    ks_hist_free(&h1);
    ks_hist_free(&h2);
    ks_hist_free(&h_all);
    for (int i = 0; i < 2; i++) {
        ks_hist_add(&h1, INT64_MAX);
        ks_hist_add(&h2, INT64_MAX);
        ks_hist_add(&h_all, INT64_MAX);
        ks_hist_add(&h_all, INT64_MAX);
    }
    ks_hist_merge(&h1, &h2);
    assert_hist_equal(&h1, &h_all);
    assert_int_equal(h1.sum_hi, 1);
    assert_int_equal(h1.sum_lo, UINT64_MAX - 3u); /* 4 * (2^63 - 1) = 2^65 - 4 */
    assert_int_equal(ks_hist_mean(&h1), INT64_MAX);
}

/* Four histograms for the tests that compare two against two. */
typedef struct hist4 {
    ks_hist a, b, ra, rb;
} hist4;

static void hist4_init(hist4 *h)
{
    ks_hist_init(&h->a);
    ks_hist_init(&h->b);
    ks_hist_init(&h->ra);
    ks_hist_init(&h->rb);
}

static void hist4_free(hist4 *h)
{
    ks_hist_free(&h->a);
    ks_hist_free(&h->b);
    ks_hist_free(&h->ra);
    ks_hist_free(&h->rb);
}

/* ks_hist_add2 is ks_hist_add on each of the two: exact buckets,
 * octaves (new ones too), negative values, and histograms that already
 * differ. */
static void test_add2_equals_two_adds(void **state)
{
    (void)state;
    hist4 h;
    hist4_init(&h);
    ks_hist_add(&h.b, 77);
    ks_hist_add(&h.rb, 77);
    ks_hist_add(&h.a, INT64_C(1) << 40);
    ks_hist_add(&h.ra, INT64_C(1) << 40);
    mix_state = 7;
    for (int i = 0; i < 20000; i++) {
        int64_t v = i % 97 == 0 ? -(int64_t)i : spread_value(50u);
        ks_hist_add2(&h.a, &h.b, v);
        ks_hist_add(&h.ra, v);
        ks_hist_add(&h.rb, v);
    }
    ks_hist_add2(&h.a, &h.b, INT64_MAX);
    ks_hist_add(&h.ra, INT64_MAX);
    ks_hist_add(&h.rb, INT64_MAX);
    assert_hist_equal(&h.a, &h.ra);
    assert_hist_equal(&h.b, &h.rb);
    assert_int_equal(h.a.count, 20002);
    hist4_free(&h);
}

/* Runs (buckets per value, the rest once) give what ks_hist_add gives,
 * into an empty histogram and into one that has values already, with
 * negative values, exact and octave buckets, and an empty run. */
static void test_run_equals_adds(void **state)
{
    (void)state;
    hist4 h;
    hist4_init(&h);
    ks_hist_add(&h.b, 5);
    ks_hist_add(&h.rb, 5);
    ks_hist_run none = {0};
    ks_hist_run_end(&h.a, &none);
    assert_hist_equal(&h.a, &h.ra);
    mix_state = 11;
    for (int k = 0; k < 400; k++) {
        ks_hist_run r1 = {0}, r2 = {0};
        for (int i = 0; i < k % 23; i++) {
            int64_t v = i == 3 ? -7 : i == 4 ? INT64_MAX : spread_value(50u);
            ks_hist_run_add(&h.a, &r1, v);
            ks_hist_add(&h.ra, v);
            ks_hist_run_add2(&h.a, &h.b, &r2, v / 3);
            ks_hist_add(&h.ra, v / 3);
            ks_hist_add(&h.rb, v / 3);
        }
        ks_hist_run_end(&h.a, &r1);
        ks_hist_run_end(&h.a, &r2);
        ks_hist_run_end(&h.b, &r2);
    }
    assert_hist_equal(&h.a, &h.ra);
    assert_hist_equal(&h.b, &h.rb);
    assert_true(h.a.count > 1000u);
    assert_true(h.a.sum_hi > 0u); /* INT64_MAX values carry into the high word */
    hist4_free(&h);
}

/* Values kept in a ks_hist_defer for four histograms, in any mix,
 * flushed when it fills and at the end, make the same four histograms
 * as ks_hist_add of each value in order: negative values, values of
 * 2^62 and more (counted at once), and a defer that is off. */
static ks_hist kept[4], direct[4];

static void test_defer_equals_adds(void **state)
{
    (void)state;
    for (int on = 0; on < 2; on++) {
        for (int i = 0; i < 4; i++) {
            ks_hist_init(&kept[i]);
            ks_hist_init(&direct[i]);
        }
        ks_hist_defer d;
        memset(&d, 0, sizeof d);
        d.on = on != 0;
        mix_state = 29;
        for (int k = 0; k < 5000; k++) {
            unsigned which = (unsigned)(mix_next() % 4u);
            int64_t v = k % 97 == 3 ? -5 : k % 89 == 4 ? INT64_MAX
                      : k % 83 == 5 ? (int64_t)(UINT64_C(1) << 62) : spread_value(61u);
            ks_hist_defer_add(&d, kept, which, v);
            ks_hist_add(&direct[which], v);
            assert_true(d.n <= KS_HIST_DEFER);
            if (!on)
                assert_int_equal(d.n, 0);
        }
        if (on)
            assert_true(d.n > 0); /* some are still kept */
        ks_hist_defer_flush(&d, kept);
        assert_int_equal(d.n, 0);
        for (int i = 0; i < 4; i++) {
            assert_hist_equal(&kept[i], &direct[i]);
            assert_true(kept[i].count > 1000u);
            ks_hist_free(&kept[i]);
            ks_hist_free(&direct[i]);
        }
    }
}

static void test_empty(void **state)
{
    (void)state;
    ks_hist_free(&h1);
    assert_int_equal(h1.count, 0);
    assert_int_equal(ks_hist_mean(&h1), 0);
    assert_int_equal(ks_hist_quantile(&h1, 0u, 1u), 0);
    assert_int_equal(ks_hist_quantile(&h1, 1u, 2u), 0);
    assert_int_equal(ks_hist_quantile(&h1, 999u, 1000u), 0);
    assert_int_equal(ks_hist_quantile(&h1, 1u, 1u), 0);
    /* init clears a used histogram */
    ks_hist_add(&h1, 12345);
    ks_hist_free(&h1);
    assert_int_equal(h1.count, 0);
    assert_int_equal(ks_hist_count_at(&h1, ks_hist_bucket(12345)), 0);
    assert_int_equal(ks_hist_quantile(&h1, 1u, 2u), 0);
}

static void test_negative_recorded_as_zero(void **state)
{
    (void)state;
    assert_int_equal(ks_hist_bucket(-1), 0);
    assert_int_equal(ks_hist_bucket(INT64_MIN), 0);
    ks_hist_free(&h1);
    ks_hist_add(&h1, -5);
    ks_hist_add(&h1, INT64_MIN);
    assert_int_equal(h1.count, 2);
    assert_int_equal(ks_hist_count_at(&h1, 0), 2);
    assert_int_equal(h1.min, 0);
    assert_int_equal(h1.max, 0);
    assert_int_equal(h1.sum_lo, 0);
    assert_int_equal(h1.sum_hi, 0);
    assert_int_equal(ks_hist_mean(&h1), 0);
    assert_int_equal(ks_hist_quantile(&h1, 1u, 2u), 0);
    ks_hist_add(&h1, 10);
    ks_hist_add(&h1, -10);
    assert_int_equal(h1.min, 0);
    assert_int_equal(h1.max, 10);
    assert_int_equal(ks_hist_mean(&h1), 2); /* (0 + 0 + 10 + 0) / 4 */
}

static void test_mean_exact(void **state)
{
    (void)state;
    static const struct {
        int64_t v[4];
        size_t n;
        int64_t mean;
    } sets[] = {
        {{7}, 1, 7},
        {{1, 2}, 2, 1}, /* 1.5 rounded down */
        {{3, 4, 5}, 3, 4},
        {{0, 0, 1}, 3, 0},
        {{1000000007, 3}, 2, 500000005},
        {{1, 1, 1, 2}, 4, 1},
        {{999, 1000, 1001, 1002}, 4, 1000},
        {{INT64_MAX, INT64_MAX}, 2, INT64_MAX}, /* sum 2^64 - 2 */
    };
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
        ks_hist_free(&h1);
        for (size_t i = 0; i < sets[s].n; i++)
            ks_hist_add(&h1, sets[s].v[i]);
        assert_int_equal(ks_hist_mean(&h1), sets[s].mean);
    }
    /* 1000 values 1..1000: mean 500.5 -> 500, and 0..1000 -> exactly 500 */
    ks_hist_free(&h1);
    for (int64_t v = 1; v <= 1000; v++)
        ks_hist_add(&h1, v);
    assert_int_equal(ks_hist_mean(&h1), 500);
    assert_true(ks_hist_mean_real(&h1) == 500.5);
    ks_hist_add(&h1, 0);
    assert_int_equal(ks_hist_mean(&h1), 500);
    assert_true(ks_hist_mean_real(&h1) == 500.0);
    /* the summary's mean keeps its fraction: batches of 10 and 11
     * records, 97 of 100 of 11, mean 10.97 (not 10) */
    ks_hist_free(&h1);
    for (int i = 0; i < 100; i++)
        ks_hist_add(&h1, i < 97 ? 11 : 10);
    assert_int_equal(ks_hist_mean(&h1), 10);
    assert_true(ks_hist_mean_real(&h1) == 10.0 + 97.0 / 100.0);
    /* past INT64_MAX the integer part saturates and the fraction is 0 */
    ks_hist_free(&h1);
    ks_hist_add(&h1, INT64_MAX);
    ks_hist_add(&h1, INT64_MAX);
    assert_true(ks_hist_mean_real(&h1) == (double)INT64_MAX);
    ks_hist_free(&h1);
    assert_true(ks_hist_mean_real(&h1) == 0.0);

    /* a sum past 2^64 carries into the high word: 8 * 2^62 = 2^65 */
    ks_hist_free(&h1);
    for (int i = 0; i < 8; i++)
        ks_hist_add(&h1, INT64_C(1) << 62);
    assert_int_equal(h1.sum_hi, 2);
    assert_int_equal(h1.sum_lo, 0);
    assert_int_equal(ks_hist_mean(&h1), INT64_C(1) << 62);
}

/* A sum past 2^64 with a count that is not a power of two: the mean is
 * still exact (an earlier version halved sum and count together and lost
 * the count's low bits: five values of 4e18 gave 5e18). */
static void test_mean_past_2_64(void **state)
{
    (void)state;
    ks_hist_free(&h1);
    for (int i = 0; i < 5; i++)
        ks_hist_add(&h1, INT64_C(4000000000000000000));
    assert_int_equal(h1.sum_hi, 1);
    assert_int_equal(ks_hist_mean(&h1), INT64_C(4000000000000000000));
    ks_hist_add(&h1, 7);
    /* (2e19 + 7) / 6 = 3333333333333333334.5 -> ...334 */
    assert_int_equal(ks_hist_mean(&h1), INT64_C(3333333333333333334));
}

/* The quantile as a scan of every bucket from 0 would give it (what
 * ks_hist_quantile did before it started at the minimum's bucket). */
static int64_t quantile_from_zero(const ks_hist *h, uint64_t num, uint64_t den)
{
    if (h->count == 0)
        return 0;
    uint64_t rank = (h->count / den) * num + ((h->count % den) * num + den - 1u) / den;
    rank = rank ? rank : 1u;
    uint64_t seen = 0;
    for (uint32_t b = 0; b < KS_HIST_BUCKETS; b++) {
        seen += ks_hist_count_at(h, b);
        if (seen >= rank) {
            int64_t lo, hi;
            ks_hist_bucket_range(b, &lo, &hi);
            int64_t mid = lo + (hi - lo) / 2;
            return mid < h->min ? h->min : mid > h->max ? h->max : mid;
        }
    }
    return h->max;
}

/* Starting the scan at the minimum's bucket changes no quantile: windows
 * of values in a few octaves, after a reset has left the octaves of
 * earlier windows allocated and empty (the metrics' case), exact values,
 * zeros, and a histogram that is never reset. A reset, which zeroes only
 * the buckets from min's to max's, leaves every bucket empty. */
static void test_quantile_scan_from_min(void **state)
{
    (void)state;
    static const uint64_t num[] = {0, 1, 50, 90, 99, 999, 1000};
    static const uint64_t den[] = {1, 1000, 100, 100, 100, 1000, 1000};
    ks_hist_free(&h1); /* what earlier tests left, if anything */
    ks_hist_free(&h2);
    mix_state = 77;
    for (int window = 0; window < 40; window++) {
        ks_hist_reset(&h1);
        for (uint32_t b = 0; b < KS_HIST_BUCKETS; b++) /* the reset left nothing */
            assert_int_equal(ks_hist_count_at(&h1, b), 0);
        assert_int_equal(h1.count, 0);
        int shift = window % 5 == 4 ? 0 : 10 + window % 23;
        int n = 1 + (int)(mix_next() % 300u);
        for (int i = 0; i < n; i++) {
            int64_t v = (int64_t)(mix_next() % (UINT64_C(3) << shift));
            if (window % 7 == 3 && i == 0)
                v = 0;
            ks_hist_add(&h1, v);
            ks_hist_add(&h2, v + (int64_t)(window % 3));
        }
        for (size_t q = 0; q < sizeof num / sizeof num[0]; q++) {
            assert_int_equal(ks_hist_quantile(&h1, num[q], den[q]),
                             quantile_from_zero(&h1, num[q], den[q]));
            assert_int_equal(ks_hist_quantile(&h2, num[q], den[q]),
                             quantile_from_zero(&h2, num[q], den[q]));
        }
    }
    ks_hist_free(&h1);
    ks_hist_free(&h2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_below_128),
        cmocka_unit_test(test_bucket_ranges_contiguous),
        cmocka_unit_test(test_bucket_contains_value),
        cmocka_unit_test(test_quantiles_1_to_100000),
        cmocka_unit_test(test_quantiles_wide_range),
        cmocka_unit_test(test_min_max_count),
        cmocka_unit_test(test_merge_equals_adding_all),
        cmocka_unit_test(test_add2_equals_two_adds),
        cmocka_unit_test(test_run_equals_adds),
        cmocka_unit_test(test_defer_equals_adds),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_negative_recorded_as_zero),
        cmocka_unit_test(test_mean_exact),
        cmocka_unit_test(test_mean_past_2_64),
        cmocka_unit_test(test_quantile_scan_from_min),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
