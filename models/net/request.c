/*
 * request.c - the request pool (see request.h).
 */
#include "models/net/request.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void ks_request_pool_init(ks_request_pool *p)
{
    memset(p, 0, sizeof *p);
    p->free_head = KS_REQ_NONE;
    p->entry_free = KS_REQ_NONE;
}

void ks_request_pool_free(ks_request_pool *p)
{
    for (uint32_t e = 0; e < p->entry_cap; e++)
        free(p->entries[e].ids); /* entries still in use at the end */
    for (uint32_t i = 0; i < p->cap; i++) {
        free(p->reqs[i].fetched);
        free(p->reqs[i].leaders);
    }
    free(p->reqs);
    free(p->entries);
    ks_request_pool_init(p);
}

uint32_t ks_request_add_batch(ks_request_pool *p, uint32_t id, uint32_t *last)
{
    if (p->entry_free == KS_REQ_NONE) {
        uint32_t cap = p->entry_cap ? p->entry_cap * 2u : 128u;
        if (cap >= KS_REQ_NONE)
            return KS_REQ_NONE;
        ks_req_batch *e = realloc(p->entries, (size_t)cap * sizeof *e);
        if (!e)
            return KS_REQ_NONE;
        for (uint32_t i = cap; i-- > p->entry_cap;) {
            e[i].ids = NULL;
            e[i].next = p->entry_free;
            p->entry_free = i;
        }
        p->entries = e;
        p->entry_cap = cap;
    }
    uint32_t eid = p->entry_free;
    p->entry_free = p->entries[eid].next;
    memset(&p->entries[eid], 0, sizeof p->entries[eid]);
    p->entries[eid].next = KS_REQ_NONE;
    p->entries[eid].base_offset = -1;
    ks_request *q = &p->reqs[id];
    if (*last == KS_REQ_NONE)
        q->first = eid;
    else
        p->entries[*last].next = eid;
    *last = eid;
    q->batches++;
    return eid;
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
            r[i].fetched = NULL;
            r[i].leaders = NULL;
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
    p->reqs[id].first = KS_REQ_NONE;
    p->live++;
    return id;
}

void ks_request_release(ks_request_pool *p, uint32_t id)
{
    assert(id < p->cap && p->live > 0);
    for (uint32_t e = p->reqs[id].first; e != KS_REQ_NONE;) {
        uint32_t next = p->entries[e].next;
        free(p->entries[e].ids);
        p->entries[e].ids = NULL;
        p->entries[e].next = p->entry_free;
        p->entry_free = e;
        e = next;
    }
    free(p->reqs[id].fetched);
    free(p->reqs[id].leaders);
    p->reqs[id].fetched = NULL;
    p->reqs[id].leaders = NULL;
    p->reqs[id].next = p->free_head;
    p->free_head = id;
    p->live--;
}

void ks_request_unref(ks_request_pool *p, uint32_t id)
{
    ks_request *q = &p->reqs[id];
    assert(q->refs > 0);
    if (--q->refs == 0)
        ks_request_release(p, id);
}
