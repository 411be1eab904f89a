/*
 * broker.c - request handling and partition logs (see broker.h).
 *
 * A connection's requests wait in its own FIFO. A connection with work
 * and no request in service joins the broker's FIFO of connections
 * waiting for a handler thread. Kafka's network layer mutes a channel
 * while one of its requests is being handled ([K] core/.../network/
 * SocketServer.scala, Processor: "the channel is muted until the response
 * is sent"), which is what keeps responses in request order.
 */
#include "models/broker/broker.h"

#include "models/broker/fetch.h"
#include "models/net/wire.h"
#include "models/world.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define CONN_NONE UINT32_MAX

/* Handling cost: per request, per partition batch appended, per byte
 * (rounded to ns), per batch with a producer id. */
static ks_time handling_ns(const ks_world *w, uint32_t broker, const ks_request *q)
{
    const ks_broker_cost *c = &w->sc->broker_costs[broker];
    ks_time bytes_ns =
        (ks_time)(((uint64_t)q->request_bytes * (uint64_t)c->byte_ps + 500u) / 1000u);
    /* Compressed batches are decompressed to validate their records
     * ([K] storage/.../LogValidator, the compressed path); a batch with a
     * producer id has its producer state looked up and its sequence
     * checked ([K] ProducerStateManager, ProducerAppendInfo). */
    uint64_t decompress_ps = 0;
    ks_time sequenced = 0;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next) {
        const ks_req_batch *rb = ks_req_entry(&w->reqs, e);
        decompress_ps += rb->raw * (uint64_t)rb->decompress_ps;
        sequenced += rb->base_seq >= 0 ? 1 : 0;
    }
    ks_time cost = ks_time_add(c->request_ns, (ks_time)q->batches * c->batch_ns);
    cost = ks_time_add(cost, sequenced * c->idempotent_batch_ns);
    cost = ks_time_add(cost, bytes_ns);
    return ks_time_add(cost, (ks_time)((decompress_ps + 500u) / 1000u));
}

static void start(ks_world *w, ks_broker *b, uint32_t conn)
{
    ks_broker_conn *c = &w->broker_conns[conn];
    uint32_t id = c->q_head;
    assert(id != KS_REQ_NONE && !c->serving);
    ks_request *q = ks_req(&w->reqs, id);
    c->q_head = q->next;
    if (c->q_head == KS_REQ_NONE)
        c->q_tail = KS_REQ_NONE;
    c->serving = true;
    c->handling = true;
    c->handle_start_ns = ks_sim_now(&w->sim);
    b->busy_threads++;
    b->queued--;
    ks_time cost = handling_ns(w, b->index, q);
    ks_event ev = {.kind = KS_EV_APPEND,
                   .owner = conn, .tag = b->index, .arg = id};
    ks_time at = ks_time_add(ks_sim_now(&w->sim), cost);
    if (q->daemon)
        ks_sim_schedule_daemon(&w->sim, at, &ev);
    else
        ks_sim_schedule(&w->sim, at, &ev);
}

static void wait_for_thread(ks_world *w, ks_broker *b, uint32_t conn)
{
    ks_broker_conn *c = &w->broker_conns[conn];
    assert(!c->waiting && !c->serving);
    c->waiting = true;
    c->next_waiting = CONN_NONE;
    if (b->wait_tail == CONN_NONE)
        b->wait_head = conn;
    else
        w->broker_conns[b->wait_tail].next_waiting = conn;
    b->wait_tail = conn;
}

void ks_broker_free(ks_broker *b)
{
    for (uint32_t i = 0; b->out && i < b->nout; i++)
        ks_client_conn_free(&b->out[i]);
    free(b->out);
    b->out = NULL;
    free(b->parked);
    b->parked = NULL;
    b->nparked = b->parked_cap = 0;
}

/* Gives free threads to waiting connections, oldest first. */
static void dispatch(ks_world *w, ks_broker *b)
{
    while (b->busy_threads < b->threads && b->wait_head != CONN_NONE) {
        uint32_t conn = b->wait_head;
        ks_broker_conn *c = &w->broker_conns[conn];
        b->wait_head = c->next_waiting;
        if (b->wait_head == CONN_NONE)
            b->wait_tail = CONN_NONE;
        c->waiting = false;
        start(w, b, conn);
    }
}

/* The broker's side of connection `conn`, made when its first request
 * arrives. False when out of memory. */
