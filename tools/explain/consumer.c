/*
 * consumer.c - the consumers as `ksim explain` draws them: the records a
 * poll() returns, committed offsets moving (by commitSync, joined to the
 * OffsetCommit's answer, or with a transaction), records a producer
 * writes for records a consumer read (consume-transform-produce), which
 * their names then say, and the consumers' requests: FindCoordinator,
 * OffsetFetch, ListOffsets and OffsetCommit each way; of the Fetch
 * requests, which a consumer sends all the time, only the first of an
 * instance to each broker, those that fail and those a fault strikes
 * (the others are counted, for [RESULT]).
 */
#include "tools/explain/internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void consume_text(explain *e, step *s, consumer *c, const char *nm, size_t part,
                         int64_t offset)
{
    char names[NAME_BUF * 4];
    ks_ex_names_text(s, names, sizeof names);
    ks_sb_clear(&s->desc);
    ks_sb_clear(&s->label);
    if (s->nrecords == 1) {
        ks_sb_printf(&s->desc, "%s's poll() returns %s (%s offset %" PRId64 ")", c->id, nm,
                     ks_ex_part_label(e, part), offset);
        ks_sb_printf(&s->label, "records(offset %" PRId64 ": %s)", offset, nm);
    } else {
        ks_sb_printf(&s->desc, "%s's poll() returns %" PRId64 " records (%s)", c->id, s->nrecords,
                     names);
        ks_sb_printf(&s->label, "records(%" PRId64 ": %s)", s->nrecords, names);
    }
}

/* poll() returned a record; the records of one poll make one step. */
void ks_ex_on_consume(explain *e, ks_tline *j, int64_t t)
{
    size_t ci = ks_ex_cons_of(e, ks_tl_str(j, "consumer", NULL));
    size_t part = ks_ex_part_of(e, ks_tl_str(j, "topic", NULL), ks_tl_int(j, "partition", -1));
    int64_t offset = ks_tl_int(j, "offset", -1), rec = ks_tl_int_or_null(j, "record", -1);
    consumer *c = &e->cons[ci];
    char nm[NAME_BUF];
    if (rec >= 0)
        ks_ex_record_name(e, (uint64_t)rec, nm, sizeof nm);
    else
        snprintf(nm, sizeof nm, "offset %" PRId64, offset);
    if (c->records++ < TOLD_MAX)
        ks_sb_printf(&c->read, "%s%s (%s offset %" PRId64 ")", c->records > 1 ? ", " : "", nm,
                     ks_ex_part_label(e, part), offset);
    bool sel = e->o.has_record && rec >= 0 && (uint64_t)rec == e->o.record;
    if (sel) {
        char line[NAME_BUF];
        snprintf(line, sizeof line, "read by %s (offset %" PRId64 ")", c->id, offset);
        ks_sb_line(&e->sel_fate, line);
    }
    if (!(e->cur.kind == SK_CONSUME && e->cur.t == t && e->cur.consumer == ci)) {
        ks_ex_step_begin(e, SK_CONSUME, t, NONE);
        e->cur.consumer = ci;
        e->cur.part = part;
        e->cur.from = (lane){'B', part != NONE ? e->parts[part].leader : -1};
        e->cur.to = (lane){'K', (int64_t)ci};
        e->cur.style = MS_RESP;
    }
    step *s = &e->cur;
    s->part = s->part == part ? part : NONE;
    s->nrecords++;
    ks_ex_step_add_name(s, nm);
    ks_ex_step_touch(e, part);
    s->about_record = s->about_record || sel;
    consume_text(e, s, c, nm, part, offset);
}

/* A committed offset moved by commitSync joins the answer to the
 * OffsetCommit at that moment: the first partition's sentence becomes
 * the step's, each partition a note. */
static void join_commit(explain *e, step *s, size_t part, int64_t offset, const char *group)
{
    const consumer *c = &e->cons[s->consumer];
    const char *label = ks_ex_part_label(e, part);
    if (s->nrecords++ == 0) {
        ks_sb_clear(&s->desc);
        ks_sb_clear(&s->label);
        ks_sb_printf(&s->desc, "%s's committed offset for %s becomes %" PRId64 "%s%s%s: "
                               "commitSync() is answered",
                     c->id, label, offset, group ? " (group " : "", group ? group : "",
                     group ? ")" : "");
        ks_sb_printf(&s->label, "committed offset of %s: %" PRId64 " (commitSync)", label, offset);
    } else {
        ks_sb_clear(&s->label);
        ks_sb_printf(&s->label, "committed offsets of %" PRId64 " partitions (commitSync)",
                     s->nrecords);
        ks_sb_printf(&s->notes, "%scommitted offset of %s: %" PRId64, s->notes.len ? "\n" : "",
                     label, offset);
    }
    ks_sb_printf(&s->notes, "%safter a restart, %s reads %s from offset %" PRId64,
                 s->notes.len ? "\n" : "", c->id, label, offset);
    ks_ex_step_touch(e, part);
}

