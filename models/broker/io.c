/*
 * io.c - a broker's request handling machinery (see io.h).
 *
 * A connection's requests wait in its own FIFO. A connection with work
 * and no request in service joins the broker's FIFO of connections
 * waiting for a handler thread. Kafka's network layer mutes a channel
 * while one of its requests is being handled ([K] core/.../network/
 * SocketServer.scala, Processor: "the channel is muted until the response
 * is sent"), which is what keeps responses in request order.
 */
#include "models/broker/io.h"

#include "models/events.h"
#include "models/net/network.h"
#include "models/net/wire.h"
#include "models/trace_kinds.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define CONN_NONE UINT32_MAX

bool ks_bio_init(ks_bio *io, const ks_scenario *sc, uint32_t broker, uint32_t brokers)
{
    memset(io, 0, sizeof *io);
    io->broker = broker;
    io->cost = &sc->broker_costs[broker];
    io->client_timeout_ns = ks_time_from_ms(sc->broker_config[KS_BCFG_REQUEST_TIMEOUT_MS].i);
    io->threads = (uint32_t)sc->broker_config[KS_BCFG_NUM_IO_THREADS].i;
    io->wait_head = io->wait_tail = CONN_NONE;
    io->out = calloc(brokers ? brokers : 1u, sizeof *io->out);
    if (!io->out)
        return false;
    io->nout = brokers;
    for (uint32_t to = 0; to < brokers; to++)
        ks_client_conn_init(&io->out[to]);
    return true;
}

void ks_bio_free(ks_bio *io)
{
    for (uint32_t i = 0; io->out && i < io->nout; i++)
        ks_client_conn_free(&io->out[i]);
    free(io->out);
    free(io->conns);
    memset(io, 0, sizeof *io);
}

/* Handling cost: per request, per partition batch appended, per byte
 * (rounded to ns), per batch with a producer id. */
static ks_time handling_ns(const ks_bio *io, const ks_ctx *cx, const ks_request *q)
{
    const ks_broker_cost *c = io->cost;
    ks_time bytes_ns =
        (ks_time)(((uint64_t)q->request_bytes * (uint64_t)c->byte_ps + 500u) / 1000u);
    /* Compressed batches are decompressed to validate their records
     * ([K] storage/.../LogValidator, the compressed path); a batch with a
     * producer id has its producer state looked up and its sequence
     * checked ([K] ProducerStateManager, ProducerAppendInfo). */
    uint64_t decompress_ps = 0;
    ks_time sequenced = 0;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        const ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        decompress_ps += rb->raw * (uint64_t)rb->decompress_ps;
        sequenced += rb->base_seq >= 0 ? 1 : 0;
    }
    ks_time cost = ks_time_add(c->request_ns, (ks_time)q->batches * c->batch_ns);
    cost = ks_time_add(cost, sequenced * c->idempotent_batch_ns);
    cost = ks_time_add(cost, bytes_ns);
    return ks_time_add(cost, (ks_time)((decompress_ps + 500u) / 1000u));
}

static void start(ks_bio *io, ks_ctx *cx, uint32_t conn)
{
    ks_bio_conn *c = &io->conns[conn];
    uint32_t id = c->q_head;
    assert(id != KS_REQ_NONE && !c->serving);
    ks_request *q = ks_req(&cx->reqs, id);
    c->q_head = q->next;
    if (c->q_head == KS_REQ_NONE)
        c->q_tail = KS_REQ_NONE;
    c->serving = true;
    c->handling = true;
    c->handle_start_ns = ks_sim_now(&cx->sim);
    io->busy_threads++;
    io->queued--;
    ks_time cost = handling_ns(io, cx, q);
    ks_event ev = {.kind = KS_EV_APPEND, .owner = conn, .tag = io->broker, .arg = id};
    ks_time at = ks_time_add(ks_sim_now(&cx->sim), cost);
    if (q->daemon)
        ks_sim_schedule_daemon(&cx->sim, at, &ev);
    else
        ks_sim_schedule(&cx->sim, at, &ev);
}

static void wait_for_thread(ks_bio *io, uint32_t conn)
{
    ks_bio_conn *c = &io->conns[conn];
    assert(!c->waiting && !c->serving);
    c->waiting = true;
    c->next_waiting = CONN_NONE;
    if (io->wait_tail == CONN_NONE)
        io->wait_head = conn;
    else
        io->conns[io->wait_tail].next_waiting = conn;
    io->wait_tail = conn;
}

