/*
 * scenario_types.h - the resolved, typed scenario (ks_scenario): every
 * section's values side by side, plus the run's limits.
 *
 * Owns: the ks_scenario and ks_limits_conf structs, and nothing else;
 * header-only, it pairs with no .c. It includes only the sections' type
 * headers (the header-only NAME_conf.h beside each NAME_section.h), sim/
 * and models/kafka/, so that each section's .c fills the struct in
 * without including models/scenario.h, which gathers those sections.
 * Everyone else includes models/scenario.h.
 *
 * Ownership: ks_scenario_load (models/scenario.h) allocates a scenario;
 * ks_scenario_free releases everything, including strings that configs
 * point at.
 */
#ifndef KS_SCENARIO_TYPES_H
#define KS_SCENARIO_TYPES_H

#include "models/broker/broker_conf.h"
#include "models/broker/topic_conf.h"
#include "models/consumer/consumer_conf.h"
#include "models/kafka/config.h"
#include "models/net/fault_conf.h"
#include "models/net/network_conf.h"
#include "models/producer/producer_conf.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ks_limits_conf {
    uint64_t max_events;
    ks_time max_time_ns;
    uint32_t max_pending;
} ks_limits_conf;

typedef struct ks_scenario {
    char *file;                /* as given, for messages */
    char *name;
    char *description;
    uint64_t seed;
    char *kafka_version_text;
    ks_kafka_version kafka_version;
    ks_limits_conf limits;

    uint32_t broker_count;
    ks_cfg_value broker_config[KS_BCFG__COUNT];
    ks_broker_cost broker_cost;       /* brokers.cost, common to all */
    ks_broker_cost *broker_costs;     /* per broker, with overrides */
    bool *broker_overridden;          /* per broker: has an override */

    ks_network_conf network;

    uint32_t topic_count;
    ks_topic_conf *topics;
    uint32_t producer_count;
    ks_producer_conf *producers;
    uint32_t consumer_count;
    ks_consumer_conf *consumers;

    ks_time metrics_bucket_ns;  /* metrics.bucket.ms; 0 = no series */

    uint32_t admin_count;
    ks_admin_op *admin;         /* in time order (stable for equal times) */

    uint32_t fault_count;
    ks_fault_conf *faults;      /* as listed */

    /* Brokers' idempotent-producer state: batches kept per producer id
     * and partition (Kafka's NUM_BATCHES_TO_RETAIN, 5), and the first
     * producer id the cluster hands out. */
    uint32_t producer_state_batches;
    int64_t first_producer_id;

    json_t *expect;   /* the expect block as written, NULL if none */
    json_t *doc;      /* the document after --set, for messages */
} ks_scenario;

#endif
