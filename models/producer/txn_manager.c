/*
 * txn_manager.c - the producer's TransactionManager (see txn_manager.h).
 */
#include "models/producer/txn_manager.h"

#include "models/producer/producer.h"
#include "models/producer/sender.h"
#include "models/world.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The idempotent producer needs a producer id: InitProducerId without a
 * transactional.id ([K] TransactionManager.bumpIdempotentEpochAndReset
 * IdIfNeeded enqueues it; Sender.maybeSendAndPollTransactionalRequest
 * sends it first). Until the answer comes, nothing is drained. */
void ks_prod_tm_need_producer_id(ks_producer *p, ks_world *w)
{
    p->producer_id = -1;
    p->pid_needed = true;
    ks_prod_sender_wake(p, w, ks_sim_now(&w->sim));
}

/* InitProducerId answered: a fresh producer id at epoch 0, and every
 * partition's sequence starts over. */
static void got_producer_id(ks_producer *p, ks_world *w, const ks_request *q)
{
    p->pid_needed = false;
    p->pid_pending = false;
    p->producer_id = q->producer_id;
    p->epoch = q->epoch;
    ks_prod_seq_new_producer_id(p);
    ks_prod_trace_state(p, w, "init_producer_id", NULL);
}

/* Sends InitProducerId to `broker`. InitProducerIdRequest: header +
 * client id + null transactional id + timeout + producer id and epoch
 * (-1); the response: header + error + producer id + epoch. */
static void send_init_producer_id(ks_producer *p, ks_world *w, uint32_t broker, ks_time now)
{
    uint32_t id = ks_request_alloc(&w->reqs);
    if (id == KS_REQ_NONE) {
        ks_prod_oom(w);
        return;
    }
    ks_prod_node *n = &p->nodes[broker];
    ks_request *q = &w->reqs.reqs[id];
    q->api = KS_API_INIT_PRODUCER_ID;
    ks_prod_net_address(p, w, q, broker);
    q->correlation_id = ++p->api_requests[KS_API_INIT_PRODUCER_ID];
    q->expects_response = true;
    q->producer_id = -1;
    q->gen = n->gen;
    q->pnext = KS_REQ_NONE;
    q->request_bytes = 30u + (uint32_t)strlen(p->client_id);
    ks_prod_sender_cost(p, q, now);
    p->pid_pending = true;
    bool lost;
    ks_time sent;
    ks_prod_net_launch(p, w, broker, id, now, &lost, &sent);
}

/* InitProducerId goes to the least loaded node that can take a request:
 * fewest requests in flight, the lowest broker on ties
 * (NetworkClient.leastLoadedNode starts its search at a random node;
 * ksim at broker 0, so that runs read the same every time). Returns
 * false when no node can take it now; *next then says when to look
 * again (a response wakes the sender earlier). */
bool ks_prod_tm_maybe_init_producer_id(ks_producer *p, ks_world *w, ks_time now, ks_time *next)
{
    if (!p->pid_needed || p->pid_pending)
        return false;
    if (now < p->pid_retry_at_ns) {
        *next = p->pid_retry_at_ns;
        return false;
    }
    uint32_t best = ks_prod_net_least_loaded(p, w, now, next);
    if (best == UINT32_MAX)
        return false;
    send_init_producer_id(p, w, best, now);
    return true;
}

static void trace_txn_client(ks_producer *p, ks_world *w, const char *what, const char *error)
{
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_PRODUCER)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_str(tr, "what", what);
        ks_trace_str(tr, "transactional_id", p->conf->config[KS_PCFG_TRANSACTIONAL_ID].s);
        ks_trace_u64(tr, "transaction", p->txn_number);
        ks_trace_i64(tr, "producer_id", p->producer_id);
        ks_trace_i64(tr, "epoch", p->epoch);
        if (error)
            ks_trace_str(tr, "error", error);
        ks_trace_end(tr);
    }
}

/* What the transaction has not sent yet fails with
 * TransactionAbortedException ([K] RecordAccumulator.
 * abortUndrainedBatches). */
