/*
 * test_txn_state.c - the transaction coordinator's state machine: state
 * ids and names; all 8x8 transitions against Kafka's validPreviousStates
 * (written out here from TransactionState.java, not from the X-macro);
 * ks_txn_set_state and ks_txn_set_pending refusing illegal or conflicting
 * moves without touching the metadata; the metadata's init, free and
 * partition list; every branch of InitProducerId, the fence,
 * AddPartitionsToTxn, EndTxn (classic and KIP-890, with the resulting
 * error, write, state and epochs) and the completion; the epoch limit in
 * InitProducerId and in KIP-890's EndTxn (the next producer id, the retry
 * on overflow); ks_txn_apply; that decisions never modify the metadata;
 * the seed flow Empty -> Ongoing -> PrepareCommit -> CompleteCommit in
 * both protocols; zombie fencing in both; the timeout scan on both sides
 * of its millisecond boundary; Java's String.hashCode on ASCII, BMP,
 * supplementary and malformed UTF-8 (vectors computed from the definition
 * and checked against OpenJDK 17's new String(bytes, UTF_8).hashCode());
 * and the __transaction_state partition with 50 partitions.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/broker/txn_state.h"

#include <string.h>

#define PID INT64_C(4000)
#define PID2 INT64_C(4001)
#define MS KS_NS_PER_MS
#define TIMEOUT_NS (60000 * MS)

enum { EMPTY, ONGOING, PC, PA, CC, CA, DEAD, PEF, NSTATES };

/* Kafka's TransactionState.validPreviousStates (4.x), by hand:
 * legal_prev[to] lists the states that may precede `to`. */
static bool kafka_legal(int from, int to)
{
    static const int prev[NSTATES][NSTATES + 1] = {
        [EMPTY] = {EMPTY, CC, CA, -1},
        [ONGOING] = {ONGOING, EMPTY, CC, CA, -1},
        [PC] = {ONGOING, -1},
        [PA] = {ONGOING, PEF, EMPTY, CC, CA, -1},
        [CC] = {PC, -1},
        [CA] = {PA, -1},
        [DEAD] = {EMPTY, CA, CC, -1},
        [PEF] = {ONGOING, -1},
    };
    for (int i = 0; prev[to][i] >= 0; i++) {
        if (prev[to][i] == from)
            return true;
    }
    return false;
}

/* m in state s at epoch `epoch` with producer id PID, nothing pending. */
static void meta_at(ks_txn_meta *m, ks_txn_state s, int16_t epoch)
{
    assert_true(ks_txn_meta_init(m, "txn-a", TIMEOUT_NS));
    m->producer_id = PID;
    m->state = s;
    m->epoch = epoch;
}

/* The decisions, each checked not to modify m. */
static ks_txn_decision init_pid(const ks_txn_meta *m)
{
    ks_txn_meta before;
    memcpy(&before, m, sizeof before);
    ks_txn_decision d = ks_txn_init_producer_id(m);
    assert_memory_equal(&before, m, sizeof before);
    return d;
}

static ks_txn_decision add(const ks_txn_meta *m, int64_t pid, int16_t epoch, const uint32_t *parts,
                           uint32_t n)
{
    ks_txn_meta before;
    memcpy(&before, m, sizeof before);
    ks_txn_decision d = ks_txn_add_partitions(m, pid, epoch, parts, n);
    assert_memory_equal(&before, m, sizeof before);
    return d;
}

static ks_txn_decision add1(const ks_txn_meta *m, int64_t pid, int16_t epoch)
{
    const uint32_t part = 7;
    return add(m, pid, epoch, &part, 1);
}

static ks_txn_decision end(const ks_txn_meta *m, int64_t pid, int16_t epoch, bool commit,
                           bool kip890)
{
    ks_txn_meta before;
    memcpy(&before, m, sizeof before);
    ks_txn_decision d = ks_txn_end_txn(m, pid, epoch, commit, kip890);
    assert_memory_equal(&before, m, sizeof before);
    return d;
}

static ks_txn_decision complete(const ks_txn_meta *m)
{
    ks_txn_meta before;
    memcpy(&before, m, sizeof before);
    ks_txn_decision d = ks_txn_complete(m);
    assert_memory_equal(&before, m, sizeof before);
    return d;
}

#define ASSERT_ANSWER(dec, err)                     \
    do {                                            \
        ks_txn_decision d_ = (dec);                 \
        assert_int_equal(d_.error, (err));          \
        assert_false(d_.write);                     \
        assert_false(d_.abort_ongoing);             \
        assert_false(d_.new_producer_id);           \
    } while (0)

/* NONE without a write; the client keeps or gets `ep`. */
#define ASSERT_DONE(dec, ep)                        \
    do {                                            \
        ks_txn_decision d_ = (dec);                 \
        assert_int_equal(d_.error, KS_KERR_NONE);   \
        assert_false(d_.write);                     \
        assert_int_equal(d_.epoch, (ep));           \
    } while (0)

#define ASSERT_WRITE(dec, err, to, ep, last, newpid) \
    do {                                             \
        ks_txn_decision d_ = (dec);                  \
        assert_int_equal(d_.error, (err));           \
        assert_true(d_.write);                       \
        assert_int_equal(d_.write_state, (to));      \
        assert_int_equal(d_.epoch, (ep));            \
        assert_int_equal(d_.last_epoch, (last));     \
        assert_int_equal(d_.new_producer_id, (newpid)); \
    } while (0)

/* Writes d as the coordinator does: pending, then applied. */
static void commit_write(ks_txn_meta *m, ks_txn_decision d, int64_t fresh, ks_time now)
{
    assert_true(d.write);
    assert_true(ks_txn_set_pending(m, d.write_state));
    assert_true(ks_txn_apply(m, &d, fresh, now));
    assert_false(m->pending);
    assert_int_equal(m->state, d.write_state);
    assert_true(ks_txn_invariants_hold(m));
}

/* ---- States and legality -------------------------------------------------- */

static void test_state_ids_and_names(void **state)
{
    (void)state;
    static const char *const names[NSTATES] = {"Empty", "Ongoing", "PrepareCommit",
                                               "PrepareAbort", "CompleteCommit", "CompleteAbort",
                                               "Dead", "PrepareEpochFence"};
    static const ks_txn_state ids[NSTATES] = {
        KS_TXN_EMPTY, KS_TXN_ONGOING, KS_TXN_PREPARE_COMMIT, KS_TXN_PREPARE_ABORT,
        KS_TXN_COMPLETE_COMMIT, KS_TXN_COMPLETE_ABORT, KS_TXN_DEAD, KS_TXN_PREPARE_EPOCH_FENCE};
    assert_int_equal(KS_TXN__COUNT, NSTATES);
    for (int i = 0; i < NSTATES; i++) {
        assert_int_equal(ids[i], i);   /* Kafka's TransactionState ids */
        assert_string_equal(ks_txn_state_name(ids[i]), names[i]);
    }
    assert_string_equal(ks_txn_state_name(KS_TXN__COUNT), "?");
}

