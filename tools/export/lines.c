/*
 * lines.c - one trace line as Chrome events, by its kind (docs/trace.md).
 *
 * Requests (every client's: producers, consumers, brokers) and batches
 * are requests.c's; the others are instants ("i") carrying the line's
 * fields as args, on the track of the node they happen at: a message's
 * fault on its client's own track, a producer's state changes and
 * metadata on its own track, send() and acks on its application track;
 * a broker's arrivals, a partition's appends and markers, the
 * coordinator's transaction states; a consumer's polls and commits. A
 * fault is stamped when it strikes (at_t when the line has one); a fault
 * window's begin and end and a crash are process-wide instants of the
 * node selected, or global when none is. The metrics buckets are
 * counters ("C") of the run, sampled at each bucket's start; the end is a
 * global instant; each engine event (debug level) an instant of the run.
 * Kinds this ksim does not know are skipped, as the format asks readers
 * to.
 */
#include "tools/export/internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The node of the broker in field key; SIZE_MAX (error set) when it is
 * not one of the run's. */
static size_t broker_node(exporter *x, ks_tline *l, const char *key)
{
    int64_t b = ks_tl_int(l, key, -1);
    if (ks_tline_error(l))
        return SIZE_MAX;
    if (b < 0 || (uint64_t)b >= x->nbrokers) {
        ks_xp_fail(x, "field \"%s\": expected a broker of the run (0 to %zu), got %" PRId64, key,
                   x->nbrokers ? x->nbrokers - 1 : 0, b);
        return SIZE_MAX;
    }
    return ks_xp_node_of_broker(x, b);
}

static size_t prod_node(exporter *x, ks_tline *l)
{
    size_t p = ks_xp_prod_of(x, l, "producer");
    return p == SIZE_MAX ? SIZE_MAX : ks_xp_node_of_prod(x, p);
}

static size_t cons_node(exporter *x, ks_tline *l)
{
    size_t c = ks_xp_cons_of(x, l);
    return c == SIZE_MAX ? SIZE_MAX : ks_xp_node_of_cons(x, c);
}

/* An instant of the line on track (node, kind), named `name`. */
static bool at_node(exporter *x, ks_tline *l, size_t node, trk_kind kind, const char *name,
                    const char *cat)
{
    if (node == SIZE_MAX || ks_tline_error(l))
        return false;
    ks_xp_instant(x, name, cat, l->t, ks_xp_track(x, node, kind, 0, 0), 't', l);
    return true;
}

/* "WHAT VALUE" (VALUE the string field key, skipped when it is `plain`). */
static const char *named(ks_tline *l, char *buf, size_t n, const char *what, const char *key,
                         const char *plain)
{
    const char *v = ks_tl_str(l, key, plain);
    if (!v || (plain && strcmp(v, plain) == 0))
        snprintf(buf, n, "%s", what);
    else
        snprintf(buf, n, "%s %s", what, v);
    return buf;
}

/* A metrics bucket: counters sampled at its start. */
static bool metrics(exporter *x, ks_tline *l)
{
    static const char *const groups[][4] = {
        {"records", "produced", "acked", "failed"},
        {"requests", "requests", "batches", NULL},
        {"bytes acked", "bytes", NULL, NULL},
        {"latency (ns)", "latency_p50_ns", "latency_p99_ns", "latency_max_ns"},
    };
    int64_t from = ks_tl_int(l, "from", l->t);
    const track *tk = ks_xp_track(x, ks_xp_run_node(x), TRK_METRICS, 0, 0);
    for (size_t g = 0; tk && g < sizeof groups / sizeof *groups; g++) {
        ks_xp_ev_begin(x, groups[g][0], "metrics", 'C', from, tk);
        for (size_t k = 1; k < 4 && groups[g][k]; k++)
            ks_xp_arg_int(x, groups[g][k], ks_tl_int(l, groups[g][k], 0));
        ks_xp_ev_end(x);
    }
    return !ks_tline_error(l);
}