static void abort_undrained(ks_producer *p, ks_world *w)
{
    for (uint32_t bid = ks_acc_take_unsent(&p->acc); bid != KS_NONE;) {
        uint32_t next = ks_acc_batch(&p->acc, bid)->next;
        ks_prod_sender_finish_batch(p, w, bid, -1, "TransactionAbortedException");
        bid = next;
    }
}

/* An abortable error: the transaction can only abort, and what it has
 * not sent yet fails at once (Sender: abortUndrainedBatches). A later
 * InitProducerId bumps the epoch (epochBumpRequired). */
void ks_prod_tm_abortable(ks_producer *p, ks_world *w)
{
    if (!p->txn || p->txn_phase == KS_TXNC_FENCED)
        return;
    p->txn_failed = true;
    abort_undrained(p, w);
}

/* ProducerFencedException: the producer can do nothing more; what it
 * holds fails. */
static void txn_fenced(ks_producer *p, ks_world *w, ks_kerr err)
{
    if (p->txn_phase == KS_TXNC_FENCED)
        return;
    bool fenced = err == KS_KERR_PRODUCER_FENCED || err == KS_KERR_INVALID_PRODUCER_EPOCH;
    const char *exc = fenced ? "ProducerFencedException" : ks_kerr_exception(err);
    p->txn_phase = KS_TXNC_FENCED;
    p->fatal_exception = exc;
    p->txn_blocked = false;
    trace_txn_client(p, w, fenced ? "fenced" : "fatal", ks_kerr_name(err));
    if (fenced)
        ks_obs_zombie(&w->obs, p->txn_ids, p->ntxn_ids);
    p->ntxn_ids = 0;
    /* abortIncompleteBatches: queued and in-flight batches alike fail;
     * late answers for the latter are ignored */
    for (uint32_t bid = 0; bid < p->acc.batch_cap; bid++) {
        ks_batch *b = ks_acc_batch(&p->acc, bid);
        if (b->state == KS_BATCH_FREE)
            continue;
        if (b->state == KS_BATCH_QUEUED)
            ks_acc_remove(&p->acc, bid);
        ks_prod_seq_done(p, b);
        ks_prod_sender_finish_batch(p, w, bid, -1, exc);
    }
    ks_prod_send_try_unblock(p, w);
    ks_prod_send_drain_backlog(p, w);
}

/* commitTransaction() or abortTransaction(): the application waits. An
 * abort fails the batches not yet sent (TransactionAbortedException); a
 * commit flushes them. EndTxn goes once nothing of the transaction is
 * left in flight. "none": the application never ends it. */
static void txn_begin_end(ks_producer *p, ks_world *w)
{
    if (p->txn_phase != KS_TXNC_IN_TXN)
        return;
    const ks_txn_conf *tc = &p->conf->txn;
    ks_txn_end how = tc->ends[(p->txn_number - 1) % tc->end_count];
    if (how == KS_TXN_END_NONE && !p->txn_failed) {
        trace_txn_client(p, w, "hangs", NULL);
        return; /* the application hangs: transaction.timeout.ms will tell */
    }
    p->txn_phase = KS_TXNC_ENDING;
    p->txn_commit = how == KS_TXN_END_COMMIT && !p->txn_failed;
    trace_txn_client(p, w, p->txn_commit ? "commit" : "abort", NULL);
    if (!p->txn_commit) {
        /* beginAbort: partitions not yet added are forgotten */
        memset(p->txn_pending, 0, p->max_partitions * sizeof *p->txn_pending);
        p->txn_pending_count = 0;
        abort_undrained(p, w);
        ks_prod_send_try_unblock(p, w);
    }
    ks_prod_sender_wake(p, w, ks_sim_now(&w->sim));
}

/* After a send() in a transaction: its partition must be added to the
 * transaction before its batches may go (classic protocol), and the
 * application ends the transaction after transactions.records records. */
