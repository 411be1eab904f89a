/*
 * config.h - Kafka's configuration keys, their types, valid ranges
 * and their defaults per Kafka version.
 *
 * Owns: the tables that turn a scenario's "config" objects into resolved
 * values, and the Kafka version numbers they are keyed by. Every key uses
 * Kafka's own name; every default cites the Kafka source it comes from
 * (kafka_config.c). A value carries whether the scenario set it
 * explicitly, because Kafka itself decides some things on that (an
 * explicit enable.idempotence=true with acks=1 is a ConfigException, a
 * defaulted one is silently turned off).
 */
#ifndef KS_KAFKA_CONFIG_H
#define KS_KAFKA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A Kafka release as major * 10000 + minor * 100 + patch. A version given
 * without a patch ("3.9") means the newest patch of that line. */
typedef int32_t ks_kafka_version;
#define KS_KV(maj, min, patch) ((maj) * 10000 + (min) * 100 + (patch))
#define KS_KV_PATCH_LATEST 99
#define KS_KAFKA_VERSION_MIN KS_KV(2, 0, 0)
#define KS_KAFKA_VERSION_MAX KS_KV(4, 1, KS_KV_PATCH_LATEST)
/* The version used when a scenario names none. */
#define KS_KAFKA_VERSION_DEFAULT "4.0"

/* Parses "M.m" or "M.m.p" within the supported range. */
bool ks_kafka_version_parse(const char *s, ks_kafka_version *out);
/* Writes v as "3.9" (the newest patch of a line, or its .0) or "3.9.1". */
void ks_kafka_version_text(ks_kafka_version v, char *out, size_t n);

typedef enum ks_cfg_type {
    KS_CFG_INT,    /* Java int */
    KS_CFG_LONG,   /* Java long */
    KS_CFG_BOOL,
    KS_CFG_STRING, /* may be null */
    KS_CFG_ENUM,   /* one of `choices` */
    KS_CFG_ACKS    /* "all", "-1", "0", "1" or the numbers -1, 0, 1; kept as
                      -1 (all), 0 or 1 */
} ks_cfg_type;

typedef struct ks_cfg_def {
    ks_cfg_type type;
    int64_t min, max;          /* INT, LONG */
    ks_kafka_version since;    /* first release with the key; 0 = all */
    ks_kafka_version until;    /* first release without it; 0 = still there */
    ks_kafka_version changed;  /* default changes from def_old to def_new
                                  at this release; 0 = never */
    int64_t def_old, def_new;  /* INT, LONG, BOOL, ACKS, ENUM index */
    const char *sdef;          /* STRING default; NULL = null */
    const char *const *choices;/* ENUM: NULL-terminated */
    const char *read_by;       /* the ksim model that uses it; NULL = none
                                  yet (setting it draws a warning) */
    const char *doc;           /* one line, with its source */
} ks_cfg_def;

typedef struct ks_cfg_value {
    int64_t i;          /* INT, LONG, BOOL (0/1), ACKS, ENUM index */
    const char *s;      /* STRING (owned by the scenario); NULL = null */
    bool set;           /* given explicitly by the scenario or --set */
} ks_cfg_value;

/* Producer configs ([K] clients/.../producer/ProducerConfig.java). */
#define KS_PRODUCER_CONFIGS(X)                                   \
    X(ACKS, "acks")                                              \
    X(BATCH_SIZE, "batch.size")                                  \
    X(LINGER_MS, "linger.ms")                                    \
    X(BUFFER_MEMORY, "buffer.memory")                            \
    X(MAX_BLOCK_MS, "max.block.ms")                              \
    X(MAX_REQUEST_SIZE, "max.request.size")                      \
    X(REQUEST_TIMEOUT_MS, "request.timeout.ms")                  \
    X(DELIVERY_TIMEOUT_MS, "delivery.timeout.ms")                \
    X(RETRIES, "retries")                                        \
    X(RETRY_BACKOFF_MS, "retry.backoff.ms")                      \
    X(RETRY_BACKOFF_MAX_MS, "retry.backoff.max.ms")              \
    X(MAX_IN_FLIGHT, "max.in.flight.requests.per.connection")    \
    X(ENABLE_IDEMPOTENCE, "enable.idempotence")                  \
    X(TRANSACTIONAL_ID, "transactional.id")                      \
    X(TRANSACTION_TIMEOUT_MS, "transaction.timeout.ms")          \
    X(COMPRESSION_TYPE, "compression.type")                      \
    X(PARTITIONER_CLASS, "partitioner.class")                    \
    X(PARTITIONER_ADAPTIVE, "partitioner.adaptive.partitioning.enable") \
    X(PARTITIONER_AVAILABILITY_TIMEOUT_MS, "partitioner.availability.timeout.ms") \
    X(PARTITIONER_IGNORE_KEYS, "partitioner.ignore.keys")        \
    X(CLIENT_ID, "client.id")                                    \
    X(METADATA_MAX_AGE_MS, "metadata.max.age.ms")                \
    X(RECONNECT_BACKOFF_MS, "reconnect.backoff.ms")

