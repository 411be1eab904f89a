/*
 * consumer.c - consumers (see consumer.h). Placeholder until the
 * consumer model lands: the world refuses scenarios with consumers.
 */
#include "models/consumer.h"

#include "models/world.h"

bool ks_consumer_init(ks_consumer *c, ks_world *w, uint32_t index)
{
    c->index = index;
    c->conf = &w->sc->consumers[index];
    return true;
}

void ks_consumer_free(ks_consumer *c)
{
    (void)c;
}

void ks_consumer_start(ks_consumer *c, ks_world *w)
{
    (void)c;
    (void)w;
}

void ks_consumer_on_event(ks_consumer *c, ks_world *w, uint32_t tag, uint64_t arg)
{
    (void)c;
    (void)w;
    (void)tag;
    (void)arg;
}

void ks_consumer_crash(ks_consumer *c, ks_world *w, ks_time restart_ns, int32_t forward_to)
{
    (void)c;
    (void)w;
    (void)restart_ns;
    (void)forward_to;
}

void ks_consumer_txn_committed(ks_consumer *c, ks_world *w, const int64_t *offsets)
{
    (void)c;
    (void)w;
    (void)offsets;
}
