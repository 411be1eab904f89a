/*
 * producer_config.h - what KafkaProducer's constructor makes of a
 * producer's configs: the idempotence, retry and timeout settings it
 * really runs with, or the ConfigException it throws. Also the retry
 * backoff of each Kafka version.
 *
 * Owns: the rules of [K] clients/.../producer/ProducerConfig.java
 * (postProcessAndValidateIdempotenceConfigs) and KafkaProducer.java
 * (configureDeliveryTimeout, configureTransactionState), with Kafka's own
 * exception messages, per Kafka version; and the backoff of [K]
 * clients/.../common/utils/ExponentialBackoff.java (3.7+, KIP-580).
 *
 * Never: reads the scenario file or keeps state; everything comes in
 * through the arguments.
 */
#ifndef KS_PRODUCER_CONFIG_H
#define KS_PRODUCER_CONFIG_H

#include "models/kafka/config.h"
#include "sim/rng.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ks_producer_settings {
    bool idempotent;            /* effective enable.idempotence */
    bool idempotence_disabled;  /* defaulted to true, then turned off */
    const char *disabled_why;   /* which config turned it off, or NULL */
    bool transactional;         /* transactional.id set */
    int acks;                   /* -1, 0, 1 */
    int64_t retries;
    uint32_t max_in_flight;
    ks_time request_timeout_ns;
    ks_time delivery_timeout_ns;/* after configureDeliveryTimeout; before
                                   2.1 (no delivery.timeout.ms):
                                   KS_TIME_MAX */
    bool delivery_timeout_raised; /* defaulted and raised to linger +
                                     request timeout */
    ks_time linger_ns;
    ks_time retry_backoff_ns;
    ks_time retry_backoff_max_ns; /* 3.7+; otherwise = retry_backoff_ns */
    bool exponential_backoff;   /* 3.7+ (KIP-580) */
} ks_producer_settings;

/*
 * Applies Kafka's rules to `cfg` (a producer's resolved values, with
 * their `set` flags) under version v. On success fills *out and returns
 * true. When KafkaProducer's constructor would throw, returns false and
 * writes the exception as Kafka words it, e.g.
 * "ConfigException: Must set acks to all in order to use the idempotent
 * producer. Otherwise we cannot guarantee idempotence.", into
 * err[0..errlen).
 */
bool ks_producer_settings_resolve(const ks_cfg_value *cfg, ks_kafka_version v,
                                  ks_producer_settings *out, char *err, size_t errlen);

/*
 * The backoff before retry number `attempt` (1 for the first retry) of a
 * batch: retry.backoff.ms before 3.7; from 3.7
 * min(retry.backoff.max.ms, retry.backoff.ms * 2^(attempt-1) * U(0.8, 1.2))
 * with the exponent capped at log2(max / initial), the jitter drawn from
 * `rng` (one draw per call, only when exponential).
 */
ks_time ks_retry_backoff_ns(const ks_producer_settings *s, uint32_t attempt, ks_rng *rng);

#endif
