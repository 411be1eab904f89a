/*
 * test_export.c - `ksim export --format chrome`: scenarios of the source
 * tree run by `ksim run` in this process ($KSIM_SOURCE_DIR, into a fresh
 * directory under the test's working directory), exported, and the
 * result parsed with jansson and checked against Chrome's Trace Event
 * format: a traceEvents array whose every event has a string name and
 * ph, a numeric ts, integer pid and tid; complete events with dur >= 0
 * that never overlap without nesting on one track (Perfetto drops those);
 * instants with a scope; every pid and tid used named by metadata, with
 * sort indices, and no tid in two processes; as many request durations as
 * the trace has send lines; every fault an instant at the time it
 * strikes. Then what the durations say for the seed scenarios (the lost
 * ACK's request ended by the timeout, the retry's by its response, the
 * crash's by the crash), exact timestamps beyond a double's precision,
 * the same bytes from the same trace (file and standard output), the
 * levels, and the errors: a file that is not a trace, an unknown
 * --format, a missing file, a bad line (no output left), bad usage.
 */
#define _XOPEN_SOURCE 700

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/harness.h"

#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/status.h"
#include "tools/trace_line.h"

#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WORK "export-work"

/* ---- helpers ------------------------------------------------------------ */

static void rc_is(captured c, int want)
{
    if (c.rc != want)
        print_error("exit %d, standard error:\n%s\n", c.rc, c.err);
    captured_free(&c);
    assert_int_equal(c.rc, want);
}

/* `ksim run` of a scenario of the source tree into WORK/OUT at a level. */
static void run_scenario(const char *name, const char *out, const char *level)
{
    char scen[1024], dir[512];
    snprintf(scen, sizeof scen, "%s/scenarios/%s.json", source_dir(), name);
    snprintf(dir, sizeof dir, WORK "/%s", out);
    const char *argv[] = {"ksim", "run", scen, "--quiet", "--out", dir, "--trace-level", level};
    rc_is(capture(ks_cli_main, 8, argv), 0);
}

/* The same with faults of its own instead of the scenario's, its expect
 * block not checked. */
static void run_with_faults(const char *name, const char *out, const char *faults)
{
    char scen[1024], dir[512], set[512];
    snprintf(scen, sizeof scen, "%s/scenarios/%s.json", source_dir(), name);
    snprintf(dir, sizeof dir, WORK "/%s", out);
    snprintf(set, sizeof set, "faults=%s", faults);
    const char *argv[] = {"ksim", "run", scen, "--quiet", "--out", dir, "--set", set,
                          "--no-expect"};
    rc_is(capture(ks_cli_main, 9, argv), 0);
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
    run_scenario("seed-at-least-once", "alo", "record");
    run_scenario("seed-transaction-commit", "txn", "batch");
    run_scenario("consume-transform-produce-at-least-once", "crash", "record");
    run_scenario("seed-lost-request", "lost", "batch");
    run_scenario("acks0-silent-loss", "acks0", "batch");
    run_with_faults("two-consumer-groups", "ctimeout",
                    "[{\"type\": \"drop.response\", \"api\": \"OffsetFetch\","
                    " \"consumer\": \"billing\"}]");
    run_scenario("hello", "hello", "debug");
    run_scenario("hello", "hello-summary", "summary");
    return 0;
}

/* `ksim export WORK/RUN/trace.jsonl -o WORK/RUN.json`: the output, parsed,
 * and its text in *text (when text is not NULL). */
static json_t *export_run(const char *name, char **text)
{
    char trace[256], out[256];
    snprintf(trace, sizeof trace, WORK "/%s/trace.jsonl", name);
    snprintf(out, sizeof out, WORK "/%s.json", name);
    const char *argv[] = {"ksim", "export", "--format", "chrome", trace, "-o", out};
    rc_is(capture(ks_cmd_export, 7, argv), 0);
    json_error_t je;
    json_t *root = json_load_file(out, 0, &je);
    if (!root)
        print_error("%s:%d: %s\n", out, je.line, je.text);
    assert_non_null(root);
    if (text)
        assert_non_null(*text = read_whole(out));
    return root;
}

