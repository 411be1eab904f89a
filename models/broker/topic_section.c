/*
 * topic_section.c - the scenario's "topics" and "admin" sections, loaded
 * and written back (see topic_section.h). Never touches a partition log:
 * the brokers build those from what is left in the scenario.
 */
#include "models/broker/topic_section.h"

#include "models/kafka/config_json.h"
#include "models/scenario_types.h"
#include "sim/json_path.h"
#include "sim/str.h"

#include <stdlib.h>
#include <string.h>

/* Kafka topic names: [a-zA-Z0-9._-], 1 to 249 characters ([K] Topic.java). */
static bool valid_topic_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 249 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

/* No "topics": one topic, "events", of one partition. */
static void default_topic(ks_conf *L, ks_scenario *sc)
{
    sc->topic_count = 1;
    sc->topics = calloc(1, sizeof *sc->topics);
    if (sc->topics)
        sc->topics[0].name = ks_strdup("events");
    if (!sc->topics || !sc->topics[0].name) {
        ks_conf_err(L, "out of memory");
    } else {
        sc->topics[0].partitions = 1;
        sc->topics[0].replication_factor = 1;
        ks_cfg_defaults(&ks_topic_configs, sc->kafka_version, sc->topics[0].config);
    }
}

static void load_topic_name(ks_conf *L, json_t *t, ks_scenario *sc, uint32_t i)
{
    const char *name = NULL;
    if (!ks_conf_member(t, "name")) {
        ks_conf_err_at(L, "name", "missing: every topic needs a name");
        return;
    }
    if (!ks_conf_get_string(L, t, "name", false, &name))
        return;
    if (!valid_topic_name(name))
        ks_conf_err_at(L, "name", "\"%s\" is not a valid Kafka topic name (1-249 characters of "
                                  "a-z A-Z 0-9 . _ -)",
                       name);
    for (uint32_t j = 0; j < i; j++)
        if (sc->topics[j].name && strcmp(sc->topics[j].name, name) == 0)
            ks_conf_err_at(L, "name", "topic \"%s\" is defined twice", name);
    sc->topics[i].name = ks_strdup(name);
}

static void load_topic(ks_conf *L, json_t *t, ks_scenario *sc, uint32_t i)
{
    static const char *const keys[] = {"name", "partitions", "replication.factor", "config",
                                       NULL};
    ks_topic_conf *tc = &sc->topics[i];
    tc->partitions = 1;
    tc->replication_factor = 1;
    ks_cfg_defaults(&ks_topic_configs, sc->kafka_version, tc->config);
    if (!json_is_object(t)) {
        ks_conf_err_got(L, t, "a topic object");
        return;
    }
    ks_conf_check_keys(L, t, keys, NULL);
    load_topic_name(L, t, sc, i);
    json_t *cfg = NULL;
    if (ks_conf_get_object(L, t, "config", &cfg) && cfg) {
        size_t m = ks_conf_enter(L, "config");
        ks_cfg_load_json(L, cfg, &ks_topic_configs, sc->kafka_version, tc->config);
        ks_conf_leave(L, m);
    }
    ks_conf_get_u32(L, t, "partitions", 1, KS_MAX_PARTITIONS, &tc->partitions);
    ks_conf_get_u32(L, t, "replication.factor", 1, 1024, &tc->replication_factor);
    if (tc->replication_factor > sc->broker_count)
        ks_conf_err_at(L, "replication.factor",
                       "replication factor %u is larger than the %u broker(s) of brokers.count "
                       "(Kafka: INVALID_REPLICATION_FACTOR)",
                       tc->replication_factor, sc->broker_count);
}

