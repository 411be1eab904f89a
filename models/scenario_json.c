/*
 * scenario_json.c - the resolved scenario as JSON (see scenario.h).
 *
 * Every ksim value is written, defaults included, in a fixed order, so
 * the output is both a record of what ran and a scenario file that reruns
 * it. Kafka configs are written only where the scenario set them: Kafka
 * itself treats a value set explicitly differently from its default
 * (enable.idempotence), and kafka.version restores every default.
 */
#include "models/scenario.h"

#include <stdio.h>

/* Milliseconds as an integer when whole, else as a real. */
static json_t *ms_value(ks_time ns)
{
    if (ns % KS_NS_PER_MS == 0)
        return json_integer((json_int_t)(ns / KS_NS_PER_MS));
    return json_real((double)ns / 1e6);
}

static json_t *number_value(double d)
{
    if (d == (double)(json_int_t)d && d < 9e15 && d > -9e15)
        return json_integer((json_int_t)d);
    return json_real(d);
}

static json_t *dist_json(const ks_dist *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "dist", json_string(ks_dist_name(d->kind)));
    switch (d->kind) {
    case KS_DIST_CONSTANT:
        json_object_set_new(o, "ms", ms_value(d->a_ns));
        break;
    case KS_DIST_UNIFORM:
        json_object_set_new(o, "min.ms", ms_value(d->a_ns));
        json_object_set_new(o, "max.ms", ms_value(d->b_ns));
        break;
    case KS_DIST_EXPONENTIAL:
        json_object_set_new(o, "mean.ms", ms_value(d->a_ns));
        json_object_set_new(o, "min.ms", ms_value(d->min_ns));
        break;
    case KS_DIST_LOGNORMAL:
        json_object_set_new(o, "median.ms", ms_value(d->a_ns));
        json_object_set_new(o, "sigma", json_real(d->sigma));
        json_object_set_new(o, "min.ms", ms_value(d->min_ns));
        break;
    case KS_DIST__COUNT:
        break;
    }
    return o;
}

/* One fault with the keys its type takes, selectors only when given. */
static json_t *fault_json(const ks_scenario *sc, const ks_fault_conf *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string(ks_fault_type_name(f->type)));
    if (f->note)
        json_object_set_new(o, "note", json_string(f->note));
    if (f->producer >= 0)
        json_object_set_new(o, "producer", json_string(sc->producers[f->producer].id));
    if (f->broker >= 0)
        json_object_set_new(o, "broker", json_integer(f->broker));
    if (f->topic >= 0) {
        char name[320];
        snprintf(name, sizeof name, "%s-%d", sc->topics[f->topic].name, f->partition);
        json_object_set_new(o, "partition", json_string(name));
    }
    switch (f->type) {
    case KS_FAULT_DROP_REQUEST:
    case KS_FAULT_DROP_RESPONSE:
    case KS_FAULT_DELAY_REQUEST:
    case KS_FAULT_DELAY_RESPONSE:
    case KS_FAULT_APPEND_ERROR:
        if (f->type != KS_FAULT_APPEND_ERROR)
            json_object_set_new(o, "api", json_string(ks_api_name(f->api)));
        if (f->request >= 0)
            json_object_set_new(o, "request", json_integer(f->request));
        json_object_set_new(o, "after.ms", ms_value(f->after_ns));
        json_object_set_new(o, "count", json_integer(f->count));
        if (f->type == KS_FAULT_DELAY_REQUEST || f->type == KS_FAULT_DELAY_RESPONSE)
            json_object_set_new(o, "delay.ms", ms_value(f->delay_ns));
        if (f->type == KS_FAULT_APPEND_ERROR)
            json_object_set_new(o, "error", json_string(ks_kerr_name(f->error)));
        break;
    case KS_FAULT_REQUEST_LOSS:
    case KS_FAULT_RESPONSE_LOSS:
    case KS_FAULT_LINK_DOWN:
    case KS_FAULT_PAUSE_BROKER:
    case KS_FAULT_PAUSE_PRODUCER:
        if (f->type == KS_FAULT_REQUEST_LOSS || f->type == KS_FAULT_RESPONSE_LOSS)
            json_object_set_new(o, "probability", number_value(f->probability));
        json_object_set_new(o, "from.ms", ms_value(f->from_ns));
        if (f->to_ns != KS_TIME_MAX)
            json_object_set_new(o, "to.ms", ms_value(f->to_ns));
        break;
    case KS_FAULT_CRASH_PRODUCER:
        json_object_set_new(o, "at.ms", ms_value(f->from_ns));
        break;
    case KS_FAULT_CRASH_CONSUMER:
        json_object_set_new(o, "consumer", json_string(sc->consumers[f->consumer].id));
        json_object_set_new(o, "at.ms", ms_value(f->from_ns));
        if (f->to_ns != KS_TIME_MAX)
            json_object_set_new(o, "restart.ms", ms_value(f->to_ns));
        if (f->forward_to >= 0)
            json_object_set_new(o, "forward.to", json_string(sc->producers[f->forward_to].id));
        break;
    case KS_FAULT__COUNT:
        break;
    }
    return o;
}

