/*
 * wire.c - messages put on the network (see wire.h).
 */
#include "models/net/wire.h"

#include "models/events.h"
#include "models/trace_kinds.h"


/* What the observer learns of a message the network lost: for a
 * producer's Produce request, each batch's copy reached no log, and the
 * request's fate; for its response, the fate. */
static void observe_loss(ks_wire *w, const ks_request *q, ks_net_dir dir, int32_t fault)
{
    uint32_t producer = ks_node_producer_of(w->nodes, q->client);
    if (q->api != KS_API_PRODUCE || producer == UINT32_MAX)
        return;
    if (dir == KS_NET_RESPONSE) {
        ks_obs_request_fate(w->obs, producer, q->correlation_id, KS_FATE_RESPONSE_DROPPED, fault);
        return;
    }
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(w->reqs, e)->next)
        ks_obs_not_appended(w->obs, producer, ks_req_entry(w->reqs, e)->batch_seq,
                            q->correlation_id, "REQUEST_LOST");
    ks_obs_request_fate(w->obs, producer, q->correlation_id, KS_FATE_REQUEST_DROPPED, fault);
}

void ks_wire_trace_response(ks_trace *tr, const ks_nodes *nodes, const ks_request *q, ks_time now,
                            ks_kerr err)
{
    if (!tr || !ks_trace_begin(tr, now, KS_TR_RESPONSE))
        return;
    ks_request_trace_client(tr, nodes, q);
    ks_trace_u64(tr, "broker", q->server);
    ks_trace_u64(tr, "request", q->correlation_id);
    if (q->api != KS_API_PRODUCE)
        ks_trace_str(tr, "api", ks_api_name(q->api));
    ks_trace_str(tr, "error", ks_kerr_name(err));
    ks_trace_i64(tr, "rtt_ns", now - q->sent_ns);
    ks_trace_end(tr);
}

/* A "send" trace line: a request left its client, arriving at `arrival`
 * (-1: lost). */
static void trace_send(ks_wire *w, const ks_request *q, ks_time arrival)
{
    ks_trace *tr = w->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(w->sim), KS_TR_SEND))
        return;
    ks_request_trace_client(tr, w->nodes, q);
    ks_trace_u64(tr, "broker", q->server);
    ks_trace_u64(tr, "request", q->correlation_id);
    if (q->api != KS_API_PRODUCE)
        ks_trace_str(tr, "api", ks_api_name(q->api));
    ks_trace_u64(tr, "batches", q->batches);
    ks_trace_u64(tr, "records", q->records);
    ks_trace_u64(tr, "bytes", q->request_bytes);
    ks_trace_i64(tr, "arrive_t", arrival);
    ks_trace_end(tr);
}

static ks_time post(ks_wire *w, uint32_t id, ks_net_dir dir, ks_time at)
{
    ks_request *q = ks_req(w->reqs, id);
    ks_time delay = 0, sent_ns;
    uint64_t bytes = dir == KS_NET_REQUEST ? q->request_bytes : q->response_bytes;
    int32_t fault = dir == KS_NET_REQUEST ? ks_faults_request(w->faults, id, at, &delay)
                                          : ks_faults_response(w->faults, id, at, &delay);
    bool lost = fault >= 0;
    q = ks_req(w->reqs, id);
    q->conn_epoch[dir] = w->net->conns[q->conn].epoch;
    ks_time arrival = ks_net_transit(w->net, q->conn, dir, at, bytes, delay, lost, &sent_ns);
    if (lost) {
        observe_loss(w, q, dir, fault);
        if (dir == KS_NET_RESPONSE || q->expects_response)
            ks_net_lost(w->net, q->conn);
    } else {
        q->refs++; /* the arrival's hold */
        ks_event ev = {.kind = dir == KS_NET_REQUEST ? KS_EV_ARRIVE : KS_EV_RESPONSE,
                       .owner = q->conn,
                       .tag = dir == KS_NET_REQUEST ? q->server : q->client, .arg = id};
        if (q->daemon)
            ks_sim_schedule_daemon(w->sim, arrival, &ev);
        else
            ks_sim_schedule(w->sim, arrival, &ev);
    }
    if (dir == KS_NET_REQUEST)
        trace_send(w, q, lost ? -1 : arrival);
    return sent_ns;
}

bool ks_wire_delivered(const ks_wire *w, uint32_t id, ks_net_dir dir)
{
    const ks_request *q = ks_req(w->reqs, id);
    return !q->retx[dir] || q->conn_epoch[dir] == w->net->conns[q->conn].epoch;
}

ks_time ks_wire_request(ks_wire *w, uint32_t id)
{
    return post(w, id, KS_NET_REQUEST, ks_req(w->reqs, id)->sent_ns);
}

void ks_wire_response(ks_wire *w, uint32_t id, ks_time at)
{
    (void)post(w, id, KS_NET_RESPONSE, at);
}
