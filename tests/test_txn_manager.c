/*
 * test_txn_manager.c - the producer's TransactionManager state machine:
 * state names; all 8x8 transitions against Java's
 * TransactionManager.State.isTransitionValid (written out here from the
 * Java source, not from the X-macro); ks_tm_set_state taking every legal
 * move of a transactional producer's life and refusing illegal ones
 * without touching the manager; what ks_tm_invariants refuses in each
 * state; ks_tm_open and ks_tm_completing; ks_tm_abortable_error
 * (maybeTransitionToErrorState) in each state a batch can fail in; and
 * ks_tm_unresolved_error (maybeResolveSequences, transactional).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/producer/txn_manager.h"

#include <string.h>

enum { UNINIT, INIT, READY, IN_TXN, COMMITTING, ABORTING, ABORTABLE, FATAL, NSTATES };

/* [K] TransactionManager.State.isTransitionValid, by hand. */
static bool java_valid(int source, int target)
{
    switch (target) {
    case UNINIT:
        return source == READY || source == ABORTABLE;
    case INIT:
        return source == UNINIT || source == ABORTING;
    case READY:
        return source == INIT || source == COMMITTING || source == ABORTING;
    case IN_TXN:
        return source == READY;
    case COMMITTING:
        return source == IN_TXN;
    case ABORTING:
        return source == IN_TXN || source == ABORTABLE;
    case ABORTABLE:
        return source == IN_TXN || source == COMMITTING || source == ABORTABLE ||
               source == INIT;
    default: /* FATAL_ERROR: "We can transition to FATAL_ERROR unconditionally." */
        return true;
    }
}

#define PARTS 4

typedef struct fixture {
    ks_txn_manager tm;
    bool added[PARTS], pending[PARTS];
} fixture;

/* A transactional manager in `s` whose other fields satisfy what s
 * requires (as a producer's would). */
static void put_in(fixture *f, ks_tm_state s)
{
    ks_txn_manager *tm = &f->tm;
    memset(f, 0, sizeof *f);
    tm->transactional = true;
    tm->partitions = PARTS;
    tm->added = f->added;
    tm->pending = f->pending;
    tm->coordinator = -1;
    tm->group_coordinator = -1;
    tm->offsets_consumer = -1;
    tm->state = s;
    tm->blocked = s == KS_TM_INITIALIZING || s == KS_TM_COMMITTING_TRANSACTION ||
                  s == KS_TM_ABORTING_TRANSACTION;
    tm->end_queued = s == KS_TM_COMMITTING_TRANSACTION || s == KS_TM_ABORTING_TRANSACTION;
    tm->fatal_exception = s == KS_TM_FATAL_ERROR ? "ProducerFencedException" : NULL;
    assert_true(ks_tm_invariants(tm));
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(ks_tm_state_name(KS_TM_UNINITIALIZED), "UNINITIALIZED");
    assert_string_equal(ks_tm_state_name(KS_TM_INITIALIZING), "INITIALIZING");
    assert_string_equal(ks_tm_state_name(KS_TM_READY), "READY");
    assert_string_equal(ks_tm_state_name(KS_TM_IN_TRANSACTION), "IN_TRANSACTION");
    assert_string_equal(ks_tm_state_name(KS_TM_COMMITTING_TRANSACTION), "COMMITTING_TRANSACTION");
    assert_string_equal(ks_tm_state_name(KS_TM_ABORTING_TRANSACTION), "ABORTING_TRANSACTION");
    assert_string_equal(ks_tm_state_name(KS_TM_ABORTABLE_ERROR), "ABORTABLE_ERROR");
    assert_string_equal(ks_tm_state_name(KS_TM_FATAL_ERROR), "FATAL_ERROR");
    assert_string_equal(ks_tm_state_name(KS_TM__COUNT), "?");
    assert_int_equal(KS_TM__COUNT, NSTATES);
}

