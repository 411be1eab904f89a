/*
 * test_actors.c - nodes as actors: a lost message is a silence that only
 * its sender's own timeout finds, and every node kind recovers from it;
 * a paused broker runs none of its events in any role.
 *
 *   every API each node kind sends (the producers': Produce, Metadata,
 *   InitProducerId, FindCoordinator, AddPartitionsToTxn, AddOffsetsToTxn,
 *   TxnOffsetCommit, EndTxn; the consumers': FindCoordinator,
 *   OffsetFetch, ListOffsets, Fetch, OffsetCommit; the brokers':
 *   WriteTxnMarkers, AddPartitionsToTxn), with its first request lost
 *   and, in another run, its first answer lost: the run completes with
 *   what the same run without the fault delivers;
 *   a lost OffsetFetch answer of two-consumer-groups (the consumer was
 *   stuck for the whole run), an OffsetFetch answer delayed past the
 *   request timeout (given up at 30 s, its late answer ignored);
 *   pause.broker on a transaction coordinator (its log writes and
 *   answers waited for the pause, as its Produce handling did).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/harness.h"

#include "models/net/client.h"
#include "models/net/network.h"
#include "models/net/wire.h"
#include "models/world.h"
#include "sim/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS INT64_C(1000000)
#define S (1000 * MS)

/* Two brokers; an idempotent source producer (topic in), a consume-
 * transform-produce application (consumer stream reads in, producer app
 * writes out in transactions, the offsets in the transaction), a
 * consumer of out committing with commitSync (audit), and a producer
 * (meta) whose topic gains a partition at 50 ms, so that it refreshes
 * its metadata. Kafka 3.9: leaders verify transactional batches with
 * the coordinator (AddPartitionsToTxn v4). */
#define ACTORS                                                                                  \
    "{\"scenario.format\": 1, \"name\": \"actors\", \"seed\": 1, \"kafka.version\": \"3.9\","  \
    " \"brokers\": {\"count\": 2}, \"network\": {\"latency.ms\": 1, \"bandwidth.mbps\": 1000},"  \
    " \"topics\": [{\"name\": \"in\", \"partitions\": 1}, {\"name\": \"out\", \"partitions\": 1},"\
    " {\"name\": \"side\", \"partitions\": 1}],"                                                 \
    " \"producers\": ["                                                                         \
    "  {\"id\": \"source\", \"topic\": \"in\", \"config\": {\"enable.idempotence\": true},"      \
    "   \"workload\": {\"records\": 20, \"rate.per.sec\": 100, \"value.bytes\": 100}},"          \
    "  {\"id\": \"app\", \"topic\": \"out\", \"config\": {\"transactional.id\": \"ctp\"},"       \
    "   \"workload\": {\"records\": 0, \"value.bytes\": 120}, \"transactions\": {\"records\": 1}}," \
    "  {\"id\": \"meta\", \"topic\": \"side\", \"config\": {\"metadata.max.age.ms\": 20},"      \
    "   \"workload\": {\"records\": 5, \"rate.per.sec\": 50, \"value.bytes\": 100}}],"           \
    " \"consumers\": ["                                                                         \
    "  {\"id\": \"stream\", \"topic\": \"in\", \"isolation.level\": \"read_committed\","         \
    "   \"auto.offset.reset\": \"earliest\", \"group.id\": \"ctp\", \"poll.interval.ms\": 10,"   \
    "   \"max.poll.records\": 5, \"process.us\": 2000, \"commit\": \"transaction\","             \
    "   \"forward.to\": \"app\"},"                                                              \
    "  {\"id\": \"audit\", \"topic\": \"out\", \"isolation.level\": \"read_committed\","         \
    "   \"auto.offset.reset\": \"earliest\", \"group.id\": \"audit\", \"poll.interval.ms\": 10," \
    "   \"commit\": \"sync\"}],"                                                                \
    " \"admin\": [{\"at.ms\": 50, \"create.partitions\": {\"topic\": \"side\", \"total\": 2}}]}"

