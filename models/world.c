/*
 * world.c - building a world from a scenario: its services, its nodes
 * and what each is given; the trace header (see world.h). The routing
 * and the run are world_run.c's.
 */
#include "models/world.h"

#include "models/check/checker.h"

#include "ks_version.h"
#include "sim/str.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Checks what this version can simulate; the scenario format itself
 * allows more (docs/scenario.md says which models read what). */
static bool supported(const ks_scenario *sc, ks_diag *diag)
{
    bool ok = true;
    for (uint32_t t = 0; t < sc->topic_count; t++) {
        if (sc->topics[t].replication_factor != 1) {
            ks_diag_error(diag,
                          "%s: $.topics[%u].replication.factor: this ksim (%s) simulates "
                          "unreplicated topics (no replication model yet); got %u",
                          sc->file, t, KS_VERSION, sc->topics[t].replication_factor);
            ok = false;
        }
    }
    return ok;
}

/* The delivery checker, with the names it reports by. */
static bool build_checker(ks_world *w)
{
    uint32_t parts = w->meta.partition_count;
    w->producer_names = calloc(w->producer_count ? w->producer_count : 1u,
                               sizeof *w->producer_names);
    w->partition_names = calloc(parts ? parts : 1u, sizeof *w->partition_names);
    if (!w->producer_names || !w->partition_names)
        return false;
    for (uint32_t i = 0; i < w->producer_count; i++)
        w->producer_names[i] = w->sc->producers[i].id;
    /* the names in one block ("events-0\0events-1\0..."), not a
     * malloc each: at 100 000 partitions 1.3 MB instead of 3.2 */
    size_t bytes = 0;
    for (uint32_t t = 0; t < w->sc->topic_count; t++)
        bytes += (size_t)w->sc->topics[t].max_partitions * (strlen(w->sc->topics[t].name) + 12);
    char *at = malloc(bytes ? bytes : 1), *end = at + bytes;
    if (!at)
        return false;
    for (uint32_t i = 0; i < parts; i++) {
        w->partition_names[i] = at;
        at += snprintf(at, (size_t)(end - at), "%s-%u",
                       w->sc->topics[ks_meta_topic_of(&w->meta, i)].name,
                       ks_meta_index_of(&w->meta, i)) + 1;
    }
    w->checker = ks_checker_create(w->producer_count, (const char *const *)w->producer_names,
                                   parts, (const char *const *)w->partition_names);
    if (w->checker && w->sc->consumer_count > 0) {
        ks_checker_watch_reads(w->checker);
        for (uint32_t i = 0; i < w->consumer_count; i++)
            for (uint32_t k = 0; w->consumers[i].conf->read_committed && k < w->consumers[i].nparts; k++)
                ks_checker_reads_partition(w->checker, w->consumers[i].parts[k]);
    }
    w->obs = ks_checker_observer(w->checker);
    return w->checker != NULL;
}

/* Every node's name, for its streams and messages: "broker0", the
 * clients' ids, and the names of the nodes the caller added. */
static bool name_nodes(ks_world *w, const ks_scenario *sc, const ks_world_node *more)
{
    uint32_t n = ks_nodes_count(&w->nodes);
    w->node_names = calloc(n, sizeof *w->node_names);
    if (!w->node_names)
        return false;
    for (uint32_t b = 0; b < sc->broker_count; b++) {
        char name[24];
        snprintf(name, sizeof name, "broker%u", b);
        if (!(w->node_names[b] = ks_strdup(name)))
            return false;
    }
    for (uint32_t i = 0; i < sc->producer_count; i++)
        if (!(w->node_names[ks_node_producer(&w->nodes, i)] = ks_strdup(sc->producers[i].id)))
            return false;
    for (uint32_t i = 0; i < sc->consumer_count; i++)
        if (!(w->node_names[ks_node_consumer(&w->nodes, i)] = ks_strdup(sc->consumers[i].id)))
            return false;
    for (uint32_t i = 0; i < w->nodes.others; i++)
        if (!(w->node_names[ks_node_other(&w->nodes, i)] = ks_strdup(more[i].name)))
            return false;
    return true;
}

/* The cluster's metadata at the start: the topics' partitions, their
 * leaders spread round-robin over brokers, continuing across topics, as
 * a fresh cluster's assignment does in spirit (partitions added later
 * continue the same round-robin when they are created). */
