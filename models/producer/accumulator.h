/*
 * accumulator.h - the producer's RecordAccumulator: per-partition deques
 * of record batches, the buffer pool, readiness and drain.
 *
 * Owns: batches from creation to completion and the records inside them,
 * for one producer and its topic. Follows [K] clients/.../producer/
 * internals/RecordAccumulator.java, ProducerBatch.java and
 * MemoryRecordsBuilder.java:
 *   - append goes to the tail batch of the partition's deque if the record
 *     fits (a batch with no record always accepts one; otherwise estimated
 *     size + record size <= write limit); a record that does not fit
 *     closes the tail batch for appends and needs a new batch;
 *   - a new batch's buffer is max(batch.size, the record's upper-bound
 *     size) bytes from buffer.memory, and that is its write limit, so a
 *     record larger than batch.size travels alone in an oversize batch;
 *   - a batch is full when closed for appends or its estimated size has
 *     reached the write limit;
 *   - a deque's head is sendable when the deque holds more than one batch
 *     or the head is full, or it has waited linger.ms, or memory is
 *     exhausted (someone waits for buffer memory), or a flush is on;
 *   - drain takes, for one broker, the head batch of *every* partition it
 *     leads that is not muted, starting at a per-broker rotating index,
 *     and stops before exceeding max.request.size (a lone oversize batch
 *     still goes).
 * Readiness and drain visit only the partitions that have a batch: every
 * change of a deque's head is told to the ready index (ready_index.h),
 * which answers what Kafka's walk over all partitions would.
 * Sizes are the v2 record batch format: 61 bytes of batch header plus
 * each record's varint-encoded size. With compression, a batch's size is
 * estimated as Kafka's MemoryRecordsBuilder does: header + uncompressed
 * bytes x estimated ratio x 1.05, the estimate starting at 1.0 and moving
 * towards the observed ratio as batches close (CompressionRatioEstimator:
 * 0.005 down per batch, 0.05 up, towards the closed batch's size over its
 * uncompressed record bytes); a drained batch's size is its actual
 * compressed size, from the codec's size model (codec.h).
 *
 * Never: chooses partitions (partitioner.c), sends anything (sender.c) or
 * tells the application (send.c).
 */
#ifndef KS_ACCUMULATOR_H
#define KS_ACCUMULATOR_H

#include "models/producer/load_index.h"
#include "models/producer/producer_section.h"
#include "models/producer/ready_index.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

#define KS_NONE UINT32_MAX

/* v2 batch header ([K] DefaultRecordBatch.RECORD_BATCH_OVERHEAD). */
#define KS_BATCH_OVERHEAD 61u

/* A record waiting for its outcome. */
typedef struct ks_rec {
    uint64_t id;
    ks_time produced_ns; /* the application's send() */
    uint32_t next;       /* next record of the batch, or free list */
    uint32_t bytes;      /* key + value */
    int32_t key_len;     /* -1: null key (a split sizes the record again) */
} ks_rec;

typedef struct ks_batch {
    uint64_t id;          /* per producer, from 0 */
    uint32_t partition;   /* within the producer's topic */
    uint32_t records;
    uint64_t raw;         /* uncompressed record bytes */
    double est_ratio;     /* the ratio estimate when it was created */
    uint32_t bytes;       /* estimated size (header + records, times the
                             estimated compression ratio); once drained,
                             the actual compressed size */
    uint32_t write_limit; /* buffer capacity */
    uint32_t alloc_bytes; /* taken from buffer.memory */
    uint32_t attempts;    /* times re-enqueued for a retry (ProducerBatch.attempts) */
    ks_time created_ns;
    ks_time retry_at_ns;  /* a retried batch backs off until then */
    ks_time drained_ns;
    int64_t base_ts_ms;   /* first record's timestamp */
    uint32_t rec_head, rec_tail;
    uint32_t next;        /* deque link while queued, request link once drained */
    bool closed;          /* closed for appends */
    bool was_full;        /* when last drained: its deque held more than it,
                             or it was full (sendable without linger) */
    uint8_t state;        /* ks_batch_state: the lifecycle below */
    bool has_seq;         /* idempotence: a sequence was assigned */
    bool seq_reset;       /* ... and renumbered by an epoch bump */
    bool split;           /* made by ks_acc_split from a batch the leader
                             refused as too large (isSplitBatch) */
    int16_t epoch;        /* ... under this producer epoch */
    int32_t base_seq;
} ks_batch;


typedef struct ks_deque {
    uint32_t head, tail, size;
    bool exists;          /* created once a batch was appended (Kafka keeps
                             empty deques, and adaptive partitioning counts
                             them) */
    bool muted;           /* max.in.flight=1: a batch of it is in flight */
} ks_deque;

