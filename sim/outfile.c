/*
 * outfile.c - atomic output files (see outfile.h). POSIX and flock(2):
 * mkstemp, fsync, stat, mkdir, realpath, nftw and the directory locks are
 * needed here and only here.
 */
#define _DEFAULT_SOURCE /* flock, and nftw with FTW_DEPTH and FTW_PHYS */
#define _XOPEN_SOURCE 700

#include "sim/outfile.h"

#include "sim/str.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

/* ---- directories ---------------------------------------------------------- */

static bool remember(char ***made, size_t *n, const char *dir)
{
    char **m = realloc(*made, (*n + 1) * sizeof **made);
    if (!m)
        return false;
    *made = m;
    if (!(m[*n] = ks_strdup(dir)))
        return false;
    (*n)++;
    return true;
}

/* mkdir -p of `dir` (of its first `len` bytes), recording each directory
 * it creates. */
static bool make_dirs(const char *dir, size_t len, char ***made, size_t *n_made, char *err,
                      size_t errlen)
{
    char *d = ks_strndup(dir, len);
    if (!d) {
        snprintf(err, errlen, "%s: out of memory", dir);
        return false;
    }
    bool ok = true;
    for (char *p = d + 1; ok; p++) {
        bool end = *p == '\0';
        if (*p != '/' && !end)
            continue;
        *p = '\0';
        if (mkdir(d, 0777) == 0) {
            ok = remember(made, n_made, d);
            if (!ok)
                snprintf(err, errlen, "%s: out of memory", dir);
        } else if (errno != EEXIST) {
            snprintf(err, errlen, "%s: cannot create directory %s: %s", dir, d, strerror(errno));
            ok = false;
        }
        if (end)
            break;
        *p = '/';
    }
    free(d);
    return ok;
}

/* Removes the directories of made[] deepest first; with `all`, what is in
 * them too (they are ours: this process created them). */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static void remove_made(char **made, size_t n, bool all)
{
    for (size_t i = n; i-- > 0;) {
        if (all)
            nftw(made[i], remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        else
            rmdir(made[i]);
    }
}

static void free_made(char ***made, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        free((*made)[i]);
    free(*made);
    *made = NULL;
    *n = 0;
}

bool ks_outdir_make(ks_outdir *d, const char *dir, char *err, size_t errlen)
{
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    if (len == 0) {
        snprintf(err, errlen, "an empty directory name");
        return false;
    }
    if (make_dirs(dir, len, &d->made, &d->n_made, err, errlen))
        return true;
    ks_outdir_remove(d);
    return false;
}

void ks_outdir_remove(ks_outdir *d)
{
    remove_made(d->made, d->n_made, true);
    free_made(&d->made, &d->n_made);
}

void ks_outdir_keep(ks_outdir *d)
{
    free_made(&d->made, &d->n_made);
}

/* ---- one file --------------------------------------------------------------- */

static void release(ks_outfile *o)
{
    if (o->tmp)
        untrack(o->tmp);
    free(o->path);
    free(o->tmp);
    free_made(&o->made, &o->n_made);
    o->path = o->tmp = NULL;
    o->f = NULL;
}

/* A temporary file beside the target, mode 0666 & ~umask like any file
 * the user's programs create (mkstemp makes 0600). */
static bool open_temp(ks_outfile *o, char *err, size_t errlen)
{
    size_t n = strlen(o->path) + 16;
    if (!(o->tmp = malloc(n))) {
        snprintf(err, errlen, "%s: out of memory", o->path);
        return false;
    }
    snprintf(o->tmp, n, "%s.tmp-XXXXXX", o->path);
    int fd = mkstemp(o->tmp);
    if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
        snprintf(err, errlen, "%s: cannot create a temporary file beside it: %s", o->path,
                 strerror(errno));
        if (fd >= 0) {
            close(fd);
            remove(o->tmp);
        }
        free(o->tmp);
        o->tmp = NULL;
        return false;
    }
    track(o->tmp);
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    return true;
}

