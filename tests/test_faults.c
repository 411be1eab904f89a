/*
 * test_faults.c - whole runs with fault injection, retries and timeouts,
 * pinned to the values the cost model gives:
 *   drop.response (timeout, disconnect, retry, duplicate), drop.request
 *   with acks=0 (told success, lost), delay.response (responses behind
 *   the delayed one wait: head of line), delay.request (in-order lanes),
 *   append.error retriable (retries exhausted) and not retriable,
 *   NOT_ENOUGH_REPLICAS_AFTER_APPEND with and without idempotence, retry
 *   backoff before and after KIP-580 (3.7), delivery.timeout.ms of a batch
 *   in flight, request.loss windows and determinism (TCP sends lost
 *   segments again), link.down short (late, no retry) and long (the
 *   request timeout closes the connection), pause.broker, pause.producer, InitProducerId and
 *   sequence numbers, fault counting with a partition selector, producer
 *   ConfigExceptions, and the invariants of a run with every fault at once.
 * Also a consumer-targeted fault run from the resolved form (the same
 * trace), and a loss fault's stream named by its content or its "name",
 * so that removing another fault leaves its strikes as they were.
 * Also the error of requests cancelled by a request timeout from 3.4
 * (REQUEST_TIMED_OUT, not NETWORK_EXCEPTION), and the application backlog
 * a pause.producer leaves (arrivals keep their times).
 *
 * Most runs use one broker, a 1 ms link at 1000 Mbit/s and zero producer
 * costs, so every time follows from test_run.c's hello derivation:
 *   a 1-record request is 226 B: 1808 ns on the wire (W_REQ), then 1 ms;
 *   the broker handles it in 20 us + 226 ns = 20226 ns (HANDLE);
 *   the 64-byte response takes 512 ns on the wire (W_RESP), then 1 ms.
 *   So a request sent at s, uncontended, is appended at s + 1022034
 *   (TO_APPEND) and answered at s + 2022546 (RTT).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/harness.h"

#include "models/world.h"
#include "sim/json_path.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS INT64_C(1000000)
#define W_REQ INT64_C(1808)
#define LAT MS
#define HANDLE INT64_C(20226)
#define W_RESP INT64_C(512)
#define TO_APPEND (W_REQ + LAT + HANDLE)                 /* 1022034 */
#define RTT (W_REQ + LAT + HANDLE + W_RESP + LAT)        /* 2022546 */
/* InitProducerId: a 40-byte request (30 + "producer-1") is 320 ns on the
 * wire, 1 ms, 20 us + 40 ns at the broker, a 24-byte answer 192 ns, 1 ms. */
#define PID_RTT (INT64_C(320) + LAT + INT64_C(20040) + INT64_C(192) + LAT) /* 2020552 */

/* ---- the harness (as in test_run.c) ---------------------------------- */










/* ---- line helpers ------------------------------------------------------ */









/* The fault strikes (not the window begin/end records) in the trace. */
static size_t count_strikes(const run *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nlines; i++)
        n += line_is(r->lines[i], "fault") && line_has(r->lines[i], "what");
    return n;
}

/* One producer, one broker, one partition; zero producer costs; a 1 ms
 * link at 1000 Mbit/s; request.timeout.ms 1000 so timeouts come quickly
 * (delivery.timeout.ms keeps its 120000 default, which is >= 0 + 1000). */
#define BASE                                                                                   \
    "{\"name\": \"faults\", \"seed\": 42, \"kafka.version\": \"3.9\","                        \
    " \"brokers\": {\"count\": 1, \"cost\": {\"request.us\": 20, \"batch.us\": 0, "           \
    "\"byte.ns\": 1}},"                                                                        \
    " \"network\": {\"latency.ms\": 1, \"bandwidth.mbps\": 1000},"                             \
    " \"topics\": [{\"name\": \"events\", \"partitions\": 1}],"                                \
    " \"producers\": [{\"id\": \"p1\", \"topic\": \"events\", \"config\": {\"acks\": \"all\","  \
    " \"enable.idempotence\": false, \"request.timeout.ms\": 1000},"                          \
    " \"cost\": {\"record.us\": 0, \"batch.us\": 0, \"request.us\": 0},"                      \
    " \"workload\": {\"records\": 1, \"rate.per.sec\": 1000, \"value.bytes\": 100}}]}"

/* ---- 1. drop.response --------------------------------------------------- */

/* The response to request 1 is lost after the append: nothing comes back,
 * so request.timeout.ms (1000) after the request was sent (t=0) the
 * producer closes the connection; the batch fails and is retried after
 * the backoff (reconnect.backoff.ms, 50, is shorter than any first
 * backoff of 80..120 ms). Without idempotence the retry is
 * appended again: two copies, log end offset 2, acked at offset 1. */
static void test_drop_response_retry_duplicates(void **state)
{
    (void)state;
    ks_override o = {"faults", "[{\"type\": \"drop.response\", \"request\": 1}]"};
    run r = run_text(BASE, &o, 1, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    /* the strike: request 1's response, as it leaves the broker */
    assert_int_equal(count_strikes(&r), 1);
    const char *f = nth(&r, "fault", 0);
    assert_int_equal(line_int(f, "request"), 1);
    assert_int_equal(line_int(f, "t"), TO_APPEND);
    assert_true(line_str_is(f, "type", "drop.response"));
    assert_true(line_str_is(f, "what", "response"));
    assert_int_equal(line_int(nth(&r, "append", 0), "offset"), 0);
    /* the disconnect: sent at 0, + request.timeout.ms */
    assert_int_equal(line_int(nth(&r, "send", 0), "t"), 0);
    assert_int_equal(count_with(&r, "producer", "what", "disconnect"), 1);
    const char *d = find_line(&r, "producer", "what", "disconnect", 0);
    assert_int_equal(line_int(d, "t"), 0 + 1000 * MS);
    assert_int_equal(line_int(d, "in_flight"), 1);
    assert_true(line_str_is(d, "error", "request timed out"));
    /* one retry, at the disconnect, after the jittered first backoff */
    assert_int_equal(count_ev(&r, "retry"), 1);
    const char *rt = nth(&r, "retry", 0);
    assert_int_equal(line_int(rt, "t"), 1000 * MS);
    assert_int_equal(line_int(rt, "attempt"), 2);
    /* (its error name: see test_request_timeout_error_name) */
    int64_t backoff = line_int(rt, "backoff_ns");
    assert_true(backoff >= 80 * MS && backoff <= 120 * MS);
    /* request 2 leaves when the backoff is over; exact times follow */
    /* the disconnect asks for fresh metadata ([K] NetworkClient
     * .handleTimedOutRequests); the only broker can take it when its
     * reconnect.backoff.ms (50) is over: a Metadata request at 1050 ms */
    const char *md = find_line(&r, "send", "api", "Metadata", 0);
    assert_non_null(md);
    assert_int_equal(line_int(md, "t"), 1050 * MS);
    const char *s2 = nth_produce(&r, "send", 1);
    int64_t sent2 = 1000 * MS + backoff;
    assert_int_equal(line_int(s2, "request"), 2);
    assert_int_equal(line_int(s2, "t"), sent2);
    assert_true(line_str_is(nth(&r, "drain", 1), "why", "retry"));
    assert_int_equal(count_ev(&r, "append"), 2);
    assert_int_equal(line_int(nth(&r, "append", 1), "t"), sent2 + TO_APPEND);
    assert_int_equal(line_int(nth(&r, "append", 1), "offset"), 1);
    const char *ack = nth(&r, "ack", 0);
    assert_int_equal(line_int(ack, "t"), sent2 + RTT);
    assert_int_equal(line_int(ack, "offset"), 1);
    assert_true(line_str_is(ack, "error", "NONE"));
    /* the summary */
    assert_int_equal(sum_int(&r, "records.acked"), 1);
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 2);
    assert_int_equal(sum_int(&r, "delivery.duplicate"), 1);
    assert_int_equal(sum_int(&r, "delivery.extra_copies"), 1);
    assert_int_equal(sum_int(&r, "delivery.lost"), 0);
    assert_int_equal(sum_int(&r, "producers.p1.retries"), 1);
    assert_int_equal(sum_int(&r, "producers.p1.disconnects"), 1);
    assert_int_equal(sum_int(&r, "faults.0.hits"), 1);
    assert_string_equal(sum_str(&r, "faults.0.type"), "drop.response");
    run_free(&r);

    /* Kafka 3.0, before KAFKA-14317, fails the requests of a connection
     * closed for a request timeout as disconnected: NETWORK_EXCEPTION
     * (Sender.handleProduceResponse, response.wasDisconnected()). Before
     * 3.7 the backoff is retry.backoff.ms: request 2 leaves at 1100 ms. */
    ks_override o30[] = {{"kafka.version", "3.0"},
                         {"faults", "[{\"type\": \"drop.response\", \"request\": 1}]"}};
    r = run_text(BASE, o30, 2, KS_TL_BATCH);
    rt = nth(&r, "retry", 0);
    assert_true(line_str_is(rt, "error", "NETWORK_EXCEPTION"));
    assert_int_equal(line_int(rt, "backoff_ns"), 100 * MS);
    assert_int_equal(line_int(nth_produce(&r, "send", 1), "t"), 1100 * MS);
    assert_int_equal(sum_int(&r, "delivery.duplicate"), 1);
    run_free(&r);
}

