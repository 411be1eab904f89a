/*
 * ready_index.h - which of a producer's partitions can be sent, per
 * broker, without visiting the partitions that have nothing to send.
 *
 * Owns: the producer's partitions grouped by leader (each broker's list in
 * partition order, as RecordAccumulator's drain walks it) and, per broker,
 * two min-trees over that list holding each partition's head batch's
 * readiness time: the time from which RecordAccumulator.ready counts it
 * ready, and the same when memory is exhausted (then only a retry's
 * backoff holds a batch). A partition with no batch, or muted, holds
 * KS_TIME_MAX; a head ready at any time holds INT64_MIN.
 *
 * The accumulator (accumulator.c) computes the keys and tells the index
 * whenever a deque's head changes; the queries then cost O(log n) per
 * broker, or per partition found (plus a block's scan), however many
 * partitions exist. They give
 * exactly what a walk over every partition in order would: ready() counts
 * a not-yet-ready partition towards the next check only if it comes
 * before the broker's first ready one (Kafka skips the partitions of a
 * node already found ready).
 *
 * Never: reads batches or deques itself.
 */
#ifndef KS_READY_INDEX_H
#define KS_READY_INDEX_H

#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

#define KS_RI_NONE UINT32_MAX

/* A tree node: the minimum ready-from time below it ([0]), and the same
 * when memory is exhausted ([1]); kept together, so one walk mends both.
 * The same pair is each partition's own value. */
typedef struct ks_ri_node {
    ks_time k[2];
} ks_ri_node;

/* A tree's leaf stands for a block of this many places of its broker's
 * list (their minima), so that the trees cost 2 x 16 bytes per block
 * instead of per partition, padded to a power of two: at 100 000
 * partitions 0.8 MB instead of 6.3. A block is scanned whole. */
#define KS_RI_BLOCK 8u

/* A broker's part of the index: its slice of `parts` and `vals`, its
 * trees, and how many of its partitions have a queued batch. Kept
 * together: a sender's run reads them for every broker. */
typedef struct ks_ri_broker {
    uint32_t start;      /* its slice of `parts` and `vals` */
    uint32_t count;      /* partitions it leads */
    uint32_t leaves;     /* tree width in blocks (a power of two) */
    uint32_t base;       /* its trees' offset in `nodes` */
    uint32_t queued;     /* partitions with a queued batch */
} ks_ri_broker;

/* A partition's part: its leader, its place in the leader's list, and
 * whether it has a queued batch (8 bytes: an index holds fewer than 2^31
 * partitions). */
typedef struct ks_ri_place {
    uint32_t broker;
    unsigned pos : 31;
    unsigned has : 1;
} ks_ri_place;

typedef struct ks_ready_index {
    uint32_t partitions, brokers;
    /* One allocation holds the arrays below, the per-broker parts first,
     * so that a small producer's index lies in a few cache lines. */
    ks_ri_broker *bk;    /* per broker */
    ks_ri_node *nodes;   /* per broker, 2 x leaves: a heap-ordered tree of
                            both minima, over blocks of KS_RI_BLOCK places */
    ks_ri_node *vals;    /* per place of `parts`: its partition's values */
    ks_ri_place *at;     /* per partition */
    uint32_t *parts;     /* partitions grouped by broker, ascending */
} ks_ready_index;

/* (Re)builds the index for `partitions` partitions led by leader[p]; every
 * partition starts with nothing to send. False when memory ran out, or
 * for 2^31 partitions or more (the old index is kept). */
bool ks_ri_build(ks_ready_index *ri, uint32_t partitions, uint32_t brokers,
                 const uint32_t *leader);
void ks_ri_free(ks_ready_index *ri);

/* Partition p's head: its two readiness times, and whether its deque
 * holds a batch at all (muted or not). */
void ks_ri_set(ks_ready_index *ri, uint32_t p, ks_time ready, ks_time ready_exhausted,
               bool queued);

/* For invariant checks: does the index hold exactly these for partition
 * p? Is every tree node the minimum of its children, and every broker's
 * count of queued partitions right (O(partitions))? */
bool ks_ri_holds(const ks_ready_index *ri, uint32_t p, ks_time ready, ks_time ready_exhausted,
                 bool queued);
bool ks_ri_consistent(const ks_ready_index *ri);

/* The partitions broker b leads, and the i-th of them. */
static inline uint32_t ks_ri_count(const ks_ready_index *ri, uint32_t b)
{
    return ri->bk[b].count;
}
static inline uint32_t ks_ri_part(const ks_ready_index *ri, uint32_t b, uint32_t i)
{
    return ri->parts[ri->bk[b].start + i];
}

/* Is one of broker b's partitions ready at `now`? Lowers *next to the
 * earliest readiness time of those before its first ready one. */
bool ks_ri_ready(const ks_ready_index *ri, uint32_t b, ks_time now, bool exhausted,
                 ks_time *next);
/* The first place >= from in broker b's list whose head is ready at `now`
 * when memory is exhausted (a batch drain may take), or KS_RI_NONE. */
uint32_t ks_ri_next_drainable(const ks_ready_index *ri, uint32_t b, uint32_t from, ks_time now);

#endif
