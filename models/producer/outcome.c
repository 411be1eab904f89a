/*
 * outcome.c - what the application is told of each record: its callback
 * with the offset or the exception, the latency it waited, the "ack"
 * trace lines, the metrics window and the observer (see outcome.h).
 */
#include "models/producer/outcome.h"

#include "models/producer/prod.h"

#include <stdlib.h>
#include <string.h>

/* The runs of fields an "ack" line shares with the others of its batch:
 * all but its record, offset and latency. */
typedef struct ack_runs {
    bool kept;
    ks_trace_run head, mid, tail; /* up to "record", to "offset", the rest */
} ack_runs;

/* An "ack" line from kept runs: the fields trace_ack writes between
 * them (keep the two alike). */
static KS_INLINE void ack_from_runs(ks_trace *tr, const ack_runs *k, uint64_t record,
                                    int64_t offset, ks_time latency)
{
    ks_trace_begin_run(tr, KS_TR_ACK, &k->head);
    ks_trace_u64(tr, "record", record);
    ks_trace_put_run(tr, &k->mid);
    ks_trace_i64(tr, "offset", offset);
    ks_trace_i64(tr, "latency_ns", latency);
    ks_trace_put_run(tr, &k->tail);
    ks_trace_end(tr);
}

/* The "ack" line, out of line: untraced runs only test for it. When k
 * is given, the runs of it that the batch's next lines share are kept
 * there (k->kept), for ack_from_runs. */
static KS_TRACE_NOINLINE void trace_ack(ks_producer *p, ks_ctx *cx, uint64_t record,
                                        uint32_t partition, int64_t offset, ks_time latency,
                                        const char *error, ack_runs *k)
{
    ks_trace *tr = cx->trace;
    uint64_t m = ks_trace_mark(tr);
    if (!ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_ACK))
        return;
    ks_trace_str(tr, "producer", p->conf->id);
    bool kept = k && ks_trace_keep(tr, m, &k->head);
    ks_trace_u64(tr, "record", record);
    m = ks_trace_mark(tr);
    ks_trace_str(tr, "topic", ks_prod_topic_name(cx, p));
    ks_trace_i64(tr, "partition", partition == KS_NONE ? -1 : (int64_t)partition);
    kept = kept && ks_trace_keep(tr, m, &k->mid);
    ks_trace_i64(tr, "offset", offset);
    ks_trace_i64(tr, "latency_ns", latency);
    m = ks_trace_mark(tr);
    ks_trace_str(tr, "error", error);
    kept = kept && ks_trace_keep(tr, m, &k->tail);
    ks_trace_end(tr);
    if (k)
        k->kept = kept;
}

/* The "ack" lines of a batch that succeeded, in record order: the first
 * keeps the runs the others share (trace_ack), for a third of the work
 * and the same bytes. */
void ks_prod_outcome_trace_acks(ks_producer *p, ks_ctx *cx, const ks_batch *b, int64_t base_offset)
{
    ks_time now = ks_sim_now(&cx->sim);
    ack_runs k;
    k.kept = false;
    int64_t offset = base_offset;
    for (uint32_t r = b->rec_head; r != KS_NONE; r = p->acc.recs[r].next) {
        const ks_rec *rec = &p->acc.recs[r];
        if (k.kept)
            ack_from_runs(cx->trace, &k, rec->id, offset, now - rec->produced_ns);
        else
            trace_ack(p, cx, rec->id, b->partition, offset, now - rec->produced_ns, "NONE", &k);
        if (offset >= 0)
            offset++;
    }
}

/* The application learns a record's outcome now. */
void ks_prod_outcome_record(ks_producer *p, ks_ctx *cx, uint64_t record, ks_time produced_ns,
                           uint32_t partition, int64_t offset, uint32_t bytes, const char *error)
{
    ks_time now = ks_sim_now(&cx->sim);
    ks_time latency = now - produced_ns;
    ks_bucket *bk = &cx->metrics.cur;
    if (error) {
        p->failed++;
        bk->failed++;
    } else {
        p->acked++;
        bk->acked++;
        bk->bytes += bytes;
    }
    p->last_ack_ns = now;
    if (p->first_count > 0 && record <= p->first_last_id) {
        for (uint32_t k = 0; k < p->first_count; k++)
            if (p->first_ids[k] == record)
                p->first_offsets[k] = error ? KS_OFFSET_FAILED : offset;
    }
    bool metrics = cx->metrics.bucket_ns > 0;
    if (metrics && !p->hist_defer.on) {
        ks_hist_add2(&p->hist[KS_PH_LATENCY], &cx->metrics.latency, latency); /* one bucket */
    } else {
        if (metrics)
            ks_hist_add(&cx->metrics.latency, latency);
        ks_prod_hist_add(p, KS_PH_LATENCY, latency);
    }
    if (cx->trace && ks_trace_on(cx->trace, KS_TR_ACK))
        trace_ack(p, cx, record, partition, offset, latency, error ? error : "NONE", NULL);
}

/* The records of a batch that succeeded, in order: their ids into ids,
 * their bytes into *bytes, and their latencies into the run (metrics
 * and keep fixed by the caller, so that each case is a loop of its own):
 * the producer's histogram's buckets (or, when keep, the values kept for
 * it, ks_prod_hist_add) and, when metrics, the metrics window's too. */
