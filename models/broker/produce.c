/*
 * produce.c - a partition leader's side of Produce and WriteTxnMarkers
 * (see produce.h).
 */
#include "models/broker/produce.h"

#include "models/trace_kinds.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void ks_leader_init(ks_leader *l, ks_bio *io, const ks_meta *meta, ks_replicas *replicas,
                    ks_fetches *fetches, ks_groups *groups, ks_faults *faults)
{
    memset(l, 0, sizeof *l);
    l->io = io;
    l->meta = meta;
    l->replicas = replicas;
    l->fetches = fetches;
    l->groups = groups;
    l->faults = faults;
}

void ks_leader_free(ks_leader *l)
{
    free(l->log_ids);
    l->log_ids = NULL;
    l->log_ids_cap = 0;
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

/* The produce response's size, for its topic and partitions. */
static void size_response(const ks_leader *l, const ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    if (q->first == KS_REQ_NONE)
        return;
    uint32_t t = ks_meta_topic_of(l->meta, ks_req_entry(&cx->reqs, q->first)->partition);
    q->response_bytes = response_bytes(cx->sc->topics[t].name, q->batches);
}

/* Keeps the batch in the partition's log for consumers and the checker,
 * with its records' ids while the producer still holds the batch (one
 * that expired before this late copy landed is kept with ids 0). */
static void log_batch(ks_leader *l, ks_ctx *cx, const ks_request *q, const ks_req_batch *rb,
                      ks_replica *part)
{
    ks_plog_batch b = {.records = rb->records, .producer_id = q->producer_id,
                       .epoch = rb->epoch, .transactional = rb->transactional,
                       .producer = ks_node_producer_of(cx->nodes, q->client), .batch = rb->batch_seq,
                       .appended_ns = ks_sim_now(&cx->sim), .bytes = rb->bytes};
    uint64_t *ids = l->log_ids;
    if (rb->records > l->log_ids_cap) {
        ids = realloc(l->log_ids, rb->records * sizeof *ids);
        if (!ids) {
            ks_ctx_oom(cx);
            return;
        }
        l->log_ids = ids;
        l->log_ids_cap = rb->records;
    }
    /* the records' ids travel in the batch (the application's event ids,
     * as the seeds' eventId) */
    uint32_t n = 0;
    for (; rb->ids && n < rb->records; n++)
        ids[n] = rb->ids[n];
    while (n < rb->records)
        ids[n++] = KS_PLOG_NO_RECORD;
    if (ks_plog_append(part->log, &b, ids) < 0)
        ks_ctx_oom(cx);
}

/* An "append" trace record: the batch was appended (result NULL) or not
 * (result names why, fault the fault that caused it). */
static void trace_append(ks_leader *l, ks_ctx *cx, const ks_request *q, const ks_req_batch *rb,
                         const char *result, int32_t fault)
{
    ks_trace *tr = cx->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_APPEND))
        return;
    ks_trace_u64(tr, "broker", l->io->broker);
    ks_trace_str(tr, "topic", cx->sc->topics[ks_meta_topic_of(l->meta, rb->partition)].name);
    ks_trace_u64(tr, "partition", ks_meta_index_of(l->meta, rb->partition));
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
static void append_batch(ks_leader *l, ks_ctx *cx, const ks_request *q, ks_req_batch *rb,
                         ks_replica *part)
{
    rb->base_offset = part->log_end_offset;
    if (part->logged)
        log_batch(l, cx, q, rb, part);
    part->log_end_offset += rb->records;
    part->records += rb->records;
    part->batches++;
    l->records += rb->records;
    ks_fetch_wake(l->fetches, cx, rb->partition);
    ks_obs_appended(cx->obs, ks_node_producer_of(cx->nodes, q->client), rb->batch_seq,
                    q->correlation_id, rb->base_offset);
    trace_append(l, cx, q, rb, NULL, KS_NO_FAULT);
}