/* The group's committed offset of a partition moves: by commitSync (the
 * OffsetCommit's answer, just drawn), or with the transaction the offsets
 * were sent to. A restarted consumer starts there. */
void ks_ex_on_offset_commit(explain *e, ks_tline *j, int64_t t)
{
    size_t ci = ks_ex_cons_of(e, ks_tl_str(j, "consumer", NULL));
    size_t part = ks_ex_part_of(e, ks_tl_str(j, "topic", NULL), ks_tl_int(j, "partition", -1));
    int64_t offset = ks_tl_int(j, "offset", -1);
    const char *how = ks_tl_str(j, "commit", ""), *group = ks_tl_str_or_null(j, "group");
    bool in_txn = strcmp(how, "transaction") == 0;
    step *s = &e->cur;
    if (!in_txn && s->kind == SK_API_RESPONSE && s->t == t && s->consumer == ci &&
        ks_ex_api_is(s->api, KS_API_OFFSET_COMMIT)) {
        join_commit(e, s, part, offset, group);
        return;
    }
    ks_ex_step_begin(e, SK_NOTE, t, NONE);
    s->consumer = ci;
    s->from = (lane){'K', (int64_t)ci};
    s->style = MS_NOTE;
    ks_sb_printf(&s->desc, "%s's committed offset for %s becomes %" PRId64 "%s%s%s: %s",
                 e->cons[ci].id, ks_ex_part_label(e, part), offset, group ? " (group " : "",
                 group ? group : "", group ? ")" : "",
                 in_txn ? "its transaction committed, and the offsets sent to it with it"
                        : "commitSync() is answered");
    ks_sb_printf(&s->label, "committed offset of %s: %" PRId64 " (%s)", ks_ex_part_label(e, part),
                 offset, in_txn ? "with the transaction" : "commitSync");
    ks_sb_printf(&s->notes, "after a restart, %s reads %s from offset %" PRId64, e->cons[ci].id,
                 ks_ex_part_label(e, part), offset);
    ks_ex_step_touch(e, part);
}

/* A producer writes a record for one a consumer read. */
void ks_ex_on_forward(explain *e, ks_tline *j, int64_t t)
{
    (void)t;
    int64_t rec = ks_tl_int(j, "record", -1), src = ks_tl_int(j, "source", -1);
    if (rec >= 0 && src >= 0)
        ks_ex_name_source(e, (uint64_t)rec, (uint64_t)src);
}

/* ---- the consumer's requests ------------------------------------------------ */

/* The API, with its request number after the first ("Fetch request 3"). */
static void api_ref(const step *s, char *buf, size_t n)
{
    if (s->request > 1)
        snprintf(buf, n, "%s request %" PRId64, s->api, s->request);
    else
        snprintf(buf, n, "%s", s->api);
}

/* "group billing", or "its group" when the header names none. */
static void group_text(const consumer *c, char *buf, size_t n)
{
    if (c->group)
        snprintf(buf, n, "group %s", c->group);
    else
        snprintf(buf, n, "its group");
}

/* Has this instance of c sent a Fetch to broker b before? It has now. */
static bool fetched_before(explain *e, consumer *c, int64_t b)
{
    for (size_t i = 0; i < c->nfetched; i++)
        if (c->fetched_from[i] == b)
            return true;
    int64_t *v = realloc(c->fetched_from, (c->nfetched + 1) * sizeof *v);
    if (!v) {
        e->oom = true;
        return true;
    }
    c->fetched_from = v;
    v[c->nfetched++] = b;
    return false;
}

/* The description and label of a consumer's request leaving; `parts` its
 * partitions (the line's entries), `first`: its first Fetch to the broker. */
