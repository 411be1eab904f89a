/*
 * coordinator.c - transaction coordinators (see coordinator.h).
 *
 * One request's life at the coordinator: its handler asks txn_state.c
 * for the decision; an answer without a log write goes back at once; a
 * decision with a write is marked pending, and KS_COORD_WRITTEN, after
 * brokers.cost.txn.log.write.ms, applies it and answers. A Prepare* state
 * written sends the markers; the last marker answer writes Complete*.
 */
#include "models/broker/coordinator.h"

#include "models/trace_kinds.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void ks_coord_init(ks_coordinators *c, const ks_scenario *sc, ks_bio *io, const ks_meta *meta)
{
    memset(c, 0, sizeof *c);
    c->io = io;
    c->meta = meta;
    c->scan = KS_HANDLE_NONE;
    c->scan_interval_ns = sc->broker_config[KS_BCFG_TXN_ABORT_INTERVAL_MS].i * KS_NS_PER_MS;
    c->max_timeout_ns = sc->broker_config[KS_BCFG_TXN_MAX_TIMEOUT_MS].i * KS_NS_PER_MS;
    c->first_producer_id = sc->first_producer_id;
    c->block = io->broker;
    c->next_producer_id = sc->first_producer_id + (int64_t)c->block * KS_PRODUCER_ID_BLOCK;
    c->block_end = c->next_producer_id + KS_PRODUCER_ID_BLOCK;
}

/* A new producer id from the broker's block; a used-up block is followed
 * by the broker's next one (each broker's blocks interleave: block b,
 * b + brokers, ...). */
static int64_t new_producer_id(ks_coordinators *c)
{
    if (c->next_producer_id == c->block_end) {
        c->block += c->meta->brokers;
        c->next_producer_id = c->first_producer_id + (int64_t)c->block * KS_PRODUCER_ID_BLOCK;
        c->block_end = c->next_producer_id + KS_PRODUCER_ID_BLOCK;
    }
    return c->next_producer_id++;
}

void ks_coord_free(ks_coordinators *c)
{
    free(c->scratch);
    c->scratch = NULL;
    for (uint32_t i = 0; i < c->count; i++) {
        ks_txn_meta_free(&c->txns[i].meta);
        free(c->txns[i].add);
    }
    free(c->txns);
    c->txns = NULL;
    c->count = c->cap = 0;
}

/* Does this broker coordinate the request's transactional.id (by its
 * image of the cluster)? */
static bool coordinates(const ks_coordinators *c, const ks_request *q)
{
    return ks_meta_txn_coordinator(c->meta, q->transactional_id) == c->io->broker;
}

/* The metadata of the transactional.id a request names, created on first
 * use with the transaction timeout the request carries. Returns
 * UINT32_MAX when out of memory. */
static uint32_t find_txn(ks_coordinators *c, const ks_request *q)
{
    const char *id = q->transactional_id;
    for (uint32_t i = 0; i < c->count; i++)
        if (strcmp(c->txns[i].meta.transactional_id, id) == 0)
            return i;
    if (c->count == c->cap) {
        uint32_t cap = c->cap ? c->cap * 2u : 4u;
        ks_coord_txn *t = realloc(c->txns, cap * sizeof *t);
        if (!t)
            return UINT32_MAX;
        c->txns = t;
        c->cap = cap;
    }
    ks_coord_txn *t = &c->txns[c->count];
    memset(t, 0, sizeof *t);
    if (!ks_txn_meta_init(&t->meta, id, q->txn_timeout_ns))
        return UINT32_MAX;
    t->broker = c->io->broker;
    /* the client's transaction version: TV2 clients send Produce v12 and
     * EndTxn v5 ([K] KafkaApis.handleEndTxnRequest: version > 4 is TV_2) */
    t->kip890 = ks_request_tv2(q);
    t->waiting_req = KS_REQ_NONE;
    return c->count++;
}

