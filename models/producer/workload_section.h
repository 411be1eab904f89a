/*
 * workload_section.h - a producer's "workload" (docs/scenario.md): how many
 * send() calls, when (arrival, rate, bursts), and the keys and value sizes
 * of successive records.
 *
 * Owns: the arrivals' name table and loading one "workload" object through
 * the generic loader (sim/conf.h), with its defaults, and writing it back.
 * The types are models/producer/workload_conf.h's; the producer's
 * application (models/producer/) reads the result.
 *
 * Ownership: a loaded ks_workload_conf owns its keys, value sizes and key
 * prefix; ks_workload_free releases them.
 */
#ifndef KS_WORKLOAD_SECTION_H
#define KS_WORKLOAD_SECTION_H

#include "models/producer/workload_conf.h"
#include "sim/conf.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ks_scenario ks_scenario;

const char *ks_arrival_name(ks_arrival a);

/* Reads the "workload" object `obj` (NULL: all defaults) at the current
 * path into *w. */
void ks_workload_load(ks_conf *L, json_t *obj, ks_workload_conf *w);
/* The resolved "workload" object. */
json_t *ks_workload_json(const ks_workload_conf *w);
void ks_workload_free(ks_workload_conf *w);

#endif
