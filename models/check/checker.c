/*
 * checker.c - the delivery checker (see checker.h).
 *
 * Two open-addressing hash tables with linear probing, keyed by (producer,
 * number): the ledger maps (producer, batch id) to the batch's entry, and
 * the request table maps (producer, request number) to what became of the
 * request, counted by the entries that list it so that it is forgotten
 * with the last of them. Both grow at 70% load, shrink below 1/8 and
 * delete by backward shift, so nothing is left behind by settled batches.
 * Anomalies are listed in the order batches are judged, which follows the
 * calls; nothing is ever ordered by an address.
 */
#include "models/check/checker.h"

#include "models/check/verdicts.h"
#include "sim/sim.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies and requests kept in detail per batch; beyond, only counted. */
#define INLINE 8u
/* Smallest table capacity (a power of two). */
#define MAP_MIN_CAP 256u
/* Entries kept for reuse, so that the common batch costs no malloc. */
#define SPARE_MAX 256u
/* Room for one anomaly's cause: 8 requests of ~130 bytes and the rest. */
#define CAUSE_MAX 1536u

/* A verdict as a bit of a batch's verdicts, listed in "kinds" in the
 * order of verdicts.h. */
#define VERDICT_BIT(v) (1u << KS_VERDICT_##v)

/* What the leader did with the copy a request carried. */
enum { OUT_PENDING, OUT_APPENDED, OUT_REFUSED };

typedef struct copy_rec {
    int64_t offset;
    uint64_t request;
    uint32_t attempt; /* 0 when unknown (the request was not kept) */
} copy_rec;

typedef struct carrier {
    uint64_t request;
    uint32_t attempt;
    uint8_t outcome; /* OUT_* */
    bool counted;    /* holds a reference in the request table */
    uint16_t why;    /* interned refusal reason, 0 for none */
} carrier;

/* The batch that landed furthest in a producer's partition: 1 + its
 * order (0: none yet), and its id. */
typedef struct landed {
    uint64_t order1, batch;
} landed;

/* One batch in flight (see checker.h, "Owns"). */
typedef struct entry {
    uint64_t batch;
    uint64_t order;        /* its place among the producer's batches: its id,
                              or for a batch split from another, that one's */
    uint64_t overtaken_by; /* 1 + the later batch that landed first; 0 if none */
    uint64_t last_request; /* the latest request, kept even past INLINE */
    uint64_t *ids;         /* record ids, copied when told before settled */
    int64_t told_offset;
    uint32_t producer, partition, records;
    uint32_t unresolved; /* requests carrying it not yet appended or refused */
    uint32_t ncopies, ncarriers, nids, last_attempt;
    uint32_t split_records; /* records moved on into split batches */
    ks_told told;
    uint16_t error; /* interned error name, 0 for none */
    copy_rec copies[INLINE];
    carrier carriers[INLINE];
} entry;

/* What became of a request, and how many ledger entries list it. */
typedef struct req_info {
    uint32_t refs;
    int32_t fault;
    ks_request_fate fate;
} req_info;

typedef struct slot {
    uint64_t key;
    uint32_t producer;
    bool used;
    ks_time read_ns;   /* the reads table: when it was first read */
    union {
        entry *e;
        req_info r;
        uint64_t source; /* the lineage table: the record it was written for */
    } v;
} slot;

/* A consumer read a record written for record `source` (consume-
 * transform-produce). */
typedef struct effect_read {
    uint64_t source, output;
    uint32_t consumer;
} effect_read;

typedef struct map {
    slot *slots;
    size_t cap; /* a power of two */
    size_t count;
} map;

struct ks_checker {
    entry *spare[SPARE_MAX];
    uint32_t nspare;
    uint32_t producers, partitions;
    const char *const *producer_ids;
    const char *const *partition_names;
    landed *high;   /* [producer * partitions + partition]: the furthest batch landed */
    map ledger, requests;
    map aborted;      /* records whose writer failed or whose transaction aborted */
    map zombie;       /* records a fenced producer sent in its last transaction */
    /* committed transactions: their records (and partitions), in commit
     * order, and the partitions read_committed consumers read */
    uint64_t *ctx_ids;
    uint32_t *ctx_parts;
    ks_time *ctx_decided;      /* per record: when its transaction committed */
    uint64_t nctx, ctx_cap;
    uint64_t *ctx_start;       /* per transaction: index of its first record */
    uint32_t *ctx_producer;
    uint64_t *ctx_number;
    uint64_t ntx, tx_cap;
    bool *part_read;           /* per partition: a read_committed consumer reads it */
    ks_time *read_at;          /* per slot of `reads`: when it was first read */
    uint32_t consumers_seen;   /* 1 + the highest consumer index read by */
    map reads;        /* records read by read_committed consumers (producer = consumer) */
    map ureads;       /* transactional records read by read_uncommitted ones */
    uint64_t *read_aborted_by; /* per consumer, after the finish: reads of aborted data */
    uint32_t nread_aborted_by;
    map lineage;      /* records written for a record read, and that record */
    effect_read *effects; /* every read of such a record, by any consumer */
    uint64_t neffects, effects_cap;
    bool reads_on;    /* the maps above are kept (a consumer reads committed) */
    char **names; /* interned error names; index + 1 is the handle */
    uint32_t nnames, names_cap;
    json_t *anomalies;
    uint64_t anomalies_total;
    uint64_t acked, acked_no_offset, failed, untold;
    uint64_t count[KS_VERDICT__COUNT]; /* records per verdict (verdicts.h) */
    size_t bytes;          /* held, for ks_checker_bytes */
    uint64_t alloc_budget; /* allocations left before simulated exhaustion */
    bool out_of_memory;
};

const char *ks_request_fate_name(ks_request_fate f)
{
    static const char *const names[] = {
#define X(e, name) name,
        KS_REQUEST_FATES(X)
#undef X
    };
    size_t i = (size_t)f;
    return i < sizeof names / sizeof names[0] ? names[i] : "unknown";
}

/* ---- memory ---------------------------------------------------------- */

/* n zeroed bytes, counted in c->bytes. A failure marks the run out of
 * memory when the allocation was needed (not for an optional shrink). */
static void *ck_alloc(ks_checker *c, size_t n, bool needed)
{
    void *p = NULL;
    if (c->alloc_budget > 0) {
        p = calloc(1, n);
        if (c->alloc_budget != UINT64_MAX)
            c->alloc_budget--;
    }
    if (!p) {
        if (needed)
            c->out_of_memory = true;
        return NULL;
    }
    c->bytes += n;
    return p;
}

static void ck_free(ks_checker *c, void *p, size_t n)
{
    if (p) {
        free(p);
        c->bytes -= n;
    }
}

/* ---- hash tables ----------------------------------------------------- */