static void test_legal_table(void **state)
{
    (void)state;
    for (int from = 0; from < NSTATES; from++)
        for (int to = 0; to < NSTATES; to++)
            assert_int_equal(ks_tm_legal((ks_tm_state)from, (ks_tm_state)to),
                             java_valid(from, to));
    assert_false(ks_tm_legal(KS_TM__COUNT, KS_TM_READY));
    assert_false(ks_tm_legal(KS_TM_READY, KS_TM__COUNT));
}

/* Moves f's manager to `to`, setting first what `to` requires. */
static void move(fixture *f, ks_tm_state to)
{
    ks_txn_manager *tm = &f->tm;
    switch (to) {
    case KS_TM_INITIALIZING:
        tm->blocked = true;
        tm->end_queued = false;
        tm->epoch_bump_required = false;
        break;
    case KS_TM_READY:
        tm->blocked = false;
        tm->end_queued = false;
        tm->epoch_bump_required = false;
        break;
    case KS_TM_COMMITTING_TRANSACTION:
    case KS_TM_ABORTING_TRANSACTION:
        tm->blocked = true;
        tm->end_queued = true;
        break;
    case KS_TM_UNINITIALIZED:
    case KS_TM_IN_TRANSACTION:
    case KS_TM_ABORTABLE_ERROR:
    case KS_TM_FATAL_ERROR:
    case KS_TM__COUNT:
        break;
    }
    assert_true(ks_tm_set_state(tm, to));
    assert_int_equal(tm->state, to);
}

/* A transactional producer's life, one legal move after another: init,
 * a committed transaction, a failed one that aborts and bumps the epoch,
 * a commit that fails and turns into an abort, then fencing. */
static void test_valid_transitions(void **state)
{
    (void)state;
    fixture f;
    put_in(&f, KS_TM_UNINITIALIZED);
    move(&f, KS_TM_INITIALIZING);
    move(&f, KS_TM_READY);
    move(&f, KS_TM_IN_TRANSACTION);
    move(&f, KS_TM_COMMITTING_TRANSACTION);
    move(&f, KS_TM_READY);
    move(&f, KS_TM_IN_TRANSACTION);
    f.tm.epoch_bump_required = true;
    move(&f, KS_TM_ABORTABLE_ERROR);
    move(&f, KS_TM_ABORTABLE_ERROR); /* a second error */
    move(&f, KS_TM_ABORTING_TRANSACTION);
    move(&f, KS_TM_INITIALIZING); /* the epoch bump */
    move(&f, KS_TM_READY);
    move(&f, KS_TM_IN_TRANSACTION);
    move(&f, KS_TM_COMMITTING_TRANSACTION);
    move(&f, KS_TM_ABORTABLE_ERROR);
    move(&f, KS_TM_ABORTING_TRANSACTION);
    move(&f, KS_TM_READY);
    f.tm.fatal_exception = "ProducerFencedException";
    move(&f, KS_TM_FATAL_ERROR);
    move(&f, KS_TM_FATAL_ERROR);
}

/* Every illegal move is refused and leaves the manager as it was. */
static void test_invalid_transitions(void **state)
{
    (void)state;
    for (int from = 0; from < NSTATES; from++) {
        for (int to = 0; to < NSTATES; to++) {
            if (java_valid(from, to))
                continue;
            fixture f;
            put_in(&f, (ks_tm_state)from);
            ks_txn_manager before;
            memcpy(&before, &f.tm, sizeof before);
            assert_false(ks_tm_set_state(&f.tm, (ks_tm_state)to));
            assert_memory_equal(&before, &f.tm, sizeof before);
        }
    }
    /* the ones a producer might be tempted by */
    fixture f;
    put_in(&f, KS_TM_READY);
    assert_false(ks_tm_set_state(&f.tm, KS_TM_COMMITTING_TRANSACTION)); /* no begin */
    assert_false(ks_tm_set_state(&f.tm, KS_TM_INITIALIZING));           /* no abort */
    put_in(&f, KS_TM_COMMITTING_TRANSACTION);
    assert_false(ks_tm_set_state(&f.tm, KS_TM_ABORTING_TRANSACTION)); /* via an error only */
    assert_false(ks_tm_set_state(&f.tm, KS_TM_INITIALIZING));        /* bumps follow aborts */
    put_in(&f, KS_TM_FATAL_ERROR);
    assert_false(ks_tm_set_state(&f.tm, KS_TM_READY)); /* the producer is done */
    f.tm.state = KS_TM__COUNT;
    assert_false(ks_tm_set_state(&f.tm, KS_TM_FATAL_ERROR));
}