static bool ensure_conn(ks_world *w, uint32_t conn)
{
    if (conn < w->broker_conn_cap)
        return true;
    uint32_t cap = w->broker_conn_cap ? w->broker_conn_cap : 16u;
    while (cap <= conn)
        cap *= 2u;
    ks_broker_conn *c = realloc(w->broker_conns, cap * sizeof *c);
    if (!c)
        return false;
    for (uint32_t i = w->broker_conn_cap; i < cap; i++) {
        memset(&c[i], 0, sizeof c[i]);
        c[i].q_head = c[i].q_tail = KS_REQ_NONE;
        c[i].next_waiting = CONN_NONE;
    }
    w->broker_conns = c;
    w->broker_conn_cap = cap;
    return true;
}

void ks_broker_on_arrive(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_broker *b = &w->brokers[broker];
    ks_request *q = ks_req(&w->reqs, id);
    if (!ensure_conn(w, q->conn)) {
        w->out_of_memory = true;
        ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
        return;
    }
    ks_broker_conn *c = &w->broker_conns[q->conn];
    ks_time now = ks_sim_now(&w->sim);
    b->requests++;
    b->bytes_in += q->request_bytes;
    q->next = KS_REQ_NONE;
    if (c->q_tail == KS_REQ_NONE)
        c->q_head = id;
    else
        ks_req(&w->reqs, c->q_tail)->next = id;
    c->q_tail = id;
    b->queued++;
    if (b->queued > b->queue_len_max)
        b->queue_len_max = b->queued;
    ks_trace *tr = w->trace;
    /* "arrive" is of the producers' requests (docs/trace.md); markers have
     * their "marker" lines */
    if (tr && ks_node_kind_of(&w->nodes, q->client) == KS_NODE_PRODUCER &&
        ks_trace_begin(tr, now, KS_TR_ARRIVE)) {
        ks_trace_u64(tr, "broker", broker);
        ks_trace_str(tr, "producer", q->client_id);
        ks_trace_u64(tr, "request", q->correlation_id);
        if (q->api != KS_API_PRODUCE) /* as its send line names it */
            ks_trace_str(tr, "api", ks_api_name(q->api));
        ks_trace_u64(tr, "bytes", q->request_bytes);
        ks_trace_u64(tr, "queued", b->queued);
        ks_trace_end(tr);
    }
    if (!c->serving && !c->waiting) {
        wait_for_thread(w, b, q->conn);
        dispatch(w, b);
    }
}

/* ProduceResponse v8 for one topic: size(4) correlation_id(4) topics(4)
 * name(2+n) partitions(4), per partition index(4) error_code(2)
 * base_offset(8) log_append_time(8) log_start_offset(8)
 * record_errors(4) error_message(2), then throttle_time(4)
 * ([K] ProduceResponse.json). */
static uint32_t response_bytes(const char *topic, uint32_t partitions)
{
    return 22u + (uint32_t)strlen(topic) + 36u * partitions;
}

/* Keeps the batch in the partition's log for consumers and the checker,
 * with its records' ids while the producer still holds the batch (one
 * that expired before this late copy landed is kept with ids 0). */
static void log_batch(ks_world *w, const ks_request *q, const ks_req_batch *rb, ks_partition *part)
{
    ks_plog_batch b = {.records = rb->records, .producer_id = q->producer_id,
                       .epoch = rb->epoch, .transactional = rb->transactional,
                       .producer = ks_world_producer_of(w, q->client), .batch = rb->batch_seq,
                       .appended_ns = ks_sim_now(&w->sim), .bytes = rb->bytes};
    uint64_t *ids = w->log_ids;
    if (rb->records > w->log_ids_cap) {
        ids = realloc(w->log_ids, rb->records * sizeof *ids);
        if (!ids) {
            w->out_of_memory = true;
            ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
            return;
        }
        w->log_ids = ids;
        w->log_ids_cap = rb->records;
    }
    /* the records' ids travel in the batch (the application's event ids,
     * as the seeds' eventId) */
    uint32_t n = 0;
    for (; rb->ids && n < rb->records; n++)
        ids[n] = rb->ids[n];
    while (n < rb->records)
        ids[n++] = KS_PLOG_NO_RECORD;
    if (ks_plog_append(part->log, &b, ids) < 0) {
        w->out_of_memory = true;
        ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
    }
}

/* An "append" trace record: the batch was appended (result NULL) or not
 * (result names why, fault the fault that caused it). */
