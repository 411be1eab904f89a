/*
 * test_trace_line.c - the trace line reader (tools/trace_line.h): JSON
 * whitespace and key order, every string escape, integer limits, reals,
 * nested values kept as text and parsed on demand, duplicate keys,
 * truncated lines, NUL bytes, typed reads that record the first wrongly
 * typed field, empty and non-object lines; the line reader (long lines,
 * the bound, a last line without newline, \r\n); typed reads of jansson
 * values by JSON path.
 */
#define _XOPEN_SOURCE 700

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tools/trace_line.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A parse of a copy of text (the parser decodes in place). */
typedef struct parsed {
    ks_tline l;
    char *buf;
    bool ok;
} parsed;

static parsed parse_n(const char *text, size_t len)
{
    parsed p;
    ks_tline_init(&p.l);
    p.buf = malloc(len + 1);
    assert_non_null(p.buf);
    memcpy(p.buf, text, len);
    p.buf[len] = '\0';
    p.ok = ks_tline_parse(&p.l, p.buf, len);
    return p;
}

static parsed parse(const char *text)
{
    return parse_n(text, strlen(text));
}

static void parsed_free(parsed *p)
{
    ks_tline_free(&p->l);
    free(p->buf);
}

static void assert_contains(const char *s, const char *part)
{
    if (!s || !strstr(s, part)) {
        print_error("expected \"%s\" in \"%s\"\n", part, s ? s : "(null)");
        fail();
    }
}

/* text must be refused, with `why` in the reason. */
static void refused(const char *text, const char *why)
{
    parsed p = parse(text);
    if (p.ok)
        print_error("accepted: %s\n", text);
    assert_false(p.ok);
    assert_contains(p.l.why, why);
    parsed_free(&p);
}

static void test_whitespace_and_order(void **state)
{
    (void)state;
    parsed p = parse(" \t{ \"offset\" :\r\n 17 ,\"ev\":\"append\",  \"t\" : -5 , "
                     "\"k\" : null }\t ");
    assert_true(p.ok);
    assert_int_equal(p.l.n, 4);
    assert_int_equal(ks_tl_int(&p.l, "offset", -1), 17);
    assert_int_equal(ks_tl_int(&p.l, "t", 0), -5);
    assert_string_equal(ks_tl_str(&p.l, "ev", ""), "append");
    assert_null(ks_tl_str_or_null(&p.l, "k"));
    assert_true(ks_tl_has(&p.l, "k"));
    assert_false(ks_tl_has(&p.l, "missing"));
    assert_int_equal(ks_tl_int(&p.l, "missing", 42), 42);
    assert_null(ks_tline_error(&p.l));
    parsed_free(&p);
    p = parse("{}");
    assert_true(p.ok);
    assert_int_equal(p.l.n, 0);
    parsed_free(&p);
}

