/*
 * consumer.h - consumer clients: the application's poll loop over
 * KafkaConsumer, which talks to the brokers only in messages.
 *
 * Owns: one consumer's positions (the next offset to hand to the
 * application, per assigned partition), its fetch positions (the next
 * offset to fetch), the records fetched and not yet returned, what it
 * knows of its group's committed offsets, and its requests in flight.
 * Follows [K] KafkaConsumer, ConsumerCoordinator and Fetcher:
 *   start    FindCoordinator (key type GROUP) to any broker, then
 *            OffsetFetch to the group coordinator (require_stable for
 *            read_committed consumers, KIP-447: UNSTABLE_OFFSET_COMMIT is
 *            retried after retry.backoff.ms); partitions without a
 *            committed offset are reset with ListOffsets to their leaders
 *            (auto.offset.reset: earliest, or latest as Kafka defaults);
 *   poll     poll() returns up to max.poll.records records already
 *            fetched; it sends a Fetch to each leader with fetchable
 *            partitions (none in flight to it, none buffered), and when
 *            it has nothing to return it waits for their answers; a
 *            leader with nothing to give holds the fetch up to
 *            fetch.max.wait.ms (models/broker/fetch.h);
 *   deliver  the records poll() returns ("consume" trace records) are
 *            processed one by one (process.us each), each forwarded to
 *            the forward producer (forward.to) when done; then the
 *            application commits: "sync" sends an OffsetCommit of the
 *            positions and waits for the answer; "transaction" hands the
 *            positions to the forward producer (sendOffsetsToTransaction:
 *            AddOffsetsToTxn and TxnOffsetCommit travel in its
 *            transaction) and waits for commitTransaction; "none"
 *            commits nothing. It polls again poll.interval.ms later.
 * Its metadata (which broker leads each partition) is the cluster's at
 * the start, as for a client that has bootstrapped.
 * crash.consumer (a fault) stops the process: what it had fetched or sent
 * is gone; a restart is a new instance that starts over from the group's
 * committed offsets, so what was read but not committed is read again.
 *
 * Never: reads a log, the coordinator's state or a producer's state; it
 * hands records and offsets to its own application's producer only
 * (ks_producer_forward, ks_producer_send_offsets).
 */
#ifndef KS_CONSUMER_H
#define KS_CONSUMER_H

#include "models/kafka/records.h"
#include "models/ctx.h"
#include "models/kafka/metadata.h"
#include "models/events.h"
#include "models/net/client.h"
#include "models/net/node.h"
#include "models/scenario.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>


/* Where a consumer is in its start-up. */
typedef enum ks_consumer_phase {
    KS_CONS_IDLE,          /* not started, or dead */
    KS_CONS_COORDINATOR,   /* FindCoordinator in flight */
    KS_CONS_OFFSETS,       /* OffsetFetch in flight */
    KS_CONS_RESET,         /* ListOffsets in flight */
    KS_CONS_POLLING        /* the poll loop */
} ks_consumer_phase;

/* The application that owns a consumer that forwards what it reads
 * (models/app/app.h): it hands each record processed, and the positions
 * of a poll to commit in a transaction, to the producer `producer`. */
typedef struct ks_cons_app {
    void *app;
    void (*forward)(void *app, ks_ctx *cx, int32_t producer, uint64_t record, uint32_t consumer);
    void (*send_offsets)(void *app, ks_ctx *cx, int32_t producer, uint32_t consumer,
                         const uint32_t *parts, const int64_t *offsets, uint32_t n);
} ks_cons_app;

