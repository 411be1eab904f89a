/*
 * config.c - Kafka configuration tables and defaults per version.
 *
 * Sources ([K] = apache/kafka): producer keys from
 * clients/src/main/java/org/apache/kafka/clients/producer/ProducerConfig.java
 * and CommonClientConfigs.java; version changes from docs/upgrade.html and
 * the KIPs named per row. Broker keys from server-common and core config
 * classes named per row.
 */
#include "models/kafka/config.h"

#include <stdio.h>
#include <string.h>

#define INT_MAX32 INT64_C(2147483647)
#define LONG_MAX64 INT64_MAX

static const char *const compression_choices[] = {"none", "gzip", "snappy", "lz4", "zstd", NULL};

static const char *const producer_names[KS_PCFG__COUNT] = {
#define X(e, name) name,
    KS_PRODUCER_CONFIGS(X)
#undef X
};

static const char *const broker_names[KS_BCFG__COUNT] = {
#define X(e, name) name,
    KS_BROKER_CONFIGS(X)
#undef X
};

static const ks_cfg_def producer_defs[KS_PCFG__COUNT] = {
    [KS_PCFG_ACKS] = {.type = KS_CFG_ACKS, .changed = KS_KV(3, 0, 0), .def_old = 1,
        .def_new = KS_ACKS_ALL, .read_by = "producer",
        .doc = "\"1\" before 3.0, \"all\" from 3.0 (KIP-679); 0 completes a record once its "
               "request is written, with offset -1 and no response"},
    [KS_PCFG_BATCH_SIZE] = {.type = KS_CFG_INT, .max = INT_MAX32, .def_old = 16384,
        .read_by = "accumulator, partitioner",
        .doc = "a batch's write limit in bytes, and what uniform sticky sends to a partition "
               "before it switches; 0 sizes a new batch for its first record's upper bound (21 "
               "bytes of worst-case varints included), so a small record may still fit"},
    [KS_PCFG_LINGER_MS] = {.type = KS_CFG_LONG, .max = LONG_MAX64, .changed = KS_KV(4, 0, 0),
        .def_old = 0, .def_new = 5, .read_by = "accumulator",
        .doc = "how long a batch that is not full waits; 0 up to 3.9, 5 from 4.0 (KIP-1030)"},
    [KS_PCFG_BUFFER_MEMORY] = {.type = KS_CFG_LONG, .max = LONG_MAX64, .def_old = 33554432,
        .read_by = "accumulator",
        .doc = "memory for batches; when it is used up, send() blocks"},
    [KS_PCFG_MAX_BLOCK_MS] = {.type = KS_CFG_LONG, .max = LONG_MAX64, .def_old = 60000,
        .read_by = "producer",
        .doc = "how long send() blocks on a full buffer before BufferExhaustedException"},
    [KS_PCFG_MAX_REQUEST_SIZE] = {.type = KS_CFG_INT, .max = INT_MAX32, .def_old = 1048576,
        .read_by = "producer",
        .doc = "the largest request, and the largest record (RecordTooLargeException)"},
    [KS_PCFG_REQUEST_TIMEOUT_MS] = {.type = KS_CFG_INT, .max = INT_MAX32, .def_old = 30000,
        .read_by = "producer", .doc = "a connection whose oldest request waited this long is closed, "
                                      "failing every request in flight on it"},
    [KS_PCFG_DELIVERY_TIMEOUT_MS] = {.type = KS_CFG_INT, .max = INT_MAX32, .since = KS_KV(2, 1, 0),
        .def_old = 120000, .read_by = "producer",
        .doc = "upper bound on send() to outcome; no retry after it (KIP-91, 2.1)"},
    [KS_PCFG_RETRIES] = {.type = KS_CFG_INT, .max = INT_MAX32, .changed = KS_KV(2, 1, 0),
        .def_old = 0, .def_new = INT_MAX32, .read_by = "producer", .doc = "0 before 2.1, Integer.MAX_VALUE from 2.1 (KIP-91)"},
    [KS_PCFG_RETRY_BACKOFF_MS] = {.type = KS_CFG_LONG, .max = LONG_MAX64, .def_old = 100,
        .read_by = "producer", .doc = "the backoff before a retry (the first one, from 3.7)"},
    [KS_PCFG_RETRY_BACKOFF_MAX_MS] = {.type = KS_CFG_LONG, .max = LONG_MAX64,
        .since = KS_KV(3, 7, 0), .def_old = 1000,
        .read_by = "producer", .doc = "exponential backoff ceiling (KIP-580, 3.7)"},
    [KS_PCFG_MAX_IN_FLIGHT] = {.type = KS_CFG_INT, .min = 1, .max = INT_MAX32, .def_old = 5,
        .read_by = "producer",
        .doc = "requests without a response per connection; 1 mutes a partition while its batch "
               "is in flight"},
    [KS_PCFG_ENABLE_IDEMPOTENCE] = {.type = KS_CFG_BOOL, .changed = KS_KV(3, 0, 0), .def_old = 0,
        .def_new = 1, .read_by = "producer", .doc = "false before 3.0, true from 3.0 (KIP-679; effective from "
                             "3.0.1, 3.1.1 and 3.2.0, KAFKA-13598)"},
    [KS_PCFG_TRANSACTIONAL_ID] = {.type = KS_CFG_STRING, .read_by = "producer",
        .doc = "enables transactions; the coordinator is chosen by its hash"},
    [KS_PCFG_TRANSACTION_TIMEOUT_MS] = {.type = KS_CFG_INT, .min = 1, .max = INT_MAX32,
        .def_old = 60000, .read_by = "coordinator",
        .doc = "sent in InitProducerId: the coordinator aborts a transaction open longer than this"},
    [KS_PCFG_COMPRESSION_TYPE] = {.type = KS_CFG_ENUM, .choices = compression_choices,
        .read_by = "accumulator",
        .doc = "the batches' codec (see Compression); zstd from 2.1 (KIP-110)"},
    [KS_PCFG_PARTITIONER_CLASS] = {.type = KS_CFG_STRING,
        .doc = "null = the built-in partitioner of the version (the producer's partitioner key "
               "chooses one)"},
    [KS_PCFG_PARTITIONER_ADAPTIVE] = {.type = KS_CFG_BOOL, .since = KS_KV(3, 3, 0), .def_old = 1,
        .read_by = "partitioner",
        .doc = "queue-length weighted partition choice (KIP-794, 3.3)"},
    [KS_PCFG_PARTITIONER_AVAILABILITY_TIMEOUT_MS] = {.type = KS_CFG_LONG, .max = LONG_MAX64,
        .since = KS_KV(3, 3, 0), .read_by = "partitioner",
        .doc = "skip partitions of slow leaders (KIP-794, 3.3)"},
    [KS_PCFG_PARTITIONER_IGNORE_KEYS] = {.type = KS_CFG_BOOL, .since = KS_KV(3, 3, 0),
        .read_by = "partitioner",
        .doc = "treat keyed records as keyless (KIP-794, 3.3)"},
    [KS_PCFG_RECONNECT_BACKOFF_MS] = {.type = KS_CFG_LONG, .max = LONG_MAX64, .def_old = 50,
        .read_by = "producer", .doc = "wait before reconnecting after a connection closed"},
    [KS_PCFG_METADATA_MAX_AGE_MS] = {.type = KS_CFG_LONG, .max = LONG_MAX64, .def_old = 300000,
        .read_by = "producer", .doc = "how often the producer refreshes metadata and sees added partitions"},
    [KS_PCFG_CLIENT_ID] = {.type = KS_CFG_STRING, .read_by = "producer",
        .doc = "null = \"producer-<transactional.id>\" or \"producer-N\", as KafkaProducer names "
               "it; sized into every request"},
};