static void test_legal_matches_kafka(void **state)
{
    (void)state;
    int legal = 0;
    for (int from = 0; from < NSTATES; from++) {
        for (int to = 0; to < NSTATES; to++) {
            bool want = kafka_legal(from, to);
            assert_int_equal(ks_txn_legal((ks_txn_state)from, (ks_txn_state)to), want);
            legal += want;
        }
    }
    assert_int_equal(legal, 19);
    assert_false(ks_txn_legal(KS_TXN__COUNT, KS_TXN_EMPTY));
    assert_false(ks_txn_legal(KS_TXN_EMPTY, KS_TXN__COUNT));
}

static void test_set_state_legal_moves(void **state)
{
    (void)state;
    for (int from = 0; from < NSTATES; from++) {
        for (int to = 0; to < NSTATES; to++) {
            if (!kafka_legal(from, to))
                continue;
            for (int with_pending = 0; with_pending < 2; with_pending++) {
                ks_txn_meta m;
                meta_at(&m, (ks_txn_state)from, 3);
                m.transitions = 5;
                if (with_pending)
                    assert_true(ks_txn_set_pending(&m, (ks_txn_state)to));
                assert_true(ks_txn_set_state(&m, (ks_txn_state)to));
                assert_int_equal(m.state, to);
                assert_int_equal(m.transitions, 6);
                assert_false(m.pending);
                assert_int_equal(m.epoch, 3);   /* set_state moves the state only */
                ks_txn_meta_free(&m);
            }
        }
    }
}

static void test_set_state_refuses_illegal(void **state)
{
    (void)state;
    int refused = 0;
    for (int from = 0; from < NSTATES; from++) {
        for (int to = 0; to < NSTATES; to++) {
            if (kafka_legal(from, to))
                continue;
            ks_txn_meta m, before;
            meta_at(&m, (ks_txn_state)from, 3);
            memcpy(&before, &m, sizeof m);
            assert_false(ks_txn_set_state(&m, (ks_txn_state)to));
            assert_memory_equal(&before, &m, sizeof m);
            assert_false(ks_txn_set_pending(&m, (ks_txn_state)to));
            assert_memory_equal(&before, &m, sizeof m);
            refused++;
            ks_txn_meta_free(&m);
        }
    }
    assert_int_equal(refused, 64 - 19);
}

static void test_set_state_refuses_other_pending(void **state)
{
    (void)state;
    ks_txn_meta m, before;
    meta_at(&m, KS_TXN_ONGOING, 0);
    assert_true(ks_txn_set_pending(&m, KS_TXN_PREPARE_COMMIT));
    memcpy(&before, &m, sizeof m);
    /* Ongoing -> PrepareAbort is legal, but PrepareCommit is being written. */
    assert_false(ks_txn_set_state(&m, KS_TXN_PREPARE_ABORT));
    assert_memory_equal(&before, &m, sizeof m);
    assert_true(ks_txn_set_state(&m, KS_TXN_PREPARE_COMMIT));
    assert_int_equal(m.state, KS_TXN_PREPARE_COMMIT);
    ks_txn_meta_free(&m);
}

static void test_set_pending(void **state)
{
    (void)state;
    ks_txn_meta m, before;
    meta_at(&m, KS_TXN_ONGOING, 0);
    assert_true(ks_txn_set_pending(&m, KS_TXN_PREPARE_ABORT));
    assert_true(m.pending);
    assert_int_equal(m.pending_state, KS_TXN_PREPARE_ABORT);
    assert_int_equal(m.state, KS_TXN_ONGOING);
    memcpy(&before, &m, sizeof m);
    /* One pending transition at a time (prepareTransitionTo). */
    assert_false(ks_txn_set_pending(&m, KS_TXN_PREPARE_COMMIT));
    assert_memory_equal(&before, &m, sizeof m);
    ks_txn_meta_free(&m);
}

/* ---- The metadata ----------------------------------------------------------- */

static void test_meta_init_free(void **state)
{
    (void)state;
    char id[] = "orders-tx";
    ks_txn_meta m;
    assert_true(ks_txn_meta_init(&m, id, 5 * MS));
    id[0] = 'X';   /* the metadata has its own copy */
    assert_string_equal(m.transactional_id, "orders-tx");
    assert_int_equal(m.producer_id, -1);
    assert_int_equal(m.prev_producer_id, -1);
    assert_int_equal(m.next_producer_id, -1);
    assert_int_equal(m.epoch, -1);
    assert_int_equal(m.last_epoch, -1);
    assert_int_equal(m.state, KS_TXN_EMPTY);
    assert_false(m.pending);
    assert_int_equal(m.npartitions, 0);
    assert_int_equal(m.txn_start_ns, -1);
    assert_int_equal(m.timeout_ns, 5 * MS);
    assert_int_equal(m.transitions, 0);
    ks_txn_meta_free(&m);
    assert_null(m.transactional_id);
    assert_null(m.partitions);
}

static void test_partitions_unique_in_order(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_ONGOING, 0);
    for (uint32_t i = 0; i < 100; i++)
        assert_true(ks_txn_add_partition(&m, 1000 - i));   /* grows past any first size */
    for (uint32_t i = 0; i < 100; i += 3)
        assert_true(ks_txn_add_partition(&m, 1000 - i));   /* already in */
    assert_int_equal(m.npartitions, 100);
    for (uint32_t i = 0; i < 100; i++)
        assert_int_equal(m.partitions[i], 1000 - i);
    assert_true(ks_txn_has_partition(&m, 901));
    assert_false(ks_txn_has_partition(&m, 900));
    ks_txn_meta_free(&m);
}

/* ---- InitProducerId and the fence -------------------------------------------- */

static void test_init_pid_first_use(void **state)
{
    (void)state;
    ks_txn_meta m;
    assert_true(ks_txn_meta_init(&m, "txn-a", TIMEOUT_NS));
    ASSERT_WRITE(init_pid(&m), KS_KERR_NONE, KS_TXN_EMPTY, 0, -1, true);
    commit_write(&m, ks_txn_init_producer_id(&m), PID, 10 * MS);
    assert_int_equal(m.producer_id, PID);
    assert_int_equal(m.prev_producer_id, PID);   /* Kafka: the id before the write */
    assert_int_equal(m.epoch, 0);
    assert_int_equal(m.transitions, 1);
    ks_txn_meta_free(&m);
}

static void test_init_pid_idle_bumps(void **state)
{
    (void)state;
    const ks_txn_state idle[] = {KS_TXN_EMPTY, KS_TXN_COMPLETE_COMMIT, KS_TXN_COMPLETE_ABORT};
    for (size_t i = 0; i < 3; i++) {
        ks_txn_meta m;
        meta_at(&m, idle[i], 41);
        m.last_epoch = 40;
        ASSERT_WRITE(init_pid(&m), KS_KERR_NONE, KS_TXN_EMPTY, 42, -1, false);
        assert_true(ks_txn_add_partition(&m, 3));
        m.txn_start_ns = 5 * MS;
        commit_write(&m, ks_txn_init_producer_id(&m), PID2, 10 * MS);
        assert_int_equal(m.producer_id, PID);   /* the fresh id is not used */
        assert_int_equal(m.epoch, 42);
        assert_int_equal(m.last_epoch, -1);
        assert_int_equal(m.npartitions, 0);
        assert_int_equal(m.txn_start_ns, -1);
        ks_txn_meta_free(&m);
    }
}

