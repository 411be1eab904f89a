/*
 * test_consumer.c - consumers in whole runs: a read_uncommitted consumer
 * reads every record in offset order at the times the cost model gives,
 * max.poll.records splits polls, commit "sync" commits the positions,
 * crash.consumer with a restart re-reads what was not committed (commit
 * "none" against "sync"), forward.to makes another producer produce one
 * record per record consumed (spread by process.us, and moved to another
 * producer at a restart), two partitions are read round robin,
 * read_committed on non-transactional data reads what read_uncommitted
 * reads, the summary's consumers object, an idle poll loop that cannot
 * spin in zero time, and determinism (the same scenario twice gives the
 * same bytes).
 * And transactions that abort and commit: what each isolation level reads,
 * and read_aborted (for transactions that abort after they were read).
 *
 * Runs use one broker, a constant 1 ms link at 1000 Mbit/s and zero
 * producer costs (test_run.c's hello): a record sent at s is appended at
 * s + 1022034 ns. A consumer's fetch takes 1 ms to the leader and 1 ms
 * back, and a commit "sync" 2 ms.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/harness.h"

#include "models/world.h"
#include "sim/json_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS INT64_C(1000000)

/* ---- the harness (as in test_run.c) ---------------------------------- */




static ks_scenario *parse(const char *json, const ks_override *o, size_t n, ks_diag *d)
{
    ks_diag_init(d);
    ks_scenario *sc = ks_scenario_parse("t.json", json, o, n, false, 0, d);
    if (!sc)
        ks_diag_print(d, stderr);
    assert_non_null(sc);
    return sc;
}








/* ---- the consume records of one consumer ------------------------------ */

#define MAX_READS 256

typedef struct reads {
    size_t n;
    int64_t t[MAX_READS], partition[MAX_READS], offset[MAX_READS], record[MAX_READS];
} reads;

static void consumed_by(const run *r, const char *consumer, reads *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < r->nlines; i++) {
        const char *l = r->lines[i];
        if (!line_is(l, "consume") || !line_str_is(l, "consumer", consumer))
            continue;
        assert_true(out->n < MAX_READS);
        out->t[out->n] = line_int(l, "t");
        out->partition[out->n] = line_int(l, "partition");
        out->offset[out->n] = line_int(l, "offset");
        out->record[out->n] = line_int(l, "record");
        out->n++;
    }
}

/* How many times offset `off` of partition `part` was consumed. */
static size_t times_read(const reads *rd, int64_t part, int64_t off)
{
    size_t n = 0;
    for (size_t i = 0; i < rd->n; i++)
        n += rd->partition[i] == part && rd->offset[i] == off;
    return n;
}

/* ---- scenarios ---------------------------------------------------------- */

#define HEAD                                                                                   \
    "{\"name\": \"cons\", \"seed\": 42, \"kafka.version\": \"3.9\","                          \
    " \"brokers\": {\"count\": 1, \"cost\": {\"request.us\": 20, \"batch.us\": 0, \"byte.ns\": 1}}," \
    " \"network\": {\"latency.ms\": 1, \"bandwidth.mbps\": 1000},"

#define P1_COST                                                                                \
    "\"config\": {\"acks\": \"all\", \"enable.idempotence\": false},"                          \
    " \"cost\": {\"record.us\": 0, \"batch.us\": 0, \"request.us\": 0}"

/* p1 writes 10 records to events-0, one per ms from 0; c1 reads them. */
#define ONE_PART                                                                               \
    HEAD " \"topics\": [{\"name\": \"events\", \"partitions\": 1}],"                           \
         " \"producers\": [{\"id\": \"p1\", \"topic\": \"events\", " P1_COST ","               \
         " \"workload\": {\"records\": 10, \"rate.per.sec\": 1000, \"value.bytes\": 100}}],"  \
         " \"consumers\": [{\"id\": \"c1\", \"topic\": \"events\", \"poll.interval.ms\": 1,"   \
         " \"auto.offset.reset\": \"earliest\"}]}"

