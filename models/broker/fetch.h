/*
 * fetch.h - a partition leader's answers to consumers: Fetch, with the
 * fetch purgatory, and ListOffsets.
 *
 * Owns: the fetches a broker holds until data comes (DelayedFetch).
 * Follows [K] ReplicaManager.fetchMessages and DelayedFetch:
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
 *                empty. Its connection stays muted meanwhile.
 *   ListOffsets  per partition, timestamp -2 (earliest): the log start,
 *                0 (ksim deletes nothing); -1 (latest): the high
 *                watermark, or the last stable offset for read_committed.
 * The deadline is a daemon: a consumer waiting for data keeps no run
 * alive.
 */
#ifndef KS_FETCH_H
#define KS_FETCH_H

#include <stdbool.h>
#include <stdint.h>

struct ks_world;

/* Fetch at `broker`: returns true when answered now, false when it waits
 * (ks_broker_respond answers it later). */
bool ks_fetch_handle(struct ks_world *w, uint32_t broker, uint32_t req);
/* ListOffsets at `broker`, answered now (returns true). */
bool ks_fetch_list_offsets(struct ks_world *w, uint32_t broker, uint32_t req);
/* Data or a marker was appended to world partition `partition` at its
 * leader `broker`: waiting fetches that can now read answer. */
void ks_fetch_wake(struct ks_world *w, uint32_t broker, uint32_t partition);
/* A waiting fetch's deadline (KS_BROKER_FETCH_TIMEOUT). */
void ks_fetch_on_timeout(struct ks_world *w, uint32_t broker, uint32_t req);

#endif