typedef struct ks_acc {
    /* what appends, readiness and drains touch, first: about 3.5 cache
     * lines, read by every record and batch (with 1000 producers each
     * is a miss) */
    uint32_t partitions;
    ks_deque *dq;
    uint32_t deques;      /* partitions that have a deque */
    ks_batch *batches;
    uint32_t batch_cap, batch_free, batches_live;
    ks_rec *recs;
    uint32_t rec_cap, rec_free;
    uint64_t next_batch_id;
    int64_t batch_size;   /* batch.size */
    ks_time linger_ns;    /* linger.ms */
    uint64_t memory_total;/* buffer.memory */
    uint64_t memory_used, memory_used_max;
    bool compressed;      /* compression.type is not none */
    double est_ratio;     /* Kafka's running estimate, from 1.0 */
    uint32_t *drain_index;/* per broker */
    bool shared_drain_index; /* before 3.3: one index for all brokers */
    uint32_t drain_index_all;
    uint32_t brokers;
    ks_ready_index ri;    /* partitions by leader, and their readiness */
    bool size_cached;     /* the last key and value lengths sized, and */
    int64_t size_key_len; /* the part of a record's size they fix */
    uint32_t size_value_len, size_fixed;
    ks_load_index li;     /* queue lengths for the adaptive partitioner
                             (only if ks_acc_track_loads) */
    /* compression and the summary's figures */
    ks_compression_conf codec; /* the codec's size model (models/producer/codec.h) */
    uint64_t compressed_batches;   /* batches closed compressed (summary) */
    uint64_t compressed_raw_bytes; /* ... their records uncompressed */
    uint64_t compressed_bytes;     /* ... their sizes, headers included */
} ks_acc;

/*
 * A batch's lifecycle (ks_batch.state), moved only by accumulator.c
 * through one checked transition (batch_set_state):
 *
 *            ks_acc_new_batch            ks_acc_drain
 *    FREE ---------------------> QUEUED -------------> IN_FLIGHT
 *     ^                           |  ^                     |
 *     |  ks_acc_release           |  |  ks_acc_reenqueue   |
 *     +---------------------------+  +---------------------+
 *     +----------------------------------------------------+
 *                       ks_acc_release
 *
 *   FREE       on the free list: completed (acked) or failed, its records
 *              and memory given back; or never used.
 *   QUEUED     has records and buffer memory; in its partition's deque,
 *              unless ks_acc_remove, ks_acc_take_unsent or ks_acc_expired
 *              just took it out for its caller to release. With attempts
 *              > 0 it is retrying: drained before, so closed for appends,
 *              backing off until retry_at_ns.
 *   IN_FLIGHT  drained into a request: closed for appends, drained_ns set,
 *              in no deque.
 * X(ENUM, "name", id, legal predecessors as a bit mask of ids).
 */
#define KS_BATCH_STATES(X)                                 \
    X(FREE, "free", 0, (1u << 1) | (1u << 2))              \
    X(QUEUED, "queued", 1, (1u << 0) | (1u << 2))          \
    X(IN_FLIGHT, "in_flight", 2, (1u << 1))

typedef enum ks_batch_state {
#define X(e, name, id, prev) KS_BATCH_##e = id,
    KS_BATCH_STATES(X)
#undef X
    KS_BATCH__COUNT
} ks_batch_state;

const char *ks_batch_state_name(ks_batch_state s);
/* Is `from` a legal predecessor of `to` in a batch's lifecycle? */
bool ks_batch_legal(ks_batch_state from, ks_batch_state to);
/* What holds of batch `bid` in its state (above), as a predicate for
 * assert(). */
bool ks_acc_batch_invariants(const ks_acc *a, uint32_t bid);
/* What holds of the whole accumulator: every deque's chain is its
 * partition's QUEUED batches, with the right size and tail; batches_live
 * counts the batches not FREE, whose memory memory_used covers; and
 * each batch meets ks_acc_batch_invariants. O(batches + partitions): the
 * unit tests call it; a run asserts the parts that cost O(1) per move. */
bool ks_acc_invariants(const ks_acc *a);

bool ks_acc_init(ks_acc *a, uint32_t partitions, uint32_t brokers, int64_t batch_size,
                 ks_time linger_ns, uint64_t buffer_memory);
void ks_acc_free(ks_acc *a);

/* Size of one record inside a v2 batch ([K] DefaultRecord.sizeInBytes):
 * length varint + attributes + timestamp delta + offset delta + key length
 * + key + value length + value + header count. key_len < 0: null key. */
