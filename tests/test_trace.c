/*
 * test_trace.c - the trace writer: exact bytes of a line, field order,
 * escaping, levels, and output larger than the buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A schema of the test's own: the writer knows levels, not kinds. */
enum { T_HEADER, T_SEND, T_APPEND, T_RESPONSE, T_PRODUCE, T_ACK, T_EVENT, T__COUNT };
static const char *const t_names[] = {"header", "send", "append", "response", "produce", "ack",
                                      "event"};
static const unsigned char t_levels[] = {KS_TL_SUMMARY, KS_TL_BATCH, KS_TL_BATCH, KS_TL_BATCH,
                                         KS_TL_RECORD,  KS_TL_RECORD, KS_TL_DEBUG};
static const ks_trace_schema schema = {T__COUNT, t_names, t_levels};

static void init(ks_trace *tr, FILE *f, ks_trace_level level)
{
    ks_trace_init(tr, f, level);
    ks_trace_use_schema(tr, &schema);
}

/* Reads a whole stream written by the writer. */
static char *slurp(FILE *f, size_t *len)
{
    fflush(f);
    long n = ftell(f);
    rewind(f);
    char *buf = calloc((size_t)n + 1, 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    *len = (size_t)n;
    return buf;
}

/* Expected output, built a line at a time with printf. */
typedef struct expected {
    char *buf;
    size_t len, cap;
} expected;

static void expect_line(expected *e, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof line);
    if (e->len + (size_t)n > e->cap) {
        e->cap = (e->cap + (size_t)n) * 2;
        e->buf = realloc(e->buf, e->cap);
        assert_non_null(e->buf);
    }
    memcpy(e->buf + e->len, line, (size_t)n);
    e->len += (size_t)n;
}

/* The stream holds exactly what e expects; frees both. */
static void check_stream(ks_trace *tr, FILE *f, expected *e)
{
    assert_true(ks_trace_flush(tr));
    size_t n;
    char *s = slurp(f, &n);
    assert_int_equal(n, e->len);
    assert_memory_equal(s, e->buf, n);
    free(s);
    free(e->buf);
    free(tr);
    fclose(f);
}

static void test_line_bytes(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ks_trace *tr = malloc(sizeof *tr);
    init(tr, f, KS_TL_RECORD);
    assert_true(ks_trace_begin(tr, 1500, T_APPEND));
    ks_trace_u64(tr, "broker", 0);
    ks_trace_str(tr, "topic", "events");
    ks_trace_i64(tr, "offset", -1);
    ks_trace_bool(tr, "ok", true);
    ks_trace_null(tr, "key");
    ks_trace_raw(tr, "obj", "{\"a\":1}");
    ks_trace_end(tr);
    assert_true(ks_trace_flush(tr));
    size_t n;
    char *s = slurp(f, &n);
    assert_string_equal(s, "{\"t\":1500,\"ev\":\"append\",\"broker\":0,\"topic\":\"events\","
                           "\"offset\":-1,\"ok\":true,\"key\":null,\"obj\":{\"a\":1}}\n");
    assert_int_equal(tr->lines, 1);
    assert_int_equal(tr->lines_by_kind[T_APPEND], 1);
    free(s);
    free(tr);
    fclose(f);
}

static void test_escaping(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ks_trace *tr = malloc(sizeof *tr);
    init(tr, f, KS_TL_DEBUG);
    ks_trace_begin(tr, 0, T_PRODUCE);
    ks_trace_str(tr, "key", "a\"b\\c\nd\x01" "e\xc3\xa9");
    ks_trace_end(tr);
    ks_trace_flush(tr);
    size_t n;
    char *s = slurp(f, &n);
    assert_string_equal(s, "{\"t\":0,\"ev\":\"produce\",\"key\":\"a\\\"b\\\\c\\nd\\u0001e\xc3\xa9\"}\n");
    free(s);
    free(tr);
    fclose(f);
}

static void test_levels(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ks_trace *tr = malloc(sizeof *tr);
    init(tr, f, KS_TL_BATCH);
    assert_true(ks_trace_on(tr, T_HEADER));
    assert_true(ks_trace_on(tr, T_SEND));
    assert_false(ks_trace_on(tr, T_PRODUCE)); /* record level */
    assert_false(ks_trace_on(tr, T_EVENT));   /* debug level */
    assert_false(ks_trace_begin(tr, 5, T_ACK));
    ks_trace_u64(tr, "record", 1); /* ignored: no line open */
    ks_trace_end(tr);
    assert_true(ks_trace_begin(tr, 6, T_SEND));
    ks_trace_end(tr);
    ks_trace_flush(tr);
    size_t n;
    char *s = slurp(f, &n);
    assert_string_equal(s, "{\"t\":6,\"ev\":\"send\"}\n");
    assert_int_equal(tr->lines, 1);
    free(s);
    free(tr);
    fclose(f);
}

