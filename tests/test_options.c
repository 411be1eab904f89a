/*
 * test_options.c - the commands' option parser (tools/options.h):
 * getopt_long's rules (both long forms, short clusters, values that start
 * with '-', "--", operands in order), its errors, options that end at
 * the first operand, and two parsers at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tools/options.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

enum { HELP = 'h', QUIET = 'q', OUT = 'o', VERBOSE = 'v', SEED = 256, SET, NO_TRACE, TRACE, LEVEL };

static const ks_opt_def defs[] = {
    {HELP, 'h', "help", false},      {QUIET, 'q', "quiet", false},
    {OUT, 'o', "out", true},         {VERBOSE, 'v', "verbose", false},
    {SEED, '\0', "seed", true},      {SET, '\0', "set", true},
    {NO_TRACE, '\0', "no-trace", false}, {TRACE, '\0', "trace", true},
    {LEVEL, '\0', "trace-level", true},
};

/* Everything the parser hands back for args, one result per line:
 * "ID=VALUE" for an option ("ID" for a flag), "@OPERAND", "!ERROR". */
static void parse_all(int argc, const char **args, bool stop, char *out, size_t n)
{
    const char *argv[32] = {"ksim", "cmd"};
    for (int i = 0; i < argc; i++)
        argv[i + 2] = args[i];
    ks_opt_parser p;
    ks_opt_init(&p, argc + 2, (char **)argv, 2, defs, sizeof defs / sizeof *defs, stop);
    size_t used = 0;
    out[0] = '\0';
    for (int id; (id = ks_opt_next(&p)) != KS_OPT_END && used < n;) {
        int w;
        if (id == KS_OPT_OPERAND)
            w = snprintf(out + used, n - used, "@%s\n", p.value);
        else if (id == KS_OPT_ERROR)
            w = snprintf(out + used, n - used, "!%s%s\n", p.error, p.unknown ? " (unknown)" : "");
        else if (p.value)
            w = snprintf(out + used, n - used, "%d %s=%s\n", id, p.name, p.value);
        else
            w = snprintf(out + used, n - used, "%d %s\n", id, p.name);
        used += (size_t)w;
    }
}

#define EXPECT(stop, want, ...)                                                                   \
    do {                                                                                          \
        const char *a_[] = {__VA_ARGS__};                                                         \
        char got_[1024];                                                                          \
        parse_all((int)(sizeof a_ / sizeof *a_), a_, stop, got_, sizeof got_);                    \
        assert_string_equal(got_, want);                                                          \
    } while (0)

static void test_long_options(void **state)
{
    (void)state;
    EXPECT(false, "256 --seed=7\n256 --seed=8\n", "--seed", "7", "--seed=8");
    EXPECT(false, "113 --quiet\n258 --no-trace\n", "--quiet", "--no-trace");
    /* an empty value is a value; the command decides what it means */
    EXPECT(false, "111 --out=\n111 --out=\n", "--out=", "--out", "");
    /* the value runs to the end: '=' in it is kept */
    EXPECT(false, "257 --set=a.b=c=d\n", "--set", "a.b=c=d");
    EXPECT(false, "257 --set=x=1\n", "--set=x=1");
    /* names are whole: --trace and --trace-level are two options */
    EXPECT(false, "259 --trace=-\n260 --trace-level=record\n", "--trace", "-", "--trace-level",
           "record");
}

static void test_short_options(void **state)
{
    (void)state;
    EXPECT(false, "113 -q\n118 -v\n104 -h\n", "-qvh");
    EXPECT(false, "111 -o=DIR\n", "-oDIR");
    EXPECT(false, "111 -o=DIR\n", "-o", "DIR");
    EXPECT(false, "113 -q\n111 -o=DIR\n", "-qoDIR");
    EXPECT(false, "113 -q\n111 -o=DIR\n@x\n", "-qo", "DIR", "x");
    /* the rest of the cluster is the value, whatever it holds */
    EXPECT(false, "111 -o=qv\n", "-oqv");
    EXPECT(false, "111 -o==x\n", "-o=x");
}

/* An option that requires a value takes the next argument even when it
 * starts with '-'. */
