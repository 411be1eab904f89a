/*
 * diag.c - collected user-facing messages (see diag.h).
 */
#include "sim/diag.h"

#include <stdarg.h>
#include <string.h>

void ks_diag_init(ks_diag *d)
{
    memset(d, 0, sizeof *d);
}

static void add(ks_diag *d, bool warning, const char *fmt, va_list ap)
{
    if (warning)
        d->warnings++;
    else
        d->count++;
    if (d->kept >= KS_DIAG_MAX)
        return;
    vsnprintf(d->msg[d->kept], KS_DIAG_LEN, fmt, ap);
    d->is_warning[d->kept] = warning;
    d->kept++;
}

void ks_diag_error(ks_diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(d, false, fmt, ap);
    va_end(ap);
}

void ks_diag_warn(ks_diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(d, true, fmt, ap);
    va_end(ap);
}

void ks_diag_print(const ks_diag *d, FILE *f)
{
    for (unsigned i = 0; i < d->kept; i++)
        fprintf(f, "ksim: %s: %s\n", d->is_warning[i] ? "warning" : "error", d->msg[i]);
    unsigned total = d->count + d->warnings;
    if (total > d->kept)
        fprintf(f, "ksim: ... and %u more\n", total - d->kept);
}

const char *ks_diag_first(const ks_diag *d)
{
    for (unsigned i = 0; i < d->kept; i++)
        if (!d->is_warning[i])
            return d->msg[i];
    return "";
}

bool ks_diag_has(const ks_diag *d, const char *needle)
{
    for (unsigned i = 0; i < d->kept; i++)
        if (strstr(d->msg[i], needle))
            return true;
    return false;
}
