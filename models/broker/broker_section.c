/*
 * broker_section.c - the scenario's "brokers" section, loaded and written
 * back (see broker_section.h). Reads only the document and the Kafka
 * version; the broker model reads what it leaves in the scenario.
 */
#include "models/broker/broker_section.h"

#include "models/kafka/config_json.h"
#include "models/scenario_types.h"
#include "sim/detmath.h"

#include <stdlib.h>

/* Reads a "cost" object over the values in *c. */
static void load_cost(ks_conf *L, json_t *cost, ks_broker_cost *c)
{
    static const char *const cost_keys[] = {"request.us", "batch.us", "byte.ns",
                                            "response.delay.ms", "txn.log.write.ms",
                                            "idempotent.batch.us", NULL};
    size_t m = ks_conf_enter(L, "cost");
    ks_conf_check_keys(L, cost, cost_keys, NULL);
    double d;
    if (ks_conf_get_real(L, cost, "request.us", 0.0, false, 1e9, &d))
        c->request_ns = ks_round_i64(d * 1e3);
    if (ks_conf_get_real(L, cost, "batch.us", 0.0, false, 1e9, &d))
        c->batch_ns = ks_round_i64(d * 1e3);
    if (ks_conf_get_real(L, cost, "byte.ns", 0.0, false, 1e6, &d))
        c->byte_ps = ks_round_i64(d * 1e3);
    ks_conf_get_ms(L, cost, "response.delay.ms", false, &c->response_delay_ns);
    ks_conf_get_ms(L, cost, "txn.log.write.ms", false, &c->txn_log_write_ns);
    if (ks_conf_get_real(L, cost, "idempotent.batch.us", 0.0, false, 1e9, &d))
        c->idempotent_batch_ns = ks_round_i64(d * 1e3);
    ks_conf_leave(L, m);
}

/* One {"id": broker, "cost": {...}} of "overrides". */
static void load_override(ks_conf *L, json_t *o, ks_scenario *sc)
{
    static const char *const keys[] = {"id", "cost", NULL};
    uint32_t id = 0;
    json_t *cost = NULL;
    if (!json_is_object(o)) {
        ks_conf_err_got(L, o, "an object {\"id\": broker, \"cost\": {...}}");
        return;
    }
    ks_conf_check_keys(L, o, keys, NULL);
    if (!ks_conf_member(o, "id")) {
        ks_conf_err_at(L, "id", "missing: the broker id this override is for");
        return;
    }
    if (ks_conf_get_u32(L, o, "id", 0, sc->broker_count - 1, &id) &&
        ks_conf_get_object(L, o, "cost", &cost) && cost) {
        if (sc->broker_overridden[id])
            ks_conf_err_at(L, "id", "broker %u is overridden twice", id);
        sc->broker_overridden[id] = true;
        load_cost(L, cost, &sc->broker_costs[id]);
    }
}

/* "overrides": [{"id": 2, "cost": {...}}]: per-broker costs (a slow
 * broker) over the common ones. */
static void load_overrides(ks_conf *L, json_t *arr, ks_scenario *sc)
{
    size_t mark = ks_conf_enter(L, "overrides");
    if (!json_is_array(arr)) {
        ks_conf_err_got(L, arr, "an array of {\"id\": broker, \"cost\": {...}}");
        ks_conf_leave(L, mark);
        return;
    }
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o) {
        size_t m = ks_conf_enter_index(L, i);
        load_override(L, o, sc);
        ks_conf_leave(L, m);
    }
    ks_conf_leave(L, mark);
}

static void set_defaults(ks_scenario *sc)
{
    sc->broker_count = 1;
    sc->producer_state_batches = 5;
    sc->first_producer_id = 0;
    sc->broker_cost.request_ns = 20 * KS_NS_PER_US;
    sc->broker_cost.batch_ns = 10 * KS_NS_PER_US;
    sc->broker_cost.byte_ps = 1000;
    sc->broker_cost.response_delay_ns = 0;
    sc->broker_cost.txn_log_write_ns = KS_NS_PER_MS;
}