static bool end_line(exporter *x, ks_tline *l)
{
    const char *verdict = ks_tl_str(l, "verdict", "");
    x->end_events = ks_tl_int(l, "events", -1);
    x->end_pending = ks_tl_int(l, "pending", -1);
    if (ks_tline_error(l))
        return false;
    free(x->verdict);
    if (!(x->verdict = ks_strdup(verdict)))
        x->oom = true;
    x->ended = true;
    ks_xp_close_all(x, l->t);
    char name[96];
    snprintf(name, sizeof name, "end: %s", verdict);
    ks_xp_instant(x, name, "run", l->t, ks_xp_track(x, ks_xp_run_node(x), TRK_RUN, 0, 0), 'g', l);
    return true;
}

/* The node a fault line names: a message's client, a window's producer
 * or broker, the run when none. */
static size_t fault_node(exporter *x, ks_tline *l)
{
    if (ks_tl_has(l, "producer") || ks_tl_has(l, "consumer") || ks_tl_has(l, "client"))
        return ks_xp_client_of(x, l);
    if (ks_tl_has(l, "broker"))
        return broker_node(x, l, "broker");
    return ks_xp_run_node(x);
}

static bool fault(exporter *x, ks_tline *l)
{
    const char *type = ks_tl_str(l, "type", "fault");
    const char *phase = ks_tl_str(l, "phase", NULL);
    int64_t at = ks_tl_int(l, "at_t", l->t);
    size_t node = fault_node(x, l);
    if (node == SIZE_MAX || ks_tline_error(l))
        return false;
    char name[128];
    if (phase && strcmp(phase, "crash") != 0)
        snprintf(name, sizeof name, "%s %s", type, phase);
    else
        snprintf(name, sizeof name, "%s", type);
    bool message = ks_tl_has(l, "what");
    bool run = node == ks_xp_run_node(x);
    const track *tk = ks_xp_track(x, node, run ? TRK_RUN : TRK_NODE, 0, 0);
    ks_xp_instant(x, name, "fault", at, tk, message ? 't' : run ? 'g' : 'p', l);
    if (phase && strcmp(phase, "crash") == 0 &&
        (ks_tl_has(l, "producer") || ks_tl_has(l, "consumer")))
        ks_xp_crash(x, node, at);
    return true;
}

static bool producer_line(exporter *x, ks_tline *l)
{
    size_t p = ks_xp_prod_of(x, l, "producer");
    const char *what = ks_tl_str(l, "what", "producer");
    if (p == SIZE_MAX || ks_tline_error(l))
        return false;
    char name[96];
    snprintf(name, sizeof name, "%s", what);
    if (!at_node(x, l, ks_xp_node_of_prod(x, p), TRK_NODE, name, "producer"))
        return false;
    return strcmp(name, "disconnect") != 0 || ks_xp_disconnect(x, l, p);
}

/* A consumer's request timeout closed a connection. */
static bool disconnect_line(exporter *x, ks_tline *l)
{
    if (!ks_tl_has(l, "consumer"))
        return true; /* another client's: skipped */
    size_t node = cons_node(x, l);
    return at_node(x, l, node, TRK_NODE, "disconnect", "consumer") &&
           ks_xp_channel_closed(x, l, node);
}

static bool append(exporter *x, ks_tline *l)
{
    size_t node = broker_node(x, l, "broker");
    size_t topic = ks_xp_topic(x, ks_tl_str(l, "topic", ""));
    int64_t partition = ks_tl_int(l, "partition", -1);
    char name[96];
    named(l, name, sizeof name, "append", "result", NULL);
    if (node == SIZE_MAX || topic == SIZE_MAX || ks_tline_error(l))
        return false;
    const track *tk = ks_xp_track(x, node, TRK_PART, (int64_t)topic, partition);
    ks_xp_instant(x, name, "append", l->t, tk, 't', l);
    return ks_xp_append(x, l, topic);
}

static bool marker(exporter *x, ks_tline *l)
{
    size_t node = broker_node(x, l, "broker");
    size_t topic = ks_xp_topic(x, ks_tl_str(l, "topic", ""));
    int64_t partition = ks_tl_int(l, "partition", -1);
    char name[96];
    named(l, name, sizeof name, "marker", "type", NULL);
    if (node == SIZE_MAX || topic == SIZE_MAX || ks_tline_error(l))
        return false;
    const track *tk = ks_xp_track(x, node, TRK_PART, (int64_t)topic, partition);
    ks_xp_instant(x, name, "txn", l->t, tk, 't', l);
    return true;
}

