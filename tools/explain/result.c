/*
 * result.c - the [RESULT] section that ends `ksim explain`: the partition
 * logs, what each producer was told, each transaction's end, what the
 * consumers read, where the --record record went, and, when
 * DIR/summary.json beside the trace is this run's, what the delivery
 * checker found (its verdicts named as models/check/verdicts.h names them).
 * The state is the trace's last line's, or --to's when reading stopped
 * there; what the summary says is the whole run's, and said to be so.
 *
 * Owns: reading that summary, every field it uses type-checked.
 */
#include "tools/explain/internal.h"

#include "models/check/verdicts.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Checks the type of every summary field [RESULT] reads; te keeps the
 * first of another type. */
static void check_summary(ks_tl_error *te, const json_t *s)
{
    const json_t *d = ks_tl_jget(te, s, "", "delivery", KS_TLT_OBJECT), *a, *r;
    ks_tl_jget(te, d, "delivery", "ok", KS_TLT_BOOL);
    for (int v = 0; v < KS_VERDICT__COUNT; v++)
        if (ks_verdict_info_of((ks_verdict)v)->cls != KS_VC_DERIVED)
            ks_tl_jget(te, d, "delivery", ks_verdict_key((ks_verdict)v), KS_TLT_INT);
    ks_tl_jget(te, d, "delivery", "anomalies_total", KS_TLT_INT);
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
    /* what each consumer read, for a batch-level trace (which has no
     * consume lines) */
    const json_t *cons = ks_tl_jget(te, s, "", "consumers", KS_TLT_OBJECT), *c;
    const char *cid;
    json_object_foreach((json_t *)cons, cid, c) {
        snprintf(at, sizeof at, "consumers.%.40s", cid);
        if (!json_is_object(c))
            ks_tl_jfail(te, "consumers", cid, KS_TLT_OBJECT, c);
        ks_tl_jget(te, c, at, "records", KS_TLT_INT);
    }
}

/* The summary beside the trace (DIR/summary.json) when it is this run's
 * (same scenario and seed) becomes e->summary; one that cannot be read
 * or is another run's is passed over. False (err set) when a field it
 * uses has another type than it should. */
bool ks_ex_load_summary(explain *e, char *err, size_t errlen)
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

/* What the delivery checker found, in the words and order of `ksim run`
 * (models/check/verdicts.h): the transactional counts whenever consumers
 * were checked. */
static void checker_lines(const explain *e, ks_sbuf *out)
{
    const json_t *d = json_object_get(e->summary, "delivery"), *a;
    if (!json_is_object(d))
        return;
    ks_sb_printf(out, "delivery checker%s (%s): %s: ",
                 e->stopped_at_to ? ", over the whole run" : "",
                 e->summary_ran ? "the run's summary" : "summary.json beside the trace",
                 json_is_true(json_object_get(d, "ok")) ? "ok" : "ANOMALIES");
    ks_verdicts_phrases(out, d, true);
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
        ks_ex_log_box_lines(pt, false, &lines);
        ks_ex_log_box_title(pt, title, sizeof title);
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
            ks_ex_draw_box(e->out, title, ks_sb_str(&lines));
        } else {
            ks_sbuf note = {0};
            ks_sb_printf(&note, "RESULT: %s\n%s", title, ks_sb_str(&lines));
            ks_ex_mer_note(e, (lane){'B', pt->leader}, ks_sb_str(&note));
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
        if (!e->record_level) {
            /* no consume lines at this level: the summary's count, if any */
            const json_t *n = json_object_get(
                json_object_get(json_object_get(e->summary, "consumers"), c->id), "records");
            if (json_is_integer(n))
                ks_sb_printf(out, "%s (%s) read %" JSON_INTEGER_FORMAT " record%s%s "
                                  "(summary.json; which ones: a record-level trace)\n",
                             c->id, c->isolation, json_integer_value(n),
                             json_integer_value(n) == 1 ? "" : "s",
                             e->stopped_at_to ? " over the whole run" : "");
            else
                ks_sb_printf(out, "%s (%s): what it read is in a record-level trace only\n",
                             c->id, c->isolation);
            continue;
        }
        ks_sb_printf(out, "%s (%s) read %" PRId64 " record%s%s%s%s\n", c->id, c->isolation,
                     c->records, c->records == 1 ? "" : "s", c->records ? ": " : "",
                     ks_sb_str(&c->read), c->records > TOLD_MAX ? ", \xE2\x80\xA6" : "");
    }
    if (e->o.has_record) {
        char nm[NAME_BUF], to[32];
        ks_ex_fmt_ms(to, sizeof to, e->o.to_ns);
        ks_ex_record_name(e, e->o.record, nm, sizeof nm);
        ks_sb_printf(out, "%s (id %" PRIu64 "): ", nm, e->o.record);
        for (const char *s = ks_sb_str(&e->sel_fate); *s; s++)
            ks_sb_puts(out, *s == '\n' ? "; " : (char[2]){*s, '\0'});
        if (e->sel_fate.len)
            ks_sb_puts(out, "\n");
        else if (e->stopped_at_to)
            ks_sb_printf(out, "not in the trace up to t=%s ms\n", to);
        else
            ks_sb_puts(out, "not in this trace\n");
    }
}

/* "… N more steps", then [RESULT]: the logs, what producers were told,
 * transactions, consumers, and the delivery checker's verdicts. After a
 * read stopped past --to, the state at --to, the summary's figures (the
 * whole run's) said to be so. */
void ks_ex_render_result(explain *e)
{
    char ms[32];
    ks_sbuf lines = {0}, head = {0};
    bool text = !e->o.mermaid;
    if (e->more > 0)
        ks_sb_printf(&head, "\xE2\x80\xA6 %" PRId64 " more step%s (use --from/--to)\n\n", e->more,
                     e->more == 1 ? "" : "s");
    ks_ex_fmt_ms(ms, sizeof ms, e->stopped_at_to ? e->o.to_ns : e->end_t);
    if (e->stopped_at_to)
        ks_sb_printf(&head, "[RESULT] the state at t=%s ms, the end of the window: the trace goes "
                            "on past it", ms);
    else if (e->ended)
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
            ks_ex_mer_note(e, first, more);
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
        ks_ex_mer_note(e, first, ks_sb_str(&lines));
    }
    e->oom = e->oom || lines.oom;
    ks_sb_free(&lines);
}
