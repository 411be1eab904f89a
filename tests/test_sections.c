/*
 * test_sections.c - each model's scenario section on its own: loaded
 * through the generic loader into a bare scenario, with only the sections
 * it depends on loaded before it, then written back. For each, a good
 * section (the values land where the models read them, and the resolved
 * JSON says so) and a bad one (the exact message, path included).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/check/expect_section.h"
#include "models/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    ks_diag diag;
    ks_conf conf;
    json_t *doc;
    ks_scenario *sc;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    f->sc = calloc(1, sizeof *f->sc);
    if (!f->sc)
        return -1;
    ks_kafka_version_parse(KS_KAFKA_VERSION_DEFAULT, &f->sc->kafka_version);
    ks_diag_init(&f->diag);
    ks_conf_init(&f->conf, "t.json", &f->diag);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    ks_conf_release(&f->conf);
    json_decref(f->doc);
    ks_scenario_free(f->sc);
    free(f);
    return 0;
}

/* The document the sections read, as "t.json". */
static json_t *doc(fixture *f, const char *text)
{
    json_error_t je;
    f->doc = json_loads(text, 0, &je);
    assert_non_null(f->doc);
    return f->doc;
}

static void expect_none(const fixture *f)
{
    if (f->diag.count != 0)
        print_error("want no message\n got %u: %s\n", f->diag.count, ks_diag_first(&f->diag));
    assert_int_equal(f->diag.count, 0);
}

/* The only message is `want`. */
static void expect_one(const fixture *f, const char *want)
{
    if (f->diag.count != 1 || strcmp(ks_diag_first(&f->diag), want) != 0)
        print_error("want %s\n got %u: %s\n", want, f->diag.count, ks_diag_first(&f->diag));
    assert_int_equal(f->diag.count, 1);
    assert_string_equal(ks_diag_first(&f->diag), want);
}

/* `j` (then released) rendered compactly with sorted keys is `want`. */
static void expect_json(json_t *j, const char *want)
{
    assert_non_null(j);
    char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    json_decref(j);
    assert_non_null(s);
    if (strcmp(s, want) != 0)
        print_error("want %s\n got %s\n", want, s);
    assert_string_equal(s, want);
    free(s);
}

/* ---- brokers, topics, admin (models/broker/) ---------------------------- */

static void brokers_good(void **state)
{
    fixture *f = *state;
    json_t *root = doc(f, "{\"brokers\": {\"count\": 3, \"cost\": {\"request.us\": 5}, "
                          "\"overrides\": [{\"id\": 2, \"cost\": {\"batch.us\": 1.5}}]}}");
    ks_broker_section_load(&f->conf, root, f->sc);
    expect_none(f);
    assert_int_equal(f->sc->broker_count, 3);
    assert_int_equal(f->sc->broker_costs[1].request_ns, 5000);
    assert_int_equal(f->sc->broker_costs[2].batch_ns, 1500);
    assert_true(f->sc->broker_overridden[2] && !f->sc->broker_overridden[1]);
    json_t *j = ks_broker_section_json(f->sc);
    expect_json(json_incref(json_object_get(j, "overrides")),
                "[{\"cost\":{\"batch.us\":1.5,\"byte.ns\":1,\"request.us\":5,"
                "\"response.delay.ms\":0,\"txn.log.write.ms\":1},\"id\":2}]");
    json_decref(j);
}

static void brokers_bad(void **state)
{
    fixture *f = *state;
    json_t *root = doc(f, "{\"brokers\": {\"count\": 2, \"overrides\": "
                          "[{\"id\": 1, \"cost\": {}}, {\"id\": 1, \"cost\": {}}]}}");
    ks_broker_section_load(&f->conf, root, f->sc);
    expect_one(f, "t.json: $.brokers.overrides[1].id: broker 1 is overridden twice");
}

static void topics_good(void **state)
{
    fixture *f = *state;
    json_t *root = doc(f, "{\"topics\": [{\"name\": \"a\", \"partitions\": 4}], "
                          "\"admin\": [{\"at.ms\": 5, \"create.partitions\": "
                          "{\"topic\": \"a\", \"total\": 6}}]}");
    f->sc->broker_count = 1;
    ks_topic_section_load(&f->conf, root, f->sc);
    ks_admin_section_load(&f->conf, root, f->sc);
    expect_none(f);
    assert_int_equal(f->sc->topics[0].partitions, 4);
    assert_int_equal(f->sc->topics[0].max_partitions, 6);
    expect_json(ks_topic_section_json(f->sc),
                "[{\"name\":\"a\",\"partitions\":4,\"replication.factor\":1}]");
    expect_json(ks_admin_section_json(f->sc),
                "[{\"at.ms\":5,\"create.partitions\":{\"topic\":\"a\",\"total\":6}}]");
}

