/*
 * scenario.c - scenario loading and validation (see scenario.h and
 * docs/scenario.md).
 *
 * Structure: parse (jansson, with line and column on syntax errors) ->
 * apply --set overrides to the document -> walk it section by section.
 * Every section function checks its object's keys first (unknown key ->
 * error with a suggestion), then reads each known key with a typed getter
 * that reports "FILE: $.path: expected ..., got VALUE" and leaves the
 * default in place, so one run reports every problem.
 */
#include "models/scenario.h"

#include "ks_version.h"
#include "models/kafka/config_json.h"
#include "sim/conf.h"
#include "sim/detmath.h"
#include "sim/json_path.h"
#include "sim/str.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const arrival_names[] = {
#define X(e, name) name,
    KS_ARRIVALS(X)
#undef X
};

static const char *const partitioner_names[] = {
#define X(e, name) name,
    KS_PARTITIONER_CHOICES(X)
#undef X
};

const char *ks_partitioner_choice_name(ks_partitioner_choice c)
{
    assert((unsigned)c < (unsigned)KS_PCHOICE__COUNT);
    return partitioner_names[c];
}

static const char *const txn_end_names[] = {
#define X(e, name) name,
    KS_TXN_ENDS(X)
#undef X
};
static const char *const txn_protocol_names[] = {
#define X(e, name) name,
    KS_TXN_PROTOCOLS(X)
#undef X
};
static const char *const commit_mode_names[] = {
#define X(e, name) name,
    KS_COMMIT_MODES(X)
#undef X
};

const char *ks_txn_end_name(ks_txn_end e)
{
    assert((unsigned)e < (unsigned)KS_TXN_END__COUNT);
    return txn_end_names[e];
}

const char *ks_txn_protocol_name(ks_txn_protocol pr)
{
    assert((unsigned)pr < (unsigned)KS_TXNP__COUNT);
    return txn_protocol_names[pr];
}

const char *ks_commit_mode_name(ks_commit_mode m)
{
    assert((unsigned)m < (unsigned)KS_COMMIT__COUNT);
    return commit_mode_names[m];
}

const char *ks_arrival_name(ks_arrival a)
{
    assert((unsigned)a < (unsigned)KS_ARRIVAL__COUNT);
    return arrival_names[a];
}

/* The format's own dotted keys: a --set path ending in one of them sets
 * that key, even beside an object sharing its first segment
 * ("network.latency.ms" next to a "latency" object). Kafka's config names
 * are added from the config tables. */
static const char *const ksim_dotted_keys[] = {
    "scenario.format", "kafka.version", "max.events", "max.time.ms", "max.pending.events",
    "request.us", "batch.us", "byte.ns", "response.delay.ms", "latency.ms", "bandwidth.mbps",
    "min.ms", "max.ms", "mean.ms", "median.ms", "replication.factor", "rate.per.sec",
    "start.ms", "value.bytes", "record.us", "at.ms", "create.partitions", "bucket.ms",
    "compress.ns.per.byte", "decompress.ns.per.byte", "burst.records", "burst.interval.ms",
    "after.ms", "delay.ms", "from.ms", "to.ms", "producer.state.batches", "first.producer.id",
    "txn.log.write.ms", "end.delay.ms", "isolation.level", "group.id", "poll.interval.ms",
    "max.poll.records", "process.us", "forward.to", "restart.ms",
    NULL};

/* Builds the NULL-terminated list of every dotted key (caller frees the
 * array, not the strings). */
static const char **leaf_keys(void)
{
    size_t n = 0;
    while (ksim_dotted_keys[n])
        n++;
    size_t total = n + (size_t)ks_producer_configs.count + (size_t)ks_broker_configs.count + 1;
    const char **list = malloc(total * sizeof *list);
    if (!list)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        list[k++] = ksim_dotted_keys[i];
    for (int i = 0; i < ks_producer_configs.count; i++)
        list[k++] = ks_producer_configs.names[i];
    for (int i = 0; i < ks_broker_configs.count; i++)
        list[k++] = ks_broker_configs.names[i];
    list[k] = NULL;
    return list;
}

/* Objects a --set may create on the way to a key. */
static const char *const sections[] = {"limits", "brokers", "config", "cost", "network",
                                       "workload", "metrics", "expect", NULL};

/* ---- sections ----------------------------------------------------------- */

static void load_metrics(ks_conf *L, json_t *root, ks_scenario *sc)
{
    static const char *const keys[] = {"bucket.ms", NULL};
    sc->metrics_bucket_ns = 100 * KS_NS_PER_MS;
    json_t *obj;
    if (!ks_conf_get_object(L, root, "metrics", &obj) || !obj)
        return;
    size_t mark = ks_conf_enter(L, "metrics");
    ks_conf_check_keys(L, obj, keys, NULL);
    ks_conf_get_ms(L, obj, "bucket.ms", false, &sc->metrics_bucket_ns);
    ks_conf_leave(L, mark);
}

static void load_limits(ks_conf *L, json_t *root, ks_scenario *sc)
{
    static const char *const keys[] = {"max.events", "max.time.ms", "max.pending.events", NULL};
    sc->limits.max_events = 1000000000u;
    sc->limits.max_time_ns = 24 * 3600 * KS_NS_PER_S;
    sc->limits.max_pending = KS_SIM_PENDING_MAX;
    json_t *obj;
    if (!ks_conf_get_object(L, root, "limits", &obj))
        return;
    size_t mark = ks_conf_enter(L, "limits");
    ks_conf_check_keys(L, obj, keys, NULL);
    int64_t x;
    if (ks_conf_get_int(L, obj, "max.events", 1, INT64_MAX, &x))
        sc->limits.max_events = (uint64_t)x;
    ks_conf_get_ms(L, obj, "max.time.ms", true, &sc->limits.max_time_ns);
    if (ks_conf_get_int(L, obj, "max.pending.events", 1, KS_SIM_PENDING_MAX, &x))
        sc->limits.max_pending = (uint32_t)x;
    ks_conf_leave(L, mark);
}

static void load_latency_object(ks_conf *L, json_t *obj, ks_dist *d)
{
    static const char *const dist_names[] = {"constant", "uniform", "exponential", "lognormal"};
    static const char *const k_const[] = {"dist", "ms", NULL};
    static const char *const k_unif[] = {"dist", "min.ms", "max.ms", NULL};
    static const char *const k_exp[] = {"dist", "mean.ms", "min.ms", NULL};
    static const char *const k_logn[] = {"dist", "median.ms", "sigma", "min.ms", NULL};
    json_t *kind = ks_conf_member(obj, "dist");
    size_t mark = ks_conf_enter(L, "dist");
    unsigned k = 0;
    if (!kind) {
        ks_conf_err(L, "missing: one of \"constant\", \"uniform\", \"exponential\", \"lognormal\"");
        ks_conf_leave(L, mark);
        return;
    }
    if (!ks_conf_check_choice(L, kind, dist_names, 4, &k)) {
        ks_conf_leave(L, mark);
        return;
    }
    ks_conf_leave(L, mark);
    ks_dist nd = ks_dist_constant(0);
    nd.kind = (ks_dist_kind)k;
    const char *need = NULL;
    switch (nd.kind) {
    case KS_DIST_CONSTANT:
        ks_conf_check_keys(L, obj, k_const, NULL);
        if (!ks_conf_get_ms(L, obj, "ms", false, &nd.a_ns))
            need = "ms";
        nd.b_ns = nd.a_ns;
        break;
    case KS_DIST_UNIFORM:
        ks_conf_check_keys(L, obj, k_unif, NULL);
        if (!ks_conf_get_ms(L, obj, "min.ms", false, &nd.a_ns))
            need = "min.ms";
        if (!ks_conf_get_ms(L, obj, "max.ms", false, &nd.b_ns))
            need = "max.ms";
        if (!need && nd.b_ns < nd.a_ns)
            ks_conf_err(L, "max.ms must be >= min.ms");
        break;
    case KS_DIST_EXPONENTIAL:
        ks_conf_check_keys(L, obj, k_exp, NULL);
        if (!ks_conf_get_ms(L, obj, "mean.ms", true, &nd.a_ns))
            need = "mean.ms";
        ks_conf_get_ms(L, obj, "min.ms", false, &nd.min_ns);
        break;
    case KS_DIST_LOGNORMAL:
        ks_conf_check_keys(L, obj, k_logn, NULL);
        if (!ks_conf_get_ms(L, obj, "median.ms", true, &nd.a_ns))
            need = "median.ms";
        if (!ks_conf_get_real(L, obj, "sigma", 0.0, false, 10.0, &nd.sigma))
            need = need ? need : "sigma";
        ks_conf_get_ms(L, obj, "min.ms", false, &nd.min_ns);
        break;
    case KS_DIST__COUNT:
        break;
    }
    if (need && !ks_conf_member(obj, need)) {
        size_t m = ks_conf_enter(L, need);
        ks_conf_err(L, "missing (a %s distribution needs it)", ks_dist_name(nd.kind));
        ks_conf_leave(L, m);
    }
    *d = nd;
}

