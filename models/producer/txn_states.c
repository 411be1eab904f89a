/*
 * txn_states.c - the TransactionManager's state machine alone: its states,
 * the legal transitions, what holds in each state, and the two error
 * transitions every caller shares. It reads and writes a ks_txn_manager
 * only; txn_manager.c drives it from the producer's requests and answers.
 *
 * The state machine is Java's ([K] clients/.../producer/internals/
 * TransactionManager.java, State and isTransitionValid; transitionTo is
 * ks_tm_set_state). An idempotent producer without a transactional.id
 * uses its first three states only.
 *
 *                start                 InitProducerId answered
 *  UNINITIALIZED -----> INITIALIZING -----------------------------> READY
 *        ^                   ^                                       |
 *        |                   |                                       | begin: send()
 *        +-------------------|-- idempotent: the epoch is used up ---+
 *                            |                                       v
 *                            |                                 IN_TRANSACTION
 *                            |                                  |    |      |
 *                            |                           commit |    | error| abort
 *                            |                                  v    |      |
 *                            |                COMMITTING_TRANSACTION |      |
 *                            |                               |       |      |
 *                            |                         error |       v      |
 *                            |                               +-> ABORTABLE  |
 *                            |                                   _ERROR (*) |
 *                            |                                     |        |
 *                            |                               abort |        |
 *                            |                                     v        v
 *                            +--------- epoch bump due ------- ABORTING_TRANSACTION
 *
 *  COMMITTING_TRANSACTION, ABORTING_TRANSACTION --EndTxn answered--> READY
 *  any state --fenced, or an error no handler retries--> FATAL_ERROR (final)
 *  (*) a further error leaves ABORTABLE_ERROR where it is; one while
 *      aborting leaves ABORTING_TRANSACTION where it is. An error makes an
 *      epoch bump due only outside COMMITTING_TRANSACTION and
 *      ABORTING_TRANSACTION (Java's !isCompleting()).
 *
 * The transitions, and the function that performs each (the ks_prod_tm_*
 * functions and the static ones are txn_manager.c's; each calls
 * ks_tm_set_state):
 *   UNINITIALIZED -> INITIALIZING        ks_prod_tm_start: initTransactions(),
 *                                        or an idempotent producer's first
 *                                        InitProducerId (with its request due)
 *   INITIALIZING -> READY                got_producer_id, via
 *                                        ks_prod_tm_answered: InitProducerId
 *                                        answered
 *   READY -> UNINITIALIZED -> INITIALIZING  ks_prod_tm_need_producer_id: an
 *                                        idempotent producer's epoch is used
 *                                        up ([K] resetIdempotentProducerId)
 *   READY -> IN_TRANSACTION              ks_prod_tm_before_send: the first
 *                                        send() of a transaction
 *                                        (beginTransaction)
 *   IN_TRANSACTION -> COMMITTING_TRANSACTION | ABORTING_TRANSACTION
 *                                        begin_end: commitTransaction() or
 *                                        abortTransaction()
 *   ABORTABLE_ERROR -> ABORTING_TRANSACTION  begin_end: the application ends
 *                                        a failed transaction (a commit fails,
 *                                        so it aborts); or ks_prod_tm_send_due:
 *                                        a batch failed while committing, and
 *                                        the commit's EndTxn turns into an
 *                                        abort once nothing is left in flight
 *   IN_TRANSACTION | COMMITTING_TRANSACTION | ABORTABLE_ERROR -> ABORTABLE_ERROR
 *                                        ks_tm_abortable_error (from
 *                                        ks_prod_tm_abortable and
 *                                        ks_prod_tm_batch_expired): a batch
 *                                        failed or send() threw; while
 *                                        aborting, the state stays; an
 *                                        epoch bump is due unless it was
 *                                        committing or aborting; or
 *                                        ks_tm_unresolved_error (from
 *                                        ks_prod_tm_unresolved): a
 *                                        partition's sequence did not
 *                                        resolve, and an epoch bump is due
 *                                        even while completing
 *   COMMITTING_TRANSACTION | ABORTING_TRANSACTION -> READY
 *                                        txn_done: EndTxn answered, or nothing
 *                                        to end
 *   ABORTING_TRANSACTION -> INITIALIZING txn_done: EndTxn answered and an
 *                                        epoch bump is due (InitProducerId
 *                                        again, KIP-360)
 *   any -> FATAL_ERROR                   txn_fatal: ProducerFencedException,
 *                                        or an error no handler retries
 *
 * What holds in each state (ks_tm_invariants and assert_tm_invariants,
 * checked at every transition in debug builds):
 *   UNINITIALIZED   no producer id; nothing in flight; the application
 *                   waits for nothing and no EndTxn is queued.
 *   INITIALIZING    no producer id; a transactional producer's application
 *                   waits in initTransactions; no EndTxn is queued.
 *   READY           a producer id; the application waits for nothing; no
 *                   record, no epoch bump due, no EndTxn queued; with the
 *                   classic protocol no partition waits to be added.
 *   IN_TRANSACTION  a producer id; no EndTxn queued and no epoch bump due
 *                   (an error would have left the state).
 *   COMMITTING_TRANSACTION  EndTxn(commit) is queued and the application
 *                   waits for it; no epoch bump due.
 *   ABORTING_TRANSACTION  EndTxn(abort) is queued and the application waits
 *                   for it; the batches never sent failed as it began; with
 *                   the classic protocol no partition waits to be added.
 *   ABORTABLE_ERROR a producer id; if an EndTxn is queued (a commit was
 *                   under way) the application waits for it.
 *   FATAL_ERROR     the exception every send() gets; the application waits
 *                   for nothing; no EndTxn queued; no record held.
 * And always: only a transactional producer leaves UNINITIALIZED,
 * INITIALIZING and READY; a queued EndTxn means COMMITTING, ABORTING or
 * ABORTABLE_ERROR, and an application waiting; a partition is added or
 * pending, not both, and pending_count counts the pending.
 *
 * The transitions are not traced (the "producer" trace records of
 * commit, abort, committed, aborted, fenced and init_producer_id tell
 * them).
 */
