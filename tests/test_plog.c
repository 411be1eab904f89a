/*
 * test_plog.c - the partition log: offsets and record ids of appended
 * batches, transaction markers, the aborted index, the LSO (ongoing
 * transactions, and completed ones whose markers the high watermark has
 * not passed), the held high watermark, ks_plog_find on batch boundaries,
 * and the fetch under both isolation levels: the seed's transaction story,
 * aborted data with offset gaps, interleaved producers, non-transactional
 * batches inside transactions, an open transaction holding the LSO, max
 * and resuming from *next, fetches starting mid-batch or past a marker,
 * markers with no transaction open, the aborted producer id set kept as
 * CompletedFetch keeps it, growth over thousands of batches, a seeded
 * random log checked against an independent model, logs without ids,
 * refused appends leaving the log unchanged, and ks_plog_free zeroing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/broker/plog.h"

#include <stdlib.h>
#include <string.h>

#define NO_PID INT64_C(-1)
#define OUT_MAX 64u

/* Appends a data batch of n records with ids first_id, first_id + 1, ...
 * for producer index `producer` and producer id pid; returns its base
 * offset. */
static int64_t data(ks_plog *l, int64_t pid, uint32_t producer, uint32_t n, bool txn,
                    uint64_t first_id)
{
    uint64_t ids[OUT_MAX];
    assert_true(n <= OUT_MAX);
    for (uint32_t i = 0; i < n; i++)
        ids[i] = first_id + i;
    ks_plog_batch b;
    memset(&b, 0, sizeof b);
    b.records = n;
    b.producer_id = pid;
    b.transactional = txn;
    b.producer = producer;
    b.batch = first_id;
    int64_t base = ks_plog_append(l, &b, l->keep_ids ? ids : NULL);
    assert_true(base >= 0);
    assert_int_equal(b.base_offset, base);
    return base;
}

static int64_t marker(ks_plog *l, int64_t pid, ks_marker m)
{
    int64_t off = ks_plog_append_marker(l, pid, 0, m, 1000);
    assert_true(off >= 0);
    return off;
}

/* Fetches from `from` and checks the offsets returned and *next. */
static void expect_fetch(const ks_plog *l, int64_t from, ks_isolation iso, uint32_t max,
                         const int64_t *offsets, uint32_t n, int64_t next)
{
    ks_fetched out[OUT_MAX];
    int64_t got_next = -7;
    uint32_t got = ks_plog_fetch(l, from, iso, max, out, &got_next);
    assert_int_equal(got, n);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(out[i].offset, offsets[i]);
    assert_int_equal(got_next, next);
}

/* The seed's story: transactional record A (id 100) from producer id 7 at
 * offset 0, then its COMMIT marker at offset 1. */
static void test_seed_transaction_story(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, true);
    assert_int_equal(data(&l, 7, 0, 1, true, 100), 0);
    assert_int_equal(ks_plog_lso(&l), 0);
    assert_int_equal(l.hw, 1);
    expect_fetch(&l, 0, KS_READ_COMMITTED, 10, NULL, 0, 0);
    ks_fetched out[4];
    int64_t next = -1;
    assert_int_equal(ks_plog_fetch(&l, 0, KS_READ_UNCOMMITTED, 4, out, &next), 1);
    assert_int_equal(out[0].offset, 0);
    assert_int_equal(out[0].record, 100);
    assert_int_equal(out[0].producer_id, 7);
    assert_true(out[0].transactional);
    assert_int_equal(next, 1);

    assert_int_equal(marker(&l, 7, KS_MARKER_COMMIT), 1);
    assert_int_equal(ks_plog_lso(&l), 2);
    assert_int_equal(ks_plog_fetch(&l, 0, KS_READ_COMMITTED, 4, out, &next), 1);
    assert_int_equal(out[0].record, 100);
    assert_int_equal(next, 2);
    const int64_t a[] = { 0 };
    expect_fetch(&l, 0, KS_READ_UNCOMMITTED, 4, a, 1, 2);
    expect_fetch(&l, 1, KS_READ_UNCOMMITTED, 4, NULL, 0, 2);
    expect_fetch(&l, 1, KS_READ_COMMITTED, 4, NULL, 0, 2);
    assert_int_equal(l.naborted, 0);
    ks_plog_free(&l);
}

/* An aborted transaction's records are invisible to read_committed and
 * visible to read_uncommitted; the offsets returned keep their gaps. */
