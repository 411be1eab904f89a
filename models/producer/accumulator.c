/*
 * accumulator.c - the RecordAccumulator (see accumulator.h, which also
 * draws a batch's lifecycle: FREE -> QUEUED -> IN_FLIGHT -> QUEUED
 * (retrying) ... -> FREE). Every change of a batch's state goes through
 * batch_set_state, which refuses an illegal move and, in debug builds,
 * checks the batch and the ends of its deque after it.
 */
#include "models/producer/accumulator.h"

#include "models/producer/codec.h"
#include "sim/compiler.h"
#include "sim/fsm.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---- The batch lifecycle ------------------------------------------------ */

KS_FSM_TABLES(KS_BATCH_STATES, KS_BATCH__COUNT, batch_predecessors, batch_state_names);

const char *ks_batch_state_name(ks_batch_state s)
{
    return ks_fsm_name(batch_state_names, KS_BATCH__COUNT, (unsigned)s);
}

bool ks_batch_legal(ks_batch_state from, ks_batch_state to)
{
    return ks_fsm_legal(batch_predecessors, KS_BATCH__COUNT, (unsigned)from, (unsigned)to);
}

bool ks_acc_batch_invariants(const ks_acc *a, uint32_t bid)
{
    if (bid >= a->batch_cap)
        return false;
    const ks_batch *b = &a->batches[bid];
    if (b->seq_reset && !b->has_seq)
        return false;
    switch ((ks_batch_state)b->state) {
    case KS_BATCH_FREE:
        return true; /* its fields are what it last held */
    case KS_BATCH_QUEUED:
    case KS_BATCH_IN_FLIGHT:
        break;
    case KS_BATCH__COUNT:
    default:
        return false;
    }
    /* a live batch has records, memory and its partition's deque */
    if (b->records == 0 || b->rec_head == KS_NONE || b->rec_tail == KS_NONE ||
        b->partition >= a->partitions || !a->dq[b->partition].exists ||
        b->alloc_bytes > a->memory_used || (b->has_seq && b->base_seq < 0))
        return false;
    bool drained_before = b->state == KS_BATCH_IN_FLIGHT || b->attempts > 0;
    if (drained_before && (!b->closed || b->drained_ns < b->created_ns))
        return false; /* drain closes a batch for appends, for good */
    return true;
}

/* Walks partition part's deque: every batch QUEUED and of part, the
 * chain `size` long and ending at the tail. */
static bool deque_consistent(const ks_acc *a, uint32_t part, uint32_t *queued)
{
    const ks_deque *d = &a->dq[part];
    uint32_t n = 0, last = KS_NONE;
    for (uint32_t bid = d->head; bid != KS_NONE; bid = a->batches[bid].next) {
        const ks_batch *b = &a->batches[bid];
        if (bid >= a->batch_cap || b->state != KS_BATCH_QUEUED || b->partition != part ||
            n++ > a->batch_cap)
            return false;
        last = bid;
    }
    *queued += n;
    return n == d->size && last == d->tail && (d->head == KS_NONE) == (d->tail == KS_NONE);
}

#ifndef NDEBUG
/* The constant-time part of deque_consistent, asserted after each move
 * (the whole walk, ks_acc_invariants, would make a run quadratic in its
 * batches): the deque's ends agree with its size, and the batches at
 * them are QUEUED batches of the partition, the tail last. */
static bool deque_ends(const ks_acc *a, uint32_t part)
{
    const ks_deque *d = &a->dq[part];
    if ((d->head == KS_NONE) != (d->tail == KS_NONE) || (d->head == KS_NONE) != (d->size == 0))
        return false;
    if (d->head == KS_NONE)
        return true;
    const ks_batch *h = &a->batches[d->head], *t = &a->batches[d->tail];
    return h->state == KS_BATCH_QUEUED && t->state == KS_BATCH_QUEUED && h->partition == part &&
           t->partition == part && t->next == KS_NONE;
}
#endif

static void head_keys(const ks_acc *a, uint32_t p, ks_time *ready, ks_time *exhausted);

/* The ready index holds what each partition's head says. */
static bool index_consistent(const ks_acc *a)
{
    for (uint32_t p = 0; p < a->ri.partitions; p++) {
        ks_time ready, exhausted;
        head_keys(a, p, &ready, &exhausted);
        if (!ks_ri_holds(&a->ri, p, ready, exhausted, a->dq[p].head != KS_NONE))
            return false;
    }
    return ks_ri_consistent(&a->ri);
}

