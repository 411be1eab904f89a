/*
 * explain.c - `ksim explain`: a run's trace drawn the way the
 * delivery-guarantee notes draw it.
 *
 * Owns: reading a trace (format 1) line by line, following the state the
 * lines describe (which records rode in which batch and request, the
 * partition logs, the brokers' idempotent-producer state, transactions),
 * grouping the lines into numbered steps ("[STEP n] t=... ms  ...") and
 * drawing each one as a small arrow diagram between two participants
 * (producer, coordinator, broker, consumer), with the partition log and
 * the producer state as boxes after the steps that change them; a
 * [RESULT] section ends the output. `--format mermaid` writes the same
 * steps as a Mermaid sequenceDiagram.
 *
 * Lines are read with tools/trace_line.h, whatever their JSON
 * formatting, and every field read is of the type the format gives it,
 * or the trace is refused (the file, the line and the field named): a
 * wrong type never draws a wrong picture. The summary beside the trace
 * is checked the same way, by JSON path.
 *
 * Memory does not grow with the trace: lines are parsed one at a time,
 * and what is remembered about records, batches and requests is bounded
 * (the most recent NAME_SLOTS record names, LIVE_BATCHES batches,
 * LIVE_REQUESTS requests, the last BOX_ROWS entries of each log). The
 * output depends only on the trace (and on the summary beside it).
 */
#include "tools/commands.h"

#include "sim/outfile.h"
#include "sim/str.h"
#include "tools/cli.h"
#include "tools/trace_line.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char ks_usage_explain[] =
    "usage: ksim explain TRACE [options]\n"
    "\n"
    "Prints a run the way the delivery-guarantee notes draw it: numbered steps\n"
    "([STEP n] t=... ms), each a small sequence diagram between the producer,\n"
    "the broker (partition), the transaction coordinator and consumers (send,\n"
    "ACK, a lost ACK \xE2\x9C\x95, retry, COMMIT/ABORT markers), with the partition log\n"
    "and the broker's producer state (PID | Partition | Last Sequence) as boxes\n"
    "after the steps that change them, and a [RESULT] section: the logs, what\n"
    "each producer was told and, when DIR/summary.json lies beside the trace,\n"
    "what the delivery checker found.\n"
    "\n"
    "TRACE is a trace written by `ksim run --trace-level record` (records are\n"
    "named by their key, else \"record N\"); a batch-level trace is explained\n"
    "with requests and batches only. - reads standard input.\n"
    "\n"
    "options:\n"
    "  --format F          text (default) or mermaid (a Mermaid sequenceDiagram)\n"
    "  --brief             text with one line per step, no diagrams or boxes\n"
    "  --from MS, --to MS  only the steps in this window of virtual time, in\n"
    "                      milliseconds (e.g. --from 1000 --to 1113.5)\n"
    "  --record ID         only the steps about this record: its send(), the\n"
    "                      requests and batches that carried it, its appends,\n"
    "                      its ACK (a record-level trace)\n"
    "  --partition TOPIC-N only the steps about this partition, e.g. events-0,\n"
    "                      and the fault windows and crashes\n"
    "  --max-steps N       draw at most N steps (default 200; 0: no limit)\n"
    "  -o, --out FILE      write to FILE (whole, or not at all), not stdout\n"
    "\n"
    "Offsets, logs and producer state are followed from the start of the\n"
    "trace whatever the window. The trace is read one line at a time.\n"
    "exit status: 0 explained, 2 bad usage or a trace that cannot be read\n";

#define BOX_ROWS 8          /* entries a log box shows */
#define NAME_SLOTS 65536    /* record names remembered (the most recent) */
#define LIVE_BATCHES 16384  /* batches remembered (the most recent) */
#define LIVE_REQUESTS 16384 /* produce requests remembered */
#define NAME_BUF 160        /* a record's name: "record " + 24 characters of key */
#define KEY_CHARS 24        /* characters of a key shown */
#define LIST_NAMES 3        /* names an arrow label lists before "+N more" */
#define TOLD_MAX 8          /* outcomes listed per producer or consumer in [RESULT] */
#define DUPS_MAX 4          /* duplicates listed per partition in [RESULT] */
#define RESULT_PARTS 4      /* partitions drawn in [RESULT] */
#define NONE SIZE_MAX

/* ---- text widths ---------------------------------------------------------- */

/* Columns a UTF-8 string takes (one per code point). */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void put_n(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fputs(s, f);
}

/* Formats virtual time in nanoseconds as milliseconds with three decimals. */
static void fmt_ms(char *buf, size_t n, int64_t ns)
{
    const char *sign = ns < 0 ? "-" : "";
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, n, "%s%" PRIu64 ".%03" PRIu64, sign, a / 1000000u, (a % 1000000u) / 1000u);
}

/* ---- a map from 64-bit keys to pointers (linear probing) ------------------- */

typedef struct u64map {
    uint64_t *keys;
    void **vals;
    size_t cap, n;
} u64map;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static size_t map_find(const u64map *m, uint64_t k)
{
    size_t mask = m->cap - 1, i = (size_t)mix64(k) & mask;
    while (m->vals[i] && m->keys[i] != k)
        i = (i + 1) & mask;
    return i;
}

static void *map_get(const u64map *m, uint64_t k)
{
    return m->cap ? m->vals[map_find(m, k)] : NULL;
}

static bool map_grow(u64map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    u64map g = {calloc(cap, sizeof *g.keys), calloc(cap, sizeof *g.vals), cap, 0};
    if (!g.keys || !g.vals) {
        free(g.keys);
        free(g.vals);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i]) {
            size_t j = map_find(&g, m->keys[i]);
            g.keys[j] = m->keys[i];
            g.vals[j] = m->vals[i];
            g.n++;
        }
    }
    free(m->keys);
    free(m->vals);
    *m = g;
    return true;
}

/* Adds k (not yet present) with v (not NULL). */
static bool map_put(u64map *m, uint64_t k, void *v)
{
    if ((m->n + 1) * 2 > m->cap && !map_grow(m))
        return false;
    size_t i = map_find(m, k);
    m->keys[i] = k;
    m->vals[i] = v;
    m->n++;
    return true;
}

/* Removes k; returns its value (NULL if absent). Later entries of the probe
 * run shift back so that lookups never stop at the hole. */
static void *map_del(u64map *m, uint64_t k)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1, i = map_find(m, k);
    void *v = m->vals[i];
    if (!v)
        return NULL;
    m->vals[i] = NULL;
    m->n--;
    for (size_t j = (i + 1) & mask; m->vals[j]; j = (j + 1) & mask) {
        size_t h = (size_t)mix64(m->keys[j]) & mask;
        bool stays = i <= j ? (h > i && h <= j) : (h > i || h <= j);
        if (stays)
            continue;
        m->keys[i] = m->keys[j];
        m->vals[i] = m->vals[j];
        m->vals[j] = NULL;
        i = j;
    }
    return v;
}

static void map_free(u64map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* The last `cap` keys remembered, oldest first, so that the oldest can be
 * forgotten when a new one comes. */
typedef struct keyring {
    uint64_t *keys;
    size_t head, count, cap;
} keyring;

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

/* ---- what the trace describes -------------------------------------------- */

/* One line of a partition's log box: a record, a batch (batch-level traces)
 * or a transaction marker. */
typedef struct log_entry {
    int64_t offset, count; /* the offsets it covers */
    int64_t dup_of;        /* the offset of the first copy, or -1 */
    char *text;
    bool fresh; /* appended by the step being built */
} log_entry;

enum { ROW_SAME, ROW_NEW, ROW_UPDATED, ROW_DUPLICATE };

/* A broker's idempotent-producer state for one producer id on one partition. */
typedef struct pid_row {
    int64_t pid, epoch, last_seq, dup_seq;
    int flag; /* ROW_*: what the step being built did to it */
} pid_row;

typedef struct partition {
    size_t topic;
    int64_t number, leader; /* leader -1: not seen yet */
    char *label;            /* "P0" when the run has one topic, else "events-0" */
    log_entry ring[BOX_ROWS];
    uint64_t entries; /* log entries ever: the ring holds the last BOX_ROWS */
    int64_t end_offset, records, markers, duplicates;
    ks_sbuf dups; /* the first DUPS_MAX duplicates, for [RESULT] */
    pid_row pids[BOX_ROWS];
    size_t npids;
    /* the last marker, to recognise one written again */
    int64_t mk_pid, mk_epoch, mk_offset;
    char mk_type[8];
    bool mk_data; /* its producer id appended data since */
    bool log_touched, pids_touched; /* by the step being built */
} partition;

typedef struct topic {
    char *name;
    size_t *parts; /* partition number -> index into parts, NONE if unseen */
    size_t nparts;
} topic;

typedef struct producer {
    char *id, *tid; /* tid: transactional.id, NULL if none */
    bool idempotent;
    char acks[8];
    int64_t retries, request_timeout_ms, txn_timeout_ms;
    int64_t pid, epoch;
    int64_t seq_gen; /* counts the renumberings of its sequences (epoch bumps, new ids) */
    bool committing, txn_open;
    size_t txn_parts[4]; /* partitions written since the last AddPartitionsToTxn */
    size_t ntxn_parts;
    int64_t acked, failed;
    ks_sbuf told; /* the first TOLD_MAX outcomes */
    size_t ntold;
} producer;

typedef struct consumer {
    char *id, *isolation;
    int64_t records;
    ks_sbuf read; /* the first TOLD_MAX records read */
} consumer;

typedef struct txn {
    char *tid;
    int64_t coordinator, pid, epoch, partitions;
    char state[32];
} txn;

typedef struct batch {
    size_t producer, part;
    int64_t id, records, first_offset, last_offset, last_request, attempt, base_seq;
    int64_t seq_gen; /* its producer's seq_gen when base_seq was learnt */
    char last_result[48]; /* "" appended, "DUPLICATE", or the error */
    uint64_t *recs;       /* its record ids, when the trace names them */
    size_t nrecs;
    bool selected; /* carries the --record record */
} batch;

typedef struct request {
    size_t producer;
    int64_t id, broker;
    int64_t *batches;
    size_t n, cap;
    bool selected;
} request;

/* Records placed by send() and not yet drained into a batch, per producer
 * and partition, in order (ids increase). */
typedef struct fifo {
    uint64_t *ids;
    size_t head, len, cap;
} fifo;

typedef struct name_slot {
    uint64_t id;
    char *key; /* the shown part of its key; NULL: keyless */
    bool used;
    bool has_source;  /* written for a record a consumer read ... */
    uint64_t source;  /* ... this one (a "forward" line) */
} name_slot;

/* ---- steps --------------------------------------------------------------- */

typedef enum skind {
    SK_NONE,
    SK_PRODUCE,      /* send() calls */
    SK_SEND,         /* a produce request leaves */
    SK_API_SEND,     /* another API's request leaves */
    SK_APPEND,       /* the leader handles a produce request */
    SK_LOST,         /* a message lost or held up by a fault */
    SK_RESPONSE,     /* a produce response reaches the producer */
    SK_API_RESPONSE, /* another API's response */
    SK_TIMEOUT,      /* request.timeout.ms, retries decided without a response */
    SK_ACK,          /* send() completes without a response */
    SK_PRODUCER,     /* the producer's own state changes */
    SK_TXN,          /* the coordinator's transaction log */
    SK_MARKER,       /* a transaction marker appended */
    SK_CONSUME,      /* poll() returns records */
    SK_NOTE          /* fault windows, admin operations, metadata */
} skind;

/* How the step is drawn: one participant with note lines, or a message from
 * one participant to another. */
typedef enum mstyle { MS_NONE, MS_NOTE, MS_REQ, MS_RESP, MS_LOST_REQ, MS_LOST_RESP } mstyle;

/* A participant: 'P' producer (index), 'C' coordinator (broker id, -1
 * unknown), 'B' broker (id), 'K' consumer (index); kind 0: none. */
typedef struct lane {
    char kind;
    int64_t n;
} lane;

typedef struct step {
    skind kind;
    int64_t t;
    size_t producer, consumer, part, txn;
    int64_t broker, request, attempt, nrecords, nbatches, first_produced;
    int64_t produced, produced_sent;
    char api[32];
    lane from, to;
    mstyle style;
    ks_sbuf desc;   /* the one-line description */
    ks_sbuf label;  /* the arrow's label (text drawn on the arrow) */
    ks_sbuf mlabel; /* the same for Mermaid, when it says more */
    ks_sbuf after;  /* after the receiving participant's lifeline */
    ks_sbuf notes;  /* lines: under the lane (MS_NOTE) or below the arrow */
    ks_sbuf names;  /* the records it is about, for labels */
    size_t nnames;
    size_t *touched; /* partitions whose boxes may follow */
    size_t ntouched, touched_cap;
    char txn_from[32];
    bool retry, acks0_noted, about_part, about_record;
} step;

/* A request fault seen before the request's send line. */
typedef struct pending_fault {
    bool on;
    size_t producer;
    int64_t t, broker, request, fault, delay_ns;
    char api[32];
} pending_fault;

typedef struct opts {
    const char *trace, *out, *partition;
    bool mermaid, brief, has_from, has_to, has_record;
    bool no_summary; /* do not read the summary beside the trace */
    int64_t from_ns, to_ns, max_steps;
    uint64_t record;
} opts;

typedef struct explain {
    opts o;
    FILE *out;
    char *scenario, *kafka, *level;
    int64_t seed;
    json_t *summary; /* the run's summary.json, NULL if none */
    bool record_level, single_topic;
    char **fault_types;
    size_t nfaults;
    topic *topics;
    size_t ntopics;
    partition *parts;
    size_t nparts, parts_cap;
    producer *prods;
    size_t nprods;
    consumer *cons;
    size_t ncons;
    txn *txns;
    size_t ntxns;
    u64map batches, requests, fifos;
    keyring batch_ring, req_ring;
    name_slot *names;
    step cur;
    pending_fault pf;
    int64_t shown, more;
    ks_sbuf mer;             /* the Mermaid body, written out at the end */
    u64map used;             /* Mermaid participants used (lane_key) */
    int64_t max_broker;      /* the highest broker id a used lane names */
    size_t filter_part;      /* --partition's index, NONE without */
    size_t sel_part;         /* --record: its partition */
    int64_t sel_pid;         /* --record: the producer id of its batch */
    bool sel_txn_open;       /* --record: its transaction not yet ended */
    ks_sbuf sel_fate;        /* --record: where it went */
    int64_t marker_coord;    /* the coordinator writing markers last */
    bool ended;
    char verdict[32];
    int64_t end_t;
    uint64_t line_no;
    bool oom;
} explain;

/* ---- reading trace fields ------------------------------------------------ */

static void copy_str(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

/* ---- participants and partitions ----------------------------------------- */

static char *dup_or_oom(explain *e, const char *s)
{
    char *d = ks_strdup(s ? s : "");
    if (!d)
        e->oom = true;
    return d;
}

/* The producer named id, added when the header did not list it. */
static size_t prod_of(explain *e, const char *id)
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
    p->id = dup_or_oom(e, id);
    p->pid = -1;
    p->retries = -1;
    return e->nprods++;
}

static size_t cons_of(explain *e, const char *id)
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
    c->id = dup_or_oom(e, id);
    c->isolation = dup_or_oom(e, "read_uncommitted");
    return e->ncons++;
}

static size_t topic_of(explain *e, const char *name)
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
    t[e->ntopics].name = dup_or_oom(e, name);
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
    p->label = e->single_topic ? dup_or_oom(e, label) : NULL;
    if (!e->single_topic) {
        ks_sbuf b = {0};
        ks_sb_printf(&b, "%s-%" PRId64, e->topics[ti].name, n);
        p->label = b.s ? b.s : dup_or_oom(e, "?");
    }
    return e->nparts++;
}

/* The partition TOPIC-n, added the first time it is named; NONE when n is
 * not a partition number. */
static size_t part_of(explain *e, const char *topic_name, int64_t n)
{
    if (n < 0 || n > 1000000)
        return NONE;
    size_t ti = topic_of(e, topic_name);
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

static size_t txn_of(explain *e, const char *tid)
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
    t->tid = dup_or_oom(e, tid);
    t->coordinator = -1;
    t->pid = t->epoch = -1;
    return e->ntxns++;
}

/* The coordinator of a producer's transactional.id, -1 if not known yet. */
static int64_t coord_of_tid(const explain *e, const char *tid)
{
    for (size_t i = 0; tid && i < e->ntxns; i++)
        if (strcmp(e->txns[i].tid, tid) == 0)
            return e->txns[i].coordinator;
    return -1;
}

/* ---- record names ---------------------------------------------------------- */

/* Remembers record id's key (NULL: keyless), as it will be shown: at most
 * KEY_CHARS characters, control characters as '?'. */
static void name_store(explain *e, uint64_t id, const char *key)
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
    s->key = b.s ? b.s : dup_or_oom(e, "?");
}

/* A record written for record `source` (consume-transform-produce): its
 * name will say so. */
static void name_source(explain *e, uint64_t id, uint64_t source)
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
static size_t put_str(char *buf, size_t n, size_t at, const char *s)
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
    put_str(buf, n, 0, s->used && s->id == id && s->key ? s->key : num);
}

/* "record A" when the record had key A, else "record 12"; "record 16
 * (from 13)" when it was written for record 13, which a consumer read. */
static void record_name(const explain *e, uint64_t id, char *buf, size_t n)
{
    const name_slot *s = &e->names[id % NAME_SLOTS];
    char self[NAME_BUF], src[NAME_BUF];
    record_label(e, id, self, sizeof self);
    size_t at = put_str(buf, n, put_str(buf, n, 0, "record "), self);
    if (s->id == id && s->has_source) {
        record_label(e, s->source, src, sizeof src);
        put_str(buf, n, put_str(buf, n, put_str(buf, n, at, " (from "), src), ")");
    }
}

/* ---- records waiting for their batch --------------------------------------- */

