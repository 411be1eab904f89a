/*
 * events.h - the simulation's event kinds: the one X-macro list from
 * which the kind enum and the kind names are generated, so the two
 * cannot drift apart. A name is what the trace prints for an event of
 * that kind at level "debug" and in the summary's per-kind event counts.
 *
 * Owns: what the three words of a sim/event.h event mean for each kind:
 *   kind       owner        tag                  arg
 *   timer      producer     KS_TIMER_* (producer.h)  per tag
 *   admin      admin op     -                    -
 *   metrics    -            -                    -
 *   produce    producer     -                    -    the application's next send()
 *   sender     producer     -                    -    the sender thread runs
 *   arrive     connection   broker               request  a request reaches the broker
 *   append     connection   broker               request  the broker handled it
 *   responded  connection   broker               request  its response is written
 *   response   connection   broker               request  the response reaches the producer
 *   fault      fault        1 opens / 0 closes   -    (a daemon)
 *   consumer   consumer     KS_CONSUMER_*        generation
 *   txn        transaction  KS_COORD_*           per tag
 *   broker     broker       KS_BROKER_*          per tag
 */
#ifndef KS_EVENTS_H
#define KS_EVENTS_H

#include "sim/event.h"

#define KS_EVENT_KINDS(X)        \
    X(TIMER, "timer")            \
    X(ADMIN, "admin")            \
    X(METRICS, "metrics")        \
    X(PRODUCE, "produce")        \
    X(SENDER, "sender")          \
    X(ARRIVE, "arrive")          \
    X(APPEND, "append")          \
    X(RESPONDED, "responded")    \
    X(RESPONSE, "response")      \
    X(FAULT, "fault")            \
    X(CONSUMER, "consumer")      \
    X(TXN, "txn")                \
    X(BROKER, "broker")

typedef enum ks_event_kind {
#define X(e, name) KS_EV_##e,
    KS_EVENT_KINDS(X)
#undef X
    KS_EV__COUNT
} ks_event_kind;

_Static_assert(KS_EV__COUNT <= KS_EVENT_KINDS_MAX, "the engine counts events per kind");

/* The trace name of an event kind ("timer", "produce", ...). */
const char *ks_event_kind_name(ks_event_kind kind);

#endif
