/*
 * status.h - how a ksim command ends: its exit code, and what it says on
 * standard error when it fails.
 *
 * Owns: the exit codes (0 success, 1 an expectation failed, 2 bad usage
 * or bad input, including outputs that cannot be written); the one form
 * of every message a command prints for bad usage or failure,
 * "ksim CMD: MESSAGE" ("ksim: MESSAGE" at the top level, before a
 * command is known), with "Try 'ksim CMD --help' for more information."
 * after bad usage; the scenario loader's messages (sim/diag.h) in that
 * form; and standard output's flush, whose failure makes any exit a 2.
 *
 * Every command includes this header, never tools/cli.h: the dispatcher
 * sits above the commands (tests/layers_check.sh fails otherwise).
 */
#ifndef KS_STATUS_H
#define KS_STATUS_H

#include "sim/diag.h"

#include <stdbool.h>
#include <stdio.h>

#define KS_EXIT_OK 0
#define KS_EXIT_EXPECT 1
#define KS_EXIT_USAGE 2

/* Prints "ksim CMD: MESSAGE" on standard error (cmd NULL or "": the top
 * level, "ksim: MESSAGE"). Returns KS_EXIT_USAGE. */
int ks_status_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The same, then "Try 'ksim CMD --help' for more information.". Returns
 * KS_EXIT_USAGE. */
int ks_status_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "ksim CMD: warning: MESSAGE" on standard error. */
void ks_status_warn(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints the loader's messages of d as the command's own: an error as
 * "ksim CMD: MESSAGE", a warning as "ksim CMD: warning: MESSAGE", and
 * "ksim CMD: ... and N more" when d kept fewer than it was given. */
void ks_status_diag(const char *cmd, const ks_diag *d);

/* fflush for the commands' output as it goes (a CI log shows each line
 * when it is written); a failure on standard output is remembered for
 * ks_status_finish. */
bool ks_status_flush(FILE *f);

/* The exit code of a command that returned rc, once whatever it printed
 * has reached standard output: a full disk or a closed pipe is an error
 * ("ksim CMD: standard output: write failed: ...", exit 2), never a silent
 * success. */
int ks_status_finish(const char *cmd, int rc);

#endif