static json_t *consumers_json(const ks_scenario *sc)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; i < sc->consumer_count; i++) {
        const ks_consumer_conf *c = &sc->consumers[i];
        json_t *o = json_object();
        json_object_set_new(o, "id", json_string(c->id));
        json_object_set_new(o, "topic", json_string(sc->topics[c->topic].name));
        if (!c->all_partitions) {
            json_t *parts = json_array();
            for (uint32_t k = 0; k < c->partition_count; k++)
                json_array_append_new(parts, json_integer(c->partitions[k]));
            json_object_set_new(o, "partitions", parts);
        }
        json_object_set_new(o, "isolation.level",
                            json_string(c->read_committed ? "read_committed" : "read_uncommitted"));
        json_object_set_new(o, "group.id", json_string(c->group_id));
        json_object_set_new(o, "start.ms", ms_value(c->start_ns));
        json_object_set_new(o, "poll.interval.ms", ms_value(c->poll_interval_ns));
        json_object_set_new(o, "max.poll.records", json_integer(c->max_poll_records));
        json_object_set_new(o, "fetch.max.wait.ms", ms_value(c->fetch_max_wait_ns));
        json_object_set_new(o, "auto.offset.reset",
                            json_string(c->reset_earliest ? "earliest" : "latest"));
        json_object_set_new(o, "process.us", number_value((double)c->process_ns / 1e3));
        json_object_set_new(o, "commit", json_string(ks_commit_mode_name(c->commit)));
        if (c->forward_to >= 0)
            json_object_set_new(o, "forward.to", json_string(sc->producers[c->forward_to].id));
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *txn_json(const ks_txn_conf *t)
{
    json_t *o = json_object();
    json_object_set_new(o, "records", json_integer(t->records));
    json_t *ends = json_array();
    for (uint32_t k = 0; k < t->end_count; k++)
        json_array_append_new(ends, json_string(ks_txn_end_name(t->ends[k])));
    json_object_set_new(o, "end", ends);
    json_object_set_new(o, "end.delay.ms", ms_value(t->end_delay_ns));
    json_object_set_new(o, "protocol", json_string(ks_txn_protocol_name(t->protocol)));
    return o;
}

json_t *ks_scenario_to_json(const ks_scenario *sc)
{
    json_t *o = json_object();
    json_object_set_new(o, "scenario.format", json_integer(KS_SCENARIO_FORMAT));
    json_object_set_new(o, "name", json_string(sc->name ? sc->name : ""));
    if (sc->description)
        json_object_set_new(o, "description", json_string(sc->description));
    json_object_set_new(o, "seed", json_integer((json_int_t)sc->seed));
    json_object_set_new(o, "kafka.version", json_string(sc->kafka_version_text));

    json_t *lim = json_object();
    json_object_set_new(lim, "max.events", json_integer((json_int_t)sc->limits.max_events));
    json_object_set_new(lim, "max.time.ms", ms_value(sc->limits.max_time_ns));
    json_object_set_new(lim, "max.pending.events", json_integer(sc->limits.max_pending));
    json_object_set_new(o, "limits", lim);
    json_t *met = json_object();
    json_object_set_new(met, "bucket.ms", ms_value(sc->metrics_bucket_ns));
    json_object_set_new(o, "metrics", met);

    json_object_set_new(o, "brokers", ks_broker_section_json(sc));

    json_t *net = json_object();
    json_object_set_new(net, "latency", dist_json(&sc->network.latency));
    json_object_set_new(net, "bandwidth.mbps", number_value((double)sc->network.bandwidth_bps / 1e6));
    json_object_set_new(o, "network", net);

    json_object_set_new(o, "topics", ks_topic_section_json(sc));

    json_t *prods = json_array();
    for (uint32_t i = 0; i < sc->producer_count; i++) {
        const ks_producer_conf *pc = &sc->producers[i];
        json_t *p = json_object();
        json_object_set_new(p, "id", json_string(pc->id));
        json_object_set_new(p, "topic", json_string(sc->topics[pc->topic].name));
        json_object_set_new(p, "partitioner", json_string(ks_partitioner_choice_name(pc->partitioner)));
        json_object_set_new(p, "config", ks_config_json(&ks_producer_configs, pc->config, sc->kafka_version, true));
        json_t *w = json_object();
        json_object_set_new(w, "records", json_integer((json_int_t)pc->workload.records));
        json_object_set_new(w, "arrival", json_string(ks_arrival_name(pc->workload.arrival)));
        json_object_set_new(w, "rate.per.sec", number_value(pc->workload.rate_per_sec));
        json_object_set_new(w, "start.ms", ms_value(pc->workload.start_ns));
        if (pc->workload.arrival == KS_ARRIVAL_BURST) {
            json_object_set_new(w, "burst.records", json_integer(pc->workload.burst_records));
            json_object_set_new(w, "burst.interval.ms", ms_value(pc->workload.burst_interval_ns));
        }
        const ks_workload_conf *wc = &pc->workload;
        json_t *keys = json_array();
        for (uint32_t k = 0; k < wc->key_count; k++)
            json_array_append_new(keys, wc->keys[k] ? json_string(wc->keys[k]) : json_null());
        if (wc->key_pick != KS_PICK_CYCLE) {
            json_t *kd = json_object(), *params = json_object();
            json_object_set_new(params, "keys", json_integer(wc->key_space));
            if (wc->key_pick == KS_PICK_ZIPF)
                json_object_set_new(params, "s", json_real(wc->zipf_s));
            json_object_set_new(params, "prefix", json_string(wc->key_prefix));
            json_object_set_new(kd, wc->key_pick == KS_PICK_ZIPF ? "zipf" : "uniform", params);
            json_object_set_new(w, "key", kd);
            json_decref(keys);
        } else if (wc->key_list) {
            json_object_set_new(w, "key", keys);
        } else {
            json_object_set(w, "key", json_array_get(keys, 0));
            json_decref(keys);
        }
        json_t *sizes = json_array();
        for (uint32_t k = 0; k < wc->value_count; k++)
            json_array_append_new(sizes, json_integer(wc->value_bytes[k]));
        if (wc->value_pick == KS_PICK_UNIFORM) {
            json_t *vd = json_object(), *params = json_object();
            json_object_set_new(params, "min", json_integer(wc->value_min));
            json_object_set_new(params, "max", json_integer(wc->value_max));
            json_object_set_new(vd, "uniform", params);
            json_object_set_new(w, "value.bytes", vd);
            json_decref(sizes);
        } else if (wc->value_list) {
            json_object_set_new(w, "value.bytes", sizes);
        } else {
            json_object_set(w, "value.bytes", json_array_get(sizes, 0));
            json_decref(sizes);
        }
        json_object_set_new(p, "workload", w);
        json_t *pcost = json_object();
        json_object_set_new(pcost, "record.us", number_value((double)pc->cost.record_ns / 1e3));
        json_object_set_new(pcost, "batch.us", number_value((double)pc->cost.batch_ns / 1e3));
        json_object_set_new(pcost, "request.us", number_value((double)pc->cost.request_ns / 1e3));
        json_object_set_new(p, "cost", pcost);
        json_t *comp = json_object();
        json_object_set_new(comp, "ratio", json_real(pc->compression.ratio));
        json_object_set_new(comp, "compress.ns.per.byte",
                            number_value((double)pc->compression.compress_ps / 1e3));
        json_object_set_new(comp, "decompress.ns.per.byte",
                            number_value((double)pc->compression.decompress_ps / 1e3));
        json_object_set_new(p, "compression", comp);
        if (pc->txn.enabled)
            json_object_set_new(p, "transactions", txn_json(&pc->txn));
        json_array_append_new(prods, p);
    }
    json_object_set_new(o, "producers", prods);
    if (sc->consumer_count > 0)
        json_object_set_new(o, "consumers", consumers_json(sc));
    json_t *admin = ks_admin_section_json(sc);
    if (admin)
        json_object_set_new(o, "admin", admin);
    if (sc->fault_count > 0) {
        json_t *arr = json_array();
        for (uint32_t i = 0; i < sc->fault_count; i++)
            json_array_append_new(arr, fault_json(sc, &sc->faults[i]));
        json_object_set_new(o, "faults", arr);
    }
    if (sc->expect)
        json_object_set_new(o, "expect", json_deep_copy(sc->expect));
    return o;
}
