/*
 * test_check.c - `ksim check`: which files run and in what order (a
 * directory's *.json files in byte order, not recursive), exit codes (0
 * all held, 1 a failure or an error, 2 bad usage), the human lines with
 * their reproduce command, skipped and broken files, the JUnit report
 * (well-formed, within the strict schema's rules, counted, escaped, timed,
 * written whole) and the TAP stream.
 *
 * Scenario files are written into a fresh directory under the test's
 * working directory; standard output and standard error are captured by
 * pointing their descriptors at temporary files while the command runs.
 */
#define _XOPEN_SOURCE 700

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/harness.h"

#include "tools/cli.h"
#include "tools/status.h"
#include "tools/commands.h"

#include <dirent.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- running the command ---------------------------------------------- */

static captured check_cmd(int argc, const char **argv)
{
    return capture(ks_cmd_check, argc, argv);
}

/* ---- scenario files ---------------------------------------------------- */

/* A three-record run of hello.json's shape; `name` is JSON string content
 * (already escaped), `expect` the expect block's JSON or NULL for none. */
static const char scenario_fmt[] =
    "{\"scenario.format\": 1, \"name\": \"%s\", \"seed\": 42, \"kafka.version\": \"3.9\",\n"
    " \"brokers\": {\"count\": 1}, \"network\": {\"latency.ms\": 1},\n"
    " \"topics\": [{\"name\": \"events\", \"partitions\": 1}],\n"
    " \"producers\": [{\"id\": \"p1\", \"topic\": \"events\",\n"
    "   \"config\": {\"acks\": \"all\", \"enable.idempotence\": false},\n"
    "   \"workload\": {\"records\": 3, \"rate.per.sec\": 1000, \"value.bytes\": 10}}]%s%s}\n";

#define PASS "{\"records.acked\": 3}"
#define FAIL4 "{\"records.acked\": 4}"

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void write_scenario(const char *dir, const char *file, const char *name,
                           const char *expect)
{
    char text[2048];
    snprintf(text, sizeof text, scenario_fmt, name, expect ? ", \"expect\": " : "",
             expect ? expect : "");
    write_file(dir, file, text);
}

