/*
 * node.h - the nodes of a simulated cluster and how they are numbered.
 *
 * Owns: node ids. Every process that sends or receives Kafka messages is
 * a node: the brokers first (node b is broker b, as Kafka's node.id),
 * then the producer clients, then the consumer clients, each in scenario
 * order. A message names its sender and receiver by node id; a
 * connection joins two nodes (models/net/network.h).
 */
#ifndef KS_NODE_H
#define KS_NODE_H

#include <assert.h>
#include <stdint.h>

typedef uint32_t ks_node;
#define KS_NODE_NONE UINT32_MAX

typedef enum ks_node_kind { KS_NODE_BROKER, KS_NODE_PRODUCER, KS_NODE_CONSUMER } ks_node_kind;

typedef struct ks_nodes {
    uint32_t brokers, producers, consumers;
} ks_nodes;

static inline uint32_t ks_nodes_count(const ks_nodes *n)
{
    return n->brokers + n->producers + n->consumers;
}

static inline ks_node ks_node_broker(const ks_nodes *n, uint32_t b)
{
    assert(b < n->brokers);
    (void)n;
    return b;
}

static inline ks_node ks_node_producer(const ks_nodes *n, uint32_t p)
{
    assert(p < n->producers);
    return n->brokers + p;
}

static inline ks_node ks_node_consumer(const ks_nodes *n, uint32_t c)
{
    assert(c < n->consumers);
    return n->brokers + n->producers + c;
}

static inline ks_node_kind ks_node_kind_of(const ks_nodes *n, ks_node id)
{
    assert(id < ks_nodes_count(n));
    return id < n->brokers                  ? KS_NODE_BROKER
           : id < n->brokers + n->producers ? KS_NODE_PRODUCER
                                            : KS_NODE_CONSUMER;
}

/* The node's index among those of its kind. */
static inline uint32_t ks_node_index(const ks_nodes *n, ks_node id)
{
    switch (ks_node_kind_of(n, id)) {
    case KS_NODE_BROKER:
        return id;
    case KS_NODE_PRODUCER:
        return id - n->brokers;
    case KS_NODE_CONSUMER:
        break;
    }
    return id - n->brokers - n->producers;
}

#endif
