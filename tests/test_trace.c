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

/* Strings of every length from 0 to 200 at every place relative to the
 * buffer's end (the fast path copies while it scans and must stop at
 * the room left), some with an escape at their end, one longer than the
 * buffer: against printf. */
static void test_strings_at_buffer_end(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ks_trace *tr = malloc(sizeof *tr);
    init(tr, f, KS_TL_RECORD);
    char *big = malloc(KS_TRACE_BUF + 100);
    memset(big, 'x', KS_TRACE_BUF + 99);
    big[KS_TRACE_BUF + 99] = '\0';
    char s[202];
    expected e = {0};
    for (int i = 0; i < 3000; i++) {
        size_t m = (size_t)(i * 7) % 201u;
        memset(s, 'a' + i % 26, m);
        s[m] = '\0';
        if (i % 5 == 4 && m > 0)
            s[m - 1] = '"';
        ks_trace_begin(tr, i, T_ACK);
        ks_trace_str(tr, "k", s);
        ks_trace_end(tr);
        char want[300], *q = want;
        q += sprintf(q, "{\"t\":%d,\"ev\":\"ack\",\"k\":\"", i);
        memcpy(q, s, m);
        q += m;
        if (i % 5 == 4 && m > 0)
            q[-1] = '\\', *q++ = '"';
        *q = '\0';
        expect_line(&e, "%s\"}\n", want);
        if (i == 1500) { /* a string longer than the whole buffer */
            ks_trace_begin(tr, 0, T_ACK);
            ks_trace_str(tr, "big", big);
            ks_trace_end(tr);
            expect_line(&e, "{\"t\":0,\"ev\":\"ack\",\"big\":\"");
            for (size_t k = 0; k < KS_TRACE_BUF + 99; k += 99)
                expect_line(&e, "%.*s", (int)(KS_TRACE_BUF + 99 - k < 99 ? KS_TRACE_BUF + 99 - k : 99),
                            big);
            expect_line(&e, "\"}\n");
        }
    }
    free(big);
    check_stream(tr, f, &e);
}

/* Lines started from runs kept from an earlier line give the same bytes
 * as lines written field by field, across many buffer flushes; a run
 * that has left the buffer, or that is longer than a run holds, is not
 * kept, and the line is still whole. */