static fifo *fifo_of(explain *e, size_t prod, size_t part, bool create)
{
    uint64_t k = ((uint64_t)prod << 32) ^ (uint64_t)part;
    fifo *q = map_get(&e->fifos, k);
    if (q || !create)
        return q;
    q = calloc(1, sizeof *q);
    if (!q || !map_put(&e->fifos, k, q)) {
        free(q);
        e->oom = true;
        return NULL;
    }
    return q;
}

static bool fifo_push(fifo *q, uint64_t id)
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
static void fifo_remove(fifo *q, uint64_t id)
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

static uint64_t obj_key(size_t prod, int64_t id)
{
    return ((uint64_t)prod << 44) ^ (uint64_t)id;
}

static batch *batch_get(const explain *e, size_t prod, int64_t id)
{
    return map_get(&e->batches, obj_key(prod, id));
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
static batch *batch_new(explain *e, size_t prod, int64_t id, size_t part, int64_t records)
{
    batch *b = calloc(1, sizeof *b);
    if (!b) {
        e->oom = true;
        return NULL;
    }
    *b = (batch){.producer = prod, .part = part, .id = id, .records = records,
                 .first_offset = -1, .last_offset = -1, .last_request = -1, .attempt = 1,
                 .base_seq = -1};
    fifo *q = part == NONE ? NULL : fifo_of(e, prod, part, false);
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
    if (ring_push(&e->batch_ring, obj_key(prod, id), &old))
        batch_free(map_del(&e->batches, old));
    if (!map_put(&e->batches, obj_key(prod, id), b)) {
        batch_free(b);
        e->oom = true;
        return NULL;
    }
    return b;
}

static request *request_get(const explain *e, size_t prod, int64_t id)
{
    return map_get(&e->requests, obj_key(prod, id));
}

static void request_free(request *q)
{
    if (q)
        free(q->batches);
    free(q);
}

static request *request_new(explain *e, size_t prod, int64_t id, int64_t broker)
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
    if (ring_push(&e->req_ring, obj_key(prod, id), &old))
        request_free(map_del(&e->requests, old));
    if (!map_put(&e->requests, obj_key(prod, id), q)) {
        request_free(q);
        e->oom = true;
        return NULL;
    }
    return q;
}

static void request_add_batch(explain *e, request *q, int64_t b)
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

/* ---- building steps ---------------------------------------------------------- */

static bool in_window(const explain *e, int64_t t)
{
    return (!e->o.has_from || t >= e->o.from_ns) && (!e->o.has_to || t <= e->o.to_ns);
}

static void render(explain *e, const step *s);

/* Whether step s (being built) may be drawn: one outside the window, or
 * past the step budget, never is, so the builders of its text (called
 * for every record) need not run. */
static bool step_drawn(const explain *e, const step *s)
{
    return in_window(e, s->t) && (e->o.max_steps == 0 || e->shown < e->o.max_steps);
}

/* Forgets what the step being built did, keeping its buffers. */
static void step_reset(step *s)
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

/* Draws the step being built if it passes the filters and the step budget
 * allows (else counts it), then clears the marks it left on partitions. */
static void step_flush(explain *e)
{
    step *s = &e->cur;
    if (s->kind == SK_NONE)
        return;
    bool pass = in_window(e, s->t) && (e->filter_part == NONE || s->about_part) &&
                (!e->o.has_record || s->about_record);
    if (pass && (e->o.max_steps == 0 || e->shown < e->o.max_steps)) {
        e->shown++;
        render(e, s);
    } else if (pass) {
        e->more++;
    }
    for (size_t i = 0; i < s->ntouched; i++) {
        partition *p = &e->parts[s->touched[i]];
        p->log_touched = p->pids_touched = false;
        for (size_t k = 0; k < BOX_ROWS; k++)
            p->ring[k].fresh = false;
        for (size_t k = 0; k < p->npids; k++)
            p->pids[k].flag = ROW_SAME;
    }
    e->oom = e->oom || s->desc.oom || s->label.oom || s->notes.oom || s->names.oom ||
             s->after.oom || s->mlabel.oom;
    step_reset(s);
}

static void step_begin(explain *e, skind k, int64_t t, size_t prod)
{
    step_flush(e);
    e->cur.kind = k;
    e->cur.t = t;
    e->cur.producer = prod;
}

static bool step_is(const explain *e, skind k, int64_t t, size_t prod)
{
    return e->cur.kind == k && e->cur.t == t && e->cur.producer == prod;
}

/* The step is about partition `part`: its boxes may follow the step, and
 * --partition keeps it. */
static void step_touch(explain *e, size_t part)
{
    step *s = &e->cur;
    if (part == NONE)
        return;
    s->about_part = s->about_part || part == e->filter_part;
    for (size_t i = 0; i < s->ntouched; i++)
        if (s->touched[i] == part)
            return;
    if (s->ntouched == s->touched_cap) {
        size_t cap = s->touched_cap ? s->touched_cap * 2 : 8;
        size_t *v = realloc(s->touched, cap * sizeof *v);
        if (!v) {
            e->oom = true;
            return;
        }
        s->touched = v;
        s->touched_cap = cap;
    }
    s->touched[s->ntouched++] = part;
}

static void step_add_name(step *s, const char *name)
{
    if (s->nnames < LIST_NAMES) {
        ks_sb_puts(&s->names, s->nnames ? ", " : "");
        ks_sb_puts(&s->names, name);
    }
    s->nnames++;
}

/* The names the step is about: "record A, record B, +3 more". */
static void names_text(const step *s, char *buf, size_t n)
{
    if (s->nnames > LIST_NAMES)
        snprintf(buf, n, "%s, +%zu more", ks_sb_str(&s->names), s->nnames - LIST_NAMES);
    else
        put_str(buf, n, 0, ks_sb_str(&s->names));
}

static const char *part_label(const explain *e, size_t part)
{
    return part == NONE ? "?" : e->parts[part].label;
}

/* The name of a batch in a batch-level trace, or of one whose records are
 * not known. */
static void batch_text(const explain *e, const batch *b, char *buf, size_t n)
{
    snprintf(buf, n, "batch %" PRId64 " of %s (%" PRId64 " record%s)", b->id,
             e->prods[b->producer].id, b->records, b->records == 1 ? "" : "s");
}

/* Adds a batch's records to the step's names (or the batch itself when its
 * records are not known). */
static void step_add_batch(explain *e, const batch *b)
{
    char nm[NAME_BUF];
    if (b->nrecs == 0 || (int64_t)b->nrecs < b->records) {
        batch_text(e, b, nm, sizeof nm);
        step_add_name(&e->cur, nm);
        return;
    }
    for (size_t i = 0; i < b->nrecs; i++) {
        record_name(e, b->recs[i], nm, sizeof nm);
        step_add_name(&e->cur, nm);
    }
}

/* ---- send() and requests leaving ------------------------------------------- */

/* The description of send() calls: one record, or several at once. */
static void describe_produce(explain *e, step *s, size_t part, bool failed)
{
    if (!step_drawn(e, s))
        return;
    char names[NAME_BUF * 4];
    names_text(s, names, sizeof names);
    const char *id = e->prods[s->producer].id;
    ks_sb_clear(&s->desc);
    ks_sb_clear(&s->label);
    if (s->produced == 1 && failed) {
        ks_sb_printf(&s->desc,
                     "%s's application calls send(%s): it fails before a partition "
                     "is chosen",
                     id, names);
        ks_sb_printf(&s->label, "send(%s): no partition", names);
    } else if (s->produced == 1) {
        ks_sb_printf(&s->desc,
                     "%s's application calls send(%s) for %s: it waits in the "
                     "accumulator",
                     id, names, part_label(e, part));
        ks_sb_printf(&s->label, "send(%s) \xE2\x86\x92 accumulator, %s", names,
                     part_label(e, part));
    } else {
        ks_sb_printf(&s->desc, "%s's application calls send() for %" PRId64 " records (%s)", id,
                     s->produced, names);
        ks_sb_printf(&s->label, "send() \xC3\x97 %" PRId64 ": %s", s->produced, names);
    }
}

/* The record becomes part of an open transaction of a transactional
 * producer: the first one after beginTransaction(). */
static void note_txn_record(explain *e, size_t p, size_t part)
{
    producer *pr = &e->prods[p];
    if (!pr->tid)
        return;
    if (!pr->txn_open) {
        pr->txn_open = true;
        ks_sb_line(&e->cur.notes, "beginTransaction(): only the producer knows; the coordinator "
                                  "hears of the transaction with its first partition");
    }
    for (size_t i = 0; i < pr->ntxn_parts; i++)
        if (pr->txn_parts[i] == part)
            return;
    if (part != NONE && pr->ntxn_parts < sizeof pr->txn_parts / sizeof *pr->txn_parts)
        pr->txn_parts[pr->ntxn_parts++] = part;
}

/* A send() call: the record waits in its partition's queue for a batch. */
static void on_produce(explain *e, ks_tline *j, int64_t t)
{
    size_t p = prod_of(e, ks_tl_str(j, "producer", NULL));
    uint64_t id = (uint64_t)ks_tl_int(j, "record", 0);
    int64_t pn = ks_tl_int(j, "partition", -1);
    size_t part = pn >= 0 ? part_of(e, ks_tl_str(j, "topic", NULL), pn) : NONE;
    name_store(e, id, ks_tl_str_or_null(j, "key"));
    fifo *q = part != NONE ? fifo_of(e, p, part, true) : NULL;
    if (q && !fifo_push(q, id))
        e->oom = true;
    if (!step_is(e, SK_PRODUCE, t, p)) {
        step_begin(e, SK_PRODUCE, t, p);
        e->cur.from = (lane){'P', (int64_t)p};
        e->cur.style = MS_NOTE;
        e->cur.first_produced = (int64_t)id;
        e->cur.part = part;
    }
    step *s = &e->cur;
    s->produced++;
    step_touch(e, part);
    if (e->o.has_record && id == e->o.record) {
        s->about_record = true;
        e->sel_part = part;
    }
    char nm[NAME_BUF];
    record_name(e, id, nm, sizeof nm);
    step_add_name(s, nm);
    note_txn_record(e, p, part);
    describe_produce(e, s, part, part == NONE);
}

/* The step for request r of producer p leaving at t: the one being built,
 * or the send() calls just made (which become part of it), or a new one. */
static void send_step(explain *e, int64_t t, size_t p, int64_t r, int64_t broker)
{
    step *s = &e->cur;
    if (step_is(e, SK_SEND, t, p) && s->request == r)
        return;
    if (step_is(e, SK_PRODUCE, t, p)) {
        s->kind = SK_SEND;
        ks_sb_clear(&s->names);
        s->nnames = 0;
    } else {
        step_begin(e, SK_SEND, t, p);
    }
    s->request = r;
    s->broker = broker;
    s->from = (lane){'P', (int64_t)p};
    s->to = (lane){'B', broker};
    s->style = MS_REQ;
}

/* The description and arrow of a produce request: a first send, a retry,
 * or several batches. */
static void describe_send(explain *e, step *s, const batch *b)
{
    if (!step_drawn(e, s))
        return;
    char names[NAME_BUF * 4], idem[64] = "";
    names_text(s, names, sizeof names);
    const producer *pr = &e->prods[s->producer];
    if (pr->pid >= 0 && b->base_seq >= 0 && b->seq_gen == pr->seq_gen && s->retry)
        snprintf(idem, sizeof idem, ", PID %" PRId64 ", sequence %" PRId64, pr->pid, b->base_seq);
    else if (pr->pid >= 0)
        snprintf(idem, sizeof idem, ", PID %" PRId64, pr->pid);
    ks_sb_clear(&s->desc);
    ks_sb_clear(&s->label);
    if (s->nbatches > 1) {
        ks_sb_printf(&s->desc,
                     "%s sends request %" PRId64 " to broker %" PRId64 ": %" PRId64
                     " batches, %" PRId64 " records%s",
                     pr->id, s->request, s->broker, s->nbatches, s->nrecords,
                     s->retry ? " (some of them retries)" : "");
        ks_sb_printf(&s->label, "%s(request %" PRId64 ": %" PRId64 " batches)",
                     s->retry ? "retry" : "send", s->request, s->nbatches);
    } else if (s->retry) {
        ks_sb_printf(&s->desc,
                     "%s sends %s again in request %" PRId64 " to broker %" PRId64
                     " (retry of batch %" PRId64 ", attempt %" PRId64 "%s)",
                     pr->id, names, s->request, s->broker, b->id, s->attempt, idem);
        ks_sb_printf(&s->label, "retry(request %" PRId64 ": %s, attempt %" PRId64 ")", s->request,
                     names, s->attempt);
    } else {
        ks_sb_printf(&s->desc,
                     "%s sends %s to broker %" PRId64 " in request %" PRId64 " (batch %" PRId64
                     " of %s%s)",
                     pr->id, names, s->broker, s->request, b->id, part_label(e, b->part), idem);
        ks_sb_printf(&s->label, "send(request %" PRId64 ": %s)", s->request, names);
    }
}

/* A batch taken into a request: the first time, it takes its records. */
static void on_drain(explain *e, ks_tline *j, int64_t t)
{
    size_t p = prod_of(e, ks_tl_str(j, "producer", NULL));
    int64_t r = ks_tl_int(j, "request", -1), broker = ks_tl_int(j, "broker", -1);
    int64_t bid = ks_tl_int(j, "batch", -1), nrec = ks_tl_int(j, "records", 0);
    size_t part = part_of(e, ks_tl_str(j, "topic", NULL), ks_tl_int(j, "partition", -1));
    bool retry = strcmp(ks_tl_str(j, "why", ""), "retry") == 0;
    batch *b = batch_get(e, p, bid);
    if (!b)
        b = batch_new(e, p, bid, part, nrec);
    request *q = request_get(e, p, r);
    if (!q)
        q = request_new(e, p, r, broker);
    if (!b || !q)
        return;
    request_add_batch(e, q, bid);
    q->selected = q->selected || b->selected;
    send_step(e, t, p, r, broker);
    step *s = &e->cur;
    s->part = s->nbatches == 0 || s->part == part ? part : NONE;
    s->nbatches++;
    s->nrecords += nrec;
    if (retry) {
        s->retry = true;
        s->attempt = b->attempt;
    }
    for (size_t i = 0; !retry && s->produced > 0 && i < b->nrecs; i++)
        s->produced_sent += b->recs[i] >= (uint64_t)s->first_produced;
    step_add_batch(e, b);
    step_touch(e, part);
    s->about_record = s->about_record || b->selected;
    describe_send(e, s, b);
}

static const char *fault_type(const explain *e, int64_t i)
{
    return i >= 0 && (size_t)i < e->nfaults ? e->fault_types[i] : "fault";
}

/* A fault struck request s->request on its way: it is lost, or held up. */
static void step_fault_request(explain *e, step *s, int64_t fault, int64_t delay_ns)
{
    char ms[32];
    if (delay_ns > 0) {
        fmt_ms(ms, sizeof ms, delay_ns);
        ks_sb_printf(&s->desc, "; fault %" PRId64 " (%s) holds it up %s ms", fault,
                     fault_type(e, fault), ms);
        ks_sb_printf(&s->after, "+%s ms (fault %" PRId64 ")", ms, fault);
        return;
    }
    ks_sb_printf(&s->desc, "; it is lost on the way (fault %" PRId64 ": %s)", fault,
                 fault_type(e, fault));
    ks_sb_clear(&s->mlabel);
    ks_sb_printf(&s->mlabel, "%s lost (fault %" PRId64 ")", ks_sb_str(&s->label), fault);
    ks_sb_clear(&s->label);
    if (s->api[0])
        ks_sb_printf(&s->label, "%s lost (fault %" PRId64 ")", s->api, fault);
    else
        ks_sb_printf(&s->label, "request %" PRId64 " lost (fault %" PRId64 ")", s->request, fault);
    s->style = MS_LOST_REQ;
}

/* Applies the request fault waiting for this send line, if it is its. */
static void take_pending_fault(explain *e, size_t p, const char *api, int64_t r)
{
    pending_fault *f = &e->pf;
    if (f->on && f->producer == p && f->request == r && strcmp(f->api, api) == 0) {
        step_fault_request(e, &e->cur, f->fault, f->delay_ns);
        f->on = false;
    }
}

static void describe_api_send(explain *e, step *s, producer *pr, int64_t entries)
{
    const char *api = s->api, *tid = pr->tid ? pr->tid : "";
    char ref[64]; /* the API, with its request number after the first */
    if (s->request > 1)
        snprintf(ref, sizeof ref, "%s request %" PRId64, api, s->request);
    else
        snprintf(ref, sizeof ref, "%s", api);
    if (strcmp(api, "FindCoordinator") == 0) {
        ks_sb_printf(&s->desc,
                     "%s asks broker %" PRId64 " where the transaction coordinator of %s "
                     "is (%s)",
                     pr->id, s->broker, tid, ref);
        ks_sb_printf(&s->label, "FindCoordinator(%s)", tid);
    } else if (strcmp(api, "InitProducerId") == 0 && pr->tid) {
        ks_sb_printf(&s->desc,
                     "initTransactions(): %s sends %s for %s to its coordinator on "
                     "broker %" PRId64,
                     pr->id, ref, tid, s->broker);
        ks_sb_printf(&s->label, "InitProducerId(%s)", tid);
    } else if (strcmp(api, "InitProducerId") == 0) {
        ks_sb_printf(&s->desc,
                     "%s asks broker %" PRId64 " for a producer id (%s: the producer is "
                     "idempotent)",
                     pr->id, s->broker, ref);
        ks_sb_puts(&s->label, "InitProducerId");
    } else if (strcmp(api, "AddPartitionsToTxn") == 0) {
        char parts[128] = "";
        for (size_t i = 0; i < pr->ntxn_parts && (int64_t)pr->ntxn_parts == entries; i++) {
            size_t n = strlen(parts);
            snprintf(parts + n, sizeof parts - n, "%s%s", i ? ", " : "",
                     part_label(e, pr->txn_parts[i]));
            step_touch(e, pr->txn_parts[i]);
        }
        if (!parts[0])
            snprintf(parts, sizeof parts, "%" PRId64 " partitions", entries);
        pr->ntxn_parts = 0;
        ks_sb_printf(&s->desc, "%s tells the coordinator that its transaction writes to %s (%s)",
                     pr->id, parts, ref);
        ks_sb_printf(&s->label, "AddPartitionsToTxn(%s)", parts);
    } else if (strcmp(api, "EndTxn") == 0) {
        ks_sb_printf(&s->desc, "%s asks the coordinator to %s the transaction (%s)", pr->id,
                     pr->committing ? "commit" : "abort", ref);
        ks_sb_printf(&s->label, "EndTxn(%s)", pr->committing ? "COMMIT" : "ABORT");
    } else {
        ks_sb_printf(&s->desc, "%s sends %s to broker %" PRId64, pr->id, ref, s->broker);
        ks_sb_puts(&s->label, api);
    }
}

