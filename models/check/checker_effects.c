/*
 * checker_effects.c - the delivery checker's end-to-end verdict on
 * consume-transform-produce: a record read, processed and written again
 * is processed twice when one consumer reads two different records
 * written for it (checker.c records which record each was written for,
 * and every read of one).
 *
 * Run once, by ks_checker_finish. Counts the verdict and the anomalies;
 * lists an anomaly (checker_json.c) while there is room. Sorts the reads
 * it judges, and changes nothing else.
 */
#include "models/check/checker.h"
#include "models/check/checker_internal.h"

#include <stdlib.h>

static int effect_cmp(const void *a, const void *b)
{
    const effect_read *x = a, *y = b;
    if (x->source != y->source)
        return x->source < y->source ? -1 : 1;
    if (x->consumer != y->consumer)
        return x->consumer < y->consumer ? -1 : 1;
    return x->output < y->output ? -1 : x->output > y->output;
}

/* Consume-transform-produce, end to end: a record read, processed and
 * written again is processed twice when one consumer reads two different
 * records written for it (records of aborted transactions left out: a
 * read_uncommitted consumer sees those, and reading one read_committed is
 * an aborted read already). Counted once per record read; listed per
 * consumer. */
void ks_ck_judge_effects(ks_checker *c)
{
    if (c->neffects == 0)
        return;
    qsort(c->effects, (size_t)c->neffects, sizeof *c->effects, effect_cmp);
    uint64_t counted = UINT64_MAX;
    for (uint64_t i = 0; i < c->neffects;) {
        /* the group of (source, consumer), its outputs in increasing order */
        uint64_t j = i, outs[2] = {0, 0}, distinct = 0, last = 0;
        for (; j < c->neffects && c->effects[j].source == c->effects[i].source &&
               c->effects[j].consumer == c->effects[i].consumer;
             j++) {
            uint64_t o = c->effects[j].output;
            if ((distinct > 0 && o == last) || ks_ck_map_find(&c->aborted, 0, o))
                continue;
            if (distinct < 2)
                outs[distinct] = o;
            distinct++;
            last = o;
        }
        const effect_read *g = &c->effects[i];
        i = j;
        if (distinct < 2)
            continue;
        if (counted != g->source)
            c->count[KS_VERDICT_PROCESSED_TWICE]++;
        counted = g->source;
        c->anomalies_total++;
        if (json_array_size(c->anomalies) >= KS_CHECK_LIST_MAX)
            continue;
        ks_ck_list_twice(c, g, outs, distinct);
    }
}
