/*
 * state.c - the shadow model of the run that `ksim explain` rebuilds from
 * the trace: producers, consumers, topics and partitions, transactional
 * ids, the names of records, the records waiting in the accumulator for
 * their batch, and the batches and requests in flight.
 *
 * Owns: creating, finding and forgetting them (the oldest batches and
 * requests go when LIVE_BATCHES or LIVE_REQUESTS are remembered, the
 * oldest record names when NAME_SLOTS are), resetting the step being
 * built, and freeing the whole model. Never: draws anything or reads a
 * trace line.
 */
#include "tools/explain/internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- strings ---------------------------------------------------------------- */

/* src (NULL: "") into dst[n], cut as snprintf cuts. */
void ks_ex_copy_str(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

/* A copy of s (NULL: ""); NULL, and e->oom set, when memory is short. */
char *ks_ex_dup_or_oom(explain *e, const char *s)
{
    char *d = ks_strdup(s ? s : "");
    if (!d)
        e->oom = true;
    return d;
}

/* ---- participants and partitions ----------------------------------------- */

/* The producer named id, added when the header did not list it. */
size_t ks_ex_prod_of(explain *e, const char *id)
{
    id = id ? id : "?";
    for (size_t i = 0; i < e->nprods; i++)
        if (strcmp(e->prods[i].id, id) == 0)
            return i;
    producer *p = realloc(e->prods, (e->nprods + 1) * sizeof *p);
    if (!p) {
        e->oom = true;
        return 0;
    }
    e->prods = p;
    p = &e->prods[e->nprods];
    memset(p, 0, sizeof *p);
    p->id = ks_ex_dup_or_oom(e, id);
    p->pid = -1;
    p->retries = -1;
    return e->nprods++;
}

/* The consumer named id, added when the header did not list it. */
size_t ks_ex_cons_of(explain *e, const char *id)
{
    id = id ? id : "?";
    for (size_t i = 0; i < e->ncons; i++)
        if (strcmp(e->cons[i].id, id) == 0)
            return i;
    consumer *c = realloc(e->cons, (e->ncons + 1) * sizeof *c);
    if (!c) {
        e->oom = true;
        return 0;
    }
    e->cons = c;
    c = &e->cons[e->ncons];
    memset(c, 0, sizeof *c);
    c->id = ks_ex_dup_or_oom(e, id);
    c->isolation = ks_ex_dup_or_oom(e, "read_uncommitted");
    return e->ncons++;
}

/* The client of a message line, as a lane: 'P' its "producer", 'K' its
 * "consumer", 'B' the broker of its "client" ("broker<N>"; n -1 when the
 * line names no client, as traces written before the field did for a
 * broker's own requests, or names it otherwise). */
lane ks_ex_client_of(explain *e, ks_tline *j)
{
    const char *p = ks_tl_str(j, "producer", NULL), *c = ks_tl_str(j, "consumer", NULL);
    const char *b = ks_tl_str(j, "client", NULL);
    if (p)
        return (lane){'P', (int64_t)ks_ex_prod_of(e, p)};
    if (c)
        return (lane){'K', (int64_t)ks_ex_cons_of(e, c)};
    int64_t n = -1;
    if (b && strncmp(b, "broker", 6) == 0 && b[6] >= '0' && b[6] <= '9' && strlen(b) <= 15) {
        char *end;
        long long v = strtoll(b + 6, &end, 10);
        n = *end ? -1 : (int64_t)v;
    }
    return (lane){'B', n};
}

bool ks_ex_lane_eq(lane a, lane b)
{
    return a.kind == b.kind && a.n == b.n;
}

/* The topic named name, added the first time it is named; NONE when
 * memory is short. */
size_t ks_ex_topic_of(explain *e, const char *name)
{
    name = name ? name : "?";
    for (size_t i = 0; i < e->ntopics; i++)
        if (strcmp(e->topics[i].name, name) == 0)
            return i;
    topic *t = realloc(e->topics, (e->ntopics + 1) * sizeof *t);
    if (!t) {
        e->oom = true;
        return NONE;
    }
    e->topics = t;
    memset(&t[e->ntopics], 0, sizeof *t);
    t[e->ntopics].name = ks_ex_dup_or_oom(e, name);
    return e->ntopics++;
}

static size_t part_new(explain *e, size_t ti, int64_t n)
{
    if (e->nparts == e->parts_cap) {
        size_t cap = e->parts_cap ? e->parts_cap * 2 : 8;
        partition *p = realloc(e->parts, cap * sizeof *p);
        if (!p) {
            e->oom = true;
            return NONE;
        }
        e->parts = p;
        e->parts_cap = cap;
    }
    partition *p = &e->parts[e->nparts];
    memset(p, 0, sizeof *p);
    p->topic = ti;
    p->number = n;
    p->leader = -1;
    p->mk_pid = -1;
    char label[64];
    if (e->single_topic)
        snprintf(label, sizeof label, "P%" PRId64, n);
    p->label = e->single_topic ? ks_ex_dup_or_oom(e, label) : NULL;
    if (!e->single_topic) {
        ks_sbuf b = {0};
        ks_sb_printf(&b, "%s-%" PRId64, e->topics[ti].name, n);
        p->label = b.s ? b.s : ks_ex_dup_or_oom(e, "?");
    }
    return e->nparts++;
}

/* The partition TOPIC-n, added the first time it is named; NONE when n is
 * not a partition number. */
size_t ks_ex_part_of(explain *e, const char *topic_name, int64_t n)
{
    if (n < 0 || n > 1000000)
        return NONE;
    size_t ti = ks_ex_topic_of(e, topic_name);
    if (ti == NONE)
        return NONE;
    topic *t = &e->topics[ti];
    if ((size_t)n >= t->nparts) {
        size_t cap = (size_t)n + 1;
        size_t *p = realloc(t->parts, cap * sizeof *p);
        if (!p) {
            e->oom = true;
            return NONE;
        }
        for (size_t i = t->nparts; i < cap; i++)
            p[i] = NONE;
        t->parts = p;
        t->nparts = cap;
    }
    if (t->parts[n] == NONE)
        t->parts[n] = part_new(e, ti, n);
    return t->parts[n];
}

/* The transactional.id tid's transaction, added the first time it is named. */
size_t ks_ex_txn_of(explain *e, const char *tid)
{
    tid = tid ? tid : "?";
    for (size_t i = 0; i < e->ntxns; i++)
        if (strcmp(e->txns[i].tid, tid) == 0)
            return i;
    txn *t = realloc(e->txns, (e->ntxns + 1) * sizeof *t);
    if (!t) {
        e->oom = true;
        return 0;
    }
    e->txns = t;
    t = &e->txns[e->ntxns];
    memset(t, 0, sizeof *t);
    t->tid = ks_ex_dup_or_oom(e, tid);
    t->coordinator = -1;
    t->pid = t->epoch = -1;
    return e->ntxns++;
}

/* The coordinator of a producer's transactional.id, -1 if not known yet. */
int64_t ks_ex_coord_of_tid(const explain *e, const char *tid)
{
    for (size_t i = 0; tid && i < e->ntxns; i++)
        if (strcmp(e->txns[i].tid, tid) == 0)
            return e->txns[i].coordinator;
    return -1;
}

/* ---- record names ---------------------------------------------------------- */

/* Remembers record id's key (NULL: keyless), as it will be shown: at most
 * KEY_CHARS characters, control characters as '?'. */
void ks_ex_name_store(explain *e, uint64_t id, const char *key)
{
    name_slot *s = &e->names[id % NAME_SLOTS];
    bool keep = s->has_source && s->id == id; /* its forward line came first */
    free(s->key);
    s->key = NULL;
    s->id = id;
    s->used = true;
    s->has_source = keep;
    if (!key)
        return;
    ks_sbuf b = {0};
    if (!*key)
        ks_sb_puts(&b, "\"\"");
    size_t chars = 0;
    for (const char *k = key; *k; k++) {
        unsigned char c = (unsigned char)*k;
        bool lead = (c & 0xC0) != 0x80;
        if ((lead && chars++ == KEY_CHARS) || b.len >= 4 * KEY_CHARS) {
            ks_sb_puts(&b, "\xE2\x80\xA6");
            break;
        }
        char one[2] = {(char)(c < 0x20 || c == 0x7f ? '?' : c), '\0'};
        ks_sb_puts(&b, one);
    }
    s->key = b.s ? b.s : ks_ex_dup_or_oom(e, "?");
}

/* A record written for record `source` (consume-transform-produce): its
 * name will say so. */
void ks_ex_name_source(explain *e, uint64_t id, uint64_t source)
{
    name_slot *s = &e->names[id % NAME_SLOTS];
    if (s->id != id) {
        free(s->key);
        s->key = NULL;
        s->used = false;
    }
    s->id = id;
    s->has_source = true;
    s->source = source;
}

/* Appends s at buf[at] (buf holds n bytes), cut as snprintf cuts;
 * returns the new length. */
size_t ks_ex_put_str(char *buf, size_t n, size_t at, const char *s)
{
    size_t k = strlen(s);
    if (at + k >= n)
        k = at + 1 < n ? n - 1 - at : 0;
    memcpy(buf + at, s, k);
    buf[at + k] = '\0';
    return at + k;
}

/* v in decimal (these run for every record: no printf). */
static void u64_text(uint64_t v, char out[24])
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    out[n] = '\0';
}

