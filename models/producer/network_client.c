/*
 * network_client.c - the producer's connections, in-flight requests and
 * metadata (see network_client.h).
 */
#include "models/producer/network_client.h"

#include "models/producer/prod.h"
#include "models/net/network.h"
#include "models/net/wire.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

bool ks_prod_net_init(ks_producer *p, ks_ctx *cx, const ks_meta *meta)
{
    uint32_t max = p->max_partitions;
    p->brokers = meta->brokers;
    p->nodes = calloc(p->brokers, sizeof *p->nodes);
    p->leader = calloc(max, sizeof *p->leader);
    if (!p->nodes || !p->leader)
        return false;
    /* the bootstrap: what its first Metadata exchange told it */
    for (uint32_t i = 0; i < max; i++)
        p->leader[i] = ks_meta_leader(meta, p->first_partition + i);
    for (uint32_t b = 0; b < p->brokers; b++) {
        ks_prod_node *n = &p->nodes[b];
        n->conn = ks_net_connect(cx->net, p->node, b);
        if (n->conn == UINT32_MAX)
            return false;
        n->fifo_head = n->fifo_tail = KS_REQ_NONE;
        n->timeout_timer = KS_HANDLE_NONE;
    }
    return true;
}

void ks_prod_net_free(ks_producer *p)
{
    free(p->nodes);
    free(p->leader);
    p->nodes = NULL;
    p->leader = NULL;
}

/* When the next metadata refresh is due ([K] Metadata.timeToNextUpdate):
 * metadata.max.age.ms after the last one, or, once an update is asked
 * for (an error that says the metadata is stale, a connection closed),
 * as soon as retry.backoff.ms after the last one allows. */
static ks_time metadata_due(const ks_producer *p)
{
    ks_time backoff = ks_time_add(p->md_last_ns, p->set.retry_backoff_ns);
    if (p->md_need)
        return backoff;
    ks_time age = ks_time_add(p->md_last_ns, p->metadata_max_age_ns);
    return age > backoff ? age : backoff;
}

/* The timer of the next metadata refresh (a daemon: a refresh keeps no
 * run alive), unless one is in flight (its answer or failure arms the
 * next). */
void ks_prod_net_schedule_metadata(ks_producer *p, ks_ctx *cx)
{
    if (p->md_in_flight)
        return;
    ks_time at = ks_sim_not_before_now(&cx->sim, metadata_due(p));
    if (p->metadata_timer != KS_HANDLE_NONE) {
        if (p->metadata_at <= at)
            return;
        ks_sim_cancel(&cx->sim, p->metadata_timer);
    }
    ks_event ev = {.kind = KS_EV_TIMER, .owner = p->node, .tag = KS_TIMER_METADATA};
    p->metadata_timer = ks_sim_schedule_daemon(&cx->sim, at, &ev);
    p->metadata_at = at;
}

void ks_prod_net_request_metadata(ks_producer *p, ks_ctx *cx)
{
    p->md_need = true;
    ks_prod_net_schedule_metadata(p, cx);
}

/* The least loaded broker whose connection can take a request now, or
 * UINT32_MAX (then *next says when to look again). */
uint32_t ks_prod_net_least_loaded(const ks_producer *p, const ks_ctx *cx, ks_time now,
                                  ks_time *next)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t b = 0; b < p->brokers; b++) {
        const ks_prod_node *n = &p->nodes[b];
        ks_time wire = ks_net_wire_free(cx->net, n->conn, KS_NET_REQUEST);
        ks_time when = wire > n->ready_at_ns ? wire : n->ready_at_ns;
        if (n->in_flight >= p->max_in_flight)
            continue;
        if (when > now) {
            if (when < *next)
                *next = when;
            continue;
        }
        if (best == UINT32_MAX || n->in_flight < p->nodes[best].in_flight)
            best = b;
    }
    return best;
}

/* The version of `api` this producer's Kafka release speaks, as its
 * ApiVersions exchange would settle it with a broker of the same release
 * (the highest both know). What ksim's brokers read of it: Produce v11+
 * may be answered TRANSACTION_ABORTABLE (3.8, KIP-890), Produce v12 and
 * EndTxn v5 mean transaction version 2 (4.0, KIP-890 part 2) ([K]
 * clients/src/main/resources/common/message/ProduceRequest.json,
 * EndTxnRequest.json). */
