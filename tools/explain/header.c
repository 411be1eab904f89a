/*
 * header.c - line 1 of the trace as `ksim explain` reads it: the run's
 * name, seed and level, and from its resolved and derived objects the
 * topics, partitions (and leaders), producers (and the configs the steps
 * mention), consumers (their groups and auto.offset.reset) and fault
 * types; then --partition against them.
 *
 * Every field read is of the type the trace format gives it, or the
 * trace is refused, the line and the JSON path named.
 */
#include "tools/explain/internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* derived.producers[i]: the producer and the settings the steps mention. */
static void read_producer(explain *e, ks_tl_error *te, const json_t *d, size_t i)
{
    char at[64], conf[80];
    snprintf(at, sizeof at, "derived.producers[%zu]", i);
    snprintf(conf, sizeof conf, "%s.config", at);
    if (!json_is_object(d)) {
        snprintf(conf, sizeof conf, "[%zu]", i);
        ks_tl_jfail(te, "derived.producers", conf, KS_TLT_OBJECT, d);
        return;
    }
    size_t p = ks_ex_prod_of(e, ks_tl_jstr(te, d, at, "id", NULL)); /* may move e->prods */
    producer *pr = &e->prods[p];
    const json_t *c = ks_tl_jget(te, d, at, "config", KS_TLT_OBJECT);
    const json_t *acks = ks_tl_jget(te, c, conf, "acks", KS_TLT_STRING | KS_TLT_INT);
    const json_t *tid = ks_tl_jget(te, c, conf, "transactional.id", KS_TLT_STRING | KS_TLT_NULL);
    const json_t *idem = ks_tl_jget(te, c, conf, "enable.idempotence", KS_TLT_BOOL);
    free(pr->tid);
    pr->tid = json_is_string(tid) ? ks_ex_dup_or_oom(e, json_string_value(tid)) : NULL;
    pr->idempotent = json_is_true(idem);
    if (json_is_string(acks))
        ks_ex_copy_str(pr->acks, sizeof pr->acks, json_string_value(acks));
    else
        snprintf(pr->acks, sizeof pr->acks, "%" PRId64,
                 acks ? (int64_t)json_integer_value(acks) : 1);
    pr->retries = ks_tl_jint(te, c, conf, "retries", -1);
    pr->request_timeout_ms = ks_tl_jint(te, c, conf, "request.timeout.ms", -1);
    pr->txn_timeout_ms = ks_tl_jint(te, c, conf, "transaction.timeout.ms", -1);
}

/* An element of the array at path that must be an object; NULL (error
 * recorded) when it is not one. */
static const json_t *item(ks_tl_error *te, const char *path, size_t i, const json_t *v,
                          char *at, size_t n)
{
    snprintf(at, n, "%s[%zu]", path, i);
    if (json_is_object(v))
        return v;
    char idx[32];
    snprintf(idx, sizeof idx, "[%zu]", i);
    ks_tl_jfail(te, path, idx, KS_TLT_OBJECT, v);
    return NULL;
}

/* resolved.topics and derived.partitions: the topics, partitions and
 * leaders. */
static void read_partitions(explain *e, ks_tl_error *te, const json_t *res, const json_t *der)
{
    const json_t *list = ks_tl_jget(te, res, "resolved", "topics", KS_TLT_ARRAY), *v;
    char at[64];
    size_t i;
    json_array_foreach(list, i, v)
        if ((v = item(te, "resolved.topics", i, v, at, sizeof at)))
            ks_ex_topic_of(e, ks_tl_jstr(te, v, at, "name", NULL));
    e->single_topic = e->ntopics == 1;
    list = ks_tl_jget(te, der, "derived", "partitions", KS_TLT_ARRAY);
    json_array_foreach(list, i, v) {
        if (!(v = item(te, "derived.partitions", i, v, at, sizeof at)))
            continue;
        size_t part = ks_ex_part_of(e, ks_tl_jstr(te, v, at, "topic", NULL),
                                    ks_tl_jint(te, v, at, "partition", -1));
        int64_t leader = ks_tl_jint(te, v, at, "leader", -1);
        if (part != NONE)
            e->parts[part].leader = leader;
    }
}

/* resolved.faults: the type of each fault, by index. */
static void read_faults(explain *e, ks_tl_error *te, const json_t *res)
{
    const json_t *faults = ks_tl_jget(te, res, "resolved", "faults", KS_TLT_ARRAY), *v;
    char at[64];
    size_t i;
    e->nfaults = json_array_size(faults);
    e->fault_types = e->nfaults ? calloc(e->nfaults, sizeof *e->fault_types) : NULL;
    if (e->nfaults && !e->fault_types) {
        e->nfaults = 0;
        e->oom = true;
    }
    json_array_foreach(faults, i, v)
        if (i < e->nfaults && (v = item(te, "resolved.faults", i, v, at, sizeof at)))
            e->fault_types[i] = ks_ex_dup_or_oom(e, ks_tl_jstr(te, v, at, "type", ""));
}

/* Learns the run's topics, partitions (and leaders), producers (and the
 * configs the steps mention), consumers and faults from the header's
 * resolved and derived objects. */
