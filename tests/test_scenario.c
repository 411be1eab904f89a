/*
 * test_scenario.c - the scenario loader: a table of bad scenarios and the
 * message each must produce, defaults per Kafka version, --set overrides,
 * and the resolved scenario as a rerunnable scenario.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P1 "\"producers\": [{\"id\": \"p1\"}]"

typedef struct bad_case {
    const char *what;
    const char *json;
    const char *set_path, *set_value; /* optional --set */
    const char *message;              /* must appear in some error */
} bad_case;

static const bad_case bad_cases[] = {
    {"syntax error, with line and column", "{\n  \"seed\": 1,\n  \"name\": \n}", NULL, NULL,
     "t.json:4:1: invalid JSON: "},
    {"not an object", "[1, 2]", NULL, NULL, "t.json: $: expected a scenario object"},
    {"duplicate key", "{\"seed\": 1, \"seed\": 2, " P1 "}", NULL, NULL, "duplicate object key"},
    {"unknown top-level key, suggestion", "{\"producer\": [{}]}", NULL, NULL,
     "t.json: $.producer: unknown key \"producer\" (did you mean \"producers\"?)"},
    {"no producers", "{\"seed\": 1}", NULL, NULL,
     "t.json: $.producers: missing: a scenario needs at least one producer"},
    {"unknown producer config, suggestion",
     "{\"producers\": [{\"config\": {\"linger.mss\": 5}}]}", NULL, NULL,
     "t.json: $.producers[0].config.linger.mss: unknown producer config \"linger.mss\" "
     "(did you mean \"linger.ms\"?)"},
    {"unknown producer config, no suggestion",
     "{\"producers\": [{\"config\": {\"fetch.min.bytes\": 5}}]}", NULL, NULL,
     "unknown producer config \"fetch.min.bytes\"; docs/scenario.md lists the supported keys"},
    {"wrong type", "{\"producers\": [{\"config\": {\"linger.ms\": \"five\"}}]}", NULL, NULL,
     "t.json: $.producers[0].config.linger.ms: expected an integer >= 0, got \"five\""},
    {"out of range",
     "{\"producers\": [{\"config\": {\"max.in.flight.requests.per.connection\": 0}}]}", NULL, NULL,
     "$.producers[0].config.max.in.flight.requests.per.connection: expected an integer from 1 "
     "to 2147483647, got 0"},
    {"fraction where an integer is due", "{\"producers\": [{\"config\": {\"batch.size\": 1.5}}]}",
     NULL, NULL, "expected an integer from 0 to 2147483647, got 1.5"},
    {"bad acks", "{\"producers\": [{\"config\": {\"acks\": \"2\"}}]}", NULL, NULL,
     "$.producers[0].config.acks: expected one of \"all\", \"-1\", \"0\", \"1\", got \"2\""},
    {"bad bool", "{\"producers\": [{\"config\": {\"enable.idempotence\": \"yes\"}}]}", NULL, NULL,
     "$.producers[0].config.enable.idempotence: expected true or false, got \"yes\""},
    {"config newer than kafka.version",
     "{\"kafka.version\": \"2.0\", \"producers\": [{\"config\": {\"delivery.timeout.ms\": 1}}]}",
     NULL, NULL, "producer config \"delivery.timeout.ms\" does not exist before Kafka 2.1"},
    {"unknown kafka version", "{\"kafka.version\": \"5.0\", " P1 "}", NULL, NULL,
     "t.json: $.kafka.version: expected a Kafka release from 2.0 to 4.1 such as \"3.9\" or "
     "\"3.0.0\", got \"5.0\""},
    {"kafka version as a number", "{\"kafka.version\": 3.9, " P1 "}", NULL, NULL,
     "t.json: $.kafka.version: expected a string, got 3.9"},
    {"negative seed", "{\"seed\": -1, " P1 "}", NULL, NULL,
     "t.json: $.seed: expected an integer >= 0, got -1"},
    {"topic that does not exist, suggestion",
     "{\"topics\": [{\"name\": \"events\"}], \"producers\": [{\"topic\": \"evnts\"}]}", NULL, NULL,
     "t.json: $.producers[0].topic: no topic \"evnts\" in topics (did you mean \"events\"?)"},
    {"replication factor above broker count",
     "{\"topics\": [{\"name\": \"a\", \"replication.factor\": 3}], " P1 "}", NULL, NULL,
     "replication factor 3 is larger than the 1 broker(s) of brokers.count (Kafka: "
     "INVALID_REPLICATION_FACTOR)"},
    {"invalid topic name", "{\"topics\": [{\"name\": \"a b\"}], " P1 "}", NULL, NULL,
     "t.json: $.topics[0].name: \"a b\" is not a valid Kafka topic name"},
    {"topic without a name", "{\"topics\": [{\"partitions\": 1}], " P1 "}", NULL, NULL,
     "t.json: $.topics[0].name: missing: every topic needs a name"},
    {"duplicate producer id", "{\"producers\": [{\"id\": \"a\"}, {\"id\": \"a\"}]}", NULL, NULL,
     "t.json: $.producers[1].id: producer id \"a\" is used twice"},
    {"unknown distribution", "{\"network\": {\"latency\": {\"dist\": \"normal\"}}, " P1 "}", NULL,
     NULL, "t.json: $.network.latency.dist: expected one of \"constant\", \"uniform\", "
           "\"exponential\", \"lognormal\", got \"normal\""},
    {"distribution missing", "{\"network\": {\"latency\": {\"ms\": 1}}, " P1 "}", NULL, NULL,
     "t.json: $.network.latency.dist: missing: one of \"constant\", \"uniform\", "
     "\"exponential\", \"lognormal\""},
    {"distribution parameter missing",
     "{\"network\": {\"latency\": {\"dist\": \"uniform\", \"min.ms\": 1}}, " P1 "}", NULL, NULL,
     "t.json: $.network.latency.max.ms: missing (a uniform distribution needs it)"},
    {"distribution key of another distribution",
     "{\"network\": {\"latency\": {\"dist\": \"constant\", \"ms\": 1, \"sigma\": 2}}, " P1 "}",
     NULL, NULL, "t.json: $.network.latency.sigma: unknown key \"sigma\""},
    {"latency twice", "{\"network\": {\"latency.ms\": 1, \"latency\": {\"dist\": \"constant\", "
                      "\"ms\": 1}}, " P1 "}",
     NULL, NULL, "give either \"latency.ms\" (constant) or \"latency\" (a distribution), not both"},
    {"negative latency", "{\"network\": {\"latency.ms\": -1}, " P1 "}", NULL, NULL,
     "t.json: $.network.latency.ms: expected a number >= 0 and <= 1e+12, got -1"},
    {"arrival typo", "{\"producers\": [{\"workload\": {\"arrival\": \"poison\"}}]}", NULL, NULL,
     "got \"poison\" (did you mean \"poisson\"?)"},
    {"zero rate", "{\"producers\": [{\"workload\": {\"rate.per.sec\": 0}}]}", NULL, NULL,
     "t.json: $.producers[0].workload.rate.per.sec: expected a number >= 1e-06 and <= 1e+09, "
     "got 0"},
    {"reserved section", "{\"replication\": {}, " P1 "}", NULL, NULL,
     "t.json: $.replication: \"replication\" is reserved by the scenario format for a model this ksim"},
    {"consumer isolation", "{\"consumers\": [{\"isolation.level\": \"read_comitted\"}], " P1 "}", NULL, NULL,
     "t.json: $.consumers[0].isolation.level: expected one of \"read_uncommitted\", \"read_committed\", got \"read_comitted\" (did you mean \"read_committed\"?)"},
    {"consumer partition twice", "{\"consumers\": [{\"partitions\": [0, 0]}], " P1 "}", NULL, NULL,
     "t.json: $.consumers[0].partitions[1]: partition 0 is listed twice"},
    {"consumer forward", "{\"consumers\": [{\"forward.to\": \"p9\"}], " P1 "}", NULL, NULL,
     "t.json: $.consumers[0].forward.to: no producer \"p9\" (did you mean \"p1\"?)"},
    {"transactions without id", "{\"producers\": [{\"id\": \"p1\", \"transactions\": {\"records\": 2}}]}", NULL, NULL,
     "t.json: $.producers[0].transactions: transactions need a transactional.id in the producer's config"},
    {"transaction end", "{\"producers\": [{\"id\": \"p1\", \"config\": {\"transactional.id\": \"t\"}, \"transactions\": {\"end\": [\"commit\", \"abrot\"]}}]}", NULL, NULL,
     "t.json: $.producers[0].transactions.end[1]: expected one of \"commit\", \"abort\", \"none\", got \"abrot\" (did you mean \"abort\"?)"},
    {"fault type", "{\"faults\": [{\"type\": \"drop.respons\"}], " P1 "}", NULL, NULL,
     "t.json: $.faults[0].type: unknown fault type \"drop.respons\" (did you mean \"drop.response\"?)"},
    {"fault key", "{\"faults\": [{\"type\": \"drop.response\", \"reqest\": 1}], " P1 "}", NULL, NULL,
     "t.json: $.faults[0].reqest: unknown key \"reqest\" (did you mean \"request\"?)"},
    {"fault producer", "{\"faults\": [{\"type\": \"drop.response\", \"producer\": \"p2\"}], " P1 "}", NULL, NULL,
     "t.json: $.faults[0].producer: no producer \"p2\" (did you mean \"p1\"?)"},
    {"fault partition", "{\"faults\": [{\"type\": \"drop.request\", \"partition\": \"events-3\"}], " P1 "}", NULL, NULL,
     "t.json: $.faults[0].partition: topic \"events\" has 1 partitions; there is no partition 3"},
    {"fault error", "{\"faults\": [{\"type\": \"append.error\", \"error\": \"NOT_ENOUGH_REPLICA\"}], " P1 "}", NULL, NULL,
     "t.json: $.faults[0].error: \"NOT_ENOUGH_REPLICA\" is not an error ksim injects (did you mean \"NOT_ENOUGH_REPLICAS\"?)"},
    {"fault api", "{\"faults\": [{\"type\": \"drop.request\", \"api\": \"InitProducerID\"}], " P1 "}", NULL, NULL,
     "t.json: $.faults[0].api: unknown API \"InitProducerID\" (did you mean \"InitProducerId\"?)"},
    {"fault api unlike any", "{\"faults\": [{\"type\": \"drop.request\", \"api\": \"Zzzzzzzzzzzz\"}], " P1 "}", NULL, NULL,
     "t.json: $.faults[0].api: unknown API \"Zzzzzzzzzzzz\": one of Produce, InitProducerId, FindCoordinator, AddPartitionsToTxn, EndTxn, WriteTxnMarkers, Fetch, ListOffsets, Metadata, OffsetCommit, OffsetFetch, AddOffsetsToTxn, TxnOffsetCommit"},
    {"fault without type", "{\"faults\": [{\"at.ms\": 1}], " P1 "}", NULL, NULL,
     "t.json: $.faults[0]: missing: \"type\", one of drop.request, drop.response, delay.request, delay.response, append.error, request.loss, response.loss, link.down, pause.broker, pause.producer, crash.producer, crash.consumer"},
    {"fault window", "{\"faults\": [{\"type\": \"link.down\", \"from.ms\": 5, \"to.ms\": 5}], " P1 "}", NULL, NULL,
     "t.json: $.faults[0].to.ms: the window ends before it begins"},
    {"fault missing", "{\"faults\": [{\"type\": \"pause.broker\", \"from.ms\": 1, \"to.ms\": 5}], " P1 "}", NULL, NULL,
     "t.json: $.faults[0]: missing: \"broker\", the broker to pause"},
    {"fault probability", "{\"faults\": [{\"type\": \"request.loss\", \"probability\": 1.5}], " P1 "}", NULL, NULL,
     "t.json: $.faults[0].probability: expected a number >= 0 and <= 1, got 1.5"},
    {"newer scenario format", "{\"scenario.format\": 2, " P1 "}", NULL, NULL,
     "t.json: $.scenario.format: format 2 is newer than this ksim"},
    {"expect mixes operators and keys",
     "{\"expect\": {\"records.acked\": {\"<=\": 5, \"x\": 1}}, " P1 "}", NULL, NULL,
     "t.json: $.expect.records.acked: mixes comparison operators with other keys"},
    {"expect compares with a string", "{\"expect\": {\"records.acked\": {\"<\": \"5\"}}, " P1 "}",
     NULL, NULL, "t.json: $.expect.records.acked.<: expected a number to compare with, got \"5\""},
    {"--set into nothing", "{" P1 "}", "producers.p9.config.acks", "0",
     "--set producers.p9.config.acks=0: \"p9\" matches nothing: no element has that id, name or "
     "index"},
    {"--set with bad JSON", "{" P1 "}", "topics", "[{", "--set topics=[{: the value is not valid JSON"},
    {"--set value of the wrong type", "{" P1 "}", "producers.p1.config.linger.ms", "soon",
     "t.json: $.producers[0].config.linger.ms: expected an integer >= 0, got \"soon\" "
     "(from --set producers.p1.config.linger.ms=soon)"},
    {"--set hex number", "{" P1 "}", "seed", "0x10",
     "t.json: $.seed: expected an integer >= 0, got \"0x10\" (from --set seed=0x10)"},
    {"--set number with a space", "{" P1 "}", "seed", " 7", "expected an integer >= 0, got \" 7\""},
    {"--set JSON with a duplicate key", "{" P1 "}", "brokers", "{\"count\": 1, \"count\": 3}",
     "--set brokers={\"count\": 1, \"count\": 3}: the value is not valid JSON: duplicate"},
    {"--set a dotted key beside an object of its first segment",
     "{\"network\": {\"latency\": {\"dist\": \"constant\", \"ms\": 1}}, " P1 "}",
     "network.latency.ms", "2.5",
     "give either \"latency.ms\" (constant) or \"latency\" (a distribution), not both"},
    {"version with a space", "{\"kafka.version\": \" 3.9\", " P1 "}", NULL, NULL,
     "expected a Kafka release from 2.0 to 4.1"},
    {"version with a sign", "{\"kafka.version\": \"+3.9\", " P1 "}", NULL, NULL,
     "expected a Kafka release from 2.0 to 4.1"},
    {"version with a leading zero", "{\"kafka.version\": \"03.9\", " P1 "}", NULL, NULL,
     "expected a Kafka release from 2.0 to 4.1"},
    {"version with an impossible patch", "{\"kafka.version\": \"2.0.77\", " P1 "}", NULL, NULL,
     "expected a Kafka release from 2.0 to 4.1"},
    {"huge version", "{\"kafka.version\": \"9999999999.1\", " P1 "}", NULL, NULL,
     "expected a Kafka release from 2.0 to 4.1"},
    {"invalid producer id", "{\"producers\": [{\"id\": \"a b\"}]}", NULL, NULL,
     "t.json: $.producers[0].id: \"a b\" is not a valid producer id"},
    {"empty producer id", "{\"producers\": [{\"id\": \"\"}]}", NULL, NULL,
     "\"\" is not a valid producer id"},
    {"zstd before 2.1",
     "{\"kafka.version\": \"2.0\", \"producers\": [{\"config\": {\"compression.type\": "
     "\"zstd\"}}]}",
     NULL, NULL, "compression.type \"zstd\" does not exist before Kafka 2.1 (KIP-110)"},
    {"too small a bandwidth", "{\"network\": {\"bandwidth.mbps\": 1e-9}, " P1 "}", NULL, NULL,
     "t.json: $.network.bandwidth.mbps: below 1 bit/s"},
    {"admin: partitions only grow",
     "{\"topics\": [{\"name\": \"t\", \"partitions\": 4}], " P1 ", \"admin\": [{\"at.ms\": 5, "
     "\"create.partitions\": {\"topic\": \"t\", \"total\": 3}}]}",
     NULL, NULL,
     "t.json: $.admin[0].create.partitions.total: topic \"t\" has 4 partitions by then; partitions "
     "can only be added (Kafka: INVALID_PARTITIONS)"},
    {"admin: unknown topic",
     "{" P1 ", \"admin\": [{\"at.ms\": 5, \"create.partitions\": {\"topic\": \"x\", \"total\": 3}}]}",
     NULL, NULL, "t.json: $.admin[0].create.partitions.topic: no topic \"x\" in topics"},
    {"admin: out of order",
     "{" P1 ", \"admin\": [{\"at.ms\": 5, \"create.partitions\": {\"topic\": \"events\", "
     "\"total\": 3}}, {\"at.ms\": 1, \"create.partitions\": {\"topic\": \"events\", \"total\": 4}}]}",
     NULL, NULL, "t.json: $.admin[1].at.ms: admin operations must be listed in time order"},
    {"key distribution: two at once",
     "{\"producers\": [{\"workload\": {\"key\": {\"zipf\": {}, \"uniform\": {}}}}]}", NULL, NULL,
     "t.json: $.producers[0].workload.key: expected exactly one of {\"uniform\": {...}} and "
     "{\"zipf\": {...}}"},
    {"key distribution: bad parameter",
     "{\"producers\": [{\"workload\": {\"key\": {\"zipf\": {\"keys\": 0}}}}]}", NULL, NULL,
     "t.json: $.producers[0].workload.key.zipf.keys: expected an integer from 1 to 1000000, got 0"},
    {"value sizes: max below min",
     "{\"producers\": [{\"workload\": {\"value.bytes\": {\"uniform\": {\"min\": 5, \"max\": "
     "4}}}}]}",
     NULL, NULL, "t.json: $.producers[0].workload.value.bytes.uniform: max must be >= min"},
    {"burst keys without burst arrival",
     "{\"producers\": [{\"workload\": {\"burst.records\": 5}}]}", NULL, NULL,
     "burst.records and burst.interval.ms need \"arrival\": \"burst\""},
    /* found by fuzzing (tests/fuzz/regress) */
    {"create.partitions without topic and total",
     "{" P1 ", \"admin\": [{\"at.ms\": 1, \"create.partitions\": {}}]}", NULL, NULL,
     "t.json: $.admin[0].create.partitions.topic: missing: create.partitions needs a \"topic\" "
     "and a \"total\""},
    {"a positive time that rounds to 0 ns",
     "{" P1 ", \"network\": {\"latency\": {\"dist\": \"lognormal\", \"median.ms\": 1e-9, "
     "\"sigma\": 0.6}}}",
     NULL, NULL,
     "t.json: $.network.latency.median.ms: expected a number of at least 0.000001 (one "
     "nanosecond), got 1e-9"},
    {"no topics, with consumers", "{" P1 ", \"consumers\": [{\"id\": \"c1\"}]}", "topics", "[]",
     "t.json: $.topics: expected a non-empty array of topics, got [] (from --set topics=[])"},
    {"topics an object, with consumers", "{" P1 ", \"consumers\": [{\"id\": \"c1\"}]}", "topics",
     "{}", "t.json: $.topics: expected a non-empty array of topics, got {}"},
    {"--set unknown key, suggestion", "{" P1 "}", "producers.p1.config.lingr.ms", "5",
     "unknown producer config \"lingr.ms\" (did you mean \"linger.ms\"?) (from --set "
     "producers.p1.config.lingr.ms=5)"},
};

