/*
 * faults.c - fault injection at run time (see faults.h).
 */
#include "models/net/faults.h"

#include "models/world.h"

#include <stdio.h>
#include <stdlib.h>

bool ks_faults_init(ks_faults *f, ks_world *w)
{
    const ks_scenario *sc = w->sc;
    f->n = sc->fault_count;
    f->conf = sc->faults;
    if (f->n == 0)
        return true;
    f->hits = calloc(f->n, sizeof *f->hits);
    f->partition = calloc(f->n, sizeof *f->partition);
    f->rng = calloc(f->n, sizeof *f->rng);
    if (!f->hits || !f->partition || !f->rng)
        return false;
    for (uint32_t i = 0; i < f->n; i++) {
        const ks_fault_conf *c = &f->conf[i];
        f->partition[i] = c->topic < 0 ? UINT32_MAX
                                       : w->topic_first_partition[c->topic] + (uint32_t)c->partition;
        /* named by the fault, not by its place (fault_section.h) */
        if ((c->type == KS_FAULT_REQUEST_LOSS || c->type == KS_FAULT_RESPONSE_LOSS) &&
            !ks_world_stream(w, &f->rng[i], c->stream))
            return false;
    }
    return true;
}

void ks_faults_free(ks_faults *f)
{
    free(f->hits);
    free(f->partition);
    free(f->rng);
    f->hits = f->partition = NULL;
    f->rng = NULL;
}

static bool is_window(ks_fault_type t)
{
    return t == KS_FAULT_LINK_DOWN || t == KS_FAULT_PAUSE_BROKER || t == KS_FAULT_PAUSE_PRODUCER;
}

static bool is_crash(ks_fault_type t)
{
    return t == KS_FAULT_CRASH_PRODUCER || t == KS_FAULT_CRASH_CONSUMER;
}

void ks_faults_start(ks_world *w)
{
    for (uint32_t i = 0; i < w->faults.n; i++) {
        const ks_fault_conf *c = &w->faults.conf[i];
        if (!is_window(c->type) && !is_crash(c->type))
            continue;
        ks_event ev = {.kind = KS_EV_FAULT, .owner = i, .tag = 1};
        ks_sim_schedule_daemon(&w->sim, c->from_ns, &ev);
        if (is_crash(c->type))
            continue; /* a restart is the consumer's to schedule */
        ev.tag = 0;
        ks_sim_schedule_daemon(&w->sim, c->to_ns, &ev);
    }
}

/* Starts a "fault" trace record with what every record has. The record
 * is stamped now, like every line, so that the trace stays in time order;
 * a fault decided now for a message that leaves later (when the sender
 * has built it) says when it strikes in "at_t". */
static bool trace_fault(ks_world *w, uint32_t i, ks_time at)
{
    ks_trace *tr = w->trace;
    ks_time now = ks_sim_now(&w->sim);
    if (!tr || !ks_trace_begin(tr, now, KS_TR_FAULT))
        return false;
    ks_trace_u64(tr, "fault", i);
    ks_trace_str(tr, "type", ks_fault_type_name(w->faults.conf[i].type));
    if (at != now)
        ks_trace_i64(tr, "at_t", at);
    return true;
}

void ks_faults_on_window(ks_world *w, uint32_t i, bool open)
{
    const ks_fault_conf *c = &w->faults.conf[i];
    if (open)
        w->faults.hits[i]++;
    if (c->type == KS_FAULT_CRASH_PRODUCER) {
        /* the process dies: nothing of this producer happens any more */
        w->node_down[ks_node_producer(&w->nodes, (uint32_t)c->producer)] = true;
        ks_producer_crash(&w->producers[c->producer], w);
    } else if (c->type == KS_FAULT_CRASH_CONSUMER) {
        w->node_down[ks_node_consumer(&w->nodes, (uint32_t)c->consumer)] = true;
        ks_consumer_crash(&w->consumers[c->consumer], w, c->to_ns, c->forward_to);
    }
    if (!trace_fault(w, i, ks_sim_now(&w->sim)))
        return;
    ks_trace *tr = w->trace;
    ks_trace_str(tr, "phase", is_crash(c->type) ? "crash" : open ? "begin" : "end");
    if (c->consumer >= 0)
        ks_trace_str(tr, "consumer", w->sc->consumers[c->consumer].id);
    if (c->producer >= 0)
        ks_trace_str(tr, "producer", w->sc->producers[c->producer].id);
    if (c->broker >= 0)
        ks_trace_u64(tr, "broker", (uint64_t)c->broker);
    if (c->to_ns != KS_TIME_MAX)
        ks_trace_i64(tr, "until", c->to_ns);
    ks_trace_end(tr);
}

/* Does fault c's producer/broker/partition/request selection match the
 * request? */
/* Does fault c's client selection (producer or consumer) match? */
static bool selects_client(const ks_world *w, const ks_fault_conf *c, ks_node client)
{
    if (c->producer >= 0 && (uint32_t)c->producer != ks_world_producer_of(w, client))
        return false;
    if (c->consumer >= 0 &&
        (ks_node_kind_of(&w->nodes, client) != KS_NODE_CONSUMER ||
         ks_node_index(&w->nodes, client) != (uint32_t)c->consumer))
        return false;
    return true;
}