/* "A" for a record with key A, else "12". */
static void record_label(const explain *e, uint64_t id, char *buf, size_t n)
{
    const name_slot *s = &e->names[id % NAME_SLOTS];
    char num[24];
    u64_text(id, num);
    ks_ex_put_str(buf, n, 0, s->used && s->id == id && s->key ? s->key : num);
}

/* "record A" when the record had key A, else "record 12"; "record 16
 * (from 13)" when it was written for record 13, which a consumer read. */
void ks_ex_record_name(const explain *e, uint64_t id, char *buf, size_t n)
{
    const name_slot *s = &e->names[id % NAME_SLOTS];
    char self[NAME_BUF], src[NAME_BUF];
    record_label(e, id, self, sizeof self);
    size_t at = ks_ex_put_str(buf, n, ks_ex_put_str(buf, n, 0, "record "), self);
    if (s->id == id && s->has_source) {
        record_label(e, s->source, src, sizeof src);
        at = ks_ex_put_str(buf, n, at, " (from ");
        ks_ex_put_str(buf, n, ks_ex_put_str(buf, n, at, src), ")");
    }
}

/* ---- records waiting for their batch --------------------------------------- */

/* The records of producer prod waiting for a batch of partition part;
 * created when `create` (NULL when memory is short), else NULL if none. */