static void test_bad_scenarios(void **state)
{
    (void)state;
    size_t n = sizeof bad_cases / sizeof bad_cases[0];
    for (size_t i = 0; i < n; i++) {
        const bad_case *c = &bad_cases[i];
        ks_diag *d = malloc(sizeof *d);
        ks_diag_init(d);
        ks_override o = {c->set_path, c->set_value};
        ks_scenario *sc = ks_scenario_parse("t.json", c->json, &o, c->set_path ? 1 : 0, false, 0, d);
        if (sc || !ks_diag_has(d, c->message)) {
            fprintf(stderr, "case \"%s\": wanted an error containing\n  %s\ngot:\n", c->what,
                    c->message);
            ks_diag_print(d, stderr);
        }
        assert_null(sc);
        assert_true(ks_diag_has(d, c->message));
        free(d);
    }
}

/* The file is read as bytes: a valid scenario followed by a NUL byte
 * and garbage is an error naming the NUL's offset, not a truncated file
 * that loads. */
static void test_nul_byte(void **state)
{
    (void)state;
    static const char data[] = "{" P1 "}\0garbage";
    ks_diag *d = malloc(sizeof *d);
    ks_diag_init(d);
    assert_null(ks_scenario_parse_bytes("t.json", data, sizeof data - 1, NULL, 0, false, 0, d));
    assert_true(ks_diag_has(d, "t.json: byte 29 is a NUL byte (0x00)"));
    ks_diag_init(d);
    ks_scenario *sc = ks_scenario_parse_bytes("t.json", data, strlen(data), NULL, 0, false, 0, d);
    assert_non_null(sc);
    ks_scenario_free(sc);
    free(d);
}

