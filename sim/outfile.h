/*
 * outfile.h - output files that appear only when complete.
 *
 * Owns: writing to a temporary name beside the target and renaming it
 * over the target on commit, so a crash, a full disk or an interrupted
 * run never leaves a half-written trace or summary under the real name.
 * "-" means standard output; a target that exists and is not a regular
 * file (/dev/null, a pipe) is written directly, never renamed over.
 */
#ifndef KS_OUTFILE_H
#define KS_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

typedef struct ks_outfile {
    char *path;     /* the target */
    char *tmp;      /* temporary name, NULL when written directly */
    FILE *f;
    bool is_stdout;
} ks_outfile;

/* Opens for writing, creating missing parent directories. On failure
 * returns false and writes a message (naming the path) to err. */
bool ks_outfile_open(ks_outfile *o, const char *path, char *err, size_t errlen);
/* Flushes, closes and renames into place. False (with err) on any I/O
 * error; the temporary file is then removed. */
bool ks_outfile_commit(ks_outfile *o, char *err, size_t errlen);
/* Closes and removes the temporary file (after an error). */
void ks_outfile_abort(ks_outfile *o);

#endif