/* splitmix64's finaliser: a fixed, well-spread hash of the key. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static size_t home_of(const map *m, uint32_t producer, uint64_t key)
{
    return (size_t)(mix64(((uint64_t)producer << 48) ^ key) & (uint64_t)(m->cap - 1u));
}

static bool map_init(ks_checker *c, map *m)
{
    m->slots = ck_alloc(c, MAP_MIN_CAP * sizeof *m->slots, true);
    m->cap = m->slots ? MAP_MIN_CAP : 0;
    m->count = 0;
    return m->slots != NULL;
}

static void map_free(ks_checker *c, map *m)
{
    ck_free(c, m->slots, m->cap * sizeof *m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}

/* Moves every slot into a table of cap slots, in index order. */
static bool map_resize(ks_checker *c, map *m, size_t cap, bool needed)
{
    if (cap > SIZE_MAX / 2u / sizeof *m->slots) {
        c->out_of_memory = c->out_of_memory || needed;
        return false;
    }
    map bigger = {ck_alloc(c, cap * sizeof *m->slots, needed), cap, m->count};
    if (!bigger.slots)
        return false;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].used)
            continue;
        size_t j = home_of(&bigger, m->slots[i].producer, m->slots[i].key);
        while (bigger.slots[j].used)
            j = (j + 1u) & (cap - 1u);
        bigger.slots[j] = m->slots[i];
    }
    ck_free(c, m->slots, m->cap * sizeof *m->slots);
    *m = bigger;
    return true;
}

/* The key's slot, or NULL; *empty gets the free slot where the probe
 * ended, where the key would be inserted while the table keeps its size. */
static slot *map_probe(const map *m, uint32_t producer, uint64_t key, size_t *empty)
{
    for (size_t i = home_of(m, producer, key);; i = (i + 1u) & (m->cap - 1u)) {
        slot *s = &m->slots[i];
        if (!s->used) {
            *empty = i;
            return NULL;
        }
        if (s->key == key && s->producer == producer)
            return s;
    }
}

static slot *map_find(const map *m, uint32_t producer, uint64_t key)
{
    size_t empty;
    return map_probe(m, producer, key, &empty);
}

/* Takes free slot i for the key, zeroed. */
static slot *claim(map *m, size_t i, uint32_t producer, uint64_t key)
{
    slot *s = &m->slots[i];
    memset(s, 0, sizeof *s);
    s->used = true;
    s->key = key;
    s->producer = producer;
    m->count++;
    return s;
}

/* A new zeroed slot for a key not in the table; NULL without memory. */
static slot *map_insert(ks_checker *c, map *m, uint32_t producer, uint64_t key)
{
    if ((m->count + 1u) * 10u > m->cap * 7u && !map_resize(c, m, m->cap * 2u, true))
        return NULL;
    size_t i = home_of(m, producer, key);
    while (m->slots[i].used)
        i = (i + 1u) & (m->cap - 1u);
    return claim(m, i, producer, key);
}

/* A new zeroed slot for a key not in the table, at `empty` (from
 * map_probe, the table unchanged since) unless the table must grow
 * first; NULL without memory. The pointer is valid until the table is
 * next changed. */
static slot *map_insert_at(ks_checker *c, map *m, uint32_t producer, uint64_t key, size_t empty)
{
    if ((m->count + 1u) * 10u > m->cap * 7u)
        return map_insert(c, m, producer, key); /* grows, then looks again */
    return claim(m, empty, producer, key);
}

/* Deletes by shifting back the slots of the probe run that follows, so
 * no tombstone is left, then halves the table if it is mostly empty. */
static void map_remove(ks_checker *c, map *m, slot *s)
{
    size_t mask = m->cap - 1u, hole = (size_t)(s - m->slots), j = hole;
    for (;;) {
        j = (j + 1u) & mask;
        if (!m->slots[j].used)
            break;
        size_t home = home_of(m, m->slots[j].producer, m->slots[j].key);
        /* Slot j may fill the hole unless its home lies after the hole. */
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            m->slots[hole] = m->slots[j];
            hole = j;
        }
    }
    m->slots[hole].used = false;
    m->count--;
    if (m->cap > MAP_MIN_CAP && m->count * 16u < m->cap)
        (void)map_resize(c, m, m->cap / 2u, false);
}

/* ---- small helpers --------------------------------------------------- */

/* A handle for the name (0 for NULL), kept until the checker is freed:
 * error names are few and repeat, so each is stored once. */
static uint16_t intern(ks_checker *c, const char *name)
{
    if (!name)
        return 0;
    for (uint32_t i = 0; i < c->nnames; i++)
        if (strcmp(c->names[i], name) == 0)
            return (uint16_t)(i + 1u);
    if (c->nnames >= UINT16_MAX - 1u)
        return 0;
    if (c->nnames == c->names_cap) {
        uint32_t cap = c->names_cap ? c->names_cap * 2u : 8u;
        char **names = ck_alloc(c, cap * sizeof *names, true);
        if (!names)
            return 0;
        if (c->nnames)
            memcpy(names, c->names, c->nnames * sizeof *names);
        ck_free(c, c->names, c->names_cap * sizeof *names);
        c->names = names;
        c->names_cap = cap;
    }
    size_t len = strlen(name) + 1u;
    char *copy = ck_alloc(c, len, true);
    if (!copy)
        return 0;
    memcpy(copy, name, len);
    c->names[c->nnames++] = copy;
    return (uint16_t)c->nnames;
}

static const char *name_of(const ks_checker *c, uint16_t handle)
{
    return handle ? c->names[handle - 1u] : NULL;
}

static const char *told_name(ks_told t)
{
    switch (t) {
    case KS_TOLD_NOTHING:
        return "nothing";
    case KS_TOLD_ACKED:
        return "acked";
    case KS_TOLD_ACKED_NO_OFFSET:
        return "acked_no_offset";
    case KS_TOLD_FAILED:
        return "failed";
    }
    return "nothing";
}

static carrier *find_carrier(entry *e, uint64_t request)
{
    uint32_t n = e->ncarriers < INLINE ? e->ncarriers : INLINE;
    for (uint32_t i = 0; i < n; i++)
        if (e->carriers[i].request == request)
            return &e->carriers[i];
    return NULL;
}

static const copy_rec *find_copy(const entry *e, uint64_t request)
{
    uint32_t n = e->ncopies < INLINE ? e->ncopies : INLINE;
    for (uint32_t i = 0; i < n; i++)
        if (e->copies[i].request == request)
            return &e->copies[i];
    return NULL;
}

/* What became of a request the entry lists (pending if not known). */
static req_info fate_of(const ks_checker *c, uint32_t producer, const carrier *k)
{
    req_info none = {0, KS_CHECK_NO_FAULT, KS_FATE_PENDING};
    const slot *s = k->counted ? map_find(&c->requests, producer, k->request) : NULL;
    return s ? s->v.r : none;
}

