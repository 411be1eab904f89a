/*
 * diag.h - user-facing error messages, collected.
 *
 * Owns: a bounded list of messages about bad input ("FILE: $.path: what
 * was expected, got VALUE"). Loaders report every problem they find, not
 * just the first, and the caller prints them all. Never used for our own
 * bugs (those are asserts).
 */
#ifndef KS_DIAG_H
#define KS_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define KS_DIAG_MAX 32
#define KS_DIAG_LEN 512

typedef struct ks_diag {
    unsigned count;     /* errors reported, may exceed KS_DIAG_MAX */
    unsigned warnings;  /* warnings reported */
    unsigned kept;      /* messages stored */
    char msg[KS_DIAG_MAX][KS_DIAG_LEN];
    bool is_warning[KS_DIAG_MAX];
} ks_diag;

void ks_diag_init(ks_diag *d);
/* Adds an error (printf-style). */
void ks_diag_error(ks_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ks_diag_warn(ks_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints every message, "ksim: error: ..." / "ksim: warning: ...". */
void ks_diag_print(const ks_diag *d, FILE *f);
/* The first stored error message, or "" (for tests). */
const char *ks_diag_first(const ks_diag *d);
/* True if some stored error contains `needle` (for tests). */
bool ks_diag_has(const ks_diag *d, const char *needle);

#endif
