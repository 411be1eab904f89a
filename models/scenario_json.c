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

#include "models/check/expect_section.h"

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
    json_object_set_new(lim, "max.time.ms", ks_conf_ms_json(sc->limits.max_time_ns));
    json_object_set_new(lim, "max.pending.events", json_integer(sc->limits.max_pending));
    json_object_set_new(o, "limits", lim);
    json_t *met = json_object();
    json_object_set_new(met, "bucket.ms", ks_conf_ms_json(sc->metrics_bucket_ns));
    json_object_set_new(o, "metrics", met);

    json_object_set_new(o, "brokers", ks_broker_section_json(sc));
    json_object_set_new(o, "network", ks_network_section_json(sc));
    json_object_set_new(o, "topics", ks_topic_section_json(sc));
    json_object_set_new(o, "producers", ks_producer_section_json(sc));
    /* The optional sections are written only when the scenario has them. */
    json_t *const optional[] = {ks_consumer_section_json(sc), ks_admin_section_json(sc),
                                ks_fault_section_json(sc), ks_expect_section_json(sc)};
    static const char *const names[] = {"consumers", "admin", "faults", "expect"};
    for (size_t i = 0; i < 4; i++)
        if (optional[i])
            json_object_set_new(o, names[i], optional[i]);
    return o;
}
