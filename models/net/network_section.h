/*
 * network_section.h - the scenario's "network" section (docs/scenario.md):
 * every link's one-way latency (a constant or a distribution) and its
 * bandwidth.
 *
 * Owns: loading the section through the generic loader (sim/conf.h), with
 * its defaults, and writing it back. The type is models/net/
 * network_conf.h's; the values live in ks_scenario (models/
 * scenario_types.h); models/net/network.c reads them.
 */
#ifndef KS_NETWORK_SECTION_H
#define KS_NETWORK_SECTION_H

#include "models/net/network_conf.h"
#include "sim/conf.h"
#include "sim/dist.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ks_scenario ks_scenario;

/* Reads root's "network" (defaults when absent) into sc. */
void ks_network_section_load(ks_conf *L, json_t *root, ks_scenario *sc);
/* The resolved "network" object. */
json_t *ks_network_section_json(const ks_scenario *sc);

#endif
