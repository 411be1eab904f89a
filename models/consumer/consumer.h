/*
 * consumer.h - consumer clients: the application's poll loop over
 * KafkaConsumer, which talks to the brokers only in messages.
 *
 * Owns: one consumer's positions (the next offset to hand to the
 * application, per assigned partition), its fetch positions (the next
 * offset to fetch), the records fetched and not yet returned, what it
 * knows of its group's committed offsets, and its requests in flight.
 * Follows [K] KafkaConsumer, ConsumerCoordinator and Fetcher:
 *   start    FindCoordinator (key type GROUP) to any broker, then
 *            OffsetFetch to the group coordinator (require_stable for
 *            read_committed consumers, KIP-447: UNSTABLE_OFFSET_COMMIT is
 *            retried after retry.backoff.ms); partitions without a
 *            committed offset are reset with ListOffsets to their leaders
 *            (auto.offset.reset: earliest, or latest as Kafka defaults);
 *   poll     poll() returns up to max.poll.records records already
 *            fetched; it sends a Fetch to each leader with fetchable
 *            partitions (none in flight to it, none buffered), and when
 *            it has nothing to return it waits for their answers; a
 *            leader with nothing to give holds the fetch up to
 *            fetch.max.wait.ms (models/broker/fetch.h);
 *   deliver  the records poll() returns ("consume" trace records) are
 *            processed one by one (process.us each), each forwarded to
 *            the forward producer (forward.to) when done; then the
 *            application commits: "sync" sends an OffsetCommit of the
 *            positions and waits for the answer; "transaction" hands the
 *            positions to the forward producer (sendOffsetsToTransaction:
 *            AddOffsetsToTxn and TxnOffsetCommit travel in its
 *            transaction) and waits for commitTransaction; "none"
 *            commits nothing. It polls again poll.interval.ms later.
 * Its metadata (which broker leads each partition) is the cluster's at
 * the start, as for a client that has bootstrapped, and what its
 * Metadata answers said since (consumer_net.h).
 * crash.consumer (a fault) stops the process: what it had fetched or sent
 * is gone; a restart is a new instance that starts over from the group's
 * committed offsets, so what was read but not committed is read again.
 *
 * Never: reads a log, the coordinator's state or a producer's state; it
 * hands records and offsets to its own application's producer only
 * (ks_producer_forward, ks_producer_send_offsets).
 */
#ifndef KS_CONSUMER_H
#define KS_CONSUMER_H

#include "models/consumer/consumer_state.h"
#include "models/kafka/metadata.h"

#include <stdbool.h>
#include <stdint.h>


/* The consumer node's operations (models/net/node.h). */
extern const ks_node_ops ks_consumer_ops;

/* Consumer `index` of the scenario, bootstrapped with the cluster's
 * metadata `bootstrap` (the leaders of its partitions). False when out
 * of memory. */
bool ks_consumer_init(ks_consumer *c, ks_ctx *cx, uint32_t index, const ks_meta *bootstrap);
void ks_consumer_free(ks_consumer *c);
/* The answer to request `req` reached the consumer. */
void ks_consumer_on_response(ks_consumer *c, ks_ctx *cx, uint32_t req);
/* commit "transaction": the application's commitTransaction returned:
 * the positions it sent are the group's committed offsets; it polls
 * again. */
void ks_consumer_txn_committed(ks_consumer *c, ks_ctx *cx, const int64_t *offsets);
/* ... or the transaction aborted: it seeks back to the committed offsets
 * and reads again. */
void ks_consumer_txn_aborted(ks_consumer *c, ks_ctx *cx);


#endif
