/*
 * outcome.h - what the application is told of each record ([K]
 * ProducerBatch.done and the records' Callbacks): the offset, or the
 * exception, and when.
 *
 * Owns: completing records and batches: the producer's counts and
 * histograms of outcomes and latencies, the run's metrics window, the
 * "ack" trace lines, the observer's "told" reports, and giving a done
 * batch's memory back to the accumulator.
 *
 * Never: decides an outcome; the sender, the transaction manager and
 * send() do.
 */
#ifndef KS_PRODUCER_OUTCOME_H
#define KS_PRODUCER_OUTCOME_H

#include "models/ctx.h"
#include "models/producer/prod.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

struct ks_producer;
struct ks_batch;

/* The application learns a record's outcome now: error NULL is success
 * at `offset` (-1 unknown). */
void ks_prod_outcome_record(struct ks_producer *p, ks_ctx *cx, uint64_t record,
                           ks_time produced_ns, uint32_t partition, int64_t offset,
                           uint32_t bytes, const char *error);
/* The same for every record of batch b, a success at base_offset (-1
 * unknown), but for the "ack" lines: ids gets the records' ids in order;
 * returns their count. */
uint32_t ks_prod_outcome_acked(struct ks_producer *p, ks_ctx *cx,
                                  const struct ks_batch *b, int64_t base_offset, uint64_t *ids);
/* ... and the "ack" lines it leaves out, one per record in order, when
 * they are traced: the same lines ks_prod_outcome_record writes. */
void ks_prod_outcome_trace_acks(struct ks_producer *p, ks_ctx *cx, const struct ks_batch *b,
                             int64_t base_offset);
/* Tells the application the outcome of every record of batch `bid`
 * (error NULL: success at base_offset, -1 when unknown), tells the
 * observer, and gives the batch's memory back. */
void ks_prod_outcome_batch(struct ks_producer *p, ks_ctx *cx, uint32_t bid,
                                 int64_t base_offset, const char *error);

#endif
