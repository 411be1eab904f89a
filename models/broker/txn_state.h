/*
 * txn_state.h - the transaction coordinator's state machine for one
 * transactional.id, and which coordinator owns a transactional.id.
 *
 * Owns: the eight coordinator states of [K] core/.../coordinator/
 * transaction/TransactionMetadata.scala (TransactionState) with their
 * legal predecessors, in one X-macro list; the one checked transition
 * function; the per-transactional.id metadata (producer id, epoch, state,
 * partitions, start time); and the pure decisions the coordinator makes
 * on InitProducerId, AddPartitionsToTxn, EndTxn and its timeout scan
 * ([K] TransactionCoordinator.scala: handleInitProducerId /
 * prepareInitProducerIdTransit, handleAddPartitionsToTransaction,
 * handleEndTransaction / endTransaction, abortTimedOutTransactions), for
 * the classic protocol and KIP-890 (transaction version 2: the epoch is
 * bumped at every commit or abort). The transitions are written to the
 * transaction log before they take effect; that latency is the caller's:
 * a decision names the state to write, and ks_txn_apply (or
 * ks_txn_set_state alone) applies it once written.
 *
 * The coordinator's cycle for one request: d = ks_txn_<decision>(m, ...);
 * answer d.error at once unless d.write; else ks_txn_set_pending(m,
 * d.write_state), write to the log, then ks_txn_apply(m, &d, ...) (and
 * ks_txn_add_partition for each partition of an AddPartitionsToTxn) and
 * answer. A fence (d.abort_ongoing) is applied at once, without a write
 * (Kafka holds PrepareEpochFence only as a pending state), and is
 * followed by ks_txn_end_txn(m, m->producer_id, m->epoch, false, kip890),
 * the coordinator's own abort.
 *
 * Never: schedules events or sends anything.
 */
#ifndef KS_TXN_STATE_H
#define KS_TXN_STATE_H

#include "models/kafka/metadata.h" /* ks_java_string_hash, ks_txn_partition_for */

#include "models/kafka/errors.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

/* X(ENUM, "Name", id, legal predecessors as a bit mask of ids)
 * ([K] TransactionState.validPreviousStates, Kafka 4.0+: PrepareAbort may
 * also follow Empty, CompleteCommit and CompleteAbort, which only a
 * KIP-890 EndTxn(abort) does). */
#define KS_TXN_STATES(X)                                                             \
    X(EMPTY, "Empty", 0, (1u << 0) | (1u << 4) | (1u << 5))                         \
    X(ONGOING, "Ongoing", 1, (1u << 1) | (1u << 0) | (1u << 4) | (1u << 5))        \
    X(PREPARE_COMMIT, "PrepareCommit", 2, (1u << 1))                                \
    X(PREPARE_ABORT, "PrepareAbort", 3,                                             \
      (1u << 1) | (1u << 7) | (1u << 0) | (1u << 4) | (1u << 5))                    \
    X(COMPLETE_COMMIT, "CompleteCommit", 4, (1u << 2))                              \
    X(COMPLETE_ABORT, "CompleteAbort", 5, (1u << 3))                                \
    X(DEAD, "Dead", 6, (1u << 0) | (1u << 5) | (1u << 4))                           \
    X(PREPARE_EPOCH_FENCE, "PrepareEpochFence", 7, (1u << 1))

typedef enum ks_txn_state {
#define X(e, name, id, prev) KS_TXN_##e = id,
    KS_TXN_STATES(X)
#undef X
    KS_TXN__COUNT
} ks_txn_state;

const char *ks_txn_state_name(ks_txn_state s);
/* Is `from` a legal predecessor of `to`? */
bool ks_txn_legal(ks_txn_state from, ks_txn_state to);

/* [K] Short.MAX_VALUE - 1: from this epoch on, a new producer id. */
#define KS_TXN_EPOCH_LIMIT 32766

/* The error Kafka answers for a producer id that is not the
 * transactional.id's. */
#define KS_TXN_PID_MISMATCH KS_KERR_INVALID_PRODUCER_ID_MAPPING

typedef struct ks_txn_meta {
    char *transactional_id;
    int64_t producer_id;
    int64_t prev_producer_id;    /* the id before the last Empty or KIP-890 completion
                                    write ([K] previousProducerId), or -1 */
    int64_t next_producer_id;    /* KIP-890 at the epoch limit: the id the completion
                                    moves to ([K] nextProducerId), or -1 */
    int16_t epoch;
    int16_t last_epoch;          /* KIP-890: the epoch before a bump, or -1 */
    ks_txn_state state;
    bool pending;                /* a transition is being written to the log */
    ks_txn_state pending_state;
    uint32_t *partitions;        /* partitions in the transaction (world indices) */
    uint32_t npartitions, partitions_cap;
    ks_time txn_start_ns;        /* when the first partition was added; -1 */
    ks_time timeout_ns;          /* transaction.timeout.ms of the producer */
    uint32_t transitions;        /* states written so far */
} ks_txn_meta;

/* A fresh metadata entry in state Empty with no producer id yet.
 * Returns false when out of memory. */
bool ks_txn_meta_init(ks_txn_meta *m, const char *transactional_id, ks_time timeout_ns);
void ks_txn_meta_free(ks_txn_meta *m);

/*
 * The one transition function: moves m to `to` if `m->state` is a legal
 * predecessor and no other transition is pending; returns false (and
 * leaves m as it was) otherwise, which is a ksim bug the caller asserts on.
 */