/* Kafka 3.9: when a request times out, NetworkClient.handleTimedOutRequests
 * closes the connection with processTimeoutDisconnection, and
 * cancelInFlightRequests(..., timedOut = true) answers every request in
 * flight on it with request.timedOut(now); Sender.handleProduceResponse
 * checks response.wasTimedOut() first and completes their batches with
 * REQUEST_TIMED_OUT ("Disconnected from node 0 due to timeout"),
 * retriable, whose exception is TimeoutException (KAFKA-14317, PR #12813;
 * in 3.6.1 and still in 4.x). So the retry record says REQUEST_TIMED_OUT,
 * and a batch out of retries fails with TimeoutException. */
static void test_request_timeout_error_name(void **state)
{
    (void)state;
    ks_override o = {"faults", "[{\"type\": \"drop.response\", \"request\": 1}]"};
    run r = run_text(BASE, &o, 1, KS_TL_RECORD);
    assert_true(line_str_is(nth(&r, "retry", 0), "error", "REQUEST_TIMED_OUT"));
    run_free(&r);
    ks_override o0[] = {{"producers.p1.config.retries", "0"},
                        {"faults", "[{\"type\": \"drop.response\", \"request\": 1}]"}};
    r = run_text(BASE, o0, 2, KS_TL_RECORD);
    const char *ack = nth(&r, "ack", 0);
    assert_int_equal(line_int(ack, "t"), 1000 * MS);
    assert_true(line_str_is(ack, "error", "TimeoutException"));
    run_free(&r);
    /* every request in flight on the connection is cancelled the same way
     * (a cut longer than request.timeout.ms, so TCP has not recovered) */
    ks_override ol[] = {{"producers.p1.workload.records", "10"},
                        {"faults", "[{\"type\": \"link.down\", \"from.ms\": 2.5, "
                                   "\"to.ms\": 1500}]"}};
    r = run_text(BASE, ol, 2, KS_TL_BATCH);
    assert_int_equal(count_with(&r, "retry", "error", "REQUEST_TIMED_OUT"), 5);
    run_free(&r);
}

/* ---- 2. drop.request with acks=0 ------------------------------------------ */

/* acks=0: the record completes once the request is written (1808 ns),
 * with offset -1 and success, although the request never arrives. The
 * checker counts the record as lost. */
static void test_drop_request_acks_zero_lost(void **state)
{
    (void)state;
    ks_override o[] = {{"producers.p1.config.acks", "0"},
                       {"faults", "[{\"type\": \"drop.request\", \"request\": 1}]"}};
    run r = run_text(BASE, o, 2, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    const char *f = nth(&r, "fault", 0);
    assert_int_equal(line_int(f, "t"), 0);
    assert_int_equal(line_int(f, "request"), 1);
    assert_true(line_str_is(f, "what", "request"));
    assert_int_equal(line_int(nth(&r, "send", 0), "arrive_t"), -1);
    assert_int_equal(count_ev(&r, "arrive"), 0);
    assert_int_equal(count_ev(&r, "append"), 0);
    const char *ack = nth(&r, "ack", 0);
    assert_int_equal(line_int(ack, "t"), W_REQ);
    assert_int_equal(line_int(ack, "offset"), -1);
    assert_true(line_str_is(ack, "error", "NONE"));
    assert_int_equal(sum_int(&r, "records.acked"), 1);
    assert_int_equal(sum_int(&r, "records.failed"), 0);
    assert_int_equal(sum_int(&r, "delivery.records.acked_no_offset"), 1);
    assert_int_equal(sum_int(&r, "delivery.lost"), 1);
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 0);
    assert_int_equal(sum_int(&r, "faults.0.hits"), 1);
    run_free(&r);
}

/* ---- 3. delay.response: head of line ------------------------------------- */

/* Five records 1 ms apart, each in its own request (linger 0, five in
 * flight). Request 1's response is held 50 ms: it arrives at
 * RTT + 50 ms = 52022546. The others left the broker earlier
 * (k ms + 1022546) but the response direction delivers in order and the
 * producer handles responses in request order, so all five are handled
 * at 52022546, in request order. */
static void test_delay_response_head_of_line(void **state)
{
    (void)state;
    ks_override o[] = {
        {"producers.p1.workload.records", "5"},
        {"producers.p1.config.max.in.flight.requests.per.connection", "5"},
        {"faults", "[{\"type\": \"delay.response\", \"request\": 1, \"delay.ms\": 50}]"}};
    run r = run_text(BASE, o, 3, KS_TL_RECORD);
    const char *f = nth(&r, "fault", 0);
    assert_int_equal(line_int(f, "t"), TO_APPEND);
    assert_int_equal(line_int(f, "delay_ns"), 50 * MS);
    assert_true(line_str_is(f, "what", "response"));
    /* the broker is not held up: the appends are at their usual times */
    for (size_t k = 0; k < 5; k++)
        assert_int_equal(line_int(nth(&r, "append", k), "t"), (int64_t)k * MS + TO_APPEND);
    int64_t first = RTT + 50 * MS;
    assert_int_equal(count_ev(&r, "response"), 5);
    const char *r1 = nth(&r, "response", 0);
    assert_int_equal(line_int(r1, "request"), 1);
    assert_int_equal(line_int(r1, "t"), first);
    assert_int_equal(line_int(r1, "rtt_ns"), first);
    for (size_t k = 0; k < 5; k++) {
        const char *rk = nth(&r, "response", k);
        assert_int_equal(line_int(rk, "request"), (int64_t)k + 1);
        assert_true(line_int(rk, "t") >= first);
        assert_int_equal(line_int(rk, "t"), first);
        assert_int_equal(line_int(rk, "rtt_ns"), first - (int64_t)k * MS);
        assert_int_equal(line_int(nth(&r, "ack", k), "offset"), (int64_t)k);
    }
    assert_int_equal(sum_int(&r, "latency_ns.max"), first);
    assert_int_equal(sum_int(&r, "latency_ns.min"), first - 4 * MS);
    assert_int_equal(sum_int(&r, "faults.0.hits"), 1);
    run_free(&r);
}

/* ---- 4. delay.request: in-order lanes ------------------------------------- */

/* Request 1 (sent at 0) is held 10 ms: it arrives at 1001808 + 10 ms and
 * is appended at TO_APPEND + 10 ms. Requests 2 and 3 (sent at 1 and 2 ms)
 * cannot overtake it on the connection: they arrive with it, and are
 * handled one after another, each once the previous response has been
 * written (+512 ns) and after 20226 ns of handling. */