static bool build_metadata(ks_world *w, const ks_scenario *sc)
{
    uint32_t *max = calloc(sc->topic_count ? sc->topic_count : 1u, sizeof *max);
    if (!max)
        return false;
    for (uint32_t t = 0; t < sc->topic_count; t++)
        max[t] = sc->topics[t].max_partitions;
    bool ok = ks_meta_init(&w->meta, sc->broker_count, sc->topic_count, max,
                           (uint32_t)sc->broker_config[KS_BCFG_TXN_STATE_LOG_PARTITIONS].i,
                           (uint32_t)sc->broker_config[KS_BCFG_OFFSETS_TOPIC_PARTITIONS].i);
    free(max);
    if (!ok)
        return false;
    for (uint32_t t = 0; t < sc->topic_count; t++) {
        w->meta.topic_partitions[t] = sc->topics[t].partitions;
        for (uint32_t p = 0; p < sc->topics[t].partitions; p++)
            w->meta.leaders[w->meta.topic_first[t] + p] = w->next_leader++ % sc->broker_count;
    }
    return true;
}

/* The node slot of node n. */
static void slot(ks_world *w, ks_node n, const ks_node_ops *ops, void *self)
{
    w->slots[n] = (ks_node_slot){.ops = ops, .self = self};
    w->client_keys[n] = ops->client_key;
}

/* The brokers, each starting with the cluster's metadata. Records carry
 * ids in the logs when someone reads them back (consumers, or
 * transactions checked). Brokers before 2.5 answered UNKNOWN_PRODUCER_ID
 * to an unknown producer id. */
static bool build_brokers(ks_world *w, const ks_scenario *sc)
{
    bool logged = sc->consumer_count > 0;
    for (uint32_t i = 0; i < sc->producer_count; i++)
        logged = logged || sc->producers[i].txn.enabled;
    w->ctx.record_ids = logged;
    w->broker_count = sc->broker_count;
    w->brokers = calloc(sc->broker_count, sizeof *w->brokers);
    if (!w->brokers)
        return false;
    for (uint32_t b = 0; b < sc->broker_count; b++) {
        if (!ks_broker_init(&w->brokers[b], sc, b, &w->meta, logged, &w->faults))
            return false;
        slot(w, ks_node_broker(&w->nodes, b), &ks_broker_ops, &w->brokers[b]);
    }
    return true;
}

/* The clients, in scenario order (their random streams are named, so
 * the order draws nothing), each bootstrapped with the cluster's
 * metadata; and the applications of the consumers that forward what
 * they read. */
static bool build_clients(ks_world *w, const ks_scenario *sc)
{
    w->producer_count = sc->producer_count;
    w->producers = calloc(sc->producer_count ? sc->producer_count : 1u, sizeof *w->producers);
    w->consumer_count = sc->consumer_count;
    w->consumers = calloc(sc->consumer_count ? sc->consumer_count : 1u, sizeof *w->consumers);
    w->apps = calloc(sc->consumer_count ? sc->consumer_count : 1u, sizeof *w->apps);
    if (!w->producers || !w->consumers || !w->apps)
        return false;
    for (uint32_t i = 0; i < sc->producer_count; i++) {
        if (!ks_producer_init(&w->producers[i], &w->ctx, i, &w->meta))
            return false;
        slot(w, ks_node_producer(&w->nodes, i), &ks_producer_ops, &w->producers[i]);
    }
    for (uint32_t i = 0; i < sc->consumer_count; i++) {
        if (!ks_consumer_init(&w->consumers[i], &w->ctx, i, &w->meta))
            return false;
        slot(w, ks_node_consumer(&w->nodes, i), &ks_consumer_ops, &w->consumers[i]);
        if (ks_app_needed(sc, i) &&
            !ks_app_init(&w->apps[i], sc, &w->consumers[i], w->producers, w->producer_count))
            return false;
    }
    return true;
}

