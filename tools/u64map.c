/*
 * u64map.c - the map from 64-bit keys to pointers (see u64map.h). Keys
 * are spread by the SplitMix64 finaliser, so that ids counting up do not
 * fill one run of slots.
 */
#include "tools/u64map.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* The slot of k, or the empty slot where it would go. */
static size_t slot_of(const ks_u64map *m, uint64_t k)
{
    size_t mask = m->cap - 1, i = (size_t)mix64(k) & mask;
    while (m->vals[i] && m->keys[i] != k)
        i = (i + 1) & mask;
    return i;
}

void *ks_u64map_get(const ks_u64map *m, uint64_t k)
{
    return m->cap ? m->vals[slot_of(m, k)] : NULL;
}

static bool grow(ks_u64map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    ks_u64map g = {calloc(cap, sizeof *g.keys), calloc(cap, sizeof *g.vals), cap, 0};
    if (!g.keys || !g.vals) {
        free(g.keys);
        free(g.vals);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i]) {
            size_t j = slot_of(&g, m->keys[i]);
            g.keys[j] = m->keys[i];
            g.vals[j] = m->vals[i];
            g.n++;
        }
    }
    free(m->keys);
    free(m->vals);
    *m = g;
    return true;
}

bool ks_u64map_put(ks_u64map *m, uint64_t k, void *v)
{
    if ((m->n + 1) * 2 > m->cap && !grow(m))
        return false;
    size_t i = slot_of(m, k);
    m->keys[i] = k;
    m->vals[i] = v;
    m->n++;
    return true;
}

/* Later entries of the probe run shift back so that lookups never stop
 * at the hole. */
void *ks_u64map_del(ks_u64map *m, uint64_t k)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1, i = slot_of(m, k);
    void *v = m->vals[i];
    if (!v)
        return NULL;
    m->vals[i] = NULL;
    m->n--;
    for (size_t j = (i + 1) & mask; m->vals[j]; j = (j + 1) & mask) {
        size_t h = (size_t)mix64(m->keys[j]) & mask;
        bool stays = i <= j ? (h > i && h <= j) : (h > i || h <= j);
        if (stays)
            continue;
        m->keys[i] = m->keys[j];
        m->vals[i] = m->vals[j];
        m->vals[j] = NULL;
        i = j;
    }
    return v;
}

void ks_u64map_free(ks_u64map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
