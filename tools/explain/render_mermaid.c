/*
 * render_mermaid.c - a step of `ksim explain` as Mermaid
 * (`--format mermaid`): a comment with its description, its message or
 * note, its boxes as notes over the partition's leader; the body is kept
 * in e->mer and written after the participants that it used, which are
 * known only at the end.
 */
#include "tools/explain/internal.h"

#include "tools/status.h"

#include <inttypes.h>
#include <string.h>

#define MERMAID_MAX_TEXT 50000u

/* A participant as a key of e->used. */
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
    if (!ks_u64map_get(&e->used, lane_key(l)) && !ks_u64map_put(&e->used, lane_key(l), e))
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

/* A Mermaid note over participant l (declared as used), its first line
 * `tag` unless NULL. */
static void mer_note(explain *e, lane l, const char *tag, const char *text)
{
    char id[32];
    lane_id(e, l, id, sizeof id);
    ks_sb_printf(&e->mer, "    Note over %s: ", id);
    if (tag)
        ks_sb_printf(&e->mer, "%s<br/>", tag);
    mer_text(&e->mer, text);
    ks_sb_puts(&e->mer, "\n");
}

void ks_ex_mer_note(explain *e, lane l, const char *text)
{
    mer_note(e, l, NULL, text);
}

/* The partition boxes of a step as notes over the partition's leader;
 * the first says the step's number and time (*tag, then NULL) if nothing
 * before it did. */
static void mer_boxes(explain *e, const step *s, const char **tag)
{
    ks_sbuf text = {0};
    for (size_t i = 0; i < s->ntouched; i++) {
        const partition *pt = &e->parts[s->touched[i]];
        lane l = {'B', pt->leader};
        if (!ks_ex_box_wanted(e, s->touched[i]))
            continue;
        if (pt->log_touched) {
            ks_sb_clear(&text);
            ks_sb_printf(&text, "%s log\n", pt->label);
            ks_ex_log_box_lines(pt, true, &text);
            mer_note(e, l, *tag, ks_sb_str(&text));
            *tag = NULL;
        }
        for (size_t k = 0; pt->pids_touched && k < pt->npids; k++) {
            const pid_row *r = &pt->pids[k];
            if (r->flag == ROW_SAME)
                continue;
            ks_sb_clear(&text);
            ks_sb_printf(&text, "producer state: PID %" PRId64 ", %s, last sequence %" PRId64 "%s",
                         r->pid, pt->label, r->last_seq,
                         r->flag == ROW_DUPLICATE ? " (a duplicate: already processed)" : "");
            mer_note(e, l, *tag, ks_sb_str(&text));
            *tag = NULL;
        }
    }
    e->oom = e->oom || text.oom;
    ks_sb_free(&text);
}

/* The step as Mermaid: a comment with its description, then its message
 * or note, then its boxes as notes. The first of them begins with the
 * step's number and time, "[5] t=1111.015 ms", as the text output's
 * [STEP 5] does. */
void ks_ex_render_mermaid(explain *e, const step *s)
{
    char ms[32], a[32], b[32], tagbuf[64];
    ks_ex_fmt_ms(ms, sizeof ms, s->t);
    ks_sb_printf(&e->mer, "    %%%% [STEP %" PRId64 "] t=%s ms  %s\n", e->shown, ms,
                 ks_sb_str(&s->desc));
    snprintf(tagbuf, sizeof tagbuf, "[%" PRId64 "] t=%s ms", e->shown, ms);
    const char *tag = tagbuf;
    const char *label = s->mlabel.len ? ks_sb_str(&s->mlabel) : ks_sb_str(&s->label);
    static const char *const arrows[] = {"", "", "->>", "-->>", "-x", "--x"};
    if (s->kind == SK_TXN || s->style == MS_NOTE) {
        ks_sbuf text = {0};
        if (s->kind == SK_TXN) {
            ks_sb_puts(&text, "transaction log\n");
            ks_ex_txn_box_lines(e, s, &text);
        } else {
            ks_sb_puts(&text, label);
        }
        if (s->notes.len)
            ks_sb_printf(&text, "%s%s", text.len ? "\n" : "", ks_sb_str(&s->notes));
        mer_note(e, s->from, tag, text.len ? ks_sb_str(&text) : ks_sb_str(&s->desc));
        tag = NULL;
        ks_sb_free(&text);
    } else if (s->style != MS_NONE) {
        lane_id(e, s->from, a, sizeof a);
        lane_id(e, s->to, b, sizeof b);
        ks_sb_printf(&e->mer, "    %s%s%s: %s ", a, arrows[s->style], b, tag);
        tag = NULL;
        mer_text(&e->mer, label);
        if (s->after.len)
            ks_sb_printf(&e->mer, " %s", ks_sb_str(&s->after));
        ks_sb_puts(&e->mer, "\n");
        if (s->notes.len)
            ks_ex_mer_note(e, s->to.kind == 'P' ? s->to : s->from, ks_sb_str(&s->notes));
    } else if (s->notes.len || s->kind != SK_APPEND) {
        /* a plain append says it with its log note */
        mer_note(e,
                 s->from.kind ? s->from
                 : e->nprods  ? (lane){'P', 0}
                              : (lane){'B', 0},
                 tag, s->notes.len ? ks_sb_str(&s->notes) : ks_sb_str(&s->desc));
        tag = NULL;
    }
    mer_boxes(e, s, &tag);
}

/* Mermaid: the participants used, in the order producer, broker,
 * coordinator, consumer, then the steps. */
void ks_ex_write_mermaid(explain *e, const ks_sbuf *intro)
{
    FILE *f = e->out;
    fputs("sequenceDiagram\n", f);
    for (const char *p = ks_sb_str(intro); *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "    %%%% %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    for (size_t i = 0; i < e->nprods; i++)
        if (ks_u64map_get(&e->used, lane_key((lane){'P', (int64_t)i})))
            fprintf(f, "    participant prod%zu as Producer %s\n", i, e->prods[i].id);
    for (int64_t b = -1; b <= e->max_broker; b++)
        if (ks_u64map_get(&e->used, lane_key((lane){'B', b})))
            fprintf(f, b < 0 ? "    participant brkx as Broker\n"
                             : "    participant brk%" PRId64 " as Broker %" PRId64 "\n", b, b);
    for (int64_t b = -1; b <= e->max_broker; b++)
        if (ks_u64map_get(&e->used, lane_key((lane){'C', b})))
            fprintf(f, b < 0 ? "    participant coordx as Coordinator\n"
                             : "    participant coord%" PRId64 " as Coordinator (broker %" PRId64
                               ")\n", b, b);
    for (size_t i = 0; i < e->ncons; i++)
        if (ks_u64map_get(&e->used, lane_key((lane){'K', (int64_t)i})))
            fprintf(f, "    participant cons%zu as Consumer %s\n", i, e->cons[i].id);
    fputs(ks_sb_str(&e->mer), f);
    /* Mermaid refuses a diagram past its maxTextSize, 50 000 characters by
     * default ("Maximum text size in diagram exceeded") */
    size_t size = e->mer.len + intro->len + 64 * (e->nprods + e->ncons + 8);
    if (size > MERMAID_MAX_TEXT)
        ks_status_warn("explain", "%s: the diagram is about %zu characters, past Mermaid's "
                                  "default maxTextSize (%u), which refuses to draw it: show fewer "
                                  "steps with --max-steps N, or a window (--from/--to, --record, "
                                  "--partition)", e->o.trace, size, MERMAID_MAX_TEXT);
}
