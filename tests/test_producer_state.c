/*
 * test_producer_state.c - the leader's idempotent-producer checks: the
 * duplicate window (each of the cached batches, the exact range, the
 * epoch), fenced and newer epochs, sequence continuity and its wrap after
 * INT32_MAX, unknown producer ids with and without the legacy flag,
 * retain windows of 1 and 2, independent producer ids, the entry
 * bookkeeping of ks_ps_update, ks_ps_last_seq and the error names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/broker/producer_state.h"

#include <string.h>

#define PID 1000
#define NO_OFFSET INT64_C(-999)

/* The verdict for a batch; a duplicate's offset is checked separately. */
static ks_ps_verdict check(const ks_producer_state *s, int64_t pid, int16_t epoch,
                           int32_t first, int32_t last)
{
    int64_t off = NO_OFFSET;
    ks_ps_verdict v = ks_ps_check(s, pid, epoch, first, last, &off);
    if (v != KS_PS_DUPLICATE)
        assert_int_equal(off, NO_OFFSET);
    return v;
}

static void assert_dup(const ks_producer_state *s, int64_t pid, int16_t epoch, int32_t first,
                       int32_t last, int64_t offset)
{
    int64_t off = NO_OFFSET;
    assert_int_equal(ks_ps_check(s, pid, epoch, first, last, &off), KS_PS_DUPLICATE);
    assert_int_equal(off, offset);
}

/* Appends `n` batches of 10 records from sequence 0, batch i at offset
 * 100 + 10 * i, as the leader would after each check said APPEND. */
static void append_tens(ks_producer_state *s, int64_t pid, int16_t epoch, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        assert_int_equal(check(s, pid, epoch, 10 * i, 10 * i + 9), KS_PS_APPEND);
        assert_true(ks_ps_update(s, pid, epoch, 10 * i, 10 * i + 9, 100 + 10 * i));
    }
}

/* With 6 batches appended, each of the 5 newest is a duplicate answered
 * with its own offset; the oldest has left the cache and is out of order. */
static void test_duplicate_each_cached_batch(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, false);
    append_tens(&s, PID, 0, 6);
    for (int32_t i = 1; i < 6; i++)
        assert_dup(&s, PID, 0, 10 * i, 10 * i + 9, 100 + 10 * i);
    assert_int_equal(check(&s, PID, 0, 0, 9), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    ks_ps_free(&s);
}

/* A duplicate needs the exact (first, last) range of a cached batch. */
static void test_duplicate_needs_exact_range(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, false);
    append_tens(&s, PID, 0, 3);
    assert_dup(&s, PID, 0, 10, 19, 110);
    assert_int_equal(check(&s, PID, 0, 10, 18), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 0, 10, 20), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 0, 11, 19), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    ks_ps_free(&s);
}

/* A cached range sent with another epoch is judged by the epoch rules. */
static void test_duplicate_needs_same_epoch(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, false);
    append_tens(&s, PID, 3, 2);
    assert_dup(&s, PID, 3, 0, 9, 100);
    assert_int_equal(check(&s, PID, 4, 0, 9), KS_PS_APPEND);
    assert_int_equal(check(&s, PID, 4, 10, 19), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 2, 10, 19), KS_PS_INVALID_PRODUCER_EPOCH);
    ks_ps_free(&s);
}

/* An older epoch is fenced even when its sequence would follow on. */
static void test_older_epoch_fenced(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, false);
    append_tens(&s, PID, 5, 1);
    assert_int_equal(check(&s, PID, 5, 10, 19), KS_PS_APPEND);
    assert_int_equal(check(&s, PID, 4, 10, 19), KS_PS_INVALID_PRODUCER_EPOCH);
    assert_int_equal(check(&s, PID, 4, 0, 0), KS_PS_INVALID_PRODUCER_EPOCH);
    assert_int_equal(check(&s, PID, 0, 0, 9), KS_PS_INVALID_PRODUCER_EPOCH);
    ks_ps_free(&s);
}

/* A newer epoch must restart at sequence 0, even where the old epoch's
 * next sequence would have been in order. */
