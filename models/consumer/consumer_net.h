/*
 * consumer_net.h - a consumer's side of the network (consumer-internal):
 * its requests, the connections they travel on with their
 * request.timeout.ms, and its view of the cluster, kept fresh by Metadata
 * requests as Kafka's NetworkClient keeps it ([K] clients/.../
 * NetworkClient.java, Metadata.java).
 *
 * Owns: building and sending a consumer's requests (numbered per API
 * from 1), which connection each takes, the least-loaded broker, and the
 * metadata refresh: a Metadata request every metadata.max.age.ms, and
 * soon after the consumer learnt that what it knows is stale (a
 * disconnect, a request timeout, an invalid-metadata error), never
 * sooner than retry.backoff.ms after the last refresh
 * (Metadata.timeToNextUpdate). The answer's leaders are what the
 * consumer fetches from from then on.
 *
 * Never: decides what an answer to another API means (consumer.c).
 */
#ifndef KS_CONSUMER_NET_H
#define KS_CONSUMER_NET_H

#include "models/consumer/consumer_state.h"

/* [K] ConsumerConfig defaults the model uses without a scenario key. */
#define KS_CONS_REQUEST_TIMEOUT_NS (30000 * KS_NS_PER_MS)    /* request.timeout.ms */
#define KS_CONS_METADATA_MAX_AGE_NS (300000 * KS_NS_PER_MS)  /* metadata.max.age.ms */
#define KS_CONS_RETRY_BACKOFF_NS (100 * KS_NS_PER_MS)        /* retry.backoff.ms */

/* The connection a request of `api` to `broker` travels on: the group
 * coordinator's requests have one of their own. */
uint32_t ks_cons_slot_of(ks_api api, uint32_t broker);
/* Its request.timeout.ms timer: a consumer event of the connection. */
ks_event ks_cons_timeout_timer(const ks_consumer *c, uint32_t slot);
/* A new request of `api` to `broker`; KS_REQ_NONE (the run stopped) when
 * out of memory. */
uint32_t ks_cons_new_request(ks_consumer *c, ks_ctx *cx, ks_api api, uint32_t broker,
                             uint16_t version);
/* One more partition entry of request id, after *last. */
bool ks_cons_add_part(ks_ctx *cx, uint32_t id, uint32_t *last, uint32_t partition, int64_t off);
/* The request leaves. */
void ks_cons_send(ks_consumer *c, ks_ctx *cx, uint32_t id);
/* A "disconnect" trace line: the request timeout of connection `slot`
 * closed it, with n requests in flight. */
void ks_cons_trace_disconnect(const ks_consumer *c, ks_ctx *cx, uint32_t slot, uint32_t n);
/* The broker for a request any broker can answer. */
uint32_t ks_cons_any_broker(const ks_consumer *c);

/* An instance starts with the bootstrapped metadata: the refresh clock
 * starts now. */
void ks_cons_md_start(ks_consumer *c, ks_ctx *cx);
/* What the consumer knows may be stale: a refresh is due soon. */
void ks_cons_md_stale(ks_consumer *c, ks_ctx *cx);
/* The refresh timer (KS_CONSUMER_METADATA) is due. */
void ks_cons_md_due(ks_consumer *c, ks_ctx *cx);
/* The MetadataResponse came. */
void ks_cons_md_answered(ks_consumer *c, ks_ctx *cx, const ks_request *q);
/* The Metadata request was given up (its connection closed). */
void ks_cons_md_given_up(ks_consumer *c, ks_ctx *cx);

#endif