static json_t *jint(uint64_t v)
{
    return json_integer((json_int_t)v);
}

static json_t *jstr(const char *s)
{
    return s ? json_string_nocheck(s) : json_null();
}

/* Adds key: value to an object, clearing *ok if that fails (the value is
 * released either way, as json_object_set_new does). */
static void put(json_t *obj, const char *key, json_t *value, bool *ok)
{
    if (json_object_set_new(obj, key, value) != 0)
        *ok = false;
}

static void push(json_t *arr, json_t *value, bool *ok)
{
    if (json_array_append_new(arr, value) != 0)
        *ok = false;
}

/* ---- causes ---------------------------------------------------------- */

typedef struct text {
    char s[CAUSE_MAX];
    size_t n;
} text;

/* Appends to t, truncating silently when it is full. */
static void say(text *t, const char *fmt, ...)
{
    if (t->n + 1u >= sizeof t->s)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(t->s + t->n, sizeof t->s - t->n, fmt, ap);
    va_end(ap);
    if (w > 0)
        t->n += (size_t)w < sizeof t->s - t->n ? (size_t)w : sizeof t->s - t->n - 1u;
}

static void say_fault(text *t, int32_t fault)
{
    if (fault != KS_CHECK_NO_FAULT)
        say(t, " (fault %ld)", (long)fault);
}

/* One request's part of the cause: what the leader did with its copy and
 * what became of its response. */
static void say_request(const ks_checker *c, const entry *e, const carrier *k, text *t)
{
    req_info f = fate_of(c, e->producer, k);
    const copy_rec *cp = find_copy(e, k->request);
    say(t, "request %llu (attempt %lu) ", (unsigned long long)k->request,
        (unsigned long)k->attempt);
    if (k->outcome == OUT_APPENDED) {
        /* "again" when another copy landed first (copies are kept in the
         * order they landed; one not kept landed after eight others). */
        say(t, "appended it%s", cp != &e->copies[0] ? " again" : "");
        if (cp)
            say(t, " at offset %lld", (long long)cp->offset);
    } else if (f.fate == KS_FATE_REQUEST_DROPPED) {
        say(t, "was dropped before reaching the broker");
        say_fault(t, f.fault);
        return;
    } else if (k->outcome == OUT_REFUSED) {
        const char *why = name_of(c, k->why);
        if (why && strcmp(why, "DUPLICATE") == 0)
            say(t, "was recognised by the broker as a duplicate");
        else if (why)
            say(t, "was refused (%s)", why);
        else
            say(t, "was refused");
    } else {
        say(t, "had not reached a log by the end of the run");
    }
    if (f.fate == KS_FATE_RESPONSE_DROPPED)
        say(t, " but its response was dropped");
    else if (f.fate == KS_FATE_DISCARDED)
        say(t, " but its response was discarded when the connection closed");
    else if (f.fate == KS_FATE_TIMED_OUT)
        say(t, " but timed out");
    else
        return;
    say_fault(t, f.fault);
}

static void say_told(const ks_checker *c, const entry *e, text *t)
{
    const char *error = name_of(c, e->error);
    switch (e->told) {
    case KS_TOLD_NOTHING:
        say(t, "the producer was never told anything");
        break;
    case KS_TOLD_ACKED:
        if (e->told_offset >= 0)
            say(t, "the producer was told it succeeded at offset %lld",
                (long long)e->told_offset);
        else
            say(t, "the producer was told it succeeded");
        break;
    case KS_TOLD_ACKED_NO_OFFSET:
        say(t, "the producer was told it succeeded (acks=0)");
        break;
    case KS_TOLD_FAILED:
        if (error)
            say(t, "the producer was told %s", error);
        else
            say(t, "the producer was told it failed");
        break;
    }
}

/* The cause: one clause per request, then reordering, then what the
 * producer was told, joined by "; ". */
static json_t *cause_of(const ks_checker *c, const entry *e)
{
    text t;
    t.n = 0;
    t.s[0] = '\0';
    uint32_t listed = e->ncarriers < INLINE ? e->ncarriers : INLINE;
    if (listed == 0)
        say(&t, "the batch was never sent; ");
    for (uint32_t i = 0; i < listed; i++) {
        say_request(c, e, &e->carriers[i], &t);
        say(&t, "; ");
    }
    if (e->ncarriers > INLINE)
        say(&t, "%lu more requests not listed; ", (unsigned long)(e->ncarriers - INLINE));
    if (e->ncopies > INLINE)
        say(&t, "%lu more copies not listed; ", (unsigned long)(e->ncopies - INLINE));
    if (e->overtaken_by)
        say(&t, "its first copy landed after batch %llu of the same partition; ",
            (unsigned long long)(e->overtaken_by - 1u));
    say_told(c, e, &t);
    return json_stringn_nocheck(t.s, t.n);
}

/* ---- anomalies ------------------------------------------------------- */

static json_t *kinds_of(unsigned kinds, bool *ok)
{
    json_t *arr = json_array();
    for (unsigned i = 0; i < KS_VERDICT__COUNT; i++)
        if (kinds & (1u << i))
            push(arr, json_string(ks_verdict_key((ks_verdict)i)), ok);
    return arr;
}

static json_t *records_of(const entry *e, const uint64_t *ids, uint32_t nids, bool *ok)
{
    if (!ids || nids == 0)
        return jint(e->records);
    json_t *arr = json_array();
    for (uint32_t i = 0; i < nids; i++)
        push(arr, jint(ids[i]), ok);
    return arr;
}

/* "offsets" and "copies": the copies kept, in the order they landed. */
static void put_copies(json_t *obj, const entry *e, bool *ok)
{
    json_t *offsets = json_array(), *copies = json_array();
    uint32_t n = e->ncopies < INLINE ? e->ncopies : INLINE;
    for (uint32_t i = 0; i < n; i++) {
        const copy_rec *cp = &e->copies[i];
        json_t *one = json_object();
        push(offsets, json_integer((json_int_t)cp->offset), ok);
        put(one, "offset", json_integer((json_int_t)cp->offset), ok);
        put(one, "request", jint(cp->request), ok);
        put(one, "attempt", cp->attempt ? jint(cp->attempt) : json_null(), ok);
        push(copies, one, ok);
    }
    put(obj, "offsets", offsets, ok);
    put(obj, "copies", copies, ok);
}