/* What each state requires, one violation at a time. */
static void test_invariants(void **state)
{
    (void)state;
    fixture f;
    put_in(&f, KS_TM_READY);
    f.tm.blocked = true; /* nobody waits between transactions */
    assert_false(ks_tm_invariants(&f.tm));
    put_in(&f, KS_TM_READY);
    f.tm.epoch_bump_required = true;
    assert_false(ks_tm_invariants(&f.tm));
    put_in(&f, KS_TM_READY);
    f.tm.pending[1] = true;
    f.tm.pending_count = 1; /* classic: added before the transaction ended */
    assert_false(ks_tm_invariants(&f.tm));
    f.tm.kip890 = true; /* KIP-890 never sends AddPartitionsToTxn */
    assert_true(ks_tm_invariants(&f.tm));
    put_in(&f, KS_TM_READY);
    f.tm.nids = 1; /* a record outside any transaction */
    assert_false(ks_tm_invariants(&f.tm));
    put_in(&f, KS_TM_IN_TRANSACTION);
    f.tm.pending[2] = true; /* not counted */
    assert_false(ks_tm_invariants(&f.tm));
    f.tm.pending_count = 1;
    assert_true(ks_tm_invariants(&f.tm));
    f.tm.added[2] = true; /* added and pending */
    assert_false(ks_tm_invariants(&f.tm));
    put_in(&f, KS_TM_IN_TRANSACTION);
    f.tm.end_queued = true; /* EndTxn queued without commit or abort */
    assert_false(ks_tm_invariants(&f.tm));
    put_in(&f, KS_TM_COMMITTING_TRANSACTION);
    f.tm.end_queued = false;
    assert_false(ks_tm_invariants(&f.tm));
    put_in(&f, KS_TM_COMMITTING_TRANSACTION);
    f.tm.blocked = false; /* the application is in commitTransaction */
    assert_false(ks_tm_invariants(&f.tm));
    put_in(&f, KS_TM_ABORTABLE_ERROR);
    f.tm.end_queued = true;
    f.tm.blocked = true; /* a commit under way when the error came */
    assert_true(ks_tm_invariants(&f.tm));
    put_in(&f, KS_TM_INITIALIZING);
    f.tm.blocked = false; /* initTransactions blocks */
    assert_false(ks_tm_invariants(&f.tm));
    put_in(&f, KS_TM_FATAL_ERROR);
    f.tm.fatal_exception = NULL;
    assert_false(ks_tm_invariants(&f.tm));
    put_in(&f, KS_TM_UNINITIALIZED);
    f.tm.transactional = false;
    f.tm.kip890 = true;
    assert_false(ks_tm_invariants(&f.tm));
    /* an idempotent producer only gets a producer id */
    put_in(&f, KS_TM_READY);
    f.tm.transactional = false;
    assert_true(ks_tm_invariants(&f.tm));
    f.tm.state = KS_TM_IN_TRANSACTION;
    assert_false(ks_tm_invariants(&f.tm));
}

static void test_open_and_completing(void **state)
{
    (void)state;
    fixture f;
    for (int s = 0; s < NSTATES; s++) {
        put_in(&f, (ks_tm_state)s);
        assert_int_equal(ks_tm_open(&f.tm), s == IN_TXN || s == ABORTABLE);
        assert_int_equal(ks_tm_completing(&f.tm), s == COMMITTING || s == ABORTING);
    }
    put_in(&f, KS_TM_ABORTABLE_ERROR);
    f.tm.end_queued = true;
    f.tm.blocked = true;
    assert_false(ks_tm_open(&f.tm)); /* the application is in commitTransaction */
}