static void test_init_pid_epoch_limit(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_COMPLETE_COMMIT, KS_TXN_EPOCH_LIMIT - 1);
    ASSERT_WRITE(init_pid(&m), KS_KERR_NONE, KS_TXN_EMPTY, KS_TXN_EPOCH_LIMIT, -1, false);
    m.epoch = KS_TXN_EPOCH_LIMIT;
    ASSERT_WRITE(init_pid(&m), KS_KERR_NONE, KS_TXN_EMPTY, 0, -1, true);
    m.epoch = INT16_MAX;
    ASSERT_WRITE(init_pid(&m), KS_KERR_NONE, KS_TXN_EMPTY, 0, -1, true);
    /* Applied: the fresh id at epoch 0, the old one remembered. */
    commit_write(&m, ks_txn_init_producer_id(&m), PID2, 10 * MS);
    assert_int_equal(m.producer_id, PID2);
    assert_int_equal(m.prev_producer_id, PID);
    assert_int_equal(m.epoch, 0);
    ks_txn_meta_free(&m);
}

static void test_init_pid_concurrent(void **state)
{
    (void)state;
    const ks_txn_state busy[] = {KS_TXN_PREPARE_COMMIT, KS_TXN_PREPARE_ABORT,
                                 KS_TXN_PREPARE_EPOCH_FENCE};
    for (size_t i = 0; i < 3; i++) {
        ks_txn_meta m;
        meta_at(&m, busy[i], 2);
        ASSERT_ANSWER(init_pid(&m), KS_KERR_CONCURRENT_TRANSACTIONS);
        ks_txn_meta_free(&m);
    }
    ks_txn_meta m;
    meta_at(&m, KS_TXN_EMPTY, 2);
    assert_true(ks_txn_set_pending(&m, KS_TXN_ONGOING));
    ASSERT_ANSWER(init_pid(&m), KS_KERR_CONCURRENT_TRANSACTIONS);
    ks_txn_meta_free(&m);
}

static void test_init_pid_fences_ongoing(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_ONGOING, 9);
    m.last_epoch = 8;
    ks_txn_decision d = init_pid(&m);
    ASSERT_WRITE(d, KS_KERR_CONCURRENT_TRANSACTIONS, KS_TXN_PREPARE_EPOCH_FENCE, 10, -1, false);
    assert_true(d.abort_ongoing);
    /* Java's prepareFenceProducerEpoch keeps Short.MAX_VALUE. */
    m.epoch = INT16_MAX;
    ASSERT_WRITE(init_pid(&m), KS_KERR_CONCURRENT_TRANSACTIONS, KS_TXN_PREPARE_EPOCH_FENCE,
                 INT16_MAX, -1, false);
    ks_txn_meta_free(&m);
}

static void test_init_pid_dead(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_DEAD, 2);
    ASSERT_ANSWER(init_pid(&m), KS_KERR_UNKNOWN_SERVER_ERROR);
    ks_txn_meta_free(&m);
}

static void test_fence_decision(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_ONGOING, 4);
    ks_txn_decision d = ks_txn_fence(&m);
    ASSERT_WRITE(d, KS_KERR_NONE, KS_TXN_PREPARE_EPOCH_FENCE, 5, -1, false);
    assert_true(d.abort_ongoing);
    assert_true(ks_txn_set_pending(&m, KS_TXN_PREPARE_COMMIT));
    ASSERT_ANSWER(ks_txn_fence(&m), KS_KERR_CONCURRENT_TRANSACTIONS);
    m.pending = false;
    m.state = KS_TXN_COMPLETE_ABORT;
    ASSERT_ANSWER(ks_txn_fence(&m), KS_KERR_INVALID_TXN_STATE);
    ks_txn_meta_free(&m);
}

/* ---- AddPartitionsToTxn -------------------------------------------------------- */

static void test_add_partitions_refusals(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_ONGOING, 5);
    ASSERT_ANSWER(add1(&m, PID2, 5), KS_TXN_PID_MISMATCH);
    ASSERT_ANSWER(add1(&m, PID, 4), KS_KERR_PRODUCER_FENCED);
    ASSERT_ANSWER(add1(&m, PID, 6), KS_KERR_PRODUCER_FENCED);
    assert_true(ks_txn_set_pending(&m, KS_TXN_PREPARE_ABORT));
    ASSERT_ANSWER(add1(&m, PID, 5), KS_KERR_CONCURRENT_TRANSACTIONS);
    m.pending = false;
    const ks_txn_state busy[] = {KS_TXN_PREPARE_COMMIT, KS_TXN_PREPARE_ABORT,
                                 KS_TXN_PREPARE_EPOCH_FENCE};
    for (size_t i = 0; i < 3; i++) {
        m.state = busy[i];
        ASSERT_ANSWER(add1(&m, PID, 5), KS_KERR_CONCURRENT_TRANSACTIONS);
    }
    m.state = KS_TXN_DEAD;
    ASSERT_ANSWER(add1(&m, PID, 5), KS_KERR_UNKNOWN_SERVER_ERROR);
    ks_txn_meta_free(&m);

    /* No InitProducerId yet: no producer id is the transactional.id's. */
    assert_true(ks_txn_meta_init(&m, "txn-a", TIMEOUT_NS));
    ASSERT_ANSWER(add1(&m, -1, -1), KS_TXN_PID_MISMATCH);
    ks_txn_meta_free(&m);
}

static void test_add_partitions_writes(void **state)
{
    (void)state;
    const uint32_t parts[] = {3, 1};
    const ks_txn_state idle[] = {KS_TXN_EMPTY, KS_TXN_COMPLETE_COMMIT, KS_TXN_COMPLETE_ABORT};
    for (size_t i = 0; i < 3; i++) {
        ks_txn_meta m;
        meta_at(&m, idle[i], 5);
        m.last_epoch = 4;
        ASSERT_WRITE(add(&m, PID, 5, parts, 2), KS_KERR_NONE, KS_TXN_ONGOING, 5, 4, false);
        /* Even with no partition (AddOffsetsToTxn-like). */
        ASSERT_WRITE(add(&m, PID, 5, parts, 0), KS_KERR_NONE, KS_TXN_ONGOING, 5, 4, false);
        ks_txn_meta_free(&m);
    }
    ks_txn_meta m;
    meta_at(&m, KS_TXN_ONGOING, 5);
    assert_true(ks_txn_add_partition(&m, 1));
    ASSERT_WRITE(add(&m, PID, 5, parts, 2), KS_KERR_NONE, KS_TXN_ONGOING, 5, -1, false);
    assert_true(ks_txn_add_partition(&m, 3));
    /* Every partition in already: answered at once. */
    ASSERT_DONE(add(&m, PID, 5, parts, 2), 5);
    ASSERT_DONE(add(&m, PID, 5, parts, 0), 5);
    ks_txn_meta_free(&m);
}

/* ---- Invariants ---------------------------------------------------------------- */

