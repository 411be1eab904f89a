/*
 * txn_manager.c - the producer's TransactionManager (see txn_manager.h):
 * what moves it. initTransactions() and the producer id, the transaction
 * each send() begins, commitTransaction()/abortTransaction(), the
 * coordinator's requests (FindCoordinator, InitProducerId,
 * AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn) and what
 * their answers do. The state machine itself, with its diagram, the
 * function performing each transition and what holds in each state, is
 * txn_states.c's.
 */
#include "models/producer/txn_manager.h"

#include "models/producer/prod.h"
#include "models/producer/idempotence.h"
#include "models/producer/network_client.h"
#include "models/producer/outcome.h"

#include "models/net/network.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#ifndef NDEBUG
/* What holds in each state, of the producer around the manager. */
static bool assert_tm_invariants(const ks_producer *p)
{
    const ks_txn_manager *tm = &p->tm;
    if (!ks_tm_invariants(tm))
        return false;
    switch (tm->state) {
    case KS_TM_UNINITIALIZED:
    case KS_TM_INITIALIZING:
        return p->producer_id < 0;
    case KS_TM_ABORTING_TRANSACTION:
        return p->producer_id >= 0 && ks_acc_unsent_records(&p->acc) == 0;
    case KS_TM_READY:
    case KS_TM_IN_TRANSACTION:
    case KS_TM_COMMITTING_TRANSACTION:
    case KS_TM_ABORTABLE_ERROR:
        return p->producer_id >= 0;
    case KS_TM_FATAL_ERROR:
    case KS_TM__COUNT:
        break;
    }
    return true;
}
#endif

/* Every state change of a producer goes through here: an illegal one is
 * a ksim bug. */
static void transition(ks_producer *p, ks_tm_state to)
{
    bool ok = ks_tm_set_state(&p->tm, to);
    assert(ok && "illegal TransactionManager transition");
    (void)ok;
    assert(assert_tm_invariants(p));
}

/* ---- InitProducerId for the idempotent producer ----------------------------- */

/* The idempotent producer needs a producer id: InitProducerId without a
 * transactional.id ([K] TransactionManager.bumpIdempotentEpochAndReset
 * IdIfNeeded enqueues it; Sender.maybeSendAndPollTransactionalRequest
 * sends it first). Until the answer comes, nothing is drained. */
static void initialize(ks_producer *p, ks_ctx *cx)
{
    p->producer_id = -1;
    transition(p, KS_TM_INITIALIZING);
    ks_prod_sender_wake(p, cx, ks_sim_now(&cx->sim));
}

void ks_prod_tm_need_producer_id(ks_producer *p, ks_ctx *cx)
{
    if (p->tm.transactional || p->tm.state == KS_TM_INITIALIZING) {
        /* (a transactional producer asks its coordinator instead; ksim
         * leaves it without a producer id) */
        p->producer_id = -1;
        ks_prod_sender_wake(p, cx, ks_sim_now(&cx->sim));
        return;
    }
    p->producer_id = -1;
    transition(p, KS_TM_UNINITIALIZED); /* resetIdempotentProducerId */
    initialize(p, cx);
}

/* InitProducerId answered: a fresh producer id at epoch 0, and every
 * partition's sequence starts over. */
static void got_producer_id(ks_producer *p, ks_ctx *cx, const ks_request *q)
{
    p->tm.in_flight = false;
    p->producer_id = q->producer_id;
    p->epoch = q->epoch;
    ks_prod_seq_new_producer_id(p);
    ks_prod_trace_state(p, cx, "init_producer_id", NULL);
}

/* Sends InitProducerId to `broker`. InitProducerIdRequest: header +
 * client id + null transactional id + timeout + producer id and epoch
 * (-1); the response: header + error + producer id + epoch. */
static void send_init_producer_id(ks_producer *p, ks_ctx *cx, uint32_t broker, ks_time now)
{
    uint32_t id = ks_prod_net_new_request(p, cx, KS_API_INIT_PRODUCER_ID, broker);
    if (id == KS_REQ_NONE)
        return;
    ks_request *q = ks_req(&cx->reqs, id);
    q->request_bytes = 30u + (uint32_t)strlen(p->client_id);
    ks_prod_sender_cost(p, q, now);
    p->tm.in_flight = true;
    ks_time sent;
    ks_prod_net_launch(p, cx, broker, id, now, &sent);
}

