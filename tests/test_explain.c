/*
 * test_explain.c - `ksim explain`: the seed scenarios drawn as the notes
 * draw them. Each test runs a seed scenario through the library (as
 * test_run.c does) with its trace written to a file at level record (and
 * its summary beside it), runs ks_cmd_explain on that trace into a file,
 * and checks what the reader of the notes must find: the lost ACK (✕),
 * the retry and the duplicate in the log of at-least-once; the producer
 * state (PID 1000, sequence 0) and the original offset of the idempotent
 * producer; the seven transaction steps; the Mermaid diagram; the
 * filters (--record, --partition, --from/--to, --max-steps); and the
 * errors (a malformed line with its number, another trace format, a
 * summary-level trace, bad options); a trace written by another JSON
 * writer (keys sorted, spaces, escapes) explained byte for byte as the
 * original; fields of the wrong type, NUL bytes and duplicate keys
 * refused with the line and the field; ks_explain_stream. The whole output for the seed
 * scenarios is compared byte for byte with tests/golden/explain-*.txt
 * (KSIM_UPDATE_GOLDEN=1 rewrites them, after a change meant to change them).
 *
 * The seed scenarios' records are named by their keys: the tests set the
 * key of the single-record scenarios to "A", as the notes name it.
 */
#define _XOPEN_SOURCE 700

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/harness.h"

#include "models/world.h"
#include "tools/commands.h"
#include "tools/trace_line.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A fresh directory per test, under the test's working directory. */
typedef struct fixture {
    char dir[64];
    char trace[128];
    char out[128];
} fixture;

static const ks_override key_a[] = {{"producers.p1.workload.key", "A"}};

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    strcpy(fx->dir, "explain-XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    snprintf(fx->trace, sizeof fx->trace, "%s/trace.jsonl", fx->dir);
    snprintf(fx->out, sizeof fx->out, "%s/explained.txt", fx->dir);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    static const char *const files[] = {"trace.jsonl", "summary.json", "explained.txt",
                                        "other.jsonl", "not-a-scenario.json"};
    char path[160];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", fx->dir, files[i]);
        remove(path);
    }
    rmdir(fx->dir);
    free(fx);
    return 0;
}

/* Runs scenarios/NAME.json (with overrides) and writes its trace at
 * `level` to fx->trace, and its summary beside it when `summary`. */
static void run_scenario(const fixture *fx, const char *name, const ks_override *ovr, size_t n,
                         ks_trace_level level, bool summary)
{
    const char *src = getenv("KSIM_SOURCE_DIR");
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/%s.json", src ? src : "..", name);
    ks_diag *d = malloc(sizeof *d);
    assert_non_null(d);
    ks_diag_init(d);
    ks_scenario *sc = ks_scenario_load(path, ovr, n, false, 0, d);
    if (!sc)
        ks_diag_print(d, stderr);
    assert_non_null(sc);
    FILE *f = fopen(fx->trace, "wb");
    assert_non_null(f);
    ks_trace *tr = malloc(sizeof *tr);
    assert_non_null(tr);
    ks_trace_init(tr, f, level);
    ks_world *w = ks_world_create(sc, tr, d);
    assert_non_null(w);
    ks_world_run(w);
    assert_true(ks_trace_flush(tr));
    fclose(f);
    if (summary) {
        json_t *s = ks_world_summary(w);
        snprintf(path, sizeof path, "%s/summary.json", fx->dir);
        assert_int_equal(json_dump_file(s, path, JSON_INDENT(2)), 0);
        json_decref(s);
    }
    ks_world_free(w);
    ks_scenario_free(sc);
    free(tr);
    free(d);
}

typedef struct result {
    int rc;
    char *out; /* what -o FILE received, NULL if nothing */
    char *err; /* standard error */
} result;

/* Runs `ksim explain TRACE -o OUT ARGS...` (args NULL-terminated),
 * capturing standard error. */
static result explain(const fixture *fx, const char *trace, ...)
{
    const char *argv[32] = {"ksim", "explain", trace, "-o", fx->out};
    int argc = 5;
    va_list ap;
    va_start(ap, trace);
    for (const char *a; argc < 31 && (a = va_arg(ap, const char *)) != NULL;)
        argv[argc++] = a;
    va_end(ap);
    remove(fx->out);
    FILE *err = tmpfile();
    assert_non_null(err);
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(err), 2);
    result r;
    r.rc = ks_cmd_explain(argc, (char **)argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fseek(err, 0, SEEK_END);
    long n = ftell(err);
    rewind(err);
    r.err = calloc((size_t)n + 1, 1);
    assert_non_null(r.err);
    assert_int_equal(fread(r.err, 1, (size_t)n, err), (size_t)n);
    fclose(err);
    r.out = read_whole(fx->out);
    return r;
}

static void result_free(result *r)
{
    free(r->out);
    free(r->err);
}

/* Fails unless each of the texts occurs in s, in this order. */
static void assert_in_order(const char *s, const char *const *texts, size_t n)
{
    const char *at = s;
    for (size_t i = 0; i < n; i++) {
        const char *hit = strstr(at, texts[i]);
        if (!hit) {
            print_error("missing (or out of order): \"%s\"\n--- output ---\n%s\n", texts[i], s);
            fail();
        }
        at = hit + strlen(texts[i]);
    }
}

