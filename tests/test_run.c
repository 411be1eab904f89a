/*
 * test_run.c - whole runs in one process: exact outcomes of the hello
 * scenario (offsets, latencies from the cost model), acks=0, in-flight
 * limits and muting, broker queueing and delayed responses, buffer memory
 * exhaustion, uniform sticky switching, admin operations, workload
 * distributions, metrics buckets, limits and verdicts, invariants of a
 * busy run (every record ends once, offsets contiguous), and determinism:
 * the same scenario twice gives byte-identical traces; changing one
 * component's randomness leaves the others' draws alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/harness.h"

#include "models/world.h"
#include "sim/json_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>










#define HELLO                                                                                  \
    "{\"name\": \"hello\", \"seed\": 42, \"kafka.version\": \"3.9\","                         \
    " \"brokers\": {\"count\": 1, \"cost\": {\"request.us\": 20, \"batch.us\": 0, \"byte.ns\": 1}},"           \
    " \"network\": {\"latency.ms\": 1, \"bandwidth.mbps\": 1000},"                             \
    " \"topics\": [{\"name\": \"events\", \"partitions\": 1}],"                                \
    " \"producers\": [{\"id\": \"p1\", \"topic\": \"events\", \"config\": {\"acks\": \"all\", \"enable.idempotence\": false},"  \
    " \"cost\": {\"record.us\": 0, \"batch.us\": 0, \"request.us\": 0},"                \
    " \"workload\": {\"records\": 10, \"rate.per.sec\": 1000, \"value.bytes\": 100}}]}"

/* hello's numbers follow from the cost model alone:
 *   request 226 B: 40 B ProduceRequest framing + "producer-1" (10) +
 *     "events" (6) + batch 170 (61 header + 109 record);
 *   wire 226 B at 1000 Mbit/s = 1808 ns; one-way latency 1 ms;
 *   broker 20 us + 226 ns; response 64 B = 512 ns on the wire + 1 ms.
 *   send() to ack = 2 ms + 1808 + 20226 + 512 = 2 022 546 ns. */
static void test_hello_exact(void **state)
{
    (void)state;
    run r = run_text(HELLO, NULL, 0, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    assert_int_equal(sum_int(&r, "records.produced"), 10);
    assert_int_equal(sum_int(&r, "records.acked"), 10);
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 10);
    assert_int_equal(sum_int(&r, "latency_ns.min"), 2022546);
    assert_int_equal(sum_int(&r, "latency_ns.max"), 2022546);
    assert_int_equal(sum_int(&r, "network.request_bytes"), 2260);
    /* per record: produce, sender (new batch), arrive, append, responded
     * (response written), response, sender (after the response) */
    assert_int_equal(sum_int(&r, "events"), 70);
    assert_int_equal(count_ev(&r, "header"), 1);
    assert_int_equal(count_ev(&r, "produce"), 10);
    assert_int_equal(count_ev(&r, "send"), 10);
    assert_int_equal(count_ev(&r, "drain"), 10);
    assert_int_equal(count_ev(&r, "arrive"), 10);
    assert_int_equal(count_ev(&r, "append"), 10);
    assert_int_equal(count_ev(&r, "response"), 10);
    assert_int_equal(count_ev(&r, "ack"), 10);
    assert_int_equal(count_ev(&r, "end"), 1);
    for (size_t k = 0; k < 10; k++) {
        assert_int_equal(nth_field(&r, "append", k, "offset"), (int64_t)k);
        assert_int_equal(nth_field(&r, "ack", k, "offset"), (int64_t)k);
        assert_int_equal(nth_field(&r, "ack", k, "record"), (int64_t)k);
        assert_int_equal(nth_field(&r, "send", k, "bytes"), 226);
        assert_int_equal(nth_field(&r, "produce", k, "t"), (int64_t)k * 1000000);
    }
    /* the trace starts with the header and ends with the end record */
    const char *head = "{\"t\":0,\"ev\":\"header\",\"format\":1,";
    assert_memory_equal(r.trace, head, strlen(head));
    assert_non_null(strstr(r.trace, "{\"t\":11022546,\"ev\":\"end\",\"verdict\":\"complete\","));
    run_free(&r);
}

