/*
 * faults.c - fault injection at run time (see faults.h).
 */
#include "models/net/faults.h"

#include "models/net/network.h"
#include "models/trace_kinds.h"


#include <stdio.h>
#include <stdlib.h>

bool ks_faults_init(ks_faults *f, const ks_faults_env *env, const uint32_t *topic_first,
                    ks_streams *streams)
{
    const ks_scenario *sc = env->sc;
    f->env = *env;
    f->n = sc->fault_count;
    f->conf = sc->faults;
    if (f->n == 0)
        return true;
    f->hits = calloc(f->n, sizeof *f->hits);
    f->partition = calloc(f->n, sizeof *f->partition);
    f->rng = calloc(f->n, sizeof *f->rng);
    f->client = calloc(f->n, sizeof *f->client);
    if (!f->hits || !f->partition || !f->rng || !f->client)
        return false;
    for (uint32_t i = 0; i < f->n; i++) {
        const ks_fault_conf *c = &f->conf[i];
        f->partition[i] = c->topic < 0 ? UINT32_MAX
                                       : topic_first[c->topic] + (uint32_t)c->partition;
        f->client[i] = c->producer >= 0   ? ks_node_producer(env->nodes, (uint32_t)c->producer)
                       : c->consumer >= 0 ? ks_node_consumer(env->nodes, (uint32_t)c->consumer)
                                          : KS_NODE_NONE;
        /* named by the fault, not by its place (fault_section.h) */
        if ((c->type == KS_FAULT_REQUEST_LOSS || c->type == KS_FAULT_RESPONSE_LOSS) &&
            !ks_streams_add(streams, &f->rng[i], c->stream))
            return false;
    }
    return true;
}

void ks_faults_free(ks_faults *f)
{
    free(f->hits);
    free(f->partition);
    free(f->rng);
    free(f->client);
    f->hits = f->partition = NULL;
    f->rng = NULL;
    f->client = NULL;
}

static bool is_window(ks_fault_type t)
{
    return t == KS_FAULT_LINK_DOWN || t == KS_FAULT_PAUSE_BROKER || t == KS_FAULT_PAUSE_PRODUCER;
}

static bool is_crash(ks_fault_type t)
{
    return t == KS_FAULT_CRASH_PRODUCER || t == KS_FAULT_CRASH_CONSUMER;
}

void ks_faults_start(ks_faults *f)
{
    for (uint32_t i = 0; i < f->n; i++) {
        const ks_fault_conf *c = &f->conf[i];
        if (!is_window(c->type) && !is_crash(c->type))
            continue;
        ks_event ev = {.kind = KS_EV_FAULT, .owner = i, .tag = 1};
        ks_sim_schedule_daemon(f->env.sim, c->from_ns, &ev);
        if (is_crash(c->type))
            continue; /* a restart, if any, is scheduled when it crashes */
        ev.tag = 0;
        ks_sim_schedule_daemon(f->env.sim, c->to_ns, &ev);
    }
}

/* Starts a "fault" trace record with what every record has. The record
 * is stamped now, like every line, so that the trace stays in time order;
 * a fault decided now for a message that leaves later (when the sender
 * has built it) says when it strikes in "at_t". */
static bool trace_fault(ks_faults *f, uint32_t i, ks_time at)
{
    ks_trace *tr = f->env.trace;
    ks_time now = ks_sim_now(f->env.sim);
    if (!tr || !ks_trace_begin(tr, now, KS_TR_FAULT))
        return false;
    ks_trace_u64(tr, "fault", i);
    ks_trace_str(tr, "type", ks_fault_type_name(f->conf[i].type));
    if (at != now)
        ks_trace_i64(tr, "at_t", at);
    return true;
}

/* The node a window or crash fault acts on. */
static ks_node target_of(const ks_faults *f, const ks_fault_conf *c)
{
    if (c->type == KS_FAULT_PAUSE_BROKER)
        return ks_node_broker(f->env.nodes, (uint32_t)c->broker);
    if (c->type == KS_FAULT_PAUSE_PRODUCER || c->type == KS_FAULT_CRASH_PRODUCER)
        return ks_node_producer(f->env.nodes, (uint32_t)c->producer);
    if (c->type == KS_FAULT_CRASH_CONSUMER)
        return ks_node_consumer(f->env.nodes, (uint32_t)c->consumer);
    return KS_NODE_NONE;
}

/* What the world does to a node when window or crash fault c opens
 * (open) or closes. */