static void trace_txn(ks_ctx *cx, const ks_coord_txn *t, ks_txn_state from, const char *why)
{
    ks_trace *tr = cx->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_TXN))
        return;
    ks_trace_str(tr, "transactional_id", t->meta.transactional_id);
    ks_trace_u64(tr, "coordinator", t->broker);
    ks_trace_str(tr, "from", ks_txn_state_name(from));
    ks_trace_str(tr, "state", ks_txn_state_name(t->meta.state));
    ks_trace_i64(tr, "producer_id", t->meta.producer_id);
    ks_trace_i64(tr, "epoch", t->meta.epoch);
    ks_trace_u64(tr, "partitions", t->meta.npartitions);
    ks_trace_str(tr, "why", why);
    ks_trace_end(tr);
}

#ifndef NDEBUG
/* What holds of a transaction at its coordinator, beside its state's own
 * invariants: one log write at a time, with the decision it writes and
 * the request it answers; markers outstanding only while a Prepare*
 * state is written and its completion is not yet. Asserted after every
 * step that moves a transaction. */
static void assert_coord_invariants(const ks_coordinators *c, const ks_ctx *cx, uint32_t txn)
{
    const ks_coord_txn *t = &c->txns[txn];
    if (*cx->out_of_memory)
        return;
    assert(ks_txn_invariants_hold(&t->meta));
    assert(!t->meta.pending || (t->pending.write && t->pending.write_state == t->meta.pending_state));
    assert(t->waiting_req == KS_REQ_NONE || t->meta.pending);
    assert(t->markers_pending == 0 || t->meta.state == KS_TXN_PREPARE_COMMIT ||
           t->meta.state == KS_TXN_PREPARE_ABORT);
    assert(t->markers_pending == 0 || !t->meta.pending);
    assert(t->markers_pending <= t->meta.npartitions);
    assert(t->meta.npartitions > 0 || (t->meta.state != KS_TXN_ONGOING &&
                                       t->meta.state != KS_TXN_PREPARE_COMMIT &&
                                       t->meta.state != KS_TXN_PREPARE_EPOCH_FENCE));
}
#else
#define assert_coord_invariants(c, cx, txn) ((void)0)
#endif

static void schedule(ks_coordinators *c, ks_ctx *cx, uint32_t tag, uint64_t arg, ks_time at)
{
    ks_event ev = {.kind = KS_EV_TXN, .owner = c->io->broker, .tag = tag, .arg = arg};
    ks_sim_schedule(&cx->sim, at, &ev);
}

/* Starts the write of decision d to __transaction_state; `req` (or
 * KS_REQ_NONE) is answered when it is done. */
static void start_write(ks_coordinators *c, ks_ctx *cx, uint32_t txn, const ks_txn_decision *d,
                        uint32_t req)
{
    ks_coord_txn *t = &c->txns[txn];
    bool ok = ks_txn_set_pending(&t->meta, d->write_state);
    assert(ok);
    (void)ok;
    t->pending = *d;
    t->waiting_req = req;
    ks_time cost = c->io->cost->txn_log_write_ns;
    schedule(c, cx, KS_COORD_WRITTEN, txn, ks_time_add(ks_sim_now(&cx->sim), cost));
    assert_coord_invariants(c, cx, txn);
}

/* The timeout scan runs every transaction.abort.timed.out.transaction.
 * cleanup.interval.ms ([K] TransactionCoordinator.startup schedules
 * abortTimedOutTransactions); ksim schedules only the scan that will
 * find something: the first one after the earliest deadline of an
 * Ongoing transaction, and cancels it when none is left, so that scans
 * neither keep a run alive nor leave it early. */
