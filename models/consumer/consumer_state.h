/*
 * consumer_state.h - a consumer's state: the struct that consumer.c and
 * consumer_net.c both work on, its start-up phases and the tags of its
 * events (consumer-internal; the node's interface is consumer.h).
 *
 * Owns: those types, and nothing else; header-only.
 */
#ifndef KS_CONSUMER_STATE_H
#define KS_CONSUMER_STATE_H

#include "models/ctx.h"
#include "models/events.h"
#include "models/kafka/records.h"
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
