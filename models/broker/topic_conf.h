/*
 * topic_conf.h - the types of the scenario's "topics" and "admin"
 * sections (docs/scenario.md): a topic, an administrative operation, and
 * the limits on their number.
 *
 * Owns: those types, and nothing else; header-only, it pairs with no .c.
 * models/broker/topic_section.h loads them, ks_scenario
 * (models/scenario_types.h) holds them.
 */
#ifndef KS_TOPIC_CONF_H
#define KS_TOPIC_CONF_H

#include "models/kafka/config.h"
#include "sim/sim.h"

#include <stdint.h>

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

#endif
