/*
 * world.h - one simulation: the engine, the nodes built from a scenario,
 * and the routing of every event to the node it belongs to.
 *
 * Owns: the ks_sim, the run's services (the network, the wire, the
 * faults, the messages, the metrics, the observer, the random streams:
 * models/ctx.h), the nodes (brokers, producers, consumers, the
 * applications that own consumers and producers) and the table that
 * routes by node id to each node's operations (models/net/node.h), the
 * cluster's metadata as the controller hands it to the brokers, the
 * trace writer it was given (not the stream), and the run's results.
 * World.c is the only code that knows every node kind: it builds them.
 * No global state: any number of worlds can exist in one process, and
 * equal scenarios give equal traces and summaries.
 */
#ifndef KS_WORLD_H
#define KS_WORLD_H

#include "models/app/app.h"
#include "models/broker/broker.h"
#include "models/consumer/consumer.h"
#include "models/ctx.h"
#include "models/kafka/metadata.h"
#include "models/metrics.h"
#include "models/net/faults.h"
#include "models/net/network.h"
#include "models/net/node.h"
#include "models/net/request.h"
#include "models/net/wire.h"
#include "models/obs.h"
#include "models/producer/producer.h"
#include "models/scenario.h"
#include "models/events.h"
#include "models/trace_kinds.h"
#include "sim/diag.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdio.h>

/* What the world keeps of a node: its operations, its state, and what
 * the faults did to its process. */
typedef struct ks_node_slot {
    const ks_node_ops *ops;
    void *self;
    bool down;             /* its process is gone: its events go nowhere */
    ks_time paused_until;  /* its events wait until then (pause.*) */
} ks_node_slot;

typedef struct ks_world {
    const ks_scenario *sc;
    ks_trace *trace;
    ks_nodes nodes;               /* how node ids are numbered */
    ks_node_slot *slots;          /* per node id */
    const char **client_keys;     /* per node id: its ops' client_key (nodes.client_keys) */
    char **node_names;            /* per node: "broker0", or the client's id */
    ks_net net;
    ks_wire wire;
    ks_faults faults;
    ks_meta meta;                 /* the cluster's metadata, as handed to the brokers */
    uint32_t next_leader;         /* round-robin of partition leaders */

    uint32_t broker_count;
    ks_broker *brokers;
    uint32_t producer_count;
    ks_producer *producers;
    uint32_t consumer_count;
    ks_consumer *consumers;
    ks_app *apps;                 /* per consumer: its application, if it has one */

    struct ks_checker *checker;   /* the delivery checker, world.c only */
    ks_obs obs;                   /* whom the nodes report to: the checker */
    json_t *delivery;             /* the checker's verdicts, after the run */
    char **partition_names;       /* "events-0", for the checker */
    const char **producer_names;
    uint64_t next_record_id;
    bool out_of_memory;
    ks_streams streams;           /* every random stream, in creation order */
    ks_ctx ctx;                   /* what the nodes act with: the engine (ctx.sim),
                                     the messages (ctx.reqs), the metrics ... */
} ks_world;

/* The trace's header line (the scenario resolved, what the models
 * derived from it) and its end line (world.c, for world_run.c). */
void ks_world_trace_header(ks_world *w);
void ks_world_trace_end(ks_world *w);

/* Builds a world. Reports model-level problems with the scenario (things
 * this version cannot simulate) to diag and returns NULL. tr may be NULL. */
ks_world *ks_world_create(const ks_scenario *sc, ks_trace *tr, ks_diag *diag);

/* A node of a kind the scenario does not build: its operations, its
 * state (which the caller owns and frees after ks_world_free) and its
 * name. */
typedef struct ks_world_node {
    const ks_node_ops *ops;
    void *self;
    const char *name;
} ks_world_node;
/* The same, with n more nodes (KS_NODE_OTHER, numbered after the
 * consumers in the order given): a node kind plugs in with its
 * operations alone; the network, the routing and the faults take it as
 * they take every node. */
ks_world *ks_world_create_with(const ks_scenario *sc, ks_trace *tr, ks_diag *diag,
                               const ks_world_node *more, uint32_t n);
void ks_world_free(ks_world *w);
/* Runs to the end (a verdict) and writes the trace's end record. */
void ks_world_run(ks_world *w);
/* The run's results, in a fixed order (docs/trace.md, "summary"). */
json_t *ks_world_summary(const ks_world *w);
/* Past this many partitions a summary's "partitions" object is written as
 * text, not built as a tree (but for what the expect block reads). */
#define KS_SUMMARY_TREE_PARTITIONS 1024u
/* The same for writing out: with more than KS_SUMMARY_TREE_PARTITIONS
 * partitions, unless the expect block reads "partitions" whole, *lean is
 * set and the tree's "partitions" holds only the partitions the expect
 * block names ("partitions.NAME..."), for checking it: ks_summary_dumpf
 * then writes the whole object from the world, which must still be there,
 * as text (some 80 bytes a partition, never held whole). Else the tree is
 * whole. NULL when memory ran out. */
json_t *ks_world_summary_lean(const ks_world *w, bool *lean);
/* json_dumpf of a summary from ks_world_summary_lean; `lean` the world it
 * came from when it was lean, else NULL: the bytes json_dumpf writes for
 * the whole tree (flags must include JSON_INDENT(2)). 0, or -1 when
 * memory ran out or a write failed. */
int ks_summary_dumpf(const json_t *summary, const ks_world *lean, FILE *f, size_t flags);

#endif
