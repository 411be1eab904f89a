/*
 * test_producer_config.c - tests models/producer/producer_config.c.
 *
 * Covers: every ConfigException of the idempotence rules with Kafka's exact
 * text when enable.idempotence is set explicitly (acks=1, acks=0,
 * retries=0, max.in.flight=6), and the same conflicts with idempotence
 * defaulted (silently disabled, with disabled_why) in 3.x; the
 * max.in.flight=5 boundary; the 4.0 rule that max.in.flight > 5 throws even
 * with idempotence defaulted (KAFKA-17927), also when acks would have
 * disabled it; transactional.id without idempotence (explicit false, and
 * idempotence disabled by a conflict), and transactional.id implying
 * idempotence before 3.0.1; the 2.x overrides of acks and retries and the
 * order in which the eras check; configureDeliveryTimeout (explicit too
 * small throws, defaulted is raised, equal is kept, no delivery timeout in
 * 2.0); the versions 2.0, 3.0.0 and 3.1.0 (KAFKA-13598), 3.0.1, 3.2, 3.6,
 * 3.7 and 4.0; the retry backoff: constant before 3.7 whatever the attempt,
 * from 3.7 within the jitter bounds, capped at retry.backoff.max.ms,
 * deterministic for a seed, equal to a reference formula, and constant
 * with no random draw when retry.backoff.max.ms <= retry.backoff.ms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/producer/producer_config.h"

#include <math.h>
#include <string.h>

#define MS KS_NS_PER_MS

static const char MSG_ACKS[] = "ConfigException: Must set acks to all in order to use the "
                               "idempotent producer. Otherwise we cannot guarantee idempotence.";
static const char MSG_RETRIES[] = "ConfigException: Must set retries to non-zero when using the "
                                  "idempotent producer.";
static const char MSG_IN_FLIGHT[] = "ConfigException: Must set max.in.flight.requests.per.connection "
                                    "to at most 5 to use the idempotent producer.";
static const char MSG_IN_FLIGHT_4[] = "ConfigException: To use the idempotent producer, "
                                      "max.in.flight.requests.per.connection must be set to at "
                                      "most 5. Current value is 6.";
static const char MSG_TXN[] = "ConfigException: Cannot set a transactional.id without also "
                              "enabling idempotence.";
static const char MSG_DELIVERY[] = "ConfigException: delivery.timeout.ms should be equal to or "
                                   "larger than linger.ms + request.timeout.ms";

/* One producer's configs under one version, as the scenario loader builds
 * them: the version's defaults, then the user's values with `set`. */
typedef struct fixture {
    ks_kafka_version v;
    ks_cfg_value cfg[KS_PCFG__COUNT];
    ks_producer_settings s;
    char err[256];
} fixture;

static void init(fixture *f, ks_kafka_version v)
{
    memset(f, 0, sizeof *f);
    f->v = v;
    ks_cfg_defaults(&ks_producer_configs, v, f->cfg);
}

static void set_i(fixture *f, ks_pcfg key, int64_t value)
{
    f->cfg[key].i = value;
    f->cfg[key].set = true;
}

static void set_s(fixture *f, ks_pcfg key, const char *value)
{
    f->cfg[key].s = value;
    f->cfg[key].set = true;
}

static bool resolve(fixture *f)
{
    strcpy(f->err, "untouched");
    return ks_producer_settings_resolve(f->cfg, f->v, &f->s, f->err, sizeof f->err);
}

/* Resolving must fail with exactly `msg`. */
static void expect_error(fixture *f, const char *msg)
{
    assert_false(resolve(f));
    assert_string_equal(f->err, msg);
}

/* Resolving must succeed, with idempotence disabled because of `why`. */
static void expect_disabled(fixture *f, const char *why)
{
    assert_true(resolve(f));
    assert_false(f->s.idempotent);
    assert_true(f->s.idempotence_disabled);
    assert_non_null(f->s.disabled_why);
    assert_string_equal(f->s.disabled_why, why);
}

/* ---- idempotence explicitly enabled: each conflict throws ---- */

