/*
 * requests.c - a producer's connections in the exported trace: every
 * request from its send line to its end as one complete event ("X"), and
 * the batches it carries as instants.
 *
 * A request ends with its response; when request.timeout.ms closes the
 * connection (a producer "disconnect" line: every request in flight on it
 * fails); when its producer crashes; or with the trace, still in flight.
 * A Produce request of an acks=0 producer gets no response: it lasts
 * until it reaches the broker (arrive_t), and its batches are done when
 * it is sent, as Kafka's client completes them. So every send line is one
 * duration, and its args say how it ended ("end").
 *
 * Requests on one connection overlap (up to
 * max.in.flight.requests.per.connection of them) without nesting, which
 * a track of Chrome's format cannot show: each connection has lanes,
 * tracks of their own named after it, and a request takes the first lane
 * free when it is sent. With one request in flight at a time there is one
 * lane.
 *
 * A batch is created (its drain line's t minus waited_ns, once: not again
 * when a retry drains it), drained into a request, acked or failed when
 * the answer to that request arrives (the leader's append line says which
 * for each batch; without one, the response's error), and retried.
 */
#include "tools/export/internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The producer named by field key, or SIZE_MAX (error set). */
size_t ks_xp_prod_of(exporter *x, ks_tline *l, const char *key)
{
    const char *id = ks_tl_str(l, key, NULL);
    if (ks_tline_error(l))
        return SIZE_MAX;
    if (!id) {
        ks_xp_fail(x, "%s line has no \"%s\"", l->ev, key);
        return SIZE_MAX;
    }
    size_t p = ks_xp_find_name(x->prod_order, x->nprods, id);
    if (p == SIZE_MAX)
        ks_xp_fail(x, "producer '%s' is not in the trace header", id);
    return p;
}

/* The connection of producer p to the line's broker; NULL (error set)
 * when the broker is not one of the run's. */
static xconn *conn_of(exporter *x, ks_tline *l, size_t p, int64_t *broker)
{
    int64_t b = ks_tl_int(l, "broker", -1);
    if (ks_tline_error(l))
        return NULL;
    if (b < 0 || (uint64_t)b >= x->nbrokers) {
        ks_xp_fail(x, "field \"broker\": expected a broker of the run (0 to %zu), got %" PRId64,
                   x->nbrokers ? x->nbrokers - 1 : 0, b);
        return NULL;
    }
    xproducer *pr = &x->prods[p];
    if (!pr->conns && !(pr->conns = calloc(x->nbrokers, sizeof *pr->conns))) {
        x->oom = true;
        return NULL;
    }
    *broker = b;
    return &pr->conns[b];
}

/* Grows *arr (of *cap elements of size sz) to hold one more than n. */
static bool grow(exporter *x, void **arr, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? 2 * *cap : 4;
    void *p = realloc(*arr, c * sz);
    if (!p) {
        x->oom = true;
        return false;
    }
    *arr = p;
    *cap = c;
    return true;
}

static const track *batches_track(exporter *x, size_t p)
{
    return ks_xp_track(x, ks_xp_node_of_prod(x, p), TRK_BATCHES, 0, 0);
}

/* ---- batches ---------------------------------------------------------------- */

/* The key of (producer, batch) in x->retried; false when it has none. */
static bool retry_key(size_t p, int64_t batch, uint64_t *key)
{
    if (batch < 0 || batch >= ((int64_t)1 << 40) || p >= ((size_t)1 << 23))
        return false;
    *key = ((uint64_t)p << 40) | (uint64_t)batch;
    return true;
}

/* "batch acked" or "batch failed" at t: what the producer learnt. */
static void batch_outcome(exporter *x, size_t p, const xreq *r, const xbatch *bt, int64_t t,
                          const char *error)
{
    bool ok = strcmp(error, "NONE") == 0 || strcmp(error, "DUPLICATE") == 0;
    ks_xp_ev_begin(x, ok ? "batch acked" : "batch failed", "batch", 'i', t, batches_track(x, p));
    ks_xp_ev_scope(x, 't');
    ks_xp_arg_str(x, "producer", x->prods[p].id);
    ks_xp_arg_str(x, "topic", x->topics[bt->topic].name);
    ks_xp_arg_int(x, "partition", bt->partition);
    ks_xp_arg_int(x, "batch", bt->batch);
    ks_xp_arg_int(x, "request", r->request);
    ks_xp_arg_int(x, "offset", ok ? bt->offset : -1);
    ks_xp_arg_str(x, "error", error);
    ks_xp_ev_end(x);
}