/* InitProducerId goes to the least loaded node that can take a request:
 * fewest requests in flight, the lowest broker on ties
 * (NetworkClient.leastLoadedNode starts its search at a random node;
 * ksim at broker 0, so that runs read the same every time). Returns
 * false when no node can take it now; *next then says when to look
 * again (a response wakes the sender earlier). */
bool ks_prod_tm_maybe_init_producer_id(ks_producer *p, ks_ctx *cx, ks_time now, ks_time *next)
{
    if (p->tm.state != KS_TM_INITIALIZING || p->tm.in_flight)
        return false;
    if (now < p->tm.retry_at_ns) {
        *next = p->tm.retry_at_ns;
        return false;
    }
    uint32_t best = ks_prod_net_least_loaded(p, cx, now, next);
    if (best == UINT32_MAX)
        return false;
    send_init_producer_id(p, cx, best, now);
    return true;
}

/* ---- The application's calls --------------------------------------------- */

static void trace_txn_client(ks_producer *p, ks_ctx *cx, const char *what, const char *error)
{
    ks_trace *tr = cx->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_PRODUCER)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_str(tr, "what", what);
        ks_trace_str(tr, "transactional_id", p->conf->config[KS_PCFG_TRANSACTIONAL_ID].s);
        ks_trace_u64(tr, "transaction", p->tm.number);
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
static void abort_undrained(ks_producer *p, ks_ctx *cx)
{
    for (uint32_t bid = ks_acc_take_unsent(&p->acc); bid != KS_NONE;) {
        uint32_t next = ks_acc_batch(&p->acc, bid)->next;
        ks_prod_outcome_batch(p, cx, bid, -1, "TransactionAbortedException");
        bid = next;
    }
}

void ks_prod_tm_before_send(ks_producer *p)
{
    ks_txn_manager *tm = &p->tm;
    if (!tm->transactional || tm->state != KS_TM_READY)
        return;
    /* beginTransaction(): local only */
    tm->number++;
    tm->records = 0;
    tm->started = false;
    memset(tm->added, 0, tm->partitions * sizeof *tm->added);
    transition(p, KS_TM_IN_TRANSACTION);
}

/* An abortable error: the transaction can only abort, and what it has
 * not sent yet fails at once (Sender: abortUndrainedBatches). A later
 * InitProducerId bumps the epoch (epochBumpRequired). */
void ks_prod_tm_abortable(ks_producer *p, ks_ctx *cx)
{
    if (!p->tm.transactional || p->tm.state == KS_TM_FATAL_ERROR)
        return;
    ks_tm_abortable_error(&p->tm);
    assert(assert_tm_invariants(p));
    abort_undrained(p, cx);
}

/* A partition's sequence did not resolve (ks_prod_seq_resolve): the
 * transaction can only abort, with an epoch bump by InitProducerId, and
 * what it has not sent yet fails (Sender.maybeSendAndPollTransactionalRequest:
 * abortUndrainedBatches). */
void ks_prod_tm_unresolved(ks_producer *p, ks_ctx *cx)
{
    if (!p->tm.transactional || p->tm.state == KS_TM_FATAL_ERROR)
        return;
    ks_tm_unresolved_error(&p->tm);
    assert(assert_tm_invariants(p));
    abort_undrained(p, cx);
}

void ks_prod_tm_batch_expired(ks_producer *p)
{
    if (!p->tm.transactional || p->tm.state == KS_TM_FATAL_ERROR)
        return;
    ks_tm_abortable_error(&p->tm); /* the transaction can only abort now */
    assert(assert_tm_invariants(p));
}

/* ProducerFencedException, or another error no handler retries: the
 * producer can do nothing more; what it holds fails. */