bool ks_outfile_open(ks_outfile *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    if (!(o->path = ks_strdup(path))) {
        snprintf(err, errlen, "%s: out of memory", path);
        return false;
    }
    if (strcmp(path, "-") == 0) {
        o->is_stdout = true;
        o->f = stdout;
        return true;
    }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            snprintf(err, errlen, "%s: is a directory, not a file", path);
        else if (!(o->f = fopen(path, "wb")))
            snprintf(err, errlen, "%s: cannot open for writing: %s", path, strerror(errno));
        if (!o->f)
            release(o);
        return o->f != NULL;
    }
    const char *slash = strrchr(path, '/');
    bool ok = !slash || slash == path ||
              make_dirs(path, (size_t)(slash - path), &o->made, &o->n_made, err, errlen);
    if (ok)
        ok = open_temp(o, err, errlen);
    if (!ok) {
        remove_made(o->made, o->n_made, false);
        release(o);
    }
    return ok;
}

/* Writes out, syncs and closes; false with err. The temporary stays. */
static bool finish(ks_outfile *o, char *err, size_t errlen)
{
    if (o->is_stdout) {
        if (fflush(stdout) != 0 || ferror(stdout)) {
            snprintf(err, errlen, "standard output: write failed: %s", strerror(errno));
            return false;
        }
        return true;
    }
    bool ok = true;
    errno = 0;
    if (fflush(o->f) != 0 || ferror(o->f)) {
        snprintf(err, errlen, "%s: write failed: %s", o->path,
                 errno ? strerror(errno) : "I/O error");
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
    o->f = NULL;
    return ok;
}

bool ks_outfile_commit(ks_outfile *o, char *err, size_t errlen)
{
    ks_outfile *one[1] = {o};
    return ks_outfile_commit_all(one, 1, err, errlen);
}

void ks_outfile_abort(ks_outfile *o)
{
    ks_outfile *one[1] = {o};
    ks_outfile_abort_all(one, 1);
}

void ks_outfile_abort_all(ks_outfile *const *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ks_outfile *o = files[i];
        if (!o->path || o->is_stdout)
            continue;
        if (o->f)
            fclose(o->f);
        o->f = NULL;
        if (o->tmp)
            remove(o->tmp);
    }
    for (size_t i = n; i-- > 0;)
        remove_made(files[i]->made, files[i]->n_made, false);
    for (size_t i = 0; i < n; i++)
        if (files[i]->path)
            release(files[i]);
}

/* ---- committing together ---------------------------------------------------- */

#define MAX_LOCKS 8

typedef struct dir_locks {
    int fd[MAX_LOCKS];
    size_t n;
} dir_locks;

static int cmp_fd_inode(const void *a, const void *b)
{
    struct stat sa, sb;
    fstat(*(const int *)a, &sa);
    fstat(*(const int *)b, &sb);
    if (sa.st_dev != sb.st_dev)
        return sa.st_dev < sb.st_dev ? -1 : 1;
    return sa.st_ino < sb.st_ino ? -1 : sa.st_ino > sb.st_ino;
}

/* Opens the directory of a target, once per directory. */
static void add_dir(dir_locks *l, const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? ks_strndup(path, slash == path ? 1 : (size_t)(slash - path)) : ks_strdup(".");
    int fd = dir && l->n < MAX_LOCKS ? open(dir, O_RDONLY | O_DIRECTORY) : -1;
    free(dir);
    if (fd < 0)
        return;
    struct stat st, s2;
    fstat(fd, &st);
    for (size_t i = 0; i < l->n; i++) {
        fstat(l->fd[i], &s2);
        if (s2.st_dev == st.st_dev && s2.st_ino == st.st_ino) {
            close(fd);
            return;
        }
    }
    l->fd[l->n++] = fd;
}

/* Locks in inode order, so that two commits never wait on each other
 * crosswise. A file system without flock is committed without it. */
static void lock_dirs(dir_locks *l, ks_outfile *const *files, size_t n)
{
    l->n = 0;
    for (size_t i = 0; i < n; i++)
        if (files[i]->tmp)
            add_dir(l, files[i]->path);
    qsort(l->fd, l->n, sizeof *l->fd, cmp_fd_inode);
    for (size_t i = 0; i < l->n; i++)
        while (flock(l->fd[i], LOCK_EX) != 0 && errno == EINTR)
            ;
}

