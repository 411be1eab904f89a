/*
 * world.c - building a world from a scenario, the dispatch switch, the
 * trace header and end records, and the summary (see world.h).
 */
#include "models/world.h"

#include "models/check/checker.h"

#include "ks_version.h"
#include "models/net/wire.h"
#include "sim/hugeheap.h"
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

bool ks_world_stream(ks_world *w, ks_rng *r, const char *name)
{
    ks_rng_stream(r, w->sc->seed, name);
    if (w->stream_count == w->stream_cap) {
        uint32_t cap = w->stream_cap ? w->stream_cap * 2u : 16u;
        char **names = realloc(w->stream_names, cap * sizeof *names);
        if (!names)
            return false;
        w->stream_names = names;
        w->stream_cap = cap;
    }
    char *copy = ks_strdup(name);
    if (!copy)
        return false;
    w->stream_names[w->stream_count++] = copy;
    return true;
}

/* The delivery checker, with the names it reports by. */
static bool build_checker(ks_world *w)
{
    w->producer_names = calloc(w->producer_count, sizeof *w->producer_names);
    w->partition_names = calloc(w->partition_count, sizeof *w->partition_names);
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
    for (uint32_t i = 0; i < w->partition_count; i++) {
        const ks_partition *p = &w->partitions[i];
        w->partition_names[i] = at;
        at += snprintf(at, (size_t)(end - at), "%s-%u", w->sc->topics[p->topic].name, p->index) + 1;
    }
    w->checker = ks_checker_create(w->producer_count, (const char *const *)w->producer_names,
                                   w->partition_count, (const char *const *)w->partition_names);
    if (w->checker && w->sc->consumer_count > 0) {
        ks_checker_watch_reads(w->checker);
        for (uint32_t i = 0; i < w->consumer_count; i++)
            for (uint32_t k = 0; w->consumers[i].conf->read_committed && k < w->consumers[i].nparts; k++)
                ks_checker_reads_partition(w->checker, w->consumers[i].parts[k]);
    }
    w->obs = ks_checker_observer(w->checker);
    return w->checker != NULL;
}

/* Every node's name, for its streams and messages: "broker0", and the
 * clients' ids. */
static bool name_nodes(ks_world *w, const ks_scenario *sc)
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
    return true;
}

/* The partitions: leaders spread round-robin over brokers, continuing
 * across topics, as a fresh cluster's assignment does in spirit
 * (partitions added later continue the same round-robin when they are
 * created); each with its log and its idempotent-producer state
 * (brokers before 2.5 answered UNKNOWN_PRODUCER_ID to an unknown
 * producer id). */
static bool build_partitions(ks_world *w, const ks_scenario *sc)
{
    uint32_t k = 0;
    for (uint32_t t = 0; t < sc->topic_count; t++) {
        w->topic_first_partition[t] = k;
        w->topic_partitions[t] = sc->topics[t].partitions;
        for (uint32_t p = 0; p < sc->topics[t].max_partitions; p++, k++) {
            w->partitions[k].topic = t;
            w->partitions[k].index = p;
            w->partitions[k].exists = p < sc->topics[t].partitions;
            if (w->partitions[k].exists)
                w->partitions[k].leader = w->next_leader++ % sc->broker_count;
        }
    }
    /* records carry ids in the logs when someone reads them back */
    bool logged = sc->consumer_count > 0;
    for (uint32_t i = 0; i < sc->producer_count; i++)
        logged = logged || sc->producers[i].txn.enabled;
    w->record_ids = logged;
    /* the logs only when kept: a partition without one is 80 bytes */
    if (logged && !(w->plogs = calloc(w->partition_count ? w->partition_count : 1u,
                                      sizeof *w->plogs)))
        return false;
    for (uint32_t i = 0; i < w->partition_count; i++) {
        ks_ps_init(&w->partitions[i].ps, sc->producer_state_batches,
                   sc->kafka_version < KS_KV(2, 5, 0));
        w->partitions[i].logged = logged;
        if (logged) {
            w->partitions[i].log = &w->plogs[i];
            ks_plog_init(w->partitions[i].log, true);
        }
    }
    return true;
}

/* The clients, in scenario order (their random streams are named, so
 * the order draws nothing). */
