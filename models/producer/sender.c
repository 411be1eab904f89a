/*
 * sender.c - the sender thread (see sender.h).
 *
 * ProduceRequest sizes follow ProduceRequest v7 framing ([K] clients/src/
 * main/resources/common/message/ProduceRequest.json, RequestHeader.json).
 */
#include "models/producer/sender.h"

#include "models/producer/prod.h"
#include "models/producer/txn_manager.h"
#include "models/producer/idempotence.h"
#include "models/producer/network_client.h"
#include "models/producer/outcome.h"

#include "models/net/wire.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Wakes the sender at `at` unless it is already due by then. */
/* ProduceRequest v7 for one topic: size(4) api_key(2) api_version(2)
 * correlation_id(4) client_id(2+n) transactional_id(2) acks(2)
 * timeout_ms(4) topics(4) name(2+n) partitions(4), then per partition
 * index(4) records_size(4) and the batch. */
static uint32_t request_bytes(const ks_producer *p, const char *topic, uint32_t batches,
                              uint64_t batch_bytes)
{
    return 32u + (uint32_t)strlen(p->client_id) + (uint32_t)strlen(topic) + 8u * batches +
           (uint32_t)batch_bytes;
}

/* The delivery.timeout.ms check runs at `at` (or earlier). It is a daemon:
 * when nothing else is left to happen, no batch is waiting on it. */
void ks_prod_sender_arm_expiry(ks_producer *p, ks_ctx *cx, ks_time at)
{
    if (at == KS_TIME_MAX)
        return;
    if (p->expiry_timer != KS_HANDLE_NONE) {
        if (p->expiry_ns <= at)
            return;
        ks_sim_cancel(&cx->sim, p->expiry_timer);
    }
    ks_event ev = {.kind = KS_EV_TIMER, .owner = p->node, .tag = KS_TIMER_EXPIRY};
    p->expiry_timer = ks_sim_schedule_daemon(&cx->sim, at, &ev);
    p->expiry_ns = at;
}

/* Why a drained batch went: it was sendable itself, or it rode along in a
 * request that another partition's ready batch triggered. */
static const char *why_sent(const ks_producer *p, const ks_batch *b, bool was_full,
                            ks_time now)
{
    if (b->split)
        return "split"; /* made of a batch refused as too large */
    if (was_full)
        return "full";
    if (now - b->created_ns >= p->acc.linger_ns)
        return "linger";
    if (p->blocked)
        return "memory";
    return "ride";
}

static void trace_drain(ks_producer *p, ks_ctx *cx, uint32_t broker, uint64_t corr,
                        const ks_batch *b, const char *why)
{
    ks_trace *tr = cx->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_DRAIN)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_u64(tr, "broker", broker);
        ks_trace_u64(tr, "request", corr);
        ks_trace_str(tr, "topic", ks_prod_topic_name(cx, p));
        ks_trace_u64(tr, "partition", b->partition);
        ks_trace_u64(tr, "batch", b->id);
        ks_trace_u64(tr, "records", b->records);
        ks_trace_u64(tr, "bytes", b->bytes);
        ks_trace_i64(tr, "waited_ns", ks_sim_now(&cx->sim) - b->created_ns);
        ks_trace_str(tr, "why", why);
        ks_trace_end(tr);
    }
}

static void trace_retry(ks_producer *p, ks_ctx *cx, const ks_batch *b, ks_kerr err,
                        ks_time backoff)
{
    ks_trace *tr = cx->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_RETRY)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_str(tr, "topic", ks_prod_topic_name(cx, p));
        ks_trace_u64(tr, "partition", b->partition);
        ks_trace_u64(tr, "batch", b->id);
        ks_trace_u64(tr, "attempt", b->attempts + 2u); /* the one to come */
        ks_trace_str(tr, "error", ks_kerr_name(err));
        ks_trace_i64(tr, "backoff_ns", backoff);
        if (b->has_seq)
            ks_trace_i64(tr, "base_sequence", b->base_seq);
        ks_trace_end(tr);
    }
}

