/*
 * txn_state.c - the transaction coordinator's state machine for one
 * transactional.id: the legality table, the checked transitions, the
 * coordinator's decisions and the transaction log partition of an id
 * (see txn_state.h for the contract).
 *
 * Sources ([K] = apache/kafka): core/src/main/scala/kafka/coordinator/
 * transaction/TransactionCoordinator.scala (4.0/4.1),
 * TransactionMetadata.scala and its Java successor transaction-coordinator/
 * src/main/java/org/apache/kafka/coordinator/transaction/
 * TransactionMetadata.java and TransactionState.java, and
 * TransactionStateManager.scala; clients/.../common/utils/Utils.java.
 *
 * The state machine, with the decision that writes each transition in
 * brackets ("Idle" is Empty, CompleteCommit or CompleteAbort):
 *
 *   ks_txn_meta_init --> Empty
 *   Idle --[init_producer_id: epoch + 1, or a new id at the limit]--> Empty
 *   Idle --[add_partitions]--> Ongoing --[add_partitions]--> Ongoing
 *   Idle --[end_txn(abort), KIP-890 only]--> PrepareAbort
 *   Idle --[expiry, not decided here]--> Dead
 *
 *                              Ongoing
 *                                 |
 *        +------------------------+------------------------+
 *        | [end_txn(commit)]      | [end_txn(abort)]       | [init_producer_id,
 *        v                        |                        v  or ks_txn_fence
 *   PrepareCommit                 |              PrepareEpochFence  after
 *        |                        v                        |  ks_txn_timed_out]
 *        |                   PrepareAbort <----------------+
 *        | [complete]             | [complete]     [end_txn(abort): the
 *        v                        v                 coordinator's own]
 *   CompleteCommit           CompleteAbort
 *
 * Kafka keeps PrepareEpochFence only as a pending state on an Ongoing
 * transaction and writes the PrepareAbort that follows with the fenced
 * epoch; ksim makes it a state applied at once, which answers the
 * requests that arrive meanwhile as Kafka's pending state does.
 *
 * The invariants of each state (ks_txn_invariants_hold, asserted by
 * ks_txn_apply after every transition in debug builds):
 *   every state   a pending state is a legal successor; the epoch is at
 *                 most Short.MAX_VALUE; the partitions fit their array
 *                 and are distinct;
 *   Empty         no partitions, no start time;
 *   Ongoing       a producer id and epoch, a start time;
 *   PrepareCommit, PrepareAbort   a producer id and a start time;
 *   PrepareEpochFence  as Ongoing;
 *   CompleteCommit, CompleteAbort, Dead   no partitions.
 * The coordinator adds the partitions of a write before applying it, so
 * that at the coordinator (assert_coord_invariants) Ongoing,
 * PrepareEpochFence and PrepareCommit also have partitions; PrepareAbort
 * may have none (with KIP-890, an abort from an idle state).
 */
#include "models/broker/txn_state.h"
#include "sim/fsm.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* [K] RecordBatch.NO_PRODUCER_EPOCH and NO_PRODUCER_ID. */
#define NO_EPOCH ((int16_t)-1)
#define NO_PRODUCER_ID INT64_C(-1)

/* ---- States and legality ------------------------------------------------ */

/* The legal predecessors of each state, from the X-macro list. */
KS_FSM_TABLES(KS_TXN_STATES, KS_TXN__COUNT, predecessors, state_names);

static bool valid_state(ks_txn_state s) { return (unsigned)s < (unsigned)KS_TXN__COUNT; }

const char *ks_txn_state_name(ks_txn_state s)
{
    return ks_fsm_name(state_names, KS_TXN__COUNT, (unsigned)s);
}

/* [K] TransactionState.validPreviousStates, checked by
 * TransactionMetadata.prepareTransitionTo. */
bool ks_txn_legal(ks_txn_state from, ks_txn_state to)
{
    return ks_fsm_legal(predecessors, KS_TXN__COUNT, (unsigned)from, (unsigned)to);
}

/* ---- The metadata --------------------------------------------------------- */