/* The services every node acts with (models/ctx.h). */
static void build_ctx(ks_world *w)
{
    w->wire = (ks_wire){.sim = &w->ctx.sim, .net = &w->net, .faults = &w->faults,
                        .reqs = &w->ctx.reqs, .obs = &w->obs, .trace = w->trace,
                        .nodes = &w->nodes};
    ks_ctx *cx = &w->ctx;
    cx->net = &w->net;
    cx->wire = &w->wire;
    cx->trace = w->trace;
    cx->obs = &w->obs;
    cx->sc = w->sc;
    cx->nodes = &w->nodes;
    cx->names = (const char *const *)w->node_names;
    cx->streams = &w->streams;
    cx->next_record_id = &w->next_record_id;
    cx->out_of_memory = &w->out_of_memory;
}

static bool build(ks_world *w, const ks_scenario *sc, const ks_world_node *more, uint32_t n)
{
    w->nodes = (ks_nodes){.brokers = sc->broker_count,
                          .producers = sc->producer_count,
                          .consumers = sc->consumer_count,
                          .others = n};
    w->slots = calloc(ks_nodes_count(&w->nodes), sizeof *w->slots);
    w->client_keys = calloc(ks_nodes_count(&w->nodes), sizeof *w->client_keys);
    w->nodes.client_keys = w->client_keys;
    if (!w->slots || !w->client_keys || !name_nodes(w, sc, more) ||
        !ks_net_init(&w->net, &w->ctx.sim, &w->streams, &sc->network, ks_nodes_count(&w->nodes),
                     sc->broker_count, (const char *const *)w->node_names) ||
        !build_metadata(w, sc))
        return false;
    build_ctx(w);
    ks_faults_env env = {.sim = &w->ctx.sim, .trace = w->trace, .reqs = &w->ctx.reqs,
                         .nodes = &w->nodes, .net = &w->net, .sc = sc};
    if (!build_brokers(w, sc))
        return false;
    build_ctx(w); /* with record_ids known */
    if (!ks_faults_init(&w->faults, &env, w->meta.topic_first, &w->streams) ||
        !build_clients(w, sc))
        return false;
    for (uint32_t i = 0; i < n; i++)
        slot(w, ks_node_other(&w->nodes, i), more[i].ops, more[i].self);
    return build_checker(w);
}

ks_world *ks_world_create(const ks_scenario *sc, ks_trace *tr, ks_diag *diag)
{
    return ks_world_create_with(sc, tr, diag, NULL, 0);
}

ks_world *ks_world_create_with(const ks_scenario *sc, ks_trace *tr, ks_diag *diag,
                               const ks_world_node *more, uint32_t n)
{
    if (!supported(sc, diag))
        return NULL;
    ks_world *w = calloc(1, sizeof *w);
    if (!w) {
        ks_diag_error(diag, "out of memory");
        return NULL;
    }
    w->sc = sc;
    w->trace = tr;
    w->streams.seed = sc->seed;
    if (tr)
        ks_trace_use_schema(tr, &ks_trace_kinds);
    ks_sim_limits lim = {.max_events = sc->limits.max_events,
                         .max_time_ns = sc->limits.max_time_ns,
                         .max_pending = sc->limits.max_pending};
    ks_sim_init(&w->ctx.sim, &lim);
    ks_metrics_init(&w->ctx.metrics, sc->metrics_bucket_ns);
    ks_request_pool_init(&w->ctx.reqs);
    if (!build(w, sc, more, n)) {
        ks_diag_error(diag, "out of memory while building the simulation");
        ks_world_free(w);
        return NULL;
    }
    return w;
}

void ks_world_free(ks_world *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; w->producers && i < w->producer_count; i++)
        ks_producer_free(&w->producers[i]);
    free(w->producers);
    for (uint32_t i = 0; w->consumers && i < w->consumer_count; i++) {
        ks_consumer_free(&w->consumers[i]);
        ks_app_free(&w->apps[i]);
    }
    free(w->consumers);
    free(w->apps);
    for (uint32_t i = 0; w->brokers && i < w->broker_count; i++)
        ks_broker_free(&w->brokers[i]);
    free(w->brokers);
    ks_checker_free(w->checker);
    json_decref(w->delivery);
    if (w->partition_names && w->meta.partition_count > 0)
        free(w->partition_names[0]); /* the block of every name */
    free(w->partition_names);
    free(w->producer_names);
    ks_faults_free(&w->faults);
    for (uint32_t i = 0; w->node_names && i < ks_nodes_count(&w->nodes); i++)
        free(w->node_names[i]);
    free(w->node_names);
    free(w->slots);
    free(w->client_keys);
    ks_meta_free(&w->meta);
    ks_net_free(&w->net);
    ks_request_pool_free(&w->ctx.reqs);
    ks_streams_free(&w->streams);
    ks_sim_free(&w->ctx.sim);
    ks_metrics_free(&w->ctx.metrics);
    free(w);
}

