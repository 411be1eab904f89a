/*
 * test_cli.c - the command line: exit codes (0 ok, 1 expectation failed,
 * 2 bad usage or input), where outputs go, that they appear whole (no
 * temporary files left), that two runs write identical files, and the
 * conventions every command shares: -h, -o, --, short options combined,
 * and one prefix, "ksim CMD: ", on every message of failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/harness.h"
#include "tools/cli.h"
#include "tools/status.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char hello[512];

static int cli(int argc, const char **argv)
{
    return ks_cli_main(argc, (char **)argv);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = calloc((size_t)n + 1, 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    *len = got;
    return buf;
}

static int setup(void **state)
{
    (void)state;
    const char *src = getenv("KSIM_SOURCE_DIR");
    snprintf(hello, sizeof hello, "%s/scenarios/hello.json", src ? src : "..");
    return exists(hello) ? 0 : -1;
}

static void test_version_and_help(void **state)
{
    (void)state;
    const char *v[] = {"ksim", "--version"};
    assert_int_equal(cli(2, v), KS_EXIT_OK);
    const char *h[] = {"ksim", "--help"};
    assert_int_equal(cli(2, h), KS_EXIT_OK);
    const char *rh[] = {"ksim", "run", "--help"};
    assert_int_equal(cli(3, rh), KS_EXIT_OK);
    const char *none[] = {"ksim"};
    assert_int_equal(cli(1, none), KS_EXIT_USAGE);
}

static void test_usage_errors(void **state)
{
    (void)state;
    const char *a[] = {"ksim", "rn"};
    assert_int_equal(cli(2, a), KS_EXIT_USAGE);
    const char *b[] = {"ksim", "run"};
    assert_int_equal(cli(2, b), KS_EXIT_USAGE);
    const char *c[] = {"ksim", "run", hello, "--bogus"};
    assert_int_equal(cli(4, c), KS_EXIT_USAGE);
    const char *d[] = {"ksim", "run", hello, "--seed", "-3"};
    assert_int_equal(cli(5, d), KS_EXIT_USAGE);
    const char *e[] = {"ksim", "run", hello, "--set", "novalue"};
    assert_int_equal(cli(5, e), KS_EXIT_USAGE);
    const char *f[] = {"ksim", "run", hello, "--trace-level", "verbose"};
    assert_int_equal(cli(5, f), KS_EXIT_USAGE);
    const char *g[] = {"ksim", "run", "does-not-exist.json"};
    assert_int_equal(cli(3, g), KS_EXIT_USAGE);
    const char *h[] = {"ksim", "run", hello, "-q", "--set", "producers.p1.config.acks=2"};
    assert_int_equal(cli(6, h), KS_EXIT_USAGE);
}

static void test_run_writes_outputs(void **state)
{
    (void)state;
    const char *a[] = {"ksim", "run", hello, "-q", "--out", "cli-out/a"};
    assert_int_equal(cli(6, a), KS_EXIT_OK);
    const char *b[] = {"ksim", "run", hello, "-q", "--out", "cli-out/b"};
    assert_int_equal(cli(6, b), KS_EXIT_OK);
    size_t la, lb, ls;
    char *ta = read_file("cli-out/a/trace.jsonl", &la);
    char *tb = read_file("cli-out/b/trace.jsonl", &lb);
    char *sa = read_file("cli-out/a/summary.json", &ls);
    assert_non_null(ta);
    assert_non_null(tb);
    assert_non_null(sa);
    assert_int_equal(la, lb);
    assert_memory_equal(ta, tb, la);
    json_error_t err;
    json_t *s = json_loads(sa, 0, &err);
    assert_non_null(s);
    assert_string_equal(json_string_value(json_object_get(s, "verdict")), "complete");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(s, "expect"), "failed")), 0);
    json_decref(s);
    free(ta);
    free(tb);
    free(sa);
}

/* The console summary: the latency percentiles kafka-producer-perf-test
 * prints, acks=0 told apart, and the batches refused as too large. */