bool ks_acc_invariants(const ks_acc *a)
{
    uint32_t live = 0, queued = 0, queued_in_deques = 0;
    uint64_t memory = 0;
    for (uint32_t bid = 0; bid < a->batch_cap; bid++) {
        const ks_batch *b = &a->batches[bid];
        if (!ks_acc_batch_invariants(a, bid))
            return false;
        if (b->state == KS_BATCH_FREE)
            continue;
        live++;
        queued += b->state == KS_BATCH_QUEUED;
        memory += b->alloc_bytes;
    }
    for (uint32_t part = 0; part < a->partitions; part++)
        if (!deque_consistent(a, part, &queued_in_deques))
            return false;
    /* (a QUEUED batch may be out of its deque for a moment: taken out
     * for its caller to release) */
    return live == a->batches_live && memory <= a->memory_used && queued_in_deques <= queued &&
           index_consistent(a);
}

/* The one transition of a batch's lifecycle. An illegal move is a ksim
 * bug. In debug builds the batch's invariants are checked after the
 * move, and the ends of the deque it joins by the caller; the whole
 * accumulator (ks_acc_invariants, linear) only by the unit tests. */
static void batch_set_state(ks_acc *a, uint32_t bid, ks_batch_state to)
{
    ks_batch *b = &a->batches[bid];
    bool legal = ks_batch_legal((ks_batch_state)b->state, to);
    assert(legal && "illegal batch transition");
    if (!legal)
        return;
    b->state = (uint8_t)to;
    assert(ks_acc_batch_invariants(a, bid));
}

bool ks_acc_init(ks_acc *a, uint32_t partitions, uint32_t brokers, int64_t batch_size,
                 ks_time linger_ns, uint64_t buffer_memory)
{
    memset(a, 0, sizeof *a);
    a->partitions = partitions;
    a->brokers = brokers;
    a->batch_size = batch_size;
    a->linger_ns = linger_ns;
    a->memory_total = buffer_memory;
    a->batch_free = a->rec_free = KS_NONE;
    a->est_ratio = 1.0;
    a->dq = calloc(partitions, sizeof *a->dq);
    a->drain_index = calloc(brokers, sizeof *a->drain_index);
    if (!a->dq || !a->drain_index) {
        ks_acc_free(a);
        return false;
    }
    for (uint32_t p = 0; p < partitions; p++)
        a->dq[p].head = a->dq[p].tail = KS_NONE;
    return true;
}

void ks_acc_free(ks_acc *a)
{
    ks_ri_free(&a->ri);
    ks_li_free(&a->li);
    free(a->dq);
    free(a->drain_index);
    free(a->batches);
    free(a->recs);
    memset(a, 0, sizeof *a);
}

/* Bytes of a zig-zag varint ([K] common/utils/ByteUtils.sizeOfVarint and
 * sizeOfVarlong). */
static inline uint32_t varint_size(int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    uint32_t n = 1;
    while (z >= 0x80u) {
        z >>= 7;
        n++;
    }
    return n;
}

/* The part of a record's body that depends on its key and value only:
 * attributes, key length and key, value length and value, header count. */
static uint32_t record_fixed(int64_t key_len, uint32_t value_len)
{
    return 1u /* attributes */ + varint_size(key_len < 0 ? -1 : key_len) +
           (key_len < 0 ? 0u : (uint32_t)key_len) + varint_size(value_len) + value_len +
           varint_size(0) /* header count */;
}

/* DefaultRecord.sizeInBytes: the body's length varint, then the body. */
static inline uint32_t record_size(uint32_t fixed, uint32_t offset_delta, int64_t timestamp_delta)
{
    uint32_t body = fixed + varint_size(timestamp_delta) + varint_size(offset_delta);
    return varint_size(body) + body;
}

uint32_t ks_record_size_v2(int64_t key_len, uint32_t value_len, uint32_t offset_delta,
                           int64_t timestamp_delta)
{
    return record_size(record_fixed(key_len, value_len), offset_delta, timestamp_delta);
}

uint32_t ks_record_upper_bound(int64_t key_len, uint32_t value_len)
{
    /* MAX_RECORD_OVERHEAD = 21: attributes 1, timestamp delta 10, offset
     * delta 5, size 5 ([K] DefaultRecord.java); record_fixed counts the
     * attributes' byte already. */
    return KS_BATCH_OVERHEAD + 20u + record_fixed(key_len, value_len);
}

