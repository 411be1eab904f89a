/*
 * expect.h - checking a scenario's "expect" block against a run's summary.
 *
 * Owns: the meaning of expectations (docs/scenario.md, "expect"). Each key
 * is a dotted path into the summary; its value is either a plain JSON
 * value (the summary must hold an equal one) or an object of comparisons
 * such as {">=": 5, "<": 10}. When the block does not mention "verdict",
 * the run must also have ended "complete": expectations about a run cut
 * short by a limit would be meaningless.
 */
#ifndef KS_EXPECT_H
#define KS_EXPECT_H

#include <jansson.h>
#include <stddef.h>

typedef struct ks_expect_result {
    size_t checked;
    size_t failed;
    size_t unknown_paths; /* paths that name nothing in the summary */
    json_t *report;       /* array of {"path","expected","actual","ok"} */
} ks_expect_result;

/* Checks `expect` (may be NULL: nothing to check) against `summary`.
 * Unknown paths count as failures and their entry carries a
 * "did_you_mean" when a close path exists. Caller frees res->report. */
void ks_expect_check(json_t *expect, json_t *summary, ks_expect_result *res);

#endif
