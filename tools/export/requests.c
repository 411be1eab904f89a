/*
 * requests.c - the connections of every client in the exported trace (a
 * producer's, a consumer's, a broker's as a client: WriteTxnMarkers from
 * a transaction coordinator, AddPartitionsToTxn from a leader verifying a
 * transaction): every request from its send line to its end as one
 * complete event ("X") on the client's process, and the batches a
 * producer's Produce request carries as instants.
 *
 * A request ends with its response; when request.timeout.ms closes the
 * connection (a producer "disconnect" line: every request in flight on it
 * fails; for a broker, which writes no line then, its request.timeout.ms
 * after the oldest request was sent, from the header's broker_config);
 * when its producer or consumer crashes; or with the trace, still in
 * flight (a consumer gives a request up silently too, but its timeout is
 * not in the trace: such a request lasts to the end). A Produce request
 * of an acks=0 producer gets no response: it lasts until it reaches the
 * broker (arrive_t), and its batches are done when it is sent, as Kafka's
 * client completes them. So every send line is one duration, and its args
 * say how it ended ("end").
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

size_t ks_xp_cons_of(exporter *x, ks_tline *l)
{
    const char *id = ks_tl_str(l, "consumer", "");
    if (ks_tline_error(l))
        return SIZE_MAX;
    size_t c = ks_xp_find_name(x->cons_order, x->ncons, id);
    if (c == SIZE_MAX)
        ks_xp_fail(x, "consumer '%s' is not in the trace header", id);
    return c;
}

/* The broker node of a "client" field: "broker<N>", N one of the run's. */
static size_t broker_client(exporter *x, const char *id)
{
    const char *d = strncmp(id, "broker", 6) == 0 ? id + 6 : NULL;
    uint64_t n = 0;
    bool ok = d && *d && strlen(d) <= 9;
    for (const char *p = d; ok && *p; p++) {
        ok = *p >= '0' && *p <= '9';
        n = n * 10 + (uint64_t)(*p - '0');
    }
    if (!ok || n >= x->nbrokers) {
        ks_xp_fail(x, "field \"client\": expected a broker of the run (broker0 to broker%zu), "
                      "got '%s'", x->nbrokers ? x->nbrokers - 1 : 0, id);
        return SIZE_MAX;
    }
    return ks_xp_node_of_broker(x, (int64_t)n);
}

size_t ks_xp_client_of(exporter *x, ks_tline *l)
{
    if (ks_tl_has(l, "producer")) {
        size_t p = ks_xp_prod_of(x, l, "producer");
        return p == SIZE_MAX ? SIZE_MAX : ks_xp_node_of_prod(x, p);
    }
    if (ks_tl_has(l, "consumer")) {
        size_t c = ks_xp_cons_of(x, l);
        return c == SIZE_MAX ? SIZE_MAX : ks_xp_node_of_cons(x, c);
    }
    const char *id = ks_tl_str(l, "client", NULL);
    if (ks_tline_error(l))
        return SIZE_MAX;
    if (!id) {
        ks_xp_fail(x, "%s line names no client (\"producer\", \"consumer\" or \"client\")",
                   l->ev);
        return SIZE_MAX;
    }
    return broker_client(x, id);
}

