/*
 * test_conf.c - the generic loader of sim/conf.h, with a schema of its
 * own: the typed getters' messages, unknown keys with and without a
 * suggestion, reserved keys, --set overrides (JSON values, plain text
 * converted to numbers and booleans, the "(from --set ...)" note, bad
 * values), id lookups and the values written back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/conf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    ks_diag diag;
    ks_conf conf;
    json_t *doc;
} fixture;

/* A document of the test's own schema, loaded from "t.json". */
static fixture *load(void **state, const char *text)
{
    fixture *f = *state;
    json_error_t je;
    f->doc = json_loads(text, 0, &je);
    assert_non_null(f->doc);
    ks_diag_init(&f->diag);
    ks_conf_init(&f->conf, "t.json", &f->diag);
    return f;
}

static int setup(void **state)
{
    *state = calloc(1, sizeof(fixture));
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    fixture *f = *state;
    ks_conf_release(&f->conf);
    json_decref(f->doc);
    free(f);
    return 0;
}

/* The only message is `want`. */
static void expect_one(const fixture *f, const char *want)
{
    if (f->diag.count != 1 || strcmp(ks_diag_first(&f->diag), want) != 0)
        print_error("want %s\n got %u: %s\n", want, f->diag.count, ks_diag_first(&f->diag));
    assert_int_equal(f->diag.count, 1);
    assert_string_equal(ks_diag_first(&f->diag), want);
}

static void test_int(void **state)
{
    fixture *f = load(state, "{\"a\": 5, \"b\": 2.0, \"c\": 1.5, \"d\": \"x\", \"e\": 11}");
    int64_t x = -1;
    uint32_t u = 0;
    assert_true(ks_conf_get_int(&f->conf, f->doc, "a", 1, 10, &x));
    assert_int_equal(x, 5);
    assert_true(ks_conf_get_u32(&f->conf, f->doc, "b", 1, 10, &u)); /* no fraction: an integer */
    assert_int_equal(u, 2);
    assert_false(ks_conf_get_int(&f->conf, f->doc, "absent", 1, 10, &x));
    assert_int_equal(f->diag.count, 0);
    assert_false(ks_conf_get_int(&f->conf, f->doc, "c", 1, 10, &x));
    expect_one(f, "t.json: $.c: expected an integer from 1 to 10, got 1.5");
    assert_false(ks_conf_get_int(&f->conf, f->doc, "d", 0, INT64_MAX, &x));
    assert_string_equal(f->diag.msg[1], "t.json: $.d: expected an integer >= 0, got \"x\"");
    assert_false(ks_conf_get_u32(&f->conf, f->doc, "e", 1, 10, &u));
    assert_string_equal(f->diag.msg[2], "t.json: $.e: expected an integer from 1 to 10, got 11");
    assert_int_equal(x, 5); /* left alone by the failures */
    assert_int_equal(u, 2);
}

static void test_real_and_ms(void **state)
{
    fixture *f = load(state, "{\"r\": 0, \"ms\": 1.5, \"tiny\": 1e-9, "
                             "\"neg\": -1}");
    double d = 7;
    ks_time ns = 0;
    assert_false(ks_conf_get_real(&f->conf, f->doc, "r", 0.0, true, 1.0, &d));
    expect_one(f, "t.json: $.r: expected a number > 0 and <= 1, got 0");
    assert_true(ks_conf_get_real(&f->conf, f->doc, "r", 0.0, false, 1e300 * 10, &d));
    assert_true(d == 0.0);
    assert_true(ks_conf_get_ms(&f->conf, f->doc, "ms", true, &ns));
    assert_int_equal(ns, 1500000);
    assert_false(ks_conf_get_ms(&f->conf, f->doc, "tiny", true, &ns));
    assert_string_equal(f->diag.msg[1], "t.json: $.tiny: expected a number of at least 0.000001 "
                                        "(one nanosecond), got 1e-9");
    assert_false(ks_conf_get_ms(&f->conf, f->doc, "neg", false, &ns));
    assert_string_equal(f->diag.msg[2],
                        "t.json: $.neg: expected a number >= 0 and <= 1e+12, got -1");
    assert_int_equal(f->diag.count, 3);
}

static void test_string_bool_object(void **state)
{
    fixture *f = load(state, "{\"s\": \"v\", \"n\": null, \"i\": 1, \"t\": true, \"o\": [1]}");
    const char *s = "default";
    bool b = false;
    json_t *o = NULL;
    assert_true(ks_conf_get_string(&f->conf, f->doc, "s", false, &s));
    assert_string_equal(s, "v");
    assert_true(ks_conf_get_string(&f->conf, f->doc, "n", true, &s));
    assert_null(s);
    assert_false(ks_conf_get_string(&f->conf, f->doc, "i", true, &s));
    expect_one(f, "t.json: $.i: expected a string or null, got 1");
    assert_true(ks_conf_check_bool(&f->conf, json_object_get(f->doc, "t"), &b));
    assert_true(b);
    assert_false(ks_conf_check_bool(&f->conf, json_object_get(f->doc, "s"), &b));
    assert_string_equal(f->diag.msg[1], "t.json: $: expected true or false, got \"v\"");
    assert_false(ks_conf_get_object(&f->conf, f->doc, "o", &o));
    assert_null(o);
    assert_string_equal(f->diag.msg[2], "t.json: $.o: expected an object, got [1]");
}