/* record_fixed, kept for the last key and value lengths seen: records of
 * a workload mostly repeat them. */
static inline uint32_t cached_fixed(ks_acc *a, int64_t key_len, uint32_t value_len)
{
    if (!a->size_cached || key_len != a->size_key_len || value_len != a->size_value_len) {
        a->size_cached = true;
        a->size_key_len = key_len;
        a->size_value_len = value_len;
        a->size_fixed = record_fixed(key_len, value_len);
    }
    return a->size_fixed;
}

uint32_t ks_acc_upper_bound(ks_acc *a, int64_t key_len, uint32_t value_len)
{
    return KS_BATCH_OVERHEAD + 20u + cached_fixed(a, key_len, value_len);
}

void ks_acc_set_compression(ks_acc *a, const ks_compression_conf *c)
{
    a->compressed = true;
    a->codec = *c;
    a->est_ratio = 1.0; /* CompressionRatioEstimator's initial value */
}

void ks_acc_set_shared_drain_index(ks_acc *a, bool shared)
{
    a->shared_drain_index = shared;
}

/* MemoryRecordsBuilder.estimatedBytesWritten, with the ratio estimate the
 * batch was created with (ProducerBatch takes a snapshot). */
static uint32_t estimated_bytes(const ks_acc *a, const ks_batch *b)
{
    if (!a->compressed) /* the same sum as the double's below, in integers */
        return b->raw >= UINT32_MAX - KS_BATCH_OVERHEAD ? UINT32_MAX
                                                       : (uint32_t)b->raw + KS_BATCH_OVERHEAD;
    double est = (double)b->raw * b->est_ratio * 1.05; /* 1.05: ESTIMATION_FACTOR */
    est += KS_BATCH_OVERHEAD;
    return est >= 4294967295.0 ? UINT32_MAX : (uint32_t)est;
}

bool ks_batch_is_full(const ks_batch *b)
{
    return b->closed || (b->records > 0 && b->write_limit <= b->bytes);
}

bool ks_acc_all_full(const ks_acc *a, uint32_t partition)
{
    uint32_t last = a->dq[partition].tail;
    return last == KS_NONE || ks_batch_is_full(&a->batches[last]);
}

/* Tells the ready index what partition p's head now is: ready from when
 * (RecordAccumulator.batchReady), and from when if memory is exhausted. A
 * retried head is closed, so full: only its backoff holds it. */
static void head_keys(const ks_acc *a, uint32_t p, ks_time *ready, ks_time *exhausted)
{
    const ks_deque *d = &a->dq[p];
    *ready = *exhausted = KS_TIME_MAX;
    if (d->head == KS_NONE || d->muted)
        return;
    const ks_batch *b = &a->batches[d->head];
    if (b->attempts > 0) {
        *ready = *exhausted = b->retry_at_ns;
    } else {
        *exhausted = INT64_MIN;
        *ready = d->size > 1 || ks_batch_is_full(b) ? INT64_MIN
                                                    : ks_time_add(b->created_ns, a->linger_ns);
    }
}

static void refresh(ks_acc *a, uint32_t p)
{
    if (p >= a->ri.partitions)
        return; /* not known to the index yet: it has no batch */
    ks_time ready, exhausted;
    head_keys(a, p, &ready, &exhausted);
    ks_ri_set(&a->ri, p, ready, exhausted, a->dq[p].head != KS_NONE);
}

bool ks_acc_set_leaders(ks_acc *a, const uint32_t *leader)
{
    if (!ks_ri_build(&a->ri, a->partitions, a->brokers, leader))
        return false;
    for (uint32_t p = 0; p < a->partitions; p++)
        if (a->dq[p].head != KS_NONE)
            refresh(a, p);
    return true;
}

bool ks_acc_track_loads(ks_acc *a, uint32_t capacity)
{
    if (!ks_li_init(&a->li, capacity))
        return false;
    for (uint32_t p = 0; p < a->partitions && p < capacity; p++)
        if (a->dq[p].exists)
            ks_li_touch(&a->li, p);
    return true;
}

static uint32_t queue_len(const void *ctx, uint32_t p, bool *has)
{
    const ks_deque *d = &((const ks_acc *)ctx)->dq[p];
    *has = d->exists;
    return d->size;
}

