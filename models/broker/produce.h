/*
 * produce.h - a partition leader's side of Produce and WriteTxnMarkers:
 * appending batches and transaction markers to the logs of the replicas
 * it holds.
 *
 * Owns (ks_leader): what a leader counts (records appended, batches
 * refused as too large) and the scratch of a batch's record ids. Follows
 * [K] ReplicaManager.appendRecords and UnifiedLog: per batch an injected
 * error (append.error), the topic's max.message.bytes, the idempotent
 * producer's checks (producer_state.h), then the append at the log end
 * offset; a batch of a partition the broker does not lead is answered
 * NOT_LEADER_OR_FOLLOWER. Since 3.6 (KIP-890 part 1) a transactional
 * batch whose producer has no ongoing transaction in the partition waits
 * for the coordinator's verification (AddPartitionsToTxn v4, or v5 adding
 * the partition under transaction version 2), a request the leader sends
 * as a client; the produce request's connection stays muted meanwhile.
 * WriteTxnMarkers appends one control record per partition; for
 * __consumer_offsets partitions the group coordinator completes the
 * transaction's offsets.
 *
 * Never: reads another broker's replicas or the coordinator's state:
 * what it knows of a transaction comes in messages.
 */
#ifndef KS_PRODUCE_H
#define KS_PRODUCE_H

#include "models/broker/fetch.h"
#include "models/broker/groups.h"
#include "models/broker/io.h"
#include "models/broker/replicas.h"
#include "models/ctx.h"
#include "models/kafka/metadata.h"
#include "models/net/faults.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ks_leader {
    ks_bio *io;              /* its broker's */
    const ks_meta *meta;
    ks_replicas *replicas;
    ks_fetches *fetches;     /* woken by appends */
    ks_groups *groups;       /* markers of __consumer_offsets partitions */
    ks_faults *faults;       /* append.error, asked at each append */
    uint64_t *log_ids;       /* scratch: a batch's record ids for the log */
    uint32_t log_ids_cap;
    uint64_t records;        /* appended */
    uint64_t too_large;      /* batches refused with MESSAGE_TOO_LARGE */
} ks_leader;

void ks_leader_init(ks_leader *l, ks_bio *io, const ks_meta *meta, ks_replicas *replicas,
                    ks_fetches *fetches, ks_groups *groups, ks_faults *faults);
void ks_leader_free(ks_leader *l);
/* Produce (ks_broker_handler): true when answered now, false when it
 * waits for the coordinator's verification (answered later). */
bool ks_leader_produce(ks_leader *l, ks_ctx *cx, uint32_t req);
/* WriteTxnMarkers, answered now (returns true). */
bool ks_leader_write_markers(ks_leader *l, ks_ctx *cx, uint32_t req);
/* The coordinator answered verification request `vreq` (given_up: it
 * was given up, every partition then failing with NETWORK_EXCEPTION):
 * the produce request it was for is appended or refused, and answered. */
void ks_leader_verified(ks_leader *l, ks_ctx *cx, uint32_t vreq, bool given_up);

#endif
