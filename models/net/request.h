/*
 * request.h - requests in flight between two nodes, and their answers.
 *
 * Owns: the request record and its pool. Events carry a request's pool
 * index, never a pointer. A request lives from the moment the producer
 * sends it until its response is handled (or, with acks=0, until the
 * broker has appended it).
 */
#ifndef KS_REQUEST_H
#define KS_REQUEST_H

#include "models/kafka/records.h"
#include "models/kafka/errors.h"
#include "models/net/node.h"
#include "sim/sim.h"
#include "sim/trace.h"

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
    ks_kerr error;          /* the leader's answer for this batch (an injected
                               error, until it is handled) */
    int32_t fault;          /* the fault that injected it, or -1 */
    bool transactional;     /* part of a transaction */
    uint64_t *ids;          /* its records' ids, when partition logs are kept
                               (owned by the entry; NULL otherwise) */
    uint32_t next;          /* next entry of the request, or free list */
} ks_req_batch;

typedef struct ks_request {
    ks_api api;
    uint16_t version;       /* the API version the client speaks */
    ks_node client;         /* who sent it (models/net/node.h) */
    ks_node server;         /* who answers it */
    const char *client_id;  /* request header: the client's name */
    uint32_t conn;
    uint64_t correlation_id;/* per client and API, from 1: the trace's "request" */
    uint32_t first;         /* first ks_req_batch */
    uint32_t batches;
    uint32_t records;
    uint32_t request_bytes; /* on the wire, with protocol framing */
    uint32_t response_bytes;/* ... and its response's */
    ks_time sent_ns;        /* the request left the client */
    bool expects_response;  /* false with acks=0 */
    uint32_t next;          /* server queue link, or pool free list */
    uint32_t pnext;         /* the client's in-flight list */
    /* the request body, as Kafka's carries it (what an API has no use for
     * stays zero) */
    const char *transactional_id; /* InitProducerId, AddPartitionsToTxn, EndTxn;
                                     FindCoordinator: its key */
    ks_time txn_timeout_ns; /* InitProducerId: transaction.timeout.ms */
    int64_t producer_id;    /* idempotence: or -1; InitProducerId: the answer */
    int16_t epoch;          /* InitProducerId, EndTxn (KIP-890): the answer */
    bool commit;            /* EndTxn: commit (else abort) */
    bool verify_only;       /* AddPartitionsToTxn v4+ from a leader: only verify */
    uint8_t key_type;       /* FindCoordinator: KS_COORD_GROUP or KS_COORD_TRANSACTION */
    const char *group_id;   /* OffsetCommit, OffsetFetch, TxnOffsetCommit,
                               AddOffsetsToTxn; FindCoordinator of a group */
    const char *member_id;  /* TxnOffsetCommit: the consumer's member id */
    bool require_stable;    /* OffsetFetch v7+ (KIP-447) */
    bool read_committed;    /* Fetch, ListOffsets: isolation.level */
    ks_time max_wait_ns;    /* Fetch: fetch.max.wait.ms */
    uint32_t max_records;   /* Fetch: the most records it returns (ksim bounds a
                               fetch by the consumer's max.poll.records where
                               Kafka bounds it by bytes) */
    uint32_t topic;         /* Metadata: the topic asked about (scenario index) */
    bool daemon;            /* its events keep no run alive (a metadata refresh) */
    bool retx[2];           /* per direction: TCP is retransmitting it (a link fault) */
    uint32_t conn_epoch[2]; /* ... on the connection as it was when it left */
    bool parked;            /* Fetch: waiting at the leader for data (DelayedFetch) */
    ks_fetched *fetched;    /* Fetch answer: the records, in partition order (owned) */
    uint32_t nfetched;
    uint32_t *leaders;      /* Metadata answer: each partition's leader (owned) */
    uint32_t nleaders;
    /* the answer */
    ks_kerr error;          /* requests other than Produce: the answer's error */
    uint32_t node;          /* FindCoordinator: the coordinator's broker */
    ks_time decided_ns;     /* EndTxn: when the coordinator wrote the decision
                               (also for a retry of it), for the observer only:
                               no node acts on it */
    /* the client's and the simulation's bookkeeping */
    uint32_t owner;         /* the client's: what it sent it for (a coordinator's
                               transaction, a leader's produce request) */
    uint32_t gen;           /* the client's connection generation at send */
    uint32_t refs;          /* holders: client, server path, response event */
    bool arrived;           /* its response reached the client */
} ks_request;

