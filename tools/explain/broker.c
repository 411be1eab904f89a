/*
 * broker.c - the brokers' side as `ksim explain` draws it: a leader
 * appending (or refusing, or recognising as a duplicate) the batches of a
 * produce request, with the partition log and the broker's producer state
 * (PID | Partition | Last Sequence) it changes; the transaction
 * coordinator writing a transaction's state to its log; COMMIT and ABORT
 * markers appended; an administrator adding partitions; a broker's own
 * requests (WriteTxnMarkers, AddPartitionsToTxn) when a fault strikes
 * them or their answer is an error.
 */
#include "tools/explain/internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Appends an entry to the partition's log box (the ring keeps the last
 * BOX_ROWS) and moves its log end offset. */
static void log_push(explain *e, size_t part, int64_t offset, int64_t count, int64_t dup_of,
                     const char *text)
{
    partition *pt = &e->parts[part];
    log_entry *le = &pt->ring[pt->entries % BOX_ROWS];
    free(le->text);
    *le = (log_entry){offset, count, dup_of, ks_ex_dup_or_oom(e, text), true};
    pt->entries++;
    pt->log_touched = true;
    if (offset + count > pt->end_offset)
        pt->end_offset = offset + count;
}

/* Counts a duplicate in the partition, naming the first DUPS_MAX for
 * [RESULT]. */
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
            ks_ex_record_name(e, b->recs[i], nm, sizeof nm);
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
            ks_ex_batch_text(e, b, nm, sizeof nm);
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
    ks_ex_batch_names(e, a->b, names, sizeof names);
    ks_ex_offsets_text(offs, sizeof offs, a->offset, a->records);
    if (a->result && strcmp(a->result, DUPLICATE_RESULT) == 0) {
        ks_sb_printf(out,
                     "broker %" PRId64 " already has PID %" PRId64 ", sequence %" PRId64
                     " in %s: it does not store %s again and answers with the original %s",
                     a->broker, a->pid, a->seq, pt->label, names, offs);
    } else if (a->result) {
        ks_sb_printf(out, "broker %" PRId64 " does not store %s in %s: it answers %s", a->broker,
                     names, pt->label, a->result);
        if (a->fault >= 0)
            ks_sb_printf(out, " (fault %" PRId64 ": %s)", a->fault, ks_ex_fault_type(e, a->fault));
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
    if (a->pid < 0 || (a->result && strcmp(a->result, DUPLICATE_RESULT) != 0))
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

/* The step of the request's appends: the first batch's sentence, or with
 * several batches a summary line and one note per batch. */
static void append_step(explain *e, const append_line *a, const ks_sbuf *sentence)
{
    step *s = &e->cur;
    s->part = s->nbatches == 0 || s->part == a->part ? a->part : NONE;
    s->nbatches++;
    ks_ex_step_touch(e, a->part);
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
void ks_ex_on_append(explain *e, ks_tline *j, int64_t t)
{
    size_t p = ks_ex_prod_of(e, ks_tl_str(j, "producer", NULL));
    append_line a = {ks_ex_part_of(e, ks_tl_str(j, "topic", NULL), ks_tl_int(j, "partition", -1)),
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
    a.b = ks_ex_batch_get(e, p, bid);
    if (!(ks_ex_step_is(e, SK_APPEND, t, p) && e->cur.request == r && e->cur.broker == a.broker)) {
        ks_ex_step_begin(e, SK_APPEND, t, p);
        e->cur.request = r;
        e->cur.broker = a.broker;
        e->cur.from = (lane){'B', a.broker};
    }
    ks_sbuf sentence = {0};
    bool drawn = ks_ex_step_drawn(e, &e->cur); /* else its text is not built */
    if (drawn)
        append_sentence(e, &a, &sentence);
    if (a.result && strcmp(a.result, DUPLICATE_RESULT) != 0 && !drawn) {
        e->cur.style = MS_NOTE;
    } else if (a.result && strcmp(a.result, DUPLICATE_RESULT) != 0) {
        char names[NAME_BUF * 4];
        ks_ex_batch_names(e, a.b, names, sizeof names);
        e->cur.style = MS_NOTE;
        ks_sb_printf(&e->cur.label, "%s\xE2\x9C\x95 %s not stored: %s",
                     e->cur.label.len ? "\n" : "", names, a.result);
    }
    if (!a.result && a.offset >= 0) {
        log_append_batch(e, a.part, a.b, a.offset, a.records);
        e->parts[a.part].mk_data = e->parts[a.part].mk_data || a.pid == e->parts[a.part].mk_pid;
    }
    else
        e->parts[a.part].log_touched = !a.result || strcmp(a.result, DUPLICATE_RESULT) != 0;
    append_pid_state(e, &a);
    append_step(e, &a, &sentence);
    e->oom = e->oom || sentence.oom;
    ks_sb_free(&sentence);
    if (a.b) {
        a.b->last_offset = a.offset;
        a.b->last_request = r;
        ks_ex_copy_str(a.b->last_result, sizeof a.b->last_result, a.result);
    }
}

/* The coordinator's state the trace names `name`; KS_TXN__COUNT for a
 * name it does not know. */
static ks_txn_state txn_state_of(const char *name)
{
    for (int i = 0; i < KS_TXN__COUNT; i++)
        if (ks_ex_txn_state_is(name, (ks_txn_state)i))
            return (ks_txn_state)i;
    return KS_TXN__COUNT;
}

/* The description of a write to the transaction log: what its new state
 * means for the transaction. */
static void describe_txn(step *s, const txn *x, int64_t prev_epoch, const char *why)
{
    const char *from = s->txn_from, *to = x->state;
    ks_txn_state st = txn_state_of(to);
    bool init = ks_ex_api_is(why, KS_API_INIT_PRODUCER_ID);
    ks_sb_printf(&s->desc, "the coordinator (broker %" PRId64 ") ", x->coordinator);
    if (st == KS_TXN_EMPTY && init && prev_epoch >= 0 && x->epoch > prev_epoch)
        ks_sb_printf(&s->desc,
                     "bumps %s to epoch %" PRId64 " (PID %" PRId64 ") in the transaction "
                     "log: requests with an older epoch are refused from now on",
                     x->tid, x->epoch, x->pid);
    else if (st == KS_TXN_EMPTY && init)
        ks_sb_printf(&s->desc,
                     "maps %s to PID %" PRId64 ", epoch %" PRId64 " and writes it to the "
                     "transaction log",
                     x->tid, x->pid, x->epoch);
    else if (st == KS_TXN_ONGOING && !ks_ex_txn_state_is(from, KS_TXN_ONGOING))
        ks_sb_printf(&s->desc,
                     "writes %s's partitions to the transaction log: %s, %" PRId64
                     " partition%s, and the transaction timer starts (%s)",
                     x->tid, to, x->partitions, x->partitions == 1 ? "" : "s", why);
    else if (st == KS_TXN_ONGOING)
        ks_sb_printf(&s->desc, "adds partitions to %s's transaction: %" PRId64 " now", x->tid,
                     x->partitions);
    else if (st == KS_TXN_PREPARE_COMMIT || st == KS_TXN_PREPARE_ABORT)
        ks_sb_printf(&s->desc,
                     "writes %s for %s (%s): the decision is logged; the %s markers go "
                     "to its %" PRId64 " partition%s next",
                     to, x->tid, why, st == KS_TXN_PREPARE_COMMIT ? "COMMIT" : "ABORT",
                     x->partitions, x->partitions == 1 ? "" : "s");
    else if (st == KS_TXN_COMPLETE_COMMIT || st == KS_TXN_COMPLETE_ABORT)
        ks_sb_printf(&s->desc,
                     "has every marker written: it writes %s for %s, and the transaction "
                     "is over",
                     to, x->tid);
    else if (st == KS_TXN_PREPARE_EPOCH_FENCE)
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
void ks_ex_on_txn(explain *e, ks_tline *j, int64_t t)
{
    ks_ex_step_begin(e, SK_TXN, t, NONE); /* draws the step before, with the state before */
    step *s = &e->cur;
    size_t ti = ks_ex_txn_of(e, ks_tl_str(j, "transactional_id", NULL));
    txn *x = &e->txns[ti];
    int64_t prev_epoch = x->epoch;
    x->coordinator = ks_tl_int(j, "coordinator", -1);
    x->pid = ks_tl_int(j, "producer_id", -1);
    x->epoch = ks_tl_int(j, "epoch", -1);
    x->partitions = ks_tl_int(j, "partitions", 0);
    ks_ex_copy_str(x->state, sizeof x->state, ks_tl_str(j, "state", ""));
    s->txn = ti;
    ks_ex_copy_str(s->txn_from, sizeof s->txn_from, ks_tl_str(j, "from", ""));
    s->from = (lane){'C', x->coordinator};
    s->style = MS_NOTE;
    ks_sb_printf(&s->label, "%s: %s \xE2\x86\x92 %s", x->tid, s->txn_from, x->state);
    describe_txn(s, x, prev_epoch, ks_tl_str(j, "why", ""));
    s->about_part = pid_on_filtered(e, x->pid);
    ks_txn_state st = txn_state_of(x->state);
    if (st == KS_TXN_PREPARE_COMMIT || st == KS_TXN_PREPARE_ABORT ||
        st == KS_TXN_PREPARE_EPOCH_FENCE)
        e->marker_coord = x->coordinator; /* its markers come next */
    s->about_record = e->sel_txn_open && x->pid == e->sel_pid;
    if (s->about_record && (st == KS_TXN_COMPLETE_COMMIT || st == KS_TXN_COMPLETE_ABORT))
        e->sel_txn_open = false;
}

/* A leader appended a COMMIT or ABORT marker (a control record). */
void ks_ex_on_marker(explain *e, ks_tline *j, int64_t t)
{
    size_t part = ks_ex_part_of(e, ks_tl_str(j, "topic", NULL), ks_tl_int(j, "partition", -1));
    if (part == NONE)
        return;
    const char *tid = ks_tl_str(j, "transactional_id", ""), *type = ks_tl_str(j, "type", "");
    int64_t broker = ks_tl_int(j, "broker", -1), pid = ks_tl_int(j, "producer_id", -1);
    int64_t epoch = ks_tl_int(j, "epoch", -1), offset = ks_tl_int(j, "offset", -1);
    partition *pt = &e->parts[part];
    pt->leader = broker;
    bool again = pt->mk_pid == pid && pt->mk_epoch == epoch && strcmp(pt->mk_type, type) == 0 &&
                 !pt->mk_data;
    e->marker_coord = ks_ex_coord_of_tid(e, tid);
    ks_ex_step_begin(e, SK_MARKER, t, NONE);
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
        ks_ex_copy_str(pt->mk_type, sizeof pt->mk_type, type);
        pt->mk_data = false;
    }
    ks_ex_step_touch(e, part);
    s->about_record = e->sel_txn_open && pid == e->sel_pid && part == e->sel_part;
}

/* An administrator added partitions to a topic (every partition of the
 * topic is touched: their boxes may follow). */
void ks_ex_on_admin(explain *e, ks_tline *j, int64_t t)
{
    ks_ex_step_begin(e, SK_NOTE, t, NONE);
    ks_sb_printf(&e->cur.desc, "an administrator raises %s to %" PRId64 " partitions (%s)",
                 ks_tl_str(j, "topic", ""), ks_tl_int(j, "partitions", 0), ks_tl_str(j, "op", ""));
    size_t ti = ks_ex_topic_of(e, ks_tl_str(j, "topic", NULL));
    for (size_t i = 0; ti != NONE && i < e->topics[ti].nparts; i++)
        ks_ex_step_touch(e, e->topics[ti].parts[i]);
}

/* ---- a broker's own requests ------------------------------------------------ */

/* "the coordinator (broker 1)" or "broker 2": the side of a broker's own
 * message whose lane is l. */
static void side_text(lane l, char *buf, size_t n)
{
    if (l.kind == 'C')
        snprintf(buf, n, "the coordinator (broker %" PRId64 ")", l.n);
    else
        snprintf(buf, n, "broker %" PRId64, l.n);
}

/* Begins the step of a broker's own message (line j, of kind k): the
 * API, request, both lanes (`to_server`: the request's way), and their
 * texts in from/to. Returns the client's lane, for its fault. */
static lane own_message_step(explain *e, ks_tline *j, int64_t t, skind k, bool to_server,
                             char from[64], char to[64])
{
    lane client = ks_ex_client_of(e, j);
    const char *api = ks_tl_str(j, "api", "");
    ks_ex_step_begin(e, k, t, NONE);
    step *s = &e->cur;
    ks_ex_copy_str(s->api, sizeof s->api, api[0] ? api : ks_api_name(KS_API_WRITE_TXN_MARKERS));
    s->request = ks_tl_int(j, "request", -1);
    s->broker = ks_tl_int(j, "broker", -1);
    lane c = ks_ex_broker_lane(s->api, client.n < 0 ? e->marker_coord : client.n, true);
    lane server = ks_ex_broker_lane(s->api, s->broker, false);
    s->from = to_server ? c : server;
    s->to = to_server ? server : c;
    s->style = to_server ? MS_REQ : MS_RESP;
    side_text(s->from, from, 64);
    side_text(s->to, to, 64);
    return client;
}

/* A broker's own request leaves (WriteTxnMarkers from a coordinator,
 * AddPartitionsToTxn from a leader verifying a transaction). Its effects
 * are drawn where they happen (marker lines), so the request is drawn
 * only when a fault struck it: the fault's step is this one. */
void ks_ex_on_broker_send(explain *e, ks_tline *j, int64_t t)
{
    lane client = ks_ex_client_of(e, j);
    const char *api = ks_tl_str(j, "api", "");
    bool again = e->own_struck >= 0 && e->own_struck == client.n &&
                 strcmp(e->own_struck_api, api) == 0;
    if (!e->pf.on && !again) /* dispatch.c flushed a fault that was not this line's */
        return;
    char from[64], to[64];
    (void)own_message_step(e, j, t, SK_API_SEND, true, from, to);
    step *s = &e->cur;
    if (again)
        ks_sb_printf(&s->desc,
                     "%s has heard nothing for its request timeout: it sends %s again, as "
                     "request %" PRId64 " to %s",
                     from, s->api, s->request, to);
    else
        ks_sb_printf(&s->desc, "%s sends %s request %" PRId64 " to %s", from, s->api,
                     s->request, to);
    ks_sb_printf(&s->label, "%s(request %" PRId64 ")", s->api, s->request);
    e->own_struck = -1;
    if (e->pf.on) {
        e->own_struck = client.n;
        ks_ex_copy_str(e->own_struck_api, sizeof e->own_struck_api, api);
    }
    ks_ex_take_pending_fault(e, client, api, s->request);
}

/* The answer to a broker's own request: drawn when it carries an error
 * (the sender will act on it); a success is what the marker lines show. */
void ks_ex_on_broker_response(explain *e, ks_tline *j, int64_t t)
{
    const char *error = ks_tl_str(j, "error", "");
    if (e->own_struck == ks_ex_client_of(e, j).n)
        e->own_struck = -1; /* answered: a request after it is no resend */
    if (ks_ex_no_error(error))
        return;
    char from[64], to[64];
    (void)own_message_step(e, j, t, SK_API_RESPONSE, false, from, to);
    step *s = &e->cur;
    ks_sb_printf(&s->desc, "%s answers %s's %s request %" PRId64 ": %s", from, to, s->api,
                 s->request, error);
    ks_sb_puts(&s->label, error);
}

/* A broker's request timeout, as a client, closed its connection to
 * another broker (or to itself): the request struck by a fault finds its
 * silence here, and is sent again (ks_ex_on_broker_send says so). */
void ks_ex_on_broker_disconnect(explain *e, ks_tline *j, int64_t t)
{
    lane client = ks_ex_client_of(e, j);
    const char *api = e->own_struck >= 0 && e->own_struck == client.n
                          ? e->own_struck_api
                          : ks_api_name(KS_API_WRITE_TXN_MARKERS);
    int64_t n = ks_tl_int(j, "in_flight", 0);
    ks_ex_step_begin(e, SK_TIMEOUT, t, NONE);
    step *s = &e->cur;
    s->broker = ks_tl_int(j, "broker", -1);
    s->from = ks_ex_broker_lane(api, client.n < 0 ? e->marker_coord : client.n, true);
    s->style = MS_NOTE;
    char from[64];
    side_text(s->from, from, sizeof from);
    ks_sb_printf(&s->desc,
                 "%s hears nothing from broker %" PRId64 " for its request.timeout.ms (%" PRId64
                 " ms): it closes the connection, and the %" PRId64 " request%s in flight fail%s",
                 from, s->broker, ks_tl_int(j, "timeout_ms", 30000), n, n == 1 ? "" : "s",
                 n == 1 ? "s" : "");
    ks_sb_printf(&s->label, "\xE2\x9C\x95 no answer: connection to broker %" PRId64
                            " closed (%s)",
                 s->broker, ks_tl_str(j, "error", "request timed out"));
}