static void test_invariants(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_EMPTY, 0);
    assert_true(ks_txn_invariants_hold(&m));
    /* Ongoing needs a start time. */
    m.state = KS_TXN_ONGOING;
    assert_false(ks_txn_invariants_hold(&m));
    assert_true(ks_txn_add_partition(&m, 2));
    m.txn_start_ns = 5;
    assert_true(ks_txn_invariants_hold(&m));
    /* ... and the producer's id and epoch. */
    m.epoch = -1;
    assert_false(ks_txn_invariants_hold(&m));
    m.epoch = 0;
    /* A pending state must be a legal successor. */
    m.pending = true;
    m.pending_state = KS_TXN_COMPLETE_COMMIT;
    assert_false(ks_txn_invariants_hold(&m));
    m.pending_state = KS_TXN_PREPARE_COMMIT;
    assert_true(ks_txn_invariants_hold(&m));
    m.pending = false;
    /* Partitions are distinct. */
    m.partitions[m.npartitions++] = 2;
    assert_false(ks_txn_invariants_hold(&m));
    m.npartitions = 1;
    /* Completed and Empty states hold none, Empty no start time. */
    m.state = KS_TXN_COMPLETE_ABORT;
    assert_false(ks_txn_invariants_hold(&m));
    m.npartitions = 0;
    assert_true(ks_txn_invariants_hold(&m));
    m.state = KS_TXN_EMPTY;
    assert_false(ks_txn_invariants_hold(&m));
    m.txn_start_ns = -1;
    assert_true(ks_txn_invariants_hold(&m));
    /* Prepare states need the producer id and a start time. */
    m.state = KS_TXN_PREPARE_ABORT;
    assert_false(ks_txn_invariants_hold(&m));
    m.txn_start_ns = 7;
    assert_true(ks_txn_invariants_hold(&m));
    m.producer_id = -1;
    assert_false(ks_txn_invariants_hold(&m));
    ks_txn_meta_free(&m);
}

/* ---- EndTxn, classic ---------------------------------------------------------- */

static void test_end_classic_ongoing(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_ONGOING, 5);
    m.last_epoch = 3;
    ASSERT_WRITE(end(&m, PID, 5, true, false), KS_KERR_NONE, KS_TXN_PREPARE_COMMIT, 5, 3, false);
    ASSERT_WRITE(end(&m, PID, 5, false, false), KS_KERR_NONE, KS_TXN_PREPARE_ABORT, 5, 3, false);
    /* No new producer id at the limit: the classic protocol never bumps here. */
    m.epoch = KS_TXN_EPOCH_LIMIT;
    ASSERT_WRITE(end(&m, PID, KS_TXN_EPOCH_LIMIT, true, false), KS_KERR_NONE,
                 KS_TXN_PREPARE_COMMIT, KS_TXN_EPOCH_LIMIT, 3, false);
    ks_txn_meta_free(&m);
}

static void test_end_classic_refusals(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_ONGOING, 5);
    ASSERT_ANSWER(end(&m, PID2, 5, true, false), KS_TXN_PID_MISMATCH);
    ASSERT_ANSWER(end(&m, PID, 4, true, false), KS_KERR_PRODUCER_FENCED);
    ASSERT_ANSWER(end(&m, PID, 6, true, false), KS_KERR_PRODUCER_FENCED);
    assert_true(ks_txn_set_pending(&m, KS_TXN_ONGOING));
    ASSERT_ANSWER(end(&m, PID, 5, true, false), KS_KERR_CONCURRENT_TRANSACTIONS);
    ks_txn_meta_free(&m);
}

static void test_end_classic_states(void **state)
{
    (void)state;
    struct {
        ks_txn_state s;
        bool commit;
        ks_kerr want;   /* NONE: answered without a write */
    } cases[] = {
        {KS_TXN_COMPLETE_COMMIT, true, KS_KERR_NONE},
        {KS_TXN_COMPLETE_COMMIT, false, KS_KERR_INVALID_TXN_STATE},
        {KS_TXN_COMPLETE_ABORT, false, KS_KERR_NONE},
        {KS_TXN_COMPLETE_ABORT, true, KS_KERR_INVALID_TXN_STATE},
        {KS_TXN_PREPARE_COMMIT, true, KS_KERR_CONCURRENT_TRANSACTIONS},
        {KS_TXN_PREPARE_COMMIT, false, KS_KERR_INVALID_TXN_STATE},
        {KS_TXN_PREPARE_ABORT, false, KS_KERR_CONCURRENT_TRANSACTIONS},
        {KS_TXN_PREPARE_ABORT, true, KS_KERR_INVALID_TXN_STATE},
        {KS_TXN_EMPTY, true, KS_KERR_INVALID_TXN_STATE},
        {KS_TXN_EMPTY, false, KS_KERR_INVALID_TXN_STATE},
        {KS_TXN_DEAD, true, KS_KERR_UNKNOWN_SERVER_ERROR},
        {KS_TXN_DEAD, false, KS_KERR_UNKNOWN_SERVER_ERROR},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ks_txn_meta m;
        meta_at(&m, cases[i].s, 5);
        ks_txn_decision d = end(&m, PID, 5, cases[i].commit, false);
        if (cases[i].want == KS_KERR_NONE)
            ASSERT_DONE(d, 5);
        else
            ASSERT_ANSWER(d, cases[i].want);
        /* A retry with the epoch before is fenced in the classic protocol. */
        ASSERT_ANSWER(end(&m, PID, 4, cases[i].commit, false), KS_KERR_PRODUCER_FENCED);
        ks_txn_meta_free(&m);
    }
}

static void test_end_classic_fence_abort(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_PREPARE_EPOCH_FENCE, 6);   /* fenced from 5 */
    m.last_epoch = 4;
    ASSERT_WRITE(end(&m, PID, 6, false, false), KS_KERR_NONE, KS_TXN_PREPARE_ABORT, 6, -1, false);
    ASSERT_ANSWER(end(&m, PID, 6, true, false), KS_KERR_UNKNOWN_SERVER_ERROR);
    ASSERT_ANSWER(end(&m, PID, 5, false, false), KS_KERR_PRODUCER_FENCED);
    assert_true(ks_txn_set_pending(&m, KS_TXN_PREPARE_ABORT));
    ASSERT_ANSWER(end(&m, PID, 6, false, false), KS_KERR_CONCURRENT_TRANSACTIONS);
    ks_txn_meta_free(&m);
}

/* ---- EndTxn, KIP-890 ------------------------------------------------------------ */

static void test_end_kip890_ongoing(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_ONGOING, 5);
    m.last_epoch = 3;
    ASSERT_WRITE(end(&m, PID, 5, true, true), KS_KERR_NONE, KS_TXN_PREPARE_COMMIT, 6, 5, false);
    ASSERT_WRITE(end(&m, PID, 5, false, true), KS_KERR_NONE, KS_TXN_PREPARE_ABORT, 6, 5, false);
    ASSERT_ANSWER(end(&m, PID2, 5, true, true), KS_TXN_PID_MISMATCH);
    ASSERT_ANSWER(end(&m, PID, 4, true, true), KS_KERR_PRODUCER_FENCED);
    ASSERT_ANSWER(end(&m, PID, 6, true, true), KS_KERR_PRODUCER_FENCED);
    assert_true(ks_txn_set_pending(&m, KS_TXN_ONGOING));
    ASSERT_ANSWER(end(&m, PID, 5, true, true), KS_KERR_CONCURRENT_TRANSACTIONS);
    ks_txn_meta_free(&m);
}