static void load_network(ks_conf *L, json_t *root, ks_scenario *sc)
{
    static const char *const keys[] = {"latency.ms", "latency", "bandwidth.mbps", NULL};
    static const char *const planned[] = {"links", NULL};
    sc->network.latency = ks_dist_constant(500 * KS_NS_PER_US);
    sc->network.bandwidth_bps = UINT64_C(10000000000);
    json_t *obj;
    if (!ks_conf_get_object(L, root, "network", &obj))
        return;
    size_t mark = ks_conf_enter(L, "network");
    for (int i = 0; i < 2; i++) {
        const char *k = i ? "response.loss" : "request.loss";
        json_t *v = ks_conf_member(obj, k);
        if (!v)
            continue;
        size_t m = ks_conf_enter(L, k);
        ks_conf_err(L, "loss is a fault: add {\"type\": \"%s\", \"probability\": P} to the top-level "
               "\"faults\" list (optionally with \"producer\", \"broker\", \"from.ms\", \"to.ms\")",
            k);
        ks_conf_leave(L, m);
        json_object_del(obj, k);
    }
    ks_conf_check_keys(L, obj, keys, planned);
    ks_time ns;
    json_t *lat = NULL;
    if (ks_conf_member(obj, "latency.ms") && ks_conf_member(obj, "latency")) {
        ks_conf_err(L, "give either \"latency.ms\" (constant) or \"latency\" (a distribution), not both");
    } else if (ks_conf_get_ms(L, obj, "latency.ms", false, &ns)) {
        sc->network.latency = ks_dist_constant(ns);
    } else if (ks_conf_get_object(L, obj, "latency", &lat)) {
        size_t m = ks_conf_enter(L, "latency");
        load_latency_object(L, lat, &sc->network.latency);
        ks_conf_leave(L, m);
    }
    double mbps;
    if (ks_conf_get_real(L, obj, "bandwidth.mbps", 0.0, false, 1e9, &mbps)) {
        sc->network.bandwidth_bps = (uint64_t)ks_round_i64(mbps * 1e6);
        if (mbps > 0 && sc->network.bandwidth_bps == 0) {
            size_t m = ks_conf_enter(L, "bandwidth.mbps");
            ks_conf_err(L, "below 1 bit/s (0.000001 Mbit/s); use 0 for unlimited");
            ks_conf_leave(L, m);
        }
    }
    ks_conf_leave(L, mark);
}

#define MAX_PATTERN 100000u

/* "key": {"uniform": {"keys": K}} or {"zipf": {"keys": K, "s": 1.1}},
 * each with an optional "prefix" (default "key-"). */
static void load_key_distribution(ks_conf *L, json_t *v, ks_workload_conf *w)
{
    static const char *const kinds[] = {"uniform", "zipf", NULL};
    static const char *const k_uniform[] = {"keys", "prefix", NULL};
    static const char *const k_zipf[] = {"keys", "s", "prefix", NULL};
    ks_conf_check_keys(L, v, kinds, NULL);
    json_t *u = ks_conf_member(v, "uniform"), *z = ks_conf_member(v, "zipf");
    if ((u != NULL) == (z != NULL)) {
        ks_conf_err(L, "expected exactly one of {\"uniform\": {...}} and {\"zipf\": {...}}");
        return;
    }
    json_t *o = u ? u : z;
    size_t m = ks_conf_enter(L, u ? "uniform" : "zipf");
    if (!json_is_object(o)) {
        ks_conf_err_got(L, o, "an object");
        ks_conf_leave(L, m);
        return;
    }
    ks_conf_check_keys(L, o, u ? k_uniform : k_zipf, NULL);
    w->key_pick = u ? KS_PICK_UNIFORM : KS_PICK_ZIPF;
    w->key_space = 100;
    w->zipf_s = 1.0;
    ks_conf_get_u32(L, o, "keys", 1, 1000000, &w->key_space);
    if (z)
        ks_conf_get_real(L, o, "s", 0.0, true, 10.0, &w->zipf_s);
    const char *prefix = "key-";
    ks_conf_get_string(L, o, "prefix", false, &prefix);
    if (strlen(prefix) > 100) {
        size_t m2 = ks_conf_enter(L, "prefix");
        ks_conf_err(L, "at most 100 characters");
        ks_conf_leave(L, m2);
    } else {
        w->key_prefix = ks_strdup(prefix);
    }
    ks_conf_leave(L, m);
}

/* "key": null | "k" | ["a", null, "b"] (cycled) | a distribution. */
static void load_keys(ks_conf *L, json_t *v, ks_workload_conf *w)
{
    if (!v)
        return;
    size_t mark = ks_conf_enter(L, "key");
    if (json_is_object(v)) {
        load_key_distribution(L, v, w);
    } else if (json_is_array(v)) {
        size_t n = json_array_size(v);
        if (n == 0 || n > MAX_PATTERN) {
            ks_conf_err_got(L, v, "a key, null, or a non-empty array of keys and nulls");
        } else {
            char **keys = calloc(n, sizeof *keys);
            if (!keys) {
                ks_conf_err(L, "out of memory");
            } else {
                free(w->keys);
                w->keys = keys;
                w->key_count = (uint32_t)n;
                w->key_list = true;
                for (size_t i = 0; i < n; i++) {
                    json_t *k = json_array_get(v, i);
                    size_t m = ks_conf_enter_index(L, i);
                    if (json_is_string(k))
                        keys[i] = ks_strdup(json_string_value(k));
                    else if (!json_is_null(k))
                        ks_conf_err_got(L, k, "a string or null");
                    ks_conf_leave(L, m);
                }
            }
        }
    } else if (json_is_string(v) && !ks_conf_is_null(L, v)) {
        w->keys[0] = ks_strdup(json_string_value(v));
    } else if (!ks_conf_is_null(L, v)) {
        ks_conf_err_got(L, v, "a key, null, or an array of keys and nulls");
    }
    ks_conf_leave(L, mark);
}

