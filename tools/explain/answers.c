/*
 * answers.c - what reaches the producer as `ksim explain` draws it:
 * produce responses and the other APIs' answers, what each send()
 * completes with (and what the application is told, for [RESULT]),
 * batches going back to the queue to be retried, and batches split after
 * MESSAGE_TOO_LARGE.
 */
#include "tools/explain/internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The description of a produce response. */
static void describe_response(explain *e, step *s, const request *q, const char *error)
{
    const char *id = e->prods[s->producer].id;
    const batch *b = q && q->n == 1 ? ks_ex_batch_get(e, q->producer, q->batches[0]) : NULL;
    char names[NAME_BUF * 4], offs[64];
    if (!ks_ex_no_error(error)) {
        ks_sb_printf(&s->desc, "broker %" PRId64 " answers request %" PRId64 " of %s with %s",
                     s->broker, s->request, id, error);
    } else if (b && b->last_request == q->id && b->last_offset >= 0) {
        ks_ex_batch_names(e, b, names, sizeof names);
        ks_ex_offsets_text(offs, sizeof offs, b->last_offset, b->records);
        ks_sb_printf(&s->desc, "%s receives the ACK for request %" PRId64 ": %s %s stored at %s%s",
                     id, s->request, names, b->records > 1 ? "are" : "is", offs,
                     strcmp(b->last_result, DUPLICATE_RESULT) == 0 ? " (the original copy)" : "");
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
 * EndTxn; the producer line that follows may say more. A Metadata answer
 * is drawn only when it is an error (send.c draws few of its requests). */
static void on_api_response(explain *e, ks_tline *j, int64_t t, size_t p, const char *api)
{
    if (ks_ex_api_is(api, KS_API_METADATA) && ks_ex_no_error(ks_tl_str(j, "error", "")))
        return;
    ks_ex_step_begin(e, SK_API_RESPONSE, t, p);
    step *s = &e->cur;
    const producer *pr = &e->prods[p];
    const char *error = ks_tl_str(j, "error", ""), *tid = pr->tid ? pr->tid : "";
    ks_ex_copy_str(s->api, sizeof s->api, api);
    s->request = ks_tl_int(j, "request", -1);
    s->broker = ks_tl_int(j, "broker", -1);
    s->from = ks_ex_api_lane(e, p, api, s->broker);
    s->to = (lane){'P', (int64_t)p};
    s->style = MS_RESP;
    if (!ks_ex_no_error(error)) {
        ks_sb_printf(&s->desc, "%s's %s fails: %s", pr->id, api, error);
        ks_sb_puts(&s->label, error);
    } else if (ks_ex_api_is(api, KS_API_FIND_COORDINATOR)) {
        ks_sb_printf(&s->desc, "%s learns where the coordinator of %s is", pr->id, tid);
        ks_sb_puts(&s->label, "coordinator location");
    } else if (ks_ex_api_is(api, KS_API_END_TXN)) {
        ks_sb_printf(&s->desc, "the coordinator has logged the decision: %s's EndTxn returns",
                     pr->id);
        ks_sb_printf(&s->label, "%s: OK", api);
    } else {
        ks_sb_printf(&s->desc, "%s's %s succeeds", pr->id, api);
        ks_sb_printf(&s->label, "%s: OK", api);
    }
}

/* A response reaches the producer; the ack and retry lines that follow at
 * the same moment join its step. */
void ks_ex_on_response(explain *e, ks_tline *j, int64_t t)
{
    size_t p = ks_ex_prod_of(e, ks_tl_str(j, "producer", NULL));
    const char *api = ks_tl_str(j, "api", NULL);
    if (api) {
        on_api_response(e, j, t, p, api);
        return;
    }
    ks_ex_step_begin(e, SK_RESPONSE, t, p);
    step *s = &e->cur;
    s->request = ks_tl_int(j, "request", -1);
    s->broker = ks_tl_int(j, "broker", -1);
    s->from = (lane){'B', s->broker};
    s->to = (lane){'P', (int64_t)p};
    s->style = MS_RESP;
    const char *error = ks_tl_str(j, "error", "");
    request *q = ks_ex_request_get(e, p, s->request);
    if (ks_ex_step_drawn(e, s)) {
        char ack[128];
        ks_ex_ack_label(e, q, error, ack, sizeof ack);
        ks_sb_puts(&s->label, ack);
        describe_response(e, s, q, error);
    }
    ks_ex_touch_request(e, q);
    if (q)
        ks_ex_request_free(ks_u64map_del(&e->requests, ks_ex_obj_key(p, s->request)));
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

static void tell(explain *e, size_t p, uint64_t id, int64_t offset, const char *error)
{
    producer *pr = &e->prods[p];
    char nm[NAME_BUF];
    bool ok = ks_ex_no_error(error);
    if (ok)
        pr->acked++;
    else
        pr->failed++;
    if (pr->ntold++ < TOLD_MAX) {
        ks_ex_record_name(e, id, nm, sizeof nm);
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
void ks_ex_on_ack(explain *e, ks_tline *j, int64_t t)
{
    size_t p = ks_ex_prod_of(e, ks_tl_str(j, "producer", NULL));
    uint64_t id = (uint64_t)ks_tl_int(j, "record", 0);
    int64_t offset = ks_tl_int(j, "offset", -1), pn = ks_tl_int(j, "partition", -1);
    size_t part = pn >= 0 ? ks_ex_part_of(e, ks_tl_str(j, "topic", NULL), pn) : NONE;
    const char *error = ks_tl_str(j, "error", "");
    bool ok = ks_ex_no_error(error), sel = e->o.has_record && id == e->o.record;
    ks_ex_fifo_remove(part != NONE ? ks_ex_fifo_of(e, p, part, false) : NULL, id);
    char nm[NAME_BUF], line[NAME_BUF + 160];
    tell(e, p, id, offset, error);
    if (sel && ok)
        snprintf(line, sizeof line, "%s was told: offset %" PRId64, e->prods[p].id, offset);
    else if (sel)
        snprintf(line, sizeof line, "%s was told: %s", e->prods[p].id, error);
    if (sel)
        ks_sb_line(&e->sel_fate, line);
    if (!ks_ex_joins_producer_step(e, t, p)) {
        ks_ex_step_begin(e, SK_ACK, t, p);
        e->cur.from = (lane){'P', (int64_t)p};
        e->cur.style = MS_NOTE;
    }
    step *s = &e->cur;
    ks_ex_step_touch(e, part);
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
    if (!ks_ex_step_drawn(e, s)) {
        s->nrecords += s->kind == SK_ACK; /* counted, not described */
        return;
    }
    bool no_retry = !ok && s->kind == SK_RESPONSE && e->prods[p].retries == 0;
    ks_ex_record_name(e, id, nm, sizeof nm);
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
void ks_ex_on_retry(explain *e, ks_tline *j, int64_t t)
{
    size_t p = ks_ex_prod_of(e, ks_tl_str(j, "producer", NULL));
    size_t part = ks_ex_part_of(e, ks_tl_str(j, "topic", NULL), ks_tl_int(j, "partition", -1));
    int64_t attempt = ks_tl_int(j, "attempt", 2), seq = ks_tl_int(j, "base_sequence", -1);
    batch *b = ks_ex_batch_get(e, p, ks_tl_int(j, "batch", -1));
    if (b) {
        b->attempt = attempt;
        b->base_seq = seq >= 0 ? seq : b->base_seq;
        b->seq_gen = e->prods[p].seq_gen;
    }
    char names[NAME_BUF * 4], ms[32], line[NAME_BUF * 4 + 200], idem[80] = "";
    ks_ex_batch_names(e, b, names, sizeof names);
    ks_ex_fmt_ms(ms, sizeof ms, ks_tl_int(j, "backoff_ns", 0));
    if (seq >= 0 && e->prods[p].pid >= 0)
        snprintf(idem, sizeof idem, ", same PID %" PRId64 " and sequence %" PRId64,
                 e->prods[p].pid, seq);
    snprintf(line, sizeof line, "%s goes back to the queue: attempt %" PRId64 " after %s ms of "
                                "backoff (%s%s)",
             names, attempt, ms, ks_tl_str(j, "error", ""), idem);
    if (!(ks_ex_joins_producer_step(e, t, p) &&
          (e->cur.kind == SK_RESPONSE || e->cur.kind == SK_TIMEOUT))) {
        ks_ex_step_begin(e, SK_TIMEOUT, t, p);
        e->cur.from = (lane){'P', (int64_t)p};
        e->cur.style = MS_NOTE;
        ks_sb_printf(&e->cur.desc, "%s will send %s again: attempt %" PRId64, e->prods[p].id, names,
                     attempt);
    }
    ks_ex_step_touch(e, part);
    e->cur.about_record = e->cur.about_record || (b && b->selected);
    ks_sb_line(&e->cur.notes, line);
}

/* The new batch `into` of a split takes the next `n` records of the
 * batch it was split from (the split lines come in record order). */
static batch *split_piece(explain *e, size_t p, batch *from, int64_t into, int64_t n)
{
    batch *nb = ks_ex_batch_get(e, p, into);
    if (nb || !from)
        return nb;
    nb = ks_ex_batch_new(e, p, into, NONE, 0);
    if (!nb)
        return NULL;
    nb->part = from->part;
    nb->records = n;
    size_t take = n > 0 ? (size_t)n : 0;
    if (from->split_taken + take > from->nrecs)
        take = from->nrecs > from->split_taken ? from->nrecs - from->split_taken : 0;
    if (take > 0 && (nb->recs = malloc(take * sizeof *nb->recs)) != NULL) {
        memcpy(nb->recs, from->recs + from->split_taken, take * sizeof *nb->recs);
        nb->nrecs = take;
    }
    from->split_taken += take;
    for (size_t i = 0; i < nb->nrecs; i++)
        nb->selected = nb->selected || (e->o.has_record && nb->recs[i] == e->o.record);
    return nb;
}

/* A batch the leader refused as too large is split (one line per new
 * batch): the producer sends its records again in smaller batches, at
 * once and without counting an attempt. */
void ks_ex_on_split(explain *e, ks_tline *j, int64_t t)
{
    size_t p = ks_ex_prod_of(e, ks_tl_str(j, "producer", NULL));
    size_t part = ks_ex_part_of(e, ks_tl_str(j, "topic", NULL), ks_tl_int(j, "partition", -1));
    if (p == NONE)
        return;
    batch *from = ks_ex_batch_get(e, p, ks_tl_int(j, "batch", -1));
    bool first = !from || from->split_taken == 0;
    char names[NAME_BUF * 4], line[NAME_BUF * 4 + 200];
    ks_ex_batch_names(e, from, names, sizeof names);
    if (first && !(ks_ex_joins_producer_step(e, t, p) && e->cur.kind == SK_RESPONSE)) {
        ks_ex_step_begin(e, SK_TIMEOUT, t, p);
        e->cur.from = (lane){'P', (int64_t)p};
        e->cur.style = MS_NOTE;
        ks_sb_printf(&e->cur.desc, "%s splits a batch the broker found too large", e->prods[p].id);
    }
    if (first) {
        snprintf(line, sizeof line, "%s (%" PRId64 " bytes) too large for the topic (%s): split "
                                    "into batches of at most batch.size, sent again at once",
                 names, ks_tl_int(j, "bytes", 0), ks_tl_str(j, "error", ""));
        ks_sb_line(&e->cur.notes, line);
    }
    batch *nb = split_piece(e, p, from, ks_tl_int(j, "into", -1), ks_tl_int(j, "into_records", 0));
    ks_ex_batch_names(e, nb, names, sizeof names);
    snprintf(line, sizeof line, "  batch %" PRId64 ": %s (%" PRId64 " bytes, estimated)",
             ks_tl_int(j, "into", -1), names, ks_tl_int(j, "into_bytes", 0));
    ks_sb_line(&e->cur.notes, line);
    ks_ex_step_touch(e, part);
    e->cur.about_record = e->cur.about_record || (nb && nb->selected);
}
