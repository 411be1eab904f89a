/*
 * idempotence.c - the idempotent producer's sequence numbers (see
 * idempotence.h).
 */
#include "models/producer/idempotence.h"

#include "models/producer/prod.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static int32_t last_seq_of(const ks_batch *b)
{
    return (int32_t)(((int64_t)b->base_seq + b->records - 1) % 2147483648LL);
}

static int32_t next_after(int32_t seq)
{
    return seq == INT32_MAX ? 0 : seq + 1;
}

/* A batch that was being retried expired: whether some attempt of it
 * was written is unknown, so the partition's sequence is unresolved
 * (Sender.sendProducerData: markSequenceUnresolved when inRetry()). */
void ks_prod_seq_unresolved(ks_producer *p, const ks_batch *b)
{
    if (!p->seq || !b->has_seq || b->attempts == 0)
        return;
    ks_seq_state *sq = &p->seq[b->partition];
    int32_t last = last_seq_of(b);
    if (!sq->unresolved || last > sq->unresolved_seq)
        sq->unresolved_seq = last;
    if (!sq->unresolved)
        p->unresolved++;
    sq->unresolved = true;
}

/* Asks for a local epoch bump that renumbers the partition's batches
 * ([K] TransactionManager.requestEpochBumpForPartition). Java calls it
 * only for the idempotent producer (canRetry, handleFailedBatch and
 * maybeResolveSequences each test !isTransactional() first). */
void ks_prod_seq_request_bump(ks_producer *p, uint32_t partition)
{
    assert(!p->tm.transactional && "a transactional producer bumps by InitProducerId");
    p->seq[partition].rewrite = true;
    p->bump_required = true;
}

/* A batch with a sequence is done: it leaves the partition's in-flight
 * set (removeInFlightBatch). */
void ks_prod_seq_done(ks_producer *p, const ks_batch *b)
{
    if (p->seq && b->has_seq && b->epoch == p->seq[b->partition].epoch) {
        assert(p->seq[b->partition].incomplete > 0);
        p->seq[b->partition].incomplete--;
    }
}

void ks_prod_seq_split_piece(ks_producer *p, const ks_batch *b)
{
    if (p->seq && b->has_seq && b->epoch == p->seq[b->partition].epoch)
        p->seq[b->partition].incomplete++;
}

bool ks_prod_seq_init(ks_producer *p)
{
    p->seq = calloc(p->max_partitions, sizeof *p->seq);
    if (!p->seq)
        return false;
    for (uint32_t i = 0; i < p->max_partitions; i++)
        p->seq[i].last_acked = -1;
    return true;
}

/* InitProducerId answered: a fresh producer id at epoch 0, and every
 * partition's sequence starts over. */
void ks_prod_seq_new_producer_id(ks_producer *p)
{
    for (uint32_t i = 0; i < p->max_partitions; i++) {
        ks_seq_state *sq = &p->seq[i];
        if (sq->incomplete == 0) {
            sq->epoch = p->epoch;
            sq->next_seq = 0;
            sq->last_acked = -1;
        } else {
            sq->epoch = -1; /* an old producer id's batches: start over once done */
        }
    }
}

void ks_prod_seq_acked(ks_producer *p, const ks_batch *b)
{
    if (p->seq && b->has_seq && b->epoch == p->seq[b->partition].epoch) {
        ks_seq_state *sq = &p->seq[b->partition];
        int32_t last = last_seq_of(b);
        if (last > sq->last_acked)
            sq->last_acked = last;
    }
}

/* An answer for a batch that has meanwhile expired still tells the
 * producer where the partition's sequence stands
 * (Sender.completeBatch runs for done batches too). */
void ks_prod_seq_late_answer(ks_producer *p, const ks_req_batch *rb)
{
    if (!p->seq || rb->error != KS_KERR_NONE || rb->base_seq < 0)
        return;
    ks_seq_state *sq = &p->seq[rb->partition - p->first_partition];
    int32_t last = (int32_t)(((int64_t)rb->base_seq + rb->records - 1) % 2147483648LL);
    if (rb->epoch == sq->epoch && last > sq->last_acked)
        sq->last_acked = last;
}

/* What OUT_OF_ORDER_SEQUENCE_NUMBER for batch b means ([K]
 * TransactionManager.canRetry, 3.9):
 *     if (!hasUnresolvedSequence(tp) &&
 *             (batch.sequenceHasBeenReset() || !isNextSequence(tp, batch.baseSequence())))
 *         return true;
 *     else if (!isTransactional()) {
 *         if (!hasUnresolvedSequence(tp) ||
 *                 isNextSequenceForUnresolvedPartition(tp, batch.baseSequence()))
 *             requestEpochBumpForPartition(tp);
 *         return true;
 *     }
 *     ...
 *     return error.exception() instanceof RetriableException;
 * A batch that is not the next one the broker should take waits for its
 * predecessors and is retried. Otherwise the broker really lost what came
 * before (or the unresolved batch's successor is refused): the idempotent
 * producer bumps its epoch locally and retries; a transactional one fails
 * the batch (OutOfOrderSequenceException is not retriable), and its
 * transaction can only abort. */
