/*
 * broker.c - a broker node: its operations, what each API's request is
 * handed to, and what any broker answers from its image of the cluster
 * (Metadata, FindCoordinator) (see broker.h).
 *
 * Events of a broker (owner or tag its id): KS_EV_ARRIVE a request
 * reached it, KS_EV_APPEND a handler thread is done with one (its role's
 * handler runs), KS_EV_RESPONDED a response is written, KS_EV_RESPONSE
 * the answer to a request it sent, KS_EV_TXN its transaction
 * coordinator's timers, KS_EV_BROKER its own (a fetch's deadline, its
 * request timeout as a client).
 */
#include "models/broker/broker.h"

#include "models/events.h"
#include "models/net/wire.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The replicas of the partitions the image says it leads, that it does
 * not hold yet. */
static bool take_replicas(ks_broker *b)
{
    for (uint32_t p = 0; p < b->meta.partition_count; p++)
        if (ks_meta_leader(&b->meta, p) == b->index && !ks_replicas_add(&b->replicas, p))
            return false;
    return true;
}

bool ks_broker_init(ks_broker *b, const ks_scenario *sc, uint32_t index, const ks_meta *meta,
                    bool logged, ks_faults *faults)
{
    memset(b, 0, sizeof *b);
    b->index = index;
    if (!ks_bio_init(&b->io, sc, index, sc->broker_count) || !ks_meta_copy(&b->meta, meta) ||
        !ks_replicas_init(&b->replicas, meta->partition_count, logged,
                          sc->producer_state_batches, sc->kafka_version < KS_KV(2, 5, 0)))
        return false;
    ks_fetches_init(&b->fetches, &b->io, &b->replicas, &b->meta);
    ks_groups_init(&b->groups, index, &b->meta);
    ks_coord_init(&b->coord, sc, &b->io, &b->meta);
    ks_leader_init(&b->leader, &b->io, &b->meta, &b->replicas, &b->fetches, &b->groups, faults);
    return take_replicas(b);
}

void ks_broker_free(ks_broker *b)
{
    ks_leader_free(&b->leader);
    ks_coord_free(&b->coord);
    ks_groups_free(&b->groups);
    ks_fetches_free(&b->fetches);
    ks_replicas_free(&b->replicas);
    ks_meta_free(&b->meta);
    ks_bio_free(&b->io);
}

bool ks_broker_metadata(ks_broker *b, const ks_meta *meta)
{
    return ks_meta_copy(&b->meta, meta) && take_replicas(b);
}

ks_time ks_broker_busy_ns(const ks_broker *b, ks_time now)
{
    return ks_bio_busy_ns(&b->io, now);
}

/* ---- what any broker answers ---------------------------------------------- */

/* FindCoordinator: the leader of the key's __transaction_state or
 * __consumer_offsets partition, by the broker's image. */
static bool handle_find_coordinator(ks_broker *b, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    q->node = q->key_type == KS_COORD_GROUP ? ks_meta_group_coordinator(&b->meta, q->group_id)
                                            : ks_meta_txn_coordinator(&b->meta, q->transactional_id);
    q->error = KS_KERR_NONE;
    return true;
}

/* Metadata for one topic: its partitions and their leaders, as the
 * broker's image has them now ([K] KafkaApis.handleTopicMetadataRequest;
 * MetadataResponse: per partition error, index, leader, epoch, replicas,
 * ISR). */
static bool handle_metadata(ks_broker *b, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    uint32_t n = b->meta.topic_partitions[q->topic];
    uint32_t first = b->meta.topic_first[q->topic];
    free(q->leaders);
    q->leaders = malloc((n ? n : 1u) * sizeof *q->leaders);
    if (!q->leaders) {
        q->nleaders = 0;
        q->error = KS_KERR_UNKNOWN_SERVER_ERROR;
        return true;
    }
    for (uint32_t p = 0; p < n; p++)
        q->leaders[p] = ks_meta_leader(&b->meta, first + p);
    q->nleaders = n;
    q->error = KS_KERR_NONE;
    q->response_bytes = 40u + (uint32_t)strlen(cx->sc->topics[q->topic].name) + 30u * n +
                        40u * b->meta.brokers;
    return true;
}

