/*
 * checker.h - the delivery checker: for every record, what its producer
 * was told against what the partition logs hold, with the cause of every
 * anomaly.
 *
 * Owns: per batch in flight, a ledger entry from the first time a request
 * carries it until it is settled: the application has been told its
 * outcome and no copy of it is still travelling or queued (every request
 * that carried it was appended, refused or lost). A settled batch is
 * judged at once and forgotten, so memory follows what is in flight, not
 * the record count. Batches are the unit because Kafka retries whole
 * batches: every copy of a record is a copy of its batch.
 *
 * Verdicts, named after Jepsen's queue checker ([J-kafka]):
 *   lost               told acked (with or without offset), no copy in any log
 *   duplicate          more than one copy in the logs
 *   nonmonotonic_send  its batch's first copy landed after a later batch of
 *                      the same producer and partition (log order differs
 *                      from send order)
 *   failed_but_present told it failed, yet a copy is in a log
 *   indeterminate      never told anything by the end of the run
 * A record can carry several verdicts (a duplicate that was also
 * reordered). Counts are of records; `extra_copies` counts the surplus
 * copies of duplicated records. The names, their order in the summary and
 * in "kinds", and the transactional verdicts (ks_checker_watch_reads) are
 * listed once, in models/check/verdicts.h.
 *
 * Every anomaly lists its copies (offset, request, attempt) and, for each
 * request that carried the batch, what became of it (its response: answered,
 * dropped by fault N, discarded when the connection closed, timed out;
 * or the request itself dropped by fault N), which is the cause: "request
 * 1 appended it at offset 0, its response was dropped by fault 0; the
 * retry, request 2, appended it again at offset 1".
 *
 * Observes from beside: the nodes report to models/obs.h and the world
 * makes the checker their observer; the checker never answers them.
 * Knows nothing about Kafka beyond producers, partitions, batches,
 * requests and offsets. Ownership: names passed to ks_checker_create are
 * borrowed and must outlive the checker.
 */
#ifndef KS_CHECKER_H
#define KS_CHECKER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/obs.h"

#define KS_CHECK_NO_FAULT KS_OBS_NO_FAULT
/* Anomalies listed in detail in the summary; beyond it only counted. */
#define KS_CHECK_LIST_MAX 100u

typedef struct ks_checker ks_checker;

/* producer_ids[producers] and partition_names[partitions] ("events-0")
 * name things in the summary. Returns NULL when out of memory. */
ks_checker *ks_checker_create(uint32_t producers, const char *const *producer_ids,
                              uint32_t partitions, const char *const *partition_names);
void ks_checker_free(ks_checker *c);
/* The checker as the run's observer (models/obs.h): every observation
 * point calls the ks_checker_* function of the same name below. */
ks_obs ks_checker_observer(ks_checker *c);

/* A request (numbered `request` by its producer) carrying batch `batch`
 * (the producer's batch id, unique per producer and increasing in
 * creation order) of `partition`, holding `records` records, left the
 * producer; `attempt` counts from 1. */
void ks_checker_sent(ks_checker *c, uint32_t producer, uint64_t batch, uint32_t partition,
                     uint32_t records, uint64_t request, uint32_t attempt);
/* The leader appended that copy at base_offset. */
void ks_checker_appended(ks_checker *c, uint32_t producer, uint64_t batch, uint64_t request,
                         int64_t base_offset);
/* The copy did not reach a log: the leader refused it (an error, or a
 * duplicate it recognised; `why` is the error name, "DUPLICATE" for
 * those) or the request was lost on the way. */
void ks_checker_not_appended(ks_checker *c, uint32_t producer, uint64_t batch,
                             uint64_t request, const char *why);
/* What became of request `request` of `producer`; fault is the index of
 * the scenario's fault responsible, or KS_CHECK_NO_FAULT. May be called
 * before or after the appends of its batches. */
void ks_checker_request_fate(ks_checker *c, uint32_t producer, uint64_t request,
                             ks_request_fate fate, int32_t fault);
/* The application was told the outcome of the batch's records
 * (record_ids[0..n), in the batch's order). For records that never made
 * it into a sent batch (rejected by send(), or expired in the
 * accumulator), pass batch = KS_CHECK_NO_BATCH. `error` is the exception
 * name or NULL; `offset` the base offset told (-1 if none). The ids are
 * copied only if the batch is not settled yet. */
