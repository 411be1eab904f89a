/*
 * event.h - what the engine schedules: a kind and three words.
 *
 * Owns: the shape of an event, not its meaning. The kinds are the models'
 * (models/events.h lists them in one X-macro that also gives their names
 * for the trace); the engine only counts events per kind and hands them
 * back in (time, seq) order.
 *
 * Events hold indices and ids only, never pointers: an event can be
 * printed, hashed and compared, and its meaning does not depend on where
 * memory happened to be.
 */
#ifndef KS_EVENT_H
#define KS_EVENT_H

#include <stdint.h>

typedef struct ks_event {
    uint32_t kind;  /* the models' event kind, below KS_EVENT_KINDS_MAX */
    uint32_t owner; /* whose event: a node, a model instance, a fault */
    uint32_t tag;   /* what for, in the owner's terms */
    uint64_t arg;   /* the owner's argument: an id, a generation */
} ks_event;

/* Most event kinds the engine counts. */
#define KS_EVENT_KINDS_MAX 32u

#endif
