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
#include "models/producer/prod.h"
#include "models/kafka/metadata.h"
#include "models/kafka/errors.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

struct ks_producer;
struct ks_request;



/* Connects to every broker and learns the partitions' leaders. Arrays
 * are sized for every partition the topic will ever have, so a metadata
 * refresh that finds new partitions only changes counts. False when out
 * of memory. */
bool ks_prod_net_init(struct ks_producer *p, ks_ctx *cx, const ks_meta *meta);
void ks_prod_net_free(struct ks_producer *p);
/* Schedules the next metadata refresh: metadata.max.age.ms after the
 * last, or sooner once one is asked for. */
void ks_prod_net_schedule_metadata(struct ks_producer *p, ks_ctx *cx);
/* The metadata is stale (an error said so, a connection closed): a
 * refresh as soon as retry.backoff.ms since the last allows
 * ([K] Metadata.requestUpdate). */
void ks_prod_net_request_metadata(struct ks_producer *p, ks_ctx *cx);
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

/* Its events: metadata.max.age.ms passed; request.timeout.ms of the
 * oldest request to a broker; the answer to request `req` arrived. */
void ks_producer_on_metadata(struct ks_producer *p, ks_ctx *cx);
void ks_producer_on_request_timeout(struct ks_producer *p, ks_ctx *cx, uint32_t broker);
void ks_producer_on_response(struct ks_producer *p, ks_ctx *cx, uint32_t req);
/* Its connections close with its process: nothing it had in flight is
 * waited for any more. */
void ks_prod_net_crash(struct ks_producer *p, ks_ctx *cx);

#endif
