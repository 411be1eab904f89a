/*
 * idempotence.h - the idempotent producer's sequence numbers ([K]
 * clients/.../producer/internals/TransactionManager.java with
 * TxnPartitionMap and TxnPartitionEntry, RecordAccumulator.
 * shouldStopDrainBatchesForPartition).
 *
 * Owns: per partition the next base sequence, the last sequence
 * acknowledged, the epoch the numbering belongs to, the batches with a
 * sequence not yet done (inflightBatchesBySequence), and whether the
 * partition is unresolved (a retried batch expired, its fate unknown);
 * the rules that follow from them:
 *   - a batch gets its base sequence when first drained; a partition
 *     whose numbering belongs to an older epoch starts again at 0, once
 *     nothing of it is in flight;
 *   - a retried batch goes only when it has the lowest sequence not yet
 *     done; a new batch waits while the partition is unresolved;
 *   - OUT_OF_ORDER_SEQUENCE_NUMBER for a batch that is not the next the
 *     broker should take is retried; when the broker really lost the
 *     batch before (a gap), or the unresolved batch's successor is
 *     refused, an idempotent producer bumps its epoch and retries, a
 *     transactional one fails the batch (and its transaction aborts);
 *   - an unresolved partition that does not resolve makes an idempotent
 *     producer bump its epoch, a transactional one abort (with an epoch
 *     bump by InitProducerId);
 *   - the local epoch bump (KIP-360, bumpIdempotentProducerEpoch), for
 *     idempotent producers only, renumbers from 0 the partitions that
 *     asked for it; at epoch 32767 a new producer id is asked for instead.
 *
 * Never: sends anything; the TransactionManager asks for producer ids.
 */
#ifndef KS_PRODUCER_IDEMPOTENCE_H
#define KS_PRODUCER_IDEMPOTENCE_H

#include "models/ctx.h"
#include "models/producer/prod.h"
#include "models/producer/accumulator.h"

#include <stdbool.h>
#include <stdint.h>

struct ks_producer;
struct ks_req_batch;



/* Per-partition state for an idempotent producer; false when out of
 * memory. */
bool ks_prod_seq_init(struct ks_producer *p);
/* A new producer id (InitProducerId answered): every partition's
 * numbering starts over, or once its old batches are done. */
void ks_prod_seq_new_producer_id(struct ks_producer *p);
/* Gives batch b its sequence, when first drained. */
void ks_prod_seq_assign(struct ks_producer *p, ks_batch *b);
/* A batch with a sequence is done: it leaves the partition's in-flight
 * set (removeInFlightBatch). */
void ks_prod_seq_done(struct ks_producer *p, const ks_batch *b);
/* Batch b was made by splitting a batch with a sequence: it is tracked
 * as in flight with the sequence it took over (splitAndReenqueue:
 * transactionManager.addInFlightBatch), after the split batch left
 * (ks_prod_seq_done, removeInFlightBatch). Nothing else moves: the
 * leader refused the big batch before looking at its sequence, so the
 * pieces carry exactly the sequences it expects next. */
void ks_prod_seq_split_piece(struct ks_producer *p, const ks_batch *b);
/* The leader appended batch b: its last sequence is acknowledged. */
void ks_prod_seq_acked(struct ks_producer *p, const ks_batch *b);
/* An answer for a batch that has meanwhile expired. */
void ks_prod_seq_late_answer(struct ks_producer *p, const struct ks_req_batch *rb);
/* A batch that was being retried expired (markSequenceUnresolved). */
void ks_prod_seq_unresolved(struct ks_producer *p, const ks_batch *b);
/* Asks for a local epoch bump that renumbers the partition's batches
 * (requestEpochBumpForPartition); idempotent producers only. */
void ks_prod_seq_request_bump(struct ks_producer *p, uint32_t partition);
/* What OUT_OF_ORDER_SEQUENCE_NUMBER for a batch calls for
 * (TransactionManager.canRetry). */
typedef enum ks_seq_oos {
    KS_SEQ_OOS_RETRY,      /* retry: the batch waits for its predecessors */
    KS_SEQ_OOS_RETRY_BUMP, /* idempotent: bump the epoch locally, then retry */
    KS_SEQ_OOS_FAIL        /* transactional: fail the batch, abort */
} ks_seq_oos;
/* The verdict for batch b of a partition in state sq; pure. */
ks_seq_oos ks_prod_seq_oos_verdict(const ks_seq_state *sq, const ks_batch *b, bool transactional);
/* OUT_OF_ORDER_SEQUENCE_NUMBER for batch b: asks for the epoch bump the
 * verdict calls for; true when the batch is to be retried. */
bool ks_prod_seq_out_of_order(struct ks_producer *p, const ks_batch *b);
/* A transactional producer's batch b failed before its retries ran out:
 * the later sequences of its partition move down over it
 * (adjustSequencesDueToFailedBatch). */
void ks_prod_seq_adjust_failed(struct ks_producer *p, const ks_batch *b);
/* The drain rule (ks_acc_may_drain; ctx: {producer, world}). */
bool ks_prod_seq_may_drain(void *ctx, uint32_t partition, const ks_batch *head);
/* Once nothing of an unresolved partition is left undone, it is resolved,
 * or an idempotent producer's epoch bump is due, or a transactional
 * producer's transaction can only abort (maybeResolveSequences). */
uint32_t ks_prod_seq_resolve(struct ks_producer *p);
/* The local epoch bump, if one is due and nothing it renumbers is on the
 * wire. */
bool ks_prod_seq_maybe_bump_epoch(struct ks_producer *p, ks_ctx *cx);

#endif