/* A batch fails: the transaction can only abort. */
static void test_abortable_error(void **state)
{
    (void)state;
    fixture f;
    put_in(&f, KS_TM_IN_TRANSACTION);
    ks_tm_abortable_error(&f.tm);
    assert_int_equal(f.tm.state, KS_TM_ABORTABLE_ERROR);
    assert_true(f.tm.epoch_bump_required);
    ks_tm_abortable_error(&f.tm); /* again: ABORTABLE_ERROR -> ABORTABLE_ERROR */
    assert_int_equal(f.tm.state, KS_TM_ABORTABLE_ERROR);
    assert_true(f.tm.epoch_bump_required);

    /* while committing: the commit will turn into an abort */
    put_in(&f, KS_TM_COMMITTING_TRANSACTION);
    ks_tm_abortable_error(&f.tm);
    assert_int_equal(f.tm.state, KS_TM_ABORTABLE_ERROR);
    assert_true(f.tm.end_queued);
    /* ... and, the transaction completing, no epoch bump ([K]
     * maybeTransitionToErrorState: !isCompleting()) */
    assert_false(f.tm.epoch_bump_required);
    /* a second failure, now in ABORTABLE_ERROR (not completing), bumps */
    ks_tm_abortable_error(&f.tm);
    assert_int_equal(f.tm.state, KS_TM_ABORTABLE_ERROR);
    assert_true(f.tm.epoch_bump_required);

    /* while aborting: "Skipping transition to abortable error state" */
    put_in(&f, KS_TM_ABORTING_TRANSACTION);
    ks_tm_abortable_error(&f.tm);
    assert_int_equal(f.tm.state, KS_TM_ABORTING_TRANSACTION);
    assert_false(f.tm.epoch_bump_required); /* isCompleting(): no bump */
}

/* [K] TransactionManager.maybeResolveSequences, transactional: an
 * unresolved sequence makes the epoch bump due in every state a
 * transaction can be in, committing and aborting included. */
static void test_unresolved_error(void **state)
{
    (void)state;
    fixture f;
    put_in(&f, KS_TM_IN_TRANSACTION);
    ks_tm_unresolved_error(&f.tm);
    assert_int_equal(f.tm.state, KS_TM_ABORTABLE_ERROR);
    assert_true(f.tm.epoch_bump_required);
    assert_true(ks_tm_invariants(&f.tm));

    /* while committing: unlike a failed batch, it bumps */
    put_in(&f, KS_TM_COMMITTING_TRANSACTION);
    ks_tm_unresolved_error(&f.tm);
    assert_int_equal(f.tm.state, KS_TM_ABORTABLE_ERROR);
    assert_true(f.tm.end_queued);
    assert_true(f.tm.epoch_bump_required);
    assert_true(ks_tm_invariants(&f.tm));

    put_in(&f, KS_TM_ABORTABLE_ERROR);
    ks_tm_unresolved_error(&f.tm);
    assert_int_equal(f.tm.state, KS_TM_ABORTABLE_ERROR);
    assert_true(f.tm.epoch_bump_required);

    /* while aborting: the state stays, the bump is due */
    put_in(&f, KS_TM_ABORTING_TRANSACTION);
    ks_tm_unresolved_error(&f.tm);
    assert_int_equal(f.tm.state, KS_TM_ABORTING_TRANSACTION);
    assert_true(f.tm.epoch_bump_required);
    assert_true(ks_tm_invariants(&f.tm));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_legal_table),
        cmocka_unit_test(test_valid_transitions),
        cmocka_unit_test(test_invalid_transitions),
        cmocka_unit_test(test_invariants),
        cmocka_unit_test(test_open_and_completing),
        cmocka_unit_test(test_abortable_error),
        cmocka_unit_test(test_unresolved_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