static json_t *requests_of(const ks_checker *c, const entry *e, bool *ok)
{
    json_t *arr = json_array();
    uint32_t n = e->ncarriers < INLINE ? e->ncarriers : INLINE;
    for (uint32_t i = 0; i < n; i++) {
        const carrier *k = &e->carriers[i];
        req_info f = fate_of(c, e->producer, k);
        json_t *one = json_object();
        put(one, "request", jint(k->request), ok);
        put(one, "attempt", jint(k->attempt), ok);
        put(one, "fate", json_string(ks_request_fate_name(f.fate)), ok);
        put(one, "fault", f.fault == KS_CHECK_NO_FAULT ? json_null() : json_integer(f.fault),
            ok);
        push(arr, one, ok);
    }
    return arr;
}

/* Appends an anomaly to the list, or marks the run out of memory. */
static void list_anomaly(ks_checker *c, json_t *obj, bool ok)
{
    if (ok && json_array_append_new(c->anomalies, obj) == 0)
        return; /* json_array_append_new releases obj when it fails */
    if (!ok)
        json_decref(obj);
    c->out_of_memory = true;
}

static void describe(ks_checker *c, const entry *e, unsigned kinds, const uint64_t *ids,
                     uint32_t nids)
{
    bool ok = true;
    json_t *obj = json_object();
    const char *partition = e->partition < c->partitions && c->partition_names
                                ? c->partition_names[e->partition]
                                : NULL;
    put(obj, "kinds", kinds_of(kinds, &ok), &ok);
    put(obj, "producer", jstr(c->producer_ids ? c->producer_ids[e->producer] : NULL), &ok);
    put(obj, "partition", jstr(partition), &ok);
    put(obj, "batch", jint(e->batch), &ok);
    put(obj, "records", records_of(e, ids, nids, &ok), &ok);
    put(obj, "told", json_string(told_name(e->told)), &ok);
    put(obj, "error", jstr(name_of(c, e->error)), &ok);
    put_copies(obj, e, &ok);
    put(obj, "requests", requests_of(c, e, &ok), &ok);
    put(obj, "cause", cause_of(c, e), &ok);
    list_anomaly(c, obj, ok);
}

/* The verdicts on a batch (settled, or open at the end of the run), added
 * to the counts; an anomaly is listed while there is room. */
static void judge(ks_checker *c, const entry *e, const uint64_t *ids, uint32_t nids)
{
    unsigned kinds = 0;
    uint64_t r = e->records;
    bool told_ok = e->told == KS_TOLD_ACKED || e->told == KS_TOLD_ACKED_NO_OFFSET;
    if (told_ok && e->ncopies == 0) {
        kinds |= VERDICT_BIT(LOST);
        c->count[KS_VERDICT_LOST] += r;
    }
    if (e->ncopies > 1u) {
        kinds |= VERDICT_BIT(DUPLICATE);
        c->count[KS_VERDICT_DUPLICATE] += r;
        c->count[KS_VERDICT_EXTRA_COPIES] += (uint64_t)(e->ncopies - 1u) * r;
    }
    if (e->overtaken_by) {
        kinds |= VERDICT_BIT(NONMONOTONIC_SEND);
        c->count[KS_VERDICT_NONMONOTONIC_SEND] += r;
    }
    if (e->told == KS_TOLD_FAILED && e->ncopies > 0) {
        kinds |= VERDICT_BIT(FAILED_BUT_PRESENT);
        c->count[KS_VERDICT_FAILED_BUT_PRESENT] += r;
    }
    if (e->told == KS_TOLD_NOTHING) {
        kinds |= VERDICT_BIT(INDETERMINATE);
        c->count[KS_VERDICT_INDETERMINATE] += r;
        c->untold += r;
    }
    if (!kinds)
        return;
    c->anomalies_total++;
    if (json_array_size(c->anomalies) < KS_CHECK_LIST_MAX)
        describe(c, e, kinds, ids, nids);
}

/* ---- the ledger ------------------------------------------------------ */

/* Counts one more entry listing the request, creating its record. */
static bool request_ref(ks_checker *c, uint32_t producer, uint64_t request)
{
    size_t empty;
    slot *s = map_probe(&c->requests, producer, request, &empty);
    if (!s) {
        s = map_insert_at(c, &c->requests, producer, request, empty);
        if (!s)
            return false;
        s->v.r.fate = KS_FATE_PENDING;
        s->v.r.fault = KS_CHECK_NO_FAULT;
    }
    s->v.r.refs++;
    return true;
}

static void request_unref(ks_checker *c, uint32_t producer, uint64_t request)
{
    slot *s = map_find(&c->requests, producer, request);
    if (s && --s->v.r.refs == 0)
        map_remove(c, &c->requests, s);
}

/* Releases an entry that has left the ledger (or never entered it). */
static void entry_free(ks_checker *c, entry *e)
{
    uint32_t n = e->ncarriers < INLINE ? e->ncarriers : INLINE;
    for (uint32_t i = 0; i < n; i++)
        if (e->carriers[i].counted)
            request_unref(c, e->producer, e->carriers[i].request);
    ck_free(c, e->ids, (size_t)e->nids * sizeof *e->ids);
    if (c->nspare < SPARE_MAX) {
        /* kept for the next batch; counted as released */
        c->spare[c->nspare++] = e;
        c->bytes -= sizeof *e;
        return;
    }
    ck_free(c, e, sizeof *e);
}

/* A zeroed entry: a spare one if any. */
static entry *entry_alloc(ks_checker *c)
{
    if (c->nspare == 0)
        return ck_alloc(c, sizeof(entry), true);
    entry *e = c->spare[--c->nspare];
    /* copies[] and carriers[] are read only below ncopies and ncarriers,
     * and each is written whole when added */
    memset(e, 0, offsetof(entry, copies));
    c->bytes += sizeof *e;
    return e;
}

/* Judges a settled entry and forgets it. */
static void settle(ks_checker *c, entry *e, const uint64_t *ids, uint32_t nids)
{
    judge(c, e, ids, nids);
    slot *s = map_find(&c->ledger, e->producer, e->batch);
    if (s)
        map_remove(c, &c->ledger, s);
    entry_free(c, e);
}

static entry *ledger_find(const ks_checker *c, uint32_t producer, uint64_t batch)
{
    const slot *s = map_find(&c->ledger, producer, batch);
    return s ? s->v.e : NULL;
}

/* ledger_find, with where an entry for it would go (entry_open). */
static entry *ledger_probe(const ks_checker *c, uint32_t producer, uint64_t batch,
                           size_t *empty)
{
    const slot *s = map_probe(&c->ledger, producer, batch, empty);
    return s ? s->v.e : NULL;
}

/* A new entry for a batch the ledger does not hold; `empty` is where
 * the ledger's probe for it ended (ledger_probe). */