static bool build_clients(ks_world *w, const ks_scenario *sc)
{
    w->producer_count = sc->producer_count;
    w->producers = calloc(sc->producer_count, sizeof *w->producers);
    if (!w->producers)
        return false;
    for (uint32_t i = 0; i < sc->producer_count; i++)
        if (!ks_producer_init(&w->producers[i], w, i))
            return false;
    w->consumer_count = sc->consumer_count;
    w->consumers = calloc(sc->consumer_count ? sc->consumer_count : 1, sizeof *w->consumers);
    if (!w->consumers)
        return false;
    for (uint32_t i = 0; i < sc->consumer_count; i++)
        if (!ks_consumer_init(&w->consumers[i], w, i))
            return false;
    return true;
}

static bool build(ks_world *w, const ks_scenario *sc)
{
    w->nodes = (ks_nodes){sc->broker_count, sc->producer_count, sc->consumer_count};
    w->node_down = calloc(ks_nodes_count(&w->nodes), sizeof *w->node_down);
    if (!w->node_down)
        return false;
    w->broker_count = sc->broker_count;
    w->brokers = calloc(sc->broker_count, sizeof *w->brokers);
    w->topic_first_partition = calloc(sc->topic_count, sizeof *w->topic_first_partition);
    w->topic_partitions = calloc(sc->topic_count, sizeof *w->topic_partitions);
    /* Room for every partition the topic will have, so that partition
     * indices never move when admin operations add some. */
    uint32_t parts = 0;
    for (uint32_t t = 0; t < sc->topic_count; t++)
        parts += sc->topics[t].max_partitions;
    w->partition_count = parts;
    w->partitions = calloc(parts, sizeof *w->partitions);
    if (!w->brokers || !w->topic_first_partition || !w->topic_partitions || !w->partitions)
        return false;
    if (!name_nodes(w, sc) ||
        !ks_net_init(&w->net, w, ks_nodes_count(&w->nodes), sc->broker_count,
                     (const char *const *)w->node_names))
        return false;
    for (uint32_t b = 0; b < sc->broker_count; b++) {
        w->brokers[b].index = b;
        w->brokers[b].threads = (uint32_t)sc->broker_config[KS_BCFG_NUM_IO_THREADS].i;
        w->brokers[b].wait_head = w->brokers[b].wait_tail = UINT32_MAX;
        w->brokers[b].out = calloc(sc->broker_count, sizeof *w->brokers[b].out);
        if (!w->brokers[b].out)
            return false;
        w->brokers[b].nout = sc->broker_count;
        for (uint32_t to = 0; to < sc->broker_count; to++)
            ks_client_conn_init(&w->brokers[b].out[to]);
    }
    if (!build_partitions(w, sc))
        return false;
    w->next_producer_id = sc->first_producer_id;
    if (!ks_faults_init(&w->faults, w) || !ks_coord_init(&w->coord, w) ||
        !ks_groups_init(&w->groups, w) || !build_clients(w, sc))
        return false;
    return build_checker(w);
}

ks_world *ks_world_create(const ks_scenario *sc, ks_trace *tr, ks_diag *diag)
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
    if (tr)
        ks_trace_use_schema(tr, &ks_trace_kinds);
    ks_sim_limits lim = {.max_events = sc->limits.max_events,
                         .max_time_ns = sc->limits.max_time_ns,
                         .max_pending = sc->limits.max_pending};
    ks_sim_init(&w->sim, &lim);
    ks_metrics_init(&w->metrics, sc->metrics_bucket_ns);
    ks_request_pool_init(&w->reqs);
    if (!build(w, sc)) {
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
    ks_checker_free(w->checker);
    json_decref(w->delivery);
    if (w->partition_names && w->partition_count > 0)
        free(w->partition_names[0]); /* the block of every name */
    free(w->partition_names);
    free(w->producer_names);
    for (uint32_t i = 0; w->partitions && i < w->partition_count; i++) {
        ks_ps_free(&w->partitions[i].ps);
        if (w->partitions[i].log)
            ks_plog_free(w->partitions[i].log);
    }
    free(w->plogs);
    for (uint32_t i = 0; w->consumers && i < w->consumer_count; i++)
        ks_consumer_free(&w->consumers[i]);
    free(w->consumers);
    free(w->log_ids);
    ks_faults_free(&w->faults);
    ks_coord_free(&w->coord);
    ks_groups_free(&w->groups);
    for (uint32_t i = 0; w->brokers && i < w->broker_count; i++)
        ks_broker_free(&w->brokers[i]);
    free(w->brokers);
    free(w->node_down);
    for (uint32_t i = 0; w->node_names && i < ks_nodes_count(&w->nodes); i++)
        free(w->node_names[i]);
    free(w->node_names);
    free(w->broker_conns);
    free(w->partitions);
    free(w->topic_first_partition);
    free(w->topic_partitions);
    ks_net_free(&w->net);
    ks_request_pool_free(&w->reqs);
    for (uint32_t i = 0; i < w->stream_count; i++)
        free(w->stream_names[i]);
    free(w->stream_names);
    ks_sim_free(&w->sim);
    ks_metrics_free(&w->metrics);
    free(w);
}

