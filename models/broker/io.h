/*
 * io.h - a broker's request handling machinery: its side of every
 * connection to it, its request handler threads, writing responses, and
 * its own requests as a client of other brokers.
 *
 * Owns (ks_bio): per connection (by connection id) the queue of requests
 * that arrived on it and whether it is muted; the connections waiting
 * for a handler thread; the threads (num.io.threads) and what they cost
 * (brokers.cost: request.us, batch.us, byte.ns, idempotent.batch.us, a
 * compressed batch's decompression); per broker it sends to, its client
 * side of the connection (models/net/client.h) with request.timeout.ms.
 * Follows [K] core/.../network/SocketServer.scala: a channel is muted
 * while one of its requests is handled and until its response is sent,
 * which keeps responses on a connection in request order; and
 * KafkaRequestHandlerPool: requests wait for a free thread, first come,
 * first served.
 *
 * A request's life here: ks_bio_arrived queues it ("arrive" line); when
 * a thread takes it, a KS_EV_APPEND event is due after its handling cost,
 * and the broker hands it to its role's handler; ks_bio_handled frees
 * the thread; ks_bio_respond writes the answer (a KS_EV_RESPONDED event
 * when its last byte has left), after which ks_bio_responded lets the
 * connection's next request in.
 *
 * Never: decides what a request means; the roles (produce.c, fetch.c,
 * coordinator.c, groups.c) do.
 */
#ifndef KS_BROKER_IO_H
#define KS_BROKER_IO_H

#include "models/ctx.h"
#include "models/net/client.h"
#include "models/scenario.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

/* Tags of a broker's own KS_EV_BROKER events (owner: the broker). */
#define KS_BROKER_FETCH_TIMEOUT 2u  /* a waiting fetch's fetch.max.wait.ms (arg: it) */
#define KS_BROKER_CLIENT_TIMEOUT 3u /* request.timeout.ms of its oldest request to a
                                       broker (arg: that broker) */

typedef struct ks_bio_conn {
    uint32_t q_head, q_tail; /* queued request ids */
    bool serving;            /* muted: a request of it is handled, or its
                                response is not yet written */
    bool handling;           /* a handler thread works on its request */
    bool waiting;            /* in the broker's queue for a thread */
    ks_time handle_start_ns;
    uint32_t next_waiting;
} ks_bio_conn;

typedef struct ks_bio {
    uint32_t broker;               /* its broker id (and node id) */
    const ks_broker_cost *cost;
    ks_time client_timeout_ns;     /* request.timeout.ms of its own requests */
    uint32_t threads;
    uint32_t busy_threads;
    uint32_t wait_head, wait_tail; /* connections waiting for a thread */
    ks_bio_conn *conns;            /* by connection id */
    uint32_t conn_cap;
    uint32_t queued;
    uint32_t queue_len_max;        /* most requests queued at once */
    uint64_t requests;
    uint64_t bytes_in;
    ks_time busy_ns;               /* handling time of finished requests,
                                      summed over threads */
    uint64_t api_requests[KS_API__COUNT]; /* requests it sent as a client, per API */
    ks_client_conn *out;           /* per broker it sends to */
    uint32_t nout;
} ks_bio;

/* Broker `broker`'s machinery, of `brokers` brokers. False when out of
 * memory. */
bool ks_bio_init(ks_bio *io, const ks_scenario *sc, uint32_t broker, uint32_t brokers);
void ks_bio_free(ks_bio *io);

/* Request `id` arrived (KS_EV_ARRIVE): it waits in its connection's
 * queue, for the connection and then for a thread. */
void ks_bio_arrived(ks_bio *io, ks_ctx *cx, uint32_t id);
/* Its handler is done with request `id` (KS_EV_APPEND): the thread is
 * free; the connection stays muted until the response is written (or,
 * with acks=0 or `later`, until ks_bio_respond or ks_bio_responded). */
void ks_bio_handled(ks_bio *io, ks_ctx *cx, uint32_t id, bool later);
/* Writes the response to request `id` now (after the broker's
 * response.delay): a KS_EV_RESPONDED event when it has left. */
void ks_bio_respond(ks_bio *io, ks_ctx *cx, uint32_t id);
/* The response on connection `conn` is written (KS_EV_RESPONDED; `id`
 * KS_REQ_NONE for an acks=0 request that has none): the connection
 * takes its next request. */
void ks_bio_responded(ks_bio *io, ks_ctx *cx, uint32_t conn, uint32_t id);
/* Handler time up to `now`, including requests still being handled. */
ks_time ks_bio_busy_ns(const ks_bio *io, ks_time now);

/* The broker as a client: a new request of `api` to broker `to`,
 * numbered per API from 1; KS_REQ_NONE when out of memory (the run is
 * stopped). */
uint32_t ks_bio_new_request(ks_bio *io, ks_ctx *cx, uint32_t to, ks_api api, uint16_t version);
/* Sends it now; its answer comes to ks_bio_answer. */
void ks_bio_send(ks_bio *io, ks_ctx *cx, uint32_t id);
/* The answer to request `id` reached the broker: true when it is one the
 * broker waits for (it is then on its connection's list of answers to
 * take, in request order, with ks_bio_take_answered), false when it is
 * to be ignored (its request was given up). The event's hold on `id` is
 * released either way. */
bool ks_bio_answer(ks_bio *io, ks_ctx *cx, uint32_t id);
/* The oldest answered request to broker `to`, taken, or KS_REQ_NONE; the
 * caller handles it and releases it (ks_request_unref), then, when none
 * is left, calls ks_bio_rearm. */
uint32_t ks_bio_take_answered(ks_bio *io, uint32_t to);
void ks_bio_rearm(ks_bio *io, ks_ctx *cx, uint32_t to);
/* request.timeout.ms of its oldest request to broker `to` ran out
 * (KS_EV_BROKER, KS_BROKER_CLIENT_TIMEOUT): returns how many requests
 * are given up (0: none was late); the connection is closed and opened
 * again, and the caller takes each with ks_bio_take_given_up, handles
 * and releases it. */
uint32_t ks_bio_client_timeout(ks_bio *io, ks_ctx *cx, uint32_t to);
uint32_t ks_bio_take_given_up(ks_bio *io, uint32_t to);
/* A paused broker's client timer moved to `at` under handle h. */
void ks_bio_rehandle(ks_bio *io, uint32_t to, ks_handle h, ks_time at);

#endif
