/*
 * fuzz_trace.c - fuzzes the trace reader that `ksim explain` and
 * `ksim report` read traces with (tools/trace_line.h). The input is a
 * trace, read from memory (fmemopen) two ways:
 *   1. line by line with ks_tl_reader_next and ks_tline_parse, every
 *      field of every line read back with each typed getter, nested
 *      objects through jansson and the ks_tl_j* reads;
 *   2. record by record with ks_tl_next, with a short max_line, so that
 *      long lines and the buffer's growth are taken too.
 * A parsed line must read back what it holds (the field found by its
 * key is that field; strings are NUL-terminated): anything else aborts.
 * The commands built on the reader are fuzz_explain_report's.
 */
#define _POSIX_C_SOURCE 200809L /* fmemopen */

#include "tests/fuzz/fuzz_target.h"

#include "tools/trace_line.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALL_TYPES                                                                  \
    (KS_TLT_NULL | KS_TLT_BOOL | KS_TLT_INT | KS_TLT_REAL | KS_TLT_STRING | KS_TLT_OBJECT | \
     KS_TLT_ARRAY)

/* The input as a stream; a zero-length input is an empty file. */
static FILE *open_input(const uint8_t *data, size_t size)
{
    if (size == 0)
        return fopen("/dev/null", "r");
    return fmemopen((void *)data, size, "r");
}

/* The jansson-side reads over one nested object. */
static void read_object(json_t *o)
{
    ks_tl_error e = {0};
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        ks_tl_jget(&e, o, "x", k, ALL_TYPES);
        ks_tl_jint(&e, o, "x", k, 0);
        ks_tl_jstr(&e, o, "x", k, NULL);
        if (json_is_object(v)) {
            char dotted[128];
            snprintf(dotted, sizeof dotted, "%.60s.%.60s", k,
                     json_object_size(v) ? json_object_iter_key(json_object_iter(v)) : "");
            ks_tl_jpath(&e, o, dotted, ALL_TYPES);
        }
    }
}

/* Reads every field back with every getter. */
static void read_fields(ks_tline *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const ks_tl_field *f = &l->fields[i];
        if (!ks_tl_has(l, f->key) || strlen(f->key) != f->key_len)
            abort();
        int64_t v = ks_tl_int(l, f->key, 0);
        if (f->type == KS_TLT_INT && v != f->i)
            abort();
        ks_tl_int_or_null(l, f->key, -1);
        const char *s = ks_tl_str(l, f->key, NULL);
        if (f->type == KS_TLT_STRING && (s != f->s || s[f->len] != '\0'))
            abort();
        ks_tl_str_or_null(l, f->key);
        ks_tl_bool(l, f->key, false);
        json_t *o = ks_tl_object(l, f->key);
        if (o)
            read_object(o);
        json_decref(o);
    }
    ks_tline_error(l);
}

static void by_line(const uint8_t *data, size_t size)
{
    FILE *in = open_input(data, size);
    if (!in)
        return;
    ks_tl_reader r;
    ks_tl_reader_init(&r, in);
    ks_tline l;
    ks_tline_init(&l);
    char *line;
    size_t len;
    while (ks_tl_reader_next(&r, &line, &len) > 0) {
        if (line[len] != '\0')
            abort();
        if (ks_tline_parse(&l, line, len))
            read_fields(&l);
    }
    ks_tline_free(&l);
    ks_tl_reader_free(&r);
    fclose(in);
}

static void by_record(const uint8_t *data, size_t size)
{
    FILE *in = open_input(data, size);
    if (!in)
        return;
    ks_tl_reader r;
    ks_tl_reader_init(&r, in);
    r.max_line = 200;
    ks_tline l;
    ks_tline_init(&l);
    /* every line takes at least one byte: a reader that keeps returning
     * lines (or errors) beyond that is stuck */
    for (size_t n = 0; n <= size + 1; n++) {
        int got = ks_tl_next(&r, &l);
        if (got == 0)
            break;
        if (got < 0 && r.err[0] == '\0')
            abort(); /* an error always says why */
        if (got < 0 && strncmp(r.err, "longer than", 11) == 0)
            break;   /* the reader does not go past a line it refused */
    }
    ks_tline_free(&l);
    ks_tl_reader_free(&r);
    fclose(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    by_line(data, size);
    by_record(data, size);
    return 0;
}