/* What the models derived from the scenario: partition leaders, each
 * producer's message sizes and send() interval, and the random streams
 * with the ids that seed them. */
static json_t *derived_json(const ks_world *w)
{
    json_t *o = json_object();
    json_t *parts = json_array();
    for (uint32_t i = 0; i < w->partition_count; i++) {
        const ks_partition *p = &w->partitions[i];
        if (!p->exists)
            continue;
        json_t *j = json_object();
        json_object_set_new(j, "topic", json_string(w->sc->topics[p->topic].name));
        json_object_set_new(j, "partition", json_integer(p->index));
        json_object_set_new(j, "leader", json_integer(p->leader));
        json_array_append_new(parts, j);
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
    for (uint32_t i = 0; i < w->stream_count; i++) {
        char id[24];
        snprintf(id, sizeof id, "%016" PRIx64, ks_rng_fnv1a64(w->stream_names[i]));
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(w->stream_names[i]));
        json_object_set_new(j, "id", json_string(id));
        json_array_append_new(streams, j);
    }
    json_object_set_new(o, "streams", streams);
    return o;
}

static void trace_header(ks_world *w)
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

static void trace_end(ks_world *w)
{
    ks_trace *tr = w->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_END))
        return;
    ks_trace_str(tr, "verdict", ks_sim_verdict_name(w->sim.verdict));
    ks_trace_u64(tr, "events", w->sim.dispatched);
    ks_trace_u64(tr, "pending", ks_sim_pending(&w->sim));
    ks_trace_end(tr);
}

static void trace_event(ks_world *w, const ks_event *ev)
{
    ks_trace *tr = w->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_EVENT))
        return;
    ks_trace_str(tr, "kind", ks_event_kind_name(ev->kind));
    ks_trace_u64(tr, "n", w->sim.dispatched);
    ks_trace_end(tr);
}

/* An admin operation takes effect: the topic has more partitions now.
 * Producers see them at their next metadata refresh. */
static void admin(ks_world *w, uint32_t i)
{
    const ks_admin_op *op = &w->sc->admin[i];
    uint32_t first = w->topic_first_partition[op->topic];
    for (uint32_t p = w->topic_partitions[op->topic]; p < op->total; p++) {
        w->partitions[first + p].exists = true;
        w->partitions[first + p].leader = w->next_leader++ % w->broker_count;
    }
    w->topic_partitions[op->topic] = op->total;
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_ADMIN)) {
        ks_trace_str(tr, "op", "create.partitions");
        ks_trace_str(tr, "topic", w->sc->topics[op->topic].name);
        ks_trace_u64(tr, "partitions", op->total);
        ks_trace_end(tr);
    }
}

static void on_timer(ks_world *w, const ks_event *t)
{
    ks_producer *p = &w->producers[t->owner];
    switch (t->tag) {
    case KS_TIMER_BLOCK:
        ks_producer_on_block_timeout(p, w);
        break;
    case KS_TIMER_APP:
        ks_producer_on_app_free(p, w);
        break;
    case KS_TIMER_METADATA:
        ks_producer_on_metadata(p, w);
        break;
    case KS_TIMER_SENT:
        ks_producer_on_sent(p, w, (uint32_t)t->arg);
        break;
    case KS_TIMER_REQUEST_TIMEOUT:
        ks_producer_on_request_timeout(p, w, (uint32_t)t->arg);
        break;
    case KS_TIMER_EXPIRY:
        ks_producer_on_expiry(p, w);
        break;
    case KS_TIMER_TXN_END:
        ks_producer_on_txn_end(p, w);
        break;
    default:
        break;
    }
}

