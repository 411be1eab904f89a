/*
 * fuzz_run.c - fuzzes loading plus a short simulation, as `ksim run`
 * does it (tools/cli.c, simulate): load with the input's --set overrides
 * (fuzz_input.h), build the world, run it tracing at the debug level into
 * /dev/null, build the summary, check the expect block, free everything.
 *
 * The scenario's limits are clamped after loading (max events, virtual
 * time, pending events) so that every input runs in milliseconds; a run
 * cut short by a limit still ends with a verdict, summary and all. Some
 * events cost time in proportion to the partitions (the sender's drain
 * looks at each one, as Kafka's RecordAccumulator does), so the event
 * limit shrinks as the partitions grow, and no world is built past
 * KS_FUZZ_MAX_CELLS (fuzz_input.h). The trace sink is opened once
 * and never closed.
 */
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/fuzz_target.h"

#include "models/world.h"
#include "sim/diag.h"
#include "sim/expect.h"
#include "models/scenario.h"
#include "sim/trace.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_MAX_EVENTS 20000u
#define FUZZ_MAX_TIME_NS (INT64_C(600) * 1000000000) /* ten virtual minutes */
#define FUZZ_MAX_PENDING 20000u
/* events x partitions one input may cost */
#define FUZZ_WORK 20000000u
#define FUZZ_MIN_EVENTS 100u

static FILE *sink(void)
{
    static FILE *f;
    if (!f)
        f = fopen("/dev/null", "w");
    return f;
}

static void clamp_limits(ks_scenario *sc)
{
    ks_limits_conf *l = &sc->limits;
    uint64_t parts = 1;
    for (uint32_t i = 0; i < sc->topic_count; i++)
        parts += sc->topics[i].max_partitions;
    uint64_t events = FUZZ_WORK / parts;
    if (events > FUZZ_MAX_EVENTS)
        events = FUZZ_MAX_EVENTS;
    if (events < FUZZ_MIN_EVENTS)
        events = FUZZ_MIN_EVENTS;
    if (l->max_events == 0 || l->max_events > events)
        l->max_events = events;
    if (l->max_time_ns <= 0 || l->max_time_ns > FUZZ_MAX_TIME_NS)
        l->max_time_ns = FUZZ_MAX_TIME_NS;
    if (l->max_pending == 0 || l->max_pending > FUZZ_MAX_PENDING)
        l->max_pending = FUZZ_MAX_PENDING;
}

/* Runs a loaded scenario to its verdict, writes its summary as ksim run
 * does (a big topology's partitions as text) and checks its
 * expectations. */
static void run(ks_scenario *sc, ks_trace *tr, ks_diag *diag)
{
    clamp_limits(sc);
    ks_trace_init(tr, sink(), KS_TL_DEBUG);
    ks_world *w = ks_world_create(sc, tr, diag);
    if (!w)
        return;
    ks_world_run(w);
    bool lean = false;
    json_t *summary = ks_world_summary_lean(w, &lean);
    if (summary) /* (NULL: out of memory) */
        ks_summary_dumpf(summary, lean ? w : NULL, sink(), JSON_INDENT(2));
    ks_world_free(w);
    if (!summary)
        return;
    ks_expect_result er = {0};
    ks_expect_check(sc->expect, summary, &er);
    json_decref(er.report);
    json_decref(summary);
    ks_trace_flush(tr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ks_fuzz_input in;
    ks_diag *diag = malloc(sizeof *diag);
    ks_trace *tr = malloc(sizeof *tr);
    if (!diag || !tr || !ks_fuzz_input_split(&in, data, size)) {
        free(diag);
        free(tr);
        return 0;
    }
    ks_diag_init(diag);
    ks_scenario *sc = ks_fuzz_load(&in, diag);
    if (sc && !ks_fuzz_too_big(sc))
        run(sc, tr, diag);
    ks_scenario_free(sc);
    ks_fuzz_input_free(&in);
    free(tr);
    free(diag);
    return 0;
}
