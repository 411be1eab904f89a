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
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

struct ks_producer;
struct ks_batch;

/* One send() call in progress. */
typedef struct ks_send_rec {
    uint64_t id;
    ks_time send_ns;      /* the application's send() (also the timestamp) */
    const char *key;      /* NULL: no key */
    int64_t key_len;      /* -1: no key */
    uint32_t value_bytes;
    uint32_t partition;
    bool keyed;           /* partitioned by murmur2 of its key */
    uint64_t source;      /* consume-transform-produce: the record read that it
                             was written for (KS_NO_SOURCE: none) */
    int32_t via;          /* ... and the consumer that read it (-1: none) */
} ks_send_rec;
#define KS_NO_SOURCE UINT64_MAX

/* What every send() reads of the producer's workload and costs, copied
 * from its conf when the producer is made (ks_prod_send_init): with many
 * producers the conf is not in the cache when a record comes, and each
 * line of it reached through the producer's conf pointer, then the key
 * and value lists through the conf, is a miss after the one before. One
 * cache line. */
typedef struct ks_send_hot {
    uint64_t records;            /* workload.records */
    ks_time interval_ns;         /* workload.interval_ns */
    ks_time record_ns;           /* cost.record_ns */
    int64_t compress_ps;         /* compression.compress_ps (0: none) */
    char *const *keys;           /* workload.keys, key_count of them */
    const uint32_t *value_bytes; /* workload.value_bytes, value_count */
    uint32_t key_count, value_count;
    uint32_t value1;             /* value_bytes[0] */
    uint8_t arrival;             /* ks_arrival */
    uint8_t key_pick, value_pick; /* ks_pick */
    bool keyless;                /* keys cycle through one NULL key */
} ks_send_hot;

/* Fills p->send_hot from its conf. */
void ks_prod_send_init(struct ks_producer *p);
/* Schedules the workload's next arrival at `at`. */
void ks_prod_send_schedule_arrival(struct ks_producer *p, ks_ctx *cx, ks_time at);
/* The application learns a record's outcome now: error NULL is success
 * at `offset` (-1 unknown). */
void ks_prod_send_complete(struct ks_producer *p, ks_ctx *cx, uint64_t record,
                           ks_time produced_ns, uint32_t partition, int64_t offset,
                           uint32_t bytes, const char *error);
/* The same for every record of batch b, a success at base_offset (-1
 * unknown), but for the "ack" lines: ids gets the records' ids in order;
 * returns their count. */
uint32_t ks_prod_send_acked_batch(struct ks_producer *p, ks_ctx *cx,
                                  const struct ks_batch *b, int64_t base_offset, uint64_t *ids);
/* ... and the "ack" lines it leaves out, one per record in order, when
 * they are traced: the same lines ks_prod_send_complete writes. */
void ks_prod_send_trace_acks(struct ks_producer *p, ks_ctx *cx, const struct ks_batch *b,
                             int64_t base_offset);
/* Runs send() for the arrivals that waited, as far as the application
 * thread can go now. */
void ks_prod_send_drain_backlog(struct ks_producer *p, ks_ctx *cx);
/* Memory was freed: a send() blocked on buffer memory may go on. */
void ks_prod_send_try_unblock(struct ks_producer *p, ks_ctx *cx);

#endif
