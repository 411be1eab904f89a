/*
 * prod.h - a producer client's state: one struct, ks_producer, and what
 * every module of the producer shares of it.
 *
 * Owns: the state of one producer, the types of each module's part of
 * it, and the little every module uses (its topic's name, running out of
 * memory, its "producer" trace lines, waking its sender thread and what
 * that thread's time costs, its histograms). Each module of
 * models/producer/ follows one class of Kafka's client ([K] clients/src/
 * main/java/org/apache/kafka/clients/producer/...) and owns the fields
 * listed under its name in ks_producer; the modules call one another
 * downward only, in this order:
 *   producer.c        KafkaProducer's constructor, the node's operations,
 *                     what each answer of the network client goes to
 *   send.c            KafkaProducer.send/doSend on the application thread:
 *                     arrivals, partition choice, buffer memory and
 *                     max.block.ms
 *   sender.c          Sender: drain into Produce requests, responses,
 *                     retries, delivery.timeout.ms
 *   txn_manager.c     TransactionManager: InitProducerId, the
 *                     transactional requests and the client's
 *                     transaction state
 *   idempotence.c     sequence numbers per partition and epoch bumps
 *   outcome.c         what the application is told of each record (its
 *                     callbacks), for the summary and the observer
 *   network_client.c  NetworkClient: connections, in-flight requests,
 *                     request.timeout.ms, reconnects, Metadata; it hands
 *                     answers and failed requests to the handlers the
 *                     producer gives it (ks_prod_net_handlers)
 *   prod.c            this state's shared helpers
 * and below them the accumulator (with its ready and load indexes), the
 * partitioners, the codec and producer_config.c.
 *
 * Never: reads a broker's state or a log; it learns what happened from
 * its requests' answers only.
 */
#ifndef KS_PROD_H
#define KS_PROD_H

#include "models/ctx.h"
#include "models/kafka/errors.h"
#include "models/kafka/metadata.h"
#include "models/net/node.h"
#include "models/net/request.h"
#include "models/producer/accumulator.h"
#include "models/producer/partitioner.h"
#include "models/producer/producer_config.h"
#include "models/scenario.h"
#include "sim/histogram.h"
#include "sim/rng.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

struct ks_producer;

/* ---- send.c's types ------------------------------------------------------------ */

/* One send() call in progress. */
typedef struct ks_send_rec {
    uint64_t id;
    ks_time send_ns;      /* the application's send() (also the timestamp) */
    const char *key;      /* NULL: no key */
    int64_t key_len;      /* -1: no key */
    uint32_t value_bytes;
    uint32_t partition;
    bool keyed;           /* partitioned by murmur2 of its key */
    uint64_t source;      /* consume-transform-produce: the record read that it
                             was written for (KS_NO_SOURCE: none) */
    int32_t via;          /* ... and the consumer that read it (-1: none) */
} ks_send_rec;
#define KS_NO_SOURCE UINT64_MAX

/* What every send() reads of the producer's workload and costs, copied
 * from its conf when the producer is made (ks_prod_send_init): with many
 * producers the conf is not in the cache when a record comes, and each
 * line of it reached through the producer's conf pointer, then the key
 * and value lists through the conf, is a miss after the one before. One
 * cache line. */
typedef struct ks_send_hot {
    uint64_t records;            /* workload.records */
    ks_time interval_ns;         /* workload.interval_ns */
    ks_time record_ns;           /* cost.record_ns */
    int64_t compress_ps;         /* compression.compress_ps (0: none) */
    char *const *keys;           /* workload.keys, key_count of them */
    const uint32_t *value_bytes; /* workload.value_bytes, value_count */
    uint32_t key_count, value_count;
    uint32_t value1;             /* value_bytes[0] */
    uint8_t arrival;             /* ks_arrival */
    uint8_t key_pick, value_pick; /* ks_pick */
    bool keyless;                /* keys cycle through one NULL key */
} ks_send_hot;

/* ---- network_client.c's ------------------------------------------------------- */