static void arm_scan(ks_coordinators *c, ks_ctx *cx)
{
    ks_time deadline = KS_TIME_MAX;
    for (uint32_t i = 0; i < c->count; i++) {
        const ks_txn_meta *m = &c->txns[i].meta;
        if (m->state == KS_TXN_ONGOING && m->txn_start_ns >= 0) {
            ks_time d = ks_time_add(m->txn_start_ns, m->timeout_ns);
            if (d < deadline)
                deadline = d;
        }
    }
    ks_time at = KS_TIME_MAX;
    if (deadline != KS_TIME_MAX && c->scan_interval_ns > 0) {
        /* Kafka aborts when start + timeout < now: the first scan after */
        ks_time from = deadline > ks_sim_now(&cx->sim) ? deadline : ks_sim_now(&cx->sim);
        at = (from / c->scan_interval_ns + 1) * c->scan_interval_ns; /* the next tick after */
    }
    if (c->scan != KS_HANDLE_NONE && c->scan_at == at)
        return;
    if (c->scan != KS_HANDLE_NONE)
        ks_sim_cancel(&cx->sim, c->scan);
    c->scan = KS_HANDLE_NONE;
    if (at == KS_TIME_MAX)
        return;
    ks_event ev = {.kind = KS_EV_TXN, .owner = c->io->broker, .tag = KS_COORD_SCAN};
    c->scan = ks_sim_schedule(&cx->sim, at, &ev);
    c->scan_at = at;
}

static bool answer(ks_request *q, ks_kerr err)
{
    q->error = err;
    return true;
}

static bool init_producer_id(ks_coordinators *c, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    if (!q->transactional_id) {
        /* the idempotent producer: a fresh id from the broker's block
         * ([K] ProducerIdManager) */
        q->producer_id = new_producer_id(c);
        q->epoch = 0;
        return answer(q, KS_KERR_NONE);
    }
    if (!coordinates(c, q))
        return answer(q, KS_KERR_NOT_COORDINATOR);
    uint32_t txn = find_txn(c, q);
    if (txn == UINT32_MAX)
        return answer(q, KS_KERR_UNKNOWN_SERVER_ERROR);
    ks_coord_txn *t = &c->txns[txn];
    ks_time timeout = q->txn_timeout_ns;
    if (timeout > c->max_timeout_ns)
        return answer(q, KS_KERR_INVALID_TRANSACTION_TIMEOUT); /* [K] handleInitProducerId */
    ks_txn_decision d = ks_txn_init_producer_id(&t->meta);
    if (!t->meta.pending && t->meta.state != KS_TXN_ONGOING)
        t->meta.timeout_ns = timeout; /* each InitProducerId sets it */
    if (d.abort_ongoing) {
        /* fence the Ongoing transaction, then abort it ourselves; the new
         * instance retries (CONCURRENT_TRANSACTIONS) */
        ks_txn_state from = t->meta.state;
        ks_txn_decision f = ks_txn_fence(&t->meta);
        bool ok = ks_txn_apply(&t->meta, &f, -1, ks_sim_now(&cx->sim));
        assert(ok);
        (void)ok;
        trace_txn(cx, t, from, "fenced by InitProducerId");
        ks_txn_decision a = ks_txn_end_txn(&t->meta, t->meta.producer_id, t->meta.epoch, false,
                                           t->kip890);
        if (a.write)
            start_write(c, cx, txn, &a, KS_REQ_NONE);
        return answer(q, d.error);
    }
    if (!d.write)
        return answer(q, d.error);
    start_write(c, cx, txn, &d, id);
    return false;
}

/* Starts the write that adds partitions parts[0..n) (AddPartitionsToTxn,
 * AddOffsetsToTxn) to the request's transaction, or answers at once. */
static bool add_to_txn(ks_coordinators *c, ks_ctx *cx, uint32_t id, uint32_t txn,
                       const uint32_t *parts, uint32_t n)
{
    ks_request *q = ks_req(&cx->reqs, id);
    ks_coord_txn *t = &c->txns[txn];
    ks_txn_decision d = ks_txn_add_partitions(&t->meta, q->producer_id, q->epoch, parts, n);
    if (!d.write)
        return answer(q, d.error);
    /* only a request that starts a write sets what the write adds */
    if (n > t->add_cap) {
        uint32_t *a = realloc(t->add, n * sizeof *a);
        if (!a)
            return answer(q, KS_KERR_UNKNOWN_SERVER_ERROR);
        t->add = a;
        t->add_cap = n;
    }
    memcpy(t->add, parts, n * sizeof *t->add);
    t->nadd = n;
    start_write(c, cx, txn, &d, id);
    return false;
}