void ks_prod_tm_after_send(ks_producer *p, ks_world *w)
{
    if (p->txn_phase != KS_TXNC_IN_TXN)
        return;
    uint32_t part = p->last_partition;
    if (part == UINT32_MAX) {
        /* send() threw: doSend puts the transaction in an abortable state */
        ks_prod_tm_abortable(p, w);
        return;
    }
    if (!p->txn_added[part] && !p->txn_pending[part]) {
        p->txn_pending[part] = true; /* maybeAddPartition */
        p->txn_pending_count++;
    }
    p->txn_records++;
    if (p->ntxn_ids == p->txn_ids_cap) {
        uint32_t cap = p->txn_ids_cap ? p->txn_ids_cap * 2u : 16u;
        uint64_t *ids = realloc(p->txn_ids, cap * sizeof *ids);
        if (ids)
            p->txn_ids = ids;
        uint32_t *parts = realloc(p->txn_parts, cap * sizeof *parts);
        if (parts)
            p->txn_parts = parts;
        if (!ids || !parts) {
            ks_prod_oom(w);
            return;
        }
        p->txn_ids_cap = cap;
    }
    p->txn_parts[p->ntxn_ids] = part == UINT32_MAX ? UINT32_MAX : p->first_partition + part;
    p->txn_ids[p->ntxn_ids++] = w->next_record_id - 1; /* the record just sent */
    if (p->txn_offsets_consumer >= 0 || p->txn_records < p->conf->txn.records)
        return;
    for (uint32_t i = 0; i < w->consumer_count; i++)
        if (w->consumers[i].forward_to == (int32_t)p->index &&
            w->consumers[i].conf->commit == KS_COMMIT_TRANSACTION)
            return; /* its consumer ends it with the offsets */
    p->txn_blocked = true;
    if (p->conf->txn.end_delay_ns > 0) {
        ks_event ev = {.kind = KS_EV_TIMER, .owner = p->index, .tag = KS_TIMER_TXN_END};
        ks_sim_after(&w->sim, p->conf->txn.end_delay_ns, &ev);
    } else {
        txn_begin_end(p, w);
    }
}

void ks_producer_on_txn_end(ks_producer *p, ks_world *w)
{
    txn_begin_end(p, w);
}

/* sendOffsetsToTransaction then commitTransaction, once every record
 * handed over for this transaction has been sent. */
void ks_prod_tm_try_end(ks_producer *p, ks_world *w)
{
    if (!p->txn_end_after_backlog || p->backlog > 0 || p->blocked || p->txn_blocked ||
        p->txn_phase != KS_TXNC_IN_TXN)
        return;
    p->txn_end_after_backlog = false;
    p->txn_blocked = true;
    txn_begin_end(p, w);
}

/* The transaction is over (EndTxn answered): the application goes on. */
static void txn_done(ks_producer *p, ks_world *w, const ks_request *q)
{
    int32_t consumer = p->txn_offsets_consumer;
    if (p->txn_commit) {
        p->txn_committed++;
        ks_time decided = q && q->decided_ns > 0 ? q->decided_ns : ks_sim_now(&w->sim);
        ks_obs_txn_committed(&w->obs, p->index, p->txn_number, decided, p->txn_ids,
                                 p->txn_parts, p->ntxn_ids);
    } else {
        p->txn_aborted++;
        ks_obs_aborted(&w->obs, p->txn_ids, p->ntxn_ids);
    }
    p->ntxn_ids = 0;
    if (p->txn_kip890 && q && q->epoch >= 0 && q->epoch != p->epoch) {
        /* KIP-890: every commit or abort bumps the epoch; the sequences
         * start over under it */
        p->epoch = q->epoch;
    }
    p->txn_offsets_consumer = -1;
    p->txn_offsets_step = KS_TXN_OFFSETS_NONE;
    trace_txn_client(p, w, p->txn_commit ? "committed" : "aborted", NULL);
    p->txn_phase = KS_TXNC_READY;
    memset(p->txn_added, 0, p->max_partitions * sizeof *p->txn_added);
    p->txn_blocked = false;
    if (p->txn_failed && !p->txn_kip890 && p->txn_started) {
        /* epochBumpRequired: InitProducerId again, for a new epoch, before
         * the next transaction ([K] TransactionManager.
         * beginCompletingTransaction, KIP-360) */
        p->txn_phase = KS_TXNC_INITIALIZING;
        p->txn_blocked = true;
        p->producer_id = -1;
        ks_prod_sender_wake(p, w, ks_sim_now(&w->sim));
    }
    if (consumer >= 0) {
        if (p->txn_commit)
            ks_consumer_txn_committed(&w->consumers[consumer], w, NULL);
        else
            ks_consumer_txn_aborted(&w->consumers[consumer], w);
    }
    ks_prod_send_drain_backlog(p, w);
}