static void trace_append(ks_world *w, uint32_t broker, const ks_request *q, const ks_req_batch *rb,
                         const char *result, int32_t fault)
{
    const ks_partition *part = &w->partitions[rb->partition];
    ks_trace *tr = w->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_APPEND))
        return;
    ks_trace_u64(tr, "broker", broker);
    ks_trace_str(tr, "topic", w->sc->topics[part->topic].name);
    ks_trace_u64(tr, "partition", part->index);
    ks_trace_str(tr, "producer", q->client_id);
    ks_trace_u64(tr, "request", q->correlation_id);
    ks_trace_u64(tr, "batch", rb->batch_seq);
    ks_trace_i64(tr, "offset", rb->base_offset);
    ks_trace_u64(tr, "records", rb->records);
    ks_trace_u64(tr, "bytes", rb->bytes);
    if (q->producer_id >= 0) {
        ks_trace_i64(tr, "producer_id", q->producer_id);
        ks_trace_i64(tr, "epoch", rb->epoch);
        ks_trace_i64(tr, "base_sequence", rb->base_seq);
    }
    if (result)
        ks_trace_str(tr, "result", result);
    if (fault >= 0)
        ks_trace_i64(tr, "fault", fault);
    ks_trace_end(tr);
}

/* Appends one batch to its partition's log. */
static void append_batch(ks_world *w, uint32_t broker, const ks_request *q, ks_req_batch *rb)
{
    ks_partition *part = &w->partitions[rb->partition];
    assert(part->leader == broker);
    rb->base_offset = part->log_end_offset;
    if (part->logged)
        log_batch(w, q, rb, part);
    part->log_end_offset += rb->records;
    part->records += rb->records;
    part->batches++;
    w->brokers[broker].records += rb->records;
    ks_fetch_wake(w, broker, rb->partition);
    ks_obs_appended(&w->obs, ks_world_producer_of(w, q->client), rb->batch_seq,
                        q->correlation_id,
                        rb->base_offset);
    trace_append(w, broker, q, rb, NULL, KS_NO_FAULT);
}

/* The leader refuses a batch, or recognises it as a duplicate. */
static void refuse_batch(ks_world *w, uint32_t broker, const ks_request *q, ks_req_batch *rb,
                         const char *why, int32_t fault)
{
    ks_obs_not_appended(&w->obs, ks_world_producer_of(w, q->client), rb->batch_seq,
                            q->correlation_id, why);
    trace_append(w, broker, q, rb, why, fault);
}

/* Is the batch larger than its topic accepts? The log checks every batch
 * of an append before anything else of it, the producer state included
 * ([K] storage/.../UnifiedLog.analyzeAndValidateRecords:
 *     if (!ignoreRecordSize && batchSize > config.maxMessageSize)
 *         throw new RecordTooLargeException(...)
 * with batchSize = batch.sizeInBytes, the whole v2 batch, header included
 * and compressed as it travelled; maxMessageSize is the topic's
 * max.message.bytes, by default the broker's message.max.bytes).
 * ReplicaManager answers RecordTooLargeException as MESSAGE_TOO_LARGE. */
static bool too_large(const ks_world *w, const ks_req_batch *rb)
{
    const ks_partition *part = &w->partitions[rb->partition];
    return (int64_t)rb->bytes > ks_topic_max_message_bytes(w->sc, part->topic);
}

/* One batch of a produce request: an injected error, the size limit, the
 * idempotent producer checks (models/broker/producer_state.h), then the
 * append. */
static void handle_batch(ks_world *w, uint32_t broker, const ks_request *q, ks_req_batch *rb)
{
    ks_partition *part = &w->partitions[rb->partition];
    ks_kerr injected = rb->error;
    if (injected != KS_KERR_NONE && injected != KS_KERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND) {
        refuse_batch(w, broker, q, rb, ks_kerr_name(injected), rb->fault);
        return;
    }
    if (too_large(w, rb)) {
        rb->error = KS_KERR_MESSAGE_TOO_LARGE;
        w->brokers[broker].too_large++;
        refuse_batch(w, broker, q, rb, ks_kerr_name(rb->error), KS_NO_FAULT);
        return;
    }
    if (q->producer_id >= 0) {
        int32_t last_seq = (int32_t)(((int64_t)rb->base_seq + rb->records - 1) % 2147483648LL);
        int64_t dup = -1;
        ks_ps_verdict v = ks_ps_check(&part->ps, q->producer_id, rb->epoch, rb->base_seq,
                                      last_seq, &dup);
        if (v == KS_PS_DUPLICATE) {
            /* answered with the original batch's offset and no error */
            rb->base_offset = dup;
            refuse_batch(w, broker, q, rb, "DUPLICATE", KS_NO_FAULT);
            return;
        }
        if (v != KS_PS_APPEND) {
            ks_kerr e = v == KS_PS_INVALID_PRODUCER_EPOCH ? KS_KERR_INVALID_PRODUCER_EPOCH
                        : v == KS_PS_UNKNOWN_PRODUCER_ID  ? KS_KERR_UNKNOWN_PRODUCER_ID
                                                          : KS_KERR_OUT_OF_ORDER_SEQUENCE_NUMBER;
            rb->error = e;
            refuse_batch(w, broker, q, rb, ks_kerr_name(e), KS_NO_FAULT);
            return;
        }
        append_batch(w, broker, q, rb);
        if (!ks_ps_update(&part->ps, q->producer_id, rb->epoch, rb->base_seq, last_seq,
                          rb->base_offset)) {
            w->out_of_memory = true;
            ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
        }
    } else {
        append_batch(w, broker, q, rb);
    }
    /* NOT_ENOUGH_REPLICAS_AFTER_APPEND: in the log, yet answered with an
     * error ([K] Partition.checkEnoughReplicasReachOffset). */
    rb->error = injected;
}