static void describe_consumer_send(step *s, const consumer *c, int64_t parts, bool first)
{
    char ref[64], grp[96];
    api_ref(s, ref, sizeof ref);
    group_text(c, grp, sizeof grp);
    const char *pl = parts == 1 ? "" : "s", *reset = c->reset ? c->reset : "?";
    if (ks_ex_api_is(s->api, KS_API_FIND_COORDINATOR)) {
        ks_sb_printf(&s->desc, "%s asks broker %" PRId64 " where the coordinator of %s is (%s)",
                     c->id, s->broker, grp, ref);
        ks_sb_printf(&s->label, "%s(%s)", s->api, c->group ? c->group : "");
    } else if (ks_ex_api_is(s->api, KS_API_OFFSET_FETCH)) {
        ks_sb_printf(&s->desc, "%s asks the group coordinator (broker %" PRId64 ") for %s's "
                               "committed offsets of %" PRId64 " partition%s (%s)",
                     c->id, s->broker, grp, parts, pl, ref);
        ks_sb_printf(&s->label, "%s(%s)", s->api, c->group ? c->group : "");
    } else if (ks_ex_api_is(s->api, KS_API_LIST_OFFSETS)) {
        ks_sb_printf(&s->desc, "%s has no committed offset for %" PRId64 " partition%s: it asks "
                               "broker %" PRId64 " where to start (%s, auto.offset.reset=%s)",
                     c->id, parts, pl, s->broker, ref, reset);
        ks_sb_printf(&s->label, "%s(%s)", s->api, reset);
    } else if (ks_ex_api_is(s->api, KS_API_FETCH) && first) {
        ks_sb_printf(&s->desc, "%s starts fetching from broker %" PRId64 " (%s): the Fetch "
                               "requests after it are counted in [RESULT], not drawn",
                     c->id, s->broker, ref);
        ks_sb_puts(&s->label, s->api);
    } else if (ks_ex_api_is(s->api, KS_API_OFFSET_COMMIT)) {
        ks_sb_printf(&s->desc, "%s's commitSync() sends its positions in %" PRId64
                               " partition%s to the group coordinator (broker %" PRId64 ") (%s)",
                     c->id, parts, pl, s->broker, ref);
        ks_sb_printf(&s->label, "%s(%s)", s->api, c->group ? c->group : "");
    } else {
        ks_sb_printf(&s->desc, "%s sends %s to broker %" PRId64, c->id, ref, s->broker);
        ks_sb_printf(&s->label, "%s(request %" PRId64 ")", s->api, s->request);
    }
}

/* A consumer's request leaves. A Fetch is drawn when it is the first of
 * this instance to its broker, or a fault strikes it; the others are
 * counted ([RESULT]): a consumer fetches all the time, and the records
 * its poll() returns are steps of their own (consume lines). */
void ks_ex_on_consumer_send(explain *e, ks_tline *j, int64_t t)
{
    size_t ci = ks_ex_cons_of(e, ks_tl_str(j, "consumer", NULL));
    const char *api = ks_tl_str(j, "api", "");
    int64_t r = ks_tl_int(j, "request", -1), broker = ks_tl_int(j, "broker", -1);
    consumer *c = &e->cons[ci];
    bool fetch = ks_ex_api_is(api, KS_API_FETCH), first = false;
    if (fetch) {
        c->fetches++;
        first = !fetched_before(e, c, broker);
        if (!first && !e->pf.on) /* a fault waiting is this line's (dispatch.c) */
            return;
    } else if (ks_ex_api_is(api, KS_API_METADATA) && !e->pf.on) {
        return; /* a metadata refresh: drawn when a fault strikes it, as a producer's */
    }
    ks_ex_step_begin(e, SK_API_SEND, t, NONE);
    step *s = &e->cur;
    s->consumer = ci;
    ks_ex_copy_str(s->api, sizeof s->api, api);
    s->request = r;
    s->broker = broker;
    s->from = (lane){'K', (int64_t)ci};
    s->to = (lane){'B', broker};
    s->style = MS_REQ;
    describe_consumer_send(s, &e->cons[ci], ks_tl_int(j, "batches", 0), first);
    ks_ex_take_pending_fault(e, s->from, api, r);
}