static void test_explicit_conflicts_throw(void **state)
{
    (void)state;
    const ks_kafka_version versions[] = {KS_KV(3, 2, 99), KS_KV(3, 6, 99), KS_KV(3, 9, 99),
                                         KS_KV(4, 0, 99), KS_KV(2, 8, 99)};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        fixture f;
        init(&f, versions[i]);
        set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
        set_i(&f, KS_PCFG_ACKS, 1);
        expect_error(&f, MSG_ACKS);

        init(&f, versions[i]);
        set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
        set_i(&f, KS_PCFG_ACKS, 0);
        expect_error(&f, MSG_ACKS);

        init(&f, versions[i]);
        set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
        set_i(&f, KS_PCFG_RETRIES, 0);
        expect_error(&f, MSG_RETRIES);
    }
}

static void test_explicit_in_flight_6_throws(void **state)
{
    (void)state;
    fixture f;
    init(&f, KS_KV(3, 6, 99));
    set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 6);
    expect_error(&f, MSG_IN_FLIGHT);

    /* 4.0 words it differently (KAFKA-17927) and gives the value. */
    init(&f, KS_KV(4, 0, 99));
    set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 6);
    expect_error(&f, MSG_IN_FLIGHT_4);

    init(&f, KS_KV(4, 1, 99));
    set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 50);
    expect_error(&f, "ConfigException: To use the idempotent producer, "
                     "max.in.flight.requests.per.connection must be set to at most 5. "
                     "Current value is 50.");
}

static void test_in_flight_5_is_fine(void **state)
{
    (void)state;
    const ks_kafka_version versions[] = {KS_KV(2, 0, 0), KS_KV(3, 0, 0), KS_KV(3, 6, 99),
                                         KS_KV(4, 0, 99)};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        for (int explicit_idem = 0; explicit_idem <= 1; explicit_idem++) {
            fixture f;
            init(&f, versions[i]);
            if (explicit_idem)
                set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
            set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 5);
            assert_true(resolve(&f));
            assert_int_equal(f.s.max_in_flight, 5);
            assert_false(f.s.idempotence_disabled);
            assert_null(f.s.disabled_why);
            assert_string_equal(f.err, "");
        }
    }
}

/* ---- idempotence defaulted (3.0.1 - 3.9): conflicts turn it off ---- */

static void test_defaulted_conflicts_disable(void **state)
{
    (void)state;
    const ks_kafka_version versions[] = {KS_KV(3, 0, 1), KS_KV(3, 1, 1), KS_KV(3, 2, 99),
                                         KS_KV(3, 6, 99), KS_KV(3, 9, 99)};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        fixture f;
        init(&f, versions[i]);
        set_i(&f, KS_PCFG_ACKS, 1);
        expect_disabled(&f, "acks");
        assert_int_equal(f.s.acks, 1);

        init(&f, versions[i]);
        set_i(&f, KS_PCFG_ACKS, 0);
        expect_disabled(&f, "acks");
        assert_int_equal(f.s.acks, 0);

        init(&f, versions[i]);
        set_i(&f, KS_PCFG_RETRIES, 0);
        expect_disabled(&f, "retries");
        assert_int_equal(f.s.retries, 0);

        init(&f, versions[i]);
        set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 6);
        expect_disabled(&f, "max.in.flight.requests.per.connection");
        assert_int_equal(f.s.max_in_flight, 6);
    }
}

/* With several conflicts, disabled_why names the first Kafka checks. */
static void test_disabled_why_is_first_conflict(void **state)
{
    (void)state;
    fixture f;
    init(&f, KS_KV(3, 6, 99));
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 10);
    set_i(&f, KS_PCFG_ACKS, 1);
    set_i(&f, KS_PCFG_RETRIES, 0);
    expect_disabled(&f, "retries");

    init(&f, KS_KV(3, 6, 99));
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 10);
    set_i(&f, KS_PCFG_ACKS, 1);
    expect_disabled(&f, "acks");
}

/* With several conflicts and an explicit enable.idempotence, the first
 * check in Kafka's order throws. */
static void test_explicit_first_conflict_wins(void **state)
{
    (void)state;
    fixture f;
    init(&f, KS_KV(3, 6, 99));
    set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 10);
    set_i(&f, KS_PCFG_ACKS, 1);
    set_i(&f, KS_PCFG_RETRIES, 0);
    expect_error(&f, MSG_RETRIES);
}

/* ---- 4.0: max.in.flight > 5 throws with idempotence defaulted ---- */

