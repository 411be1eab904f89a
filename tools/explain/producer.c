/*
 * producer.c - the producer's own state as `ksim explain` draws it: its
 * producer id and epoch, transactions begun, committed, aborted, fenced
 * or left open, connections closed with requests in flight (and what
 * those requests had stored), configs refused, metadata refreshed.
 */
#include "tools/explain/internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The requests of producer p to broker in flight (the `max` latest),
 * forgotten as they fail; each that was stored gets a note: the producer
 * cannot tell that it was. */
static void fail_in_flight(explain *e, size_t p, int64_t broker, int64_t max)
{
    int64_t ids[64];
    size_t n = 0;
    for (size_t i = 0; i < e->requests.cap && n < 64; i++) {
        const request *q = e->requests.vals[i];
        if (q && q->producer == p && q->broker == broker)
            ids[n++] = q->id;
    }
    qsort(ids, n, sizeof *ids, cmp_i64);
    size_t first = max >= 0 && (size_t)max < n ? n - (size_t)max : 0;
    for (size_t i = first; i < n; i++) {
        request *q = ks_u64map_del(&e->requests, ks_ex_obj_key(p, ids[i]));
        ks_ex_touch_request(e, q);
        for (size_t k = 0; q && k < q->n; k++) {
            const batch *b = ks_ex_batch_get(e, p, q->batches[k]);
            if (!b)
                continue;
            char names[NAME_BUF * 4], offs[64];
            ks_ex_batch_names(e, b, names, sizeof names);
            if (b->last_request != q->id || b->last_offset < 0) {
                /* the other case the producer cannot tell apart */
                ks_sb_printf(&e->cur.notes,
                             "%s%s cannot tell a lost record from a lost ACK: broker %" PRId64
                             " has not stored %s (request %" PRId64 " has not reached it)",
                             e->cur.notes.len ? "\n" : "", e->prods[p].id, broker, names, q->id);
                continue;
            }
            ks_ex_offsets_text(offs, sizeof offs, b->last_offset, b->records);
            ks_sb_printf(&e->cur.notes,
                         "%s%s cannot tell a lost ACK from a lost record: broker %" PRId64
                         " did store %s at %s (request %" PRId64 ")",
                         e->cur.notes.len ? "\n" : "", e->prods[p].id, broker, names, offs, q->id);
        }
        ks_ex_request_free(q);
    }
}

/* request.timeout.ms expired (or the link went down): the connection
 * closes and what was in flight on it fails. */
static void on_disconnect(explain *e, ks_tline *j, int64_t t, size_t p)
{
    ks_ex_step_begin(e, SK_TIMEOUT, t, p);
    step *s = &e->cur;
    const producer *pr = &e->prods[p];
    int64_t n = ks_tl_int(j, "in_flight", 0);
    const char *error = ks_tl_str(j, "error", "");
    s->broker = ks_tl_int(j, "broker", -1);
    s->from = (lane){'P', (int64_t)p};
    s->style = MS_NOTE;
    if (strcmp(error, "request timed out") == 0)
        ks_sb_printf(
            &s->desc,
            "%s hears nothing from broker %" PRId64 " for request.timeout.ms (%" PRId64
            " ms): it closes the connection, and the %" PRId64 " request%s in flight fail%s",
            pr->id, s->broker, pr->request_timeout_ms, n, n == 1 ? "" : "s", n == 1 ? "s" : "");
    else
        ks_sb_printf(&s->desc,
                     "%s closes its connection to broker %" PRId64 " (%s): the %" PRId64
                     " request%s in flight fail%s",
                     pr->id, s->broker, error, n, n == 1 ? "" : "s", n == 1 ? "s" : "");
    ks_sb_printf(&s->label, "\xE2\x9C\x95 no answer: connection to broker %" PRId64 " closed (%s)",
                 s->broker, error);
    fail_in_flight(e, p, s->broker, n);
}

/* A change of the producer's own state: a note in the step being built
 * when it is the producer's at the same moment, else a step of its own
 * (`lane_text` then on its lane). */
static void producer_event(explain *e, int64_t t, size_t p, const char *sentence,
                           const char *lane_text)
{
    if (ks_ex_joins_producer_step(e, t, p)) {
        ks_sb_line(&e->cur.notes, sentence);
        return;
    }
    ks_ex_step_begin(e, SK_PRODUCER, t, p);
    e->cur.from = (lane){'P', (int64_t)p};
    e->cur.style = MS_NOTE;
    ks_sb_puts(&e->cur.desc, sentence);
    ks_sb_puts(&e->cur.label, lane_text);
}

/* The producer has its producer id and epoch: the InitProducerId answer
 * being drawn says so, else a step of its own. */
static void on_init_producer_id(explain *e, ks_tline *j, int64_t t, size_t p)
{
    producer *pr = &e->prods[p];
    pr->pid = ks_tl_int(j, "producer_id", -1);
    pr->epoch = ks_tl_int(j, "epoch", -1);
    pr->seq_gen++;
    pr->txn_open = false;
    step *s = &e->cur;
    char text[160];
    if (ks_ex_step_is(e, SK_API_RESPONSE, t, p) && ks_ex_api_is(s->api, KS_API_INIT_PRODUCER_ID)) {
        ks_sb_clear(&s->label);
        ks_sb_printf(&s->label, "PID=%" PRId64 ", epoch %" PRId64, pr->pid, pr->epoch);
        ks_sb_clear(&s->desc);
        ks_sb_printf(&s->desc, "%s gets producer id %" PRId64 ", epoch %" PRId64 " from %s%" PRId64,
                     pr->id, pr->pid, pr->epoch, pr->tid ? "its coordinator on broker " : "broker ",
                     s->broker);
        return;
    }
    snprintf(text, sizeof text, "%s now has producer id %" PRId64 ", epoch %" PRId64, pr->id,
             pr->pid, pr->epoch);
    producer_event(e, t, p, text, text);
}