static void test_same_scenario_same_bytes(void **state)
{
    (void)state;
    const char *json =
        "{\"seed\": 5, \"network\": {\"latency\": {\"dist\": \"lognormal\", \"median.ms\": 0.5, "
        "\"sigma\": 0.8}}, \"producers\": [{\"workload\": {\"records\": 2000, \"arrival\": "
        "\"poisson\", \"rate.per.sec\": 50000}}, {\"workload\": {\"records\": 2000, \"arrival\": "
        "\"poisson\", \"rate.per.sec\": 50000}}], \"brokers\": {\"config\": "
        "{\"num.io.threads\": 1}}}";
    run a = run_text(json, NULL, 0, KS_TL_DEBUG);
    run b = run_text(json, NULL, 0, KS_TL_DEBUG);
    assert_int_equal(a.trace_len, b.trace_len);
    assert_memory_equal(a.trace, b.trace, a.trace_len);
    assert_string_equal(a.summary_text, b.summary_text);
    assert_true(count_ev(&a, "event") > 4000);
    /* another seed: another run */
    ks_override o = {"seed", "6"};
    run c = run_text(json, &o, 1, KS_TL_DEBUG);
    assert_true(c.trace_len != a.trace_len || memcmp(c.trace, a.trace, a.trace_len) != 0);
    run_free(&a);
    run_free(&b);
    run_free(&c);
}

/* Common random numbers: the workload's draws do not depend on the
 * network's. Changing the latency distribution leaves every send() time
 * as it was. */
static void test_streams_independent(void **state)
{
    (void)state;
    const char *json = "{\"seed\": 3, \"producers\": [{\"workload\": {\"records\": 500, "
                       "\"arrival\": \"poisson\", \"rate.per.sec\": 10000}}]}";
    ks_override o = {"network.latency", "{\"dist\": \"exponential\", \"mean.ms\": 2}"};
    run a = run_text(json, NULL, 0, KS_TL_RECORD);
    run b = run_text(json, &o, 1, KS_TL_RECORD);
    assert_true(sum_int(&a, "latency_ns.max") != sum_int(&b, "latency_ns.max"));
    for (size_t k = 0; k < 500; k++)
        assert_int_equal(nth_field(&a, "produce", k, "t"), nth_field(&b, "produce", k, "t"));
    run_free(&a);
    run_free(&b);
}

/* Long producer ids that share a prefix still get streams of their own. */
static void test_long_ids_distinct_streams(void **state)
{
    (void)state;
    char json[1024], a[101], b[101];
    memset(a, 'a', 99);
    memcpy(b, a, 99);
    a[99] = '1';
    b[99] = '2';
    a[100] = b[100] = '\0';
    snprintf(json, sizeof json,
             "{\"seed\": 3, \"producers\": [{\"id\": \"%s\", \"workload\": {\"arrival\": "
             "\"poisson\"}}, {\"id\": \"%s\", \"workload\": {\"arrival\": \"poisson\"}}]}",
             a, b);
    run r = run_text(json, NULL, 0, KS_TL_RECORD);
    /* the producers' send() times differ: different workload streams */
    assert_true(nth_field(&r, "produce", 1, "t") != nth_field(&r, "produce", 2, "t") ||
                nth_field(&r, "produce", 3, "t") != nth_field(&r, "produce", 4, "t"));
    char name[160];
    snprintf(name, sizeof name, "\"name\":\"producer.%s.workload\"", a);
    assert_non_null(strstr(r.trace, name));
    snprintf(name, sizeof name, "\"name\":\"producer.%s.workload\"", b);
    assert_non_null(strstr(r.trace, name));
    run_free(&r);
}

/* Drawn keys and value sizes, and bursts: Zipf makes the first rank the
 * most frequent, uniform sizes stay in range, a burst sends its records
 * at one instant; the same seed draws the same. */
