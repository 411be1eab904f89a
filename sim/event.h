/*
 * event.h - the simulation's event kinds and their payloads.
 *
 * Owns: the one X-macro list KS_EVENT_KINDS from which the kind enum and
 * the kind names are generated, so the two cannot drift apart. A name is
 * what the trace prints for an event of that kind at level "debug" and in
 * the summary's per-kind event counts.
 *
 * Payloads hold indices and ids only, never pointers: an event can be
 * printed, hashed and compared, and its meaning does not depend on where
 * memory happened to be. Keep the union at 24 bytes or less (the engine
 * stores events in 40-byte slots; see sim.c).
 */
#ifndef KS_EVENT_H
#define KS_EVENT_H

#include <stdint.h>

/* A generic timer: `owner` and `tag` say whose and what for; `arg` is the
 * owner's. Used by tests, benchmarks and model timeouts. */
typedef struct ks_ev_timer {
    uint32_t owner;
    uint32_t tag;
    uint64_t arg;
} ks_ev_timer;

/* Something for producer `producer`: its application's next send(), or
 * its sender thread's next run. */
typedef struct ks_ev_producer {
    uint32_t producer;
} ks_ev_producer;

/* Admin operation number `op` of the scenario takes effect. */
typedef struct ks_ev_admin {
    uint32_t op;
} ks_ev_admin;

/* A request or response on the connection `conn` (a producer-broker
 * pair), identified by its correlation id `request`. */
typedef struct ks_ev_request {
    uint32_t conn;
    uint32_t broker;
    uint64_t request;
} ks_ev_request;

/*
 * X(ENUM_SUFFIX, "trace name", payload type, union member)
 *   timer     generic timer
 *   admin     an administrative operation (create.partitions) takes effect
 *   metrics   a metrics bucket closes (a daemon: it keeps no run alive)
 *   produce   the application hands a record to the producer
 *   sender    the producer's sender thread runs: ready check, drain, send
 *   arrive    a produce request reaches the broker (after link delay)
 *   append    the broker has processed a request and appends it
 *   responded the broker has written a response: its connection takes the
 *             next request
 *   response  a produce response reaches the producer
 *   fault     a fault window opens (tag 1) or closes (tag 0); owner is the
 *             fault's index (a daemon)
 *   consumer  a consumer's poll cycle (owner: consumer; tag: which step)
 *   txn       a transaction coordinator's step (owner: transaction; tag:
 *             log write done, marker, marker answer, timeout scan)
 */
#define KS_EVENT_KINDS(X)                                   \
    X(TIMER, "timer", ks_ev_timer, timer)                   \
    X(ADMIN, "admin", ks_ev_admin, admin)                   \
    X(METRICS, "metrics", ks_ev_timer, timer)               \
    X(PRODUCE, "produce", ks_ev_producer, producer)         \
    X(SENDER, "sender", ks_ev_producer, producer)           \
    X(ARRIVE, "arrive", ks_ev_request, request)             \
    X(APPEND, "append", ks_ev_request, request)             \
    X(RESPONDED, "responded", ks_ev_request, request)       \
    X(RESPONSE, "response", ks_ev_request, request)         \
    X(FAULT, "fault", ks_ev_timer, timer)                   \
    X(CONSUMER, "consumer", ks_ev_timer, timer)             \
    X(TXN, "txn", ks_ev_timer, timer)

typedef enum ks_event_kind {
#define X(e, name, type, member) KS_EV_##e,
    KS_EVENT_KINDS(X)
#undef X
    KS_EV__COUNT
} ks_event_kind;

typedef union ks_event_payload {
    ks_ev_timer timer;
    ks_ev_producer producer;
    ks_ev_admin admin;
    ks_ev_request request;
} ks_event_payload;

typedef struct ks_event {
    ks_event_kind kind;
    ks_event_payload u;
} ks_event;

_Static_assert(sizeof(ks_event_payload) <= 24, "event payload must stay <= 24 bytes");

/* The trace name of an event kind ("timer", "produce", ...). */
const char *ks_event_kind_name(ks_event_kind kind);

#endif