static void test_escapes(void **state)
{
    (void)state;
    parsed p = parse("{\"s\":\"q\\\"b\\\\s\\/b\\bf\\fn\\nr\\rt\\tA"
                     "\\u0041\\u00e9\\u20AC\\ud83d\\ude00\","
                     "\"k\\u0065y\":1,\"raw\":\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"}");
    assert_true(p.ok);
    assert_string_equal(ks_tl_str(&p.l, "s", ""),
                        "q\"b\\s/b\bf\fn\nr\rt\tAA\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
    assert_int_equal(ks_tl_int(&p.l, "key", 0), 1); /* keys are decoded too */
    assert_string_equal(ks_tl_str(&p.l, "raw", ""), "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
    parsed_free(&p);
    refused("{\"s\":\"\\x\"}", "an invalid escape");
    refused("{\"s\":\"\\u12\"}", "4 hex digits");
    refused("{\"s\":\"\\udc00\"}", "a lone low surrogate");
    refused("{\"s\":\"\\ud83dx\"}", "without its low half");
    refused("{\"s\":\"\\ud83d\\u0041\"}", "without its low half");
    refused("{\"s\":\"\\u0000\"}", "NUL");
    refused("{\"s\":\"a\x01\"}", "a control character");
    refused("{\"s\":\"\xFF\"}", "invalid UTF-8");
    refused("{\"s\":\"\xC0\xAF\"}", "invalid UTF-8");       /* overlong */
    refused("{\"s\":\"\xED\xA0\x80\"}", "invalid UTF-8");   /* a surrogate */
    refused("{\"s\":\"\xE2\x82\"}", "invalid UTF-8");       /* cut short */
}

static void test_integers(void **state)
{
    (void)state;
    parsed p = parse("{\"max\":9223372036854775807,\"min\":-9223372036854775808,\"zero\":0}");
    assert_true(p.ok);
    assert_true(ks_tl_int(&p.l, "max", 0) == INT64_MAX);
    assert_true(ks_tl_int(&p.l, "min", 0) == INT64_MIN);
    assert_int_equal(ks_tl_int(&p.l, "zero", 5), 0);
    parsed_free(&p);
    refused("{\"a\":9223372036854775808}", "out of range");
    refused("{\"a\":-9223372036854775809}", "out of range");
    refused("{\"a\":99999999999999999999999}", "out of range");
    refused("{\"a\":01}", "expected ',' or '}'");
    refused("{\"a\":-}", "without digits");
    refused("{\"a\":1.}", "after '.'");
    refused("{\"a\":1e}", "exponent");
    refused("{\"a\":.5}", "expected a value");
    refused("{\"a\":+1}", "expected a value");
}

static void test_reals(void **state)
{
    (void)state;
    parsed p = parse("{\"a\":1.5,\"b\":1e3,\"c\":-0,\"d\":2.5E-7}");
    assert_true(p.ok);
    static const char *const keys[] = {"a", "b", "c", "d"};
    static const char *const texts[] = {"1.5", "1e3", "-0", "2.5E-7"};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(p.l.fields[i].type, KS_TLT_REAL);
        assert_int_equal(p.l.fields[i].len, strlen(texts[i]));
        assert_memory_equal(p.l.fields[i].s, texts[i], strlen(texts[i]));
        assert_string_equal(p.l.fields[i].key, keys[i]);
    }
    assert_int_equal(ks_tl_int(&p.l, "a", -1), -1);
    assert_string_equal(ks_tline_error(&p.l), "field \"a\": expected an integer, got 1.5");
    parsed_free(&p);
}

static void test_nested(void **state)
{
    (void)state;
    const char *nested = "{\"b\":[1,{\"c\":\"}]\\\"{[\"}],\"d\":\"x\",\"e\":{}}";
    char text[256];
    snprintf(text, sizeof text, "{\"t\":1,\"a\":%s,\"n\":[[],[true,false,null]],\"e\":2}", nested);
    parsed p = parse(text);
    assert_true(p.ok);
    assert_int_equal(p.l.fields[1].type, KS_TLT_OBJECT);
    assert_int_equal(p.l.fields[1].len, strlen(nested));
    assert_memory_equal(p.l.fields[1].s, nested, strlen(nested));
    assert_int_equal(p.l.fields[2].type, KS_TLT_ARRAY);
    assert_int_equal(ks_tl_int(&p.l, "e", 0), 2);
    json_t *a = ks_tl_object(&p.l, "a");
    assert_non_null(a);
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(a, "b"),
                                                                         1), "c")), "}]\"{[");
    assert_string_equal(json_string_value(json_object_get(a, "d")), "x");
    json_decref(a);
    assert_null(ks_tline_error(&p.l));
    assert_null(ks_tl_object(&p.l, "n")); /* an array, not an object */
    assert_contains(ks_tline_error(&p.l), "field \"n\": expected an object, got [[],[true");
    assert_null(ks_tl_object(&p.l, "missing"));
    parsed_free(&p);
    refused("{\"a\":{\"b\":1,}}", "expected a key");
    refused("{\"a\":[1,]}", "an unexpected character");
    refused("{\"a\":{\"b\" 1}}", "expected ':'");
    refused("{\"a\":[1 2]}", "expected ',' or ']'");
    refused("{\"a\":{\"s\":\"\x01\"}}", "a control character");
    char deep[2200];
    memset(deep, '[', 1000);
    memset(deep + 1000, ']', 1000);
    snprintf(deep + 2000, 20, "}");
    memmove(deep + 5, deep, 2001);
    memcpy(deep, "{\"a\":", 5);
    refused(deep, "nested too deep");
    /* a nested object with a duplicate key: jansson refuses it on demand */
    p = parse("{\"a\":{\"k\":1,\"k\":2}}");
    assert_true(p.ok);
    assert_null(ks_tl_object(&p.l, "a"));
    assert_contains(ks_tline_error(&p.l), "field \"a\": duplicate object key");
    parsed_free(&p);
}

