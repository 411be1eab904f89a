/*
 * test_checker.c - tests models/check/checker.c, one delivery story per test: the
 * at-least-once duplicate (whole summary compared), the idempotent retry
 * the broker recognises, at-most-once loss that the producer was told
 * about, acks=0 loss, failed_but_present, a copy landing after the
 * producer was told, reordering within a partition (and none across
 * partitions or producers), batches never told, records never sent,
 * told without a batch or for a batch never sent, counts in records,
 * more copies and requests than are kept in detail, the capped anomaly
 * list, fates reported before or after the appends, the hash tables
 * growing past thousands of batches and shrinking back to their first
 * size, deterministic summaries whatever the order entries were opened
 * in, out-of-memory at every allocation, and the fate names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "models/check/checker.h"

static const char *const producer_ids[] = {"p1", "p2"};
static const char *const partition_names[] = {"events-0", "events-1"};

static ks_checker *new_checker(void)
{
    ks_checker *c = ks_checker_create(2, producer_ids, 2, partition_names);
    assert_non_null(c);
    return c;
}

/* The summary's integer at key (a nested "records.x" for told counts). */
static json_int_t count_of(const json_t *s, const char *key)
{
    const json_t *v = json_object_get(s, key);
    if (!v && strncmp(key, "records.", 8) == 0)
        v = json_object_get(json_object_get(s, "records"), key + 8);
    assert_true(json_is_integer(v));
    return json_integer_value(v);
}

static bool is_ok(const json_t *s)
{
    const json_t *v = json_object_get(s, "ok");
    assert_true(json_is_boolean(v));
    return json_is_true(v);
}

static json_t *anomaly(const json_t *s, size_t i)
{
    json_t *a = json_array_get(json_object_get(s, "anomalies"), i);
    assert_non_null(a);
    return a;
}

static size_t listed(const json_t *s)
{
    const json_t *a = json_object_get(s, "anomalies");
    assert_true(json_is_array(a));
    return json_array_size(a);
}

static const char *cause(const json_t *a)
{
    const char *text = json_string_value(json_object_get(a, "cause"));
    assert_non_null(text);
    return text;
}