static void test_console_summary(void **state)
{
    (void)state;
    char scen[1024];
    const char *src = getenv("KSIM_SOURCE_DIR");
    snprintf(scen, sizeof scen, "%s/scenarios/acks0-silent-loss.json", src ? src : "..");
    const char *a[] = {"ksim", "run", scen, "--out", "cli-out/acks0"};
    captured c = capture(ks_cli_main, 5, a);
    assert_int_equal(c.rc, KS_EXIT_OK);
    assert_non_null(strstr(c.out, "  latency    avg "));
    assert_non_null(strstr(c.out, ", p95 "));
    assert_non_null(strstr(c.out, ", p99.9 "));
    assert_non_null(strstr(c.out, "2 sent, not acknowledged (acks=0)"));
    assert_null(strstr(c.out, "too large"));
    captured_free(&c);
    snprintf(scen, sizeof scen, "%s/scenarios/size-limits.json", src ? src : "..");
    const char *b[] = {"ksim", "run", scen, "--out", "cli-out/size"};
    c = capture(ks_cli_main, 5, b);
    assert_int_equal(c.rc, KS_EXIT_OK);
    assert_non_null(strstr(c.out, "  too large  5 batches refused (MESSAGE_TOO_LARGE): 4 split "
                                  "and sent again, 1 failed (RecordTooLargeException)\n"));
    captured_free(&c);
}

static void test_expectation_failure_exit_1(void **state)
{
    (void)state;
    const char *a[] = {"ksim", "run", hello, "-q", "--out", "cli-out/fail",
                       "--set", "producers.p1.workload.records=9"};
    assert_int_equal(cli(8, a), KS_EXIT_EXPECT);
    size_t n;
    char *sa = read_file("cli-out/fail/summary.json", &n);
    assert_non_null(sa);
    json_error_t err;
    json_t *s = json_loads(sa, 0, &err);
    assert_true(json_integer_value(json_object_get(json_object_get(s, "expect"), "failed")) >= 2);
    json_decref(s);
    free(sa);
}

/* --no-expect explores without the expect block: exit 0, "skipped" in
 * the summary; -q still prints each failed expectation. */
static void test_no_expect_and_quiet_failures(void **state)
{
    (void)state;
    const char *a[] = {"ksim", "run", hello, "-q", "--no-expect", "--out", "cli-out/noexp",
                       "--set", "producers.p1.workload.records=9"};
    assert_int_equal(cli(9, a), KS_EXIT_OK);
    size_t n;
    char *sa = read_file("cli-out/noexp/summary.json", &n);
    assert_non_null(sa);
    json_error_t err;
    json_t *s = json_loads(sa, 0, &err);
    json_t *e = json_object_get(s, "expect");
    assert_true(json_is_true(json_object_get(e, "skipped")));
    assert_int_equal(json_integer_value(json_object_get(e, "checked")), 0);
    json_decref(s);
    free(sa);
    const char *b[] = {"ksim", "run", hello, "-q", "--out", "cli-out/qfail",
                       "--set", "producers.p1.workload.records=9"};
    captured c = capture(ks_cli_main, 8, b);
    assert_int_equal(c.rc, KS_EXIT_EXPECT);
    assert_string_equal(c.out, "");
    assert_non_null(strstr(c.err, "FAILED   records.acked: expected 10, got 9"));
    assert_non_null(strstr(c.err, "reproduce"));
    captured_free(&c);
}

static void test_explicit_paths_and_no_trace(void **state)
{
    (void)state;
    const char *a[] = {"ksim", "run", hello, "-q", "--trace", "cli-out/x/t.jsonl",
                       "--summary", "cli-out/x/s.json", "--trace-level", "record"};
    assert_int_equal(cli(10, a), KS_EXIT_OK);
    assert_true(exists("cli-out/x/t.jsonl"));
    assert_true(exists("cli-out/x/s.json"));
    size_t n;
    char *t = read_file("cli-out/x/t.jsonl", &n);
    assert_non_null(strstr(t, "\"level\":\"record\""));
    assert_non_null(strstr(t, "\"ev\":\"ack\""));
    free(t);
    const char *b[] = {"ksim", "run", hello, "-q", "--no-trace", "--out", "cli-out/y"};
    assert_int_equal(cli(7, b), KS_EXIT_OK);
    assert_false(exists("cli-out/y/trace.jsonl"));
    assert_true(exists("cli-out/y/summary.json"));
}

