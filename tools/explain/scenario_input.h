/*
 * scenario_input.h - `ksim explain SCENARIO` (see scenario_input.c). Kept
 * apart from internal.h: this part includes the models, whose parameter
 * names would shadow explain's own types.
 */
#ifndef KS_EX_SCENARIO_INPUT_H
#define KS_EX_SCENARIO_INPUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* When `in` (at `path`) holds a scenario, not a trace, runs it at trace
 * level record and returns its trace (a temporary file, rewound) with
 * *summary; else NULL, with *is_scenario true when it was meant as a
 * scenario but cannot run (its messages printed). */
FILE *ks_ex_scenario_trace(FILE *in, const char *path, json_t **summary, bool *is_scenario);

#endif