/* One "split" line per new batch, in record order. */
static void trace_split(ks_producer *p, ks_ctx *cx, uint64_t old_id, uint32_t records,
                        uint32_t bytes, const ks_batch *into)
{
    ks_trace *tr = cx->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_SPLIT))
        return;
    ks_trace_str(tr, "producer", p->conf->id);
    ks_trace_str(tr, "topic", ks_prod_topic_name(cx, p));
    ks_trace_u64(tr, "partition", into->partition);
    ks_trace_u64(tr, "batch", old_id);
    ks_trace_u64(tr, "records", records);
    ks_trace_u64(tr, "bytes", bytes);
    ks_trace_str(tr, "error", ks_kerr_name(KS_KERR_MESSAGE_TOO_LARGE));
    ks_trace_u64(tr, "into", into->id);
    ks_trace_u64(tr, "into_records", into->records);
    ks_trace_u64(tr, "into_bytes", into->bytes);
    if (into->has_seq)
        ks_trace_i64(tr, "base_sequence", into->base_seq);
    ks_trace_end(tr);
}

/* The leader answered MESSAGE_TOO_LARGE for a batch of more than one
 * record ([K] Sender.completeBatch:
 *     if (error == Errors.MESSAGE_TOO_LARGE && batch.recordCount > 1 && !batch.isDone() &&
 *             (batch.magic() >= RecordBatch.MAGIC_VALUE_V2 || batch.isCompressed())) {
 *         if (transactionManager != null)
 *             transactionManager.removeInFlightBatch(batch);
 *         this.accumulator.splitAndReenqueue(batch);
 *         maybeRemoveAndDeallocateBatch(batch);
 * ksim's batches are all magic v2). The split is not a retry: no attempt
 * is counted, no backoff waited; its batches go at once, and the
 * application hears of its records only through them. */
static void split_batch(ks_producer *p, ks_ctx *cx, uint32_t bid)
{
    const ks_batch *b = ks_acc_batch(&p->acc, bid);
    uint64_t old_id = b->id;
    uint32_t partition = b->partition, records = b->records, bytes = b->bytes;
    ks_prod_seq_done(p, b);
    uint32_t first = KS_NONE;
    uint32_t n = ks_acc_split(&p->acc, bid, p->seq != NULL, &first);
    if (n == 0) {
        ks_prod_oom(cx);
        return;
    }
    p->splits++;
    for (uint32_t i = 0, piece = first; i < n; i++) {
        const ks_batch *nb = ks_acc_batch(&p->acc, piece);
        ks_prod_seq_split_piece(p, nb);
        ks_obs_split(cx->obs, p->index, old_id, nb->id, p->first_partition + partition,
                     nb->records);
        trace_split(p, cx, old_id, records, bytes, nb);
        piece = nb->next;
    }
}

/* Sender.canRetry, with TransactionManager.canRetry for idempotent and
 * transactional producers: OUT_OF_ORDER_SEQUENCE_NUMBER is retried unless
 * a transactional producer's broker really lost what came before
 * (ks_prod_seq_oos_verdict); other errors when retriable. */
static bool can_retry(ks_producer *p, const ks_batch *b, ks_kerr err, ks_time now)
{
    if (now - b->created_ns >= p->set.delivery_timeout_ns)
        return false; /* hasReachedDeliveryTimeout */
    if ((int64_t)b->attempts >= p->set.retries)
        return false;
    if (p->seq && err == KS_KERR_OUT_OF_ORDER_SEQUENCE_NUMBER)
        return ks_prod_seq_out_of_order(p, b);
    return ks_kerr_retriable(err);
}

/* The leader answered a batch with an error, or its request was lost
 * with the connection: retry it, or fail it (Sender.completeBatch). A
 * batch that fails for a reason other than running out of retries
 * (failBatch with adjustSequenceNumbers) makes an idempotent producer bump
 * its epoch ([K] TransactionManager.handleFailedBatch:
 * `if (!isTransactional()) requestEpochBumpForPartition(...)`); a
 * transactional producer moves the partition's later sequences down over
 * it (`else txnPartitionMap.adjustSequencesDueToFailedBatch(batch)`), and
 * its transaction can only abort (maybeTransitionToErrorState). */
