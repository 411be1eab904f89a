/*
 * coordinator.h - transaction coordinators: the brokers that lead
 * __transaction_state partitions, their transaction metadata, their log
 * writes, the transaction markers they send, and their timeout scan.
 *
 * Owns: per transactional.id, its ks_txn_meta (models/broker/txn_state.h, which
 * decides every answer) and the coordinator's work in progress: the
 * request waiting for a log write, the markers not yet acknowledged.
 * Follows [K] TransactionCoordinator (handleFindCoordinator lives in the
 * KafkaApis), TransactionMarkerChannelManager and
 * TransactionStateManager:
 *   FindCoordinator   any broker answers with the leader of
 *                     __transaction_state partition
 *                     abs(hash(transactional.id)) % transaction.state.log.
 *                     num.partitions; ksim leads partition k from broker
 *                     k % brokers;
 *   InitProducerId    without a transactional.id: a fresh producer id
 *                     (the idempotent producer); with one: the
 *                     coordinator's decision, written to the log first;
 *   AddPartitionsToTxn, EndTxn  likewise;
 *   markers           after PrepareCommit/PrepareAbort is written (the
 *                     client is answered then), one WriteTxnMarkers
 *                     request to each leader of the transaction's
 *                     partitions, over the network like any request
 *                     (models/broker/broker.h, the broker as a client);
 *                     the leader handles it on its request threads and
 *                     appends a control record per partition; when every
 *                     leader has answered, CompleteCommit/CompleteAbort is
 *                     written; a marker request whose message or answer
 *                     a fault lost ("api": "WriteTxnMarkers") is given up
 *                     when the coordinator's request.timeout.ms runs out
 *                     (the broker as a client closes the connection) and
 *                     sent again;
 *   timeout scan      every transaction.abort.timed.out.transaction.
 *                     cleanup.interval.ms, Ongoing transactions older than
 *                     their transaction.timeout.ms are fenced and aborted.
 * Every write to __transaction_state takes brokers.cost.txn.log.write.ms
 * of the coordinator; every state change is a "txn" trace record.
 * With KIP-890 (transaction version 2) the leader adds a partition to the
 * transaction when the first transactional batch of it arrives (ksim
 * does not model the verification round trip itself).
 *
 * Never: touches the producer; everything goes through requests and
 * responses.
 */
#ifndef KS_COORDINATOR_H
#define KS_COORDINATOR_H

#include "models/broker/io.h"
#include "models/broker/txn_state.h"
#include "models/ctx.h"
#include "models/kafka/metadata.h"
#include "models/net/request.h"
#include "models/kafka/errors.h"
#include "models/events.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ks_coord_txn {
    ks_txn_meta meta;
    uint32_t broker;            /* its coordinator */
    bool kip890;
    uint32_t waiting_req;       /* answered when the pending write is done */
    ks_txn_decision pending;    /* the decision being written */
    uint32_t *add;              /* AddPartitionsToTxn: the partitions asked for */
    uint32_t nadd, add_cap;
    uint32_t markers_pending;
    bool marker_commit;
    int64_t marker_pid;
    int16_t marker_epoch;
    ks_time decided_ns;         /* when its last Prepare* state was written */
} ks_coord_txn;

/* One broker's transaction coordinator: the transactions of the
 * __transaction_state partitions it leads. */
typedef struct ks_coordinators {
    ks_bio *io;                 /* its broker's, to answer and to send markers */
    const ks_meta *meta;        /* its broker's image of the cluster */
    ks_coord_txn *txns;
    uint32_t count, cap;
    uint32_t *scratch;          /* a request's partitions, before its decision */
    uint32_t scratch_cap;
    ks_handle scan;             /* the timeout scan, while a transaction is Ongoing */
    ks_time scan_at;
    ks_time scan_interval_ns;
    ks_time max_timeout_ns;     /* transaction.max.timeout.ms */
    /* its producer ids ([K] ProducerIdManager): the block the controller
     * handed its broker, then the next ones, KS_PRODUCER_ID_BLOCK each */
    int64_t first_producer_id;  /* the cluster's first.producer.id */
    uint64_t block;             /* the block in use: first + block * size */
    int64_t next_producer_id, block_end;
} ks_coordinators;

/* Producer ids in a block the controller hands a broker ([K]
 * ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE). */
#define KS_PRODUCER_ID_BLOCK 1000

void ks_coord_init(ks_coordinators *c, const ks_scenario *sc, ks_bio *io, const ks_meta *meta);
void ks_coord_free(ks_coordinators *c);
/* The coordinator's requests (ks_broker_handler: true when answered now;
 * false when the coordinator answers later, with ks_bio_respond, once
 * its log write is done). A transactional.id this broker does not
 * coordinate (by its image) is answered NOT_COORDINATOR. */
bool ks_coord_init_producer_id(ks_coordinators *c, ks_ctx *cx, uint32_t req);
bool ks_coord_add_partitions(ks_coordinators *c, ks_ctx *cx, uint32_t req);
bool ks_coord_add_offsets(ks_coordinators *c, ks_ctx *cx, uint32_t req);
bool ks_coord_end_txn(ks_coordinators *c, ks_ctx *cx, uint32_t req);
/* The answer to WriteTxnMarkers request `req` reached the coordinator. */
void ks_coord_markers_answered(ks_coordinators *c, ks_ctx *cx, uint32_t req);
/* ... or the request was given up: its connection closed when the
 * coordinator's request.timeout.ms ran out on it. */
void ks_coord_markers_given_up(ks_coordinators *c, ks_ctx *cx, uint32_t req);
/* KS_EV_TXN events (owner: the broker; arg: the transaction). */
void ks_coord_on_event(ks_coordinators *c, ks_ctx *cx, uint32_t tag, uint64_t arg);
/* A paused broker's timeout scan moved to `at` under handle h. */
static inline void ks_coord_rehandle_scan(ks_coordinators *c, ks_handle h, ks_time at)
{
    c->scan = h;
    c->scan_at = at;
}
/* The transaction of a transactional.id, or NULL. */
const ks_coord_txn *ks_coord_lookup(const ks_coordinators *c, const char *transactional_id);

#define KS_COORD_WRITTEN 1u     /* a log write is done */
#define KS_COORD_SCAN 4u        /* the timeout scan */

#endif