/* "value.bytes": 100 | [100, 20000] (cycled). */
static void load_value_sizes(ks_conf *L, json_t *v, ks_workload_conf *w)
{
    const int64_t max = 100 * 1024 * 1024;
    if (!v)
        return;
    size_t mark = ks_conf_enter(L, "value.bytes");
    if (json_is_object(v)) {
        /* {"uniform": {"min": a, "max": b}} */
        static const char *const kinds[] = {"uniform", NULL};
        static const char *const k_uniform[] = {"min", "max", NULL};
        ks_conf_check_keys(L, v, kinds, NULL);
        json_t *u = ks_conf_member(v, "uniform");
        size_t m = ks_conf_enter(L, "uniform");
        if (!json_is_object(u)) {
            ks_conf_err_got(L, u ? u : v, "{\"uniform\": {\"min\": bytes, \"max\": bytes}}");
        } else {
            ks_conf_check_keys(L, u, k_uniform, NULL);
            w->value_pick = KS_PICK_UNIFORM;
            w->value_min = 0;
            w->value_max = 1000;
            ks_conf_get_u32(L, u, "min", 0, (uint32_t)max, &w->value_min);
            ks_conf_get_u32(L, u, "max", 0, (uint32_t)max, &w->value_max);
            if (w->value_max < w->value_min)
                ks_conf_err(L, "max must be >= min");
        }
        ks_conf_leave(L, m);
    } else if (json_is_array(v)) {
        size_t n = json_array_size(v);
        uint32_t *sizes = n > 0 && n <= MAX_PATTERN ? calloc(n, sizeof *sizes) : NULL;
        if (!sizes) {
            ks_conf_err_got(L, v, "a size, or a non-empty array of sizes");
        } else {
            free(w->value_bytes);
            w->value_bytes = sizes;
            w->value_count = (uint32_t)n;
            w->value_list = true;
            for (size_t i = 0; i < n; i++) {
                size_t m = ks_conf_enter_index(L, i);
                int64_t x;
                if (ks_conf_check_int(L, json_array_get(v, i), 0, max, &x))
                    sizes[i] = (uint32_t)x;
                ks_conf_leave(L, m);
            }
        }
    } else {
        int64_t x;
        if (ks_conf_check_int(L, v, 0, max, &x))
            w->value_bytes[0] = (uint32_t)x;
    }
    ks_conf_leave(L, mark);
}

static void load_workload(ks_conf *L, json_t *obj, ks_workload_conf *w)
{
    static const char *const keys[] = {"records", "arrival", "rate.per.sec", "start.ms",
                                       "key", "value.bytes", "burst.records",
                                       "burst.interval.ms", NULL};
    w->records = 10;
    w->arrival = KS_ARRIVAL_CONSTANT;
    w->rate_per_sec = 1000.0;
    w->start_ns = 0;
    w->keys = calloc(1, sizeof *w->keys);
    w->key_count = 1;
    w->value_bytes = calloc(1, sizeof *w->value_bytes);
    w->value_count = 1;
    if (!w->keys || !w->value_bytes) {
        ks_conf_err(L, "out of memory");
        return;
    }
    w->value_bytes[0] = 100;
    if (obj) {
        ks_conf_check_keys(L, obj, keys, NULL);
        int64_t x;
        if (ks_conf_get_int(L, obj, "records", 0, INT64_C(1) << 40, &x))
            w->records = (uint64_t)x;
        json_t *a = ks_conf_member(obj, "arrival");
        if (a) {
            size_t m = ks_conf_enter(L, "arrival");
            unsigned c;
            if (ks_conf_check_choice(L, a, arrival_names, KS_ARRIVAL__COUNT, &c))
                w->arrival = (ks_arrival)c;
            ks_conf_leave(L, m);
        }
        /* 1e-6/s is one send() per 11.6 virtual days */
        ks_conf_get_real(L, obj, "rate.per.sec", 1e-6, false, 1e9, &w->rate_per_sec);
        ks_conf_get_ms(L, obj, "start.ms", false, &w->start_ns);
        load_keys(L, ks_conf_member(obj, "key"), w);
        load_value_sizes(L, ks_conf_member(obj, "value.bytes"), w);
    }
    w->burst_records = 10;
    w->burst_interval_ns = 100 * KS_NS_PER_MS;
    if (obj) {
        ks_conf_get_u32(L, obj, "burst.records", 1, 1000000, &w->burst_records);
        ks_conf_get_ms(L, obj, "burst.interval.ms", true, &w->burst_interval_ns);
        if (w->arrival != KS_ARRIVAL_BURST &&
            (ks_conf_member(obj, "burst.records") || ks_conf_member(obj, "burst.interval.ms")))
            ks_conf_err(L, "burst.records and burst.interval.ms need \"arrival\": \"burst\"");
    }
    w->interval_ns = ks_round_i64(1e9 / w->rate_per_sec);
    if (w->interval_ns < 1)
        w->interval_ns = 1;
}

/* Codec defaults: ratios for text-like records (JSON, logs), speeds of
 * one modern core; order-of-magnitude figures from the codecs' published
 * benchmarks, to be replaced with measurements of one's own data. Order:
 * none gzip snappy lz4 zstd, as compression.type's choices. */
static const ks_compression_conf codec_defaults[5] = {
    {1.00, 0, 0},          /* none */
    {0.25, 20000, 4000},   /* gzip: ~50 MB/s in, ~250 MB/s out */
    {0.45, 2000, 1000},    /* snappy: ~500 MB/s, ~1 GB/s */
    {0.45, 1500, 300},     /* lz4: ~650 MB/s, ~3 GB/s */
    {0.28, 4000, 1000},    /* zstd level 3: ~250 MB/s, ~1 GB/s */
};

/* "compression": {"ratio", "compress.ns.per.byte", "decompress.ns.per.byte"}
 * over the defaults of the producer's compression.type. */
static void load_compression(ks_conf *L, json_t *obj, ks_producer_conf *pc)
{
    static const char *const keys[] = {"ratio", "compress.ns.per.byte",
                                       "decompress.ns.per.byte", NULL};
    pc->compression = codec_defaults[pc->config[KS_PCFG_COMPRESSION_TYPE].i];
    if (!obj)
        return;
    size_t m = ks_conf_enter(L, "compression");
    if (!json_is_object(obj)) {
        ks_conf_err_got(L, obj, "an object");
    } else {
        ks_conf_check_keys(L, obj, keys, NULL);
        double d;
        ks_conf_get_real(L, obj, "ratio", 0.01, false, 1.0, &pc->compression.ratio);
        if (ks_conf_get_real(L, obj, "compress.ns.per.byte", 0.0, false, 1e6, &d))
            pc->compression.compress_ps = ks_round_i64(d * 1e3);
        if (ks_conf_get_real(L, obj, "decompress.ns.per.byte", 0.0, false, 1e6, &d))
            pc->compression.decompress_ps = ks_round_i64(d * 1e3);
        if (pc->config[KS_PCFG_COMPRESSION_TYPE].i == 0 && pc->compression.ratio != 1.0)
            ks_conf_err(L, "compression.type is none: a ratio other than 1 has no codec to come from");
    }
    ks_conf_leave(L, m);
}

/* "transactions": how a transactional producer's application groups its
 * records. Needs transactional.id; a transactional.id without it gets
 * the defaults (one record per transaction, committed). */
