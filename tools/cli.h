/*
 * cli.h - the ksim command line: run, validate, defaults, help, version.
 *
 * Owns: argument parsing, where outputs go, what is printed, and exit
 * codes (0 success, 1 an expectation failed, 2 bad usage or bad input,
 * including outputs that cannot be written). Lives in libksim so tests
 * can drive it; tools/main.c only calls it.
 */
#ifndef KS_CLI_H
#define KS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#define KS_EXIT_OK 0
#define KS_EXIT_EXPECT 1
#define KS_EXIT_USAGE 2

int ks_cli_main(int argc, char **argv);

/* fflush for the commands' output as it goes (a CI log shows each line
 * when it is written); a failure on standard output is remembered, and
 * ks_cli_main then exits 2 naming the OS error. */
bool ks_cli_flush(FILE *f);

/* For every command's options: when argv[*i] is "--name=value" or
 * "--name value", the value (advancing *i past it; "" when the value is
 * missing); NULL when argv[*i] is not this option. */
const char *ks_cli_option_value(int argc, char **argv, int *i, const char *name);

#endif
