/*
 * fuzz_input.h - how the scenario harnesses (fuzz_scenario, fuzz_run)
 * read a fuzzer's input.
 *
 * Owns: that input format. Leading lines of the form PATH=VALUE are
 * `--set` overrides, taken as `ksim run --set` takes them (the path is
 * everything before the first '=', never empty); at most
 * KS_FUZZ_MAX_OVERRIDES of them. A line is an override only when it ends
 * in a newline, holds no NUL byte, and does not start with '{' or JSON
 * whitespace; the first line that is not one starts the scenario file's
 * bytes, which run to the end of the input. So every file under
 * scenarios/ is an input as it stands, and "producers.0.config.acks=0\n"
 * in front of one is a run with that override.
 *
 * Ownership: ks_fuzz_input_split copies the overrides' text;
 * ks_fuzz_input_free releases it. The body points into the input.
 */
#ifndef KS_FUZZ_INPUT_H
#define KS_FUZZ_INPUT_H

#include "models/scenario.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KS_FUZZ_MAX_OVERRIDES 4

typedef struct ks_fuzz_input {
    ks_override ovr[KS_FUZZ_MAX_OVERRIDES];
    size_t n_ovr;
    char *text[KS_FUZZ_MAX_OVERRIDES]; /* "PATH\0VALUE", owned */
    const char *body;                  /* the scenario's bytes */
    size_t body_len;
} ks_fuzz_input;

/* Splits data into overrides and body. False when out of memory. */
bool ks_fuzz_input_split(ks_fuzz_input *in, const uint8_t *data, size_t size);
void ks_fuzz_input_free(ks_fuzz_input *in);

/* The scenario harnesses' loader call: body and overrides as split, no
 * --seed, file name "fuzz.json" in messages. */
ks_scenario *ks_fuzz_load(const ks_fuzz_input *in, ks_diag *diag);

/* Most partitions x (producers + consumers + 1) the harnesses build a
 * world for. The loader takes up to 100000 topics of 100000 partitions
 * each and 10000 producers, and a world's memory grows with the product
 * (50 topics of 100000 partitions and one producer: 4.9 GB, 34 s for one
 * record): past this budget an input would only find that out again, so
 * its world is not built. */
#define KS_FUZZ_MAX_CELLS 1000000u

/* True when the scenario is bigger than the budget above. */
bool ks_fuzz_too_big(const ks_scenario *sc);

#endif
