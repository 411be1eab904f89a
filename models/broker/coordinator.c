/*
 * coordinator.c - transaction coordinators (see coordinator.h).
 *
 * One request's life at the coordinator: ks_coord_handle asks txn_state.c
 * for the decision; an answer without a log write goes back at once; a
 * decision with a write is marked pending, and KS_COORD_WRITTEN, after
 * brokers.cost.txn.log.write.ms, applies it and answers. A Prepare* state
 * written sends the markers; the last marker answer writes Complete*.
 */
#include "models/broker/coordinator.h"

#include "models/world.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

bool ks_coord_init(ks_coordinators *c, ks_world *w)
{
    memset(c, 0, sizeof *c);
    c->scan = KS_HANDLE_NONE;
    c->scan_interval_ns = w->sc->broker_config[KS_BCFG_TXN_ABORT_INTERVAL_MS].i * KS_NS_PER_MS;
    c->state_partitions = (uint32_t)w->sc->broker_config[KS_BCFG_TXN_STATE_LOG_PARTITIONS].i;
    return true;
}

void ks_coord_free(ks_coordinators *c)
{
    free(c->scratch);
    c->scratch = NULL;
    for (uint32_t i = 0; i < c->count; i++) {
        ks_txn_meta_free(&c->txns[i].meta);
        free(c->txns[i].add);
        free(c->txns[i].offsets);
    }
    free(c->txns);
    c->txns = NULL;
    c->count = c->cap = 0;
}

uint32_t ks_coord_broker(const ks_world *w, const char *transactional_id)
{
    uint32_t part = ks_txn_partition_for(transactional_id, w->coord.state_partitions);
    return part % w->broker_count;
}

/* The metadata of the transactional.id a request names, created on first
 * use with the transaction timeout the request carries. Returns
 * UINT32_MAX when out of memory. */
static uint32_t find_txn(ks_world *w, const ks_request *q)
{
    ks_coordinators *c = &w->coord;
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
    t->broker = ks_coord_broker(w, id);
    /* the client's transaction version: TV2 clients send Produce v12 and
     * EndTxn v5 ([K] KafkaApis.handleEndTxnRequest: version > 4 is TV_2) */
    t->kip890 = ks_request_tv2(q);
    t->waiting_req = KS_REQ_NONE;
    t->offsets_consumer = -1;
    return c->count++;
}

static void trace_txn(ks_world *w, const ks_coord_txn *t, ks_txn_state from, const char *why)
{
    ks_trace *tr = w->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_TXN))
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

static void schedule(ks_world *w, uint32_t txn, uint32_t tag, uint64_t arg, ks_time at)
{
    ks_event ev = {.kind = KS_EV_TXN, .owner = txn, .tag = tag, .arg = arg};
    ks_sim_schedule(&w->sim, at, &ev);
}

/* Starts the write of decision d to __transaction_state; `req` (or
 * KS_REQ_NONE) is answered when it is done. */
static void start_write(ks_world *w, uint32_t txn, const ks_txn_decision *d, uint32_t req)
{
    ks_coord_txn *t = &w->coord.txns[txn];
    bool ok = ks_txn_set_pending(&t->meta, d->write_state);
    assert(ok);
    (void)ok;
    t->pending = *d;
    t->waiting_req = req;
    ks_time cost = w->sc->broker_costs[t->broker].txn_log_write_ns;
    schedule(w, txn, KS_COORD_WRITTEN, 0, ks_time_add(ks_sim_now(&w->sim), cost));
}

/* The timeout scan runs every transaction.abort.timed.out.transaction.
 * cleanup.interval.ms ([K] TransactionCoordinator.startup schedules
 * abortTimedOutTransactions); ksim schedules only the scan that will
 * find something: the first one after the earliest deadline of an
 * Ongoing transaction, and cancels it when none is left, so that scans
 * neither keep a run alive nor leave it early. */
static void arm_scan(ks_world *w)
{
    ks_coordinators *c = &w->coord;
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
        ks_time from = deadline > ks_sim_now(&w->sim) ? deadline : ks_sim_now(&w->sim);
        at = (from / c->scan_interval_ns + 1) * c->scan_interval_ns; /* the next tick after */
    }
    if (c->scan != KS_HANDLE_NONE && c->scan_at == at)
        return;
    if (c->scan != KS_HANDLE_NONE)
        ks_sim_cancel(&w->sim, c->scan);
    c->scan = KS_HANDLE_NONE;
    if (at == KS_TIME_MAX)
        return;
    ks_event ev = {.kind = KS_EV_TXN, .owner = 0, .tag = KS_COORD_SCAN};
    c->scan = ks_sim_schedule(&w->sim, at, &ev);
    c->scan_at = at;
}