/* A fresh directory under the working directory; the caller frees it. */
static char *make_dir(void)
{
    char *d = malloc(32);
    assert_non_null(d);
    strcpy(d, "check-XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void remove_dir(char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
}

/* Splits text (modified) into at most max lines; returns how many. */
static size_t split_text(char *text, char **lines, size_t max)
{
    size_t n = 0;
    while (*text && n < max) {
        lines[n++] = text;
        char *nl = strchr(text, '\n');
        if (!nl)
            break;
        *nl = '\0';
        text = nl + 1;
    }
    return n;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- a small XML reader, enough to check the JUnit report ------------ */

/* True when s (after '&') is one of XML's five entities or a character
 * reference; *len receives its length including '&' and ';'. */
static bool xml_entity(const char *s, size_t *len)
{
    static const char *const names[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (size_t i = 0; i < 5; i++) {
        if (starts_with(s, names[i])) {
            *len = strlen(names[i]);
            return true;
        }
    }
    size_t n = strspn(s + 2, "0123456789");
    if (s[1] == '#' && n > 0 && s[2 + n] == ';') {
        *len = n + 3;
        return true;
    }
    return false;
}

/* Checks text or an attribute value up to `stop`: entities well formed,
 * no '<', no control character XML 1.0 forbids. */
static bool xml_chars_ok(const char *s, const char *stop)
{
    for (; s < stop; s++) {
        size_t len;
        unsigned char c = (unsigned char)*s;
        if (c == '<' || (c < 0x20 && c != '\t' && c != '\n' && c != '\r'))
            return false;
        if (c == '&') {
            if (!xml_entity(s, &len))
                return false;
            s += len - 1;
        }
    }
    return true;
}

/* Reads one tag at s ('<' already seen at s[0]); pushes or pops the
 * element stack. Returns the position after the tag, or NULL. */
static const char *xml_tag(const char *s, const char **stack, size_t *lens, size_t *depth)
{
    bool closing = s[1] == '/';
    const char *name = s + 1 + closing;
    size_t nlen = strcspn(name, " \t\n/>");
    if (nlen == 0)
        return NULL;
    const char *p = name + nlen;
    while (!closing && *p != '>' && *p != '/') {
        p += strspn(p, " \t\n");
        size_t alen = strcspn(p, "=");
        if (alen == 0 || p[alen] != '=' || p[alen + 1] != '"')
            return NULL;
        const char *v = p + alen + 2, *end = strchr(v, '"');
        if (!end || !xml_chars_ok(v, end))
            return NULL;
        p = end + 1;
        p += strspn(p, " \t\n");
    }
    p += strspn(p, " \t\n");
    bool empty = p[0] == '/' && p[1] == '>';
    if (!empty && p[0] != '>')
        return NULL;
    if (closing) {
        if (*depth == 0 || lens[*depth - 1] != nlen || strncmp(stack[*depth - 1], name, nlen))
            return NULL;
        (*depth)--;
    } else if (!empty) {
        if (*depth == 64)
            return NULL;
        stack[*depth] = name;
        lens[(*depth)++] = nlen;
    }
    return p + (empty ? 2 : 1);
}

/* Well formed: the declaration, then one root element, tags balanced,
 * attribute values quoted, text and values escaped. */
static bool xml_well_formed(const char *s)
{
    const char *stack[64];
    size_t lens[64], depth = 0;
    int roots = 0;
    if (!starts_with(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"))
        return false;
    s = strchr(s, '\n') + 1;
    while (*s) {
        const char *lt = strchr(s, '<');
        const char *stop = lt ? lt : s + strlen(s);
        if (!xml_chars_ok(s, stop) || (depth == 0 && strspn(s, " \n") < (size_t)(stop - s)))
            return false;
        if (!lt)
            break;
        if (depth == 0)
            roots++;
        s = xml_tag(lt, stack, lens, &depth);
        if (!s)
            return false;
    }
    return depth == 0 && roots == 1;
}

/* How many elements called `name` start in xml. */
static int xml_count(const char *xml, const char *name)
{
    int n = 0;
    size_t len = strlen(name);
    for (const char *p = strchr(xml, '<'); p; p = strchr(p + 1, '<'))
        if (strncmp(p + 1, name, len) == 0 && strchr(" />", p[1 + len]))
            n++;
    return n;
}

/* The value of attribute `attr` of the nth (0-based) element `name`, as
 * written (still escaped), in a static buffer; "" when absent. */
static const char *xml_attr(const char *xml, const char *name, int nth, const char *attr)
{
    static char value[1024];
    size_t len = strlen(name);
    value[0] = '\0';
    for (const char *p = strchr(xml, '<'); p; p = strchr(p + 1, '<')) {
        if (strncmp(p + 1, name, len) != 0 || !strchr(" />", p[1 + len]) || nth-- > 0)
            continue;
        const char *end = strchr(p, '>');
        char key[64];
        snprintf(key, sizeof key, " %s=\"", attr);
        const char *a = strstr(p, key);
        if (!a || a > end)
            return value;
        a += strlen(key);
        size_t vlen = strcspn(a, "\"");
        snprintf(value, sizeof value, "%.*s", (int)vlen, a);
        return value;
    }
    return value;
}

/* Decodes XML's entities and decimal character references (ASCII only). */
static void xml_unescape(const char *s, char *out, size_t cap)
{
    static const char *const names[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    static const char chars[] = "&<>\"'";
    size_t n = 0;
    while (*s && n + 1 < cap) {
        size_t i = 0, len;
        while (i < 5 && !starts_with(s, names[i]))
            i++;
        if (i < 5) {
            out[n++] = chars[i];
            s += strlen(names[i]);
        } else if (*s == '&' && xml_entity(s, &len)) {
            out[n++] = (char)atoi(s + 2);
            s += len;
        } else {
            out[n++] = *s++;
        }
    }
    out[n] = '\0';
}

/* A JUnit time as written: seconds as a non-negative decimal number (its
 * value is the wall clock's, so never compared with a constant); returns
 * it in milliseconds. */
static long junit_time_ms(const char *v)
{
    char *end;
    if (!*v)
        fail_msg("no time attribute");
    double sec = strtod(v, &end);
    if (*end != '\0' || !(sec >= 0.0) || v[0] == '-')
        fail_msg("time \"%s\" is not a non-negative number", v);
    const char *dot = strchr(v, '.');
    if (!dot || strlen(dot + 1) != 3)
        fail_msg("time \"%s\" has not three decimals", v);
    return atol(v) * 1000 + atol(dot + 1);
}

/* Replaces every time attribute's value by "T", so that two reports can
 * be compared whatever the clock said. */
static void mask_times(char *xml)
{
    for (char *p = strstr(xml, " time=\""); p; p = strstr(p, " time=\"")) {
        p += strlen(" time=\"");
        size_t n = strcspn(p, "\"");
        if (n > 0) {
            *p = 'T';
            memmove(p + 1, p + n, strlen(p + n) + 1);
        }
    }
}

/* ---- tests ------------------------------------------------------------- */

/* A directory's *.json files run in byte order (upper case before lower
 * case, whatever the locale), one line each, and nothing else does: no
 * other extension, no hidden file, no subdirectory. */
static void test_all_pass_in_byte_order(void **state)
{
    (void)state;
    char *dir = make_dir();
    write_scenario(dir, "b.json", "b", PASS);
    write_scenario(dir, "a.json", "a", PASS);
    write_scenario(dir, "C.json", "C", PASS);
    write_scenario(dir, "notes.txt", "txt", FAIL4);
    write_scenario(dir, ".hidden.json", "hidden", FAIL4);
    char sub[512];
    snprintf(sub, sizeof sub, "%s/sub.json", dir);
    assert_int_equal(mkdir(sub, 0777), 0);
    write_scenario(sub, "deep.json", "deep", FAIL4);
    const char *argv[] = {"ksim", "check", dir};
    captured c = check_cmd(3, argv);
    assert_int_equal(c.rc, KS_EXIT_OK);
    assert_string_equal(c.out, "ok   C (2 expectations)\n"
                               "ok   a (2 expectations)\n"
                               "ok   b (2 expectations)\n"
                               "3 scenarios: 3 ok, 0 failed, 0 errors, 0 skipped\n");
    assert_string_equal(c.err, "");
    captured_free(&c);
    /* quiet: nothing at all when everything held */
    const char *q[] = {"ksim", "check", "-q", dir};
    c = check_cmd(4, q);
    assert_int_equal(c.rc, KS_EXIT_OK);
    assert_string_equal(c.out, "");
    captured_free(&c);
    remove_dir(dir);
}

/* A failing expectation: exit 1, the failing path with expected and
 * actual values, and a reproduce command with the seed and every --set,
 * quoted for the shell; the command does reproduce the failure. */
static void test_failure_and_reproduce(void **state)
{
    (void)state;
    char *dir = make_dir();
    write_scenario(dir, "fail.json", "fail", FAIL4);
    write_scenario(dir, "ok.json", "ok", PASS);
    const char *argv[] = {"ksim", "check", "--seed", "7", dir, "--set", "description=it's <&>"};
    captured c = check_cmd(7, argv);
    assert_int_equal(c.rc, KS_EXIT_EXPECT);
    char want[2048];
    snprintf(want, sizeof want,
             "FAIL fail: 1 of 2 expectations failed\n"
             "  records.acked: expected 4, got 3\n"
             "  reproduce: ksim run '%s/fail.json' --seed 7 --set 'description=it'\\''s <&>'\n"
             "ok   ok (2 expectations)\n"
             "2 scenarios: 1 ok, 1 failed, 0 errors, 0 skipped\n", dir);
    assert_string_equal(c.out, want);
    captured_free(&c);

    /* without --seed: the scenario's own; quiet keeps only the failure */
    const char *q[] = {"ksim", "check", "--quiet", dir};
    c = check_cmd(4, q);
    assert_int_equal(c.rc, KS_EXIT_EXPECT);
    snprintf(want, sizeof want,
             "FAIL fail: 1 of 2 expectations failed\n"
             "  records.acked: expected 4, got 3\n"
             "  reproduce: ksim run '%s/fail.json' --seed 42\n"
             "2 scenarios: 1 ok, 1 failed, 0 errors, 0 skipped\n", dir);
    assert_string_equal(c.out, want);
    captured_free(&c);

    char file[512], out[512];
    snprintf(file, sizeof file, "%s/fail.json", dir);
    snprintf(out, sizeof out, "%s/run-out", dir);
    const char *argv_run[] = {"ksim", "run", file, "--seed", "7", "--set", "description=it's <&>",
                         "-q", "--no-trace", "--out", out};
    c = capture(ks_cli_main, 11, argv_run);
    assert_int_equal(c.rc, KS_EXIT_EXPECT);
    /* run prints the same command for the same failure */
    snprintf(want, sizeof want,
             "reproduce  ksim run '%s/fail.json' --seed 7 --set 'description=it'\\''s <&>'\n", dir);
    assert_non_null(strstr(c.err, want));
    captured_free(&c);
    remove_dir(dir);
}

/* A scenario without expect block is skipped (and fails nothing); a file
 * that does not load is an error (exit 1) with the loader's messages. */
static void test_skip_and_error(void **state)
{
    (void)state;
    char *dir = make_dir();
    write_scenario(dir, "a.json", "a", PASS);
    write_scenario(dir, "b.json", "b", NULL);
    const char *argv[] = {"ksim", "check", dir};
    captured c = check_cmd(3, argv);
    assert_int_equal(c.rc, KS_EXIT_OK);
    assert_string_equal(c.out, "ok   a (2 expectations)\n"
                               "skip b (no expect block)\n"
                               "2 scenarios: 1 ok, 0 failed, 0 errors, 1 skipped\n");
    captured_free(&c);

    write_file(dir, "c.json", "{\"name\": \"c\",}");
    write_scenario(dir, "d.json", "d\", \"producers.typo\": 1, \"x\": \"", PASS);
    c = check_cmd(3, argv);
    assert_int_equal(c.rc, KS_EXIT_EXPECT);
    char *lines[16];
    size_t n = split_text(c.out, lines, 16);
    assert_int_equal(n, 6);
    assert_string_equal(lines[0], "ok   a (2 expectations)");
    assert_string_equal(lines[1], "skip b (no expect block)");
    char prefix[1024];
    snprintf(prefix, sizeof prefix, "ERROR %s/c.json:1:", dir);
    assert_true(starts_with(lines[2], prefix));
    assert_non_null(strstr(lines[2], "invalid JSON"));
    snprintf(prefix, sizeof prefix, "ERROR %s/d.json: $.producers.typo: ", dir);
    assert_true(starts_with(lines[3], prefix));
    snprintf(prefix, sizeof prefix, "  %s/d.json: $.x: ", dir);
    assert_true(starts_with(lines[4], prefix)); /* the second message, indented */
    assert_string_equal(lines[5], "4 scenarios: 1 ok, 0 failed, 2 errors, 1 skipped");
    captured_free(&c);

    /* a --set that does not fit a scenario: an error naming the file */
    char a[512];
    snprintf(a, sizeof a, "%s/a.json", dir);
    const char *s[] = {"ksim", "check", a, "--set", "producers.p9.config.acks=1"};
    c = check_cmd(5, s);
    assert_int_equal(c.rc, KS_EXIT_EXPECT);
    snprintf(prefix, sizeof prefix, "ERROR %s: --set producers.p9.config.acks=1: ", a);
    assert_true(starts_with(c.out, prefix));
    captured_free(&c);

    const char *q[] = {"ksim", "check", "-q", dir};
    c = check_cmd(4, q);
    assert_int_equal(c.rc, KS_EXIT_EXPECT);
    assert_null(strstr(c.out, "ok   a"));
    assert_null(strstr(c.out, "skip b"));
    assert_non_null(strstr(c.out, "ERROR "));
    captured_free(&c);
    remove_dir(dir);
}

static void expect_usage(int argc, const char **argv, const char *message)
{
    captured c = check_cmd(argc, argv);
    assert_int_equal(c.rc, KS_EXIT_USAGE);
    assert_string_equal(c.out, "");
    if (!strstr(c.err, message))
        fail_msg("'%s' not in: %s", message, c.err);
    captured_free(&c);
}

/* Bad usage is exit 2 and runs nothing; --help is exit 0. */
static void test_usage(void **state)
{
    (void)state;
    char *dir = make_dir();
    write_scenario(dir, "a.json", "a", PASS);
    const char *a[] = {"ksim", "check", "--bogus", dir};
    expect_usage(4, a, "unknown option '--bogus'");
    const char *b[] = {"ksim", "check", "--set", "novalue", dir};
    expect_usage(5, b, "--set: expected PATH=VALUE");
    const char *s[] = {"ksim", "check", "--seed", "-1", dir};
    expect_usage(5, s, "--seed: expected an integer");
    const char *d[] = {"ksim", "check", dir, "no-such-dir"};
    expect_usage(4, d, "no-such-dir: No such file or directory");
    const char *e[] = {"ksim", "check", "--tap", "--junit", "-", dir};
    expect_usage(6, e, "cannot both use standard output");
    const char *f[] = {"ksim", "check", "-"};
    expect_usage(3, f, "not standard input");
    const char *g[] = {"ksim", "check", "--junit", "/proc/ksim-check/report.xml", dir};
    expect_usage(5, g, "/proc/ksim-check/report.xml");
    char empty[512];
    snprintf(empty, sizeof empty, "%s/empty", dir);
    assert_int_equal(mkdir(empty, 0777), 0);
    const char *h[] = {"ksim", "check", empty};
    expect_usage(3, h, "no scenario files found");

    const char *help[] = {"ksim", "check", "--help"};
    captured c = check_cmd(3, help);
    assert_int_equal(c.rc, KS_EXIT_OK);
    assert_string_equal(c.out, ks_usage_check);
    assert_true(starts_with(ks_usage_check, "usage: ksim check"));
    captured_free(&c);
    remove_dir(dir);
}

/* The JUnit report: well formed, one testcase per scenario, the counts,
 * a failure with its reproduce command, skipped and error elements, and
 * names and messages escaped. */
static void test_junit(void **state)
{
    (void)state;
    char *dir = make_dir();
    write_scenario(dir, "1.json", "q\\\"u'o<t>e& \\u0001", PASS);
    write_scenario(dir, "2.json", "amp", "{\"a&b<c\": 1, \"records.acked\": 3}");
    write_scenario(dir, "3.json", "skipped", NULL);
    write_file(dir, "4.json", "[]");
    char report[512];
    snprintf(report, sizeof report, "%s/out/junit/report.xml", dir);
    const char *argv[] = {"ksim", "check", "--junit", report, dir, "--set", "seed=5"};
    captured c = check_cmd(7, argv);
    assert_int_equal(c.rc, KS_EXIT_EXPECT);
    captured_free(&c);
    char *xml = read_whole(report);
    assert_non_null(xml);
    assert_true(xml_well_formed(xml));
    assert_int_equal(xml_count(xml, "testsuites"), 1);
    assert_int_equal(xml_count(xml, "testsuite"), 1);
    assert_string_equal(xml_attr(xml, "testsuite", 0, "name"), "ksim");
    assert_string_equal(xml_attr(xml, "testsuite", 0, "tests"), "4");
    assert_string_equal(xml_attr(xml, "testsuite", 0, "failures"), "1");
    assert_string_equal(xml_attr(xml, "testsuite", 0, "errors"), "1");
    assert_string_equal(xml_attr(xml, "testsuite", 0, "skipped"), "1");
    assert_int_equal(xml_count(xml, "testcase"), 4);
    assert_int_equal(xml_count(xml, "failure"), 1);
    assert_int_equal(xml_count(xml, "error"), 1);
    assert_int_equal(xml_count(xml, "skipped"), 1);
    /* what the strict schema forbids: skipped on <testsuites>, file on
     * <testcase>, properties anywhere but in <testsuite> */
    assert_string_equal(xml_attr(xml, "testsuites", 0, "skipped"), "");
    assert_int_equal(xml_count(xml, "properties"), 1);
    assert_true(strstr(xml, "<properties>") < strstr(xml, "<testcase "));
    assert_int_equal(xml_count(xml, "system-out"), 4);
    char decoded[1024], file[512], out[1024];
    long sum_ms = 0;
    for (int i = 0; i < 4; i++) {
        assert_string_equal(xml_attr(xml, "testcase", i, "classname"), "ksim.scenarios");
        assert_string_equal(xml_attr(xml, "testcase", i, "file"), "");
        sum_ms += junit_time_ms(xml_attr(xml, "testcase", i, "time"));
        /* the file, and the seed when it loaded, in its system-out */
        snprintf(file, sizeof file, "%s/%d.json", dir, i + 1);
        snprintf(out, sizeof out, "<system-out>file: %s\n%s", file, i < 3 ? "seed: 5\n" : "<");
        assert_non_null(strstr(xml, out));
    }
    /* a suite's time is the sum of its testcases' */
    assert_int_equal(junit_time_ms(xml_attr(xml, "testsuite", 0, "time")), sum_ms);
    assert_int_equal(junit_time_ms(xml_attr(xml, "testsuites", 0, "time")), sum_ms);
    assert_string_equal(xml_attr(xml, "testsuites", 0, "tests"), "4");
    assert_string_equal(xml_attr(xml, "testsuites", 0, "failures"), "1");
    assert_string_equal(xml_attr(xml, "testsuites", 0, "errors"), "1");
    /* quote, apostrophe, <, >, & as entities; U+0001 (not XML) as U+FFFD */
    assert_string_equal(xml_attr(xml, "testcase", 0, "name"),
                        "q&quot;u&apos;o&lt;t&gt;e&amp; \xEF\xBF\xBD");
    xml_unescape(xml_attr(xml, "testcase", 0, "name"), decoded, sizeof decoded);
    assert_string_equal(decoded, "q\"u'o<t>e& \xEF\xBF\xBD");
    assert_string_equal(xml_attr(xml, "testcase", 1, "name"), "amp");
    const char *msg = xml_attr(xml, "failure", 0, "message");
    assert_non_null(strstr(msg, "a&amp;b&lt;c: expected 1, got null"));
    assert_non_null(strstr(xml, "reproduce: ksim run &apos;"));
    assert_non_null(strstr(xml, "--seed 5 --set &apos;seed=5&apos;\n</failure>"));
    assert_non_null(strstr(xml, "seed: 5\nvirtual_time_ns: "));
    assert_non_null(strstr(xml, "\nexpectations: 3\n</system-out>"));
    assert_string_equal(xml_attr(xml, "testcase", 3, "name"), file);
    assert_non_null(strstr(xml_attr(xml, "error", 0, "message"), "4.json"));
    free(xml);

    /* written whole: no temporary file is left beside the report */
    snprintf(report, sizeof report, "%s/out/junit", dir);
    DIR *d = opendir(report);
    assert_non_null(d);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d));)
        entries += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(entries, 1);
    remove_dir(dir);
}

/* The TAP stream: version, plan, one line per scenario, a YAML block for
 * a failure and an error, SKIP for no expect block, '#' escaped. */
static void test_tap(void **state)
{
    (void)state;
    char *dir = make_dir();
    write_scenario(dir, "a.json", "a # b", PASS);
    write_scenario(dir, "b.json", "b", FAIL4);
    write_scenario(dir, "c.json", "c", NULL);
    write_file(dir, "d.json", "{");
    const char *argv[] = {"ksim", "check", "--tap", "-q", dir};
    captured c = check_cmd(5, argv);
    assert_int_equal(c.rc, KS_EXIT_EXPECT);
    char *l[64], want[512];
    size_t n = split_text(c.out, l, 64);
    assert_int_equal(n, 26);
    assert_string_equal(l[0], "TAP version 13");
    assert_string_equal(l[1], "1..4");
    assert_string_equal(l[2], "ok 1 - a \\# b");
    assert_string_equal(l[3], "not ok 2 - b");
    assert_string_equal(l[4], "  ---");
    assert_string_equal(l[5], "  message: \"1 of 2 expectations failed\"");
    assert_string_equal(l[6], "  severity: fail");
    snprintf(want, sizeof want, "  file: \"%s/b.json\"", dir);
    assert_string_equal(l[7], want);
    assert_string_equal(l[8], "  seed: 42");
    assert_true(starts_with(l[9], "  virtual_time_ns: "));
    assert_string_equal(l[10], "  failures:");
    assert_string_equal(l[11], "    - path: \"records.acked\"");
    assert_string_equal(l[12], "      expected: \"4\"");
    assert_string_equal(l[13], "      actual: \"3\"");
    snprintf(want, sizeof want, "  reproduce: \"ksim run '%s/b.json' --seed 42\"", dir);
    assert_string_equal(l[14], want);
    assert_string_equal(l[15], "  ...");
    assert_string_equal(l[16], "ok 3 - c # SKIP no expect block");
    snprintf(want, sizeof want, "not ok 4 - %s/d.json", dir);
    assert_string_equal(l[17], want);
    assert_string_equal(l[18], "  ---");
    assert_true(starts_with(l[19], "  message: \""));
    assert_string_equal(l[20], "  severity: error");
    assert_true(starts_with(l[22], "  errors:"));
    assert_true(starts_with(l[23], "    - \""));
    assert_non_null(strstr(l[23], "invalid JSON"));
    assert_string_equal(l[24], "  ...");
    assert_string_equal(l[25], "# 4 scenarios: 1 ok, 1 failed, 1 error, 1 skipped");
    captured_free(&c);
    remove_dir(dir);
}

/* Two checks of the same files print the same bytes and write the same
 * report but for its times (the wall clock's): nothing else depends on
 * the clock or on the order of readdir. */
static void test_deterministic(void **state)
{
    (void)state;
    char *dir = make_dir();
    const char *names[] = {"m.json", "z.json", "A.json", "k.json", "b.json"};
    for (int i = 0; i < 5; i++)
        write_scenario(dir, names[i], names[i], i % 2 ? FAIL4 : PASS);
    char r1[512], r2[512];
    snprintf(r1, sizeof r1, "%s/r1.xml", dir);
    snprintf(r2, sizeof r2, "%s/r2.xml", dir);
    const char *a[] = {"ksim", "check", dir, "--junit", r1};
    const char *b[] = {"ksim", "check", dir, "--junit", r2};
    captured ca = check_cmd(5, a), cb = check_cmd(5, b);
    assert_int_equal(ca.rc, KS_EXIT_EXPECT);
    assert_string_equal(ca.out, cb.out);
    char *xa = read_whole(r1), *xb = read_whole(r2);
    assert_non_null(xa);
    assert_non_null(xb);
    mask_times(xa);
    mask_times(xb);
    assert_string_equal(xa, xb);
    assert_non_null(strstr(xa, " time=\"T\""));
    assert_true(strstr(xa, "A.json") < strstr(xa, "b.json"));
    assert_true(strstr(xa, "k.json") < strstr(xa, "m.json"));
    assert_true(strstr(xa, "m.json") < strstr(xa, "z.json"));
    free(xa);
    free(xb);
    captured_free(&ca);
    captured_free(&cb);
    remove_dir(dir);
}

/* Without arguments: the directory scenarios; files and directories mix,
 * in the order given. */
static void test_default_and_mixed_arguments(void **state)
{
    (void)state;
    char *dir = make_dir();
    char sc[512], cwd[4096];
    snprintf(sc, sizeof sc, "%s/scenarios", dir);
    assert_int_equal(mkdir(sc, 0777), 0);
    write_scenario(sc, "x.json", "x", PASS);
    write_scenario(dir, "y.json", "y", PASS);
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    const char *argv[] = {"ksim", "check"};
    captured c = check_cmd(2, argv);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(c.rc, KS_EXIT_OK);
    assert_string_equal(c.out, "ok   x (2 expectations)\n"
                               "1 scenario: 1 ok, 0 failed, 0 errors, 0 skipped\n");
    captured_free(&c);
    char y[512];
    snprintf(y, sizeof y, "%s/y.json", dir);
    const char *mixed[] = {"ksim", "check", y, sc};
    c = check_cmd(4, mixed);
    assert_int_equal(c.rc, KS_EXIT_OK);
    assert_string_equal(c.out, "ok   y (2 expectations)\n"
                               "ok   x (2 expectations)\n"
                               "2 scenarios: 2 ok, 0 failed, 0 errors, 0 skipped\n");
    captured_free(&c);
    remove_dir(dir);
}

/* The project's own scenarios all hold, one testcase per file. */
static void test_project_scenarios(void **state)
{
    (void)state;
    /* ctest sets KSIM_SOURCE_DIR; run by hand, this file's own path
     * (CMake compiles it by absolute path) locates the sources */
    const char *src = getenv("KSIM_SOURCE_DIR");
    char sdir[512];
    size_t here = strlen(__FILE__), tail = strlen("/tests/test_check.c");
    if (src)
        snprintf(sdir, sizeof sdir, "%s/scenarios", src);
    else if (here > tail)
        snprintf(sdir, sizeof sdir, "%.*s/scenarios", (int)(here - tail), __FILE__);
    else
        snprintf(sdir, sizeof sdir, "../scenarios");
    DIR *d = opendir(sdir);
    assert_non_null(d);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        files += e->d_name[0] != '.' && n > 5 && strcmp(e->d_name + n - 5, ".json") == 0;
    }
    closedir(d);
    char *dir = make_dir();
    char report[512];
    snprintf(report, sizeof report, "%s/report.xml", dir);
    const char *argv[] = {"ksim", "check", "--junit", report, sdir};
    captured c = check_cmd(5, argv);
    if (c.rc != KS_EXIT_OK)
        fail_msg("check failed:\n%s%s", c.out, c.err);
    captured_free(&c);
    char *xml = read_whole(report);
    assert_non_null(xml);
    assert_true(files > 0);
    assert_int_equal(xml_count(xml, "testcase"), files);
    assert_string_equal(xml_attr(xml, "testsuite", 0, "failures"), "0");
    assert_string_equal(xml_attr(xml, "testsuite", 0, "errors"), "0");
    free(xml);
    remove_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_pass_in_byte_order),
        cmocka_unit_test(test_failure_and_reproduce),
        cmocka_unit_test(test_skip_and_error),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_junit),
        cmocka_unit_test(test_tap),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_default_and_mixed_arguments),
        cmocka_unit_test(test_project_scenarios),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