static void test_duplicates_and_truncation(void **state)
{
    (void)state;
    refused("{\"t\":1,\"ev\":\"ack\",\"t\":2}", "a duplicate key \"t\" at column 19");
    refused("{\"k\\u0031\":1,\"k1\":2}", "a duplicate key \"k1\"");
    const char *full = "{\"t\":1,\"ev\":\"ack\",\"a\":{\"b\":[1,\"x\"]},\"s\":\"abc\"}";
    for (size_t n = 0; n < strlen(full); n++) {
        parsed p = parse_n(full, n);
        assert_false(p.ok);
        assert_true(strlen(p.l.why) > 0);
        parsed_free(&p);
    }
    refused("{\"t\":1,\"ev\":\"a", "an unterminated string at column");
    refused("{\"t\":1", "the line ends");
    refused("{\"t\":1}x", "text after the object");
    refused("{\"t\":1}{}", "text after the object");
    refused("{\"t\":tru}", "expected a value at column 6");
    refused("{t:1}", "expected a key");
}

static void test_nul(void **state)
{
    (void)state;
    static const char text[] = "{\"t\":1,\"s\":\"a\0b\"}";
    parsed p = parse_n(text, sizeof text - 1);
    assert_false(p.ok);
    assert_string_equal(p.l.why, "a NUL byte at column 14");
    parsed_free(&p);
    static const char outside[] = "{\"t\":1,\0\"s\":1}";
    p = parse_n(outside, sizeof outside - 1);
    assert_false(p.ok);
    assert_string_equal(p.l.why, "a NUL byte at column 8");
    parsed_free(&p);
    static const char after[] = "{\"t\":1}\0";
    p = parse_n(after, sizeof after - 1);
    assert_false(p.ok);
    assert_string_equal(p.l.why, "a NUL byte at column 8");
    parsed_free(&p);
}

static void test_typed_reads(void **state)
{
    (void)state;
    parsed p = parse("{\"a\":\"x\\\"y\",\"b\":1.5,\"n\":7,\"f\":true,\"z\":null,\"o\":{\"k\":1}}");
    assert_true(p.ok);
    assert_int_equal(ks_tl_int(&p.l, "a", -1), -1);
    assert_int_equal(ks_tl_int(&p.l, "b", -2), -2); /* a second error is not recorded */
    assert_string_equal(ks_tline_error(&p.l), "field \"a\": expected an integer, got \"x\\\"y\"");
    parsed_free(&p);
    p = parse("{\"a\":\"x\",\"n\":7,\"f\":true,\"z\":null,\"o\":{\"k\":1}}");
    assert_string_equal(ks_tl_str(&p.l, "n", "def"), "def");
    assert_string_equal(ks_tline_error(&p.l), "field \"n\": expected a string, got 7");
    parsed_free(&p);
    p = parse("{\"a\":\"x\",\"n\":7,\"f\":true,\"z\":null,\"o\":{\"k\":1}}");
    assert_true(ks_tl_bool(&p.l, "f", false));
    assert_null(ks_tl_str_or_null(&p.l, "z"));
    assert_string_equal(ks_tl_str_or_null(&p.l, "a"), "x");
    assert_int_equal(ks_tl_int_or_null(&p.l, "z", -1), -1);
    assert_int_equal(ks_tl_int_or_null(&p.l, "n", -1), 7);
    assert_null(ks_tline_error(&p.l));
    assert_null(ks_tl_str_or_null(&p.l, "n"));
    assert_string_equal(ks_tline_error(&p.l), "field \"n\": expected a string or null, got 7");
    parsed_free(&p);
    p = parse("{\"z\":null,\"o\":{\"k\":1},\"f\":false,\"s\":\"x\"}");
    assert_string_equal(ks_tl_str(&p.l, "z", "d"), "d");
    assert_string_equal(ks_tline_error(&p.l), "field \"z\": expected a string, got null");
    parsed_free(&p);
    p = parse("{\"o\":{\"k\":1},\"s\":\"x\"}");
    assert_int_equal(ks_tl_int(&p.l, "o", 3), 3);
    assert_string_equal(ks_tline_error(&p.l), "field \"o\": expected an integer, got {\"k\":1}");
    parsed_free(&p);
    p = parse("{\"s\":\"x\",\"f\":false}");
    assert_true(ks_tl_bool(&p.l, "s", true));
    assert_string_equal(ks_tline_error(&p.l), "field \"s\": expected true or false, got \"x\"");
    assert_int_equal(ks_tl_int(&p.l, "f", 9), 9);
    parsed_free(&p);
    /* a long string is shown shortened */
    p = parse("{\"s\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}");
    ks_tl_int(&p.l, "s", 0);
    assert_contains(ks_tline_error(&p.l), "aaaa...\"");
    parsed_free(&p);
}