/* Gives free threads to waiting connections, oldest first. */
static void dispatch(ks_bio *io, ks_ctx *cx)
{
    while (io->busy_threads < io->threads && io->wait_head != CONN_NONE) {
        uint32_t conn = io->wait_head;
        ks_bio_conn *c = &io->conns[conn];
        io->wait_head = c->next_waiting;
        if (io->wait_head == CONN_NONE)
            io->wait_tail = CONN_NONE;
        c->waiting = false;
        start(io, cx, conn);
    }
}

/* The broker's side of connection `conn`, made when its first request
 * arrives. False when out of memory. */
static bool ensure_conn(ks_bio *io, uint32_t conn)
{
    if (conn < io->conn_cap)
        return true;
    uint32_t cap = io->conn_cap ? io->conn_cap : 16u;
    while (cap <= conn)
        cap *= 2u;
    ks_bio_conn *c = realloc(io->conns, cap * sizeof *c);
    if (!c)
        return false;
    for (uint32_t i = io->conn_cap; i < cap; i++) {
        memset(&c[i], 0, sizeof c[i]);
        c[i].q_head = c[i].q_tail = KS_REQ_NONE;
        c[i].next_waiting = CONN_NONE;
    }
    io->conns = c;
    io->conn_cap = cap;
    return true;
}

static void trace_arrive(const ks_bio *io, ks_ctx *cx, const ks_request *q)
{
    ks_trace *tr = cx->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_ARRIVE))
        return;
    ks_trace_u64(tr, "broker", io->broker);
    ks_request_trace_client(tr, cx->nodes, q);
    ks_trace_u64(tr, "request", q->correlation_id);
    if (q->api != KS_API_PRODUCE) /* as its send line names it */
        ks_trace_str(tr, "api", ks_api_name(q->api));
    ks_trace_u64(tr, "bytes", q->request_bytes);
    ks_trace_u64(tr, "queued", io->queued);
    ks_trace_end(tr);
}

void ks_bio_arrived(ks_bio *io, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    if (!ensure_conn(io, q->conn)) {
        ks_ctx_oom(cx);
        return;
    }
    ks_bio_conn *c = &io->conns[q->conn];
    io->requests++;
    io->bytes_in += q->request_bytes;
    q->next = KS_REQ_NONE;
    if (c->q_tail == KS_REQ_NONE)
        c->q_head = id;
    else
        ks_req(&cx->reqs, c->q_tail)->next = id;
    c->q_tail = id;
    io->queued++;
    if (io->queued > io->queue_len_max)
        io->queue_len_max = io->queued;
    trace_arrive(io, cx, q);
    if (!c->serving && !c->waiting) {
        wait_for_thread(io, q->conn);
        dispatch(io, cx);
    }
}

void ks_bio_handled(ks_bio *io, ks_ctx *cx, uint32_t id, bool later)
{
    ks_request *q = ks_req(&cx->reqs, id);
    uint32_t conn = q->conn;
    ks_bio_conn *c = &io->conns[conn];
    c->handling = false;
    io->busy_ns += ks_sim_now(&cx->sim) - c->handle_start_ns;
    io->busy_threads--;
    /* The thread is free now; the connection stays muted until the
     * response has been written (or, with acks=0, the request is done). */
    if (later) {
        dispatch(io, cx);
        return;
    }
    if (!q->expects_response) {
        ks_request_unref(&cx->reqs, id); /* acks=0: nothing to answer */
        ks_bio_responded(io, cx, conn, KS_REQ_NONE);
        return;
    }
    ks_bio_respond(io, cx, id);
    dispatch(io, cx);
}

void ks_bio_respond(ks_bio *io, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    uint32_t conn = q->conn;
    if (q->response_bytes == 0)
        q->response_bytes = 24u; /* a small response: error and a few ids */
    ks_time leaves = ks_time_add(ks_sim_now(&cx->sim), io->cost->response_delay_ns);
    /* the connection takes its next request once this one is written */
    ks_event done = {.kind = KS_EV_RESPONDED, .owner = conn, .tag = io->broker, .arg = id};
    ks_time written = ks_net_sent_at(cx->net, conn, KS_NET_RESPONSE, leaves, q->response_bytes);
    if (q->daemon)
        ks_sim_schedule_daemon(&cx->sim, written, &done);
    else
        ks_sim_schedule(&cx->sim, written, &done);
    ks_wire_response(cx->wire, id, leaves);
}

