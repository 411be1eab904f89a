/*
 * producer_section.h - the scenario's "producers" section (docs/scenario.md):
 * each producer's id, topic, partitioner, Kafka config, workload, costs,
 * compression and transactions.
 *
 * Owns: the name tables of the producer's scenario vocabulary, and loading
 * the section through the generic loader (sim/conf.h) with its defaults and
 * checks, and writing its resolved form back. The types are
 * models/producer/producer_conf.h's; the values live in ks_scenario
 * (models/scenario_types.h), which models/producer/ reads; nothing here
 * runs a producer.
 */
#ifndef KS_PRODUCER_SECTION_H
#define KS_PRODUCER_SECTION_H

#include "models/kafka/config.h"
#include "models/producer/producer_conf.h"
#include "models/producer/workload_section.h"
#include "sim/conf.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ks_scenario ks_scenario;

const char *ks_partitioner_choice_name(ks_partitioner_choice c);

const char *ks_txn_end_name(ks_txn_end e);
const char *ks_txn_protocol_name(ks_txn_protocol p);

/* Reads root's "producers" (at least one) into sc. Needs the topics
 * (clients name them) and sc->kafka_version. */
void ks_producer_section_load(ks_conf *L, json_t *root, ks_scenario *sc);
/* The resolved "producers" array. */
json_t *ks_producer_section_json(const ks_scenario *sc);
void ks_producer_section_free(ks_scenario *sc);

#endif