static void test_delay_request_in_order(void **state)
{
    (void)state;
    ks_override o[] = {
        {"producers.p1.workload.records", "3"},
        {"faults", "[{\"type\": \"delay.request\", \"request\": 1, \"delay.ms\": 10}]"}};
    run r = run_text(BASE, o, 2, KS_TL_RECORD);
    int64_t d = 10 * MS, arrive1 = W_REQ + LAT + d;
    const char *f = nth(&r, "fault", 0);
    assert_int_equal(line_int(f, "t"), 0);
    assert_int_equal(line_int(f, "delay_ns"), d);
    assert_true(line_str_is(f, "what", "request"));
    assert_int_equal(line_int(nth(&r, "send", 0), "arrive_t"), arrive1);
    /* the later requests would have arrived at 2001808 and 3001808 */
    assert_int_equal(line_int(nth(&r, "send", 1), "arrive_t"), arrive1);
    assert_int_equal(line_int(nth(&r, "send", 2), "arrive_t"), arrive1);
    for (size_t k = 0; k < 3; k++) {
        const char *a = nth(&r, "arrive", k);
        assert_int_equal(line_int(a, "request"), (int64_t)k + 1);
        assert_true(line_int(a, "t") >= arrive1);
        assert_int_equal(line_int(a, "t"), arrive1);
    }
    int64_t app1 = line_int(nth(&r, "append", 0), "t");
    assert_int_equal(app1, TO_APPEND + d);
    assert_true(app1 >= TO_APPEND + d);
    assert_int_equal(line_int(nth(&r, "append", 1), "t"), app1 + W_RESP + HANDLE);
    assert_int_equal(line_int(nth(&r, "append", 2), "t"), app1 + 2 * (W_RESP + HANDLE));
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(line_int(nth(&r, "append", k), "request"), (int64_t)k + 1);
        assert_int_equal(line_int(nth(&r, "append", k), "offset"), (int64_t)k);
    }
    assert_int_equal(sum_int(&r, "latency_ns.max"), RTT + d);
    assert_int_equal(sum_int(&r, "records.acked"), 3);
    run_free(&r);
}

/* ---- 5. append.error ------------------------------------------------------ */

/* NOT_ENOUGH_REPLICAS is retriable; with retries=2 the batch is tried
 * three times (Sender.canRetry: attempts < retries) and fails with the
 * exception when the error repeats each time. Each retry leaves when its
 * backoff is over; each attempt is answered RTT after it was sent. */
static void test_append_error_retriable_exhausted(void **state)
{
    (void)state;
    ks_override o[] = {{"producers.p1.config.retries", "2"},
                       {"faults", "[{\"type\": \"append.error\", \"error\": "
                                  "\"NOT_ENOUGH_REPLICAS\", \"count\": 3}]"}};
    run r = run_text(BASE, o, 2, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    assert_int_equal(count_strikes(&r), 3);
    assert_int_equal(count_ev(&r, "send"), 3);
    assert_int_equal(count_ev(&r, "retry"), 2);
    int64_t sent = 0;
    for (size_t k = 0; k < 3; k++) {
        const char *s = nth(&r, "send", k);
        assert_int_equal(line_int(s, "request"), (int64_t)k + 1);
        assert_int_equal(line_int(s, "t"), sent);
        const char *a = nth(&r, "append", k);
        assert_int_equal(line_int(a, "offset"), -1);
        assert_true(line_str_is(a, "result", "NOT_ENOUGH_REPLICAS"));
        assert_int_equal(line_int(a, "fault"), 0);
        assert_int_equal(line_int(a, "t"), sent + TO_APPEND);
        const char *f = nth(&r, "fault", k);
        assert_int_equal(line_int(f, "request"), (int64_t)k + 1);
        assert_true(line_str_is(f, "error", "NOT_ENOUGH_REPLICAS"));
        const char *resp = nth(&r, "response", k);
        assert_int_equal(line_int(resp, "t"), sent + RTT);
        assert_true(line_str_is(resp, "error", "NOT_ENOUGH_REPLICAS"));
        if (k < 2) {
            const char *rt = nth(&r, "retry", k);
            assert_int_equal(line_int(rt, "attempt"), (int64_t)k + 2);
            assert_int_equal(line_int(rt, "t"), sent + RTT);
            assert_true(line_str_is(rt, "error", "NOT_ENOUGH_REPLICAS"));
            sent = sent + RTT + line_int(rt, "backoff_ns");
        }
    }
    const char *ack = nth(&r, "ack", 0);
    assert_int_equal(line_int(ack, "t"), sent + RTT);
    assert_int_equal(line_int(ack, "offset"), -1);
    assert_true(line_str_is(ack, "error", "NotEnoughReplicasException"));
    assert_int_equal(sum_int(&r, "records.failed"), 1);
    assert_int_equal(sum_int(&r, "records.acked"), 0);
    assert_int_equal(sum_int(&r, "producers.p1.retries"), 2);
    assert_int_equal(sum_int(&r, "faults.0.hits"), 3);
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 0);
    assert_int_equal(sum_int(&r, "delivery.failed_but_present"), 0);
    run_free(&r);

    /* the same with the error only twice: the third attempt succeeds */
    ks_override o2[] = {{"producers.p1.config.retries", "2"},
                        {"faults", "[{\"type\": \"append.error\", \"error\": "
                                   "\"NOT_ENOUGH_REPLICAS\", \"count\": 2}]"}};
    r = run_text(BASE, o2, 2, KS_TL_RECORD);
    assert_int_equal(count_ev(&r, "retry"), 2);
    assert_int_equal(sum_int(&r, "records.acked"), 1);
    assert_int_equal(sum_int(&r, "faults.0.hits"), 2);
    assert_int_equal(line_int(nth(&r, "ack", 0), "offset"), 0);
    assert_int_equal(line_int(nth(&r, "append", 2), "request"), 3);
    assert_false(line_has(nth(&r, "append", 2), "result"));
    run_free(&r);
}

/* INVALID_RECORD is not retriable: no retry, the application gets
 * InvalidRecordException with the first response. */
static void test_append_error_not_retriable(void **state)
{
    (void)state;
    ks_override o = {"faults", "[{\"type\": \"append.error\", \"error\": \"INVALID_RECORD\"}]"};
    run r = run_text(BASE, &o, 1, KS_TL_RECORD);
    assert_int_equal(count_ev(&r, "retry"), 0);
    assert_int_equal(count_ev(&r, "send"), 1);
    assert_true(line_str_is(nth(&r, "append", 0), "result", "INVALID_RECORD"));
    assert_true(line_str_is(nth(&r, "response", 0), "error", "INVALID_RECORD"));
    const char *ack = nth(&r, "ack", 0);
    assert_int_equal(line_int(ack, "t"), RTT);
    assert_int_equal(line_int(ack, "offset"), -1);
    assert_true(line_str_is(ack, "error", "InvalidRecordException"));
    assert_int_equal(sum_int(&r, "records.failed"), 1);
    assert_int_equal(sum_int(&r, "producers.p1.retries"), 0);
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 0);
    run_free(&r);
}

/* ---- 6. NOT_ENOUGH_REPLICAS_AFTER_APPEND ------------------------------------ */

/* The leader appends the batch, then answers with the error
 * (Partition.checkEnoughReplicasReachOffset); the producer retries. */
static void test_after_append_duplicates(void **state)
{
    (void)state;
    const char *fault =
        "[{\"type\": \"append.error\", \"error\": \"NOT_ENOUGH_REPLICAS_AFTER_APPEND\"}]";
    /* without idempotence: the retry is appended again */
    ks_override o = {"faults", fault};
    run r = run_text(BASE, &o, 1, KS_TL_RECORD);
    const char *a0 = nth(&r, "append", 0);
    assert_int_equal(line_int(a0, "t"), TO_APPEND);
    assert_int_equal(line_int(a0, "offset"), 0);
    assert_false(line_has(a0, "result"));
    assert_true(line_str_is(nth(&r, "response", 0), "error", "NOT_ENOUGH_REPLICAS_AFTER_APPEND"));
    assert_int_equal(count_ev(&r, "retry"), 1);
    assert_true(line_str_is(nth(&r, "retry", 0), "error", "NOT_ENOUGH_REPLICAS_AFTER_APPEND"));
    int64_t sent2 = RTT + line_int(nth(&r, "retry", 0), "backoff_ns");
    assert_int_equal(line_int(nth(&r, "append", 1), "t"), sent2 + TO_APPEND);
    assert_int_equal(line_int(nth(&r, "append", 1), "offset"), 1);
    assert_int_equal(line_int(nth(&r, "ack", 0), "offset"), 1);
    assert_int_equal(line_int(nth(&r, "ack", 0), "t"), sent2 + RTT);
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 2);
    assert_int_equal(sum_int(&r, "delivery.duplicate"), 1);
    assert_int_equal(sum_int(&r, "delivery.extra_copies"), 1);
    run_free(&r);

    /* with idempotence: the broker recognises the retry (same producer id,
     * epoch and sequence) and answers with the first copy's offset */
    ks_override oi[] = {{"producers.p1.config.enable.idempotence", "true"}, {"faults", fault}};
    r = run_text(BASE, oi, 2, KS_TL_RECORD);
    a0 = nth(&r, "append", 0);
    assert_int_equal(line_int(a0, "t"), PID_RTT + TO_APPEND);
    assert_int_equal(line_int(a0, "offset"), 0);
    assert_int_equal(line_int(a0, "base_sequence"), 0);
    assert_false(line_has(a0, "result"));
    assert_int_equal(count_ev(&r, "retry"), 1);
    assert_int_equal(line_int(nth(&r, "retry", 0), "base_sequence"), 0);
    const char *a1 = nth(&r, "append", 1);
    assert_true(line_str_is(a1, "result", "DUPLICATE"));
    assert_int_equal(line_int(a1, "offset"), 0);
    assert_int_equal(line_int(a1, "base_sequence"), 0);
    assert_int_equal(line_int(a1, "request"), 2);
    /* response 0 answers InitProducerId, 1 the first produce request */
    assert_true(line_str_is(nth(&r, "response", 0), "api", "InitProducerId"));
    assert_true(line_str_is(nth(&r, "response", 2), "error", "NONE"));
    assert_int_equal(line_int(nth(&r, "ack", 0), "offset"), 0);
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 1);
    assert_int_equal(sum_int(&r, "delivery.duplicate"), 0);
    assert_true(sum_bool(&r, "delivery.ok"));
    assert_int_equal(sum_int(&r, "records.acked"), 1);
    run_free(&r);
}

