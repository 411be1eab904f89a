/*
 * faults.h - fault injection at run time: which request, response or
 * append a scenario's faults strike, and when a broker or producer is
 * paused.
 *
 * Owns: per fault, how many times it struck and (for the probabilistic
 * ones) its random stream, named by the fault itself ("fault.<name>", or
 * derived from its content: fault_section.h), so adding or removing a
 * fault never shifts another's draws, and no model's draws move because
 * of a fault. Every
 * strike is a "fault" trace record; windows (link.down, pause.*) are
 * traced when they open and close.
 *
 * Never: changes model state itself, or tells a sender its message was
 * lost. The wire asks about each message, and acts on the answer (a lost
 * message is a silence: models/net/wire.h); the world acts on windows
 * through the nodes' operations.
 */
#ifndef KS_FAULTS_H
#define KS_FAULTS_H

#include "models/ctx.h"
#include "models/kafka/errors.h"
#include "models/net/node.h"
#include "models/net/request.h"
#include "sim/rng.h"
#include "models/scenario.h"
#include "models/events.h"
#include "sim/sim.h"
#include "sim/trace.h"

#include <stdint.h>

struct ks_net;

#define KS_NO_FAULT (-1)

/* What the faults see of the run: the clock, the trace, the messages,
 * the node numbering, the network (its latency, for TCP's timers) and
 * the scenario (the faults and the names of what they strike). */
typedef struct ks_faults_env {
    ks_sim *sim;
    ks_trace *trace;
    ks_request_pool *reqs;
    const ks_nodes *nodes;
    const struct ks_net *net;
    const ks_scenario *sc;
} ks_faults_env;

typedef struct ks_faults {
    ks_faults_env env;
    uint32_t n;
    const ks_fault_conf *conf;
    uint32_t *hits;          /* per fault */
    uint32_t *partition;     /* per fault: the partition's number, or UINT32_MAX */
    ks_node *client;         /* per fault: the producer or consumer it selects, as a node
                                id, or KS_NODE_NONE (any client) */
    ks_rng *rng;             /* per fault (used by *.loss only) */
} ks_faults;

/* What the world does to a node when a window or crash fault opens or
 * closes: through the node's operations (models/net/node.h). */
typedef enum ks_nemesis_what {
    KS_NEMESIS_NONE,
    KS_NEMESIS_CRASH,  /* the node's process dies; a new one at `until`
                          unless KS_TIME_MAX, with `arg` (a consumer's
                          new forward.to, or -1) */
    KS_NEMESIS_PAUSE,  /* it does nothing until `until` */
    KS_NEMESIS_RESUME  /* a pause window closed */
} ks_nemesis_what;

typedef struct ks_nemesis {
    ks_nemesis_what what;
    ks_node node;
    ks_time until;
    int32_t arg;
} ks_nemesis;

/* topic_first: per topic, the number of its partition 0 (for partition
 * selectors); the probabilistic faults' streams are listed in streams. */
bool ks_faults_init(ks_faults *f, const ks_faults_env *env, const uint32_t *topic_first,
                    ks_streams *streams);
void ks_faults_free(ks_faults *f);
/* Schedules the opening and closing of every window, and every crash
 * (daemon events, KS_EV_FAULT: owner the fault, tag 1 opens, 0 closes). */
void ks_faults_start(ks_faults *f);
/* A window opens or closes, or a crash strikes (KS_EV_FAULT): traced;
 * returns what the world is to do to which node. */
ks_nemesis ks_faults_on_window(ks_faults *f, uint32_t fault, bool open);

/* Request `req` leaves its client at `at`: returns the fault that loses
 * it (KS_NO_FAULT if none) and adds any delay to *delay_ns. */
int32_t ks_faults_request(ks_faults *f, uint32_t req, ks_time at, ks_time *delay_ns);
/* The response to `req` leaves its server at `at`: likewise. */
int32_t ks_faults_response(ks_faults *f, uint32_t req, ks_time at, ks_time *delay_ns);
/* The leader is about to append request `req`: the fault that makes it
 * answer its batches of the struck partition (or all, when the fault
 * names none) with an error, or KS_NO_FAULT. *err and *partition
 * (UINT32_MAX: every batch) say how. */
int32_t ks_faults_append(ks_faults *f, uint32_t req, ks_time at, ks_kerr *err,
                         uint32_t *partition);
/* When the pauses of node `node` that hold at `at` end, or 0 if none
 * holds. */
ks_time ks_faults_paused_until(const ks_faults *f, ks_node node, ks_time at);

#endif