static KS_INLINE uint32_t acked_records(ks_producer *p, ks_ctx *cx, const ks_batch *b,
                                        int64_t base_offset, uint64_t *ids, ks_hist_run *run,
                                        uint64_t *bytes, bool metrics, bool keep)
{
    ks_time now = ks_sim_now(&cx->sim);
    ks_hist *mine = &p->hist[KS_PH_LATENCY];
    uint32_t n = 0;
    for (uint32_t r = b->rec_head; r != KS_NONE; r = p->acc.recs[r].next) {
        const ks_rec *rec = &p->acc.recs[r];
        if (p->first_count > 0 && rec->id <= p->first_last_id) {
            for (uint32_t k = 0; k < p->first_count; k++)
                if (p->first_ids[k] == rec->id)
                    p->first_offsets[k] = base_offset >= 0 ? base_offset + n : -1;
        }
        ids[n++] = rec->id;
        *bytes += rec->bytes;
        ks_time latency = now - rec->produced_ns;
        if (keep)
            ks_prod_hist_add(p, KS_PH_LATENCY, latency);
        if (keep && metrics)
            ks_hist_run_add(&cx->metrics.latency, run, latency);
        else if (metrics)
            ks_hist_run_add2(mine, &cx->metrics.latency, run, latency);
        else if (!keep)
            ks_hist_run_add(mine, run, latency);
    }
    return n;
}

/* ks_prod_outcome_record for each record of a batch that succeeded, when
 * no "ack" line is written: the counters, and the latency histograms'
 * counts, extremes and sums, move once for the batch; each record adds
 * only its latency's bucket (or, with many producers, keeps its latency
 * for the producer's histogram: ks_prod_hist_add). Fills ids with the
 * record ids in order and returns their count. */
uint32_t ks_prod_outcome_acked(ks_producer *p, ks_ctx *cx, const ks_batch *b,
                                  int64_t base_offset, uint64_t *ids)
{
    bool metrics = cx->metrics.bucket_ns > 0, keep = p->hist_defer.on;
    ks_hist_run run = {0};
    uint64_t bytes = 0;
    uint32_t n;
    if (keep)
        n = metrics ? acked_records(p, cx, b, base_offset, ids, &run, &bytes, true, true)
                    : acked_records(p, cx, b, base_offset, ids, &run, &bytes, false, true);
    else
        n = metrics ? acked_records(p, cx, b, base_offset, ids, &run, &bytes, true, false)
                    : acked_records(p, cx, b, base_offset, ids, &run, &bytes, false, false);
    if (!keep)
        ks_hist_run_end(&p->hist[KS_PH_LATENCY], &run);
    if (metrics)
        ks_hist_run_end(&cx->metrics.latency, &run);
    if (n > 0) {
        p->acked += n;
        cx->metrics.cur.acked += n;
        cx->metrics.cur.bytes += bytes;
        p->last_ack_ns = ks_sim_now(&cx->sim);
    }
    return n;
}

/* Room for the record ids of a batch in p->scratch_ids. */
static bool ensure_scratch(ks_producer *p, ks_ctx *cx, uint32_t records)
{
    if (records <= p->scratch_cap)
        return true;
    uint32_t cap = records > 64 ? records : 64;
    uint64_t *ids = realloc(p->scratch_ids, cap * sizeof *ids);
    if (!ids) {
        ks_prod_oom(cx);
        return false;
    }
    p->scratch_ids = ids;
    p->scratch_cap = cap;
    return true;
}

/* Tells the application the outcome of every record of a batch
 * (error NULL: success at base_offset, -1 when unknown), tells the
 * checker, and gives the batch's memory back. */
void ks_prod_outcome_batch(ks_producer *p, ks_ctx *cx, uint32_t bid, int64_t base_offset,
                                 const char *error)
{
    ks_batch *b = ks_acc_batch(&p->acc, bid);
    if (!ensure_scratch(p, cx, b->records))
        return;
    ks_told told = error ? KS_TOLD_FAILED
                         : base_offset >= 0 ? KS_TOLD_ACKED : KS_TOLD_ACKED_NO_OFFSET;
    uint32_t n = 0;
    if (!error) {
        n = ks_prod_outcome_acked(p, cx, b, base_offset, p->scratch_ids);
        if (cx->trace && ks_trace_on(cx->trace, KS_TR_ACK))
            ks_prod_outcome_trace_acks(p, cx, b, base_offset);
    } else {
        for (uint32_t r = b->rec_head; r != KS_NONE; r = p->acc.recs[r].next) {
            const ks_rec *rec = &p->acc.recs[r];
            p->scratch_ids[n++] = rec->id;
            ks_prod_outcome_record(p, cx, rec->id, rec->produced_ns, b->partition, -1,
                                  rec->bytes, error);
        }
    }
    ks_obs_told(cx->obs, p->index, ks_batch_was_sent(b) ? b->id : KS_OBS_NO_BATCH,
                    p->first_partition + b->partition, told, error, base_offset, p->scratch_ids, n);
    ks_acc_release(&p->acc, bid);
}

