/*
 * checker_json.c - the JSON of the delivery checker's verdicts: each
 * anomaly as summary.json lists it (its kinds, the batch or record or
 * transaction, its copies and requests, and its cause in words), and the
 * "delivery" object itself (docs/trace.md).
 *
 * Never decides a verdict or counts one: the judges (checker_delivery.c,
 * checker_txn.c, checker_effects.c) do, and call here only for an anomaly
 * there is still room to list. A batch's anomaly that cannot be built
 * marks the run out of memory; the transactional and end-to-end ones are
 * built without checking each step.
 */
#include "models/check/checker.h"
#include "models/check/checker_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Room for one anomaly's cause: 8 requests of ~130 bytes and the rest. */
#define CAUSE_MAX 1536u


/* A request's fate as summary.json spells it (models/obs.h). */
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
    const slot *s = k->counted ? ks_ck_map_find(&c->requests, producer, k->request) : NULL;
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
        const char *why = ks_ck_name_of(c, k->why);
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
    const char *error = ks_ck_name_of(c, e->error);
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

/* The anomaly of batch e (its verdicts the VERDICT_BITs in `kinds`; its
 * records ids[0..nids), or only their count when the ids are not known),
 * listed. */
void ks_ck_describe(ks_checker *c, const entry *e, unsigned kinds, const uint64_t *ids,
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
    put(obj, "error", jstr(ks_ck_name_of(c, e->error)), &ok);
    put_copies(obj, e, &ok);
    put(obj, "requests", requests_of(c, e, &ok), &ok);
    put(obj, "cause", cause_of(c, e), &ok);
    list_anomaly(c, obj, ok);
}

/* The anomaly of records a producer never sent and was never told about
 * (ks_checker_untold), listed. */
void ks_ck_describe_untold(ks_checker *c, uint32_t producer, uint64_t records)
{
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

/* ---- transactional anomalies ------------------------------------------ */

/* An aborted read or a zombie write made visible (checker_txn.c): record
 * `record`, read by read_committed consumer `consumer`, listed. */
void ks_ck_list_read(ks_checker *c, uint64_t record, uint32_t consumer, bool aborted,
                     bool zombie)
{
    json_t *a = json_object();
    json_t *kinds = json_array();
    if (aborted)
        json_array_append_new(kinds, json_string(ks_verdict_key(KS_VERDICT_ABORTED_READ)));
    if (zombie)
        json_array_append_new(kinds,
                              json_string(ks_verdict_key(KS_VERDICT_ZOMBIE_WRITE_VISIBLE)));
    json_object_set_new(a, "kinds", kinds);
    json_object_set_new(a, "record", json_integer((json_int_t)record));
    json_object_set_new(a, "consumer", json_integer(consumer));
    char cause[160];
    snprintf(cause, sizeof cause,
             zombie ? "a read_committed consumer read record %llu, written by a producer "
                      "that was fenced in that transaction"
                    : "a read_committed consumer read record %llu, whose producer was told "
                      "it failed or its transaction aborted",
             (unsigned long long)record);
    json_object_set_new(a, "cause", json_string(cause));
    json_array_append_new(c->anomalies, a);
}

/* An anomaly of committed transaction tx (its index in commit order). */
static void list_txn_anomaly(ks_checker *c, ks_verdict kind, uint64_t tx, const char *cause)
{
    json_t *a = json_object();
    json_t *kinds = json_array();
    json_array_append_new(kinds, json_string(ks_verdict_key(kind)));
    json_object_set_new(a, "kinds", kinds);
    json_object_set_new(a, "producer", json_string(c->producer_ids[c->ctx_producer[tx]]));
    json_object_set_new(a, "transaction", json_integer((json_int_t)c->ctx_number[tx]));
    json_object_set_new(a, "cause", json_string(cause));
    json_array_append_new(c->anomalies, a);
}

/* Transaction tx is torn: `seen` of its records read, `unseen` never. */
void ks_ck_list_torn(ks_checker *c, uint64_t tx, uint64_t seen, uint64_t unseen)
{
    char cause[200];
    snprintf(cause, sizeof cause,
             "read_committed consumers read %llu of its records and never %llu others",
             (unsigned long long)seen, (unsigned long long)unseen);
    list_txn_anomaly(c, KS_VERDICT_TORN_TRANSACTION, tx, cause);
}

/* `early` records of transaction tx were read before it committed. */
void ks_ck_list_precommitted(ks_checker *c, uint64_t tx, uint64_t early)
{
    char cause[200];
    snprintf(cause, sizeof cause,
             "read_committed consumers read %llu of its records before it committed",
             (unsigned long long)early);
    list_txn_anomaly(c, KS_VERDICT_PRECOMMITTED_READ, tx, cause);
}

/* ---- end to end ------------------------------------------------------- */

/* Consumer g->consumer read outs[0] and outs[1] (and `distinct` outputs
 * in all), each written for record g->source: processed twice. */
void ks_ck_list_twice(ks_checker *c, const effect_read *g, const uint64_t outs[2],
                      uint64_t distinct)
{
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

/* ---- the summary ------------------------------------------------------ */

/* The verdicts once every judge has run (checker.h, ks_checker_finish,
 * says what they hold); NULL when out of memory. */
json_t *ks_ck_summary(const ks_checker *c)
{
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