fifo *ks_ex_fifo_of(explain *e, size_t prod, size_t part, bool create)
{
    uint64_t k = ((uint64_t)prod << 32) ^ (uint64_t)part;
    fifo *q = ks_u64map_get(&e->fifos, k);
    if (q || !create)
        return q;
    q = calloc(1, sizeof *q);
    if (!q || !ks_u64map_put(&e->fifos, k, q)) {
        free(q);
        e->oom = true;
        return NULL;
    }
    return q;
}

/* Adds record id at the back; false when memory is short. */
bool ks_ex_fifo_push(fifo *q, uint64_t id)
{
    if (q->head > 0 && q->head + q->len == q->cap) {
        memmove(q->ids, q->ids + q->head, q->len * sizeof *q->ids);
        q->head = 0;
    }
    if (q->head + q->len == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 16;
        uint64_t *ids = realloc(q->ids, cap * sizeof *ids);
        if (!ids)
            return false;
        q->ids = ids;
        q->cap = cap;
    }
    q->ids[q->head + q->len++] = id;
    return true;
}

/* Forgets record id if it is still waiting (it failed before a batch left
 * with it). The ids are in increasing order. */
void ks_ex_fifo_remove(fifo *q, uint64_t id)
{
    if (!q || !q->len || id < q->ids[q->head] || id > q->ids[q->head + q->len - 1])
        return;
    size_t lo = 0, hi = q->len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (q->ids[q->head + mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == q->len || q->ids[q->head + lo] != id)
        return;
    if (lo == 0) {
        q->head++;
        q->len--;
        return;
    }
    memmove(q->ids + q->head + lo, q->ids + q->head + lo + 1, (q->len - lo - 1) * sizeof *q->ids);
    q->len--;
}

/* ---- batches and requests -------------------------------------------------- */

/* Remembers k; returns true and sets *old when the oldest key had to go. */
static bool ring_push(keyring *r, uint64_t k, uint64_t *old)
{
    if (r->count < r->cap) {
        r->keys[(r->head + r->count++) % r->cap] = k;
        return false;
    }
    *old = r->keys[r->head];
    r->keys[r->head] = k;
    r->head = (r->head + 1) % r->cap;
    return true;
}

/* The key of producer prod's batch or request `id` in e->batches and
 * e->requests. */
uint64_t ks_ex_obj_key(size_t prod, int64_t id)
{
    return ((uint64_t)prod << 44) ^ (uint64_t)id;
}

/* Batch id of producer prod, NULL when not (or no longer) remembered. */
batch *ks_ex_batch_get(const explain *e, size_t prod, int64_t id)
{
    return ks_u64map_get(&e->batches, ks_ex_obj_key(prod, id));
}

static void batch_free(batch *b)
{
    if (b)
        free(b->recs);
    free(b);
}

/* A batch seen for the first time: it takes its records from the front of
 * its partition's queue. The oldest batch remembered is forgotten when
 * LIVE_BATCHES are. */
batch *ks_ex_batch_new(explain *e, size_t prod, int64_t id, size_t part, int64_t records)
{
    batch *b = calloc(1, sizeof *b);
    if (!b) {
        e->oom = true;
        return NULL;
    }
    *b = (batch){.producer = prod, .part = part, .id = id, .records = records,
                 .first_offset = -1, .last_offset = -1, .last_request = -1, .attempt = 1,
                 .base_seq = -1};
    fifo *q = part == NONE ? NULL : ks_ex_fifo_of(e, prod, part, false);
    size_t take = q && records > 0 ? (size_t)records : 0;
    take = q && take > q->len ? q->len : take;
    if (take > 0 && (b->recs = malloc(take * sizeof *b->recs)) != NULL) {
        memcpy(b->recs, q->ids + q->head, take * sizeof *b->recs);
        b->nrecs = take;
        q->head += take;
        q->len -= take;
    }
    for (size_t i = 0; i < b->nrecs; i++)
        b->selected = b->selected || (e->o.has_record && b->recs[i] == e->o.record);
    uint64_t old;
    if (ring_push(&e->batch_ring, ks_ex_obj_key(prod, id), &old))
        batch_free(ks_u64map_del(&e->batches, old));
    if (!ks_u64map_put(&e->batches, ks_ex_obj_key(prod, id), b)) {
        batch_free(b);
        e->oom = true;
        return NULL;
    }
    return b;
}

/* Request id of producer prod, NULL when not (or no longer) remembered. */
request *ks_ex_request_get(const explain *e, size_t prod, int64_t id)
{
    return ks_u64map_get(&e->requests, ks_ex_obj_key(prod, id));
}

/* Frees a request taken out of e->requests (NULL: nothing). */
void ks_ex_request_free(request *q)
{
    if (q)
        free(q->batches);
    free(q);
}

/* A request seen for the first time (its first drain line); the oldest
 * request remembered is forgotten when LIVE_REQUESTS are. */
request *ks_ex_request_new(explain *e, size_t prod, int64_t id, int64_t broker)
{
    request *q = calloc(1, sizeof *q);
    if (!q) {
        e->oom = true;
        return NULL;
    }
    q->producer = prod;
    q->id = id;
    q->broker = broker;
    uint64_t old;
    if (ring_push(&e->req_ring, ks_ex_obj_key(prod, id), &old))
        ks_ex_request_free(ks_u64map_del(&e->requests, old));
    if (!ks_u64map_put(&e->requests, ks_ex_obj_key(prod, id), q)) {
        ks_ex_request_free(q);
        e->oom = true;
        return NULL;
    }
    return q;
}

/* Request q carries batch b (the batch's id). */
void ks_ex_request_add_batch(explain *e, request *q, int64_t b)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 4;
        int64_t *v = realloc(q->batches, cap * sizeof *v);
        if (!v) {
            e->oom = true;
            return;
        }
        q->batches = v;
        q->cap = cap;
    }
    q->batches[q->n++] = b;
}

