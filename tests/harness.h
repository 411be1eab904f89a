/*
 * harness.h - the tests' in-process run harness: a scenario text run to
 * the end with its trace captured in memory and split into lines, its
 * summary parsed, and helpers to pick values out of both.
 *
 * Every helper fails the current cmocka test when what it looks for is
 * not there. Include after cmocka.h.
 */
#ifndef KS_TEST_HARNESS_H
#define KS_TEST_HARNESS_H

#include "models/scenario.h"
#include "models/world.h"
#include "sim/trace.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct run {
    char *trace;
    size_t trace_len;
    json_t *summary;
    char *summary_text;
    char **lines;       /* the trace split into NUL-terminated lines */
    size_t nlines;
    /* nth_field's place, so walking k = 0, 1, 2... is linear */
    char last_ev[32];
    size_t last_k, last_line;
} run;

/* Runs the scenario text (file name "t.json" in messages) with the
 * overrides, tracing at `level`. */
run run_text(const char *json, const ks_override *o, size_t n, ks_trace_level level);
/* Runs world w, whose trace tr writes to f, and reads trace and summary;
 * closes f (the caller frees w and tr). */
run run_world(ks_world *w, ks_trace *tr, FILE *f);
void run_free(run *r);
void split_lines(run *r);

/* Summary values by dotted path. */
int64_t sum_int(const run *r, const char *path);
const char *sum_str(const run *r, const char *path);
bool sum_bool(const run *r, const char *path);

/* Trace lines. */
bool line_is(const char *line, const char *ev);
size_t count_ev(const run *r, const char *ev);
bool line_has(const char *line, const char *field);
int64_t line_int(const char *line, const char *field);
bool line_str_is(const char *line, const char *field, const char *value);
/* The index of the k-th line of kind ev (with string field == value if
 * field); r->nlines if none. */
size_t find_idx(const run *r, const char *ev, const char *field, const char *value, size_t k);
const char *find_line(const run *r, const char *ev, const char *field, const char *value,
                      size_t k);
const char *nth(const run *r, const char *ev, size_t k);
/* The k-th line of kind ev that has no "api" field: a produce request's
 * send, arrive or response line; NULL if none. */
const char *nth_produce(const run *r, const char *ev, size_t k);
size_t count_with(const run *r, const char *ev, const char *field, const char *value);
const char *find_int(const run *r, const char *ev, const char *field, int64_t value);
/* The integer `field` of the k-th line of kind ev. */
int64_t nth_field(run *r, const char *ev, size_t k, const char *field);

/* Files and commands. */
/* The source tree: $KSIM_SOURCE_DIR, else ".." (ctest runs in build/tests). */
const char *source_dir(void);
/* Whether path names something (a file or a directory). */
bool exists(const char *path);
/* How many times needle occurs in text, not overlapping. */
size_t count_of(const char *text, const char *needle);
/* The whole file, or NULL when it cannot be read. */
char *read_whole(const char *path);
/* What a command (ks_cli_main, ks_cmd_check, ...) returned and printed on
 * standard output and standard error. */
typedef struct captured {
    int rc;
    char *out, *err;
} captured;
captured capture(int (*cmd)(int, char **), int argc, const char **argv);
void captured_free(captured *c);

#endif
