/*
 * scenario.h - scenario files: loading, validation, defaults, overrides.
 *
 * Owns: the scenario format (docs/scenario.md, format version
 * KS_SCENARIO_FORMAT) and the resolved, typed scenario every model is
 * built from. Loading is strict: unknown keys (with "did you mean"), wrong
 * types and out-of-range values are errors naming the file, the JSON path,
 * the value and what was expected; every error is reported, not just the
 * first. Defaults come from the Kafka version (models/kafka/config.h) and
 * from the documented cost model. "--set path=value" overrides are applied
 * to the document before validation, so they are checked the same way.
 *
 * Ownership: ks_scenario_load allocates; ks_scenario_free releases
 * everything, including strings that configs point at.
 */
#ifndef KS_SCENARIO_H
#define KS_SCENARIO_H

#include "sim/diag.h"
#include "sim/dist.h"
#include "models/kafka/config.h"
#include "models/kafka/errors.h"
#include "models/producer/partitioner.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define KS_SCENARIO_FORMAT 1

#define KS_ARRIVALS(X)               \
    X(CONSTANT, "constant")          \
    X(POISSON, "poisson")            \
    X(BURST, "burst")

/* How a workload picks keys and value sizes. */
typedef enum ks_pick { KS_PICK_CYCLE, KS_PICK_UNIFORM, KS_PICK_ZIPF } ks_pick;

typedef enum ks_arrival {
#define X(e, name) KS_ARRIVAL_##e,
    KS_ARRIVALS(X)
#undef X
    KS_ARRIVAL__COUNT
} ks_arrival;

typedef struct ks_topic_conf {
    char *name;
    uint32_t partitions;        /* at the start */
    uint32_t max_partitions;    /* after every admin operation */
    uint32_t replication_factor;
} ks_topic_conf;

/* An administrative operation at a point of the run: so far
 * create.partitions (AdminClient.createPartitions, NewPartitions.
 * increaseTo(total)). */
typedef struct ks_admin_op {
    ks_time at_ns;
    uint32_t topic;
    uint32_t total;
} ks_admin_op;

/* Fault injection (docs/scenario.md, "faults"). Targeted faults hit the
 * first `count` requests (or responses, or appends) that match their
 * selectors; probabilistic ones lose each message on the selected links
 * with a probability; windows hold between from and to. */
#define KS_FAULT_TYPES(X)                  \
    X(DROP_REQUEST, "drop.request")        \
    X(DROP_RESPONSE, "drop.response")      \
    X(DELAY_REQUEST, "delay.request")      \
    X(DELAY_RESPONSE, "delay.response")    \
    X(APPEND_ERROR, "append.error")        \
    X(REQUEST_LOSS, "request.loss")        \
    X(RESPONSE_LOSS, "response.loss")      \
    X(LINK_DOWN, "link.down")              \
    X(PAUSE_BROKER, "pause.broker")        \
    X(PAUSE_PRODUCER, "pause.producer")    \
    X(CRASH_PRODUCER, "crash.producer")    \
    X(CRASH_CONSUMER, "crash.consumer")

typedef enum ks_fault_type {
#define X(e, name) KS_FAULT_##e,
    KS_FAULT_TYPES(X)
#undef X
    KS_FAULT__COUNT
} ks_fault_type;

const char *ks_fault_type_name(ks_fault_type t);

typedef struct ks_fault_conf {
    ks_fault_type type;
    int32_t producer;       /* producer index; -1: any */
    int32_t broker;         /* -1: any */
    int32_t topic;          /* with partition: a topic index; -1: any */
    int32_t partition;      /* partition number in the topic; -1: any */
    ks_api api;             /* targeted: requests of this API (Produce) */
    int64_t request;        /* the producer's request number of that API; -1: any */
    ks_time after_ns;       /* targeted: only at or after this time */
    uint32_t count;         /* targeted: how many to hit */
    ks_time delay_ns;       /* delay.* */
    ks_kerr error;          /* append.error */
    double probability;     /* *.loss */
    ks_time from_ns, to_ns; /* windows and *.loss; to_ns KS_TIME_MAX: open;
                               crash.*: at = from_ns, restart = to_ns (consumers) */
    int32_t consumer;       /* crash.consumer */
    int32_t forward_to;     /* crash.consumer: the producer it forwards to after
                               the restart, or -1 (the same) */
    char *note;             /* free text, or NULL */
} ks_fault_conf;