/* What the run delivers without a fault, and must still deliver with
 * one message lost: every record acknowledged, everything in the logs
 * read by the consumers, which committed past it, and the transactional
 * state complete. (A lost message may still leave anomalies Kafka
 * gives too: a lost first Produce of an idempotent producer with 5
 * requests in flight lets the later ones in, the retry is refused with
 * OUT_OF_ORDER_SEQUENCE_NUMBER, and the epoch bump that follows writes
 * the discarded ones again.) */
static void assert_delivered(run *r, const char *what)
{
    if (strcmp(sum_str(r, "verdict"), "complete") != 0)
        fail_msg("%s: verdict %s", what, sum_str(r, "verdict"));
    if (sum_int(r, "producers.source.acked") != 20 || sum_int(r, "producers.meta.acked") != 5)
        fail_msg("%s: %lld and %lld records acked", what,
                 (long long)sum_int(r, "producers.source.acked"),
                 (long long)sum_int(r, "producers.meta.acked"));
    if (sum_int(r, "records.failed") != 0 || sum_int(r, "records.unresolved") != 0)
        fail_msg("%s: %lld failed, %lld unresolved", what, (long long)sum_int(r, "records.failed"),
                 (long long)sum_int(r, "records.unresolved"));
    if (sum_int(r, "consumers.audit.records") != sum_int(r, "partitions.out-0.records"))
        fail_msg("%s: audit read %lld", what, (long long)sum_int(r, "consumers.audit.records"));
    if (sum_int(r, "consumers.audit.committed.out-0") != sum_int(r, "partitions.out-0.log_end_offset"))
        fail_msg("%s: audit committed %lld of %lld", what,
                 (long long)sum_int(r, "consumers.audit.committed.out-0"),
                 (long long)sum_int(r, "partitions.out-0.log_end_offset"));
    if (sum_int(r, "consumers.stream.committed.in-0") != sum_int(r, "partitions.in-0.log_end_offset"))
        fail_msg("%s: stream committed %lld", what,
                 (long long)sum_int(r, "consumers.stream.committed.in-0"));
    if (strcmp(sum_str(r, "transactions.ctp.state"), "CompleteCommit") != 0)
        fail_msg("%s: transaction %s", what, sum_str(r, "transactions.ctp.state"));
    if (sum_int(r, "delivery.lost") != 0 || sum_int(r, "delivery.precommitted_read") != 0 ||
        sum_int(r, "delivery.aborted_read") != 0)
        fail_msg("%s: %lld lost, %lld precommitted, %lld aborted reads", what,
                 (long long)sum_int(r, "delivery.lost"),
                 (long long)sum_int(r, "delivery.precommitted_read"),
                 (long long)sum_int(r, "delivery.aborted_read"));
}

static void test_actors_baseline(void **state)
{
    (void)state;
    run r = run_text(ACTORS, NULL, 0, KS_TL_BATCH);
    assert_delivered(&r, "no fault");
    assert_true(sum_bool(&r, "delivery.ok"));
    assert_int_equal(sum_int(&r, "records.acked"), 45);
    assert_true(sum_int(&r, "time_ns") < 1 * S);
    assert_int_equal(sum_int(&r, "partitions.side-0.records") +
                         sum_int(&r, "partitions.side-1.records"), 5);
    run_free(&r);
}

typedef struct lost_case {
    const char *api;
    const char *client_key; /* "producer", "consumer", or NULL: a broker */
    const char *client;
    const char *version;    /* kafka.version, NULL: the scenario's */
} lost_case;

static const lost_case lost_cases[] = {
    {"Produce", "producer", "source", NULL},
    {"Metadata", "producer", "meta", NULL},
    {"InitProducerId", "producer", "source", NULL},
    {"InitProducerId", "producer", "app", NULL},
    {"FindCoordinator", "producer", "app", NULL},
    {"AddPartitionsToTxn", "producer", "app", NULL},
    {"AddOffsetsToTxn", "producer", "app", NULL},
    {"TxnOffsetCommit", "producer", "app", NULL},
    {"EndTxn", "producer", "app", NULL},
    {"FindCoordinator", "consumer", "stream", NULL},
    {"OffsetFetch", "consumer", "stream", NULL},
    {"OffsetFetch", "consumer", "audit", NULL},
    {"ListOffsets", "consumer", "audit", NULL},
    {"Fetch", "consumer", "stream", NULL},
    {"Fetch", "consumer", "audit", NULL},
    {"OffsetCommit", "consumer", "audit", NULL},
    {"WriteTxnMarkers", NULL, NULL, NULL},
    /* 4.0: the leader adds the partition to the transaction
     * (AddPartitionsToTxn v5, KIP-890); the producer sends none */
    {"AddPartitionsToTxn", NULL, NULL, "\"4.0\""},
};