static bool selects(const ks_world *w, uint32_t i, const ks_request *q)
{
    const ks_fault_conf *c = &w->faults.conf[i];
    if (!selects_client(w, c, q->client))
        return false;
    if (c->broker >= 0 && (uint32_t)c->broker != q->server)
        return false;
    if (q->api != c->api)
        return false;
    if (c->request >= 0 && (uint64_t)c->request != q->correlation_id)
        return false;
    uint32_t part = w->faults.partition[i];
    if (part == UINT32_MAX)
        return true;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next)
        if (ks_req_entry(&w->reqs, e)->partition == part)
            return true;
    return false;
}

static bool targeted_hit(ks_world *w, uint32_t i, const ks_request *q, ks_time at)
{
    const ks_fault_conf *c = &w->faults.conf[i];
    if (w->faults.hits[i] >= c->count || at < c->after_ns || !selects(w, i, q))
        return false;
    w->faults.hits[i]++;
    return true;
}

/* Does link fault i cover the link of q (a client's link to a broker)? */
static bool on_link(const ks_world *w, uint32_t i, const ks_request *q)
{
    const ks_fault_conf *c = &w->faults.conf[i];
    /* link faults are of the clients' links; the brokers' own links are
     * left to the replication faults to come */
    if (ks_node_kind_of(&w->nodes, q->client) == KS_NODE_BROKER)
        return false;
    if (!selects_client(w, c, q->client))
        return false;
    return c->broker < 0 || (uint32_t)c->broker == q->server;
}

/* Is one transmission of a segment at `t` lost to link fault i? */
static bool segment_lost(ks_world *w, uint32_t i, ks_time t)
{
    const ks_fault_conf *c = &w->faults.conf[i];
    if (t < c->from_ns || t >= c->to_ns)
        return false;
    return c->type == KS_FAULT_LINK_DOWN || ks_rng_unit(&w->faults.rng[i]) < c->probability;
}

/* TCP under a link fault ([Linux] include/net/tcp.h TCP_RTO_MIN 200 ms,
 * TCP_RTO_MAX 120 s; net.ipv4.tcp_retries2 15): the message travels as
 * ceil(bytes / 1460) segments (the MSS of a 1500-byte MTU); a segment
 * lost is sent again one RTO later, the RTO doubling at each further
 * loss up to TCP_RTO_MAX, and after 15 retransmissions of one segment the
 * connection breaks. The RTO of an established connection is about
 * srtt + TCP_RTO_MIN, ksim takes srtt as twice the link's latency
 * parameter. The message arrives when its last segment does: it is
 * delayed by the longest of its segments' retransmissions. Returns false
 * when the connection breaks (the message is lost); else *extra is the
 * delay, 0 when nothing was lost. */
static bool tcp_under_fault(ks_world *w, uint32_t i, ks_time at, uint64_t bytes,
                            ks_time *extra)
{
    const ks_time rto_min = 200 * KS_NS_PER_MS, rto_max = 120000 * KS_NS_PER_MS;
    ks_time rto0 = ks_time_add(rto_min, 2 * w->net.latency.a_ns);
    uint64_t segments = bytes ? (bytes + 1459u) / 1460u : 1u;
    *extra = 0;
    for (uint64_t s = 0; s < segments; s++) {
        ks_time t = at, rto = rto0;
        for (int tries = 0; segment_lost(w, i, t); tries++) {
            if (tries == 15)
                return false;
            t = ks_time_add(t, rto);
            rto = rto >= rto_max / 2 ? rto_max : 2 * rto;
        }
        if (t - at > *extra)
            *extra = t - at;
        if (w->faults.conf[i].type == KS_FAULT_LINK_DOWN)
            break; /* every segment meets the same cut */
    }
    return true;
}

/* One strike on a message; `broken`: TCP gave up and the message is lost. */
static void trace_strike(ks_world *w, uint32_t i, const ks_request *q, ks_time at,
                         const char *what, ks_time delay, bool broken)
{
    if (!trace_fault(w, i, at))
        return;
    ks_trace *tr = w->trace;
    if (ks_node_kind_of(&w->nodes, q->client) == KS_NODE_PRODUCER)
        ks_trace_str(tr, "producer", q->client_id);
    else if (ks_node_kind_of(&w->nodes, q->client) == KS_NODE_CONSUMER)
        ks_trace_str(tr, "consumer", q->client_id);
    ks_trace_u64(tr, "broker", q->server);
    ks_trace_u64(tr, "request", q->correlation_id);
    if (q->api != KS_API_PRODUCE)
        ks_trace_str(tr, "api", ks_api_name(q->api));
    ks_trace_str(tr, "what", what);
    if (delay > 0)
        ks_trace_i64(tr, "delay_ns", delay);
    if (broken)
        ks_trace_bool(tr, "broken", true);
    ks_trace_end(tr);
}