/* ---- each API's role ------------------------------------------------------- */

static bool produce(ks_broker *b, ks_ctx *cx, uint32_t r)
{
    return ks_leader_produce(&b->leader, cx, r);
}
static bool write_markers(ks_broker *b, ks_ctx *cx, uint32_t r)
{
    return ks_leader_write_markers(&b->leader, cx, r);
}
static bool fetch(ks_broker *b, ks_ctx *cx, uint32_t r)
{
    return ks_fetch_handle(&b->fetches, cx, r);
}
static bool list_offsets(ks_broker *b, ks_ctx *cx, uint32_t r)
{
    return ks_fetch_list_offsets(&b->fetches, cx, r);
}
static bool init_producer_id(ks_broker *b, ks_ctx *cx, uint32_t r)
{
    return ks_coord_init_producer_id(&b->coord, cx, r);
}
static bool add_partitions(ks_broker *b, ks_ctx *cx, uint32_t r)
{
    return ks_coord_add_partitions(&b->coord, cx, r);
}
static bool add_offsets(ks_broker *b, ks_ctx *cx, uint32_t r)
{
    return ks_coord_add_offsets(&b->coord, cx, r);
}
static bool end_txn(ks_broker *b, ks_ctx *cx, uint32_t r)
{
    return ks_coord_end_txn(&b->coord, cx, r);
}
static bool offset_commit(ks_broker *b, ks_ctx *cx, uint32_t r)
{
    return ks_groups_offset_commit(&b->groups, cx, r);
}
static bool offset_fetch(ks_broker *b, ks_ctx *cx, uint32_t r)
{
    return ks_groups_offset_fetch(&b->groups, cx, r);
}
static bool txn_offset_commit(ks_broker *b, ks_ctx *cx, uint32_t r)
{
    return ks_groups_txn_offset_commit(&b->groups, cx, r);
}

/* Who handles each API at a broker: the partition leader (Produce,
 * Fetch, ListOffsets, WriteTxnMarkers), the transaction coordinator, the
 * group coordinator, and any broker (Metadata, FindCoordinator). An API
 * a broker does not serve has no entry. */
static ks_broker_handler *const handlers[KS_API__COUNT] = {
    [KS_API_PRODUCE] = produce,
    [KS_API_FETCH] = fetch,
    [KS_API_LIST_OFFSETS] = list_offsets,
    [KS_API_WRITE_TXN_MARKERS] = write_markers,
    [KS_API_METADATA] = handle_metadata,
    [KS_API_FIND_COORDINATOR] = handle_find_coordinator,
    [KS_API_INIT_PRODUCER_ID] = init_producer_id,
    [KS_API_ADD_PARTITIONS_TO_TXN] = add_partitions,
    [KS_API_ADD_OFFSETS_TO_TXN] = add_offsets,
    [KS_API_END_TXN] = end_txn,
    [KS_API_OFFSET_COMMIT] = offset_commit,
    [KS_API_OFFSET_FETCH] = offset_fetch,
    [KS_API_TXN_OFFSET_COMMIT] = txn_offset_commit,
};

/* A handler thread is done with request `id`: its role handles it. */
static void handle(ks_broker *b, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    bool now_answer = true;
    ks_broker_handler *h = handlers[q->api];
    if (h) {
        now_answer = h(b, cx, id);
    } else {
        /* no broker role handles this API: Kafka closes such a
         * connection; ksim answers UNKNOWN_SERVER_ERROR, which no model
         * sends today */
        q->error = KS_KERR_UNKNOWN_SERVER_ERROR;
    }
    ks_bio_handled(&b->io, cx, id, !now_answer);
}

/* ---- the broker as a client ------------------------------------------------- */