static char *trace_of(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, WORK "/%s/trace.jsonl", name);
    char *t = read_whole(path);
    assert_non_null(t);
    return t;
}

/* ---- the format ----------------------------------------------------------- */

#define MAX_TIDS 4096

typedef struct seen {
    json_int_t tid_pid[MAX_TIDS]; /* the pid of each tid used or named; 0: none */
    bool used[MAX_TIDS], named[MAX_TIDS], sorted[MAX_TIDS];
    bool pid_named[MAX_TIDS], pid_sorted[MAX_TIDS], pid_used[MAX_TIDS];
    size_t requests;
} seen;

static double num(const json_t *e, const char *key)
{
    const json_t *v = json_object_get(e, key);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

/* The checks of one event's shape; records its pid and tid in s. */
static void check_event(const json_t *e, seen *s)
{
    assert_true(json_is_object(e));
    assert_true(json_is_string(json_object_get(e, "name")));
    const char *ph = json_string_value(json_object_get(e, "ph"));
    assert_non_null(ph);
    num(e, "ts");
    assert_true(json_is_integer(json_object_get(e, "pid")));
    assert_true(json_is_integer(json_object_get(e, "tid")));
    json_int_t pid = json_integer_value(json_object_get(e, "pid"));
    json_int_t tid = json_integer_value(json_object_get(e, "tid"));
    assert_true(pid > 0 && pid < MAX_TIDS && tid > 0 && tid < MAX_TIDS);
    if (s->tid_pid[tid] == 0)
        s->tid_pid[tid] = pid;
    assert_int_equal(s->tid_pid[tid], pid); /* a tid in one process only */
    const char *name = json_string_value(json_object_get(e, "name"));
    if (strcmp(ph, "M") == 0) {
        s->named[tid] |= strcmp(name, "thread_name") == 0;
        s->sorted[tid] |= strcmp(name, "thread_sort_index") == 0;
        s->pid_named[pid] |= strcmp(name, "process_name") == 0;
        s->pid_sorted[pid] |= strcmp(name, "process_sort_index") == 0;
        return;
    }
    s->used[tid] = s->pid_used[pid] = true;
    if (strcmp(ph, "X") == 0) {
        assert_true(num(e, "dur") >= 0);
        const char *cat = json_string_value(json_object_get(e, "cat"));
        s->requests += cat && strcmp(cat, "request") == 0;
    } else if (strcmp(ph, "i") == 0) {
        const char *scope = json_string_value(json_object_get(e, "s"));
        assert_non_null(scope);
        assert_true(strcmp(scope, "g") == 0 || strcmp(scope, "p") == 0 || strcmp(scope, "t") == 0);
    } else {
        assert_string_equal(ph, "C");
        assert_true(json_is_object(json_object_get(e, "args")));
    }
}

typedef struct span {
    json_int_t tid;
    double from, to;
} span;

static int by_start(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->tid != y->tid)
        return (x->tid > y->tid) - (x->tid < y->tid);
    if (x->from != y->from)
        return (x->from > y->from) - (x->from < y->from);
    return (x->to < y->to) - (x->to > y->to); /* the longer first */
}

/* Complete events on one track nest or follow each other: never overlap
 * without nesting. Times compared to a tenth of a nanosecond. */
static void check_nesting(const json_t *events)
{
    size_t n = json_array_size(events), k = 0;
    span *sp = calloc(n + 1, sizeof *sp);
    assert_non_null(sp);
    const json_t *e;
    size_t i;
    json_array_foreach(events, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "ph")), "X") != 0)
            continue;
        double ts = num(e, "ts");
        sp[k++] = (span){json_integer_value(json_object_get(e, "tid")), ts, ts + num(e, "dur")};
    }
    qsort(sp, k, sizeof *sp, by_start);
    double open[64];
    size_t depth = 0;
    for (i = 0; i < k; i++) {
        if (i > 0 && sp[i].tid != sp[i - 1].tid)
            depth = 0;
        while (depth && open[depth - 1] <= sp[i].from + 1e-4)
            depth--;
        if (depth && sp[i].to > open[depth - 1] + 1e-4)
            fail_msg("tid %lld: [%.3f, %.3f] overlaps a slice ending at %.3f",
                     (long long)sp[i].tid, sp[i].from, sp[i].to, open[depth - 1]);
        assert_true(depth < 64);
        open[depth++] = sp[i].to;
    }
    free(sp);
}

