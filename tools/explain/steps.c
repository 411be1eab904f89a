/*
 * steps.c - the steps of `ksim explain`: the lines of one moment and one
 * participant make one numbered step, built in e->cur by the handlers and
 * drawn when the next step begins (if it passes --from/--to, --record,
 * --partition and the step budget).
 *
 * Owns: beginning, joining and flushing steps, the partitions and records
 * a step is about, the texts the handlers share (record lists, offsets,
 * ACK labels, times), and the dispatch of a line to its kind's handler.
 */
#include "tools/explain/internal.h"
#include "tools/numfmt.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Formats virtual time in nanoseconds as milliseconds with three decimals. */
void ks_ex_fmt_ms(char *buf, size_t n, int64_t ns)
{
    ks_fmt_ms(buf, n, ns); /* as run and report write it (tools/numfmt.h) */
}

static bool in_window(const explain *e, int64_t t)
{
    return (!e->o.has_from || t >= e->o.from_ns) && (!e->o.has_to || t <= e->o.to_ns);
}

/* Whether step s (being built) may be drawn: one outside the window, or
 * past the step budget, never is, so the builders of its text (called
 * for every record) need not run. */
bool ks_ex_step_drawn(const explain *e, const step *s)
{
    return in_window(e, s->t) && (e->o.max_steps == 0 || e->shown < e->o.max_steps);
}

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

/* Draws step s in the format asked for. */
static void render(explain *e, const step *s)
{
    if (e->o.mermaid)
        ks_ex_render_mermaid(e, s);
    else if (e->o.brief)
        ks_ex_render_brief(e, s);
    else
        ks_ex_render_text(e, s);
}

/* Draws the step being built if it passes the filters and the step budget
 * allows (else counts it), then clears the marks it left on partitions. */
void ks_ex_step_flush(explain *e)
{
    step *s = &e->cur;
    if (s->kind == SK_NONE)
        return;
    bool pass = in_window(e, s->t) && (e->filter_part == NONE || s->about_part) &&
                (!e->o.by_record || s->about_record);
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
    ks_ex_step_reset(s);
}

/* Flushes the step being built and begins a step of kind k at t, of
 * producer prod (NONE: of none). */
void ks_ex_step_begin(explain *e, skind k, int64_t t, size_t prod)
{
    ks_ex_step_flush(e);
    e->cur.kind = k;
    e->cur.t = t;
    e->cur.producer = prod;
}

/* Is the step being built of kind k, at t, of producer prod? */
bool ks_ex_step_is(const explain *e, skind k, int64_t t, size_t prod)
{
    return e->cur.kind == k && e->cur.t == t && e->cur.producer == prod;
}

/* The step is about partition `part`: its boxes may follow the step, and
 * --partition keeps it. */
void ks_ex_step_touch(explain *e, size_t part)
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

/* Adds a record (or batch) name to the step: the first LIST_NAMES are
 * listed, the others counted. */
void ks_ex_step_add_name(step *s, const char *name)
{
    if (s->nnames < LIST_NAMES) {
        ks_sb_puts(&s->names, s->nnames ? ", " : "");
        ks_sb_puts(&s->names, name);
    }
    s->nnames++;
}

/* The names the step is about: "record A, record B, +3 more". */
void ks_ex_names_text(const step *s, char *buf, size_t n)
{
    if (s->nnames > LIST_NAMES)
        snprintf(buf, n, "%s, +%zu more", ks_sb_str(&s->names), s->nnames - LIST_NAMES);
    else
        ks_ex_put_str(buf, n, 0, ks_sb_str(&s->names));
}

/* "P0" (one topic) or "events-0"; "?" for NONE. */
const char *ks_ex_part_label(const explain *e, size_t part)
{
    return part == NONE ? "?" : e->parts[part].label;
}

/* The name of a batch in a batch-level trace, or of one whose records are
 * not known. */
void ks_ex_batch_text(const explain *e, const batch *b, char *buf, size_t n)
{
    snprintf(buf, n, "batch %" PRId64 " of %s (%" PRId64 " record%s)", b->id,
             e->prods[b->producer].id, b->records, b->records == 1 ? "" : "s");
}

/* Adds a batch's records to the step's names (or the batch itself when its
 * records are not known). */
void ks_ex_step_add_batch(explain *e, const batch *b)
{
    char nm[NAME_BUF];
    if (b->nrecs == 0 || (int64_t)b->nrecs < b->records) {
        ks_ex_batch_text(e, b, nm, sizeof nm);
        ks_ex_step_add_name(&e->cur, nm);
        return;
    }
    for (size_t i = 0; i < b->nrecs; i++) {
        ks_ex_record_name(e, b->recs[i], nm, sizeof nm);
        ks_ex_step_add_name(&e->cur, nm);
    }
}

/* The type of the scenario's fault i ("drop.response"), "fault" when
 * the header did not list it. */
const char *ks_ex_fault_type(const explain *e, int64_t i)
{
    return i >= 0 && (size_t)i < e->nfaults ? e->fault_types[i] : "fault";
}

/* "record A" or "record 3, record 4, +2 more" or "batch 0 of p1 (3 records)". */
void ks_ex_batch_names(const explain *e, const batch *b, char *buf, size_t n)
{
    if (!b || b->nrecs == 0 || (int64_t)b->nrecs < b->records) {
        if (b)
            ks_ex_batch_text(e, b, buf, n);
        else
            snprintf(buf, n, "the batch");
        return;
    }
    step tmp = {0};
    char nm[NAME_BUF];
    for (size_t i = 0; i < b->nrecs; i++) {
        if (tmp.nnames < LIST_NAMES) /* the others are only counted */
            ks_ex_record_name(e, b->recs[i], nm, sizeof nm);
        ks_ex_step_add_name(&tmp, nm);
    }
    ks_ex_names_text(&tmp, buf, n);
    ks_sb_free(&tmp.names);
}

