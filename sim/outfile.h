/*
 * outfile.h - output files that appear only when complete.
 *
 * Owns: writing to a temporary name beside the target and renaming it
 * over the target on commit, so a crash, a full disk or an interrupted
 * run never leaves a half-written trace or summary under the real name;
 * committing several files as one (a run's trace and summary), so that a
 * reader never finds the newer of one next to the older of another; and
 * removing, after a failure, the directories an open created.
 *
 * "-" means standard output; a target that exists and is not a regular
 * file (/dev/null, a pipe) is written directly, never renamed over.
 * Every error message names the file and the OS error.
 */
#ifndef KS_OUTFILE_H
#define KS_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct ks_outfile {
    char *path;     /* the target */
    char *tmp;      /* temporary name, NULL when written directly */
    FILE *f;
    bool is_stdout;
    char **made;    /* directories the open created, outermost first */
    size_t n_made;
} ks_outfile;

/* Opens for writing, creating missing parent directories. On failure
 * returns false, writes a message (naming the path) to err, and leaves
 * nothing behind. A zeroed ks_outfile is "not open": commit and abort
 * accept it. */
bool ks_outfile_open(ks_outfile *o, const char *path, char *err, size_t errlen);
/* Flushes, syncs, closes and renames into place. False (with err) on any
 * I/O error; the temporary file and the directories the open created are
 * then removed. */
bool ks_outfile_commit(ks_outfile *o, char *err, size_t errlen);
/* Closes and removes the temporary file and the directories the open
 * created (after an error). */
void ks_outfile_abort(ks_outfile *o);

/*
 * Commits n files as one: each is written out and synced first; then,
 * holding an exclusive lock (flock) on each target's directory, so that
 * two ksim processes committing into the same place take turns, the
 * existing target of the last file (the seal: a run's summary) is removed
 * and the files are renamed into place in order. On any failure nothing
 * of this commit is left under a real name: temporaries and the targets
 * already renamed are removed, and so are the directories the opens
 * created. Files not open (zeroed) are skipped.
 */
bool ks_outfile_commit_all(ks_outfile *const *files, size_t n, char *err, size_t errlen);
/* Aborts n files: every temporary first, then the directories created,
 * deepest first (only those left empty). */
void ks_outfile_abort_all(ks_outfile *const *files, size_t n);

/*
 * A directory a command makes for its outputs (ksim report -o DIR): made
 * with its missing parents, and removed with everything in it when the
 * command fails, but only the directories this process created.
 */
typedef struct ks_outdir {
    char **made;    /* created, outermost first */
    size_t n_made;
} ks_outdir;

/* mkdir -p; false with err (naming the directory and the OS error). */
bool ks_outdir_make(ks_outdir *d, const char *dir, char *err, size_t errlen);
/* Removes the directories made, and what is in them, deepest first. */
void ks_outdir_remove(ks_outdir *d);
/* Keeps them (the command succeeded); frees the record. */
void ks_outdir_keep(ks_outdir *d);

/* True when paths a and b name the same file: the same inode when both
 * exist, else the same absolute path once ".", ".." and symbolic links
 * of their existing directories are resolved. "-" equals only "-". */
bool ks_outfile_same_target(const char *a, const char *b);

#endif