void ks_bio_responded(ks_bio *io, ks_ctx *cx, uint32_t conn, uint32_t id)
{
    if (id != KS_REQ_NONE)
        ks_request_unref(&cx->reqs, id); /* the broker is done with it */
    ks_bio_conn *c = &io->conns[conn];
    c->serving = false;
    if (c->q_head != KS_REQ_NONE)
        wait_for_thread(io, conn);
    dispatch(io, cx);
}

ks_time ks_bio_busy_ns(const ks_bio *io, ks_time now)
{
    ks_time busy = io->busy_ns;
    for (uint32_t i = 0; i < io->conn_cap; i++)
        if (io->conns[i].handling)
            busy += now - io->conns[i].handle_start_ns;
    return busy;
}

/* ---- the broker as a client of other brokers ------------------------------ */

uint32_t ks_bio_new_request(ks_bio *io, ks_ctx *cx, uint32_t to, ks_api api, uint16_t version)
{
    ks_client_conn *cc = &io->out[to];
    if (cc->conn == KS_CLIENT_NONE)
        cc->conn = ks_net_connect(cx->net, io->broker, to);
    ks_request_head h = {api, version, io->broker, to, cx->names[io->broker], cc->conn,
                         io->api_requests[api] + 1};
    uint32_t id = cc->conn == UINT32_MAX ? KS_REQ_NONE : ks_request_open(&cx->reqs, &h);
    if (id == KS_REQ_NONE) {
        ks_ctx_oom(cx);
        return KS_REQ_NONE;
    }
    io->api_requests[api]++;
    return id;
}

static ks_event client_timer(const ks_bio *io, uint32_t to)
{
    return (ks_event){.kind = KS_EV_BROKER, .owner = io->broker, .tag = KS_BROKER_CLIENT_TIMEOUT,
                      .arg = to};
}

void ks_bio_send(ks_bio *io, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    q->sent_ns = ks_sim_now(&cx->sim);
    q->refs++; /* the sender's hold, until answered or given up */
    ks_event t = client_timer(io, q->server);
    if (!ks_client_sent(&io->out[q->server], &cx->sim, id, q->sent_ns, io->client_timeout_ns,
                        &t)) {
        ks_ctx_oom(cx);
        return;
    }
    (void)ks_wire_request(cx->wire, id);
}

bool ks_bio_answer(ks_bio *io, ks_ctx *cx, uint32_t id)
{
    uint32_t to = ks_req(&cx->reqs, id)->server;
    bool mine = ks_client_arrived(&io->out[to], id);
    ks_request_unref(&cx->reqs, id); /* the response event's hold */
    return mine;
}

uint32_t ks_bio_take_answered(ks_bio *io, uint32_t to)
{
    uint32_t id = ks_client_take_answered(&io->out[to]);
    return id == KS_CLIENT_NONE ? KS_REQ_NONE : id;
}

void ks_bio_rearm(ks_bio *io, ks_ctx *cx, uint32_t to)
{
    ks_event t = client_timer(io, to);
    ks_client_rearm(&io->out[to], &cx->sim, io->client_timeout_ns, &t);
}

uint32_t ks_bio_client_timeout(ks_bio *io, ks_ctx *cx, uint32_t to)
{
    ks_client_conn *cc = &io->out[to];
    ks_event t = client_timer(io, to);
    if (!ks_client_on_timer(cc, &cx->sim, io->client_timeout_ns, &t))
        return 0;
    uint32_t n = ks_client_close(cc, &cx->sim);
    ks_client_trace_disconnect(cx->trace, KS_TR_DISCONNECT, ks_sim_now(&cx->sim), "client",
                               cx->names[io->broker], to, NULL, n, io->client_timeout_ns);
    ks_net_reconnect(cx->net, cc->conn);
    return n;
}

uint32_t ks_bio_take_given_up(ks_bio *io, uint32_t to)
{
    uint32_t id = ks_client_take(&io->out[to]);
    return id == KS_CLIENT_NONE ? KS_REQ_NONE : id;
}

void ks_bio_rehandle(ks_bio *io, uint32_t to, ks_handle h, ks_time at)
{
    ks_client_rehandle(&io->out[to], h, at);
}
