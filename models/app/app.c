/*
 * app.c - the application of consume-transform-produce (see app.h).
 */
#include "models/app/app.h"

#include <stdlib.h>

bool ks_app_needed(const ks_scenario *sc, uint32_t i)
{
    if (sc->consumers[i].forward_to >= 0)
        return true;
    for (uint32_t f = 0; f < sc->fault_count; f++)
        if (sc->faults[f].type == KS_FAULT_CRASH_CONSUMER && sc->faults[f].consumer == (int32_t)i &&
            sc->faults[f].forward_to >= 0)
            return true;
    return false;
}

/* A record the consumer processed: its producer writes one for it. */
static void forward(void *app, ks_ctx *cx, int32_t producer, uint64_t record, uint32_t consumer)
{
    ks_app *a = app;
    if (producer >= 0 && (uint32_t)producer < a->nproducers && a->producers[producer])
        ks_producer_forward(a->producers[producer], cx, record, consumer);
}

/* The positions of a poll go into the producer's transaction, which then
 * ends (sendOffsetsToTransaction, commitTransaction). */
static void send_offsets(void *app, ks_ctx *cx, int32_t producer, uint32_t consumer,
                         const uint32_t *parts, const int64_t *offsets, uint32_t n)
{
    ks_app *a = app;
    if (producer < 0 || (uint32_t)producer >= a->nproducers || !a->producers[producer])
        return;
    const ks_consumer_conf *cc = a->consumer->conf;
    ks_producer_send_offsets(a->producers[producer], cx, consumer, cc->group_id, cc->id, parts,
                             offsets, n);
}

/* The producer's transaction holding the consumer's offsets ended. */
static void txn_ended(void *app, ks_ctx *cx, bool committed)
{
    ks_app *a = app;
    if (committed)
        ks_consumer_txn_committed(a->consumer, cx, NULL);
    else
        ks_consumer_txn_aborted(a->consumer, cx);
}

/* Producer i becomes one the application writes with. */
static void adopt(ks_app *a, ks_producer *p, bool ends_transactions)
{
    a->producers[p->index] = p;
    p->app = (ks_prod_app){.app = a, .txn_ended = txn_ended};
    p->tm.app_ends = p->tm.app_ends || ends_transactions;
}

bool ks_app_init(ks_app *a, const ks_scenario *sc, ks_consumer *c, ks_producer *all, uint32_t n)
{
    a->consumer = c;
    a->nproducers = n;
    a->producers = calloc(n ? n : 1u, sizeof *a->producers);
    if (!a->producers)
        return false;
    bool ends = c->conf->commit == KS_COMMIT_TRANSACTION;
    if (c->conf->forward_to >= 0)
        adopt(a, &all[c->conf->forward_to], ends);
    for (uint32_t f = 0; f < sc->fault_count; f++) {
        const ks_fault_conf *fc = &sc->faults[f];
        if (fc->type == KS_FAULT_CRASH_CONSUMER && fc->consumer == (int32_t)c->index &&
            fc->forward_to >= 0)
            adopt(a, &all[fc->forward_to], ends);
    }
    c->app = (ks_cons_app){.app = a, .forward = forward, .send_offsets = send_offsets};
    return true;
}

void ks_app_free(ks_app *a)
{
    free(a->producers);
    a->producers = NULL;
    a->nproducers = 0;
}
