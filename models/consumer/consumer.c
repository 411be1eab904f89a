/*
 * consumer.c - consumer clients (see consumer.h).
 *
 *   start ──FindCoordinator──▶ COORDINATOR ──OffsetFetch──▶ OFFSETS
 *     ──(ListOffsets for partitions with no committed offset)──▶ RESET
 *     ──▶ POLLING: poll() ─▶ records ─▶ process ─▶ commit ─▶ poll() ...
 *
 * Every request carries the consumer's generation (ks_request.gen): a
 * crash bumps it, so an answer meant for the dead instance is dropped
 * when it comes, and so is every event of that instance. A Fetch also
 * carries the seek count (ks_request.owner): records fetched before the
 * application sought back (an aborted transaction) are dropped.
 */
#include "models/consumer/consumer.h"
#include "models/consumer/consumer_net.h"

#include "models/net/wire.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* [K] ConsumerConfig defaults the model uses without a scenario key. */
#define KS_CONS_REQUEST_TIMEOUT_NS (30000 * KS_NS_PER_MS) /* request.timeout.ms */
#define RETRY_BACKOFF_NS (100 * KS_NS_PER_MS)     /* retry.backoff.ms */

static void out_of_memory(ks_ctx *cx)
{
    ks_ctx_oom(cx);
}

/* ---- invariants ------------------------------------------------------------ */

#ifndef NDEBUG
/* Per-partition and per-broker checks cost O(partitions + brokers) at
 * every event: they run for consumers of up to this many of each, so
 * that a debug run stays linear in its events. */
#define FULL_CHECK_LIMIT 64u

/* The poll cycle of a live consumer in the poll loop: between polls
 * (a poll scheduled), WAITING in poll() for a fetch, or PROCESSING what
 * poll() returned (then committing, or waiting for commitTransaction). */
static void assert_poll_invariants(const ks_consumer *c)
{
    assert(!c->waiting || (!c->processing && !c->txn_waiting && c->nbuf == 0));
    assert(!c->txn_waiting || (c->processing && c->conf->commit == KS_COMMIT_TRANSACTION &&
                               c->forward_to >= 0));
    assert(c->processing || c->waiting || c->cursor == c->ncur);
    if (c->nparts > FULL_CHECK_LIMIT || c->brokers > FULL_CHECK_LIMIT)
        return;
    bool in_flight = false;
    for (uint32_t b = 0; b < c->brokers; b++)
        in_flight = in_flight || c->fetch_req[b] != KS_REQ_NONE;
    assert(!c->waiting || in_flight);
    uint64_t buffered = 0;
    for (uint32_t k = 0; k < c->nparts; k++) {
        buffered += c->buffered[k];
        assert(!c->fetching[k] || c->fetch_req[c->leader[k]] != KS_REQ_NONE);
        assert(c->buffered[k] == 0 || !c->fetching[k]);
        assert(c->position[k] <= c->fetch_pos[k]);
        assert(c->buffered[k] > 0 || c->position[k] == c->fetch_pos[k]);
    }
    assert(buffered == c->nbuf);
}

/* The start-up's legal moves: each phase from the one before it or
 * itself (a request asked again), the poll loop from the offsets (or
 * their reset); a crash ends any phase. */
static bool legal_phase(ks_consumer_phase from, ks_consumer_phase to)
{
    switch (to) {
    case KS_CONS_IDLE:
        return true;
    case KS_CONS_COORDINATOR:
        return from == KS_CONS_IDLE || from == KS_CONS_COORDINATOR;
    case KS_CONS_OFFSETS:
        return from == KS_CONS_COORDINATOR || from == KS_CONS_OFFSETS;
    case KS_CONS_RESET:
        return from == KS_CONS_OFFSETS || from == KS_CONS_RESET;
    case KS_CONS_POLLING:
        return from == KS_CONS_OFFSETS || from == KS_CONS_RESET;
    }
    return false;
}

/* What holds in each phase; checked after every event and answer the
 * consumer handles, which is where its phase and poll cycle move. */
static void assert_consumer_invariants(const ks_consumer *c, const ks_ctx *cx)
{
    if (*cx->out_of_memory)
        return; /* the run stopped half-way through a step */
    assert(c->cursor <= c->ncur);
    assert(c->buf_cap == 0 ? c->nbuf == 0 : c->buf_head + c->nbuf <= c->buf_cap);
    if (!c->alive || c->phase != KS_CONS_POLLING) {
        assert(c->alive || c->phase == KS_CONS_IDLE);
        assert(!c->waiting && !c->processing && !c->txn_waiting);
        assert(c->alive || (c->nbuf == 0 && c->ncur == 0));
        return;
    }
    assert_poll_invariants(c);
}
#else
#define assert_consumer_invariants(c, cx) ((void)0)
#define legal_phase(from, to) true
#endif