static void batch_failed(ks_producer *p, ks_ctx *cx, uint32_t bid, ks_kerr err)
{
    ks_time now = ks_sim_now(&cx->sim);
    ks_batch *b = ks_acc_batch(&p->acc, bid);
    if (err == KS_KERR_MESSAGE_TOO_LARGE && b->records > 1) {
        split_batch(p, cx, bid);
        return;
    }
    /* a batch of one record too large fails as any error that is not
     * retriable: RecordTooLargeException to the application */
    if (can_retry(p, b, err, now)) {
        ks_time backoff = ks_retry_backoff_ns(&p->set, b->attempts + 1u, &p->retry_rng);
        trace_retry(p, cx, b, err, backoff);
        ks_acc_reenqueue(&p->acc, bid, ks_time_add(now, backoff), p->seq != NULL);
        p->retries++;
        return;
    }
    ks_prod_seq_done(p, b);
    bool txn = p->tm.transactional;
    bool adjust = (int64_t)b->attempts < p->set.retries; /* adjustSequenceNumbers */
    if (!txn && p->seq && b->has_seq && adjust)
        ks_prod_seq_request_bump(p, b->partition);
    else if (txn && adjust && !ks_prod_tm_fatal_error(p) && err != KS_KERR_UNKNOWN_PRODUCER_ID)
        ks_prod_seq_adjust_failed(p, b);
    ks_prod_outcome_batch(p, cx, bid, -1, ks_kerr_exception(err));
    if (txn)
        ks_prod_tm_abortable(p, cx); /* the transaction can only abort now */
}

/* A batch's error, then, when the error says the producer's metadata is
 * stale, a metadata update ([K] Sender.completeBatch: "if
 * (error.exception() instanceof InvalidMetadataException) ...
 * metadata.requestUpdate()"). */
static void batch_error(ks_producer *p, ks_ctx *cx, uint32_t bid, ks_kerr err)
{
    batch_failed(p, cx, bid, err);
    if (ks_kerr_invalid_metadata(err))
        ks_prod_net_request_metadata(p, cx);
}

/* The leader appended a batch (or recognised it as a duplicate). */
static void batch_success(ks_producer *p, ks_ctx *cx, uint32_t bid, int64_t base_offset)
{
    ks_batch *b = ks_acc_batch(&p->acc, bid);
    ks_prod_seq_done(p, b);
    ks_prod_seq_acked(p, b);
    ks_prod_outcome_batch(p, cx, bid, base_offset, NULL);
}

void ks_prod_sender_fail_request(ks_producer *p, ks_ctx *cx, const ks_request *q, ks_kerr err)
{
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        const ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        ks_batch *b = ks_acc_batch(&p->acc, rb->batch);
        ks_acc_mute(&p->acc, rb->partition - p->first_partition, false);
        if (b->state == KS_BATCH_IN_FLIGHT && b->id == rb->batch_seq)
            batch_error(p, cx, rb->batch, err);
    }
}

/* A response is handled: every batch it answers, unless the batch has
 * meanwhile expired (then the answer comes too late to matter). */
void ks_prod_sender_handle_response(ks_producer *p, ks_ctx *cx, const ks_request *q)
{
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        const ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        ks_batch *b = ks_acc_batch(&p->acc, rb->batch);
        ks_acc_mute(&p->acc, rb->partition - p->first_partition, false);
        if (b->state != KS_BATCH_IN_FLIGHT || b->id != rb->batch_seq) {
            ks_prod_seq_late_answer(p, rb);
            continue;
        }
        if (rb->error == KS_KERR_NONE)
            batch_success(p, cx, rb->batch, rb->base_offset);
        else
            batch_error(p, cx, rb->batch, rb->error);
    }
}

static ks_time deadline_of(const ks_producer *p, const ks_batch *b)
{
    return ks_time_add(b->created_ns, p->set.delivery_timeout_ns);
}

/* A batch ran out of delivery time: the application gets a
 * TimeoutException. One being retried leaves its partition's sequence
 * unresolved. */
static void expire(ks_producer *p, ks_ctx *cx, uint32_t bid)
{
    ks_batch *b = ks_acc_batch(&p->acc, bid);
    ks_prod_seq_done(p, b);
    ks_prod_seq_unresolved(p, b);
    p->expired++;
    ks_prod_outcome_batch(p, cx, bid, -1, "TimeoutException");
    ks_prod_tm_batch_expired(p); /* the transaction can only abort now */
}

/* delivery.timeout.ms, as Sender.sendProducerData checks it: first each
 * deque from its head, stopping at the first batch still in time
 * (RecordAccumulator.expiredBatches), then the batches in flight, oldest
 * request first (getExpiredInflightBatches). An expired batch in flight
 * may still be written; its answer then only updates the sequence. */
