/*
 * replicas.c - a broker's replicas (see replicas.h).
 */
#include "models/broker/replicas.h"

#include <stdlib.h>
#include <string.h>

bool ks_replicas_init(ks_replicas *r, uint32_t partitions, bool logged, uint32_t ps_retain,
                      bool ps_legacy)
{
    memset(r, 0, sizeof *r);
    r->partitions = partitions;
    r->logged = logged;
    r->ps_retain = ps_retain;
    r->ps_legacy = ps_legacy;
    r->of = malloc((partitions ? partitions : 1u) * sizeof *r->of);
    if (!r->of)
        return false;
    memset(r->of, 0xff, partitions * sizeof *r->of);
    return true;
}

void ks_replicas_free(ks_replicas *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        ks_ps_free(&r->rep[i].ps);
        if (r->rep[i].log) {
            ks_plog_free(r->rep[i].log);
            free(r->rep[i].log);
        }
    }
    free(r->rep);
    free(r->of);
    memset(r, 0, sizeof *r);
}

bool ks_replicas_add(ks_replicas *r, uint32_t p)
{
    if (p >= r->partitions || r->of[p] != UINT32_MAX)
        return p < r->partitions;
    if (r->n == r->cap) {
        uint32_t cap = r->cap ? r->cap * 2u : 16u;
        ks_replica *a = realloc(r->rep, cap * sizeof *a);
        if (!a)
            return false;
        r->rep = a;
        r->cap = cap;
    }
    ks_replica *x = &r->rep[r->n];
    memset(x, 0, sizeof *x);
    x->partition = p;
    x->logged = r->logged;
    ks_ps_init(&x->ps, r->ps_retain, r->ps_legacy);
    if (r->logged) {
        x->log = malloc(sizeof *x->log);
        if (!x->log)
            return false;
        ks_plog_init(x->log, true);
    }
    r->of[p] = r->n++;
    return true;
}