/* What the models derived from the scenario: partition leaders, each
 * producer's message sizes and send() interval, and the random streams
 * with the ids that seed them. */
static json_t *derived_json(const ks_world *w)
{
    json_t *o = json_object();
    json_t *parts = json_array();
    for (uint32_t t = 0; t < w->meta.topic_count; t++) {
        for (uint32_t i = 0; i < w->meta.topic_partitions[t]; i++) {
            json_t *j = json_object();
            json_object_set_new(j, "topic", json_string(w->sc->topics[t].name));
            json_object_set_new(j, "partition", json_integer(i));
            json_object_set_new(j, "leader",
                                json_integer(ks_meta_leader(&w->meta, w->meta.topic_first[t] + i)));
            json_array_append_new(parts, j);
        }
    }
    json_object_set_new(o, "partitions", parts);
    json_object_set_new(o, "broker_config", ks_config_json(&ks_broker_configs, w->sc->broker_config,
                                                           w->sc->kafka_version, false));
    json_t *prods = json_array();
    for (uint32_t i = 0; i < w->producer_count; i++) {
        const ks_producer *p = &w->producers[i];
        json_t *j = json_object();
        json_object_set_new(j, "id", json_string(p->conf->id));
        json_object_set_new(j, "client.id", json_string(p->client_id));
        json_object_set_new(j, "partitioner", json_string(ks_partitioner_name(p->part.kind)));
        json_object_set_new(j, "ignore_keys", json_boolean(p->ignore_keys));
        json_object_set_new(j, "interval_ns", json_integer(p->conf->workload.interval_ns));
        json_object_set_new(j, "config", ks_config_json(&ks_producer_configs, p->conf->config,
                                                        w->sc->kafka_version, false));
        json_array_append_new(prods, j);
    }
    json_object_set_new(o, "producers", prods);
    json_t *streams = json_array();
    for (uint32_t i = 0; i < w->streams.count; i++) {
        char id[24];
        snprintf(id, sizeof id, "%016" PRIx64, ks_rng_fnv1a64(w->streams.names[i]));
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(w->streams.names[i]));
        json_object_set_new(j, "id", json_string(id));
        json_array_append_new(streams, j);
    }
    json_object_set_new(o, "streams", streams);
    return o;
}

void ks_world_trace_header(ks_world *w)
{
    ks_trace *tr = w->trace;
    if (!tr || !ks_trace_begin(tr, 0, KS_TR_HEADER))
        return;
    json_t *resolved = ks_scenario_to_json(w->sc);
    char *text = json_dumps(resolved, JSON_COMPACT | JSON_ENSURE_ASCII |
                                          ks_conf_reals_exact(resolved));
    json_t *derived = derived_json(w);
    char *dtext = json_dumps(derived, JSON_COMPACT | JSON_ENSURE_ASCII |
                                          ks_conf_reals_exact(derived));
    ks_trace_u64(tr, "format", KS_TRACE_FORMAT);
    ks_trace_str(tr, "ksim", KS_VERSION);
    ks_trace_str(tr, "scenario", w->sc->name);
    ks_trace_u64(tr, "seed", w->sc->seed);
    ks_trace_str(tr, "kafka", w->sc->kafka_version_text);
    ks_trace_str(tr, "level", ks_trace_level_name(tr->level));
    ks_trace_raw(tr, "resolved", text ? text : "null");
    ks_trace_raw(tr, "derived", dtext ? dtext : "null");
    ks_trace_end(tr);
    free(text);
    free(dtext);
    json_decref(resolved);
    json_decref(derived);
}

void ks_world_trace_end(ks_world *w)
{
    ks_trace *tr = w->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&w->ctx.sim), KS_TR_END))
        return;
    ks_trace_str(tr, "verdict", ks_sim_verdict_name(w->ctx.sim.verdict));
    ks_trace_u64(tr, "events", w->ctx.sim.dispatched);
    ks_trace_u64(tr, "pending", ks_sim_pending(&w->ctx.sim));
    ks_trace_end(tr);
}