/* p1 sends 10 records at once at 0 (appended by about 1.1 ms); c1 starts
 * at 10 ms, when all are in the log; p2 and p3 (no workload of their own)
 * write to "out" what c1 forwards to them; k's one record at 100 ms keeps
 * the run going until then, so that faults (daemons) strike. */
#define BURST                                                                                  \
    HEAD " \"topics\": [{\"name\": \"events\", \"partitions\": 1}, {\"name\": \"out\"},"      \
         " {\"name\": \"keep\"}],"                                                              \
         " \"producers\": [{\"id\": \"k\", \"topic\": \"keep\", " P1_COST ","                   \
         " \"workload\": {\"records\": 1, \"start.ms\": 100}},"                                \
         " {\"id\": \"p1\", \"topic\": \"events\", " P1_COST ","                              \
         " \"workload\": {\"records\": 10, \"arrival\": \"burst\", \"burst.records\": 10,"     \
         " \"value.bytes\": 100}},"                                                            \
         " {\"id\": \"p2\", \"topic\": \"out\", " P1_COST ", \"workload\": {\"records\": 0}},"  \
         " {\"id\": \"p3\", \"topic\": \"out\", " P1_COST ", \"workload\": {\"records\": 0}}]," \
         " \"consumers\": [{\"id\": \"c1\", \"topic\": \"events\", \"start.ms\": 10,"          \
         " \"poll.interval.ms\": 1, \"auto.offset.reset\": \"earliest\"}]}"

/* ---- tests -------------------------------------------------------------- */

