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
#include "models/producer/partitioner.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {
#define X(e, name) name,
    KS_PARTITIONERS(X)
#undef X
};

const char *ks_partitioner_name(ks_partitioner_kind k)
{
    assert((unsigned)k < (unsigned)KS_PARTITIONER__COUNT);
    return kind_names[k];
}

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

bool ks_partitioner_init(ks_partitioner *pp, ks_partitioner_kind kind, uint32_t partitions,
                         int64_t batch_size, ks_rng *rng)
{
    memset(pp, 0, sizeof *pp);
    pp->kind = kind;
    pp->partitions = partitions;
    pp->rng = rng;
    pp->current = -1;
    pp->batch_size = batch_size < 1 ? 1 : batch_size;
    /* DefaultPartitioner's topic counter starts at a random int
     * (new AtomicInteger(ThreadLocalRandom.current().nextInt())). */
    if (kind == KS_PARTITIONER_ROUND_ROBIN)
        pp->counter = ks_rng_next(rng);
    if (kind == KS_PARTITIONER_UNIFORM_STICKY) {
        pp->cft = calloc(partitions, sizeof *pp->cft);
        pp->cft_ids = calloc(partitions, sizeof *pp->cft_ids);
        if (!pp->cft || !pp->cft_ids) {
            ks_partitioner_free(pp);
            return false;
        }
    }
    return true;
}

void ks_partitioner_free(ks_partitioner *pp)
{
    free(pp->cft);
    free(pp->cft_ids);
    pp->cft = pp->cft_ids = NULL;
}

uint32_t ks_rr_next(ks_partitioner *pp)
{
    uint32_t v = pp->counter++;
    return ks_to_positive((int32_t)v) % pp->partitions;
}

/* A uniformly random partition other than `old` when there are two or
 * more (KIP-480 re-draws until it differs). */
static uint32_t random_other(ks_partitioner *pp, int64_t old)
{
    if (pp->partitions == 1)
        return 0;
    for (;;) {
        uint32_t p = ks_rng_bounded(pp->rng, pp->partitions);
        if ((int64_t)p != old)
            return p;
    }
}

/* Each choice of a sticky partition, the first one included, counts as
 * a switch, as uniform_sticky's us_next counts them (the summary's
 * partition_switches: sticky choices made). */
uint32_t ks_sticky_partition(ks_partitioner *pp)
{
    if (pp->current < 0) {
        pp->current = random_other(pp, -1);
        pp->switches++;
    }
    return (uint32_t)pp->current;
}

void ks_sticky_on_new_batch(ks_partitioner *pp, uint32_t prev)
{
    if (pp->current < 0 || pp->current == (int64_t)prev) {
        pp->current = random_other(pp, pp->current);
        pp->switches++;
    }
}

/* BuiltInPartitioner.nextPartition: uniform when there are no load
 * stats (the current partition may be chosen again), else the first CFT
 * entry strictly greater than a uniform draw below the table's total. */
static uint32_t us_next(ks_partitioner *pp)
{
    pp->switches++;
    if (pp->li)
        return ks_li_find(pp->li, ks_rng_bounded(pp->rng, (uint32_t)ks_li_total(pp->li)));
    if (pp->stats_len == 0)
        return ks_rng_bounded(pp->rng, pp->partitions);
    uint32_t total = pp->cft[pp->stats_len - 1];
    uint32_t r = ks_rng_bounded(pp->rng, total);
    uint32_t lo = 0, hi = pp->stats_len - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pp->cft[mid] > r)
            hi = mid;
        else
            lo = mid + 1;
    }
    return pp->cft_ids[lo];
}

uint32_t ks_us_partition(ks_partitioner *pp)
{
    if (pp->current < 0) {
        pp->current = us_next(pp);
        pp->produced_bytes = 0;
    }
    return (uint32_t)pp->current;
}

void ks_us_update(ks_partitioner *pp, int64_t appended, bool enable_switch)
{
    pp->produced_bytes += appended;
    if ((pp->produced_bytes >= pp->batch_size && enable_switch) ||
        pp->produced_bytes >= 2 * pp->batch_size) {
        pp->current = us_next(pp);
        pp->produced_bytes = 0;
    }
}

void ks_us_load_stats(ks_partitioner *pp, const uint32_t *queue, const uint32_t *ids,
                      uint32_t length, bool all)
{
    /* No stats: adaptive off, fewer than two partitions, or not every
     * partition has a queue yet; then the choice is uniform. */
    pp->li = NULL;
    if (!all || length < 1 || pp->partitions < 2) {
        pp->stats_len = 0;
        return;
    }
    uint32_t max_plus_1 = queue[0];
    bool all_equal = true;
    for (uint32_t i = 1; i < length; i++) {
        if (queue[i] != queue[0])
            all_equal = false;
        if (queue[i] > max_plus_1)
            max_plus_1 = queue[i];
    }
    max_plus_1++;
    if (all_equal && length == pp->partitions) {
        pp->stats_len = 0;
        return;
    }
    /* Invert (max + 1 - queue) and fold into a running sum: queue sizes
     * 0, 3, 1 give weights 4, 1, 3 and the table 4, 5, 8. */
    uint32_t sum = 0;
    for (uint32_t i = 0; i < length; i++) {
        sum += max_plus_1 - queue[i];
        pp->cft[i] = sum;
        pp->cft_ids[i] = ids[i];
    }
    pp->stats_len = length;
}

void ks_us_load_index(ks_partitioner *pp, const ks_load_index *li, bool all)
{
    pp->stats_len = 0;
    pp->li = NULL;
    /* as ks_us_load_stats decides, with length = every deque */
    if (!all || li->deques < 1 || pp->partitions < 2)
        return;
    if (ks_li_all_equal(li) && li->deques == pp->partitions)
        return;
    pp->li = li;
}