static void test_choice(void **state)
{
    static const char *const kinds[] = {"constant", "uniform"};
    fixture *f = load(state, "{\"a\": \"uniform\", \"b\": \"unifrom\", \"c\": \"zzz\", "
                             "\"d\": 3}");
    unsigned k = 9;
    assert_true(ks_conf_check_choice(&f->conf, json_object_get(f->doc, "a"), kinds, 2, &k));
    assert_int_equal(k, 1);
    size_t m = ks_conf_enter(&f->conf, "b");
    assert_false(ks_conf_check_choice(&f->conf, json_object_get(f->doc, "b"), kinds, 2, &k));
    ks_conf_leave(&f->conf, m);
    expect_one(f, "t.json: $.b: expected one of \"constant\", \"uniform\", got \"unifrom\" "
                  "(did you mean \"uniform\"?)");
    assert_false(ks_conf_check_choice(&f->conf, json_object_get(f->doc, "c"), kinds, 2, &k));
    assert_string_equal(f->diag.msg[1],
                        "t.json: $: expected one of \"constant\", \"uniform\", got \"zzz\"");
    assert_false(ks_conf_check_choice(&f->conf, json_object_get(f->doc, "d"), kinds, 2, &k));
    assert_string_equal(f->diag.msg[2],
                        "t.json: $: expected one of \"constant\", \"uniform\", got 3");
    assert_int_equal(k, 1);
}

static void test_keys(void **state)
{
    static const char *const allowed[] = {"count", "latency.ms", NULL};
    static const char *const planned[] = {"links", NULL};
    fixture *f = load(state, "{\"count\": 1, \"latency.mss\": 2, \"links\": [], \"zebra\": 3}");
    size_t m = ks_conf_enter(&f->conf, "net");
    ks_conf_check_keys(&f->conf, f->doc, allowed, planned);
    ks_conf_leave(&f->conf, m);
    assert_int_equal(f->diag.count, 3);
    assert_string_equal(f->diag.msg[0], "t.json: $.net.latency.mss: unknown key \"latency.mss\" "
                                        "(did you mean \"latency.ms\"?)");
    assert_true(strstr(f->diag.msg[1], "t.json: $.net.links: \"links\" is reserved by the "
                                       "scenario format for a model this ksim (") != NULL);
    assert_string_equal(f->diag.msg[2], "t.json: $.net.zebra: unknown key \"zebra\"");
    assert_string_equal(f->conf.path.buf, "$");
}

static void test_messages(void **state)
{
    fixture *f = load(state, "{\"list\": [{\"id\": \"alpha\"}]}");
    size_t m = ks_conf_enter(&f->conf, "list");
    size_t mi = ks_conf_enter_index(&f->conf, 0);
    ks_conf_err_at(&f->conf, "id", "bad %d", 7);
    ks_conf_warn(&f->conf, "careful");
    ks_conf_leave(&f->conf, mi);
    ks_conf_leave(&f->conf, m);
    assert_string_equal(f->diag.msg[0], "t.json: $.list[0].id: bad 7");
    assert_string_equal(f->diag.msg[1], "t.json: $.list[0]: careful");
    assert_int_equal(f->diag.count, 1);
    assert_int_equal(f->diag.warnings, 1);
    char text[80];
    json_t *big = json_string("0123456789012345678901234567890123456789012345678901234567890");
    ks_conf_describe(big, text, sizeof text);
    assert_string_equal(text, "\"01234567890123456789012345678901234567890123456789012345...");
    json_decref(big);
}

/* ids one struct apart, as the models keep them */
typedef struct named {
    char *id;
    int other;
} named;

static void test_find_id(void **state)
{
    fixture *f = load(state, "{}");
    named items[] = {{"producer-a", 1}, {"producer-b", 2}};
    assert_int_equal(ks_conf_find_id(&f->conf, "producer", "producer-b", &items[0].id,
                                     sizeof items[0], 2), 1);
    assert_int_equal(ks_conf_find_id(&f->conf, "producer", "producer-c", &items[0].id,
                                     sizeof items[0], 2), -1);
    expect_one(f, "t.json: $: no producer \"producer-c\" (did you mean \"producer-a\"?)");
    assert_int_equal(ks_conf_find_id(&f->conf, "consumer", "x", NULL, sizeof items[0], 0), -1);
    assert_string_equal(f->diag.msg[1], "t.json: $: no consumer \"x\"");
}

static const char *const sections[] = {"net", NULL};
static const char *const leaves[] = {"latency.ms", NULL};