static void test_values_starting_with_dash(void **state)
{
    (void)state;
    EXPECT(false, "256 --seed=-3\n", "--seed", "-3");
    EXPECT(false, "111 -o=-q\n113 -q\n", "-o", "-q", "-q");
    EXPECT(false, "111 -o=--\n@x\n", "-o", "--", "x");
    EXPECT(false, "257 --set=--quiet\n", "--set=--quiet");
}

static void test_operands(void **state)
{
    (void)state;
    /* in order, before, between and after the options */
    EXPECT(false, "@a\n113 -q\n@b\n256 --seed=1\n@c\n", "a", "-q", "b", "--seed", "1", "c");
    EXPECT(false, "@-\n113 -q\n", "-", "-q");
    /* "--" ends the options; a second "--" is an operand */
    EXPECT(false, "113 -q\n@-v\n@--seed\n@--\n@-\n", "-q", "--", "-v", "--seed", "--", "-");
    EXPECT(false, "", "--");
}

/* getopt's "+": the first operand ends the options. */
static void test_stop_at_operand(void **state)
{
    (void)state;
    EXPECT(true, "118 -v\n@key\n@-q\n@--seed\n", "-v", "key", "-q", "--seed");
    EXPECT(true, "@-v\n@--\n", "--", "-v", "--");
    EXPECT(true, "113 -q\n@run\n@-h\n", "-q", "run", "-h");
}

static void test_errors(void **state)
{
    (void)state;
    EXPECT(false, "!unknown option '--bogus' (unknown)\n@x\n", "--bogus", "x");
    EXPECT(false, "!unknown option '--bogus' (unknown)\n", "--bogus=1");
    EXPECT(false, "113 -q\n!unknown option '-x' (unknown)\n118 -v\n", "-qxv");
    EXPECT(false, "!option '--quiet' takes no value\n", "--quiet=yes");
    EXPECT(false, "!option '--seed' requires a value\n", "--seed");
    EXPECT(false, "113 -q\n!option '-o' requires a value\n", "-qo");
    /* no abbreviations: adding an option never breaks a command line */
    EXPECT(false, "!unknown option '--qui' (unknown)\n", "--qui");
    EXPECT(false, "!unknown option '--' (unknown)\n", "--=x");
    /* a very long unknown name is cut, not overflowed */
    char name[400];
    memset(name, 'x', sizeof name - 1);
    name[0] = name[1] = '-';
    name[sizeof name - 1] = '\0';
    const char *argv[] = {"ksim", "cmd", name};
    ks_opt_parser p;
    ks_opt_init(&p, 3, (char **)argv, 2, defs, sizeof defs / sizeof *defs, false);
    assert_int_equal(ks_opt_next(&p), KS_OPT_ERROR);
    assert_true(p.unknown);
    assert_true(strlen(p.error) < sizeof p.error);
    assert_int_equal(ks_opt_next(&p), KS_OPT_END);
}

/* No state outside the parser: two read at once, each its own argv. */
static void test_two_parsers(void **state)
{
    (void)state;
    const char *a[] = {"ksim", "run", "-qo", "A", "x"};
    const char *b[] = {"ksim", "run", "--out=B", "-v", "y"};
    ks_opt_parser pa, pb;
    ks_opt_init(&pa, 5, (char **)a, 2, defs, sizeof defs / sizeof *defs, false);
    ks_opt_init(&pb, 5, (char **)b, 2, defs, sizeof defs / sizeof *defs, false);
    assert_int_equal(ks_opt_next(&pa), QUIET);
    assert_int_equal(ks_opt_next(&pb), OUT);
    assert_string_equal(pb.value, "B");
    assert_int_equal(ks_opt_next(&pa), OUT);
    assert_string_equal(pa.value, "A");
    assert_int_equal(ks_opt_next(&pb), VERBOSE);
    assert_int_equal(ks_opt_next(&pa), KS_OPT_OPERAND);
    assert_string_equal(pa.value, "x");
    assert_int_equal(ks_opt_index(&pa), 5);
    assert_int_equal(ks_opt_next(&pb), KS_OPT_OPERAND);
    assert_string_equal(pb.value, "y");
    assert_int_equal(ks_opt_next(&pa), KS_OPT_END);
    assert_int_equal(ks_opt_next(&pb), KS_OPT_END);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_options),
        cmocka_unit_test(test_short_options),
        cmocka_unit_test(test_values_starting_with_dash),
        cmocka_unit_test(test_operands),
        cmocka_unit_test(test_stop_at_operand),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_two_parsers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
