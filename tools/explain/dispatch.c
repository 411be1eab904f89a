/*
 * dispatch.c - the dispatch of one trace line of `ksim explain` to the
 * handler of its kind (send.c, faults.c, broker.c, answers.c, producer.c,
 * consumer.c), a message's by its client (a producer, a consumer, a
 * broker as a client), and the end line.
 *
 * Owns: which kinds are drawn and which are passed over, and when a
 * request fault waiting for its send line is drawn on its own. Never:
 * draws a step itself.
 */
#include "tools/explain/internal.h"

#include <string.h>

/* The end line: the step before is drawn, and [RESULT] will say how the
 * run ended. */
static void on_end(explain *e, ks_tline *j, int64_t t)
{
    ks_ex_step_flush(e);
    e->ended = true;
    e->end_t = t;
    ks_ex_copy_str(e->verdict, sizeof e->verdict, ks_tl_str(j, "verdict", ""));
}

/* A request fault waits for its send line: is this line that one? */
static bool is_pending_send(explain *e, ks_tline *j)
{
    return j->kind == KS_TR_SEND && ks_ex_lane_eq(ks_ex_client_of(e, j), e->pf.client) &&
           ks_tl_int(j, "request", -1) == e->pf.request &&
           strcmp(ks_tl_str(j, "api", ""), e->pf.api) == 0;
}

/* A send or response line's handler, by its client: a producer's, a
 * consumer's (consumer.c), a broker's own (broker.c). */
static void (*message_handler(ks_tline *j))(explain *e, ks_tline *j, int64_t t)
{
    bool send = j->kind == KS_TR_SEND;
    if (ks_tl_has(j, "consumer"))
        return send ? ks_ex_on_consumer_send : ks_ex_on_consumer_response;
    if (ks_tl_has(j, "client"))
        return send ? ks_ex_on_broker_send : ks_ex_on_broker_response;
    return send ? ks_ex_on_send : ks_ex_on_response;
}

/* The handler of a kind; NULL for the kinds explain does not draw (or
 * does not know, which the format asks readers to skip). */
static void (*handler_of(ks_trace_kind k))(explain *e, ks_tline *j, int64_t t)
{
    switch (k) {
    case KS_TR_PRODUCE: return ks_ex_on_produce;
    case KS_TR_DRAIN: return ks_ex_on_drain;
    case KS_TR_SEND: return ks_ex_on_send;
    case KS_TR_APPEND: return ks_ex_on_append;
    case KS_TR_FAULT: return ks_ex_on_fault;
    case KS_TR_RESPONSE: return ks_ex_on_response;
    case KS_TR_ACK: return ks_ex_on_ack;
    case KS_TR_RETRY: return ks_ex_on_retry;
    case KS_TR_SPLIT: return ks_ex_on_split;
    case KS_TR_PRODUCER: return ks_ex_on_producer;
    case KS_TR_DISCONNECT: return ks_ex_on_disconnect;
    case KS_TR_TXN: return ks_ex_on_txn;
    case KS_TR_MARKER: return ks_ex_on_marker;
    case KS_TR_CONSUME: return ks_ex_on_consume;
    case KS_TR_OFFSET_COMMIT: return ks_ex_on_offset_commit;
    case KS_TR_FORWARD: return ks_ex_on_forward;
    case KS_TR_ADMIN: return ks_ex_on_admin;
    case KS_TR_METADATA: return ks_ex_on_metadata;
    case KS_TR_END: return on_end;
    case KS_TR_HEADER:
    case KS_TR_METRICS:
    case KS_TR_ARRIVE:
    case KS_TR_EVENT:
    case KS_TR__COUNT:
        break;
    }
    return NULL;
}

/* Dispatches one trace line (not the header). The kinds explain never
 * reads (metrics, arrive, event) are passed over; any other line ends a
 * request fault waiting for its send line. */
void ks_ex_handle_line(explain *e, ks_tline *j)
{
    if (j->kind == KS_TR_METRICS || j->kind == KS_TR_ARRIVE || j->kind == KS_TR_EVENT)
        return;
    if (e->pf.on && !is_pending_send(e, j))
        ks_ex_flush_pending_fault(e);
    void (*fn)(explain *e, ks_tline *j, int64_t t) =
        j->kind == KS_TR_SEND || j->kind == KS_TR_RESPONSE ? message_handler(j)
                                                          : handler_of(j->kind);
    if (fn)
        fn(e, j, j->t);
}
