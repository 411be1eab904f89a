/*
 * partitioner.h - Kafka's partitioning functions and the keyless
 * partitioners' state.
 *
 * Owns: murmur2 exactly as the Java client computes it; the keyed
 * partition choice of Kafka's built-in partitioner, which every version
 * from 0.8.2 to 4.x shares: toPositive(murmur2(keyBytes)) % numPartitions,
 * over all partitions of the topic, available or not ([K] clients/.../
 * producer/internals/BuiltInPartitioner.partitionForKey; before 3.3
 * DefaultPartitioner.partition); and the three keyless strategies:
 *
 *   round_robin     DefaultPartitioner before 2.4: one counter per topic,
 *                   starting at a random int, toPositive(counter++) % n.
 *   sticky          KIP-480 (2.4-3.2, StickyPartitionCache): stay on one
 *                   partition; switch only when a new batch must be
 *                   created for it, to a random *other* partition.
 *   uniform_sticky  KIP-794 (3.3+, BuiltInPartitioner): switch after
 *                   batch.size bytes were produced to the partition (once
 *                   its batches are all full, or at 2 x batch.size); the
 *                   next partition random, weighted by queue length when
 *                   adaptive partitioning is on.
 *
 * An empty key is a key (hashed); only a null key is "no key". Random
 * choices come from the producer's "producer.<id>.partitioner" stream.
 */
#ifndef KS_PARTITIONER_H
#define KS_PARTITIONER_H

#include "sim/rng.h"

#include "models/producer/load_index.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Kafka's Utils.murmur2: 32-bit MurmurHash2, seed 0x9747b28c, as a Java
 * int (the same bits as the Java code, read as signed). */
int32_t ks_murmur2(const uint8_t *data, size_t len);

/* Kafka's Utils.toPositive: x & 0x7fffffff (not abs). */
static inline uint32_t ks_to_positive(int32_t x)
{
    return (uint32_t)x & 0x7fffffffu;
}

/* The partition of a non-null key among num_partitions (> 0). */
uint32_t ks_partition_for_key(const uint8_t *key, size_t len, uint32_t num_partitions);

#define KS_PARTITIONERS(X)                  \
    X(ROUND_ROBIN, "round_robin")           \
    X(STICKY, "sticky")                     \
    X(UNIFORM_STICKY, "uniform_sticky")

typedef enum ks_partitioner_kind {
#define X(e, name) KS_PARTITIONER_##e,
    KS_PARTITIONERS(X)
#undef X
    KS_PARTITIONER__COUNT
} ks_partitioner_kind;

const char *ks_partitioner_name(ks_partitioner_kind k);

/* Keyless partitioning state for one producer and one topic. */
typedef struct ks_partitioner {
    ks_partitioner_kind kind;
    uint32_t partitions;
    ks_rng *rng;               /* the producer's partitioner stream */
    /* round_robin */
    uint32_t counter;          /* Java int, wrapping */
    /* sticky and uniform_sticky: the current partition, or -1 */
    int64_t current;
    /* uniform_sticky */
    int64_t batch_size;        /* switch after this many bytes */
    int64_t produced_bytes;
    uint32_t switches;
    uint32_t stats_len;        /* 0: no load stats, choose uniformly */
    uint32_t *cft;             /* cumulative frequency table */
    uint32_t *cft_ids;         /* partition of each CFT entry */
    const ks_load_index *li;   /* or the same table kept as a load index
                                  (load_index.h), when not NULL */
} ks_partitioner;

/* batch_size is used by uniform_sticky only (>= 1 there). The partitioner
 * keeps `rng`; it must outlive the partitioner. */
bool ks_partitioner_init(ks_partitioner *pp, ks_partitioner_kind kind, uint32_t partitions,
                         int64_t batch_size, ks_rng *rng);
void ks_partitioner_free(ks_partitioner *pp);

/* round_robin: the next partition. */
uint32_t ks_rr_next(ks_partitioner *pp);
/* sticky: the current sticky partition (chosen at random the first time). */
uint32_t ks_sticky_partition(ks_partitioner *pp);
/* sticky: the accumulator needs a new batch for `prev`: switch to another
 * partition if `prev` is the sticky one (StickyPartitionCache.nextPartition). */
void ks_sticky_on_new_batch(ks_partitioner *pp, uint32_t prev);
/* uniform_sticky: the current partition (chosen the first time). */
uint32_t ks_us_partition(ks_partitioner *pp);
/* uniform_sticky: `appended` bytes went to the current partition; switch
 * when enough was produced (BuiltInPartitioner.updatePartitionInfo). */
void ks_us_update(ks_partitioner *pp, int64_t appended, bool enable_switch);
/* uniform_sticky: queue lengths (in batches) of the partitions
 * ids[0..length), from the accumulator's ready() scan; `all` is whether
 * every partition of the topic is listed (adaptive needs a queue entry
 * for each). Builds the cumulative frequency table, or drops the stats
 * when they would not change the choice (BuiltInPartitioner.
 * updatePartitionLoadStats). */
void ks_us_load_stats(ks_partitioner *pp, const uint32_t *queue, const uint32_t *ids,
                      uint32_t length, bool all);
/* The same from a load index holding every deque's length (no partition
 * excluded): the partitioner draws from `li`, which must stay unchanged
 * until the next call. */
void ks_us_load_index(ks_partitioner *pp, const ks_load_index *li, bool all);

#endif
