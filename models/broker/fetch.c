/*
 * fetch.c - Fetch, its purgatory, and ListOffsets at a partition leader
 * (see fetch.h).
 */
#include "models/broker/fetch.h"

#include "models/world.h"

#include <stdlib.h>
#include <string.h>

static void out_of_memory(ks_world *w)
{
    w->out_of_memory = true;
    ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
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
static uint32_t response_size(const ks_world *w, const ks_request *q, uint64_t bytes)
{
    const char *topic = q->first != KS_REQ_NONE
                            ? w->sc->topics[w->partitions[ks_req_entry(&w->reqs, q->first)->partition].topic].name
                            : "";
    uint64_t n = 30u + strlen(topic) + 44u * q->batches + bytes;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* Reads every partition of the fetch from its offset, up to max_records
 * in all. Each entry's base_offset becomes the partition's next fetch
 * offset, its records the records returned. Returns the number read, or
 * UINT32_MAX when out of memory. */
static uint32_t read_fetch(ks_world *w, ks_request *q)
{
    uint32_t room = q->max_records, total = 0;
    uint64_t bytes = 0;
    free(q->fetched);
    q->fetched = room ? malloc(room * sizeof *q->fetched) : NULL;
    if (room && !q->fetched)
        return UINT32_MAX;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&w->reqs, e);
        const ks_plog *l = w->partitions[rb->partition].log;
        int64_t from = rb->base_offset, next = from;
        uint32_t n = 0;
        rb->records = 0;
        if (room > 0 && from < limit_of(l, q->read_committed))
            n = ks_plog_fetch(l, from, q->read_committed ? KS_READ_COMMITTED : KS_READ_UNCOMMITTED,
                              room, q->fetched + total, &next);
        for (uint32_t i = 0; i < n; i++)
            bytes += q->fetched[total + i].bytes;
        rb->records = n;
        rb->raw = (uint64_t)next; /* the next fetch offset, until answered */
        rb->error = KS_KERR_NONE;
        total += n;
        room -= n;
    }
    q->nfetched = total;
    q->response_bytes = response_size(w, q, bytes);
    return total;
}

/* The answer takes each entry's next offset as its base_offset. */
static void settle(ks_world *w, ks_request *q)
{
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next)
        ks_req_entry(&w->reqs, e)->base_offset = (int64_t)ks_req_entry(&w->reqs, e)->raw;
}

/* Did the read move any partition's offset (records, or markers and
 * aborted data skipped)? */
static bool moved(const ks_world *w, const ks_request *q)
{
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next)
        if ((int64_t)ks_req_entry(&w->reqs, e)->raw != ks_req_entry(&w->reqs, e)->base_offset)
            return true;
    return false;
}

static bool park(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_broker *b = &w->brokers[broker];
    if (b->nparked == b->parked_cap) {
        uint32_t cap = b->parked_cap ? b->parked_cap * 2u : 8u;
        uint32_t *a = realloc(b->parked, cap * sizeof *a);
        if (!a)
            return false;
        b->parked = a;
        b->parked_cap = cap;
    }
    b->parked[b->nparked++] = id;
    ks_request *q = ks_req(&w->reqs, id);
    q->parked = true;
    q->refs++; /* the deadline's hold */
    ks_event ev = {.kind = KS_EV_BROKER, .owner = broker, .tag = KS_BROKER_FETCH_TIMEOUT,
                   .arg = id};
    ks_sim_schedule_daemon(&w->sim, ks_time_add(ks_sim_now(&w->sim), q->max_wait_ns), &ev);
    return true;
}

static void unpark(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_broker *b = &w->brokers[broker];
    for (uint32_t i = 0; i < b->nparked; i++) {
        if (b->parked[i] == id) {
            memmove(&b->parked[i], &b->parked[i + 1], (b->nparked - i - 1) * sizeof *b->parked);
            b->nparked--;
            break;
        }
    }
    ks_req(&w->reqs, id)->parked = false;
}

bool ks_fetch_handle(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_request *q = ks_req(&w->reqs, id);
    uint32_t n = read_fetch(w, q);
    if (n == UINT32_MAX) {
        out_of_memory(w);
        return true;
    }
    q->error = KS_KERR_NONE;
    if (n > 0 || moved(w, q) || q->max_wait_ns <= 0) {
        settle(w, q);
        return true;
    }
    if (!park(w, broker, id)) {
        out_of_memory(w);
        settle(w, q);
        return true;
    }
    return false;
}

void ks_fetch_wake(ks_world *w, uint32_t broker, uint32_t partition)
{
    ks_broker *b = &w->brokers[broker];
    for (uint32_t i = 0; i < b->nparked;) {
        uint32_t id = b->parked[i];
        ks_request *q = ks_req(&w->reqs, id);
        bool mine = false;
        for (uint32_t e = q->first; e != KS_REQ_NONE && !mine; e = ks_req_entry(&w->reqs, e)->next)
            mine = ks_req_entry(&w->reqs, e)->partition == partition;
        uint32_t n = mine ? read_fetch(w, q) : 0;
        if (n == UINT32_MAX) {
            out_of_memory(w);
            return;
        }
        if (!mine || (n == 0 && !moved(w, q))) {
            i++;
            continue;
        }
        unpark(w, broker, id);
        settle(w, q);
        ks_broker_respond(w, broker, id);
    }
}

void ks_fetch_on_timeout(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_request *q = ks_req(&w->reqs, id);
    if (q->parked) {
        unpark(w, broker, id);
        settle(w, q);
        ks_broker_respond(w, broker, id);
    }
    ks_request_unref(&w->reqs, id); /* the deadline's hold */
}

bool ks_fetch_list_offsets(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_request *q = ks_req(&w->reqs, id);
    (void)broker;
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&w->reqs, e);
        const ks_plog *l = w->partitions[rb->partition].log;
        rb->base_offset = rb->base_offset == -2 ? 0 : limit_of(l, q->read_committed);
        rb->error = KS_KERR_NONE;
    }
    q->error = KS_KERR_NONE;
    q->response_bytes = 30u + 28u * q->batches;
    return true;
}