uint32_t ks_record_size_v2(int64_t key_len, uint32_t value_len, uint32_t offset_delta,
                           int64_t timestamp_delta);
/* A record's upper-bound size in a new batch ([K] AbstractRecords.
 * estimateSizeInBytesUpperBound for v2): batch header + 21 bytes of
 * worst-case varints + key and value with their lengths + header count. */
uint32_t ks_record_upper_bound(int64_t key_len, uint32_t value_len);
/* The same, with the accumulator's cache of the last lengths seen. */
uint32_t ks_acc_upper_bound(ks_acc *a, int64_t key_len, uint32_t value_len);

typedef enum ks_append_status {
    KS_APPEND_OK,       /* appended to the tail batch */
    KS_APPEND_NEW_BATCH /* does not fit (or no batch): a new batch is needed */
} ks_append_status;

typedef struct ks_append_result {
    ks_append_status status;
    bool batch_is_full;   /* deque holds > 1 batch or the batch is full */
    bool new_batch;       /* a new batch was created */
    int64_t appended;     /* bytes the estimated size grew by (it can
                             shrink when the estimate falls) */
} ks_append_result;

/* Tries the tail batch of `partition` (RecordAccumulator.tryAppend).
 * send_ns is the record's send() time, which is also its timestamp. */
ks_append_result ks_acc_try_append(ks_acc *a, uint32_t partition, uint64_t record,
                                   ks_time send_ns, int64_t key_len, uint32_t value_len);
/* Creates a batch at `now` with the record in it (appendNewBatch). The
 * caller has reserved `alloc` bytes of buffer memory with ks_acc_reserve.
 * Returns false when out of (host) memory. */
bool ks_acc_new_batch(ks_acc *a, uint32_t partition, uint64_t record, ks_time send_ns,
                      ks_time now, int64_t key_len, uint32_t value_len, uint32_t alloc,
                      ks_append_result *res);
/* Takes `bytes` of buffer.memory if that much is free. */
bool ks_acc_reserve(ks_acc *a, uint32_t bytes);
/* The partition's batches are all full (or it has none). */
bool ks_acc_all_full(const ks_acc *a, uint32_t partition);
/* A batch is full: closed for appends, or at its write limit. */
bool ks_batch_is_full(const ks_batch *b);

/* The result of a ready() scan. */
typedef struct ks_ready {
    bool *node_ready;       /* per broker; caller-provided, cleared here */
    ks_time next_check_ns;  /* earliest time a waiting batch turns ready;
                               KS_TIME_MAX if none */
    uint32_t *queue;        /* per partition with a deque: its length */
    uint32_t *queue_ids;    /* ... and its partition */
    uint32_t queue_len;
} ks_ready;

/* Partition p is led by broker leader[p] (for p < partitions): sets the
 * lists ready and drain walk. Call it after init and whenever partitions
 * or leaders change. False when memory ran out. */
bool ks_acc_set_leaders(ks_acc *a, const uint32_t *leader);
/* The partitions broker b leads, ascending, and the i-th of them. */
static inline uint32_t ks_acc_leads(const ks_acc *a, uint32_t b) { return ks_ri_count(&a->ri, b); }
static inline uint32_t ks_acc_led(const ks_acc *a, uint32_t b, uint32_t i)
{
    return ks_ri_part(&a->ri, b, i);
}

/* RecordAccumulator.ready: which brokers have a sendable partition
 * (exhausted: someone waits for memory). O(brokers x log partitions). */
void ks_acc_ready(ks_acc *a, ks_time now, bool exhausted, ks_ready *r);
/* The queue length of every partition that has a deque, in partition
 * order, into r->queue, r->queue_ids and r->queue_len (what ready() hands
 * the adaptive partitioner). O(partitions). */
void ks_acc_queue_sizes(const ks_acc *a, ks_ready *r);
/* Keeps the queue lengths of up to `capacity` partitions in a load index
 * for the adaptive partitioner. False when memory ran out. */
bool ks_acc_track_loads(ks_acc *a, uint32_t capacity);
/* The load index as of now (updatePartitionLoadStats' moment): what the
 * partitioner draws from until the next snapshot. NULL when memory ran
 * out. */
const ks_load_index *ks_acc_load_snapshot(ks_acc *a);
/* max.in.flight=1 (guaranteeMessageOrder): the partition's batches wait
 * while one of them is in flight. */
void ks_acc_mute(ks_acc *a, uint32_t partition, bool muted);

/* May drain take this partition's head batch? (The idempotent producer's
 * ordering rules; NULL: always.) */