static void test_end_kip890_prepared(void **state)
{
    (void)state;
    /* Prepared at the bumped epoch 6: only the retry (epoch 5) is valid. */
    ks_txn_meta m;
    meta_at(&m, KS_TXN_PREPARE_COMMIT, 6);
    m.last_epoch = 5;
    ASSERT_ANSWER(end(&m, PID, 5, true, true), KS_KERR_CONCURRENT_TRANSACTIONS);
    ASSERT_ANSWER(end(&m, PID, 5, false, true), KS_KERR_INVALID_TXN_STATE);
    ASSERT_ANSWER(end(&m, PID, 6, true, true), KS_KERR_PRODUCER_FENCED);
    ASSERT_ANSWER(end(&m, PID, 4, true, true), KS_KERR_PRODUCER_FENCED);
    m.state = KS_TXN_PREPARE_ABORT;
    ASSERT_ANSWER(end(&m, PID, 5, false, true), KS_KERR_CONCURRENT_TRANSACTIONS);
    ASSERT_ANSWER(end(&m, PID, 5, true, true), KS_KERR_INVALID_TXN_STATE);
    ASSERT_ANSWER(end(&m, PID, 6, false, true), KS_KERR_PRODUCER_FENCED);
    m.state = KS_TXN_DEAD;
    ASSERT_ANSWER(end(&m, PID, 6, false, true), KS_KERR_UNKNOWN_SERVER_ERROR);
    ks_txn_meta_free(&m);
}

static void test_end_kip890_completed(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_COMPLETE_COMMIT, 6);
    m.last_epoch = 5;
    /* The retry (epoch - 1) of the commit: NONE with the bumped epoch. */
    ASSERT_DONE(end(&m, PID, 5, true, true), 6);
    ASSERT_ANSWER(end(&m, PID, 5, false, true), KS_KERR_INVALID_TXN_STATE);
    /* The current epoch: a new commit has nothing to commit; an abort is
     * written (and bumps again). */
    ASSERT_ANSWER(end(&m, PID, 6, true, true), KS_KERR_INVALID_TXN_STATE);
    ASSERT_WRITE(end(&m, PID, 6, false, true), KS_KERR_NONE, KS_TXN_PREPARE_ABORT, 7, 6, false);
    ASSERT_ANSWER(end(&m, PID, 7, false, true), KS_KERR_PRODUCER_FENCED);
    ASSERT_ANSWER(end(&m, PID, 4, true, true), KS_KERR_PRODUCER_FENCED);

    m.state = KS_TXN_COMPLETE_ABORT;
    ASSERT_DONE(end(&m, PID, 5, false, true), 6);
    ASSERT_ANSWER(end(&m, PID, 5, true, true), KS_KERR_INVALID_TXN_STATE);
    ASSERT_WRITE(end(&m, PID, 6, false, true), KS_KERR_NONE, KS_TXN_PREPARE_ABORT, 7, 6, false);
    ASSERT_ANSWER(end(&m, PID, 6, true, true), KS_KERR_INVALID_TXN_STATE);

    /* A retry is told by the current epoch (epoch + 1 == current), not by
     * the last epoch: here a classic commit left no last epoch. */
    m.state = KS_TXN_COMPLETE_COMMIT;
    m.last_epoch = -1;
    ASSERT_DONE(end(&m, PID, 5, true, true), 6);
    ks_txn_meta_free(&m);
}

static void test_end_kip890_empty(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_EMPTY, 6);
    ASSERT_WRITE(end(&m, PID, 6, false, true), KS_KERR_NONE, KS_TXN_PREPARE_ABORT, 7, 6, false);
    ASSERT_ANSWER(end(&m, PID, 6, true, true), KS_KERR_INVALID_TXN_STATE);
    /* No retries from Empty. */
    ASSERT_ANSWER(end(&m, PID, 5, false, true), KS_KERR_PRODUCER_FENCED);
    /* Applied: the abort of nothing starts now (noPartitionAdded). */
    commit_write(&m, ks_txn_end_txn(&m, PID, 6, false, true), PID2, 77 * MS);
    assert_int_equal(m.txn_start_ns, 77 * MS);
    assert_int_equal(m.epoch, 7);
    assert_int_equal(m.last_epoch, 6);
    assert_int_equal(m.next_producer_id, -1);
    ks_txn_meta_free(&m);
}

static void test_end_kip890_fence_abort(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_PREPARE_EPOCH_FENCE, 6);   /* fenced from 5 */
    ASSERT_WRITE(end(&m, PID, 6, false, true), KS_KERR_NONE, KS_TXN_PREPARE_ABORT, 7, 6, false);
    ASSERT_ANSWER(end(&m, PID, 6, true, true), KS_KERR_UNKNOWN_SERVER_ERROR);
    ASSERT_ANSWER(end(&m, PID, 5, false, true), KS_KERR_PRODUCER_FENCED);
    ASSERT_ANSWER(end(&m, PID, 7, false, true), KS_KERR_PRODUCER_FENCED);
    /* The fence's abort never takes a new producer id ... */
    m.epoch = KS_TXN_EPOCH_LIMIT;
    ASSERT_WRITE(end(&m, PID, KS_TXN_EPOCH_LIMIT, false, true), KS_KERR_NONE,
                 KS_TXN_PREPARE_ABORT, INT16_MAX, KS_TXN_EPOCH_LIMIT, false);
    /* ... and keeps Short.MAX_VALUE rather than overflow (Java). */
    m.epoch = INT16_MAX;
    ASSERT_WRITE(end(&m, PID, INT16_MAX, false, true), KS_KERR_NONE, KS_TXN_PREPARE_ABORT,
                 INT16_MAX, INT16_MAX, false);
    assert_true(ks_txn_set_pending(&m, KS_TXN_PREPARE_ABORT));
    ASSERT_ANSWER(end(&m, PID, INT16_MAX, false, true), KS_KERR_CONCURRENT_TRANSACTIONS);
    ks_txn_meta_free(&m);
}