static void txn_fatal(ks_producer *p, ks_ctx *cx, ks_kerr err)
{
    ks_txn_manager *tm = &p->tm;
    if (tm->state == KS_TM_FATAL_ERROR)
        return;
    bool fenced = err == KS_KERR_PRODUCER_FENCED || err == KS_KERR_INVALID_PRODUCER_EPOCH;
    const char *exc = fenced ? "ProducerFencedException" : ks_kerr_exception(err);
    tm->fatal_exception = exc;
    tm->blocked = false;
    tm->end_queued = false;
    trace_txn_client(p, cx, fenced ? "fenced" : "fatal", ks_kerr_name(err));
    if (fenced)
        ks_obs_zombie(cx->obs, tm->ids, tm->nids);
    tm->nids = 0;
    transition(p, KS_TM_FATAL_ERROR);
    /* abortIncompleteBatches: queued and in-flight batches alike fail;
     * late answers for the latter are ignored */
    for (uint32_t bid = 0; bid < p->acc.batch_cap; bid++) {
        ks_batch *b = ks_acc_batch(&p->acc, bid);
        if (b->state == KS_BATCH_FREE)
            continue;
        if (b->state == KS_BATCH_QUEUED)
            ks_acc_remove(&p->acc, bid);
        ks_prod_seq_done(p, b);
        ks_prod_outcome_batch(p, cx, bid, -1, exc);
    }
    p->app_thread->unblock(p, cx);
    p->app_thread->resume(p, cx);
}

/* commitTransaction() or abortTransaction(): the application waits. An
 * abort fails the batches not yet sent (TransactionAbortedException); a
 * commit flushes them. EndTxn goes once nothing of the transaction is
 * left in flight. "none": the application never ends it. A transaction
 * with an abortable error can only abort. */
static void begin_end(ks_producer *p, ks_ctx *cx)
{
    ks_txn_manager *tm = &p->tm;
    if (!ks_tm_open(tm))
        return;
    const ks_txn_conf *tc = &p->conf->txn;
    ks_txn_end how = tc->ends[(tm->number - 1) % tc->end_count];
    bool failed = tm->state == KS_TM_ABORTABLE_ERROR;
    if (how == KS_TXN_END_NONE && !failed) {
        trace_txn_client(p, cx, "hangs", NULL);
        return; /* the application hangs: transaction.timeout.ms will tell */
    }
    bool commit = how == KS_TXN_END_COMMIT && !failed;
    trace_txn_client(p, cx, commit ? "commit" : "abort", NULL);
    tm->end_queued = true;
    if (commit) {
        transition(p, KS_TM_COMMITTING_TRANSACTION);
    } else {
        /* beginAbort: partitions not yet added are forgotten */
        memset(tm->pending, 0, tm->partitions * sizeof *tm->pending);
        tm->pending_count = 0;
        abort_undrained(p, cx);
        transition(p, KS_TM_ABORTING_TRANSACTION);
        p->app_thread->unblock(p, cx);
    }
    ks_prod_sender_wake(p, cx, ks_sim_now(&cx->sim));
}

/* The record just sent joins the transaction's list, for the observer;
 * false when out of memory. */
static bool remember_record(ks_producer *p, ks_ctx *cx, uint32_t part)
{
    ks_txn_manager *tm = &p->tm;
    if (tm->nids == tm->ids_cap) {
        uint32_t cap = tm->ids_cap ? tm->ids_cap * 2u : 16u;
        uint64_t *ids = realloc(tm->ids, cap * sizeof *ids);
        if (ids)
            tm->ids = ids;
        uint32_t *parts = realloc(tm->parts, cap * sizeof *parts);
        if (parts)
            tm->parts = parts;
        if (!ids || !parts) {
            ks_prod_oom(cx);
            return false;
        }
        tm->ids_cap = cap;
    }
    tm->parts[tm->nids] = p->first_partition + part;
    tm->ids[tm->nids++] = *cx->next_record_id - 1; /* the record just sent */
    return true;
}

/* After a send() in a transaction: its partition must be added to the
 * transaction before its batches may go (classic protocol), and the
 * application ends the transaction after transactions.records records. */
