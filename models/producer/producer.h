/*
 * producer.h - one producer client as a node: its operations, its
 * constructor, and what the rest of ksim asks of it (the application
 * that owns it hands it records and offsets; the summary reads its
 * state, models/producer/prod.h).
 *
 * Owns: one producer's records from send() to their outcome; its
 * modules (prod.h lists them, and the order in which they call one
 * another) keep its state in one struct, ks_producer.
 *
 * Never: reads a broker's state or a log; it learns what happened from
 * its requests' answers only.
 */
#ifndef KS_PRODUCER_H
#define KS_PRODUCER_H

#include "models/ctx.h"
#include "models/kafka/metadata.h"
#include "models/net/node.h"
#include "models/producer/prod.h"
#include "models/producer/send.h"
#include "models/producer/txn_manager.h"

#include <stdint.h>

/* The producer node's operations (models/net/node.h). */
extern const ks_node_ops ks_producer_ops;

/* Producer `index` of the scenario, bootstrapped with the cluster's
 * metadata `bootstrap` (what its first Metadata answer told it: the
 * leaders of its topic's partitions). False when out of memory. */
bool ks_producer_init(ks_producer *p, ks_ctx *cx, uint32_t index, const ks_meta *bootstrap);
void ks_producer_free(ks_producer *p);

/* The keyless partitioner a producer uses: the scenario's choice, or the
 * built-in one of its Kafka version (round_robin before 2.4, sticky
 * 2.4-3.2, uniform_sticky from 3.3). */
ks_partitioner_kind ks_producer_partitioner(const ks_producer_conf *pc, ks_kafka_version v);

#endif
