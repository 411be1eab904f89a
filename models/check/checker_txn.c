/*
 * checker_txn.c - the delivery checker's transactional verdicts, from the
 * records read (checker.c records the reads, the aborted and zombie
 * records, and the committed transactions): aborted read (Jepsen's G1a),
 * zombie write visible, torn transaction and precommitted read, and per
 * consumer the aborted records it read uncommitted.
 *
 * Run once, by ks_checker_finish, after the batches are judged. Counts
 * the verdicts and the anomalies; lists an anomaly (checker_json.c) while
 * there is room. Never changes what was recorded, except the per consumer
 * counts it computes.
 */
#include "models/check/checker.h"
#include "models/check/checker_internal.h"

#include <stdlib.h>

/* Aborted reads (Jepsen's G1a): records a read_committed consumer read
 * whose writer was told they failed, or whose transaction aborted. Listed
 * in table order, which depends only on the record ids. */
void ks_ck_judge_reads(ks_checker *c)
{
    for (size_t i = 0; i < c->reads.cap; i++) {
        const slot *s = &c->reads.slots[i];
        if (!s->used)
            continue;
        bool zombie = ks_ck_map_find(&c->zombie, 0, s->key) != NULL;
        if (zombie)
            c->count[KS_VERDICT_ZOMBIE_WRITE_VISIBLE]++;
        if (!zombie && !ks_ck_map_find(&c->aborted, 0, s->key))
            continue;
        if (!zombie || ks_ck_map_find(&c->aborted, 0, s->key))
            c->count[KS_VERDICT_ABORTED_READ]++;
        c->anomalies_total++;
        if (json_array_size(c->anomalies) >= KS_CHECK_LIST_MAX)
            continue;
        bool aborted = ks_ck_map_find(&c->aborted, 0, s->key) != NULL;
        ks_ck_list_read(c, s->key, s->producer, aborted, zombie);
    }
}

/* Was `record` read by a read_committed consumer? When first (or -1). */
static ks_time first_read(const ks_checker *c, uint64_t record)
{
    ks_time t = -1;
    for (uint32_t k = 0; k < c->consumers_seen; k++) {
        const slot *s = ks_ck_map_find(&c->reads, k, record);
        if (s && (t < 0 || s->read_ns < t))
            t = s->read_ns;
    }
    return t;
}

/* Committed transactions against what read_committed consumers read:
 * torn (some of its records read, others never, among partitions a
 * consumer reads) and precommitted reads (read before the transaction
 * committed). Only records of partitions some read_committed consumer
 * reads are judged. */
void ks_ck_judge_transactions(ks_checker *c)
{
    if (c->reads.count == 0)
        return;
    for (uint64_t tx = 0; tx < c->ntx; tx++) {
        uint64_t end = tx + 1 < c->ntx ? c->ctx_start[tx + 1] : c->nctx;
        uint64_t seen = 0, unseen = 0, early = 0;
        for (uint64_t k = c->ctx_start[tx]; k < end; k++) {
            if (!c->part_read || c->ctx_parts[k] >= c->partitions || !c->part_read[c->ctx_parts[k]])
                continue;
            ks_time t = first_read(c, c->ctx_ids[k]);
            if (t < 0) {
                unseen++;
                continue;
            }
            seen++;
            if (t < c->ctx_decided[k])
                early++;
        }
        if (seen > 0 && unseen > 0) {
            c->count[KS_VERDICT_TORN_TRANSACTION] += seen + unseen;
            c->anomalies_total++;
            if (json_array_size(c->anomalies) < KS_CHECK_LIST_MAX)
                ks_ck_list_torn(c, tx, seen, unseen);
        }
        if (early > 0) {
            c->count[KS_VERDICT_PRECOMMITTED_READ] += early;
            c->anomalies_total++;
            if (json_array_size(c->anomalies) < KS_CHECK_LIST_MAX)
                ks_ck_list_precommitted(c, tx, early);
        }
    }
}

/* Per consumer, the records of aborted transactions it read
 * uncommitted. */
void ks_ck_count_uncommitted_reads(ks_checker *c)
{
    c->nread_aborted_by = c->consumers_seen;
    c->read_aborted_by = calloc(c->consumers_seen ? c->consumers_seen : 1u,
                                sizeof *c->read_aborted_by);
    if (!c->read_aborted_by) {
        c->out_of_memory = true;
        c->nread_aborted_by = 0;
        return;
    }
    for (size_t i = 0; i < c->ureads.cap; i++) {
        const slot *s = &c->ureads.slots[i];
        if (s->used && s->producer < c->nread_aborted_by &&
            ks_ck_map_find(&c->aborted, 0, s->key))
            c->read_aborted_by[s->producer]++;
    }
}

uint64_t ks_checker_read_aborted(const ks_checker *c, uint32_t consumer)
{
    return c && consumer < c->nread_aborted_by ? c->read_aborted_by[consumer] : 0;
}

