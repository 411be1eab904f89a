/*
 * test_ready_index.c - the ready index answers what Kafka's walk over
 * every partition in order answers: against a plain array model (the walk
 * RecordAccumulator.ready and drain do), over a fixed pseudo-random
 * sequence of topologies, key changes and queries; plus the lists by
 * leader, a rebuild, and the invariant checks catching a corrupted tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/producer/ready_index.h"

#include <string.h>

#define MAXP 70
#define MAXB 5

typedef struct model {
    uint32_t np, nb, leader[MAXP];
    ks_time key[2][MAXP];
    bool has[MAXP];
} model;

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* The walk Kafka does: partitions in order; a broker's later partitions
 * are skipped once one of its partitions is ready. */
static bool model_ready(const model *m, uint32_t b, ks_time now, bool ex, ks_time *next)
{
    for (uint32_t p = 0; p < m->np; p++) {
        if (m->leader[p] != b || m->key[ex][p] == KS_TIME_MAX)
            continue;
        if (m->key[ex][p] <= now)
            return true;
        if (m->key[ex][p] < *next)
            *next = m->key[ex][p];
    }
    return false;
}

static uint32_t model_next(const model *m, uint32_t b, uint32_t from, ks_time now)
{
    for (uint32_t p = 0, i = 0; p < m->np; p++) {
        if (m->leader[p] != b)
            continue;
        if (i >= from && m->key[1][p] <= now)
            return i;
        i++;
    }
    return KS_RI_NONE;
}

static ks_time random_key(uint64_t *s)
{
    switch (lcg(s) % 4) {
    case 0: return KS_TIME_MAX;
    case 1: return INT64_MIN;
    default: return (ks_time)(lcg(s) % 100);
    }
}

static void check_queries(const ks_ready_index *ri, const model *m, uint64_t *s)
{
    for (int q = 0; q < 20; q++) {
        ks_time now = (ks_time)(lcg(s) % 110) - 5;
        bool ex = lcg(s) % 2;
        for (uint32_t b = 0; b < m->nb; b++) {
            ks_time want = KS_TIME_MAX - 1, got = KS_TIME_MAX - 1;
            assert_int_equal(ks_ri_ready(ri, b, now, ex, &got),
                             model_ready(m, b, now, ex, &want));
            bool any = false;
            for (uint32_t p = 0; p < m->np; p++)
                any |= m->leader[p] == b && m->has[p];
            if (any)
                assert_int_equal(got, want);
            uint32_t from = (uint32_t)(lcg(s) % (ks_ri_count(ri, b) + 2));
            assert_int_equal(ks_ri_next_drainable(ri, b, from, now), model_next(m, b, from, now));
        }
    }
}

static void test_against_the_walk(void **state)
{
    (void)state;
    uint64_t s = 42;
    for (int round = 0; round < 200; round++) {
        model m = {.np = 1 + (uint32_t)(lcg(&s) % MAXP), .nb = 1 + (uint32_t)(lcg(&s) % MAXB)};
        for (uint32_t p = 0; p < m.np; p++) {
            m.leader[p] = (uint32_t)(lcg(&s) % m.nb);
            m.key[0][p] = m.key[1][p] = KS_TIME_MAX;
        }
        ks_ready_index ri = {0};
        assert_true(ks_ri_build(&ri, m.np, m.nb, m.leader));
        for (int step = 0; step < 60; step++) {
            uint32_t p = (uint32_t)(lcg(&s) % m.np);
            m.has[p] = lcg(&s) % 3 != 0;
            m.key[0][p] = m.has[p] ? random_key(&s) : KS_TIME_MAX;
            m.key[1][p] = m.has[p] ? random_key(&s) : KS_TIME_MAX;
            ks_ri_set(&ri, p, m.key[0][p], m.key[1][p], m.has[p]);
            assert_true(ks_ri_holds(&ri, p, m.key[0][p], m.key[1][p], m.has[p]));
            /* every block's and node's minimum, after each change */
            assert_true(ks_ri_consistent(&ri));
            if (step % 10 == 0)
                check_queries(&ri, &m, &s);
        }
        assert_true(ks_ri_consistent(&ri));
        ks_ri_free(&ri);
    }
}

static void test_lists_and_rebuild(void **state)
{
    (void)state;
    const uint32_t leader[6] = {2, 0, 2, 1, 0, 2};
    ks_ready_index ri = {0};
    assert_true(ks_ri_build(&ri, 6, 3, leader));
    assert_int_equal(ks_ri_count(&ri, 0), 2);
    assert_int_equal(ks_ri_part(&ri, 0, 0), 1);
    assert_int_equal(ks_ri_part(&ri, 0, 1), 4);
    assert_int_equal(ks_ri_count(&ri, 2), 3);
    assert_int_equal(ks_ri_part(&ri, 2, 2), 5);
    ks_time next = KS_TIME_MAX;
    assert_false(ks_ri_ready(&ri, 2, 100, true, &next)); /* nothing queued */
    ks_ri_set(&ri, 5, 30, INT64_MIN, true);
    assert_int_equal(ri.bk[2].queued, 1);
    assert_true(ks_ri_ready(&ri, 2, 0, true, &next));
    assert_false(ks_ri_ready(&ri, 2, 10, false, &next));
    assert_int_equal(next, 30);
    /* a rebuild (more partitions, new leaders) starts empty */
    const uint32_t more[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    assert_true(ks_ri_build(&ri, 8, 3, more));
    assert_int_equal(ks_ri_count(&ri, 2), 0);
    assert_int_equal(ks_ri_next_drainable(&ri, 2, 0, 0), KS_RI_NONE);
    assert_int_equal(ri.bk[0].queued, 0);
    assert_true(ks_ri_consistent(&ri));
    /* a tree node that is not its children's minimum is caught */
    ri.nodes[ri.bk[1].base + 1].k[0] = 5;
    assert_false(ks_ri_consistent(&ri));
    ks_ri_free(&ri);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_the_walk),
        cmocka_unit_test(test_lists_and_rebuild),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