static void test_workload_distributions(void **state)
{
    (void)state;
    ks_override o[] = {{"producers.p1.workload.records", "1000"},
                       {"producers.p1.workload.key", "{\"zipf\": {\"keys\": 10, \"s\": 1.2}}"},
                       {"producers.p1.workload.value.bytes", "{\"uniform\": {\"min\": 10, \"max\": 20}}"},
                       {"producers.p1.workload.arrival", "burst"},
                       {"producers.p1.workload.burst.records", "50"},
                       {"producers.p1.workload.burst.interval.ms", "1"}};
    run r = run_text(HELLO, o, 6, KS_TL_RECORD);
    run r2 = run_text(HELLO, o, 6, KS_TL_RECORD);
    assert_int_equal(r.trace_len, r2.trace_len);
    assert_memory_equal(r.trace, r2.trace, r.trace_len);
    size_t k0 = 0, k9 = 0;
    for (size_t i = 0; i < r.nlines; i++) {
        const char *q = strstr(r.lines[i], "\"key\":\"key-");
        if (!q)
            continue;
        k0 += q[11] == '0' && q[12] == '"';
        k9 += q[11] == '9' && q[12] == '"';
    }
    assert_true(k0 > 300 && k9 < 100); /* rank 1 ~ 41 %, rank 10 ~ 2.6 % */
    for (size_t i = 0; i < 1000; i += 97) {
        int64_t v = nth_field(&r, "produce", i, "value_bytes");
        assert_true(v >= 10 && v <= 20);
        assert_int_equal(nth_field(&r, "produce", i, "t"), (int64_t)(i / 50) * 1000000);
    }
    run_free(&r);
    run_free(&r2);
}

/* acks=0: complete once the request is written (226 bytes at 1000
 * Mbit/s: 1808 ns), offset -1, no response travels back. */
static void test_acks_zero(void **state)
{
    (void)state;
    ks_override o = {"producers.p1.config.acks", "0"};
    run r = run_text(HELLO, &o, 1, KS_TL_RECORD);
    assert_int_equal(sum_int(&r, "records.acked"), 10);
    assert_int_equal(sum_int(&r, "producers.p1.responses"), 0);
    assert_int_equal(sum_int(&r, "network.responses"), 0);
    assert_int_equal(sum_int(&r, "latency_ns.min"), 1808);
    assert_int_equal(sum_int(&r, "latency_ns.max"), 1808);
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 10);
    for (size_t k = 0; k < 10; k++)
        assert_int_equal(nth_field(&r, "ack", k, "offset"), -1);
    run_free(&r);
}

/* max.in.flight.requests.per.connection=1: the partition is muted while
 * its request is in flight, so the records sent meanwhile gather in one
 * batch, which leaves the moment the response is back. */
static void test_in_flight_limit(void **state)
{
    (void)state;
    ks_override o[] = {{"producers.p1.config.max.in.flight.requests.per.connection", "1"},
                       {"producers.p1.workload.rate.per.sec", "100000"}};
    run r = run_text(HELLO, o, 2, KS_TL_RECORD);
    assert_int_equal(sum_int(&r, "records.acked"), 10);
    assert_int_equal(count_ev(&r, "send"), 2);
    assert_int_equal(nth_field(&r, "send", 0, "records"), 1);
    assert_int_equal(nth_field(&r, "send", 1, "records"), 9);
    assert_int_equal(nth_field(&r, "send", 1, "t"), nth_field(&r, "response", 0, "t"));
    assert_int_equal(sum_int(&r, "producers.p1.batch_records.max"), 9);
    assert_int_equal(sum_int(&r, "latency_ns.min"), 2022546);
    /* with five in flight, five records go alone; the other five gather
     * in one batch behind them */
    ks_override o5 = {"producers.p1.workload.rate.per.sec", "100000"};
    run r5 = run_text(HELLO, &o5, 1, KS_TL_RECORD);
    assert_int_equal(count_ev(&r5, "send"), 6);
    assert_int_equal(nth_field(&r5, "send", 4, "records"), 1);
    assert_int_equal(nth_field(&r5, "send", 5, "records"), 5);
    run_free(&r);
    run_free(&r5);
}

/* One handler thread, two producers arriving together: the second
 * request waits for the first to be handled. */
static void test_broker_queueing(void **state)
{
    (void)state;
    const char *json =
        "{\"kafka.version\": \"3.9\", \"brokers\": {\"config\": {\"num.io.threads\": 1}, "
        "\"cost\": {\"request.us\": 100, \"batch.us\": 0, "
        "\"byte.ns\": 0}}, \"network\": {\"latency.ms\": 1, \"bandwidth.mbps\": 0},"
        " \"producers\": [{\"id\": \"a\", \"config\": {\"enable.idempotence\": false}, \"workload\": {\"records\": 1}, \"cost\": {\"request.us\": 0, "
        "\"batch.us\": 0}}, {\"id\": \"b\", \"config\": {\"enable.idempotence\": false}, \"workload\": {\"records\": 1}, \"cost\": {\"request.us\": "
        "0, \"batch.us\": 0}}]}";
    run r = run_text(json, NULL, 0, KS_TL_RECORD);
    assert_int_equal(nth_field(&r, "append", 0, "t"), 1000000 + 100000);
    assert_int_equal(nth_field(&r, "append", 1, "t"), 1000000 + 200000);
    assert_int_equal(sum_int(&r, "producers.a.latency_ns.max"), 2100000);
    assert_int_equal(sum_int(&r, "producers.b.latency_ns.max"), 2200000);
    assert_int_equal(sum_int(&r, "brokers.0.queue_max"), 1); /* b waited while a was served */
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 2);
    /* with two threads both are handled at once */
    ks_override o = {"brokers.config.num.io.threads", "2"};
    run r2 = run_text(json, &o, 1, KS_TL_RECORD);
    assert_int_equal(nth_field(&r2, "append", 1, "t"), 1100000);
    run_free(&r);
    run_free(&r2);
}

