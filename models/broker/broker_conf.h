/*
 * broker_conf.h - the types of the scenario's "brokers" section
 * (docs/scenario.md): the brokers' costs.
 *
 * Owns: those types, and nothing else; header-only, it pairs with no .c.
 * models/broker/broker_section.h loads them, ks_scenario
 * (models/scenario_types.h) holds them, models/broker/ reads them.
 */
#ifndef KS_BROKER_CONF_H
#define KS_BROKER_CONF_H

#include "sim/sim.h"

#include <stdint.h>

/* Broker costs (docs/scenario.md, "cost model"). */
typedef struct ks_broker_cost {
    ks_time request_ns;        /* fixed cost of handling one request */
    ks_time batch_ns;          /* cost of each partition's batch appended */
    int64_t byte_ps;           /* cost per byte appended, picoseconds */
    ks_time response_delay_ns; /* added before every response leaves */
    ks_time txn_log_write_ns;  /* a coordinator's write to __transaction_state */
    ks_time idempotent_batch_ns; /* per batch with a producer id: the
                                    producer-state lookup and sequence check */
} ks_broker_cost;

#endif