ks_seq_oos ks_prod_seq_oos_verdict(const ks_seq_state *sq, const ks_batch *b, bool transactional)
{
    bool next = b->base_seq == next_after(sq->last_acked);
    if (!sq->unresolved && (b->seq_reset || !next))
        return KS_SEQ_OOS_RETRY;
    if (transactional)
        return KS_SEQ_OOS_FAIL;
    if (!sq->unresolved || b->base_seq == next_after(sq->unresolved_seq))
        return KS_SEQ_OOS_RETRY_BUMP;
    return KS_SEQ_OOS_RETRY;
}

bool ks_prod_seq_out_of_order(ks_producer *p, const ks_batch *b)
{
    ks_seq_oos v = ks_prod_seq_oos_verdict(&p->seq[b->partition], b, p->tm.transactional);
    if (v == KS_SEQ_OOS_RETRY_BUMP)
        ks_prod_seq_request_bump(p, b->partition);
    return v != KS_SEQ_OOS_FAIL;
}

/* A transactional producer's batch failed before its retries ran out
 * ([K] TransactionManager.handleFailedBatch with adjustSequenceNumbers,
 * for isTransactional(): txnPartitionMap.adjustSequencesDueToFailedBatch;
 * TxnPartitionEntry): the partition's next sequence, and the sequences of
 * its later batches not yet done, move down by the failed batch's record
 * count (resetProducerState: sequenceHasBeenReset). A partition numbered
 * under an older epoch is left alone ("Sequence numbers are not being
 * tracked for this partition"). */
void ks_prod_seq_adjust_failed(ks_producer *p, const ks_batch *b)
{
    if (!p->seq || !b->has_seq || b->epoch != p->seq[b->partition].epoch)
        return;
    ks_seq_state *sq = &p->seq[b->partition];
    int32_t n = (int32_t)b->records;
    assert(sq->next_seq >= n && "a sequence going negative");
    sq->next_seq -= n;
    for (uint32_t bid = 0; bid < p->acc.batch_cap; bid++) {
        ks_batch *o = ks_acc_batch(&p->acc, bid);
        if (o == b || o->state == KS_BATCH_FREE || o->partition != b->partition ||
            !o->has_seq || o->epoch != sq->epoch || o->base_seq < b->base_seq)
            continue;
        assert(o->base_seq >= n);
        o->base_seq -= n;
        o->seq_reset = true;
    }
}

/* Idempotence: a batch gets its sequence when first drained; a partition
 * whose numbering belongs to an older epoch starts again at 0 (the drain
 * rule below lets that happen only when nothing of it is in flight). */
void ks_prod_seq_assign(ks_producer *p, ks_batch *b)
{
    ks_seq_state *sq = &p->seq[b->partition];
    if (!b->has_seq) {
        if (sq->epoch != p->epoch) {
            assert(sq->incomplete == 0);
            sq->epoch = p->epoch;
            sq->next_seq = 0;
            sq->last_acked = -1;
        }
        b->has_seq = true;
        b->epoch = p->epoch;
        b->base_seq = sq->next_seq;
        sq->next_seq = (int32_t)(((int64_t)sq->next_seq + b->records) % 2147483648LL);
        sq->incomplete++;
    }
}

/* The lowest sequence of the partition's batches on the wire, or
 * INT32_MAX (with the head batch: firstInFlightSequence). */
static int32_t lowest_on_wire(const ks_producer *p, const ks_ctx *cx, uint32_t part)
{
    int32_t low = INT32_MAX;
    const ks_prod_node *n = &p->nodes[p->leader[part]];
    for (uint32_t id = n->fifo_head; id != KS_REQ_NONE; id = ks_req(&cx->reqs, id)->pnext) {
        const ks_request *q = ks_req(&cx->reqs, id);
        for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
            const ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
            const ks_batch *b = &p->acc.batches[rb->batch];
            if (rb->partition == p->first_partition + part && b->state == KS_BATCH_IN_FLIGHT &&
                b->id == rb->batch_seq && b->has_seq && b->base_seq < low)
                low = b->base_seq;
        }
    }
    return low;
}