/* Per broker, as this producer sees it. */
typedef struct ks_prod_node {
    uint32_t conn;          /* connection id */
    uint32_t in_flight;     /* requests without a response */
    uint32_t fifo_head, fifo_tail; /* those requests, oldest first (ks_request.pnext) */
    uint32_t gen;           /* connection generation: +1 when it closes */
    ks_time ready_at_ns;    /* reconnecting until then */
    ks_handle timeout_timer;/* request.timeout.ms of the oldest request */
    ks_time ready_ns;       /* last time it had data ready (KIP-794 stats) */
    ks_time drain_ns;       /* last time it could be drained */
} ks_prod_node;

/* What the network client hands back to the producer: each answer, in
 * request order per connection, and each request it gives up (its
 * connection closed: `err` the error its batches get; `first` the oldest
 * of them, `timed_out` whether a timeout closed it). */
typedef struct ks_prod_net_handlers {
    void (*answered)(struct ks_producer *p, ks_ctx *cx, ks_request *q);
    void (*given_up)(struct ks_producer *p, ks_ctx *cx, ks_request *q, ks_kerr err, bool first,
                     bool timed_out);
    /* after answers or failures: what they freed may let send() and the
     * sender go on */
    void (*after)(struct ks_producer *p, ks_ctx *cx);
} ks_prod_net_handlers;

/* The application thread as the modules below send.c reach it: what a
 * transaction's end, or memory given back, lets it do now: the future it
 * waits on completes ([K] TransactionalRequestResult.done; BufferPool's
 * condition is signalled). send.c fills it in. */
typedef struct ks_prod_app_thread {
    void (*resume)(struct ks_producer *p, ks_ctx *cx);  /* go on with the waiting arrivals */
    void (*unblock)(struct ks_producer *p, ks_ctx *cx); /* a send() blocked on memory may go on */
} ks_prod_app_thread;

/* ---- idempotence.c's ----------------------------------------------------------- */

/* Idempotence, per partition ([K] TransactionManager's
 * TopicPartitionBookkeeper). */
typedef struct ks_seq_state { /* 20 bytes: one per partition of the topic */
    int32_t next_seq;       /* the next batch's base sequence */
    int32_t last_acked;     /* last sequence acknowledged, -1 */
    uint32_t incomplete;    /* batches with a sequence not yet done, on the
                               wire or waiting to be retried
                               (inflightBatchesBySequence) */
    int32_t unresolved_seq; /* the last sequence of the batch below */
    int16_t epoch;          /* the epoch this numbering belongs to */
    bool unresolved;        /* a retried batch expired: its fate unknown */
    bool rewrite;           /* renumber its batches at the next epoch bump */
} ks_seq_state;

/* ---- txn_manager.c's ------------------------------------------------------------ */

/* X(ENUM, "NAME", id, legal predecessors as a bit mask of ids): [K]
 * TransactionManager.State and State.isTransitionValid, as Java has
 * them (FATAL_ERROR may follow any state). */
#define KS_TM_ANY 0xffu
#define KS_TM_STATES(X)                                                         \
    X(UNINITIALIZED, "UNINITIALIZED", 0, (1u << 2) | (1u << 6))                 \
    X(INITIALIZING, "INITIALIZING", 1, (1u << 0) | (1u << 5))                   \
    X(READY, "READY", 2, (1u << 1) | (1u << 4) | (1u << 5))                     \
    X(IN_TRANSACTION, "IN_TRANSACTION", 3, (1u << 2))                           \
    X(COMMITTING_TRANSACTION, "COMMITTING_TRANSACTION", 4, (1u << 3))           \
    X(ABORTING_TRANSACTION, "ABORTING_TRANSACTION", 5, (1u << 3) | (1u << 6))   \
    X(ABORTABLE_ERROR, "ABORTABLE_ERROR", 6,                                    \
      (1u << 3) | (1u << 4) | (1u << 6) | (1u << 1))                            \
    X(FATAL_ERROR, "FATAL_ERROR", 7, KS_TM_ANY)

typedef enum ks_tm_state {
#define X(e, name, id, prev) KS_TM_##e = id,
    KS_TM_STATES(X)
#undef X
    KS_TM__COUNT
} ks_tm_state;

/* sendOffsetsToTransaction's steps ([K] TransactionManager:
 * AddOffsetsToTxnHandler, then TxnOffsetCommitHandler). */
