/*
 * test_verdicts.c - the one list of the delivery checker's verdicts:
 * every verdict has a distinct summary key and a phrase; counts are read
 * from a summary's "delivery" object (failed_and_absent derived from the
 * records that failed); the console line shows each count by its rule
 * (always, when checked, when not zero) and the transactional ones only
 * for a transactional run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/check/verdicts.h"

#include <string.h>

static void test_keys_distinct(void **state)
{
    (void)state;
    for (int i = 0; i < KS_VERDICT__COUNT; i++) {
        const ks_verdict_info *v = ks_verdict_info_of((ks_verdict)i);
        assert_non_null(v->key);
        assert_true(v->phrase[0] != '\0');
        assert_string_equal(ks_verdict_key((ks_verdict)i), v->key);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(ks_verdict_info_of((ks_verdict)j)->key, v->key);
    }
    assert_string_equal(ks_verdict_key(KS_VERDICT_PROCESSED_TWICE), "processed_twice");
}

static void test_counts(void **state)
{
    (void)state;
    json_t *d = json_pack("{s:i, s:i, s:{s:i}}", "duplicate", 3, "failed_but_present", 1,
                          "records", "failed", 4);
    assert_int_equal(ks_verdict_count(d, KS_VERDICT_DUPLICATE), 3);
    assert_int_equal(ks_verdict_count(d, KS_VERDICT_LOST), 0); /* absent */
    assert_int_equal(ks_verdict_count(d, KS_VERDICT_FAILED_AND_ABSENT), 3);
    json_decref(d);
}

static void test_phrases(void **state)
{
    (void)state;
    json_t *d = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "lost", 0, "duplicate", 1,
                          "extra_copies", 1, "nonmonotonic_send", 0, "failed_but_present", 0,
                          "indeterminate", 0, "aborted_read", 2);
    ks_sbuf sb = {0};
    ks_verdicts_phrases(&sb, d, false);
    assert_string_equal(ks_sb_str(&sb), "0 lost, 1 duplicated (+1 copies), 0 reordered, "
                                        "0 failed but present, 0 indeterminate");
    ks_sb_free(&sb);
    ks_verdicts_phrases(&sb, d, true); /* checked transactional counts appear */
    assert_string_equal(ks_sb_str(&sb), "0 lost, 1 duplicated (+1 copies), 0 reordered, "
                                        "0 failed but present, 0 indeterminate, 2 aborted reads");
    ks_sb_free(&sb);
    json_object_set_new(d, "processed_twice", json_integer(0)); /* shown when not zero */
    ks_verdicts_phrases(&sb, d, true);
    assert_null(strstr(ks_sb_str(&sb), "processed twice"));
    ks_sb_free(&sb);
    json_object_set_new(d, "processed_twice", json_integer(1));
    ks_verdicts_phrases(&sb, d, true);
    assert_non_null(strstr(ks_sb_str(&sb), ", 2 aborted reads, 1 processed twice"));
    ks_sb_free(&sb);
    json_decref(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys_distinct),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_phrases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
