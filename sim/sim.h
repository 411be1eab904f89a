/*
 * sim.h - the discrete-event engine: virtual clock, event queue, limits.
 *
 * Owns: virtual time and the pending events. Events are ordered by
 * (time, seq), where seq is a 64-bit counter taken when the event is
 * scheduled, so ties are broken by scheduling order and never by memory
 * addresses. Knows nothing of Kafka: models schedule events and the world
 * pops them with ks_sim_next() and dispatches them in one switch.
 *
 * Never: reads a wall clock, draws randomness, or keeps global state. Two
 * ks_sim objects are fully independent.
 */
#ifndef KS_SIM_H
#define KS_SIM_H

#include "sim/event.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Virtual time: nanoseconds since the start of the scenario. */
typedef int64_t ks_time;

#define KS_NS_PER_US INT64_C(1000)
#define KS_NS_PER_MS INT64_C(1000000)
#define KS_NS_PER_S INT64_C(1000000000)
#define KS_TIME_MAX INT64_MAX

/* a + b for non-negative durations, saturating at KS_TIME_MAX: an event
 * "never" is scheduled at KS_TIME_MAX and simply never runs within the
 * limits, instead of wrapping into the past. */
static inline ks_time ks_time_add(ks_time a, ks_time b)
{
    ks_time r; /* one add and a branch on its overflow flag */
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? KS_TIME_MAX : INT64_MIN;
    return r;
}

/* A non-negative duration in ms (a Kafka config: a Java long may hold
 * Long.MAX_VALUE ms) as ns, saturating at KS_TIME_MAX instead of
 * overflowing (fuzz_scenario: linger.ms 9007199254740993). */
static inline ks_time ks_time_from_ms(int64_t ms)
{
    return ms > KS_TIME_MAX / KS_NS_PER_MS ? KS_TIME_MAX : ms * KS_NS_PER_MS;
}

/* A scheduled event, for cancellation. 0 is "no event". A handle stays
 * safe to use after its event ran or was cancelled: cancel just fails. */
typedef uint64_t ks_handle;
#define KS_HANDLE_NONE UINT64_C(0)

/* How a run ended. X(enum suffix, name used in summary and trace). */
#define KS_SIM_VERDICTS(X)                                              \
    X(RUNNING, "running")       /* not ended yet */                     \
    X(COMPLETE, "complete")     /* no event left: the scenario ran out */ \
    X(STOPPED, "stopped")       /* a model ended the run on purpose */   \
    X(MAX_EVENTS, "max-events") /* limits.max.events reached */          \
    X(MAX_TIME, "max-time")     /* next event lies past limits.max.time */ \
    X(MAX_PENDING, "max-pending") /* too many events pending at once */  \
    X(SEQUENCE_EXHAUSTED, "sequence-exhausted") /* 2^39 events scheduled */ \
    X(OUT_OF_MEMORY, "out-of-memory")                                   \
    X(INTERNAL_ERROR, "internal-error") /* a model scheduled into the past */

typedef enum ks_sim_verdict {
#define X(e, name) KS_SIM_##e,
    KS_SIM_VERDICTS(X)
#undef X
} ks_sim_verdict;

const char *ks_sim_verdict_name(ks_sim_verdict v);

/* Most events that may be pending at once (the engine packs slot indices
 * in 24 bits). */
#define KS_SIM_PENDING_MAX (UINT32_C(1) << 24)

typedef struct ks_sim_limits {
    uint64_t max_events;  /* events dispatched; 0 = no limit */
    ks_time max_time_ns;  /* last virtual instant dispatched; 0 = no limit */
    uint32_t max_pending; /* 0 = KS_SIM_PENDING_MAX */
} ks_sim_limits;

typedef struct ks_sim_slot ks_sim_slot;
typedef struct ks_sim_entry ks_sim_entry;

