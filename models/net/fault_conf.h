/*
 * fault_conf.h - the types of the scenario's "faults" section
 * (docs/scenario.md): the fault types (an X-macro list; the name table is
 * ks_fault_type_name, fault_section.h) and a fault with its selectors.
 *
 * Owns: those types, and nothing else; header-only, it pairs with no .c.
 * models/net/fault_section.h loads them, ks_scenario
 * (models/scenario_types.h) holds them, models/net/faults.c injects them.
 *
 * Ownership: a fault's name, stream and note are its own strings,
 * released by ks_fault_section_free.
 */
#ifndef KS_FAULT_CONF_H
#define KS_FAULT_CONF_H

#include "models/kafka/errors.h"
#include "sim/sim.h"

#include <stdint.h>

/* Fault injection (docs/scenario.md, "faults"). Targeted faults hit the
 * first `count` requests (or responses, or appends) that match their
 * selectors; probabilistic ones lose each message on the selected links
 * with a probability; windows hold between from and to. */
#define KS_FAULT_TYPES(X)                  \
    X(DROP_REQUEST, "drop.request")        \
    X(DROP_RESPONSE, "drop.response")      \
    X(DELAY_REQUEST, "delay.request")      \
    X(DELAY_RESPONSE, "delay.response")    \
    X(APPEND_ERROR, "append.error")        \
    X(REQUEST_LOSS, "request.loss")        \
    X(RESPONSE_LOSS, "response.loss")      \
    X(LINK_DOWN, "link.down")              \
    X(PAUSE_BROKER, "pause.broker")        \
    X(PAUSE_PRODUCER, "pause.producer")    \
    X(CRASH_PRODUCER, "crash.producer")    \
    X(CRASH_CONSUMER, "crash.consumer")

typedef enum ks_fault_type {
#define X(e, name) KS_FAULT_##e,
    KS_FAULT_TYPES(X)
#undef X
    KS_FAULT__COUNT
} ks_fault_type;

typedef struct ks_fault_conf {
    ks_fault_type type;
    int32_t producer;       /* producer index; -1: any */
    int32_t broker;         /* -1: any */
    int32_t topic;          /* with partition: a topic index; -1: any */
    int32_t partition;      /* partition number in the topic; -1: any */
    ks_api api;             /* targeted: requests of this API (Produce) */
    int64_t request;        /* the producer's request number of that API; -1: any */
    ks_time after_ns;       /* targeted: only at or after this time */
    uint32_t count;         /* targeted: how many to hit */
    ks_time delay_ns;       /* delay.* */
    ks_kerr error;          /* append.error */
    double probability;     /* *.loss */
    ks_time from_ns, to_ns; /* windows and *.loss; to_ns KS_TIME_MAX: open;
                               crash.*: at = from_ns, restart = to_ns (consumers) */
    int32_t consumer;       /* crash.consumer */
    int32_t forward_to;     /* crash.consumer: the producer it forwards to after
                               the restart, or -1 (the same) */
    char *note;             /* free text, or NULL */
    char *name;             /* "name" as given (unique among the faults), or NULL */
    char *stream;           /* its random stream: "fault.NAME", or "fault.HASH" derived
                               from its content (ks_fault_section_load) */
} ks_fault_conf;

#endif