/* A request of another API than Produce leaves. */
static void on_api_send(explain *e, ks_tline *j, int64_t t, size_t p, const char *api)
{
    step_begin(e, SK_API_SEND, t, p);
    step *s = &e->cur;
    producer *pr = &e->prods[p];
    copy_str(s->api, sizeof s->api, api);
    s->request = ks_tl_int(j, "request", -1);
    s->broker = ks_tl_int(j, "broker", -1);
    bool to_coord = pr->tid && strcmp(api, "FindCoordinator") != 0;
    s->from = (lane){'P', (int64_t)p};
    s->to = (lane){to_coord ? 'C' : 'B', s->broker};
    s->style = MS_REQ;
    describe_api_send(e, s, pr, ks_tl_int(j, "batches", 0));
    take_pending_fault(e, p, api, s->request);
}

/* A request leaves: a produce request (its drains came first) or another
 * API's. */
static void on_send(explain *e, ks_tline *j, int64_t t)
{
    size_t p = prod_of(e, ks_tl_str(j, "producer", NULL));
    const char *api = ks_tl_str(j, "api", NULL);
    if (api) {
        on_api_send(e, j, t, p, api);
        return;
    }
    int64_t r = ks_tl_int(j, "request", -1), broker = ks_tl_int(j, "broker", -1);
    send_step(e, t, p, r, broker);
    step *s = &e->cur;
    if (s->nbatches == 0) {
        ks_sb_printf(&s->desc, "%s sends request %" PRId64 " to broker %" PRId64, e->prods[p].id, r,
                     broker);
        ks_sb_printf(&s->label, "send(request %" PRId64 ")", r);
    }
    request *q = request_get(e, p, r);
    s->about_record = s->about_record || (q && q->selected);
    take_pending_fault(e, p, "", r);
    if (s->produced > s->produced_sent)
        ks_sb_line(&s->notes, "(records just passed to send() that are not in this request wait "
                              "in the accumulator)");
}

/* ---- the leader appends ------------------------------------------------------ */

static void log_push(explain *e, size_t part, int64_t offset, int64_t count, int64_t dup_of,
                     const char *text)
{
    partition *pt = &e->parts[part];
    log_entry *le = &pt->ring[pt->entries % BOX_ROWS];
    free(le->text);
    *le = (log_entry){offset, count, dup_of, dup_or_oom(e, text), true};
    pt->entries++;
    pt->log_touched = true;
    if (offset + count > pt->end_offset)
        pt->end_offset = offset + count;
}

static void note_duplicate(partition *pt, const char *name, int64_t offset, int64_t first)
{
    pt->duplicates++;
    if (pt->duplicates <= DUPS_MAX)
        ks_sb_printf(&pt->dups, "%s%s at offset %" PRId64 " (first at offset %" PRId64 ")",
                     pt->duplicates > 1 ? ", " : "", name, offset, first);
}

/* Appends batch b (NULL: not known) at offset: one entry per record, or
 * one for the batch when its records are not known. A batch stored before
 * is a duplicate of its first copy. */
static void log_append_batch(explain *e, size_t part, batch *b, int64_t offset, int64_t records)
{
    partition *pt = &e->parts[part];
    int64_t first = b ? b->first_offset : -1;
    char nm[NAME_BUF];
    if (b && b->nrecs > 0 && (int64_t)b->nrecs == records) {
        for (size_t i = 0; i < b->nrecs; i++) {
            int64_t at = offset + (int64_t)i, dup = first >= 0 ? first + (int64_t)i : -1;
            record_name(e, b->recs[i], nm, sizeof nm);
            log_push(e, part, at, 1, dup, nm);
            if (dup >= 0)
                note_duplicate(pt, nm, at, dup);
            if (e->o.has_record && b->recs[i] == e->o.record) {
                char line[96];
                snprintf(line, sizeof line, "stored in %s at offset %" PRId64 "%s", pt->label, at,
                         dup >= 0 ? ": a duplicate" : "");
                ks_sb_line(&e->sel_fate, line);
            }
        }
    } else {
        if (b)
            batch_text(e, b, nm, sizeof nm);
        else
            snprintf(nm, sizeof nm, "%" PRId64 " records", records);
        log_push(e, part, offset, records, first, nm);
        if (first >= 0)
            note_duplicate(pt, nm, offset, first);
    }
    pt->records += records;
    if (b && b->first_offset < 0)
        b->first_offset = offset;
}

/* The broker's state for producer id pid on the partition: found, or a new
 * row (the oldest row goes when BOX_ROWS are shown). */
static pid_row *pid_row_of(partition *pt, int64_t pid)
{
    for (size_t i = 0; i < pt->npids; i++)
        if (pt->pids[i].pid == pid)
            return &pt->pids[i];
    if (pt->npids == BOX_ROWS) {
        memmove(pt->pids, pt->pids + 1, (BOX_ROWS - 1) * sizeof *pt->pids);
        pt->npids--;
    }
    pid_row *r = &pt->pids[pt->npids++];
    *r = (pid_row){pid, -1, -1, -1, ROW_NEW};
    return r;
}

/* "record A" or "record 3, record 4, +2 more" or "batch 0 of p1 (3 records)". */
static void batch_names(const explain *e, const batch *b, char *buf, size_t n)
{
    if (!b || b->nrecs == 0 || (int64_t)b->nrecs < b->records) {
        if (b)
            batch_text(e, b, buf, n);
        else
            snprintf(buf, n, "the batch");
        return;
    }
    step tmp = {0};
    char nm[NAME_BUF];
    for (size_t i = 0; i < b->nrecs; i++) {
        if (tmp.nnames < LIST_NAMES) /* the others are only counted */
            record_name(e, b->recs[i], nm, sizeof nm);
        step_add_name(&tmp, nm);
    }
    names_text(&tmp, buf, n);
    ks_sb_free(&tmp.names);
}

static void offsets_text(char *buf, size_t n, int64_t offset, int64_t records)
{
    if (records > 1)
        snprintf(buf, n, "offsets %" PRId64 "-%" PRId64, offset, offset + records - 1);
    else
        snprintf(buf, n, "offset %" PRId64, offset);
}

typedef struct append_line {
    size_t part;
    batch *b;
    int64_t broker, offset, records, pid, epoch, seq, fault;
    const char *result;
} append_line;

/* The sentence for one appended (or refused) batch. */
static void append_sentence(explain *e, const append_line *a, ks_sbuf *out)
{
    char names[NAME_BUF * 4], offs[64];
    partition *pt = &e->parts[a->part];
    batch_names(e, a->b, names, sizeof names);
    offsets_text(offs, sizeof offs, a->offset, a->records);
    if (a->result && strcmp(a->result, "DUPLICATE") == 0) {
        ks_sb_printf(out,
                     "broker %" PRId64 " already has PID %" PRId64 ", sequence %" PRId64
                     " in %s: it does not store %s again and answers with the original %s",
                     a->broker, a->pid, a->seq, pt->label, names, offs);
    } else if (a->result) {
        ks_sb_printf(out, "broker %" PRId64 " does not store %s in %s: it answers %s", a->broker,
                     names, pt->label, a->result);
        if (a->fault >= 0)
            ks_sb_printf(out, " (fault %" PRId64 ": %s)", a->fault, fault_type(e, a->fault));
    } else if (a->b && a->b->first_offset >= 0) {
        ks_sb_printf(
            out, "broker %" PRId64 " stores %s in %s again, at %s: a duplicate of offset %" PRId64,
            a->broker, names, pt->label, offs, a->b->first_offset);
    } else {
        ks_sb_printf(out, "broker %" PRId64 " stores %s in %s at %s", a->broker, names, pt->label,
                     offs);
        if (a->pid >= 0)
            ks_sb_printf(out, " and remembers PID %" PRId64 ", sequence %" PRId64, a->pid, a->seq);
    }
}

/* What the append does to the broker's producer state. */
static void append_pid_state(explain *e, const append_line *a)
{
    if (a->pid < 0 || (a->result && strcmp(a->result, "DUPLICATE") != 0))
        return;
    partition *pt = &e->parts[a->part];
    pid_row *r = pid_row_of(pt, a->pid);
    bool fresh = r->flag == ROW_NEW && r->last_seq < 0;
    if (a->result) {
        r->flag = ROW_DUPLICATE;
        r->dup_seq = a->seq;
        if (r->last_seq < 0)
            r->last_seq = a->seq + a->records - 1;
    } else {
        r->flag = fresh ? ROW_NEW : ROW_UPDATED;
        r->last_seq = a->seq >= 0 ? a->seq + a->records - 1 : r->last_seq;
    }
    r->epoch = a->epoch;
    pt->pids_touched = true;
    if (a->b && a->b->selected) {
        e->sel_pid = a->pid;
        e->sel_txn_open = e->prods[a->b->producer].tid != NULL;
    }
}

static void append_step(explain *e, const append_line *a, const ks_sbuf *sentence)
{
    step *s = &e->cur;
    s->part = s->nbatches == 0 || s->part == a->part ? a->part : NONE;
    s->nbatches++;
    step_touch(e, a->part);
    s->about_record = s->about_record || (a->b && a->b->selected);
    if (s->nbatches == 1) {
        ks_sb_puts(&s->desc, ks_sb_str(sentence));
        return;
    }
    /* several batches: one line each below a summary */
    if (s->nbatches == 2)
        ks_sb_line(&s->notes, ks_sb_str(&s->desc));
    ks_sb_clear(&s->desc);
    ks_sb_printf(&s->desc,
                 "broker %" PRId64 " handles request %" PRId64 " of %s: %" PRId64 " batches",
                 a->broker, s->request, e->prods[s->producer].id, s->nbatches);
    ks_sb_line(&s->notes, ks_sb_str(sentence));
}

/* The leader handles one batch of a request: stores it, recognises a
 * duplicate (idempotence), or refuses it. */
static void on_append(explain *e, ks_tline *j, int64_t t)
{
    size_t p = prod_of(e, ks_tl_str(j, "producer", NULL));
    append_line a = {part_of(e, ks_tl_str(j, "topic", NULL), ks_tl_int(j, "partition", -1)),
                     NULL,
                     ks_tl_int(j, "broker", -1),
                     ks_tl_int(j, "offset", -1),
                     ks_tl_int(j, "records", 0),
                     ks_tl_int(j, "producer_id", -1),
                     ks_tl_int(j, "epoch", -1),
                     ks_tl_int(j, "base_sequence", -1),
                     ks_tl_int(j, "fault", -1),
                     ks_tl_str(j, "result", NULL)};
    int64_t r = ks_tl_int(j, "request", -1), bid = ks_tl_int(j, "batch", -1);
    if (a.part == NONE)
        return;
    e->parts[a.part].leader = a.broker;
    a.b = batch_get(e, p, bid);
    if (!(step_is(e, SK_APPEND, t, p) && e->cur.request == r && e->cur.broker == a.broker)) {
        step_begin(e, SK_APPEND, t, p);
        e->cur.request = r;
        e->cur.broker = a.broker;
        e->cur.from = (lane){'B', a.broker};
    }
    ks_sbuf sentence = {0};
    append_sentence(e, &a, &sentence);
    if (a.result && strcmp(a.result, "DUPLICATE") != 0) {
        char names[NAME_BUF * 4];
        batch_names(e, a.b, names, sizeof names);
        e->cur.style = MS_NOTE;
        ks_sb_printf(&e->cur.label, "%s\xE2\x9C\x95 %s not stored: %s",
                     e->cur.label.len ? "\n" : "", names, a.result);
    }
    if (!a.result && a.offset >= 0) {
        log_append_batch(e, a.part, a.b, a.offset, a.records);
        e->parts[a.part].mk_data = e->parts[a.part].mk_data || a.pid == e->parts[a.part].mk_pid;
    }
    else
        e->parts[a.part].log_touched = !a.result || strcmp(a.result, "DUPLICATE") != 0;
    append_pid_state(e, &a);
    append_step(e, &a, &sentence);
    e->oom = e->oom || sentence.oom;
    ks_sb_free(&sentence);
    if (a.b) {
        a.b->last_offset = a.offset;
        a.b->last_request = r;
        copy_str(a.b->last_result, sizeof a.b->last_result, a.result);
    }
}

/* ---- faults on messages ---------------------------------------------------- */

/* The lane an API's messages use on the broker's side: the coordinator
 * for a transactional producer's transactional requests. */
static lane api_lane(const explain *e, size_t p, const char *api, int64_t broker)
{
    bool coord = p != NONE && e->prods[p].tid && api[0] && strcmp(api, "FindCoordinator") != 0;
    return (lane){coord ? 'C' : 'B', broker};
}

/* A request fault whose send line did not follow: a step of its own. */
static void flush_pending_fault(explain *e)
{
    pending_fault f = e->pf;
    e->pf.on = false;
    step_begin(e, SK_LOST, f.t, f.producer);
    step *s = &e->cur;
    s->request = f.request;
    s->broker = f.broker;
    copy_str(s->api, sizeof s->api, f.api);
    if (f.producer == NONE) {
        s->from = (lane){'C', e->marker_coord};
        s->to = (lane){'B', f.broker};
        ks_sb_printf(&s->desc, "the coordinator sends %s request %" PRId64 " to broker %" PRId64,
                     f.api[0] ? f.api : "WriteTxnMarkers", f.request, f.broker);
    } else {
        s->from = (lane){'P', (int64_t)f.producer};
        s->to = api_lane(e, f.producer, f.api, f.broker);
        ks_sb_printf(&s->desc, "%s sends %s request %" PRId64 " to broker %" PRId64,
                     e->prods[f.producer].id, f.api[0] ? f.api : "produce", f.request, f.broker);
    }
    ks_sb_printf(&s->label, "%s(request %" PRId64 ")", f.api[0] ? f.api : "send", f.request);
    s->style = MS_REQ;
    step_fault_request(e, s, f.fault, f.delay_ns);
}

/* "ACK(offset 0)", "ACK(offsets 0-2)", "ACK(3 batches)", or the error. */
static void ack_label(const explain *e, const request *q, const char *error, char *buf, size_t n)
{
    if (error && strcmp(error, "NONE") != 0) {
        snprintf(buf, n, "%s", error);
        return;
    }
    const batch *b = q && q->n == 1 ? batch_get(e, q->producer, q->batches[0]) : NULL;
    if (b && b->last_request == q->id && b->last_offset >= 0 &&
        (!b->last_result[0] || strcmp(b->last_result, "DUPLICATE") == 0)) {
        char offs[64];
        offsets_text(offs, sizeof offs, b->last_offset, b->records);
        snprintf(buf, n, "ACK(%s)", offs);
    } else if (b && b->last_request == q->id && b->last_result[0]) {
        snprintf(buf, n, "%s", b->last_result);
    } else if (q && q->n > 1) {
        snprintf(buf, n, "ACK(%zu batches)", q->n);
    } else {
        snprintf(buf, n, "ACK");
    }
}

/* The step is about the partitions (and the --record record) of request q. */
static void touch_request(explain *e, const request *q)
{
    for (size_t i = 0; q && i < q->n; i++) {
        const batch *b = batch_get(e, q->producer, q->batches[i]);
        if (b) {
            step_touch(e, b->part);
            e->cur.part = i == 0 || e->cur.part == b->part ? b->part : NONE;
        }
    }
    e->cur.about_record = e->cur.about_record || (q && q->selected);
}

static void lost_answer(explain *e, step *s, size_t p, int64_t fault)
{
    const char *ft = fault_type(e, fault);
    if (p == NONE) {
        ks_sb_printf(&s->desc,
                     "broker %" PRId64 "'s answer to WriteTxnMarkers request %" PRId64
                     " is lost (fault %" PRId64 ": %s): the coordinator will send the "
                     "marker again",
                     s->broker, s->request, fault, ft);
        ks_sb_printf(&s->label, "WriteTxnMarkers answer lost (fault %" PRId64 ")", fault);
    } else if (s->api[0]) {
        ks_sb_printf(&s->desc,
                     "the answer to %s's %s (request %" PRId64 ") is lost on the way "
                     "back (fault %" PRId64 ": %s)",
                     e->prods[p].id, s->api, s->request, fault, ft);
        ks_sb_printf(&s->label, "%s answer lost (fault %" PRId64 ")", s->api, fault);
    } else {
        request *q = request_get(e, p, s->request);
        char ack[128];
        ack_label(e, q, "NONE", ack, sizeof ack);
        ks_sb_printf(&s->desc,
                     "the response to request %" PRId64 " is lost on the way back (fault %" PRId64
                     ": %s): %s never sees %s",
                     s->request, fault, ft, e->prods[p].id, ack);
        ks_sb_printf(&s->label, "ACK lost (fault %" PRId64 ")", fault);
        ks_sb_printf(&s->mlabel, "%s lost (fault %" PRId64 ")", ack, fault);
        touch_request(e, q);
    }
}