/* The leader refuses a batch, or recognises it as a duplicate. */
static void refuse_batch(ks_leader *l, ks_ctx *cx, const ks_request *q, ks_req_batch *rb,
                         const char *why, int32_t fault)
{
    ks_obs_not_appended(cx->obs, ks_node_producer_of(cx->nodes, q->client), rb->batch_seq,
                        q->correlation_id, why);
    trace_append(l, cx, q, rb, why, fault);
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
static bool too_large(const ks_leader *l, const ks_ctx *cx, const ks_req_batch *rb)
{
    return (int64_t)rb->bytes >
           ks_topic_max_message_bytes(cx->sc, ks_meta_topic_of(l->meta, rb->partition));
}

/* One batch of a produce request: an injected error, the size limit, the
 * idempotent producer checks (models/broker/producer_state.h), then the
 * append. */
static void handle_batch(ks_leader *l, ks_ctx *cx, const ks_request *q, ks_req_batch *rb)
{
    ks_replica *part = ks_replicas_of(l->replicas, rb->partition);
    ks_kerr injected = rb->error;
    if (injected != KS_KERR_NONE && injected != KS_KERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND) {
        refuse_batch(l, cx, q, rb, ks_kerr_name(injected), rb->fault);
        return;
    }
    if (!part) { /* the producer's metadata is stale: it leads no such partition */
        rb->error = KS_KERR_NOT_LEADER_OR_FOLLOWER;
        refuse_batch(l, cx, q, rb, ks_kerr_name(rb->error), KS_NO_FAULT);
        return;
    }
    if (too_large(l, cx, rb)) {
        rb->error = KS_KERR_MESSAGE_TOO_LARGE;
        l->too_large++;
        refuse_batch(l, cx, q, rb, ks_kerr_name(rb->error), KS_NO_FAULT);
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
            refuse_batch(l, cx, q, rb, "DUPLICATE", KS_NO_FAULT);
            return;
        }
        if (v != KS_PS_APPEND) {
            ks_kerr e = v == KS_PS_INVALID_PRODUCER_EPOCH ? KS_KERR_INVALID_PRODUCER_EPOCH
                        : v == KS_PS_UNKNOWN_PRODUCER_ID  ? KS_KERR_UNKNOWN_PRODUCER_ID
                                                          : KS_KERR_OUT_OF_ORDER_SEQUENCE_NUMBER;
            rb->error = e;
            refuse_batch(l, cx, q, rb, ks_kerr_name(e), KS_NO_FAULT);
            return;
        }
        append_batch(l, cx, q, rb, part);
        if (!ks_ps_update(&part->ps, q->producer_id, rb->epoch, rb->base_seq, last_seq,
                          rb->base_offset))
            ks_ctx_oom(cx);
    } else {
        append_batch(l, cx, q, rb, part);
    }
    /* NOT_ENOUGH_REPLICAS_AFTER_APPEND: in the log, yet answered with an
     * error ([K] Partition.checkEnoughReplicasReachOffset). */
    rb->error = injected;
}

/* ---- WriteTxnMarkers: the leader's side ---------------------------------- */

/* An ABORT marker ended a transaction in this log (its aborted index grew
 * past `before`): the checker learns its records, the data batches of
 * that producer id from the transaction's first offset. Their producer
 * tells it too when it aborts itself, but not when it crashed or was
 * fenced and the coordinator aborted for it. */
static void note_aborted(ks_ctx *cx, const ks_plog *l, uint32_t before)
{
    if (l->naborted == before || !l->keep_ids)
        return;
    const ks_aborted_txn *a = &l->aborted[l->naborted - 1];
    const ks_plog_batch *b = ks_plog_find(l, a->first_offset);
    for (; b && b < l->batches + l->count && b->base_offset < a->last_offset; b++)
        if (!b->control && b->transactional && b->producer_id == a->producer_id)
            ks_obs_aborted(cx->obs, &l->ids[b->ids_at], b->records);
}

