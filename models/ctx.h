/*
 * ctx.h - what a node is given to act with: the narrow context, and the
 * run's registry of random streams.
 *
 * Owns: nothing of any node. A context holds or points at the run's
 * services, and a node's operations (models/net/node.h) receive it with
 * their own state, never the world:
 *   sim       the clock, and the events a node schedules for itself: its
 *             own timers, whose owner is the node's id
 *   net       the network: the node's connections
 *   wire      sending a message (models/net/wire.h)
 *   reqs      the messages in flight (models/net/request.h)
 *   trace     the trace writer, or NULL
 *   obs       the observer (the delivery checker), beside the run
 *   metrics   the run's metrics windows, which producers count into
 *   sc        the scenario, read only: a node reads its own section and
 *             the settings every node of its kind has (the brokers'
 *             config, the topics' names)
 *   nodes     how node ids are numbered (the address book), and names
 *             each node's name ("broker0", a client's id)
 *   streams   random streams, each named, listed for the trace header
 *   ids       the run's numbering of the application's records (the
 *             seeds' eventId): an identity the observer follows through
 *             the logs, not state of any node
 * A run has one context, shared by its nodes: everything in it is a
 * service, nothing in it is a node's.
 *
 * Never: leads to another node's state.
 */
#ifndef KS_CTX_H
#define KS_CTX_H

#include "models/events.h"
#include "models/metrics.h"
#include "models/net/node.h"
#include "models/net/request.h"
#include "models/obs.h"
#include "models/scenario.h"
#include "models/trace_kinds.h"
#include "sim/rng.h"
#include "sim/sim.h"
#include "sim/trace.h"

#include <stdbool.h>
#include <stdint.h>

struct ks_net;
struct ks_wire;

/* Every random stream of a run, in creation order, for the trace
 * header's derived.streams. */
typedef struct ks_streams {
    uint64_t seed;           /* the run's master seed */
    char **names;
    uint32_t count, cap;
} ks_streams;

typedef struct ks_ctx {
    /* held here, not pointed at: the hot paths reach them without a load */
    ks_sim sim;
    ks_request_pool reqs;
    ks_metrics metrics;
    struct ks_net *net;
    struct ks_wire *wire;
    ks_trace *trace;
    const ks_obs *obs;
    const ks_scenario *sc;
    const ks_nodes *nodes;
    const char *const *names; /* per node: "broker0", or the client's id */
    ks_streams *streams;
    uint64_t *next_record_id;
    bool *out_of_memory;
    /* Handlers may run their successors at once (ks_sim_chain): set by
     * the world for a run whose dispatch loop does nothing but dispatch. */
    bool chain;
    /* Records carry their ids in batches and logs (consumers read them
     * back, or transactions are checked): a setting of what the run
     * observes. */
    bool record_ids;
} ks_ctx;

/* Seeds `r` as the stream called `name` (sim/rng.h, ks_rng_stream) and
 * lists the name. False when out of memory (r is seeded all the same). */
bool ks_streams_add(ks_streams *s, ks_rng *r, const char *name);
void ks_streams_free(ks_streams *s);

/* The run cannot go on for want of memory: it stops with that verdict. */
void ks_ctx_oom(ks_ctx *cx);

/* The next record id of the run. */
static inline uint64_t ks_ctx_record_id(const ks_ctx *cx) { return (*cx->next_record_id)++; }

#endif
