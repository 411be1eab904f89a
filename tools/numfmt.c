/*
 * numfmt.c - numbers for people (see numfmt.h).
 */
#include "tools/numfmt.h"

#include <inttypes.h>
#include <stdio.h>

char *ks_fmt_ms(char *buf, size_t n, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    uint64_t us = a / 1000u + (a % 1000u >= 500u ? 1u : 0u);
    snprintf(buf, n, "%s%" PRIu64 ".%03" PRIu64, ns < 0 && us > 0 ? "-" : "", us / 1000u,
             us % 1000u);
    return buf;
}

char *ks_fmt_count(char *buf, size_t n, int64_t count, const char *one, const char *many)
{
    snprintf(buf, n, "%" PRId64 " %s", count, count == 1 ? one : many);
    return buf;
}