static void test_4_0_in_flight_throws_when_defaulted(void **state)
{
    (void)state;
    fixture f;
    init(&f, KS_KV(4, 0, 99));
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 6);
    expect_error(&f, MSG_IN_FLIGHT_4);

    /* acks=1 marks a defaulted idempotence for disabling, but it is only
     * turned off after the in-flight check, which still sees it on. */
    init(&f, KS_KV(4, 0, 99));
    set_i(&f, KS_PCFG_ACKS, 1);
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 6);
    expect_error(&f, MSG_IN_FLIGHT_4);

    /* Explicitly off: any max.in.flight is allowed. */
    init(&f, KS_KV(4, 0, 99));
    set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 0);
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 6);
    assert_true(resolve(&f));
    assert_false(f.s.idempotent);
    assert_false(f.s.idempotence_disabled);
    assert_int_equal(f.s.max_in_flight, 6);

    /* The last 3.x release still just disabled it. */
    init(&f, KS_KV(3, 9, 99));
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 6);
    expect_disabled(&f, "max.in.flight.requests.per.connection");
}

static void test_4_0_acks_still_disables(void **state)
{
    (void)state;
    fixture f;
    init(&f, KS_KV(4, 0, 99));
    set_i(&f, KS_PCFG_ACKS, 1);
    expect_disabled(&f, "acks");

    init(&f, KS_KV(4, 0, 99));
    set_i(&f, KS_PCFG_RETRIES, 0);
    expect_disabled(&f, "retries");
}

/* ---- transactional.id ---- */

static void test_txn_without_idempotence(void **state)
{
    (void)state;
    const ks_kafka_version versions[] = {KS_KV(2, 0, 0), KS_KV(2, 4, 99), KS_KV(3, 0, 0),
                                         KS_KV(3, 6, 99), KS_KV(4, 0, 99)};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        fixture f;
        init(&f, versions[i]);
        set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 0);
        set_s(&f, KS_PCFG_TRANSACTIONAL_ID, "tx-1");
        expect_error(&f, MSG_TXN);
    }
}

/* 3.x: a conflict that disables a defaulted idempotence makes a
 * transactional.id an error. */
static void test_txn_with_disabled_idempotence(void **state)
{
    (void)state;
    fixture f;
    init(&f, KS_KV(3, 6, 99));
    set_i(&f, KS_PCFG_ACKS, 1);
    set_s(&f, KS_PCFG_TRANSACTIONAL_ID, "tx-1");
    expect_error(&f, MSG_TXN);

    init(&f, KS_KV(3, 6, 99));
    set_s(&f, KS_PCFG_TRANSACTIONAL_ID, "tx-1");
    assert_true(resolve(&f));
    assert_true(f.s.idempotent);
    assert_true(f.s.transactional);
}

/* Before 3.0.1 a transactional.id turns idempotence on by itself, and the
 * acks/retries checks then apply to it. */
static void test_txn_implies_idempotence_before_3_0_1(void **state)
{
    (void)state;
    fixture f;
    init(&f, KS_KV(2, 0, 0));
    set_s(&f, KS_PCFG_TRANSACTIONAL_ID, "tx-1");
    assert_true(resolve(&f));
    assert_true(f.s.idempotent);
    assert_true(f.s.transactional);
    assert_int_equal(f.s.acks, KS_ACKS_ALL);
    assert_int_equal(f.s.retries, INT32_MAX);

    init(&f, KS_KV(3, 0, 0));
    set_s(&f, KS_PCFG_TRANSACTIONAL_ID, "tx-1");
    assert_true(resolve(&f));
    assert_true(f.s.idempotent);

    init(&f, KS_KV(3, 1, 0));
    set_s(&f, KS_PCFG_TRANSACTIONAL_ID, "tx-1");
    set_i(&f, KS_PCFG_ACKS, 1);
    expect_error(&f, MSG_ACKS);
}

/* ---- versions ---- */

static void test_version_2_0(void **state)
{
    (void)state;
    fixture f;
    init(&f, KS_KV(2, 0, 0));
    assert_true(resolve(&f));
    assert_false(f.s.idempotent);
    assert_false(f.s.idempotence_disabled);
    assert_int_equal(f.s.acks, 1);
    assert_int_equal(f.s.retries, 0);
    assert_true(f.s.delivery_timeout_ns == KS_TIME_MAX);
    assert_false(f.s.delivery_timeout_raised);
    assert_false(f.s.exponential_backoff);
    assert_true(f.s.retry_backoff_max_ns == f.s.retry_backoff_ns);

    /* A tiny delivery.timeout.ms does not exist yet, so it cannot throw. */
    set_i(&f, KS_PCFG_DELIVERY_TIMEOUT_MS, 1);
    assert_true(resolve(&f));
    assert_true(f.s.delivery_timeout_ns == KS_TIME_MAX);
}

