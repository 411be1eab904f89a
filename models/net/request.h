/*
 * request.h - produce requests in flight between a producer and a broker.
 *
 * Owns: the request record and its pool. Events carry a request's pool
 * index, never a pointer. A request lives from the moment the producer
 * sends it until its response is handled (or, with acks=0, until the
 * broker has appended it).
 */
#ifndef KS_REQUEST_H
#define KS_REQUEST_H

#include "models/kafka/errors.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

#define KS_REQ_NONE UINT32_MAX

/* One partition's record batch inside a produce request: what travels,
 * and (once appended) the base offset the broker gave it. */
typedef struct ks_req_batch {
    uint32_t partition;     /* index into the world's partitions */
    uint32_t batch;         /* the producer's batch id (its own bookkeeping) */
    uint32_t records;
    uint32_t bytes;         /* the record batch as stored in the log */
    uint64_t raw;           /* its records uncompressed */
    int64_t decompress_ps;  /* per raw byte, for the broker to validate it */
    uint64_t batch_seq;     /* the batch's id (ks_batch.id): checks that
                               the batch is still the one sent */
    uint32_t attempt;       /* 1 for the first send */
    int16_t epoch;          /* idempotence: producer epoch, or -1 */
    int32_t base_seq;       /* idempotence: base sequence, or -1 */
    int64_t base_offset;    /* -1 until appended */
    ks_kerr error;          /* the leader's answer for this batch */
    bool transactional;     /* part of a transaction */
    uint64_t *ids;          /* its records' ids, when partition logs are kept
                               (owned by the entry; NULL otherwise) */
    uint32_t next;          /* next entry of the request, or free list */
} ks_req_batch;

typedef struct ks_request {
    ks_api api;
    uint32_t producer;
    uint32_t broker;
    uint32_t conn;
    uint64_t correlation_id;/* per producer and API, from 1: the trace's "request" */
    uint32_t first;         /* first ks_req_batch */
    uint32_t batches;
    uint32_t records;
    uint32_t request_bytes; /* on the wire, with protocol framing */
    ks_time sent_ns;        /* the request left the producer */
    bool expects_response;  /* false with acks=0 */
    uint32_t next;          /* broker queue link, or pool free list */
    uint32_t pnext;         /* the producer's in-flight list */
    int64_t producer_id;    /* idempotence: or -1; InitProducerId: the answer */
    int16_t epoch;          /* InitProducerId, EndTxn (KIP-890): the answer */
    ks_kerr error;          /* requests other than Produce: the answer's error */
    bool commit;            /* EndTxn: commit (else abort) */
    uint32_t node;          /* FindCoordinator: the coordinator's broker */
    ks_time decided_ns;     /* EndTxn: when the coordinator wrote the decision */
    uint32_t gen;           /* the producer's connection generation at send */
    uint32_t refs;          /* holders: producer, broker path, response event */
    bool arrived;           /* its response reached the producer */
    bool fate_known;        /* the checker was told what became of it */
} ks_request;

typedef struct ks_request_pool {
    ks_request *reqs;
    uint32_t cap;
    uint32_t free_head;
    uint32_t live;
    ks_req_batch *entries;
    uint32_t entry_cap;
    uint32_t entry_free;
} ks_request_pool;

void ks_request_pool_init(ks_request_pool *p);
void ks_request_pool_free(ks_request_pool *p);
/* A zeroed request's index, or KS_REQ_NONE when memory ran out. */
uint32_t ks_request_alloc(ks_request_pool *p);
/* Adds an entry to request `id` (at the end). Returns the entry's index,
 * or KS_REQ_NONE when memory ran out. */
uint32_t ks_request_add_batch(ks_request_pool *p, uint32_t id, uint32_t *last);
/* Releases a request and its entries. */
void ks_request_release(ks_request_pool *p, uint32_t id);
/* Drops one holder; releases the request when none is left. */
void ks_request_unref(ks_request_pool *p, uint32_t id);

#endif
