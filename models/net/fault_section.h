/*
 * fault_section.h - the scenario's "faults" section (docs/scenario.md):
 * the faults injected into the network, the brokers and the clients.
 *
 * Owns: the fault types' name table, and loading the section through the
 * generic loader (sim/conf.h), checking that each fault names clients,
 * brokers and partitions that exist, naming each fault's random stream,
 * and writing it back. The types (fault types, selectors) are
 * models/net/fault_conf.h's; the values live in ks_scenario
 * (models/scenario_types.h); models/net/faults.c injects them.
 *
 * Ownership: a fault's name, stream and note are its own strings,
 * released by ks_fault_section_free.
 */
#ifndef KS_FAULT_SECTION_H
#define KS_FAULT_SECTION_H

#include "models/kafka/errors.h"
#include "models/net/fault_conf.h"
#include "sim/conf.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ks_scenario ks_scenario;

const char *ks_fault_type_name(ks_fault_type t);

/* Reads root's "faults" (none when absent) into sc. After every other
 * section a fault can name. When the section has no error, names every
 * fault's stream: "fault.NAME" for a fault with a "name"; else
 * "fault.HASH", HASH the FNV-1a 64 of the fault's resolved JSON without
 * "note" (keys sorted, compact) in 16 hex digits, with "#2", "#3"...
 * appended for the second, third... fault of the same content, in
 * scenario order. So a fault's draws never depend on its position. */
void ks_fault_section_load(ks_conf *L, json_t *root, ks_scenario *sc);
/* The resolved "faults" array, or NULL when there are none. */
json_t *ks_fault_section_json(const ks_scenario *sc);
void ks_fault_section_free(ks_scenario *sc);

#endif
