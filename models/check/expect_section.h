/*
 * expect_section.h - the scenario's "expect" section (docs/scenario.md):
 * what the run's summary must show, as plain values or comparisons
 * ({"<=": 5}).
 *
 * Owns: checking the section's form through the generic loader
 * (sim/conf.h) and keeping it as written; models/check/ judges the run
 * against it.
 */
#ifndef KS_EXPECT_SECTION_H
#define KS_EXPECT_SECTION_H

#include "sim/conf.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ks_scenario ks_scenario;


/* Checks root's "expect" and keeps a copy in sc->expect (NULL when
 * absent). */
void ks_expect_section_load(ks_conf *L, json_t *root, ks_scenario *sc);
/* The resolved "expect" object (a copy), or NULL when there is none. */
json_t *ks_expect_section_json(const ks_scenario *sc);

#endif