static ks_nemesis action_of(const ks_faults *f, const ks_fault_conf *c, bool open)
{
    ks_nemesis a = {.what = KS_NEMESIS_NONE, .node = target_of(f, c)};
    if (c->type == KS_FAULT_CRASH_PRODUCER || c->type == KS_FAULT_CRASH_CONSUMER) {
        a.what = KS_NEMESIS_CRASH;
        a.until = c->type == KS_FAULT_CRASH_CONSUMER ? c->to_ns : KS_TIME_MAX;
        a.arg = c->forward_to;
    } else if (c->type == KS_FAULT_PAUSE_BROKER || c->type == KS_FAULT_PAUSE_PRODUCER) {
        a.what = open ? KS_NEMESIS_PAUSE : KS_NEMESIS_RESUME;
        a.until = c->to_ns;
    }
    return a;
}

ks_nemesis ks_faults_on_window(ks_faults *f, uint32_t i, bool open)
{
    const ks_fault_conf *c = &f->conf[i];
    if (open)
        f->hits[i]++;
    ks_nemesis a = action_of(f, c, open);
    if (!trace_fault(f, i, ks_sim_now(f->env.sim)))
        return a;
    ks_trace *tr = f->env.trace;
    ks_trace_str(tr, "phase", is_crash(c->type) ? "crash" : open ? "begin" : "end");
    if (c->consumer >= 0)
        ks_trace_str(tr, "consumer", f->env.sc->consumers[c->consumer].id);
    if (c->producer >= 0)
        ks_trace_str(tr, "producer", f->env.sc->producers[c->producer].id);
    if (c->broker >= 0)
        ks_trace_u64(tr, "broker", (uint64_t)c->broker);
    if (c->to_ns != KS_TIME_MAX)
        ks_trace_i64(tr, "until", c->to_ns);
    ks_trace_end(tr);
    return a;
}

/* Does fault c's producer/broker/partition/request selection match the
 * request? */
/* Does fault i's client selection (producer or consumer) match? */
static bool selects_client(const ks_faults *f, uint32_t i, ks_node client)
{
    return f->client[i] == KS_NODE_NONE || f->client[i] == client;
}

static bool selects(const ks_faults *f, uint32_t i, const ks_request *q)
{
    const ks_fault_conf *c = &f->conf[i];
    if (!selects_client(f, i, q->client))
        return false;
    if (c->broker >= 0 && (uint32_t)c->broker != q->server)
        return false;
    if (q->api != c->api)
        return false;
    if (c->request >= 0 && (uint64_t)c->request != q->correlation_id)
        return false;
    uint32_t part = f->partition[i];
    if (part == UINT32_MAX)
        return true;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(f->env.reqs, e)->next)
        if (ks_req_entry(f->env.reqs, e)->partition == part)
            return true;
    return false;
}

static bool targeted_hit(ks_faults *f, uint32_t i, const ks_request *q, ks_time at)
{
    const ks_fault_conf *c = &f->conf[i];
    if (f->hits[i] >= c->count || at < c->after_ns || !selects(f, i, q))
        return false;
    f->hits[i]++;
    return true;
}

/* Does link fault i cover the link of q (a client's link to a broker)? */
static bool on_link(const ks_faults *f, uint32_t i, const ks_request *q)
{
    const ks_fault_conf *c = &f->conf[i];
    /* link faults are of the clients' links; the brokers' own links are
     * left to the replication faults to come */
    if (ks_node_kind_of(f->env.nodes, q->client) == KS_NODE_BROKER)
        return false;
    if (!selects_client(f, i, q->client))
        return false;
    return c->broker < 0 || (uint32_t)c->broker == q->server;
}