void ks_prod_tm_after_send(ks_producer *p, ks_ctx *cx)
{
    ks_txn_manager *tm = &p->tm;
    if (!ks_tm_open(tm))
        return;
    uint32_t part = p->last_partition;
    if (part == UINT32_MAX) {
        /* send() threw: doSend puts the transaction in an abortable state */
        ks_prod_tm_abortable(p, cx);
        return;
    }
    if (!tm->added[part] && !tm->pending[part]) {
        tm->pending[part] = true; /* maybeAddPartition */
        tm->pending_count++;
    }
    tm->records++;
    if (!remember_record(p, cx, part))
        return;
    if (tm->offsets_consumer >= 0 || tm->records < p->conf->txn.records)
        return;
    if (tm->app_ends)
        return; /* its application ends it, with the offsets of what it read */
    tm->blocked = true;
    if (p->conf->txn.end_delay_ns > 0) {
        ks_event ev = {.kind = KS_EV_TIMER, .owner = p->node, .tag = KS_TIMER_TXN_END};
        ks_sim_after(&cx->sim, p->conf->txn.end_delay_ns, &ev);
    } else {
        begin_end(p, cx);
    }
}

void ks_producer_on_txn_end(ks_producer *p, ks_ctx *cx)
{
    begin_end(p, cx);
}

/* sendOffsetsToTransaction then commitTransaction, once every record
 * handed over for this transaction has been sent. */
void ks_prod_tm_try_end(ks_producer *p, ks_ctx *cx)
{
    ks_txn_manager *tm = &p->tm;
    if (!tm->end_after_backlog || p->backlog > 0 || p->blocked || tm->blocked || !ks_tm_open(tm))
        return;
    tm->end_after_backlog = false;
    tm->blocked = true;
    begin_end(p, cx);
}

void ks_prod_tm_produce_sent(ks_producer *p)
{
    if (p->tm.transactional && p->tm.kip890)
        p->tm.started = true; /* its first produce adds the partition */
}

/* The transaction is over (EndTxn answered, or nothing to end): the
 * application goes on, after InitProducerId when the epoch must be
 * bumped ([K] TransactionManager.completeTransaction). */
static void txn_done(ks_producer *p, ks_ctx *cx, const ks_request *q)
{
    ks_txn_manager *tm = &p->tm;
    assert(ks_tm_completing(tm));
    bool commit = tm->state == KS_TM_COMMITTING_TRANSACTION;
    int32_t consumer = tm->offsets_consumer;
    if (commit) {
        tm->committed++;
        ks_time decided = q && q->decided_ns > 0 ? q->decided_ns : ks_sim_now(&cx->sim);
        ks_obs_txn_committed(cx->obs, p->index, tm->number, decided, tm->ids, tm->parts,
                             tm->nids);
    } else {
        tm->aborted++;
        ks_obs_aborted(cx->obs, tm->ids, tm->nids);
    }
    tm->nids = 0;
    if (tm->kip890 && q && q->epoch >= 0 && q->epoch != p->epoch) {
        /* KIP-890: every commit or abort bumps the epoch; the sequences
         * start over under it */
        p->epoch = q->epoch;
    }
    tm->offsets_consumer = -1;
    tm->offsets_step = KS_TXN_OFFSETS_NONE;
    trace_txn_client(p, cx, commit ? "committed" : "aborted", NULL);
    memset(tm->added, 0, tm->partitions * sizeof *tm->added);
    /* epochBumpRequired: InitProducerId again, for a new epoch, before the
     * next transaction ([K] beginCompletingTransaction, KIP-360) */
    bool bump = tm->epoch_bump_required && !tm->kip890 && tm->started;
    tm->epoch_bump_required = false;
    tm->end_queued = false;
    tm->blocked = bump;
    if (bump) {
        p->producer_id = -1;
        transition(p, KS_TM_INITIALIZING);
        ks_prod_sender_wake(p, cx, ks_sim_now(&cx->sim));
    } else {
        transition(p, KS_TM_READY);
    }
    if (consumer >= 0) {
        if (commit)
            p->app.txn_ended(p->app.app, cx, true);
        else
            p->app.txn_ended(p->app.app, cx, false);
    }
    p->app_thread->resume(p, cx);
}

/* ---- Requests ---------------------------------------------------------------- */

/* The body of transactional request `id` beyond its header: the
 * coordinator's key, the group, the offsets (TxnOffsetCommit) or the
 * partitions (AddPartitionsToTxn) as entries. False when out of memory. */