void ks_producer_on_expiry(ks_producer *p, ks_ctx *cx)
{
    ks_time now = ks_sim_now(&cx->sim), next = KS_TIME_MAX;
    p->expiry_timer = KS_HANDLE_NONE;
    for (uint32_t bid = ks_acc_expired(&p->acc, now, p->set.delivery_timeout_ns, &next);
         bid != KS_NONE;) {
        uint32_t after = ks_acc_batch(&p->acc, bid)->next;
        expire(p, cx, bid);
        bid = after;
    }
    for (uint32_t b = 0; b < p->brokers && p->acks != 0; b++) {
        for (uint32_t id = p->nodes[b].fifo_head; id != KS_REQ_NONE; id = ks_req(&cx->reqs, id)->pnext) {
            const ks_request *q = ks_req(&cx->reqs, id);
            for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
                const ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
                ks_batch *bt = ks_acc_batch(&p->acc, rb->batch);
                if (bt->state != KS_BATCH_IN_FLIGHT || bt->id != rb->batch_seq)
                    continue;
                ks_time deadline = deadline_of(p, bt);
                if (deadline > now) {
                    if (deadline < next)
                        next = deadline;
                    continue;
                }
                expire(p, cx, rb->batch);
            }
        }
    }
    ks_prod_sender_arm_expiry(p, cx, next > now ? next : KS_TIME_MAX);
    p->app_thread->unblock(p, cx);
    ks_prod_sender_wake(p, cx, now);
}

/* Fills the request's entry for batch `bid`. */
static void fill_entry(ks_producer *p, ks_ctx *cx, ks_req_batch *rb, uint32_t bid)
{
    ks_batch *b = ks_acc_batch(&p->acc, bid);
    rb->partition = p->first_partition + b->partition;
    rb->batch = bid;
    rb->records = b->records;
    rb->bytes = b->bytes;
    rb->raw = b->raw;
    rb->decompress_ps = p->acc.compressed ? p->conf->compression.decompress_ps : 0;
    rb->batch_seq = b->id;
    rb->attempt = b->attempts + 1u;
    rb->epoch = -1;
    rb->base_seq = -1;
    rb->base_offset = -1;
    rb->transactional = p->tm.transactional;
    if (cx->record_ids) {
        /* the log keeps record ids: the request carries them, so that a
         * copy landing after the producer let the batch go is known */
        rb->ids = malloc((size_t)b->records * sizeof *rb->ids);
        uint32_t n = 0;
        for (uint32_t r = b->rec_head; rb->ids && r != KS_NONE && n < b->records;
             r = p->acc.recs[r].next)
            rb->ids[n++] = p->acc.recs[r].id;
    }
    if (p->seq) {
        ks_prod_seq_assign(p, b);
        rb->epoch = b->epoch;
        rb->base_seq = b->base_seq;
    }
}

/* acks=0: the request expects no response; its batches complete once it
 * has been written to the connection, offset unknown ([K] NetworkClient.
 * handleCompletedSends, Sender's "acks = 0" case). */
static void send_unacknowledged(ks_producer *p, ks_ctx *cx, uint32_t broker, uint32_t id,
                                uint32_t chain, ks_time now)
{
    ks_time sent;
    ks_prod_net_launch(p, cx, broker, id, now, &sent);
    ks_request *q = ks_req(&cx->reqs, id);
    /* what the producer knows of it (the observer keeps the network's
     * word when it lost the request) */
    ks_obs_request_fate(cx->obs, p->index, q->correlation_id, KS_FATE_NO_RESPONSE,
                        KS_OBS_NO_FAULT);
    ks_event done = {.kind = KS_EV_TIMER, .owner = p->node, .tag = KS_TIMER_SENT, .arg = chain};
    ks_sim_schedule(&cx->sim, sent, &done);
    if (q->refs == 0)
        ks_request_release(&cx->reqs, id);
}

/* Sends the drained chain to `broker` as one ProduceRequest. The sender
 * thread spends request.us + batch.us per batch building it; the request
 * leaves when that is done. */
