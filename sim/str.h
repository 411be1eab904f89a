/*
 * str.h - the few string helpers C11 lacks (strdup and strndup are POSIX).
 * The caller owns what they return; NULL means out of memory (or s NULL).
 */
#ifndef KS_STR_H
#define KS_STR_H

#include <stddef.h>

char *ks_strdup(const char *s);
/* The first n bytes of s (s must have at least n), NUL-terminated. */
char *ks_strndup(const char *s, size_t n);

#endif
