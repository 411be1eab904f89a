/*
 * broker.h - brokers: request handling and partition logs.
 *
 * Owns: each broker's request handler threads (num.io.threads), the
 * per-connection request queues and the partition logs' end offsets.
 * Like Kafka, a broker handles one request per connection at a time, in
 * arrival order, and takes the connection's next request only once the
 * response to the previous one is written, so responses on a connection
 * leave in request order.
 * Handling a request costs brokers.cost.request.us plus
 * brokers.cost.byte.ns per byte; when every thread is busy, connections
 * with requests wait their turn (first come, first served).
 */
#ifndef KS_BROKER_H
#define KS_BROKER_H

#include "models/broker/plog.h"
#include "models/broker/producer_state.h"
#include "models/net/client.h"
#include "models/scenario.h"
#include "models/events.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

struct ks_world;

typedef struct ks_partition {
    uint32_t topic;
    uint32_t index;          /* partition number within the topic */
    uint32_t leader;         /* broker index */
    bool exists;             /* created (admin operations add partitions) */
    bool logged;             /* its batches are kept (consumers or transactions) */
    int64_t log_end_offset;
    ks_producer_state ps;    /* idempotent producers' state at the leader */
    ks_plog *log;            /* ... kept here when logged (else NULL) */
    uint64_t records;        /* data records appended */
    uint64_t batches;
} ks_partition;

typedef struct ks_broker_conn {
    uint32_t q_head, q_tail; /* queued request ids */
    bool serving;            /* muted: a request of it is handled, or its
                                response is not yet written */
    bool handling;           /* a handler thread works on its request */
    bool waiting;            /* in the broker's queue for a thread */
    ks_time handle_start_ns;
    uint32_t next_waiting;
} ks_broker_conn;

typedef struct ks_broker {
    uint32_t index;
    uint32_t threads;
    uint32_t busy_threads;
    uint32_t wait_head, wait_tail; /* connections waiting for a thread */
    uint64_t requests;
    uint64_t records;              /* appended */
    uint64_t too_large;            /* batches refused with MESSAGE_TOO_LARGE */
    uint64_t bytes_in;
    ks_time busy_ns;               /* handling time of finished requests,
                                      summed over threads */
    uint32_t queue_len_max;        /* most requests queued at once */
    uint64_t api_requests[KS_API__COUNT]; /* requests it sent as a client, per API */
    ks_client_conn *out;           /* the broker as a client: per broker it sends to */
    uint32_t nout;
    uint32_t *parked;              /* fetches waiting for data (models/broker/fetch.h) */
    uint32_t nparked, parked_cap;
    uint32_t queued;
} ks_broker;

/* Frees what b holds (not b itself). */
void ks_broker_free(ks_broker *b);

/* The handler of one API at a broker: true when the response is to be
 * written now, false when the handler answers later (ks_broker_respond). */
typedef bool ks_broker_handler(struct ks_world *w, uint32_t broker, uint32_t req);

/* Request handlers. `req` is a request pool index. */
void ks_broker_on_arrive(struct ks_world *w, uint32_t broker, uint32_t req);
void ks_broker_on_append(struct ks_world *w, uint32_t broker, uint32_t req);
/* The response to `req` is written (req KS_REQ_NONE: acks=0, none). */
void ks_broker_on_responded(struct ks_world *w, uint32_t broker, uint32_t conn, uint32_t req);
/* Writes the response to request `req` now (the coordinator answers
 * some requests after its log write). */
void ks_broker_respond(struct ks_world *w, uint32_t broker, uint32_t req);
/* The broker as a client of another broker (markers, verification): a new
 * request of `api` from broker `from` to broker `to`, numbered per API
 * from 1; KS_REQ_NONE when out of memory (the run is stopped). */
uint32_t ks_broker_new_request(struct ks_world *w, uint32_t from, uint32_t to, ks_api api,
                               uint16_t version);
/* Sends it now. Whether it gets there the broker learns from its answer
 * or from its own request.timeout.ms (brokers' request.timeout.ms): then
 * the connection closes and every request on it is given up (markers go
 * again; a verification fails its produce request with a retriable
 * error), as NetworkClient does. */
void ks_broker_send(struct ks_world *w, uint32_t from, uint32_t id);
/* KS_EV_BROKER events: a broker's own timers. */
void ks_broker_on_event(struct ks_world *w, uint32_t broker, uint32_t tag, uint64_t arg);
#define KS_BROKER_FETCH_TIMEOUT 2u  /* a waiting fetch's fetch.max.wait.ms (arg: it) */
#define KS_BROKER_CLIENT_TIMEOUT 3u /* request.timeout.ms of its oldest request to a
                                       broker (arg: that broker) */
/* The answer to a request the broker sent reached it. */
void ks_broker_on_response(struct ks_world *w, uint32_t broker, uint32_t id);
/* Handler time up to now, including requests still being handled. */
ks_time ks_broker_busy_ns(const struct ks_world *w, uint32_t broker);

#endif