/* 2.x with enable.idempotence=true: defaulted acks and retries are
 * overridden (configureAcks/configureRetries), explicit ones checked. */
static void test_version_2_0_explicit_idempotence(void **state)
{
    (void)state;
    fixture f;
    init(&f, KS_KV(2, 0, 0));
    set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
    assert_true(resolve(&f));
    assert_true(f.s.idempotent);
    assert_int_equal(f.s.acks, KS_ACKS_ALL);
    assert_int_equal(f.s.retries, INT32_MAX);

    init(&f, KS_KV(2, 0, 0));
    set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
    set_i(&f, KS_PCFG_RETRIES, 3);
    assert_true(resolve(&f));
    assert_int_equal(f.s.retries, 3);

    init(&f, KS_KV(2, 0, 0));
    set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 6);
    expect_error(&f, MSG_IN_FLIGHT);
}

/* The eras check in different orders; acks=1 with max.in.flight=6 tells
 * them apart. */
static void test_check_order_per_era(void **state)
{
    (void)state;
    struct {
        ks_kafka_version v;
        const char *msg;
    } cases[] = {
        {KS_KV(2, 0, 0), MSG_IN_FLIGHT},  /* retries, in-flight, acks */
        {KS_KV(2, 4, 99), MSG_IN_FLIGHT}, /* in-flight, retries, acks */
        {KS_KV(2, 5, 0), MSG_ACKS},       /* retries, acks, in-flight */
        {KS_KV(3, 6, 99), MSG_ACKS},      /* retries, acks, in-flight */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture f;
        init(&f, cases[i].v);
        set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
        set_i(&f, KS_PCFG_ACKS, 1);
        set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 6);
        expect_error(&f, cases[i].msg);
    }
    /* 2.0: retries before in-flight; 2.1-2.4: in-flight before retries. */
    fixture f;
    init(&f, KS_KV(2, 0, 0));
    set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
    set_i(&f, KS_PCFG_RETRIES, 0);
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 6);
    expect_error(&f, MSG_RETRIES);
    init(&f, KS_KV(2, 1, 0));
    set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
    set_i(&f, KS_PCFG_RETRIES, 0);
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 6);
    expect_error(&f, MSG_IN_FLIGHT);
}

/* KAFKA-13598: 3.0.0 and 3.1.0 documented idempotence on by default but
 * left it off unless set, so nothing conflicts with it. */
static void test_version_3_0_0_and_3_1_0(void **state)
{
    (void)state;
    const ks_kafka_version versions[] = {KS_KV(3, 0, 0), KS_KV(3, 1, 0)};
    for (size_t i = 0; i < 2; i++) {
        fixture f;
        init(&f, versions[i]);
        assert_true(resolve(&f));
        assert_false(f.s.idempotent);
        assert_false(f.s.idempotence_disabled);
        assert_int_equal(f.s.acks, KS_ACKS_ALL);

        init(&f, versions[i]);
        set_i(&f, KS_PCFG_ACKS, 1);
        set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 6);
        set_i(&f, KS_PCFG_RETRIES, 0);
        assert_true(resolve(&f));
        assert_false(f.s.idempotent);
        assert_false(f.s.idempotence_disabled);
        assert_null(f.s.disabled_why);

        init(&f, versions[i]);
        set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
        set_i(&f, KS_PCFG_ACKS, 0);
        expect_error(&f, MSG_ACKS);
    }
    /* Kafka's ProducerConfig held the documented default true in 3.0.0;
     * idempotenceEnabled() ignored it unless set explicitly. The model
     * follows that rule, not only kafka_config's resolved default. */
    fixture g;
    init(&g, KS_KV(3, 0, 0));
    g.cfg[KS_PCFG_ENABLE_IDEMPOTENCE] = (ks_cfg_value){.i = 1, .set = false};
    set_i(&g, KS_PCFG_ACKS, 1);
    assert_true(resolve(&g));
    assert_false(g.s.idempotent);

    /* The patch releases apply the default. */
    fixture f;
    init(&f, KS_KV(3, 0, 1));
    assert_true(resolve(&f));
    assert_true(f.s.idempotent);
}