static void read_model(explain *e, ks_tl_error *te, const json_t *res, const json_t *der)
{
    const json_t *prods = ks_tl_jget(te, der, "derived", "producers", KS_TLT_ARRAY);
    const json_t *cons = ks_tl_jget(te, res, "resolved", "consumers", KS_TLT_ARRAY), *v;
    char at[64];
    size_t i;
    read_partitions(e, te, res, der);
    json_array_foreach(prods, i, v)
        read_producer(e, te, v, i);
    json_array_foreach(cons, i, v) {
        if (!(v = item(te, "resolved.consumers", i, v, at, sizeof at)))
            continue;
        size_t ci = ks_ex_cons_of(e, ks_tl_jstr(te, v, at, "id", NULL)); /* may move e->cons */
        consumer *c = &e->cons[ci];
        const char *iso = ks_tl_jstr(te, v, at, "isolation.level", NULL);
        const json_t *group = ks_tl_jget(te, v, at, "group.id", KS_TLT_STRING | KS_TLT_NULL);
        const char *reset = ks_tl_jstr(te, v, at, "auto.offset.reset", NULL);
        if (iso) {
            free(c->isolation);
            c->isolation = ks_ex_dup_or_oom(e, iso);
        }
        free(c->group);
        c->group = json_is_string(group) ? ks_ex_dup_or_oom(e, json_string_value(group)) : NULL;
        free(c->reset);
        c->reset = reset ? ks_ex_dup_or_oom(e, reset) : NULL;
    }
    read_faults(e, te, res);
}

/* The header's model (resolved, derived), its fields' types checked. */
static bool read_header_model(explain *e, ks_tline *h, char *err, size_t errlen)
{
    json_t *res = ks_tl_object(h, "resolved"), *der = ks_tl_object(h, "derived");
    ks_tl_error te = {0};
    if (!ks_tline_error(h))
        read_model(e, &te, res, der);
    json_decref(res);
    json_decref(der);
    const char *why = ks_tline_error(h) ? ks_tline_error(h) : te.set ? te.text : NULL;
    if (why)
        snprintf(err, errlen, "%s:1: %s", e->o.trace, why);
    return !why;
}

/* Checks line 1: a header of trace format 1 at a level with steps. */
bool ks_ex_read_header(explain *e, ks_tline *h, char *err, size_t errlen)
{
    const char *name = e->o.trace;
    if (h->kind != KS_TR_HEADER) {
        snprintf(err, errlen, "%s: line 1 is not a trace header: not a ksim trace", name);
        return false;
    }
    int64_t format = ks_tl_int(h, "format", -1);
    const char *level = ks_tl_str(h, "level", "");
    e->scenario = ks_ex_dup_or_oom(e, ks_tl_str(h, "scenario", ""));
    e->kafka = ks_ex_dup_or_oom(e, ks_tl_str(h, "kafka", ""));
    e->level = ks_ex_dup_or_oom(e, level);
    e->seed = ks_tl_int(h, "seed", 0);
    if (ks_tline_error(h))
        snprintf(err, errlen, "%s:1: %s", name, ks_tline_error(h));
    else if (format != 1)
        snprintf(err, errlen, "%s: trace format %" PRId64 ": this ksim reads trace format 1",
                 name, format);
    else if (strcmp(level, "summary") == 0)
        snprintf(err, errlen, "%s: a summary-level trace holds no steps to explain: run the "
                              "scenario with --trace-level record (or batch)", name);
    if (ks_tline_error(h) || format != 1 || strcmp(level, "summary") == 0)
        return false;
    e->record_level = strcmp(level, "record") == 0 || strcmp(level, "debug") == 0;
    if (e->o.by_record && !e->record_level) {
        snprintf(err, errlen, "%s: --record needs a record-level trace (this one is at level "
                              "%s): run the scenario with --trace-level record", name, e->level);
        return false;
    }
    return read_header_model(e, h, err, errlen);
}

/* --partition TOPIC-N, against the header's topics. */
bool ks_ex_resolve_partition(explain *e, char *err, size_t errlen)
{
    const char *arg = e->o.partition, *dash = arg ? strrchr(arg, '-') : NULL;
    if (!arg)
        return true;
    char *end = NULL;
    long long n = dash ? strtoll(dash + 1, &end, 10) : -1;
    char *name = dash ? ks_strndup(arg, (size_t)(dash - arg)) : NULL;
    size_t ti = NONE;
    for (size_t i = 0; name && i < e->ntopics; i++)
        ti = strcmp(e->topics[i].name, name) == 0 ? i : ti;
    free(name);
    if (!dash || dash[1] == '\0' || *end || n < 0 || ti == NONE) {
        snprintf(err, errlen, "%s: --partition: no partition '%s' in this run (TOPIC-N, such as "
                              "%s-0)", e->o.trace, arg, e->ntopics ? e->topics[0].name : "events");
        return false;
    }
    e->filter_part = ks_ex_part_of(e, e->topics[ti].name, (int64_t)n);
    if (e->filter_part == NONE)
        snprintf(err, errlen, "out of memory");
    return e->filter_part != NONE;
}