const ks_load_index *ks_acc_load_snapshot(ks_acc *a)
{
    return ks_li_snapshot(&a->li, queue_len, a) ? &a->li : NULL;
}

void ks_acc_mute(ks_acc *a, uint32_t partition, bool muted)
{
    a->dq[partition].muted = muted;
    refresh(a, partition);
}

/* A pool's next capacity: double, from `first`; 0 when it cannot grow
 * (past KS_NONE, which marks the end of a free list). */
static uint32_t doubled(uint32_t cap, uint32_t first)
{
    uint32_t next = cap ? cap * 2u : first;
    return next <= cap || next == KS_NONE ? 0u : next;
}

/* Doubles the record slots, threading the new ones onto the free list;
 * false when they cannot grow. Out of line: alloc_rec runs per record. */
static KS_OUTLINE bool grow_recs(ks_acc *a)
{
    uint32_t cap = doubled(a->rec_cap, 256u);
    ks_rec *r = cap ? realloc(a->recs, (size_t)cap * sizeof *r) : NULL;
    if (!r)
        return false;
    for (uint32_t i = cap; i-- > a->rec_cap;) {
        r[i].next = a->rec_free;
        a->rec_free = i;
    }
    a->recs = r;
    a->rec_cap = cap;
    return true;
}

static uint32_t alloc_rec(ks_acc *a)
{
    if (a->rec_free == KS_NONE && !grow_recs(a))
        return KS_NONE;
    uint32_t id = a->rec_free;
    a->rec_free = a->recs[id].next;
    return id;
}

/* The same for batches, which start zeroed and FREE. */
static KS_OUTLINE bool grow_batches(ks_acc *a)
{
    uint32_t cap = doubled(a->batch_cap, 64u);
    ks_batch *b = cap ? realloc(a->batches, (size_t)cap * sizeof *b) : NULL;
    if (!b)
        return false;
    memset(b + a->batch_cap, 0, (size_t)(cap - a->batch_cap) * sizeof *b);
    for (uint32_t i = cap; i-- > a->batch_cap;) {
        b[i].state = KS_BATCH_FREE;
        b[i].next = a->batch_free;
        a->batch_free = i;
    }
    a->batches = b;
    a->batch_cap = cap;
    return true;
}

static uint32_t alloc_batch(ks_acc *a)
{
    if (a->batch_free == KS_NONE && !grow_batches(a))
        return KS_NONE;
    uint32_t id = a->batch_free;
    a->batch_free = a->batches[id].next;
    a->batches_live++;
    return id;
}

/* Appends a record to batch b if it has room (ProducerBatch.tryAppend,
 * MemoryRecordsBuilder.hasRoomFor). Returns the bytes added, 0 if none. */
static KS_INLINE uint32_t batch_append(ks_acc *a, uint32_t bid, uint64_t record, ks_time send_ns,
                             int64_t key_len, uint32_t value_len, uint32_t rec_slot)
{
    ks_batch *b = &a->batches[bid];
    int64_t ts_ms = send_ns / KS_NS_PER_MS;
    if (b->records == 0)
        b->base_ts_ms = ts_ms;
    uint32_t size = record_size(cached_fixed(a, key_len, value_len), b->records,
                                ts_ms - b->base_ts_ms);
    /* hasRoomFor: the new record counts uncompressed ("be conservative") */
    if (ks_batch_is_full(b) ||
        (b->records > 0 && (uint64_t)b->bytes + size > b->write_limit))
        return 0;
    ks_rec *r = &a->recs[rec_slot];
    r->id = record;
    r->produced_ns = send_ns;
    r->next = KS_NONE;
    r->bytes = value_len + (key_len > 0 ? (uint32_t)key_len : 0u);
    assert(key_len <= INT32_MAX);
    r->key_len = key_len < 0 ? -1 : (int32_t)key_len;
    if (b->rec_tail == KS_NONE)
        b->rec_head = rec_slot;
    else
        a->recs[b->rec_tail].next = rec_slot;
    b->rec_tail = rec_slot;
    b->records++;
    b->raw += size;
    b->bytes = estimated_bytes(a, b);
    return size;
}

