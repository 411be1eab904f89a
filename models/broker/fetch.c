/*
 * fetch.c - Fetch, its purgatory, and ListOffsets at a partition leader
 * (see fetch.h).
 */
#include "models/broker/fetch.h"

#include "models/events.h"

#include <stdlib.h>
#include <string.h>

void ks_fetches_init(ks_fetches *f, ks_bio *io, const ks_replicas *replicas, const ks_meta *meta)
{
    memset(f, 0, sizeof *f);
    f->io = io;
    f->replicas = replicas;
    f->meta = meta;
}

void ks_fetches_free(ks_fetches *f)
{
    free(f->parked);
    f->parked = NULL;
    f->nparked = f->parked_cap = 0;
}

/* How far a fetch of this isolation may read in l. */
static int64_t limit_of(const ks_plog *l, bool read_committed)
{
    return read_committed ? ks_plog_lso(l) : l->hw;
}

/* FetchResponse v12 for one topic: header, then per partition index,
 * error, high watermark, last stable offset, log start offset, aborted
 * transactions, records ([K] FetchResponse.json); the records' bytes as
 * stored. */
static uint32_t response_size(const ks_fetches *f, const ks_ctx *cx, const ks_request *q,
                              uint64_t bytes)
{
    const char *topic =
        q->first != KS_REQ_NONE
            ? cx->sc->topics[ks_meta_topic_of(f->meta, ks_req_entry(&cx->reqs, q->first)->partition)]
                  .name
            : "";
    uint64_t n = 30u + strlen(topic) + 44u * q->batches + bytes;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* Reads every partition of the fetch from its offset, up to max_records
 * in all. Each entry's base_offset becomes the partition's next fetch
 * offset, its records the records returned. Returns the number read, or
 * UINT32_MAX when out of memory. */
static uint32_t read_fetch(const ks_fetches *f, ks_ctx *cx, ks_request *q)
{
    uint32_t room = q->max_records, total = 0;
    uint64_t bytes = 0;
    free(q->fetched);
    q->fetched = room ? malloc(room * sizeof *q->fetched) : NULL;
    if (room && !q->fetched)
        return UINT32_MAX;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        const ks_replica *r = ks_replicas_of(f->replicas, rb->partition);
        const ks_plog *l = r ? r->log : NULL;
        int64_t from = rb->base_offset, next = from;
        uint32_t n = 0;
        rb->records = 0;
        if (l && room > 0 && from < limit_of(l, q->read_committed))
            n = ks_plog_fetch(l, from, q->read_committed ? KS_READ_COMMITTED : KS_READ_UNCOMMITTED,
                              room, q->fetched + total, &next);
        for (uint32_t i = 0; i < n; i++)
            bytes += q->fetched[total + i].bytes;
        rb->records = n;
        rb->raw = (uint64_t)next; /* the next fetch offset, until answered */
        rb->error = l ? KS_KERR_NONE : KS_KERR_NOT_LEADER_OR_FOLLOWER;
        total += n;
        room -= n;
    }
    q->nfetched = total;
    q->response_bytes = response_size(f, cx, q, bytes);
    return total;
}

/* The answer takes each entry's next offset as its base_offset. */
static void settle(ks_ctx *cx, ks_request *q)
{
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next)
        ks_req_entry(&cx->reqs, e)->base_offset = (int64_t)ks_req_entry(&cx->reqs, e)->raw;
}

/* Did the read move any partition's offset (records, or markers and
 * aborted data skipped), or find a partition it cannot read here? Then it
 * is answered now. */
static bool moved(const ks_ctx *cx, const ks_request *q)
{
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        const ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        if ((int64_t)rb->raw != rb->base_offset || rb->error != KS_KERR_NONE)
            return true;
    }
    return false;
}

static bool park(ks_fetches *b, ks_ctx *cx, uint32_t id)
{
    if (b->nparked == b->parked_cap) {
        uint32_t cap = b->parked_cap ? b->parked_cap * 2u : 8u;
        uint32_t *a = realloc(b->parked, cap * sizeof *a);
        if (!a)
            return false;
        b->parked = a;
        b->parked_cap = cap;
    }
    b->parked[b->nparked++] = id;
    ks_request *q = ks_req(&cx->reqs, id);
    q->parked = true;
    q->refs++; /* the deadline's hold */
    ks_event ev = {.kind = KS_EV_BROKER, .owner = b->io->broker, .tag = KS_BROKER_FETCH_TIMEOUT,
                   .arg = id};
    ks_sim_schedule_daemon(&cx->sim, ks_time_add(ks_sim_now(&cx->sim), q->max_wait_ns), &ev);
    return true;
}

static void unpark(ks_fetches *b, ks_ctx *cx, uint32_t id)
{
    for (uint32_t i = 0; i < b->nparked; i++) {
        if (b->parked[i] == id) {
            memmove(&b->parked[i], &b->parked[i + 1], (b->nparked - i - 1) * sizeof *b->parked);
            b->nparked--;
            break;
        }
    }
    ks_req(&cx->reqs, id)->parked = false;
}

bool ks_fetch_handle(ks_fetches *f, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    uint32_t n = read_fetch(f, cx, q);
    if (n == UINT32_MAX) {
        ks_ctx_oom(cx);
        return true;
    }
    q->error = KS_KERR_NONE;
    if (n > 0 || moved(cx, q) || q->max_wait_ns <= 0) {
        settle(cx, q);
        return true;
    }
    if (!park(f, cx, id)) {
        ks_ctx_oom(cx);
        settle(cx, q);
        return true;
    }
    return false;
}

void ks_fetch_wake(ks_fetches *f, ks_ctx *cx, uint32_t partition)
{
    ks_fetches *b = f;
    for (uint32_t i = 0; i < b->nparked;) {
        uint32_t id = b->parked[i];
        ks_request *q = ks_req(&cx->reqs, id);
        bool mine = false;
        for (uint32_t e = q->first; e != KS_REQ_NONE && !mine; e = ks_req_entry(&cx->reqs, e)->next)
            mine = ks_req_entry(&cx->reqs, e)->partition == partition;
        uint32_t n = mine ? read_fetch(f, cx, q) : 0;
        if (n == UINT32_MAX) {
            ks_ctx_oom(cx);
            return;
        }
        if (!mine || (n == 0 && !moved(cx, q))) {
            i++;
            continue;
        }
        unpark(f, cx, id);
        settle(cx, q);
        ks_bio_respond(f->io, cx, id);
    }
}

void ks_fetch_on_timeout(ks_fetches *f, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    if (q->parked) {
        unpark(f, cx, id);
        settle(cx, q);
        ks_bio_respond(f->io, cx, id);
    }
    ks_request_unref(&cx->reqs, id); /* the deadline's hold */
}

bool ks_fetch_list_offsets(ks_fetches *f, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        const ks_replica *r = ks_replicas_of(f->replicas, rb->partition);
        if (!r || !r->log) {
            rb->error = KS_KERR_NOT_LEADER_OR_FOLLOWER;
            continue;
        }
        rb->base_offset = rb->base_offset == -2 ? 0 : limit_of(r->log, q->read_committed);
        rb->error = KS_KERR_NONE;
    }
    q->error = KS_KERR_NONE;
    q->response_bytes = 30u + 28u * q->batches;
    return true;
}
