/*
 * checker_delivery.c - the delivery checker's verdicts on a batch, from
 * what its producer was told against the copies the logs hold: lost,
 * duplicate (and its extra copies), nonmonotonic_send, failed_but_present
 * and indeterminate, and the indeterminate records that were never sent
 * (ks_checker_untold).
 *
 * Counts records per verdict and the anomalies; lists an anomaly
 * (checker_json.c) while there is room. Never changes the ledger: the
 * bookkeeping (checker.c) calls here once per batch, settled or open at
 * the end.
 */
#include "models/check/checker.h"
#include "models/check/checker_internal.h"

/* The verdicts on a batch (settled, or open at the end of the run), added
 * to the counts; an anomaly is listed while there is room. */
void ks_ck_judge(ks_checker *c, const entry *e, const uint64_t *ids, uint32_t nids)
{
    unsigned kinds = 0;
    uint64_t r = e->records;
    bool told_ok = e->told == KS_TOLD_ACKED || e->told == KS_TOLD_ACKED_NO_OFFSET;
    if (told_ok && e->ncopies == 0) {
        kinds |= VERDICT_BIT(LOST);
        c->count[KS_VERDICT_LOST] += r;
    }
    if (e->ncopies > 1u) {
        kinds |= VERDICT_BIT(DUPLICATE);
        c->count[KS_VERDICT_DUPLICATE] += r;
        c->count[KS_VERDICT_EXTRA_COPIES] += (uint64_t)(e->ncopies - 1u) * r;
    }
    if (e->overtaken_by) {
        kinds |= VERDICT_BIT(NONMONOTONIC_SEND);
        c->count[KS_VERDICT_NONMONOTONIC_SEND] += r;
    }
    if (e->told == KS_TOLD_FAILED && e->ncopies > 0) {
        kinds |= VERDICT_BIT(FAILED_BUT_PRESENT);
        c->count[KS_VERDICT_FAILED_BUT_PRESENT] += r;
    }
    if (e->told == KS_TOLD_NOTHING) {
        kinds |= VERDICT_BIT(INDETERMINATE);
        c->count[KS_VERDICT_INDETERMINATE] += r;
        c->untold += r;
    }
    if (!kinds)
        return;
    c->anomalies_total++;
    if (json_array_size(c->anomalies) < KS_CHECK_LIST_MAX)
        ks_ck_describe(c, e, kinds, ids, nids);
}

void ks_checker_untold(ks_checker *c, uint32_t producer, uint64_t records)
{
    if (!c || producer >= c->producers || records == 0)
        return;
    c->untold += records;
    c->count[KS_VERDICT_INDETERMINATE] += records;
    c->anomalies_total++;
    if (json_array_size(c->anomalies) >= KS_CHECK_LIST_MAX)
        return;
    ks_ck_describe_untold(c, producer, records);
}