/* Every fault line of the trace has a "fault" instant named by its type
 * at the time it strikes (at_t, else t). */
static void check_faults(const char *trace, const json_t *events, size_t *faults)
{
    *faults = 0;
    for (const char *p = trace; *p;) {
        size_t len = strcspn(p, "\n");
        json_t *l = json_loadb(p, len, 0, NULL);
        assert_non_null(l);
        p += len + (p[len] == '\n');
        if (strcmp(json_string_value(json_object_get(l, "ev")), "fault") != 0) {
            json_decref(l);
            continue;
        }
        const json_t *at = json_object_get(l, "at_t");
        json_int_t t = json_integer_value(at ? at : json_object_get(l, "t"));
        const char *type = json_string_value(json_object_get(l, "type"));
        bool found = false;
        const json_t *e;
        size_t i;
        json_array_foreach(events, i, e) {
            const char *cat = json_string_value(json_object_get(e, "cat"));
            const char *name = json_string_value(json_object_get(e, "name"));
            found |= cat && strcmp(cat, "fault") == 0 &&
                     strcmp(json_string_value(json_object_get(e, "ph")), "i") == 0 &&
                     strncmp(name, type, strlen(type)) == 0 &&
                     fabs(num(e, "ts") - (double)t / 1000.0) < 1e-4;
        }
        if (!found)
            fail_msg("no fault instant for %s at t=%lld", type, (long long)t);
        (*faults)++;
        json_decref(l);
    }
}

/* All the checks of the format on the export of WORK/NAME; returns the
 * export (the caller's), its text in *text when not NULL. */
static json_t *check_format(const char *name, char **text)
{
    json_t *root = export_run(name, text);
    assert_true(json_is_object(root));
    assert_string_equal(json_string_value(json_object_get(root, "displayTimeUnit")), "ms");
    const json_t *events = json_object_get(root, "traceEvents");
    assert_true(json_is_array(events));
    assert_true(json_array_size(events) > 0);
    seen *s = calloc(1, sizeof *s);
    assert_non_null(s);
    const json_t *e;
    size_t i;
    json_array_foreach(events, i, e)
        check_event(e, s);
    for (size_t t = 0; t < MAX_TIDS; t++) {
        if (s->used[t] && !(s->named[t] && s->sorted[t]))
            fail_msg("tid %zu is used without its thread_name and thread_sort_index", t);
        if (s->pid_used[t] && !(s->pid_named[t] && s->pid_sorted[t]))
            fail_msg("pid %zu is used without its process_name and process_sort_index", t);
    }
    check_nesting(events);
    char *trace = trace_of(name);
    assert_int_equal(s->requests, count_of(trace, "\"ev\":\"send\""));
    size_t faults;
    check_faults(trace, events, &faults);
    free(trace);
    free(s);
    return root;
}

/* The metadata name of a process or track of event e. */
static const char *meta_name(const json_t *root, const char *what, const json_t *e)
{
    json_int_t pid = json_integer_value(json_object_get(e, "pid"));
    json_int_t tid = json_integer_value(json_object_get(e, "tid"));
    bool thread = strcmp(what, "thread_name") == 0;
    const json_t *m;
    size_t i;
    json_array_foreach(json_object_get(root, "traceEvents"), i, m)
        if (strcmp(json_string_value(json_object_get(m, "name")), what) == 0 &&
            json_integer_value(json_object_get(m, "pid")) == pid &&
            (!thread || json_integer_value(json_object_get(m, "tid")) == tid))
            return json_string_value(json_object_get(json_object_get(m, "args"), "name"));
    return NULL;
}

/* The complete event of the request (api, number) of the export, on the
 * thread named thread (any thread when NULL). */
static const json_t *request_on(const json_t *root, const char *thread, const char *api,
                                json_int_t number)
{
    const json_t *e, *found = NULL;
    size_t i;
    json_array_foreach(json_object_get(root, "traceEvents"), i, e) {
        const json_t *args = json_object_get(e, "args");
        if (strcmp(json_string_value(json_object_get(e, "ph")), "X") == 0 &&
            strcmp(json_string_value(json_object_get(e, "name")), api) == 0 &&
            json_integer_value(json_object_get(args, "request")) == number &&
            (!thread || strcmp(meta_name(root, "thread_name", e), thread) == 0)) {
            assert_null(found);
            found = e;
        }
    }
    assert_non_null(found);
    return found;
}

