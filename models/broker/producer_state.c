/*
 * producer_state.c - one partition's idempotent-producer entries, the
 * checks a produce batch passes and the recording of an appended batch
 * (see producer_state.h for the rules and their Kafka sources).
 *
 * Each entry's ring keeps `retain` slots, in the entry itself up to
 * KS_PS_INLINE and on the heap beyond (ks_ps_ring). While it holds fewer than
 * `retain` batches its head stays at 0 and the batches sit in slots
 * 0..count-1; once full, count == retain. Either way the newest batch is
 * at (head + count - 1) % count, which lets ks_ps_last_seq work from the
 * entry alone (the entry does not record its ring's size).
 *
 * With many producers an entry is found through an open-addressing index
 * of 2 x cap slots (entry index + 1, 0 empty), built once the entries'
 * array reaches INDEX_FROM; below that a scan is cheaper.
 */
#include "models/broker/producer_state.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void ks_ps_init(ks_producer_state *s, uint32_t retain, bool legacy)
{
    assert(retain >= 1u && retain <= KS_PS_BATCHES_MAX);
    memset(s, 0, sizeof *s);
    s->retain = retain;
    s->legacy = legacy;
}

#define INDEX_FROM 16u

void ks_ps_free(ks_producer_state *s)
{
    free(s->index);
    for (uint32_t i = 0; i < s->count; i++)
        if (s->entries[i].on_heap)
            free(s->entries[i].ring.heap);
    free(s->entries);
    memset(s, 0, sizeof *s);
}

static uint32_t slot_of(int64_t pid, uint32_t mask)
{
    uint64_t h = (uint64_t)pid * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(h >> 32) & mask;
}

/* The index of pid's entry, or s->count when it has none. */
static uint32_t index_of(const ks_producer_state *s, int64_t pid)
{
    if (!s->index) {
        uint32_t i = 0;
        while (i < s->count && s->entries[i].producer_id != pid)
            i++;
        return i;
    }
    uint32_t mask = 2u * s->cap - 1u;
    for (uint32_t h = slot_of(pid, mask); s->index[h] != 0; h = (h + 1u) & mask)
        if (s->entries[s->index[h] - 1u].producer_id == pid)
            return s->index[h] - 1u;
    return s->count;
}

/* Puts entry i in the index (of 2 x cap slots, room to spare). */
static void index_put(ks_producer_state *s, uint32_t i)
{
    uint32_t mask = 2u * s->cap - 1u, h = slot_of(s->entries[i].producer_id, mask);
    while (s->index[h] != 0)
        h = (h + 1u) & mask;
    s->index[h] = i + 1u;
}

/* After the entries' array grew to cap: a new index of 2 x cap slots.
 * False when out of memory (the old one is kept, still valid). */
static bool index_rebuild(ks_producer_state *s)
{
    uint32_t *idx = calloc(2u * (size_t)s->cap, sizeof *idx);
    if (!idx)
        return false;
    free(s->index);
    s->index = idx;
    for (uint32_t i = 0; i < s->count; i++)
        index_put(s, i);
    return true;
}

const ks_ps_entry *ks_ps_find(const ks_producer_state *s, int64_t pid)
{
    uint32_t i = index_of(s, pid);
    return i < s->count ? &s->entries[i] : NULL;
}

int32_t ks_ps_last_seq(const ks_ps_entry *e)
{
    if (e->count == 0)
        return KS_NO_SEQUENCE;
    return ks_ps_ring_c(e)[(e->head + e->count - 1u) % e->count].last_seq;
}

/* The cached batch with exactly this sequence range at the entry's epoch,
 * or NULL ([K] ProducerStateEntry.findDuplicateBatch and
 * batchWithSequenceRange). Every kept slot is 0..count-1 (see the top). */
static const ks_ps_batch *find_duplicate(const ks_ps_entry *e, int16_t epoch,
                                         int32_t first_seq, int32_t last_seq)
{
    if (epoch != e->epoch)
        return NULL;
    const ks_ps_batch *ring = ks_ps_ring_c(e);
    for (uint32_t i = 0; i < e->count; i++)
        if (ring[i].first_seq == first_seq && ring[i].last_seq == last_seq)
            return &ring[i];
    return NULL;
}

/* Whether next follows last, wrapping after INT32_MAX; last + 1 is taken
 * in 64 bits as Kafka does ([K] ProducerAppendInfo.inSequence). */
static bool in_sequence(int32_t last, int32_t next)
{
    return (int64_t)next == (int64_t)last + 1 || (next == 0 && last == INT32_MAX);
}

/* A producer id the leader knows no epoch for: brokers from 2.5 accept
 * any sequence; older ones answered UNKNOWN_PRODUCER_ID unless it was 0
 * ([K] ProducerAppendInfo.checkSequence, before and after KIP-360). */
static ks_ps_verdict unknown_producer(const ks_producer_state *s, int32_t first_seq)
{
    if (s->legacy && first_seq != 0)
        return KS_PS_UNKNOWN_PRODUCER_ID;
    return KS_PS_APPEND;
}

/* A batch of a newer epoch must start the sequence again at 0, unless the
 * entry has no epoch yet ([K] ProducerAppendInfo.checkSequence). */