#include "models/producer/txn_manager.h"

#include "sim/fsm.h"

#include <assert.h>
#include <stdbool.h>

KS_FSM_TABLES(KS_TM_STATES, KS_TM__COUNT, predecessors, state_names);

static bool valid_state(ks_tm_state s) { return (unsigned)s < (unsigned)KS_TM__COUNT; }

const char *ks_tm_state_name(ks_tm_state s)
{
    return ks_fsm_name(state_names, KS_TM__COUNT, (unsigned)s);
}

bool ks_tm_legal(ks_tm_state from, ks_tm_state to)
{
    return ks_fsm_legal(predecessors, KS_TM__COUNT, (unsigned)from, (unsigned)to);
}

bool ks_tm_set_state(ks_txn_manager *tm, ks_tm_state to)
{
    if (!ks_tm_legal(tm->state, to))
        return false;
    tm->state = to;
    assert(ks_tm_invariants(tm));
    return true;
}

/* Is a partition added or pending, not both, and do the pending ones
 * number pending_count? A walk over the topic's partitions at every
 * transition: checked for topics of up to 256 partitions, so that a
 * debug run stays linear in its transactions. */
static bool partitions_consistent(const ks_txn_manager *tm)
{
    if (tm->partitions > 256)
        return tm->pending_count <= tm->partitions;
    uint32_t pending = 0;
    for (uint32_t i = 0; i < tm->partitions; i++) {
        if (tm->added[i] && tm->pending[i])
            return false;
        pending += tm->pending[i];
    }
    return pending == tm->pending_count;
}