/* Asserts that JSON value v dumps compactly to want. */
static void assert_dump(const json_t *v, const char *want)
{
    char *got = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void assert_contains(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("\"%s\" does not contain \"%s\"", text, part);
}

/* Every other count is zero and nothing is listed. */
static void assert_clean(const json_t *s)
{
    const char *keys[] = {"lost", "duplicate", "extra_copies", "nonmonotonic_send",
                          "failed_but_present", "indeterminate", "anomalies_total"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        assert_int_equal(count_of(s, keys[i]), 0);
    assert_int_equal(listed(s), 0);
    assert_true(is_ok(s));
}

static const char at_least_once_summary[] =
    "{\"records\":{\"acked\":1,\"acked_no_offset\":0,\"failed\":0,\"untold\":0},"
    "\"lost\":0,\"duplicate\":1,\"extra_copies\":1,\"nonmonotonic_send\":0,"
    "\"failed_but_present\":0,\"indeterminate\":0,\"ok\":false,"
    "\"anomalies\":[{\"kinds\":[\"duplicate\"],\"producer\":\"p1\",\"partition\":\"events-0\","
    "\"batch\":0,\"records\":[100],\"told\":\"acked\",\"error\":null,\"offsets\":[0,1],"
    "\"copies\":[{\"offset\":0,\"request\":1,\"attempt\":1},"
    "{\"offset\":1,\"request\":2,\"attempt\":2}],"
    "\"requests\":[{\"request\":1,\"attempt\":1,\"fate\":\"response_dropped\",\"fault\":0},"
    "{\"request\":2,\"attempt\":2,\"fate\":\"answered\",\"fault\":null}],"
    "\"cause\":\"request 1 (attempt 1) appended it at offset 0 but its response was dropped "
    "(fault 0); request 2 (attempt 2) appended it again at offset 1; the producer was told "
    "it succeeded at offset 1\"}],\"anomalies_total\":1}";

/* The seed story: the response to the first append is lost, the retry
 * appends the batch again. */
static void test_at_least_once_duplicate(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    const uint64_t ids[] = {100};
    ks_checker_sent(c, 0, 0, 0, 1, 1, 1);
    ks_checker_appended(c, 0, 0, 1, 0);
    ks_checker_request_fate(c, 0, 1, KS_FATE_RESPONSE_DROPPED, 0);
    ks_checker_sent(c, 0, 0, 0, 1, 2, 2);
    ks_checker_appended(c, 0, 0, 2, 1);
    ks_checker_request_fate(c, 0, 2, KS_FATE_ANSWERED, KS_CHECK_NO_FAULT);
    ks_checker_told(c, 0, 0, 0, KS_TOLD_ACKED, NULL, 1, ids, 1);
    assert_int_equal(ks_checker_open_batches(c), 0);
    json_t *s = ks_checker_finish(c);
    assert_non_null(s);
    assert_int_equal(count_of(s, "duplicate"), 1);
    assert_int_equal(count_of(s, "extra_copies"), 1);
    assert_false(is_ok(s));
    assert_dump(json_object_get(anomaly(s, 0), "offsets"), "[0,1]");
    assert_contains(cause(anomaly(s, 0)), "response was dropped (fault 0)");
    assert_dump(s, at_least_once_summary);
    json_decref(s);
    ks_checker_free(c);
}

/* The same story told through the observation points (models/obs.h), as
 * the nodes tell it, gives the same verdicts; with nobody watching
 * (ks_checker_observer(NULL)) the points do nothing. */
static void test_observer_same_verdicts(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    ks_obs o = ks_checker_observer(c);
    const uint64_t ids[] = {100};
    ks_obs_sent(&o, 0, 0, 0, 1, 1, 1);
    ks_obs_appended(&o, 0, 0, 1, 0);
    ks_obs_request_fate(&o, 0, 1, KS_FATE_RESPONSE_DROPPED, 0);
    ks_obs_sent(&o, 0, 0, 0, 1, 2, 2);
    ks_obs_appended(&o, 0, 0, 2, 1);
    ks_obs_request_fate(&o, 0, 2, KS_FATE_ANSWERED, KS_OBS_NO_FAULT);
    ks_obs_told(&o, 0, 0, 0, KS_TOLD_ACKED, NULL, 1, ids, 1);
    json_t *s = ks_checker_finish(c);
    assert_dump(s, at_least_once_summary);
    json_decref(s);
    ks_checker_free(c);
    ks_obs none = ks_checker_observer(NULL);
    assert_null(none.ops);
    ks_obs_sent(&none, 0, 0, 0, 1, 1, 1);
    ks_obs_told(&none, 0, 0, 0, KS_TOLD_ACKED, NULL, 1, ids, 1);
}

/* With idempotence the broker recognises the retry: one copy, no anomaly. */
static void test_idempotent_retry_is_ok(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    const uint64_t ids[] = {1, 2};
    ks_checker_sent(c, 0, 0, 0, 2, 1, 1);
    ks_checker_appended(c, 0, 0, 1, 0);
    ks_checker_request_fate(c, 0, 1, KS_FATE_RESPONSE_DROPPED, 0);
    ks_checker_sent(c, 0, 0, 0, 2, 2, 2);
    ks_checker_not_appended(c, 0, 0, 2, "DUPLICATE");
    ks_checker_request_fate(c, 0, 2, KS_FATE_ANSWERED, KS_CHECK_NO_FAULT);
    ks_checker_told(c, 0, 0, 0, KS_TOLD_ACKED, NULL, 0, ids, 2);
    json_t *s = ks_checker_finish(c);
    assert_clean(s);
    assert_int_equal(count_of(s, "records.acked"), 2);
    json_decref(s);
    ks_checker_free(c);
}

/* At most once: the request never reached the broker and the producer was
 * told it failed. That is a failure reported, not an anomaly. */
static void test_at_most_once_told_failed(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    const uint64_t ids[] = {7, 8, 9};
    ks_checker_sent(c, 1, 4, 1, 3, 1, 1);
    ks_checker_request_fate(c, 1, 1, KS_FATE_REQUEST_DROPPED, 1);
    ks_checker_not_appended(c, 1, 4, 1, NULL);
    ks_checker_told(c, 1, 4, 1, KS_TOLD_FAILED, "TimeoutException", -1, ids, 3);
    json_t *s = ks_checker_finish(c);
    assert_clean(s);
    assert_int_equal(count_of(s, "records.failed"), 3);
    assert_int_equal(count_of(s, "records.acked"), 0);
    json_decref(s);
    ks_checker_free(c);
}

/* acks=0: the request was dropped, yet the producer was told success. */
static void test_acks0_dropped_is_lost(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    const uint64_t ids[] = {40, 41};
    ks_checker_sent(c, 0, 2, 1, 2, 3, 1);
    ks_checker_request_fate(c, 0, 3, KS_FATE_REQUEST_DROPPED, 1);
    ks_checker_told(c, 0, 2, 1, KS_TOLD_ACKED_NO_OFFSET, NULL, -1, ids, 2);
    assert_int_equal(ks_checker_open_batches(c), 1); /* the copy is still travelling */
    ks_checker_not_appended(c, 0, 2, 3, NULL);
    assert_int_equal(ks_checker_open_batches(c), 0);
    json_t *s = ks_checker_finish(c);
    assert_int_equal(count_of(s, "lost"), 2);
    assert_int_equal(count_of(s, "duplicate"), 0);
    assert_int_equal(count_of(s, "records.acked_no_offset"), 2);
    assert_false(is_ok(s));
    json_t *a = anomaly(s, 0);
    assert_dump(json_object_get(a, "kinds"), "[\"lost\"]");
    assert_dump(json_object_get(a, "records"), "[40,41]");
    assert_dump(json_object_get(a, "requests"),
                "[{\"request\":3,\"attempt\":1,\"fate\":\"request_dropped\",\"fault\":1}]");
    assert_string_equal(cause(a), "request 3 (attempt 1) was dropped before reaching the "
                                  "broker (fault 1); the producer was told it succeeded "
                                  "(acks=0)");
    json_decref(s);
    ks_checker_free(c);
}

/* The request timed out after its append: told it failed, yet present. */
static void test_failed_but_present(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    const uint64_t ids[] = {5};
    ks_checker_sent(c, 0, 1, 0, 1, 5, 1);
    ks_checker_request_fate(c, 0, 5, KS_FATE_TIMED_OUT, KS_CHECK_NO_FAULT);
    ks_checker_appended(c, 0, 1, 5, 9);
    ks_checker_told(c, 0, 1, 0, KS_TOLD_FAILED, "TimeoutException", -1, ids, 1);
    json_t *s = ks_checker_finish(c);
    assert_int_equal(count_of(s, "failed_but_present"), 1);
    assert_int_equal(count_of(s, "lost"), 0);
    assert_int_equal(count_of(s, "anomalies_total"), 1);
    json_t *a = anomaly(s, 0);
    assert_dump(json_object_get(a, "kinds"), "[\"failed_but_present\"]");
    assert_string_equal(json_string_value(json_object_get(a, "error")), "TimeoutException");
    assert_string_equal(cause(a), "request 5 (attempt 1) appended it at offset 9 but timed "
                                  "out; the producer was told TimeoutException");
    json_decref(s);
    ks_checker_free(c);
}

/* Told before the first request's copy lands: the batch stays open and is
 * judged when that late copy arrives, with the ids copied at told time. */
static void test_late_copy_after_told(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    uint64_t ids[] = {70, 71};
    ks_checker_sent(c, 1, 3, 0, 2, 1, 1);
    ks_checker_request_fate(c, 1, 1, KS_FATE_TIMED_OUT, 2);
    ks_checker_sent(c, 1, 3, 0, 2, 2, 2);
    ks_checker_appended(c, 1, 3, 2, 0);
    ks_checker_told(c, 1, 3, 0, KS_TOLD_ACKED, NULL, 0, ids, 2);
    ids[0] = ids[1] = 0; /* the caller's array is no longer valid */
    /* Told again, differently: the first word stands. */
    ks_checker_told(c, 1, 3, 0, KS_TOLD_FAILED, "TimeoutException", -1, ids, 2);
    assert_int_equal(ks_checker_open_batches(c), 1);
    ks_checker_appended(c, 1, 3, 1, 1);
    assert_int_equal(ks_checker_open_batches(c), 0);
    json_t *s = ks_checker_finish(c);
    assert_int_equal(count_of(s, "duplicate"), 2);
    assert_int_equal(count_of(s, "extra_copies"), 2);
    assert_int_equal(count_of(s, "indeterminate"), 0);
    assert_int_equal(count_of(s, "failed_but_present"), 0);
    assert_int_equal(count_of(s, "records.acked"), 2);
    assert_int_equal(count_of(s, "records.failed"), 0);
    json_t *a = anomaly(s, 0);
    assert_dump(json_object_get(a, "records"), "[70,71]");
    assert_dump(json_object_get(a, "offsets"), "[0,1]");
    assert_string_equal(json_string_value(json_object_get(a, "producer")), "p2");
    assert_contains(cause(a), "request 1 (attempt 1) appended it again at offset 1 but timed "
                              "out (fault 2)");
    json_decref(s);
    ks_checker_free(c);
}

static void send_append_ack(ks_checker *c, uint32_t producer, uint64_t batch,
                            uint32_t partition, uint32_t records, uint64_t request,
                            int64_t offset)
{
    ks_checker_sent(c, producer, batch, partition, records, request, 1);
    ks_checker_appended(c, producer, batch, request, offset);
    ks_checker_told(c, producer, batch, partition, KS_TOLD_ACKED, NULL, offset, NULL, records);
}

/* Batch 2 lands after batch 3 in events-0; other partitions and producers
 * keep their own order. */
static void test_nonmonotonic_send(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    send_append_ack(c, 0, 10, 1, 4, 1, 0); /* events-1 is ahead, on its own */
    send_append_ack(c, 0, 1, 0, 2, 2, 0);
    send_append_ack(c, 0, 3, 0, 2, 3, 1);
    send_append_ack(c, 0, 2, 0, 2, 4, 2);
    send_append_ack(c, 1, 0, 0, 3, 1, 3); /* another producer, same partition */
    send_append_ack(c, 0, 4, 0, 2, 5, 4);
    json_t *s = ks_checker_finish(c);
    assert_int_equal(count_of(s, "nonmonotonic_send"), 2);
    assert_int_equal(count_of(s, "anomalies_total"), 1);
    assert_int_equal(count_of(s, "duplicate"), 0);
    json_t *a = anomaly(s, 0);
    assert_int_equal(json_integer_value(json_object_get(a, "batch")), 2);
    assert_dump(json_object_get(a, "kinds"), "[\"nonmonotonic_send\"]");
    assert_dump(json_object_get(a, "records"), "2");
    assert_contains(cause(a), "its first copy landed after batch 3 of the same partition");
    json_decref(s);
    ks_checker_free(c);
}

/* Batches never told are judged at the end in (producer, batch) order,
 * with their other verdicts too. */
static void test_never_told_is_indeterminate(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    ks_checker_sent(c, 1, 5, 0, 3, 1, 1);
    ks_checker_sent(c, 0, 9, 1, 2, 1, 1);
    ks_checker_appended(c, 0, 9, 1, 0);
    ks_checker_sent(c, 0, 9, 1, 2, 2, 2);
    ks_checker_appended(c, 0, 9, 2, 1);
    ks_checker_sent(c, 0, 2, 0, 1, 3, 1);
    assert_int_equal(ks_checker_open_batches(c), 3);
    json_t *s = ks_checker_finish(c);
    assert_int_equal(ks_checker_open_batches(c), 0);
    assert_int_equal(count_of(s, "indeterminate"), 6);
    assert_int_equal(count_of(s, "records.untold"), 6);
    assert_int_equal(count_of(s, "duplicate"), 2);
    assert_false(is_ok(s));
    assert_int_equal(listed(s), 3);
    assert_int_equal(json_integer_value(json_object_get(anomaly(s, 0), "batch")), 2);
    assert_int_equal(json_integer_value(json_object_get(anomaly(s, 1), "batch")), 9);
    assert_int_equal(json_integer_value(json_object_get(anomaly(s, 2), "batch")), 5);
    assert_dump(json_object_get(anomaly(s, 1), "kinds"), "[\"duplicate\",\"indeterminate\"]");
    assert_dump(json_object_get(anomaly(s, 0), "requests"),
                "[{\"request\":3,\"attempt\":1,\"fate\":\"pending\",\"fault\":null}]");
    assert_string_equal(cause(anomaly(s, 0)), "request 3 (attempt 1) had not reached a log "
                                              "by the end of the run; the producer was "
                                              "never told anything");
    json_decref(s);
    ks_checker_free(c);
}

/* Records never sent: counted untold and indeterminate, one anomaly per
 * producer. Records told without a batch are only counted. */
static void test_untold_and_unbatched(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    const uint64_t ids[] = {1, 2, 3};
    ks_checker_told(c, 0, KS_CHECK_NO_BATCH, 0, KS_TOLD_FAILED, "BufferExhaustedException", -1,
                    ids, 3);
    ks_checker_untold(c, 0, 0);
    ks_checker_untold(c, 1, 7);
    json_t *s = ks_checker_finish(c);
    assert_int_equal(count_of(s, "records.failed"), 3);
    assert_int_equal(count_of(s, "records.untold"), 7);
    assert_int_equal(count_of(s, "indeterminate"), 7);
    assert_int_equal(count_of(s, "anomalies_total"), 1);
    assert_false(is_ok(s));
    assert_dump(anomaly(s, 0),
                "{\"kinds\":[\"indeterminate\"],\"producer\":\"p2\",\"partition\":null,"
                "\"batch\":null,\"records\":7,\"told\":\"nothing\",\"error\":null,"
                "\"offsets\":[],\"copies\":[],\"requests\":[],\"cause\":\"7 records were "
                "never sent and never told anything by the end of the run\"}");
    json_decref(s);
    ks_checker_free(c);
}

/* Told success for a batch the checker never saw sent: lost at once. */
static void test_told_for_unsent_batch(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    const uint64_t ids[] = {11, 12};
    ks_checker_told(c, 0, 6, 1, KS_TOLD_ACKED, NULL, 3, ids, 2);
    json_t *s = ks_checker_finish(c);
    assert_int_equal(count_of(s, "lost"), 2);
    assert_string_equal(cause(anomaly(s, 0)), "the batch was never sent; the producer was "
                                              "told it succeeded at offset 3");
    json_decref(s);
    ks_checker_free(c);
}

/* Counts are of records: a 5-record batch landing 3 times. */
static void test_counts_in_records(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    const uint64_t ids[] = {1, 2, 3, 4, 5};
    for (uint64_t r = 1; r <= 3; r++) {
        ks_checker_sent(c, 0, 0, 1, 5, r, (uint32_t)r);
        ks_checker_appended(c, 0, 0, r, (int64_t)(r * 5));
    }
    ks_checker_told(c, 0, 0, 1, KS_TOLD_ACKED, NULL, 15, ids, 5);
    const uint64_t one[] = {6};
    send_append_ack(c, 0, 1, 1, 1, 4, 20);
    ks_checker_told(c, 0, KS_CHECK_NO_BATCH, 1, KS_TOLD_ACKED, NULL, -1, one, 1);
    json_t *s = ks_checker_finish(c);
    assert_int_equal(count_of(s, "duplicate"), 5);
    assert_int_equal(count_of(s, "extra_copies"), 10);
    assert_int_equal(count_of(s, "records.acked"), 7);
    assert_int_equal(count_of(s, "anomalies_total"), 1);
    assert_dump(json_object_get(anomaly(s, 0), "records"), "[1,2,3,4,5]");
    assert_dump(json_object_get(anomaly(s, 0), "offsets"), "[5,10,15]");
    json_decref(s);
    ks_checker_free(c);
}

/* Ten copies: eight kept in detail, all counted. */
static void test_more_than_eight_copies(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    const uint64_t ids[] = {1, 2};
    for (uint64_t r = 1; r <= 10; r++) {
        ks_checker_sent(c, 1, 0, 0, 2, r, (uint32_t)r);
        ks_checker_request_fate(c, 1, r, KS_FATE_RESPONSE_DROPPED, (int32_t)r);
        ks_checker_appended(c, 1, 0, r, (int64_t)r);
    }
    ks_checker_told(c, 1, 0, 0, KS_TOLD_ACKED, NULL, 10, ids, 2);
    json_t *s = ks_checker_finish(c);
    assert_int_equal(count_of(s, "duplicate"), 2);
    assert_int_equal(count_of(s, "extra_copies"), 18);
    json_t *a = anomaly(s, 0);
    assert_dump(json_object_get(a, "offsets"), "[1,2,3,4,5,6,7,8]");
    assert_int_equal(json_array_size(json_object_get(a, "copies")), 8);
    assert_int_equal(json_array_size(json_object_get(a, "requests")), 8);
    assert_contains(cause(a), "(fault 8); 2 more requests not listed; 2 more copies not listed");
    json_decref(s);
    ks_checker_free(c);
}

/* 150 lost batches: 100 listed, all counted. */
static void test_list_is_capped(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    for (uint64_t b = 0; b < 150; b++)
        ks_checker_told(c, (uint32_t)(b % 2), b, 0, KS_TOLD_ACKED, NULL, -1, NULL, 2);
    json_t *s = ks_checker_finish(c);
    assert_int_equal(count_of(s, "lost"), 300);
    assert_int_equal(count_of(s, "anomalies_total"), 150);
    assert_int_equal(listed(s), KS_CHECK_LIST_MAX);
    assert_int_equal(json_integer_value(json_object_get(anomaly(s, 99), "batch")), 99);
    json_decref(s);
    ks_checker_free(c);
}

/* A fate may be reported before or after the appends; reported after the
 * batch is settled it is ignored, and leaves nothing behind. */
static void test_fate_order(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    size_t empty = ks_checker_bytes(c);
    ks_checker_sent(c, 0, 0, 0, 1, 1, 1);
    ks_checker_request_fate(c, 0, 1, KS_FATE_DISCARDED, 3);
    ks_checker_appended(c, 0, 0, 1, 0);
    ks_checker_sent(c, 0, 0, 0, 1, 2, 2);
    ks_checker_appended(c, 0, 0, 2, 1);
    ks_checker_told(c, 0, 0, 0, KS_TOLD_ACKED, NULL, 1, NULL, 1);
    ks_checker_request_fate(c, 0, 2, KS_FATE_ANSWERED, KS_CHECK_NO_FAULT);
    ks_checker_request_fate(c, 1, 9, KS_FATE_RESPONSE_DROPPED, 4);
    assert_int_equal(ks_checker_bytes(c), empty);
    json_t *s = ks_checker_finish(c);
    json_t *a = anomaly(s, 0);
    assert_contains(cause(a), "its response was discarded when the connection closed (fault 3)");
    assert_dump(json_object_get(a, "requests"),
                "[{\"request\":1,\"attempt\":1,\"fate\":\"discarded\",\"fault\":3},"
                "{\"request\":2,\"attempt\":2,\"fate\":\"pending\",\"fault\":null}]");
    assert_dump(json_object_get(a, "records"), "1");
    json_decref(s);
    ks_checker_free(c);
}

/* Opens `batches` batches per producer in an order given by `stride` (odd,
 * so it is a permutation), settles them all in one fixed order, then
 * leaves `left_open` more open in that same scrambled order. */
static json_t *big_run(uint64_t stride, uint64_t batches, uint64_t left_open)
{
    ks_checker *c = new_checker();
    size_t empty = ks_checker_bytes(c);
    uint64_t mask = batches - 1u; /* batches is a power of two */
    for (uint64_t i = 0; i < 2u * batches; i++) {
        uint64_t b = (i / 2u * stride) & mask;
        ks_checker_sent(c, (uint32_t)(i % 2u), b, (uint32_t)(b % 2u), 1, b, 1);
    }
    assert_int_equal(ks_checker_open_batches(c), 2u * batches);
    assert_true(ks_checker_bytes(c) > empty + 2u * batches * 256u);
    for (uint64_t b = 0; b < batches; b++) {
        for (uint32_t p = 0; p < 2; p++) {
            ks_checker_appended(c, p, b, b, (int64_t)b);
            if (b % 97u == 0) /* a few duplicates to list */
                ks_checker_appended(c, p, b, b, (int64_t)b + 1);
            ks_checker_told(c, p, b, (uint32_t)(b % 2u), KS_TOLD_ACKED, NULL, (int64_t)b, &b,
                            1);
        }
    }
    assert_int_equal(ks_checker_open_batches(c), 0);
    assert_int_equal(ks_checker_bytes(c), empty);
    for (uint64_t i = 0; i < left_open; i++) {
        uint64_t j = (i * stride) % left_open; /* left_open is prime to stride */
        ks_checker_sent(c, (uint32_t)(j % 2u), batches + j, 0, 1, batches + j, 1);
    }
    json_t *s = ks_checker_finish(c);
    assert_int_equal(ks_checker_bytes(c), empty);
    ks_checker_free(c);
    assert_non_null(s);
    return s;
}

/* The tables grow past thousands of live batches and shrink back; the
 * summary does not depend on the order batches were opened in. */
static void test_growth_and_determinism(void **state)
{
    (void)state;
    json_t *s1 = big_run(1, 4096, 301);
    json_t *s2 = big_run(2731, 4096, 301);
    assert_int_equal(count_of(s1, "duplicate"), 2 * (4096 / 97 + 1));
    assert_int_equal(count_of(s1, "indeterminate"), 301);
    assert_int_equal(count_of(s1, "anomalies_total"), 2 * (4096 / 97 + 1) + 301);
    /* The open batches come last, in (producer, batch) order. */
    json_t *list = json_object_get(s1, "anomalies");
    json_t *prev = NULL;
    for (size_t i = 2 * (4096 / 97 + 1); i < json_array_size(list); i++) {
        json_t *a = json_array_get(list, i);
        if (prev) {
            int cmp = strcmp(json_string_value(json_object_get(prev, "producer")),
                             json_string_value(json_object_get(a, "producer")));
            assert_true(cmp < 0 || (cmp == 0 && json_integer_value(json_object_get(prev, "batch")) <
                                                    json_integer_value(json_object_get(a, "batch"))));
        }
        prev = a;
    }
    char *d1 = json_dumps(s1, JSON_COMPACT | JSON_PRESERVE_ORDER);
    char *d2 = json_dumps(s2, JSON_COMPACT | JSON_PRESERVE_ORDER);
    char *d1again = json_dumps(s1, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_non_null(d1);
    assert_non_null(d2);
    assert_non_null(d1again);
    assert_string_equal(d1, d2);
    assert_string_equal(d1, d1again);
    free(d1);
    free(d2);
    free(d1again);
    json_decref(s1);
    json_decref(s2);
}

/* The seed story and enough batches to grow both tables, with the n-th
 * allocation failing; returns whether the summary says memory ran out. */
static bool run_short_of_memory(uint64_t n)
{
    ks_checker *c = new_checker();
    ks_checker_fail_allocations_after(c, n);
    const uint64_t ids[] = {100};
    ks_checker_sent(c, 0, 0, 0, 1, 1, 1);
    ks_checker_appended(c, 0, 0, 1, 0);
    ks_checker_request_fate(c, 0, 1, KS_FATE_RESPONSE_DROPPED, 0);
    ks_checker_sent(c, 0, 0, 0, 1, 2, 2);
    ks_checker_appended(c, 0, 0, 2, 1);
    ks_checker_not_appended(c, 0, 0, 2, "NOT_LEADER_OR_FOLLOWER");
    ks_checker_told(c, 0, 0, 0, KS_TOLD_FAILED, "SomeException", 1, ids, 1);
    for (uint64_t b = 1; b <= 40; b++)
        ks_checker_sent(c, 1, b, 1, 1, b, 1);
    for (uint64_t b = 1; b <= 20; b++)
        ks_checker_told(c, 1, b, 1, KS_TOLD_ACKED, "Nothing", 0, &b, 1);
    json_t *s = ks_checker_finish(c);
    assert_non_null(s); /* only the checker's own allocations fail */
    bool oom = json_is_true(json_object_get(s, "out_of_memory"));
    if (oom)
        assert_false(is_ok(s));
    json_decref(s);
    ks_checker_free(c);
    return oom;
}

static void test_out_of_memory(void **state)
{
    (void)state;
    assert_true(run_short_of_memory(0));
    for (uint64_t n = 1; n < 120; n++)
        (void)run_short_of_memory(n);
    assert_false(run_short_of_memory(100000));
}

/* Reads by read_committed consumers against what the producers were
 * told: a record told failed (or of an aborted transaction) that was read
 * committed is an aborted read; one written in a fenced producer's last
 * transaction is a zombie write made visible; read_uncommitted reads do
 * not count; without ks_checker_watch_reads nothing is reported. */
static void test_aborted_and_zombie_reads(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    ks_checker_watch_reads(c);
    uint64_t failed[] = {10};
    ks_checker_told(c, 0, KS_CHECK_NO_BATCH, UINT32_MAX, KS_TOLD_FAILED, "TimeoutException", -1,
                    failed, 1);
    uint64_t aborted[] = {11, 12};
    ks_checker_aborted(c, aborted, 2);
    uint64_t zombie[] = {13};
    ks_checker_zombie(c, zombie, 1);
    ks_checker_read(c, 0, 10, true, true, 0);  /* aborted read */
    ks_checker_read(c, 0, 11, false, true, 0); /* read_uncommitted: fine */
    ks_checker_read(c, 1, 12, true, true, 0);  /* aborted read */
    ks_checker_read(c, 1, 13, true, true, 0);  /* zombie write visible */
    ks_checker_read(c, 1, 14, true, true, 0);  /* a good read */
    ks_checker_read(c, 0, 10, true, true, 0);  /* the same read twice counts once */
    json_t *s = ks_checker_finish(c);
    assert_int_equal(count_of(s, "aborted_read"), 2);
    assert_int_equal(count_of(s, "zombie_write_visible"), 1);
    assert_false(is_ok(s));
    assert_int_equal(listed(s), 3);
    json_decref(s);
    ks_checker_free(c);

    c = new_checker(); /* not watching: no read verdicts at all */
    ks_checker_read(c, 0, 10, true, true, 0);
    ks_checker_aborted(c, failed, 1);
    s = ks_checker_finish(c);
    assert_null(json_object_get(s, "aborted_read"));
    assert_true(is_ok(s));
    json_decref(s);
    ks_checker_free(c);
}

/* Committed transactions against read_committed reads: one read in part
 * (on partitions a consumer reads) is torn; a record read before its
 * transaction's decision is a precommitted read; records of partitions no
 * consumer reads are not judged. */
static void test_torn_and_precommitted(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    ks_checker_watch_reads(c);
    ks_checker_reads_partition(c, 0);
    uint64_t t1[] = {1, 2, 3};
    uint32_t p1[] = {0, 0, 1}; /* record 3 on partition 1: no consumer reads it */
    ks_checker_txn_committed(c, 0, 1, 100, t1, p1, 3);
    uint64_t t2[] = {4, 5};
    uint32_t p2[] = {0, 0};
    ks_checker_txn_committed(c, 1, 1, 200, t2, p2, 2);
    uint64_t t3[] = {6};
    uint32_t p3[] = {0};
    ks_checker_txn_committed(c, 1, 2, 300, t3, p3, 1);
    ks_checker_read(c, 0, 1, true, true, 150);
    ks_checker_read(c, 0, 2, true, true, 150); /* t1 whole (record 3 not judged) */
    ks_checker_read(c, 0, 4, true, true, 250); /* t2 torn: 5 never read */
    ks_checker_read(c, 0, 6, true, true, 299); /* t3 read before its decision */
    json_t *s = ks_checker_finish(c);
    assert_int_equal(count_of(s, "torn_transaction"), 2);
    assert_int_equal(count_of(s, "precommitted_read"), 1);
    assert_false(is_ok(s));
    assert_int_equal(listed(s), 2);
    json_decref(s);
    ks_checker_free(c);
}

/* Consume-transform-produce: one consumer reading two records written
 * for one record read is one record processed twice, whatever its
 * isolation level; the same record read twice, records of aborted
 * transactions, and two consumers reading one output each are not. */
static void test_processed_twice(void **state)
{
    (void)state;
    ks_checker *c = new_checker();
    ks_checker_watch_reads(c);
    ks_checker_forward(c, 10, 1); /* 10 and 11 written for 1 */
    ks_checker_forward(c, 11, 1);
    ks_checker_forward(c, 12, 2); /* 12 and 13 for 2; 13 aborted */
    ks_checker_forward(c, 13, 2);
    ks_checker_forward(c, 14, 3); /* 14 and 15 for 3, read by different consumers */
    ks_checker_forward(c, 15, 3);
    uint64_t aborted[] = {13};
    ks_checker_aborted(c, aborted, 1);
    ks_checker_read(c, 0, 11, false, true, 5); /* read_uncommitted: counts too */
    ks_checker_read(c, 0, 10, false, true, 6);
    ks_checker_read(c, 1, 10, true, true, 7);  /* consumer 1: 10 twice, not two outputs */
    ks_checker_read(c, 1, 10, true, true, 8);
    ks_checker_read(c, 2, 11, true, true, 9);  /* consumer 2: 11 and 10 as well */
    ks_checker_read(c, 2, 10, true, true, 9);
    ks_checker_read(c, 0, 12, false, true, 9); /* 13 aborted: left out */
    ks_checker_read(c, 0, 13, false, true, 9);
    ks_checker_read(c, 0, 14, false, true, 9);
    ks_checker_read(c, 1, 15, true, true, 9);
    json_t *s = ks_checker_finish(c);
    assert_int_equal(count_of(s, "processed_twice"), 1); /* record 1, seen by 0 and 2 */
    assert_false(is_ok(s));
    assert_int_equal(listed(s), 2);
    const json_t *a = json_array_get(json_object_get(s, "anomalies"), 0);
    assert_dump(json_object_get(a, "outputs"), "[10,11]");
    assert_int_equal(json_integer_value(json_object_get(a, "record")), 1);
    assert_int_equal(json_integer_value(json_object_get(a, "consumer")), 0);
    assert_contains(cause(a), "a consumer read record 10 and record 11, both written for "
                              "record 1: it was processed twice");
    json_decref(s);
    ks_checker_free(c);

    c = new_checker(); /* not watching reads: nothing followed */
    ks_checker_forward(c, 10, 1);
    ks_checker_forward(c, 11, 1);
    ks_checker_read(c, 0, 10, false, true, 1);
    ks_checker_read(c, 0, 11, false, true, 1);
    s = ks_checker_finish(c);
    assert_null(json_object_get(s, "processed_twice"));
    assert_true(is_ok(s));
    json_decref(s);
    ks_checker_free(c);
}

static void test_fate_names(void **state)
{
    (void)state;
    assert_string_equal(ks_request_fate_name(KS_FATE_PENDING), "pending");
    assert_string_equal(ks_request_fate_name(KS_FATE_RESPONSE_DROPPED), "response_dropped");
    assert_string_equal(ks_request_fate_name(KS_FATE_NO_RESPONSE), "no_response");
    assert_string_equal(ks_request_fate_name(KS_FATE__COUNT), "unknown");
    for (int i = 0; i < KS_FATE__COUNT; i++)
        for (int j = i + 1; j < KS_FATE__COUNT; j++)
            assert_string_not_equal(ks_request_fate_name((ks_request_fate)i),
                                    ks_request_fate_name((ks_request_fate)j));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_at_least_once_duplicate),
        cmocka_unit_test(test_observer_same_verdicts),
        cmocka_unit_test(test_idempotent_retry_is_ok),
        cmocka_unit_test(test_at_most_once_told_failed),
        cmocka_unit_test(test_acks0_dropped_is_lost),
        cmocka_unit_test(test_failed_but_present),
        cmocka_unit_test(test_late_copy_after_told),
        cmocka_unit_test(test_nonmonotonic_send),
        cmocka_unit_test(test_never_told_is_indeterminate),
        cmocka_unit_test(test_untold_and_unbatched),
        cmocka_unit_test(test_told_for_unsent_batch),
        cmocka_unit_test(test_counts_in_records),
        cmocka_unit_test(test_more_than_eight_copies),
        cmocka_unit_test(test_list_is_capped),
        cmocka_unit_test(test_fate_order),
        cmocka_unit_test(test_growth_and_determinism),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_aborted_and_zombie_reads),
        cmocka_unit_test(test_torn_and_precommitted),
        cmocka_unit_test(test_processed_twice),
        cmocka_unit_test(test_fate_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