static void test_aborted_transaction(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, true);
    data(&l, NO_PID, 0, 2, false, 10);      /* 0-1 */
    data(&l, 5, 1, 3, true, 20);            /* 2-4 */
    data(&l, 5, 1, 1, true, 23);            /* 5 */
    assert_int_equal(marker(&l, 5, KS_MARKER_ABORT), 6);
    data(&l, NO_PID, 0, 2, false, 12);      /* 7-8 */
    assert_int_equal(l.naborted, 1);
    assert_int_equal(l.aborted[0].producer_id, 5);
    assert_int_equal(l.aborted[0].first_offset, 2);
    assert_int_equal(l.aborted[0].last_offset, 6);
    assert_int_equal(ks_plog_lso(&l), 9);

    const int64_t rc[] = { 0, 1, 7, 8 };
    expect_fetch(&l, 0, KS_READ_COMMITTED, 20, rc, 4, 9);
    const int64_t ru[] = { 0, 1, 2, 3, 4, 5, 7, 8 };
    expect_fetch(&l, 0, KS_READ_UNCOMMITTED, 20, ru, 8, 9);
    /* The skipped batches and the marker move *next past them. */
    const int64_t tail[] = { 7 };
    expect_fetch(&l, 2, KS_READ_COMMITTED, 1, tail, 1, 8);
    ks_plog_free(&l);
}

/* Two producer ids interleave transactions; 2 aborts, 1 commits:
 * read_committed returns exactly 1's records, in offset order. */
static void test_interleaved_commit_and_abort(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, true);
    data(&l, 1, 0, 2, true, 100);           /* 0-1 */
    data(&l, 2, 1, 2, true, 200);           /* 2-3 */
    data(&l, 1, 0, 1, true, 102);           /* 4 */
    data(&l, 2, 1, 2, true, 202);           /* 5-6 */
    assert_int_equal(l.nopen, 2);
    assert_int_equal(marker(&l, 2, KS_MARKER_ABORT), 7);
    assert_int_equal(ks_plog_lso(&l), 0);
    data(&l, 1, 0, 1, true, 103);           /* 8 */
    assert_int_equal(marker(&l, 1, KS_MARKER_COMMIT), 9);
    assert_int_equal(ks_plog_lso(&l), 10);

    ks_fetched out[OUT_MAX];
    int64_t next = -1;
    assert_int_equal(ks_plog_fetch(&l, 0, KS_READ_COMMITTED, OUT_MAX, out, &next), 4);
    const int64_t offs[] = { 0, 1, 4, 8 };
    const uint64_t ids[] = { 100, 101, 102, 103 };
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(out[i].offset, offs[i]);
        assert_int_equal(out[i].record, ids[i]);
        assert_int_equal(out[i].producer_id, 1);
        assert_int_equal(out[i].producer, 0);
    }
    assert_int_equal(next, 10);
    const int64_t ru[] = { 0, 1, 2, 3, 4, 5, 6, 8 };
    expect_fetch(&l, 0, KS_READ_UNCOMMITTED, OUT_MAX, ru, 8, 10);
    ks_plog_free(&l);
}

/* The aborting producer's transaction began first and the committing one
 * is still open when the ABORT lands: the LSO waits for the commit. */
static void test_abort_first_then_commit(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, false);
    data(&l, 1, 0, 1, true, 0);             /* 0: aborts */
    data(&l, 2, 1, 1, true, 0);             /* 1: commits */
    data(&l, 1, 0, 1, true, 0);             /* 2 */
    marker(&l, 1, KS_MARKER_ABORT);         /* 3 */
    assert_int_equal(ks_plog_lso(&l), 1);
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, NULL, 0, 1);
    data(&l, 2, 1, 1, true, 0);             /* 4 */
    marker(&l, 2, KS_MARKER_COMMIT);        /* 5 */
    const int64_t rc[] = { 1, 4 };
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, rc, 2, 6);
    ks_plog_free(&l);
}

/* Non-transactional batches, with and without a producer id, inside a
 * transaction's range: read_committed returns them whether it commits or
 * aborts, since only transactional batches can be aborted. */
static void test_non_transactional_between(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, true);
    data(&l, 3, 0, 1, true, 1);             /* 0 */
    data(&l, NO_PID, 1, 2, false, 2);       /* 1-2 */
    data(&l, 9, 2, 1, false, 4);            /* 3: idempotent */
    data(&l, 3, 0, 1, true, 5);             /* 4 */
    assert_int_equal(ks_plog_lso(&l), 0);
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, NULL, 0, 0);
    const int64_t ru[] = { 0, 1, 2, 3, 4 };
    expect_fetch(&l, 0, KS_READ_UNCOMMITTED, 9, ru, 5, 5);
    marker(&l, 3, KS_MARKER_ABORT);         /* 5 */
    const int64_t rc[] = { 1, 2, 3 };
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, rc, 3, 6);

    data(&l, 3, 0, 1, true, 6);             /* 6 */
    data(&l, NO_PID, 1, 1, false, 7);       /* 7 */
    marker(&l, 3, KS_MARKER_COMMIT);        /* 8 */
    const int64_t rc2[] = { 6, 7 };
    expect_fetch(&l, 6, KS_READ_COMMITTED, 9, rc2, 2, 9);
    ks_plog_free(&l);
}