/* Runs the actors scenario with the first request of the case (or its
 * answer) dropped: it must deliver what the run without the fault does,
 * the sender having found the silence by its own request.timeout.ms. */
static void run_lost(const lost_case *c, const char *type)
{
    char fault[256], what[128];
    if (c->client_key)
        snprintf(fault, sizeof fault, "[{\"type\": \"%s\", \"api\": \"%s\", \"%s\": \"%s\"}]",
                 type, c->api, c->client_key, c->client);
    else
        snprintf(fault, sizeof fault, "[{\"type\": \"%s\", \"api\": \"%s\"}]", type, c->api);
    snprintf(what, sizeof what, "%s of %s (%s)", type, c->api, c->client ? c->client : "a broker");
    ks_override o[] = {{"faults", fault}, {"kafka.version", c->version}};
    run r = run_text(ACTORS, o, c->version ? 2 : 1, KS_TL_BATCH);
    if (sum_int(&r, "faults.0.hits") != 1)
        fail_msg("%s: %lld hits", what, (long long)sum_int(&r, "faults.0.hits"));
    assert_delivered(&r, what);
    run_free(&r);
}

static void test_lost_requests(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof lost_cases / sizeof lost_cases[0]; i++)
        run_lost(&lost_cases[i], "drop.request");
}

static void test_lost_responses(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof lost_cases / sizeof lost_cases[0]; i++)
        run_lost(&lost_cases[i], "drop.response");
}

/* A consumer numbers its requests per API too: with several producers,
 * naming the consumer says whose "request" it is (it was refused: "say
 * which producer"). Its second fetch lost, audit still reads everything. */
static void test_consumer_request_number(void **state)
{
    (void)state;
    ks_override o[] = {{"faults", "[{\"type\": \"drop.request\", \"api\": \"Fetch\","
                                  " \"consumer\": \"audit\", \"request\": 2}]"}};
    run r = run_text(ACTORS, o, 1, KS_TL_BATCH);
    assert_int_equal(sum_int(&r, "faults.0.hits"), 1);
    assert_delivered(&r, "second fetch of audit lost");
    run_free(&r);
}

/* The scenario file's text. */
static char *scenario_text(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/%s.json", source_dir(), name);
    char *text = read_whole(path);
    assert_non_null(text);
    return text;
}

/* two-consumer-groups with billing's OffsetFetch answer lost: billing
 * hears nothing, its request.timeout.ms (30 s) closes the connection, it
 * asks again and reads all 20 records (it was stuck for the whole run,
 * 0 polls, while a lost request recovered). */
static void test_lost_offset_fetch_answer(void **state)
{
    (void)state;
    char *text = scenario_text("two-consumer-groups");
    ks_override o[] = {{"faults", "[{\"type\": \"drop.response\", \"api\": \"OffsetFetch\","
                                  " \"consumer\": \"billing\"}]"}};
    run r = run_text(text, o, 1, KS_TL_RECORD);
    assert_int_equal(sum_int(&r, "faults.0.hits"), 1);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    assert_int_equal(sum_int(&r, "consumers.billing.records"), 20);
    assert_int_equal(sum_int(&r, "consumers.billing.committed.events-0"), 20);
    assert_true(sum_int(&r, "consumers.billing.polls") > 0);
    /* it read nothing before its timeout, everything after */
    const char *first = find_line(&r, "consume", "consumer", "billing", 0);
    assert_non_null(first);
    assert_true(line_int(first, "t") >= 30 * S);
    run_free(&r);
    free(text);
}

/* The consumer refreshes its metadata as Kafka's NetworkClient does: its
 * request timeout closes the connection, and "we disconnected, so we
 * should probably refresh our metadata": a Metadata request goes out at
 * once (the last refresh, the start, is more than retry.backoff.ms ago),
 * answered, and no other in the run (metadata.max.age.ms is 5 min). */
