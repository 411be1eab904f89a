/*
 * txn_manager.h - the producer's TransactionManager ([K] clients/.../
 * producer/internals/TransactionManager.java).
 *
 * Owns: getting a producer id (InitProducerId, to the least loaded broker
 * for an idempotent producer, to the transaction coordinator for a
 * transactional one) and, for a transactional producer, the client side
 * of its transactions: FindCoordinator for the transaction's and the
 * group's coordinator, beginTransaction, AddPartitionsToTxn (classic
 * protocol), sendOffsetsToTransaction (AddOffsetsToTxn, TxnOffsetCommit),
 * commitTransaction and abortTransaction (EndTxn), the epoch bump after
 * an abortable error (InitProducerId again, KIP-360), fencing and fatal
 * errors. One transactional request at a time, in Kafka's priority order.
 *
 * Never: drains or completes batches itself; it asks the accumulator and
 * the Sender.
 */
#ifndef KS_PRODUCER_TXN_MANAGER_H
#define KS_PRODUCER_TXN_MANAGER_H

#include "models/scenario.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

struct ks_producer;
struct ks_request;
struct ks_world;

/* The transaction manager's part of KafkaProducer's constructor; false
 * when out of memory. */
bool ks_prod_tm_init(struct ks_producer *p, struct ks_world *w, const ks_producer_conf *pc);
void ks_prod_tm_free(struct ks_producer *p);
/* initTransactions(), or the idempotent producer's first InitProducerId. */
void ks_prod_tm_start(struct ks_producer *p, struct ks_world *w);
/* The idempotent producer needs a (new) producer id. */
void ks_prod_tm_need_producer_id(struct ks_producer *p, struct ks_world *w);
/* The idempotent producer's InitProducerId, if due and a broker can take
 * it now; else *next says when to look again. */
bool ks_prod_tm_maybe_init_producer_id(struct ks_producer *p, struct ks_world *w, ks_time now,
                                       ks_time *next);
/* Sends the transactional request due, if any (*next: when to look
 * again). */
void ks_prod_tm_send_due(struct ks_producer *p, struct ks_world *w, ks_time now, ks_time *next);
/* The answer to one of its requests (anything but Produce and Metadata). */
void ks_prod_tm_answered(struct ks_producer *p, struct ks_world *w, const struct ks_request *q);
/* One of its requests died with its connection: retried after
 * retry.backoff.ms. */
void ks_prod_tm_request_lost(struct ks_producer *p, ks_time now);
/* The application thread calls send(): beginTransaction() first if no
 * transaction is open. */
void ks_prod_tm_before_send(struct ks_producer *p);
/* After a send(): its partition joins the transaction, which the
 * application may now end. */
void ks_prod_tm_after_send(struct ks_producer *p, struct ks_world *w);
/* The application ends the transaction once the records handed over
 * for it are sent (consume-transform-produce). */
void ks_prod_tm_try_end(struct ks_producer *p, struct ks_world *w);
/* A batch of the transaction failed, or send() threw: the transaction
 * can only abort, and what is not yet sent fails at once. */
void ks_prod_tm_abortable(struct ks_producer *p, struct ks_world *w);
/* A batch of the transaction ran out of delivery.timeout.ms. */
void ks_prod_tm_batch_expired(struct ks_producer *p);
/* The exception every send() gets once the producer is fenced or failed
 * fatally, or NULL. */
const char *ks_prod_tm_fatal_error(const struct ks_producer *p);
/* Is a transaction being committed or aborted (the accumulator flushes)? */
bool ks_prod_tm_ending(const struct ks_producer *p);

#endif
