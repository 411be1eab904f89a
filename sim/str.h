/*
 * str.h - the few string helpers C11 lacks (strdup and strndup are POSIX),
 * and a growing string for text built piece by piece. The caller owns what
 * they return; NULL means out of memory (or s NULL).
 */
#ifndef KS_STR_H
#define KS_STR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

char *ks_strdup(const char *s);
/* The first n bytes of s (s must have at least n), NUL-terminated. */
char *ks_strndup(const char *s, size_t n);

/* A growing string; {0} is the empty one. A failed allocation sets `oom`
 * and every later append is ignored: the text is then cut short, and
 * ks_sb_take gives NULL. */
typedef struct ks_sbuf {
    char *s;
    size_t len, cap;
    bool oom;
} ks_sbuf;

void ks_sb_add(ks_sbuf *b, const char *p, size_t n);
void ks_sb_puts(ks_sbuf *b, const char *s);
void ks_sb_printf(ks_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ks_sb_vprintf(ks_sbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Appends s as a new line of a '\n'-separated list. */
void ks_sb_line(ks_sbuf *b, const char *s);
/* The text so far ("" when none); valid until the next append. */
const char *ks_sb_str(const ks_sbuf *b);
/* Empties the text, keeping its memory. */
void ks_sb_clear(ks_sbuf *b);
/* The text, now the caller's ("" when nothing was added), or NULL when
 * memory ran out; b is left empty. */
char *ks_sb_take(ks_sbuf *b);
void ks_sb_free(ks_sbuf *b);

#endif