/* The one place the phase moves. */
static void enter(ks_consumer *c, ks_consumer_phase to)
{
    assert(legal_phase(c->phase, to));
    c->phase = to;
}

bool ks_consumer_init(ks_consumer *c, ks_ctx *cx, uint32_t index, const ks_meta *bootstrap)
{
    const ks_consumer_conf *cc = &cx->sc->consumers[index];
    memset(c, 0, sizeof *c);
    c->index = index;
    c->brokers = bootstrap->brokers;
    c->node = ks_node_consumer(cx->nodes, index);
    c->conf = cc;
    c->nparts = cc->partition_count;
    size_t n = c->nparts ? c->nparts : 1u, nb = c->brokers;
    c->parts = calloc(n, sizeof *c->parts);
    c->leader = calloc(n, sizeof *c->leader);
    c->position = calloc(n, sizeof *c->position);
    c->fetch_pos = calloc(n, sizeof *c->fetch_pos);
    c->committed = calloc(n, sizeof *c->committed);
    c->pending_commit = calloc(n, sizeof *c->pending_commit);
    c->buffered = calloc(n, sizeof *c->buffered);
    c->fetching = calloc(n, sizeof *c->fetching);
    c->needs_reset = calloc(n, sizeof *c->needs_reset);
    c->initial = calloc(n, sizeof *c->initial);
    c->cc = malloc(nb * KS_CHAN__COUNT * sizeof *c->cc);
    c->fetch_req = malloc(nb * sizeof *c->fetch_req);
    if (!c->parts || !c->leader || !c->position || !c->fetch_pos || !c->committed ||
        !c->pending_commit || !c->buffered || !c->fetching || !c->needs_reset || !c->initial ||
        !c->cc || !c->fetch_req)
        return false;
    uint32_t first = bootstrap->topic_first[cc->topic];
    c->first_partition = first;
    c->topic_partitions = cx->sc->topics[cc->topic].max_partitions;
    c->part_index = malloc((c->topic_partitions ? c->topic_partitions : 1u) * sizeof *c->part_index);
    if (!c->part_index)
        return false;
    memset(c->part_index, 0xff, c->topic_partitions * sizeof *c->part_index);
    for (uint32_t k = 0; k < c->nparts; k++) {
        c->part_index[cc->partitions[k]] = k;
        c->parts[k] = first + cc->partitions[k];
        c->leader[k] = ks_meta_leader(bootstrap, c->parts[k]); /* bootstrapped metadata */
        c->committed[k] = -1;
    }
    c->ncc = (uint32_t)nb * KS_CHAN__COUNT;
    for (uint32_t i = 0; i < c->ncc; i++)
        ks_client_conn_init(&c->cc[i]);
    for (size_t b = 0; b < nb; b++)
        c->fetch_req[b] = KS_REQ_NONE;
    c->forward_to = cc->forward_to;
    c->restart_forward_to = -1;
    c->alive = true;
    return true;
}

void ks_consumer_free(ks_consumer *c)
{
    free(c->parts);
    free(c->part_index);
    free(c->leader);
    free(c->position);
    free(c->fetch_pos);
    free(c->committed);
    free(c->pending_commit);
    free(c->buffered);
    free(c->fetching);
    free(c->needs_reset);
    free(c->initial);
    for (uint32_t i = 0; c->cc && i < c->ncc; i++)
        ks_client_conn_free(&c->cc[i]);
    free(c->cc);
    free(c->fetch_req);
    free(c->buf);
    free(c->buf_part);
    free(c->cur);
    free(c->cur_part);
    memset(c, 0, sizeof *c);
}

/* ---- requests ------------------------------------------------------------ */

static void schedule(ks_consumer *c, ks_ctx *cx, ks_time at, uint32_t tag)
{
    ks_event ev = {.kind = KS_EV_CONSUMER, .owner = c->node, .tag = tag, .arg = c->generation};
    ks_sim_schedule(&cx->sim, at, &ev);
}

/* ---- start-up ---------------------------------------------------------- */

static void find_coordinator(ks_consumer *c, ks_ctx *cx)
{
    enter(c, KS_CONS_COORDINATOR);
    uint32_t id = ks_cons_new_request(c, cx, KS_API_FIND_COORDINATOR, ks_cons_any_broker(c), 4);
    if (id == KS_REQ_NONE)
        return;
    ks_req(&cx->reqs, id)->key_type = KS_COORD_GROUP;
    ks_cons_send(c, cx, id);
}