/* A connection's next request waits until the response to the previous
 * one has been written (Kafka mutes the channel until then), even with
 * the handler thread free; and utilisation never exceeds 100 %. */
static void test_delayed_response_holds_connection(void **state)
{
    (void)state;
    ks_override o[] = {{"brokers.cost.response.delay.ms", "10"},
                       {"producers.p1.workload.rate.per.sec", "100000"},
                       {"producers.p1.workload.records", "3"}};
    run r = run_text(HELLO, o, 3, KS_TL_RECORD);
    int64_t a0 = nth_field(&r, "append", 0, "t"), a1 = nth_field(&r, "append", 1, "t");
    assert_true(a1 - a0 >= 10000000); /* second request handled after the first response */
    assert_true(sum_int(&r, "brokers.0.utilization_ppm") <= 1000000);
    run_free(&r);
    ks_override o2[] = {{"brokers.cost.request.us", "1000000"}, {"limits.max.time.ms", "100"}};
    run r2 = run_text(HELLO, o2, 2, KS_TL_BATCH);
    assert_string_equal(sum_str(&r2, "verdict"), "max-time");
    assert_int_equal(sum_int(&r2, "brokers.0.busy_ns"), 100000000 - 1001808);
    assert_true(sum_int(&r2, "brokers.0.utilization_ppm") <= 1000000);
    run_free(&r2);
}

/* The throughput series adds up to the run's totals, one bucket per
 * metrics.bucket.ms, and the ticks do not stretch the run. */
static void test_metrics_series(void **state)
{
    (void)state;
    ks_override o[] = {{"metrics.bucket.ms", "2"}};
    run r = run_text(HELLO, o, 1, KS_TL_SUMMARY);
    assert_int_equal(sum_int(&r, "time_ns"), 11022546);
    assert_int_equal(sum_int(&r, "throughput.series.buckets"), 6); /* 5 whole + 1 partial */
    ks_jref ref;
    const char *rest;
    assert_true(ks_json_lookup(r.summary, "throughput.series.acked", &ref, &rest));
    int64_t total = 0;
    size_t i;
    json_t *v;
    json_array_foreach(ref.value, i, v) total += json_integer_value(v);
    assert_int_equal(total, 10);
    assert_int_equal(count_ev(&r, "metrics"), 6);
    run_free(&r);
}

/* buffer.memory used up: send() blocks up to max.block.ms, then fails
 * with BufferExhaustedException; a batch larger than all of buffer.memory
 * fails at once (IllegalArgumentException). */
static void test_buffer_exhausted(void **state)
{
    (void)state;
    /* 10 batches of 1000 bytes fit in 2500? two do; the link is slow, so
     * memory frees slowly: some sends wait, some give up after 1 ms */
    ks_override o[] = {{"producers.p1.config.batch.size", "1000"},
                       {"producers.p1.config.buffer.memory", "2500"},
                       {"producers.p1.config.max.block.ms", "1"},
                       {"producers.p1.config.max.in.flight.requests.per.connection", "1"},
                       {"producers.p1.workload.rate.per.sec", "100000"},
                       {"producers.p1.workload.records", "50"},
                       {"producers.p1.workload.value.bytes", "900"}};
    run r = run_text(HELLO, o, 7, KS_TL_RECORD);
    int64_t failed = sum_int(&r, "records.failed"), acked = sum_int(&r, "records.acked");
    assert_int_equal(failed + acked, 50);
    assert_true(failed > 0 && acked > 0);
    assert_true(sum_int(&r, "producers.p1.blocked") >= failed);
    assert_true(sum_int(&r, "producers.p1.buffer_used_max") <= 2500);
    assert_non_null(strstr(r.trace, "\"error\":\"BufferExhaustedException\""));
    run_free(&r);
    ks_override o2[] = {{"producers.p1.config.batch.size", "100000"},
                        {"producers.p1.config.buffer.memory", "50000"}};
    run r2 = run_text(HELLO, o2, 2, KS_TL_RECORD);
    assert_int_equal(sum_int(&r2, "records.failed"), 10);
    assert_int_equal(sum_int(&r2, "producers.p1.blocked"), 0);
    assert_non_null(strstr(r2.trace, "\"error\":\"IllegalArgumentException\""));
    run_free(&r2);
}

