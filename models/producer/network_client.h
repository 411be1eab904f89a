/*
 * network_client.h - the producer's NetworkClient: one connection per
 * broker, the requests in flight on it, and the producer's metadata
 * ([K] clients/.../clients/NetworkClient.java, InFlightRequests.java,
 * Metadata.java).
 *
 * Owns: per broker the connection, its generation (+1 when it closes),
 * its in-flight requests oldest first, the reconnect backoff
 * (reconnect.backoff.ms) and the request.timeout.ms timer of the oldest
 * request; the partitions each broker leads; the request header and the
 * API version of each request; handing requests to the network and the
 * answers back, in request order per connection; Metadata requests
 * (metadata.max.age.ms) and what they teach about new partitions.
 * A closed connection fails its requests oldest first: the Sender's
 * batches go back to it (ks_prod_sender_fail_request), the
 * TransactionManager's requests are retried (ks_prod_tm_request_lost).
 *
 * Never: decides what a request carries or what an answer means; the
 * Sender and the TransactionManager do.
 */
#ifndef KS_PRODUCER_NETWORK_CLIENT_H
#define KS_PRODUCER_NETWORK_CLIENT_H

#include "models/ctx.h"
#include "models/kafka/metadata.h"
#include "models/kafka/errors.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

struct ks_producer;
struct ks_request;

/* Per broker, as this producer sees it. */
typedef struct ks_prod_node {
    uint32_t conn;          /* connection id */
    uint32_t in_flight;     /* requests without a response */
    uint32_t fifo_head, fifo_tail; /* those requests, oldest first (ks_request.pnext) */
    uint32_t gen;           /* connection generation: +1 when it closes */
    ks_time ready_at_ns;    /* reconnecting until then */
    ks_handle timeout_timer;/* request.timeout.ms of the oldest request */
    ks_time ready_ns;       /* last time it had data ready (KIP-794 stats) */
    ks_time drain_ns;       /* last time it could be drained */
} ks_prod_node;

/* Connects to every broker and learns the partitions' leaders. Arrays
 * are sized for every partition the topic will ever have, so a metadata
 * refresh that finds new partitions only changes counts. False when out
 * of memory. */
bool ks_prod_net_init(struct ks_producer *p, ks_ctx *cx, const ks_meta *meta);
void ks_prod_net_free(struct ks_producer *p);
/* Schedules the next metadata refresh, if an admin operation on the
 * producer's topic is still to come. */
void ks_prod_net_schedule_metadata(struct ks_producer *p, ks_ctx *cx);
/* The least loaded broker whose connection can take a request now, or
 * UINT32_MAX (then *next says when to look again). */
uint32_t ks_prod_net_least_loaded(const struct ks_producer *p, const ks_ctx *cx,
                                  ks_time now, ks_time *next);
/* A new request of `api` to `broker`: addressed, numbered per API from
 * 1, answered (expects_response), of no producer id until the caller
 * says otherwise; KS_REQ_NONE when out of memory (the run stops). */
uint32_t ks_prod_net_new_request(struct ks_producer *p, ks_ctx *cx, ks_api api,
                                 uint32_t broker);
/* The request header and routing of q, to `broker`. */
void ks_prod_net_address(struct ks_producer *p, ks_ctx *cx, struct ks_request *q,
                         uint32_t broker);
/* Request `id` is built: it leaves on the wire and, when an answer is
 * expected, joins the connection's in-flight list. *sent_out: when its
 * last byte left. */
void ks_prod_net_launch(struct ks_producer *p, ks_ctx *cx, uint32_t broker, uint32_t id,
                        ks_time now, ks_time *sent_out);

#endif