static void test_newer_epoch_restarts_at_zero(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, false);
    append_tens(&s, PID, 1, 2);
    assert_int_equal(check(&s, PID, 2, 0, 4), KS_PS_APPEND);
    assert_int_equal(check(&s, PID, 2, 1, 4), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 2, 20, 29), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, INT16_MAX, 0, 0), KS_PS_APPEND);
    ks_ps_free(&s);
}

/* Appending at a newer epoch drops the old epoch's batches: a range that
 * was cached before is no longer a duplicate at the new epoch. */
static void test_newer_epoch_clears_cache(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, false);
    assert_true(ks_ps_update(&s, PID, 1, 0, 2, 10));
    assert_true(ks_ps_update(&s, PID, 1, 3, 5, 13));
    assert_true(ks_ps_update(&s, PID, 2, 0, 0, 20));
    const ks_ps_entry *e = ks_ps_find(&s, PID);
    assert_non_null(e);
    assert_int_equal(e->epoch, 2);
    assert_int_equal(e->count, 1);
    assert_int_equal(check(&s, PID, 2, 0, 2), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 2, 3, 5), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 1, 3, 5), KS_PS_INVALID_PRODUCER_EPOCH);
    assert_dup(&s, PID, 2, 0, 0, 20);
    assert_int_equal(check(&s, PID, 2, 1, 1), KS_PS_APPEND);
    ks_ps_free(&s);
}

/* Same epoch: only last + 1 is in order; +2, the last sequence itself
 * (not as a cached range) and anything lower are out of order. */
static void test_same_epoch_sequence(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, false);
    append_tens(&s, PID, 0, 2);
    assert_int_equal(check(&s, PID, 0, 20, 29), KS_PS_APPEND);
    assert_int_equal(check(&s, PID, 0, 20, 20), KS_PS_APPEND);
    assert_int_equal(check(&s, PID, 0, 21, 29), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 0, 19, 29), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 0, 5, 9), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 0, 0, 0), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 0, INT32_MAX, INT32_MAX),
                     KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    ks_ps_free(&s);
}

/* After INT32_MAX the sequence wraps to 0 (and only to 0); the next
 * sequence of a batch ending just below it is INT32_MAX itself. */
static void test_sequence_wrap(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, false);
    assert_true(ks_ps_update(&s, PID, 0, INT32_MAX - 9, INT32_MAX - 1, 0));
    assert_int_equal(check(&s, PID, 0, INT32_MAX, INT32_MAX), KS_PS_APPEND);
    assert_int_equal(check(&s, PID, 0, 0, 4), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_true(ks_ps_update(&s, PID, 0, INT32_MAX, INT32_MAX, 9));
    assert_int_equal(check(&s, PID, 0, 0, 4), KS_PS_APPEND);
    assert_int_equal(check(&s, PID, 0, 1, 4), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 0, INT32_MIN, INT32_MIN),
                     KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_true(ks_ps_update(&s, PID, 0, 0, 4, 10));
    assert_int_equal(check(&s, PID, 0, 5, 5), KS_PS_APPEND);
    assert_dup(&s, PID, 0, INT32_MAX, INT32_MAX, 9);
    ks_ps_free(&s);
}

/* A producer id without an entry is accepted at any sequence from 2.5;
 * before 2.5 only at sequence 0. */
static void test_unknown_producer(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, false);
    assert_int_equal(check(&s, PID, 0, 0, 9), KS_PS_APPEND);
    assert_int_equal(check(&s, PID, 0, 7, 9), KS_PS_APPEND);
    assert_int_equal(check(&s, PID, 3, 7, 9), KS_PS_APPEND);
    assert_null(ks_ps_find(&s, PID));
    ks_ps_free(&s);

    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, true);
    assert_int_equal(check(&s, PID, 0, 0, 9), KS_PS_APPEND);
    assert_int_equal(check(&s, PID, 0, 7, 9), KS_PS_UNKNOWN_PRODUCER_ID);
    /* Legacy or not, a known producer id's gap is out of order. */
    append_tens(&s, PID, 0, 1);
    assert_int_equal(check(&s, PID, 0, 17, 19), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    ks_ps_free(&s);
}