static bool fill_txn_request(ks_producer *p, ks_world *w, uint32_t id);

/* A transactional request of `api` to `broker`, with `parts` partitions
 * as entries (AddPartitionsToTxn). */
static void send_txn_request(ks_producer *p, ks_world *w, uint32_t broker, ks_api api,
                             ks_time now)
{
    uint32_t id = ks_request_alloc(&w->reqs);
    if (id == KS_REQ_NONE) {
        ks_prod_oom(w);
        return;
    }
    ks_prod_node *n = &p->nodes[broker];
    ks_request *q = &w->reqs.reqs[id];
    q->api = api;
    ks_prod_net_address(p, w, q, broker);
    q->correlation_id = ++p->api_requests[api];
    q->expects_response = true;
    q->producer_id = p->producer_id;
    q->epoch = p->epoch;
    q->commit = p->txn_commit;
    q->gen = n->gen;
    q->pnext = KS_REQ_NONE;
    const char *tid = p->conf->config[KS_PCFG_TRANSACTIONAL_ID].s;
    q->request_bytes = 30u + (uint32_t)strlen(p->client_id) + (uint32_t)strlen(tid);
    if (!fill_txn_request(p, w, id))
        return;
    q = &w->reqs.reqs[id];
    ks_prod_sender_cost(p, q, now);
    p->txn_req_in_flight = true;
    bool lost;
    ks_time sent;
    ks_prod_net_launch(p, w, broker, id, now, &lost, &sent);
}

/* The body of transactional request `id` beyond its header: the
 * coordinator's key, the group, the offsets (TxnOffsetCommit) or the
 * partitions (AddPartitionsToTxn) as entries. False when out of memory. */
static bool fill_txn_request(ks_producer *p, ks_world *w, uint32_t id)
{
    ks_request *q = &w->reqs.reqs[id];
    ks_api api = q->api;
    if (api == KS_API_FIND_COORDINATOR) {
        /* the transaction's coordinator first, then the group's */
        q->key_type = (uint8_t)(p->coordinator < 0 ? KS_COORD_TRANSACTION : KS_COORD_GROUP);
        q->group_id = p->txn_group_id;
    }
    if (api == KS_API_ADD_OFFSETS_TO_TXN || api == KS_API_TXN_OFFSET_COMMIT) {
        q->group_id = p->txn_group_id;
        q->member_id = p->txn_member_id;
        q->request_bytes += (uint32_t)strlen(p->txn_group_id);
    }
    if (api == KS_API_TXN_OFFSET_COMMIT) {
        /* the consumer's positions, committed with the transaction */
        uint32_t last = KS_REQ_NONE;
        for (uint32_t k = 0; k < p->txn_noffsets; k++) {
            uint32_t e = ks_request_add_batch(&w->reqs, id, &last);
            if (e == KS_REQ_NONE) {
                ks_prod_oom(w);
                return false;
            }
            q = &w->reqs.reqs[id];
            w->reqs.entries[e].partition = p->txn_offset_parts[k];
            w->reqs.entries[e].base_offset = p->txn_offsets[k];
            q->request_bytes += 16u;
        }
    }
    if (api == KS_API_ADD_PARTITIONS_TO_TXN) {
        uint32_t last = KS_REQ_NONE;
        for (uint32_t part = 0; part < p->partitions; part++) {
            if (!p->txn_pending[part])
                continue;
            uint32_t e = ks_request_add_batch(&w->reqs, id, &last);
            if (e == KS_REQ_NONE) {
                ks_prod_oom(w);
                return false;
            }
            q = &w->reqs.reqs[id];
            w->reqs.entries[e].partition = p->first_partition + part;
            q->request_bytes += 8u;
        }
    }
    return true;
}

/* Sends the transactional request due, if any, one at a time
 * (Sender.maybeSendAndPollTransactionalRequest): FindCoordinator, then
 * InitProducerId, AddPartitionsToTxn for partitions with records (classic
 * protocol), EndTxn once nothing of the transaction is left. */
