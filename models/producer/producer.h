/*
 * producer.h - one producer client: the application's send() calls and
 * everything of Kafka's producer behind them, in virtual time.
 *
 * Owns: one producer's records from send() to their outcome. The state
 * is one struct, ks_producer; each module of models/producer/ follows one
 * class of Kafka's client ([K] clients/src/main/java/org/apache/kafka/
 * clients/producer/...) and owns the fields listed under its name below:
 *   producer.c        KafkaProducer's constructor and close: configs,
 *                     random streams, the modules' set-up and teardown
 *   send.c            KafkaProducer.send/doSend on the application thread:
 *                     arrivals, partition choice, buffer memory and
 *                     max.block.ms, the records' outcomes
 *   accumulator.c     RecordAccumulator: batches, deques, ready, drain
 *   partitioner.c     the partitioners
 *   sender.c          Sender: drain into Produce requests, responses,
 *                     retries, delivery.timeout.ms, completing batches
 *   network_client.c  NetworkClient: connections, in-flight requests,
 *                     request.timeout.ms, reconnects, Metadata
 *   txn_manager.c     TransactionManager: InitProducerId, the
 *                     transactional requests and the client's
 *                     transaction state
 *   idempotence.c     sequence numbers per partition and epoch bumps
 *   producer_config.c the settings KafkaProducer's constructor resolves
 * Only this header is for the rest of ksim (the world's dispatch, the
 * summary, the consumer's forwarding); the modules' own headers are for
 * one another.
 *
 * Never: reads a broker's state or a log; it learns what happened from
 * its requests' answers only.
 */
#ifndef KS_PRODUCER_H
#define KS_PRODUCER_H

#include "models/ctx.h"
#include "models/kafka/metadata.h"
#include "models/net/node.h"
#include "models/producer/accumulator.h"
#include "models/producer/idempotence.h"
#include "models/producer/network_client.h"
#include "models/producer/partitioner.h"
#include "models/producer/producer_config.h"
#include "models/producer/send.h"
#include "models/producer/txn_manager.h"
#include "sim/histogram.h"
#include "sim/rng.h"
#include "models/scenario.h"
#include "models/events.h"
#include "sim/sim.h"

#include <stdint.h>


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

    /* network_client.c: connections and metadata */
    ks_time metadata_max_age_ns;
    ks_handle metadata_timer;
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

/* The producer node's operations (models/net/node.h). */
extern const ks_node_ops ks_producer_ops;

/* Producer `index` of the scenario, bootstrapped with the cluster's
 * metadata `bootstrap` (what its first Metadata answer told it: the
 * leaders of its topic's partitions). False when out of memory. */
bool ks_producer_init(ks_producer *p, ks_ctx *cx, uint32_t index, const ks_meta *bootstrap);
void ks_producer_free(ks_producer *p);
/* Event handlers, each module's (the operations dispatch to them). */
void ks_producer_on_produce(ks_producer *p, ks_ctx *cx);
void ks_producer_on_sender(ks_producer *p, ks_ctx *cx);
void ks_producer_on_block_timeout(ks_producer *p, ks_ctx *cx);
void ks_producer_on_app_free(ks_producer *p, ks_ctx *cx);
void ks_producer_on_metadata(ks_producer *p, ks_ctx *cx);
void ks_producer_on_sent(ks_producer *p, ks_ctx *cx, uint32_t chain);
void ks_producer_on_response(ks_producer *p, ks_ctx *cx, uint32_t req);
void ks_producer_on_request_timeout(ks_producer *p, ks_ctx *cx, uint32_t broker);
void ks_producer_on_txn_end(ks_producer *p, ks_ctx *cx);
void ks_producer_on_expiry(ks_producer *p, ks_ctx *cx);
/* Its connections close with its process: nothing it had in flight is
 * waited for any more (network_client.c). */
void ks_prod_net_crash(ks_producer *p, ks_ctx *cx);
/* Consume-transform-produce: the application hands the producer one
 * record read by a consumer (key and value as the producer's workload
 * says), as if it had arrived: `source` is the id of the record read,
 * `consumer` the consumer's index. The record written for it has a
 * "forward" trace line and is followed by the delivery checker. */
void ks_producer_forward(ks_producer *p, ks_ctx *cx, uint64_t source, uint32_t consumer);
/* Consume-transform-produce with commit "transaction": after forwarding a
 * poll's records, the application asks the producer to put the consumer's
 * positions in the transaction (sendOffsetsToTransaction) and end it; the
 * producer tells its application when the transaction has ended. */
void ks_producer_send_offsets(ks_producer *p, ks_ctx *cx, uint32_t consumer,
                              const char *group_id, const char *member_id, const uint32_t *parts,
                              const int64_t *offsets, uint32_t n);

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

/* The keyless partitioner a producer uses: the scenario's choice, or the
 * built-in one of its Kafka version (round_robin before 2.4, sticky
 * 2.4-3.2, uniform_sticky from 3.3). */
ks_partitioner_kind ks_producer_partitioner(const ks_producer_conf *pc, ks_kafka_version v);

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

#endif