/* An open transaction holds the LSO at its first offset; committed data
 * after it waits until it ends; the oldest of two open ones counts. */
static void test_open_transaction_holds_lso(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, false);
    data(&l, 1, 0, 2, true, 0);             /* 0-1: stays open */
    data(&l, 2, 1, 1, true, 0);             /* 2 */
    marker(&l, 2, KS_MARKER_COMMIT);        /* 3 */
    data(&l, NO_PID, 2, 1, false, 0);       /* 4 */
    assert_int_equal(ks_plog_lso(&l), 0);
    assert_int_equal(l.nopen, 1);
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, NULL, 0, 0);
    expect_fetch(&l, 2, KS_READ_COMMITTED, 9, NULL, 0, 2);

    data(&l, 3, 3, 1, true, 0);             /* 5: a second open one */
    data(&l, 1, 0, 1, true, 0);             /* 6: no new transaction */
    assert_int_equal(l.nopen, 2);
    assert_int_equal(l.open[0].first_offset, 0);
    assert_int_equal(l.open[1].first_offset, 5);
    marker(&l, 1, KS_MARKER_COMMIT);        /* 7 */
    assert_int_equal(l.nopen, 1);
    assert_int_equal(l.open[0].producer_id, 3);
    assert_int_equal(ks_plog_lso(&l), 5);
    const int64_t rc[] = { 0, 1, 2, 4 };
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, rc, 4, 5);
    marker(&l, 3, KS_MARKER_COMMIT);        /* 8 */
    assert_int_equal(ks_plog_lso(&l), 9);
    const int64_t rest[] = { 5, 6 };
    expect_fetch(&l, 5, KS_READ_COMMITTED, 9, rest, 2, 9);
    ks_plog_free(&l);
}

/* max cuts a fetch mid-batch; *next is one past the last record returned
 * and the next fetch resumes there, past markers and aborted batches. */
static void test_max_and_resume(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, true);
    data(&l, NO_PID, 0, 4, false, 0);       /* 0-3 */
    data(&l, 4, 1, 3, true, 100);           /* 4-6 */
    marker(&l, 4, KS_MARKER_ABORT);         /* 7 */
    data(&l, NO_PID, 0, 4, false, 4);       /* 8-11 */
    const int64_t a[] = { 0, 1, 2 };
    expect_fetch(&l, 0, KS_READ_COMMITTED, 3, a, 3, 3);
    const int64_t b[] = { 3, 8 };
    expect_fetch(&l, 3, KS_READ_COMMITTED, 2, b, 2, 9);
    const int64_t c[] = { 9, 10, 11 };
    expect_fetch(&l, 9, KS_READ_COMMITTED, 5, c, 3, 12);
    expect_fetch(&l, 12, KS_READ_COMMITTED, 5, NULL, 0, 12);
    /* Stopping at max does not look past the last record returned. */
    const int64_t d[] = { 3 };
    expect_fetch(&l, 3, KS_READ_COMMITTED, 1, d, 1, 4);
    const int64_t e[] = { 5, 6 };
    expect_fetch(&l, 5, KS_READ_UNCOMMITTED, 2, e, 2, 7);
    const int64_t f[] = { 8 };
    expect_fetch(&l, 7, KS_READ_UNCOMMITTED, 1, f, 1, 9);
    expect_fetch(&l, 0, KS_READ_UNCOMMITTED, 0, NULL, 0, 0);

    /* One record at a time returns the same records as one big fetch. */
    ks_fetched out[1];
    int64_t from = 0, next = 0;
    uint64_t seen = 0;
    for (int guard = 0; guard < 40; guard++) {
        uint32_t n = ks_plog_fetch(&l, from, KS_READ_COMMITTED, 1, out, &next);
        if (n == 1)
            assert_int_equal(out[0].record, seen++);
        if (next == from)
            break;
        from = next;
    }
    assert_int_equal(seen, 8);
    assert_int_equal(from, 12);
    ks_plog_free(&l);
}

/* A held high watermark limits read_uncommitted and the LSO; appends
 * leave it alone; releasing it lets it follow the LEO again. */
