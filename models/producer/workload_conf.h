/*
 * workload_conf.h - the types of a producer's "workload"
 * (docs/scenario.md): arrivals (an X-macro list; the name table is
 * ks_arrival_name, workload_section.h), picks, and the workload itself.
 *
 * Owns: those types, and nothing else; header-only, it pairs with no .c.
 * models/producer/workload_section.h loads them, the producer's
 * application (models/producer/) reads them.
 *
 * Ownership: a loaded ks_workload_conf owns its keys, value sizes and key
 * prefix; ks_workload_free releases them.
 */
#ifndef KS_WORKLOAD_CONF_H
#define KS_WORKLOAD_CONF_H

#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

#define KS_ARRIVALS(X)               \
    X(CONSTANT, "constant")          \
    X(POISSON, "poisson")            \
    X(BURST, "burst")

/* How a workload picks keys and value sizes. */
typedef enum ks_pick { KS_PICK_CYCLE, KS_PICK_UNIFORM, KS_PICK_ZIPF } ks_pick;

typedef enum ks_arrival {
#define X(e, name) KS_ARRIVAL_##e,
    KS_ARRIVALS(X)
#undef X
    KS_ARRIVAL__COUNT
} ks_arrival;

/* What one producer's application does. */
typedef struct ks_workload_conf {
    uint64_t records;       /* send() calls in all */
    ks_arrival arrival;
    double rate_per_sec;    /* mean send() calls per second */
    ks_time interval_ns;    /* 1 / rate, rounded; the constant gap */
    ks_time start_ns;       /* first send() */
    /* Keys and value sizes of successive records, repeating: record i
     * has keys[i % key_count] (NULL: no key) and value_bytes[i % n]. */
    char **keys;
    uint32_t key_count;     /* >= 1 */
    bool key_list;          /* given as an array */
    uint32_t *value_bytes;
    uint32_t value_count;   /* >= 1 */
    bool value_list;        /* given as an array */
    /* Or drawn: keys prefix + 0..key_space-1, uniformly or Zipf(s) (rank
     * 1 the most frequent); value sizes uniform in [value_min, value_max]. */
    ks_pick key_pick;
    uint32_t key_space;
    double zipf_s;
    char *key_prefix;
    ks_pick value_pick;
    uint32_t value_min, value_max;
    /* arrival "burst": burst_records send() calls every burst_interval_ns */
    uint32_t burst_records;
    ks_time burst_interval_ns;
} ks_workload_conf;

#endif