ks_append_result ks_acc_try_append(ks_acc *a, uint32_t partition, uint64_t record,
                                   ks_time send_ns, int64_t key_len, uint32_t value_len)
{
    ks_append_result res = {KS_APPEND_NEW_BATCH, false, false, 0};
    ks_deque *d = &a->dq[partition];
    if (d->tail == KS_NONE)
        return res;
    uint32_t slot = alloc_rec(a);
    if (slot == KS_NONE)
        return res; /* treated as "no room"; the new batch path reports OOM */
    ks_batch *b = &a->batches[d->tail];
    uint32_t bytes_before = b->bytes;
    if (batch_append(a, d->tail, record, send_ns, key_len, value_len, slot) == 0) {
        b->closed = true; /* closeForRecordAppends */
        a->recs[slot].next = a->rec_free;
        a->rec_free = slot;
        if (d->head == d->tail)
            refresh(a, partition); /* the head is full now */
        return res;
    }
    res.status = KS_APPEND_OK;
    res.appended = (int64_t)b->bytes - (int64_t)bytes_before;
    bool full = ks_batch_is_full(b);
    res.batch_is_full = d->size > 1 || full;
    /* the batch took the record, so it was not full: its readiness moves
     * only if it is now (once per batch, not per record) */
    if (d->head == d->tail && full)
        refresh(a, partition);
    return res;
}

bool ks_acc_reserve(ks_acc *a, uint32_t bytes)
{
    if (a->memory_used + bytes > a->memory_total)
        return false;
    a->memory_used += bytes;
    if (a->memory_used > a->memory_used_max)
        a->memory_used_max = a->memory_used;
    return true;
}

bool ks_acc_new_batch(ks_acc *a, uint32_t partition, uint64_t record, ks_time send_ns,
                      ks_time now, int64_t key_len, uint32_t value_len, uint32_t alloc,
                      ks_append_result *res)
{
    uint32_t bid = alloc_batch(a);
    uint32_t slot = bid == KS_NONE ? KS_NONE : alloc_rec(a);
    if (slot == KS_NONE)
        return false;
    ks_batch *b = &a->batches[bid];
    memset(b, 0, sizeof *b);
    b->id = a->next_batch_id++;
    b->partition = partition;
    b->bytes = KS_BATCH_OVERHEAD;
    b->write_limit = alloc;
    b->alloc_bytes = alloc;
    b->created_ns = now;
    b->rec_head = b->rec_tail = KS_NONE;
    b->next = KS_NONE;
    b->est_ratio = a->est_ratio;
    batch_append(a, bid, record, send_ns, key_len, value_len, slot);
    assert(b->records == 1); /* an empty batch takes any record */
    ks_deque *d = &a->dq[partition];
    if (!d->exists) {
        d->exists = true;
        a->deques++;
    }
    if (d->tail == KS_NONE)
        d->head = bid;
    else
        a->batches[d->tail].next = bid;
    d->tail = bid;
    d->size++;
    batch_set_state(a, bid, KS_BATCH_QUEUED);
    assert(deque_ends(a, partition));
    if (d->size <= 2)
        refresh(a, partition); /* a new head, or a head no longer alone */
    ks_li_touch(&a->li, partition);
    res->status = KS_APPEND_OK;
    res->new_batch = true;
    res->appended = b->bytes; /* estimatedSizeInBytes of the new batch */
    res->batch_is_full = d->size > 1 || ks_batch_is_full(b);
    return true;
}

void ks_acc_ready(ks_acc *a, ks_time now, bool exhausted, ks_ready *r)
{
    r->next_check_ns = KS_TIME_MAX;
    r->queue_len = 0;
    for (uint32_t b = 0; b < a->brokers; b++)
        r->node_ready[b] = ks_ri_ready(&a->ri, b, now, exhausted, &r->next_check_ns);
}

void ks_acc_queue_sizes(const ks_acc *a, ks_ready *r)
{
    r->queue_len = 0;
    for (uint32_t p = 0; p < a->partitions; p++) {
        const ks_deque *d = &a->dq[p];
        if (!d->exists)
            continue;
        r->queue[r->queue_len] = d->size;
        r->queue_ids[r->queue_len] = p;
        r->queue_len++;
    }
}

/* Appends batch bid to the chain first..*last (linked by ks_batch.next). */
static void chain_add(ks_acc *a, uint32_t *first, uint32_t *last, uint32_t bid)
{
    if (*last == KS_NONE)
        *first = bid;
    else
        a->batches[*last].next = bid;
    *last = bid;
}

/* A closed compressed batch's ratio as Kafka's MemoryRecordsBuilder.close
 * computes it: the whole batch, header included, over its uncompressed
 * record bytes. */