static bool fill_txn_request(ks_producer *p, ks_ctx *cx, uint32_t id)
{
    const ks_txn_manager *tm = &p->tm;
    ks_request *q = ks_req(&cx->reqs, id);
    ks_api api = q->api;
    if (api == KS_API_FIND_COORDINATOR) {
        /* the transaction's coordinator first, then the group's */
        q->key_type = (uint8_t)(tm->coordinator < 0 ? KS_COORD_TRANSACTION : KS_COORD_GROUP);
        q->group_id = tm->group_id;
    }
    if (api == KS_API_ADD_OFFSETS_TO_TXN || api == KS_API_TXN_OFFSET_COMMIT) {
        q->group_id = tm->group_id;
        q->member_id = tm->member_id;
        q->request_bytes += (uint32_t)strlen(tm->group_id);
    }
    uint32_t last = KS_REQ_NONE;
    for (uint32_t k = 0; api == KS_API_TXN_OFFSET_COMMIT && k < tm->noffsets; k++) {
        /* the consumer's positions, committed with the transaction */
        uint32_t e = ks_request_add_batch(&cx->reqs, id, &last);
        if (e == KS_REQ_NONE)
            goto oom;
        ks_req_entry(&cx->reqs, e)->partition = tm->offset_parts[k];
        ks_req_entry(&cx->reqs, e)->base_offset = tm->offsets[k];
        ks_req(&cx->reqs, id)->request_bytes += 16u;
    }
    for (uint32_t part = 0; api == KS_API_ADD_PARTITIONS_TO_TXN && part < p->partitions; part++) {
        if (!tm->pending[part])
            continue;
        uint32_t e = ks_request_add_batch(&cx->reqs, id, &last);
        if (e == KS_REQ_NONE)
            goto oom;
        ks_req_entry(&cx->reqs, e)->partition = p->first_partition + part;
        ks_req(&cx->reqs, id)->request_bytes += 8u;
    }
    return true;
oom:
    ks_prod_oom(cx);
    return false;
}

/* A transactional request of `api` to `broker`. */
static void send_txn_request(ks_producer *p, ks_ctx *cx, uint32_t broker, ks_api api,
                             ks_time now)
{
    uint32_t id = ks_prod_net_new_request(p, cx, api, broker);
    if (id == KS_REQ_NONE)
        return;
    ks_request *q = ks_req(&cx->reqs, id);
    q->producer_id = p->producer_id;
    q->epoch = p->epoch;
    q->commit = p->tm.state == KS_TM_COMMITTING_TRANSACTION; /* EndTxn */
    const char *tid = p->conf->config[KS_PCFG_TRANSACTIONAL_ID].s;
    q->request_bytes = 30u + (uint32_t)strlen(p->client_id) + (uint32_t)strlen(tid);
    if (!fill_txn_request(p, cx, id))
        return;
    q = ks_req(&cx->reqs, id);
    ks_prod_sender_cost(p, q, now);
    p->tm.in_flight = true;
    ks_time sent;
    ks_prod_net_launch(p, cx, broker, id, now, &sent);
}

/* The transactional request due, in Kafka's priority order
 * (TransactionManager.Priority): FindCoordinator, InitProducerId,
 * AddPartitionsToTxn for partitions with records (classic protocol),
 * AddOffsetsToTxn, FindCoordinator of the group, TxnOffsetCommit, then
 * EndTxn once nothing of the transaction is left. False: none. */
static bool next_request(const ks_producer *p, ks_api *api)
{
    const ks_txn_manager *tm = &p->tm;
    if (tm->coordinator < 0)
        *api = KS_API_FIND_COORDINATOR;
    else if (tm->state == KS_TM_INITIALIZING)
        *api = KS_API_INIT_PRODUCER_ID;
    else if (!tm->kip890 && tm->pending_count > 0)
        *api = KS_API_ADD_PARTITIONS_TO_TXN;
    else if (tm->offsets_step == KS_TXN_OFFSETS_ADD)
        *api = KS_API_ADD_OFFSETS_TO_TXN;
    else if (tm->offsets_step == KS_TXN_OFFSETS_COMMIT && tm->group_coordinator < 0)
        *api = KS_API_FIND_COORDINATOR; /* of the group */
    else if (tm->offsets_step == KS_TXN_OFFSETS_COMMIT)
        *api = KS_API_TXN_OFFSET_COMMIT;
    else if (tm->end_queued && p->acc.batches_live == 0)
        *api = KS_API_END_TXN;
    else
        return false;
    return true;
}

