/*
 * metadata.c - a node's image of the cluster's metadata (see
 * metadata.h), and where the internal topics place a key.
 */
#include "models/kafka/metadata.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void ks_meta_free(ks_meta *m)
{
    free(m->topic_first);
    free(m->topic_max);
    free(m->topic_partitions);
    free(m->leaders);
    memset(m, 0, sizeof *m);
}

bool ks_meta_init(ks_meta *m, uint32_t brokers, uint32_t topics, const uint32_t *max_partitions,
                  uint32_t txn_state_partitions, uint32_t offsets_partitions)
{
    memset(m, 0, sizeof *m);
    m->brokers = brokers;
    m->topic_count = topics;
    m->txn_state_partitions = txn_state_partitions;
    m->offsets_partitions = offsets_partitions;
    uint32_t total = 0;
    for (uint32_t t = 0; t < topics; t++)
        total += max_partitions[t];
    size_t nt = topics ? topics : 1u;
    m->topic_first = calloc(nt, sizeof *m->topic_first);
    m->topic_max = calloc(nt, sizeof *m->topic_max);
    m->topic_partitions = calloc(nt, sizeof *m->topic_partitions);
    m->leaders = malloc((total ? total : 1u) * sizeof *m->leaders);
    if (!m->topic_first || !m->topic_max || !m->topic_partitions || !m->leaders) {
        ks_meta_free(m);
        return false;
    }
    m->partition_count = total;
    uint32_t k = 0;
    for (uint32_t t = 0; t < topics; t++) {
        m->topic_first[t] = k;
        m->topic_max[t] = max_partitions[t];
        k += max_partitions[t];
    }
    for (uint32_t p = 0; p < total; p++)
        m->leaders[p] = KS_META_NO_LEADER;
    return true;
}

/* Copies n elements of src into a new array at *dst. */
static bool dup_u32(uint32_t **dst, const uint32_t *src, uint32_t n)
{
    *dst = malloc((n ? n : 1u) * sizeof **dst);
    if (!*dst)
        return false;
    memcpy(*dst, src, n * sizeof **dst);
    return true;
}

bool ks_meta_copy(ks_meta *dst, const ks_meta *src)
{
    ks_meta_free(dst);
    *dst = *src;
    dst->topic_first = dst->topic_max = dst->topic_partitions = dst->leaders = NULL;
    if (!dup_u32(&dst->topic_first, src->topic_first, src->topic_count) ||
        !dup_u32(&dst->topic_max, src->topic_max, src->topic_count) ||
        !dup_u32(&dst->topic_partitions, src->topic_partitions, src->topic_count) ||
        !dup_u32(&dst->leaders, src->leaders, src->partition_count)) {
        ks_meta_free(dst);
        return false;
    }
    return true;
}