/* The answer to a request the broker sent, or the request given up. */
static void answered(ks_broker *b, ks_ctx *cx, uint32_t id, bool given_up)
{
    ks_api api = ks_req(&cx->reqs, id)->api;
    if (api == KS_API_WRITE_TXN_MARKERS) {
        if (given_up)
            ks_coord_markers_given_up(&b->coord, cx, id);
        else
            ks_coord_markers_answered(&b->coord, cx, id);
    } else if (api == KS_API_ADD_PARTITIONS_TO_TXN) {
        ks_leader_verified(&b->leader, cx, id, given_up);
    }
}

/* A "response" trace line: the broker handles the answer to a request of
 * its; its error is the request's, or its first partition's. */
static void trace_answer(ks_ctx *cx, const ks_request *q)
{
    if (cx->trace)
        ks_wire_trace_response(cx->trace, cx->nodes, q, ks_sim_now(&cx->sim),
                               ks_req_first_error(&cx->reqs, q));
}

static void on_answer(ks_broker *b, ks_ctx *cx, uint32_t id)
{
    uint32_t to = ks_req(&cx->reqs, id)->server;
    if (!ks_bio_answer(&b->io, cx, id))
        return; /* its request was given up: an answer nobody waits for */
    for (uint32_t a; (a = ks_bio_take_answered(&b->io, to)) != KS_REQ_NONE;) {
        trace_answer(cx, ks_req(&cx->reqs, a));
        answered(b, cx, a, false);
        ks_request_unref(&cx->reqs, a); /* the sender's hold */
    }
    ks_bio_rearm(&b->io, cx, to);
}

/* request.timeout.ms of its oldest request to broker `to` ran out: the
 * connection closes and every request on it is given up, oldest first. */
static void client_timed_out(ks_broker *b, ks_ctx *cx, uint32_t to)
{
    for (uint32_t n = ks_bio_client_timeout(&b->io, cx, to); n > 0; n--) {
        uint32_t id = ks_bio_take_given_up(&b->io, to);
        answered(b, cx, id, true);
        ks_request_unref(&cx->reqs, id); /* the sender's hold */
    }
}

/* ---- the node's operations -------------------------------------------------- */

static void on_message(void *self, ks_ctx *cx, uint32_t msg, bool answer)
{
    ks_broker *b = self;
    if (answer)
        on_answer(b, cx, msg);
    else
        ks_bio_arrived(&b->io, cx, msg);
}

static void on_timer(void *self, ks_ctx *cx, const ks_event *ev)
{
    ks_broker *b = self;
    switch (ev->kind) {
    case KS_EV_APPEND:
        handle(b, cx, (uint32_t)ev->arg);
        break;
    case KS_EV_RESPONDED:
        ks_bio_responded(&b->io, cx, ev->owner, (uint32_t)ev->arg);
        break;
    case KS_EV_TXN:
        ks_coord_on_event(&b->coord, cx, ev->tag, ev->arg);
        break;
    case KS_EV_BROKER:
        if (ev->tag == KS_BROKER_FETCH_TIMEOUT)
            ks_fetch_on_timeout(&b->fetches, cx, (uint32_t)ev->arg);
        else if (ev->tag == KS_BROKER_CLIENT_TIMEOUT)
            client_timed_out(b, cx, (uint32_t)ev->arg);
        break;
    default:
        assert(0 && "an event a broker never schedules");
        break;
    }
}

static void rehandle(void *self, const ks_event *ev, ks_handle h, ks_time at)
{
    ks_broker *b = self;
    if (ev->kind == KS_EV_BROKER && ev->tag == KS_BROKER_CLIENT_TIMEOUT)
        ks_bio_rehandle(&b->io, (uint32_t)ev->arg, h, at);
    else if (ev->kind == KS_EV_TXN && ev->tag == KS_COORD_SCAN)
        ks_coord_rehandle_scan(&b->coord, h, at);
}

const ks_node_ops ks_broker_ops = {
    .kind = "broker",
    .on_message = on_message,
    .on_timer = on_timer,
    .rehandle = rehandle,
};