typedef uint16_t api_version_fn(const ks_producer *p, ks_kafka_version v);

static uint16_t produce_version(const ks_producer *p, ks_kafka_version v)
{
    return p->tm.kip890         ? 12
           : v >= KS_KV(3, 8, 0) ? 11
           : v >= KS_KV(3, 7, 0) ? 10
           : v >= KS_KV(2, 8, 0) ? 9
           : v >= KS_KV(2, 4, 0) ? 8
                                 : 7;
}

static uint16_t end_txn_version(const ks_producer *p, ks_kafka_version v)
{
    return p->tm.kip890 ? 5 : v >= KS_KV(3, 8, 0) ? 4 : v >= KS_KV(2, 8, 0) ? 3 : 2;
}

static uint16_t init_producer_id_version(const ks_producer *p, ks_kafka_version v)
{
    (void)p;
    return v >= KS_KV(3, 8, 0) ? 5 : v >= KS_KV(2, 7, 0) ? 4 : v >= KS_KV(2, 5, 0) ? 3 : 1;
}

static uint16_t add_partitions_version(const ks_producer *p, ks_kafka_version v)
{
    (void)p;
    return v >= KS_KV(2, 8, 0) ? 3 : 2;
}

static uint16_t find_coordinator_version(const ks_producer *p, ks_kafka_version v)
{
    (void)p;
    return v >= KS_KV(3, 0, 0) ? 4 : 3;
}

static uint16_t add_offsets_version(const ks_producer *p, ks_kafka_version v)
{
    (void)p;
    return v >= KS_KV(3, 8, 0) ? 4 : v >= KS_KV(2, 8, 0) ? 3 : 2;
}

static uint16_t txn_offset_commit_version(const ks_producer *p, ks_kafka_version v)
{
    (void)p;
    return v >= KS_KV(3, 8, 0) ? 4 : v >= KS_KV(2, 5, 0) ? 3 : 2;
}

static uint16_t metadata_version(const ks_producer *p, ks_kafka_version v)
{
    (void)p;
    return v >= KS_KV(3, 0, 0) ? 12 : 9;
}

/* The APIs the producer sends, and their versions; NULL: never sent
 * (version 0), so a new ApiKey needs no entry unless the producer sends
 * it. */
static api_version_fn *const api_versions[KS_API__COUNT] = {
    [KS_API_PRODUCE] = produce_version,
    [KS_API_END_TXN] = end_txn_version,
    [KS_API_INIT_PRODUCER_ID] = init_producer_id_version,
    [KS_API_ADD_PARTITIONS_TO_TXN] = add_partitions_version,
    [KS_API_FIND_COORDINATOR] = find_coordinator_version,
    [KS_API_ADD_OFFSETS_TO_TXN] = add_offsets_version,
    [KS_API_TXN_OFFSET_COMMIT] = txn_offset_commit_version,
    [KS_API_METADATA] = metadata_version,
};

static uint16_t api_version(const ks_producer *p, const ks_ctx *cx, ks_api api)
{
    api_version_fn *f = (unsigned)api < (unsigned)KS_API__COUNT ? api_versions[api] : NULL;
    return f ? f(p, cx->sc->kafka_version) : 0;
}

uint32_t ks_prod_net_new_request(ks_producer *p, ks_ctx *cx, ks_api api, uint32_t broker)
{
    uint32_t id = ks_request_alloc(&cx->reqs);
    if (id == KS_REQ_NONE) {
        ks_prod_oom(cx);
        return KS_REQ_NONE;
    }
    ks_request *q = ks_req(&cx->reqs, id);
    q->api = api;
    ks_prod_net_address(p, cx, q, broker);
    q->correlation_id = ++p->api_requests[api]; /* from 1, per API */
    q->expects_response = true;
    q->producer_id = -1;
    q->gen = p->nodes[broker].gen;
    q->pnext = KS_REQ_NONE;
    return id;
}

/* The request header and routing: from this producer's node to
 * `broker`, in the API version its Kafka release speaks, with the body
 * fields every request of a transactional producer carries. */