static void send_request(ks_producer *p, ks_ctx *cx, uint32_t broker, uint32_t chain)
{
    ks_time now = ks_sim_now(&cx->sim);
    uint32_t id = ks_prod_net_new_request(p, cx, KS_API_PRODUCE, broker);
    if (id == KS_REQ_NONE)
        return;
    ks_request *q = ks_req(&cx->reqs, id);
    q->expects_response = p->acks != 0;
    q->producer_id = p->seq ? p->producer_id : -1;
    uint32_t last = KS_REQ_NONE;
    uint64_t batch_bytes = 0;
    for (uint32_t bid = chain; bid != KS_NONE; bid = ks_acc_batch(&p->acc, bid)->next) {
        const ks_batch *b = ks_acc_batch(&p->acc, bid);
        uint32_t e = ks_request_add_batch(&cx->reqs, id, &last);
        if (e == KS_REQ_NONE) {
            ks_prod_oom(cx);
            return;
        }
        q = ks_req(&cx->reqs, id);
        fill_entry(p, cx, ks_req_entry(&cx->reqs, e), bid);
        q->records += b->records;
        batch_bytes += b->bytes;
        ks_prod_hist_add(p, KS_PH_BATCH_RECORDS, b->records);
        ks_prod_hist_add(p, KS_PH_BATCH_BYTES, b->bytes);
        if (p->max_in_flight == 1)
            ks_acc_mute(&p->acc, b->partition, true); /* guaranteeMessageOrder */
        trace_drain(p, cx, broker, q->correlation_id, b,
                    b->attempts > 0 ? "retry" : why_sent(p, b, b->was_full, now));
    }
    q->request_bytes = request_bytes(p, ks_prod_topic_name(cx, p), q->batches, batch_bytes);
    ks_prod_tm_produce_sent(p);
    p->requests++;
    p->batches += q->batches;
    cx->metrics.cur.requests++;
    cx->metrics.cur.batches += q->batches;
    ks_prod_hist_add(p, KS_PH_REQUEST_BATCHES, q->batches);
    ks_prod_sender_cost(p, q, now);
    if (p->acks == 0) {
        send_unacknowledged(p, cx, broker, id, chain, now);
        return;
    }
    ks_time sent;
    ks_prod_net_launch(p, cx, broker, id, now, &sent);
}

/* acks=0: a request has been written; its records are done. */
void ks_producer_on_sent(ks_producer *p, ks_ctx *cx, uint32_t chain)
{
    for (uint32_t bid = chain; bid != KS_NONE;) {
        ks_batch *b = ks_acc_batch(&p->acc, bid);
        uint32_t next = b->next;
        ks_acc_mute(&p->acc, b->partition, false);
        ks_prod_outcome_batch(p, cx, bid, -1, NULL);
        bid = next;
    }
    p->app_thread->unblock(p, cx);
    ks_prod_sender_wake(p, cx, ks_sim_now(&cx->sim));
}

/* Feeds queue lengths to the adaptive partitioner, leaving out partitions
 * whose leader could not be drained for partitioner.availability.timeout.ms. */
static void update_load_stats(ks_producer *p, ks_ctx *cx, ks_ready *r)
{
    if (p->part.kind != KS_PARTITIONER_UNIFORM_STICKY)
        return;
    if (!p->adaptive) {
        ks_us_load_stats(&p->part, r->queue, r->queue_ids, 0, false);
        return;
    }
    if (p->acc.li.n > 0) { /* no partition can be left out: kept as it goes */
        const ks_load_index *li = ks_acc_load_snapshot(&p->acc);
        if (!li) {
            ks_prod_oom(cx);
            return;
        }
        ks_us_load_index(&p->part, li, p->acc.deques >= p->partitions);
        return;
    }
    ks_acc_queue_sizes(&p->acc, r);
    uint32_t len = 0;
    for (uint32_t i = 0; i < r->queue_len; i++) {
        const ks_prod_node *n = &p->nodes[p->leader[r->queue_ids[i]]];
        /* RecordAccumulator.partitionReady leaves empty deques in the
         * table (they `continue` before the exclusion) */
        if (p->availability_timeout_ns > 0 && r->queue[i] > 0 &&
            n->ready_ns - n->drain_ns > p->availability_timeout_ns)
            continue;
        r->queue[len] = r->queue[i];
        r->queue_ids[len] = r->queue_ids[i];
        len++;
    }
    ks_us_load_stats(&p->part, r->queue, r->queue_ids, len, r->queue_len >= p->partitions);
}

/* The transactional and idempotent preconditions of a run
 * (Sender.runOnce): the transactional request due goes first, and no
 * produce data is sent while one is in flight
 * (maybeSendAndPollTransactionalRequest) or without a producer id. */