/* The transactional producer's own events: commit, abort, their ends,
 * fencing, a transaction never ended. */
static void txn_event(explain *e, ks_tline *j, int64_t t, size_t p, const char *what)
{
    producer *pr = &e->prods[p];
    int64_t n = ks_tl_int(j, "transaction", 0);
    const char *error = ks_tl_str(j, "error", NULL);
    char text[320], lane_text[96];
    bool commit = strcmp(what, "commit") == 0, ended = strcmp(what, "committed") == 0 ||
                                                     strcmp(what, "aborted") == 0;
    if (commit || strcmp(what, "abort") == 0) {
        pr->committing = commit;
        snprintf(text, sizeof text, "%s's application calls %sTransaction() for transaction %"
                 PRId64 "%s%s", pr->id, commit ? "commit" : "abort", n, error ? ": " : "",
                 error ? error : "");
        snprintf(lane_text, sizeof lane_text, "%sTransaction()", commit ? "commit" : "abort");
    } else if (ended) {
        pr->txn_open = false;
        snprintf(text, sizeof text, "%sTransaction() returns: transaction %" PRId64 " of %s is %s",
                 what[0] == 'c' ? "commit" : "abort", n, pr->id, what);
        snprintf(lane_text, sizeof lane_text, "transaction %" PRId64 " %s", n, what);
        if (ks_ex_step_is(e, SK_API_RESPONSE, t, p) && ks_ex_api_is(e->cur.api, KS_API_END_TXN)) {
            ks_sb_clear(&e->cur.desc);
            ks_sb_puts(&e->cur.desc, text);
            return;
        }
    } else if (strcmp(what, "fenced") == 0) {
        pr->txn_open = false;
        snprintf(text, sizeof text, "%s is fenced (%s): a newer producer with transactional.id %s "
                 "has taken over, and %s can do nothing more", pr->id, error ? error : "?",
                 pr->tid ? pr->tid : "?", pr->id);
        snprintf(lane_text, sizeof lane_text, "\xE2\x9C\x95 fenced (%s)", error ? error : "?");
    } else if (strcmp(what, "hangs") == 0) {
        snprintf(text, sizeof text, "the application never ends transaction %" PRId64
                 ": it stays open", n);
        snprintf(lane_text, sizeof lane_text, "transaction %" PRId64 " left open", n);
    } else if (ks_ex_step_is(e, SK_API_RESPONSE, t, p) && strcmp(e->cur.api, what) == 0) {
        snprintf(text, sizeof text, "%s will send %s again after a backoff", pr->id, what);
        snprintf(lane_text, sizeof lane_text, "%s again later", what);
    } else {
        snprintf(text, sizeof text, "%s's %s fails with %s", pr->id, what, error ? error : "?");
        snprintf(lane_text, sizeof lane_text, "%s: %s", what, error ? error : "?");
    }
    producer_event(e, t, p, text, lane_text);
}

/* A producer line: a closed connection, a producer id, an epoch bump, a
 * config refused, or a transaction event. */
void ks_ex_on_producer(explain *e, ks_tline *j, int64_t t)
{
    size_t p = ks_ex_prod_of(e, ks_tl_str(j, "producer", NULL));
    const char *what = ks_tl_str(j, "what", "");
    char text[320];
    if (strcmp(what, "disconnect") == 0) {
        on_disconnect(e, j, t, p);
    } else if (strcmp(what, "init_producer_id") == 0) {
        on_init_producer_id(e, j, t, p);
    } else if (strcmp(what, "epoch_bump") == 0) {
        e->prods[p].epoch = ks_tl_int(j, "epoch", -1);
        e->prods[p].seq_gen++;
        snprintf(text, sizeof text, "%s bumps its epoch to %" PRId64 " (KIP-360): its sequence "
                 "numbers start again", e->prods[p].id, e->prods[p].epoch);
        producer_event(e, t, p, text, "epoch bump");
    } else if (strcmp(what, "config_exception") == 0) {
        snprintf(text, sizeof text, "%s never starts: %s", e->prods[p].id,
                 ks_tl_str(j, "error", ""));
        producer_event(e, t, p, text, "\xE2\x9C\x95 ConfigException");
    } else {
        txn_event(e, j, t, p, what);
    }
}

/* A producer learnt a topic's partition count from a metadata refresh. */
void ks_ex_on_metadata(explain *e, ks_tline *j, int64_t t)
{
    size_t p = ks_ex_prod_of(e, ks_tl_str(j, "producer", NULL));
    char text[320];
    snprintf(text, sizeof text, "%s's metadata refresh: %s now has %" PRId64 " partitions",
             e->prods[p].id, ks_tl_str(j, "topic", ""), ks_tl_int(j, "partitions", 0));
    producer_event(e, t, p, text, text);
}