typedef struct ks_consumer {
    uint32_t index;
    ks_node node;
    uint32_t brokers;          /* brokers 0 .. brokers-1 (its bootstrap) */
    ks_cons_app app;           /* its application (forward.to) */
    const ks_consumer_conf *conf;
    ks_consumer_phase phase;
    uint32_t nparts;
    uint32_t *parts;           /* world partition indices it reads */
    uint32_t first_partition;  /* the world index of its topic's partition 0 */
    uint32_t topic_partitions; /* ... and how many the topic may have */
    uint32_t *part_index;      /* per partition of the topic: its part, or
                                  UINT32_MAX when not read */
    uint32_t *leader;          /* per part: its leader's broker */
    int64_t *position;         /* per part: next offset to hand to the application */
    int64_t *fetch_pos;        /* per part: next offset to fetch */
    int64_t *committed;        /* per part: the group's committed offset as the
                                  client knows it, -1 none */
    int64_t *pending_commit;   /* per part: the offsets of the last commit sent */
    uint32_t *buffered;        /* per part: records fetched, not yet returned */
    bool *fetching;            /* per part: in a fetch in flight */
    bool *needs_reset;         /* per part: no committed offset (ListOffsets) */
    int64_t *initial;          /* per part: where this instance started */
    uint32_t seeks;            /* the application sought back this often */
    uint32_t next_part;        /* round robin of the parts over fetches */
    ks_fetched *buf;           /* records fetched, not yet returned, in order */
    uint32_t *buf_part;        /* ... and the part (index into parts) of each */
    uint32_t buf_head, nbuf, buf_cap;
    ks_fetched *cur;           /* the records the last poll() returned */
    uint32_t *cur_part;
    uint32_t ncur, cur_cap, cursor; /* ... and how many are processed */
    ks_client_conn *cc;        /* per broker and channel (broker * KS_CHAN__COUNT +
                                  channel): its connection and requests in flight */
    uint32_t ncc;
    uint32_t *fetch_req;       /* per broker: its fetch in flight, KS_REQ_NONE */
    uint32_t coordinator;      /* its group coordinator's broker */
    bool waiting;              /* the application waits in poll() for a fetch */
    bool processing;           /* the application works on a poll's records */
    bool txn_waiting;          /* commit "transaction": waits for commitTransaction */
    bool alive;
    uint32_t generation;       /* +1 at every crash: older events are ignored */
    int32_t forward_to;        /* producer index, or -1 */
    int32_t restart_forward_to;/* the restarted instance's producer, -1: forward_to */
    uint64_t api_requests[KS_API__COUNT]; /* requests sent, per API */
    /* its view of the cluster (consumer_net.c): the leaders above, from
     * the bootstrap and the Metadata answers since */
    bool md_in_flight, md_need; /* a Metadata request out; a refresh asked for */
    ks_time md_last_ns;        /* the last refresh (or the instance's start) */
    ks_handle md_timer;        /* the next refresh, KS_HANDLE_NONE */
    ks_time md_at;
    /* results */
    uint64_t polls, records, commits, crashes, restarts;
} ks_consumer;

/* The consumer node's operations (models/net/node.h). */
extern const ks_node_ops ks_consumer_ops;

/* Consumer `index` of the scenario, bootstrapped with the cluster's
 * metadata `bootstrap` (the leaders of its partitions). False when out
 * of memory. */
bool ks_consumer_init(ks_consumer *c, ks_ctx *cx, uint32_t index, const ks_meta *bootstrap);
void ks_consumer_free(ks_consumer *c);
/* The answer to request `req` reached the consumer. */
void ks_consumer_on_response(ks_consumer *c, ks_ctx *cx, uint32_t req);
/* commit "transaction": the application's commitTransaction returned:
 * the positions it sent are the group's committed offsets; it polls
 * again. */
void ks_consumer_txn_committed(ks_consumer *c, ks_ctx *cx, const int64_t *offsets);
/* ... or the transaction aborted: it seeks back to the committed offsets
 * and reads again. */
void ks_consumer_txn_aborted(ks_consumer *c, ks_ctx *cx);

/* Tags of KS_EV_CONSUMER events (owner = consumer, arg = generation
 * unless said otherwise). */
#define KS_CONSUMER_POLL 1u
#define KS_CONSUMER_START 2u
#define KS_CONSUMER_PROCESSED 6u  /* the application processed a record */
#define KS_CONSUMER_RETRY 7u      /* retry.backoff.ms after UNSTABLE_OFFSET_COMMIT */
#define KS_CONSUMER_TIMEOUT 8u    /* request.timeout.ms of a connection's oldest
                                     request (arg: the connection: broker *
                                     KS_CHAN__COUNT + channel) */
#define KS_CONSUMER_METADATA 9u   /* a metadata refresh is due (consumer_net.c) */

#endif
