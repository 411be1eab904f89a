/*
 * producer_config.c - what KafkaProducer's constructor makes of a
 * producer's configs, and the retry backoff (see producer_config.h).
 *
 * [K] = apache/kafka. The idempotence rules went through five eras; each
 * runs the same few checks, in its own order and with its own outcome:
 *
 *   CTOR      2.0          KafkaProducer's constructor:
 *                          configureTransactionState, configureRetries,
 *                          configureInflightRequests, configureAcks.
 *   SENDER    2.1 - 2.4    configureTransactionState, then
 *                          configureDeliveryTimeout (KIP-91), then
 *                          newSender(): configureInflightRequests,
 *                          configureRetries, configureAcks.
 *   OVERRIDE  2.5 - 3.0.0  ProducerConfig.maybeOverrideAcksAndRetries and
 *             and 3.1.0    idempotenceEnabled(), then
 *                          KafkaProducer.configureDeliveryTimeout and
 *                          newSender() -> configureInflightRequests; read
 *                          in the 3.0.0 source, dated to 2.5.0 by
 *                          KAFKA-8928 (which moved the overrides into
 *                          ProducerConfig) in the 2.5.0 changelog.
 *                          Idempotence only when set explicitly or implied
 *                          by transactional.id (KAFKA-13598: the 3.0
 *                          default of true was not applied).
 *   VALIDATE  3.0.1, 3.1.1 ProducerConfig.postProcessAndValidateIdempotence-
 *             and 3.2-3.9  Configs (KAFKA-13598 PR #11691 and KAFKA-13673
 *                          PR #11788, both in 3.0.1, 3.1.1 and 3.2.0):
 *                          a conflicting config throws if
 *                          enable.idempotence was set explicitly and
 *                          silently turns a defaulted one off.
 *   STRICT    4.0 -        as VALIDATE, but max.in.flight > 5 throws
 *                          whenever idempotence is on at that point,
 *                          explicit or defaulted (KAFKA-17927, PR #17717).
 *
 * Every era ends with KafkaProducer.configureDeliveryTimeout (2.1+) if it
 * has not run it yet. The ConfigException a step throws ends the
 * resolution, so with several conflicts only the first in the era's order
 * is reported, as in Kafka.
 */
#include "models/producer/producer_config.h"

#include "sim/detmath.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* The value of Java's Integer.MAX_VALUE, which several rules fall back to. */
#define JAVA_INT_MAX INT64_C(2147483647)
/* [K] ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_FOR_IDEMPOTENCE */
#define MAX_IN_FLIGHT_FOR_IDEMPOTENCE 5
/* [K] CommonClientConfigs.RETRY_BACKOFF_EXP_BASE and RETRY_BACKOFF_JITTER */
#define RETRY_BACKOFF_EXP_BASE 2.0
#define RETRY_BACKOFF_JITTER 0.2

/* Kafka's exception texts, word for word. */
static const char MSG_TXN[] = "Cannot set a transactional.id without also enabling idempotence.";
static const char MSG_RETRIES[] = "Must set retries to non-zero when using the idempotent producer.";
static const char MSG_ACKS[] = "Must set acks to all in order to use the idempotent producer. "
                               "Otherwise we cannot guarantee idempotence.";
static const char MSG_IN_FLIGHT[] = "Must set max.in.flight.requests.per.connection to at most 5 "
                                    "to use the idempotent producer.";
static const char MSG_DELIVERY[] = "delivery.timeout.ms should be equal to or larger than "
                                   "linger.ms + request.timeout.ms";

typedef enum era { ERA_CTOR, ERA_SENDER, ERA_OVERRIDE, ERA_VALIDATE, ERA_STRICT } era;

typedef enum step { STEP_END, STEP_TXN, STEP_RETRIES, STEP_ACKS, STEP_IN_FLIGHT, STEP_DELIVERY } step;

/* The order in which each era's constructor runs its checks (see the top
 * of the file for the methods each order comes from). */