bool ks_txn_meta_init(ks_txn_meta *m, const char *transactional_id, ks_time timeout_ns)
{
    memset(m, 0, sizeof *m);
    size_t len = strlen(transactional_id) + 1;
    m->transactional_id = malloc(len);
    if (m->transactional_id == NULL)
        return false;
    memcpy(m->transactional_id, transactional_id, len);
    /* [K] handleInitProducerId creates the metadata with no epoch (-1) and
     * no previous or next producer id; ksim leaves the producer id unset
     * too until the first InitProducerId. */
    m->producer_id = NO_PRODUCER_ID;
    m->prev_producer_id = NO_PRODUCER_ID;
    m->next_producer_id = NO_PRODUCER_ID;
    m->epoch = NO_EPOCH;
    m->last_epoch = NO_EPOCH;
    m->state = KS_TXN_EMPTY;
    m->pending_state = KS_TXN_EMPTY;
    m->txn_start_ns = -1;
    m->timeout_ns = timeout_ns;
    return true;
}

void ks_txn_meta_free(ks_txn_meta *m)
{
    free(m->transactional_id);
    free(m->partitions);
    memset(m, 0, sizeof *m);
}

/* Could m move to `to` now? A pending transition must be the same one
 * ([K] completeTransitionTo refuses a state other than the pending one). */
static bool can_move(const ks_txn_meta *m, ks_txn_state to)
{
    if (m->pending && m->pending_state != to)
        return false;
    return ks_txn_legal(m->state, to);
}

bool ks_txn_set_state(ks_txn_meta *m, ks_txn_state to)
{
    if (!can_move(m, to))
        return false;
    m->state = to;
    m->transitions++;
    m->pending = false;
    return true;
}

/* [K] prepareTransitionTo: one pending transition at a time, and only to a
 * state the current one may precede. */
bool ks_txn_set_pending(ks_txn_meta *m, ks_txn_state to)
{
    if (m->pending || !ks_txn_legal(m->state, to))
        return false;
    m->pending = true;
    m->pending_state = to;
    return true;
}

bool ks_txn_has_partition(const ks_txn_meta *m, uint32_t partition)
{
    for (uint32_t i = 0; i < m->npartitions; i++) {
        if (m->partitions[i] == partition)
            return true;
    }
    return false;
}

bool ks_txn_add_partition(ks_txn_meta *m, uint32_t partition)
{
    if (ks_txn_has_partition(m, partition))
        return true;
    if (m->npartitions == m->partitions_cap) {
        uint32_t cap = m->partitions_cap ? m->partitions_cap * 2u : 8u;
        uint32_t *grown = realloc(m->partitions, cap * sizeof *grown);
        if (grown == NULL)
            return false;
        m->partitions = grown;
        m->partitions_cap = cap;
    }
    m->partitions[m->npartitions++] = partition;
    return true;
}

static void clear_partitions(ks_txn_meta *m) { m->npartitions = 0; }

/* ---- Decisions: building blocks -------------------------------------------- */

/* An answer without a write. */
static ks_txn_decision answer(ks_kerr error)
{
    ks_txn_decision d = {.error = error, .write_state = KS_TXN_EMPTY, .epoch = NO_EPOCH,
                         .last_epoch = NO_EPOCH};
    return d;
}

/* NONE without a write: the client keeps (or gets) the current epoch. */
static ks_txn_decision done(const ks_txn_meta *m)
{
    ks_txn_decision d = answer(KS_KERR_NONE);
    d.epoch = m->epoch;
    return d;
}

/* A write of `to` with the given epochs. */
static ks_txn_decision writing(ks_txn_state to, int16_t epoch, int16_t last_epoch)
{
    ks_txn_decision d = answer(KS_KERR_NONE);
    d.write = true;
    d.write_state = to;
    d.epoch = epoch;
    d.last_epoch = last_epoch;
    return d;
}

static bool is_idle(ks_txn_state s)
{
    return s == KS_TXN_EMPTY || s == KS_TXN_COMPLETE_COMMIT || s == KS_TXN_COMPLETE_ABORT;
}

static bool is_preparing(ks_txn_state s)
{
    return s == KS_TXN_PREPARE_COMMIT || s == KS_TXN_PREPARE_ABORT;
}

/* [K] TransactionMetadata.isEpochExhausted: producerEpoch >= Short.MAX_VALUE - 1. */
static bool epoch_exhausted(int16_t epoch) { return epoch >= KS_TXN_EPOCH_LIMIT; }

/* Is (producer_id) the transactional.id's? No metadata yet (no
 * InitProducerId) counts as another id: [K] TransactionCoordinator answers
 * INVALID_PRODUCER_ID_MAPPING when getTransactionState finds none. */