/* The client's id as the line names it. */
static const char *client_id(ks_tline *l)
{
    static const char *const keys[] = {"producer", "consumer", "client"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (ks_tl_has(l, keys[i]))
            return ks_tl_str(l, keys[i], "?");
    return "?";
}

/* The producer of node, or SIZE_MAX when node is not a producer. */
static size_t prod_of_node(const exporter *x, size_t node)
{
    return node >= x->nbrokers && node < x->nbrokers + x->nprods ? node - x->nbrokers : SIZE_MAX;
}

/* The connection of node to the line's broker; NULL (error set) when the
 * broker is not one of the run's. */
static xconn *conn_of(exporter *x, ks_tline *l, size_t node, int64_t *broker)
{
    int64_t b = ks_tl_int(l, "broker", -1);
    if (ks_tline_error(l))
        return NULL;
    if (b < 0 || (uint64_t)b >= x->nbrokers) {
        ks_xp_fail(x, "field \"broker\": expected a broker of the run (0 to %zu), got %" PRId64,
                   x->nbrokers ? x->nbrokers - 1 : 0, b);
        return NULL;
    }
    if (!x->conns && !(x->conns = calloc(ks_xp_run_node(x), sizeof *x->conns))) {
        x->oom = true;
        return NULL;
    }
    if (!x->conns[node] && !(x->conns[node] = calloc(x->nbrokers, sizeof **x->conns))) {
        x->oom = true;
        return NULL;
    }
    *broker = b;
    return &x->conns[node][b];
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
    xconn *c = p == SIZE_MAX ? NULL : conn_of(x, l, ks_xp_node_of_prod(x, p), &b);
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

/* Writes request r of node to broker b as a complete event ending at t,
 * with `how` it ended and the members `more` in its args. */
static void write_request(exporter *x, size_t node, int64_t b, const xreq *r, int64_t t,
                          const char *how, const char *more)
{
    const track *tk = ks_xp_track(x, node, TRK_CONN, b, (int64_t)r->lane);
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
    size_t node = ks_xp_node_of_prod(x, p);
    r->lane = take_lane(x, &x->conns[node][b], r->t0, end);
    if (r->lane != SIZE_MAX)
        write_request(x, node, b, r, end, lost ? "lost (acks=0: no response)"
                                               : "arrived (acks=0: no response)", NULL);
    for (size_t i = 0; i < r->nb; i++)
        batch_outcome(x, p, r, &r->b[i], r->t0, "NONE");
    free_req(r);
}

/* A request of a broker may time out: the earliest time one may. */
static void note_deadline(exporter *x, size_t node, int64_t t0)
{
    if (node < x->nbrokers && x->broker_timeout_ns >= 0 &&
        t0 + x->broker_timeout_ns < x->next_deadline)
        x->next_deadline = t0 + x->broker_timeout_ns;
}

/* The request's xreq, filled from its send line (NULL fields: out of
 * memory); a producer's Produce request takes its batches. */
static bool new_req(exporter *x, ks_tline *l, xconn *c, size_t node, xreq *r)
{
    const char *api = ks_tl_str(l, "api", "Produce");
    r->api = ks_strdup(api);
    r->args = ks_xp_fields_text(l, NULL);
    bool produce = strcmp(api, "Produce") == 0 && prod_of_node(x, node) != SIZE_MAX;
    if (!r->api || !r->args || (produce && !take_batches(x, c, r, r->request))) {
        free_req(r);
        x->oom = true;
        return false;
    }
    return true;
}

bool ks_xp_send(exporter *x, ks_tline *l)
{
    size_t node = ks_xp_client_of(x, l), p = prod_of_node(x, node);
    int64_t b;
    xconn *c = node == SIZE_MAX ? NULL : conn_of(x, l, node, &b);
    const char *api = ks_tl_str(l, "api", "Produce");
    xreq r = {.request = ks_tl_int(l, "request", -1), .t0 = l->t};
    int64_t arrive_t = ks_tl_int(l, "arrive_t", -1);
    if (!c || ks_tline_error(l))
        return false;
    for (size_t i = 0; i < c->nopen; i++)
        if (c->open[i].request == r.request && strcmp(c->open[i].api, api) == 0)
            return ks_xp_fail(x, "%s request %" PRId64 " of %s sent again while in flight", api,
                              r.request, client_id(l));
    if (!new_req(x, l, c, node, &r))
        return false;
    if (p != SIZE_MAX && strcmp(api, "Produce") == 0 && x->prods[p].acks0) {
        fire_and_forget(x, p, b, &r, arrive_t);
        return true;
    }
    r.lane = take_lane(x, c, l->t, INT64_MAX);
    if (r.lane == SIZE_MAX || !grow(x, (void **)&c->open, &c->capopen, c->nopen, sizeof *c->open)) {
        free_req(&r);
        return false;
    }
    c->open[c->nopen++] = r;
    note_deadline(x, node, r.t0);
    return true;
}

/* Ends the request at index i of c (node's, to broker b) at t. `error`:
 * what its batches learnt (NULL: nothing, the producer is gone); when
 * `answered`, each batch learnt what the leader's append line said, if
 * there was one. */
static void end_request(exporter *x, size_t node, int64_t b, size_t i, int64_t t,
                        const char *how, const char *more, const char *error, bool answered)
{
    xconn *c = &x->conns[node][b];
    xreq r = c->open[i];
    memmove(&c->open[i], &c->open[i + 1], (c->nopen - i - 1) * sizeof *c->open);
    c->nopen--;
    write_request(x, node, b, &r, t, how, more);
    c->lane_until[r.lane] = t;
    size_t p = prod_of_node(x, node);
    for (size_t k = 0; error && p != SIZE_MAX && k < r.nb; k++) {
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
    xconn *c = p == SIZE_MAX ? NULL : conn_of(x, l, ks_xp_node_of_prod(x, p), &b);
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
    size_t node = ks_xp_client_of(x, l);
    int64_t b;
    xconn *c = node == SIZE_MAX ? NULL : conn_of(x, l, node, &b);
    const char *api = ks_tl_str(l, "api", "Produce");
    const char *error = ks_tl_str(l, "error", "NONE");
    int64_t request = ks_tl_int(l, "request", -1);
    if (!c || ks_tline_error(l))
        return false;
    size_t i = find_open(c, api, request);
    if (i == SIZE_MAX) { /* not sent in this trace: shown where it arrives */
        const track *tk = ks_xp_track(x, node, TRK_NODE, 0, 0);
        ks_xp_instant(x, "response without its request", "request", l->t, tk, 't', l);
        return true;
    }
    static const char *const skip[] = {"producer", "consumer", "client", "broker",
                                       "request",  "api",      NULL};
    char *more = ks_xp_fields_text(l, skip);
    if (!more) {
        x->oom = true;
        return false;
    }
    char copy[128];
    snprintf(copy, sizeof copy, "%s", error);
    end_request(x, node, b, i, l->t, "response", more, copy, true);
    free(more);
    return true;
}

bool ks_xp_disconnect(exporter *x, ks_tline *l, size_t p)
{
    int64_t b;
    size_t node = ks_xp_node_of_prod(x, p);
    xconn *c = conn_of(x, l, node, &b);
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
        end_request(x, node, b, 0, l->t, "disconnect", more.s, error, false);
    ks_sb_free(&more);
    return true;
}

/* Does a consumer send a request of this API on its group coordinator
 * channel (models/consumer: OffsetFetch, OffsetCommit)? */
static bool coordinator_api(const char *api)
{
    return strcmp(api, "OffsetFetch") == 0 || strcmp(api, "OffsetCommit") == 0;
}

bool ks_xp_channel_closed(exporter *x, ks_tline *l, size_t node)
{
    int64_t b;
    xconn *c = conn_of(x, l, node, &b);
    bool coord = strcmp(ks_tl_str(l, "channel", "data"), "coordinator") == 0;
    if (!c || ks_tline_error(l))
        return false;
    for (size_t i = c->nopen; i-- > 0;)
        if (coordinator_api(c->open[i].api) == coord)
            end_request(x, node, b, i, l->t, "timed out (request.timeout.ms)", NULL, NULL, false);
    return true;
}

/* Ends every request of node at t, with `how`. */
static void end_all(exporter *x, size_t node, int64_t t, const char *how)
{
    for (size_t b = 0; x->conns && x->conns[node] && b < x->nbrokers; b++) {
        while (x->conns[node][b].nopen)
            end_request(x, node, (int64_t)b, 0, t, how, NULL, NULL, false);
        x->conns[node][b].ndrained = 0;
    }
}

void ks_xp_crash(exporter *x, size_t node, int64_t t)
{
    end_all(x, node, t, prod_of_node(x, node) != SIZE_MAX ? "producer crashed"
                                                          : "consumer crashed");
}

/* Broker n's connection c: when its oldest request was sent
 * request.timeout.ms before t (or at t, with at_t), the connection
 * closes then, and every request on it ends (models/broker/io.c); else
 * the time it will. */
static int64_t expire_conn(exporter *x, size_t n, int64_t b, int64_t t, bool at_t)
{
    xconn *c = &x->conns[n][b];
    if (!c->nopen)
        return INT64_MAX;
    int64_t deadline = c->open[0].t0 + x->broker_timeout_ns;
    if (deadline > t || (deadline == t && !at_t))
        return deadline;
    end_request(x, n, b, 0, deadline, "timed out (request.timeout.ms)", NULL, NULL, false);
    while (c->nopen)
        end_request(x, n, b, 0, deadline, "given up (its connection timed out)", NULL, NULL,
                    false);
    return INT64_MAX;
}

void ks_xp_expire(exporter *x, int64_t t, bool at_t)
{
    if (!x->conns || x->broker_timeout_ns < 0 || t < x->next_deadline ||
        (t == x->next_deadline && !at_t))
        return;
    int64_t next = INT64_MAX;
    for (size_t n = 0; n < x->nbrokers; n++)
        for (size_t b = 0; x->conns[n] && b < x->nbrokers; b++) {
            int64_t d = expire_conn(x, n, (int64_t)b, t, at_t);
            next = d < next ? d : next;
        }
    x->next_deadline = next;
}

void ks_xp_close_all(exporter *x, int64_t t)
{
    ks_xp_expire(x, t, true);
    for (size_t n = 0; n < ks_xp_run_node(x); n++)
        end_all(x, n, t, "in flight at the end of the trace");
}

void ks_xp_requests_free(exporter *x)
{
    for (size_t n = 0; x->conns && n < ks_xp_run_node(x); n++) {
        for (size_t b = 0; x->conns[n] && b < x->nbrokers; b++) {
            xconn *c = &x->conns[n][b];
            for (size_t i = 0; i < c->nopen; i++)
                free_req(&c->open[i]);
            free(c->open);
            free(c->lane_until);
            free(c->drained);
        }
        free(x->conns[n]);
    }
    free(x->conns);
    for (size_t p = 0; x->prods && p < x->nprods; p++)
        free(x->prods[p].id);
    free(x->prods);
    ks_u64map_free(&x->retried);
}
