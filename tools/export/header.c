/*
 * header.c - line 1 of the trace as `ksim export` reads it: the run's
 * name, seed, Kafka version and level, and from its resolved and derived
 * objects the nodes (the brokers' count and their request.timeout.ms as
 * clients, the producers with their acks, the consumers) and the topics,
 * in the scenario's order.
 *
 * Every field read is of the type the trace format gives it, or the
 * trace is refused, the line and the JSON path named.
 */
#include "tools/export/internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES (1 << 20)

/* An element of the array at path that must be an object; NULL (error
 * recorded) when it is not one. */
static const json_t *item(ks_tl_error *te, const char *path, size_t i, const json_t *v, char *at,
                          size_t n)
{
    snprintf(at, n, "%s[%zu]", path, i);
    if (json_is_object(v))
        return v;
    char idx[32];
    snprintf(idx, sizeof idx, "[%zu]", i);
    ks_tl_jfail(te, path, idx, KS_TLT_OBJECT, v);
    return NULL;
}

/* derived.producers: ids and whether Produce requests get a response. */
static void read_producers(exporter *x, ks_tl_error *te, const json_t *der)
{
    const json_t *list = ks_tl_jget(te, der, "derived", "producers", KS_TLT_ARRAY), *v;
    size_t n = json_array_size(list), i;
    x->prods = calloc(n ? n : 1, sizeof *x->prods);
    if (!x->prods) {
        x->oom = true;
        return;
    }
    char at[64], conf[80];
    json_array_foreach(list, i, v) {
        if (!(v = item(te, "derived.producers", i, v, at, sizeof at)))
            return;
        snprintf(conf, sizeof conf, "%s.config", at);
        const char *id = ks_tl_jstr(te, v, at, "id", NULL);
        const json_t *c = ks_tl_jget(te, v, at, "config", KS_TLT_OBJECT);
        const json_t *acks = ks_tl_jget(te, c, conf, "acks", KS_TLT_STRING | KS_TLT_INT);
        if (!id)
            return;
        xproducer *p = &x->prods[x->nprods++];
        if (!(p->id = ks_strdup(id)))
            x->oom = true;
        p->acks0 = json_is_string(acks) ? strcmp(json_string_value(acks), "0") == 0
                                        : json_is_integer(acks) && json_integer_value(acks) == 0;
    }
}

/* derived.broker_config's request.timeout.ms: when a broker gives up a
 * request of its own (-1 when the header has none). */
static void read_broker_timeout(exporter *x, ks_tl_error *te, const json_t *der)
{
    const json_t *bc = ks_tl_jget(te, der, "derived", "broker_config", KS_TLT_OBJECT);
    int64_t ms = ks_tl_jint(te, bc, "derived.broker_config", "request.timeout.ms", -1);
    x->broker_timeout_ns = ms >= 0 && ms <= INT64_MAX / 2000000 ? ms * 1000000 : -1;
}

/* resolved.consumers (ids) and resolved.topics (names, interned in order). */
static void read_consumers_topics(exporter *x, ks_tl_error *te, const json_t *res)
{
    const json_t *list = ks_tl_jget(te, res, "resolved", "consumers", KS_TLT_ARRAY), *v;
    size_t i;
    char at[64];
    x->cons = calloc(json_array_size(list) + 1, sizeof *x->cons);
    if (!x->cons) {
        x->oom = true;
        return;
    }
    json_array_foreach(list, i, v) {
        v = item(te, "resolved.consumers", i, v, at, sizeof at);
        const char *id = v ? ks_tl_jstr(te, v, at, "id", NULL) : NULL;
        if (!id)
            return;
        if (!(x->cons[x->ncons++] = ks_strdup(id)))
            x->oom = true;
    }
    list = ks_tl_jget(te, res, "resolved", "topics", KS_TLT_ARRAY);
    json_array_foreach(list, i, v) {
        v = item(te, "resolved.topics", i, v, at, sizeof at);
        const char *name = v ? ks_tl_jstr(te, v, at, "name", NULL) : NULL;
        if (name)
            ks_xp_topic(x, name);
    }
}

