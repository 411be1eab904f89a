/*
 * wire.c - messages put on the network (see wire.h).
 */
#include "models/net/wire.h"

#include "models/world.h"

static ks_sent post(ks_world *w, uint32_t id, ks_net_dir dir, ks_time at)
{
    ks_request *q = ks_req(&w->reqs, id);
    ks_sent s = {0};
    ks_time delay = 0;
    uint64_t bytes = dir == KS_NET_REQUEST ? q->request_bytes : q->response_bytes;
    s.fault = dir == KS_NET_REQUEST ? ks_faults_request(w, id, at, &delay)
                                    : ks_faults_response(w, id, at, &delay);
    bool lost = s.fault >= 0;
    q = ks_req(&w->reqs, id);
    q->conn_epoch[dir] = w->net.conns[q->conn].epoch;
    s.arrival_ns = ks_net_transit(&w->net, q->conn, dir, at, bytes, delay, lost, &s.sent_ns);
    if (!lost) {
        q->refs++; /* the arrival's hold */
        ks_event ev = {.kind = dir == KS_NET_REQUEST ? KS_EV_ARRIVE : KS_EV_RESPONSE,
                       .owner = q->conn, .tag = q->server, .arg = id};
        if (q->daemon)
            ks_sim_schedule_daemon(&w->sim, s.arrival_ns, &ev);
        else
            ks_sim_schedule(&w->sim, s.arrival_ns, &ev);
    }
    return s;
}

bool ks_wire_delivered(ks_world *w, uint32_t id, ks_net_dir dir)
{
    const ks_request *q = ks_req(&w->reqs, id);
    return !q->retx[dir] || q->conn_epoch[dir] == w->net.conns[q->conn].epoch;
}

ks_sent ks_wire_request(ks_world *w, uint32_t id)
{
    return post(w, id, KS_NET_REQUEST, ks_req(&w->reqs, id)->sent_ns);
}

ks_sent ks_wire_response(ks_world *w, uint32_t id, ks_time at)
{
    return post(w, id, KS_NET_RESPONSE, at);
}