static void load_transactions(ks_conf *L, json_t *obj, ks_kafka_version kv, ks_producer_conf *pc)
{
    static const char *const keys[] = {"records", "end", "end.delay.ms", "protocol", NULL};
    ks_txn_conf *t = &pc->txn;
    t->enabled = pc->config[KS_PCFG_TRANSACTIONAL_ID].s != NULL;
    t->records = 1;
    t->protocol = KS_TXNP_DEFAULT;
    t->ends = malloc(sizeof *t->ends);
    if (!t->ends) {
        ks_conf_err(L, "out of memory");
        return;
    }
    t->ends[0] = KS_TXN_END_COMMIT;
    t->end_count = 1;
    if (!obj)
        return;
    size_t mark = ks_conf_enter(L, "transactions");
    if (!json_is_object(obj)) {
        ks_conf_err_got(L, obj, "an object such as {\"records\": 10, \"end\": \"commit\"}");
        ks_conf_leave(L, mark);
        return;
    }
    ks_conf_check_keys(L, obj, keys, NULL);
    if (!t->enabled)
        ks_conf_err(L, "transactions need a transactional.id in the producer's config");
    ks_conf_get_u32(L, obj, "records", 1, 1000000, &t->records);
    ks_conf_get_ms(L, obj, "end.delay.ms", false, &t->end_delay_ns);
    json_t *pv = ks_conf_member(obj, "protocol");
    unsigned c;
    if (pv) {
        size_t m = ks_conf_enter(L, "protocol");
        if (ks_conf_check_choice(L, pv, txn_protocol_names, KS_TXNP__COUNT, &c))
            t->protocol = (ks_txn_protocol)c;
        if (t->protocol == KS_TXNP_KIP890 && kv < KS_KV(4, 0, 0))
            ks_conf_err(L, "KIP-890's transaction version 2 came with Kafka 4.0: set kafka.version to "
                   "\"4.0\" or later, or use \"classic\"");
        ks_conf_leave(L, m);
    }
    json_t *ev = ks_conf_member(obj, "end");
    if (ev) {
        size_t m = ks_conf_enter(L, "end");
        size_t n = json_is_array(ev) ? json_array_size(ev) : 1;
        if (n == 0 || n > 10000) {
            ks_conf_err_got(L, ev, "\"commit\", \"abort\", \"none\" or an array of them");
            ks_conf_leave(L, m);
            ks_conf_leave(L, mark);
            return;
        }
        ks_txn_end *ends = realloc(t->ends, n * sizeof *ends);
        if (!ends) {
            ks_conf_err(L, "out of memory");
            ks_conf_leave(L, m);
            ks_conf_leave(L, mark);
            return;
        }
        t->ends = ends;
        t->end_count = (uint32_t)n;
        for (size_t k = 0; k < n; k++) {
            bool list = json_is_array(ev);
            size_t mk = list ? ks_conf_enter_index(L, k) : 0;
            if (ks_conf_check_choice(L, list ? json_array_get(ev, k) : ev, txn_end_names,
                             KS_TXN_END__COUNT, &c))
                ends[k] = (ks_txn_end)c;
            if (list)
                ks_conf_leave(L, mk);
        }
        ks_conf_leave(L, m);
    }
    ks_conf_leave(L, mark);
}

static void load_producer(ks_conf *L, json_t *p, ks_scenario *sc, uint32_t i)
{
    static const char *const keys[] = {"id", "topic", "partitioner", "config", "workload",
                                       "cost", "compression", "transactions", NULL};
    static const char *const cost_keys[] = {"record.us", "batch.us", "request.us", NULL};
    ks_producer_conf *pc = &sc->producers[i];
    ks_conf_check_keys(L, p, keys, NULL);
    pc->cost.record_ns = 500;
    pc->cost.batch_ns = 5 * KS_NS_PER_US;
    pc->cost.request_ns = 10 * KS_NS_PER_US;
    json_t *cost = NULL;
    if (ks_conf_get_object(L, p, "cost", &cost) && cost) {
        size_t mc = ks_conf_enter(L, "cost");
        ks_conf_check_keys(L, cost, cost_keys, NULL);
        double d;
        if (ks_conf_get_real(L, cost, "record.us", 0.0, false, 1e9, &d))
            pc->cost.record_ns = ks_round_i64(d * 1e3);
        if (ks_conf_get_real(L, cost, "batch.us", 0.0, false, 1e9, &d))
            pc->cost.batch_ns = ks_round_i64(d * 1e3);
        if (ks_conf_get_real(L, cost, "request.us", 0.0, false, 1e9, &d))
            pc->cost.request_ns = ks_round_i64(d * 1e3);
        ks_conf_leave(L, mc);
    }
    const char *id = NULL;
    char defid[24];
    snprintf(defid, sizeof defid, "p%u", i + 1);
    if (!ks_conf_get_string(L, p, "id", false, &id))
        id = defid;
    size_t idlen = strlen(id);
    if (idlen == 0 || idlen > 100 ||
        strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != idlen) {
        size_t m = ks_conf_enter(L, "id");
        ks_conf_err(L, "\"%s\" is not a valid producer id: 1-100 characters of a-z A-Z 0-9 . _ -", id);
        ks_conf_leave(L, m);
    }
    for (uint32_t j = 0; j < i; j++) {
        if (sc->producers[j].id && strcmp(sc->producers[j].id, id) == 0) {
            size_t m = ks_conf_enter(L, "id");
            ks_conf_err(L, "producer id \"%s\" is used twice", id);
            ks_conf_leave(L, m);
        }
    }
    pc->id = ks_strdup(id);
    ks_topic_ref_load(L, p, sc, &pc->topic);
    pc->partitioner = KS_PCHOICE_DEFAULT;
    json_t *pv = ks_conf_member(p, "partitioner");
    if (pv) {
        size_t mp = ks_conf_enter(L, "partitioner");
        unsigned c;
        if (ks_conf_check_choice(L, pv, partitioner_names, KS_PCHOICE__COUNT, &c))
            pc->partitioner = (ks_partitioner_choice)c;
        ks_conf_leave(L, mp);
    }
    json_t *cfg = NULL, *wl = NULL;
    ks_conf_get_object(L, p, "config", &cfg);
    size_t m = ks_conf_enter(L, "config");
    ks_cfg_load_json(L, cfg, &ks_producer_configs, sc->kafka_version, pc->config);
    ks_conf_leave(L, m);
    ks_conf_get_object(L, p, "workload", &wl);
    m = ks_conf_enter(L, "workload");
    load_workload(L, wl, &pc->workload);
    ks_conf_leave(L, m);
    load_compression(L, ks_conf_member(p, "compression"), pc);
    load_transactions(L, ks_conf_member(p, "transactions"), sc->kafka_version, pc);
}

static void load_producers(ks_conf *L, json_t *root, ks_scenario *sc)
{
    json_t *arr = ks_conf_member(root, "producers");
    size_t mark = ks_conf_enter(L, "producers");
    if (!arr || !json_is_array(arr) || json_array_size(arr) == 0 ||
        json_array_size(arr) > 10000) {
        if (!arr)
            ks_conf_err(L, "missing: a scenario needs at least one producer");
        else
            ks_conf_err_got(L, arr, "a non-empty array of at most 10000 producers");
        ks_conf_leave(L, mark);
        return;
    }
    sc->producer_count = (uint32_t)json_array_size(arr);
    sc->producers = calloc(sc->producer_count, sizeof *sc->producers);
    if (!sc->producers) {
        ks_conf_err(L, "out of memory");
        sc->producer_count = 0;
    }
    for (uint32_t i = 0; i < sc->producer_count; i++) {
        json_t *p = json_array_get(arr, i);
        size_t m = ks_conf_enter_index(L, i);
        if (json_is_object(p))
            load_producer(L, p, sc, i);
        else
            ks_conf_err_got(L, p, "a producer object");
        ks_conf_leave(L, m);
    }
    ks_conf_leave(L, mark);
}

/* ---- consumers --------------------------------------------------------- */

static void consumer_partitions(ks_conf *L, json_t *v, const ks_scenario *sc, ks_consumer_conf *c)
{
    /* "topics" may have failed to load (its error is reported already) */
    if (!sc->topics || c->topic >= sc->topic_count)
        return;
    const ks_topic_conf *tc = &sc->topics[c->topic];
    c->all_partitions = v == NULL;
    size_t n = v ? (json_is_array(v) ? json_array_size(v) : 0) : tc->partitions;
    if (v && (!json_is_array(v) || n == 0 || n > KS_MAX_PARTITIONS)) {
        size_t m = ks_conf_enter(L, "partitions");
        ks_conf_err_got(L, v, "an array of partition numbers");
        ks_conf_leave(L, m);
        return;
    }
    c->partitions = calloc(n, sizeof *c->partitions);
    if (!c->partitions) {
        ks_conf_err(L, "out of memory");
        return;
    }
    c->partition_count = (uint32_t)n;
    for (size_t k = 0; k < n; k++) {
        c->partitions[k] = (uint32_t)k;
        if (!v)
            continue;
        size_t m = ks_conf_enter(L, "partitions");
        size_t mi = ks_conf_enter_index(L, k);
        int64_t num;
        if (ks_conf_check_int(L, json_array_get(v, k), 0, (int64_t)tc->max_partitions - 1, &num))
            c->partitions[k] = (uint32_t)num;
        ks_conf_leave(L, mi);
        ks_conf_leave(L, m);
    }
}

