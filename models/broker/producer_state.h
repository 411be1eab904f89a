/*
 * producer_state.h - a partition leader's idempotent-producer state: per
 * producer id, its epoch and the sequence ranges and offsets of its last
 * few batches, and the checks a produce batch passes before it is
 * appended.
 *
 * Owns: one partition's entries (one ks_producer_state per partition).
 * Follows [K] storage/src/main/java/org/apache/kafka/storage/internals/log/
 * ProducerAppendInfo.java (checkProducerEpoch, checkSequence),
 * ProducerStateEntry.java (findDuplicateBatch, NUM_BATCHES_TO_RETAIN = 5)
 * and core/.../log/UnifiedLog.scala (analyzeAndValidateProducerState:
 * the duplicate check comes first). In order:
 *   1. duplicate: same epoch as the entry and (first, last) sequence equal
 *      to one of its cached batches -> not appended, answered with that
 *      batch's offset and no error;
 *   2. epoch older than the entry's -> INVALID_PRODUCER_EPOCH;
 *   3. epoch newer than the entry's -> first sequence must be 0, else
 *      OUT_OF_ORDER_SEQUENCE_NUMBER;
 *   4. same epoch -> first sequence must be last sequence + 1 (0 after
 *      INT32_MAX), else OUT_OF_ORDER_SEQUENCE_NUMBER.
 * A producer id with no entry is accepted at any sequence (brokers from
 * 2.5); brokers before 2.5 answered UNKNOWN_PRODUCER_ID to a first batch
 * whose sequence is not 0 (the `legacy` flag).
 *
 * Never: appends anything or knows offsets beyond what it is told.
 */
#ifndef KS_PRODUCER_STATE_H
#define KS_PRODUCER_STATE_H

#include <stdbool.h>
#include <stdint.h>

#define KS_NO_PRODUCER_ID (-1)
#define KS_NO_EPOCH (-1)
#define KS_NO_SEQUENCE (-1)
/* [K] ProducerStateEntry.NUM_BATCHES_TO_RETAIN */
#define KS_PS_BATCHES_DEFAULT 5u
#define KS_PS_BATCHES_MAX 64u

typedef enum ks_ps_verdict {
    KS_PS_APPEND,                        /* in sequence: append it */
    KS_PS_DUPLICATE,                     /* a cached batch: answer its offset */
    KS_PS_INVALID_PRODUCER_EPOCH,        /* error 47 */
    KS_PS_OUT_OF_ORDER_SEQUENCE_NUMBER,  /* error 45 */
    KS_PS_UNKNOWN_PRODUCER_ID            /* error 59 (legacy brokers only) */
} ks_ps_verdict;

/* One cached batch: its sequence range and where it was appended. */
typedef struct ks_ps_batch {
    int32_t first_seq, last_seq;
    int64_t offset;                      /* base offset */
} ks_ps_batch;

/* Rings of up to this many batches (Kafka's 5) lie in the entry itself:
 * with many producers an entry and its batches are not in the cache when
 * a batch of its producer comes, and a ring of its own would be one more
 * miss, after the entry's, before the duplicate check can start. */
#define KS_PS_INLINE KS_PS_BATCHES_DEFAULT

typedef struct ks_ps_entry {
    int64_t producer_id;
    int16_t epoch;
    uint8_t count;                       /* cached batches, <= retain */
    uint8_t head;                        /* ring index of the oldest */
    bool on_heap;                        /* retain > KS_PS_INLINE: ring.heap */
    bool used;                           /* a slot of the table holding an entry */
    union {
        ks_ps_batch in[KS_PS_INLINE];
        ks_ps_batch *heap;
    } ring;                              /* `retain` slots: see ks_ps_ring */
} ks_ps_entry;

/* An entry's ring. */
static inline ks_ps_batch *ks_ps_ring(ks_ps_entry *e)
{
    return e->on_heap ? e->ring.heap : e->ring.in;
}
static inline const ks_ps_batch *ks_ps_ring_c(const ks_ps_entry *e)
{
    return e->on_heap ? e->ring.heap : e->ring.in;
}

typedef struct ks_producer_state {
    ks_ps_entry *slots;                  /* the entries, by producer id (see
                                            the .c), in no order */
    uint32_t count;                      /* entries */
    uint32_t cap;                        /* slots: 0 or a power of two */
    uint32_t retain;                     /* batches kept per producer id */
    bool legacy;                         /* brokers before 2.5 */
} ks_producer_state;

/* retain: 1..KS_PS_BATCHES_MAX. */
void ks_ps_init(ks_producer_state *s, uint32_t retain, bool legacy);
void ks_ps_free(ks_producer_state *s);

/* What the leader does with a batch (pid, epoch, first_seq..last_seq).
 * For KS_PS_DUPLICATE, *dup_offset receives the cached batch's offset. */
ks_ps_verdict ks_ps_check(const ks_producer_state *s, int64_t pid, int16_t epoch,
                          int32_t first_seq, int32_t last_seq, int64_t *dup_offset);
/* Records an appended batch: a newer epoch replaces the entry's batches;
 * the oldest cached batch goes when `retain` are kept. Returns false when
 * out of memory. */
bool ks_ps_update(ks_producer_state *s, int64_t pid, int16_t epoch, int32_t first_seq,
                  int32_t last_seq, int64_t offset);
/* A transaction marker of (pid, epoch) was appended: the entry takes the
 * marker's epoch, and a newer epoch drops its cached batches ([K]
 * ProducerAppendInfo.appendEndTxnMarker). Returns false when out of
 * memory. */
bool ks_ps_marker(ks_producer_state *s, int64_t pid, int16_t epoch);
/* The entry of a producer id, or NULL; valid until the state next
 * changes. */
const ks_ps_entry *ks_ps_find(const ks_producer_state *s, int64_t pid);
/* The entry's last sequence (KS_NO_SEQUENCE when it has no batch). */
int32_t ks_ps_last_seq(const ks_ps_entry *e);
/* Kafka's error name for a verdict ("NONE" for append and duplicate). */
const char *ks_ps_verdict_error(ks_ps_verdict v);

#endif