/* Two nodes of one kind with the same id: the lines could not say which. */
static bool unique_ids(exporter *x, const xname *order, size_t n, const char *what)
{
    for (size_t i = 1; i < n; i++)
        if (strcmp(order[i - 1].name, order[i].name) == 0)
            return ks_xp_fail(x, "%s:1: two %s with the id '%s'", x->name, what, order[i].name);
    return true;
}

/* The header's nodes and topics, their types checked. */
static bool read_model(exporter *x, ks_tline *h)
{
    json_t *res = ks_tl_object(h, "resolved"), *der = ks_tl_object(h, "derived");
    ks_tl_error te = {0};
    if (!ks_tline_error(h)) {
        const json_t *b = ks_tl_jget(&te, res, "resolved", "brokers", KS_TLT_OBJECT);
        int64_t nb = ks_tl_jint(&te, b, "resolved.brokers", "count", 0);
        if (!te.set && (nb < 0 || nb > MAX_NODES))
            snprintf(te.text, sizeof te.text,
                     "field resolved.brokers.count: expected 0 to %d, got %" PRId64, MAX_NODES, nb);
        te.set = te.set || nb < 0 || nb > MAX_NODES;
        x->nbrokers = te.set ? 0 : (size_t)nb;
        read_producers(x, &te, der);
        read_consumers_topics(x, &te, res);
        read_broker_timeout(x, &te, der);
    }
    json_decref(res);
    json_decref(der);
    const char *why = ks_tline_error(h) ? ks_tline_error(h) : te.set ? te.text : NULL;
    if (why)
        return ks_xp_fail(x, "%s:1: %s", x->name, why);
    if (x->oom)
        return ks_xp_fail(x, "out of memory");
    char **ids = malloc((x->nprods ? x->nprods : 1) * sizeof *ids);
    if (!ids)
        return ks_xp_fail(x, "out of memory");
    for (size_t i = 0; i < x->nprods; i++)
        ids[i] = x->prods[i].id;
    bool ok = ks_xp_sort_names(x, ids, x->nprods, &x->prod_order) &&
              ks_xp_sort_names(x, x->cons, x->ncons, &x->cons_order);
    free(ids);
    if (!ok)
        return ks_xp_fail(x, "out of memory");
    return unique_ids(x, x->prod_order, x->nprods, "producers") &&
           unique_ids(x, x->cons_order, x->ncons, "consumers");
}

/* Checks line 1: a header of trace format 1; reads the run's nodes. */
bool ks_xp_read_header(exporter *x, ks_tline *h)
{
    if (h->kind != KS_TR_HEADER)
        return ks_xp_fail(x, "%s: line 1 is not a trace header: not a ksim trace", x->name);
    int64_t format = ks_tl_int(h, "format", -1);
    x->scenario = ks_strdup(ks_tl_str(h, "scenario", ""));
    x->kafka = ks_strdup(ks_tl_str(h, "kafka", ""));
    x->level = ks_strdup(ks_tl_str(h, "level", ""));
    x->ksim = ks_strdup(ks_tl_str(h, "ksim", ""));
    x->seed = ks_tl_int(h, "seed", 0);
    if (ks_tline_error(h))
        return ks_xp_fail(x, "%s:1: %s", x->name, ks_tline_error(h));
    if (format != 1)
        return ks_xp_fail(x, "%s: trace format %" PRId64 ": this ksim reads trace format 1",
                          x->name, format);
    if (!x->scenario || !x->kafka || !x->level || !x->ksim)
        return ks_xp_fail(x, "out of memory");
    x->last_t = h->t;
    x->broker_timeout_ns = -1;
    x->next_deadline = INT64_MAX;
    return read_model(x, h);
}