static double batch_ratio(const ks_batch *b)
{
    return b->raw == 0 ? 1.0 : (double)b->bytes / (double)b->raw;
}

/* ProducerBatch.close with compression: the batch's actual size, from the
 * codec's size model, and the running estimate moved towards the
 * observed ratio (Kafka's CompressionRatioEstimator.updateEstimation). */
static void close_compressed(ks_acc *a, ks_batch *b)
{
    uint64_t actual = KS_BATCH_OVERHEAD + ks_codec_compressed_bytes(&a->codec, b->raw);
    b->bytes = actual >= UINT32_MAX ? UINT32_MAX : (uint32_t)actual;
    a->compressed_batches++;
    a->compressed_raw_bytes += b->raw;
    a->compressed_bytes += b->bytes;
    double observed = batch_ratio(b);
    if (observed > a->est_ratio)
        a->est_ratio = a->est_ratio + 0.05 > observed ? a->est_ratio + 0.05 : observed;
    else if (observed < a->est_ratio)
        a->est_ratio = a->est_ratio - 0.005 > observed ? a->est_ratio - 0.005 : observed;
}

/* Takes partition p's head batch into the chain first..*last. */
static uint32_t drain_head(ks_acc *a, uint32_t p, ks_time now, uint32_t *first, uint32_t *last)
{
    ks_deque *d = &a->dq[p];
    uint32_t bid = d->head;
    ks_batch *b = &a->batches[bid];
    b->was_full = d->size > 1 || ks_batch_is_full(b);
    d->head = b->next;
    if (d->head == KS_NONE)
        d->tail = KS_NONE;
    d->size--;
    bool first_drain = b->attempts == 0;
    b->closed = true;
    b->drained_ns = now;
    batch_set_state(a, bid, KS_BATCH_IN_FLIGHT);
    if (a->compressed && first_drain)
        close_compressed(a, b);
    b->next = KS_NONE;
    chain_add(a, first, last, bid);
    refresh(a, p);
    ks_li_touch(&a->li, p);
    return b->bytes;
}

uint32_t ks_acc_drain(ks_acc *a, uint32_t broker, uint32_t max_request_size, ks_time now,
                      ks_acc_may_drain may, void *ctx, uint32_t *count, uint64_t *bytes)
{
    uint32_t first = KS_NONE, last = KS_NONE, n = ks_ri_count(&a->ri, broker);
    uint64_t size = 0;
    *count = 0;
    *bytes = 0;
    if (n == 0)
        return KS_NONE;
    /* From 3.3 each broker has its own index, stored as the partition being
     * looked at before moving on, so a full round leaves the start one
     * partition back. Before, one index served every broker and moved
     * past a partition before it was looked at. Kafka walks every
     * partition from the start; the index finds the next one with a
     * drainable head (not muted, not backing off) directly, and the walk's
     * end state is set as Kafka's would be. */
    uint32_t start = (a->shared_drain_index ? a->drain_index_all : a->drain_index[broker]) % n;
    uint32_t stop = KS_RI_NONE;
    for (uint32_t lap = 0; lap < 2 && stop == KS_RI_NONE; lap++) {
        uint32_t from = lap == 0 ? start : 0, end = lap == 0 ? n : start;
        for (uint32_t i = ks_ri_next_drainable(&a->ri, broker, from, now);
             i != KS_RI_NONE && i < end; i = ks_ri_next_drainable(&a->ri, broker, i + 1, now)) {
            uint32_t p = ks_ri_part(&a->ri, broker, i);
            const ks_batch *b = &a->batches[a->dq[p].head];
            if ((may && !may(ctx, p, b)) || /* Kafka stops draining the broker here */
                (size + b->bytes > max_request_size && first != KS_NONE)) {
                stop = i;
                break;
            }
            size += drain_head(a, p, now, &first, &last);
            (*count)++;
        }
    }
    uint32_t looked = stop != KS_RI_NONE ? stop : (start + n - 1) % n;
    a->drain_index[broker] = looked;
    a->drain_index_all = (looked + 1) % n;
    /* (each drained batch was checked by batch_set_state) */
    *bytes = size;
    return first;
}

/* Links batch bid into its deque at the head: first of all (addFirst),
 * or in sequence order after the head batches with lower sequences
 * (insertInSequenceOrder). */
