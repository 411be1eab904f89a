/*
 * consumer_conf.h - the types of the scenario's "consumers" section
 * (docs/scenario.md): a consumer and its commit modes (an X-macro list;
 * the name table is ks_commit_mode_name, consumer_section.h).
 *
 * Owns: those types, and nothing else; header-only, it pairs with no .c.
 * models/consumer/consumer_section.h loads them, ks_scenario
 * (models/scenario_types.h) holds them, models/consumer/ reads them.
 */
#ifndef KS_CONSUMER_CONF_H
#define KS_CONSUMER_CONF_H

#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

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

#endif