typedef enum ks_pcfg {
#define X(e, name) KS_PCFG_##e,
    KS_PRODUCER_CONFIGS(X)
#undef X
    KS_PCFG__COUNT
} ks_pcfg;

/* Broker and topic configs ([K] server/.../ServerLogConfigs.java,
 * ReplicationConfigs.java, TransactionLogConfig.java, ...). */
#define KS_BROKER_CONFIGS(X)                                     \
    X(NUM_IO_THREADS, "num.io.threads")                          \
    X(REQUEST_TIMEOUT_MS, "request.timeout.ms")                  \
    X(MESSAGE_MAX_BYTES, "message.max.bytes")                    \
    X(MIN_INSYNC_REPLICAS, "min.insync.replicas")                \
    X(UNCLEAN_LEADER_ELECTION, "unclean.leader.election.enable") \
    X(REPLICA_LAG_TIME_MAX_MS, "replica.lag.time.max.ms")        \
    X(TXN_STATE_LOG_PARTITIONS, "transaction.state.log.num.partitions") \
    X(OFFSETS_TOPIC_PARTITIONS, "offsets.topic.num.partitions")  \
    X(TXN_MAX_TIMEOUT_MS, "transaction.max.timeout.ms")          \
    X(TXN_ABORT_INTERVAL_MS, "transaction.abort.timed.out.transaction.cleanup.interval.ms") \
    X(PRODUCER_ID_EXPIRATION_MS, "producer.id.expiration.ms")

typedef enum ks_bcfg {
#define X(e, name) KS_BCFG_##e,
    KS_BROKER_CONFIGS(X)
#undef X
    KS_BCFG__COUNT
} ks_bcfg;

/* Topic configs a scenario's topic may override ([K] clients/.../common/
 * config/TopicConfig.java); without an override a topic takes the
 * broker's value (LogConfig's defaults come from the broker config). */
#define KS_TOPIC_CONFIGS(X) X(MAX_MESSAGE_BYTES, "max.message.bytes")

typedef enum ks_tcfg {
#define X(e, name) KS_TCFG_##e,
    KS_TOPIC_CONFIGS(X)
#undef X
    KS_TCFG__COUNT
} ks_tcfg;

/* One table: its key names (generated from the X-macro list) and their
 * definitions, in the same order. */
typedef struct ks_cfg_table {
    const char *what; /* "producer", "broker", "topic" */
    const char *const *names;
    const ks_cfg_def *defs;
    int count;
} ks_cfg_table;

extern const ks_cfg_table ks_producer_configs;
extern const ks_cfg_table ks_broker_configs;
extern const ks_cfg_table ks_topic_configs;

/* The default of key `i` of table `t` under Kafka version v. */
ks_cfg_value ks_cfg_default(const ks_cfg_table *t, int i, ks_kafka_version v);
/* Finds a key in a table; -1 if absent. */
int ks_cfg_find(const ks_cfg_table *t, const char *name);
/* Fills vals[0..t->count) with the defaults of version v. */
void ks_cfg_defaults(const ks_cfg_table *t, ks_kafka_version v, ks_cfg_value *vals);

/* acks values as kept in ks_cfg_value.i */
#define KS_ACKS_ALL (-1)

#endif