static void link_at_head(ks_acc *a, uint32_t bid, bool in_sequence_order)
{
    ks_batch *b = &a->batches[bid];
    ks_deque *d = &a->dq[b->partition];
    uint32_t prev = KS_NONE, cur = d->head;
    if (in_sequence_order) {
        while (cur != KS_NONE && a->batches[cur].has_seq &&
               a->batches[cur].base_seq < b->base_seq) {
            prev = cur;
            cur = a->batches[cur].next;
        }
    }
    b->next = cur;
    if (prev == KS_NONE)
        d->head = bid;
    else
        a->batches[prev].next = bid;
    if (cur == KS_NONE)
        d->tail = bid;
    d->size++;
}

void ks_acc_reenqueue(ks_acc *a, uint32_t bid, ks_time retry_at_ns, bool in_sequence_order)
{
    ks_batch *b = &a->batches[bid];
    b->attempts++;
    b->retry_at_ns = retry_at_ns;
    link_at_head(a, bid, in_sequence_order);
    batch_set_state(a, bid, KS_BATCH_QUEUED); /* retrying */
    assert(deque_ends(a, b->partition));
    refresh(a, b->partition);
    ks_li_touch(&a->li, b->partition);
}

/* A new batch for ks_acc_split, made for record slot r of the batch
 * `from` (ProducerBatch.createBatchOffAccumulatorForRecord). KS_NONE when
 * out of memory. */
static uint32_t split_piece(ks_acc *a, uint32_t from, uint32_t r)
{
    uint32_t bid = alloc_batch(a);
    if (bid == KS_NONE)
        return KS_NONE;
    const ks_batch *big = &a->batches[from];
    ks_batch *b = &a->batches[bid];
    const ks_rec *rec = &a->recs[r];
    uint32_t key = rec->key_len > 0 ? (uint32_t)rec->key_len : 0u;
    uint32_t upper = ks_record_upper_bound(rec->key_len, rec->bytes - key);
    memset(b, 0, sizeof *b);
    b->id = a->next_batch_id++;
    b->partition = big->partition;
    b->bytes = KS_BATCH_OVERHEAD;
    b->write_limit = (uint64_t)a->batch_size > upper ? (uint32_t)a->batch_size : upper;
    b->alloc_bytes = 0; /* outside buffer.memory */
    b->created_ns = big->created_ns;
    b->rec_head = b->rec_tail = KS_NONE;
    b->next = KS_NONE;
    b->est_ratio = a->est_ratio;
    b->split = true;
    return bid;
}

/* Moves batch bid's records, in order, into new batches of at most
 * batch.size, linked by ks_batch.next in order; returns the first and
 * sets *count, or KS_NONE when out of memory. */
static uint32_t split_records(ks_acc *a, uint32_t bid, uint32_t *count)
{
    uint32_t first = KS_NONE, last = KS_NONE, cur = KS_NONE;
    *count = 0;
    for (uint32_t r = a->batches[bid].rec_head; r != KS_NONE;) {
        const ks_rec rec = a->recs[r];
        uint32_t key = rec.key_len > 0 ? (uint32_t)rec.key_len : 0u;
        if (cur == KS_NONE || batch_append(a, cur, rec.id, rec.produced_ns, rec.key_len,
                                           rec.bytes - key, r) == 0) {
            cur = split_piece(a, bid, r);
            if (cur == KS_NONE)
                return KS_NONE;
            chain_add(a, &first, &last, cur);
            (*count)++;
            batch_append(a, cur, rec.id, rec.produced_ns, rec.key_len, rec.bytes - key, r);
        }
        r = rec.next;
    }
    return first;
}

