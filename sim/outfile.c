/*
 * outfile.c - atomic output files (see outfile.h). POSIX: mkstemp, fsync,
 * stat and mkdir are needed here and only here.
 */
#define _POSIX_C_SOURCE 200809L

#include "sim/outfile.h"

#include "sim/str.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary files not yet committed, so that an interrupt (SIGINT,
 * SIGTERM, SIGHUP) removes them instead of leaving them behind. This is
 * process state of the command line, not simulation state: a slot is
 * claimed on open and released on commit or abort. */
#define MAX_TEMPS 8
#define TEMP_PATH_MAX 4096
static char temps[MAX_TEMPS][TEMP_PATH_MAX];
static volatile sig_atomic_t temp_used[MAX_TEMPS];
static bool handlers_installed;

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temp_used[i])
            unlink(temps[i]); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void track(const char *tmp)
{
    if (!handlers_installed) {
        handlers_installed = true;
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        signal(SIGHUP, on_signal);
    }
    if (strlen(tmp) >= TEMP_PATH_MAX)
        return;
    for (int i = 0; i < MAX_TEMPS; i++) {
        if (!temp_used[i]) {
            memcpy(temps[i], tmp, strlen(tmp) + 1);
            temp_used[i] = 1;
            return;
        }
    }
}

static void untrack(const char *tmp)
{
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temp_used[i] && strcmp(temps[i], tmp) == 0)
            temp_used[i] = 0;
}

/* mkdir -p of the directory part of `path`. */
static bool make_parents(const char *path, char *err, size_t errlen)
{
    char *d = ks_strdup(path);
    if (!d)
        return false;
    for (char *p = d + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(d, 0777) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "%s: cannot create directory %s: %s", path, d, strerror(errno));
            free(d);
            return false;
        }
        *p = '/';
    }
    free(d);
    return true;
}

bool ks_outfile_open(ks_outfile *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    if (strcmp(path, "-") == 0) {
        o->is_stdout = true;
        o->f = stdout;
        o->path = ks_strdup(path);
        return o->path != NULL;
    }
    o->path = ks_strdup(path);
    if (!o->path)
        return false;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        o->f = fopen(path, "wb");
        if (!o->f) {
            snprintf(err, errlen, "%s: cannot open for writing: %s", path, strerror(errno));
            free(o->path);
            o->path = NULL;
            return false;
        }
        return true;
    }
    if (!make_parents(path, err, errlen)) {
        free(o->path);
        o->path = NULL;
        return false;
    }
    size_t n = strlen(path) + 16;
    o->tmp = malloc(n);
    if (!o->tmp) {
        free(o->path);
        o->path = NULL;
        return false;
    }
    snprintf(o->tmp, n, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
        snprintf(err, errlen, "%s: cannot create a temporary file beside it: %s", path,
                 strerror(errno));
        if (fd >= 0) {
            close(fd);
            remove(o->tmp);
        }
        free(o->tmp);
        free(o->path);
        o->tmp = o->path = NULL;
        return false;
    }
    track(o->tmp);
    /* mkstemp creates 0600; outputs are ordinary files for the user. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    return true;
}

static void release(ks_outfile *o)
{
    if (o->tmp)
        untrack(o->tmp);
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    o->f = NULL;
}

bool ks_outfile_commit(ks_outfile *o, char *err, size_t errlen)
{
    bool ok = true;
    if (o->is_stdout) {
        ok = fflush(stdout) == 0;
        if (!ok)
            snprintf(err, errlen, "standard output: write failed: %s", strerror(errno));
        release(o);
        return ok;
    }
    if (fflush(o->f) != 0 || ferror(o->f)) {
        snprintf(err, errlen, "%s: write failed: %s", o->path, strerror(errno));
        ok = false;
    }
    if (ok && o->tmp && fsync(fileno(o->f)) != 0) {
        snprintf(err, errlen, "%s: fsync failed: %s", o->path, strerror(errno));
        ok = false;
    }
    if (fclose(o->f) != 0 && ok) {
        snprintf(err, errlen, "%s: close failed: %s", o->path, strerror(errno));
        ok = false;
    }
    if (ok && o->tmp && rename(o->tmp, o->path) != 0) {
        snprintf(err, errlen, "%s: cannot rename %s into place: %s", o->path, o->tmp,
                 strerror(errno));
        ok = false;
    }
    if (!ok && o->tmp)
        remove(o->tmp);
    release(o);
    return ok;
}

void ks_outfile_abort(ks_outfile *o)
{
    if (!o->path)
        return;
    if (!o->is_stdout && o->f) {
        fclose(o->f);
        if (o->tmp)
            remove(o->tmp);
    }
    release(o);
}