static void load_consumer(ks_conf *L, json_t *o, ks_scenario *sc, uint32_t i)
{
    static const char *const keys[] = {"id", "topic", "partitions", "isolation.level",
                                       "group.id", "start.ms", "poll.interval.ms",
                                       "max.poll.records", "process.us", "commit",
                                       "forward.to", "fetch.max.wait.ms", "auto.offset.reset",
                                       NULL};
    static const char *const isolation_names[] = {"read_uncommitted", "read_committed"};
    static const char *const reset_names[] = {"latest", "earliest"};
    ks_consumer_conf *c = &sc->consumers[i];
    c->forward_to = -1;
    c->poll_interval_ns = 10 * KS_NS_PER_MS;
    c->max_poll_records = 500;
    c->process_ns = 0;
    c->fetch_max_wait_ns = 500 * KS_NS_PER_MS; /* [K] ConsumerConfig: fetch.max.wait.ms */
    c->reset_earliest = false;                 /* auto.offset.reset: latest */
    ks_conf_check_keys(L, o, keys, NULL);
    const char *id = NULL;
    char defid[24];
    snprintf(defid, sizeof defid, "c%u", i + 1);
    if (!ks_conf_get_string(L, o, "id", false, &id))
        id = defid;
    for (uint32_t j = 0; j < i; j++) {
        if (sc->consumers[j].id && strcmp(sc->consumers[j].id, id) == 0) {
            size_t m = ks_conf_enter(L, "id");
            ks_conf_err(L, "consumer id \"%s\" is used twice", id);
            ks_conf_leave(L, m);
        }
    }
    c->id = ks_strdup(id);
    ks_topic_ref_load(L, o, sc, &c->topic);
    consumer_partitions(L, ks_conf_member(o, "partitions"), sc, c);
    unsigned ch;
    json_t *iso = ks_conf_member(o, "isolation.level");
    if (iso) {
        size_t m = ks_conf_enter(L, "isolation.level");
        if (ks_conf_check_choice(L, iso, isolation_names, 2, &ch))
            c->read_committed = ch == 1;
        ks_conf_leave(L, m);
    }
    const char *g = id;
    ks_conf_get_string(L, o, "group.id", false, &g);
    c->group_id = ks_strdup(g);
    ks_conf_get_ms(L, o, "start.ms", false, &c->start_ns);
    ks_conf_get_ms(L, o, "poll.interval.ms", false, &c->poll_interval_ns);
    ks_conf_get_u32(L, o, "max.poll.records", 1, 1000000, &c->max_poll_records);
    ks_conf_get_ms(L, o, "fetch.max.wait.ms", false, &c->fetch_max_wait_ns);
    json_t *reset = ks_conf_member(o, "auto.offset.reset");
    if (reset) {
        size_t m = ks_conf_enter(L, "auto.offset.reset");
        if (ks_conf_check_choice(L, reset, reset_names, 2, &ch))
            c->reset_earliest = ch == 1;
        ks_conf_leave(L, m);
    }
    double us;
    if (ks_conf_get_real(L, o, "process.us", 0.0, false, 1e9, &us))
        c->process_ns = ks_round_i64(us * 1e3);
    json_t *cm = ks_conf_member(o, "commit");
    if (cm) {
        size_t m = ks_conf_enter(L, "commit");
        if (ks_conf_check_choice(L, cm, commit_mode_names, KS_COMMIT__COUNT, &ch))
            c->commit = (ks_commit_mode)ch;
        ks_conf_leave(L, m);
    }
    const char *fw;
    if (ks_conf_get_string(L, o, "forward.to", false, &fw)) {
        size_t m = ks_conf_enter(L, "forward.to");
        c->forward_to = ks_conf_find_id(L, "producer", fw, sc->producers ? &sc->producers[0].id : NULL,
                                    sizeof(ks_producer_conf), sc->producer_count);
        ks_conf_leave(L, m);
    }
    if (c->commit == KS_COMMIT_TRANSACTION &&
        (c->forward_to < 0 || !sc->producers[c->forward_to].txn.enabled)) {
        size_t m = ks_conf_enter(L, "commit");
        ks_conf_err(L, "\"transaction\" commits the offsets with a transactional producer's "
               "transaction: give \"forward.to\" a producer with a transactional.id");
        ks_conf_leave(L, m);
    }
}

/* "consumers": [{"id": "c1", "topic": "events", "isolation.level": "read_committed"}] */
static void load_consumers(ks_conf *L, json_t *root, ks_scenario *sc)
{
    json_t *arr = ks_conf_member(root, "consumers");
    if (!arr)
        return;
    size_t mark = ks_conf_enter(L, "consumers");
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
    if (!json_is_array(arr) || n > 1000) {
        ks_conf_err_got(L, arr, "an array of at most 1000 consumers");
        ks_conf_leave(L, mark);
        return;
    }
    sc->consumers = calloc(n ? n : 1, sizeof *sc->consumers);
    if (!sc->consumers) {
        ks_conf_err(L, "out of memory");
        ks_conf_leave(L, mark);
        return;
    }
    sc->consumer_count = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i);
        size_t m = ks_conf_enter_index(L, i);
        if (!json_is_object(o))
            ks_conf_err_got(L, o, "a consumer object such as {\"id\": \"c1\", \"topic\": \"events\"}");
        else
            load_consumer(L, o, sc, (uint32_t)i);
        ks_conf_leave(L, m);
    }
    ks_conf_leave(L, mark);
}

/* ---- faults ------------------------------------------------------------ */

static const char *const fault_type_names[] = {
#define X(e, name) name,
    KS_FAULT_TYPES(X)
#undef X
    NULL};

const char *ks_fault_type_name(ks_fault_type t)
{
    assert((unsigned)t < (unsigned)KS_FAULT__COUNT);
    return fault_type_names[t];
}

/* The keys each fault type takes, besides "type" and "note". */
static const char *const *fault_keys(ks_fault_type t)
{
    static const char *const targeted[] = {"type", "note", "producer", "consumer", "broker",
                                           "partition", "api", "request", "after.ms", "count",
                                           NULL};
    static const char *const delayed[] = {"type", "note", "producer", "consumer", "broker",
                                          "partition", "api", "request", "after.ms", "count",
                                          "delay.ms", NULL};
    static const char *const failing[] = {"type", "note", "producer", "broker", "partition",
                                          "request", "after.ms", "count", "error", NULL};
    static const char *const loss[] = {"type", "note", "producer", "consumer", "broker",
                                       "probability", "from.ms", "to.ms", NULL};
    static const char *const link[] = {"type", "note", "producer", "consumer", "broker",
                                       "from.ms", "to.ms", NULL};
    static const char *const pause_b[] = {"type", "note", "broker", "from.ms", "to.ms", NULL};
    static const char *const pause_p[] = {"type", "note", "producer", "from.ms", "to.ms", NULL};
    static const char *const crash_p[] = {"type", "note", "producer", "at.ms", NULL};
    static const char *const crash_c[] = {"type", "note", "consumer", "at.ms", "restart.ms",
                                          "forward.to", NULL};
    switch (t) {
    case KS_FAULT_DROP_REQUEST:
    case KS_FAULT_DROP_RESPONSE:
        return targeted;
    case KS_FAULT_DELAY_REQUEST:
    case KS_FAULT_DELAY_RESPONSE:
        return delayed;
    case KS_FAULT_APPEND_ERROR:
        return failing;
    case KS_FAULT_REQUEST_LOSS:
    case KS_FAULT_RESPONSE_LOSS:
        return loss;
    case KS_FAULT_LINK_DOWN:
        return link;
    case KS_FAULT_PAUSE_BROKER:
        return pause_b;
    case KS_FAULT_PAUSE_PRODUCER:
        return pause_p;
    case KS_FAULT_CRASH_PRODUCER:
        return crash_p;
    case KS_FAULT_CRASH_CONSUMER:
        return crash_c;
    case KS_FAULT__COUNT:
        break;
    }
    return targeted;
}

