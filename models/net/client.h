/*
 * client.h - a client's side of one connection: the requests in flight
 * on it, oldest first, their request.timeout.ms, and answers handed over
 * in request order ([K] clients/.../NetworkClient.java, InFlightRequests,
 * handleTimedOutRequests).
 *
 * Owns: per connection, the requests sent and not yet answered (a ring,
 * oldest first), when each left, whether its answer has come, the
 * connection's generation and the timer of the oldest request. A lost message is a silence: the
 * client learns of it only when the timer finds the oldest request past
 * its deadline; then the owner closes the connection and every request
 * on it fails. An answer to a request no longer in flight (its
 * connection closed meanwhile) is ignored, as NetworkClient ignores an
 * unknown correlation id. An answer that comes while an older request on
 * the connection is unanswered waits behind it (the connection delivers
 * in order), and is dropped with it when the connection closes.
 *
 * The timer is one event of the owner's (a template given at each call:
 * kind, owner, tag, arg), scheduled as a daemon at the oldest request's
 * deadline and cancelled when nothing is in flight any more. A daemon,
 * so that a timer keeps no run alive; a connection on which the network
 * lost a message holds the run open instead until it is closed
 * (network.h, ks_net_lost), so that the timer runs.
 *
 * Never: reads a message's fate, or decides what an answer means or
 * what a failed request is retried as: its owner does.
 */
#ifndef KS_CLIENT_H
#define KS_CLIENT_H

#include "sim/sim.h"
#include "sim/trace.h"

#include <stdbool.h>
#include <stdint.h>

#define KS_CLIENT_NONE UINT32_MAX

typedef struct ks_client_req {
    uint32_t id;        /* the request (a message pool index) */
    ks_time sent_ns;    /* when it left */
    bool arrived;       /* its answer is here, waiting for older ones */
} ks_client_req;

typedef struct ks_client_conn {
    uint32_t conn;      /* the network connection, KS_CLIENT_NONE until opened */
    uint32_t gen;       /* +1 each time it closes */
    ks_client_req *ring;/* requests in flight, oldest at head */
    uint32_t head, len, cap;
    ks_handle timer;    /* the oldest request's deadline, or KS_HANDLE_NONE */
    ks_time timer_at;
} ks_client_conn;

/* An unopened connection with nothing in flight. */
void ks_client_conn_init(ks_client_conn *cc);
void ks_client_conn_free(ks_client_conn *cc);

/* Request `id` left at sent_ns: it is in flight, the newest. Arms the
 * timer (a daemon of template `timer`, at the oldest request's sent_ns +
 * timeout_ns) when it is the only one. False when out of memory. */
bool ks_client_sent(ks_client_conn *cc, ks_sim *sim, uint32_t id, ks_time sent_ns,
                    ks_time timeout_ns, const ks_event *timer);

/* The answer to request `id` reached the client: true when the request
 * is in flight on cc (then it is marked arrived), false when it is not
 * (the answer is to be ignored). */
bool ks_client_arrived(ks_client_conn *cc, uint32_t id);

/* The oldest request when its answer has come: taken off the ring and
 * returned; else KS_CLIENT_NONE. The owner handles answers in a loop of
 * this, then calls ks_client_rearm. */
uint32_t ks_client_take_answered(ks_client_conn *cc);

/* After answers were taken: the timer follows the oldest request left
 * (cancelled when none is). */
void ks_client_rearm(ks_client_conn *cc, ks_sim *sim, ks_time timeout_ns, const ks_event *timer);

/* The timer ran: true when the oldest request is past its deadline (the
 * owner closes the connection); else it is armed again for the oldest
 * and false is returned. */
bool ks_client_on_timer(ks_client_conn *cc, ks_sim *sim, ks_time timeout_ns,
                        const ks_event *timer);

/* Closing: the generation moves on and the timer is cancelled. Returns
 * how many requests were in flight: the owner then takes that many,
 * oldest first, with ks_client_take, and fails each (a request sent
 * again meanwhile, on the connection opened anew, comes after them and
 * is not among them). */
uint32_t ks_client_close(ks_client_conn *cc, ks_sim *sim);
/* The oldest request in flight, taken off the ring; KS_CLIENT_NONE when
 * none is left. */
uint32_t ks_client_take(ks_client_conn *cc);

/* Requests in flight. */
static inline uint32_t ks_client_in_flight(const ks_client_conn *cc) { return cc->len; }
/* The oldest request's id, or KS_CLIENT_NONE. */
static inline uint32_t ks_client_oldest(const ks_client_conn *cc)
{
    return cc->len ? cc->ring[cc->head].id : KS_CLIENT_NONE;
}

/* A paused owner's timer event moved to `at` under handle h. */
static inline void ks_client_rehandle(ks_client_conn *cc, ks_handle h, ks_time at)
{
    cc->timer = h;
    cc->timer_at = at;
}

/* A "disconnect" trace line at `now` (trace kind `kind`): the request
 * timeout (timeout_ns) of the client named by the field `key` with value
 * `id` closed its connection to `broker` (on `channel`, NULL: the only
 * one), with n requests in flight. */
void ks_client_trace_disconnect(ks_trace *tr, unsigned kind, ks_time now, const char *key,
                                const char *id, uint32_t broker, const char *channel, uint32_t n,
                                ks_time timeout_ns);

#endif