/* Uniform sticky moves on when a record closes the partition's batch
 * after batch.size bytes (RecordAccumulator re-checks partitionChanged):
 * 10 kB records, one per 16 kB batch, go in pairs - the second passes
 * batch.size bytes produced, the third closes its batch and moves. */
static void test_uniform_switch_at_batch_close(void **state)
{
    (void)state;
    ks_override o[] = {{"kafka.version", "3.9"},
                       {"topics", "[{\"name\": \"events\", \"partitions\": 50}]"},
                       {"producers.p1.workload.records", "30"},
                       {"producers.p1.workload.value.bytes", "10000"},
                       {"producers.p1.config.linger.ms", "1000"},
                       {"producers.p1.config.partitioner.adaptive.partitioning.enable", "false"}};
    run r = run_text(HELLO, o, 6, KS_TL_RECORD);
    ks_jref ref;
    const char *rest;
    assert_true(ks_json_lookup(r.summary, "producers.p1.first_partitions", &ref, &rest));
    for (size_t i = 0; i + 1 < 30; i += 2) /* pairs: two records, then a switch */
        assert_int_equal(json_integer_value(json_array_get(ref.value, i)),
                         json_integer_value(json_array_get(ref.value, i + 1)));
    assert_int_equal(sum_int(&r, "producers.p1.batch_records.max"), 1);
    assert_true(json_integer_value(json_array_get(ref.value, 1)) !=
                json_integer_value(json_array_get(ref.value, 2)));
    run_free(&r);
}

/* Partitions added later: the other topics' leaders stay as they are,
 * and metadata refreshes (daemons) do not stretch the run. */
static void test_admin_leaves_the_rest_alone(void **state)
{
    (void)state;
    const char *json =
        "{\"kafka.version\": \"3.9\", \"brokers\": {\"count\": 3},"
        " \"topics\": [{\"name\": \"a\", \"partitions\": 3}, {\"name\": \"b\", \"partitions\": 1}],"
        " \"producers\": [{\"topic\": \"b\", \"workload\": {\"records\": 5}}],"
        " \"admin\": [{\"at.ms\": 1000000, \"create.partitions\": {\"topic\": \"a\", \"total\": 4}}]}";
    run r = run_text(json, NULL, 0, KS_TL_RECORD);
    assert_int_equal(sum_int(&r, "partitions.b-0.leader"), 0); /* 3 % 3 */
    assert_true(sum_int(&r, "time_ns") < 1000000000); /* not stretched to the admin op */
    run_free(&r);
}

/* Invariants of a busy run with every feature on: every record ends
 * exactly once, offsets per partition are contiguous. */
