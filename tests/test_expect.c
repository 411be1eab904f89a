/*
 * test_expect.c - expectations against a summary: equality, comparisons,
 * dotted paths into keys with dots, unknown paths with suggestions, and
 * the implicit "verdict is complete".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/expect.h"
#include "sim/json_path.h"

#include <string.h>

static json_t *parse(const char *s)
{
    json_error_t e;
    json_t *j = json_loads(s, 0, &e);
    assert_non_null(j);
    return j;
}

static const char summary_text[] =
    "{\"verdict\": \"complete\", \"records\": {\"acked\": 10, \"failed\": 0},"
    " \"latency_ns\": {\"p99\": 2500000},"
    " \"partitions\": {\"my.topic-0\": {\"log_end_offset\": 10}},"
    " \"list\": [1, 2, 3]}";

static void check(const char *expect, size_t want_failed, size_t want_unknown)
{
    json_t *s = parse(summary_text);
    json_t *e = parse(expect);
    ks_expect_result r;
    ks_expect_check(e, s, &r);
    if (r.failed != want_failed) {
        char *rep = json_dumps(r.report, JSON_INDENT(1));
        print_error("expect %s -> %s\n", expect, rep);
        free(rep);
    }
    assert_int_equal(r.failed, want_failed);
    assert_int_equal(r.unknown_paths, want_unknown);
    json_decref(r.report);
    json_decref(s);
    json_decref(e);
}

static void test_equality(void **state)
{
    (void)state;
    check("{\"records.acked\": 10}", 0, 0);
    check("{\"records.acked\": 11}", 1, 0);
    check("{\"records.acked\": 10.0}", 0, 0); /* numbers compare by value */
    check("{\"verdict\": \"complete\"}", 0, 0);
    check("{\"list\": [1, 2, 3]}", 0, 0);
    check("{\"list\": [1, 2]}", 1, 0);
    check("{\"records\": {\"acked\": 10, \"failed\": 0}}", 0, 0);
}

static void test_comparisons(void **state)
{
    (void)state;
    check("{\"latency_ns.p99\": {\"<\": 3000000}}", 0, 0);
    check("{\"latency_ns.p99\": {\">=\": 2500000, \"<=\": 2500000}}", 0, 0);
    check("{\"latency_ns.p99\": {\">\": 2500000}}", 1, 0);
    check("{\"records.failed\": {\"!=\": 1}}", 0, 0);
    check("{\"records.failed\": {\"==\": 1}}", 1, 0);
    check("{\"verdict\": {\"<\": 1}}", 1, 0); /* a string is not less than 1 */
}

static void test_paths(void **state)
{
    (void)state;
    check("{\"partitions.my.topic-0.log_end_offset\": 10}", 0, 0);
    check("{\"list.1\": 2}", 0, 0);
    check("{\"records.ackd\": 10}", 1, 1);
}

static void test_suggestion(void **state)
{
    (void)state;
    json_t *s = parse(summary_text);
    json_t *e = parse("{\"records.ackd\": 10}");
    ks_expect_result r;
    ks_expect_check(e, s, &r);
    json_t *entry = json_array_get(r.report, 1); /* after the implicit verdict */
    assert_string_equal(json_string_value(json_object_get(entry, "path")), "records.ackd");
    assert_string_equal(json_string_value(json_object_get(entry, "did_you_mean")), "records.acked");
    json_decref(r.report);
    json_decref(s);
    json_decref(e);
}

static void test_implicit_verdict(void **state)
{
    (void)state;
    json_t *s = parse("{\"verdict\": \"max-time\", \"records\": {\"acked\": 3}}");
    json_t *e = parse("{\"records.acked\": 3}");
    ks_expect_result r;
    ks_expect_check(e, s, &r);
    assert_int_equal(r.checked, 2);
    assert_int_equal(r.failed, 1);
    json_decref(r.report);
    json_decref(e);
    /* naming the verdict replaces the implicit check */
    e = parse("{\"verdict\": \"max-time\", \"records.acked\": 3}");
    ks_expect_check(e, s, &r);
    assert_int_equal(r.checked, 2);
    assert_int_equal(r.failed, 0);
    json_decref(r.report);
    json_decref(e);
    /* no expect block: nothing checked */
    ks_expect_check(NULL, s, &r);
    assert_int_equal(r.checked, 0);
    json_decref(r.report);
    json_decref(s);
}

/* Optimal string alignment, the plain full table: what the banded
 * ks_edit_distance_within must agree with. */
static size_t osa(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), d[16][16];
    for (size_t i = 0; i <= la; i++)
        for (size_t j = 0; j <= lb; j++) {
            if (i == 0 || j == 0) {
                d[i][j] = i + j;
                continue;
            }
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* Every pair of strings over {a, b, c} up to 6 long (from a fixed
 * sequence), at every bound: the banded distance is the full one when
 * that is within the bound, else the bound + 1. */
static void test_edit_distance_within(void **state)
{
    (void)state;
    uint32_t x = 12345;
    char a[8], b[8];
    for (int n = 0; n < 4000; n++) {
        char *s[2] = {a, b};
        for (int k = 0; k < 2; k++) {
            x = x * 1103515245u + 12345u;
            size_t len = (x >> 16) % 7;
            for (size_t i = 0; i < len; i++) {
                x = x * 1103515245u + 12345u;
                s[k][i] = (char)('a' + (x >> 16) % 3);
            }
            s[k][len] = '\0';
        }
        size_t full = osa(a, b);
        assert_int_equal(ks_edit_distance(a, b), full);
        for (size_t max = 0; max < 8; max++)
            assert_int_equal(ks_edit_distance_within(a, b, max), full <= max ? full : max + 1);
    }
    assert_int_equal(ks_edit_distance("linger.ms", "lingre.ms"), 1); /* a swap */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equality),   cmocka_unit_test(test_comparisons),
        cmocka_unit_test(test_paths),      cmocka_unit_test(test_suggestion),
        cmocka_unit_test(test_implicit_verdict),
        cmocka_unit_test(test_edit_distance_within),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