static void test_not_objects(void **state)
{
    (void)state;
    refused("", "an empty line");
    refused("  \t", "an empty line");
    refused("[1,2]", "not a JSON object (another JSON value)");
    refused("\"x\"", "not a JSON object");
    refused("17", "not a JSON object");
    refused("hello", "not JSON: expected '{' at column 1");
    refused("[1,", "not JSON");
}

/* A reader over text (len bytes) through fmemopen. */
static FILE *open_text(const char *text, size_t len)
{
    FILE *f = fmemopen((void *)text, len, "rb");
    assert_non_null(f);
    return f;
}

/* ks_tl_peek reads the time and kind of a line as ksim writes it, and
 * only such a beginning; the line itself is ks_tl_record's to judge. */
static void test_peek(void **state)
{
    (void)state;
    int64_t t = 0;
    ks_trace_kind k = KS_TR_HEADER;
    size_t rest = 0;
    static const char ev[] = "{\"t\":1022034,\"ev\":\"event\",\"kind\":\"timer\",\"n\":3}";
    assert_true(ks_tl_peek(ev, sizeof ev - 1, &t, &k, &rest));
    assert_int_equal(t, 1022034);
    assert_int_equal(k, KS_TR_EVENT);
    assert_int_equal(rest, strlen("{\"t\":1022034,\"ev\":\"event\""));
    assert_true(ks_tl_peek("{\"t\":0,\"ev\":\"end\"}", 19, &t, &k, &rest));
    assert_int_equal(t, 0);
    assert_int_equal(k, KS_TR_END);
    assert_true(ks_tl_peek("{\"t\":-5,\"ev\":\"zzz\"}", 19, &t, &k, &rest));
    assert_int_equal(t, -5);
    assert_int_equal(k, KS_TR__COUNT);
    /* any other beginning is not peeked at */
    static const char *const no[] = {
        "{\"ev\":\"ack\",\"t\":1}",         /* another order */
        "{ \"t\":1,\"ev\":\"ack\"}",        /* whitespace */
        "{\"t\":01,\"ev\":\"ack\"}",        /* a leading zero */
        "{\"t\":-0,\"ev\":\"ack\"}",        /* a real */
        "{\"t\":1.5,\"ev\":\"ack\"}",       /* a real */
        "{\"t\":1e3,\"ev\":\"ack\"}",       /* a real */
        "{\"t\":1234567890123456789,\"ev\":\"ack\"}", /* 19 digits */
        "{\"t\":\"1\",\"ev\":\"ack\"}",     /* a string */
        "{\"t\":1,\"ev\":\"a\\u0063k\"}",    /* an escape */
        "{\"t\":1,\"ev\":\"ack\" }",        /* whitespace after it */
        "{\"t\":1,\"ev\":\"ack",            /* cut */
        "{\"t\":1,\"ev\":ack}",              /* not a string */
        "{\"t\":",
        "",
    };
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        assert_false(ks_tl_peek(no[i], strlen(no[i]), &t, &k, &rest));
    /* only the bytes given are read */
    assert_false(ks_tl_peek(ev, 12, &t, &k, &rest));
}