static void assert_has(const char *s, const char *text)
{
    if (!strstr(s, text)) {
        print_error("missing: \"%s\"\n--- output ---\n%s\n", text, s);
        fail();
    }
}

static void assert_lacks(const char *s, const char *text)
{
    if (strstr(s, text)) {
        print_error("unexpected: \"%s\"\n--- output ---\n%s\n", text, s);
        fail();
    }
}

/* ---- the seeds ----------------------------------------------------------- */

static void test_at_least_once(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-at-least-once", key_a, 1, KS_TL_RECORD, true);
    result r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    static const char *const steps[] = {
        "[STEP 1] t=0.000 ms  p1 sends record A to broker 0 in request 1",
        "── send(request 1: record A) ─",
        "[STEP 2]", "stores record A in P0 at offset 0",
        "│ offset 0 : record A  ← new │",
        "[STEP 3]", "✕ ACK lost (fault 0)", "◀─ ─ ─ ─",
        "[STEP 4]", "request.timeout.ms (1000 ms)",
        "p1 cannot tell a lost ACK from a lost record: broker 0 did store record A at offset 0",
        "attempt 2",
        "[STEP 5]", "── retry(request 2: record A, attempt 2) ─",
        "[STEP 6]", "again, at offset 1: a duplicate of offset 0",
        "│ offset 0 : record A                          │",
        "│ offset 1 : record A  ← duplicate of offset 0 │",
        "[STEP 7]", "◀", "── ACK(offset 1) ──",
        "[RESULT] the run ended complete",
        "P0 holds 1 duplicate: record A at offset 1 (first at offset 0)",
        "p1 was told: record A at offset 1",
        "delivery checker (summary.json beside the trace): ANOMALIES: 0 lost, 1 duplicated",
        "its response was dropped (fault 0)"};
    assert_in_order(r.out, steps, sizeof steps / sizeof *steps);
    assert_lacks(r.out, "[STEP 8]");
    result_free(&r);
}

/* The whole output for a seed scenario, byte for byte, against
 * tests/golden/explain-NAME[-mermaid].txt. */
static void golden(const fixture *fx, const char *name, const ks_override *ovr, size_t n,
                   bool mermaid)
{
    run_scenario(fx, name, ovr, n, KS_TL_RECORD, true);
    result r = mermaid ? explain(fx, fx->trace, "--format", "mermaid", NULL)
                       : explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    const char *src = getenv("KSIM_SOURCE_DIR");
    char path[512];
    snprintf(path, sizeof path, "%s/tests/golden/explain-%s%s.txt", src ? src : "..", name,
             mermaid ? "-mermaid" : "");
    if (getenv("KSIM_UPDATE_GOLDEN")) {
        write_text(path, r.out);
        print_message("rewrote %s\n", path);
    }
    char *text = read_whole(path);
    if (!text) {
        print_error("%s is missing (KSIM_UPDATE_GOLDEN=1 writes it)\n", path);
        fail();
    }
    if (strcmp(text, r.out) != 0) {
        print_error("differs from %s:\n--- output ---\n%s\n", path, r.out);
        fail();
    }
    free(text);
    result_free(&r);
}

/* The seeds' diagrams, whole: text for each seed scenario, and one in
 * Mermaid. */
static void test_seed_golden(void **state)
{
    fixture *fx = *state;
    golden(fx, "seed-at-least-once", key_a, 1, false);
    golden(fx, "seed-at-least-once", key_a, 1, true);
    golden(fx, "seed-at-most-once", NULL, 0, false);
    golden(fx, "seed-idempotent", key_a, 1, false);
    golden(fx, "seed-transaction-commit", NULL, 0, false);
    golden(fx, "seed-zombie-fencing", NULL, 0, false);
}

static void test_idempotent(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-idempotent", key_a, 1, KS_TL_RECORD, true);
    result r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    static const char *const steps[] = {
        "── InitProducerId ─", "PID=1000, epoch 0",
        "stores record A in P0 at offset 0 and remembers PID 1000, sequence 0",
        "│  PID   │ Partition │ Last Sequence │",
        "│  1000  │    P0     │       0       │  ← new",
        "✕ ACK lost (fault 0)",
        "same PID 1000 and sequence 0",
        "── retry(request 2: record A, attempt 2) ─",
        ("broker 0 already has PID 1000, sequence 0 in P0: it does not store record A again "
         "and answers with the original offset 0"),
        "│  1000  │    P0     │       0       │  ← sequence 0 already processed: a duplicate",
        "── ACK(offset 0) ──",
        "[RESULT]", "│ offset 0 : record A │", "no record is stored twice",
        "delivery checker (summary.json beside the trace): ok: 0 lost, 0 duplicated"};
    assert_in_order(r.out, steps, sizeof steps / sizeof *steps);
    assert_lacks(r.out, "offset 1 :");
    assert_lacks(r.out, "duplicate of offset");
    result_free(&r);
}

