/*
 * network_conf.h - the type of the scenario's "network" section
 * (docs/scenario.md): a link's latency and bandwidth.
 *
 * Owns: that type, and nothing else; header-only, it pairs with no .c.
 * models/net/network_section.h loads it, ks_scenario
 * (models/scenario_types.h) holds it, models/net/network.c reads it.
 */
#ifndef KS_NETWORK_CONF_H
#define KS_NETWORK_CONF_H

#include "sim/dist.h"

#include <stdint.h>

typedef struct ks_network_conf {
    ks_dist latency;           /* one-way, per message */
    uint64_t bandwidth_bps;    /* per link and direction; 0 = unlimited */
} ks_network_conf;

#endif
