/*
 * expect.c - expectations (see expect.h).
 */
#include "sim/expect.h"

#include "sim/json_path.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Numeric comparison that treats integers exactly. */
static int compare_numbers(json_t *a, json_t *b)
{
    if (json_is_integer(a) && json_is_integer(b)) {
        json_int_t x = json_integer_value(a), y = json_integer_value(b);
        return x < y ? -1 : x > y;
    }
    double x = json_number_value(a), y = json_number_value(b);
    return x < y ? -1 : x > y;
}

static bool values_equal(json_t *a, json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return compare_numbers(a, b) == 0;
    return json_equal(a, b) != 0;
}

static bool holds(const char *op, json_t *actual, json_t *want)
{
    if (strcmp(op, "==") == 0)
        return values_equal(actual, want);
    if (strcmp(op, "!=") == 0)
        return !values_equal(actual, want);
    if (!json_is_number(actual) || !json_is_number(want))
        return false;
    int c = compare_numbers(actual, want);
    if (strcmp(op, "<") == 0)
        return c < 0;
    if (strcmp(op, "<=") == 0)
        return c <= 0;
    if (strcmp(op, ">") == 0)
        return c > 0;
    return c >= 0; /* ">=" */
}

static bool is_comparison(json_t *v)
{
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
    if (!json_is_object(v) || json_object_size(v) == 0)
        return false;
    const char *k;
    json_t *x;
    json_object_foreach(v, k, x) {
        bool known = false;
        for (size_t i = 0; i < 6; i++)
            known = known || strcmp(k, ops[i]) == 0;
        if (!known)
            return false;
    }
    return true;
}

/* Collects every leaf path of the summary, for suggestions. */
static void collect_paths(json_t *v, char *prefix, size_t len, size_t cap, char ***out,
                          size_t *n, size_t *ncap)
{
    if (json_is_object(v)) {
        const char *k;
        json_t *c;
        json_object_foreach(v, k, c) {
            int w = snprintf(prefix + len, cap - len, "%s%s", len ? "." : "", k);
            if (w > 0 && (size_t)w < cap - len)
                collect_paths(c, prefix, len + (size_t)w, cap, out, n, ncap);
            prefix[len] = '\0';
        }
        return;
    }
    if (*n == *ncap) {
        size_t nc = *ncap ? *ncap * 2 : 64;
        char **p = realloc(*out, nc * sizeof *p);
        if (!p)
            return;
        *out = p;
        *ncap = nc;
    }
    size_t l = strlen(prefix);
    char *copy = malloc(l + 1);
    if (copy) {
        memcpy(copy, prefix, l + 1);
        (*out)[(*n)++] = copy;
    }
}

/* Suggestions compare an unknown path with every leaf path of the
 * summary. A big scenario's summary has hundreds of thousands of them
 * (four per partition) and an expect block may name many unknown paths:
 * fuzz_run found three typos over 100000 partitions taking seconds (70 s
 * under ASan). So the leaf paths are collected once per check, and one
 * check compares at most SUGGEST_BUDGET of them in all; past that, an
 * unknown path gets no suggestion. */
#define SUGGEST_BUDGET 50000u

typedef struct suggester {
    json_t *summary;
    char **paths;
    size_t n, cap;
    bool collected;
    size_t budget; /* comparisons left */
} suggester;

static const char *suggest_path(suggester *sg, const char *path, char *buf, size_t buflen)
{
    if (!sg->collected) {
        char prefix[512] = "";
        collect_paths(sg->summary, prefix, 0, sizeof prefix, &sg->paths, &sg->n, &sg->cap);
        sg->collected = true;
    }
    size_t n = sg->n < sg->budget ? sg->n : sg->budget;
    sg->budget -= n;
    const char *s = ks_suggest(path, (const char *const *)sg->paths, n);
    if (!s)
        return NULL;
    snprintf(buf, buflen, "%s", s);
    return buf;
}

static void suggester_free(suggester *sg)
{
    for (size_t i = 0; i < sg->n; i++)
        free(sg->paths[i]);
    free(sg->paths);
}

static void check_one(suggester *sg, const char *path, json_t *want, ks_expect_result *res)
{
    json_t *summary = sg->summary;
    ks_jref ref;
    const char *rest;
    json_t *entry = json_object();
    json_object_set_new(entry, "path", json_string(path));
    json_object_set(entry, "expected", want);
    bool ok = false;
    res->checked++;
    if (!ks_json_lookup(summary, path, &ref, &rest)) {
        char buf[256];
        res->unknown_paths++;
        json_object_set_new(entry, "actual", json_null());
        json_object_set_new(entry, "error", json_string("no such value in the summary"));
        if (suggest_path(sg, path, buf, sizeof buf))
            json_object_set_new(entry, "did_you_mean", json_string(buf));
    } else {
        json_object_set(entry, "actual", ref.value);
        if (is_comparison(want)) {
            ok = true;
            const char *op;
            json_t *operand;
            json_object_foreach(want, op, operand) {
                ok = ok && holds(op, ref.value, operand);
            }
        } else {
            ok = values_equal(ref.value, want);
        }
    }
    json_object_set_new(entry, "ok", json_boolean(ok));
    if (!ok)
        res->failed++;
    json_array_append_new(res->report, entry);
}

void ks_expect_check(json_t *expect, json_t *summary, ks_expect_result *res)
{
    memset(res, 0, sizeof *res);
    res->report = json_array();
    if (!expect)
        return;
    suggester sg = {.summary = summary, .budget = SUGGEST_BUDGET};
    if (!json_object_get(expect, "verdict")) {
        json_t *want = json_string("complete");
        check_one(&sg, "verdict", want, res);
        json_decref(want);
    }
    const char *k;
    json_t *v;
    json_object_foreach(expect, k, v) {
        check_one(&sg, k, v, res);
    }
    suggester_free(&sg);
}