/* OffsetFetchRequest v8: the group's committed offsets of every part
 * ([K] ConsumerCoordinator.fetchCommittedOffsets; require_stable when
 * isolation.level is read_committed). */
static void fetch_offsets(ks_consumer *c, ks_ctx *cx)
{
    enter(c, KS_CONS_OFFSETS);
    uint32_t id = ks_cons_new_request(c, cx, KS_API_OFFSET_FETCH, c->coordinator, 8);
    if (id == KS_REQ_NONE)
        return;
    ks_req(&cx->reqs, id)->require_stable = c->conf->read_committed;
    uint32_t last = KS_REQ_NONE;
    for (uint32_t k = 0; k < c->nparts; k++)
        if (!ks_cons_add_part(cx, id, &last, c->parts[k], -1))
            return;
    ks_cons_send(c, cx, id);
}

/* ListOffsets to each leader of a part with no committed offset:
 * timestamp -2 (earliest) or -1 (latest), per auto.offset.reset ([K]
 * SubscriptionState, OffsetFetcher.resetPositionsIfNeeded). */
static void reset_offsets(ks_consumer *c, ks_ctx *cx)
{
    enter(c, KS_CONS_RESET);
    for (uint32_t b = 0; b < c->brokers; b++) {
        uint32_t id = KS_REQ_NONE, last = KS_REQ_NONE;
        for (uint32_t k = 0; k < c->nparts; k++) {
            if (!c->needs_reset[k] || c->leader[k] != b)
                continue;
            if (id == KS_REQ_NONE && (id = ks_cons_new_request(c, cx, KS_API_LIST_OFFSETS, b, 7)) == KS_REQ_NONE)
                return;
            if (!ks_cons_add_part(cx, id, &last, c->parts[k], c->conf->reset_earliest ? -2 : -1))
                return;
        }
        if (id != KS_REQ_NONE)
            ks_cons_send(c, cx, id);
    }
}

static void start_polling(ks_consumer *c, ks_ctx *cx)
{
    enter(c, KS_CONS_POLLING);
    schedule(c, cx, ks_sim_now(&cx->sim), KS_CONSUMER_POLL);
}

/* The part index of world partition p, or UINT32_MAX. */
static uint32_t part_of(const ks_consumer *c, uint32_t p)
{
    if (p < c->first_partition || p - c->first_partition >= c->topic_partitions)
        return UINT32_MAX;
    return c->part_index[p - c->first_partition];
}

static void on_offsets(ks_consumer *c, ks_ctx *cx, const ks_request *q)
{
    bool unstable = q->error != KS_KERR_NONE, reset = false;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        const ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        uint32_t k = part_of(c, rb->partition);
        if (k == UINT32_MAX)
            continue;
        unstable = unstable || rb->error != KS_KERR_NONE;
        c->committed[k] = rb->base_offset;
        c->position[k] = c->fetch_pos[k] = c->pending_commit[k] = c->initial[k] =
            rb->base_offset >= 0 ? rb->base_offset : 0;
        c->needs_reset[k] = rb->base_offset < 0;
        reset = reset || c->needs_reset[k];
    }
    if (unstable) /* a transaction holds offsets of the group: ask again */
        schedule(c, cx, ks_time_add(ks_sim_now(&cx->sim), RETRY_BACKOFF_NS), KS_CONSUMER_RETRY);
    else if (reset)
        reset_offsets(c, cx);
    else
        start_polling(c, cx);
}

static void on_list_offsets(ks_consumer *c, ks_ctx *cx, const ks_request *q)
{
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        const ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        uint32_t k = part_of(c, rb->partition);
        if (k == UINT32_MAX)
            continue;
        c->position[k] = c->fetch_pos[k] = c->pending_commit[k] = c->initial[k] = rb->base_offset;
        c->needs_reset[k] = false;
    }
    for (uint32_t k = 0; k < c->nparts; k++)
        if (c->needs_reset[k])
            return; /* another leader's answer is to come */
    start_polling(c, cx);
}

/* ---- the poll loop ------------------------------------------------------ */

static bool reserve(void **p, uint32_t *cap, uint64_t need, size_t size)
{
    if (need <= *cap)
        return true;
    uint64_t n = *cap ? *cap : 16u;
    while (n < need)
        n *= 2u;
    if (n > UINT32_MAX)
        return false;
    void *a = realloc(*p, n * size);
    if (!a)
        return false;
    *p = a;
    *cap = (uint32_t)n;
    return true;
}

/* Room for `more` records at the end of the fetch buffer (compacted to
 * the front first). */