typedef struct ks_sim {
    ks_time now;
    uint64_t next_seq;     /* seq of the next scheduled event */
    uint64_t dispatched;   /* events handed out by ks_sim_next */
    uint64_t cancelled;    /* events cancelled before they ran */
    uint64_t dispatched_by_kind[KS_EVENT_KINDS_MAX];
    ks_sim_limits limits;
    ks_time time_limit;    /* limits with 0 ("none") made the type's max */
    uint64_t event_limit;  /* ... and 0 once the run has ended */
    ks_sim_verdict verdict;
    uint64_t seq_gate;     /* schedule() takes seqs below it: 0 once ended */

    ks_sim_entry *heap; /* binary min-heap of (time, seq|slot) */
    uint32_t heap_len, heap_cap;
    uint32_t taken_slot; /* heap[0] was dispatched and awaits removal: its
                            slot, not yet freed; UINT32_MAX: none */
    ks_sim_slot *slots; /* event payloads, indexed by slot */
    uint32_t slots_cap;
    uint32_t slots_used; /* slots from here on were never used (free) */
    uint32_t free_head; /* free-list of freed slots, UINT32_MAX = empty */
    uint32_t live;      /* scheduled, not yet run nor cancelled */
    uint32_t live_daemon; /* ... of which daemons */
    uint32_t holds;     /* ks_sim_hold()s not yet released */
    bool daemon_out;    /* the event ks_sim_next handed out last is a daemon */
} ks_sim;

/* Initialises an empty simulation at time 0. limits may be NULL. */
void ks_sim_init(ks_sim *s, const ks_sim_limits *limits);
void ks_sim_free(ks_sim *s);

/* Schedules `ev` at absolute time `at` (>= now). Returns its handle, or
 * KS_HANDLE_NONE when it cannot be stored; then the run is over and
 * s->verdict says why. */
ks_handle ks_sim_schedule(ks_sim *s, ks_time at, const ks_event *ev);
/* Schedules a daemon: an event that runs like any other but does not keep
 * the run alive. When only daemons are pending, the run is complete
 * (periodic metrics use this). */
ks_handle ks_sim_schedule_daemon(ks_sim *s, ks_time at, const ks_event *ev);
/* Schedules `ev` at now + delay (delay >= 0). */
ks_handle ks_sim_after(ks_sim *s, ks_time delay, const ks_event *ev);
/* A model holds the run open while it waits for something no event
 * stands for: a client with a request in flight that may never be
 * answered (its message lost: a silence), whose own request timeout is
 * a daemon. While holds are taken, a run with only daemons pending goes
 * on (the daemons run); it is complete when no non-daemon event is
 * pending and no hold is taken, or when nothing at all is pending.
 * ks_sim_release gives one back. */
static inline void ks_sim_hold(ks_sim *s) { s->holds++; }
static inline void ks_sim_release(ks_sim *s)
{
    if (s->holds > 0)
        s->holds--;
}
/* Was the event ks_sim_next handed out last scheduled as a daemon? (An
 * event moved to later keeps what it was.) */
static inline bool ks_sim_dispatched_daemon(const ks_sim *s) { return s->daemon_out; }
/* Cancels a pending event. Returns false if it already ran or was
 * cancelled, or if h is KS_HANDLE_NONE. */
bool ks_sim_cancel(ks_sim *s, ks_handle h);

/* Chains an event of `kind` at `at` (>= now) straight after the one
 * running, when nothing else could come between: it would be the next
 * event dispatched (every pending event lies after `at`; a tie goes to
 * the pending one) and within the limits. Then it is counted as scheduled
 * and dispatched, the clock moves to `at`, and true is returned: the
 * caller runs its handler at once, exactly as the dispatch loop would
 * have. Otherwise nothing changes and the caller schedules it. For a
 * handler that schedules its own successor (a workload's next arrival):
 * the queue round trip is skipped, nothing else changes. */
bool ks_sim_chain(ks_sim *s, ks_time at, uint32_t kind);

/* Pops the next event into *out and advances the clock to its time.
 * Returns false when the run has ended; s->verdict then says why. */
bool ks_sim_next(ks_sim *s, ks_event *out);

/* Ends the run with the given verdict (a model's decision). */
void ks_sim_stop(ks_sim *s, ks_sim_verdict v);

static inline ks_time ks_sim_now(const ks_sim *s) { return s->now; }
/* `at`, or now if that has passed: for a deadline counted from an earlier
 * moment (a request's send plus a timeout) that may already lie behind. */
static inline ks_time ks_sim_not_before_now(const ks_sim *s, ks_time at)
{
    return at > s->now ? at : s->now;
}
/* Events scheduled and neither run nor cancelled. */
static inline uint32_t ks_sim_pending(const ks_sim *s) { return s->live; }

#endif
