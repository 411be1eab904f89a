/*
 * str.c - string helpers (see str.h).
 */
#include "sim/str.h"

#include <stdlib.h>
#include <string.h>

char *ks_strndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

char *ks_strdup(const char *s)
{
    return s ? ks_strndup(s, strlen(s)) : NULL;
}