static bool buffer_room(ks_consumer *c, uint32_t more)
{
    if (c->buf_head > 0) {
        memmove(c->buf, c->buf + c->buf_head, c->nbuf * sizeof *c->buf);
        memmove(c->buf_part, c->buf_part + c->buf_head, c->nbuf * sizeof *c->buf_part);
        c->buf_head = 0;
    }
    uint32_t cap = c->buf_cap, cap2 = c->buf_cap;
    bool ok = reserve((void **)&c->buf, &cap, (uint64_t)c->nbuf + more, sizeof *c->buf) &&
              reserve((void **)&c->buf_part, &cap2, (uint64_t)c->nbuf + more,
                      sizeof *c->buf_part);
    c->buf_cap = cap < cap2 ? cap : cap2;
    return ok;
}

/* Fetches for every leader with fetchable parts: none buffered, none in
 * flight, parts in turn from one further at each poll. FetchRequest v15
 * ([K] Fetcher.prepareFetchRequests). */
static void send_fetches(ks_consumer *c, ks_ctx *cx)
{
    for (uint32_t b = 0; b < c->brokers; b++) {
        if (c->fetch_req[b] != KS_REQ_NONE)
            continue;
        uint32_t id = KS_REQ_NONE, last = KS_REQ_NONE;
        for (uint32_t i = 0; i < c->nparts; i++) {
            uint32_t k = (c->next_part + i) % c->nparts;
            if (c->leader[k] != b || c->fetching[k] || c->buffered[k] > 0)
                continue;
            if (id == KS_REQ_NONE && (id = ks_cons_new_request(c, cx, KS_API_FETCH, b, 15)) == KS_REQ_NONE)
                return;
            if (!ks_cons_add_part(cx, id, &last, c->parts[k], c->fetch_pos[k]))
                return;
            c->fetching[k] = true;
        }
        if (id == KS_REQ_NONE)
            continue;
        ks_request *q = ks_req(&cx->reqs, id);
        q->max_wait_ns = c->conf->fetch_max_wait_ns;
        q->max_records = c->conf->max_poll_records;
        q->owner = c->seeks; /* records of an older seek are dropped */
        q->request_bytes = 60u + (uint32_t)strlen(c->conf->id) + 28u * q->batches;
        c->fetch_req[b] = id;
        ks_cons_send(c, cx, id);
    }
    if (c->nparts > 0)
        c->next_part = (c->next_part + 1) % c->nparts;
}

/* One "consume" trace record: poll() handed the record to the application. */
static void trace_consume(const ks_consumer *c, ks_ctx *cx, const ks_fetched *f, uint32_t k)
{
    ks_trace *tr = cx->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_CONSUME))
        return;
    ks_trace_str(tr, "consumer", c->conf->id);
    ks_trace_str(tr, "topic", cx->sc->topics[c->conf->topic].name);
    ks_trace_u64(tr, "partition", c->parts[k] - c->first_partition);
    ks_trace_i64(tr, "offset", f->offset);
    if (f->record == KS_PLOG_NO_RECORD)
        ks_trace_str(tr, "record", NULL);
    else
        ks_trace_u64(tr, "record", f->record);
    ks_trace_str(tr, "producer", f->producer < cx->sc->producer_count
                                     ? cx->sc->producers[f->producer].id
                                     : NULL);
    ks_trace_end(tr);
}

/* poll() returns up to max.poll.records of the fetched records: the
 * positions move past them. */
static bool take_records(ks_consumer *c, ks_ctx *cx)
{
    uint32_t n = c->nbuf < c->conf->max_poll_records ? c->nbuf : c->conf->max_poll_records;
    uint32_t cap = c->cur_cap, cap2 = c->cur_cap;
    if (!reserve((void **)&c->cur, &cap, n, sizeof *c->cur) ||
        !reserve((void **)&c->cur_part, &cap2, n, sizeof *c->cur_part)) {
        out_of_memory(cx);
        return false;
    }
    c->cur_cap = cap < cap2 ? cap : cap2;
    for (uint32_t j = 0; j < n; j++) {
        const ks_fetched *f = &c->buf[c->buf_head + j];
        uint32_t k = c->buf_part[c->buf_head + j];
        c->cur[j] = *f;
        c->cur_part[j] = k;
        c->position[k] = f->offset + 1;
        if (--c->buffered[k] == 0)
            c->position[k] = c->fetch_pos[k]; /* past markers the fetch skipped */
        trace_consume(c, cx, f, k);
        ks_obs_read(cx->obs, c->index, f->record, c->conf->read_committed,
                        f->transactional, ks_sim_now(&cx->sim));
    }
    c->buf_head += n;
    c->nbuf -= n;
    c->ncur = n;
    c->cursor = 0;
    c->records += n;
    return true;
}

