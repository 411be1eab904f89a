/*
 * metadata.h - the cluster's metadata as one node knows it: an image of
 * the topics, their partitions and each partition's leader, and of the
 * internal topics that place the coordinators ([K] metadata/.../
 * MetadataImage, TopicsImage; MetadataResponse).
 *
 * Owns: one image, a value. Every node that needs the cluster's metadata
 * keeps an image of its own: a broker a whole one, given at its start and
 * again whenever the metadata changes (what a KRaft broker learns from
 * the metadata log); a client the part of it its Metadata answers tell
 * it. A node acts on its image, stale or not; nothing reads another's.
 *
 * Partitions are numbered across topics, topic by topic, with room for
 * every partition a topic will ever have (ks_meta.topic_first), so a
 * partition's number never moves when partitions are added; it is the
 * run's name of a topic partition, as (topic, index) is Kafka's.
 * __transaction_state and __consumer_offsets are not numbered there:
 * their partition k is led by broker k % brokers (ksim's assignment of
 * the internal topics).
 *
 * Never: changes by itself; whoever holds an image replaces it.
 */
#ifndef KS_METADATA_H
#define KS_METADATA_H

#include <stdbool.h>
#include <stdint.h>

#define KS_META_NO_LEADER UINT32_MAX

/* A transaction's "partition" for a group's offsets: __consumer_offsets
 * partition k, as coordinators list it among a transaction's partitions
 * (ordinary partitions are numbered below it). */
#define KS_GROUP_PARTITION_BIT 0x80000000u
#define KS_GROUP_PARTITION(k) (KS_GROUP_PARTITION_BIT | (uint32_t)(k))
static inline bool ks_is_group_partition(uint32_t p)
{
    return (p & KS_GROUP_PARTITION_BIT) != 0;
}

typedef struct ks_meta {
    uint32_t brokers;           /* brokers 0 .. brokers-1 */
    uint32_t topic_count;
    uint32_t *topic_first;      /* per topic: the number of its partition 0 */
    uint32_t *topic_max;        /* per topic: partitions it may ever have */
    uint32_t *topic_partitions; /* per topic: partitions that exist */
    uint32_t partition_count;   /* numbers in use: every partition of every topic */
    uint32_t *leaders;          /* per partition number: the leader's broker id,
                                   KS_META_NO_LEADER while it does not exist */
    uint32_t txn_state_partitions; /* transaction.state.log.num.partitions */
    uint32_t offsets_partitions;   /* offsets.topic.num.partitions */
} ks_meta;

/* An image of `topics` topics with room for max_partitions[t] partitions
 * each, none existing yet. False when out of memory (m is then freed). */
bool ks_meta_init(ks_meta *m, uint32_t brokers, uint32_t topics, const uint32_t *max_partitions,
                  uint32_t txn_state_partitions, uint32_t offsets_partitions);
/* dst becomes a copy of src (dst's old contents freed). False when out of
 * memory (dst is then empty). */
bool ks_meta_copy(ks_meta *dst, const ks_meta *src);
void ks_meta_free(ks_meta *m);

/* The number of partition `index` of topic t. */
static inline uint32_t ks_meta_partition(const ks_meta *m, uint32_t t, uint32_t index)
{
    return m->topic_first[t] + index;
}
/* The topic of partition number p, and p's number within it. */
uint32_t ks_meta_topic_of(const ks_meta *m, uint32_t p);
static inline uint32_t ks_meta_index_of(const ks_meta *m, uint32_t p)
{
    return p - m->topic_first[ks_meta_topic_of(m, p)];
}
/* Partition p's leader, KS_META_NO_LEADER when it does not exist. */
static inline uint32_t ks_meta_leader(const ks_meta *m, uint32_t p) { return m->leaders[p]; }

/* The leader of the __transaction_state partition of a transactional.id
 * (abs(String.hashCode) % transaction.state.log.num.partitions, [K]
 * TransactionStateManager.partitionFor), and the same of a group's
 * __consumer_offsets partition ([K] GroupMetadataManager.partitionFor). */
uint32_t ks_meta_txn_partition(const ks_meta *m, const char *transactional_id);
uint32_t ks_meta_offsets_partition(const ks_meta *m, const char *group_id);
uint32_t ks_meta_internal_leader(const ks_meta *m, uint32_t partition);
uint32_t ks_meta_txn_coordinator(const ks_meta *m, const char *transactional_id);
uint32_t ks_meta_group_coordinator(const ks_meta *m, const char *group_id);

/* Java's String.hashCode over the UTF-16 code units of a UTF-8 string
 * (ASCII and BMP characters; others as surrogate pairs; malformed bytes
 * as U+FFFD, as Java's UTF-8 decoder replaces them). */
int32_t ks_java_string_hash(const char *s);
/* The partition of a key among `partitions`: Utils.abs(hashCode) %
 * partitions, where abs(INT_MIN) = 0 ([K] TransactionStateManager.
 * partitionFor, GroupMetadataManager.partitionFor). */
uint32_t ks_txn_partition_for(const char *transactional_id, uint32_t partitions);

#endif