/* ---- 7. retry backoff by version -------------------------------------------- */

/* Five failing attempts (retries 5): the backoff_ns of each retry record. */
static void backoffs(const char *version, const char *seed, int64_t out[5], bool *has_stream)
{
    ks_override o[] = {{"kafka.version", version},
                       {"seed", seed},
                       {"producers.p1.config.retries", "5"},
                       {"faults", "[{\"type\": \"append.error\", \"error\": "
                                  "\"NOT_ENOUGH_REPLICAS\", \"count\": 5}]"}};
    run r = run_text(BASE, o, 4, KS_TL_BATCH);
    assert_int_equal(count_ev(&r, "retry"), 5);
    assert_int_equal(sum_int(&r, "records.acked"), 1); /* the sixth attempt */
    for (size_t k = 0; k < 5; k++) {
        const char *rt = nth(&r, "retry", k);
        out[k] = line_int(rt, "backoff_ns");
        assert_int_equal(line_int(rt, "attempt"), (int64_t)k + 2);
        /* the next attempt leaves exactly when its backoff is over */
        assert_int_equal(line_int(nth(&r, "send", k + 1), "t"), line_int(rt, "t") + out[k]);
    }
    *has_stream = strstr(r.lines[0], "{\"name\":\"producer.p1.retry\"") != NULL;
    run_free(&r);
}

/* Before 3.7 every retry waits retry.backoff.ms (100). From 3.7 (KIP-580,
 * ExponentialBackoff with base 2, jitter 0.2, max retry.backoff.max.ms
 * 1000, whole ms): retry n waits 100 * 2^(n-1) * U(0.8, 1.2) ms capped at
 * 1000: [80,120], [160,240], [320,480], [640,960], [800,1000]. The draws
 * come from the producer's retry stream: the same seed draws the same,
 * another seed differs. */
static void test_backoff_by_version(void **state)
{
    (void)state;
    int64_t b36[5], b37[5], again[5], other[5];
    bool s36, s37, s;
    backoffs("3.6", "42", b36, &s36);
    for (size_t k = 0; k < 5; k++)
        assert_int_equal(b36[k], 100 * MS);
    assert_false(s36); /* no random stream: nothing is drawn */
    backoffs("3.7", "42", b37, &s37);
    assert_true(s37);
    static const int64_t lo[5] = {80, 160, 320, 640, 800}, hi[5] = {120, 240, 480, 960, 1000};
    for (size_t k = 0; k < 5; k++) {
        assert_true(b37[k] >= lo[k] * MS && b37[k] <= hi[k] * MS);
        assert_int_equal(b37[k] % MS, 0);
    }
    backoffs("3.7", "42", again, &s);
    for (size_t k = 0; k < 5; k++)
        assert_int_equal(again[k], b37[k]);
    backoffs("3.7", "7", other, &s);
    bool differs = false;
    for (size_t k = 0; k < 5; k++) {
        assert_true(other[k] >= lo[k] * MS && other[k] <= hi[k] * MS);
        differs = differs || other[k] != b37[k];
    }
    assert_true(differs);
}

/* ---- 8. delivery.timeout.ms ---------------------------------------------- */

/* request.timeout.ms 1000, delivery.timeout.ms 1500 (>= linger 0 + 1000,
 * so no ConfigException). Request 1's response is dropped: at 1000 ms the
 * connection closes and the batch is retried as request 2 (at 1000 ms +
 * backoff); its response is dropped too, and at 1500 ms, 1500 ms after the
 * batch was created, it expires in flight with TimeoutException
 * (Sender.getExpiredInflightBatches). It is in the log twice. Request 2
 * still times out, at its send + 1000 ms. */
static void test_delivery_timeout_in_flight(void **state)
{
    (void)state;
    ks_override o[] = {{"producers.p1.config.delivery.timeout.ms", "1500"},
                       {"producers.p1.config.linger.ms", "0"},
                       {"faults", "[{\"type\": \"drop.response\", \"request\": 1},"
                                  " {\"type\": \"drop.response\", \"request\": 2}]"}};
    run r = run_text(BASE, o, 3, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    assert_int_equal(count_strikes(&r), 2);
    int64_t sent2 = 1000 * MS + line_int(nth(&r, "retry", 0), "backoff_ns");
    assert_int_equal(line_int(nth_produce(&r, "send", 1), "t"), sent2);
    assert_true(sent2 < 1500 * MS);
    const char *ack = nth(&r, "ack", 0);
    assert_int_equal(line_int(ack, "t"), 1500 * MS);
    assert_int_equal(line_int(ack, "latency_ns"), 1500 * MS);
    assert_int_equal(line_int(ack, "offset"), -1);
    assert_true(line_str_is(ack, "error", "TimeoutException"));
    assert_int_equal(count_with(&r, "producer", "what", "disconnect"), 2);
    assert_int_equal(line_int(find_line(&r, "producer", "what", "disconnect", 1), "t"),
                     sent2 + 1000 * MS);
    assert_int_equal(count_ev(&r, "retry"), 1); /* none after the expiry */
    assert_int_equal(sum_int(&r, "records.failed"), 1);
    assert_int_equal(sum_int(&r, "producers.p1.expired"), 1);
    assert_int_equal(sum_int(&r, "producers.p1.retries"), 1);
    assert_int_equal(sum_int(&r, "delivery.failed_but_present"), 1);
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 2);
    assert_int_equal(sum_int(&r, "faults.0.hits"), 1);
    assert_int_equal(sum_int(&r, "faults.1.hits"), 1);
    run_free(&r);
}

/* ---- 9. request.loss ------------------------------------------------------- */

/* Probability 1 in [3 ms, 6 ms): of ten acks=0 requests sent at 0..9 ms,
 * the segments of those sent at 3, 4 and 5 ms (requests 4, 5, 6) are
 * lost on the wire; the one at 6 ms is not (the window's end is open).
 * The connection is TCP: each lost segment is sent again one RTO later
 * (200 ms + 2 x 1 ms latency = 202 ms) and gets through, and what is sent
 * after waits behind it in order. Nothing is lost to the application:
 * all ten records land, requests 7-10 queued behind request 6. */