static const ks_cfg_def broker_defs[KS_BCFG__COUNT] = {
    [KS_BCFG_NUM_IO_THREADS] = {.type = KS_CFG_INT, .min = 1, .max = 4096, .def_old = 8,
        .read_by = "broker", .doc = "request handler threads (ServerConfigs)"},
    [KS_BCFG_REQUEST_TIMEOUT_MS] = {.type = KS_CFG_INT, .min = 1, .max = INT_MAX32, .def_old = 30000,
        .read_by = "broker, coordinator",
        .doc = "inter-broker requests time out after this: WriteTxnMarkers, and a leader's "
               "AddPartitionsToTxn verification (3.6+)"},
    /* [K] server/.../ServerConfigs.MESSAGE_MAX_BYTES_DEFAULT = 1024 * 1024 +
     * Records.LOG_OVERHEAD; checked per batch by UnifiedLog.
     * analyzeAndValidateRecords (batch.sizeInBytes > maxMessageSize) */
    [KS_BCFG_MESSAGE_MAX_BYTES] = {.type = KS_CFG_INT, .max = INT_MAX32, .def_old = 1048588,
        .read_by = "broker",
        .doc = "largest record batch a broker accepts (1 MiB + 12); larger: MESSAGE_TOO_LARGE"},
    [KS_BCFG_MIN_INSYNC_REPLICAS] = {.type = KS_CFG_INT, .min = 1, .max = INT_MAX32, .def_old = 1,
        .doc = "acks=all needs this many in-sync replicas"},
    [KS_BCFG_UNCLEAN_LEADER_ELECTION] = {.type = KS_CFG_BOOL,
        .doc = "false since 0.11"},
    [KS_BCFG_REPLICA_LAG_TIME_MAX_MS] = {.type = KS_CFG_LONG, .max = LONG_MAX64,
        .changed = KS_KV(2, 5, 0), .def_old = 10000, .def_new = 30000,
        .doc = "10000 before 2.5, 30000 from 2.5 (KIP-537)"},
    [KS_BCFG_TXN_STATE_LOG_PARTITIONS] = {.type = KS_CFG_INT, .min = 1, .max = INT_MAX32,
        .def_old = 50, .read_by = "coordinator", .doc = "partitions of __transaction_state"},
    [KS_BCFG_OFFSETS_TOPIC_PARTITIONS] = {.type = KS_CFG_INT, .min = 1, .max = INT_MAX32,
        .def_old = 50, .read_by = "groups",
        .doc = "partitions of __consumer_offsets ([K] GroupCoordinatorConfig)"},
    [KS_BCFG_TXN_MAX_TIMEOUT_MS] = {.type = KS_CFG_INT, .min = 1, .max = INT_MAX32,
        .def_old = 900000, .read_by = "coordinator",
        .doc = "largest transaction.timeout.ms a producer may ask for: InitProducerId answers "
               "INVALID_TRANSACTION_TIMEOUT above it"},
    [KS_BCFG_TXN_ABORT_INTERVAL_MS] = {.type = KS_CFG_INT, .min = 1, .max = INT_MAX32,
        .def_old = 10000, .read_by = "coordinator", .doc = "how often the coordinator looks for timed-out transactions"},
    [KS_BCFG_PRODUCER_ID_EXPIRATION_MS] = {.type = KS_CFG_INT, .min = 1, .max = INT_MAX32,
        .since = KS_KV(3, 4, 0), .def_old = 86400000,
        .doc = "idle time before a producer id's state is dropped (KIP-854, 3.4)"},
};