static void test_held_high_watermark(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, false);
    data(&l, NO_PID, 0, 2, false, 0);       /* 0-1 */
    ks_plog_set_hw(&l, 2);
    assert_true(l.hw_held);
    data(&l, NO_PID, 0, 3, false, 0);       /* 2-4 */
    data(&l, NO_PID, 0, 1, false, 0);       /* 5 */
    assert_int_equal(l.hw, 2);
    assert_int_equal(l.leo, 6);
    assert_int_equal(ks_plog_lso(&l), 2);
    const int64_t a[] = { 0, 1 };
    expect_fetch(&l, 0, KS_READ_UNCOMMITTED, 9, a, 2, 2);
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, a, 2, 2);
    expect_fetch(&l, 2, KS_READ_UNCOMMITTED, 9, NULL, 0, 2);
    ks_plog_set_hw(&l, 5);
    const int64_t b[] = { 2, 3, 4 };
    expect_fetch(&l, 2, KS_READ_UNCOMMITTED, 9, b, 3, 5);
    ks_plog_set_hw(&l, -1);
    assert_false(l.hw_held);
    assert_int_equal(l.hw, 6);
    data(&l, NO_PID, 0, 1, false, 0);       /* 6 */
    assert_int_equal(l.hw, 7);
    ks_plog_free(&l);
}

/* A high watermark inside a batch: the batch is not split, so nothing of
 * it is returned and *next stays put. */
static void test_limit_inside_batch(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, false);
    data(&l, NO_PID, 0, 2, false, 0);       /* 0-1 */
    ks_plog_set_hw(&l, 2);
    data(&l, NO_PID, 0, 4, false, 0);       /* 2-5 */
    ks_plog_set_hw(&l, 4);
    const int64_t a[] = { 0, 1 };
    expect_fetch(&l, 0, KS_READ_UNCOMMITTED, 9, a, 2, 2);
    expect_fetch(&l, 2, KS_READ_UNCOMMITTED, 9, NULL, 0, 2);
    expect_fetch(&l, 3, KS_READ_UNCOMMITTED, 9, NULL, 0, 3);
    expect_fetch(&l, 4, KS_READ_UNCOMMITTED, 9, NULL, 0, 4);
    expect_fetch(&l, 9, KS_READ_UNCOMMITTED, 9, NULL, 0, 9);
    ks_plog_free(&l);
}

/* A completed transaction stays unstable until the high watermark passes
 * its marker, as in ProducerStateManager: the LSO stays at its first
 * offset while the marker is at or above the high watermark. */
static void test_marker_above_high_watermark(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, false);
    data(&l, NO_PID, 0, 1, false, 0);       /* 0 */
    ks_plog_set_hw(&l, 1);
    data(&l, 6, 1, 3, true, 0);             /* 1-3 */
    marker(&l, 6, KS_MARKER_COMMIT);        /* 4 */
    assert_int_equal(l.nunrepl, 1);
    assert_int_equal(ks_plog_lso(&l), 1);
    ks_plog_set_hw(&l, 4);
    assert_int_equal(ks_plog_lso(&l), 1);
    const int64_t a[] = { 0 };
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, a, 1, 1);
    const int64_t b[] = { 0, 1, 2, 3 };
    expect_fetch(&l, 0, KS_READ_UNCOMMITTED, 9, b, 4, 4);
    ks_plog_set_hw(&l, 5);
    assert_int_equal(l.nunrepl, 0);
    assert_int_equal(ks_plog_lso(&l), 5);
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, b, 4, 5);

    /* Without a hold the marker is below the high watermark at once. */
    ks_plog_set_hw(&l, -1);
    data(&l, 6, 1, 1, true, 0);             /* 5 */
    marker(&l, 6, KS_MARKER_ABORT);         /* 6 */
    assert_int_equal(l.nunrepl, 0);
    assert_int_equal(ks_plog_lso(&l), 7);
    ks_plog_free(&l);
}

/* Markers for a producer id with no transaction open here: appended as
 * one control record; COMMIT indexes nothing, ABORT indexes first = last
 * = the marker; neither hides that producer's later committed data. */