/* Sends the transactional request due, if any, one at a time
 * (Sender.maybeSendAndPollTransactionalRequest). */
void ks_prod_tm_send_due(ks_producer *p, ks_ctx *cx, ks_time now, ks_time *next)
{
    ks_txn_manager *tm = &p->tm;
    if (tm->in_flight || tm->state == KS_TM_FATAL_ERROR)
        return;
    if (now < tm->retry_at_ns) {
        if (tm->retry_at_ns < *next)
            *next = tm->retry_at_ns;
        return;
    }
    ks_api api;
    if (!next_request(p, &api))
        return;
    if (api == KS_API_END_TXN && tm->state == KS_TM_ABORTABLE_ERROR) {
        /* a batch failed while committing: commitTransaction fails on the
         * abortable error, and the application aborts instead */
        trace_txn_client(p, cx, "abort", "a batch of the transaction failed");
        transition(p, KS_TM_ABORTING_TRANSACTION);
    }
    if (api == KS_API_END_TXN && !tm->started) {
        txn_done(p, cx, NULL); /* the coordinator never heard of it: nothing to end */
        return;
    }
    uint32_t broker = (uint32_t)(api == KS_API_TXN_OFFSET_COMMIT ? tm->group_coordinator
                                                                 : tm->coordinator);
    const ks_prod_node *n = api != KS_API_FIND_COORDINATOR ? &p->nodes[broker] : NULL;
    if (api == KS_API_FIND_COORDINATOR) {
        broker = ks_prod_net_least_loaded(p, cx, now, next);
        if (broker == UINT32_MAX)
            return;
    } else if (n->in_flight >= p->max_in_flight || n->ready_at_ns > now ||
               ks_net_wire_free(cx->net, n->conn, KS_NET_REQUEST) > now) {
        ks_time when = n->ready_at_ns > now ? n->ready_at_ns
                                            : ks_net_wire_free(cx->net, n->conn, KS_NET_REQUEST);
        if (when > now && when < *next)
            *next = when;
        return;
    }
    send_txn_request(p, cx, broker, api, now);
}

/* ---- Answers -------------------------------------------------------------------- */

/* TxnOffsetCommit answered: the offsets wait at the group coordinator for
 * the transaction's end. A partition refused because the coordinator
 * moved is sent again to the new one ([K] TxnOffsetCommitHandler). */
static void txn_offsets_committed(ks_producer *p, ks_ctx *cx, const ks_request *q)
{
    ks_kerr err = KS_KERR_NONE;
    for (uint32_t e = q->first; e != KS_REQ_NONE && err == KS_KERR_NONE;
         e = ks_req_entry(&cx->reqs, e)->next)
        err = ks_req_entry(&cx->reqs, e)->error;
    if (err == KS_KERR_NONE) {
        p->tm.offsets_step = KS_TXN_OFFSETS_DONE;
        return;
    }
    trace_txn_client(p, cx, ks_api_name(q->api), ks_kerr_name(err));
    if (err == KS_KERR_NOT_COORDINATOR || err == KS_KERR_COORDINATOR_NOT_AVAILABLE)
        p->tm.group_coordinator = -1;
    if (ks_kerr_retriable(err))
        p->tm.retry_at_ns = ks_time_add(ks_sim_now(&cx->sim), p->set.retry_backoff_ns);
    else
        txn_fatal(p, cx, err);
}

/* A transactional request's error, if any (true: handled). Retriable
 * errors go again after retry.backoff.ms (AddPartitionsToTxn's
 * CONCURRENT_TRANSACTIONS after 20 ms, ADD_PARTITIONS_RETRY_BACKOFF_MS);
 * a fenced producer is done. */
