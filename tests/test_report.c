/*
 * test_report.c - `ksim report`: the charts, data files, scripts and
 * pages it writes for runs at the batch and record trace levels, one run
 * and two on the same axes; the fault markers; labels of runs that share
 * a name; determinism (the same runs give the same bytes); a missing
 * gnuplot; and its errors (a RUN that does not exist, a file that is not
 * a ksim trace, bad usage). Traces written by another JSON writer give
 * the same data files; a wrongly typed field (trace or summary) or a NUL
 * byte is an error naming the line and the field, and leaves no output.
 *
 * The traces are made once, by `ksim run` in this process (ks_cli_main),
 * from the scenarios of the source tree ($KSIM_SOURCE_DIR) into a fresh
 * directory under the test's working directory; the report reads the
 * templates of the source tree's reports/. gnuplot must be installed.
 */
#define _XOPEN_SOURCE 700

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/harness.h"

#include "sim/str.h"
#include "tools/cli.h"
#include "tools/status.h"
#include "tools/commands.h"
#include "tools/trace_line.h"

#include <ftw.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WORK "report-work"

/* ---- helpers ------------------------------------------------------------ */

/* Lines of a file that do not start with '#'. */
static size_t data_rows(const char *path)
{
    char *text = read_whole(path);
    assert_non_null(text);
    size_t n = 0;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        n += len > 0 && *p != '#';
        p += len + (p[len] == '\n');
    }
    free(text);
    return n;
}

/* `ksim report` with the source tree's templates, RUNs and -o dir. */
static captured report(const char *dir, int n_runs, const char *const *runs,
                       const char *extra)
{
    char templates[1024];
    snprintf(templates, sizeof templates, "%s/reports", source_dir());
    const char *argv[16] = {"ksim", "report", "-o", dir, "--templates", templates};
    int argc = 6;
    for (int i = 0; i < n_runs && argc < 14; i++)
        argv[argc++] = runs[i];
    if (extra)
        argv[argc++] = extra;
    return capture(ks_cmd_report, argc, argv);
}

static void rc_is(captured c, int want)
{
    if (c.rc != want)
        print_error("exit %d, standard error:\n%s\n", c.rc, c.err);
    captured_free(&c);
    assert_int_equal(c.rc, want);
}