static void test_marker_without_open_transaction(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, true);
    data(&l, NO_PID, 0, 1, false, 1);       /* 0 */
    assert_int_equal(marker(&l, 3, KS_MARKER_COMMIT), 1);
    assert_int_equal(l.naborted, 0);
    assert_int_equal(ks_plog_lso(&l), 2);
    assert_int_equal(marker(&l, 3, KS_MARKER_ABORT), 2);
    assert_int_equal(l.naborted, 1);
    assert_int_equal(l.aborted[0].producer_id, 3);
    assert_int_equal(l.aborted[0].first_offset, 2);
    assert_int_equal(l.aborted[0].last_offset, 2);
    assert_int_equal(l.nopen, 0);
    assert_int_equal(ks_plog_lso(&l), 3);
    const ks_plog_batch *m = ks_plog_find(&l, 2);
    assert_non_null(m);
    assert_true(m->control && m->transactional);
    assert_int_equal(m->records, 1);
    assert_int_equal(m->marker, KS_MARKER_ABORT);
    assert_int_equal(m->producer, UINT32_MAX);
    assert_int_equal(m->appended_ns, 1000);

    data(&l, 3, 0, 2, true, 2);             /* 3-4 */
    marker(&l, 3, KS_MARKER_COMMIT);        /* 5 */
    const int64_t all[] = { 0, 3, 4 };
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, all, 3, 6);
    /* From the ABORT marker itself: its entry is sent, consumed at the
     * marker and removed there again. */
    const int64_t tail[] = { 3, 4 };
    expect_fetch(&l, 2, KS_READ_COMMITTED, 9, tail, 2, 6);
    expect_fetch(&l, 1, KS_READ_UNCOMMITTED, 9, tail, 2, 6);
    ks_plog_free(&l);
}

/* A producer id aborts, then commits its next transaction: the ABORT
 * marker takes it out of the aborted set, so the second transaction is
 * returned, from the start and from inside the first one alike. */
static void test_abort_then_commit_same_producer(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, true);
    data(&l, 8, 0, 2, true, 0);             /* 0-1 */
    data(&l, 8, 0, 2, true, 2);             /* 2-3 */
    marker(&l, 8, KS_MARKER_ABORT);         /* 4 */
    data(&l, 8, 0, 1, true, 4);             /* 5 */
    data(&l, NO_PID, 1, 1, false, 5);       /* 6 */
    data(&l, 8, 0, 1, true, 6);             /* 7 */
    marker(&l, 8, KS_MARKER_COMMIT);        /* 8 */
    const int64_t rc[] = { 5, 6, 7 };
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, rc, 3, 9);
    /* Mid-batch inside the aborted transaction: still skipped. */
    expect_fetch(&l, 3, KS_READ_COMMITTED, 9, rc, 3, 9);
    /* Past the ABORT marker the aborted transaction is not sent at all. */
    expect_fetch(&l, 5, KS_READ_COMMITTED, 9, rc, 3, 9);
    /* Mid-batch in committed data: the earlier records are skipped. */
    const int64_t ru[] = { 1, 2, 3 };
    expect_fetch(&l, 1, KS_READ_UNCOMMITTED, 3, ru, 3, 4);
    ks_plog_free(&l);
}

/* The aborted set is CompletedFetch's: a producer id stays in it until
 * one of its ABORT markers is read, whatever the index says its last
 * offset is; a COMMIT marker does not take it out; an entry counts from
 * the batch holding its first offset. The log is edited by hand to show
 * it, as this API alone builds only consistent logs. */
static void test_aborted_set_as_completed_fetch(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, false);
    data(&l, 4, 0, 1, true, 0);             /* 0 */
    marker(&l, 4, KS_MARKER_ABORT);         /* 1 */
    data(&l, 4, 0, 1, true, 0);             /* 2 */
    marker(&l, 4, KS_MARKER_COMMIT);        /* 3 */
    data(&l, 4, 0, 1, true, 0);             /* 4 */
    marker(&l, 4, KS_MARKER_COMMIT);        /* 5 */
    const int64_t ok[] = { 2, 4 };
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, ok, 2, 6);
    l.batches[1].marker = KS_MARKER_COMMIT;
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, NULL, 0, 6);
    expect_fetch(&l, 1, KS_READ_COMMITTED, 9, NULL, 0, 6);
    /* An entry ending before `from` is not sent. */
    expect_fetch(&l, 2, KS_READ_COMMITTED, 9, ok, 2, 6);
    ks_plog_free(&l);

    /* The queue is consumed up to each batch's last offset: an entry
     * beginning inside a batch already aborts that batch. */
    ks_plog_init(&l, false);
    data(&l, 5, 0, 3, true, 0);             /* 0-2 */
    marker(&l, 5, KS_MARKER_ABORT);         /* 3 */
    data(&l, NO_PID, 1, 1, false, 0);       /* 4 */
    l.aborted[0].first_offset = 2;
    const int64_t plain[] = { 4 };
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, plain, 1, 5);
    l.aborted[0].first_offset = 3;
    const int64_t both[] = { 0, 1, 2, 4 };
    expect_fetch(&l, 0, KS_READ_COMMITTED, 9, both, 4, 5);
    ks_plog_free(&l);
}

