/*
 * ctx.c - the run's registry of random streams, and running out of
 * memory (see ctx.h).
 */
#include "models/ctx.h"

#include "sim/str.h"

#include <stdlib.h>

bool ks_streams_add(ks_streams *s, ks_rng *r, const char *name)
{
    ks_rng_stream(r, s->seed, name);
    if (s->count == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2u : 16u;
        char **names = realloc(s->names, cap * sizeof *names);
        if (!names)
            return false;
        s->names = names;
        s->cap = cap;
    }
    char *copy = ks_strdup(name);
    if (!copy)
        return false;
    s->names[s->count++] = copy;
    return true;
}

void ks_streams_free(ks_streams *s)
{
    for (uint32_t i = 0; i < s->count; i++)
        free(s->names[i]);
    free(s->names);
    s->names = NULL;
    s->count = s->cap = 0;
}

void ks_ctx_oom(ks_ctx *cx)
{
    *cx->out_of_memory = true;
    ks_sim_stop(&cx->sim, KS_SIM_OUT_OF_MEMORY);
}