/* Every problem is reported, not just the first. */
static void test_reports_every_error(void **state)
{
    (void)state;
    ks_diag *d = malloc(sizeof *d);
    ks_diag_init(d);
    const char *json = "{\"sed\": 1, \"network\": {\"bandwidth.mbps\": -5},"
                       " \"producers\": [{\"config\": {\"acks\": 2, \"retries\": -1}}]}";
    assert_null(ks_scenario_parse("t.json", json, NULL, 0, false, 0, d));
    assert_int_equal(d->count, 4);
    assert_true(ks_diag_has(d, "unknown key \"sed\" (did you mean \"seed\"?)"));
    assert_true(ks_diag_has(d, "$.network.bandwidth.mbps"));
    assert_true(ks_diag_has(d, "$.producers[0].config.acks"));
    assert_true(ks_diag_has(d, "$.producers[0].config.retries"));
    free(d);
}

static void test_missing_file(void **state)
{
    (void)state;
    ks_diag *d = malloc(sizeof *d);
    ks_diag_init(d);
    assert_null(ks_scenario_load("/nonexistent/x.json", NULL, 0, false, 0, d));
    assert_true(ks_diag_has(d, "/nonexistent/x.json: cannot open: No such file or directory"));
    free(d);
}

static ks_scenario *load_ok(const char *json, const ks_override *o, size_t n, ks_diag *d)
{
    ks_diag_init(d);
    ks_scenario *sc = ks_scenario_parse("t.json", json, o, n, false, 0, d);
    if (!sc)
        ks_diag_print(d, stderr);
    assert_non_null(sc);
    return sc;
}