/* The response to request `id` leaves now (after any configured delay):
 * faults may lose or delay it; the connection takes its next request
 * once the response is written. */
void ks_broker_respond(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_request *q = ks_req(&w->reqs, id);
    uint32_t conn = q->conn;
    if (q->api == KS_API_PRODUCE && q->first != KS_REQ_NONE) {
        const ks_partition *part = &w->partitions[ks_req_entry(&w->reqs, q->first)->partition];
        q->response_bytes = response_bytes(w->sc->topics[part->topic].name, q->batches);
    } else if (q->response_bytes == 0) {
        q->response_bytes = 24u; /* a small response: error and a few ids */
    }
    ks_time leaves = ks_time_add(ks_sim_now(&w->sim), w->sc->broker_costs[broker].response_delay_ns);
    /* the connection takes its next request once this one is written */
    ks_event done = {.kind = KS_EV_RESPONDED, .owner = conn, .tag = broker, .arg = id};
    ks_time written = ks_net_sent_at(&w->net, conn, KS_NET_RESPONSE, leaves, q->response_bytes);
    if (q->daemon)
        ks_sim_schedule_daemon(&w->sim, written, &done);
    else
        ks_sim_schedule(&w->sim, written, &done);
    ks_wire_response(w, id, leaves);
}

/* ---- WriteTxnMarkers: the leader's side ---------------------------------- */

/* An ABORT marker ended a transaction in this log (its aborted index grew
 * past `before`): the checker learns its records, the data batches of
 * that producer id from the transaction's first offset. Their producer
 * tells it too when it aborts itself, but not when it crashed or was
 * fenced and the coordinator aborted for it. */
static void note_aborted(ks_world *w, const ks_plog *l, uint32_t before)
{
    if (l->naborted == before || !l->keep_ids)
        return;
    const ks_aborted_txn *a = &l->aborted[l->naborted - 1];
    const ks_plog_batch *b = ks_plog_find(l, a->first_offset);
    for (; b && b < l->batches + l->count && b->base_offset < a->last_offset; b++)
        if (!b->control && b->transactional && b->producer_id == a->producer_id)
            ks_obs_aborted(&w->obs, &l->ids[b->ids_at], b->records);
}

static void trace_marker(ks_world *w, const ks_request *q, const ks_partition *part, int64_t off)
{
    ks_trace *tr = w->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_MARKER))
        return;
    ks_trace_u64(tr, "broker", part->leader);
    ks_trace_str(tr, "topic", w->sc->topics[part->topic].name);
    ks_trace_u64(tr, "partition", part->index);
    ks_trace_str(tr, "transactional_id", q->transactional_id);
    ks_trace_i64(tr, "producer_id", q->producer_id);
    ks_trace_i64(tr, "epoch", q->epoch);
    ks_trace_str(tr, "type", q->commit ? "COMMIT" : "ABORT");
    ks_trace_i64(tr, "offset", off);
    ks_trace_i64(tr, "lso", ks_plog_lso(part->log));
    ks_trace_u64(tr, "request", q->correlation_id);
    ks_trace_end(tr);
}

/* The leader appends each marker: one control record, one offset; the
 * partition's producer state takes its epoch ([K] ProducerAppendInfo.
 * appendEndTxnMarker). A marker sent again after a lost answer is
 * appended again. */