static const json_t *request(const json_t *root, const char *api, json_int_t number)
{
    return request_on(root, NULL, api, number);
}

static const char *end_of(const json_t *req)
{
    return json_string_value(json_object_get(json_object_get(req, "args"), "end"));
}

/* The number of events of phase ph named `name`. */
static size_t count_named(const json_t *root, const char *ph, const char *name)
{
    size_t n = 0, i;
    const json_t *e;
    json_array_foreach(json_object_get(root, "traceEvents"), i, e)
        n += strcmp(json_string_value(json_object_get(e, "ph")), ph) == 0 &&
             strcmp(json_string_value(json_object_get(e, "name")), name) == 0;
    return n;
}

/* ---- the scenarios ---------------------------------------------------------- */

/* At-least-once: the first request is ended by request.timeout.ms (its
 * ACK lost), the retry by its response; both appends on the partition. */
static void at_least_once(void **state)
{
    (void)state;
    char *text;
    json_t *root = check_format("alo", &text);
    const json_t *first = request(root, "Produce", 1), *retry = request(root, "Produce", 2);
    assert_string_equal(end_of(first), "disconnect");
    assert_string_equal(end_of(retry), "response");
    /* 0 to 1000015000 ns, and 1111015000 ns for 2047555 ns: exact decimals */
    assert_non_null(strstr(text, "\"ph\":\"X\",\"ts\":0,\"pid\":2,\"tid\":"));
    assert_non_null(strstr(text, "\"ts\":1111015,\"pid\":2"));
    assert_non_null(strstr(text, "\"dur\":2047.555,"));
    assert_string_equal(meta_name(root, "thread_name", first), "p1 \xE2\x86\x92 broker 0");
    assert_string_equal(meta_name(root, "process_name", first), "producer p1");
    assert_int_equal(count_named(root, "i", "append"), 2);
    assert_int_equal(count_named(root, "i", "batch created"), 1); /* not again for the retry */
    assert_int_equal(count_named(root, "i", "batch drained"), 2);
    assert_int_equal(count_named(root, "i", "batch failed"), 1);
    assert_int_equal(count_named(root, "i", "batch retry"), 1);
    assert_int_equal(count_named(root, "i", "batch acked"), 1);
    assert_int_equal(count_named(root, "i", "send()"), 1); /* record level */
    assert_int_equal(count_named(root, "i", "ack"), 1);
    assert_int_equal(count_named(root, "i", "drop.response"), 1);
    free(text);
    json_decref(root);
}

/* A transaction: each API's request a duration on the one connection;
 * the coordinator's states and the marker on the broker's tracks. */
static void transaction(void **state)
{
    (void)state;
    json_t *root = check_format("txn", NULL);
    static const char *const apis[] = {"FindCoordinator", "InitProducerId", "AddPartitionsToTxn",
                                       "Produce", "EndTxn"};
    for (size_t i = 0; i < sizeof apis / sizeof *apis; i++) {
        const json_t *r = request_on(root, "p1 \xE2\x86\x92 broker 0", apis[i], 1);
        assert_string_equal(end_of(r), "response");
    }
    /* the consumer's requests and the coordinator's, each on its own lane */
    assert_string_equal(
        end_of(request_on(root, "c1 \xE2\x86\x92 broker 0", "FindCoordinator", 1)), "response");
    assert_string_equal(
        end_of(request_on(root, "broker0 \xE2\x86\x92 broker 0", "WriteTxnMarkers", 1)),
        "response");
    assert_int_equal(count_named(root, "i", "txn Ongoing"), 1);
    assert_int_equal(count_named(root, "i", "txn CompleteCommit"), 1);
    assert_int_equal(count_named(root, "i", "marker COMMIT"), 1);
    assert_int_equal(count_named(root, "i", "committed"), 1);
    json_decref(root);
}