static int64_t pcfg(const ks_scenario *sc, ks_pcfg k)
{
    return sc->producers[0].config[k].i;
}

static void test_defaults_by_version(void **state)
{
    (void)state;
    ks_diag *d = malloc(sizeof *d);
    struct {
        const char *version;
        int64_t acks, idempotence, linger, retries;
    } rows[] = {
        {"2.0", 1, 0, 0, 0},          {"2.1", 1, 0, 0, 2147483647},
        {"2.8", 1, 0, 0, 2147483647}, {"3.0.0", -1, 0, 0, 2147483647},
        {"3.0", -1, 1, 0, 2147483647}, {"3.1.0", -1, 0, 0, 2147483647},
        {"3.1.1", -1, 1, 0, 2147483647}, {"3.9", -1, 1, 0, 2147483647},
        {"4.0", -1, 1, 5, 2147483647}, {"4.1", -1, 1, 5, 2147483647},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char json[160];
        snprintf(json, sizeof json, "{\"kafka.version\": \"%s\", " P1 "}", rows[i].version);
        ks_scenario *sc = load_ok(json, NULL, 0, d);
        assert_int_equal(pcfg(sc, KS_PCFG_ACKS), rows[i].acks);
        assert_int_equal(pcfg(sc, KS_PCFG_ENABLE_IDEMPOTENCE), rows[i].idempotence);
        assert_int_equal(pcfg(sc, KS_PCFG_LINGER_MS), rows[i].linger);
        assert_int_equal(pcfg(sc, KS_PCFG_RETRIES), rows[i].retries);
        assert_int_equal(pcfg(sc, KS_PCFG_BATCH_SIZE), 16384);
        assert_int_equal(pcfg(sc, KS_PCFG_MAX_IN_FLIGHT), 5);
        assert_false(sc->producers[0].config[KS_PCFG_ACKS].set);
        ks_scenario_free(sc);
    }
    ks_scenario *sc = load_ok("{\"kafka.version\": \"2.4\", " P1 "}", NULL, 0, d);
    assert_int_equal(sc->broker_config[KS_BCFG_REPLICA_LAG_TIME_MAX_MS].i, 10000);
    ks_scenario_free(sc);
    sc = load_ok("{\"kafka.version\": \"2.5\", " P1 "}", NULL, 0, d);
    assert_int_equal(sc->broker_config[KS_BCFG_REPLICA_LAG_TIME_MAX_MS].i, 30000);
    ks_scenario_free(sc);
    /* no kafka.version: the documented default */
    sc = load_ok("{" P1 "}", NULL, 0, d);
    assert_string_equal(sc->kafka_version_text, KS_KAFKA_VERSION_DEFAULT);
    ks_scenario_free(sc);
    free(d);
}