bool ks_xp_drain(exporter *x, ks_tline *l)
{
    size_t p = ks_xp_prod_of(x, l, "producer");
    int64_t b;
    xconn *c = p == SIZE_MAX ? NULL : conn_of(x, l, p, &b);
    int64_t batch = ks_tl_int(l, "batch", -1), waited = ks_tl_int(l, "waited_ns", 0);
    int64_t request = ks_tl_int(l, "request", -1), partition = ks_tl_int(l, "partition", -1);
    size_t topic = ks_xp_topic(x, ks_tl_str(l, "topic", ""));
    if (!c || ks_tline_error(l) || topic == SIZE_MAX)
        return false;
    uint64_t key;
    bool keyed = retry_key(p, batch, &key);
    if (!(keyed && ks_u64map_del(&x->retried, key)))
        ks_xp_instant(x, "batch created", "batch", l->t - waited, batches_track(x, p), 't', l);
    ks_xp_instant(x, "batch drained", "batch", l->t, batches_track(x, p), 't', l);
    if (!grow(x, (void **)&c->drained, &c->capdrained, c->ndrained, sizeof *c->drained))
        return false;
    c->drained[c->ndrained++] =
        (xbatch){.batch = batch, .partition = partition, .offset = -1, .request = request,
                 .topic = topic};
    return true;
}

bool ks_xp_retry(exporter *x, ks_tline *l)
{
    size_t p = ks_xp_prod_of(x, l, "producer");
    int64_t batch = ks_tl_int(l, "batch", -1);
    if (p == SIZE_MAX || ks_tline_error(l))
        return false;
    uint64_t key;
    if (retry_key(p, batch, &key) && !ks_u64map_get(&x->retried, key) &&
        !ks_u64map_put(&x->retried, key, (void *)x))
        x->oom = true;
    ks_xp_instant(x, "batch retry", "batch", l->t, batches_track(x, p), 't', l);
    return true;
}

/* ---- requests ---------------------------------------------------------------- */

/* The first lane of c free at t (a new one when all are busy), marked busy
 * until `until`; SIZE_MAX when out of memory. */
static size_t take_lane(exporter *x, xconn *c, int64_t t, int64_t until)
{
    size_t i = 0;
    while (i < c->nlanes && c->lane_until[i] > t)
        i++;
    if (i == c->nlanes) {
        int64_t *u = realloc(c->lane_until, (c->nlanes + 1) * sizeof *u);
        if (!u) {
            x->oom = true;
            return SIZE_MAX;
        }
        c->lane_until = u;
        c->nlanes++;
    }
    c->lane_until[i] = until;
    return i;
}

/* Writes request r of producer p to broker b as a complete event ending
 * at t, with `how` it ended and the members `more` in its args. */
static void write_request(exporter *x, size_t p, int64_t b, const xreq *r, int64_t t,
                          const char *how, const char *more)
{
    const track *tk = ks_xp_track(x, ks_xp_node_of_prod(x, p), TRK_CONN, b, (int64_t)r->lane);
    if (!tk)
        return;
    ks_xp_ev_begin(x, r->api, "request", 'X', r->t0, tk);
    ks_xp_ev_dur(x, t > r->t0 ? t - r->t0 : 0);
    ks_xp_arg_raw(x, r->args);
    ks_xp_arg_raw(x, more);
    ks_xp_arg_str(x, "end", how);
    ks_xp_ev_end(x);
    x->requests++;
}

static void free_req(xreq *r)
{
    free(r->api);
    free(r->args);
    for (size_t i = 0; i < r->nb; i++)
        free(r->b[i].result);
    free(r->b);
}