uint32_t ks_acc_split(ks_acc *a, uint32_t bid, bool in_sequence_order, uint32_t *first)
{
    assert(a->batches[bid].state == KS_BATCH_IN_FLIGHT && a->batches[bid].records > 1);
    if (a->compressed) { /* max(1.0f, (float) bigBatch.compressionRatio()) */
        double big = batch_ratio(&a->batches[bid]);
        a->est_ratio = big > 1.0 ? big : 1.0;
    }
    uint32_t n = 0;
    uint32_t head = split_records(a, bid, &n);
    if (head == KS_NONE)
        return 0;
    /* sequences as ProducerBatch.split sets them; then in reverse order
     * for the insertions, the last piece first */
    const ks_batch *big = &a->batches[bid];
    int64_t seq = big->base_seq;
    uint32_t rev = KS_NONE;
    for (uint32_t p = head; p != KS_NONE;) {
        ks_batch *b = &a->batches[p];
        uint32_t next = b->next;
        b->closed = true; /* closeForRecordAppends */
        b->has_seq = big->has_seq;
        b->epoch = big->epoch;
        b->base_seq = big->has_seq ? (int32_t)(seq % 2147483648LL) : 0;
        seq += b->records;
        b->next = rev;
        rev = p;
        p = next;
    }
    uint32_t partition = big->partition;
    a->batches[bid].rec_head = a->batches[bid].rec_tail = KS_NONE; /* moved */
    ks_acc_release(a, bid);
    for (uint32_t p = rev; p != KS_NONE;) {
        uint32_t next = a->batches[p].next;
        link_at_head(a, p, in_sequence_order);
        batch_set_state(a, p, KS_BATCH_QUEUED);
        *first = p; /* the last inserted is the first piece */
        p = next;
    }
    assert(deque_ends(a, partition));
    refresh(a, partition);
    ks_li_touch(&a->li, partition);
    return n;
}

void ks_acc_remove(ks_acc *a, uint32_t bid)
{
    ks_batch *b = &a->batches[bid];
    ks_deque *d = &a->dq[b->partition];
    uint32_t prev = KS_NONE;
    for (uint32_t cur = d->head; cur != KS_NONE; prev = cur, cur = a->batches[cur].next) {
        if (cur != bid)
            continue;
        if (prev == KS_NONE)
            d->head = b->next;
        else
            a->batches[prev].next = b->next;
        if (d->tail == bid)
            d->tail = prev;
        d->size--;
        b->next = KS_NONE;
        refresh(a, b->partition);
        ks_li_touch(&a->li, b->partition);
        return;
    }
    assert(false && "batch not in its deque");
}

void ks_acc_release(ks_acc *a, uint32_t bid)
{
    ks_batch *b = &a->batches[bid];
    batch_set_state(a, bid, KS_BATCH_FREE);
    if (b->rec_tail != KS_NONE) {
        a->recs[b->rec_tail].next = a->rec_free;
        a->rec_free = b->rec_head;
    }
    assert(a->memory_used >= b->alloc_bytes);
    a->memory_used -= b->alloc_bytes;
    b->next = a->batch_free;
    a->batch_free = bid;
    a->batches_live--;
    assert(a->batches_live < a->batch_cap);
}

uint32_t ks_acc_take_unsent(ks_acc *a)
{
    uint32_t first = KS_NONE, last = KS_NONE;
    for (uint32_t part = 0; part < a->partitions; part++) {
        uint32_t bid = a->dq[part].head;
        while (bid != KS_NONE) {
            ks_batch *b = &a->batches[bid];
            uint32_t next = b->next;
            if (!ks_batch_was_sent(b)) {
                ks_acc_remove(a, bid);
                chain_add(a, &first, &last, bid);
            }
            bid = next;
        }
    }
    return first;
}

uint32_t ks_acc_expired(ks_acc *a, ks_time now, ks_time timeout_ns, ks_time *next)
{
    uint32_t first = KS_NONE, last = KS_NONE;
    for (uint32_t part = 0; part < a->partitions; part++) {
        ks_deque *d = &a->dq[part];
        while (d->head != KS_NONE &&
               ks_time_add(a->batches[d->head].created_ns, timeout_ns) <= now) {
            uint32_t bid = d->head;
            ks_acc_remove(a, bid);
            chain_add(a, &first, &last, bid);
        }
    }
    /* queued batches behind an unexpired head are checked when it goes */
    for (uint32_t bid = 0; bid < a->batch_cap; bid++) {
        const ks_batch *b = &a->batches[bid];
        ks_time deadline = ks_time_add(b->created_ns, timeout_ns);
        /* (the expired ones, still queued in the chain, are due already) */
        if (b->state == KS_BATCH_QUEUED && deadline > now && deadline < *next)
            *next = deadline;
    }
    return first;
}

uint64_t ks_acc_unsent_records(const ks_acc *a)
{
    uint64_t n = 0;
    for (uint32_t bid = 0; bid < a->batch_cap; bid++) {
        const ks_batch *b = &a->batches[bid];
        if (b->state != KS_BATCH_FREE && !ks_batch_was_sent(b))
            n += b->records;
    }
    return n;
}