static bool handle_write_txn_markers(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_request *q = ks_req(&w->reqs, id);
    (void)broker;
    ks_marker m = q->commit ? KS_MARKER_COMMIT : KS_MARKER_ABORT;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next) {
        uint32_t pidx = ks_req_entry(&w->reqs, e)->partition;
        if (ks_is_group_partition(pidx)) {
            /* __consumer_offsets: the group coordinator completes the
             * transaction's offsets ([K] GroupCoordinator.
             * scheduleHandleTxnCompletion) */
            ks_groups_marker(w, pidx & ~KS_GROUP_PARTITION_BIT, q->producer_id, q->commit);
            continue;
        }
        ks_partition *part = &w->partitions[pidx];
        uint32_t aborted_before = part->log->naborted;
        int64_t off = ks_plog_append_marker(part->log, q->producer_id, q->epoch, m,
                                            ks_sim_now(&w->sim));
        if (off < 0 || !ks_ps_marker(&part->ps, q->producer_id, q->epoch)) {
            w->out_of_memory = true;
            ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
            return true;
        }
        part->log_end_offset = part->log->leo;
        note_aborted(w, part->log, aborted_before);
        trace_marker(w, q, part, off);
        ks_fetch_wake(w, part->leader, pidx);
    }
    q->error = KS_KERR_NONE;
    return true;
}

static void produce_verified(ks_world *w, uint32_t broker, uint32_t vreq);

/* ---- what any broker answers ---------------------------------------------- */

/* FindCoordinator: the leader of the key's __transaction_state or
 * __consumer_offsets partition (any broker knows it from the cluster's
 * metadata). */
static bool handle_find_coordinator(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_request *q = ks_req(&w->reqs, id);
    (void)broker;
    q->node = q->key_type == KS_COORD_GROUP ? ks_group_coordinator(w, q->group_id)
                                            : ks_coord_broker(w, q->transactional_id);
    q->error = KS_KERR_NONE;
    return true;
}

/* Metadata for one topic: its partitions and their leaders, as the
 * cluster's metadata has them now ([K] KafkaApis.handleTopicMetadataRequest;
 * MetadataResponse: per partition error, index, leader, epoch, replicas,
 * ISR). */
static bool handle_metadata(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_request *q = ks_req(&w->reqs, id);
    (void)broker;
    uint32_t n = w->topic_partitions[q->topic], first = w->topic_first_partition[q->topic];
    free(q->leaders);
    q->leaders = malloc((n ? n : 1u) * sizeof *q->leaders);
    if (!q->leaders) {
        q->nleaders = 0;
        q->error = KS_KERR_UNKNOWN_SERVER_ERROR;
        return true;
    }
    for (uint32_t p = 0; p < n; p++)
        q->leaders[p] = w->partitions[first + p].leader;
    q->nleaders = n;
    q->error = KS_KERR_NONE;
    q->response_bytes = 40u + (uint32_t)strlen(w->sc->topics[q->topic].name) + 30u * n +
                        40u * w->broker_count;
    return true;
}

/* ---- the broker as a client of other brokers ------------------------------ */

uint32_t ks_broker_new_request(ks_world *w, uint32_t from, uint32_t to, ks_api api,
                               uint16_t version)
{
    ks_client_conn *cc = &w->brokers[from].out[to];
    if (cc->conn == KS_CLIENT_NONE)
        cc->conn = ks_net_connect(&w->net, from, to);
    uint32_t id = cc->conn == UINT32_MAX ? KS_REQ_NONE : ks_request_alloc(&w->reqs);
    if (id == KS_REQ_NONE) {
        w->out_of_memory = true;
        ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
        return KS_REQ_NONE;
    }
    ks_request *q = ks_req(&w->reqs, id);
    q->api = api;
    q->version = version;
    q->client = from;
    q->server = to;
    q->client_id = w->node_names[from];
    q->conn = cc->conn;
    q->correlation_id = ++w->brokers[from].api_requests[api];
    q->expects_response = true;
    q->producer_id = -1;
    q->pnext = KS_REQ_NONE;
    return id;
}

/* The broker's own request.timeout.ms, for the requests it sends. */
static ks_time client_timeout_ns(const ks_world *w)
{
    return ks_time_from_ms(w->sc->broker_config[KS_BCFG_REQUEST_TIMEOUT_MS].i);
}

static ks_event client_timer(uint32_t from, uint32_t to)
{
    return (ks_event){.kind = KS_EV_BROKER, .owner = from, .tag = KS_BROKER_CLIENT_TIMEOUT,
                      .arg = to};
}

void ks_broker_send(ks_world *w, uint32_t from, uint32_t id)
{
    ks_request *q = ks_req(&w->reqs, id);
    q->sent_ns = ks_sim_now(&w->sim);
    q->refs++; /* the sender's hold, until answered or given up */
    ks_event t = client_timer(from, q->server);
    if (!ks_client_sent(&w->brokers[from].out[q->server], &w->sim, id, q->sent_ns,
                        client_timeout_ns(w), &t)) {
        w->out_of_memory = true;
        ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
        return;
    }
    (void)ks_wire_request(w, id);
}

/* A request the broker sent was given up (its connection closed on a
 * timeout): its sender's role decides what to do (markers go again; a
 * verification fails its produce request with a retriable error). */