static void fault_response(explain *e, ks_tline *j, int64_t t, size_t p, int64_t fault)
{
    step_begin(e, SK_LOST, t, p);
    step *s = &e->cur;
    copy_str(s->api, sizeof s->api, ks_tl_str(j, "api", ""));
    s->request = ks_tl_int(j, "request", -1);
    s->broker = ks_tl_int(j, "broker", -1);
    s->from = p == NONE ? (lane){'B', s->broker} : api_lane(e, p, s->api, s->broker);
    s->to = p == NONE ? (lane){'C', e->marker_coord} : (lane){'P', (int64_t)p};
    int64_t delay = ks_tl_int(j, "delay_ns", 0);
    if (delay > 0) {
        char ms[32];
        fmt_ms(ms, sizeof ms, delay);
        ks_sb_printf(&s->desc,
                     "the answer to request %" PRId64 " is held up %s ms on the way back "
                     "(fault %" PRId64 ": %s)",
                     s->request, ms, fault, fault_type(e, fault));
        ks_sb_printf(&s->label, "answer to request %" PRId64 " held up %s ms (fault %" PRId64 ")",
                     s->request, ms, fault);
        s->style = MS_NOTE;
        if (p != NONE)
            touch_request(e, request_get(e, p, s->request));
        return;
    }
    s->style = MS_LOST_RESP;
    lost_answer(e, s, p, fault);
}

static void fault_window(explain *e, ks_tline *j, int64_t t, int64_t fault, const char *phase);

static void on_fault(explain *e, ks_tline *j, int64_t t)
{
    const char *what = ks_tl_str(j, "what", NULL), *phase = ks_tl_str(j, "phase", NULL);
    const char *pname = ks_tl_str(j, "producer", NULL);
    int64_t fault = ks_tl_int(j, "fault", -1);
    if (phase) {
        fault_window(e, j, t, fault, phase);
        return;
    }
    if (!what || strcmp(what, "append") == 0)
        return; /* the append line names its fault */
    size_t p = pname ? prod_of(e, pname) : NONE;
    if (strcmp(what, "request") != 0) {
        fault_response(e, j, t, p, fault);
        return;
    }
    const char *api = ks_tl_str(j, "api", "");
    int64_t r = ks_tl_int(j, "request", -1);
    if (!api[0] && e->cur.kind == SK_SEND && e->cur.producer == p && e->cur.request == r) {
        step_fault_request(e, &e->cur, fault, ks_tl_int(j, "delay_ns", 0));
        return;
    }
    if (e->pf.on)
        flush_pending_fault(e);
    e->pf = (pending_fault){true, p, t, ks_tl_int(j, "broker", -1), r, fault,
                            ks_tl_int(j, "delay_ns", 0), ""};
    copy_str(e->pf.api, sizeof e->pf.api, api);
}

/* ---- answers --------------------------------------------------------------- */

/* The description of a produce response. */
static void describe_response(explain *e, step *s, const request *q, const char *error)
{
    const char *id = e->prods[s->producer].id;
    const batch *b = q && q->n == 1 ? batch_get(e, q->producer, q->batches[0]) : NULL;
    char names[NAME_BUF * 4], offs[64];
    if (strcmp(error, "NONE") != 0) {
        ks_sb_printf(&s->desc, "broker %" PRId64 " answers request %" PRId64 " of %s with %s",
                     s->broker, s->request, id, error);
    } else if (b && b->last_request == q->id && b->last_offset >= 0) {
        batch_names(e, b, names, sizeof names);
        offsets_text(offs, sizeof offs, b->last_offset, b->records);
        ks_sb_printf(&s->desc, "%s receives the ACK for request %" PRId64 ": %s %s stored at %s%s",
                     id, s->request, names, b->records > 1 ? "are" : "is", offs,
                     strcmp(b->last_result, "DUPLICATE") == 0 ? " (the original copy)" : "");
    } else if (q && q->n > 1) {
        ks_sb_printf(&s->desc,
                     "%s receives the ACK for request %" PRId64 " from broker %" PRId64
                     ": %zu batches stored",
                     id, s->request, s->broker, q->n);
    } else {
        ks_sb_printf(&s->desc, "%s receives the ACK for request %" PRId64 " from broker %" PRId64,
                     id, s->request, s->broker);
    }
}

/* The answer to FindCoordinator, InitProducerId, AddPartitionsToTxn or
 * EndTxn; the producer line that follows may say more. */
static void on_api_response(explain *e, ks_tline *j, int64_t t, size_t p, const char *api)
{
    step_begin(e, SK_API_RESPONSE, t, p);
    step *s = &e->cur;
    const producer *pr = &e->prods[p];
    const char *error = ks_tl_str(j, "error", ""), *tid = pr->tid ? pr->tid : "";
    copy_str(s->api, sizeof s->api, api);
    s->request = ks_tl_int(j, "request", -1);
    s->broker = ks_tl_int(j, "broker", -1);
    s->from = api_lane(e, p, api, s->broker);
    s->to = (lane){'P', (int64_t)p};
    s->style = MS_RESP;
    if (strcmp(error, "NONE") != 0) {
        ks_sb_printf(&s->desc, "%s's %s fails: %s", pr->id, api, error);
        ks_sb_puts(&s->label, error);
    } else if (strcmp(api, "FindCoordinator") == 0) {
        ks_sb_printf(&s->desc, "%s learns where the coordinator of %s is", pr->id, tid);
        ks_sb_puts(&s->label, "coordinator location");
    } else if (strcmp(api, "EndTxn") == 0) {
        ks_sb_printf(&s->desc, "the coordinator has logged the decision: %s's EndTxn returns",
                     pr->id);
        ks_sb_puts(&s->label, "EndTxn: OK");
    } else {
        ks_sb_printf(&s->desc, "%s's %s succeeds", pr->id, api);
        ks_sb_printf(&s->label, "%s: OK", api);
    }
}

/* A response reaches the producer; the ack and retry lines that follow at
 * the same moment join its step. */
static void on_response(explain *e, ks_tline *j, int64_t t)
{
    size_t p = prod_of(e, ks_tl_str(j, "producer", NULL));
    const char *api = ks_tl_str(j, "api", NULL);
    if (api) {
        on_api_response(e, j, t, p, api);
        return;
    }
    step_begin(e, SK_RESPONSE, t, p);
    step *s = &e->cur;
    s->request = ks_tl_int(j, "request", -1);
    s->broker = ks_tl_int(j, "broker", -1);
    s->from = (lane){'B', s->broker};
    s->to = (lane){'P', (int64_t)p};
    s->style = MS_RESP;
    const char *error = ks_tl_str(j, "error", "");
    request *q = request_get(e, p, s->request);
    char ack[128];
    ack_label(e, q, error, ack, sizeof ack);
    ks_sb_puts(&s->label, ack);
    describe_response(e, s, q, error);
    touch_request(e, q);
    if (q)
        request_free(map_del(&e->requests, obj_key(p, s->request)));
}

/* ---- what the producer learns ---------------------------------------------- */

/* True if a line of producer p at t belongs to the step being built. */
static bool joins_producer_step(const explain *e, int64_t t, size_t p)
{
    const step *s = &e->cur;
    if (s->producer != p || s->t != t)
        return false;
    switch (s->kind) {
    case SK_PRODUCE:
    case SK_SEND:
    case SK_RESPONSE:
    case SK_API_RESPONSE:
    case SK_TIMEOUT:
    case SK_ACK:
    case SK_PRODUCER:
        return true;
    case SK_NONE:
    case SK_API_SEND:
    case SK_APPEND:
    case SK_LOST:
    case SK_TXN:
    case SK_MARKER:
    case SK_CONSUME:
    case SK_NOTE:
        break;
    }
    return false;
}

/* Why the application gets an exception, when the name does not say. */
static const char *error_reason(const char *error)
{
    if (strcmp(error, "TimeoutException") == 0)
        return " (delivery.timeout.ms expired)";
    if (strcmp(error, "BufferExhaustedException") == 0)
        return " (no buffer memory within max.block.ms)";
    return "";
}

static void tell(explain *e, size_t p, const char *nm, int64_t offset, const char *error)
{
    producer *pr = &e->prods[p];
    bool ok = strcmp(error, "NONE") == 0;
    if (ok)
        pr->acked++;
    else
        pr->failed++;
    if (pr->ntold++ < TOLD_MAX) {
        ks_sb_printf(&pr->told, "%s%s ", pr->ntold > 1 ? ", " : "", nm);
        if (!ok)
            ks_sb_printf(&pr->told, "failed (%s)", error);
        else if (offset >= 0)
            ks_sb_printf(&pr->told, "at offset %" PRId64, offset);
        else
            ks_sb_puts(&pr->told, "sent (offset unknown)");
    }
}

/* send() completes for a record: what the application is told. */
static void on_ack(explain *e, ks_tline *j, int64_t t)
{
    size_t p = prod_of(e, ks_tl_str(j, "producer", NULL));
    uint64_t id = (uint64_t)ks_tl_int(j, "record", 0);
    int64_t offset = ks_tl_int(j, "offset", -1), pn = ks_tl_int(j, "partition", -1);
    size_t part = pn >= 0 ? part_of(e, ks_tl_str(j, "topic", NULL), pn) : NONE;
    const char *error = ks_tl_str(j, "error", "");
    bool ok = strcmp(error, "NONE") == 0, sel = e->o.has_record && id == e->o.record;
    fifo_remove(part != NONE ? fifo_of(e, p, part, false) : NULL, id);
    char nm[NAME_BUF], line[NAME_BUF + 160];
    record_name(e, id, nm, sizeof nm);
    tell(e, p, nm, offset, error);
    if (sel && ok)
        snprintf(line, sizeof line, "%s was told: offset %" PRId64, e->prods[p].id, offset);
    else if (sel)
        snprintf(line, sizeof line, "%s was told: %s", e->prods[p].id, error);
    if (sel)
        ks_sb_line(&e->sel_fate, line);
    if (!joins_producer_step(e, t, p)) {
        step_begin(e, SK_ACK, t, p);
        e->cur.from = (lane){'P', (int64_t)p};
        e->cur.style = MS_NOTE;
    }
    step *s = &e->cur;
    step_touch(e, part);
    s->about_record = s->about_record || sel;
    if (s->kind == SK_SEND && ok && offset < 0) {
        if (!s->acks0_noted)
            ks_sb_line(&s->notes, "acks=0: the producer does not wait for an answer; send() "
                                  "completes at once, offset unknown");
        s->acks0_noted = true;
        return;
    }
    if (s->kind == SK_RESPONSE && ok)
        return; /* the response's description says it */
    if (!step_drawn(e, s)) {
        s->nrecords += s->kind == SK_ACK; /* counted, not described */
        return;
    }
    bool no_retry = !ok && s->kind == SK_RESPONSE && e->prods[p].retries == 0;
    if (ok)
        snprintf(line, sizeof line, "send() of %s completes: offset %" PRId64, nm, offset);
    else
        snprintf(line, sizeof line, "%s fails with %s%s%s", nm, error, error_reason(error),
                 no_retry ? ": it is not sent again (retries=0)" : "");
    ks_sb_line(&s->notes, line);
    if (s->kind == SK_ACK && ++s->nrecords == 1) {
        ks_sb_printf(&s->desc, "%s's send() of %s completes with %s", e->prods[p].id, nm,
                     ok ? "success" : error);
    } else if (s->kind == SK_ACK) {
        ks_sb_clear(&s->desc);
        ks_sb_printf(&s->desc, "send() completes for %" PRId64 " records of %s", s->nrecords,
                     e->prods[p].id);
    }
}

/* A batch goes back to its queue to be sent again. */
static void on_retry(explain *e, ks_tline *j, int64_t t)
{
    size_t p = prod_of(e, ks_tl_str(j, "producer", NULL));
    size_t part = part_of(e, ks_tl_str(j, "topic", NULL), ks_tl_int(j, "partition", -1));
    int64_t attempt = ks_tl_int(j, "attempt", 2), seq = ks_tl_int(j, "base_sequence", -1);
    batch *b = batch_get(e, p, ks_tl_int(j, "batch", -1));
    if (b) {
        b->attempt = attempt;
        b->base_seq = seq >= 0 ? seq : b->base_seq;
        b->seq_gen = e->prods[p].seq_gen;
    }
    char names[NAME_BUF * 4], ms[32], line[NAME_BUF * 4 + 200], idem[80] = "";
    batch_names(e, b, names, sizeof names);
    fmt_ms(ms, sizeof ms, ks_tl_int(j, "backoff_ns", 0));
    if (seq >= 0 && e->prods[p].pid >= 0)
        snprintf(idem, sizeof idem, ", same PID %" PRId64 " and sequence %" PRId64,
                 e->prods[p].pid, seq);
    snprintf(line, sizeof line, "%s goes back to the queue: attempt %" PRId64 " after %s ms of "
                                "backoff (%s%s)",
             names, attempt, ms, ks_tl_str(j, "error", ""), idem);
    if (!(joins_producer_step(e, t, p) &&
          (e->cur.kind == SK_RESPONSE || e->cur.kind == SK_TIMEOUT))) {
        step_begin(e, SK_TIMEOUT, t, p);
        e->cur.from = (lane){'P', (int64_t)p};
        e->cur.style = MS_NOTE;
        ks_sb_printf(&e->cur.desc, "%s will send %s again: attempt %" PRId64, e->prods[p].id, names,
                     attempt);
    }
    step_touch(e, part);
    e->cur.about_record = e->cur.about_record || (b && b->selected);
    ks_sb_line(&e->cur.notes, line);
}

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
        request *q = map_del(&e->requests, obj_key(p, ids[i]));
        touch_request(e, q);
        for (size_t k = 0; q && k < q->n; k++) {
            const batch *b = batch_get(e, p, q->batches[k]);
            if (!b || b->last_request != q->id || b->last_offset < 0)
                continue;
            char names[NAME_BUF * 4], offs[64];
            batch_names(e, b, names, sizeof names);
            offsets_text(offs, sizeof offs, b->last_offset, b->records);
            ks_sb_printf(&e->cur.notes,
                         "%s%s cannot tell a lost ACK from a lost record: broker %" PRId64
                         " did store %s at %s (request %" PRId64 ")",
                         e->cur.notes.len ? "\n" : "", e->prods[p].id, broker, names, offs, q->id);
        }
        request_free(q);
    }
}

/* request.timeout.ms expired (or the link went down): the connection
 * closes and what was in flight on it fails. */
static void on_disconnect(explain *e, ks_tline *j, int64_t t, size_t p)
{
    step_begin(e, SK_TIMEOUT, t, p);
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
    if (joins_producer_step(e, t, p)) {
        ks_sb_line(&e->cur.notes, sentence);
        return;
    }
    step_begin(e, SK_PRODUCER, t, p);
    e->cur.from = (lane){'P', (int64_t)p};
    e->cur.style = MS_NOTE;
    ks_sb_puts(&e->cur.desc, sentence);
    ks_sb_puts(&e->cur.label, lane_text);
}

