/*
 * test_u64map.c - the open-addressing map report and explain keep their
 * records in: puts and gets, deletion by backward shift keeping every
 * other key reachable (against a plain array model, over a fixed
 * pseudo-random sequence of puts and deletes with colliding keys), and
 * an iteration order that depends only on the keys and the history.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tools/u64map.h"

#include <string.h>

static void test_put_get_del(void **state)
{
    (void)state;
    ks_u64map m = {0};
    int a, b;
    assert_null(ks_u64map_get(&m, 7));
    assert_null(ks_u64map_del(&m, 7));
    assert_true(ks_u64map_put(&m, 7, &a));
    assert_true(ks_u64map_put(&m, 0, &b)); /* key 0 is a key like any other */
    assert_ptr_equal(ks_u64map_get(&m, 7), &a);
    assert_ptr_equal(ks_u64map_get(&m, 0), &b);
    assert_int_equal(m.n, 2);
    assert_ptr_equal(ks_u64map_del(&m, 7), &a);
    assert_null(ks_u64map_get(&m, 7));
    assert_ptr_equal(ks_u64map_get(&m, 0), &b);
    assert_int_equal(m.n, 1);
    ks_u64map_free(&m);
    assert_int_equal(m.n, 0);
    assert_null(ks_u64map_get(&m, 0));
}

#define KEYS 512

/* Pseudo-random puts and deletes of 512 keys (differing in their high
 * bits only) at up to half load, so that probe chains form and
 * deletions shift them, checked against an array every 97 steps. */
static void test_against_model(void **state)
{
    (void)state;
    static int vals[KEYS];
    bool in[KEYS] = {false};
    ks_u64map m = {0};
    uint32_t x = 2463534242u;
    for (int step = 0; step < 20000; step++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        uint32_t k = x % KEYS;
        uint64_t key = (uint64_t)k << 32;
        if (in[k]) {
            assert_ptr_equal(ks_u64map_del(&m, key), &vals[k]);
            in[k] = false;
        } else {
            assert_true(ks_u64map_put(&m, key, &vals[k]));
            in[k] = true;
        }
        if (step % 97 == 0) {
            size_t n = 0;
            for (uint32_t j = 0; j < KEYS; j++) {
                assert_ptr_equal(ks_u64map_get(&m, (uint64_t)j << 32), in[j] ? &vals[j] : NULL);
                n += in[j];
            }
            assert_int_equal(m.n, n);
            assert_true(m.cap == 0 || 2 * m.n <= m.cap); /* doubles at half load */
        }
    }
    ks_u64map_free(&m);
}

/* Two maps given the same puts and deletes lay their entries out alike,
 * whatever the values' addresses. */
static void test_order_from_keys_only(void **state)
{
    (void)state;
    static int va[100], vb[100];
    ks_u64map a = {0}, b = {0};
    for (int i = 0; i < 100; i++) {
        uint64_t key = (uint64_t)i * 0x9E3779B97F4A7C15u;
        assert_true(ks_u64map_put(&a, key, &va[i]));
        assert_true(ks_u64map_put(&b, key, &vb[99 - i]));
    }
    for (int i = 0; i < 100; i += 3) {
        ks_u64map_del(&a, (uint64_t)i * 0x9E3779B97F4A7C15u);
        ks_u64map_del(&b, (uint64_t)i * 0x9E3779B97F4A7C15u);
    }
    assert_int_equal(a.cap, b.cap);
    for (size_t i = 0; i < a.cap; i++) {
        assert_int_equal(a.vals[i] != NULL, b.vals[i] != NULL);
        if (a.vals[i])
            assert_true(a.keys[i] == b.keys[i]);
    }
    ks_u64map_free(&a);
    ks_u64map_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get_del),
        cmocka_unit_test(test_against_model),
        cmocka_unit_test(test_order_from_keys_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