static bool txn_error(ks_producer *p, ks_ctx *cx, const ks_request *q)
{
    ks_time now = ks_sim_now(&cx->sim);
    if (q->error == KS_KERR_PRODUCER_FENCED || q->error == KS_KERR_INVALID_PRODUCER_EPOCH) {
        txn_fatal(p, cx, q->error);
        return true;
    }
    if (q->error == KS_KERR_INVALID_PRODUCER_ID_MAPPING && q->api == KS_API_ADD_PARTITIONS_TO_TXN) {
        ks_prod_tm_abortable(p, cx); /* abortableErrorIfPossible */
        trace_txn_client(p, cx, ks_api_name(q->api), ks_kerr_name(q->error));
        return true;
    }
    if (q->error != KS_KERR_NONE && !ks_kerr_retriable(q->error)) {
        /* the handlers treat the rest as fatal (INVALID_TXN_STATE,
         * INVALID_TRANSACTION_TIMEOUT, unknown errors) */
        txn_fatal(p, cx, q->error);
        return true;
    }
    if (q->error != KS_KERR_NONE) {
        ks_time backoff = q->api == KS_API_ADD_PARTITIONS_TO_TXN &&
                                  q->error == KS_KERR_CONCURRENT_TRANSACTIONS
                              ? 20 * KS_NS_PER_MS
                              : p->set.retry_backoff_ns;
        p->tm.retry_at_ns = ks_time_add(now, backoff);
        trace_txn_client(p, cx, ks_api_name(q->api), ks_kerr_name(q->error));
        return true;
    }
    return false;
}

/* AddPartitionsToTxn answered: its partitions are in the transaction. */
static void partitions_added(ks_producer *p, ks_ctx *cx, const ks_request *q)
{
    ks_txn_manager *tm = &p->tm;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        uint32_t part = ks_req_entry(&cx->reqs, e)->partition - p->first_partition;
        if (tm->pending[part]) {
            tm->pending[part] = false;
            tm->pending_count--;
        }
        tm->added[part] = true;
    }
    tm->started = true;
}

/* FindCoordinator answered: the transaction's coordinator, or the
 * group's. */
static void coordinator_found(ks_producer *p, ks_ctx *cx, const ks_request *q)
{
    (void)cx;
    if (q->key_type == KS_COORD_GROUP)
        p->tm.group_coordinator = (int32_t)q->node;
    else
        p->tm.coordinator = (int32_t)q->node;
}

/* AddOffsetsToTxn answered: the group joins the transaction; then
 * TxnOffsetCommit. */
static void offsets_added(ks_producer *p, ks_ctx *cx, const ks_request *q)
{
    (void)cx;
    (void)q;
    p->tm.offsets_step = KS_TXN_OFFSETS_COMMIT;
    p->tm.started = true;
}

/* InitProducerId answered for a transactional producer: initTransactions
 * (or the epoch bump after an abort) returns. */
static void txn_producer_id(ks_producer *p, ks_ctx *cx, const ks_request *q)
{
    got_producer_id(p, cx, q);
    p->tm.blocked = false;
    transition(p, KS_TM_READY);
    p->app_thread->resume(p, cx);
}

typedef void txn_handler(ks_producer *p, ks_ctx *cx, const ks_request *q);

/* The TransactionManager's handler of each of its requests' answers
 * ([K] its TxnRequestHandler subclasses). NULL: not one of its requests,
 * which the producer's response dispatch never hands it. */
static txn_handler *const txn_handlers[KS_API__COUNT] = {
    [KS_API_FIND_COORDINATOR] = coordinator_found,
    [KS_API_INIT_PRODUCER_ID] = txn_producer_id,
    [KS_API_ADD_PARTITIONS_TO_TXN] = partitions_added,
    [KS_API_ADD_OFFSETS_TO_TXN] = offsets_added,
    [KS_API_TXN_OFFSET_COMMIT] = txn_offsets_committed,
    [KS_API_END_TXN] = txn_done,
};

/* A transactional request's answer. */
static void txn_answered(ks_producer *p, ks_ctx *cx, const ks_request *q)
{
    p->tm.in_flight = false;
    if (txn_error(p, cx, q))
        return;
    txn_handler *h = (unsigned)q->api < (unsigned)KS_API__COUNT ? txn_handlers[q->api] : NULL;
    assert(h && "not a TransactionManager request");
    if (!h) {
        ks_sim_stop(&cx->sim, KS_SIM_INTERNAL_ERROR);
        return;
    }
    h(p, cx, q);
}