static bool may_produce(ks_producer *p, ks_ctx *cx, ks_time now)
{
    /* runOnce: maybeResolveSequences comes first, before the
     * transactional request (it may turn the transaction abortable) */
    for (uint32_t gaps = p->seq ? ks_prod_seq_resolve(p) : 0; gaps > 0; gaps--)
        ks_prod_tm_unresolved(p, cx);
    if (p->tm.transactional) {
        ks_time tnext = KS_TIME_MAX;
        ks_prod_tm_send_due(p, cx, now, &tnext);
        if (tnext != KS_TIME_MAX)
            ks_prod_sender_wake(p, cx, tnext);
        if (p->producer_id < 0 || ks_prod_tm_fatal_error(p))
            return false;
        if (p->tm.in_flight)
            return false;
    }
    if (p->seq) {
        if (ks_prod_seq_maybe_bump_epoch(p, cx)) /* idempotent only */
            ks_prod_tm_need_producer_id(p, cx);
        if (p->producer_id < 0) {
            /* nothing is drained without a producer id; its answer (or a
             * connection becoming ready) wakes the sender */
            ks_time next = KS_TIME_MAX;
            if (!p->tm.transactional)
                ks_prod_tm_maybe_init_producer_id(p, cx, now, &next);
            if (next != KS_TIME_MAX)
                ks_prod_sender_wake(p, cx, next);
            return false;
        }
    }
    return true;
}

/* Drains broker b into one request if its connection can take one;
 * lowers *next to when the sender should look again. */
static void drain_node(ks_producer *p, ks_ctx *cx, uint32_t b, ks_time now, ks_time *next)
{
    ks_prod_node *n = &p->nodes[b];
    ks_time wire = ks_net_wire_free(cx->net, n->conn, KS_NET_REQUEST);
    bool slot = p->acks == 0 || n->in_flight < p->max_in_flight;
    /* NetworkClient sends on a connection only when the previous
     * request has been fully written (InFlightRequests.canSendMore). */
    bool can = slot && wire <= now && n->ready_at_ns <= now;
    n->ready_ns = now;
    if (!can) {
        ks_time when = wire > n->ready_at_ns ? wire : n->ready_at_ns;
        if (slot && when < *next)
            *next = when;
        return; /* else a response will wake the sender */
    }
    n->drain_ns = now;
    void *ctx[2] = {p, cx};
    uint32_t count;
    uint64_t bytes;
    uint32_t chain = ks_acc_drain(&p->acc, b, p->max_request_size, now,
                                  p->seq ? ks_prod_seq_may_drain : NULL, ctx, &count, &bytes);
    if (count > 0)
        send_request(p, cx, b, chain);
    /* More batches may be waiting: look again once this request is
     * on the wire (Sender polls with timeout 0 while nodes are ready). */
    if (count > 0 && ks_acc_has_queued(&p->acc, b)) {
        wire = ks_net_wire_free(cx->net, n->conn, KS_NET_REQUEST);
        ks_time again = wire > p->sender_free_ns ? wire : p->sender_free_ns;
        if (again < now)
            again = now;
        if (again < *next)
            *next = again;
    }
}

/* The sender thread runs (Sender.runOnce, sendProducerData). */
void ks_producer_on_sender(ks_producer *p, ks_ctx *cx)
{
    ks_time now = ks_sim_now(&cx->sim);
    p->wake = KS_HANDLE_NONE;
    if (now < p->sender_free_ns) { /* still building the last requests */
        ks_prod_sender_wake(p, cx, p->sender_free_ns);
        return;
    }
    if (!may_produce(p, cx, now))
        return;
    ks_ready r = {p->node_ready, KS_TIME_MAX, p->queue, p->queue_ids, 0};
    /* a transaction being committed flushes: every batch is ready */
    ks_acc_ready(&p->acc, now, p->blocked || p->tm.end_queued, &r);
    update_load_stats(p, cx, &r);
    ks_time next = r.next_check_ns;
    for (uint32_t b = 0; b < p->brokers && cx->sim.verdict == KS_SIM_RUNNING; b++)
        if (p->node_ready[b])
            drain_node(p, cx, b, now, &next);
    if (next != KS_TIME_MAX)
        ks_prod_sender_wake(p, cx, next);
}