typedef bool (*ks_acc_may_drain)(void *ctx, uint32_t partition, const ks_batch *head);

/* Drains the head batches for one broker, over the partitions it leads in
 * partition order. Heads that back off after a failed attempt stay; a head
 * `may` refuses ends the drain for this broker (drainBatchesForOneNode's
 * `break`). Returns the first batch of a chain linked by ks_batch.next
 * (KS_NONE if none), with *count and *bytes set; each drained batch's
 * was_full says whether it was sendable on its own. */
uint32_t ks_acc_drain(ks_acc *a, uint32_t broker, uint32_t max_request_size, ks_time now,
                      ks_acc_may_drain may, void *ctx, uint32_t *count, uint64_t *bytes);

/* Puts a batch whose attempt failed back at the head of its deque, to be
 * sent again from retry_at_ns (RecordAccumulator.reenqueue): first of all
 * (addFirst) for a plain producer; for an idempotent one, among the
 * batches with sequences at the head, in sequence order
 * (insertInSequenceOrder). */
void ks_acc_reenqueue(ks_acc *a, uint32_t batch, ks_time retry_at_ns, bool in_sequence_order);
/* RecordAccumulator.splitAndReenqueue for an in-flight batch of more
 * than one record that the leader answered MESSAGE_TOO_LARGE:
 *   - with compression, the ratio estimate goes back to max(1.0, the
 *     batch's actual ratio) (CompressionRatioEstimator.setEstimation);
 *   - its records, in order, fill new batches of at most batch.size
 *     (ProducerBatch.split: a new batch's write limit is max(batch.size,
 *     its first record's upper bound), so it always takes one record, and
 *     takes the next while estimate + record size fits);
 *   - each new batch keeps the old one's creation time (delivery.timeout.
 *     ms runs on), is closed for appends, has no attempt yet, and takes
 *     no buffer.memory (createBatchOffAccumulatorForRecord allocates
 *     outside the pool); with a sequence, it keeps the producer epoch and
 *     takes the old base sequence plus the records before it;
 *   - they go back at the head of the deque, the last first, each by
 *     addFirst, or for an idempotent producer in sequence order
 *     (insertInSequenceOrder), so they leave before anything queued after;
 *   - the old batch is freed, its buffer.memory given back
 *     (maybeRemoveAndDeallocateBatch).
 * Returns how many batches it made, *first the first of them (they follow
 * each other in the deque, linked by ks_batch.next); 0 when out of (host)
 * memory. */
uint32_t ks_acc_split(ks_acc *a, uint32_t batch, bool in_sequence_order, uint32_t *first);

/* Takes a queued batch out of its deque (it expired there). */
void ks_acc_remove(ks_acc *a, uint32_t batch);

/* Before Kafka 3.3 (KAFKA-13834) the accumulator had one drain index for
 * all brokers, moved past each partition before looking at it. */
void ks_acc_set_shared_drain_index(ks_acc *a, bool shared);

/* Compresses the batches with the codec's size model c (copied), for
 * compression.type other than none. */
void ks_acc_set_compression(ks_acc *a, const ks_compression_conf *c);

/* Gives a completed batch's memory and records back. */
void ks_acc_release(ks_acc *a, uint32_t batch);

/* Takes every batch never sent out of the deques (the transaction
 * aborts them, RecordAccumulator.abortUndrainedBatches), partition by
 * partition, head first. Returns them as a chain linked by ks_batch.next
 * (KS_NONE if none), for the caller to complete and release. */
uint32_t ks_acc_take_unsent(ks_acc *a);
/* delivery.timeout.ms in the deques (RecordAccumulator.expiredBatches):
 * from each deque's head, the batches created timeout_ns or more before
 * `now`, stopping at the first still in time, are taken out and returned
 * as a chain as above. *next is lowered to the earliest deadline of the
 * batches left queued. */
uint32_t ks_acc_expired(ks_acc *a, ks_time now, ks_time timeout_ns, ks_time *next);
/* Does one of the partitions broker b leads have a queued batch? */
static inline bool ks_acc_has_queued(const ks_acc *a, uint32_t b) { return a->ri.bk[b].queued > 0; }
/* The records of batches never sent (the application was never told). */
uint64_t ks_acc_unsent_records(const ks_acc *a);

static inline ks_batch *ks_acc_batch(ks_acc *a, uint32_t id) { return &a->batches[id]; }

/* Was the batch ever in a request? (A split batch's records were, in the
 * batch it was split from.) */
static inline bool ks_batch_was_sent(const ks_batch *b)
{
    return b->state == KS_BATCH_IN_FLIGHT || b->attempts > 0 || b->split;
}

#endif
