/*
 * scenario.h - scenario files: loading, validation, defaults, overrides.
 *
 * Owns: the scenario format (docs/scenario.md, format version
 * KS_SCENARIO_FORMAT) and the resolved, typed scenario every model is
 * built from. Loading is strict: unknown keys (with "did you mean"), wrong
 * types and out-of-range values are errors naming the file, the JSON path,
 * the value and what was expected; every error is reported, not just the
 * first. Defaults come from the Kafka version (models/kafka/config.h) and
 * from the documented cost model. "--set path=value" overrides are applied
 * to the document before validation, so they are checked the same way.
 *
 * The ks_scenario struct itself is models/scenario_types.h's (so that
 * the sections can fill it in without including this file); this header
 * gathers it with every section's loader, and is what the models include.
 *
 * Ownership: ks_scenario_load allocates; ks_scenario_free releases
 * everything, including strings that configs point at.
 */
#ifndef KS_SCENARIO_H
#define KS_SCENARIO_H

#include "models/broker/broker_section.h"
#include "models/broker/topic_section.h"
#include "models/consumer/consumer_section.h"
#include "models/net/fault_section.h"
#include "models/net/network_section.h"
#include "models/producer/producer_section.h"
#include "models/producer/workload_section.h"
#include "models/scenario_types.h"
#include "sim/conf.h"
#include "sim/diag.h"
#include "sim/dist.h"
#include "models/kafka/config.h"
#include "models/kafka/config_json.h"
#include "models/kafka/errors.h"
#include "models/producer/partitioner.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define KS_SCENARIO_FORMAT 1

/* --set overrides (ks_override, KS_MAX_OVERRIDES) are sim/conf.h's. */

/*
 * Loads and validates `file` ("-" reads standard input), applying the
 * overrides in order, then `seed` if has_seed. Returns NULL and fills
 * `diag` on any error; warnings (keys no model reads yet) may be added to
 * `diag` on success.
 */
ks_scenario *ks_scenario_load(const char *file, const ks_override *ovr, size_t n_ovr,
                              bool has_seed, uint64_t seed, ks_diag *diag);
/* Same, from text in memory (tests); `file` is only used in messages. */
ks_scenario *ks_scenario_parse(const char *file, const char *text, const ks_override *ovr,
                               size_t n_ovr, bool has_seed, uint64_t seed, ks_diag *diag);
/* Same, from `len` bytes that need not end in a NUL (a file read whole,
 * a fuzzer's input). A NUL byte anywhere is an error naming its offset. */
ks_scenario *ks_scenario_parse_bytes(const char *file, const char *data, size_t len,
                                     const ks_override *ovr, size_t n_ovr, bool has_seed,
                                     uint64_t seed, ks_diag *diag);
void ks_scenario_free(ks_scenario *sc);

/* The resolved scenario as JSON: every ksim value with defaults filled
 * in, Kafka configs as set explicitly (kafka.version supplies the rest),
 * in a fixed key order. It is itself a valid scenario that reruns the
 * same simulation; the trace header carries it. Caller owns the result. */
json_t *ks_scenario_to_json(const ks_scenario *sc);

#endif