#define KS_TXN_OFFSETS_NONE 0
#define KS_TXN_OFFSETS_ADD 1     /* AddOffsetsToTxn to the transaction coordinator */
#define KS_TXN_OFFSETS_COMMIT 2  /* TxnOffsetCommit to the group coordinator */
#define KS_TXN_OFFSETS_DONE 3

/* One producer's TransactionManager. */
typedef struct ks_txn_manager {
    ks_tm_state state;
    bool transactional;       /* transactional.id set */
    bool kip890;              /* transaction version 2 */
    bool blocked;             /* the application waits in initTransactions,
                                 commitTransaction or abortTransaction */
    bool in_flight;           /* its one request is in flight ([K]
                                 inFlightRequestCorrelationId) */
    ks_time retry_at_ns;      /* ... and the next goes not before */
    bool epoch_bump_required; /* [K] epochBumpRequired: InitProducerId again
                                 once the transaction is aborted */
    bool started;             /* [K] transactionStarted: the coordinator knows
                                 of the transaction (a partition added) */
    bool end_queued;          /* EndTxn waits for the transaction's batches:
                                 the application is in commitTransaction or
                                 abortTransaction */
    int32_t coordinator;      /* the transaction coordinator's broker; -1 unknown */
    int32_t group_coordinator;/* the group's coordinator, -1 unknown */
    uint64_t number;          /* transactions begun */
    uint32_t records;         /* records sent in the current one */
    const char *fatal_exception; /* what every send() gets in FATAL_ERROR */
    uint32_t partitions;      /* the topic's most partitions: the arrays' size */
    bool *added;              /* per partition: in the current transaction */
    bool *pending;            /* per partition: has records, not yet added
                                 ([K] newPartitionsInTransaction) */
    uint32_t pending_count;
    /* sendOffsetsToTransaction */
    int32_t offsets_consumer; /* consumer whose offsets ride in this one, or -1 */
    bool app_ends;            /* its application ends each transaction, with the
                                 offsets of what it read (commit "transaction") */
    bool end_after_backlog;   /* ... once the records handed over are sent */
    int64_t *offsets;         /* ... its positions then */
    uint32_t *offset_parts;   /* ... of these world partitions */
    uint32_t offsets_cap, noffsets;
    int offsets_step;         /* KS_TXN_OFFSETS_* */
    const char *group_id;     /* ... for this group */
    const char *member_id;    /* ... and this member */
    /* the records sent in the current transaction, for the observer */
    uint64_t *ids;
    uint32_t *parts;          /* ... and their partitions (world indices) */
    uint32_t nids, ids_cap;
    uint64_t committed, aborted;
} ks_txn_manager;

/* May a batch of `partition` be sent ([K] isSendToPartitionAllowed): with
 * the classic protocol only once AddPartitionsToTxn added it. */
static inline bool ks_tm_send_allowed(const ks_txn_manager *tm, uint32_t partition)
{
    return !tm->transactional || tm->kip890 || tm->added[partition];
}

/* ---- the producer --------------------------------------------------------------- */

/* The summary lists where the first records went and what the
 * application was told about them. */
#define KS_FIRST_RECORDS 64u
#define KS_OFFSET_FAILED (-2)
#define KS_OFFSET_UNTOLD (-3)

/* A producer's histograms (ks_producer.hist), counted through
 * ks_prod_hist_add: at once in a run of fewer than
 * KS_PROD_HIST_DEFER_FROM producers, else later (ks_hist_defer). */
#define KS_PROD_HIST_DEFER_FROM 256u
typedef enum ks_prod_hist {
    KS_PH_LATENCY,         /* send() to outcome, ns */
    KS_PH_BATCH_RECORDS,   /* records per batch sent */
    KS_PH_BATCH_BYTES,     /* bytes per batch sent */
    KS_PH_REQUEST_BATCHES, /* batches per request */
    KS_PH__COUNT
} ks_prod_hist;

/* The application process that owns a producer (models/app/app.h),
 * told when a transaction it handed offsets to ends. NULL txn_ended: a
 * producer of its own. */
typedef struct ks_prod_app {
    void *app;
    void (*txn_ended)(void *app, ks_ctx *cx, bool committed);
} ks_prod_app;