static void after_processing(ks_consumer *c, ks_ctx *cx);

/* The records poll() returned are processed one by one (process.us
 * each), each forwarded to the forward producer when it is done. */
static void process(ks_consumer *c, ks_ctx *cx)
{
    c->processing = true;
    ks_time each = c->conf->process_ns, now = ks_sim_now(&cx->sim);
    if (c->ncur == 0 || each == 0) {
        for (; c->cursor < c->ncur; c->cursor++)
            if (c->forward_to >= 0)
                c->app.forward(c->app.app, cx, c->forward_to, c->cur[c->cursor].record,
                                    c->index);
        after_processing(c, cx);
    } else if (c->forward_to < 0) {
        /* nothing happens between records: one step for them all */
        schedule(c, cx, ks_time_add(now, each * (ks_time)c->ncur), KS_CONSUMER_PROCESSED);
    } else {
        schedule(c, cx, ks_time_add(now, each), KS_CONSUMER_PROCESSED);
    }
}

static void on_processed(ks_consumer *c, ks_ctx *cx)
{
    if (c->forward_to < 0) {
        c->cursor = c->ncur;
    } else {
        c->app.forward(c->app.app, cx, c->forward_to, c->cur[c->cursor].record, c->index);
        if (++c->cursor < c->ncur) {
            schedule(c, cx, ks_time_add(ks_sim_now(&cx->sim), c->conf->process_ns),
                     KS_CONSUMER_PROCESSED);
            return;
        }
    }
    after_processing(c, cx);
}

static void on_poll(ks_consumer *c, ks_ctx *cx)
{
    if (c->phase != KS_CONS_POLLING || c->processing || c->txn_waiting)
        return;
    c->polls++;
    bool have = c->nbuf > 0 && take_records(c, cx);
    send_fetches(c, cx); /* pipelined: poll() sends fetches before it returns */
    if (have) {
        process(c, cx);
        return;
    }
    c->ncur = c->cursor = 0; /* this poll returns nothing (yet) */
    bool in_flight = false;
    for (uint32_t b = 0; b < c->brokers; b++)
        in_flight = in_flight || c->fetch_req[b] != KS_REQ_NONE;
    if (in_flight)
        c->waiting = true; /* poll() blocks until a fetch brings records */
    else
        after_processing(c, cx); /* nothing to fetch from: an empty poll */
}

static void on_fetched(ks_consumer *c, ks_ctx *cx, const ks_request *q)
{
    c->fetch_req[q->server] = KS_REQ_NONE;
    bool stale = q->owner != c->seeks;
    uint32_t at = 0;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        const ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        uint32_t k = part_of(c, rb->partition), n = rb->records;
        if (k != UINT32_MAX)
            c->fetching[k] = false;
        if (ks_kerr_invalid_metadata(rb->error))
            ks_cons_md_stale(c, cx); /* [K] FetchCollector: requestMetadataUpdate */
        if (k == UINT32_MAX || stale) {
            at += n;
            continue;
        }
        if (!buffer_room(c, n)) {
            out_of_memory(cx);
            return;
        }
        for (uint32_t j = 0; j < n; j++) {
            c->buf[c->nbuf + j] = q->fetched[at + j];
            c->buf_part[c->nbuf + j] = k;
        }
        at += n;
        c->nbuf += n;
        c->buffered[k] += n;
        c->fetch_pos[k] = rb->base_offset;
        if (c->buffered[k] == 0)
            c->position[k] = c->fetch_pos[k];
    }
    if (!c->waiting)
        return;
    if (c->nbuf > 0) {
        c->waiting = false;
        if (take_records(c, cx)) {
            send_fetches(c, cx); /* poll() sends the next fetches as it returns */
            process(c, cx);
        }
        return;
    }
    for (uint32_t b = 0; b < c->brokers; b++)
        if (c->fetch_req[b] != KS_REQ_NONE)
            return; /* another leader may still answer */
    c->waiting = false;
    after_processing(c, cx); /* the poll returns nothing */
}

/* ---- commits ------------------------------------------------------------ */

/* The group's committed offsets become `offsets` (commit "sync"): an
 * "offset_commit" trace record for each partition whose committed offset
 * moves. */