bool ks_txn_set_state(ks_txn_meta *m, ks_txn_state to);
/* Do the invariants of m's state hold (listed in txn_state.c)? */
bool ks_txn_invariants_hold(const ks_txn_meta *m);
/* Marks the write of `to` as pending ([K] prepareTransitionTo): false
 * (m unchanged) if a transition is already pending or `to` is illegal. */
bool ks_txn_set_pending(ks_txn_meta *m, ks_txn_state to);

/* Adds a partition to the transaction unless it is in already (insertion
 * order is kept). Returns false when out of memory. */
bool ks_txn_add_partition(ks_txn_meta *m, uint32_t partition);
bool ks_txn_has_partition(const ks_txn_meta *m, uint32_t partition);

/* What the coordinator answers and which state (if any) it writes. */
typedef struct ks_txn_decision {
    ks_kerr error;               /* NONE, CONCURRENT_TRANSACTIONS, PRODUCER_FENCED,
                                    INVALID_TXN_STATE, KS_TXN_PID_MISMATCH, ... */
    bool write;                  /* a transition must be written to the log */
    ks_txn_state write_state;
    bool new_producer_id;        /* the producer id changes: InitProducerId: to a
                                    fresh id (first use, or the epoch limit);
                                    KIP-890 EndTxn at the limit: a fresh id is
                                    allocated now and the completion moves to it;
                                    ks_txn_complete: moves to next_producer_id */
    bool abort_ongoing;          /* a fence: InitProducerId found an Ongoing
                                    transaction, or ks_txn_fence: PrepareEpochFence,
                                    then the coordinator aborts */
    int16_t epoch;               /* with a write: the epoch written; else the epoch
                                    the client keeps (when NONE); -1 otherwise. The
                                    client is answered with it, except at the
                                    KIP-890 epoch limit (the fresh id, epoch 0) */
    int16_t last_epoch;          /* with a write: the last epoch written */
} ks_txn_decision;

/* InitProducerId for m (prepareInitProducerIdTransit, no expected epoch).
 * A transition pending or a transaction being prepared ->
 * CONCURRENT_TRANSACTIONS (the client retries); an Ongoing one -> fence:
 * epoch + 1, PrepareEpochFence then abort, and the client gets
 * CONCURRENT_TRANSACTIONS and retries; Empty or Complete* -> epoch + 1 (a
 * new producer id at the limit) and Empty is written; Dead ->
 * UNKNOWN_SERVER_ERROR (Kafka's IllegalStateException). */
ks_txn_decision ks_txn_init_producer_id(const ks_txn_meta *m);
/* AddPartitionsToTxn from (producer_id, epoch): another producer id ->
 * KS_TXN_PID_MISMATCH; another epoch -> PRODUCER_FENCED; a transition
 * pending or a transaction being completed -> CONCURRENT_TRANSACTIONS;
 * Ongoing with every partition in already -> NONE without a write; else
 * Ongoing is written with the partitions added (start time set on the
 * first). Classic and KIP-890 alike (with KIP-890 the leader sends it). */
ks_txn_decision ks_txn_add_partitions(const ks_txn_meta *m, int64_t producer_id, int16_t epoch,
                                      const uint32_t *partitions, uint32_t npartitions);
/* EndTxn(commit) from (producer_id, epoch): fenced epochs ->
 * PRODUCER_FENCED; Ongoing -> PrepareCommit/PrepareAbort; a retry of an
 * EndTxn already completing the same way -> NONE without a write;
 * Prepare* -> CONCURRENT_TRANSACTIONS; the wrong way -> INVALID_TXN_STATE.
 * With kip890 the reply carries the bumped epoch (epoch + 1), a retry is
 * the epoch before the bump, and an abort is accepted from Empty and
 * Complete* too. In state PrepareEpochFence it is the coordinator's own
 * abort after a fence. (Named after the request: scenario.h has a type
 * ks_txn_end.) */
ks_txn_decision ks_txn_end_txn(const ks_txn_meta *m, int64_t producer_id, int16_t epoch,
                               bool commit, bool kip890);
/* The fence of an Ongoing transaction ([K] prepareFenceProducerEpoch):
 * PrepareEpochFence with epoch + 1, applied at once, then the
 * coordinator's abort (ks_txn_end_txn). */
ks_txn_decision ks_txn_fence(const ks_txn_meta *m);
/* The markers are written: Prepare* -> Complete* ([K] prepareComplete). */
ks_txn_decision ks_txn_complete(const ks_txn_meta *m);
/* The timeout scan: an Ongoing transaction older than its timeout is
 * fenced and aborted (epoch + 1, PrepareEpochFence -> PrepareAbort). */
bool ks_txn_timed_out(const ks_txn_meta *m, ks_time now);

/* Applies d (a decision with a write) once written ([K]
 * completeTransitionTo): producer ids, epochs, start time and partitions
 * as Kafka records them, then ks_txn_set_state. fresh_producer_id: the id
 * allocated for d->new_producer_id (InitProducerId, KIP-890 EndTxn);
 * ignored otherwise. now: when the write completed. Returns false and
 * leaves m as it was when ks_txn_set_state would refuse. */
bool ks_txn_apply(ks_txn_meta *m, const ks_txn_decision *d, int64_t fresh_producer_id,
                  ks_time now);


#endif
