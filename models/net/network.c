/*
 * network.c - connections between nodes (see network.h).
 */
#include "models/net/network.h"

#include "models/ctx.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ks_net_init(ks_net *n, ks_sim *sim, ks_streams *streams, const ks_network_conf *conf,
                 uint32_t nodes, uint32_t brokers, const char *const *names)
{
    memset(n, 0, sizeof *n);
    n->streams = streams;
    n->sim = sim;
    n->latency = conf->latency;
    n->bandwidth_bps = conf->bandwidth_bps;
    n->nodes = nodes;
    n->brokers = brokers;
    n->names = names;
    size_t slots = (size_t)nodes * brokers * KS_CHAN__COUNT;
    n->conn_of = malloc(slots * sizeof *n->conn_of);
    if (!n->conn_of)
        return false;
    memset(n->conn_of, 0xff, slots * sizeof *n->conn_of);
    return true;
}

static uint32_t *slot_of(ks_net *n, ks_node client, ks_node server, ks_net_channel ch)
{
    assert(client < n->nodes && server < n->brokers && ch < KS_CHAN__COUNT);
    return &n->conn_of[((size_t)client * n->brokers + server) * KS_CHAN__COUNT + ch];
}

static uint32_t new_conn(ks_net *n, ks_node client, ks_node server, ks_net_channel ch,
                         uint32_t incarnation)
{
    if (n->conn_count == n->conn_cap) {
        uint32_t cap = n->conn_cap ? n->conn_cap * 2u : 16u;
        ks_net_conn *c = realloc(n->conns, cap * sizeof *c);
        if (!c)
            return UINT32_MAX;
        n->conns = c;
        n->conn_cap = cap;
    }
    ks_net_conn *c = &n->conns[n->conn_count];
    memset(c, 0, sizeof *c);
    c->client = client;
    c->server = server;
    c->channel = ch;
    c->incarnation = incarnation;
    *slot_of(n, client, server, ch) = n->conn_count;
    return n->conn_count++;
}

uint32_t ks_net_connect_channel(ks_net *n, ks_node client, ks_node server, ks_net_channel ch)
{
    uint32_t *slot = slot_of(n, client, server, ch);
    return *slot != UINT32_MAX ? *slot : new_conn(n, client, server, ch, 0);
}

uint32_t ks_net_connect(ks_net *n, ks_node client, ks_node server)
{
    return ks_net_connect_channel(n, client, server, KS_CHAN_DATA);
}

/* The connection lets go of the run it held open, if it did. */
static void let_go(ks_net *n, uint32_t conn)
{
    if (!n->conns[conn].holds_run)
        return;
    n->conns[conn].holds_run = false;
    ks_sim_release(n->sim);
}

uint32_t ks_net_reopen(ks_net *n, ks_node client, ks_node server, ks_net_channel ch)
{
    uint32_t old = *slot_of(n, client, server, ch);
    if (old != UINT32_MAX)
        let_go(n, old);
    return new_conn(n, client, server, ch, old == UINT32_MAX ? 0 : n->conns[old].incarnation + 1u);
}

void ks_net_lost(ks_net *n, uint32_t conn)
{
    if (n->conns[conn].holds_run)
        return;
    n->conns[conn].holds_run = true;
    ks_sim_hold(n->sim);
}

/* Seeds a lane's stream the first time it carries a message. A stream's
 * draws depend only on its name and the seed, so seeding late changes
 * nothing but which streams the trace header lists: the ones in use. */
static void seed_lane(ks_net *n, const ks_net_conn *c, ks_net_dir dir, ks_net_lane *l)
{
    static const char *const dir_names[2] = {"request", "response"};
    char name[256]; /* node names are at most 100 characters */
    const char *what = c->channel == KS_CHAN_COORDINATOR ? "coordinator" : "broker";
    if (c->incarnation == 0)
        snprintf(name, sizeof name, "net.%s.%s%u.%s", n->names[c->client], what, c->server,
                 dir_names[dir]);
    else
        snprintf(name, sizeof name, "net.%s.%s%u~%u.%s", n->names[c->client], what, c->server,
                 c->incarnation + 1u, dir_names[dir]);
    (void)ks_streams_add(n->streams, &l->rng, name); /* seeded even when not listed */
    l->seeded = true;
}

void ks_net_free(ks_net *n)
{
    free(n->conns);
    free(n->conn_of);
    n->conns = NULL;
    n->conn_of = NULL;
}

/* Nanoseconds to serialise `bytes` at `bps`, rounded up. */
static ks_time wire_ns(uint64_t bytes, uint64_t bps)
{
    if (bps == 0 || bytes == 0)
        return 0;
    unsigned __int128 bits_ns = (unsigned __int128)bytes * UINT64_C(8000000000);
    unsigned __int128 ns = (bits_ns + bps - 1u) / bps;
    return ns > (unsigned __int128)KS_TIME_MAX ? KS_TIME_MAX : (ks_time)ns;
}

ks_time ks_net_sent_at(const ks_net *n, uint32_t conn, ks_net_dir dir, ks_time at, uint64_t bytes)
{
    const ks_net_lane *l = &n->conns[conn].lane[dir];
    ks_time start = at > l->wire_free_ns ? at : l->wire_free_ns;
    return ks_time_add(start, wire_ns(bytes, n->bandwidth_bps));
}

ks_time ks_net_transit(ks_net *n, uint32_t conn, ks_net_dir dir, ks_time now, uint64_t bytes,
                       ks_time extra_ns, bool lost, ks_time *sent_out)
{
    ks_net_lane *l = &n->conns[conn].lane[dir];
    if (!l->seeded)
        seed_lane(n, &n->conns[conn], dir, l);
    ks_time start = now > l->wire_free_ns ? now : l->wire_free_ns;
    ks_time sent = ks_time_add(start, wire_ns(bytes, n->bandwidth_bps));
    l->wire_free_ns = sent;
    if (sent_out)
        *sent_out = sent;
    ks_time arrival = ks_time_add(sent, ks_dist_draw(&n->latency, &l->rng));
    arrival = ks_time_add(arrival, extra_ns);
    if (arrival < l->last_arrival_ns)
        arrival = l->last_arrival_ns; /* in-order delivery */
    if (!lost) /* a lost message holds nothing back */
        l->last_arrival_ns = arrival;
    l->messages++;
    l->bytes += bytes;
    return arrival;
}

void ks_net_reconnect(ks_net *n, uint32_t conn)
{
    let_go(n, conn);
    for (int d = 0; d < 2; d++)
        n->conns[conn].lane[d].last_arrival_ns = 0;
    n->conns[conn].epoch++;
}