static void set_committed(ks_consumer *c, ks_ctx *cx, const int64_t *offsets)
{
    ks_trace *tr = cx->trace;
    for (uint32_t k = 0; k < c->nparts; k++) {
        if (offsets[k] == c->committed[k])
            continue;
        c->committed[k] = offsets[k];
        if (!tr || !ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_OFFSET_COMMIT))
            continue;
        ks_trace_str(tr, "consumer", c->conf->id);
        ks_trace_str(tr, "group", c->conf->group_id);
        ks_trace_str(tr, "topic", cx->sc->topics[c->conf->topic].name);
        ks_trace_u64(tr, "partition", c->parts[k] - c->first_partition);
        ks_trace_i64(tr, "offset", offsets[k]);
        ks_trace_str(tr, "commit", ks_commit_mode_name(c->conf->commit));
        ks_trace_end(tr);
    }
}

static bool moved(const ks_consumer *c)
{
    for (uint32_t k = 0; k < c->nparts; k++)
        if (c->position[k] != c->pending_commit[k])
            return true;
    return false;
}

/* When the application polls next: poll.interval.ms from now. A poll that
 * returned nothing in no time at all (zero latency and interval) waits
 * 1 ms, so that an idle loop cannot spin without time passing. */
static void next_poll(ks_consumer *c, ks_ctx *cx)
{
    ks_time gap = c->conf->poll_interval_ns;
    if (gap == 0 && c->ncur == 0)
        gap = KS_NS_PER_MS;
    c->processing = false;
    schedule(c, cx, ks_time_add(ks_sim_now(&cx->sim), gap), KS_CONSUMER_POLL);
}

/* commitSync(): OffsetCommitRequest v9 of the positions to the group
 * coordinator; the application waits for its answer. */
static bool commit_sync(ks_consumer *c, ks_ctx *cx)
{
    uint32_t id = ks_cons_new_request(c, cx, KS_API_OFFSET_COMMIT, c->coordinator, 9);
    if (id == KS_REQ_NONE)
        return false;
    uint32_t last = KS_REQ_NONE;
    for (uint32_t k = 0; k < c->nparts; k++)
        if (!ks_cons_add_part(cx, id, &last, c->parts[k], c->position[k]))
            return false;
    memcpy(c->pending_commit, c->position, c->nparts * sizeof *c->position);
    ks_cons_send(c, cx, id);
    return true;
}

/* The application has processed the poll's records: it commits as
 * configured, then polls again. */
static void after_processing(ks_consumer *c, ks_ctx *cx)
{
    switch (c->conf->commit) {
    case KS_COMMIT_SYNC:
        if (moved(c) && commit_sync(c, cx))
            return; /* polls again once answered */
        break;
    case KS_COMMIT_TRANSACTION:
        /* the producer commits them with its transaction; like
         * commitTransaction, that blocks the application */
        if (c->ncur > 0 && c->forward_to >= 0) {
            memcpy(c->pending_commit, c->position, c->nparts * sizeof *c->position);
            c->txn_waiting = true;
            c->app.send_offsets(c->app.app, cx, c->forward_to, c->index, c->parts, c->position,
                                c->nparts);
            return;
        }
        break;
    case KS_COMMIT_NONE:
    case KS_COMMIT__COUNT:
        break;
    }
    next_poll(c, cx);
}

static void on_committed(ks_consumer *c, ks_ctx *cx, const ks_request *q)
{
    if (q->error == KS_KERR_NONE) {
        set_committed(c, cx, c->pending_commit);
        c->commits++;
    }
    next_poll(c, cx);
}

void ks_consumer_txn_committed(ks_consumer *c, ks_ctx *cx, const int64_t *offsets)
{
    if (!c->txn_waiting || !c->alive)
        return;
    c->txn_waiting = false;
    memcpy(c->committed, offsets ? offsets : c->pending_commit, c->nparts * sizeof *c->committed);
    c->commits++;
    next_poll(c, cx);
    assert_consumer_invariants(c, cx);
}

void ks_consumer_txn_aborted(ks_consumer *c, ks_ctx *cx)
{
    if (!c->txn_waiting || !c->alive)
        return;
    /* the transaction's output is gone: seek back to the committed
     * offsets and read again ([K] the application seeks after
     * abortTransaction); records fetched before are dropped */
    c->txn_waiting = false;
    for (uint32_t k = 0; k < c->nparts; k++) {
        c->position[k] = c->fetch_pos[k] = c->committed[k] >= 0 ? c->committed[k] : c->initial[k];
        c->buffered[k] = 0;
    }
    c->nbuf = c->buf_head = 0;
    c->seeks++;
    next_poll(c, cx);
    assert_consumer_invariants(c, cx);
}

/* ---- answers, losses, life -------------------------------------------------- */

static void on_coordinator(ks_consumer *c, ks_ctx *cx, const ks_request *q)
{
    if (q->error != KS_KERR_NONE) {
        schedule(c, cx, ks_time_add(ks_sim_now(&cx->sim), RETRY_BACKOFF_NS), KS_CONSUMER_START);
        return;
    }
    c->coordinator = q->node;
    fetch_offsets(c, cx);
}

