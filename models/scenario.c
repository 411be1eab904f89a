/*
 * scenario.c - scenario loading and validation (see scenario.h and
 * docs/scenario.md).
 *
 * Structure: parse (jansson, with line and column on syntax errors) ->
 * apply --set overrides to the document -> walk it section by section.
 * This file is the composition: the top-level keys, limits and metrics,
 * the order of the sections, and the checks across them that no one
 * section can make. Each model's section loads itself beside the model
 * (models/broker/broker_section.c, topic_section.c, models/net/
 * network_section.c, fault_section.c, models/producer/producer_section.c,
 * workload_section.c, models/consumer/consumer_section.c, models/check/
 * expect_section.c) through the generic loader (sim/conf.h): it checks its
 * object's keys first (unknown key -> error with a suggestion), then reads
 * each known key with a typed getter that reports "FILE: $.path: expected
 * ..., got VALUE" and leaves the default in place, so one run reports
 * every problem. A section that names another's things (a consumer's
 * topic, a fault's producer) is loaded after it and checks the name where
 * it reads it, so that messages come in document order.
 */
#include "models/scenario.h"

#include "ks_version.h"
#include "models/check/expect_section.h"
#include "models/kafka/config_json.h"
#include "sim/conf.h"
#include "sim/json_path.h"
#include "sim/str.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    ks_network_section_load(&L, root, sc);
    ks_topic_section_load(&L, root, sc);
    ks_producer_section_load(&L, root, sc);
    ks_admin_section_load(&L, root, sc);
    ks_consumer_section_load(&L, root, sc);
    ks_fault_section_load(&L, root, sc);
    if ((uint64_t)sc->producer_count * sc->broker_count > 1000000u)
        ks_diag_error(diag, "%s: $.producers: %u producers x %u brokers is more than the "
                            "1000000 connections ksim simulates at once",
                      file, sc->producer_count, sc->broker_count);
    ks_expect_section_load(&L, root, sc);
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
    ks_producer_section_free(sc);
    ks_consumer_section_free(sc);
    ks_admin_section_free(sc);
    ks_fault_section_free(sc);
    ks_broker_section_free(sc);
    free(sc->file);
    free(sc->name);
    free(sc->description);
    free(sc->kafka_version_text);
    json_decref(sc->expect);
    json_decref(sc->doc);
    free(sc);
}
