/*
 * node.h - the nodes of a simulated cluster: how they are numbered, and
 * the operations every node kind has.
 *
 * Owns: node ids and the node operations table. Every process that sends
 * or receives Kafka messages is a node: the brokers first (node b is
 * broker b, as Kafka's node.id), then the producer clients, then the
 * consumer clients, each in scenario order. A message names its sender
 * and receiver by node id; a connection joins two nodes
 * (models/net/network.h).
 *
 * A node is an actor: private state that no other node reads or writes,
 * and a table of operations the world calls with that state and the
 * narrow context (models/ctx.h). The world routes by node id: a message
 * that arrives goes to on_message, an event the node scheduled for
 * itself (owner: its id) to on_timer; faults act through crash, restart,
 * pause and resume. A node kind is its operations, its scenario section
 * and its docs.
 */
#ifndef KS_NODE_H
#define KS_NODE_H

#include "sim/sim.h"

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

typedef uint32_t ks_node;
#define KS_NODE_NONE UINT32_MAX

/* KS_NODE_OTHER: a node of a kind the scenario does not build, given to
 * the world by its caller (ks_world_create_with; tests plug a node kind
 * in this way), numbered after the consumers. */
typedef enum ks_node_kind {
    KS_NODE_BROKER,
    KS_NODE_PRODUCER,
    KS_NODE_CONSUMER,
    KS_NODE_OTHER
} ks_node_kind;

typedef struct ks_nodes {
    uint32_t brokers, producers, consumers, others;
    /* per node id: the trace field that names it as a client (its
     * operations' client_key); NULL until the world has built the nodes */
    const char *const *client_keys;
} ks_nodes;

static inline uint32_t ks_nodes_count(const ks_nodes *n)
{
    return n->brokers + n->producers + n->consumers + n->others;
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

static inline ks_node ks_node_other(const ks_nodes *n, uint32_t i)
{
    assert(i < n->others);
    return n->brokers + n->producers + n->consumers + i;
}

static inline ks_node_kind ks_node_kind_of(const ks_nodes *n, ks_node id)
{
    assert(id < ks_nodes_count(n));
    return id < n->brokers                                  ? KS_NODE_BROKER
           : id < n->brokers + n->producers                 ? KS_NODE_PRODUCER
           : id < n->brokers + n->producers + n->consumers ? KS_NODE_CONSUMER
                                                            : KS_NODE_OTHER;
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
        return id - n->brokers - n->producers;
    case KS_NODE_OTHER:
        break;
    }
    return id - n->brokers - n->producers - n->consumers;
}

/* The producer index of node n, or UINT32_MAX when n is no producer. */
static inline uint32_t ks_node_producer_of(const ks_nodes *nodes, ks_node n)
{
    return ks_node_kind_of(nodes, n) == KS_NODE_PRODUCER ? ks_node_index(nodes, n) : UINT32_MAX;
}

struct ks_ctx;

/* The operations of a node kind. `self` is the node's state; only the
 * world calls these, and only with the node's own state. Optional ones
 * may be NULL. */
typedef struct ks_node_ops {
    const char *kind;          /* "broker", "producer", "consumer", ... */
    /* The field a trace line names it by when it sends a request
     * ("producer": "p1"); NULL: "client" (a broker acting as a client). */
    const char *client_key;
    /* The run begins: the node schedules what it does first. */
    void (*start)(void *self, struct ks_ctx *cx);
    /* A message reached it: a request it serves, or (`answer`) the answer
     * to a request it sent; `msg` is a message pool index whose reference
     * the event held passes to the node. */
    void (*on_message)(void *self, struct ks_ctx *cx, uint32_t msg, bool answer);
    /* One of its own events (owner: its id) is due. */
    void (*on_timer)(void *self, struct ks_ctx *cx, const ks_event *ev);
    /* Its process dies (crash.*): what it had is gone; restart_ns, when
     * not KS_TIME_MAX, is when the world restarts it, and `arg` what
     * the fault says of the new instance (a consumer's new forward.to). */
    void (*crash)(void *self, struct ks_ctx *cx, ks_time restart_ns, int32_t arg);
    /* A new instance of it starts. */
    void (*restart)(void *self, struct ks_ctx *cx);
    /* It stops doing anything until `until` (pause.*): the world holds
     * its events back until then; the node hears of it here, and of the
     * end in resume. */
    void (*pause)(void *self, struct ks_ctx *cx, ks_time until);
    void (*resume)(void *self, struct ks_ctx *cx);
    /* Does event ev still run while the node is paused (an arrival from
     * outside its process)? NULL: none does. */
    bool (*runs_paused)(const ks_event *ev);
    /* An event of its, held back by a pause, was scheduled again at `at`
     * with handle h: for a node that cancels its events by handle. */
    void (*rehandle)(void *self, const ks_event *ev, ks_handle h, ks_time at);
    /* The run has ended: the node tells the observer what is left. */
    void (*finish)(void *self, struct ks_ctx *cx);
} ks_node_ops;

#endif