static const step era_steps[][6] = {
    [ERA_CTOR] = {STEP_TXN, STEP_RETRIES, STEP_IN_FLIGHT, STEP_ACKS, STEP_END},
    [ERA_SENDER] = {STEP_TXN, STEP_DELIVERY, STEP_IN_FLIGHT, STEP_RETRIES, STEP_ACKS, STEP_END},
    [ERA_OVERRIDE] = {STEP_TXN, STEP_RETRIES, STEP_ACKS, STEP_DELIVERY, STEP_IN_FLIGHT, STEP_END},
    [ERA_VALIDATE] = {STEP_RETRIES, STEP_ACKS, STEP_IN_FLIGHT, STEP_TXN, STEP_DELIVERY, STEP_END},
    [ERA_STRICT] = {STEP_RETRIES, STEP_ACKS, STEP_IN_FLIGHT, STEP_TXN, STEP_DELIVERY, STEP_END},
};

/* The state the steps share while one producer's configs are resolved. */
typedef struct resolver {
    const ks_cfg_value *cfg;
    era era;
    bool idem;            /* idempotence as the era sees it at this point */
    bool disable;         /* VALIDATE/STRICT: a defaulted idempotence must go */
    ks_producer_settings s;
    char *err;
    size_t errlen;
} resolver;

static era era_of(ks_kafka_version v)
{
    if (v < KS_KV(2, 1, 0))
        return ERA_CTOR;
    if (v < KS_KV(2, 5, 0))
        return ERA_SENDER;
    /* KAFKA-13598 was fixed in 3.0.1, 3.1.1 and 3.2.0 ([K] docs/upgrade.html,
     * "Notable changes in 3.0.1"), so 3.1.0 still has the old rules. */
    if (v <= KS_KV(3, 0, 0) || v == KS_KV(3, 1, 0))
        return ERA_OVERRIDE;
    if (v < KS_KV(4, 0, 0))
        return ERA_VALIDATE;
    return ERA_STRICT;
}

static bool legacy(const resolver *r)
{
    return r->era == ERA_CTOR || r->era == ERA_SENDER || r->era == ERA_OVERRIDE;
}