/* The broker whose event ev is (a request's server, a coordinator's
 * transaction, a broker's own timers, the answer to a request it sent),
 * or UINT32_MAX. */
static uint32_t broker_of(const ks_world *w, const ks_event *ev)
{
    switch (ev->kind) {
    case KS_EV_ARRIVE:
    case KS_EV_APPEND:
    case KS_EV_RESPONDED:
        return ev->tag;
    case KS_EV_BROKER:
        return ev->owner;
    case KS_EV_TXN:
        return ev->tag == KS_COORD_WRITTEN ? w->coord.txns[ev->owner].broker : UINT32_MAX;
    case KS_EV_RESPONSE: {
        ks_node client = ks_req(&w->reqs, (uint32_t)ev->arg)->client;
        return ks_node_kind_of(&w->nodes, client) == KS_NODE_BROKER ? client : UINT32_MAX;
    }
    default:
        return UINT32_MAX;
    }
}

/* The producer whose event ev is, or -1. */
static int32_t producer_of(const ks_world *w, const ks_event *ev)
{
    switch (ev->kind) {
    case KS_EV_RESPONSE:
        return (int32_t)ks_world_producer_of(w, ks_req(&w->reqs, (uint32_t)ev->arg)->client);
    case KS_EV_SENDER:
    case KS_EV_TIMER:
        return (int32_t)ev->owner;
    default:
        return -1;
    }
}

/* A paused broker or producer (fault pause.*) does nothing until the pause
 * ends, in every role it has (a broker's coordinators and its requests as
 * a client too): its events move to that time, in their order, as
 * daemons when they were. A crashed producer's events go nowhere.
 * Returns true when the event was moved or dropped. */
static bool defer_if_paused(ks_world *w, const ks_event *ev)
{
    if (w->faults.n == 0)
        return false;
    if (ev->kind == KS_EV_PRODUCE) /* arrivals keep coming; the application waits (send.c) */
        return w->node_down[ks_node_producer(&w->nodes, ev->owner)];
    ks_time now = ks_sim_now(&w->sim), until = 0;
    uint32_t broker = broker_of(w, ev);
    int32_t producer = producer_of(w, ev);
    if (broker != UINT32_MAX)
        until = ks_faults_broker_paused(w, broker, now);
    if (producer >= 0 && w->node_down[ks_node_producer(&w->nodes, (uint32_t)producer)])
        return true; /* its process is gone: the event goes nowhere */
    if (producer >= 0)
        until = ks_faults_producer_paused(w, (uint32_t)producer, now);
    if (until <= now)
        return false;
    ks_handle h = ks_sim_dispatched_daemon(&w->sim) ? ks_sim_schedule_daemon(&w->sim, until, ev)
                                                     : ks_sim_schedule(&w->sim, until, ev);
    if (producer >= 0)
        ks_producer_rehandle(&w->producers[producer], ev, h, until);
    if (ev->kind == KS_EV_BROKER && ev->tag == KS_BROKER_CLIENT_TIMEOUT)
        ks_client_rehandle(&w->brokers[ev->owner].out[ev->arg], h, until);
    return true;
}

/* Memory malloc holds once a world is built from which the rest of the
 * run's allocations come from huge pages, and the room set aside for
 * them (reserved address space; memory only as malloc uses it). */
#define KS_WORLD_HUGE_FROM ((size_t)8 << 20)
#define KS_WORLD_HUGE_ROOM ((size_t)256 << 20)

