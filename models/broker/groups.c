/*
 * groups.c - group coordinators and the offsets they keep (see groups.h).
 */
#include "models/broker/groups.h"

#include "models/trace_kinds.h"
#include "sim/str.h"

#include <stdlib.h>
#include <string.h>

void ks_groups_init(ks_groups *g, uint32_t broker, const ks_meta *meta)
{
    memset(g, 0, sizeof *g);
    g->broker = broker;
    g->meta = meta;
}

void ks_groups_free(ks_groups *g)
{
    for (uint32_t i = 0; i < g->count; i++) {
        free(g->groups[i].group_id);
        free(g->groups[i].parts);
        free(g->groups[i].committed);
        free(g->groups[i].pending);
    }
    free(g->groups);
    g->groups = NULL;
    g->count = g->cap = 0;
}

/* The group, created on first use; NULL when out of memory. */
static ks_group *group_of(ks_groups *g, const char *id)
{
    for (uint32_t i = 0; i < g->count; i++)
        if (strcmp(g->groups[i].group_id, id) == 0)
            return &g->groups[i];
    if (g->count == g->cap) {
        uint32_t cap = g->cap ? g->cap * 2u : 4u;
        ks_group *a = realloc(g->groups, cap * sizeof *a);
        if (!a)
            return NULL;
        g->groups = a;
        g->cap = cap;
    }
    ks_group *gr = &g->groups[g->count];
    memset(gr, 0, sizeof *gr);
    if (!(gr->group_id = ks_strdup(id)))
        return NULL;
    gr->offsets_partition = ks_meta_offsets_partition(g->meta, id);
    g->count++;
    return gr;
}

/* The committed offset of a partition, or -1. */
static int64_t committed_of(const ks_group *g, uint32_t part)
{
    for (uint32_t i = 0; i < g->nparts; i++)
        if (g->parts[i] == part)
            return g->committed[i];
    return -1;
}

static bool set_committed(ks_group *g, uint32_t part, int64_t offset)
{
    for (uint32_t i = 0; i < g->nparts; i++) {
        if (g->parts[i] == part) {
            g->committed[i] = offset;
            return true;
        }
    }
    if (g->nparts == g->parts_cap) {
        uint32_t cap = g->parts_cap ? g->parts_cap * 2u : 8u;
        uint32_t *p = realloc(g->parts, cap * sizeof *p);
        if (p)
            g->parts = p;
        int64_t *c = realloc(g->committed, cap * sizeof *c);
        if (c)
            g->committed = c;
        if (!p || !c)
            return false;
        g->parts_cap = cap;
    }
    g->parts[g->nparts] = part;
    g->committed[g->nparts++] = offset;
    return true;
}

/* Does a transaction hold offsets of the group for this partition? */
static bool unstable(const ks_group *g, uint32_t part)
{
    for (uint32_t i = 0; i < g->npending; i++)
        if (g->pending[i].partition == part)
            return true;
    return false;
}

static void offset_commit(ks_ctx *cx, ks_request *q, ks_group *g)
{
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        rb->error = set_committed(g, rb->partition, rb->base_offset) ? KS_KERR_NONE
                                                                     : KS_KERR_UNKNOWN_SERVER_ERROR;
    }
}

static void offset_fetch(ks_ctx *cx, ks_request *q, const ks_group *g)
{
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        if (q->require_stable && unstable(g, rb->partition)) {
            rb->error = KS_KERR_UNSTABLE_OFFSET_COMMIT;
            rb->base_offset = -1;
        } else {
            rb->error = KS_KERR_NONE;
            rb->base_offset = committed_of(g, rb->partition);
        }
    }
}

/* A transaction's offsets for the group wait for its marker; a second
 * TxnOffsetCommit of the same transaction and partition replaces the
 * first. */
static bool add_pending(ks_group *g, const ks_request *q, uint32_t part, int64_t offset)
{
    for (uint32_t i = 0; i < g->npending; i++) {
        ks_pending_offset *p = &g->pending[i];
        if (p->producer_id == q->producer_id && p->partition == part) {
            p->offset = offset;
            p->member_id = q->member_id;
            return true;
        }
    }
    if (g->npending == g->pending_cap) {
        uint32_t cap = g->pending_cap ? g->pending_cap * 2u : 8u;
        ks_pending_offset *a = realloc(g->pending, cap * sizeof *a);
        if (!a)
            return false;
        g->pending = a;
        g->pending_cap = cap;
    }
    g->pending[g->npending++] =
        (ks_pending_offset){q->producer_id, part, offset, q->member_id};
    return true;
}

static void txn_offset_commit(ks_ctx *cx, ks_request *q, ks_group *g)
{
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&cx->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&cx->reqs, e);
        rb->error = add_pending(g, q, rb->partition, rb->base_offset)
                        ? KS_KERR_NONE
                        : KS_KERR_UNKNOWN_SERVER_ERROR;
    }
}

/* The group of request `id` if `broker` coordinates it; else NULL with
 * the request's error set (NOT_COORDINATOR, or out of memory). */
static ks_group *served_here(ks_groups *gs, ks_ctx *cx, ks_request *q)
{
    q->error = KS_KERR_NONE;
    if (ks_meta_group_coordinator(gs->meta, q->group_id) != gs->broker) {
        q->error = KS_KERR_NOT_COORDINATOR;
        return NULL;
    }
    ks_group *g = group_of(gs, q->group_id);
    if (!g)
        ks_ctx_oom(cx);
    return g;
}

bool ks_groups_offset_commit(ks_groups *gs, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    ks_group *g = served_here(gs, cx, q);
    if (g)
        offset_commit(cx, q, g);
    return true;
}

bool ks_groups_offset_fetch(ks_groups *gs, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    ks_group *g = served_here(gs, cx, q);
    if (g)
        offset_fetch(cx, q, g);
    return true;
}

bool ks_groups_txn_offset_commit(ks_groups *gs, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    ks_group *g = served_here(gs, cx, q);
    if (g)
        txn_offset_commit(cx, q, g);
    return true;
}

/* One "offset_commit" trace record: a transaction's offsets became the
 * group's. */
static void trace_commit(const ks_groups *gs, ks_ctx *cx, const ks_group *g,
                         const ks_pending_offset *p)
{
    ks_trace *tr = cx->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_OFFSET_COMMIT))
        return;
    ks_trace_str(tr, "consumer", p->member_id);
    ks_trace_str(tr, "group", g->group_id);
    ks_trace_str(tr, "topic", cx->sc->topics[ks_meta_topic_of(gs->meta, p->partition)].name);
    ks_trace_u64(tr, "partition", ks_meta_index_of(gs->meta, p->partition));
    ks_trace_i64(tr, "offset", p->offset);
    ks_trace_str(tr, "commit", "transaction");
    ks_trace_end(tr);
}

void ks_groups_marker(ks_groups *gs, ks_ctx *cx, uint32_t k, int64_t producer_id, bool commit)
{
    for (uint32_t i = 0; i < gs->count; i++) {
        ks_group *g = &gs->groups[i];
        if (g->offsets_partition != k)
            continue;
        uint32_t kept = 0;
        for (uint32_t j = 0; j < g->npending; j++) {
            ks_pending_offset p = g->pending[j];
            if (p.producer_id != producer_id) {
                g->pending[kept++] = p;
                continue;
            }
            if (!commit || committed_of(g, p.partition) == p.offset)
                continue;
            if (!set_committed(g, p.partition, p.offset)) {
                ks_ctx_oom(cx);
                return;
            }
            trace_commit(gs, cx, g, &p);
        }
        g->npending = kept;
    }
}
