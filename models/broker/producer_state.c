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
 * The entries are an open-addressing table keyed by producer id (linear
 * probing, at most half full, doubling), so that finding a producer's
 * entry is one probe into the table and not an index's slot first and
 * then the entry: with many producers each is a miss of its own.
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

/* The first table holds two slots: one producer id, the usual case with
 * many partitions, costs two entries' room. */
#define FIRST_CAP 2u

void ks_ps_free(ks_producer_state *s)
{
    for (uint32_t i = 0; i < s->cap; i++)
        if (s->slots[i].used && s->slots[i].on_heap)
            free(s->slots[i].ring.heap);
    free(s->slots);
    memset(s, 0, sizeof *s);
}

static uint32_t slot_of(int64_t pid, uint32_t mask)
{
    uint64_t h = (uint64_t)pid * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(h >> 32) & mask;
}

/* pid's slot: its entry's, or the free one where it would go. */
static uint32_t probe(const ks_producer_state *s, int64_t pid)
{
    uint32_t mask = s->cap - 1u, h = slot_of(pid, mask);
    while (s->slots[h].used && s->slots[h].producer_id != pid)
        h = (h + 1u) & mask;
    return h;
}

/* Moves every entry into a table of twice the slots. False when out of
 * memory (the table is kept). */
static bool grow(ks_producer_state *s)
{
    uint32_t cap = s->cap ? 2u * s->cap : FIRST_CAP;
    if (cap <= s->cap || cap > UINT32_MAX / 2u)
        return false;
    ks_ps_entry *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    ks_producer_state bigger = *s;
    bigger.slots = slots;
    bigger.cap = cap;
    for (uint32_t i = 0; i < s->cap; i++)
        if (s->slots[i].used)
            slots[probe(&bigger, s->slots[i].producer_id)] = s->slots[i];
    free(s->slots);
    *s = bigger;
    return true;
}

const ks_ps_entry *ks_ps_find(const ks_producer_state *s, int64_t pid)
{
    if (s->count == 0)
        return NULL;
    const ks_ps_entry *e = &s->slots[probe(s, pid)];
    return e->used ? e : NULL;
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

/* pid's entry, made with an empty ring at `epoch` when it has none
 * (the table growing first when it would be more than half full). NULL
 * when out of memory (no entry is added then). */
static ks_ps_entry *entry_for(ks_producer_state *s, int64_t pid, int16_t epoch)
{
    if (s->count > 0) {
        ks_ps_entry *e = &s->slots[probe(s, pid)];
        if (e->used)
            return e;
    }
    if (2u * (s->count + 1u) > s->cap && !grow(s))
        return NULL;
    ks_ps_entry fresh = {.producer_id = pid, .epoch = epoch, .used = true,
                         .on_heap = s->retain > KS_PS_INLINE};
    if (fresh.on_heap && !(fresh.ring.heap = calloc(s->retain, sizeof *fresh.ring.heap)))
        return NULL;
    ks_ps_entry *e = &s->slots[probe(s, pid)];
    *e = fresh;
    s->count++;
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
    ks_ps_entry *e = entry_for(s, pid, epoch);
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
    ks_ps_entry *e = entry_for(s, pid, epoch);
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
