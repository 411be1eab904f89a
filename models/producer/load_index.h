/*
 * load_index.h - the adaptive partitioner's load statistics (KIP-794)
 * kept up to date as queues change, instead of rebuilt from every
 * partition at each RecordAccumulator.ready.
 *
 * Owns: a snapshot of each partition's queue length as of the last
 * ready() (the moment Kafka's updatePartitionLoadStats builds its table),
 * held in two Fenwick trees (how many partitions have a deque, and the sum
 * of their queue lengths) and a count of deques per length; and the list
 * of partitions whose queue changed since that snapshot.
 *
 * Kafka's table gives partition i the weight max + 1 - queue[i] and draws
 * the first entry whose running sum exceeds a uniform draw below the total;
 * the running sum up to partition k is (max + 1) x count(k) - sum(k), so a
 * descent of the two trees finds the same entry in O(log n), and the total
 * is known without building anything. Used only while no partition is
 * excluded for its leader's unavailability (partitioner.availability.
 * timeout.ms 0, the default); otherwise the sender builds Kafka's table.
 *
 * Never: reads the accumulator (it is told each change) or draws numbers.
 */
#ifndef KS_LOAD_INDEX_H
#define KS_LOAD_INDEX_H

#include <stdbool.h>
#include <stdint.h>

typedef struct ks_load_index {
    uint32_t n;           /* partitions it can hold */
    uint32_t *cnt, *sum;  /* Fenwick trees, 1-based */
    uint32_t *q;          /* per partition: its length in the snapshot */
    bool *in;             /* ... and whether it had a deque */
    uint32_t *by_len;     /* deques in the snapshot per queue length */
    uint32_t by_len_cap;
    uint32_t max;         /* the longest queue in the snapshot */
    uint32_t deques;      /* partitions with a deque in the snapshot */
    uint64_t total_len;   /* sum of their lengths */
    uint32_t *pending;    /* changed since the snapshot, and a flag each */
    bool *is_pending;
    uint32_t npending;
} ks_load_index;

bool ks_li_init(ks_load_index *li, uint32_t partitions);
void ks_li_free(ks_load_index *li);
/* Partition p's queue changed (length or having a deque at all). */
static inline void ks_li_touch(ks_load_index *li, uint32_t p)
{
    if (li->n && !li->is_pending[p]) {
        li->is_pending[p] = true;
        li->pending[li->npending++] = p;
    }
}
/* Takes a new snapshot: applies the pending partitions, whose current
 * state len(ctx, p, &has) gives. False when memory ran out. */
bool ks_li_snapshot(ks_load_index *li, uint32_t (*len)(const void *ctx, uint32_t p, bool *has),
                    const void *ctx);
/* Are all deques of the snapshot equally long? */
static inline bool ks_li_all_equal(const ks_load_index *li)
{
    return li->deques > 0 && li->by_len[li->max] == li->deques;
}
/* Sum of the weights max + 1 - queue over the snapshot's deques. */
static inline uint64_t ks_li_total(const ks_load_index *li)
{
    return (uint64_t)(li->max + 1u) * li->deques - li->total_len;
}
/* The first partition (in partition order) whose running weight exceeds
 * r, for r < ks_li_total. */
uint32_t ks_li_find(const ks_load_index *li, uint64_t r);

#endif