/* An entry recorded without an epoch (Kafka's NO_PRODUCER_EPOCH) takes a
 * new epoch at any sequence, like a producer id without an entry. */
static void test_entry_without_epoch(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, false);
    assert_true(ks_ps_update(&s, PID, KS_NO_EPOCH, 0, 9, 0));
    assert_int_equal(check(&s, PID, 0, 7, 9), KS_PS_APPEND);
    ks_ps_free(&s);

    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, true);
    assert_true(ks_ps_update(&s, PID, KS_NO_EPOCH, 0, 9, 0));
    assert_int_equal(check(&s, PID, 0, 7, 9), KS_PS_UNKNOWN_PRODUCER_ID);
    assert_int_equal(check(&s, PID, 0, 0, 9), KS_PS_APPEND);
    ks_ps_free(&s);
}

/* An entry whose batches are gone (as after Kafka's TV2 marker) has no
 * last sequence: at its epoch only sequence 0 follows, as in Kafka's
 * inSequence(NO_SEQUENCE, seq). */
static void test_entry_without_batches(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, false);
    append_tens(&s, PID, 2, 3);
    ks_ps_entry *e = (ks_ps_entry *)ks_ps_find(&s, PID);
    e->count = 0;
    e->head = 0;
    assert_int_equal(ks_ps_last_seq(e), KS_NO_SEQUENCE);
    assert_int_equal(check(&s, PID, 2, 0, 9), KS_PS_APPEND);
    assert_int_equal(check(&s, PID, 2, 30, 39), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 2, 10, 19), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 1, 0, 9), KS_PS_INVALID_PRODUCER_EPOCH);
    ks_ps_free(&s);
}

/* retain = 1: only the newest batch is a duplicate. */
static void test_retain_one(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, 1, false);
    append_tens(&s, PID, 0, 3);
    assert_int_equal(ks_ps_find(&s, PID)->count, 1);
    assert_dup(&s, PID, 0, 20, 29, 120);
    assert_int_equal(check(&s, PID, 0, 10, 19), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 0, 0, 9), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 0, 30, 39), KS_PS_APPEND);
    ks_ps_free(&s);
}

/* retain = 2: the two newest are duplicates, the third-newest is not. */
static void test_retain_two(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, 2, false);
    append_tens(&s, PID, 0, 4);
    assert_int_equal(ks_ps_find(&s, PID)->count, 2);
    assert_dup(&s, PID, 0, 30, 39, 130);
    assert_dup(&s, PID, 0, 20, 29, 120);
    assert_int_equal(check(&s, PID, 0, 10, 19), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, PID, 0, 0, 9), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    ks_ps_free(&s);
}

/* Kafka's 5 and a retain above it: with 40 producer ids the entries'
 * array grows and moves, and each id keeps its `retain` newest batches as
 * duplicates while the one before them has left. */