static bool answer(ks_request *q, ks_kerr err)
{
    q->error = err;
    return true;
}

static bool init_producer_id(ks_world *w, uint32_t id)
{
    ks_request *q = &w->reqs.reqs[id];
    if (!q->transactional_id) {
        /* the idempotent producer: a fresh id from the cluster's counter
         * ([K] ProducerIdManager hands out blocks of ids in order) */
        q->producer_id = w->next_producer_id++;
        q->epoch = 0;
        return answer(q, KS_KERR_NONE);
    }
    uint32_t txn = find_txn(w, q);
    if (txn == UINT32_MAX)
        return answer(q, KS_KERR_UNKNOWN_SERVER_ERROR);
    ks_coord_txn *t = &w->coord.txns[txn];
    ks_time timeout = q->txn_timeout_ns;
    if (timeout > w->sc->broker_config[KS_BCFG_TXN_MAX_TIMEOUT_MS].i * KS_NS_PER_MS)
        return answer(q, KS_KERR_INVALID_TRANSACTION_TIMEOUT); /* [K] handleInitProducerId */
    ks_txn_decision d = ks_txn_init_producer_id(&t->meta);
    if (!t->meta.pending && t->meta.state != KS_TXN_ONGOING)
        t->meta.timeout_ns = timeout; /* each InitProducerId sets it */
    if (d.abort_ongoing) {
        /* fence the Ongoing transaction, then abort it ourselves; the new
         * instance retries (CONCURRENT_TRANSACTIONS) */
        ks_txn_state from = t->meta.state;
        ks_txn_decision f = ks_txn_fence(&t->meta);
        bool ok = ks_txn_apply(&t->meta, &f, -1, ks_sim_now(&w->sim));
        assert(ok);
        (void)ok;
        trace_txn(w, t, from, "fenced by InitProducerId");
        ks_txn_decision a = ks_txn_end_txn(&t->meta, t->meta.producer_id, t->meta.epoch, false,
                                           t->kip890);
        if (a.write)
            start_write(w, txn, &a, KS_REQ_NONE);
        return answer(q, d.error);
    }
    if (!d.write)
        return answer(q, d.error);
    start_write(w, txn, &d, id);
    return false;
}

static bool add_partitions(ks_world *w, uint32_t id)
{
    ks_request *q = &w->reqs.reqs[id];
    uint32_t txn = find_txn(w, q);
    if (txn == UINT32_MAX)
        return answer(q, KS_KERR_UNKNOWN_SERVER_ERROR);
    ks_coordinators *cs = &w->coord;
    uint32_t n = 0;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = w->reqs.entries[e].next) {
        if (n == cs->scratch_cap) {
            uint32_t cap = cs->scratch_cap ? cs->scratch_cap * 2u : 8u;
            uint32_t *a = realloc(cs->scratch, cap * sizeof *a);
            if (!a)
                return answer(q, KS_KERR_UNKNOWN_SERVER_ERROR);
            cs->scratch = a;
            cs->scratch_cap = cap;
        }
        cs->scratch[n++] = w->reqs.entries[e].partition;
    }
    ks_coord_txn *t = &cs->txns[txn];
    ks_txn_decision d = ks_txn_add_partitions(&t->meta, q->producer_id, q->epoch, cs->scratch, n);
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
    memcpy(t->add, cs->scratch, n * sizeof *t->add);
    t->nadd = n;
    start_write(w, txn, &d, id);
    return false;
}

