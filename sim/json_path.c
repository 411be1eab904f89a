/*
 * json_path.c - paths and suggestions (see json_path.h).
 */
#include "sim/json_path.h"

#include "sim/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ks_jpath_init(ks_jpath *p)
{
    p->buf[0] = '$';
    p->buf[1] = '\0';
    p->len = 1;
}

static size_t fit(ks_jpath *p, size_t old, int n)
{
    if (n < 0 || (size_t)n >= sizeof p->buf - old)
        p->len = sizeof p->buf - 1;
    else
        p->len = old + (size_t)n;
    p->buf[p->len] = '\0';
    return old;
}

size_t ks_jpath_key(ks_jpath *p, const char *key)
{
    size_t old = p->len;
    return fit(p, old, snprintf(p->buf + old, sizeof p->buf - old, ".%s", key));
}

size_t ks_jpath_index(ks_jpath *p, size_t i)
{
    size_t old = p->len;
    return fit(p, old, snprintf(p->buf + old, sizeof p->buf - old, "[%zu]", i));
}

void ks_jpath_restore(ks_jpath *p, size_t len)
{
    p->len = len;
    p->buf[len] = '\0';
}

size_t ks_edit_distance(const char *a, const char *b)
{
    return ks_edit_distance_within(a, b, (size_t)-1);
}

/* Optimal string alignment, computed only in the band |i - j| <= max
 * (a cell outside it is already more than max), and given up as soon as
 * a whole row is over max: a suggestion compares one word with up to
 * 50000 paths, most of them far from it. */
size_t ks_edit_distance_within(const char *a, const char *b, size_t max)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return la > lb ? la : lb;
    size_t far = (la > lb ? la : lb) + 1; /* more than any distance */
    if (max >= far)
        max = far - 1;
    if ((la > lb ? la - lb : lb - la) > max)
        return max + 1;
    size_t d[65][65];
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t from = i > max ? i - max : 1, to = i + max < lb ? i + max : lb;
        /* the cells next to the band, which the band reads, are far */
        d[i][from - 1] = from == 1 ? i : far;
        size_t row_min = d[i][from - 1];
        if (to < lb)
            d[i][to + 1] = far;
        for (size_t j = from; j <= to; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
            if (best < row_min)
                row_min = best;
        }
        if (row_min > max)
            return max + 1;
    }
    return d[la][lb] <= max ? d[la][lb] : max + 1;
}

const char *ks_suggest(const char *word, const char *const *cands, size_t n)
{
    size_t wl = strlen(word);
    size_t limit = wl / 3 > 2 ? wl / 3 : 2;
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        /* The distance is at least the difference of the lengths: a
         * candidate that cannot come within the limit, or beat the best,
         * is not compared (summaries have 100000s of paths). */
        size_t cl = strlen(cands[i]);
        size_t diff = cl > wl ? cl - wl : wl - cl;
        if (diff > limit || diff >= best_d)
            continue;
        /* only a distance within the limit and below the best matters */
        size_t d = ks_edit_distance_within(word, cands[i], best_d <= limit ? best_d - 1 : limit);
        if (d <= limit && d < best_d) {
            best_d = d;
            best = cands[i];
        }
    }
    if (best && best_d <= limit)
        return best;
    /* "linger" for "linger.ms", "ms" never: only prefixes of 4+ chars. */
    for (size_t i = 0; i < n && wl >= 4; i++)
        if (strncmp(cands[i], word, wl) == 0)
            return cands[i];
    return NULL;
}

/* Length of the longest key of object `obj` that equals `path` or is
 * followed in it by a '.'; *key receives that key. 0 if none. */
static size_t match_object(json_t *obj, const char *path, const char **key)
{
    size_t best = 0;
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        size_t kl = strlen(k);
        if (kl > best && strncmp(path, k, kl) == 0 && (path[kl] == '\0' || path[kl] == '.')) {
            best = kl;
            *key = k;
        }
    }
    return best;
}

/* Same for arrays: an index, or the longest "id"/"name" of an element. */
static size_t match_array(json_t *arr, const char *path, size_t *index)
{
    size_t best = 0;
    size_t i;
    json_t *el;
    json_array_foreach(arr, i, el) {
        if (!json_is_object(el))
            continue;
        const char *names[2] = {json_string_value(json_object_get(el, "id")),
                                json_string_value(json_object_get(el, "name"))};
        for (int n = 0; n < 2; n++) {
            const char *id = names[n];
            if (!id)
                continue;
            size_t il = strlen(id);
            if (il > best && strncmp(path, id, il) == 0 && (path[il] == '\0' || path[il] == '.')) {
                best = il;
                *index = i;
            }
        }
    }
    if (best > 0)
        return best;
    size_t digits = strspn(path, "0123456789");
    if (digits > 0 && digits < 10 && (path[digits] == '\0' || path[digits] == '.')) {
        size_t idx = (size_t)strtoul(path, NULL, 10);
        if (idx < json_array_size(arr)) {
            *index = idx;
            return digits;
        }
    }
    return 0;
}