/* What one producer's application does. */
typedef struct ks_workload_conf {
    uint64_t records;       /* send() calls in all */
    ks_arrival arrival;
    double rate_per_sec;    /* mean send() calls per second */
    ks_time interval_ns;    /* 1 / rate, rounded; the constant gap */
    ks_time start_ns;       /* first send() */
    /* Keys and value sizes of successive records, repeating: record i
     * has keys[i % key_count] (NULL: no key) and value_bytes[i % n]. */
    char **keys;
    uint32_t key_count;     /* >= 1 */
    bool key_list;          /* given as an array */
    uint32_t *value_bytes;
    uint32_t value_count;   /* >= 1 */
    bool value_list;        /* given as an array */
    /* Or drawn: keys prefix + 0..key_space-1, uniformly or Zipf(s) (rank
     * 1 the most frequent); value sizes uniform in [value_min, value_max]. */
    ks_pick key_pick;
    uint32_t key_space;
    double zipf_s;
    char *key_prefix;
    ks_pick value_pick;
    uint32_t value_min, value_max;
    /* arrival "burst": burst_records send() calls every burst_interval_ns */
    uint32_t burst_records;
    ks_time burst_interval_ns;
} ks_workload_conf;

/* Keyless partitioner choice: "default" (the version's own) or one of
 * the partitioners, listed once in models/producer/partitioner.h. */
#define KS_PARTITIONER_CHOICES(X) \
    X(DEFAULT, "default")         \
    KS_PARTITIONERS(X)

typedef enum ks_partitioner_choice {
#define X(e, name) KS_PCHOICE_##e,
    KS_PARTITIONER_CHOICES(X)
#undef X
    KS_PCHOICE__COUNT
} ks_partitioner_choice;

const char *ks_partitioner_choice_name(ks_partitioner_choice c);

/* Producer CPU costs (docs/scenario.md, "cost model"). */
typedef struct ks_producer_cost {
    ks_time record_ns;   /* the application thread, per send() */
    ks_time batch_ns;    /* the sender thread, per batch drained */
    ks_time request_ns;  /* the sender thread, per request built */
} ks_producer_cost;

/* What compression.type does to this producer's data. Defaults depend on
 * the codec (docs/scenario.md); a scenario may set its own. */
typedef struct ks_compression_conf {
    double ratio;              /* compressed / uncompressed record bytes */
    int64_t compress_ps;       /* producer CPU per uncompressed byte, ps */
    int64_t decompress_ps;     /* broker CPU per uncompressed byte, ps */
} ks_compression_conf;

/* How a transactional producer's application groups its records
 * (docs/scenario.md, "transactions"). */
#define KS_TXN_ENDS(X)       \
    X(COMMIT, "commit")      \
    X(ABORT, "abort")        \
    X(NONE, "none")

typedef enum ks_txn_end {
#define X(e, name) KS_TXN_END_##e,
    KS_TXN_ENDS(X)
#undef X
    KS_TXN_END__COUNT
} ks_txn_end;

/* Which transaction protocol: the classic one, or KIP-890's (transaction
 * version 2: an epoch bump at every commit or abort, partitions added by
 * the first produce); "default" picks by kafka.version (4.0+: kip890). */
#define KS_TXN_PROTOCOLS(X)     \
    X(DEFAULT, "default")       \
    X(CLASSIC, "classic")       \
    X(KIP890, "kip890")

typedef enum ks_txn_protocol {
#define X(e, name) KS_TXNP_##e,
    KS_TXN_PROTOCOLS(X)
#undef X
    KS_TXNP__COUNT
} ks_txn_protocol;

typedef struct ks_txn_conf {
    bool enabled;              /* transactional.id is set */
    uint32_t records;          /* send() calls per transaction */
    ks_txn_end *ends;          /* how successive transactions end, cycled */
    uint32_t end_count;
    ks_time end_delay_ns;      /* from a transaction's last send() to its commit/abort */
    ks_txn_protocol protocol;
} ks_txn_conf;

const char *ks_txn_end_name(ks_txn_end e);
const char *ks_txn_protocol_name(ks_txn_protocol p);

typedef struct ks_producer_conf {
    char *id;
    uint32_t topic;                      /* index into topics */
    ks_partitioner_choice partitioner;   /* for keyless records */
    ks_cfg_value config[KS_PCFG__COUNT];
    ks_workload_conf workload;
    ks_producer_cost cost;
    ks_compression_conf compression;
    ks_txn_conf txn;
} ks_producer_conf;

/* How a consumer commits its offsets. */
#define KS_COMMIT_MODES(X)            \
    X(NONE, "none")                   \
    X(SYNC, "sync")                   \
    X(TRANSACTION, "transaction")

typedef enum ks_commit_mode {
#define X(e, name) KS_COMMIT_##e,
    KS_COMMIT_MODES(X)
#undef X
    KS_COMMIT__COUNT
} ks_commit_mode;

const char *ks_commit_mode_name(ks_commit_mode m);

