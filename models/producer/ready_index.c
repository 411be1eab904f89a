/*
 * ready_index.c - per-broker min-trees of readiness times (see
 * ready_index.h). Each tree is an implicit binary heap layout: node 1 the
 * root, node i's children 2i and 2i+1, leaves from `leaves` on; leaf j
 * holds the minima of places [j B, j B + B) of its broker's list (B =
 * KS_RI_BLOCK), whose own values are in `vals`.
 */
#include "models/producer/ready_index.h"

#include <stdlib.h>
#include <string.h>

void ks_ri_free(ks_ready_index *ri)
{
    free(ri->bk); /* the one allocation (see ks_ready_index) */
    memset(ri, 0, sizeof *ri);
}

static uint32_t pow2_at_least(uint32_t n)
{
    uint32_t w = 1;
    while (w < n)
        w *= 2;
    return w;
}

/* Each broker's slice and tree width, and the trees' total node count. */
static bool lay_out_brokers(ks_ri_broker *bk, uint32_t nb, uint32_t np, const uint32_t *leader,
                            size_t *nodes)
{
    for (uint32_t p = 0; p < np; p++)
        bk[leader[p]].count++;
    uint32_t at = 0;
    *nodes = 0;
    for (uint32_t b = 0; b < nb; b++) {
        bk[b].start = at;
        at += bk[b].count;
        bk[b].leaves = pow2_at_least((bk[b].count + KS_RI_BLOCK - 1) / KS_RI_BLOCK);
        bk[b].base = (uint32_t)*nodes;
        *nodes += 2u * (size_t)bk[b].leaves;
        if (*nodes > UINT32_MAX)
            return false;
    }
    return true;
}

/* Carves one allocation into the index's arrays: per-broker parts, the
 * trees, the places' values (16-byte aligned), then per partition. */
static bool carve(ks_ready_index *n, size_t nodes)
{
    size_t nb = n->brokers ? n->brokers : 1u, np = n->partitions ? n->partitions : 1u;
    size_t head = (nb * sizeof(ks_ri_broker) + 15u) & ~(size_t)15u;
    size_t total = head + (nodes ? nodes : 1u) * sizeof(ks_ri_node) + np * sizeof(ks_ri_node) +
                   np * sizeof(ks_ri_place) + np * sizeof(uint32_t);
    char *m = calloc(1, total);
    if (!m)
        return false;
    n->bk = (ks_ri_broker *)(void *)m;
    n->nodes = (ks_ri_node *)(void *)(m + head);
    n->vals = n->nodes + (nodes ? nodes : 1u);
    n->at = (ks_ri_place *)(void *)(n->vals + np);
    n->parts = (uint32_t *)(void *)(n->at + np);
    return true;
}

bool ks_ri_build(ks_ready_index *ri, uint32_t partitions, uint32_t brokers,
                 const uint32_t *leader)
{
    ks_ready_index n = {.partitions = partitions, .brokers = brokers};
    size_t nodes = 0;
    if (partitions > 0x7fffffffu) /* a place is 31 bits (ks_ri_place) */
        return false;
    ks_ri_broker *tmp = calloc(brokers ? brokers : 1u, sizeof *tmp);
    bool ok = tmp && lay_out_brokers(tmp, brokers, partitions, leader, &nodes) && carve(&n, nodes);
    if (!ok) {
        free(tmp);
        return false;
    }
    memcpy(n.bk, tmp, (size_t)brokers * sizeof *tmp);
    free(tmp);
    uint32_t *fill = calloc(brokers ? brokers : 1u, sizeof *fill);
    if (!fill) {
        ks_ri_free(&n);
        return false;
    }
    for (uint32_t p = 0; p < partitions; p++) {
        uint32_t b = leader[p];
        n.at[p].broker = b;
        n.at[p].pos = fill[b] & 0x7fffffffu; /* < partitions < 2^31 */
        n.parts[n.bk[b].start + fill[b]++] = p;
    }
    free(fill);
    for (size_t i = 0; i < nodes; i++)
        n.nodes[i].k[0] = n.nodes[i].k[1] = KS_TIME_MAX;
    for (size_t i = 0; i < partitions; i++)
        n.vals[i].k[0] = n.vals[i].k[1] = KS_TIME_MAX;
    ks_ri_free(ri);
    *ri = n;
    return true;
}

