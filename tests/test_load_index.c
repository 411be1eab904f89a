/*
 * test_load_index.c - the load index draws what Kafka's cumulative
 * frequency table draws (KIP-794): against the table ks_us_load_stats
 * builds from the same queue lengths, for every draw below the total, over
 * a fixed pseudo-random sequence of queue changes; a snapshot that ignores
 * changes made after it; and the all-equal case.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/producer/load_index.h"
#include "models/producer/partitioner.h"

#define NP 37

typedef struct queues {
    uint32_t len[NP];
    bool has[NP];
} queues;

static uint32_t len_of(const void *ctx, uint32_t p, bool *has)
{
    const queues *q = ctx;
    *has = q->has[p];
    return q->len[p];
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* Kafka's table over the same deques, and each draw's entry. */
static void check_against_table(const ks_load_index *li, const queues *q, ks_rng *rng)
{
    ks_partitioner pp;
    assert_true(ks_partitioner_init(&pp, KS_PARTITIONER_UNIFORM_STICKY, NP, 16384, rng));
    uint32_t qs[NP], ids[NP], n = 0;
    for (uint32_t p = 0; p < NP; p++)
        if (q->has[p]) {
            qs[n] = q->len[p];
            ids[n++] = p;
        }
    ks_us_load_stats(&pp, qs, ids, n, true);
    if (pp.stats_len > 0) {
        assert_int_equal(ks_li_total(li), pp.cft[pp.stats_len - 1]);
        for (uint32_t r = 0, e = 0; r < pp.cft[pp.stats_len - 1]; r++) {
            while (pp.cft[e] <= r)
                e++;
            assert_int_equal(ks_li_find(li, r), pp.cft_ids[e]);
        }
    } else if (n == NP) {
        assert_true(ks_li_all_equal(li)); /* the table is dropped only then */
    }
    ks_partitioner_free(&pp);
}

static void test_draws_match_the_table(void **state)
{
    (void)state;
    ks_rng rng;
    ks_rng_stream(&rng, 1, "test");
    ks_load_index li;
    assert_true(ks_li_init(&li, NP));
    queues q = {{0}, {false}};
    uint64_t s = 7;
    for (int step = 0; step < 3000; step++) {
        uint32_t p = (uint32_t)(lcg(&s) % NP);
        if (!q.has[p] || lcg(&s) % 8 == 0) {
            q.has[p] = true;
        } else {
            uint32_t grow = (uint32_t)(lcg(&s) % 3);
            q.len[p] = grow == 0 && q.len[p] > 0 ? q.len[p] - 1 : q.len[p] + (grow == 2);
            if (step % 100 == 0)
                q.len[p] += 40; /* grows the count table */
        }
        ks_li_touch(&li, p);
        if (step % 7 == 0) {
            assert_true(ks_li_snapshot(&li, len_of, &q));
            check_against_table(&li, &q, &rng);
        }
    }
    ks_li_free(&li);
}

static void test_snapshot_holds_until_the_next(void **state)
{
    (void)state;
    ks_load_index li;
    assert_true(ks_li_init(&li, 3));
    queues q = {{0, 3, 1}, {true, true, true}};
    for (uint32_t p = 0; p < 3; p++)
        ks_li_touch(&li, p);
    assert_true(ks_li_snapshot(&li, len_of, &q));
    /* weights 4, 1, 3: the table 4, 5, 8 */
    assert_int_equal(ks_li_total(&li), 8);
    assert_int_equal(ks_li_find(&li, 3), 0);
    assert_int_equal(ks_li_find(&li, 4), 1);
    assert_int_equal(ks_li_find(&li, 5), 2);
    assert_int_equal(ks_li_find(&li, 7), 2);
    q.len[1] = 1; /* changed after the snapshot: not seen until the next */
    ks_li_touch(&li, 1);
    assert_int_equal(ks_li_total(&li), 8);
    assert_false(ks_li_all_equal(&li));
    assert_true(ks_li_snapshot(&li, len_of, &q));
    assert_int_equal(li.max, 1);
    assert_int_equal(ks_li_total(&li), 2 + 1 + 1);
    q.len[0] = 1;
    ks_li_touch(&li, 0);
    assert_true(ks_li_snapshot(&li, len_of, &q));
    assert_true(ks_li_all_equal(&li));
    ks_li_free(&li);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_draws_match_the_table),
        cmocka_unit_test(test_snapshot_holds_until_the_next),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