static bool same_producer(const ks_txn_meta *m, int64_t producer_id)
{
    return m->producer_id >= 0 && m->producer_id == producer_id;
}

/* ---- InitProducerId and the fence ------------------------------------------ */

/* [K] TransactionMetadata.prepareFenceProducerEpoch (Java): epoch + 1,
 * except at Short.MAX_VALUE, which it keeps rather than overflow; the last
 * epoch is NO_PRODUCER_EPOCH (Scala). Kafka's hasFailedEpochFence (a
 * fence whose log write failed is not bumped again) is not modelled. */
static ks_txn_decision fence(const ks_txn_meta *m)
{
    int16_t bumped = m->epoch == INT16_MAX ? m->epoch : (int16_t)(m->epoch + 1);
    ks_txn_decision d = writing(KS_TXN_PREPARE_EPOCH_FENCE, bumped, NO_EPOCH);
    d.abort_ongoing = true;
    return d;
}

/* [K] abortTimedOutTransactions: a pending transition skips the fence;
 * only an Ongoing transaction may be fenced (prepareTransitionTo). */
ks_txn_decision ks_txn_fence(const ks_txn_meta *m)
{
    if (m->pending)
        return answer(KS_KERR_CONCURRENT_TRANSACTIONS);
    if (m->state != KS_TXN_ONGOING)
        return answer(KS_KERR_INVALID_TXN_STATE);
    return fence(m);
}

/* Empty, CompleteCommit or CompleteAbort: Empty is written with the next
 * epoch and no last epoch ([K] prepareIncrementProducerEpoch with no
 * expected epoch), or with a fresh producer id at epoch 0 when the epoch
 * is exhausted ([K] prepareInitProducerIdTransit ->
 * prepareProducerIdRotation, recordLastEpoch = false). The first
 * InitProducerId is the same bump from epoch -1 to 0 of a fresh id
 * ([K] handleInitProducerId creates the metadata with a new producer id). */
static ks_txn_decision init_from_idle(const ks_txn_meta *m)
{
    bool fresh = m->producer_id < 0 || epoch_exhausted(m->epoch);
    ks_txn_decision d = writing(KS_TXN_EMPTY, fresh ? 0 : (int16_t)(m->epoch + 1), NO_EPOCH);
    d.new_producer_id = fresh;
    return d;
}

/* [K] TransactionCoordinator.prepareInitProducerIdTransit. */
ks_txn_decision ks_txn_init_producer_id(const ks_txn_meta *m)
{
    /* "pendingTransitionInProgress: return a retriable exception". */
    if (m->pending)
        return answer(KS_KERR_CONCURRENT_TRANSACTIONS);
    switch (m->state) {
    case KS_TXN_EMPTY:
    case KS_TXN_COMPLETE_COMMIT:
    case KS_TXN_COMPLETE_ABORT:
        return init_from_idle(m);
    case KS_TXN_ONGOING: {
        /* Fence and abort; the bumped epoch is never returned: the client
         * gets CONCURRENT_TRANSACTIONS and retries (handleInitProducerId). */
        ks_txn_decision d = fence(m);
        d.error = KS_KERR_CONCURRENT_TRANSACTIONS;
        return d;
    }
    case KS_TXN_PREPARE_COMMIT:
    case KS_TXN_PREPARE_ABORT:
        return answer(KS_KERR_CONCURRENT_TRANSACTIONS);
    case KS_TXN_PREPARE_EPOCH_FENCE:
        /* Kafka's pending PrepareEpochFence: pendingTransitionInProgress. */
        return answer(KS_KERR_CONCURRENT_TRANSACTIONS);
    case KS_TXN_DEAD:
    case KS_TXN__COUNT:
        break;
    }
    /* "Dead | PrepareEpochFence => throw new IllegalStateException", which
     * the request handler answers as UNKNOWN_SERVER_ERROR. */
    return answer(KS_KERR_UNKNOWN_SERVER_ERROR);
}

/* ---- AddPartitionsToTxn ---------------------------------------------------- */

static bool has_all(const ks_txn_meta *m, const uint32_t *partitions, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!ks_txn_has_partition(m, partitions[i]))
            return false;
    }
    return true;
}