static void given_up(ks_world *w, uint32_t id)
{
    ks_request *q = ks_req(&w->reqs, id);
    if (q->api == KS_API_WRITE_TXN_MARKERS) {
        ks_coord_markers_given_up(w, id);
    } else if (q->api == KS_API_ADD_PARTITIONS_TO_TXN) {
        for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next)
            ks_req_entry(&w->reqs, e)->error = KS_KERR_NETWORK_EXCEPTION;
        produce_verified(w, q->client, id);
    }
}

/* request.timeout.ms of the oldest request to broker `to` ran out: like
 * NetworkClient, the broker closes the connection, and every request on
 * it is given up, oldest first. */
static void client_timed_out(ks_world *w, uint32_t from, uint32_t to)
{
    ks_client_conn *cc = &w->brokers[from].out[to];
    ks_event t = client_timer(from, to);
    if (!ks_client_on_timer(cc, &w->sim, client_timeout_ns(w), &t))
        return;
    uint32_t n = ks_client_close(cc, &w->sim);
    ks_net_reconnect(&w->net, cc->conn);
    while (n-- > 0) {
        uint32_t id = ks_client_take(cc);
        given_up(w, id);
        ks_request_unref(&w->reqs, id); /* the sender's hold */
    }
}

static void answered(ks_world *w, uint32_t broker, uint32_t id)
{
    if (ks_req(&w->reqs, id)->api == KS_API_WRITE_TXN_MARKERS)
        ks_coord_markers_answered(w, id);
    else if (ks_req(&w->reqs, id)->api == KS_API_ADD_PARTITIONS_TO_TXN)
        produce_verified(w, broker, id);
}

void ks_broker_on_response(ks_world *w, uint32_t broker, uint32_t id)
{
    uint32_t to = ks_req(&w->reqs, id)->server;
    ks_client_conn *cc = &w->brokers[broker].out[to];
    bool mine = ks_client_arrived(cc, id);
    ks_request_unref(&w->reqs, id); /* the response event's hold */
    if (!mine)
        return; /* its request was given up: an answer nobody waits for */
    for (uint32_t a; (a = ks_client_take_answered(cc)) != KS_CLIENT_NONE;) {
        answered(w, broker, a);
        ks_request_unref(&w->reqs, a); /* the sender's hold */
    }
    ks_event t = client_timer(broker, to);
    ks_client_rearm(cc, &w->sim, client_timeout_ns(w), &t);
}

/* ---- Produce: the leader's side -------------------------------------------- */

/* Does batch rb need the coordinator's word before it is appended? Since
 * 3.6 (KIP-890 part 1, transaction.partition.verification.enable) the
 * leader verifies a transactional batch whose producer has no ongoing
 * transaction in the partition; under transaction version 2 the same
 * request adds the partition to the transaction (part 2) ([K]
 * ReplicaManager.appendRecords, UnifiedLog.maybeStartTransactionVerification). */
static bool needs_verification(const ks_world *w, const ks_request *q, const ks_req_batch *rb)
{
    if (q->producer_id < 0 || !rb->transactional || !q->transactional_id)
        return false;
    if (rb->error != KS_KERR_NONE && rb->error != KS_KERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND)
        return false; /* refused anyway */
    if (!ks_request_tv2(q) && w->sc->kafka_version < KS_KV(3, 6, 0))
        return false;
    return !ks_plog_txn_ongoing(w->partitions[rb->partition].log, q->producer_id);
}

/* The error a produce batch gets when the coordinator's verification
 * answered `e` ([K] AddPartitionsToTxnManager, ReplicaManager.
 * postVerificationCallback): a fenced producer gets INVALID_PRODUCER_EPOCH;
 * a partition not in the transaction TRANSACTION_ABORTABLE, or
 * INVALID_TXN_STATE for clients before Produce v11; retriable trouble at
 * the coordinator NOT_ENOUGH_REPLICAS, which every client retries. */
static ks_kerr verification_error(const ks_request *produce, ks_kerr e)
{
    if (e == KS_KERR_PRODUCER_FENCED)
        return KS_KERR_INVALID_PRODUCER_EPOCH;
    if (e == KS_KERR_TRANSACTION_ABORTABLE)
        return produce->version >= 11 ? KS_KERR_TRANSACTION_ABORTABLE : KS_KERR_INVALID_TXN_STATE;
    if (e == KS_KERR_CONCURRENT_TRANSACTIONS || e == KS_KERR_NETWORK_EXCEPTION)
        return KS_KERR_NOT_ENOUGH_REPLICAS;
    return e;
}