/* ks_plog_find on every batch's first and last offset and just outside. */
static void test_find_boundaries(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, false);
    assert_null(ks_plog_find(&l, 0));
    data(&l, NO_PID, 0, 1, false, 0);       /* 0 */
    data(&l, 2, 0, 3, true, 0);             /* 1-3 */
    marker(&l, 2, KS_MARKER_COMMIT);        /* 4 */
    data(&l, NO_PID, 0, 2, false, 0);       /* 5-6 */
    const int64_t at[] = { 0, 1, 2, 3, 4, 5, 6 };
    const uint32_t which[] = { 0, 1, 1, 1, 2, 3, 3 };
    for (uint32_t i = 0; i < 7; i++) {
        const ks_plog_batch *b = ks_plog_find(&l, at[i]);
        assert_ptr_equal(b, &l.batches[which[i]]);
    }
    assert_null(ks_plog_find(&l, -1));
    assert_null(ks_plog_find(&l, 7));
    assert_null(ks_plog_find(&l, INT64_MAX));
    ks_plog_free(&l);
}

/* Thousands of batches: the arrays grow, offsets and ids stay right, and
 * read_committed fetches in pieces return every committed record. */
static void test_many_batches(void **state)
{
    (void)state;
    enum { N = 6000 };
    ks_plog l;
    ks_plog_init(&l, true);
    uint64_t id = 0, committed = 0, id_sum = 0;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t n = 1u + i % 5u;
        bool txn = i % 3u == 1u;
        data(&l, txn ? 11 : NO_PID, 0, n, txn, id);
        id += n;
        if (txn)
            marker(&l, 11, i % 2u ? KS_MARKER_COMMIT : KS_MARKER_ABORT);
        if (!txn || i % 2u) {
            committed += n;
            id_sum += n * (id - n) + n * (n - 1u) / 2u;
        }
    }
    assert_int_equal(l.count, N + N / 3);
    assert_true(l.cap >= l.count);
    assert_int_equal(l.nids, id);
    assert_int_equal(l.leo, (int64_t)id + N / 3);
    assert_int_equal(l.naborted, N / 6);
    for (uint32_t i = 0; i < l.count; i++) {
        const ks_plog_batch *b = &l.batches[i];
        assert_ptr_equal(ks_plog_find(&l, b->base_offset), b);
        assert_ptr_equal(ks_plog_find(&l, b->base_offset + b->records - 1), b);
    }
    ks_fetched out[OUT_MAX];
    int64_t from = 0, next = 0, last = -1;
    uint64_t got = 0, got_sum = 0;
    for (;;) {
        uint32_t n = ks_plog_fetch(&l, from, KS_READ_COMMITTED, 37, out, &next);
        for (uint32_t i = 0; i < n; i++) {
            assert_true(out[i].offset > last);
            last = out[i].offset;
            got_sum += out[i].record;
        }
        got += n;
        if (next == from)
            break;
        from = next;
    }
    assert_int_equal(got, committed);
    assert_int_equal(got_sum, id_sum);
    assert_int_equal(from, l.leo);
    ks_plog_free(&l);
}

/* ---- a seeded random log against an independent model ---- */

/* A small deterministic generator (64-bit LCG, high bits). */
static uint32_t rnd(uint64_t *s, uint32_t n)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)((*s >> 33) % n);
}

enum { PIDS = 4, RECS = 4000 };

/* The model: per offset, what it holds; per producer id, its open
 * transaction; every completed transaction. */
typedef struct model {
    int8_t kind[RECS];       /* 0 plain data, 1 transactional data, 2 marker */
    int8_t fate[RECS];       /* transactional data: 0 open, 1 committed, 2 aborted */
    int64_t pid_of[RECS];
    int64_t open_first[PIDS];
    int64_t done_first[RECS], done_last[RECS];
    uint32_t ndone;
} model;

/* The LSO by its definition, from the model. */
static int64_t model_lso(const model *m, int64_t hw)
{
    int64_t lso = hw;
    for (uint32_t p = 0; p < PIDS; p++)
        if (m->open_first[p] >= 0 && m->open_first[p] < lso)
            lso = m->open_first[p];
    for (uint32_t i = 0; i < m->ndone; i++)
        if (m->done_last[i] >= hw && m->done_first[i] < lso)
            lso = m->done_first[i];
    return lso;
}

/* Whether a read at this isolation level returns the record at off. */
static bool model_visible(const model *m, int64_t off, ks_isolation iso)
{
    if (m->kind[off] == 2)
        return false;
    return iso == KS_READ_UNCOMMITTED || m->kind[off] == 0 || m->fate[off] != 2;
}

/* Ends producer p's transaction with a marker at off. */
static void model_end(model *m, uint32_t p, int64_t off, bool commit)
{
    m->kind[off] = 2;
    if (m->open_first[p] < 0)
        return;
    for (int64_t o = m->open_first[p]; o < off; o++)
        if (m->kind[o] == 1 && m->pid_of[o] == (int64_t)p)
            m->fate[o] = commit ? 1 : 2;
    m->done_first[m->ndone] = m->open_first[p];
    m->done_last[m->ndone++] = off;
    m->open_first[p] = -1;
}