uint32_t ks_meta_topic_of(const ks_meta *m, uint32_t p)
{
    assert(p < m->partition_count);
    uint32_t lo = 0, hi = m->topic_count; /* the last topic whose first is <= p */
    while (hi - lo > 1u) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (m->topic_first[mid] <= p)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

uint32_t ks_meta_txn_partition(const ks_meta *m, const char *transactional_id)
{
    return ks_txn_partition_for(transactional_id, m->txn_state_partitions);
}

uint32_t ks_meta_offsets_partition(const ks_meta *m, const char *group_id)
{
    /* the same hash as __transaction_state's ([K] GroupMetadataManager.
     * partitionFor) */
    return ks_txn_partition_for(group_id, m->offsets_partitions);
}

uint32_t ks_meta_internal_leader(const ks_meta *m, uint32_t partition)
{
    return partition % m->brokers;
}

uint32_t ks_meta_txn_coordinator(const ks_meta *m, const char *transactional_id)
{
    return ks_meta_internal_leader(m, ks_meta_txn_partition(m, transactional_id));
}

uint32_t ks_meta_group_coordinator(const ks_meta *m, const char *group_id)
{
    return ks_meta_internal_leader(m, ks_meta_offsets_partition(m, group_id));
}

/* ---- Java's String.hashCode and partitionFor ------------------------------- */

#define REPLACEMENT 0xFFFDu

static bool continuation(unsigned char b) { return (b & 0xC0u) == 0x80u; }

/* Is b2 a valid second byte after the lead byte b1 of a 3-byte sequence?
 * Java rejects the overlong E0 80..9F here but, unlike Unicode's table,
 * accepts ED A0..BF and then replaces the whole surrogate it encodes with
 * one U+FFFD (OpenJDK java.lang.String.decodeUTF8_UTF16: isMalformed3,
 * malformed3, isMalformed3_2). */
static bool second_of_3(unsigned char b1, unsigned char b2)
{
    return continuation(b2) && !(b1 == 0xE0u && b2 < 0xA0u);
}

/* The same for a 4-byte sequence (Java's isMalformed4_2 and malformed4:
 * F0 needs 90..BF, F4 needs 80..8F). */
static bool second_of_4(unsigned char b1, unsigned char b2)
{
    if (!continuation(b2))
        return false;
    if (b1 == 0xF0u)
        return b2 >= 0x90u;
    if (b1 == 0xF4u)
        return b2 < 0x90u;
    return true;
}

/* The steps of Java's UTF-8 decoder with replacement over s[*i..n): each
 * writes one or two UTF-16 code units to `out`, returns how many, and
 * advances *i. A malformed sequence becomes one U+FFFD per maximal
 * subpart, except for the encoded surrogates above, as new String(bytes,
 * UTF_8) does (checked against OpenJDK 17 and 25). */
static unsigned decode_2(const unsigned char *s, size_t n, size_t *i, uint16_t out[2])
{
    unsigned char b1 = s[*i];
    if (*i + 1 < n && continuation(s[*i + 1])) {
        out[0] = (uint16_t)(((b1 & 0x1Fu) << 6) | (s[*i + 1] & 0x3Fu));
        *i += 2;
    } else {
        out[0] = REPLACEMENT;
        *i += 1;
    }
    return 1;
}

static unsigned decode_3(const unsigned char *s, size_t n, size_t *i, uint16_t out[2])
{
    unsigned char b1 = s[*i];
    out[0] = REPLACEMENT;
    if (*i + 1 >= n || !second_of_3(b1, s[*i + 1])) {
        *i += 1;
        return 1;
    }
    if (*i + 2 >= n || !continuation(s[*i + 2])) {
        *i += 2;
        return 1;
    }
    unsigned c = ((b1 & 0x0Fu) << 12) | ((s[*i + 1] & 0x3Fu) << 6) | (s[*i + 2] & 0x3Fu);
    if (c < 0xD800u || c > 0xDFFFu)
        out[0] = (uint16_t)c;
    *i += 3;
    return 1;
}

static unsigned decode_4(const unsigned char *s, size_t n, size_t *i, uint16_t out[2])
{
    unsigned char b1 = s[*i];
    out[0] = REPLACEMENT;
    if (b1 > 0xF4u || *i + 1 >= n || !second_of_4(b1, s[*i + 1])) {
        *i += 1;
        return 1;
    }
    size_t k = 2;
    while (k < 4 && *i + k < n && continuation(s[*i + k]))
        k++;
    if (k < 4) {
        *i += k;
        return 1;
    }
    unsigned long c = ((b1 & 0x07ul) << 18) | ((s[*i + 1] & 0x3Ful) << 12) |
                      ((s[*i + 2] & 0x3Ful) << 6) | (s[*i + 3] & 0x3Ful);
    c -= 0x10000ul;
    out[0] = (uint16_t)(0xD800ul + (c >> 10));
    out[1] = (uint16_t)(0xDC00ul + (c & 0x3FFul));
    *i += 4;
    return 2;
}

static unsigned decode_units(const unsigned char *s, size_t n, size_t *i, uint16_t out[2])
{
    unsigned char b1 = s[*i];
    if (b1 < 0x80u) {
        out[0] = b1;
        *i += 1;
        return 1;
    }
    if (b1 >= 0xC2u && b1 <= 0xDFu)
        return decode_2(s, n, i, out);
    if (b1 >= 0xE0u && b1 <= 0xEFu)
        return decode_3(s, n, i, out);
    if (b1 >= 0xF0u && b1 <= 0xF7u)
        return decode_4(s, n, i, out);
    /* A stray continuation byte, C0, C1 or F8..FF. */
    out[0] = REPLACEMENT;
    *i += 1;
    return 1;
}

/* Java's int from the low 32 bits, without relying on the
 * implementation-defined unsigned-to-signed conversion. */
static int32_t to_int32(uint32_t u)
{
    if (u <= (uint32_t)INT32_MAX)
        return (int32_t)u;
    return (int32_t)(u - (uint32_t)INT32_MAX - 1u) + INT32_MIN;
}

/* java.lang.String.hashCode: s[0]*31^(n-1) + ... + s[n-1] over the UTF-16
 * code units, in int arithmetic (wrapping). */
int32_t ks_java_string_hash(const char *s)
{
    const unsigned char *b = (const unsigned char *)s;
    size_t n = strlen(s), i = 0;
    uint32_t h = 0;
    while (i < n) {
        uint16_t units[2];
        unsigned count = decode_units(b, n, &i, units);
        for (unsigned k = 0; k < count; k++)
            h = h * 31u + units[k];
    }
    return to_int32(h);
}

/* [K] clients/.../common/utils/Utils.abs: "If the number is Int.MinValue
 * return 0", Math.abs otherwise. */
static int32_t kafka_abs(int32_t n)
{
    if (n == INT32_MIN)
        return 0;
    return n < 0 ? -n : n;
}

/* [K] TransactionStateManager.partitionFor:
 * Utils.abs(transactionalId.hashCode) % transactionTopicPartitionCount. */
uint32_t ks_txn_partition_for(const char *transactional_id, uint32_t partitions)
{
    assert(partitions > 0 && partitions <= (uint32_t)INT32_MAX);
    return (uint32_t)kafka_abs(ks_java_string_hash(transactional_id)) % partitions;
}
