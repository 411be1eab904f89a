/*
 * config_json.h - Kafka "config" objects of a scenario: read against a
 * config table for the selected Kafka version, and written back.
 *
 * Owns: what a config key may hold in JSON (config.h gives its type and
 * range): a key the version does not have yet, or no longer has, is an
 * error naming the release; a key no ksim model reads is accepted with a
 * warning. Reads through the generic loader (sim/conf.h), so every
 * message names the file, the path and the --set the value came from.
 *
 * Ownership: string values point into the document, which the scenario
 * keeps (models/scenario.h).
 */
#ifndef KS_KAFKA_CONFIG_JSON_H
#define KS_KAFKA_CONFIG_JSON_H

#include "models/kafka/config.h"
#include "sim/conf.h"

#include <jansson.h>
#include <stdbool.h>

/* Fills vals with the version's defaults, then reads `obj` (NULL: none)
 * over them at the loader's current path. */
void ks_cfg_load_json(ks_conf *L, json_t *obj, const ks_cfg_table *t, ks_kafka_version kv,
                      ks_cfg_value *vals);

/* A config table's values as JSON: every key the Kafka version has, or
 * only those set explicitly. Caller owns the result. */
json_t *ks_config_json(const ks_cfg_table *t, const ks_cfg_value *vals, ks_kafka_version v,
                       bool explicit_only);

#endif