static void on_init_producer_id(explain *e, ks_tline *j, int64_t t, size_t p)
{
    producer *pr = &e->prods[p];
    pr->pid = ks_tl_int(j, "producer_id", -1);
    pr->epoch = ks_tl_int(j, "epoch", -1);
    pr->seq_gen++;
    pr->txn_open = false;
    step *s = &e->cur;
    char text[160];
    if (step_is(e, SK_API_RESPONSE, t, p) && strcmp(s->api, "InitProducerId") == 0) {
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
        snprintf(text, sizeof text, "the application calls %sTransaction() for transaction %"
                 PRId64 "%s%s", commit ? "commit" : "abort", n, error ? ": " : "",
                 error ? error : "");
        snprintf(lane_text, sizeof lane_text, "%sTransaction()", commit ? "commit" : "abort");
    } else if (ended) {
        pr->txn_open = false;
        snprintf(text, sizeof text, "%sTransaction() returns: transaction %" PRId64 " of %s is %s",
                 what[0] == 'c' ? "commit" : "abort", n, pr->id, what);
        snprintf(lane_text, sizeof lane_text, "transaction %" PRId64 " %s", n, what);
        if (step_is(e, SK_API_RESPONSE, t, p) && strcmp(e->cur.api, "EndTxn") == 0) {
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
    } else if (step_is(e, SK_API_RESPONSE, t, p) && strcmp(e->cur.api, what) == 0) {
        snprintf(text, sizeof text, "%s will send %s again after a backoff", pr->id, what);
        snprintf(lane_text, sizeof lane_text, "%s again later", what);
    } else {
        snprintf(text, sizeof text, "%s's %s fails with %s", pr->id, what, error ? error : "?");
        snprintf(lane_text, sizeof lane_text, "%s: %s", what, error ? error : "?");
    }
    producer_event(e, t, p, text, lane_text);
}

static void on_producer(explain *e, ks_tline *j, int64_t t)
{
    size_t p = prod_of(e, ks_tl_str(j, "producer", NULL));
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

/* ---- the coordinator, markers, consumers ----------------------------------- */

static void describe_txn(step *s, const txn *x, int64_t prev_epoch, const char *why)
{
    const char *from = s->txn_from, *to = x->state;
    bool prepare = strncmp(to, "Prepare", 7) == 0 && strcmp(to, "PrepareEpochFence") != 0;
    ks_sb_printf(&s->desc, "the coordinator (broker %" PRId64 ") ", x->coordinator);
    if (strcmp(to, "Empty") == 0 && strcmp(why, "InitProducerId") == 0 && prev_epoch >= 0 &&
        x->epoch > prev_epoch)
        ks_sb_printf(&s->desc,
                     "bumps %s to epoch %" PRId64 " (PID %" PRId64 ") in the transaction "
                     "log: requests with an older epoch are refused from now on",
                     x->tid, x->epoch, x->pid);
    else if (strcmp(to, "Empty") == 0 && strcmp(why, "InitProducerId") == 0)
        ks_sb_printf(&s->desc,
                     "maps %s to PID %" PRId64 ", epoch %" PRId64 " and writes it to the "
                     "transaction log",
                     x->tid, x->pid, x->epoch);
    else if (strcmp(to, "Ongoing") == 0 && strcmp(from, "Ongoing") != 0)
        ks_sb_printf(&s->desc,
                     "writes %s's partitions to the transaction log: Ongoing, %" PRId64
                     " partition%s, and the transaction timer starts (%s)",
                     x->tid, x->partitions, x->partitions == 1 ? "" : "s", why);
    else if (strcmp(to, "Ongoing") == 0)
        ks_sb_printf(&s->desc, "adds partitions to %s's transaction: %" PRId64 " now", x->tid,
                     x->partitions);
    else if (prepare)
        ks_sb_printf(&s->desc,
                     "writes %s for %s (%s): the decision is logged; the %s markers go "
                     "to its %" PRId64 " partition%s next",
                     to, x->tid, why, strcmp(to, "PrepareCommit") == 0 ? "COMMIT" : "ABORT",
                     x->partitions, x->partitions == 1 ? "" : "s");
    else if (strncmp(to, "Complete", 8) == 0)
        ks_sb_printf(&s->desc,
                     "has every marker written: it writes %s for %s, and the transaction "
                     "is over",
                     to, x->tid);
    else if (strcmp(to, "PrepareEpochFence") == 0)
        ks_sb_printf(&s->desc,
                     "fences the ongoing transaction of %s (%s): epoch %" PRId64 " from "
                     "now on",
                     x->tid, why, x->epoch);
    else
        ks_sb_printf(&s->desc, "moves %s from %s to %s (%s)", x->tid, from, to, why);
}

/* --partition: is producer id pid among the partition's producers? */
static bool pid_on_filtered(const explain *e, int64_t pid)
{
    if (e->filter_part == NONE)
        return false;
    const partition *pt = &e->parts[e->filter_part];
    for (size_t i = 0; i < pt->npids; i++)
        if (pt->pids[i].pid == pid)
            return true;
    return pt->mk_pid == pid;
}

/* The coordinator wrote a transaction's new state to its log. */
static void on_txn(explain *e, ks_tline *j, int64_t t)
{
    step_begin(e, SK_TXN, t, NONE); /* draws the step before, with the state before */
    step *s = &e->cur;
    size_t ti = txn_of(e, ks_tl_str(j, "transactional_id", NULL));
    txn *x = &e->txns[ti];
    int64_t prev_epoch = x->epoch;
    x->coordinator = ks_tl_int(j, "coordinator", -1);
    x->pid = ks_tl_int(j, "producer_id", -1);
    x->epoch = ks_tl_int(j, "epoch", -1);
    x->partitions = ks_tl_int(j, "partitions", 0);
    copy_str(x->state, sizeof x->state, ks_tl_str(j, "state", ""));
    s->txn = ti;
    copy_str(s->txn_from, sizeof s->txn_from, ks_tl_str(j, "from", ""));
    s->from = (lane){'C', x->coordinator};
    s->style = MS_NOTE;
    ks_sb_printf(&s->label, "%s: %s \xE2\x86\x92 %s", x->tid, s->txn_from, x->state);
    describe_txn(s, x, prev_epoch, ks_tl_str(j, "why", ""));
    s->about_part = pid_on_filtered(e, x->pid);
    if (strncmp(x->state, "Prepare", 7) == 0)
        e->marker_coord = x->coordinator; /* its markers come next */
    s->about_record = e->sel_txn_open && x->pid == e->sel_pid;
    if (s->about_record && strncmp(x->state, "Complete", 8) == 0)
        e->sel_txn_open = false;
}

/* A leader appended a COMMIT or ABORT marker (a control record). */
static void on_marker(explain *e, ks_tline *j, int64_t t)
{
    size_t part = part_of(e, ks_tl_str(j, "topic", NULL), ks_tl_int(j, "partition", -1));
    if (part == NONE)
        return;
    const char *tid = ks_tl_str(j, "transactional_id", ""), *type = ks_tl_str(j, "type", "");
    int64_t broker = ks_tl_int(j, "broker", -1), pid = ks_tl_int(j, "producer_id", -1);
    int64_t epoch = ks_tl_int(j, "epoch", -1), offset = ks_tl_int(j, "offset", -1);
    partition *pt = &e->parts[part];
    pt->leader = broker;
    bool again = pt->mk_pid == pid && pt->mk_epoch == epoch && strcmp(pt->mk_type, type) == 0 &&
                 !pt->mk_data;
    e->marker_coord = coord_of_tid(e, tid);
    step_begin(e, SK_MARKER, t, NONE);
    step *s = &e->cur;
    s->part = part;
    s->broker = broker;
    s->from = (lane){'C', e->marker_coord};
    s->to = (lane){'B', broker};
    s->style = MS_REQ;
    ks_sb_printf(&s->label, "%s marker", type);
    ks_sb_printf(&s->after, "offset %" PRId64, offset);
    if (again)
        ks_sb_printf(&s->desc,
                     "the coordinator sends the %s marker for %s again: broker %" PRId64
                     " appends it a second time, at offset %" PRId64 " of %s",
                     type, tid, broker, offset, pt->label);
    else
        ks_sb_printf(&s->desc,
                     "the coordinator has broker %" PRId64 " write %s %s marker for %s to "
                     "%s (WriteTxnMarkers): a control record at offset %" PRId64 "; the "
                     "last stable offset moves to %" PRId64,
                     broker, strchr("AEIOU", type[0]) && type[0] ? "an" : "a", type, tid, pt->label,
                     offset, ks_tl_int(j, "lso", -1));
    char text[96];
    if (epoch > 0)
        snprintf(text, sizeof text, "%s marker (pid %" PRId64 ", epoch %" PRId64 ")", type, pid,
                 epoch);
    else
        snprintf(text, sizeof text, "%s marker (pid %" PRId64 ")", type, pid);
    log_push(e, part, offset, 1, again ? pt->mk_offset : -1, text);
    pt->markers++;
    if (!again) {
        pt->mk_pid = pid;
        pt->mk_epoch = epoch;
        pt->mk_offset = offset;
        copy_str(pt->mk_type, sizeof pt->mk_type, type);
        pt->mk_data = false;
    }
    step_touch(e, part);
    s->about_record = e->sel_txn_open && pid == e->sel_pid && part == e->sel_part;
}

static void consume_text(explain *e, step *s, consumer *c, const char *nm, size_t part,
                         int64_t offset)
{
    char names[NAME_BUF * 4];
    names_text(s, names, sizeof names);
    ks_sb_clear(&s->desc);
    ks_sb_clear(&s->label);
    if (s->nrecords == 1) {
        ks_sb_printf(&s->desc, "%s's poll() returns %s (%s offset %" PRId64 ")", c->id, nm,
                     part_label(e, part), offset);
        ks_sb_printf(&s->label, "records(offset %" PRId64 ": %s)", offset, nm);
    } else {
        ks_sb_printf(&s->desc, "%s's poll() returns %" PRId64 " records (%s)", c->id, s->nrecords,
                     names);
        ks_sb_printf(&s->label, "records(%" PRId64 ": %s)", s->nrecords, names);
    }
}

/* poll() returned a record; the records of one poll make one step. */
static void on_consume(explain *e, ks_tline *j, int64_t t)
{
    size_t ci = cons_of(e, ks_tl_str(j, "consumer", NULL));
    size_t part = part_of(e, ks_tl_str(j, "topic", NULL), ks_tl_int(j, "partition", -1));
    int64_t offset = ks_tl_int(j, "offset", -1), rec = ks_tl_int_or_null(j, "record", -1);
    consumer *c = &e->cons[ci];
    char nm[NAME_BUF];
    if (rec >= 0)
        record_name(e, (uint64_t)rec, nm, sizeof nm);
    else
        snprintf(nm, sizeof nm, "offset %" PRId64, offset);
    if (c->records++ < TOLD_MAX)
        ks_sb_printf(&c->read, "%s%s (%s offset %" PRId64 ")", c->records > 1 ? ", " : "", nm,
                     part_label(e, part), offset);
    bool sel = e->o.has_record && rec >= 0 && (uint64_t)rec == e->o.record;
    if (sel) {
        char line[NAME_BUF];
        snprintf(line, sizeof line, "read by %s (offset %" PRId64 ")", c->id, offset);
        ks_sb_line(&e->sel_fate, line);
    }
    if (!(e->cur.kind == SK_CONSUME && e->cur.t == t && e->cur.consumer == ci)) {
        step_begin(e, SK_CONSUME, t, NONE);
        e->cur.consumer = ci;
        e->cur.part = part;
        e->cur.from = (lane){'B', part != NONE ? e->parts[part].leader : -1};
        e->cur.to = (lane){'K', (int64_t)ci};
        e->cur.style = MS_RESP;
    }
    step *s = &e->cur;
    s->part = s->part == part ? part : NONE;
    s->nrecords++;
    step_add_name(s, nm);
    step_touch(e, part);
    s->about_record = s->about_record || sel;
    consume_text(e, s, c, nm, part, offset);
}

/* The group's committed offset of a partition moves: by commitSync, or
 * with the transaction the offsets were sent to. A restarted consumer
 * starts there. */
static void on_offset_commit(explain *e, ks_tline *j, int64_t t)
{
    size_t ci = cons_of(e, ks_tl_str(j, "consumer", NULL));
    size_t part = part_of(e, ks_tl_str(j, "topic", NULL), ks_tl_int(j, "partition", -1));
    int64_t offset = ks_tl_int(j, "offset", -1);
    const char *how = ks_tl_str(j, "commit", ""), *group = ks_tl_str_or_null(j, "group");
    bool in_txn = strcmp(how, "transaction") == 0;
    step_begin(e, SK_NOTE, t, NONE);
    step *s = &e->cur;
    s->consumer = ci;
    s->from = (lane){'K', (int64_t)ci};
    s->style = MS_NOTE;
    ks_sb_printf(&s->desc, "%s's committed offset for %s becomes %" PRId64 "%s%s%s: %s",
                 e->cons[ci].id, part_label(e, part), offset, group ? " (group " : "",
                 group ? group : "", group ? ")" : "",
                 in_txn ? "its transaction committed, and the offsets sent to it with it"
                        : "commitSync() is answered");
    ks_sb_printf(&s->label, "committed offset of %s: %" PRId64 " (%s)", part_label(e, part), offset,
                 in_txn ? "with the transaction" : "commitSync");
    ks_sb_printf(&s->notes, "after a restart, %s reads %s from offset %" PRId64, e->cons[ci].id,
                 part_label(e, part), offset);
    step_touch(e, part);
}

/* A producer writes a record for one a consumer read. */
static void on_forward(explain *e, ks_tline *j, int64_t t)
{
    (void)t;
    int64_t rec = ks_tl_int(j, "record", -1), src = ks_tl_int(j, "source", -1);
    if (rec >= 0 && src >= 0)
        name_source(e, (uint64_t)rec, (uint64_t)src);
}

/* ---- fault windows, admin operations, the end ------------------------------- */

/* A fault window opens or closes, or a process crashes. */
static void fault_window(explain *e, ks_tline *j, int64_t t, int64_t fault, const char *phase)
{
    const char *type = ks_tl_str(j, "type", "");
    const char *pname = ks_tl_str(j, "producer", NULL), *cname = ks_tl_str(j, "consumer", NULL);
    int64_t broker = ks_tl_int(j, "broker", -1), until = ks_tl_int(j, "until", -1);
    step_begin(e, SK_NOTE, t, pname ? prod_of(e, pname) : NONE);
    step *s = &e->cur;
    char who[96], ms[32];
    if (pname)
        s->from = (lane){'P', (int64_t)prod_of(e, pname)};
    else if (cname)
        s->from = (lane){'K', (int64_t)cons_of(e, cname)};
    else if (broker >= 0)
        s->from = (lane){'B', broker};
    s->style = s->from.kind ? MS_NOTE : MS_NONE;
    if (pname && broker >= 0)
        snprintf(who, sizeof who, "the link between %s and broker %" PRId64, pname, broker);
    else if (pname || cname)
        snprintf(who, sizeof who, "%s", pname ? pname : cname);
    else if (broker >= 0)
        snprintf(who, sizeof who, "broker %" PRId64, broker);
    else
        snprintf(who, sizeof who, "every link");
    fmt_ms(ms, sizeof ms, until);
    ks_sbuf *what = &s->label;
    if (strcmp(phase, "crash") == 0)
        ks_sb_printf(what, "%s's process dies", who);
    else if (strcmp(phase, "begin") == 0 && strcmp(type, "link.down") == 0)
        ks_sb_printf(what, "%s goes down", who);
    else if (strcmp(phase, "begin") == 0)
        ks_sb_printf(what, "%s stops", who);
    else
        ks_sb_printf(what, "%s is back", who);
    if (strcmp(phase, "crash") == 0 && until >= 0)
        ks_sb_printf(what, "; a new one starts at t=%s ms", ms);
    else if (strcmp(phase, "end") != 0 && until >= 0)
        ks_sb_printf(what, " until t=%s ms", ms);
    ks_sb_printf(&s->desc, "fault %" PRId64 " (%s): %s", fault, type, ks_sb_str(what));
    /* a pause, a cut link or a crash is context for every partition:
     * --partition keeps it */
    s->about_part = true;
}

static void on_admin(explain *e, ks_tline *j, int64_t t)
{
    step_begin(e, SK_NOTE, t, NONE);
    ks_sb_printf(&e->cur.desc, "an administrator raises %s to %" PRId64 " partitions (%s)",
                 ks_tl_str(j, "topic", ""), ks_tl_int(j, "partitions", 0), ks_tl_str(j, "op", ""));
    size_t ti = topic_of(e, ks_tl_str(j, "topic", NULL));
    for (size_t i = 0; ti != NONE && i < e->topics[ti].nparts; i++)
        step_touch(e, e->topics[ti].parts[i]);
}

static void on_metadata(explain *e, ks_tline *j, int64_t t)
{
    size_t p = prod_of(e, ks_tl_str(j, "producer", NULL));
    char text[320];
    snprintf(text, sizeof text, "%s's metadata refresh: %s now has %" PRId64 " partitions",
             e->prods[p].id, ks_tl_str(j, "topic", ""), ks_tl_int(j, "partitions", 0));
    producer_event(e, t, p, text, text);
}

static void on_end(explain *e, ks_tline *j, int64_t t)
{
    step_flush(e);
    e->ended = true;
    e->end_t = t;
    copy_str(e->verdict, sizeof e->verdict, ks_tl_str(j, "verdict", ""));
}

/* A request fault waits for its send line: is this line that one? */
static bool is_pending_send(explain *e, ks_tline *j)
{
    return j->kind == KS_TR_SEND && prod_of(e, ks_tl_str(j, "producer", NULL)) == e->pf.producer &&
           ks_tl_int(j, "request", -1) == e->pf.request &&
           strcmp(ks_tl_str(j, "api", ""), e->pf.api) == 0;
}

/* The handler of a kind; NULL for the kinds explain does not draw (or
 * does not know, which the format asks readers to skip). */
static void (*handler_of(ks_trace_kind k))(explain *e, ks_tline *j, int64_t t)
{
    switch (k) {
    case KS_TR_PRODUCE: return on_produce;
    case KS_TR_DRAIN: return on_drain;
    case KS_TR_SEND: return on_send;
    case KS_TR_APPEND: return on_append;
    case KS_TR_FAULT: return on_fault;
    case KS_TR_RESPONSE: return on_response;
    case KS_TR_ACK: return on_ack;
    case KS_TR_RETRY: return on_retry;
    case KS_TR_PRODUCER: return on_producer;
    case KS_TR_TXN: return on_txn;
    case KS_TR_MARKER: return on_marker;
    case KS_TR_CONSUME: return on_consume;
    case KS_TR_OFFSET_COMMIT: return on_offset_commit;
    case KS_TR_FORWARD: return on_forward;
    case KS_TR_ADMIN: return on_admin;
    case KS_TR_METADATA: return on_metadata;
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
static void handle_line(explain *e, ks_tline *j)
{
    if (j->kind == KS_TR_METRICS || j->kind == KS_TR_ARRIVE || j->kind == KS_TR_EVENT)
        return;
    if (e->pf.on && !is_pending_send(e, j))
        flush_pending_fault(e);
    void (*fn)(explain *e, ks_tline *j, int64_t t) = handler_of(j->kind);
    if (fn)
        fn(e, j, j->t);
}

/* ---- drawing a step as text --------------------------------------------------- */

/* The participant as the notes name it: "Producer p1", "Broker 0 (P0)",
 * "Coordinator (broker 0)", "Consumer c1". */
static void lane_name(const explain *e, const step *s, lane l, char *buf, size_t n)
{
    switch (l.kind) {
    case 'P':
        snprintf(buf, n, "Producer %s", e->prods[l.n].id);
        break;
    case 'K':
        snprintf(buf, n, "Consumer %s", e->cons[l.n].id);
        break;
    case 'C':
        if (l.n >= 0)
            snprintf(buf, n, "Coordinator (broker %" PRId64 ")", l.n);
        else
            snprintf(buf, n, "Coordinator");
        break;
    case 'B':
        if (s->part != NONE && e->parts[s->part].leader == l.n)
            snprintf(buf, n, "Broker %" PRId64 " (%s)", l.n, e->parts[s->part].label);
        else
            snprintf(buf, n, "Broker %" PRId64, l.n);
        break;
    default:
        buf[0] = '\0';
    }
}

/* Left to right: producer, coordinator, broker, consumer (the notes put
 * the coordinator left of the partition it writes markers to). */
static int lane_rank(lane l)
{
    return l.kind == 'P' ? 0 : l.kind == 'C' ? 1 : l.kind == 'B' ? 2 : 3;
}

/* A dashed line of width w ("─ ─ ─"). */
static void put_dashes(FILE *f, size_t w)
{
    for (size_t i = 0; i < w; i++)
        fputs(i % 2 ? " " : "\xE2\x94\x80", f);
}

/* The arrow between the lifelines, `inner` columns wide: solid with its
 * label, dashed for a lost answer, broken off with a cross for a lost
 * request. */
static void put_arrow(FILE *f, mstyle st, bool right, const char *label, size_t inner)
{
    size_t k = inner - text_width(label) - 5, broken = inner * 2 / 3;
    if (st == MS_LOST_RESP) {
        fputs(right ? "" : "\xE2\x97\x80", f);
        put_dashes(f, inner - 1);
        fputs(right ? "\xE2\x96\xB6" : "", f);
    } else if (st == MS_LOST_REQ && right) {
        put_dashes(f, broken);
        fputs("\xE2\x9C\x95", f);
        put_n(f, " ", inner - broken - 1);
    } else if (st == MS_LOST_REQ) {
        put_n(f, " ", inner - broken - 1);
        fputs("\xE2\x9C\x95", f);
        put_dashes(f, broken);
    } else if (right) {
        fprintf(f, "\xE2\x94\x80\xE2\x94\x80 %s ", label);
        put_n(f, "\xE2\x94\x80", k);
        fputs("\xE2\x96\xB6", f);
    } else {
        fputs("\xE2\x97\x80", f);
        put_n(f, "\xE2\x94\x80", k);
        fprintf(f, " %s \xE2\x94\x80\xE2\x94\x80", label);
    }
}

/* Two participants and the message between them, as the notes draw it:
 *   Producer p1                          Broker 0 (P0)
 *        │ ── send(request 1: record A) ───▶ │                                */
static void draw_message(FILE *f, const char *left, const char *right, bool rightwards,
                         mstyle st, const char *label, const char *after)
{
    bool lost = st == MS_LOST_RESP || st == MS_LOST_REQ;
    size_t lw = text_width(left), rw = text_width(right), w = text_width(label) + (lost ? 2 : 0);
    size_t x1 = 2 + lw / 2, inner = w + 8 < 36 ? 36 : w + 8;
    while (x1 + inner + 3 < 2 + lw + 3 + rw / 2)
        inner++;
    size_t x2 = x1 + inner + 3;
    fprintf(f, "  %s", left);
    put_n(f, " ", x2 - rw / 2 - 2 - lw);
    fprintf(f, "%s\n", right);
    if (lost) {
        size_t pad = inner + 2 - w;
        put_n(f, " ", x1);
        fputs("\xE2\x94\x82", f);
        put_n(f, " ", pad / 2);
        fprintf(f, "\xE2\x9C\x95 %s", label);
        put_n(f, " ", pad - pad / 2);
        fputs("\xE2\x94\x82\n", f);
    }
    put_n(f, " ", x1);
    fputs("\xE2\x94\x82 ", f);
    put_arrow(f, st, rightwards, lost ? "" : label, inner);
    fprintf(f, " \xE2\x94\x82%s%s\n\n", after[0] ? " " : "", after);
}

/* One participant and lines on its lifeline. */
static void draw_lane(FILE *f, const char *name, const ks_sbuf *first, const ks_sbuf *rest)
{
    size_t x1 = 2 + text_width(name) / 2;
    fprintf(f, "  %s\n", name);
    const ks_sbuf *parts[] = {first, rest};
    for (size_t i = 0; i < 2; i++) {
        const char *s = ks_sb_str(parts[i]);
        while (*s) {
            size_t n = strcspn(s, "\n");
            put_n(f, " ", x1);
            fprintf(f, "\xE2\x94\x82 %.*s\n", (int)n, s);
            s += n + (s[n] == '\n');
        }
    }
    fputc('\n', f);
}

/* A box around '\n'-separated lines, under a title. */
static void draw_box(FILE *f, const char *title, const char *lines)
{
    size_t w = 0;
    for (const char *s = lines; *s;) {
        size_t n = strcspn(s, "\n");
        char *line = ks_strndup(s, n);
        if (line && text_width(line) > w)
            w = text_width(line);
        free(line);
        s += n + (s[n] == '\n');
    }
    fprintf(f, " %s\n \xE2\x94\x8C", title);
    put_n(f, "\xE2\x94\x80", w + 2);
    fputs("\xE2\x94\x90\n", f);
    for (const char *s = lines; *s;) {
        size_t n = strcspn(s, "\n");
        char *line = ks_strndup(s, n);
        fprintf(f, " \xE2\x94\x82 %s", line ? line : "");
        put_n(f, " ", w - (line ? text_width(line) : 0));
        fputs(" \xE2\x94\x82\n", f);
        free(line);
        s += n + (s[n] == '\n');
    }
    fputs(" \xE2\x94\x94", f);
    put_n(f, "\xE2\x94\x80", w + 2);
    fputs("\xE2\x94\x98\n\n", f);
}

/* The lines of a log box: the last BOX_ROWS entries ("…" above when there
 * are more), their texts aligned so that the flags line up. `fresh` flags
 * the entries of the step just drawn. */
static void log_box_lines(const partition *pt, bool fresh, ks_sbuf *out)
{
    if (pt->entries == 0) {
        ks_sb_puts(out, "(empty)");
        return;
    }
    uint64_t n = pt->entries < BOX_ROWS ? pt->entries : BOX_ROWS;
    if (pt->entries > BOX_ROWS)
        ks_sb_printf(out, "\xE2\x80\xA6 (%" PRIu64 " earlier entr%s)\n", pt->entries - BOX_ROWS,
                     pt->entries - BOX_ROWS == 1 ? "y" : "ies");
    char rows[BOX_ROWS][NAME_BUF + 64];
    size_t w = 0;
    for (uint64_t i = 0; i < n; i++) {
        const log_entry *le = &pt->ring[(pt->entries - n + i) % BOX_ROWS];
        if (le->count > 1)
            snprintf(rows[i], sizeof rows[i], "offsets %" PRId64 "-%" PRId64 " : %s", le->offset,
                     le->offset + le->count - 1, le->text ? le->text : "?");
        else
            snprintf(rows[i], sizeof rows[i], "offset %" PRId64 " : %s", le->offset,
                     le->text ? le->text : "?");
        w = text_width(rows[i]) > w ? text_width(rows[i]) : w;
    }
    for (uint64_t i = 0; i < n; i++) {
        const log_entry *le = &pt->ring[(pt->entries - n + i) % BOX_ROWS];
        ks_sb_printf(out, "%s%s", i ? "\n" : "", rows[i]);
        size_t pad = w - text_width(rows[i]);
        if (le->dup_of >= 0)
            ks_sb_printf(out, "%*s  \xE2\x86\x90 duplicate of offset %" PRId64, (int)pad, "",
                         le->dup_of);
        else if (fresh && le->fresh)
            ks_sb_printf(out, "%*s  \xE2\x86\x90 new", (int)pad, "");
    }
}

static void log_box_title(const partition *pt, char *buf, size_t n)
{
    if (pt->leader >= 0)
        snprintf(buf, n, "Broker %" PRId64 " (Partition %s)", pt->leader, pt->label);
    else
        snprintf(buf, n, "Partition %s", pt->label);
}

static void pid_cell(const pid_row *r, int col, const char *label, char *buf, size_t n)
{
    if (col == 0 && r->epoch > 0)
        snprintf(buf, n, "%" PRId64 " (epoch %" PRId64 ")", r->pid, r->epoch);
    else if (col == 0)
        snprintf(buf, n, "%" PRId64, r->pid);
    else if (col == 1)
        snprintf(buf, n, "%s", label);
    else
        snprintf(buf, n, "%" PRId64, r->last_seq);
}

static void put_centered(FILE *f, const char *s, size_t w)
{
    size_t pad = w - text_width(s);
    put_n(f, " ", pad / 2);
    fputs(s, f);
    put_n(f, " ", pad - pad / 2);
}

/* A row of the table: ┌─┬─┐, ├─┼─┤ or └─┴─┘ (`c` holds its three corners). */
static void table_rule(FILE *f, const size_t *w, const char *const *c)
{
    fprintf(f, " %s", c[0]);
    for (int i = 0; i < 3; i++) {
        put_n(f, "\xE2\x94\x80", w[i]);
        fputs(i < 2 ? c[1] : c[2], f);
    }
    fputc('\n', f);
}

/* The broker's producer state for the partition, as the notes draw it. */
static void draw_pid_table(FILE *f, const partition *pt)
{
    static const char *const head[3] = {"PID", "Partition", "Last Sequence"};
    static const char *const top[3] = {"\xE2\x94\x8C", "\xE2\x94\xAC", "\xE2\x94\x90"};
    static const char *const mid[3] = {"\xE2\x94\x9C", "\xE2\x94\xBC", "\xE2\x94\xA4"};
    static const char *const bot[3] = {"\xE2\x94\x94", "\xE2\x94\xB4", "\xE2\x94\x98"};
    size_t w[3];
    char cell[64];
    for (int c = 0; c < 3; c++) {
        w[c] = strlen(head[c]) + 2;
        for (size_t i = 0; i < pt->npids; i++) {
            pid_cell(&pt->pids[i], c, pt->label, cell, sizeof cell);
            w[c] = text_width(cell) + 4 > w[c] ? text_width(cell) + 4 : w[c];
        }
    }
    fprintf(f, " Broker %" PRId64 " memory (Producer State per Partition)\n", pt->leader);
    table_rule(f, w, top);
    fputs(" \xE2\x94\x82", f);
    for (int c = 0; c < 3; c++) {
        put_centered(f, head[c], w[c]);
        fputs("\xE2\x94\x82", f);
    }
    fputc('\n', f);
    table_rule(f, w, mid);
    for (size_t i = 0; i < pt->npids; i++) {
        const pid_row *r = &pt->pids[i];
        fputs(" \xE2\x94\x82", f);
        for (int c = 0; c < 3; c++) {
            pid_cell(r, c, pt->label, cell, sizeof cell);
            put_centered(f, cell, w[c]);
            fputs("\xE2\x94\x82", f);
        }
        if (r->flag == ROW_NEW)
            fputs("  \xE2\x86\x90 new", f);
        else if (r->flag == ROW_UPDATED)
            fputs("  \xE2\x86\x90 updated", f);
        else if (r->flag == ROW_DUPLICATE)
            fprintf(f, "  \xE2\x86\x90 sequence %" PRId64 " already processed: a duplicate",
                    r->dup_seq);
        fputc('\n', f);
    }
    table_rule(f, w, bot);
    fputc('\n', f);
}

static void txn_box_lines(const explain *e, const step *s, ks_sbuf *out)
{
    const txn *x = &e->txns[s->txn];
    ks_sb_printf(out, "%s \xE2\x86\x94 PID %" PRId64 ", epoch %" PRId64 "\n", x->tid, x->pid,
                 x->epoch);
    ks_sb_printf(out, "state : %s", x->state);
    if (strcmp(s->txn_from, x->state) != 0)
        ks_sb_printf(out, "  (was %s)", s->txn_from);
    if (x->partitions > 0)
        ks_sb_printf(out, "\npartitions : %" PRId64, x->partitions);
    if (strcmp(x->state, "Ongoing") == 0 && strcmp(s->txn_from, "Ongoing") != 0) {
        int64_t ms = -1;
        for (size_t i = 0; i < e->nprods; i++)
            if (e->prods[i].tid && strcmp(e->prods[i].tid, x->tid) == 0)
                ms = e->prods[i].txn_timeout_ms;
        if (ms >= 0)
            ks_sb_printf(out, "\ntimer started (transaction.timeout.ms %" PRId64 ")", ms);
        else
            ks_sb_puts(out, "\ntimer started");
    }
}

/* Does a box of this partition follow the steps (not when --partition or
 * --record names another one)? */
static bool box_wanted(const explain *e, size_t part)
{
    if (e->filter_part != NONE)
        return part == e->filter_part;
    return !e->o.has_record || e->sel_part == NONE || part == e->sel_part;
}

/* The boxes that follow a step: the logs and producer state it changed, or
 * the transaction log it wrote. */
static void draw_boxes(explain *e, const step *s)
{
    FILE *f = e->out;
    ks_sbuf lines = {0};
    char title[NAME_BUF];
    if (s->kind == SK_TXN) {
        txn_box_lines(e, s, &lines);
        snprintf(title, sizeof title, "Coordinator (broker %" PRId64 "): transaction log",
                 e->txns[s->txn].coordinator);
        draw_box(f, title, ks_sb_str(&lines));
    }
    for (size_t i = 0; i < s->ntouched; i++) {
        const partition *pt = &e->parts[s->touched[i]];
        if (!box_wanted(e, s->touched[i]))
            continue;
        if (pt->log_touched) {
            ks_sb_clear(&lines);
            log_box_lines(pt, true, &lines);
            log_box_title(pt, title, sizeof title);
            draw_box(f, title, ks_sb_str(&lines));
        }
        if (pt->pids_touched)
            draw_pid_table(f, pt);
    }
    e->oom = e->oom || lines.oom;
    ks_sb_free(&lines);
}

/* [STEP n], its description, its diagram, its notes and its boxes. */
static void render_text(explain *e, const step *s)
{
    FILE *f = e->out;
    char ms[32], a[128], b[128];
    fmt_ms(ms, sizeof ms, s->t);
    fprintf(f, "[STEP %" PRId64 "] t=%s ms  %s\n\n", e->shown, ms, ks_sb_str(&s->desc));
    bool note = s->style == MS_NOTE && s->kind != SK_TXN;
    if (note) {
        lane_name(e, s, s->from, a, sizeof a);
        draw_lane(f, a, &s->label, &s->notes);
    } else if (s->style != MS_NONE && s->style != MS_NOTE) {
        bool right = lane_rank(s->from) <= lane_rank(s->to);
        lane_name(e, s, right ? s->from : s->to, a, sizeof a);
        lane_name(e, s, right ? s->to : s->from, b, sizeof b);
        draw_message(f, a, b, right, s->style, ks_sb_str(&s->label), ks_sb_str(&s->after));
    }
    if (!note && s->notes.len) {
        for (const char *p = ks_sb_str(&s->notes); *p;) {
            size_t n = strcspn(p, "\n");
            fprintf(f, "  %.*s\n", (int)n, p);
            p += n + (p[n] == '\n');
        }
        fputc('\n', f);
    }
    draw_boxes(e, s);
}

/* ---- drawing a step as Mermaid --------------------------------------------- */

static uint64_t lane_key(lane l)
{
    return ((uint64_t)(unsigned char)l.kind << 56) ^ (uint64_t)(l.n + 1);
}

/* The participant's Mermaid id ("prod0", "brk0", "coord0", "cons0"), marked
 * as used so that it is declared. */
static void lane_id(explain *e, lane l, char *buf, size_t n)
{
    const char *kind = l.kind == 'P'   ? "prod"
                       : l.kind == 'C' ? "coord"
                       : l.kind == 'B' ? "brk"
                                       : "cons";
    if (l.n >= 0)
        snprintf(buf, n, "%s%" PRId64, kind, l.n);
    else
        snprintf(buf, n, "%sx", kind);
    if (!map_get(&e->used, lane_key(l)) && !map_put(&e->used, lane_key(l), e))
        e->oom = true;
    if ((l.kind == 'B' || l.kind == 'C') && l.n > e->max_broker)
        e->max_broker = l.n;
}

/* Text in a Mermaid message or note: ';' and '#' end or start statements
 * and entities, so they are written as entities; lines join with <br/>. */
static void mer_text(ks_sbuf *m, const char *s)
{
    for (; *s; s++) {
        char one[2] = {*s, '\0'};
        ks_sb_puts(m, *s == ';'    ? "#59;"
                      : *s == '#'  ? "#35;"
                      : *s == '<'  ? "#lt;"
                      : *s == '>'  ? "#gt;"
                      : *s == '\n' ? "<br/>"
                                   : one);
    }
}

static void mer_note(explain *e, lane l, const char *text)
{
    char id[32];
    lane_id(e, l, id, sizeof id);
    ks_sb_printf(&e->mer, "    Note over %s: ", id);
    mer_text(&e->mer, text);
    ks_sb_puts(&e->mer, "\n");
}

/* The partition boxes of a step as notes over the partition's leader. */
static void mer_boxes(explain *e, const step *s)
{
    ks_sbuf text = {0};
    for (size_t i = 0; i < s->ntouched; i++) {
        const partition *pt = &e->parts[s->touched[i]];
        lane l = {'B', pt->leader};
        if (!box_wanted(e, s->touched[i]))
            continue;
        if (pt->log_touched) {
            ks_sb_clear(&text);
            ks_sb_printf(&text, "%s log\n", pt->label);
            log_box_lines(pt, true, &text);
            mer_note(e, l, ks_sb_str(&text));
        }
        for (size_t k = 0; pt->pids_touched && k < pt->npids; k++) {
            const pid_row *r = &pt->pids[k];
            if (r->flag == ROW_SAME)
                continue;
            ks_sb_clear(&text);
            ks_sb_printf(&text, "producer state: PID %" PRId64 ", %s, last sequence %" PRId64 "%s",
                         r->pid, pt->label, r->last_seq,
                         r->flag == ROW_DUPLICATE ? " (a duplicate: already processed)" : "");
            mer_note(e, l, ks_sb_str(&text));
        }
    }
    e->oom = e->oom || text.oom;
    ks_sb_free(&text);
}

/* The step as Mermaid: a comment with its description, then its message
 * or note, then its boxes as notes. */
static void render_mermaid(explain *e, const step *s)
{
    char ms[32], a[32], b[32];
    fmt_ms(ms, sizeof ms, s->t);
    ks_sb_printf(&e->mer, "    %%%% [STEP %" PRId64 "] t=%s ms  %s\n", e->shown, ms,
                 ks_sb_str(&s->desc));
    const char *label = s->mlabel.len ? ks_sb_str(&s->mlabel) : ks_sb_str(&s->label);
    static const char *const arrows[] = {"", "", "->>", "-->>", "-x", "--x"};
    if (s->kind == SK_TXN || s->style == MS_NOTE) {
        ks_sbuf text = {0};
        if (s->kind == SK_TXN) {
            ks_sb_puts(&text, "transaction log\n");
            txn_box_lines(e, s, &text);
        } else {
            ks_sb_puts(&text, label);
        }
        if (s->notes.len)
            ks_sb_printf(&text, "%s%s", text.len ? "\n" : "", ks_sb_str(&s->notes));
        mer_note(e, s->from, text.len ? ks_sb_str(&text) : ks_sb_str(&s->desc));
        ks_sb_free(&text);
    } else if (s->style != MS_NONE) {
        lane_id(e, s->from, a, sizeof a);
        lane_id(e, s->to, b, sizeof b);
        ks_sb_printf(&e->mer, "    %s%s%s: ", a, arrows[s->style], b);
        mer_text(&e->mer, label);
        if (s->after.len)
            ks_sb_printf(&e->mer, " %s", ks_sb_str(&s->after));
        ks_sb_puts(&e->mer, "\n");
        if (s->notes.len)
            mer_note(e, s->to.kind == 'P' ? s->to : s->from, ks_sb_str(&s->notes));
    } else if (s->notes.len || s->kind != SK_APPEND) {
        /* a plain append says it with its log note */
        mer_note(e,
                 s->from.kind ? s->from
                 : e->nprods  ? (lane){'P', 0}
                              : (lane){'B', 0},
                 s->notes.len ? ks_sb_str(&s->notes) : ks_sb_str(&s->desc));
    }
    mer_boxes(e, s);
}

/* --brief: the step's line alone. */
static void render_brief(explain *e, const step *s)
{
    char ms[32];
    fmt_ms(ms, sizeof ms, s->t);
    fprintf(e->out, "[STEP %" PRId64 "] t=%s ms  %s\n", e->shown, ms, ks_sb_str(&s->desc));
}

static void render(explain *e, const step *s)
{
    if (e->o.mermaid)
        render_mermaid(e, s);
    else if (e->o.brief)
        render_brief(e, s);
    else
        render_text(e, s);
}

/* ---- [RESULT] -------------------------------------------------------------------- */

/* The delivery checker's counts [RESULT] shows, from summary.json. */
static const char *const delivery_counts[] = {
    "lost",          "duplicate",    "extra_copies",         "nonmonotonic_send",
    "failed_but_present", "indeterminate", "aborted_read", "zombie_write_visible",
    "processed_twice", "anomalies_total"};

/* Checks the type of every summary field [RESULT] reads; te keeps the
 * first of another type. */
static void check_summary(ks_tl_error *te, const json_t *s)
{
    const json_t *d = ks_tl_jget(te, s, "", "delivery", KS_TLT_OBJECT), *a, *r;
    ks_tl_jget(te, d, "delivery", "ok", KS_TLT_BOOL);
    for (size_t k = 0; k < sizeof delivery_counts / sizeof *delivery_counts; k++)
        ks_tl_jget(te, d, "delivery", delivery_counts[k], KS_TLT_INT);
    const json_t *list = ks_tl_jget(te, d, "delivery", "anomalies", KS_TLT_ARRAY), *recs;
    char at[64], idx[48];
    size_t i, j;
    json_array_foreach(list, i, a) {
        snprintf(at, sizeof at, "delivery.anomalies[%zu]", i);
        snprintf(idx, sizeof idx, "[%zu]", i);
        if (!json_is_object(a))
            ks_tl_jfail(te, "delivery.anomalies", idx, KS_TLT_OBJECT, a);
        ks_tl_jget(te, a, at, "cause", KS_TLT_STRING);
        /* the ids of its records, or their number when the checker has no ids */
        recs = ks_tl_jget(te, a, at, "records", KS_TLT_ARRAY | KS_TLT_INT);
        json_array_foreach(recs, j, r) {
            snprintf(idx, sizeof idx, "records[%zu]", j);
            if (!json_is_integer(r))
                ks_tl_jfail(te, at, idx, KS_TLT_INT, r);
        }
    }
}

/* The summary beside the trace (DIR/summary.json) when it is this run's
 * (same scenario and seed) becomes e->summary; one that cannot be read
 * or is another run's is passed over. False (err set) when a field it
 * uses has another type than it should. */
static bool load_summary(explain *e, char *err, size_t errlen)
{
    if (e->o.no_summary || strcmp(e->o.trace, "-") == 0)
        return true;
    const char *slash = strrchr(e->o.trace, '/');
    size_t dir = slash ? (size_t)(slash - e->o.trace) + 1 : 0;
    char *path = malloc(dir + sizeof "summary.json");
    if (!path)
        return true;
    memcpy(path, e->o.trace, dir);
    memcpy(path + dir, "summary.json", sizeof "summary.json");
    json_t *s = json_load_file(path, 0, NULL);
    ks_tl_error te = {0};
    const char *name = ks_tl_jstr(&te, s, "", "scenario", NULL);
    int64_t seed = ks_tl_jint(&te, s, "", "seed", -1);
    bool ours = name && strcmp(name, e->scenario) == 0 && seed == e->seed;
    if (ours)
        check_summary(&te, s);
    if (te.set)
        snprintf(err, errlen, "%s: %s", path, te.text);
    free(path);
    if (ours && !te.set)
        e->summary = s;
    else
        json_decref(s);
    return !te.set;
}

/* Is anomaly a (of the summary) about the --record record? */
static bool anomaly_selected(const explain *e, const json_t *a)
{
    if (!e->o.has_record)
        return true;
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(a, "records"), i, r)
        if (json_is_integer(r) && (uint64_t)json_integer_value(r) == e->o.record)
            return true;
    return false;
}

/* One count of the summary's delivery object (its type checked when the
 * summary was loaded). */
static int64_t delivery_count(const json_t *d, const char *key)
{
    ks_tl_error unused = {0};
    return ks_tl_jint(&unused, d, "delivery", key, 0);
}

/* What the delivery checker found, as `ksim run` reports it. */
static void checker_lines(const explain *e, ks_sbuf *out)
{
    const json_t *d = json_object_get(e->summary, "delivery"), *a;
    if (!json_is_object(d))
        return;
    ks_sb_printf(out,
                 "delivery checker (summary.json beside the trace): %s: %" PRId64 " lost, %" PRId64
                 " duplicated (+%" PRId64 " copies), %" PRId64 " reordered, %" PRId64
                 " failed but present, %" PRId64 " indeterminate",
                 json_is_true(json_object_get(d, "ok")) ? "ok" : "ANOMALIES",
                 delivery_count(d, "lost"), delivery_count(d, "duplicate"),
                 delivery_count(d, "extra_copies"), delivery_count(d, "nonmonotonic_send"),
                 delivery_count(d, "failed_but_present"), delivery_count(d, "indeterminate"));
    int64_t aborted = delivery_count(d, "aborted_read");
    int64_t zombie = delivery_count(d, "zombie_write_visible");
    if (aborted + zombie > 0)
        ks_sb_printf(out, ", %" PRId64 " aborted reads, %" PRId64 " zombie writes visible",
                     aborted, zombie);
    if (delivery_count(d, "processed_twice") > 0)
        ks_sb_printf(out, ", %" PRId64 " processed twice", delivery_count(d, "processed_twice"));
    size_t i, shown = 0;
    json_array_foreach(json_object_get(d, "anomalies"), i, a) {
        if (!anomaly_selected(e, a))
            continue;
        if (shown++ == 3) {
            ks_sb_printf(out,
                         "\n  \xE2\x80\xA6 %" PRId64 " anomalous batches in all "
                         "(summary.json: delivery.anomalies)",
                         delivery_count(d, "anomalies_total"));
            break;
        }
        const char *cause = json_string_value(json_object_get(a, "cause"));
        ks_sb_printf(out, "\n  %s", cause ? cause : "");
    }
}

/* The partitions [RESULT] draws: the one asked for, else every one with
 * entries (the first RESULT_PARTS of them). */
static bool result_part(const explain *e, size_t i)
{
    if (e->filter_part != NONE)
        return i == e->filter_part;
    if (e->o.has_record)
        return i == e->sel_part;
    return e->parts[i].entries > 0;
}

static void result_logs(explain *e, ks_sbuf *out, bool boxes)
{
    size_t drawn = 0, skipped = 0;
    int64_t dups = 0;
    ks_sbuf lines = {0};
    char title[NAME_BUF * 2];
    for (size_t i = 0; i < e->nparts; i++) {
        const partition *pt = &e->parts[i];
        if (!result_part(e, i))
            continue;
        dups += pt->duplicates;
        if (drawn++ >= RESULT_PARTS) {
            skipped++;
            continue;
        }
        ks_sb_clear(&lines);
        log_box_lines(pt, false, &lines);
        log_box_title(pt, title, sizeof title);
        size_t n = strlen(title);
        snprintf(title + n, sizeof title - n, ": %" PRId64 " record%s, ", pt->records,
                 pt->records == 1 ? "" : "s");
        n = strlen(title);
        if (pt->markers)
            snprintf(title + n, sizeof title - n, "%" PRId64 " marker%s, ", pt->markers,
                     pt->markers == 1 ? "" : "s");
        n = strlen(title);
        snprintf(title + n, sizeof title - n, "log end offset %" PRId64, pt->end_offset);
        if (boxes) {
            draw_box(e->out, title, ks_sb_str(&lines));
        } else {
            ks_sbuf note = {0};
            ks_sb_printf(&note, "RESULT: %s\n%s", title, ks_sb_str(&lines));
            mer_note(e, (lane){'B', pt->leader}, ks_sb_str(&note));
            ks_sb_free(&note);
        }
        if (pt->duplicates)
            ks_sb_printf(out, "%s holds %" PRId64 " duplicate%s: %s%s\n", pt->label, pt->duplicates,
                         pt->duplicates == 1 ? "" : "s", ks_sb_str(&pt->dups),
                         pt->duplicates > DUPS_MAX ? ", \xE2\x80\xA6" : "");
    }
    if (skipped)
        ks_sb_printf(out,
                     "\xE2\x80\xA6 and %zu more partitions with records (use --partition "
                     "TOPIC-N)\n",
                     skipped);
    if (drawn && !dups)
        ks_sb_puts(out, "no record is stored twice\n");
    e->oom = e->oom || lines.oom;
    ks_sb_free(&lines);
}

/* What each producer was told, each transaction's end, what consumers
 * read, and where the --record record went. */
static void result_told(const explain *e, ks_sbuf *out)
{
    for (size_t i = 0; i < e->nprods && !e->o.has_record; i++) {
        const producer *p = &e->prods[i];
        if (p->acked + p->failed > 0)
            ks_sb_printf(out, "%s was told: %s%s (%" PRId64 " acknowledged, %" PRId64 " failed)\n",
                         p->id, ks_sb_str(&p->told), p->ntold > TOLD_MAX ? ", \xE2\x80\xA6" : "",
                         p->acked, p->failed);
    }
    for (size_t i = 0; i < e->ntxns && !e->o.has_record; i++)
        ks_sb_printf(out, "%s: %s (PID %" PRId64 ", epoch %" PRId64 ")\n", e->txns[i].tid,
                     e->txns[i].state, e->txns[i].pid, e->txns[i].epoch);
    for (size_t i = 0; i < e->ncons && !e->o.has_record; i++) {
        const consumer *c = &e->cons[i];
        ks_sb_printf(out, "%s (%s) read %" PRId64 " record%s%s%s%s\n", c->id, c->isolation,
                     c->records, c->records == 1 ? "" : "s", c->records ? ": " : "",
                     ks_sb_str(&c->read), c->records > TOLD_MAX ? ", \xE2\x80\xA6" : "");
    }
    if (e->o.has_record) {
        char nm[NAME_BUF];
        record_name(e, e->o.record, nm, sizeof nm);
        ks_sb_printf(out, "%s (id %" PRIu64 "): ", nm, e->o.record);
        for (const char *s = ks_sb_str(&e->sel_fate); *s; s++)
            ks_sb_puts(out, *s == '\n' ? "; " : (char[2]){*s, '\0'});
        ks_sb_puts(out, e->sel_fate.len ? "\n" : "not in this trace\n");
    }
}

/* "… N more steps", then [RESULT]: the logs, what producers were told,
 * transactions, consumers, and the delivery checker's verdicts. */
static void render_result(explain *e)
{
    char ms[32];
    ks_sbuf lines = {0}, head = {0};
    bool text = !e->o.mermaid;
    if (e->more > 0)
        ks_sb_printf(&head, "\xE2\x80\xA6 %" PRId64 " more step%s (use --from/--to)\n\n", e->more,
                     e->more == 1 ? "" : "s");
    fmt_ms(ms, sizeof ms, e->end_t);
    if (e->ended)
        ks_sb_printf(&head, "[RESULT] the run ended %s at t=%s ms", e->verdict, ms);
    else
        ks_sb_puts(&head, "[RESULT] the trace stops before its end line: the run was cut short");
    lane first = e->nprods ? (lane){'P', 0} : (lane){'B', 0};
    if (text) {
        fprintf(e->out, "%s%s\n\n", e->o.brief && e->shown > 0 ? "\n" : "", ks_sb_str(&head));
    } else {
        if (e->more > 0) {
            char more[96];
            snprintf(more, sizeof more, "\xE2\x80\xA6 %" PRId64 " more step%s (use --from/--to)",
                     e->more, e->more == 1 ? "" : "s");
            mer_note(e, first, more);
        }
        ks_sb_printf(&e->mer, "    %%%% %s\n", strstr(ks_sb_str(&head), "[RESULT]"));
    }
    e->oom = e->oom || head.oom;
    ks_sb_free(&head);
    result_logs(e, &lines, text);
    result_told(e, &lines);
    checker_lines(e, &lines);
    if (text) {
        for (const char *p = ks_sb_str(&lines); *p;) {
            size_t n = strcspn(p, "\n");
            fprintf(e->out, " %.*s\n", (int)n, p);
            p += n + (p[n] == '\n');
        }
    } else if (lines.len) {
        mer_note(e, first, ks_sb_str(&lines));
    }
    e->oom = e->oom || lines.oom;
    ks_sb_free(&lines);
}

/* ---- the header ---------------------------------------------------------------- */

/* derived.producers[i]: the producer and the settings the steps mention. */
static void read_producer(explain *e, ks_tl_error *te, const json_t *d, size_t i)
{
    char at[64], conf[80];
    snprintf(at, sizeof at, "derived.producers[%zu]", i);
    snprintf(conf, sizeof conf, "%s.config", at);
    if (!json_is_object(d)) {
        snprintf(conf, sizeof conf, "[%zu]", i);
        ks_tl_jfail(te, "derived.producers", conf, KS_TLT_OBJECT, d);
        return;
    }
    size_t p = prod_of(e, ks_tl_jstr(te, d, at, "id", NULL)); /* may move e->prods */
    producer *pr = &e->prods[p];
    const json_t *c = ks_tl_jget(te, d, at, "config", KS_TLT_OBJECT);
    const json_t *acks = ks_tl_jget(te, c, conf, "acks", KS_TLT_STRING | KS_TLT_INT);
    const json_t *tid = ks_tl_jget(te, c, conf, "transactional.id", KS_TLT_STRING | KS_TLT_NULL);
    const json_t *idem = ks_tl_jget(te, c, conf, "enable.idempotence", KS_TLT_BOOL);
    free(pr->tid);
    pr->tid = json_is_string(tid) ? dup_or_oom(e, json_string_value(tid)) : NULL;
    pr->idempotent = json_is_true(idem);
    if (json_is_string(acks))
        copy_str(pr->acks, sizeof pr->acks, json_string_value(acks));
    else
        snprintf(pr->acks, sizeof pr->acks, "%" PRId64,
                 acks ? (int64_t)json_integer_value(acks) : 1);
    pr->retries = ks_tl_jint(te, c, conf, "retries", -1);
    pr->request_timeout_ms = ks_tl_jint(te, c, conf, "request.timeout.ms", -1);
    pr->txn_timeout_ms = ks_tl_jint(te, c, conf, "transaction.timeout.ms", -1);
}

/* An element of the array at path that must be an object; NULL (error
 * recorded) when it is not one. */
static const json_t *item(ks_tl_error *te, const char *path, size_t i, const json_t *v,
                          char *at, size_t n)
{
    snprintf(at, n, "%s[%zu]", path, i);
    if (json_is_object(v))
        return v;
    char idx[32];
    snprintf(idx, sizeof idx, "[%zu]", i);
    ks_tl_jfail(te, path, idx, KS_TLT_OBJECT, v);
    return NULL;
}

/* resolved.topics and derived.partitions: the topics, partitions and
 * leaders. */
static void read_partitions(explain *e, ks_tl_error *te, const json_t *res, const json_t *der)
{
    const json_t *list = ks_tl_jget(te, res, "resolved", "topics", KS_TLT_ARRAY), *v;
    char at[64];
    size_t i;
    json_array_foreach(list, i, v)
        if ((v = item(te, "resolved.topics", i, v, at, sizeof at)))
            topic_of(e, ks_tl_jstr(te, v, at, "name", NULL));
    e->single_topic = e->ntopics == 1;
    list = ks_tl_jget(te, der, "derived", "partitions", KS_TLT_ARRAY);
    json_array_foreach(list, i, v) {
        if (!(v = item(te, "derived.partitions", i, v, at, sizeof at)))
            continue;
        size_t part = part_of(e, ks_tl_jstr(te, v, at, "topic", NULL),
                              ks_tl_jint(te, v, at, "partition", -1));
        int64_t leader = ks_tl_jint(te, v, at, "leader", -1);
        if (part != NONE)
            e->parts[part].leader = leader;
    }
}

/* resolved.faults: the type of each fault, by index. */
static void read_faults(explain *e, ks_tl_error *te, const json_t *res)
{
    const json_t *faults = ks_tl_jget(te, res, "resolved", "faults", KS_TLT_ARRAY), *v;
    char at[64];
    size_t i;
    e->nfaults = json_array_size(faults);
    e->fault_types = e->nfaults ? calloc(e->nfaults, sizeof *e->fault_types) : NULL;
    if (e->nfaults && !e->fault_types) {
        e->nfaults = 0;
        e->oom = true;
    }
    json_array_foreach(faults, i, v)
        if (i < e->nfaults && (v = item(te, "resolved.faults", i, v, at, sizeof at)))
            e->fault_types[i] = dup_or_oom(e, ks_tl_jstr(te, v, at, "type", ""));
}

/* Learns the run's topics, partitions (and leaders), producers (and the
 * configs the steps mention), consumers and faults from the header's
 * resolved and derived objects. */
static void read_model(explain *e, ks_tl_error *te, const json_t *res, const json_t *der)
{
    const json_t *prods = ks_tl_jget(te, der, "derived", "producers", KS_TLT_ARRAY);
    const json_t *cons = ks_tl_jget(te, res, "resolved", "consumers", KS_TLT_ARRAY), *v;
    char at[64];
    size_t i;
    read_partitions(e, te, res, der);
    json_array_foreach(prods, i, v)
        read_producer(e, te, v, i);
    json_array_foreach(cons, i, v) {
        if (!(v = item(te, "resolved.consumers", i, v, at, sizeof at)))
            continue;
        size_t ci = cons_of(e, ks_tl_jstr(te, v, at, "id", NULL)); /* may move e->cons */
        consumer *c = &e->cons[ci];
        const char *iso = ks_tl_jstr(te, v, at, "isolation.level", NULL);
        if (iso) {
            free(c->isolation);
            c->isolation = dup_or_oom(e, iso);
        }
    }
    read_faults(e, te, res);
}

/* The header's model (resolved, derived), its fields' types checked. */
static bool read_header_model(explain *e, ks_tline *h, char *err, size_t errlen)
{
    json_t *res = ks_tl_object(h, "resolved"), *der = ks_tl_object(h, "derived");
    ks_tl_error te = {0};
    if (!ks_tline_error(h))
        read_model(e, &te, res, der);
    json_decref(res);
    json_decref(der);
    const char *why = ks_tline_error(h) ? ks_tline_error(h) : te.set ? te.text : NULL;
    if (why)
        snprintf(err, errlen, "%s:1: %s", e->o.trace, why);
    return !why;
}

/* Checks line 1: a header of trace format 1 at a level with steps. */
static bool read_header(explain *e, ks_tline *h, char *err, size_t errlen)
{
    const char *name = e->o.trace;
    if (h->kind != KS_TR_HEADER) {
        snprintf(err, errlen, "%s: line 1 is not a trace header: not a ksim trace", name);
        return false;
    }
    int64_t format = ks_tl_int(h, "format", -1);
    const char *level = ks_tl_str(h, "level", "");
    e->scenario = dup_or_oom(e, ks_tl_str(h, "scenario", ""));
    e->kafka = dup_or_oom(e, ks_tl_str(h, "kafka", ""));
    e->level = dup_or_oom(e, level);
    e->seed = ks_tl_int(h, "seed", 0);
    if (ks_tline_error(h))
        snprintf(err, errlen, "%s:1: %s", name, ks_tline_error(h));
    else if (format != 1)
        snprintf(err, errlen, "%s: trace format %" PRId64 ": this ksim reads trace format 1",
                 name, format);
    else if (strcmp(level, "summary") == 0)
        snprintf(err, errlen, "%s: a summary-level trace holds no steps to explain: run the "
                              "scenario with --trace-level record (or batch)", name);
    if (ks_tline_error(h) || format != 1 || strcmp(level, "summary") == 0)
        return false;
    e->record_level = strcmp(level, "record") == 0 || strcmp(level, "debug") == 0;
    if (e->o.has_record && !e->record_level) {
        snprintf(err, errlen, "%s: --record needs a record-level trace (this one is at level "
                              "%s): run the scenario with --trace-level record", name, e->level);
        return false;
    }
    return read_header_model(e, h, err, errlen);
}

/* --partition TOPIC-N, against the header's topics. */
static bool resolve_partition(explain *e, char *err, size_t errlen)
{
    const char *arg = e->o.partition, *dash = arg ? strrchr(arg, '-') : NULL;
    if (!arg)
        return true;
    char *end = NULL;
    long long n = dash ? strtoll(dash + 1, &end, 10) : -1;
    char *name = dash ? ks_strndup(arg, (size_t)(dash - arg)) : NULL;
    size_t ti = NONE;
    for (size_t i = 0; name && i < e->ntopics; i++)
        ti = strcmp(e->topics[i].name, name) == 0 ? i : ti;
    free(name);
    if (!dash || dash[1] == '\0' || *end || n < 0 || ti == NONE) {
        snprintf(err, errlen, "%s: --partition: no partition '%s' in this run (TOPIC-N, such as "
                              "%s-0)", e->o.trace, arg, e->ntopics ? e->topics[0].name : "events");
        return false;
    }
    e->filter_part = part_of(e, e->topics[ti].name, (int64_t)n);
    if (e->filter_part == NONE)
        snprintf(err, errlen, "out of memory");
    return e->filter_part != NONE;
}

/* The lines above the steps: the run, its producers' delivery settings,
 * the filters, and what a batch-level trace lacks. */
static void write_intro(explain *e, ks_sbuf *out)
{
    ks_sb_printf(out, "ksim explain: %s (seed %" PRId64 ", Kafka %s), trace level %s\n",
                 e->scenario, e->seed, e->kafka, e->level);
    for (size_t i = 0; i < e->nprods && i < TOLD_MAX; i++) {
        const producer *p = &e->prods[i];
        ks_sb_printf(out, "  %s: acks=%s, enable.idempotence=%s, retries=%" PRId64, p->id, p->acks,
                     p->idempotent ? "true" : "false", p->retries);
        if (p->tid)
            ks_sb_printf(out, ", transactional.id=%s", p->tid);
        ks_sb_puts(out, "\n");
    }
    char a[32], b[32];
    fmt_ms(a, sizeof a, e->o.from_ns);
    fmt_ms(b, sizeof b, e->o.to_ns);
    if (e->o.has_from && e->o.has_to)
        ks_sb_printf(out, "  only the steps from t=%s ms to t=%s ms\n", a, b);
    else if (e->o.has_from)
        ks_sb_printf(out, "  only the steps from t=%s ms on\n", a);
    else if (e->o.has_to)
        ks_sb_printf(out, "  only the steps up to t=%s ms\n", b);
    if (e->o.has_record)
        ks_sb_printf(out, "  only the steps about record %" PRIu64 "\n", e->o.record);
    if (e->o.partition)
        ks_sb_printf(out, "  only the steps about %s\n", e->o.partition);
    if (!e->record_level)
        ks_sb_puts(out, "  note: a batch-level trace has no produce, ack or consume lines: records "
                        "are not named, the steps show requests and batches only (run the scenario "
                        "with --trace-level record to see each record)\n");
}

/* ---- reading the trace ------------------------------------------------------------ */

/* Follows every line after the header, drawing the steps. */
static bool read_steps(explain *e, ks_tl_reader *r, ks_tline *l, char *err, size_t errlen)
{
    for (;;) {
        int got = ks_tl_next(r, l);
        if (got == 0)
            break;
        if (got < 0) {
            snprintf(err, errlen, "%s:%" PRIu64 ": %s", e->o.trace, r->line_no, r->err);
            return false;
        }
        handle_line(e, l);
        if (ks_tline_error(l)) {
            snprintf(err, errlen, "%s:%" PRIu64 ": %s", e->o.trace, r->line_no,
                     ks_tline_error(l));
            return false;
        }
        if (e->oom) {
            snprintf(err, errlen, "out of memory");
            return false;
        }
    }
    if (e->pf.on)
        flush_pending_fault(e);
    step_flush(e);
    return true;
}

/* Reads and checks line 1 (the header), the --partition filter against
 * it, and the summary beside the trace. */
static bool explain_begin(explain *e, ks_tl_reader *r, ks_tline *l, char *err, size_t errlen)
{
    int got = ks_tl_next(r, l);
    if (got == 0)
        snprintf(err, errlen, "%s: empty: not a ksim trace", e->o.trace);
    else if (got < 0)
        snprintf(err, errlen, "%s:%" PRIu64 ": %s", e->o.trace, r->line_no, r->err);
    return got > 0 && read_header(e, l, err, errlen) && resolve_partition(e, err, errlen) &&
           load_summary(e, err, errlen);
}

/* ---- the command ----------------------------------------------------------------- */

static int usage_error(const char *fmt, const char *arg)
{
    fputs("ksim: explain: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'ksim explain --help' for more information.\n", stderr);
    return KS_EXIT_USAGE;
}

/* Milliseconds such as 1113.5 as nanoseconds (exactly: no floating point). */
static bool parse_ms(const char *s, int64_t *ns)
{
    int64_t whole = 0, frac = 0;
    int digits = 0;
    if (*s < '0' || *s > '9')
        return false;
    for (; *s >= '0' && *s <= '9'; s++)
        if ((whole = whole * 10 + (*s - '0')) > 9000000000000LL)
            return false;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9' && digits < 6; s++, digits++)
            frac = frac * 10 + (*s - '0');
    if (*s)
        return false;
    for (; digits < 6; digits++)
        frac *= 10;
    *ns = whole * 1000000 + frac;
    return true;
}

static bool parse_count(const char *s, uint64_t *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || v > (unsigned long long)INT64_MAX)
        return false;
    *out = v;
    return true;
}

/* One option at argv[*i]; returns 0, -1 after --help, or an exit code. */
static int parse_option(int argc, char **argv, int *i, opts *o)
{
    const char *a = argv[*i], *v;
    uint64_t n;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
        fputs(ks_usage_explain, stdout);
        return -1;
    } else if ((v = ks_cli_option_value(argc, argv, i, "--format"))) {
        if (strcmp(v, "text") != 0 && strcmp(v, "mermaid") != 0)
            return usage_error("--format: expected text or mermaid, got '%s'", v);
        o->mermaid = strcmp(v, "mermaid") == 0;
    } else if (strcmp(a, "--brief") == 0) {
        o->brief = true;
    } else if ((v = ks_cli_option_value(argc, argv, i, "--from"))) {
        if (!(o->has_from = parse_ms(v, &o->from_ns)))
            return usage_error("--from: expected milliseconds such as 1000 or 1.5, got '%s'", v);
    } else if ((v = ks_cli_option_value(argc, argv, i, "--to"))) {
        if (!(o->has_to = parse_ms(v, &o->to_ns)))
            return usage_error("--to: expected milliseconds such as 1000 or 1.5, got '%s'", v);
    } else if ((v = ks_cli_option_value(argc, argv, i, "--record"))) {
        if (!(o->has_record = parse_count(v, &o->record)))
            return usage_error("--record: expected a record id (0, 1, ...), got '%s'", v);
    } else if ((v = ks_cli_option_value(argc, argv, i, "--partition"))) {
        o->partition = v;
    } else if ((v = ks_cli_option_value(argc, argv, i, "--max-steps"))) {
        if (!parse_count(v, &n))
            return usage_error("--max-steps: expected a number of steps (0: no limit), "
                               "got '%s'", v);
        o->max_steps = (int64_t)n;
    } else if ((v = ks_cli_option_value(argc, argv, i, "--out")) ||
               (v = ks_cli_option_value(argc, argv, i, "-o"))) {
        if (!*v)
            return usage_error("%s: expected FILE or -", a);
        o->out = v;
    } else if (a[0] == '-' && a[1] != '\0') {
        return usage_error("unknown option '%s'", a);
    } else if (o->trace) {
        return usage_error("one trace at a time; unexpected '%s'", a);
    } else {
        o->trace = a;
    }
    return 0;
}

static int parse_args(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_steps = 200;
    for (int i = 2; i < argc; i++) {
        int rc = parse_option(argc, argv, &i, o);
        if (rc)
            return rc;
    }
    if (!o->trace)
        return usage_error("%s", "missing TRACE (e.g. ksim explain ksim-out/hello/trace.jsonl)");
    if (o->has_from && o->has_to && o->from_ns > o->to_ns)
        return usage_error("%s", "--from is after --to");
    return 0;
}

/* The bounded tables; false when memory is short. */
static bool explain_init(explain *e)
{
    e->filter_part = e->sel_part = NONE;
    e->sel_pid = -1;
    e->marker_coord = -1;
    e->max_broker = -1;
    step_reset(&e->cur);
    e->names = calloc(NAME_SLOTS, sizeof *e->names);
    e->batch_ring = (keyring){calloc(LIVE_BATCHES, sizeof(uint64_t)), 0, 0, LIVE_BATCHES};
    e->req_ring = (keyring){calloc(LIVE_REQUESTS, sizeof(uint64_t)), 0, 0, LIVE_REQUESTS};
    return e->names && e->batch_ring.keys && e->req_ring.keys;
}

static void free_map_values(u64map *m, void (*fn)(void *))
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->vals[i])
            fn(m->vals[i]);
    map_free(m);
}