/* An output that cannot be written is an error (2), and nothing is left
 * under the real name. */
static void test_unwritable_output(void **state)
{
    (void)state;
    const char *a[] = {"ksim", "run", hello, "-q", "--out", "/proc/ksim-cannot-write"};
    assert_int_equal(cli(6, a), KS_EXIT_USAGE);
    assert_false(exists("/proc/ksim-cannot-write/summary.json"));
}

/* A scenario name never makes the default output directory climb out
 * of ksim-out/ or hide. */
static void test_default_out_dir_is_safe(void **state)
{
    (void)state;
    const char *a[] = {"ksim", "run", hello, "-q", "--set", "name=../up/and away"};
    assert_int_equal(cli(6, a), KS_EXIT_OK);
    assert_true(exists("ksim-out/_._up_and_away/summary.json"));
}

static void test_validate(void **state)
{
    (void)state;
    const char *a[] = {"ksim", "validate", hello};
    assert_int_equal(cli(3, a), KS_EXIT_OK);
    const char *b[] = {"ksim", "validate", hello, "--set", "producers.p1.config.lingr.ms=3"};
    assert_int_equal(cli(5, b), KS_EXIT_USAGE);
    const char *c[] = {"ksim", "validate", "--resolved", hello};
    assert_int_equal(cli(4, c), KS_EXIT_OK);
    const char *d[] = {"ksim", "validate"};
    assert_int_equal(cli(2, d), KS_EXIT_USAGE);
    const char *e[] = {"ksim", "defaults", "--kafka-version", "2.3"};
    assert_int_equal(cli(4, e), KS_EXIT_OK);
    const char *f[] = {"ksim", "defaults", "--kafka-version", "9.9"};
    assert_int_equal(cli(4, f), KS_EXIT_USAGE);
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The row of `key` in a Markdown table (up to its end of line), or NULL. */
static const char *md_row(const char *text, const char *key)
{
    char start[128];
    snprintf(start, sizeof start, "\n| `%s` |", key);
    const char *r = strstr(text, start);
    return r ? r + 1 : NULL;
}

static void expect_row(const char *text, const char *key, const char *cells)
{
    const char *r = md_row(text, key);
    if (!r)
        fail_msg("no row for %s in:\n%s", key, text);
    size_t n = strcspn(r, "\n");
    char want[256];
    snprintf(want, sizeof want, "| `%s` | %s", key, cells);
    if (strncmp(r, want, strlen(want)) != 0)
        fail_msg("row %.*s does not start with %s", (int)n, r, want);
}

/* `ksim defaults --format markdown`: the tables docs/scenario.md shows,
 * with type, the default of the version asked for, the model that reads
 * each key (– for none) and the note; a row per key the version has. */
static void test_defaults_markdown(void **state)
{
    (void)state;
    const char *a[] = {"ksim", "defaults", "--format", "markdown", "producer"};
    captured c = capture(ks_cli_main, 5, a);
    assert_int_equal(c.rc, KS_EXIT_OK);
    assert_true(starts_with(c.out, "| key | type | default (4.0) | read by | note |\n"
                               "|---|---|---|---|---|\n| `acks` |"));
    expect_row(c.out, "retries", "int ≥ 0 | 2147483647 | producer | 0 before 2.1");
    expect_row(c.out, "request.timeout.ms", "int ≥ 0 | 30000 | producer | ");
    expect_row(c.out, "enable.idempotence", "bool | true | producer | ");
    expect_row(c.out, "partitioner.class", "string or null | null | – | ");
    expect_row(c.out, "compression.type", "`none` `gzip` `snappy` `lz4` `zstd` | `none` | ");
    expect_row(c.out, "retry.backoff.max.ms", "long ≥ 0 (3.7+) | 1000 | producer | ");
    assert_null(strstr(c.out, "broker configs"));
    captured_free(&c);

    const char *b[] = {"ksim", "defaults", "--format=markdown", "--kafka-version", "2.0",
                       "producer", "broker"};
    c = capture(ks_cli_main, 7, b);
    assert_int_equal(c.rc, KS_EXIT_OK);
    assert_true(starts_with(c.out, "**producer configs** (Kafka 2.0)\n\n"));
    assert_non_null(strstr(c.out, "\n**broker configs** (Kafka 2.0)\n\n| key |"));
    expect_row(c.out, "acks", "`\"all\"`, `\"-1\"`, `\"0\"`, `\"1\"` (or −1, 0, 1) | `\"1\"` | ");
    expect_row(c.out, "retries", "int ≥ 0 | 0 | producer | ");
    assert_null(md_row(c.out, "delivery.timeout.ms")); /* from 2.1 */
    expect_row(c.out, "num.io.threads", "1…4096 | 8 | broker | ");
    expect_row(c.out, "transaction.max.timeout.ms", "int ≥ 1 | 900000 | coordinator | ");
    expect_row(c.out, "min.insync.replicas", "int ≥ 1 | 1 | – | ");
    captured_free(&c);

    const char *v[] = {"ksim", "defaults", "--format", "markdown", "versions"};
    c = capture(ks_cli_main, 5, v);
    assert_int_equal(c.rc, KS_EXIT_OK);
    assert_true(starts_with(c.out, "| config | of | before | from |\n|---|---|---|---|\n"));
    expect_row(c.out, "retries", "producer | 0 | 2147483647 in 2.1 |");
    expect_row(c.out, "delivery.timeout.ms", "producer | (absent) | 120000 in 2.1 |");
    expect_row(c.out, "replica.lag.time.max.ms", "broker | 10000 | 30000 in 2.5 |");
    assert_null(md_row(c.out, "batch.size")); /* the same in every version */
    captured_free(&c);

    const char *t[] = {"ksim", "defaults", "--format", "text", "broker"};
    c = capture(ks_cli_main, 5, t);
    assert_int_equal(c.rc, KS_EXIT_OK);
    assert_true(starts_with(c.out, "Kafka 4.0 defaults (key, default, read by, note)\n\n"
                               "broker configs:\n"));
    captured_free(&c);

    const char *e[] = {"ksim", "defaults", "brokers"};
    c = capture(ks_cli_main, 3, e);
    assert_int_equal(c.rc, KS_EXIT_USAGE);
    assert_non_null(strstr(c.err, "ksim defaults: unexpected 'brokers'"));
    captured_free(&c);
    const char *f[] = {"ksim", "defaults", "--format", "html"};
    c = capture(ks_cli_main, 4, f);
    assert_int_equal(c.rc, KS_EXIT_USAGE);
    assert_non_null(strstr(c.err, "--format: expected text or markdown"));
    captured_free(&c);
}

static void test_partition_command(void **state)
{
    (void)state;
    const char *a[] = {"ksim", "partition", "--partitions", "3", "21", "foobar", ""};
    assert_int_equal(cli(7, a), KS_EXIT_OK);
    const char *b[] = {"ksim", "partition", "--partitions", "3", "--key-hex", "616263"};
    assert_int_equal(cli(6, b), KS_EXIT_OK);
    const char *c[] = {"ksim", "partition", "--partitions", "3", "--key-hex", "6162z3"};
    assert_int_equal(cli(6, c), KS_EXIT_USAGE);
    const char *d[] = {"ksim", "partition", "21"};
    assert_int_equal(cli(3, d), KS_EXIT_USAGE);
    const char *e[] = {"ksim", "partition", "--partitions", "0", "21"};
    assert_int_equal(cli(5, e), KS_EXIT_USAGE);
}

/* -o DIR is --out DIR; short options combine; -- ends the options. */
static void test_short_out_and_double_dash(void **state)
{
    (void)state;
    const char *a[] = {"ksim", "run", hello, "-qo", "cli-out/o1"};
    assert_int_equal(cli(5, a), KS_EXIT_OK);
    const char *b[] = {"ksim", "run", "-q", "-ocli-out/o2", "--", hello};
    assert_int_equal(cli(6, b), KS_EXIT_OK);
    const char *c[] = {"ksim", "run", "--quiet", "--out=cli-out/o3", hello};
    assert_int_equal(cli(5, c), KS_EXIT_OK);
    size_t l1, l2, l3;
    char *t1 = read_file("cli-out/o1/trace.jsonl", &l1);
    char *t2 = read_file("cli-out/o2/trace.jsonl", &l2);
    char *t3 = read_file("cli-out/o3/trace.jsonl", &l3);
    assert_non_null(t1);
    assert_non_null(t2);
    assert_non_null(t3);
    assert_int_equal(l1, l3);
    assert_int_equal(l2, l3);
    assert_memory_equal(t1, t3, l3);
    assert_memory_equal(t2, t3, l3);
    free(t1);
    free(t2);
    free(t3);
    /* the top level: -- before the command */
    const char *d[] = {"ksim", "--", "run", hello, "-q", "-o", "cli-out/o4"};
    assert_int_equal(cli(7, d), KS_EXIT_OK);
    assert_true(exists("cli-out/o4/summary.json"));
    /* partition: keys after -- may start with - */
    const char *e[] = {"ksim", "partition", "--partitions=3", "--", "-v"};
    captured k = capture(ks_cli_main, 5, e);
    assert_int_equal(k.rc, KS_EXIT_OK);
    assert_int_equal(strlen(k.out), 2);
    captured_free(&k);
}

/* Every command: -h and --help print what `ksim help CMD` prints, and
 * `ksim help help` is help's own. */
static void test_help_everywhere(void **state)
{
    (void)state;
    static const char *const cmds[] = {"run",   "validate", "defaults", "partition",
                                       "check", "report",   "explain",  "help"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        const char *h[] = {"ksim", "help", cmds[i]};
        captured want = capture(ks_cli_main, 3, h);
        assert_int_equal(want.rc, KS_EXIT_OK);
        char head[64];
        snprintf(head, sizeof head, "usage: ksim %s", cmds[i]);
        assert_memory_equal(want.out, head, strlen(head));
        assert_non_null(strstr(want.out, "  -h, --help          show this help\n"));
        static const char *const forms[] = {"-h", "--help"};
        for (size_t f = 0; f < 2; f++) {
            const char *a[] = {"ksim", cmds[i], forms[f]};
            captured got = capture(ks_cli_main, 3, a);
            assert_int_equal(got.rc, KS_EXIT_OK);
            assert_string_equal(got.out, want.out);
            assert_string_equal(got.err, "");
            captured_free(&got);
        }
        captured_free(&want);
    }
    const char *qh[] = {"ksim", "run", "-qh"};
    captured c = capture(ks_cli_main, 3, qh);
    assert_int_equal(c.rc, KS_EXIT_OK);
    assert_non_null(strstr(c.out, "  -o, --out DIR "));
    captured_free(&c);
}

/* Every line a failing command prints on standard error is its own:
 * "ksim CMD: ..." or the "Try 'ksim CMD --help'" after bad usage, or
 * (run) the failed expectations and the reproducing command under it. */
static void expect_prefixed(int argc, const char **argv, const char *cmd, int rc,
                            const char *message)
{
    captured c = capture(ks_cli_main, argc, argv);
    assert_int_equal(c.rc, rc);
    char prefix[64], try_line[96];
    snprintf(prefix, sizeof prefix, "ksim%s%s: ", *cmd ? " " : "", cmd);
    snprintf(try_line, sizeof try_line, "Try 'ksim %s%s--help' for more information.", cmd,
             *cmd ? " " : "");
    if (!strstr(c.err, message))
        fail_msg("'%s' not in: %s", message, c.err);
    assert_true(*c.err != '\0');
    for (char *line = c.err, *end; *line; line = end + 1) {
        end = strchr(line, '\n');
        assert_non_null(end);
        *end = '\0';
        if (strncmp(line, prefix, strlen(prefix)) != 0 && strcmp(line, try_line) != 0 &&
            strncmp(line, "  reproduce  ", 13) != 0 && strncmp(line, "    FAILED   ", 13) != 0)
            fail_msg("'%s' does not start with '%s'", line, prefix);
    }
    captured_free(&c);
}

static void test_one_error_prefix(void **state)
{
    (void)state;
    const char *a[] = {"ksim", "run", hello, "--bogus"};
    expect_prefixed(4, a, "run", KS_EXIT_USAGE, "ksim run: unknown option '--bogus'");
    const char *b[] = {"ksim", "run", hello, "--set", "producers.p1.config.lingr.ms=3"};
    expect_prefixed(5, b, "run", KS_EXIT_USAGE, "ksim run: ");
    const char *c[] = {"ksim", "run", "does-not-exist.json"};
    expect_prefixed(3, c, "run", KS_EXIT_USAGE, "ksim run: does-not-exist.json: cannot open");
    const char *d[] = {"ksim", "run", hello, "-q", "-o", "/proc/ksim-cannot-write"};
    expect_prefixed(6, d, "run", KS_EXIT_USAGE, "/proc/ksim-cannot-write");
    const char *e[] = {"ksim", "run", hello, "-q", "--no-trace", "-o", "cli-out/p",
                       "--set", "producers.p1.workload.records=9"};
    expect_prefixed(9, e, "run", KS_EXIT_EXPECT, "ksim run: hello: 3 of 5 expectations failed");
    const char *f[] = {"ksim", "run", hello, "--quiet=yes"};
    expect_prefixed(4, f, "run", KS_EXIT_USAGE, "ksim run: option '--quiet' takes no value");
    const char *g[] = {"ksim", "run", hello, "-q", "-o"};
    expect_prefixed(5, g, "run", KS_EXIT_USAGE, "ksim run: option '-o' requires a value");
    const char *h[] = {"ksim", "validate", hello, "--set", "producers.p1.config.lingr.ms=3"};
    expect_prefixed(5, h, "validate", KS_EXIT_USAGE, "did you mean \"linger.ms\"");
    const char *i[] = {"ksim", "defaults", "--kafka-version", "9.9"};
    expect_prefixed(4, i, "defaults", KS_EXIT_USAGE, "--kafka-version: expected a release");
    const char *j[] = {"ksim", "partition", "--partitions", "3", "--key-hex", "zz"};
    expect_prefixed(6, j, "partition", KS_EXIT_USAGE, "'zz': not a hex byte string");
    const char *k[] = {"ksim", "check", "--bogus"};
    expect_prefixed(3, k, "check", KS_EXIT_USAGE, "unknown option '--bogus'");
    const char *l[] = {"ksim", "report", "--format", "gif", "cli-out/a"};
    expect_prefixed(5, l, "report", KS_EXIT_USAGE, "--format: expected png, svg or both");
    const char *m[] = {"ksim", "explain", "no-such-trace.jsonl"};
    expect_prefixed(3, m, "explain", KS_EXIT_USAGE, "no-such-trace.jsonl: cannot open");
    const char *n[] = {"ksim", "help", "rn"};
    expect_prefixed(3, n, "help", KS_EXIT_USAGE, "unknown command 'rn' (did you mean 'run'?)");
    const char *o[] = {"ksim", "rn"};
    expect_prefixed(2, o, "", KS_EXIT_USAGE, "ksim: unknown command 'rn' (did you mean 'run'?)");
    const char *p[] = {"ksim", "--bogus"};
    expect_prefixed(2, p, "", KS_EXIT_USAGE, "ksim: unknown option '--bogus'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_and_help),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_run_writes_outputs),
        cmocka_unit_test(test_console_summary),
        cmocka_unit_test(test_expectation_failure_exit_1),
        cmocka_unit_test(test_no_expect_and_quiet_failures),
        cmocka_unit_test(test_explicit_paths_and_no_trace),
        cmocka_unit_test(test_unwritable_output),
        cmocka_unit_test(test_default_out_dir_is_safe),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_defaults_markdown),
        cmocka_unit_test(test_partition_command),
        cmocka_unit_test(test_short_out_and_double_dash),
        cmocka_unit_test(test_help_everywhere),
        cmocka_unit_test(test_one_error_prefix),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