/* [K] TransactionCoordinator.handleAddPartitionsToTransaction, checked in
 * its order. Since Kafka 2.7 (KIP-588) a wrong epoch is PRODUCER_FENCED;
 * brokers before answered INVALID_PRODUCER_EPOCH. */
ks_txn_decision ks_txn_add_partitions(const ks_txn_meta *m, int64_t producer_id, int16_t epoch,
                                      const uint32_t *partitions, uint32_t npartitions)
{
    if (!same_producer(m, producer_id))
        return answer(KS_TXN_PID_MISMATCH);
    if (epoch != m->epoch)
        return answer(KS_KERR_PRODUCER_FENCED);
    if (m->pending || is_preparing(m->state) || m->state == KS_TXN_PREPARE_EPOCH_FENCE)
        return answer(KS_KERR_CONCURRENT_TRANSACTIONS);
    /* "If the partitions are already in the metadata reply OK immediately". */
    if (m->state == KS_TXN_ONGOING && has_all(m, partitions, npartitions))
        return done(m);
    /* prepareAddPartitions -> prepareTransitionTo(Ongoing) throws from Dead. */
    if (!ks_txn_legal(m->state, KS_TXN_ONGOING))
        return answer(KS_KERR_UNKNOWN_SERVER_ERROR);
    return writing(KS_TXN_ONGOING, m->epoch, m->last_epoch);
}

/* ---- EndTxn ------------------------------------------------------------------ */

/* The answers both protocols give in PrepareCommit, PrepareAbort and Dead
 * ([K] endTransactionWithTV1 and endTransaction: a retry of the same end
 * while it is prepared -> CONCURRENT_TRANSACTIONS, the other end ->
 * INVALID_TXN_STATE; Dead throws IllegalStateException). */
static ks_txn_decision end_while_preparing(const ks_txn_meta *m, bool commit)
{
    if (m->state == KS_TXN_DEAD)
        return answer(KS_KERR_UNKNOWN_SERVER_ERROR);
    bool same = commit == (m->state == KS_TXN_PREPARE_COMMIT);
    return answer(same ? KS_KERR_CONCURRENT_TRANSACTIONS : KS_KERR_INVALID_TXN_STATE);
}

/* A completed transaction asked to end again: the same end is a retry
 * (NONE), the other end INVALID_TXN_STATE ([K] endTransactionWithTV1). */
static ks_txn_decision end_completed_v1(const ks_txn_meta *m, bool commit)
{
    bool same = commit == (m->state == KS_TXN_COMPLETE_COMMIT);
    return same ? done(m) : answer(KS_KERR_INVALID_TXN_STATE);
}

/* The classic protocol: [K] TransactionCoordinator.endTransactionWithTV1.
 * The client's epoch must equal the current one; the coordinator's own
 * abort after a fence (isFromClient = false) only must not be older. */
static ks_txn_decision end_v1(const ks_txn_meta *m, int64_t producer_id, int16_t epoch,
                              bool commit)
{
    bool fencing = m->state == KS_TXN_PREPARE_EPOCH_FENCE;
    if (!same_producer(m, producer_id))
        return answer(KS_TXN_PID_MISMATCH);
    if ((!fencing && epoch != m->epoch) || epoch < m->epoch)
        return answer(KS_KERR_PRODUCER_FENCED);
    if (m->pending)
        return answer(KS_KERR_CONCURRENT_TRANSACTIONS);
    switch (m->state) {
    case KS_TXN_ONGOING:
        /* prepareAbortOrCommit keeps both epochs with TV1. */
        return writing(commit ? KS_TXN_PREPARE_COMMIT : KS_TXN_PREPARE_ABORT, m->epoch,
                     m->last_epoch);
    case KS_TXN_PREPARE_EPOCH_FENCE:
        /* The fence's abort: "clear the pending state ... bump the epoch",
         * lastProducerEpoch = NO_PRODUCER_EPOCH. A commit would meet the
         * pending fence in prepareTransitionTo, which throws. */
        if (commit)
            return answer(KS_KERR_UNKNOWN_SERVER_ERROR);
        return writing(KS_TXN_PREPARE_ABORT, m->epoch, NO_EPOCH);
    case KS_TXN_COMPLETE_COMMIT:
    case KS_TXN_COMPLETE_ABORT:
        return end_completed_v1(m, commit);
    case KS_TXN_EMPTY:
        return answer(KS_KERR_INVALID_TXN_STATE);
    case KS_TXN_PREPARE_COMMIT:
    case KS_TXN_PREPARE_ABORT:
    case KS_TXN_DEAD:
    case KS_TXN__COUNT:
        break;
    }
    return end_while_preparing(m, commit);
}