/* ks_tl_record parses a line the reader returned as ks_tl_next does. */
static void test_record_of_line(void **state)
{
    (void)state;
    static const char text[] = "{\"t\":7,\"ev\":\"ack\",\"record\":3}\n{\"x\":1}\n{\"t\":8,\"ev\":\"end\"}\n";
    FILE *f = open_text(text, sizeof text - 1);
    ks_tl_reader r;
    ks_tl_reader_init(&r, f);
    ks_tline l;
    ks_tline_init(&l);
    char *line;
    size_t len;
    assert_int_equal(ks_tl_reader_next(&r, &line, &len), 1);
    assert_int_equal(ks_tl_record(&r, &l, line, len), 1);
    assert_int_equal(l.t, 7);
    assert_int_equal(l.kind, KS_TR_ACK);
    assert_int_equal(ks_tl_int(&l, "record", -1), 3);
    assert_int_equal(ks_tl_reader_next(&r, &line, &len), 1);
    assert_int_equal(ks_tl_record(&r, &l, line, len), -1);
    assert_non_null(strstr(r.err, "not a trace record"));
    assert_int_equal(ks_tl_next(&r, &l), 1); /* and reading goes on */
    assert_int_equal(l.kind, KS_TR_END);
    ks_tl_reader_free(&r);
    fclose(f);
    ks_tline_free(&l);
}

static void test_reader_lines(void **state)
{
    (void)state;
    static const char text[] = "{\"t\":1,\"ev\":\"ack\"}\r\n"
                               "{\"ev\":\"zzz\",\"t\":2}\n"
                               "{\"t\":3,\"ev\":\"header\"}";
    FILE *f = open_text(text, sizeof text - 1);
    ks_tl_reader r;
    ks_tl_reader_init(&r, f);
    ks_tline l;
    ks_tline_init(&l);
    assert_int_equal(ks_tl_next(&r, &l), 1);
    assert_int_equal(l.t, 1);
    assert_int_equal(l.kind, KS_TR_ACK);
    assert_int_equal(ks_tl_next(&r, &l), 1);
    assert_string_equal(l.ev, "zzz");
    assert_int_equal(l.kind, KS_TR__COUNT);
    assert_int_equal(ks_tl_next(&r, &l), 1);
    assert_int_equal(l.kind, KS_TR_HEADER);
    assert_int_equal(r.line_no, 3);
    assert_int_equal(ks_tl_next(&r, &l), 0);
    assert_int_equal(ks_tl_next(&r, &l), 0);
    ks_tl_reader_free(&r);
    fclose(f);
    ks_tline_free(&l);
}

static void test_reader_records(void **state)
{
    (void)state;
#define BAD(text, why) {text, sizeof text - 1, why}
    static const struct {
        const char *text;
        size_t len;
        const char *why;
    } bad[] = {
        BAD("{\"t\":1,\"ev\":\"ack\"}\n{\"t\":2,\"ev\":\"a\0ck\"}\n", "a NUL byte at column 15"),
        BAD("{\"t\":1,\"ev\":\"ack\"}\n{\"ev\":\"ack\"}\n", "not a trace record (an object"),
        BAD("{\"t\":1,\"ev\":\"ack\"}\n{\"t\":\"2\",\"ev\":\"ack\"}\n",
            "not a trace record (field \"t\": expected an integer, got \"2\")"),
        BAD("{\"t\":1,\"ev\":\"ack\"}\n{\"t\":2,\"ev\":7}\n",
            "not a trace record (field \"ev\": expected a string, got 7)"),
        BAD("{\"t\":1,\"ev\":\"ack\"}\n\n", "an empty line"),
    };
#undef BAD
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        FILE *f = open_text(bad[i].text, bad[i].len);
        ks_tl_reader r;
        ks_tl_reader_init(&r, f);
        ks_tline l;
        ks_tline_init(&l);
        assert_int_equal(ks_tl_next(&r, &l), 1);
        assert_int_equal(ks_tl_next(&r, &l), -1);
        assert_int_equal(r.line_no, 2);
        assert_contains(r.err, bad[i].why);
        ks_tl_reader_free(&r);
        ks_tline_free(&l);
        fclose(f);
    }
}

/* A line of 3 MiB (longer than a read) is read whole; one past the bound
 * is refused with its number. */