void ks_prod_tm_send_due(ks_producer *p, ks_world *w, ks_time now, ks_time *next)
{
    if (p->txn_req_in_flight || p->txn_phase == KS_TXNC_FENCED)
        return;
    if (now < p->txn_retry_at_ns) {
        if (p->txn_retry_at_ns < *next)
            *next = p->txn_retry_at_ns;
        return;
    }
    ks_api api;
    if (p->coordinator < 0)
        api = KS_API_FIND_COORDINATOR;
    else if (p->txn_phase == KS_TXNC_INITIALIZING)
        api = KS_API_INIT_PRODUCER_ID;
    else if (!p->txn_kip890 && p->txn_pending_count > 0)
        api = KS_API_ADD_PARTITIONS_TO_TXN;
    else if (p->txn_offsets_step == KS_TXN_OFFSETS_ADD)
        api = KS_API_ADD_OFFSETS_TO_TXN;
    else if (p->txn_offsets_step == KS_TXN_OFFSETS_COMMIT && p->group_coordinator < 0)
        api = KS_API_FIND_COORDINATOR; /* of the group */
    else if (p->txn_offsets_step == KS_TXN_OFFSETS_COMMIT)
        api = KS_API_TXN_OFFSET_COMMIT;
    else if (p->txn_phase == KS_TXNC_ENDING && p->acc.batches_live == 0)
        api = KS_API_END_TXN;
    else
        return;
    if (api == KS_API_END_TXN && p->txn_failed && p->txn_commit) {
        /* commitTransaction fails on the abortable error; the application
         * aborts instead */
        p->txn_commit = false;
        trace_txn_client(p, w, "abort", "a batch of the transaction failed");
    }
    if (api == KS_API_END_TXN && !p->txn_started) {
        txn_done(p, w, NULL); /* the coordinator never heard of it: nothing to end */
        return;
    }
    uint32_t broker = (uint32_t)(api == KS_API_TXN_OFFSET_COMMIT ? p->group_coordinator
                                                                 : p->coordinator);
    const ks_prod_node *n = api != KS_API_FIND_COORDINATOR ? &p->nodes[broker] : NULL;
    if (api == KS_API_FIND_COORDINATOR) {
        broker = ks_prod_net_least_loaded(p, w, now, next);
        if (broker == UINT32_MAX)
            return;
    } else if (n->in_flight >= p->max_in_flight || n->ready_at_ns > now ||
               ks_net_wire_free(&w->net, n->conn, KS_NET_REQUEST) > now) {
        ks_time when = n->ready_at_ns > now ? n->ready_at_ns
                                            : ks_net_wire_free(&w->net, n->conn, KS_NET_REQUEST);
        if (when > now && when < *next)
            *next = when;
        return;
    }
    send_txn_request(p, w, broker, api, now);
}

/* TxnOffsetCommit answered: the offsets wait at the group coordinator for
 * the transaction's end. A partition refused because the coordinator
 * moved is sent again to the new one ([K] TxnOffsetCommitHandler). */
static void txn_offsets_committed(ks_producer *p, ks_world *w, const ks_request *q)
{
    ks_kerr err = KS_KERR_NONE;
    for (uint32_t e = q->first; e != KS_REQ_NONE && err == KS_KERR_NONE;
         e = w->reqs.entries[e].next)
        err = w->reqs.entries[e].error;
    if (err == KS_KERR_NONE) {
        p->txn_offsets_step = KS_TXN_OFFSETS_DONE;
        return;
    }
    trace_txn_client(p, w, ks_api_name(q->api), ks_kerr_name(err));
    if (err == KS_KERR_NOT_COORDINATOR || err == KS_KERR_COORDINATOR_NOT_AVAILABLE)
        p->group_coordinator = -1;
    if (ks_kerr_retriable(err))
        p->txn_retry_at_ns = ks_time_add(ks_sim_now(&w->sim), p->set.retry_backoff_ns);
    else
        txn_fenced(p, w, err);
}

