/*
 * consumer_section.h - the scenario's "consumers" section
 * (docs/scenario.md): what each consumer reads, how it polls, and how it
 * commits its offsets.
 *
 * Owns: the consumer's scenario vocabulary, and loading the section
 * through the generic loader (sim/conf.h) with its defaults and checks
 * (its topic and partitions exist, forward.to names a producer), and
 * writing it back. The values live in ks_scenario (models/scenario.h),
 * which models/consumer/ reads.
 */
#ifndef KS_CONSUMER_SECTION_H
#define KS_CONSUMER_SECTION_H

#include "sim/conf.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ks_scenario ks_scenario;

/* How a consumer commits its offsets. */
#define KS_COMMIT_MODES(X)            \
    X(NONE, "none")                   \
    X(SYNC, "sync")                   \
    X(TRANSACTION, "transaction")

typedef enum ks_commit_mode {
#define X(e, name) KS_COMMIT_##e,
    KS_COMMIT_MODES(X)
#undef X
    KS_COMMIT__COUNT
} ks_commit_mode;

const char *ks_commit_mode_name(ks_commit_mode m);

/* A consumer (docs/scenario.md, "consumers"). */
typedef struct ks_consumer_conf {
    char *id;
    uint32_t topic;
    uint32_t *partitions;      /* partition numbers it reads */
    uint32_t partition_count;
    bool all_partitions;       /* not given: every partition the topic has at the start */
    bool read_committed;       /* isolation.level */
    char *group_id;
    ks_time start_ns;
    ks_time poll_interval_ns;  /* between the end of one poll's processing and the next poll */
    uint32_t max_poll_records;
    ks_time process_ns;        /* the application's time per record */
    ks_commit_mode commit;
    int32_t forward_to;        /* consume-transform-produce: producer index, or -1 */
    ks_time fetch_max_wait_ns; /* fetch.max.wait.ms: how long a leader holds an empty fetch */
    bool reset_earliest;       /* auto.offset.reset: earliest (else latest) */
} ks_consumer_conf;

/* Reads root's "consumers" (none when absent) into sc. Needs the topics,
 * the admin operations (partitions added later count) and the producers. */
void ks_consumer_section_load(ks_conf *L, json_t *root, ks_scenario *sc);
/* The resolved "consumers" array, or NULL when there are none. */
json_t *ks_consumer_section_json(const ks_scenario *sc);
void ks_consumer_section_free(ks_scenario *sc);

#endif