/* What holds in each state, of the manager alone. */
static bool state_invariants(const ks_txn_manager *tm)
{
    bool classic = !tm->kip890;
    switch (tm->state) {
    case KS_TM_UNINITIALIZED:
        return !tm->in_flight && !tm->blocked;
    case KS_TM_INITIALIZING:
        return !tm->transactional || tm->blocked;
    case KS_TM_READY:
        return !tm->blocked && !tm->epoch_bump_required && tm->nids == 0 &&
               (!classic || tm->pending_count == 0);
    case KS_TM_IN_TRANSACTION:
        return !tm->epoch_bump_required;
    case KS_TM_COMMITTING_TRANSACTION:
        return tm->end_queued && !tm->epoch_bump_required;
    case KS_TM_ABORTING_TRANSACTION:
        return tm->end_queued && (!classic || tm->pending_count == 0);
    case KS_TM_ABORTABLE_ERROR:
        return true;
    case KS_TM_FATAL_ERROR:
        return tm->fatal_exception != NULL && !tm->blocked && tm->nids == 0;
    case KS_TM__COUNT:
        break;
    }
    return false;
}

bool ks_tm_invariants(const ks_txn_manager *tm)
{
    if (!valid_state(tm->state) || (tm->kip890 && !tm->transactional))
        return false;
    if (!tm->transactional && (tm->state > KS_TM_READY || tm->blocked || tm->end_queued ||
                               tm->epoch_bump_required || tm->started))
        return false;
    bool ending = tm->state == KS_TM_COMMITTING_TRANSACTION ||
                  tm->state == KS_TM_ABORTING_TRANSACTION;
    if (tm->end_queued && !(ending || tm->state == KS_TM_ABORTABLE_ERROR))
        return false;
    if (tm->end_queued && !tm->blocked)
        return false;
    if (tm->transactional && !partitions_consistent(tm))
        return false;
    return state_invariants(tm);
}

bool ks_tm_open(const ks_txn_manager *tm)
{
    return tm->state == KS_TM_IN_TRANSACTION ||
           (tm->state == KS_TM_ABORTABLE_ERROR && !tm->end_queued);
}

bool ks_tm_completing(const ks_txn_manager *tm)
{
    return tm->state == KS_TM_COMMITTING_TRANSACTION ||
           tm->state == KS_TM_ABORTING_TRANSACTION;
}

void ks_tm_abortable_error(ks_txn_manager *tm)
{
    /* A failure makes the next InitProducerId bump the epoch, unless the
     * transaction is already being committed or aborted: [K]
     * TransactionManager.maybeTransitionToErrorState (handleFailedBatch
     * calls it for every failed or expired batch),
     *     if (canBumpEpoch() && !isCompleting()) epochBumpRequired = true;
     *     transitionToAbortableError(exception);
     * (canBumpEpoch is txn_done's !kip890 && started.) A batch failing
     * while its transaction commits therefore moves the transaction to
     * ABORTABLE_ERROR without an epoch bump, and its late copy may still
     * land in the next transaction (KAFKA-17754; scenario
     * delayed-produce-verified-late). */
    if (!ks_tm_completing(tm))
        tm->epoch_bump_required = true;
    /* transitionToAbortableError: "Skipping transition to abortable error
     * state since the transaction is already being aborted" */
    if (tm->state == KS_TM_ABORTING_TRANSACTION)
        return;
    bool ok = ks_tm_set_state(tm, KS_TM_ABORTABLE_ERROR);
    assert(ok && "an abortable error outside a transaction");
    (void)ok;
}

void ks_tm_unresolved_error(ks_txn_manager *tm)
{
    /* A partition's sequence did not resolve: [K]
     * TransactionManager.maybeResolveSequences (3.9), transactional,
     *     if (canBumpEpoch()) {
     *         epochBumpRequired = true;
     *         transitionToAbortableError(new KafkaException(unackedMessagesErr +
     *             "It is safe to abort the transaction and continue."));
     *     } else transitionToFatalError(...)
     * ksim's coordinators can always bump (InitProducerId v3, Kafka 2.5+).
     * Unlike maybeTransitionToErrorState, the bump is due even while the
     * transaction is committing or aborting. */
    tm->epoch_bump_required = true;
    if (tm->state == KS_TM_ABORTING_TRANSACTION)
        return; /* transitionToAbortableError: "Skipping transition" */
    bool ok = ks_tm_set_state(tm, KS_TM_ABORTABLE_ERROR);
    assert(ok && "an unresolved sequence outside a transaction");
    (void)ok;
}
