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
 * errors. One request at a time, in Kafka's priority order. Its state is
 * Java's State enum, moved by one checked transition function; the
 * diagram, the transitions and what holds in each state are at the top
 * of txn_manager.c.
 *
 * Never: drains or completes batches itself; it asks the accumulator and
 * the Sender.
 */
#ifndef KS_PRODUCER_TXN_MANAGER_H
#define KS_PRODUCER_TXN_MANAGER_H

#include "models/ctx.h"
#include "models/producer/prod.h"
#include "models/scenario.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

struct ks_producer;
struct ks_request;



const char *ks_tm_state_name(ks_tm_state s);
/* Is `from` a legal predecessor of `to`? */
bool ks_tm_legal(ks_tm_state from, ks_tm_state to);
/*
 * The one transition function: moves tm to `to` when tm->state may
 * precede it, and then (debug builds) asserts what must hold in `to`;
 * returns false, leaving tm as it was, when the move is illegal, which is
 * a ksim bug its caller asserts on. Whatever the new state requires of
 * the other fields is set before the move.
 */
bool ks_tm_set_state(ks_txn_manager *tm, ks_tm_state to);
/* What holds of tm in its state (see txn_manager.c), as a predicate for
 * assert(). */
bool ks_tm_invariants(const ks_txn_manager *tm);
/* Is the transaction open to the application's send() and to its end:
 * begun, and neither commitTransaction nor abortTransaction called? */
bool ks_tm_open(const ks_txn_manager *tm);
/* Is it being committed or aborted ([K] isCompleting)? */
bool ks_tm_completing(const ks_txn_manager *tm);
/* A record's batch failed, or send() threw ([K] TransactionManager.
 * maybeTransitionToErrorState for an abortable error, with
 * transitionToAbortableError): the transaction can only abort. */
void ks_tm_abortable_error(ks_txn_manager *tm);
/* A partition's sequence did not resolve ([K] TransactionManager.
 * maybeResolveSequences, transactional): the transaction can only abort,
 * and an epoch bump is due whatever the state. */
void ks_tm_unresolved_error(ks_txn_manager *tm);


/* The transaction manager's part of KafkaProducer's constructor; false
 * when out of memory. */
bool ks_prod_tm_init(struct ks_producer *p, ks_ctx *cx, const ks_producer_conf *pc);
void ks_prod_tm_free(struct ks_producer *p);
/* initTransactions(), or the idempotent producer's first InitProducerId. */
void ks_prod_tm_start(struct ks_producer *p, ks_ctx *cx);
/* The producer id is used up (epoch 32767): the idempotent producer asks
 * for a new one. */
void ks_prod_tm_need_producer_id(struct ks_producer *p, ks_ctx *cx);
/* The idempotent producer's InitProducerId, if due and a broker can take
 * it now; else *next says when to look again. */
bool ks_prod_tm_maybe_init_producer_id(struct ks_producer *p, ks_ctx *cx, ks_time now,
                                       ks_time *next);
/* Sends the transactional request due, if any (*next: when to look
 * again). */
void ks_prod_tm_send_due(struct ks_producer *p, ks_ctx *cx, ks_time now, ks_time *next);
/* The answer to one of its requests (anything but Produce and Metadata). */
void ks_prod_tm_answered(struct ks_producer *p, ks_ctx *cx, const struct ks_request *q);
/* One of its requests died with its connection: retried after
 * retry.backoff.ms. */
void ks_prod_tm_request_lost(struct ks_producer *p, ks_time now);
/* The application thread calls send(): beginTransaction() first if no
 * transaction is open. */
void ks_prod_tm_before_send(struct ks_producer *p);
/* After a send(): its partition joins the transaction, which the
 * application may now end. */
void ks_prod_tm_after_send(struct ks_producer *p, ks_ctx *cx);
/* A Produce request left: with KIP-890 its partitions join the
 * transaction at the leader. */
void ks_prod_tm_produce_sent(struct ks_producer *p);
/* The application ends the transaction once the records handed over
 * for it are sent (consume-transform-produce). */
void ks_prod_tm_try_end(struct ks_producer *p, ks_ctx *cx);
/* A batch of the transaction failed, or send() threw: the transaction
 * can only abort, and what is not yet sent fails at once. */
void ks_prod_tm_abortable(struct ks_producer *p, ks_ctx *cx);
/* A partition's sequence did not resolve: the transaction can only
 * abort, with an epoch bump, and what is not yet sent fails at once. */
void ks_prod_tm_unresolved(struct ks_producer *p, ks_ctx *cx);
/* A batch of the transaction ran out of delivery.timeout.ms. */
void ks_prod_tm_batch_expired(struct ks_producer *p);
/* The exception every send() gets once the producer is fenced or failed
 * fatally, or NULL. */
const char *ks_prod_tm_fatal_error(const struct ks_producer *p);

/* Its event: the application ends its transaction (after
 * transactions.end.delay.ms). */
void ks_producer_on_txn_end(struct ks_producer *p, ks_ctx *cx);
/* Consume-transform-produce with commit "transaction": after forwarding a
 * poll's records, the application asks the producer to put the consumer's
 * positions in the transaction (sendOffsetsToTransaction) and end it; the
 * producer tells its application when the transaction has ended. */
void ks_producer_send_offsets(struct ks_producer *p, ks_ctx *cx, uint32_t consumer,
                              const char *group_id, const char *member_id, const uint32_t *parts,
                              const int64_t *offsets, uint32_t n);

#endif