/* ---- the whole model -------------------------------------------------------- */

/* Forgets what the step being built did, keeping its buffers. */
void ks_ex_step_reset(step *s)
{
    ks_sbuf *bufs[] = {&s->desc, &s->label, &s->mlabel, &s->after, &s->notes, &s->names};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        ks_sb_clear(bufs[i]);
    s->kind = SK_NONE;
    s->t = 0;
    s->producer = s->consumer = s->part = s->txn = NONE;
    s->broker = s->request = -1;
    s->attempt = s->nrecords = s->nbatches = s->first_produced = 0;
    s->produced = s->produced_sent = 0;
    s->api[0] = s->txn_from[0] = '\0';
    s->from = s->to = (lane){0, 0};
    s->style = MS_NONE;
    s->nnames = s->ntouched = 0;
    s->retry = s->acks0_noted = s->about_part = s->about_record = false;
}

/* The bounded tables; false when memory is short. */
bool ks_ex_init(explain *e)
{
    e->filter_part = e->sel_part = NONE;
    e->sel_pid = -1;
    e->marker_coord = -1;
    e->own_struck = -1;
    e->max_broker = -1;
    ks_ex_step_reset(&e->cur);
    e->names = calloc(NAME_SLOTS, sizeof *e->names);
    e->batch_ring = (keyring){calloc(LIVE_BATCHES, sizeof(uint64_t)), 0, 0, LIVE_BATCHES};
    e->req_ring = (keyring){calloc(LIVE_REQUESTS, sizeof(uint64_t)), 0, 0, LIVE_REQUESTS};
    return e->names && e->batch_ring.keys && e->req_ring.keys;
}