static void trace_marker(ks_leader *l, ks_ctx *cx, const ks_request *q, const ks_replica *part,
                         int64_t off)
{
    ks_trace *tr = cx->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_MARKER))
        return;
    ks_trace_u64(tr, "broker", l->io->broker);
    ks_trace_str(tr, "topic", cx->sc->topics[ks_meta_topic_of(l->meta, part->partition)].name);
    ks_trace_u64(tr, "partition", ks_meta_index_of(l->meta, part->partition));
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
bool ks_leader_write_markers(ks_leader *l, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    ks_marker m = q->commit ? KS_MARKER_COMMIT : KS_MARKER_ABORT;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        uint32_t pidx = ks_req_entry(&cx->reqs, e)->partition;
        if (ks_is_group_partition(pidx)) {
            /* __consumer_offsets: the group coordinator completes the
             * transaction's offsets ([K] GroupCoordinator.
             * scheduleHandleTxnCompletion) */
            ks_groups_marker(l->groups, cx, pidx & ~KS_GROUP_PARTITION_BIT, q->producer_id,
                             q->commit);
            continue;
        }
        ks_replica *part = ks_replicas_of(l->replicas, pidx);
        if (!part || !part->log) {
            ks_req_entry(&cx->reqs, e)->error = KS_KERR_NOT_LEADER_OR_FOLLOWER;
            continue;
        }
        uint32_t aborted_before = part->log->naborted;
        int64_t off = ks_plog_append_marker(part->log, q->producer_id, q->epoch, m,
                                            ks_sim_now(&cx->sim));
        if (off < 0 || !ks_ps_marker(&part->ps, q->producer_id, q->epoch)) {
            ks_ctx_oom(cx);
            return true;
        }
        part->log_end_offset = part->log->leo;
        note_aborted(cx, part->log, aborted_before);
        trace_marker(l, cx, q, part, off);
        ks_fetch_wake(l->fetches, cx, pidx);
    }
    q->error = KS_KERR_NONE;
    return true;
}

/* ---- Produce: the leader's side -------------------------------------------- */

/* Does batch rb need the coordinator's word before it is appended? Since
 * 3.6 (KIP-890 part 1, transaction.partition.verification.enable) the
 * leader verifies a transactional batch whose producer has no ongoing
 * transaction in the partition; under transaction version 2 the same
 * request adds the partition to the transaction (part 2) ([K]
 * ReplicaManager.appendRecords, UnifiedLog.maybeStartTransactionVerification). */
static bool needs_verification(const ks_leader *l, const ks_ctx *cx, const ks_request *q, const ks_req_batch *rb)
{
    if (q->producer_id < 0 || !rb->transactional || !q->transactional_id)
        return false;
    if (rb->error != KS_KERR_NONE && rb->error != KS_KERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND)
        return false; /* refused anyway */
    if (!ks_request_tv2(q) && cx->sc->kafka_version < KS_KV(3, 6, 0))
        return false;
    const ks_replica *part = ks_replicas_of(l->replicas, rb->partition);
    return part && part->log && !ks_plog_txn_ongoing(part->log, q->producer_id);
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
static ks_kerr verified(const ks_ctx *cx, uint32_t vreq, uint32_t partition)
{
    if (vreq == KS_REQ_NONE)
        return KS_KERR_NONE;
    const ks_request *vq = ks_req(&cx->reqs, vreq);
    for (uint32_t e = vq->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        const ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        if (rb->partition == partition)
            return rb->error != KS_KERR_NONE ? rb->error : vq->error;
    }
    return KS_KERR_NONE;
}

/* Every batch of produce request `id`, in order, is appended or refused;
 * vreq is the verification answered for it, or KS_REQ_NONE. */
static void append_all(ks_leader *l, ks_ctx *cx, uint32_t id, uint32_t vreq)
{
    const ks_request *q = ks_req(&cx->reqs, id);
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        ks_kerr v = verified(cx, vreq, rb->partition);
        if (v != KS_KERR_NONE) {
            rb->error = verification_error(q, v);
            refuse_batch(l, cx, q, rb, ks_kerr_name(rb->error), KS_NO_FAULT);
            continue;
        }
        handle_batch(l, cx, q, rb);
    }
}

/* AddPartitionsToTxnRequest v4 (verifyOnly) / v5: header + client id +
 * one transaction: transactional id, producer id (8), epoch (2), verify
 * (1), one topic with its partitions (4 each); the response: header and
 * an error per partition ([K] AddPartitionsToTxnRequest.json). */