static void test_transaction_commit(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-transaction-commit", NULL, 0, KS_TL_RECORD, false);
    result r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    static const char *const steps[] = {
        "── FindCoordinator(tx-1) ─",                                 /* 1 */
        "Coordinator (broker 0)", "── InitProducerId(tx-1) ─",        /* 2 */
        "maps tx-1 to PID 1000, epoch 0", "│ state : Empty",
        "◀", "PID=1000, epoch 0 ──",
        "beginTransaction()",                                           /* 3 */
        "── AddPartitionsToTxn(P0) ─",                                  /* 4 */
        "│ state : Ongoing  (was Empty)", "timer started",
        "── send(request 1: record A) ─",                              /* 5 */
        "│ offset 0 : record A  ← new │",
        "── EndTxn(COMMIT) ─",                                          /* 6 */
        "│ state : PrepareCommit  (was Ongoing)",
        "transaction 1 of p1 is committed", /* answered at the decision */
        "── COMMIT marker ─", "▶ │ offset 1",
        "│ offset 1 : COMMIT marker (pid 1000)  ← new │",
        "c1's poll() returns record A (P0 offset 0)", /* the marker is below the LSO */
        "│ state : CompleteCommit  (was PrepareCommit)",                 /* 7 */
        "[RESULT]", "1 record, 1 marker, log end offset 2",
        "tx-1: CompleteCommit (PID 1000, epoch 0)"};
    assert_in_order(r.out, steps, sizeof steps / sizeof *steps);
    result_free(&r);
}

static void test_at_most_once(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-at-most-once", NULL, 0, KS_TL_RECORD, false);
    result r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    static const char *const steps[] = {
        "── send(request 1: record B) ─", "── send(request 2: record C) ─",
        "✕ record B not stored: KAFKA_STORAGE_ERROR", "│ (empty) │",
        "│ offset 0 : record C  ← new │", "KAFKA_STORAGE_ERROR ──",
        "record B fails with KafkaStorageException: it is not sent again (retries=0)",
        "[RESULT]", "│ offset 0 : record C │",
        "p1 was told: record B failed (KafkaStorageException), record C at offset 0"};
    assert_in_order(r.out, steps, sizeof steps / sizeof *steps);
    assert_lacks(r.out, "offset 1 :");
    result_free(&r);
}

static void test_mermaid(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-at-least-once", key_a, 1, KS_TL_RECORD, false);
    result r = explain(fx, fx->trace, "--format", "mermaid", NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    assert_true(strncmp(r.out, "sequenceDiagram\n", 16) == 0);
    static const char *const lines[] = {
        "    participant prod0 as Producer p1\n", "    participant brk0 as Broker 0\n",
        "    prod0->>brk0: [1] t=0.000 ms send(request 1: record A)\n",
        "    Note over brk0: [2] t=1.047 ms<br/>P0 log<br/>offset 0 : record A  ← new\n",
        "    brk0--xprod0: [3] t=1.047 ms ACK(offset 0) lost (fault 0)\n",
        "    Note over prod0: [4] t=1000.015 ms<br/>",
        "    prod0->>brk0: [5] t=1111.015 ms retry(request 2: record A, attempt 2)\n",
        "<br/>offset 1 : record A  ← duplicate of offset 0\n",
        "    brk0-->>prod0: [7] t=1113.063 ms ACK(offset 1)\n", "Note over brk0: RESULT: "};
    assert_in_order(r.out, lines, sizeof lines / sizeof *lines);
    assert_lacks(r.out, "[STEP 1]\n");
    result_free(&r);
}

/* A diagram Mermaid would refuse (past its default maxTextSize) is still
 * written, with a warning that says how to show less. */
static void test_mermaid_too_big(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "lost-ack-storm", NULL, 0, KS_TL_RECORD, false);
    result r = explain(fx, fx->trace, "--format", "mermaid", "--max-steps", "0", NULL);
    assert_int_equal(r.rc, 0);
    assert_has(r.err, "past Mermaid's default maxTextSize (50000)");
    assert_has(r.err, "--max-steps N, or a window");
    result_free(&r);
    r = explain(fx, fx->trace, "--format", "mermaid", "--max-steps", "20", NULL);
    assert_int_equal(r.rc, 0);
    assert_lacks(r.err, "maxTextSize");
    result_free(&r);
}

/* A consumer's lost answer: the fault's step, then its request timeout
 * closing the connection 30 s later, then the request asked again. */