static bool admin(exporter *x, ks_tline *l)
{
    char name[96];
    named(l, name, sizeof name, "admin", "op", NULL);
    const track *tk = ks_xp_track(x, ks_xp_run_node(x), TRK_RUN, 0, 0);
    ks_xp_instant(x, name, "run", l->t, tk, 'g', l);
    return !ks_tline_error(l);
}

static bool arrive(exporter *x, ks_tline *l)
{
    char name[96];
    snprintf(name, sizeof name, "arrive %s", ks_tl_str(l, "api", "Produce"));
    return at_node(x, l, broker_node(x, l, "broker"), TRK_ARRIVALS, name, "request");
}

/* A line as events, by kind (every kind named, so that a new one is a
 * decision here: -Wswitch-enum). */
static bool dispatch(exporter *x, ks_tline *l)
{
    char name[128];
    switch (l->kind) {
    case KS_TR_HEADER:
        return ks_xp_fail(x, "a second header: one trace per file");
    case KS_TR_END:
        return end_line(x, l);
    case KS_TR_METRICS:
        return metrics(x, l);
    case KS_TR_ADMIN:
        return admin(x, l);
    case KS_TR_METADATA:
        return at_node(x, l, prod_node(x, l), TRK_NODE, "metadata", "producer");
    case KS_TR_PRODUCE:
        return at_node(x, l, prod_node(x, l), TRK_APP, "send()", "record");
    case KS_TR_DRAIN:
        return ks_xp_drain(x, l);
    case KS_TR_SEND:
        return ks_xp_send(x, l);
    case KS_TR_ARRIVE:
        return arrive(x, l);
    case KS_TR_APPEND:
        return append(x, l);
    case KS_TR_RESPONSE:
        return ks_xp_response(x, l);
    case KS_TR_ACK:
        named(l, name, sizeof name, "ack", "error", "NONE");
        return at_node(x, l, prod_node(x, l), TRK_APP, name, "record");
    case KS_TR_CONSUME:
        return at_node(x, l, cons_node(x, l), TRK_NODE, "consume", "record");
    case KS_TR_OFFSET_COMMIT:
        return at_node(x, l, cons_node(x, l), TRK_NODE, "offset commit", "record");
    case KS_TR_FORWARD:
        return at_node(x, l, prod_node(x, l), TRK_APP, "forward", "record");
    case KS_TR_FAULT:
        return fault(x, l);
    case KS_TR_RETRY:
        return ks_xp_retry(x, l);
    case KS_TR_SPLIT: /* a batch the leader refused as too large, split */
        return at_node(x, l, prod_node(x, l), TRK_NODE, "batch split", "batch");
    case KS_TR_PRODUCER:
        return producer_line(x, l);
    case KS_TR_DISCONNECT:
        return disconnect_line(x, l);
    case KS_TR_TXN:
        named(l, name, sizeof name, "txn", "state", NULL);
        return at_node(x, l, broker_node(x, l, "coordinator"), TRK_COORD, name, "txn");
    case KS_TR_MARKER:
        return marker(x, l);
    case KS_TR_EVENT:
        named(l, name, sizeof name, "event", "kind", NULL);
        return at_node(x, l, ks_xp_run_node(x), TRK_ENGINE, name, "engine");
    case KS_TR__COUNT: /* a kind of a later ksim: skipped */
        return true;
    }
    return true;
}

/* One line after the header; false when it is refused (x->err, or the
 * line's type error, says why). */
bool ks_xp_line(exporter *x, ks_tline *l)
{
    if (x->ended)
        return ks_xp_fail(x, "a line after the end line");
    if (l->t < x->last_t)
        return ks_xp_fail(x, "t %" PRId64 " is before the line above's (%" PRId64
                             "): a trace is in time order", l->t, x->last_t);
    x->last_t = l->t;
    /* a broker's request unanswered past its request.timeout.ms ended
     * before this line; a response at that very time came first */
    ks_xp_expire(x, l->t, l->kind != KS_TR_RESPONSE);
    return dispatch(x, l) && !ks_tline_error(l) && !x->oom;
}