static void test_retain_above_default_many_pids(void **state)
{
    (void)state;
    for (uint32_t retain = KS_PS_BATCHES_DEFAULT; retain <= 8u; retain += 3u) {
        ks_producer_state s;
        ks_ps_init(&s, retain, false);
        for (int32_t p = 0; p < 40; p++)
            append_tens(&s, 500 + p, 1, (int32_t)retain + 1);
        for (int32_t p = 0; p < 40; p++) {
            assert_int_equal(ks_ps_find(&s, 500 + p)->count, retain);
            for (int32_t i = 1; i <= (int32_t)retain; i++)
                assert_dup(&s, 500 + p, 1, 10 * i, 10 * i + 9, 100 + 10 * i);
            assert_int_equal(check(&s, 500 + p, 1, 0, 9), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
            assert_int_equal(ks_ps_last_seq(ks_ps_find(&s, 500 + p)), 10 * (int32_t)retain + 9);
        }
        ks_ps_free(&s);
    }
}

/* Producer ids keep their own epochs, sequences and caches. */
static void test_pids_independent(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, true);
    append_tens(&s, 7, 0, 2);
    append_tens(&s, 3, 4, 1);
    assert_true(ks_ps_update(&s, 7, 0, 20, 29, 500));
    assert_int_equal(s.count, 2);
    assert_int_equal(ks_ps_find(&s, 7)->producer_id, 7);
    assert_int_equal(ks_ps_find(&s, 3)->producer_id, 3);
    assert_int_equal(ks_ps_find(&s, 7)->epoch, 0);
    assert_int_equal(ks_ps_find(&s, 3)->epoch, 4);
    assert_int_equal(check(&s, 7, 0, 30, 39), KS_PS_APPEND);
    assert_int_equal(check(&s, 3, 4, 10, 19), KS_PS_APPEND);
    assert_int_equal(check(&s, 3, 4, 30, 39), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, 3, 0, 10, 19), KS_PS_INVALID_PRODUCER_EPOCH);
    assert_dup(&s, 7, 0, 20, 29, 500);
    assert_int_equal(check(&s, 3, 4, 20, 29), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_int_equal(check(&s, 9, 0, 20, 29), KS_PS_UNKNOWN_PRODUCER_ID);
    /* A new epoch for one producer id leaves the other's cache alone. */
    assert_true(ks_ps_update(&s, 3, 5, 0, 0, 600));
    assert_dup(&s, 7, 0, 0, 9, 100);
    assert_int_equal(ks_ps_find(&s, 7)->count, 3);
    assert_int_equal(ks_ps_find(&s, 3)->count, 1);
    ks_ps_free(&s);
}

/* Many producer ids grow the table (doubling, at most half full), and
 * each stays findable with its own batch as its entry moves; a table
 * grown from two slots tells forty more ids apart, probing past the
 * taken slots; ks_ps_free leaves the struct zeroed and reusable. */
static void test_many_pids_and_free(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, false);
    for (int32_t p = 0; p < 100; p++)
        assert_true(ks_ps_update(&s, 1000 + p, (int16_t)(p % 7), p, p + 1, 10 * p));
    assert_int_equal(s.count, 100);
    assert_int_equal(s.cap, 256);
    for (int32_t p = 0; p < 100; p++) {
        const ks_ps_entry *e = ks_ps_find(&s, 1000 + p);
        assert_non_null(e);
        assert_int_equal(e->producer_id, 1000 + p);
        assert_int_equal(e->epoch, p % 7);
        assert_dup(&s, 1000 + p, (int16_t)(p % 7), p, p + 1, 10 * p);
    }
    assert_null(ks_ps_find(&s, 999));
    ks_ps_free(&s);
    ks_producer_state zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&s, &zero, sizeof s);
    ks_ps_init(&s, 2, false);
    assert_null(ks_ps_find(&s, PID)); /* an empty table */
    assert_true(ks_ps_update(&s, PID, 0, 0, 0, 0));
    assert_int_equal(s.count, 1);
    assert_int_equal(s.cap, 2); /* one producer id, two slots */
    for (int64_t id = 1; id <= 40; id++)
        assert_true(ks_ps_update(&s, PID + id * 1024, 1, (int32_t)id, (int32_t)id, id));
    for (int64_t id = 1; id <= 40; id++) {
        assert_int_equal(ks_ps_last_seq(ks_ps_find(&s, PID + id * 1024)), (int32_t)id);
        assert_dup(&s, PID + id * 1024, 1, (int32_t)id, (int32_t)id, id);
    }
    assert_int_equal(ks_ps_last_seq(ks_ps_find(&s, PID)), 0);
    ks_ps_free(&s);
}

/* Like Kafka's maybeUpdateProducerEpoch, recording any other epoch (even
 * an older one, which ks_ps_check would have refused) replaces the cache. */