/* Writes "ConfigException: <text>" and fails the resolution. */
static bool fail(resolver *r, const char *fmt, ...)
{
    if (r->err == NULL || r->errlen == 0)
        return false;
    int n = snprintf(r->err, r->errlen, "ConfigException: ");
    if (n < 0 || (size_t)n >= r->errlen)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

/* A millisecond config as nanoseconds, saturating at KS_TIME_MAX. */
static ks_time ms_to_ns(int64_t ms)
{
    if (ms > KS_TIME_MAX / KS_NS_PER_MS)
        return KS_TIME_MAX;
    return ms * KS_NS_PER_MS;
}

/* The inverse for the backoff arithmetic, which Kafka does in ms: a
 * saturated value stays the largest. */
static int64_t ns_to_ms(ks_time ns)
{
    return ns == KS_TIME_MAX ? INT64_MAX : ns / KS_NS_PER_MS;
}

/* A VALIDATE/STRICT conflict: the exception if enable.idempotence was set
 * by the user, else idempotence is turned off once the checks are done. */
static bool conflict(resolver *r, const char *key, const char *msg)
{
    if (r->cfg[KS_PCFG_ENABLE_IDEMPOTENCE].set)
        return fail(r, "%s", msg);
    if (!r->disable)
        r->s.disabled_why = key;
    r->disable = true;
    return true;
}

/* Legacy eras: [K] KafkaProducer.configureTransactionState (2.0-2.4) and
 * ProducerConfig.idempotenceEnabled (2.5-3.1.0): an explicit
 * enable.idempotence=false with a transactional.id throws; otherwise a
 * transactional.id implies idempotence.
 * VALIDATE/STRICT: [K] ProducerConfig.postProcessAndValidateIdempotenceConfigs,
 * after the conflicts have turned a defaulted idempotence off: a
 * transactional.id without idempotence throws. */
static bool step_txn(resolver *r)
{
    bool user_txn = r->cfg[KS_PCFG_TRANSACTIONAL_ID].set;
    if (legacy(r)) {
        if (!r->idem && r->cfg[KS_PCFG_ENABLE_IDEMPOTENCE].set && user_txn)
            return fail(r, "%s", MSG_TXN);
        if (user_txn)
            r->idem = true;
        return true;
    }
    if (r->disable)
        r->idem = false;
    if (!r->idem && user_txn)
        return fail(r, "%s", MSG_TXN);
    return true;
}

/* Legacy eras: [K] KafkaProducer.configureRetries (2.0-2.4) and
 * ProducerConfig.maybeOverrideAcksAndRetries (2.5-3.1.0): retries left
 * unset become Integer.MAX_VALUE (2.0's default of 0 included), an
 * explicit 0 throws.
 * VALIDATE/STRICT: [K] ProducerConfig.postProcessAndValidateIdempotenceConfigs:
 * retries == 0 is a conflict. */
static bool step_retries(resolver *r)
{
    if (!r->idem)
        return true;
    const ks_cfg_value *c = &r->cfg[KS_PCFG_RETRIES];
    if (legacy(r)) {
        if (!c->set && r->era != ERA_OVERRIDE) {
            r->s.retries = JAVA_INT_MAX;
            return true;
        }
        if (c->i == 0)
            return fail(r, "%s", MSG_RETRIES);
        r->s.retries = c->set ? c->i : JAVA_INT_MAX;
        return true;
    }
    return c->i == 0 ? conflict(r, "retries", MSG_RETRIES) : true;
}

/* Legacy eras: [K] KafkaProducer.configureAcks (2.0-2.4) and
 * ProducerConfig.maybeOverrideAcksAndRetries (2.5-3.1.0): acks left unset
 * become all (-1), an explicit 0 or 1 throws.
 * VALIDATE/STRICT: [K] ProducerConfig.postProcessAndValidateIdempotenceConfigs:
 * acks other than all is a conflict. */
static bool step_acks(resolver *r)
{
    if (!r->idem)
        return true;
    const ks_cfg_value *c = &r->cfg[KS_PCFG_ACKS];
    if (legacy(r)) {
        if (!c->set) {
            r->s.acks = KS_ACKS_ALL;
            return true;
        }
        return c->i == KS_ACKS_ALL ? true : fail(r, "%s", MSG_ACKS);
    }
    return c->i == KS_ACKS_ALL ? true : conflict(r, "acks", MSG_ACKS);
}

/* Legacy eras: [K] KafkaProducer.configureInflightRequests: more than 5
 * throws whenever idempotence is on.
 * VALIDATE: [K] ProducerConfig.postProcessAndValidateIdempotenceConfigs
 * (PR #11788): more than 5 is a conflict.
 * STRICT: the same method after KAFKA-17927 (PR #17717, 4.0): more than 5
 * throws whenever idempotence is still on here. A defaulted idempotence
 * that retries or acks has marked for turning off is still on at this
 * point, so it throws too. */
static bool step_in_flight(resolver *r)
{
    int64_t n = r->cfg[KS_PCFG_MAX_IN_FLIGHT].i;
    if (!r->idem || n <= MAX_IN_FLIGHT_FOR_IDEMPOTENCE)
        return true;
    switch (r->era) {
    case ERA_CTOR:
    case ERA_SENDER:
    case ERA_OVERRIDE:
        return fail(r, "%s", MSG_IN_FLIGHT);
    case ERA_VALIDATE:
        return conflict(r, "max.in.flight.requests.per.connection", MSG_IN_FLIGHT);
    case ERA_STRICT:
        return fail(r,
                    "To use the idempotent producer, max.in.flight.requests.per.connection "
                    "must be set to at most 5. Current value is %lld.",
                    (long long)n);
    }
    return true;
}

/* [K] KafkaProducer.configureDeliveryTimeout (2.1+): delivery.timeout.ms
 * below linger.ms + request.timeout.ms (linger capped at Integer.MAX_VALUE
 * by lingerMs(), the sum capped there too) throws if the user set it, and
 * is otherwise raised to that sum. (2.1.0 added the two as ints without
 * the cap; that differs only when the sum overflows an int.) */
static bool step_delivery(resolver *r)
{
    int64_t linger = r->cfg[KS_PCFG_LINGER_MS].i;
    if (linger > JAVA_INT_MAX)
        linger = JAVA_INT_MAX;
    int64_t floor_ms = linger + r->cfg[KS_PCFG_REQUEST_TIMEOUT_MS].i;
    if (floor_ms > JAVA_INT_MAX)
        floor_ms = JAVA_INT_MAX;
    const ks_cfg_value *c = &r->cfg[KS_PCFG_DELIVERY_TIMEOUT_MS];
    int64_t delivery = c->i;
    if (delivery < floor_ms) {
        if (c->set)
            return fail(r, "%s", MSG_DELIVERY);
        delivery = floor_ms;
        r->s.delivery_timeout_raised = true;
    }
    r->s.delivery_timeout_ns = ms_to_ns(delivery);
    return true;
}

static bool run_step(resolver *r, step st)
{
    switch (st) {
    case STEP_TXN:
        return step_txn(r);
    case STEP_RETRIES:
        return step_retries(r);
    case STEP_ACKS:
        return step_acks(r);
    case STEP_IN_FLIGHT:
        return step_in_flight(r);
    case STEP_DELIVERY:
        return step_delivery(r);
    case STEP_END:
        break;
    }
    return true;
}

/* The values taken as configured, before any rule adjusts them. */
static void settings_from_configs(ks_producer_settings *s, const ks_cfg_value *cfg, ks_kafka_version v)
{
    int64_t linger = cfg[KS_PCFG_LINGER_MS].i;
    *s = (ks_producer_settings){0};
    s->transactional = cfg[KS_PCFG_TRANSACTIONAL_ID].s != NULL;
    s->acks = (int)cfg[KS_PCFG_ACKS].i;
    s->retries = cfg[KS_PCFG_RETRIES].i;
    s->max_in_flight = (uint32_t)cfg[KS_PCFG_MAX_IN_FLIGHT].i;
    s->request_timeout_ns = ms_to_ns(cfg[KS_PCFG_REQUEST_TIMEOUT_MS].i);
    /* No delivery.timeout.ms before 2.1 (KIP-91): batches never expire. */
    s->delivery_timeout_ns = KS_TIME_MAX;
    /* [K] KafkaProducer.lingerMs: the accumulator gets linger.ms capped at
     * Integer.MAX_VALUE. */
    s->linger_ns = ms_to_ns(linger > JAVA_INT_MAX ? JAVA_INT_MAX : linger);
    s->retry_backoff_ns = ms_to_ns(cfg[KS_PCFG_RETRY_BACKOFF_MS].i);
    s->exponential_backoff = v >= KS_KV(3, 7, 0);
    s->retry_backoff_max_ns = s->exponential_backoff
                                  ? ms_to_ns(cfg[KS_PCFG_RETRY_BACKOFF_MAX_MS].i)
                                  : s->retry_backoff_ns;
}

/* enable.idempotence as each era read it before any check: 2.5-3.1.0 only
 * counted an explicit true ([K] ProducerConfig.idempotenceEnabled, the
 * KAFKA-13598 bug); the others read the value itself. */
static bool initial_idempotence(const ks_cfg_value *cfg, era e)
{
    const ks_cfg_value *c = &cfg[KS_PCFG_ENABLE_IDEMPOTENCE];
    if (e == ERA_OVERRIDE)
        return c->set && c->i != 0;
    return c->i != 0;
}

bool ks_producer_settings_resolve(const ks_cfg_value *cfg, ks_kafka_version v,
                                  ks_producer_settings *out, char *err, size_t errlen)
{
    resolver r = {.cfg = cfg, .era = era_of(v), .err = err, .errlen = errlen};
    settings_from_configs(&r.s, cfg, v);
    r.idem = initial_idempotence(cfg, r.era);
    for (const step *st = era_steps[r.era]; *st != STEP_END; st++)
        if (!run_step(&r, *st))
            return false;
    r.s.idempotent = r.idem;
    r.s.idempotence_disabled = r.disable;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    *out = r.s;
    return true;
}

/* 2^x for x >= 0: the integer part exactly (ldexp only sets the exponent),
 * the fraction with ks_exp, so integer exponents give the exact powers
 * Java's Math.pow gives. */
static double pow2(double x)
{
    double whole = (double)(int64_t)x;
    double frac = x - whole;
    double p = frac > 0.0 ? ks_exp(frac * ks_log(2.0)) : 1.0;
    return ldexp(p, (int)whole);
}

/* Java's (long) cast of a non-negative double: truncation, saturating. */
static int64_t java_long(double x)
{
    if (x >= 9223372036854775807.0)
        return INT64_MAX;
    return x > 0.0 ? (int64_t)x : 0;
}

/* [K] clients/.../common/utils/ExponentialBackoff.java, backoff(attempts)
 * as built by RecordAccumulator's constructor (3.7+, KIP-580) with
 * initialInterval = retry.backoff.ms, multiplier
 * CommonClientConfigs.RETRY_BACKOFF_EXP_BASE = 2, maxInterval =
 * retry.backoff.max.ms, jitter RETRY_BACKOFF_JITTER = 0.2, in whole ms:
 *   initial = min(max, initial);
 *   expMax  = max > initial ? log(max / max(initial, 1)) / log(2) : 0;
 *   expMax == 0: initial, with no random draw;
 *   else min(max, (long)(U(1 - 0.2, 1 + 0.2) * initial * 2^min(attempts, expMax))).
 * RecordAccumulator.shouldBackoff passes batch.attempts() - 1, and
 * ProducerBatch.reenqueued() has made attempts() 1 by the first retry, so
 * our attempt n (1 = first retry) is Kafka's attempts = n - 1. */
static ks_time exponential_backoff(const ks_producer_settings *s, uint32_t attempt, ks_rng *rng)
{
    int64_t max_ms = ns_to_ms(s->retry_backoff_max_ns);
    int64_t initial = ns_to_ms(s->retry_backoff_ns);
    if (initial > max_ms)
        initial = max_ms;
    double exp_max = 0.0;
    if (max_ms > initial)
        exp_max = ks_log((double)max_ms / (double)(initial > 1 ? initial : 1)) /
                  ks_log(RETRY_BACKOFF_EXP_BASE);
    if (exp_max == 0.0)
        return ms_to_ns(initial);
    double kafka_attempts = attempt > 0 ? (double)(attempt - 1) : 0.0;
    double term = (double)initial * pow2(kafka_attempts < exp_max ? kafka_attempts : exp_max);
    double factor = ks_rng_uniform(rng, 1.0 - RETRY_BACKOFF_JITTER, 1.0 + RETRY_BACKOFF_JITTER);
    int64_t ms = java_long(factor * term);
    return ms_to_ns(ms < max_ms ? ms : max_ms);
}

ks_time ks_retry_backoff_ns(const ks_producer_settings *s, uint32_t attempt, ks_rng *rng)
{
    /* Before 3.7 RecordAccumulator waits retry.backoff.ms before every
     * retry ([K] RecordAccumulator.ready/drain: waitedTimeMs <
     * retryBackoffMs). */
    if (!s->exponential_backoff)
        return s->retry_backoff_ns;
    return exponential_backoff(s, attempt, rng);
}