static void test_version_3_2_and_3_6(void **state)
{
    (void)state;
    const ks_kafka_version versions[] = {KS_KV(3, 2, 99), KS_KV(3, 6, 99)};
    for (size_t i = 0; i < 2; i++) {
        fixture f;
        init(&f, versions[i]);
        assert_true(resolve(&f));
        assert_true(f.s.idempotent);
        assert_false(f.s.idempotence_disabled);
        assert_null(f.s.disabled_why);
        assert_false(f.s.transactional);
        assert_int_equal(f.s.acks, KS_ACKS_ALL);
        assert_int_equal(f.s.retries, INT32_MAX);
        assert_int_equal(f.s.max_in_flight, 5);
        assert_true(f.s.request_timeout_ns == 30000 * MS);
        assert_true(f.s.delivery_timeout_ns == 120000 * MS);
        assert_true(f.s.linger_ns == 0);
        assert_false(f.s.exponential_backoff);
        assert_true(f.s.retry_backoff_ns == 100 * MS);
        assert_true(f.s.retry_backoff_max_ns == 100 * MS);
    }
}

static void test_version_3_7_and_4_0(void **state)
{
    (void)state;
    fixture f;
    init(&f, KS_KV(3, 7, 0));
    assert_true(resolve(&f));
    assert_true(f.s.idempotent);
    assert_true(f.s.exponential_backoff);
    assert_true(f.s.retry_backoff_ns == 100 * MS);
    assert_true(f.s.retry_backoff_max_ns == 1000 * MS);
    assert_true(f.s.linger_ns == 0);

    init(&f, KS_KV(4, 0, 99));
    assert_true(resolve(&f));
    assert_true(f.s.idempotent);
    assert_true(f.s.exponential_backoff);
    assert_true(f.s.linger_ns == 5 * MS);
    assert_true(f.s.retry_backoff_max_ns == 1000 * MS);
}

/* ---- delivery.timeout.ms (configureDeliveryTimeout) ---- */

static void test_delivery_timeout_explicit_too_small(void **state)
{
    (void)state;
    const ks_kafka_version versions[] = {KS_KV(2, 1, 0), KS_KV(2, 8, 99), KS_KV(3, 6, 99),
                                         KS_KV(4, 0, 99)};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        fixture f;
        init(&f, versions[i]);
        set_i(&f, KS_PCFG_LINGER_MS, 100);
        set_i(&f, KS_PCFG_REQUEST_TIMEOUT_MS, 1000);
        set_i(&f, KS_PCFG_DELIVERY_TIMEOUT_MS, 1099);
        expect_error(&f, MSG_DELIVERY);
    }
}

static void test_delivery_timeout_defaulted_raised(void **state)
{
    (void)state;
    fixture f;
    init(&f, KS_KV(3, 6, 99));
    set_i(&f, KS_PCFG_LINGER_MS, 100);
    set_i(&f, KS_PCFG_REQUEST_TIMEOUT_MS, 200000);
    assert_true(resolve(&f));
    assert_true(f.s.delivery_timeout_raised);
    assert_true(f.s.delivery_timeout_ns == 200100 * MS);
    assert_true(f.s.request_timeout_ns == 200000 * MS);
    assert_true(f.s.linger_ns == 100 * MS);

    /* The sum is capped at Integer.MAX_VALUE ms. */
    init(&f, KS_KV(3, 6, 99));
    set_i(&f, KS_PCFG_LINGER_MS, INT64_C(5000000000));
    assert_true(resolve(&f));
    assert_true(f.s.delivery_timeout_raised);
    assert_true(f.s.delivery_timeout_ns == INT64_C(2147483647) * MS);
    assert_true(f.s.linger_ns == INT64_C(2147483647) * MS);
}

static void test_delivery_timeout_equal_boundary(void **state)
{
    (void)state;
    fixture f;
    init(&f, KS_KV(3, 6, 99));
    set_i(&f, KS_PCFG_LINGER_MS, 100);
    set_i(&f, KS_PCFG_REQUEST_TIMEOUT_MS, 1000);
    set_i(&f, KS_PCFG_DELIVERY_TIMEOUT_MS, 1100);
    assert_true(resolve(&f));
    assert_false(f.s.delivery_timeout_raised);
    assert_true(f.s.delivery_timeout_ns == 1100 * MS);

    /* Defaulted and already large enough: kept as is. */
    init(&f, KS_KV(3, 6, 99));
    assert_true(resolve(&f));
    assert_false(f.s.delivery_timeout_raised);
    assert_true(f.s.delivery_timeout_ns == 120000 * MS);
}