static void test_consumer_metadata_refresh(void **state)
{
    (void)state;
    char *text = scenario_text("two-consumer-groups");
    ks_override o[] = {{"faults", "[{\"type\": \"drop.response\", \"api\": \"OffsetFetch\","
                                  " \"consumer\": \"billing\"}]"}};
    run r = run_text(text, o, 1, KS_TL_BATCH);
    const char *of;
    size_t k = 0;
    do
        of = find_line(&r, "send", "api", "OffsetFetch", k++);
    while (!line_str_is(of, "consumer", "billing"));
    /* at the timeout, 30 s after billing's OffsetFetch left, the
     * connection to its group coordinator closes, and the refresh leaves */
    const char *dc = find_line(&r, "disconnect", "consumer", "billing", 0);
    assert_int_equal(line_int(dc, "t"), line_int(of, "t") + 30 * S);
    assert_true(line_str_is(dc, "channel", "coordinator"));
    assert_int_equal(line_int(dc, "in_flight"), 1);
    assert_int_equal(line_int(dc, "broker"), 0);
    assert_int_equal(count_ev(&r, "disconnect"), 1);
    const char *md = find_line(&r, "send", "api", "Metadata", 0);
    assert_true(line_str_is(md, "consumer", "billing"));
    assert_int_equal(line_int(md, "t"), line_int(dc, "t"));
    const char *ans = find_line(&r, "response", "api", "Metadata", 0);
    assert_non_null(ans);
    assert_true(line_str_is(ans, "consumer", "billing"));
    assert_true(line_str_is(ans, "error", "NONE"));
    assert_int_equal(count_with(&r, "send", "api", "Metadata"), 1);
    run_free(&r);
    /* without the fault, the run holds no refresh at all */
    r = run_text(text, NULL, 0, KS_TL_BATCH);
    assert_int_equal(count_with(&r, "send", "api", "Metadata"), 0);
    run_free(&r);
    free(text);
}

/* billing's OffsetFetch answer delayed by 60 s, twice its request
 * timeout: the consumer gives the request up at 30 s and asks again on a
 * new connection; the late answer, arriving at 60 s for a request no
 * longer in flight, is ignored (before, the consumer waited it out). */