static bool add_partitions(ks_coordinators *cs, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    if (!coordinates(cs, q))
        return answer(q, KS_KERR_NOT_COORDINATOR);
    uint32_t txn = find_txn(cs, q);
    if (txn == UINT32_MAX)
        return answer(q, KS_KERR_UNKNOWN_SERVER_ERROR);
    uint32_t n = 0;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        if (n == cs->scratch_cap) {
            uint32_t cap = cs->scratch_cap ? cs->scratch_cap * 2u : 8u;
            uint32_t *a = realloc(cs->scratch, cap * sizeof *a);
            if (!a)
                return answer(q, KS_KERR_UNKNOWN_SERVER_ERROR);
            cs->scratch = a;
            cs->scratch_cap = cap;
        }
        cs->scratch[n++] = ks_req_entry(&cx->reqs, e)->partition;
    }
    return add_to_txn(cs, cx, id, txn, cs->scratch, n);
}

/* AddOffsetsToTxn: the group's __consumer_offsets partition joins the
 * transaction, so that its marker reaches the group coordinator ([K]
 * TransactionCoordinator: handleAddPartitionsToTransaction with the
 * offsets topic partition of the group). */
static bool add_offsets(ks_coordinators *c, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    if (!coordinates(c, q))
        return answer(q, KS_KERR_NOT_COORDINATOR);
    uint32_t txn = find_txn(c, q);
    if (txn == UINT32_MAX)
        return answer(q, KS_KERR_UNKNOWN_SERVER_ERROR);
    uint32_t part = KS_GROUP_PARTITION(ks_meta_offsets_partition(c->meta, q->group_id));
    return add_to_txn(c, cx, id, txn, &part, 1);
}

/* The metadata of a transactional.id, or NULL when the coordinator has
 * none. */
const ks_coord_txn *ks_coord_lookup(const ks_coordinators *c, const char *id)
{
    for (uint32_t i = 0; id && i < c->count; i++)
        if (strcmp(c->txns[i].meta.transactional_id, id) == 0)
            return &c->txns[i];
    return NULL;
}

/* AddPartitionsToTxn v4 with verifyOnly, from a partition leader: is
 * each partition in the ongoing transaction of (producer id, epoch)?
 * Answered at once, without a write ([K] TransactionCoordinator.
 * handleVerifyPartitionsInTransaction). */
/* A leader adds a partition for a client of transaction version 2. */
static void mark_tv2(ks_coordinators *c, const ks_request *q)
{
    uint32_t txn = find_txn(c, q);
    if (txn != UINT32_MAX)
        c->txns[txn].kip890 = true;
}

static bool verify_partitions(ks_coordinators *c, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    const ks_coord_txn *t = ks_coord_lookup(c, q->transactional_id);
    ks_kerr all = KS_KERR_NONE;
    if (!t || t->meta.producer_id != q->producer_id)
        all = KS_KERR_INVALID_PRODUCER_ID_MAPPING;
    else if (t->meta.epoch != q->epoch)
        all = KS_KERR_PRODUCER_FENCED;
    else if (t->meta.state == KS_TXN_PREPARE_COMMIT || t->meta.state == KS_TXN_PREPARE_ABORT)
        all = KS_KERR_CONCURRENT_TRANSACTIONS;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        rb->error = all != KS_KERR_NONE                           ? all
                    : ks_txn_has_partition(&t->meta, rb->partition) ? KS_KERR_NONE
                                                                    : KS_KERR_TRANSACTION_ABORTABLE;
    }
    return answer(q, KS_KERR_NONE);
}

