/*
 * harness.c - the tests' in-process run harness (see harness.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/harness.h"

#include "models/world.h"
#include "sim/json_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void split_lines(run *r)
{
    char *copy = malloc(r->trace_len + 1);
    assert_non_null(copy);
    memcpy(copy, r->trace, r->trace_len + 1);
    size_t n = 0;
    for (size_t i = 0; i < r->trace_len; i++)
        n += copy[i] == '\n';
    r->lines = calloc(n + 1, sizeof *r->lines);
    assert_non_null(r->lines);
    char *line = copy;
    for (size_t i = 0; i < r->trace_len; i++) {
        if (copy[i] == '\n') {
            copy[i] = '\0';
            r->lines[r->nlines++] = line;
            line = copy + i + 1;
        }
    }
    if (r->nlines == 0)
        free(copy);
}

/* True if a trace line is of kind `ev`: {"t":N,"ev":"<ev>",... */
bool line_is(const char *line, const char *ev)
{
    const char *p = strchr(line, ',');
    if (!p || strncmp(p, ",\"ev\":\"", 7) != 0)
        return false;
    size_t n = strlen(ev);
    return strncmp(p + 7, ev, n) == 0 && p[7 + n] == '"';
}

run run_world(ks_world *w, ks_trace *tr, FILE *f)
{
    run r = {0};
    ks_world_run(w);
    assert_true(ks_trace_flush(tr));
    r.summary = ks_world_summary(w);
    r.summary_text = json_dumps(r.summary, JSON_COMPACT);
    long len = ftell(f);
    assert_true(len >= 0);
    rewind(f);
    r.trace = calloc((size_t)len + 1, 1);
    assert_non_null(r.trace);
    assert_int_equal(fread(r.trace, 1, (size_t)len, f), (size_t)len);
    r.trace_len = (size_t)len;
    fclose(f);
    split_lines(&r);
    return r;
}

run run_text(const char *json, const ks_override *o, size_t n, ks_trace_level level)
{
    run r = {0};
    ks_diag *d = malloc(sizeof *d);
    assert_non_null(d);
    ks_diag_init(d);
    ks_scenario *sc = ks_scenario_parse("t.json", json, o, n, false, 0, d);
    if (!sc)
        ks_diag_print(d, stderr);
    assert_non_null(sc);
    FILE *f = tmpfile();
    assert_non_null(f);
    ks_trace *tr = malloc(sizeof *tr);
    assert_non_null(tr);
    ks_trace_init(tr, f, level);
    ks_world *w = ks_world_create(sc, tr, d);
    if (!w)
        ks_diag_print(d, stderr);
    assert_non_null(w);
    r = run_world(w, tr, f);
    ks_world_free(w);
    ks_scenario_free(sc);
    free(tr);
    free(d);
    return r;
}

void run_free(run *r)
{
    if (r->lines && r->nlines > 0)
        free(r->lines[0]);
    free(r->lines);
    free(r->trace);
    free(r->summary_text);
    json_decref(r->summary);
}

int64_t sum_int(const run *r, const char *path)
{
    ks_jref ref;
    const char *rest;
    if (!ks_json_lookup(r->summary, path, &ref, &rest)) {
        print_error("no summary value at %s\n", path);
        fail();
    }
    if (!json_is_integer(ref.value)) {
        print_error("summary value at %s is not an integer\n", path);
        fail();
    }
    return (int64_t)json_integer_value(ref.value);
}

const char *sum_str(const run *r, const char *path)
{
    ks_jref ref;
    const char *rest;
    assert_true(ks_json_lookup(r->summary, path, &ref, &rest));
    assert_true(json_is_string(ref.value));
    return json_string_value(ref.value);
}

bool sum_bool(const run *r, const char *path)
{
    ks_jref ref;
    const char *rest;
    assert_true(ks_json_lookup(r->summary, path, &ref, &rest));
    assert_true(json_is_boolean(ref.value));
    return json_is_true(ref.value);
}

/* Counts trace lines of one kind. */
size_t count_ev(const run *r, const char *ev)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nlines; i++)
        n += line_is(r->lines[i], ev);
    return n;
}

/* Does the line have "field":? */
bool line_has(const char *line, const char *field)
{
    char key[64];
    snprintf(key, sizeof key, "\"%s\":", field);
    return strstr(line, key) != NULL;
}

/* The integer value of `field` in a line (the first occurrence; "t" is
 * always first). */
int64_t line_int(const char *line, const char *field)
{
    char key[64];
    snprintf(key, sizeof key, "\"%s\":", field);
    const char *f = strstr(line, key);
    if (!f) {
        print_error("no field %s in %s\n", field, line);
        fail();
    }
    char *end = NULL;
    long long v = strtoll(f + strlen(key), &end, 10);
    assert_true(end != f + strlen(key)); /* a number, not a string */
    return (int64_t)v;
}