static void test_late_answer_ignored(void **state)
{
    (void)state;
    char *text = scenario_text("two-consumer-groups");
    ks_override o[] = {{"faults", "[{\"type\": \"delay.response\", \"api\": \"OffsetFetch\","
                                  " \"consumer\": \"billing\", \"delay.ms\": 60000}]"}};
    run r = run_text(text, o, 1, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    assert_int_equal(sum_int(&r, "consumers.billing.records"), 20);
    const char *first = find_line(&r, "consume", "consumer", "billing", 0);
    assert_non_null(first);
    assert_true(line_int(first, "t") >= 30 * S && line_int(first, "t") < 31 * S);
    const char *last = find_line(&r, "consume", "consumer", "billing", 19);
    assert_non_null(last);
    assert_true(line_int(last, "t") < 31 * S);
    run_free(&r);
    free(text);
}

/* A transactional producer whose coordinator (broker 0, the only one) is
 * paused from 1.5 ms to 40 ms, while its InitProducerId's log write is
 * under way (brokers.cost.txn.log.write.ms 5): the write completes, and
 * the answer leaves, only when the pause ends. Before, the coordinator's
 * events went on while the broker was paused. */
static void test_pause_broker_coordinator(void **state)
{
    (void)state;
    char *text = scenario_text("seed-transaction-commit");
    ks_override o[] = {{"faults", "[{\"type\": \"pause.broker\", \"broker\": 0,"
                                  " \"from.ms\": 3.5, \"to.ms\": 40}]"},
                       {"brokers.cost.txn.log.write.ms", "5"}};
    run r = run_text(text, o, 2, KS_TL_RECORD);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    int64_t from = 3500000, to = 40 * MS;
    size_t txns = count_ev(&r, "txn");
    assert_true(txns > 0);
    for (size_t k = 0; k < txns; k++) {
        int64_t t = line_int(nth(&r, "txn", k), "t");
        if (t > from && t < to)
            fail_msg("a coordinator's state moved at %lld, inside the pause", (long long)t);
    }
    for (size_t k = 0; k < count_ev(&r, "response"); k++) {
        int64_t t = line_int(nth(&r, "response", k), "t");
        if (t > from + 2 * MS && t < to)
            fail_msg("an answer reached a client at %lld, inside the pause", (long long)t);
    }
    /* the first state change (InitProducerId's Empty) waited for the end */
    assert_true(line_int(nth(&r, "txn", 0), "t") >= to);
    assert_string_equal(sum_str(&r, "transactions.tx-1.state"), "CompleteCommit");
    run_free(&r);
    free(text);
}

/* ---- a node kind that plugs in --------------------------------------------- */

/* A node of a kind ksim does not have, built from its operations alone:
 * every interval it asks broker 0 for the metadata of topic 0, over its
 * own connection, with a request timeout of its own (models/net/client.h).
 * The network, the world's routing and the faults take it as they take
 * every node. */
typedef struct pinger {
    ks_node node;
    const char *name;
    uint32_t pings, sent, answered, given_up;
    uint32_t leaders;        /* partitions the last answer listed */
    ks_time interval_ns, first_answer_ns;
    ks_client_conn cc;
} pinger;

#define PING 1u
#define PING_TIMEOUT 2u
#define PING_TIMEOUT_NS (30 * S)

static ks_event ping_event(const pinger *pg, uint32_t tag)
{
    return (ks_event){.kind = KS_EV_TIMER, .owner = pg->node, .tag = tag};
}

static void ping_start(void *self, ks_ctx *cx)
{
    pinger *pg = self;
    ks_event ev = ping_event(pg, PING);
    ks_sim_schedule(&cx->sim, MS, &ev);
}

static void ping(pinger *pg, ks_ctx *cx)
{
    if (pg->cc.conn == KS_CLIENT_NONE)
        pg->cc.conn = ks_net_connect(cx->net, pg->node, 0);
    uint32_t id = ks_request_alloc(&cx->reqs);
    assert_true(id != KS_REQ_NONE);
    ks_request *q = ks_req(&cx->reqs, id);
    q->api = KS_API_METADATA;
    q->version = 12;
    q->client = pg->node;
    q->server = 0;
    q->client_id = pg->name;
    q->conn = pg->cc.conn;
    q->correlation_id = ++pg->sent;
    q->expects_response = true;
    q->producer_id = -1;
    q->topic = 0;
    q->request_bytes = 40;
    q->sent_ns = ks_sim_now(&cx->sim);
    q->refs++; /* the pinger's hold */
    ks_event t = ping_event(pg, PING_TIMEOUT);
    assert_true(ks_client_sent(&pg->cc, &cx->sim, id, q->sent_ns, PING_TIMEOUT_NS, &t));
    (void)ks_wire_request(cx->wire, id);
    if (pg->sent < pg->pings) {
        ks_event ev = ping_event(pg, PING);
        ks_sim_schedule(&cx->sim, ks_sim_now(&cx->sim) + pg->interval_ns, &ev);
    }
}

static void ping_timer(void *self, ks_ctx *cx, const ks_event *ev)
{
    pinger *pg = self;
    if (ev->tag == PING) {
        ping(pg, cx);
        return;
    }
    ks_event t = ping_event(pg, PING_TIMEOUT);
    if (!ks_client_on_timer(&pg->cc, &cx->sim, PING_TIMEOUT_NS, &t))
        return;
    uint32_t n = ks_client_close(&pg->cc, &cx->sim);
    ks_net_reconnect(cx->net, pg->cc.conn);
    while (n-- > 0) {
        ks_request_unref(&cx->reqs, ks_client_take(&pg->cc));
        pg->given_up++;
    }
}

static void ping_answer(void *self, ks_ctx *cx, uint32_t msg, bool answer)
{
    pinger *pg = self;
    assert_true(answer);
    bool mine = ks_client_arrived(&pg->cc, msg);
    ks_request_unref(&cx->reqs, msg); /* the event's hold */
    if (!mine)
        return;
    for (uint32_t a; (a = ks_client_take_answered(&pg->cc)) != KS_CLIENT_NONE;) {
        const ks_request *q = ks_req(&cx->reqs, a);
        pg->leaders = q->nleaders;
        if (pg->answered++ == 0)
            pg->first_answer_ns = ks_sim_now(&cx->sim);
        ks_request_unref(&cx->reqs, a);
    }
    ks_event t = ping_event(pg, PING_TIMEOUT);
    ks_client_rearm(&pg->cc, &cx->sim, PING_TIMEOUT_NS, &t);
}

static const ks_node_ops pinger_ops = {
    .kind = "pinger",
    .start = ping_start,
    .on_message = ping_answer,
    .on_timer = ping_timer,
};

/* Runs the actors scenario with a pinger beside its nodes. */
static run run_pinger(pinger *pg, const char *faults)
{
    ks_diag *d = malloc(sizeof *d);
    assert_non_null(d);
    ks_diag_init(d);
    ks_override o[] = {{"faults", faults}};
    ks_scenario *sc = ks_scenario_parse("t.json", ACTORS, o, faults ? 1 : 0, false, 0, d);
    assert_non_null(sc);
    memset(pg, 0, sizeof *pg);
    pg->name = "pinger";
    pg->pings = 3;
    pg->interval_ns = MS;
    ks_client_conn_init(&pg->cc);
    ks_world_node more = {.ops = &pinger_ops, .self = pg, .name = pg->name};
    FILE *f = tmpfile();
    assert_non_null(f);
    ks_trace tr;
    ks_trace_init(&tr, f, KS_TL_BATCH);
    ks_world *w = ks_world_create_with(sc, &tr, d, &more, 1);
    assert_non_null(w);
    pg->node = ks_node_other(&w->nodes, 0);
    run r = run_world(w, &tr, f);
    ks_world_free(w);
    ks_client_conn_free(&pg->cc);
    ks_scenario_free(sc);
    free(d);
    return r;
}

/* It plugs in: its requests travel, are served and traced like any
 * node's (its name as their client), and are answered. */
static void test_node_kind_plugs_in(void **state)
{
    (void)state;
    pinger pg;
    run r = run_pinger(&pg, NULL);
    assert_string_equal(sum_str(&r, "verdict"), "complete");
    assert_int_equal(pg.sent, 3);
    assert_int_equal(pg.answered, 3);
    assert_int_equal(pg.leaders, 1);
    assert_int_equal(count_with(&r, "send", "client", "pinger"), 3);
    assert_int_equal(count_with(&r, "arrive", "client", "pinger"), 3);
    run_free(&r);
}

/* Faults take it as any node: its first answer dropped (a fault with no
 * client selector strikes the first Metadata answer, its), the answers
 * behind it wait, its own timeout gives all three up, and the run is
 * held open until then. A pause of broker 0 holds its answers back. */
static void test_node_kind_faults(void **state)
{
    (void)state;
    pinger pg;
    run r = run_pinger(&pg, "[{\"type\": \"drop.response\", \"api\": \"Metadata\","
                            " \"broker\": 0}]");
    assert_int_equal(pg.answered, 0);
    assert_int_equal(pg.given_up, 3);
    assert_true(sum_int(&r, "time_ns") >= PING_TIMEOUT_NS);
    run_free(&r);
    r = run_pinger(&pg, "[{\"type\": \"pause.broker\", \"broker\": 0, \"from.ms\": 0.5,"
                        " \"to.ms\": 40}]");
    assert_int_equal(pg.answered, 3);
    assert_true(pg.first_answer_ns >= 40 * MS);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_actors_baseline),
        cmocka_unit_test(test_lost_requests),
        cmocka_unit_test(test_lost_responses),
        cmocka_unit_test(test_consumer_request_number),
        cmocka_unit_test(test_lost_offset_fetch_answer),
        cmocka_unit_test(test_consumer_metadata_refresh),
        cmocka_unit_test(test_late_answer_ignored),
        cmocka_unit_test(test_pause_broker_coordinator),
        cmocka_unit_test(test_node_kind_plugs_in),
        cmocka_unit_test(test_node_kind_faults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
