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
 * Never: decides what the message means or what its sender does when it
 * is lost; the sender reads the outcome.
 */
#ifndef KS_WIRE_H
#define KS_WIRE_H

#include "models/net/network.h"
#include "sim/sim.h"

#include <stdint.h>

struct ks_world;

typedef struct ks_sent {
    ks_time sent_ns;    /* its last byte left the sender */
    ks_time arrival_ns; /* it arrives (when not lost) */
    int32_t fault;      /* the fault that lost it, or KS_NO_FAULT */
} ks_sent;

/* Request `id` leaves its client at its sent_ns. */
ks_sent ks_wire_request(struct ks_world *w, uint32_t id);
/* The response to request `id` leaves its server at `at`. */
ks_sent ks_wire_response(struct ks_world *w, uint32_t id, ks_time at);
/* At its arrival: did the message get through? One that TCP was still
 * retransmitting when its connection was closed never does. */
bool ks_wire_delivered(struct ks_world *w, uint32_t id, ks_net_dir dir);

#endif