static void fault_producer(ks_conf *L, json_t *o, const ks_scenario *sc, ks_fault_conf *f)
{
    const char *id;
    if (!ks_conf_get_string(L, o, "producer", false, &id))
        return;
    size_t m = ks_conf_enter(L, "producer");
    const char *ids[256];
    size_t n = 0;
    for (uint32_t i = 0; i < sc->producer_count; i++) {
        if (sc->producers[i].id && strcmp(sc->producers[i].id, id) == 0)
            f->producer = (int32_t)i;
        if (n < 256 && sc->producers[i].id)
            ids[n++] = sc->producers[i].id;
    }
    if (f->producer < 0) {
        const char *sug = ks_suggest(id, ids, n);
        if (sug)
            ks_conf_err(L, "no producer \"%s\" (did you mean \"%s\"?)", id, sug);
        else
            ks_conf_err(L, "no producer \"%s\"", id);
    }
    ks_conf_leave(L, m);
}

/* "partition": "events-0": a topic name, a dash, a partition number. */
static void fault_partition(ks_conf *L, json_t *o, const ks_scenario *sc, ks_fault_conf *f)
{
    const char *text;
    if (!ks_conf_get_string(L, o, "partition", false, &text))
        return;
    size_t m = ks_conf_enter(L, "partition");
    const char *dash = strrchr(text, '-');
    char *end = NULL;
    long num = dash && dash[1] ? strtol(dash + 1, &end, 10) : -1;
    if (!dash || dash == text || !end || *end || num < 0) {
        ks_conf_err(L, "expected \"TOPIC-N\" such as \"events-0\", got \"%s\"", text);
        ks_conf_leave(L, m);
        return;
    }
    size_t len = (size_t)(dash - text);
    for (uint32_t t = 0; t < sc->topic_count; t++) {
        const ks_topic_conf *tc = &sc->topics[t];
        if (!tc->name || strlen(tc->name) != len || strncmp(tc->name, text, len) != 0)
            continue;
        if ((uint64_t)num >= tc->max_partitions)
            ks_conf_err(L, "topic \"%s\" has %u partitions; there is no partition %ld", tc->name,
                tc->max_partitions, num);
        f->topic = (int32_t)t;
        f->partition = (int32_t)num;
    }
    if (f->topic < 0)
        ks_conf_err(L, "no topic \"%.*s\" in topics", (int)len, text);
    ks_conf_leave(L, m);
}

/* crash.consumer: the consumer's process dies at at.ms; with restart.ms
 * a new one starts from the group's committed offsets, forwarding to
 * forward.to (a producer of the same transactional.id, the restarted
 * process's) if given. */
static void fault_crash_consumer(ks_conf *L, json_t *o, const ks_scenario *sc, ks_fault_conf *f)
{
    const char *id;
    if (!ks_conf_member(o, "consumer"))
        ks_conf_err(L, "missing: \"consumer\", the consumer whose process dies");
    if (ks_conf_get_string(L, o, "consumer", false, &id)) {
        size_t m = ks_conf_enter(L, "consumer");
        f->consumer = ks_conf_find_id(L, "consumer", id, sc->consumers ? &sc->consumers[0].id : NULL,
                                  sizeof(ks_consumer_conf), sc->consumer_count);
        ks_conf_leave(L, m);
    }
    if (!ks_conf_member(o, "at.ms"))
        ks_conf_err(L, "missing: \"at.ms\", when it dies");
    ks_conf_get_ms(L, o, "at.ms", false, &f->from_ns);
    if (ks_conf_get_ms(L, o, "restart.ms", false, &f->to_ns) && f->to_ns <= f->from_ns) {
        size_t m = ks_conf_enter(L, "restart.ms");
        ks_conf_err(L, "the restart comes before the crash (restart.ms must be greater than at.ms)");
        ks_conf_leave(L, m);
    }
    if (ks_conf_get_string(L, o, "forward.to", false, &id)) {
        size_t m = ks_conf_enter(L, "forward.to");
        f->forward_to = ks_conf_find_id(L, "producer", id, sc->producers ? &sc->producers[0].id : NULL,
                                    sizeof(ks_producer_conf), sc->producer_count);
        ks_conf_leave(L, m);
    }
}

/* "consumer": a message fault that strikes only that consumer's requests
 * or their answers (crash.consumer names its consumer itself). */
static void fault_client_consumer(ks_conf *L, json_t *o, const ks_scenario *sc, ks_fault_conf *f)
{
    const char *id;
    if (f->type == KS_FAULT_CRASH_CONSUMER || !ks_conf_get_string(L, o, "consumer", false, &id))
        return;
    size_t m = ks_conf_enter(L, "consumer");
    if (f->producer >= 0)
        ks_conf_err(L, "a fault strikes one client's messages: name a producer or a consumer, not both");
    else
        f->consumer = ks_conf_find_id(L, "consumer", id, sc->consumers ? &sc->consumers[0].id : NULL,
                                  sizeof(ks_consumer_conf), sc->consumer_count);
    ks_conf_leave(L, m);
}

/* "api": the requests a targeted fault looks at (default Produce). */
static void fault_api(ks_conf *L, json_t *o, ks_fault_conf *f)
{
    const char *name;
    if (!ks_conf_get_string(L, o, "api", false, &name))
        return;
    size_t m = ks_conf_enter(L, "api");
    ks_api a;
    const char *names[KS_API__COUNT];
    for (int i = 0; i < KS_API__COUNT; i++)
        names[i] = ks_api_name((ks_api)i);
    if (ks_api_find(name, &a)) {
        f->api = a;
    } else {
        const char *sug = ks_suggest(name, names, KS_API__COUNT);
        if (sug)
            ks_conf_err(L, "unknown API \"%s\" (did you mean \"%s\"?)", name, sug);
        else
            ks_conf_err(L, "unknown API \"%s\": one of Produce, Fetch, ListOffsets, Metadata, "
                   "OffsetCommit, OffsetFetch, FindCoordinator, InitProducerId, "
                   "AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn, WriteTxnMarkers",
                name);
    }
    ks_conf_leave(L, m);
}

static void fault_window(ks_conf *L, json_t *o, ks_fault_conf *f, bool required)
{
    ks_conf_get_ms(L, o, "from.ms", false, &f->from_ns);
    ks_conf_get_ms(L, o, "to.ms", false, &f->to_ns);
    if (required && (!ks_conf_member(o, "from.ms") || !ks_conf_member(o, "to.ms"))) {
        ks_conf_err(L, "missing: a window needs \"from.ms\" and \"to.ms\"");
    } else if (f->to_ns <= f->from_ns) {
        size_t m = ks_conf_enter(L, "to.ms");
        ks_conf_err(L, "the window ends before it begins (to.ms must be greater than from.ms)");
        ks_conf_leave(L, m);
    }
}

static void fault_error(ks_conf *L, json_t *o, ks_fault_conf *f)
{
    const char *name;
    if (!ks_conf_member(o, "error")) {
        ks_conf_err(L, "missing: \"error\", the Kafka error the leader answers with");
        return;
    }
    if (!ks_conf_get_string(L, o, "error", false, &name))
        return;
    size_t m = ks_conf_enter(L, "error");
    const char *names[KS_KERR__COUNT];
    size_t n = 0;
    for (int i = 0; i < KS_KERR__COUNT; i++)
        if (ks_kerr_injectable((ks_kerr)i))
            names[n++] = ks_kerr_name((ks_kerr)i);
    ks_kerr e;
    if (ks_kerr_find(name, &e) && ks_kerr_injectable(e)) {
        f->error = e;
    } else {
        char list[1024];
        size_t k = 0;
        list[0] = '\0';
        for (size_t i = 0; i < n && k < sizeof list; i++)
            k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", names[i]);
        const char *sug = ks_suggest(name, names, n);
        if (sug)
            ks_conf_err(L, "\"%s\" is not an error ksim injects (did you mean \"%s\"?); one of %s",
                name, sug, list);
        else
            ks_conf_err(L, "\"%s\" is not an error ksim injects; one of %s", name, list);
    }
    ks_conf_leave(L, m);
}