#define KS_CHECK_NO_BATCH KS_OBS_NO_BATCH
void ks_checker_told(ks_checker *c, uint32_t producer, uint64_t batch, uint32_t partition,
                     ks_told told, const char *error, int64_t offset,
                     const uint64_t *record_ids, uint32_t n);
/* `batch`, refused as too large, was split: `records` of its records go
 * on in the new batch `into` (once per new batch, before it is sent).
 * The new batch takes the old one's place in the partition's order (a
 * batch queued behind the old one that lands after the new ones is not
 * reordered); the old one is forgotten, unjudged, once all its records
 * have moved on, since the leader refused it whole. */
void ks_checker_split(ks_checker *c, uint32_t producer, uint64_t batch, uint64_t into,
                      uint32_t partition, uint32_t records);
/* Records that were never told anything: still in the accumulator or in
 * flight when the run ended. Call once per producer at the end, before
 * the summary, for records not in any ledger entry (never sent). */
void ks_checker_untold(ks_checker *c, uint32_t producer, uint64_t records);

/* Transactions and consumers (call ks_checker_watch_reads first, when the
 * scenario has consumers): records whose transaction aborted, and the
 * records read_committed consumers read. A record both read committed
 * and aborted (or told failed) is an aborted read (Jepsen's G1a). */
void ks_checker_watch_reads(ks_checker *c);
void ks_checker_aborted(ks_checker *c, const uint64_t *ids, uint32_t n);
void ks_checker_read(ks_checker *c, uint32_t consumer, uint64_t record, bool read_committed,
                     bool transactional, int64_t now);
/* After ks_checker_finish: the records of aborted transactions a
 * consumer read uncommitted (the summary's consumers.ID.read_aborted). */
uint64_t ks_checker_read_aborted(const ks_checker *c, uint32_t consumer);
/* Consume-transform-produce: `record` was written for record `source`,
 * which a consumer read (call before the reads of `record`). Two records
 * written for one source and both read by one consumer: processed twice. */
void ks_checker_forward(ks_checker *c, uint64_t record, uint64_t source);
/* A read_committed consumer reads this partition (transactions are
 * judged only on the partitions consumers read). */
void ks_checker_reads_partition(ks_checker *c, uint32_t partition);
/* The producer's transaction `txn` committed (decided at decided_ns):
 * its records ids[0..n), written to partitions[0..n). A committed
 * transaction read in part is torn; a record read before decided_ns is a
 * precommitted read. */
void ks_checker_txn_committed(ks_checker *c, uint32_t producer, uint64_t txn, int64_t decided_ns,
                              const uint64_t *ids, const uint32_t *partitions, uint32_t n);
/* Records a producer sent in the transaction it was fenced in (zombie
 * writes): read committed, they are a zombie write made visible. */
void ks_checker_zombie(ks_checker *c, const uint64_t *ids, uint32_t n);

/* Judges every entry still open, in ascending (producer, batch) order
 * (their records are indeterminate unless told), and returns the verdicts
 * (docs/trace.md, "delivery"), keys in this order:
 * {"records": {"acked", "acked_no_offset", "failed", "untold"},
 *  "lost": n, "duplicate": n, "extra_copies": n, "nonmonotonic_send": n,
 *  "failed_but_present": n, "indeterminate": n, "ok": bool,
 *  "anomalies": [...first KS_CHECK_LIST_MAX, in the order judged...],
 *  "anomalies_total": n}
 * and "out_of_memory": true after them if an allocation failed (some
 * events were then not recorded). "ok" is false when any count but
 * extra_copies is nonzero, indeterminate included, or memory ran out.
 * Caller owns the result; NULL when out of memory. Call once, at the end. */
json_t *ks_checker_finish(ks_checker *c);

/* What the checker holds now: batches in the ledger, and bytes allocated
 * (ledger and request tables, entries, copied record ids, interned error
 * names; not the at most KS_CHECK_LIST_MAX anomalies already listed).
 * For tests and memory reports. */
uint64_t ks_checker_open_batches(const ks_checker *c);
size_t ks_checker_bytes(const ks_checker *c);
/* For tests: after n more allocations, every allocation the checker makes
 * fails as if memory had run out. */
void ks_checker_fail_allocations_after(ks_checker *c, uint64_t n);

#endif
