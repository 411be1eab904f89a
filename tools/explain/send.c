/*
 * send.c - the producer's send path as `ksim explain` draws it: send()
 * calls (records waiting in the accumulator), batches drained into
 * produce requests, and requests leaving, of Produce and of the other
 * APIs (FindCoordinator, InitProducerId, AddPartitionsToTxn, EndTxn).
 */
#include "tools/explain/internal.h"

#include <inttypes.h>
#include <string.h>

/* The description of send() calls: one record, or several at once. */
static void describe_produce(explain *e, step *s, size_t part, bool failed)
{
    if (!ks_ex_step_drawn(e, s))
        return;
    char names[NAME_BUF * 4];
    ks_ex_names_text(s, names, sizeof names);
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
                     id, names, ks_ex_part_label(e, part));
        ks_sb_printf(&s->label, "send(%s) \xE2\x86\x92 accumulator, %s", names,
                     ks_ex_part_label(e, part));
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
void ks_ex_on_produce(explain *e, ks_tline *j, int64_t t)
{
    size_t p = ks_ex_prod_of(e, ks_tl_str(j, "producer", NULL));
    uint64_t id = (uint64_t)ks_tl_int(j, "record", 0);
    int64_t pn = ks_tl_int(j, "partition", -1);
    size_t part = pn >= 0 ? ks_ex_part_of(e, ks_tl_str(j, "topic", NULL), pn) : NONE;
    const char *key = ks_tl_str_or_null(j, "key");
    ks_ex_name_store(e, id, key);
    if (e->o.record_key && !e->o.has_record && key && strcmp(key, e->o.record_key) == 0) {
        e->o.has_record = true; /* --record A: the first record with key A */
        e->o.record = id;
    }
    fifo *q = part != NONE ? ks_ex_fifo_of(e, p, part, true) : NULL;
    if (q && !ks_ex_fifo_push(q, id))
        e->oom = true;
    if (!ks_ex_step_is(e, SK_PRODUCE, t, p)) {
        ks_ex_step_begin(e, SK_PRODUCE, t, p);
        e->cur.from = (lane){'P', (int64_t)p};
        e->cur.style = MS_NOTE;
        e->cur.first_produced = (int64_t)id;
        e->cur.part = part;
    }
    step *s = &e->cur;
    s->produced++;
    ks_ex_step_touch(e, part);
    if (e->o.has_record && id == e->o.record) {
        s->about_record = true;
        e->sel_part = part;
    }
    if (ks_ex_step_drawn(e, s)) { /* the names are for its text only */
        char nm[NAME_BUF];
        ks_ex_record_name(e, id, nm, sizeof nm);
        ks_ex_step_add_name(s, nm);
    }
    note_txn_record(e, p, part);
    describe_produce(e, s, part, part == NONE);
}

/* The step for request r of producer p leaving at t: the one being built,
 * or the send() calls just made (which become part of it), or a new one. */
static void send_step(explain *e, int64_t t, size_t p, int64_t r, int64_t broker)
{
    step *s = &e->cur;
    if (ks_ex_step_is(e, SK_SEND, t, p) && s->request == r)
        return;
    if (ks_ex_step_is(e, SK_PRODUCE, t, p)) {
        s->kind = SK_SEND;
        ks_sb_clear(&s->names);
        s->nnames = 0;
    } else {
        ks_ex_step_begin(e, SK_SEND, t, p);
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
    if (!ks_ex_step_drawn(e, s))
        return;
    char names[NAME_BUF * 4], idem[64] = "";
    ks_ex_names_text(s, names, sizeof names);
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
                     pr->id, names, s->broker, s->request, b->id, ks_ex_part_label(e, b->part),
                     idem);
        ks_sb_printf(&s->label, "send(request %" PRId64 ": %s)", s->request, names);
    }
}

/* A batch taken into a request: the first time, it takes its records. */
void ks_ex_on_drain(explain *e, ks_tline *j, int64_t t)
{
    size_t p = ks_ex_prod_of(e, ks_tl_str(j, "producer", NULL));
    int64_t r = ks_tl_int(j, "request", -1), broker = ks_tl_int(j, "broker", -1);
    int64_t bid = ks_tl_int(j, "batch", -1), nrec = ks_tl_int(j, "records", 0);
    size_t part = ks_ex_part_of(e, ks_tl_str(j, "topic", NULL), ks_tl_int(j, "partition", -1));
    bool retry = strcmp(ks_tl_str(j, "why", ""), "retry") == 0;
    batch *b = ks_ex_batch_get(e, p, bid);
    if (!b)
        b = ks_ex_batch_new(e, p, bid, part, nrec);
    request *q = ks_ex_request_get(e, p, r);
    if (!q)
        q = ks_ex_request_new(e, p, r, broker);
    if (!b || !q)
        return;
    ks_ex_request_add_batch(e, q, bid);
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
    if (ks_ex_step_drawn(e, s))
        ks_ex_step_add_batch(e, b);
    ks_ex_step_touch(e, part);
    s->about_record = s->about_record || b->selected;
    describe_send(e, s, b);
}