/* A consumer's lost answer: its request ends at the consumer's own
 * request timeout (the disconnect line), 30 s after it left, and the
 * request asked again ends with its response. */
static void consumer_timeout(void **state)
{
    (void)state;
    json_t *root = check_format("ctimeout", NULL);
    const char *lane = "billing \xE2\x86\x92 broker 0";
    const json_t *lost = request_on(root, lane, "OffsetFetch", 1);
    assert_string_equal(end_of(lost), "timed out (request.timeout.ms)");
    assert_true(fabs(num(lost, "dur") - 30000000.0) < 1e-6);
    assert_string_equal(end_of(request_on(root, lane, "OffsetFetch", 2)), "response");
    assert_int_equal(count_named(root, "i", "disconnect"), 1);
    json_decref(root);
}

/* Crashes: a producer's request in flight ends when it crashes; each
 * crash marks its node's process at the time it happens. */
static void crashes(void **state)
{
    (void)state;
    json_t *root = check_format("crash", NULL);
    size_t ended = 0, i;
    const json_t *e;
    json_array_foreach(json_object_get(root, "traceEvents"), i, e) {
        const char *end = end_of(e);
        if (end && strcmp(end, "producer crashed") == 0) {
            ended++;
            /* 96298306 ns to the crash at 97 ms */
            assert_true(fabs(num(e, "ts") - 96298.306) < 1e-6);
            assert_true(fabs(num(e, "dur") - 701.694) < 1e-6);
        }
        const char *name = json_string_value(json_object_get(e, "name"));
        if (strncmp(name, "crash.", 6) == 0) {
            assert_string_equal(json_string_value(json_object_get(e, "s")), "p");
            assert_true(fabs(num(e, "ts") - 97000) < 1e-6);
        }
    }
    assert_int_equal(ended, 1);
    assert_int_equal(count_named(root, "i", "crash.producer"), 1);
    assert_int_equal(count_named(root, "i", "crash.consumer"), 1);
    assert_true(count_named(root, "i", "consume") > 0);
    json_decref(root);
}

/* A lost request: its fault is stamped when it strikes (at_t, 15 us),
 * not when it was decided (t 0). acks=0: requests end at the broker. */
static void lost_request_and_acks0(void **state)
{
    (void)state;
    json_t *root = check_format("lost", NULL);
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(root, "traceEvents"), i, e)
        if (strcmp(json_string_value(json_object_get(e, "name")), "drop.request") == 0)
            assert_true(fabs(num(e, "ts") - 15) < 1e-9);
    assert_int_equal(count_named(root, "i", "drop.request"), 1);
    json_decref(root);
    root = check_format("acks0", NULL);
    const json_t *r = request(root, "Produce", 1);
    assert_non_null(strstr(end_of(r), "acks=0"));
    json_decref(root);
}

/* debug: every engine event an instant; lanes of one connection; the
 * summary level: counters and the end only. */
static void levels(void **state)
{
    (void)state;
    json_t *root = check_format("hello", NULL);
    char *trace = trace_of("hello");
    size_t events = count_of(trace, "\"ev\":\"event\"");
    assert_true(events > 0);
    size_t engine = 0, lanes = 0, i;
    const json_t *e;
    json_array_foreach(json_object_get(root, "traceEvents"), i, e) {
        const char *cat = json_string_value(json_object_get(e, "cat"));
        engine += strcmp(cat, "engine") == 0;
        const char *name = json_string_value(json_object_get(e, "name"));
        const json_t *args = json_object_get(e, "args");
        lanes += strcmp(name, "thread_name") == 0 &&
                 strstr(json_string_value(json_object_get(args, "name")), " #") != NULL;
    }
    assert_int_equal(engine, events);
    assert_true(lanes >= 1); /* hello has requests in flight together */
    free(trace);
    json_decref(root);
    root = check_format("hello-summary", NULL);
    json_array_foreach(json_object_get(root, "traceEvents"), i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *name = json_string_value(json_object_get(e, "name"));
        assert_true(strcmp(ph, "C") == 0 || strcmp(ph, "M") == 0 ||
                    strcmp(name, "end: complete") == 0);
    }
    assert_string_equal(json_string_value(json_object_get(json_object_get(root, "otherData"),
                                                          "verdict")),
                        "complete");
    json_decref(root);
}