void ks_topic_section_load(ks_conf *L, json_t *root, ks_scenario *sc)
{
    json_t *arr = ks_conf_member(root, "topics");
    size_t mark = ks_conf_enter(L, "topics");
    if (!arr) {
        default_topic(L, sc);
        ks_conf_leave(L, mark);
        return;
    }
    if (!json_is_array(arr) || json_array_size(arr) == 0 ||
        json_array_size(arr) > KS_MAX_TOPICS) {
        ks_conf_err_got(L, arr, "a non-empty array of topics");
        ks_conf_leave(L, mark);
        return;
    }
    sc->topic_count = (uint32_t)json_array_size(arr);
    sc->topics = calloc(sc->topic_count, sizeof *sc->topics);
    if (!sc->topics) {
        ks_conf_err(L, "out of memory");
        sc->topic_count = 0;
    }
    for (uint32_t i = 0; i < sc->topic_count; i++) {
        size_t m = ks_conf_enter_index(L, i);
        load_topic(L, json_array_get(arr, i), sc, i);
        ks_conf_leave(L, m);
    }
    ks_conf_leave(L, mark);
}

int64_t ks_topic_max_message_bytes(const ks_scenario *sc, uint32_t t)
{
    const ks_cfg_value *v = &sc->topics[t].config[KS_TCFG_MAX_MESSAGE_BYTES];
    return v->set ? v->i : sc->broker_config[KS_BCFG_MESSAGE_MAX_BYTES].i;
}

void ks_topic_ref_load(ks_conf *L, json_t *obj, const ks_scenario *sc, uint32_t *topic_out)
{
    const char *topic = NULL;
    *topic_out = 0;
    if (!ks_conf_get_string(L, obj, "topic", false, &topic) || !sc->topics)
        return;
    const char *names[64];
    size_t nn = 0;
    for (uint32_t t = 0; t < sc->topic_count; t++) {
        if (sc->topics[t].name && strcmp(sc->topics[t].name, topic) == 0) {
            *topic_out = t;
            return;
        }
        if (nn < 64 && sc->topics[t].name)
            names[nn++] = sc->topics[t].name;
    }
    const char *s = ks_suggest(topic, names, nn);
    if (s)
        ks_conf_err_at(L, "topic", "no topic \"%s\" in topics (did you mean \"%s\"?)", topic, s);
    else
        ks_conf_err_at(L, "topic", "no topic \"%s\" in topics", topic);
}

json_t *ks_topic_section_json(const ks_scenario *sc)
{
    json_t *topics = json_array();
    for (uint32_t i = 0; i < sc->topic_count; i++) {
        json_t *t = json_object();
        json_object_set_new(t, "name", json_string(sc->topics[i].name));
        json_object_set_new(t, "partitions", json_integer(sc->topics[i].partitions));
        json_object_set_new(t, "replication.factor",
                            json_integer(sc->topics[i].replication_factor));
        /* only what the scenario set: a topic without overrides reads as
         * it always did */
        json_t *cfg = ks_config_json(&ks_topic_configs, sc->topics[i].config, sc->kafka_version,
                                     true);
        if (json_object_size(cfg) > 0)
            json_object_set_new(t, "config", cfg);
        else
            json_decref(cfg);
        json_array_append_new(topics, t);
    }
    return topics;
}

void ks_topic_section_free(ks_scenario *sc)
{
    for (uint32_t i = 0; sc->topics && i < sc->topic_count; i++)
        free(sc->topics[i].name);
    free(sc->topics);
}

/* ---- admin -------------------------------------------------------------- */

/* create.partitions needs both "topic" and "total": without them the
 * operation set topic 0 to 0 partitions, and the next keyed send() hit
 * the partitioner's assert (found by fuzz_run). */
static void require_topic_total(ks_conf *L, json_t *cp)
{
    static const char *const required[] = {"topic", "total"};
    for (size_t k = 0; k < 2; k++)
        if (!ks_conf_member(cp, required[k]))
            ks_conf_err_at(L, required[k],
                           "missing: create.partitions needs a \"topic\" and a \"total\"");
}

/* "create.partitions": {"topic": "t", "total": 6}; partitions only grow,
 * counting the operations before this one. */
