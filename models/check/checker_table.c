/*
 * checker_table.c - the delivery checker's memory and tables: allocations
 * counted against ks_checker_bytes (and failed on purpose by
 * ks_checker_fail_allocations_after), the open-addressing hash tables
 * keyed by (producer, number) that hold the ledger, the requests, the
 * reads and the lineage, and the interned error names.
 *
 * The tables probe linearly, grow at 70% load, shrink below 1/8 and
 * delete by backward shift, so nothing is left behind by settled batches.
 * A slot's place depends only on its key, never on an address. Never
 * judges anything.
 */
#include "models/check/checker_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- memory ---------------------------------------------------------- */

/* n zeroed bytes, counted in c->bytes. A failure marks the run out of
 * memory when the allocation was needed (not for an optional shrink). */
void *ks_ck_alloc(ks_checker *c, size_t n, bool needed)
{
    void *p = NULL;
    if (c->alloc_budget > 0) {
        p = calloc(1, n);
        if (c->alloc_budget != UINT64_MAX)
            c->alloc_budget--;
    }
    if (!p) {
        if (needed)
            c->out_of_memory = true;
        return NULL;
    }
    c->bytes += n;
    return p;
}

void ks_ck_free(ks_checker *c, void *p, size_t n)
{
    if (p) {
        free(p);
        c->bytes -= n;
    }
}

/* ---- hash tables ----------------------------------------------------- */

/* splitmix64's finaliser: a fixed, well-spread hash of the key. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static size_t home_of(const map *m, uint32_t producer, uint64_t key)
{
    return (size_t)(mix64(((uint64_t)producer << 48) ^ key) & (uint64_t)(m->cap - 1u));
}

bool ks_ck_map_init(ks_checker *c, map *m)
{
    m->slots = ks_ck_alloc(c, MAP_MIN_CAP * sizeof *m->slots, true);
    m->cap = m->slots ? MAP_MIN_CAP : 0;
    m->count = 0;
    return m->slots != NULL;
}

void ks_ck_map_free(ks_checker *c, map *m)
{
    ks_ck_free(c, m->slots, m->cap * sizeof *m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}

/* Moves every slot into a table of cap slots, in index order. */
bool ks_ck_map_resize(ks_checker *c, map *m, size_t cap, bool needed)
{
    if (cap > SIZE_MAX / 2u / sizeof *m->slots) {
        c->out_of_memory = c->out_of_memory || needed;
        return false;
    }
    map bigger = {ks_ck_alloc(c, cap * sizeof *m->slots, needed), cap, m->count};
    if (!bigger.slots)
        return false;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].used)
            continue;
        size_t j = home_of(&bigger, m->slots[i].producer, m->slots[i].key);
        while (bigger.slots[j].used)
            j = (j + 1u) & (cap - 1u);
        bigger.slots[j] = m->slots[i];
    }
    ks_ck_free(c, m->slots, m->cap * sizeof *m->slots);
    *m = bigger;
    return true;
}

/* The key's slot, or NULL; *empty gets the free slot where the probe
 * ended, where the key would be inserted while the table keeps its size. */
slot *ks_ck_map_probe(const map *m, uint32_t producer, uint64_t key, size_t *empty)
{
    for (size_t i = home_of(m, producer, key);; i = (i + 1u) & (m->cap - 1u)) {
        slot *s = &m->slots[i];
        if (!s->used) {
            *empty = i;
            return NULL;
        }
        if (s->key == key && s->producer == producer)
            return s;
    }
}

slot *ks_ck_map_find(const map *m, uint32_t producer, uint64_t key)
{
    size_t empty;
    return ks_ck_map_probe(m, producer, key, &empty);
}

/* Takes free slot i for the key, zeroed. */
static slot *claim(map *m, size_t i, uint32_t producer, uint64_t key)
{
    slot *s = &m->slots[i];
    memset(s, 0, sizeof *s);
    s->used = true;
    s->key = key;
    s->producer = producer;
    m->count++;
    return s;
}

/* A new zeroed slot for a key not in the table; NULL without memory. */
slot *ks_ck_map_insert(ks_checker *c, map *m, uint32_t producer, uint64_t key)
{
    if ((m->count + 1u) * 10u > m->cap * 7u && !ks_ck_map_resize(c, m, m->cap * 2u, true))
        return NULL;
    size_t i = home_of(m, producer, key);
    while (m->slots[i].used)
        i = (i + 1u) & (m->cap - 1u);
    return claim(m, i, producer, key);
}

/* A new zeroed slot for a key not in the table, at `empty` (from
 * ks_ck_map_probe, the table unchanged since) unless the table must grow
 * first; NULL without memory. The pointer is valid until the table is
 * next changed. */
slot *ks_ck_map_insert_at(ks_checker *c, map *m, uint32_t producer, uint64_t key, size_t empty)
{
    if ((m->count + 1u) * 10u > m->cap * 7u)
        return ks_ck_map_insert(c, m, producer, key); /* grows, then looks again */
    return claim(m, empty, producer, key);
}

/* Deletes by shifting back the slots of the probe run that follows, so
 * no tombstone is left, then halves the table if it is mostly empty. */
void ks_ck_map_remove(ks_checker *c, map *m, slot *s)
{
    size_t mask = m->cap - 1u, hole = (size_t)(s - m->slots), j = hole;
    for (;;) {
        j = (j + 1u) & mask;
        if (!m->slots[j].used)
            break;
        size_t home = home_of(m, m->slots[j].producer, m->slots[j].key);
        /* Slot j may fill the hole unless its home lies after the hole. */
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            m->slots[hole] = m->slots[j];
            hole = j;
        }
    }
    m->slots[hole].used = false;
    m->count--;
    if (m->cap > MAP_MIN_CAP && m->count * 16u < m->cap)
        (void)ks_ck_map_resize(c, m, m->cap / 2u, false);
}

/* ---- names ----------------------------------------------------------- */

/* A handle for the name (0 for NULL), kept until the checker is freed:
 * error names are few and repeat, so each is stored once. */
uint16_t ks_ck_intern(ks_checker *c, const char *name)
{
    if (!name)
        return 0;
    for (uint32_t i = 0; i < c->nnames; i++)
        if (strcmp(c->names[i], name) == 0)
            return (uint16_t)(i + 1u);
    if (c->nnames >= UINT16_MAX - 1u)
        return 0;
    if (c->nnames == c->names_cap) {
        uint32_t cap = c->names_cap ? c->names_cap * 2u : 8u;
        char **names = ks_ck_alloc(c, cap * sizeof *names, true);
        if (!names)
            return 0;
        if (c->nnames)
            memcpy(names, c->names, c->nnames * sizeof *names);
        ks_ck_free(c, c->names, c->names_cap * sizeof *names);
        c->names = names;
        c->names_cap = cap;
    }
    size_t len = strlen(name) + 1u;
    char *copy = ks_ck_alloc(c, len, true);
    if (!copy)
        return 0;
    memcpy(copy, name, len);
    c->names[c->nnames++] = copy;
    return (uint16_t)c->nnames;
}

const char *ks_ck_name_of(const ks_checker *c, uint16_t handle)
{
    return handle ? c->names[handle - 1u] : NULL;
}

/* Resizes *p to cap elements of size bytes (not counted in ks_checker_bytes). */
bool ks_ck_grow(void **p, uint64_t cap, size_t size)
{
    void *q = realloc(*p, (size_t)cap * size);
    if (!q)
        return false;
    *p = q;
    return true;
}
