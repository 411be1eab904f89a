/*
 * fuzz_scenario.c - fuzzes the scenario loader and the models' own
 * validation, as `ksim validate` runs them: ks_scenario_parse_bytes with
 * the input's --set overrides (fuzz_input.h), then, when it loads,
 * ks_world_create (Kafka's ConfigException rules and the like), then
 * frees everything. No world is built for a scenario past
 * KS_FUZZ_MAX_CELLS (fuzz_input.h).
 *
 * One property is checked too, the one `ksim validate --resolved` and
 * tests/resolved_roundtrip.cmake rely on (models/scenario.h): the resolved
 * form of a scenario that loads is itself a scenario that loads, builds
 * a world and resolves to the same text. When it does not, the harness
 * prints why and aborts.
 *
 * Never runs a simulation: that is fuzz_run's.
 */
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/fuzz_target.h"

#include "models/world.h"
#include "sim/diag.h"
#include "models/scenario.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *resolved_text(const ks_scenario *sc)
{
    json_t *j = ks_scenario_to_json(sc);
    char *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
    json_decref(j);
    return text;
}

/* The resolved form of sc reloads and resolves to the same text. */
static void check_round_trip(const ks_scenario *sc, ks_diag *diag)
{
    char *first = resolved_text(sc);
    if (!first)
        return;
    ks_diag_init(diag);
    ks_scenario *again = ks_scenario_parse("resolved.json", first, NULL, 0, false, 0, diag);
    ks_world *w = again ? ks_world_create(again, NULL, diag) : NULL;
    char *second = w ? resolved_text(again) : NULL;
    if (!w || (second && strcmp(first, second) != 0)) {
        fprintf(stderr, "fuzz_scenario: the resolved scenario %s:\n%s\n",
                w ? "resolves differently" : "does not load", first);
        ks_diag_print(diag, stderr);
        abort();
    }
    free(second);
    ks_world_free(w);
    ks_scenario_free(again);
    free(first);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ks_fuzz_input in;
    ks_diag *diag = malloc(sizeof *diag);
    if (!diag)
        return 0;
    if (!ks_fuzz_input_split(&in, data, size)) {
        free(diag);
        return 0;
    }
    ks_diag_init(diag);
    ks_scenario *sc = ks_fuzz_load(&in, diag);
    if (sc && !ks_fuzz_too_big(sc)) {
        ks_world *w = ks_world_create(sc, NULL, diag);
        if (w)
            check_round_trip(sc, diag);
        ks_world_free(w);
    }
    ks_scenario_free(sc);
    ks_fuzz_input_free(&in);
    free(diag);
    return 0;
}