static void load_fault(ks_conf *L, json_t *o, ks_scenario *sc, ks_fault_conf *f)
{
    const char *type = NULL;
    if (!ks_conf_member(o, "type")) {
        ks_conf_err(L, "missing: \"type\", one of drop.request, drop.response, delay.request, "
               "delay.response, append.error, request.loss, response.loss, link.down, "
               "pause.broker, pause.producer");
        return;
    }
    if (!ks_conf_get_string(L, o, "type", false, &type))
        return;
    int t = -1;
    for (int i = 0; i < KS_FAULT__COUNT; i++)
        if (strcmp(type, fault_type_names[i]) == 0)
            t = i;
    if (t < 0) {
        size_t m = ks_conf_enter(L, "type");
        const char *sug = ks_suggest(type, fault_type_names, KS_FAULT__COUNT);
        if (sug)
            ks_conf_err(L, "unknown fault type \"%s\" (did you mean \"%s\"?)", type, sug);
        else
            ks_conf_err(L, "unknown fault type \"%s\"", type);
        ks_conf_leave(L, m);
        return;
    }
    f->type = (ks_fault_type)t;
    ks_conf_check_keys(L, o, fault_keys(f->type), NULL);
    const char *note;
    if (ks_conf_get_string(L, o, "note", false, &note))
        f->note = ks_strdup(note);
    fault_producer(L, o, sc, f);
    fault_client_consumer(L, o, sc, f);
    if (ks_conf_member(o, "broker")) {
        uint32_t b;
        if (ks_conf_get_u32(L, o, "broker", 0, sc->broker_count - 1, &b))
            f->broker = (int32_t)b;
    }
    fault_partition(L, o, sc, f);
    fault_api(L, o, f);
    int64_t req;
    if (ks_conf_get_int(L, o, "request", 1, INT64_MAX, &req))
        f->request = req;
    if (f->request >= 0 && f->producer < 0 && sc->producer_count > 1 && !ks_conf_member(o, "producer"))
        ks_conf_err(L, "\"request\" numbers are per producer: with %u producers, say which "
               "(\"producer\")",
            sc->producer_count);
    ks_conf_get_ms(L, o, "after.ms", false, &f->after_ns);
    ks_conf_get_u32(L, o, "count", 1, UINT32_MAX, &f->count);
    switch (f->type) {
    case KS_FAULT_DELAY_REQUEST:
    case KS_FAULT_DELAY_RESPONSE:
        if (!ks_conf_member(o, "delay.ms"))
            ks_conf_err(L, "missing: \"delay.ms\", how long the message is held up");
        ks_conf_get_ms(L, o, "delay.ms", false, &f->delay_ns);
        break;
    case KS_FAULT_APPEND_ERROR:
        fault_error(L, o, f);
        break;
    case KS_FAULT_REQUEST_LOSS:
    case KS_FAULT_RESPONSE_LOSS:
        if (!ks_conf_member(o, "probability"))
            ks_conf_err(L, "missing: \"probability\", the chance that each message is lost");
        ks_conf_get_real(L, o, "probability", 0.0, false, 1.0, &f->probability);
        fault_window(L, o, f, false);
        break;
    case KS_FAULT_LINK_DOWN:
        fault_window(L, o, f, true);
        break;
    case KS_FAULT_PAUSE_BROKER:
        if (!ks_conf_member(o, "broker"))
            ks_conf_err(L, "missing: \"broker\", the broker to pause");
        fault_window(L, o, f, true);
        break;
    case KS_FAULT_PAUSE_PRODUCER:
        if (!ks_conf_member(o, "producer"))
            ks_conf_err(L, "missing: \"producer\", the producer to pause");
        fault_window(L, o, f, true);
        break;
    case KS_FAULT_CRASH_PRODUCER:
        if (!ks_conf_member(o, "producer"))
            ks_conf_err(L, "missing: \"producer\", the producer whose process dies");
        if (!ks_conf_member(o, "at.ms"))
            ks_conf_err(L, "missing: \"at.ms\", when it dies");
        ks_conf_get_ms(L, o, "at.ms", false, &f->from_ns);
        break;
    case KS_FAULT_CRASH_CONSUMER:
        fault_crash_consumer(L, o, sc, f);
        break;
    case KS_FAULT_DROP_REQUEST:
    case KS_FAULT_DROP_RESPONSE:
    case KS_FAULT__COUNT:
        break;
    }
}

/* "faults": [{"type": "drop.response", "request": 1}, ...] */
static void load_faults(ks_conf *L, json_t *root, ks_scenario *sc)
{
    json_t *arr = ks_conf_member(root, "faults");
    if (!arr)
        return;
    size_t mark = ks_conf_enter(L, "faults");
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
    if (!json_is_array(arr) || n > 10000) {
        ks_conf_err_got(L, arr, "an array of at most 10000 faults");
        ks_conf_leave(L, mark);
        return;
    }
    sc->faults = calloc(n ? n : 1, sizeof *sc->faults);
    if (!sc->faults) {
        ks_conf_err(L, "out of memory");
        ks_conf_leave(L, mark);
        return;
    }
    sc->fault_count = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i);
        size_t m = ks_conf_enter_index(L, i);
        ks_fault_conf *f = &sc->faults[i];
        *f = (ks_fault_conf){.producer = -1, .broker = -1, .topic = -1, .partition = -1,
                             .api = KS_API_PRODUCE, .request = -1, .count = 1,
                             .to_ns = KS_TIME_MAX, .consumer = -1, .forward_to = -1};
        if (!json_is_object(o))
            ks_conf_err_got(L, o, "a fault object such as {\"type\": \"drop.response\", \"request\": 1}");
        else
            load_fault(L, o, sc, f);
        ks_conf_leave(L, m);
    }
    ks_conf_leave(L, mark);
}

/* Comparison operators an expectation may use. */
static const char *const expect_ops[] = {"==", "!=", "<", "<=", ">", ">=", NULL};

static void load_expect(ks_conf *L, json_t *root, ks_scenario *sc)
{
    json_t *obj;
    if (!ks_conf_get_object(L, root, "expect", &obj))
        return;
    size_t mark = ks_conf_enter(L, "expect");
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        size_t m = ks_conf_enter(L, k);
        const char *text = ks_conf_set_text(L, v);
        if (text) {
            /* --set expect.PATH=TEXT: read TEXT as JSON when it is JSON
             * ("10", "true", "null"), else keep it as a string. */
            json_error_t je;
            json_t *parsed = json_loads(text, JSON_DECODE_ANY, &je);
            if (parsed)
                json_object_set_new(obj, k, parsed);
            v = json_object_get(obj, k);
        }
        if (json_is_object(v) && json_object_size(v) > 0) {
            size_t ops = 0;
            const char *ok;
            json_t *ov;
            json_object_foreach(v, ok, ov) {
                bool known = false;
                for (size_t i = 0; expect_ops[i]; i++)
                    known = known || strcmp(ok, expect_ops[i]) == 0;
                if (known) {
                    ops++;
                    if (strcmp(ok, "==") && strcmp(ok, "!=") && !json_is_number(ov)) {
                        size_t m2 = ks_conf_enter(L, ok);
                        ks_conf_err_got(L, ov, "a number to compare with");
                        ks_conf_leave(L, m2);
                    }
                }
            }
            if (ops > 0 && ops != json_object_size(v))
                ks_conf_err(L, "mixes comparison operators with other keys; write "
                       "{\"<=\": 5} style comparisons or a plain value, not both");
        }
        ks_conf_leave(L, m);
    }
    sc->expect = json_deep_copy(obj);
    ks_conf_leave(L, mark);
}