static void load_create_partitions(ks_conf *L, json_t *cp, ks_scenario *sc, ks_admin_op *op)
{
    static const char *const cp_keys[] = {"topic", "total", NULL};
    const char *topic = NULL;
    int64_t total = 0;
    ks_conf_check_keys(L, cp, cp_keys, NULL);
    require_topic_total(L, cp);
    bool found = false;
    if (ks_conf_get_string(L, cp, "topic", false, &topic)) {
        for (uint32_t t = 0; t < sc->topic_count && !found; t++) {
            if (sc->topics[t].name && strcmp(sc->topics[t].name, topic) == 0) {
                op->topic = t;
                found = true;
            }
        }
        if (!found)
            ks_conf_err_at(L, "topic", "no topic \"%s\" in topics", topic);
    }
    if (!ks_conf_get_int(L, cp, "total", 1, KS_MAX_PARTITIONS, &total) || !found)
        return;
    ks_topic_conf *tc = &sc->topics[op->topic];
    if ((uint32_t)total <= tc->max_partitions) {
        /* Kafka: INVALID_PARTITIONS, partitions can only grow */
        ks_conf_err_at(L, "total", "topic \"%s\" has %u partitions by then; partitions can only "
                                   "be added (Kafka: INVALID_PARTITIONS)",
                       tc->name, tc->max_partitions);
    } else {
        tc->max_partitions = (uint32_t)total;
        op->total = (uint32_t)total;
    }
}

static void load_admin_op(ks_conf *L, json_t *o, ks_scenario *sc, ks_admin_op *op)
{
    static const char *const keys[] = {"at.ms", "create.partitions", NULL};
    json_t *cp = NULL;
    if (!json_is_object(o)) {
        ks_conf_err_got(L, o, "an admin operation object");
        return;
    }
    ks_conf_check_keys(L, o, keys, NULL);
    ks_conf_get_ms(L, o, "at.ms", false, &op->at_ns);
    if (!ks_conf_get_object(L, o, "create.partitions", &cp) || !cp) {
        ks_conf_err_at(L, "create.partitions", "missing: the operation (create.partitions)");
        return;
    }
    size_t m = ks_conf_enter(L, "create.partitions");
    load_create_partitions(L, cp, sc, op);
    ks_conf_leave(L, m);
}

void ks_admin_section_load(ks_conf *L, json_t *root, ks_scenario *sc)
{
    for (uint32_t t = 0; t < sc->topic_count; t++)
        sc->topics[t].max_partitions = sc->topics[t].partitions;
    json_t *arr = ks_conf_member(root, "admin");
    if (!arr)
        return;
    size_t mark = ks_conf_enter(L, "admin");
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
    if (!json_is_array(arr) || n > 10000) {
        ks_conf_err_got(L, arr, "an array of at most 10000 admin operations");
        ks_conf_leave(L, mark);
        return;
    }
    sc->admin = calloc(n ? n : 1, sizeof *sc->admin);
    if (!sc->admin) {
        ks_conf_err(L, "out of memory");
        ks_conf_leave(L, mark);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t m = ks_conf_enter_index(L, i);
        ks_admin_op op = {0, 0, 0};
        load_admin_op(L, json_array_get(arr, i), sc, &op);
        if (i > 0 && op.at_ns < sc->admin[i - 1].at_ns)
            ks_conf_err_at(L, "at.ms", "admin operations must be listed in time order");
        sc->admin[i] = op;
        ks_conf_leave(L, m);
    }
    sc->admin_count = (uint32_t)n;
    ks_conf_leave(L, mark);
}

json_t *ks_admin_section_json(const ks_scenario *sc)
{
    if (sc->admin_count == 0)
        return NULL;
    json_t *ops = json_array();
    for (uint32_t i = 0; i < sc->admin_count; i++) {
        json_t *op = json_object(), *cp = json_object();
        json_object_set_new(op, "at.ms", ks_conf_ms_json(sc->admin[i].at_ns));
        json_object_set_new(cp, "topic", json_string(sc->topics[sc->admin[i].topic].name));
        json_object_set_new(cp, "total", json_integer(sc->admin[i].total));
        json_object_set_new(op, "create.partitions", cp);
        json_array_append_new(ops, op);
    }
    return ops;
}

void ks_admin_section_free(ks_scenario *sc)
{
    free(sc->admin);
}
