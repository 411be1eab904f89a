/*
 * test_idempotence.c - what OUT_OF_ORDER_SEQUENCE_NUMBER calls for
 * (ks_prod_seq_oos_verdict), case by case against [K]
 * TransactionManager.canRetry (3.9): a batch that is not the next one is
 * retried; a real gap makes an idempotent producer bump its epoch locally
 * and a transactional one fail the batch; with an unresolved sequence an
 * idempotent producer bumps only for the unresolved batch's successor.
 * And ks_prod_seq_adjust_failed against TxnPartitionEntry.
 * adjustSequencesDueToFailedBatch.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/producer/idempotence.h"
#include "models/producer/producer.h"

#include <string.h>

/* A partition whose last acknowledged sequence is `last_acked`. */
static ks_seq_state partition(int32_t last_acked)
{
    ks_seq_state sq;
    memset(&sq, 0, sizeof sq);
    sq.last_acked = last_acked;
    sq.next_seq = 10;
    return sq;
}

static ks_batch batch(int32_t base_seq)
{
    ks_batch b;
    memset(&b, 0, sizeof b);
    b.has_seq = true;
    b.records = 1;
    b.base_seq = base_seq;
    return b;
}

/* Not the next sequence: the batch waits for its predecessors, for both
 * kinds of producer. */
static void test_not_next_is_retried(void **state)
{
    (void)state;
    ks_seq_state sq = partition(3);
    ks_batch b = batch(6);
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &b, false), KS_SEQ_OOS_RETRY);
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &b, true), KS_SEQ_OOS_RETRY);
    /* nothing acknowledged yet (-1): sequence 1 is not the next either */
    sq = partition(-1);
    b = batch(1);
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &b, true), KS_SEQ_OOS_RETRY);
}

/* The next sequence refused: a gap. The idempotent producer bumps and
 * retries; the transactional one fails the batch (not retriable). */
static void test_gap(void **state)
{
    (void)state;
    ks_seq_state sq = partition(3);
    ks_batch b = batch(4);
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &b, false), KS_SEQ_OOS_RETRY_BUMP);
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &b, true), KS_SEQ_OOS_FAIL);
    sq = partition(-1);
    b = batch(0);
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &b, true), KS_SEQ_OOS_FAIL);
}

/* A batch renumbered by a bump (sequenceHasBeenReset) is retried, even
 * as the next sequence. */
static void test_reset_is_retried(void **state)
{
    (void)state;
    ks_seq_state sq = partition(3);
    ks_batch b = batch(4);
    b.seq_reset = true;
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &b, false), KS_SEQ_OOS_RETRY);
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &b, true), KS_SEQ_OOS_RETRY);
}

/* Unresolved: the idempotent producer bumps for the unresolved batch's
 * successor only, else waits; the transactional one fails the batch
 * whatever it is (the first branch needs !hasUnresolvedSequence). */
static void test_unresolved(void **state)
{
    (void)state;
    ks_seq_state sq = partition(3);
    sq.unresolved = true;
    sq.unresolved_seq = 5; /* the expired batch's last sequence */
    ks_batch succ = batch(6), other = batch(8), reset = batch(4);
    reset.seq_reset = true;
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &succ, false), KS_SEQ_OOS_RETRY_BUMP);
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &other, false), KS_SEQ_OOS_RETRY);
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &reset, false), KS_SEQ_OOS_RETRY);
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &succ, true), KS_SEQ_OOS_FAIL);
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &other, true), KS_SEQ_OOS_FAIL);
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &reset, true), KS_SEQ_OOS_FAIL);
}

/* The sequence after INT32_MAX is 0. */
static void test_wraps(void **state)
{
    (void)state;
    ks_seq_state sq = partition(INT32_MAX);
    ks_batch b = batch(0);
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &b, false), KS_SEQ_OOS_RETRY_BUMP);
    assert_int_equal(ks_prod_seq_oos_verdict(&sq, &b, true), KS_SEQ_OOS_FAIL);
}

/* A transactional batch failed: the later batches of its partition and
 * its next sequence move down by its record count, marked renumbered;
 * earlier batches, other partitions and older numberings stay. */
static void test_adjust_failed(void **state)
{
    (void)state;
    static ks_producer p;
    ks_batch b[5];
    ks_seq_state sq[2];
    memset(&p, 0, sizeof p);
    memset(sq, 0, sizeof sq);
    p.seq = sq;
    p.acc.batches = b;
    p.acc.batch_cap = 5;
    sq[0].next_seq = 12;
    sq[0].last_acked = 1;
    const int32_t base[5] = {2, 5, 9, 10, 5};
    const uint32_t records[5] = {3, 4, 1, 2, 4};
    for (int i = 0; i < 5; i++) {
        b[i] = batch(base[i]);
        b[i].records = records[i];
        b[i].state = KS_BATCH_IN_FLIGHT;
    }
    b[3].epoch = 1;     /* numbered under another epoch */
    b[4].partition = 1; /* another partition */
    ks_prod_seq_adjust_failed(&p, &b[1]); /* seq 5..8 failed */
    assert_int_equal(sq[0].next_seq, 8);
    assert_int_equal(b[0].base_seq, 2);
    assert_false(b[0].seq_reset);
    assert_int_equal(b[1].base_seq, 5); /* the failed one itself */
    assert_int_equal(b[2].base_seq, 5);
    assert_true(b[2].seq_reset);
    assert_int_equal(b[3].base_seq, 10);
    assert_int_equal(b[4].base_seq, 5);
    assert_int_equal(sq[1].next_seq, 0);

    /* a batch of an older numbering changes nothing */
    ks_prod_seq_adjust_failed(&p, &b[3]);
    assert_int_equal(sq[0].next_seq, 8);
    assert_int_equal(b[2].base_seq, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_next_is_retried),
        cmocka_unit_test(test_gap),
        cmocka_unit_test(test_reset_is_retried),
        cmocka_unit_test(test_unresolved),
        cmocka_unit_test(test_wraps),
        cmocka_unit_test(test_adjust_failed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