static void test_update_other_epoch_replaces(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, false);
    append_tens(&s, PID, 3, 2);
    assert_true(ks_ps_update(&s, PID, 3, 20, 29, 120));
    assert_int_equal(ks_ps_find(&s, PID)->count, 3);
    assert_true(ks_ps_update(&s, PID, 2, 0, 4, 200));
    const ks_ps_entry *e = ks_ps_find(&s, PID);
    assert_int_equal(e->epoch, 2);
    assert_int_equal(e->count, 1);
    assert_int_equal(ks_ps_last_seq(e), 4);
    assert_int_equal(check(&s, PID, 2, 0, 9), KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER);
    ks_ps_free(&s);
}

/* A NULL dup_offset is allowed; the verdict is unchanged. */
static void test_dup_offset_optional(void **state)
{
    (void)state;
    ks_producer_state s;
    ks_ps_init(&s, KS_PS_BATCHES_DEFAULT, false);
    append_tens(&s, PID, 0, 1);
    assert_int_equal(ks_ps_check(&s, PID, 0, 0, 9, NULL), KS_PS_DUPLICATE);
    assert_int_equal(ks_ps_check(&s, PID, 0, 10, 19, NULL), KS_PS_APPEND);
    ks_ps_free(&s);
}

/* The last sequence is the newest batch's, also once the ring has wrapped
 * and after a new epoch; an entry without batches has none. */
static void test_last_seq(void **state)
{
    (void)state;
    ks_ps_entry empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(ks_ps_last_seq(&empty), KS_NO_SEQUENCE);

    ks_producer_state s;
    ks_ps_init(&s, 3, false);
    assert_true(ks_ps_update(&s, PID, 0, 0, 4, 0));
    assert_int_equal(ks_ps_last_seq(ks_ps_find(&s, PID)), 4);
    for (int32_t i = 1; i <= 7; i++) {
        assert_true(ks_ps_update(&s, PID, 0, 5 * i, 5 * i + 4, 5 * i));
        assert_int_equal(ks_ps_last_seq(ks_ps_find(&s, PID)), 5 * i + 4);
    }
    assert_int_not_equal(ks_ps_find(&s, PID)->head, 0);
    assert_true(ks_ps_update(&s, PID, 1, 0, 2, 40));
    assert_int_equal(ks_ps_last_seq(ks_ps_find(&s, PID)), 2);
    ks_ps_free(&s);
}

static void test_verdict_error_names(void **state)
{
    (void)state;
    assert_string_equal(ks_ps_verdict_error(KS_PS_APPEND), "NONE");
    assert_string_equal(ks_ps_verdict_error(KS_PS_DUPLICATE), "NONE");
    assert_string_equal(ks_ps_verdict_error(KS_PS_INVALID_PRODUCER_EPOCH),
                        "INVALID_PRODUCER_EPOCH");
    assert_string_equal(ks_ps_verdict_error(KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER),
                        "OUT_OF_ORDER_SEQUENCE_NUMBER");
    assert_string_equal(ks_ps_verdict_error(KS_PS_UNKNOWN_PRODUCER_ID), "UNKNOWN_PRODUCER_ID");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duplicate_each_cached_batch),
        cmocka_unit_test(test_duplicate_needs_exact_range),
        cmocka_unit_test(test_duplicate_needs_same_epoch),
        cmocka_unit_test(test_older_epoch_fenced),
        cmocka_unit_test(test_newer_epoch_restarts_at_zero),
        cmocka_unit_test(test_newer_epoch_clears_cache),
        cmocka_unit_test(test_same_epoch_sequence),
        cmocka_unit_test(test_sequence_wrap),
        cmocka_unit_test(test_unknown_producer),
        cmocka_unit_test(test_entry_without_epoch),
        cmocka_unit_test(test_entry_without_batches),
        cmocka_unit_test(test_retain_one),
        cmocka_unit_test(test_retain_two),
        cmocka_unit_test(test_retain_above_default_many_pids),
        cmocka_unit_test(test_pids_independent),
        cmocka_unit_test(test_many_pids_and_free),
        cmocka_unit_test(test_update_other_epoch_replaces),
        cmocka_unit_test(test_dup_offset_optional),
        cmocka_unit_test(test_last_seq),
        cmocka_unit_test(test_verdict_error_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
