/*
 * load_index.c - the adaptive partitioner's load statistics as Fenwick
 * trees over a snapshot of queue lengths (see load_index.h).
 */
#include "models/producer/load_index.h"

#include <stdlib.h>
#include <string.h>

bool ks_li_init(ks_load_index *li, uint32_t partitions)
{
    memset(li, 0, sizeof *li);
    size_t n = (size_t)partitions + 1;
    li->cnt = calloc(n, sizeof *li->cnt);
    li->sum = calloc(n, sizeof *li->sum);
    li->q = calloc(n, sizeof *li->q);
    li->in = calloc(n, sizeof *li->in);
    li->pending = calloc(n, sizeof *li->pending);
    li->is_pending = calloc(n, sizeof *li->is_pending);
    li->by_len_cap = 16;
    li->by_len = calloc(li->by_len_cap, sizeof *li->by_len);
    if (!li->cnt || !li->sum || !li->q || !li->in || !li->pending || !li->is_pending ||
        !li->by_len) {
        ks_li_free(li);
        return false;
    }
    li->n = partitions;
    return true;
}

void ks_li_free(ks_load_index *li)
{
    free(li->cnt);
    free(li->sum);
    free(li->q);
    free(li->in);
    free(li->pending);
    free(li->is_pending);
    free(li->by_len);
    memset(li, 0, sizeof *li);
}

static void fenwick_add(uint32_t *t, uint32_t n, uint32_t p, int64_t d)
{
    for (uint32_t i = p + 1; i <= n; i += i & (~i + 1u))
        t[i] = (uint32_t)((int64_t)t[i] + d);
}

/* by_len[len] += d, growing the table; keeps max. */
static bool count_len(ks_load_index *li, uint32_t len, int d)
{
    if (len >= li->by_len_cap) {
        uint32_t cap = li->by_len_cap;
        while (cap <= len)
            cap *= 2;
        uint32_t *g = realloc(li->by_len, (size_t)cap * sizeof *g);
        if (!g)
            return false;
        memset(g + li->by_len_cap, 0, (size_t)(cap - li->by_len_cap) * sizeof *g);
        li->by_len = g;
        li->by_len_cap = cap;
    }
    li->by_len[len] = (uint32_t)((int64_t)li->by_len[len] + d);
    if (d > 0 && len > li->max)
        li->max = len;
    while (li->max > 0 && li->by_len[li->max] == 0)
        li->max--;
    return true;
}

/* Partition p now has a deque of `len` batches (has) or none. */
static bool apply(ks_load_index *li, uint32_t p, uint32_t len, bool has)
{
    if (!has)
        len = 0;
    if (li->in[p] == has && li->q[p] == len)
        return true;
    if ((has && !count_len(li, len, +1)) || (li->in[p] && !count_len(li, li->q[p], -1)))
        return false;
    fenwick_add(li->cnt, li->n, p, (int64_t)has - (int64_t)li->in[p]);
    fenwick_add(li->sum, li->n, p, (int64_t)len - (int64_t)li->q[p]);
    li->deques = li->deques + has - li->in[p];
    li->total_len = li->total_len + len - li->q[p];
    li->in[p] = has;
    li->q[p] = len;
    return true;
}

bool ks_li_snapshot(ks_load_index *li, uint32_t (*len)(const void *ctx, uint32_t p, bool *has),
                    const void *ctx)
{
    for (uint32_t i = 0; i < li->npending; i++) {
        uint32_t p = li->pending[i];
        bool has = false;
        uint32_t l = len(ctx, p, &has);
        li->is_pending[p] = false;
        if (!apply(li, p, l, has))
            return false;
    }
    li->npending = 0;
    return true;
}

uint32_t ks_li_find(const ks_load_index *li, uint64_t r)
{
    uint64_t m1 = (uint64_t)li->max + 1u, c = 0, s = 0;
    uint32_t pos = 0, step = 1;
    while (step * 2u <= li->n && step * 2u > step)
        step *= 2u;
    for (; step; step >>= 1) {
        uint32_t next = pos + step;
        if (next > li->n)
            continue;
        uint64_t nc = c + li->cnt[next], ns = s + li->sum[next];
        if (m1 * nc - ns <= r) { /* the running weight up to `next` is not past r */
            pos = next;
            c = nc;
            s = ns;
        }
    }
    return pos; /* Fenwick position pos + 1 is the first past r: partition pos */
}