static void test_end_kip890_epoch_limit(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_ONGOING, KS_TXN_EPOCH_LIMIT - 1);
    m.txn_start_ns = 0; /* as an Ongoing transaction has */
    ASSERT_WRITE(end(&m, PID, KS_TXN_EPOCH_LIMIT - 1, true, true), KS_KERR_NONE,
                 KS_TXN_PREPARE_COMMIT, KS_TXN_EPOCH_LIMIT, KS_TXN_EPOCH_LIMIT - 1, false);
    m.epoch = INT16_MAX;
    ASSERT_ANSWER(end(&m, PID, INT16_MAX, true, true), KS_KERR_UNKNOWN_SERVER_ERROR);
    m.epoch = KS_TXN_EPOCH_LIMIT;
    ASSERT_WRITE(end(&m, PID, KS_TXN_EPOCH_LIMIT, true, true), KS_KERR_NONE,
                 KS_TXN_PREPARE_COMMIT, INT16_MAX, KS_TXN_EPOCH_LIMIT, true);

    /* Written: the old id stays until the markers are done ... */
    commit_write(&m, ks_txn_end_txn(&m, PID, KS_TXN_EPOCH_LIMIT, true, true), PID2, 10 * MS);
    assert_int_equal(m.producer_id, PID);
    assert_int_equal(m.next_producer_id, PID2);
    assert_int_equal(m.epoch, INT16_MAX);
    ASSERT_ANSWER(end(&m, PID, KS_TXN_EPOCH_LIMIT, true, true), KS_KERR_CONCURRENT_TRANSACTIONS);

    /* ... then the next id takes over at epoch 0. */
    ks_txn_decision c = complete(&m);
    ASSERT_WRITE(c, KS_KERR_NONE, KS_TXN_COMPLETE_COMMIT, 0, KS_TXN_EPOCH_LIMIT, true);
    commit_write(&m, c, -7, 20 * MS);
    assert_int_equal(m.producer_id, PID2);
    assert_int_equal(m.prev_producer_id, PID);
    assert_int_equal(m.next_producer_id, -1);
    assert_int_equal(m.epoch, 0);

    /* The client's retry with the old id (retryOnOverflow). */
    ASSERT_DONE(end(&m, PID, KS_TXN_EPOCH_LIMIT, true, true), 0);
    ASSERT_ANSWER(end(&m, PID, KS_TXN_EPOCH_LIMIT, false, true), KS_KERR_INVALID_TXN_STATE);
    ASSERT_ANSWER(end(&m, PID, KS_TXN_EPOCH_LIMIT - 1, true, true), KS_TXN_PID_MISMATCH);
    ASSERT_ANSWER(end(&m, PID + 9, KS_TXN_EPOCH_LIMIT, true, true), KS_TXN_PID_MISMATCH);
    ASSERT_ANSWER(add1(&m, PID, KS_TXN_EPOCH_LIMIT), KS_TXN_PID_MISMATCH);
    ASSERT_WRITE(add1(&m, PID2, 0), KS_KERR_NONE, KS_TXN_ONGOING, 0, KS_TXN_EPOCH_LIMIT, false);
    ks_txn_meta_free(&m);
}

/* ---- Completion, apply ---------------------------------------------------------- */

static void test_complete_decision(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_PREPARE_COMMIT, 6);
    m.last_epoch = 5;
    ASSERT_WRITE(complete(&m), KS_KERR_NONE, KS_TXN_COMPLETE_COMMIT, 6, 5, false);
    m.state = KS_TXN_PREPARE_ABORT;
    ASSERT_WRITE(complete(&m), KS_KERR_NONE, KS_TXN_COMPLETE_ABORT, 6, 5, false);
    assert_true(ks_txn_set_pending(&m, KS_TXN_COMPLETE_ABORT));
    ASSERT_ANSWER(complete(&m), KS_KERR_CONCURRENT_TRANSACTIONS);
    m.pending = false;
    const ks_txn_state others[] = {KS_TXN_EMPTY, KS_TXN_ONGOING, KS_TXN_COMPLETE_COMMIT,
                                   KS_TXN_COMPLETE_ABORT, KS_TXN_DEAD,
                                   KS_TXN_PREPARE_EPOCH_FENCE};
    for (size_t i = 0; i < 6; i++) {
        m.state = others[i];
        ASSERT_ANSWER(complete(&m), KS_KERR_INVALID_TXN_STATE);
    }
    ks_txn_meta_free(&m);
}

static void test_apply_refuses(void **state)
{
    (void)state;
    ks_txn_meta m, before;
    meta_at(&m, KS_TXN_ONGOING, 5);
    memcpy(&before, &m, sizeof m);
    ks_txn_decision none = ks_txn_add_partitions(&m, PID2, 5, NULL, 0);
    assert_false(ks_txn_apply(&m, &none, PID2, 1));
    assert_memory_equal(&before, &m, sizeof m);
    /* A decision made for another state: Empty cannot follow Ongoing. */
    ks_txn_meta other;
    meta_at(&other, KS_TXN_COMPLETE_ABORT, 5);
    ks_txn_decision d = ks_txn_init_producer_id(&other);
    assert_true(d.write);
    assert_false(ks_txn_apply(&m, &d, PID2, 1));
    assert_memory_equal(&before, &m, sizeof m);
    ks_txn_meta_free(&other);
    ks_txn_meta_free(&m);
}

/* ---- Flows --------------------------------------------------------------------- */

/* Empty -> Ongoing -> PrepareCommit -> CompleteCommit; returns the epoch
 * the client is answered with after its commit. */
static int16_t seed_flow(bool kip890)
{
    ks_txn_meta m;
    assert_true(ks_txn_meta_init(&m, "seed", TIMEOUT_NS));
    commit_write(&m, init_pid(&m), PID, 1 * MS);
    assert_int_equal(m.epoch, 0);

    const uint32_t parts[] = {3, 1};
    ks_txn_decision d = add(&m, PID, 0, parts, 2);
    commit_write(&m, d, -1, 2 * MS);
    for (int i = 0; i < 2; i++)
        assert_true(ks_txn_add_partition(&m, parts[i]));
    assert_int_equal(m.txn_start_ns, 2 * MS);
    /* A second add of the same partitions is answered at once. */
    ASSERT_DONE(add(&m, PID, 0, parts, 2), 0);
    const uint32_t more = 9;
    d = add(&m, PID, 0, &more, 1);
    commit_write(&m, d, -1, 3 * MS);
    assert_true(ks_txn_add_partition(&m, more));
    assert_int_equal(m.txn_start_ns, 2 * MS);   /* the first add started it */

    d = end(&m, PID, 0, true, kip890);
    assert_int_equal(d.write_state, KS_TXN_PREPARE_COMMIT);
    int16_t answered = d.epoch;
    commit_write(&m, d, -1, 4 * MS);
    assert_int_equal(m.epoch, answered);
    assert_int_equal(m.npartitions, 3);   /* the markers still need them */

    commit_write(&m, complete(&m), -1, 5 * MS);
    assert_int_equal(m.state, KS_TXN_COMPLETE_COMMIT);
    assert_int_equal(m.epoch, answered);
    assert_int_equal(m.producer_id, PID);
    assert_int_equal(m.npartitions, 0);
    assert_int_equal(m.transitions, 5);
    ks_txn_meta_free(&m);
    return answered;
}

static void test_seed_flow_classic(void **state)
{
    (void)state;
    assert_int_equal(seed_flow(false), 0);
}

static void test_seed_flow_kip890(void **state)
{
    (void)state;
    assert_int_equal(seed_flow(true), 1);
}

/* Producer A (epoch 0) is in a transaction when producer B, with the same
 * transactional.id, calls InitProducerId. Returns B's epoch after retrying. */