/* The verification's answer for the batch's partition: NONE when the
 * partition was not asked about. */
static ks_kerr verified(const ks_world *w, uint32_t vreq, uint32_t partition)
{
    if (vreq == KS_REQ_NONE)
        return KS_KERR_NONE;
    const ks_request *vq = ks_req(&w->reqs, vreq);
    for (uint32_t e = vq->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next) {
        const ks_req_batch *rb = ks_req_entry(&w->reqs, e);
        if (rb->partition == partition)
            return rb->error != KS_KERR_NONE ? rb->error : vq->error;
    }
    return KS_KERR_NONE;
}

/* Every batch of produce request `id`, in order, is appended or refused;
 * vreq is the verification answered for it, or KS_REQ_NONE. */
static void append_all(ks_world *w, uint32_t broker, uint32_t id, uint32_t vreq)
{
    const ks_request *q = ks_req(&w->reqs, id);
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&w->reqs, e);
        ks_kerr v = verified(w, vreq, rb->partition);
        if (v != KS_KERR_NONE) {
            rb->error = verification_error(q, v);
            refuse_batch(w, broker, q, rb, ks_kerr_name(rb->error), KS_NO_FAULT);
            continue;
        }
        handle_batch(w, broker, q, rb);
    }
}

/* AddPartitionsToTxnRequest v4 (verifyOnly) / v5: header + client id +
 * one transaction: transactional id, producer id (8), epoch (2), verify
 * (1), one topic with its partitions (4 each); the response: header and
 * an error per partition ([K] AddPartitionsToTxnRequest.json). */
static bool send_verification(ks_world *w, uint32_t broker, uint32_t id)
{
    const ks_request *q = ks_req(&w->reqs, id);
    bool tv2 = ks_request_tv2(q);
    uint32_t coord = ks_coord_broker(w, q->transactional_id);
    uint32_t v = ks_broker_new_request(w, broker, coord, KS_API_ADD_PARTITIONS_TO_TXN,
                                       tv2 ? 5 : 4);
    if (v == KS_REQ_NONE)
        return false;
    q = ks_req(&w->reqs, id);
    ks_request *vq = ks_req(&w->reqs, v);
    vq->transactional_id = q->transactional_id;
    vq->producer_id = q->producer_id;
    vq->verify_only = !tv2;
    vq->owner = id;
    uint32_t last = KS_REQ_NONE;
    const char *topic = "";
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next) {
        const ks_req_batch *rb = ks_req_entry(&w->reqs, e);
        if (!needs_verification(w, q, rb))
            continue;
        vq->epoch = rb->epoch;
        uint32_t partition = rb->partition; /* rb moves when the entries grow */
        topic = w->sc->topics[w->partitions[partition].topic].name;
        uint32_t ve = ks_request_add_batch(&w->reqs, v, &last);
        if (ve == KS_REQ_NONE)
            return false;
        vq = ks_req(&w->reqs, v);
        q = ks_req(&w->reqs, id);
        ks_req_entry(&w->reqs, ve)->partition = partition;
    }
    vq->request_bytes = 40u + (uint32_t)strlen(vq->client_id) +
                        (uint32_t)strlen(vq->transactional_id) + (uint32_t)strlen(topic) +
                        4u * vq->batches;
    vq->response_bytes = 24u + (uint32_t)strlen(topic) + 6u * vq->batches;
    ks_broker_send(w, broker, v);
    return true;
}

/* Handles a produce request: an injected error for its batches first,
 * then, when some batch needs the coordinator's verification, the request
 * waits for it (its connection stays muted; ks_broker_on_response goes
 * on); else each batch is appended or refused now. Returns true when it
 * is done now. */
static bool handle_produce(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_request *q = ks_req(&w->reqs, id);
    ks_kerr injected = KS_KERR_NONE;
    uint32_t struck = UINT32_MAX;
    int32_t fault = ks_faults_append(w, id, ks_sim_now(&w->sim), &injected, &struck);
    bool verify = false;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&w->reqs, e);
        bool hit = fault >= 0 && (struck == UINT32_MAX || struck == rb->partition);
        rb->error = hit ? injected : KS_KERR_NONE;
        rb->fault = hit ? fault : KS_NO_FAULT;
        verify = verify || needs_verification(w, q, rb);
    }
    if (verify && send_verification(w, broker, id))
        return false;
    append_all(w, broker, id, KS_REQ_NONE);
    return true;
}

/* The produce request `id` is done: its response leaves (acks=0: none;
 * the connection takes its next request). */
