/*
 * json_path.h - JSON paths for messages, dotted paths for --set and expect,
 * and "did you mean" suggestions.
 *
 * Owns: the way ksim names a place in a JSON document. Messages show
 * "$.producers[0].config.linger.ms". Users write dotted paths such as
 * "producers.p1.config.linger.ms": Kafka's keys contain dots themselves,
 * so at each object the longest key matching the rest of the path wins,
 * and an array element is chosen by index or by its "id" or "name".
 */
#ifndef KS_JSON_PATH_H
#define KS_JSON_PATH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define KS_JPATH_MAX 384

/* json_dumps flags for reals a person reads (summaries, messages): 15
 * significant digits, so a mean of 10.97 prints as 10.97, not as the
 * 17-digit 10.970000000000001 of jansson's default. */
#define KS_JSON_REALS JSON_REAL_PRECISION(15)

typedef struct ks_jpath {
    char buf[KS_JPATH_MAX];
    size_t len;
} ks_jpath;

void ks_jpath_init(ks_jpath *p);
/* Appends ".key" / "[i]"; returns the length to restore afterwards. */
size_t ks_jpath_key(ks_jpath *p, const char *key);
size_t ks_jpath_index(ks_jpath *p, size_t i);
void ks_jpath_restore(ks_jpath *p, size_t len);

/* Edit distance (optimal string alignment: insert, delete, substitute,
 * swap adjacent), for suggestions. */
size_t ks_edit_distance(const char *a, const char *b);
/* The same when it is at most max; else max + 1 (and found faster). */
size_t ks_edit_distance_within(const char *a, const char *b, size_t max);
/* The candidate closest to `word`, if close enough to be a likely typo
 * (distance <= max(2, strlen(word) / 3), or word is a prefix/suffix); else NULL. */
const char *ks_suggest(const char *word, const char *const *cands, size_t n);

/* Where a dotted path leads. */
typedef struct ks_jref {
    json_t *parent;   /* object or array holding the value */
    const char *key;  /* object key (points into parent) or NULL */
    size_t index;     /* array index when key is NULL */
    json_t *value;    /* current value, NULL if absent */
} ks_jref;

/* Follows `dotted` from `root`. Returns true when it leads to an existing
 * value. On failure *fail_at is set to the part of the path that matched
 * nothing and ref->parent to the deepest container reached. */
bool ks_json_lookup(json_t *root, const char *dotted, ks_jref *ref, const char **fail_at);

/* Sets the value at `dotted`, creating missing keys. At an object, a
 * rest that is one of `leaf_keys` (the schema's dotted keys, such as
 * "latency.ms") is set as that key right there; otherwise the longest
 * existing key leads on. A missing step whose first segment is one of
 * `sections` becomes a new object; any other missing rest becomes one key
 * (so "config.linger.ms" under a producer creates "config":
 * {"linger.ms": ...}). Both lists are NULL-terminated (or NULL). Steals
 * `value`. Returns false, with a message in err, when it cannot be set. */
bool ks_json_set(json_t *root, const char *dotted, json_t *value,
                 const char *const *sections, const char *const *leaf_keys, char *err,
                 size_t errlen);

#endif