static void test_run_invariants(void **state)
{
    (void)state;
    const char *json =
        "{\"seed\": 9, \"kafka.version\": \"3.9\", \"brokers\": {\"count\": 3, \"overrides\": "
        "[{\"id\": 1, \"cost\": {\"response.delay.ms\": 3}}]},"
        " \"network\": {\"latency\": {\"dist\": \"exponential\", \"mean.ms\": 0.3}},"
        " \"topics\": [{\"name\": \"t\", \"partitions\": 7}],"
        " \"producers\": [{\"id\": \"a\", \"topic\": \"t\", \"config\": {\"linger.ms\": 2, "
        "\"batch.size\": 3000, \"buffer.memory\": 20000, \"max.block.ms\": 5, "
        "\"compression.type\": \"zstd\"}, \"workload\": {\"records\": 3000, \"arrival\": "
        "\"poisson\", \"rate.per.sec\": 50000, \"key\": {\"zipf\": {\"keys\": 20}}, "
        "\"value.bytes\": {\"uniform\": {\"min\": 10, \"max\": 900}}}},"
        " {\"id\": \"b\", \"topic\": \"t\", \"config\": {\"acks\": \"0\", "
        "\"max.in.flight.requests.per.connection\": 1}, \"workload\": {\"records\": 2000, "
        "\"arrival\": \"burst\", \"burst.records\": 100, \"burst.interval.ms\": 5}}],"
        " \"admin\": [{\"at.ms\": 20, \"create.partitions\": {\"topic\": \"t\", \"total\": 9}}]}";
    run r = run_text(json, NULL, 0, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    assert_int_equal(sum_int(&r, "records.produced"), 5000);
    assert_int_equal(sum_int(&r, "records.acked") + sum_int(&r, "records.failed"), 5000);
    assert_int_equal(count_ev(&r, "ack"), 5000);
    /* each record id acked once */
    static unsigned char seen[5000];
    memset(seen, 0, sizeof seen);
    for (size_t i = 0; i < r.nlines; i++) {
        if (!line_is(r.lines[i], "ack"))
            continue;
        const char *f = strstr(r.lines[i], "\"record\":");
        long id = strtol(f + 9, NULL, 10);
        assert_true(id >= 0 && id < 5000);
        assert_int_equal(seen[id], 0);
        seen[id] = 1;
    }
    /* offsets per partition: appends are contiguous from 0 */
    int64_t next[9] = {0};
    for (size_t k = 0; k < count_ev(&r, "append"); k++) {
        int64_t part = nth_field(&r, "append", k, "partition");
        assert_int_equal(nth_field(&r, "append", k, "offset"), next[part]);
        next[part] += nth_field(&r, "append", k, "records");
    }
    assert_true(sum_int(&r, "producers.a.buffer_used_max") <= 20000);
    run_free(&r);
}

static void test_limits(void **state)
{
    (void)state;
    ks_override o1 = {"limits.max.events", "5"};
    run r = run_text(HELLO, &o1, 1, KS_TL_BATCH);
    assert_string_equal(sum_str(&r, "verdict"), "max-events");
    assert_int_equal(sum_int(&r, "events"), 5);
    assert_non_null(strstr(r.trace, "\"ev\":\"end\",\"verdict\":\"max-events\""));
    run_free(&r);
    ks_override o2 = {"limits.max.time.ms", "3.5"};
    r = run_text(HELLO, &o2, 1, KS_TL_BATCH);
    assert_string_equal(sum_str(&r, "verdict"), "max-time");
    assert_int_equal(sum_int(&r, "time_ns"), 3500000);
    assert_int_equal(sum_int(&r, "records.produced"), 4);
    assert_int_equal(sum_int(&r, "records.acked"), 2);
    assert_int_equal(sum_int(&r, "records.unresolved"), 2);
    run_free(&r);
}

/* Trace levels only change what is written, never the simulation. */
static void test_levels_do_not_change_results(void **state)
{
    (void)state;
    run s = run_text(HELLO, NULL, 0, KS_TL_SUMMARY);
    run d = run_text(HELLO, NULL, 0, KS_TL_DEBUG);
    assert_string_equal(s.summary_text, d.summary_text);
    assert_int_equal(count_ev(&s, "send"), 0);
    assert_int_equal(count_ev(&s, "header"), 1);
    assert_int_equal(count_ev(&d, "event"), 70);
    run_free(&s);
    run_free(&d);
}

/* A batch's success is counted once per batch when no "ack" line is
 * written (summary and batch level), record by record when one is
 * (record and debug level): both give the same summary, for scenarios
 * with retries and failures, acks=0, transactions and a fenced producer,
 * forwarded records, two producers and a buffer that runs out. */
static void test_levels_same_summary_in_scenarios(void **state)
{
    (void)state;
    static const char *const names[] = {
        "lost-ack-storm", "acks0-silent-loss", "seed-transaction-commit",
        "seed-zombie-fencing", "consume-transform-produce", "tuning-heavy-load",
        "size-limits", "batching-defaults"};
    const char *src = getenv("KSIM_SOURCE_DIR");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/scenarios/%s.json", src ? src : "..", names[i]);
        char *text = read_whole(path);
        assert_non_null(text);
        run lean = run_text(text, NULL, 0, KS_TL_BATCH);
        run full = run_text(text, NULL, 0, KS_TL_RECORD);
        if (strcmp(lean.summary_text, full.summary_text) != 0)
            print_error("%s: the summary differs between batch and record level\n", names[i]);
        assert_string_equal(lean.summary_text, full.summary_text);
        assert_true(count_ev(&full, "ack") > 0);
        assert_int_equal(count_ev(&lean, "ack"), 0);
        run_free(&lean);
        run_free(&full);
        free(text);
    }
}