/* A transactional request's error, if any (true: handled). Retriable
 * errors go again after retry.backoff.ms (AddPartitionsToTxn's
 * CONCURRENT_TRANSACTIONS after 20 ms, ADD_PARTITIONS_RETRY_BACKOFF_MS);
 * a fenced producer is done. */
static bool txn_error(ks_producer *p, ks_world *w, const ks_request *q)
{
    ks_time now = ks_sim_now(&w->sim);
    if (q->error == KS_KERR_PRODUCER_FENCED || q->error == KS_KERR_INVALID_PRODUCER_EPOCH) {
        txn_fenced(p, w, q->error);
        return true;
    }
    if (q->error == KS_KERR_INVALID_PRODUCER_ID_MAPPING && q->api == KS_API_ADD_PARTITIONS_TO_TXN) {
        ks_prod_tm_abortable(p, w); /* abortableErrorIfPossible */
        trace_txn_client(p, w, ks_api_name(q->api), ks_kerr_name(q->error));
        return true;
    }
    if (q->error != KS_KERR_NONE && !ks_kerr_retriable(q->error)) {
        /* the handlers treat the rest as fatal (INVALID_TXN_STATE,
         * INVALID_TRANSACTION_TIMEOUT, unknown errors) */
        txn_fenced(p, w, q->error);
        return true;
    }
    if (q->error != KS_KERR_NONE) {
        ks_time backoff = q->api == KS_API_ADD_PARTITIONS_TO_TXN &&
                                  q->error == KS_KERR_CONCURRENT_TRANSACTIONS
                              ? 20 * KS_NS_PER_MS
                              : p->set.retry_backoff_ns;
        p->txn_retry_at_ns = ks_time_add(now, backoff);
        trace_txn_client(p, w, ks_api_name(q->api), ks_kerr_name(q->error));
        return true;
    }
    return false;
}

/* A transactional request's answer. */
static void txn_answered(ks_producer *p, ks_world *w, const ks_request *q)
{
    p->txn_req_in_flight = false;
    if (txn_error(p, w, q))
        return;
    switch (q->api) {
    case KS_API_FIND_COORDINATOR:
        if (q->key_type == KS_COORD_GROUP)
            p->group_coordinator = (int32_t)q->node;
        else
            p->coordinator = (int32_t)q->node;
        break;
    case KS_API_ADD_OFFSETS_TO_TXN:
        p->txn_offsets_step = KS_TXN_OFFSETS_COMMIT;
        p->txn_started = true;
        break;
    case KS_API_TXN_OFFSET_COMMIT:
        txn_offsets_committed(p, w, q);
        break;
    case KS_API_INIT_PRODUCER_ID:
        got_producer_id(p, w, q);
        p->txn_phase = KS_TXNC_READY;
        p->txn_blocked = false;
        ks_prod_send_drain_backlog(p, w);
        break;
    case KS_API_ADD_PARTITIONS_TO_TXN:
        for (uint32_t e = q->first; e != KS_REQ_NONE; e = w->reqs.entries[e].next) {
            uint32_t part = w->reqs.entries[e].partition - p->first_partition;
            if (p->txn_pending[part]) {
                p->txn_pending[part] = false;
                p->txn_pending_count--;
            }
            p->txn_added[part] = true;
        }
        p->txn_started = true;
        break;
    case KS_API_END_TXN:
        txn_done(p, w, q);
        break;
    case KS_API_PRODUCE:
    case KS_API_WRITE_TXN_MARKERS:
    case KS_API_FETCH:
    case KS_API_LIST_OFFSETS:
    case KS_API_METADATA:
    case KS_API_OFFSET_COMMIT:
    case KS_API_OFFSET_FETCH:
    case KS_API__COUNT:
        break;
    }
}