/* Moves the batches drained for request `request` from c to r. */
static bool take_batches(exporter *x, xconn *c, xreq *r, int64_t request)
{
    size_t n = 0;
    for (size_t i = 0; i < c->ndrained; i++)
        n += c->drained[i].request == request;
    if (n && !(r->b = malloc(n * sizeof *r->b))) {
        x->oom = true;
        return false;
    }
    size_t kept = 0;
    for (size_t i = 0; i < c->ndrained; i++) {
        xbatch bt = c->drained[i];
        if (bt.request != request) {
            c->drained[kept++] = bt;
            continue;
        }
        r->b[r->nb++] = bt;
    }
    c->ndrained = kept;
    return true;
}

/* An acks=0 Produce request: no response, done when it reaches the broker. */
static void fire_and_forget(exporter *x, size_t p, int64_t b, xreq *r, int64_t arrive_t)
{
    bool lost = arrive_t < r->t0;
    int64_t end = lost ? r->t0 : arrive_t;
    r->lane = take_lane(x, &x->prods[p].conns[b], r->t0, end);
    if (r->lane != SIZE_MAX)
        write_request(x, p, b, r, end, lost ? "lost (acks=0: no response)"
                                            : "arrived (acks=0: no response)", NULL);
    for (size_t i = 0; i < r->nb; i++)
        batch_outcome(x, p, r, &r->b[i], r->t0, "NONE");
    free_req(r);
}

bool ks_xp_send(exporter *x, ks_tline *l)
{
    size_t p = ks_xp_prod_of(x, l, "producer");
    int64_t b;
    xconn *c = p == SIZE_MAX ? NULL : conn_of(x, l, p, &b);
    const char *api = ks_tl_str(l, "api", "Produce");
    xreq r = {.request = ks_tl_int(l, "request", -1), .t0 = l->t};
    int64_t arrive_t = ks_tl_int(l, "arrive_t", -1);
    if (!c || ks_tline_error(l))
        return false;
    for (size_t i = 0; i < c->nopen; i++)
        if (c->open[i].request == r.request && strcmp(c->open[i].api, api) == 0)
            return ks_xp_fail(x, "%s request %" PRId64 " of %s sent again while in flight", api,
                              r.request, x->prods[p].id);
    r.api = ks_strdup(api);
    r.args = ks_xp_fields_text(l, NULL);
    bool produce = strcmp(api, "Produce") == 0;
    if (!r.api || !r.args || (produce && !take_batches(x, c, &r, r.request))) {
        free_req(&r);
        x->oom = true;
        return false;
    }
    if (produce && x->prods[p].acks0) {
        fire_and_forget(x, p, b, &r, arrive_t);
        return true;
    }
    r.lane = take_lane(x, c, l->t, INT64_MAX);
    if (r.lane == SIZE_MAX || !grow(x, (void **)&c->open, &c->capopen, c->nopen, sizeof *c->open)) {
        free_req(&r);
        return false;
    }
    c->open[c->nopen++] = r;
    return true;
}

/* Ends the request at index i of c (producer p, broker b) at t. `error`:
 * what its batches learnt (NULL: nothing, the producer is gone); when
 * `answered`, each batch learnt what the leader's append line said, if
 * there was one. */
static void end_request(exporter *x, size_t p, int64_t b, size_t i, int64_t t, const char *how,
                        const char *more, const char *error, bool answered)
{
    xconn *c = &x->prods[p].conns[b];
    xreq r = c->open[i];
    memmove(&c->open[i], &c->open[i + 1], (c->nopen - i - 1) * sizeof *c->open);
    c->nopen--;
    write_request(x, p, b, &r, t, how, more);
    c->lane_until[r.lane] = t;
    for (size_t k = 0; error && k < r.nb; k++) {
        const xbatch *bt = &r.b[k];
        const char *e = !answered ? error : bt->result ? bt->result : bt->appended ? "NONE" : error;
        batch_outcome(x, p, &r, bt, t, e);
    }
    free_req(&r);
}

/* The open request of c with this api and number, or SIZE_MAX. */
static size_t find_open(const xconn *c, const char *api, int64_t request)
{
    for (size_t i = 0; i < c->nopen; i++)
        if (c->open[i].request == request && strcmp(c->open[i].api, api) == 0)
            return i;
    return SIZE_MAX;
}