static bool end_txn(ks_world *w, uint32_t id)
{
    ks_request *q = &w->reqs.reqs[id];
    uint32_t txn = find_txn(w, q);
    if (txn == UINT32_MAX)
        return answer(q, KS_KERR_UNKNOWN_SERVER_ERROR);
    ks_coord_txn *t = &w->coord.txns[txn];
    t->kip890 = t->kip890 || ks_request_tv2(q);
    ks_txn_decision d = ks_txn_end_txn(&t->meta, q->producer_id, q->epoch, q->commit, t->kip890);
    if (d.write)
        t->offsets_consumer = -1;
    if (d.write && q->commit && q->offsets_consumer >= 0) {
        /* the offsets sent to the transaction (AddOffsetsToTxn and
         * TxnOffsetCommit, which ksim folds into EndTxn) */
        uint32_t n = q->noffsets;
        if (n > t->offsets_cap) {
            int64_t *o = realloc(t->offsets, n * sizeof *o);
            if (!o)
                return answer(q, KS_KERR_UNKNOWN_SERVER_ERROR);
            t->offsets = o;
            t->offsets_cap = n;
        }
        memcpy(t->offsets, q->offsets, n * sizeof *t->offsets);
        t->offsets_consumer = q->offsets_consumer;
    }
    if (!d.write) {
        q->epoch = d.epoch >= 0 ? d.epoch : q->epoch;
        return answer(q, d.error);
    }
    start_write(w, txn, &d, id);
    return false;
}

bool ks_coord_handle(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_request *q = &w->reqs.reqs[id];
    (void)broker;
    switch (q->api) {
    case KS_API_INIT_PRODUCER_ID:
        return init_producer_id(w, id);
    case KS_API_FIND_COORDINATOR:
        q->node = ks_coord_broker(w, q->transactional_id);
        return answer(q, KS_KERR_NONE);
    case KS_API_ADD_PARTITIONS_TO_TXN:
        return add_partitions(w, id);
    case KS_API_END_TXN:
        return end_txn(w, id);
    case KS_API_PRODUCE:
    case KS_API_WRITE_TXN_MARKERS:
    case KS_API__COUNT:
        break;
    }
    return answer(q, KS_KERR_UNKNOWN_SERVER_ERROR);
}

static void marker_stream(ks_world *w)
{
    ks_coordinators *c = &w->coord;
    if (!c->rng_ready) {
        if (!ks_world_stream(w, &c->rng, "coordinator.markers"))
            ks_rng_stream(&c->rng, w->sc->seed, "coordinator.markers");
        c->rng_ready = true;
    }
}

/* Sends (or sends again) the WriteTxnMarkers request for one partition
 * to its leader ([K] TransactionMarkerChannelManager: one inter-broker
 * request, resent until it is answered). A request a fault loses is sent
 * again after the broker's request.timeout.ms. */
static void send_marker(ks_world *w, uint32_t txn, uint32_t pidx)
{
    ks_coordinators *c = &w->coord;
    marker_stream(w);
    ks_time now = ks_sim_now(&w->sim), delay = 0;
    uint64_t number = ++c->marker_requests;
    uint32_t leader = w->partitions[pidx].leader;
    int32_t lost = ks_faults_marker(w, leader, pidx, number, false, now, &delay);
    if (lost >= 0) {
        ks_time timeout = w->sc->broker_config[KS_BCFG_REQUEST_TIMEOUT_MS].i * KS_NS_PER_MS;
        schedule(w, txn, KS_COORD_MARKER_RETRY, pidx, ks_time_add(now, timeout));
        return;
    }
    ks_time lat = ks_time_add(ks_dist_draw(&w->net.latency, &c->rng), delay);
    schedule(w, txn, KS_COORD_MARKER, pidx | (number << 32), ks_time_add(now, lat));
}

/* One marker leaves for each partition of the transaction. */
static void send_markers(ks_world *w, uint32_t txn)
{
    ks_coord_txn *t = &w->coord.txns[txn];
    t->marker_commit = t->meta.state == KS_TXN_PREPARE_COMMIT;
    t->marker_pid = t->meta.producer_id;
    t->marker_epoch = t->meta.epoch;
    t->markers_pending = t->meta.npartitions;
    for (uint32_t k = 0; k < t->meta.npartitions; k++)
        send_marker(w, txn, t->meta.partitions[k]);
    if (t->markers_pending == 0) {
        ks_txn_decision d = ks_txn_complete(&t->meta);
        start_write(w, txn, &d, KS_REQ_NONE);
    }
}

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
            ks_checker_aborted(w->checker, &l->ids[b->ids_at], b->records);
}

/* The leader appends the marker: one control record, one offset; the
 * partition's producer state takes its epoch ([K] ProducerAppendInfo.
 * appendEndTxnMarker). A marker sent again after a lost answer is
 * appended again. */
