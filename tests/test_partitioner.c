/*
 * test_partitioner.c - murmur2 against the vectors of Kafka's own
 * UtilsTest.testMurmur2, toPositive, and keyed partitioning.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/producer/partitioner.h"

#include <stdio.h>
#include <string.h>

static int32_t murmur_str(const char *s)
{
    return ks_murmur2((const uint8_t *)s, strlen(s));
}

/* [K] clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java */
static void test_murmur2_kafka_vectors(void **state)
{
    (void)state;
    assert_int_equal(murmur_str("21"), -973932308);
    assert_int_equal(murmur_str("foobar"), -790332482);
    assert_int_equal(murmur_str("a-little-bit-long-string"), -985981536);
    assert_int_equal(murmur_str("a-little-bit-longer-string"), -1486304829);
    assert_int_equal(murmur_str("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"), -58897971);
    const uint8_t abc[] = {'a', 'b', 'c'};
    assert_int_equal(ks_murmur2(abc, 3), 479470107);
}

/* Every tail length (0-3 bytes past the blocks) and bytes >= 0x80, which
 * Java masks to unsigned: a reference written the way Java's loop reads. */
static int32_t reference(const uint8_t *d, size_t len)
{
    uint32_t h = 0x9747b28cu ^ (uint32_t)len, m = 0x5bd1e995u;
    size_t n4 = len / 4;
    for (size_t i = 0; i < n4; i++) {
        uint32_t k = (uint32_t)(d[i * 4 + 0] & 0xff) + ((uint32_t)(d[i * 4 + 1] & 0xff) << 8) +
                     ((uint32_t)(d[i * 4 + 2] & 0xff) << 16) + ((uint32_t)(d[i * 4 + 3] & 0xff) << 24);
        k *= m;
        k ^= k >> 24;
        k *= m;
        h *= m;
        h ^= k;
    }
    size_t rem = len % 4, t = len & ~(size_t)3;
    if (rem == 3)
        h ^= (uint32_t)(d[t + 2] & 0xff) << 16;
    if (rem >= 2)
        h ^= (uint32_t)(d[t + 1] & 0xff) << 8;
    if (rem >= 1) {
        h ^= (uint32_t)(d[t] & 0xff);
        h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return (int32_t)h;
}

static void test_murmur2_tails_and_high_bytes(void **state)
{
    (void)state;
    uint8_t buf[64];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(0x80u + i * 37u);
    for (size_t len = 0; len <= sizeof buf; len++)
        assert_int_equal(ks_murmur2(buf, len), reference(buf, len));
}

static void test_to_positive(void **state)
{
    (void)state;
    assert_int_equal(ks_to_positive(0), 0);
    assert_int_equal(ks_to_positive(5), 5);
    assert_int_equal(ks_to_positive(-1), 0x7fffffff);
    assert_int_equal(ks_to_positive(INT32_MIN), 0); /* not abs(), which overflows */
    assert_int_equal(ks_to_positive(-973932308), (uint32_t)(-973932308 & 0x7fffffff));
}

static void test_partition_for_key(void **state)
{
    (void)state;
    /* toPositive(-973932308) = 1173551340; % 3 = 0, % 7 = 1 */
    assert_int_equal(ks_partition_for_key((const uint8_t *)"21", 2, 3), 1173551340u % 3u);
    assert_int_equal(ks_partition_for_key((const uint8_t *)"21", 2, 7), 1173551340u % 7u);
    assert_int_equal(ks_partition_for_key((const uint8_t *)"21", 2, 1), 0);
    /* the empty key is hashed like any other: murmur2("") = 275646681 */
    assert_int_equal(ks_murmur2((const uint8_t *)"", 0), 275646681);
    assert_int_equal(ks_partition_for_key((const uint8_t *)"", 0, 12), 275646681u % 12u);
    /* equal keys, equal partitions; a new partition count moves some keys */
    unsigned moved = 0;
    for (unsigned i = 0; i < 1000; i++) {
        char key[16];
        int n = snprintf(key, sizeof key, "account-%u", i);
        uint32_t p3 = ks_partition_for_key((const uint8_t *)key, (size_t)n, 3);
        assert_int_equal(p3, ks_partition_for_key((const uint8_t *)key, (size_t)n, 3));
        moved += p3 != ks_partition_for_key((const uint8_t *)key, (size_t)n, 4);
    }
    assert_true(moved > 500 && moved < 900); /* about 3/4 move from 3 to 4 */
}

/* KIP-794: queue sizes 0, 3, 1 give weights 4, 1, 3 and the table 4, 5, 8. */
static void test_load_stats_table(void **state)
{
    (void)state;
    ks_rng rng;
    ks_rng_stream(&rng, 1, "test");
    ks_partitioner pp;
    assert_true(ks_partitioner_init(&pp, KS_PARTITIONER_UNIFORM_STICKY, 3, 16384, &rng));
    const uint32_t q[3] = {0, 3, 1}, ids[3] = {0, 1, 2};
    ks_us_load_stats(&pp, q, ids, 3, true);
    assert_int_equal(pp.stats_len, 3);
    assert_int_equal(pp.cft[0], 4);
    assert_int_equal(pp.cft[1], 5);
    assert_int_equal(pp.cft[2], 8);
    /* the weighted choice follows the weights: 4/8, 1/8, 3/8 */
    uint32_t hits[3] = {0, 0, 0};
    for (int i = 0; i < 80000; i++) {
        pp.current = -1;
        hits[ks_us_partition(&pp)]++;
    }
    assert_in_range(hits[0], 39000, 41000);
    assert_in_range(hits[1], 9400, 10600);
    assert_in_range(hits[2], 29000, 31000);
    /* equal queues: no stats, a uniform choice */
    const uint32_t eq[3] = {2, 2, 2};
    ks_us_load_stats(&pp, eq, ids, 3, true);
    assert_int_equal(pp.stats_len, 0);
    /* not every partition has a queue yet: no stats */
    ks_us_load_stats(&pp, q, ids, 3, false);
    assert_int_equal(pp.stats_len, 0);
    ks_partitioner_free(&pp);
}

/* Uniform sticky switches after batch.size bytes once the partition's
 * batches are full, and unconditionally at twice that. */
static void test_uniform_sticky_switch(void **state)
{
    (void)state;
    ks_rng rng;
    ks_rng_stream(&rng, 2, "test");
    ks_partitioner pp;
    assert_true(ks_partitioner_init(&pp, KS_PARTITIONER_UNIFORM_STICKY, 1000, 100, &rng));
    ks_us_partition(&pp);
    uint32_t sw = pp.switches;
    ks_us_update(&pp, 99, true);
    assert_int_equal(pp.switches, sw); /* below batch.size */
    ks_us_update(&pp, 1, false);
    assert_int_equal(pp.switches, sw); /* reached, but the batch is not full */
    ks_us_update(&pp, 99, false);
    assert_int_equal(pp.switches, sw); /* 199 < 200 */
    ks_us_update(&pp, 1, false);
    assert_int_equal(pp.switches, sw + 1); /* 2 x batch.size: switch anyway */
    assert_int_equal(pp.produced_bytes, 0);
    ks_us_update(&pp, 100, true);
    assert_int_equal(pp.switches, sw + 2);
    ks_partitioner_free(&pp);
}

/* KIP-480: the sticky partition changes only when a new batch is needed
 * for it, and always to another partition. */
static void test_sticky(void **state)
{
    (void)state;
    ks_rng rng;
    ks_rng_stream(&rng, 3, "test");
    ks_partitioner pp;
    assert_true(ks_partitioner_init(&pp, KS_PARTITIONER_STICKY, 4, 0, &rng));
    assert_int_equal(pp.switches, 0);
    uint32_t p = ks_sticky_partition(&pp);
    assert_int_equal(pp.switches, 1); /* the first choice counts */
    assert_int_equal(ks_sticky_partition(&pp), p);
    ks_sticky_on_new_batch(&pp, (p + 1) % 4); /* a new batch elsewhere: stay */
    assert_int_equal(ks_sticky_partition(&pp), p);
    assert_int_equal(pp.switches, 1);
    for (int i = 0; i < 1000; i++) {
        ks_sticky_on_new_batch(&pp, p);
        uint32_t q = ks_sticky_partition(&pp);
        assert_true(q != p && q < 4);
        p = q;
    }
    assert_int_equal(pp.switches, 1001); /* KIP-480 switches counted too */
    ks_partitioner_free(&pp);
    /* one partition: it stays */
    assert_true(ks_partitioner_init(&pp, KS_PARTITIONER_STICKY, 1, 0, &rng));
    ks_sticky_on_new_batch(&pp, ks_sticky_partition(&pp));
    assert_int_equal(ks_sticky_partition(&pp), 0);
    ks_partitioner_free(&pp);
}

/* Round-robin: consecutive partitions from a random start. */
static void test_round_robin(void **state)
{
    (void)state;
    ks_rng rng;
    ks_rng_stream(&rng, 4, "test");
    ks_partitioner pp;
    assert_true(ks_partitioner_init(&pp, KS_PARTITIONER_ROUND_ROBIN, 3, 0, &rng));
    uint32_t first = ks_rr_next(&pp);
    for (uint32_t i = 1; i < 10; i++)
        assert_int_equal(ks_rr_next(&pp), (first + i) % 3);
    ks_partitioner_free(&pp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_murmur2_kafka_vectors),
        cmocka_unit_test(test_murmur2_tails_and_high_bytes),
        cmocka_unit_test(test_to_positive),
        cmocka_unit_test(test_partition_for_key),
        cmocka_unit_test(test_load_stats_table),
        cmocka_unit_test(test_uniform_sticky_switch),
        cmocka_unit_test(test_sticky),
        cmocka_unit_test(test_round_robin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
