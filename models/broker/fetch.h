/*
 * fetch.h - a partition leader's answers to consumers: Fetch, with the
 * fetch purgatory, and ListOffsets.
 *
 * Owns (ks_fetches): the fetches a broker holds until data comes
 * (DelayedFetch). Follows [K] ReplicaManager.fetchMessages and
 * DelayedFetch:
 *   Fetch        each partition of the request is read from its fetch
 *                offset up to the high watermark (read_uncommitted) or
 *                the last stable offset (read_committed), in the order
 *                the request lists them, skipping control records and,
 *                for read_committed, the data of aborted transactions
 *                (models/broker/plog.h; ksim applies CompletedFetch's
 *                filter at the leader, so the answer carries the records
 *                the consumer keeps). With nothing to return, the request
 *                waits up to its max_wait (fetch.max.wait.ms, fetch.min.
 *                bytes 1): an append or a marker in one of its partitions
 *                answers it at once; at the deadline it is answered
 *                empty. Its connection stays muted meanwhile. A partition
 *                the broker does not lead is answered
 *                NOT_LEADER_OR_FOLLOWER.
 *   ListOffsets  per partition, timestamp -2 (earliest): the log start,
 *                0 (ksim deletes nothing); -1 (latest): the high
 *                watermark, or the last stable offset for read_committed.
 * The deadline is a daemon: a consumer waiting for data keeps no run
 * alive.
 *
 * Never: reads another broker's logs.
 */
#ifndef KS_FETCH_H
#define KS_FETCH_H

#include "models/broker/io.h"
#include "models/broker/replicas.h"
#include "models/ctx.h"
#include "models/kafka/metadata.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ks_fetches {
    ks_bio *io;              /* its broker's, to answer */
    const ks_replicas *replicas;
    const ks_meta *meta;
    uint32_t *parked;        /* fetches waiting for data */
    uint32_t nparked, parked_cap;
} ks_fetches;

void ks_fetches_init(ks_fetches *f, ks_bio *io, const ks_replicas *replicas, const ks_meta *meta);
void ks_fetches_free(ks_fetches *f);
/* Fetch: returns true when answered now, false when it waits (it is
 * answered later with ks_bio_respond). */
bool ks_fetch_handle(ks_fetches *f, ks_ctx *cx, uint32_t req);
/* ListOffsets, answered now (returns true). */
bool ks_fetch_list_offsets(ks_fetches *f, ks_ctx *cx, uint32_t req);
/* Data or a marker was appended to partition `partition`: waiting
 * fetches that can now read answer. */
void ks_fetch_wake(ks_fetches *f, ks_ctx *cx, uint32_t partition);
/* A waiting fetch's deadline (KS_BROKER_FETCH_TIMEOUT). */
void ks_fetch_on_timeout(ks_fetches *f, ks_ctx *cx, uint32_t req);

#endif
