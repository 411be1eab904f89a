/*
 * test_size_limits.c - the limits that cap a record, run end to end: the
 * leader's message.max.bytes / max.message.bytes check on a batch's
 * size (at the boundary), the single-record batch that fails with
 * RecordTooLargeException, and the split of a batch of several records
 * with the sequences it keeps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/harness.h"

#include <stdio.h>

/* One producer, one record of a 1000-byte value: a v2 batch of 61 bytes
 * of header and a 1009-byte record, 1070 bytes. `broker` and `topic`
 * are the "config" objects of the brokers and of the topic. */
static run one_record(const char *broker, const char *topic)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"name\": \"one\", \"seed\": 1, \"kafka.version\": \"3.9\","
             " \"brokers\": {\"count\": 1, \"config\": %s},"
             " \"topics\": [{\"name\": \"t\", \"partitions\": 1, \"config\": %s}],"
             " \"producers\": [{\"id\": \"p1\", \"topic\": \"t\","
             " \"workload\": {\"records\": 1, \"value.bytes\": 1000}}]}",
             broker, topic);
    return run_text(json, NULL, 0, KS_TL_RECORD);
}

/* sizeInBytes > maxMessageSize refuses: a batch exactly at the limit is
 * stored, one byte over it is not. */
static void test_limit_is_the_batch_size(void **state)
{
    (void)state;
    run r = one_record("{}", "{\"max.message.bytes\": 1070}");
    assert_int_equal(sum_int(&r, "partitions.t-0.records"), 1);
    assert_int_equal(sum_int(&r, "records.acked"), 1);
    run_free(&r);
    r = one_record("{}", "{\"max.message.bytes\": 1069}");
    assert_int_equal(sum_int(&r, "partitions.t-0.records"), 0);
    assert_int_equal(sum_int(&r, "records.failed"), 1);
    assert_int_equal(sum_int(&r, "brokers.0.too_large"), 1);
    const char *ap = find_line(&r, "append", "result", "MESSAGE_TOO_LARGE", 0);
    assert_non_null(ap);
    assert_int_equal(line_int(ap, "bytes"), 1070);
    /* one record: no split, the application is told */
    assert_int_equal(count_ev(&r, "split"), 0);
    assert_non_null(find_line(&r, "ack", "error", "RecordTooLargeException", 0));
    assert_int_equal(sum_int(&r, "delivery.lost"), 0);
    run_free(&r);
}

/* Without a topic override the broker's message.max.bytes applies; the
 * topic's max.message.bytes wins over it either way. */
static void test_topic_overrides_broker(void **state)
{
    (void)state;
    run r = one_record("{\"message.max.bytes\": 1069}", "{}");
    assert_int_equal(sum_int(&r, "partitions.t-0.records"), 0);
    run_free(&r);
    r = one_record("{\"message.max.bytes\": 1069}", "{\"max.message.bytes\": 1070}");
    assert_int_equal(sum_int(&r, "partitions.t-0.records"), 1);
    run_free(&r);
    r = one_record("{}", "{}"); /* 1048588 by default */
    assert_int_equal(sum_int(&r, "partitions.t-0.records"), 1);
    run_free(&r);
}

/* A compressed batch grows past the topic's limit as the ratio estimate
 * falls (lz4 tending to a ratio of 0.5, limit 9500: above the ~8.5 kB
 * a batch.size of it compresses to, with the codec's warm-up and framing,
 * so that a split helps): the refused batch is
 * split into batches of at most batch.size, the first taking the refused
 * batch's base sequence and each the next, and every new batch is stored
 * at the offset equal to its sequence (one producer, from 0): nothing is
 * stored twice, nothing skipped, nothing reordered, no attempt counted. */
static void test_split_keeps_sequences(void **state)
{
    (void)state;
    const char *json =
        "{\"name\": \"split\", \"seed\": 1, \"kafka.version\": \"3.9\","
        " \"topics\": [{\"name\": \"t\", \"partitions\": 1, \"config\": {\"max.message.bytes\": 9500}}],"
        " \"producers\": [{\"id\": \"p1\", \"topic\": \"t\", \"config\": {\"batch.size\": 16384,"
        " \"linger.ms\": 10, \"compression.type\": \"lz4\"}, \"compression\": {\"ratio\": 0.5},"
        " \"workload\": {\"records\": 600, \"rate.per.sec\": 20000, \"value.bytes\": 1000}}]}";
    run r = run_text(json, NULL, 0, KS_TL_BATCH);
    int64_t splits = sum_int(&r, "producers.p1.splits");
    assert_true(splits >= 1);
    assert_int_equal(sum_int(&r, "records.acked"), 600);
    assert_int_equal(sum_int(&r, "partitions.t-0.log_end_offset"), 600);
    assert_int_equal(sum_int(&r, "delivery.anomalies_total"), 0);
    size_t n = count_ev(&r, "split");
    assert_true(n >= 2 * (size_t)splits);
    int64_t old = -1, next_seq = -1;
    for (size_t k = 0; k < n; k++) {
        const char *s = nth(&r, "split", k);
        int64_t batch = line_int(s, "batch"), seq = line_int(s, "base_sequence");
        if (batch != old) { /* the first new batch of a split */
            const char *refused = find_int(&r, "append", "batch", batch);
            assert_non_null(refused);
            assert_true(line_str_is(refused, "result", "MESSAGE_TOO_LARGE"));
            assert_true(line_int(refused, "bytes") > 9500);
            next_seq = line_int(refused, "base_sequence");
            old = batch;
        }
        assert_int_equal(seq, next_seq);
        next_seq += line_int(s, "into_records");
        assert_true(line_int(s, "into_bytes") <= 16384);
        const char *ap = find_int(&r, "append", "batch", line_int(s, "into"));
        assert_non_null(ap);
        assert_false(line_has(ap, "result"));
        assert_int_equal(line_int(ap, "offset"), seq);
    }
    assert_non_null(find_line(&r, "drain", "why", "split", 0));
    run_free(&r);
}

/* batch.size above the limit (KAFKA-8350, fixed after 4.1): a split into
 * batches of batch.size makes the same batch again, refused again, and
 * the producer splits until delivery.timeout.ms fails the records. */
static void test_split_cannot_help(void **state)
{
    (void)state;
    const char *json =
        "{\"name\": \"loop\", \"seed\": 1, \"kafka.version\": \"4.1\","
        " \"topics\": [{\"name\": \"t\", \"partitions\": 1, \"config\": {\"max.message.bytes\": 5000}}],"
        " \"producers\": [{\"id\": \"p1\", \"topic\": \"t\", \"config\": {\"batch.size\": 16384,"
        " \"linger.ms\": 50, \"request.timeout.ms\": 200, \"delivery.timeout.ms\": 300},"
        " \"workload\": {\"records\": 10, \"rate.per.sec\": 10000, \"value.bytes\": 1000}}]}";
    run r = run_text(json, NULL, 0, KS_TL_BATCH);
    assert_true(sum_int(&r, "producers.p1.splits") > 50);
    assert_int_equal(sum_int(&r, "producers.p1.retries"), 0);
    assert_int_equal(sum_int(&r, "records.failed"), 10);
    assert_int_equal(sum_int(&r, "partitions.t-0.records"), 0);
    const char *s = nth(&r, "split", 0);
    assert_non_null(s);
    assert_int_equal(line_int(s, "into_records"), 10); /* the same batch again */
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limit_is_the_batch_size),
        cmocka_unit_test(test_topic_overrides_broker),
        cmocka_unit_test(test_split_keeps_sequences),
        cmocka_unit_test(test_split_cannot_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