static int16_t zombie_flow(bool kip890)
{
    ks_txn_meta m;
    assert_true(ks_txn_meta_init(&m, "zombie", TIMEOUT_NS));
    commit_write(&m, init_pid(&m), PID, 1 * MS);
    commit_write(&m, add1(&m, PID, 0), -1, 2 * MS);

    /* B: the fence, applied at once; B is told to retry. */
    ks_txn_decision d = init_pid(&m);
    assert_int_equal(d.error, KS_KERR_CONCURRENT_TRANSACTIONS);
    assert_true(d.abort_ongoing);
    assert_true(ks_txn_apply(&m, &d, -1, 3 * MS));
    assert_int_equal(m.state, KS_TXN_PREPARE_EPOCH_FENCE);
    assert_int_equal(m.epoch, 1);

    /* The coordinator's own abort, being written. */
    d = end(&m, m.producer_id, m.epoch, false, kip890);
    ASSERT_WRITE(d, KS_KERR_NONE, KS_TXN_PREPARE_ABORT, kip890 ? 2 : 1, kip890 ? 1 : -1, false);
    assert_true(ks_txn_set_pending(&m, d.write_state));
    ASSERT_ANSWER(add1(&m, PID, 0), KS_KERR_PRODUCER_FENCED);
    ASSERT_ANSWER(end(&m, PID, 0, true, kip890), KS_KERR_PRODUCER_FENCED);
    ASSERT_ANSWER(init_pid(&m), KS_KERR_CONCURRENT_TRANSACTIONS);
    assert_true(ks_txn_apply(&m, &d, -1, 4 * MS));

    /* A, the zombie, is fenced while the markers are written ... */
    ASSERT_ANSWER(add1(&m, PID, 0), KS_KERR_PRODUCER_FENCED);
    ASSERT_ANSWER(end(&m, PID, 0, true, kip890), KS_KERR_PRODUCER_FENCED);
    ASSERT_ANSWER(end(&m, PID, 0, false, kip890), KS_KERR_PRODUCER_FENCED);
    ASSERT_ANSWER(init_pid(&m), KS_KERR_CONCURRENT_TRANSACTIONS);
    commit_write(&m, complete(&m), -1, 5 * MS);
    assert_int_equal(m.state, KS_TXN_COMPLETE_ABORT);

    /* ... and after; B's retry gets the next epoch. */
    ASSERT_ANSWER(add1(&m, PID, 0), KS_KERR_PRODUCER_FENCED);
    ASSERT_ANSWER(end(&m, PID, 0, false, kip890), KS_KERR_PRODUCER_FENCED);
    d = init_pid(&m);
    assert_int_equal(d.error, KS_KERR_NONE);
    commit_write(&m, d, -1, 6 * MS);
    int16_t b_epoch = m.epoch;
    ASSERT_ANSWER(add1(&m, PID, 0), KS_KERR_PRODUCER_FENCED);
    ASSERT_WRITE(add1(&m, PID, b_epoch), KS_KERR_NONE, KS_TXN_ONGOING, b_epoch, -1, false);
    ks_txn_meta_free(&m);
    return b_epoch;
}

static void test_zombie_fencing_classic(void **state)
{
    (void)state;
    assert_int_equal(zombie_flow(false), 2);
}

static void test_zombie_fencing_kip890(void **state)
{
    (void)state;
    assert_int_equal(zombie_flow(true), 3);
}

/* ---- Timeout --------------------------------------------------------------------- */

static void test_timeout_boundary(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_ONGOING, 0);
    m.txn_start_ns = 1000 * MS + 500000;   /* Kafka's clock reads 1000 ms */
    /* start + timeout < now, in milliseconds: 1000 + 60000 < now_ms. */
    assert_false(ks_txn_timed_out(&m, 61000 * MS));
    assert_false(ks_txn_timed_out(&m, 61000 * MS + 999999));   /* still 61000 ms */
    assert_true(ks_txn_timed_out(&m, 61001 * MS));
    m.txn_start_ns = 1000 * MS;
    assert_false(ks_txn_timed_out(&m, 61000 * MS));
    assert_true(ks_txn_timed_out(&m, 61001 * MS));
    ks_txn_meta_free(&m);
}

static void test_timeout_only_ongoing(void **state)
{
    (void)state;
    for (int s = 0; s < NSTATES; s++) {
        ks_txn_meta m;
        meta_at(&m, (ks_txn_state)s, 0);
        m.txn_start_ns = 0;
        assert_int_equal(ks_txn_timed_out(&m, 3600000 * MS), s == ONGOING);
        ks_txn_meta_free(&m);
    }
    ks_txn_meta m;
    meta_at(&m, KS_TXN_ONGOING, 0);
    m.txn_start_ns = 0;
    assert_true(ks_txn_set_pending(&m, KS_TXN_PREPARE_COMMIT));
    assert_false(ks_txn_timed_out(&m, 3600000 * MS));   /* skipped while pending */
    ks_txn_meta_free(&m);
}

static void test_timeout_then_fence(void **state)
{
    (void)state;
    ks_txn_meta m;
    meta_at(&m, KS_TXN_ONGOING, 3);
    m.txn_start_ns = 0;
    assert_true(ks_txn_timed_out(&m, 60001 * MS));
    ks_txn_decision d = ks_txn_fence(&m);
    assert_true(ks_txn_apply(&m, &d, -1, 60001 * MS));
    assert_int_equal(m.epoch, 4);
    assert_false(ks_txn_timed_out(&m, 60002 * MS));   /* no longer Ongoing */
    d = ks_txn_end_txn(&m, PID, m.epoch, false, false);
    ASSERT_WRITE(d, KS_KERR_NONE, KS_TXN_PREPARE_ABORT, 4, -1, false);
    ks_txn_meta_free(&m);
}

/* ---- Java's String.hashCode and partitionFor -------------------------------------- */

static void test_java_hash_vectors(void **state)
{
    (void)state;
    assert_int_equal(ks_java_string_hash(""), 0);
    assert_int_equal(ks_java_string_hash("a"), 97);
    assert_int_equal(ks_java_string_hash("ab"), 3105);   /* 97 * 31 + 98 */
    assert_int_equal(ks_java_string_hash("hello"), 99162322);
    assert_int_equal(ks_java_string_hash("polygenelubricants"), INT32_MIN);
    assert_int_equal(ks_java_string_hash("test-txn-1"), 640022675);
    assert_int_equal(ks_java_string_hash("my-transactional-id"), -959806496);
    assert_int_equal(ks_java_string_hash("\xC3\xA9"), 233);             /* U+00E9 */
    assert_int_equal(ks_java_string_hash("\xE2\x82\xAC"), 8364);        /* U+20AC */
    /* U+1F600 as the surrogate pair D83D DE00: 0xD83D * 31 + 0xDE00. */
    assert_int_equal(ks_java_string_hash("\xF0\x9F\x98\x80"), 1772899);
}