static entry *entry_open(ks_checker *c, uint32_t producer, uint64_t batch,
                         uint32_t partition, uint32_t records, size_t empty)
{
    entry *e = entry_alloc(c);
    if (!e)
        return NULL;
    slot *s = map_insert_at(c, &c->ledger, producer, batch, empty);
    if (!s) {
        ck_free(c, e, sizeof *e);
        return NULL;
    }
    s->v.e = e;
    e->producer = producer;
    e->batch = batch;
    e->partition = partition;
    e->records = records;
    e->order = batch;
    e->told_offset = -1;
    return e;
}

/* Forgets an entry without judging it: a batch split into others, whose
 * records those are judged with. */
static void forget(ks_checker *c, entry *e)
{
    slot *s = map_find(&c->ledger, e->producer, e->batch);
    if (s)
        map_remove(c, &c->ledger, s);
    entry_free(c, e);
}

/* One request carrying the batch was appended or refused. */
static void resolve_one(ks_checker *c, entry *e)
{
    if (e->unresolved > 0)
        e->unresolved--;
    if (e->unresolved == 0 && e->split_records >= e->records && e->records > 0)
        forget(c, e);
    else if (e->unresolved == 0 && e->told != KS_TOLD_NOTHING)
        settle(c, e, e->ids, e->nids);
}

/* ---- the API --------------------------------------------------------- */

ks_checker *ks_checker_create(uint32_t producers, const char *const *producer_ids,
                              uint32_t partitions, const char *const *partition_names)
{
    ks_checker *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->bytes = sizeof *c;
    c->alloc_budget = UINT64_MAX;
    c->producers = producers;
    c->partitions = partitions;
    c->producer_ids = producer_ids;
    c->partition_names = partition_names;
    size_t cells = (size_t)producers * partitions;
    bool sizes_ok = partitions == 0 || cells / partitions == producers;
    if (sizes_ok && cells > 0)
        c->high = ck_alloc(c, cells * sizeof *c->high, true);
    c->anomalies = json_array();
    if (!sizes_ok || (cells > 0 && !c->high) || !c->anomalies || !map_init(c, &c->ledger) ||
        !map_init(c, &c->requests) || !map_init(c, &c->aborted) || !map_init(c, &c->reads) ||
        !map_init(c, &c->ureads) ||
        !map_init(c, &c->zombie) || !map_init(c, &c->lineage)) {
        ks_checker_free(c);
        return NULL;
    }
    return c;
}

void ks_checker_free(ks_checker *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->ledger.cap; i++)
        if (c->ledger.slots[i].used)
            entry_free(c, c->ledger.slots[i].v.e);
    map_free(c, &c->ledger);
    map_free(c, &c->requests);
    map_free(c, &c->aborted);
    map_free(c, &c->zombie);
    free(c->ctx_ids);
    free(c->ctx_parts);
    free(c->ctx_decided);
    free(c->ctx_start);
    free(c->ctx_producer);
    free(c->ctx_number);
    free(c->part_read);
    map_free(c, &c->reads);
    map_free(c, &c->ureads);
    free(c->read_aborted_by);
    map_free(c, &c->lineage);
    free(c->effects);
    while (c->nspare > 0)
        free(c->spare[--c->nspare]);
    for (uint32_t i = 0; i < c->nnames; i++)
        ck_free(c, c->names[i], strlen(c->names[i]) + 1u);
    ck_free(c, c->names, c->names_cap * sizeof *c->names);
    ck_free(c, c->high, (size_t)c->producers * c->partitions * sizeof *c->high);
    json_decref(c->anomalies);
    free(c);
}

void ks_checker_sent(ks_checker *c, uint32_t producer, uint64_t batch, uint32_t partition,
                     uint32_t records, uint64_t request, uint32_t attempt)
{
    if (!c || producer >= c->producers || partition >= c->partitions ||
        batch == KS_CHECK_NO_BATCH)
        return;
    size_t empty;
    entry *e = ledger_probe(c, producer, batch, &empty);
    if (!e)
        e = entry_open(c, producer, batch, partition, records, empty);
    if (!e)
        return;
    e->unresolved++;
    e->last_request = request;
    e->last_attempt = attempt;
    if (e->ncarriers < INLINE) {
        carrier *k = &e->carriers[e->ncarriers];
        k->request = request;
        k->attempt = attempt;
        k->outcome = OUT_PENDING;
        k->why = 0;
        k->counted = request_ref(c, producer, request);
    }
    if (e->ncarriers < UINT32_MAX)
        e->ncarriers++;
}

void ks_checker_appended(ks_checker *c, uint32_t producer, uint64_t batch, uint64_t request,
                         int64_t base_offset)
{
    entry *e = c ? ledger_find(c, producer, batch) : NULL;
    if (!e)
        return;
    carrier *k = find_carrier(e, request);
    if (k)
        k->outcome = OUT_APPENDED;
    if (e->ncopies == 0) {
        /* The first copy decides the batch's place in its partition. */
        landed *high = &c->high[(size_t)e->producer * c->partitions + e->partition];
        if (high->order1 > e->order + 1u) {
            e->overtaken_by = high->batch + 1u;
        } else {
            high->order1 = e->order + 1u;
            high->batch = batch;
        }
    }
    if (e->ncopies < INLINE) {
        copy_rec *cp = &e->copies[e->ncopies];
        cp->offset = base_offset;
        cp->request = request;
        cp->attempt = k ? k->attempt : request == e->last_request ? e->last_attempt : 0;
    }
    if (e->ncopies < UINT32_MAX)
        e->ncopies++;
    resolve_one(c, e);
}

void ks_checker_not_appended(ks_checker *c, uint32_t producer, uint64_t batch,
                             uint64_t request, const char *why)
{
    entry *e = c ? ledger_find(c, producer, batch) : NULL;
    if (!e)
        return;
    carrier *k = find_carrier(e, request);
    if (k) {
        k->outcome = OUT_REFUSED;
        k->why = intern(c, why);
    }
    resolve_one(c, e);
}

void ks_checker_split(ks_checker *c, uint32_t producer, uint64_t batch, uint64_t into,
                      uint32_t partition, uint32_t records)
{
    if (!c || producer >= c->producers || partition >= c->partitions)
        return;
    entry *old = ledger_find(c, producer, batch);
    size_t empty;
    entry *e = ledger_probe(c, producer, into, &empty);
    if (!e)
        e = entry_open(c, producer, into, partition, records, empty);
    if (e) /* the split batch keeps the place of the one it came from */
        e->order = old ? old->order : batch;
    if (!old)
        return;
    old->split_records += records;
    if (old->split_records >= old->records && old->unresolved == 0)
        forget(c, old);
}

void ks_checker_request_fate(ks_checker *c, uint32_t producer, uint64_t request,
                             ks_request_fate fate, int32_t fault)
{
    /* Only requests that ledger entries list are kept: a fate for any
     * other can no longer explain anything. */
    slot *s = c ? map_find(&c->requests, producer, request) : NULL;
    if (s && (size_t)fate < KS_FATE__COUNT) {
        s->v.r.fate = fate;
        s->v.r.fault = fault;
    }
}