/* KIP-890's retries, [K] TransactionCoordinator.endTransaction: the client
 * retried an EndTxn whose bump is in the metadata (retryOnEpochBump), or
 * one that overflowed the epoch and moved to a new producer id
 * (retryOnOverflow). Neither applies to the coordinator's fence abort. */
typedef struct v2_retry {
    bool on_bump, on_overflow;
} v2_retry;

static v2_retry v2_retries(const ks_txn_meta *m, int64_t producer_id, int16_t epoch,
                           bool fencing)
{
    v2_retry r = {false, false};
    if (fencing)
        return r;
    r.on_bump = (int)m->epoch == (int)epoch + 1;
    r.on_overflow = m->prev_producer_id == producer_id && epoch == INT16_MAX - 1 &&
                    m->epoch == 0;
    return r;
}

/* [K] endTransaction, isValidEpoch: "state + same epoch is not sufficient
 * to determine if a retry transition is valid". The fence abort is the
 * coordinator's own, at the epoch it has just fenced with. */
static bool v2_epoch_valid(const ks_txn_meta *m, int16_t epoch, bool fencing, v2_retry r)
{
    if (fencing)
        return epoch == m->epoch;
    switch (m->state) {
    case KS_TXN_PREPARE_COMMIT:
    case KS_TXN_PREPARE_ABORT:
        return r.on_bump;
    case KS_TXN_COMPLETE_COMMIT:
    case KS_TXN_COMPLETE_ABORT:
        return r.on_bump || r.on_overflow || epoch == m->epoch;
    case KS_TXN_EMPTY:
    case KS_TXN_ONGOING:
    case KS_TXN_DEAD:
    case KS_TXN_PREPARE_EPOCH_FENCE:
    case KS_TXN__COUNT:
        break;
    }
    return epoch == m->epoch;
}

/* KIP-890's Prepare* write ([K] TransactionMetadata.prepareAbortOrCommit
 * with supportsEpochBump): epoch + 1 and the last epoch the current one;
 * an abort at Short.MAX_VALUE keeps it (Java), a commit there would be an
 * illegal epoch (prepareTransitionTo throws). At the epoch limit a new
 * producer id is allocated for the completion, except for the fence's
 * abort ([K] endTransaction: !isEpochFence && isProducerEpochExhausted). */
static ks_txn_decision prepare_v2(const ks_txn_meta *m, ks_txn_state to, bool fencing)
{
    if (m->epoch == INT16_MAX && to == KS_TXN_PREPARE_COMMIT)
        return answer(KS_KERR_UNKNOWN_SERVER_ERROR);
    int16_t bumped = m->epoch == INT16_MAX ? m->epoch : (int16_t)(m->epoch + 1);
    ks_txn_decision d = writing(to, bumped, m->epoch);
    d.new_producer_id = !fencing && epoch_exhausted(m->epoch);
    return d;
}

/* Idle states with KIP-890 ([K] endTransaction's table): a retry of the
 * same end -> NONE, of the other -> INVALID_TXN_STATE; a new abort is
 * written as PrepareAbort; a new commit (nothing to commit) ->
 * INVALID_TXN_STATE. Empty has no retries: its epoch check requires the
 * current epoch. */
static ks_txn_decision end_idle_v2(const ks_txn_meta *m, bool commit, bool retry)
{
    bool same = (commit && m->state == KS_TXN_COMPLETE_COMMIT) ||
                (!commit && m->state == KS_TXN_COMPLETE_ABORT);
    if (retry)
        return same ? done(m) : answer(KS_KERR_INVALID_TXN_STATE);
    if (commit)
        return answer(KS_KERR_INVALID_TXN_STATE);
    return prepare_v2(m, KS_TXN_PREPARE_ABORT, false);
}

/* KIP-890: [K] TransactionCoordinator.endTransaction (transaction version
 * 2), checked in its order. */