bool ks_xp_append(exporter *x, ks_tline *l, size_t topic)
{
    size_t p = ks_xp_prod_of(x, l, "producer");
    int64_t b;
    xconn *c = p == SIZE_MAX ? NULL : conn_of(x, l, p, &b);
    int64_t request = ks_tl_int(l, "request", -1), batch = ks_tl_int(l, "batch", -1);
    int64_t offset = ks_tl_int(l, "offset", -1);
    const char *result = ks_tl_str(l, "result", NULL);
    if (!c || ks_tline_error(l))
        return false;
    size_t i = find_open(c, "Produce", request);
    for (size_t k = 0; i != SIZE_MAX && k < c->open[i].nb; k++) {
        xbatch *bt = &c->open[i].b[k];
        if (bt->batch != batch || bt->topic != topic)
            continue;
        free(bt->result);
        bt->result = result ? ks_strdup(result) : NULL;
        if (result && !bt->result)
            x->oom = true;
        bt->appended = true;
        bt->offset = offset;
    }
    return true;
}

bool ks_xp_response(exporter *x, ks_tline *l)
{
    size_t p = ks_xp_prod_of(x, l, "producer");
    int64_t b;
    xconn *c = p == SIZE_MAX ? NULL : conn_of(x, l, p, &b);
    const char *api = ks_tl_str(l, "api", "Produce");
    const char *error = ks_tl_str(l, "error", "NONE");
    int64_t request = ks_tl_int(l, "request", -1);
    if (!c || ks_tline_error(l))
        return false;
    size_t i = find_open(c, api, request);
    if (i == SIZE_MAX) { /* not sent in this trace: shown where it arrives */
        const track *tk = ks_xp_track(x, ks_xp_node_of_prod(x, p), TRK_NODE, 0, 0);
        ks_xp_instant(x, "response without its request", "request", l->t, tk, 't', l);
        return true;
    }
    static const char *const skip[] = {"producer", "broker", "request", "api", NULL};
    char *more = ks_xp_fields_text(l, skip);
    if (!more) {
        x->oom = true;
        return false;
    }
    char copy[128];
    snprintf(copy, sizeof copy, "%s", error);
    end_request(x, p, b, i, l->t, "response", more, copy, true);
    free(more);
    return true;
}

bool ks_xp_disconnect(exporter *x, ks_tline *l, size_t p)
{
    int64_t b;
    xconn *c = conn_of(x, l, p, &b);
    const char *error = ks_tl_str(l, "error", "");
    if (!c || ks_tline_error(l))
        return false;
    ks_sbuf more = {0};
    ks_sb_puts(&more, "\"error\":");
    ks_xp_json_str(&more, error);
    if (more.oom) {
        x->oom = true;
        ks_sb_free(&more);
        return false;
    }
    /* the batches' Kafka error depends on the version: the retry lines
     * that follow name it; here, what the disconnect line says */
    while (c->nopen)
        end_request(x, p, b, 0, l->t, "disconnect", more.s, error, false);
    ks_sb_free(&more);
    return true;
}

/* Ends every request of producer p at t, with `how`. */
static void end_all(exporter *x, size_t p, int64_t t, const char *how)
{
    xproducer *pr = &x->prods[p];
    for (size_t b = 0; pr->conns && b < x->nbrokers; b++) {
        while (pr->conns[b].nopen)
            end_request(x, p, (int64_t)b, 0, t, how, NULL, NULL, false);
        pr->conns[b].ndrained = 0;
    }
}

void ks_xp_crash(exporter *x, size_t p, int64_t t)
{
    end_all(x, p, t, "producer crashed");
}

void ks_xp_close_all(exporter *x, int64_t t)
{
    for (size_t p = 0; p < x->nprods; p++)
        end_all(x, p, t, "in flight at the end of the trace");
}

void ks_xp_requests_free(exporter *x)
{
    for (size_t p = 0; x->prods && p < x->nprods; p++) {
        xproducer *pr = &x->prods[p];
        for (size_t b = 0; pr->conns && b < x->nbrokers; b++) {
            xconn *c = &pr->conns[b];
            for (size_t i = 0; i < c->nopen; i++)
                free_req(&c->open[i]);
            free(c->open);
            free(c->lane_until);
            free(c->drained);
        }
        free(pr->conns);
        free(pr->id);
    }
    free(x->prods);
    ks_u64map_free(&x->retried);
}