static void count_told(ks_checker *c, ks_told told, uint32_t n)
{
    switch (told) {
    case KS_TOLD_NOTHING:
        break;
    case KS_TOLD_ACKED:
        c->acked += n;
        break;
    case KS_TOLD_ACKED_NO_OFFSET:
        c->acked_no_offset += n;
        break;
    case KS_TOLD_FAILED:
        c->failed += n;
        break;
    }
}

/* Told about a batch the ledger does not hold: it was never sent, so it
 * is judged at once with no copies. */
static void judge_unsent(ks_checker *c, uint32_t producer, uint64_t batch, uint32_t partition,
                         ks_told told, const char *error, int64_t offset,
                         const uint64_t *record_ids, uint32_t n)
{
    entry e;
    memset(&e, 0, sizeof e);
    e.producer = producer;
    e.batch = batch;
    e.partition = partition;
    e.records = n;
    e.told = told;
    e.error = intern(c, error);
    e.told_offset = offset;
    judge(c, &e, record_ids, n);
}

void ks_checker_told(ks_checker *c, uint32_t producer, uint64_t batch, uint32_t partition,
                     ks_told told, const char *error, int64_t offset,
                     const uint64_t *record_ids, uint32_t n)
{
    if (!c || producer >= c->producers || told == KS_TOLD_NOTHING)
        return;
    entry *e = batch == KS_CHECK_NO_BATCH ? NULL : ledger_find(c, producer, batch);
    if (e && e->told != KS_TOLD_NOTHING)
        return; /* told twice: the first word stands */
    count_told(c, told, n);
    if (told == KS_TOLD_FAILED)
        ks_checker_aborted(c, record_ids, n);
    if (batch == KS_CHECK_NO_BATCH)
        return;
    if (!e) {
        judge_unsent(c, producer, batch, partition, told, error, offset, record_ids, n);
        return;
    }
    e->told = told;
    e->error = intern(c, error);
    e->told_offset = offset;
    if (e->unresolved == 0) {
        settle(c, e, record_ids, n);
        return;
    }
    if (record_ids && n > 0) {
        e->ids = ck_alloc(c, (size_t)n * sizeof *e->ids, true);
        if (e->ids) {
            memcpy(e->ids, record_ids, (size_t)n * sizeof *e->ids);
            e->nids = n;
        }
    }
}

void ks_checker_untold(ks_checker *c, uint32_t producer, uint64_t records)
{
    if (!c || producer >= c->producers || records == 0)
        return;
    c->untold += records;
    c->count[KS_VERDICT_INDETERMINATE] += records;
    c->anomalies_total++;
    if (json_array_size(c->anomalies) >= KS_CHECK_LIST_MAX)
        return;
    bool ok = true;
    json_t *obj = json_object();
    put(obj, "kinds", kinds_of(VERDICT_BIT(INDETERMINATE), &ok), &ok);
    put(obj, "producer", jstr(c->producer_ids ? c->producer_ids[producer] : NULL), &ok);
    put(obj, "partition", json_null(), &ok);
    put(obj, "batch", json_null(), &ok);
    put(obj, "records", jint(records), &ok);
    put(obj, "told", json_string("nothing"), &ok);
    put(obj, "error", json_null(), &ok);
    put(obj, "offsets", json_array(), &ok);
    put(obj, "copies", json_array(), &ok);
    put(obj, "requests", json_array(), &ok);
    text t;
    t.n = 0;
    t.s[0] = '\0';
    say(&t, "%llu records were never sent and never told anything by the end of the run",
        (unsigned long long)records);
    put(obj, "cause", json_stringn_nocheck(t.s, t.n), &ok);
    list_anomaly(c, obj, ok);
}

uint64_t ks_checker_open_batches(const ks_checker *c)
{
    return c ? (uint64_t)c->ledger.count : 0;
}

size_t ks_checker_bytes(const ks_checker *c)
{
    return c ? c->bytes : 0;
}

void ks_checker_fail_allocations_after(ks_checker *c, uint64_t n)
{
    if (c)
        c->alloc_budget = n;
}

static int by_producer_batch(const void *a, const void *b)
{
    const slot *x = a, *y = b;
    if (x->producer != y->producer)
        return x->producer < y->producer ? -1 : 1;
    return (x->key > y->key) - (x->key < y->key);
}

/* Judges the entries still open in ascending (producer, batch) order. The
 * ledger's slots are sorted in place, which needs no memory; the ledger is
 * empty afterwards. */
static void judge_open(ks_checker *c)
{
    map *m = &c->ledger;
    size_t n = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].used)
            m->slots[n++] = m->slots[i];
    qsort(m->slots, n, sizeof *m->slots, by_producer_batch);
    for (size_t i = 0; i < n; i++) {
        entry *e = m->slots[i].v.e;
        judge(c, e, e->ids, e->nids);
        entry_free(c, e);
    }
    memset(m->slots, 0, m->cap * sizeof *m->slots);
    m->count = 0;
    if (m->cap > MAP_MIN_CAP)
        (void)map_resize(c, m, MAP_MIN_CAP, false);
}

void ks_checker_aborted(ks_checker *c, const uint64_t *ids, uint32_t n)
{
    if (!c || !c->reads_on || !ids)
        return;
    for (uint32_t i = 0; i < n; i++)
        if (!map_find(&c->aborted, 0, ids[i]) && !map_insert(c, &c->aborted, 0, ids[i]))
            return;
}

void ks_checker_zombie(ks_checker *c, const uint64_t *ids, uint32_t n)
{
    if (!c || !c->reads_on || !ids)
        return;
    for (uint32_t i = 0; i < n; i++)
        if (!map_find(&c->zombie, 0, ids[i]) && !map_insert(c, &c->zombie, 0, ids[i]))
            return;
}

void ks_checker_forward(ks_checker *c, uint64_t record, uint64_t source)
{
    if (!c || !c->reads_on || map_find(&c->lineage, 0, record))
        return;
    slot *s = map_insert(c, &c->lineage, 0, record);
    if (s)
        s->v.source = source;
}

static bool grow(void **p, uint64_t cap, size_t size);