static void test_consumer_timeout(void **state)
{
    fixture *fx = *state;
    static const ks_override drop[] = {
        {"faults", "[{\"type\": \"drop.response\", \"api\": \"OffsetFetch\", "
                   "\"consumer\": \"billing\"}]"}};
    run_scenario(fx, "two-consumer-groups", drop, 1, KS_TL_BATCH, false);
    result r = explain(fx, fx->trace, "--brief", NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    static const char *const steps[] = {
        "t=3.051 ms  the answer to billing's OffsetFetch (request 1) is lost on the way back "
        "(fault 0: drop.response)",
        "t=30002.021 ms  billing hears nothing from the group coordinator (broker 0) for "
        "request.timeout.ms (30000 ms): it closes the connection, and the 1 request in flight "
        "fails",
        "t=30002.021 ms  billing asks the group coordinator (broker 0) for group billing's "
        "committed offsets of 1 partition (OffsetFetch request 2)"};
    assert_in_order(r.out, steps, sizeof steps / sizeof *steps);
    assert_lacks(r.out, "Metadata"); /* the refresh after the timeout succeeds: not drawn */
    result_free(&r);
}

/* A broker's own request is drawn when a fault strikes it, and its resend
 * after the silence: a WriteTxnMarkers request lost on the way is sent
 * again at the coordinator's request timeout (30 s), and the marker is
 * written then. */
static void test_broker_own_request(void **state)
{
    fixture *fx = *state;
    static const ks_override drop[] = {
        {"faults", "[{\"type\": \"drop.request\", \"api\": \"WriteTxnMarkers\"}]"}};
    run_scenario(fx, "seed-transaction-commit", drop, 1, KS_TL_RECORD, false);
    result r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    static const char *const steps[] = {
        "t=14.216 ms  the coordinator (broker 0) sends WriteTxnMarkers request 1 to broker 0; it "
        "is lost on the way (fault 0: drop.request)",
        "✕ WriteTxnMarkers lost (fault 0)",
        "commitTransaction() returns",
        "t=30014.216 ms  the coordinator (broker 0) hears nothing from broker 0 for its "
        "request.timeout.ms (30000 ms): it closes the connection, and the 1 request in flight "
        "fails",
        "t=30014.216 ms  the coordinator (broker 0) has heard nothing for its request timeout: it "
        "sends WriteTxnMarkers again, as request 2 to broker 0",
        "── WriteTxnMarkers(request 2) ──",
        "t=30015.246 ms  the coordinator has broker 0 write a COMMIT marker"};
    assert_in_order(r.out, steps, sizeof steps / sizeof *steps);
    result_free(&r);
}

static void test_mermaid_transaction(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-transaction-commit", NULL, 0, KS_TL_RECORD, false);
    result r = explain(fx, fx->trace, "--format=mermaid", NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    static const char *const lines[] = {
        "sequenceDiagram\n", "participant prod0 as Producer p1\n",
        "participant brk0 as Broker 0\n", "participant coord0 as Coordinator (broker 0)\n",
        "participant cons0 as Consumer c1\n", "prod0->>coord0: [5] t=2.031 ms InitProducerId(tx-1)\n",
        "Note over coord0: [12] t=7.107 ms<br/>transaction log<br/>tx-1 ↔ PID 1000, epoch 0<br/>state : Ongoing  (was Empty)",
        "coord0->>brk0: [20] t=15.246 ms COMMIT marker offset 1\n",
        "Note over brk0: P0 log<br/>", /* a box after the step's message: no number */
        "brk0-->>cons0: [21] t=16.248 ms records(offset 0: record A)\n"};
    assert_in_order(r.out, lines, sizeof lines / sizeof *lines);
    result_free(&r);
}

/* ---- filters ----------------------------------------------------------------- */

static void test_record_filter(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-at-most-once", NULL, 0, KS_TL_RECORD, false);
    result r = explain(fx, fx->trace, "--record", "1", NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    static const char *const steps[] = {
        "only the steps about record 1", "[STEP 1]", "send(request 2: record C)",
        "[STEP 2]", "stores record C in P0 at offset 0", "[STEP 3]", "ACK(offset 0)",
        "[RESULT]", "record C (id 1): stored in P0 at offset 0; p1 was told: offset 0"};
    assert_in_order(r.out, steps, sizeof steps / sizeof *steps);
    assert_lacks(r.out, "[STEP 4]");
    assert_lacks(r.out, "record B");
    result_free(&r);
    /* the names explain prints select the same record: "record C", its
     * key alone, "record 1" */
    static const char *const names[] = {"record C", "C", "record 1"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        r = explain(fx, fx->trace, "--record", names[i], NULL);
        assert_int_equal(r.rc, 0);
        assert_in_order(r.out, steps + 1, sizeof steps / sizeof *steps - 1);
        assert_lacks(r.out, "[STEP 4]");
        result_free(&r);
    }
    r = explain(fx, fx->trace, "--record", "record Z", NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "--record: no record has the key 'Z'");
    result_free(&r);
}

/* A scenario where a trace belongs: run at record level, then explained,
 * as its trace would be (with the run's own summary); a file that is
 * meant as a scenario but is not a valid one gets the scenario's errors. */
static void test_scenario_input(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-at-least-once", NULL, 0, KS_TL_RECORD, true);
    result from_trace = explain(fx, fx->trace, NULL);
    const char *src = getenv("KSIM_SOURCE_DIR");
    char path[600];
    snprintf(path, sizeof path, "%s/scenarios/seed-at-least-once.json", src ? src : "..");
    result r = explain(fx, path, NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    assert_has(r.out, "[STEP 6]");
    assert_has(r.out, "delivery checker (the run's summary): ANOMALIES");
    const char *steps = strstr(r.out, "[STEP 1]"), *want = strstr(from_trace.out, "[STEP 1]");
    assert_non_null(steps);
    assert_non_null(want);
    size_t n = (size_t)(strstr(want, "delivery checker") - want);
    assert_memory_equal(steps, want, n); /* the same steps and logs */
    result_free(&r);
    result_free(&from_trace);
    char bad[160];
    snprintf(bad, sizeof bad, "%s/not-a-scenario.json", fx->dir);
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fputs("{\"producers\": [{\"id\": \"p1\", \"confg\": {}}]}\n", f);
    fclose(f);
    r = explain(fx, bad, NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "$.producers[0].confg: unknown key");
    result_free(&r);
}

static void test_partition_filter(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-round-robin", NULL, 0, KS_TL_RECORD, false);
    result r = explain(fx, fx->trace, "--partition", "events-1", NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    static const char *const steps[] = {
        "only the steps about events-1", "send(record 1) → accumulator, P1",
        "send(record 4) → accumulator, P1", "send(request 1: 3 batches)",
        "Broker 0 (Partition P1)", "│ offset 0 : record 1  ← new │", "[RESULT]",
        "Broker 0 (Partition P1): 2 records"};
    assert_in_order(r.out, steps, sizeof steps / sizeof *steps);
    assert_lacks(r.out, "send(record 0)");
    assert_lacks(r.out, "Partition P0");
    assert_lacks(r.out, "Partition P2");
    result_free(&r);
    r = explain(fx, fx->trace, "--partition", "nosuch-0", NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "--partition: no partition 'nosuch-0'");
    assert_null(r.out);
    result_free(&r);
}

/* Consume-transform-produce: the committed offsets as steps, the crash
 * kept by --partition (context for every partition), and --brief. */
static void test_pipeline_brief(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "consume-transform-produce-at-least-once", NULL, 0, KS_TL_RECORD, true);
    result r = explain(fx, fx->trace, "--from", "80", "--to", "100", NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    static const char *const commit[] = {
        "t=84.298 ms  stream's committed offset for in-0 becomes 7 (group ctp): commitSync() "
        "is answered",
        "── committed offset of in-0: 7 (commitSync) ───▶ │", /* broker 0 to stream */
        "after a restart, stream reads in-0 from offset 7",
        "t=97.000 ms  fault 0 (crash.consumer): stream's process dies; a new one starts at "
        "t=150.000 ms"};
    assert_in_order(r.out, commit, sizeof commit / sizeof *commit);
    result_free(&r);

    r = explain(fx, fx->trace, "--partition", "out-0", "--from", "84", "--to", "160", "--brief",
                NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    static const char *const brief[] = {
        "only the steps about out-0",
        "\n\n[STEP 1] t=84.315 ms  app1 receives the ACK for request 7",
        "app1 sends record 17 (from 13) to broker 0 in request 8",
        "fault 0 (crash.consumer): stream's process dies",
        "fault 1 (crash.producer): app1's process dies",
        "broker 0 stores record 17 (from 13) in out-0 at offset 7",
        "downstream's poll() returns record 17 (from 13)",
        "app2 sends record 24 (from 13) to broker 0 in request 1",
        "broker 0 stores record 24 (from 13) in out-0 at offset 8",
        "\n\n[RESULT]",
        "processed twice",
        ("a consumer read record 17 and record 24, both written for record 13: it was processed "
         "twice")};
    assert_in_order(r.out, brief, sizeof brief / sizeof *brief);
    assert_lacks(r.out, "in-0 at offset"); /* another partition */
    assert_lacks(r.out, "\n\n[STEP 2]"); /* one line per step */
    char *result_at = strstr(r.out, "[RESULT]");
    assert_non_null(result_at);
    *result_at = '\0';
    assert_lacks(r.out, "┌"); /* no boxes before [RESULT] */
    result_free(&r);
}

/* --from/--to: the steps in the window, and [RESULT] the state at --to
 * (the retry's append at 1112.062043 ms, its response, ACK and the end
 * line at 1113.062555 ms): every line at --to is read, none after it. */
static void test_window(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-at-least-once", key_a, 1, KS_TL_RECORD, true);
    result r = explain(fx, fx->trace, "--from", "1000", "--to", "1112", NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    static const char *const steps[] = {
        "only the steps from t=1000.000 ms to t=1112.000 ms", "[STEP 1] t=1000.015 ms",
        "[STEP 2] t=1111.015 ms", "retry(request 2: record A, attempt 2)",
        "[RESULT] the state at t=1112.000 ms, the end of the window: the trace goes on past it",
        "Broker 0 (Partition P0): 1 record, log end offset 1", "│ offset 0 : record A │",
        "no record is stored twice",
        "delivery checker, over the whole run (summary.json beside the trace): ANOMALIES: 0 "
        "lost, 1 duplicated"};
    assert_in_order(r.out, steps, sizeof steps / sizeof *steps);
    assert_lacks(r.out, "[STEP 3]");
    assert_lacks(r.out, "more step");
    assert_lacks(r.out, "p1 was told");
    assert_lacks(r.out, "the run ended");
    result_free(&r);
    /* 1 ns before the end: the duplicate is stored, p1 not yet told */
    r = explain(fx, fx->trace, "--from", "1112", "--to", "1113.062554", "--brief", NULL);
    assert_int_equal(r.rc, 0);
    static const char *const before_end[] = {
        "[STEP 1] t=1112.062 ms", "[RESULT] the state at t=1113.063 ms, the end of the window",
        "offset 1 : record A  ← duplicate of offset 0"};
    assert_in_order(r.out, before_end, sizeof before_end / sizeof *before_end);
    assert_lacks(r.out, "p1 was told");
    assert_lacks(r.out, "[STEP 2]");
    result_free(&r);
    /* at the end line's time: every line of that moment, the end line too */
    r = explain(fx, fx->trace, "--from", "1112", "--to", "1113.062555", "--brief", NULL);
    assert_int_equal(r.rc, 0);
    static const char *const at_end[] = {
        "[STEP 2] t=1113.063 ms", "[RESULT] the run ended complete at t=1113.063 ms",
        "p1 was told: record A at offset 1 (1 acknowledged, 0 failed)",
        "delivery checker (summary.json beside the trace): ANOMALIES"};
    assert_in_order(r.out, at_end, sizeof at_end / sizeof *at_end);
    assert_lacks(r.out, "end of the window");
    result_free(&r);
    /* a record not seen by --to may come later */
    r = explain(fx, fx->trace, "--to", "1", "--record", "7", NULL);
    assert_int_equal(r.rc, 0);
    assert_has(r.out, "record 7 (id 7): not in the trace up to t=1.000 ms");
    result_free(&r);
    r = explain(fx, fx->trace, "--to", "1", "--record", "Z", NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "--record: no record up to t=1.000 ms has the key 'Z'");
    result_free(&r);
    r = explain(fx, fx->trace, "--record", "Z", NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "--record: no record has the key 'Z'");
    result_free(&r);
}

static void test_max_steps(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-at-least-once", key_a, 1, KS_TL_RECORD, false);
    result r = explain(fx, fx->trace, "--max-steps", "2", NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    static const char *const steps[] = {"[STEP 1]", "[STEP 2]",
                                        "… 5 more steps (use --from/--to)", "[RESULT]",
                                        "offset 1 : record A"};
    assert_in_order(r.out, steps, sizeof steps / sizeof *steps);
    assert_lacks(r.out, "[STEP 3]");
    result_free(&r);
}

/* A batch-level trace: batches, not records; --record needs records. */
static void test_batch_level(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-at-least-once", key_a, 1, KS_TL_BATCH, false);
    result r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    static const char *const steps[] = {
        "trace level batch", "note: a batch-level trace has no produce, ack or consume lines",
        "send(request 1: batch 0 of p1 (1 record))", "│ offset 0 : batch 0 of p1 (1 record)",
        "✕ ACK lost (fault 0)",
        "│ offset 1 : batch 0 of p1 (1 record)  ← duplicate of offset 0 │"};
    assert_in_order(r.out, steps, sizeof steps / sizeof *steps);
    result_free(&r);
    r = explain(fx, fx->trace, "--record", "0", NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "--record needs a record-level trace");
    result_free(&r);
}

/* A batch-level trace has no consume lines: what a consumer read comes
 * from the summary beside it, or is said to be unknown; never "read 0". */
static void test_batch_level_consumers(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "delayed-produce-verified-late", NULL, 0, KS_TL_BATCH, true);
    result r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    assert_has(r.out, "c1 (read_committed) read 2 records (summary.json; which ones: a "
                      "record-level trace)");
    assert_lacks(r.out, "read 0 records");
    result_free(&r);
    /* with --to, the summary's count is the whole run's, not the state at --to */
    r = explain(fx, fx->trace, "--to", "10", NULL);
    assert_int_equal(r.rc, 0);
    assert_has(r.out, "c1 (read_committed) read 2 records over the whole run (summary.json; "
                      "which ones: a record-level trace)");
    assert_has(r.out, "delivery checker, over the whole run (summary.json beside the trace)");
    result_free(&r);
    char path[600];
    snprintf(path, sizeof path, "%s/summary.json", fx->dir);
    assert_int_equal(remove(path), 0);
    r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 0);
    assert_has(r.out, "c1 (read_committed): what it read is in a record-level trace only");
    result_free(&r);
}

/* ---- other JSON formatting, wrongly typed fields ---------------------------------- */

/* Every line of the trace at `from` written to `to` as jansson writes it
 * with sorted keys (a space after ':' and ','), "p1" spelled with \u
 * escapes, a blank before it and "\r\n" after it. */
static void reserialise(const char *from, const char *to)
{
    char *text = read_whole(from);
    assert_non_null(text);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        json_error_t jerr;
        json_t *j = json_loads(line, 0, &jerr);
        assert_non_null(j);
        char *out = json_dumps(j, JSON_SORT_KEYS);
        assert_non_null(out);
        fputs(" ", f);
        for (const char *p = out; *p;) {
            if (strncmp(p, "\"p1\"", 4) == 0) {
                fputs("\"\\u0070\\u0031\"", f);
                p += 4;
            } else {
                fputc(*p++, f);
            }
        }
        fputs("\r\n", f);
        free(out);
        json_decref(j);
    }
    fclose(f);
    free(text);
}

/* A trace passed through another JSON writer is explained byte for byte
 * as the original. */
static void test_other_formatting(void **state)
{
    fixture *fx = *state;
    static const char *const names[] = {"seed-at-least-once", "seed-transaction-commit",
                                        "consume-transform-produce-at-least-once"};
    char other[160];
    snprintf(other, sizeof other, "%s/other.jsonl", fx->dir);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        run_scenario(fx, names[i], i == 0 ? key_a : NULL, i == 0, KS_TL_RECORD, true);
        reserialise(fx->trace, other);
        char *resorted = read_whole(other);
        assert_non_null(strstr(resorted, "\"ev\": \"header\""));
        assert_true(i == 2 || strstr(resorted, "\\u0070\\u0031")); /* its producer is p1 */
        free(resorted);
        for (int mermaid = 0; mermaid < 2; mermaid++) {
            const char *f = mermaid ? "mermaid" : "text";
            result a = explain(fx, fx->trace, "--format", f, "--max-steps", "0", NULL);
            result b = explain(fx, other, "--format", f, "--max-steps", "0", NULL);
            assert_int_equal(a.rc, 0);
            assert_int_equal(b.rc, 0);
            assert_non_null(a.out);
            assert_non_null(b.out);
            assert_non_null(strstr(a.out, "delivery checker")); /* the summary was read */
            assert_string_equal(a.out, b.out);
            result_free(&a);
            result_free(&b);
        }
    }
}

/* In the trace text, the first line holding `line_part`: its first
 * `from` becomes `to`. Returns that line's number. */
static size_t edit_first(char **text, const char *line_part, const char *from, const char *to)
{
    char *hit = strstr(*text, line_part);
    assert_non_null(hit);
    char *start = hit;
    while (start > *text && start[-1] != '\n')
        start--;
    char *at = strstr(start, from);
    assert_non_null(at);
    assert_true(at < start + strcspn(start, "\n"));
    size_t line = 1;
    for (const char *p = *text; p < start; p++)
        line += *p == '\n';
    size_t head = (size_t)(at - *text), tail = strlen(at + strlen(from));
    char *out = malloc(head + strlen(to) + tail + 1);
    assert_non_null(out);
    memcpy(out, *text, head);
    strcpy(out + head, to);
    strcat(out, at + strlen(from));
    free(*text);
    *text = out;
    return line;
}

/* A field of the wrong type is an error naming the line and the field;
 * nothing is written. */
static void test_wrong_types(void **state)
{
    fixture *fx = *state;
    static const struct {
        const char *line, *from, *to, *message;
    } cases[] = {
        {"\"ev\":\"append\"", "\"offset\":0", "\"offset\":1.5",
         "field \"offset\": expected an integer, got 1.5"},
        {"\"ev\":\"ack\"", "\"offset\":1", "\"offset\":\"1\"",
         "field \"offset\": expected an integer, got \"1\""},
        {"\"ev\":\"drain\"", "\"producer\":\"p1\"", "\"producer\":7",
         "field \"producer\": expected a string, got 7"},
        {"\"ev\":\"produce\"", "\"key\":\"A\"", "\"key\":[\"A\"]",
         "field \"key\": expected a string or null, got [\"A\"]"},
        {"\"ev\":\"header\"", "\"retries\":2147483647", "\"retries\":\"many\"",
         "field \"derived.producers[0].config.retries\": expected an integer, got \"many\""},
        {"\"ev\":\"header\"", "\"format\":1", "\"format\":1.0",
         "field \"format\": expected an integer, got 1.0"},
        {"\"ev\":\"fault\"", "\"fault\":0", "\"fault\":false",
         "field \"fault\": expected an integer, got false"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        run_scenario(fx, "seed-at-least-once", key_a, 1, KS_TL_RECORD, false);
        char *trace = read_whole(fx->trace);
        assert_non_null(trace);
        size_t line = edit_first(&trace, cases[i].line, cases[i].from, cases[i].to);
        write_text(fx->trace, trace);
        free(trace);
        result r = explain(fx, fx->trace, NULL);
        char want[320];
        snprintf(want, sizeof want, "ksim explain: %s:%zu: %s\n", fx->trace, line,
                 cases[i].message);
        assert_int_equal(r.rc, 2);
        assert_string_equal(r.err, want);
        assert_null(r.out); /* -o FILE: whole, or not at all */
        result_free(&r);
    }
    /* a wrongly typed summary field, by its JSON path */
    run_scenario(fx, "seed-at-least-once", key_a, 1, KS_TL_RECORD, true);
    char path[160];
    snprintf(path, sizeof path, "%s/summary.json", fx->dir);
    char *summary = read_whole(path);
    assert_non_null(summary);
    edit_first(&summary, "\"lost\"", "\"lost\": 0", "\"lost\": \"none\"");
    write_text(path, summary);
    free(summary);
    result r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "summary.json: field \"delivery.lost\": expected an integer, got \"none\"");
    assert_null(r.out);
    result_free(&r);
}

/* A NUL byte in a line is refused with the line's number, never read as
 * a shorter line; so is a duplicate key. */
static void test_nul_and_duplicates(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-at-least-once", key_a, 1, KS_TL_RECORD, false);
    char *trace = read_whole(fx->trace);
    assert_non_null(trace);
    size_t line = edit_first(&trace, "\"ev\":\"ack\"", "\"error\":\"NONE\"}",
                             "\"error\":\"NONE\"}@@");
    char *at = strstr(trace, "@@");
    size_t len = strlen(trace);
    FILE *f = fopen(fx->trace, "wb");
    assert_non_null(f);
    at[0] = '\0'; /* the line ends '}' NUL '\n' */
    at[1] = '\n';
    assert_int_equal(fwrite(trace, 1, len, f), len);
    fclose(f);
    result r = explain(fx, fx->trace, NULL);
    char want[256];
    snprintf(want, sizeof want, "%s:%zu: a NUL byte at column", fx->trace, line);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, want);
    assert_null(r.out);
    result_free(&r);
    free(trace);
    run_scenario(fx, "seed-at-least-once", key_a, 1, KS_TL_RECORD, false);
    trace = read_whole(fx->trace);
    line = edit_first(&trace, "\"ev\":\"send\"", "\"broker\":0", "\"broker\":0,\"broker\":1");
    write_text(fx->trace, trace);
    free(trace);
    r = explain(fx, fx->trace, NULL);
    snprintf(want, sizeof want, "%s:%zu: a duplicate key \"broker\"", fx->trace, line);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, want);
    result_free(&r);
}

/* ks_explain_stream: the same explanation, from any FILE. */
static void test_stream(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-idempotent", key_a, 1, KS_TL_RECORD, false);
    result r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 0);
    char *text = read_whole(fx->trace);
    FILE *in = fmemopen(text, strlen(text), "rb");
    FILE *out = tmpfile();
    assert_non_null(in);
    assert_non_null(out);
    char err[256] = "";
    assert_int_equal(ks_explain_stream(in, "mem.jsonl", out, err, sizeof err), 0);
    long n = ftell(out);
    rewind(out);
    char *got = calloc((size_t)n + 1, 1);
    assert_int_equal(fread(got, 1, (size_t)n, out), (size_t)n);
    assert_string_equal(got, r.out);
    fclose(in);
    fclose(out);
    static const char bad[] = "{\"t\":0,\"ev\":\"header\",\"format\":\"1\"}\n";
    in = fmemopen((void *)bad, sizeof bad - 1, "rb");
    out = tmpfile();
    assert_int_equal(ks_explain_stream(in, "mem.jsonl", out, err, sizeof err), 2);
    assert_string_equal(err, "mem.jsonl:1: field \"format\": expected an integer, got \"1\"");
    fclose(in);
    fclose(out);
    free(got);
    free(text);
    result_free(&r);
}

/* ---- errors and usage --------------------------------------------------------- */

static void test_malformed_line(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-at-least-once", key_a, 1, KS_TL_RECORD, false);
    char *trace = read_whole(fx->trace);
    assert_non_null(trace);
    char *cut = strchr(strchr(strchr(trace, '\n') + 1, '\n') + 1, '\n') + 1; /* after line 3 */
    strcpy(cut, "{\"t\":5,\"ev\":\"append\",\"broker\":\n");
    write_text(fx->trace, trace);
    free(trace);
    result r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "trace.jsonl:4: not JSON: expected a value at column 31");
    assert_null(r.out); /* -o FILE: whole, or not at all */
    result_free(&r);
    write_text(fx->trace, "{\"t\":0,\"ev\":\"header\",\"format\":1,\"level\":\"record\"}\n[1,2]\n");
    r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "trace.jsonl:2: not a JSON object");
    result_free(&r);
}

