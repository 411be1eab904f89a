/*
 * broker_section.h - the scenario's "brokers" section (docs/scenario.md):
 * how many brokers, their Kafka config, their costs (common to all, and
 * per broker), and the idempotent-producer state they keep.
 *
 * Owns: loading that section through the generic loader (sim/conf.h),
 * with its defaults, and writing its resolved form back. The values live
 * in ks_scenario (models/scenario.h), which models/broker/ reads; nothing
 * here runs a broker.
 */
#ifndef KS_BROKER_SECTION_H
#define KS_BROKER_SECTION_H

#include "sim/conf.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdint.h>

typedef struct ks_scenario ks_scenario;

/* Broker costs (docs/scenario.md, "cost model"). */
typedef struct ks_broker_cost {
    ks_time request_ns;        /* fixed cost of handling one request */
    ks_time batch_ns;          /* cost of each partition's batch appended */
    int64_t byte_ps;           /* cost per byte appended, picoseconds */
    ks_time response_delay_ns; /* added before every response leaves */
    ks_time txn_log_write_ns;  /* a coordinator's write to __transaction_state */
    ks_time idempotent_batch_ns; /* per batch with a producer id: the
                                    producer-state lookup and sequence check */
} ks_broker_cost;

/* Reads root's "brokers" (defaults when absent) into sc. Needs
 * sc->kafka_version. */
void ks_broker_section_load(ks_conf *L, json_t *root, ks_scenario *sc);
/* The resolved "brokers" object. */
json_t *ks_broker_section_json(const ks_scenario *sc);
void ks_broker_section_free(ks_scenario *sc);

#endif