typedef struct ks_producer {
    /* Hot: the fields every record or batch reads or writes, packed into
     * the struct's first seven cache lines, each under the module that owns
     * it. With 1000 producers a producer's state has left the cache by
     * the time its turn comes again, so every line touched is a miss. */
    uint32_t index;
    ks_node node;             /* its node id: the owner of its events */
    const ks_producer_conf *conf;
    char *client_id;
    /* send.c */
    bool blocked;             /* inside send(), waiting for buffer memory */
    bool forward_target;      /* a consumer forwards to this producer */
    uint32_t key_at, value_at; /* the workload's next key and value size, in turn */
    uint32_t last_partition;  /* where the last send() went (-1 as UINT32_MAX) */
    uint64_t backlog;         /* arrivals waiting while send() blocks or
                                 the application thread is busy */
    uint64_t arrivals;        /* arrivals so far */
    ks_time app_free_ns;      /* the application thread's CPU is busy until */
    ks_send_hot send_hot;     /* the workload and costs each record reads */
    /* sender.c */
    ks_handle wake;
    ks_time wake_ns;
    ks_time sender_free_ns;   /* its CPU is busy until */
    bool *node_ready;
    uint64_t *scratch_ids;    /* record ids of one batch, for the checker */
    uint32_t scratch_cap;
    ks_handle expiry_timer;   /* delivery.timeout.ms check (a daemon) */
    ks_time expiry_ns;
    /* network_client.c */
    uint32_t *leader;         /* per partition: broker */
    uint32_t brokers;
    ks_prod_node *nodes;
    /* resolved configuration */
    int acks;                 /* -1 (all), 0, 1 */
    uint32_t max_in_flight;
    uint32_t max_request_size;
    bool ignore_keys;         /* partitioner.ignore.keys with uniform_sticky */
    bool abort_on_new_batch;  /* 2.4-3.2 sticky: onNewBatch before a new batch */
    bool adaptive;
    uint32_t topic;           /* scenario topic index */
    uint32_t first_partition; /* the world's index of partition 0 */
    uint32_t partitions;      /* partitions it knows of (its metadata) */
    uint32_t max_partitions;  /* the most the topic will have */
    /* idempotence.c: the producer id and epoch, and per partition its
     * sequence numbers (idempotent producers only) */
    int64_t producer_id;      /* -1 until InitProducerId answers */
    int16_t epoch;
    bool bump_required;       /* a local epoch bump is due (KIP-360) */
    uint32_t unresolved;      /* partitions whose seq[] is unresolved */
    ks_seq_state *seq;
    /* results */
    uint32_t first_count;
    uint64_t first_last_id;  /* first_ids[first_count - 1], kept with the hot fields */
    uint64_t produced, acked;
    uint64_t requests, responses, batches;
    uint64_t record_bytes;    /* key + value bytes handed to send() */
    ks_time sender_busy_ns;   /* CPU time of the sender thread */
    ks_time app_busy_ns;      /* ... and of send() on the application thread
                                 (record.us, compression) */
    ks_time first_produce_ns, last_ack_ns;
    /* producer.c: the random streams drawn per record and per batch */
    ks_rng workload_rng;
    ks_rng partitioner_rng;

    /* accumulator.c and partitioner.c (each with its hot fields first) */
    ks_acc acc;
    ks_partitioner part;

    /* producer.c */
    ks_producer_settings set; /* what KafkaProducer's constructor made of the configs */
    ks_rng retry_rng;         /* backoff jitter (3.7+) */
    ks_rng keys_rng;          /* drawn keys */
    ks_rng values_rng;        /* drawn value sizes */

    /* txn_manager.c: InitProducerId, and transactions (transactional.id
     * set) */
    ks_txn_manager tm;

    /* resolved configuration, seldom read */
    ks_time max_block_ns;
    ks_time availability_timeout_ns;

    /* send.c: the application thread */
    ks_send_rec blocked_rec;
    ks_time blocked_since_ns;
    uint32_t blocked_alloc;
    ks_handle block_timer;
    double *zipf_cdf;         /* Zipf keys: cumulative weights by rank */
    struct ks_prod_line_runs *produce_runs; /* its "produce" lines' fixed runs,
                                               once one was written */
    /* a consumer forwards to this producer: each arrival's source record
     * and consumer wait here, in arrival order, until its send() */
    uint64_t *fwd_src;
    int32_t *fwd_via;
    size_t fwd_head, fwd_len, fwd_cap;
    ks_handle app_timer;

    /* sender.c: the sender thread */
    uint32_t *queue, *queue_ids;

    /* where the modules below reach the ones above: producer.c's handlers
     * of what the network client answers, send.c's application thread */
    const ks_prod_net_handlers *net;
    const ks_prod_app_thread *app_thread;

    /* network_client.c: connections and metadata */
    ks_time metadata_max_age_ns;
    ks_handle metadata_timer;
    ks_time metadata_at;      /* ... when it runs */
    ks_time md_last_ns;       /* the last refresh answered (0: the bootstrap) */
    bool md_need;             /* an update is asked for */
    bool md_in_flight;        /* a Metadata request is in flight */
    uint64_t api_requests[KS_API__COUNT]; /* requests sent, per API */

    /* results */
    uint64_t failed;
    uint64_t retries, expired, connection_closes, epoch_bumps;
    uint64_t splits;         /* batches split after MESSAGE_TOO_LARGE */
    uint64_t blocked_count;
    ks_time blocked_ns_total;
    /* the values of hist[] not counted yet (send.c, sender.c): every
     * record adds one, every batch two, every request one; with many
     * producers these are the lines a record touches, not hist[]'s */
    ks_hist_defer hist_defer;
    ks_hist hist[KS_PH__COUNT]; /* see ks_prod_hist; up to date once
                                   ks_prod_hist_flush ran */

    /* its process: paused until (pause.producer), gone (crash.producer),
     * and the application that owns it (consume-transform-produce) */
    ks_time paused_until;
    bool down;
    ks_prod_app app;

    /* Large and seldom read */
    char config_error[512];   /* the exception the constructor threw, or "" */
    char key_buf[128];        /* the drawn key of the record in send() */
    uint32_t first_partitions[KS_FIRST_RECORDS]; /* where the first records went */
    uint64_t first_ids[KS_FIRST_RECORDS];        /* ... their record ids */
    int64_t first_offsets[KS_FIRST_RECORDS];     /* ... the offsets the application was
                                                    told (-1 unknown, KS_OFFSET_FAILED,
                                                    KS_OFFSET_UNTOLD) */
} ks_producer;

