/*
 * groups.c - group coordinators and the offsets they keep (see groups.h).
 */
#include "models/broker/groups.h"

#include "models/broker/txn_state.h"
#include "models/world.h"
#include "sim/str.h"

#include <stdlib.h>
#include <string.h>

bool ks_groups_init(ks_groups *g, ks_world *w)
{
    memset(g, 0, sizeof *g);
    g->offsets_partitions = (uint32_t)w->sc->broker_config[KS_BCFG_OFFSETS_TOPIC_PARTITIONS].i;
    return true;
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
    memset(g, 0, sizeof *g);
}

uint32_t ks_group_offsets_partition(const ks_world *w, const char *group_id)
{
    /* the same hash as __transaction_state's: abs(String.hashCode) % n
     * ([K] GroupMetadataManager.partitionFor) */
    return ks_txn_partition_for(group_id, w->groups.offsets_partitions);
}

uint32_t ks_group_coordinator(const ks_world *w, const char *group_id)
{
    return ks_group_offsets_partition(w, group_id) % w->broker_count;
}

static void out_of_memory(ks_world *w)
{
    w->out_of_memory = true;
    ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
}

/* The group, created on first use; NULL when out of memory. */
static ks_group *group_of(ks_world *w, const char *id)
{
    ks_groups *g = &w->groups;
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
    gr->offsets_partition = ks_group_offsets_partition(w, id);
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

static void offset_commit(ks_world *w, ks_request *q, ks_group *g)
{
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&w->reqs, e);
        rb->error = set_committed(g, rb->partition, rb->base_offset) ? KS_KERR_NONE
                                                                     : KS_KERR_UNKNOWN_SERVER_ERROR;
    }
}

static void offset_fetch(ks_world *w, ks_request *q, const ks_group *g)
{
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&w->reqs, e);
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

static void txn_offset_commit(ks_world *w, ks_request *q, ks_group *g)
{
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = ks_req_entry(&w->reqs, e)->next) {
        ks_req_batch *rb = ks_req_entry(&w->reqs, e);
        rb->error = add_pending(g, q, rb->partition, rb->base_offset)
                        ? KS_KERR_NONE
                        : KS_KERR_UNKNOWN_SERVER_ERROR;
    }
}

/* The group of request `id` if `broker` coordinates it; else NULL with
 * the request's error set (NOT_COORDINATOR, or out of memory). */
static ks_group *served_here(ks_world *w, uint32_t broker, ks_request *q)
{
    q->error = KS_KERR_NONE;
    if (ks_group_coordinator(w, q->group_id) != broker) {
        q->error = KS_KERR_NOT_COORDINATOR;
        return NULL;
    }
    ks_group *g = group_of(w, q->group_id);
    if (!g)
        out_of_memory(w);
    return g;
}

bool ks_groups_offset_commit(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_request *q = ks_req(&w->reqs, id);
    ks_group *g = served_here(w, broker, q);
    if (g)
        offset_commit(w, q, g);
    return true;
}

bool ks_groups_offset_fetch(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_request *q = ks_req(&w->reqs, id);
    ks_group *g = served_here(w, broker, q);
    if (g)
        offset_fetch(w, q, g);
    return true;
}

bool ks_groups_txn_offset_commit(ks_world *w, uint32_t broker, uint32_t id)
{
    ks_request *q = ks_req(&w->reqs, id);
    ks_group *g = served_here(w, broker, q);
    if (g)
        txn_offset_commit(w, q, g);
    return true;
}

/* One "offset_commit" trace record: a transaction's offsets became the
 * group's. */
static void trace_commit(ks_world *w, const ks_group *g, const ks_pending_offset *p)
{
    ks_trace *tr = w->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_OFFSET_COMMIT))
        return;
    const ks_partition *part = &w->partitions[p->partition];
    ks_trace_str(tr, "consumer", p->member_id);
    ks_trace_str(tr, "group", g->group_id);
    ks_trace_str(tr, "topic", w->sc->topics[part->topic].name);
    ks_trace_u64(tr, "partition", part->index);
    ks_trace_i64(tr, "offset", p->offset);
    ks_trace_str(tr, "commit", "transaction");
    ks_trace_end(tr);
}

void ks_groups_marker(ks_world *w, uint32_t k, int64_t producer_id, bool commit)
{
    ks_groups *gs = &w->groups;
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
                out_of_memory(w);
                return;
            }
            trace_commit(w, g, &p);
        }
        g->npending = kept;
    }
}