static void test_repeated_lines(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ks_trace *tr = malloc(sizeof *tr);
    init(tr, f, KS_TL_RECORD);
    expected e = {0};
    ks_trace_run head, mid;
    bool kept = false;
    for (uint64_t i = 0; i < 6000; i++) {
        int64_t t = 1000000 + (int64_t)(i / 7u);
        if (i % 7u == 0) { /* a group's first line, field by field */
            uint64_t m = ks_trace_mark(tr);
            assert_true(ks_trace_begin(tr, t, T_ACK));
            ks_trace_str(tr, "producer", "p\"1");
            kept = ks_trace_keep(tr, m, &head);
            ks_trace_u64(tr, "record", i);
            m = ks_trace_mark(tr);
            ks_trace_str(tr, "topic", "clicks");
            kept &= ks_trace_keep(tr, m, &mid);
            ks_trace_end(tr);
        } else if (kept) {
            assert_true(ks_trace_begin_run(tr, T_ACK, &head));
            ks_trace_u64(tr, "record", i);
            ks_trace_put_run(tr, &mid);
            ks_trace_end(tr);
        } else {
            continue;
        }
        expect_line(&e,
                    "{\"t\":%lld,\"ev\":\"ack\",\"producer\":\"p\\\"1\",\"record\":%llu,"
                    "\"topic\":\"clicks\"}\n",
                    (long long)t, (unsigned long long)i);
    }
    /* a line that starts 8 bytes before the buffer's end: its start
     * leaves the buffer while it is written, and is not kept */
    while (KS_TRACE_BUF - tr->len > 200) {
        ks_trace_begin(tr, 0, T_ACK);
        ks_trace_end(tr);
        expect_line(&e, "{\"t\":0,\"ev\":\"ack\"}\n");
    }
    char pad[200];
    size_t pn = KS_TRACE_BUF - tr->len - 8u - 26u; /* the line is 26 bytes and the pad */
    memset(pad, 'y', pn);
    pad[pn] = '\0';
    ks_trace_begin(tr, 0, T_ACK);
    ks_trace_str(tr, "k", pad);
    ks_trace_end(tr);
    expect_line(&e, "{\"t\":0,\"ev\":\"ack\",\"k\":\"%s\"}\n", pad);
    assert_int_equal(KS_TRACE_BUF - tr->len, 8);
    uint64_t m = ks_trace_mark(tr);
    assert_true(ks_trace_begin(tr, 7, T_ACK));
    ks_trace_str(tr, "producer", "p1");
    assert_false(ks_trace_keep(tr, m, &head));
    assert_int_equal(head.len, 0);
    ks_trace_end(tr);
    expect_line(&e, "{\"t\":7,\"ev\":\"ack\",\"producer\":\"p1\"}\n");
    /* a run longer than a run holds; then one that fits, zeroed after */
    m = ks_trace_mark(tr);
    assert_true(ks_trace_begin(tr, 5, T_ACK));
    uint64_t m2 = ks_trace_mark(tr);
    memset(pad, 'z', KS_TRACE_RUN_MAX);
    pad[KS_TRACE_RUN_MAX] = '\0';
    ks_trace_str(tr, "k", pad);
    assert_false(ks_trace_keep(tr, m2, &mid));
    ks_trace_end(tr);
    expect_line(&e, "{\"t\":5,\"ev\":\"ack\",\"k\":\"%s\"}\n", pad);
    m = ks_trace_mark(tr);
    assert_true(ks_trace_begin(tr, 5, T_ACK));
    assert_true(ks_trace_keep(tr, m, &head));
    assert_int_equal(head.len, 17);
    assert_memory_equal(head.text, "{\"t\":5,\"ev\":\"ack\"", 17);
    for (size_t k = 17; k < KS_TRACE_RUN_MAX; k++)
        assert_int_equal(head.text[k], 0);
    ks_trace_end(tr);
    expect_line(&e, "{\"t\":5,\"ev\":\"ack\"}\n");
    assert_false(ks_trace_begin_run(tr, T_EVENT, &head)); /* debug: not written */
    ks_trace_put_run(tr, &head); /* no line open: nothing */
    /* runs put where the buffer has no room for a 16-byte step */
    for (int i = 0; i < 4000; i++) {
        ks_trace_begin_run(tr, T_ACK, &head);
        ks_trace_end(tr);
        expect_line(&e, "{\"t\":5,\"ev\":\"ack\"}\n");
    }
    check_stream(tr, f, &e);
}

/* A kind's name longer than the room for its rendered text is written
 * as it is, with the same bytes. */
static void test_long_kind_name(void **state)
{
    (void)state;
    static const char *const names[] = {"a_kind_whose_name_is_rather_long_indeed", "short"};
    static const unsigned char levels[] = {KS_TL_SUMMARY, KS_TL_SUMMARY};
    static const ks_trace_schema long_schema = {2, names, levels};
    FILE *f = tmpfile();
    ks_trace *tr = malloc(sizeof *tr);
    ks_trace_init(tr, f, KS_TL_SUMMARY);
    ks_trace_use_schema(tr, &long_schema);
    expected e = {0};
    for (int i = 0; i < 3000; i++) { /* across flushes */
        ks_trace_begin(tr, i, (unsigned)(i % 2));
        ks_trace_u64(tr, "n", (uint64_t)i);
        ks_trace_end(tr);
        expect_line(&e, "{\"t\":%d,\"ev\":\"%s\",\"n\":%d}\n", i, names[i % 2], i);
    }
    check_stream(tr, f, &e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_bytes),    cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_levels),        cmocka_unit_test(test_no_stream),
        cmocka_unit_test(test_level_names),   cmocka_unit_test(test_large_output),
        cmocka_unit_test(test_no_schema_writes_nothing), cmocka_unit_test(test_number_digits),
        cmocka_unit_test(test_strings_at_buffer_end), cmocka_unit_test(test_repeated_lines),
        cmocka_unit_test(test_long_kind_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