static bool end_txn(ks_coordinators *c, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    if (!coordinates(c, q))
        return answer(q, KS_KERR_NOT_COORDINATOR);
    uint32_t txn = find_txn(c, q);
    if (txn == UINT32_MAX)
        return answer(q, KS_KERR_UNKNOWN_SERVER_ERROR);
    ks_coord_txn *t = &c->txns[txn];
    t->kip890 = t->kip890 || ks_request_tv2(q);
    ks_txn_decision d = ks_txn_end_txn(&t->meta, q->producer_id, q->epoch, q->commit, t->kip890);
    if (!d.write) {
        q->epoch = d.epoch >= 0 ? d.epoch : q->epoch;
        /* a retry of the decision already written (its answer was lost)
         * is told when that decision was written (for the observer) */
        if (d.error == KS_KERR_NONE)
            q->decided_ns = t->decided_ns;
        return answer(q, d.error);
    }
    start_write(c, cx, txn, &d, id);
    return false;
}

/* ---- the handlers the broker's table names (coordinator.h) ------------------ */

bool ks_coord_init_producer_id(ks_coordinators *c, ks_ctx *cx, uint32_t id)
{
    return init_producer_id(c, cx, id);
}

bool ks_coord_add_offsets(ks_coordinators *c, ks_ctx *cx, uint32_t id)
{
    return add_offsets(c, cx, id);
}

bool ks_coord_add_partitions(ks_coordinators *c, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    /* v4+ come from partition leaders: verification (3.6+), or the
     * implicit add of transaction version 2 (KIP-890) */
    if (q->verify_only)
        return verify_partitions(c, cx, id);
    if (q->version >= 4 && coordinates(c, q))
        mark_tv2(c, q);
    return add_partitions(c, cx, id);
}

bool ks_coord_end_txn(ks_coordinators *c, ks_ctx *cx, uint32_t id)
{
    return end_txn(c, cx, id);
}

/* WriteTxnMarkersRequest v1: header + client id, then one marker:
 * producer id (8), epoch (2), result (1), coordinator epoch (4), one
 * topic (name) with its partitions (4 each); the response: header and an
 * error per partition ([K] WriteTxnMarkersRequest.json). */
static void marker_sizes(ks_request *q, const char *topic)
{
    q->request_bytes = 40u + (uint32_t)strlen(q->client_id) + (uint32_t)strlen(topic) +
                       4u * q->batches;
    q->response_bytes = 24u + (uint32_t)strlen(topic) + 6u * q->batches;
}

/* Sends one WriteTxnMarkers request to broker `leader` for the
 * transaction's partitions it leads ([K] TransactionMarkerChannelManager:
 * the markers of a transaction are queued per destination broker and
 * sent by the coordinator's inter-broker send thread). Returns false when
 * out of memory. */
static bool send_marker_request(ks_coordinators *c, ks_ctx *cx, uint32_t txn, uint32_t leader,
                                const uint32_t *parts, uint32_t n)
{
    ks_coord_txn *t = &c->txns[txn];
    uint32_t id = ks_bio_new_request(c->io, cx, leader, KS_API_WRITE_TXN_MARKERS, 1);
    if (id == KS_REQ_NONE)
        return false;
    uint32_t last = KS_REQ_NONE;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t e = ks_request_add_batch(&cx->reqs, id, &last);
        if (e == KS_REQ_NONE)
            return false;
        ks_req_entry(&cx->reqs, e)->partition = parts[k];
    }
    ks_request *q = ks_req(&cx->reqs, id);
    q->producer_id = t->marker_pid;
    q->epoch = t->marker_epoch;
    q->commit = t->marker_commit;
    q->transactional_id = t->meta.transactional_id; /* for the trace only */
    q->owner = txn;
    marker_sizes(q, ks_is_group_partition(parts[0])
                        ? "__consumer_offsets"
                        : cx->sc->topics[ks_meta_topic_of(c->meta, parts[0])].name);
    ks_bio_send(c->io, cx, id);
    return true;
}

