/*
 * partitioner.c - murmur2 and keyed partitioning (see partitioner.h).
 *
 * murmur2 follows [K] clients/src/main/java/org/apache/kafka/common/
 * utils/Utils.java: h = seed ^ length; 4-byte little-endian blocks mixed
 * with m = 0x5bd1e995, r = 24; the 1-3 byte tail folded in with
 * fall-through; then h ^= h >>> 13; h *= m; h ^= h >>> 15. Java's int
 * arithmetic wraps and `>>>` is a logical shift, which is what uint32_t
 * gives here; bytes are taken as unsigned (& 0xff in the Java code).
 */
#include "models/partitioner.h"

#include <assert.h>

int32_t ks_murmur2(const uint8_t *data, size_t len)
{
    const uint32_t seed = 0x9747b28cu;
    const uint32_t m = 0x5bd1e995u;
    const unsigned r = 24;
    uint32_t h = seed ^ (uint32_t)len;
    size_t blocks = len / 4;
    for (size_t i = 0; i < blocks; i++) {
        const uint8_t *b = data + 4 * i;
        uint32_t k = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                     (uint32_t)b[3] << 24;
        k *= m;
        k ^= k >> r;
        k *= m;
        h *= m;
        h ^= k;
    }
    const uint8_t *tail = data + 4 * blocks;
    switch (len % 4) {
    case 3:
        h ^= (uint32_t)tail[2] << 16;
        /* fall through */
    case 2:
        h ^= (uint32_t)tail[1] << 8;
        /* fall through */
    case 1:
        h ^= tail[0];
        h *= m;
        break;
    default:
        break;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return (int32_t)h; /* two's complement, as Java reads the bits */
}

uint32_t ks_partition_for_key(const uint8_t *key, size_t len, uint32_t num_partitions)
{
    assert(num_partitions > 0);
    return ks_to_positive(ks_murmur2(key, len)) % num_partitions;
}
