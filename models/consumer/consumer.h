/*
 * consumer.h - consumers: poll loops that read partition logs under their
 * isolation.level, commit offsets, and (consume-transform-produce) hand
 * what they read to a producer.
 *
 * Owns: one consumer's positions (the next offset to fetch, per assigned
 * partition), its group's committed offsets (the next offset to read,
 * [K] KafkaConsumer javadoc), what it read (for the delivery checker),
 * and its poll cycle:
 *   poll     the application calls poll(): a fetch leaves for each
 *            partition's leader (one network latency);
 *   fetch    at the leader, the log is read from the position up to the
 *            high watermark (read_uncommitted) or the LSO
 *            (read_committed), skipping control records and, for
 *            read_committed, aborted transactions (models/broker/plog.h); at most
 *            max.poll.records in all, partition after partition from one
 *            further at each poll (round robin); the answer takes one
 *            latency back;
 *   deliver  poll() returns the records (a "consume" trace record each);
 *            the application processes them (process.us each), forwards
 *            each to its producer when forward.to is set as soon as it is
 *            done with it, then commits: "sync" sends an OffsetCommit of
 *            the positions and waits for the answer (a round trip: two
 *            latencies; the committed offset is the next offset to
 *            read); "transaction" hands the positions to the forward
 *            producer (ks_producer_send_offsets); "none" commits nothing.
 *            It polls again poll.interval.ms later.
 * A consumer without committed offsets starts at offset 0 (the log
 * start: auto.offset.reset=earliest). crash.consumer stops it: what it
 * had in flight is lost, a commit whose answer had not come included; a
 * restart resumes from the committed offsets, so what was read but not
 * committed is read again.
 * Fetch latency is the network's latency distribution drawn from the
 * consumer's own stream "consumer.<id>.fetch"; fetches use no bandwidth
 * and no broker time (their bytes are not modelled).
 * Run length: the first poll and every step after a poll keep a run
 * alive; a later poll does only when there is something to read when it
 * is scheduled (else it is a daemon), so a consumer that has caught up
 * never keeps a finished run going. The world calls ks_consumer_wake
 * when only daemons are left, so that data written after a consumer
 * last looked is still read (and forwarded, and committed).
 *
 * Never: changes a log or a producer's state except through
 * ks_producer_forward.
 */
#ifndef KS_CONSUMER_H
#define KS_CONSUMER_H

#include "models/broker/plog.h"
#include "sim/rng.h"
#include "models/scenario.h"
#include "models/events.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

struct ks_world;

/* A transactional record a read_uncommitted consumer read while its
 * transaction was still open: whether it was aborted is known later. */
typedef struct ks_open_read {
    uint32_t part;             /* index into parts */
    int64_t offset;
    int64_t producer_id;
} ks_open_read;

typedef struct ks_consumer {
    uint32_t index;
    const ks_consumer_conf *conf;
    ks_rng rng;                /* fetch latency draws */
    uint32_t nparts;
    uint32_t *parts;           /* world partition indices it reads */
    int64_t *position;         /* per part: next offset to fetch */
    int64_t *committed;        /* per part: committed offset, -1 none */
    int64_t *pending_commit;   /* per part: the offsets of the last commit sent */
    uint32_t next_part;        /* round-robin start over parts */
    ks_fetched *buf;           /* the records of the fetch in progress */
    uint32_t *buf_part;        /* ... and which part (index into parts) each came from */
    uint32_t nbuf, buf_cap;
    uint32_t cursor;           /* records of buf the application has processed */
    bool alive;
    bool txn_waiting;          /* commit "transaction": waits for the producer's commit */
    uint32_t generation;       /* +1 at every crash: events of an older one are ignored */
    int32_t forward_to;        /* producer index, or -1 */
    int32_t restart_forward_to; /* the restarted instance's producer, -1: forward_to */
    ks_handle poll_ev;         /* the next poll, KS_HANDLE_NONE while none is pending */
    ks_time poll_at;           /* ... its time */
    bool poll_daemon;          /* ... scheduled as a daemon (nothing to read then) */
    ks_open_read *open_reads;  /* read_uncommitted: records of open transactions read */
    uint32_t nopen_reads, open_reads_cap;
    /* results */
    uint64_t polls, records, commits, crashes, restarts;
    uint64_t read_aborted;     /* records read that belong to aborted transactions */
} ks_consumer;

bool ks_consumer_init(ks_consumer *c, struct ks_world *w, uint32_t index);
void ks_consumer_free(ks_consumer *c);
/* Schedules the first poll at start.ms. */
void ks_consumer_start(ks_consumer *c, struct ks_world *w);
/* Event handlers (KS_EV_CONSUMER, by tag). */
void ks_consumer_on_event(ks_consumer *c, struct ks_world *w, uint32_t tag, uint64_t arg);
/* crash.consumer: dies now; restart_ns (KS_TIME_MAX: never) starts a new
 * instance from the committed offsets, forwarding to forward_to (-1: the
 * same producer). */
void ks_consumer_crash(ks_consumer *c, struct ks_world *w, ks_time restart_ns, int32_t forward_to);

/* Called by the world when only daemon events are left (the run would
 * end): a consumer that is alive, waiting for its next poll, and has
 * records it could read below its fetch limit turns that poll into an
 * ordinary event, so that the run goes on until it has read, processed,
 * forwarded and committed them. Returns true when it did. */
bool ks_consumer_wake(ks_consumer *c, struct ks_world *w);

/* commit "transaction": the forward producer's transaction that carried
 * this consumer's offsets (the positions it had when they were sent,
 * offsets[k] for parts[k]) committed: they are the group's committed
 * offsets now (offsets NULL: already set by the coordinator; the
 * application just goes on). */
void ks_consumer_txn_committed(ks_consumer *c, struct ks_world *w, const int64_t *offsets);
/* The group coordinator's side: offsets sent to a transaction are the
 * group's committed offsets once the transaction commits (the
 * coordinator calls this when it writes PrepareCommit). */
void ks_consumer_offsets_committed(ks_consumer *c, struct ks_world *w, const int64_t *offsets);
/* ... or aborted: the consumer reads again from its committed offsets. */
void ks_consumer_txn_aborted(ks_consumer *c, struct ks_world *w);

/* Tags of KS_EV_CONSUMER events (ks_ev_timer.tag; owner = consumer). */
#define KS_CONSUMER_POLL 1u
#define KS_CONSUMER_FETCHED 2u
#define KS_CONSUMER_COMMITTED 3u
#define KS_CONSUMER_RESTART 4u
#define KS_CONSUMER_FETCH 5u     /* the fetch reaches the leaders */
#define KS_CONSUMER_PROCESSED 6u /* the application processed a record */

#endif
