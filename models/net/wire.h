/*
 * wire.h - a request or its response put on the one network.
 *
 * Owns: the order of the steps every message takes, whoever sends it:
 * the faults decide its fate (lost, or delayed), the network when it
 * arrives, and its arrival is scheduled at the node that receives it (a
 * request at its server, KS_EV_ARRIVE; a response at its client,
 * KS_EV_RESPONSE). The scheduled event holds a reference to the request;
 * a request marked daemon (a metadata refresh) keeps no run alive.
 *
 * A lost message is a silence: its sender is told nothing (it learns of
 * the loss only from its own timeout). The wire reports the loss to the
 * observer (models/obs.h), beside the run, and writes the request's
 * "send" trace line, with when it will arrive, whoever its client is.
 *
 * Never: decides what the message means or what its sender does; tells
 * the sender or the receiver whether it got through.
 */
#ifndef KS_WIRE_H
#define KS_WIRE_H

#include "models/net/faults.h"
#include "models/net/network.h"
#include "models/net/request.h"
#include "models/obs.h"
#include "sim/sim.h"
#include "sim/trace.h"

#include <stdint.h>

/* What the wire works with: the clock, the network, the faults, the
 * messages, the observer, the trace and the node numbering. */
typedef struct ks_wire {
    ks_sim *sim;
    ks_net *net;
    ks_faults *faults;
    ks_request_pool *reqs;
    const ks_obs *obs;
    ks_trace *trace;
    const ks_nodes *nodes;
} ks_wire;

/* Request `id` leaves its client at its sent_ns: returns when its last
 * byte has left the client (what the client's socket tells it). */
ks_time ks_wire_request(ks_wire *wi, uint32_t id);
/* The response to request `id` leaves its server at `at`. */
void ks_wire_response(ks_wire *wi, uint32_t id, ks_time at);
/* A "response" trace line at `now`: the client handles the answer to q,
 * whose error (the request's, or its first entry's) is err. */
void ks_wire_trace_response(ks_trace *tr, const ks_nodes *nodes, const ks_request *q, ks_time now,
                            ks_kerr err);
/* At its arrival: did the message get through? One that TCP was still
 * retransmitting when its connection was closed never does. */
bool ks_wire_delivered(const ks_wire *wi, uint32_t id, ks_net_dir dir);

#endif