static void produce_done(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_request *q = ks_req(&w->reqs, id);
    if (q->expects_response) {
        ks_broker_respond(w, broker, id);
        return;
    }
    uint32_t conn = q->conn;
    ks_request_unref(&w->reqs, id);
    ks_broker_on_responded(w, broker, conn, KS_REQ_NONE);
}

/* The coordinator answered the verification `vreq` (or it was lost:
 * every partition then has NETWORK_EXCEPTION): the produce request it was
 * for is appended or refused, and answered. */
static void produce_verified(ks_world *w, uint32_t broker, uint32_t vreq)
{
    uint32_t id = ks_req(&w->reqs, vreq)->owner;
    append_all(w, broker, id, vreq);
    produce_done(w, broker, id);
}

/* Who handles each API at a broker: the partition leader (Produce,
 * Fetch, ListOffsets, WriteTxnMarkers), the transaction coordinator, the
 * group coordinator, and any broker (Metadata, FindCoordinator). An API
 * a broker does not serve has no entry. */
static ks_broker_handler *const handlers[KS_API__COUNT] = {
    [KS_API_PRODUCE] = handle_produce,
    [KS_API_FETCH] = ks_fetch_handle,
    [KS_API_LIST_OFFSETS] = ks_fetch_list_offsets,
    [KS_API_WRITE_TXN_MARKERS] = handle_write_txn_markers,
    [KS_API_METADATA] = handle_metadata,
    [KS_API_FIND_COORDINATOR] = handle_find_coordinator,
    [KS_API_INIT_PRODUCER_ID] = ks_coord_init_producer_id,
    [KS_API_ADD_PARTITIONS_TO_TXN] = ks_coord_add_partitions,
    [KS_API_ADD_OFFSETS_TO_TXN] = ks_coord_add_offsets,
    [KS_API_END_TXN] = ks_coord_end_txn,
    [KS_API_OFFSET_COMMIT] = ks_groups_offset_commit,
    [KS_API_OFFSET_FETCH] = ks_groups_offset_fetch,
    [KS_API_TXN_OFFSET_COMMIT] = ks_groups_txn_offset_commit,
};

void ks_broker_on_append(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_broker *b = &w->brokers[broker];
    ks_request *q = ks_req(&w->reqs, id);
    ks_time now = ks_sim_now(&w->sim);
    bool now_answer = true;
    ks_broker_handler *handle = handlers[q->api];
    if (handle) {
        now_answer = handle(w, broker, id);
    } else {
        /* no broker role handles this API: Kafka closes such a
         * connection; ksim answers UNKNOWN_SERVER_ERROR, which no model
         * sends today */
        q->error = KS_KERR_UNKNOWN_SERVER_ERROR;
    }
    uint32_t conn = q->conn;
    ks_broker_conn *c = &w->broker_conns[conn];
    c->handling = false;
    b->busy_ns += now - c->handle_start_ns;
    b->busy_threads--;
    /* The thread is free now; the connection stays muted until the
     * response has been written (or, with acks=0, the request is done). */
    if (!now_answer) {
        dispatch(w, b);
        return;
    }
    if (!q->expects_response) {
        ks_request_unref(&w->reqs, id); /* acks=0: nothing to answer */
        ks_broker_on_responded(w, broker, conn, KS_REQ_NONE);
        return;
    }
    ks_broker_respond(w, broker, id);
    dispatch(w, b);
}

void ks_broker_on_responded(ks_world *w, uint32_t broker, uint32_t conn, uint32_t req)
{
    if (req != KS_REQ_NONE)
        ks_request_unref(&w->reqs, req); /* the broker is done with it */
    ks_broker *b = &w->brokers[broker];
    ks_broker_conn *c = &w->broker_conns[conn];
    c->serving = false;
    if (c->q_head != KS_REQ_NONE)
        wait_for_thread(w, b, conn);
    dispatch(w, b);
}

void ks_broker_on_event(ks_world *w, uint32_t broker, uint32_t tag, uint64_t arg)
{
    if (tag == KS_BROKER_FETCH_TIMEOUT)
        ks_fetch_on_timeout(w, broker, (uint32_t)arg);
    else if (tag == KS_BROKER_CLIENT_TIMEOUT)
        client_timed_out(w, broker, (uint32_t)arg);
}

ks_time ks_broker_busy_ns(const ks_world *w, uint32_t broker)
{
    ks_time busy = w->brokers[broker].busy_ns;
    ks_time now = ks_sim_now(&w->sim);
    for (uint32_t i = 0; i < w->net.conn_count && i < w->broker_conn_cap; i++) {
        const ks_broker_conn *c = &w->broker_conns[i];
        if (c->handling && w->net.conns[i].server == broker)
            busy += now - c->handle_start_ns;
    }
    return busy;
}