static void test_explicit_values(void **state)
{
    (void)state;
    ks_diag *d = malloc(sizeof *d);
    ks_scenario *sc = load_ok(
        "{\"name\": \"n\", \"seed\": 7, \"producers\": [{\"id\": \"x\", \"config\": {\"acks\": 0, "
        "\"linger.ms\": 10, \"compression.type\": \"zstd\", \"transactional.id\": \"tx\"}, "
        "\"workload\": {\"records\": 3, \"rate.per.sec\": 2000, \"key\": \"k\", \"arrival\": "
        "\"poisson\"}}], \"network\": {\"latency\": {\"dist\": \"lognormal\", \"median.ms\": 0.25, "
        "\"sigma\": 0.5}, \"bandwidth.mbps\": 100}, \"brokers\": {\"count\": 3, \"cost\": "
        "{\"request.us\": 12.5, \"byte.ns\": 0.25}}}",
        NULL, 0, d);
    assert_string_equal(sc->name, "n");
    assert_int_equal(sc->seed, 7);
    assert_int_equal(pcfg(sc, KS_PCFG_ACKS), 0);
    assert_true(sc->producers[0].config[KS_PCFG_ACKS].set);
    assert_int_equal(pcfg(sc, KS_PCFG_LINGER_MS), 10);
    assert_int_equal(pcfg(sc, KS_PCFG_COMPRESSION_TYPE), 4);
    assert_string_equal(sc->producers[0].config[KS_PCFG_TRANSACTIONAL_ID].s, "tx");
    assert_int_equal(sc->producers[0].workload.records, 3);
    assert_int_equal(sc->producers[0].workload.interval_ns, 500000);
    assert_int_equal(sc->producers[0].workload.arrival, KS_ARRIVAL_POISSON);
    assert_string_equal(sc->producers[0].workload.keys[0], "k");
    assert_int_equal(sc->producers[0].workload.key_count, 1);
    assert_int_equal(sc->network.latency.kind, KS_DIST_LOGNORMAL);
    assert_int_equal(sc->network.latency.a_ns, 250000);
    assert_int_equal(sc->network.bandwidth_bps, 100000000);
    assert_int_equal(sc->broker_count, 3);
    assert_int_equal(sc->broker_cost.request_ns, 12500);
    assert_int_equal(sc->broker_cost.byte_ps, 250);
    /* every key here is read by a model: no warning */
    assert_int_equal(d->warnings, 0);
    assert_false(ks_diag_has(d, "$.producers[0].config.transactional.id: accepted, but no model"));
    assert_false(ks_diag_has(d, "$.producers[0].config.linger.ms: accepted"));
    assert_false(ks_diag_has(d, "compression.type: accepted"));
    /* zstd's defaults */
    assert_true(sc->producers[0].compression.ratio < 0.5);
    assert_true(sc->producers[0].compression.compress_ps > 0);
    ks_scenario_free(sc);
    free(d);
}