/* The answers a consumer handles, one handler per API; an API it never
 * sends has none. */
typedef void answer_fn(ks_consumer *c, ks_ctx *cx, const ks_request *q);
static answer_fn *const answers[KS_API__COUNT] = {
    [KS_API_FIND_COORDINATOR] = on_coordinator,
    [KS_API_OFFSET_FETCH] = on_offsets,
    [KS_API_LIST_OFFSETS] = on_list_offsets,
    [KS_API_FETCH] = on_fetched,
    [KS_API_OFFSET_COMMIT] = on_committed,
    [KS_API_METADATA] = ks_cons_md_answered,
};

static void answered(ks_consumer *c, ks_ctx *cx, const ks_request *q)
{
    answer_fn *h = (unsigned)q->api < (unsigned)KS_API__COUNT ? answers[q->api] : NULL;
    assert(h && "an answer to a request the consumer never sends");
    if (!h) {
        ks_sim_stop(&cx->sim, KS_SIM_INTERNAL_ERROR);
        return;
    }
    h(c, cx, q);
}

/* A "response" trace line: the consumer handles the answer; its error is
 * the request's, or its first partition's. */
static void trace_answer(ks_ctx *cx, const ks_request *q)
{
    if (cx->trace)
        ks_wire_trace_response(cx->trace, cx->nodes, q, ks_sim_now(&cx->sim),
                               ks_req_first_error(&cx->reqs, q));
}

void ks_consumer_on_response(ks_consumer *c, ks_ctx *cx, uint32_t id)
{
    const ks_request *q = ks_req(&cx->reqs, id);
    uint32_t slot = ks_cons_slot_of(q->api, q->server);
    ks_client_conn *cc = &c->cc[slot];
    bool mine = c->alive && ks_client_arrived(cc, id);
    ks_request_unref(&cx->reqs, id); /* the response event's hold */
    if (!mine)
        return; /* given up, or of an instance that crashed: nobody waits for it */
    for (uint32_t a; c->alive && (a = ks_client_take_answered(cc)) != KS_CLIENT_NONE;) {
        trace_answer(cx, ks_req(&cx->reqs, a));
        answered(c, cx, ks_req(&cx->reqs, a));
        ks_request_unref(&cx->reqs, a); /* the consumer's hold */
        assert_consumer_invariants(c, cx);
    }
    ks_event t = ks_cons_timeout_timer(c, slot);
    ks_client_rearm(cc, &cx->sim, KS_CONS_REQUEST_TIMEOUT_NS, &t);
}

/* A request given up (its connection closed): it is asked again (a
 * fetch: at the next poll). */
static void given_up(ks_consumer *c, ks_ctx *cx, const ks_request *q)
{
    ks_api api = q->api;
    uint32_t broker = q->server;
    if (api == KS_API_FETCH) {
        c->fetch_req[broker] = KS_REQ_NONE;
        for (uint32_t k = 0; k < c->nparts; k++)
            if (c->leader[k] == broker)
                c->fetching[k] = false;
        if (c->waiting) {
            c->waiting = false;
            after_processing(c, cx);
        }
    } else if (api == KS_API_OFFSET_COMMIT) {
        next_poll(c, cx); /* the commit failed; the next one carries the positions */
    } else if (api == KS_API_FIND_COORDINATOR) {
        find_coordinator(c, cx);
    } else if (api == KS_API_OFFSET_FETCH) {
        fetch_offsets(c, cx);
    } else if (api == KS_API_LIST_OFFSETS) {
        reset_offsets(c, cx);
    } else if (api == KS_API_METADATA) {
        ks_cons_md_given_up(c, cx);
    }
}

/* request.timeout.ms of the oldest request on a connection ran out: like
 * NetworkClient, the consumer closes the connection, and every request
 * on it is given up, oldest first. */
static void on_timeout(ks_consumer *c, ks_ctx *cx, uint32_t slot)
{
    ks_client_conn *cc = &c->cc[slot];
    ks_event t = ks_cons_timeout_timer(c, slot);
    if (!ks_client_on_timer(cc, &cx->sim, KS_CONS_REQUEST_TIMEOUT_NS, &t))
        return;
    uint32_t n = ks_client_close(cc, &cx->sim);
    ks_cons_trace_disconnect(c, cx, slot, n);
    ks_net_reconnect(cx->net, cc->conn);
    while (n-- > 0) {
        uint32_t id = ks_client_take(cc);
        given_up(c, cx, ks_req(&cx->reqs, id));
        ks_request_unref(&cx->reqs, id); /* the consumer's hold */
    }
    /* "we disconnected, so we should probably refresh our metadata"
     * ([K] NetworkClient.handleTimedOutRequests) */
    ks_cons_md_stale(c, cx);
}

