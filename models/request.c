/*
 * request.c - the request pool (see request.h).
 */
#include "models/request.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void ks_request_pool_init(ks_request_pool *p)
{
    memset(p, 0, sizeof *p);
    p->free_head = KS_REQ_NONE;
}

void ks_request_pool_free(ks_request_pool *p)
{
    free(p->reqs);
    ks_request_pool_init(p);
}

uint32_t ks_request_alloc(ks_request_pool *p)
{
    if (p->free_head == KS_REQ_NONE) {
        uint32_t cap = p->cap ? p->cap * 2u : 64u;
        if (cap >= KS_REQ_NONE)
            return KS_REQ_NONE;
        ks_request *r = realloc(p->reqs, (size_t)cap * sizeof *r);
        if (!r)
            return KS_REQ_NONE;
        for (uint32_t i = cap; i-- > p->cap;) {
            r[i].next = p->free_head;
            p->free_head = i;
        }
        p->reqs = r;
        p->cap = cap;
    }
    uint32_t id = p->free_head;
    p->free_head = p->reqs[id].next;
    memset(&p->reqs[id], 0, sizeof p->reqs[id]);
    p->reqs[id].next = KS_REQ_NONE;
    p->reqs[id].base_offset = -1;
    p->live++;
    return id;
}

void ks_request_release(ks_request_pool *p, uint32_t id)
{
    assert(id < p->cap && p->live > 0);
    p->reqs[id].next = p->free_head;
    p->free_head = id;
    p->live--;
}