static void test_overrides(void **state)
{
    (void)state;
    ks_diag *d = malloc(sizeof *d);
    ks_override o[] = {
        {"producers.p1.config.linger.ms", "7"},
        {"kafka.version", "3.9"},
        {"network.latency.ms", "2.5"},
        {"brokers.count", "3"},
        {"producers.0.workload.records", "4"},
        {"producers.p1.config.enable.idempotence", "false"},
        {"producers.p1.config.acks", "1"},
        {"topics", "[{\"name\": \"my.topic\"}]"},
        {"producers.p1.topic", "my.topic"},
        {"seed", "99"},
    };
    ks_scenario *sc = load_ok("{\"kafka.version\": \"2.8\", " P1 "}", o, sizeof o / sizeof o[0], d);
    assert_int_equal(pcfg(sc, KS_PCFG_LINGER_MS), 7);
    assert_true(sc->producers[0].config[KS_PCFG_LINGER_MS].set);
    assert_string_equal(sc->kafka_version_text, "3.9");
    assert_int_equal(sc->network.latency.a_ns, 2500000);
    assert_int_equal(sc->broker_count, 3);
    assert_int_equal(sc->producers[0].workload.records, 4);
    assert_int_equal(pcfg(sc, KS_PCFG_ENABLE_IDEMPOTENCE), 0);
    assert_int_equal(pcfg(sc, KS_PCFG_ACKS), 1);
    assert_string_equal(sc->topics[0].name, "my.topic");
    assert_int_equal(sc->seed, 99);
    ks_scenario_free(sc);

    /* A path into a topic whose name has dots: the longest name wins. */
    ks_override o2[] = {{"topics.my.topic.partitions", "1"}, {"topics.my.replication.factor", "1"}};
    sc = load_ok("{\"topics\": [{\"name\": \"my\"}, {\"name\": \"my.topic\"}], " P1 "}", o2, 2, d);
    ks_scenario_free(sc);

    /* default producer ids and the default topic can be named by --set */
    ks_override o3[] = {{"producers.p2.config.acks", "0"},
                        {"topics.events.partitions", "4"},
                        {"expect.records.acked", "10"}};
    sc = load_ok("{\"producers\": [{}, {}]}", o3, 3, d);
    assert_int_equal(sc->producers[1].config[KS_PCFG_ACKS].i, 0);
    assert_int_equal(sc->topics[0].partitions, 4);
    /* an expect value given as text is read as JSON: the number 10 */
    assert_true(json_is_integer(json_object_get(sc->expect, "records.acked")));
    ks_scenario_free(sc);

    /* A value replaced by a later --set must not make a JSON string of a
     * third --set count as command-line text, whatever the allocator
     * does with the freed memory. */
    ks_override o4[] = {{"producers.p1.workload.records", "abc"},
                        {"producers.p1.workload.records", "def"},
                        {"producers.p1.workload", "{\"records\": \"7\"}"}};
    ks_diag_init(d);
    assert_null(ks_scenario_parse("t.json", "{" P1 "}", o4, 3, false, 0, d));
    assert_true(ks_diag_has(d, "expected an integer from 0 to 1099511627776, got \"7\""));

    /* every override is converted, not just the first 64 */
    ks_override many[100];
    char keys[100][32];
    for (int i = 0; i < 99; i++) {
        snprintf(keys[i], sizeof keys[i], "expect.k%d", i);
        many[i].path = keys[i];
        many[i].value = "1";
    }
    many[99].path = "producers.p1.workload.records";
    many[99].value = "5";
    sc = load_ok("{" P1 "}", many, 100, d);
    assert_int_equal(sc->producers[0].workload.records, 5);
    ks_scenario_free(sc);

    /* --seed beats the file and --set */
    ks_diag_init(d);
    sc = ks_scenario_parse("t.json", "{\"seed\": 5, " P1 "}", NULL, 0, true, 11, d);
    assert_non_null(sc);
    assert_int_equal(sc->seed, 11);
    ks_scenario_free(sc);
    free(d);
}