void ks_checker_read(ks_checker *c, uint32_t consumer, uint64_t record, bool read_committed,
                     bool transactional, ks_time now)
{
    if (!c || !c->reads_on || record == UINT64_MAX)
        return;
    if (consumer + 1u > c->consumers_seen)
        c->consumers_seen = consumer + 1u;
    if (!read_committed && transactional && !map_find(&c->ureads, consumer, record))
        (void)map_insert(c, &c->ureads, consumer, record);
    const slot *l = c->lineage.count ? map_find(&c->lineage, 0, record) : NULL;
    if (l && !c->out_of_memory) {
        if (c->neffects == c->effects_cap) {
            uint64_t cap = c->effects_cap ? c->effects_cap * 2u : 64u;
            if (!grow((void **)&c->effects, cap, sizeof *c->effects)) {
                c->out_of_memory = true;
                return;
            }
            c->effects_cap = cap;
        }
        c->effects[c->neffects++] = (effect_read){l->v.source, record, consumer};
    }
    if (!read_committed)
        return;
    if (map_find(&c->reads, consumer, record))
        return;
    slot *s = map_insert(c, &c->reads, consumer, record);
    if (s)
        s->read_ns = now;
    if (consumer + 1u > c->consumers_seen)
        c->consumers_seen = consumer + 1u;
}

void ks_checker_watch_reads(ks_checker *c)
{
    if (!c)
        return;
    c->reads_on = true;
    if (!c->part_read && c->partitions > 0)
        c->part_read = calloc(c->partitions, sizeof *c->part_read);
    if (!c->part_read && c->partitions > 0)
        c->out_of_memory = true;
}

void ks_checker_reads_partition(ks_checker *c, uint32_t partition)
{
    if (c && c->part_read && partition < c->partitions)
        c->part_read[partition] = true;
}

static bool grow(void **p, uint64_t cap, size_t size)
{
    void *q = realloc(*p, (size_t)cap * size);
    if (!q)
        return false;
    *p = q;
    return true;
}

void ks_checker_txn_committed(ks_checker *c, uint32_t producer, uint64_t txn, ks_time decided_ns,
                              const uint64_t *ids, const uint32_t *partitions, uint32_t n)
{
    if (!c || !c->reads_on || c->out_of_memory)
        return;
    if (c->ntx == c->tx_cap) {
        uint64_t cap = c->tx_cap ? c->tx_cap * 2u : 16u;
        if (!grow((void **)&c->ctx_start, cap, sizeof *c->ctx_start) ||
            !grow((void **)&c->ctx_producer, cap, sizeof *c->ctx_producer) ||
            !grow((void **)&c->ctx_number, cap, sizeof *c->ctx_number)) {
            c->out_of_memory = true;
            return;
        }
        c->tx_cap = cap;
    }
    if (c->nctx + n > c->ctx_cap) {
        uint64_t cap = c->ctx_cap ? c->ctx_cap : 64u;
        while (cap < c->nctx + n)
            cap *= 2u;
        if (!grow((void **)&c->ctx_ids, cap, sizeof *c->ctx_ids) ||
            !grow((void **)&c->ctx_parts, cap, sizeof *c->ctx_parts) ||
            !grow((void **)&c->ctx_decided, cap, sizeof *c->ctx_decided)) {
            c->out_of_memory = true;
            return;
        }
        c->ctx_cap = cap;
    }
    c->ctx_start[c->ntx] = c->nctx;
    c->ctx_producer[c->ntx] = producer;
    c->ctx_number[c->ntx] = txn;
    c->ntx++;
    for (uint32_t i = 0; i < n; i++) {
        c->ctx_ids[c->nctx] = ids[i];
        c->ctx_parts[c->nctx] = partitions[i];
        c->ctx_decided[c->nctx] = decided_ns;
        c->nctx++;
    }
}

/* Aborted reads (Jepsen's G1a): records a read_committed consumer read
 * whose writer was told they failed, or whose transaction aborted. Listed
 * in table order, which depends only on the record ids. */
static void judge_reads(ks_checker *c)
{
    for (size_t i = 0; i < c->reads.cap; i++) {
        const slot *s = &c->reads.slots[i];
        if (!s->used)
            continue;
        bool zombie = map_find(&c->zombie, 0, s->key) != NULL;
        if (zombie)
            c->count[KS_VERDICT_ZOMBIE_WRITE_VISIBLE]++;
        if (!zombie && !map_find(&c->aborted, 0, s->key))
            continue;
        if (!zombie || map_find(&c->aborted, 0, s->key))
            c->count[KS_VERDICT_ABORTED_READ]++;
        c->anomalies_total++;
        if (json_array_size(c->anomalies) >= KS_CHECK_LIST_MAX)
            continue;
        json_t *a = json_object();
        json_t *kinds = json_array();
        if (map_find(&c->aborted, 0, s->key))
            json_array_append_new(kinds, json_string(ks_verdict_key(KS_VERDICT_ABORTED_READ)));
        if (zombie)
            json_array_append_new(kinds,
                                  json_string(ks_verdict_key(KS_VERDICT_ZOMBIE_WRITE_VISIBLE)));
        json_object_set_new(a, "kinds", kinds);
        json_object_set_new(a, "record", json_integer((json_int_t)s->key));
        json_object_set_new(a, "consumer", json_integer(s->producer));
        char cause[160];
        snprintf(cause, sizeof cause,
                 zombie ? "a read_committed consumer read record %llu, written by a producer "
                          "that was fenced in that transaction"
                        : "a read_committed consumer read record %llu, whose producer was told "
                          "it failed or its transaction aborted",
                 (unsigned long long)s->key);
        json_object_set_new(a, "cause", json_string(cause));
        json_array_append_new(c->anomalies, a);
    }
}

/* Was `record` read by a read_committed consumer? When first (or -1). */
static ks_time first_read(const ks_checker *c, uint64_t record)
{
    ks_time t = -1;
    for (uint32_t k = 0; k < c->consumers_seen; k++) {
        const slot *s = map_find(&c->reads, k, record);
        if (s && (t < 0 || s->read_ns < t))
            t = s->read_ns;
    }
    return t;
}

static void list_txn_anomaly(ks_checker *c, ks_verdict kind, uint64_t tx, const char *cause)
{
    c->anomalies_total++;
    if (json_array_size(c->anomalies) >= KS_CHECK_LIST_MAX)
        return;
    json_t *a = json_object();
    json_t *kinds = json_array();
    json_array_append_new(kinds, json_string(ks_verdict_key(kind)));
    json_object_set_new(a, "kinds", kinds);
    json_object_set_new(a, "producer", json_string(c->producer_ids[c->ctx_producer[tx]]));
    json_object_set_new(a, "transaction", json_integer((json_int_t)c->ctx_number[tx]));
    json_object_set_new(a, "cause", json_string(cause));
    json_array_append_new(c->anomalies, a);
}

/* Committed transactions against what read_committed consumers read:
 * torn (some of its records read, others never, among partitions a
 * consumer reads) and precommitted reads (read before the transaction
 * committed). Only records of partitions some read_committed consumer
 * reads are judged. */