/* A consumer (docs/scenario.md, "consumers"). */
typedef struct ks_consumer_conf {
    char *id;
    uint32_t topic;
    uint32_t *partitions;      /* partition numbers it reads */
    uint32_t partition_count;
    bool all_partitions;       /* not given: every partition the topic has at the start */
    bool read_committed;       /* isolation.level */
    char *group_id;
    ks_time start_ns;
    ks_time poll_interval_ns;  /* between the end of one poll's processing and the next poll */
    uint32_t max_poll_records;
    ks_time process_ns;        /* the application's time per record */
    ks_commit_mode commit;
    int32_t forward_to;        /* consume-transform-produce: producer index, or -1 */
    ks_time fetch_max_wait_ns; /* fetch.max.wait.ms: how long a leader holds an empty fetch */
    bool reset_earliest;       /* auto.offset.reset: earliest (else latest) */
} ks_consumer_conf;

/* Broker costs (docs/scenario.md, "cost model"). */
typedef struct ks_broker_cost {
    ks_time request_ns;        /* fixed cost of handling one request */
    ks_time batch_ns;          /* cost of each partition's batch appended */
    int64_t byte_ps;           /* cost per byte appended, picoseconds */
    ks_time response_delay_ns; /* added before every response leaves */
    ks_time txn_log_write_ns;  /* a coordinator's write to __transaction_state */
} ks_broker_cost;

typedef struct ks_network_conf {
    ks_dist latency;           /* one-way, per message */
    uint64_t bandwidth_bps;    /* per link and direction; 0 = unlimited */
} ks_network_conf;

typedef struct ks_limits_conf {
    uint64_t max_events;
    ks_time max_time_ns;
    uint32_t max_pending;
} ks_limits_conf;

typedef struct ks_scenario {
    char *file;                /* as given, for messages */
    char *name;
    char *description;
    uint64_t seed;
    char *kafka_version_text;
    ks_kafka_version kafka_version;
    ks_limits_conf limits;

    uint32_t broker_count;
    ks_cfg_value broker_config[KS_BCFG__COUNT];
    ks_broker_cost broker_cost;       /* brokers.cost, common to all */
    ks_broker_cost *broker_costs;     /* per broker, with overrides */
    bool *broker_overridden;          /* per broker: has an override */

    ks_network_conf network;

    uint32_t topic_count;
    ks_topic_conf *topics;
    uint32_t producer_count;
    ks_producer_conf *producers;
    uint32_t consumer_count;
    ks_consumer_conf *consumers;

    ks_time metrics_bucket_ns;  /* metrics.bucket.ms; 0 = no series */

    uint32_t admin_count;
    ks_admin_op *admin;         /* in time order (stable for equal times) */

    uint32_t fault_count;
    ks_fault_conf *faults;      /* as listed */

    /* Brokers' idempotent-producer state: batches kept per producer id
     * and partition (Kafka's NUM_BATCHES_TO_RETAIN, 5), and the first
     * producer id the cluster hands out. */
    uint32_t producer_state_batches;
    int64_t first_producer_id;

    json_t *expect;   /* the expect block as written, NULL if none */
    json_t *doc;      /* the document after --set, for messages */
} ks_scenario;

/* Most --set overrides one load takes. */
#define KS_MAX_OVERRIDES 256

/* One "--set path=value" override. */
typedef struct ks_override {
    const char *path;
    const char *value;
} ks_override;

/*
 * Loads and validates `file` ("-" reads standard input), applying the
 * overrides in order, then `seed` if has_seed. Returns NULL and fills
 * `diag` on any error; warnings (keys no model reads yet) may be added to
 * `diag` on success.
 */
ks_scenario *ks_scenario_load(const char *file, const ks_override *ovr, size_t n_ovr,
                              bool has_seed, uint64_t seed, ks_diag *diag);
/* Same, from text in memory (tests); `file` is only used in messages. */
ks_scenario *ks_scenario_parse(const char *file, const char *text, const ks_override *ovr,
                               size_t n_ovr, bool has_seed, uint64_t seed, ks_diag *diag);
/* Same, from `len` bytes that need not end in a NUL (a file read whole,
 * a fuzzer's input). A NUL byte anywhere is an error naming its offset. */
ks_scenario *ks_scenario_parse_bytes(const char *file, const char *data, size_t len,
                                     const ks_override *ovr, size_t n_ovr, bool has_seed,
                                     uint64_t seed, ks_diag *diag);
void ks_scenario_free(ks_scenario *sc);

/* The resolved scenario as JSON: every ksim value with defaults filled
 * in, Kafka configs as set explicitly (kafka.version supplies the rest),
 * in a fixed key order. It is itself a valid scenario that reruns the
 * same simulation; the trace header carries it. Caller owns the result. */
json_t *ks_scenario_to_json(const ks_scenario *sc);

/* A config table's values as JSON: every key the Kafka version has, or
 * only those set explicitly. */
json_t *ks_config_json(const ks_cfg_table *t, const ks_cfg_value *vals, ks_kafka_version v,
                       bool explicit_only);

const char *ks_arrival_name(ks_arrival a);

#endif