/* An idempotence error comes before the delivery timeout check in 3.x
 * (ProducerConfig runs before KafkaProducer's constructor), after it in
 * 2.1-2.4 for max.in.flight (newSender runs last). */
static void test_delivery_timeout_order(void **state)
{
    (void)state;
    fixture f;
    init(&f, KS_KV(3, 6, 99));
    set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
    set_i(&f, KS_PCFG_ACKS, 1);
    set_i(&f, KS_PCFG_DELIVERY_TIMEOUT_MS, 1);
    expect_error(&f, MSG_ACKS);

    init(&f, KS_KV(2, 4, 99));
    set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 6);
    set_i(&f, KS_PCFG_DELIVERY_TIMEOUT_MS, 1);
    expect_error(&f, MSG_DELIVERY);

    init(&f, KS_KV(2, 8, 99));
    set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
    set_i(&f, KS_PCFG_MAX_IN_FLIGHT, 6);
    set_i(&f, KS_PCFG_DELIVERY_TIMEOUT_MS, 1);
    expect_error(&f, MSG_DELIVERY);
}

static void test_null_error_buffer(void **state)
{
    (void)state;
    fixture f;
    init(&f, KS_KV(3, 6, 99));
    set_i(&f, KS_PCFG_ENABLE_IDEMPOTENCE, 1);
    set_i(&f, KS_PCFG_ACKS, 1);
    assert_false(ks_producer_settings_resolve(f.cfg, f.v, &f.s, NULL, 0));
    /* A short buffer is truncated, not overrun. */
    char small[20];
    memset(small, 'x', sizeof small);
    assert_false(ks_producer_settings_resolve(f.cfg, f.v, &f.s, small, 12));
    assert_string_equal(small, "ConfigExcep");
    assert_int_equal(small[12], 'x');
}

/* ---- retry backoff ---- */

static ks_producer_settings settings_for(ks_kafka_version v, int64_t backoff_ms, int64_t max_ms)
{
    fixture f;
    init(&f, v);
    if (backoff_ms >= 0)
        set_i(&f, KS_PCFG_RETRY_BACKOFF_MS, backoff_ms);
    if (max_ms >= 0)
        set_i(&f, KS_PCFG_RETRY_BACKOFF_MAX_MS, max_ms);
    assert_true(resolve(&f));
    return f.s;
}

static void test_backoff_constant_before_3_7(void **state)
{
    (void)state;
    const ks_kafka_version versions[] = {KS_KV(2, 0, 0), KS_KV(3, 6, 99)};
    for (size_t i = 0; i < 2; i++) {
        ks_producer_settings s = settings_for(versions[i], 250, -1);
        ks_rng r, untouched;
        ks_rng_seed(&r, 1, 2);
        untouched = r;
        const uint32_t attempts[] = {0, 1, 2, 5, 30, UINT32_MAX};
        for (size_t k = 0; k < sizeof attempts / sizeof attempts[0]; k++)
            assert_true(ks_retry_backoff_ns(&s, attempts[k], &r) == 250 * MS);
        assert_memory_equal(&r, &untouched, sizeof r);
    }
}

static void test_backoff_first_retry_jitter_bounds(void **state)
{
    (void)state;
    ks_producer_settings s = settings_for(KS_KV(3, 7, 0), -1, -1);
    ks_rng r;
    ks_rng_seed(&r, 42, 7);
    ks_time lo = KS_TIME_MAX, hi = 0;
    for (int i = 0; i < 2000; i++) {
        ks_time b = ks_retry_backoff_ns(&s, 1, &r);
        assert_true(b >= 80 * MS && b <= 120 * MS);
        assert_true(b % MS == 0); /* whole milliseconds, as Kafka's long */
        lo = b < lo ? b : lo;
        hi = b > hi ? b : hi;
    }
    /* The jitter really spreads the values over the interval. */
    assert_true(lo <= 85 * MS);
    assert_true(hi >= 115 * MS);
}

