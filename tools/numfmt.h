/*
 * numfmt.h - how ksim's commands write numbers for people: one function
 * per kind, shared by run's console summary, explain and report, so that
 * the same value reads the same everywhere.
 */
#ifndef KS_NUMFMT_H
#define KS_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* Nanoseconds as milliseconds with three decimals, rounded to the nearest
 * microsecond (half away from zero): 4734512 -> "4.735". Returns buf. */
char *ks_fmt_ms(char *buf, size_t n, int64_t ns);
/* "1 request", "2 requests": the count and the word, plural unless 1. */
char *ks_fmt_count(char *buf, size_t n, int64_t count, const char *one, const char *many);

#endif