/* The resolved scenario reloads to the same resolved scenario. */
static void test_resolved_round_trip(void **state)
{
    (void)state;
    ks_diag *d = malloc(sizeof *d);
    ks_scenario *sc = load_ok(
        "{\"kafka.version\": \"3.2\", \"network\": {\"latency\": {\"dist\": \"uniform\", "
        "\"min.ms\": 0.1, \"max.ms\": 0.3}}, \"producers\": [{\"config\": {\"acks\": \"1\"}, "
        "\"workload\": {\"rate.per.sec\": 3}}], \"expect\": {\"records.acked\": 10}}",
        NULL, 0, d);
    json_t *a = ks_scenario_to_json(sc);
    char *text = json_dumps(a, JSON_COMPACT);
    ks_scenario *sc2 = load_ok(text, NULL, 0, d);
    json_t *b = ks_scenario_to_json(sc2);
    char *text2 = json_dumps(b, JSON_COMPACT);
    assert_string_equal(text, text2);
    /* Kafka configs stay as the scenario set them: explicit ones are
     * written, defaults come back from kafka.version, and a reloaded
     * scenario tells the two apart as the original did */
    assert_non_null(strstr(text, "\"config\":{\"acks\":\"1\"}"));
    assert_null(strstr(text, "linger.ms"));
    assert_true(sc2->producers[0].config[KS_PCFG_ACKS].set);
    assert_false(sc2->producers[0].config[KS_PCFG_LINGER_MS].set);
    assert_int_equal(sc2->producers[0].config[KS_PCFG_ENABLE_IDEMPOTENCE].i, 1);
    free(text);
    free(text2);
    json_decref(a);
    json_decref(b);
    ks_scenario_free(sc);
    ks_scenario_free(sc2);
    free(d);
}