static void test_request_loss_window(void **state)
{
    (void)state;
    ks_override o[] = {{"producers.p1.config.acks", "0"},
                       {"producers.p1.workload.records", "10"},
                       {"faults", "[{\"type\": \"request.loss\", \"probability\": 1,"
                                  " \"from.ms\": 3, \"to.ms\": 6}]"}};
    run r = run_text(BASE, o, 3, KS_TL_RECORD);
    assert_int_equal(count_strikes(&r), 3);
    for (size_t k = 0; k < 3; k++) {
        const char *f = nth(&r, "fault", k);
        assert_int_equal(line_int(f, "request"), (int64_t)k + 4);
        assert_int_equal(line_int(f, "t"), (int64_t)(k + 3) * MS);
        assert_int_equal(line_int(f, "delay_ns"), 202 * MS);
        assert_true(line_str_is(f, "type", "request.loss"));
    }
    for (size_t k = 0; k < 10; k++) {
        const char *s = nth(&r, "send", k);
        int64_t arrive = (int64_t)k * MS + W_REQ + LAT;
        if (k >= 3 && k <= 5)
            arrive += 202 * MS; /* sent again one RTO later */
        else if (k > 5)
            arrive = 5 * MS + 202 * MS + W_REQ + LAT; /* in order behind request 6 */
        assert_int_equal(line_int(s, "arrive_t"), arrive);
    }
    assert_int_equal(count_ev(&r, "append"), 10);
    assert_int_equal(sum_int(&r, "records.acked"), 10);
    assert_int_equal(sum_int(&r, "delivery.lost"), 0);
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 10);
    assert_int_equal(sum_int(&r, "faults.0.hits"), 3);
    run_free(&r);
}

/* Probability 0.5 over the whole run: which segments are lost comes from
 * the fault's stream alone, named by its content (docs/scenario.md:
 * "fault." and the FNV-1a 64 of {"from.ms":0,"probability":0.5,
 * "type":"request.loss"}), so two runs lose the same ones (53 strikes
 * with seed 42, retransmissions included). TCP sends every one again, so
 * no record is lost and the log holds all 100. */
static void test_request_loss_deterministic(void **state)
{
    (void)state;
    ks_override o[] = {{"producers.p1.config.acks", "0"},
                       {"producers.p1.workload.records", "100"},
                       {"faults", "[{\"type\": \"request.loss\", \"probability\": 0.5}]"}};
    run a = run_text(BASE, o, 3, KS_TL_BATCH);
    run b = run_text(BASE, o, 3, KS_TL_BATCH);
    assert_int_equal(sum_int(&a, "faults.0.hits"), 53);
    assert_int_equal(sum_int(&b, "faults.0.hits"), 53);
    assert_int_equal(count_strikes(&a), 53);
    assert_int_equal(sum_int(&a, "delivery.lost"), 0);
    assert_int_equal(sum_int(&a, "partitions.events-0.log_end_offset"), 100);
    assert_int_equal(a.trace_len, b.trace_len);
    assert_memory_equal(a.trace, b.trace, a.trace_len);
    assert_non_null(strstr(a.lines[0], "{\"name\":\"fault.3bceb8c66f5ddda7\",\"id\":\""));
    assert_null(strstr(a.lines[0], "\"fault.0\""));
    run_free(&a);
    run_free(&b);
}

/* ---- 10. link.down ---------------------------------------------------------- */

/* Ten records 1 ms apart; the link is down in [2.5 ms, 5.5 ms).
 *   request 2's response left at 2022034, before the cut: it arrives;
 *   request 3 (sent at 2 ms) is appended, but its response leaves at
 *     3022034, in the cut: TCP sends it again 202 ms later;
 *   requests 4, 5, 6 (sent at 3, 4, 5 ms) are sent again 202 ms later;
 *   request 7 (6 ms) waits in order behind request 6.
 * The cut is far shorter than request.timeout.ms (1000): the connection
 * survives, nothing is retried, nothing duplicated; everything is late. */
static void test_link_down_recovery(void **state)
{
    (void)state;
    ks_override o[] = {{"producers.p1.workload.records", "10"},
                       {"faults", "[{\"type\": \"link.down\", \"from.ms\": 2.5, \"to.ms\": 5.5}]"}};
    run r = run_text(BASE, o, 2, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    const char *begin = find_line(&r, "fault", "phase", "begin", 0);
    const char *end = find_line(&r, "fault", "phase", "end", 0);
    assert_int_equal(line_int(begin, "t"), 2500000);
    assert_int_equal(line_int(end, "t"), 5500000);
    assert_int_equal(line_int(begin, "until"), 5500000);
    assert_int_equal(count_strikes(&r), 4);
    const char *s3 = find_line(&r, "fault", "what", "response", 0);
    assert_int_equal(line_int(s3, "request"), 3);
    assert_int_equal(line_int(s3, "t"), 2 * MS + TO_APPEND);
    assert_int_equal(line_int(s3, "delay_ns"), 202 * MS);
    for (size_t k = 0; k < 3; k++) {
        const char *f = find_line(&r, "fault", "what", "request", k);
        assert_int_equal(line_int(f, "request"), (int64_t)k + 4);
        assert_int_equal(line_int(f, "t"), (int64_t)(k + 3) * MS);
        assert_int_equal(line_int(f, "delay_ns"), 202 * MS);
    }
    /* in flight before the cut: delivered on time */
    assert_int_equal(line_int(find_int(&r, "response", "request", 2), "t"), 1 * MS + RTT);
    /* request 3's response, sent again */
    assert_int_equal(line_int(find_int(&r, "response", "request", 3), "t"),
                     2 * MS + RTT + 202 * MS);
    assert_int_equal(line_int(find_int(&r, "append", "request", 4), "t"),
                     3 * MS + 202 * MS + TO_APPEND);
    assert_int_equal(count_with(&r, "producer", "what", "disconnect"), 0);
    assert_int_equal(count_ev(&r, "retry"), 0);
    assert_int_equal(sum_int(&r, "records.acked"), 10);
    assert_int_equal(sum_int(&r, "delivery.lost"), 0);
    assert_int_equal(sum_int(&r, "delivery.duplicate"), 0);
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 10);
    assert_int_equal(sum_int(&r, "faults.0.hits"), 1); /* the window opened once */
    run_free(&r);
}

/* The same cut, but to 1500 ms: longer than request.timeout.ms. TCP's
 * retransmissions back off (202, 404, 808 ms ...) and the next one after
 * the cut would be at 3 ms + 3030 ms, so the strikes carry that delay;
 * before it, at 2 ms + request.timeout.ms, the producer closes the
 * connection with five requests in flight and retries their batches.
 * Request 3's batch had been appended: one duplicate. */
static void test_link_down_breaks_connection(void **state)
{
    (void)state;
    ks_override o[] = {{"producers.p1.workload.records", "10"},
                       {"faults", "[{\"type\": \"link.down\", \"from.ms\": 2.5, \"to.ms\": 1500}]"}};
    run r = run_text(BASE, o, 2, KS_TL_RECORD);
    const char *f4 = find_line(&r, "fault", "what", "request", 0);
    assert_int_equal(line_int(f4, "request"), 4);
    assert_int_equal(line_int(f4, "delay_ns"), 3030 * MS);
    const char *d = find_line(&r, "producer", "what", "disconnect", 0);
    assert_int_equal(line_int(d, "t"), 2 * MS + 1000 * MS);
    assert_int_equal(line_int(d, "in_flight"), 5);
    assert_int_equal(count_with(&r, "producer", "what", "disconnect"), 1);
    assert_int_equal(count_with(&r, "retry", "error", "REQUEST_TIMED_OUT"), 5);
    /* the retries go out into the cut too, and get through after it */
    assert_int_equal(sum_int(&r, "records.acked"), 10);
    assert_int_equal(sum_int(&r, "records.failed"), 0);
    assert_int_equal(sum_int(&r, "delivery.lost"), 0);
    assert_int_equal(sum_int(&r, "delivery.duplicate"), 1);
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 11);
    run_free(&r);
}

/* ---- 11. pause.broker ------------------------------------------------------ */

/* Broker 0 pauses in [1.01 ms, 6.5 ms). Request 1 arrived at 1001808 and
 * would be appended at 1022034: inside the pause, so at 6.5 ms. Requests
 * 2-5 reach it during the pause and are taken in at 6.5 ms; request 2 is
 * appended once request 1's response is written (+512 ns) and handled
 * (+20226 ns). No append in the window. */
