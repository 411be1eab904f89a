/*
 * request.c - the request pool (see request.h).
 *
 * Both kinds of slot live in blocks of KS_REQ_BLOCK that are never moved
 * or freed before the pool is; growing doubles the capacity by adding
 * blocks and pushes the new slots on the free list lowest index first, so
 * indices are handed out in the same order as a flat array would.
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
        free(ks_req_entry(p, e)->ids); /* entries still in use at the end */
    for (uint32_t i = 0; i < p->cap; i++) {
        free(ks_req(p, i)->fetched);
        free(ks_req(p, i)->leaders);
    }
    for (uint32_t b = 0; b < p->cap / KS_REQ_BLOCK; b++)
        free(p->req_blocks[b]);
    for (uint32_t b = 0; b < p->entry_cap / KS_REQ_BLOCK; b++)
        free(p->entry_blocks[b]);
    free(p->req_blocks);
    free(p->entry_blocks);
    ks_request_pool_init(p);
}

/* Doubles *cap (to at least `first`) by adding zeroed blocks of `size`
 * bytes per slot to *blocks. Returns false when memory ran out, leaving
 * the pool as it was. */
static bool grow_blocks(void ***blocks, uint32_t *cap, uint32_t first,
                        size_t size)
{
    uint32_t want = *cap ? *cap * 2u : first;
    if (want >= KS_REQ_NONE || want < *cap)
        return false;
    uint32_t have = *cap / KS_REQ_BLOCK, need = want / KS_REQ_BLOCK;
    void **grown = realloc(*blocks, (size_t)need * sizeof *grown);
    if (!grown)
        return false;
    *blocks = grown;
    for (uint32_t b = have; b < need; b++) {
        grown[b] = calloc(KS_REQ_BLOCK, size);
        if (!grown[b]) {
            while (b-- > have)
                free(grown[b]);
            return false;
        }
    }
    *cap = want;
    return true;
}

uint32_t ks_request_add_batch(ks_request_pool *p, uint32_t id, uint32_t *last)
{
    if (p->entry_free == KS_REQ_NONE) {
        uint32_t old = p->entry_cap;
        if (!grow_blocks(&p->entry_blocks, &p->entry_cap,
                         2u * KS_REQ_BLOCK, sizeof(ks_req_batch)))
            return KS_REQ_NONE;
        for (uint32_t i = p->entry_cap; i-- > old;) {
            ks_req_entry(p, i)->next = p->entry_free;
            p->entry_free = i;
        }
    }
    uint32_t eid = p->entry_free;
    ks_req_batch *e = ks_req_entry(p, eid);
    p->entry_free = e->next;
    memset(e, 0, sizeof *e);
    e->next = KS_REQ_NONE;
    e->base_offset = -1;
    ks_request *q = ks_req(p, id);
    if (*last == KS_REQ_NONE)
        q->first = eid;
    else
        ks_req_entry(p, *last)->next = eid;
    *last = eid;
    q->batches++;
    return eid;
}

uint32_t ks_request_alloc(ks_request_pool *p)
{
    if (p->free_head == KS_REQ_NONE) {
        uint32_t old = p->cap;
        if (!grow_blocks(&p->req_blocks, &p->cap, KS_REQ_BLOCK,
                         sizeof(ks_request)))
            return KS_REQ_NONE;
        for (uint32_t i = p->cap; i-- > old;) {
            ks_req(p, i)->next = p->free_head;
            p->free_head = i;
        }
    }
    uint32_t id = p->free_head;
    ks_request *q = ks_req(p, id);
    p->free_head = q->next;
    memset(q, 0, sizeof *q);
    q->next = KS_REQ_NONE;
    q->first = KS_REQ_NONE;
    p->live++;
    return id;
}

uint32_t ks_request_open(ks_request_pool *p, const ks_request_head *h)
{
    uint32_t id = ks_request_alloc(p);
    if (id == KS_REQ_NONE)
        return KS_REQ_NONE;
    ks_request *q = ks_req(p, id);
    q->api = h->api;
    q->version = h->version;
    q->client = h->client;
    q->server = h->server;
    q->client_id = h->client_id;
    q->conn = h->conn;
    q->correlation_id = h->correlation_id;
    q->expects_response = true;
    q->producer_id = -1;
    q->pnext = KS_REQ_NONE;
    return id;
}

void ks_request_release(ks_request_pool *p, uint32_t id)
{
    assert(id < p->cap && p->live > 0);
    ks_request *q = ks_req(p, id);
    for (uint32_t e = q->first; e != KS_REQ_NONE;) {
        ks_req_batch *b = ks_req_entry(p, e);
        uint32_t next = b->next;
        free(b->ids);
        b->ids = NULL;
        b->next = p->entry_free;
        p->entry_free = e;
        e = next;
    }
    free(q->fetched);
    free(q->leaders);
    q->fetched = NULL;
    q->leaders = NULL;
    q->next = p->free_head;
    p->free_head = id;
    p->live--;
}

void ks_request_unref(ks_request_pool *p, uint32_t id)
{
    ks_request *q = ks_req(p, id);
    assert(q->refs > 0);
    if (--q->refs == 0)
        ks_request_release(p, id);
}

void ks_request_trace_client(ks_trace *tr, const ks_nodes *nodes, const ks_request *q)
{
    const char *key = nodes->client_keys ? nodes->client_keys[q->client] : NULL;
    ks_trace_str(tr, key ? key : "client", q->client_id);
}