/* What this version cannot simulate is refused with a clear message. */
static void test_unsupported(void **state)
{
    (void)state;
    ks_diag *d = malloc(sizeof *d);
    ks_diag_init(d);
    ks_scenario *sc = ks_scenario_parse(
        "t.json",
        "{\"brokers\": {\"count\": 2}, \"topics\": [{\"name\": \"a\", \"replication.factor\": 2}],"
        " \"producers\": [{}]}",
        NULL, 0, false, 0, d);
    assert_non_null(sc);
    assert_null(ks_world_create(sc, NULL, d));
    assert_true(ks_diag_has(d, "t.json: $.topics[0].replication.factor: this ksim"));
    ks_scenario_free(sc);
    free(d);
}

/* The text of a file (tmpfile's), whole. */
static char *slurp(FILE *f)
{
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    char *s = calloc((size_t)n + 1, 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return s;
}

/* A big topology's summary, written with its partitions as text, is the
 * same bytes as the whole tree dumped; with an expect block that reads
 * partitions, or few partitions, the tree stays whole. */
static void check_lean_summary(const char *file, const ks_override *o, size_t n, bool lean,
                               long tree_parts)
{
    ks_diag *d = malloc(sizeof *d);
    ks_diag_init(d);
    ks_scenario *sc = ks_scenario_load(file, o, n, false, 0, d);
    if (!sc)
        ks_diag_print(d, stderr);
    assert_non_null(sc);
    ks_world *w = ks_world_create(sc, NULL, d);
    assert_non_null(w);
    ks_world_run(w);
    json_t *full = ks_world_summary(w);
    bool is_lean = false;
    json_t *part = ks_world_summary_lean(w, &is_lean);
    assert_non_null(part);
    assert_int_equal(is_lean, lean);
    /* a lean tree holds only the partitions the expect block reads */
    if (tree_parts >= 0)
        assert_int_equal(json_object_size(json_object_get(part, "partitions")), tree_parts);
    FILE *a = tmpfile(), *b = tmpfile();
    assert_int_equal(json_dumpf(full, a, JSON_INDENT(2)), 0);
    assert_int_equal(ks_summary_dumpf(part, is_lean ? w : NULL, b, JSON_INDENT(2)), 0);
    char *ta = slurp(a), *tb = slurp(b);
    assert_string_equal(ta, tb);
    free(ta);
    free(tb);
    json_decref(full);
    json_decref(part);
    ks_world_free(w);
    ks_scenario_free(sc);
    free(d);
}

static void test_lean_summary_same_bytes(void **state)
{
    (void)state;
    const char *src = getenv("KSIM_SOURCE_DIR");
    char rr[512], txn[512];
    /* (rr-vs-sticky's expect block reads no partition) */
    snprintf(rr, sizeof rr, "%s/scenarios/rr-vs-sticky.json", src ? src : "..");
    snprintf(txn, sizeof txn, "%s/scenarios/transaction-abort.json", src ? src : "..");
    const ks_override big[] = {{"topics.clicks.partitions", "1500"},
                               {"producers.p1.workload.records", "3000"}};
    check_lean_summary(rr, big, 2, true, 0);
    check_lean_summary(rr, big + 1, 1, false, 12); /* 12 partitions */
    /* logs kept (a transaction): their high watermarks, markers, ... */
    json_error_t err;
    json_t *sc = json_load_file(txn, 0, &err);
    assert_non_null(sc);
    const char *topic = json_string_value(json_object_get(json_array_get(json_object_get(sc, "topics"), 0), "name"));
    char path[128];
    snprintf(path, sizeof path, "topics.%s.partitions", topic);
    const ks_override logged[] = {{path, "2000"}, {"expect", "{}"}};
    check_lean_summary(txn, logged, 2, true, 0);
    /* its expect block reads one partition: that one is in the tree, for
     * checking; the text holds them all */
    check_lean_summary(txn, logged, 1, true, 1);
    /* one that reads "partitions" whole keeps the tree whole */
    const ks_override whole[] = {{path, "2000"}, {"expect", "{\"partitions\": {}}"}};
    check_lean_summary(txn, whole, 2, false, 2000);
    json_decref(sc);
}

/* The event and trace kind names come from their X-macro lists. */
static void test_kind_names(void **state)
{
    (void)state;
    assert_string_equal(ks_event_kind_name(KS_EV_TIMER), "timer");
    assert_string_equal(ks_event_kind_name(KS_EV_PRODUCE), "produce");
    assert_string_equal(ks_event_kind_name(KS_EV_ARRIVE), "arrive");
    assert_string_equal(ks_event_kind_name(KS_EV_RESPONSE), "response");
    assert_string_equal(ks_trace_kind_name(KS_TR_APPEND), "append");
    assert_string_equal(ks_trace_kind_name(KS_TR_OFFSET_COMMIT), "offset_commit");
    assert_int_equal(ks_trace_kinds.count, KS_TR__COUNT);
}

/* Idempotence's explicit costs: the leader spends idempotent.batch.us on
 * every batch with a producer id, the producer's sender on every batch it
 * gives a sequence; exactly that, and nothing without idempotence. The
 * load is light (records far apart), so the extra time delays nothing
 * else and the busy times differ by exactly batches x cost. */
static void test_idempotence_costs(void **state)
{
    (void)state;
    const char *json =
        "{\"seed\": 3, \"kafka.version\": \"3.9\", \"topics\": [{\"name\": \"t\", \"partitions\": 2}],"
        " \"producers\": [{\"id\": \"p1\", \"topic\": \"t\", \"config\": {\"linger.ms\": 0},"
        " \"workload\": {\"records\": 40, \"rate.per.sec\": 100, \"value.bytes\": 100}}]}";
    ks_override on[] = {{"brokers.cost", "{\"idempotent.batch.us\": 2}"},
                        {"producers.p1.cost", "{\"idempotent.batch.us\": 0.7}"}};
    ks_override plain[] = {{"producers.p1.config.enable.idempotence", "false"},
                           {"brokers.cost", "{\"idempotent.batch.us\": 2}"},
                           {"producers.p1.cost", "{\"idempotent.batch.us\": 0.7}"}};
    run base = run_text(json, NULL, 0, KS_TL_SUMMARY);
    run costly = run_text(json, on, 2, KS_TL_SUMMARY);
    assert_true(sum_bool(&costly, "producers.p1.idempotent"));
    int64_t batches = sum_int(&costly, "producers.p1.batches");
    assert_int_equal(batches, 40);
    assert_int_equal(sum_int(&costly, "brokers.0.busy_ns") - sum_int(&base, "brokers.0.busy_ns"),
                     batches * 2000);
    assert_int_equal(sum_int(&costly, "producers.p1.sender_busy_ns") -
                         sum_int(&base, "producers.p1.sender_busy_ns"),
                     batches * 700);
    run off = run_text(json, plain, 3, KS_TL_SUMMARY);
    ks_override none[] = {{"producers.p1.config.enable.idempotence", "false"}};
    run off_base = run_text(json, none, 1, KS_TL_SUMMARY);
    assert_false(sum_bool(&off, "producers.p1.idempotent"));
    assert_int_equal(sum_int(&off, "brokers.0.busy_ns"), sum_int(&off_base, "brokers.0.busy_ns"));
    assert_int_equal(sum_int(&off, "producers.p1.sender_busy_ns"),
                     sum_int(&off_base, "producers.p1.sender_busy_ns"));
    run_free(&base);
    run_free(&costly);
    run_free(&off);
    run_free(&off_base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hello_exact),
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_same_scenario_same_bytes),
        cmocka_unit_test(test_streams_independent),
        cmocka_unit_test(test_long_ids_distinct_streams),
        cmocka_unit_test(test_workload_distributions),
        cmocka_unit_test(test_acks_zero),
        cmocka_unit_test(test_in_flight_limit),
        cmocka_unit_test(test_broker_queueing),
        cmocka_unit_test(test_delayed_response_holds_connection),
        cmocka_unit_test(test_metrics_series),
        cmocka_unit_test(test_buffer_exhausted),
        cmocka_unit_test(test_uniform_switch_at_batch_close),
        cmocka_unit_test(test_admin_leaves_the_rest_alone),
        cmocka_unit_test(test_run_invariants),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_levels_do_not_change_results),
        cmocka_unit_test(test_levels_same_summary_in_scenarios),
        cmocka_unit_test(test_unsupported),
        cmocka_unit_test(test_lean_summary_same_bytes),
        cmocka_unit_test(test_idempotence_costs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