static void test_backoff_grows_then_caps(void **state)
{
    (void)state;
    ks_producer_settings s = settings_for(KS_KV(4, 0, 99), -1, -1);
    ks_rng r;
    ks_rng_seed(&r, 9, 9);
    int capped = 0, below = 0;
    for (int i = 0; i < 500; i++) {
        ks_time b2 = ks_retry_backoff_ns(&s, 2, &r);
        assert_true(b2 >= 160 * MS && b2 <= 240 * MS);
        ks_time b3 = ks_retry_backoff_ns(&s, 3, &r);
        assert_true(b3 >= 320 * MS && b3 <= 480 * MS);
        ks_time b4 = ks_retry_backoff_ns(&s, 4, &r);
        assert_true(b4 >= 640 * MS && b4 <= 960 * MS);
        /* From the 5th retry the exponent stops at log2(1000/100), so the
         * term is 1000 ms and the jitter gives 1000 * U(0.8, 1.2), capped
         * at retry.backoff.max.ms: in [800, 1000]. */
        const uint32_t late[] = {5, 6, 1000, UINT32_MAX};
        for (size_t k = 0; k < 4; k++) {
            ks_time b = ks_retry_backoff_ns(&s, late[k], &r);
            assert_true(b >= 800 * MS && b <= 1000 * MS);
            capped += b == 1000 * MS;
            below += b < 1000 * MS;
        }
    }
    /* About half the draws are above 1 and hit the cap. */
    assert_true(capped > 700 && below > 700);
}

/* The same formula written out the way Java's backoff() reads, with libm
 * (the test only): the model must agree for every draw. */
static int64_t reference_ms(int64_t initial, int64_t max, uint32_t attempt, ks_rng *r)
{
    initial = max < initial ? max : initial;
    double exp_max = max > initial ? log((double)max / (double)(initial > 1 ? initial : 1)) / log(2.0) : 0;
    if (exp_max == 0)
        return initial;
    double e = fmin((double)(attempt - 1), exp_max);
    double term = (double)initial * pow(2.0, e);
    double factor = ks_rng_uniform(r, 0.8, 1.2);
    int64_t v = (int64_t)(factor * term);
    return v > max ? max : v;
}

static void test_backoff_matches_reference(void **state)
{
    (void)state;
    const int64_t params[][2] = {{100, 1000}, {50, 60000}, {0, 1000}, {7, 10}, {1, 2}};
    for (size_t p = 0; p < sizeof params / sizeof params[0]; p++) {
        ks_producer_settings s = settings_for(KS_KV(3, 8, 99), params[p][0], params[p][1]);
        ks_rng a, b;
        ks_rng_seed(&a, 77, p);
        ks_rng_seed(&b, 77, p);
        for (uint32_t attempt = 1; attempt <= 40; attempt++) {
            int64_t want = reference_ms(params[p][0], params[p][1], attempt, &b);
            ks_time got = ks_retry_backoff_ns(&s, attempt, &a);
            assert_true(got == want * MS);
        }
        assert_memory_equal(&a, &b, sizeof a);
    }
}

static void test_backoff_deterministic(void **state)
{
    (void)state;
    ks_producer_settings s = settings_for(KS_KV(3, 7, 99), -1, -1);
    ks_rng a, b, c;
    ks_rng_seed(&a, 123, 5);
    ks_rng_seed(&b, 123, 5);
    ks_rng_seed(&c, 124, 5);
    int differ = 0;
    for (uint32_t i = 1; i <= 200; i++) {
        ks_time x = ks_retry_backoff_ns(&s, 1 + i % 4, &a);
        assert_true(x == ks_retry_backoff_ns(&s, 1 + i % 4, &b));
        differ += x != ks_retry_backoff_ns(&s, 1 + i % 4, &c);
    }
    assert_true(differ > 100); /* another seed gives other values */
}

/* One uniform draw per exponential call. */
static void test_backoff_one_draw(void **state)
{
    (void)state;
    ks_producer_settings s = settings_for(KS_KV(3, 7, 99), -1, -1);
    ks_rng r, shadow;
    ks_rng_seed(&r, 5, 6);
    ks_rng_seed(&shadow, 5, 6);
    for (uint32_t attempt = 1; attempt <= 10; attempt++) {
        (void)ks_retry_backoff_ns(&s, attempt, &r);
        (void)ks_rng_uniform(&shadow, 0.8, 1.2);
        assert_memory_equal(&r, &shadow, sizeof r);
    }
}

