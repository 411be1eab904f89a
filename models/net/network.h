/*
 * network.h - the one network: connections between nodes.
 *
 * Owns: one connection per (client node, server broker) pair that talks,
 * created when it first carries a message, each with two directions
 * (requests and responses). A message's arrival time is its send time,
 * plus the time to put its bytes on the wire (bandwidth; a direction
 * sends one message at a time), plus the one-way latency drawn from the
 * direction's own random stream "net.<client>.broker<b>.<request|response>".
 * Like a TCP connection, a direction delivers in order: a message never
 * arrives before the one sent ahead of it.
 *
 * Never: schedules events itself or reads a node's state; the sender asks
 * for an arrival time and schedules the arrival.
 */
#ifndef KS_NETWORK_H
#define KS_NETWORK_H

#include "sim/dist.h"
#include "sim/rng.h"
#include "models/net/node.h"
#include "sim/sim.h"

#include <stdint.h>

struct ks_streams;
struct ks_network_conf;

typedef enum ks_net_dir { KS_NET_REQUEST = 0, KS_NET_RESPONSE = 1 } ks_net_dir;

typedef struct ks_net_lane {
    ks_rng rng;
    bool seeded;            /* its stream is created on first use */
    ks_time wire_free_ns;   /* when the sender side can start the next message */
    ks_time last_arrival_ns;
    uint64_t messages;
    uint64_t bytes;
} ks_net_lane;

/* A client may keep more than one connection to a broker: a consumer
 * talks to its group coordinator on a connection of its own ([K]
 * AbstractCoordinator: "Integer.MAX_VALUE - node.id ... to allow separate
 * connections for the coordinator"), so that its commits do not queue
 * behind a fetch the leader holds. */
typedef enum ks_net_channel { KS_CHAN_DATA = 0, KS_CHAN_COORDINATOR = 1, KS_CHAN__COUNT } ks_net_channel;

typedef struct ks_net_conn {
    ks_node client, server;
    ks_net_channel channel;
    uint32_t incarnation;    /* 0 for the pair's first connection */
    uint32_t epoch;          /* +1 each time it is closed and opened again */
    bool holds_run;          /* it lost a message someone waits on (ks_net_lost) */
    ks_net_lane lane[2];
} ks_net_conn;

typedef struct ks_net {
    struct ks_streams *streams; /* where its lanes' streams are listed */
    ks_sim *sim;             /* whose run a lost message holds open */
    ks_dist latency;
    uint64_t bandwidth_bps;  /* 0 = unlimited */
    uint32_t nodes, brokers; /* clients are any node, servers brokers */
    const char *const *names;/* per node: the name its streams carry */
    uint32_t *conn_of;       /* [(client * brokers + server) * channels + channel]:
                                connection, or UINT32_MAX */
    uint32_t conn_count, conn_cap;
    ks_net_conn *conns;      /* in the order they were first used */
} ks_net;

/* Sets up a network of `nodes` nodes, the first `brokers` of them
 * brokers, with the scenario's network conf and `names` (kept, not
 * copied) for the streams, listed in `streams`. Returns false on
 * allocation failure. */
bool ks_net_init(ks_net *n, ks_sim *sim, struct ks_streams *streams,
                 const struct ks_network_conf *conf, uint32_t nodes, uint32_t brokers,
                 const char *const *names);
void ks_net_free(ks_net *n);

/* The connection between client and server (a broker), created on first
 * use; UINT32_MAX when out of memory. */
uint32_t ks_net_connect(ks_net *n, ks_node client, ks_node server);
/* ... on channel ch (its streams "net.<client>.coordinator<b>.*"). */
uint32_t ks_net_connect_channel(ks_net *n, ks_node client, ks_node server, ks_net_channel ch);

/* A new connection between client and server, replacing the pair's
 * current one (a restarted process opens new connections; what the old
 * one still carries arrives for nobody). Its streams are those of the
 * first with "~N" after the broker, N the incarnation from 2.
 * UINT32_MAX when out of memory. */
uint32_t ks_net_reopen(ks_net *n, ks_node client, ks_node server, ks_net_channel ch);

/* A message of `bytes` leaves on `dir` of connection `conn` at `now`:
 * returns when it arrives, and accounts for it. extra_ns is a delay a
 * fault adds (messages behind it wait too: the lane is in order); a
 * `lost` message uses the wire and its latency draw but holds nothing
 * back. *sent (if not NULL) receives when its last byte left the sender. */
ks_time ks_net_transit(ks_net *n, uint32_t conn, ks_net_dir dir, ks_time now, uint64_t bytes,
                       ks_time extra_ns, bool lost, ks_time *sent);

/* When a message of `bytes` leaving on dir at `at` would have left the
 * sender entirely (what ks_net_transit will give as *sent). */
ks_time ks_net_sent_at(const ks_net *n, uint32_t conn, ks_net_dir dir, ks_time at, uint64_t bytes);

/* When direction dir of conn can start writing its next message. */
static inline ks_time ks_net_wire_free(const ks_net *n, uint32_t conn, ks_net_dir dir)
{
    return n->conns[conn].lane[dir].wire_free_ns;
}

/* The connection was closed and is opened again: a new TCP connection,
 * whose messages owe nothing to the order of the old one's; what the old
 * one was still retransmitting is gone (ks_wire_delivered). A hold the
 * old one kept is released. */
void ks_net_reconnect(ks_net *n, uint32_t conn);

/* The network lost a message on `conn` that its receiver's peer waits
 * on (a request that expects an answer, or an answer). Nobody is told.
 * The connection holds the run open (sim.h, ks_sim_hold) until it is
 * closed: its sender will only find the silence at its own request
 * timeout, a daemon, and a run must not end before it does. (TCP's own
 * timers run as long as the connection has data unacknowledged.) */
void ks_net_lost(ks_net *n, uint32_t conn);

#endif