void ks_prod_tm_answered(ks_producer *p, ks_ctx *cx, const ks_request *q)
{
    if (p->tm.transactional) {
        txn_answered(p, cx, q);
        return;
    }
    got_producer_id(p, cx, q);
    transition(p, KS_TM_READY);
}

void ks_prod_tm_request_lost(ks_producer *p, ks_time now)
{
    p->tm.in_flight = false;
    p->tm.retry_at_ns = ks_time_add(now, p->set.retry_backoff_ns);
}

void ks_producer_send_offsets(ks_producer *p, ks_ctx *cx, uint32_t consumer,
                              const char *group_id, const char *member_id, const uint32_t *parts,
                              const int64_t *offsets, uint32_t n)
{
    ks_txn_manager *tm = &p->tm;
    if (!tm->transactional || p->down ||
        tm->state == KS_TM_FATAL_ERROR)
        return;
    if (n > tm->offsets_cap) {
        int64_t *o = realloc(tm->offsets, n * sizeof *o);
        if (o)
            tm->offsets = o;
        uint32_t *pa = realloc(tm->offset_parts, n * sizeof *pa);
        if (pa)
            tm->offset_parts = pa;
        if (!o || !pa) {
            ks_prod_oom(cx);
            return;
        }
        tm->offsets_cap = n;
    }
    memcpy(tm->offsets, offsets, n * sizeof *tm->offsets);
    memcpy(tm->offset_parts, parts, n * sizeof *tm->offset_parts);
    tm->noffsets = n;
    tm->offsets_consumer = (int32_t)consumer;
    tm->group_id = group_id;
    tm->member_id = member_id;
    tm->offsets_step = KS_TXN_OFFSETS_ADD;
    /* the records handed over may still wait for the application thread
     * (or for initTransactions): the transaction ends after them */
    tm->end_after_backlog = true;
    ks_prod_tm_try_end(p, cx);
    ks_prod_sender_wake(p, cx, ks_sim_now(&cx->sim));
}

const char *ks_prod_tm_fatal_error(const ks_producer *p)
{
    return p->tm.state == KS_TM_FATAL_ERROR ? p->tm.fatal_exception : NULL;
}

/* ---- Life ---------------------------------------------------------------------- */

bool ks_prod_tm_init(ks_producer *p, ks_ctx *cx, const ks_producer_conf *pc)
{
    ks_txn_manager *tm = &p->tm;
    memset(tm, 0, sizeof *tm);
    tm->state = KS_TM_UNINITIALIZED;
    tm->coordinator = -1;
    tm->group_coordinator = -1;
    tm->offsets_consumer = -1;
    if (!pc->txn.enabled || p->config_error[0])
        return true;
    tm->transactional = true;
    tm->kip890 = pc->txn.protocol == KS_TXNP_KIP890 ||
                 (pc->txn.protocol == KS_TXNP_DEFAULT && cx->sc->kafka_version >= KS_KV(4, 0, 0));
    tm->partitions = p->max_partitions;
    tm->added = calloc(tm->partitions, sizeof *tm->added);
    tm->pending = calloc(tm->partitions, sizeof *tm->pending);
    return tm->added && tm->pending;
}

void ks_prod_tm_free(ks_producer *p)
{
    ks_txn_manager *tm = &p->tm;
    free(tm->added);
    free(tm->pending);
    free(tm->offsets);
    free(tm->offset_parts);
    free(tm->ids);
    free(tm->parts);
    tm->added = tm->pending = NULL;
    tm->offsets = NULL;
    tm->offset_parts = NULL;
    tm->ids = NULL;
    tm->parts = NULL;
}

void ks_prod_tm_start(ks_producer *p, ks_ctx *cx)
{
    if (p->tm.transactional) {
        /* initTransactions(): the application waits until the producer id
         * is there */
        p->tm.blocked = true;
        p->producer_id = -1;
        transition(p, KS_TM_INITIALIZING);
        ks_prod_sender_wake(p, cx, p->conf->workload.start_ns);
    } else if (p->set.idempotent) {
        initialize(p, cx);
    }
}
