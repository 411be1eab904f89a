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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equality),   cmocka_unit_test(test_comparisons),
        cmocka_unit_test(test_paths),      cmocka_unit_test(test_suggestion),
        cmocka_unit_test(test_implicit_verdict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