/* "offset 3", or "offsets 3-5" for several records. */
void ks_ex_offsets_text(char *buf, size_t n, int64_t offset, int64_t records)
{
    if (records > 1)
        snprintf(buf, n, "offsets %" PRId64 "-%" PRId64, offset, offset + records - 1);
    else
        snprintf(buf, n, "offset %" PRId64, offset);
}

/* Is name the trace's name of API a ("FindCoordinator")? */
bool ks_ex_api_is(const char *name, ks_api a)
{
    return strcmp(name, ks_api_name(a)) == 0;
}

/* Is error the name of no error, Kafka's NONE? */
bool ks_ex_no_error(const char *error)
{
    return strcmp(error, ks_kerr_name(KS_KERR_NONE)) == 0;
}

/* Is name the trace's name of the coordinator's state s ("Ongoing")? */
bool ks_ex_txn_state_is(const char *name, ks_txn_state s)
{
    return strcmp(name, ks_txn_state_name(s)) == 0;
}

/* The lane an API's messages use on the broker's side: the coordinator
 * for a transactional producer's transactional requests. */
lane ks_ex_api_lane(const explain *e, size_t p, const char *api, int64_t broker)
{
    bool coord = p != NONE && e->prods[p].tid && api[0] &&
                 !ks_ex_api_is(api, KS_API_FIND_COORDINATOR);
    return (lane){coord ? 'C' : 'B', broker};
}

/* "ACK(offset 0)", "ACK(offsets 0-2)", "ACK(3 batches)", or the error. */
void ks_ex_ack_label(const explain *e, const request *q, const char *error, char *buf, size_t n)
{
    if (error && !ks_ex_no_error(error)) {
        snprintf(buf, n, "%s", error);
        return;
    }
    const batch *b = q && q->n == 1 ? ks_ex_batch_get(e, q->producer, q->batches[0]) : NULL;
    if (b && b->last_request == q->id && b->last_offset >= 0 &&
        (!b->last_result[0] || strcmp(b->last_result, DUPLICATE_RESULT) == 0)) {
        char offs[64];
        ks_ex_offsets_text(offs, sizeof offs, b->last_offset, b->records);
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
void ks_ex_touch_request(explain *e, const request *q)
{
    for (size_t i = 0; q && i < q->n; i++) {
        const batch *b = ks_ex_batch_get(e, q->producer, q->batches[i]);
        if (b) {
            ks_ex_step_touch(e, b->part);
            e->cur.part = i == 0 || e->cur.part == b->part ? b->part : NONE;
        }
    }
    e->cur.about_record = e->cur.about_record || (q && q->selected);
}

/* True if a line of producer p at t belongs to the step being built. */
bool ks_ex_joins_producer_step(const explain *e, int64_t t, size_t p)
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

/* The end line: the step before is drawn, and [RESULT] will say how the
 * run ended. */
static void on_end(explain *e, ks_tline *j, int64_t t)
{
    ks_ex_step_flush(e);
    e->ended = true;
    e->end_t = t;
    ks_ex_copy_str(e->verdict, sizeof e->verdict, ks_tl_str(j, "verdict", ""));
}

/* A request fault waits for its send line: is this line that one? */
static bool is_pending_send(explain *e, ks_tline *j)
{
    return j->kind == KS_TR_SEND &&
           ks_ex_prod_of(e, ks_tl_str(j, "producer", NULL)) == e->pf.producer &&
           ks_tl_int(j, "request", -1) == e->pf.request &&
           strcmp(ks_tl_str(j, "api", ""), e->pf.api) == 0;
}

/* The handler of a kind; NULL for the kinds explain does not draw (or
 * does not know, which the format asks readers to skip). */
static void (*handler_of(ks_trace_kind k))(explain *e, ks_tline *j, int64_t t)
{
    switch (k) {
    case KS_TR_PRODUCE: return ks_ex_on_produce;
    case KS_TR_DRAIN: return ks_ex_on_drain;
    case KS_TR_SEND: return ks_ex_on_send;
    case KS_TR_APPEND: return ks_ex_on_append;
    case KS_TR_FAULT: return ks_ex_on_fault;
    case KS_TR_RESPONSE: return ks_ex_on_response;
    case KS_TR_ACK: return ks_ex_on_ack;
    case KS_TR_RETRY: return ks_ex_on_retry;
    case KS_TR_SPLIT: return ks_ex_on_split;
    case KS_TR_PRODUCER: return ks_ex_on_producer;
    case KS_TR_TXN: return ks_ex_on_txn;
    case KS_TR_MARKER: return ks_ex_on_marker;
    case KS_TR_CONSUME: return ks_ex_on_consume;
    case KS_TR_OFFSET_COMMIT: return ks_ex_on_offset_commit;
    case KS_TR_FORWARD: return ks_ex_on_forward;
    case KS_TR_ADMIN: return ks_ex_on_admin;
    case KS_TR_METADATA: return ks_ex_on_metadata;
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
void ks_ex_handle_line(explain *e, ks_tline *j)
{
    if (j->kind == KS_TR_METRICS || j->kind == KS_TR_ARRIVE || j->kind == KS_TR_EVENT)
        return;
    if (e->pf.on && !is_pending_send(e, j))
        ks_ex_flush_pending_fault(e);
    void (*fn)(explain *e, ks_tline *j, int64_t t) = handler_of(j->kind);
    if (fn)
        fn(e, j, j->t);
}
