/*
 * config_json.c - Kafka "config" objects read against a config table and
 * written back (see config_json.h). Kafka's version-dependent rules live
 * here; the generic reading is sim/conf.h's.
 */
#include "models/kafka/config_json.h"

#include "ks_version.h"
#include "sim/json_path.h"

#include <stdio.h>
#include <string.h>

/* True if Kafka kv has key i; else reports when it came or went. */
static bool exists_in(ks_conf *L, const ks_cfg_table *t, ks_kafka_version kv, int i)
{
    const ks_cfg_def *d = &t->defs[i];
    char ver[16];
    if (d->since && kv < d->since) {
        ks_kafka_version_text(d->since, ver, sizeof ver);
        ks_conf_err(L, "%s config \"%s\" does not exist before Kafka %s (kafka.version selects an "
                       "older release)",
                    t->what, t->names[i], ver);
        return false;
    }
    if (d->until && kv >= d->until) {
        ks_kafka_version_text(d->until, ver, sizeof ver);
        ks_conf_err(L, "%s config \"%s\" was removed in Kafka %s", t->what, t->names[i], ver);
        return false;
    }
    return true;
}

static bool read_enum(ks_conf *L, const ks_cfg_table *t, ks_kafka_version kv, int i, json_t *v,
                      ks_cfg_value *val)
{
    const ks_cfg_def *d = &t->defs[i];
    size_t n = 0;
    unsigned choice;
    while (d->choices[n])
        n++;
    if (!ks_conf_check_choice(L, v, d->choices, n, &choice))
        return false;
    /* zstd arrived in Kafka 2.1 (KIP-110). */
    if (t == &ks_producer_configs && i == KS_PCFG_COMPRESSION_TYPE &&
        strcmp(d->choices[choice], "zstd") == 0 && kv < KS_KV(2, 1, 0)) {
        ks_conf_err(L, "compression.type \"zstd\" does not exist before Kafka 2.1 (KIP-110)");
        return false;
    }
    val->i = choice;
    return true;
}

/* acks: "all", "-1", "0", "1", or the numbers -1, 0, 1. */
static bool read_acks(ks_conf *L, json_t *v, ks_cfg_value *val)
{
    static const char *const acks[] = {"all", "-1", "0", "1"};
    static const int64_t acks_val[] = {KS_ACKS_ALL, KS_ACKS_ALL, 0, 1};
    unsigned choice;
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x == -1 || x == 0 || x == 1) {
            val->i = (int64_t)x;
            return true;
        }
    }
    if (!json_is_string(v)) {
        ks_conf_err_got(L, v, "one of \"all\", \"-1\", \"0\", \"1\"");
        return false;
    }
    if (!ks_conf_check_choice(L, v, acks, 4, &choice))
        return false;
    val->i = acks_val[choice];
    return true;
}

/* Reads v as key i's type into *val. */
static bool read_value(ks_conf *L, const ks_cfg_table *t, ks_kafka_version kv, int i, json_t *v,
                       ks_cfg_value *val)
{
    const ks_cfg_def *d = &t->defs[i];
    bool b;
    switch (d->type) {
    case KS_CFG_INT:
    case KS_CFG_LONG:
        return ks_conf_check_int(L, v, d->min, d->max, &val->i);
    case KS_CFG_BOOL:
        if (!ks_conf_check_bool(L, v, &b))
            return false;
        val->i = b;
        return true;
    case KS_CFG_STRING:
        if (ks_conf_is_null(L, v)) {
            val->s = NULL;
        } else if (json_is_string(v)) {
            val->s = json_string_value(v); /* the document outlives the scenario's use */
        } else {
            ks_conf_err_got(L, v, "a string or null");
            return false;
        }
        return true;
    case KS_CFG_ENUM:
        return read_enum(L, t, kv, i, v, val);
    case KS_CFG_ACKS:
        return read_acks(L, v, val);
    }
    return false;
}

static void load_value(ks_conf *L, const ks_cfg_table *t, ks_kafka_version kv, int i, json_t *v,
                       ks_cfg_value *val)
{
    ks_conf_about(L, v);
    if (!exists_in(L, t, kv, i) || !read_value(L, t, kv, i, v, val))
        return;
    val->set = true;
    if (!t->defs[i].read_by)
        ks_conf_warn(L, "accepted, but no model in ksim %s reads %s config \"%s\" yet: it has no "
                        "effect on this run",
                     KS_VERSION, t->what, t->names[i]);
}

void ks_cfg_load_json(ks_conf *L, json_t *obj, const ks_cfg_table *t, ks_kafka_version kv,
                      ks_cfg_value *vals)
{
    ks_cfg_defaults(t, kv, vals);
    if (!obj)
        return;
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        size_t mark = ks_conf_enter(L, k);
        int i = ks_cfg_find(t, k);
        ks_conf_about(L, v);
        if (i < 0) {
            const char *s = ks_suggest(k, t->names, (size_t)t->count);
            if (s)
                ks_conf_err(L, "unknown %s config \"%s\" (did you mean \"%s\"?)", t->what, k, s);
            else
                ks_conf_err(L, "unknown %s config \"%s\"; docs/scenario.md lists the supported "
                               "keys",
                            t->what, k);
        } else {
            load_value(L, t, kv, i, v, &vals[i]);
        }
        ks_conf_leave(L, mark);
    }
}

json_t *ks_config_json(const ks_cfg_table *t, const ks_cfg_value *vals, ks_kafka_version v,
                       bool explicit_only)
{
    json_t *o = json_object();
    for (int i = 0; i < t->count; i++) {
        const ks_cfg_def *d = &t->defs[i];
        if ((d->since && v < d->since) || (d->until && v >= d->until))
            continue;
        if (explicit_only && !vals[i].set)
            continue;
        const ks_cfg_value *val = &vals[i];
        json_t *j = NULL;
        switch (d->type) {
        case KS_CFG_INT:
        case KS_CFG_LONG:
            j = json_integer((json_int_t)val->i);
            break;
        case KS_CFG_BOOL:
            j = json_boolean(val->i != 0);
            break;
        case KS_CFG_STRING:
            j = val->s ? json_string(val->s) : json_null();
            break;
        case KS_CFG_ENUM:
            j = json_string(d->choices[val->i]);
            break;
        case KS_CFG_ACKS:
            j = json_string(val->i == KS_ACKS_ALL ? "all" : val->i == 0 ? "0" : "1");
            break;
        }
        json_object_set_new(o, t->names[i], j);
    }
    return o;
}
