/*
 * u64map.h - a map from 64-bit keys to pointers: open addressing with
 * linear probing, a power-of-two capacity that doubles at half load, and
 * deletion by backward shift (no tombstones).
 *
 * Owns: its two arrays. Ownership: the values are the caller's; the map
 * never frees, copies or compares them, and NULL is no value (it marks
 * an empty slot). {0} is the empty map. Iterating over the slots (i from
 * 0 to cap, vals[i] non-NULL) visits the entries in an order that
 * depends only on the keys and on the history of puts and deletes,
 * never on an address.
 */
#ifndef KS_U64MAP_H
#define KS_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ks_u64map {
    uint64_t *keys;
    void **vals; /* NULL: an empty slot */
    size_t cap, n;
} ks_u64map;

/* k's value, NULL when absent. */
void *ks_u64map_get(const ks_u64map *m, uint64_t k);
/* Adds k (not yet present) with v (not NULL); false when out of memory
 * (the map is then unchanged). */
bool ks_u64map_put(ks_u64map *m, uint64_t k, void *v);
/* Removes k; returns its value (NULL if absent). */
void *ks_u64map_del(ks_u64map *m, uint64_t k);
/* Frees the arrays (not the values); the map is empty again. */
void ks_u64map_free(ks_u64map *m);

#endif