static void describe_api_send(explain *e, step *s, producer *pr, int64_t entries)
{
    const char *api = s->api, *tid = pr->tid ? pr->tid : "";
    char ref[64]; /* the API, with its request number after the first */
    if (s->request > 1)
        snprintf(ref, sizeof ref, "%s request %" PRId64, api, s->request);
    else
        snprintf(ref, sizeof ref, "%s", api);
    if (ks_ex_api_is(api, KS_API_FIND_COORDINATOR)) {
        ks_sb_printf(&s->desc,
                     "%s asks broker %" PRId64 " where the transaction coordinator of %s "
                     "is (%s)",
                     pr->id, s->broker, tid, ref);
        ks_sb_printf(&s->label, "%s(%s)", api, tid);
    } else if (ks_ex_api_is(api, KS_API_INIT_PRODUCER_ID) && pr->tid) {
        ks_sb_printf(&s->desc,
                     "initTransactions(): %s sends %s for %s to its coordinator on "
                     "broker %" PRId64,
                     pr->id, ref, tid, s->broker);
        ks_sb_printf(&s->label, "%s(%s)", api, tid);
    } else if (ks_ex_api_is(api, KS_API_INIT_PRODUCER_ID)) {
        ks_sb_printf(&s->desc,
                     "%s asks broker %" PRId64 " for a producer id (%s: the producer is "
                     "idempotent)",
                     pr->id, s->broker, ref);
        ks_sb_puts(&s->label, api);
    } else if (ks_ex_api_is(api, KS_API_ADD_PARTITIONS_TO_TXN)) {
        char parts[128] = "";
        for (size_t i = 0; i < pr->ntxn_parts && (int64_t)pr->ntxn_parts == entries; i++) {
            size_t n = strlen(parts);
            snprintf(parts + n, sizeof parts - n, "%s%s", i ? ", " : "",
                     ks_ex_part_label(e, pr->txn_parts[i]));
            ks_ex_step_touch(e, pr->txn_parts[i]);
        }
        if (!parts[0])
            snprintf(parts, sizeof parts, "%" PRId64 " partitions", entries);
        pr->ntxn_parts = 0;
        ks_sb_printf(&s->desc, "%s tells the coordinator that its transaction writes to %s (%s)",
                     pr->id, parts, ref);
        ks_sb_printf(&s->label, "%s(%s)", api, parts);
    } else if (ks_ex_api_is(api, KS_API_END_TXN)) {
        ks_sb_printf(&s->desc, "%s asks the coordinator to %s the transaction (%s)", pr->id,
                     pr->committing ? "commit" : "abort", ref);
        ks_sb_printf(&s->label, "%s(%s)", api, pr->committing ? "COMMIT" : "ABORT");
    } else {
        ks_sb_printf(&s->desc, "%s sends %s to broker %" PRId64, pr->id, ref, s->broker);
        ks_sb_puts(&s->label, api);
    }
}

/* A request of another API than Produce leaves. A Metadata refresh
 * (metadata.max.age.ms, or after a disconnect) is drawn only when a fault
 * strikes it: it changes nothing the story shows while it succeeds. */
static void on_api_send(explain *e, ks_tline *j, int64_t t, size_t p, const char *api)
{
    if (ks_ex_api_is(api, KS_API_METADATA) && !e->pf.on) /* dispatch.c: pf is this line's */
        return;
    ks_ex_step_begin(e, SK_API_SEND, t, p);
    step *s = &e->cur;
    producer *pr = &e->prods[p];
    ks_ex_copy_str(s->api, sizeof s->api, api);
    s->request = ks_tl_int(j, "request", -1);
    s->broker = ks_tl_int(j, "broker", -1);
    bool to_coord = pr->tid && !ks_ex_api_is(api, KS_API_FIND_COORDINATOR);
    s->from = (lane){'P', (int64_t)p};
    s->to = (lane){to_coord ? 'C' : 'B', s->broker};
    s->style = MS_REQ;
    describe_api_send(e, s, pr, ks_tl_int(j, "batches", 0));
    ks_ex_take_pending_fault(e, (lane){'P', (int64_t)p}, api, s->request);
}

/* A request leaves: a produce request (its drains came first) or another
 * API's. */
void ks_ex_on_send(explain *e, ks_tline *j, int64_t t)
{
    size_t p = ks_ex_prod_of(e, ks_tl_str(j, "producer", NULL));
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
    request *q = ks_ex_request_get(e, p, r);
    s->about_record = s->about_record || (q && q->selected);
    ks_ex_take_pending_fault(e, (lane){'P', (int64_t)p}, "", r);
    if (s->produced > s->produced_sent)
        ks_sb_line(&s->notes, "(records just passed to send() that are not in this request wait "
                              "in the accumulator)");
}