/* The broker that leads a partition of a transaction: a world
 * partition's leader, or for a group's offsets the leader of its
 * __consumer_offsets partition. */
static uint32_t leader_of(const ks_coordinators *c, uint32_t part)
{
    if (ks_is_group_partition(part))
        return ks_meta_internal_leader(c->meta, part & ~KS_GROUP_PARTITION_BIT);
    return ks_meta_leader(c->meta, part);
}

/* The transaction's markers leave, one request per leader. */
static void send_markers(ks_coordinators *c, ks_ctx *cx, uint32_t txn)
{
    ks_coord_txn *t = &c->txns[txn];
    t->marker_commit = t->meta.state == KS_TXN_PREPARE_COMMIT;
    t->marker_pid = t->meta.producer_id;
    t->marker_epoch = t->meta.epoch;
    t->markers_pending = t->meta.npartitions;
    if (t->meta.npartitions > c->scratch_cap) {
        uint32_t *a = realloc(c->scratch, t->meta.npartitions * sizeof *a);
        if (!a)
            goto oom;
        c->scratch = a;
        c->scratch_cap = t->meta.npartitions;
    }
    for (uint32_t b = 0; b < c->meta->brokers; b++) {
        uint32_t n = 0;
        for (uint32_t k = 0; k < t->meta.npartitions; k++)
            if (leader_of(c, t->meta.partitions[k]) == b)
                c->scratch[n++] = t->meta.partitions[k];
        if (n > 0 && !send_marker_request(c, cx, txn, b, c->scratch, n))
            goto oom;
    }
    if (t->markers_pending == 0) {
        ks_txn_decision d = ks_txn_complete(&t->meta);
        start_write(c, cx, txn, &d, KS_REQ_NONE);
    }
    return;
oom:
    ks_ctx_oom(cx);
}

void ks_coord_markers_answered(ks_coordinators *c, ks_ctx *cx, uint32_t req)
{
    const ks_request *q = ks_req(&cx->reqs, req);
    ks_coord_txn *t = &c->txns[q->owner];
    assert(t->markers_pending >= q->batches);
    t->markers_pending -= q->batches;
    if (t->markers_pending == 0) {
        ks_txn_decision d = ks_txn_complete(&t->meta);
        if (d.write)
            start_write(c, cx, q->owner, &d, KS_REQ_NONE);
    }
    assert_coord_invariants(c, cx, q->owner);
}

/* A marker request was given up (the coordinator's request.timeout.ms
 * ran out on it: its message or its answer was lost): the same markers
 * go again, in a new request ([K] TransactionMarkerRequestCompletionHandler
 * re-enqueues the markers of a disconnected request). */
void ks_coord_markers_given_up(ks_coordinators *c, ks_ctx *cx, uint32_t req)
{
    const ks_request *q = ks_req(&cx->reqs, req);
    uint32_t n = 0;
    if (q->batches > c->scratch_cap) {
        uint32_t *a = realloc(c->scratch, q->batches * sizeof *a);
        if (!a)
            goto oom;
        c->scratch = a;
        c->scratch_cap = q->batches;
    }
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next)
        c->scratch[n++] = ks_req_entry(&cx->reqs, e)->partition;
    if (send_marker_request(c, cx, q->owner, q->server, c->scratch, n))
        return;
oom:
    ks_ctx_oom(cx);
}

static const char *why_written(ks_txn_state from, ks_txn_state s)
{
    if (from == KS_TXN_PREPARE_EPOCH_FENCE)
        return "the coordinator aborts the fenced transaction";
    switch (s) {
    case KS_TXN_EMPTY:
        return ks_api_name(KS_API_INIT_PRODUCER_ID);
    case KS_TXN_ONGOING:
        return ks_api_name(KS_API_ADD_PARTITIONS_TO_TXN);
    case KS_TXN_PREPARE_COMMIT:
    case KS_TXN_PREPARE_ABORT:
        return ks_api_name(KS_API_END_TXN);
    case KS_TXN_COMPLETE_COMMIT:
    case KS_TXN_COMPLETE_ABORT:
        return "markers written";
    case KS_TXN_DEAD:
    case KS_TXN_PREPARE_EPOCH_FENCE:
    case KS_TXN__COUNT:
        break;
    }
    return "";
}

