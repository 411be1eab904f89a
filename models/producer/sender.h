/*
 * sender.h - the producer's sender thread ([K] clients/.../producer/
 * internals/Sender.java).
 *
 * Owns: the sender's wake-ups and CPU time; each run (Sender.runOnce):
 * the transactional request due first, ready() over the deques, then for
 * every ready broker whose connection can take another request, drain
 * its batches into one ProduceRequest (with max.in.flight=1 the drained
 * partitions are muted until their answer); the Produce answers, batch by
 * batch (completeBatch): success, retry after the backoff
 * (retry.backoff.ms, exponential from 3.7), or failure; delivery.timeout.ms
 * (expiry in the deques and in flight); acks=0 (records complete once the
 * request is written, offset unknown); and completing a batch: telling
 * the application and the observer and giving its memory back.
 *
 * Never: decides sequence numbers (idempotence.c) or the transaction's
 * course (txn_manager.c); it asks them.
 */
#ifndef KS_PRODUCER_SENDER_H
#define KS_PRODUCER_SENDER_H

#include "models/ctx.h"
#include "models/producer/prod.h"
#include "models/kafka/errors.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

struct ks_producer;
struct ks_request;

/* The delivery.timeout.ms check runs at `at` (or earlier). */
void ks_prod_sender_arm_expiry(struct ks_producer *p, ks_ctx *cx, ks_time at);
/* A Produce response is handled: every batch it answers. */
void ks_prod_sender_handle_response(struct ks_producer *p, ks_ctx *cx,
                                    const struct ks_request *q);
/* A Produce request failed with its connection: each of its batches
 * still in flight gets `err` (retried or failed). */
void ks_prod_sender_fail_request(struct ks_producer *p, ks_ctx *cx,
                                 const struct ks_request *q, ks_kerr err);

/* Its events: the sender thread runs; acks=0: a request was written
 * (chain: its batches); delivery.timeout.ms check. */
void ks_producer_on_sender(struct ks_producer *p, ks_ctx *cx);
void ks_producer_on_sent(struct ks_producer *p, ks_ctx *cx, uint32_t chain);
void ks_producer_on_expiry(struct ks_producer *p, ks_ctx *cx);

#endif
