/*
 * groups.h - group coordinators: the brokers that lead __consumer_offsets
 * partitions, and the offsets they keep for consumer groups.
 *
 * Owns: per group.id, its committed offsets (the next offset to read,
 * per partition) and the offsets transactional producers have sent for
 * it and whose transaction has not ended. Follows [K] GroupCoordinator,
 * GroupMetadataManager:
 *   FindCoordinator   (key type GROUP) any broker answers with the leader
 *                     of __consumer_offsets partition
 *                     abs(hash(group.id)) % offsets.topic.num.partitions;
 *                     ksim leads partition k from broker k % brokers;
 *   OffsetCommit      the offsets are the group's at once;
 *   OffsetFetch       the committed offsets (-1 where none); with
 *                     require_stable (v7+, read_committed consumers,
 *                     KIP-447) UNSTABLE_OFFSET_COMMIT while a transaction
 *                     holds offsets of the group for those partitions;
 *   TxnOffsetCommit   the offsets wait, keyed by producer id, until the
 *                     transaction's marker for the group's
 *                     __consumer_offsets partition reaches this broker
 *                     (WriteTxnMarkers): COMMIT makes them the group's
 *                     ("offset_commit" trace records), ABORT drops them.
 * The consumer's groups (JoinGroup, SyncGroup, heartbeats) come later:
 * each ksim consumer reads the partitions it is given.
 *
 * Never: touches a consumer, a producer or another broker; everything
 * goes through requests and responses.
 */
#ifndef KS_GROUPS_H
#define KS_GROUPS_H

#include "models/ctx.h"
#include "models/kafka/errors.h"
#include "models/kafka/metadata.h"

#include <stdbool.h>
#include <stdint.h>


typedef struct ks_pending_offset {
    int64_t producer_id;
    uint32_t partition;        /* world partition index */
    int64_t offset;
    const char *member_id;     /* who sent it (for the trace) */
} ks_pending_offset;

typedef struct ks_group {
    char *group_id;
    uint32_t offsets_partition;/* its __consumer_offsets partition */
    uint32_t *parts;           /* committed offsets: world partition ... */
    int64_t *committed;        /* ... and the next offset to read */
    uint32_t nparts, parts_cap;
    ks_pending_offset *pending;/* sent in transactions not yet ended */
    uint32_t npending, pending_cap;
} ks_group;

/* One broker's group coordinator. */
typedef struct ks_groups {
    uint32_t broker;             /* its broker */
    const ks_meta *meta;         /* its broker's image of the cluster */
    ks_group *groups;
    uint32_t count, cap;
} ks_groups;

void ks_groups_init(ks_groups *g, uint32_t broker, const ks_meta *meta);
void ks_groups_free(ks_groups *g);

/* OffsetCommit, OffsetFetch, TxnOffsetCommit (ks_broker_handler);
 * answered at once: they return true. A group this broker does not
 * coordinate (by its image) is answered NOT_COORDINATOR. */
bool ks_groups_offset_commit(ks_groups *g, ks_ctx *cx, uint32_t req);
bool ks_groups_offset_fetch(ks_groups *g, ks_ctx *cx, uint32_t req);
bool ks_groups_txn_offset_commit(ks_groups *g, ks_ctx *cx, uint32_t req);
/* A WriteTxnMarkers entry for __consumer_offsets partition k reached its
 * leader: the transaction of producer_id commits or aborts the offsets
 * it holds for the groups of that partition. */
void ks_groups_marker(ks_groups *g, ks_ctx *cx, uint32_t k, int64_t producer_id, bool commit);

#endif