/* One random step: data (plain or transactional), a marker, or a move of
 * the high watermark to a batch boundary. */
static void random_step(ks_plog *l, model *m, uint64_t *s)
{
    uint32_t p = rnd(s, PIDS), what = rnd(s, 10);
    if (what < 6) {
        bool txn = what >= 2;
        uint32_t n = 1u + rnd(s, 3);
        int64_t base = data(l, txn || what == 1 ? (int64_t)p : NO_PID, p, n, txn, (uint64_t)l->leo);
        for (uint32_t i = 0; i < n; i++) {
            m->kind[base + i] = (int8_t)txn;
            m->pid_of[base + i] = p;
        }
        if (txn && m->open_first[p] < 0)
            m->open_first[p] = base;
    } else if (what < 9) {
        model_end(m, p, marker(l, p, what == 8 ? KS_MARKER_ABORT : KS_MARKER_COMMIT), what < 8);
    } else if (l->hw_held && rnd(s, 3) == 0) {
        ks_plog_set_hw(l, -1);
    } else {
        int64_t to = l->hw + (int64_t)rnd(s, (uint32_t)(l->leo - l->hw + 1));
        if (to < l->leo)
            to = ks_plog_find(l, to)->base_offset;
        ks_plog_set_hw(l, to);
    }
}

/* Reads everything from `from` in fetches of at most `max` records and
 * checks it against the model. */
static void check_reads(const ks_plog *l, const model *m, int64_t from, ks_isolation iso,
                        uint32_t max)
{
    int64_t limit = iso == KS_READ_COMMITTED ? ks_plog_lso(l) : l->hw;
    int64_t expect = from, next = 0;
    ks_fetched out[OUT_MAX];
    if (from >= limit) {
        assert_int_equal(ks_plog_fetch(l, from, iso, max, out, &next), 0);
        assert_int_equal(next, from);
        return;
    }
    for (;;) {
        uint32_t n = ks_plog_fetch(l, from, iso, max, out, &next);
        for (uint32_t i = 0; i < n; i++) {
            while (expect < limit && !model_visible(m, expect, iso))
                expect++;
            assert_int_equal(out[i].offset, expect);
            assert_int_equal(out[i].record, (uint64_t)expect);
            expect++;
        }
        assert_true(next <= limit);
        if (next == from)
            break;
        from = next;
    }
    while (expect < limit && !model_visible(m, expect, iso))
        expect++;
    assert_int_equal(expect, limit);
    assert_int_equal(from, limit);
}

static void test_random_log_against_model(void **state)
{
    (void)state;
    model *m = malloc(sizeof *m);
    assert_non_null(m);
    for (uint64_t seed = 1; seed <= 6; seed++) {
        memset(m, 0, sizeof *m);
        for (uint32_t p = 0; p < PIDS; p++)
            m->open_first[p] = -1;
        ks_plog l;
        ks_plog_init(&l, true);
        uint64_t s = seed;
        while (l.leo < RECS - 8) {
            random_step(&l, m, &s);
            assert_int_equal(ks_plog_lso(&l), model_lso(m, l.hw));
            if (rnd(&s, 40) == 0) {
                int64_t from = l.leo ? (int64_t)rnd(&s, (uint32_t)l.leo) : 0;
                uint32_t max = 1u + rnd(&s, 9);
                check_reads(&l, m, from, KS_READ_COMMITTED, max);
                check_reads(&l, m, from, KS_READ_UNCOMMITTED, max);
            }
        }
        check_reads(&l, m, 0, KS_READ_COMMITTED, OUT_MAX);
        check_reads(&l, m, 0, KS_READ_UNCOMMITTED, 5);
        ks_plog_free(&l);
    }
    free(m);
}

/* Without kept ids nothing is stored and every record id reads 0. */
static void test_ids_not_kept(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, false);
    data(&l, NO_PID, 4, 3, false, 50);
    assert_null(l.ids);
    assert_int_equal(l.nids, 0);
    assert_int_equal(l.batches[0].ids_at, 0);
    ks_fetched out[4];
    int64_t next = 0;
    assert_int_equal(ks_plog_fetch(&l, 0, KS_READ_UNCOMMITTED, 4, out, &next), 3);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(out[i].record, 0);
        assert_int_equal(out[i].producer, 4);
        assert_int_equal(out[i].producer_id, NO_PID);
        assert_false(out[i].transactional);
    }
    ks_plog_free(&l);
}