/* Every record once, in offset order, and the summary says so. */
static void test_reads_all_in_order(void **state)
{
    (void)state;
    run r = run_text(ONE_PART, NULL, 0, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    reads rd;
    consumed_by(&r, "c1", &rd);
    assert_int_equal(rd.n, 10);
    for (size_t k = 0; k < 10; k++) {
        assert_int_equal(rd.offset[k], (int64_t)k);
        assert_int_equal(rd.record[k], (int64_t)k);
        assert_int_equal(rd.partition[k], 0);
        assert_true(k == 0 || rd.t[k] >= rd.t[k - 1]);
    }
    assert_string_equal(sum_str(&r, "consumers.c1.isolation_level"), "read_uncommitted");
    assert_int_equal(sum_int(&r, "consumers.c1.records"), 10);
    assert_int_equal(sum_int(&r, "consumers.c1.positions.events-0"), 10);
    assert_int_equal(sum_int(&r, "consumers.c1.committed.events-0"), -1);
    assert_int_equal(sum_int(&r, "consumers.c1.commits"), 0);
    assert_int_equal(sum_int(&r, "consumers.c1.crashes"), 0);
    assert_int_equal(sum_int(&r, "consumers.c1.restarts"), 0);
    assert_int_equal(sum_int(&r, "consumers.c1.read_aborted"), 0);
    assert_true(sum_int(&r, "consumers.c1.polls") >= 2);
    run_free(&r);
}

/* The exact line, and the time: started at 10 ms, the consumer asks for
 * its group's coordinator, its committed offsets, its partition's start
 * (ListOffsets) and then its records: four round trips of 2 ms and a few
 * microseconds of handling and bytes each, so the records are back a
 * little after 18 ms. */
static void test_consume_record_fields(void **state)
{
    (void)state;
    run r = run_text(BURST, NULL, 0, KS_TL_RECORD);
    assert_int_equal(count_ev(&r, "consume"), 10);
    const char *line = find_line(&r, "consume", NULL, NULL, 0);
    const char *want = ",\"ev\":\"consume\",\"consumer\":\"c1\",\"topic\":\"events\","
                       "\"partition\":0,\"offset\":0,\"record\":0,\"producer\":\"p1\"}";
    assert_non_null(strstr(line, want));
    int64_t t0 = line_int(line, "t");
    assert_true(t0 > 18 * MS && t0 < 18 * MS + 200000);
    /* one poll got them all */
    reads rd;
    consumed_by(&r, "c1", &rd);
    for (size_t k = 0; k < rd.n; k++)
        assert_int_equal(rd.t[k], t0);
    /* below level record, no consume lines */
    run b = run_text(BURST, NULL, 0, KS_TL_BATCH);
    assert_int_equal(count_ev(&b, "consume"), 0);
    assert_int_equal(sum_int(&b, "consumers.c1.records"), 10);
    run_free(&r);
    run_free(&b);
}

/* max.poll.records 3: a fetch brings at most 3 records (ksim bounds a
 * fetch by max.poll.records where Kafka bounds it by bytes), so polls of
 * 3, 3, 3 and 1 records, in offset order, each a fetch's round trip after
 * the last (the next fetch leaves as poll() returns). */
static void test_max_poll_records(void **state)
{
    (void)state;
    ks_override o = {"consumers.c1.max.poll.records", "3"};
    run r = run_text(BURST, &o, 1, KS_TL_RECORD);
    reads rd;
    consumed_by(&r, "c1", &rd);
    assert_int_equal(rd.n, 10);
    for (size_t k = 0; k < 10; k++) {
        assert_int_equal(rd.offset[k], (int64_t)k);
        assert_int_equal(rd.t[k], rd.t[k - k % 3]);
        if (k % 3 == 0 && k > 0)
            assert_true(rd.t[k] >= rd.t[k - 3] + 2 * MS && rd.t[k] < rd.t[k - 3] + 3 * MS);
    }
    assert_int_equal(sum_int(&r, "consumers.c1.positions.events-0"), 10);
    run_free(&r);
}

/* commit "sync": every poll that moved the position commits it; at the
 * end the group has committed offset 10 (the next to read). */
static void test_commit_sync(void **state)
{
    (void)state;
    ks_override o = {"consumers.c1.commit", "sync"};
    run r = run_text(ONE_PART, &o, 1, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    assert_int_equal(sum_int(&r, "consumers.c1.committed.events-0"), 10);
    assert_int_equal(sum_int(&r, "consumers.c1.positions.events-0"), 10);
    assert_true(sum_int(&r, "consumers.c1.commits") >= 1);
    assert_int_equal(sum_int(&r, "consumers.c1.records"), 10);
    /* one poll with all of them: one commit, answered 2 ms later */
    ks_override o2[] = {{"consumers.c1.commit", "sync"}};
    run b = run_text(BURST, o2, 1, KS_TL_RECORD);
    assert_int_equal(sum_int(&b, "consumers.c1.commits"), 1);
    assert_int_equal(sum_int(&b, "consumers.c1.committed.events-0"), 10);
    run_free(&r);
    run_free(&b);
}

#define CRASH_AT(at, restart)                                                                  \
    "[{\"type\": \"crash.consumer\", \"consumer\": \"c1\", \"at.ms\": " at                    \
    ", \"restart.ms\": " restart "}]"

/* With process.us 1000 the application works on the ten records for
 * 10 ms after they are back (about 18 ms), and only then commits; the
 * group coordinator stores the commit when it arrives. A crash at 20 ms,
 * while it processes, loses the commit: the restart at 40 ms reads all
 * ten again. A crash at 33 ms comes after the commit was answered:
 * nothing is read twice. Without commits even the late crash re-reads
 * everything. */
static void test_crash_rereads_uncommitted(void **state)
{
    (void)state;
    struct {
        const char *commit, *faults;
        size_t copies;
        int64_t committed;
    } cases[] = {
        {"sync", CRASH_AT("20", "40"), 2, 10},
        {"sync", CRASH_AT("33", "40"), 1, 10},
        {"none", CRASH_AT("33", "40"), 2, -1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ks_override o[] = {{"consumers.c1.commit", cases[c].commit},
                           {"consumers.c1.process.us", "1000"},
                           {"faults", cases[c].faults}};
        run r = run_text(BURST, o, 3, KS_TL_RECORD);
        assert_string_equal(sum_str(&r, "verdict"), "complete");
        reads rd;
        consumed_by(&r, "c1", &rd);
        assert_int_equal(rd.n, 10 * cases[c].copies);
        for (int64_t off = 0; off < 10; off++)
            assert_int_equal(times_read(&rd, 0, off), cases[c].copies);
        /* the second reading comes after the restart, in offset order */
        for (size_t k = 10; k < rd.n; k++) {
            assert_true(rd.t[k] >= 40 * MS);
            assert_int_equal(rd.offset[k], (int64_t)(k - 10));
        }
        assert_int_equal(sum_int(&r, "consumers.c1.crashes"), 1);
        assert_int_equal(sum_int(&r, "consumers.c1.restarts"), 1);
        assert_int_equal(sum_int(&r, "consumers.c1.records"), (int64_t)(10 * cases[c].copies));
        assert_int_equal(sum_int(&r, "consumers.c1.committed.events-0"), cases[c].committed);
        assert_int_equal(sum_int(&r, "faults.0.hits"), 1);
        run_free(&r);
    }
}

/* A crash without a restart: the consumer reads nothing more, and the run
 * does not wait for it. */
static void test_crash_for_good(void **state)
{
    (void)state;
    ks_override o[] = {{"consumers.c1.start.ms", "0"},
                       {"faults", "[{\"type\": \"crash.consumer\", \"consumer\": \"c1\", "
                                  "\"at.ms\": 0.5}]"}};
    run r = run_text(BURST, o, 2, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    assert_int_equal(count_ev(&r, "consume"), 0);
    assert_int_equal(sum_int(&r, "consumers.c1.crashes"), 1);
    assert_int_equal(sum_int(&r, "consumers.c1.restarts"), 0);
    assert_int_equal(sum_int(&r, "consumers.c1.records"), 0);
    run_free(&r);
}

/* forward.to: p2 sends one record per record c1 consumed; with
 * process.us 100 the application hands them over 100 us apart, each when
 * it is done with it. */
static void test_forward(void **state)
{
    (void)state;
    ks_override o[] = {{"consumers.c1.forward.to", "p2"}, {"consumers.c1.process.us", "100"}};
    run r = run_text(BURST, o, 2, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    assert_int_equal(sum_int(&r, "consumers.c1.records"), 10);
    assert_int_equal(sum_int(&r, "producers.p2.produced"), 10);
    assert_int_equal(sum_int(&r, "producers.p2.acked"), 10);
    assert_int_equal(sum_int(&r, "producers.p3.produced"), 0);
    assert_int_equal(sum_int(&r, "partitions.out-0.log_end_offset"), 10);
    assert_int_equal(sum_int(&r, "records.produced"), 21);
    size_t k = 0;
    for (size_t i = 0; i < r.nlines; i++) {
        const char *l = r.lines[i];
        if (!line_is(l, "produce") || !line_str_is(l, "producer", "p2"))
            continue;
        int64_t back = line_int(find_line(&r, "consume", NULL, NULL, 0), "t");
        assert_int_equal(line_int(l, "t"), back + (int64_t)(k + 1) * 100000);
        k++;
    }
    assert_int_equal(k, 10);
    run_free(&r);
}

/* Without forward.to nothing is forwarded; after a crash whose restart
 * names another producer, the new instance forwards to that one. */
static void test_forward_after_restart(void **state)
{
    (void)state;
    ks_override o[] = {{"consumers.c1.forward.to", "p2"},
                       {"faults", "[{\"type\": \"crash.consumer\", \"consumer\": \"c1\", "
                                  "\"at.ms\": 25, \"restart.ms\": 30, \"forward.to\": \"p3\"}]"}};
    run r = run_text(BURST, o, 2, KS_TL_RECORD);
    /* no commits: the new instance reads and forwards all ten again */
    assert_int_equal(sum_int(&r, "producers.p2.produced"), 10);
    assert_int_equal(sum_int(&r, "producers.p3.produced"), 10);
    assert_int_equal(sum_int(&r, "partitions.out-0.log_end_offset"), 20);
    run_free(&r);
    run b = run_text(BURST, NULL, 0, KS_TL_RECORD);
    assert_int_equal(sum_int(&b, "producers.p2.produced"), 0);
    assert_int_equal(sum_int(&b, "records.produced"), 11);
    run_free(&b);
}

/* Two partitions: each poll starts one partition further, so with
 * max.poll.records 2 the polls alternate between them; each partition is
 * read in offset order and to its end. */
static void test_two_partitions_round_robin(void **state)
{
    (void)state;
    ks_override o[] = {{"topics.events.partitions", "2"},
                       {"producers.p1.partitioner", "round_robin"},
                       {"consumers.c1.max.poll.records", "2"}};
    run r = run_text(BURST, o, 3, KS_TL_RECORD);
    int64_t leo0 = sum_int(&r, "partitions.events-0.log_end_offset");
    int64_t leo1 = sum_int(&r, "partitions.events-1.log_end_offset");
    assert_int_equal(leo0 + leo1, 10);
    assert_true(leo0 >= 4 && leo1 >= 4);
    reads rd;
    consumed_by(&r, "c1", &rd);
    assert_int_equal(rd.n, 10);
    int64_t want_part[4] = {0, 0, 1, 1}, next[2] = {0, 0};
    for (size_t k = 0; k < rd.n; k++) {
        if (k < 4)
            assert_int_equal(rd.partition[k], want_part[k]);
        assert_int_equal(rd.offset[k], next[rd.partition[k]]++);
    }
    assert_int_equal(next[0], leo0);
    assert_int_equal(next[1], leo1);
    assert_int_equal(sum_int(&r, "consumers.c1.positions.events-0"), leo0);
    assert_int_equal(sum_int(&r, "consumers.c1.positions.events-1"), leo1);
    run_free(&r);
}

/* A consumer of chosen partitions reads only those. */
static void test_chosen_partitions(void **state)
{
    (void)state;
    ks_override o[] = {{"topics.events.partitions", "2"},
                       {"producers.p1.partitioner", "round_robin"},
                       {"consumers.c1.partitions", "[1]"}};
    run r = run_text(BURST, o, 3, KS_TL_RECORD);
    reads rd;
    consumed_by(&r, "c1", &rd);
    assert_int_equal((int64_t)rd.n, sum_int(&r, "partitions.events-1.log_end_offset"));
    for (size_t k = 0; k < rd.n; k++)
        assert_int_equal(rd.partition[k], 1);
    assert_int_equal(sum_int(&r, "consumers.c1.positions.events-1"), (int64_t)rd.n);
    run_free(&r);
}

/* Without transactions the LSO is the high watermark: read_committed
 * reads what read_uncommitted reads, at the same times. */
static void test_read_committed_plain_data(void **state)
{
    (void)state;
    const char *json =
        HEAD " \"topics\": [{\"name\": \"events\", \"partitions\": 1}],"
             " \"producers\": [{\"id\": \"p1\", \"topic\": \"events\", " P1_COST ","
             " \"workload\": {\"records\": 10, \"rate.per.sec\": 1000, \"value.bytes\": 100}}],"
             " \"consumers\": [{\"id\": \"u\", \"topic\": \"events\", \"poll.interval.ms\": 1,"
             " \"auto.offset.reset\": \"earliest\"},"
             " {\"id\": \"c\", \"topic\": \"events\", \"poll.interval.ms\": 1,"
             " \"auto.offset.reset\": \"earliest\", \"isolation.level\": \"read_committed\"}]}";
    run r = run_text(json, NULL, 0, KS_TL_RECORD);
    reads u, c;
    consumed_by(&r, "u", &u);
    consumed_by(&r, "c", &c);
    assert_int_equal(u.n, 10);
    assert_int_equal(c.n, 10);
    for (size_t k = 0; k < 10; k++) {
        assert_int_equal(u.offset[k], c.offset[k]);
        assert_int_equal(u.t[k], c.t[k]);
    }
    assert_string_equal(sum_str(&r, "consumers.c.isolation_level"), "read_committed");
    assert_int_equal(sum_int(&r, "consumers.c.positions.events-0"), 10);
    run_free(&r);
}

/* With no latency and no poll interval an idle poll loop would spin at
 * one instant: a poll that returned nothing in no time waits 1 ms. */
static void test_no_zero_time_spin(void **state)
{
    (void)state;
    ks_override o[] = {{"network.latency.ms", "0"},
                       {"consumers.c1.poll.interval.ms", "0"},
                       {"limits.max.events", "100000"}};
    run r = run_text(ONE_PART, o, 3, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    assert_true(sum_int(&r, "consumers.c1.polls") < 100);
    /* the last record is appended as the run ends: the fetch waiting at
     * the leader gets it at once */
    assert_int_equal(sum_int(&r, "consumers.c1.records"), 10);
    run_free(&r);
}

/* The same scenario twice gives the same bytes, with random latencies;
 * another seed gives another run. */
static void test_deterministic(void **state)
{
    (void)state;
    ks_override o[] = {{"network", "{\"latency\": {\"dist\": \"lognormal\", \"median.ms\": 0.5, "
                                   "\"sigma\": 0.8}}"},
                       {"consumers.c1.commit", "sync"},
                       {"consumers.c1.forward.to", "p2"},
                       {"consumers.c1.max.poll.records", "3"},
                       {"faults", CRASH_AT("13", "20")}};
    run a = run_text(BURST, o, 5, KS_TL_DEBUG);
    run b = run_text(BURST, o, 5, KS_TL_DEBUG);
    assert_int_equal(a.trace_len, b.trace_len);
    assert_memory_equal(a.trace, b.trace, a.trace_len);
    assert_string_equal(a.summary_text, b.summary_text);
    assert_true(count_ev(&a, "consume") >= 10);
    ks_override o2[6];
    memcpy(o2, o, sizeof o);
    o2[5] = (ks_override){"seed", "43"};
    run c = run_text(BURST, o2, 6, KS_TL_DEBUG);
    assert_true(c.trace_len != a.trace_len || memcmp(c.trace, a.trace, a.trace_len) != 0);
    run_free(&a);
    run_free(&b);
    run_free(&c);
}

/* ---- transactions read under each isolation level ------------------------ */

/* p1's transactions of 2 records each end abort, commit, abort, each 30 ms
 * after its last record (end.delay.ms), so that a read_uncommitted
 * consumer reads every record while its transaction is still open. The
 * log: 0-1 aborted (marker 2), 3-4 committed (marker 5), 6-7 aborted
 * (marker 8). read_uncommitted reads all 6 data records, 4 of them of
 * aborted transactions (the checker learns which when the markers come);
 * read_committed reads the 2 committed ones; both end past the last
 * marker, at 9, and the one that commits "sync" has committed 9. */
static void test_transactions_by_isolation(void **state)
{
    (void)state;
    const char *json =
        HEAD " \"topics\": [{\"name\": \"events\", \"partitions\": 1}],"
        " \"producers\": [{\"id\": \"p1\", \"topic\": \"events\","
        " \"config\": {\"transactional.id\": \"t\"},"
        " \"transactions\": {\"records\": 2, \"end\": [\"abort\", \"commit\", \"abort\"],"
        " \"end.delay.ms\": 30},"
        " \"workload\": {\"records\": 6, \"rate.per.sec\": 1000}}],"
        " \"consumers\": [{\"id\": \"u\", \"topic\": \"events\", \"poll.interval.ms\": 1,"
        " \"auto.offset.reset\": \"earliest\"},"
        " {\"id\": \"c\", \"topic\": \"events\", \"poll.interval.ms\": 1,"
        " \"auto.offset.reset\": \"earliest\","
        " \"isolation.level\": \"read_committed\", \"commit\": \"sync\"}]}";
    run r = run_text(json, NULL, 0, KS_TL_RECORD);
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 9);
    assert_int_equal(sum_int(&r, "consumers.u.records"), 6);
    assert_int_equal(sum_int(&r, "consumers.u.read_aborted"), 4);
    assert_int_equal(sum_int(&r, "consumers.u.positions.events-0"), 9);
    assert_int_equal(sum_int(&r, "consumers.c.records"), 2);
    assert_int_equal(sum_int(&r, "consumers.c.read_aborted"), 0);
    assert_int_equal(sum_int(&r, "consumers.c.positions.events-0"), 9);
    assert_int_equal(sum_int(&r, "consumers.c.committed.events-0"), 9);
    reads rc;
    consumed_by(&r, "c", &rc);
    assert_int_equal(rc.n, 2);
    assert_int_equal(rc.offset[0], 3);
    assert_int_equal(rc.offset[1], 4);
    run_free(&r);
}

/* commit "transaction": the offsets go into the forward producer's
 * transaction after a poll that returned records, never after an empty
 * one (an empty poll once reused the previous poll's count and sent the
 * same offsets again, with the application marked as not processing). */
static void test_txn_commit_only_after_records(void **state)
{
    (void)state;
    const char *json =
        HEAD " \"topics\": [{\"name\": \"events\", \"partitions\": 1}, {\"name\": \"out\"},"
        " {\"name\": \"keep\"}],"
        " \"producers\": [{\"id\": \"k\", \"topic\": \"keep\", " P1_COST ","
        " \"workload\": {\"records\": 1, \"start.ms\": 100}},"
        " {\"id\": \"p1\", \"topic\": \"events\", " P1_COST ","
        " \"workload\": {\"records\": 4, \"arrival\": \"burst\", \"burst.records\": 4}},"
        " {\"id\": \"app\", \"topic\": \"out\", \"config\": {\"transactional.id\": \"t\"},"
        " \"transactions\": {\"records\": 4}, \"workload\": {\"records\": 0}}],"
        " \"consumers\": [{\"id\": \"c1\", \"topic\": \"events\", \"start.ms\": 10,"
        " \"poll.interval.ms\": 5, \"fetch.max.wait.ms\": 5, \"auto.offset.reset\": \"earliest\","
        " \"commit\": \"transaction\", \"forward.to\": \"app\"}]}";
    run r = run_text(json, NULL, 0, KS_TL_RECORD);
    assert_int_equal(sum_int(&r, "consumers.c1.records"), 4);
    assert_true(sum_int(&r, "consumers.c1.polls") > 3); /* empty polls follow */
    assert_int_equal(sum_int(&r, "consumers.c1.commits"), 1);
    assert_int_equal(sum_int(&r, "consumers.c1.committed.events-0"), 4);
    assert_int_equal(sum_int(&r, "producers.app.transactions_committed"), 1);
    run_free(&r);
}

/* A transaction committed by the forward producer sets the committed
 * offsets to those it carried. */
static void test_txn_committed(void **state)
{
    (void)state;
    ks_diag d;
    ks_scenario *sc = parse(BURST, NULL, 0, &d);
    ks_world *w = ks_world_create(sc, NULL, &d);
    assert_non_null(w);
    ks_consumer *c = &w->consumers[0];
    assert_int_equal(c->committed[0], -1);
    int64_t offs[1] = {7};
    c->txn_waiting = true; /* the application waits in commitTransaction */
    ks_consumer_txn_committed(c, &w->ctx, offs);
    assert_int_equal(c->committed[0], 7);
    assert_int_equal(c->commits, 1);
    ks_world_free(w);
    ks_scenario_free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_all_in_order),
        cmocka_unit_test(test_consume_record_fields),
        cmocka_unit_test(test_max_poll_records),
        cmocka_unit_test(test_commit_sync),
        cmocka_unit_test(test_crash_rereads_uncommitted),
        cmocka_unit_test(test_crash_for_good),
        cmocka_unit_test(test_forward),
        cmocka_unit_test(test_forward_after_restart),
        cmocka_unit_test(test_two_partitions_round_robin),
        cmocka_unit_test(test_chosen_partitions),
        cmocka_unit_test(test_read_committed_plain_data),
        cmocka_unit_test(test_no_zero_time_spin),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_transactions_by_isolation),
        cmocka_unit_test(test_txn_committed),
        cmocka_unit_test(test_txn_commit_only_after_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