static void test_other_traces(void **state)
{
    fixture *fx = *state;
    write_text(fx->trace, "{\"t\":0,\"ev\":\"header\",\"format\":2,\"level\":\"record\"}\n");
    result r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "trace format 2: this ksim reads trace format 1");
    result_free(&r);
    write_text(fx->trace, "{\"t\":0,\"ev\":\"produce\"}\n");
    r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "not a ksim trace");
    result_free(&r);
    write_text(fx->trace, "");
    r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "empty");
    result_free(&r);
    run_scenario(fx, "seed-at-least-once", NULL, 0, KS_TL_SUMMARY, false);
    r = explain(fx, fx->trace, NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "a summary-level trace holds no steps");
    result_free(&r);
    char missing[160];
    snprintf(missing, sizeof missing, "%s/other.jsonl", fx->dir);
    r = explain(fx, missing, NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "other.jsonl: cannot open");
    result_free(&r);
}

static void test_usage(void **state)
{
    fixture *fx = *state;
    assert_non_null(strstr(ks_usage_explain, "usage: ksim explain TRACE"));
    assert_non_null(strstr(ks_usage_explain, "--max-steps N"));
    static const char *const bad[][2] = {{"--format", "svg"},    {"--from", "-1"},
                                         {"--to", "soon"},       {"--record", "record "},
                                         {"--max-steps", "many"}, {"--bogus", NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        result r = explain(fx, fx->trace, bad[i][0], bad[i][1], NULL);
        assert_int_equal(r.rc, 2);
        assert_has(r.err, "Try 'ksim explain --help'");
        result_free(&r);
    }
    const char *argv[] = {"ksim", "explain"};
    FILE *err = tmpfile();
    int saved = dup(2);
    dup2(fileno(err), 2);
    int rc = ks_cmd_explain(2, (char **)argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(err);
    assert_int_equal(rc, 2);
    run_scenario(fx, "seed-at-least-once", key_a, 1, KS_TL_RECORD, false);
    result r = explain(fx, fx->trace, "--from", "5", "--to", "1", NULL);
    assert_int_equal(r.rc, 2);
    assert_has(r.err, "--from is after --to");
    result_free(&r);
}

/* The output depends only on the trace: twice the same bytes. */
static void test_deterministic(void **state)
{
    fixture *fx = *state;
    run_scenario(fx, "seed-zombie-fencing", NULL, 0, KS_TL_RECORD, false);
    result a = explain(fx, fx->trace, NULL);
    result b = explain(fx, fx->trace, NULL);
    assert_int_equal(a.rc, 0);
    assert_non_null(a.out);
    assert_non_null(b.out);
    assert_string_equal(a.out, b.out);
    static const char *const steps[] = {"state : PrepareEpochFence  (was Ongoing)",
                                        "offset 1 : ABORT marker (pid 0, epoch 1)",
                                        "p1 is fenced (PRODUCER_FENCED)"};
    assert_in_order(a.out, steps, sizeof steps / sizeof *steps);
    result_free(&a);
    result_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_at_least_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_seed_golden, setup, teardown),
        cmocka_unit_test_setup_teardown(test_idempotent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_transaction_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_at_most_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mermaid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mermaid_transaction, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mermaid_too_big, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scenario_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partition_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pipeline_brief, setup, teardown),
        cmocka_unit_test_setup_teardown(test_window, setup, teardown),
        cmocka_unit_test_setup_teardown(test_max_steps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_level, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_level_consumers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_formatting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nul_and_duplicates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_traces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_broker_own_request, setup, teardown),
        cmocka_unit_test_setup_teardown(test_consumer_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_usage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deterministic, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
