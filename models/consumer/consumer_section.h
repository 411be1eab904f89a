/*
 * consumer_section.h - the scenario's "consumers" section
 * (docs/scenario.md): what each consumer reads, how it polls, and how it
 * commits its offsets.
 *
 * Owns: the commit modes' name table, and loading the section through
 * the generic loader (sim/conf.h) with its defaults and checks (its topic
 * and partitions exist, forward.to names a producer), and writing it
 * back. The types are models/consumer/consumer_conf.h's; the values live
 * in ks_scenario (models/scenario_types.h), which models/consumer/ reads.
 */
#ifndef KS_CONSUMER_SECTION_H
#define KS_CONSUMER_SECTION_H

#include "models/consumer/consumer_conf.h"
#include "sim/conf.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ks_scenario ks_scenario;

const char *ks_commit_mode_name(ks_commit_mode m);

/* Reads root's "consumers" (none when absent) into sc. Needs the topics,
 * the admin operations (partitions added later count) and the producers. */
void ks_consumer_section_load(ks_conf *L, json_t *root, ks_scenario *sc);
/* The resolved "consumers" array, or NULL when there are none. */
json_t *ks_consumer_section_json(const ks_scenario *sc);
void ks_consumer_section_free(ks_scenario *sc);

#endif