void ks_prod_net_address(ks_producer *p, ks_ctx *cx, ks_request *q, uint32_t broker)
{
    q->client = p->node;
    q->server = broker;
    q->client_id = p->conf->id;
    q->conn = p->nodes[broker].conn;
    q->version = api_version(p, cx, q->api);
    q->transactional_id = p->conf->config[KS_PCFG_TRANSACTIONAL_ID].s;
    q->txn_timeout_ns = p->conf->config[KS_PCFG_TRANSACTION_TIMEOUT_MS].i * KS_NS_PER_MS;
}

/* The request leaves: the observer learns what it carries, then the
 * wire takes it. Whether it will arrive the producer does not learn. */
static ks_time put_on_wire(ks_producer *p, ks_ctx *cx, uint32_t id)
{
    const ks_request *q = ks_req(&cx->reqs, id);
    for (uint32_t e = q->first; q->api == KS_API_PRODUCE && e != KS_REQ_NONE;
         e = ks_req_entry(&cx->reqs, e)->next) {
        const ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        ks_obs_sent(cx->obs, p->index, rb->batch_seq, rb->partition, rb->records,
                    q->correlation_id, rb->attempt);
    }
    return ks_wire_request(cx->wire, id);
}

/* request.timeout.ms for the oldest request on a connection. The timer
 * is lazy: when it fires for a request already answered, it re-arms for
 * the one now oldest, and it is never cancelled (cancelled timers would
 * pile up in the queue for request.timeout.ms). It is a daemon, so that
 * it keeps no run alive after the last response; a connection on which
 * the network lost a message holds the run open until it is closed
 * (network.h, ks_net_lost), so that this timer finds the silence. */
static void arm_timeout(ks_producer *p, ks_ctx *cx, uint32_t broker)
{
    ks_prod_node *n = &p->nodes[broker];
    if (n->fifo_head == KS_REQ_NONE || n->timeout_timer != KS_HANDLE_NONE)
        return;
    ks_time at = ks_time_add(ks_req(&cx->reqs, n->fifo_head)->sent_ns, p->set.request_timeout_ns);
    ks_event ev = {.kind = KS_EV_TIMER,
                   .owner = p->node, .tag = KS_TIMER_REQUEST_TIMEOUT, .arg = broker};
    n->timeout_timer = ks_sim_schedule_daemon(&cx->sim, at, &ev);
}

/* The request is built: it leaves on the wire, and, when an answer is
 * expected, it joins the connection's in-flight list. */
void ks_prod_net_launch(ks_producer *p, ks_ctx *cx, uint32_t broker, uint32_t id, ks_time now,
                        ks_time *sent_out)
{
    ks_prod_node *n = &p->nodes[broker];
    (void)now;
    ks_time sent = put_on_wire(p, cx, id);
    ks_request *q = ks_req(&cx->reqs, id);
    if (q->expects_response) {
        q->refs++; /* the producer's hold, until answered or given up */
        if (n->fifo_tail == KS_REQ_NONE)
            n->fifo_head = id;
        else
            ks_req(&cx->reqs, n->fifo_tail)->pnext = id;
        n->fifo_tail = id;
        n->in_flight++;
        arm_timeout(p, cx, broker);
    }
    *sent_out = sent;
}

/* metadata.max.age.ms passed: a MetadataRequest for the topic goes to
 * the least loaded broker (a daemon: a refresh keeps no run alive). */
void ks_producer_on_metadata(ks_producer *p, ks_ctx *cx)
{
    p->metadata_timer = KS_HANDLE_NONE;
    ks_time now = ks_sim_now(&cx->sim), next = KS_TIME_MAX;
    if (p->md_in_flight)
        return;
    uint32_t broker = ks_prod_net_least_loaded(p, cx, now, &next);
    if (broker == UINT32_MAX) {
        if (next != KS_TIME_MAX) {
            ks_event ev = {.kind = KS_EV_TIMER, .owner = p->node, .tag = KS_TIMER_METADATA};
            p->metadata_timer = ks_sim_schedule_daemon(&cx->sim, next, &ev);
            p->metadata_at = next;
        }
        return;
    }
    p->md_in_flight = true;
    uint32_t id = ks_prod_net_new_request(p, cx, KS_API_METADATA, broker);
    if (id == KS_REQ_NONE)
        return;
    ks_request *q = ks_req(&cx->reqs, id);
    q->topic = p->topic;
    q->daemon = true;
    q->request_bytes =
        30u + (uint32_t)strlen(p->client_id) + (uint32_t)strlen(ks_prod_topic_name(cx, p));
    q->sent_ns = now;
    ks_time sent;
    ks_prod_net_launch(p, cx, broker, id, now, &sent);
}

