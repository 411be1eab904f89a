/*
 * producer.h - the producer: the application's send() calls, the queue of
 * records waiting to be sent, requests in flight, and what the producer is
 * told about each record.
 *
 * Owns: a producer's records from send() to acknowledgement, its workload
 * stream ("producer.<id>.workload") and its latency histogram.
 *
 * This version sends one record per produce request (no batching yet:
 * batch.size and linger.ms are read by no model, and loading warns when a
 * scenario sets them). It honours acks (acks=0: complete at send, offset
 * unknown) and max.in.flight.requests.per.connection (records wait in
 * arrival order while the connection is full).
 */
#ifndef KS_PRODUCER_H
#define KS_PRODUCER_H

#include "sim/histogram.h"
#include "sim/rng.h"
#include "sim/scenario.h"
#include "sim/sim.h"

#include <stdint.h>

struct ks_world;

typedef struct ks_pending_record {
    uint64_t id;
    ks_time produced_ns;
} ks_pending_record;

typedef struct ks_producer {
    uint32_t index;
    const ks_producer_conf *conf;
    char client_id[64];
    ks_rng workload_rng;
    uint32_t partition;      /* the world's partition index it writes to */
    uint32_t leader;         /* that partition's leader broker */
    uint32_t conn;           /* connection to the leader */
    int acks;                /* -1 (all), 0, 1 */
    uint32_t max_in_flight;
    uint32_t in_flight;
    uint64_t next_correlation_id;
    uint32_t record_bytes_v2; /* one record in a v2 batch */
    uint32_t batch_bytes;     /* a one-record batch */
    uint32_t request_bytes;   /* its ProduceRequest on the wire */

    /* records waiting for a free in-flight slot, FIFO ring */
    ks_pending_record *queue;
    size_t q_head, q_len, q_cap;
    size_t q_len_max;

    uint64_t produced;       /* send() calls */
    uint64_t acked;          /* acknowledged (with acks=0: assumed) */
    uint64_t failed;
    uint64_t requests;
    uint64_t responses;
    uint64_t record_bytes;   /* value + key bytes handed to send() */
    ks_time first_produce_ns, last_ack_ns;
    ks_hist latency;         /* send() to acknowledgement, ns */
} ks_producer;

bool ks_producer_init(ks_producer *p, struct ks_world *w, uint32_t index);
void ks_producer_free(ks_producer *p);
/* Schedules the first send() of the workload. */
void ks_producer_start(ks_producer *p, struct ks_world *w);
/* Event handlers. */
void ks_producer_on_produce(ks_producer *p, struct ks_world *w);
void ks_producer_on_response(ks_producer *p, struct ks_world *w, uint32_t req);

/* Size of one record in a v2 record batch ([K] DefaultRecord.sizeInBytes):
 * length varint + attributes + timestamp delta + offset delta + key length
 * + key + value length + value + header count. key_len < 0: null key. */
uint32_t ks_record_size_v2(int64_t key_len, uint32_t value_len, uint32_t offset_delta);

#endif
