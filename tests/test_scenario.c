/*
 * test_scenario.c - the scenario loader: a table of bad scenarios and the
 * message each must produce, defaults per Kafka version, --set overrides,
 * and the resolved scenario as a rerunnable scenario: every fault type
 * with every key it takes written back and read again unchanged, and the
 * faults' stream names (by "name", else by content).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/scenario.h"
#include "sim/rng.h"

#include <inttypes.h>
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
    {"fault name not a string", "{\"faults\": [{\"type\": \"drop.request\", \"name\": 5}], " P1 "}", NULL, NULL,
     "t.json: $.faults[0].name: expected a string, got 5"},
    {"fault name alphabet", "{\"faults\": [{\"type\": \"drop.request\", \"name\": \"a b\"}], " P1 "}", NULL, NULL,
     "t.json: $.faults[0].name: \"a b\" is not a valid fault name: 1-100 characters of a-z A-Z 0-9 . _ -"},
    {"fault name twice", "{\"faults\": [{\"type\": \"drop.request\", \"name\": \"x\"}, {\"type\": \"request.loss\", \"probability\": 1, \"name\": \"x\"}], " P1 "}", NULL, NULL,
     "t.json: $.faults[1].name: fault name \"x\" is used twice (also by $.faults[0])"},
    {"fault name key", "{\"faults\": [{\"type\": \"drop.request\", \"nmae\": \"x\"}], " P1 "}", NULL, NULL,
     "t.json: $.faults[0].nmae: unknown key \"nmae\" (did you mean \"name\"?)"},
    {"fault name another's derived one", "{\"faults\": [{\"type\": \"request.loss\", \"probability\": 0.5}, {\"type\": \"drop.request\", \"name\": \"3bceb8c66f5ddda7\"}], " P1 "}", NULL, NULL,
     "t.json: $.faults[1].name: \"3bceb8c66f5ddda7\" is the name $.faults[0] has by its content, so both would draw from stream \"fault.3bceb8c66f5ddda7\": choose another, or name that fault too"},
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

/* ---- faults: every selector round-trips, streams are named by content -- */

/* What a fault can name: two brokers, topic "events" of two partitions,
 * producers p1 and p2, consumers c1 and c2. */
#define FAULT_WORLD                                                                            \
    "\"brokers\": {\"count\": 2}, \"topics\": [{\"name\": \"events\", \"partitions\": 2}],"    \
    " \"producers\": [{\"id\": \"p1\", \"topic\": \"events\"}, {\"id\": \"p2\", \"topic\":"    \
    " \"events\"}], \"consumers\": [{\"id\": \"c1\", \"topic\": \"events\"}, {\"id\": \"c2\","  \
    " \"topic\": \"events\"}]"

/* Every key a fault can carry besides "type", each with a value unlike
 * its default ("request" brings the "producer" it needs with two
 * producers; "name" is numbered by the fault's place). */
static const struct fault_opt {
    const char *key, *json;
} fault_opts[] = {
    {"producer", "\"producer\": \"p2\""},   {"consumer", "\"consumer\": \"c2\""},
    {"broker", "\"broker\": 1"},            {"partition", "\"partition\": \"events-1\""},
    {"api", "\"api\": \"Fetch\""},          {"request", "\"producer\": \"p2\", \"request\": 3"},
    {"after.ms", "\"after.ms\": 2.5"},      {"count", "\"count\": 4"},
    {"delay.ms", "\"delay.ms\": 7.5"},      {"error", "\"error\": \"NOT_ENOUGH_REPLICAS\""},
    {"probability", "\"probability\": 0.3"}, {"from.ms", "\"from.ms\": 1.5"},
    {"to.ms", "\"to.ms\": 9"},              {"at.ms", "\"at.ms\": 4"},
    {"restart.ms", "\"restart.ms\": 8"},    {"forward.to", "\"forward.to\": \"p1\""},
    {"note", "\"note\": \"a note\""},       {"name", "\"name\": \"n%zu\""},
};
#define N_FAULT_OPTS (sizeof fault_opts / sizeof fault_opts[0])

/* Per fault type (in KS_FAULT_TYPES order): the keys it needs, and the
 * optional keys it takes, space-separated. */
