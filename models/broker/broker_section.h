/*
 * broker_section.h - the scenario's "brokers" section (docs/scenario.md):
 * how many brokers, their Kafka config, their costs (common to all, and
 * per broker), and the idempotent-producer state they keep.
 *
 * Owns: loading that section through the generic loader (sim/conf.h),
 * with its defaults, and writing its resolved form back. The types are
 * models/broker/broker_conf.h's; the values live in ks_scenario
 * (models/scenario_types.h), which models/broker/ reads; nothing here
 * runs a broker.
 */
#ifndef KS_BROKER_SECTION_H
#define KS_BROKER_SECTION_H

#include "models/broker/broker_conf.h"
#include "sim/conf.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdint.h>

typedef struct ks_scenario ks_scenario;

/* Reads root's "brokers" (defaults when absent) into sc. Needs
 * sc->kafka_version. */
void ks_broker_section_load(ks_conf *L, json_t *root, ks_scenario *sc);
/* The resolved "brokers" object. */
json_t *ks_broker_section_json(const ks_scenario *sc);
void ks_broker_section_free(ks_scenario *sc);

#endif