void ks_producer_send_offsets(ks_producer *p, ks_world *w, uint32_t consumer,
                              const char *group_id, const char *member_id, const uint32_t *parts,
                              const int64_t *offsets, uint32_t n)
{
    if (!p->txn || w->node_down[ks_node_producer(&w->nodes, p->index)] ||
        p->txn_phase == KS_TXNC_FENCED)
        return;
    if (n > p->txn_offsets_cap) {
        int64_t *o = realloc(p->txn_offsets, n * sizeof *o);
        if (o)
            p->txn_offsets = o;
        uint32_t *pa = realloc(p->txn_offset_parts, n * sizeof *pa);
        if (pa)
            p->txn_offset_parts = pa;
        if (!o || !pa) {
            ks_prod_oom(w);
            return;
        }
        p->txn_offsets_cap = n;
    }
    memcpy(p->txn_offsets, offsets, n * sizeof *p->txn_offsets);
    memcpy(p->txn_offset_parts, parts, n * sizeof *p->txn_offset_parts);
    p->txn_noffsets = n;
    p->txn_offsets_consumer = (int32_t)consumer;
    p->txn_group_id = group_id;
    p->txn_member_id = member_id;
    p->txn_offsets_step = KS_TXN_OFFSETS_ADD;
    /* the records handed over may still wait for the application thread
     * (or for initTransactions): the transaction ends after them */
    p->txn_end_after_backlog = true;
    ks_prod_tm_try_end(p, w);
    ks_prod_sender_wake(p, w, ks_sim_now(&w->sim));
}

void ks_prod_tm_answered(ks_producer *p, ks_world *w, const ks_request *q)
{
    if (p->txn)
        txn_answered(p, w, q);
    else
        got_producer_id(p, w, q);
}

void ks_prod_tm_request_lost(ks_producer *p, ks_time now)
{
    p->pid_pending = false;
    p->pid_retry_at_ns = ks_time_add(now, p->set.retry_backoff_ns);
    p->txn_req_in_flight = false;
    p->txn_retry_at_ns = p->pid_retry_at_ns;
}

bool ks_prod_tm_init(ks_producer *p, ks_world *w, const ks_producer_conf *pc)
{
    p->coordinator = -1;
    p->txn_offsets_consumer = -1;
    p->group_coordinator = -1;
    if (!pc->txn.enabled || p->config_error[0])
        return true;
    p->txn = true;
    p->txn_kip890 = pc->txn.protocol == KS_TXNP_KIP890 ||
                    (pc->txn.protocol == KS_TXNP_DEFAULT && w->sc->kafka_version >= KS_KV(4, 0, 0));
    p->txn_added = calloc(p->max_partitions, sizeof *p->txn_added);
    p->txn_pending = calloc(p->max_partitions, sizeof *p->txn_pending);
    return p->txn_added && p->txn_pending;
}

void ks_prod_tm_free(ks_producer *p)
{
    free(p->txn_added);
    free(p->txn_pending);
    free(p->txn_offsets);
    free(p->txn_offset_parts);
    free(p->txn_ids);
    free(p->txn_parts);
    p->txn_ids = NULL;
    p->txn_parts = NULL;
    p->txn_added = p->txn_pending = NULL;
    p->txn_offsets = NULL;
    p->txn_offset_parts = NULL;
}

void ks_prod_tm_start(ks_producer *p, ks_world *w)
{
    if (p->txn) {
        /* initTransactions(): the application waits until the producer id
         * is there */
        p->txn_phase = KS_TXNC_INITIALIZING;
        p->txn_blocked = true;
        p->producer_id = -1;
        ks_prod_sender_wake(p, w, p->conf->workload.start_ns);
    } else if (p->set.idempotent) {
        ks_prod_tm_need_producer_id(p, w);
    }
}

void ks_prod_tm_before_send(ks_producer *p)
{
    if (!p->txn || p->txn_phase != KS_TXNC_READY)
        return;
    /* beginTransaction(): local only */
    p->txn_phase = KS_TXNC_IN_TXN;
    p->txn_number++;
    p->txn_records = 0;
    p->txn_failed = false;
    p->txn_started = false;
    memset(p->txn_added, 0, p->max_partitions * sizeof *p->txn_added);
}

void ks_prod_tm_batch_expired(ks_producer *p)
{
    if (p->txn)
        p->txn_failed = true; /* the transaction can only abort now */
}

const char *ks_prod_tm_fatal_error(const ks_producer *p)
{
    return p->txn && p->txn_phase == KS_TXNC_FENCED ? p->fatal_exception : NULL;
}

bool ks_prod_tm_ending(const ks_producer *p)
{
    return p->txn_phase == KS_TXNC_ENDING;
}
