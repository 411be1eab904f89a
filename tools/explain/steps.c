/*
 * steps.c - the steps of `ksim explain`: the lines of one moment and one
 * participant make one numbered step, built in e->cur by the handlers and
 * drawn when the next step begins (if it passes --from/--to, --record,
 * --partition and the step budget).
 *
 * Owns: beginning, joining and flushing steps (a flushed step is drawn by
 * render_text.c or render_mermaid.c), and the partitions and records a
 * step is about. The texts the handlers share are texts.c's, the dispatch
 * of a line to its kind's handler dispatch.c's. Never: reads a trace line.
 */
#include "tools/explain/internal.h"

#include <stdlib.h>

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