static void dispatch(ks_world *w, const ks_event *ev)
{
    if (w->faults.n > 0 && defer_if_paused(w, ev)) /* no call without faults */
        return;
    switch (ev->kind) {
    case KS_EV_TIMER:
        on_timer(w, ev);
        break;
    case KS_EV_PRODUCE:
        ks_producer_on_produce(&w->producers[ev->owner], w);
        break;
    case KS_EV_SENDER:
        ks_producer_on_sender(&w->producers[ev->owner], w);
        break;
    case KS_EV_ARRIVE:
        if (ks_wire_delivered(w, (uint32_t)ev->arg, KS_NET_REQUEST))
            ks_broker_on_arrive(w, ev->tag, (uint32_t)ev->arg);
        else
            ks_request_unref(&w->reqs, (uint32_t)ev->arg); /* its connection is gone */
        break;
    case KS_EV_APPEND:
        ks_broker_on_append(w, ev->tag, (uint32_t)ev->arg);
        break;
    case KS_EV_METRICS:
        ks_metrics_on_tick(w);
        break;
    case KS_EV_ADMIN:
        admin(w, ev->owner);
        break;
    case KS_EV_RESPONDED:
        ks_broker_on_responded(w, ev->tag, ev->owner,
                               (uint32_t)ev->arg);
        break;
    case KS_EV_RESPONSE: {
        uint32_t id = (uint32_t)ev->arg;
        ks_node client = ks_req(&w->reqs, id)->client;
        if (!ks_wire_delivered(w, id, KS_NET_RESPONSE)) {
            ks_request_unref(&w->reqs, id); /* its connection is gone */
            break;
        }
        switch (ks_node_kind_of(&w->nodes, client)) {
        case KS_NODE_BROKER:
            ks_broker_on_response(w, client, id);
            break;
        case KS_NODE_PRODUCER:
            ks_producer_on_response(&w->producers[ks_world_producer_of(w, client)], w, id);
            break;
        case KS_NODE_CONSUMER:
            ks_consumer_on_response(&w->consumers[ks_node_index(&w->nodes, client)], w, id);
            break;
        }
        break;
    }
    case KS_EV_FAULT:
        ks_faults_on_window(w, ev->owner, ev->tag != 0);
        break;
    case KS_EV_CONSUMER:
        if (ev->tag == KS_CONSUMER_RESTART)
            w->node_down[ks_node_consumer(&w->nodes, ev->owner)] = false; /* a new process */
        ks_consumer_on_event(&w->consumers[ev->owner], w, ev->tag,
                             ev->arg);
        break;
    case KS_EV_TXN:
        ks_coord_on_event(w, ev->owner, ev->tag, ev->arg);
        break;
    case KS_EV_BROKER:
        ks_broker_on_event(w, ev->owner, ev->tag, ev->arg);
        break;
    case KS_EV__COUNT:
        break;
    }
}

void ks_world_run(ks_world *w)
{
    /* A world whose state has outgrown what the TLB reaches in 4 KiB
     * pages grows the rest in huge ones (sim/hugeheap.h). */
    if (ks_hugeheap_in_use() >= KS_WORLD_HUGE_FROM)
        (void)ks_hugeheap_grow(KS_WORLD_HUGE_ROOM);
    trace_header(w);
    ks_metrics_start(w);
    for (uint32_t i = 0; i < w->sc->admin_count; i++) {
        /* a daemon: an operation after everything else is over is moot */
        ks_event ev = {.kind = KS_EV_ADMIN, .owner = i};
        ks_sim_schedule_daemon(&w->sim, w->sc->admin[i].at_ns, &ev);
    }
    ks_faults_start(w);
    for (uint32_t i = 0; i < w->producer_count; i++)
        ks_producer_start(&w->producers[i], w);
    for (uint32_t i = 0; i < w->consumer_count; i++)
        ks_consumer_start(&w->consumers[i], w);
    ks_event ev;
    bool debug = w->trace && ks_trace_on(w->trace, KS_TR_EVENT);
    w->chain = !debug && w->faults.n == 0;
    for (;;) {
        if (!ks_sim_next(&w->sim, &ev))
            break;
        if (debug)
            trace_event(w, &ev);
        dispatch(w, &ev);
    }
    ks_metrics_finish(w);
    for (uint32_t i = 0; i < w->producer_count; i++)
        ks_producer_finish(&w->producers[i], w);
    w->delivery = ks_checker_finish(w->checker);
    trace_end(w);
}