/* The minima of block j of a list of `count` places (vals: the list's). */
static ks_ri_node block_min(const ks_ri_node *vals, uint32_t count, uint32_t j)
{
    ks_ri_node m = {{KS_TIME_MAX, KS_TIME_MAX}};
    uint32_t end = (j + 1) * KS_RI_BLOCK < count ? (j + 1) * KS_RI_BLOCK : count;
    for (uint32_t i = j * KS_RI_BLOCK; i < end; i++) {
        m.k[0] = vals[i].k[0] < m.k[0] ? vals[i].k[0] : m.k[0];
        m.k[1] = vals[i].k[1] < m.k[1] ? vals[i].k[1] : m.k[1];
    }
    return m;
}

/* A block's new minimum for one key after a place in it went from old to
 * v, its old minimum being `min`: v if v is no later, `min` if the place
 * was not the minimum (so a later v leaves it), else unknown (`rescan`). */
static ks_time block_key(ks_time min, ks_time old, ks_time v, bool *rescan)
{
    if (v <= min)
        return v;
    if (old > min)
        return min;
    *rescan = true;
    return min;
}

/* Sets place i of a list (its values `vals`, `count` places, its tree t of
 * width w) to (v0, v1) and mends the path to the root, stopping where a
 * node's minima do not change. The block is scanned only when the place
 * held its minimum and moved later. */
static void tree_set(ks_ri_node *t, uint32_t w, ks_ri_node *vals, uint32_t count, uint32_t i,
                     ks_time v0, ks_time v1)
{
    ks_ri_node old = vals[i];
    if (old.k[0] == v0 && old.k[1] == v1)
        return;
    vals[i].k[0] = v0;
    vals[i].k[1] = v1;
    uint32_t n = w + i / KS_RI_BLOCK;
    bool rescan = false;
    ks_ri_node m = {{block_key(t[n].k[0], old.k[0], v0, &rescan),
                     block_key(t[n].k[1], old.k[1], v1, &rescan)}};
    if (rescan)
        m = block_min(vals, count, i / KS_RI_BLOCK);
    if (t[n].k[0] == m.k[0] && t[n].k[1] == m.k[1])
        return;
    t[n] = m;
    for (n >>= 1; n >= 1; n >>= 1) {
        const ks_ri_node *l = &t[2 * n], *r = &t[2 * n + 1];
        ks_time m0 = l->k[0] < r->k[0] ? l->k[0] : r->k[0];
        ks_time m1 = l->k[1] < r->k[1] ? l->k[1] : r->k[1];
        if (t[n].k[0] == m0 && t[n].k[1] == m1)
            break;
        t[n].k[0] = m0;
        t[n].k[1] = m1;
    }
}

void ks_ri_set(ks_ready_index *ri, uint32_t p, ks_time ready, ks_time ready_exhausted,
               bool queued)
{
    ks_ri_place *pl = &ri->at[p];
    ks_ri_broker *bk = &ri->bk[pl->broker];
    if (pl->has != queued) {
        pl->has = queued ? 1u : 0u;
        if (queued)
            bk->queued++;
        else
            bk->queued--;
    }
    tree_set(ri->nodes + bk->base, bk->leaves, ri->vals + bk->start, bk->count, pl->pos, ready,
             ready_exhausted);
}

/* From node n, whose subtree holds a key <= now, down to the leftmost such
 * leaf; returns its place. */
static uint32_t descend(const ks_ri_node *t, int k, uint32_t w, uint32_t n, ks_time now)
{
    while (n < w)
        n = t[2 * n].k[k] <= now ? 2 * n : 2 * n + 1;
    return n - w;
}

/* The minimum of leaves [0, end). */
static ks_time prefix_min(const ks_ri_node *t, int k, uint32_t w, uint32_t end)
{
    ks_time m = KS_TIME_MAX;
    for (uint32_t l = w, r = w + end; l < r; l >>= 1, r >>= 1) {
        if (l & 1u) {
            if (t[l].k[k] < m)
                m = t[l].k[k];
            l++;
        }
        if (r & 1u) {
            r--;
            if (t[r].k[k] < m)
                m = t[r].k[k];
        }
    }
    return m;
}

/* The first place of block j (of `count`) from `from` on whose key k is
 * <= now, or KS_RI_NONE. */