static void test_no_stream(void **state)
{
    (void)state;
    ks_trace *tr = malloc(sizeof *tr);
    init(tr, NULL, KS_TL_DEBUG);
    assert_false(ks_trace_on(tr, T_HEADER));
    assert_false(ks_trace_begin(tr, 0, T_HEADER));
    assert_true(ks_trace_flush(tr));
    free(tr);
}

static void test_level_names(void **state)
{
    (void)state;
    ks_trace_level l;
    assert_true(ks_trace_level_parse("summary", &l));
    assert_int_equal(l, KS_TL_SUMMARY);
    assert_true(ks_trace_level_parse("debug", &l));
    assert_int_equal(l, KS_TL_DEBUG);
    assert_false(ks_trace_level_parse("records", &l));
    assert_string_equal(ks_trace_level_name(KS_TL_BATCH), "batch");
}

/* Without a schema nothing is written: the models name the kinds. */
static void test_no_schema_writes_nothing(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ks_trace *tr = malloc(sizeof *tr);
    ks_trace_init(tr, f, KS_TL_DEBUG);
    assert_false(ks_trace_on(tr, T_HEADER));
    assert_false(ks_trace_begin(tr, 0, T_HEADER));
    ks_trace_u64(tr, "x", 1);
    ks_trace_end(tr);
    assert_true(ks_trace_flush(tr));
    assert_int_equal(ftell(f), 0);
    assert_int_equal(tr->lines, 0);
    free(tr);
    fclose(f);
}

/* More than the 64 KiB buffer: every line intact, in order. */
/* Every decimal length, both sides of each power of ten, as a time, an
 * unsigned and a signed field, against printf; and null strings. */
static void test_number_digits(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ks_trace *tr = malloc(sizeof *tr);
    init(tr, f, KS_TL_RECORD);
    uint64_t vals[64];
    size_t nv = 0;
    vals[nv++] = 0;
    for (uint64_t p = 1; nv < 60; p *= 10u) {
        vals[nv++] = p - 1u;
        vals[nv++] = p;
        vals[nv++] = p + 1u;
        if (p > UINT64_MAX / 10u)
            break;
    }
    vals[nv++] = UINT64_MAX;
    for (size_t i = 0; i < nv; i++) {
        int64_t t = vals[i] > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)vals[i];
        ks_trace_begin(tr, t, T_ACK);
        ks_trace_u64(tr, "u", vals[i]);
        ks_trace_i64(tr, "i", -t);
        ks_trace_str(tr, "s", NULL);
        ks_trace_end(tr);
    }
    expected e = {0};
    for (size_t i = 0; i < nv; i++) {
        long long t = vals[i] > (uint64_t)INT64_MAX ? INT64_MAX : (long long)vals[i];
        expect_line(&e, "{\"t\":%lld,\"ev\":\"ack\",\"u\":%llu,\"i\":%lld,\"s\":null}\n", t,
                    (unsigned long long)vals[i], -t);
    }
    check_stream(tr, f, &e);
}

static void test_large_output(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ks_trace *tr = malloc(sizeof *tr);
    init(tr, f, KS_TL_RECORD);
    for (int64_t i = 0; i < 20000; i++) {
        ks_trace_begin(tr, i, T_ACK);
        ks_trace_i64(tr, "latency_ns", INT64_MIN + i);
        ks_trace_u64(tr, "record", UINT64_MAX - (uint64_t)i);
        ks_trace_str(tr, "key", NULL);
        ks_trace_end(tr);
    }
    expected e = {0};
    for (int64_t i = 0; i < 20000; i++)
        expect_line(&e,
                    "{\"t\":%lld,\"ev\":\"ack\",\"latency_ns\":%lld,\"record\":%llu,\"key\":null}\n",
                    (long long)i, (long long)(INT64_MIN + i),
                    (unsigned long long)(UINT64_MAX - (uint64_t)i));
    check_stream(tr, f, &e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_bytes),    cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_levels),        cmocka_unit_test(test_no_stream),
        cmocka_unit_test(test_level_names),   cmocka_unit_test(test_large_output),
        cmocka_unit_test(test_no_schema_writes_nothing), cmocka_unit_test(test_number_digits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