static ks_txn_decision end_v2(const ks_txn_meta *m, int64_t producer_id, int16_t epoch,
                              bool commit)
{
    bool fencing = m->state == KS_TXN_PREPARE_EPOCH_FENCE;
    v2_retry r = v2_retries(m, producer_id, epoch, fencing);
    if (!same_producer(m, producer_id) && !r.on_overflow)
        return answer(KS_TXN_PID_MISMATCH);
    if (!v2_epoch_valid(m, epoch, fencing, r))
        return answer(KS_KERR_PRODUCER_FENCED);
    if (m->pending)
        return answer(KS_KERR_CONCURRENT_TRANSACTIONS);
    switch (m->state) {
    case KS_TXN_ONGOING:
        return prepare_v2(m, commit ? KS_TXN_PREPARE_COMMIT : KS_TXN_PREPARE_ABORT, false);
    case KS_TXN_PREPARE_EPOCH_FENCE:
        /* As with TV1, only the fence's abort can follow. */
        if (commit)
            return answer(KS_KERR_UNKNOWN_SERVER_ERROR);
        return prepare_v2(m, KS_TXN_PREPARE_ABORT, true);
    case KS_TXN_EMPTY:
    case KS_TXN_COMPLETE_COMMIT:
    case KS_TXN_COMPLETE_ABORT:
        return end_idle_v2(m, commit, r.on_bump || r.on_overflow);
    case KS_TXN_PREPARE_COMMIT:
    case KS_TXN_PREPARE_ABORT:
    case KS_TXN_DEAD:
    case KS_TXN__COUNT:
        break;
    }
    return end_while_preparing(m, commit);
}

/* [K] TransactionCoordinator.endTransaction dispatches on
 * clientTransactionVersion.supportsEpochBump(). */
ks_txn_decision ks_txn_end_txn(const ks_txn_meta *m, int64_t producer_id, int16_t epoch,
                               bool commit, bool kip890)
{
    return kip890 ? end_v2(m, producer_id, epoch, commit) : end_v1(m, producer_id, epoch, commit);
}

/* ---- Completion and timeout -------------------------------------------------- */

/* [K] TransactionMetadata.prepareComplete: Prepare* -> Complete*, the
 * epochs kept, except that a KIP-890 end at the epoch limit moves to the
 * next producer id at epoch 0 (lastProducerEpoch stays "the last epoch
 * visible to the client"). */
ks_txn_decision ks_txn_complete(const ks_txn_meta *m)
{
    if (m->pending)
        return answer(KS_KERR_CONCURRENT_TRANSACTIONS);
    if (!is_preparing(m->state))
        return answer(KS_KERR_INVALID_TXN_STATE);
    ks_txn_state to = m->state == KS_TXN_PREPARE_COMMIT ? KS_TXN_COMPLETE_COMMIT
                                                         : KS_TXN_COMPLETE_ABORT;
    bool moves = m->next_producer_id >= 0;
    ks_txn_decision d = writing(to, moves ? 0 : m->epoch, m->last_epoch);
    d.new_producer_id = moves;
    return d;
}

/* [K] TransactionStateManager.timedOutTransactions: not while a transition
 * is pending, only Ongoing, and "txnStartTimestamp + txnTimeoutMs < now"
 * in Kafka's milliseconds (time.milliseconds() truncates; the timeout is
 * configured in whole milliseconds). */
bool ks_txn_timed_out(const ks_txn_meta *m, ks_time now)
{
    if (m->pending || m->state != KS_TXN_ONGOING || m->txn_start_ns < 0)
        return false;
    int64_t start_ms = m->txn_start_ns / KS_NS_PER_MS;
    int64_t timeout_ms = m->timeout_ns / KS_NS_PER_MS;
    int64_t now_ms = now / KS_NS_PER_MS;
    if (timeout_ms > INT64_MAX - start_ms)
        return false;
    return start_ms + timeout_ms < now_ms;
}

/* ---- Applying a written decision -------------------------------------------- */

/* Empty ([K] completeTransitionTo, "from initPid"): the epochs, the
 * producer id (previousProducerId is the id before the write), no
 * partitions and no start time. */
static void apply_empty(ks_txn_meta *m, const ks_txn_decision *d, int64_t fresh)
{
    int64_t before = m->producer_id >= 0 ? m->producer_id : fresh;
    if (d->new_producer_id)
        m->producer_id = fresh;
    m->prev_producer_id = before;
    m->epoch = d->epoch;
    m->last_epoch = d->last_epoch;
    clear_partitions(m);
    m->txn_start_ns = -1;
}