/* The MetadataResponse: the leaders of the topic's partitions, and the
 * new partitions; the producer acts on it from now on. */
static void metadata_answered(ks_producer *p, ks_ctx *cx, const ks_request *q)
{
    uint32_t known = q->nleaders < p->max_partitions ? q->nleaders : p->max_partitions;
    p->md_in_flight = false;
    if (q->error == KS_KERR_NONE) {
        p->md_need = false;
        p->md_last_ns = ks_sim_now(&cx->sim);
        bool moved = false;
        for (uint32_t i = 0; i < known && i < p->partitions; i++) {
            moved = moved || p->leader[i] != q->leaders[i];
            p->leader[i] = q->leaders[i];
        }
        if (moved && !ks_acc_set_leaders(&p->acc, p->leader))
            ks_prod_oom(cx);
    }
    if (q->error == KS_KERR_NONE && known > p->partitions) {
        for (uint32_t i = p->partitions; i < known; i++)
            p->leader[i] = q->leaders[i];
        p->partitions = known;
        p->acc.partitions = known;
        p->part.partitions = known;
        if (!ks_acc_set_leaders(&p->acc, p->leader))
            ks_prod_oom(cx);
        ks_trace *tr = cx->trace;
        if (tr && ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_METADATA)) {
            ks_trace_str(tr, "producer", p->conf->id);
            ks_trace_str(tr, "topic", ks_prod_topic_name(cx, p));
            ks_trace_u64(tr, "partitions", known);
            ks_trace_end(tr);
        }
    }
    ks_prod_net_schedule_metadata(p, cx);
}

static void close_connection(ks_producer *p, ks_ctx *cx, uint32_t broker, bool timed_out);

/* Takes the oldest request off the connection's in-flight list. */
static uint32_t pop_in_flight(ks_producer *p, ks_ctx *cx, ks_prod_node *n)
{
    uint32_t id = n->fifo_head;
    n->fifo_head = ks_req(&cx->reqs, id)->pnext;
    if (n->fifo_head == KS_REQ_NONE)
        n->fifo_tail = KS_REQ_NONE;
    assert(n->in_flight > 0);
    n->in_flight--;
    (void)p;
    return id;
}

/* NetworkClient closes the connection: every request in flight on it
 * fails with NETWORK_EXCEPTION, oldest first (InFlightRequests.clearAll
 * iterates oldest first), and each failed batch is retried or failed.
 * Responses still on the way are ignored when they arrive. The producer
 * reconnects after reconnect.backoff.ms. */
static void close_connection(ks_producer *p, ks_ctx *cx, uint32_t broker, bool timed_out)
{
    ks_prod_node *n = &p->nodes[broker];
    ks_time now = ks_sim_now(&cx->sim);
    n->gen++;
    ks_time backoff = ks_time_from_ms(p->conf->config[KS_PCFG_RECONNECT_BACKOFF_MS].i);
    n->ready_at_ns = ks_time_add(now, backoff);
    ks_net_reconnect(cx->net, n->conn);
    p->connection_closes++;
    ks_trace *tr = cx->trace;
    if (tr && ks_trace_begin(tr, now, KS_TR_PRODUCER)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_str(tr, "what", "disconnect");
        ks_trace_u64(tr, "broker", broker);
        ks_trace_u64(tr, "in_flight", n->in_flight);
        ks_trace_str(tr, "error", timed_out ? "request timed out" : "connection closed");
        ks_trace_end(tr);
    }
    /* From 3.4 (KAFKA-14317) the requests of a connection closed for a
     * timeout fail with REQUEST_TIMED_OUT (Sender.handleProduceResponse:
     * wasTimedOut), before with NETWORK_EXCEPTION; both are retriable. */
    ks_kerr err = timed_out && cx->sc->kafka_version >= KS_KV(3, 4, 0) ? KS_KERR_REQUEST_TIMED_OUT
                                                                       : KS_KERR_NETWORK_EXCEPTION;
    bool first = true;
    while (n->fifo_head != KS_REQ_NONE) {
        uint32_t id = pop_in_flight(p, cx, n);
        ks_request *q = ks_req(&cx->reqs, id);
        if (q->api == KS_API_METADATA) {
            p->md_in_flight = false; /* the refresh asks again (below) */
        } else {
            p->net->given_up(p, cx, q, err, first, timed_out);
            first = false;
        }
        ks_request_unref(&cx->reqs, id); /* the producer's hold */
    }
    /* "we disconnected, so we should probably refresh our metadata"
     * ([K] NetworkClient.handleTimedOutRequests, handleDisconnections) */
    ks_prod_net_request_metadata(p, cx);
    p->net->after(p, cx);
}