static void on_marker(ks_world *w, uint32_t txn, uint32_t pidx, uint64_t number)
{
    ks_coord_txn *t = &w->coord.txns[txn];
    ks_partition *part = &w->partitions[pidx];
    ks_marker m = t->marker_commit ? KS_MARKER_COMMIT : KS_MARKER_ABORT;
    uint32_t aborted_before = part->log.naborted;
    int64_t off = ks_plog_append_marker(&part->log, t->marker_pid, t->marker_epoch, m,
                                        ks_sim_now(&w->sim));
    if (off < 0 || !ks_ps_marker(&part->ps, t->marker_pid, t->marker_epoch)) {
        w->out_of_memory = true;
        ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
        return;
    }
    part->log_end_offset = part->log.leo;
    note_aborted(w, &part->log, aborted_before);
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_MARKER)) {
        ks_trace_u64(tr, "broker", part->leader);
        ks_trace_str(tr, "topic", w->sc->topics[part->topic].name);
        ks_trace_u64(tr, "partition", part->index);
        ks_trace_str(tr, "transactional_id", t->meta.transactional_id);
        ks_trace_i64(tr, "producer_id", t->marker_pid);
        ks_trace_i64(tr, "epoch", t->marker_epoch);
        ks_trace_str(tr, "type", t->marker_commit ? "COMMIT" : "ABORT");
        ks_trace_i64(tr, "offset", off);
        ks_trace_i64(tr, "lso", ks_plog_lso(&part->log));
        ks_trace_u64(tr, "request", number);
        ks_trace_end(tr);
    }
    ks_time now = ks_sim_now(&w->sim), delay = 0;
    if (ks_faults_marker(w, part->leader, pidx, number, true, now, &delay) >= 0) {
        ks_time timeout = w->sc->broker_config[KS_BCFG_REQUEST_TIMEOUT_MS].i * KS_NS_PER_MS;
        schedule(w, txn, KS_COORD_MARKER_RETRY, pidx, ks_time_add(now, timeout));
        return;
    }
    ks_time lat = ks_time_add(ks_dist_draw(&w->net.latency, &w->coord.rng), delay);
    schedule(w, txn, KS_COORD_MARKER_ACK, pidx, ks_time_add(now, lat));
}