static void judge_transactions(ks_checker *c)
{
    if (c->reads.count == 0)
        return;
    for (uint64_t tx = 0; tx < c->ntx; tx++) {
        uint64_t end = tx + 1 < c->ntx ? c->ctx_start[tx + 1] : c->nctx;
        uint64_t seen = 0, unseen = 0, early = 0;
        for (uint64_t k = c->ctx_start[tx]; k < end; k++) {
            if (!c->part_read || c->ctx_parts[k] >= c->partitions || !c->part_read[c->ctx_parts[k]])
                continue;
            ks_time t = first_read(c, c->ctx_ids[k]);
            if (t < 0) {
                unseen++;
                continue;
            }
            seen++;
            if (t < c->ctx_decided[k])
                early++;
        }
        char cause[200];
        if (seen > 0 && unseen > 0) {
            c->count[KS_VERDICT_TORN_TRANSACTION] += seen + unseen;
            snprintf(cause, sizeof cause,
                     "read_committed consumers read %llu of its records and never %llu others",
                     (unsigned long long)seen, (unsigned long long)unseen);
            list_txn_anomaly(c, KS_VERDICT_TORN_TRANSACTION, tx, cause);
        }
        if (early > 0) {
            c->count[KS_VERDICT_PRECOMMITTED_READ] += early;
            snprintf(cause, sizeof cause,
                     "read_committed consumers read %llu of its records before it committed",
                     (unsigned long long)early);
            list_txn_anomaly(c, KS_VERDICT_PRECOMMITTED_READ, tx, cause);
        }
    }
}

static int effect_cmp(const void *a, const void *b)
{
    const effect_read *x = a, *y = b;
    if (x->source != y->source)
        return x->source < y->source ? -1 : 1;
    if (x->consumer != y->consumer)
        return x->consumer < y->consumer ? -1 : 1;
    return x->output < y->output ? -1 : x->output > y->output;
}

/* Consume-transform-produce, end to end: a record read, processed and
 * written again is processed twice when one consumer reads two different
 * records written for it (records of aborted transactions left out: a
 * read_uncommitted consumer sees those, and reading one read_committed is
 * an aborted read already). Counted once per record read; listed per
 * consumer. */
static void judge_effects(ks_checker *c)
{
    if (c->neffects == 0)
        return;
    qsort(c->effects, (size_t)c->neffects, sizeof *c->effects, effect_cmp);
    uint64_t counted = UINT64_MAX;
    for (uint64_t i = 0; i < c->neffects;) {
        /* the group of (source, consumer), its outputs in increasing order */
        uint64_t j = i, outs[2] = {0, 0}, distinct = 0, last = 0;
        for (; j < c->neffects && c->effects[j].source == c->effects[i].source &&
               c->effects[j].consumer == c->effects[i].consumer;
             j++) {
            uint64_t o = c->effects[j].output;
            if ((distinct > 0 && o == last) || map_find(&c->aborted, 0, o))
                continue;
            if (distinct < 2)
                outs[distinct] = o;
            distinct++;
            last = o;
        }
        const effect_read *g = &c->effects[i];
        i = j;
        if (distinct < 2)
            continue;
        if (counted != g->source)
            c->count[KS_VERDICT_PROCESSED_TWICE]++;
        counted = g->source;
        c->anomalies_total++;
        if (json_array_size(c->anomalies) >= KS_CHECK_LIST_MAX)
            continue;
        json_t *a = json_object();
        json_t *kinds = json_array();
        json_array_append_new(kinds, json_string(ks_verdict_key(KS_VERDICT_PROCESSED_TWICE)));
        json_object_set_new(a, "kinds", kinds);
        json_object_set_new(a, "record", json_integer((json_int_t)g->source));
        json_object_set_new(a, "consumer", json_integer(g->consumer));
        json_t *o = json_array();
        json_array_append_new(o, json_integer((json_int_t)outs[0]));
        json_array_append_new(o, json_integer((json_int_t)outs[1]));
        json_object_set_new(a, "outputs", o);
        char cause[200];
        snprintf(cause, sizeof cause,
                 "a consumer read record %llu and record %llu%s, both written for record %llu: "
                 "it was processed twice",
                 (unsigned long long)outs[0], (unsigned long long)outs[1],
                 distinct > 2 ? " (and more)" : "", (unsigned long long)g->source);
        json_object_set_new(a, "cause", json_string(cause));
        json_array_append_new(c->anomalies, a);
    }
}

/* Per consumer, the records of aborted transactions it read
 * uncommitted. */
static void count_uncommitted_reads(ks_checker *c)
{
    c->nread_aborted_by = c->consumers_seen;
    c->read_aborted_by = calloc(c->consumers_seen ? c->consumers_seen : 1u,
                                sizeof *c->read_aborted_by);
    if (!c->read_aborted_by) {
        c->out_of_memory = true;
        c->nread_aborted_by = 0;
        return;
    }
    for (size_t i = 0; i < c->ureads.cap; i++) {
        const slot *s = &c->ureads.slots[i];
        if (s->used && s->producer < c->nread_aborted_by && map_find(&c->aborted, 0, s->key))
            c->read_aborted_by[s->producer]++;
    }
}

uint64_t ks_checker_read_aborted(const ks_checker *c, uint32_t consumer)
{
    return c && consumer < c->nread_aborted_by ? c->read_aborted_by[consumer] : 0;
}

json_t *ks_checker_finish(ks_checker *c)
{
    if (!c)
        return NULL;
    judge_open(c);
    count_uncommitted_reads(c);
    judge_reads(c);
    judge_transactions(c);
    judge_effects(c);
    bool ok = true;
    json_t *records = json_object(), *out = json_object();
    put(records, "acked", jint(c->acked), &ok);
    put(records, "acked_no_offset", jint(c->acked_no_offset), &ok);
    put(records, "failed", jint(c->failed), &ok);
    put(records, "untold", jint(c->untold), &ok);
    put(out, "records", records, &ok);
    bool clean = !c->out_of_memory;
    for (int i = 0; i < KS_VERDICT__COUNT; i++) {
        const ks_verdict_info *v = ks_verdict_info_of((ks_verdict)i);
        clean = clean && (v->cls != KS_VC_ANOMALY || c->count[i] == 0);
        if (v->cls != KS_VC_DERIVED && (!v->txn || c->reads_on))
            put(out, v->key, jint(c->count[i]), &ok);
    }
    put(out, "ok", json_boolean(clean), &ok);
    put(out, "anomalies", json_incref(c->anomalies), &ok);
    put(out, "anomalies_total", jint(c->anomalies_total), &ok);
    if (c->out_of_memory)
        put(out, "out_of_memory", json_true(), &ok);
    if (!ok) {
        json_decref(out);
        return NULL;
    }
    return out;
}