static void unlock_dirs(dir_locks *l)
{
    for (size_t i = l->n; i-- > 0;) {
        flock(l->fd[i], LOCK_UN);
        close(l->fd[i]);
    }
    l->n = 0;
}

/* Renames every temporary into place, the seal's old target removed
 * first; on a failure undoes the renames done. */
static bool rename_all(ks_outfile *const *files, size_t n, char *err, size_t errlen)
{
    size_t last = n;
    while (last > 0 && !files[last - 1]->tmp)
        last--;
    if (last > 1 && unlink(files[last - 1]->path) != 0 && errno != ENOENT) {
        snprintf(err, errlen, "%s: cannot replace it: %s", files[last - 1]->path,
                 strerror(errno));
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        ks_outfile *o = files[i];
        if (!o->tmp)
            continue;
        if (rename(o->tmp, o->path) != 0) {
            snprintf(err, errlen, "%s: cannot rename %s into place: %s", o->path, o->tmp,
                     strerror(errno));
            for (size_t j = 0; j < i; j++)
                if (files[j]->tmp)
                    unlink(files[j]->path);
            return false;
        }
        untrack(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    return true;
}

bool ks_outfile_commit_all(ks_outfile *const *files, size_t n, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        if (files[i]->path && !finish(files[i], err, errlen)) {
            ks_outfile_abort_all(files, n);
            return false;
        }
    }
    dir_locks locks;
    lock_dirs(&locks, files, n);
    bool ok = rename_all(files, n, err, errlen);
    unlock_dirs(&locks);
    if (!ok) {
        ks_outfile_abort_all(files, n);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (files[i]->path)
            release(files[i]);
    return true;
}

/* ---- naming the same file --------------------------------------------------- */

/* An absolute path with ".", ".." and "//" resolved as text. */
static char *lexical_absolute(const char *p)
{
    char cwd[PATH_MAX];
    if (p[0] != '/' && !getcwd(cwd, sizeof cwd))
        return NULL;
    size_t n = (p[0] == '/' ? 0 : strlen(cwd) + 1) + strlen(p) + 2;
    char *in = malloc(n), *out = malloc(n);
    if (!in || !out) {
        free(in);
        free(out);
        return NULL;
    }
    snprintf(in, n, "%s%s%s", p[0] == '/' ? "" : cwd, p[0] == '/' ? "" : "/", p);
    size_t len = 0;
    for (char *s = in; *s;) {
        while (*s == '/')
            s++;
        size_t k = strcspn(s, "/");
        if (k == 0)
            break;
        if (k == 2 && s[0] == '.' && s[1] == '.') {
            while (len > 0 && out[--len] != '/')
                ;
        } else if (!(k == 1 && s[0] == '.')) {
            out[len++] = '/';
            memcpy(out + len, s, k);
            len += k;
        }
        s += k;
    }
    out[len] = '\0';
    if (len == 0)
        strcpy(out, "/");
    free(in);
    return out;
}

/* The canonical name of a file that may not exist yet: its directory
 * resolved by realpath when it exists, its last component as given. */
static char *canonical(const char *p)
{
    char *abs = lexical_absolute(p);
    if (!abs)
        return NULL;
    char *slash = strrchr(abs, '/');
    char real[PATH_MAX];
    *slash = '\0';
    if (!realpath(*abs ? abs : "/", real)) {
        *slash = '/';
        return abs;
    }
    size_t n = strlen(real) + strlen(slash + 1) + 2;
    char *c = malloc(n);
    if (c)
        snprintf(c, n, "%s/%s", strcmp(real, "/") == 0 ? "" : real, slash + 1);
    free(abs);
    return c;
}

bool ks_outfile_same_target(const char *a, const char *b)
{
    if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return strcmp(a, b) == 0;
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ca = canonical(a), *cb = canonical(b);
    bool same = ca && cb ? strcmp(ca, cb) == 0 : strcmp(a, b) == 0;
    free(ca);
    free(cb);
    return same;
}