/* Is one transmission of a segment at `t` lost to link fault i? */
static bool segment_lost(ks_faults *f, uint32_t i, ks_time t)
{
    const ks_fault_conf *c = &f->conf[i];
    if (t < c->from_ns || t >= c->to_ns)
        return false;
    return c->type == KS_FAULT_LINK_DOWN || ks_rng_unit(&f->rng[i]) < c->probability;
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
static bool tcp_under_fault(ks_faults *f, uint32_t i, ks_time at, uint64_t bytes,
                            ks_time *extra)
{
    const ks_time rto_min = 200 * KS_NS_PER_MS, rto_max = 120000 * KS_NS_PER_MS;
    ks_time rto0 = ks_time_add(rto_min, 2 * f->env.net->latency.a_ns);
    uint64_t segments = bytes ? (bytes + 1459u) / 1460u : 1u;
    *extra = 0;
    for (uint64_t s = 0; s < segments; s++) {
        ks_time t = at, rto = rto0;
        for (int tries = 0; segment_lost(f, i, t); tries++) {
            if (tries == 15)
                return false;
            t = ks_time_add(t, rto);
            rto = rto >= rto_max / 2 ? rto_max : 2 * rto;
        }
        if (t - at > *extra)
            *extra = t - at;
        if (f->conf[i].type == KS_FAULT_LINK_DOWN)
            break; /* every segment meets the same cut */
    }
    return true;
}

/* One strike on a message; `broken`: TCP gave up and the message is lost. */
static void trace_strike(ks_faults *f, uint32_t i, const ks_request *q, ks_time at,
                         const char *what, ks_time delay, bool broken)
{
    if (!trace_fault(f, i, at))
        return;
    ks_trace *tr = f->env.trace;
    ks_request_trace_client(tr, f->env.nodes, q);
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
static bool link_fault(ks_faults *f, uint32_t i, uint32_t req, ks_net_dir dir, ks_time at,
                       uint64_t bytes, ks_time *delay_ns, const char *what)
{
    ks_time extra;
    bool delivered = tcp_under_fault(f, i, at, bytes, &extra);
    if (delivered && extra == 0)
        return true;
    if (f->conf[i].type != KS_FAULT_LINK_DOWN)
        f->hits[i]++;
    /* retransmitted segments die with their connection */
    ks_req(f->env.reqs, req)->retx[dir] = true;
    trace_strike(f, i, ks_req(f->env.reqs, req), at, what, delivered ? extra : 0, !delivered);
    *delay_ns = ks_time_add(*delay_ns, extra);
    return delivered;
}

/* Shared by requests and responses: `drop`, `delay` and `loss` are the
 * fault types that act on this direction. */
static int32_t on_message(ks_faults *f, uint32_t req, ks_time at, ks_time *delay_ns,
                          ks_fault_type drop, ks_fault_type delay, ks_fault_type loss,
                          const char *what)
{
    const ks_request *q = ks_req(f->env.reqs, req);
    ks_net_dir dir = drop == KS_FAULT_DROP_REQUEST ? KS_NET_REQUEST : KS_NET_RESPONSE;
    uint64_t bytes = dir == KS_NET_REQUEST ? q->request_bytes : q->response_bytes;
    for (uint32_t i = 0; i < f->n; i++) {
        ks_fault_type t = f->conf[i].type;
        if (t == delay && targeted_hit(f, i, q, at)) {
            *delay_ns = ks_time_add(*delay_ns, f->conf[i].delay_ns);
            trace_strike(f, i, q, at, what, f->conf[i].delay_ns, false);
        } else if (t == drop && targeted_hit(f, i, q, at)) {
            trace_strike(f, i, q, at, what, 0, false);
            return (int32_t)i;
        } else if ((t == loss || t == KS_FAULT_LINK_DOWN) && on_link(f, i, q) &&
                   !link_fault(f, i, req, dir, at, bytes, delay_ns, what)) {
            return (int32_t)i;
        }
    }
    return KS_NO_FAULT;
}

int32_t ks_faults_request(ks_faults *f, uint32_t req, ks_time at, ks_time *delay_ns)
{
    return on_message(f, req, at, delay_ns, KS_FAULT_DROP_REQUEST, KS_FAULT_DELAY_REQUEST,
                      KS_FAULT_REQUEST_LOSS, "request");
}

int32_t ks_faults_response(ks_faults *f, uint32_t req, ks_time at, ks_time *delay_ns)
{
    return on_message(f, req, at, delay_ns, KS_FAULT_DROP_RESPONSE, KS_FAULT_DELAY_RESPONSE,
                      KS_FAULT_RESPONSE_LOSS, "response");
}

int32_t ks_faults_append(ks_faults *f, uint32_t req, ks_time at, ks_kerr *err,
                         uint32_t *partition)
{
    const ks_request *q = ks_req(f->env.reqs, req);
    for (uint32_t i = 0; i < f->n; i++) {
        if (f->conf[i].type != KS_FAULT_APPEND_ERROR || !targeted_hit(f, i, q, at))
            continue;
        *err = f->conf[i].error;
        *partition = f->partition[i];
        if (trace_fault(f, i, at)) {
            ks_trace *tr = f->env.trace;
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

ks_time ks_faults_paused_until(const ks_faults *f, ks_node node, ks_time at)
{
    ks_time until = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        const ks_fault_conf *c = &f->conf[i];
        if (c->type != KS_FAULT_PAUSE_BROKER && c->type != KS_FAULT_PAUSE_PRODUCER)
            continue;
        if (at < c->from_ns || at >= c->to_ns || target_of(f, c) != node)
            continue;
        if (c->to_ns > until)
            until = c->to_ns;
    }
    return until;
}
