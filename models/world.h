/*
 * world.h - one simulation: the engine plus every model, built from a
 * scenario, and the one dispatch switch.
 *
 * Owns: the ks_sim, the models' state, the trace writer it was given
 * (not the stream), and the run's results. No global state: any number
 * of worlds can exist in one process, and equal scenarios give equal
 * traces and summaries.
 */
#ifndef KS_WORLD_H
#define KS_WORLD_H

#include "models/broker/broker.h"
#include "models/consumer/consumer.h"
#include "models/broker/coordinator.h"
#include "models/broker/groups.h"
#include "models/net/faults.h"
#include "models/metrics.h"
#include "models/net/network.h"
#include "models/producer/producer.h"
#include "models/net/request.h"
#include "models/obs.h"
#include "sim/diag.h"
#include "models/scenario.h"
#include "models/events.h"
#include "sim/sim.h"
#include "models/trace_kinds.h"

#include <jansson.h>
#include <stdio.h>

typedef struct ks_world {
    const ks_scenario *sc;
    ks_sim sim;
    ks_trace *trace;
    ks_nodes nodes;               /* how node ids are numbered */
    bool *node_down;              /* per node: its process crashed (a fault) */
    char **node_names;            /* per node: "broker0", or the client's id */
    ks_net net;
    ks_request_pool reqs;

    uint32_t broker_count;
    ks_broker *brokers;
    ks_broker_conn *broker_conns; /* the brokers' side of each connection, by id */
    uint32_t broker_conn_cap;
    uint32_t partition_count;
    ks_partition *partitions;     /* all topics' partitions, topic by topic */
    ks_plog *plogs;               /* their logs, when kept (ks_partition.logged) */
    uint32_t *topic_first_partition;
    uint32_t *topic_partitions;   /* partitions each topic has now */
    uint32_t producer_count;
    ks_producer *producers;

    ks_metrics metrics;
    ks_faults faults;
    struct ks_checker *checker;   /* the delivery checker, world.c only */
    ks_obs obs;                   /* whom the nodes report to: the checker */
    ks_coordinators coord;
    ks_groups groups;
    json_t *delivery;             /* the checker's verdicts, after the run */
    char **partition_names;       /* "events-0", for the checker */
    const char **producer_names;
    int64_t next_producer_id;     /* the cluster's next PID */
    uint32_t consumer_count;
    ks_consumer *consumers;
    uint64_t *log_ids;            /* scratch: a batch's record ids for the log */
    uint32_t log_ids_cap;
    uint64_t next_record_id;
    uint32_t next_leader;         /* round-robin of partition leaders */
    bool out_of_memory;
    /* Handlers may run their successors at once (ks_sim_chain): true
     * unless the dispatch loop does more than dispatch (the debug trace's
     * event lines, faults deferring events). Set by ks_world_run. */
    bool chain;
    /* Record ids travel with their batches (and the logs keep them): when
     * consumers read or transactions are checked. A setting of what the
     * run observes, not of any node. */
    bool record_ids;

    char **stream_names; /* every random stream, in creation order */
    uint32_t stream_count, stream_cap;
} ks_world;

/* Seeds `r` as the stream called `name` (sim/rng.h, ks_rng_stream) and
 * records the name for the trace header. False when out of memory. */
bool ks_world_stream(ks_world *w, ks_rng *r, const char *name);

/* The producer index of node n, or UINT32_MAX when n is no producer. */
static inline uint32_t ks_world_producer_of(const ks_world *w, ks_node n)
{
    return ks_node_kind_of(&w->nodes, n) == KS_NODE_PRODUCER ? ks_node_index(&w->nodes, n)
                                                              : UINT32_MAX;
}

/* Builds a world. Reports model-level problems with the scenario (things
 * this version cannot simulate) to diag and returns NULL. tr may be NULL. */
ks_world *ks_world_create(const ks_scenario *sc, ks_trace *tr, ks_diag *diag);
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
