/*
 * producer_state.c - one partition's idempotent-producer entries, the
 * checks a produce batch passes and the recording of an appended batch
 * (see producer_state.h for the rules and their Kafka sources).
 *
 * Each entry's ring keeps `retain` slots. While it holds fewer than
 * `retain` batches its head stays at 0 and the batches sit in slots
 * 0..count-1; once full, count == retain. Either way the newest batch is
 * at (head + count - 1) % count, which lets ks_ps_last_seq work from the
 * entry alone (the entry does not record its ring's size).
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

void ks_ps_free(ks_producer_state *s)
{
    for (uint32_t i = 0; i < s->count; i++)
        free(s->entries[i].ring);
    free(s->entries);
    memset(s, 0, sizeof *s);
}

/* The index of pid's entry, or s->count when it has none. */
static uint32_t index_of(const ks_producer_state *s, int64_t pid)
{
    uint32_t i = 0;
    while (i < s->count && s->entries[i].producer_id != pid)
        i++;
    return i;
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
    return e->ring[(e->head + e->count - 1u) % e->count].last_seq;
}

/* The cached batch with exactly this sequence range at the entry's epoch,
 * or NULL ([K] ProducerStateEntry.findDuplicateBatch and
 * batchWithSequenceRange). Every kept slot is 0..count-1 (see the top). */
static const ks_ps_batch *find_duplicate(const ks_ps_entry *e, int16_t epoch,
                                         int32_t first_seq, int32_t last_seq)
{
    if (epoch != e->epoch)
        return NULL;
    for (uint32_t i = 0; i < e->count; i++)
        if (e->ring[i].first_seq == first_seq && e->ring[i].last_seq == last_seq)
            return &e->ring[i];
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
        ks_ps_entry *grown = realloc(s->entries, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        s->entries = grown;
        s->cap = cap;
    }
    ks_ps_batch *ring = calloc(s->retain, sizeof *ring);
    if (!ring)
        return NULL;
    ks_ps_entry *e = &s->entries[s->count++];
    *e = (ks_ps_entry){.producer_id = pid, .epoch = epoch, .ring = ring};
    return e;
}

/* Adds b as the newest batch, dropping the oldest when `retain` are kept
 * ([K] ProducerStateEntry.addBatchMetadata). */
static void push_batch(ks_ps_entry *e, uint32_t retain, ks_ps_batch b)
{
    if (e->count < retain) {
        e->ring[e->count++] = b;
        return;
    }
    e->ring[e->head] = b;
    e->head = (e->head + 1u) % retain;
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