static void test_set_plain_text(void **state)
{
    fixture *f = load(state, "{\"net\": {\"latency.ms\": 1}}");
    ks_override o[] = {{"net.latency.ms", "2.5"}, {"net.up", "true"}, {"net.n", "null"},
                       {"net.bad", "abc"}};
    for (size_t i = 0; i < 4; i++)
        ks_conf_apply(&f->conf, f->doc, &o[i], sections, leaves);
    assert_int_equal(f->diag.count, 0);
    json_t *net = json_object_get(f->doc, "net");
    ks_time ns = 0;
    bool b = false;
    const char *s = "x";
    int64_t x = 0;
    assert_true(ks_conf_get_ms(&f->conf, net, "latency.ms", false, &ns));
    assert_int_equal(ns, 2500000);
    assert_true(ks_conf_check_bool(&f->conf, json_object_get(net, "up"), &b));
    assert_true(b);
    assert_true(ks_conf_get_string(&f->conf, net, "n", true, &s));
    assert_null(s);
    assert_string_equal(ks_conf_set_text(&f->conf, json_object_get(net, "bad")), "abc");
    assert_false(ks_conf_get_int(&f->conf, net, "bad", 0, 5, &x));
    expect_one(f, "t.json: $.bad: expected an integer from 0 to 5, got \"abc\" "
                  "(from --set net.bad=abc)");
}

static void test_set_json_values(void **state)
{
    fixture *f = load(state, "{\"net\": {}}");
    ks_override o[] = {{"net.list", "[1, 2]"}, {"net.s", "\"5\""}, {"net.broken", "[1,"},
                       {"net.list.7", "1"}};
    for (size_t i = 0; i < 4; i++)
        ks_conf_apply(&f->conf, f->doc, &o[i], sections, leaves);
    json_t *net = json_object_get(f->doc, "net");
    assert_int_equal(json_array_size(json_object_get(net, "list")), 2);
    assert_null(ks_conf_set_text(&f->conf, json_object_get(net, "list")));
    /* a JSON string stays a string: no conversion to a number */
    int64_t x = 0;
    assert_false(ks_conf_get_int(&f->conf, net, "s", 0, 9, &x));
    assert_int_equal(f->diag.count, 3);
    assert_true(strstr(f->diag.msg[0], "--set net.broken=[1,: the value is not valid JSON: ") ==
                f->diag.msg[0]);
    assert_true(strstr(f->diag.msg[1], "--set net.list.7=1: ") == f->diag.msg[1]);
    assert_string_equal(f->diag.msg[2], "t.json: $.s: expected an integer from 0 to 9, got \"5\" "
                                        "(from --set net.s=\"5\")");
}

static void test_written_back(void **state)
{
    (void)state;
    json_t *a = ks_conf_ms_json(3 * KS_NS_PER_MS), *b = ks_conf_ms_json(1500);
    json_t *c = ks_conf_number_json(2.0), *d = ks_conf_number_json(0.25);
    assert_true(json_is_integer(a) && json_integer_value(a) == 3);
    assert_true(json_is_real(b) && json_real_value(b) == 0.0015);
    assert_true(json_is_integer(c) && json_integer_value(c) == 2);
    assert_true(json_is_real(d) && json_real_value(d) == 0.25);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    json_decref(d);
}

/* Reals are written with as few digits as read back exactly: 0.3 as
 * 0.3 (17 digits give 0.29999999999999999), 0.1 + 0.2 with all 17. */
static void test_reals_exact(void **state)
{
    (void)state;
    json_t *v = json_pack("{s:f, s:[i, f], s:{s:f}}", "a", 0.3, "b", 7, 1.5, "c", "d", 0.45);
    assert_int_equal(ks_conf_reals_exact(v), JSON_REAL_PRECISION(15));
    char *s = json_dumps(v, JSON_COMPACT | ks_conf_reals_exact(v));
    assert_string_equal(s, "{\"a\":0.3,\"b\":[7,1.5],\"c\":{\"d\":0.45}}");
    free(s);
    json_t *w = json_pack("[f, {s:[f]}]", 0.3, "x", 0.1 + 0.2);
    assert_int_equal(ks_conf_reals_exact(w), JSON_REAL_PRECISION(17));
    s = json_dumps(w, JSON_COMPACT | ks_conf_reals_exact(w));
    json_t *back = json_loads(s, 0, NULL);
    assert_true(json_real_value(json_array_get(back, 0)) == 0.3);
    assert_true(json_real_value(json_array_get(json_object_get(json_array_get(back, 1), "x"), 0)) ==
                0.1 + 0.2);
    free(s);
    json_decref(back);
    json_t *x = json_pack("[f]", 1.0 / 3.0); /* 16 digits are exact for it */
    assert_int_equal(ks_conf_reals_exact(x), JSON_REAL_PRECISION(16));
    json_t *none = json_pack("{s:i, s:s}", "n", 1, "s", "t");
    assert_int_equal(ks_conf_reals_exact(none), JSON_REAL_PRECISION(15));
    json_decref(v);
    json_decref(w);
    json_decref(x);
    json_decref(none);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_int, setup, teardown),
        cmocka_unit_test_setup_teardown(test_real_and_ms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_string_bool_object, setup, teardown),
        cmocka_unit_test_setup_teardown(test_choice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_messages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_find_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_plain_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_json_values, setup, teardown),
        cmocka_unit_test(test_written_back),
        cmocka_unit_test(test_reals_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