/* retry.backoff.max.ms <= retry.backoff.ms: Kafka's ExponentialBackoff has
 * expMax = 0 and returns min(initial, max) without drawing. */
static void test_backoff_max_not_above_initial(void **state)
{
    (void)state;
    const int64_t params[][3] = {{500, 200, 200}, {300, 300, 300}, {0, 0, 0}};
    for (size_t p = 0; p < 3; p++) {
        ks_producer_settings s = settings_for(KS_KV(4, 0, 99), params[p][0], params[p][1]);
        ks_rng r, untouched;
        ks_rng_seed(&r, 3, 4);
        untouched = r;
        for (uint32_t attempt = 1; attempt <= 20; attempt++)
            assert_true(ks_retry_backoff_ns(&s, attempt, &r) == params[p][2] * MS);
        assert_memory_equal(&r, &untouched, sizeof r);
    }
}

/* Attempt 0 (no retry yet) is treated as the first retry. */
static void test_backoff_attempt_zero(void **state)
{
    (void)state;
    ks_producer_settings s = settings_for(KS_KV(3, 7, 99), -1, -1);
    ks_rng a, b;
    ks_rng_seed(&a, 8, 8);
    ks_rng_seed(&b, 8, 8);
    assert_true(ks_retry_backoff_ns(&s, 0, &a) == ks_retry_backoff_ns(&s, 1, &b));
}

/* Huge configs saturate instead of overflowing. */
static void test_backoff_huge_values(void **state)
{
    (void)state;
    ks_producer_settings s = settings_for(KS_KV(3, 7, 99), INT64_MAX, INT64_MAX);
    ks_rng r;
    ks_rng_seed(&r, 1, 1);
    assert_true(ks_retry_backoff_ns(&s, 1, &r) == KS_TIME_MAX);
    assert_true(s.retry_backoff_ns == KS_TIME_MAX);

    s = settings_for(KS_KV(3, 7, 99), 100, INT64_MAX);
    for (uint32_t attempt = 1; attempt < 100; attempt += 7) {
        ks_time b = ks_retry_backoff_ns(&s, attempt, &r);
        assert_true(b > 0);
    }
    assert_true(ks_retry_backoff_ns(&s, UINT32_MAX, &r) == KS_TIME_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_explicit_conflicts_throw),
        cmocka_unit_test(test_explicit_in_flight_6_throws),
        cmocka_unit_test(test_in_flight_5_is_fine),
        cmocka_unit_test(test_defaulted_conflicts_disable),
        cmocka_unit_test(test_disabled_why_is_first_conflict),
        cmocka_unit_test(test_explicit_first_conflict_wins),
        cmocka_unit_test(test_4_0_in_flight_throws_when_defaulted),
        cmocka_unit_test(test_4_0_acks_still_disables),
        cmocka_unit_test(test_txn_without_idempotence),
        cmocka_unit_test(test_txn_with_disabled_idempotence),
        cmocka_unit_test(test_txn_implies_idempotence_before_3_0_1),
        cmocka_unit_test(test_version_2_0),
        cmocka_unit_test(test_version_2_0_explicit_idempotence),
        cmocka_unit_test(test_check_order_per_era),
        cmocka_unit_test(test_version_3_0_0_and_3_1_0),
        cmocka_unit_test(test_version_3_2_and_3_6),
        cmocka_unit_test(test_version_3_7_and_4_0),
        cmocka_unit_test(test_delivery_timeout_explicit_too_small),
        cmocka_unit_test(test_delivery_timeout_defaulted_raised),
        cmocka_unit_test(test_delivery_timeout_equal_boundary),
        cmocka_unit_test(test_delivery_timeout_order),
        cmocka_unit_test(test_null_error_buffer),
        cmocka_unit_test(test_backoff_constant_before_3_7),
        cmocka_unit_test(test_backoff_first_retry_jitter_bounds),
        cmocka_unit_test(test_backoff_grows_then_caps),
        cmocka_unit_test(test_backoff_matches_reference),
        cmocka_unit_test(test_backoff_deterministic),
        cmocka_unit_test(test_backoff_one_draw),
        cmocka_unit_test(test_backoff_max_not_above_initial),
        cmocka_unit_test(test_backoff_attempt_zero),
        cmocka_unit_test(test_backoff_huge_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