/* Idempotence: may the partition's head batch be drained now?
 * ([K] RecordAccumulator.shouldStopDrainBatchesForPartition) A new batch
 * waits while the partition's sequence is unresolved, or while batches
 * numbered under an older epoch are not done; a retried batch goes only
 * when it has the lowest sequence not yet done. */
bool ks_prod_seq_may_drain(void *ctx, uint32_t part, const ks_batch *head)
{
    const ks_producer *p = ((const void *const *)ctx)[0];
    const ks_ctx *cx = ((const void *const *)ctx)[1];
    const ks_seq_state *sq = &p->seq[part];
    if (!ks_tm_send_allowed(&p->tm, part))
        return false; /* isSendToPartitionAllowed: AddPartitionsToTxn first */
    if (!head->has_seq)
        return !sq->unresolved && (sq->epoch == p->epoch || sq->incomplete == 0);
    return head->base_seq < lowest_on_wire(p, cx, part);
}

/* Once nothing of an unresolved partition is left undone, its sequence
 * is resolved if no batch went missing ([K]
 * TransactionManager.maybeResolveSequences, 3.9). If one did, "For the
 * idempotent producer, bump the epoch" (requestEpochBumpForPartition);
 * for the transactional producer
 *     if (canBumpEpoch()) { epochBumpRequired = true; transitionToAbortableError(...) }
 *     else transitionToFatalError(...)
 * (ksim's coordinators can always bump: the sender hands each such
 * partition to ks_prod_tm_unresolved). The
 * transactional producer's epoch thus moves only by InitProducerId, never
 * locally. */
uint32_t ks_prod_seq_resolve(ks_producer *p)
{
    uint32_t gaps = 0;
    /* (every sender run asks: cost only while a partition is unresolved) */
    for (uint32_t i = 0; p->unresolved > 0 && i < p->partitions; i++) {
        ks_seq_state *sq = &p->seq[i];
        if (!sq->unresolved || sq->incomplete > 0)
            continue;
        sq->unresolved = false;
        p->unresolved--;
        if (sq->next_seq == next_after(sq->last_acked))
            continue;
        if (p->tm.transactional)
            gaps++;
        else
            ks_prod_seq_request_bump(p, i);
    }
    return gaps;
}

/* KIP-360: the idempotent producer bumps its epoch locally and renumbers,
 * from 0, every batch not yet done of the partitions that asked for it
 * (bumpIdempotentProducerEpoch, startSequencesAtBeginning). Other
 * partitions start over at their next new batch, once their older
 * batches are done. At epoch 32767 Kafka asks for a new producer id
 * instead. */
bool ks_prod_seq_maybe_bump_epoch(ks_producer *p, ks_ctx *cx)
{
    if (!p->bump_required)
        return false;
    /* bumpIdempotentEpochAndResetIdIfNeeded: if (!isTransactional()) */
    assert(!p->tm.transactional && "a transactional producer's epoch bumps by InitProducerId");
    /* ksim waits until none of the renumbered partitions' batches is on
     * the wire: an answer to the old numbering would otherwise be taken
     * for the new one. */
    for (uint32_t i = 0; i < p->partitions; i++)
        if (p->seq[i].rewrite && lowest_on_wire(p, cx, i) != INT32_MAX)
            return false;
    p->bump_required = false;
    p->epoch_bumps++;
    if (p->epoch == INT16_MAX) {
        p->producer_id = -1;
        for (uint32_t i = 0; i < p->max_partitions; i++)
            p->seq[i].rewrite = false;
        return true; /* a new producer id: every partition starts over */
    }
    p->epoch++;
    for (uint32_t i = 0; i < p->partitions; i++) {
        ks_seq_state *sq = &p->seq[i];
        if (!sq->rewrite)
            continue;
        sq->rewrite = false;
        if (sq->unresolved)
            p->unresolved--;
        sq->unresolved = false;
        sq->epoch = p->epoch;
        sq->last_acked = -1;
        sq->incomplete = 0;
        int32_t next = 0;
        for (;;) { /* in sequence order: the lowest not yet renumbered */
            ks_batch *low = NULL;
            for (uint32_t bid = 0; bid < p->acc.batch_cap; bid++) {
                ks_batch *b = ks_acc_batch(&p->acc, bid);
                if (b->state != KS_BATCH_FREE && b->partition == i && b->has_seq &&
                    b->epoch != p->epoch && (!low || b->base_seq < low->base_seq))
                    low = b;
            }
            if (!low)
                break;
            low->epoch = p->epoch;
            low->base_seq = next;
            low->seq_reset = true;
            next += (int32_t)low->records;
            sq->incomplete++;
        }
        sq->next_seq = next;
    }
    ks_prod_trace_state(p, cx, "epoch_bump", NULL);
    return false;
}