static void free_map_values(ks_u64map *m, void (*fn)(void *))
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->vals[i])
            fn(m->vals[i]);
    ks_u64map_free(m);
}

static void free_batch_value(void *v)
{
    batch_free(v);
}

static void free_request_value(void *v)
{
    ks_ex_request_free(v);
}

static void free_fifo_value(void *v)
{
    fifo *q = v;
    free(q->ids);
    free(q);
}

/* Frees everything the explanation holds (not the struct itself). */
void ks_ex_free(explain *e)
{
    for (size_t i = 0; i < e->nparts; i++) {
        for (size_t k = 0; k < BOX_ROWS; k++)
            free(e->parts[i].ring[k].text);
        free(e->parts[i].label);
        ks_sb_free(&e->parts[i].dups);
    }
    for (size_t i = 0; i < e->ntopics; i++) {
        free(e->topics[i].name);
        free(e->topics[i].parts);
    }
    for (size_t i = 0; i < e->nprods; i++) {
        free(e->prods[i].id);
        free(e->prods[i].tid);
        ks_sb_free(&e->prods[i].told);
    }
    for (size_t i = 0; i < e->ncons; i++) {
        free(e->cons[i].id);
        free(e->cons[i].isolation);
        free(e->cons[i].group);
        free(e->cons[i].reset);
        free(e->cons[i].fetched_from);
        ks_sb_free(&e->cons[i].read);
    }
    for (size_t i = 0; i < e->ntxns; i++)
        free(e->txns[i].tid);
    for (size_t i = 0; i < e->nfaults; i++)
        free(e->fault_types[i]);
    for (size_t i = 0; e->names && i < NAME_SLOTS; i++)
        free(e->names[i].key);
    free_map_values(&e->batches, free_batch_value);
    free_map_values(&e->requests, free_request_value);
    free_map_values(&e->fifos, free_fifo_value);
    ks_u64map_free(&e->used);
    ks_sbuf *bufs[] = {&e->cur.desc,  &e->cur.label, &e->cur.mlabel, &e->cur.after,
                       &e->cur.notes, &e->cur.names, &e->mer,        &e->sel_fate};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        ks_sb_free(bufs[i]);
    free(e->cur.touched);
    free(e->parts);
    free(e->topics);
    free(e->prods);
    free(e->cons);
    free(e->txns);
    free(e->fault_types);
    free(e->names);
    free(e->batch_ring.keys);
    free(e->req_ring.keys);
    free(e->scenario);
    free(e->kafka);
    free(e->level);
    json_decref(e->summary);
}
