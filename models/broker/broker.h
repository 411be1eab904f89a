/*
 * broker.h - a broker: an actor that owns its replicas' logs and
 * producer state, the coordinators of the internal partitions it leads,
 * its side of every connection to it, and its requests as a client.
 *
 * Owns (ks_broker): its request handler threads (num.io.threads), the
 * per-connection request queues, its image of the cluster's metadata
 * (models/kafka/metadata.h), the replicas of the partitions it leads
 * (their logs, end offsets and idempotent-producer state), the
 * transaction coordinator (coordinator.h) and group coordinator
 * (groups.h) of the __transaction_state and __consumer_offsets
 * partitions it leads, its block of producer ids, the fetches waiting
 * for data (fetch.h), and its connections as a client of other brokers.
 * Like Kafka, a broker handles one request per connection at a time, in
 * arrival order, and takes the connection's next request only once the
 * response to the previous one is written, so responses on a connection
 * leave in request order. Handling a request costs brokers.cost.request.us
 * plus brokers.cost.byte.ns per byte; when every thread is busy,
 * connections with requests wait their turn (first come, first served).
 *
 * A broker learns of the rest of the cluster only from messages and from
 * the metadata images it is given (ks_broker_metadata: what a KRaft
 * broker learns from the metadata log). Its producer ids come from a
 * block of producer.id.block.size ids the controller handed it before
 * the run (broker b: block b, then b + brokers, ...).
 *
 * Never: reads another node's state; the world calls its operations
 * (ks_broker_ops) with its own state only.
 */
#ifndef KS_BROKER_H
#define KS_BROKER_H

#include "models/broker/coordinator.h"
#include "models/broker/fetch.h"
#include "models/broker/groups.h"
#include "models/broker/io.h"
#include "models/broker/produce.h"
#include "models/broker/replicas.h"
#include "models/ctx.h"
#include "models/kafka/metadata.h"
#include "models/net/faults.h"
#include "models/net/node.h"
#include "models/scenario.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ks_broker {
    uint32_t index;          /* its broker id, and node id */
    ks_bio io;               /* connections, threads, its own requests */
    ks_meta meta;            /* its image of the cluster */
    ks_replicas replicas;    /* the partitions it leads */
    ks_leader leader;        /* Produce and WriteTxnMarkers */
    ks_fetches fetches;      /* Fetch, ListOffsets and the fetch purgatory */
    ks_coordinators coord;   /* transaction coordinator */
    ks_groups groups;        /* group coordinator */
} ks_broker;

/* The broker node's operations (models/net/node.h). */
extern const ks_node_ops ks_broker_ops;

/* Broker `index` of the scenario, its replicas keeping their batches
 * when `logged`, starting with the cluster's metadata image `meta`
 * (copied): it creates the replicas of the partitions it leads. append
 * errors come from `faults` (a fault injected at the leader). False when
 * out of memory. b must not move afterwards (its roles point into it). */
bool ks_broker_init(ks_broker *b, const ks_scenario *sc, uint32_t index, const ks_meta *meta,
                    bool logged, ks_faults *faults);
/* Frees what b holds (not b itself). */
void ks_broker_free(ks_broker *b);
/* The cluster's metadata changed (partitions were added): the broker's
 * image becomes a copy of `meta`, and it creates the replicas of the new
 * partitions it leads. False when out of memory. */
bool ks_broker_metadata(ks_broker *b, const ks_meta *meta);

/* The handler of one API at a broker: true when the response is to be
 * written now, false when the handler answers later (ks_bio_respond). */
typedef bool ks_broker_handler(ks_broker *b, ks_ctx *cx, uint32_t req);

/* The replica of partition `partition` here, or NULL. */
static inline const ks_replica *ks_broker_replica(const ks_broker *b, uint32_t partition)
{
    return ks_replicas_of(&b->replicas, partition);
}
/* Handler time up to now, including requests still being handled. */
ks_time ks_broker_busy_ns(const ks_broker *b, ks_time now);

#endif
