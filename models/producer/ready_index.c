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
    free(ri->start);
    free(ri->parts);
    free(ri->broker);
    free(ri->pos);
    free(ri->leaves);
    free(ri->base);
    free(ri->nodes);
    free(ri->vals);
    free(ri->queued);
    free(ri->has);
    memset(ri, 0, sizeof *ri);
}

static uint32_t pow2_at_least(uint32_t n)
{
    uint32_t w = 1;
    while (w < n)
        w *= 2;
    return w;
}

/* The partition lists and tree widths of a new index. */
static bool lay_out(ks_ready_index *ri, const uint32_t *leader, size_t *nodes)
{
    uint32_t nb = ri->brokers, np = ri->partitions;
    for (uint32_t p = 0; p < np; p++)
        ri->start[leader[p] + 1]++;
    for (uint32_t b = 0; b < nb; b++)
        ri->start[b + 1] += ri->start[b];
    uint32_t *fill = calloc(nb ? nb : 1u, sizeof *fill);
    if (!fill)
        return false;
    for (uint32_t p = 0; p < np; p++) {
        uint32_t b = leader[p];
        ri->broker[p] = b;
        ri->pos[p] = fill[b];
        ri->parts[ri->start[b] + fill[b]++] = p;
    }
    free(fill);
    *nodes = 0;
    for (uint32_t b = 0; b < nb; b++) {
        ri->leaves[b] = pow2_at_least((ks_ri_count(ri, b) + KS_RI_BLOCK - 1) / KS_RI_BLOCK);
        ri->base[b] = (uint32_t)*nodes;
        *nodes += 2u * (size_t)ri->leaves[b];
    }
    return true;
}

bool ks_ri_build(ks_ready_index *ri, uint32_t partitions, uint32_t brokers,
                 const uint32_t *leader)
{
    ks_ready_index n = {.partitions = partitions, .brokers = brokers};
    size_t np = partitions ? partitions : 1u, nb = brokers ? brokers : 1u, nodes = 0;
    n.start = calloc(nb + 1, sizeof *n.start);
    n.parts = calloc(np, sizeof *n.parts);
    n.broker = calloc(np, sizeof *n.broker);
    n.pos = calloc(np, sizeof *n.pos);
    n.leaves = calloc(nb, sizeof *n.leaves);
    n.base = calloc(nb, sizeof *n.base);
    n.queued = calloc(nb, sizeof *n.queued);
    n.has = calloc(np, sizeof *n.has);
    bool ok = n.start && n.parts && n.broker && n.pos && n.leaves && n.base && n.queued &&
              n.has && lay_out(&n, leader, &nodes);
    if (ok) {
        n.nodes = malloc((nodes ? nodes : 1u) * sizeof *n.nodes);
        n.vals = malloc(np * sizeof *n.vals);
        ok = n.nodes != NULL && n.vals != NULL;
        for (size_t i = 0; ok && i < nodes; i++)
            n.nodes[i].k[0] = n.nodes[i].k[1] = KS_TIME_MAX;
        for (size_t i = 0; ok && i < np; i++)
            n.vals[i].k[0] = n.vals[i].k[1] = KS_TIME_MAX;
    }
    if (!ok) {
        ks_ri_free(&n);
        return false;
    }
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

/* Sets place i of a list (its values `vals`, `count` places, its tree t of
 * width w) to (v0, v1) and mends the path to the root, stopping where a
 * node's minima do not change. */
static void tree_set(ks_ri_node *t, uint32_t w, ks_ri_node *vals, uint32_t count, uint32_t i,
                     ks_time v0, ks_time v1)
{
    if (vals[i].k[0] == v0 && vals[i].k[1] == v1)
        return;
    vals[i].k[0] = v0;
    vals[i].k[1] = v1;
    uint32_t n = w + i / KS_RI_BLOCK;
    ks_ri_node m = block_min(vals, count, i / KS_RI_BLOCK);
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
    uint32_t b = ri->broker[p];
    if (ri->has[p] != queued) {
        ri->has[p] = queued;
        if (queued)
            ri->queued[b]++;
        else
            ri->queued[b]--;
    }
    tree_set(ri->nodes + ri->base[b], ri->leaves[b], ri->vals + ri->start[b], ks_ri_count(ri, b),
             ri->pos[p], ready, ready_exhausted);
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
    if (ri->queued[b] == 0)
        return false;
    const ks_ri_node *t = ri->nodes + ri->base[b], *vals = ri->vals + ri->start[b];
    int k = exhausted ? 1 : 0;
    uint32_t w = ri->leaves[b], count = ks_ri_count(ri, b);
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
    const ks_ri_node *t = ri->nodes + ri->base[b], *vals = ri->vals + ri->start[b];
    uint32_t w = ri->leaves[b], count = ks_ri_count(ri, b);
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
    uint32_t w = ri->leaves[b], count = ks_ri_count(ri, b);
    const ks_ri_node *t = ri->nodes + ri->base[b], *vals = ri->vals + ri->start[b];
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
    uint32_t b = ri->broker[p], place = ri->start[b] + ri->pos[p];
    return ri->has[p] == queued && ks_ri_part(ri, b, ri->pos[p]) == p &&
           ri->vals[place].k[0] == ready && ri->vals[place].k[1] == ready_exhausted;
}

bool ks_ri_consistent(const ks_ready_index *ri)
{
    for (uint32_t b = 0; b < ri->brokers; b++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < ks_ri_count(ri, b); i++)
            n += ri->has[ks_ri_part(ri, b, i)];
        if (n != ri->queued[b] || !trees_ordered(ri, b))
            return false;
    }
    return true;
}