/* ---- the node's operations ------------------------------------------------ */

/* Schedules the start at start.ms. */
static void start(void *self, ks_ctx *cx)
{
    ks_consumer *c = self;
    schedule(c, cx, c->conf->start_ns, KS_CONSUMER_START);
}

/* A new instance: everything but the results is as at the start. */
static void restart(void *self, ks_ctx *cx)
{
    ks_consumer *c = self;
    c->alive = true;
    c->restarts++;
    if (c->restart_forward_to >= 0)
        c->forward_to = c->restart_forward_to;
    c->restart_forward_to = -1;
    for (uint32_t k = 0; k < c->nparts; k++) {
        c->committed[k] = -1;
        c->buffered[k] = 0;
        c->fetching[k] = false;
    }
    for (uint32_t b = 0; b < c->brokers; b++)
        c->fetch_req[b] = KS_REQ_NONE;
    c->nbuf = c->buf_head = c->ncur = c->cursor = 0;
    c->waiting = c->processing = c->txn_waiting = false;
    ks_cons_md_start(c, cx);
    find_coordinator(c, cx);
    assert_consumer_invariants(c, cx);
}

static void on_event(ks_consumer *c, ks_ctx *cx, uint32_t tag, uint64_t arg)
{
    if (tag == KS_CONSUMER_TIMEOUT) {
        on_timeout(c, cx, (uint32_t)arg);
        return;
    }
    if (arg != c->generation || !c->alive)
        return; /* an event of an instance that crashed */
    switch (tag) {
    case KS_CONSUMER_START:
        ks_cons_md_start(c, cx);
        find_coordinator(c, cx);
        break;
    case KS_CONSUMER_METADATA:
        ks_cons_md_due(c, cx);
        break;
    case KS_CONSUMER_RETRY:
        fetch_offsets(c, cx);
        break;
    case KS_CONSUMER_POLL:
        on_poll(c, cx);
        break;
    case KS_CONSUMER_PROCESSED:
        on_processed(c, cx);
        break;
    default:
        break;
    }
}

static void on_timer(void *self, ks_ctx *cx, const ks_event *ev)
{
    ks_consumer *c = self;
    assert(ev->kind == KS_EV_CONSUMER && "an event a consumer never schedules");
    on_event(c, cx, ev->tag, ev->arg);
    assert_consumer_invariants(c, cx);
}

static void on_message(void *self, ks_ctx *cx, uint32_t msg, bool answer)
{
    assert(answer && "a consumer serves no request");
    (void)answer;
    ks_consumer_on_response(self, cx, msg);
}

/* Its process dies: what it had fetched or sent is gone; a restart (the
 * world's, restart_ns) is a new instance forwarding to forward_to (-1:
 * the same producer). */
static void crash(void *self, ks_ctx *cx, ks_time restart_ns, int32_t forward_to)
{
    ks_consumer *c = self;
    (void)restart_ns;
    if (!c->alive)
        return; /* already dead: there is no process to kill */
    c->alive = false;
    c->generation++;
    c->crashes++;
    if (c->md_timer != KS_HANDLE_NONE)
        ks_sim_cancel(&cx->sim, c->md_timer);
    c->md_timer = KS_HANDLE_NONE;
    c->md_in_flight = false;
    enter(c, KS_CONS_IDLE);
    c->waiting = c->processing = c->txn_waiting = false;
    c->nbuf = c->buf_head = c->ncur = c->cursor = 0;
    /* its connections die with it, and what it had in flight: a new
     * instance opens new ones */
    for (uint32_t slot = 0; slot < c->ncc; slot++) {
        ks_client_conn *cc = &c->cc[slot];
        if (cc->conn == KS_CLIENT_NONE)
            continue;
        ks_client_close(cc, &cx->sim);
        for (uint32_t id; (id = ks_client_take(cc)) != KS_CLIENT_NONE;)
            ks_request_unref(&cx->reqs, id); /* the consumer's hold */
        cc->conn = ks_net_reopen(cx->net, c->node, slot / KS_CHAN__COUNT, slot % KS_CHAN__COUNT);
    }
    c->restart_forward_to = forward_to;
    assert_consumer_invariants(c, cx);
}

const ks_node_ops ks_consumer_ops = {
    .kind = "consumer",
    .client_key = "consumer",
    .start = start,
    .on_message = on_message,
    .on_timer = on_timer,
    .crash = crash,
    .restart = restart,
};
