/*
 * texts.c - the texts of `ksim explain` that the handlers and the drawings
 * share: times, the record names a step lists, partition and batch labels,
 * offsets, ACK labels, fault types, the lanes of an API's messages, and the
 * trace's names of APIs, errors and coordinator states.
 *
 * Owns: turning the shadow model (state.c) into words. Never: changes the
 * model or the step being built, beyond the list of names it is given.
 */
#include "tools/explain/internal.h"
#include "tools/numfmt.h"

#include <inttypes.h>
#include <string.h>

/* Formats virtual time in nanoseconds as milliseconds with three decimals. */
void ks_ex_fmt_ms(char *buf, size_t n, int64_t ns)
{
    ks_fmt_ms(buf, n, ns); /* as run and report write it (tools/numfmt.h) */
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

/* The lane of a broker's own message on one side: WriteTxnMarkers goes
 * from the coordinator to a leader, AddPartitionsToTxn (a leader verifying
 * a transaction) from a leader to the coordinator, another API from
 * broker to broker. `broker` is that side's. */
lane ks_ex_broker_lane(const char *api, int64_t broker, bool client_side)
{
    if (!api[0] || ks_ex_api_is(api, KS_API_WRITE_TXN_MARKERS))
        return (lane){client_side ? 'C' : 'B', broker};
    if (ks_ex_api_is(api, KS_API_ADD_PARTITIONS_TO_TXN))
        return (lane){client_side ? 'B' : 'C', broker};
    return (lane){'B', broker};
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
