/*
 * topic_section.h - the scenario's "topics" and "admin" sections
 * (docs/scenario.md): the cluster's topics at the start, and the
 * administrative operations that add partitions to them during the run.
 *
 * Owns: loading both through the generic loader (sim/conf.h), checking
 * topic names as Kafka does and partitions only growing, resolving a
 * client's "topic" to a topic, and writing both back. The values live in
 * ks_scenario (models/scenario.h).
 */
#ifndef KS_TOPIC_SECTION_H
#define KS_TOPIC_SECTION_H

#include "models/kafka/config.h"
#include "sim/conf.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdint.h>

typedef struct ks_scenario ks_scenario;

/* Most topics a scenario has, and most partitions a topic has. */
#define KS_MAX_TOPICS 100000u
#define KS_MAX_PARTITIONS 100000u

typedef struct ks_topic_conf {
    char *name;
    uint32_t partitions;        /* at the start */
    uint32_t max_partitions;    /* after every admin operation */
    uint32_t replication_factor;
    ks_cfg_value config[KS_TCFG__COUNT]; /* "config": topic-level overrides */
} ks_topic_conf;

/* An administrative operation at a point of the run: so far
 * create.partitions (AdminClient.createPartitions, NewPartitions.
 * increaseTo(total)). */
typedef struct ks_admin_op {
    ks_time at_ns;
    uint32_t topic;
    uint32_t total;
} ks_admin_op;

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
