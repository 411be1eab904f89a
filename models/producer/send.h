/*
 * send.h - the producer's application thread: KafkaProducer.send and
 * doSend ([K] clients/.../producer/KafkaProducer.java).
 *
 * Owns: the records' arrivals (the workload's, or those a consumer
 * forwards), the choice of each record's key, value size and partition
 * (keyed: murmur2; keyless: the configured partitioner, with the
 * accumulator's say from 3.3), the size checks (RecordTooLargeException),
 * the append to the accumulator, and the wait for buffer memory: a new
 * batch that needs memory the pool does not have blocks the application
 * up to max.block.ms (then BufferExhaustedException; BufferPool.allocate);
 * arrivals meanwhile wait in a backlog. Also what the application is told
 * of each record (its Callback), for the summary and the observer.
 *
 * Never: builds requests or touches a batch once it is drained.
 */
#ifndef KS_PRODUCER_SEND_H
#define KS_PRODUCER_SEND_H

#include "models/ctx.h"
#include "models/producer/prod.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

struct ks_producer;
struct ks_batch;



/* Fills p->send_hot from its conf. */
void ks_prod_send_init(struct ks_producer *p);
/* Schedules the workload's next arrival at `at`. */
void ks_prod_send_schedule_arrival(struct ks_producer *p, ks_ctx *cx, ks_time at);
/* The application thread as the modules below reach it (prod.h). */
extern const struct ks_prod_app_thread ks_prod_send_thread;
/* Runs send() for the arrivals that waited, as far as the application
 * thread can go now. */
void ks_prod_send_drain_backlog(struct ks_producer *p, ks_ctx *cx);
/* Memory was freed: a send() blocked on buffer memory may go on. */
void ks_prod_send_try_unblock(struct ks_producer *p, ks_ctx *cx);

/* Its events (the operations dispatch to them): the workload's next
 * arrival; max.block.ms ran out; the application thread is free again. */
void ks_producer_on_produce(struct ks_producer *p, ks_ctx *cx);
void ks_producer_on_block_timeout(struct ks_producer *p, ks_ctx *cx);
void ks_producer_on_app_free(struct ks_producer *p, ks_ctx *cx);
/* Consume-transform-produce: the application hands the producer one
 * record read by a consumer (key and value as the producer's workload
 * says), as if it had arrived: `source` is the id of the record read,
 * `consumer` the consumer's index. The record written for it has a
 * "forward" trace line and is followed by the delivery checker. */
void ks_producer_forward(struct ks_producer *p, ks_ctx *cx, uint64_t source, uint32_t consumer);

#endif