void ks_prod_net_crash(ks_producer *p, ks_ctx *cx)
{
    for (uint32_t b = 0; b < p->brokers; b++) {
        ks_prod_node *n = &p->nodes[b];
        n->gen++;
        ks_net_reconnect(cx->net, n->conn); /* its sockets close with it */
        while (n->fifo_head != KS_REQ_NONE)
            ks_request_unref(&cx->reqs, pop_in_flight(p, cx, n)); /* the producer's hold */
    }
}

void ks_producer_on_request_timeout(ks_producer *p, ks_ctx *cx, uint32_t broker)
{
    ks_prod_node *n = &p->nodes[broker];
    n->timeout_timer = KS_HANDLE_NONE;
    if (n->fifo_head == KS_REQ_NONE)
        return;
    ks_time deadline =
        ks_time_add(ks_req(&cx->reqs, n->fifo_head)->sent_ns, p->set.request_timeout_ns);
    if (deadline <= ks_sim_now(&cx->sim))
        close_connection(p, cx, broker, true);
    else
        arm_timeout(p, cx, broker);
}

/* A "response" trace record: the request's answer, its first error. */
static void trace_response(const ks_producer *p, ks_ctx *cx, const ks_request *q, ks_time now)
{
    (void)p;
    if (!cx->trace)
        return;
    ks_kerr err = q->api == KS_API_PRODUCE ? KS_KERR_NONE : q->error;
    for (uint32_t e = q->first; q->api == KS_API_PRODUCE && e != KS_REQ_NONE &&
                                err == KS_KERR_NONE;
         e = ks_req_entry(&cx->reqs, e)->next)
        err = ks_req_entry(&cx->reqs, e)->error;
    ks_wire_trace_response(cx->trace, cx->nodes, q, now, err);
}

/* ---- Response dispatch -------------------------------------------------- */

/* Hands response q to its handler: a MetadataResponse is the network
 * client's own, every other the producer's. */
static void dispatch_response(ks_producer *p, ks_ctx *cx, ks_request *q)
{
    if (q->api == KS_API_METADATA)
        metadata_answered(p, cx, q);
    else
        p->net->answered(p, cx, q);
}

/* Responses on a connection are handled in request order, as
 * NetworkClient does: one that arrives while an older request is still
 * unanswered waits behind it. */
static void handle_arrived(ks_producer *p, ks_ctx *cx, uint32_t broker)
{
    ks_prod_node *n = &p->nodes[broker];
    ks_time now = ks_sim_now(&cx->sim);
    while (n->fifo_head != KS_REQ_NONE && ks_req(&cx->reqs, n->fifo_head)->arrived) {
        uint32_t id = pop_in_flight(p, cx, n);
        ks_request *q = ks_req(&cx->reqs, id);
        p->responses++;
        trace_response(p, cx, q, now);
        dispatch_response(p, cx, q);
        ks_request_unref(&cx->reqs, id); /* the producer's hold */
        if (cx->sim.verdict != KS_SIM_RUNNING)
            return;
    }
    arm_timeout(p, cx, broker);
}

void ks_producer_on_response(ks_producer *p, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    uint32_t broker = q->server;
    if (q->gen == p->nodes[broker].gen) {
        q->arrived = true;
        handle_arrived(p, cx, broker);
    } /* else its connection was closed meanwhile: nobody reads it */
    ks_request_unref(&cx->reqs, id); /* the response event's hold */
    p->net->after(p, cx);
}