void ks_broker_section_load(ks_conf *L, json_t *root, ks_scenario *sc)
{
    static const char *const keys[] = {"count", "config", "cost", "overrides",
                                       "producer.state.batches", "first.producer.id", NULL};
    set_defaults(sc);
    json_t *obj = NULL, *cfg = NULL, *cost = NULL;
    ks_conf_get_object(L, root, "brokers", &obj);
    size_t mark = ks_conf_enter(L, "brokers");
    if (obj) {
        ks_conf_check_keys(L, obj, keys, NULL);
        ks_conf_get_u32(L, obj, "count", 1, 1024, &sc->broker_count);
        ks_conf_get_u32(L, obj, "producer.state.batches", 1, 64, &sc->producer_state_batches);
        ks_conf_get_int(L, obj, "first.producer.id", 0, INT64_MAX / 2, &sc->first_producer_id);
        ks_conf_get_object(L, obj, "config", &cfg);
        ks_conf_get_object(L, obj, "cost", &cost);
    }
    size_t m2 = ks_conf_enter(L, "config");
    ks_cfg_load_json(L, cfg, &ks_broker_configs, sc->kafka_version, sc->broker_config);
    ks_conf_leave(L, m2);
    if (cost)
        load_cost(L, cost, &sc->broker_cost);
    sc->broker_costs = calloc(sc->broker_count, sizeof *sc->broker_costs);
    sc->broker_overridden = calloc(sc->broker_count, sizeof *sc->broker_overridden);
    if (!sc->broker_costs || !sc->broker_overridden) {
        ks_conf_err(L, "out of memory");
        ks_conf_leave(L, mark);
        return;
    }
    for (uint32_t b = 0; b < sc->broker_count; b++)
        sc->broker_costs[b] = sc->broker_cost;
    json_t *ov = ks_conf_member(obj, "overrides");
    if (ov)
        load_overrides(L, ov, sc);
    ks_conf_leave(L, mark);
}

static json_t *cost_json(const ks_broker_cost *c)
{
    json_t *cost = json_object();
    json_object_set_new(cost, "request.us", ks_conf_number_json((double)c->request_ns / 1e3));
    json_object_set_new(cost, "batch.us", ks_conf_number_json((double)c->batch_ns / 1e3));
    json_object_set_new(cost, "byte.ns", ks_conf_number_json((double)c->byte_ps / 1e3));
    json_object_set_new(cost, "response.delay.ms", ks_conf_ms_json(c->response_delay_ns));
    json_object_set_new(cost, "txn.log.write.ms", ks_conf_ms_json(c->txn_log_write_ns));
    if (c->idempotent_batch_ns != 0) /* 0 by default: resolved forms read as before */
        json_object_set_new(cost, "idempotent.batch.us",
                            ks_conf_number_json((double)c->idempotent_batch_ns / 1e3));
    return cost;
}

json_t *ks_broker_section_json(const ks_scenario *sc)
{
    json_t *br = json_object();
    json_object_set_new(br, "count", json_integer(sc->broker_count));
    json_object_set_new(br, "producer.state.batches", json_integer(sc->producer_state_batches));
    json_object_set_new(br, "first.producer.id", json_integer((json_int_t)sc->first_producer_id));
    json_object_set_new(br, "config", ks_config_json(&ks_broker_configs, sc->broker_config,
                                                     sc->kafka_version, true));
    json_object_set_new(br, "cost", cost_json(&sc->broker_cost));
    json_t *ovs = json_array();
    for (uint32_t b = 0; b < sc->broker_count; b++) {
        if (!sc->broker_overridden[b])
            continue;
        json_t *ov = json_object();
        json_object_set_new(ov, "id", json_integer(b));
        json_object_set_new(ov, "cost", cost_json(&sc->broker_costs[b]));
        json_array_append_new(ovs, ov);
    }
    if (json_array_size(ovs) > 0)
        json_object_set_new(br, "overrides", ovs);
    else
        json_decref(ovs);
    return br;
}

void ks_broker_section_free(ks_scenario *sc)
{
    free(sc->broker_costs);
    free(sc->broker_overridden);
}