/* `ksim run` of a scenario of the source tree into WORK/OUT. */
static void run_scenario(const char *name, const char *out, const char *level)
{
    char scen[1024], dir[512];
    snprintf(scen, sizeof scen, "%s/scenarios/%s.json", source_dir(), name);
    snprintf(dir, sizeof dir, WORK "/%s", out);
    const char *argv[] = {"ksim", "run", scen, "--quiet", "--out", dir, "--trace-level", level};
    rc_is(capture(ks_cli_main, 8, argv), 0);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int make_runs(void **state)
{
    (void)state;
    nftw(WORK, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    mkdir(WORK, 0777);
    run_scenario("hello", "hello", "batch");
    run_scenario("seed-at-least-once", "alo", "record");
    run_scenario("rr-vs-sticky", "rr", "batch");
    run_scenario("rr-vs-sticky-sticky", "sticky", "batch");
    run_scenario("seed-zombie-fencing", "zombie", "batch");
    run_scenario("hello", "hello-summary", "summary");
    run_scenario("seed-at-most-once", "amo", "summary");
    run_scenario("delayed-produce-classic", "classic", "summary");
    return 0;
}

static const char *const charts[] = {"throughput", "latency",  "requests", "latency-percentiles",
                                     "batch-size", "delivery", "consumers"};
#define N_CHARTS (sizeof charts / sizeof charts[0])

static char *path_in(const char *dir, const char *name)
{
    static char buf[4][1024]; /* a few at a time */
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

/* Whether index.html and report.md show exactly the images that exist. */
static void pages_match_images(const char *dir)
{
    char *html = read_whole(path_in(dir, "index.html"));
    char *md = read_whole(path_in(dir, "report.md"));
    assert_non_null(html);
    assert_non_null(md);
    for (size_t c = 0; c < N_CHARTS; c++) {
        char png[128], svg[128], src[160], md_img[160];
        snprintf(png, sizeof png, "%s.png", charts[c]);
        snprintf(svg, sizeof svg, "%s.svg", charts[c]);
        snprintf(src, sizeof src, "src=\"%s\"", png);
        snprintf(md_img, sizeof md_img, "](%s)", png);
        bool has_png = exists(path_in(dir, png)), has_svg = exists(path_in(dir, svg));
        assert_int_equal(strstr(html, src) != NULL, has_png);
        assert_int_equal(strstr(md, md_img) != NULL, has_png);
        snprintf(src, sizeof src, "\"%s\"", svg);
        assert_int_equal(strstr(html, src) != NULL, has_svg);
    }
    free(html);
    free(md);
}

/* Metrics lines in a trace. */
static size_t metrics_lines(const char *trace)
{
    char *text = read_whole(trace);
    assert_non_null(text);
    size_t n = count_of(text, "\"ev\":\"metrics\"");
    free(text);
    return n;
}

/* ---- tests ---------------------------------------------------------------- */

/* Two batch-level runs on the same axes: every chart but the latency
 * percentiles, both formats, one series per run, one row per metrics
 * line (the last bucket, cut short by the run's end, apart). */
static void two_runs_on_one_chart(void **state)
{
    (void)state;
    const char *runs[] = {WORK "/rr", WORK "/sticky/trace.jsonl"};
    const char *dir = WORK "/two";
    rc_is(report(dir, 2, runs, NULL), 0);
    for (size_t c = 0; c < N_CHARTS; c++) {
        bool want = strcmp(charts[c], "latency-percentiles") != 0 &&
                    strcmp(charts[c], "consumers") != 0;
        char name[128];
        snprintf(name, sizeof name, "%s.png", charts[c]);
        assert_int_equal(exists(path_in(dir, name)), want);
        snprintf(name, sizeof name, "%s.svg", charts[c]);
        assert_int_equal(exists(path_in(dir, name)), want);
        snprintf(name, sizeof name, "%s.gp", charts[c]);
        assert_int_equal(exists(path_in(dir, name)), want);
    }
    assert_true(exists(path_in(dir, "report.md")));
    pages_match_images(dir);
    assert_int_equal(data_rows(path_in(dir, "data/run1-metrics.dat")) + 1,
                     metrics_lines(WORK "/rr/trace.jsonl"));
    assert_int_equal(data_rows(path_in(dir, "data/run2-metrics.dat")) + 1,
                     metrics_lines(WORK "/sticky/trace.jsonl"));
    /* rr-vs-sticky ends 9.8 ms into its last 100 ms bucket */
    char *partial = read_whole(path_in(dir, "data/run1-partial.dat"));
    assert_non_null(partial);
    assert_non_null(strstr(partial, "\n2.409811323 2.400000000 "));
    free(partial);
    assert_false(exists(path_in(dir, "data/run3-metrics.dat")));
    assert_int_equal(data_rows(path_in(dir, "data/run1-faults.dat")), 0);
    assert_int_equal(data_rows(path_in(dir, "data/delivery.dat")), 4);

    char *gp = read_whole(path_in(dir, "throughput.gp"));
    assert_non_null(gp);
    /* records/s and MB/s: one series per run, and each run's last bucket
     * as a point; one panel each, from 0, since the runs are alike */
    assert_int_equal(count_of(gp, "-metrics.dat' using 1:4 with linespoints"), 2);
    assert_int_equal(count_of(gp, "-metrics.dat' using 1:5 with linespoints"), 2);
    assert_int_equal(count_of(gp, "-partial.dat' using 1:4 with points"), 2);
    assert_non_null(strstr(gp, "\npanels = 2\n"));
    assert_int_equal(count_of(gp, "set yrange [0:*]"), 2);
    assert_non_null(strstr(gp, "title 'rr-vs-sticky-sticky'"));
    assert_null(strstr(gp, "faults.dat")); /* no fault struck */
    assert_null(strstr(gp, "@PLOT")); /* every placeholder replaced */
    free(gp);

    char *md = read_whole(path_in(dir, "report.md"));
    assert_non_null(md);
    assert_non_null(strstr(md, "| p1 | partitioner | round_robin | sticky |"));
    assert_non_null(strstr(md, "| records acked | 60000 | 60000 |"));
    assert_non_null(strstr(md, "needs ack lines (--trace-level record)"));
    free(md);
}

/* A record-level run with one fault: the latency percentiles, the fault
 * as a band, and the buckets that completed nothing as gaps. */
static void record_level_with_a_fault(void **state)
{
    (void)state;
    const char *runs[] = {WORK "/alo"};
    const char *dir = WORK "/alo-report";
    rc_is(report(dir, 1, runs, NULL), 0);
    assert_int_equal(data_rows(path_in(dir, "data/run1-faults.dat")), 1);
    char *faults = read_whole(path_in(dir, "data/run1-faults.dat"));
    assert_non_null(strstr(faults, "\"drop.response\""));
    free(faults);
    /* one record: the ladder's first point (the minimum) is all there is */
    char *pct = read_whole(path_in(dir, "data/run1-percentiles.dat"));
    assert_non_null(pct);
    assert_int_equal(data_rows(path_in(dir, "data/run1-percentiles.dat")), 1);
    assert_non_null(strstr(pct, "\n0.0000 1.00 1113.0"));
    free(pct);
    assert_true(exists(path_in(dir, "latency-percentiles.png")));
    assert_true(exists(path_in(dir, "latency-percentiles.svg")));
    const char *timecharts[] = {"throughput.gp", "latency.gp", "requests.gp"};
    for (size_t i = 0; i < 3; i++) {
        char *gp = read_whole(path_in(dir, timecharts[i]));
        assert_non_null(gp);
        assert_non_null(strstr(gp, "'data/run1-faults.dat' using 1:(0):1:"));
        assert_non_null(strstr(gp, "with boxxy fs transparent solid 0.3 noborder lt 1 "
                                   "title 'seed-at-least-once faults: drop.response'"));
        free(gp);
    }
    /* the record is acknowledged in the last bucket; the ten before it
     * completed nothing: NaN, where gnuplot breaks a line */
    char *metrics = read_whole(path_in(dir, "data/run1-metrics.dat"));
    assert_int_equal(count_of(metrics, " NaN NaN\n"), 11);
    free(metrics);
    char *gp = read_whole(path_in(dir, "batch-size.gp"));
    assert_null(strstr(gp, "faults.dat"));
    free(gp);
    char *dat = read_whole(path_in(dir, "data/delivery.dat"));
    assert_non_null(strstr(dat, "\nduplicate 1\n"));
    free(dat);
    pages_match_images(dir);
}

/* The delivery bars: the four anomalies always; at-most-once's loss (told
 * failed, in no log) only when some run has one; the transactional
 * anomalies when they were checked. */
static void delivery_bars_follow_the_runs(void **state)
{
    (void)state;
    const char *runs[] = {WORK "/amo", WORK "/alo"};
    rc_is(report(WORK "/amo-report", 2, runs, NULL), 0);
    char *dat = read_whole(path_in(WORK "/amo-report", "data/delivery.dat"));
    assert_non_null(dat);
    assert_non_null(strstr(dat, "\nlost 0 0\nduplicate 0 1\nnonmonotonic_send 0 0\n"
                                "failed_but_present 0 0\nfailed_and_absent 1 0\n"));
    assert_null(strstr(dat, "indeterminate"));
    assert_null(strstr(dat, "aborted_read"));
    free(dat);
    /* the bars are named as `ksim run` names the counts, under integer
     * ticks, two bars side by side around each name */
    char *gp = read_whole(path_in(WORK "/amo-report", "delivery.gp"));
    assert_non_null(strstr(gp, "set xtics (\"lost\" 0, \"duplicate\" 1, \"reordered\" 2, "
                               "\"failed but\\npresent\" 3, \"failed and\\nabsent\" 4)"));
    assert_non_null(strstr(gp, "set ytics 1\n"));
    assert_non_null(strstr(gp, "using ($0-0.2000):2 with boxes"));
    assert_non_null(strstr(gp, "using ($0+0.2000):3 with boxes"));
    free(gp);

    const char *classic[] = {WORK "/classic"};
    rc_is(report(WORK "/classic-report", 1, classic, NULL), 0);
    dat = read_whole(path_in(WORK "/classic-report", "data/delivery.dat"));
    assert_non_null(dat);
    /* its one failed record is in the log: failed but present, not absent;
     * the transactional anomalies were checked, found or not */
    assert_non_null(strstr(dat, "\nfailed_but_present 1\naborted_read 1\n"
                                "zombie_write_visible 0\ntorn_transaction 0\n"
                                "precommitted_read 0\n"));
    assert_null(strstr(dat, "failed_and_absent"));
    free(dat);

    /* consumers: one row per consumer, the run named only among several */
    assert_false(exists(WORK "/amo-report/data/consumers.dat"));
    assert_false(exists(WORK "/amo-report/consumers.svg"));
    dat = read_whole(path_in(WORK "/classic-report", "data/consumers.dat"));
    assert_non_null(dat);
    assert_non_null(strstr(dat, "\n\"\" \"c1 (read_committed)\" 2 0\n"));
    free(dat);
    assert_true(exists(WORK "/classic-report/consumers.svg"));
    const char *both[] = {WORK "/amo", WORK "/classic"};
    rc_is(report(WORK "/both-report", 2, both, NULL), 0);
    dat = read_whole(path_in(WORK "/both-report", "data/consumers.dat"));
    assert_non_null(dat);
    /* only one run has consumers: no need to name it */
    assert_non_null(strstr(dat, "\n\"\" \"c1 (read_committed)\" 2 0\n"));
    assert_int_equal(data_rows(path_in(WORK "/both-report", "data/consumers.dat")), 1);
    free(dat);
    pages_match_images(WORK "/both-report");
}

/* Runs whose scales are more than 10 times apart get panels of their
 * own (records/s and MB/s each); a fault window, a producer paused from
 * its begin line to its end line, is one band from one to the other. */
static void panels_and_windows(void **state)
{
    (void)state;
    const char *runs[] = {WORK "/rr", WORK "/zombie"};
    const char *dir = WORK "/panels";
    rc_is(report(dir, 2, runs, NULL), 0);
    char *gp = read_whole(path_in(dir, "throughput.gp"));
    assert_non_null(gp);
    assert_non_null(strstr(gp, "\npanels = 4\nheight = 1080\n"));
    assert_int_equal(count_of(gp, "    plot "), 4);
    /* rr-vs-sticky, the larger, comes first */
    const char *rr = strstr(gp, "run1-metrics.dat' using 1:4"),
               *zombie = strstr(gp, "run2-metrics.dat' using 1:4");
    assert_non_null(rr);
    assert_non_null(zombie);
    assert_true(rr < zombie);
    assert_non_null(strstr(gp, "title 'seed-zombie-fencing faults: pause.producer'"));
    free(gp);
    char *faults = read_whole(path_in(dir, "data/run2-faults.dat"));
    assert_non_null(strstr(faults, "\n0.020000000 0.300000000 0 \"pause.producer\"\n"));
    free(faults);
    pages_match_images(dir);
}

/* Two runs of one scenario and seed: labels told apart by their place. */
static void labels_of_runs_sharing_a_name(void **state)
{
    (void)state;
    const char *runs[] = {WORK "/hello", WORK "/hello/trace.jsonl"};
    const char *dir = WORK "/labels";
    rc_is(report(dir, 2, runs, NULL), 0);
    char *gp = read_whole(path_in(dir, "throughput.gp"));
    assert_non_null(strstr(gp, "title 'hello #1'"));
    assert_non_null(strstr(gp, "title 'hello #2'"));
    free(gp);
    char *md = read_whole(path_in(dir, "report.md"));
    assert_non_null(strstr(md, "No producer parameter differs between the runs."));
    free(md);

    /* the same scenario with a parameter overridden, and with another
     * seed: labelled by what differs */
    char scen[1024];
    snprintf(scen, sizeof scen, "%s/scenarios/hello.json", source_dir());
    const char *linger[] = {"ksim", "run", scen, "--quiet", "--out", WORK "/hello-linger",
                            "--set", "producers.p1.config.linger.ms=7", "--seed", "9"};
    captured c = capture(ks_cli_main, 10, linger);
    assert_true(c.rc == 0 || c.rc == 1); /* its expect block was written for linger.ms 0 */
    captured_free(&c);
    const char *two[] = {WORK "/hello", WORK "/hello-linger"};
    rc_is(report(WORK "/labels2", 2, two, NULL), 0);
    gp = read_whole(path_in(WORK "/labels2", "throughput.gp"));
    assert_non_null(strstr(gp, "title 'hello seed 42 linger.ms=0'"));
    assert_non_null(strstr(gp, "title 'hello seed 9 linger.ms=7'"));
    free(gp);
}

/* A summary-level trace: only the metrics charts and the delivery bars. */
static void summary_level_trace(void **state)
{
    (void)state;
    const char *runs[] = {WORK "/hello-summary"};
    const char *dir = WORK "/summary-level";
    rc_is(report(dir, 1, runs, "--format=svg"), 0);
    assert_true(exists(path_in(dir, "throughput.svg")));
    assert_false(exists(path_in(dir, "throughput.png")));
    assert_false(exists(path_in(dir, "batch-size.svg")));
    assert_false(exists(path_in(dir, "latency-percentiles.svg")));
    assert_true(exists(path_in(dir, "delivery.svg")));
    pages_match_images(dir);
    char *md = read_whole(path_in(dir, "report.md"));
    assert_non_null(strstr(md, "needs drain lines (--trace-level batch or above)"));
    assert_non_null(strstr(md, "![Throughput](throughput.svg)"));
    free(md);
}

/* Equal runs give equal bytes in every file ksim writes. */
static void same_runs_same_bytes(void **state)
{
    (void)state;
    const char *runs[] = {WORK "/alo", WORK "/hello"};
    rc_is(report(WORK "/det1", 2, runs, NULL), 0);
    rc_is(report(WORK "/det2", 2, runs, NULL), 0);
    const char *files[] = {"report.md", "index.html", "throughput.gp", "delivery.gp",
                           "data/run1-metrics.dat", "data/run1-faults.dat",
                           "data/run1-percentiles.dat", "data/run2-batches.dat",
                           "data/delivery.dat", "throughput.svg", "latency-percentiles.svg"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *a = read_whole(path_in(WORK "/det1", files[i]));
        char *b = read_whole(path_in(WORK "/det2", files[i]));
        assert_non_null(a);
        assert_non_null(b);
        if (strcmp(a, b) != 0)
            print_error("%s differs\n", files[i]);
        assert_string_equal(a, b);
        free(a);
        free(b);
    }
}

/* With no templates directory to be found (no --templates, no
 * $KSIM_REPORTS_DIR, none in the working directory or beside the test's
 * executable), the copies built into ksim draw the same scripts. */
static void builtin_templates(void **state)
{
    (void)state;
    const char *runs[] = {WORK "/alo"};
    rc_is(report(WORK "/from-files", 1, runs, NULL), 0);
    char *env = getenv("KSIM_REPORTS_DIR") ? ks_strdup(getenv("KSIM_REPORTS_DIR")) : NULL;
    unsetenv("KSIM_REPORTS_DIR");
    const char *argv[] = {"ksim", "report", "-o", WORK "/built-in", WORK "/alo"};
    captured c = capture(ks_cmd_report, 5, argv);
    if (env)
        setenv("KSIM_REPORTS_DIR", env, 1);
    free(env);
    rc_is(c, 0);
    for (size_t i = 0; i < N_CHARTS; i++) {
        char name[128];
        snprintf(name, sizeof name, "%s.gp", charts[i]);
        if (!exists(path_in(WORK "/from-files", name)))
            continue;
        char *a = read_whole(path_in(WORK "/from-files", name));
        char *b = read_whole(path_in(WORK "/built-in", name));
        assert_non_null(b);
        assert_string_equal(a, b);
        free(a);
        free(b);
    }
}

/* Without gnuplot: exit 2, but the data, the scripts and the pages are
 * written, and the pages show no image. */
static void without_gnuplot(void **state)
{
    (void)state;
    const char *runs[] = {WORK "/hello"};
    const char *dir = WORK "/no-gnuplot";
    setenv("KSIM_GNUPLOT", "/nonexistent/gnuplot", 1);
    captured c = report(dir, 1, runs, NULL);
    unsetenv("KSIM_GNUPLOT");
    assert_non_null(strstr(c.err, "cannot run gnuplot"));
    rc_is(c, KS_EXIT_USAGE);
    assert_true(exists(path_in(dir, "throughput.gp")));
    assert_true(exists(path_in(dir, "data/run1-metrics.dat")));
    assert_false(exists(path_in(dir, "throughput.png")));
    assert_false(exists(path_in(dir, "throughput.png.tmp")));
    pages_match_images(dir);
    char *html = read_whole(path_in(dir, "index.html"));
    assert_null(strstr(html, "<img"));
    assert_non_null(strstr(html, "gnuplot did not draw it"));
    free(html);
}

/* A RUN that does not exist, and files that are not ksim traces. */
static void bad_runs(void **state)
{
    (void)state;
    const char *missing[] = {WORK "/no-such-run"};
    captured c = report(WORK "/bad", 1, missing, NULL);
    assert_non_null(strstr(c.err, WORK "/no-such-run"));
    rc_is(c, KS_EXIT_USAGE);

    FILE *f = fopen(WORK "/not-a-trace.txt", "w");
    assert_non_null(f);
    fputs("hello\n", f);
    fclose(f);
    const char *text[] = {WORK "/not-a-trace.txt"};
    c = report(WORK "/bad", 1, text, NULL);
    assert_non_null(strstr(c.err, "not a ksim trace"));
    rc_is(c, KS_EXIT_USAGE);

    f = fopen(WORK "/no-header.jsonl", "w");
    assert_non_null(f);
    fputs("{\"t\":0,\"ev\":\"metrics\",\"from\":0}\n", f);
    fclose(f);
    const char *json[] = {WORK "/no-header.jsonl"};
    c = report(WORK "/bad", 1, json, NULL);
    assert_non_null(strstr(c.err, "not a ksim trace"));
    rc_is(c, KS_EXIT_USAGE);

    const char *dir[] = {WORK}; /* a directory without trace.jsonl */
    c = report(WORK "/bad", 1, dir, NULL);
    assert_non_null(strstr(c.err, "no trace.jsonl"));
    rc_is(c, KS_EXIT_USAGE);
    assert_false(exists(WORK "/bad/report.md"));
}

/* ---- other JSON formatting, wrongly typed fields ---------------------------- */

static void write_bytes(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

/* WORK/to: a copy of run WORK/from (trace.jsonl and summary.json) whose
 * trace is `trace` (len bytes). */
static void make_run(const char *from, const char *to, const char *trace, size_t len)
{
    char dir[256], path[320];
    snprintf(dir, sizeof dir, WORK "/%s", to);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/trace.jsonl", dir);
    write_bytes(path, trace, len);
    snprintf(path, sizeof path, WORK "/%s/summary.json", from);
    char *summary = read_whole(path);
    assert_non_null(summary);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    write_bytes(path, summary, strlen(summary));
    free(summary);
}

static char *trace_of(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, WORK "/%s/trace.jsonl", name);
    char *text = read_whole(path);
    assert_non_null(text);
    return text;
}

/* Every line as jansson writes it with sorted keys (spaces after ':' and
 * ','), "p1" spelled with \u escapes, a blank before it, "\r\n" after. */
static char *reserialised(const char *text)
{
    char *copy = ks_strdup(text);
    ks_sbuf out = {0};
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
        json_error_t jerr;
        json_t *j = json_loads(line, 0, &jerr);
        assert_non_null(j);
        char *dumped = json_dumps(j, JSON_SORT_KEYS);
        assert_non_null(dumped);
        ks_sb_puts(&out, " ");
        for (const char *p = dumped; *p;) {
            bool p1 = strncmp(p, "\"p1\"", 4) == 0;
            ks_sb_add(&out, p1 ? "\"\\u0070\\u0031\"" : p, p1 ? 14 : 1);
            p += p1 ? 4 : 1;
        }
        ks_sb_puts(&out, "\r\n");
        free(dumped);
        json_decref(j);
    }
    free(copy);
    return ks_sb_take(&out);
}

/* Runs passed through another JSON writer give the same data files. */
static void other_formatting(void **state)
{
    (void)state;
    static const char *const names[] = {"alo", "rr"};
    for (size_t i = 0; i < 2; i++) {
        char *text = trace_of(names[i]);
        char *other = reserialised(text);
        assert_non_null(strstr(other, "\"ev\": \"metrics\""));
        char to[64];
        snprintf(to, sizeof to, "%s-reformatted", names[i]);
        make_run(names[i], to, other, strlen(other));
        free(text);
        free(other);
    }
    const char *compact[] = {WORK "/alo", WORK "/rr"};
    const char *other[] = {WORK "/alo-reformatted", WORK "/rr-reformatted"};
    rc_is(report(WORK "/fmt-compact", 2, compact, "--format=svg"), 0);
    rc_is(report(WORK "/fmt-other", 2, other, "--format=svg"), 0);
    const char *files[] = {"data/run1-metrics.dat", "data/run1-faults.dat", "data/run1-percentiles.dat",
                           "data/run1-batches.dat", "data/run2-metrics.dat",
                           "data/run2-batches.dat", "data/delivery.dat"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *a = read_whole(path_in(WORK "/fmt-compact", files[i]));
        char *b = read_whole(path_in(WORK "/fmt-other", files[i]));
        assert_non_null(a);
        assert_non_null(b);
        if (strcmp(a, b) != 0)
            print_error("%s differs\n", files[i]);
        assert_string_equal(a, b);
        assert_true(strlen(a) > 20);
        free(a);
        free(b);
    }
}

/* In text, the first line holding `line_part`: its first `from` becomes
 * `to`. Returns that line's number. */
static size_t edit_first(char **text, const char *line_part, const char *from, const char *to)
{
    char *start = strstr(*text, line_part);
    assert_non_null(start);
    while (start > *text && start[-1] != '\n')
        start--;
    char *at = strstr(start, from);
    assert_non_null(at);
    assert_true(at < start + strcspn(start, "\n"));
    size_t line = 1;
    for (const char *p = *text; p < start; p++)
        line += *p == '\n';
    ks_sbuf b = {0};
    ks_sb_add(&b, *text, (size_t)(at - *text));
    ks_sb_puts(&b, to);
    ks_sb_puts(&b, at + strlen(from));
    free(*text);
    *text = ks_sb_take(&b);
    return line;
}

/* A report that must fail with `message` and leave nothing behind. */
static void fails_cleanly(size_t n_runs, const char *const *runs, const char *message)
{
    const char *dir = WORK "/must-not-exist";
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    captured c = report(dir, (int)n_runs, runs, NULL);
    if (!strstr(c.err, message))
        print_error("expected \"%s\" in:\n%s\n", message, c.err);
    assert_non_null(strstr(c.err, message));
    rc_is(c, KS_EXIT_USAGE);
    assert_false(exists(dir));
}

/* A field of the wrong type, in a trace line or in the summary, is an
 * error naming the file, the line and the field; no output is written,
 * not even for the runs before it. */
static void wrong_types(void **state)
{
    (void)state;
    static const struct {
        const char *line, *from, *to, *message;
    } cases[] = {
        {"\"ev\":\"ack\"", "\"latency_ns\":", "\"latency_ns\":\"5\",\"x\":",
         "field \"latency_ns\": expected an integer, got \"5\""},
        {"\"ev\":\"metrics\"", "\"acked\":", "\"acked\":1.5,\"x\":",
         "field \"acked\": expected an integer, got 1.5"},
        {"\"ev\":\"fault\"", "\"type\":", "\"type\":3,\"x\":",
         "field \"type\": expected a string, got 3"},
        {"\"ev\":\"drain\"", "\"records\":", "\"records\":null,\"x\":",
         "field \"records\": expected an integer, got null"},
        {"\"ev\":\"header\"", "\"seed\":1", "\"seed\":\"1\"",
         "field \"seed\": expected an integer, got \"1\""},
        {"\"ev\":\"header\"", "\"partitioner\":\"uniform_sticky\"", "\"partitioner\":7",
         "field \"derived.producers[0].partitioner\": expected a string, got 7"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *text = trace_of("alo");
        size_t line = edit_first(&text, cases[i].line, cases[i].from, cases[i].to);
        make_run("alo", "bad-type", text, strlen(text));
        free(text);
        char want[256];
        snprintf(want, sizeof want, WORK "/bad-type/trace.jsonl:%zu: %s", line, cases[i].message);
        const char *one[] = {WORK "/bad-type"};
        fails_cleanly(1, one, want);
        const char *two[] = {WORK "/alo", WORK "/bad-type"};
        fails_cleanly(2, two, want);
    }
    char *text = trace_of("alo");
    make_run("alo", "bad-summary", text, strlen(text));
    free(text);
    char *summary = read_whole(WORK "/bad-summary/summary.json");
    assert_non_null(summary);
    edit_first(&summary, "\"lost\"", "\"lost\":", "\"lost\": \"none\", \"x\":");
    write_bytes(WORK "/bad-summary/summary.json", summary, strlen(summary));
    free(summary);
    const char *runs[] = {WORK "/alo", WORK "/bad-summary"};
    fails_cleanly(2, runs,
                  WORK "/bad-summary/summary.json: field \"delivery.lost\": expected an integer, "
                       "got \"none\"");
}

/* A NUL byte in a line is refused with the line's number. */
static void nul_byte(void **state)
{
    (void)state;
    char *text = trace_of("alo");
    size_t line = edit_first(&text, "\"ev\":\"produce\"", "\"topic\":", "\"to@ic\":");
    size_t len = strlen(text);
    *strchr(text, '@') = '\0';
    make_run("alo", "nul", text, len);
    free(text);
    char want[160];
    snprintf(want, sizeof want, WORK "/nul/trace.jsonl:%zu: a NUL byte at column", line);
    const char *runs[] = {WORK "/nul"};
    fails_cleanly(1, runs, want);
}

/* ks_report_stream reads a trace from any FILE, with the same checks. */
static void stream(void **state)
{
    (void)state;
    char *text = trace_of("alo");
    FILE *in = fmemopen(text, strlen(text), "rb");
    assert_non_null(in);
    char err[512] = "";
    assert_int_equal(ks_report_stream(in, "mem.jsonl", err, sizeof err), 0);
    fclose(in);
    size_t line = edit_first(&text, "\"ev\":\"ack\"", "\"offset\":", "\"offset\":1e3,\"x\":");
    in = fmemopen(text, strlen(text), "rb");
    assert_int_equal(ks_report_stream(in, "mem.jsonl", err, sizeof err), 0); /* offset: unread */
    fclose(in);
    edit_first(&text, "\"ev\":\"ack\"", "\"latency_ns\":", "\"latency_ns\":1e3,\"y\":");
    in = fmemopen(text, strlen(text), "rb");
    assert_int_equal(ks_report_stream(in, "mem.jsonl", err, sizeof err), 2);
    char want[128];
    snprintf(want, sizeof want, "mem.jsonl:%zu: field \"latency_ns\": expected an integer, got 1e3",
             line);
    assert_string_equal(err, want);
    fclose(in);
    free(text);
}

/* Usage errors, --help, and templates that are not there. */
static void usage(void **state)
{
    (void)state;
    const char *none[] = {"ksim", "report"};
    rc_is(capture(ks_cmd_report, 2, none), KS_EXIT_USAGE);
    const char *fmt[] = {"ksim", "report", "--format", "gif", WORK "/hello"};
    rc_is(capture(ks_cmd_report, 5, fmt), KS_EXIT_USAGE);
    const char *unknown[] = {"ksim", "report", "--bogus", WORK "/hello"};
    rc_is(capture(ks_cmd_report, 4, unknown), KS_EXIT_USAGE);
    const char *help[] = {"ksim", "report", "--help"};
    rc_is(capture(ks_cmd_report, 3, help), KS_EXIT_OK);
    const char *tmpl[] = {"ksim", "report", "--templates", WORK, "-o", WORK "/t", WORK "/hello"};
    captured c = capture(ks_cmd_report, 7, tmpl);
    assert_non_null(strstr(c.err, "no gnuplot templates there"));
    rc_is(c, KS_EXIT_USAGE);
    assert_true(strlen(ks_usage_report) > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_runs_on_one_chart),
        cmocka_unit_test(record_level_with_a_fault),
        cmocka_unit_test(delivery_bars_follow_the_runs),
        cmocka_unit_test(panels_and_windows),
        cmocka_unit_test(builtin_templates),
        cmocka_unit_test(labels_of_runs_sharing_a_name),
        cmocka_unit_test(summary_level_trace),
        cmocka_unit_test(same_runs_same_bytes),
        cmocka_unit_test(without_gnuplot),
        cmocka_unit_test(bad_runs),
        cmocka_unit_test(other_formatting),
        cmocka_unit_test(wrong_types),
        cmocka_unit_test(nul_byte),
        cmocka_unit_test(stream),
        cmocka_unit_test(usage),
    };
    return cmocka_run_group_tests(tests, make_runs, NULL);
}
