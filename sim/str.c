/*
 * str.c - string helpers (see str.h).
 */
#include "sim/str.h"

#include <stdio.h>
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

/* Room for `more` bytes and the NUL; false (and oom) when it cannot grow. */
static bool sb_reserve(ks_sbuf *b, size_t more)
{
    if (b->oom)
        return false;
    if (b->len + more + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->oom = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

void ks_sb_add(ks_sbuf *b, const char *p, size_t n)
{
    if (!sb_reserve(b, n))
        return;
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void ks_sb_puts(ks_sbuf *b, const char *s)
{
    ks_sb_add(b, s, strlen(s));
}

void ks_sb_vprintf(ks_sbuf *b, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n >= 0 && sb_reserve(b, (size_t)n)) {
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, again);
        b->len += (size_t)n;
    }
    va_end(again);
}

void ks_sb_printf(ks_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ks_sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void ks_sb_line(ks_sbuf *b, const char *s)
{
    if (b->len)
        ks_sb_add(b, "\n", 1);
    ks_sb_puts(b, s);
}

const char *ks_sb_str(const ks_sbuf *b)
{
    return b->s ? b->s : "";
}

void ks_sb_clear(ks_sbuf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = '\0';
}

char *ks_sb_take(ks_sbuf *b)
{
    char *s = b->oom ? NULL : b->s ? b->s : ks_strdup("");
    if (b->oom)
        free(b->s);
    *b = (ks_sbuf){0};
    return s;
}

void ks_sb_free(ks_sbuf *b)
{
    free(b->s);
    *b = (ks_sbuf){0};
}