static void free_batch_value(void *v)
{
    batch_free(v);
}

static void free_request_value(void *v)
{
    request_free(v);
}

static void free_fifo_value(void *v)
{
    fifo *q = v;
    free(q->ids);
    free(q);
}

/* Frees everything the explanation holds (not the struct itself). */
static void explain_free(explain *e)
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
    map_free(&e->used);
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

/* Mermaid: the participants used, in the order producer, broker,
 * coordinator, consumer, then the steps. */
static void write_mermaid(explain *e, const ks_sbuf *intro)
{
    FILE *f = e->out;
    fputs("sequenceDiagram\n", f);
    for (const char *p = ks_sb_str(intro); *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "    %%%% %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    for (size_t i = 0; i < e->nprods; i++)
        if (map_get(&e->used, lane_key((lane){'P', (int64_t)i})))
            fprintf(f, "    participant prod%zu as Producer %s\n", i, e->prods[i].id);
    for (int64_t b = -1; b <= e->max_broker; b++)
        if (map_get(&e->used, lane_key((lane){'B', b})))
            fprintf(f, b < 0 ? "    participant brkx as Broker\n"
                             : "    participant brk%" PRId64 " as Broker %" PRId64 "\n", b, b);
    for (int64_t b = -1; b <= e->max_broker; b++)
        if (map_get(&e->used, lane_key((lane){'C', b})))
            fprintf(f, b < 0 ? "    participant coordx as Coordinator\n"
                             : "    participant coord%" PRId64 " as Coordinator (broker %" PRId64
                               ")\n", b, b);
    for (size_t i = 0; i < e->ncons; i++)
        if (map_get(&e->used, lane_key((lane){'K', (int64_t)i})))
            fprintf(f, "    participant cons%zu as Consumer %s\n", i, e->cons[i].id);
    fputs(ks_sb_str(&e->mer), f);
}

/* Writes the explanation of the steps after the header to out. */
static bool explain_body(explain *e, ks_tl_reader *r, ks_tline *l, FILE *out, char *err,
                         size_t errlen)
{
    e->out = out;
    ks_sbuf intro = {0};
    write_intro(e, &intro);
    if (!e->o.mermaid)
        fprintf(e->out, "%s\n", ks_sb_str(&intro));
    bool ok = read_steps(e, r, l, err, errlen);
    if (ok) {
        render_result(e);
        if (e->o.mermaid)
            write_mermaid(e, &intro);
    }
    ks_sb_free(&intro);
    if (ok && (e->oom || intro.oom)) {
        snprintf(err, errlen, "%s: out of memory", e->o.trace);
        ok = false;
    }
    return ok;
}

/* Reads the header, then the steps, writing to the output opened between
 * (whole, or not at all). */
static int explain_trace(explain *e, ks_tl_reader *r)
{
    char err[1024];
    ks_tline l;
    ks_tline_init(&l);
    ks_outfile out = {0};
    int rc = KS_EXIT_USAGE;
    if (!explain_begin(e, r, &l, err, sizeof err)) {
        fprintf(stderr, "ksim: explain: %s\n", err);
    } else if (!ks_outfile_open(&out, e->o.out ? e->o.out : "-", err, sizeof err)) {
        fprintf(stderr, "ksim: explain: %s\n", err);
    } else if (!explain_body(e, r, &l, out.f, err, sizeof err)) {
        fprintf(stderr, "ksim: explain: %s\n", err);
        ks_outfile_abort(&out);
    } else if (!ks_outfile_commit(&out, err, sizeof err)) {
        fprintf(stderr, "ksim: explain: %s\n", err);
    } else {
        rc = KS_EXIT_OK;
    }
    ks_tline_free(&l);
    return rc;
}

int ks_cmd_explain(int argc, char **argv)
{
    explain *e = calloc(1, sizeof *e);
    if (!e)
        return KS_EXIT_USAGE;
    int rc = parse_args(argc, argv, &e->o);
    if (rc) {
        free(e);
        return rc < 0 ? KS_EXIT_OK : rc;
    }
    FILE *in = strcmp(e->o.trace, "-") == 0 ? stdin : fopen(e->o.trace, "rb");
    ks_tl_reader r;
    ks_tl_reader_init(&r, in);
    if (!in) {
        fprintf(stderr, "ksim: explain: %s: cannot open: ", e->o.trace);
        perror(NULL);
        rc = KS_EXIT_USAGE;
    } else if (!explain_init(e)) {
        fprintf(stderr, "ksim: explain: out of memory\n");
        rc = KS_EXIT_USAGE;
    } else {
        rc = explain_trace(e, &r);
    }
    if (in && in != stdin)
        fclose(in);
    ks_tl_reader_free(&r);
    explain_free(e);
    free(e);
    return rc;
}

int ks_explain_stream(FILE *in, const char *name, FILE *out, char *err, size_t errlen)
{
    explain *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return KS_EXIT_USAGE;
    }
    e->o.trace = name;
    e->o.max_steps = 200;
    e->o.no_summary = true;
    ks_tl_reader r;
    ks_tl_reader_init(&r, in);
    ks_tline l;
    ks_tline_init(&l);
    bool ok = explain_init(e);
    if (!ok)
        snprintf(err, errlen, "out of memory");
    ok = ok && explain_begin(e, &r, &l, err, errlen) && explain_body(e, &r, &l, out, err, errlen);
    ks_tline_free(&l);
    ks_tl_reader_free(&r);
    explain_free(e);
    free(e);
    return ok ? KS_EXIT_OK : KS_EXIT_USAGE;
}