static void topics_bad(void **state)
{
    fixture *f = *state;
    json_t *root = doc(f, "{\"topics\": [{\"name\": \"a\", \"partitions\": 4}], "
                          "\"admin\": [{\"create.partitions\": {\"topic\": \"a\", \"total\": 3}}]}");
    f->sc->broker_count = 1;
    ks_topic_section_load(&f->conf, root, f->sc);
    ks_admin_section_load(&f->conf, root, f->sc);
    expect_one(f, "t.json: $.admin[0].create.partitions.total: topic \"a\" has 4 partitions by "
                  "then; partitions can only be added (Kafka: INVALID_PARTITIONS)");
}

/* ---- network, faults (models/net/) ------------------------------------- */

static void network_good(void **state)
{
    fixture *f = *state;
    json_t *root = doc(f, "{\"network\": {\"latency\": {\"dist\": \"uniform\", \"min.ms\": 1, "
                          "\"max.ms\": 2.5}, \"bandwidth.mbps\": 100}}");
    ks_network_section_load(&f->conf, root, f->sc);
    expect_none(f);
    assert_int_equal(f->sc->network.latency.b_ns, 2500000);
    assert_int_equal(f->sc->network.bandwidth_bps, 100000000);
    expect_json(ks_network_section_json(f->sc),
                "{\"bandwidth.mbps\":100,\"latency\":{\"dist\":\"uniform\",\"max.ms\":2.5,"
                "\"min.ms\":1}}");
}

static void network_bad(void **state)
{
    fixture *f = *state;
    json_t *root = doc(f, "{\"network\": {\"latency\": {\"dist\": \"uniform\", \"min.ms\": 3, "
                          "\"max.ms\": 2}}}");
    ks_network_section_load(&f->conf, root, f->sc);
    expect_one(f, "t.json: $.network.latency: max.ms must be >= min.ms");
}

/* The sections a fault can name: one broker, topic "events", producer p1. */
static void load_clients(fixture *f, json_t *root)
{
    f->sc->broker_count = 1;
    ks_topic_section_load(&f->conf, root, f->sc);
    ks_producer_section_load(&f->conf, root, f->sc);
    ks_admin_section_load(&f->conf, root, f->sc);
    ks_consumer_section_load(&f->conf, root, f->sc);
}

static void faults_good(void **state)
{
    fixture *f = *state;
    json_t *root = doc(f, "{\"producers\": [{\"id\": \"p1\"}], \"faults\": [{\"type\": "
                          "\"drop.response\", \"producer\": \"p1\", \"partition\": \"events-0\"}]}");
    load_clients(f, root);
    ks_fault_section_load(&f->conf, root, f->sc);
    expect_none(f);
    assert_int_equal(f->sc->faults[0].producer, 0);
    assert_int_equal(f->sc->faults[0].partition, 0);
    expect_json(ks_fault_section_json(f->sc),
                "[{\"after.ms\":0,\"api\":\"Produce\",\"count\":1,\"partition\":\"events-0\","
                "\"producer\":\"p1\",\"type\":\"drop.response\"}]");
}

static void faults_bad(void **state)
{
    fixture *f = *state;
    json_t *root = doc(f, "{\"producers\": [{\"id\": \"p1\"}], "
                          "\"faults\": [{\"type\": \"drop.requst\"}]}");
    load_clients(f, root);
    ks_fault_section_load(&f->conf, root, f->sc);
    expect_one(f, "t.json: $.faults[0].type: unknown fault type \"drop.requst\" (did you mean "
                  "\"drop.request\"?)");
}

/* ---- producers and their workload (models/producer/) ------------------- */