/* Does the request come from a client of transaction version 2 (KIP-890
 * part 2)? Such clients send Produce v12 and EndTxn v5. */
static inline bool ks_request_tv2(const ks_request *q)
{
    return (q->api == KS_API_PRODUCE && q->version >= 12) ||
           (q->api == KS_API_END_TXN && q->version >= 5);
}

/* FindCoordinator key types ([K] FindCoordinatorRequest.CoordinatorType). */
#define KS_COORD_GROUP 0
#define KS_COORD_TRANSACTION 1

/* Requests and entries live in fixed blocks of KS_REQ_BLOCK that never
 * move: a pointer from ks_req() or ks_req_entry() stays valid while the
 * pool grows (a handler may send a request while it holds the one it
 * answers). Only the small arrays of block pointers are reallocated. */
#define KS_REQ_BLOCK_SHIFT 6u
#define KS_REQ_BLOCK (1u << KS_REQ_BLOCK_SHIFT)

typedef struct ks_request_pool {
    void **req_blocks;      /* of ks_request */
    uint32_t cap;           /* requests in all blocks */
    uint32_t free_head;
    uint32_t live;
    void **entry_blocks;    /* of ks_req_batch */
    uint32_t entry_cap;
    uint32_t entry_free;
} ks_request_pool;

/* Request `id` of the pool (id < cap). */
static inline ks_request *ks_req(const ks_request_pool *p, uint32_t id)
{
    ks_request *block = p->req_blocks[id >> KS_REQ_BLOCK_SHIFT];
    return block + (id & (KS_REQ_BLOCK - 1u));
}

/* Entry `e` of the pool (e < entry_cap). */
static inline ks_req_batch *ks_req_entry(const ks_request_pool *p, uint32_t e)
{
    ks_req_batch *block = p->entry_blocks[e >> KS_REQ_BLOCK_SHIFT];
    return block + (e & (KS_REQ_BLOCK - 1u));
}

/* The error of an answered request: its own, or its first entry's that
 * has one (what a "response" trace line names). */
static inline ks_kerr ks_req_first_error(const ks_request_pool *p, const ks_request *q)
{
    ks_kerr err = q->error;
    for (uint32_t e = q->first; err == KS_KERR_NONE && e != KS_REQ_NONE;
         e = ks_req_entry(p, e)->next)
        err = ks_req_entry(p, e)->error;
    return err;
}

void ks_request_pool_init(ks_request_pool *p);
void ks_request_pool_free(ks_request_pool *p);
/* A zeroed request's index, or KS_REQ_NONE when memory ran out. */
uint32_t ks_request_alloc(ks_request_pool *p);
/* Who sends a request, to whom, on which connection, as what. */
typedef struct ks_request_head {
    ks_api api;
    uint16_t version;
    ks_node client, server;
    const char *client_id;
    uint32_t conn;
    uint64_t correlation_id;
} ks_request_head;
/* A request of a client that expects an answer (no producer id, nothing
 * after it): ks_request_alloc with the head's fields set; KS_REQ_NONE
 * when memory ran out. */
uint32_t ks_request_open(ks_request_pool *p, const ks_request_head *h);
/* Adds an entry to request `id` (at the end). Returns the entry's index,
 * or KS_REQ_NONE when memory ran out. */
uint32_t ks_request_add_batch(ks_request_pool *p, uint32_t id, uint32_t *last);
/* The trace field that names a message's client: "producer" or
 * "consumer" (its id), or "client" (a broker as a client: "broker<N>",
 * or a node of another kind: its name). */
void ks_request_trace_client(ks_trace *tr, const ks_nodes *nodes, const ks_request *q);
/* Releases a request and its entries. */
void ks_request_release(ks_request_pool *p, uint32_t id);
/* Drops one holder; releases the request when none is left. */
void ks_request_unref(ks_request_pool *p, uint32_t id);

#endif