static void test_version_parse(void **state)
{
    (void)state;
    ks_kafka_version v;
    assert_true(ks_kafka_version_parse("3.9", &v));
    assert_int_equal(v, KS_KV(3, 9, KS_KV_PATCH_LATEST));
    assert_true(ks_kafka_version_parse("3.0.0", &v));
    assert_int_equal(v, KS_KV(3, 0, 0));
    assert_true(ks_kafka_version_parse("2.0", &v));
    assert_false(ks_kafka_version_parse("1.1", &v));
    assert_false(ks_kafka_version_parse("2.9", &v));
    assert_false(ks_kafka_version_parse("3.10", &v));
    assert_false(ks_kafka_version_parse("4.2", &v));
    assert_false(ks_kafka_version_parse("3", &v));
    assert_false(ks_kafka_version_parse("3.9.", &v));
    assert_false(ks_kafka_version_parse("3.9x", &v));
    assert_false(ks_kafka_version_parse("", &v));
}

/* Each config table names every key, and its enum and name table agree. */
static void test_config_tables(void **state)
{
    (void)state;
    const ks_cfg_table *tables[] = {&ks_producer_configs, &ks_broker_configs};
    for (int t = 0; t < 2; t++) {
        for (int i = 0; i < tables[t]->count; i++) {
            assert_non_null(tables[t]->names[i]);
            assert_non_null(tables[t]->defs[i].doc);
            assert_int_equal(ks_cfg_find(tables[t], tables[t]->names[i]), i);
        }
    }
    assert_int_equal(ks_cfg_find(&ks_producer_configs, "linger.ms"), KS_PCFG_LINGER_MS);
    assert_int_equal(ks_cfg_find(&ks_producer_configs, "nope"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_scenarios),      cmocka_unit_test(test_reports_every_error),
        cmocka_unit_test(test_missing_file),       cmocka_unit_test(test_defaults_by_version),
        cmocka_unit_test(test_explicit_values),    cmocka_unit_test(test_overrides),
        cmocka_unit_test(test_resolved_round_trip), cmocka_unit_test(test_version_parse),
        cmocka_unit_test(test_config_tables),      cmocka_unit_test(test_nul_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