static void test_pause_broker(void **state)
{
    (void)state;
    int64_t t1 = 1010000, t2 = 6500000;
    ks_override o[] = {{"producers.p1.workload.records", "10"},
                       {"faults", "[{\"type\": \"pause.broker\", \"broker\": 0,"
                                  " \"from.ms\": 1.01, \"to.ms\": 6.5}]"}};
    run r = run_text(BASE, o, 2, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    assert_int_equal(line_int(find_line(&r, "fault", "phase", "begin", 0), "t"), t1);
    assert_int_equal(line_int(find_line(&r, "fault", "phase", "end", 0), "t"), t2);
    /* requests 1-5 with a record each; records 5-7 waited for an
     * in-flight slot and went together (request 6); then 8 and 9 */
    size_t n = count_ev(&r, "append");
    assert_int_equal(n, 8);
    assert_int_equal(line_int(nth(&r, "append", 5), "records"), 3);
    for (size_t k = 0; k < n; k++) {
        int64_t t = line_int(nth(&r, "append", k), "t");
        assert_false(t >= t1 && t < t2);
    }
    const char *a1 = nth(&r, "append", 0);
    assert_int_equal(line_int(a1, "request"), 1);
    assert_int_equal(line_int(a1, "t"), t2);
    for (int64_t q = 2; q <= 5; q++)
        assert_int_equal(line_int(find_int(&r, "arrive", "request", q), "t"), t2);
    assert_int_equal(line_int(nth(&r, "append", 1), "t"), t2 + W_RESP + HANDLE);
    assert_int_equal(line_int(nth(&r, "response", 0), "t"), t2 + W_RESP + LAT);
    assert_int_equal(sum_int(&r, "records.acked"), 10);
    assert_int_equal(sum_int(&r, "partitions.events-0.log_end_offset"), 10);
    assert_int_equal(sum_int(&r, "faults.0.hits"), 1);
    run_free(&r);
}

/* ---- 12. pause.producer ---------------------------------------------------- */

#define PAUSE_P1                                                                               \
    "[{\"type\": \"pause.producer\", \"producer\": \"p1\", \"from.ms\": 2.5, \"to.ms\": 6.5}]"

/* The producer (a GC pause) does nothing in (2.5 ms, 6.5 ms): no send(),
 * no drain, no request, no response handled. The responses to requests 2
 * and 3 arrive during the pause (3022546 and 4022546) and are handled at
 * 6.5 ms; record 3 (due at 3 ms) is produced and sent at 6.5 ms. */
static void test_pause_producer(void **state)
{
    (void)state;
    int64_t t1 = 2500000, t2 = 6500000;
    ks_override o[] = {{"producers.p1.workload.records", "10"}, {"faults", PAUSE_P1}};
    run r = run_text(BASE, o, 2, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    static const char *const kinds[] = {"produce", "drain", "send", "response", "ack"};
    for (size_t i = 0; i < r.nlines; i++) {
        for (size_t k = 0; k < 5; k++) {
            if (!line_is(r.lines[i], kinds[k]))
                continue;
            int64_t t = line_int(r.lines[i], "t");
            assert_false(t > t1 && t < t2);
        }
    }
    const char *r2 = find_int(&r, "response", "request", 2);
    assert_int_equal(line_int(r2, "t"), t2);
    assert_int_equal(line_int(r2, "rtt_ns"), t2 - 1 * MS);
    assert_int_equal(line_int(find_int(&r, "response", "request", 3), "t"), t2);
    const char *p3 = find_int(&r, "produce", "record", 3);
    assert_int_equal(line_int(p3, "t"), t2);
    assert_int_equal(line_int(find_int(&r, "send", "request", 4), "t"), t2);
    assert_int_equal(sum_int(&r, "records.acked"), 10);
    assert_int_equal(sum_int(&r, "faults.0.hits"), 1);
    run_free(&r);
}

/* The application's arrivals do not stop while the producer's JVM is
 * paused: records due at 3, 4, 5 and 6 ms pile up and are all handed to
 * send() when the pause ends (records 3-6 at 6.5 ms), and the arrivals
 * after the pause keep their times (record 7 at 7 ms, ..., 9 at 9 ms). */
static void test_pause_producer_backlog(void **state)
{
    (void)state;
    int64_t t2 = 6500000;
    ks_override o[] = {{"producers.p1.workload.records", "10"}, {"faults", PAUSE_P1}};
    run r = run_text(BASE, o, 2, KS_TL_RECORD);
    for (int64_t k = 0; k < 10; k++) {
        int64_t want = k < 3 ? k * MS : k <= 6 ? t2 : k * MS;
        assert_int_equal(line_int(find_int(&r, "produce", "record", k), "t"), want);
    }
    assert_int_equal(sum_int(&r, "records.acked"), 10);
    run_free(&r);
}

/* Faults reach InitProducerId too: with its response dropped (api
 * selector), the request times out after request.timeout.ms (1000 ms),
 * the connection closes, and InitProducerId goes again after
 * retry.backoff.ms (100 ms); the second one is request 2 of its API. The
 * record waits all along; produce requests keep their own numbering. */
static void test_init_producer_id_fault(void **state)
{
    (void)state;
    ks_override o[] = {{"producers.p1.config.enable.idempotence", "true"},
                       {"faults", "[{\"type\": \"drop.response\", \"api\": \"InitProducerId\"}]"}};
    run r = run_text(BASE, o, 2, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    const char *f = nth(&r, "fault", 0);
    assert_true(line_str_is(f, "api", "InitProducerId"));
    assert_int_equal(line_int(f, "request"), 1);
    size_t d = find_idx(&r, "producer", "what", "disconnect", 0);
    assert_true(d < r.nlines);
    assert_int_equal(line_int(r.lines[d], "t"), 1000 * MS);
    const char *s2 = find_int(&r, "send", "request", 2);
    assert_true(line_str_is(s2, "api", "InitProducerId"));
    assert_int_equal(line_int(s2, "t"), 1100 * MS);
    const char *p1 = find_int(&r, "send", "request", 1);
    assert_true(line_str_is(p1, "api", "InitProducerId")); /* the first send is InitProducerId */
    size_t init = find_idx(&r, "producer", "what", "init_producer_id", 0);
    assert_int_equal(line_int(r.lines[init], "t"), 1100 * MS + PID_RTT);
    assert_int_equal(line_int(nth(&r, "drain", 0), "request"), 1);
    assert_int_equal(line_int(nth(&r, "drain", 0), "t"), 1100 * MS + PID_RTT);
    assert_int_equal(sum_int(&r, "records.acked"), 1);
    assert_int_equal(sum_int(&r, "producers.p1.producer_id"), 1);
    run_free(&r);
}

/* ---- 13. idempotence: InitProducerId and sequences ------------------------ */

/* The idempotent producer asks for a producer id first (PID_RTT =
 * 2020552 ns); nothing is drained before the answer. Records arrive at
 * 0..4 ms: records 0-2 wait and leave together at 2020552 (sequence 0),
 * records 3 and 4 go alone (sequences 3 and 4): each batch's base
 * sequence is the number of records before it. The producer id is the
 * cluster's first, brokers.first.producer.id. */
static void test_idempotent_init_and_sequences(void **state)
{
    (void)state;
    ks_override o[] = {{"producers.p1.config.enable.idempotence", "true"},
                       {"producers.p1.workload.records", "5"},
                       {"brokers.first.producer.id", "1000"}};
    run r = run_text(BASE, o, 3, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    size_t init = find_idx(&r, "producer", "what", "init_producer_id", 0);
    assert_true(init < r.nlines);
    const char *pl = r.lines[init];
    assert_int_equal(line_int(pl, "t"), PID_RTT);
    assert_int_equal(line_int(pl, "producer_id"), 1000);
    assert_int_equal(line_int(pl, "epoch"), 0);
    size_t first_drain = find_idx(&r, "drain", NULL, NULL, 0);
    assert_true(first_drain < r.nlines && first_drain > init);
    assert_int_equal(line_int(r.lines[first_drain], "t"), PID_RTT);
    assert_int_equal(line_int(r.lines[first_drain], "records"), 3);
    assert_int_equal(count_ev(&r, "append"), 3);
    static const int64_t seqs[3] = {0, 3, 4};
    int64_t next = 0;
    for (size_t k = 0; k < 3; k++) {
        const char *a = nth(&r, "append", k);
        assert_int_equal(line_int(a, "producer_id"), 1000);
        assert_int_equal(line_int(a, "epoch"), 0);
        assert_int_equal(line_int(a, "base_sequence"), seqs[k]);
        assert_int_equal(line_int(a, "base_sequence"), next);
        assert_int_equal(line_int(a, "offset"), next);
        next += line_int(a, "records");
    }
    assert_int_equal(next, 5);
    assert_int_equal(sum_int(&r, "producers.p1.producer_id"), 1000);
    assert_int_equal(sum_int(&r, "producers.p1.epoch"), 0);
    assert_true(sum_bool(&r, "producers.p1.idempotent"));
    assert_int_equal(sum_int(&r, "records.acked"), 5);
    run_free(&r);
}

/* ---- 14. counting with a partition selector -------------------------------- */

/* Two partitions; keys "a" (partition 0) and "d" (partition 1) alternate,
 * so requests 1, 3, 5 carry events-0 and 2, 4, 6 carry events-1. A
 * drop.response for events-1 with count 2 strikes requests 2 and 4 and no
 * other, not even the retries of its batches after the timeout. */
static void test_count_and_partition_selector(void **state)
{
    (void)state;
    ks_override o[] = {{"topics", "[{\"name\": \"events\", \"partitions\": 2}]"},
                       {"producers.p1.workload.key", "[\"a\", \"d\"]"},
                       {"producers.p1.workload.records", "6"},
                       {"faults", "[{\"type\": \"drop.response\", \"partition\": \"events-1\","
                                  " \"count\": 2}]"}};
    run r = run_text(BASE, o, 4, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    for (int64_t q = 1; q <= 6; q++)
        assert_int_equal(line_int(find_int(&r, "drain", "request", q), "partition"), (q + 1) % 2);
    assert_int_equal(count_strikes(&r), 2);
    assert_int_equal(line_int(nth(&r, "fault", 0), "request"), 2);
    assert_int_equal(line_int(nth(&r, "fault", 1), "request"), 4);
    assert_int_equal(sum_int(&r, "faults.0.hits"), 2);
    assert_int_equal(sum_int(&r, "records.acked"), 6);
    assert_int_equal(sum_int(&r, "delivery.lost"), 0);
    run_free(&r);
}

/* ---- 15. ConfigException ---------------------------------------------------- */

/* new KafkaProducer(...) throws: the producer never sends
 * (ProducerConfig.postProcessAndValidateIdempotenceConfigs; and
 * KafkaProducer.configureDeliveryTimeout). */
static void test_config_exception(void **state)
{
    (void)state;
    ks_override o[] = {{"producers.p1.config.enable.idempotence", "true"},
                       {"producers.p1.config.acks", "0"},
                       {"producers.p1.workload.records", "10"}};
    run r = run_text(BASE, o, 3, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    const char *err = sum_str(&r, "producers.p1.error");
    assert_int_equal(strncmp(err, "ConfigException", 15), 0);
    assert_string_equal(err, "ConfigException: Must set acks to all in order to use the "
                             "idempotent producer. Otherwise we cannot guarantee idempotence.");
    assert_int_equal(sum_int(&r, "records.produced"), 0);
    assert_int_equal(sum_int(&r, "records.unresolved"), 0);
    assert_int_equal(count_ev(&r, "produce"), 0);
    assert_int_equal(count_with(&r, "producer", "what", "config_exception"), 1);
    run_free(&r);

    /* delivery.timeout.ms set below linger.ms + request.timeout.ms */
    ks_override o2[] = {{"producers.p1.config.delivery.timeout.ms", "1400"},
                        {"producers.p1.config.linger.ms", "500"}};
    r = run_text(BASE, o2, 2, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "producers.p1.error"),
                        "ConfigException: delivery.timeout.ms should be equal to or larger "
                        "than linger.ms + request.timeout.ms");
    assert_int_equal(sum_int(&r, "records.produced"), 0);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    run_free(&r);
}

/* ---- every fault at once -------------------------------------------------- */

/* Two producers (one idempotent), three brokers, every kind of fault: the
 * run completes, every record is told its outcome exactly once, the
 * checker's counts agree with the producers', and two runs are
 * byte-identical. */
static void test_all_faults_invariants(void **state)
{
    (void)state;
    const char *json =
        "{\"seed\": 3, \"kafka.version\": \"3.9\", \"brokers\": {\"count\": 3},"
        " \"network\": {\"latency\": {\"dist\": \"exponential\", \"mean.ms\": 0.3}},"
        " \"topics\": [{\"name\": \"t\", \"partitions\": 7}],"
        " \"producers\": [{\"id\": \"a\", \"topic\": \"t\", \"config\": {\"linger.ms\": 2,"
        " \"batch.size\": 3000, \"request.timeout.ms\": 200, \"delivery.timeout.ms\": 1000,"
        " \"retry.backoff.ms\": 10}, \"workload\": {\"records\": 1500, \"arrival\": \"poisson\","
        " \"rate.per.sec\": 20000, \"key\": {\"zipf\": {\"keys\": 20}}}},"
        " {\"id\": \"b\", \"topic\": \"t\", \"config\": {\"enable.idempotence\": false,"
        " \"request.timeout.ms\": 200, \"delivery.timeout.ms\": 1000,"
        " \"max.in.flight.requests.per.connection\": 1}, \"workload\": {\"records\": 1000,"
        " \"arrival\": \"burst\", \"burst.records\": 100, \"burst.interval.ms\": 5}}],"
        " \"faults\": ["
        "{\"type\": \"request.loss\", \"probability\": 0.02},"
        "{\"type\": \"response.loss\", \"probability\": 0.02, \"from.ms\": 10, \"to.ms\": 80},"
        "{\"type\": \"link.down\", \"producer\": \"a\", \"broker\": 1, \"from.ms\": 20, \"to.ms\": 30},"
        "{\"type\": \"pause.broker\", \"broker\": 2, \"from.ms\": 40, \"to.ms\": 60},"
        "{\"type\": \"pause.producer\", \"producer\": \"b\", \"from.ms\": 45, \"to.ms\": 70},"
        "{\"type\": \"append.error\", \"error\": \"NOT_ENOUGH_REPLICAS_AFTER_APPEND\","
        " \"count\": 5, \"after.ms\": 5},"
        "{\"type\": \"append.error\", \"error\": \"NOT_LEADER_OR_FOLLOWER\", \"count\": 5,"
        " \"after.ms\": 15},"
        "{\"type\": \"delay.response\", \"delay.ms\": 50, \"count\": 3, \"after.ms\": 3},"
        "{\"type\": \"delay.request\", \"delay.ms\": 30, \"count\": 3, \"after.ms\": 7},"
        "{\"type\": \"drop.request\", \"producer\": \"a\", \"count\": 4, \"after.ms\": 50},"
        "{\"type\": \"drop.response\", \"producer\": \"b\", \"count\": 4, \"after.ms\": 50}]}";
    run r = run_text(json, NULL, 0, KS_TL_RECORD);
    run r2 = run_text(json, NULL, 0, KS_TL_RECORD);
    assert_int_equal(r.trace_len, r2.trace_len);
    assert_memory_equal(r.trace, r2.trace, r.trace_len);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    int64_t produced = sum_int(&r, "records.produced");
    assert_int_equal(produced, 2500);
    assert_int_equal(sum_int(&r, "records.acked") + sum_int(&r, "records.failed"), produced);
    assert_int_equal(sum_int(&r, "records.unresolved"), 0);
    assert_int_equal((int64_t)count_ev(&r, "ack"), produced);
    assert_int_equal(sum_int(&r, "delivery.records.acked"), sum_int(&r, "records.acked"));
    assert_int_equal(sum_int(&r, "delivery.records.failed"), sum_int(&r, "records.failed"));
    assert_int_equal(sum_int(&r, "delivery.indeterminate"), 0);
    assert_int_equal(sum_int(&r, "delivery.lost"), 0); /* acks=all: nothing told ok is lost */
    static unsigned char seen[2500];
    memset(seen, 0, sizeof seen);
    for (size_t i = 0; i < r.nlines; i++) {
        if (!line_is(r.lines[i], "ack"))
            continue;
        int64_t id = line_int(r.lines[i], "record");
        assert_true(id >= 0 && id < 2500);
        assert_int_equal(seen[id], 0);
        seen[id] = 1;
    }
    /* the idempotent producer never writes a batch twice */
    ks_jref ref;
    const char *rest;
    assert_true(ks_json_lookup(r.summary, "delivery.anomalies", &ref, &rest));
    size_t i;
    json_t *an;
    json_array_foreach(ref.value, i, an)
    {
        const char *p = json_string_value(json_object_get(an, "producer"));
        json_t *kinds = json_object_get(an, "kinds");
        size_t j;
        json_t *kind;
        json_array_foreach(kinds, j, kind)
        {
            if (strcmp(json_string_value(kind), "duplicate") == 0)
                assert_string_equal(p, "b");
        }
    }
    run_free(&r);
    run_free(&r2);
}

/* ---- 17. the resolved form reruns the run; streams by name ---------------- */

/* The scenario text's resolved form (what ksim validate --resolved prints). */
static char *resolved_text(const char *json)
{
    ks_diag *d = malloc(sizeof *d);
    assert_non_null(d);
    ks_diag_init(d);
    ks_scenario *sc = ks_scenario_parse("t.json", json, NULL, 0, false, 0, d);
    if (!sc)
        ks_diag_print(d, stderr);
    assert_non_null(sc);
    json_t *j = ks_scenario_to_json(sc);
    char *text = json_dumps(j, JSON_INDENT(2) | ks_conf_reals_exact(j));
    assert_non_null(text);
    json_decref(j);
    ks_scenario_free(sc);
    free(d);
    return text;
}

/* Two consumers read p1's ten records; the first Fetch answer to c2 is
 * lost, and c2's first Fetch from 5 ms on is 3 ms late (c1's answer and
 * request come first, each time). Run from its resolved form, the faults
 * still strike c2, not the first client to come: the trace is the same,
 * byte for byte, but for the header (which carries the scenario). */
static void test_resolved_consumer_fault_same_trace(void **state)
{
    (void)state;
    const char *json =
        "{\"name\": \"faults\", \"seed\": 42, \"kafka.version\": \"3.9\","
        " \"network\": {\"latency.ms\": 1, \"bandwidth.mbps\": 1000},"
        " \"topics\": [{\"name\": \"events\", \"partitions\": 1}],"
        " \"producers\": [{\"id\": \"p1\", \"topic\": \"events\","
        " \"workload\": {\"records\": 10, \"rate.per.sec\": 1000, \"value.bytes\": 100}}],"
        " \"consumers\": [{\"id\": \"c1\", \"topic\": \"events\", \"poll.interval.ms\": 1,"
        " \"auto.offset.reset\": \"earliest\"}, {\"id\": \"c2\", \"topic\": \"events\","
        " \"poll.interval.ms\": 1, \"auto.offset.reset\": \"earliest\"}],"
        " \"faults\": [{\"type\": \"drop.response\", \"consumer\": \"c2\", \"api\": \"Fetch\"},"
        " {\"type\": \"delay.request\", \"consumer\": \"c2\", \"api\": \"Fetch\", \"delay.ms\": 3,"
        " \"after.ms\": 5}]}";
    char *resolved = resolved_text(json);
    run a = run_text(json, NULL, 0, KS_TL_RECORD);
    run b = run_text(resolved, NULL, 0, KS_TL_RECORD);
    assert_int_equal(count_strikes(&a), 2);
    const char *drop = find_line(&a, "fault", "type", "drop.response", 0);
    assert_true(line_str_is(drop, "consumer", "c2"));
    assert_true(line_str_is(find_line(&a, "fault", "type", "delay.request", 0), "consumer", "c2"));
    assert_int_equal(a.nlines, b.nlines);
    for (size_t i = 1; i < a.nlines; i++) {
        if (strcmp(a.lines[i], b.lines[i]) != 0)
            print_error("line %zu differs:\n  %s\n  %s\n", i + 1, a.lines[i], b.lines[i]);
        assert_string_equal(a.lines[i], b.lines[i]);
    }
    free(resolved);
    run_free(&a);
    run_free(&b);
}

/* The requests fault number `fault` strikes, in order ("t:request"). */
static void strikes_of(const run *r, int64_t fault, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < r->nlines; i++) {
        const char *l = r->lines[i];
        if (!line_is(l, "fault") || !line_has(l, "what") || line_int(l, "fault") != fault)
            continue;
        len += (size_t)snprintf(out + len, cap - len, "%" PRId64 ":%" PRId64 " ",
                                line_int(l, "t"), line_int(l, "request"));
        assert_true(len < cap);
    }
}

/* The name of the fault's stream: the one "fault." stream the header
 * lists after `skip` others. */
static void fault_stream(const run *r, size_t skip, char *out, size_t cap)
{
    const char *p = r->lines[0];
    for (size_t k = 0; k <= skip; k++) {
        p = strstr(p, "{\"name\":\"fault.");
        assert_non_null(p);
        p += strlen("{\"name\":\"");
    }
    size_t n = strcspn(p, "\"");
    assert_true(n < cap);
    memcpy(out, p, n);
    out[n] = '\0';
}

/* Two request.loss faults on 100 acks=0 requests; then the second alone.
 * Its stream is named by its content (or by its "name"), not by its
 * place: without the first it keeps its stream, so it loses the same
 * segments of the same requests at the same times. */
static void loss_survives_removal(const char *first, const char *second, const char *want)
{
    char both[512], alone[512];
    snprintf(both, sizeof both, "[%s, %s]", first, second);
    snprintf(alone, sizeof alone, "[%s]", second);
    ks_override o[] = {{"producers.p1.config.acks", "0"},
                       {"producers.p1.workload.records", "100"},
                       {"faults", both}};
    run a = run_text(BASE, o, 3, KS_TL_BATCH);
    o[2].value = alone;
    run b = run_text(BASE, o, 3, KS_TL_BATCH);
    char sa[64], sb[64];
    fault_stream(&a, 1, sa, sizeof sa);
    fault_stream(&b, 0, sb, sizeof sb);
    assert_string_equal(sa, sb);
    if (want)
        assert_string_equal(sa, want);
    static char ka[8192], kb[8192];
    strikes_of(&a, 1, ka, sizeof ka);
    strikes_of(&b, 0, kb, sizeof kb);
    assert_true(sum_int(&b, "faults.0.hits") > 10); /* enough draws to tell streams apart */
    assert_int_equal(sum_int(&a, "faults.1.hits"), sum_int(&b, "faults.0.hits"));
    assert_string_equal(ka, kb);
    assert_true(sum_int(&a, "faults.0.hits") > 0);
    run_free(&a);
    run_free(&b);
}

static void test_loss_stream_survives_removal(void **state)
{
    (void)state;
    /* by content: FNV-1a 64 of {"from.ms":0,"probability":0.5,"type":"request.loss"} */
    loss_survives_removal("{\"type\": \"request.loss\", \"probability\": 0.3}",
                          "{\"type\": \"request.loss\", \"probability\": 0.5}",
                          "fault.3bceb8c66f5ddda7");
    /* by name */
    loss_survives_removal("{\"type\": \"request.loss\", \"probability\": 0.3, \"name\": \"first\"}",
                          "{\"type\": \"request.loss\", \"probability\": 0.5, \"name\": \"second\"}",
                          "fault.second");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drop_response_retry_duplicates),
        cmocka_unit_test(test_request_timeout_error_name),
        cmocka_unit_test(test_drop_request_acks_zero_lost),
        cmocka_unit_test(test_delay_response_head_of_line),
        cmocka_unit_test(test_delay_request_in_order),
        cmocka_unit_test(test_append_error_retriable_exhausted),
        cmocka_unit_test(test_append_error_not_retriable),
        cmocka_unit_test(test_after_append_duplicates),
        cmocka_unit_test(test_backoff_by_version),
        cmocka_unit_test(test_delivery_timeout_in_flight),
        cmocka_unit_test(test_request_loss_window),
        cmocka_unit_test(test_request_loss_deterministic),
        cmocka_unit_test(test_link_down_recovery),
        cmocka_unit_test(test_link_down_breaks_connection),
        cmocka_unit_test(test_pause_broker),
        cmocka_unit_test(test_pause_producer),
        cmocka_unit_test(test_pause_producer_backlog),
        cmocka_unit_test(test_idempotent_init_and_sequences),
        cmocka_unit_test(test_init_producer_id_fault),
        cmocka_unit_test(test_count_and_partition_selector),
        cmocka_unit_test(test_config_exception),
        cmocka_unit_test(test_all_faults_invariants),
        cmocka_unit_test(test_resolved_consumer_fault_same_trace),
        cmocka_unit_test(test_loss_stream_survives_removal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