/* ---- bytes and errors --------------------------------------------------------- */

/* The same trace gives the same bytes, to a file and to standard output. */
static void same_bytes(void **state)
{
    (void)state;
    char *a, *b;
    json_decref(export_run("alo", &a));
    json_decref(export_run("alo", &b));
    assert_string_equal(a, b);
    const char *argv[] = {"ksim", "export", WORK "/alo"}; /* a run's directory */
    captured c = capture(ks_cmd_export, 3, argv);
    assert_int_equal(c.rc, 0);
    assert_string_equal(c.out, a);
    captured_free(&c);
    free(a);
    free(b);
}

static const char header[] =
    "{\"t\":0,\"ev\":\"header\",\"format\":1,\"ksim\":\"0.1.0\",\"scenario\":\"x\",\"seed\":1,"
    "\"kafka\":\"3.9\",\"level\":\"batch\",\"resolved\":{\"brokers\":{\"count\":1},"
    "\"topics\":[{\"name\":\"events\"}]},\"derived\":{\"producers\":[{\"id\":\"p1\","
    "\"config\":{\"acks\":\"all\"}}]}}\n";

/* ks_export_stream of header + body; the output in *out. */
static int stream(const char *body, char **out, char *err, size_t errlen)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s", header, body);
    FILE *in = fmemopen(text, strlen(text), "rb");
    assert_non_null(in);
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    assert_non_null(o);
    int rc = ks_export_stream(in, "mem.jsonl", o, err, errlen);
    fclose(o);
    fclose(in);
    *out = buf;
    return rc;
}

/* Nanoseconds as exact microseconds, beyond what a double holds (2^53 + 1
 * ns), and durations by integer subtraction. */
static void exact_times(void **state)
{
    (void)state;
    char *out, err[512] = "";
    const char body[] =
        "{\"t\":1001,\"ev\":\"send\",\"producer\":\"p1\",\"broker\":0,\"request\":1,"
        "\"batches\":0,\"records\":0,\"bytes\":1,\"arrive_t\":-1}\n"
        "{\"t\":1234560,\"ev\":\"fault\",\"fault\":0,\"type\":\"pause.broker\",\"phase\":\"begin\","
        "\"broker\":0,\"until\":9007199254740993}\n"
        "{\"t\":9007199254740993,\"ev\":\"response\",\"producer\":\"p1\",\"broker\":0,"
        "\"request\":1,\"error\":\"NONE\",\"rtt_ns\":5}\n";
    assert_int_equal(stream(body, &out, err, sizeof err), 0);
    assert_non_null(strstr(out, "\"ph\":\"X\",\"ts\":1.001,"));
    assert_non_null(strstr(out, "\"dur\":9007199254739.992,"));
    assert_non_null(strstr(out, "\"ph\":\"i\",\"ts\":1234.56,"));
    assert_non_null(strstr(out, "\"s\":\"p\""));
    assert_non_null(strstr(out, "\"until\":9007199254740993"));
    free(out);
    /* a line that goes back in time is refused, with its number */
    const char back[] = "{\"t\":10,\"ev\":\"admin\",\"op\":\"x\"}\n"
                        "{\"t\":5,\"ev\":\"admin\",\"op\":\"x\"}\n";
    assert_int_equal(stream(back, &out, err, sizeof err), 2);
    assert_non_null(strstr(err, "mem.jsonl:3: t 5 is before"));
    free(out);
}

/* A file that is not a trace, an unknown --format, a missing file, a bad
 * line (nothing left under -o), a scenario given for a trace. */
