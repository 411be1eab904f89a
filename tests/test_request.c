/*
 * test_request.c - the request pool: indices handed out lowest first and
 * reused last-released first (as a flat array would), entries chained in
 * order, and addresses that stay put while the pool grows, so a handler
 * may hold the request it answers while it sends others.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/net/request.h"

#include <stdlib.h>

#define MANY 1000u /* well past several doublings of both kinds of slot */

static void test_order_and_reuse(void **state)
{
    (void)state;
    ks_request_pool p;
    ks_request_pool_init(&p);
    for (uint32_t i = 0; i < MANY; i++)
        assert_int_equal(ks_request_alloc(&p), i);
    assert_int_equal(p.live, MANY);
    ks_request_release(&p, 7);
    ks_request_release(&p, 300);
    assert_int_equal(ks_request_alloc(&p), 300); /* last released first */
    assert_int_equal(ks_request_alloc(&p), 7);
    assert_int_equal(ks_request_alloc(&p), MANY);
    assert_int_equal(p.live, MANY + 1);
    ks_request_pool_free(&p);
    assert_int_equal(p.live, 0);
    assert_int_equal(p.cap, 0);
}

static void test_addresses_stay_while_growing(void **state)
{
    (void)state;
    ks_request_pool p;
    ks_request_pool_init(&p);
    uint32_t held = ks_request_alloc(&p);
    ks_request *q = ks_req(&p, held);
    q->records = 42;
    uint32_t last = KS_REQ_NONE;
    uint32_t e0 = ks_request_add_batch(&p, held, &last);
    ks_req_batch *b = ks_req_entry(&p, e0);
    b->partition = 5;
    uint32_t other = KS_REQ_NONE, olast = KS_REQ_NONE;
    for (uint32_t i = 0; i < MANY; i++) {
        other = ks_request_alloc(&p);
        assert_int_not_equal(other, KS_REQ_NONE);
        assert_int_not_equal(ks_request_add_batch(&p, other, &olast),
                             KS_REQ_NONE);
        olast = KS_REQ_NONE;
    }
    assert_true(p.cap >= MANY && p.entry_cap >= MANY);
    assert_ptr_equal(ks_req(&p, held), q); /* the pool grew; q did not move */
    assert_ptr_equal(ks_req_entry(&p, e0), b);
    assert_int_equal(q->records, 42);
    assert_int_equal(b->partition, 5);
    ks_request_pool_free(&p);
}

static void test_entries_chain_and_return(void **state)
{
    (void)state;
    ks_request_pool p;
    ks_request_pool_init(&p);
    uint32_t id = ks_request_alloc(&p);
    uint32_t last = KS_REQ_NONE, e[3];
    for (uint32_t i = 0; i < 3; i++) {
        e[i] = ks_request_add_batch(&p, id, &last);
        assert_int_equal(ks_req_entry(&p, e[i])->base_offset, -1);
    }
    ks_request *q = ks_req(&p, id);
    assert_int_equal(q->batches, 3);
    uint32_t n = 0;
    for (uint32_t x = q->first; x != KS_REQ_NONE; x = ks_req_entry(&p, x)->next)
        assert_int_equal(x, e[n++]);
    assert_int_equal(n, 3);
    ks_req_entry(&p, e[1])->ids = malloc(16); /* owned: freed on release */
    ks_request_release(&p, id);
    assert_int_equal(p.live, 0);
    uint32_t id2 = ks_request_alloc(&p);
    assert_int_equal(id2, id);
    assert_int_equal(ks_req(&p, id2)->first, KS_REQ_NONE);
    assert_int_equal(ks_req(&p, id2)->batches, 0);
    last = KS_REQ_NONE; /* released entries come back, the chain's last first */
    assert_int_equal(ks_request_add_batch(&p, id2, &last), e[2]);
    ks_request_pool_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_reuse),
        cmocka_unit_test(test_addresses_stay_while_growing),
        cmocka_unit_test(test_entries_chain_and_return),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