bool ks_json_lookup(json_t *root, const char *dotted, ks_jref *ref, const char **fail_at)
{
    json_t *cur = root;
    const char *p = dotted;
    memset(ref, 0, sizeof *ref);
    ref->parent = root;
    *fail_at = p;
    while (*p) {
        size_t n = 0;
        ref->parent = cur;
        ref->key = NULL;
        if (json_is_object(cur)) {
            const char *k = NULL;
            n = match_object(cur, p, &k);
            if (n == 0)
                break;
            ref->key = k;
            cur = json_object_get(cur, k);
        } else if (json_is_array(cur)) {
            size_t idx = 0;
            n = match_array(cur, p, &idx);
            if (n == 0)
                break;
            ref->index = idx;
            cur = json_array_get(cur, idx);
        } else {
            break;
        }
        p += n;
        if (*p == '.')
            p++;
        *fail_at = p;
    }
    if (*p) {
        ref->value = NULL;
        return false;
    }
    ref->value = cur;
    return true;
}

static bool in_list(const char *s, size_t len, const char *const *list)
{
    for (size_t i = 0; list && list[i]; i++)
        if (strlen(list[i]) == len && strncmp(list[i], s, len) == 0)
            return true;
    return false;
}

/* Sets `rest` (no dots left to resolve) as a key of object `cur`. */
static bool set_key(json_t *cur, const char *rest, json_t *value, char *err, size_t errlen)
{
    if (json_object_set_new(cur, rest, value) != 0) {
        snprintf(err, errlen, "cannot set \"%s\"", rest);
        return false;
    }
    return true;
}

bool ks_json_set(json_t *root, const char *dotted, json_t *value,
                 const char *const *sections, const char *const *leaf_keys, char *err,
                 size_t errlen)
{
    if (*dotted == '\0') {
        snprintf(err, errlen, "empty path");
        json_decref(value);
        return false;
    }
    json_t *cur = root;
    const char *rest = dotted;
    for (;;) {
        if (json_is_object(cur)) {
            /* A known dotted key ("latency.ms", "linger.ms") is set here,
             * even when an object shares its first segment. */
            if (in_list(rest, strlen(rest), leaf_keys))
                return set_key(cur, rest, value, err, errlen);
            const char *k = NULL;
            size_t n = match_object(cur, rest, &k);
            if (n > 0 && rest[n] == '\0') {
                return set_key(cur, k, value, err, errlen);
            } else if (n > 0) {
                cur = json_object_get(cur, k);
                rest += n + 1;
                continue;
            }
            /* Nothing matches: create. A first segment that names a
             * section becomes an object; any other rest is one key. */
            const char *dot = strchr(rest, '.');
            size_t seglen = dot ? (size_t)(dot - rest) : strlen(rest);
            if (dot && in_list(rest, seglen, sections)) {
                char *seg = ks_strndup(rest, seglen);
                json_t *obj = json_object();
                if (!seg || !obj || json_object_set_new(cur, seg, obj) != 0) {
                    free(seg);
                    break;
                }
                free(seg);
                cur = obj;
                rest = dot + 1;
                continue;
            }
            return set_key(cur, rest, value, err, errlen);
        }
        if (json_is_array(cur)) {
            size_t idx = 0;
            size_t n = match_array(cur, rest, &idx);
            if (n == 0)
                break;
            if (rest[n] == '\0') {
                if (json_array_set_new(cur, idx, value) != 0) {
                    snprintf(err, errlen, "cannot set \"%s\"", dotted);
                    return false;
                }
                return true;
            }
            cur = json_array_get(cur, idx);
            rest += n + 1;
            continue;
        }
        snprintf(err, errlen, "\"%.*s\" leads into a value that is neither an object nor an array",
                 (int)(rest - dotted > 0 ? rest - dotted - 1 : 0), dotted);
        json_decref(value);
        return false;
    }
    snprintf(err, errlen, "\"%.*s\" matches nothing: no element has that id, name or index",
             (int)strcspn(rest, "."), rest);
    json_decref(value);
    return false;
}
