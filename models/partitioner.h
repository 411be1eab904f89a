/*
 * partitioner.h - Kafka's partitioning functions.
 *
 * Owns: murmur2 exactly as the Java client computes it, and the keyed
 * partition choice of Kafka's built-in partitioner, which every version
 * from 0.8.2 to 4.x shares: toPositive(murmur2(keyBytes)) % numPartitions,
 * over all partitions of the topic, available or not ([K] clients/.../
 * producer/internals/BuiltInPartitioner.partitionForKey; before 3.3
 * DefaultPartitioner.partition). An empty key is a key (hashed); only a
 * null key is "no key".
 */
#ifndef KS_PARTITIONER_H
#define KS_PARTITIONER_H

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

#endif