static void errors(void **state)
{
    (void)state;
    FILE *f = fopen(WORK "/not-a-trace.jsonl", "wb");
    assert_non_null(f);
    fputs("{\"hello\":\"world\"}\n", f);
    fclose(f);
    const char *not_trace[] = {"ksim", "export", WORK "/not-a-trace.jsonl", "-o", WORK "/o.json"};
    captured c = capture(ks_cmd_export, 5, not_trace);
    assert_non_null(strstr(c.err, "ksim export: " WORK "/not-a-trace.jsonl:1: "));
    assert_non_null(strstr(c.err, "not a ksim trace"));
    assert_false(exists(WORK "/o.json"));
    rc_is(c, KS_EXIT_USAGE);

    const char *fmt[] = {"ksim", "export", "--format", "svg", WORK "/alo/trace.jsonl"};
    c = capture(ks_cmd_export, 5, fmt);
    assert_non_null(strstr(c.err, "ksim export: --format: expected chrome, got 'svg'"));
    assert_non_null(strstr(c.err, "Try 'ksim export --help'"));
    rc_is(c, KS_EXIT_USAGE);

    const char *missing[] = {"ksim", "export", WORK "/no-such.jsonl"};
    c = capture(ks_cmd_export, 3, missing);
    assert_non_null(strstr(c.err, "ksim export: " WORK "/no-such.jsonl: cannot open: "));
    rc_is(c, KS_EXIT_USAGE);

    /* a producer the header does not know, on line 2: no output at all */
    f = fopen(WORK "/bad.jsonl", "wb");
    assert_non_null(f);
    fprintf(f, "%s{\"t\":1,\"ev\":\"send\",\"producer\":\"zz\",\"broker\":0,\"request\":1}\n",
            header);
    fclose(f);
    const char *bad[] = {"ksim", "export", WORK "/bad.jsonl", "-o", WORK "/o.json"};
    c = capture(ks_cmd_export, 5, bad);
    assert_non_null(strstr(c.err, "bad.jsonl:2: producer 'zz' is not in the trace header"));
    assert_false(exists(WORK "/o.json"));
    rc_is(c, KS_EXIT_USAGE);

    char scen[1024];
    snprintf(scen, sizeof scen, "%s/scenarios/hello.json", source_dir());
    const char *scenario[] = {"ksim", "export", scen};
    c = capture(ks_cmd_export, 3, scenario);
    assert_non_null(strstr(c.err, "not a ksim trace"));
    rc_is(c, KS_EXIT_USAGE);
}

/* Bad usage, --help, --, and the command in the top-level help. */
static void usage(void **state)
{
    (void)state;
    const char *none[] = {"ksim", "export"};
    rc_is(capture(ks_cmd_export, 2, none), KS_EXIT_USAGE);
    const char *two[] = {"ksim", "export", WORK "/alo", WORK "/txn"};
    rc_is(capture(ks_cmd_export, 4, two), KS_EXIT_USAGE);
    const char *unknown[] = {"ksim", "export", "--bogus", WORK "/alo"};
    rc_is(capture(ks_cmd_export, 4, unknown), KS_EXIT_USAGE);
    const char *itself[] = {"ksim", "export", WORK "/alo", "-o", WORK "/alo/trace.jsonl"};
    rc_is(capture(ks_cmd_export, 5, itself), KS_EXIT_USAGE);
    const char *help[] = {"ksim", "export", "-h"};
    captured c = capture(ks_cmd_export, 3, help);
    assert_non_null(strstr(c.out, "usage: ksim export"));
    assert_non_null(strstr(c.out, "--trace-level"));
    rc_is(c, KS_EXIT_OK);
    const char *dashes[] = {"ksim", "export", "-o", WORK "/d.json", "--", WORK "/alo"};
    rc_is(capture(ks_cmd_export, 6, dashes), KS_EXIT_OK);
    assert_true(exists(WORK "/d.json"));
    const char *top[] = {"ksim", "--help"};
    c = capture(ks_cli_main, 2, top);
    assert_non_null(strstr(c.out, "  export TRACE"));
    rc_is(c, KS_EXIT_OK);
    const char *help_export[] = {"ksim", "help", "export"};
    c = capture(ks_cli_main, 3, help_export);
    assert_string_equal(c.out, ks_usage_export);
    rc_is(c, KS_EXIT_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(at_least_once),
        cmocka_unit_test(transaction),
        cmocka_unit_test(consumer_timeout),
        cmocka_unit_test(crashes),
        cmocka_unit_test(lost_request_and_acks0),
        cmocka_unit_test(levels),
        cmocka_unit_test(same_bytes),
        cmocka_unit_test(exact_times),
        cmocka_unit_test(errors),
        cmocka_unit_test(usage),
    };
    return cmocka_run_group_tests(tests, make_runs, NULL);
}