static bool send_verification(ks_leader *l, ks_ctx *cx, uint32_t id)
{
    const ks_request *q = ks_req(&cx->reqs, id);
    bool tv2 = ks_request_tv2(q);
    uint32_t coord = ks_meta_txn_coordinator(l->meta, q->transactional_id);
    uint32_t v = ks_bio_new_request(l->io, cx, coord, KS_API_ADD_PARTITIONS_TO_TXN, tv2 ? 5 : 4);
    if (v == KS_REQ_NONE)
        return false;
    q = ks_req(&cx->reqs, id);
    ks_request *vq = ks_req(&cx->reqs, v);
    vq->transactional_id = q->transactional_id;
    vq->producer_id = q->producer_id;
    vq->verify_only = !tv2;
    vq->owner = id;
    uint32_t last = KS_REQ_NONE;
    const char *topic = "";
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        const ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        if (!needs_verification(l, cx, q, rb))
            continue;
        vq->epoch = rb->epoch;
        uint32_t partition = rb->partition; /* rb moves when the entries grow */
        topic = cx->sc->topics[ks_meta_topic_of(l->meta, partition)].name;
        uint32_t ve = ks_request_add_batch(&cx->reqs, v, &last);
        if (ve == KS_REQ_NONE)
            return false;
        vq = ks_req(&cx->reqs, v);
        q = ks_req(&cx->reqs, id);
        ks_req_entry(&cx->reqs, ve)->partition = partition;
    }
    vq->request_bytes = 40u + (uint32_t)strlen(vq->client_id) +
                        (uint32_t)strlen(vq->transactional_id) + (uint32_t)strlen(topic) +
                        4u * vq->batches;
    vq->response_bytes = 24u + (uint32_t)strlen(topic) + 6u * vq->batches;
    ks_bio_send(l->io, cx, v);
    return true;
}

/* Handles a produce request: an injected error for its batches first,
 * then, when some batch needs the coordinator's verification, the request
 * waits for it (its connection stays muted; ks_broker_on_response goes
 * on); else each batch is appended or refused now. Returns true when it
 * is done now. */
bool ks_leader_produce(ks_leader *l, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    ks_kerr injected = KS_KERR_NONE;
    uint32_t struck = UINT32_MAX;
    int32_t fault = l->faults->n > 0 ? ks_faults_append(l->faults, id, ks_sim_now(&cx->sim),
                                                        &injected, &struck)
                                     : KS_NO_FAULT;
    bool verify = false;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        bool hit = fault >= 0 && (struck == UINT32_MAX || struck == rb->partition);
        rb->error = hit ? injected : KS_KERR_NONE;
        rb->fault = hit ? fault : KS_NO_FAULT;
        verify = verify || needs_verification(l, cx, q, rb);
    }
    if (verify && send_verification(l, cx, id))
        return false;
    append_all(l, cx, id, KS_REQ_NONE);
    size_response(l, cx, id);
    return true;
}

/* The produce request `id` is done: its response leaves (acks=0: none;
 * the connection takes its next request). */
static void produce_done(ks_leader *l, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    if (q->expects_response) {
        size_response(l, cx, id);
        ks_bio_respond(l->io, cx, id);
        return;
    }
    uint32_t conn = q->conn;
    ks_request_unref(&cx->reqs, id);
    ks_bio_responded(l->io, cx, conn, KS_REQ_NONE);
}

void ks_leader_verified(ks_leader *l, ks_ctx *cx, uint32_t vreq, bool given_up)
{
    ks_request *vq = ks_req(&cx->reqs, vreq);
    for (uint32_t e = vq->first; given_up && e != KS_REQ_NONE;
         e = ks_req_entry(&cx->reqs, e)->next)
        ks_req_entry(&cx->reqs, e)->error = KS_KERR_NETWORK_EXCEPTION;
    uint32_t id = vq->owner;
    append_all(l, cx, id, vreq);
    produce_done(l, cx, id);
}