static uint32_t block_first(const ks_ri_node *vals, uint32_t count, uint32_t j, uint32_t from,
                            int k, ks_time now)
{
    uint32_t end = (j + 1) * KS_RI_BLOCK < count ? (j + 1) * KS_RI_BLOCK : count;
    for (uint32_t i = from > j * KS_RI_BLOCK ? from : j * KS_RI_BLOCK; i < end; i++)
        if (vals[i].k[k] <= now)
            return i;
    return KS_RI_NONE;
}

bool ks_ri_ready(const ks_ready_index *ri, uint32_t b, ks_time now, bool exhausted,
                 ks_time *next)
{
    const ks_ri_broker *bk = &ri->bk[b];
    if (bk->queued == 0)
        return false;
    const ks_ri_node *t = ri->nodes + bk->base, *vals = ri->vals + bk->start;
    int k = exhausted ? 1 : 0;
    uint32_t w = bk->leaves, count = bk->count;
    bool ready = t[1].k[k] <= now;
    ks_time m = t[1].k[k]; /* not ready: every place counts */
    if (ready) {
        /* the places before the first ready one: whole blocks, then the
         * first ready one's block up to it */
        uint32_t blk = descend(t, k, w, 1, now);
        uint32_t first = block_first(vals, count, blk, 0, k, now);
        m = prefix_min(t, k, w, blk);
        for (uint32_t i = blk * KS_RI_BLOCK; i < first; i++)
            m = vals[i].k[k] < m ? vals[i].k[k] : m;
    }
    if (m < *next)
        *next = m;
    return ready;
}

uint32_t ks_ri_next_drainable(const ks_ready_index *ri, uint32_t b, uint32_t from, ks_time now)
{
    const ks_ri_broker *bk = &ri->bk[b];
    const ks_ri_node *t = ri->nodes + bk->base, *vals = ri->vals + bk->start;
    uint32_t w = bk->leaves, count = bk->count;
    if (from >= count || t[1].k[1] > now)
        return KS_RI_NONE;
    uint32_t found = block_first(vals, count, from / KS_RI_BLOCK, from, 1, now);
    if (found != KS_RI_NONE)
        return found;
    uint32_t n = w + from / KS_RI_BLOCK;
    for (;;) {
        while (n > 1 && (n & 1u))
            n >>= 1; /* up while a right child */
        if (n <= 1)
            return KS_RI_NONE;
        n++; /* the right sibling: everything in it lies after `from` */
        if (t[n].k[1] <= now) {
            uint32_t blk = descend(t, 1, w, n, now);
            return block_first(vals, count, blk, 0, 1, now);
        }
    }
}

/* Every inner node of broker b's trees is the minimum of its children,
 * every leaf the minimum of its block. */
static bool trees_ordered(const ks_ready_index *ri, uint32_t b)
{
    const ks_ri_broker *bk = &ri->bk[b];
    uint32_t w = bk->leaves, count = bk->count;
    const ks_ri_node *t = ri->nodes + bk->base, *vals = ri->vals + bk->start;
    for (uint32_t j = 0; j < w; j++) {
        ks_ri_node m = block_min(vals, count, j);
        if (t[w + j].k[0] != m.k[0] || t[w + j].k[1] != m.k[1])
            return false;
    }
    for (int k = 0; k < 2; k++)
        for (uint32_t n = 1; n < w; n++)
            if (t[n].k[k] != (t[2 * n].k[k] < t[2 * n + 1].k[k] ? t[2 * n].k[k] : t[2 * n + 1].k[k]))
                return false;
    return true;
}

bool ks_ri_holds(const ks_ready_index *ri, uint32_t p, ks_time ready, ks_time ready_exhausted,
                 bool queued)
{
    const ks_ri_place *pl = &ri->at[p];
    uint32_t place = ri->bk[pl->broker].start + pl->pos;
    return pl->has == queued && ks_ri_part(ri, pl->broker, pl->pos) == p &&
           ri->vals[place].k[0] == ready && ri->vals[place].k[1] == ready_exhausted;
}

bool ks_ri_consistent(const ks_ready_index *ri)
{
    for (uint32_t b = 0; b < ri->brokers; b++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < ks_ri_count(ri, b); i++)
            n += ri->at[ks_ri_part(ri, b, i)].has;
        if (n != ri->bk[b].queued || !trees_ordered(ri, b))
            return false;
    }
    return true;
}
