/*
 * out.c - writing Chrome trace events: one event's JSON text built in the
 * exporter's buffer, then written out, one event a line.
 *
 * Timestamps and durations are ksim's integer nanoseconds written as
 * microseconds with the nanoseconds as decimals (1234567 ns is 1234.567),
 * by integer arithmetic: never through a double, so every value is exact
 * and the same trace gives the same bytes everywhere. Strings of trace
 * lines are valid UTF-8 without NUL (the reader refuses others); they are
 * written with the escapes JSON requires. Also the exporter's error: the
 * first reason it stops (ks_xp_fail), which every file may give.
 */
#include "tools/export/internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

void ks_xp_json_str(ks_sbuf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    ks_sb_add(b, "\"", 1);
    const char *run = s;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        ks_sb_add(b, run, (size_t)(p - run));
        run = p + 1;
        char esc[6] = {'\\', (char)c, 0, 0, 0, 0};
        size_t n = 2;
        if (c == '\n')
            esc[1] = 'n';
        else if (c == '\t')
            esc[1] = 't';
        else if (c == '\r')
            esc[1] = 'r';
        else if (c < 0x20) {
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            n = 6;
        }
        ks_sb_add(b, esc, n);
    }
    ks_sb_puts(b, run);
    ks_sb_add(b, "\"", 1);
}

void ks_xp_json_us(ks_sbuf *b, int64_t ns)
{
    /* the magnitude as unsigned, so that INT64_MIN needs no special case */
    uint64_t m = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    unsigned frac = (unsigned)(m % 1000);
    if (frac == 0) {
        ks_sb_printf(b, "%s%" PRIu64, ns < 0 ? "-" : "", m / 1000);
        return;
    }
    char digits[4];
    snprintf(digits, sizeof digits, "%03u", frac);
    size_t n = 3;
    while (digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    ks_sb_printf(b, "%s%" PRIu64 ".%s", ns < 0 ? "-" : "", m / 1000, digits);
}

/* Records why the export stops (the first reason stands); false, for
 * `return ks_xp_fail(...)`. */
bool ks_xp_fail(exporter *x, const char *fmt, ...)
{
    if (x->err[0])
        return false; /* the first reason stands */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->err, sizeof x->err, fmt, ap);
    va_end(ap);
    return false;
}

void ks_xp_write(exporter *x, const char *s, size_t n)
{
    if (n && fwrite(s, 1, n, x->out) != n)
        x->write_failed = true;
}

void ks_xp_ev_begin(exporter *x, const char *name, const char *cat, char ph, int64_t ts_ns,
                    const track *tk)
{
    ks_sbuf *b = &x->ev;
    ks_sb_clear(b);
    x->args_open = false;
    ks_sb_puts(b, x->written ? ",\n{\"name\":" : "{\"name\":");
    ks_xp_json_str(b, name);
    ks_sb_puts(b, ",\"cat\":");
    ks_xp_json_str(b, cat);
    ks_sb_printf(b, ",\"ph\":\"%c\",\"ts\":", ph);
    ks_xp_json_us(b, ts_ns);
    ks_sb_printf(b, ",\"pid\":%zu,\"tid\":%" PRId64, tk->node + 1, tk->tid);
}

void ks_xp_ev_dur(exporter *x, int64_t dur_ns)
{
    ks_sb_puts(&x->ev, ",\"dur\":");
    ks_xp_json_us(&x->ev, dur_ns);
}

void ks_xp_ev_scope(exporter *x, char scope)
{
    ks_sb_printf(&x->ev, ",\"s\":\"%c\"", scope);
}

/* Opens args, or adds the comma before the next member. */
static void arg_sep(exporter *x)
{
    ks_sb_puts(&x->ev, x->args_open ? "," : ",\"args\":{");
    x->args_open = true;
}

void ks_xp_arg_int(exporter *x, const char *key, int64_t v)
{
    arg_sep(x);
    ks_xp_json_str(&x->ev, key);
    ks_sb_printf(&x->ev, ":%" PRId64, v);
}

void ks_xp_arg_str(exporter *x, const char *key, const char *v)
{
    arg_sep(x);
    ks_xp_json_str(&x->ev, key);
    ks_sb_add(&x->ev, ":", 1);
    ks_xp_json_str(&x->ev, v);
}

void ks_xp_arg_raw(exporter *x, const char *members)
{
    if (!members || !*members)
        return;
    arg_sep(x);
    ks_sb_puts(&x->ev, members);
}

static bool skipped(const char *key, const char *const *skip)
{
    if (strcmp(key, "t") == 0 || strcmp(key, "ev") == 0)
        return true;
    for (; skip && *skip; skip++)
        if (strcmp(key, *skip) == 0)
            return true;
    return false;
}

/* Appends the fields of l (but t, ev and those in skip) as members, each
 * with a comma before it unless it is the first (*first). */
static void add_fields(ks_sbuf *b, const ks_tline *l, const char *const *skip, bool *first)
{
    for (size_t i = 0; i < l->n; i++) {
        const ks_tl_field *f = &l->fields[i];
        if (skipped(f->key, skip))
            continue;
        if (!*first)
            ks_sb_add(b, ",", 1);
        *first = false;
        ks_xp_json_str(b, f->key);
        ks_sb_add(b, ":", 1);
        switch (f->type) {
        case KS_TLT_NULL:
            ks_sb_puts(b, "null");
            break;
        case KS_TLT_BOOL:
            ks_sb_puts(b, f->i ? "true" : "false");
            break;
        case KS_TLT_INT:
            ks_sb_printf(b, "%" PRId64, f->i);
            break;
        case KS_TLT_STRING:
            ks_xp_json_str(b, f->s);
            break;
        case KS_TLT_REAL:
        case KS_TLT_OBJECT:
        case KS_TLT_ARRAY: /* checked JSON, kept as written */
            ks_sb_add(b, f->s, f->len);
            break;
        }
    }
}

void ks_xp_arg_fields(exporter *x, const ks_tline *l)
{
    bool first = !x->args_open;
    if (first) {
        /* open args only if there is a field to put in it */
        bool any = false;
        for (size_t i = 0; i < l->n && !any; i++)
            any = !skipped(l->fields[i].key, NULL);
        if (!any)
            return;
        ks_sb_puts(&x->ev, ",\"args\":{");
        x->args_open = true;
    }
    add_fields(&x->ev, l, NULL, &first);
}

char *ks_xp_fields_text(const ks_tline *l, const char *const *skip)
{
    ks_sbuf b = {0};
    bool first = true;
    add_fields(&b, l, skip, &first);
    return ks_sb_take(&b);
}

void ks_xp_ev_end(exporter *x)
{
    ks_sbuf *b = &x->ev;
    ks_sb_puts(b, x->args_open ? "}}" : "}");
    x->args_open = false;
    if (b->oom) {
        x->oom = true;
        return;
    }
    ks_xp_write(x, b->s, b->len);
    x->written++;
}

void ks_xp_instant(exporter *x, const char *name, const char *cat, int64_t ts_ns, const track *tk,
                   char scope, const ks_tline *l)
{
    if (!tk)
        return;
    ks_xp_ev_begin(x, name, cat, 'i', ts_ns, tk);
    ks_xp_ev_scope(x, scope);
    if (l)
        ks_xp_arg_fields(x, l);
    ks_xp_ev_end(x);
}
