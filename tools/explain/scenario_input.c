/*
 * scenario_input.c - `ksim explain SCENARIO`: a scenario file given where
 * a trace belongs is run in process at trace level record, and its trace
 * and summary are what explain reads (nothing is written to disk).
 *
 * Owns: telling a scenario from a trace (a trace's first line is its
 * header, {"t":0,"ev":"header",...}, on one line) and the run.
 */
#include "tools/explain/scenario_input.h"

#include "models/scenario.h"
#include "models/world.h"
#include "tools/status.h"

#include <stdlib.h>
#include <string.h>

/* Does the stream start like a trace? (Peeks, then rewinds.) */
static bool looks_like_trace(FILE *in)
{
    char head[16] = {0};
    size_t n = fread(head, 1, sizeof head - 1, in);
    rewind(in);
    return n >= 5 && strncmp(head, "{\"t\":", 5) == 0;
}

FILE *ks_ex_scenario_trace(FILE *in, const char *path, json_t **summary, bool *is_scenario)
{
    *summary = NULL;
    *is_scenario = false;
    if (in == stdin || looks_like_trace(in))
        return NULL;
    ks_diag *d = malloc(sizeof *d);
    if (!d)
        return NULL;
    ks_diag_init(d);
    ks_scenario *sc = ks_scenario_load(path, NULL, 0, false, 0, d);
    if (!sc) {
        /* not a trace either: the scenario's problems say more than a
         * trace reader's "not JSON" would, if it is meant as one */
        *is_scenario = ks_diag_has(d, "$.");
        if (*is_scenario)
            ks_status_diag("explain", d);
        free(d);
        return NULL;
    }
    *is_scenario = true;
    FILE *f = tmpfile();
    ks_trace *tr = f ? malloc(sizeof *tr) : NULL;
    ks_world *w = NULL;
    if (tr) {
        ks_trace_init(tr, f, KS_TL_RECORD);
        w = ks_world_create(sc, tr, d);
    }
    if (w) {
        ks_world_run(w);
        *summary = ks_world_summary(w);
        ks_world_free(w);
    }
    if (!w || !ks_trace_flush(tr) || !*summary) {
        ks_status_diag("explain", d);
        if (!w && d->count == 0)
            ks_status_fail("explain", "%s: cannot run the scenario (out of memory)", path);
        json_decref(*summary);
        *summary = NULL;
        if (f)
            fclose(f);
        f = NULL;
    } else {
        rewind(f);
    }
    free(tr);
    ks_scenario_free(sc);
    free(d);
    return f;
}