/* A log write is done: the decision takes effect, the waiting request is
 * answered, and a Prepare* state sends its markers. */
static void on_written(ks_coordinators *c, ks_ctx *cx, uint32_t txn)
{
    ks_coord_txn *t = &c->txns[txn];
    ks_txn_state from = t->meta.state;
    ks_txn_decision d = t->pending;
    int64_t fresh = d.new_producer_id ? new_producer_id(c) : -1;
    if (d.write_state == KS_TXN_ONGOING) {
        for (uint32_t k = 0; k < t->nadd; k++)
            if (!ks_txn_add_partition(&t->meta, t->add[k])) {
                ks_ctx_oom(cx);
                return;
            }
    }
    bool ok = ks_txn_apply(&t->meta, &d, fresh, ks_sim_now(&cx->sim));
    assert(ok);
    (void)ok;
    uint32_t req = t->waiting_req;
    bool implicit = req != KS_REQ_NONE && ks_req(&cx->reqs, req)->api == KS_API_ADD_PARTITIONS_TO_TXN &&
                    ks_req(&cx->reqs, req)->version >= 4;
    trace_txn(cx, t, from, implicit ? "first produce (KIP-890)" : why_written(from, t->meta.state));
    if (t->meta.state == KS_TXN_PREPARE_COMMIT || t->meta.state == KS_TXN_PREPARE_ABORT)
        t->decided_ns = ks_sim_now(&cx->sim);
    t->waiting_req = KS_REQ_NONE;
    if (req != KS_REQ_NONE) {
        ks_request *q = ks_req(&cx->reqs, req);
        q->error = KS_KERR_NONE;
        q->producer_id = t->meta.producer_id;
        q->epoch = t->meta.epoch;
        q->decided_ns = ks_sim_now(&cx->sim);
        ks_bio_respond(c->io, cx, req);
    }
    arm_scan(c, cx);
    if (t->meta.state == KS_TXN_PREPARE_COMMIT || t->meta.state == KS_TXN_PREPARE_ABORT)
        send_markers(c, cx, txn);
    assert_coord_invariants(c, cx, txn);
}

/* abortTimedOutTransactions: Ongoing transactions past their timeout are
 * fenced (epoch + 1) and aborted. */
static void on_scan(ks_coordinators *c, ks_ctx *cx)
{
    c->scan = KS_HANDLE_NONE;
    ks_time now = ks_sim_now(&cx->sim);
    for (uint32_t i = 0; i < c->count; i++) {
        ks_coord_txn *t = &c->txns[i];
        if (t->meta.pending || !ks_txn_timed_out(&t->meta, now))
            continue;
        ks_txn_state from = t->meta.state;
        ks_txn_decision f = ks_txn_fence(&t->meta);
        bool ok = ks_txn_apply(&t->meta, &f, -1, now);
        assert(ok);
        (void)ok;
        trace_txn(cx, t, from, "transaction.timeout.ms");
        ks_txn_decision a =
            ks_txn_end_txn(&t->meta, t->meta.producer_id, t->meta.epoch, false, t->kip890);
        if (a.write)
            start_write(c, cx, i, &a, KS_REQ_NONE);
        assert_coord_invariants(c, cx, i);
    }
    arm_scan(c, cx);
}

void ks_coord_on_event(ks_coordinators *c, ks_ctx *cx, uint32_t tag, uint64_t arg)
{
    switch (tag) {
    case KS_COORD_WRITTEN:
        on_written(c, cx, (uint32_t)arg);
        break;
    case KS_COORD_SCAN:
        on_scan(c, cx);
        break;
    default:
        break;
    }
}