static const char *why_written(ks_txn_state from, ks_txn_state s)
{
    if (from == KS_TXN_PREPARE_EPOCH_FENCE)
        return "the coordinator aborts the fenced transaction";
    switch (s) {
    case KS_TXN_EMPTY:
        return "InitProducerId";
    case KS_TXN_ONGOING:
        return "AddPartitionsToTxn";
    case KS_TXN_PREPARE_COMMIT:
    case KS_TXN_PREPARE_ABORT:
        return "EndTxn";
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
static void on_written(ks_world *w, uint32_t txn)
{
    ks_coord_txn *t = &w->coord.txns[txn];
    ks_txn_state from = t->meta.state;
    ks_txn_decision d = t->pending;
    int64_t fresh = d.new_producer_id ? w->next_producer_id++ : -1;
    if (d.write_state == KS_TXN_ONGOING) {
        for (uint32_t k = 0; k < t->nadd; k++)
            if (!ks_txn_add_partition(&t->meta, t->add[k])) {
                w->out_of_memory = true;
                ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
                return;
            }
    }
    bool ok = ks_txn_apply(&t->meta, &d, fresh, ks_sim_now(&w->sim));
    assert(ok);
    (void)ok;
    trace_txn(w, t, from, why_written(from, t->meta.state));
    uint32_t req = t->waiting_req;
    t->waiting_req = KS_REQ_NONE;
    if (req != KS_REQ_NONE) {
        ks_request *q = &w->reqs.reqs[req];
        q->error = KS_KERR_NONE;
        q->producer_id = t->meta.producer_id;
        q->epoch = t->meta.epoch;
        q->decided_ns = ks_sim_now(&w->sim);
        ks_broker_respond(w, t->broker, req);
    }
    arm_scan(w);
    if (t->meta.state == KS_TXN_PREPARE_COMMIT && t->offsets_consumer >= 0) {
        /* the decision commits the offsets too */
        ks_consumer_offsets_committed(&w->consumers[t->offsets_consumer], w, t->offsets);
        t->offsets_consumer = -1;
    }
    if (t->meta.state == KS_TXN_PREPARE_COMMIT || t->meta.state == KS_TXN_PREPARE_ABORT)
        send_markers(w, txn);
}

/* abortTimedOutTransactions: Ongoing transactions past their timeout are
 * fenced (epoch + 1) and aborted. */
static void on_scan(ks_world *w)
{
    ks_coordinators *c = &w->coord;
    c->scan = KS_HANDLE_NONE;
    ks_time now = ks_sim_now(&w->sim);
    for (uint32_t i = 0; i < c->count; i++) {
        ks_coord_txn *t = &c->txns[i];
        if (t->meta.pending || !ks_txn_timed_out(&t->meta, now))
            continue;
        ks_txn_state from = t->meta.state;
        ks_txn_decision f = ks_txn_fence(&t->meta);
        bool ok = ks_txn_apply(&t->meta, &f, -1, now);
        assert(ok);
        (void)ok;
        trace_txn(w, t, from, "transaction.timeout.ms");
        ks_txn_decision a =
            ks_txn_end_txn(&t->meta, t->meta.producer_id, t->meta.epoch, false, t->kip890);
        if (a.write)
            start_write(w, i, &a, KS_REQ_NONE);
    }
    arm_scan(w);
}

void ks_coord_on_event(ks_world *w, uint32_t txn, uint32_t tag, uint64_t arg)
{
    switch (tag) {
    case KS_COORD_WRITTEN:
        on_written(w, txn);
        break;
    case KS_COORD_MARKER:
        on_marker(w, txn, (uint32_t)(arg & 0xffffffffu), arg >> 32);
        break;
    case KS_COORD_MARKER_RETRY:
        send_marker(w, txn, (uint32_t)arg);
        break;
    case KS_COORD_MARKER_ACK: {
        ks_coord_txn *t = &w->coord.txns[txn];
        assert(t->markers_pending > 0);
        if (--t->markers_pending == 0) {
            ks_txn_decision d = ks_txn_complete(&t->meta);
            if (d.write)
                start_write(w, txn, &d, KS_REQ_NONE);
        }
        break;
    }
    case KS_COORD_SCAN:
        on_scan(w);
        break;
    default:
        break;
    }
}

ks_kerr ks_coord_implicit_add(ks_world *w, const ks_request *q, int16_t epoch, uint32_t partition)
{
    int64_t producer_id = q->producer_id;
    uint32_t txn = find_txn(w, q);
    if (txn == UINT32_MAX)
        return KS_KERR_UNKNOWN_SERVER_ERROR;
    ks_coord_txn *t = &w->coord.txns[txn];
    t->kip890 = true; /* Produce v12: the leader adds the partition */
    if (t->meta.producer_id != producer_id || t->meta.epoch != epoch)
        return KS_KERR_INVALID_PRODUCER_EPOCH;
    if (ks_txn_has_partition(&t->meta, partition))
        return KS_KERR_NONE;
    ks_txn_decision d = ks_txn_add_partitions(&t->meta, producer_id, epoch, &partition, 1);
    if (d.error != KS_KERR_NONE)
        return d.error;
    if (!d.write)
        return KS_KERR_NONE;
    /* applied at once: ksim does not model the leader's round trip to
     * the coordinator (KIP-890 part 2) */
    ks_txn_state from = t->meta.state;
    if (!ks_txn_add_partition(&t->meta, partition))
        return KS_KERR_UNKNOWN_SERVER_ERROR;
    bool ok = ks_txn_apply(&t->meta, &d, -1, ks_sim_now(&w->sim));
    assert(ok);
    (void)ok;
    if (from != t->meta.state)
        trace_txn(w, t, from, "first produce (KIP-890)");
    arm_scan(w);
    return KS_KERR_NONE;
}

bool ks_coord_verify(const ks_world *w, const char *id, int64_t producer_id, int16_t epoch,
                     uint32_t partition)
{
    const ks_coordinators *c = &w->coord;
    for (uint32_t i = 0; i < c->count; i++) {
        const ks_txn_meta *m = &c->txns[i].meta;
        if (strcmp(m->transactional_id, id) != 0)
            continue;
        return m->state == KS_TXN_ONGOING && m->producer_id == producer_id && m->epoch == epoch &&
               ks_txn_has_partition(m, partition);
    }
    return false;
}
