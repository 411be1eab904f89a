/*
 * topic_section.h - the scenario's "topics" and "admin" sections
 * (docs/scenario.md): the cluster's topics at the start, and the
 * administrative operations that add partitions to them during the run.
 *
 * Owns: loading both through the generic loader (sim/conf.h), checking
 * topic names as Kafka does and partitions only growing, resolving a
 * client's "topic" to a topic, and writing both back. The types are
 * models/broker/topic_conf.h's; the values live in ks_scenario
 * (models/scenario_types.h).
 */
#ifndef KS_TOPIC_SECTION_H
#define KS_TOPIC_SECTION_H

#include "models/broker/topic_conf.h"
#include "models/kafka/config.h"
#include "sim/conf.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdint.h>

typedef struct ks_scenario ks_scenario;

/* The largest record batch topic t's leaders accept: its
 * max.message.bytes if set, else the brokers' message.max.bytes (Kafka's
 * LogConfig takes the broker's value as the topic's default). */
int64_t ks_topic_max_message_bytes(const ks_scenario *sc, uint32_t t);

/* Reads root's "topics" (default: one topic "events" of one partition).
 * Needs sc->broker_count. */
void ks_topic_section_load(ks_conf *L, json_t *root, ks_scenario *sc);
json_t *ks_topic_section_json(const ks_scenario *sc);
void ks_topic_section_free(ks_scenario *sc);

/* Resolves the "topic" of a client's object `obj` to a topic index
 * (default, and after an error: 0, the first topic). */
void ks_topic_ref_load(ks_conf *L, json_t *obj, const ks_scenario *sc, uint32_t *topic_out);

/* Reads root's "admin" and sets each topic's max_partitions; after the
 * topics. */
void ks_admin_section_load(ks_conf *L, json_t *root, ks_scenario *sc);
/* The resolved "admin" array, or NULL when there are no operations. */
json_t *ks_admin_section_json(const ks_scenario *sc);
void ks_admin_section_free(ks_scenario *sc);

#endif