/* The description and label of the answer to a consumer's request. */
static void describe_consumer_answer(step *s, const consumer *c, const char *error)
{
    char ref[64], grp[96];
    api_ref(s, ref, sizeof ref);
    group_text(c, grp, sizeof grp);
    if (!ks_ex_no_error(error)) {
        ks_sb_printf(&s->desc, "%s's %s fails: %s", c->id, ref, error);
        ks_sb_puts(&s->label, error);
    } else if (ks_ex_api_is(s->api, KS_API_FIND_COORDINATOR)) {
        ks_sb_printf(&s->desc, "%s learns where the coordinator of %s is", c->id, grp);
        ks_sb_puts(&s->label, "coordinator location");
    } else if (ks_ex_api_is(s->api, KS_API_OFFSET_FETCH)) {
        ks_sb_printf(&s->desc, "%s learns %s's committed offsets (%s)", c->id, grp, ref);
        ks_sb_puts(&s->label, "committed offsets");
    } else if (ks_ex_api_is(s->api, KS_API_LIST_OFFSETS)) {
        ks_sb_printf(&s->desc, "%s learns the offsets to start from (%s)", c->id, ref);
        ks_sb_puts(&s->label, "offsets");
    } else if (ks_ex_api_is(s->api, KS_API_OFFSET_COMMIT)) {
        ks_sb_printf(&s->desc, "the group coordinator (broker %" PRId64 ") has stored %s's "
                               "offsets: %s's commitSync() returns",
                     s->broker, grp, c->id);
        ks_sb_printf(&s->label, "%s: OK", s->api);
    } else {
        ks_sb_printf(&s->desc, "%s's %s succeeds", c->id, ref);
        ks_sb_printf(&s->label, "%s: OK", s->api);
    }
}

/* The answer to a consumer's request reaches it. A Fetch answered without
 * error is counted, not drawn (the records it brought are returned by
 * poll(): the consume lines' steps); the other answers are drawn when they
 * carry an error, or end commitSync(): what FindCoordinator, OffsetFetch
 * and ListOffsets taught the consumer, its next request shows. */
void ks_ex_on_consumer_response(explain *e, ks_tline *j, int64_t t)
{
    size_t ci = ks_ex_cons_of(e, ks_tl_str(j, "consumer", NULL));
    const char *api = ks_tl_str(j, "api", ""), *error = ks_tl_str(j, "error", "");
    if (ks_ex_api_is(api, KS_API_FETCH)) {
        e->cons[ci].fetch_answers++;
        if (ks_ex_no_error(error))
            return;
    } else if (ks_ex_no_error(error) && !ks_ex_api_is(api, KS_API_OFFSET_COMMIT)) {
        return; /* the next request tells what it learnt (the coordinator, offsets) */
    }
    ks_ex_step_begin(e, SK_API_RESPONSE, t, NONE);
    step *s = &e->cur;
    s->consumer = ci;
    ks_ex_copy_str(s->api, sizeof s->api, api);
    s->request = ks_tl_int(j, "request", -1);
    s->broker = ks_tl_int(j, "broker", -1);
    s->from = (lane){'B', s->broker};
    s->to = (lane){'K', (int64_t)ci};
    s->style = MS_RESP;
    describe_consumer_answer(s, &e->cons[ci], error);
}

/* A consumer's request timeout closed a connection (a "disconnect"
 * line): it heard nothing for request.timeout.ms, and what was in flight
 * on the connection is asked again, as its next requests show. A
 * broker's own (a "client" line) is broker.c's. */
void ks_ex_on_disconnect(explain *e, ks_tline *j, int64_t t)
{
    if (ks_tl_has(j, "client")) {
        ks_ex_on_broker_disconnect(e, j, t);
        return;
    }
    if (!ks_tl_has(j, "consumer"))
        return; /* a kind of client this explain does not know */
    size_t ci = ks_ex_cons_of(e, ks_tl_str(j, "consumer", NULL));
    int64_t n = ks_tl_int(j, "in_flight", 0);
    bool coord = strcmp(ks_tl_str(j, "channel", ""), "coordinator") == 0;
    ks_ex_step_begin(e, SK_TIMEOUT, t, NONE);
    step *s = &e->cur;
    s->consumer = ci;
    s->broker = ks_tl_int(j, "broker", -1);
    s->from = (lane){'K', (int64_t)ci};
    s->style = MS_NOTE;
    ks_sb_printf(&s->desc,
                 "%s hears nothing from %s%" PRId64 "%s for request.timeout.ms (%" PRId64
                 " ms): it closes the connection, and the %" PRId64 " request%s in flight fail%s",
                 e->cons[ci].id, coord ? "the group coordinator (broker " : "broker ", s->broker,
                 coord ? ")" : "", ks_tl_int(j, "timeout_ms", 30000), n, n == 1 ? "" : "s",
                 n == 1 ? "s" : "");
    ks_sb_printf(&s->label, "\xE2\x9C\x95 no answer: connection to broker %" PRId64
                            " closed (%s)",
                 s->broker, ks_tl_str(j, "error", "request timed out"));
}