/* Is the string field `field` equal to `value` in the line? */
bool line_str_is(const char *line, const char *field, const char *value)
{
    char key[256];
    snprintf(key, sizeof key, "\"%s\":\"%s\"", field, value);
    const char *f = strstr(line, key);
    if (!f)
        return false;
    char after = f[strlen(key)];
    return after == ',' || after == '}';
}

/* The index of the k-th line of kind `ev` (of those whose string field
 * `field` is `value`, when field is not NULL); r->nlines if none. */
size_t find_idx(const run *r, const char *ev, const char *field, const char *value,
                       size_t k)
{
    size_t seen = 0;
    for (size_t i = 0; i < r->nlines; i++) {
        if (!line_is(r->lines[i], ev))
            continue;
        if (field && !line_str_is(r->lines[i], field, value))
            continue;
        if (seen++ == k)
            return i;
    }
    return r->nlines;
}

/* The k-th line of kind `ev` (with field == value if field); fails if
 * there is none. */
const char *find_line(const run *r, const char *ev, const char *field, const char *value,
                             size_t k)
{
    size_t i = find_idx(r, ev, field, value, k);
    if (i == r->nlines) {
        print_error("no %s line #%zu (%s=%s)\n", ev, k, field ? field : "-",
                    value ? value : "-");
        fail();
    }
    return r->lines[i];
}

const char *nth(const run *r, const char *ev, size_t k)
{
    return find_line(r, ev, NULL, NULL, k);
}

const char *nth_produce(const run *r, const char *ev, size_t k)
{
    for (size_t i = 0; i < r->nlines; i++)
        if (line_is(r->lines[i], ev) && !line_has(r->lines[i], "api") && k-- == 0)
            return r->lines[i];
    return NULL;
}

size_t count_with(const run *r, const char *ev, const char *field, const char *value)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nlines; i++)
        n += line_is(r->lines[i], ev) && line_str_is(r->lines[i], field, value);
    return n;
}

/* The first line of kind `ev` whose integer field `field` is `value`. */
const char *find_int(const run *r, const char *ev, const char *field, int64_t value)
{
    for (size_t i = 0; i < r->nlines; i++)
        if (line_is(r->lines[i], ev) && line_has(r->lines[i], field) &&
            line_int(r->lines[i], field) == value)
            return r->lines[i];
    print_error("no %s line with %s=%lld\n", ev, field, (long long)value);
    fail();
    return NULL;
}

/* The integer value of `field` in the k-th line of kind `ev`. */
int64_t nth_field(run *r, const char *ev, size_t k, const char *field)
{
    size_t i = 0, seen = 0;
    if (strcmp(r->last_ev, ev) == 0 && k >= r->last_k) {
        i = r->last_line;
        seen = r->last_k;
    }
    for (; i < r->nlines; i++) {
        if (!line_is(r->lines[i], ev))
            continue;
        if (seen == k)
            break;
        seen++;
    }
    assert_true(i < r->nlines);
    snprintf(r->last_ev, sizeof r->last_ev, "%s", ev);
    r->last_k = k;
    r->last_line = i;
    char key[64];
    snprintf(key, sizeof key, "\"%s\":", field);
    const char *f = strstr(r->lines[i], key);
    assert_non_null(f);
    return strtoll(f + strlen(key), NULL, 10);
}

/* ---- files and commands -------------------------------------------------- */

/* All of f (closed). */
static char *slurp(FILE *f)
{
    fflush(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    char *buf = calloc((size_t)(n > 0 ? n : 0) + 1, 1);
    assert_non_null(buf);
    rewind(f);
    size_t got = fread(buf, 1, (size_t)(n > 0 ? n : 0), f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

const char *source_dir(void)
{
    const char *s = getenv("KSIM_SOURCE_DIR");
    return s && *s ? s : "..";
}

bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

char *read_whole(const char *path)
{
    FILE *f = fopen(path, "rb");
    return f ? slurp(f) : NULL;
}

captured capture(int (*cmd)(int, char **), int argc, const char **argv)
{
    captured c;
    FILE *out = tmpfile(), *err = tmpfile();
    assert_non_null(out);
    assert_non_null(err);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    dup2(fileno(out), 1);
    dup2(fileno(err), 2);
    c.rc = cmd(argc, (char **)argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    c.out = slurp(out);
    c.err = slurp(err);
    return c;
}

void captured_free(captured *c)
{
    free(c->out);
    free(c->err);
    c->out = c->err = NULL;
}