static void load_top(ks_conf *L, json_t *root, ks_scenario *sc)
{
    static const char *const keys[] = {"scenario.format", "name", "description", "seed",
                                       "kafka.version", "limits", "brokers", "network",
                                       "topics", "producers", "consumers", "admin", "faults",
                                       "metrics", "expect", NULL};
    static const char *const planned[] = {"transactions",
                                          "replication", NULL};
    ks_conf_check_keys(L, root, keys, planned);
    int64_t fmt = KS_SCENARIO_FORMAT;
    if (ks_conf_get_int(L, root, "scenario.format", 1, INT64_MAX, &fmt) && fmt != KS_SCENARIO_FORMAT) {
        size_t m = ks_conf_enter(L, "scenario.format");
        ks_conf_err(L, "format %lld is newer than this ksim (%s) reads: it reads format %d",
            (long long)fmt, KS_VERSION, KS_SCENARIO_FORMAT);
        ks_conf_leave(L, m);
    }
    const char *s = NULL;
    if (ks_conf_get_string(L, root, "name", false, &s))
        sc->name = ks_strdup(s);
    if (ks_conf_get_string(L, root, "description", false, &s))
        sc->description = ks_strdup(s);
    int64_t seed;
    sc->seed = 1;
    if (ks_conf_get_int(L, root, "seed", 0, INT64_MAX, &seed))
        sc->seed = (uint64_t)seed;
    const char *ver = KS_KAFKA_VERSION_DEFAULT;
    ks_conf_get_string(L, root, "kafka.version", false, &ver);
    if (!ks_kafka_version_parse(ver, &sc->kafka_version)) {
        size_t m = ks_conf_enter(L, "kafka.version");
        ks_conf_err(L, "expected a Kafka release from 2.0 to 4.1 such as \"3.9\" or \"3.0.0\", "
               "got \"%s\"", ver);
        ks_conf_leave(L, m);
        ks_kafka_version_parse(KS_KAFKA_VERSION_DEFAULT, &sc->kafka_version);
    }
    sc->kafka_version_text = ks_strdup(ver);
}

/* The file's base name without ".json": the default scenario name. */
static char *default_name(const char *file)
{
    if (strcmp(file, "-") == 0)
        return ks_strdup("stdin");
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".json") == 0)
        n -= 5;
    return ks_strndup(base, n);
}

/* Writes the default producer ids and the default topic into the
 * document, so that --set paths can name them ("producers.p2...",
 * "topics.events...") as the documentation says. */
static void name_defaults(json_t *root)
{
    json_t *prods = json_object_get(root, "producers");
    size_t i;
    json_t *p;
    json_array_foreach(prods, i, p) {
        if (json_is_object(p) && !json_object_get(p, "id")) {
            char id[32];
            snprintf(id, sizeof id, "p%zu", i + 1);
            json_object_set_new(p, "id", json_string(id));
        }
    }
    if (!json_object_get(root, "topics")) {
        json_t *t = json_object();
        json_object_set_new(t, "name", json_string("events"));
        json_t *arr = json_array();
        json_array_append_new(arr, t);
        json_object_set_new(root, "topics", arr);
    }
}

ks_scenario *ks_scenario_parse(const char *file, const char *text, const ks_override *ovr,
                               size_t n_ovr, bool has_seed, uint64_t seed, ks_diag *diag)
{
    return ks_scenario_parse_bytes(file, text, strlen(text), ovr, n_ovr, has_seed, seed, diag);
}

ks_scenario *ks_scenario_parse_bytes(const char *file, const char *data, size_t len,
                                     const ks_override *ovr, size_t n_ovr, bool has_seed,
                                     uint64_t seed, ks_diag *diag)
{
    /* jansson would stop at a NUL byte and read what comes before it as
     * the whole file; a scenario is text, so a NUL anywhere is refused. */
    const char *nul = memchr(data, '\0', len);
    if (nul) {
        ks_diag_error(diag, "%s: byte %zu is a NUL byte (0x00): a scenario file is JSON text",
                      file, (size_t)(nul - data));
        return NULL;
    }
    json_error_t je;
    json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        ks_diag_error(diag, "%s:%d:%d: invalid JSON: %s", file, je.line, je.column, je.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        ks_diag_error(diag, "%s: $: expected a scenario object ({...}) at the top level", file);
        json_decref(root);
        return NULL;
    }
    ks_conf L;
    ks_conf_init(&L, file, diag);
    unsigned errors_before = diag->count;
    if (n_ovr > KS_MAX_OVERRIDES) {
        ks_diag_error(diag, "more than %d --set overrides", KS_MAX_OVERRIDES);
        json_decref(root);
        return NULL;
    }
    name_defaults(root);
    const char **leaves = n_ovr ? leaf_keys() : NULL;
    for (size_t i = 0; i < n_ovr; i++)
        ks_conf_apply(&L, root, &ovr[i], sections, leaves);
    free(leaves);

    ks_scenario *sc = calloc(1, sizeof *sc);
    if (!sc) {
        ks_diag_error(diag, "%s: out of memory", file);
        ks_conf_release(&L);
        json_decref(root);
        return NULL;
    }
    sc->file = ks_strdup(file);
    sc->doc = root;
    load_top(&L, root, sc);
    if (!sc->name)
        sc->name = default_name(file);
    if (has_seed)
        sc->seed = seed;
    load_limits(&L, root, sc);
    load_metrics(&L, root, sc);
    ks_broker_section_load(&L, root, sc);
    load_network(&L, root, sc);
    ks_topic_section_load(&L, root, sc);
    load_producers(&L, root, sc);
    ks_admin_section_load(&L, root, sc);
    load_consumers(&L, root, sc);
    load_faults(&L, root, sc);
    if ((uint64_t)sc->producer_count * sc->broker_count > 1000000u)
        ks_diag_error(diag, "%s: $.producers: %u producers x %u brokers is more than the "
                            "1000000 connections ksim simulates at once",
                      file, sc->producer_count, sc->broker_count);
    load_expect(&L, root, sc);
    ks_conf_release(&L);
    if (diag->count > errors_before) {
        ks_scenario_free(sc);
        return NULL;
    }
    return sc;
}

ks_scenario *ks_scenario_load(const char *file, const ks_override *ovr, size_t n_ovr,
                              bool has_seed, uint64_t seed, ks_diag *diag)
{
    FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "rb");
    if (!f) {
        ks_diag_error(diag, "%s: cannot open: %s", file, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            if (cap >= (size_t)64 << 20) {
                ks_diag_error(diag, "%s: larger than 64 MiB; not a scenario file", file);
                free(buf);
                buf = NULL;
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    bool read_error = ferror(f) != 0;
    if (f != stdin)
        fclose(f);
    if (!buf || read_error) {
        if (diag->count == 0)
            ks_diag_error(diag, "%s: cannot read the file", file);
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    ks_scenario *sc = ks_scenario_parse_bytes(file, buf, len, ovr, n_ovr, has_seed, seed, diag);
    free(buf);
    return sc;
}

void ks_scenario_free(ks_scenario *sc)
{
    if (!sc)
        return;
    ks_topic_section_free(sc);
    for (uint32_t i = 0; sc->producers && i < sc->producer_count; i++) {
        free(sc->producers[i].id);
        ks_workload_conf *w = &sc->producers[i].workload;
        for (uint32_t k = 0; w->keys && k < w->key_count; k++)
            free(w->keys[k]);
        free(w->keys);
        free(w->value_bytes);
        free(w->key_prefix);
        free(sc->producers[i].txn.ends);
    }
    free(sc->producers);
    for (uint32_t i = 0; sc->consumers && i < sc->consumer_count; i++) {
        free(sc->consumers[i].id);
        free(sc->consumers[i].group_id);
        free(sc->consumers[i].partitions);
    }
    free(sc->consumers);
    ks_admin_section_free(sc);
    for (uint32_t i = 0; sc->faults && i < sc->fault_count; i++)
        free(sc->faults[i].note);
    free(sc->faults);
    ks_broker_section_free(sc);
    free(sc->file);
    free(sc->name);
    free(sc->description);
    free(sc->kafka_version_text);
    json_decref(sc->expect);
    json_decref(sc->doc);
    free(sc);
}