static void test_java_hash_malformed(void **state)
{
    (void)state;
    const int32_t fffd = 65533, fffd_a = 65533 * 31 + 'A';
    const int32_t fffd3 = (65533 * 31 + 65533) * 31 + 65533;
    assert_int_equal(ks_java_string_hash("\xFF"), fffd);
    assert_int_equal(ks_java_string_hash("\x80"), fffd);
    assert_int_equal(ks_java_string_hash("\xC0\xAF"), 65533 * 31 + 65533);   /* overlong */
    assert_int_equal(ks_java_string_hash("\xC3"), fffd);
    assert_int_equal(ks_java_string_hash("\xC3" "A"), fffd_a);
    assert_int_equal(ks_java_string_hash("\xE2\x82"), fffd);                 /* truncated */
    assert_int_equal(ks_java_string_hash("\xE2\x82" "A"), fffd_a);
    assert_int_equal(ks_java_string_hash("\xE0\x80\x80"), fffd3);           /* overlong */
    assert_int_equal(ks_java_string_hash("\xE0\x9F\x80"), fffd3);
    assert_int_equal(ks_java_string_hash("\xE0\xA0"), fffd);
    /* An encoded surrogate: one U+FFFD for the whole sequence, as Java does. */
    assert_int_equal(ks_java_string_hash("\xED\xA0\x80"), fffd);
    assert_int_equal(ks_java_string_hash("\xED\xA0"), fffd);
    assert_int_equal(ks_java_string_hash("\xED\xA0" "A"), fffd_a);
    assert_int_equal(ks_java_string_hash("\xF0\x9F\x98"), fffd);
    assert_int_equal(ks_java_string_hash("\xF0\x9F\x98" "A"), fffd_a);
    assert_int_equal(ks_java_string_hash("\xF0\x9F\x98" "AB"), 62979294);
    assert_int_equal(ks_java_string_hash("\xF0\x9F"), fffd);
    assert_int_equal(ks_java_string_hash("\xF0"), fffd);
    assert_int_equal(ks_java_string_hash("\xF4\x90\x80\x80"), 2017367872);   /* > U+10FFFF */
    assert_int_equal(ks_java_string_hash("\xF5\x80\x80\x80"), 2017367872);
    assert_int_equal(ks_java_string_hash("\xF0\x8F\xBF\xBF"), 2017367872);   /* overlong */
    assert_int_equal(ks_java_string_hash("\xED\xBF\xBF"), fffd);
    /* The edges that are well formed: U+10FFFF, U+E0000, U+FFFF. */
    assert_int_equal(ks_java_string_hash("\xF4\x8F\xBF\xBF"), 1803232);
    assert_int_equal(ks_java_string_hash("\xF3\xA0\x80\x80" "A"), 55684993);
    assert_int_equal(ks_java_string_hash("\xEF\xBF\xBF"), 65535);
}

static void test_partition_for(void **state)
{
    (void)state;
    assert_int_equal(ks_txn_partition_for("hello", 50), 22);
    assert_int_equal(ks_txn_partition_for("a", 50), 47);
    assert_int_equal(ks_txn_partition_for("txn-0", 50), 9);
    assert_int_equal(ks_txn_partition_for("txn-1", 50), 10);
    assert_int_equal(ks_txn_partition_for("my-transactional-id", 50), 46);   /* negative hash */
    assert_int_equal(ks_txn_partition_for("producer-42", 50), 25);
    assert_int_equal(ks_txn_partition_for("orders-tx", 50), 48);
    assert_int_equal(ks_txn_partition_for("\xF0\x9F\x98\x80", 50), 49);
    /* Utils.abs(Integer.MIN_VALUE) = 0, where Math.abs would stay negative. */
    assert_int_equal(ks_txn_partition_for("polygenelubricants", 50), 0);
    assert_int_equal(ks_txn_partition_for("polygenelubricants", 7), 0);
    assert_int_equal(ks_txn_partition_for("hello", 1), 0);
}

/* ---- Purity over every state ---------------------------------------------------- */

static void test_decisions_are_pure(void **state)
{
    (void)state;
    for (int s = 0; s < NSTATES; s++) {
        for (int p = 0; p < 2; p++) {
            ks_txn_meta m;
            meta_at(&m, (ks_txn_state)s, 5);
            assert_true(ks_txn_add_partition(&m, 7));
            m.pending = p;
            for (int kip890 = 0; kip890 < 2; kip890++) {
                for (int commit = 0; commit < 2; commit++) {
                    for (int16_t e = 4; e <= 6; e++)
                        (void)end(&m, PID, e, commit, kip890);   /* end() compares */
                }
            }
            (void)init_pid(&m);
            (void)add1(&m, PID, 5);
            (void)complete(&m);
            ks_txn_meta before;
            memcpy(&before, &m, sizeof m);
            (void)ks_txn_fence(&m);
            (void)ks_txn_timed_out(&m, 1);
            assert_memory_equal(&before, &m, sizeof m);
            assert_int_equal(m.partitions[0], 7);
            ks_txn_meta_free(&m);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_ids_and_names),
        cmocka_unit_test(test_legal_matches_kafka),
        cmocka_unit_test(test_set_state_legal_moves),
        cmocka_unit_test(test_set_state_refuses_illegal),
        cmocka_unit_test(test_set_state_refuses_other_pending),
        cmocka_unit_test(test_set_pending),
        cmocka_unit_test(test_meta_init_free),
        cmocka_unit_test(test_partitions_unique_in_order),
        cmocka_unit_test(test_init_pid_first_use),
        cmocka_unit_test(test_init_pid_idle_bumps),
        cmocka_unit_test(test_init_pid_epoch_limit),
        cmocka_unit_test(test_init_pid_concurrent),
        cmocka_unit_test(test_init_pid_fences_ongoing),
        cmocka_unit_test(test_init_pid_dead),
        cmocka_unit_test(test_fence_decision),
        cmocka_unit_test(test_add_partitions_refusals),
        cmocka_unit_test(test_add_partitions_writes),
        cmocka_unit_test(test_end_classic_ongoing),
        cmocka_unit_test(test_end_classic_refusals),
        cmocka_unit_test(test_end_classic_states),
        cmocka_unit_test(test_end_classic_fence_abort),
        cmocka_unit_test(test_end_kip890_ongoing),
        cmocka_unit_test(test_end_kip890_prepared),
        cmocka_unit_test(test_end_kip890_completed),
        cmocka_unit_test(test_end_kip890_empty),
        cmocka_unit_test(test_end_kip890_fence_abort),
        cmocka_unit_test(test_end_kip890_epoch_limit),
        cmocka_unit_test(test_complete_decision),
        cmocka_unit_test(test_apply_refuses),
        cmocka_unit_test(test_seed_flow_classic),
        cmocka_unit_test(test_seed_flow_kip890),
        cmocka_unit_test(test_zombie_fencing_classic),
        cmocka_unit_test(test_zombie_fencing_kip890),
        cmocka_unit_test(test_timeout_boundary),
        cmocka_unit_test(test_timeout_only_ongoing),
        cmocka_unit_test(test_timeout_then_fence),
        cmocka_unit_test(test_java_hash_vectors),
        cmocka_unit_test(test_java_hash_malformed),
        cmocka_unit_test(test_partition_for),
        cmocka_unit_test(test_decisions_are_pure),
        cmocka_unit_test(test_invariants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