/* One link fault on a message: TCP retransmits what it loses (a delay,
 * traced), unless the connection breaks (the message is lost). Returns
 * false when it is lost. */
static bool link_fault(ks_world *w, uint32_t i, uint32_t req, ks_net_dir dir, ks_time at,
                       uint64_t bytes, ks_time *delay_ns, const char *what)
{
    ks_time extra;
    bool delivered = tcp_under_fault(w, i, at, bytes, &extra);
    if (delivered && extra == 0)
        return true;
    if (w->faults.conf[i].type != KS_FAULT_LINK_DOWN)
        w->faults.hits[i]++;
    /* retransmitted segments die with their connection */
    ks_req(&w->reqs, req)->retx[dir] = true;
    trace_strike(w, i, ks_req(&w->reqs, req), at, what, delivered ? extra : 0, !delivered);
    *delay_ns = ks_time_add(*delay_ns, extra);
    return delivered;
}

/* Shared by requests and responses: `drop`, `delay` and `loss` are the
 * fault types that act on this direction. */
static int32_t on_message(ks_world *w, uint32_t req, ks_time at, ks_time *delay_ns,
                          ks_fault_type drop, ks_fault_type delay, ks_fault_type loss,
                          const char *what)
{
    const ks_request *q = ks_req(&w->reqs, req);
    ks_net_dir dir = drop == KS_FAULT_DROP_REQUEST ? KS_NET_REQUEST : KS_NET_RESPONSE;
    uint64_t bytes = dir == KS_NET_REQUEST ? q->request_bytes : q->response_bytes;
    for (uint32_t i = 0; i < w->faults.n; i++) {
        ks_fault_type t = w->faults.conf[i].type;
        if (t == delay && targeted_hit(w, i, q, at)) {
            *delay_ns = ks_time_add(*delay_ns, w->faults.conf[i].delay_ns);
            trace_strike(w, i, q, at, what, w->faults.conf[i].delay_ns, false);
        } else if (t == drop && targeted_hit(w, i, q, at)) {
            trace_strike(w, i, q, at, what, 0, false);
            return (int32_t)i;
        } else if ((t == loss || t == KS_FAULT_LINK_DOWN) && on_link(w, i, q) &&
                   !link_fault(w, i, req, dir, at, bytes, delay_ns, what)) {
            return (int32_t)i;
        }
    }
    return KS_NO_FAULT;
}

int32_t ks_faults_request(ks_world *w, uint32_t req, ks_time at, ks_time *delay_ns)
{
    return on_message(w, req, at, delay_ns, KS_FAULT_DROP_REQUEST, KS_FAULT_DELAY_REQUEST,
                      KS_FAULT_REQUEST_LOSS, "request");
}

int32_t ks_faults_response(ks_world *w, uint32_t req, ks_time at, ks_time *delay_ns)
{
    return on_message(w, req, at, delay_ns, KS_FAULT_DROP_RESPONSE, KS_FAULT_DELAY_RESPONSE,
                      KS_FAULT_RESPONSE_LOSS, "response");
}

int32_t ks_faults_append(ks_world *w, uint32_t req, ks_time at, ks_kerr *err,
                         uint32_t *partition)
{
    const ks_request *q = ks_req(&w->reqs, req);
    for (uint32_t i = 0; i < w->faults.n; i++) {
        if (w->faults.conf[i].type != KS_FAULT_APPEND_ERROR || !targeted_hit(w, i, q, at))
            continue;
        *err = w->faults.conf[i].error;
        *partition = w->faults.partition[i];
        if (trace_fault(w, i, at)) {
            ks_trace *tr = w->trace;
            ks_trace_str(tr, "producer", q->client_id);
            ks_trace_u64(tr, "broker", q->server);
            ks_trace_u64(tr, "request", q->correlation_id);
            ks_trace_str(tr, "what", "append");
            ks_trace_str(tr, "error", ks_kerr_name(*err));
            ks_trace_end(tr);
        }
        return (int32_t)i;
    }
    return KS_NO_FAULT;
}

static ks_time paused(const ks_world *w, ks_fault_type type, int32_t who, ks_time at)
{
    ks_time until = 0;
    for (uint32_t i = 0; i < w->faults.n; i++) {
        const ks_fault_conf *c = &w->faults.conf[i];
        if (c->type != type || at < c->from_ns || at >= c->to_ns)
            continue;
        if ((type == KS_FAULT_PAUSE_BROKER ? c->broker : c->producer) == who && c->to_ns > until)
            until = c->to_ns;
    }
    return until;
}

ks_time ks_faults_broker_paused(const ks_world *w, uint32_t broker, ks_time at)
{
    return w->faults.n ? paused(w, KS_FAULT_PAUSE_BROKER, (int32_t)broker, at) : 0;
}

ks_time ks_faults_producer_paused(const ks_world *w, uint32_t producer, ks_time at)
{
    return w->faults.n ? paused(w, KS_FAULT_PAUSE_PRODUCER, (int32_t)producer, at) : 0;
}
