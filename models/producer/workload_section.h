/*
 * workload_section.h - a producer's "workload" (docs/scenario.md): how many
 * send() calls, when (arrival, rate, bursts), and the keys and value sizes
 * of successive records.
 *
 * Owns: the workload's vocabulary and loading one "workload" object through
 * the generic loader (sim/conf.h), with its defaults, and writing it back.
 * The producer's application (models/producer/) reads the result.
 *
 * Ownership: a loaded ks_workload_conf owns its keys, value sizes and key
 * prefix; ks_workload_free releases them.
 */
#ifndef KS_WORKLOAD_SECTION_H
#define KS_WORKLOAD_SECTION_H

#include "sim/conf.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ks_scenario ks_scenario;

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

const char *ks_arrival_name(ks_arrival a);

/* Reads the "workload" object `obj` (NULL: all defaults) at the current
 * path into *w. */
void ks_workload_load(ks_conf *L, json_t *obj, ks_workload_conf *w);
/* The resolved "workload" object. */
json_t *ks_workload_json(const ks_workload_conf *w);
void ks_workload_free(ks_workload_conf *w);

#endif
