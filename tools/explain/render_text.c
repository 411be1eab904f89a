/*
 * render_text.c - a step of `ksim explain` as text, the way the
 * delivery-guarantee notes draw it: "[STEP n] t=... ms  description",
 * then the participants and the arrow between them (or one participant
 * and lines on its lifeline), the notes, and the boxes of the partition
 * logs, the broker's producer state and the transaction log the step
 * changed; and the one line per step of --brief.
 *
 * Owns: the box contents the Mermaid renderer and [RESULT] reuse, and
 * widths: a UTF-8 string takes one column per code point. Never changes
 * the model.
 */
#include "tools/explain/internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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
void ks_ex_draw_box(FILE *f, const char *title, const char *lines)
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
void ks_ex_log_box_lines(const partition *pt, bool fresh, ks_sbuf *out)
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

/* "Broker 0 (Partition P0)", or "Partition P0" while its leader is unknown. */
void ks_ex_log_box_title(const partition *pt, char *buf, size_t n)
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

/* The lines of the transaction log box of an SK_TXN step: the mapping,
 * the state (and the one before), partitions, the timer started. */
void ks_ex_txn_box_lines(const explain *e, const step *s, ks_sbuf *out)
{
    const txn *x = &e->txns[s->txn];
    ks_sb_printf(out, "%s \xE2\x86\x94 PID %" PRId64 ", epoch %" PRId64 "\n", x->tid, x->pid,
                 x->epoch);
    ks_sb_printf(out, "state : %s", x->state);
    if (strcmp(s->txn_from, x->state) != 0)
        ks_sb_printf(out, "  (was %s)", s->txn_from);
    if (x->partitions > 0)
        ks_sb_printf(out, "\npartitions : %" PRId64, x->partitions);
    if (ks_ex_txn_state_is(x->state, KS_TXN_ONGOING) &&
        !ks_ex_txn_state_is(s->txn_from, KS_TXN_ONGOING)) {
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
bool ks_ex_box_wanted(const explain *e, size_t part)
{
    if (e->filter_part != NONE)
        return part == e->filter_part;
    return !e->o.by_record || e->sel_part == NONE || part == e->sel_part;
}

/* The boxes that follow a step: the logs and producer state it changed, or
 * the transaction log it wrote. */
static void draw_boxes(explain *e, const step *s)
{
    FILE *f = e->out;
    ks_sbuf lines = {0};
    char title[NAME_BUF];
    if (s->kind == SK_TXN) {
        ks_ex_txn_box_lines(e, s, &lines);
        snprintf(title, sizeof title, "Coordinator (broker %" PRId64 "): transaction log",
                 e->txns[s->txn].coordinator);
        ks_ex_draw_box(f, title, ks_sb_str(&lines));
    }
    for (size_t i = 0; i < s->ntouched; i++) {
        const partition *pt = &e->parts[s->touched[i]];
        if (!ks_ex_box_wanted(e, s->touched[i]))
            continue;
        if (pt->log_touched) {
            ks_sb_clear(&lines);
            ks_ex_log_box_lines(pt, true, &lines);
            ks_ex_log_box_title(pt, title, sizeof title);
            ks_ex_draw_box(f, title, ks_sb_str(&lines));
        }
        if (pt->pids_touched)
            draw_pid_table(f, pt);
    }
    e->oom = e->oom || lines.oom;
    ks_sb_free(&lines);
}

/* [STEP n], its description, its diagram, its notes and its boxes. */
void ks_ex_render_text(explain *e, const step *s)
{
    FILE *f = e->out;
    char ms[32], a[128], b[128];
    ks_ex_fmt_ms(ms, sizeof ms, s->t);
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

/* --brief: the step's line alone. */
void ks_ex_render_brief(explain *e, const step *s)
{
    char ms[32];
    ks_ex_fmt_ms(ms, sizeof ms, s->t);
    fprintf(e->out, "[STEP %" PRId64 "] t=%s ms  %s\n", e->shown, ms, ks_sb_str(&s->desc));
}