static const struct fault_kind {
    const char *type, *base, *opts;
} fault_kinds[] = {
    {"drop.request", "", "producer consumer broker partition api request after.ms count note name"},
    {"drop.response", "", "producer consumer broker partition api request after.ms count note name"},
    {"delay.request", "\"delay.ms\": 7.5",
     "producer consumer broker partition api request after.ms count note name"},
    {"delay.response", "\"delay.ms\": 7.5",
     "producer consumer broker partition api request after.ms count note name"},
    {"append.error", "\"error\": \"NOT_ENOUGH_REPLICAS\"",
     "producer broker partition request after.ms count note name"},
    {"request.loss", "\"probability\": 0.25", "producer consumer broker from.ms to.ms note name"},
    {"response.loss", "\"probability\": 0.25", "producer consumer broker from.ms to.ms note name"},
    {"link.down", "\"from.ms\": 1.5, \"to.ms\": 9", "producer consumer broker note name"},
    {"pause.broker", "\"broker\": 1, \"from.ms\": 1.5, \"to.ms\": 9", "note name"},
    {"pause.producer", "\"producer\": \"p2\", \"from.ms\": 1.5, \"to.ms\": 9", "note name"},
    {"crash.producer", "\"producer\": \"p2\", \"at.ms\": 4", "note name"},
    {"crash.consumer", "\"consumer\": \"c2\", \"at.ms\": 4", "restart.ms forward.to note name"},
};
#define N_FAULT_KINDS (sizeof fault_kinds / sizeof fault_kinds[0])

