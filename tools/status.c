/*
 * status.c - exit codes, failure messages and standard output's flush
 * (see status.h).
 */
#include "tools/status.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

/* The OS error of the first failed flush of standard output, for the
 * message at the end (command-line state, not simulation state). */
static int stdout_errno;

static void prefix(const char *cmd)
{
    if (cmd && *cmd)
        fprintf(stderr, "ksim %s: ", cmd);
    else
        fputs("ksim: ", stderr);
}

int ks_status_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    prefix(cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return KS_EXIT_USAGE;
}

int ks_status_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    prefix(cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (cmd && *cmd)
        fprintf(stderr, "\nTry 'ksim %s --help' for more information.\n", cmd);
    else
        fputs("\nTry 'ksim --help' for more information.\n", stderr);
    return KS_EXIT_USAGE;
}

void ks_status_warn(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    prefix(cmd);
    fputs("warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* sim/diag.h's fields are its public interface: the messages kept, in
 * order, each an error or a warning, and the counts of all reported. */
void ks_status_diag(const char *cmd, const ks_diag *d)
{
    for (unsigned i = 0; i < d->kept; i++) {
        if (d->is_warning[i])
            ks_status_warn(cmd, "%s", d->msg[i]);
        else
            (void)ks_status_fail(cmd, "%s", d->msg[i]);
    }
    unsigned total = d->count + d->warnings;
    if (total > d->kept)
        (void)ks_status_fail(cmd, "... and %u more", total - d->kept);
}

bool ks_status_flush(FILE *f)
{
    errno = 0;
    if (fflush(f) == 0)
        return true;
    if (f == stdout && !stdout_errno)
        stdout_errno = errno;
    return false;
}

int ks_status_finish(const char *cmd, int rc)
{
    if (ks_status_flush(stdout) && !ferror(stdout) && !stdout_errno)
        return rc;
    int e = stdout_errno;
    stdout_errno = 0;
    clearerr(stdout);
    if (rc == KS_EXIT_USAGE && !e)
        return rc; /* the command failed already and said why */
    return ks_status_fail(cmd, "standard output: write failed: %s",
                          e ? strerror(e) : "an earlier write failed");
}