static const char *const topic_names[KS_TCFG__COUNT] = {
#define X(e, name) name,
    KS_TOPIC_CONFIGS(X)
#undef X
};

/* [K] storage/.../LogConfig.java: DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024 +
 * Records.LOG_OVERHEAD, the broker's message.max.bytes when not set. */
static const ks_cfg_def topic_defs[KS_TCFG__COUNT] = {
    [KS_TCFG_MAX_MESSAGE_BYTES] = {.type = KS_CFG_INT, .max = INT_MAX32, .def_old = 1048588,
        .read_by = "broker",
        .doc = "the topic's own message.max.bytes; unset: the broker's"},
};

const ks_cfg_table ks_producer_configs = {"producer", producer_names, producer_defs, KS_PCFG__COUNT};
const ks_cfg_table ks_broker_configs = {"broker", broker_names, broker_defs, KS_BCFG__COUNT};
const ks_cfg_table ks_topic_configs = {"topic", topic_names, topic_defs, KS_TCFG__COUNT};

/* Reads 1 or 2 decimal digits (no sign, no leading zero unless alone). */
static const char *read_part(const char *s, int *out)
{
    if (s[0] < '0' || s[0] > '9')
        return NULL;
    if (s[0] == '0' && s[1] >= '0' && s[1] <= '9')
        return NULL;
    int v = s[0] - '0';
    s++;
    if (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s - '0');
        s++;
    }
    if (*s >= '0' && *s <= '9')
        return NULL;
    *out = v;
    return s;
}