static bool takes(const struct fault_kind *k, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = strstr(k->opts, key); p; p = strstr(p + 1, key))
        if ((p == k->opts || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

/* Appends one fault of kind k with the options whose bit is set in
 * `with` to buf (at *len), the fault being number `nth`. */
static void add_fault(char *buf, size_t cap, size_t *len, const struct fault_kind *k,
                      uint32_t with, size_t nth)
{
    *len += (size_t)snprintf(buf + *len, cap - *len, "%s{\"type\": \"%s\"%s%s", nth ? ", " : "",
                             k->type, k->base[0] ? ", " : "", k->base);
    for (size_t o = 0; o < N_FAULT_OPTS; o++) {
        if (!(with & (1u << o)))
            continue;
        char opt[64];
        snprintf(opt, sizeof opt, fault_opts[o].json, nth);
        *len += (size_t)snprintf(buf + *len, cap - *len, ", %s", opt);
    }
    *len += (size_t)snprintf(buf + *len, cap - *len, "}");
    assert_true(*len < cap);
}

/* Every fault type: alone, with each optional key it takes, and with all
 * of them at once (once naming the producer, once the consumer). */
static char *every_fault_scenario(void)
{
    size_t cap = 1 << 16, len = 0, nth = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    len += (size_t)snprintf(buf, cap, "{" FAULT_WORLD ", \"faults\": [");
    for (size_t t = 0; t < N_FAULT_KINDS; t++) {
        const struct fault_kind *k = &fault_kinds[t];
        uint32_t all_p = 0, all_c = 0;
        add_fault(buf, cap, &len, k, 0, nth++);
        for (size_t o = 0; o < N_FAULT_OPTS; o++) {
            if (!takes(k, fault_opts[o].key))
                continue;
            add_fault(buf, cap, &len, k, 1u << o, nth++);
            bool producer = strcmp(fault_opts[o].key, "producer") == 0;
            bool consumer = strcmp(fault_opts[o].key, "consumer") == 0;
            bool request = strcmp(fault_opts[o].key, "request") == 0;
            if (!consumer && !(producer && takes(k, "request")))
                all_p |= 1u << o;
            if (!producer && !request)
                all_c |= 1u << o;
        }
        add_fault(buf, cap, &len, k, all_p, nth++);
        if (takes(k, "consumer"))
            add_fault(buf, cap, &len, k, all_c, nth++);
    }
    len += (size_t)snprintf(buf + len, cap - len, "]}");
    assert_true(len < cap);
    return buf;
}

/* One field of faults a and b (number i) is the same. */
#define SAME(field)                                                                            \
    do {                                                                                       \
        if (a->field != b->field)                                                              \
            print_error("faults[%zu] (%s): " #field " differs\n", i,                           \
                        ks_fault_type_name(a->type));                                          \
        assert_true(a->field == b->field);                                                     \
    } while (0)

static void same_string(const char *x, const char *y, size_t i, const char *what)
{
    if ((x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0))
        print_error("faults[%zu]: %s \"%s\" and \"%s\"\n", i, what, x ? x : "(none)",
                    y ? y : "(none)");
    assert_true((x == NULL) == (y == NULL));
    if (x)
        assert_string_equal(x, y);
}

static void expect_same_fault(const ks_fault_conf *a, const ks_fault_conf *b, size_t i)
{
    SAME(type);
    SAME(producer);
    SAME(consumer);
    SAME(broker);
    SAME(topic);
    SAME(partition);
    SAME(api);
    SAME(request);
    SAME(after_ns);
    SAME(count);
    SAME(delay_ns);
    SAME(error);
    SAME(probability);
    SAME(from_ns);
    SAME(to_ns);
    SAME(forward_to);
    same_string(a->note, b->note, i, "note");
    same_string(a->name, b->name, i, "name");
    assert_non_null(a->stream);
    same_string(a->stream, b->stream, i, "stream");
}
#undef SAME

/* Every key a fault was given is in its resolved form. */
static void expect_keys_kept(const char *text, json_t *resolved)
{
    json_t *doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    json_t *given = json_object_get(doc, "faults"), *out = json_object_get(resolved, "faults");
    assert_int_equal(json_array_size(given), json_array_size(out));
    for (size_t i = 0; i < json_array_size(given); i++) {
        const char *key;
        json_t *v;
        json_object_foreach(json_array_get(given, i), key, v)
        {
            if (!json_object_get(json_array_get(out, i), key))
                print_error("faults[%zu]: \"%s\" is not in the resolved form\n", i, key);
            assert_non_null(json_object_get(json_array_get(out, i), key));
        }
    }
    json_decref(doc);
}

/* Every fault type with every selector and parameter it takes: loaded,
 * written back (ksim validate --resolved, the trace header), loaded
 * again, the faults are the same field by field and the second resolved
 * text is the first. Each type also refuses every key of the list it
 * does not take, so the table above is the loader's. */
static void test_fault_round_trip(void **state)
{
    (void)state;
    assert_int_equal(N_FAULT_KINDS, KS_FAULT__COUNT);
    for (size_t t = 0; t < N_FAULT_KINDS; t++)
        assert_string_equal(fault_kinds[t].type, ks_fault_type_name((ks_fault_type)t));
    ks_diag *d = malloc(sizeof *d);
    assert_non_null(d);
    char *text = every_fault_scenario();
    ks_scenario *a = load_ok(text, NULL, 0, d);
    json_t *ja = ks_scenario_to_json(a);
    char *ta = json_dumps(ja, JSON_INDENT(2) | ks_conf_reals_exact(ja));
    expect_keys_kept(text, ja);
    ks_scenario *b = load_ok(ta, NULL, 0, d);
    json_t *jb = ks_scenario_to_json(b);
    char *tb = json_dumps(jb, JSON_INDENT(2) | ks_conf_reals_exact(jb));
    assert_string_equal(ta, tb);
    assert_int_equal(a->fault_count, b->fault_count);
    for (uint32_t i = 0; i < a->fault_count; i++)
        expect_same_fault(&a->faults[i], &b->faults[i], i);
    free(text);
    free(ta);
    free(tb);
    json_decref(ja);
    json_decref(jb);
    ks_scenario_free(a);
    ks_scenario_free(b);
    free(d);
}

/* Does an option's text give a key the kind's base gives too? */
static bool clashes(const struct fault_kind *k, const char *opt)
{
    for (size_t o = 0; o < N_FAULT_OPTS; o++) {
        char quoted[40];
        snprintf(quoted, sizeof quoted, "\"%s\":", fault_opts[o].key);
        if (strstr(opt, quoted) && strstr(k->base, quoted))
            return true;
    }
    return false;
}

/* The keys of the list a type does not take are unknown keys to it. */
static void test_fault_keys_refused(void **state)
{
    (void)state;
    ks_diag *d = malloc(sizeof *d);
    assert_non_null(d);
    for (size_t t = 0; t < N_FAULT_KINDS; t++) {
        const struct fault_kind *k = &fault_kinds[t];
        for (size_t o = 0; o < N_FAULT_OPTS; o++) {
            char quoted[40], want[80], text[1024];
            snprintf(quoted, sizeof quoted, "\"%s\"", fault_opts[o].key);
            if (takes(k, fault_opts[o].key) || clashes(k, fault_opts[o].json))
                continue;
            size_t len = (size_t)snprintf(text, sizeof text, "{" FAULT_WORLD ", \"faults\": [");
            add_fault(text, sizeof text, &len, k, 1u << o, 0);
            snprintf(text + len, sizeof text - len, "]}");
            ks_diag_init(d);
            ks_scenario *sc = ks_scenario_parse("t.json", text, NULL, 0, false, 0, d);
            snprintf(want, sizeof want, "unknown key %s", quoted);
            if (sc || !ks_diag_has(d, want))
                print_error("%s with %s: want an error \"%s\"\n", k->type, quoted, want);
            assert_null(sc);
            assert_true(ks_diag_has(d, want));
        }
    }
    free(d);
}

/* "fault.HASH": the FNV-1a 64 of the fault's resolved JSON without
 * "note", keys sorted, compact. */
static void expect_derived(const ks_fault_conf *f, const char *canonical, const char *suffix)
{
    char want[64];
    snprintf(want, sizeof want, "fault.%016" PRIx64 "%s", ks_rng_fnv1a64(canonical), suffix);
    assert_string_equal(f->stream, want);
}

/* A fault's stream is named by its "name", else by its content: the
 * second of one content gets "#2"; a note changes nothing, nor does a
 * key given at its default; removing a fault renames no other fault of
 * another content. */
static void test_fault_stream_names(void **state)
{
    (void)state;
    ks_diag *d = malloc(sizeof *d);
    assert_non_null(d);
    const char *loss = "{\"type\": \"request.loss\", \"probability\": 0.5}";
    char text[1024];
    snprintf(text, sizeof text,
             "{" P1 ", \"faults\": [%s, {\"type\": \"request.loss\", \"probability\": 0.5, "
             "\"from.ms\": 0, \"note\": \"the same\"}, {\"type\": \"response.loss\", "
             "\"probability\": 0.1, \"name\": \"mine\"}, {\"type\": \"drop.request\"}]}",
             loss);
    ks_scenario *sc = load_ok(text, NULL, 0, d);
    const char *loss_text = "{\"from.ms\":0,\"probability\":0.5,\"type\":\"request.loss\"}";
    const char *drop_text = "{\"after.ms\":0,\"api\":\"Produce\",\"count\":1,\"type\":\"drop.request\"}";
    expect_derived(&sc->faults[0], loss_text, "");
    assert_string_equal(sc->faults[0].stream, "fault.3bceb8c66f5ddda7"); /* docs/scenario.md */
    expect_derived(&sc->faults[1], loss_text, "#2");
    assert_string_equal(sc->faults[2].stream, "fault.mine");
    expect_derived(&sc->faults[3], drop_text, "");
    ks_scenario_free(sc);
    /* without the first: the second is now the first of its content */
    snprintf(text, sizeof text,
             "{" P1 ", \"faults\": [{\"type\": \"request.loss\", \"probability\": 0.5}, "
             "{\"type\": \"response.loss\", \"probability\": 0.1, \"name\": \"mine\"}, "
             "{\"type\": \"drop.request\"}]}");
    sc = load_ok(text, NULL, 0, d);
    expect_derived(&sc->faults[0], loss_text, "");
    assert_string_equal(sc->faults[1].stream, "fault.mine");
    expect_derived(&sc->faults[2], drop_text, "");
    /* the resolved form writes "name" only where the file gave one */
    json_t *j = ks_fault_section_json(sc);
    assert_null(json_object_get(json_array_get(j, 0), "name"));
    assert_string_equal(json_string_value(json_object_get(json_array_get(j, 1), "name")), "mine");
    json_decref(j);
    ks_scenario_free(sc);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_scenarios),      cmocka_unit_test(test_reports_every_error),
        cmocka_unit_test(test_missing_file),       cmocka_unit_test(test_defaults_by_version),
        cmocka_unit_test(test_explicit_values),    cmocka_unit_test(test_overrides),
        cmocka_unit_test(test_resolved_round_trip), cmocka_unit_test(test_version_parse),
        cmocka_unit_test(test_config_tables),      cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_fault_round_trip),   cmocka_unit_test(test_fault_keys_refused),
        cmocka_unit_test(test_fault_stream_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