/* Prepare* ([K] prepareAbortOrCommit): the epochs (bumped with KIP-890,
 * NO_PRODUCER_EPOCH last after a fence), the next producer id at the
 * KIP-890 epoch limit, and with KIP-890 an abort from an idle state
 * (noPartitionAdded) starts "now". */
static void apply_prepare(ks_txn_meta *m, const ks_txn_decision *d, int64_t fresh, ks_time now)
{
    m->epoch = d->epoch;
    m->last_epoch = d->last_epoch;
    if (d->new_producer_id)
        m->next_producer_id = fresh;
    if (is_idle(m->state))
        m->txn_start_ns = now;
}

/* Complete* ([K] prepareComplete, completeTransitionTo): the partitions
 * are done; at the KIP-890 epoch limit the next producer id takes over. */
static void apply_complete(ks_txn_meta *m, const ks_txn_decision *d)
{
    clear_partitions(m);
    if (d->new_producer_id && m->next_producer_id >= 0) {
        m->prev_producer_id = m->producer_id;
        m->producer_id = m->next_producer_id;
        m->next_producer_id = NO_PRODUCER_ID;
    }
    m->epoch = d->epoch;
    m->last_epoch = d->last_epoch;
}

static void apply_fields(ks_txn_meta *m, const ks_txn_decision *d, int64_t fresh, ks_time now)
{
    switch (d->write_state) {
    case KS_TXN_EMPTY:
        apply_empty(m, d, fresh);
        break;
    case KS_TXN_ONGOING:
        /* [K] prepareAddPartitions: the first partition starts it. */
        if (is_idle(m->state))
            m->txn_start_ns = now;
        break;
    case KS_TXN_PREPARE_EPOCH_FENCE:
        m->epoch = d->epoch;
        m->last_epoch = d->last_epoch;
        break;
    case KS_TXN_PREPARE_COMMIT:
    case KS_TXN_PREPARE_ABORT:
        apply_prepare(m, d, fresh, now);
        break;
    case KS_TXN_COMPLETE_COMMIT:
    case KS_TXN_COMPLETE_ABORT:
        apply_complete(m, d);
        break;
    case KS_TXN_DEAD:
        clear_partitions(m);
        break;
    case KS_TXN__COUNT:
        break;
    }
}

bool ks_txn_apply(ks_txn_meta *m, const ks_txn_decision *d, int64_t fresh_producer_id,
                  ks_time now)
{
    if (!d->write || !can_move(m, d->write_state))
        return false;
    apply_fields(m, d, fresh_producer_id, now);
    bool moved = ks_txn_set_state(m, d->write_state);
    assert(moved);
    assert(ks_txn_invariants_hold(m));
    return moved;
}

/* ---- Invariants --------------------------------------------------------------- */

static bool distinct_partitions(const ks_txn_meta *m)
{
    if (m->npartitions > 64)
        return true; /* quadratic: checked for the small ones only */
    for (uint32_t i = 0; i < m->npartitions; i++)
        for (uint32_t j = i + 1; j < m->npartitions; j++)
            if (m->partitions[i] == m->partitions[j])
                return false;
    return true;
}

bool ks_txn_invariants_hold(const ks_txn_meta *m)
{
    if (!valid_state(m->state) || (m->pending && !ks_txn_legal(m->state, m->pending_state)))
        return false;
    if (m->npartitions > m->partitions_cap ||
        (m->npartitions > 0 && !m->partitions) || !distinct_partitions(m))
        return false;
    bool owned = m->producer_id >= 0 && m->epoch >= 0, started = m->txn_start_ns >= 0;
    bool parts = m->npartitions > 0;
    switch (m->state) {
    case KS_TXN_EMPTY:
        return !parts && !started;
    case KS_TXN_ONGOING:
    case KS_TXN_PREPARE_EPOCH_FENCE:
        return owned && started;
    case KS_TXN_PREPARE_COMMIT:
    case KS_TXN_PREPARE_ABORT:
        return m->producer_id >= 0 && started;
    case KS_TXN_COMPLETE_COMMIT:
    case KS_TXN_COMPLETE_ABORT:
    case KS_TXN_DEAD:
        return !parts;
    case KS_TXN__COUNT:
        break;
    }
    return false;
}