static void producers_good(void **state)
{
    fixture *f = *state;
    json_t *root = doc(f, "{\"producers\": [{\"id\": \"a\", \"config\": {\"compression.type\": "
                          "\"gzip\"}, \"workload\": {\"key\": [\"k\", null]}}]}");
    load_clients(f, root);
    expect_none(f);
    const ks_producer_conf *pc = &f->sc->producers[0];
    assert_true(pc->compression.ratio == 0.25);
    assert_int_equal(pc->workload.key_count, 2);
    assert_null(pc->workload.keys[1]);
    expect_json(ks_workload_json(&pc->workload),
                "{\"arrival\":\"constant\",\"key\":[\"k\",null],\"rate.per.sec\":1000,"
                "\"records\":10,\"start.ms\":0,\"value.bytes\":100}");
}

static void producers_bad(void **state)
{
    fixture *f = *state;
    json_t *root = doc(f, "{\"producers\": [{\"id\": \"a\"}, {\"id\": \"a\"}]}");
    load_clients(f, root);
    expect_one(f, "t.json: $.producers[1].id: producer id \"a\" is used twice");
}

static void workload_bad(void **state)
{
    fixture *f = *state;
    json_t *obj = doc(f, "{\"burst.records\": 3}");
    ks_workload_conf w;
    memset(&w, 0, sizeof w);
    ks_workload_load(&f->conf, obj, &w);
    ks_workload_free(&w);
    expect_one(f, "t.json: $: burst.records and burst.interval.ms need \"arrival\": \"burst\"");
}

/* ---- consumers (models/consumer/) -------------------------------------- */

static void consumers_good(void **state)
{
    fixture *f = *state;
    json_t *root = doc(f, "{\"producers\": [{\"id\": \"p1\"}], \"consumers\": [{\"id\": \"c\", "
                          "\"forward.to\": \"p1\", \"isolation.level\": \"read_committed\"}]}");
    load_clients(f, root);
    expect_none(f);
    assert_int_equal(f->sc->consumers[0].forward_to, 0);
    assert_true(f->sc->consumers[0].read_committed);
    json_t *j = ks_consumer_section_json(f->sc);
    expect_json(json_incref(json_object_get(json_array_get(j, 0), "group.id")), "\"c\"");
    json_decref(j);
}

static void consumers_bad(void **state)
{
    fixture *f = *state;
    json_t *root = doc(f, "{\"producers\": [{\"id\": \"p1\"}], \"consumers\": [{\"commit\": "
                          "\"transaction\", \"forward.to\": \"p1\"}]}");
    load_clients(f, root);
    expect_one(f, "t.json: $.consumers[0].commit: \"transaction\" commits the offsets with a "
                  "transactional producer's transaction: give \"forward.to\" a producer with a "
                  "transactional.id");
}

/* ---- expect (models/check/) -------------------------------------------- */

static void expect_good(void **state)
{
    fixture *f = *state;
    json_t *root = doc(f, "{\"expect\": {\"verdict\": \"ok\", \"duplicates\": {\"<=\": 0}}}");
    ks_expect_section_load(&f->conf, root, f->sc);
    expect_none(f);
    expect_json(ks_expect_section_json(f->sc), "{\"duplicates\":{\"<=\":0},\"verdict\":\"ok\"}");
}

static void expect_bad(void **state)
{
    fixture *f = *state;
    json_t *root = doc(f, "{\"expect\": {\"duplicates\": {\"<=\": \"x\"}}}");
    ks_expect_section_load(&f->conf, root, f->sc);
    expect_one(f, "t.json: $.expect.duplicates.<=: expected a number to compare with, got \"x\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(brokers_good, setup, teardown),
        cmocka_unit_test_setup_teardown(brokers_bad, setup, teardown),
        cmocka_unit_test_setup_teardown(topics_good, setup, teardown),
        cmocka_unit_test_setup_teardown(topics_bad, setup, teardown),
        cmocka_unit_test_setup_teardown(network_good, setup, teardown),
        cmocka_unit_test_setup_teardown(network_bad, setup, teardown),
        cmocka_unit_test_setup_teardown(faults_good, setup, teardown),
        cmocka_unit_test_setup_teardown(faults_bad, setup, teardown),
        cmocka_unit_test_setup_teardown(producers_good, setup, teardown),
        cmocka_unit_test_setup_teardown(producers_bad, setup, teardown),
        cmocka_unit_test_setup_teardown(workload_bad, setup, teardown),
        cmocka_unit_test_setup_teardown(consumers_good, setup, teardown),
        cmocka_unit_test_setup_teardown(consumers_bad, setup, teardown),
        cmocka_unit_test_setup_teardown(expect_good, setup, teardown),
        cmocka_unit_test_setup_teardown(expect_bad, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