/* Kept ids: ids_at points at each batch's first id; markers take none. */
static void test_ids_kept(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, true);
    data(&l, 2, 0, 2, true, 70);
    marker(&l, 2, KS_MARKER_COMMIT);
    data(&l, NO_PID, 1, 3, false, 90);
    assert_int_equal(l.nids, 5);
    assert_int_equal(l.batches[0].ids_at, 0);
    assert_int_equal(l.batches[1].ids_at, 2);
    assert_int_equal(l.batches[2].ids_at, 2);
    assert_int_equal(l.ids[2], 90);
    assert_int_equal(l.ids[4], 92);
    ks_fetched out[8];
    int64_t next = 0;
    assert_int_equal(ks_plog_fetch(&l, 1, KS_READ_COMMITTED, 8, out, &next), 4);
    assert_int_equal(out[0].record, 71);
    assert_int_equal(out[1].record, 90);
    assert_int_equal(out[3].record, 92);
    assert_int_equal(next, 6);
    ks_plog_free(&l);
}

/* An append that cannot get room is refused with -1 and changes nothing:
 * the counts are set at their limits by hand, so no allocation is tried. */
static void test_refused_append_changes_nothing(void **state)
{
    (void)state;
    ks_plog l;
    ks_plog_init(&l, true);
    data(&l, 1, 0, 1, true, 5);
    ks_plog saved = l;
    ks_plog_batch b;
    memset(&b, 0, sizeof b);
    b.records = 2;
    b.producer_id = 2;
    b.transactional = true;
    b.base_offset = 77;
    const uint64_t ids[2] = { 1, 2 };

    l.nids = UINT64_MAX - 1u;               /* no room for 2 ids */
    saved.nids = l.nids;
    assert_int_equal(ks_plog_append(&l, &b, ids), -1);
    assert_int_equal(b.base_offset, 77);
    assert_memory_equal(&l, &saved, sizeof l);
    l.nids = saved.nids = 1;

    l.naborted = saved.naborted = UINT32_MAX; /* no room for an entry */
    assert_int_equal(ks_plog_append_marker(&l, 1, 0, KS_MARKER_ABORT, 0), -1);
    assert_int_equal(l.count, 1);
    assert_int_equal(l.leo, 1);
    assert_int_equal(l.nopen, 1);
    assert_int_equal(l.hw, 1);
    l.naborted = saved.naborted = 0;

    l.count = saved.count = UINT32_MAX;     /* no room for a batch */
    assert_int_equal(ks_plog_append(&l, &b, ids), -1);
    assert_int_equal(ks_plog_append_marker(&l, 1, 0, KS_MARKER_COMMIT, 0), -1);
    assert_memory_equal(&l, &saved, sizeof l);
    l.count = 1;
    assert_int_equal(ks_plog_append(&l, &b, ids), 1);
    assert_int_equal(l.nopen, 2);
    assert_int_equal(l.nids, 3);
    ks_plog_free(&l);
}

/* ks_plog_free releases everything and leaves an all-zero log. */
static void test_free_zeroes(void **state)
{
    (void)state;
    ks_plog l, zero;
    memset(&zero, 0, sizeof zero);
    ks_plog_init(&l, true);
    data(&l, 1, 0, 3, true, 0);
    ks_plog_set_hw(&l, 3);
    marker(&l, 1, KS_MARKER_ABORT);
    assert_non_null(l.unrepl);
    ks_plog_free(&l);
    assert_memory_equal(&l, &zero, sizeof l);
    ks_plog_free(&l);
    assert_memory_equal(&l, &zero, sizeof l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_transaction_story),
        cmocka_unit_test(test_aborted_transaction),
        cmocka_unit_test(test_interleaved_commit_and_abort),
        cmocka_unit_test(test_abort_first_then_commit),
        cmocka_unit_test(test_non_transactional_between),
        cmocka_unit_test(test_open_transaction_holds_lso),
        cmocka_unit_test(test_max_and_resume),
        cmocka_unit_test(test_held_high_watermark),
        cmocka_unit_test(test_limit_inside_batch),
        cmocka_unit_test(test_marker_above_high_watermark),
        cmocka_unit_test(test_marker_without_open_transaction),
        cmocka_unit_test(test_abort_then_commit_same_producer),
        cmocka_unit_test(test_aborted_set_as_completed_fetch),
        cmocka_unit_test(test_find_boundaries),
        cmocka_unit_test(test_many_batches),
        cmocka_unit_test(test_random_log_against_model),
        cmocka_unit_test(test_ids_not_kept),
        cmocka_unit_test(test_ids_kept),
        cmocka_unit_test(test_refused_append_changes_nothing),
        cmocka_unit_test(test_free_zeroes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