/* Counts v in histogram `which` of p, at once or later (ks_hist_defer:
 * with many producers, a producer's histograms are not in the cache when
 * its next value comes); ks_prod_hist_flush counts what is kept. */
static inline void ks_prod_hist_add(ks_producer *p, ks_prod_hist which, int64_t v)
{
    ks_hist_defer_add(&p->hist_defer, p->hist, (unsigned)which, v);
}
static inline void ks_prod_hist_flush(ks_producer *p)
{
    ks_hist_defer_flush(&p->hist_defer, p->hist);
}

/* For the producer's modules (producer.c): the topic's name; the run
 * stops for want of memory; a "producer" trace record of what happened
 * to the producer id ("what"), with the error if any. */
const char *ks_prod_topic_name(const ks_ctx *cx, const ks_producer *p);
void ks_prod_oom(ks_ctx *cx);
void ks_prod_trace_state(ks_producer *p, ks_ctx *cx, const char *what,
                         const char *error);

/* Timer tags owned by producers (ks_ev_timer.tag). */
#define KS_TIMER_BLOCK 1u /* max.block.ms ran out */
#define KS_TIMER_APP 2u   /* the application thread is free again */
#define KS_TIMER_METADATA 3u /* metadata.max.age.ms passed */
#define KS_TIMER_SENT 4u  /* acks=0: a request was written (arg: its batches) */
#define KS_TIMER_REQUEST_TIMEOUT 5u /* request.timeout.ms (arg: broker) */
#define KS_TIMER_EXPIRY 6u /* delivery.timeout.ms check */
#define KS_TIMER_TXN_END 9u /* the application ends its transaction */


/* Wakes the sender at `at` unless it is already due by then. */
void ks_prod_sender_wake(struct ks_producer *p, ks_ctx *cx, ks_time at);
/* The sender thread spends request.us (+ batch.us per batch) building
 * request q; q leaves when that is done (q->sent_ns). */
void ks_prod_sender_cost(struct ks_producer *p, ks_request *q, ks_time now);

#endif