static void test_reader_long_lines(void **state)
{
    (void)state;
    size_t n = (size_t)3 << 20;
    char *text = malloc(n + 64);
    assert_non_null(text);
    int k = snprintf(text, 64, "{\"t\":0,\"ev\":\"header\",\"pad\":\"");
    memset(text + k, 'x', n);
    size_t len = (size_t)k + n;
    len += (size_t)snprintf(text + len, 64, "\"}\n{\"t\":1,\"ev\":\"end\"}\n");
    FILE *f = open_text(text, len);
    ks_tl_reader r;
    ks_tl_reader_init(&r, f);
    ks_tline l;
    ks_tline_init(&l);
    assert_int_equal(ks_tl_next(&r, &l), 1);
    assert_int_equal(strlen(ks_tl_str(&l, "pad", "")), n);
    assert_int_equal(ks_tl_next(&r, &l), 1);
    assert_int_equal(l.kind, KS_TR_END);
    ks_tl_reader_free(&r);
    fclose(f);
    f = open_text(text, len);
    ks_tl_reader_init(&r, f);
    r.max_line = (size_t)2 << 20;
    assert_int_equal(ks_tl_next(&r, &l), -1);
    assert_int_equal(r.line_no, 1);
    assert_string_equal(r.err, "longer than 2 MiB (the longest line ksim reads)");
    assert_int_equal(ks_tl_next(&r, &l), -1); /* and stays refused */
    assert_int_equal(r.line_no, 1);
    ks_tl_reader_free(&r);
    fclose(f);
    static const char two[] = "{\"t\":1,\"ev\":\"a\"}\n{\"t\":2,\"ev\":\"abcdefgh\"}";
    f = open_text(two, sizeof two - 1);
    ks_tl_reader_init(&r, f);
    r.max_line = 20;
    assert_int_equal(ks_tl_next(&r, &l), 1);
    assert_int_equal(ks_tl_next(&r, &l), -1);
    assert_int_equal(r.line_no, 2);
    assert_string_equal(r.err, "longer than 20 bytes (the longest line ksim reads)");
    ks_tl_reader_free(&r);
    fclose(f);
    ks_tline_free(&l);
    free(text);
}

static void test_jansson_reads(void **state)
{
    (void)state;
    json_error_t jerr;
    json_t *root = json_loads("{\"delivery\":{\"lost\":\"x\",\"n\":3,\"r\":{\"f\":1.5}},"
                              "\"name\":\"s\",\"nothing\":null,\"list\":[{\"id\":5}]}", 0, &jerr);
    assert_non_null(root);
    ks_tl_error e = {0};
    assert_int_equal(json_integer_value(ks_tl_jpath(&e, root, "delivery.n", KS_TLT_INT)), 3);
    assert_null(ks_tl_jpath(&e, root, "delivery.missing.deeper", KS_TLT_INT));
    assert_false(e.set);
    assert_null(ks_tl_jpath(&e, root, "delivery.lost", KS_TLT_INT));
    assert_string_equal(e.text, "field \"delivery.lost\": expected an integer, got \"x\"");
    e.set = false;
    assert_null(ks_tl_jpath(&e, root, "name.x", KS_TLT_INT));
    assert_string_equal(e.text, "field \"name\": expected an object or null, got \"s\"");
    e.set = false;
    assert_null(ks_tl_jpath(&e, root, "nothing.x", KS_TLT_INT)); /* null: absent */
    assert_false(e.set);
    assert_int_equal(ks_tl_jint(&e, json_object_get(json_object_get(root, "delivery"), "r"),
                                "delivery.r", "f", -1), -1);
    assert_string_equal(e.text, "field \"delivery.r.f\": expected an integer, got 1.5");
    e.set = false;
    const json_t *item = json_array_get(json_object_get(root, "list"), 0);
    assert_string_equal(ks_tl_jstr(&e, item, "list[0]", "id", "d"), "d");
    assert_string_equal(e.text, "field \"list[0].id\": expected a string, got 5");
    e.set = false;
    assert_non_null(ks_tl_jpath(&e, root, "delivery.r.f", KS_TLT_INT | KS_TLT_REAL));
    assert_false(e.set);
    json_decref(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whitespace_and_order),
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_reals),
        cmocka_unit_test(test_nested),
        cmocka_unit_test(test_duplicates_and_truncation),
        cmocka_unit_test(test_nul),
        cmocka_unit_test(test_typed_reads),
        cmocka_unit_test(test_not_objects),
        cmocka_unit_test(test_peek),
        cmocka_unit_test(test_record_of_line),
        cmocka_unit_test(test_reader_lines),
        cmocka_unit_test(test_reader_records),
        cmocka_unit_test(test_reader_long_lines),
        cmocka_unit_test(test_jansson_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
