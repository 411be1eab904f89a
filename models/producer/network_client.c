/*
 * network_client.c - the producer's connections, in-flight requests and
 * metadata (see network_client.h).
 */
#include "models/producer/network_client.h"

#include "models/producer/producer.h"
#include "models/producer/sender.h"
#include "models/producer/txn_manager.h"
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

/* The next metadata refresh, worth scheduling while an admin operation
 * on the producer's topic is still to come (none else changes metadata;
 * a refresh that finds nothing keeps no run alive, but scheduling it
 * forever would be work for nothing). metadata.max.age.ms 0 refreshes
 * again as soon as the last refresh is answered ([K] Metadata
 * .timeToNextUpdate). */
void ks_prod_net_schedule_metadata(ks_producer *p, ks_ctx *cx)
{
    const ks_scenario *sc = cx->sc;
    ks_time now = ks_sim_now(&cx->sim), last = -1;
    for (uint32_t i = 0; i < sc->admin_count; i++)
        if (sc->admin[i].topic == p->topic)
            last = sc->admin[i].at_ns;
    if (last < 0 || now > last)
        return;
    ks_time age = p->metadata_max_age_ns > 0 ? p->metadata_max_age_ns : 0;
    ks_event ev = {.kind = KS_EV_TIMER, .owner = p->node, .tag = KS_TIMER_METADATA};
    p->metadata_timer = ks_sim_schedule_daemon(&cx->sim, ks_time_add(now, age), &ev);
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
    uint32_t broker = ks_prod_net_least_loaded(p, cx, now, &next);
    if (broker == UINT32_MAX) {
        if (next != KS_TIME_MAX) {
            ks_event ev = {.kind = KS_EV_TIMER, .owner = p->node, .tag = KS_TIMER_METADATA};
            p->metadata_timer = ks_sim_schedule_daemon(&cx->sim, next, &ev);
        }
        return;
    }
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

/* The MetadataResponse: new partitions of the topic and their leaders. */
static void metadata_answered(ks_producer *p, ks_ctx *cx, const ks_request *q)
{
    uint32_t known = q->nleaders < p->max_partitions ? q->nleaders : p->max_partitions;
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
            ks_prod_net_schedule_metadata(p, cx); /* the next refresh asks again */
            ks_request_unref(&cx->reqs, id);
            continue;
        }
        if (q->api != KS_API_PRODUCE) {
            /* retried after retry.backoff.ms, like every request of the
             * TransactionManager */
            ks_prod_tm_request_lost(p, now);
            first = false;
            ks_request_unref(&cx->reqs, id);
            continue;
        }
        /* what the producer saw of it (the observer keeps what the
         * network saw, when it lost a message of this request) */
        ks_obs_request_fate(cx->obs, p->index, q->correlation_id,
                            first && timed_out ? KS_FATE_TIMED_OUT : KS_FATE_DISCARDED,
                            KS_OBS_NO_FAULT);
        first = false;
        ks_prod_sender_fail_request(p, cx, q, err);
        ks_request_unref(&cx->reqs, id); /* the producer's hold */
    }
    ks_prod_send_try_unblock(p, cx);
    ks_prod_sender_wake(p, cx, now);
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
    ks_trace *tr = cx->trace;
    if (!tr || !ks_trace_begin(tr, now, KS_TR_RESPONSE))
        return;
    ks_trace_str(tr, "producer", p->conf->id);
    ks_trace_u64(tr, "broker", q->server);
    ks_trace_u64(tr, "request", q->correlation_id);
    if (q->api != KS_API_PRODUCE)
        ks_trace_str(tr, "api", ks_api_name(q->api));
    ks_kerr err = q->api == KS_API_PRODUCE ? KS_KERR_NONE : q->error;
    for (uint32_t e = q->first; q->api == KS_API_PRODUCE && e != KS_REQ_NONE &&
                                err == KS_KERR_NONE;
         e = ks_req_entry(&cx->reqs, e)->next)
        err = ks_req_entry(&cx->reqs, e)->error;
    ks_trace_str(tr, "error", ks_kerr_name(err));
    ks_trace_i64(tr, "rtt_ns", now - q->sent_ns);
    ks_trace_end(tr);
}

/* ---- Response dispatch -------------------------------------------------- */

/* A ProduceResponse: the observer learns the request was answered, the
 * Sender completes or retries its batches. */
static void on_produce_response(ks_producer *p, ks_ctx *cx, ks_request *q)
{
    ks_obs_request_fate(cx->obs, p->index, q->correlation_id, KS_FATE_ANSWERED, KS_OBS_NO_FAULT);
    ks_prod_sender_handle_response(p, cx, q);
}

static void on_metadata_response(ks_producer *p, ks_ctx *cx, ks_request *q)
{
    metadata_answered(p, cx, q);
}

/* InitProducerId and the transactional requests: the TransactionManager's. */
static void on_txn_response(ks_producer *p, ks_ctx *cx, ks_request *q)
{
    ks_prod_tm_answered(p, cx, q);
}

typedef void response_handler(ks_producer *p, ks_ctx *cx, ks_request *q);

/* The producer node's handler of each API's response. An API the
 * producer never sends has none (NULL): its response reaching the
 * producer is a ksim bug. A new ApiKey needs no entry here unless the
 * producer sends it. */
static response_handler *const response_handlers[KS_API__COUNT] = {
    [KS_API_PRODUCE] = on_produce_response,
    [KS_API_METADATA] = on_metadata_response,
    [KS_API_INIT_PRODUCER_ID] = on_txn_response,
    [KS_API_FIND_COORDINATOR] = on_txn_response,
    [KS_API_ADD_PARTITIONS_TO_TXN] = on_txn_response,
    [KS_API_ADD_OFFSETS_TO_TXN] = on_txn_response,
    [KS_API_TXN_OFFSET_COMMIT] = on_txn_response,
    [KS_API_END_TXN] = on_txn_response,
};

/* Hands response q to its API's handler; false (and the run ends with
 * an internal error) when the producer has none for it. */
static bool dispatch_response(ks_producer *p, ks_ctx *cx, ks_request *q)
{
    response_handler *h = (unsigned)q->api < (unsigned)KS_API__COUNT ? response_handlers[q->api]
                                                                     : NULL;
    assert(h && "a response to a request the producer never sends");
    if (!h) {
        ks_sim_stop(&cx->sim, KS_SIM_INTERNAL_ERROR);
        return false;
    }
    h(p, cx, q);
    return true;
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
        bool handled = dispatch_response(p, cx, q);
        ks_request_unref(&cx->reqs, id); /* the producer's hold */
        if (!handled)
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
    ks_prod_send_try_unblock(p, cx);
    ks_prod_sender_wake(p, cx, ks_sim_now(&cx->sim));
}