static ks_ps_verdict check_new_epoch(const ks_producer_state *s, const ks_ps_entry *e,
                                     int32_t first_seq)
{
    if (first_seq == 0)
        return KS_PS_APPEND;
    if (e->epoch == KS_NO_EPOCH)
        return unknown_producer(s, first_seq);
    return KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER;
}

ks_ps_verdict ks_ps_check(const ks_producer_state *s, int64_t pid, int16_t epoch,
                          int32_t first_seq, int32_t last_seq, int64_t *dup_offset)
{
    const ks_ps_entry *e = ks_ps_find(s, pid);
    if (!e)
        return unknown_producer(s, first_seq);
    /* The duplicate check comes before any other ([K] UnifiedLog.
     * analyzeAndValidateProducerState). */
    const ks_ps_batch *dup = find_duplicate(e, epoch, first_seq, last_seq);
    if (dup) {
        if (dup_offset)
            *dup_offset = dup->offset;
        return KS_PS_DUPLICATE;
    }
    /* A fenced (older) epoch ([K] ProducerAppendInfo.checkProducerEpoch). */
    if (epoch < e->epoch)
        return KS_PS_INVALID_PRODUCER_EPOCH;
    if (epoch > e->epoch)
        return check_new_epoch(s, e, first_seq);
    /* Same epoch: the next sequence after the newest cached batch. With
     * no cached batch the last sequence is KS_NO_SEQUENCE (-1), so only 0
     * follows, as in Kafka where lastSeq() of an empty entry is
     * NO_SEQUENCE. */
    if (in_sequence(ks_ps_last_seq(e), first_seq))
        return KS_PS_APPEND;
    return KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER;
}

/* Appends an entry for pid with an empty ring, growing the array by
 * doubling. NULL when out of memory (nothing is changed then). */
static ks_ps_entry *add_entry(ks_producer_state *s, int64_t pid, int16_t epoch)
{
    if (s->count == s->cap) {
        if (s->cap > UINT32_MAX / 2u)
            return NULL;
        uint32_t cap = s->cap ? s->cap * 2u : 4u;
        if (cap >= INDEX_FROM && cap > UINT32_MAX / 4u)
            return NULL;
        ks_ps_entry *grown = realloc(s->entries, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        s->entries = grown;
        uint32_t old = s->cap;
        s->cap = cap;
        if (cap >= INDEX_FROM && !index_rebuild(s)) {
            s->cap = old; /* the index still fits the old capacity */
            return NULL;
        }
    }
    ks_ps_entry fresh = {.producer_id = pid, .epoch = epoch, .on_heap = s->retain > KS_PS_INLINE};
    if (fresh.on_heap && !(fresh.ring.heap = calloc(s->retain, sizeof *fresh.ring.heap)))
        return NULL;
    ks_ps_entry *e = &s->entries[s->count++];
    *e = fresh;
    if (s->index)
        index_put(s, s->count - 1u);
    return e;
}

/* Adds b as the newest batch, dropping the oldest when `retain` are kept
 * ([K] ProducerStateEntry.addBatchMetadata). */
static void push_batch(ks_ps_entry *e, uint32_t retain, ks_ps_batch b)
{
    ks_ps_batch *ring = ks_ps_ring(e);
    if (e->count < retain) {
        ring[e->count++] = b;
        return;
    }
    ring[e->head] = b;
    e->head = (uint8_t)((e->head + 1u) % retain);
}

bool ks_ps_update(ks_producer_state *s, int64_t pid, int16_t epoch, int32_t first_seq,
                  int32_t last_seq, int64_t offset)
{
    uint32_t i = index_of(s, pid);
    ks_ps_entry *e = i < s->count ? &s->entries[i] : add_entry(s, pid, epoch);
    if (!e)
        return false;
    /* Another epoch replaces the cached batches ([K] ProducerStateEntry.
     * maybeUpdateProducerEpoch, which clears on any change of epoch). */
    if (epoch != e->epoch) {
        e->epoch = epoch;
        e->count = 0;
        e->head = 0;
    }
    push_batch(e, s->retain, (ks_ps_batch){first_seq, last_seq, offset});
    return true;
}

bool ks_ps_marker(ks_producer_state *s, int64_t pid, int16_t epoch)
{
    uint32_t i = index_of(s, pid);
    ks_ps_entry *e = i < s->count ? &s->entries[i] : add_entry(s, pid, epoch);
    if (!e)
        return false;
    if (epoch > e->epoch) {
        e->epoch = epoch;
        e->count = 0;
        e->head = 0;
    }
    return true;
}

const char *ks_ps_verdict_error(ks_ps_verdict v)
{
    switch (v) {
    case KS_PS_APPEND:
    case KS_PS_DUPLICATE:
        return "NONE";
    case KS_PS_INVALID_PRODUCER_EPOCH:
        return "INVALID_PRODUCER_EPOCH";
    case KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER:
        return "OUT_OF_ORDER_SEQUENCE_NUMBER";
    case KS_PS_UNKNOWN_PRODUCER_ID:
        return "UNKNOWN_PRODUCER_ID";
    }
    return "UNKNOWN";
}
