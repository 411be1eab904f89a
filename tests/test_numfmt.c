/*
 * test_numfmt.c - numbers for people: milliseconds rounded to the nearest
 * microsecond (half away from zero) the same way for run, explain and
 * report, and counts with the word's singular only for 1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tools/numfmt.h"

static void test_ms(void **state)
{
    (void)state;
    char b[40];
    assert_string_equal(ks_fmt_ms(b, sizeof b, 4734512), "4.735"); /* not truncated to 4.734 */
    assert_string_equal(ks_fmt_ms(b, sizeof b, 4734499), "4.734");
    assert_string_equal(ks_fmt_ms(b, sizeof b, 4734500), "4.735"); /* half: away from zero */
    assert_string_equal(ks_fmt_ms(b, sizeof b, 999999500), "1000.000"); /* carries */
    assert_string_equal(ks_fmt_ms(b, sizeof b, 0), "0.000");
    assert_string_equal(ks_fmt_ms(b, sizeof b, 400), "0.000");
    assert_string_equal(ks_fmt_ms(b, sizeof b, -1500), "-0.002");
    assert_string_equal(ks_fmt_ms(b, sizeof b, -400), "0.000"); /* no "-0.000" */
    assert_string_equal(ks_fmt_ms(b, sizeof b, INT64_MIN), "-9223372036854.776");
    assert_string_equal(ks_fmt_ms(b, sizeof b, INT64_MAX), "9223372036854.776");
}

static void test_count(void **state)
{
    (void)state;
    char b[40];
    assert_string_equal(ks_fmt_count(b, sizeof b, 1, "request", "requests"), "1 request");
    assert_string_equal(ks_fmt_count(b, sizeof b, 0, "request", "requests"), "0 requests");
    assert_string_equal(ks_fmt_count(b, sizeof b, 2, "batch", "batches"), "2 batches");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ms),
        cmocka_unit_test(test_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
