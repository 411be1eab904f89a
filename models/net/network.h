/*
 * network.h - links between producers and brokers.
 *
 * Owns: one connection per (producer, broker) pair, each with two
 * directions (requests and responses). A message's arrival time is its
 * send time, plus the time to put its bytes on the wire (bandwidth; a
 * direction sends one message at a time), plus the one-way latency drawn
 * from the direction's own random stream. Like a TCP connection, a
 * direction delivers in order: a message never arrives before the one
 * sent ahead of it.
 *
 * Never: schedules events itself; the sender asks for an arrival time and
 * schedules the arrival.
 */
#ifndef KS_NETWORK_H
#define KS_NETWORK_H

#include "sim/dist.h"
#include "sim/rng.h"
#include "models/scenario.h"
#include "sim/sim.h"

#include <stdint.h>

struct ks_world;

typedef enum ks_net_dir { KS_NET_REQUEST = 0, KS_NET_RESPONSE = 1 } ks_net_dir;

typedef struct ks_net_lane {
    ks_rng rng;
    bool seeded;            /* its stream is created on first use */
    ks_time wire_free_ns;   /* when the sender side can start the next message */
    ks_time last_arrival_ns;
    uint64_t messages;
    uint64_t bytes;
} ks_net_lane;

typedef struct ks_net_conn {
    uint32_t producer, broker;
    ks_net_lane lane[2];
} ks_net_conn;

typedef struct ks_net {
    struct ks_world *world; /* for stream registration */
    ks_dist latency;
    uint64_t bandwidth_bps; /* 0 = unlimited */
    uint32_t brokers;
    uint32_t conn_count;
    ks_net_conn *conns;     /* index = producer * brokers + broker */
} ks_net;

/* Sets up every producer-broker connection. Each direction's stream,
 * "net.<producer id>.broker<b>.request" / ".response", is created when it
 * first carries a message. Returns false on allocation failure. */
bool ks_net_init(ks_net *n, struct ks_world *w);
void ks_net_free(ks_net *n);

static inline uint32_t ks_net_conn_id(const ks_net *n, uint32_t producer, uint32_t broker)
{
    return producer * n->brokers + broker;
}

/* A message of `bytes` leaves on `dir` of connection `conn` at `now`:
 * returns when it arrives, and accounts for it. extra_ns is a delay a
 * fault adds (messages behind it wait too: the lane is in order); a
 * `lost` message uses the wire and its latency draw but holds nothing
 * back. *sent (if not NULL) receives when its last byte left the sender. */
ks_time ks_net_transit(ks_net *n, uint32_t conn, ks_net_dir dir, ks_time now, uint64_t bytes,
                       ks_time extra_ns, bool lost, ks_time *sent);

/* The connection was closed and is opened again: a new TCP connection,
 * whose messages owe nothing to the order of the old one's. */
void ks_net_reconnect(ks_net *n, uint32_t conn);

#endif