bool ks_kafka_version_parse(const char *s, ks_kafka_version *out)
{
    int maj, min, patch = KS_KV_PATCH_LATEST;
    const char *p = read_part(s, &maj);
    if (!p || *p != '.')
        return false;
    p = read_part(p + 1, &min);
    if (!p)
        return false;
    if (*p == '.') {
        p = read_part(p + 1, &patch);
        /* patch releases so far stay below .10 */
        if (!p || patch > 9)
            return false;
    }
    if (*p != '\0')
        return false;
    ks_kafka_version v = KS_KV(maj, min, patch);
    if (v < KS_KAFKA_VERSION_MIN || v > KS_KAFKA_VERSION_MAX)
        return false;
    /* Known release lines only: 2.0-2.8, 3.0-3.9, 4.0-4.1. */
    if ((maj == 2 && min > 8) || (maj == 3 && min > 9))
        return false;
    *out = v;
    return true;
}

void ks_kafka_version_text(ks_kafka_version v, char *out, size_t n)
{
    int maj = v / 10000, min = v / 100 % 100, patch = v % 100;
    if (patch == KS_KV_PATCH_LATEST || patch == 0)
        snprintf(out, n, "%d.%d", maj, min);
    else
        snprintf(out, n, "%d.%d.%d", maj, min, patch);
}

ks_cfg_value ks_cfg_default(const ks_cfg_table *t, int i, ks_kafka_version v)
{
    const ks_cfg_def *def = &t->defs[i];
    ks_cfg_value val = {.i = def->def_old, .s = def->sdef, .set = false};
    if (def->changed != 0 && v >= def->changed)
        val.i = def->def_new;
    /* KAFKA-13598: 3.0.0 and 3.1.0 documented enable.idempotence=true but
     * the producer only enabled it when set explicitly; fixed in 3.0.1,
     * 3.1.1 and 3.2.0 ([K] docs/upgrade.html, 3.0.1 and 3.2.0 notes). */
    if (t == &ks_producer_configs && i == KS_PCFG_ENABLE_IDEMPOTENCE &&
        (v == KS_KV(3, 0, 0) || v == KS_KV(3, 1, 0)))
        val.i = 0;
    return val;
}

void ks_cfg_defaults(const ks_cfg_table *t, ks_kafka_version v, ks_cfg_value *vals)
{
    for (int i = 0; i < t->count; i++)
        vals[i] = ks_cfg_default(t, i, v);
}

int ks_cfg_find(const ks_cfg_table *t, const char *name)
{
    for (int i = 0; i < t->count; i++)
        if (strcmp(t->names[i], name) == 0)
            return i;
    return -1;
}
