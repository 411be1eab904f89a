/*
 * consumer.c - the consumers as `ksim explain` draws them: the records a
 * poll() returns, committed offsets moving (by commitSync or with a
 * transaction), and records a producer writes for records a consumer read
 * (consume-transform-produce), which their names then say.
 */
#include "tools/explain/internal.h"

#include <inttypes.h>
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

/* The group's committed offset of a partition moves: by commitSync, or
 * with the transaction the offsets were sent to. A restarted consumer
 * starts there. */
void ks_ex_on_offset_commit(explain *e, ks_tline *j, int64_t t)
{
    size_t ci = ks_ex_cons_of(e, ks_tl_str(j, "consumer", NULL));
    size_t part = ks_ex_part_of(e, ks_tl_str(j, "topic", NULL), ks_tl_int(j, "partition", -1));
    int64_t offset = ks_tl_int(j, "offset", -1);
    const char *how = ks_tl_str(j, "commit", ""), *group = ks_tl_str_or_null(j, "group");
    bool in_txn = strcmp(how, "transaction") == 0;
    ks_ex_step_begin(e, SK_NOTE, t, NONE);
    step *s = &e->cur;
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
